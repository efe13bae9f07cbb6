#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pair.sh [OUT.json]: the two guests of tools/testing/vm-pair (one CPU each),
# joined by virtio-net: MRC against TCP between separate hosts, over a
# real NIC driver (checksum offload, GSO/TSO, GRO), where basic.sh's
# veth pair hides them. Guest b (MRC_PEER=b) serves; guest a runs the
# clients and writes OUT.json (default: pair.json in its $VM_RUN_OUT):
#  - goodput of one connection at MTU 1500 and 9000, mrcperf (AF_MRC,
#    over its automatic paths) vs iperf3 (TCP), with the CPU cost: the
#    system plus softirq time of both guests per GB delivered (guest b's
#    reaches guest a at a barrier);
#  - ping-pong latency of 64-byte messages, p50/p99/p99.9: mrcperf vs
#    mrcperf --tcp.
# Medians of REPS runs (default 3) with the spread; goodput runs last
# SECS seconds (default 3), a latency run is COUNT round trips (default
# 2000). The guests meet at barriers over the link (peer_sync.py), which
# carry nothing while a figure is measured.

set -u
out=${1:-${VM_RUN_OUT:-.}/pair.json}
reps=${REPS:-3}
secs=${SECS:-3}
count=${COUNT:-2000}
top=$(cd "$(dirname "$0")/../../.." && pwd)
P=$top/build/tools/mrcperf
SYNC=$top/selftests/net/mrc/peer_sync.py
hz=$(getconf CLK_TCK)
dir=$(mktemp -d)

# shellcheck source-path=SCRIPTDIR/../../../selftests/net/mrc source=lib.sh
source "$top"/selftests/net/mrc/lib.sh
# shellcheck source=stats.sh
source "$top"/tools/testing/bench/stats.sh

case "${MRC_PEER:-}" in
a) me=1 peer=2 ;;
b) me=2 peer=1 ;;
*) echo "pair.sh runs in the two guests of tools/testing/vm-pair"; exit 1 ;;
esac
role=$MRC_PEER
peer_addr=fd00::$peer
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$dir"' EXIT

# barrier NAME [SEND RECV]: meet the other guest (peer_sync.py); a guest
# that never comes ends the run.
barrier() {
	local args=()

	[ $# -ge 3 ] && args=(--send "$2" --recv "$3")
	python3 "$SYNC" "$role" "$peer_addr" "$1" --timeout "$(slow_limit 120)" "${args[@]}" ||
		exit 1
}

ticks() {
	awk '$1 == "cpu" { print $4 + $8 }' /proc/stat
}

dev=$(virtio_nic) || { echo "no virtio-net NIC: run under tools/testing/vm-pair"; exit 1; }
sysctl -q -w "net.ipv6.conf.$dev.accept_dad=0" || exit 1
ip link set "$dev" up && ip addr add "fd00::$me/64" dev "$dev" nodad || exit 1
: > "$dir/none"
uname -r > "$dir/kernel"

if [ "$role" = b ]; then
	"$P" -s > /dev/null 2>&1 &
	pids+=($!)
	"$P" -s --tcp -p 5312 > /dev/null 2>&1 &
	pids+=($!)
	iperf3 -s -p 5301 > /dev/null 2>&1 &
	pids+=($!)
	barrier servers-up "$dir/kernel" "$dir/none"
	# Each figure: the ticks of this guest over it, for guest a.
	while :; do
		barrier next "$dir/none" "$dir/cmd"
		read -r cmd arg < "$dir/cmd"
		case $cmd in
		mtu) ip link set "$dev" mtu "$arg" ;;
		start) t0=$(ticks) ;;
		end) echo $(($(ticks) - t0)) > "$dir/ticks"; barrier ticks "$dir/ticks" "$dir/none" ;;
		finish) break ;;
		esac
	done
	exit 0
fi

# Guest a: tell guest b what comes next.
say() {
	echo "$*" > "$dir/cmd"
	barrier next "$dir/cmd" "$dir/none"
}

barrier servers-up "$dir/kernel" "$dir/peer-kernel"
wait_for 30 ping -6 -c 1 -W 1 "$peer_addr" > /dev/null || exit 1
results=()
for mtu in ${MTUS-1500 9000}; do
	say mtu "$mtu"
	ip link set "$dev" mtu "$mtu"
	wait_for 30 ping -6 -c 1 -W 1 -s $((mtu - 100)) "$peer_addr" > /dev/null || exit 1
	for proto in mrc tcp; do
		: > "$dir/gp"
		: > "$dir/cpu"
		for _ in $(seq "$reps"); do
			say start
			t0=$(ticks)
			if [ "$proto" = mrc ]; then
				mbps=$("$P" -c "$peer_addr" -t "$secs" -l 64K -j | jq -r .goodput_mbps)
			else
				mbps=$(iperf3 -6 -c "$peer_addr" -p 5301 -t "$secs" -J |
					jq -r .end.sum_received.bits_per_second/1e6)
			fi
			t1=$(ticks)
			say end
			barrier ticks "$dir/none" "$dir/peer-ticks"
			echo "${mbps:-0}" >> "$dir/gp"
			awk -v m="${mbps:-0}" -v d=$((t1 - t0 + $(cat "$dir/peer-ticks"))) \
				-v hz="$hz" -v s="$secs" 'BEGIN {
				gb = m * s / 8 / 1000; if (gb > 0) printf "%.3f\n", d / hz / gb }' >> "$dir/cpu"
		done
		read -r g gmin gmax <<< "$(stats < "$dir/gp")"
		read -r cpu _ <<< "$(stats < "$dir/cpu")"
		echo "virtio-net, mtu $mtu, 1 connection, $proto: $g Mbit/s ($gmin-$gmax), $cpu CPU s/GB"
		results+=("\"goodput_mtu${mtu}_$proto\": {\"mbps\": $g, \"min\": $gmin, \"max\": $gmax, \"cpu_s_per_gb\": $cpu}")
	done
done
say mtu 1500
ip link set "$dev" mtu 1500

for proto in mrc tcp; do
	flag=()
	[ "$proto" = tcp ] && flag=(--tcp -p 5312)
	for _ in $(seq "$reps"); do
		"$P" -c "$peer_addr" "${flag[@]}" -n "$count" -l 64 --pingpong -j |
			jq -r '.latency_us | "\(.p50) \(.p99) \(.p999)"'
	done > "$dir/lat"
	results+=("$(latency_json "latency_64_$proto" "$dir/lat")")
	echo "virtio-net, latency 64 B, $proto: $(tr '\n' ';' < "$dir/lat")"
done
say finish

{
	echo "{ \"kernel_a\": \"$(uname -r)\", \"kernel_b\": \"$(cat "$dir/peer-kernel")\","
	echo "\"link\": \"${MRC_PAIR_LINK:-unknown}\", \"repetitions\": $reps, \"seconds\": $secs,"
	echo "\"round_trips\": $count,"
	(IFS=,; echo "${results[*]}")
	echo "}"
} > "$out"
python3 -m json.tool "$out"
