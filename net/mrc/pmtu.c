// SPDX-License-Identifier: GPL-2.0
/*
 * Path MTU: each path of a connection may have its own. A connection cuts
 * its messages to fit the narrowest path it knows of (&mrc_sock.snd_mss),
 * learnt from each path's route when it connects, from the route again
 * when a packet does not fit it, and from ICMPv6 Packet Too Big, which
 * the UDP tunnel socket's error handler brings here. A packet cut before
 * the path's MTU was known goes out in IPv6 fragments when it takes that
 * path (mrc_xmit_frag_size()); the packet a Packet Too Big quotes is sent
 * again at once, with no blame on its path.
 */
#include <linux/icmpv6.h>
#include <linux/udp.h>
#include <net/ipv6.h>

#include "conn.h"
#include "conn_paths.h"
#include "mrc_compat.h"
#include "output.h"
#include "recovery.h"
#include "pernet.h"
#include "pmtu.h"

/* Bytes of a DATA packet other than its payload, on a path of @cps. */
static u32 mrc_data_overhead(const struct mrc_cpaths *cps)
{
	return sizeof(struct ipv6hdr) + cps->srh_room + MRC_DATA_OVERHEAD;
}

/**
 * mrc_mtu_mss() - the DATA payload a packet on a path of a given MTU takes
 * @cps: the connection's paths
 * @mtu: the path's MTU
 *
 * Return: bytes; never less than MRC_MSS_MIN, which the IPv6 minimum MTU
 * leaves.
 */
u32 mrc_mtu_mss(const struct mrc_cpaths *cps, u32 mtu)
{
	u32 over = mrc_data_overhead(cps);

	mtu = max_t(u32, mtu, IPV6_MIN_MTU);
	return mtu > over + MRC_MSS_MIN ? mtu - over : MRC_MSS_MIN;
}

/**
 * mrc_cp_set_pmtu() - a path of a connection has a smaller MTU than it used
 * @sk: the socket, locked
 * @i: the path's entry
 * @mtu: the MTU
 *
 * Lowers the path's MTU, and the payload of the packets of the messages
 * sendmsg() queues from now on to fit it. An MTU no smaller than what is known changes
 * nothing.
 *
 * Return: the MTU was lowered.
 */
bool mrc_cp_set_pmtu(struct sock *sk, u32 i, u32 mtu)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_cpaths *cps = mrc_cps(msk);
	struct mrc_cpath *cp = &cps->p[i];

	mtu = max_t(u32, mtu, IPV6_MIN_MTU);
	if (cp->pmtu && mtu >= cp->pmtu)
		return false;
	if (mtu >= mrc_data_overhead(cps) + msk->mss)
		return false;
	WRITE_ONCE(cp->pmtu, mtu);
	msk->snd_mss = min(msk->snd_mss, mrc_mtu_mss(cps, mtu));
	return true;
}

/**
 * mrc_xmit_frag_size() - whether a packet must go out in fragments
 * @sk: the socket, locked
 * @i: the path's entry
 * @dst: the path's route
 * @len: the packet's length from its IPv6 header on
 *
 * A packet cut before its path's MTU was known does not fit the path: the
 * host fragments it. A route whose device has become narrower than the
 * packet lowers the path's MTU on the way.
 *
 * Return: the size to fragment to, or 0 when the packet fits.
 */
u32 mrc_xmit_frag_size(struct sock *sk, u32 i, struct dst_entry *dst, u32 len)
{
	struct mrc_cpath *cp = &mrc_cps(mrc_sk(sk))->p[i];
	u32 mtu = dst_mtu(dst);

	if (len > mtu)
		mrc_cp_set_pmtu(sk, i, mtu);
	if (cp->pmtu && cp->pmtu < mtu)
		mtu = cp->pmtu;
	return len > mtu ? mtu : 0;
}

/* Every packet in flight on path entry @i that its new MTU cannot pass was
 * dropped on the way, each with a Packet Too Big that may or may not come
 * (ICMP errors are rate-limited, and lost like any packet): send them all
 * again now, with no blame on the path, which carries what fits.
 */
static void mrc_release_too_big(struct sock *sk, u32 i)
{
	struct mrc_sock *msk = mrc_sk(sk);
	u32 over = mrc_data_overhead(mrc_cps(msk));
	u32 mtu = mrc_cps(msk)->p[i].pmtu, psn, n = 0;

	for (psn = msk->snd_una; mrc_psn_before(psn, msk->snd_nxt);
	     psn = mrc_psn_add(psn, 1)) {
		struct mrc_txpkt *pkt = mrc_txq_get(msk, psn);
		struct mrc_tx_cb *cb;

		if (!pkt)
			continue;
		cb = MRC_TX_CB(pkt);
		if (cb->psn != psn || cb->pidx != i || cb->lost ||
		    cb->trimmed || over + cb->len <= mtu)
			continue;
		mrc_mark_released(sk, cb);
		n++;
	}
	if (n) {
		MRC_ADD(sock_net(sk), PKT_TOO_BIG_LOST, n);
		mrc_push(sk);
	}
}

/* A Packet Too Big for one of this connection's packets, with the socket
 * locked and not held by a process.
 */
