#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cpu.sh OUT.json: the CPU cost of moving data over one unshaped veth path
# (MTU 1500 and 9000), MRC vs TCP, in the same guest: goodput, and the
# guest's system plus softirq time per GB moved, from /proc/stat deltas
# over each run (both ends are in this guest, so the cost covers sender
# and receiver). Each figure is the median of REPS runs (default 5) of
# SECS seconds (default 5).

set -u
out=$1
reps=${REPS:-5}
secs=${SECS:-5}
top=$(cd "$(dirname "$0")/../../.." && pwd)
P=$top/build/tools/mrcperf
A=mrc-cpu-a-$RANDOM
B=mrc-cpu-b-$RANDOM

# shellcheck source-path=SCRIPTDIR/../../../selftests/net/mrc source=lib.sh
source "$top"/selftests/net/mrc/lib.sh
trap 'ns_del "$A" "$B"' EXIT
ns_pair "$A" "$B" || exit 1
hz=$(getconf CLK_TCK)

median() {
	sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# System plus softirq ticks of all CPUs so far.
ticks() {
	awk '$1 == "cpu" { print $4 + $8 }' /proc/stat
}

# run mrc|tcp: "Mbit/s cpu-seconds-per-GB" of one timed run.
run() {
	local flag='' t0 t1 mbps

	[ "$1" = tcp ] && flag=--tcp
	# shellcheck disable=SC2086 # $flag is one word or none
	ip netns exec "$B" "$P" -s -1 $flag --ready /tmp/cpu-ready > /dev/null 2>&1 &
	local spid=$!
	wait_ready "$spid" /tmp/cpu-ready > /dev/null || { echo "0 0"; return; }
	rm -f /tmp/cpu-ready
	t0=$(ticks)
	# shellcheck disable=SC2086
	mbps=$(ip netns exec "$A" "$P" -c "$MRC_ADDR_B" -t "$secs" -l 64K -j $flag |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["goodput_mbps"])')
	wait "$spid"
	t1=$(ticks)
	awk -v m="${mbps:-0}" -v d=$((t1 - t0)) -v hz="$hz" -v s="$secs" 'BEGIN {
		gb = m * s / 8 / 1000; printf "%.1f %.3f\n", m, (gb > 0 ? d / hz / gb : 0) }'
}

results=()
for mtu in 1500 9000; do
	ip -n "$A" link set veth-a mtu "$mtu"
	ip -n "$B" link set veth-b mtu "$mtu"
	line="\"mtu$mtu\": {"
	for proto in mrc tcp; do
		runs=$(for _ in $(seq "$reps"); do run "$proto"; done)
		g=$(awk '{ print $1 }' <<< "$runs" | median)
		c=$(awk '{ print $2 }' <<< "$runs" | median)
		echo "mtu $mtu $proto: $g Mbit/s, $c CPU s/GB"
		line+="\"${proto}_mbps\": $g, \"${proto}_cpu_s_per_gb\": $c, "
		eval "${proto}_c=$c"
	done
	# shellcheck disable=SC2154 # set by the eval above
	line+="\"cpu_ratio\": $(awk -v a="$mrc_c" -v b="$tcp_c" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')}"
	results+=("$line")
done

{
	echo "{ \"kernel\": \"$(uname -r)\", \"repetitions\": $reps, \"seconds\": $secs,"
	(IFS=,; echo "${results[*]}")
	echo "}"
} > "$out"
python3 -m json.tool "$out"
