/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_CONN_PATHS_H
#define _MRC_CONN_PATHS_H

#include <net/flow.h>

#include "sched.h"
#include "mrc_types.h"

/* The socket lock protects the pointer; netlink readers use RCU. */
static inline struct mrc_cpaths *mrc_cps(struct mrc_sock *msk)
{
	return rcu_dereference_protected(msk->paths,
					 lockdep_sock_is_held(&msk->sk));
}

/* The sending state of the connection's paths, in the order of
 * mrc_cps(msk)->p (the socket lock protects the pointer), or NULL before
 * the connection sends its first DATA (mrc_cp_start()).
 */
static inline struct mrc_cpstate *mrc_cp_sts(struct mrc_sock *msk)
{
	return rcu_dereference_protected(mrc_cps(msk)->st,
					 lockdep_sock_is_held(&msk->sk));
}

/* A reordering window of 1 + @steps quarters of @srtt, at least a jiffy. */
static inline u32 mrc_reo_wnd(u32 srtt, u8 steps)
{
	return max_t(u32, srtt / 4 * (1 + steps), jiffies_to_usecs(1));
}

/* The reordering window of a path: the connection's srtt stands in for
 * the path's before the path has a sample. It is the path's own:
 * reordering on one path says nothing of another.
 */
static inline u32 mrc_reo_wnd_us(const struct mrc_sock *msk,
				 const struct mrc_cpstate *cs)
{
	return mrc_reo_wnd(cs->srtt_us ?: msk->srtt_us, cs->reo_steps);
}

/* The path for the next DATA packet (see sched.c), or -1. */
static inline int mrc_cp_choose(struct sock *sk, int avoid, u32 now)
{
	return mrc_cp_pick(mrc_cps(mrc_sk(sk)), avoid, now);
}

/* The path for a control packet, preferring @ev if usable, or -1. */
static inline int mrc_cp_choose_ctrl(struct sock *sk, int ev)
{
	return mrc_cp_pick_ctrl(mrc_cps(mrc_sk(sk)), ev);
}

int mrc_mpath_init(void);
void mrc_mpath_exit(void);
int mrc_cp_init(struct sock *sk, gfp_t gfp);
int mrc_cp_start(struct sock *sk, gfp_t gfp);
void mrc_cp_destroy(struct sock *sk);
void mrc_cp_refresh(struct sock *sk);
bool mrc_cp_any_usable(struct sock *sk);
bool mrc_cp_retire(struct sock *sk, const struct mrc_tx_cb *cb);
void mrc_cp_late(struct sock *sk, const struct mrc_tx_cb *cb, u32 tmo);

/* A path's silence is over, or no longer news: its late run ends, and it
 * is not due for retirement.
 */
static inline void mrc_cp_late_end(struct mrc_cpstate *cs)
{
	cs->late_run = 0;
	cs->late_until_us = 0;
}

/* A copy of a packet declared lost on the path arrived after all: the
 * path reorders more than its window allowed. The window grows by a
 * quarter of its srtt, as RACK's does on a DSACK, and at most once per
 * srtt (RFC 8985, 6.2 step 4): the copies of one late burst, declared
 * lost together, are one piece of evidence, not many.
 */
static inline void mrc_cp_reordered(struct mrc_cpstate *cs, u32 now)
{
	cs->reo_recoveries = 0;
	if (cs->reo_steps && (s32)(now - cs->reo_grown_us) < (s32)cs->srtt_us)
		return;
	WRITE_ONCE(cs->reo_steps,
		   min_t(u8, cs->reo_steps + 1, MRC_REO_STEPS_MAX));
	cs->reo_grown_us = now;
}

void mrc_cp_late_due(struct sock *sk, u32 now);
void mrc_cp_on_echo(struct sock *sk, u32 i, u32 tsecr);
void mrc_cp_on_dup(struct sock *sk, u32 i, u32 tsecr);
void mrc_cp_undo(struct sock *sk, u32 i, u32 tsecr, u32 cum,
		 const unsigned long *sack);
void mrc_cp_on_xmit(struct sock *sk, u32 i, u32 n, u32 bytes, u32 retrans);
void mrc_cp_on_delivered(struct sock *sk, const struct mrc_tx_cb *cb, u32 now,
			 bool ce, u32 tsecr);
void mrc_cp_on_lost(struct sock *sk, struct mrc_tx_cb *cb);
void mrc_cp_charge_loss(struct sock *sk, u32 i, u32 xmit_us);
void mrc_cp_on_trimmed(struct sock *sk, const struct mrc_tx_cb *cb);
void mrc_cp_on_unsent(struct sock *sk, const struct mrc_tx_cb *cb);
void mrc_cp_on_rtt(struct sock *sk, u32 i, u32 rtt_us);
void mrc_cp_on_ecn(struct sock *sk, u32 i, bool ce, u32 now);
struct dst_entry *mrc_cp_route(struct sock *sk, u32 i, struct flowi6 *fl6);
struct ipv6_txoptions *mrc_cp_opt(struct sock *sk, u32 i);

#endif /* _MRC_CONN_PATHS_H */
