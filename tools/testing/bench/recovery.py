#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn recovery.sh's captures into the recovery timeline.

recovery.py --rate MBIT --planes K --dir DIR --out OUT.json --plot OUT.png
            [--reps N] [--base-rtt-us US --rto-min-ms MS] PROTO...

--plot '' draws nothing (gnuplot takes seconds under emulation).

For each PROTO and each run R of 1..N (default 1), DIR holds
cap-PROTO-R-K.pcap (what host 2 received on its link to spine K) and
events-PROTO-R ("TIME start|fail|heal" lines, the same clock as the
captures); a run without its events file did not complete and is left
out. Data packets are MRC DATA (UDP port 4797, type 1)
and TCP segments with payload. Per plane, wire bytes (frame length) go in
1 ms bins, from the start of the transfer.

The failure is stamped before the command that stages it, which takes a
while under emulation; it takes effect at the last arrival on the failed
plane before the heal (fail_at_ms), and the figures count from there.

Figures per protocol, all in milliseconds:
  stall_ms       the longest gap between data arrivals (any plane) from
                 the failure until the heal, counting the failure itself
                 as an arrival
  back_to_90_ms  from the failure until the wire rate over 10 ms is at
                 least 90% of the capacity that remains (K - 1 planes; one
                 plane for TCP, which runs on the failed plane, and so only
                 after the heal)
  healed_use_ms  from the heal until the failed plane carries data again
  healed_share   the failed plane's share of the data from 500 ms after
                 the heal to the end (1/K when it is fully back)

