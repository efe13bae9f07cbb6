#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The tracepoints (mrc:*), read through ftrace: a content-checked transfer
# over a link that loses packets (netem) and then trims them (mrctrim
# behind a tbf) must leave, for each event, as many records as the
# counter that counts the same thing: mrc_retransmit and OutRetrans,
# mrc_rto and RtoFired, mrc_pkt_lost with reason rack and RackLost (and
# path-timeout and PathTimeLost), mrc_nack_send and OutNacks, mrc_nack_recv
# reason=trimmed and TrimRetrans (skipped when the sender, on a debug
# kernel or a loaded host, never filled the 50 Mbit/s queue, so that
# nothing was trimmed). An operator's path state change leaves one
# mrc_path_state record. And the module frees as a drop (skb:kfree_skb)
# only what a drop counter counts: over a clean link, where nothing is
# dropped, an acknowledged packet, a read message or a processed ACK is
# consumed (skb:consume_skb), so that drop monitors (dropwatch, perf's
# skb:kfree_skb) see the module's real drops and nothing else.

# Test functions run through run_test, which shellcheck cannot follow.
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")"/lib.sh

MRC=$MRC_TOP/build/tools/mrc
PERF=$MRC_TOP/build/tools/mrcperf
A=mrc-trace-a-$RANDOM
B=mrc-trace-b-$RANDOM
T=/sys/kernel/tracing
# tc's plugin for mrctrim, as built.
export TC_LIB_DIR=$MRC_TOP/build/tools
tmp=$(mktemp -d)
COUNTERS=(OutRetrans RtoFired RackLost PathTimeLost OutNacks TrimRetrans)

cleanup() {
	[ -d "$T/events/mrc" ] && echo 0 > "$T/events/mrc/enable"
	if [ -d "$T/events/skb/kfree_skb" ]; then
		echo 0 > "$T/events/skb/kfree_skb/enable"
		echo 0 > "$T/events/skb/kfree_skb/filter"
		# A histogram test_drops left (a case runs in a subshell).
		grep '^hist:' "$T/events/skb/kfree_skb/trigger" | sed 's/ \[active\]$//' |
			while read -r t; do
				echo "!$t" > "$T/events/skb/kfree_skb/trigger"
			done
	fi
	[ -n "${RECORD_CMD:-}" ] && echo "$RECORD_CMD" > "$T/options/record-cmd"
	ns_del "$A" "$B"
	rm -rf "$tmp"
}
trap cleanup EXIT

# trace_start: an empty buffer, large enough, recording mrc:* only.
trace_start() {
	echo 0 > "$T/tracing_on"
	echo 0 > "$T/events/enable"
	echo 16384 > "$T/buffer_size_kb"
	echo > "$T/trace"
	echo 1 > "$T/events/mrc/enable"
	echo 1 > "$T/tracing_on"
}

# trace_stop: stop, keep the records in $tmp/trace, and fail if any were
# lost to a full buffer.
trace_stop() {
	echo 0 > "$T/tracing_on"
	echo 0 > "$T/events/mrc/enable"
	cat "$T/trace" > "$tmp/trace"
	if grep -h '^overrun: [1-9]' "$T"/per_cpu/cpu*/stats; then
		echo "the trace buffer overflowed"
		return 1
	fi
}

# records EVENT [MATCH]: the records of EVENT (whose text has MATCH).
records() {
	grep -E " $1: " "$tmp/trace" | grep -c -- "${2:-}"
}

# sum NAME: the counter NAME's rise in both namespaces since $before_a/_b.
sum() {
	local da db

	da=$(mrc_mib_deltas "$A" "$before_a" | grep -oE "$1 \+[0-9]+" | cut -d+ -f2)
	db=$(mrc_mib_deltas "$B" "$before_b" | grep -oE "$1 \+[0-9]+" | cut -d+ -f2)
	echo $((da + db))
}

# same EVENT MATCH COUNTER: as many records as the counter rose.
same() {
	local n c

	n=$(records "$1" "$2")
	c=$(sum "$3")
	echo "$1 $2: $n records, $3 +$c"
	[ "$n" -eq "$c" ]
}

# transfer: 60 messages of 64 KB from A to B, every byte checked, and then
# every connection gone: a side that closed may still retransmit what the
# other has read (its ACK was lost), and that must be traced and counted
# before the records are compared.
transfer() {
	local spid

	rm -f "$tmp/ready"
	ip netns exec "$B" "$PERF" -s -1 -B "$MRC_ADDR_B" -p 7300 \
		--ready "$tmp/ready" > "$tmp/server" 2>&1 &
	spid=$!
	wait_ready "$spid" "$tmp/ready" || { cat "$tmp/server"; return 1; }
	ip netns exec "$A" "$PERF" -c "$MRC_ADDR_B" -p 7300 -n 60 -l 64K --verify \
		> "$tmp/client" 2>&1 || { cat "$tmp/client"; return 1; }
	wait "$spid" || { echo "the server did not verify every message"; cat "$tmp/server"; return 1; }
	wait_for 30 mrc_sockets_gone "$A" "$B" || { echo "connections still open after the transfer"; return 1; }
}

