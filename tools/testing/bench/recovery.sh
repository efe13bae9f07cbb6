#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# recovery.sh OUT.json: the recovery timeline under a blackhole, in one
# guest run. Two hosts of the test fabric, 4 planes, every host-spine link
# limited to RATE (default 20 Mbit/s) and marking ECN. A transfer runs
# from host 1 to host 2; at t = 1 s plane 2 is blackholed (spine 2 drops
# what host 1 sends it, silently; the link and its shaping stay up),
# at t = 3 s it is healed by removing the filter (fab_link_blackhole).
# The same
# failure for:
#  - MRC, one connection spraying over one path per plane;
#  - MPTCP, one connection with one subflow per plane;
#  - TCP pinned to plane 2 (it can only wait for the heal).
# What host 2 receives is captured on its four links (all IPv6: with an
# SRH a BPF port filter would not see UDP; every packet, or the run is
# left out), in the guest's memory, and binned by plane
# in 1 ms bins (recovery.py). Reported per protocol: the longest gap in
# delivery after the failure (the stall), the time from the failure until
# goodput over 10 ms is back to 90% of the remaining capacity, and the
# time from the heal until plane 2 carries data again, and plane 2's
# share of the data once it is back. The goals (stall at most 10 base
# RTTs plus the minimum RTO, back to 90% within 50 ms) are checked in
# OUT.json; the base RTT is measured with mrc probe before the runs.
# Each protocol runs REPS times (default 20), the protocols taking turns,
# and every figure is the median of its runs, with the spread; PROTOS
# (default "mrc mptcp tcp") selects some. OUT.json gets the figures, DIR
# recovery-<proto>.dat the bins of the run with the median stall, and
# OUT.png their plot (gnuplot). After each MRC run, the growth of host 1's
# MIB counters over the run goes in DIR/mib-mrc-<run>; the path events
# of host 1 (mrc monitor path), each line stamped with the clock of the
# failure and heal events, in DIR/monitor-mrc-<run>. Beside the
# figures above: MRC's first retransmission to arrive over another plane
# after the failure; the worst plane still working, its goodput during
# the failure against its link rate; each plane's steady-state goodput
# variation (25 ms bins before the failure); path retirements, those
# undone as spurious, and the runs that retired more than one path; and
# issue 29's goals against MPTCP in the same run (recovery.py).

set -u
out=$1
rate=${RATE:-20}
total=${TOTAL:-6}
reps=${REPS:-20}
protos=${PROTOS:-mrc mptcp tcp}
top=$(cd "$(dirname "$0")/../../.." && pwd)
P=$top/build/tools/mrcperf
MRC=$top/build/tools/mrc
dir=$(dirname "$out")
base=${out%.json}

# shellcheck source-path=SCRIPTDIR/../../../selftests/net/mrc source=lib.sh
source "$top"/selftests/net/mrc/lib.sh
# shellcheck source-path=SCRIPTDIR/../../../selftests/net/mrc source=fabric.sh
source "$top"/selftests/net/mrc/fabric.sh
trap fab_cleanup EXIT

# The links mark ECN as fabric switches do, at ECN bytes of queue (default
# 6000, 2.4 ms at 20 Mbit/s), and TCP and MPTCP negotiate ECN, so that
# every protocol sees the same fabric.
export FAB_SHAPE_ECN=${ECN:-6000}
fab_up 2 4 > /dev/null || { echo "fabric setup failed"; exit 1; }
export FAB_CAPTURE_SNAPLEN=128
cap=$FAB_DIR/recovery
mkdir -p "$cap"
for h in 1 2; do
	fab_exec_host "$h" sysctl -qw net.mptcp.enabled=1
	fab_exec_host "$h" sysctl -qw net.ipv4.tcp_ecn=1
	fab_exec_host "$h" ip mptcp limits set subflow 8 add_addr_accepted 8
	for k in 1 2 3 4; do
		fab_link_shape "$h" "$k" both "${rate}mbit"
		fab_exec_host "$h" "$MRC" path add "$(fab_host_addr $((3 - h)))"/128 \
			segs "$(fab_sid "$k")" id "$k"
	done
done
for k in 2 3 4; do
	fab_exec_host 2 ip mptcp endpoint add "$(fab_link_addr 2 "$k")" dev "p$k" signal
done

# The base RTT: 5 probes on each plane while nothing else runs, the
# median (the stall goal is 10 base RTTs plus the minimum RTO).
for k in 1 2 3 4; do
	for _ in 1 2 3 4 5; do
		fab_exec_host 1 "$MRC" -j probe "$(fab_host_addr 2)"/128 id "$k" |
			jq -r .rtt_us
	done
