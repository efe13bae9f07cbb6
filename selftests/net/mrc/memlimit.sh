#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The protocol's memory limit, net.mrc.mem (min, pressure, max, in pages),
# which bounds the buffers of all MRC sockets of the host together through
# the kernel's socket accounting, as tcp_mem does for TCP:
#  - the sysctl: its defaults, in the initial namespace only, and
#    /proc/net/mrc_sockstat, which shows the pages charged;
#  - a control run with the default limit: 16 connections to a server that
#    does not read (mrcperf --stall) pile up more than the bound of the
#    limited run below, so that it can fail;
#  - the same with a low limit: what both ends hold stays within the limit
#    plus one message a connection at each end (the message next in line
#    is always taken, and a sender with nothing queued may always queue
#    one, so that every connection progresses), the receiver drops what it
#    cannot charge or the senders wait, and once the server reads, every
#    message arrives intact;
#  - one connection with SO_SNDBUF and SO_RCVBUF of 128 KB (mrcperf --buf)
#    to a stalled reader: the ends hold their buffers and one message each
#    at most, though 2 MB are sent;
#  - 1,000 connections (250 on a debug kernel) to a receiver that reads
#    nothing, at a low limit:
#    within the limit plus one message a connection at each end, and once
#    it reads, every message of the 64 MB sent arrives intact;
#  - buffer autotuning (see test_autotune);
#  - after each run, every socket is gone and its charges with it: what
#    stays charged is at most the kernel's per-CPU reserves (the module
#    warns, and the guest's log fails the run, if a socket leaves charges
#    behind).
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
PAGE=$(getconf PAGESIZE)
# The kernel batches a protocol's charges by CPU, up to 1 MB each, so the
# pages /proc/net/mrc_sockstat shows are off by that much either way.
RESERVE=$(($(nproc) * 1024 * 1024))
# What a socket keeps charged in hand, beyond its buffers: under a page
# after a release, and a page it may have charged ahead.
SOCK_SLACK=$((2 * PAGE))
CONNS=16
SIZE=65536
COUNT=32
LIMIT=$((8 * 1024 * 1024))
# What both ends may hold at the limit: the limit, one message a
# connection at each end, in the true size of its skbs (about 2.1 times
# the payload for 1,400 bytes a packet on a veth; 3 times is the margin),
# the per-CPU reserves and each socket's slack.
BOUND=$((LIMIT + 2 * CONNS * 3 * SIZE + RESERVE + (2 * CONNS + 1) * SOCK_SLACK))
tmp=$(mktemp -d)