test_losses() {
	local bad

	tc -n "$A" qdisc replace dev veth-a root netem loss 3% || return 1
	before_a=$(mrc_mib_read "$A" "${COUNTERS[@]}")
	before_b=$(mrc_mib_read "$B" "${COUNTERS[@]}")
	trace_start
	transfer || return 1
	trace_stop || return 1
	tc -n "$A" qdisc del dev veth-a root
	[ "$(sum OutRetrans)" -gt 0 ] || { echo "no retransmission: nothing tested"; return 1; }
	grep -m 3 -E ' mrc_(pkt_lost|retransmit): ' "$tmp/trace"
	same mrc_retransmit "" OutRetrans &&
		same mrc_rto "" RtoFired &&
		same mrc_pkt_lost "reason=rack" RackLost &&
		same mrc_pkt_lost "reason=path-timeout" PathTimeLost || return 1
	# Each record names the connection and the path its packet took. Most
	# come from A, the sender; B sends its report at the end, and sends it
	# again when the link loses A's ACK of it.
	bad=$(grep -E ' mrc_retransmit: ' "$tmp/trace" | grep -vE \
		"(src=\[$MRC_ADDR_A\]:[0-9]+ dst=\[$MRC_ADDR_B\]:7300|src=\[$MRC_ADDR_B\]:7300 dst=\[$MRC_ADDR_A\]:[0-9]+) cid=[0-9]+ psn=[0-9]+ ev=[0-9]+ xmits=([2-9]|[1-9][0-9]+)$")
	[ -z "$bad" ] ||
		{ echo "malformed mrc_retransmit records:"; echo "$bad" | head -3; return 1; }
	return 0
}

test_trims() {
	local trimmed

	mrctrim_load || return 1
	tc -n "$A" qdisc replace dev veth-a root handle 1: tbf rate 50mbit burst 20kb \
		latency 100ms || return 1
	tc -n "$A" qdisc add dev veth-a parent 1:1 handle 10: mrctrim limit 30kb \
		header-limit 20kb || return 1
	before_a=$(mrc_mib_read "$A" "${COUNTERS[@]}")
	before_b=$(mrc_mib_read "$B" "${COUNTERS[@]}")
	trace_start
	transfer || return 1
	trace_stop || return 1
	tc -n "$A" -s qdisc show dev veth-a
	trimmed=$(tc -n "$A" -j -s qdisc show dev veth-a parent 1:1 |
		python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["trimmed"])')
	tc -n "$A" qdisc del dev veth-a root
	# A sender slower than the shaping (a debug kernel, a loaded host)
	# never fills the queue: nothing was trimmed, and nothing is tested.
	if [ "$trimmed" = 0 ] && [ "$(sum TrimRetrans)" -eq 0 ]; then
		echo "the queue never filled: the sender was slower than 50 Mbit/s"
		return "$KSFT_SKIP"
	fi
	[ "$(sum TrimRetrans)" -gt 0 ] ||
		{ echo "the qdisc trimmed ${trimmed:-?}, and no trim was retransmitted"; return 1; }
	grep -m 2 -E ' mrc_nack_(send|recv): ' "$tmp/trace"
	same mrc_nack_send "" OutNacks &&
		same mrc_nack_recv "reason=trimmed" TrimRetrans &&
		same mrc_retransmit "" OutRetrans
}

