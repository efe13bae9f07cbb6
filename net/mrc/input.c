// SPDX-License-Identifier: GPL-2.0
/*
 * MRC receive path: from the UDP tunnel socket (softirq) to connections,
 * then handshake, DATA placement, message reassembly and the receive
 * window, and when to acknowledge. ACKs and NACKs go on to ack.c.
 */
#include <linux/mrc.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <net/inet_ecn.h>
#include <linux/seg6.h>
#include <net/ipv6.h>
#include <net/udp.h>

#include "mrc_compat.h"
#include "ack.h"
#include "conn.h"
#include "input.h"
#include "mem.h"
#include "conn_paths.h"
#include "output.h"
#include "params.h"
#include "parse.h"
#include "probe.h"
#include "pernet.h"
#include "recovery.h"
#include "socket.h"
#include "trace.h"

/* What the IPv6 header said, kept in skb->cb because a packet may wait in
 * the socket backlog. DATA reuses cb (struct mrc_rx_cb) once placed.
 */
struct mrc_in_cb {
	struct in6_addr saddr;
	struct in6_addr daddr;
	int ifindex;
	bool ce;
	u8 dscp;
};

#define MRC_IN_CB(skb)	((struct mrc_in_cb *)(skb)->cb)

static void mrc_reply_init(struct mrc_reply *r, struct sk_buff *skb)
{
	const struct mrc_hdr *h = (const struct mrc_hdr *)skb->data;

	r->saddr = MRC_IN_CB(skb)->daddr;
	r->daddr = MRC_IN_CB(skb)->saddr;
	r->ifindex = ipv6_addr_type(&r->daddr) & IPV6_ADDR_LINKLOCAL ?
		     MRC_IN_CB(skb)->ifindex : 0;
	r->dcid = ntohl(h->scid);
	r->scid = ntohl(h->dcid);
	r->ev = ntohs(h->ev);
}

/**
 * mrc_rx_purge() - drop every partly reassembled message
 * @sk: the socket, locked
 */
void mrc_rx_purge(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_rmsg *rmsg, *tmp;

	list_for_each_entry_safe(rmsg, tmp, &msk->rmsgs, node) {
		list_del(&rmsg->node);
		__skb_queue_purge(&rmsg->frags);
		kfree_skb(rmsg->head);
		kfree(rmsg);
	}
}

/* Whole message in one skb. A message of one packet is that packet. A
 * longer one is chained on the frag_list of the empty skb allocated with
 * it: its packets may be clones of the sender's (over a veth, say), whose
 * shared info must stay untouched, so none of them can be the head.
 */
static struct sk_buff *mrc_rmsg_to_skb(struct mrc_rmsg *rmsg)
{
	struct sk_buff *head = rmsg->head;
	struct sk_buff *frag, *prev = NULL;

	if (!head)
		return __skb_dequeue(&rmsg->frags);
	rmsg->head = NULL;
	while ((frag = __skb_dequeue(&rmsg->frags))) {
		if (prev)
			prev->next = frag;
		else
			skb_shinfo(head)->frag_list = frag;
		prev = frag;
		head->len += frag->len;
		head->data_len += frag->len;
	}
	return head;
}

static void mrc_check_rcv_shutdown(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	if ((msk->fin & MRC_FIN_RCVD) && msk->rcv_msn == msk->peer_final_msn &&
	    !(sk->sk_shutdown & RCV_SHUTDOWN)) {
		sk->sk_shutdown |= RCV_SHUTDOWN;
		if (!sock_flag(sk, SOCK_DEAD))
			sk->sk_state_change(sk);
	}
}

/* Queue, in order, every complete message next in line. */
static void mrc_deliver(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_rmsg *rmsg;
	bool any = false;

	while ((rmsg = list_first_entry_or_null(&msk->rmsgs, struct mrc_rmsg, node)) &&
	       rmsg->msn == msk->rcv_msn && rmsg->got == rmsg->len) {
		struct sk_buff *skb = mrc_rmsg_to_skb(rmsg);

		list_del(&rmsg->node);
		MRC_RX_CB(skb)->mem = rmsg->mem;
		__skb_queue_tail(&sk->sk_receive_queue, skb);
		msk->rcv_msn++;
		msk->stats.msgs_received++;
		msk->stats.bytes_received += rmsg->len;
		MRC_INC(sock_net(sk), MSGS_DELIVERED);
		kfree(rmsg);
		any = true;
	}
	if (any && !sock_flag(sk, SOCK_DEAD))
		sk->sk_data_ready(sk);
	mrc_check_rcv_shutdown(sk);
}

/* The message @msn of @len bytes, found or created for a packet of @plen
 * payload bytes.
 */
static struct mrc_rmsg *mrc_rmsg_get(struct sock *sk, u32 msn, u32 len,
				     u32 plen)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_rmsg *rmsg, *pos;

	list_for_each_entry_reverse(pos, &msk->rmsgs, node) {
		if (pos->msn == msn)
			return pos->len == len ? pos : ERR_PTR(-EINVAL);
		if (mrc_before(pos->msn, msn))
			break;
	}
	rmsg = kmalloc(sizeof(*rmsg), GFP_ATOMIC);
	if (!rmsg)
		return ERR_PTR(-ENOMEM);
	rmsg->head = NULL;
	rmsg->mem = 0;
	if (plen < len) {
		/* More packets to come: the skb they are delivered in. */
		rmsg->head = alloc_skb(0, GFP_ATOMIC);
		if (!rmsg->head) {
			kfree(rmsg);
			return ERR_PTR(-ENOMEM);
		}
		mrc_mem_charge_r(rmsg->head, sk, true);
		rmsg->mem = rmsg->head->truesize;
	}
	__skb_queue_head_init(&rmsg->frags);
	rmsg->msn = msn;
	rmsg->len = len;
	rmsg->got = 0;
	/* After @pos, which is the last message before @msn (or the head). */
	list_add(&rmsg->node, &pos->node);
	return rmsg;
}

static void mrc_rmsg_put_empty(struct mrc_rmsg *rmsg)
{
	if (skb_queue_empty(&rmsg->frags)) {
		list_del(&rmsg->node);
		consume_skb(rmsg->head);
		kfree(rmsg);
	}
}

/* Insert by offset. Walking back from the end, every fragment passed
 * starts at or after our end; the walk stops at one that ends at or before
 * our start. Anything else overlaps, which only a broken peer sends.
 */
