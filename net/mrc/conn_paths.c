// SPDX-License-Identifier: GPL-2.0
/*
 * The paths of one connection: which set it sprays over, and the state
 * MRC keeps per path (RTT, packets in flight,
 * ECN, losses), updated by every ACK in softirq under the socket lock.
 *
 * Which path each packet takes is sched.c's.
 */
#include <linux/jhash.h>
#include <linux/slab.h>
#include <net/ip6_fib.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>

#include "conn.h"
#include "conn_paths.h"
#include "netlink.h"
#include "output.h"
#include "recovery.h"
#include "params.h"
#include "pathset.h"
#include "pernet.h"
#include "probe.h"

static u32 mrc_cp_auto_nr(void)
{
	return clamp_t(u32, READ_ONCE(mrc_auto_paths), 1, MRC_PATHS_PER_SET_MAX);
}

static void mrc_cp_entropy(struct mrc_cpath *cp, u32 salt)
{
	/* Consecutive ids give distinct ports and labels in a connection;
	 * the salt spreads connections.
	 */
	cp->sport = htons(0xc000 | ((salt + cp->id) & 0x3fff));
	cp->flowlabel = htonl(((salt >> 14) + cp->id) & 0xfffff);
}

/* Entries of the path arrays that come from mrc_cpaths_cache: the default
 * auto_paths. kmalloc() would round the 696 bytes of 16 entries up to
 * 1 KB, in every connection of an automatic set.
 */
#define MRC_CPATHS_CACHED	16

static struct kmem_cache *mrc_cpaths_cache;

static struct mrc_cpaths *mrc_cp_alloc(u32 nr, gfp_t gfp)
{
	size_t size = struct_size_t(struct mrc_cpaths, p, nr);
	struct mrc_cpaths *cps;

	if (nr <= MRC_CPATHS_CACHED && size > SZ_512) {
		cps = kmem_cache_zalloc(mrc_cpaths_cache, gfp);
		if (cps)
			cps->cached = true;
		return cps;
	}
	return kvzalloc(size, gfp);
}

static void mrc_cp_free(struct mrc_cpaths *cps)
{
	kvfree(rcu_dereference_protected(cps->st, true));
	if (cps->cached)
		kmem_cache_free(mrc_cpaths_cache, cps);
	else
		kvfree(cps);
}

/**
 * mrc_mpath_init() - create the cache of connections' path arrays
 *
 * Return: 0 or -ENOMEM.
 */
int mrc_mpath_init(void)
{
	mrc_cpaths_cache = kmem_cache_create("mrc_cpaths",
					     struct_size_t(struct mrc_cpaths, p,
							   MRC_CPATHS_CACHED),
					     0, 0, NULL);
	return mrc_cpaths_cache ? 0 : -ENOMEM;
}

/**
 * mrc_mpath_exit() - destroy that cache, once RCU callbacks have run
 */
void mrc_mpath_exit(void)
{
	kmem_cache_destroy(mrc_cpaths_cache);
}

static struct mrc_cpstate *mrc_cp_st_alloc(u32 nr, gfp_t gfp)
{
	return kvcalloc(nr, sizeof(struct mrc_cpstate), gfp);
}

static u32 mrc_cp_srh_len(const struct mrc_path *p)
{
	return p && p->opt ? p->opt->opt_nflen : 0;
}

/* The paths to @daddr as they are now, carrying over the state of the
 * paths @old shares with them (and its sending state, if it has one).
 * Tries again if the sets change meanwhile.
 */
static struct mrc_cpaths *mrc_cp_build(struct net *net,
				       const struct in6_addr *daddr,
				       struct mrc_cpaths *old, u32 salt,
				       gfp_t gfp)
{
	struct mrc_cpstate *ost, *st = NULL;
	struct mrc_net *mn = mrc_net(net);
	struct mrc_pathset *set;
	struct mrc_cpaths *cps;
	unsigned int tries;
	u32 nr, gen, i, room = 0;

	for (tries = 0; tries < 4; tries++) {
		gen = atomic_read(&mn->paths_gen);
		rcu_read_lock();
		set = mrc_pathset_lookup(mn, daddr);
		nr = set ? set->nr_paths : mrc_cp_auto_nr();
		rcu_read_unlock();

		cps = mrc_cp_alloc(nr, gfp);
		if (!cps)
			return NULL;
		rcu_read_lock();
		set = mrc_pathset_lookup(mn, daddr);
		if ((set ? set->nr_paths : mrc_cp_auto_nr()) == nr)
			break;
		rcu_read_unlock();
		mrc_cp_free(cps);
		cps = NULL;
	}
	if (!cps)
		return NULL;
	ost = old ? rcu_dereference_protected(old->st, true) : NULL;
	if (ost) {
		st = mrc_cp_st_alloc(nr, gfp);
		if (!st) {
			rcu_read_unlock();
			mrc_cp_free(cps);
			return NULL;
		}
		RCU_INIT_POINTER(cps->st, st);
	}

	cps->gen = gen;
	cps->nr = nr;
	cps->salt = salt;
	cps->is_auto = !set;
	cps->min_active = set ? set->min_active : 0;
	for (i = 0; i < nr; i++) {
		struct mrc_cpath *cp = &cps->p[i];

		if (set) {
			cp->path = set->paths[i];
			/* The set holds a reference until a grace period ends. */
			refcount_inc(&cp->path->refcnt);
			cp->id = cp->path->id;
			room = max(room, mrc_cp_srh_len(cp->path));
		} else {
			cp->id = i;
		}
	}
	rcu_read_unlock();

	cps->srh_room = old ? old->srh_room : room;
	for (i = 0; i < nr; i++) {
		struct mrc_cpath *cp = &cps->p[i];
		struct mrc_path *path = cp->path;
		int j = old ? mrc_cp_find(old, cp->id) : -1;

		if (j >= 0 && old->p[j].path == path) {
			/* Same path: keep its state; the route moves over. */
			*cp = old->p[j];
			old->p[j].dst = NULL;
			cp->path = path;
			if (st)
				st[i] = ost[j];
		}
		cp->unfit = mrc_cp_srh_len(path) > cps->srh_room;
		mrc_cp_entropy(cp, salt);
	}
	return cps;
}

