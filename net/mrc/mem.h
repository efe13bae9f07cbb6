/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_MEM_H
#define _MRC_MEM_H

#include <linux/skbuff.h>
#include <net/sock.h>

#include "mrc_types.h"

int mrc_mem_init_net(struct net *net, struct mrc_net *mn);
void mrc_mem_exit_net(struct net *net, struct mrc_net *mn);
unsigned long mrc_mem_default_max(void);
void mrc_mem_set_owner_r(struct sk_buff *skb, struct sock *sk);
void mrc_mem_set_owner_w(struct sk_buff *skb, struct sock *sk);
bool mrc_mem_exceeds(const struct sock *sk, unsigned int more);
long mrc_mem_room(const struct sock *sk);

#endif /* _MRC_MEM_H */