static bool mrc_rmsg_insert(struct mrc_rmsg *rmsg, struct sk_buff *skb,
			    u32 off, u32 len)
{
	struct sk_buff *pos;

	skb_queue_reverse_walk(&rmsg->frags, pos) {
		u32 poff = MRC_RX_CB(pos)->offset;

		if (poff + pos->len <= off)
			break;
		if (poff < off + len || (!len && poff == off))
			return false;
	}
	MRC_RX_CB(skb)->offset = off;
	__skb_queue_after(&rmsg->frags, pos, skb);
	return true;
}

/* A DATA packet a switch trimmed (its DSCP says so, or its payload is
 * shorter than its header declares): its payload is never delivered. The
 * sender learns at once, by a NACK, and retransmits; a PSN received
 * already (a trimmed spare copy) is only acknowledged again.
 */
static void mrc_rcv_trimmed(struct sock *sk, struct sk_buff *skb, u32 psn,
			    s32 k)
{
	const struct mrc_data *d = (const struct mrc_data *)skb->data;
	struct mrc_sock *msk = mrc_sk(sk);

	MRC_INC(sock_net(sk), IN_TRIMMED);
	msk->stats.pkts_trimmed++;
	if (k >= MRC_WND) {
		MRC_INC(sock_net(sk), DROP_PSN_WINDOW);
		mrc_send_ack(sk, 0);
		kfree_skb(skb);
		return;
	}
	if (k < 0 || test_bit(k, msk->rcv_map))
		mrc_send_ack(sk, 0);
	else
		mrc_send_nack(sk, psn, ntohs(d->h.ev), MRC_NACK_TRIMMED);
	consume_skb(skb);
}

/* What the next ACK echoes: this packet's path, clock and mark. */
static void mrc_echo_set(struct mrc_sock *msk, const struct mrc_data *d,
			 bool ce)
{
	msk->ack_tsval = ntohl(d->tsval);
	msk->ack_rx_us = mrc_clock_us(msk);
	msk->ack_ev = ntohs(d->h.ev);
	msk->ack_ce |= ce;
}

/* Just past the highest PSN held above the cumulative point, as an offset
 * from it; 0 when nothing is held there (no hole).
 */
static u32 mrc_rcv_high(const struct mrc_sock *msk)
{
	return bitmap_empty(msk->rcv_map, MRC_WND) ? 0 :
	       find_last_bit(msk->rcv_map, MRC_WND) + 1;
}

/* Whether @n packets just added at @k past the old cumulative point, which
 * moved by @adv, changed the holes in a way the sender must hear of at
 * once. @high was just past the highest PSN held before them (0: nothing
 * held above the cumulative point, so no hole). Two changes are news: the
 * first hole opens, which the sender's loss detection needs to see; and
 * the cumulative point passes packets held above a hole, which lets the
 * sender free what it keeps for retransmission and move its PSN window
 * on, and whose echo may prove a path's retirement spurious (the packet
 * that filled the hole was late, not lost: mrc_cp_undo()). A hole opening
 * beside another waits for ack_every like a packet in order: spraying
 * over paths of unequal delay opens one with nearly every packet of its
 * faster paths, and the sender's loss detection, which is timed, needs
 * to see them soon, not each at once.
 */
static bool mrc_hole_news(u32 k, u32 n, u32 high, u32 adv)
{
	return (!high && k) || adv > n;
}

/* The bookkeeping of @n packets of @full payload bytes each, but the last,
 * @plen bytes in all, of @truesize, just accepted: the payload ratio, the
 * bytes taken, the receiver's RTT and the check on the sender's window.
 */
