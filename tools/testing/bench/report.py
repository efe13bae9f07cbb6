#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""report.py IN OUT: gather one `make bench` run.

IN holds what the benchmarks wrote in the guest (basic.json,
multipath.json, recovery.json and recovery.png, incast.json,
scale.json), and pair.json from the two guests of make bench-pair. OUT
gets:
  latest.json  every benchmark's figures, plus "goals": each goal of the
               benchmark issue with its target, the measured ratio and
               whether it holds;
  latest.md    the summary tables (Markdown); README.md quotes the goals;
  *.png        plots (gnuplot): goodput.png, multipath.png, incast.png,
               scale.png, and recovery.png as the benchmark drew it.
A benchmark that did not run (no JSON) is reported as missing, and its
goals as not measured.
"""
import json
import os
import shutil
import subprocess
import sys


def load(d, name):
    p = os.path.join(d, name + ".json")
    try:
        with open(p) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def ratio(a, b):
    if a is None or b is None or not b:
        return None
    return round(a / b, 3)


def fmt(v, nd=1):
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return ("%." + str(nd) + "f") % v
    return str(v)


def goal(goals, name, measured, target, ok, note=""):
    """A row of the goals table. A target of "reported" is no goal: the
    figure is shown beside the goals it qualifies, and "holds" says so."""
    if measured is None:
        holds = None
    elif target == "reported":
        holds = "reported"
    else:
        holds = bool(ok)
    goals.append({"goal": name, "target": target, "measured": measured,
                  "holds": holds, "note": note})


def plot(out_dir, name, rows, size, body):
    """Draw NAME.png with gnuplot from ROWS (lines of NAME.dat) and BODY."""
    if not shutil.which("gnuplot"):
        return False
    dat = os.path.join(out_dir, name + ".dat")
    gp = os.path.join(out_dir, name + ".gp")
    with open(dat, "w") as f:
        f.write("\n".join(rows) + "\n")
    with open(gp, "w") as f:
        f.write("set terminal png size %s noenhanced\nset output '%s.png'\n%s"
                % (size, name, body.replace("DATA", "'%s.dat'" % name)))
    r = subprocess.run(["gnuplot", os.path.abspath(gp)], cwd=out_dir)
    os.unlink(dat)
    os.unlink(gp)
    return r.returncode == 0


def main():
    src, dst = sys.argv[1], sys.argv[2]
    os.makedirs(dst, exist_ok=True)
    res = {n: load(src, n) for n in
           ("basic", "multipath", "recovery", "incast", "scale", "pair")}
    goals = []
    md = ["# MRC benchmark results", ""]
    kernel = next((r["kernel"] for r in res.values()
                   if r and "kernel" in r), "unknown")
    clock = next((r["clocksource"] for r in res.values()
                  if r and "clocksource" in r), "unknown")
    md.append("Kernel %s, one QEMU/TCG guest keeping time with the %s "
              "clock source; every ratio compares figures measured in the "
              "same run. Medians of the repetitions, with the spread "
              "(smallest-largest run) where given." % (kernel, clock))
    md.append("")

    b = res["basic"]
    if b:
        md += ["## One path (veth), goodput and CPU", "",
               "| MTU | conns | MRC Mbit/s | TCP Mbit/s | UDP Mbit/s | "
               "MRC/TCP | MRC CPU s/GB | TCP CPU s/GB | CPU ratio | "
               "MRC ACKs/DATA | MRC DATA/skb |",
               "|---|---|---|---|---|---|---|---|---|---|---|"]
        for mtu in (1500, 9000):
            for c in (1, 8):
                k = "goodput_mtu%d_c%d_" % (mtu, c)
                m, t, u = (b.get(k + p, {}) for p in ("mrc", "tcp", "udp"))
                md.append("| %d | %d | %s (%s-%s) | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    mtu, c, fmt(m.get("mbps")), fmt(m.get("min")),
                    fmt(m.get("max")), fmt(t.get("mbps")), fmt(u.get("mbps")),
                    fmt(ratio(m.get("mbps"), t.get("mbps")), 3),
                    fmt(m.get("cpu_s_per_gb"), 2), fmt(t.get("cpu_s_per_gb"), 2),
                    fmt(ratio(m.get("cpu_s_per_gb"), t.get("cpu_s_per_gb")), 3),
                    fmt(m.get("acks_per_data"), 3), fmt(m.get("segs_per_skb"), 2)))
        md.append("")
        md += ["## Ping-pong latency (veth), microseconds", "",
               "| size | proto | p50 | p99 | p99.9 |", "|---|---|---|---|---|"]
        for size in (64, 4096):
            for p in ("mrc", "tcp", "udp"):
                r = b.get("latency_%d_%s" % (size, p), {})
                md.append("| %d B | %s | %s | %s | %s |" % (
                    size, p.upper(), fmt(r.get("p50_us")), fmt(r.get("p99_us")),
                    fmt(r.get("p999_us"))))
        md.append("")
        # Issue 28's goals (the "must" column).
        for mtu, c, want in ((9000, 1, 0.7), (1500, 1, 0.5), (9000, 8, 0.9)):
            m = b.get("goodput_mtu%d_c%d_mrc" % (mtu, c), {}).get("mbps")
            t = b.get("goodput_mtu%d_c%d_tcp" % (mtu, c), {}).get("mbps")
            goal(goals, "%s goodput, MTU %d: MRC / TCP" % (
                 "single connection" if c == 1 else "%d connections" % c, mtu),
                 ratio(m, t), ">= %s" % want, (ratio(m, t) or 0) >= want)
        m = b.get("goodput_mtu9000_c1_mrc", {})
        goal(goals, "ACKs sent per DATA packet received, 1 connection, "
             "MTU 9000 (bulk)", m.get("acks_per_data"), "<= 0.25",
             (m.get("acks_per_data") or 9) <= 0.25)
        goal(goals, "DATA packets per transmitted skb, 1 connection, 1 path, "
             "MTU 9000", m.get("segs_per_skb"), "reported", True)
        for q in ("p50", "p99"):
            m = b.get("latency_64_mrc", {}).get(q + "_us")
            t = b.get("latency_64_tcp", {}).get(q + "_us")
            goal(goals, "64 B ping-pong %s: MRC / TCP" % q, ratio(m, t),
                 "<= 1.2", (ratio(m, t) or 99) <= 1.2)
        m = b.get("goodput_mtu9000_c1_mrc", {}).get("cpu_s_per_gb")
        t = b.get("goodput_mtu9000_c1_tcp", {}).get("cpu_s_per_gb")
        goal(goals, "CPU per GB, MTU 9000: MRC / TCP", ratio(m, t), "<= 1.5",
             (ratio(m, t) or 99) <= 1.5)
        rows = []
        for mtu in (1500, 9000):
            for c in (1, 8):
                k = "goodput_mtu%d_c%d_" % (mtu, c)
                rows.append("\"MTU %d, %d conn\" %s %s %s" % (
                    mtu, c, *(b.get(k + p, {}).get("mbps") or 0
                              for p in ("mrc", "tcp", "udp"))))
        plot(dst, "goodput", rows, "900,500", """set title 'Goodput over one veth (same guest run)'
