/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_PROBE_H
#define _MRC_PROBE_H

#include "pathset.h"

struct mrc_net;

void mrc_probe_init_net(struct mrc_net *mn);
void mrc_probe_exit_net(struct mrc_net *mn);
void mrc_probe_start(struct net *net, struct mrc_path *p,
		     const struct in6_addr *daddr, const struct in6_addr *saddr);
void mrc_probe_rcv(struct net *net, struct sk_buff *skb,
		   const struct in6_addr *saddr, const struct in6_addr *daddr);
void mrc_probe_reply_rcv(struct net *net, struct sk_buff *skb);
int mrc_probe_once(struct net *net, struct mrc_path *p,
		   const struct in6_addr *daddr, unsigned int timeout_ms,
		   u32 *rtt_us);

#endif /* _MRC_PROBE_H */
