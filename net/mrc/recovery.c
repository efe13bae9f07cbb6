// SPDX-License-Identifier: GPL-2.0
/*
 * MRC loss recovery, the sender's side: which packets in flight are lost
 * (per-path RACK, the paths' timeouts, local drops and missing routes),
 * the tail loss probe, the RTO, and a connection with no usable path.
 * The ACKs and NACKs that feed it are read in ack.c; what it declares
 * lost goes again through output.c.
 */
#include <linux/mrc.h>
#include <net/ipv6.h>

#include "cc.h"
#include "conn.h"
#include "conn_paths.h"
#include "output.h"
#include "params.h"
#include "pernet.h"
#include "recovery.h"
#include "trace.h"

/* A path's timeout without the allowances that mrc_path_timeout_us() adds
 * for stalls: its RTT, four variations and its reordering window.
 */
static u32 mrc_path_due_us(const struct mrc_sock *msk,
			   const struct mrc_cpstate *cs)
{
	return max(cs->srtt_us, cs->rack_rtt_us) + 4 * cs->rttvar_us +
	       mrc_reo_wnd_us(msk, cs);
}

/* Transmissions of a path in a row that this host must drop, at least,
 * before mrc_local_failed() judges the path failed.
 */
#define MRC_LOCAL_FAIL_RUN	8

/* Whether this host takes nothing for path entry @i: its last
 * max(mrc_fail_losses, MRC_LOCAL_FAIL_RUN) transmissions or more were
 * all dropped here (NET_XMIT_DROP), over at least the path's timeout,
 * while its device took nothing for any other path and another device
 * took a transmission of another path. A device that hangs with its
 * queue full, or a filter that drops what the path sends, fails the
 * path. A full queue that the paths share does not (it takes some of
 * the others'), nor does one that shapes this path alone (it takes some
 * of the path's own, which end the run). A run judged failed starts
 * over.
 */
static bool mrc_local_failed(struct mrc_sock *msk, u32 i, u32 now)
{
	u32 k = clamp_t(u32, READ_ONCE(mrc_fail_losses), MRC_LOCAL_FAIL_RUN,
			U8_MAX);
	struct mrc_cpstate *st = mrc_cp_sts(msk);
	const struct mrc_cpstate *cs;
	const struct mrc_cpaths *cps = mrc_cps(msk);
	const struct net_device *dev;
	bool elsewhere = false;
	u32 tmo, j;

	if (i == MRC_PIDX_NONE || !cps->p[i].dst)
		return false;
	cs = &st[i];
	tmo = cs->srtt_us ? mrc_path_due_us(msk, cs) : msk->rto_us;
	if (cs->qdrop_run < k || now - cs->qdrop_first_us < tmo)
		return false;
	dev = cps->p[i].dst->dev;
	for (j = 0; j < cps->nr; j++) {
		if (j == i || !st[j].left_us ||
		    !mrc_after(st[j].left_us, cs->qdrop_first_us))
			continue;
		if (!cps->p[j].dst || cps->p[j].dst->dev == dev)
			return false;
		elsewhere = true;
	}
	if (elsewhere)
		st[i].qdrop_run = 0;
	return elsewhere;
}

/* The newest packet in flight, if a tail probe may resend it: one
 * declared lost, trimmed, or dropped or unrouted here is being repaired
 * by its own rule already.
 */
static struct mrc_txpkt *mrc_tail_pkt(const struct mrc_sock *msk)
{
	u32 psn = msk->snd_nxt;

	while (mrc_psn_after(psn, msk->snd_una)) {
		const struct mrc_tx_cb *cb;
		struct mrc_txpkt *pkt;

		psn = mrc_psn_add(psn, -1);
		pkt = mrc_txq_get(msk, psn);
		if (!pkt)
			continue;
		cb = MRC_TX_CB(pkt);
		if (cb->lost || cb->trimmed || cb->qdrop || cb->noroute ||
		    cb->pidx == MRC_PIDX_NONE)
			return NULL;
		return pkt;
	}
	return NULL;
}

/* How long the newest packet in flight, @cb, may go unanswered before a
 * tail probe: its path's timeout as the loss detector takes it when a
 * packet sent later was delivered (its RTT, four variations and its
 * reordering window, mrc_path_due_us(); RFC 8985's PTO of twice the srtt
 * would fire early on a path whose RTT varies, as every path of a guest
 * or a shared host does), plus the excess delay of the latest delivery
 * (&mrc_sock.rack_excess_us: when this host or the peer did not run for
 * a while, everything is late), plus the longest the peer may hold the
 * ACK unless the packet asked for one at once. 0 before the path has an
 * RTT sample: the RTO covers that.
 */
