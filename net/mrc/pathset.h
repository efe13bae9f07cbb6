/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_PATHSET_H
#define _MRC_PATHSET_H

#include <linux/netlink.h>

#include "mrc_types.h"

/**
 * struct mrc_path_req - a path as asked for by the control plane
 * @segs: SRv6 segment list, first segment first
 * @src: source address, if @has_src
 * @ifindex: egress device, or 0
 * @id: the EV, used only if @has_id
 * @nsegs: number of @segs
 * @has_src: @src is set
 * @has_id: the caller chose the id
 */
struct mrc_path_req {
	struct in6_addr segs[MRC_SEGS_MAX];
	struct in6_addr src;
	int ifindex;
	u16 id;
	u8 nsegs;
	bool has_src;
	bool has_id;
};

/**
 * struct mrc_path_counters - a path's counters summed over every CPU
 * @v: indexed by enum mrc_path_ctr
 */
struct mrc_path_counters {
	u64 v[MRC_PC_MAX];
};

/**
 * mrc_path_count() - count on a path from the data path
 * @p: the path
 * @ctr: enum mrc_path_ctr
 * @n: amount
 */
static inline void mrc_path_count(struct mrc_path *p, enum mrc_path_ctr ctr,
				  u64 n)
{
	struct mrc_path_pcpu *pc = get_cpu_ptr(p->stats);

	u64_stats_update_begin(&pc->syncp);
	u64_stats_add(&pc->v[ctr], n);
	u64_stats_update_end(&pc->syncp);
	put_cpu_ptr(p->stats);
}

int mrc_path_add(struct net *net, const struct in6_addr *prefix, u8 plen,
		 struct mrc_path_req *req, struct netlink_ext_ack *extack);
int mrc_path_del(struct net *net, const struct in6_addr *prefix, u8 plen,
		 int id, struct netlink_ext_ack *extack);
int mrc_path_set_state(struct net *net, const struct in6_addr *prefix, u8 plen,
		       u16 id, u8 state, u8 *old, struct netlink_ext_ack *extack);
int mrc_pathset_set_min_active(struct net *net, const struct in6_addr *prefix,
			       u8 plen, u32 min_active,
			       struct netlink_ext_ack *extack);
void mrc_path_flush(struct net *net);
void mrc_path_put(struct mrc_path *p);
void mrc_path_read_stats(const struct mrc_path *p, struct mrc_path_counters *c);
void mrc_path_read_state(struct mrc_path *p, u8 *state, u8 *reason,
			 unsigned long *changed);
/* mrc_path_change_state() from whatever state the path is in */
#define MRC_PATH_ANY	0

u8 mrc_path_change_state(struct mrc_path *p, u8 from, u8 state, u8 reason);
struct mrc_pathset *mrc_pathset_lookup(struct mrc_net *mn,
				       const struct in6_addr *addr);
struct mrc_pathset *mrc_pathset_find(struct mrc_net *mn,
				     const struct in6_addr *prefix, u8 plen);
void mrc_path_init_net(struct mrc_net *mn);

#endif /* _MRC_PATHSET_H */
