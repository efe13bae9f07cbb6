/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_ACK_H
#define _MRC_ACK_H

#include <linux/skbuff.h>
#include <net/sock.h>

bool mrc_rcv_ack(struct sock *sk, struct sk_buff *skb);
bool mrc_rcv_nack(struct sock *sk, struct sk_buff *skb);

#endif /* _MRC_ACK_H */