static u32 mrc_tail_pto_us(struct mrc_sock *msk, const struct mrc_tx_cb *cb)
{
	const struct mrc_cpstate *cs = &mrc_cp_sts(msk)[cb->pidx];

	if (!cs->srtt_us)
		return 0;
	return mrc_path_due_us(msk, cs) + msk->rack_excess_us +
	       (cb->ack_req ? 0 : mrc_ack_hold_us());
}

/* Start a new RTO from now, at least @wait_us away, without delaying a
 * timer armed earlier (the end of a reordering window, a poll, a local
 * drop's tick).
 */
static void mrc_rto_restart(struct sock *sk, u32 wait_us)
{
	struct mrc_sock *msk = mrc_sk(sk);
	u32 rto = mrc_rto_us(sk);

	/* One jiffy past the window's end: its timer comes first. */
	if (wait_us != U32_MAX && wait_us >= rto)
		rto = wait_us + jiffies_to_usecs(1);
	msk->rto_deadline = jiffies + usecs_to_jiffies(rto);
	if (!timer_pending(&msk->rtx_timer) ||
	    time_after(msk->rtx_timer.expires, msk->rto_deadline))
		sk_reset_timer(sk, &msk->rtx_timer, msk->rto_deadline);
}

/**
 * mrc_tail_probe() - send the tail loss probe when it is due
 * @sk: the socket, locked
 *
 * The tail loss probe (RFC 8985, section 7). RACK and the paths' timeouts
 * declare a packet lost once something sent after it is delivered; when
 * the last packets sent, or the ACKs for them, are lost, nothing later
 * comes, and only the RTO would. So when the newest packet in flight has
 * gone unanswered for its PTO (mrc_tail_pto_us(), counted from its
 * transmission or the latest delivery, whichever is later), with nothing
 * waiting to be retransmitted, it is sent again on another path, asking
 * for an ACK at once. The ACK that answers it covers everything the peer
 * holds: loss detection then finds what is missing. One probe per
 * silence: the next one waits for an ACK that acknowledges something new.
 * Until the probe is due, the retransmission timer is set to fire for it,
 * unless the RTO comes first.
 */
void mrc_tail_probe(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_txpkt *pkt;
	struct mrc_tx_cb *cb;
	u32 now, pto, since;
	s32 left;
	int i;

	if (!READ_ONCE(mrc_tail_probes) || msk->tlp_out || msk->lost ||
	    !msk->outstanding || msk->outage_start)
		return;
	pkt = mrc_tail_pkt(msk);
	if (!pkt)
		return;
	cb = MRC_TX_CB(pkt);
	pto = mrc_tail_pto_us(msk, cb);
	if (!pto)
		return;
	now = mrc_clock_us(msk);
	/* The more recent of the two, by age: a delivery long ago may look
	 * later in serial arithmetic once the clock has wrapped.
	 */
	since = cb->xmit_us;
	if (msk->delivery_us && now - msk->delivery_us < now - since)
		since = msk->delivery_us;
	left = (s32)(since + pto - now);
	if (left > 0) {
		if (time_before(jiffies + usecs_to_jiffies(left),
				msk->rto_deadline))
			mrc_arm_rtx_at(sk, left);
		return;
	}
	/* A path of its own, away from the first copy's, as a repair gets
	 * (mrc_retransmit_lost()), starting no flowcell.
	 */
	mrc_cps(msk)->cell = 1;
	i = mrc_cp_choose(sk, cb->pidx, now);
	if (i < 0)
		return;
	/* The copy in flight no longer counts on its path: the packet is
	 * the new copy's now, on whichever path it goes. The packet keeps
	 * the first copy's path and send time, as for a copy declared lost,
	 * but it is not known lost until an ACK echoes the probe's copy.
	 */
	mrc_cp_on_unsent(sk, cb);
	cb->lost_pidx = cb->pidx;
	cb->lost_xmit_us = cb->xmit_us;
	cb->ack_req = 1;
	mrc_xmit_data(sk, pkt, i, now);
	cb->probed = 1;
	/* It repairs nothing known lost: neither it nor the duplicate it
	 * may draw counts towards undoing a window reduction (see
	 * mrc_rcv_ack()).
	 */
	msk->undo_retrans--;
	msk->tlp_out = true;
	msk->tlp_xmit_us = cb->xmit_us;
	msk->tlp_first_us = cb->lost_xmit_us;
	MRC_INC(sock_net(sk), TAIL_PROBES);
	/* The RTO from now, as RFC 8985 (7.3) rearms it: it ends about one
	 * ACK hold after the probe's PTO would, and left where it was it
	 * fired just after the probe, before the probe's ACK could come.
	 */
	mrc_rto_restart(sk, U32_MAX);
}

