#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scale.sh OUT.json: many connections and many paths, over one unshaped
# veth pair between two namespaces of this guest, MRC vs TCP (both through
# mrcperf, so the applications are the same):
#  - C = 1, 100 and 1,000 concurrent connections (mrcperf -P C): aggregate
#    goodput over SECS seconds (default 3);
#  - kernel memory per idle connection: the guest's slab memory
#    (/proc/meminfo Slab, caches shrunk first) with C connections open
#    and idle, less the value before, divided by C. The connections are
#    opened by conn_pairs, one thread that connects to itself, so no
#    thread per connection is counted; both ends are in this guest, so a
#    connection is two sockets, and the per-socket figure is half;
#  - kernel memory per busy connection: during the goodput run, the slab
#    memory while all C connections send, less the value while they were
#    open and idle (mrcperf's threads are in both), divided by C: the data
#    and state a sending connection holds on top of an idle one;
#  - one MRC connection over a set of 256 paths against one over 8
#    (entropy-only paths with no segments, on the same veth): goodput.
# Figures are medians of REPS runs (default 5).

set -u
out=$1
reps=${REPS:-5}
secs=${SECS:-3}
top=$(cd "$(dirname "$0")/../../.." && pwd)
P=$top/build/tools/mrcperf
MRC=$top/build/tools/mrc
PAIRS=$top/build/tools/conn_pairs
A=mrc-scale-a-$RANDOM
B=mrc-scale-b-$RANDOM
dir=$(mktemp -d)

# shellcheck source-path=SCRIPTDIR/../../../selftests/net/mrc source=lib.sh
source "$top"/selftests/net/mrc/lib.sh
trap 'ns_del "$A" "$B"; rm -rf "$dir"' EXIT
ns_pair "$A" "$B" || exit 1
# A thousand connections need a thousand descriptors and threads a side.
ulimit -n 65536

median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "null";
		else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Slab memory of the guest in bytes, after emptying what can be emptied.
slab_bytes() {
	local c

	for c in /sys/kernel/slab/*/shrink; do
		echo 1 > "$c" 2>/dev/null
	done
	awk '$1 == "Slab:" { print $2 * 1024 }' /proc/meminfo
}

ready_count() {
	[ "$(find "$dir" -maxdepth 1 -name 'go.ready-*' | wc -l)" -ge 1 ]
}

# idle_mem PROTO-FLAG C: slab bytes per idle connection, C of them.
idle_mem() {
	local flag=$1 c=$2 base pid mem pairs_port

	rm -f "$dir/pairs.ready"
	base=$(slab_bytes)
	pairs_port=$((7000 + RANDOM % 2000))
	# shellcheck disable=SC2086 # $flag is one word or none
	ip netns exec "$A" "$PAIRS" $flag -a "$MRC_ADDR_A" -p "$pairs_port" -n "$c" \
		-r "$dir/pairs.ready" >&2 &
	pid=$!
	if ! wait_for 120 test -e "$dir/pairs.ready" >&2; then
		kill "$pid" 2>/dev/null
		wait "$pid"
		echo null
		return
	fi
	mem=$(slab_bytes)
	kill "$pid"
	wait "$pid"
	echo $(((mem - base) / c))
}

# run PROTO-FLAG C: one goodput run of C connections; prints
# "goodput_mbps busy_extra_bytes_per_conn".
run() {
	local flag=$1 c=$2 idle busy spid cpid gp

	rm -f "$dir"/go "$dir"/go.ready-* "$dir/ready"
	# shellcheck disable=SC2086 # $flag is one word or none
	ip netns exec "$B" "$P" -s -1 $flag --ready "$dir/ready" \
		--timeout 120 > /dev/null 2>&1 &
	spid=$!
	wait_ready "$spid" "$dir/ready" > /dev/null || return 1
	# shellcheck disable=SC2086
	ip netns exec "$A" "$P" -c "$MRC_ADDR_B" -P "$c" -t "$secs" -l 64K $flag \
		-j --timeout 120 --start "$dir/go" > "$dir/client.json" 2>&1 &
	cpid=$!
	if ! wait_for 120 ready_count >&2; then
		kill "$cpid" "$spid" 2>/dev/null
		return 1
	fi
	idle=$(slab_bytes)
	touch "$dir/go"
	sleep $((secs / 2 + 1))
	busy=$(slab_bytes)
	wait "$cpid"
	wait "$spid"
	gp=$(jq -r 'if .ok == false then null else .goodput_mbps end' \
		"$dir/client.json") || return 1
	echo "$gp $(((busy - idle) / c))"
}

results=()
for c in 1 100 1000; do
	n=$reps
	for proto in mrc tcp; do
		flag=""
		[ $proto = tcp ] && flag=--tcp
		for _ in $(seq "$n"); do
			run "$flag" "$c" || echo "null null"
		done > "$dir/$proto-$c.txt"
		gp=$(awk '$1 != "null" { print $1 }' "$dir/$proto-$c.txt" | median)
		busy=$(awk '$2 != "null" { print $2 }' "$dir/$proto-$c.txt" | median)
		pflag=""
		[ $proto = tcp ] && pflag=-t
		idle=$(for _ in $(seq "$n"); do idle_mem "$pflag" "$c"; done |
			awk '$1 != "null"' | median)
		echo "$proto, $c connections: $gp Mbit/s; slab per connection idle $idle B, busy extra $busy B"
		results+=("\"${proto}_c$c\": {\"goodput_mbps\": $gp, \"idle_bytes_per_conn\": $idle, \"busy_extra_bytes_per_conn\": $busy}")
	done
done

# The same connection over 8 paths, then over 256.
paths_goodput() {
	local nr=$1 id

	ip netns exec "$A" "$MRC" path flush || return 1
	for id in $(seq "$nr"); do
		ip netns exec "$A" "$MRC" path add "$MRC_ADDR_B"/128 id "$id" || return 1
	done
	for _ in $(seq "$reps"); do
		ip netns exec "$B" "$P" -s -1 > /dev/null 2>&1 &
		sleep 0.5
		ip netns exec "$A" "$P" -c "$MRC_ADDR_B" -t "$secs" -l 64K -j |
			jq -r .goodput_mbps
		wait
	done | median
}
g8=$(paths_goodput 8)
g256=$(paths_goodput 256)
ip netns exec "$A" "$MRC" path flush
echo "one connection: 8 paths $g8 Mbit/s, 256 paths $g256 Mbit/s"
results+=("\"paths\": {\"p8_mbps\": $g8, \"p256_mbps\": $g256, \"ratio\": $(echo "$g256 $g8" | awk '{ printf "%.3f", ($2 > 0) ? $1 / $2 : 0 }')}")

{
	echo "{ \"kernel\": \"$(uname -r)\", \"repetitions\": $reps, \"seconds\": $secs,"
	(IFS=,; echo "${results[*]}")
	echo "}"
} > "$out"
python3 -m json.tool "$out"
