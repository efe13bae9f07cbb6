/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_CONN_H
#define _MRC_CONN_H

#include "cc.h"
#include "mrc_types.h"

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

void mrc_rtt_sample(struct sock *sk, u32 rtt_us);
u32 mrc_rto_us(const struct sock *sk);
void mrc_arm_rto(struct sock *sk);
void mrc_arm_rtx_at(struct sock *sk, u32 delay_us);
void mrc_arm_ack_timer(struct sock *sk);
void mrc_stop_timers(struct sock *sk);
void mrc_release_cb(struct sock *sk);

#endif /* _MRC_CONN_H */
