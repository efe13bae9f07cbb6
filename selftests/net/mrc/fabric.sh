#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabric.sh: a two-tier fabric of network namespaces for the MRC selftests.
# Source it (it sources lib.sh); it runs nothing by itself.
#
# H hosts (default 2, at most 32) and K planes (default 4, at most 8). Each
# plane is one spine router namespace, and every host is joined to every
# spine by a veth pair. Hosts reach each other over any plane: plainly
# (routed) over plane 1, or with SRv6 through a SID of the spine of the
# plane they choose.
#
#   spine 1 (plane 1)     spine 2 (plane 2)    ...   spine K (plane K)
#   h1  h2  ...  hH       h1  h2  ...  hH            h1  h2  ...  hH
#   |   |        |        |   |        |             |   |        |
#   p1  p1  ...  p1       p2  p2  ...  p2            pK  pK  ...  pK
#   of host 1, 2 ... H    of host 1, 2 ... H         of host 1, 2 ... H
#
# Namespaces: mrcf-h<h>-$FAB_SUFFIX and mrcf-s<k>-$FAB_SUFFIX, where the
# suffix is random per run (set FAB_SUFFIX to choose it). FAB_SEED (default
# $RANDOM, printed by fab_up as "# fabric seed N") seeds fab_random, which
# tests use for any random choice, so that FAB_SEED=N repeats a run.
#
# Addressing (h and k are 1-based and appear in hex in addresses; for
# h, k <= 9 that is the same digit, host 17 is fd00:ff::11):
#   link host h <-> spine k   fd00:k:h::/64, host fd00:k:h::2 on p<k> (in
#                             the host), spine fd00:k:h::1 on h<h> (in the
#                             spine)
#   host h                    fd00:ff::h/128 on the dummy device mrc0
#   SIDs of spine k           fd00:k::e00/120, one seg6local End route on the
#                             dummy device sid0 (so that no link flap
#                             removes it); SID j (0 to 63) is fd00:k::e<j>,
#                             j in two hex digits: fd00:3::e00, fd00:3::e01
#   host routes               fd00:k::/32 via fd00:k:h::1 dev p<k>, each k;
#                             fd00:ff::/64 via fd00:1:h::1 dev p1 (plain
#                             traffic, TCP for one, takes plane 1)
#   spine routes              fd00:ff::h/128 via fd00:k:h::2 dev h<h>, each h
# Every interface of every namespace has seg6_enabled=1 (all, default and
# so each device, and lo), accept_dad=0 (addresses are added nodad, usable at once)
# and keep_addr_on_down=1; spines forward. Links keep the default MTU
# (1500) until fab_mtu changes it.
#
# MRC paths (fab_paths H1 H2 S): on host H1, toward fd00:ff::H2/128, one
# path per plane k (1..K) per SID j (0..S-1), with the one segment
# fab_sid k j and the id
#   id = j * K + k
# so ids 1..K are the first SID of planes 1..K, ids K+1..2K the second SID
# of planes 1..K, and so on; the plane of id n is ((n - 1) % K) + 1.
#
# Functions:
#   fab_up [H] [K]             build the fabric, wait until it is usable
#   fab_down                   tear it down; fails if a namespace is left
#   fab_cleanup                tear down whatever is left; idempotent, quiet,
#                              for a test's EXIT trap
#   fab_ns_host H, fab_ns_spine K      the namespace names
#   fab_exec_host H CMD..., fab_exec_spine K CMD...  run CMD in a namespace
#   fab_host_addr H            fd00:ff::H
#   fab_link_addr H K [host|spine]     the link's host (default) or spine
#                              address
#   fab_sid K [J]              SID J (default 0) of spine K
#   fab_path_id K [J]          the path id fab_paths gives plane K, SID J
#   fab_random VAR N           VAR := a seeded random number in [0, N)
#   fab_ping H DEST [COUNT]    ping DEST (a host number or an address) from
#                              host H's fd00:ff::H; succeeds if all replied
#   fab_link_qdisc H K DIR QDISC...    replace the root qdisc of a link
#                              direction: up (host to spine: egress of the
#                              host's p<K>), down (spine to host: egress of
#                              the spine's h<H>) or both
#   fab_link_clear H K DIR     remove it again (back to the default)
#   fab_link_shape H K DIR RATE [DELAY]   rate limit (tbf; with DELAY, a
#                              netem delay with the tbf as its child)
#   fab_link_state H K up|down|del|add   set both ends of a link down or
#                              up, or delete the veth pair and create it
#                              anew (unshaped); up and add wait for the link
#                              and restore the fabric's routes over it (the
#                              kernel removes them on down and del; routes a
#                              test added itself are not restored)
#   fab_reset_links RATE       every link up, with the fabric's routes, and
#                              shaped both ways at RATE (fab_link_shape's
#                              tbf), in a few batched commands
#   fab_mtu MTU                set the MTU of both ends of every link
#   fab_paths H1 H2 [S]        add the K*S MRC paths described above (mrc)
#   fab_capture_start K H DIR FILE [FILTER...]  tcpdump on spine K's h<H>
#                              into FILE: DIR up (packets from the host),
#                              down (to the host) or both; FILTER is a pcap
#                              filter (note: "udp" does not match packets
#                              with an SRH, pcap_mrc.py --udp-port does; and
#                              inbound/outbound lose the first packet)
#   fab_capture_stop [FILE]    stop that capture (or all), once tcpdump has
#                              written every packet it was given
# pcap_mrc.py, next to this file, prints a capture as JSON.
#
# Tunables: FAB_SHAPE_BURST (32kb) and FAB_SHAPE_LATENCY (50ms) for the tbf
# of fab_link_shape, and FAB_SHAPE_ECN (unset: no marking) for its ECN
# threshold in bytes; FAB_CAPTURE_SNAPLEN (256 bytes: Ethernet, IPv6, an SRH
# of 8 segments, UDP and the first bytes of the MRC header) and
# FAB_CAPTURE_BUFFER (8192 KiB, tcpdump -B) for captures; FAB_MRC, the mrc
# tool.