Each figure of a protocol is the median of its runs, with the smallest
and largest in FIGURE_spread, and every run's figures in "runs" (a figure
a run never reached, such as back_to_90_ms, counts as the largest). The
bins of the run with the median stall go in DIR/recovery-PROTO.dat and
in the plot. With --base-rtt-us, "goals" says whether the stall is at most 10 base
RTTs plus the minimum RTO and whether back_to_90_ms is at most 50 ms.
"""

import argparse
import json
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../../selftests/net/mrc"))
import pcap_mrc  # noqa: E402 (found through the path above)

FAILED_PLANE = 2
COV_BIN = 25


MRC_F_RETX = 0x0004


def data_kind(ip6):
    """None unless an MRC DATA packet or a TCP segment with payload; then
    "retx" for an MRC DATA packet flagged as a retransmission, else
    "data"."""
    if len(ip6) < 40 or ip6[0] >> 4 != 6:
        return None
    plen = struct.unpack(">H", ip6[4:6])[0]
    nh, off, _ = pcap_mrc.upper_layer(ip6)
    if nh == 17 and off + 12 <= len(ip6):
        dport = struct.unpack(">H", ip6[off + 2:off + 4])[0]
        if dport != 4797 or ip6[off + 9] != 1:
            return None
        flags = struct.unpack(">H", ip6[off + 10:off + 12])[0]
        return "retx" if flags & MRC_F_RETX else "data"
    if nh == 6 and off + 13 <= len(ip6):
        doff = (ip6[off + 12] >> 4) * 4
        return "data" if 40 + plen - off - doff > 0 else None
    return None


def analyse(d, proto, run, planes, rate):
    """The figures of one run, and its bins."""
    events = {}
    with open(os.path.join(d, "events-%s-%d" % (proto, run))) as f:
        for line in f:
            t, what = line.split()
            events[what] = float(t)
    t0, tf, th = events["start"], events["fail"], events["heal"]
    stamped = tf
    arrivals = []
    bins = {}
    retx = []
    for k in range(1, planes + 1):
        path = os.path.join(d, "cap-%s-%d-%d.pcap" % (proto, run, k))
        if not os.path.exists(path):
            continue
        for _, t, length, ip6 in pcap_mrc.frames(path):
            kind = data_kind(ip6) if t >= t0 else None
            if not kind:
                continue
            arrivals.append((t, k))
            if kind == "retx" and k != FAILED_PLANE:
                retx.append(t)
            b = int((t - t0) * 1000)
            bins.setdefault(b, [0] * (planes + 1))[k] += length
    arrivals.sort()
    for t, k in arrivals:
        if stamped <= t < th and k == FAILED_PLANE:
            tf = t
    last = max(bins) if bins else 0
    series = [bins.get(b, [0] * (planes + 1)) for b in range(last + 1)]

    # The stall: the longest gap from the failure on, until the heal.
    prev, stall = tf, 0.0
    for t, _ in arrivals:
        if t < tf:
            continue
        if t > th:
            stall = max(stall, min(t, th) - prev)
            break
        stall = max(stall, t - prev)
        prev = t
    else:
        stall = max(stall, th - prev)

    # Back to 90%: a 10 ms window at 90% of what remains.
    left = 1 if proto == "tcp" else planes - 1
    want = 0.9 * left * rate * 1e6 / 8 * 0.010
    fb = int((tf - t0) * 1000)
    back = None
    for b in range(fb, len(series) - 10):
        if sum(sum(series[i][1:]) for i in range(b, b + 10)) >= want:
            back = (b + 10) - (tf - t0) * 1000
            break

    healed = None
    for t, k in arrivals:
        if t >= th and k == FAILED_PLANE:
            healed = (t - th) * 1000
            break
    # The first retransmission to arrive over another plane (MRC marks
    # them; TCP's are not told apart here).
    first_retx = min((t for t in retx if t >= tf), default=None)

    # What each plane still working carried during the failure, against
    # its link rate: the worst of them.
    fb_end = int((th - t0) * 1000)
    span = (th - tf) * 1000
    others = None
    if proto != "tcp" and span > 0:
        others = min(sum(series[b][k] for b in range(fb, min(fb_end, len(series))))
                     * 8 / 1e3 / span / rate
                     for k in range(1, planes + 1) if k != FAILED_PLANE)

    # Steady state before the failure: each plane's goodput in 25 ms
    # bins from 200 ms after the start, its coefficient of variation
    # (standard deviation over mean), averaged over the planes.
    cov = None
    if proto != "tcp":
        covs = []
        for k in range(1, planes + 1):
            vals = [sum(series[b][k] for b in range(i, i + COV_BIN))
                    for i in range(200, fb - COV_BIN + 1, COV_BIN)]
            mean = sum(vals) / len(vals) if vals else 0
            if mean > 0 and len(vals) > 1:
                var = sum((v - mean) ** 2 for v in vals) / (len(vals) - 1)
                covs.append(var ** 0.5 / mean)
        cov = sum(covs) / len(covs) if covs else None

    hb = int((th - t0) * 1000) + 500
    after = [sum(r[1:]) for r in series[hb:]]
    failed = [r[FAILED_PLANE] for r in series[hb:]]
    share = sum(failed) / sum(after) if sum(after) else None

    return {
        "run": run,
        "stall_ms": round(stall * 1000, 1),
        "back_to_90_ms": None if back is None else round(back, 1),
        "healed_use_ms": None if healed is None else round(healed, 1),
        "healed_share": None if share is None else round(share, 3),
        "first_retx_ms": None if first_retx is None else
        round((first_retx - tf) * 1000, 1),
        "others_rate_min": None if others is None else round(others, 3),
        "plane_cov": None if cov is None else round(cov, 3),
        "fail_at_ms": round((tf - t0) * 1000, 1),
        "heal_at_ms": round((th - t0) * 1000, 1),
        "data_packets": len(arrivals),
    }, series


FIGURES = ("stall_ms", "back_to_90_ms", "healed_use_ms", "healed_share",
           "first_retx_ms", "others_rate_min", "plane_cov", "data_packets")


def retirements(d, cap, r):
    """The retirements (-> assumed-bad, reason loss) of MRC run R, from its
    stamped path events (DIR/monitor-mrc-R: "EPOCH path PREFIX id N OLD ->
    NEW (REASON)"), each as [path id, ms since the failure], or None
    without that file or the run's failure event (in CAP)."""
    path = os.path.join(d, "monitor-mrc-%d" % r)
    ev = os.path.join(cap, "events-mrc-%d" % r) if cap else None
    if not os.path.exists(path) or not ev or not os.path.exists(ev):
        return None
    with open(ev) as f:
        fail = {w: float(t) for t, w in (line.split() for line in f)}.get("fail")
    if fail is None:
        return None
    out = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) >= 9 and w[1] == "path" and w[7] == "assumed-bad" and \
                    w[8] == "(loss)":
                out.append([int(w[4]), round((float(w[0]) - fail) * 1000, 1)])
    return out


