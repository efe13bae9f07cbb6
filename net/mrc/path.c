// SPDX-License-Identifier: GPL-2.0
/*
 * MRC path sets: the explicit paths (EVs) to each destination prefix.
 * Writers hold &mrc_net.paths_lock and replace a whole set with a changed
 * copy, so a change is atomic and a failed change changes nothing.
 */
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ipv6.h>

#include "path.h"
#include "pernet.h"

/**
 * mrc_path_init_net() - an empty path table
 * @mn: the namespace's MRC state
 */
void mrc_path_init_net(struct mrc_net *mn)
{
	mutex_init(&mn->paths_lock);
	INIT_LIST_HEAD(&mn->pathsets);
}

/**
 * mrc_pathset_find() - the set of exactly this prefix
 * @mn: the namespace's MRC state
 * @prefix: prefix, host bits clear
 * @plen: prefix length
 *
 * Caller holds &mrc_net.paths_lock or rcu_read_lock().
 *
 * Return: the set, or NULL.
 */
struct mrc_pathset *mrc_pathset_find(struct mrc_net *mn,
				     const struct in6_addr *prefix, u8 plen)
{
	struct mrc_pathset *set;

	list_for_each_entry_rcu(set, &mn->pathsets, node,
				lockdep_is_held(&mn->paths_lock))
		if (set->plen == plen && ipv6_addr_equal(&set->prefix, prefix))
			return set;
	return NULL;
}

static struct mrc_pathset *mrc_pathset_alloc(u32 nr_paths)
{
	return kvzalloc(struct_size_t(struct mrc_pathset, paths, nr_paths),
			GFP_KERNEL);
}

/* A copy of @old (which may be NULL) with room for @nr paths. */
static struct mrc_pathset *mrc_pathset_copy(const struct mrc_pathset *old,
					    const struct in6_addr *prefix,
					    u8 plen, u32 nr)
{
	struct mrc_pathset *set = mrc_pathset_alloc(nr);

	if (!set)
		return NULL;
	if (old) {
		set->min_active = old->min_active;
		memcpy(set->paths, old->paths,
		       min(nr, old->nr_paths) * sizeof(set->paths[0]));
	}
	set->prefix = *prefix;
	set->plen = plen;
	set->nr_paths = min_t(u32, nr, old ? old->nr_paths : 0);
	return set;
}

/* Publish @set in place of @old (or as new), and free @old after readers. */
static void mrc_pathset_replace(struct mrc_net *mn, struct mrc_pathset *old,
				struct mrc_pathset *set)
{
	lockdep_assert_held(&mn->paths_lock);
	if (old) {
		list_replace_rcu(&old->node, &set->node);
		kvfree_rcu(old, rcu);
	} else {
		list_add_tail_rcu(&set->node, &mn->pathsets);
		mn->nr_pathsets++;
	}
}

static void mrc_pathset_remove(struct mrc_net *mn, struct mrc_pathset *set)
{
	lockdep_assert_held(&mn->paths_lock);
	list_del_rcu(&set->node);
	mn->nr_pathsets--;
	kvfree_rcu(set, rcu);
}

static int mrc_path_index(const struct mrc_pathset *set, u16 id)
{
	u32 i;

	for (i = 0; i < set->nr_paths; i++)
		if (set->paths[i].id == id)
			return i;
	return -1;
}

static int mrc_path_validate(struct net *net, const struct mrc_path *p,
			     struct netlink_ext_ack *extack)
{
	unsigned int i;

	for (i = 0; i < p->nsegs; i++) {
		int type = ipv6_addr_type(&p->segs[i]);

		if (type == IPV6_ADDR_ANY ||
		    (type & (IPV6_ADDR_MULTICAST | IPV6_ADDR_MAPPED))) {
			NL_SET_ERR_MSG(extack,
				       "a segment is not a unicast IPv6 address");
			return -EINVAL;
		}
	}
	if (p->ifindex) {
		struct net_device *dev;

		rcu_read_lock();
		dev = dev_get_by_index_rcu(net, p->ifindex);
		rcu_read_unlock();
		if (!dev) {
			NL_SET_ERR_MSG(extack, "unknown device");
			return -ENODEV;
		}
	}
	if (p->has_src && !ipv6_chk_addr(net, &p->src, NULL, 0)) {
		NL_SET_ERR_MSG(extack, "source address is not local");
		return -EADDRNOTAVAIL;
	}
	return 0;
}

