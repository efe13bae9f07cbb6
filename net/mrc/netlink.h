/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_NETLINK_H
#define _MRC_NETLINK_H

#include <net/sock.h>

void mrc_nl_conn_event(struct sock *sk, int err);
int mrc_netlink_init(void);
void mrc_netlink_exit(void);

#endif /* _MRC_NETLINK_H */
