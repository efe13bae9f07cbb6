#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The mrctrim qdisc alone, between two namespaces joined by a veth. The
# sender's side has a tbf at 48 bit/s as root, with mrctrim as its child:
# the tbf lets one packet through at once and then nothing for over ten
# seconds, so a burst fills mrctrim's bands deterministically (no timing
# is measured). The sender's side sends nothing of its own (no link-local
# address, no router solicitations, its MLD reports done before the test
# starts), so that only the test's packets cross the qdisc. Changing the
# tbf to 1 Gbit/s then drains them. A capture on the receiver's side
# shows what left, in which order. Checked:
#  - trims happen exactly when the data band is full;
#  - trimmed packets have the right size, DSCP and ECN bits, and valid
#    UDP checksums (with an SRH, over the final destination);
#  - a GSO batch that does not fit is split, and its tail trimmed;
#  - the header band is served first; packets trimmed upstream join it;
#  - packets without the trimmable DSCP are tail-dropped;
#  - CE marks exactly above ecn-threshold, and never on Not-ECT;
#  - a full header band drops, and every counter adds up;
#  - tc parses and prints every parameter (text and JSON), bad values
#    are refused with a clear message, rmmod is refused while in use.

# Test functions run through run_test, which shellcheck cannot follow.
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")"/lib.sh

TOOL=$MRC_SELFTEST_DIR/trim_tool.py
export TC_LIB_DIR=$MRC_TOP/build/tools
suffix=$RANDOM
A=mrc-trim-a-$suffix
B=mrc-trim-b-$suffix
PORT=9000
# A 1000-byte UDP payload: 1062 bytes on the wire (Ethernet 14, IPv6 40,
# UDP 8), which is what the qdisc counts.
SIZE=1000
tmp=$(mktemp -d)
echo "# namespaces $A $B"

cleanup() {
	ns_del "$A" "$B"
	rm -rf "$tmp"
}
trap cleanup EXIT

# pkts NS DEV rx|tx: the device's packet counter, from sysfs as the
# namespace sees it (a python to read ip's JSON costs 0.3 s under TCG,
# and the cases poll this).
pkts() {
	ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3_packets"
}

# veth-a sent nothing for a second.
quiet() {
	local n

	n=$(pkts "$A" veth-a tx)
	sleep 1
	[ "$n" = "$(pkts "$A" veth-a tx)" ]
}

# mac NS DEV: the device's address.
mac() {
	ip netns exec "$1" cat "/sys/class/net/$2/address"
}

# A fresh pair whose side A sends nothing of its own once quiet: no
# link-local address (so no DAD), no router solicitations, the MLD
# reports for its address sent at once when the link comes up rather
# than spread over the next seconds, and static neighbours on both sides
# (B would otherwise solicit A, to send it ICMP errors, and A's answers
# would queue behind the test's packets).
setup() {

	ns_del "$A" "$B"
	ip netns add "$A" || return 1
	ip netns exec "$A" sysctl -qw net.ipv6.conf.default.addr_gen_mode=1 \
		net.ipv6.conf.default.router_solicitations=0 \
		net.ipv6.conf.default.mldv2_unsolicited_report_interval=0 || return 1
	ns_pair "$A" "$B" || return 1
	ip -n "$A" -6 neigh replace "$MRC_ADDR_B" lladdr "$(mac "$B" veth-b)" \
		dev veth-a nud permanent || return 1
	ip -n "$B" -6 neigh replace "$MRC_ADDR_A" lladdr "$(mac "$A" veth-a)" \
		dev veth-b nud permanent || return 1
	wait_for 10 quiet
}

# qdisc ARGS...: the stalled tbf, then mrctrim ARGS as its child. The
# bucket holds 1110 bytes (a packet with a two-entry SRH is 1102), full
# at the start: the plug (1062 bytes) leaves 48, and at 6 bytes a second
# the smallest trimmed header (142 bytes) waits 15 s for its tokens, a
# whole packet three minutes. send() puts every other packet of a case
# into mrctrim well within those 15 s, whatever the machine's speed.
qdisc() {
	tc -n "$A" qdisc replace dev veth-a root handle 1: tbf rate 48bit \
		burst 1110 limit 100000 || return 1
	tc -n "$A" qdisc add dev veth-a parent 1:1 handle 10: mrctrim "$@"
}

capture_start() {
	# Not on our stdout: run_test's pipe would wait for it after a failure.
	ip netns exec "$B" tcpdump -n -U -s 2000 -i veth-b -w "$tmp/cap.pcap" \
		ip6 > /dev/null 2> "$tmp/tcpdump.log" &
	cap=$!
	wait_for 10 grep -q "listening on" "$tmp/tcpdump.log"
}

