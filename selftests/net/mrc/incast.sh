#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Incast through a trimming switch: 8 senders, 1 receiver, one plane
# (fabric.sh, 9 hosts). Spine 1's downlink to the receiver is the
# bottleneck: a tbf at 100 Mbit/s whose queue is an mrctrim qdisc with a
# small data band (30,000 bytes). Under make check-debug the rate is
# divided by MRC_SLOW_FACTOR: the debug kernel's senders moved 1 Mbit/s
# each and never filled 100 Mbit/s, so nothing was trimmed. Every sender sends 4 content-checked
# 1 MB messages at once over 4 SRv6 paths through the spine. Asserted,
# on counters only:
#  - every message arrives intact (mrcperf --verify, both ends);
#  - the switch trimmed packets, and every trimmed packet reached the
#    receiver (InTrimmed), which NACKed them (OutNacks); the senders
#    received exactly those NACKs (InNacks) and resent each packet
#    (TrimRetrans); no DATA packet was dropped whole (OutData of the
#    senders against InData of the receiver: the data band may drop
#    control packets, which cannot be trimmed) and nothing was dropped
#    from the header band;
#  - trims are repaired by NACKs, not timeouts: packets declared lost
#    (RtoFired, RackLost, PathTimeLost) are under 2% of the DATA sent,
#    where NACKs repair 3% to 5%. A few can be: the emulated guest
#    sometimes stalls a sender or the receiver for longer than the 10 ms
#    minimum RTO, and a packet can wait in the switch's data band while
#    trimmed headers go first. On an idle host they were 0.1% to 0.5%;
#    a loaded one stalls the guest more;
#  - trims retire no path: a NACK never does, and a loss declared while
#    the connection is being trimmed does not either (RetireTrimmed), so
#    retirements are at most what the losses declared explain (a timeout
#    may retire each of the 4 paths, another loss one), and every path is
#    good at the end.

# Test functions run through run_test, which shellcheck cannot follow.
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")"/lib.sh
# shellcheck source-path=SCRIPTDIR source=fabric.sh
source "$(dirname "$0")"/fabric.sh

MRCPERF=$MRC_TOP/build/tools/mrcperf
MRC=$MRC_TOP/build/tools/mrc
export TC_LIB_DIR=$MRC_TOP/build/tools
SENDERS=8
RX=$((SENDERS + 1))
PORT=7400

