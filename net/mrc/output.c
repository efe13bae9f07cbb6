// SPDX-License-Identifier: GPL-2.0
/*
 * MRC transmit path: DATA from the send queue and the retransmission ring,
 * and the control packets, over UDP over IPv6.
 */
#include <linux/jhash.h>
#include <linux/mrc.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/inet_ecn.h>
#include <net/ip6_checksum.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/udp.h>

#include "conn.h"
#include "input.h"
#include "conn_paths.h"
#include "output.h"
#include "params.h"
#include "pernet.h"
#include "pmtu.h"
#include "recovery.h"
#include "trace.h"

/**
 * mrc_output_flow() - send an MRC packet on a route already found
 * @net: the namespace, whose UDP tunnel socket sends it
 * @sk: the connection's socket (its priority), or NULL
 * @skb: the packet, skb->data at the MRC header; consumed
 * @fl6: the flow: addresses, UDP ports, mark
 * @dst: the route for @fl6; consumed
 * @opt: the SRH, or NULL
 * @frag: 0, or the size of the fragments the host may cut it into
 *
 * Every packet the module sends leaves here: the UDP header and checksum,
 * the traffic class (DATA's DSCP), ip6_xmit(), and the OutPkts and
 * TxErrors counters.
 *
 * Return: 0, a negative errno, or NET_XMIT_DROP.
 */
int mrc_output_flow(struct net *net, struct sock *sk, struct sk_buff *skb,
		    struct flowi6 *fl6, struct dst_entry *dst,
		    struct ipv6_txoptions *opt, u32 frag)
{
	const struct mrc_hdr *h = (const struct mrc_hdr *)skb->data;
	struct sock *usk = mrc_net(net)->udp_sock->sk;
	u8 tclass = INET_ECN_ECT_0;
	struct udphdr *uh;
	int err, segs;

	/* DATA may be trimmed by the switches; control packets may not. */
	if (h->type == MRC_PKT_DATA) {
		tclass |= READ_ONCE(mrc_net(net)->data_dscp) << 2;
		MRC_INC(net, OUT_DATA_SKBS);
	}

	segs = skb_is_gso(skb) ? skb_shinfo(skb)->gso_segs : 1;
	/* skb->cb still holds our control block; IPv6 reads its own there. */
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	if (frag) {
		/* The host may fragment it; to the path's MTU where that is
		 * below the route's (ip6_fragment() honours frag_max_size).
		 */
		skb->ignore_df = 1;
		if (frag < dst_mtu(dst))
			IP6CB(skb)->frag_max_size = frag;
		MRC_INC(net, OUT_FRAGMENTED);
	}
	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh->source = fl6->fl6_sport;
	uh->dest = fl6->fl6_dport;
	uh->len = htons(skb->len);
	uh->check = 0;
	skb_dst_set(skb, dst);
	if (skb_is_gso(skb)) {
		/* Segmentation fills in each packet's checksum. */
		skb->ip_summed = CHECKSUM_PARTIAL;
		skb->csum_start = skb_transport_header(skb) - skb->head;
		skb->csum_offset = offsetof(struct udphdr, check);
	}
	/* With an SRH the checksum covers the final destination, as here. */
	udp6_set_csum(false, skb, &fl6->saddr, &fl6->daddr, skb->len);

	err = ip6_xmit(usk, skb, fl6, fl6->flowi6_mark, opt, tclass,
		       sk ? READ_ONCE(sk->sk_priority) : 0);
	err = net_xmit_eval(err);
	if (err)
		MRC_INC(net, TX_ERRORS);
	else
		MRC_ADD(net, OUT_PKTS, segs);
	return err;
}

/* Send a packet of a connection on the path of entry @i: its route, its
 * SRH, its entropy. The caller wrote the path's id in the MRC header.
 * Sets *@noroute, if given, when the path has no route.
 *
 * Return: 0, a negative errno, or NET_XMIT_DROP when a queue of this host
 * dropped the packet.
 */
static int mrc_output_path(struct sock *sk, struct sk_buff *skb, u32 i,
			   bool *noroute)
{
	const struct mrc_hdr *h = (const struct mrc_hdr *)skb->data;
	struct ipv6_txoptions *opt = mrc_cp_opt(sk, i);
	struct net *net = sock_net(sk);
	struct dst_entry *dst;
	struct flowi6 fl6;
	u32 frag = 0;
	int err;

	local_bh_disable();
	dst = mrc_cp_route(sk, i, &fl6);
	if (IS_ERR(dst)) {
		MRC_INC(net, TX_NO_ROUTE);
		kfree_skb(skb);
		local_bh_enable();
		if (noroute)
			*noroute = true;
		return PTR_ERR(dst);
	}
	/* A GSO batch is cut to fit every path (mrc_send_new()). */
	if (h->type == MRC_PKT_DATA && !skb_is_gso(skb))
		frag = mrc_xmit_frag_size(sk, i, dst, sizeof(struct ipv6hdr) +
					  (opt ? opt->opt_nflen + opt->opt_flen : 0) +
					  sizeof(struct udphdr) + skb->len);
	err = mrc_output_flow(net, sk, skb, &fl6, dst, opt, frag);
	local_bh_enable();
	return err;
}

static void mrc_fill_hdr(struct mrc_hdr *h, u8 type, u16 flags, u32 dcid,
			 u32 scid, u16 ev)
{
	h->version = MRC_VERSION;
	h->type = type;
	h->flags = htons(flags);
	h->dcid = htonl(dcid);
	h->scid = htonl(scid);
	h->ev = htons(ev);
	h->plen = 0;
}

static struct sk_buff *mrc_alloc_ctrl(unsigned int len)
{
	struct sk_buff *skb = alloc_skb(MRC_HEADROOM + len, GFP_ATOMIC);

	if (!skb)
		return NULL;
	skb_reserve(skb, MRC_HEADROOM);
	skb_put_zero(skb, len);
	return skb;
}

/* Send a control packet of a connection. It goes on the path of @ev (the
 * EV an ACK echoes) when that path is usable, else on any usable path.
 */
