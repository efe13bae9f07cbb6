#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh: count the MRC packets of a capture with the Wireshark dissector.
#
# Usage: tools/wireshark/check.sh [-p PORT] FILE
#
# Runs tshark with mrc.lua (found next to this script) over FILE, a pcap or
# pcapng capture, with the MRC UDP port PORT (default 4797), and prints one
# line per MRC packet type, always in this order:
#
#   DATA COUNT PSN_MIN PSN_MAX
#   ACK COUNT
#   NACK COUNT
#   SYN COUNT
#   SYNACK COUNT
#   FIN COUNT
#   RST COUNT
#   PROBE COUNT
#   PROBE_REPLY COUNT
#   UNKNOWN COUNT
#
# then one line per DATA stream (one direction of one connection), in the
# order they first appear:
#
#   DATA_STREAM SCID DCID COUNT PSN_MIN PSN_MAX
#
# Counts are of MRC packets on the wire. A UDP GSO batch captured before
# segmentation (several DATA packets in one UDP datagram) counts as all its
# packets, those beyond the snap length too; their PSNs are consecutive, so
# the last one is known. PSNs are ordered with serial number arithmetic
# (mrc.rst, "Sequence number arithmetic") from the first one seen, so a
# range may wrap past 4294967295: PSN_MIN is then larger than PSN_MAX. The
# DATA line's PSNs mean something only when the capture has one DATA
# stream; PSN_MIN and PSN_MAX are "-" when there is no DATA packet.
# UNKNOWN counts packets of an unknown version or type, or too short for
# one.
#
# Exit status: 0 when tshark decoded the whole capture; 1 on a Lua error
# (loading mrc.lua or dissecting), a malformed packet (an expert info of
# group Malformed, from any dissector) or a tshark failure, with the frames
# concerned on stderr (the counts are printed all the same); 2 on a usage
# error; 4 (kselftest's "skip") when tshark is not installed.
set -u

DIR=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
LUA=$DIR/mrc.lua
PI_MALFORMED=0x07000000

usage() {
	echo "usage: $0 [-p PORT] FILE" >&2
	exit 2
}

port=4797
while getopts p: opt; do
	case $opt in
	p) port=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
file=$1
case $port in
'' | *[!0-9]*) usage ;;
esac

if ! command -v tshark > /dev/null; then
	echo "check.sh: SKIP: tshark is not installed" >&2
	exit 4
fi
if [ ! -r "$LUA" ]; then
	echo "check.sh: cannot read $LUA" >&2
	exit 1
fi
# The version the dissector knows, so that the two never disagree.
version=$(sed -n 's/^local MRC_VERSION = \([0-9][0-9]*\).*/\1/p' "$LUA")
if [ -z "$version" ]; then
	echo "check.sh: no MRC_VERSION in $LUA" >&2
	exit 1
fi
if [ ! -r "$file" ]; then
	echo "check.sh: cannot read $file" >&2
	exit 1
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# MRC packets, and any frame with a Lua error or a malformed packet.
tshark -n -r "$file" -X "lua_script:$LUA" -o "mrc.udp_port:$port" \
	-Y "mrc || _ws.lua.error || _ws.malformed || _ws.expert.group == $PI_MALFORMED" \
	-T fields -E separator=/t -E occurrence=a -E aggregator=, \
	-e frame.number -e mrc.version -e mrc.type -e mrc.psn -e mrc.scid -e mrc.dcid \
	-e mrc.gso.uncaptured -e mrc.gso.last_psn \
	-e icmpv6.type -e _ws.lua.error -e _ws.expert.group -e _ws.expert.message \
	> "$tmp/fields" 2> "$tmp/stderr"
rc=$?

status=0
# tshark warns when run as root; anything else on stderr (a Lua error while
# loading the script, say) is a failure.
if grep -v '^Running as user "root"' "$tmp/stderr" > "$tmp/errors"; then
	cat "$tmp/errors" >&2
	status=1
fi
if [ $rc -ne 0 ]; then
	echo "check.sh: tshark failed (exit status $rc)" >&2
	status=1
