/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tools/testing/fuzz: the module's struct mrc_cpath and struct mrc_cpaths
 * (net/mrc/conn_paths.h) with only the fields net/mrc/sched.c reads,
 * named and typed as there (the compiler holds them to it by building
 * sched.c against both), and the fuzzer's clock for mrc_now_us()
 * (net/mrc/socket.h). The fuzz build compiles sched.c in a directory of
 * its own, where this header stands in for the module's.
 */
#ifndef _MRC_CONN_PATHS_H
#define _MRC_CONN_PATHS_H

#include <linux/mrc.h>

#include "mrc_wire.h"
#include "pathset.h"

struct mrc_cpath {
	struct mrc_path *path;
	u16 id;
	bool unfit;
	u32 ecn_until_us;
	u32 bad_until_us;
	u8 credit;
};

struct mrc_cpaths {
	u16 nr;
	u16 rr;
	u16 ctrl_rr;
	u16 last;
	u16 burst_left;
	u16 cell;
	u16 explore;
	u16 verify;
	struct mrc_cpath p[];
};

extern u32 mrc_fuzz_now_us;

static inline u32 mrc_now_us(void)
{
	return mrc_fuzz_now_us;
}

#endif