# Tests may have sourced lib.sh already: sourcing it again would reset
# their KTAP counts.
if ! declare -F run_test > /dev/null; then
	# shellcheck source-path=SCRIPTDIR source=lib.sh
	source "$(dirname "${BASH_SOURCE[0]}")"/lib.sh
fi

FAB_MAX=8
FAB_MAX_HOSTS=32
FAB_MAX_SIDS=64
FAB_SUFFIX=${FAB_SUFFIX:-$(printf '%04x%04x' "$RANDOM" "$RANDOM")}
FAB_SEED=${FAB_SEED:-$RANDOM}
FAB_DIR=${TMPDIR:-/tmp}/mrcf-$FAB_SUFFIX
FAB_MRC=${FAB_MRC:-$MRC_TOP/build/tools/mrc}
FAB_SHAPE_BURST=${FAB_SHAPE_BURST:-32kb}
FAB_SHAPE_LATENCY=${FAB_SHAPE_LATENCY:-50ms}
FAB_CAPTURE_SNAPLEN=${FAB_CAPTURE_SNAPLEN:-256}
FAB_CAPTURE_BUFFER=${FAB_CAPTURE_BUFFER:-8192}
FAB_H=0
FAB_K=0
FAB_RNG=$FAB_SEED
FAB_CMDS=""

# fab_ns_host H: the name of host H's namespace.
fab_ns_host() {
	echo "mrcf-h$1-$FAB_SUFFIX"
}

# fab_ns_spine K: the name of spine K's namespace.
fab_ns_spine() {
	echo "mrcf-s$1-$FAB_SUFFIX"
}

# fab_exec_host H CMD...: run CMD in host H's namespace.
fab_exec_host() {
	local ns=mrcf-h$1-$FAB_SUFFIX

	shift
	ip netns exec "$ns" "$@"
}

# fab_exec_spine K CMD...: run CMD in spine K's namespace.
fab_exec_spine() {
	local ns=mrcf-s$1-$FAB_SUFFIX

	shift
	ip netns exec "$ns" "$@"
}

# fab_monitor H FILE: run mrc monitor in host H's namespace in the
# background, writing FILE; FAB_MON_PID is its pid. ip netns exec becomes
# the monitor, so that pid is the monitor itself: a job started as
# "fab_exec_host ... &" is a subshell, and killing it would leave the
# monitor running and writing into a FILE the next case truncates.
fab_monitor() {
	ip netns exec "mrcf-h$1-$FAB_SUFFIX" "$FAB_MRC" monitor > "$2" 2>&1 &
	# shellcheck disable=SC2034 # for the caller
	FAB_MON_PID=$!
}

# fab_host_addr H: host H's address, fd00:ff::H.
fab_host_addr() {
	printf 'fd00:ff::%x\n' "$1"
}

# fab_link_addr H K [host|spine]: an address of the link of host H to
# spine K, fd00:K:H::2 at the host (default) or fd00:K:H::1 at the spine.
fab_link_addr() {
	local end=2

	[ "${3:-host}" = spine ] && end=1
	printf 'fd00:%x:%x::%d\n' "$2" "$1" "$end"
}

# fab_sid K [J]: SID J (0 to 63, default 0) of spine K, fd00:K::eJJ.
fab_sid() {
	local j=${2:-0}

	if [ "$j" -lt 0 ] || [ "$j" -ge "$FAB_MAX_SIDS" ]; then
		echo "fab_sid: SID $j out of range 0..$((FAB_MAX_SIDS - 1))" >&2
		return 1
	fi
	printf 'fd00:%x::e%02x\n' "$1" "$j"
}

# fab_path_id K [J]: the id fab_paths gives the path over plane K through
# SID J (default 0): J * FAB_K + K.
fab_path_id() {
	echo $(((${2:-0}) * FAB_K + $1))
}

# fab_random VAR N: set VAR to a random number in [0, N) drawn from the
# generator seeded with FAB_SEED. A variable rather than output, because
# $(...) would run it in a subshell and lose the generator's state.
fab_random() {
	FAB_RNG=$(((FAB_RNG * 1103515245 + 12345) % 2147483648))
	printf -v "$1" '%d' $(((FAB_RNG >> 8) % $2))
}

# The fabric's namespaces that exist now, one a line. (ip netns list
# reads /run/netns; a glob does the same without running a program, which
# is slow under emulation.)
fab_namespaces() {
	local f

	for f in /run/netns/mrcf-[hs]*-"$FAB_SUFFIX"; do
		[ -e "$f" ] && echo "${f##*/}"
	done
	return 0
}

