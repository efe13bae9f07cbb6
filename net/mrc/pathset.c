// SPDX-License-Identifier: GPL-2.0
/*
 * MRC path sets: the explicit paths (EVs) to each destination prefix.
 * Writers hold &mrc_net.paths_lock and replace a whole set with a changed
 * copy, so a change is atomic and a failed change changes nothing.
 */
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/seg6.h>
#include <net/addrconf.h>
#include <net/ipv6.h>

#include "netlink.h"
#include "pathset.h"
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

/* The prebuilt options of a path: its SRH, in the form ip6_xmit() pushes.
 * The SRH lists the segments last first; entry 0 is the final destination,
 * which the stack fills in per packet.
 */
static struct ipv6_txoptions *mrc_path_build_opt(const struct mrc_path *p)
{
	unsigned int n = p->nsegs, len, i;
	struct ipv6_txoptions *opt;
	struct ipv6_sr_hdr *srh;

	if (!n)
		return NULL;
	len = sizeof(*srh) + (n + 1) * sizeof(struct in6_addr);
	opt = kzalloc(sizeof(*opt) + len, GFP_KERNEL);
	if (!opt)
		return ERR_PTR(-ENOMEM);
	srh = (struct ipv6_sr_hdr *)(opt + 1);
	srh->hdrlen = (n + 1) * 2;
	srh->type = IPV6_SRCRT_TYPE_4;
	srh->segments_left = n;
	srh->first_segment = n;
	for (i = 0; i < n; i++)
		srh->segments[n - i] = p->segs[i];
	refcount_set(&opt->refcnt, 1);
	opt->tot_len = sizeof(*opt) + len;
	opt->opt_nflen = len;
	opt->srcrt = (struct ipv6_rt_hdr *)srh;
	return opt;
}

static void mrc_path_free_rcu(struct rcu_head *head)
{
	struct mrc_path *p = container_of(head, struct mrc_path, rcu);

	kfree(p->opt);
	free_percpu(p->stats);
	kfree(p);
}

/**
 * mrc_path_put() - drop a reference to a path
 * @p: the path, or NULL
 *
 * The last reference frees it after an RCU grace period.
 */
void mrc_path_put(struct mrc_path *p)
{
	if (p && refcount_dec_and_test(&p->refcnt))
		call_rcu(&p->rcu, mrc_path_free_rcu);
}

static struct mrc_path *mrc_path_create(const struct mrc_path_req *req)
{
	struct mrc_path *p = kzalloc(sizeof(*p), GFP_KERNEL);
	struct ipv6_txoptions *opt;
	int cpu;

	if (!p)
		return NULL;
	p->stats = alloc_percpu(struct mrc_path_pcpu);
	if (!p->stats) {
		kfree(p);
		return NULL;
	}
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(p->stats, cpu)->syncp);
	memcpy(p->segs, req->segs, sizeof(p->segs));
	p->nsegs = req->nsegs;
	p->src = req->src;
	p->has_src = req->has_src;
	p->ifindex = req->ifindex;
	p->id = req->id;
	opt = mrc_path_build_opt(p);
	if (IS_ERR(opt)) {
		free_percpu(p->stats);
		kfree(p);
		return NULL;
	}
	p->opt = opt;
	spin_lock_init(&p->lock);
	INIT_LIST_HEAD(&p->bad_node);
	p->state = MRC_PATH_GOOD;
	p->reason = MRC_REASON_ADDED;
	p->changed = jiffies;
	refcount_set(&p->refcnt, 1);
	return p;
}

/**
 * mrc_path_read_stats() - sum a path's counters over every CPU
 * @p: the path
 * @c: out: the sums
 */
void mrc_path_read_stats(const struct mrc_path *p, struct mrc_path_counters *c)
{
	u64 v[MRC_PC_MAX];
	int cpu, i;

	memset(c, 0, sizeof(*c));
	for_each_possible_cpu(cpu) {
		const struct mrc_path_pcpu *pc = per_cpu_ptr(p->stats, cpu);
		unsigned int start;

		do {
			start = u64_stats_fetch_begin(&pc->syncp);
			for (i = 0; i < MRC_PC_MAX; i++)
				v[i] = u64_stats_read(&pc->v[i]);
		} while (u64_stats_fetch_retry(&pc->syncp, start));
		for (i = 0; i < MRC_PC_MAX; i++)
			c->v[i] += v[i];
	}
}

