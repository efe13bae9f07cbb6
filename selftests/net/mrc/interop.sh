#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# interop.sh: two guests, usually of different kernels, joined by a
# virtio-net link (tools/testing/vm-pair runs it in both, with MRC_PEER=a
# in one and MRC_PEER=b in the other). Not in tests.list: it needs a peer.
#
# Each guest n (1 for a, 2 for b; the peer is m) is a router and a host:
#
#   host namespace mrcx-h          root namespace (the router)
#   fd00:ff::n on mrc0             SIDs fd00:n::e01..e04 (End, on sid0)
#   up0 fd00:n:1::2 ---- veth ---- h0 fd00:n:1::1
#                                  eth0 fd00::n (virtio-net) ==== the peer
#
# The host has four MRC paths toward the peer's host, path k through its
# own router's SID k and then the peer's: segments fd00:n::e0k,
# fd00:m::e0k. Every packet with an SRH that arrives on eth0 (MRC's: ND and
# the barriers' TCP have none) passes an ingress filter that drops those
# for this guest's SID 2 while plane 2 is down (the filter's action is
# switched to a gact drop) and then netem on ifb0: 1% loss, 2 ms +- 1 ms
# of delay, which reorders. GRO may have merged packets of one path into
# one buffer by then, which a tc drop counts once; so every drop is counted
# in packets, from the packet counts of tc's statistics, which count a
# merged buffer's packets: plane 2's drops are what the drop action saw,
# netem's what the redirect to ifb0 passed less what netem sent on
# (nothing is left queued once the transfers are over). Over a case,
#
#   the MRC packets the peer sent (its OutPkts)
#     = those this guest received (InPkts) + plane 2's drops + netem's
#
# which each guest checks for the direction toward it, after the two have
# swapped their counters at a barrier (peer_sync.py, over the link), and
# that it refused none of the peer's packets as malformed nor took any
# for a trimmed one (nothing trims here): a wire disagreement between the
# two builds shows there.
#
# Cases: the link works (1); MRC both ways at once, every byte checked,
# with the NIC's offloads on (2) and their counters (3); plane 2 failing
# and healing during the transfers, on both sides at once (4, 5); the NIC's
# offloads off with ethtool -K (6, 7). Both guests run every case and meet
# at every barrier, whatever failed; once a barrier times out, the rest
# fail at once.

# Test functions run through run_test, which shellcheck cannot follow;
# awk programs are in single quotes on purpose.
# shellcheck disable=SC2317,SC2016
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")"/lib.sh

MRCPERF=$MRC_TOP/build/tools/mrcperf
MRC=$MRC_TOP/build/tools/mrc
SYNC=$MRC_SELFTEST_DIR/peer_sync.py
NS=mrcx-h
K=4
# The plane that fails in case 4.
DOWN=2
# The indexes of the gact actions that pass or drop it, and of the
# redirect to netem.
GACT_PASS=7002
GACT_DROP=7003
MIRRED=7004
# 64 KiB messages, per connection; two connections each way.
COUNT=$(slow_count 100)
# How long the transfers of case 4 send: plane 2 fails and heals within.
FAIL_SECS=$(($(slow_count 8) + 4))

case "${MRC_PEER:-}" in
a) me=1 peer=2 ;;
b) me=2 peer=1 ;;
*)
	echo "interop.sh runs in the two guests of tools/testing/vm-pair (MRC_PEER=a or b)"
	exit "$KSFT_SKIP"
	;;
esac
role=$MRC_PEER
peer_role=a
[ "$role" = a ] && peer_role=b
peer_wire=fd00::$peer
peer_host=fd00:ff::$peer
tmp=$(mktemp -d)
dev=""
peer_lost=0

cleanup() {
	ns_del "$NS"
	rm -rf "$tmp"
}
trap cleanup EXIT