static void mrc_cp_free_rcu(struct rcu_head *head)
{
	mrc_cp_free(container_of(head, struct mrc_cpaths, rcu));
}

static void mrc_cp_release(struct mrc_cpaths *cps)
{
	u32 i;

	if (!cps)
		return;
	for (i = 0; i < cps->nr; i++) {
		dst_release(cps->p[i].dst);
		mrc_path_put(cps->p[i].path);
	}
	call_rcu(&cps->rcu, mrc_cp_free_rcu);
}

/**
 * mrc_cp_init() - choose the paths of a new connection
 * @sk: the socket, locked, with its peer address set
 * @gfp: allocation flags
 *
 * The set whose prefix matches the peer longest, or else an automatic set
 * of auto_paths entropy-only paths.
 *
 * Return: 0 or -ENOMEM.
 */
int mrc_cp_init(struct sock *sk, gfp_t gfp)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_cpaths *cps;

	cps = mrc_cp_build(sock_net(sk), &msk->daddr, NULL, get_random_u32(),
			   gfp);
	if (!cps)
		return -ENOMEM;
	mrc_cp_release(rcu_replace_pointer(msk->paths, cps, true));
	return 0;
}

/**
 * mrc_cp_start() - give the connection's paths their sending state
 * @sk: the socket, locked, with its paths (mrc_cp_init())
 * @gfp: allocation flags
 *
 * Before its first DATA: a connection that never sends any (idle, or
 * only receiving) does without, 120 bytes a path.
 *
 * Return: 0 or -ENOMEM.
 */
int mrc_cp_start(struct sock *sk, gfp_t gfp)
{
	struct mrc_cpaths *cps = mrc_cps(mrc_sk(sk));
	struct mrc_cpstate *st;

	if (rcu_access_pointer(cps->st))
		return 0;
	st = mrc_cp_st_alloc(cps->nr, gfp);
	if (!st)
		return -ENOMEM;
	rcu_assign_pointer(cps->st, st);
	return 0;
}

/**
 * mrc_cp_destroy() - release the paths of a socket
 * @sk: the socket, no longer used by anything else
 */
void mrc_cp_destroy(struct sock *sk)
{
	mrc_cp_release(rcu_replace_pointer(mrc_sk(sk)->paths, NULL, true));
}

/* A path's own timeout: srtt + max(4 rttvar, a jiffy), plus the longest
 * the peer may hold an ACK (ack_delay_us rounded up, and a jiffy for the
 * timer), since its RTT samples leave that out, plus its reordering
 * window: a packet of the path is declared lost for time only after that
 * (mrc_detect_losses()), and the RTO, which retransmits from a window of
 * two packets, must not come first.
 */
static u32 mrc_cp_rto(const struct mrc_sock *msk, const struct mrc_cpstate *cs)
{
	u32 g = jiffies_to_usecs(1);

	if (!cs->srtt_us)
		return 0;
	return cs->srtt_us + max(4 * cs->rttvar_us, g) + mrc_ack_hold_us() +
	       mrc_reo_wnd_us(msk, cs);
}

/* Find the slowest path again, after it got faster or the view changed. */
static void mrc_cp_rto_scan(struct mrc_sock *msk)
{
	struct mrc_cpstate *st = mrc_cp_sts(msk);
	u32 i, rto;

	msk->path_rto_us = 0;
	msk->path_rto_idx = 0;
	for (i = 0; st && i < mrc_cps(msk)->nr; i++) {
		rto = mrc_cp_rto(msk, &st[i]);
		if (rto > msk->path_rto_us) {
			msk->path_rto_us = rto;
			msk->path_rto_idx = i;
		}
	}
}

/**
 * mrc_cp_refresh() - follow changes to the path sets
 * @sk: the socket, locked
 *
 * When a set changed since the connection built its view, rebuild it.
 * Packets in flight on a path that is gone are declared lost at once, so
 * that they are retransmitted on the remaining paths.
 */
