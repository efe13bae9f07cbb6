/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_SOCKET_H
#define _MRC_SOCKET_H

#include "mrc_types.h"
#include "mrc_wire.h"

struct sock *mrc_listener_lookup(struct net *net, __be16 port,
				 const struct in6_addr *addr);
struct sock *mrc_child_create(struct sock *lsk, const struct in6_addr *laddr,
			      const struct in6_addr *raddr, int ifindex,
			      const struct mrc_syn *syn);
int mrc_socket_init(void);
void mrc_socket_exit(void);

#endif /* _MRC_SOCKET_H */