/* How long a packet may go unacknowledged on its path before it counts as
 * lost although nothing sent later on the path was delivered. While the
 * peer acknowledges packets sent after this one on other paths, it is
 * acknowledging promptly, and this path is late: the path's RTT plus four
 * variations plus the reordering window is enough (the RTO formula of RFC
 * 6298, per path). The RTT is the srtt, or the RTT of the latest-sent
 * packet the path delivered (&mrc_cpstate.rack_rtt_us) when that is
 * longer: a queue on the path that grows faster than the srtt follows (the
 * srtt moves an eighth of the way per sample, and a path gets a sample
 * only when an ACK echoes one of its packets) would otherwise make its
 * packets late by the growth. Otherwise (only the RTO asks then) the peer may be
 * holding its ACK, and the connection may be going idle: twice the srtt
 * plus four variations, plus the reordering window, plus the longest the
 * peer may hold an ACK (@hold: mrc_ack_hold_us(), computed once a scan,
 * not once a packet in flight, for it divides). Either way plus the
 * excess delay of the latest delivery (&mrc_sock.rack_excess_us): a
 * packet of another path that took longer than its own path's timeout
 * says that everything was late (this host or the peer did not run),
 * not this path alone. Zero while the path has no RTT sample (the RTO
 * covers it then).
 */
static u32 mrc_path_timeout_us(const struct mrc_sock *msk,
			       const struct mrc_cpstate *cs,
			       const struct mrc_tx_cb *cb, u32 hold)
{
	u32 base = mrc_path_due_us(msk, cs) + msk->rack_excess_us;

	if (!cs->srtt_us)
		return 0;
	if (msk->rack_xmit_us && mrc_after(msk->rack_xmit_us, cb->xmit_us))
		return base;
	return base + cs->srtt_us + hold;
}

/**
 * mrc_tail_repaired() - an ACK echoes a tail probe's copy, which filled
 *	the hole the packet's first copy left
 * @sk: the socket, locked
 * @cb: the packet, just acknowledged (@cb->probed): @cb->lost_pidx and
 *	@cb->lost_xmit_us name the first copy
 *
 * The first copy was lost on its path (or is later than the path's
 * timeout and the probe's round trip together): the path is charged the
 * loss, its late run grows (the failure detector), and the window is
 * reduced, as for a loss declared by the path's timeout.
 */
void mrc_tail_repaired(struct sock *sk, const struct mrc_tx_cb *cb)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_tx_cb first = *cb;
	u32 tmo;

	first.pidx = cb->lost_pidx;
	first.xmit_us = cb->lost_xmit_us;
	trace_mrc_pkt_lost(msk, cb->psn, mrc_cps(msk)->p[first.pidx].id,
			   MRC_LOST_TAIL_PROBE);
	MRC_INC(sock_net(sk), TAIL_PROBE_REPAIRS);
	mrc_cp_charge_loss(sk, first.pidx, first.xmit_us);
	mrc_cc_on_loss(sk, first.pidx);
	tmo = mrc_path_timeout_us(msk, &mrc_cp_sts(msk)[first.pidx], &first, 0);
	if (tmo)
		mrc_cp_late(sk, &first, tmo);
}

/**
 * mrc_mark_lost() - declare a packet in flight lost
 * @sk: the socket, locked
 * @cb: the packet, not yet marked
 * @reason: why, for the tracepoint
 */
void mrc_mark_lost(struct sock *sk, struct mrc_tx_cb *cb,
		   enum mrc_lost_reason reason)
{
	struct mrc_sock *msk = mrc_sk(sk);

	trace_mrc_pkt_lost(msk, cb->psn, mrc_cps(msk)->p[cb->pidx].id, reason);
	mrc_cb_set_lost(msk, cb);
	mrc_cp_on_lost(sk, cb);
}

/**
 * mrc_mark_released() - a packet its path did not lose leaves the window:
 *	send it again
 * @sk: the socket, locked
 * @cb: the packet, not yet marked lost: trimmed (and counted as a trim on
 *	its path), or too big for its path (a Packet Too Big)
 *
 * It is retransmitted like a lost packet, but its path, which carries what
 * fits and what is not trimmed, stays good.
 */