/**
 * mrc_path_read_state() - a consistent view of a path's state
 * @p: the path
 * @state: out: enum mrc_path_state
 * @reason: out: enum mrc_path_reason of the last change
 * @changed: out: jiffies of the last change
 */
void mrc_path_read_state(struct mrc_path *p, u8 *state, u8 *reason,
			 unsigned long *changed)
{
	spin_lock_bh(&p->lock);
	*state = p->state;
	*reason = p->reason;
	*changed = p->changed;
	spin_unlock_bh(&p->lock);
}

/**
 * mrc_path_change_state() - move a path to a new state
 * @p: the path
 * @from: the state it must be in, or %MRC_PATH_ANY
 * @state: enum mrc_path_state
 * @reason: enum mrc_path_reason
 *
 * The kernel moves a path only from the state it saw (a probe answered
 * after the operator denied the path must not make it good); the operator
 * moves it from any.
 *
 * Any context.
 *
 * Return: the state before: the change happened if it is @from (or, for
 * %MRC_PATH_ANY, if it differs from @state).
 */
u8 mrc_path_change_state(struct mrc_path *p, u8 from, u8 state, u8 reason)
{
	unsigned long flags;
	u8 old;

	spin_lock_irqsave(&p->lock, flags);
	old = p->state;
	if (old != state && (from == MRC_PATH_ANY || old == from)) {
		WRITE_ONCE(p->state, state);
		p->reason = reason;
		p->changed = jiffies;
	}
	spin_unlock_irqrestore(&p->lock, flags);
	return old;
}

static struct mrc_pathset *mrc_pathset_alloc(u32 nr_paths)
{
	return kvzalloc(struct_size_t(struct mrc_pathset, paths, nr_paths),
			GFP_KERNEL);
}

/* A copy of @old (which may be NULL) with room for @nr paths. The copy
 * takes its own reference on each path it lists.
 */
static struct mrc_pathset *mrc_pathset_copy(const struct mrc_pathset *old,
					    const struct in6_addr *prefix,
					    u8 plen, u32 nr)
{
	struct mrc_pathset *set = mrc_pathset_alloc(nr);
	u32 i;

	if (!set)
		return NULL;
	set->prefix = *prefix;
	set->plen = plen;
	if (old) {
		set->min_active = old->min_active;
		set->nr_paths = min(nr, old->nr_paths);
		for (i = 0; i < set->nr_paths; i++) {
			set->paths[i] = old->paths[i];
			refcount_inc(&set->paths[i]->refcnt);
		}
	}
	return set;
}

static void mrc_pathset_free_rcu(struct rcu_head *head)
{
	struct mrc_pathset *set = container_of(head, struct mrc_pathset, rcu);
	u32 i;

	for (i = 0; i < set->nr_paths; i++)
		mrc_path_put(set->paths[i]);
	kvfree(set);
}

/* Publish @set in place of @old (or as new), and free @old after readers. */
static void mrc_pathset_replace(struct mrc_net *mn, struct mrc_pathset *old,
				struct mrc_pathset *set)
{
	lockdep_assert_held(&mn->paths_lock);
	if (old) {
		list_replace_rcu(&old->node, &set->node);
		call_rcu(&old->rcu, mrc_pathset_free_rcu);
	} else {
		list_add_tail_rcu(&set->node, &mn->pathsets);
		mn->nr_pathsets++;
	}
	atomic_inc(&mn->paths_gen);
}

static void mrc_pathset_remove(struct mrc_net *mn, struct mrc_pathset *set)
{
	u32 i;

	lockdep_assert_held(&mn->paths_lock);
	for (i = 0; i < set->nr_paths; i++)
		WRITE_ONCE(set->paths[i]->dead, true);
	list_del_rcu(&set->node);
	mn->nr_pathsets--;
	atomic_inc(&mn->paths_gen);
	call_rcu(&set->rcu, mrc_pathset_free_rcu);
}

