#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Wireshark dissector (tools/wireshark/mrc.lua) against a real
# transfer: two hosts joined by one plane (fabric.sh), a content-checked
# transfer from host 1 to host 2 over 4 SRv6 paths, captured on the spine
# in both directions. tshark with the dissector must decode the capture
# without a Lua error or malformed packet, and agree with the counters of
# the two namespaces and of the connection:
#  - packets of each type in the capture = the Out counters of both hosts
#    (DATA = OutData, ACK = OutAcks, SYN + SYNACK = OutSyns, FIN = OutFins,
#    NACK = OutNacks, RST = OutRsts, PROBE = OutProbes, PROBE_REPLY =
#    OutProbeReplies), every packet of a UDP GSO batch counted;
#  - host 1's DATA PSNs span exactly the packets it sent once
#    (pkts_sent - pkts_retrans of its mrc_info);
#  - the receiver's last ACK's cumulative PSN is one past host 1's highest
#    DATA PSN.
# Skipped when tshark is not installed.

# Test functions run through run_test, which shellcheck cannot follow.
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")"/lib.sh
# shellcheck source-path=SCRIPTDIR source=fabric.sh
source "$(dirname "$0")"/fabric.sh

MRCPERF=$MRC_TOP/build/tools/mrcperf
LUA=$MRC_TOP/tools/wireshark/mrc.lua
CHECK=$MRC_TOP/tools/wireshark/check.sh
PORT=7600
COUNTERS="OutData OutAcks OutSyns OutFins OutNacks OutRsts OutProbes OutProbeReplies"

tmp=$(mktemp -d)
cleanup() {
	fab_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit "$KSFT_FAIL"' INT TERM

# counters H: "NAME VALUE" of host H's counters of interest.
counters() {
	# shellcheck disable=SC2016 # awk's own $1 and $2
	fab_exec_host "$1" awk -v want="$COUNTERS" 'BEGIN { n = split(want, w, " ")
		for (i = 1; i <= n; i++) c[w[i]] = 0 }
		$1 in c { c[$1] = $2 } END { for (k in c) print k, c[k] }' /proc/net/mrc_stat
}

test_capture() {
	local cap=$tmp/mrc.pcap spid cpid rc

	fab_up 2 1 > "$tmp/fab.log" || { cat "$tmp/fab.log"; return 1; }
	fab_paths 1 2 4 && fab_paths 2 1 4 || return 1
	{ counters 1; counters 2; } > "$tmp/before"
	fab_capture_start 1 1 both "$cap" || return 1
	rm -f "$tmp/ready"
	fab_exec_host 2 "$MRCPERF" -s -1 -p "$PORT" --timeout "$(slow_limit 60)" \
		--ready "$tmp/ready" > "$tmp/server.log" 2>&1 &
	spid=$!
	wait_ready "$spid" "$tmp/ready" || return 1
	fab_exec_host 1 "$MRCPERF" -c "$(fab_host_addr 2)" -p "$PORT" -l 64K -n 32 \
		--verify -j --timeout "$(slow_limit 60)" > "$tmp/client.json" 2>&1 &
	cpid=$!
	wait "$cpid"
	rc=$?
	wait_for 30 fab_gone "$spid" || kill "$spid"
	wait "$spid" || rc=1
	# The FIN handshake ends after both programs: let it finish.
	sleep 1
	fab_capture_stop "$cap" || return 1
	{ counters 1; counters 2; } > "$tmp/after"
	if [ "$rc" -ne 0 ]; then
		echo "transfer failed"
		cat "$tmp/client.json" "$tmp/server.log"
		return 1
	fi
	"$CHECK" "$cap" > "$tmp/check.txt" || { cat "$tmp/check.txt"; return 1; }
	sed 's/^/capture: /' "$tmp/check.txt"
	python3 - "$tmp/before" "$tmp/after" "$tmp/check.txt" "$tmp/client.json" <<'EOF' || return 1
import json, sys

def sums(path):
    s = {}
    for line in open(path):
        k, v = line.split()
        s[k] = s.get(k, 0) + int(v)
    return s

before, after = sums(sys.argv[1]), sums(sys.argv[2])
sent = {k: after[k] - before[k] for k in after}
seen, streams = {}, []
for line in open(sys.argv[3]):
    f = line.split()
    if f[0] == "DATA_STREAM":
        streams.append(f)
    elif len(f) >= 2:
        seen[f[0]] = int(f[1])
want = {"DATA": sent["OutData"], "ACK": sent["OutAcks"],
        "SYN+SYNACK": sent["OutSyns"], "FIN": sent["OutFins"],
        "NACK": sent["OutNacks"], "RST": sent["OutRsts"],
        "PROBE": sent["OutProbes"], "PROBE_REPLY": sent["OutProbeReplies"]}
got = dict(seen)
got["SYN+SYNACK"] = seen.get("SYN", 0) + seen.get("SYNACK", 0)
bad = 0
for k, v in want.items():
    print("%-12s counters %6d  capture %6d" % (k, v, got.get(k, 0)))
    if got.get(k, 0) != v:
        bad += 1
if seen.get("UNKNOWN", 0):
    print("%d packets of unknown type" % seen["UNKNOWN"])
    bad += 1
info = json.load(open(sys.argv[4]))["conns"][0]["mrc_info"]
once = info["pkts_sent"] - info["pkts_retrans"]
# The DATA stream of host 1: the one with the most packets.
s = max(streams, key=lambda f: int(f[3]))
span = (int(s[5]) - int(s[4])) % (1 << 24) + 1
print("host 1 DATA PSNs %s..%s: %d distinct; mrc_info: %d sent once" %
      (s[4], s[5], span, once))
if span != once:
    bad += 1
sys.exit(1 if bad else 0)
EOF
	# The receiver's last ACK to host 1 (whose id is the DATA stream's
	# scid, and the ACKs' dcid) acknowledges everything.
	read -r scid max <<< "$(awk '$1 == "DATA_STREAM" && $4 > n { n = $4; s = $2; m = $6 }
		END { print s, m }' "$tmp/check.txt")"
	tshark -n -X lua_script:"$LUA" -r "$cap" -Y "mrc.type == 2 && mrc.dcid == $scid" \
		-T fields -e mrc.ack.cum_psn 2>/dev/null | tail -n 1 > "$tmp/cum"
	echo "$max" > "$tmp/max"
	echo "last ACK cum_psn $(cat "$tmp/cum"), highest DATA PSN $(cat "$tmp/max")"
	python3 -c 'import sys
c, m = (int(open(f).read().split()[0], 0) for f in sys.argv[1:])
sys.exit(0 if c == (m + 1) % (1 << 24) else 1)' "$tmp/cum" "$tmp/max"
}

mrc_loaded || { echo "mrc.ko is not loaded"; exit "$KSFT_SKIP"; }
for t in tshark tcpdump; do
	command -v $t > /dev/null || { echo "$t is not installed"; exit "$KSFT_SKIP"; }
done
[ -x "$MRCPERF" ] || { echo "mrcperf is missing: run make tools"; exit "$KSFT_FAIL"; }

ktap_begin 1
run_test "the dissector decodes a transfer as the counters count it" test_capture
ktap_end