def mib_runs(d, reps, cap=None):
    """Host 1's MIB deltas of each MRC run that left them (DIR/mib-mrc-R:
    "NAME DELTA" lines): PathsRetired, RetireUndone and RtoFired; and
    which path each retirement took when, from the path events."""
    runs = []
    for r in range(1, reps + 1):
        path = os.path.join(d, "mib-mrc-%d" % r)
        if not os.path.exists(path):
            continue
        m = {}
        with open(path) as f:
            for line in f:
                name, val = line.split()
                m[name] = int(val)
        run = {"run": r, "retired": m.get("PathsRetired", 0),
               "undone": m.get("RetireUndone", 0),
               "rtos": m.get("RtoFired", 0)}
        ret = retirements(d, cap, r)
        if ret is not None:
            run["retirements"] = ret
        runs.append(run)
    return runs


def median(vals):
    """The median (the lower one of an even count) of VALS, where None is
    a figure never reached and sorts last; the smallest and largest."""
    key = sorted(vals, key=lambda v: (v is None, v))
    return key[(len(key) - 1) // 2], [key[0], key[-1]]


def summarise(d, proto, reps, planes, rate):
    """The median of PROTO's runs; the median-stall run's bins to DIR."""
    runs = [analyse(d, proto, r, planes, rate) for r in range(1, reps + 1)
            if os.path.exists(os.path.join(d, "events-%s-%d" % (proto, r)))]
    if not runs:
        return None
    res = {}
    for fig in FIGURES:
        res[fig], res[fig + "_spread"] = median(
            [r[0][fig] for r in runs])
    fig, series = sorted(runs, key=lambda r: r[0]["stall_ms"])[
        (len(runs) - 1) // 2]
    res["plotted_run"] = fig["run"]
    res["fail_at_ms"] = fig["fail_at_ms"]
    res["heal_at_ms"] = fig["heal_at_ms"]
    res["runs"] = [r[0] for r in runs]
    with open(os.path.join(d, "recovery-%s.dat" % proto), "w") as f:
        f.write("# ms " + " ".join("plane%d_mbps" % k
                                   for k in range(1, planes + 1)) + "\n")
        for b, row in enumerate(series):
            f.write("%d %s\n" % (b, " ".join("%.3f" % (row[k] * 8 / 1e3)
                                             for k in range(1, planes + 1))))
    return res


AVG = 25


def plot(d, protos, res, planes, png):
    """Per-plane goodput, averaged over AVG ms, one panel per protocol;
    the failed plane is drawn last and thicker."""
    lines = ["set terminal png size 1200,%d" % (300 * len(protos)),
             "set output '%s'" % png,
             "set multiplot layout %d,1" % len(protos),
             "set xlabel 'time since the start (ms)'",
             "set ylabel 'Mbit/s, %d ms average'" % AVG,
             "set yrange [0:*]",
             "set key outside right"]
    for p in protos:
        r = res[p]
        pr = next(x for x in r["runs"] if x["run"] == r["plotted_run"])
        src = os.path.join(d, "recovery-%s.dat" % p)
        avg = os.path.join(d, "recovery-%s-avg.dat" % p)
        rows = [list(map(float, l.split())) for l in open(src)
                if not l.startswith("#")]
        # A running sum over the last AVG bins of each plane.
        acc = [0.0] * (planes + 1)
        with open(avg, "w") as f:
            for i, row in enumerate(rows):
                for k in range(1, planes + 1):
                    acc[k] += row[k]
                    if i >= AVG:
                        acc[k] -= rows[i - AVG][k]
                f.write("%d %s\n" % (row[0], " ".join(
                    "%.3f" % (acc[k] / AVG) for k in range(1, planes + 1))))
        # Runs are numbered by repetition; a failed one leaves a gap.
        done = len(r["runs"])
        lines.append("set title '%s (run %d of %d%s, the median stall): "
                     "stall %s ms, back to 90%% %s ms after the failure "
                     "(red); healed at the green line'" %
                     (p, r["plotted_run"], res["reps"],
                      "" if done == res["reps"] else ", %d complete" % done,
                      pr["stall_ms"], pr["back_to_90_ms"]))
        lines.append("set arrow 1 from %s, graph 0 to %s, graph 1 nohead "
                     "lc rgb 'red'" % (r["fail_at_ms"], r["fail_at_ms"]))
        lines.append("set arrow 2 from %s, graph 0 to %s, graph 1 nohead "
                     "lc rgb 'dark-green'" % (r["heal_at_ms"], r["heal_at_ms"]))
        order = [k for k in range(1, planes + 1) if k != FAILED_PLANE]
        order.append(FAILED_PLANE)
        lines.append("plot " + ", ".join(
            "'%s' using 1:%d with lines lw %d title 'plane %d%s'" %
            (avg, k + 1, 3 if k == FAILED_PLANE else 1, k,
             " (failed)" if k == FAILED_PLANE else "")
            for k in order))
    lines.append("unset multiplot")
    script = os.path.join(d, "recovery.gp")
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    try:
        subprocess.run(["gnuplot", script], check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print("recovery.py: no plot: %s" % e, file=sys.stderr)
        return False
    return True


def failure_goals(res, goal):
    """Issue 29's goals for MRC against MPTCP measured in the same run."""
    m, t = res["mrc"], res["mptcp"]
    worst = m["stall_ms_spread"][1]
    cov, tcov = m.get("plane_cov"), t.get("plane_cov")
    return {
        "stall_below_mptcp": m["stall_ms"] <= goal and
        m["stall_ms"] < t["stall_ms"],
        "worst_stall": worst <= 2 * goal and
        worst < t["stall_ms_spread"][1],
        "others_kept": (m.get("others_rate_min") or 0) >= 0.9 and
        m.get("runs_retiring_more", 1) == 0,
        "spurious": m.get("spurious_ratio", 1) <= 0.1,
        "plane_cov": cov is not None and tcov is not None and
        cov <= 1.5 * tcov,
        "plane_cov_ratio": None if not cov or not tcov else round(cov / tcov, 2),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate", type=float, required=True)
    ap.add_argument("--planes", type=int, required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--plot", required=True)
    ap.add_argument("--base-rtt-us", type=float)
    ap.add_argument("--rto-min-ms", type=float, default=10)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--mib-dir")
    ap.add_argument("protos", nargs="+")
    a = ap.parse_args()
    res = {}
    for p in a.protos:
        r = summarise(a.dir, p, a.reps, a.planes, a.rate)
        if r is None:
            print("recovery.py: no complete run of %s" % p, file=sys.stderr)
            sys.exit(1)
        res[p] = r
    res["reps"] = a.reps
    res["link_rate_mbps"] = a.rate
    res["planes"] = a.planes
    mibs = mib_runs(a.mib_dir, a.reps, a.dir) if a.mib_dir and "mrc" in res else []
    if mibs:
        retired = sum(m["retired"] for m in mibs)
        undone = sum(m["undone"] for m in mibs)
        res["mrc"]["mib_runs"] = mibs
        res["mrc"]["paths_retired"] = retired
        res["mrc"]["retire_undone"] = undone
        res["mrc"]["spurious_ratio"] = round(undone / retired, 3) if retired else 0
        # The failed plane's retirement is the one a run should have.
        res["mrc"]["runs_retiring_more"] = sum(m["retired"] > 1 for m in mibs)
        # The retirements beyond the failed plane's one, each as [run,
        # path id, ms since the failure] (negative: before it).
        if all("retirements" in m for m in mibs):
            extra = []
            for m in mibs:
                own = [x for x in m["retirements"]
                       if x[0] == FAILED_PLANE and x[1] >= 0]
                for x in m["retirements"]:
                    if own and x is own[0]:
                        continue
                    extra.append([m["run"]] + x)
            res["mrc"]["extra_retirements"] = extra
            # Before the failure, a retirement is spurious by construction.
            res["mrc"]["retired_before_failure"] = sum(
                x[1] < 0 for m in mibs for x in m["retirements"])
        res["mrc"]["rtos"] = sum(m["rtos"] for m in mibs)
    if a.base_rtt_us:
        goal = 10 * a.base_rtt_us / 1000 + a.rto_min_ms
        res["base_rtt_ms"] = round(a.base_rtt_us / 1000, 3)
        res["stall_goal_ms"] = round(goal, 1)
        res["goals"] = {p: {
            "stall": res[p]["stall_ms"] <= goal,
            "back_to_90": res[p]["back_to_90_ms"] is not None and
            res[p]["back_to_90_ms"] <= 50} for p in a.protos}
        if "mrc" in res and "mptcp" in res:
            res["goals"]["mrc"].update(failure_goals(res, goal))
    res["plot"] = (a.plot if a.plot and plot(a.dir, a.protos, res, a.planes, a.plot)
                   else None)
    with open(a.out, "w") as f:
        json.dump(res, f, indent=2)
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
