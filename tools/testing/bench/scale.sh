#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scale.sh OUT.json: many connections and many paths, over one unshaped
# veth pair between two namespaces of this guest, MRC vs TCP (both through
# mrcperf, so the applications are the same):
#  - C = 1, 100 and 1,000 concurrent connections (mrcperf -P C): aggregate
#    goodput over SECS seconds;
#  - kernel memory per connection: the guest's slab memory (/proc/meminfo
#    Slab, caches shrunk first) once all C connections are open and idle,
#    and again while they all send, less the value before they opened,
#    divided by C. Both ends are in this guest, so a connection is two
#    sockets; the per-socket figure is half. The busy figure includes
#    the data the connections hold in flight;
#  - one MRC connection over a set of 256 paths against one over 8
#    (entropy-only paths with no segments, on the same veth): goodput.
# Figures are medians of REPS runs (default 3; 1 for C = 1,000).

set -u
out=$1
reps=${REPS:-3}
secs=${SECS:-5}
top=$(cd "$(dirname "$0")/../../.." && pwd)
P=$top/build/tools/mrcperf
MRC=$top/build/tools/mrc
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

# run PROTO C: one run of C connections; prints
# "goodput_mbps idle_bytes_per_conn busy_bytes_per_conn".
run() {
	local flag=$1 c=$2 base idle busy spid cpid gp

	rm -f "$dir"/go "$dir"/go.ready-* "$dir/ready"
	base=$(slab_bytes)
	# shellcheck disable=SC2086 # $flag is one word or none
	ip netns exec "$B" "$P" -s -1 $flag --ready "$dir/ready" \
		--timeout 120 > /dev/null 2>&1 &
	spid=$!
	wait_ready "$spid" "$dir/ready" > /dev/null || return 1
	# shellcheck disable=SC2086
	ip netns exec "$A" "$P" -c "$MRC_ADDR_B" -P "$c" -t "$secs" -l 64K $flag \
		-j --timeout 120 --start "$dir/go" > "$dir/client.json" 2>&1 &
	cpid=$!
	if ! wait_for 120 ready_count; then
		kill "$cpid" "$spid" 2>/dev/null
		return 1
	fi
	idle=$(slab_bytes)
	touch "$dir/go"
	sleep $((secs / 2 + 1))
	busy=$(slab_bytes)
	wait "$cpid"
	wait "$spid"
	gp=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["goodput_mbps"] if d.get("ok", True) else "null")' "$dir/client.json") || return 1
	echo "$gp $(((idle - base) / c)) $(((busy - base) / c))"
}

results=()
for c in 1 100 1000; do
	n=$reps
	[ "$c" -ge 1000 ] && n=1
	for proto in mrc tcp; do
		flag=""
		[ $proto = tcp ] && flag=--tcp
		for _ in $(seq "$n"); do
			run "$flag" "$c" || echo "null null null"
		done > "$dir/$proto-$c.txt"
		gp=$(awk '$1 != "null" { print $1 }' "$dir/$proto-$c.txt" | median)
		idle=$(awk '$2 != "null" { print $2 }' "$dir/$proto-$c.txt" | median)
		busy=$(awk '$3 != "null" { print $3 }' "$dir/$proto-$c.txt" | median)
		echo "$proto, $c connections: $gp Mbit/s; slab per connection idle $idle B, busy $busy B"
		results+=("\"${proto}_c$c\": {\"goodput_mbps\": $gp, \"idle_bytes_per_conn\": $idle, \"busy_bytes_per_conn\": $busy}")
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
			python3 -c 'import json, sys; print(json.load(sys.stdin)["goodput_mbps"])'
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
