#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# profile.sh [MTU [SECS]]: where one connection over an unshaped veth
# spends the guest's CPU, by function. While mrcperf sends 64 KB messages
# at MTU (default 9000), the function_graph tracer times every call of
# the functions in FUNCS for SECS seconds (default 2; the trace buffer
# holds about that much), and the report gives per function its calls,
# its self time (less the traced functions it called), its total time,
# and self seconds per second. Tracing slows everything by about half,
# and a traced function's time includes the tracer's cost for the
# traced calls under it, so compare rows of one report, or MRC against
# PROTO=tcp (mrcperf --tcp), rather than absolute figures. (perf's
# cpu-clock sampling, the only kind a TCG guest has, lands almost only
# in the idle loop there.) Run it in a guest:
#   tools/testing/vm-run --kernel KVER -- tools/testing/bench/profile.sh
# FUNCS (space-separated) replaces the list of functions.

set -u
mtu=${1:-9000}
secs=${2:-5}
top=$(cd "$(dirname "$0")/../../.." && pwd)
P=$top/build/tools/mrcperf
A=mrc-prof-a-$RANDOM
B=mrc-prof-b-$RANDOM
dir=$(mktemp -d)
flag=""
# The functions timed: the socket calls, the protocol's transmit and
# receive steps, and the stack's costs they may hide (copies, skb
# allocation, segmentation, the veth). A traced function's time
# includes that of the traced functions it calls.
FUNCS=${FUNCS:-"mrc_sendmsg mrc_recvmsg mrc_push mrc_xmit_batch mrc_xmit_data
	mrc_udp_rcv mrc_rcv_data mrc_rcv_ack mrc_send_ack mrc_detect_losses
	mrc_cp_choose mrc_cp_route mrc_rtx_timeout mrc_deliver ip6_xmit
	udp_queue_rcv_skb __udp_gso_segment skb_segment skb_copy_bits
	skb_copy_datagram_iter __alloc_skb kfree_skb_reason consume_skb
	skb_release_data veth_xmit net_rx_action __netif_receive_skb_list_core
	__netif_receive_skb_one_core ip6_rcv_finish ipv6_rcv
	tcp_sendmsg tcp_recvmsg tcp_v6_rcv tcp_write_xmit tcp_ack
	__tcp_transmit_skb sock_def_readable __wake_up_sync_key skb_clone
	mrc_cp_on_xmit mrc_cp_on_ack mrc_rcv_wnd __bitmap_shift_right
	bitmap_to_arr64 lock_sock_nested release_sock __release_sock
	mrc_backlog_rcv sk_reset_timer ktime_get mrc_conn_lookup
	mrc_cp_pick mrc_mem_set_owner_r mrc_mem_set_owner_w
	mrc_cc_on_ack skb_copy_datagram_from_iter __skb_datagram_iter
	_copy_to_iter _copy_from_iter ip6_finish_output2 dev_queue_xmit
	__dev_queue_xmit __local_bh_enable_ip"}
[ "${PROTO:-mrc}" = tcp ] && flag=--tcp

# shellcheck source-path=SCRIPTDIR/../../../selftests/net/mrc source=lib.sh
source "$top"/selftests/net/mrc/lib.sh
trap 'ns_del "$A" "$B"; rm -rf "$dir"' EXIT
ns_pair "$A" "$B" || exit 1
ip -n "$A" link set veth-a mtu "$mtu"
ip -n "$B" link set veth-b mtu "$mtu"

T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T
sed 's/ .*//' $T/available_filter_functions | sort -u > "$dir/avail"
echo 0 > $T/tracing_on
echo nop > $T/current_tracer
echo > $T/trace
: > "$dir/filter"
for f in $FUNCS; do
	grep -qx "$f" "$dir/avail" && echo "$f" >> "$dir/filter"
done
cat "$dir/filter" > $T/set_ftrace_filter
echo 1 > $T/options/funcgraph-tail
echo 16384 > $T/buffer_size_kb
echo function_graph > $T/current_tracer
# shellcheck disable=SC2086 # $flag is one word or none
ip netns exec "$B" "$P" -s -1 $flag --ready "$dir/ready" > /dev/null 2>&1 &
spid=$!
wait_ready "$spid" "$dir/ready" > /dev/null || exit 1
# shellcheck disable=SC2086
ip netns exec "$A" "$P" -c "$MRC_ADDR_B" $flag -t $((secs + 2)) -l 64K -j \
	> "$dir/client.json" &
cpid=$!
sleep 1
t0=$(awk '$1 == "cpu" { print $2 + $4 + $7 + $8 }' /proc/stat)
echo 1 > $T/tracing_on
sleep "$secs"
echo 0 > $T/tracing_on
t1=$(awk '$1 == "cpu" { print $2 + $4 + $7 + $8 }' /proc/stat)
cat $T/trace > "$dir/trace"
echo nop > $T/current_tracer
wait "$cpid"
wait "$spid"
python3 -c 'import json, sys; print("goodput Mbit/s:", json.load(open(sys.argv[1]))["goodput_mbps"])' \
	"$dir/client.json"
echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
echo "busy CPU s in the window: $(( (t1 - t0) / $(getconf CLK_TCK) ))" \
	"(user+system+irq+softirq, all CPUs)"
grep -c . "$dir/trace" | sed 's/^/trace lines: /'
grep -h overrun $T/per_cpu/cpu*/stats 2> /dev/null | tr '\n' ' '; echo
# function_graph lines: "CPU) dur us | func();" (a leaf), "CPU) | func() {"
# and "CPU) dur us | } /* func */". A function's self time is its time
# less that of the traced functions it called; "total" includes them.
awk -v secs="$secs" '
	match($0, /^ *[0-9]+\)/) {
		cpu = substr($0, RSTART, RLENGTH) + 0
		n = split($0, a, "|"); fn = a[n]
		open = fn ~ /\{ *$/
		gsub(/[ ;{}()]|\/\*|\*\//, "", fn)
		if (open) { d[cpu]++; ch[cpu, d[cpu]] = 0; next }
		if (!match(a[n - 1], /[0-9.]+ us/))
			next
		dur = substr(a[n - 1], RSTART, RLENGTH - 3)
		if (a[n] ~ /\}/) {
			kids = ch[cpu, d[cpu]]
			if (d[cpu] > 0) d[cpu]--
		} else {
			kids = 0
		}
		ch[cpu, d[cpu]] += dur
		self[fn] += dur - kids; tot[fn] += dur; c[fn]++
	}
	END {
		printf "%-28s %8s %10s %10s %9s %8s\n", "function", "calls",
			"self us", "total us", "self/call", "self s/s"
		for (f in self)
			printf "%-28s %8d %10.0f %10.0f %9.2f %8.3f\n", f, c[f],
				self[f], tot[f], self[f] / c[f], self[f] / 1e6 / secs
	}' "$dir/trace" | sort -k3 -g -r