static void mrc_conn_ptb(struct sock *sk, u16 ev, u32 psn, u32 mtu)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct net *net = sock_net(sk);
	struct mrc_txpkt *pkt;
	int i;

	/* As TCP does, only for a packet in flight: nobody else can know
	 * its PSN, and one long acknowledged tells nothing of now.
	 */
	if (msk->state != MRC_ESTABLISHED)
		goto drop;
	i = mrc_cp_find(mrc_cps(msk), ev);
	pkt = mrc_txq_get(msk, psn);
	if (i < 0 || !pkt || pkt->cb.psn != psn ||
	    mrc_psn_before(psn, msk->snd_una) ||
	    !mrc_psn_before(psn, msk->snd_nxt))
		goto drop;
	MRC_INC(net, IN_PKT_TOO_BIG);
	/* A smaller MTU than known: what was sent bigger is gone. */
	if (mrc_cp_set_pmtu(sk, i, mtu))
		mrc_release_too_big(sk, i);
	return;
drop:
	MRC_INC(net, DROP_PKT_TOO_BIG);
}

/**
 * mrc_pmtu_deferred() - a Packet Too Big that came while a process held
 *	the socket (MRC_DEFER_PMTU)
 * @sk: the socket, owned by the caller
 */
void mrc_pmtu_deferred(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	mrc_conn_ptb(sk, msk->ptb_ev, msk->ptb_psn, msk->ptb_mtu);
}

/* The MRC header a quoted packet carries after its UDP header at @udp,
 * pulled into the linear part, or NULL.
 */
static const struct mrc_data *mrc_err_quoted(struct sk_buff *skb,
					     unsigned int udp)
{
	const struct udphdr *uh;

	if (!pskb_may_pull(skb, udp + sizeof(*uh) + sizeof(struct mrc_hdr)))
		return NULL;
	uh = (const struct udphdr *)(skb->data + udp);
	if (ntohs(uh->dest) != mrc_udp_port)
		return NULL;
	if (((const struct mrc_hdr *)(uh + 1))->version != MRC_VERSION)
		return NULL;
	if (((const struct mrc_hdr *)(uh + 1))->type != MRC_PKT_DATA)
		return (const struct mrc_data *)(uh + 1);
	if (!pskb_may_pull(skb, udp + sizeof(*uh) + sizeof(struct mrc_data)))
		return NULL;
	return (const struct mrc_data *)(skb->data + udp + sizeof(*uh));
}

/**
 * mrc_udp_err_lookup() - encap_err_lookup of the UDP tunnel socket
 * @usk: the namespace's UDP tunnel socket
 * @skb: an ICMPv6 error, at the IPv6 header it quotes; its transport
 *	header at the quoted UDP header
 *
 * Return: 0 when the quoted packet is MRC's, so that the error is ours.
 */
int mrc_udp_err_lookup(struct sock *usk, struct sk_buff *skb)
{
	return mrc_err_quoted(skb, skb_transport_offset(skb)) ? 0 : -ENOENT;
}

/**
 * mrc_udp_err() - an ICMPv6 error about a packet MRC sent
 * @usk: the namespace's UDP tunnel socket
 * @skb: the error, at the IPv6 header it quotes; its transport header at
 *	the ICMPv6 header
 * @udp: offset of the quoted UDP header from @skb->data
 *
 * The UDP tunnel socket's encap_err_rcv calls it (pernet.c), in softirq.
 * Only a Packet Too Big about DATA of a connection is used; other errors
 * are left to the loss detection.
 */
void mrc_udp_err(struct sock *usk, struct sk_buff *skb, unsigned int udp)
{
	const struct icmp6hdr *icmp = icmp6_hdr(skb);
	struct net *net = sock_net(usk);
	const struct mrc_data *d;
	struct mrc_sock *msk;
	u32 mtu, psn;
	struct sock *sk;
	u16 ev;

	if (icmp->icmp6_type != ICMPV6_PKT_TOOBIG)
		return;
	mtu = ntohl(icmp->icmp6_mtu);
	d = mrc_err_quoted(skb, udp);
	if (!d || d->h.type != MRC_PKT_DATA) {
		MRC_INC(net, DROP_PKT_TOO_BIG);
		return;
	}
	/* We sent it: its source id is ours, its destination id the peer's. */
	sk = mrc_conn_lookup(net, ntohl(d->h.scid));
	if (!sk) {
		MRC_INC(net, DROP_PKT_TOO_BIG);
		return;
	}
	msk = mrc_sk(sk);
	psn = ntohl(d->psn);
	ev = ntohs(d->h.ev);
	bh_lock_sock(sk);
	if (msk->rcid != ntohl(d->h.dcid) || psn > MRC_PSN_MASK) {
		MRC_INC(net, DROP_PKT_TOO_BIG);
	} else if (!sock_owned_by_user(sk)) {
		mrc_conn_ptb(sk, ev, psn, mtu);
	} else {
		/* The latest one waits for the owner; the next packet that
		 * does not fit brings another.
		 */
		msk->ptb_mtu = mtu;
		msk->ptb_psn = psn;
		msk->ptb_ev = ev;
		if (!test_and_set_bit(MRC_DEFER_PMTU, &msk->deferred))
			sock_hold(sk);
	}
	bh_unlock_sock(sk);
	sock_put(sk);
}
