// SPDX-License-Identifier: GPL-2.0
/*
 * MRC (Multipath Reliable Connection) for Linux: module entry points.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/net.h>

#include "pernet.h"
#include "socket.h"

module_param_named(family, mrc_family, int, 0444);
MODULE_PARM_DESC(family, "Address family number of AF_MRC sockets (default 25)");

static int __init mrc_init(void)
{
	int err;

	if (mrc_family <= 0 || mrc_family >= NPROTO) {
		pr_err("family %d is outside 1..%d\n", mrc_family, NPROTO - 1);
		return -EINVAL;
	}

	err = mrc_pernet_init();
	if (err)
		return err;

	err = mrc_socket_init();
	if (err) {
		pr_err("cannot register address family %d: %d\n",
		       mrc_family, err);
		mrc_pernet_exit();
	}
	return err;
}

static void __exit mrc_exit(void)
{
	mrc_socket_exit();
	mrc_pernet_exit();
}

module_init(mrc_init);
module_exit(mrc_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("MRC: Multipath Reliable Connection sockets");
MODULE_ALIAS_NETPROTO(AF_MRC);
