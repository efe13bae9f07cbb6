/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_CONN_PATHS_H
#define _MRC_CONN_PATHS_H

#include <net/flow.h>

#include "pathset.h"
#include "sched.h"
#include "socket.h"

struct mrc_tx_cb;

/* A path's reordering window grows by at most this many quarters of its
 * srtt, to four srtts.
 */
#define MRC_REO_STEPS_MAX	15

/**
 * struct mrc_cpath - one path as a connection uses it: what every
 *	connection needs to send on it, control packets included
 * @path: the path of a configured set, with a reference; NULL in an
 *	automatic set
 * @dst: cached route, valid while @dst_cookie checks
 * @dst_cookie: route validity cookie of @dst
 * @sport: UDP source port (network order): the path's entropy
 * @flowlabel: IPv6 flow label (network order): the path's entropy
 * @id: the EV
 * @unfit: its SRH does not fit the connection's packet size; unused
 * @pmtu: the path's MTU as a Packet Too Big or its route's device gave
 *	it, when smaller than the connection's packets need; 0 otherwise.
 *	It only falls, for the life of the connection (mrc_cp_set_pmtu())
 * @bad_count: automatic paths only: retirements in a row, for backoff
 * @credit: packets acknowledged without CE since the path was last
 *	chosen for one, at most %MRC_CREDIT_MAX
 * @ecn_until_us: the path is avoided until then after a CE mark
 * @bad_until_us: automatic paths only: retired after a loss until then
 *
 * Written under the socket lock. The state of sending DATA on the path is
 * apart, in &struct mrc_cpstate, which a connection only has once it
 * sends data.
 */
struct mrc_cpath {
	struct mrc_path *path;
	struct dst_entry *dst;
	u32 dst_cookie;
	__be16 sport;
	u16 id;
	__be32 flowlabel;
	bool unfit;
	u8 bad_count;
	u32 pmtu;
	u8 credit;
	u32 ecn_until_us;
	u32 bad_until_us;
};

/**
 * struct mrc_cpstate - the DATA a connection sent on one of its paths
 * @srtt_us: smoothed RTT (0: no sample yet)
 * @rttvar_us: RTT variation
 * @min_rtt_us: smallest RTT seen
 * @inflight: packets whose latest transmission took this path, not yet
 *	delivered or declared lost
 * @ecn_frac: EWMA of the fraction of ACKs echoing CE, in 1/1024
 * @rack_xmit_us: send time of the latest-sent packet on it delivered
 * @rack_rtt_us: RTT of that packet
 * @loss_recover: a loss on this path reduces the window again only once
 *	&mrc_sock.snd_una passes this PSN
 * @lost_xmit_us: send time of the latest-sent packet declared lost on it
 * @reo_steps: quarters of srtt its reordering window has grown by: one
 *	each time a copy of a packet declared lost on it arrived after all,
 *	at most once per srtt of the path
 * @reo_grown_us: when @reo_steps last grew
 * @reo_recoveries: window reductions for loss on it since @reo_steps last
 *	grew
 * @undo: this connection retired the path, and proof that the packet
 *	whose loss did it arrived would undo that (mrc_cp_undo())
 * @undo_psn: the PSN of that packet
 * @undo_tsval: its send time on the path
 * @undo_retired_us: when the path was retired
 * @late_run: packets sent on it since the latest one delivered that were
 *	declared lost for its timeout (the path went silent): at
 *	mrc_fail_losses the path is due for retirement (mrc_cp_late())
 * @late_first_us: send time of the first of them
 * @late_last_us: send time of the latest of them
 * @late_gen: &mrc_sock.busy_gen when the latest of them was declared lost
 * @late_until_us: once due, when the path will have been silent for three
 *	times its timeout since then, and is retired (0: not due)
 * @late_seen_us: once due, a packet sent after this one on another path
 *	must have been delivered for the retirement: the other paths
 *	delivered during the silence (its last timeout)
 * @late_psn: the packet whose loss made it due, for the undo
 * @late_xmit_us: its send time
 * @qdrop_run: transmissions on it in a row that a queue of this host
 *	dropped (NET_XMIT_DROP): a device that takes nothing for it while
 *	other devices take other paths' transmissions fails it
 *	(mrc_local_failed())
 * @qdrop_first_us: when the first of them was sent
 * @qdrop_last_us: when a queue of this host last dropped a transmission
 *	on it; 0 never
 * @left_us: when a transmission on it last left this host (a queue took
 *	it); 0 never
 * @sent: DATA transmissions
 * @bytes: DATA payload bytes sent
 * @acked: DATA packets acknowledged
 * @retrans: DATA retransmissions
 * @ecn: ACKs echoing CE for it
 * @trims: NACKs for trimmed packets sent on it
 * @losses: packets declared lost on it
 *
 * Written under the socket lock. Netlink dumps read it under RCU with
 * READ_ONCE(), one field at a time.
 */