set ylabel 'Mbit/s'
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top left
set xtics nomirror
plot DATA using 2:xtic(1) title 'MRC', '' using 3 title 'TCP', '' using 4 title 'UDP (received)'
""")
    else:
        md += ["## One path (veth)", "", "basic.sh did not run.", ""]
        for g in ("single connection goodput, MTU 9000: MRC / TCP",
                  "64 B ping-pong p50: MRC / TCP",
                  "64 B ping-pong p99: MRC / TCP", "CPU per GB, MTU 9000: MRC / TCP"):
            goal(goals, g, None, "", False, "not measured")

    pr = res["pair"]
    if pr:
        md += ["## Two guests over virtio-net", "",
               "Guest a (%s) sends to guest b (%s), one CPU each, over a "
               "virtio-net link (%s): a real NIC driver, where the veth above "
               "passes GSO packets through. CPU: both guests' system and "
               "softirq time per GB." % (
                   pr.get("kernel_a"), pr.get("kernel_b"),
                   {"tap": "two taps in a bridge on the host; the NICs offer "
                           "checksum offload and TSO, and GRO runs",
                    "socket": "a QEMU socket netdev; the NICs have no "
                              "offloads"}.get(pr.get("link"), "unknown")),
               "", "| MTU | MRC Mbit/s | TCP Mbit/s | MRC/TCP | MRC CPU s/GB | "
               "TCP CPU s/GB | CPU ratio |", "|---|---|---|---|---|---|---|"]
        for mtu in (1500, 9000):
            m, t = (pr.get("goodput_mtu%d_%s" % (mtu, p), {}) for p in ("mrc", "tcp"))
            md.append("| %d | %s (%s-%s) | %s | %s | %s | %s | %s |" % (
                mtu, fmt(m.get("mbps")), fmt(m.get("min")), fmt(m.get("max")),
                fmt(t.get("mbps")), fmt(ratio(m.get("mbps"), t.get("mbps")), 3),
                fmt(m.get("cpu_s_per_gb"), 2), fmt(t.get("cpu_s_per_gb"), 2),
                fmt(ratio(m.get("cpu_s_per_gb"), t.get("cpu_s_per_gb")), 3)))
        md += ["", "| 64 B ping-pong | p50 us | p99 us | p99.9 us |",
               "|---|---|---|---|"]
        for p in ("mrc", "tcp"):
            r = pr.get("latency_64_%s" % p, {})
            md.append("| %s | %s | %s | %s |" % (p.upper(), fmt(r.get("p50_us")),
                      fmt(r.get("p99_us")), fmt(r.get("p999_us"))))
        md.append("")
        for mtu in (1500, 9000):
            m = pr.get("goodput_mtu%d_mrc" % mtu, {}).get("mbps")
            t = pr.get("goodput_mtu%d_tcp" % mtu, {}).get("mbps")
            goal(goals, "two guests over virtio-net, MTU %d: MRC / TCP goodput" % mtu,
                 ratio(m, t), "reported", True)
    else:
        md += ["## Two guests over virtio-net", "", "pair.sh did not run.", ""]

    mp = res["multipath"]
    if mp:
        md += ["## Aggregate goodput over K rate-limited planes", "",
               "Links of %s Mbit/s at MTU %s; ratio to K x link rate." % (
                   mp.get("link_rate_mbps"), mp.get("mtu")), "",
               "| K | capacity | MRC | TCP | MPTCP | MRC ACKs/DATA | MRC DATA/skb |",
               "|---|---|---|---|---|---|---|"]
        rows = []
        for k in (1, 2, 4, 8):
            r = mp.get("k%d" % k)
            if not r:
                continue
            md.append("| %d | %s | %s (%s) | %s (%s) | %s (%s) | %s | %s |" % (
                k, r["capacity_mbps"],
                *(x for p in ("mrc", "tcp", "mptcp")
                  for x in (fmt(r.get(p + "_mbps")), fmt(r.get(p + "_ratio"), 3))),
                fmt(r.get("mrc_acks_per_data"), 3), fmt(r.get("mrc_segs_per_skb"), 2)))
            rows.append("%d %s %s %s %s" % (k, r["capacity_mbps"], r.get("mrc_mbps"),
                                            r.get("tcp_mbps"), r.get("mptcp_mbps")))
        md.append("")
        r = mp.get("k4", {})
        goal(goals, "aggregate over 4 planes: MRC / sum of link rates",
             r.get("mrc_ratio"), ">= 0.9", (r.get("mrc_ratio") or 0) >= 0.9)
        goal(goals, "aggregate over 4 planes: TCP / sum of link rates",
             r.get("tcp_ratio"), "<= 0.3", (r.get("tcp_ratio") or 9) <= 0.3)
        r = mp.get("k8", {})
        goal(goals, "ACKs sent per DATA packet received, 8 planes (bulk)",
             r.get("mrc_acks_per_data"), "<= 0.25",
             (r.get("mrc_acks_per_data") or 9) <= 0.25)
        goal(goals, "DATA packets per transmitted skb, 8 planes",
             r.get("mrc_segs_per_skb"), "reported", True)
        plot(dst, "multipath", rows, "700,450", """set title 'Aggregate goodput over K planes'