# fab_ns_defaults NS [spine]: the sysctls of namespace NS, set before its
# devices exist so that they inherit them (seg6_enabled, accept_dad,
# keep_addr_on_down; forwarding on a spine); the devices that existed
# before (lo, and the fallback tunnels, sit0 and the like, of a kernel
# with those built in) are set one by one. nsenter, unlike ip netns exec,
# mounts no /sys for this.
fab_ns_defaults() {
	local ns=$1 c settings=()

	for c in $(nsenter --net="/run/netns/$ns" ls /proc/sys/net/ipv6/conf); do
		settings+=("net.ipv6.conf.$c.seg6_enabled=1"
			"net.ipv6.conf.$c.accept_dad=0"
			"net.ipv6.conf.$c.keep_addr_on_down=1"
			"net.ipv6.conf.$c.accept_ra=0"
			"net.ipv6.conf.$c.router_solicitations=0")
	done
	if [ "${2:-}" = spine ]; then
		# all.forwarding sets default.forwarding too.
		settings+=(net.ipv6.conf.all.forwarding=1)
	fi
	nsenter --net="/run/netns/$ns" sysctl -q -w "${settings[@]}" > /dev/null
}

# fab_cmd FORMAT ARGS...: add a line (printf FORMAT ARGS) to FAB_CMDS, the
# ip commands fab_batch runs. The fabric is built from a few ip -batch runs
# rather than hundreds of commands: every program started costs time under
# emulation, and so does every $(...).
fab_cmd() {
	local line

	# shellcheck disable=SC2059 # the format is the caller's
	printf -v line "$@"
	FAB_CMDS+=$line$'\n'
}

# fab_batch NS: run the ip commands in FAB_CMDS in namespace NS (- for the
# current one), then empty FAB_CMDS. On failure print them, so that the
# one that failed can be found.
fab_batch() {
	local ns=$1 cmds=$FAB_CMDS netns=()

	FAB_CMDS=""
	[ "$ns" = - ] || netns=(-n "$ns")
	if ! ip -6 "${netns[@]}" -batch - <<< "$cmds"; then
		echo "fab: these ip commands failed${netns:+ in $ns}:"
		echo "	${cmds//$'\n'/$'\n\t'}"
		return 1
	fi
}

# The ip commands that build host H: its device, its links (both ends) and
# their addresses, and its routes.
fab_host_cmds() {
	local h=$1 k

	fab_cmd 'link set lo up'
	fab_cmd 'link add mrc0 type dummy'
	fab_cmd 'link set mrc0 up'
	fab_cmd 'addr add fd00:ff::%x/128 dev mrc0 nodad' "$h"
	for ((k = 1; k <= FAB_K; k++)); do
		fab_cmd 'link add p%d type veth peer name h%d netns mrcf-s%d-%s' "$k" "$h" "$k" "$FAB_SUFFIX"
		fab_cmd 'link set p%d up' "$k"
		fab_cmd 'addr add fd00:%x:%x::2/64 dev p%d nodad' "$k" "$h" "$k"
	done
	for ((k = 1; k <= FAB_K; k++)); do
		fab_host_route_cmds "$h" "$k"
	done
}

# The routes of host H over plane K.
fab_host_route_cmds() {
	local h=$1 k=$2

	fab_cmd 'route replace fd00:%x::/32 via fd00:%x:%x::1 dev p%d' "$k" "$k" "$h" "$k"
	if [ "$k" -eq 1 ]; then
		fab_cmd 'route replace fd00:ff::/64 via fd00:1:%x::1 dev p1' "$h"
	fi
}

# The route of spine K to host H.
fab_spine_route_cmds() {
	local h=$1 k=$2

	fab_cmd 'route replace fd00:ff::%x/128 via fd00:%x:%x::2 dev h%d' "$h" "$k" "$h" "$h"
}

# The ip commands that finish spine K once the hosts made its links.
fab_spine_cmds() {
	local k=$1 h

	fab_cmd 'link set lo up'
	fab_cmd 'link add sid0 type dummy'
	fab_cmd 'link set sid0 up'
	for ((h = 1; h <= FAB_H; h++)); do
		fab_cmd 'link set h%d up' "$h"
		fab_cmd 'addr add fd00:%x:%x::1/64 dev h%d nodad' "$k" "$h" "$h"
		fab_spine_route_cmds "$h" "$k"
	done
	# One route for all the SIDs: both kernels take a /120 End route.
	fab_cmd 'route add fd00:%x::e00/120 encap seg6local action End dev sid0' "$k"
}

# fab_ns_ready NS: every veth of NS is operationally up (the kernel set it
# up asynchronously once both ends were up). Addresses are never
# tentative: they are nodad, and accept_dad=0 covers the link-local ones.
fab_ns_ready() {
	local line

	while read -r line; do
		if [[ $line =~ ^[0-9]+:\ [ph][0-9]+@ && ! $line =~ \ state\ UP\  ]]; then
			return 1
		fi
	done <<< "$(ip -n "$1" -o link show)"
}

# Every namespace of the fabric is ready.
fab_ready() {
	local h k

	for ((h = 1; h <= FAB_H; h++)); do
		fab_ns_ready "mrcf-h$h-$FAB_SUFFIX" || return 1
	done
	for ((k = 1; k <= FAB_K; k++)); do
		fab_ns_ready "mrcf-s$k-$FAB_SUFFIX" || return 1
	done
}