cleanup() {
	[ -n "${default_mem:-}" ] && sysctl -q -w net.mrc.mem="$default_mem"
	ns_del "$A" "$B"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit "$KSFT_FAIL"' INT TERM

# sockstat NS FIELD: FIELD of the MRC line of /proc/net/mrc_sockstat in NS.
sockstat() {
	local s f

	s=$(mrc_ns_read "$1" /proc/net/mrc_sockstat) || return 1
	while read -ra f; do
		[ "${f[0]}" = MRC: ] || continue
		for ((i = 1; i + 1 < ${#f[@]}; i += 2)); do
			[ "${f[i]}" = "$2" ] && echo "${f[i + 1]}"
		done
	done <<< "$s"
}

# mem: bytes the protocol has charged, from the pages mrc_sockstat shows.
mem() {
	echo $(($(sockstat "$A" mem) * PAGE))
}

mem_at_least() {
	[ "$(mem)" -ge "$1" ]
}

mib_above() {
	[ "$(mrc_mib "$1" "$2")" -gt "$3" ]
}

# set_limit BYTES: net.mrc.mem with its max at BYTES, pressure at three
# quarters and min at half of it.
set_limit() {
	local max=$(($1 / PAGE))

	sysctl -q -w net.mrc.mem="$((max / 2)) $((max * 3 / 4)) $max"
}

restore_limit() {
	sysctl -q -w net.mrc.mem="$default_mem"
}

# Every socket gone, and what stays charged within the per-CPU reserves.
nothing_charged() {
	[ "$(sockstat "$A" inuse)" -eq 0 ] && [ "$(sockstat "$B" inuse)" -eq 0 ] &&
		[ "$(mem)" -le "$RESERVE" ]
}

setup() {
	ns_pair "$A" "$B" &&
		default_mem=$(sysctl -n net.mrc.mem | xargs)
}

# sample FILE: the charged pages, every 50 ms until $tmp/stop.
sample() {
	ip netns exec "$A" sh -c "while [ ! -e '$tmp/stop' ]; do
		awk '\$1 == \"MRC:\" { print \$7 * $PAGE }' /proc/net/mrc_sockstat
		sleep 0.05
	done" > "$1"
}

# progress: until $tmp/done, every minute, what the transfer has done
# since the readers started: a soak that takes long says where it is.
# Killed (TERM), it kills its sleep too: a sleep left behind would hold
# the case's output open, and run_test would wait for it to end.
progress() {
	local t0=$SECONDS s=

	trap '[ -n "$s" ] && kill "$s" 2>/dev/null; exit 0' TERM
	while [ ! -e "$tmp/done" ]; do
		sleep 60 &
		s=$!
		wait "$s"
		echo "$((SECONDS - t0)) s after go: B MsgsDelivered $(mrc_mib "$B" MsgsDelivered)" \
			"DropZeroWindow $(mrc_mib "$B" DropZeroWindow)" \
			"DropRcvbuf $(mrc_mib "$B" DropRcvbuf);" \
			"A OutData $(mrc_mib "$A" OutData) ZeroWindowProbes $(mrc_mib "$A" ZeroWindowProbes)" \
			"RtoFired $(mrc_mib "$A" RtoFired); charged $(mem) bytes"
	done
}

peak() {
	sort -n "$1" | tail -n 1
}

# stalled_run PORT WAIT-COMMAND...: a --verify transfer of RUN_CONNS
# (default CONNS) connections, each of RUN_COUNT (COUNT) messages of
# RUN_SIZE (SIZE) bytes, with RUN_ARGS (mrcperf options of both ends)
# to a server that reads nothing until WAIT-COMMAND succeeds, one more
# second has passed, and the go is given. The samples go to $tmp/mem,
# until the end, or with RUN_AT_GO until the go, when that command runs.
# RUN_WAIT (default 60) seconds, scaled by slow_limit, bound the wait for
# WAIT-COMMAND and are both ends' --timeout. Passes if both ends exit 0
# and nothing stays charged.
stalled_run() {
	local port=$1 limit spid cpid mpid ppid crc src t0 rc=0

	shift
	t0=$SECONDS
	limit=$(slow_limit "${RUN_WAIT:-60}")
	rm -f "$tmp/ready" "$tmp/go" "$tmp/stop"
	sample "$tmp/mem" &
	mpid=$!
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
		wait_for "${RUN_WAIT:-60}" "$@" || rc=1
		sleep 1
		echo "held while stalled: $(mem) bytes ($((SECONDS - t0)) s in)"
	fi
	if [ -n "${RUN_AT_GO:-}" ]; then
		touch "$tmp/stop"
		$RUN_AT_GO
	fi
	touch "$tmp/go"
	if [ "$rc" -eq 0 ]; then
		ppid=
		if [ -n "${RUN_PROGRESS:-}" ]; then
			rm -f "$tmp/done"
			progress &
			ppid=$!
		fi
		wait "$cpid"
		crc=$?
		wait "$spid"
		src=$?
		if [ -n "$ppid" ]; then
			touch "$tmp/done"
			kill "$ppid" 2>/dev/null
			wait "$ppid" 2>/dev/null
		fi
		if [ "$crc" -ne 0 ] || [ "$src" -ne 0 ]; then
			echo "client exit $crc, server exit $src"
			sed 's/^/client: /' "$tmp/client.log" | grep -v '^client: \[ *[0-9]'
			sed 's/^/server: /' "$tmp/server.log" | grep -v '^server: \[ *[0-9]'
			rc=1
		else
			grep '^\[SUM\]' "$tmp/client.log"
			echo "transfer done $((SECONDS - t0)) s in"
		fi
	fi
	touch "$tmp/stop"
	wait "$mpid"
	ip netns pids "$A" | xargs -r kill 2>/dev/null
	ip netns pids "$B" | xargs -r kill 2>/dev/null
	wait_for 60 nothing_charged ||
		{ echo "still charged: $(mem) bytes, sockets $(sockstat "$A" inuse) and $(sockstat "$B" inuse)"; rc=1; }
	return "$rc"
}

test_sysctl() {
	local min press max

	read -r min press max <<< "$default_mem"
	echo "default net.mrc.mem: $min $press $max (pages of $PAGE bytes)"
	if [ "$min" -le 0 ] || [ "$min" -gt "$press" ] || [ "$press" -gt "$max" ]; then
		echo "defaults out of order"
		return 1
	fi
	[ $((max * PAGE)) -ge $((1024 * 1024)) ] || { echo "a max below 1 MB"; return 1; }
	# For the host, as tcp_mem: not in other namespaces.
	if ip netns exec "$A" sysctl -n net.mrc.mem > /dev/null 2>&1; then
		echo "net.mrc.mem in a namespace other than the initial one"
		return 1
	fi
	ip netns exec "$A" sysctl -n net.mrc.outage_timeout_ms > /dev/null ||
		{ echo "the namespace's own net.mrc sysctls are gone"; return 1; }
	set_limit "$LIMIT" || return 1
	max=$((LIMIT / PAGE))
	[ "$(sysctl -n net.mrc.mem | xargs)" = "$((max / 2)) $((max * 3 / 4)) $max" ] ||
		{ sysctl net.mrc.mem; return 1; }
	sysctl -q -w net.mrc.mem="$default_mem" || return 1
	ip netns exec "$A" grep -xE "MRC: inuse 0 orphan 0 mem [0-9]+" /proc/net/mrc_sockstat ||
		{ ip netns exec "$A" cat /proc/net/mrc_sockstat; return 1; }
	grep -E "^MRC +" /proc/net/protocols | head -n 1
}

test_control() {
	stalled_run 7901 mem_at_least $((BOUND + 1)) || return 1
	echo "peak $(peak "$tmp/mem"), bound $BOUND"
	[ "$(peak "$tmp/mem")" -gt "$BOUND" ] || { echo "no more held"; return 1; }
}

# limited DROPS WAITS: the receiver dropped a packet it could not charge,
# or a sender waited, since the counters were DROPS and WAITS.
limited() {
	mib_above "$B" DropMemLimit "$1" || mib_above "$A" SendMemLimit "$2"
}

test_limit() {
	local drops waits rc=0

	drops=$(mrc_mib "$B" DropMemLimit)
	waits=$(mrc_mib "$A" SendMemLimit)
	set_limit "$LIMIT" || return 1
	stalled_run 7902 limited "$drops" "$waits" || rc=1
	sysctl -q -w net.mrc.mem="$default_mem"
	echo "peak $(peak "$tmp/mem"), limit $LIMIT, bound $BOUND;" \
		"DropMemLimit +$(($(mrc_mib "$B" DropMemLimit) - drops))," \
		"SendMemLimit +$(($(mrc_mib "$A" SendMemLimit) - waits))"
	[ "$(peak "$tmp/mem")" -le "$BOUND" ] || { echo "over the bound"; rc=1; }
	return "$rc"
}

# full PROBES DROPS: the receiver's buffer is full: the sender probed a
# closed window, or the receiver dropped beyond SO_RCVBUF, since the
# counters were PROBES and DROPS. (What is charged cannot say it: the
# kernel batches up to 1 MB a CPU before the total sees it.)
full() {
	mib_above "$A" ZeroWindowProbes "$1" || mib_above "$B" DropRcvbuf "$2"
}

# One connection whose sockets have SO_SNDBUF and SO_RCVBUF of SOCKBUF
# (doubled by the kernel), to a reader that stalls: the ends hold no more
# than their buffers and the one message each always takes (three times
# its payload in true size), though the 4 MB sent would not fit.
SOCKBUF=$((128 * 1024))
SOCK_COUNT=64
SOCK_BOUND=$((2 * (2 * SOCKBUF + 3 * SIZE) + RESERVE + 3 * SOCK_SLACK))
test_socket_buffers() {
	local probes drops rc=0

	probes=$(mrc_mib "$A" ZeroWindowProbes)
	drops=$(mrc_mib "$B" DropRcvbuf)
	RUN_CONNS=1 RUN_COUNT=$SOCK_COUNT RUN_ARGS="--buf $SOCKBUF" \
		stalled_run 7904 full "$probes" "$drops" || rc=1
	echo "peak $(peak "$tmp/mem"), bound $SOCK_BOUND, sent $((SOCK_COUNT * SIZE))"
	[ "$(peak "$tmp/mem")" -le "$SOCK_BOUND" ] || { echo "over the bound"; rc=1; }
	return "$rc"
}

# 1,000 connections to one receiver that reads nothing, at a limit of
# MANY_LIMIT: the first message of each connection is next in line and
# always taken, and each sender may always queue one; the rest wait for
# room. Unbounded, the receiver would hold all 64 MB sent, in about 1.7
# times that in true size: well over the bound. The limit is lifted when
# the reader starts: 2,000 sockets within 4 MB are under pressure, with
# no share beyond the page each may always charge, and would take minutes
# to move the rest by zero-window probes. Opening 1,000 connections and
# filling them took a minute in a TCG guest: each wait is 300 s.
#
# On the debug kernel (check-debug), a quarter of them (slow_count): there
# the 100,000 packets of 1,000 connections kept both CPUs in softirqs for
# minutes, which starved the RCU grace-period kthread (an RCU stall
# report), and the guest hung in that report.
MANY_CONNS=$(slow_count 1000)
MANY_SIZE=4096
MANY_COUNT=16
MANY_LIMIT=$((4 * 1024 * 1024))
MANY_BOUND=$((MANY_LIMIT + 2 * MANY_CONNS * 3 * MANY_SIZE + RESERVE +
	(2 * MANY_CONNS + 1) * SOCK_SLACK))
# held DROPS WAITS PRESSURE: the limit holds the memory: limited, or the
# protocol entered memory pressure (MemPressure, in either namespace),
# since the counters were DROPS, WAITS and PRESSURE. At 4 MB, the 2,000
# sockets' fair share under pressure is below the page each may always
# charge, so the windows close at the pressure mark, and what is charged
# may never reach the max (768 pages, exactly the mark, in one run).
held() {
	limited "$1" "$2" || [ "$(pressure_entries)" -gt "$3" ]
}

# pressure_entries: MemPressure of both namespaces together.
pressure_entries() {
	echo $(($(mrc_mib "$A" MemPressure) + $(mrc_mib "$B" MemPressure)))
}

test_many_conns() {
	local drops waits pressure rc=0

	drops=$(mrc_mib "$B" DropMemLimit)
	waits=$(mrc_mib "$A" SendMemLimit)
	pressure=$(pressure_entries)
	set_limit "$MANY_LIMIT" || return 1
	RUN_CONNS=$MANY_CONNS RUN_SIZE=$MANY_SIZE RUN_COUNT=$MANY_COUNT \
		RUN_AT_GO=restore_limit RUN_WAIT=300 RUN_PROGRESS=1 \
		stalled_run 7905 held "$drops" "$waits" "$pressure" || rc=1
	restore_limit
	echo "peak $(peak "$tmp/mem"), limit $MANY_LIMIT, bound $MANY_BOUND;" \
		"sent $((MANY_CONNS * MANY_COUNT * MANY_SIZE));" \
		"DropMemLimit +$(($(mrc_mib "$B" DropMemLimit) - drops))," \
		"SendMemLimit +$(($(mrc_mib "$A" SendMemLimit) - waits))," \
		"MemPressure +$(($(pressure_entries) - pressure));" \
		"B: DropZeroWindow $(mrc_mib "$B" DropZeroWindow) DropRcvbuf $(mrc_mib "$B" DropRcvbuf)"
	[ "$(peak "$tmp/mem")" -le "$MANY_BOUND" ] || { echo "over the bound"; rc=1; }
	return "$rc"
}

# Buffer autotuning (net.mrc.rcvbuf_max, net.mrc.sndbuf_max), over a
# veth at MTU 9000 whose host 1 end delays what it sends by AUTO_DELAY_MS
# (netem), so that one RTT of a reader that keeps up is more than the
# default 1 MiB buffers' window offers. mrcperf reports the MRC_INFO of
# host 1's connection: the receiver with -R (host 2 sends), else the
# sender. Every byte is checked each time.
#  - receiving, with rcvbuf_max at AUTO_MAX: SO_RCVBUF grew (RcvbufGrown)
#    past the default and stayed within AUTO_MAX, and the receiver's RTT
#    (mrci_rcv_rtt_us) is at least the delay;
#  - sending, with sndbuf_max at AUTO_MAX: the same of SO_SNDBUF
#    (SndbufGrown);
#  - with --buf (both buffers set by the application), each stayed what
#    the application set (doubled and within net.core.rmem_max and
#    wmem_max, as for any socket), and neither end grew one;
#  - with both maxima 0, nothing grew either.
AUTO_DELAY_MS=10
AUTO_MAX=$((3 * 1024 * 1024))
AUTO_COUNT=512

# auto_run PORT DIR ARGS...: a --verify transfer of AUTO_COUNT messages
# of SIZE bytes between host 1 (the client) and host 2: host 2 sends if
# DIR is -R, host 1 if it is "-". ARGS are mrcperf options of both ends.
# Prints the client's "rcvbuf rcv_rtt_us sndbuf", or fails.
auto_run() {
	local port=$1 dir=$2 limit spid out

	shift 2
	[ "$dir" = - ] && dir=
	limit=$(slow_limit 120)
	rm -f "$tmp/ready"
	ip netns exec "$B" "$MRCPERF" -s -1 -B "$MRC_ADDR_B" -p "$port" --timeout "$limit" \
		--ready "$tmp/ready" "$@" > "$tmp/server.log" 2>&1 &
	spid=$!
	wait_ready "$spid" "$tmp/ready" >&2 || return 1
	# shellcheck disable=SC2086 # $dir is one word or none
	out=$(ip netns exec "$A" "$MRCPERF" -c "$MRC_ADDR_B" -p "$port" $dir \
		-l "$SIZE" -n "$AUTO_COUNT" --verify --seed "$SEED" \
		--timeout "$limit" -j "$@" 2> "$tmp/client.log")
	if ! wait "$spid" || ! jq -e '.conns[0].ok' <<< "$out" > /dev/null; then
		echo "transfer failed" >&2
		sed 's/^/client: /' "$tmp/client.log" >&2
		sed 's/^/server: /' "$tmp/server.log" >&2
		return 1
	fi
	jq -r '.conns[0].mrc_info | "\(.rcvbuf) \(.rcv_rtt_us) \(.sndbuf)"' <<< "$out"
}

# grown: "RcvbufGrown SndbufGrown" of both namespaces together.
grown() {
	echo "$(($(mrc_mib "$A" RcvbufGrown) + $(mrc_mib "$B" RcvbufGrown)))" \
		"$(($(mrc_mib "$A" SndbufGrown) + $(mrc_mib "$B" SndbufGrown)))"
}

# in_range V LO HI: LO < V <= HI (V a number).
in_range() {
	[ "${1:-0}" -gt "$2" ] && [ "$1" -le "$3" ]
}

auto_sysctl() {
	ip netns exec "$A" sysctl -q -w net.mrc.rcvbuf_max="$1" net.mrc.sndbuf_max="$2" &&
		ip netns exec "$B" sysctl -q -w net.mrc.rcvbuf_max="$1" net.mrc.sndbuf_max="$2"
}

test_autotune() {
	local rmax smax r0 s0 r1 s1 rbuf rtt sbuf want out rc=0

	rmax=$(ip netns exec "$A" sysctl -n net.mrc.rcvbuf_max) || return 1
	smax=$(ip netns exec "$A" sysctl -n net.mrc.sndbuf_max) || return 1
	echo "defaults: net.mrc.rcvbuf_max $rmax, net.mrc.sndbuf_max $smax"
	if [ "$rmax" -ne $((6 * 1024 * 1024)) ] || [ "$smax" -ne $((4 * 1024 * 1024)) ]; then
		echo "not 6 and 4 MiB"
		rc=1
	fi
	ip -n "$A" link set veth-a mtu 9000 && ip -n "$B" link set veth-b mtu 9000 &&
		tc -n "$A" qdisc add dev veth-a root netem delay "${AUTO_DELAY_MS}ms" \
			limit 100000 || return 1
	auto_sysctl "$AUTO_MAX" "$AUTO_MAX" || rc=1

	read -r r0 s0 <<< "$(grown)"
	out=$(auto_run 7906 -R) || rc=1
	read -r rbuf rtt sbuf <<< "$out"
	read -r r1 s1 <<< "$(grown)"
	echo "receiving: SO_RCVBUF $rbuf, rcv_rtt_us $rtt, RcvbufGrown +$((r1 - r0))"
	if ! in_range "$rbuf" $((1024 * 1024)) "$AUTO_MAX" || [ "$r1" -eq "$r0" ]; then
		echo "SO_RCVBUF not grown into (1 MiB, $AUTO_MAX]"
		rc=1
	fi
	[ "${rtt:-0}" -ge $((AUTO_DELAY_MS * 1000)) ] ||
		{ echo "receiver RTT below the delay"; rc=1; }

	read -r r0 s0 <<< "$(grown)"
	out=$(auto_run 7907 -) || rc=1
	read -r rbuf rtt sbuf <<< "$out"
	read -r r1 s1 <<< "$(grown)"
	echo "sending: SO_SNDBUF $sbuf, SndbufGrown +$((s1 - s0))"
	if ! in_range "$sbuf" $((1024 * 1024)) "$AUTO_MAX" || [ "$s1" -eq "$s0" ]; then
		echo "SO_SNDBUF not grown into (1 MiB, $AUTO_MAX]"
		rc=1
	fi

	# What the kernel makes of 128K: doubled, within rmem_max/wmem_max.
	want=$(sysctl -n net.core.rmem_max)
	want="$((2 * (want < 131072 ? want : 131072)))"
	want+=" $(($(sysctl -n net.core.wmem_max) < 131072 ? 2 * $(sysctl -n net.core.wmem_max) : 262144))"
	read -r r0 s0 <<< "$(grown)"
	out=$(AUTO_COUNT=64 auto_run 7908 -R --buf 128K) || rc=1
	read -r rbuf rtt sbuf <<< "$out"
	read -r r1 s1 <<< "$(grown)"
	echo "--buf 128K: SO_RCVBUF $rbuf, SO_SNDBUF $sbuf (set: $want)," \
		"RcvbufGrown +$((r1 - r0)), SndbufGrown +$((s1 - s0))"
	if [ "$rbuf $sbuf" != "$want" ] || [ "$r1" -ne "$r0" ] || [ "$s1" -ne "$s0" ]; then
		echo "a buffer the application set changed"
		rc=1
	fi

	auto_sysctl 0 0 || rc=1
	read -r r0 s0 <<< "$(grown)"
	auto_run 7909 -R > /dev/null || rc=1
	read -r r1 s1 <<< "$(grown)"
	echo "maxima 0: RcvbufGrown +$((r1 - r0)), SndbufGrown +$((s1 - s0))"
	if [ "$r1" -ne "$r0" ] || [ "$s1" -ne "$s0" ]; then
		echo "grew with autotuning off"
		rc=1
	fi

	auto_sysctl "$rmax" "$smax"
	tc -n "$A" qdisc del dev veth-a root
	ip -n "$A" link set veth-a mtu 1500 && ip -n "$B" link set veth-b mtu 1500
	return "$rc"
}

if [ "$(id -u)" -ne 0 ]; then
	echo "memlimit.sh needs root"
	exit "$KSFT_SKIP"
fi
ktap_begin 6
if ! setup; then
	for name in "net.mrc.mem and /proc/net/mrc_sockstat" "control" \
		"limit" "socket buffers" "$MANY_CONNS connections" "autotuning"; do
		ktap_result fail "$name (setup failed)"
	done
	ktap_end
fi
run_test "net.mrc.mem: defaults, initial namespace only; mrc_sockstat" test_sysctl
run_test "control: unlimited, a stalled reader piles up more than the bound" test_control
run_test "at net.mrc.mem: within the bound, drops or waits, every byte delivered" \
	test_limit
run_test "SO_SNDBUF/SO_RCVBUF of 128 KB: within the buffers and one message each" \
	test_socket_buffers
run_test "$MANY_CONNS connections at net.mrc.mem: within the bound, every byte delivered" \
	test_many_conns
run_test "buffer autotuning: grows to rcvbuf_max and sndbuf_max, not a set buffer, not at 0" \
	test_autotune
ktap_end