static int mrc_output_ctrl(struct sock *sk, struct sk_buff *skb, int ev)
{
	struct mrc_hdr *h = (struct mrc_hdr *)skb->data;
	struct mrc_cpaths *cps = mrc_cps(mrc_sk(sk));
	int i;

	if (!cps) {
		kfree_skb(skb);
		return -ENETUNREACH;
	}
	i = mrc_cp_choose_ctrl(sk, ev);
	if (i < 0) {
		MRC_INC(sock_net(sk), TX_NO_PATH);
		kfree_skb(skb);
		return -ENETUNREACH;
	}
	h->ev = htons(cps->p[i].id);
	return mrc_output_path(sk, skb, i, NULL);
}

/* The source address of an unbound connection, chosen as TCP's is: by the
 * route to the peer, with that route's preferred source ("ip route ... src
 * ADDR"), whatever device the paths leave by. Left as it is if the peer has
 * no route of its own (an SRv6 fabric may route only the segments).
 */
static void mrc_peer_saddr(struct sock *sk, struct in6_addr *saddr)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct net *net = sock_net(sk);
	struct dst_entry *dst;
	struct flowi6 fl6 = {
		.flowi6_proto = IPPROTO_UDP,
		.flowi6_oif = sk->sk_bound_dev_if,
		.flowi6_mark = READ_ONCE(sk->sk_mark),
		.daddr = msk->daddr,
		.fl6_dport = htons(mrc_udp_port),
	};

	dst = ip6_dst_lookup_flow(net, mrc_net(net)->udp_sock->sk, &fl6, NULL);
	if (IS_ERR(dst))
		return;
	*saddr = fl6.saddr;
	dst_release(dst);
}

/**
 * mrc_route_mss() - find the source address and DATA payload size for a peer
 * @sk: the socket, with @daddr set and its paths chosen (mrc_cp_init())
 * @saddr: in: the bound address or any; out: the source to use
 *
 * An unbound connection takes the source the route to the peer prefers,
 * or else that of its first usable path's route; every path uses it
 * unless the path has a source of its own. The payload size fits the
 * narrowest route of the connection's usable paths, and leaves room for
 * the longest SRH of its paths (see pmtu.c for what lowers it later).
 *
 * Return: payload bytes per packet, or 0 if there is no route.
 */
u32 mrc_route_mss(struct sock *sk, struct in6_addr *saddr)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_cpaths *cps;
	struct dst_entry *dst;
	struct flowi6 fl6;
	u32 mtu, j;
	int i;

	if (ipv6_addr_any(saddr))
		mrc_peer_saddr(sk, saddr);
	i = mrc_cp_choose_ctrl(sk, -1);
	if (i < 0)
		return 0;
	cps = mrc_cps(msk);
	msk->saddr = *saddr;
	local_bh_disable();
	dst = mrc_cp_route(sk, i, &fl6);
	if (IS_ERR(dst)) {
		local_bh_enable();
		return 0;
	}
	*saddr = fl6.saddr;
	msk->saddr = fl6.saddr;
	mtu = dst_mtu(dst);
	dst_release(dst);
	for (j = 0; j < cps->nr; j++) {
		if (j == i || !mrc_cp_usable(&cps->p[j]))
			continue;
		dst = mrc_cp_route(sk, j, &fl6);
		if (IS_ERR(dst))
			continue;
		mtu = min(mtu, dst_mtu(dst));
		dst_release(dst);
	}
	local_bh_enable();
	return mrc_mtu_mss(cps, mtu);
}

static void mrc_data_hdr(struct sock *sk, struct mrc_data *d,
			 const struct mrc_txpkt *pkt, u16 ev)
{
	const struct mrc_chunk_cb *ccb = MRC_CHUNK_CB(pkt->chunk);
	const struct mrc_tx_cb *cb = &pkt->cb;
	struct mrc_sock *msk = mrc_sk(sk);

	mrc_fill_hdr(&d->h, MRC_PKT_DATA,
		     (cb->xmits > 1 ? MRC_F_RETX : 0) |
		     (cb->ack_req ? MRC_F_ACK_REQ : 0),
		     msk->rcid, msk->lcid, ev);
	d->psn = htonl(cb->psn);
	d->msn = htonl(ccb->msn);
	d->offset = htonl(cb->offset);
	d->msg_len = htonl(ccb->msg_len);
	d->tsval = htonl(cb->xmit_us);
	d->h.plen = htons(cb->len);
}

static void mrc_count_xmit(struct sock *sk, struct mrc_tx_cb *cb, u32 i,
			   u32 now)
{
	struct mrc_sock *msk = mrc_sk(sk);

	cb->xmit_us = now;
	cb->probed = 0;
	if (cb->xmits < U8_MAX)
		cb->xmits++;
	if (cb->xmits > 1)
		msk->undo_retrans++;
	cb->pidx = i;
	mrc_cp_on_xmit(sk, i, 1, cb->len, cb->xmits > 1);
	msk->stats.pkts_sent++;
	MRC_INC(sock_net(sk), OUT_DATA);
	if (cb->xmits > 1) {
		trace_mrc_retransmit(msk, cb->psn, mrc_cps(msk)->p[i].id,
				     cb->xmits);
		msk->stats.pkts_retrans++;
		MRC_INC(sock_net(sk), OUT_RETRANS);
	}
}

/* A DATA transmission on path entry @i left this host, or a queue of it
 * dropped the transmission (@dropped): the run of such drops that
 * mrc_local_failed() judges.
 */
static void mrc_xmit_outcome(struct sock *sk, u32 i, bool dropped, u32 now)
{
	struct mrc_cpstate *cs = &mrc_cp_sts(mrc_sk(sk))[i];

	if (!dropped) {
		cs->left_us = now ?: 1;
		cs->qdrop_run = 0;
		return;
	}
	cs->qdrop_last_us = now ?: 1;
	if (!cs->qdrop_run)
		cs->qdrop_first_us = now;
	if (cs->qdrop_run < U8_MAX)
		cs->qdrop_run++;
}

/* Fragments of buffer @chunk that hold its @len bytes at @off. */
static u32 mrc_chunk_nr_frags(const struct sk_buff *chunk, u32 off, u32 len)
{
	const struct skb_shared_info *csh = skb_shinfo(chunk);
	u32 end = off + len, pos = 0, j, n = 0;

	for (j = 0; j < csh->nr_frags && pos < end; j++) {
		u32 fs = skb_frag_size(&csh->frags[j]);

		n += pos + fs > off;
		pos += fs;
	}
	return n;
}

/* Append the payload of packet @pkt to @to's fragments, referencing the
 * pages of its buffer. The caller made room (mrc_batch_frags()) and
 * accounts the true size.
 */
