/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_OUTPUT_H
#define _MRC_OUTPUT_H

#include "mrc_wire.h"
#include "params.h"
#include "socket.h"

/* Room for link, IPv6, a full SRH, UDP and the largest MRC header. */
#define MRC_HEADROOM	(LL_MAX_HEADER + sizeof(struct ipv6hdr) + 8 + \
			 8 * sizeof(struct in6_addr) + sizeof(struct udphdr) + \
			 sizeof(struct mrc_ack))

/* Bytes between the IPv6 header and a DATA payload. */
#define MRC_DATA_OVERHEAD	(sizeof(struct udphdr) + sizeof(struct mrc_data))

/**
 * struct mrc_tx_cb - control block of a DATA packet the sender keeps
 * @offset: offset of the payload in the message (whose sequence number
 *	and length its buffer's &struct mrc_chunk_cb holds)
 * @psn: packet sequence number, assigned at first transmission
 * @xmit_us: time of the latest transmission, microseconds
 * @len: payload length
 * @pidx: entry in &mrc_cpaths.p of the path of the latest transmission, or
 *	MRC_PIDX_NONE once that path left the connection's set (the
 *	packet is then lost, and any news of it concerns no path)
 * @xmits: number of transmissions
 * @lost_xmit_us: send time of the latest copy declared lost
 * @lost_pidx: the path entry of that copy, or MRC_PIDX_NONE: none was
 *	declared lost since the connection's view of its paths was built
 * @lost: declared lost and not retransmitted since
 * @via_rto: was declared lost by a retransmission timeout
 * @ack_req: its next transmission asks for an immediate ACK
 *	(MRC_F_ACK_REQ): mrc_ask_ack() said so
 * @trimmed: a NACK said a switch trimmed its latest transmission
 * @nobuf: the peer refused it for want of memory
 * @noroute: its latest transmission found no route: the path's first hop
 *	is unreachable from this host, and the packet never left it
 * @qdrop: a queue of this host dropped its latest transmission (the
 *	output returned NET_XMIT_DROP): it never left, for congestion here
 * @probed: its latest transmission is a tail probe (mrc_tail_probe()), and
 *	@lost_pidx and @lost_xmit_us name the copy it replaced, not yet
 *	known lost: an ACK that echoes the probe's copy shows it was
 *	(mrc_tail_repaired())
 */
#define MRC_PIDX_NONE	U16_MAX

struct mrc_tx_cb {
	u32 offset;
	u32 psn;
	u32 xmit_us;
	u16 len;
	u16 pidx;
	u32 lost_xmit_us;
	u16 lost_pidx;
	u8 xmits;
	u8 lost:1,
	   via_rto:1,
	   ack_req:1,
	   trimmed:1,
	   nobuf:1,
	   noroute:1,
	   qdrop:1,
	   probed:1;
};

/**
 * struct mrc_txpkt - a DATA packet the sender keeps until it is delivered:
 *	an entry of &mrc_sock.txq
 * @cb: its state
 * @chunk: the buffer that holds its payload (struct mrc_chunk_cb), of
 *	which the entry holds a reference; NULL when the entry is free
 *
 * The payload is the @cb->len bytes at offset @cb->offset -
 * &mrc_chunk_cb.offset of @chunk. A transmission references them there.
 */
struct mrc_txpkt {
	struct mrc_tx_cb cb;
	struct sk_buff *chunk;
};

#define MRC_TX_CB(pkt)	(&(pkt)->cb)

/**
 * struct mrc_chunk_cb - control block of a buffer of a message to send
 * @msn: the message's sequence number
 * @offset: offset of the buffer's first byte in the message
 * @msg_len: length of the message
 * @mss: payload bytes of its packets, but a message's last: &mrc_sock.snd_mss
 *	when sendmsg() queued it. A path MTU that fell since leaves them
 *	too big for it: they go in IPv6 fragments, and never in a GSO batch.
 * @cut: bytes of the buffer cut into packets so far (at the first
 *	transmission of each)
 *
 * sendmsg() copies a message into buffers of up to 64 KB, whole packets of
 * @mss, each an skb of page fragments only, and queues them on
 * sk_write_queue. A buffer leaves
 * the queue once it is all cut into packets; the packets' entries in the
 * ring hold it, and the last one delivered frees it, with its charge.
 */
struct mrc_chunk_cb {
	u32 msn;
	u32 offset;
	u32 msg_len;
	u32 mss;
	u32 cut;
};

#define MRC_CHUNK_CB(skb)	((struct mrc_chunk_cb *)(skb)->cb)

int mrc_output_flow(struct net *net, struct sock *sk, struct sk_buff *skb,
		    struct flowi6 *fl6, struct dst_entry *dst,
		    struct ipv6_txoptions *opt, u32 frag);

struct mrc_reply {
	struct in6_addr saddr;
	struct in6_addr daddr;
	int ifindex;
	u32 dcid;
	u32 scid;
	u16 ev;
};

/* Packets in flight for the congestion window: sent, not delivered or lost. */
static inline u32 mrc_inflight(const struct mrc_sock *msk)
{
	return msk->outstanding - msk->lost;
}

/* Poll interval of a connection with no usable path. */
#define MRC_OUTAGE_POLL_MS	10

/**
 * mrc_txq_get() - the packet in flight in the slot of a PSN
 * @msk: the socket, locked
 * @psn: the PSN
 *
 * Return: the packet, which may be of another PSN, or NULL: none, or no
 * ring while nothing is in flight.
 */
static inline struct mrc_txpkt *
mrc_txq_get(const struct mrc_sock *msk, u32 psn)
{
	struct mrc_txpkt *pkt;

	if (!msk->txq)
		return NULL;
	pkt = &msk->txq[psn % MRC_WND];
	return pkt->chunk ? pkt : NULL;
}

/* The longest the peer may hold an ACK: ack_delay_us rounded up to
 * jiffies, and one more jiffy for the timer.
 */
static inline u32 mrc_ack_hold_us(void)
{
	return jiffies_to_usecs(usecs_to_jiffies(READ_ONCE(mrc_ack_delay_us)) + 1);
}

u32 mrc_route_mss(struct sock *sk, struct in6_addr *saddr);
int mrc_output_init(void);
void mrc_output_exit(void);
int mrc_txq_alloc(struct sock *sk);
void mrc_txq_release(struct sock *sk);
void mrc_sndbuf_expand(struct sock *sk);
void mrc_push(struct sock *sk);
void mrc_xmit_data(struct sock *sk, struct mrc_txpkt *pkt, u32 i, u32 now);
void mrc_poll_paths(struct sock *sk);
void mrc_retransmit_lost(struct sock *sk, bool head);
void mrc_send_new(struct sock *sk, bool probe);
void mrc_send_limit_set(struct mrc_sock *msk, enum mrc_send_limit limit);
u64 mrc_send_limit_us(const struct mrc_sock *msk, enum mrc_send_limit limit,
		      unsigned long now);
void mrc_tx_purge(struct sock *sk);
void mrc_send_ack(struct sock *sk, u16 flags);
void mrc_send_nack(struct sock *sk, u32 psn, u16 ev, u8 reason);
void mrc_send_syn(struct sock *sk, u8 type, u32 tsecr);
void mrc_send_fin(struct sock *sk);
void mrc_send_rst(struct sock *sk, u32 reason);
void mrc_send_rst_reply(struct net *net, const struct mrc_reply *r, u32 reason);

#endif /* _MRC_OUTPUT_H */
