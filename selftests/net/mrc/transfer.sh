#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Data transfer between two network namespaces joined by a veth pair:
# message sizes around one packet and up to MRC_MSG_MAX, order and content
# of 10,000 messages, the same under netem loss, reordering, duplication and
# jitter (with the OutRetrans counter checked), lost tails found by a
# probe rather than the RTO, 1,000 connections at
# once, and flowcells sent and received as GSO batches. mrcperf does the
# transfers: every message is checked for loss,
# duplication, reordering and corruption, and both ends must agree on what
# was sent. Needs root, tc with netem, and mrc.ko loaded (vm-run does that).
#
#   ns A (client)  veth-a 2001:db8::1  <-->  2001:db8::2 veth-b  ns B (server)

# Test functions run through run_test, which shellcheck cannot follow.
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")"/lib.sh

MRCPERF=$MRC_TOP/build/tools/mrcperf
SEED=${MRC_SEED:-$RANDOM}
SUFFIX=$RANDOM
NS_A=mrc-a-$SUFFIX
NS_B=mrc-b-$SUFFIX
ADDR_B=$MRC_ADDR_B
# Each impaired case moves this many messages of this size (2 MB).
IMPAIRED_SIZE=1000
IMPAIRED_COUNT=2000

tmp=$(mktemp -d)
cleanup() {
	ns_del "$NS_A" "$NS_B"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit "$KSFT_FAIL"' INT TERM

setup() {
	ns_pair "$NS_A" "$NS_B"
}

# A fresh port for every server, so that no case depends on how soon the
# previous one's port can be bound again.
next_port() {
	local port

	port=$(cat "$tmp/port" 2>/dev/null || echo 5311)
	echo $((port + 1)) > "$tmp/port"
	echo "$port"
}

gone() {
	! kill -0 "$1" 2>/dev/null
}

# transfer CLIENT-ARGS...: a -1 server in B, a --verify client in A. Passes
# only if both exit 0: the server saw every message intact and in order, and
# the client's count of messages and bytes matches the server's.
transfer() {
	local port limit spid crc src

	port=$(next_port)
	limit=$(slow_limit 30)
	rm -f "$tmp/ready"
	ip netns exec "$NS_B" "$MRCPERF" -s -1 -B "$ADDR_B" -p "$port" --timeout "$limit" \
		--ready "$tmp/ready" > "$tmp/server.log" 2>&1 &
	spid=$!
	if ! wait_ready "$spid" "$tmp/ready"; then
		sed 's/^/server: /' "$tmp/server.log"
		return 1
	fi
	timeout -k 10 "$(slow_limit 150)" ip netns exec "$NS_A" "$MRCPERF" -c "$ADDR_B" \
		-p "$port" --verify --seed "$SEED" --timeout "$limit" "$@" > "$tmp/client.log" 2>&1
	crc=$?
	# The session is over, so the server is exiting (or will time out).
	wait_for 60 gone "$spid" || kill "$spid"
	wait "$spid"
	src=$?
	if [ "$crc" -ne 0 ] || [ "$src" -ne 0 ]; then
		echo "mrcperf $*: client exit $crc, server exit $src"
		# Per-connection lines only where they carry an error.
		grep -Ev '^\[ *[0-9]+\] +[0-9]' "$tmp/client.log" | sed 's/^/client: /'
		grep -Ev '^\[ *[0-9]+\] +[0-9]' "$tmp/server.log" | sed 's/^/server: /'
		return 1
	fi
	# The totals of the text output; JSON (-j) the caller reads.
	grep -E '^\[SUM\]|^mrc_info' "$tmp/client.log" ||
		[ "$(head -c 1 "$tmp/client.log")" = "{" ]
}

# The reader keeps up, so the window does not stay closed: a zero-window
# probe means the sender waited an RTO for the reader. Allow a few (a
# guest's vCPU left unscheduled for longer than an RTO holds the reader
# up), never one per message: 1-byte messages took 944 of 1,000 when the
# window's payload-to-true-size ratio rounded to 0.
test_message_size() {
	local size=$1 count=$2 z0 z

	z0=$(read_counter ZeroWindowProbes) || { echo "$z0"; return 1; }
	transfer -l "$size" -n "$count" || return 1
	z=$(read_counter ZeroWindowProbes) || { echo "$z"; return 1; }
	z=$((z - z0))
	echo "ZeroWindowProbes +$z"
	[ "$z" -le $((count / 100 + 2)) ] ||
		{ echo "$z zero-window probes for a reader that keeps up"; return 1; }
}

test_10000_in_order() {
	transfer -l 1000 -n 10000
}

# read_counter NAME: NAME from /proc/net/mrc_stat summed over both
# namespaces, or why it cannot be read.
read_counter() {
	local ns n total=0

	for ns in "$NS_A" "$NS_B"; do
		if ! n=$(mrc_mib "$ns" "$1" 2>&1); then
			echo "/proc/net/mrc_stat cannot be read (in $ns): $n"
			return 1
		fi
		if [ -z "$n" ]; then
			echo "/proc/net/mrc_stat has no $1 counter (in $ns)"
			return 1
		fi
		total=$((total + n))
	done
	echo "$total"
}

save_counter() {
	local v

	if v=$(read_counter "$2"); then
		echo "$v" > "$1"
	else
		echo "! $v" > "$1"
	fi
}

netem() {
	ip netns exec "$NS_A" tc qdisc "$1" dev veth-a root netem "${@:2}" &&
		ip netns exec "$NS_B" tc qdisc "$1" dev veth-b root netem "${@:2}"
}

netem_off() {
	ip netns exec "$NS_A" tc qdisc del dev veth-a root 2>/dev/null
	ip netns exec "$NS_B" tc qdisc del dev veth-b root 2>/dev/null
}

# test_netem CASE COUNTER NETEM-ARGS...: the impaired transfer, with
# COUNTER read before and after it for test_counter.
test_netem() {
	local case=$1 counter=$2 rc

	shift 2
	save_counter "$tmp/$case.before" "$counter"
	if ! netem add "$@"; then
		echo "tc qdisc add ... netem $* failed"
		netem_off
		return 1
	fi
	echo "netem $* on veth-a and veth-b"
	transfer -l "$IMPAIRED_SIZE" -n "$IMPAIRED_COUNT"
	rc=$?
	netem_off
	save_counter "$tmp/$case.after" "$counter"
	return "$rc"
}

# test_counter CASE COUNTER: the impairment of CASE showed in COUNTER.
test_counter() {
	local before after

	before=$(cat "$tmp/$1.before" 2>/dev/null || echo "! the transfer did not run")
	after=$(cat "$tmp/$1.after" 2>/dev/null || echo "! the transfer did not run")
	for v in "$before" "$after"; do
		if [ "${v:0:1}" = "!" ]; then
			echo "${v:2}"
			return 1
		fi
	done
	echo "$2 $before -> $after"
	if [ "$after" -le "$before" ]; then
		echo "$2 did not increase under this impairment"
		return 1
	fi
	return 0
}

# -R: the server sends and the client checks every message, here over a
# lossy link, so that the server's side recovers (OutRetrans).
test_reverse() {
	local rc

	save_counter "$tmp/reverse.before" OutRetrans
	netem add loss 5% || { echo "tc qdisc add ... netem loss 5% failed"; return 1; }
	transfer -R -P 4 -l 9000 -n 100
	rc=$?
	netem_off
	save_counter "$tmp/reverse.after" OutRetrans
	[ "$rc" -eq 0 ] && test_counter reverse OutRetrans
}

# -i: the client's interval reports (JSON) add up to what it sent.
test_intervals() {
	transfer -j -i 0.2 -P 2 -l 9000 -n 2000 || return 1
	python3 - "$tmp/client.log" <<-'EOF'
	import json, sys
	r = json.load(open(sys.argv[1]))
	iv = r["intervals"]
	total = sum(i["bytes"] for i in iv)
	print("%d intervals, %d bytes in them, %d in all" % (len(iv), total, r["bytes"]))
	ok = iv and total == r["bytes"] == 2 * 2000 * 9000 and all(
	    a["end"] == b["start"] for a, b in zip(iv, iv[1:]))
	sys.exit(0 if ok else 1)
	EOF
}

test_1000_connections() {
	ulimit -n 4096 2>/dev/null
	transfer -P 1000 -n 5 -l 1000
}

# batched_transfer [COUNT]: a bulk transfer of COUNT (200) 64 KB messages
# over the 16 automatic paths; prints
# the increase of OutData, OutDataSkbs and InDataBatches (batches the
# receiver took whole) over it. The counters are read with no connection
# left, since one that closed may still send (a retransmission of what
# its peer read and closed before acknowledging).
batched_transfer() {
	local d0 s0 b0 rc

	wait_for 30 mrc_sockets_gone "$NS_A" "$NS_B" >&2 || return 1
	d0=$(read_counter OutData) && s0=$(read_counter OutDataSkbs) &&
		b0=$(read_counter InDataBatches) || return 1
	transfer -l 65536 -n "${1:-200}" >&2
	rc=$?
	wait_for 30 mrc_sockets_gone "$NS_A" "$NS_B" >&2 || return 1
	echo "$(($(read_counter OutData) - d0)) $(($(read_counter OutDataSkbs) - s0))" \
		"$(($(read_counter InDataBatches) - b0))"
	return "$rc"
}

# Flowcells (Documentation/networking/mrc.rst, "Path choice"): a bulk
# transfer sends runs of packets of one path as GSO batches, which
# reference the payload's page fragments; the veth passes them on whole,
# and host 2 takes most of them whole too ("Receive" in mrc.rst); with
# spray_burst 1, every packet goes alone. Every byte is checked each time.
test_batches() {
	local data skbs whole burst out rc=0

	out=$(batched_transfer) || rc=1
	read -r data skbs whole <<< "$out"
	echo "flowcells: OutData +$data, OutDataSkbs +$skbs, InDataBatches +$whole"
	if [ "${skbs:-0}" -eq 0 ] || [ "$skbs" -ge "${data:-0}" ]; then
		echo "no batch sent"
		rc=1
	fi
	if [ "${whole:-0}" -eq 0 ]; then
		echo "no batch received whole"
		rc=1
	fi
	burst=$(cat /sys/module/mrc/parameters/spray_burst)
	echo 1 > /sys/module/mrc/parameters/spray_burst
	out=$(batched_transfer) || rc=1
	echo "$burst" > /sys/module/mrc/parameters/spray_burst
	read -r data skbs whole <<< "$out"
	echo "spray_burst 1: OutData +$data, OutDataSkbs +$skbs, InDataBatches +$whole"
	if [ "${skbs:-0}" -eq 0 ] || [ "$skbs" -ne "${data:-0}" ]; then
		echo "a batch with spray_burst 1"
		rc=1
	fi
	return "$rc"
}

# chained_transfer: batched_transfer of 60 messages (4 MB: the window
# reaches a cell of 9 packets, past one skb, within the first), with
# OutDataChained's increase after the other three.
chained_transfer() {
	local c0 out rc

	c0=$(read_counter OutDataChained) || return 1
	out=$(batched_transfer 60)
	rc=$?
	echo "$out $(($(read_counter OutDataChained) - c0))"
	return "$rc"
}

# Batches longer than one skb (Documentation/networking/mrc.rst, "Path
# choice"): at MTU 1500 a cell of 32 packets takes some 65 fragments,
# and an skb has 17. Over the veth, which takes a frag_list, the packets
# that do not fit go on the batch's frag_list, and host 2 still takes
# batches whole. With veth-a's frag_list offload off but its UDP
# segmentation on, a batch ends where its first skb is full, and none is
# chained; with both off, the stack segments chained batches in software
# (skb_segment()), and host 2 gets single packets. Every byte is checked
# each time.
test_batch_chains() {
	local feats data skbs whole chained out f rc=0

	for feats in "" "tx-scatter-gather-fraglist" \
		     "tx-scatter-gather-fraglist tx-udp-segmentation"; do
		for f in $feats; do
			ip netns exec "$NS_A" ethtool -K veth-a "$f" off || rc=1
		done
		out=$(chained_transfer) || rc=1
		for f in $feats; do
			ip netns exec "$NS_A" ethtool -K veth-a "$f" on || rc=1
		done
		read -r data skbs whole chained <<< "$out"
		echo "off: ${feats:-nothing}: OutData +$data, OutDataSkbs +$skbs," \
			"InDataBatches +$whole, OutDataChained +$chained"
		if [ "${skbs:-0}" -eq 0 ] || [ "$skbs" -ge "${data:-0}" ]; then
			echo "no batch sent"
			rc=1
		fi
		case $feats in
		"")
			[ "${chained:-0}" -gt 0 ] || { echo "no batch chained"; rc=1; }
			[ "${whole:-0}" -gt 0 ] || { echo "no batch received whole"; rc=1; }
			;;
		*udp*)
			[ "${chained:-0}" -gt 0 ] || { echo "no batch chained"; rc=1; }
			[ "${whole:-1}" -eq 0 ] || { echo "a batch not segmented"; rc=1; }
			;;
		*)
			[ "${chained:-1}" -eq 0 ] || { echo "a batch chained"; rc=1; }
			[ "${whole:-0}" -gt 0 ] || { echo "no batch received whole"; rc=1; }
			;;
		esac
	done
	return "$rc"
}