void mrc_mark_released(struct sock *sk, struct mrc_tx_cb *cb)
{
	mrc_cb_set_lost(mrc_sk(sk), cb);
	mrc_cp_on_unsent(sk, cb);
}

/* How long after its transmission a trimmed packet keeps its place in the
 * window: until its ACK would have come, one srtt. The NACK for a trimmed
 * header overtakes the queue the data waits in, so releasing the packet
 * at the NACK would let a sender whose packets are all trimmed go round
 * far faster than its window allows, and the trimmed headers alone would
 * fill the link (a trim storm).
 */
static u32 mrc_trim_hold_us(const struct mrc_sock *msk,
			    const struct mrc_tx_cb *cb)
{
	u64 hold = msk->srtt_us;

	/* Refused for want of memory: longer with each refusal in a row. */
	if (cb->nobuf)
		hold = min_t(u64, hold << msk->backoff,
			     (u64)mrc_rto_max_ms * USEC_PER_MSEC);
	return hold;
}

/* A packet in flight on a path, sent after the latest-sent packet
 * delivered: what mrc_late_scan() and mrc_late_wait() judge the silence
 * of the paths by.
 */
static bool mrc_out_since_rack(const struct mrc_sock *msk,
			       const struct mrc_tx_cb *cb)
{
	return !cb->lost && !cb->trimmed && !cb->noroute && !cb->qdrop &&
	       cb->pidx < MRC_PATHS_PER_SET_MAX &&
	       mrc_after(cb->xmit_us, msk->rack_xmit_us);
}

/**
 * mrc_late_scan() - which paths have packets out that were sent after the
 *	latest-sent packet delivered, and which of those are all on time
 * @sk: the socket, locked
 * @now: the clock, as mrc_clock_us() gives it
 * @after: set: the path has such a packet (with an RTT sample)
 * @ontime: set: none of the path's such packets is past mrc_path_due_us()
 *
 * Run only when a path's timeout is about to declare a packet lost, which
 * is rare: one more walk over the window then.
 */
static void mrc_late_scan(struct sock *sk, u32 now, unsigned long *after,
			  unsigned long *ontime)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_cpstate *st = mrc_cp_sts(msk);
	u32 psn;

	bitmap_zero(after, MRC_PATHS_PER_SET_MAX);
	bitmap_zero(ontime, MRC_PATHS_PER_SET_MAX);
	for (psn = msk->snd_una; mrc_psn_before(psn, msk->snd_nxt);
	     psn = mrc_psn_add(psn, 1)) {
		struct mrc_txpkt *pkt = mrc_txq_get(msk, psn);
		const struct mrc_cpstate *cs;
		struct mrc_tx_cb *cb;

		if (!pkt)
			continue;
		cb = MRC_TX_CB(pkt);
		if (!mrc_out_since_rack(msk, cb))
			continue;
		cs = &st[cb->pidx];
		if (!cs->srtt_us)
			continue;
		if (!__test_and_set_bit(cb->pidx, after))
			__set_bit(cb->pidx, ontime);
		if ((s32)(now - cb->xmit_us) > (s32)mrc_path_due_us(msk, cs))
			__clear_bit(cb->pidx, ontime);
	}
}

/* Is path @pidx's lateness everyone's? Yes when other paths have packets
 * out that were sent after the latest-sent packet delivered, and every
 * one of those paths is itself late with them (mrc_late_scan()).
 */
static bool mrc_late_everywhere(const unsigned long *after,
				const unsigned long *ontime, u32 pidx)
{
	u32 others = bitmap_weight(after, MRC_PATHS_PER_SET_MAX);
	u32 others_ontime = bitmap_weight(ontime, MRC_PATHS_PER_SET_MAX);

	if (pidx < MRC_PATHS_PER_SET_MAX && test_bit(pidx, after)) {
		others--;
		if (test_bit(pidx, ontime))
			others_ontime--;
	}
	return others && !others_ontime;
}

/**
 * mrc_late_wait() - how long until every other path is late as well
 * @sk: the socket, locked
 * @now: the clock, as mrc_clock_us() gives it
 * @after: from mrc_late_scan()
 * @ontime: from mrc_late_scan()
 * @pidx: the path whose packet is past its timeout
 *
 * A path other than @pidx that has packets out sent after the latest-sent
 * packet delivered, none of them late yet, becomes late when the first of
 * them passes mrc_path_due_us(). The packet scanned first stands for a
 * path's first to come due: the window is in the order of sending but
 * for retransmissions, which can only make the wait longer, by at most
 * one due of that path.
 *
 * Return: the microseconds until the last of those paths becomes late, or
 * 0 when there is none (every other path with such packets is late, or no
 * other path has any).
 */