backlog_empty() {
	[ "$(tc -n "$A" -j -s qdisc show dev veth-a parent 1:1 |
	     python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["qlen"])')" = 0 ]
}

# Everything veth-a sent has reached veth-b.
all_arrived() {
	[ "$(pkts "$A" veth-a tx)" = "$(pkts "$B" veth-b rx)" ]
}

# Let the tbf go, wait until mrctrim is empty and all it sent has
# arrived, stop the capture, read it. A tbf whose rate changes only looks
# at its queue again when its timer fires (minutes away) or a packet
# comes: the kick is a packet larger than the new bucket, which the tbf
# drops before mrctrim sees it, and then sends what it holds.
drain() {
	tc -n "$A" qdisc change dev veth-a root handle 1: tbf rate 1gbit \
		burst 1500 limit 100000 || return 1
	ip netns exec "$A" python3 "$TOOL" send "$MRC_ADDR_B" $((PORT + 1)) \
		--size 1450 1:0:0 || return 1
	wait_for 10 backlog_empty || return 1
	wait_for 10 all_arrived || return 1
	sleep 0.5
	kill -INT "$cap"
	wait "$cap"
	python3 "$TOOL" read "$tmp/cap.pcap" "$PORT" > "$tmp/pkts.json"
	tc -n "$A" -j -s qdisc show dev veth-a parent 1:1 > "$tmp/stats.json"
}

# send_to DST [--srh SEGS] BURST...: a case's packets, from one process
# (trim_tool.py send). The first is the plug: the tbf takes it as soon as
# it is queued, in the sending system call, and then sends nothing for
# 15 s, so the bands start empty and the rest only fill them. Packets
# sent from separate processes, a second apart on a loaded debug guest,
# let a trimmed header through. Fails unless the plug is all that veth-a
# has sent when the packets are in.
send_to() {
	local dst=$1 before

	shift
	before=$(pkts "$A" veth-a tx)
	ip netns exec "$A" python3 "$TOOL" send "$dst" "$PORT" --size "$SIZE" "$@" ||
		return 1
	if [ "$(pkts "$A" veth-a tx)" -ne $((before + 1)) ]; then
		echo "veth-a sent more than the plug before the drain"
		return 1
	fi
}

send() {
	send_to "$MRC_ADDR_B" "$@"
}

# check: run the assertions in $CHECK (Python, want(COND, WHAT)) with pkts
# (what arrived) and st (the qdisc's statistics) loaded; print what is
# wrong and fail.
check() {
	python3 - "$tmp/pkts.json" "$tmp/stats.json" <<-EOF
	import json, sys
	pkts = json.load(open(sys.argv[1]))
	st = json.load(open(sys.argv[2]))[0]
	bad = []
	def want(cond, what):
	    if not cond:
	        bad.append(what)
	$CHECK
	print("arrived:", [(p["seq"], p["frame_len"], p["dscp"], p["ecn"]) for p in pkts])
	print("stats:", {k: st.get(k) for k in ("drops", "trimmed", "data_drops",
	      "header_drops", "ecn_marked", "data_qlen", "header_qlen")})
	for b in bad:
	    print("FAIL:", b)
	sys.exit(1 if bad else 0)
	EOF
}

# 20 trimmable packets, data band 5000 bytes: the tbf takes the first
# (plug), the band the next four (4 x 1062 <= 5000), and the other 15 are
# trimmed to 128 bytes. Then two packets arrive trimmed upstream (DSCP 11,
# whole): they join the header band. The header band leaves first.
test_trim() {
	setup || return 1
	qdisc limit 5000 trim-size 128 || return 1
	capture_start || return 1
	send 20:0:$(((10 << 2) | 2)) 2:100:$((11 << 2)) || return 1
	drain || return 1
	CHECK='
full = [p["seq"] for p in pkts if p["frame_len"] == 1062]
trim = [p["seq"] for p in pkts if p["frame_len"] == 14 + 128]
order = [p["seq"] for p in pkts]
want(len(pkts) == 22, "22 packets arrived")
want(order == [0] + list(range(5, 20)) + [100, 101] + [1, 2, 3, 4],
     "first the one the tbf took, then the header band in order, then data")
want(set(trim) == set(range(5, 20)), "exactly the packets after a full band were trimmed")
for p in pkts:
    if p["seq"] in trim:
        want(p["plen"] == 88 and p["udp_len"] == 88, "trimmed lengths fixed: %s" % p)
        want(p["dscp"] == 11 and p["ecn"] == 2, "trimmed: DSCP 11, ECN kept: %s" % p)
        want(p["csum_ok"], "trimmed checksum valid: %s" % p)
    elif p["seq"] >= 100:
        want(p["dscp"] == 11 and p["frame_len"] == 1062, "upstream-trimmed kept whole: %s" % p)
    else:
        want(p["dscp"] == 10, "full packets keep DSCP 10: %s" % p)
want(st["trimmed"] == 15 and st["data_drops"] == 0 and st["header_drops"] == 0,
     "counters: 15 trimmed, no drops")
want(st["drops"] == 0, "no generic drops")
'
	check
}

