// SPDX-License-Identifier: GPL-2.0
/*
 * MRC ACKs and NACKs, the sender's side: what the peer acknowledged
 * leaves the ring, each path and the congestion control learn what
 * became of their packets, and a trimmed packet is sent again. input.c
 * hands them over; recovery.c judges what is lost.
 */
#include <linux/mrc.h>
#include <net/ipv6.h>

#include "ack.h"
#include "cc.h"
#include "conn.h"
#include "conn_paths.h"
#include "output.h"
#include "parse.h"
#include "pernet.h"
#include "recovery.h"
#include "trace.h"

/* A packet left the ring: acknowledged cumulatively or selectively, by an
 * ACK whose mark, if any, belongs to entry @marked (else -1), which
 * echoed @tsecr, and which said whether that was a duplicate (@dup).
 */
static u32 mrc_tx_delivered(struct sock *sk, u32 psn, u32 now, int marked,
			    u32 tsecr, bool dup)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_txpkt *pkt = mrc_txq_get(msk, psn);
	struct mrc_tx_cb *cb;

	if (!pkt || pkt->cb.psn != psn)
		return 0;
	cb = MRC_TX_CB(pkt);
	msk->stats.bytes_acked += cb->len;
	mrc_cp_on_delivered(sk, cb, now, (int)cb->pidx == marked, tsecr);
	/* The probe's copy arrived first: the first copy did not. */
	if (cb->probed && !dup && tsecr == cb->xmit_us &&
	    cb->lost_pidx != MRC_PIDX_NONE)
		mrc_tail_repaired(sk, cb);
	/* A tail probe is no repair of a known loss: what it repaired,
	 * TailProbeRepairs counts.
	 */
	if (cb->xmits > 1 && !cb->via_rto && !cb->probed) {
		msk->stats.sack_recovered++;
		MRC_INC(sock_net(sk), SACK_RECOVERED);
	}
	if (cb->lost)
		msk->lost--;
	msk->outstanding--;
	msk->inflight_bytes -= cb->len;
	consume_skb(pkt->chunk);
	pkt->chunk = NULL;
	return 1;
}

/* ACKs take different paths and overtake one another: take the window of
 * the freshest. The peer's set of received PSNs only grows, so an ACK that
 * counts more of them was sent later; its window is the newer even when
 * smaller. Between two ACKs that count as many, only reading (which does
 * not change the set) changed the window, and it opens it: the larger is
 * the newer. This is TCP's snd_wl1/snd_wl2 rule (RFC 9293, 3.10.7.4) with
 * a set of PSNs in place of a sequence number.
 */
static void mrc_rwnd_update(struct mrc_sock *msk, u32 seq, u32 rwnd)
{
	if (mrc_psn_before(seq, msk->rwnd_seq) ||
	    (seq == msk->rwnd_seq && rwnd <= msk->peer_rwnd))
		return;
	msk->rwnd_seq = seq;
	msk->peer_rwnd = rwnd;
}

/* An ACK with %MRC_F_DUP, echoing @tsecr, of path entry @p (or -1): a
 * retransmission was spurious, and the path of the copy that came late
 * may allow more reordering. A tail probe that was not needed (the first
 * copy's ACK was lost, or the first copy late) says neither, whichever of
 * its two copies the duplicate echoes, and never counted for undoing a
 * window reduction.
 */
static void mrc_rcv_dup(struct sock *sk, int p, u32 tsecr)
{
	struct mrc_sock *msk = mrc_sk(sk);

	MRC_INC(sock_net(sk), SPURIOUS_RETRANS);
	if (msk->tlp_xmit_us &&
	    (tsecr == msk->tlp_xmit_us || tsecr == msk->tlp_first_us))
		return;
	if (p >= 0)
		mrc_cp_on_dup(sk, p, tsecr);
	mrc_cc_on_spurious(sk);
}

/* An ACK overtaken by a later one (@cum before snd_una): what it
 * acknowledges and its window are old news, but not its echo. The ACK of a
 * duplicate, sent at once, says that a packet declared lost on its path
 * arrived after all, and may well come after newer ACKs that took other
 * paths: a retirement it proves spurious is undone all the same.
 */
