// SPDX-License-Identifier: GPL-2.0
/*
 * MRC (Multipath Reliable Connection) for Linux: module entry points and
 * parameters. Documentation/networking/mrc.rst describes each parameter.
 */
#include <linux/build_bug.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mrc.h>
#include <linux/net.h>

#include "mrc_wire.h"
#include "mem.h"
#include "conn_paths.h"
#include "netlink.h"
#include "output.h"
#include "params.h"
#include "pernet.h"
#include "socket.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

int mrc_family __read_mostly = AF_MRC;
module_param_named(family, mrc_family, int, 0444);
MODULE_PARM_DESC(family, "Address family number of AF_MRC sockets (default 25)");

unsigned short mrc_udp_port __read_mostly = 4797;
module_param_named(udp_port, mrc_udp_port, ushort, 0444);
MODULE_PARM_DESC(udp_port, "UDP destination port of MRC packets (default 4797)");

unsigned int mrc_rto_min_ms __read_mostly = 10;
module_param_named(rto_min_ms, mrc_rto_min_ms, uint, 0644);
MODULE_PARM_DESC(rto_min_ms, "Lower bound of the retransmission timeout, ms (default 10)");

unsigned int mrc_rto_max_ms __read_mostly = 1000;
module_param_named(rto_max_ms, mrc_rto_max_ms, uint, 0644);
MODULE_PARM_DESC(rto_max_ms, "Upper bound of the retransmission timeout with backoff, ms (default 1000)");

unsigned int mrc_rto_init_ms __read_mostly = 200;
module_param_named(rto_init_ms, mrc_rto_init_ms, uint, 0644);
MODULE_PARM_DESC(rto_init_ms, "Retransmission timeout before the first RTT sample, ms (default 200)");

unsigned int mrc_max_retries __read_mostly = 10;
module_param_named(max_retries, mrc_max_retries, uint, 0644);
MODULE_PARM_DESC(max_retries, "Timeouts without hearing from the peer before ETIMEDOUT (default 10)");

unsigned int mrc_syn_retries __read_mostly = 6;
module_param_named(syn_retries, mrc_syn_retries, uint, 0644);
MODULE_PARM_DESC(syn_retries, "SYN and SYNACK retransmissions before giving up (default 6)");

unsigned int mrc_ack_every __read_mostly = 16;
module_param_named(ack_every, mrc_ack_every, uint, 0644);
MODULE_PARM_DESC(ack_every, "Send an ACK after this many DATA packets not acknowledged at once (default 16)");

unsigned int mrc_ack_delay_us __read_mostly = 1000;
module_param_named(ack_delay_us, mrc_ack_delay_us, uint, 0644);
MODULE_PARM_DESC(ack_delay_us, "Longest delay of an ACK, us, rounded up to a jiffy (default 1000)");

bool mrc_tail_probes __read_mostly = true;
module_param_named(tail_probes, mrc_tail_probes, bool, 0644);
MODULE_PARM_DESC(tail_probes, "Send the newest packet in flight again when it goes unanswered for its path's timeout, before the RTO (default Y)");

unsigned int mrc_auto_paths __read_mostly = 16;
module_param_named(auto_paths, mrc_auto_paths, uint, 0644);
MODULE_PARM_DESC(auto_paths, "Entropy-only paths of a connection with no path set, 1-256 (default 16)");

unsigned int mrc_spray_burst __read_mostly;
module_param_named(spray_burst, mrc_spray_burst, uint, 0644);
MODULE_PARM_DESC(spray_burst, "Consecutive packets put on one path before choosing again, 1-64 (1: each sent alone, no GSO batch); 0: flowcells sized from the window (default 0)");

unsigned int mrc_probe_interval_ms __read_mostly = 10;
module_param_named(probe_interval_ms, mrc_probe_interval_ms, uint, 0644);
MODULE_PARM_DESC(probe_interval_ms, "Interval between probes of an assumed-bad path, doubled while unanswered up to 100 ms, ms (default 10)");

