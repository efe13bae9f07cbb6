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

/**
 * enum mrc_lost_reason - why a packet was declared lost (mrc:mrc_pkt_lost)
 * @MRC_LOST_RACK: a packet sent later on its path was delivered, and the
 *	reordering window has passed
 * @MRC_LOST_PATH_TIMEOUT: later packets on other paths were delivered, and
 *	its path's timeout has passed
 * @MRC_LOST_RTO: the retransmission timeout fired
 * @MRC_LOST_NO_ROUTE: its path had no route
 * @MRC_LOST_QDISC_DROP: a local qdisc dropped it
 * @MRC_LOST_PATH_RETIRED: its path was retired with it in flight
 * @MRC_LOST_TAIL_PROBE: a tail probe sent it again, and the ACK for the
 *	probe's copy showed the first copy had not arrived
 */
enum mrc_lost_reason {
	MRC_LOST_RACK,
	MRC_LOST_PATH_TIMEOUT,
	MRC_LOST_RTO,
	MRC_LOST_NO_ROUTE,
	MRC_LOST_QDISC_DROP,
	MRC_LOST_PATH_RETIRED,
	MRC_LOST_TAIL_PROBE,
};

/**
 * mrc_cb_set_lost() - take a packet in flight out of the window, to be
 *	sent again
 * @msk: its socket, locked
 * @cb: the packet, not yet marked lost
 *
 * What every loss, release and move of a packet shares: it counts as
 * lost (mrc_sock.lost), and what it waited for (a trim hold, memory, a
 * route, a local queue) no longer matters. The callers do the path's
 * accounting.
 */
static inline void mrc_cb_set_lost(struct mrc_sock *msk, struct mrc_tx_cb *cb)
{
	cb->lost = 1;
	cb->trimmed = 0;
	cb->nobuf = 0;
	cb->noroute = 0;
	cb->qdrop = 0;
	msk->lost++;
}

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
void mrc_tail_repaired(struct sock *sk, const struct mrc_tx_cb *cb);
void mrc_send_limit_set(struct mrc_sock *msk, enum mrc_send_limit limit);
u64 mrc_send_limit_us(const struct mrc_sock *msk, enum mrc_send_limit limit,
		      unsigned long now);
void mrc_tx_purge(struct sock *sk);
u32 mrc_detect_losses(struct sock *sk);
void mrc_mark_lost(struct sock *sk, struct mrc_tx_cb *cb,
		   enum mrc_lost_reason reason);
void mrc_mark_released(struct sock *sk, struct mrc_tx_cb *cb);
void mrc_rtx_timeout(struct sock *sk);
void mrc_send_ack(struct sock *sk, u16 flags);
void mrc_send_nack(struct sock *sk, u32 psn, u16 ev, u8 reason);
void mrc_send_syn(struct sock *sk, u8 type, u32 tsecr);
void mrc_send_fin(struct sock *sk);
void mrc_send_rst(struct sock *sk, u32 reason);
void mrc_send_rst_reply(struct net *net, const struct mrc_reply *r, u32 reason);
u32 mrc_rcv_wnd(struct sock *sk);
long mrc_rmem_charged(struct sock *sk);

#endif /* _MRC_OUTPUT_H */
