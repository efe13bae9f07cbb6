/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_CC_H
#define _MRC_CC_H

#include "socket.h"

struct mrc_net;

/**
 * struct mrc_cc_params - congestion-control settings of a namespace
 * @base_rtt_us: RTT without queueing; 0: each path's measured minimum
 * @target_delay_us: queueing delay below which the window may grow fast
 * @max_cwnd: largest congestion window, packets
 * @ai: additive increase per RTT without ECN below the target delay
 * @fi: additive increase per RTT without ECN above the target delay
 * @md: largest multiplicative decrease, in 1/1024 of the window
 * @qa_delay_us: queueing delay that resets the window (quick adapt); 0 off
 * @ecn_cooldown_us: how long a path whose packet was CE-marked is avoided
 *
 * Changed as a whole under &mrc_net.paths_lock; the data path reads each
 * field once with READ_ONCE().
 */
struct mrc_cc_params {
	u32 base_rtt_us;
	u32 target_delay_us;
	u32 max_cwnd;
	u32 ai;
	u32 fi;
	u32 md;
	u32 qa_delay_us;
	u32 ecn_cooldown_us;
};

void mrc_cc_init_net(struct mrc_net *mn);
void mrc_cc_params_store(struct mrc_cc_params *dst,
			 const struct mrc_cc_params *src);
void mrc_cc_on_ack(struct sock *sk, u32 delivered, s32 delay_us, bool ce);
void mrc_cc_on_loss(struct sock *sk, u32 pidx);
void mrc_cc_on_trim(struct sock *sk);
void mrc_cc_on_spurious(struct sock *sk);

#endif /* _MRC_CC_H */
