// SPDX-License-Identifier: GPL-2.0
/*
 * MRC connections: identity, lifetime, timers, RTT and window.
 */
#include <linux/jiffies.h>
#include <linux/mrc.h>
#include <linux/random.h>
#include <linux/rhashtable.h>

#include "conn.h"
#include "input.h"
#include "netlink.h"
#include "output.h"
#include "params.h"
#include "pernet.h"
#include "pmtu.h"
#include "recovery.h"

#define MRC_CWND_INIT	16

/**
 * mrc_conn_hash() - give a connection a local id and make it reachable
 * @sk: the socket, locked, not yet hashed
 * @id: the id it must have (MRC_PEER), or 0 for a random one
 *
 * Ids are the 24-bit QPNs of MRC 1.0's BTH, from %MRC_QPN_MIN: random, so
 * that they cannot be guessed from outside, and unique in the namespace;
 * one an application chose is taken only if free. The table holds a
 * reference on @sk.
 *
 * Return: 0 or a negative errno: -EADDRINUSE when @id is taken.
 */
int mrc_conn_hash(struct sock *sk, u32 id)
{
	struct mrc_net *mn = mrc_net(sock_net(sk));
	struct mrc_sock *msk = mrc_sk(sk);
	int tries, err = -EADDRNOTAVAIL;

	for (tries = 0; tries < 16; tries++) {
		msk->lcid = id ?: get_random_u32() & MRC_QPN_MAX;
		if (msk->lcid < MRC_QPN_MIN)
			continue;
		err = rhashtable_lookup_insert_fast(&mn->conns, &msk->hnode,
						    mrc_conn_params);
		if (err != -EEXIST)
			break;
		if (id) {
			err = -EADDRINUSE;
			break;
		}
	}
	if (err) {
		msk->lcid = 0;
		return err;
	}
	sock_hold(sk);
	msk->hashed = true;
	return 0;
}

/**
 * mrc_conn_lookup() - find a connection by local id, from any context
 * @net: namespace
 * @cid: local connection id
 *
 * Return: the socket with a reference held, or NULL.
 */
struct sock *mrc_conn_lookup(struct net *net, u32 cid)
{
	struct mrc_net *mn = mrc_net(net);
	struct mrc_sock *msk;
	struct sock *sk = NULL;

	rcu_read_lock();
	msk = rhashtable_lookup(&mn->conns, &cid, mrc_conn_params);
	if (msk && refcount_inc_not_zero(&msk->sk.sk_refcnt))
		sk = &msk->sk;
	rcu_read_unlock();
	return sk;
}

static void mrc_conn_unhash(struct sock *sk)
{
	struct mrc_net *mn = mrc_net(sock_net(sk));
	struct mrc_sock *msk = mrc_sk(sk);

	if (!msk->hashed)
		return;
	rhashtable_remove_fast(&mn->conns, &msk->hnode, mrc_conn_params);
	msk->hashed = false;
	/* Callers hold their own reference, so this is never the last. */
	__sock_put(sk);
}

/* A timer that fires two jiffies or more after it was due says that this
 * host did not run meanwhile (a busy hypervisor): the ACKs that came in
 * that time wait in the receive path, which runs after timers. Judging
 * the packets in flight before reading them would declare lost what was
 * delivered, and fire the RTO on a peer that answered. Such a timer
 * waits one jiffy more, once.
 */
static bool mrc_rtx_timer_late(struct sock *sk, unsigned long due)
{
	struct mrc_sock *msk = mrc_sk(sk);

	if (time_before(jiffies, due + 2)) {
		clear_bit(MRC_RTX_LATE, &msk->deferred);
		return false;
	}
	if (test_and_set_bit(MRC_RTX_LATE, &msk->deferred))
		return false;
	MRC_INC(sock_net(sk), TIMER_LATE);
	sk_reset_timer(sk, &msk->rtx_timer, jiffies + 1);
	return true;
}

static void mrc_rtx_timer_fn(struct timer_list *t)
{
	struct mrc_sock *msk = from_timer(msk, t, rtx_timer);
	struct sock *sk = &msk->sk;

	bh_lock_sock(sk);
	/* A late timer fires again in a jiffy. */
	if (mrc_rtx_timer_late(sk, t->expires))
		goto out;
	if (!sock_owned_by_user(sk))
		mrc_rtx_timeout(sk);
	else if (!test_and_set_bit(MRC_DEFER_RTX, &msk->deferred))
		sock_hold(sk);
out:
	bh_unlock_sock(sk);
	sock_put(sk);
}