static void mrc_rcv_accepted(struct mrc_sock *msk, u32 n, u32 full,
			     u32 plen, u32 truesize)
{
	struct net *net = sock_net(&msk->sk);
	u64 edge = msk->rcv_edge + msk->mss;
	u32 i;

	msk->rcv_scale = max_t(u32, (msk->rcv_scale * 7 + 4 +
				     div_u64((u64)plen << MRC_RCV_SCALE_SHIFT,
					     truesize)) / 8, 1);
	/* The sender went past every window it was given: count it, per
	 * packet, as a check on the peer (one packet may probe a closed
	 * window).
	 */
	for (i = 1; i < n; i++)
		if (msk->rcv_bytes + (u64)i * full > edge)
			MRC_INC(net, IN_BEYOND_WINDOW);
	msk->rcv_bytes += plen;
	/* The edge being timed is reached: the shortest time it takes is
	 * the receiver's RTT (tcp_rcv_rtt_measure()'s window-based sample).
	 */
	if (msk->rcv_rtt_time_us && msk->rcv_bytes >= msk->rcv_rtt_edge) {
		u32 rtt = max_t(u32, mrc_clock_us(msk) - msk->rcv_rtt_time_us, 1);

		if (!msk->rcv_rtt_us || rtt < msk->rcv_rtt_us)
			msk->rcv_rtt_us = rtt;
		msk->rcv_rtt_time_us = 0;
	}
	if (msk->rcv_bytes > edge)
		MRC_INC(net, IN_BEYOND_WINDOW);
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

static void mrc_rcv_data(struct sock *sk, struct sk_buff *skb)
{
	const struct mrc_data *d = (const struct mrc_data *)skb->data;
	struct mrc_sock *msk = mrc_sk(sk);
	struct net *net = sock_net(sk);
	u32 psn = ntohl(d->psn), msn = ntohl(d->msn);
	u32 off = ntohl(d->offset), mlen = ntohl(d->msg_len);
	u32 plen = skb->len - sizeof(*d);
	bool ack_req = ntohs(d->h.flags) & MRC_F_ACK_REQ;
	s32 k = mrc_psn_sub(psn, msk->rcv_nxt);
	struct mrc_rmsg *rmsg;
	bool hol, ce;
	u32 adv, high;

	MRC_INC(net, IN_DATA);
	if (MRC_IN_CB(skb)->dscp == READ_ONCE(mrc_net(net)->trim_dscp) ||
	    plen < ntohs(d->h.plen)) {
		mrc_rcv_trimmed(sk, skb, psn, k);
		return;
	}
	if (plen != ntohs(d->h.plen)) {
		MRC_INC(net, DROP_BAD_MSG);
		goto drop;
	}
	/* A PSN this far ahead is no packet the sender may have out: it
	 * changes nothing, not even what the next ACK echoes.
	 */
	if (k >= MRC_WND) {
		MRC_INC(net, DROP_PSN_WINDOW);
		goto drop_ack;
	}
	msk->stats.pkts_received++;
	ce = MRC_IN_CB(skb)->ce;
	/* Behind the cumulative point, by any distance: a packet already
	 * delivered by a retransmission can arrive long after. The ACK that
	 * says so echoes it, so that the sender can undo what its loss did.
	 */
	if (k < 0 || test_bit(k, msk->rcv_map)) {
		msk->stats.pkts_dup++;
		MRC_INC(net, DROP_DUP);
		mrc_echo_set(msk, d, ce);
		/* Tell the sender: its retransmission was not needed. */
		mrc_send_ack(sk, MRC_F_DUP);
		goto drop;
	}
	if (!mrc_data_fields_ok(mlen, off, plen, msk->mss, MRC_MSS_MIN,
				msn - msk->rcv_msn)) {
		MRC_INC(net, DROP_BAD_MSG);
		goto drop;
	}
	mrc_echo_set(msk, d, ce);
	if (sock_flag(sk, SOCK_DEAD)) {
		/* New data for a socket nobody will read: reset, as TCP does. */
		mrc_conn_abort(sk, 0, true);
		goto drop;
	}
	/* Packets are chained on a message's frag_list: none has its own. */
	if (skb_has_frag_list(skb) && skb_linearize(skb)) {
		MRC_INC(net, DROP_NOMEM);
		goto drop;
	}

	rmsg = mrc_rmsg_get(sk, msn, mlen, plen);
	if (IS_ERR(rmsg)) {
		if (PTR_ERR(rmsg) == -ENOMEM)
			MRC_INC(net, DROP_NOMEM);
		else
			MRC_INC(net, DROP_BAD_MSG);
		goto drop;
	}
	/* The message next in line may exceed the buffer, so that messages
	 * larger than SO_RCVBUF complete; but only while the reader has
	 * nothing else queued, which bounds memory to one message beyond
	 * the buffer (mrc_rmem_charged() leaves that one out).
	 */
	hol = msn == msk->rcv_msn && skb_queue_empty(&sk->sk_receive_queue);
	/* Nothing is left of any window we gave: only a zero-window probe
	 * comes here. Refuse it, as TCP refuses data in a zero window: its
	 * ACK carries the window, and its payload would take a packet's
	 * worth, per probe, of the half of the buffer kept for what is in
	 * flight.
	 */
	if (!hol && msk->rcv_bytes >= msk->rcv_edge) {
		MRC_INC(net, DROP_ZERO_WND);
		goto drop_nobuf;
	}
	if (!hol && mrc_rmem_charged(sk) + skb->truesize >
		    READ_ONCE(sk->sk_rcvbuf)) {
		MRC_INC(net, DROP_RCVBUF);
		goto drop_nobuf;
	}
	/* The same exception for the protocol's memory (net.mrc.mem):
	 * every connection can always take the message it needs to make
	 * progress. Once charged, freeing the packet uncharges it.
	 */
	if (!mrc_mem_charge_r(skb, sk, hol)) {
		MRC_INC(net, DROP_MEM_LIMIT);
		goto drop_nobuf;
	}
	__skb_pull(skb, sizeof(*d));
	if (!mrc_rmsg_insert(rmsg, skb, off, plen)) {
		MRC_INC(net, DROP_BAD_MSG);
		mrc_rmsg_put_empty(rmsg);
		goto drop;
	}
	skb_dst_drop(skb);
	rmsg->got += plen;
	rmsg->mem += skb->truesize;
	mrc_rcv_accepted(msk, 1, plen, plen, skb->truesize);

	if (k)
		MRC_INC(net, IN_OUT_OF_ORDER);
	/* Just past the highest PSN held: a packet beyond it opens a hole. */
	high = mrc_rcv_high(msk);
	adv = mrc_rcv_map_add(msk->rcv_map, k);
	msk->rcv_nxt = mrc_psn_add(msk->rcv_nxt, adv);
	if (rmsg->got == rmsg->len)
		mrc_deliver(sk);

	/* Reported at once: news of the holes (mrc_hole_news()); a
	 * congestion mark, so that the sender learns which path it was on;
	 * and a packet whose sender asks. Anything else waits like a packet
	 * in order: every ack_every packets, or the ACK timer (RFC 5681
	 * acknowledges every segment that fills a gap; spraying fills one
	 * with nearly every packet of its slower paths).
	 */
	if (mrc_hole_news(k, 1, high, adv) || ce || ack_req ||
	    ++msk->rcv_unacked >= mrc_ack_every)
		mrc_send_ack(sk, 0);
	else
		mrc_arm_ack_timer(sk);
	return;

drop_nobuf:
	/* Not lost in the network: say so before the ACK, whose smaller
	 * window tells the sender to slow down, shows the hole.
	 */
	mrc_rmsg_put_empty(rmsg);
	mrc_send_nack(sk, psn, ntohs(d->h.ev), MRC_NACK_NO_BUFFER);
drop_ack:
	mrc_send_ack(sk, 0);
drop:
	kfree_skb(skb);
}

/* The skb after @cur in @skb's fragments, for the walks through a GSO
 * batch below: the first of its frag_list after @skb itself. NULL after
 * the last, and at one that is not as mrc_xmit_batch() builds them
 * (fragments only, no frag_list of its own, none from a page pool or of
 * user memory).
 */
static const struct sk_buff *mrc_seg_next(const struct sk_buff *skb,
					  const struct sk_buff *cur)
{
	cur = cur == skb ? skb_shinfo(skb)->frag_list : cur->next;
	return cur && !skb_headlen(cur) && !skb_has_frag_list(cur) &&
	       !cur->pp_recycle &&
	       !(skb_shinfo(cur)->flags & SKBFL_ZEROCOPY_ENABLE) ? cur : NULL;
}

static void mrc_rcv(struct sock *sk, struct sk_buff *skb);

/* The DATA header at @hs of GSO batch @skb, which ends in fragment @fr at
 * @pos: read in place if it began there too (*@va caches the fragment's
 * address), else copied to @buf. NULL as skb_header_pointer() returns it.
 */
static const struct mrc_data *mrc_gso_hdr(const struct sk_buff *skb,
					  const skb_frag_t *fr, const u8 **va,
					  u32 pos, u32 hs, struct mrc_data *buf)
{
	if (hs >= pos) {
		*va = *va ?: skb_frag_address_safe(fr);
		if (*va)
			return (const void *)(*va + hs - pos);
	}
	return skb_header_pointer(skb, hs, sizeof(*buf), buf);
}

/**
 * struct mrc_batch_want - what each header of a batch taken whole must say
 * @psn: the first packet's PSN; the others follow it
 * @msn: the message, the same in every packet
 * @mlen: the message's length
 * @off: where the first packet's payload goes in the message
 * @plen: the payload of every packet but the last
 * @last: the last packet's payload
 * @n: the packets
 * @ack_req: out: one of them asked for an immediate ACK
 * @hdr: out: the last one's header, which the next ACK echoes
 *
 * The caller checked the message fields of the first and the last packet
 * (mrc_data_fields_ok()); those of the packets between follow from them.
 */
struct mrc_batch_want {
	u32 psn, msn, mlen, off, plen, last, n;
	bool ack_req;
	struct mrc_data hdr;
};

/* Whether the header @d of packet @i of a batch says what @w wants. */
static bool mrc_batch_hdr_ok(struct mrc_batch_want *w,
			     const struct mrc_data *d, u32 i)
{
	if (!d || ntohl(d->psn) != mrc_psn_add(w->psn, i) ||
	    ntohl(d->msn) != w->msn || ntohl(d->msg_len) != w->mlen ||
	    ntohl(d->offset) != w->off + i * w->plen ||
	    ntohs(d->h.plen) != (i + 1 < w->n ? w->plen : w->last))
		return false;
	w->ack_req |= !!(d->h.flags & htons(MRC_F_ACK_REQ));
	if (i + 1 == w->n)
		w->hdr = *d;
	return true;
}

/* Append @size bytes at @off of @page to @p's payload: to its last
 * fragment @*lf when they follow it in the page, else as a fragment of
 * their own. False when @p has no fragment left.
 */
static bool mrc_payload_add(struct sk_buff *p, skb_frag_t **lf,
			    struct page *page, u32 off, u32 size)
{
	struct skb_shared_info *sh = skb_shinfo(p);

	if (*lf && skb_frag_page(*lf) == page &&
	    skb_frag_off(*lf) + skb_frag_size(*lf) == off) {
		skb_frag_size_add(*lf, size);
	} else {
		if (sh->nr_frags >= MAX_SKB_FRAGS)
			return false;
		get_page(page);
		*lf = &sh->frags[sh->nr_frags];
		__skb_fill_page_desc(p, sh->nr_frags++, page, off, size);
	}
	p->len += size;
	p->data_len += size;
	return true;
}

/* The payload of the packets of a GSO batch of @seg bytes a packet (each
 * starting with a header of @hlen), as one skb, in the one walk through
 * the batch that checks every header against @w: its fragments reference
 * the batch's pages, without the headers between them, and what lies in
 * the batch's linear part is copied. NULL when a header says otherwise or
 * when that cannot be done: no memory, more pieces than an skb has
 * fragments, or a frag_list skb with a linear part.
 */
static struct sk_buff *mrc_gso_payload(const struct sk_buff *skb, u32 seg,
				       u32 hlen, struct mrc_batch_want *w)
{
	u32 hl = skb_headlen(skb), lin = 0, pos = hl, i, next;
	const struct sk_buff *cur = skb;
	skb_frag_t *lf = NULL;
	struct mrc_data buf;
	struct sk_buff *p;

	for (next = 0; next * seg + hlen <= hl; next++)
		if (!mrc_batch_hdr_ok(w, (const void *)skb->data + next * seg,
				      next))
			return NULL;
	for (i = 0; i * seg + hlen < hl; i++)
		lin += min(hl, (i + 1) * seg) - (i * seg + hlen);
	p = alloc_skb(lin, GFP_ATOMIC | __GFP_NOWARN);
	if (!p)
		return NULL;
	for (i = 0; i * seg + hlen < hl; i++)
		skb_put_data(p, skb->data + i * seg + hlen,
			     min(hl, (i + 1) * seg) - (i * seg + hlen));
	/* @a walks each fragment: through the payload of the packet before
	 * header @next up to that header, then through the header, which is
	 * checked in the fragment where it ends (in place if it began there
	 * too, else copied).
	 */
	for (; cur; cur = mrc_seg_next(skb, cur)) {
		const struct skb_shared_info *sh = skb_shinfo(cur);
		const skb_frag_t *fr, *fend = sh->frags + sh->nr_frags;

		for (fr = sh->frags; fr < fend; fr++) {
			u32 end = pos + skb_frag_size(fr), a = pos;
			const struct mrc_data *d;
			const u8 *va = NULL;

			while (a < end) {
				u32 hs = next * seg;

				if (a < hs) {
					u32 b = min(end, hs);

					if (!mrc_payload_add(p, &lf,
							     skb_frag_page(fr),
							     skb_frag_off(fr) + a - pos,
							     b - a))
						goto fail;
					a = b;
					continue;
				}
				if (hs + hlen > end)
					break;
				d = mrc_gso_hdr(skb, fr, &va, pos, hs, &buf);
				if (!mrc_batch_hdr_ok(w, d, next))
					goto fail;
				next++;
				a = hs + hlen;
			}
			pos = end;
		}
	}
	/* A frag_list skb with a linear part ended the walk early. */
	if (pos != skb->len || next != w->n)
		goto fail;
	p->truesize += p->data_len;
	return p;

fail:
	consume_skb(p);
	return NULL;
}

/* A GSO batch of DATA taken whole: n > 1 packets of one message with
 * consecutive PSNs and offsets, none of which the receiver holds, all in
 * its window and its buffer. Their payloads become one skb of the message
 * (mrc_gso_payload()), with one state update and one ACK decision.
 *
 * Return: false, with @skb untouched, when any of that does not hold; the
 * caller then takes the packets one by one, which does every check and
 * counts every drop.
 */
static bool mrc_rcv_data_batch(struct sock *sk, struct sk_buff *skb)
{
	const u32 hlen = sizeof(struct mrc_data);
	u32 seg = skb_shinfo(skb)->gso_size;
	struct mrc_sock *msk = mrc_sk(sk);
	struct net *net = sock_net(sk);
	u32 psn, msn, off, mlen, total, last, n, i, k, high, adv = 0;
	struct mrc_batch_want w;
	const struct mrc_data *d;
	struct mrc_rmsg *rmsg;
	struct sk_buff *p;
	bool hol;

	if (seg <= hlen || skb->pp_recycle ||
	    skb_zcopy(skb) || msk->state != MRC_ESTABLISHED ||
	    sock_flag(sk, SOCK_DEAD) ||
	    MRC_IN_CB(skb)->dscp == READ_ONCE(mrc_net(net)->trim_dscp))
		return false;
	n = DIV_ROUND_UP(skb->len, seg);
	d = (const struct mrc_data *)skb->data;
	if (ntohl(d->h.scid) != msk->rcid || skb->len - (n - 1) * seg < hlen)
		return false;
	psn = ntohl(d->psn);
	msn = ntohl(d->msn);
	off = ntohl(d->offset);
	mlen = ntohl(d->msg_len);
	k = mrc_psn_sub(psn, msk->rcv_nxt);
	if ((s32)k < 0 || k + n > MRC_WND ||
	    find_next_bit(msk->rcv_map, k + n, k) < k + n)
		return false;
	/* What every packet carries if each header says what the first
	 * implies (mrc_gso_payload() checks them all).
	 */
	last = skb->len - (n - 1) * seg - hlen;
	total = skb->len - n * hlen;
	/* As for one packet each: the message next in line may exceed the
	 * buffer; a packet that finds the window used up is a probe, which
	 * goes alone.
	 */
	hol = msn == msk->rcv_msn && skb_queue_empty(&sk->sk_receive_queue);
	if (!hol && msk->rcv_bytes + total - last >= msk->rcv_edge)
		return false;
	/* The message fields of the first and the last packet hold; those
	 * of the packets between follow (struct mrc_batch_want).
	 */
	if (!mrc_data_fields_ok(mlen, off, n > 1 ? seg - hlen : last, msk->mss,
				MRC_MSS_MIN, msn - msk->rcv_msn) ||
	    !mrc_data_fields_ok(mlen, off + total - last, last, msk->mss,
				MRC_MSS_MIN, msn - msk->rcv_msn))
		return false;
	w = (struct mrc_batch_want){
		.psn = psn, .msn = msn, .mlen = mlen, .off = off,
		.plen = seg - hlen, .last = last, .n = n,
	};
	p = mrc_gso_payload(skb, seg, hlen, &w);
	if (!p)
		return false;
	/* It holds the batch's pages: charge their share of what the
	 * batch's buffers take (a driver's pages may hold much more than
	 * the payload), as each packet of it would have been charged.
	 */
	p->truesize = max_t(u32, p->truesize,
			    mult_frac(skb->truesize, total, skb->len));
	if ((!hol && mrc_rmem_charged(sk) + p->truesize >
		     READ_ONCE(sk->sk_rcvbuf)) || !mrc_mem_charge_r(p, sk, hol))
		goto refuse;
	rmsg = mrc_rmsg_get(sk, msn, mlen, total);
	if (IS_ERR(rmsg))
		goto refuse;
	if (!mrc_rmsg_insert(rmsg, p, off, total)) {
		mrc_rmsg_put_empty(rmsg);
		goto refuse;
	}

	MRC_ADD(net, IN_DATA, n);
	MRC_INC(net, IN_DATA_BATCHES);
	msk->stats.pkts_received += n;
	/* The next ACK echoes the last packet, as if they came one by one. */
	mrc_echo_set(msk, &w.hdr, MRC_IN_CB(skb)->ce);
	rmsg->got += total;
	rmsg->mem += p->truesize;
	mrc_rcv_accepted(msk, n, seg - hlen, total, p->truesize);
	if (k)
		MRC_ADD(net, IN_OUT_OF_ORDER, n);
	high = mrc_rcv_high(msk);
	/* Next in line with nothing held beyond: as mrc_rcv_map_add()
	 * for each, which would shift nothing.
	 */
	if (!k && !high)
		adv = n;
	else
		for (i = 0; i < n; i++)
			adv += mrc_rcv_map_add(msk->rcv_map, k + i - adv);
	msk->rcv_nxt = mrc_psn_add(msk->rcv_nxt, adv);
	if (rmsg->got == rmsg->len)
		mrc_deliver(sk);
	/* mrc_rcv_data()'s rule, for the batch. */
	msk->rcv_unacked += n;
	if (mrc_hole_news(k, n, high, adv) || MRC_IN_CB(skb)->ce ||
	    w.ack_req ||
	    msk->rcv_unacked >= mrc_ack_every)
		mrc_send_ack(sk, 0);
	else
		mrc_arm_ack_timer(sk);
	consume_skb(skb);
	return true;

refuse:
	consume_skb(p);
	return false;
}

/* The packets of a GSO batch, one skb each, as the UDP stack makes them
 * for a tunnel socket (udp_rcv_segment()): each at its MRC header, with
 * @in in its control block (segmentation uses part of skb->cb). NULL, the
 * batch dropped and counted, when segmentation fails.
 */
static struct sk_buff *mrc_gso_split(struct net *net, struct sk_buff *skb,
				     const struct mrc_in_cb *in)
{
	u32 n = DIV_ROUND_UP(skb->len, skb_shinfo(skb)->gso_size);
	struct sk_buff *segs, *seg;

	__skb_push(skb, -skb_mac_offset(skb));
	/* Segmentation wants the checksum state the batch had before the
	 * UDP stack pulled its header, which turned CHECKSUM_PARTIAL into
	 * CHECKSUM_NONE (skb_postpull_rcsum()): the checksum is verified,
	 * and nothing checks the segments' again.
	 */
	if (!(skb_shinfo(skb)->gso_type & SKB_GSO_FRAGLIST)) {
		skb->ip_summed = CHECKSUM_PARTIAL;
		skb->csum_start = skb_transport_header(skb) - skb->head;
		skb->csum_offset = offsetof(struct udphdr, check);
	}
	segs = __skb_gso_segment(skb, NETIF_F_SG | NETIF_F_IP_CSUM |
				 NETIF_F_IPV6_CSUM, false);
	if (IS_ERR_OR_NULL(segs)) {
		/* Not yet counted in InPkts when it never reached a
		 * connection (no @in yet).
		 */
		if (!in)
			MRC_ADD(net, IN_PKTS, n);
		if (PTR_ERR(segs) == -ENOMEM)
			MRC_ADD(net, DROP_NOMEM, n);
		else
			MRC_ADD(net, DROP_GSO, n);
		kfree_skb(skb);
		return NULL;
	}
	consume_skb(skb);
	for (seg = segs; seg; seg = seg->next) {
		__skb_pull(seg, skb_transport_offset(seg) +
			   sizeof(struct udphdr));
		if (in)
			*MRC_IN_CB(seg) = *in;
	}
	return segs;
}

/* A GSO batch of DATA for this connection (mrc_udp_rcv() checked that
 * every packet in it names it): whole if it can be, else packet by packet.
 */
static void mrc_rcv_batch(struct sock *sk, struct sk_buff *skb)
{
	struct net *net = sock_net(sk);
	struct sk_buff *segs, *next;
	struct mrc_in_cb in;

	if (mrc_rcv_data_batch(sk, skb))
		return;
	MRC_INC(net, IN_DATA_BATCHES_SPLIT);
	in = *MRC_IN_CB(skb);
	segs = mrc_gso_split(net, skb, &in);
	skb_list_walk_safe(segs, skb, next) {
		skb_mark_not_on_list(skb);
		/* Each had a DATA header (mrc_gso_one_conn()). */
		if (!pskb_may_pull(skb, sizeof(struct mrc_data))) {
			MRC_INC(net, DROP_NOMEM);
			kfree_skb(skb);
			continue;
		}
		mrc_rcv(sk, skb);
	}
}

/* Return: false when the FIN was refused (and counted as such). */
static bool mrc_rcv_fin(struct sock *sk, struct sk_buff *skb)
{
	const struct mrc_fin *f = (const struct mrc_fin *)skb->data;
	struct mrc_sock *msk = mrc_sk(sk);
	u32 final = ntohl(f->final_msn);

	MRC_INC(sock_net(sk), IN_FINS);
	if (msk->fin & MRC_FIN_RCVD) {
		if (final != msk->peer_final_msn) {
			MRC_INC(sock_net(sk), DROP_BAD_MSG);
			return false;
		}
	} else {
		if (mrc_before(final, msk->rcv_msn) ||
		    final - msk->rcv_msn >= MRC_WND) {
			MRC_INC(sock_net(sk), DROP_BAD_MSG);
			return false;
		}
		msk->fin |= MRC_FIN_RCVD;
		msk->peer_final_msn = final;
		mrc_check_rcv_shutdown(sk);
	}
	mrc_send_ack(sk, MRC_F_FIN_ACK);
	return true;
}

static void mrc_rcv_rst(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	MRC_INC(sock_net(sk), IN_RSTS);
	/* Our FIN went out only after everything we sent was acknowledged;
	 * if we expect nothing more either, the peer merely left first. So
	 * it did if it finished and we have received all and owe nothing:
	 * its connection forgot us before something of ours (an ACK, a
	 * window update) reached it.
	 */
	if (((msk->fin & MRC_FIN_SENT) &&
	     ((msk->fin & MRC_FIN_RCVD) || sock_flag(sk, SOCK_DEAD))) ||
	    ((msk->fin & MRC_FIN_RCVD) && msk->rcv_msn == msk->peer_final_msn &&
	     !msk->outstanding && skb_queue_empty(&sk->sk_write_queue)) ||
	    msk->state == MRC_SYN_RECV)
		mrc_conn_done(sk);
	else
		mrc_conn_abort(sk, ECONNRESET, false);
}

/* Return: false when the SYNACK was refused (and counted as such). */
static bool mrc_rcv_synack(struct sock *sk, struct sk_buff *skb)
{
	const struct mrc_syn *s = (const struct mrc_syn *)skb->data;
	struct mrc_sock *msk = mrc_sk(sk);
	u32 tsecr = ntohl(s->tsecr);

	msk->rcid = ntohl(s->h.scid);
	msk->rcv_nxt = ntohl(s->isn);
	msk->peer_rwnd = ntohl(s->rwnd);
	msk->rwnd_seq = msk->snd_isn;
	if (ntohs(s->mss) < MRC_MSS_MIN)
		MRC_INC(sock_net(sk), DROP_SMALL_MSS);
	msk->mss = min_t(u32, msk->mss, ntohs(s->mss));
	msk->snd_mss = msk->mss;
	if (msk->rcid < MRC_QPN_MIN || msk->rcid > MRC_QPN_MAX ||
	    msk->mss < MRC_MSS_MIN) {
		if (msk->rcid < MRC_QPN_MIN || msk->rcid > MRC_QPN_MAX)
			MRC_INC(sock_net(sk), DROP_BAD_CID);
		mrc_conn_abort(sk, ECONNREFUSED, false);
		return false;
	}
	if (tsecr)
		mrc_rtt_sample(sk, mrc_now_us() - tsecr);
	mrc_conn_established(sk);
	mrc_send_ack(sk, 0);
	mrc_push(sk);
	return true;
}

static struct sock *mrc_find_child(struct list_head *list, u32 rcid,
				   const struct in6_addr *raddr)
{
	struct mrc_sock *cmsk;

	list_for_each_entry(cmsk, list, accept_node)
		if (cmsk->rcid == rcid && ipv6_addr_equal(&cmsk->daddr, raddr))
			return &cmsk->sk;
	return NULL;
}

/* Return: false when the SYN was refused (and counted as such). */
static bool mrc_listen_rcv_syn(struct sock *lsk, struct sk_buff *skb)
{
	const struct mrc_syn *s = (const struct mrc_syn *)skb->data;
	struct mrc_sock *lmsk = mrc_sk(lsk);
	struct net *net = sock_net(lsk);
	u32 scid = ntohl(s->h.scid);
	struct sock *child = NULL;

	MRC_INC(net, IN_SYNS);
	if (scid < MRC_QPN_MIN || scid > MRC_QPN_MAX) {
		MRC_INC(net, DROP_BAD_CID);
		return false;
	}

	/* A retransmitted SYN: answer again from the child we made. */
	spin_lock_bh(&lmsk->accept_lock);
	child = mrc_find_child(&lmsk->pending, scid, &MRC_IN_CB(skb)->saddr) ?:
		mrc_find_child(&lmsk->accept_q, scid, &MRC_IN_CB(skb)->saddr);
	if (child)
		sock_hold(child);
	spin_unlock_bh(&lmsk->accept_lock);
	if (child) {
		local_bh_disable();
		bh_lock_sock_nested(child);
		if (mrc_sk(child)->state == MRC_SYN_RECV)
			mrc_send_syn(child, MRC_PKT_SYNACK, ntohl(s->tsval));
		bh_unlock_sock(child);
		local_bh_enable();
		sock_put(child);
		return true;
	}

	if (READ_ONCE(lmsk->nr_pending) + READ_ONCE(lsk->sk_ack_backlog) >
	    READ_ONCE(lsk->sk_max_ack_backlog)) {
		MRC_INC(net, DROP_LISTEN_OVERFLOW);
		return false;
	}
	child = mrc_child_create(lsk, &MRC_IN_CB(skb)->daddr,
				 &MRC_IN_CB(skb)->saddr, MRC_IN_CB(skb)->ifindex,
				 s);
	if (!child)
		return false;
	/* Backlog processing runs with softirqs on: keep them off the lock. */
	local_bh_disable();
	bh_lock_sock_nested(child);
	mrc_send_syn(child, MRC_PKT_SYNACK, ntohl(s->tsval));
	mrc_arm_rto(child);
	bh_unlock_sock(child);
	local_bh_enable();
	return true;
}

/* Dispatch one packet to a connection or listener, socket locked. */
static void __mrc_rcv(struct sock *sk, struct sk_buff *skb)
{
	const struct mrc_hdr *h = (const struct mrc_hdr *)skb->data;
	struct mrc_sock *msk = mrc_sk(sk);
	struct net *net = sock_net(sk);

	if (skb_is_gso(skb)) {
		mrc_rcv_batch(sk, skb);
		return;
	}
	switch (msk->state) {
	case MRC_LISTEN:
		if (h->type != MRC_PKT_SYN)
			goto bad_state;
		if (!mrc_listen_rcv_syn(sk, skb))
			goto drop;
		goto consumed;
	case MRC_SYN_SENT:
		if (h->type == MRC_PKT_SYNACK) {
			if (!mrc_rcv_synack(sk, skb))
				goto drop;
		} else if (h->type == MRC_PKT_RST) {
			MRC_INC(net, IN_RSTS);
			mrc_conn_abort(sk, ECONNREFUSED, false);
		} else {
			goto bad_state;
		}
		goto consumed;
	case MRC_SYN_RECV:
	case MRC_ESTABLISHED:
		break;
	default:
		goto bad_state;
	}

	if (ntohl(h->scid) != msk->rcid) {
		MRC_INC(net, DROP_BAD_CID);
		goto drop;
	}
	if (msk->state == MRC_SYN_RECV &&
	    (h->type == MRC_PKT_DATA || h->type == MRC_PKT_ACK))
		mrc_conn_established(sk);

	switch (h->type) {
	case MRC_PKT_DATA:
		mrc_rcv_data(sk, skb);
		return;
	case MRC_PKT_ACK:
		if (!mrc_rcv_ack(sk, skb))
			goto drop;
		break;
	case MRC_PKT_NACK:
		if (!mrc_rcv_nack(sk, skb))
			goto drop;
		break;
	case MRC_PKT_SYNACK:
		/* Our handshake ACK was lost: say it again. */
		mrc_send_ack(sk, 0);
		break;
	case MRC_PKT_FIN:
		if (!mrc_rcv_fin(sk, skb))
			goto drop;
		break;
	case MRC_PKT_RST:
		mrc_rcv_rst(sk);
		break;
	default:
		goto bad_state;
	}
consumed:
	/* Taken: freed as such, so that drop monitors see only drops. */
	consume_skb(skb);
	return;

bad_state:
	MRC_INC(net, DROP_STATE);
drop:
	kfree_skb(skb);
}

/* The same, as one event: everything the packet sets off reads the
 * clock once (mrc_clock_us()), and what it freed of the buffers to send
 * goes back to the protocol once.
 */
static void mrc_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct mrc_sock *msk = mrc_sk(sk);

	mrc_clock_begin(msk);
	__mrc_rcv(sk, skb);
	mrc_clock_end(msk);
	mrc_mem_reclaim(sk);
}

