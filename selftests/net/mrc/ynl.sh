#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The "mrc" family through ynl, the kernel's own netlink client
# (tools/net/ynl of linux-source-6.12, unpacked by setup-deps), driven by
# nothing but Documentation/netlink/specs/mrc.yaml, which it checks against
# the kernel's genetlink-legacy schema on every run: a path added through
# ynl is the one mrc shows, and mrc's paths are the ones ynl dumps; a
# lookup by destination; the counters, the same as mrc stats; a request
# the policy refuses, which changes nothing; and the event of a state
# change, as a subscriber receives it.

# Test functions run through run_test, which shellcheck cannot follow.
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")"/lib.sh

MRC=$MRC_TOP/build/tools/mrc
SPEC=$MRC_TOP/Documentation/netlink/specs/mrc.yaml
YNL_SRC=${MRC_YNL_SRC:-/usr/src/linux-source-6.12}
CLI=$YNL_SRC/tools/net/ynl/cli.py
SCHEMA=$YNL_SRC/Documentation/netlink/genetlink-legacy.yaml
NS=mrc-ynl-$RANDOM
tmp=$(mktemp -d)

cleanup() {
	ns_del "$NS"
	rm -rf "$tmp"
}
trap cleanup EXIT

m() {
	"$MRC" -n "$NS" "$@"
}

# ynl ARGS...: the kernel's client in $NS, its replies as JSON.
ynl() {
	ip netns exec "$NS" python3 "$CLI" --spec "$SPEC" --schema "$SCHEMA" \
		--output-json "$@"
}

# hex ADDR: an IPv6 address as ynl takes a binary attribute.
hex() {
	python3 -c 'import ipaddress, sys; print(ipaddress.ip_address(sys.argv[1]).packed.hex())' "$1"
}

# check FILE EXPR: a Python expression on the JSON in FILE, as d.
check() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' \
		"$1" "$2" || { echo "not true: $2"; cat "$1"; return 1; }
}

test_add() {
	ynl --do path-add --json "{\"prefix\": \"$(hex 2001:db8:1::)\", \"prefix-len\": 64,
		\"path\": {\"id\": 5, \"segs\": {\"seg\": [\"$(hex fc00::1)\", \"$(hex fc00::2)\"]}}}" ||
		return 1
	m path add 2001:db8:1::/64 id 6 || return 1
	m path add 2001:db8::/32 id 1 || return 1
	m -j path show 2001:db8:1::/64 > "$tmp/show" || return 1
	check "$tmp/show" '[(p["id"], p["segs"], p["state"]) for s in d for p in s["paths"]] ==
		[(5, ["fc00::1", "fc00::2"], "good"), (6, [], "good")]'
}

test_dump() {
	ynl --dump path-get > "$tmp/dump" || return 1
	check "$tmp/dump" 'sorted((s["prefix"], s["prefix-len"], s["nr-paths"]) for s in d) ==
		[("2001:db8:1::", 64, 2), ("2001:db8::", 32, 1)]' || return 1
	check "$tmp/dump" '[(p["id"], p.get("segs", {}).get("seg", []), p["state"])
		for s in d if s["prefix-len"] == 64 for p in s["path"]] ==
		[(5, ["fc00::1", "fc00::2"], "good"), (6, [], "good")]'
}

test_lookup() {
	ynl --do path-get --json "{\"daddr\": \"$(hex 2001:db8:1::9)\"}" > "$tmp/get" ||
		return 1
	check "$tmp/get" 'd["prefix"] == "2001:db8:1::" and d["prefix-len"] == 64' || return 1
	ynl --do path-get --json "{\"daddr\": \"$(hex 2001:db8:2::9)\"}" > "$tmp/get" ||
		return 1
	check "$tmp/get" 'd["prefix"] == "2001:db8::" and d["prefix-len"] == 32' || return 1
	ynl --do path-get --json "{\"daddr\": \"$(hex 2001:db9::1)\"}" > "$tmp/get" 2>&1 &&
		{ echo "a lookup with no set succeeded"; return 1; }
	cat "$tmp/get"
	grep -q "No such file or directory" "$tmp/get" &&
		grep -q "no path set covers this destination" "$tmp/get"
}

