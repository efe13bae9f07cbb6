// SPDX-License-Identifier: GPL-2.0
/*
 * Per network namespace state of MRC.
 */
#include <linux/bug.h>
#include <net/netns/generic.h>

#include "pernet.h"

static unsigned int mrc_net_id __read_mostly;

/**
 * mrc_net() - the MRC state of a network namespace
 * @net: the namespace
 *
 * Return: the state, which lives as long as @net.
 */
struct mrc_net *mrc_net(const struct net *net)
{
	return net_generic(net, mrc_net_id);
}

static int __net_init mrc_net_init(struct net *net)
{
	struct mrc_net *mn = mrc_net(net);
	unsigned int i;

	spin_lock_init(&mn->bind_lock);
	for (i = 0; i < ARRAY_SIZE(mn->bind_hash); i++)
		INIT_HLIST_HEAD(&mn->bind_hash[i]);
	return 0;
}

static void __net_exit mrc_net_exit(struct net *net)
{
	struct mrc_net *mn = mrc_net(net);

	/* Every user socket holds a reference on its namespace. */
	WARN_ON_ONCE(mn->nr_bound);
}

static struct pernet_operations mrc_net_ops = {
	.init = mrc_net_init,
	.exit = mrc_net_exit,
	.id = &mrc_net_id,
	.size = sizeof(struct mrc_net),
};

/**
 * mrc_pernet_init() - set up MRC state in every network namespace
 *
 * Return: 0 or a negative errno.
 */
int mrc_pernet_init(void)
{
	return register_pernet_subsys(&mrc_net_ops);
}

/**
 * mrc_pernet_exit() - tear down MRC state in every network namespace
 */
void mrc_pernet_exit(void)
{
	unregister_pernet_subsys(&mrc_net_ops);
}
