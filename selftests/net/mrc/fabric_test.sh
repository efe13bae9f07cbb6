#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fabric of fabric.sh, without MRC sockets: a 2-host, 4-plane fabric
# where plain IPv6 takes plane 1 and an SRv6 route through any spine's SID
# takes that plane (the SRH checked in captures on the spine with
# pcap_mrc.py), a link going down and up again, per-link qdiscs (counters
# only, never timing), MTU, the MRC paths fab_paths adds (when mrc.ko is
# loaded), and an 8-host, 8-plane fabric that builds and tears down
# without leaving a namespace. Needs root, tc, tcpdump and ping.

# Test functions run through run_test, which shellcheck cannot follow.
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=fabric.sh
source "$(dirname "$0")"/fabric.sh

H1=$(fab_host_addr 1)
H2=$(fab_host_addr 2)
UDP_PORT=4797
tmp=$(mktemp -d)

cleanup() {
	fab_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit "$KSFT_FAIL"' INT TERM

# run_here NAME FUNCTION [ARGS...]: run_test, but FUNCTION runs in this
# shell, so that what it sets up (the fabric) stays. Lines that already
# are KTAP diagnostics are passed on as they are.
run_here() {
	local name=$1 rc

	shift
	"$@" > "$tmp/out" 2>&1
	rc=$?
	sed -E 's/^([^#]|$)/# \1/' "$tmp/out"
	if [ "$rc" -eq 0 ]; then
		ktap_result pass "$name"
	elif [ "$rc" -eq "$KSFT_SKIP" ]; then
		ktap_result skip "$name"
	else
		ktap_result fail "$name"
	fi
}

have_fabric() {
	[ "$FAB_H" -gt 0 ] || { echo "no fabric (fab_up failed)"; return 1; }
}

# pcap_check FILE EXPR [PCAP_MRC-ARGS...]: EXPR, a Python expression on
# what pcap_mrc.py ARGS FILE prints, as d, is true. One Python process:
# pcap_mrc is imported.
pcap_check() {
	local file=$1 expr=$2

	shift 2
	python3 - "$MRC_SELFTEST_DIR" "$expr" "$@" "$file" <<-'EOF'
	import json, sys
	sys.dont_write_bytecode = True
	sys.path.insert(0, sys.argv[1])
	import pcap_mrc
	d = pcap_mrc.run(sys.argv[3:])
	if not eval(sys.argv[2]):
	    print("not true of pcap_mrc.py %s: %s" % (" ".join(sys.argv[3:]), sys.argv[2]))
	    print(json.dumps(d)[:2000])
	    sys.exit(1)
	EOF
}

# qdisc_packets NS DEV KIND: packets sent by the qdisc of KIND on DEV (the
# "Sent" line that follows its "qdisc KIND" line in tc -s).
qdisc_packets() {
	local line kind="" n=0

	while read -r line; do
		if [[ $line =~ ^qdisc\ ([^ ]+) ]]; then
			kind=${BASH_REMATCH[1]}
		elif [[ $kind = "$3" && $line =~ ^Sent\ [0-9]+\ bytes\ ([0-9]+)\ pkt ]]; then
			n=$((n + BASH_REMATCH[1]))
		fi
	done <<< "$(tc -n "$1" -s qdisc show dev "$2")"
	echo "$n"
}

# srv6_route H DEST-HOST SID: host H reaches DEST-HOST through SID, with an
# inline SRH. The route is on mrc0, not on a link, so that a link going
# down does not remove it: the lookup of the SID picks the link.
srv6_route() {
	ip -n "$(fab_ns_host "$1")" -6 route replace "$(fab_host_addr "$2")/128" \
		encap seg6 mode inline segs "$3" dev mrc0
}

# plain_route H DEST-HOST: back to the fabric's own route (plane 1).
plain_route() {
	ip -n "$(fab_ns_host "$1")" -6 route del "$(fab_host_addr "$2")/128" 2>/dev/null
	return 0
}

test_up() {
	fab_up 2 4
}

# Every interface of every namespace has seg6_enabled=1; spines forward.
test_sysctls() {
	local ns bad

	have_fabric || return 1
	for ns in $(fab_namespaces); do
		# shellcheck disable=SC2016 # the inner shell expands
		bad=$(nsenter --net="/run/netns/$ns" sh -c 'for f in /proc/sys/net/ipv6/conf/*/seg6_enabled; do
			[ "$(cat "$f")" = 1 ] || echo "$f"; done')
		if [ -n "$bad" ]; then
			echo "$ns: seg6_enabled is not 1 in: $bad"
			return 1
		fi
	done
	[ "$(fab_exec_spine 1 sysctl -n net.ipv6.conf.h2.forwarding)" = 1 ] ||
		{ echo "spine 1 does not forward"; return 1; }
}

# Plain IPv6 from host 1 to host 2 works and goes up plane 1, no SRH.
test_plain() {
	local cap=$tmp/plain.pcap

	have_fabric || return 1
	fab_capture_start 1 1 up "$cap" || return 1
	fab_ping 1 2 2 || { fab_capture_stop "$cap"; return 1; }
	fab_capture_stop "$cap" || return 1
	pcap_check "$cap" 'len(d) == 2 and all(p["srh"] is None and p["icmp_type"] == 128 for p in d)' \
		--src "$H1" --dst "$H2"
}

# test_plane K: an SRv6 route through a random SID of spine K: ping works,
# and spine K sees the echo requests carry the SRH [SID, host 2].
test_plane() {
	local k=$1 j sid cap=$tmp/plane$1.pcap rc=0

	have_fabric || return 1
	fab_random j 64
	sid=$(fab_sid "$k" "$j")
	echo "SID $sid"
	srv6_route 1 2 "$sid" || return 1
	fab_capture_start "$k" 1 up "$cap" || return 1
	fab_ping 1 2 2 || rc=1
	fab_capture_stop "$cap" || rc=1
	plain_route 1 2
	[ "$rc" -eq 0 ] || return 1
	pcap_check "$cap" "len(d) == 2 and all(p['srh']['segments'] == ['$sid', '$H2'] and
		p['srh']['segments_left'] == 1 and p['dst'] == '$sid' and p['proto'] == 'icmpv6' and
		p['icmp_type'] == 128 for p in d)" --src "$H1" --srh-only
}

# Down on host 1's link to plane 2: the SRv6 route through spine 2 has no
# way out, the one through spine 1 still works.
test_link_down() {
	have_fabric || return 1
	fab_link_state 1 2 down || return 1
	srv6_route 1 2 "$(fab_sid 2)" || return 1
	if fab_ping 1 2 > /dev/null; then
		echo "ping through plane 2 works with its link down"
		return 1
	fi
	srv6_route 1 2 "$(fab_sid 1)" || return 1
	fab_ping 1 2 || { echo "ping through plane 1 fails"; return 1; }
}

test_link_up() {
	have_fabric || return 1
	fab_link_state 1 2 up || return 1
	srv6_route 1 2 "$(fab_sid 2)" || return 1
	fab_ping 1 2 || { echo "ping through plane 2 fails after the link came back"; return 1; }
	plain_route 1 2
}

# Host 1's link to plane 3 deleted (no device left at either end), then
# created anew: SRv6 through spine 3 works again, with SRH processing on
# the new devices.
test_link_readd() {
	have_fabric || return 1
	fab_link_state 1 3 del || return 1
	if ip -n "$(fab_ns_host 1)" link show dev p3 > /dev/null 2>&1 ||
	   ip -n "$(fab_ns_spine 3)" link show dev h1 > /dev/null 2>&1; then
		echo "a device of the deleted link is still there"
		return 1
	fi
	srv6_route 1 2 "$(fab_sid 3)" || return 1
	if fab_ping 1 2 > /dev/null; then
		echo "ping through plane 3 works with its link deleted"
		return 1
	fi
	fab_link_state 1 3 add || return 1
	srv6_route 1 2 "$(fab_sid 3)" || return 1
	fab_ping 1 2 || { echo "ping through plane 3 fails after the link was re-created"; return 1; }
	plain_route 1 2
}

# netem delay on host 1's uplink to plane 3: the pings through spine 3
# went through it (its counters), and clearing it leaves the default.
test_netem() {
	local ns n

	have_fabric || return 1
	ns=$(fab_ns_host 1)
	fab_link_qdisc 1 3 up netem delay 20ms || return 1
	srv6_route 1 2 "$(fab_sid 3)" || return 1
	fab_ping 1 2 3 || return 1
	plain_route 1 2
	n=$(qdisc_packets "$ns" p3 netem)
	tc -n "$ns" -s qdisc show dev p3
	[ "$n" -ge 3 ] || { echo "netem on p3 sent $n packets, not 3 or more"; return 1; }
	fab_link_clear 1 3 up || return 1
	if tc -n "$ns" qdisc show dev p3 | grep -q netem; then
		echo "netem still on p3 after fab_link_clear"
		return 1
	fi
}

# A blackhole on host 1's uplink to plane 3 (a drop filter at spine 3's
# ingress): pings through spine 3 fail while it stands, although host 1's
# shaping tbf still sends them, and pass again once it is removed, with
# the tbf left in place.
test_blackhole() {
	local ns n

	have_fabric || return 1
	ns=$(fab_ns_host 1)
	fab_link_shape 1 3 up 100mbit || return 1
	srv6_route 1 2 "$(fab_sid 3)" || return 1
	fab_link_blackhole 1 3 up || return 1
	if fab_ping 1 2 > /dev/null; then
		echo "ping through plane 3 works while it is blackholed"
		fab_link_unblackhole 1 3 up
		return 1
	fi
	n=$(qdisc_packets "$ns" p3 tbf)
	fab_link_unblackhole 1 3 up || return 1
	fab_ping 1 2 || { echo "ping through plane 3 fails after the heal"; return 1; }
	plain_route 1 2
	tc -n "$ns" qdisc show dev p3 | grep -q tbf ||
		{ echo "the tbf on p3 is gone after the heal"; return 1; }
	fab_link_clear 1 3 up
	[ "$n" -ge 1 ] || { echo "the tbf on p3 sent $n packets while blackholed"; return 1; }
}

# A shaped downlink (spine 4 to host 2): netem delay with a tbf child,
# both of which the pings through spine 4 go through.
test_shape() {
	local ns n m

	have_fabric || return 1
	ns=$(fab_ns_spine 4)
	fab_link_shape 2 4 down 100mbit 5ms || return 1
	srv6_route 1 2 "$(fab_sid 4)" || return 1
	fab_ping 1 2 3 || return 1
	plain_route 1 2
	tc -n "$ns" -s qdisc show dev h2
	n=$(qdisc_packets "$ns" h2 netem)
	m=$(qdisc_packets "$ns" h2 tbf)
	fab_link_clear 2 4 down
	if [ "$n" -lt 3 ] || [ "$m" -lt 3 ]; then
		echo "netem sent $n and tbf $m packets, not 3 or more each"
		return 1
	fi
}

# fab_mtu reaches every end of every link, and a big ping fits.
test_mtu() {
	local ns n rc=0

	have_fabric || return 1
	fab_mtu 9000 || return 1
	for ns in $(fab_namespaces); do
		n=$(ip -n "$ns" -o link show | grep -E '^[0-9]+: [ph][0-9]+@' | grep -vc 'mtu 9000 ')
		[ "$n" -eq 0 ] || { echo "$ns: $n links without MTU 9000"; rc=1; }
	done
	fab_exec_host 1 ping -6 -q -c 1 -s 8000 -M 'do' -W "$(slow_limit 2)" -I "$H1" "$H2" > /dev/null ||
		{ echo "8000-byte ping with MTU 9000 fails"; rc=1; }
	fab_mtu 1500 || rc=1
	return "$rc"
}

# UDP through an SRv6 route, as MRC sends it: pcap_mrc.py finds the SRH,
# the ports and the first bytes of the payload.
test_pcap_udp() {
	local sid cap=$tmp/udp.pcap rc=0

	have_fabric || return 1
	sid=$(fab_sid 2 1)
	srv6_route 1 2 "$sid" || return 1
	fab_capture_start 2 2 down "$cap" || return 1
	fab_exec_host 1 python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 40123))