# fab_up [H] [K]: build a fabric of H hosts (default 2) and K planes
# (default 4), and wait until every link and address is usable. On failure
# it tears down what it built and says what failed.
fab_up() {
	local H=${1:-2} K=${2:-4} h k

	if ! [[ $H =~ ^[1-9][0-9]?$ && $K =~ ^[1-9]$ ]] ||
	   [ "$H" -gt "$FAB_MAX_HOSTS" ] || [ "$K" -gt "$FAB_MAX" ]; then
		echo "fab_up: hosts go from 1 to $FAB_MAX_HOSTS, planes from 1 to $FAB_MAX (got $H and $K)"
		return 1
	fi
	fab_cleanup
	FAB_H=$H
	FAB_K=$K
	FAB_RNG=$FAB_SEED
	FAB_CMDS=""
	mkdir -p "$FAB_DIR" || return 1
	echo "# fabric seed $FAB_SEED (FAB_SEED=$FAB_SEED repeats it): $H hosts x $K planes, namespaces mrcf-{h,s}N-$FAB_SUFFIX"

	for ((h = 1; h <= H; h++)); do
		fab_cmd 'netns add mrcf-h%d-%s' "$h" "$FAB_SUFFIX"
	done
	for ((k = 1; k <= K; k++)); do
		fab_cmd 'netns add mrcf-s%d-%s' "$k" "$FAB_SUFFIX"
	done
	fab_batch - || { fab_up_failed "the namespaces"; return 1; }
	for ((h = 1; h <= H; h++)); do
		fab_ns_defaults "mrcf-h$h-$FAB_SUFFIX" || { fab_up_failed "sysctls of host $h"; return 1; }
	done
	for ((k = 1; k <= K; k++)); do
		fab_ns_defaults "mrcf-s$k-$FAB_SUFFIX" spine || { fab_up_failed "sysctls of spine $k"; return 1; }
	done
	# The hosts make the links, so the spines come second.
	for ((h = 1; h <= H; h++)); do
		fab_host_cmds "$h"
		fab_batch "mrcf-h$h-$FAB_SUFFIX" || { fab_up_failed "host $h"; return 1; }
	done
	for ((k = 1; k <= K; k++)); do
		fab_spine_cmds "$k"
		fab_batch "mrcf-s$k-$FAB_SUFFIX" || { fab_up_failed "spine $k"; return 1; }
	done
	wait_for 10 fab_ready || { fab_up_failed "waiting for the links"; return 1; }
}

# fab_up_failed WHAT: report a failed fab_up step and tear down.
fab_up_failed() {
	echo "fab_up: setting up $1 failed; tearing the fabric down"
	fab_cleanup
}

# fab_kill_ns_pids NS...: kill every process in these namespaces (as
# ns_del does, but without a program per namespace: [ -ef ] compares the
# namespace files themselves).
fab_kill_ns_pids() {
	local p ns pids=()

	for p in /proc/[0-9]*; do
		# Most processes are in this shell's namespace.
		[ "$p/ns/net" -ef /proc/self/ns/net ] && continue
		for ns in "$@"; do
			if [ "$p/ns/net" -ef "/run/netns/$ns" ]; then
				pids+=("${p#/proc/}")
				break
			fi
		done
	done 2>/dev/null
	[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null
	return 0
}

# fab_cleanup: stop captures and delete every namespace of this run's
# fabric, whatever state it is in. Idempotent and quiet; always succeeds.
fab_cleanup() {
	local f pid ns nss=()

	for f in "$FAB_DIR"/cap.*.pid; do
		[ -e "$f" ] || continue
		pid=$(< "$f")
		[ -n "$pid" ] && kill "$pid" 2>/dev/null
	done
	for f in /run/netns/mrcf-[hs]*-"$FAB_SUFFIX"; do
		[ -e "$f" ] && nss+=("${f##*/}")
	done
	if [ ${#nss[@]} -gt 0 ]; then
		fab_kill_ns_pids "${nss[@]}"
		for ns in "${nss[@]}"; do
			echo "netns del $ns"
		done | ip -force -batch - 2>/dev/null
	fi
	rm -rf "$FAB_DIR"
	FAB_H=0
	FAB_K=0
	return 0
}

# fab_down: tear the fabric down; fails if one of its namespaces is left.
fab_down() {
	local left

	fab_cleanup
	left=$(fab_namespaces)
	if [ -n "$left" ]; then
		echo "fab_down: namespaces left: ${left//$'\n'/ }"
		return 1
	fi
}

# fab_check_link H K: H and K name a link of the fabric.
fab_check_link() {
	if ! [[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]] || [ "$1" -lt 1 ] || [ "$1" -gt "$FAB_H" ] ||
	   [ "$2" -lt 1 ] || [ "$2" -gt "$FAB_K" ]; then
		echo "fab: no link between host '$1' and spine '$2' (fabric of $FAB_H x $FAB_K)" >&2
		return 1
	fi
}

# fab_link_ends H K DIR: "NAMESPACE DEVICE" of each egress DIR names: up
# is the host's p<K>, down the spine's h<H>, both is both.
fab_link_ends() {
	local h=$1 k=$2

	fab_check_link "$h" "$k" || return 1
	case "$3" in
	up) echo "$(fab_ns_host "$h") p$k" ;;
	down) echo "$(fab_ns_spine "$k") h$h" ;;
	both) echo "$(fab_ns_host "$h") p$k"; echo "$(fab_ns_spine "$k") h$h" ;;
	*) echo "fab: direction '$3' is not up, down or both" >&2; return 1 ;;
	esac
}

