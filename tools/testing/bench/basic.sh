#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# basic.sh OUT.json: one unshaped veth pair between two namespaces of this
# guest, so that every figure is a ratio measured in the same run:
#  - goodput of 1 and of 8 parallel connections at MTU 1500 and 9000:
#    mrcperf (AF_MRC) vs iperf3 (TCP) vs iperf3 -u (UDP, unlimited rate,
#    the rate the receiver got). With each, the CPU cost: the guest's
#    system plus softirq time per GB delivered, from /proc/stat deltas
#    over the run (both ends are in this guest, so it covers sender and
#    receiver); for MRC also the ACKs the receiver sent per DATA packet
#    it took, and the DATA packets per skb the sender transmitted (the
#    segments of its GSO batches), from the two namespaces' MIBs;
#  - ping-pong latency of 64-byte and 4-KB messages, p50/p99/p99.9:
#    mrcperf vs mrcperf --tcp vs sockperf ping-pong (UDP, over IPv4: the
#    sockperf of Debian 12 has no IPv6).
# Every figure is the median of REPS runs (default 5), with the smallest
# and largest run as the spread. Goodput runs last SECS seconds (default
# 3); a latency run is COUNT round trips (default 2000), or for sockperf,
# which counts time instead, UDP_SECS seconds (default 3); every latency
# is a full round trip. MTUS (default "1500 9000"), CONNS ("1 8") and
# SIZES ("64 4096"; empty for no latency runs) narrow a run down to the
# figures a change is about; the report shows n/a for what was not measured.

set -u
out=$1
clk=/sys/devices/system/clocksource/clocksource0/current_clocksource
reps=${REPS:-5}
secs=${SECS:-3}
count=${COUNT:-2000}
udp_secs=${UDP_SECS:-3}
top=$(cd "$(dirname "$0")/../../.." && pwd)
P=$top/build/tools/mrcperf
A=mrc-bench-a-$RANDOM
B=mrc-bench-b-$RANDOM
dir=$(mktemp -d)
hz=$(getconf CLK_TCK)

# shellcheck source-path=SCRIPTDIR/../../../selftests/net/mrc source=lib.sh
source "$top"/selftests/net/mrc/lib.sh
# shellcheck source=stats.sh
source "$top"/tools/testing/bench/stats.sh
trap 'ns_del "$A" "$B"; rm -rf "$dir"' EXIT
ns_pair "$A" "$B" || exit 1
ip -n "$A" addr add 10.99.0.1/24 dev veth-a || exit 1
ip -n "$B" addr add 10.99.0.2/24 dev veth-b || exit 1

# System plus softirq ticks of all CPUs so far.
ticks() {
	awk '$1 == "cpu" { print $4 + $8 }' /proc/stat
}

server_ready() {
	ip netns exec "$B" ss -Hln 2>/dev/null | grep -q ":$1\b" ||
		ip netns exec "$B" ss -Hlun 2>/dev/null | grep -q ":$1\b"
}

# The DATA packets the sender sent and the skbs they went in, and the DATA
# packets the receiver took and the ACKs it sent.
mrc_counts() {
	echo "$(mrc_mib "$A" OutData) $(mrc_mib "$A" OutDataSkbs)" \
		"$(mrc_mib "$B" InData) $(mrc_mib "$B" OutAcks)"
}

# goodput PROTO CONNS MTU: prints "Mbit/s" of one run (0 if it failed),
# and appends its CPU seconds per GB to $dir/cpu; for MRC, its ACKs per
# DATA packet received to $dir/acks and its DATA packets per transmitted
# skb (segments per GSO batch) to $dir/segs.
goodput() {
	local proto=$1 c=$2 mtu=$3 t0 t1 mbps spid c0=''

	case $proto in
	mrc)
		c0=$(mrc_counts)
		rm -f "$dir/ready"
		ip netns exec "$B" "$P" -s -1 --ready "$dir/ready" > /dev/null 2>&1 &
		spid=$!
		wait_ready "$spid" "$dir/ready" > /dev/null || { echo 0; return; }
		t0=$(ticks)
		mbps=$(ip netns exec "$A" "$P" -c "$MRC_ADDR_B" -P "$c" -t "$secs" -l 64K -j |
			jq -r .goodput_mbps)
		;;
	tcp | udp)
		ip netns exec "$B" iperf3 -s -1 -p 5301 > /dev/null 2>&1 &
		spid=$!
		wait_for 10 server_ready 5301 >&2 || { kill "$spid"; echo 0; return; }
		local args=(-P "$c")
		[ "$proto" = udp ] && args+=(-u -b 0 -l $((mtu - 48)))
		t0=$(ticks)
		mbps=$(ip netns exec "$A" iperf3 -6 -c "$MRC_ADDR_B" -p 5301 -t "$secs" \
			"${args[@]}" -J | jq -r '.end | if .sum_received
			then .sum_received.bits_per_second / 1e6
			else .sum.bits_per_second * (1 - (.sum.lost_percent // 0) / 100) / 1e6
			end')
		;;
	esac
	wait "$spid"
	t1=$(ticks)
	awk -v m="${mbps:-0}" -v d=$((t1 - t0)) -v hz="$hz" -v s="$secs" 'BEGIN {
		gb = m * s / 8 / 1000; if (gb > 0) printf "%.3f\n", d / hz / gb }' >> "$dir/cpu"
	if [ -n "$c0" ]; then
		# shellcheck disable=SC2046,SC2086 # two lists of four numbers
		set -- $c0 $(mrc_counts)
		awk -v d=$(($7 - $3)) -v a=$(($8 - $4)) 'BEGIN {
			if (d > 0) printf "%.3f\n", a / d }' >> "$dir/acks"
		awk -v d=$(($5 - $1)) -v k=$(($6 - $2)) 'BEGIN {
			if (k > 0) printf "%.2f\n", d / k }' >> "$dir/segs"
	fi
	echo "${mbps:-0}"
}