# With an SRH the UDP checksum covers the final destination, entry 0.
test_trim_srh() {
	setup || return 1
	qdisc limit 2000 trim-size 200 || return 1
	capture_start || return 1
	send_to 2001:db8:ffff::99 --srh "$MRC_ADDR_B" 6:0:$((10 << 2)) || return 1
	drain || return 1
	CHECK='
trim = [p for p in pkts if p["frame_len"] == 14 + 200]
want(len(pkts) == 6, "6 packets arrived")
want([p["seq"] for p in trim] == [2, 3, 4, 5], "the last four were trimmed")
for p in trim:
    want(p["csum_ok"], "checksum over the final destination: %s" % p)
    want(p["plen"] == 160 and p["dscp"] == 11, "lengths and DSCP: %s" % p)
want(st["trimmed"] == 4, "4 trimmed")
'
	check
}

# A GSO batch of 10 that does not fit: split, the first four queued whole,
# the other six trimmed.
test_gso() {
	setup || return 1
	qdisc limit 5000 trim-size 128 || return 1
	capture_start || return 1
	send 1:0:$((10 << 2)) 10:1:$((10 << 2)):gso || return 1
	drain || return 1
	CHECK='
trim = sorted(p["seq"] for p in pkts if p["frame_len"] == 14 + 128)
full = sorted(p["seq"] for p in pkts if p["frame_len"] == 1062)
want(full == [0, 1, 2, 3, 4] and trim == [5, 6, 7, 8, 9, 10],
     "GSO batch split: 1..4 whole, 5..10 trimmed")
want(all(p["csum_ok"] for p in pkts if p["seq"] in trim), "trimmed checksums valid")
want(st["trimmed"] == 6 and st["data_drops"] == 0, "6 trimmed, no drops")
'
	check
}

# DSCP 0 is not trimmable: what does not fit is tail-dropped.
test_taildrop() {
	setup || return 1
	qdisc limit 5000 || return 1
	capture_start || return 1
	send 20:0:0 || return 1
	drain || return 1
	CHECK='
want([p["seq"] for p in pkts] == [0, 1, 2, 3, 4], "the first five arrived, whole, in order")
want(st["trimmed"] == 0 and st["data_drops"] == 15 and st["drops"] == 15,
     "15 tail drops, no trims")
'
	check
}

# ecn-threshold 2124 (two packets): a packet that finds more than that in
# the data band is marked, if ECN-capable. 10 ECT(0) then 10 Not-ECT.
test_ecn() {
	setup || return 1
	qdisc limit 100000 ecn-threshold 2124 || return 1
	capture_start || return 1
	send 10:0:$(((10 << 2) | 2)) 10:10:$((10 << 2)) || return 1
	drain || return 1
	CHECK='
ce = [p["seq"] for p in pkts if p["ecn"] == 3]
want(len(pkts) == 20, "all 20 arrived")
want(ce == list(range(4, 10)), "CE on the ECT packets that found > 2124 bytes queued")
want(all(p["ecn"] == 0 for p in pkts if p["seq"] >= 10), "Not-ECT never marked")
want(st["ecn_marked"] == 6 and st["trimmed"] == 0, "6 marked")
'
	check
}

# header-limit 426: three 142-byte trimmed packets fit, the rest drop.
test_header_full() {
	setup || return 1
	qdisc limit 5000 trim-size 128 header-limit 426 || return 1
	capture_start || return 1
	send 20:0:$((10 << 2)) || return 1
	drain || return 1
	CHECK='
full = [p for p in pkts if p["frame_len"] == 1062]
trim = [p for p in pkts if p["frame_len"] == 142]
want(len(full) == 5 and len(trim) == 3, "5 whole, 3 trimmed arrived")
want(st["trimmed"] == 3 and st["header_drops"] == 12 and st["data_drops"] == 0,
     "3 trimmed, 12 header drops")
want(len(full) + st["trimmed"] + st["data_drops"] + st["header_drops"] == 20,
     "every packet sent, trimmed or dropped, once")
want(st["drops"] == 12, "generic drops = header drops")
'
	check
}