tmp=$(mktemp -d)
cleanup() {
	fab_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit "$KSFT_FAIL"' INT TERM

# mib H NAME: a counter of host H's namespace.
mib() {
	mrc_mib "$(fab_ns_host "$1")" "$2"
}

# sum NAME: a counter summed over the senders.
sum() {
	local h s=0

	for h in $(seq "$SENDERS"); do
		s=$((s + $(mib "$h" "$1")))
	done
	echo "$s"
}

# all_good H: every path of host H is good.
all_good() {
	"$MRC" -n "$(fab_ns_host "$1")" -j path show > "$tmp/paths-$1.json" &&
		python3 -c 'import json, sys
sys.exit(0 if all(p["state"] == "good" for s in json.load(open(sys.argv[1]))
                  for p in s["paths"]) else 1)' "$tmp/paths-$1.json"
}

setup() {
	local h

	fab_up "$RX" 1 > "$tmp/fab.log" || { cat "$tmp/fab.log"; return 1; }
	fab_exec_spine 1 tc qdisc replace dev "h$RX" root handle 1: tbf \
		rate $((100 / ${MRC_SLOW_FACTOR:-1}))mbit burst 32kb latency 100ms || return 1
	fab_exec_spine 1 tc qdisc add dev "h$RX" parent 1:1 handle 10: mrctrim \
		limit 30000 ecn-threshold 15000 trim-size 256 || return 1
	for h in $(seq "$SENDERS"); do
		fab_paths "$h" "$RX" 4 || return 1
	done
}

test_incast() {
	local h spid limit ok=0 trimmed rx_trim rx_nack tx_nack tx_retrans lost sent
	local data_drops header_drops nobuf rx_data tx_data

	setup || return 1
	limit=$(slow_limit 120)
	fab_exec_host "$RX" "$MRCPERF" -s -p "$PORT" --timeout "$limit" \
		--ready "$tmp/ready" > "$tmp/server.log" 2>&1 &
	spid=$!
	wait_ready "$spid" "$tmp/ready" || return 1
	for h in $(seq "$SENDERS"); do
		fab_exec_host "$h" "$MRCPERF" -c "$(fab_host_addr "$RX")" -p "$PORT" \
			-n 4 -l 1M --verify -j --seed "$h" --timeout "$limit" \
			> "$tmp/client-$h.json" 2> "$tmp/client-$h.err" &
	done
	for h in $(seq "$SENDERS"); do
		wait -n
	done
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	for h in $(seq "$SENDERS"); do
		if python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["ok"] and d["bytes"] == 4 << 20 and d["verify_errors"] == 0 else 1)' \
			"$tmp/client-$h.json" 2>/dev/null; then
			ok=$((ok + 1))
		else
			echo "sender $h failed:"
			cat "$tmp/client-$h.json" "$tmp/client-$h.err"
		fi
	done
	echo "senders verified: $ok of $SENDERS"
	for h in $(seq "$SENDERS"); do
		python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
c = d["conns"][0]
i = c.get("mrc_info", {})
print("sender %s: %.2f s, %.1f Mbit/s, cwnd %s srtt %s us, retrans %s, trim_retrans %s, rtos %s" % (
    sys.argv[2], c["seconds"], c["goodput_mbps"], i.get("cwnd"), i.get("srtt_us"),
    i.get("pkts_retrans"), i.get("trim_retrans"), i.get("rtos")))' "$tmp/client-$h.json" "$h" 2>/dev/null
	done

	fab_exec_spine 1 tc -s qdisc show dev "h$RX"
	fab_exec_spine 1 tc -j -s qdisc show dev "h$RX" parent 1:1 > "$tmp/q.json"
	read -r trimmed data_drops header_drops <<< "$(python3 -c 'import json, sys
q = json.load(open(sys.argv[1]))[0]
print(q["trimmed"], q["data_drops"], q["header_drops"])' "$tmp/q.json")"
	[ -n "$header_drops" ] || { echo "no statistics from tc:"; cat "$tmp/q.json"; return 1; }
	rx_trim=$(mib "$RX" InTrimmed)
	rx_nack=$(mib "$RX" OutNacks)
	tx_nack=$(sum InNacks)
	tx_retrans=$(sum TrimRetrans)
	echo "switch: trimmed $trimmed data_drops $data_drops header_drops $header_drops"
	echo "receiver: InTrimmed $rx_trim OutNacks $rx_nack DropNoConn $(mib "$RX" DropNoConn)"
	echo "senders: InNacks $tx_nack TrimRetrans $tx_retrans DropNack $(sum DropNack)" \
		"RtoFired $(sum RtoFired) PathsRetired $(sum PathsRetired)" \
		"CcTrimDecrease $(sum CcTrimDecrease) OutRetrans $(sum OutRetrans)" \
		"RackLost $(sum RackLost) PathTimeLost $(sum PathTimeLost)" \
		"SpuriousRetrans $(sum SpuriousRetrans)"

	# shellcheck disable=SC2016 # awk's own $1 and $2
	echo "receiver counters: $(fab_exec_host "$RX" awk '$2 != 0 { printf "%s %s ", $1, $2 }' /proc/net/mrc_stat)"
	[ "$ok" -eq "$SENDERS" ] || return 1
	[ "$trimmed" -gt 0 ] || { echo "the switch trimmed nothing"; return 1; }
	lost=$(($(sum RtoFired) + $(sum RackLost) + $(sum PathTimeLost)))
	sent=$(sum OutData)
	# The data band tail-drops what it cannot trim: probes, SYNs and
	# FINs may go (on a debug kernel timeouts retire paths, whose probes
	# then cross the full queue), DATA never. Every DATA packet sent
	# reached the receiver, whole or trimmed, unless the sender's stack
	# refused it.
	rx_data=$(($(mib "$RX" InData) + $(mib "$RX" DropNoConn) + $(mib "$RX" DropBacklog)))
	tx_data=$((sent - $(sum TxErrors) - $(sum TxNoRoute)))
	echo "DATA: $sent sent, $tx_data left the senders, $rx_data reached the receiver"
	if [ "$header_drops" -ne 0 ] || [ "$tx_data" -gt "$rx_data" ]; then
		echo "the switch dropped packets whole: $header_drops from the header band," \
			"$((tx_data - rx_data)) DATA ($data_drops packets of any kind from the data band)"
		return 1
	fi
	[ "$rx_trim" -eq "$trimmed" ] ||
		{ echo "the receiver saw $rx_trim trimmed packets, the switch trimmed $trimmed"; return 1; }
	# A packet dropped for want of receive memory is NACKed too.
	nobuf=$(($(mib "$RX" DropRcvbuf) + $(mib "$RX" DropMemLimit) +
		$(mib "$RX" DropZeroWindow)))
	if [ "$rx_nack" -le "$nobuf" ] || [ "$((rx_nack - nobuf))" -gt "$rx_trim" ]; then
		echo "NACKs sent: $rx_nack for $rx_trim trims and $nobuf packets without memory"
		return 1
	fi
	[ "$tx_nack" -eq "$rx_nack" ] ||
		{ echo "the senders got $tx_nack NACKs, the receiver sent $rx_nack"; return 1; }
	if [ "$tx_retrans" -eq 0 ] || [ "$tx_retrans" -gt "$tx_nack" ]; then
		echo "TrimRetrans $tx_retrans for $tx_nack NACKs"
		return 1
	fi
	echo "declared lost: $lost of $sent DATA packets sent"
	[ $((lost * 50)) -lt "$sent" ] || { echo "2% or more declared lost"; return 1; }
	# A timeout may retire each of the 4 paths; a RACK or path-timeout
	# loss retires one.
	[ "$(sum PathsRetired)" -le \
	  $((4 * $(sum RtoFired) + $(sum RackLost) + $(sum PathTimeLost))) ] ||
		{ echo "more paths retired than the losses declared explain"; return 1; }
	for h in $(seq "$SENDERS"); do
		wait_for 10 all_good "$h" || return 1
	done
}

mrc_loaded || { echo "mrc.ko is not loaded"; exit "$KSFT_SKIP"; }
mrctrim_load || { echo "cannot load $MRCTRIM_KO"; exit "$KSFT_FAIL"; }
ktap_begin 1
run_test "8-to-1 incast through a trimming switch: NACKs repair every trim" test_incast
ktap_end