static void mrc_ack_timer_fn(struct timer_list *t)
{
	struct mrc_sock *msk = from_timer(msk, t, ack_timer);
	struct sock *sk = &msk->sk;

	bh_lock_sock(sk);
	if (!sock_owned_by_user(sk))
		mrc_send_ack(sk, 0);
	else if (!test_and_set_bit(MRC_DEFER_ACK, &msk->deferred))
		sock_hold(sk);
	bh_unlock_sock(sk);
	sock_put(sk);
}

/**
 * mrc_release_cb() - run timer work deferred while a process held the socket
 * @sk: the socket, owned by the caller
 */
void mrc_release_cb(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	if (test_and_clear_bit(MRC_DEFER_RTX, &msk->deferred)) {
		mrc_rtx_timeout(sk);
		__sock_put(sk);
	}
	if (test_and_clear_bit(MRC_DEFER_ACK, &msk->deferred)) {
		mrc_send_ack(sk, 0);
		__sock_put(sk);
	}
	if (test_and_clear_bit(MRC_DEFER_PMTU, &msk->deferred)) {
		mrc_pmtu_deferred(sk);
		__sock_put(sk);
	}
}

/**
 * mrc_sock_init() - initialise what a new socket keeps for its lifetime
 * @sk: the socket, just allocated
 *
 * The locks, lists and timers; then the state of a connection.
 */
void mrc_sock_init(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	spin_lock_init(&msk->accept_lock);
	INIT_LIST_HEAD(&msk->accept_node);
	INIT_LIST_HEAD(&msk->pending);
	INIT_LIST_HEAD(&msk->accept_q);
	timer_setup(&msk->rtx_timer, mrc_rtx_timer_fn, 0);
	timer_setup(&msk->ack_timer, mrc_ack_timer_fn, 0);
	mrc_conn_init(sk);
}

/**
 * mrc_conn_init() - start the state of a connection afresh
 * @sk: the socket: new, or closed with its timers stopped and nothing
 *	queued, sent or reassembled (mrc_tx_purge(), mrc_rx_purge())
 *
 * Every member from &mrc_sock.snd_isn on goes back to its initial value,
 * so that nothing of an earlier connection (message numbers, RTT,
 * counters) leaks into the next connect().
 */
void mrc_conn_init(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	memset_startat(msk, 0, snd_isn);
	INIT_LIST_HEAD(&msk->rmsgs);
	msk->cwnd = MRC_CWND_INIT;
	msk->ssthresh = MRC_WND;
	msk->rto_us = mrc_rto_init_ms * USEC_PER_MSEC;
	msk->peer_rwnd = U32_MAX;
	msk->rcv_scale = MRC_RCV_SCALE_INIT;
}

/**
 * mrc_stop_timers() - stop both timers of a connection
 * @sk: the socket, locked
 */
void mrc_stop_timers(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	sk_stop_timer(sk, &msk->rtx_timer);
	sk_stop_timer(sk, &msk->ack_timer);
}

/* A child that never completes its handshake leaves its listener, and the
 * reference that accept() would have taken is dropped. Once the listener
 * is closing, its close path owns the lists and these references instead.
 */
static void mrc_conn_unlink_child(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct sock *parent = msk->parent;
	struct mrc_sock *pmsk;
	bool unlinked = false;

	if (!parent)
		return;
	pmsk = mrc_sk(parent);
	spin_lock_bh(&pmsk->accept_lock);
	if (!pmsk->accept_closed && !list_empty(&msk->accept_node)) {
		list_del_init(&msk->accept_node);
		pmsk->nr_pending--;
		unlinked = true;
	}
	spin_unlock_bh(&pmsk->accept_lock);
	if (!unlinked)
		return;
	msk->parent = NULL;
	sock_put(parent);
	sock_set_flag(sk, SOCK_DEAD);
	__sock_put(sk);
}

/**
 * mrc_set_state() - move a socket to a connection state
 * @sk: the socket, locked (or not yet visible to anyone else)
 * @state: enum mrc_state
 *
 * &mrc_sock.state and sk_state change together; poll(), netlink dumps
 * and lookups read them without the socket lock.
 */
void mrc_set_state(struct sock *sk, u8 state)
{
	WRITE_ONCE(mrc_sk(sk)->state, state);
	WRITE_ONCE(sk->sk_state, state);
}

