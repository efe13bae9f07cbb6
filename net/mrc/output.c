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
#include "mem.h"
#include "conn_paths.h"
#include "output.h"
#include "params.h"
#include "pernet.h"
#include "pmtu.h"
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

/* Transmit (a copy of) one DATA packet kept in the ring on path entry @i,
 * stamped @now.
 */
static void mrc_xmit_data(struct sock *sk, struct mrc_txpkt *pkt, u32 i,
			  u32 now)
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

/* Packets in flight for the congestion window: sent, not delivered or lost. */
static u32 mrc_inflight(const struct mrc_sock *msk)
{
	return msk->outstanding - msk->lost;
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

/* Poll interval of a connection with no usable path. */
#define MRC_OUTAGE_POLL_MS	10

/* Packets declared lost wait with no usable path: the retirement of the
 * connection's last good path stranded them (a congestion drop on its
 * only path does). Nothing tells a connection that a probe has brought a
 * path back, so look again at the poll interval rather than only at the
 * RTO, which would also restart the window from two packets. The RTO
 * deadline still stands.
 */
static void mrc_poll_paths(struct sock *sk)
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

/* Send again what is declared lost, oldest first, within the congestion
 * window; with @head, the first goes whatever the window.
 */
static void mrc_retransmit_lost(struct sock *sk, bool head)
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

static void mrc_send_new(struct sock *sk, bool probe)
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

/* The tail loss probe (RFC 8985, section 7). RACK and the paths' timeouts
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
static void mrc_tail_probe(struct sock *sk)
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

/**
 * mrc_rcv_wnd() - the receive window to advertise
 * @sk: the socket
 *
 * Free receive buffer, not counting the message next in line for delivery,
 * which is accepted beyond the buffer so that messages larger than it
 * complete. Buffer space is counted in skb truesize; the window is in
 * payload bytes, converted with the ratio measured on arriving packets.
 * Only half the buffer is offered: the rest absorbs what is already in
 * flight when the head-of-line message stops counting as free.
 *
 * Return: bytes.
 */
u32 mrc_rcv_wnd(struct sock *sk)
{
	long space = READ_ONCE(sk->sk_rcvbuf) / 2 - mrc_rmem_charged(sk);

	/* Nor more than half what the protocol has left (net.mrc.mem). */
	space = min(space, mrc_mem_room(sk) / 2);

	return space > 0 ?
	       (u32)min_t(u64, ((u64)space * mrc_sk(sk)->rcv_scale) >>
				MRC_RCV_SCALE_SHIFT, U32_MAX) : 0;
}

/**
 * mrc_rmem_charged() - receive memory that counts against SO_RCVBUF
 * @sk: the socket, locked
 *
 * Everything received and not yet read, except one message: the first
 * in the receive queue, or while that is empty the message next in line.
 * That one is accepted whatever its size, so that messages larger than
 * the buffer complete, and it does not stop the next from arriving while
 * the reader has yet to take it.
 *
 * Return: bytes of true size.
 */
long mrc_rmem_charged(struct sock *sk)
{
	struct sk_buff *first = skb_peek(&sk->sk_receive_queue);
	struct mrc_sock *msk = mrc_sk(sk);
	long mem = atomic_read(&sk->sk_rmem_alloc);
	struct mrc_rmsg *hol;

	if (first)
		return mem - MRC_RX_CB(first)->mem;
	hol = list_first_entry_or_null(&msk->rmsgs, struct mrc_rmsg, node);
	if (hol && hol->msn == msk->rcv_msn)
		mem -= hol->mem;
	return mem;
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