# fab_link_qdisc H K DIR QDISC-ARGS...: replace the root qdisc of the link
# host H <-> spine K in direction DIR, e.g. fab_link_qdisc 1 2 up netem
# delay 20ms.
fab_link_qdisc() {
	local ends ns dev

	ends=$(fab_link_ends "$1" "$2" "$3") || return 1
	shift 3
	while read -r ns dev; do
		tc -n "$ns" qdisc replace dev "$dev" root "$@" || return 1
	done <<< "$ends"
}

# fab_link_blackhole H K DIR: everything sent in direction DIR vanishes
# where it arrives, at the far end's clsact ingress hook (a matchall drop
# filter), as on a switch that drops it: the sender is told nothing (a
# drop at its own egress would return NET_XMIT_DROP, a local drop), and
# the sending side's qdisc, with its shaping, stays as it was.
# fab_link_unblackhole H K DIR removes the filter again, in one change.
# Replacing the root qdisc by netem loss 100% and shaping the link again
# takes several tc commands, each slow under emulation: the link is
# unshaped between them, then shaped without its marking child, and
# grafting that child purges the queue the tbf built meanwhile, a burst of
# losses a moment after the heal.
fab_link_far_ends() {
	case "$3" in
	up) fab_link_ends "$1" "$2" down ;;
	down) fab_link_ends "$1" "$2" up ;;
	*) fab_link_ends "$1" "$2" "$3" ;;
	esac
}

fab_link_blackhole() {
	local ends ns dev

	ends=$(fab_link_far_ends "$1" "$2" "$3") || return 1
	while read -r ns dev; do
		tc -n "$ns" qdisc show dev "$dev" | grep -q '^qdisc clsact' ||
			tc -n "$ns" qdisc add dev "$dev" clsact || return 1
		tc -n "$ns" filter add dev "$dev" ingress pref 1 matchall \
			action drop || return 1
	done <<< "$ends"
}

fab_link_unblackhole() {
	local ends ns dev

	ends=$(fab_link_far_ends "$1" "$2" "$3") || return 1
	while read -r ns dev; do
		tc -n "$ns" filter del dev "$dev" ingress pref 1 || return 1
	done <<< "$ends"
}

# fab_link_clear H K DIR: remove the root qdisc set on that direction, back
# to the device's default; nothing to remove is not an error.
fab_link_clear() {
	local ends ns dev

	ends=$(fab_link_ends "$1" "$2" "$3") || return 1
	while read -r ns dev; do
		tc -n "$ns" qdisc del dev "$dev" root 2>/dev/null
	done <<< "$ends"
	return 0
}

# fab_link_shape H K DIR RATE [DELAY]: limit the direction to RATE (a tc
# rate: 100mbit) with a tbf (burst FAB_SHAPE_BURST, latency
# FAB_SHAPE_LATENCY); with DELAY (a tc time: 20ms), a netem delay as root
# with the tbf as its child, as in the netem documentation. With
# FAB_SHAPE_ECN set to a byte count, the tbf's queue is a red that marks
# every ECN-capable packet CE once that many bytes wait (a step
# threshold, as fabric switches mark), so the link behaves like an
# ECN-marking switch port.
# fab_shape_args RATE: set the caller's arrays tbf (the shaping qdisc's
# arguments) and red (the marking child's, empty without FAB_SHAPE_ECN).
fab_shape_args() {
	local ecn=${FAB_SHAPE_ECN:-}

	tbf=(tbf rate "$1" burst "$FAB_SHAPE_BURST" latency "$FAB_SHAPE_LATENCY")
	red=()
	[ -z "$ecn" ] || red=(red limit 1000000 min "$ecn" max "$((ecn + 1))"
		avpkt 1000 burst "$((ecn / 1000 + 1))" probability 1.0 ecn)
}

