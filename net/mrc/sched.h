/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_SCHED_H
#define _MRC_SCHED_H

#include <linux/types.h>

struct mrc_cpath;
struct mrc_cpaths;

/* Most credits a path holds: packets acknowledged cleanly, not yet reused. */
#define MRC_CREDIT_MAX	4
/* One path choice in this many is made by round robin, ignoring credits. */
#define MRC_EXPLORE	8

int mrc_cp_find(const struct mrc_cpaths *cps, u16 id);
bool mrc_cp_usable(const struct mrc_cpath *cp);
int mrc_cp_pick(struct mrc_cpaths *cps, int avoid, u32 now);
int mrc_cp_pick_ctrl(struct mrc_cpaths *cps, int ev);

#endif /* _MRC_SCHED_H */