static void mrc_skb_ref_payload(struct sk_buff *to,
				const struct mrc_txpkt *pkt)
{
	const struct skb_shared_info *csh = skb_shinfo(pkt->chunk);
	u32 off = pkt->cb.offset - MRC_CHUNK_CB(pkt->chunk)->offset;
	struct skb_shared_info *sh = skb_shinfo(to);
	u32 left = pkt->cb.len, j;

	for (j = 0; left && j < csh->nr_frags; j++) {
		const skb_frag_t *f = &csh->frags[j];
		u32 fs = skb_frag_size(f), n;

		if (off >= fs) {
			off -= fs;
			continue;
		}
		n = min(fs - off, left);
		__skb_fill_page_desc(to, sh->nr_frags++, skb_frag_page(f),
				     skb_frag_off(f) + off, n);
		get_page(skb_frag_page(f));
		off = 0;
		left -= n;
	}
	to->len += pkt->cb.len;
	to->data_len += pkt->cb.len;
}

/* A packet as one skb of its own to send, with room for the headers, that
 * references the payload as a batch does. NULL without memory.
 */
static struct sk_buff *mrc_xmit_skb(const struct mrc_txpkt *pkt)
{
	struct sk_buff *nskb;

	nskb = alloc_skb(MRC_HEADROOM, GFP_ATOMIC | __GFP_NOWARN);
	if (!nskb)
		return NULL;
	skb_reserve(nskb, MRC_HEADROOM);
	mrc_skb_ref_payload(nskb, pkt);
	nskb->truesize += nskb->data_len;
	return nskb;
}

/**
 * mrc_xmit_data() - transmit one DATA packet kept in the ring
 * @sk: the socket, locked
 * @pkt: the packet
 * @i: the path entry it goes on
 * @now: its send time, as mrc_clock_us() gives it
 *
 * A copy goes, which references the payload in the ring.
 */
void mrc_xmit_data(struct sock *sk, struct mrc_txpkt *pkt, u32 i, u32 now)
{
	struct mrc_tx_cb *cb = MRC_TX_CB(pkt);
	u16 ev = mrc_cps(mrc_sk(sk))->p[i].id;
	bool noroute = false;
	struct sk_buff *nskb;

	/* Counted first, so that the path's in-flight count always holds
	 * what its losses and deliveries will take away.
	 */
	mrc_count_xmit(sk, cb, i, now);
	nskb = mrc_xmit_skb(pkt);
	if (nskb) {
		int err;

		mrc_data_hdr(sk, skb_push(nskb, sizeof(struct mrc_data)), pkt,
			     ev);
		err = mrc_output_path(sk, nskb, i, &noroute);
		/* Too big for the route after all: dropped here, like a
		 * full queue's drop, and sent again in fragments.
		 */
		cb->qdrop = err == NET_XMIT_DROP || err == -EMSGSIZE;
		if (err == NET_XMIT_DROP || (!noroute && !net_xmit_eval(err)))
			mrc_xmit_outcome(sk, i, err == NET_XMIT_DROP, now);
	} else {
		/* Never sent: a local drop, whatever the last send did. */
		MRC_INC(sock_net(sk), TX_ERRORS);
		cb->qdrop = 1;
	}
	cb->noroute = noroute;
	/* The loss scan takes it at the next tick, with no ACK to wait for:
	 * none may come when the path was the only one. Not a retransmission
	 * that found no route again: its path was kept (at the floor of
	 * good paths, or in an incast), and the ACKs or the RTO pace its
	 * next try, not the tick.
	 */
	if (cb->qdrop || (noroute && cb->xmits == 1))
		mrc_arm_rtx_at(sk, 1);
}

/* Largest UDP payload of one GSO batch, and the most packets in one. */
#define MRC_GSO_BYTES	(64000 - sizeof(struct udphdr))
#define MRC_GSO_SEGS	64

/* Fragments a packet of @len bytes at @off of buffer @chunk takes in a
 * batch: its header (but the first's, in the linear part) and its
 * payload's.
 */
static u32 mrc_batch_frags(const struct sk_buff *chunk, u32 off, u32 len)
{
	return 1 + mrc_chunk_nr_frags(chunk, off, len);
}

/* Transmit n > 1 consecutive new packets, all but the last full-sized and
 * all on path entry @p, as one UDP GSO skb: the stack is traversed once
 * and segmentation (in software when the device cannot) makes the n
 * packets. Nothing is copied: the first header is in the linear part,
 * the others in one page fragment, and each payload is referenced where
 * sendmsg() put it. A header and a payload are two fragments, so an skb
 * holds about eight packets: the packets from each one that bit @starts
 * sets (never the first) go in the next skb of the batch's frag_list,
 * which carries fragments only, so that every skb of it ends where a
 * packet does. Falls back to one skb a packet when the batch cannot be
 * allocated.
 */
