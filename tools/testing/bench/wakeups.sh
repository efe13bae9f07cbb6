#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# wakeups.sh [MTU [SECS]]: how often the guest wakes a task, switches
# tasks, moves a task to another CPU and sends an IPI per MB delivered,
# for one MRC connection and then for TCP (mrcperf --tcp), 64 KB
# messages over an unshaped veth at MTU (default 9000). PIN=1 runs the
# sender on CPU 0 and the receiver on CPU 1. Tracing runs for SECS seconds (default 2), one
# second into each transfer, counted by histogram triggers, so nothing
# is lost to a full trace buffer. Wakeups are summed by the waker's
# stack (sched_waking, on the waker's CPU: four frames above
# try_to_wake_up()), so the report names who wakes whom. In a TCG guest
# an IPI is costly (mrc-performance.rst). Run it in a guest:
#   tools/testing/vm-run --kernel KVER -- tools/testing/bench/wakeups.sh

set -u
mtu=${1:-9000}
secs=${2:-2}
top=$(cd "$(dirname "$0")/../../.." && pwd)
P=$top/build/tools/mrcperf
A=mrc-wk-a-$RANDOM
B=mrc-wk-b-$RANDOM
T=/sys/kernel/tracing
dir=$(mktemp -d)
EV="sched/sched_waking sched/sched_wakeup sched/sched_switch sched/sched_migrate_task irq_vectors/reschedule_entry
    irq_vectors/call_function_single_entry irq_vectors/call_function_entry"

# shellcheck source-path=SCRIPTDIR/../../../selftests/net/mrc source=lib.sh
source "$top"/selftests/net/mrc/lib.sh
# Events with no trigger are "soft disabled": triggers run, nothing is traced.
untrace() {
	local e

	for e in $EV; do
		echo '!hist:keys=stacktrace' > $T/events/"$e"/trigger 2> /dev/null
	done
}
cleanup() {
	untrace
	ns_del "$A" "$B"
	rm -rf "$dir"
}
trap cleanup EXIT
[ -d $T/events ] || mount -t tracefs nodev $T

rxbytes() {
	ip netns exec "$B" cat /sys/class/net/veth-b/statistics/rx_bytes
}

# one [--tcp]: one transfer, traced; prints the report.
one() {
	local e b0 b1 mb ps=() pc=()

	[ "${PIN:-0}" = 1 ] && { ps=(taskset -c 1); pc=(taskset -c 0); }
	ns_del "$A" "$B"
	ns_pair "$A" "$B" > /dev/null || exit 1
	ip -n "$A" link set veth-a mtu "$mtu"
	ip -n "$B" link set veth-b mtu "$mtu"
	rm -f "$dir/ready"
	ip netns exec "$B" "${ps[@]}" "$P" -s -1 ${1:+"$1"} --ready "$dir/ready" > /dev/null 2>&1 &
	wait_ready $! "$dir/ready" > /dev/null || exit 1
	ip netns exec "$A" "${pc[@]}" "$P" -c "$MRC_ADDR_B" ${1:+"$1"} -t $((secs + 2)) -l 64K \
		-j > "$dir/client.json" &
	sleep 1
	for e in $EV; do
		echo 'hist:keys=stacktrace:vals=hitcount:size=8192' \
			> $T/events/"$e"/trigger || exit 1
	done
	b0=$(rxbytes)
	sleep "$secs"
	for e in $EV; do
		cat $T/events/"$e"/hist > "$dir/${e#*/}.hist"
	done
	b1=$(rxbytes)
	untrace
	wait
	mb=$(awk -v b=$((b1 - b0)) 'BEGIN { printf "%.1f", b / 1e6 }')
	echo "${1:-mrc}: goodput $(jq -r .goodput_mbps "$dir/client.json") Mbit/s;" \
		"$mb MB on the wire while traced"
	for e in $EV; do
		awk -v mb="$mb" -v e="${e#*/}" '/^ *Hits:/ {
			printf "  %-32s %8d  %8.1f per MB\n", e, $2, $2 / mb }' \
			"$dir/${e#*/}.hist"
	done
	# The hist's stacks start at try_to_wake_up()'s caller.
	awk -v mb="$mb" '
		/stacktrace:/ { c = ""
			for (i = 0; i < 4; i++) { getline; s = $1
				sub(/\+0x[0-9a-f]+\/0x[0-9a-f]+/, "", s); c = c (i ? " < " : "") s }
			next }
		/hitcount:/ { h[c] += $NF }
		END { for (k in h) printf "    %7.1f per MB  %s\n", h[k] / mb, k }' \
		"$dir/sched_waking.hist" | sort -rn | head -n 12
}

echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource); MTU $mtu"
one
one --tcp