# tail_round: a ping-pong of TAIL_ROUNDS 1000-byte messages with every
# fourth DATA packet A sends dropped as it reaches B (a tc filter on the
# MRC type byte, just past the IPv6 and UDP headers: the automatic paths
# of a namespace pair carry no SRH; at A's egress the drop would be
# reported to the sender, a local drop), verified. Each message is the tail
# of its flight: nothing sent after it can reveal its loss. Prints the
# RtoFired, TailProbes and TailProbeRepairs it added in A, and the drops,
# or why it could not run (and returns KSFT_SKIP when tc cannot drop
# every fourth packet).
TAIL_ROUNDS=200
tail_round() {
	local r0 t0 p0 r1 t1 p1 drops rc=0

	ip netns exec "$NS_B" tc qdisc add dev veth-b clsact || return 1
	if ! ip netns exec "$NS_B" tc filter add dev veth-b ingress pref 1 \
		protocol ipv6 u32 match ip6 protocol 17 0xff match u8 1 0xff at 49 \
		action gact pass random determ drop 4; then
		echo "tc cannot drop every fourth packet (gact random determ)"
		ip netns exec "$NS_B" tc qdisc del dev veth-b clsact
		return "$KSFT_SKIP"
	fi
	r0=$(mrc_mib "$NS_A" RtoFired)
	t0=$(mrc_mib "$NS_A" TailProbes)
	p0=$(mrc_mib "$NS_A" TailProbeRepairs)
	transfer --pingpong -l 1000 -n "$TAIL_ROUNDS" >&2 || rc=1
	r1=$(mrc_mib "$NS_A" RtoFired)
	t1=$(mrc_mib "$NS_A" TailProbes)
	p1=$(mrc_mib "$NS_A" TailProbeRepairs)
	# shellcheck disable=SC2016 # awk's own fields
	drops=$(ip netns exec "$NS_B" tc -s filter show dev veth-b ingress |
		awk '/dropped/ { for (i = 1; i < NF; i++) if ($i == "(dropped") { print $(i + 1) + 0; exit } }')
	ip netns exec "$NS_B" tc qdisc del dev veth-b clsact
	echo "$((r1 - r0)) $((t1 - t0)) $((p1 - p0)) ${drops:-0}"
	return "$rc"
}