static u32 mrc_late_wait(struct sock *sk, u32 now, const unsigned long *after,
			 const unsigned long *ontime, u32 pidx)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_cpstate *st = mrc_cp_sts(msk);
	DECLARE_BITMAP(seen, MRC_PATHS_PER_SET_MAX);
	u32 psn, wait = 0;

	bitmap_zero(seen, MRC_PATHS_PER_SET_MAX);
	for (psn = msk->snd_una; mrc_psn_before(psn, msk->snd_nxt);
	     psn = mrc_psn_add(psn, 1)) {
		struct mrc_txpkt *pkt = mrc_txq_get(msk, psn);
		struct mrc_tx_cb *cb;
		s32 left;

		if (!pkt)
			continue;
		cb = MRC_TX_CB(pkt);
		if (!mrc_out_since_rack(msk, cb) || cb->pidx == pidx ||
		    !test_bit(cb->pidx, after) || !test_bit(cb->pidx, ontime) ||
		    __test_and_set_bit(cb->pidx, seen))
			continue;
		left = (s32)(cb->xmit_us + mrc_path_due_us(msk, &st[cb->pidx]) -
			     now);
		if (left > 0)
			wait = max_t(u32, wait, left);
	}
	return wait;
}

/**
 * mrc_detect_losses() - per-path RACK, and a per-path time threshold
 * @sk: the socket, locked
 *
 * Paths differ in delay, so a packet is compared only with packets sent
 * on its own path: it is lost when a packet sent after it on the same
 * path has been delivered and a further reordering window (a quarter of
 * the path's srtt, at least one jiffy) has passed: the path delivers, so
 * that is congestion, and the path stays. A packet that nothing later on
 * its path overtook is lost when it has been out longer than the path's
 * timeout (mrc_path_timeout_us()) while a packet sent after it on
 * another path has been delivered: the path may have gone silent, and a
 * run of such losses retires it (mrc_cp_late()); unless every other path
 * with packets out sent after that delivery is as late with them
 * (mrc_late_everywhere()): the delay is then everyone's, and the packet
 * waits for the next ACK. A packet that found no route
 * never left: it is lost at once, and its path retired (the route to the
 * path's first hop went away, with its link). A packet a queue of this
 * host dropped never left either: it is lost at once, a congestion
 * signal, and its path stays (a full local queue is no failure of the
 * path). A packet a NACK said was
 * trimmed is no loss: it is released for retransmission once its trim
 * hold (mrc_trim_hold_us()) is over. Packets still inside any of these
 * windows arm the timer for its end.
 *
 * Return: the microseconds until the earliest of those windows ends
 * (U32_MAX if none is open), or 0 when RACK or a path's timeout declared
 * a packet lost: each of these shows that the peer delivers (a packet
 * sent later was acknowledged, or a NACK came), so the RTO, which is for
 * a peer that has gone silent, must wait (mrc_rtx_timeout()).
 */
