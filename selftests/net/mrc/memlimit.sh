#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The namespace-wide memory limit, net.mrc.mem_max, which bounds the buffers
# of all MRC sockets of a namespace together as tcp_mem does for TCP:
#  - the sysctl: its default, its bounds, one value per namespace, and
#    /proc/net/mrc_sockstat, which shows what is charged;
#  - a control run with the default limit: 16 connections to a server that
#    does not read (mrcperf --stall) pile up more than the bound of the
#    limited runs below, on each side, so that those can fail;
#  - the same with a low limit on the receiver: what it holds stays within
#    the limit plus one message a connection (the one next in line, always
#    taken so that every connection progresses), and once the server
#    reads, every message arrives intact;
#  - the same with a low limit on the sender: its queued data stays within
#    the limit plus one message a connection, its senders wait
#    (SendMemLimit), and every message arrives intact;
#  - one connection with SO_SNDBUF and SO_RCVBUF of 128 KB (mrcperf --buf)
#    to a stalled reader: each side holds its buffer and one message at
#    most, though 2 MB are sent;
#  - 1,000 connections to a receiver that reads nothing, with a limit of
#    4 MB on it: what it holds stays within the limit plus one 4 KB
#    message a connection, and once it reads, every message of the 32 MB
#    sent arrives intact;
#  - after each run, nothing is left charged.
# The samples of /proc/net/mrc_sockstat are taken every 50 ms, from the
# stall until the end of the transfer.

# Test functions run through run_test, which shellcheck cannot follow.
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")"/lib.sh

MRCPERF=$MRC_TOP/build/tools/mrcperf
SEED=${MRC_SEED:-$RANDOM}
suffix=$RANDOM
A=mrc-mem-a-$suffix
B=mrc-mem-b-$suffix
CONNS=16
SIZE=65536
COUNT=32
LIMIT=$((2 * 1024 * 1024))
# What a limited side may hold: the limit, one message a connection beyond
# it, in the true size of its skbs (about 2.1 times the payload for 1,400
# bytes a packet on a veth; 3 times is the margin), and the error of the
# per-CPU totals (64 KB a CPU).
BOUND=$((LIMIT + CONNS * 3 * SIZE + $(nproc) * 65536))
tmp=$(mktemp -d)

