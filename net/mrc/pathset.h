/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_PATHSET_H
#define _MRC_PATHSET_H

#include <linux/in6.h>
#include <linux/list.h>
#include <linux/mrc.h>
#include <linux/netlink.h>
#include <linux/u64_stats_sync.h>
#include <net/ipv6.h>

#include "mrc_compat.h"

struct mrc_net;

/* Counters of a path, in struct mrc_path_pcpu and struct mrc_path_counters. */
enum mrc_path_ctr {
	MRC_PC_SENT,		/* DATA transmissions */
	MRC_PC_BYTES,		/* DATA payload bytes sent */
	MRC_PC_ACKED,		/* DATA packets acknowledged */
	MRC_PC_RETRANS,		/* DATA retransmissions */
	MRC_PC_ECN,		/* ACKs echoing a congestion mark for the path */
	MRC_PC_TRIMS,		/* NACKs for trimmed packets */
	MRC_PC_LOSSES,		/* packets declared lost */
	MRC_PC_LATE_KEPT,	/* of them, timeouts that left the path good */
	MRC_PC_PROBES,		/* probes sent */
	MRC_PC_CHANGES,		/* state changes */
	MRC_PC_MAX
};

/**
 * struct mrc_path_pcpu - one CPU's share of a path's counters
 * @v: indexed by enum mrc_path_ctr
 * @syncp: consistent 64-bit reads on 32-bit machines
 */
struct mrc_path_pcpu {
	u64_stats_t v[MRC_PC_MAX];
	struct u64_stats_sync syncp;
};

/**
 * struct mrc_path - one path (EV) of a path set
 * @refcnt: the sets that list it and the connections that use it
 * @rcu: frees it after readers are done
 * @opt: prebuilt IPv6 options carrying its SRH, or NULL without segments
 * @stats: counters of every connection that used it
 * @segs: SRv6 segment list, first segment first
 * @src: source address, if @has_src
 * @lock: protects @state, @reason and @changed together
 * @changed: jiffies of the last state change
 * @ifindex: egress device, or 0
 * @srtt_us: smoothed RTT most recently measured by a connection
 * @id: the EV
 * @state: enum mrc_path_state
 * @reason: enum mrc_path_reason of the last state change
 * @nsegs: number of @segs
 * @has_src: @src is set
 * @dead: deleted from its set; connections stop using it
 * @prefix: the prefix of the set it was added to
 * @plen: its length
 * @bad_node: entry in &mrc_net.bad_paths while probed (holds a reference)
 * @probe_dst: the peer probes go to: the last one a connection lost on it
 * @probe_src: the source address probes are sent from
 * @probe_next: jiffies of the next probe
 * @probe_token: token of the probe awaiting a reply, or 0
 * @probe_ok: consecutive probes answered
 * @probe_backoff: doublings of the probe interval since the last answer
 *
 * Everything but the state, the probe fields, the counters and @srtt_us
 * is fixed once the path is published. Connections read @state without
 * the lock. The probe fields are under &mrc_net.probe_lock.
 */
struct mrc_path {
	refcount_t refcnt;
	struct rcu_head rcu;
	struct ipv6_txoptions *opt;
	struct mrc_path_pcpu __percpu *stats;
	struct in6_addr segs[MRC_SEGS_MAX];
	struct in6_addr src;
	spinlock_t lock;	/* state, reason, changed */
	unsigned long changed;
	int ifindex;
	u32 srtt_us;
	u16 id;
	u8 state;
	u8 reason;
	u8 nsegs;
	bool has_src;
	bool dead;
	struct in6_addr prefix;
	u8 plen;
	struct list_head bad_node;
	struct in6_addr probe_dst;
	struct in6_addr probe_src;
	unsigned long probe_next;
	u32 probe_token;
	u8 probe_ok;
	u8 probe_backoff;
};

/**
 * struct mrc_pathset - the paths to one destination prefix
 * @node: entry in &mrc_net.pathsets
 * @rcu: frees a replaced copy after readers are done
 * @prefix: destination prefix, host bits clear
 * @plen: prefix length
 * @min_active: floor of good paths below which losses retire no more
 * @nr_paths: entries in @paths
 * @paths: ordered by id; the set holds a reference on each
 *
 * A set is never changed in place: a writer makes a changed copy and
 * replaces the old one, so readers under RCU always see a whole set.
 * Copies share the path objects.
 */
struct mrc_pathset {
	struct list_head node;
	struct rcu_head rcu;
	struct in6_addr prefix;
	u8 plen;
	u32 min_active;
	u32 nr_paths;
	struct mrc_path *paths[];
};

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