u32 mrc_detect_losses(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_cpstate *st = mrc_cp_sts(msk);
	DECLARE_BITMAP(ontime, MRC_PATHS_PER_SET_MAX);
	DECLARE_BITMAP(after, MRC_PATHS_PER_SET_MAX);
	u32 now = mrc_clock_us(msk), wait = U32_MAX, psn;
	u32 pidx_waited = MRC_PIDX_NONE, late_wait = 0;
	bool found = false, scanned = false, held = false;

	for (psn = msk->snd_una; mrc_psn_before(psn, msk->snd_nxt);
	     psn = mrc_psn_add(psn, 1)) {
		struct mrc_txpkt *pkt = mrc_txq_get(msk, psn);
		const struct mrc_cpstate *cs;
		struct mrc_tx_cb *cb;
		s32 left;
		u32 tmo;

		if (!pkt)
			continue;
		cb = MRC_TX_CB(pkt);
		if (cb->lost)
			continue;
		if (cb->noroute) {
			mrc_mark_lost(sk, cb, MRC_LOST_NO_ROUTE);
			mrc_cp_retire(sk, cb);
			MRC_INC(sock_net(sk), NO_ROUTE_LOST);
			continue;
		}
		if (cb->qdrop) {
			mrc_mark_lost(sk, cb, MRC_LOST_QDISC_DROP);
			mrc_cc_on_loss(sk, cb->pidx);
			MRC_INC(sock_net(sk), QDISC_DROP_LOST);
			if (mrc_local_failed(msk, cb->pidx, now) &&
			    mrc_cp_retire(sk, cb))
				MRC_INC(sock_net(sk), RETIRE_LOCAL_DROP);
			continue;
		}
		if (cb->trimmed) {
			left = (s32)(cb->xmit_us + mrc_trim_hold_us(msk, cb) - now);
			if (left <= 0)
				mrc_mark_released(sk, cb);
			else
				wait = min_t(u32, wait, left);
			continue;
		}
		cs = &st[cb->pidx];
		if (cs->rack_xmit_us && mrc_before(cb->xmit_us, cs->rack_xmit_us)) {
			left = (s32)(cb->xmit_us + cs->rack_rtt_us +
				     mrc_reo_wnd_us(msk, cs) - now);
			if (left <= 0) {
				mrc_mark_lost(sk, cb, MRC_LOST_RACK);
				mrc_cc_on_loss(sk, cb->pidx);
				MRC_INC(sock_net(sk), RACK_LOST);
				found = true;
			} else {
				/* The path delivers: RACK alone judges it. */
				wait = min_t(u32, wait, left);
			}
			continue;
		}
		/* Only a delivery of a packet sent after this one, on another
		 * path, shows that the peer acknowledges and that this path is
		 * the late one. Without one, the connection is stalled as a
		 * whole (this host or the peer did not run, every path is
		 * down) or going idle, the ACKs may be what is late, and the
		 * RTO decides: an ACK that arrives late for everything would
		 * otherwise condemn every path at once.
		 */
		if (!msk->rack_xmit_us || !mrc_after(msk->rack_xmit_us, cb->xmit_us))
			continue;
		tmo = mrc_path_timeout_us(msk, cs, cb, 0);
		if (!tmo)
			continue;
		/* Past its timeout it is judged whether or not an ACK has
		 * come since: the window may have closed behind this very
		 * hole, and none will.
		 */
		left = (s32)(cb->xmit_us + tmo - now);
		if (left > 0) {
			wait = min_t(u32, wait, left);
			continue;
		}
		/* Past its timeout, but so is everything sent since on every
		 * other path that has packets out: the delay is everyone's
		 * (queues that all grew, a stall of this host or the peer),
		 * not this path's. The next ACK judges again, and the RTO
		 * covers a silence of every path.
		 */
		if (!scanned) {
			mrc_late_scan(sk, now, after, ontime);
			scanned = true;
		}
		if (mrc_late_everywhere(after, ontime, cb->pidx)) {
			held = true;
			continue;
		}
		/* Nothing new from the peer since this packet fell due, and
		 * other paths have packets out since the latest delivery that
		 * are not due yet: the silence may be everyone's, which only
		 * their due times can show. Wait for them; an ACK that comes
		 * meanwhile judges afresh. While the peer acknowledges, the
		 * first ACK after the timeout decides as before, and where
		 * nothing else is out (a window closed behind this very hole)
		 * there is nothing to wait for.
		 */
		if (!mrc_after(msk->delivery_us, cb->xmit_us + tmo)) {
			if (pidx_waited != cb->pidx) {
				late_wait = mrc_late_wait(sk, now, after,
							  ontime, cb->pidx);
				pidx_waited = cb->pidx;
			}
			if (late_wait) {
				wait = min_t(u32, wait, late_wait);
				held = true;
				continue;
			}
		}
		mrc_mark_lost(sk, cb, MRC_LOST_PATH_TIMEOUT);
		mrc_cc_on_loss(sk, cb->pidx);
		MRC_INC(sock_net(sk), PATH_TIME_LOST);
		mrc_cp_late(sk, cb, tmo);
		found = true;
	}
	if (held)
		MRC_INC(sock_net(sk), PATH_TIME_HELD);
	if (wait != U32_MAX)
		mrc_arm_rtx_at(sk, wait);
	return found ? 0 : wait;
}

/* The RTO expired: declare lost what has been out longer than both the
 * RTO without backoff and its own path's timeout, and in any case the
 * oldest packet. Paths differ in delay, so packets young for their path
 * are not declared lost with the rest.
 */
