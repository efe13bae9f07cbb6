// SPDX-License-Identifier: GPL-2.0
/*
 * MRC congestion control: one window per connection, in the spirit of
 * UET's NSCC, driven by ECN and by queueing delay (the RTT of the path an
 * ACK echoes, less that path's base RTT). Each ACK falls in one of four
 * cases:
 *
 *   no CE, delay <= target   slow start until the first congestion signal,
 *                            then additive increase of "ai" packets per RTT
 *   no CE, delay > target    additive increase of "fi" packets per RTT
 *   CE,    delay > target    multiplicative decrease, at most once per RTT,
 *                            in proportion to the excess delay, by at most
 *                            md/1024 of the window
 *   CE,    delay <= target   no change: the queue is short, the mark is on
 *                            one path, and the path choice moves off it
 *
 * A delay over qa_delay_us (quick adapt) sets the window to what was
 * delivered in the last round trip, at most once per RTT. A loss on one
 * of N usable paths takes 1/(2N) of the window, once per window of data
 * for that path: losses on every path halve it, as on one path. A
 * reduction whose retransmissions all turn out spurious is undone. The
 * settings are the namespace's
 * (MRC_CMD_CC_SET); Documentation/networking/mrc.rst describes them.
 */
#include "cc.h"
#include "conn.h"
#include "conn_paths.h"
#include "pernet.h"

/**
 * mrc_cc_init_net() - the default settings of a new namespace
 * @mn: the namespace's MRC state
 */
void mrc_cc_init_net(struct mrc_net *mn)
{
	mn->cc.base_rtt_us = 0;
	mn->cc.target_delay_us = 2000;
	mn->cc.max_cwnd = MRC_WND;
	mn->cc.ai = 1;
	mn->cc.fi = 1;
	mn->cc.md = 512;
	mn->cc.qa_delay_us = 50000;
	mn->cc.ecn_cooldown_us = 1000;
}

/**
 * mrc_cc_params_store() - publish new settings
 * @dst: the namespace's settings
 * @src: the new ones, validated
 *
 * Caller holds &mrc_net.paths_lock. Readers load each field once.
 */
void mrc_cc_params_store(struct mrc_cc_params *dst,
			 const struct mrc_cc_params *src)
{
	WRITE_ONCE(dst->base_rtt_us, src->base_rtt_us);
	WRITE_ONCE(dst->target_delay_us, src->target_delay_us);
	WRITE_ONCE(dst->max_cwnd, src->max_cwnd);
	WRITE_ONCE(dst->ai, src->ai);
	WRITE_ONCE(dst->fi, src->fi);
	WRITE_ONCE(dst->md, src->md);
	WRITE_ONCE(dst->qa_delay_us, src->qa_delay_us);
	WRITE_ONCE(dst->ecn_cooldown_us, src->ecn_cooldown_us);
}

static void mrc_cc_grow(struct mrc_sock *msk, u32 delivered, u32 gain)
{
	msk->cwnd_cnt += delivered * gain;
	while (msk->cwnd_cnt >= msk->cwnd) {
		msk->cwnd_cnt -= msk->cwnd;
		msk->cwnd++;
	}
}

/* A reduction for congestion: no other until what was sent by now is
 * acknowledged, so that it happens at most once per round trip.
 */
static void mrc_cc_reduce(struct mrc_sock *msk, u32 cwnd)
{
	/* A new episode: its retransmissions decide whether to undo it. */
	if (!msk->in_recovery) {
		msk->undo_cwnd = msk->cwnd;
		msk->undo_retrans = 0;
	}
	msk->cwnd = max_t(u32, cwnd, 2);
	msk->ssthresh = msk->cwnd;
	msk->cwnd_cnt = 0;
	msk->recover = msk->snd_nxt;
	msk->in_recovery = true;
}

/* Whether @mark, a snd_nxt of the past, is still ahead of snd_una: not
 * all that was sent before it is acknowledged yet. It must not be beyond
 * snd_nxt either: a mark left from 2^23 PSNs ago would read as ahead
 * again, for the next 2^23.
 */
static bool mrc_mark_pending(const struct mrc_sock *msk, u32 mark)
{
	return mrc_psn_after(mark, msk->snd_una) &&
	       !mrc_psn_after(mark, msk->snd_nxt);
}

/**
 * mrc_cc_on_ack() - adjust the window for an ACK
 * @sk: the socket, locked
 * @delivered: packets newly acknowledged or selectively acknowledged
 * @delay_us: queueing delay measured by the ACK, or -1 if none
 * @ce: the ACK echoed a congestion mark
 */
