// SPDX-License-Identifier: GPL-2.0
/*
 * Path probing: a path retired after a loss (assumed-bad) is probed with
 * PROBE packets on its own SRH until probe_good probes in a row are
 * answered, then it is good again. Probes back off while unanswered, and
 * the namespace sends at most probe_rate probes (and as many replies) a
 * second. MRC_CMD_PROBE sends one probe on request and waits for it.
 */
#include <linux/completion.h>
#include <linux/jhash.h>
#include <linux/random.h>
#include <linux/udp.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/udp.h>

#include "netlink.h"
#include "output.h"
#include "params.h"
#include "pathset.h"
#include "pernet.h"
#include "probe.h"

/* Probes in flight to wait for in one timer run. */
#define MRC_PROBE_BATCH		8

/* The longest interval between probes of one path: a healed path should
 * be found within a tenth of a second; the namespace's rate bounds the
 * cost.
 */
#define MRC_PROBE_MAX_MS	100

/**
 * struct mrc_probe_waiter - an MRC_CMD_PROBE request waiting for its reply
 * @node: entry in &mrc_net.probe_waiters
 * @token: the probe's token
 * @rtt_us: out: the round trip
 * @done: completed by the reply
 */
struct mrc_probe_waiter {
	struct list_head node;
	u32 token;
	u32 rtt_us;
	struct completion done;
};

/* May one more probe, or probe reply, go out this second? */
static bool mrc_probe_take(struct mrc_net *mn, bool reply)
{
	return mrc_ratelimit_take(reply ? &mn->reply_rl : &mn->probe_rl,
				  READ_ONCE(mrc_probe_rate));
}

/* Send a PROBE or PROBE_REPLY from the namespace's UDP socket, on the SRH,
 * device and source of @p when there is one, else by the routing table.
 */
static void mrc_probe_xmit(struct net *net, u8 type, const struct mrc_path *p,
			   u16 ev, const struct in6_addr *saddr,
			   const struct in6_addr *daddr, u32 token, u32 tsval)
{
	struct sock *usk = mrc_net(net)->udp_sock->sk;
	struct ipv6_txoptions *opt = p ? p->opt : NULL;
	u32 entropy = jhash_2words(token, ev, 0x6d7263);
	struct in6_addr *final_p, final;
	struct flowi6 fl6 = {};
	struct dst_entry *dst;
	struct mrc_probe *pr;
	struct sk_buff *skb;

	skb = alloc_skb(MRC_HEADROOM + sizeof(*pr), GFP_ATOMIC);
	if (!skb) {
		MRC_INC(net, TX_ERRORS);
		return;
	}
	skb_reserve(skb, MRC_HEADROOM);
	pr = skb_put_zero(skb, sizeof(*pr));
	pr->h.version = MRC_VERSION;
	pr->h.type = type;
	pr->h.ev = htons(ev);
	pr->token = htonl(token);
	pr->tsval = htonl(tsval);

	fl6.flowi6_proto = IPPROTO_UDP;
	fl6.flowi6_oif = p ? p->ifindex : 0;
	fl6.daddr = *daddr;
	fl6.saddr = p && p->has_src ? p->src : *saddr;
	fl6.fl6_sport = htons(0xc000 | (entropy & 0x3fff));
	fl6.fl6_dport = htons(mrc_udp_port);
	fl6.flowlabel = cpu_to_be32(entropy >> 12) & IPV6_FLOWLABEL_MASK;
	final_p = fl6_update_dst(&fl6, opt, &final);
	dst = ip6_dst_lookup_flow(net, usk, &fl6, final_p);
	if (IS_ERR(dst)) {
		MRC_INC(net, TX_NO_ROUTE);
		kfree_skb(skb);
		return;
	}
	if (mrc_output_flow(net, NULL, skb, &fl6, dst, opt, 0))
		return;
	if (type == MRC_PKT_PROBE)
		MRC_INC(net, OUT_PROBES);
	else
		MRC_INC(net, OUT_PROBE_REPLIES);
}

static unsigned long mrc_probe_interval(const struct mrc_path *p)
{
	unsigned long ms = max_t(unsigned int, mrc_probe_interval_ms, 1);

	ms = min_t(unsigned long, ms << p->probe_backoff, MRC_PROBE_MAX_MS);
	return max_t(unsigned long, msecs_to_jiffies(ms), 1);
}

/* A path leaves probing: good again, deleted, or the namespace goes. */
static void mrc_probe_unlink(struct mrc_path *p)
{
	list_del_init(&p->bad_node);
	p->probe_token = 0;
	mrc_path_put(p);
}

struct mrc_probe_send {
	struct mrc_path *p;
	struct in6_addr daddr;
	struct in6_addr saddr;
	u32 token;
};