static void mrc_rto_fired(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_cpstate *st = mrc_cp_sts(msk);
	u32 now = mrc_now_us(), hold = mrc_ack_hold_us(), base, psn;
	bool first = true;

	trace_mrc_rto(msk);
	msk->stats.rtos++;
	MRC_INC(sock_net(sk), RTO);
	msk->ssthresh = max_t(u32, mrc_inflight(msk) / 2, 2);
	base = max(msk->rto_us, msk->path_rto_us);
	for (psn = msk->snd_una; mrc_psn_before(psn, msk->snd_nxt);
	     psn = mrc_psn_add(psn, 1)) {
		struct mrc_txpkt *pkt = mrc_txq_get(msk, psn);
		struct mrc_tx_cb *cb;
		u32 tmo;

		if (!pkt || pkt->cb.lost)
			continue;
		cb = MRC_TX_CB(pkt);
		if (cb->trimmed) {
			/* Known not to be in the network: no loss. */
			mrc_mark_released(sk, cb);
			first = false;
			continue;
		}
		if (cb->qdrop) {
			/* It never left: no failure of its path. */
			mrc_mark_lost(sk, cb, MRC_LOST_QDISC_DROP);
			MRC_INC(sock_net(sk), QDISC_DROP_LOST);
			first = false;
			continue;
		}
		if (cb->noroute) {
			/* A retransmission that found no route again. */
			mrc_mark_lost(sk, cb, MRC_LOST_NO_ROUTE);
			mrc_cp_retire(sk, cb);
			MRC_INC(sock_net(sk), NO_ROUTE_LOST);
			first = false;
			continue;
		}
		tmo = max(base, mrc_path_timeout_us(msk, &st[cb->pidx], cb,
						    hold));
		if (first || now - cb->xmit_us >= tmo) {
			cb->via_rto = 1;
			mrc_mark_lost(sk, cb, MRC_LOST_RTO);
			/* A second RTO in a row, nothing heard from the peer
			 * since the first: no path delivers, and those it finds
			 * packets on are retired, for probes to find out which
			 * come back (every path is, when all went silent: an
			 * outage). One RTO may be a stall of this host or the
			 * peer: its losses only add to the paths' runs, with
			 * the path's own timeout setting the wait.
			 */
			if (msk->retries >= 2)
				mrc_cp_retire(sk, cb);
			else
				mrc_cp_late(sk, cb,
					    mrc_path_timeout_us(msk, &st[cb->pidx],
								cb, 0) ?: tmo);
		}
		first = false;
	}
	/* Slow start again from two packets, as TCP does after an RTO; undone
	 * if every retransmission turns out not to have been needed.
	 */
	msk->undo_cwnd = max(msk->cwnd, msk->in_recovery ? msk->undo_cwnd : 0);
	msk->undo_retrans = 0;
	msk->cwnd = 2;
	msk->cwnd_cnt = 0;
	msk->in_recovery = false;
	/* The oldest goes whatever the window, as TCP retransmits the head
	 * of its queue: packets young for their paths, still counted in
	 * flight, may fill the two packets, and the RTO would send nothing.
	 */
	mrc_retransmit_lost(sk, true);
}

/* With data to send and no usable path (every one assumed bad, denied or
 * gone), the connection neither retransmits nor counts retries: it waits,
 * polling, for a probe to bring a path back, and gives up with ETIMEDOUT
 * once the outage has lasted MRC_OUTAGE_TIMEOUT. Returns true while in
 * the outage (the timer is re-armed), and when it has just ended: a path
 * is back, so what was declared lost goes at once, with the window the
 * connection had, and the RTO restarts; the end counts as a retry. An
 * RTO then would add nothing but a window of two packets. Returns false
 * when there was no outage.
 */
static bool mrc_outage(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	unsigned long now = jiffies;

	if (mrc_cp_any_usable(sk)) {
		if (!msk->outage_start)
			return false;
		msk->outage_start = 0;
		/* It counts as a retry all the same (an ACK clears the count):
		 * a peer that is gone, behind paths that come back only to
		 * fail again, must still time out.
		 */
		if (++msk->retries >= min_t(unsigned int, mrc_max_retries, U8_MAX)) {
			mrc_conn_abort(sk, ETIMEDOUT, true);
			return true;
		}
		msk->rto_deadline = now + usecs_to_jiffies(mrc_rto_us(sk));
		sk_reset_timer(sk, &msk->rtx_timer, msk->rto_deadline);
		mrc_push(sk);
		return true;
	}
	if (!msk->outage_start) {
		msk->outage_start = now;
		MRC_INC(sock_net(sk), OUTAGES);
	}
	if (time_after(now, msk->outage_start +
		       msecs_to_jiffies(msk->outage_timeout_ms))) {
		mrc_conn_abort(sk, ETIMEDOUT, true);
		return true;
	}
	msk->rto_deadline = now + msecs_to_jiffies(MRC_OUTAGE_POLL_MS);
	sk_reset_timer(sk, &msk->rtx_timer, msk->rto_deadline);
	return true;
}

