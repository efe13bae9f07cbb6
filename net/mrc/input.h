/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_INPUT_H
#define _MRC_INPUT_H

#include <linux/skbuff.h>
#include <net/sock.h>

void mrc_udp_data_ready(struct sock *usk);
int mrc_backlog_rcv(struct sock *sk, struct sk_buff *skb);
void mrc_rx_purge(struct sock *sk);
u32 mrc_rcv_wnd(struct sock *sk);
long mrc_rmem_charged(struct sock *sk);

#endif /* _MRC_INPUT_H */