# barrier NAME [SEND RECV]: wait for the peer at NAME, swapping the file
# SEND for the peer's RECV. After one barrier that timed out, every later
# one fails at once: the peer is gone or out of step.
barrier() {
	local args=()

	[ "$peer_lost" = 0 ] || return 1
	[ $# -ge 3 ] && args=(--send "$2" --recv "$3")
	if ! python3 "$SYNC" "$role" "$peer_wire" "$1" --timeout "$(slow_limit 60)" "${args[@]}"; then
		peer_lost=1
		return 1
	fi
}

setup() {
	local k c cmds="" sysctls=()

	dev=$(virtio_nic) || { echo "no virtio-net NIC: run under tools/testing/vm-pair"; return 1; }
	for c in sch_netem ifb act_gact act_mirred cls_flower cls_u32; do
		modprobe "$c" || return 1
	done
	ip netns add "$NS" || return 1
	for c in all default lo "$dev"; do
		sysctls+=("net.ipv6.conf.$c.seg6_enabled=1" "net.ipv6.conf.$c.accept_dad=0"
			  "net.ipv6.conf.$c.accept_ra=0")
	done
	sysctl -q -w "${sysctls[@]}" net.ipv6.conf.all.forwarding=1 \
		net.core.netdev_max_backlog=10000 > /dev/null || return 1
	ip netns exec "$NS" sysctl -q -w net.ipv6.conf.all.seg6_enabled=1 \
		net.ipv6.conf.default.seg6_enabled=1 net.ipv6.conf.lo.seg6_enabled=1 \
		net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.all.accept_dad=0 \
		> /dev/null || return 1
	ip -6 -batch - <<-EOF || return 1
		link set $dev up
		addr add fd00::$me/64 dev $dev nodad
		link add sid0 type dummy
		link set sid0 up
		route add fd00:$me::e00/120 encap seg6local action End dev sid0
		link add h0 type veth peer name up0 netns $NS
		link set h0 up
		addr add fd00:$me:1::1/64 dev h0 nodad
		route add fd00:ff::$me/128 via fd00:$me:1::2 dev h0
		route add fd00:ff::$peer/128 via $peer_wire dev $dev
		route add fd00:$peer::/32 via $peer_wire dev $dev
		link add ifb0 type ifb
		link set ifb0 up
	EOF
	ip -6 -n "$NS" -batch - <<-EOF || return 1
		link set lo up
		link add mrc0 type dummy
		link set mrc0 up
		addr add fd00:ff::$me/128 dev mrc0 nodad
		link set up0 up
		addr add fd00:$me:1::2/64 dev up0 nodad
		route add default via fd00:$me:1::1 dev up0 src fd00:ff::$me
	EOF
	# What arrives with an SRH: plane 2's switch, then netem.
	tc -batch - <<-EOF || return 1
		actions add action gact pass index $GACT_PASS
		actions add action gact drop index $GACT_DROP
		actions add action mirred egress redirect dev ifb0 index $MIRRED
		qdisc add dev ifb0 root netem delay 2ms 1ms loss 1% limit 10000
		qdisc add dev $dev clsact
		filter add dev $dev ingress pref 1 handle 1 protocol ipv6 flower dst_ip fd00:$me::e0$DOWN action gact index $GACT_PASS
		filter add dev $dev ingress pref 2 protocol ipv6 u32 match ip6 protocol 43 0xff action mirred index $MIRRED
	EOF
	for ((k = 1; k <= K; k++)); do
		cmds+="path add $peer_host/128 segs fd00:$me::e0$k,fd00:$peer::e0$k id $k"$'\n'
	done
	"$MRC" -n "$NS" -b - <<< "$cmds" || return 1
	wait_for 10 ip netns exec "$NS" ip -6 route get "$peer_host" > /dev/null
}

# plane_down drop|pass: plane 2's switch, this guest's side of it. The
# filter's action is replaced at once, so that the drop action sees only
# what it drops.
plane_down() {
	local index=$GACT_PASS

	[ "$1" = drop ] && index=$GACT_DROP
	tc filter replace dev "$dev" ingress pref 1 handle 1 protocol ipv6 \
		flower dst_ip "fd00:$me::e0$DOWN" action gact index "$index"
}

# The packets of a tc statistics line, "Sent B bytes P pkt ...", as "n P":
# a buffer that GRO merged counts as its packets there.
tc_packets='/Sent/ { for (i = 1; i < NF; i++) if ($i == "pkt") { print n, $(i - 1); exit } }'

# The packets the CPUs' backlogs dropped (the second column of
# softnet_stat, in hex).
softnet_dropped() {
	local d n=0

	while read -r _ d _; do
		n=$((n + 16#$d))
	done < /proc/net/softnet_stat
	echo "$n"
}

# counters FILE: this guest's side of a case, one "NAME VALUE" a line: the
# host's MRC counters, then what the link dropped before it (plane 2's
# switch, netem) and elsewhere (the NIC, the backlog), for the record.
counters() {
	{
		ip netns exec "$NS" cat /proc/net/mrc_stat
		tc -s actions get action gact index "$GACT_DROP" | awk -v n=LinkPlaneDropped "$tc_packets"
		tc -s actions get action mirred index "$MIRRED" | awk -v n=LinkToNetem "$tc_packets"
		tc -s qdisc show dev ifb0 | awk -v n=LinkFromNetem "$tc_packets"
		echo "BacklogDropped $(softnet_dropped)"
		echo "NicRxDropped $(cat "/sys/class/net/$dev/statistics/rx_dropped")"
	} > "$1"
}

# delta BEFORE AFTER NAME: how much counter NAME grew between two files.
delta() {
	awk -v n="$3" 'FNR == NR && $1 == n { b = $2 } FNR != NR && $1 == n { a = $2 }
		END { print a - b }' "$1" "$2"
}

# counters_agree CASE: swap the counters of CASE (transfers) with the
# peer's at a barrier, and check the direction toward this guest. The
# barriers come first, whatever is missing, so that the guests stay in
# step.
counters_agree() {
	local c=$1 b=$tmp/$1.before a=$tmp/$1.after
	local pb=$tmp/$1.peer-before pa=$tmp/$1.peer-after
	local sent got plane netem bad=0 n v

	touch "$b" "$a"
	barrier "$c-before" "$b" "$pb" && barrier "$c-after" "$a" "$pa" || return 1
	if ! [ -s "$b" ] || ! [ -s "$a" ] || ! [ -s "$pb" ] || ! [ -s "$pa" ]; then
		echo "no counters: the connections of this case never closed on one side"
		return 1
	fi
	[ -n "${VM_RUN_OUT:-}" ] && cp "$b" "$a" "$VM_RUN_OUT"/
	sent=$(delta "$pb" "$pa" OutPkts)
	got=$(delta "$b" "$a" InPkts)
	plane=$(delta "$b" "$a" LinkPlaneDropped)
	netem=$(($(delta "$b" "$a" LinkToNetem) - $(delta "$b" "$a" LinkFromNetem)))
	echo "$peer_role -> $role: $peer_role sent $sent MRC packets; $role received $got, the link dropped $netem (netem) and $plane (plane $DOWN down); also dropped: backlog +$(delta "$b" "$a" BacklogDropped), NIC +$(delta "$b" "$a" NicRxDropped)"
	echo "  $peer_role: $(grown "$pb" "$pa" 'OutPkts|OutData|OutDataSkbs|OutAcks|OutRetrans|PathsRetired|PathsRestored|RackLost|PathTimeLost|Rto')"
	echo "  $role: $(grown "$b" "$a" 'InPkts|InData|InDataBatches|InAcks|DropDup|InOutOfOrder|PathsRetired|PathsRestored|RackLost|PathTimeLost|Rto')"
	[ "$sent" -gt 0 ] || { echo "the peer sent nothing"; bad=1; }
	if [ "$sent" -ne $((got + plane + netem)) ]; then
		echo "$sent sent != $got received + $netem + $plane dropped: the two sides disagree"
		bad=1
	fi
	# Whatever one side sends, the other parses: no packet of the
	# peer's is refused as malformed, and none is taken for a trimmed
	# one (shorter than its header says), since nothing trims here.
	for n in DropShort DropVersion DropType DropBadMsg DropBadSrh DropBadCid DropPsnWindow InTrimmed; do
		v=$(delta "$b" "$a" "$n")
		[ "$v" = 0 ] || { echo "$n +$v: packets of the peer's refused or misread"; bad=1; }
	done
	return "$bad"
}

# grown BEFORE AFTER REGEX: "NAME +N" for each counter matching REGEX
# that grew between two counters files.
grown() {
	awk -v re="^($3)\$" 'FNR == NR { b[$1] = $2; next }
		$1 ~ re && $2 != b[$1] { printf "%s +%d ", $1, $2 - b[$1] }' "$1" "$2"
}

quiet() {
	mrc_sockets_gone "$NS" &&
		! "$MRC" -n "$NS" path show | grep -q 'state [^g]'
}

# retired_since SNAPSHOT, restored_since SNAPSHOT: PathsRetired or
# PathsRestored grew since the mrc_mib_read SNAPSHOT.
retired_since() {
	local b=${1#*PathsRetired=}

	[ "$(mrc_mib "$NS" PathsRetired)" -gt "${b%% *}" ]
}

restored_since() {
	local b=${1#*PathsRestored=}

	[ "$(mrc_mib "$NS" PathsRestored)" -gt "${b%% *}" ]
}

# transfers CASE [SECS [fail]]: this guest's server, then (once the
# peer's is up) its client, both ways at once: two connections of COUNT
# messages of 64 KiB (or for SECS seconds), every byte checked. With fail,
# plane 2 goes down on both sides once both clients run, and comes back
# once this side retired its path. Leaves the counters before and after
# in $tmp/CASE.{before,after}, the latter taken once both guests are
# quiet: no MRC socket left, every path good (no probes). The barriers
# are the same whatever fails, so that the guests stay in step.
transfers() {
	local c=$1 secs=${2:-} fail=${3:-} len=(-n "$COUNT") spid cpid=""
	local crc src bad=0 before quiet=0

	[ -n "$secs" ] && len=(-t "$secs")
	rm -f "$tmp/ready"
	counters "$tmp/$c.before"
	before=$(mrc_mib_read "$NS" PathsRetired PathsRestored)
	ip netns exec "$NS" "$MRCPERF" -s -1 --ready "$tmp/ready" --timeout "$(slow_limit 15)" \
		> "$tmp/$c.server" 2>&1 &
	spid=$!
	wait_ready "$spid" "$tmp/ready" || bad=1
	barrier "$c-servers-up" || return 1
	if [ "$bad" = 0 ]; then
		ip netns exec "$NS" "$MRCPERF" -c "$peer_host" -P 2 -l 64K "${len[@]}" \
			--verify -j --timeout "$(slow_limit 15)" > "$tmp/$c.client" 2>&1 &
		cpid=$!
	fi
	if [ -n "$fail" ]; then
		barrier "$c-fail" || return 1
		plane_down drop || bad=1
		# This side's path 2 dies at the peer's switch: retired here,
		# which only traffic on it can do.
		wait_for 30 retired_since "$before" || { echo "plane $DOWN was never retired"; bad=1; }
		barrier "$c-heal" || return 1
		plane_down pass || bad=1
	fi
	if [ -n "$cpid" ]; then
		wait "$cpid"
		crc=$?
		wait "$spid"
		src=$?
		python3 -c 'import json, sys
try:
	r = json.load(open(sys.argv[1]))
except ValueError:
	sys.exit(print("%s: no report from the client" % sys.argv[2]))
print("%s: %d messages of 64 KiB, %.1f Mbit/s, %d verify errors%s" % (sys.argv[2],
      r["messages"], r["goodput_mbps"], r["verify_errors"],
      ("; " + r["error"]) if "error" in r else ""))' "$tmp/$c.client" "$role -> $peer_role"
		if [ "$crc" -ne 0 ] || [ "$src" -ne 0 ]; then
			echo "$role -> $peer_role: client exit $crc; $peer_role -> $role: server exit $src"
			grep -E 'error|result' "$tmp/$c.server" | head -n 3
			bad=1
		fi
	fi
	# The counters after, for the next case, whatever failed: they say
	# what was refused.
	wait_for 60 quiet && quiet=1 || { "$MRC" -n "$NS" -s conn show | head -n 20; bad=1; }
	if [ -n "$fail" ]; then
		echo "$role: $(mrc_mib_deltas "$NS" "$before")"
		if ! retired_since "$before" || ! restored_since "$before"; then
			echo "plane $DOWN was not both retired and restored"
			bad=1
		fi
	fi
	barrier "$c-quiet" || return 1
	[ "$quiet" = 1 ] && counters "$tmp/$c.after"
	return "$bad"
}

test_link() {
	local out

	barrier link || return 1
	out=$(ip netns exec "$NS" ping -6 -q -n -c 3 -i 0.2 -W "$(slow_limit 2)" "$peer_host" 2>&1)
	[[ $out == *" 3 received"* ]] || { echo "$out"; return 1; }
	echo "$dev offloads: $(ethtool -k "$dev" | grep -E '^(tx-checksumming|scatter-gather|tcp-segmentation-offload|generic-segmentation-offload|generic-receive-offload):' | tr '\n' ' ')"
}

# The transfers again, with the NIC's offloads off; the barriers of the
# transfers even if ethtool failed, to stay in step.
test_offloads_off() {
	local out bad=0

	out=$(ethtool -K "$dev" tx off sg off tso off gso off gro off 2>&1) || { echo "$out"; bad=1; }
	echo "$dev offloads: $(ethtool -k "$dev" | grep -E '^(tx-checksumming|scatter-gather|tcp-segmentation-offload|generic-segmentation-offload|generic-receive-offload):' | tr '\n' ' ')"
	transfers "$1" || bad=1
	return "$bad"
}

[ -x "$MRCPERF" ] && [ -x "$MRC" ] || { echo "mrcperf or mrc is missing: run make tools"; exit "$KSFT_SKIP"; }
ktap_begin 7
if ! setup; then
	echo "# setup failed"
	peer_lost=1
fi
run_test "the link: each guest's host reaches the other's" test_link
run_test "offloads on: MRC both ways at once over $K SRv6 paths, lossy and reordering, every byte checked" \
	transfers on
run_test "offloads on: what one side sent is what the other received plus what the link dropped" \
	counters_agree on
run_test "plane $DOWN fails during the transfers and heals: retired and restored on both sides, every byte checked" \
	transfers fail "$FAIL_SECS" fail
run_test "plane $DOWN down: what one side sent is what the other received plus what the link dropped" \
	counters_agree fail
run_test "offloads off (ethtool -K): MRC both ways at once, every byte checked" \
	test_offloads_off off
run_test "offloads off: what one side sent is what the other received plus what the link dropped" \
	counters_agree off
if [ -n "${VM_RUN_OUT:-}" ]; then
	echo "$ktap_pass $ktap_fail $ktap_skip" > "$VM_RUN_OUT/counts"
fi
ktap_end
