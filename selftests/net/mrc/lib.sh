#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers for the MRC shell selftests: KTAP output and waiting for
# conditions with generous, KSFT_MACHINE_SLOW-aware limits.

MRC_SELFTEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MRC_TOP=$(cd "$MRC_SELFTEST_DIR/../../.." && pwd)
# C helpers are built out of tree (make selftests).
MRC_BIN=${MRC_BIN:-$MRC_TOP/build/selftests}

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

ktap_n=0
ktap_pass=0
ktap_fail=0
ktap_skip=0

ktap_begin() {
	echo "TAP version 13"
	echo "1..$1"
}

ktap_result() {
	local verdict=$1 name=$2

	ktap_n=$((ktap_n + 1))
	case "$verdict" in
	pass) ktap_pass=$((ktap_pass + 1)); echo "ok $ktap_n $name" ;;
	skip) ktap_skip=$((ktap_skip + 1)); echo "ok $ktap_n $name # SKIP" ;;
	*) ktap_fail=$((ktap_fail + 1)); echo "not ok $ktap_n $name" ;;
	esac
}

# run_test NAME FUNCTION [ARGS...]: one KTAP case. FUNCTION returns 0 for
# pass, $KSFT_SKIP for skip, anything else for fail; its output is indented
# as KTAP diagnostics. With MRC_ONLY set (an extended regular expression),
# cases whose name does not match it are skipped: for running one case
# while debugging.
run_test() {
	local name=$1 rc start

	shift
	if [ -n "${MRC_ONLY:-}" ] && ! [[ $name =~ $MRC_ONLY ]]; then
		ktap_result skip "$name"
		return
	fi
	start=$SECONDS
	"$@" 2>&1 | sed 's/^/# /'
	rc=${PIPESTATUS[0]}
	# Where a test's time goes: its slower cases say.
	[ $((SECONDS - start)) -lt 5 ] || echo "# (took $((SECONDS - start)) s)"
	if [ "$rc" -eq 0 ]; then
		ktap_result pass "$name"
	elif [ "$rc" -eq "$KSFT_SKIP" ]; then
		ktap_result skip "$name"
	else
		ktap_result fail "$name"
	fi
}

ktap_end() {
	echo "# Totals: pass:$ktap_pass fail:$ktap_fail xfail:0 xpass:0 skip:$ktap_skip error:0"
	if [ "$ktap_fail" -gt 0 ]; then
		exit $KSFT_FAIL
	elif [ "$ktap_pass" -eq 0 ] && [ "$ktap_skip" -gt 0 ]; then
		exit $KSFT_SKIP
	fi
	exit $KSFT_PASS
}

# Seconds to allow for something that normally takes a fraction of one:
# 4 times as long on a slow machine (KSFT_MACHINE_SLOW), or
# MRC_SLOW_FACTOR times (a debug kernel under TCG: make check-debug).
slow_limit() {
	local s=$1

	if [ -n "${MRC_SLOW_FACTOR:-}" ]; then
		s=$((s * MRC_SLOW_FACTOR))
	elif [ -n "${KSFT_MACHINE_SLOW:-}" ] && [ "$KSFT_MACHINE_SLOW" != no ]; then
		s=$((s * 4))
	fi
	echo "$s"
}

# slow_count N: how many times to repeat something, or how much data to
# move: N, but a quarter of it (at least 1) on a debug kernel
# (MRC_SLOW_FACTOR, make check-debug), which runs ten times slower and is
# there for its checkers (KASAN, kmemleak, lockdep) to see every code path
# at least once, not for the volume.
slow_count() {
	local n=$1

	if [ -n "${MRC_SLOW_FACTOR:-}" ]; then
		n=$((n / 4))
		[ "$n" -ge 1 ] || n=1
	fi
	echo "$n"
}

