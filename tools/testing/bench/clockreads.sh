#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# clockreads.sh [MTU [SECS]]: who reads the clock, and how often per DATA
# packet, while one connection sends 64 KB messages over an unshaped veth
# at MTU (default 9000). A kprobe on ktime_get() feeds a histogram keyed
# by the stack for SECS seconds (default 2), one second into the
# transfer; the report sums the hits by the caller and its caller, and
# gives the reads from mrc.ko per DATA packet the sender sent meanwhile.
# In a TCG guest on the HPET each read is an emulated device access
# (Documentation/networking/mrc-performance.rst, "The guest's clock").
# Run it in a guest:
#   tools/testing/vm-run --kernel KVER -- tools/testing/bench/clockreads.sh

set -u
mtu=${1:-9000}
secs=${2:-2}
top=$(cd "$(dirname "$0")/../../.." && pwd)
P=$top/build/tools/mrcperf
A=mrc-clk-a-$RANDOM
B=mrc-clk-b-$RANDOM
T=/sys/kernel/tracing
dir=$(mktemp -d)

# shellcheck source-path=SCRIPTDIR/../../../selftests/net/mrc source=lib.sh
source "$top"/selftests/net/mrc/lib.sh
cleanup() {
	echo 0 > $T/events/kprobes/mrc_clk/enable 2> /dev/null
	echo '!hist:keys=stacktrace' > $T/events/kprobes/mrc_clk/trigger 2> /dev/null
	echo '-:mrc_clk' >> $T/kprobe_events 2> /dev/null
	ns_del "$A" "$B"
	rm -rf "$dir"
}
trap cleanup EXIT
ns_pair "$A" "$B" > /dev/null || exit 1
ip -n "$A" link set veth-a mtu "$mtu"
ip -n "$B" link set veth-b mtu "$mtu"
[ -d $T/events ] || mount -t tracefs nodev $T
echo 'p:mrc_clk ktime_get' >> $T/kprobe_events || exit 1
echo 'hist:keys=stacktrace:vals=hitcount:size=8192' \
	> $T/events/kprobes/mrc_clk/trigger || exit 1

ip netns exec "$B" "$P" -s -1 --ready "$dir/ready" > /dev/null 2>&1 &
spid=$!
wait_ready "$spid" "$dir/ready" > /dev/null || exit 1
ip netns exec "$A" "$P" -c "$MRC_ADDR_B" -t $((secs + 2)) -l 64K -j \
	> "$dir/client.json" &
cpid=$!
sleep 1
d0=$(mrc_mib "$A" OutData)
echo 1 > $T/events/kprobes/mrc_clk/enable
sleep "$secs"
echo 0 > $T/events/kprobes/mrc_clk/enable
d1=$(mrc_mib "$A" OutData)
wait "$cpid"
wait "$spid"
python3 -c 'import json, sys; print("goodput Mbit/s:", json.load(open(sys.argv[1]))["goodput_mbps"])' \
	"$dir/client.json"
echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
# Each histogram entry: the stack, innermost first (the kprobe's own
# frames, then ktime_get, its caller, the caller's caller), then its
# hit count.
awk -v data=$((d1 - d0)) '
	/ktime_get\+/ { getline; c = $1 " " $2; getline; c = c " < " $1
		gsub(/\+0x[0-9a-f]+\/0x[0-9a-f]+/, "", c); next }
	/hitcount:/ { h[c] += $NF; all += $NF; if (c ~ /\[mrc\]/) m += $NF }
	END {
		for (k in h)
			printf "%8d  %s\n", h[k], k | "sort -rn | head -n 15"
		close("sort -rn | head -n 15")
		printf "reads: %d in all, %d from mrc.ko; DATA packets sent: %d;", all, m, data
		printf " mrc.ko reads per DATA packet: %.2f\n", data ? m / data : 0
	}' $T/events/kprobes/mrc_clk/hist