test_stats() {
	ynl --do stats-get > "$tmp/stats" || return 1
	m -j stats > "$tmp/mstats" || return 1
	python3 -c 'import json, sys
y = {s["name"]: s["value"] for s in json.load(open(sys.argv[1]))["stat"]}
m = json.load(open(sys.argv[2]))
print(len(y), "counters")
sys.exit(not (len(y) > 20 and y == m))' "$tmp/stats" "$tmp/mstats" ||
		{ echo "ynl and mrc stats differ"; cat "$tmp/stats" "$tmp/mstats"; return 1; }
}

test_refused() {
	m -j path show > "$tmp/before" || return 1
	# A prefix of 15 bytes: the policy refuses it (ERANGE), and says
	# which attribute.
	ynl --do path-add --json "{\"prefix\": \"$(hex 2001:db8:4:: | cut -c1-30)\", \"prefix-len\": 64}" \
		> "$tmp/out" 2>&1 && { echo "a 15-byte prefix was taken"; return 1; }
	cat "$tmp/out"
	grep -q "binary attribute size out of range" "$tmp/out" &&
		grep -q "'bad-attr': '.prefix'" "$tmp/out" || return 1
	m -j path show > "$tmp/after" || return 1
	sed -i -E 's/"changed_ms":[0-9]+//g' "$tmp/before" "$tmp/after"
	cmp "$tmp/before" "$tmp/after" || { echo "the paths changed"; return 1; }
}

# ynl's cli cannot take an event and the reply of its own request on one
# socket (6.12): the subscriber is its library, in a process of its own,
# and mrc makes the change.
test_event() {
	ip netns exec "$NS" python3 - "$YNL_SRC/tools/net/ynl" "$SPEC" "$SCHEMA" \
		"$MRC" "$(slow_limit 10)" > "$tmp/ntf" <<-'EOF' || return 1
	import json, subprocess, sys, time
	sys.path.insert(0, sys.argv[1])
	from lib import YnlFamily
	ynl = YnlFamily(sys.argv[2], sys.argv[3])
	ynl.ntf_subscribe("events")
	subprocess.run([sys.argv[4], "path", "set", "2001:db8:1::/64", "id", "6",
	                "state", "denied"], check=True)
	end = time.monotonic() + float(sys.argv[5])
	while not ynl.async_msg_queue and time.monotonic() < end:
	    ynl.check_ntf()
	    time.sleep(0.05)
	print(json.dumps(ynl.async_msg_queue))
	EOF
	check "$tmp/ntf" '[(n["name"], n["msg"]["prefix"], n["msg"]["path-id"], n["msg"]["old-state"],
		n["msg"]["state"], n["msg"]["reason"]) for n in d] ==
		[("path-event", "2001:db8:1::", 6, "good", "denied", "operator")]' || return 1
	m -j path show 2001:db8:1::/64 > "$tmp/show" || return 1
	check "$tmp/show" '[p["state"] for s in d for p in s["paths"] if p["id"] == 6] == ["denied"]'
}

mrc_loaded || { echo "mrc.ko is not loaded"; exit "$KSFT_SKIP"; }
[ -x "$MRC" ] || { echo "# $MRC not built"; exit "$KSFT_FAIL"; }
# setup-deps unpacks it: without it the suite is not set up.
if [ ! -f "$CLI" ] || [ ! -f "$SCHEMA" ]; then
	echo "# no ynl in $YNL_SRC (tools/testing/setup-deps unpacks it)"
	exit "$KSFT_FAIL"
fi
ip netns add "$NS" || exit "$KSFT_FAIL"
ktap_begin 6
run_test "path-add through ynl is the path mrc shows" test_add
run_test "path-get dump through ynl: mrc's paths, addresses as IPv6" test_dump
run_test "path-get by destination: the longest prefix, ENOENT for none" test_lookup
run_test "stats-get through ynl: mrc stats' counters" test_stats
run_test "a request the policy refuses changes nothing" test_refused
run_test "a subscriber gets the path-event of a state change" test_event
ktap_end
