/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Module parameters; Documentation/networking/mrc.rst describes each one.
 */
#ifndef _MRC_PARAMS_H
#define _MRC_PARAMS_H

extern int mrc_family;
extern unsigned short mrc_udp_port;
extern unsigned int mrc_rto_min_ms;
extern unsigned int mrc_rto_max_ms;
extern unsigned int mrc_rto_init_ms;
extern unsigned int mrc_max_retries;
extern unsigned int mrc_syn_retries;
extern unsigned int mrc_ack_every;
extern unsigned int mrc_ack_delay_us;
extern bool mrc_tail_probes;
extern unsigned int mrc_auto_paths;
extern unsigned int mrc_spray_burst;
extern unsigned int mrc_probe_interval_ms;
extern unsigned int mrc_probe_good;
extern unsigned int mrc_fail_losses;
extern unsigned int mrc_probe_rate;
extern unsigned int mrc_rst_rate;

#endif /* _MRC_PARAMS_H */