/**
 * mrc_backlog_rcv() - process a packet that waited for the socket owner
 * @sk: the socket, owned by the caller
 * @skb: the packet
 *
 * Return: 0 (the packet is consumed).
 */
int mrc_backlog_rcv(struct sock *sk, struct sk_buff *skb)
{
	mrc_rcv(sk, skb);
	return 0;
}

static void mrc_rcv_locked(struct sock *sk, struct sk_buff *skb)
{
	bh_lock_sock(sk);
	if (!sock_owned_by_user(sk)) {
		mrc_rcv(sk, skb);
	} else if (sk_add_backlog(sk, skb, READ_ONCE(sk->sk_rcvbuf) +
				  READ_ONCE(sk->sk_sndbuf) + MRC_HOL_ALLOWANCE)) {
		MRC_INC(sock_net(sk), DROP_BACKLOG);
		kfree_skb(skb);
	}
	bh_unlock_sock(sk);
	sock_put(sk);
}

/* Whether @d, a header of a GSO batch whose first is @d0, is DATA of the
 * same connection.
 */
static bool mrc_gso_hdr_ok(const struct mrc_data *d, const struct mrc_data *d0)
{
	return d && d->h.version == MRC_VERSION && d->h.type == MRC_PKT_DATA &&
	       d->h.dcid == d0->h.dcid && d->h.scid == d0->h.scid &&
	       mrc_psn_ok(&d->h);
}