fab_link_shape() {
	local h=$1 k=$2 dir=$3 rate=$4 delay=${5:-} ends ns dev tbf red

	[ -n "$rate" ] || { echo "fab_link_shape: no rate" >&2; return 1; }
	fab_shape_args "$rate"
	ends=$(fab_link_ends "$h" "$k" "$dir") || return 1
	while read -r ns dev; do
		tc -n "$ns" qdisc del dev "$dev" root 2>/dev/null
		if [ -z "$delay" ]; then
			tc -n "$ns" qdisc add dev "$dev" root handle 1: "${tbf[@]}" || return 1
			[ ${#red[@]} -eq 0 ] ||
				tc -n "$ns" qdisc add dev "$dev" parent 1:1 handle 20: "${red[@]}" ||
				return 1
		else
			tc -n "$ns" qdisc add dev "$dev" root handle 1: netem delay "$delay" limit 100000 &&
				tc -n "$ns" qdisc add dev "$dev" parent 1:1 handle 10: "${tbf[@]}" || return 1
			[ ${#red[@]} -eq 0 ] ||
				tc -n "$ns" qdisc add dev "$dev" parent 10:1 handle 20: "${red[@]}" ||
				return 1
		fi
	done <<< "$ends"
}

# fab_link_drops H K DIR: how many packets the root qdisc of the link
# host H <-> spine K has dropped in direction DIR (up or down), as tc -s
# counts them.
fab_link_drops() {
	local ends ns dev

	ends=$(fab_link_ends "$1" "$2" "$3") || return 1
	read -r ns dev <<< "$ends"
	tc -n "$ns" -s qdisc show dev "$dev" |
		awk '/dropped/ { sub(",", "", $7); print $7 + 0; exit }'
}

# fab_link_up_ready H K: both ends of the link have a carrier and the
# link's prefix route, so routes via the other end can be added.
fab_link_up_ready() {
	local h=$1 k=$2

	ip -n "$(fab_ns_host "$h")" link show dev "p$k" | grep -q LOWER_UP &&
		ip -n "$(fab_ns_spine "$k")" link show dev "h$h" | grep -q LOWER_UP &&
		ip -n "$(fab_ns_host "$h")" -6 route show dev "p$k" | grep -q '/64' &&
		ip -n "$(fab_ns_spine "$k")" -6 route show dev "h$h" | grep -q '/64'
}

# fab_link_state H K up|down|del|add: take both ends of the link host H <->
# spine K down, or bring them up again; or delete the veth pair (as a
# switch reboot or a replaced cable does: the devices, their addresses
# and qdiscs are gone) and create it anew, unshaped. The kernel removes
# the routes over a link that goes down or away; up and add restore the
# fabric's own (not those a test added).
fab_link_state() {
	local h=$1 k=$2 hns sns

	fab_check_link "$h" "$k" || return 1
	hns=$(fab_ns_host "$h")
	sns=$(fab_ns_spine "$k")
	case "$3" in
	down)
		ip -n "$hns" link set dev "p$k" down &&
			ip -n "$sns" link set dev "h$h" down
		;;
	del)
		ip -n "$hns" link del dev "p$k"
		;;
	up|add)
		if [ "$3" = add ]; then
			# New devices take the namespaces' default sysctls
			# (fab_ns_defaults): seg6_enabled, no DAD.
			fab_cmd 'link add p%d type veth peer name h%d netns %s' "$k" "$h" "$sns"
			fab_cmd 'addr add fd00:%x:%x::2/64 dev p%d nodad' "$k" "$h" "$k"
			fab_batch "$hns" || return 1
			ip -n "$sns" addr add "fd00:$(printf %x "$k"):$(printf %x "$h")::1/64" \
				dev "h$h" nodad || return 1
		fi
		ip -n "$hns" link set dev "p$k" up &&
			ip -n "$sns" link set dev "h$h" up || return 1
		wait_for 10 fab_link_up_ready "$h" "$k" || return 1
		fab_host_route_cmds "$h" "$k"
		fab_batch "$hns" || return 1
		fab_spine_route_cmds "$h" "$k"
		fab_batch "$sns"
		;;
	*)
		echo "fab_link_state: state '$3' is not up, down, del or add" >&2
		return 1
		;;
	esac
}

# fab_tc_batch NS: run the tc commands in FAB_CMDS in namespace NS, then
# empty FAB_CMDS; with -force as a second argument, go on past a failed
# command and report nothing (for deletions of what may not be there).
fab_tc_batch() {
	local ns=$1 cmds=$FAB_CMDS

	FAB_CMDS=""
	if [ "${2:-}" = -force ]; then
		tc -n "$ns" -force -batch - <<< "$cmds" > /dev/null 2>&1
		return 0
	fi
	if ! tc -n "$ns" -batch - <<< "$cmds"; then
		echo "fab: these tc commands failed in $ns:"
		echo "	${cmds//$'\n'/$'\n\t'}"
		return 1
	fi
}

# fab_link_ends_down NS PREFIX N: the numbers 1..N of the devices PREFIX1..
# PREFIXN of namespace NS that are missing or administratively down, one
# per line.
fab_link_ends_down() {
	local ns=$1 pfx=$2 n=$3 links i

	links=$'\n'$(ip -n "$ns" -o link show)
	for ((i = 1; i <= n; i++)); do
		[[ $links =~ $'\n'[0-9]+:\ $pfx$i(@[^:]*)?:\ \<([^>]*,)?UP[,\>] ]] ||
			echo "$i"
	done
}