# A lost tail is found by a probe, not by the RTO: the same drops with
# tail_probes off (which must cost RTOs, or the case shows nothing) and on.
# A probe's copy that fills the hole charges the first copy's loss to its
# path (TailProbeRepairs); only a probe can.
test_tail_probe() {
	local param=/sys/module/mrc/parameters/tail_probes old out rc=0
	local rto_off probes_off rep_off drops_off rto_on probes_on rep_on drops_on

	old=$(cat "$param")
	echo N > "$param"
	out=$(tail_round)
	rc=$?
	echo "$old" > "$param"
	[ "$rc" -eq 0 ] || { echo "$out"; return "$rc"; }
	read -r rto_off probes_off rep_off drops_off <<< "$out"
	out=$(tail_round) || { echo "$out"; return 1; }
	read -r rto_on probes_on rep_on drops_on <<< "$out"
	echo "tail_probes N: $drops_off drops, RtoFired +$rto_off, TailProbes +$probes_off, TailProbeRepairs +$rep_off"
	echo "tail_probes Y: $drops_on drops, RtoFired +$rto_on, TailProbes +$probes_on, TailProbeRepairs +$rep_on"
	if [ "$drops_off" -lt $((TAIL_ROUNDS / 8)) ] || [ "$drops_on" -lt $((TAIL_ROUNDS / 8)) ]; then
		echo "the filter dropped too little"
		rc=1
	fi
	if [ "$probes_off" -ne 0 ] || [ "$rep_off" -ne 0 ] ||
	   [ "$rto_off" -lt $((drops_off / 2)) ]; then
		echo "without probes, each lost tail should have cost an RTO"
		rc=1
	fi
	# A probe that the peer's late ACK makes unnecessary is allowed;
	# an RTO for a tail the probe repairs is not, bar a few for a guest
	# that did not run for a while.
	if [ "$probes_on" -lt $((drops_on / 2)) ] || [ "$rto_on" -gt $((rto_off / 2)) ]; then
		echo "with probes, the lost tails should have been probed, not timed out"
		rc=1
	fi
	# Every probe that arrived where its first copy had not was that
	# copy's loss, bar those whose ACK was lost as well.
	if [ "$rep_on" -lt $((probes_on / 4)) ] || [ "$rep_on" -gt "$probes_on" ]; then
		echo "the probes' repairs should have been charged to the paths"
		rc=1
	fi
	return "$rc"
}