/* Every packet of a GSO batch is DATA of one connection, from one peer
 * connection, with at least a DATA header: so that it may go to that
 * connection whole. The headers lie at multiples of the segment size,
 * after the first mostly in page fragments (on the frag_list too, as
 * mrc_xmit_batch() builds it): each is read in place in the fragment
 * where it ends if it began there, else copied.
 */
static bool mrc_gso_one_conn(const struct sk_buff *skb)
{
	const u32 hlen = sizeof(struct mrc_data);
	u32 seg = skb_shinfo(skb)->gso_size, pos = skb_headlen(skb), next;
	const struct sk_buff *cur = skb;
	const struct mrc_data *d, *d0;
	struct mrc_data buf, buf0;

	if (seg <= hlen)
		return false;
	d0 = skb_header_pointer(skb, 0, hlen, &buf0);
	if (!mrc_gso_hdr_ok(d0, d0))
		return false;
	for (next = 1; next * seg + hlen <= pos; next++)
		if (!mrc_gso_hdr_ok((const void *)skb->data + next * seg, d0))
			return false;
	for (; cur && next * seg < skb->len; cur = mrc_seg_next(skb, cur)) {
		const struct skb_shared_info *sh = skb_shinfo(cur);
		const skb_frag_t *fr, *fend = sh->frags + sh->nr_frags;

		for (fr = sh->frags; fr < fend; fr++) {
			u32 end = pos + skb_frag_size(fr);
			const u8 *va = NULL;

			for (; next * seg + hlen <= end; next++) {
				u32 hs = next * seg;

				d = mrc_gso_hdr(skb, fr, &va, pos, hs, &buf);
				if (!mrc_gso_hdr_ok(d, d0))
					return false;
			}
			pos = end;
		}
	}
	/* Past a frag_list skb with a linear part: copied. */
	for (; next * seg < skb->len; next++)
		if (!mrc_gso_hdr_ok(skb_header_pointer(skb, next * seg, hlen,
						       &buf), d0))
			return false;
	return true;
}

