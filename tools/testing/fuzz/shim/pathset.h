/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tools/testing/fuzz: the module's struct mrc_path (net/mrc/pathset.h)
 * with only the fields net/mrc/sched.c reads, named and typed as there:
 * the compiler holds them to it by building sched.c against both. The
 * fuzz build compiles sched.c in a directory of its own, where this
 * header stands in for the module's.
 */
#ifndef _MRC_PATHSET_H
#define _MRC_PATHSET_H

#include <linux/mrc.h>

struct mrc_path {
	u8 state;
	bool dead;
};

#endif