set xlabel 'planes'
set ylabel 'Mbit/s'
set key top left
set logscale x 2
plot DATA using 1:2 with lines dt 2 lc rgb 'gray' title 'capacity', \\
     '' using 1:3 with linespoints title 'MRC', \\
     '' using 1:4 with linespoints title 'TCP', \\
     '' using 1:5 with linespoints title 'MPTCP'
""")
    else:
        md += ["## Aggregate goodput", "", "multipath.sh did not run.", ""]
        goal(goals, "aggregate over 4 planes: MRC / sum of link rates", None,
             ">= 0.9", False, "not measured")

    rc = res["recovery"]
    if rc:
        md += ["## Recovery from a blackholed plane", "",
               "%s planes of %s Mbit/s, base RTT %s ms; stall goal %s ms." % (
                   rc.get("planes"), rc.get("link_rate_mbps"),
                   rc.get("base_rtt_ms"), rc.get("stall_goal_ms")), "",
               "Medians of %s runs of each protocol, with the spread "
               "(smallest-largest run); the plot shows the run with the "
               "median stall." % rc.get("reps", 1), "",
               "| | stall ms | back to 90% ms | healed plane used after ms | its share "
               "| first retransmission elsewhere ms | worst other plane / link rate "
               "| per-plane CoV, 25 ms bins |",
               "|---|---|---|---|---|---|---|---|"]

        def spread(r, fig, nd=1):
            v, s = r.get(fig), r.get(fig + "_spread")
            if not s or s[0] == s[1]:
                return fmt(v, nd)
            return "%s (%s-%s)" % (fmt(v, nd), fmt(s[0], nd), fmt(s[1], nd))

        for p in ("mrc", "mptcp", "tcp"):
            r = rc.get(p, {})
            md.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                p.upper(), spread(r, "stall_ms"), spread(r, "back_to_90_ms"),
                spread(r, "healed_use_ms"), spread(r, "healed_share", 2),
                spread(r, "first_retx_ms"), spread(r, "others_rate_min", 3),
                spread(r, "plane_cov", 3)))
        m = rc.get("mrc") or {}
        if "paths_retired" in m:
            md += ["", "MRC over its %d runs: %d path retirements, %d undone "
                   "as spurious; %d runs retired more than the failed plane; "
                   "%d RTOs." % (len(m.get("mib_runs", [])), m["paths_retired"],
                                 m["retire_undone"], m["runs_retiring_more"],
                                 m["rtos"])]
            if "retired_before_failure" in m:
                md[-1] += (" %d of the retirements came before the failure "
                           "(spurious by construction)." %
                           m["retired_before_failure"])
            if m.get("extra_retirements"):
                md[-1] += (" Beyond the failed plane's own (run: path, ms "
                           "from the failure): %s." % ", ".join(
                               "%d: %d, %+.1f" % tuple(x)
                               for x in m["extra_retirements"]))
        md += ["", "![recovery](recovery.png)", ""]
        g = rc.get("goals", {}).get("mrc", {})
        goal(goals, "recovery: MRC stall <= goal",
             (rc.get("mrc") or {}).get("stall_ms"),
             "<= %s ms" % rc.get("stall_goal_ms"), g.get("stall"))
        goal(goals, "recovery: MRC back to 90% within 50 ms",
             (rc.get("mrc") or {}).get("back_to_90_ms"), "<= 50 ms",
             g.get("back_to_90"))
        t = rc.get("mptcp") or {}
        if "stall_below_mptcp" in g:
            goal(goals, "recovery: MRC stall median <= goal and below MPTCP's",
                 m.get("stall_ms"), "<= %s ms, < %s ms" % (
                     rc.get("stall_goal_ms"), t.get("stall_ms")),
                 g["stall_below_mptcp"])
            goal(goals, "recovery: MRC worst stall <= 2 x goal and below MPTCP's",
                 m["stall_ms_spread"][1], "<= %s ms, < %s ms" % (
                     round(2 * rc.get("stall_goal_ms"), 1),
                     t["stall_ms_spread"][1]), g["worst_stall"])
            goal(goals, "recovery: other planes >= 90% of their rate, "
                 "no second retirement", m.get("others_rate_min"),
                 ">= 0.9, 0 runs", g["others_kept"],
                 "%s runs retired more" % m.get("runs_retiring_more"))
            goal(goals, "recovery: spurious retirements (undone / retired)",
                 m.get("spurious_ratio"), "<= 0.1", g["spurious"])
            goal(goals, "recovery: per-plane CoV, MRC / MPTCP",
                 g.get("plane_cov_ratio"), "<= 1.5", g["plane_cov"])
        png = os.path.join(src, "recovery.png")
        if os.path.exists(png):
            shutil.copy(png, dst)

    ic = res["incast"]
    if ic:
        md += ["## Incast completion (1 MB from each of N senders)", "",
               "Bottleneck %s Mbit/s; MRC paths: %s. p50 / p99 in ms; the "
               "last column is what the bottleneck carried per payload "
               "byte (headers, trimmed headers and retransmissions), the "
               "floor of p99 / ideal." % (
                   ic.get("rate_mbps"), ic.get("mrc_paths", "srv6")), "",
               "| queue | N | ideal | MRC-trim | MRC-droptail | TCP | "
               "p99 / ideal | bottleneck B / payload B (trim, droptail, TCP) |",
               "|---|---|---|---|---|---|---|---|"]
        rows = []
        f2 = lambda r: "%s / %s" % (fmt(r.get("p50_ms")), fmt(r.get("p99_ms")))
        # The trimming issue's goal is for a switch with a small buffer,
        # as a fabric switch has: the shallowest queue of the run. A deeper
        # one is reported beside it: there TCP seldom loses a packet, and
        # every flow finishes as the bottleneck's bytes allow, where MRC's
        # larger headers (SRH, UDP, its own) cost it a few per cent.
        shallow = min((q["limit_bytes"] for q in ic.get("queues", [])), default=0)
        for q in ic.get("queues", []):
            is_goal = q["limit_bytes"] == shallow
            qname = "%d B (%s ms)" % (q["limit_bytes"], fmt(q.get("queue_ms"), 2))
            c = q["cases"]
            for n in ("4", "8", "16"):
                t = c.get("mrc-trim", {}).get(n, {})
                md.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    qname, n, t.get("ideal_ms"), f2(t),
                    f2(c.get("mrc-droptail", {}).get(n, {})),
                    f2(c.get("tcp", {}).get(n, {})), fmt(t.get("p99_over_ideal"), 3),
                    ", ".join(fmt(c.get(k, {}).get(n, {}).get("wire_over_payload"), 3)
                              for k in ("mrc-trim", "mrc-droptail", "tcp"))))
                rows.append('"%s %s" %s %s %s' % (n, "%dK" % (q["limit_bytes"] // 1000), *(
                    (c.get(k, {}).get(n, {}).get("p99_ms") or 0) /
                    (t.get("ideal_ms") or 1) for k in ("mrc-trim", "mrc-droptail", "tcp"))))
                gg = q.get("goals", {}).get(n, {})
                goal(goals, "incast N=%s, %d B queue: MRC-trim p99 / ideal"
                     % (n, q["limit_bytes"]), t.get("p99_over_ideal"),
                     "<= 1.3" if is_goal else "reported",
                     gg.get("p99_within_1.3_ideal"))
                best = [c.get(k, {}).get(n, {}).get("p99_ms")
                        for k in ("mrc-droptail", "tcp")]
                best = min(best) if None not in best else None
                goal(goals, "incast N=%s, %d B queue: MRC-trim p99 / best of "
                     "droptail's and TCP's" % (n, q["limit_bytes"]),
                     ratio(t.get("p99_ms"), best), "< 1" if is_goal else "reported",
                     gg.get("ahead_of_both"))
        md.append("")
        plot(dst, "incast", rows, "800,450", """set title 'Incast: p99 completion / ideal (senders, queue bytes)'