done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }' \
	> "$dir/base-rtt-us"
rto_min=$(cat /sys/module/mrc/parameters/rto_min_ms)

port=7300
monitors=()
# run PROTO R: run R of PROTO, one timed transfer with the failure and
# heal, captured.
# shellcheck disable=SC2119 # fab_capture_stop without arguments: every capture
run() {
	local proto=$1 r=$2 flag='' dst k spid cpid t0

	port=$((port + 1))
	case $proto in
	mrc) dst=$(fab_host_addr 2) ;;
	mptcp) flag=--mptcp; dst=$(fab_link_addr 2 1) ;;
	tcp) flag=--tcp; dst=$(fab_link_addr 2 2) ;;
	esac
	# What host 2 receives on plane k: what spine k sends it, written
	# in the guest's memory (written to the 9p share packet by packet,
	# tcpdump fell behind and lost what it had not written when stopped).
	for k in 1 2 3 4; do
		fab_capture_start "$k" 2 down "$cap/cap-$proto-$r-$k.pcap" ip6 ||
			{ fab_capture_stop; return 1; }
	done
	# shellcheck disable=SC2086 # $flag is one word or none
	fab_exec_host 2 "$P" -s -1 -p "$port" $flag --ready "$dir/ready" > /dev/null 2>&1 &
	spid=$!
	wait_ready "$spid" "$dir/ready" > /dev/null || return 1
	rm -f "$dir/ready"
	# The counters from the start: a retirement before the failure counts.
	[ "$proto" = mrc ] && fab_exec_host 1 cat /proc/net/mrc_stat \
		> "$dir/mib-before"
	# Which path changed state when, against the failure and the heal;
	# the monitor ends by itself once the transfer is over.
	if [ "$proto" = mrc ]; then
		fab_exec_host 1 timeout "$((total + 2))" "$MRC" monitor path 2> /dev/null |
			while IFS= read -r line; do
				echo "$EPOCHREALTIME $line"
			done > "$dir/monitor-mrc-$r" &
		monitors+=($!)
	fi
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086
	fab_exec_host 1 "$P" -c "$dst" -p "$port" -t "$total" -l 64K $flag \
		> "$dir/client-$proto-$r.log" 2>&1 &
	cpid=$!
	sleep 1
	# The connection's per-path state just before the failure, to read
	# the figures against (srtt, in flight).
	[ "$proto" = mrc ] && fab_exec_host 1 "$MRC" -j -s conn show \
		> "$dir/conn-$proto-$r.json"
	# Stamped before the change: ip netns exec is slow under emulation,
	# and the failure takes effect at some point while it runs.
	echo "$(date +%s.%N) fail" > "$cap/events-$proto-$r"
	fab_link_blackhole 1 2 up
	sleep 2
	echo "$(date +%s.%N) heal" >> "$cap/events-$proto-$r"
	fab_link_unblackhole 1 2 up
	wait "$cpid"
	wait "$spid"
	# Every packet the kernel gave tcpdump is written before it stops;
	# a run whose capture lost packets is left out (no start event).
	fab_capture_stop || { rm -f "$cap/events-$proto-$r"; return 1; }
	echo "$t0 start" >> "$cap/events-$proto-$r"
	# What the run cost MRC's sender: the counters that moved.
	[ "$proto" = mrc ] && fab_exec_host 1 cat /proc/net/mrc_stat |
		awk 'NR == FNR { b[$1] = $2; next }
		     $2 != b[$1] { printf "%s %d\n", $1, $2 - b[$1] }' \
		"$dir/mib-before" - > "$dir/mib-mrc-$r"
	return 0
}

for r in $(seq 1 "$reps"); do
	for proto in $protos; do
		echo "== $proto, run $r"
		run "$proto" "$r" || echo "$proto run $r failed"
	done
done
# The monitors, done with their runs.
[ ${#monitors[@]} -eq 0 ] || wait "${monitors[@]}"
# shellcheck disable=SC2086 # $protos is a list of words
python3 "$(dirname "$0")"/recovery.py --rate "$rate" --planes 4 --dir "$cap" \
	--base-rtt-us "$(cat "$dir/base-rtt-us")" --rto-min-ms "$rto_min" \
	--reps "$reps" --mib-dir "$dir" --out "$out" --plot "$base.png" $protos
rc=$?
cp "$cap"/recovery-*.dat "$dir"/ 2>/dev/null
exit "$rc"
