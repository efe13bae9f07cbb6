/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_INPUT_H
#define _MRC_INPUT_H

#include <linux/skbuff.h>
#include <net/sock.h>

int mrc_udp_rcv(struct sock *usk, struct sk_buff *skb);
int mrc_backlog_rcv(struct sock *sk, struct sk_buff *skb);
void mrc_rx_purge(struct sock *sk);

#endif /* _MRC_INPUT_H */