# mrc_sleep SECONDS: sleep without starting a process (sleep(1) is one,
# and a process costs tens of milliseconds under TCG): a read that times
# out on a FIFO nobody writes to, opened when this file is sourced, so
# that every subshell has it. (The guest has no /dev/fd, which bash's
# <(...) would need.) Without one, sleep(1).
if [ -z "${MRC_SLEEP_FD:-}" ]; then
	mrc_sleep_fifo=$(mktemp -u "${TMPDIR:-/tmp}/mrc-sleep.XXXXXX")
	if mkfifo -m 600 "$mrc_sleep_fifo" 2>/dev/null; then
		exec {MRC_SLEEP_FD}<> "$mrc_sleep_fifo"
		rm -f "$mrc_sleep_fifo"
	fi
fi
mrc_sleep() {
	if [ -n "${MRC_SLEEP_FD:-}" ]; then
		read -r -t "$1" -u "$MRC_SLEEP_FD"
		return 0
	fi
	sleep "$1"
}

# wait_for SECONDS COMMAND...: poll until COMMAND succeeds; fail after the
# (slow-machine scaled) limit. Used for asynchronous kernel work such as
# namespace teardown, never to measure time.
wait_for() {
	local limit end

	limit=$(slow_limit "$1")
	shift
	end=$((SECONDS + limit))
	until "$@"; do
		if [ "$SECONDS" -ge "$end" ]; then
			echo "timed out after ${limit}s waiting for: $*"
			return 1
		fi
		mrc_sleep 0.1
	done
}

ready_or_dead() {
	[ -e "$2" ] || ! kill -0 "$1" 2>/dev/null
}

# wait_ready PID FILE: wait until the helper PID created FILE; fail at once
# if it died first.
wait_ready() {
	wait_for 30 ready_or_dead "$1" "$2" || return 1
	[ -e "$2" ] || { echo "helper $1 exited before it was ready"; return 1; }
}

# Two hosts: namespaces joined by a veth pair, veth-a in the first with
# MRC_ADDR_A, veth-b in the second with MRC_ADDR_B (both /64).
MRC_ADDR_A=2001:db8::1
MRC_ADDR_B=2001:db8::2

addr_ready() {
	local ns=$1 dev=$2 addr=$3

	ip -n "$ns" link show dev "$dev" | grep -q LOWER_UP &&
		ip -n "$ns" -6 addr show dev "$dev" | grep -q "inet6 $addr/64 scope global" &&
		! ip -n "$ns" -6 addr show dev "$dev" tentative | grep -q "inet6 $addr/"
}

# ns_pair A B: create namespaces A and B joined as above, up and usable.
# A namespace that exists already is used as it is (set up its defaults
# first).
ns_pair() {
	local a=$1 b=$2

	[ -e "/run/netns/$a" ] || ip netns add "$a" || return 1
	[ -e "/run/netns/$b" ] || ip netns add "$b" || return 1
	ip -n "$a" link add veth-a type veth peer name veth-b netns "$b" || return 1
	ip -n "$a" addr add "$MRC_ADDR_A"/64 dev veth-a nodad || return 1
	ip -n "$b" addr add "$MRC_ADDR_B"/64 dev veth-b nodad || return 1
	ip -n "$a" link set lo up && ip -n "$a" link set veth-a up || return 1
	ip -n "$b" link set lo up && ip -n "$b" link set veth-b up || return 1
	wait_for 10 addr_ready "$a" veth-a "$MRC_ADDR_A" || return 1
	wait_for 10 addr_ready "$b" veth-b "$MRC_ADDR_B"
}

# ns_del NS...: kill what runs in each namespace, then delete it.
ns_del() {
	local ns

	for ns in "$@"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	return 0
}

# mrc_sockets_gone NS...: no MRC socket is left in any namespace NS (a
# connection that closed may still send until it is gone).
mrc_sockets_gone() {
	local ns s

	for ns in "$@"; do
		s=$(mrc_ns_read "$ns" /proc/net/mrc_sockstat) || return 1
		[[ $'\n'$s == *$'\n'"MRC: inuse 0 "* ]] || return 1
	done
}

# mrc_set_params NAME=VALUE...: set mrc module parameters (benchmarks
# compare settings of one module this way).
mrc_set_params() {
	local p

	for p in "$@"; do
		echo "${p#*=}" > "/sys/module/mrc/parameters/${p%%=*}" ||
			{ echo "cannot set mrc parameter $p" >&2; return 1; }
	done
}

