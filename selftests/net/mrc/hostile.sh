#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile packets: host 1 sends host 2 64 MB over one plane of the test
# fabric (an SRv6 spine; links shaped to LINK_RATE), content-checked by
# mrcperf --verify. The spine, on the path and so knowing addresses,
# connection ids and PSNs, injects hostile packets into both hosts with
# the peer's source address (hostile.py, scapy): first while data flows,
# then, for the cases that need the exact next PSN, while the sender holds
# its finished connection open (mrcperf --hold). Each case passes when
# the victim dropped every packet and counted each drop where
# Documentation/networking/mrc.rst says (the counter named in the case's
# diagnostics). Then the transfer must complete byte-identical, and the
# MRC slab objects return to what they were before, once the handshake
# flood's half-open connections have timed out. The guest log is checked
# by the harness. Last, a GSO packet of a kind MRC cannot take (UFO),
# written to a tap (gso_inject.py), must be dropped and counted whole.
# rst_rate and probe_rate are lowered to 10 for the run,
# so that the RSTs for unknown connection ids and the replies to a flood
# of PROBEs are seen to be limited.

# Test functions run through run_test, which shellcheck cannot follow.
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")"/lib.sh
# shellcheck source-path=SCRIPTDIR source=fabric.sh
source "$(dirname "$0")"/fabric.sh

MRCPERF=$MRC_TOP/build/tools/mrcperf
LINK_RATE=${LINK_RATE:-20mbit}
PORT=7701
MESSAGES=1000
LISTEN_PORT=7700
RST_RATE=/sys/module/mrc/parameters/rst_rate
PROBE_RATE=/sys/module/mrc/parameters/probe_rate
tmp=$(mktemp -d)
old_rst_rate=$(cat "$RST_RATE")
old_probe_rate=$(cat "$PROBE_RATE")

ACTIVE_CASES=(
	"truncated headers, every length from 0 to the full header"
	"zero-length UDP"
	"bad UDP checksums"
	"unknown versions"
	"unknown types"
	"unknown connection ids (RSTs rate-limited)"
	"resets with guessed ids"
	"SYNs with an MSS below the floor (no connection)"
	"a handshake flood on a listener with backlog 16"
	"a flood of PROBEs (replies rate-limited)"
	"an SRH whose last entry is not this host"
	"an SRH whose last entry index is beyond its list"
	"an SRH with segments_left beyond its list (IPv6 drops it)"
	"an SRH whose length runs past the packet (IPv6 drops it)"
)
IDLE_CASES=(
	"PSNs beyond the window"
	"DATA and SYNs whose PSN does not fit 24 bits"
	"PSNs long before the cumulative point"
	"message lengths, offsets and numbers outside the message"
	"a trimmed DSCP on a full packet (not delivered: NACKed)"
	"10 s of DATA, ACKs and RSTs with guessed ids"
	"ACKs for PSNs never sent"
	"SACK bitmaps that cover unsent PSNs"
	"NACKs for unsent PSNs"
	"ACKs and NACKs whose PSN does not fit 24 bits"
	"DATA past the advertised window (refused as a zero window)"
)

