#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A peer that disappears mid-transfer: the sender gets an error within the
# documented bound (max_retries timeouts of at most rto_max_ms each, after
# the RTO has grown), and nothing leaks or warns.
#
# A peer that stays, acknowledging but never reading: a connection closed
# with data still to deliver (an orphan) is reset once
# net.mrc.orphan_timeout_ms has passed, or at once beyond
# net.mrc.max_orphans, and its memory is freed. The peer is a listener
# that never accepts (mrc_hold -l): its kernel answers every zero-window
# probe, which would otherwise keep the orphan alive for ever.

# Test functions run through run_test, which shellcheck cannot follow;
# awk programs are in single quotes on purpose.
# shellcheck disable=SC2317,SC2016
# shellcheck source-path=SCRIPTDIR source=lib.sh
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
	before=$(mrc_mib "$A" ConnTimeout)
	ip -n "$B" link del veth-b
	# Documented bound with the defaults: under 15 s; allow for slow guests.
	client_failed_with 60 "timed out" || return 1
	after=$(mrc_mib "$A" ConnTimeout)
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

mib_above() {
	[ "$(mrc_mib "$1" "$2")" -gt "$3" ]
}

slab_at_most() {
	[ "$(mrc_slab_objects)" -le "$1" ]
}

# orphan SYSCTL=VALUE: in a new A, with that net.mrc sysctl, an orphan
# towards a peer that never reads; the listener's pid in $hold.
orphan() {
	setup || return 1
	ip netns exec "$A" sysctl -qw "net.mrc.$1" || return 1
	rm -f "$tmp/listening"
	ip netns exec "$B" "$MRC_BIN"/mrc_hold -l 7600 -r "$tmp/listening" &
	hold=$!
	wait_ready "$hold" "$tmp/listening" || return 1
	ip netns exec "$A" "$MRC_BIN"/mrc_orphan "$MRC_ADDR_B" 7600 || return 1
}

test_orphan_timeout() {
	local base rst0 n rc=0

	base=$(mrc_slab_objects)
	# 5 s, scaled: on a debug kernel the shell took longer than 5 s
	# to count the sockets after close(), and found the orphan gone.
	orphan orphan_timeout_ms="$(slow_limit 5)000" || return 1
	rst0=$(mrc_mib "$B" InRsts)
	n=$(ip netns exec "$A" awk '$1 == "MRC" { print $3 }' /proc/net/protocols)
	echo "sockets in A right after close(): $n"
	[ "$n" = 1 ] || { echo "the orphan did not outlive close()"; rc=1; }
	# Reset at the first retransmission timer after the timeout: within
	# rto_max_ms (1 s) of it, with a margin for slow guests.
	wait_for 30 no_sockets_left || rc=1
	echo "A: $(mrc_mib_nonzero "$A")"
	mib_above "$A" OrphanTimeout 0 ||
		{ echo "OrphanTimeout did not rise"; rc=1; }
	wait_for 30 mib_above "$B" InRsts "$rst0" ||
		{ echo "the peer got no RST"; rc=1; }
	kill "$hold"
	wait "$hold"
	wait_for 60 slab_at_most "$base" ||
		{ echo "MRC slab objects: $(mrc_slab_objects), $base before"; rc=1; }
	return "$rc"
}

test_orphan_overflow() {
	local rc=0

	orphan max_orphans=0 || return 1
	# Reset in close() itself.
	no_sockets_left || { echo "the connection outlived close()"; rc=1; }
	echo "A: $(mrc_mib_nonzero "$A")"
	mib_above "$A" OrphanOverflow 0 ||
		{ echo "OrphanOverflow did not rise"; rc=1; }
	kill "$hold"
	wait "$hold"
	return "$rc"
}

ktap_begin 4
run_test "peer's link vanishes: ETIMEDOUT within the bound" test_link_vanishes
run_test "peer's namespace deleted mid-transfer" test_namespace_deleted
run_test "an orphan whose peer acknowledges but never reads: reset after orphan_timeout_ms" test_orphan_timeout
run_test "an orphan beyond max_orphans: reset at close()" test_orphan_overflow
ktap_end