void mrc_cp_refresh(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_cpaths *old = mrc_cps(msk), *cps;
	struct net *net = sock_net(sk);
	struct mrc_cpstate *st;
	u32 psn, i;

	if (!old || old->gen == (u32)atomic_read(&mrc_net(net)->paths_gen))
		return;
	cps = mrc_cp_build(net, &msk->daddr, old, old->salt, GFP_ATOMIC);
	if (!cps)
		return;		/* keep the old view; try again next time */

	st = rcu_dereference_protected(cps->st, true);
	for (i = 0; st && i < cps->nr; i++)
		st[i].inflight = 0;
	for (psn = msk->snd_una; mrc_psn_before(psn, msk->snd_nxt);
	     psn = mrc_psn_add(psn, 1)) {
		struct mrc_txpkt *pkt = mrc_txq_get(msk, psn);
		struct mrc_tx_cb *cb;
		int j;

		if (!pkt)
			continue;
		cb = MRC_TX_CB(pkt);
		/* Entries move: which copy was lost where is forgotten. */
		cb->lost_pidx = MRC_PIDX_NONE;
		if (cb->pidx == MRC_PIDX_NONE)
			continue;	/* lost with an earlier path */
		j = mrc_cp_find(cps, old->p[cb->pidx].id);
		if (j < 0 || cps->p[j].path != old->p[cb->pidx].path) {
			cb->pidx = MRC_PIDX_NONE;
			if (!cb->lost) {
				mrc_cb_set_lost(msk, cb);
				MRC_INC(net, PATH_MOVED);
			}
			continue;
		}
		cb->pidx = j;
		if (!cb->lost)
			st[j].inflight++;
	}
	rcu_assign_pointer(msk->paths, cps);
	mrc_cp_release(old);
	mrc_cp_rto_scan(msk);
}

/**
 * mrc_cp_any_usable() - the connection has a path it may send on
 * @sk: the socket, locked
 *
 * Return: some path is usable.
 */
bool mrc_cp_any_usable(struct sock *sk)
{
	struct mrc_cpaths *cps = mrc_cps(mrc_sk(sk));
	u32 i;

	for (i = 0; cps && i < cps->nr; i++)
		if (mrc_cp_usable(&cps->p[i]))
			return true;
	return false;
}

/**
 * mrc_cp_on_xmit() - DATA packets go out on a path
 * @sk: the socket, locked
 * @i: the entry of the path, which the caller put in each packet's
 *	&mrc_tx_cb.pidx
 * @n: the packets: one, or a GSO batch's
 * @bytes: their payload
 * @retrans: how many of them are retransmissions
 */
void mrc_cp_on_xmit(struct sock *sk, u32 i, u32 n, u32 bytes, u32 retrans)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_cpath *cp = &mrc_cps(msk)->p[i];
	struct mrc_cpstate *cs = &mrc_cp_sts(msk)[i];

	cs->inflight += n;
	WRITE_ONCE(cs->sent, cs->sent + n);
	WRITE_ONCE(cs->bytes, cs->bytes + bytes);
	if (retrans)
		WRITE_ONCE(cs->retrans, cs->retrans + retrans);
	if (cp->path) {
		struct mrc_path_pcpu *pc = get_cpu_ptr(cp->path->stats);

		u64_stats_update_begin(&pc->syncp);
		u64_stats_add(&pc->v[MRC_PC_SENT], n);
		u64_stats_add(&pc->v[MRC_PC_BYTES], bytes);
		if (retrans)
			u64_stats_add(&pc->v[MRC_PC_RETRANS], retrans);
		u64_stats_update_end(&pc->syncp);
		put_cpu_ptr(cp->path->stats);
	}
}

/**
 * mrc_cp_on_delivered() - a packet was acknowledged
 * @sk: the socket, locked
 * @cb: the packet
 * @now: time the ACK arrived
 * @ce: the ACK echoed a congestion mark for this packet's path (its echoed EV)
 * @tsecr: the timestamp the ACK echoed
 *
 * Updates the path's RACK state with the packet, and gives the path a
 * credit for the next packets, or takes all its credits away if the ACK
 * carried a mark for it.
 */
