// SPDX-License-Identifier: GPL-2.0
/*
 * Per network namespace state of MRC: the UDP tunnel socket that carries
 * MRC packets, the connection table, the bound ports and the counters.
 */
#include <linux/bug.h>
#include <linux/mrc_trim.h>
#include <linux/ratelimit.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>

#include "cc.h"
#include "input.h"
#include "mem.h"
#include "mib.h"
#include "params.h"
#include "mrc_compat.h"
#include "pathset.h"
#include "pmtu.h"
#include "probe.h"
#include "pernet.h"

unsigned int mrc_net_id __read_mostly;

const struct rhashtable_params mrc_conn_params = {
	.key_len = sizeof(u32),
	.key_offset = offsetof(struct mrc_sock, lcid),
	.head_offset = offsetof(struct mrc_sock, hnode),
	.automatic_shrinking = true,
};

/**
 * mrc_ratelimit_init() - a rate limit with nothing taken yet
 * @rl: the rate limit: the kernel's, with a second as its interval
 *
 * It never prints (RATELIMIT_MSG_ON_RELEASE, and nothing releases it):
 * the callers count what it refuses.
 */
void mrc_ratelimit_init(struct ratelimit_state *rl)
{
	ratelimit_state_init(rl, HZ, 0);
	ratelimit_set_flags(rl, RATELIMIT_MSG_ON_RELEASE);
}

/**
 * mrc_ratelimit_take() - may one more event happen?
 * @rl: the rate limit
 * @rate: events allowed a second (the module parameter, read now)
 *
 * ___ratelimit(): @rate events are allowed at once, and the second starts
 * over at the first event after it ended, so at most 2 * @rate happen in
 * any second. The burst is written here, as the kernel's sysctls write
 * theirs, so that a change of the parameter holds from the next event.
 * An event that finds the state locked by another CPU is refused (the
 * kernel's trylock): a limit, never more events. Any context.
 *
 * Return: true, and the event is counted, if it may.
 */
bool mrc_ratelimit_take(struct ratelimit_state *rl, unsigned int rate)
{
	WRITE_ONCE(rl->burst, min_t(unsigned int, rate, INT_MAX));
	return __ratelimit(rl);
}

MRC_DEFINE_ENCAP_ERR_RCV(mrc_encap_err_rcv, mrc_udp_err)

/* The tunnel socket's receive buffer: far more than the UDP payloads a few
 * CPUs can queue before they take them off again.
 */
#define MRC_UDP_RCVBUF	(8 << 20)

static int mrc_udp_sock_create(struct net *net, struct mrc_net *mn)
{
	/* A tunnel for ICMP errors (encap_err_*), but no encap_rcv: the UDP
	 * stack segments every GSO packet it would hand to an encap_rcv
	 * (udp_unexpected_gso()), while a plain socket that allows GSO gets
	 * a batch whole. Packets are queued, and mrc_udp_data_ready() takes
	 * one off the queue for each one queued, in the softirq that queued
	 * it.
	 */
	struct udp_tunnel_sock_cfg tcfg = {
		.sk_user_data = mn,
		.encap_type = 1,
		.encap_err_lookup = mrc_udp_err_lookup,
		.encap_err_rcv = mrc_encap_err_rcv,
	};
	struct udp_port_cfg cfg = {
		.family = AF_INET6,
		.local_ip6 = IN6ADDR_ANY_INIT,
		.local_udp_port = htons(mrc_udp_port),
		.ipv6_v6only = 1,
		.use_udp6_tx_checksums = 1,
		.use_udp6_rx_checksums = 1,
	};
	struct sock *sk;
	int err;

	err = udp_sock_create(net, &cfg, &mn->udp_sock);
	if (err)
		return err;
	setup_udp_tunnel_sock(net, mn->udp_sock, &tcfg);
	sk = mn->udp_sock->sk;
	udp_allow_gso(sk);
	/* GRO merges consecutive packets of one path (the same addresses,
	 * SRH and ports) into such batches too, as for UDP_GRO.
	 */
	udp_set_bit(GRO_ENABLED, sk);
#ifdef CONFIG_NET_RX_BUSY_POLL
	/* Its reads run in softirq: never busy-poll there. */
	WRITE_ONCE(sk->sk_ll_usec, 0);
#endif
	/* Room for the batches of every CPU at once: each leaves the queue
	 * in the softirq that put it there.
	 */
	WRITE_ONCE(sk->sk_rcvbuf, MRC_UDP_RCVBUF);
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_data_ready = mrc_udp_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	return 0;
}

