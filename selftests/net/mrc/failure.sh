#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The failure matrix: a 2-host, 4-plane SRv6 fabric (fabric.sh), one path
# per plane each way, every link shaped to LINK_RATE so that a transfer of
# 26 MB (mrcperf --verify: every message once, in order, intact) lasts
# long enough to fail a path in its middle. For each failure:
#  - the transfer completes with every byte checked;
#  - the failed path is assumed-bad while broken and good again once
#    healed (cases 1-5), as `mrc -j path show` reports;
#  - `mrc monitor`, running alongside, printed those state changes;
# and the guest log is checked by the harness. Nothing is timed: waits
# have generous, KSFT_MACHINE_SLOW-aware limits.
#
#  1. a spine link down on the sender's side;   5. a link flapping 20 times;
#  2. the same on the receiver's side;           6. 3% loss on one path;
#  3. a silent one-way blackhole (netem 100%);   7. every path down for 2 s;
#  4. a spine "rebooted": its links deleted,    8. a path deleted, another
#     then created anew, routes re-added;           denied, mid-transfer.
#
# Then: the min-active floor (9); every path down past the outage timeout,
# ETIMEDOUT and probes within probe_rate (10); a path with no route from
# the sender, whose packets never leave: NoRouteLost retires it (11); on
# one path, drops by the sender's own full queue, lost at once and no
# path retired (12); the only path's route flapping, each time retiring
# it, the connection going on as soon as probes restore it, not at the
# RTO (13). Then the failure detector (Documentation/networking/mrc.rst,
# Path failures): a jittery plane retires nothing (14), congestion drops
# cut the window and retire nothing (15), a blackhole retires its path
# alone after fail_losses losses, with no RTO (16), and the peer's ACKs
# held up on every plane at once are a delay of everyone's: path
# timeouts are held for it, and no path is retired (17); and a blackhole
# under ping-pong, where the connection idles between messages, retires
# its path all the same (18). Last, a device of the sender that takes
# nothing for one path (an egress filter that drops it, as a hung NIC
# would): every transmission on that path comes back NET_XMIT_DROP while
# the others leave, and the path alone is retired for it
# (RetireLocalDrop), with no RTO (19); while four paths, each behind its
# own short queue at the sender that overflows now and then, keep all
# four (20).

# Test functions run through run_test, which shellcheck cannot follow;
# awk programs are in single quotes on purpose.
# shellcheck disable=SC2317,SC2016
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")"/lib.sh
# shellcheck source-path=SCRIPTDIR source=fabric.sh
source "$(dirname "$0")"/fabric.sh

MRCPERF=$MRC_TOP/build/tools/mrcperf
MRC=$MRC_TOP/build/tools/mrc
SEED=${MRC_SEED:-$RANDOM}
LINK_RATE=${LINK_RATE:-20mbit}
# 64 KiB messages: 26 MB; 6.5 MB on a debug kernel (slow_count), which
# moves it ten times slower: still far longer than a failure takes.
COUNT=$(slow_count 400)
K=4
H2_ADDR=
# The transfer's two ends run on the first CPU, and with them the work
# their packets cause (veth delivers on the sending CPU; the shaping
# qdiscs' timers and the module's are armed there): a vCPU of the guest
# that the host does not run for a while then holds up the whole
# connection at once, which the failure detector tells from a silent
# path, rather than the packets of one path, which look like one.
PIN=()
if [ "$(nproc)" -gt 1 ] && command -v taskset > /dev/null; then
	PIN=(taskset -c 0)
fi