void mrc_cc_on_ack(struct sock *sk, u32 delivered, s32 delay_us, bool ce)
{
	const struct mrc_cc_params *cc = &mrc_net(sock_net(sk))->cc;
	struct mrc_sock *msk = mrc_sk(sk);
	u32 target = READ_ONCE(cc->target_delay_us);
	u32 qa = READ_ONCE(cc->qa_delay_us);
	u32 max_cwnd = clamp_t(u32, READ_ONCE(cc->max_cwnd), 2, MRC_WND);
	bool high = delay_us > 0 && (u32)delay_us > target;

	msk->round_delivered += delivered;
	if (!mrc_mark_pending(msk, msk->round_end)) {
		msk->prev_round_delivered = msk->round_delivered;
		msk->round_delivered = 0;
		msk->round_end = msk->snd_nxt;
	}
	if (msk->in_recovery && !mrc_mark_pending(msk, msk->recover))
		msk->in_recovery = false;

	if (qa && delay_us > 0 && (u32)delay_us > qa &&
	    !mrc_mark_pending(msk, msk->qa_end)) {
		MRC_INC(sock_net(sk), CC_QUICK_ADAPT);
		mrc_cc_reduce(msk, min(msk->cwnd, msk->prev_round_delivered));
		msk->qa_end = msk->snd_nxt;
		return;
	}
	if (ce && high) {
		u32 md = min_t(u32, READ_ONCE(cc->md), 1023), cut;
		u64 excess = (u32)delay_us - target;

		if (msk->in_recovery)
			return;
		/* Cut by md/1024 of the window when the delay is twice the
		 * target or more, by less when it is just above.
		 */
		cut = div_u64((u64)msk->cwnd * md * min_t(u64, excess, target),
			      (u64)target * 1024);
		MRC_INC(sock_net(sk), CC_ECN_DECREASE);
		mrc_cc_reduce(msk, msk->cwnd - max_t(u32, cut, 1));
		return;
	}
	if (ce || msk->in_recovery || !delivered)
		return;
	if (!high && msk->cwnd < msk->ssthresh)
		msk->cwnd += delivered;
	else if (!high)
		mrc_cc_grow(msk, delivered, READ_ONCE(cc->ai));
	else
		mrc_cc_grow(msk, delivered, READ_ONCE(cc->fi));
	msk->cwnd = min(msk->cwnd, max_cwnd);
}

/**
 * mrc_cc_on_loss() - reduce the window for a packet lost on a path
 * @sk: the socket, locked
 * @pidx: the entry of the path the packet was lost on
 *
 * The path's share of a halving, once per window of data for the path.
 */
void mrc_cc_on_loss(struct sock *sk, u32 pidx)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_cpaths *cps = mrc_cps(msk);
	struct mrc_cpstate *cs = &mrc_cp_sts(msk)[pidx];
	u32 i, n = 0;

	if (cs->loss_recover && mrc_mark_pending(msk, cs->loss_recover))
		return;
	cs->loss_recover = msk->snd_nxt ?: 1;
	for (i = 0; i < cps->nr; i++)
		if (mrc_cp_usable(&cps->p[i]))
			n++;
	MRC_INC(sock_net(sk), CC_LOSS_DECREASE);
	mrc_cc_reduce(msk, msk->cwnd - msk->cwnd / (2 * max_t(u32, n, 1)));
	/* After 16 recoveries on the path without a late arrival, its
	 * reordering window is back to a quarter of its srtt.
	 */
	if (++cs->reo_recoveries >= 16) {
		cs->reo_recoveries = 0;
		WRITE_ONCE(cs->reo_steps, 0);
	}
}

/**
 * mrc_cc_on_trim() - reduce the window for a packet a switch trimmed
 * @sk: the socket, locked
 *
 * A trim is a queue that overflowed: the strongest congestion signal
 * there is, and unlike a loss it does not depend on the path, since the
 * paths of an incast share the last hop. The window takes the largest
 * multiplicative decrease (md), at most once per smoothed RTT of time:
 * while trims go on, the head of the window may be trimmed again and
 * again, so waiting for it to be acknowledged would stop the decrease
 * exactly when it is needed.
 */
void mrc_cc_on_trim(struct sock *sk)
{
	const struct mrc_cc_params *cc = &mrc_net(sock_net(sk))->cc;
	struct mrc_sock *msk = mrc_sk(sk);
	u32 md = min_t(u32, READ_ONCE(cc->md), 1023), now = mrc_now_us();

	if (msk->trim_cut_us &&
	    now - msk->trim_cut_us < max_t(u32, msk->srtt_us, 1))
		return;
	msk->trim_cut_us = now | 1;
	MRC_INC(sock_net(sk), CC_TRIM_DECREASE);
	mrc_cc_reduce(msk, msk->cwnd -
		      max_t(u32, div_u64((u64)msk->cwnd * md, 1024), 1));
}

/**
 * mrc_cc_on_spurious() - the peer received a retransmitted packet twice
 * @sk: the socket, locked
 *
 * When every retransmission since the latest reduction turned out not to
 * be needed, the reduction was for nothing: restore the window.
 */
void mrc_cc_on_spurious(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	if (!msk->undo_retrans)
		return;
	if (--msk->undo_retrans)
		return;
	if (msk->undo_cwnd > msk->cwnd) {
		MRC_INC(sock_net(sk), CC_UNDO);
		msk->cwnd = msk->undo_cwnd;
		msk->ssthresh = max(msk->ssthresh, msk->cwnd);
		msk->in_recovery = false;
	}
}
