#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The module against an independent MRC 1.0 endpoint: mrc10_peer.py, built
# on mrc10.py alone from the published tables and
# Documentation/networking/mrc-1.0-mapping.rst, in its no-handshake mode.
# Connection setup is not in the MRC 1.0 format yet, so both ends are set
# up out of band, as RDMA queue pairs are: the AF_MRC socket by the
# MRC_PEER socket option (interop10_app.py), the peer from its command
# line, with the same QPNs and initial PSNs, swapped. Messages of 1, 1000,
# 9000 and 100,000 bytes go each way; every one must arrive byte-identical
# (sha256 on both sides).
#
#   1. the module sends, the peer receives; the module's PSNs wrap;
#   2. the peer sends, the module receives; the peer's PSNs wrap;
#   3. as 1, with netem loss both ways and the peer dropping two packets
#      (one more than 64 PSNs past the first) and NACKing four,
#      TRIMMED and NO_PKT_BUFFER: the module sends again (OutRetrans,
#      TrimRetrans) and takes every NACK (DropNack 0);
#   4. as 2, with netem loss both ways, the peer leaving a packet out (a
#      hole in the module's SACKs), sending three trimmed (the module
#      NACKs them TRIMMED) and ignoring the window of a reader that sleeps
#      on a small SO_RCVBUF (the module NACKs NO_PKT_BUFFER): the peer
#      sends again for the SACK hole and the NACKs.
#
# The peer is Python and scapy, slow under TCG: its retransmission
# timeout is a second, and the messages are few.
#
# In every case the peer must have counted no ICRC error, no nonconforming
# field and no packet it could not read (its counters are printed), and
# the module's counters of packets it could not take (InIcrcErrors,
# DropBadCid, DropShort, DropBadMsg, DropNack, ...) must not have risen in
# its namespace.
#
# The module binds its UDP port (the udp_port parameter, passed to the
# peer) in every namespace, so the peer cannot have it on a UDP socket:
# it is a host behind a tun device, routed by the second namespace.
#
#   ns A (AF_MRC)  veth-a 2001:db8::1 <--> 2001:db8::2 veth-b  ns B
#                                           (forwarding) -- tun mrc10p --
#                                           mrc10_peer.py 2001:db8:10::3
#
# Needs root, python3 with scapy, tc with netem, TUN, and mrc.ko loaded
# (vm-run does that).

# Test functions run through run_test, which shellcheck cannot follow;
# awk programs are in single quotes on purpose.
# shellcheck disable=SC2317,SC2016
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")"/lib.sh

PEER=$MRC_SELFTEST_DIR/mrc10_peer.py
APP=$MRC_SELFTEST_DIR/interop10_app.py
suffix=$RANDOM
A=mrc-i10-a-$suffix
B=mrc-i10-b-$suffix
TUN=mrc10p
PEER_ADDR=2001:db8:10::3
# The largest payload the peer takes, which the module is told.
MSS=1400
SIZES=1,1000,9000,100000
NMSG=4
SEED=${MRC_SEED:-$RANDOM}
LOSS=(loss 3%)
# The module's counters that count a packet it could not take: none may
# rise. And those shown for each case.
BAD="InIcrcErrors DropBadCid DropShort DropType DropVersion DropBadMsg
	DropNoConn DropState DropNack DropAckUnsent DropSackUnsent DropPsnWindow"
SHOWN="InData OutData OutRetrans InAcks OutAcks InNacks OutNacks InTrimmed
	TrimRetrans DropDup DropRcvbuf DropZeroWindow InBeyondWindow RtoFired
	TailProbes Outages"
tmp=$(mktemp -d)
pids=()

