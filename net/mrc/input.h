/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_INPUT_H
#define _MRC_INPUT_H

#include <linux/list.h>
#include <linux/skbuff.h>
#include <net/sock.h>

/**
 * struct mrc_rx_cb - control block of a received DATA payload
 * @offset: offset of the payload in its message
 * @mem: first payload of a complete message in the receive queue: the
 *	true size of all the message's buffers
 */
struct mrc_rx_cb {
	u32 offset;
	u32 mem;
};

#define MRC_RX_CB(skb)	((struct mrc_rx_cb *)(skb)->cb)

/**
 * struct mrc_rmsg - a message being reassembled
 * @node: entry in &mrc_sock.rmsgs, ordered by @msn
 * @frags: its payloads so far, ordered by offset, not overlapping
 * @msn: message sequence number
 * @len: total length
 * @got: payload bytes present
 * @mem: truesize of @frags and @head
 * @head: for a message of more than one packet, the empty skb it is
 *	delivered in, @frags chained on its frag_list; NULL for one packet
 */
struct mrc_rmsg {
	struct list_head node;
	struct sk_buff_head frags;
	struct sk_buff *head;
	u32 msn;
	u32 len;
	u32 got;
	u32 mem;
};

void mrc_udp_data_ready(struct sock *usk);
int mrc_backlog_rcv(struct sock *sk, struct sk_buff *skb);
void mrc_rx_purge(struct sock *sk);
u32 mrc_rcv_wnd(struct sock *sk);
long mrc_rmem_charged(struct sock *sk);

#endif /* _MRC_INPUT_H */
