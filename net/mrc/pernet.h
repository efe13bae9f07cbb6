/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_PERNET_H
#define _MRC_PERNET_H

#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "mrc_types.h"

extern const struct rhashtable_params mrc_conn_params;

extern unsigned int mrc_net_id;

/**
 * mrc_net() - the MRC state of a network namespace
 * @net: the namespace
 *
 * Inline: every MIB counter update looks it up.
 *
 * Return: the state, which lives as long as @net.
 */
static inline struct mrc_net *mrc_net(const struct net *net)
{
	return net_generic(net, mrc_net_id);
}

void mrc_ratelimit_init(struct ratelimit_state *rl);
bool mrc_ratelimit_take(struct ratelimit_state *rl, unsigned int rate);
int mrc_pernet_init(void);
void mrc_pernet_exit(void);

#endif /* _MRC_PERNET_H */