void mrc_cp_on_delivered(struct sock *sk, const struct mrc_tx_cb *cb, u32 now,
			 bool ce, u32 tsecr)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_cpaths *cps = mrc_cps(msk);
	struct mrc_cpath *cp;
	struct mrc_cpstate *cs;
	s32 excess;

	/* Sent on a path since deleted: its send time and RTT say nothing
	 * of the paths left, and RACK must not compare theirs with it.
	 */
	if (cb->pidx == MRC_PIDX_NONE)
		return;
	cp = &cps->p[cb->pidx];
	cs = &mrc_cp_sts(msk)[cb->pidx];
	if (!cb->lost && cs->inflight)
		cs->inflight--;
	WRITE_ONCE(cs->acked, cs->acked + 1);
	/* The ACK that first covers the packet echoes the copy declared
	 * lost: that copy was late, not lost (it filled the hole before any
	 * other copy came).
	 */
	if (cb->lost_pidx != MRC_PIDX_NONE && tsecr == cb->lost_xmit_us)
		mrc_cp_reordered(&mrc_cp_sts(msk)[cb->lost_pidx], now);
	cp->bad_count = 0;
	/* A retransmission is a RACK reference only if the ACK echoes its
	 * own timestamp. Otherwise an earlier copy may be what arrived:
	 * one moved off a path retired by mistake arrives over that path,
	 * whose RTT may be many times this one's, and taking the copy's
	 * send time would declare lost what this path sent before it
	 * (RFC 8985 guesses with the path's minimum RTT, which only holds
	 * when both copies took the same path).
	 */
	if (cb->xmits > 1 && tsecr != cb->xmit_us)
		goto count;
	/* The path delivered what it was given after its silence began. */
	if (cs->late_run && !mrc_before(cb->xmit_us, cs->late_first_us))
		mrc_cp_late_end(cs);
	if (!cs->rack_xmit_us || mrc_after(cb->xmit_us, cs->rack_xmit_us)) {
		cs->rack_xmit_us = cb->xmit_us;
		cs->rack_rtt_us = now - cb->xmit_us;
	}
	excess = now - cb->xmit_us - cs->srtt_us - 4 * cs->rttvar_us;
	if (!msk->rack_xmit_us || mrc_after(cb->xmit_us, msk->rack_xmit_us)) {
		/* A packet sent later and caught by the same stall is as
		 * late, less how much later it was sent. Its own measure can
		 * say less: the late ACKs before it fed their RTTs to its
		 * path's srtt and variation (one burst of ACKs held 300 ms
		 * took a path's from 16 and 6 ms to 52 and 76), which must
		 * not make the stall look over while packets it held are
		 * still out. Once what was sent after the stall is
		 * delivered, the old excess is spent.
		 */
		s32 kept = msk->rack_xmit_us ?
			   (s32)(msk->rack_excess_us -
				 (cb->xmit_us - msk->rack_xmit_us)) : 0;

		if (!cs->srtt_us || excess < kept)
			excess = kept;
		msk->rack_xmit_us = cb->xmit_us;
		msk->rack_excess_us = max(excess, 0);
	} else if (cs->srtt_us && excess > (s32)msk->rack_excess_us) {
		/* An older packet, acknowledged later than its own path
		 * allows, by an ACK with nothing sent later in it (so far):
		 * the ACK is late for everything, as when the peer's ACKs
		 * were held up and the first of them arrive, and the paths'
		 * timeouts must grow by as much as for a late latest delivery.
		 */
		msk->rack_excess_us = excess;
	}
count:
	if (cp->path)
		mrc_path_count(cp->path, MRC_PC_ACKED, 1);
	/* A mark takes every credit away: a path that marks half its
	 * packets would otherwise keep enough credits to take most of its
	 * turns.
	 */
	if (ce)
		cp->credit = 0;
	else if (mrc_cp_usable(cp) && cp->credit < MRC_CREDIT_MAX)
		cp->credit++;
}

/**
 * mrc_cp_on_trimmed() - a NACK says a switch trimmed a packet of this path
 * @sk: the socket, locked
 * @cb: the packet, just marked trimmed; it stays in flight on the path
 *	until mrc_cp_on_unsent()
 */
void mrc_cp_on_trimmed(struct sock *sk, const struct mrc_tx_cb *cb)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_cpstate *cs = &mrc_cp_sts(msk)[cb->pidx];
	struct mrc_path *p = mrc_cps(msk)->p[cb->pidx].path;

	msk->last_trim_us = mrc_now_us() | 1;
	WRITE_ONCE(cs->trims, cs->trims + 1);
	if (p)
		mrc_path_count(p, MRC_PC_TRIMS, 1);
}

/**
 * mrc_cp_on_unsent() - a packet no longer counts in flight on its path
 * @sk: the socket, locked
 * @cb: the packet: trimmed and just marked for retransmission, or about
 *	to be sent again as a tail probe
 */
void mrc_cp_on_unsent(struct sock *sk, const struct mrc_tx_cb *cb)
{
	struct mrc_cpstate *cs = &mrc_cp_sts(mrc_sk(sk))[cb->pidx];

	if (cs->inflight)
		cs->inflight--;
}

/**
 * mrc_cp_on_lost() - a packet was declared lost on its path
 * @sk: the socket, locked
 * @cb: the packet, just marked lost
 *
 * The packet remembers which copy was declared lost, and the path the
 * latest of its packets declared lost: if that copy arrives after all,
 * the path's reordering window grows (mrc_cp_on_delivered(), and
 * mrc_cp_on_dup() for a copy that arrived as a duplicate).
 */
void mrc_cp_on_lost(struct sock *sk, struct mrc_tx_cb *cb)
{
	struct mrc_cpstate *cs = &mrc_cp_sts(mrc_sk(sk))[cb->pidx];

	cb->lost_pidx = cb->pidx;
	cb->lost_xmit_us = cb->xmit_us;
	cb->probed = 0;
	if (cs->inflight)
		cs->inflight--;
	mrc_cp_charge_loss(sk, cb->pidx, cb->xmit_us);
}

/**
 * mrc_cp_charge_loss() - a copy sent on a path was lost
 * @sk: the socket, locked
 * @i: the entry of the path
 * @xmit_us: when the copy was sent
 *
 * The path's loss count, the latest of its copies known lost (for a late
 * arrival to show), and its credits.
 */