/**
 * mrc_rtx_timeout() - the retransmission timer fired
 * @sk: the socket, locked, not owned by a process
 *
 * Before the RTO deadline it is the end of a reordering window, or a tail
 * probe's timeout (mrc_tail_probe(), from mrc_push()). After it,
 * depending on the state: resend the SYN or SYNACK, retransmit what is
 * outstanding, probe a closed window, or resend the FIN. After the
 * documented number of retries the connection fails with ETIMEDOUT.
 */
void mrc_rtx_timeout(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	unsigned int limit = min_t(unsigned int, mrc_max_retries, U8_MAX);

	if (msk->state == MRC_CLOSED || msk->state == MRC_LISTEN)
		return;
	if (mrc_orphan_expired(sk))
		return;
	if (time_before(jiffies, msk->rto_deadline)) {
		/* The losses found here go again with a full RTO ahead of
		 * them, as TCP rearms its RTO when it retransmits the head.
		 */
		if (!mrc_detect_losses(sk))
			mrc_rto_restart(sk, U32_MAX);
		mrc_push(sk);
		if (!timer_pending(&msk->rtx_timer) &&
		    (msk->outstanding || (msk->fin & MRC_FIN_SENT)))
			sk_reset_timer(sk, &msk->rtx_timer, msk->rto_deadline);
		return;
	}

	if (msk->state == MRC_ESTABLISHED &&
	    (msk->outstanding || !skb_queue_empty(&sk->sk_write_queue)) &&
	    mrc_outage(sk))
		return;
	/* The per-path detector before the RTO. A path's timeout may end
	 * after the RTO (a path's reordering window grows without an RTT
	 * sample to raise the RTO with it), and a timer that fired late,
	 * after this host did not run for a while, finds both due. A packet
	 * RACK or a path's timeout declares lost, or will, was sent before
	 * one the peer acknowledged: the peer delivers, and these losses
	 * are the paths', which the detector judges, not a silence of the
	 * whole connection. Only a peer silent since everything in flight
	 * was sent makes an RTO. The scan ends (each packet it waits on is
	 * older than the latest delivery): it cannot hold the RTO off for
	 * long without new deliveries.
	 */
	if (msk->state == MRC_ESTABLISHED && msk->outstanding) {
		u32 wait = mrc_detect_losses(sk);

		if (wait != U32_MAX) {
			MRC_INC(sock_net(sk), RTO_DEFERRED);
			mrc_rto_restart(sk, wait);
			mrc_push(sk);
			return;
		}
	}
	if (msk->state == MRC_SYN_SENT || msk->state == MRC_SYN_RECV)
		limit = min_t(unsigned int, mrc_syn_retries, U8_MAX);
	if (msk->retries >= limit) {
		/* A child nobody has accepted just goes away. */
		mrc_conn_abort(sk, msk->state == MRC_SYN_RECV ? 0 : ETIMEDOUT,
			       msk->state != MRC_SYN_SENT);
		return;
	}
	msk->retries++;
	if (msk->backoff < MRC_BACKOFF_MAX)
		msk->backoff++;

	switch (msk->state) {
	case MRC_SYN_SENT:
		mrc_send_syn(sk, MRC_PKT_SYN, 0);
		break;
	case MRC_SYN_RECV:
		mrc_send_syn(sk, MRC_PKT_SYNACK, 0);
		break;
	default:
		if (msk->outstanding) {
			mrc_rto_fired(sk);
		} else if (!skb_queue_empty(&sk->sk_write_queue)) {
			MRC_INC(sock_net(sk), ZERO_WND_PROBES);
			mrc_send_new(sk, true);
		} else if ((msk->fin & (MRC_FIN_SENT | MRC_FIN_ACKED)) ==
			   MRC_FIN_SENT) {
			mrc_send_fin(sk);
		} else {
			msk->retries = 0;
			msk->backoff = 0;
			return;
		}
	}
	/* The next RTO, unless what was just sent armed an earlier look:
	 * the poll for a path (mrc_poll_paths()) or a local drop's tick.
	 */
	mrc_rto_restart(sk, U32_MAX);
}
