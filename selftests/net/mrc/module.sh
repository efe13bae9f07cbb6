#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Module lifetime: rmmod is refused while sockets are open, the genetlink
# family loads the module on demand, the "family" parameter, load/unload
# cycles and namespace teardown leave nothing behind.
# Needs root and MRC_KO (set by vm-run).

source "$(dirname "$0")"/lib.sh

# 50 and 200; a quarter of that on a debug kernel (slow_count).
CYCLES=$(slow_count 50)
NAMESPACES=$(slow_count 200)
tmp=$(mktemp -d)
holders=()
cleanup() {
	local ns

	for p in "${holders[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	for ns in $(ip netns list 2>/dev/null | awk '/^mrc-mod-/ { print $1 }'); do
		ip netns del "$ns"
	done
	rm -rf "$tmp"
	mrc_loaded || insmod "$MRC_KO"
}
trap cleanup EXIT

no_mrc_sockets() {
	[ "$(mrc_slab_objects)" = 0 ]
}

load() {
	mrc_loaded || insmod "$MRC_KO" "$@"
}

unload() {
	if mrc_loaded; then
		rmmod mrc
	fi
}

test_rmmod_refused_while_open() {
	load || return 1
	"$MRC_BIN"/mrc_hold -n 2 -r "$tmp/ready" &
	local pid=$!

	wait_ready "$pid" "$tmp/ready" || return 1
	if rmmod mrc 2>"$tmp/err"; then
		echo "rmmod succeeded with sockets open"
		return 1
	fi
	grep -q "in use" "$tmp/err" || { cat "$tmp/err"; return 1; }
	kill "$pid"
	wait "$pid" 2>/dev/null
	rmmod mrc || return 1
	mrc_loaded && { echo "module still loaded"; return 1; }
	return 0
}

test_family_parameter() {
	unload
	# 13 is AF_NETBEUI: a slot that mainline never implemented.
	insmod "$MRC_KO" family=13 || return 1
	grep -qx 13 /sys/module/mrc/parameters/family || return 1
	MRC_FAMILY=13 "$MRC_BIN"/mrc_hold -n 1 -x || return 1
	if "$MRC_BIN"/mrc_hold -n 1 -x 2>/dev/null; then
		echo "AF_MRC (25) still works with family=13"
		return 1
	fi
	rmmod mrc || return 1
	# Out of range, and a family the kernel already has (AF_INET6).
	local bad
	for bad in 0 -1 46 4096 10; do
		if insmod "$MRC_KO" family=$bad 2>/dev/null; then
			echo "family=$bad was accepted"
			rmmod mrc
			return 1
		fi
	done
	load
}

test_load_unload_cycles() {
	local i

	unload
	for i in $(seq "$CYCLES"); do
		insmod "$MRC_KO" || { echo "insmod $i failed"; return 1; }
		"$MRC_BIN"/mrc_hold -n 3 -x || { echo "sockets in cycle $i"; return 1; }
		# Sockets are freed after an RCU grace period.
		wait_for 10 no_mrc_sockets ||
			{ echo "cycle $i: $(mrc_slab_objects) MRC objects left"; return 1; }
		rmmod mrc || { echo "rmmod $i failed"; return 1; }
	done
	grep -q '^MRC ' /proc/slabinfo && { echo "MRC slab cache left after rmmod"; return 1; }
	load
}

# The family loads the module on demand, as other genetlink families do:
# the kernel asks modprobe for the alias the module declares. mrc.ko is
# not installed, so modprobe fails at first, and mrc says so; then a
# modprobe.d install command for the alias records the request and loads
# $MRC_KO.
test_autoload() {
	local conf=/etc/modprobe.d/mrc-selftest.conf rc
	local alias=net-pf-16-proto-16-family-mrc

	modinfo -F alias "$MRC_KO" | grep -qx "$alias" ||
		{ echo "no alias $alias in $MRC_KO"; return 1; }
	unload || return 1
	"$MRC_TOP"/build/tools/mrc path show > "$tmp/out" 2>&1
	rc=$?
	echo "install $alias echo $alias >> $tmp/asked; /sbin/insmod $MRC_KO" > "$conf"
	"$MRC_TOP"/build/tools/mrc -j path show >> "$tmp/out" 2>&1 || rc=$((rc + 100))
	rm -f "$conf"
	cat "$tmp/asked" "$tmp/out"
	[ "$rc" -eq 2 ] || { echo "exit status $rc, not 2 then 0"; return 1; }
	grep -q "did not load on demand (modprobe mrc)" "$tmp/out" || return 1
	mrc_loaded || { echo "not loaded on demand"; return 1; }
	[ "$(grep -cx -- "$alias" "$tmp/asked")" -eq 1 ]
}

# The namespaces are added and deleted in one ip batch each: a command
# costs about 0.1 s under TCG, 40 s for the 200 of them one by one.
test_netns_teardown() {
	local i n=$NAMESPACES per=4 objs cmds="" sfx=$RANDOM

	load || return 1
	for i in $(seq $n); do
		cmds+="netns add mrc-mod-$i-$sfx"$'\n'
	done
	ip -batch - <<< "$cmds" || return 1
	for i in $(seq $n); do
		ip netns exec "mrc-mod-$i-$sfx" "$MRC_BIN"/mrc_hold -n $per -r "$tmp/ready-$i" &
		holders+=($!)
	done
	for i in $(seq $n); do
		wait_ready "${holders[i - 1]}" "$tmp/ready-$i" || return 1
	done
	objs=$(mrc_slab_objects)
	if [ "$objs" -lt $((n * per)) ]; then
		echo "expected at least $((n * per)) sockets, slab has $objs"
		return 1
	fi
	for p in "${holders[@]}"; do
		kill "$p"
	done
	wait 2>/dev/null
	holders=()
	cmds=$(ip netns list | awk '/^mrc-mod-/ { print "netns del " $1 }')
	ip -batch - <<< "$cmds" || return 1
	wait_for 60 no_mrc_sockets || return 1
	rmmod mrc || return 1
	load
}

[ -n "${MRC_KO:-}" ] || { echo "MRC_KO is not set"; exit $KSFT_SKIP; }
ktap_begin 5
run_test "rmmod refused while sockets are open" test_rmmod_refused_while_open
run_test "the mrc genetlink family loads the module on demand" test_autoload
run_test "family module parameter" test_family_parameter
run_test "$CYCLES load/unload cycles leave no objects" test_load_unload_cycles
run_test "$NAMESPACES namespaces with sockets torn down" test_netns_teardown
ktap_end
