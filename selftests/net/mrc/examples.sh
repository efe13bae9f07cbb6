#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The example programs of tools/examples/ (make examples), as a user would
# run them:
#  - rpc: 300 requests of 1 byte to 256 KB between two namespaces over a
#    link losing 1% each way; the client checks every answer, the server
#    counts them;
#  - filexfer: a 32 MB random file from host 1 to host 2 of the 4-plane
#    fabric (links shaped to LINK_RATE), with plane 2 blackholed midway
#    until host 1 has retired it (mrc monitor says so), then healed; the
#    received file must be identical (cmp).

# Test functions run through run_test, which shellcheck cannot follow.
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")"/lib.sh
# shellcheck source-path=SCRIPTDIR source=fabric.sh
source "$(dirname "$0")"/fabric.sh

EX=$MRC_TOP/build/examples
LINK_RATE=${LINK_RATE:-20mbit}
suffix=$RANDOM
A=mrc-ex-a-$suffix
B=mrc-ex-b-$suffix
tmp=$(mktemp -d)

cleanup() {
	ns_del "$A" "$B"
	fab_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit "$KSFT_FAIL"' INT TERM


test_rpc() {
	local spid rc n=300

	ns_pair "$A" "$B" || return 1
	ip netns exec "$A" tc qdisc add dev veth-a root netem loss 1% || return 1
	ip netns exec "$B" tc qdisc add dev veth-b root netem loss 1% || return 1
	ip netns exec "$B" "$EX"/rpc server 7000 > "$tmp/server" 2>&1 &
	spid=$!
	wait_for 30 grep -q listening "$tmp/server" || { cat "$tmp/server"; return 1; }
	timeout "$(slow_limit 120)" ip netns exec "$A" "$EX"/rpc client "$MRC_ADDR_B" 7000 "$n" \
		> "$tmp/client" 2>&1
	rc=$?
	cat "$tmp/client"
	[ "$rc" -eq 0 ] || { echo "the client failed ($rc)"; return 1; }
	grep -q "^rpc: $n requests answered correctly" "$tmp/client" || return 1
	# The server's child for that connection prints its count and exits.
	wait_for 30 grep -q "answered" "$tmp/server"
	kill "$spid"
	cat "$tmp/server"
	grep -q "^rpc: answered $n requests$" "$tmp/server" ||
		{ echo "the server did not answer $n requests"; return 1; }
}

# part_size: bytes host 2 has written of the file so far.
part_size() {
	stat -c %s "$tmp/recv/data.bin.part" 2>/dev/null || echo 0
}

over_4mb() {
	[ "$(part_size)" -gt 4000000 ]
}

# retired_since N: mrc monitor printed, after its line N, that host 1
# retired path 2 on a loss.
retired_since() {
	tail -n +"$(($1 + 1))" "$tmp/monitor" | grep -q ' id 2 good -> assumed-bad (loss)'
}

test_filexfer() {
	local h k rpid spid mpid rrc src n

	fab_up 2 4 || return 1
	for h in 1 2; do
		for k in 1 2 3 4; do
			fab_link_shape "$h" "$k" both "$LINK_RATE" || return 1
		done
	done
	fab_paths 1 2 && fab_paths 2 1 || return 1
	head -c 32M /dev/urandom > "$tmp/data.bin"
	mkdir "$tmp/recv"
	fab_monitor 1 "$tmp/monitor"
	mpid=$FAB_MON_PID
	fab_exec_host 2 "$EX"/filexfer recv 7001 "$tmp/recv" > "$tmp/recv.log" 2>&1 &
	rpid=$!
	wait_for 30 grep -q waiting "$tmp/recv.log" || { cat "$tmp/recv.log"; return 1; }
	fab_exec_host 1 "$EX"/filexfer send "$(fab_host_addr 2)" 7001 "$tmp/data.bin" \
		> "$tmp/send.log" 2>&1 &
	spid=$!
	wait_for 60 over_4mb || return 1
	echo "blackholing plane 2 at $(part_size) bytes received"
	n=$(wc -l < "$tmp/monitor")
	fab_link_qdisc 1 2 up netem loss 100% || return 1
	wait_for 60 retired_since "$n" || { kill "$mpid"; cat "$tmp/monitor"; return 1; }
	echo "path 2 retired, $(part_size) bytes received; healing it"
	fab_link_shape 1 2 up "$LINK_RATE" || return 1
	wait_for 300 fab_gone "$spid"
	wait "$spid"
	src=$?
	wait_for 30 fab_gone "$rpid" || kill "$rpid"
	wait "$rpid"
	rrc=$?
	kill "$mpid"
	cat "$tmp/send.log" "$tmp/recv.log"
	if [ "$src" -ne 0 ] || [ "$rrc" -ne 0 ]; then
		echo "sender exited $src, receiver $rrc"
		return 1
	fi
	cmp "$tmp/data.bin" "$tmp/recv/data.bin" || return 1
	echo "the 32 MB file arrived identical"
}

ktap_begin 2
run_test "rpc: every answer right, over a lossy link" test_rpc
run_test "filexfer: a file arrives intact across a path failure" test_filexfer
ktap_end