/**
 * mrc_path_add() - add a path to the set of a prefix, creating the set
 * @net: namespace
 * @prefix: prefix, host bits clear
 * @plen: prefix length
 * @req: the path; without an id the lowest free one from 1 up is used
 * @extack: error message
 *
 * Return: 0, or -E2BIG past the limits, -EEXIST for a taken id, or the
 * error of a bad segment, device or source.
 */
int mrc_path_add(struct net *net, const struct in6_addr *prefix, u8 plen,
		 struct mrc_path_req *req, struct netlink_ext_ack *extack)
{
	struct mrc_net *mn = mrc_net(net);
	struct mrc_pathset *old, *set;
	struct mrc_path *p = &req->path;
	u32 nr, i;
	int err;

	err = mrc_path_validate(net, p, extack);
	if (err)
		return err;

	mutex_lock(&mn->paths_lock);
	old = mrc_pathset_find(mn, prefix, plen);
	nr = old ? old->nr_paths : 0;
	err = -E2BIG;
	if (!old && mn->nr_pathsets >= MRC_PATH_SETS_MAX) {
		NL_SET_ERR_MSG(extack, "too many path sets (1024 at most)");
		goto out;
	}
	if (nr >= MRC_PATHS_PER_SET_MAX) {
		NL_SET_ERR_MSG(extack, "too many paths in the set (256 at most)");
		goto out;
	}
	if (req->has_id) {
		err = -EEXIST;
		if (old && mrc_path_index(old, p->id) >= 0) {
			NL_SET_ERR_MSG(extack, "a path with this id exists");
			goto out;
		}
	} else {
		for (p->id = 1; old && mrc_path_index(old, p->id) >= 0; p->id++)
			;
	}

	err = -ENOMEM;
	set = mrc_pathset_copy(old, prefix, plen, nr + 1);
	if (!set)
		goto out;
	for (i = nr; i > 0 && set->paths[i - 1].id > p->id; i--)
		set->paths[i] = set->paths[i - 1];
	p->state = MRC_PATH_GOOD;
	p->reason = MRC_REASON_ADDED;
	p->changed = jiffies;
	set->paths[i] = *p;
	set->nr_paths = nr + 1;
	mrc_pathset_replace(mn, old, set);
	err = 0;
out:
	mutex_unlock(&mn->paths_lock);
	return err;
}

/**
 * mrc_path_del() - delete one path, or a whole set
 * @net: namespace
 * @prefix: prefix, host bits clear
 * @plen: prefix length
 * @id: the path, or -1 for the whole set
 * @extack: error message
 *
 * A set left empty goes too; min-active shrinks with the set.
 *
 * Return: 0 or -ENOENT.
 */
int mrc_path_del(struct net *net, const struct in6_addr *prefix, u8 plen,
		 int id, struct netlink_ext_ack *extack)
{
	struct mrc_net *mn = mrc_net(net);
	struct mrc_pathset *old, *set;
	int err = -ENOENT, i;

	mutex_lock(&mn->paths_lock);
	old = mrc_pathset_find(mn, prefix, plen);
	if (!old) {
		NL_SET_ERR_MSG(extack, "no path set for this prefix");
		goto out;
	}
	if (id < 0 || old->nr_paths == 1) {
		if (id >= 0 && old->paths[0].id != id) {
			NL_SET_ERR_MSG(extack, "no path with this id");
			goto out;
		}
		mrc_pathset_remove(mn, old);
		err = 0;
		goto out;
	}
	i = mrc_path_index(old, id);
	if (i < 0) {
		NL_SET_ERR_MSG(extack, "no path with this id");
		goto out;
	}
	err = -ENOMEM;
	set = mrc_pathset_copy(old, prefix, plen, old->nr_paths);
	if (!set)
		goto out;
	memmove(&set->paths[i], &set->paths[i + 1],
		(set->nr_paths - i - 1) * sizeof(set->paths[0]));
	set->nr_paths--;
	set->min_active = min(set->min_active, set->nr_paths);
	mrc_pathset_replace(mn, old, set);
	err = 0;
out:
	mutex_unlock(&mn->paths_lock);
	return err;
}

