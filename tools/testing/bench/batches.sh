#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# batches.sh: the GSO batches of one bulk transfer, by packet count. Run
# in a guest of tools/testing/vm-run (root, tracefs, mrc.ko loaded):
#
#   tools/testing/vm-run --kernel K -- env MTU=1500 tools/testing/bench/batches.sh
#
# One 4 s mrcperf transfer of 64 KB messages over a veth at MTU (default
# 1500), with kprobes on mrc_xmit_batch() (a histogram of its packet
# count) and mrc_xmit_data() (packets sent alone). PARAMS="NAME=VALUE ..."
# sets mrc module parameters first; PIN=1 runs the sender on CPU 0 and
# the receiver on CPU 1. Prints the goodput, the histogram and the count
# of single packets. What limits a batch shows as a peak: see
# Documentation/networking/mrc-performance.rst, "What holds a batch small".

set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
P=$top/build/tools/mrcperf
A=mrc-bt-a-$RANDOM
B=mrc-bt-b-$RANDOM
T=/sys/kernel/tracing
mtu=${MTU:-1500}
dir=$(mktemp -d)

# shellcheck source-path=SCRIPTDIR/../../../selftests/net/mrc source=lib.sh
source "$top"/selftests/net/mrc/lib.sh
cleanup() {
	echo '!hist:keys=n:vals=hitcount:sort=n' > $T/events/kprobes/mrc_bt_batch/trigger 2> /dev/null
	echo '!hist:keys=common_pid:vals=hitcount' > $T/events/kprobes/mrc_bt_one/trigger 2> /dev/null
	echo '-:mrc_bt_batch' >> $T/kprobe_events 2> /dev/null
	echo '-:mrc_bt_one' >> $T/kprobe_events 2> /dev/null
	ns_del "$A" "$B"
	rm -rf "$dir"
}
trap cleanup EXIT
[ -d $T/events ] || mount -t tracefs nodev $T
# shellcheck disable=SC2086 # one word per NAME=VALUE
mrc_set_params ${PARAMS:-} || exit 1
ps=()
pc=()
[ "${PIN:-0}" = 1 ] && { ps=(taskset -c 1); pc=(taskset -c 0); }
ns_pair "$A" "$B" > /dev/null || exit 1
ip -n "$A" link set veth-a mtu "$mtu"
ip -n "$B" link set veth-b mtu "$mtu"
# x86-64: the third argument is in %dx.
echo 'p:mrc_bt_batch mrc_xmit_batch n=%dx:u32' >> $T/kprobe_events || exit 1
echo 'p:mrc_bt_one mrc_xmit_data' >> $T/kprobe_events || exit 1
echo 'hist:keys=n:vals=hitcount:sort=n' > $T/events/kprobes/mrc_bt_batch/trigger || exit 1
echo 'hist:keys=common_pid:vals=hitcount' > $T/events/kprobes/mrc_bt_one/trigger || exit 1
ip netns exec "$B" "${ps[@]}" "$P" -s -1 --ready "$dir/ready" > /dev/null 2>&1 &
wait_ready $! "$dir/ready" > /dev/null || exit 1
ip netns exec "$A" "${pc[@]}" "$P" -c "$MRC_ADDR_B" -t 4 -l 64K -j > "$dir/client.json" ||
	{ echo "batches: the transfer failed"; exit 1; }
echo "goodput $(jq -r .goodput_mbps "$dir/client.json") Mbit/s, MTU $mtu, params ${PARAMS:-none}"
echo "batches by packets:"
grep '^{' $T/events/kprobes/mrc_bt_batch/hist
echo "packets sent alone: $(awk '/Hits:/ { print $2 }' $T/events/kprobes/mrc_bt_one/hist)"
