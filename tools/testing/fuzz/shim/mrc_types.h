/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tools/testing/fuzz: the module's types that net/mrc/sched.c reads,
 * with only the fields it reads (named and typed as in
 * include/mrc_types.h, which the compiler holds them to by building
 * sched.c against both), and the fuzzer's clock.
 */
#ifndef _MRC_FUZZ_TYPES_H
#define _MRC_FUZZ_TYPES_H

#include <linux/mrc.h>

#include "mrc_wire.h"

struct mrc_path {
	u8 state;
	bool dead;
};

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