/**
 * mrc_conn_done() - the connection is over: stop it and forget it
 * @sk: the socket, locked; the caller holds a reference
 *
 * Queued messages stay readable; everything not yet sent or acknowledged
 * is dropped. A child still in its handshake is dropped as well.
 */
void mrc_conn_done(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	u8 old = msk->state;

	mrc_set_state(sk, MRC_CLOSED);
	if (msk->orphan) {
		msk->orphan = false;
		atomic_dec(&mrc_net(sock_net(sk))->orphans);
	}
	mrc_stop_timers(sk);
	mrc_tx_purge(sk);
	mrc_rx_purge(sk);
	mrc_conn_unhash(sk);
	if (old == MRC_ESTABLISHED)
		mrc_nl_conn_event(sk, READ_ONCE(sk->sk_err));
	sk->sk_shutdown = SHUTDOWN_MASK;
	if (old == MRC_SYN_RECV)
		mrc_conn_unlink_child(sk);
	if (!sock_flag(sk, SOCK_DEAD))
		sk->sk_state_change(sk);
}

/**
 * mrc_conn_abort() - end a connection with an error
 * @sk: the socket, locked; the caller holds a reference
 * @err: errno the application will see
 * @send_rst: tell the peer with a RST
 */
void mrc_conn_abort(struct sock *sk, int err, bool send_rst)
{
	struct net *net = sock_net(sk);

	if (mrc_sk(sk)->state == MRC_CLOSED)
		return;
	if (send_rst)
		mrc_send_rst(sk, MRC_RST_ABORT);
	switch (err) {
	case ETIMEDOUT:
		MRC_INC(net, CONN_TIMEOUT);
		break;
	case ECONNRESET:
		MRC_INC(net, CONN_RESET);
		break;
	case ECONNREFUSED:
		MRC_INC(net, CONN_REFUSED);
		break;
	default:
		MRC_INC(net, CONN_ABORTED);
	}
	if (err)
		WRITE_ONCE(sk->sk_err, err);
	mrc_conn_done(sk);
	if (err)
		sk_error_report(sk);
}

/**
 * mrc_conn_established() - a handshake completed
 * @sk: the socket, locked
 *
 * A child moves from its listener's pending list to the accept queue, or
 * is dropped if the listener is closing.
 */
void mrc_conn_established(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct sock *parent = msk->parent;
	struct mrc_sock *pmsk;
	bool queued = false;

	mrc_set_state(sk, MRC_ESTABLISHED);
	msk->retries = 0;
	msk->backoff = 0;
	sk_stop_timer(sk, &msk->rtx_timer);

	mrc_nl_conn_event(sk, 0);
	if (!parent) {
		MRC_INC(sock_net(sk), ACTIVE_OPENS);
		sk->sk_state_change(sk);
		return;
	}

	MRC_INC(sock_net(sk), PASSIVE_OPENS);
	pmsk = mrc_sk(parent);
	spin_lock_bh(&pmsk->accept_lock);
	/* A closing listener aborts this child itself. */
	if (!pmsk->accept_closed && !list_empty(&msk->accept_node)) {
		list_move_tail(&msk->accept_node, &pmsk->accept_q);
		pmsk->nr_pending--;
		sk_acceptq_added(parent);
		queued = true;
	}
	spin_unlock_bh(&pmsk->accept_lock);
	if (queued)
		parent->sk_data_ready(parent);
}

/**
 * mrc_conn_maybe_done() - forget a closed socket whose work is finished
 * @sk: the socket, locked
 *
 * After close(), a connection lives on until its FIN is acknowledged, so
 * that every message sent before close() arrives.
 */
void mrc_conn_maybe_done(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	if (sock_flag(sk, SOCK_DEAD) && msk->state == MRC_ESTABLISHED &&
	    (msk->fin & MRC_FIN_ACKED)) {
		/* A delayed ACK still owed would leave the peer retransmitting
		 * to a connection that no longer exists, and draw a RST.
		 */
		if (msk->rcv_unacked || timer_pending(&msk->ack_timer))
			mrc_send_ack(sk, 0);
		mrc_conn_done(sk);
	}
}

/**
 * mrc_conn_orphan() - the application closed a connection that goes on
 * @sk: the socket, locked, orphaned, still established
 *
 * It has messages or its FIN still to deliver. It may, for at most
 * net.mrc.orphan_timeout_ms, and only while fewer than net.mrc.max_orphans
 * connections of the namespace do: past either it is reset. The peer's
 * ACKs keep a connection from timing out, so that a peer that acknowledges
 * but never reads could otherwise keep it for ever.
 */