static void mrc_xmit_batch(struct sock *sk, struct mrc_txpkt **pkts, u32 n,
			   u64 starts, u32 p, u32 now)
{
	u16 ev = mrc_cps(mrc_sk(sk))->p[p].id;
	struct sk_buff *gso, *to, *next = NULL;
	const u32 hlen = sizeof(struct mrc_data);
	u32 i, hoff = 0, k, bytes = 0;
	bool noroute = false, qdrop;
	struct page *hpage = NULL;
	void *hdrs = NULL;
	int err;

	gso = alloc_skb(MRC_HEADROOM + hlen, GFP_ATOMIC | __GFP_NOWARN);
	if (!gso)
		goto nomem;
	hdrs = netdev_alloc_frag((n - 1) * hlen);
	if (!hdrs)
		goto nomem;
	/* The frag_list, built back to front: its skbs carry no data but
	 * their fragments.
	 */
	for (k = hweight64(starts); k; k--) {
		to = alloc_skb(0, GFP_ATOMIC | __GFP_NOWARN);
		if (!to)
			goto nomem;
		to->next = next;
		next = to;
		skb_shinfo(gso)->frag_list = next;
	}
	hpage = virt_to_head_page(hdrs);
	hoff = hdrs - page_address(hpage);
	skb_reserve(gso, MRC_HEADROOM);
	to = gso;
	for (i = 0; i < n; i++) {
		struct mrc_tx_cb *cb = MRC_TX_CB(pkts[i]);

		/* mrc_count_xmit() for a new packet, counted below for all. */
		DEBUG_NET_WARN_ON_ONCE(cb->xmits);
		cb->xmit_us = now;
		cb->probed = 0;
		cb->xmits = 1;
		cb->pidx = p;
		bytes += cb->len;
		if (!i) {
			mrc_data_hdr(sk, skb_put(gso, hlen), pkts[i], ev);
			mrc_skb_ref_payload(gso, pkts[i]);
			continue;
		}
		if (starts & BIT_ULL(i)) {
			to = next;
			next = next->next;
		}
		mrc_data_hdr(sk, hdrs + (i - 1) * hlen, pkts[i], ev);
		/* netdev_alloc_frag() gave one reference: one more for each
		 * further header.
		 */
		if (i > 1)
			get_page(hpage);
		__skb_fill_page_desc(to, skb_shinfo(to)->nr_frags++, hpage,
				     hoff + (i - 1) * hlen, hlen);
		to->len += hlen;
		to->data_len += hlen;
		mrc_skb_ref_payload(to, pkts[i]);
	}
	mrc_cp_on_xmit(sk, p, n, bytes, 0);
	mrc_sk(sk)->stats.pkts_sent += n;
	MRC_ADD(sock_net(sk), OUT_DATA, n);
	gso->truesize += gso->data_len;
	skb_walk_frags(gso, to) {
		to->truesize += to->data_len;
		gso->len += to->len;
		gso->data_len += to->len;
		gso->truesize += to->truesize;
	}
	if (starts)
		MRC_INC(sock_net(sk), OUT_DATA_CHAINED);
	skb_shinfo(gso)->gso_size = hlen + mrc_sk(sk)->snd_mss;
	skb_shinfo(gso)->gso_type = SKB_GSO_UDP_L4;
	skb_shinfo(gso)->gso_segs = n;
	/* A queue drops a GSO skb whole, or segments it and keeps some. */
	err = mrc_output_path(sk, gso, p, &noroute);
	qdrop = err == NET_XMIT_DROP;
	if (qdrop || (!noroute && !net_xmit_eval(err)))
		mrc_xmit_outcome(sk, p, qdrop, now);
	/* New packets: both flags were clear. */
	if (!qdrop && !noroute)
		return;
	for (i = 0; i < n; i++) {
		MRC_TX_CB(pkts[i])->noroute = noroute;
		MRC_TX_CB(pkts[i])->qdrop = qdrop;
	}
	mrc_arm_rtx_at(sk, 1);
	return;

nomem:
	if (hdrs)
		skb_free_frag(hdrs);
	/* Frees the frag_list built so far too. */
	consume_skb(gso);
	for (i = 0; i < n; i++)
		mrc_xmit_data(sk, pkts[i], p, now);
}

/* Whether packet @psn, about to go, asks for an immediate ACK
 * (MRC_F_ACK_REQ). The last one the sender has to send does: a delayed
 * ACK would only stall it. So does the one that fills the congestion
 * window, if the last packet that asked is no longer in flight (it was
 * delivered or lost), or half a window has gone since it. While the
 * window stays full each ACK lets a packet or two out, and each fills it
 * again: asking with every one would cost an ACK per packet, which the
 * receiver's ack_every exists to avoid.
 */
static bool mrc_ask_ack(struct mrc_sock *msk, u32 psn, bool last)
{
	const struct mrc_txpkt *asked = NULL;

	msk->ack_req_gap++;
	if (!last) {
		if (mrc_inflight(msk) < msk->cwnd)
			return false;
		/* While losses are being repaired (lost packets wait, or
		 * retransmissions of this recovery are out) and after an RTO,
		 * an ACK that comes back soon repairs sooner, and the one
		 * ACK asked for in a window may itself be lost: every packet
		 * that fills the window asks, as without this rule.
		 */
		if (msk->lost || msk->retries ||
		    (msk->in_recovery && msk->undo_retrans))
			goto ask;
		if (!mrc_psn_before(msk->ack_req_psn, msk->snd_una))
			asked = mrc_txq_get(msk, msk->ack_req_psn);
		if (asked && asked->cb.psn == msk->ack_req_psn &&
		    !asked->cb.lost &&
		    msk->ack_req_gap < max_t(u32, msk->cwnd / 2, 1))
			return false;
	}
ask:
	msk->ack_req_gap = 0;
	msk->ack_req_psn = psn;
	return true;
}

/* The peer's window bounds payload bytes sent and not yet delivered. A
 * closed window does not deadlock: with nothing outstanding, the RTO timer
 * sends one packet past it (a zero-window probe: mrc_send_new()'s @probe).
 */
static bool mrc_rwnd_allows(const struct mrc_sock *msk, u32 len)
{
	return msk->inflight_bytes + len <= msk->peer_rwnd;
}

/**
 * mrc_poll_paths() - look for a usable path again soon
 * @sk: the socket, locked
 *
 * Packets declared lost wait with no usable path: the retirement of the
 * connection's last good path stranded them (a congestion drop on its
 * only path does). Nothing tells a connection that a probe has brought a
 * path back, so look again at the poll interval rather than only at the
 * RTO, which would also restart the window from two packets. The RTO
 * deadline still stands.
 */
void mrc_poll_paths(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	unsigned long when = jiffies + msecs_to_jiffies(MRC_OUTAGE_POLL_MS);

	if (time_after(msk->rto_deadline, jiffies) &&
	    time_before(msk->rto_deadline, when))
		when = msk->rto_deadline;
	if (!timer_pending(&msk->rtx_timer) ||
	    time_before(when, msk->rtx_timer.expires))
		sk_reset_timer(sk, &msk->rtx_timer, when);
}

/* The clock is read once a transmission (of one packet or a batch), not
 * for every packet chosen and sent, and not at all when nothing goes:
 * under emulation it costs as much as the rest of a small packet's send.
 * The send loops keep 0 for "not read yet".
 */
static void mrc_send_batch(struct sock *sk, struct mrc_txpkt **pkts, u32 n,
			   u64 starts, u32 p, u32 now)
{
	if (n == 1)
		mrc_xmit_data(sk, pkts[0], p, now);
	else
		mrc_xmit_batch(sk, pkts, n, starts, p, now);
}

/**
 * mrc_retransmit_lost() - send again what is declared lost
 * @sk: the socket, locked
 * @head: the first goes whatever the window
 *
 * Oldest first, within the congestion window.
 */