struct mrc_cpstate {
	u32 srtt_us;
	u32 rttvar_us;
	u32 min_rtt_us;
	u32 inflight;
	u32 ecn_frac;
	u32 rack_xmit_us;
	u32 rack_rtt_us;
	u32 loss_recover;
	u32 lost_xmit_us;
	u8 reo_steps;
	u8 reo_recoveries;
	bool undo;
	u32 reo_grown_us;
	u32 undo_psn;
	u32 undo_tsval;
	u32 undo_retired_us;
	u8 late_run;
	u32 late_first_us;
	u32 late_last_us;
	u32 late_gen;
	u32 late_until_us;
	u32 late_seen_us;
	u32 late_psn;
	u32 late_xmit_us;
	u8 qdrop_run;
	u32 qdrop_first_us;
	u32 qdrop_last_us;
	u32 left_us;
	u64 sent;
	u64 bytes;
	u64 acked;
	u64 retrans;
	u64 ecn;
	u64 trims;
	u64 losses;
};

/**
 * struct mrc_cpaths - the paths a connection sprays over
 * @rcu: frees it after netlink readers are done
 * @gen: &mrc_net.paths_gen when it was built
 * @salt: random per connection: spreads connections' entropy
 * @nr: entries in @p
 * @is_auto: no set matched: @nr entropy-only paths over the routing table
 * @cached: allocated from the module's cache of arrays of its default
 *	size, not by kvzalloc()
 * @min_active: the set's floor of good paths
 * @srh_room: bytes of SRH the connection's packet size leaves room for
 * @rr: next entry for round robin
 * @ctrl_rr: next entry for control packets
 * @last: entry the latest packet took
 * @burst_left: packets still to put on @last before choosing again
 * @cell: packets of a flowcell, set by the sender before it chooses:
 *	consecutive packets put on one path (unless spray_burst says)
 * @explore: choices since the latest one that ignored credits
 * @verify: 1 + the entry whose late run has just become due for
 *	retirement (mrc_cp_late()): the next DATA packet that may take it
 *	does, whatever its credits, to see whether it still delivers; 0
 *	for none
 * @st: the state of sending on each entry of @p, in the same order;
 *	NULL until the connection first sends DATA (mrc_cp_start()), so
 *	that a connection that never does, idle or only receiving, does
 *	not hold it. Freed with the array.
 * @p: the paths, in the set's order (by id)
 */
struct mrc_cpaths {
	struct rcu_head rcu;
	u32 gen;
	u32 salt;
	u16 nr;
	bool is_auto;
	bool cached;
	u32 min_active;
	u32 srh_room;
	u16 rr;
	u16 ctrl_rr;
	u16 last;
	u16 burst_left;
	u16 cell;
	u16 explore;
	u16 verify;
	struct mrc_cpstate __rcu *st;
	struct mrc_cpath p[];
};

/* The socket lock protects the pointer; netlink readers use RCU. */
static inline struct mrc_cpaths *mrc_cps(struct mrc_sock *msk)
{
	return rcu_dereference_protected(msk->paths,
					 lockdep_sock_is_held(&msk->sk));
}

/* The sending state of the connection's paths, in the order of
 * mrc_cps(msk)->p (the socket lock protects the pointer), or NULL before
 * the connection sends its first DATA (mrc_cp_start()).
 */
static inline struct mrc_cpstate *mrc_cp_sts(struct mrc_sock *msk)
{
	return rcu_dereference_protected(mrc_cps(msk)->st,
					 lockdep_sock_is_held(&msk->sk));
}