unsigned int mrc_probe_good __read_mostly = 3;
module_param_named(probe_good, mrc_probe_good, uint, 0644);
MODULE_PARM_DESC(probe_good, "Probes answered in a row that make an assumed-bad path good (default 3)");

unsigned int mrc_fail_losses __read_mostly = 3;
module_param_named(fail_losses, mrc_fail_losses, uint, 0644);
MODULE_PARM_DESC(fail_losses, "Packets of a path declared lost in a row for its timeout, with nothing later on it delivered, that retire it once silent for three times its timeout; and, when above 8, its transmissions in a row that this host must drop to retire it, 1-255 (default 3)");

unsigned int mrc_probe_rate __read_mostly = 1000;
module_param_named(probe_rate, mrc_probe_rate, uint, 0644);
MODULE_PARM_DESC(probe_rate, "Probes, and probe replies, a namespace sends per second at most (default 1000)");

unsigned int mrc_rst_rate __read_mostly = 1000;
module_param_named(rst_rate, mrc_rst_rate, uint, 0644);
MODULE_PARM_DESC(rst_rate, "RSTs a namespace sends per second at most for packets of no connection or listener (default 1000)");

static int __init mrc_init(void)
{
	int err;

	BUILD_BUG_ON(sizeof(struct mrc_hdr) != 16);
	BUILD_BUG_ON(sizeof(struct mrc_data) != 36);
	BUILD_BUG_ON(sizeof(struct mrc_ack) != 68);
	BUILD_BUG_ON(sizeof(struct mrc_nack) != 24);
	BUILD_BUG_ON(sizeof(struct mrc_syn) != 40);
	BUILD_BUG_ON(sizeof(struct mrc_fin) != 20);
	BUILD_BUG_ON(sizeof(struct mrc_rst) != 20);
	BUILD_BUG_ON(sizeof(struct mrc_probe) != 24);
	BUILD_BUG_ON(MRC_SACK_BITS != MRC_WND);
	BUILD_BUG_ON(sizeof(struct mrc_txpkt) != 32);

	if (mrc_family <= 0 || mrc_family >= NPROTO) {
		pr_err("family %d is outside 1..%d\n", mrc_family, NPROTO - 1);
		return -EINVAL;
	}
	if (!mrc_udp_port) {
		pr_err("udp_port must not be 0\n");
		return -EINVAL;
	}

	err = mrc_mpath_init();
	if (err)
		return err;
	err = mrc_output_init();
	if (err)
		goto err_mpath;
	err = mrc_mem_init();
	if (err)
		goto err_output;
	err = mrc_pernet_init();
	if (err)
		goto err_mem;
	err = mrc_netlink_init();
	if (err)
		goto err_pernet;
	err = mrc_socket_init();
	if (err) {
		pr_err("cannot register address family %d: %d\n",
		       mrc_family, err);
		goto err_netlink;
	}
	return 0;

err_netlink:
	mrc_netlink_exit();
err_pernet:
	mrc_pernet_exit();
	rcu_barrier();
err_mem:
	mrc_mem_exit();
err_output:
	mrc_output_exit();
err_mpath:
	mrc_mpath_exit();
	return err;
}

static void __exit mrc_exit(void)
{
	mrc_socket_exit();
	mrc_netlink_exit();
	mrc_pernet_exit();
	/* Sockets are freed after a grace period (SOCK_RCU_FREE). A path
	 * set freed by an RCU callback frees its paths with another one,
	 * which the second barrier waits for.
	 */
	rcu_barrier();
	rcu_barrier();
	mrc_mem_exit();
	mrc_output_exit();
	mrc_mpath_exit();
}

module_init(mrc_init);
module_exit(mrc_exit);

MODULE_LICENSE("GPL");
MODULE_VERSION(MRC_MOD_VERSION);
MODULE_DESCRIPTION("MRC: Multipath Reliable Connection sockets");
MODULE_ALIAS_NETPROTO(AF_MRC);