void mrc_cp_charge_loss(struct sock *sk, u32 i, u32 xmit_us)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_cpstate *cs = &mrc_cp_sts(msk)[i];
	struct mrc_path *p = mrc_cps(msk)->p[i].path;

	if (!cs->lost_xmit_us || mrc_after(xmit_us, cs->lost_xmit_us))
		cs->lost_xmit_us = xmit_us;
	WRITE_ONCE(cs->losses, cs->losses + 1);
	if (p)
		mrc_path_count(p, MRC_PC_LOSSES, 1);
	/* Skipped until it delivers again, as after a mark: a path that
	 * drops for congestion gets fewer packets, and one that failed
	 * gets few while its loss run grows (mrc_cp_late()).
	 */
	mrc_cps(msk)->p[i].credit = 0;
}

/**
 * mrc_cp_late() - a packet was declared lost for its path's timeout, or
 *	by the RTO
 * @sk: the socket, locked
 * @cb: the packet, just marked lost, still as it was sent on the path
 * @tmo: the timeout it was declared lost for
 *
 * Nothing sent on the path after it was delivered, while a packet sent
 * after it on another path was: the path may have gone silent. One such
 * loss is no proof (a delay spike, or a queue that dropped a tail), so it
 * only adds to the path's run; at mrc_fail_losses of them in a row, with
 * nothing sent on the path since the first one delivered, the path is due
 * for retirement, which the first ACK after it has been silent for three
 * times its timeout since the first was sent carries out
 * (mrc_cp_late_due()): a spike of delay that holds several packets at
 * once ends before that.
 */
void mrc_cp_late(struct sock *sk, const struct mrc_tx_cb *cb, u32 tmo)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_cpstate *cs = &mrc_cp_sts(msk)[cb->pidx];
	struct mrc_path *p = mrc_cps(msk)->p[cb->pidx].path;
	u32 until;

	/* A run is the losses of one silence. When the connection went idle
	 * after the run's latest loss and this packet came more than three
	 * timeouts after that one, the path was not silent but unused: the
	 * run is old news, and this loss starts a new one. A path without
	 * credits gets a packet only now and then (mrc_cp_pick()): however
	 * far apart, its losses in a busy connection make one run.
	 */
	if (cs->late_run && cs->late_gen != msk->busy_gen &&
	    (s32)(cb->xmit_us - cs->late_last_us) > 3 * (s32)tmo) {
		mrc_cp_late_end(cs);
	}
	if (!cs->late_run)
		cs->late_first_us = cb->xmit_us;
	if (!cs->late_run || mrc_after(cb->xmit_us, cs->late_last_us))
		cs->late_last_us = cb->xmit_us;
	cs->late_gen = msk->busy_gen;
	if (cs->late_run < U8_MAX)
		cs->late_run++;
	if (cs->late_run < clamp_t(u32, READ_ONCE(mrc_fail_losses), 1, U8_MAX)) {
		MRC_INC(sock_net(sk), PATH_LATE_KEPT);
		if (p)
			mrc_path_count(p, MRC_PC_LATE_KEPT, 1);
		return;
	}
	/* The shortest timeout of the run sets the wait: an RTO's is longer
	 * than the path's own.
	 */
	until = (cs->late_first_us + 3 * tmo) | 1;
	if (!cs->late_until_us) {
		cs->late_psn = cb->psn;
		cs->late_xmit_us = cb->xmit_us;
		/* The run may be one burst that a full queue dropped, after
		 * which the path, its credits gone, got nothing more: the
		 * next packet goes on it, and its delivery before the
		 * retirement ends the run (mrc_cp_on_delivered()).
		 */
		mrc_cps(msk)->verify = cb->pidx + 1;
	} else if (!mrc_before(until, cs->late_until_us)) {
		return;
	}
	cs->late_until_us = until;
	cs->late_seen_us = cs->late_first_us + 2 * tmo;
	if (!msk->late_due_us || mrc_before(until, msk->late_due_us))
		msk->late_due_us = until;
}

/**
 * mrc_cp_on_echo() - an ACK echoes a packet sent on a path
 * @sk: the socket, locked
 * @i: the entry of the path the ACK echoes
 * @tsecr: the send time of the packet it echoes
 *
 * The packet arrived over the path, whatever became of it since (it may
 * have been retransmitted on another path, and be counted there): sent
 * after the path's silence began, it ends the silence.
 */
void mrc_cp_on_echo(struct sock *sk, u32 i, u32 tsecr)
{
	struct mrc_cpstate *st = mrc_cp_sts(mrc_sk(sk));

	if (st && tsecr && st[i].late_run &&
	    !mrc_before(tsecr, st[i].late_first_us)) {
		mrc_cp_late_end(&st[i]);
	}
}

/**
 * mrc_cp_on_dup() - an ACK says the peer received a packet twice
 * @sk: the socket, locked
 * @i: the entry of the path the duplicate copy was sent on
 * @tsecr: the send time of that copy
 *
 * The duplicate is either a copy declared lost on the path that arrived
 * after its retransmission (the path reorders more than its window
 * allowed), or a retransmission that arrived after the copy it replaced
 * (whose ACK told mrc_cp_on_delivered() of that copy's path already). A
 * copy sent no later than the latest packet declared lost on its path is
 * taken for the first kind.
 */
void mrc_cp_on_dup(struct sock *sk, u32 i, u32 tsecr)
{
	struct mrc_cpstate *st = mrc_cp_sts(mrc_sk(sk));

	if (st && st[i].lost_xmit_us && !mrc_after(tsecr, st[i].lost_xmit_us))
		mrc_cp_reordered(&st[i], mrc_now_us());
}