/* A reordering window of 1 + @steps quarters of @srtt, at least a jiffy. */
static inline u32 mrc_reo_wnd(u32 srtt, u8 steps)
{
	return max_t(u32, srtt / 4 * (1 + steps), jiffies_to_usecs(1));
}

/* The reordering window of a path: the connection's srtt stands in for
 * the path's before the path has a sample. It is the path's own:
 * reordering on one path says nothing of another.
 */
static inline u32 mrc_reo_wnd_us(const struct mrc_sock *msk,
				 const struct mrc_cpstate *cs)
{
	return mrc_reo_wnd(cs->srtt_us ?: msk->srtt_us, cs->reo_steps);
}

/* The path for the next DATA packet (see sched.c), or -1. */
static inline int mrc_cp_choose(struct sock *sk, int avoid, u32 now)
{
	return mrc_cp_pick(mrc_cps(mrc_sk(sk)), avoid, now);
}

/* The path for a control packet, preferring @ev if usable, or -1. */
static inline int mrc_cp_choose_ctrl(struct sock *sk, int ev)
{
	return mrc_cp_pick_ctrl(mrc_cps(mrc_sk(sk)), ev);
}

int mrc_mpath_init(void);
void mrc_mpath_exit(void);
int mrc_cp_init(struct sock *sk, gfp_t gfp);
int mrc_cp_start(struct sock *sk, gfp_t gfp);
void mrc_cp_destroy(struct sock *sk);
void mrc_cp_refresh(struct sock *sk);
bool mrc_cp_any_usable(struct sock *sk);
bool mrc_cp_retire(struct sock *sk, const struct mrc_tx_cb *cb);
void mrc_cp_late(struct sock *sk, const struct mrc_tx_cb *cb, u32 tmo);

/* A path's silence is over, or no longer news: its late run ends, and it
 * is not due for retirement.
 */
static inline void mrc_cp_late_end(struct mrc_cpstate *cs)
{
	cs->late_run = 0;
	cs->late_until_us = 0;
}

/* A copy of a packet declared lost on the path arrived after all: the
 * path reorders more than its window allowed. The window grows by a
 * quarter of its srtt, as RACK's does on a DSACK, and at most once per
 * srtt (RFC 8985, 6.2 step 4): the copies of one late burst, declared
 * lost together, are one piece of evidence, not many.
 */
static inline void mrc_cp_reordered(struct mrc_cpstate *cs, u32 now)
{
	cs->reo_recoveries = 0;
	if (cs->reo_steps && (s32)(now - cs->reo_grown_us) < (s32)cs->srtt_us)
		return;
	WRITE_ONCE(cs->reo_steps,
		   min_t(u8, cs->reo_steps + 1, MRC_REO_STEPS_MAX));
	cs->reo_grown_us = now;
}

void mrc_cp_late_due(struct sock *sk, u32 now);
void mrc_cp_on_echo(struct sock *sk, u32 i, u32 tsecr);
void mrc_cp_on_dup(struct sock *sk, u32 i, u32 tsecr);
void mrc_cp_undo(struct sock *sk, u32 i, u32 tsecr, u32 cum,
		 const unsigned long *sack);
void mrc_cp_on_xmit(struct sock *sk, u32 i, u32 n, u32 bytes, u32 retrans);
void mrc_cp_on_delivered(struct sock *sk, const struct mrc_tx_cb *cb, u32 now,
			 bool ce, u32 tsecr);
void mrc_cp_on_lost(struct sock *sk, struct mrc_tx_cb *cb);
void mrc_cp_charge_loss(struct sock *sk, u32 i, u32 xmit_us);
void mrc_cp_on_trimmed(struct sock *sk, const struct mrc_tx_cb *cb);
void mrc_cp_on_unsent(struct sock *sk, const struct mrc_tx_cb *cb);
void mrc_cp_on_rtt(struct sock *sk, u32 i, u32 rtt_us);
void mrc_cp_on_ecn(struct sock *sk, u32 i, bool ce, u32 now);
struct dst_entry *mrc_cp_route(struct sock *sk, u32 i, struct flowi6 *fl6);
struct ipv6_txoptions *mrc_cp_opt(struct sock *sk, u32 i);

#endif /* _MRC_CONN_PATHS_H */