static void mrc_rcv_ack_overtaken(struct sock *sk, const struct mrc_ack *a,
				  u32 cum, u16 flags)
{
	struct mrc_sock *msk = mrc_sk(sk);
	DECLARE_BITMAP(none, MRC_SACK_BITS);
	u32 tsecr = ntohl(a->tsecr);
	int p;

	MRC_INC(sock_net(sk), ACK_OVERTAKEN);
	p = mrc_cp_find(mrc_cps(msk), ntohs(a->ev_echo));
	if (p >= 0) {
		/* Nothing it covers is acknowledged for the first time. */
		bitmap_zero(none, MRC_SACK_BITS);
		mrc_cp_on_echo(sk, p, tsecr);
		mrc_cp_undo(sk, p, tsecr, cum, none);
	}
	if (flags & MRC_F_DUP)
		mrc_rcv_dup(sk, p, tsecr);
}

/**
 * mrc_rcv_ack() - an ACK for this connection's DATA
 * @sk: the socket, locked
 * @skb: the ACK, skb->data at its MRC header, which the caller checked
 *
 * What it acknowledges leaves the ring; the paths and the congestion
 * control learn of it; loss detection runs; the paths due for
 * retirement are retired; and what the windows allow is sent.
 *
 * Return: false when the ACK was refused (and counted as such).
 */
bool mrc_rcv_ack(struct sock *sk, struct sk_buff *skb)
{
	const struct mrc_ack *a = (const struct mrc_ack *)skb->data;
	DECLARE_BITMAP(sack, MRC_SACK_BITS);
	struct mrc_sock *msk = mrc_sk(sk);
	struct net *net = sock_net(sk);
	u32 cum = ntohl(a->cum_psn), now = mrc_clock_us(msk);
	u16 flags = ntohs(a->h.flags);
	bool ce = flags & MRC_F_ECE, dup = flags & MRC_F_DUP;
	u32 delivered = 0, psn, tsecr;
	s32 delay = -1;
	unsigned long bit;
	int p;

	MRC_INC(net, IN_ACKS);
	if (mrc_psn_after(cum, msk->snd_nxt)) {
		MRC_INC(net, DROP_ACK_UNSENT);
		return false;
	}
	if (mrc_psn_before(cum, msk->snd_una)) {
		mrc_rcv_ack_overtaken(sk, a, cum, flags);
		return true;
	}
	if (!mrc_sack_load(sack, a->sack, cum, msk->snd_nxt)) {
		MRC_INC(net, DROP_SACK_UNSENT);
		return false;
	}

	msk->retries = 0;
	/* The echoed EV names the path of the packet that triggered the ACK:
	 * its RTT and its mark belong to that path (a CE-marked packet is
	 * acknowledged at once), not to the others the ACK covers.
	 */
	p = mrc_cp_find(mrc_cps(msk), ntohs(a->ev_echo));
	tsecr = ntohl(a->tsecr);
	if (p >= 0) {
		mrc_cp_on_echo(sk, p, tsecr);
		mrc_cp_undo(sk, p, tsecr, cum, sack);
	}
	if (mrc_psn_after(cum, msk->snd_una)) {
		for (psn = msk->snd_una; mrc_psn_before(psn, cum);
		     psn = mrc_psn_add(psn, 1))
			delivered += mrc_tx_delivered(sk, psn, now,
						      ce ? p : -1, tsecr, dup);
		msk->snd_una = cum;
	}
	for_each_set_bit(bit, sack, MRC_SACK_BITS)
		delivered += mrc_tx_delivered(sk, mrc_psn_add(cum, 1 + bit), now,
					      ce ? p : -1, tsecr, dup);

	if ((flags & MRC_F_FIN_ACK) && (msk->fin & MRC_FIN_SENT) &&
	    !msk->outstanding && skb_queue_empty(&sk->sk_write_queue))
		msk->fin |= MRC_FIN_ACKED;
	if (ce) {
		msk->stats.ecn_marks++;
		MRC_INC(net, ECN_ECHOED);
	}
	if (dup)
		mrc_rcv_dup(sk, p, tsecr);
	/* A DUP ACK echoes the clock of a packet that was not needed, which
	 * anyone may have sent: it gives no RTT.
	 */
	if (tsecr && delivered && !(flags & MRC_F_DUP)) {
		s32 rtt = now - tsecr - ntohl(a->svc_time_us);

		if (rtt >= 0 && rtt < 60 * USEC_PER_SEC) {
			mrc_rtt_sample(sk, rtt);
			if (p >= 0) {
				u32 base = READ_ONCE(mrc_net(net)->cc.base_rtt_us);

				mrc_cp_on_rtt(sk, p, rtt);
				if (!base)
					base = mrc_cp_sts(msk)[p].min_rtt_us;
				delay = rtt > base ? rtt - base : 0;
			}
		}
	}
	if (p >= 0 && delivered)
		mrc_cp_on_ecn(sk, p, ce, now);
	mrc_rwnd_update(msk, mrc_psn_add(cum, bitmap_weight(sack, MRC_SACK_BITS)),
			ntohl(a->rwnd));

	if (delivered) {
		msk->delivery_us = now | 1;
		msk->tlp_out = false;
		msk->backoff = 0;
		mrc_cc_on_ack(sk, delivered, delay, ce);
		mrc_sndbuf_expand(sk);
	}
	if (msk->outstanding) {
		if (delivered)
			mrc_arm_rto(sk);
		mrc_detect_losses(sk);
	} else if (msk->fin & MRC_FIN_ACKED ||
		   skb_queue_empty(&sk->sk_write_queue)) {
		if (!(msk->fin & MRC_FIN_SENT) || (msk->fin & MRC_FIN_ACKED))
			sk_stop_timer(sk, &msk->rtx_timer);
	}
	/* After the deliveries and echoes above have ended the late runs of
	 * the paths that deliver: an ACK, not the timer, retires the paths
	 * left silent, so that ACKs that are late for every path at once
	 * (this host or the peer did not run) retire none.
	 */
	mrc_cp_late_due(sk, now);
	mrc_push(sk);
	mrc_txq_release(sk);
	mrc_conn_maybe_done(sk);
	return true;
}