void mrc_retransmit_lost(struct sock *sk, bool head)
{
	struct mrc_sock *msk = mrc_sk(sk);
	u32 psn, now = 0;
	int i;

	/* Each repair chooses its own path, away from the one it was lost on. */
	if (msk->lost)
		mrc_cps(msk)->cell = 1;
	for (psn = msk->snd_una; mrc_psn_before(psn, msk->snd_nxt);
	     psn = mrc_psn_add(psn, 1)) {
		struct mrc_txpkt *pkt = mrc_txq_get(msk, psn);

		if (!msk->lost)
			break;
		if (!pkt || !pkt->cb.lost)
			continue;
		if (mrc_inflight(msk) >= msk->cwnd && !head)
			break;
		/* Read once something is to go. */
		if (!now)
			now = mrc_clock_us(msk);
		i = mrc_cp_choose(sk, pkt->cb.pidx, now);
		if (i < 0) {
			MRC_INC(sock_net(sk), TX_NO_PATH);
			mrc_poll_paths(sk);
			break;
		}
		pkt->cb.lost = 0;
		msk->lost--;
		pkt->cb.ack_req =
			mrc_ask_ack(msk, pkt->cb.psn, !msk->lost &&
				    skb_queue_empty(&sk->sk_write_queue));
		mrc_xmit_data(sk, pkt, i, now);
		head = false;
		/* The local queue is full: no more into it until the tick. */
		if (pkt->cb.qdrop)
			break;
	}
}

/**
 * mrc_send_limit_set() - say what holds the sender back from now on
 * @msk: the socket, locked
 * @limit: enum mrc_send_limit
 *
 * The time since the last change goes to the limit that was in force,
 * as TCP's chrono does (tcpi_busy_time, tcpi_rwnd_limited): counted in
 * jiffies, which cost nothing to read, so a limit held for less than a
 * tick at a time adds up only over many such spells.
 */
void mrc_send_limit_set(struct mrc_sock *msk, enum mrc_send_limit limit)
{
	struct mrc_stats *st = &msk->stats;
	unsigned long now = jiffies;

	if (st->limit == limit)
		return;
	if (st->limit != MRC_SL_IDLE)
		WRITE_ONCE(st->limit_jiffies[st->limit],
			   st->limit_jiffies[st->limit] + (now - st->limit_since));
	WRITE_ONCE(st->limit_since, now);
	WRITE_ONCE(st->limit, limit);
}

/**
 * mrc_send_limit_us() - time a connection's sender spent under a limit
 * @msk: the socket; a snapshot without its lock
 * @limit: enum mrc_send_limit, or MRC_SL_IDLE for all but idle (busy)
 * @now: jiffies, read once for all the limits of one report, so that the
 *	busy time is never less than the time under one of its limits
 *
 * Return: microseconds, the current spell (up to @now) included.
 */
u64 mrc_send_limit_us(const struct mrc_sock *msk, enum mrc_send_limit limit,
		      unsigned long now)
{
	const struct mrc_stats *st = &msk->stats;
	u8 cur = READ_ONCE(st->limit);
	u64 j = 0;
	int i;

	for (i = MRC_SL_BUSY; i < MRC_SL_NR; i++)
		if (limit == MRC_SL_IDLE || limit == i)
			j += READ_ONCE(st->limit_jiffies[i]);
	if (cur != MRC_SL_IDLE && (limit == MRC_SL_IDLE || limit == cur))
		j += now - READ_ONCE(st->limit_since);
	return (u64)jiffies_to_usecs(1) * j;
}

/* What stops mrc_send_new() with data still queued: the first limit hit,
 * or MRC_SL_IDLE for none.
 */
static enum mrc_send_limit mrc_send_limit_of(const struct mrc_sock *msk,
					     u32 len, bool probe)
{
	if (mrc_psn_sub(msk->snd_nxt, msk->snd_una) >= MRC_WND)
		return MRC_SL_WND;
	if (mrc_inflight(msk) >= msk->cwnd)
		return MRC_SL_CWND;
	if (!mrc_rwnd_allows(msk, len) && !probe)
		return MRC_SL_RWND;
	return MRC_SL_IDLE;
}

/* Cells a congestion window holds at least. */
#define MRC_WND_CELLS	8

/* Packets of a flowcell: consecutive new packets that go on one path,
 * and so in one GSO batch. Spraying cells of up to 64 KB, not single
 * packets, keeps segmentation offload (Presto, SIGCOMM 2015). The window
 * holds MRC_WND_CELLS cells at least, so that a small one (a start, an
 * RPC, an incast) still sprays packet by packet.
 */
static u16 mrc_cell_pkts(const struct mrc_sock *msk)
{
	u32 most = min_t(u32, MRC_GSO_SEGS, MRC_GSO_BYTES /
			 (sizeof(struct mrc_data) + msk->snd_mss));

	return clamp_t(u32, msk->cwnd / MRC_WND_CELLS, 1, most);
}

/* Whether a batch on path entry @p may go on as a further skb on its
 * frag_list once the first has no fragment left. Not when the path's
 * device (as last routed) segments UDP itself but takes no frag_list:
 * the stack would segment such a batch in software instead, so it ends
 * where the device can take it whole.
 */
static bool mrc_batch_chains(struct mrc_sock *msk, u32 p)
{
	const struct dst_entry *dst = mrc_cps(msk)->p[p].dst;
	netdev_features_t f;

	if (!dst)
		return true;
	/* The socket holds the route, not its device, which an unregister
	 * may swap and free (dst_dev_put()): read it under RCU.
	 */
	rcu_read_lock();
	f = READ_ONCE(READ_ONCE(dst->dev)->features);
	rcu_read_unlock();
	return (f & NETIF_F_FRAGLIST) || !(f & NETIF_F_GSO_UDP_L4);
}

/**
 * mrc_send_new() - send new packets from the send queue
 * @sk: the socket, locked
 * @probe: the peer's window is closed: one packet goes all the same, to
 *	probe it
 *
 * As many as the congestion window, the peer's window and the paths
 * allow, in flowcells (mrc_cell_pkts()) where the window is large.
 */
