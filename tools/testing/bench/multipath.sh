#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# multipath.sh OUT.json: aggregate goodput between two hosts of the test
# fabric (selftests/net/mrc/fabric.sh) over K = 1, 2, 4, 8 planes, every
# host-spine link limited to RATE (default 10 Mbit/s) at MTU 9000 (MTU), in
# one guest run. Under TCG the guest forwards only about 100-200 Mbit/s of
# 1500-byte packets through the fabric, so 8 x RATE must stay well below
# that and large packets keep per-packet costs from deciding the result:
#  - one MRC connection spraying over one path per plane;
#  - one TCP connection (the fabric routes it over plane 1: it has no ECMP);
#  - one MPTCP connection with one subflow per plane (the server announces
#    its address on each plane; the client accepts them).
# Each figure is the median of REPS runs (default 5) of SECS seconds
# (default 5), with the minimum and maximum, and its ratio to K x RATE.
# For MRC also the medians of the ACKs host 2 sent per DATA packet it
# took, and of the DATA packets per skb host 1 transmitted (the segments
# of its GSO batches), from the two hosts' MIBs.

set -u
out=$1
reps=${REPS:-5}
secs=${SECS:-5}
rate=${RATE:-10}
mtu=${MTU:-9000}
planes=${PLANES:-1 2 4 8}
top=$(cd "$(dirname "$0")/../../.." && pwd)
P=$top/build/tools/mrcperf
MRC=$top/build/tools/mrc

# shellcheck source-path=SCRIPTDIR/../../../selftests/net/mrc source=lib.sh
source "$top"/selftests/net/mrc/lib.sh
# shellcheck source-path=SCRIPTDIR/../../../selftests/net/mrc source=fabric.sh
source "$top"/selftests/net/mrc/fabric.sh
trap fab_cleanup EXIT

stats() {
	sort -g | awk '{ v[NR] = $1 } END {
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
		printf "%.1f %.1f %.1f\n", m, v[1], v[NR] }'
}

# median: the median of the numbers on stdin, to 3 places ("null" for none).
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "null"; exit }
		printf "%.3f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Host 1's DATA packets sent and the skbs they went in, host 2's DATA
# packets taken and ACKs sent.
mrc_counts() {
	# shellcheck disable=SC2016 # awk's own fields
	{
		fab_exec_host 1 awk '$1 == "OutData" || $1 == "OutDataSkbs" { print $2 }' \
			/proc/net/mrc_stat
		fab_exec_host 2 awk '$1 == "InData" || $1 == "OutAcks" { print $2 }' \
			/proc/net/mrc_stat
	} | xargs
}

ctr=$(mktemp -d)
port=7100
# run_one mrc|tcp|mptcp: one timed run from host 1 to host 2; Mbit/s. For
# MRC, appends its ACKs per DATA packet to $ctr/acks and its DATA packets
# per skb to $ctr/segs.
run_one() {
	local flag='' dst c0=''

	port=$((port + 1))
	case $1 in
	tcp) flag=--tcp ;;
	mptcp) flag=--mptcp ;;
	esac
	if [ "$1" = mrc ]; then
		dst=$(fab_host_addr 2)
		c0=$(mrc_counts)
	else
		dst=$(fab_link_addr 2 1)
	fi
	# shellcheck disable=SC2086 # $flag is one word or none
	fab_exec_host 2 "$P" -s -1 -p "$port" $flag --ready /tmp/mp-bench-ready \
		> /dev/null 2>&1 &
	local spid=$!
	wait_ready "$spid" /tmp/mp-bench-ready > /dev/null || { echo 0; return; }
	rm -f /tmp/mp-bench-ready
	# shellcheck disable=SC2086
	fab_exec_host 1 "$P" -c "$dst" -p "$port" -t "$secs" -l 64K -j $flag |
		jq -er .goodput_mbps 2> /dev/null || echo 0
	wait "$spid"
	[ -n "$c0" ] || return 0
	# The order of mrc_counts: OutData OutDataSkbs (host 1, in the order
	# of /proc/net/mrc_stat), InData OutAcks (host 2).
	# shellcheck disable=SC2046,SC2086 # two lists of four numbers
	set -- $c0 $(mrc_counts)
	awk -v d=$(($7 - $3)) -v a=$(($8 - $4)) 'BEGIN {
		if (d > 0) printf "%.3f\n", a / d }' >> "$ctr/acks"
	awk -v d=$(($5 - $1)) -v k=$(($6 - $2)) 'BEGIN {
		if (k > 0) printf "%.2f\n", d / k }' >> "$ctr/segs"
}

# shape K: every host-spine link of planes 1..K limited to $rate, both
# directions; the links of other planes down, so nothing strays there.
shape() {
	local k h

	for k in $(seq 1 8); do
		for h in 1 2; do
			if [ "$k" -le "$1" ]; then
				fab_link_state "$h" "$k" up
				fab_link_shape "$h" "$k" both "${rate}mbit"
			else
				fab_link_state "$h" "$k" down
			fi
		done
	done
}

# paths K: MRC paths over planes 1..K both ways; MPTCP endpoints likewise.
paths() {
	local k h o

	for h in 1 2; do
		o=$((3 - h))
		fab_exec_host "$h" "$MRC" path flush
		fab_exec_host "$h" ip mptcp endpoint flush
		fab_exec_host "$h" ip mptcp limits set subflow 8 add_addr_accepted 8
		for k in $(seq 1 "$1"); do
			fab_exec_host "$h" "$MRC" path add "$(fab_host_addr "$o")"/128 \
				segs "$(fab_sid "$k")" id "$k"
			# The server (host 2) announces its other planes.
			if [ "$h" = 2 ] && [ "$k" -gt 1 ]; then
				fab_exec_host 2 ip mptcp endpoint add "$(fab_link_addr 2 "$k")" \
					dev "p$k" signal
			fi
		done
	done
}

fab_up 2 8 > /dev/null || { echo "fabric setup failed"; exit 1; }
fab_mtu "$mtu" || { echo "cannot set MTU $mtu"; exit 1; }
for h in 1 2; do
	fab_exec_host "$h" sysctl -qw net.mptcp.enabled=1
done
results=()
for k in $planes; do
	shape "$k"
	paths "$k"
	cap=$((k * rate))
	line="\"k$k\": {\"planes\": $k, \"capacity_mbps\": $cap"
	: > "$ctr/acks"
	: > "$ctr/segs"
	for proto in mrc tcp mptcp; do
		read -r med lo hi <<< "$(for _ in $(seq "$reps"); do run_one $proto; done | stats)"
		echo "K=$k $proto: $med Mbit/s (min $lo, max $hi) of $cap"
		line+=", \"${proto}_mbps\": $med, \"${proto}_min\": $lo, \"${proto}_max\": $hi"
		line+=", \"${proto}_ratio\": $(awk -v m="$med" -v c="$cap" 'BEGIN { printf "%.3f", m / c }')"
	done
	line+=", \"mrc_acks_per_data\": $(median < "$ctr/acks")"
	line+=", \"mrc_segs_per_skb\": $(median < "$ctr/segs")"
	results+=("$line}")
done
rm -rf "$ctr"

{
	echo "{ \"kernel\": \"$(uname -r)\", \"repetitions\": $reps, \"seconds\": $secs,"
	echo "  \"link_rate_mbps\": $rate, \"mtu\": $mtu,"
	(IFS=,; echo "${results[*]}")
	echo "}"
} > "$out"
python3 -m json.tool "$out"