/* When a queue of this host last dropped a transmission on path entry @i,
 * or on another path that leaves through the same device: 0 if none did
 * since @since.
 */
static u32 mrc_cp_local_full(struct mrc_sock *msk, u32 i, u32 since)
{
	const struct mrc_cpstate *st = mrc_cp_sts(msk);
	const struct mrc_cpaths *cps = mrc_cps(msk);
	const struct dst_entry *dst = cps->p[i].dst;
	u32 j, last = 0;

	for (j = 0; j < cps->nr; j++) {
		u32 t = st[j].qdrop_last_us;

		if (j != i && (!dst || !cps->p[j].dst ||
			       cps->p[j].dst->dev != dst->dev))
			continue;
		if (t && mrc_after(t, since) && (!last || mrc_after(t, last)))
			last = t;
	}
	return last;
}

/**
 * mrc_cp_late_due() - an ACK came: retire the paths due for it whose time
 *	has come
 * @sk: the socket, locked
 * @now: the clock, as mrc_clock_us() gives it
 */
void mrc_cp_late_due(struct sock *sk, u32 now)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_cpstate *st;
	u32 i, next = 0, drop, tmo;

	/* Nothing due, or not yet: no walk over the paths on every ACK. A
	 * run that ended since only makes the walk below find nothing. Nor
	 * while nothing is outstanding: an idle path is not a silent one.
	 */
	if (!msk->late_due_us || (s32)(msk->late_due_us - now) > 0 ||
	    !msk->outstanding)
		return;
	msk->late_due_us = 0;
	st = mrc_cp_sts(msk);
	for (i = 0; mrc_cps(msk) && st && i < mrc_cps(msk)->nr; i++) {
		struct mrc_cpstate *cs = &st[i];
		struct mrc_tx_cb cb = {};

		if (!cs->late_until_us)
			continue;
		/* Retired meanwhile (by another connection), denied, or an
		 * automatic path waiting out its backoff: when it is back,
		 * it starts a new run.
		 */
		if (!mrc_cp_usable(&mrc_cps(msk)->p[i])) {
			mrc_cp_late_end(cs);
			continue;
		}
		/* Not yet; or the connection went idle since the run's
		 * latest loss, and the silence goes on only if a loss of
		 * this busy period says so (mrc_cp_late()); or nothing sent
		 * on another path during the silence's last timeout has
		 * been delivered yet: when this host did not run for a
		 * while, the first ACK it reads is old news.
		 */
		if ((s32)(cs->late_until_us - now) > 0 ||
		    cs->late_gen != msk->busy_gen ||
		    !mrc_after(msk->rack_xmit_us, cs->late_seen_us)) {
			if (!next || mrc_before(cs->late_until_us, next))
				next = cs->late_until_us;
			continue;
		}
		/* A queue of this host in front of the path overflowed
		 * during the silence: a transmission through its device was
		 * dropped here since the run's first loss was sent. Its
		 * packets since may be waiting in that queue, not lost (a
		 * queue that another path fills delays this one's by as
		 * much, with no sample of it yet). The three timeouts of
		 * silence count again from that drop.
		 */
		drop = mrc_cp_local_full(msk, i, cs->late_first_us);
		tmo = cs->late_until_us - cs->late_seen_us;
		if (drop && (s32)(now - drop) < (s32)(3 * tmo)) {
			cs->late_until_us = (drop + 3 * tmo) | 1;
			cs->late_seen_us = cs->late_until_us - tmo;
			MRC_INC(sock_net(sk), RETIRE_LOCAL_QUEUE);
			if (!next || mrc_before(cs->late_until_us, next))
				next = cs->late_until_us;
			continue;
		}
		cs->late_until_us = 0;
		cb.pidx = i;
		cb.psn = cs->late_psn;
		cb.xmit_us = cs->late_xmit_us;
		mrc_cp_retire(sk, &cb);
	}
	msk->late_due_us = next;
}

/**
 * mrc_cp_retire() - a loss was declared on a path: stop using it
 * @sk: the socket, locked
 * @cb: the packet declared lost, still as it was sent on the path
 *
 * A path of a set becomes assumed-bad for every connection and is probed
 * until it answers; an automatic path is left alone by this connection
 * for a while, doubling with each retirement in a row. Either way the
 * path's other packets in flight are declared lost at once, to go on the
 * remaining paths. Not below the set's min-active good paths, and not
 * while the connection's packets are being trimmed: there a loss only
 * reduces the window.
 *
 * Return: true when the path was retired.
 */