void mrc_send_new(struct sock *sk, bool probe)
{
	struct mrc_sock *msk = mrc_sk(sk);
	enum mrc_send_limit limit = MRC_SL_BUSY;
	struct mrc_txpkt *batch[MRC_GSO_SEGS];
	u32 n = 0, bytes = 0, frags = 0, bp = 0, now = 0;
	bool alone = READ_ONCE(mrc_spray_burst) == 1;
	u64 starts = 0;
	struct sk_buff *chunk;
	int p;

	chunk = skb_peek(&sk->sk_write_queue);
	if (chunk)
		mrc_cps(msk)->cell = mrc_cell_pkts(msk);
	for (; chunk; chunk = skb_peek(&sk->sk_write_queue)) {
		struct mrc_chunk_cb *ccb = MRC_CHUNK_CB(chunk);
		u32 len = min(chunk->len - ccb->cut, ccb->mss);
		struct mrc_txpkt *pkt;
		struct mrc_tx_cb *cb;
		u32 pf;

		limit = mrc_send_limit_of(msk, len, probe);
		if (limit != MRC_SL_IDLE)
			break;
		limit = MRC_SL_BUSY;
		if (!now)
			now = mrc_clock_us(msk);
		p = mrc_cp_choose(sk, -1, now);
		if (p < 0) {
			MRC_INC(sock_net(sk), TX_NO_PATH);
			break;
		}
		/* A batch holds consecutive packets of one path, cut to the
		 * connection's packet size: a packet of a message queued
		 * before a path's MTU lowered it goes alone.
		 */
		pf = mrc_batch_frags(chunk, ccb->cut, len);
		if (n && (p != bp || len > msk->snd_mss ||
			  (frags + pf > MAX_SKB_FRAGS &&
			   !mrc_batch_chains(msk, p)))) {
			mrc_send_batch(sk, batch, n, starts, bp, now);
			if (batch[n - 1]->cb.qdrop)
				return;
			n = 0;
			bytes = 0;
		}
		bp = p;
		probe = false;
		/* The packet, cut from the buffer. Its entry holds the
		 * buffer, which leaves the queue once all cut.
		 */
		pkt = &msk->txq[msk->snd_nxt % MRC_WND];
		DEBUG_NET_WARN_ON_ONCE(pkt->chunk);
		cb = &pkt->cb;
		memset(cb, 0, sizeof(*cb));
		cb->lost_pidx = MRC_PIDX_NONE;
		cb->offset = ccb->offset + ccb->cut;
		cb->len = len;
		pkt->chunk = skb_get(chunk);
		ccb->cut += len;
		if (ccb->cut == chunk->len) {
			__skb_unlink(chunk, &sk->sk_write_queue);
			consume_skb(chunk);
		}
		cb->psn = msk->snd_nxt;
		msk->snd_nxt = mrc_psn_add(msk->snd_nxt, 1);
		if (!msk->outstanding++)
			msk->busy_gen++;
		msk->inflight_bytes += cb->len;
		cb->ack_req = mrc_ask_ack(msk, cb->psn,
					  skb_queue_empty(&sk->sk_write_queue));

		/* The first packet's header is in the batch's linear part. A
		 * packet whose fragments the skb being filled has no room for
		 * starts the next skb of the batch (mrc_xmit_batch()).
		 */
		if (!n) {
			starts = 0;
			frags = pf - 1;
		} else if (frags + pf > MAX_SKB_FRAGS) {
			/* A packet of a batch is at most half of 64 KB, in
			 * fragments of 32 bytes at least.
			 */
			DEBUG_NET_WARN_ON_ONCE(pf > MAX_SKB_FRAGS);
			starts |= BIT_ULL(n);
			frags = pf;
		} else {
			frags += pf;
		}
		batch[n++] = pkt;
		bytes += sizeof(struct mrc_data) + cb->len;
		/* A batch ends with a short packet or when it is full; with
		 * spray_burst 1, every packet goes alone, even when the
		 * chooser picks the same path again.
		 */
		if (!alone && cb->len == msk->snd_mss && n < MRC_GSO_SEGS &&
		    bytes + sizeof(struct mrc_data) + msk->snd_mss <= MRC_GSO_BYTES)
			continue;
		mrc_send_batch(sk, batch, n, starts, bp, now);
		if (cb->qdrop)
			return;
		now = 0;
		n = 0;
		bytes = 0;
	}
	if (n)
		mrc_send_batch(sk, batch, n, starts, bp, now);
	if (!chunk && !msk->outstanding)
		limit = MRC_SL_IDLE;
	else if (!chunk && msk->stats.snd_waiting)
		limit = MRC_SL_SNDBUF;
	mrc_send_limit_set(msk, limit);
}

/**
 * mrc_sndbuf_expand() - make room in SO_SNDBUF for the congestion window
 * @sk: the socket, locked
 *
 * As tcp_sndbuf_expand(): twice the window in packets of the size being
 * queued, so that a bulk sender is held by the window and not by its
 * buffer, up to net.mrc.sndbuf_max. Not when the application set
 * SO_SNDBUF, nor under memory pressure; it never shrinks.
 */
void mrc_sndbuf_expand(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	u64 want = 2ULL * msk->cwnd * msk->snd_truesize;

	want = min_t(u64, want, READ_ONCE(mrc_net(sock_net(sk))->sndbuf_max));
	if (want <= READ_ONCE(sk->sk_sndbuf) ||
	    (sk->sk_userlocks & SOCK_SNDBUF_LOCK) ||
	    sk_under_memory_pressure(sk))
		return;
	WRITE_ONCE(sk->sk_sndbuf, want);
	MRC_INC(sock_net(sk), SNDBUF_GROWN);
	/* A writer may wait for the room there now is. */
	sk->sk_write_space(sk);
}

/**
 * mrc_push() - send what the windows allow: repairs first, then new data,
 * then the FIN once everything is acknowledged; with packets in flight, a
 * tail probe when one is due (mrc_tail_probe()); one event, which reads
 * the clock once (mrc_clock_us())
 * @sk: the socket, locked
 */
void mrc_push(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	if (msk->state != MRC_ESTABLISHED)
		return;
	mrc_clock_begin(msk);
	/* Leaving idle: the deadline is the RTO from now, before a local
	 * drop (or a poll) arms the timer earlier and keeps mrc_arm_rto()
	 * below from running: a stale deadline would make that timer an
	 * RTO.
	 */
	if (!msk->outstanding && !timer_pending(&msk->rtx_timer))
		msk->rto_deadline = jiffies + usecs_to_jiffies(mrc_rto_us(sk));
	mrc_cp_refresh(sk);
	mrc_retransmit_lost(sk, false);
	mrc_send_new(sk, false);

	if (msk->outstanding) {
		if (!timer_pending(&msk->rtx_timer))
			mrc_arm_rto(sk);
		mrc_tail_probe(sk);
	} else if (!skb_queue_empty(&sk->sk_write_queue)) {
		/* Window closed: the timer probes it. */
		if (!timer_pending(&msk->rtx_timer))
			mrc_arm_rto(sk);
	} else if ((sk->sk_shutdown & SEND_SHUTDOWN) &&
		   !(msk->fin & MRC_FIN_SENT)) {
		msk->fin |= MRC_FIN_SENT;
		mrc_send_fin(sk);
		mrc_arm_rto(sk);
	}
	mrc_clock_end(msk);
}