static int mrc_path_index(const struct mrc_pathset *set, u16 id)
{
	u32 i;

	for (i = 0; i < set->nr_paths; i++)
		if (set->paths[i]->id == id)
			return i;
	return -1;
}

static int mrc_path_validate(struct net *net, const struct mrc_path_req *p,
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
	struct mrc_path *p;
	u32 nr, i;
	int err;

	err = mrc_path_validate(net, req, extack);
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
		if (old && mrc_path_index(old, req->id) >= 0) {
			NL_SET_ERR_MSG(extack, "a path with this id exists");
			goto out;
		}
	} else {
		for (req->id = 1; old && mrc_path_index(old, req->id) >= 0;
		     req->id++)
			;
	}

	err = -ENOMEM;
	p = mrc_path_create(req);
	if (!p)
		goto out;
	p->prefix = *prefix;
	p->plen = plen;
	set = mrc_pathset_copy(old, prefix, plen, nr + 1);
	if (!set) {
		mrc_path_put(p);
		goto out;
	}
	for (i = nr; i > 0 && set->paths[i - 1]->id > p->id; i--)
		set->paths[i] = set->paths[i - 1];
	set->paths[i] = p;
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
 * A set left empty goes too; min-active shrinks with the set. Connections
 * using a deleted path move its packets to their other paths.
 *
 * Return: 0 or -ENOENT.
 */
int mrc_path_del(struct net *net, const struct in6_addr *prefix, u8 plen,
		 int id, struct netlink_ext_ack *extack)
{
	struct mrc_net *mn = mrc_net(net);
	struct mrc_pathset *old, *set;
	int err = -ENOENT, i;
	u32 j;

	mutex_lock(&mn->paths_lock);
	old = mrc_pathset_find(mn, prefix, plen);
	if (!old) {
		NL_SET_ERR_MSG(extack, "no path set for this prefix");
		goto out;
	}
	if (id < 0 || old->nr_paths == 1) {
		if (id >= 0 && old->paths[0]->id != id) {
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
	set = mrc_pathset_alloc(old->nr_paths - 1);
	if (!set)
		goto out;
	set->prefix = old->prefix;
	set->plen = old->plen;
	for (j = 0; j < old->nr_paths; j++) {
		if (j == i)
			continue;
		set->paths[set->nr_paths++] = old->paths[j];
		refcount_inc(&old->paths[j]->refcnt);
	}
	set->min_active = min(old->min_active, set->nr_paths);
	WRITE_ONCE(old->paths[i]->dead, true);
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
 * The state lives in the path object, which every copy of the set and
 * every connection share, so it changes in place and at once.
 *
 * Return: 0, -ENOENT, or -EINVAL for a state only the kernel sets.
 */
int mrc_path_set_state(struct net *net, const struct in6_addr *prefix, u8 plen,
		       u16 id, u8 state, u8 *old, struct netlink_ext_ack *extack)
{
	struct mrc_net *mn = mrc_net(net);
	struct mrc_pathset *cur;
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
	*old = mrc_path_change_state(cur->paths[i], MRC_PATH_ANY, state,
				     MRC_REASON_OPERATOR);
	if (*old != state) {
		mrc_path_count(cur->paths[i], MRC_PC_CHANGES, 1);
		mrc_nl_path_event(net, cur->paths[i], *old, state,
				  MRC_REASON_OPERATOR, GFP_KERNEL);
	}
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

/**
 * mrc_pathset_lookup() - the set whose prefix matches an address longest
 * @mn: the namespace's MRC state
 * @addr: the destination
 *
 * Caller holds rcu_read_lock().
 *
 * Return: the set, or NULL.
 */
struct mrc_pathset *mrc_pathset_lookup(struct mrc_net *mn,
				       const struct in6_addr *addr)
{
	struct mrc_pathset *set, *best = NULL;

	list_for_each_entry_rcu(set, &mn->pathsets, node)
		if ((!best || set->plen > best->plen) &&
		    ipv6_prefix_equal(addr, &set->prefix, set->plen))
			best = set;
	return best;
}