for i in range(3):
	s.sendto(bytes([2, 5]) + bytes(30), (sys.argv[2], int(sys.argv[3])))' "$H1" "$H2" "$UDP_PORT" || rc=1
	# sendto() returns before the datagrams reach the spine.
	wait_for 10 pcap_check "$cap" 'len(d) == 3' --udp-port "$UDP_PORT" > /dev/null || rc=1
	fab_capture_stop "$cap" || rc=1
	plain_route 1 2
	[ "$rc" -eq 0 ] || return 1
	pcap_check "$cap" "d == [{'segs': ['$sid', '$H2'], 'sport': 40123, 'flowlabel': d[0]['flowlabel'],
		'count': 3}]" --udp-port "$UDP_PORT" --summary || return 1
	pcap_check "$cap" "all(p['dport'] == $UDP_PORT and p['mrc'] == {'version': 2, 'type': 5} and
		p['udp_len'] == 40 and p['srh']['segments_left'] == 0 and p['dst'] == '$H2' for p in d)" \
		--udp-port "$UDP_PORT"
}

# fab_paths 1 2 2: 4 planes x 2 SIDs, id = j * K + k.
test_paths() {
	local ns

	have_fabric || return 1
	mrc_loaded || { echo "mrc.ko is not loaded"; return "$KSFT_SKIP"; }
	[ -x "$FAB_MRC" ] || { echo "$FAB_MRC is missing: run make tools"; return 1; }
	ns=$(fab_ns_host 1)
	fab_paths 1 2 2 || return 1
	"$FAB_MRC" -n "$ns" -j path show > "$tmp/paths.json" || return 1
	"$FAB_MRC" -n "$ns" path flush
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
want = {j * 4 + k: ["fd00:%x::e%02x" % (k, j)] for j in range(2) for k in range(1, 5)}
got = {p["id"]: p["segs"] for s in d if s["prefix"] == sys.argv[2] + "/128" for p in s["paths"]}
if got != want:
	print("paths", got, "not", want)
	sys.exit(1)' "$tmp/paths.json" "$H2"
}

