#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# basic.sh OUT.json: one connection over a veth pair between two
# namespaces, inside one guest, so that every figure is a ratio measured
# in the same run:
#  - goodput at MTU 1500 and 9000: mrcperf (AF_MRC) vs iperf3 (TCP);
#  - 64-byte ping-pong latency p50/p99: mrcperf vs mrcperf --tcp.
# Each figure is the median of REPS runs (default 5).

set -u
out=$1
reps=${REPS:-5}
secs=${SECS:-5}
top=$(cd "$(dirname "$0")/../../.." && pwd)
P=$top/build/tools/mrcperf
A=mrc-bench-a-$RANDOM
B=mrc-bench-b-$RANDOM

source "$top"/selftests/net/mrc/lib.sh
trap 'ns_del "$A" "$B"' EXIT
ns_pair "$A" "$B" || exit 1

median() {
	sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

json_get() {
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"
}

mrc_goodput() {
	ip netns exec "$B" "$P" -s -1 > /dev/null 2>&1 &
	sleep 0.5
	ip netns exec "$A" "$P" -c 2001:db8::2 -t "$secs" -l 64K -j | json_get 'd["goodput_mbps"]'
	wait
}

tcp_goodput() {
	ip netns exec "$B" iperf3 -s -1 -6 > /dev/null 2>&1 &
	sleep 0.5
	ip netns exec "$A" iperf3 -6 -c 2001:db8::2 -t "$secs" -J |
		json_get 'd["end"]["sum_received"]["bits_per_second"] / 1e6'
	wait
}

pingpong() {
	local proto=$1

	ip netns exec "$B" "$P" -s -1 $proto > /dev/null 2>&1 &
	sleep 0.5
	ip netns exec "$A" "$P" -c 2001:db8::2 -n 20000 -l 64 --pingpong $proto -j |
		json_get '"%s %s" % (d["latency_us"]["p50"], d["latency_us"]["p99"])'
	wait
}

results=()
for mtu in 1500 9000; do
	ip -n "$A" link set veth-a mtu $mtu
	ip -n "$B" link set veth-b mtu $mtu
	m=$(for i in $(seq "$reps"); do mrc_goodput; done | median)
	t=$(for i in $(seq "$reps"); do tcp_goodput; done | median)
	echo "mtu $mtu: mrc $m Mbit/s, tcp $t Mbit/s"
	results+=("\"goodput_mtu$mtu\": {\"mrc_mbps\": $m, \"tcp_mbps\": $t, \"ratio\": $(echo "$m $t" | awk '{ printf "%.3f", $1 / $2 }')}")
done
ip -n "$A" link set veth-a mtu 1500
ip -n "$B" link set veth-b mtu 1500
for proto in mrc tcp; do
	flag=""
	[ $proto = tcp ] && flag=--tcp
	runs=$(for i in $(seq "$reps"); do pingpong "$flag"; done)
	p50=$(awk '{ print $1 }' <<< "$runs" | median)
	p99=$(awk '{ print $2 }' <<< "$runs" | median)
	echo "ping-pong 64 B $proto: p50 $p50 us, p99 $p99 us"
	eval "${proto}_p50=$p50 ${proto}_p99=$p99"
done
results+=("\"pingpong64\": {\"mrc_p50_us\": $mrc_p50, \"mrc_p99_us\": $mrc_p99, \"tcp_p50_us\": $tcp_p50, \"tcp_p99_us\": $tcp_p99, \"p50_ratio\": $(echo "$mrc_p50 $tcp_p50" | awk '{ printf "%.3f", $1 / $2 }'), \"p99_ratio\": $(echo "$mrc_p99 $tcp_p99" | awk '{ printf "%.3f", $1 / $2 }')}")

{
	echo "{ \"kernel\": \"$(uname -r)\", \"repetitions\": $reps, \"seconds\": $secs,"
	(IFS=,; echo "${results[*]}")
	echo "}"
} > "$out"
python3 -m json.tool "$out"