static void mrc_probe_timer_fn(struct timer_list *t)
{
	struct mrc_net *mn = from_timer(mn, t, probe_timer);
	struct mrc_probe_send batch[MRC_PROBE_BATCH];
	unsigned long next = 0, now = jiffies;
	struct mrc_path *p, *tmp;
	unsigned int n = 0, i;

	spin_lock_bh(&mn->probe_lock);
	list_for_each_entry_safe(p, tmp, &mn->bad_paths, bad_node) {
		if (READ_ONCE(p->dead) ||
		    READ_ONCE(p->state) != MRC_PATH_ASSUMED_BAD) {
			mrc_probe_unlink(p);
			continue;
		}
		if (time_before(now, p->probe_next))
			goto arm;
		if (n == MRC_PROBE_BATCH || !mrc_probe_take(mn, false)) {
			/* Over the budget: try again next tick. */
			p->probe_next = now + 1;
			goto arm;
		}
		if (p->probe_token) {
			/* The last probe went unanswered. */
			p->probe_ok = 0;
			if (p->probe_backoff < 10)
				p->probe_backoff++;
		}
		p->probe_token = get_random_u32() | 1;
		p->probe_next = now + mrc_probe_interval(p);
		refcount_inc(&p->refcnt);
		batch[n].p = p;
		batch[n].daddr = p->probe_dst;
		batch[n].saddr = p->probe_src;
		batch[n].token = p->probe_token;
		n++;
arm:
		if (!next || time_before(p->probe_next, next))
			next = p->probe_next;
	}
	if (next)
		mod_timer(&mn->probe_timer, next);
	spin_unlock_bh(&mn->probe_lock);

	for (i = 0; i < n; i++) {
		p = batch[i].p;
		mrc_path_count(p, MRC_PC_PROBES, 1);
		mrc_probe_xmit(read_pnet(&mn->net), MRC_PKT_PROBE, p, p->id, &batch[i].saddr,
			       &batch[i].daddr, batch[i].token, mrc_now_us());
		mrc_path_put(p);
	}
}

/**
 * mrc_probe_start() - start probing a path just retired
 * @net: namespace
 * @p: the path, now assumed-bad
 * @daddr: the peer to probe: the connection's that lost on it
 * @saddr: the connection's source address
 */
void mrc_probe_start(struct net *net, struct mrc_path *p,
		     const struct in6_addr *daddr, const struct in6_addr *saddr)
{
	struct mrc_net *mn = mrc_net(net);

	spin_lock_bh(&mn->probe_lock);
	p->probe_dst = *daddr;
	p->probe_src = *saddr;
	if (list_empty(&p->bad_node)) {
		refcount_inc(&p->refcnt);
		list_add_tail(&p->bad_node, &mn->bad_paths);
		p->probe_ok = 0;
		p->probe_backoff = 0;
		p->probe_token = 0;
		p->probe_next = jiffies + mrc_probe_interval(p);
		if (!timer_pending(&mn->probe_timer) ||
		    time_before(p->probe_next, mn->probe_timer.expires))
			mod_timer(&mn->probe_timer, p->probe_next);
	}
	spin_unlock_bh(&mn->probe_lock);
}

/**
 * mrc_probe_rcv() - answer a PROBE
 * @net: namespace
 * @skb: the packet, at its MRC header
 * @saddr: its source
 * @daddr: its destination (us)
 *
 * The reply goes on our own path with the probe's id to the prober, if we
 * have one that is not denied, so that it tests the same plane; else by
 * the routing table.
 */
void mrc_probe_rcv(struct net *net, struct sk_buff *skb,
		   const struct in6_addr *saddr, const struct in6_addr *daddr)
{
	const struct mrc_probe *pr = (const struct mrc_probe *)skb->data;
	struct mrc_net *mn = mrc_net(net);
	u16 ev = ntohs(pr->h.ev);
	struct mrc_path *p = NULL;
	struct mrc_pathset *set;
	bool ok;
	u32 i;

	MRC_INC(net, IN_PROBES);
	spin_lock_bh(&mn->probe_lock);
	ok = mrc_probe_take(mn, true);
	spin_unlock_bh(&mn->probe_lock);
	if (!ok) {
		MRC_INC(net, DROP_PROBE_RATE);
		return;
	}
	rcu_read_lock();
	set = mrc_pathset_lookup(mn, saddr);
	for (i = 0; set && i < set->nr_paths; i++) {
		if (set->paths[i]->id == ev &&
		    READ_ONCE(set->paths[i]->state) != MRC_PATH_DENIED) {
			p = set->paths[i];
			break;
		}
	}
	mrc_probe_xmit(net, MRC_PKT_PROBE_REPLY, p, ev, daddr, saddr,
		       ntohl(pr->token), ntohl(pr->tsval));
	rcu_read_unlock();
}

/**
 * mrc_probe_reply_rcv() - a PROBE_REPLY arrived
 * @net: namespace
 * @skb: the packet, at its MRC header
 *
 * It answers a probe of an assumed-bad path, or an MRC_CMD_PROBE request,
 * or nothing we sent (dropped and counted).
 */