bool mrc_cp_retire(struct sock *sk, const struct mrc_tx_cb *cb)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_cpaths *cps = mrc_cps(msk);
	u32 i = cb->pidx;
	struct mrc_cpath *cp = &cps->p[i];
	struct mrc_cpstate *cs = &mrc_cp_sts(msk)[i];
	struct mrc_path *p = cp->path;
	struct net *net = sock_net(sk);
	u32 j, good = 0, psn;

	if (!mrc_cp_usable(cp))
		return false;
	/* Trims prove that the paths reach the peer's last hop, which they
	 * share in an incast: a loss declared soon after is that queue (the
	 * trimmed headers go first and hold data back), not a failure.
	 */
	if (msk->last_trim_us &&
	    mrc_now_us() - msk->last_trim_us <
	    max(8 * cs->srtt_us, 2 * max(msk->rto_us, msk->path_rto_us))) {
		MRC_INC(net, RETIRE_TRIMMED);
		return false;
	}
	for (j = 0; j < cps->nr; j++)
		if (mrc_cp_usable(&cps->p[j]))
			good++;
	if (good <= cps->min_active) {
		MRC_INC(net, RETIRE_AT_FLOOR);
		return false;
	}
	if (p) {
		if (mrc_path_change_state(p, MRC_PATH_GOOD,
					  MRC_PATH_ASSUMED_BAD,
					  MRC_REASON_LOSS) != MRC_PATH_GOOD)
			return false;
		mrc_path_count(p, MRC_PC_CHANGES, 1);
		mrc_probe_start(net, p, &msk->daddr, &msk->saddr);
		mrc_nl_path_event(net, p, MRC_PATH_GOOD, MRC_PATH_ASSUMED_BAD,
				  MRC_REASON_LOSS, GFP_ATOMIC);
	} else {
		u32 ms = max_t(u32, mrc_probe_interval_ms, 1) << cp->bad_count;

		if (cp->bad_count < 7)
			cp->bad_count++;
		cp->bad_until_us = (mrc_now_us() + min_t(u32, ms, 1000) *
				    USEC_PER_MSEC) | 1;
	}
	MRC_INC(net, PATHS_RETIRED);
	mrc_cp_late_end(cs);
	cs->undo = 1;
	cs->undo_psn = cb->psn;
	cs->undo_tsval = cb->xmit_us;
	cs->undo_retired_us = mrc_now_us();
	for (psn = msk->snd_una; mrc_psn_before(psn, msk->snd_nxt);
	     psn = mrc_psn_add(psn, 1)) {
		struct mrc_txpkt *pkt = mrc_txq_get(msk, psn);

		if (pkt && pkt->cb.pidx == i && !pkt->cb.lost) {
			mrc_mark_lost(sk, &pkt->cb, MRC_LOST_PATH_RETIRED);
			MRC_INC(net, PATH_MOVED);
		}
	}
	return true;
}

/* The ACK (@cum, @sack) acknowledges @psn for the first time. */
static bool mrc_ack_covers(struct mrc_sock *msk, u32 psn, u32 cum,
			   const unsigned long *sack)
{
	struct mrc_txpkt *pkt = mrc_txq_get(msk, psn);
	u32 k = mrc_psn_sub(psn, mrc_psn_add(cum, 1));

	if (!pkt || pkt->cb.psn != psn ||
	    mrc_psn_before(psn, msk->snd_una))
		return false;
	return mrc_psn_before(psn, cum) ||
	       (k < MRC_SACK_BITS && test_bit(k, sack));
}

/**
 * mrc_cp_undo() - an ACK may prove that a path's retirement was spurious
 * @sk: the socket, locked
 * @i: the entry of the path the ACK echoes
 * @tsecr: the send time of the packet it echoes
 * @cum: the ACK's cumulative PSN
 * @sack: its selective bitmap, %MRC_SACK_BITS bits from @cum + 1
 *
 * Called before the ACK is applied. The packet whose loss retired the
 * path arrived after all when the ACK echoes that very packet as it was
 * sent on the path (the receiver echoes at once a duplicate, and a packet
 * that fills a hole), or when the ACK is the first to acknowledge it and
 * echoes a packet sent on the path after it and before the retirement
 * (the late packet arrived in order, and its ACK was coalesced with the
 * next). Either way it was late, not lost (packets of one path can be
 * reordered, when they leave from different CPUs, or delayed past the
 * path timeout by a stall): the path goes back to good at once, as TCP
 * undoes a recovery on a DSACK, and the connection tolerates more
 * reordering from then on. Its packets already retransmitted elsewhere
 * stay so. A path that failed never delivers the packet, and stays
 * assumed-bad until its probes are answered.
 */
void mrc_cp_undo(struct sock *sk, u32 i, u32 tsecr, u32 cum,
		 const unsigned long *sack)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_cpstate *st = mrc_cp_sts(msk), *cs;
	struct mrc_cpath *cp = &mrc_cps(msk)->p[i];
	struct mrc_path *p = cp->path;
	struct net *net = sock_net(sk);

	/* Without sending state, it never retired anything. */
	if (!st || !st[i].undo)
		return;
	cs = &st[i];
	if (tsecr != cs->undo_tsval &&
	    (!mrc_after(tsecr, cs->undo_tsval) ||
	     !mrc_before(tsecr, cs->undo_retired_us) ||
	     !mrc_ack_covers(msk, cs->undo_psn, cum, sack)))
		return;
	cs->undo = 0;
	/* When its probes brought the path back first (or it was denied
	 * since), there is no state to restore, but the retirement was
	 * spurious all the same: the reordering is learnt either way.
	 */
	if (p) {
		if (mrc_path_change_state(p, MRC_PATH_ASSUMED_BAD,
					  MRC_PATH_GOOD, MRC_REASON_SPURIOUS) ==
		    MRC_PATH_ASSUMED_BAD) {
			mrc_path_count(p, MRC_PC_CHANGES, 1);
			mrc_nl_path_event(net, p, MRC_PATH_ASSUMED_BAD,
					  MRC_PATH_GOOD, MRC_REASON_SPURIOUS,
					  GFP_ATOMIC);
		}
	} else if (cp->bad_until_us) {
		cp->bad_until_us = 0;
		if (cp->bad_count)
			cp->bad_count--;
	}
	mrc_cp_reordered(cs, mrc_now_us());
	MRC_INC(net, RETIRE_UNDONE);
}