# fab_reset_links RATE: every link as fab_up left it, then shaped: a link
# a test took down is brought up (deleted: created anew), the fabric's
# routes over every link are restored, and both directions of every link
# get fab_link_shape's tbf at RATE, whatever qdisc they had. It does in
# about twenty commands what fab_link_state, fab_link_clear and
# fab_link_shape would do in about twenty per link: under emulation each
# command costs a tenth of a second.
fab_reset_links() {
	local rate=$1 h k side i j ni nj dev ns tbf red

	[ -n "$rate" ] || { echo "fab_reset_links: no rate" >&2; return 1; }
	fab_shape_args "$rate"
	for ((h = 1; h <= FAB_H; h++)); do
		for k in $(fab_link_ends_down "$(fab_ns_host "$h")" p "$FAB_K"); do
			if ip -n "$(fab_ns_host "$h")" link show dev "p$k" > /dev/null 2>&1; then
				fab_link_state "$h" "$k" up > /dev/null || return 1
			else
				fab_link_state "$h" "$k" add > /dev/null || return 1
			fi
		done
	done
	for ((k = 1; k <= FAB_K; k++)); do
		for h in $(fab_link_ends_down "$(fab_ns_spine "$k")" h "$FAB_H"); do
			fab_link_state "$h" "$k" up > /dev/null || return 1
		done
	done
	for ((h = 1; h <= FAB_H; h++)); do
		for ((k = 1; k <= FAB_K; k++)); do
			fab_host_route_cmds "$h" "$k"
		done
		fab_batch "$(fab_ns_host "$h")" || return 1
	done
	for ((k = 1; k <= FAB_K; k++)); do
		for ((h = 1; h <= FAB_H; h++)); do
			fab_spine_route_cmds "$h" "$k"
		done
		fab_batch "$(fab_ns_spine "$k")" || return 1
	done
	# Both ends of every link: the host's p<k> and the spine's h<h>.
	for side in host spine; do
		if [ "$side" = host ]; then
			ni=$FAB_H nj=$FAB_K dev=p
		else
			ni=$FAB_K nj=$FAB_H dev=h
		fi
		for ((i = 1; i <= ni; i++)); do
			ns=$("fab_ns_$side" "$i")
			for ((j = 1; j <= nj; j++)); do
				fab_cmd 'qdisc del dev %s%d root' "$dev" "$j"
			done
			fab_tc_batch "$ns" -force
			for ((j = 1; j <= nj; j++)); do
				fab_cmd 'qdisc add dev %s%d root handle 1: %s' "$dev" "$j" "${tbf[*]}"
				[ ${#red[@]} -eq 0 ] ||
					fab_cmd 'qdisc add dev %s%d parent 1:1 handle 20: %s' "$dev" "$j" "${red[*]}"
			done
			fab_tc_batch "$ns" || return 1
		done
	done
}

# fab_mtu MTU: set the MTU of both ends of every link.
fab_mtu() {
	local mtu=$1 h k

	FAB_CMDS=""
	for ((h = 1; h <= FAB_H; h++)); do
		for ((k = 1; k <= FAB_K; k++)); do
			fab_cmd 'link set dev p%d mtu %d' "$k" "$mtu"
		done
		fab_batch "mrcf-h$h-$FAB_SUFFIX" || return 1
	done
	for ((k = 1; k <= FAB_K; k++)); do
		for ((h = 1; h <= FAB_H; h++)); do
			fab_cmd 'link set dev h%d mtu %d' "$h" "$mtu"
		done
		fab_batch "mrcf-s$k-$FAB_SUFFIX" || return 1
	done
}

# fab_ping H DEST [COUNT]: ping DEST (a host number or an IPv6 address)
# COUNT times (default 1) from host H's address; succeeds only if every
# echo is answered.
fab_ping() {
	local h=$1 dst=$2 count=${3:-1} out

	[[ $dst =~ ^[0-9]+$ ]] && dst=$(fab_host_addr "$dst")
	out=$(fab_exec_host "$h" ping -6 -q -n -c "$count" -i 0.2 -W "$(slow_limit 2)" \
		-I "$(fab_host_addr "$h")" "$dst" 2>&1)
	[[ $out == *" $count received"* ]] && return 0
	echo "ping from host $h to $dst failed:"
	echo "	${out//$'\n'/$'\n\t'}"
	return 1
}

# fab_paths H1 H2 [S]: on host H1, add the MRC paths toward host H2: one
# per plane per SID, S SIDs a plane (default 1), ids as in the header.
fab_paths() {
	local h1=$1 h2=$2 s=${3:-1} ns dst j k

	[ -x "$FAB_MRC" ] || { echo "fab_paths: $FAB_MRC is missing: run make tools"; return 1; }
	fab_check_link "$h1" 1 && fab_check_link "$h2" 1 || return 1
	ns=$(fab_ns_host "$h1")
	dst=$(fab_host_addr "$h2")/128
	for ((j = 0; j < s; j++)); do
		for ((k = 1; k <= FAB_K; k++)); do
			"$FAB_MRC" -n "$ns" path add "$dst" segs "$(fab_sid "$k" "$j")" \
				id "$(fab_path_id "$k" "$j")" || return 1
		done
	done
}

# fab_path_state H1 H2 ID: the state of host H1's path ID toward host H2,
# as `mrc path show` reports it; nothing if there is no such path. Tests
# poll it while traffic runs: awk, not a python that would compete with
# the traffic for the guest's CPUs.
fab_path_state() {
	"$FAB_MRC" -n "$(fab_ns_host "$1")" path show "$(fab_host_addr "$2")"/128 \
		2>/dev/null | awk -v id="$3" '
			$1 == "id" && $2 == id {
				for (i = 3; i < NF; i++) if ($i == "state") print $(i + 1)
			}'
}

# fab_gone PID: process PID has exited.
fab_gone() {
	! kill -0 "$1" 2>/dev/null
}

# fab_capture_listening PID ERRFILE: tcpdump PID says it is capturing (or
# it died, which fab_capture_start then reports).
fab_capture_listening() {
	grep -q 'listening on' "$2" || ! kill -0 "$1" 2>/dev/null
}

# fab_mac NS DEV: the MAC address of DEV in namespace NS.
fab_mac() {
	ip -n "$1" -o link show dev "$2" | sed -nE 's|.* link/ether ([0-9a-f:]+) .*|\1|p'
}

# fab_capture_start K H DIR FILE [FILTER...]: capture on spine K's h<H>
# into FILE (pcap) until fab_capture_stop. DIR: up (what host H sends to
# spine K), down (what spine K sends to host H) or both.
#
# The direction is a filter on the source MAC address, not tcpdump -Q (its
# discards would spoil the counts fab_capture_stop relies on) nor the
# inbound/outbound keywords: libpcap runs a new filter in user space on
# the first packet, and there those keywords match nothing, so the first
# packet would be lost.
fab_capture_start() {
	local k=$1 h=$2 dir=$3 file=$4 sns filter base pid

	fab_check_link "$h" "$k" || return 1
	shift 4
	sns=$(fab_ns_spine "$k")
	case "$dir" in
	up) filter="ether src $(fab_mac "$(fab_ns_host "$h")" "p$k")" ;;
	down) filter="ether src $(fab_mac "$sns" "h$h")" ;;
	both) filter="" ;;
	*) echo "fab_capture_start: direction '$dir' is not up, down or both"; return 1 ;;
	esac
	if [ "$filter" = "ether src " ]; then
		echo "fab_capture_start: no MAC address for the link of host $h to spine $k"
		return 1
	fi
	if [ $# -gt 0 ]; then
		filter="${filter:+$filter and }($*)"
	fi
	command -v tcpdump > /dev/null || { echo "fab_capture_start: tcpdump is not installed"; return 1; }
	mkdir -p "$FAB_DIR" || return 1
	base=$(mktemp "$FAB_DIR/cap.XXXXXX") || return 1
	# -Z root: tcpdump would otherwise write FILE as user tcpdump. The
	# headers are enough, and short frames let the ring hold more of them.
	ip netns exec "$sns" tcpdump -Z root -n -U --immediate-mode \
		-s "$FAB_CAPTURE_SNAPLEN" -B "$FAB_CAPTURE_BUFFER" \
		-i "h$h" -w "$file" ${filter:+"$filter"} > /dev/null 2> "$base.err" &
	pid=$!
	echo "$pid" > "$base.pid"
	echo "$file" > "$base.file"
	if ! wait_for 10 fab_capture_listening "$pid" "$base.err" || ! kill -0 "$pid" 2>/dev/null; then
		echo "fab_capture_start: tcpdump on h$h of spine $k did not start:"
		sed 's/^/	/' "$base.err"
		kill "$pid" 2>/dev/null
		rm -f "$base" "$base".*
		return 1
	fi
}

