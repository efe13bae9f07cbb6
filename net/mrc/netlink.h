/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_NETLINK_H
#define _MRC_NETLINK_H

#include <net/sock.h>

#include "pathset.h"

void mrc_nl_conn_event(struct sock *sk, int err);
void mrc_nl_path_event(struct net *net, const struct mrc_path *p, u8 old,
		       u8 state, u8 reason, gfp_t gfp);
int mrc_netlink_init(void);
void mrc_netlink_exit(void);

#endif /* _MRC_NETLINK_H */