/* Bounds of net.mrc.outage_timeout_ms and orphan_timeout_ms: a millisecond
 * to a day.
 */
static unsigned int mrc_outage_min = 1;
static unsigned int mrc_outage_max = 86400000;

static unsigned int mrc_dscp_max = 63;

/* Bounds of net.mrc.max_orphans: none (every close() with data still to
 * deliver resets) to INT_MAX.
 */
static int mrc_orphans_lim = INT_MAX;

/* net.mrc.data_dscp and net.mrc.trim_dscp: 0 to 63, and never the same,
 * or every DATA packet would look trimmed. extra1 is the other one.
 */
static int mrc_sysctl_dscp(mrc_ctl_table *table, int write, void *buffer,
			   size_t *lenp, loff_t *ppos)
{
	unsigned int *cur = table->data, *other = table->extra1;
	unsigned int val = READ_ONCE(*cur);
	struct ctl_table tmp = {
		.data = &val,
		.maxlen = sizeof(val),
		.extra1 = SYSCTL_ZERO,
		.extra2 = &mrc_dscp_max,
	};
	int err;

	err = proc_douintvec_minmax(&tmp, write, buffer, lenp, ppos);
	if (err || !write)
		return err;
	if (val == READ_ONCE(*other))
		return -EINVAL;
	WRITE_ONCE(*cur, val);
	return 0;
}

enum {
	MRC_SYSCTL_OUTAGE,
	MRC_SYSCTL_DATA_DSCP,
	MRC_SYSCTL_TRIM_DSCP,
	MRC_SYSCTL_ORPHAN_TIMEOUT,
	MRC_SYSCTL_MAX_ORPHANS,
	MRC_SYSCTL_RCVBUF_MAX,
	MRC_SYSCTL_SNDBUF_MAX,
};

static struct ctl_table mrc_sysctl_template[] = {
	[MRC_SYSCTL_OUTAGE] = {
		.procname = "outage_timeout_ms",
		.maxlen = sizeof(unsigned int),
		.mode = 0644,
		.proc_handler = proc_douintvec_minmax,
		.extra1 = &mrc_outage_min,
		.extra2 = &mrc_outage_max,
	},
	[MRC_SYSCTL_DATA_DSCP] = {
		.procname = "data_dscp",
		.maxlen = sizeof(unsigned int),
		.mode = 0644,
		.proc_handler = mrc_sysctl_dscp,
	},
	[MRC_SYSCTL_TRIM_DSCP] = {
		.procname = "trim_dscp",
		.maxlen = sizeof(unsigned int),
		.mode = 0644,
		.proc_handler = mrc_sysctl_dscp,
	},
	[MRC_SYSCTL_ORPHAN_TIMEOUT] = {
		.procname = "orphan_timeout_ms",
		.maxlen = sizeof(unsigned int),
		.mode = 0644,
		.proc_handler = proc_douintvec_minmax,
		.extra1 = &mrc_outage_min,
		.extra2 = &mrc_outage_max,
	},
	[MRC_SYSCTL_MAX_ORPHANS] = {
		.procname = "max_orphans",
		.maxlen = sizeof(int),
		.mode = 0644,
		.proc_handler = proc_dointvec_minmax,
		.extra1 = SYSCTL_ZERO,
		.extra2 = &mrc_orphans_lim,
	},
	[MRC_SYSCTL_RCVBUF_MAX] = {
		.procname = "rcvbuf_max",
		.maxlen = sizeof(int),
		.mode = 0644,
		.proc_handler = proc_dointvec_minmax,
		.extra1 = SYSCTL_ZERO,
		.extra2 = SYSCTL_INT_MAX,
	},
	[MRC_SYSCTL_SNDBUF_MAX] = {
		.procname = "sndbuf_max",
		.maxlen = sizeof(int),
		.mode = 0644,
		.proc_handler = proc_dointvec_minmax,
		.extra1 = SYSCTL_ZERO,
		.extra2 = SYSCTL_INT_MAX,
	},
	{ }
};