# mrc_text: "LO END" lines, hex addresses, between which a return address
# lies in the module's code: its .text and .text.unlikely, from where
# /sys/module/mrc/sections says they start and, for their size, the
# module file vm-run loaded ($MRC_KO). Without that file, from mrc.ko's
# first function to the first symbol after its last one in
# /proc/kallsyms, which takes minutes to read under TCG (each module
# symbol is looked up from the start of the module list).
mrc_text() {
	local sec start size

	if [ -n "${MRC_KO:-}" ] && [ -r "$MRC_KO" ] && command -v readelf > /dev/null; then
		for sec in .text .text.unlikely; do
			[ -r "/sys/module/mrc/sections/$sec" ] || continue
			start=$(cat "/sys/module/mrc/sections/$sec")
			# shellcheck disable=SC2016 # awk's own fields
			size=$(readelf -SW "$MRC_KO" |
				awk -v s="$sec" '{ sub(/^ *\[ *[0-9]+\] */, "") }
					$1 == s { print $5; exit }')
			[ -n "$size" ] && [ "$start" != 0x0000000000000000 ] &&
				printf '%x %x\n' "$start" $((start + 0x$size))
		done
		return
	fi
	# shellcheck disable=SC2016 # awk's own fields
	sort /proc/kallsyms | awk '
		$NF == "[mrc]" && $2 ~ /^[tT]$/ { if (lo == "") lo = $1; hi = $1; next }
		hi != "" && end == "" && $1 > hi { end = $1 }
		END { if (lo != "" && end != "") print lo, end }'
}

test_drops() {
	local text drops n names range rc=0 hist=""

	tc -n "$A" qdisc del dev veth-a root 2> /dev/null
	text=$(mrc_text)
	[ -n "$text" ] || { echo "mrc.ko's code not found (sections or /proc/kallsyms)"; return 1; }
	[ -d "$T/events/skb/kfree_skb" ] || { echo "no skb:kfree_skb event"; return "$KSFT_SKIP"; }
	# Every counter of a packet the module frees for a reason.
	names=$(ip netns exec "$A" awk '$1 ~ /^(Drop|TxNoRoute$|TxNoPath$|TxErrors$)/ { print $1 }' \
		/proc/net/mrc_stat | tr '\n' ' ')
	# shellcheck disable=SC2086 # one word a name
	before_a=$(mrc_mib_read "$A" $names)
	# shellcheck disable=SC2086
	before_b=$(mrc_mib_read "$B" $names)
	echo 0 > "$T/tracing_on"
	echo 0 > "$T/events/enable"
	echo 16384 > "$T/buffer_size_kb"
	echo > "$T/trace"
	range=$(while read -r lo hi; do
			printf '(location >= 0x%s && location < 0x%s)\n' "$lo" "$hi"
		done <<< "$text" | paste -sd '|' | sed 's/|/ || /g')
	echo "$range" > "$T/events/skb/kfree_skb/filter" ||
		{ echo "the filter on kfree_skb's location was refused"; return 1; }
	# The records print the location hashed; a histogram, where the
	# kernel has them (CONFIG_HIST_TRIGGERS), names the functions.
	echo "hist:keys=location.sym if $range" > "$T/events/skb/kfree_skb/trigger" \
		2> /dev/null && hist="hist:keys=location.sym if $range"
	echo 1 > "$T/events/skb/kfree_skb/enable"
	echo 1 > "$T/tracing_on"
	transfer || rc=1
	echo 0 > "$T/tracing_on"
	echo 0 > "$T/events/skb/kfree_skb/enable"
	n=$(grep -c ' kfree_skb: ' "$T/trace")
	drops=$({ mrc_mib_deltas "$A" "$before_a"; mrc_mib_deltas "$B" "$before_b"; } |
		tr ' ' '\n' | awk '/^\+/ { s += substr($0, 2) } END { print s + 0 }')
	echo "skb:kfree_skb from mrc.ko: $n; drops counted: $drops"
	if [ -n "$hist" ]; then
		grep -E '^\{|^Totals|Hits' "$T/events/skb/kfree_skb/hist" | head -12
		echo "!$hist" > "$T/events/skb/kfree_skb/trigger"
	fi
	echo 0 > "$T/events/skb/kfree_skb/filter"
	[ "$rc" -eq 0 ] && [ "$n" -le "$drops" ]
}

test_path_state() {
	"$MRC" -n "$A" path add "$MRC_ADDR_B" id 9 || return 1
	trace_start
	"$MRC" -n "$A" path set "$MRC_ADDR_B" id 9 state denied || return 1
	trace_stop || return 1
	"$MRC" -n "$A" path delete "$MRC_ADDR_B"
	grep ' mrc_' "$tmp/trace"
	[ "$(records mrc_path_state)" -eq 1 ] &&
		[ "$(records mrc_path_state "prefix=$MRC_ADDR_B/128 id=9 good -> denied reason=operator$")" -eq 1 ]
}

mrc_loaded || { echo "mrc.ko is not loaded"; exit "$KSFT_SKIP"; }
[ -d "$T/events" ] || mount -t tracefs nodev "$T" ||
	{ echo "# no tracefs"; exit "$KSFT_FAIL"; }
[ -d "$T/events/mrc" ] || { echo "# no mrc events in $T/events"; exit "$KSFT_FAIL"; }
# No task names in the records (none is needed): recording them hooks
# the scheduler's sched_switch tracepoint, which patches __schedule's
# code while every CPU runs it. On the debug 6.12 kernel under QEMU/TCG
# a CPU once took that patch's int3 after the patch was done (make
# check-debug, 2026-11-29: "Oops: int3" at __schedule's sched_switch
# site, as this test began). Put back as it was on exit.
if [ -f "$T/options/record-cmd" ]; then
	RECORD_CMD=$(cat "$T/options/record-cmd")
	echo 0 > "$T/options/record-cmd"
fi
ns_pair "$A" "$B" || exit "$KSFT_FAIL"
ktap_begin 4
run_test "an operator's state change: one mrc_path_state record" test_path_state
run_test "losses: retransmit, rto and pkt_lost records match the counters" test_losses
run_test "trims: nack_send and nack_recv records match the counters" test_trims
run_test "a clean transfer: no skb freed as a drop that no counter counts" test_drops
ktap_end
