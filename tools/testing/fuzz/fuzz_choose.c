// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_choose: the path chooser (net/mrc/sched.c, built as the module
 * builds it) under arbitrary path states and choices.
 *
 * Input: the number of paths (1 to 32), then for each a byte of state
 * (good, assumed-bad or denied; deleted; too big for its SRH; automatic,
 * that is no configured path; cooling after a CE mark; retired if
 * automatic) and a byte of credits; then operations of two bytes each:
 * choose a path for DATA (avoiding one, or none), for a control packet
 * (preferring one EV, or none), change one path's state byte, move the
 * clock, set the spray burst, set one path's credits, or name a path
 * (or one out of range) to verify. Every choice is checked against what
 * the chooser promises:
 *  - -1 exactly when no path may be used (for control packets: when
 *    every path is denied, deleted or too big);
 *  - DATA goes on a usable path; on the path to avoid only when no other
 *    is usable; on one cooling down only when every usable path but the
 *    one to avoid is;
 *  - a control packet goes on the preferred EV when it is usable, and on
 *    a path that is not usable only when none is.
 *
 * mrc_fuzz_one() is libFuzzer's entry point: run links it under the
 * name libFuzzer calls.
 */
#include <stdlib.h>

#include "conn_paths.h"
#include "sched.h"

#define MAX_PATHS	32

u32 mrc_fuzz_now_us;
unsigned int mrc_spray_burst = 1;

static struct mrc_path paths[MAX_PATHS];

static void set_state(struct mrc_cpaths *cps, unsigned int i, u8 b)
{
	struct mrc_cpath *cp = &cps->p[i];
	static const u8 states[] = {
		MRC_PATH_GOOD, MRC_PATH_ASSUMED_BAD, MRC_PATH_DENIED, MRC_PATH_GOOD
	};

	paths[i].state = states[b & 3];
	paths[i].dead = b >> 2 & 1;
	cp->unfit = b >> 3 & 1;
	cp->path = b >> 4 & 1 ? NULL : &paths[i];
	cp->ecn_until_us = b >> 5 & 1 ? mrc_fuzz_now_us + 1000 : 0;
	cp->bad_until_us = b >> 6 & 1 ? mrc_fuzz_now_us + 500 : 0;
}

static bool cooling(const struct mrc_cpath *cp)
{
	return cp->ecn_until_us && (s32)(cp->ecn_until_us - mrc_fuzz_now_us) > 0;
}

static bool fallback(const struct mrc_cpath *cp)
{
	return !cp->path || (cp->path->state != MRC_PATH_DENIED &&
			     !cp->path->dead && !cp->unfit);
}

static void check_data(struct mrc_cpaths *cps, int avoid)
{
	bool other_usable = false, other_cool = true, any = false;
	int r = mrc_cp_pick(cps, avoid, mrc_fuzz_now_us);
	unsigned int i;

	for (i = 0; i < cps->nr; i++) {
		if (!mrc_cp_usable(&cps->p[i]))
			continue;
		any = true;
		if ((int)i != avoid) {
			other_usable = true;
			if (!cooling(&cps->p[i]))
				other_cool = false;
		}
	}
	if (r < 0) {
		if (any)
			abort();
		return;
	}
	if (r >= cps->nr || !mrc_cp_usable(&cps->p[r]))
		abort();
	if (r == avoid && other_usable)
		abort();
	if (cooling(&cps->p[r]) && !other_cool)
		abort();
}

static void check_ctrl(struct mrc_cpaths *cps, int ev)
{
	bool any_usable = false, any_fallback = false;
	int r = mrc_cp_pick_ctrl(cps, ev), want = -1;
	unsigned int i;

	for (i = 0; i < cps->nr; i++) {
		any_usable |= mrc_cp_usable(&cps->p[i]);
		any_fallback |= fallback(&cps->p[i]);
		if (ev >= 0 && cps->p[i].id == ev && mrc_cp_usable(&cps->p[i]))
			want = i;
	}
	if (r < 0) {
		if (any_usable || any_fallback)
			abort();
		return;
	}
	if (r >= cps->nr || !fallback(&cps->p[r]))
		abort();
	if (want >= 0 && r != want)
		abort();
	if (!mrc_cp_usable(&cps->p[r]) && any_usable)
		abort();
}

int mrc_fuzz_one(const u8 *data, size_t size)
{
	struct mrc_cpaths *cps;
	unsigned int nr, i;

	if (size < 1)
		return 0;
	nr = 1 + data[0] % MAX_PATHS;
	if (size < 1 + 2 * nr)
		return 0;
	cps = calloc(1, sizeof(*cps) + nr * sizeof(cps->p[0]));
	if (!cps)
		return 0;
	mrc_fuzz_now_us = 1000000;
	mrc_spray_burst = 1;
	cps->nr = nr;
	for (i = 0; i < nr; i++) {
		cps->p[i].id = 3 * i + 1;
		set_state(cps, i, data[1 + 2 * i]);
		cps->p[i].credit = data[2 + 2 * i] % (MRC_CREDIT_MAX + 1);
	}
	for (data += 1 + 2 * nr, size -= 1 + 2 * nr; size >= 2; data += 2, size -= 2) {
		u8 op = data[0], arg = data[1];

		switch (op % 7) {
		case 0:
			check_data(cps, arg < 128 ? (int)(arg % nr) : -1);
			break;
		case 1:
			check_ctrl(cps, arg < 128 ? (int)(arg % (3 * nr + 2)) : -1);
			break;
		case 2:
			set_state(cps, (op >> 3) % nr, arg);
			break;
		case 3:
			mrc_fuzz_now_us += arg * 16;
			break;
		case 4:
			/* 0: the flowcell the sender set, 0 to 69. */
			mrc_spray_burst = arg % 70;
			cps->cell = (op >> 3) % 70;
			break;
		case 5:
			cps->p[(op >> 3) % nr].credit = arg % (MRC_CREDIT_MAX + 1);
			break;
		case 6:
			cps->verify = arg % (nr + 2);
			break;
		}
	}
	free(cps);
	return 0;
}