# mrc_ns_read NS FILE...: FILEs as read in network namespace NS (a name
# under /run/netns or a path), for /proc/net files: mrc_nsread, a static
# helper, costs a tenth of "ip netns exec NS cat" under TCG, and the tests
# read counters hundreds of times. Fails, with a message, when NS or a
# FILE cannot be read.
mrc_ns_read() {
	"$MRC_BIN"/mrc_nsread "$@"
}

# mrc_mib NS NAME: the MRC counter NAME of network namespace NS; nothing
# when there is no such counter.
mrc_mib() {
	local s k v

	s=$(mrc_ns_read "$1" /proc/net/mrc_stat) || return 1
	while read -r k v; do
		if [ "$k" = "$2" ]; then
			echo "$v"
			return 0
		fi
	done <<< "$s"
}

# mrc_mib_read NS NAME...: "NAME=VALUE " for each NAME of namespace NS's
# MIB, from one read (a snapshot to compare with later).
mrc_mib_read() {
	local ns=$1 s k v out=

	shift
	s=$(mrc_ns_read "$ns" /proc/net/mrc_stat) || return 1
	while read -r k v; do
		[[ " $* " == *" $k "* ]] && out+="$k=$v "
	done <<< "$s"
	printf '%s' "$out"
}

# mrc_mib_deltas NS BEFORE: "NAME +N" for each counter that the snapshot
# BEFORE (mrc_mib_read) holds, from one read of the MIB.
mrc_mib_deltas() {
	local now kv n names=()
	local -A val

	for kv in $2; do
		names+=("${kv%%=*}")
	done
	now=$(mrc_mib_read "$1" "${names[@]}") || return 1
	for kv in $now; do
		val[${kv%%=*}]=${kv#*=}
	done
	for kv in $2; do
		n=${kv%%=*}
		printf '%s +%s ' "$n" "$((${val[$n]:-0} - ${kv#*=}))"
	done
	echo
}

# mrc_mib_nonzero NS: the MIB counters of namespace NS that are not zero,
# on one line (what a failed case shows of what happened).
mrc_mib_nonzero() {
	local s k v out=

	s=$(mrc_ns_read "$1" /proc/net/mrc_stat) || return 1
	while read -r k v; do
		[ "$v" = 0 ] || out+="$k $v  "
	done <<< "$s"
	echo "$out"
}

# Objects in use in the module's slab caches: MRC (the sockets) and
# mrc_cpaths (the connections' paths); 0 when they are gone. SLUB counts
# every object of a per-CPU slab as in use, so shrink first to flush
# those. The guest boots with slab_nomerge, so each cache is its own.
mrc_slab_objects() {
	local c

	for c in MRC mrc_cpaths; do
		if [ -w "/sys/kernel/slab/$c/shrink" ]; then
			echo 1 > "/sys/kernel/slab/$c/shrink"
		fi
	done
	awk '$1 == "MRC" || $1 == "mrc_cpaths" { n += $2 } END { print n + 0 }' /proc/slabinfo
}

# virtio_nic: the name of the virtio-net NIC that tools/testing/vm-run
# --nic gave this guest; fails if there is none.
virtio_nic() {
	local d drv

	for d in /sys/class/net/*; do
		drv=$(readlink "$d/device/driver" 2>/dev/null) || continue
		[ "${drv##*/}" = virtio_net ] && { echo "${d##*/}"; return 0; }
	done
	return 1
}

mrc_loaded() {
	[ -d /sys/module/mrc ]
}

# The trimming qdisc's module, built next to mrc.ko (vm-run's $MRC_KO).
MRCTRIM_KO=${MRCTRIM_KO:-$(dirname "${MRC_KO:-/nonexistent/mrc.ko}")/sch_mrctrim.ko}

# mrctrim_load: load sch_mrctrim.ko unless it is loaded.
mrctrim_load() {
	[ -d /sys/module/sch_mrctrim ] || insmod "$MRCTRIM_KO"
}