static void mrc_udp_rcv(struct sock *usk, struct sk_buff *skb);

/* A batch that cannot go to one connection whole: packet by packet. */
static void mrc_udp_rcv_split(struct sock *usk, struct sk_buff *skb)
{
	struct sk_buff *segs, *next;

	MRC_INC(sock_net(usk), IN_DATA_BATCHES_SPLIT);
	segs = mrc_gso_split(sock_net(usk), skb, NULL);
	skb_list_walk_safe(segs, skb, next) {
		skb_mark_not_on_list(skb);
		mrc_udp_rcv(usk, skb);
	}
}

/* One MRC packet, or a GSO batch of them, at its MRC header, its checksum
 * verified. Runs in softirq under RCU. Every packet is consumed; every
 * drop counted, once a packet.
 */
static void mrc_udp_rcv(struct sock *usk, struct sk_buff *skb)
{
	struct net *net = sock_net(usk);
	const struct ipv6hdr *ip6 = ipv6_hdr(skb);
	int ifindex = inet6_iif(skb);
	bool ce = INET_ECN_is_ce(ipv6_get_dsfield(ip6));
	struct mrc_in_cb *in = MRC_IN_CB(skb);
	const struct mrc_hdr *h;
	struct mrc_reply reply;
	struct sock *sk;
	unsigned int len;
	u32 segs = 1;

	if (skb_is_gso(skb)) {
		if (!mrc_gso_one_conn(skb)) {
			mrc_udp_rcv_split(usk, skb);
			return;
		}
		segs = DIV_ROUND_UP(skb->len, skb_shinfo(skb)->gso_size);
	}
	MRC_ADD(net, IN_PKTS, segs);
	if (unlikely(ip6->nexthdr != IPPROTO_UDP) &&
	    !mrc_exthdrs_ok(skb_network_header(skb),
			    skb_transport_header(skb) - skb_network_header(skb))) {
		MRC_ADD(net, DROP_BAD_SRH, segs);
		goto drop;
	}
	/* IP6CB, where inet6_iif() looks, shares skb->cb with *in. */
	in->saddr = ip6->saddr;
	in->daddr = ip6->daddr;
	in->ifindex = ifindex;
	in->ce = ce;
	in->dscp = ipv6_get_dsfield(ip6) >> 2;

	if (!pskb_may_pull(skb, sizeof(*h))) {
		MRC_ADD(net, DROP_SHORT, segs);
		goto drop;
	}
	h = (const struct mrc_hdr *)skb->data;
	if (h->version != MRC_VERSION) {
		MRC_INC(net, DROP_VERSION);
		goto drop;
	}
	len = mrc_hdr_len(h->type);
	if (!len) {
		MRC_INC(net, DROP_TYPE);
		goto drop;
	}
	if (!pskb_may_pull(skb, len)) {
		MRC_ADD(net, DROP_SHORT, segs);
		goto drop;
	}
	h = (const struct mrc_hdr *)skb->data;
	if (!mrc_psn_ok(h)) {
		MRC_ADD(net, DROP_PSN_WINDOW, segs);
		goto drop;
	}

	if (h->type == MRC_PKT_PROBE || h->type == MRC_PKT_PROBE_REPLY) {
		if (h->type == MRC_PKT_PROBE)
			mrc_probe_rcv(net, skb, &in->saddr, &in->daddr);
		else
			mrc_probe_reply_rcv(net, skb);
		consume_skb(skb);
		return;
	}
	if (h->type == MRC_PKT_SYN) {
		const struct mrc_syn *s = (const struct mrc_syn *)h;

		sk = mrc_listener_lookup(net, s->dport, &in->daddr);
		if (!sk) {
			MRC_INC(net, DROP_NO_LISTENER);
			mrc_reply_init(&reply, skb);
			mrc_send_rst_reply(net, &reply, MRC_RST_NO_LISTENER);
			goto drop;
		}
	} else {
		sk = mrc_conn_lookup(net, ntohl(h->dcid));
		if (!sk) {
			MRC_ADD(net, DROP_NO_CONN, segs);
			if (h->type != MRC_PKT_RST) {
				mrc_reply_init(&reply, skb);
				mrc_send_rst_reply(net, &reply, MRC_RST_NO_CONN);
			}
			goto drop;
		}
	}
	mrc_rcv_locked(sk, skb);
	return;

drop:
	kfree_skb(skb);
}