cleanup() {
	local p

	for p in "${pids[@]}"; do
		kill "$p" 2> /dev/null
	done
	ns_del "$A" "$B"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit "$KSFT_FAIL"' INT TERM

setup() {
	ns_pair "$A" "$B" || return 1
	ip -n "$B" tuntap add dev "$TUN" mode tun || return 1
	ip -n "$B" link set "$TUN" up || return 1
	ip -n "$B" -6 route add "$PEER_ADDR"/128 dev "$TUN" || return 1
	ip netns exec "$B" sysctl -qw net.ipv6.conf.all.forwarding=1 || return 1
	ip -n "$A" -6 route add "$PEER_ADDR"/128 via "$MRC_ADDR_B"
}

netem() {
	ip netns exec "$A" tc qdisc "$1" dev veth-a root netem "${@:2}" &&
		ip netns exec "$B" tc qdisc "$1" dev veth-b root netem "${@:2}"
}

netem_off() {
	ip netns exec "$A" tc qdisc del dev veth-a root 2> /dev/null
	ip netns exec "$B" tc qdisc del dev veth-b root 2> /dev/null
}

# snap FILE: A's MIB.
snap() {
	ip netns exec "$A" cat /proc/net/mrc_stat > "$1"
}

# delta NAME: how much A's counter NAME rose from mib.0 to mib.1.
delta() {
	awk -v c="$1" 'FNR == 1 { f++ } $1 == c { v[f] = $2 }
		END { print v[2] - v[1] }' "$tmp/mib.0" "$tmp/mib.1"
}

# module_report: the rise of A's counters over the case; fails if one of
# $BAD rose.
module_report() {
	local c d line="" bad=""

	snap "$tmp/mib.1"
	for c in $SHOWN; do
		line+="$c +$(delta "$c") "
	done
	echo "module: $line"
	for c in $BAD; do
		d=$(delta "$c")
		[ "$d" -eq 0 ] || bad+="$c +$d "
	done
	[ -z "$bad" ] || { echo "module: packets it could not take: $bad"; return 1; }
}

# peer_report: the peer's result (its --json): its counters and
# nonconforming fields; fails if it did not finish, or counted an ICRC
# error, a nonconforming field or a packet it could not read.
peer_report() {
	python3 - "$tmp/peer.json" <<-'EOF'
	import json, sys
	r = json.load(open(sys.argv[1]))
	s = r["stats"]
	print("peer: %s, %d sent, %d delivered" % (
	    "done" if r["ok"] else "FAILED", len(r["sent"]), len(r["delivered"])))
	print("peer: counters %s" % json.dumps(s))
	print("peer: nonconforming fields %s" % json.dumps(r["nonconforming"]))
	bad = ["%s %d" % (k, s[k]) for k in (
	    "icrc_errors", "short", "malformed", "bad_pad", "bad_opcode",
	    "unknown_qp", "bad_dpdcid", "bad_endpoint_request",
	    "unexpected_opcode", "timeout") if s.get(k)]
	if bad:
	    print("peer: packets it could not take: " + ", ".join(bad))
	sys.exit(0 if r["ok"] and not r["nonconforming"] and not bad else 1)
	EOF
}

# peer_stat NAME...: the sum of the peer's counters NAME.
peer_stat() {
	python3 - "$tmp/peer.json" "$@" <<-'EOF'
	import json, sys
	s = json.load(open(sys.argv[1]))["stats"]
	print(sum(s.get(k, 0) for k in sys.argv[2:]))
	EOF
}

# same_messages FROM TO: what FROM printed as sent ("tx MSN LENGTH
# SHA256") is what TO printed as received ("rx ..."), $NMSG messages.
same_messages() {
	local sent got

	sent=$(sed -n 's/^tx //p' "$1")
	got=$(sed -n 's/^rx //p' "$2")
	echo "sent $(grep -c . <<< "$sent"), received $(grep -c . <<< "$got") byte-identical: $([ "$sent" = "$got" ] && echo yes || echo NO)"
	[ "$sent" = "$got" ] && [ "$(grep -c . <<< "$sent")" -eq "$NMSG" ] && return 0
	echo "sent:"
	sed 's/^/  /' <<< "$sent"
	echo "received:"
	sed 's/^/  /' <<< "$got"
	return 1
}

show_logs() {
	local f

	for f in app.out app.err peer.err; do
		[ -s "$tmp/$f" ] && sed "s/^/$f: /" "$tmp/$f"
	done
	return 0
}

has_info_or_dead() {
	grep -q '^info ' "$tmp/app.out" || ! kill -0 "$1" 2> /dev/null
}

# The arguments both ends share: the peer's first, then the app's.
peer_args() {
	echo --tun "$TUN" --bind "$PEER_ADDR" --udp-port "$PORT" \
		--peer-udp-port "$PORT" --timeout "$LIMIT" --rto 1000 \
		--json "$tmp/peer.json"
}

# module_to_peer QPN-A QPN-PEER PSN-A PSN-PEER [PEER-ARGS...]: A's socket
# sends $SIZES, the peer receives them; both must finish in time.
module_to_peer() {
	local qa=$1 qp=$2 pa=$3 pp=$4 ppid apid prc arc

	shift 4
	rm -f "$tmp"/peer.* "$tmp"/app.* "$tmp/go"
	snap "$tmp/mib.0"
	# shellcheck disable=SC2046 # peer_args are words
	ip netns exec "$B" python3 "$PEER" peer "$MRC_ADDR_A" $(peer_args) \
		--qpn "$qp" --peer-qpn "$qa" --isn "$pp" --peer-isn "$pa" \
		--mss "$MSS" --expect "$NMSG" --linger "$LIMIT" \
		--ready "$tmp/peer.ready" "$@" > "$tmp/peer.out" 2> "$tmp/peer.err" &
	ppid=$!
	pids+=("$ppid")
	wait_ready "$ppid" "$tmp/peer.ready" || { show_logs; return 1; }
	ip netns exec "$A" python3 "$APP" "$PEER_ADDR" --local-qpn "$qa" \
		--peer-qpn "$qp" --local-psn "$pa" --peer-psn "$pp" \
		--peer-mss "$MSS" --sizes "$SIZES" --seed "$SEED" \
		--timeout "$LIMIT" --wait "$tmp/go" > "$tmp/app.out" 2> "$tmp/app.err" &
	apid=$!
	pids+=("$apid")
	# The app is done once the peer acknowledged everything; the peer
	# once it delivered everything, and lingers to answer until told.
	wait_for $((LIMIT + 10)) has_info_or_dead "$apid"
	kill -TERM "$ppid" 2> /dev/null
	wait "$ppid"
	prc=$?
	touch "$tmp/go"
	wait "$apid"
	arc=$?
	echo "app exit $arc, peer exit $prc; $(grep '^connected' "$tmp/app.out")"
	grep '^info ' "$tmp/app.out"
	if [ "$arc" -ne 0 ] || [ "$prc" -ne 0 ]; then
		show_logs
		return 1
	fi
}

# peer_to_module QPN-A QPN-PEER PSN-A PSN-PEER APP-ARGS -- PEER-ARGS: the
# peer sends $SIZES, A's socket receives them. The peer is told the
# module's MSS and window as the app reports them.
peer_to_module() {
	local qa=$1 qp=$2 pa=$3 pp=$4 app_args=() apid prc arc mss rwnd

	shift 4
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		app_args+=("$1")
		shift
	done
	shift
	rm -f "$tmp"/peer.* "$tmp"/app.* "$tmp/go"
	snap "$tmp/mib.0"
	ip netns exec "$A" python3 "$APP" "$PEER_ADDR" --local-qpn "$qa" \
		--peer-qpn "$qp" --local-psn "$pa" --peer-psn "$pp" \
		--peer-mss "$MSS" --expect "$NMSG" --timeout "$LIMIT" \
		--ready "$tmp/app.ready" --wait "$tmp/go" "${app_args[@]}" \
		> "$tmp/app.out" 2> "$tmp/app.err" &
	apid=$!
	pids+=("$apid")
	wait_ready "$apid" "$tmp/app.ready" || { show_logs; return 1; }
	read -r mss rwnd < "$tmp/app.ready"
	mss=${mss#mss=}
	rwnd=${rwnd#rcv_wnd=}
	# shellcheck disable=SC2046 # peer_args are words
	timeout -k 5 $((LIMIT + 30)) ip netns exec "$B" python3 "$PEER" peer \
		"$MRC_ADDR_A" $(peer_args) --qpn "$qp" --peer-qpn "$qa" \
		--isn "$pp" --peer-isn "$pa" --mss "$mss" --peer-rwnd "$rwnd" \
		--sizes "$SIZES" --seed "$SEED" "$@" > "$tmp/peer.out" 2> "$tmp/peer.err"
	prc=$?
	touch "$tmp/go"
	wait "$apid"
	arc=$?
	echo "app exit $arc, peer exit $prc; the module takes mss $mss, window $rwnd"
	grep '^info ' "$tmp/app.out"
	if [ "$arc" -ne 0 ] || [ "$prc" -ne 0 ]; then
		show_logs
		return 1
	fi
}

# check_all SENDER-OUT RECEIVER-OUT: the messages, the peer and the
# module; all are reported whatever fails.
check_all() {
	local rc=0

	same_messages "$tmp/$1" "$tmp/$2" || rc=1
	peer_report || rc=1
	module_report || rc=1
	return "$rc"
}

# at_least WHAT VALUE MIN
at_least() {
	[ "$2" -ge "$3" ] && return 0
	echo "$1 is $2, expected at least $3"
	return 1
}

# 1. The module's PSNs start 40 short of 2^24 and wrap.
test_module_sends() {
	module_to_peer 4097 8193 16777176 77 || return 1
	check_all app.out peer.out
}

# 2. The peer's PSNs start 20 short of 2^24 and wrap.
test_peer_sends() {
	peer_to_module 4098 8194 5 16777196 -- || return 1
	check_all peer.out app.out
}

# 3. Loss both ways, and the peer's own drops and NACKs (of the 81
# packets): 5 and 70 (past the first 64-PSN block of the hole at 5)
# dropped on arrival, 10 and 40 NACKed TRIMMED, 20 and 60 NO_PKT_BUFFER.
test_loss_module_sends() {
	local rc=0

	netem add "${LOSS[@]}" || { echo "tc qdisc add ... netem ${LOSS[*]} failed"; return 1; }
	echo "netem ${LOSS[*]} on veth-a and veth-b"
	module_to_peer 4099 8195 16777200 16777000 --drop 5,70 \
		--nack-trimmed 10,40 --nack-nobuf 20,60 || rc=1
	netem_off
	[ "$rc" -eq 0 ] || return 1
	check_all app.out peer.out || rc=1
	at_least "the peer's NACKs sent, TRIMMED" "$(peer_stat nack_01)" 1 || rc=1
	at_least "the peer's NACKs sent, NO_PKT_BUFFER" "$(peer_stat nack_07)" 1 || rc=1
	at_least "the peer's SACKs with holes (packets dropped)" \
		"$(peer_stat dropped_injected)" 2 || rc=1
	at_least "the module's OutRetrans rise" "$(delta OutRetrans)" 1 || rc=1
	at_least "the module's InNacks rise" "$(delta InNacks)" 1 || rc=1
	at_least "the module's TrimRetrans rise" "$(delta TrimRetrans)" 1 || rc=1
	return "$rc"
}

# 4. Loss both ways; the peer leaves packet 2 out (the module holds the
# 9000-byte message's others, 3 to 8, as its window still allows them),
# sends packets 3, 50 and 70 trimmed, and sends past the window of a
# reader that sleeps on a small buffer for two seconds once the first
# message is in.
test_loss_peer_sends() {
	local rc=0

	netem add "${LOSS[@]}" || { echo "tc qdisc add ... netem ${LOSS[*]} failed"; return 1; }
	echo "netem ${LOSS[*]} on veth-a and veth-b"
	peer_to_module 4100 8196 16777215 3 --rcvbuf 16384 --read-delay 2 -- \
		--send-lost 2 --send-trimmed 3,50,70 --ignore-rwnd || rc=1
	netem_off
	[ "$rc" -eq 0 ] || return 1
	check_all peer.out app.out || rc=1
	at_least "the peer's packets sent again for SACK holes" \
		"$(peer_stat rtx_sack)" 1 || rc=1
	at_least "the peer's packets sent again for NACKs" \
		"$(peer_stat rtx_nack)" 2 || rc=1
	at_least "NACKs TRIMMED the peer received" "$(peer_stat rx_nack_01)" 1 || rc=1
	at_least "NACKs NO_PKT_BUFFER the peer received" "$(peer_stat rx_nack_07)" 1 || rc=1
	at_least "the module's InTrimmed rise" "$(delta InTrimmed)" 1 || rc=1
	at_least "the module's OutNacks rise" "$(delta OutNacks)" 2 || rc=1
	return "$rc"
}

if [ "$(id -u)" -ne 0 ]; then
	echo "interop10.sh needs root"
	exit "$KSFT_SKIP"
fi
mrc_loaded || { echo "mrc.ko is not loaded"; exit "$KSFT_SKIP"; }
command -v tc > /dev/null || { echo "tc is not installed"; exit "$KSFT_SKIP"; }
python3 -c 'import scapy' 2> /dev/null || { echo "python3 has no scapy"; exit "$KSFT_SKIP"; }
modprobe tun 2> /dev/null
[ -c /dev/net/tun ] || { echo "no /dev/net/tun: this kernel has no TUN"; exit "$KSFT_SKIP"; }
PORT=$(cat /sys/module/mrc/parameters/udp_port)
LIMIT=$(slow_limit 60)

ktap_begin 4
echo "# seed $SEED (MRC_SEED=$SEED repeats it), namespaces $A and $B, the module's UDP port $PORT"
if ! setup; then
	echo "# setup of the namespaces failed"
	exit "$KSFT_FAIL"
fi
for c in $BAD $SHOWN; do
	grep -q "^$c " /proc/net/mrc_stat || { echo "# /proc/net/mrc_stat has no $c"; exit "$KSFT_FAIL"; }
done
run_test "module sends, peer receives: 4 messages of 1 to 100000 bytes, the module's PSNs wrap" \
	test_module_sends
run_test "peer sends, module receives: 4 messages of 1 to 100000 bytes, the peer's PSNs wrap" \
	test_peer_sends
run_test "module sends under netem ${LOSS[*]}, the peer drops and NACKs (TRIMMED, NO_PKT_BUFFER)" \
	test_loss_module_sends
run_test "peer sends under netem ${LOSS[*]}, trimmed packets and a full receive buffer (NO_PKT_BUFFER)" \
	test_loss_peer_sends
ktap_end