# fab_capture_counts ERRFILE: "CAPTURED RECEIVED DROPPED" from tcpdump's
# last report of its counts.
fab_capture_counts() {
	sed -nE 's/^[^0-9]*([0-9]+) packets? captured, ([0-9]+) packets? received by filter, ([0-9]+) packets? dropped by kernel.*/\1 \2 \3/p' "$1" | tail -n 1
}

# fab_capture_report_after PID ERRFILE N: tcpdump has printed more than N
# count reports (or is gone).
fab_capture_report_after() {
	[ "$(grep -c ' captured, ' "$2")" -gt "$3" ] || ! kill -0 "$1" 2>/dev/null
}

# fab_capture_drained PID ERRFILE: ask tcpdump for its counts (SIGUSR1)
# and succeed when it has written every packet the kernel gave it.
fab_capture_drained() {
	local pid=$1 err=$2 n c r d

	n=$(grep -c ' captured, ' "$err")
	kill -USR1 "$pid" 2>/dev/null || return 0
	wait_for 5 fab_capture_report_after "$pid" "$err" "$n" > /dev/null || return 1
	read -r c r d <<< "$(fab_capture_counts "$err")"
	[ -n "$c" ] && [ "$((c + d))" -ge "$r" ]
}

# fab_capture_stop [FILE]: stop the capture into FILE, or every capture.
# First wait until tcpdump has written every packet the kernel gave it,
# since packets still in its ring are lost when it stops. Fails if a
# capture lost packets or could not be stopped.
fab_capture_stop() {
	local only=("$@") base pid err c r d rc=0

	for base in "$FAB_DIR"/cap.*.pid; do
		[ -e "$base" ] || continue
		base=${base%.pid}
		if [ ${#only[@]} -gt 0 ] && [ "$(cat "$base.file")" != "${only[0]}" ]; then
			continue
		fi
		pid=$(cat "$base.pid")
		err=$base.err
		if ! wait_for 10 fab_capture_drained "$pid" "$err" > /dev/null; then
			echo "fab_capture_stop: tcpdump $pid did not catch up: $(fab_capture_counts "$err")"
			rc=1
		fi
		kill -INT "$pid" 2>/dev/null
		if ! wait_for 10 fab_gone "$pid"; then
			kill -KILL "$pid" 2>/dev/null
			rc=1
		fi
		read -r c r d <<< "$(fab_capture_counts "$err")"
		if [ -n "$d" ] && [ "$d" -gt 0 ]; then
			echo "fab_capture_stop: the kernel dropped $d packets of $(cat "$base.file")"
			rc=1
		fi
		rm -f "$base" "$base".*
	done
	return "$rc"
}
