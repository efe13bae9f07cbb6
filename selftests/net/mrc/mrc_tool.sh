#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The mrc tool and the mrc generic netlink family, end to end: round trips
# checked through -j, every bad input (clear message, non-zero exit,
# nothing changed), namespace isolation, permissions, monitor, and limits.

source "$(dirname "$0")"/lib.sh

MRC=$MRC_TOP/build/tools/mrc
suffix=$RANDOM
NS=mrc-tool-$suffix
NS2=mrc-tool2-$suffix
tmp=$(mktemp -d)
echo "# namespaces $NS $NS2"

cleanup() {
	ns_del "$NS" "$NS2"
	rm -rf "$tmp"
}
trap cleanup EXIT

m() {
	"$MRC" -n "$NS" "$@"
}

# json_check EXPR: evaluate a Python expression on `path show -j`, as `d`.
json_check() {
	m -j path show > "$tmp/show.json" || return 1
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' \
		"$tmp/show.json" "$1" || { echo "not true of path show -j: $1"; cat "$tmp/show.json"; return 1; }
}

setup() {
	ip netns add "$NS" && ip netns add "$NS2" &&
	ip -n "$NS" link add dummy0 type dummy &&
	ip -n "$NS" link set dummy0 up &&
	ip -n "$NS" addr add 2001:db8:1::1/64 dev dummy0 nodad
}

test_round_trip() {
	m path add 2001:db8:2::/64 segs fc00::1,fc00::2 dev dummy0 src 2001:db8:1::1 id 7 || return 1
	m path add 2001:db8:2::/64 || return 1
	m path add 2001:db8:3::/48 segs fc00::3 || return 1
	json_check 'len(d) == 2' || return 1
	json_check '[p["id"] for s in d if s["prefix"] == "2001:db8:2::/64" for p in s["paths"]] == [1, 7]' || return 1
	json_check 'any(p["segs"] == ["fc00::1", "fc00::2"] and p["dev"] == "dummy0" and p["src"] == "2001:db8:1::1" and p["state"] == "good" for s in d for p in s["paths"])' || return 1
	m pathset set 2001:db8:2::/64 min-active 2 || return 1
	json_check '[s["min_active"] for s in d if s["prefix"] == "2001:db8:2::/64"] == [2]' || return 1
	m path set 2001:db8:2::/64 id 7 state denied || return 1
	json_check '[p["state"] for s in d for p in s["paths"] if p["id"] == 7] == ["denied"]' || return 1
	m path del 2001:db8:2::/64 id 1 || return 1
	json_check '[len(s["paths"]) for s in d if s["prefix"] == "2001:db8:2::/64"] == [1]' || return 1
	json_check '[s["min_active"] for s in d if s["prefix"] == "2001:db8:2::/64"] == [1]' || return 1
	m path del 2001:db8:3::/48 || return 1
	json_check 'len(d) == 1' || return 1
	m path flush || return 1
	json_check 'd == []' || return 1
	m -j stats | python3 -m json.tool > /dev/null || { echo "stats -j is not JSON"; return 1; }
	m stats | grep -q InPkts || { echo "stats has no InPkts"; return 1; }
}

# The path table without the time since each change, which moves on.
table() {
	m -j path show | python3 -c 'import json,sys
d = json.load(sys.stdin)
for s in d:
	for p in s["paths"]:
		p.pop("changed_ms", None)
print(json.dumps(d, sort_keys=True))'
}

# bad CASE MESSAGE ARGS...: the command fails, says MESSAGE, changes nothing.
bad() {
	local what=$1 msg=$2 rc

	shift 2
	table > "$tmp/before" || return 1
	m "$@" > "$tmp/out" 2>&1
	rc=$?
	table > "$tmp/after" || return 1
	if [ "$rc" -eq 0 ]; then
		echo "$what: mrc $* succeeded"
		return 1
	fi
	if ! grep -qi -- "$msg" "$tmp/out"; then
		echo "$what: expected \"$msg\", got: $(cat "$tmp/out")"
		return 1
	fi
	if ! cmp -s "$tmp/before" "$tmp/after"; then
		echo "$what: the path table changed"
		return 1
	fi
	echo "$what: $(head -n 1 "$tmp/out")"
}

test_bad_input() {
	local ok=0 segs

	m path flush
	m path add 2001:db8:5::/64 id 1 || return 1
	segs=$(seq -s, -f 'fc00::%g' 9)
	bad "IPv4 prefix" "prefix" path add 10.0.0.0/8 || ok=1
	bad "prefix length 129" "prefix" path add 2001:db8::/129 || ok=1
	bad "9 segments" "segments" path add 2001:db8:5::/64 segs "$segs" || ok=1
	bad "multicast segment" "unicast" path add 2001:db8:5::/64 segs ff02::1 || ok=1
	bad "unspecified segment" "unicast" path add 2001:db8:5::/64 segs :: || ok=1
	bad "duplicate id" "exists" path add 2001:db8:5::/64 id 1 || ok=1
	bad "unknown dev" "device" path add 2001:db8:5::/64 dev nosuchdev0 || ok=1
	bad "delete a missing path" "no path" path del 2001:db8:5::/64 id 99 || ok=1
	bad "delete a missing set" "no path set" path del 2001:db8:6::/64 || ok=1
	bad "min-active larger than the set" "larger than the set" \
		pathset set 2001:db8:5::/64 min-active 2 || ok=1
	bad "state only the kernel sets" "good or denied" \
		path set 2001:db8:5::/64 id 1 state assumed-bad || ok=1
	return $ok
}