# Every parameter round-trips through tc, in text and JSON.
test_params() {
	local out

	setup || return 1
	tc -n "$A" qdisc add dev veth-a root mrctrim limit 100kb header-limit 20kb \
		trim-size 300 trim-dscp 40 trimmable-dscp 41 ecn-threshold 30kb || return 1
	out=$(tc -n "$A" qdisc show dev veth-a)
	echo "$out"
	echo "$out" | grep -q "limit 100Kb header-limit 20Kb trim-size 300 trim-dscp 40 trimmable-dscp 41 ecn-threshold 30Kb" ||
		{ echo "text output"; return 1; }
	tc -n "$A" -j qdisc show dev veth-a > "$tmp/q.json"
	python3 - "$tmp/q.json" <<-'EOF' || return 1
	import json, sys
	o = json.load(open(sys.argv[1]))[0]["options"]
	want = {"limit": 102400, "header_limit": 20480, "trim_size": 300,
	        "trim_dscp": 40, "trimmable_dscp": 41, "ecn_threshold": 30720}
	sys.exit(0 if all(o.get(k) == v for k, v in want.items()) else
	         print("JSON options:", o) or 1)
	EOF
	tc -n "$A" qdisc change dev veth-a root mrctrim trim-size 100 || return 1
	tc -n "$A" qdisc show dev veth-a | grep -q "trim-size 100 trim-dscp 40" ||
		{ echo "change kept the other values"; return 1; }
	tc -n "$A" qdisc del dev veth-a root
}

# bad ARGS... MESSAGE: tc refuses the qdisc and says MESSAGE.
bad() {
	local msg=${*: -1}

	if tc -n "$A" qdisc replace dev veth-a root mrctrim "${@:1:$#-1}" 2> "$tmp/err"; then
		echo "accepted: ${*:1:$#-1}"
		return 1
	fi
	grep -q "$msg" "$tmp/err" || { echo "wrong message for ${*:1:$#-1}:"; cat "$tmp/err"; return 1; }
	echo "${*:1:$#-1}: $(head -1 "$tmp/err")"
}

test_bad_params() {
	setup || return 1
	bad trim-size 83 "trim-size" || return 1
	bad trim-dscp 64 "0 to 63" || return 1
	bad trimmable-dscp 99 "0 to 63" || return 1
	bad limit 0 "limit" || return 1
	bad header-limit 0 "header-limit" || return 1
	bad trim-dscp 5 trimmable-dscp 5 "differ" || return 1
	# The kernel checks too: one DSCP changed to the other's value.
	tc -n "$A" qdisc add dev veth-a root mrctrim || return 1
	tc -n "$A" qdisc change dev veth-a root mrctrim trim-dscp 10 2> "$tmp/err" &&
		{ echo "kernel accepted equal DSCPs"; return 1; }
	cat "$tmp/err"
	grep -q "must differ" "$tmp/err" || return 1
	tc -n "$A" qdisc show dev veth-a | grep -q "trim-dscp 11 trimmable-dscp 10" ||
		{ echo "a refused change changed something"; return 1; }
}

# The module is held while a qdisc uses it, and unloads cleanly after.
test_unload() {
	setup || return 1
	tc -n "$A" qdisc add dev veth-a root mrctrim || return 1
	if rmmod sch_mrctrim 2>/dev/null; then
		echo "rmmod succeeded with a qdisc in use"
		return 1
	fi
	ns_del "$A" "$B"
	wait_for 10 rmmod sch_mrctrim || return 1
	insmod "$MRCTRIM_KO"
}

mrctrim_load || { echo "cannot load $MRCTRIM_KO"; exit "$KSFT_FAIL"; }
ktap_begin 9
run_test "trims exactly when the data band is full; header band first" test_trim
run_test "trimmed packets with an SRH keep a valid checksum" test_trim_srh
run_test "a GSO batch is split and its tail trimmed" test_gso
run_test "packets that are not trimmable are tail-dropped" test_taildrop
run_test "ECN marks exactly above the threshold" test_ecn
run_test "a full header band drops, and the counters add up" test_header_full
run_test "tc sets and shows every parameter" test_params
run_test "bad parameters are refused with a clear message" test_bad_params
run_test "rmmod is refused while in use, clean after" test_unload
ktap_end