/* Rings of packets in flight. A ring is freed only with every entry free
 * (no buffer), as the constructor made it, so that an allocation, once
 * for every burst of a connection that goes idle in between, does not
 * zero 8 KB again.
 */
static struct kmem_cache *mrc_txq_cache;

static void mrc_txq_ctor(void *ring)
{
	memset(ring, 0, MRC_WND * sizeof(struct mrc_txpkt));
}

/**
 * mrc_output_init() - create the cache of rings of packets in flight
 *
 * Return: 0 or -ENOMEM.
 */
int mrc_output_init(void)
{
	mrc_txq_cache = kmem_cache_create("mrc_txq",
					  MRC_WND * sizeof(struct mrc_txpkt),
					  0, 0, mrc_txq_ctor);
	return mrc_txq_cache ? 0 : -ENOMEM;
}

/**
 * mrc_output_exit() - destroy that cache
 */
void mrc_output_exit(void)
{
	kmem_cache_destroy(mrc_txq_cache);
}

/**
 * mrc_tx_purge() - drop everything not yet sent or acknowledged
 * @sk: the socket, locked
 */
void mrc_tx_purge(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	unsigned int i;

	for (i = 0; msk->txq && i < MRC_WND; i++) {
		kfree_skb(msk->txq[i].chunk);
		msk->txq[i].chunk = NULL;
	}
	if (msk->txq)
		kmem_cache_free(mrc_txq_cache, msk->txq);
	msk->txq = NULL;
	__skb_queue_purge(&sk->sk_write_queue);
	msk->outstanding = 0;
	msk->lost = 0;
	msk->inflight_bytes = 0;
	mrc_send_limit_set(msk, MRC_SL_IDLE);
}

/**
 * mrc_txq_alloc() - make sure the ring of packets in flight exists, and
 *	the sending state of the paths (mrc_cp_start())
 * @sk: the socket, locked and owned by the caller (process context)
 *
 * Return: 0 or -ENOBUFS.
 */
int mrc_txq_alloc(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	if (!msk->txq)
		msk->txq = kmem_cache_alloc(mrc_txq_cache, sk->sk_allocation);
	if (!msk->txq || mrc_cp_start(sk, sk->sk_allocation))
		return -ENOBUFS;
	return 0;
}

/**
 * mrc_txq_release() - free the ring of packets in flight if it is unused
 * @sk: the socket, locked
 *
 * With nothing in flight and nothing queued the ring is empty; an idle
 * connection does not keep its 8 KB. sendmsg() makes it again.
 */
void mrc_txq_release(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	if (msk->txq && !msk->outstanding &&
	    skb_queue_empty(&sk->sk_write_queue)) {
		kmem_cache_free(mrc_txq_cache, msk->txq);
		msk->txq = NULL;
	}
}

/**
 * mrc_send_ack() - send an ACK for everything received so far
 * @sk: the socket, locked
 * @flags: extra MRC_F_* flags (MRC_F_FIN_ACK)
 */
void mrc_send_ack(struct sock *sk, u16 flags)
{
	DECLARE_BITMAP(sack, MRC_WND);
	struct mrc_sock *msk = mrc_sk(sk);
	u64 words[MRC_SACK_WORDS], edge;
	struct sk_buff *skb;
	struct mrc_ack *a;
	unsigned int i;

	if (msk->state != MRC_ESTABLISHED && msk->state != MRC_SYN_RECV)
		return;
	sk_stop_timer(sk, &msk->ack_timer);
	skb = mrc_alloc_ctrl(sizeof(*a));
	if (!skb) {
		MRC_INC(sock_net(sk), TX_ERRORS);
		return;
	}
	if (msk->fin & MRC_FIN_RCVD)
		flags |= MRC_F_FIN_ACK;
	if (msk->ack_ce)
		flags |= MRC_F_ECE;
	a = (struct mrc_ack *)skb->data;
	mrc_fill_hdr(&a->h, MRC_PKT_ACK, flags, msk->rcid, msk->lcid, 0);
	/* The header's EV is the path the ACK takes; ev_echo the path of
	 * the packet that triggered it.
	 */
	a->cum_psn = htonl(msk->rcv_nxt);
	/* Bit k of rcv_map is PSN rcv_nxt + k; the wire starts at k = 1. */
	bitmap_shift_right(sack, msk->rcv_map, 1, MRC_WND);
	bitmap_to_arr64(words, sack, MRC_SACK_BITS);
	for (i = 0; i < MRC_SACK_WORDS; i++)
		a->sack[i] = cpu_to_be64(words[i]);
	a->ev_echo = htons(msk->ack_ev);
	msk->rcv_wnd_adv = mrc_rcv_wnd(sk);
	edge = msk->rcv_bytes + msk->rcv_wnd_adv;
	/* The receiver's RTT, as TCP measures it without timestamps: the
	 * time until the sender, told of a further edge, reaches it.
	 */
	if (edge > msk->rcv_edge && !msk->rcv_rtt_time_us) {
		msk->rcv_rtt_edge = edge;
		msk->rcv_rtt_time_us = mrc_clock_us(msk);
	}
	msk->rcv_edge = max(msk->rcv_edge, edge);
	a->rwnd = htonl(msk->rcv_wnd_adv);
	a->tsecr = htonl(msk->ack_tsval);
	a->svc_time_us = htonl(msk->ack_tsval ? mrc_clock_us(msk) - msk->ack_rx_us : 0);
	msk->rcv_unacked = 0;
	msk->ack_ce = false;
	MRC_INC(sock_net(sk), OUT_ACKS);
	mrc_output_ctrl(sk, skb, msk->ack_ev);
}

