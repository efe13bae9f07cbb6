// SPDX-License-Identifier: GPL-2.0
/*
 * Which path each packet of a connection takes
 * (Documentation/networking/mrc.rst). For DATA:
 *  1. never a path that is denied, assumed bad, or deleted;
 *  2. the next path in round robin that has a credit: each packet
 *     acknowledged gives its path one (up to MRC_CREDIT_MAX), and an ACK
 *     echoing CE takes all of them from the path it echoes, as UET's
 *     REPS recycles the entropies of clean ACKs: equal paths take turns
 *     exactly, a path that stops delivering or is marked stops getting
 *     packets at once, and a slower one gets fewer;
 *  3. otherwise, and for one choice in MRC_EXPLORE in any case, the next
 *     path in round robin, so that a path that comes back (or is added)
 *     earns credits again;
 *  4. in both, skipping paths that echoed CE within the ECN cool-down,
 *     unless every usable path is cooling down;
 *  5. before all of these, once, a path whose late run has just become
 *     due for retirement (mrc_cp_late()), unless the packet is to avoid
 *     it or it is cooling down: its losses may be one burst a queue
 *     dropped, and a packet sent after them shows whether it delivers;
 *  6. a path chosen by these rules takes the next packets too, up to a
 *     flowcell (&mrc_cpaths.cell, or the spray_burst parameter), as long
 *     as it stays usable, not cooling down and not the one to avoid.
 *
 * This file builds into the module and, unchanged, into the user-space
 * fuzzer of tools/testing/fuzz/, which drives it with arbitrary path
 * states: it uses nothing but the connection's paths.
 */
#include "conn_paths.h"
#include "params.h"
#include "pathset.h"
#include "sched.h"

/**
 * mrc_cp_find() - the entry of a path id
 * @cps: the connection's paths, ordered by id
 * @id: the EV
 *
 * Return: the index, or -1.
 */
int mrc_cp_find(const struct mrc_cpaths *cps, u16 id)
{
	int lo = 0, hi = cps->nr - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (cps->p[mid].id == id)
			return mid;
		if (cps->p[mid].id < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/**
 * mrc_cp_usable() - a path may carry the connection's packets
 * @cp: the path
 *
 * Return: it is good (or automatic), not deleted, and its SRH fits.
 */
bool mrc_cp_usable(const struct mrc_cpath *cp)
{
	const struct mrc_path *p = cp->path;

	if (!p)
		return !cp->bad_until_us ||
		       (s32)(mrc_now_us() - cp->bad_until_us) >= 0;
	return READ_ONCE(p->state) == MRC_PATH_GOOD && !READ_ONCE(p->dead) &&
	       !cp->unfit;
}

static bool mrc_cp_cooling(const struct mrc_cpath *cp, u32 now)
{
	return cp->ecn_until_us && (s32)(cp->ecn_until_us - now) > 0;
}

/* A control packet may still use an assumed-bad path: ACKs must go out
 * even when we think our paths are bad, for the peer's data arrives.
 */
static bool mrc_cp_fallback(const struct mrc_cpath *cp)
{
	const struct mrc_path *p = cp->path;

	return !p || (READ_ONCE(p->state) != MRC_PATH_DENIED &&
		      !READ_ONCE(p->dead) && !cp->unfit);
}

/**
 * mrc_cp_pick() - the path for the next DATA packet
 * @cps: the connection's paths, under its socket lock
 * @avoid: an entry not to use if there is another (the path a packet
 *	being retransmitted was lost on), or -1
 * @now: the clock, as mrc_clock_us() gives it
 *
 * The policy is described at the top of this file. DATA never goes on a
 * path that is not good: with none, the connection waits (an outage)
 * while the bad ones are probed.
 *
 * Return: the entry, or -1 if no path is usable.
 */
int mrc_cp_pick(struct mrc_cpaths *cps, int avoid, u32 now)
{
	u32 n, i;

	if (cps->verify) {
		i = cps->verify - 1;
		if (i >= cps->nr || !mrc_cp_usable(&cps->p[i])) {
			cps->verify = 0;
		} else if ((int)i != avoid && !mrc_cp_cooling(&cps->p[i], now)) {
			cps->verify = 0;
			goto found_rr;
		}
	}
	if (cps->burst_left && cps->last != avoid &&
	    mrc_cp_usable(&cps->p[cps->last]) &&
	    !mrc_cp_cooling(&cps->p[cps->last], now)) {
		cps->burst_left--;
		return cps->last;
	}
	/* Credits alone would keep a path that was retired and came back
	 * (or was added) at the few packets it had when it returned: one
	 * choice in MRC_EXPLORE ignores them.
	 */
	if (++cps->explore >= MRC_EXPLORE)
		cps->explore = 0;
	for (n = 0; cps->explore && n < cps->nr; n++) {
		struct mrc_cpath *cp;

		i = (cps->rr + n) % cps->nr;
		cp = &cps->p[i];
		if (cp->credit && (int)i != avoid && mrc_cp_usable(cp) &&
		    !mrc_cp_cooling(cp, now)) {
			cp->credit--;
			goto found_rr;
		}
	}
	for (n = 0; n < cps->nr; n++) {
		i = (cps->rr + n) % cps->nr;
		if ((int)i != avoid && mrc_cp_usable(&cps->p[i]) &&
		    !mrc_cp_cooling(&cps->p[i], now))
			goto found_rr;
	}
	/* Every usable path is cooling down, or is the one to avoid: better
	 * one cooling down than the one the packet was just lost on.
	 */
	for (n = 0; n < cps->nr; n++) {
		i = (cps->rr + n) % cps->nr;
		if ((int)i != avoid && mrc_cp_usable(&cps->p[i]))
			goto found_rr;
	}
	if (avoid >= 0 && avoid < cps->nr && mrc_cp_usable(&cps->p[avoid])) {
		i = avoid;
		goto found_rr;
	}
	return -1;

found_rr:
	cps->rr = (i + 1) % cps->nr;
	cps->last = i;
	cps->burst_left = clamp_t(u32, READ_ONCE(mrc_spray_burst) ?: cps->cell,
				  1, 64) - 1;
	return i;
}

/**
 * mrc_cp_pick_ctrl() - the path for a control packet
 * @cps: the connection's paths, under its socket lock
 * @ev: the path to prefer (an ACK's echoed EV), or -1
 *
 * Control packets rotate over the usable paths, apart from the data's
 * credits and round robin.
 *
 * Return: the entry, or -1 if every path is denied or gone.
 */
int mrc_cp_pick_ctrl(struct mrc_cpaths *cps, int ev)
{
	u32 n, i;
	int j;

	if (ev >= 0) {
		j = mrc_cp_find(cps, ev);
		if (j >= 0 && mrc_cp_usable(&cps->p[j]))
			return j;
	}
	for (n = 0; n < cps->nr; n++) {
		i = (cps->ctrl_rr + n) % cps->nr;
		if (mrc_cp_usable(&cps->p[i]))
			goto found;
	}
	for (n = 0; n < cps->nr; n++) {
		i = (cps->ctrl_rr + n) % cps->nr;
		if (mrc_cp_fallback(&cps->p[i]))
			goto found;
	}
	return -1;
found:
	cps->ctrl_rr = (i + 1) % cps->nr;
	return i;
}