void mrc_probe_reply_rcv(struct net *net, struct sk_buff *skb)
{
	const struct mrc_probe *pr = (const struct mrc_probe *)skb->data;
	u32 token = ntohl(pr->token), rtt = mrc_now_us() - ntohl(pr->tsval);
	struct mrc_net *mn = mrc_net(net);
	struct mrc_path *p, *good = NULL;
	struct mrc_probe_waiter *w;
	bool found = false;

	MRC_INC(net, IN_PROBE_REPLIES);
	if (!token)
		goto bad;
	spin_lock_bh(&mn->probe_lock);
	list_for_each_entry(w, &mn->probe_waiters, node) {
		if (w->token == token) {
			w->rtt_us = rtt;
			w->token = 0;
			complete(&w->done);
			spin_unlock_bh(&mn->probe_lock);
			return;
		}
	}
	list_for_each_entry(p, &mn->bad_paths, bad_node) {
		if (p->probe_token != token)
			continue;
		found = true;
		p->probe_token = 0;
		p->probe_backoff = 0;
		WRITE_ONCE(p->srtt_us, rtt);
		if (++p->probe_ok >= max_t(unsigned int, mrc_probe_good, 1)) {
			good = p;
			list_del_init(&p->bad_node);
		} else {
			/* Answered: the next one at once. */
			p->probe_next = jiffies;
			mod_timer(&mn->probe_timer, jiffies);
		}
		break;
	}
	spin_unlock_bh(&mn->probe_lock);
	if (good) {
		/* The list's reference is ours now. */
		if (mrc_path_change_state(good, MRC_PATH_ASSUMED_BAD,
					  MRC_PATH_GOOD, MRC_REASON_PROBE) ==
		    MRC_PATH_ASSUMED_BAD) {
			mrc_path_count(good, MRC_PC_CHANGES, 1);
			MRC_INC(net, PATHS_RESTORED);
			mrc_nl_path_event(net, good, MRC_PATH_ASSUMED_BAD,
					  MRC_PATH_GOOD, MRC_REASON_PROBE,
					  GFP_ATOMIC);
		}
		mrc_path_put(good);
		return;
	}
	if (found)
		return;
bad:
	MRC_INC(net, DROP_PROBE_REPLY);
}

/**
 * mrc_probe_once() - probe a path on request and wait for the reply
 * @net: namespace
 * @p: the path (referenced by the caller)
 * @daddr: the host to probe
 * @timeout_ms: how long to wait
 * @rtt_us: out: the round trip
 *
 * Process context. Counts against the namespace's probe rate.
 *
 * Return: 0, -ETIMEDOUT, -EBUSY over the rate, or -EINTR.
 */
int mrc_probe_once(struct net *net, struct mrc_path *p,
		   const struct in6_addr *daddr, unsigned int timeout_ms,
		   u32 *rtt_us)
{
	struct mrc_net *mn = mrc_net(net);
	struct mrc_probe_waiter w;
	struct in6_addr saddr = {};
	long left;
	bool ok;

	init_completion(&w.done);
	w.token = get_random_u32() | 1;
	w.rtt_us = 0;
	spin_lock_bh(&mn->probe_lock);
	ok = mrc_probe_take(mn, false);
	if (ok)
		list_add(&w.node, &mn->probe_waiters);
	spin_unlock_bh(&mn->probe_lock);
	if (!ok)
		return -EBUSY;

	mrc_path_count(p, MRC_PC_PROBES, 1);
	local_bh_disable();
	mrc_probe_xmit(net, MRC_PKT_PROBE, p, p->id, &saddr, daddr, w.token,
		       mrc_now_us());
	local_bh_enable();
	left = wait_for_completion_interruptible_timeout(&w.done,
							 msecs_to_jiffies(timeout_ms));
	spin_lock_bh(&mn->probe_lock);
	list_del(&w.node);
	spin_unlock_bh(&mn->probe_lock);
	if (left > 0 || completion_done(&w.done)) {
		*rtt_us = w.rtt_us;
		return 0;
	}
	return left < 0 ? -EINTR : -ETIMEDOUT;
}

/**
 * mrc_probe_init_net() - no path probed yet
 * @mn: the namespace's MRC state
 */
void mrc_probe_init_net(struct mrc_net *mn)
{
	spin_lock_init(&mn->probe_lock);
	INIT_LIST_HEAD(&mn->bad_paths);
	INIT_LIST_HEAD(&mn->probe_waiters);
	timer_setup(&mn->probe_timer, mrc_probe_timer_fn, 0);
	mrc_ratelimit_init(&mn->probe_rl);
	mrc_ratelimit_init(&mn->reply_rl);
}

/**
 * mrc_probe_exit_net() - stop probing, drop the probed paths
 * @mn: the namespace's MRC state
 */
void mrc_probe_exit_net(struct mrc_net *mn)
{
	struct mrc_path *p, *tmp;

	del_timer_sync(&mn->probe_timer);
	spin_lock_bh(&mn->probe_lock);
	list_for_each_entry_safe(p, tmp, &mn->bad_paths, bad_node)
		mrc_probe_unlink(p);
	spin_unlock_bh(&mn->probe_lock);
}