void mrc_conn_orphan(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_net *mn = mrc_net(sock_net(sk));

	if (atomic_inc_return(&mn->orphans) > READ_ONCE(mn->max_orphans)) {
		atomic_dec(&mn->orphans);
		MRC_INC(sock_net(sk), ORPHAN_OVERFLOW);
		mrc_conn_abort(sk, 0, true);
		return;
	}
	msk->orphan = true;
	msk->orphan_deadline = jiffies +
		msecs_to_jiffies(READ_ONCE(mn->orphan_timeout_ms));
	/* The retransmission timer checks the deadline each time it fires,
	 * at least every rto_max_ms while anything is left to send; with
	 * nothing left it would not fire at all.
	 */
	if (!timer_pending(&msk->rtx_timer))
		sk_reset_timer(sk, &msk->rtx_timer, msk->orphan_deadline);
}

/**
 * mrc_orphan_expired() - reset an orphan whose time is up
 * @sk: the socket, locked
 *
 * Return: true if it was reset (OrphanTimeout).
 */
bool mrc_orphan_expired(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	if (!msk->orphan || time_before(jiffies, msk->orphan_deadline))
		return false;
	MRC_INC(sock_net(sk), ORPHAN_TIMEOUT);
	mrc_conn_abort(sk, 0, true);
	return true;
}

/**
 * mrc_rtt_sample() - fold one RTT sample into srtt, rttvar and the RTO
 * @sk: the socket, locked
 * @rtt_us: the sample
 *
 * RFC 6298, with alpha 1/8 and beta 1/4, a clock granularity of one
 * jiffy, and the rto_min_ms/rto_max_ms module parameters as bounds.
 */
void mrc_rtt_sample(struct sock *sk, u32 rtt_us)
{
	struct mrc_sock *msk = mrc_sk(sk);
	u32 g = jiffies_to_usecs(1), var, lo, hi;

	mrc_rtt_fold(&msk->srtt_us, &msk->rttvar_us, rtt_us ?: 1);
	var = max(g, 4 * msk->rttvar_us);
	lo = max_t(u32, mrc_rto_min_ms, 1) * USEC_PER_MSEC;
	hi = max_t(u32, mrc_rto_max_ms * USEC_PER_MSEC, lo);
	msk->rto_us = clamp_t(u32, msk->srtt_us + var, lo, hi);
}

/**
 * mrc_rto_us() - the current RTO, with exponential backoff
 * @sk: the socket
 *
 * At least the timeout of the slowest path, whose packets may be the only
 * ones outstanding.
 *
 * Return: microseconds, at most rto_max_ms.
 */
u32 mrc_rto_us(const struct sock *sk)
{
	const struct mrc_sock *msk = mrc_sk(sk);
	u64 rto = max(msk->rto_us, msk->path_rto_us);

	rto <<= min_t(u8, msk->backoff, 20);
	return min_t(u64, rto, (u64)mrc_rto_max_ms * USEC_PER_MSEC);
}

/**
 * mrc_arm_rto() - (re)start the retransmission timer for a full RTO
 * @sk: the socket, locked
 */
void mrc_arm_rto(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	msk->rto_deadline = jiffies + usecs_to_jiffies(mrc_rto_us(sk));
	sk_reset_timer(sk, &msk->rtx_timer, msk->rto_deadline);
}

/**
 * mrc_arm_rtx_at() - fire the retransmission timer earlier than the RTO
 * @sk: the socket, locked
 * @delay_us: when, from now
 *
 * Used for the end of a reordering window; the RTO deadline stays.
 */
void mrc_arm_rtx_at(struct sock *sk, u32 delay_us)
{
	struct mrc_sock *msk = mrc_sk(sk);
	unsigned long when = jiffies + usecs_to_jiffies(delay_us);

	if (!timer_pending(&msk->rtx_timer) ||
	    time_before(when, msk->rtx_timer.expires))
		sk_reset_timer(sk, &msk->rtx_timer, when);
}

/**
 * mrc_arm_ack_timer() - send an ACK after the delayed-ACK interval
 * @sk: the socket, locked
 */
void mrc_arm_ack_timer(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	if (!timer_pending(&msk->ack_timer))
		sk_reset_timer(sk, &msk->ack_timer,
			       jiffies + usecs_to_jiffies(mrc_ack_delay_us));
}
