/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal structures of MRC shared by the module's files.
 */
#ifndef _MRC_TYPES_H
#define _MRC_TYPES_H

#include <linux/in6.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <net/sock.h>

#define MRC_BIND_HASH_BITS	8

/**
 * struct mrc_net - MRC state of one network namespace
 * @bind_lock: protects @bind_hash and @nr_bound
 * @bind_hash: bound sockets, hashed by local port
 * @nr_bound: number of sockets in @bind_hash
 */
struct mrc_net {
	spinlock_t bind_lock;	/* bind_hash, nr_bound */
	struct hlist_head bind_hash[1 << MRC_BIND_HASH_BITS];
	unsigned int nr_bound;
};

/**
 * struct mrc_sock - an AF_MRC socket
 * @sk: the generic socket; must stay first
 * @bind_node: entry in &mrc_net.bind_hash while bound
 * @laddr: local address given to bind(), or in6addr_any
 * @lport: local MRC port in network byte order; 0 until bound
 */
struct mrc_sock {
	struct sock sk;
	struct hlist_node bind_node;
	struct in6_addr laddr;
	__be16 lport;
};

#endif /* _MRC_TYPES_H */