/**
 * mrc_send_nack() - tell the peer a DATA packet arrived without its payload
 * @sk: the socket, locked
 * @psn: the packet's PSN
 * @ev: the path it arrived on; the NACK goes back on it when it can
 * @reason: enum mrc_nack_reason
 */
void mrc_send_nack(struct sock *sk, u32 psn, u16 ev, u8 reason)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct sk_buff *skb;
	struct mrc_nack *n;

	skb = mrc_alloc_ctrl(sizeof(*n));
	if (!skb) {
		MRC_INC(sock_net(sk), TX_ERRORS);
		return;
	}
	n = (struct mrc_nack *)skb->data;
	mrc_fill_hdr(&n->h, MRC_PKT_NACK, 0, msk->rcid, msk->lcid, 0);
	n->psn = htonl(psn);
	n->ev = htons(ev);
	n->reason = reason;
	trace_mrc_nack_send(msk, psn, ev, reason);
	MRC_INC(sock_net(sk), OUT_NACKS);
	mrc_output_ctrl(sk, skb, ev);
}

/**
 * mrc_send_syn() - send a SYN (connect) or a SYNACK (a listener's child)
 * @sk: the socket, locked
 * @type: MRC_PKT_SYN or MRC_PKT_SYNACK
 * @tsecr: for a SYNACK, the tsval of the SYN being answered
 */
void mrc_send_syn(struct sock *sk, u8 type, u32 tsecr)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct sk_buff *skb;
	struct mrc_syn *s;
	u32 rwnd;

	skb = mrc_alloc_ctrl(sizeof(*s));
	if (!skb) {
		MRC_INC(sock_net(sk), TX_ERRORS);
		return;
	}
	s = (struct mrc_syn *)skb->data;
	mrc_fill_hdr(&s->h, type, 0, type == MRC_PKT_SYN ? 0 : msk->rcid,
		     msk->lcid, 0);
	s->sport = msk->lport;
	s->dport = msk->dport;
	s->isn = htonl(msk->snd_isn);
	rwnd = mrc_rcv_wnd(sk);
	msk->rcv_edge = max_t(u64, msk->rcv_edge, rwnd);
	s->rwnd = htonl(rwnd);
	s->mss = htons(min_t(u32, msk->mss, U16_MAX));
	s->tsval = htonl(mrc_now_us());
	s->tsecr = htonl(tsecr);
	MRC_INC(sock_net(sk), OUT_SYNS);
	mrc_output_ctrl(sk, skb, -1);
}

/**
 * mrc_send_fin() - send a FIN carrying the number of messages sent
 * @sk: the socket, locked
 */
void mrc_send_fin(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct sk_buff *skb;
	struct mrc_fin *f;

	skb = mrc_alloc_ctrl(sizeof(*f));
	if (!skb) {
		MRC_INC(sock_net(sk), TX_ERRORS);
		return;
	}
	f = (struct mrc_fin *)skb->data;
	mrc_fill_hdr(&f->h, MRC_PKT_FIN, 0, msk->rcid, msk->lcid, 0);
	f->final_msn = htonl(msk->snd_msn);
	MRC_INC(sock_net(sk), OUT_FINS);
	mrc_output_ctrl(sk, skb, -1);
}

/**
 * mrc_send_rst() - tell the peer of a connection that it is gone
 * @sk: the socket, locked
 * @reason: enum mrc_rst_reason
 */
void mrc_send_rst(struct sock *sk, u32 reason)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct sk_buff *skb;
	struct mrc_rst *r;

	if (!msk->rcid)
		return;
	skb = mrc_alloc_ctrl(sizeof(*r));
	if (!skb) {
		MRC_INC(sock_net(sk), TX_ERRORS);
		return;
	}
	r = (struct mrc_rst *)skb->data;
	mrc_fill_hdr(&r->h, MRC_PKT_RST, 0, msk->rcid, msk->lcid, 0);
	r->reason = htonl(reason);
	MRC_INC(sock_net(sk), OUT_RSTS);
	mrc_output_ctrl(sk, skb, -1);
}

/* A reply to a packet without a connection: plain routing, no SRH, the
 * entropy of the EV the packet came on.
 */
static void mrc_output_reply(struct net *net, struct sk_buff *skb,
			     const struct mrc_reply *r)
{
	struct sock *usk = mrc_net(net)->udp_sock->sk;
	u32 entropy = jhash_2words(r->scid, r->ev, 0x6d7263);
	struct dst_entry *dst;
	struct flowi6 fl6 = {};

	fl6.flowi6_proto = IPPROTO_UDP;
	fl6.flowi6_oif = r->ifindex;
	fl6.daddr = r->daddr;
	fl6.saddr = r->saddr;
	fl6.fl6_sport = htons(0xc000 | (entropy & 0x3fff));
	fl6.fl6_dport = htons(mrc_udp_port);
	fl6.flowlabel = cpu_to_be32(entropy >> 12) & IPV6_FLOWLABEL_MASK;

	local_bh_disable();
	dst = ip6_dst_lookup_flow(net, usk, &fl6, NULL);
	if (IS_ERR(dst)) {
		MRC_INC(net, TX_NO_ROUTE);
		kfree_skb(skb);
	} else {
		mrc_output_flow(net, NULL, skb, &fl6, dst, NULL, 0);
	}
	local_bh_enable();
}

/**
 * mrc_send_rst_reply() - answer a packet that has no connection with a RST
 * @net: namespace
 * @r: addresses and ids of the packet being answered, already swapped
 * @reason: enum mrc_rst_reason
 *
 * At most rst_rate a second per namespace: anyone can make us answer,
 * from any source address, so the answers must not become a flood.
 */
void mrc_send_rst_reply(struct net *net, const struct mrc_reply *r, u32 reason)
{
	struct sk_buff *skb;
	struct mrc_rst *rst;

	if (!mrc_ratelimit_take(&mrc_net(net)->rst_rl, READ_ONCE(mrc_rst_rate))) {
		MRC_INC(net, RST_RATE_LIMITED);
		return;
	}
	skb = mrc_alloc_ctrl(sizeof(*rst));
	if (!skb) {
		MRC_INC(net, TX_ERRORS);
		return;
	}
	rst = (struct mrc_rst *)skb->data;
	mrc_fill_hdr(&rst->h, MRC_PKT_RST, 0, r->dcid, r->scid, r->ev);
	rst->reason = htonl(reason);
	MRC_INC(net, OUT_RSTS);
	mrc_output_reply(net, skb, r);
}