test_namespace_isolation() {
	m path flush
	m path add 2001:db8:7::/64 || return 1
	"$MRC" -n "$NS2" -j path show > "$tmp/other" || return 1
	python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1])) == [] else 1)' \
		"$tmp/other" || { echo "the path is visible in $NS2"; return 1; }
}

test_unprivileged() {
	local out

	m path flush
	m path add 2001:db8:8::/64 || return 1
	out=$(ip netns exec "$NS" setpriv --reuid 65534 --regid 65534 --clear-groups \
		"$MRC" path add 2001:db8:9::/64 2>&1) && { echo "nobody added a path"; return 1; }
	echo "nobody adding: $out"
	grep -qi "not permitted" <<< "$out" || return 1
	ip netns exec "$NS" setpriv --reuid 65534 --regid 65534 --clear-groups \
		"$MRC" path show | grep -q 2001:db8:8:: || { echo "nobody cannot read"; return 1; }
	json_check 'len(d) == 1'
}

test_monitor() {
	local pid

	m path flush
	m path add 2001:db8:a::/64 id 3 || return 1
	m monitor > "$tmp/monitor" 2>&1 &
	pid=$!
	sleep 1
	m path set 2001:db8:a::/64 id 3 state denied || return 1
	m path set 2001:db8:a::/64 id 3 state good || return 1
	wait_for 20 bash -c "[ \$(grep -c 2001:db8:a:: '$tmp/monitor') -ge 2 ]"
	kill "$pid"
	wait "$pid" 2>/dev/null
	cat "$tmp/monitor"
	grep -q "id 3.*good.*denied.*operator" "$tmp/monitor" &&
		grep -q "id 3.*denied.*good.*operator" "$tmp/monitor"
}

# Connections opening and closing show in monitor: two ends established,
# then both closed after a clean close.
test_monitor_conns() {
	local pid spid

	ip netns exec "$NS" ip link set lo up
	m monitor > "$tmp/cmon" 2>&1 &
	pid=$!
	sleep 1
	ip netns exec "$NS" "$MRC_TOP"/build/tools/mrcperf -s -1 -p 7002 \
		--ready "$tmp/ready2" > /dev/null 2>&1 &
	spid=$!
	wait_ready "$spid" "$tmp/ready2" || return 1
	ip netns exec "$NS" "$MRC_TOP"/build/tools/mrcperf -c ::1 -p 7002 -n 10 \
		-l 1000 > /dev/null 2>&1 || return 1
	wait "$spid"
	wait_for 30 bash -c "[ \$(grep -c 'closed' '$tmp/cmon') -ge 2 ]"
	kill "$pid"
	wait "$pid" 2>/dev/null
	cat "$tmp/cmon"
	[ "$(grep -c '^conn .*\]:7002 established' "$tmp/cmon")" -ge 1 ] &&
		[ "$(grep -c '^conn .*7002.* established' "$tmp/cmon")" -eq 2 ] &&
		[ "$(grep -c '^conn .*7002.* closed' "$tmp/cmon")" -eq 2 ] &&
		! grep -q '^conn .*7002.*(' "$tmp/cmon"
}

test_limits() {
	local i

	m path flush
	for i in $(seq 256); do
		m path add 2001:db8:b::/64 id "$i" segs fc00::1,fc00::2,fc00::3,fc00::4,fc00::5,fc00::6,fc00::7,fc00::8 ||
			return 1
	done
	json_check '[len(s["paths"]) for s in d] == [256]' || return 1
	bad "257th path" "too many paths" path add 2001:db8:b::/64 id 300 || return 1
	m path flush
	for i in $(seq 0 1023); do
		m path add "2001:db8:c:$(printf %x "$i")::/64" || return 1
	done
	json_check 'len(d) == 1024' || return 1
	bad "1025th set" "too many path sets" path add 2001:db8:d::/64 || return 1
	m path flush
}

test_conn_show() {
	local spid cpid

	ip netns exec "$NS" ip link set lo up
	ip netns exec "$NS" "$MRC_TOP"/build/tools/mrcperf -s -1 -p 7001 \
		--ready "$tmp/ready" > /dev/null 2>&1 &
	spid=$!
	wait_ready "$spid" "$tmp/ready" || return 1
	ip netns exec "$NS" "$MRC_TOP"/build/tools/mrcperf -c ::1 -p 7001 -t 600 \
		-l 1000 > /dev/null 2>&1 &
	cpid=$!
	wait_for 30 bash -c "$MRC -n $NS -j conn show | grep -q established"
	m -j conn show > "$tmp/conns"
	kill "$cpid" "$spid" 2>/dev/null
	wait "$cpid" "$spid" 2>/dev/null
	cat "$tmp/conns"
	# The client's connection and the server's, each other's mirror.
	python3 -c 'import json,sys
c = [x for x in json.load(open(sys.argv[1])) if x["state"] == "established"]
ok = any(a["dport"] == 7001 and any(b["sport"] == 7001 and b["local_cid"] == a["remote_cid"]
                                     and b["remote_cid"] == a["local_cid"] for b in c) for a in c)
sys.exit(0 if ok else 1)' "$tmp/conns"
}

[ -x "$MRC" ] || { echo "# $MRC not built"; exit "$KSFT_FAIL"; }
setup || { echo "# setup failed"; exit "$KSFT_FAIL"; }
ktap_begin 8
run_test "add, show, set, del and flush round trip" test_round_trip
run_test "bad input is refused and changes nothing" test_bad_input
run_test "a namespace sees only its own paths" test_namespace_isolation
run_test "unprivileged users read but cannot change" test_unprivileged
run_test "monitor shows state changes" test_monitor
run_test "monitor shows connections opening and closing" test_monitor_conns
run_test "256 paths in a set, 1024 sets" test_limits
run_test "conn show lists both ends of a connection" test_conn_show
ktap_end
