#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stress: many sockets and connections made and destroyed in every way a
# program or an administrator can, after each of which the MRC slab cache
# must be back to where it was (sockets are freed after an RCU grace
# period and their connections after their last packet, hence the waits).
# The guest log is checked by the harness. (rmmod refused while sockets
# exist, and clean after, is module.sh's; a handshake flood on a
# listener, hostile.sh's.)
#  - 10,000 cycles of socket(), bind(), close();
#  - 1,000 connections, at most 50 at once, each killed at a random
#    point with its data in flight: close(), abort (SO_LINGER 0),
#    shutdown(), or left to the process's exit;
#  - both namespaces of 8 live transfers deleted, their processes killed.

# Test functions run through run_test, which shellcheck cannot follow.
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")"/lib.sh

CHURN=$MRC_BIN/mrc_churn
MRCPERF=$MRC_TOP/build/tools/mrcperf
suffix=$RANDOM
A=mrc-stress-a-$suffix
B=mrc-stress-b-$suffix
tmp=$(mktemp -d)

cleanup() {
	ns_del "$A" "$B"
	rm -rf "$tmp"
}
trap cleanup EXIT

baseline=$(mrc_slab_objects)

slab_at_baseline() {
	[ "$(mrc_slab_objects)" -le "$baseline" ]
}

back_to_baseline() {
	wait_for 120 slab_at_baseline ||
		{ echo "MRC slab objects: $(mrc_slab_objects), baseline $baseline"; return 1; }
	echo "MRC slab objects back to $baseline"
}

no_conns() {
	local ns

	for ns in "$@"; do
		[ "$(ip netns exec "$ns" "$MRC_TOP"/build/tools/mrc -j conn show |
		     python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')" = 0 ] ||
			return 1
	done
}

test_socket_cycles() {
	"$CHURN" -b 10000 || return 1
	back_to_baseline
}

test_connection_churn() {
	local spid

	ns_pair "$A" "$B" || return 1
	ip netns exec "$B" "$CHURN" -s 7800 -r "$tmp/ready" -x "$tmp/stop" > "$tmp/sink" 2>&1 &
	spid=$!
	wait_ready "$spid" "$tmp/ready" || return 1
	timeout "$(slow_limit 600)" ip netns exec "$A" "$CHURN" -c "$MRC_ADDR_B" -p 7800 \
		-n 1000 -j 50 -S "${MRC_SEED:-$RANDOM}" || return 1
	# Every connection ends at the sink too: by FIN, RST or timeout.
	wait_for 300 no_conns "$A" ||
		{ ip netns exec "$A" "$MRC_TOP"/build/tools/mrc conn show | head; return 1; }
	touch "$tmp/stop"
	wait "$spid"
	cat "$tmp/sink"
	wait_for 300 no_conns "$B" || return 1
	ns_del "$A" "$B"
	back_to_baseline
}

test_namespaces_deleted() {
	local spid

	ns_pair "$A" "$B" || return 1
	ip netns exec "$B" "$MRCPERF" -s -p 7801 --ready "$tmp/ready2" > /dev/null 2>&1 &
	spid=$!
	wait_ready "$spid" "$tmp/ready2" || return 1
	ip netns exec "$A" "$MRCPERF" -c "$MRC_ADDR_B" -p 7801 -P 8 -t 600 -l 256K \
		> /dev/null 2>&1 &
	sleep 2
	ip netns pids "$A" | xargs -r kill -9
	ip netns pids "$B" | xargs -r kill -9
	ip netns del "$A" && ip netns del "$B" || return 1
	wait 2>/dev/null
	back_to_baseline
}

ktap_begin 3
run_test "10,000 socket/bind/close cycles" test_socket_cycles
run_test "1,000 connections killed at random with data in flight" test_connection_churn
run_test "namespaces deleted under 8 live transfers" test_namespaces_deleted
ktap_end