/**
 * mrc_cp_on_rtt() - an RTT sample of one path
 * @sk: the socket, locked
 * @i: the entry of the path
 * @rtt_us: the sample, without the receiver's holding time
 */
void mrc_cp_on_rtt(struct sock *sk, u32 i, u32 rtt_us)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_cpstate *cs = &mrc_cp_sts(msk)[i];
	struct mrc_path *p = mrc_cps(msk)->p[i].path;
	u32 rto;

	rtt_us = max_t(u32, rtt_us, 1);
	if (!cs->srtt_us || rtt_us < cs->min_rtt_us)
		WRITE_ONCE(cs->min_rtt_us, rtt_us);
	mrc_rtt_fold(&cs->srtt_us, &cs->rttvar_us, rtt_us);
	if (p)
		WRITE_ONCE(p->srtt_us, cs->srtt_us);

	rto = mrc_cp_rto(msk, cs);
	if (rto >= msk->path_rto_us) {
		msk->path_rto_us = rto;
		msk->path_rto_idx = i;
	} else if (i == msk->path_rto_idx) {
		mrc_cp_rto_scan(msk);
	}
}

/**
 * mrc_cp_on_ecn() - an ACK for a packet of this path, marked or not
 * @sk: the socket, locked
 * @i: the entry of the path
 * @ce: the ACK echoed a congestion mark
 * @now: time the ACK arrived
 */
void mrc_cp_on_ecn(struct sock *sk, u32 i, bool ce, u32 now)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_cpath *cp = &mrc_cps(msk)->p[i];
	struct mrc_cpstate *cs = &mrc_cp_sts(msk)[i];
	u32 cool;

	WRITE_ONCE(cs->ecn_frac, cs->ecn_frac - cs->ecn_frac / 16 +
		   (ce ? 1024 / 16 : 0));
	if (!ce)
		return;
	WRITE_ONCE(cs->ecn, cs->ecn + 1);
	if (cp->path)
		mrc_path_count(cp->path, MRC_PC_ECN, 1);
	cool = READ_ONCE(mrc_net(sock_net(sk))->cc.ecn_cooldown_us);
	if (cool)
		cp->ecn_until_us = (now + cool) | 1;
}

/**
 * mrc_cp_route() - the route and flow of one path
 * @sk: the socket, locked
 * @i: the entry of the path
 * @fl6: out: the flow, with the final destination in daddr
 *
 * The route is cached in the entry and checked against the routing
 * table's cookie, so route and device changes are seen at once. Not the
 * kernel's struct dst_cache: that is per CPU, for a cache read without
 * a lock (a WireGuard peer's), and would cost nr_cpu_ids entries for
 * each path of each connection (256 CPUs, 256 paths: 2.6 MB a
 * connection). The entry's route is read and written only under the
 * socket's lock.
 *
 * Return: a referenced route, or an ERR_PTR.
 */
struct dst_entry *mrc_cp_route(struct sock *sk, u32 i, struct flowi6 *fl6)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_cpath *cp = &mrc_cps(msk)->p[i];
	const struct mrc_path *p = cp->path;
	struct net *net = sock_net(sk);
	struct in6_addr *final_p, final;
	struct dst_entry *dst;

	memset(fl6, 0, sizeof(*fl6));
	fl6->flowi6_proto = IPPROTO_UDP;
	fl6->flowi6_oif = p && p->ifindex ? p->ifindex : sk->sk_bound_dev_if;
	fl6->flowi6_mark = READ_ONCE(sk->sk_mark);
	fl6->daddr = msk->daddr;
	fl6->saddr = p && p->has_src ? p->src : msk->saddr;
	fl6->fl6_sport = cp->sport;
	fl6->fl6_dport = htons(mrc_udp_port);
	fl6->flowlabel = cp->flowlabel;

	if (cp->dst) {
		dst = dst_check(cp->dst, cp->dst_cookie);
		if (dst) {
			dst_hold(dst);
			return dst;
		}
		dst_release(cp->dst);
		cp->dst = NULL;
	}
	final_p = fl6_update_dst(fl6, p ? p->opt : NULL, &final);
	dst = ip6_dst_lookup_flow(net, mrc_net(net)->udp_sock->sk, fl6, final_p);
	if (IS_ERR(dst))
		return dst;
	dst_hold(dst);
	cp->dst = dst;
	cp->dst_cookie = rt6_get_cookie(container_of(dst, struct rt6_info, dst));
	return dst;
}

/**
 * mrc_cp_opt() - the IPv6 options (the SRH) of one path
 * @sk: the socket, locked
 * @i: the entry of the path
 *
 * Return: the options, or NULL.
 */
struct ipv6_txoptions *mrc_cp_opt(struct sock *sk, u32 i)
{
	const struct mrc_path *p = mrc_cps(mrc_sk(sk))->p[i].path;

	return p ? p->opt : NULL;
}