fi

awk -F '\t' -v malformed=$((PI_MALFORMED)) -v errors="$tmp/bad" -v known="$version" '
# PSNs are 24 bits (mrc.rst, Sequence number arithmetic).
function delta(p, ref, d) {
	d = p - ref
	if (d < 0)
		d += 16777216
	if (d >= 8388608)
		d -= 16777216
	return d
}

# Another PSN of stream s (the empty string: all DATA packets).
function psn_seen(s, p, d) {
	if (!(s in ref)) {
		ref[s] = p
		lo[s] = 0
		hi[s] = 0
		return
	}
	d = delta(p, ref[s])
	if (d < lo[s])
		lo[s] = d
	if (d > hi[s])
		hi[s] = d
}

function psn(s, d, p) {
	p = ref[s] + d
	if (p < 0)
		p += 16777216
	if (p >= 16777216)
		p -= 16777216
	return sprintf("%.0f", p)
}

function range(s) {
	if (!(s in ref))
		return "- -"
	return psn(s, lo[s]) " " psn(s, hi[s])
}

BEGIN {
	ntypes = split("DATA ACK NACK SYN SYNACK FIN RST PROBE PROBE_REPLY", name, " ")
	for (i = 1; i <= ntypes; i++)
		count[i] = 0
	unknown = 0
	nstreams = 0
	nbad = 0
}

{
	# Fields: 1 frame, 2 version, 3 type, 4 psn, 5 scid, 6 dcid,
	# 7 gso.uncaptured, 8 gso.last_psn, 9 icmpv6.type, 10 Lua error,
	# 11 expert groups, 12 expert messages; several values of a field
	# are comma-separated.
	bad = ($10 != "")
	ng = split($11, group, ",")
	for (i = 1; i <= ng; i++)
		if (group[i] == malformed)
			bad = 1
	if (bad) {
		nbad++
		print "frame " $1 ": " ($12 != "" ? $12 : "Lua error") > errors
	}
	# An MRC packet quoted in an ICMPv6 error did not travel as one.
	if ($9 != "")
		next

	# One version and type per MRC packet with its common header captured.
	nt = split($3, type, ",")
	split($2, version, ",")
	all_data = nt > 0
	for (i = 1; i <= nt; i++) {
		if (version[i] == known && type[i] >= 1 && type[i] <= ntypes)
			count[type[i]]++
		else
			unknown++
		if (version[i] != known || type[i] != 1)
			all_data = 0
	}
	if (!all_data)
		next

	# DATA: one packet or a GSO batch. Ids and PSNs are one per packet
	# but for the last packet, whose header the capture may have cut.
	np = split($4, p, ",")
	nid = split($5, scid, ",")
	split($6, dcid, ",")
	for (i = 1; i <= nt; i++) {
		s = scid[i] " " dcid[i]
		if (i <= nid && !(s in scount)) {
			stream[++nstreams] = s
			scount[s] = 0
		}
		if (i <= nid)
			scount[s]++
		if (i <= np) {
			psn_seen("", p[i])
			if (i <= nid)
				psn_seen(s, p[i])
		}
	}
	s = scid[1] " " dcid[1]
	if ($7 != "") {
		count[1] += $7
		if (s in scount)
			scount[s] += $7
	}
	if ($8 != "") {
		psn_seen("", $8)
		if (s in scount)
			psn_seen(s, $8)
	}
}

END {
	printf "DATA %d %s\n", count[1], range("")
	for (i = 2; i <= ntypes; i++)
		printf "%s %d\n", name[i], count[i]
	printf "UNKNOWN %d\n", unknown
	for (i = 1; i <= nstreams; i++) {
		s = stream[i]
		printf "DATA_STREAM %s %d %s\n", s, scount[s], range(s)
	}
	exit (nbad > 0)
}
' "$tmp/fields" || status=1

if [ -s "$tmp/bad" ]; then
	echo "check.sh: $(wc -l < "$tmp/bad") frames with a Lua error or a malformed packet:" >&2
	head -n 20 "$tmp/bad" >&2
fi
exit $status