cleanup() {
	echo "$old_rst_rate" > "$RST_RATE"
	echo "$old_probe_rate" > "$PROBE_RATE"
	fab_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit "$KSFT_FAIL"' INT TERM

# attack PHASE [ARGS...]: hostile.py's cases of that phase, from the spine.
attack() {
	local phase=$1

	shift
	fab_exec_spine 1 timeout "$(slow_limit 600)" python3 "$MRC_SELFTEST_DIR"/hostile.py \
		--phase "$phase" --results "$tmp/results" --template "$tmp/template" \
		--h1-ns "$(fab_ns_host 1)" --h2-ns "$(fab_ns_host 2)" \
		--h2-addr "$(fab_host_addr 2)" \
		--listen-port "$LISTEN_PORT" \
		--trim-dscp "$(fab_exec_host 2 sysctl -n net.mrc.trim_dscp)" \
		--probe-rate "$(cat "$PROBE_RATE")" --messages "$MESSAGES" \
		--timeout "$(slow_limit 30)" "$@" >> "$tmp/attack.log" 2>&1
}

# run_all: the transfer and both phases of the attack; what each part
# did is in $tmp for the cases below.
run_all() {
	local h lpid spid cpid apid

	mrc_slab_objects > "$tmp/slab-before"
	fab_up 2 1 > "$tmp/setup.log" || return 1
	for h in 1 2; do
		fab_link_shape "$h" 1 both "$LINK_RATE" 2>> "$tmp/setup.log" || return 1
	done
	fab_paths 1 2 && fab_paths 2 1 || return 1
	echo 10 > "$RST_RATE"
	echo 10 > "$PROBE_RATE"
	fab_exec_host 2 "$MRC_BIN"/mrc_hold -l "$LISTEN_PORT" -b 16 -r "$tmp/listening" &
	lpid=$!
	wait_ready "$lpid" "$tmp/listening" || return 1
	# A receive buffer small enough (and kept from autotuning) that
	# fewer packets than the PSN window hold fill its window: the zero
	# window case needs that (a window of 1 MiB of page fragments takes
	# more than 255 packets of 1,200 bytes).
	fab_exec_host 2 "$MRCPERF" -s -1 -p "$PORT" --timeout "$(slow_limit 300)" \
		--buf 128K --ready "$tmp/ready" > "$tmp/server.log" 2>&1 &
	spid=$!
	wait_ready "$spid" "$tmp/ready" || return 1
	# The active phase learns the connection from its first DATA packet:
	# the transfer starts once hostile.py captures.
	attack active --ready "$tmp/sniffing" &
	apid=$!
	wait_ready "$apid" "$tmp/sniffing" ||
		{ echo "hostile.py did not start capturing"; cat "$tmp/attack.log"; return 1; }
	fab_exec_host 1 "$MRCPERF" -c "$(fab_host_addr 2)" -p "$PORT" -l 64K -n "$MESSAGES" \
		--verify --hold "$tmp/hold" --timeout "$(slow_limit 300)" \
		> "$tmp/client.log" 2>&1 &
	cpid=$!
	wait "$apid" || echo "hostile.py failed in the active phase" >> "$tmp/attack.log"
	wait_for 600 test -e "$tmp/hold.done" || return 1
	attack idle || echo "hostile.py failed in the idle phase" >> "$tmp/attack.log"
	touch "$tmp/hold"
	wait_for 120 fab_gone "$cpid"
	wait "$cpid"
	echo $? > "$tmp/client.rc"
	wait_for 60 fab_gone "$spid"
	wait "$spid"
	echo $? > "$tmp/server.rc"
	kill "$lpid"
	wait "$lpid"
	fab_cleanup
}

# case_held NAME: hostile.py says the case held; its line is printed.
case_held() {
	local line

	line=$(grep -F "\"case\": \"$1\"" "$tmp/results")
	if [ -z "$line" ]; then
		echo "the case did not run:"
		sed 's/^/  /' "$tmp/attack.log"
		return 1
	fi
	echo "$line"
	[[ $line == *'"ok": true'* ]]
}

transfer_intact() {
	cat "$tmp/client.log" "$tmp/server.log"
	[ "$(cat "$tmp/client.rc")" = 0 ] && [ "$(cat "$tmp/server.rc")" = 0 ] &&
		grep -q "verify on" "$tmp/server.log" &&
		grep -q "result: OK" "$tmp/server.log" &&
		grep -Eq "^\[SUM\] +$MESSAGES +$((MESSAGES * 65536)) " "$tmp/server.log"
}

slab_back() {
	local before now

	before=$(cat "$tmp/slab-before")
	now=$(mrc_slab_objects)
	echo "MRC slab objects: $before before, $now now"
	[ "$now" -le "$before" ]
}

slab_is_back() {
	wait_for 120 slab_back
}

# A GSO packet of a kind that cannot hold MRC packets (UDP fragmentation
# offload), written to a tap with a virtio-net header as a VM or a tun
# user can: the MRC port takes it whole (it takes GSO batches), and must
# drop and count it (DropGso), not segment it.
gso_kinds() {
	local ns=mrc-gso-$RANDOM before rc=0

	modprobe tun 2> /dev/null
	if [ ! -c /dev/net/tun ]; then
		echo "no /dev/net/tun: this kernel has no TUN (CONFIG_TUN)"
		return "$KSFT_SKIP"
	fi
	ip netns add "$ns" || return 1
	ip -n "$ns" link set lo up
	before=$(mrc_mib "$ns" DropGso)
	if ip netns exec "$ns" python3 "$MRC_SELFTEST_DIR"/gso_inject.py udp; then
		wait_for 10 gso_dropped "$ns" "$before" || rc=1
	else
		echo "gso_inject.py failed"
		rc=1
	fi
	echo "DropGso $before -> $(mrc_mib "$ns" DropGso); InPkts $(mrc_mib "$ns" InPkts)"
	ip netns del "$ns"
	return "$rc"
}

# gso_dropped NS BEFORE: DropGso of NS is above BEFORE.
gso_dropped() {
	[ "$(mrc_mib "$1" DropGso)" -gt "$2" ]
}

ktap_begin $((${#ACTIVE_CASES[@]} + ${#IDLE_CASES[@]} + 3))
run_all > "$tmp/run.log" 2>&1 || { echo "# setup failed:"; sed 's/^/#   /' "$tmp/run.log"; }
for c in "${ACTIVE_CASES[@]}" "${IDLE_CASES[@]}"; do
	run_test "$c" case_held "$c"
done
run_test "the transfer completed byte-identical" transfer_intact
run_test "MRC slab objects back to where they started" slab_is_back
run_test "a UFO packet to the MRC port: dropped whole (DropGso)" gso_kinds
ktap_end