/**
 * mrc_rcv_nack() - a NACK for this connection's DATA
 * @sk: the socket, locked
 * @skb: the NACK, skb->data at its MRC header, which the caller checked
 *
 * Return: false when the NACK was refused (and counted as such).
 */
bool mrc_rcv_nack(struct sock *sk, struct sk_buff *skb)
{
	const struct mrc_nack *n = (const struct mrc_nack *)skb->data;
	struct mrc_sock *msk = mrc_sk(sk);
	u32 psn = ntohl(n->psn);
	struct mrc_tx_cb *cb;
	struct mrc_txpkt *pkt;

	MRC_INC(sock_net(sk), IN_NACKS);
	if (mrc_psn_before(psn, msk->snd_una) ||
	    !mrc_psn_before(psn, msk->snd_nxt)) {
		MRC_INC(sock_net(sk), DROP_NACK);
		return false;
	}
	pkt = mrc_txq_get(msk, psn);
	if (!pkt) {
		/* Selectively acknowledged since. */
		MRC_INC(sock_net(sk), DROP_NACK);
		return false;
	}
	cb = MRC_TX_CB(pkt);
	if (cb->lost || cb->trimmed)
		return true;	/* already waiting to be sent again */
	/* About an earlier transmission, on another path: the latest is
	 * still on its way. And a reason we do not know says nothing.
	 */
	if (ntohs(n->ev) != mrc_cps(msk)->p[cb->pidx].id ||
	    (n->reason != MRC_NACK_TRIMMED && n->reason != MRC_NACK_NO_BUFFER)) {
		MRC_INC(sock_net(sk), DROP_NACK);
		return false;
	}
	trace_mrc_nack_recv(msk, psn, ntohs(n->ev), n->reason);
	/* Either way the packet is not in the network, and it is held, not
	 * lost: sent again once its hold is over (mrc_detect_losses()), and
	 * the path stays good.
	 */
	cb->trimmed = 1;
	if (n->reason == MRC_NACK_TRIMMED) {
		mrc_cp_on_trimmed(sk, cb);
		mrc_cc_on_trim(sk);
		MRC_INC(sock_net(sk), TRIM_RETRANS);
		msk->stats.trim_retrans++;
		msk->backoff = 0;
	} else {
		/* No receive memory is the peer's flow control, which its
		 * window carries, not congestion: no cut. While it lasts the
		 * hold backs off, as zero-window probes do.
		 */
		cb->nobuf = 1;
		if (msk->backoff < MRC_BACKOFF_MAX)
			msk->backoff++;
	}
	/* The peer is there and the path works: a connection whose every
	 * packet is trimmed or refused is congested or held back, not
	 * timing out.
	 */
	msk->retries = 0;
	mrc_arm_rto(sk);
	/* Sent again when the window has turned over (or now). */
	mrc_detect_losses(sk);
	mrc_push(sk);
	return true;
}
