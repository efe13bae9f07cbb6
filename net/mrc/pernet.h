/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_PERNET_H
#define _MRC_PERNET_H

#include <linux/mutex.h>
#include <linux/percpu_counter.h>
#include <linux/ratelimit_types.h>
#include <linux/rhashtable-types.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "cc.h"
#include "mrc_mib.h"
#include "pathset.h"

#define MRC_BIND_HASH_BITS	8

/* Default of net.mrc.outage_timeout_ms: how long a connection with no
 * usable path waits for one before ETIMEDOUT.
 */
#define MRC_OUTAGE_TIMEOUT_DEFAULT	10000

/* Defaults of net.mrc.orphan_timeout_ms and net.mrc.max_orphans: how long
 * a connection may live on after close() to deliver what it sent, and how
 * many may, as tcp_fin_timeout and tcp_max_orphans do for TCP.
 */
#define MRC_ORPHAN_TIMEOUT_DEFAULT	60000
#define MRC_MAX_ORPHANS_DEFAULT		16384

/* Default of net.mrc.rcvbuf_max: the largest receive buffer autotuning
 * grows a connection's to, tcp_rmem[2]'s default.
 */
#define MRC_RCVBUF_MAX_DEFAULT		(6 * SZ_1M)
/* Default of net.mrc.sndbuf_max: the largest send buffer autotuning grows
 * a connection's to, tcp_wmem[2]'s default.
 */
#define MRC_SNDBUF_MAX_DEFAULT		(4 * SZ_1M)

/**
 * struct mrc_net - MRC state of one network namespace
 * @net: the namespace
 * @bind_lock: protects @bind_hash and @nr_bound
 * @bind_hash: bound sockets, hashed by local port
 * @nr_bound: number of sockets in @bind_hash
 * @conns: connections by local connection id
 * @udp_sock: the UDP tunnel socket that sends and receives MRC packets
 * @mib: counters (enum mrc_mib_field)
 * @paths_lock: serialises changes to @pathsets
 * @pathsets: path sets, readers use RCU
 * @nr_pathsets: entries in @pathsets
 * @paths_gen: bumped on every change to @pathsets; connections compare
 * @cc: congestion-control settings
 * @probe_lock: protects @bad_paths, @probe_waiters and the probe fields
 *	of paths
 * @bad_paths: assumed-bad paths being probed
 * @probe_waiters: MRC_CMD_PROBE requests waiting for a reply
 * @probe_timer: sends the probes that are due
 * @probe_rl: the probes sent, at most probe_rate a second
 * @reply_rl: the probe replies sent, at most probe_rate a second
 * @rst_rl: the RSTs sent for packets of no connection or listener, at
 *	most rst_rate a second
 * @outage_timeout_ms: sysctl net.mrc.outage_timeout_ms
 * @data_dscp: sysctl net.mrc.data_dscp: DSCP of the DATA packets we send,
 *	the one switches may trim
 * @trim_dscp: sysctl net.mrc.trim_dscp: DSCP of a DATA packet a switch
 *	trimmed
 * @orphan_timeout_ms: sysctl net.mrc.orphan_timeout_ms
 * @max_orphans: sysctl net.mrc.max_orphans
 * @rcvbuf_max: sysctl net.mrc.rcvbuf_max
 * @sndbuf_max: sysctl net.mrc.sndbuf_max
 * @orphans: connections closed by their application and still delivering
 * @sysctl: the namespace's sysctl table
 */
struct mrc_net {
	possible_net_t net;
	spinlock_t bind_lock;	/* bind_hash, nr_bound */
	struct hlist_head bind_hash[1 << MRC_BIND_HASH_BITS];
	unsigned int nr_bound;
	struct rhashtable conns;
	struct socket *udp_sock;
	struct mrc_mib __percpu *mib;
	struct mutex paths_lock;	/* pathsets, nr_pathsets */
	struct list_head pathsets;
	u32 nr_pathsets;
	atomic_t paths_gen;
	struct mrc_cc_params cc;
	spinlock_t probe_lock;	/* bad_paths, probe_waiters, probe fields */
	struct list_head bad_paths;
	struct list_head probe_waiters;
	struct timer_list probe_timer;
	struct ratelimit_state probe_rl;
	struct ratelimit_state reply_rl;
	struct ratelimit_state rst_rl;
	unsigned int outage_timeout_ms;
	unsigned int data_dscp;
	unsigned int trim_dscp;
	unsigned int orphan_timeout_ms;
	int max_orphans;
	int rcvbuf_max;
	int sndbuf_max;
	atomic_t orphans;
	struct ctl_table_header *sysctl;
};

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
