/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_CONN_H
#define _MRC_CONN_H

#include "cc.h"
#include "socket.h"

int mrc_conn_hash(struct sock *sk, u32 id);
struct sock *mrc_conn_lookup(struct net *net, u32 cid);
void mrc_set_state(struct sock *sk, u8 state);
void mrc_sock_init(struct sock *sk);
void mrc_conn_init(struct sock *sk);
void mrc_conn_done(struct sock *sk);
void mrc_conn_abort(struct sock *sk, int err, bool send_rst);
void mrc_conn_established(struct sock *sk);
void mrc_conn_maybe_done(struct sock *sk);
void mrc_conn_orphan(struct sock *sk);
bool mrc_orphan_expired(struct sock *sk);

/**
 * mrc_rtt_fold() - fold an RTT sample into a smoothed RTT and its variation
 * @srtt_us: the smoothed RTT, 0 before the first sample
 * @rttvar_us: its mean deviation
 * @rtt_us: the sample, at least 1
 *
 * RFC 6298 (2.2 and 2.3), with alpha 1/8 and beta 1/4, for the connection
 * (mrc_rtt_sample()) and for each of its paths (mrc_cp_on_rtt()). Written
 * with WRITE_ONCE(): netlink reads a path's without the socket's lock.
 */
static inline void mrc_rtt_fold(u32 *srtt_us, u32 *rttvar_us, u32 rtt_us)
{
	u32 srtt = *srtt_us, var = *rttvar_us;

	if (!srtt) {
		WRITE_ONCE(*rttvar_us, rtt_us / 2);
		WRITE_ONCE(*srtt_us, rtt_us);
		return;
	}
	WRITE_ONCE(*rttvar_us, var - var / 4 + abs((s32)(srtt - rtt_us)) / 4);
	WRITE_ONCE(*srtt_us, srtt - srtt / 8 + rtt_us / 8);
}

void mrc_rtt_sample(struct sock *sk, u32 rtt_us);
u32 mrc_rto_us(const struct sock *sk);
void mrc_arm_rto(struct sock *sk);
void mrc_arm_rtx_at(struct sock *sk, u32 delay_us);
void mrc_arm_ack_timer(struct sock *sk);
void mrc_stop_timers(struct sock *sk);
void mrc_release_cb(struct sock *sk);

#endif /* _MRC_CONN_H */