set xlabel 'senders, queue'
set ylabel 'p99 / ideal'
set yrange [0:*]
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top left
plot DATA using 2:xtic(1) title 'MRC-trim', '' using 3 title 'MRC-droptail', '' using 4 title 'TCP'
""")

    sc = res["scale"]
    if sc:
        md += ["## Scale", "",
               "| connections | MRC Mbit/s | TCP Mbit/s | MRC slab B/conn idle | "
               "TCP slab B/conn idle | MRC busy extra | TCP busy extra |",
               "|---|---|---|---|---|---|---|"]
        rows = []
        for c in (1, 100, 1000):
            m, t = sc.get("mrc_c%d" % c, {}), sc.get("tcp_c%d" % c, {})
            md.append("| %d | %s | %s | %s | %s | %s | %s |" % (
                c, fmt(m.get("goodput_mbps")), fmt(t.get("goodput_mbps")),
                fmt(m.get("idle_bytes_per_conn")), fmt(t.get("idle_bytes_per_conn")),
                fmt(m.get("busy_extra_bytes_per_conn")), fmt(t.get("busy_extra_bytes_per_conn"))))
            rows.append("%d %s %s" % (c, m.get("goodput_mbps") or 0,
                                      t.get("goodput_mbps") or 0))
        p = sc.get("paths", {})
        md += ["", "One connection over 256 paths: %s Mbit/s; over 8: %s Mbit/s "
               "(ratio %s)." % (fmt(p.get("p256_mbps")), fmt(p.get("p8_mbps")),
                                fmt(p.get("ratio"), 3)), ""]
        # Both ends of a connection are in the guest: a socket is half.
        idle = (sc.get("mrc_c1000") or {}).get("idle_bytes_per_conn")
        goal(goals, "kernel memory per idle MRC socket (slab)",
             None if idle is None else idle / 2, "<= 4096 B",
             idle is not None and idle / 2 <= 4096,
             "half the per-connection figure: both ends are in the guest")
        plot(dst, "scale", rows, "700,450", """set title 'Aggregate goodput of C connections over one veth'
set xlabel 'connections'
set ylabel 'Mbit/s'
set logscale x 10
set key top right
plot DATA using 1:2 with linespoints title 'MRC', '' using 1:3 with linespoints title 'TCP'
""")

    md += ["## Goals", "", "| goal | target | measured | holds |", "|---|---|---|---|"]
    for g in goals:
        holds = {True: "yes", False: "**no**", None: "not measured",
                 "reported": "(reported)"}[g["holds"]]
        md.append("| %s | %s | %s | %s |" % (g["goal"], g["target"],
                                             fmt(g["measured"], 3), holds))
    md.append("")
    missing = [n for n, r in res.items() if r is None]
    if missing:
        md += ["Did not run: %s." % ", ".join(missing), ""]
    res["goals"] = goals
    res["missing"] = missing
    with open(os.path.join(dst, "latest.json"), "w") as f:
        json.dump(res, f, indent=2)
    with open(os.path.join(dst, "latest.md"), "w") as f:
        f.write("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