static int mrc_sysctl_init(struct net *net, struct mrc_net *mn)
{
	struct ctl_table *table;

	table = kmemdup(mrc_sysctl_template, sizeof(mrc_sysctl_template),
			GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	table[MRC_SYSCTL_OUTAGE].data = &mn->outage_timeout_ms;
	table[MRC_SYSCTL_DATA_DSCP].data = &mn->data_dscp;
	table[MRC_SYSCTL_DATA_DSCP].extra1 = &mn->trim_dscp;
	table[MRC_SYSCTL_TRIM_DSCP].data = &mn->trim_dscp;
	table[MRC_SYSCTL_TRIM_DSCP].extra1 = &mn->data_dscp;
	table[MRC_SYSCTL_ORPHAN_TIMEOUT].data = &mn->orphan_timeout_ms;
	table[MRC_SYSCTL_MAX_ORPHANS].data = &mn->max_orphans;
	table[MRC_SYSCTL_RCVBUF_MAX].data = &mn->rcvbuf_max;
	table[MRC_SYSCTL_SNDBUF_MAX].data = &mn->sndbuf_max;
	mn->sysctl = mrc_register_net_sysctl(net, "net/mrc", table,
					     ARRAY_SIZE(mrc_sysctl_template) - 1);
	if (!mn->sysctl) {
		kfree(table);
		return -ENOMEM;
	}
	return 0;
}

static void mrc_sysctl_exit(struct mrc_net *mn)
{
	const struct ctl_table *table = mn->sysctl->ctl_table_arg;

	unregister_net_sysctl_table(mn->sysctl);
	kfree(table);
}

static int __net_init mrc_net_init(struct net *net)
{
	struct mrc_net *mn = mrc_net(net);
	unsigned int i;
	int err;

	write_pnet(&mn->net, net);
	mn->outage_timeout_ms = MRC_OUTAGE_TIMEOUT_DEFAULT;
	mn->orphan_timeout_ms = MRC_ORPHAN_TIMEOUT_DEFAULT;
	mn->max_orphans = MRC_MAX_ORPHANS_DEFAULT;
	mn->rcvbuf_max = MRC_RCVBUF_MAX_DEFAULT;
	mn->sndbuf_max = MRC_SNDBUF_MAX_DEFAULT;
	atomic_set(&mn->orphans, 0);
	mn->data_dscp = MRCTRIM_DEF_TRIMMABLE_DSCP;
	mn->trim_dscp = MRCTRIM_DEF_TRIM_DSCP;
	mrc_probe_init_net(mn);
	mrc_ratelimit_init(&mn->rst_rl);

	spin_lock_init(&mn->bind_lock);
	for (i = 0; i < ARRAY_SIZE(mn->bind_hash); i++)
		INIT_HLIST_HEAD(&mn->bind_hash[i]);
	mrc_path_init_net(mn);
	mrc_cc_init_net(mn);

	err = rhashtable_init(&mn->conns, &mrc_conn_params);
	if (err)
		return err;
	err = mrc_mib_init(net);
	if (err)
		goto err_conns;
	err = mrc_mem_init_net(net);
	if (err)
		goto err_mib;
	err = mrc_sysctl_init(net, mn);
	if (err)
		goto err_mem;
	err = mrc_udp_sock_create(net, mn);
	if (err) {
		pr_err("cannot bind UDP port %u: %d\n", mrc_udp_port, err);
		goto err_sysctl;
	}
	return 0;

err_sysctl:
	mrc_sysctl_exit(mn);
err_mem:
	mrc_mem_exit_net(net);
err_mib:
	mrc_mib_exit(net);
err_conns:
	rhashtable_destroy(&mn->conns);
	return err;
}

static void __net_exit mrc_net_exit(struct net *net)
{
	struct mrc_net *mn = mrc_net(net);

	/* Every MRC socket, orphans included, holds its namespace. */
	WARN_ON_ONCE(mn->nr_bound);
	WARN_ON_ONCE(atomic_read(&mn->conns.nelems));
	/* The probe timer sends from the UDP socket: stop it first. With
	 * no path left to probe, a reply arriving meanwhile re-arms nothing.
	 */
	mrc_probe_exit_net(mn);
	udp_tunnel_sock_release(mn->udp_sock);
	mrc_path_flush(net);
	mrc_sysctl_exit(mn);
	mrc_mem_exit_net(net);
	mrc_mib_exit(net);
	rhashtable_destroy(&mn->conns);
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