# name, the counter the impairment must raise, netem arguments. Jitter
# reorders too: each packet is delayed on its own.
NETEM_CASES=(
	"loss-1	OutRetrans	loss 1%"
	"loss-5	OutRetrans	loss 5%"
	"loss-20	OutRetrans	loss 20%"
	"reorder	InOutOfOrder	delay 10ms reorder 25% 50%"
	"duplicate	DropDup	duplicate 5%"
	"jitter	InOutOfOrder	delay 10ms 5ms"
	"combined	OutRetrans	loss 5% duplicate 5% delay 10ms 5ms reorder 25%"
)
SIZES=("1 1000" "1451 1000" "1452 1000" "1453 1000" "9000 300" "1048576 3" "4194304 1")

if [ "$(id -u)" -ne 0 ]; then
	echo "transfer.sh needs root"
	exit "$KSFT_SKIP"
fi
mrc_loaded || { echo "mrc.ko is not loaded"; exit "$KSFT_SKIP"; }
command -v tc > /dev/null || { echo "tc is not installed"; exit "$KSFT_SKIP"; }
[ -x "$MRCPERF" ] || { echo "$MRCPERF is missing: run make tools"; exit "$KSFT_FAIL"; }

ktap_begin $((${#SIZES[@]} + 7 + 2 * ${#NETEM_CASES[@]}))
echo "# seed $SEED (MRC_SEED=$SEED repeats it), namespaces $NS_A and $NS_B"
if ! setup; then
	echo "# setup of the namespaces failed"
	exit "$KSFT_FAIL"
fi

for s in "${SIZES[@]}"; do
	read -r size count <<< "$s"
	run_test "$size-byte messages x $count" test_message_size "$size" "$count"
done
run_test "1000-byte messages x 10000, in order" test_10000_in_order
for c in "${NETEM_CASES[@]}"; do
	IFS=$'\t' read -r name counter args <<< "$c"
	# shellcheck disable=SC2086 # netem arguments are words
	run_test "netem $args: $IMPAIRED_SIZE-byte messages x $IMPAIRED_COUNT" \
		test_netem "$name" "$counter" $args
	run_test "netem $args: $counter increased" test_counter "$name" "$counter"
done
run_test "reverse (-R) under netem loss 5%: 4 connections, the server sends 9000-byte messages x 100 each" \
	test_reverse
run_test "interval reports (-i) add up to the 36 MB sent" test_intervals
run_test "1000 connections, 1000-byte messages x 5 each" test_1000_connections
run_test "flowcells: GSO batches by default, none with spray_burst 1" test_batches
run_test "batches beyond one skb: on a frag_list, or ended for a device that has none" \
	test_batch_chains
run_test "a lost tail: probed, not left to the RTO" test_tail_probe
ktap_end
