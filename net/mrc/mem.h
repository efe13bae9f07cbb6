/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_MEM_H
#define _MRC_MEM_H

#include <linux/skbuff.h>
#include <net/sock.h>

#include "socket.h"

int mrc_mem_init(void);
void mrc_mem_exit(void);
void mrc_mem_proto_init(struct proto *prot);
int mrc_mem_init_net(struct net *net);
void mrc_mem_exit_net(struct net *net);
void mrc_mem_sock_init(struct sock *sk);
void mrc_mem_sock_destruct(struct sock *sk);
bool mrc_mem_charge_r(struct sk_buff *skb, struct sock *sk, bool force);
void mrc_mem_charge_w(struct sk_buff *skb, struct sock *sk);
bool mrc_mem_can_send(struct sock *sk, int size);
void mrc_mem_reclaim(struct sock *sk);
long mrc_mem_room(const struct sock *sk);

#endif /* _MRC_MEM_H */