test_down() {
	fab_down
}

# 8 hosts x 8 planes: up, one random pair of hosts over one random plane's
# SRv6 route, down, and no namespace left.
test_8x8() {
	local a b k rc=0 t=$SECONDS

	fab_up 8 8 || return 1
	echo "up in $((SECONDS - t))s"
	fab_random a 8
	fab_random b 7
	fab_random k 8
	a=$((a + 1)) k=$((k + 1))
	b=$(((a + b) % 8 + 1))
	echo "host $a to host $b through spine $k"
	srv6_route "$a" "$b" "$(fab_sid "$k")" || rc=1
	fab_ping "$a" "$b" || rc=1
	t=$SECONDS
	fab_down || rc=1
	echo "down in $((SECONDS - t))s"
	return "$rc"
}

if [ "$(id -u)" -ne 0 ]; then
	echo "fabric_test.sh needs root"
	exit "$KSFT_SKIP"
fi
for c in tc tcpdump ping python3; do
	command -v "$c" > /dev/null || { echo "$c is not installed"; exit "$KSFT_SKIP"; }
done

PLANES=4
ktap_begin $((13 + PLANES))
run_here "fabric of 2 hosts x $PLANES planes comes up" test_up
run_test "seg6_enabled on every interface, spines forward" test_sysctls
run_test "plain ping host 1 -> host 2 goes up plane 1 without SRH" test_plain
for ((k = 1; k <= PLANES; k++)); do
	# Each draws its SID from the seeded generator: run it here.
	run_here "SRv6 route through spine $k: ping, and the SRH seen on spine $k" test_plane "$k"
done
run_test "link down on plane 2: SRv6 via plane 2 fails, via plane 1 works" test_link_down
run_test "link up on plane 2: SRv6 via plane 2 works again" test_link_up
run_test "link to plane 3 deleted, then created anew: SRv6 works again" test_link_readd
run_test "netem delay on an uplink: the pings went through it" test_netem
run_test "tbf under netem on a downlink: the pings went through both" test_shape
run_test "blackhole on an uplink: pings fail, its tbf still sends; healed in one change" test_blackhole
run_test "fab_mtu 9000 on every link end" test_mtu
run_test "pcap_mrc.py: UDP through an SRv6 route" test_pcap_udp
run_test "fab_paths: 4 planes x 2 SIDs with ids j*K+k" test_paths
run_here "fabric torn down, no namespace left" test_down
run_here "8 hosts x 8 planes: up, SRv6 ping, down, nothing left" test_8x8
ktap_end