# latency PROTO SIZE: prints "p50 p99 p99.9" in microseconds of one run.
latency() {
	local proto=$1 size=$2 spid

	case $proto in
	mrc | tcp)
		local flag=""
		[ "$proto" = tcp ] && flag=--tcp
		rm -f "$dir/ready"
		# shellcheck disable=SC2086 # $flag is one word or none
		ip netns exec "$B" "$P" -s -1 $flag --ready "$dir/ready" > /dev/null 2>&1 &
		spid=$!
		wait_ready "$spid" "$dir/ready" > /dev/null || return 1
		# shellcheck disable=SC2086
		ip netns exec "$A" "$P" -c "$MRC_ADDR_B" -n "$count" -l "$size" --pingpong \
			$flag -j | jq -r '.latency_us | "\(.p50) \(.p99) \(.p999)"'
		wait "$spid"
		;;
	udp)
		# Debian's sockperf (3.7) speaks IPv4 only: the pair also has
		# 10.99.0.1 and .2 for it.
		command -v sockperf > /dev/null || return 1
		ip netns exec "$B" sockperf server -i 10.99.0.2 -p 11111 > /dev/null 2>&1 &
		spid=$!
		wait_for 10 server_ready 11111 >&2 || { kill "$spid"; return 1; }
		ip netns exec "$A" sockperf ping-pong -i 10.99.0.2 -p 11111 -m "$size" \
			-t "$udp_secs" --full-rtt 2>&1 | awk '/percentile 50.000/ { p50 = $NF }
			/percentile 99.000/ { p99 = $NF } /percentile 99.900/ { p999 = $NF }
			END { if (p50 == "") exit 1; print p50, p99, p999 }'
		local rc=$?
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		return $rc
		;;
	esac
}

results=()
for mtu in ${MTUS-1500 9000}; do
	ip -n "$A" link set veth-a mtu "$mtu"
	ip -n "$B" link set veth-b mtu "$mtu"
	for c in ${CONNS-1 8}; do
		for proto in mrc tcp udp; do
			: > "$dir/cpu"
			: > "$dir/acks"
			: > "$dir/segs"
			for _ in $(seq "$reps"); do
				goodput "$proto" "$c" "$mtu"
			done > "$dir/gp"
			read -r g gmin gmax <<< "$(stats < "$dir/gp")"
			read -r cpu _ <<< "$(stats < "$dir/cpu")"
			read -r acks _ <<< "$(stats < "$dir/acks")"
			read -r segs _ <<< "$(stats < "$dir/segs")"
			echo "mtu $mtu, $c connections, $proto: $g Mbit/s ($gmin-$gmax), $cpu CPU s/GB" \
				"${acks/null/-} ACKs/DATA ${segs/null/-} DATA/skb"
			results+=("\"goodput_mtu${mtu}_c${c}_$proto\": {\"mbps\": $g, \"min\": $gmin, \"max\": $gmax, \"cpu_s_per_gb\": $cpu, \"acks_per_data\": $acks, \"segs_per_skb\": $segs}")
		done
	done
done
ip -n "$A" link set veth-a mtu 1500
ip -n "$B" link set veth-b mtu 1500

for size in ${SIZES-64 4096}; do
	for proto in mrc tcp udp; do
		for _ in $(seq "$reps"); do
			latency "$proto" "$size"
		done > "$dir/lat"
		results+=("$(latency_json "latency_${size}_$proto" "$dir/lat")")
		echo "latency $size B, $proto: $(head -c 200 "$dir/lat" | tr '\n' ';')"
	done
done

{
	echo "{ \"kernel\": \"$(uname -r)\", \"clocksource\": \"$(cat "$clk")\","
	echo "\"repetitions\": $reps, \"seconds\": $secs,"
	echo "\"round_trips\": $count,"
	(IFS=,; echo "${results[*]}")
	echo "}"
} > "$out"
python3 -m json.tool "$out"
