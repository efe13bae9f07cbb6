#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A peer that disappears mid-transfer: the sender gets an error within the
# documented bound (max_retries timeouts of at most rto_max_ms each, after
# the RTO has grown), and nothing leaks or warns.

source "$(dirname "$0")"/lib.sh

MRCPERF=$MRC_TOP/build/tools/mrcperf
suffix=$RANDOM
A=mrc-gone-a-$suffix
B=mrc-gone-b-$suffix
tmp=$(mktemp -d)
echo "# namespaces $A $B"

cleanup() {
	ns_del "$A" "$B"
	rm -rf "$tmp"
}
trap cleanup EXIT

setup() {
	ns_del "$A" "$B"
	ns_pair "$A" "$B"
}

# Start a transfer that would run for minutes; echo the client's PID.
start_transfer() {
	rm -f "$tmp/ready"
	ip netns exec "$B" "$MRCPERF" -s -1 --ready "$tmp/ready" --timeout 300 \
		> "$tmp/server" 2>&1 &
	wait_ready $! "$tmp/ready" || return 1
	ip netns exec "$A" "$MRCPERF" -c "$MRC_ADDR_B" -t 600 -l 64K --timeout 300 \
		> "$tmp/client" 2>&1 &
	client=$!
	# Let data flow for a moment; the test does not depend on how much.
	sleep 1
}

client_failed_with() {
	local limit=$1 want=$2

	wait_for "$limit" bash -c "! kill -0 $client 2>/dev/null" || return 1
	wait "$client"
	local rc=$?
	cat "$tmp/client"
	[ "$rc" -ne 0 ] || { echo "client succeeded"; return 1; }
	grep -q "$want" "$tmp/client" || { echo "expected: $want"; return 1; }
}

no_sockets_left() {
	[ "$(ip netns exec "$A" awk '$1 == "MRC" { print $3 }' /proc/net/protocols)" = 0 ]
}

# The path to the peer vanishes silently: no RST, only timeouts.
test_link_vanishes() {
	local before after

	setup || return 1
	start_transfer || return 1
	before=$(ip netns exec "$A" awk '$1 == "ConnTimeout" { print $2 }' /proc/net/mrc_stat)
	ip -n "$B" link del veth-b
	# Documented bound with the defaults: under 15 s; allow for slow guests.
	client_failed_with 60 "timed out" || return 1
	after=$(ip netns exec "$A" awk '$1 == "ConnTimeout" { print $2 }' /proc/net/mrc_stat)
	[ "$after" -gt "$before" ] || { echo "ConnTimeout did not rise"; return 1; }
	wait_for 30 no_sockets_left
}

# The peer's namespace is deleted with its process: the sender is reset.
test_namespace_deleted() {
	setup || return 1
	start_transfer || return 1
	ip netns pids "$B" | xargs -r kill -9
	ip netns del "$B"
	client_failed_with 60 "reset\|timed out" || return 1
	wait_for 30 no_sockets_left
}

ktap_begin 2
run_test "peer's link vanishes: ETIMEDOUT within the bound" test_link_vanishes
run_test "peer's namespace deleted mid-transfer" test_namespace_deleted
ktap_end
