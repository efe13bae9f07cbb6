#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ab.sh CONFIG...: one connection's goodput and CPU over an unshaped veth,
# for several modules or settings in turn in this one guest, so that a
# change is compared within one run (the spread between guests is larger
# than most effects). Each CONFIG is TREE:BURST, the mrc.ko built in TREE
# (make modules) loaded with spray_burst BURST; TREE:BURST,NAME=VALUE,...
# also sets those module parameters (for example /tmp/a:0,ack_every=16).
# ROUNDS rounds (default 3) of every CONFIG at each MTU of MTUS (default "9000 1500"), SECS seconds
# each (default 4), then TCP (mrcperf --tcp) at each MTU. Each line gives
# Mbit/s, the guest's system plus softirq seconds per GB, the DATA
# packets and DATA transmissions of the sender (OutData, OutDataSkbs),
# the receiver's ACKs, and the sender's cwnd and send limits (ms). With
# PROFILE=1, profile.sh then runs once per CONFIG at MTU 9000. PAR=N
# runs N connections at once (mrcperf -P N) instead of one; the send
# limits are then the first connection's. PINS="0 1" runs each
# configuration and TCP twice per round, unpinned and then with the
# sender on CPU 0 and the receiver on CPU 1 (the lines say "pinned").
# Run in a guest, for example:
#   tools/testing/vm-run -- tools/testing/bench/ab.sh /tmp/old:1 $PWD:0
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
P=$top/build/tools/mrcperf
A=mrc-ab-a-$RANDOM
B=mrc-ab-b-$RANDOM
K=$(uname -r)
secs=${SECS:-4}
hz=$(getconf CLK_TCK)
dir=$(mktemp -d)

# shellcheck source-path=SCRIPTDIR/../../../selftests/net/mrc source=lib.sh
source "$top"/selftests/net/mrc/lib.sh
trap 'ns_del "$A" "$B"; rm -rf "$dir"' EXIT

ticks() {
	awk '$1 == "cpu" { print $4 + $8 }' /proc/stat
}

# load TREE BURST[,PARAM=VALUE...]
load() {
	local burst=${2%%,*}

	rmmod sch_mrctrim 2> /dev/null
	rmmod mrc 2> /dev/null
	insmod "$1/build/$K/mrc.ko" || { echo "insmod $1/build/$K/mrc.ko failed"; exit 1; }
	# shellcheck disable=SC2046 # one word per NAME=VALUE
	mrc_set_params spray_burst="$burst" $(echo "${2#"$burst"}" | tr , ' ') ||
		exit 1
}

pair() {
	ns_del "$A" "$B"
	ns_pair "$A" "$B" > /dev/null || exit 1
	ip -n "$A" link set veth-a mtu "$1"
	ip -n "$B" link set veth-b mtu "$1"
}

# run MTU [--tcp]: one transfer; prints its line. With $pin set, the
# sender runs on CPU 0 and the receiver on CPU 1.
run() {
	local mtu=$1 t0 t1 out mb ps=() pc=()

	[ "${pin:-0}" = 1 ] && { ps=(taskset -c 1); pc=(taskset -c 0); }
	pair "$mtu"
	rm -f "$dir/ready"
	ip netns exec "$B" "${ps[@]}" "$P" -s -1 ${2:+"$2"} --ready "$dir/ready" > /dev/null 2>&1 &
	wait_ready $! "$dir/ready" > /dev/null || exit 1
	t0=$(ticks)
	out=$(ip netns exec "$A" "${pc[@]}" "$P" -c "$MRC_ADDR_B" ${2:+"$2"} -t "$secs" -l 64K \
		-P "${PAR:-1}" -j)
	t1=$(ticks)
	wait
	mb=$(jq -r .goodput_mbps <<< "$out")
	printf "mtu %s Mbit/s %s CPU_s/GB %s" "$mtu" "$mb" \
		"$(awk -v t=$((t1 - t0)) -v hz="$hz" -v mb="$mb" -v s="$secs" \
			'BEGIN { printf "%.2f", t / hz / (mb * s / 8000) }')"
	[ -n "${2:-}" ] && { echo; return; }
	echo " OutData $(mrc_mib "$A" OutData) OutDataSkbs $(mrc_mib "$A" OutDataSkbs)" \
		"OutAcks $(mrc_mib "$B" OutAcks) OutRetrans $(mrc_mib "$A" OutRetrans)" \
		"[cwnd,busy,app,cwnd,wnd,rwnd,sndbuf] $(jq -c '.conns[0].mrc_info |
			[.cwnd, (.busy_us, .app_limited_us, .cwnd_limited_us,
			 .wnd_limited_us, .rwnd_limited_us, .sndbuf_limited_us) / 1000]' <<< "$out")"
}

[ $# -gt 0 ] || { echo "usage: ab.sh TREE:BURST[,NAME=VALUE...]..."; exit 1; }
for r in $(seq "${ROUNDS:-3}"); do
	for pin in ${PINS:-0}; do
		how=
		[ "$pin" = 1 ] && how=" pinned"
		for c in "$@"; do
			load "${c%:*}" "${c##*:}"
			for m in ${MTUS:-9000 1500}; do
				echo "round $r $c$how: $(run "$m")"
			done
		done
		for m in ${MTUS:-9000 1500}; do
			echo "round $r tcp$how: $(run "$m" --tcp)"
		done
	done
done
if [ -n "${PROFILE:-}" ]; then
	for c in "$@"; do
		load "${c%:*}" "${c##*:}"
		echo "profile $c:"
		"$top"/tools/testing/bench/profile.sh 9000 3
	done
fi
