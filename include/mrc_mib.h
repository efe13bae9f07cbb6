/* SPDX-License-Identifier: GPL-2.0 */
/* MRC counters (MIB), per network namespace, shown in /proc/net/mrc_stat.
 * net/mrc/mib.c names each one; Documentation/networking/mrc.rst says
 * what raises it.
 */
#ifndef _MRC_MIB_H
#define _MRC_MIB_H

#include <linux/percpu.h>

enum mrc_mib_field {
	MRC_MIB_IN_PKTS,
	MRC_MIB_OUT_PKTS,
	MRC_MIB_IN_DATA,
	MRC_MIB_OUT_DATA,
	MRC_MIB_OUT_RETRANS,
	MRC_MIB_IN_ACKS,
	MRC_MIB_OUT_ACKS,
	MRC_MIB_IN_SYNS,
	MRC_MIB_OUT_SYNS,
	MRC_MIB_IN_FINS,
	MRC_MIB_OUT_FINS,
	MRC_MIB_IN_RSTS,
	MRC_MIB_OUT_RSTS,
	MRC_MIB_IN_NACKS,
	MRC_MIB_IN_OUT_OF_ORDER,
	MRC_MIB_ACTIVE_OPENS,
	MRC_MIB_PASSIVE_OPENS,
	MRC_MIB_CONN_REFUSED,
	MRC_MIB_CONN_RESET,
	MRC_MIB_CONN_TIMEOUT,
	MRC_MIB_CONN_ABORTED,
	MRC_MIB_RTO,
	MRC_MIB_RACK_LOST,
	MRC_MIB_PATH_TIME_LOST,
	MRC_MIB_PATH_MOVED,
	MRC_MIB_SPURIOUS_RETRANS,
	MRC_MIB_SACK_RECOVERED,
	MRC_MIB_ECN_ECHOED,
	MRC_MIB_CC_ECN_DECREASE,
	MRC_MIB_CC_QUICK_ADAPT,
	MRC_MIB_ZERO_WND_PROBES,
	MRC_MIB_MSGS_DELIVERED,
	MRC_MIB_DROP_SHORT,
	MRC_MIB_DROP_VERSION,
	MRC_MIB_DROP_TYPE,
	MRC_MIB_DROP_NO_CONN,
	MRC_MIB_DROP_BAD_CID,
	MRC_MIB_DROP_STATE,
	MRC_MIB_DROP_DUP,
	MRC_MIB_DROP_PSN_WINDOW,
	MRC_MIB_DROP_BAD_MSG,
	MRC_MIB_DROP_RCVBUF,
	MRC_MIB_DROP_BACKLOG,
	MRC_MIB_DROP_LISTEN_OVERFLOW,
	MRC_MIB_DROP_NO_LISTENER,
	MRC_MIB_DROP_ACK_UNSENT,
	MRC_MIB_DROP_SACK_UNSENT,
	MRC_MIB_DROP_NACK,
	MRC_MIB_DROP_NOMEM,
	MRC_MIB_DROP_BAD_SRH,
	MRC_MIB_TX_NO_ROUTE,
	MRC_MIB_TX_ERRORS,
	MRC_MIB_TX_NO_PATH,
	MRC_MIB_MAX
};

/**
 * struct mrc_mib - one CPU's share of the counters
 * @mibs: indexed by enum mrc_mib_field
 */
struct mrc_mib {
	unsigned long mibs[MRC_MIB_MAX];
};

#define MRC_INC(net, field)	this_cpu_inc(mrc_net(net)->mib->mibs[MRC_MIB_##field])
#define MRC_ADD(net, field, n)	this_cpu_add(mrc_net(net)->mib->mibs[MRC_MIB_##field], n)

#endif /* _MRC_MIB_H */