/* GSO kinds that are batches of MRC packets: UDP segmentation (a sender's
 * GSO, or GRO), possibly as a frag list or from an untrusted source, which
 * mrc_gso_split() can segment. UFO and UDP tunnel packets cannot be MRC's.
 */
#define MRC_GSO_TYPES	(SKB_GSO_UDP_L4 | SKB_GSO_FRAGLIST | SKB_GSO_DODGY)

/**
 * mrc_udp_data_ready() - sk_data_ready of the UDP tunnel socket
 * @usk: the namespace's UDP tunnel socket
 *
 * The UDP stack calls it in the softirq that queued a packet, under RCU,
 * once a packet queued: it takes one off the queue (the oldest, which
 * another CPU may have queued), so that every packet is taken, and no CPU
 * drains what others keep queuing. It verifies the UDP checksum, which
 * the stack leaves to a plain socket's reader (udpv6_recvmsg() does the
 * same), but not a GSO batch's: the stack trusts those (see
 * udp_post_segment_fix_csum()). The socket has no encap_rcv, so that a
 * GSO batch is queued whole (see mrc_udp_sock_create()).
 */
void mrc_udp_data_ready(struct sock *usk)
{
	struct net *net = sock_net(usk);
	struct sk_buff *skb;
	bool trusted, bad;
	int off = 0, err;

	skb = __skb_recv_udp(usk, MSG_DONTWAIT, &off, &err);
	/* An error report, cleared by reading it, would come before the
	 * packets; none is expected (errors go to the tunnel's
	 * encap_err_rcv), but then try once more.
	 */
	if (!skb && err != -EAGAIN)
		skb = __skb_recv_udp(usk, MSG_DONTWAIT, &off, &err);
	if (!skb)
		return;
	trusted = skb_is_gso(skb) || udp_skb_csum_unnecessary(skb);
	/* The UDP queue kept its scratch data where skb->dev was, which
	 * udp_skb_csum_unnecessary() read; nothing may take it for a device.
	 */
	skb->dev = NULL;
	if (skb_is_gso(skb) &&
	    (!(skb_shinfo(skb)->gso_type & SKB_GSO_UDP_L4) ||
	     (skb_shinfo(skb)->gso_type & ~MRC_GSO_TYPES))) {
		MRC_INC(net, IN_PKTS);
		MRC_INC(net, DROP_GSO);
		kfree_skb(skb);
		return;
	}
	bad = !trusted && __udp_lib_checksum_complete(skb);
	if (bad) {
		MRC_INC(net, IN_PKTS);
		MRC_INC(net, DROP_CSUM);
		kfree_skb(skb);
		return;
	}
	mrc_udp_rcv(usk, skb);
}
