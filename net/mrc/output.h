/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_OUTPUT_H
#define _MRC_OUTPUT_H

#include "mrc_types.h"
#include "mrc_wire.h"
#include "params.h"

/* Room for link, IPv6, a full SRH, UDP and the largest MRC header. */
#define MRC_HEADROOM	(LL_MAX_HEADER + sizeof(struct ipv6hdr) + 8 + \
			 8 * sizeof(struct in6_addr) + sizeof(struct udphdr) + \
			 sizeof(struct mrc_ack))

/* Bytes between the IPv6 header and a DATA payload. */
#define MRC_DATA_OVERHEAD	(sizeof(struct udphdr) + sizeof(struct mrc_data))

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
