#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stress: many sockets and connections made and destroyed in every way a
# program or an administrator can, after each of which the MRC slab cache
# must be back to where it was (sockets are freed after an RCU grace
# period and their connections after their last packet, hence the waits).
# The guest log is checked by the harness. (rmmod refused while sockets
# exist, and clean after, is module.sh's.)
#  - 10,000 cycles of socket(), bind(), close();
#  - 1,000 connections, at most 50 at once, each killed at a random
#    point with its data in flight: close(), abort (SO_LINGER 0),
#    shutdown(), or left to the process's exit;
#  - both namespaces of 8 live transfers deleted, their processes killed;
#  - 2,000 SYNs at a listener with backlog 16 that never accepts: never
#    more than backlog + 1 children, all gone once they time out.

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

# A listener (backlog 16) that never accepts, flooded with SYNs from a
# spoofed address that nobody owns (A sends from it with
# ip_nonlocal_bind; B's SYNACKs to it find no neighbour), so that every
# child made waits out its handshake: there are never more than backlog + 1
# of them, as the sockets in use (sampled throughout the flood) and the
# counters (SYNs that did not overflow made a child) show. Then, with
# syn_retries lowered to 0, they go at their next SYNACK timeout, and the
# slab is back.
test_handshake_flood() {
	local n=2000 port=7802 param=/sys/module/mrc/parameters/syn_retries
	local retries syns over made peak lpid spid rc=0

	ns_pair "$A" "$B" || return 1
	ip netns exec "$A" sysctl -qw net.ipv6.ip_nonlocal_bind=1 || return 1
	retries=$(cat "$param")
	ip netns exec "$B" "$MRC_BIN"/mrc_hold -l "$port" -b 16 -r "$tmp/listening" &
	lpid=$!
	wait_ready "$lpid" "$tmp/listening" || { echo "$retries" > "$param"; return 1; }
	# Resolve B's neighbour entry in A first: until it is resolved, A's
	# kernel queues the flood behind it, unres_qlen_bytes at most (about
	# 277 of these SYNs), and drops the rest.
	ip netns exec "$A" ping -6 -c 1 -w "$(slow_limit 10)" -q "$MRC_ADDR_B" > /dev/null ||
		{ echo "B does not answer a ping"; echo "$retries" > "$param"; return 1; }
	syns=$(mrc_mib "$B" InSyns)
	over=$(mrc_mib "$B" DropListenOverflow)
	rm -f "$tmp/stop"
	ip netns exec "$B" sh -c "while [ ! -e '$tmp/stop' ]; do
		awk '\$1 == \"MRC\" { print \$3 }' /proc/net/protocols; sleep 0.1; done" \
		> "$tmp/inuse" &
	spid=$!
	ip netns exec "$A" python3 -c 'import random, socket, sys
sys.path.insert(0, sys.argv[1])
from mrc_pkt import MRC_PORT, syn
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.bind(("2001:db8::99", 0))
for _ in range(int(sys.argv[3])):
    s.sendto(syn(random.randrange(3, 1 << 24), random.randrange(1024, 65536),
                 int(sys.argv[4])), (sys.argv[2], MRC_PORT))' \
		"$MRC_SELFTEST_DIR" "$MRC_ADDR_B" "$n" "$port" || rc=1
	sleep 1
	touch "$tmp/stop"
	wait "$spid"
	syns=$(($(mrc_mib "$B" InSyns) - syns))
	over=$(($(mrc_mib "$B" DropListenOverflow) - over))
	made=$((syns - over))
	peak=$(sort -n "$tmp/inuse" | tail -n 1)
	echo "$n SYNs sent, $syns received, $over overflowed, $made children made;" \
		"at most $peak MRC sockets in use (the listener and its children)"
	echo 0 > "$param"
	kill "$lpid"
	wait "$lpid" 2>/dev/null
	[ "$syns" -ge $((n / 2)) ] || { echo "too few SYNs arrived"; rc=1; }
	[ "$made" -le 17 ] || { echo "more than backlog + 1 children"; rc=1; }
	[ "${peak:-99}" -le 18 ] || { echo "more than backlog + 1 children in use"; rc=1; }
	ns_del "$A" "$B"
	back_to_baseline || rc=1
	echo "$retries" > "$param"
	return "$rc"
}

ktap_begin 4
run_test "10,000 socket/bind/close cycles" test_socket_cycles
run_test "1,000 connections killed at random with data in flight" test_connection_churn
run_test "namespaces deleted under 8 live transfers" test_namespaces_deleted
run_test "a handshake flood: never more than backlog + 1 children" test_handshake_flood
ktap_end