tmp=$(mktemp -d)
cleanup() {
	[ -n "${MON_PID:-}" ] && kill "$MON_PID" 2>/dev/null
	fab_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit "$KSFT_FAIL"' INT TERM

port=6500
gone() {
	! kill -0 "$1" 2>/dev/null
}

# path_state ID: the state of host 1's path ID to host 2.
path_state() {
	fab_path_state 1 2 "$1"
}

state_is() {
	[ "$(path_state "$1")" = "$2" ]
}

# mib NAME: host 1's counter NAME (/proc/net/mrc_stat).
mib() {
	mrc_mib "$(fab_ns_host 1)" "$1"
}

mib_above() {
	[ "$(mib "$1")" -gt "$2" ]
}

# reset_paths: one good path per plane both ways, the links healthy.
reset_paths() {
	local h k cmds

	fab_reset_links "$LINK_RATE" || return 1
	for h in 1 2; do
		cmds="path flush"$'\n'
		for k in $(seq 1 "$K"); do
			cmds+="path add $(fab_host_addr $((3 - h)))/128 segs $(fab_sid "$k") id $k"$'\n'
		done
		"$MRC" -n "$(fab_ns_host "$h")" -b - <<< "$cmds" || return 1
	done
}

# start [CLIENT-ARGS...]: a monitor and a 26 MB content-checked transfer
# from host 1 to host 2, in the background; returns once data flows.
start() {
	# Each case runs in a subshell (run_test): the next port is kept in a
	# file, so that no case binds a port a connection of an earlier one
	# (closed towards a peer it cannot reach) may still hold.
	port=$(($(cat "$tmp/port" 2>/dev/null || echo "$port") + 1))
	echo "$port" > "$tmp/port"
	rm -f "$tmp/ready"
	fab_monitor 1 "$tmp/monitor"
	MON_PID=$FAB_MON_PID
	fab_exec_host 2 "${PIN[@]}" "$MRCPERF" -s -1 -p "$port" \
		--timeout "$(slow_limit 120)" --ready "$tmp/ready" > "$tmp/server.log" 2>&1 &
	SERVER_PID=$!
	wait_ready "$SERVER_PID" "$tmp/ready" ||
		{ sed 's/^/server: /' "$tmp/server.log"; return 1; }
	fab_exec_host 1 "${PIN[@]}" "$MRCPERF" -c "$H2_ADDR" -p "$port" -l 64K \
		-n "$COUNT" --verify --seed "$SEED" --timeout "$(slow_limit 120)" "$@" \
		> "$tmp/client.log" 2>&1 &
	CLIENT_PID=$!
	# Data is flowing once the connection has acknowledged bytes.
	wait_for 60 flowing
}

# flowing: a connection of host 1 has 2 MB acknowledged. No python here:
# its first start, from a cold cache, can take seconds under TCG, and the
# failure would come after a 26 MB transfer had ended.
flowing() {
	"$MRC" -n "$(fab_ns_host 1)" -j conn show 2>/dev/null |
		grep -o '"bytes_acked":[0-9]*' | awk -F: '$2 > 2000000 { ok = 1 } END { exit !ok }'
}

# finish: both ends succeeded; the monitor is stopped.
finish() {
	local crc src

	wait_for 300 gone "$CLIENT_PID"
	wait "$CLIENT_PID"
	crc=$?
	wait_for 60 gone "$SERVER_PID" || kill "$SERVER_PID"
	wait "$SERVER_PID"
	src=$?
	if [ "$crc" -ne 0 ] || [ "$src" -ne 0 ]; then
		echo "client exit $crc, server exit $src"
		grep -Ev '^\[ *[0-9]+\] +[0-9]' "$tmp/client.log" | sed 's/^/client: /'
		grep -Ev '^\[ *[0-9]+\] +[0-9]' "$tmp/server.log" | sed 's/^/server: /'
		return 1
	fi
	grep -E '^\[SUM\]' "$tmp/client.log"
}

stop_monitor() {
	kill "$MON_PID" 2>/dev/null
	wait "$MON_PID" 2>/dev/null
	MON_PID=
}

# seen_event ID FROM TO REASON: the monitor printed that change of path ID.
seen_event() {
	grep -aq "id $1 $2 -> $3 ($4)" "$tmp/monitor"
}

# check_cycle ID: path ID went assumed-bad for a loss and came back good by
# probes, in the monitor's output, and is good now.
check_cycle() {
	wait_for 60 state_is "$1" good || return 1
	stop_monitor
	grep -a "id $1 " "$tmp/monitor" | head -n 4 | sed 's/^/monitor: /'
	seen_event "$1" good assumed-bad loss ||
		{ echo "no loss event for path $1"; return 1; }
	seen_event "$1" assumed-bad good probe ||
		{ echo "no probe event for path $1"; return 1; }
}

# fail_heal BREAK HEAL ID: break path ID mid-transfer, see it assumed-bad,
# heal it, and check the transfer and the state cycle.
fail_heal() {
	local brk=$1 heal=$2 id=$3 rc=0 c

	reset_paths || return 1
	# shellcheck disable=SC2086 # a list of names
	c=$(counters $DETECTOR)
	start || { echo "the transfer did not start"; return 1; }
	$brk
	kill -0 "$CLIENT_PID" 2>/dev/null ||
		{ echo "the transfer ended before the failure"; rc=1; }
	wait_for 60 state_is "$id" assumed-bad || rc=1
	echo "path $id during the failure: $(path_state "$id")"
	$heal
	finish || rc=1
	show_deltas "$c"
	[ "$rc" -eq 0 ] || "$MRC" -n "$(fab_ns_host 1)" -s path show | sed 's/^/paths: /'
	check_cycle "$id" || rc=1
	stop_monitor
	return "$rc"
}

case1_break() { fab_link_state 1 2 down; }
case1_heal() { fab_link_state 1 2 up > /dev/null; fab_link_shape 1 2 both "$LINK_RATE"; }
case2_break() { fab_link_state 2 2 down; }
case2_heal() { fab_link_state 2 2 up > /dev/null; fab_link_shape 2 2 both "$LINK_RATE"; }
case3_break() { fab_link_qdisc 1 3 up netem loss 100%; }
case3_heal() { fab_link_shape 1 3 up "$LINK_RATE"; }

# A spine reboot: spine 4 loses every link (the veth pairs are deleted,
# and with them the hosts' routes over them) and its SID device with the
# End route on it; then all of it is created anew, as a rebooted switch
# comes back with its static configuration.
case4_break() {
	fab_link_state 1 4 del
	fab_link_state 2 4 del
	fab_exec_spine 4 ip link del sid0
	return 0
}
case4_heal() {
	local h

	fab_exec_spine 4 ip link add sid0 type dummy &&
		fab_exec_spine 4 ip link set sid0 up &&
		fab_exec_spine 4 ip -6 route add "$(fab_sid 4)"/120 encap seg6local \
			action End dev sid0 || return 1
	for h in 1 2; do
		fab_link_state "$h" 4 add || return 1
		fab_link_shape "$h" 4 both "$LINK_RATE" || return 1
	done
}

heal_plane() {
	fab_link_state 1 "$1" up > /dev/null
	fab_link_shape 1 "$1" both "$LINK_RATE"
}

test_sender_link() { fail_heal case1_break case1_heal 2; }
test_receiver_link() { fail_heal case2_break case2_heal 2; }
test_blackhole() { fail_heal case3_break case3_heal 3; }
test_spine_reboot() { fail_heal case4_break case4_heal 4; }
# Flapping: the path is retired and brought back as the link comes and
# goes; the transfer may end before the 20 flaps do.
test_flap() {
	local rc=0 _

	reset_paths || return 1
	start || { echo "the transfer did not start"; return 1; }
	# The links' qdiscs outlive down and up: no need to shape anew.
	for _ in $(seq 20); do
		fab_link_state 1 1 down
		sleep 0.2
		fab_link_state 1 1 up > /dev/null
		sleep 0.2
	done
	finish || rc=1
	check_cycle 1 || rc=1
	echo "path 1 changed state $(grep -ac "id 1 " "$tmp/monitor") times"
	stop_monitor
	return "$rc"
}

# path_stat_of ID FIELD: the per-path counter FIELD of path ID in the
# output of mrc -s path show on stdin.
path_stat_of() {
	awk -v id="$1" -v name="$2" '
		$1 == "id" { cur = $2; next }
		cur == id { for (i = 1; i < NF; i++) if ($i == name) print $(i + 1); cur = "" }'
}

# path_stat ID FIELD: host 1's per-path counter FIELD of path ID.
path_stat() {
	"$MRC" -n "$(fab_ns_host 1)" -s path show "$H2_ADDR"/128 | path_stat_of "$1" "$2"
}

# 3% random loss on one path: the path keeps delivering what it does not
# lose, so each loss is found by per-path RACK and handled as congestion
# (window cut, retransmission, the path's credits taken); the path is
# retired only if fail_losses of its packets in a row time out, which a
# 3% loss makes rare. Its losses are counted, and it carries less than a
# clean path.
test_gray() {
	local rc=0 lost sent2 sent1

	reset_paths || return 1
	fab_link_qdisc 1 2 up netem loss 3% || return 1
	start || { echo "the transfer did not start"; return 1; }
	finish || rc=1
	stop_monitor
	fab_link_shape 1 2 up "$LINK_RATE"
	lost=$(path_stat 2 losses)
	sent2=$(path_stat 2 sent)
	sent1=$(path_stat 1 sent)
	echo "gray path: $lost lost of $sent2 sent; clean path 1: $sent1 sent;" \
		"RackLost $(mib RackLost), PathTimeLost $(mib PathTimeLost)"
	[ "${lost:-0}" -gt 0 ] || { echo "no loss was seen on the gray path"; rc=1; }
	[ "${sent2:-0}" -lt "${sent1:-0}" ] ||
		{ echo "the gray path carried as much as a clean one"; rc=1; }
	return "$rc"
}

# counters NAME...: "NAME=VALUE ..." of host 1's counters, for delta,
# from one read of the MIB: a read per counter, each an ip netns exec,
# takes seconds under emulation, as long as a whole transfer.
counters() {
	mrc_mib_read "$(fab_ns_host 1)" "$@"
}

# delta BEFORE NAME: how much NAME grew since counters printed BEFORE.
delta() {
	local v=" $1"

	v=${v#* "$2"=}
	v=${v%% *}
	echo $(($(mib "$2") - v))
}

# DETECTOR: the counters of the failure detector, which each case below
# prints the growth of, to show how it judged the losses.
DETECTOR="RackLost PathTimeLost PathLateKept NoRouteLost RtoFired PathsRetired
RetireUndone RetireTrimmed RetireAtFloor PathMoved SpuriousRetrans OutRetrans
OutData CcLossDecrease InTrimmed RtoDeferred RtxTimerLate PathTimeHeld"

# show_deltas BEFORE: "NAME +N" for each counter that BEFORE holds, from
# one read of the MIB.
show_deltas() {
	mrc_mib_deltas "$(fab_ns_host 1)" "$1"
}

# counted_transfer: start and finish a transfer, with host 1's detector
# counters read once before it (BEFORE) and once after (AFTER), and their
# growth printed; grown NAME then gives one counter's growth.
counted_transfer() {
	local rc=0

	# shellcheck disable=SC2086 # a list of names
	BEFORE=$(counters $DETECTOR)
	start || { echo "the transfer did not start"; return 1; }
	finish || rc=1
	stop_monitor
	show_deltas "$BEFORE"
	# shellcheck disable=SC2086 # a list of names
	AFTER=$(counters $DETECTOR)
	return "$rc"
}

grown() {
	local a b

	a=$(tr ' ' '\n' <<< "$AFTER" | sed -n "s/^$1=//p")
	b=$(tr ' ' '\n' <<< "$BEFORE" | sed -n "s/^$1=//p")
	echo $((a - b))
}

# A plane with jitter (netem delay 2 ms +- 1 ms from host 1, which also
# reorders its packets) and no loss, beside clean ones: reordering is no
# failure. No path is retired, and the retransmissions that reordering
# causes before the connection learns it stay under 1% of its DATA.
test_jitter() {
	local rc=0 r x d

	reset_paths || return 1
	fab_link_qdisc 1 2 up netem delay 2ms 1ms || return 1
	with_rto_min 200 counted_transfer || rc=1
	r=$(grown PathsRetired)
	x=$(grown OutRetrans)
	d=$(grown OutData)
	[ "$r" -eq 0 ] || { echo "a path was retired"; rc=1; }
	[ $((100 * x)) -lt "$d" ] || { echo "over 1% of the DATA was retransmitted"; rc=1; }
	return "$rc"
}

# Congestion drops on one plane: spine 2's port to host 2 at half the
# link rate with a 1 ms queue, which drops what it cannot hold. The
# losses cut the window (CcLossDecrease) and are retransmitted, and the
# path is never retired: it delivers all along. A kernel too slow to
# send plane 2 more than that rate (the debug kernel) never makes the
# queue drop: then there is nothing to check, and the case skips.
test_congestion() {
	local rc=0 l x w r d0 d

	reset_paths || return 1
	FAB_SHAPE_LATENCY=1ms fab_link_shape 2 2 down 10mbit || return 1
	d0=$(fab_link_drops 2 2 down)
	counted_transfer || rc=1
	d=$(($(fab_link_drops 2 2 down) - d0))
	r=$(grown PathsRetired)
	l=$(($(grown RackLost) + $(grown PathTimeLost)))
	x=$(grown OutRetrans)
	w=$(grown CcLossDecrease)
	echo "spine 2's queue dropped $d"
	[ "$r" -eq 0 ] || { echo "a path was retired"; rc=1; }
	seen_event 2 good assumed-bad loss && { echo "path 2 was retired"; rc=1; }
	if [ "$d" -eq 0 ]; then
		echo "the queue never overflowed: nothing to check"
		[ "$rc" -eq 0 ] && rc=$KSFT_SKIP
		return "$rc"
	fi
	[ "$l" -gt 0 ] || { echo "the queue dropped $d, and none was declared lost"; rc=1; }
	[ "$x" -gt 0 ] || { echo "nothing was retransmitted"; rc=1; }
	[ "$w" -gt 0 ] || { echo "no window cut for loss"; rc=1; }
	return "$rc"
}

# A silent blackhole on one plane mid-transfer: its path is retired once
# fail_losses of its packets time out, no sooner (the path's late_kept
# counter grows by at most 2 x (fail_losses - 1) from the break: the
# blackhole's run, and at most one of the healthy path's before), no
# other path is retired, and no RTO fires: the paths left carry the
# retransmissions at once.
test_blackhole_detect() {
	with_rto_min 200 blackhole_detect
}

# path3_alone BEFORE: after stop_monitor, show the detector's counters
# since BEFORE and the retirements seen; fail unless path 3 was retired
# for a loss and no other path was.
path3_alone() {
	show_deltas "$1"
	grep -a "assumed-bad" "$tmp/monitor" | sed 's/^/monitor: /'
	seen_event 3 good assumed-bad loss || { echo "path 3 was not retired"; return 1; }
	! seen_event "[124]" good assumed-bad loss || { echo "another path was retired"; return 1; }
}

blackhole_detect() {
	local rc=0 k k0 c kept

	k=$(cat /sys/module/mrc/parameters/fail_losses) || return 1
	reset_paths || return 1
	# shellcheck disable=SC2086 # a list of names
	c=$(counters $DETECTOR)
	start || { echo "the transfer did not start"; return 1; }
	# A timeout before the break, that a delivery ended, is not its:
	# the count is read and the plane broken by one process in host 1,
	# so that as little time as the guest allows passes in between.
	k0=$(fab_exec_host 1 sh -c '"$1" -s path show "$2"/128 &&
		tc qdisc replace dev p3 root netem loss 100%' \
		count-and-break "$MRC" "$H2_ADDR" | path_stat_of 3 late_kept)
	[ -n "$k0" ] || { echo "path 3's counters could not be read"; return 1; }
	kill -0 "$CLIENT_PID" 2>/dev/null ||
		{ echo "the transfer ended before the failure"; rc=1; }
	wait_for 60 state_is 3 assumed-bad || rc=1
	kept=$(($(path_stat 3 late_kept) - k0))
	case3_heal
	finish || rc=1
	stop_monitor
	echo "fail_losses $k: path 3 kept by $kept timeouts before it was retired"
	path3_alone "$c" || rc=1
	# Between the count and the break, one run of a healthy path (a
	# delay spike that a delivery ended) may still come: one such run,
	# and the blackhole's own.
	[ "$kept" -le $((2 * (k - 1))) ] ||
		{ echo "losses kept the path in more than two runs"; rc=1; }
	[ "$(delta "$c" RtoFired)" -eq 0 ] || { echo "an RTO fired"; rc=1; }
	return "$rc"
}

# A blackhole under ping-pong: each message goes out once the last one's
# echo is in, so the connection is idle between messages, and the failed
# path, its credits gone, gets a packet of a message now and then. Its
# losses must retire it all the same, and no other path.
test_blackhole_pingpong() {
	with_rto_min 200 blackhole_pingpong
}

local_fail() {
	local rc=0 c h1

	h1=$(fab_ns_host 1)
	reset_paths || return 1
	# shellcheck disable=SC2086 # a list of names
	c=$(counters $DETECTOR QdiscDropLost RetireLocalDrop)
	# Twice the data: the path is judged failed once its drops have
	# lasted its timeout (mrc_local_failed()), while each drop cuts its
	# window, so it sends less and less; 26 MB ended first once.
	start -n $((COUNT * 2)) || { echo "the transfer did not start"; return 1; }
	tc -n "$h1" qdisc add dev p3 clsact &&
		tc -n "$h1" filter add dev p3 egress pref 1 matchall action drop ||
		{ echo "the drop filter could not be set"; rc=1; }
	kill -0 "$CLIENT_PID" 2>/dev/null ||
		{ echo "the transfer ended before the failure"; rc=1; }
	wait_for 60 state_is 3 assumed-bad || rc=1
	tc -n "$h1" qdisc del dev p3 clsact
	finish || rc=1
	stop_monitor
	path3_alone "$c" || rc=1
	[ "$(delta "$c" RetireLocalDrop)" -gt 0 ] ||
		{ echo "no path was retired for local drops"; rc=1; }
	[ "$(delta "$c" RtoFired)" -eq 0 ] || { echo "an RTO fired"; rc=1; }
	return "$rc"
}

test_local_fail() {
	with_rto_min 200 local_fail
}

# Each of host 1's four uplinks shaped with a queue of 2 ms, as case 12's
# one: every path's queue drops some of its transmissions, and takes the
# rest. That is congestion of each path, not a device that takes nothing:
# no path may be retired, for local drops or any other loss.
test_local_drops_kept() {
	reset_paths || return 1
	# shellcheck disable=SC2046 # one word a plane
	local_queues $(seq 1 "$K")
}

blackhole_pingpong() {
	local rc=0 c

	reset_paths || return 1
	# shellcheck disable=SC2086 # a list of names
	c=$(counters $DETECTOR)
	start --pingpong || { echo "the transfer did not start"; return 1; }
	fab_exec_host 1 tc qdisc replace dev p3 root netem loss 100%
	kill -0 "$CLIENT_PID" 2>/dev/null ||
		{ echo "the transfer ended before the failure"; rc=1; }
	wait_for 60 state_is 3 assumed-bad ||
		{ echo "path 3 was not retired while the transfer ran"; rc=1; }
	case3_heal
	finish || rc=1
	stop_monitor
	path3_alone "$c" || rc=1
	return "$rc"
}

# with_rto_bounds MIN MAX CMD...: run CMD with the module's rto_min_ms and
# rto_max_ms set to MIN and MAX ms, restored afterwards; CMD's status.
with_rto_bounds() {
	local d=/sys/module/mrc/parameters rc=0 lo hi

	lo=$(cat "$d/rto_min_ms") && hi=$(cat "$d/rto_max_ms") || return 1
	echo "$2" > "$d/rto_max_ms"
	echo "$1" > "$d/rto_min_ms"
	shift 2
	"$@" || rc=$?
	echo "$lo" > "$d/rto_min_ms"
	echo "$hi" > "$d/rto_max_ms"
	return "$rc"
}

# ACK_PULSE_MS: how long each pulse of test_ack_delay holds up the peer's
# ACKs: several times any path's timeout in these fabrics (tens of ms),
# and far inside the RTO that the case sets (ACK_PULSE_RTO_MS).
ACK_PULSE_MS=300
ACK_PULSE_RTO_MS=3000

# ack_pulse DELAY: set the netem delay of host 2's every uplink to DELAY
# (a tc time), from one tc process, so that every plane's ACKs change at
# once. tc qdisc change keeps what the netem holds: no ACK is dropped.
ack_pulse() {
	local k

	for k in $(seq 1 "$K"); do
		echo "qdisc change dev p$k root handle 1: netem delay $1 limit 100000"
	done | tc -n "$(fab_ns_host 2)" -batch -
}

# The peer's ACKs held up on every plane at once, 3 times, for
# ACK_PULSE_MS each (a netem delay on each of host 2's uplinks stepped up
# and back: as when the receiving host does not run for a while, or
# every queue towards the sender grows at once), while plane 1 is 20 ms
# longer than the others. No ACK is lost and every packet arrives: no
# loss is real. Packets of plane 1 sent before the latest one delivered
# reach their path's timeout during the silence; those that reach it
# once everything sent since on the other planes is as late on its own
# are held (PathTimeHeld), the delay being everyone's, rather than
# declared lost (PathTimeLost), whose run would retire the plane; those
# that reach it sooner wait for the others' packets to come due, since
# no ACK has come (Documentation/networking/mrc.rst, Loss detection);
# and the first ACKs after a pulse, late by the pulse for all they
# acknowledge, lengthen every path's timeout by as much. No path is
# retired, and no RTO fires (it is set past the silence). A kernel so slow that no packet
# reaches its path's timeout in a pulse (neither counter grows) has
# nothing to check, and the case skips. Without the hold, 5 runs of 5
# failed here: 82 to 139 packets declared lost, none held, and one run
# retired a path.
test_ack_delay() {
	with_rto_bounds "$ACK_PULSE_RTO_MS" "$ACK_PULSE_RTO_MS" ack_delay
}

ack_delay() {
	local rc=0 c n=0 k held lost

	reset_paths || return 1
	fab_link_shape 1 1 up "$LINK_RATE" 20ms || return 1
	for k in $(seq 1 "$K"); do
		fab_link_shape 2 "$k" up "$LINK_RATE" 0ms || return 1
	done
	# shellcheck disable=SC2086 # a list of names
	c=$(counters $DETECTOR)
	start || { echo "the transfer did not start"; return 1; }
	while [ "$n" -lt 3 ] && kill -0 "$CLIENT_PID" 2>/dev/null; do
		ack_pulse "${ACK_PULSE_MS}ms" || rc=1
		sleep "$(printf '%d.%03d' $((ACK_PULSE_MS / 1000)) $((ACK_PULSE_MS % 1000)))"
		ack_pulse 0ms || rc=1
		n=$((n + 1))
		sleep 1
	done
	finish || rc=1
	stop_monitor
	echo "$n pulses of ${ACK_PULSE_MS} ms"
	show_deltas "$c"
	held=$(delta "$c" PathTimeHeld)
	lost=$(delta "$c" PathTimeLost)
	[ "$n" -gt 0 ] || { echo "the transfer ended before a pulse"; rc=1; }
	[ "$(delta "$c" PathsRetired)" -eq 0 ] || { echo "a path was retired"; rc=1; }
	[ "$(delta "$c" RtoFired)" -eq 0 ] || { echo "an RTO fired"; rc=1; }
	if [ "$held" -eq 0 ] && [ "$lost" -eq 0 ]; then
		echo "no packet reached its path's timeout: nothing to check"
		[ "$rc" -eq 0 ] && rc=$KSFT_SKIP
	elif [ "$held" -eq 0 ]; then
		echo "path timeouts declared $lost packets lost, and none was held"
		rc=1
	fi
	return "$rc"
}

test_all_down() {
	local k rc=0 h

	reset_paths || return 1
	# The outage is meant to last 2 s, well inside the 10 s outage
	# timeout; on a slow machine taking the links down and up again
	# takes longer, so the timeout grows with the test's time limits.
	for h in 1 2; do
		fab_exec_host "$h" sysctl -q -w \
			net.mrc.outage_timeout_ms=$(($(slow_limit 10) * 1000)) || return 1
	done
	start || { echo "the transfer did not start"; return 1; }
	for k in $(seq 1 "$K"); do
		fab_link_state 1 "$k" down
	done
	sleep 2
	for k in $(seq 1 "$K"); do
		heal_plane "$k"
	done
	finish || rc=1
	for k in $(seq 1 "$K"); do
		wait_for 60 state_is "$k" good || rc=1
	done
	stop_monitor
	grep -ac "(loss)" "$tmp/monitor" | sed 's/^/loss events: /'
	# Each path the outage retired was seen coming back by probes.
	for k in $(seq 1 "$K"); do
		seen_event "$k" good assumed-bad loss || continue
		seen_event "$k" assumed-bad good probe ||
			{ echo "path $k: retired, no probe event back"; rc=1; }
	done
	seen_event "[0-9]*" good assumed-bad loss ||
		{ echo "the monitor saw no path retired"; rc=1; }
	echo "outages: $(mib Outages)"
	return "$rc"
}

# min_good_seen: replay the monitor's events for host 1's 4 paths, all good
# at the start, and print the fewest good paths there ever were.
min_good_seen() {
	awk -v k="$K" '
		BEGIN { good = k; low = k }
		/^path .* -> / {
			for (i = 1; i < NF; i++) if ($i == "->") break
			if ($(i - 1) == "good" && $(i + 1) != "good") good--
			if ($(i - 1) != "good" && $(i + 1) == "good") good++
			if (good < low) low = good
		}
		END { print low }' "$tmp/monitor"
}

# min-active 3 of 4, and planes 2 and 3 broken at once: one is retired,
# then the set is at its floor and the other's losses only reduce the
# window (RetireAtFloor); no fewer than 3 paths are ever good, and every
# message arrives.
test_min_active() {
	local rc=0 floor0 low c

	reset_paths || return 1
	"$MRC" -n "$(fab_ns_host 1)" pathset set "$H2_ADDR"/128 min-active 3 || return 1
	floor0=$(mib RetireAtFloor)
	# shellcheck disable=SC2086 # a list of names
	c=$(counters $DETECTOR TailProbes TailProbeRepairs)
	# Three times the usual transfer: the second broken path is due for
	# retirement only after fail_losses of its packets have been declared
	# lost and it has been silent for three of its timeouts, and the
	# transfer must still be running then, on two planes, however the
	# retirement of the first delayed it (once, the usual one ended first).
	start -n $((COUNT * 3)) || { echo "the transfer did not start"; return 1; }
	fab_link_qdisc 1 2 up netem loss 100%
	fab_link_qdisc 1 3 up netem loss 100%
	wait_for 60 mib_above RetireAtFloor "$floor0" ||
		{ echo "RetireAtFloor did not rise"; rc=1; }
	echo "paths 2 and 3 at the floor: $(path_state 2), $(path_state 3)"
	kill -0 "$CLIENT_PID" 2>/dev/null || echo "the transfer ended during the failure"
	show_deltas "$c"
	"$MRC" -n "$(fab_ns_host 1)" -s path show | sed 's/^/paths: /'
	fab_link_shape 1 2 up "$LINK_RATE"
	fab_link_shape 1 3 up "$LINK_RATE"
	finish || rc=1
	stop_monitor
	low=$(min_good_seen)
	echo "RetireAtFloor $floor0 -> $(mib RetireAtFloor), fewest good paths $low"
	[ "$low" -ge 3 ] || { echo "only $low paths were good: below min-active"; rc=1; }
	seen_event "[23]" good assumed-bad loss ||
		{ echo "neither broken path was retired"; rc=1; }
	return "$rc"
}

# Every path blackholed for longer than the connection's outage timeout
# (MRC_OUTAGE_TIMEOUT, from mrcperf --outage): the sender fails with
# ETIMEDOUT. Meanwhile the namespace sends no more probes than probe_rate
# (lowered to 5 a second for this) allows: at most rate * (seconds + 2),
# a refill a second and one left over. Healed, the paths come back.
test_outage_timeout() {
	local rc=0 k crc rate0 to0 out0 probes0 probes t0 t1 bound
	local param=/sys/module/mrc/parameters/probe_rate rate=5

	reset_paths || return 1
	rate0=$(cat "$param")
	to0=$(mib ConnTimeout)
	out0=$(mib Outages)
	# A transfer too long to end before the blackholes are in place, however
	# slow the kernel (on a debug kernel, COUNT messages once ended first).
	start --outage 2000 -n 1000000 ||
		{ echo "the transfer did not start"; return 1; }
	echo "$rate" > "$param"
	t0=$(date +%s%N)
	probes0=$(mib OutProbes)
	# Blackholes, not links down: probes must leave to be counted.
	for k in $(seq 1 "$K"); do
		fab_link_qdisc 1 "$k" up netem loss 100%
	done
	wait_for 120 gone "$CLIENT_PID"
	wait "$CLIENT_PID"
	crc=$?
	probes=$(mib OutProbes)
	t1=$(date +%s%N)
	echo "$rate0" > "$param"
	for k in $(seq 1 "$K"); do
		fab_link_shape 1 "$k" up "$LINK_RATE"
	done
	kill "$SERVER_PID" 2>/dev/null
	wait "$SERVER_PID" 2>/dev/null
	grep -Ev '^\[ *[0-9]+\] +[0-9]' "$tmp/client.log" | sed 's/^/client: /'
	[ "$crc" -ne 0 ] || { echo "the client did not fail"; rc=1; }
	grep -q "Connection timed out" "$tmp/client.log" ||
		{ echo "the client did not fail with ETIMEDOUT"; rc=1; }
	echo "ConnTimeout $to0 -> $(mib ConnTimeout), Outages $out0 -> $(mib Outages)"
	mib_above ConnTimeout "$to0" || { echo "ConnTimeout did not rise"; rc=1; }
	mib_above Outages "$out0" || { echo "Outages did not rise"; rc=1; }
	bound=$((rate * ((t1 - t0) / 1000000000 + 3)))
	echo "probes sent in $(((t1 - t0) / 1000000)) ms: $((probes - probes0)), at most $bound"
	[ $((probes - probes0)) -le "$bound" ] ||
		{ echo "more probes than probe_rate allows"; rc=1; }
	# Unlimited, 4 paths probed every 10 to 100 ms would send more: the
	# limit was what held them back.
	[ $((probes - probes0)) -ge "$rate" ] ||
		{ echo "too few probes to tell whether the limit holds"; rc=1; }
	for k in $(seq 1 "$K"); do
		wait_for 60 state_is "$k" good || { echo "path $k: $(path_state "$k")"; rc=1; }
	done
	stop_monitor
	return "$rc"
}

test_operator() {
	local rc=0 moved0 moved

	reset_paths || return 1
	moved0=$(mib PathMoved)
	start || { echo "the transfer did not start"; return 1; }
	"$MRC" -n "$(fab_ns_host 1)" path del "$H2_ADDR"/128 id 3 || rc=1
	"$MRC" -n "$(fab_ns_host 1)" path set "$H2_ADDR"/128 id 2 state denied || rc=1
	finish || rc=1
	stop_monitor
	# From good, or from assumed-bad if a loss came first.
	grep -aqE "id 2 [a-z-]+ -> denied \(operator\)" "$tmp/monitor" ||
		{ echo "no operator event for path 2"; rc=1; }
	moved=$(mib PathMoved)
	echo "PathMoved $moved0 -> $moved"
	return "$rc"
}

# A path whose first segment has no route here (host 1 routes only
# fd00:1-4::/32 and fd00:ff::/64): its packets never leave the host, so
# the next loss scan declares them lost (NoRouteLost) and retires the path;
# probes find no route either, and it stays assumed-bad.
test_no_route() {
	local rc=0 nr0 txnr0 nr

	reset_paths || return 1
	"$MRC" -n "$(fab_ns_host 1)" path add "$H2_ADDR"/128 segs fd00:99::e00 id 9 ||
		return 1
	nr0=$(mib NoRouteLost)
	txnr0=$(mib TxNoRoute)
	if ! start; then
		echo "the transfer did not start"
		sed 's/^/client: /' "$tmp/client.log"
		mrc_mib_nonzero "$(fab_ns_host 1)"
		"$MRC" -n "$(fab_ns_host 1)" -s path show
		return 1
	fi
	finish || rc=1
	stop_monitor
	nr=$(($(mib NoRouteLost) - nr0))
	echo "NoRouteLost +$nr, TxNoRoute +$(($(mib TxNoRoute) - txnr0)); path 9 $(path_state 9)"
	[ "$nr" -gt 0 ] || { echo "no packet was declared lost for want of a route"; rc=1; }
	state_is 9 assumed-bad || rc=1
	seen_event 9 good assumed-bad loss || { echo "no loss event for path 9"; rc=1; }
	return "$rc"
}

# with_rto_min MS CMD...: run CMD with the module's rto_min_ms set to MS,
# restored afterwards; CMD's status. The cases that assert that no RTO
# fires take 200 ms, TCP's own floor: the failure detector never waits
# for the RTO (the paths' timeouts do not depend on rto_min_ms, and a
# detector that missed a failure still ends in an RTO, a little later),
# but the 10 ms default is shorter than a vCPU of the emulated guest may
# be kept from running by a busy host, and that is a silent peer.
with_rto_min() {
	local p=/sys/module/mrc/parameters/rto_min_ms ms=$1 rc=0 old

	shift
	old=$(cat "$p") || return 1
	echo "$ms" > "$p"
	"$@" || rc=$?
	echo "$old" > "$p"
	return "$rc"
}

# transfer [CLIENT-ARGS...]: start and finish a transfer.
transfer() {
	if ! start "$@"; then
		echo "the transfer did not start"
		return 1
	fi
	finish
}

# transfer_rto_min MS [CLIENT-ARGS...]: a transfer with the module's
# rto_min_ms set to MS.
transfer_rto_min() {
	local ms=$1

	shift
	with_rto_min "$ms" transfer "$@"
}

# one_path: host 1 keeps only its path over plane 1 (after reset_paths).
one_path() {
	local k

	for k in $(seq 2 "$K"); do
		"$MRC" -n "$(fab_ns_host 1)" path del "$H2_ADDR"/128 id "$k" || return 1
	done
}

# Paths 1 and 2 both over plane 1 (through two of its SIDs), behind one
# queue of 2 ms at host 1's uplink, beside paths 3 and 4: the queue drops
# transmissions of both paths, in runs that may be long for either. The
# device still takes the other path's, so that is congestion of a queue
# the two share, not a device that takes nothing for one path: none may
# be retired, by mrc_local_failed() or any other rule.
test_local_queue_shared() {
	local h

	reset_paths || return 1
	for h in 1 2; do
		"$MRC" -n "$(fab_ns_host "$h")" -b - <<-EOF || return 1
			path del $(fab_host_addr $((3 - h)))/128 id 2
			path add $(fab_host_addr $((3 - h)))/128 segs $(fab_sid 1 1) id 2
		EOF
	done
	local_queues 1
}

# local_queues PLANE...: host 1's uplinks to those planes shaped with a
# queue of 2 ms, which overflows whenever the window outgrows it; a
# transfer, then: no path retired (for local drops or any loss), and the
# drops the queues made declared lost (QdiscDropLost). Skips when no
# queue overflowed.
local_queues() {
	local rc=0 c k d0=0 d=0

	for k in "$@"; do
		FAB_SHAPE_BURST=80kb FAB_SHAPE_LATENCY=2ms \
			fab_link_shape 1 "$k" up "$LINK_RATE" || return 1
		d0=$((d0 + $(fab_link_drops 1 "$k" up)))
	done
	# shellcheck disable=SC2086 # a list of names
	c=$(counters $DETECTOR QdiscDropLost RetireLocalDrop RetireLocalQueue)
	# Not shrunk on a slow kernel (slow_count): start() must see 2 MB
	# acknowledged while the transfer runs.
	transfer_rto_min 1000 -n 300 || rc=1
	stop_monitor
	for k in "$@"; do
		d=$((d + $(fab_link_drops 1 "$k" up)))
	done
	d=$((d - d0))
	show_deltas "$c"
	echo "the queues dropped +$d"
	grep -a "assumed-bad" "$tmp/monitor" | sed 's/^/monitor: /'
	[ "$(delta "$c" PathsRetired)" -eq 0 ] || { echo "a path was retired"; rc=1; }
	[ "$(delta "$c" RetireLocalDrop)" -eq 0 ] ||
		{ echo "a path was retired for local drops"; rc=1; }
	if [ "$d" -eq 0 ]; then
		echo "the host's queues never overflowed: nothing to check"
		[ "$rc" -eq 0 ] && rc=$KSFT_SKIP
	elif [ "$(delta "$c" QdiscDropLost)" -eq 0 ]; then
		echo "the host's queues dropped $d, and none was declared lost for it"
		rc=1
	fi
	return "$rc"
}

# The only path's link, from host 1, shaped with a queue of 2 ms: it
# overflows whenever the window outgrows it. Its burst (80 KB) exceeds
# a GSO batch (64 KB), so that the tbf takes or drops every batch whole
# and each drop is seen by the sender (NET_XMIT_DROP); no other queue on
# the path is shaped, so none drops. The packets dropped never left: they
# are lost at once (QdiscDropLost), and the path stays good. The queue
# adds up to 34 ms to a round trip of 1 ms: rto_min_ms is raised to 1 s
# so that a spurious RTO (which retires a path) cannot happen either.
# A kernel too slow to outgrow the queue (the debug kernel) never makes
# the tbf drop: then there is nothing to check, and the case skips.
test_local_drop() {
	reset_paths && one_path || return 1
	fab_link_clear 1 1 down && fab_link_clear 2 1 both || return 1
	local_queues 1
}

# The only path loses its route on host 1 (an unreachable route to its
# segment) and gets it back, 8 times while a transfer runs: each time, the
# first packet to find no route retires the path at the next tick
# (NoRouteLost; min-active 0), and every packet in flight waits with no
# path until probes restore it. The connection must go on then, not at
# its RTO (rto_min_ms is set to 5 s, and rto_max_ms, 1 s by default, caps
# it): an outage may leave a loss that only the RTO finds, but RtoFired
# must stay below a quarter of the retirements. Before the poll, each
# retirement cost one RTO. (A silent failure of a connection's only path
# is found by its RTO alone: no other path delivers to compare it with.)
flap_sole_path() {
	fab_exec_host 1 sh -c 'n=0
		while [ "$n" -lt 8 ] && kill -0 "$1" 2>/dev/null; do
			ip -6 route add unreachable "$2"/128
			sleep 0.3
			ip -6 route del unreachable "$2"/128
			sleep 0.5
			n=$((n + 1))
		done
		echo "$n flaps"' flap "$CLIENT_PID" "$(fab_sid 1)"
}

test_sole_path_back() {
	local p=/sys/module/mrc/parameters/rto_min_ms rc=0 old c r s t

	reset_paths && one_path || return 1
	old=$(cat "$p") || return 1
	# shellcheck disable=SC2086 # a list of names
	c=$(counters PathsRestored $DETECTOR)
	echo 5000 > "$p"
	if start -n 600; then
		flap_sole_path
		finish || rc=1
	else
		echo "the transfer did not start"
		rc=1
	fi
	echo "$old" > "$p"
	stop_monitor
	r=$(delta "$c" PathsRetired)
	s=$(delta "$c" PathsRestored)
	t=$(delta "$c" RtoFired)
	show_deltas "$c"
	[ "$r" -ge 8 ] || { echo "the path was retired fewer than 8 times"; rc=1; }
	[ "$s" -ge 8 ] || { echo "probes restored the path fewer than 8 times"; rc=1; }
	[ $((4 * t)) -lt "$r" ] ||
		{ echo "the connection waited for its RTO after a retirement"; rc=1; }
	return "$rc"
}

if [ "$(id -u)" -ne 0 ]; then
	echo "failure.sh needs root"
	exit "$KSFT_SKIP"
fi
mrc_loaded || { echo "mrc.ko is not loaded"; exit "$KSFT_SKIP"; }
if [ ! -x "$MRCPERF" ] || [ ! -x "$MRC" ]; then
	echo "mrcperf or mrc is missing: run make tools"
	exit "$KSFT_FAIL"
fi

ktap_begin 21
echo "# seed $SEED (MRC_SEED=$SEED repeats it)"
if ! fab_up 2 "$K"; then
	echo "# the fabric could not be built"
	exit "$KSFT_FAIL"
fi
H2_ADDR=$(fab_host_addr 2)
run_test "sender-side spine link down, then up" test_sender_link
run_test "receiver-side spine link down, then up" test_receiver_link
run_test "one-way blackhole, then healed" test_blackhole
run_test "a spine rebooted: links deleted and created anew, routes re-added" test_spine_reboot
run_test "a link flapping 20 times" test_flap
run_test "gray failure: 3% loss on one path, handled as congestion" test_gray
run_test "every path down for 2 s, then back" test_all_down
run_test "operator deletes one path and denies another" test_operator
run_test "min-active 3 of 4: two paths broken, one retired, the floor holds" test_min_active
run_test "every path down past MRC_OUTAGE_TIMEOUT: ETIMEDOUT, probes within probe_rate" test_outage_timeout
run_test "a path with no route: its packets lost at once, the path retired" test_no_route
run_test "one path, the sender's queue full: drops lost at once, the path kept" test_local_drop
run_test "the only path's route flaps: sending goes on once probes restore it" test_sole_path_back
run_test "a jittery, lossless plane: no path retired, under 1% retransmitted" test_jitter
run_test "congestion drops on one plane: window cuts, the path kept" test_congestion
run_test "a blackhole: its path alone retired after fail_losses losses, no RTO" test_blackhole_detect
run_test "the peer's ACKs held up on every plane: timeouts held, no path retired" test_ack_delay
run_test "a blackhole under ping-pong: its path retired all the same" test_blackhole_pingpong
run_test "the sender's device drops all of one path: that path alone retired" test_local_fail
run_test "four paths, each behind a short queue at the sender: drops, none retired" test_local_drops_kept
run_test "two paths behind one short queue at the sender: drops, none retired" test_local_queue_shared
ktap_end
