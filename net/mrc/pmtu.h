/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_PMTU_H
#define _MRC_PMTU_H

#include "mrc_compat.h"
#include "conn_paths.h"

u32 mrc_mtu_mss(const struct mrc_cpaths *cps, u32 mtu);
bool mrc_cp_set_pmtu(struct sock *sk, u32 i, u32 mtu);
u32 mrc_xmit_frag_size(struct sock *sk, u32 i, struct dst_entry *dst, u32 len);
void mrc_pmtu_deferred(struct sock *sk);
int mrc_udp_err_lookup(struct sock *usk, struct sk_buff *skb);
void mrc_udp_err(struct sock *usk, struct sk_buff *skb, unsigned int udp);

#endif /* _MRC_PMTU_H */
