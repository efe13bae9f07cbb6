#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pcload.sh [MTU [SECS]]: the guest side of tools/testing/bench/pcprof.
# One bulk transfer of 64 KB messages over an unshaped veth at MTU
# (default 9000), MRC or, with PROTO=tcp, TCP (mrcperf --tcp); PAR=N
# runs N connections (mrcperf -P N); PIN=1 runs the sender on CPU 0 and
# the receiver on CPU 1 (taskset); MRC_PARAMS="NAME=VALUE ..." sets mrc
# module parameters first. It saves the guest's /proc/kallsyms
# in $VM_RUN_OUT, for the host to name the sampled addresses, and marks
# the SECS seconds (default 5) the host samples by creating
# $VM_RUN_OUT/pcload.start and pcload.stop, one second after the
# transfer began, so that the handshake and slow start are left out.
# Each marker holds the bytes the receiving veth had taken by then.

set -u
mtu=${1:-9000}
secs=${2:-5}
top=$(cd "$(dirname "$0")/../../.." && pwd)
P=$top/build/tools/mrcperf
A=mrc-pc-a-$RANDOM
B=mrc-pc-b-$RANDOM
out=${VM_RUN_OUT:?run in a guest of tools/testing/vm-run}
dir=$(mktemp -d)
flag=()
[ "${PROTO:-mrc}" = tcp ] && flag=(--tcp)
pin_s=()
pin_c=()
[ "${PIN:-0}" = 1 ] && { pin_s=(taskset -c 1); pin_c=(taskset -c 0); }

# shellcheck source-path=SCRIPTDIR/../../../selftests/net/mrc source=lib.sh
source "$top"/selftests/net/mrc/lib.sh
# The bytes veth-b took, read with builtins only (from the namespace of
# the server, pid $spid), so that a marker follows the reading at once.
rx_bytes() {
	local dev bytes rest

	while IFS=': ' read -r dev bytes rest; do
		[ "$dev" = veth-b ] && { echo "$bytes"; return; }
	done < "/proc/$spid/net/dev"
}

# mark NAME: the bytes taken so far in $out/NAME, which appears whole.
mark() {
	rx_bytes > "$out/$1.tmp"
	mv "$out/$1.tmp" "$out/$1"
}
trap 'ns_del "$A" "$B"; rm -rf "$dir"' EXIT
# shellcheck disable=SC2086 # one word per NAME=VALUE
mrc_set_params ${MRC_PARAMS:-} || exit 1
ns_pair "$A" "$B" > /dev/null || exit 1
ip -n "$A" link set veth-a mtu "$mtu"
ip -n "$B" link set veth-b mtu "$mtu"
cat /proc/kallsyms > "$out/kallsyms"

ip netns exec "$B" "${pin_s[@]}" "$P" -s -1 "${flag[@]}" --ready "$dir/ready" > /dev/null 2>&1 &
spid=$!
wait_ready "$spid" "$dir/ready" > /dev/null || exit 1
ip netns exec "$A" "${pin_c[@]}" "$P" -c "$MRC_ADDR_B" "${flag[@]}" -t $((secs + 2)) -l 64K \
	-P "${PAR:-1}" -j > "$dir/client" &
cpid=$!
sleep 1
mark pcload.start
sleep "$secs"
mark pcload.stop
wait "$cpid" || { echo "pcload: the transfer failed"; exit 1; }
wait "$spid"
echo "pcload: $(jq -r .goodput_mbps "$dir/client") Mbit/s"