/**
 * mrc_path_set_state() - the operator denies a path or declares it good
 * @net: namespace
 * @prefix: prefix, host bits clear
 * @plen: prefix length
 * @id: the path
 * @state: MRC_PATH_GOOD or MRC_PATH_DENIED
 * @old: out: the state before
 * @extack: error message
 *
 * Return: 0, -ENOENT, or -EINVAL for a state only the kernel sets.
 */
int mrc_path_set_state(struct net *net, const struct in6_addr *prefix, u8 plen,
		       u16 id, u8 state, u8 *old, struct netlink_ext_ack *extack)
{
	struct mrc_net *mn = mrc_net(net);
	struct mrc_pathset *cur, *set;
	int err = -EINVAL, i;

	if (state != MRC_PATH_GOOD && state != MRC_PATH_DENIED) {
		NL_SET_ERR_MSG(extack, "only good or denied can be set");
		return err;
	}
	mutex_lock(&mn->paths_lock);
	err = -ENOENT;
	cur = mrc_pathset_find(mn, prefix, plen);
	i = cur ? mrc_path_index(cur, id) : -1;
	if (i < 0) {
		NL_SET_ERR_MSG(extack, "no path with this id for this prefix");
		goto out;
	}
	*old = cur->paths[i].state;
	err = -ENOMEM;
	set = mrc_pathset_copy(cur, prefix, plen, cur->nr_paths);
	if (!set)
		goto out;
	set->paths[i].state = state;
	set->paths[i].reason = MRC_REASON_OPERATOR;
	set->paths[i].changed = jiffies;
	mrc_pathset_replace(mn, cur, set);
	err = 0;
out:
	mutex_unlock(&mn->paths_lock);
	return err;
}

/**
 * mrc_pathset_set_min_active() - set the floor of good paths of a set
 * @net: namespace
 * @prefix: prefix, host bits clear
 * @plen: prefix length
 * @min_active: at most the number of paths in the set
 * @extack: error message
 *
 * Return: 0, -ENOENT, or -EINVAL when larger than the set.
 */
int mrc_pathset_set_min_active(struct net *net, const struct in6_addr *prefix,
			       u8 plen, u32 min_active,
			       struct netlink_ext_ack *extack)
{
	struct mrc_net *mn = mrc_net(net);
	struct mrc_pathset *cur, *set;
	int err = -ENOENT;

	mutex_lock(&mn->paths_lock);
	cur = mrc_pathset_find(mn, prefix, plen);
	if (!cur) {
		NL_SET_ERR_MSG(extack, "no path set for this prefix");
		goto out;
	}
	err = -EINVAL;
	if (min_active > cur->nr_paths) {
		NL_SET_ERR_MSG(extack, "min-active is larger than the set");
		goto out;
	}
	err = -ENOMEM;
	set = mrc_pathset_copy(cur, prefix, plen, cur->nr_paths);
	if (!set)
		goto out;
	set->min_active = min_active;
	mrc_pathset_replace(mn, cur, set);
	err = 0;
out:
	mutex_unlock(&mn->paths_lock);
	return err;
}

/**
 * mrc_path_flush() - delete every path set of a namespace
 * @net: namespace
 */
void mrc_path_flush(struct net *net)
{
	struct mrc_net *mn = mrc_net(net);
	struct mrc_pathset *set, *tmp;

	mutex_lock(&mn->paths_lock);
	list_for_each_entry_safe(set, tmp, &mn->pathsets, node)
		mrc_pathset_remove(mn, set);
	mutex_unlock(&mn->paths_lock);
}