cleanup() {
	ns_del "$A" "$B"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit "$KSFT_FAIL"' INT TERM

# mem NS: bytes charged in NS, from /proc/net/mrc_sockstat.
mem() {
	# shellcheck disable=SC2016 # awk's own $1 and $3
	ip netns exec "$1" awk '$1 == "MRC:" { print $3 }' /proc/net/mrc_sockstat
}


mem_at_least() {
	[ "$(mem "$1")" -ge "$2" ]
}

mib_positive() {
	[ "$(mrc_mib "$1" "$2")" -gt 0 ]
}

mib_above() {
	[ "$(mrc_mib "$1" "$2")" -gt "$3" ]
}

nothing_charged() {
	[ "$(mem "$A")" -eq 0 ] && [ "$(mem "$B")" -eq 0 ]
}

setup() {
	ns_pair "$A" "$B" &&
		default_max=$(ip netns exec "$A" sysctl -n net.mrc.mem_max)
}

# sample NS FILE: the charged bytes of NS, every 50 ms until $tmp/stop.
sample() {
	ip netns exec "$1" sh -c "while [ ! -e '$tmp/stop' ]; do
		awk '\$1 == \"MRC:\" { print \$3 }' /proc/net/mrc_sockstat
		sleep 0.05
	done" > "$2"
}

peak() {
	sort -n "$1" | tail -n 1
}

# stalled_run PORT WAIT-COMMAND...: a --verify transfer of RUN_CONNS
# (default CONNS) connections, each of RUN_COUNT (COUNT) messages of
# RUN_SIZE (SIZE) bytes, with RUN_ARGS (mrcperf options of both ends)
# to a server that reads nothing until WAIT-COMMAND succeeds, one more
# second has passed, and the go is given. Samples of both sides go to
# $tmp/a and $tmp/b. Passes if both ends exit 0 and nothing stays charged.
stalled_run() {
	local port=$1 limit spid cpid apid bpid crc src rc=0

	shift
	limit=$(slow_limit 60)
	rm -f "$tmp/ready" "$tmp/go" "$tmp/stop"
	sample "$A" "$tmp/a" &
	apid=$!
	sample "$B" "$tmp/b" &
	bpid=$!
	# shellcheck disable=SC2086 # RUN_ARGS are words
	ip netns exec "$B" "$MRCPERF" -s -1 -B "$MRC_ADDR_B" -p "$port" --timeout "$limit" \
		--ready "$tmp/ready" --stall "$tmp/go" ${RUN_ARGS:-} > "$tmp/server.log" 2>&1 &
	spid=$!
	wait_ready "$spid" "$tmp/ready" || rc=1
	if [ "$rc" -eq 0 ]; then
		# shellcheck disable=SC2086
		ip netns exec "$A" "$MRCPERF" -c "$MRC_ADDR_B" -p "$port" \
			-P "${RUN_CONNS:-$CONNS}" -l "${RUN_SIZE:-$SIZE}" \
			-n "${RUN_COUNT:-$COUNT}" --verify \
			--seed "$SEED" --timeout "$limit" ${RUN_ARGS:-} \
			> "$tmp/client.log" 2>&1 &
		cpid=$!
		wait_for 60 "$@" || rc=1
		sleep 1
		echo "held while stalled: sender $(mem "$A") bytes, receiver $(mem "$B") bytes"
	fi
	touch "$tmp/go"
	if [ "$rc" -eq 0 ]; then
		wait "$cpid"
		crc=$?
		wait "$spid"
		src=$?
		if [ "$crc" -ne 0 ] || [ "$src" -ne 0 ]; then
			echo "client exit $crc, server exit $src"
			sed 's/^/client: /' "$tmp/client.log" | grep -v '^client: \[ *[0-9]'
			sed 's/^/server: /' "$tmp/server.log" | grep -v '^server: \[ *[0-9]'
			rc=1
		else
			grep '^\[SUM\]' "$tmp/client.log"
		fi
	fi
	touch "$tmp/stop"
	wait "$apid" "$bpid"
	ip netns pids "$A" | xargs -r kill 2>/dev/null
	ip netns pids "$B" | xargs -r kill 2>/dev/null
	wait_for 60 nothing_charged ||
		{ echo "still charged: sender $(mem "$A"), receiver $(mem "$B")"; rc=1; }
	return "$rc"
}

test_sysctl() {
	local def=$default_max other

	echo "default net.mrc.mem_max: $def"
	[ "$def" -ge $((1024 * 1024)) ] || { echo "a default below 1 MB"; return 1; }
	for bad in 0 65535 -1 x; do
		if ip netns exec "$A" sysctl -q -w net.mrc.mem_max="$bad" 2> /dev/null; then
			echo "net.mrc.mem_max=$bad accepted"
			return 1
		fi
	done
	[ "$(ip netns exec "$A" sysctl -n net.mrc.mem_max)" = "$def" ] ||
		{ echo "a refused value changed the limit"; return 1; }
	ip netns exec "$A" sysctl -q -w net.mrc.mem_max="$LIMIT" || return 1
	[ "$(ip netns exec "$A" sysctl -n net.mrc.mem_max)" = "$LIMIT" ] || return 1
	other=$(ip netns exec "$B" sysctl -n net.mrc.mem_max)
	[ "$other" = "$def" ] || { echo "the other namespace has $other"; return 1; }
	ip netns exec "$A" grep -x "MRC: mem 0 mem_max $LIMIT" /proc/net/mrc_sockstat ||
		{ ip netns exec "$A" cat /proc/net/mrc_sockstat; return 1; }
	ip netns exec "$A" sysctl -q -w net.mrc.mem_max="$def"
}

test_control() {
	stalled_run 7901 mem_at_least "$A" $((BOUND + 1)) || return 1
	echo "peaks: sender $(peak "$tmp/a"), receiver $(peak "$tmp/b"); bound $BOUND"
	[ "$(peak "$tmp/a")" -gt "$BOUND" ] || { echo "the sender held no more"; return 1; }
	[ "$(peak "$tmp/b")" -gt "$BOUND" ] || { echo "the receiver held no more"; return 1; }
}

test_receiver_limit() {
	local drops nacks rc=0

	drops=$(mrc_mib "$B" DropMemLimit)
	nacks=$(mrc_mib "$B" OutNacks)
	ip netns exec "$B" sysctl -q -w net.mrc.mem_max="$LIMIT" || return 1
	stalled_run 7902 mem_at_least "$B" $((LIMIT * 3 / 4)) || rc=1
	ip netns exec "$B" sysctl -q -w net.mrc.mem_max="$default_max"
	echo "receiver peak $(peak "$tmp/b"), limit $LIMIT, bound $BOUND;" \
		"DropMemLimit +$(($(mrc_mib "$B" DropMemLimit) - drops))," \
		"OutNacks +$(($(mrc_mib "$B" OutNacks) - nacks))"
	[ "$(peak "$tmp/b")" -le "$BOUND" ] || { echo "over the bound"; rc=1; }
	return "$rc"
}

test_sender_limit() {
	local waits rc=0

	waits=$(mrc_mib "$A" SendMemLimit)
	ip netns exec "$A" sysctl -q -w net.mrc.mem_max="$LIMIT" || return 1
	stalled_run 7903 mib_positive "$A" SendMemLimit || rc=1
	ip netns exec "$A" sysctl -q -w net.mrc.mem_max="$default_max"
	echo "sender peak $(peak "$tmp/a"), limit $LIMIT, bound $BOUND;" \
		"SendMemLimit +$(($(mrc_mib "$A" SendMemLimit) - waits))"
	[ "$(peak "$tmp/a")" -le "$BOUND" ] || { echo "over the bound"; rc=1; }
	[ "$(mrc_mib "$A" SendMemLimit)" -gt "$waits" ] || { echo "no sender waited"; rc=1; }
	return "$rc"
}

# One connection whose sockets have SO_SNDBUF and SO_RCVBUF of SOCKBUF
# (doubled by the kernel), to a reader that stalls: each side holds no
# more than its buffer and the one message it always takes (three times
# its payload in true size), though the 2 MB sent would not fit.
SOCKBUF=$((128 * 1024))
SOCK_BOUND=$((2 * SOCKBUF + 3 * SIZE + $(nproc) * 65536))
test_socket_buffers() {
	local rc=0

	RUN_CONNS=1 RUN_ARGS="--buf $SOCKBUF" \
		stalled_run 7904 mem_at_least "$B" "$SOCKBUF" || rc=1
	echo "peaks: sender $(peak "$tmp/a"), receiver $(peak "$tmp/b");" \
		"bound $SOCK_BOUND, sent $((COUNT * SIZE))"
	[ "$(peak "$tmp/b")" -le "$SOCK_BOUND" ] || { echo "receiver over the bound"; rc=1; }
	[ "$(peak "$tmp/a")" -le "$SOCK_BOUND" ] || { echo "sender over the bound"; rc=1; }
	return "$rc"
}

# 1,000 connections to one receiver that reads nothing, at a limit of
# MANY_LIMIT: the first message of each connection is next in line and
# always taken, the rest wait for room. The bound is the limit, one
# message a connection (3 times its payload in true size, as above) and
# the per-CPU error. Unbounded, the receiver would hold all 32 MB sent,
# in about 1.7 times that in true size: well over the bound. Whether
# packets are dropped (DropMemLimit) depends on how far the windows the
# receiver advertised before it reached the limit overlap; each drop is
# answered by a NACK (NO_BUFFER), so the two counters must move together.
MANY_CONNS=1000
MANY_SIZE=4096
MANY_COUNT=8
MANY_LIMIT=$((4 * 1024 * 1024))
MANY_BOUND=$((MANY_LIMIT + MANY_CONNS * 3 * MANY_SIZE + $(nproc) * 65536))
test_many_conns() {
	local drops nacks rc=0

	drops=$(mrc_mib "$B" DropMemLimit)
	nacks=$(mrc_mib "$B" OutNacks)
	ip netns exec "$B" sysctl -q -w net.mrc.mem_max="$MANY_LIMIT" || return 1
	RUN_CONNS=$MANY_CONNS RUN_SIZE=$MANY_SIZE RUN_COUNT=$MANY_COUNT \
		stalled_run 7905 mem_at_least "$B" "$MANY_LIMIT" || rc=1
	ip netns exec "$B" sysctl -q -w net.mrc.mem_max="$default_max"
	drops=$(($(mrc_mib "$B" DropMemLimit) - drops))
	nacks=$(($(mrc_mib "$B" OutNacks) - nacks))
	echo "receiver peak $(peak "$tmp/b"), limit $MANY_LIMIT, bound $MANY_BOUND;" \
		"sent $((MANY_CONNS * MANY_COUNT * MANY_SIZE)); DropMemLimit +$drops, OutNacks +$nacks"
	[ "$(peak "$tmp/b")" -le "$MANY_BOUND" ] || { echo "over the bound"; rc=1; }
	[ "$nacks" -ge "$drops" ] || { echo "drops not answered by NACKs"; rc=1; }
	return "$rc"
}

if [ "$(id -u)" -ne 0 ]; then
	echo "memlimit.sh needs root"
	exit "$KSFT_SKIP"
fi
ktap_begin 6
if ! setup; then
	for name in "net.mrc.mem_max and /proc/net/mrc_sockstat" "control" \
		"receiver" "sender" "socket buffers" "1,000 connections"; do
		ktap_result fail "$name (setup failed)"
	done
	ktap_end
fi
run_test "net.mrc.mem_max: default, bounds, per namespace; mrc_sockstat" test_sysctl
run_test "control: unlimited, a stalled reader piles up more than the bound" test_control
run_test "receiver at net.mrc.mem_max: within the bound, every byte delivered" \
	test_receiver_limit
run_test "sender at net.mrc.mem_max: within the bound, senders wait, every byte delivered" \
	test_sender_limit
run_test "SO_SNDBUF/SO_RCVBUF of 128 KB: each side within its buffer and one message" \
	test_socket_buffers
run_test "1,000 connections at net.mrc.mem_max: within the bound, drops counted, every byte delivered" \
	test_many_conns
ktap_end
