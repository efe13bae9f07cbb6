#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The mrc tool and the mrc generic netlink family, end to end: round trips
# checked through -j, every bad input (clear message, non-zero exit,
# nothing changed), namespace isolation, permissions, monitor, limits,
# congestion-control settings, the counters of paths and connections, and
# probes of a path to a host that answers and to one that does not.

# Test functions run through run_test, which shellcheck cannot follow.
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")"/lib.sh

MRC=$MRC_TOP/build/tools/mrc
suffix=$RANDOM
NS=mrc-tool-$suffix
NS2=mrc-tool2-$suffix
# Namespaces of their own for connections whose counters are summed.
NS_CONN=mrc-tool-conn-$suffix
# Two hosts joined by a veth (ns_pair), for probes: A probes B.
NS_A=mrc-tool-a-$suffix
NS_B=mrc-tool-b-$suffix
tmp=$(mktemp -d)
AUTO_PATHS=/sys/module/mrc/parameters/auto_paths
auto_paths=$(cat "$AUTO_PATHS")
echo "# namespaces $NS $NS2 $NS_CONN-* $NS_A $NS_B"

# The congestion-control settings of a new namespace.
CC_DEFAULTS='{"base_rtt_us": 0, "target_delay_us": 2000, "max_cwnd": 256, "ai": 1,
	"fi": 1, "md": 512, "qa_delay_us": 50000, "ecn_cooldown_us": 1000}'

cleanup() {
	[ -n "${JSON_PID:-}" ] && kill "$JSON_PID" 2>/dev/null
	echo "$auto_paths" > "$AUTO_PATHS"
	ns_del "$NS" "$NS2" "$NS_CONN-16" "$NS_CONN-256" "$NS_A" "$NS_B"
	rm -rf "$tmp"
}
trap cleanup EXIT

m() {
	"$MRC" -n "$NS" "$@"
}

# nobody ARGS...: mrc in $NS as an unprivileged user.
nobody() {
	ip netns exec "$NS" setpriv --reuid 65534 --regid 65534 --clear-groups \
		"$MRC" "$@"
}

# json_eval: one Python process for every json_check, started once (a
# start costs half a second under TCG, and there are 36 checks). It reads
# a line on the request FIFO for each check, evaluates the expression in
# $tmp/expr on the JSON in $tmp/show.json as d, and answers "0" (true),
# "1" (false) or "E" and the error. Both FIFOs are held open both ways by
# this shell, so that neither end ever blocks on open().
json_eval_start() {
	mkfifo "$tmp/json.req" "$tmp/json.resp" || return 1
	exec {JSON_REQ}<>"$tmp/json.req" {JSON_RESP}<>"$tmp/json.resp"
	python3 -c 'import json, sys
req, resp, show, expr = sys.argv[1:]
with open(req) as r, open(resp, "w") as w:
	for _ in r:
		try:
			d = json.load(open(show))
			ans = "0" if eval(open(expr).read()) else "1"
		except Exception as e:
			ans = "E " + repr(e).replace("\n", " ")
		print(ans, file=w, flush=True)' \
		"$tmp/json.req" "$tmp/json.resp" "$tmp/show.json" "$tmp/expr" &
	JSON_PID=$!
}

# json_check EXPR [ARGS...]: evaluate a Python expression on the output of
# `mrc -j ARGS` (path show by default), as `d`.
json_check() {
	local expr=$1 ans

	shift
	[ $# -gt 0 ] || set -- path show
	m -j "$@" > "$tmp/show.json" || return 1
	printf '%s' "$expr" > "$tmp/expr"
	echo >&"$JSON_REQ"
	if ! read -r -t "$(slow_limit 60)" ans <&"$JSON_RESP"; then
		echo "json_check: no answer from the evaluator"
		return 1
	fi
	[ "$ans" = 0 ] && return 0
	echo "not true of $* -j: $expr"
	[ "$ans" = 1 ] || echo "($ans)"
	cat "$tmp/show.json"
	return 1
}

setup() {
	ip netns add "$NS" && ip netns add "$NS2" &&
	ip -n "$NS" link add dummy0 type dummy &&
	ip -n "$NS" link set dummy0 up &&
	ip -n "$NS" addr add 2001:db8:1::1/64 dev dummy0 nodad &&
	ns_pair "$NS_A" "$NS_B"
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

# The path table without the time since each change, which moves on, and
# the congestion-control settings: what a refused command must not change.
# (bash's own pattern substitution takes minutes on 256 paths: sed.)
table() {
	local paths

	paths=$(m -j path show) || return 1
	sed -E 's/"changed_ms":[0-9]+//g' <<< "$paths"
	m -j cc show
}

# bad CASE MESSAGE ARGS...: the command fails, says MESSAGE (any case),
# changes nothing. It runs for 54 cases: no process but mrc's and
# table()'s (each one costs tens of milliseconds under TCG).
bad() {
	local what=$1 msg=$2 rc before after out

	shift 2
	before=$(table) || return 1
	out=$(m "$@" 2>&1)
	rc=$?
	after=$(table) || return 1
	if [ "$rc" -eq 0 ]; then
		echo "$what: mrc $* succeeded"
		return 1
	fi
	if [[ ${out,,} != *"${msg,,}"* ]]; then
		echo "$what: expected \"$msg\", got: $out"
		return 1
	fi
	if [ "$before" != "$after" ]; then
		echo "$what: the path table or the cc settings changed"
		return 1
	fi
	echo "$what: ${out%%$'\n'*}"
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
	return "$ok"
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
	out=$(nobody path add 2001:db8:9::/64 2>&1) && { echo "nobody added a path"; return 1; }
	echo "nobody adding: $out"
	grep -qi "not permitted" <<< "$out" || return 1
	nobody path show | grep -q 2001:db8:8:: || { echo "nobody cannot read"; return 1; }
	json_check 'len(d) == 1'
}

# Path events in monitor; beside it monitor path with -tshort and -j
# (each event timestamped), and monitor conn, which shows none of them.
test_monitor() {
	local pid tpid cpid

	m path flush
	m path add 2001:db8:a::/64 id 3 || return 1
	m monitor > "$tmp/monitor" 2>&1 &
	pid=$!
	m -j -ts monitor pa > "$tmp/tmon" 2>&1 &
	tpid=$!
	m mon conn > "$tmp/cmon" 2>&1 &
	cpid=$!
	sleep 1
	m path set 2001:db8:a::/64 id 3 state denied || return 1
	m path set 2001:db8:a::/64 id 3 state good || return 1
	wait_for 20 bash -c "[ \$(grep -c 2001:db8:a:: '$tmp/monitor') -ge 2 ] &&
		[ \$(grep -c 2001:db8:a:: '$tmp/tmon') -ge 2 ]"
	kill "$pid" "$tpid" "$cpid"
	wait "$pid" "$tpid" "$cpid" 2>/dev/null
	cat "$tmp/monitor" "$tmp/tmon"
	grep -q "id 3.*good.*denied.*operator" "$tmp/monitor" &&
		grep -q "id 3.*denied.*good.*operator" "$tmp/monitor" || return 1
	python3 -c 'import json, re, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
ok = [e["event"] == "path" and e["id"] == 3 and
      re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}", e["timestamp"])
      for e in ev]
sys.exit(not (len(ok) == 2 and all(ok)))' "$tmp/tmon" ||
		{ echo "monitor path -j -ts: not two timestamped path events"; return 1; }
	[ ! -s "$tmp/cmon" ] || { echo "monitor conn showed: $(cat "$tmp/cmon")"; return 1; }
	bad "monitor of no such object" 'monitor: unknown object "foo"' monitor foo
}

# Connections opening and closing show in monitor: two ends established,
# then both closed after a clean close.
test_monitor_conns() {
	local pid tpid ppid spid

	ip netns exec "$NS" ip link set lo up
	m monitor > "$tmp/cmon" 2>&1 &
	pid=$!
	m -timestamp monitor conn > "$tmp/tmon" 2>&1 &
	tpid=$!
	m monitor path > "$tmp/pmon" 2>&1 &
	ppid=$!
	sleep 1
	ip netns exec "$NS" "$MRC_TOP"/build/tools/mrcperf -s -1 -p 7002 \
		--ready "$tmp/ready2" > /dev/null 2>&1 &
	spid=$!
	wait_ready "$spid" "$tmp/ready2" || return 1
	ip netns exec "$NS" "$MRC_TOP"/build/tools/mrcperf -c ::1 -p 7002 -n 10 \
		-l 1000 > /dev/null 2>&1 || return 1
	wait "$spid"
	wait_for 30 bash -c "[ \$(grep -c 'closed' '$tmp/cmon') -ge 2 ] &&
		[ \$(grep -c 'closed' '$tmp/tmon') -ge 2 ]"
	kill "$pid" "$tpid" "$ppid"
	wait "$pid" "$tpid" "$ppid" 2>/dev/null
	cat "$tmp/cmon" "$tmp/tmon"
	[ "$(grep -c '^conn .*\]:7002 established' "$tmp/cmon")" -ge 1 ] &&
		[ "$(grep -c '^conn .*7002.* established' "$tmp/cmon")" -eq 2 ] &&
		[ "$(grep -c '^conn .*7002.* closed' "$tmp/cmon")" -eq 2 ] &&
		! grep -q '^conn .*7002.*(' "$tmp/cmon" || return 1
	# -timestamp: the same four events, each after a line of its time.
	# Not in the same order: the two ends close on two CPUs, each of
	# which delivers its event to one monitor's socket and then the
	# other's, so that the two sockets can queue them in either order
	# (seen once on the debug kernel).
	awk 'NR % 2 == 1 && !/^Timestamp: / { exit 1 }' "$tmp/tmon" ||
		{ echo "monitor conn -t: an event without its time"; return 1; }
	grep -v '^Timestamp: ' "$tmp/tmon" | sort > "$tmp/tmon.sorted"
	sort "$tmp/cmon" | diff - "$tmp/tmon.sorted" ||
		{ echo "monitor conn -t differs from monitor"; return 1; }
	[ "$(grep -cE '^Timestamp: [A-Z][a-z]{2} .* [0-9]{6} usec$' "$tmp/tmon")" -eq 4 ] ||
		{ echo "monitor -t: not a time line for each of 4 events"; return 1; }
	[ ! -s "$tmp/pmon" ] || { echo "monitor path showed: $(cat "$tmp/pmon")"; return 1; }
}

test_limits() {
	local i

	m path flush
	for i in $(seq 256); do
		echo "path add 2001:db8:b::/64 id $i segs fc00::1,fc00::2,fc00::3,fc00::4,fc00::5,fc00::6,fc00::7,fc00::8"
	done > "$tmp/batch"
	m -b "$tmp/batch" || return 1
	json_check '[len(s["paths"]) for s in d] == [256]' || return 1
	# The set alone: one reply of about 100 KiB, more than the tool's
	# first receive buffer.
	json_check '[len(s["paths"]) for s in d] == [256]' path show 2001:db8:b::/64 ||
		return 1
	bad "257th path" "too many paths" path add 2001:db8:b::/64 id 300 || return 1
	m path flush
	for i in $(seq 0 1023); do
		echo "path add 2001:db8:c:$(printf %x "$i")::/64"
	done > "$tmp/batch"
	m -b "$tmp/batch" || return 1
	json_check 'len(d) == 1024' || return 1
	bad "1025th set" "too many path sets" path add 2001:db8:d::/64 || return 1
	m path flush
}

# batch_fails RC MSG: mrc -b $tmp/batch exits with RC and says MSG.
batch_fails() {
	local rc

	m -b "$tmp/batch" > "$tmp/out" 2>&1
	rc=$?
	if [ "$rc" -ne "$1" ] || ! grep -q -- "$2" "$tmp/out"; then
		echo "mrc -b: exit $rc, not $1, or no \"$2\" in: $(cat "$tmp/out")"
		return 1
	fi
	head -n 1 "$tmp/out"
}

# mrc -b: one command a line until the first that fails, which is named by
# file and line; comments, blank lines, standard input, output of every
# command, and help and monitor refused.
test_batch() {
	local rc l

	m path flush
	cat > "$tmp/batch" <<-EOF
	# two sets, then a mistake on line 5: help would be one

	path add 2001:db8:e::/64 id 3 segs fc00::1
	  pathset set 2001:db8:e::/64 min-active 1
	path add 2001:db8:e::/64 id 3
	path add 2001:db8:f::/64
	EOF
	# The kernel refuses line 5 (id 3 is taken): lines 3 and 4 are
	# applied, line 6 is not.
	batch_fails 2 "^mrc: $tmp/batch:5: " || return 1
	json_check '[(s["prefix"], [p["id"] for p in s["paths"]]) for s in d] == [("2001:db8:e::/64", [3])]' ||
		return 1
	# From standard input, without line 5; a show in a batch prints what
	# a show of its own does.
	m path flush
	grep -v "id 3$" "$tmp/batch" | sed '$a path show' | m -j -b - > "$tmp/out" 2>&1 ||
		{ echo "a batch from standard input failed: $(cat "$tmp/out")"; return 1; }
	m -j path show > "$tmp/show"
	# The same, but for the age of each path's state.
	python3 -c 'import json, sys
def strip(f):
    d = json.load(open(f))
    for s in d:
        for p in s["paths"]:
            p.pop("changed_ms")
    return d
sys.exit(strip(sys.argv[1]) != strip(sys.argv[2]))' "$tmp/out" "$tmp/show" ||
		{ echo "path show in a batch differs:"; cat "$tmp/out" "$tmp/show"; return 1; }
	json_check 'len(d) == 2' || return 1
	echo "path bogus" > "$tmp/batch"
	batch_fails 1 "^mrc: $tmp/batch:1: path: unknown command" || return 1
	echo "path show help" > "$tmp/batch"
	batch_fails 1 "help is not for a batch" || return 1
	echo "monitor" > "$tmp/batch"
	batch_fails 1 "monitor is not for a batch" || return 1
	rm "$tmp/batch"
	batch_fails 1 "cannot open" || return 1
	m path flush
	# -force: every line runs; each failure is named; the exit status is
	# the worst (2, the kernel's refusal, over 1, a bad line).
	cat > "$tmp/batch" <<-EOF
	path add 2001:db8:e::/64 id 3
	path add bogus
	path add 2001:db8:e::/64 id 3
	monitor
	path add 2001:db8:f::/64
	EOF
	m -force -b "$tmp/batch" > "$tmp/out" 2>&1
	rc=$?
	cat "$tmp/out"
	[ "$rc" -eq 2 ] || { echo "mrc -force -b: exit $rc, not 2"; return 1; }
	for l in 2 3 4; do
		grep -q "^mrc: $tmp/batch:$l: " "$tmp/out" ||
			{ echo "no error for line $l"; return 1; }
	done
	[ "$(wc -l < "$tmp/out")" -eq 3 ] || return 1
	json_check '[(s["prefix"], [p["id"] for p in s["paths"]]) for s in d] == [("2001:db8:e::/64", [3]), ("2001:db8:f::/64", [1])]' ||
		return 1
	m path flush
}

# path get ADDR: the set of the longest prefix that holds ADDR, as path show
# prints it; none, or bad input, is an error that changes nothing.
test_path_get() {
	m path flush
	m path add 2001:db8::/32 id 1 || return 1
	m path add 2001:db8:10::/48 id 2 segs fc00::2 || return 1
	m path add 2001:db8:10::5 id 3 || return 1
	json_check '[(s["prefix"], [p["id"] for p in s["paths"]]) for s in d] == [("2001:db8:10::/48", [2])]' \
		path get 2001:db8:10::6 || return 1
	json_check '[s["prefix"] for s in d] == ["2001:db8:10::5/128"]' path g 2001:db8:10::5 ||
		return 1
	json_check '[s["prefix"] for s in d] == ["2001:db8::/32"]' path get 2001:db8:11::1 ||
		return 1
	m path get 2001:db8:10::6 | grep -q "^2001:db8:10::/48" || return 1
	bad "no set covers it" "no path set covers this destination" path get 2001:db9::1 ||
		return 1
	bad "get of a prefix" 'invalid address "2001:db8::/64"' path get 2001:db8::/64 ||
		return 1
	bad "get of nothing" "missing ADDR" path get || return 1
	bad "get of two" 'unknown argument "2001:db8::2"' path get 2001:db8::1 2001:db8::2 ||
		return 1
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
	# Filters: each alone, then together; what they leave out is named
	# by what the whole list says of it.
	m -j conn show sport 7001 > "$tmp/c-sport" &&
		m -j conn sh dport 7001 state established > "$tmp/c-client" &&
		m -j conn show state established > "$tmp/c-est" &&
		m -j conn show src ::1 dst ::/0 > "$tmp/c-src" &&
		m -j conn show dst 2001:db8::/32 > "$tmp/c-none" &&
		m -j -d conn show > "$tmp/d-json" && m -details conn show > "$tmp/d-text" &&
		m conn show > "$tmp/plain-text" &&
		m -j -s conn show sport 7001 interval 0.3 count 2 > "$tmp/i-json" &&
		m -s conn show sport 7001 interval 0.3 count 2 > "$tmp/i-text" &&
		m -j -s conn show sport 7001 > "$tmp/i-after" || return 1
	kill "$cpid" "$spid" 2>/dev/null
	wait "$cpid" "$spid" 2>/dev/null
	m conn show
	# The client's connection and the server's, each other's mirror.
	python3 -c 'import json,sys
c = [x for x in json.load(open(sys.argv[1])) if x["state"] == "established"]
ok = any(a["dport"] == 7001 and any(b["sport"] == 7001 and b["local_cid"] == a["remote_cid"]
                                     and b["remote_cid"] == a["local_cid"] for b in c) for a in c)
sys.exit(0 if ok else 1)' "$tmp/conns" || return 1
	python3 -c 'import json, sys
f = [json.load(open(x)) for x in sys.argv[1:]]
sport, client, est, src, none = f
ok = (len(sport) == 1 and sport[0]["sport"] == 7001 and sport[0]["state"] == "established" and
      len(client) == 1 and client[0]["dport"] == 7001 and client[0]["state"] == "established" and
      client[0]["local_cid"] == sport[0]["remote_cid"] and
      sorted(c["local_cid"] for c in est) == sorted(c["local_cid"] for c in sport + client) and
      len(src) == 2 and all(c["saddr"] == "::1" for c in src) and none == [])
sys.exit(not ok)' "$tmp/c-sport" "$tmp/c-client" "$tmp/c-est" "$tmp/c-src" "$tmp/c-none" ||
		{ echo "a filter let through the wrong connections:"; cat "$tmp"/c-*; return 1; }
	# -d: the owner, as ss -e -p shows it. ip netns exec runs mrcperf
	# in its own process, so each end is held by the pid started here.
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
cpid, spid = int(sys.argv[2]), int(sys.argv[3])
est = [c for c in d if c["state"] == "established"]
def held(c, pid):
    return (c["uid"] == 0 and c["inode"] > 0 and
            [(u["comm"], u["pid"]) for u in c["users"]] == [("mrcperf", pid)])
ok = (any(c["dport"] == 7001 and held(c, cpid) for c in est) and
      any(c["sport"] == 7001 and held(c, spid) for c in est))
plain = json.load(open(sys.argv[4]))
ok = ok and all("users" not in c and c["inode"] > 0 for c in plain)
sys.exit(not ok)' "$tmp/d-json" "$cpid" "$spid" "$tmp/conns" ||
		{ echo "-d did not name the owners (client $cpid, server $spid):";
		  cat "$tmp/d-json"; return 1; }
	# interval: two samples of the server's end, each counter the change
	# since the one before: all of it less than the total after them.
	python3 -c 'import json, sys
s = [json.loads(l) for l in open(sys.argv[1])]
after = json.load(open(sys.argv[2]))[0]
ok = len(s) == 2 and all(len(x["conns"]) == 1 and x["interval_s"] > 0 and
                         0 < x["conns"][0]["bytes_received"] and
                         x["conns"][0]["local_cid"] == after["local_cid"] for x in s)
ok = ok and sum(x["conns"][0]["bytes_received"] for x in s) < after["bytes_received"]
print("received in each sample:", [x["conns"][0]["bytes_received"] for x in s] if ok else s,
      "in all:", after["bytes_received"])
sys.exit(not ok)' "$tmp/i-json" "$tmp/i-after" || return 1
	[ "$(grep -c '^--- .*: counters over the last ' "$tmp/i-text")" -eq 2 ] ||
		{ echo "interval text:"; cat "$tmp/i-text"; return 1; }
	if ! grep -q "users:((\"mrcperf\",pid=$cpid,fd=[0-9]*))" "$tmp/d-text" ||
	   grep -q "users:\|ino " "$tmp/plain-text"; then
		echo "-d text, then without -d:"
		cat "$tmp/d-text" "$tmp/plain-text"
		return 1
	fi
	bad "a bad state" 'invalid state "open"' conn show state open || return 1
	bad "listeners are not listed" 'invalid state "listen"' conn show state listen ||
		return 1
	bad "a bad port" 'invalid sport "0": 1 to 65535' conn show sport 0 || return 1
	bad "a keyword twice" 'duplicate "dst"' conn show dst ::1 dst ::2 || return 1
	bad "an unknown keyword" 'unknown argument "pid"' conn show pid 1 || return 1
	bad "an interval of 0" 'invalid interval "0": 0.05 to 3600 seconds' \
		conn show interval 0 || return 1
	bad "a count without N" 'missing N after "count"' conn show interval 1 count ||
		return 1
	bad "a word after the interval" 'unknown argument "dst" after the interval' \
		conn show interval 1 dst ::1
}

# path show interval: each counter of a path is its change since the
# previous sample. Probes made after the first sample are counted exactly
# once in the samples up to one taken after them.
test_path_interval() {
	local NS=$NS_A ipid lines

	m path flush
	m path add "$MRC_ADDR_B"/128 id 1 && m probe "$MRC_ADDR_B"/128 id 1 > /dev/null &&
		m probe "$MRC_ADDR_B"/128 id 1 > /dev/null || return 1
	# Not through m(): $! must be mrc itself, for kill to stop it.
	"$MRC" -n "$NS" -j -s path show interval 0.2 > "$tmp/pi.json" &
	ipid=$!
	wait_for 30 bash -c "[ \$(wc -l < $tmp/pi.json) -ge 1 ]" || { kill "$ipid"; return 1; }
	for _ in 1 2 3; do
		m probe "$MRC_ADDR_B"/128 id 1 > /dev/null || { kill "$ipid"; return 1; }
	done
	lines=$(wc -l < "$tmp/pi.json")
	wait_for 30 bash -c "[ \$(wc -l < $tmp/pi.json) -gt $lines ]"
	kill "$ipid"
	wait "$ipid" 2> /dev/null
	m path flush
	python3 -c 'import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.endswith("\n")]
p = [x["sets"][0]["paths"][0] for x in s]
probes = [q["stats"]["probes"] for q in p]
print("%d samples, probes in each: %s" % (len(s), probes))
sys.exit(not (sum(probes) == 3 and all(q["state"] == "good" for q in p)))' \
		"$tmp/pi.json"
}

# stats delta: what changed since the last time, by how much, and only that.
test_stats_delta() {
	local NS=$NS_A hist=$tmp/history

	MRC_STATS_HISTORY=$hist m -j stats delta > "$tmp/d1" || return 1
	m -j stats > "$tmp/s1" || return 1
	# A probe to nobody: one OutProbes, whatever else.
	m path flush
	m path add 2001:db8::99/128 id 1 || return 1
	m probe 2001:db8::99/128 id 1 timeout 100 > /dev/null 2>&1
	m path flush
	MRC_STATS_HISTORY=$hist m -j stats delta > "$tmp/d2" || return 1
	m -j stats > "$tmp/s2" || return 1
	MRC_STATS_HISTORY=$hist m stats d > "$tmp/d3" || return 1
	cat "$tmp/d2" "$tmp/d3"
	python3 -c 'import json, sys
d1, s1, d2, s2 = (json.load(open(x)) for x in sys.argv[1:5])
ok = (d1 == {k: v for k, v in s1.items() if v} and
      d2 == {k: s2[k] - s1[k] for k in s2 if s2[k] != s1[k]} and d2.get("OutProbes") == 1)
sys.exit(not ok)' "$tmp/d1" "$tmp/s1" "$tmp/d2" "$tmp/s2" ||
		{ echo "stats delta is not the difference"; return 1; }
	# Nothing happened since: nothing, or only what reading moved.
	[ "$(wc -l < "$tmp/d3")" -le 1 ] || return 1
	bad "stats of a word" 'unknown argument "x"' stats x
}

test_cc_show() {
	json_check "d == $CC_DEFAULTS" cc show || return 1
	m cc show > "$tmp/cc" || return 1
	cat "$tmp/cc"
	grep -qx "base-rtt 0 target-delay 2000 max-cwnd 256 ai 1 fi 1 md 512 qa-delay 50000 ecn-cooldown 1000" \
		"$tmp/cc" || { echo "unexpected text"; return 1; }
	m -j -p cc show | python3 -m json.tool > /dev/null || { echo "cc show -j -p is not JSON"; return 1; }
}

test_cc_set() {
	m cc set base-rtt 40 target-delay 3000 max-cwnd 64 ai 2 "fi" 3 md 256 \
		qa-delay 90000 ecn-cooldown 500 || return 1
	json_check 'd == {"base_rtt_us": 40, "target_delay_us": 3000, "max_cwnd": 64, "ai": 2,
		"fi": 3, "md": 256, "qa_delay_us": 90000, "ecn_cooldown_us": 500}' cc show || return 1
	# Only what is named changes.
	m cc set ai 4 || return 1
	json_check 'd["ai"] == 4 and d["fi"] == 3 and d["max_cwnd"] == 64' cc show || return 1
	# qa-delay 0 turns quick adapt off, whatever the target.
	m cc set qa-delay 0 target-delay 1000000 || return 1
	json_check 'd["qa_delay_us"] == 0 and d["target_delay_us"] == 1000000' cc show || return 1
	# The limits themselves are allowed.
	m cc set max-cwnd 2 md 1023 ai 64 "fi" 0 base-rtt 1000000 ecn-cooldown 0 || return 1
	# The text of cc show is a cc set command line.
	m cc show > "$tmp/cc" || return 1
	m cc set base-rtt 0 target-delay 2000 max-cwnd 256 ai 1 "fi" 1 md 512 \
		qa-delay 50000 ecn-cooldown 1000 || return 1
	# shellcheck disable=SC2046
	m cc set $(cat "$tmp/cc") || return 1
	m cc show | cmp -s - "$tmp/cc" || { echo "cc set \$(cc show) is not a round trip"; return 1; }
	m cc set base-rtt 0 target-delay 2000 max-cwnd 256 ai 1 "fi" 1 md 512 \
		qa-delay 50000 ecn-cooldown 1000 || return 1
	json_check "d == $CC_DEFAULTS" cc show || return 1
	# Each namespace has its own.
	m cc set ai 9 || return 1
	"$MRC" -n "$NS2" -j cc show > "$tmp/other" || return 1
	python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["ai"] == 1 else 1)' \
		"$tmp/other" || { echo "cc set in $NS changed $NS2"; return 1; }
	m cc set ai 1
}

test_cc_bad_input() {
	local ok=0

	json_check "d == $CC_DEFAULTS" cc show || return 1
	bad "max-cwnd above 256" "max-cwnd 257: integer out of range" cc set max-cwnd 257 || ok=1
	bad "max-cwnd below 2" "max-cwnd 1: integer out of range" cc set max-cwnd 1 || ok=1
	bad "md above 1023" "md 1024: integer out of range" cc set md 1024 || ok=1
	bad "target-delay 0" "target-delay 0: integer out of range" cc set target-delay 0 || ok=1
	bad "ai above 64, beside a good fi" "ai 65: integer out of range" cc set "fi" 9 ai 65 || ok=1
	bad "qa-delay above 10 s" "qa-delay 10000001: integer out of range" \
		cc set qa-delay 10000001 || ok=1
	bad "qa-delay equal to target-delay" "qa-delay must exceed target-delay" \
		cc set qa-delay 2000 || ok=1
	bad "target-delay above qa-delay" "qa-delay must exceed target-delay" \
		cc set target-delay 60000 || ok=1
	bad "nothing to set" "missing setting" cc set || ok=1
	bad "unknown keyword" 'unknown argument "rtt"' cc set rtt 5 || ok=1
	bad "not a number" 'invalid ai "x"' cc set ai x || ok=1
	bad "beyond 32 bits" 'invalid ai "4294967296"' cc set ai 4294967296 || ok=1
	bad "no value" 'missing value after "md"' cc set md || ok=1
	bad "a setting twice" 'duplicate "ai"' cc set ai 1 ai 2 || ok=1
	bad "unknown command" 'unknown command "get"' cc get || ok=1
	return "$ok"
}

test_cc_unprivileged() {
	local out

	out=$(nobody cc set ai 5 2>&1) && { echo "nobody changed cc"; return 1; }
	echo "nobody setting: $out"
	grep -qi "not permitted" <<< "$out" || return 1
	nobody -j cc show > "$tmp/nobody" || { echo "nobody cannot read"; return 1; }
	python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["ai"] == 1 else 1)' \
		"$tmp/nobody" || { echo "nobody reads wrong settings"; return 1; }
	json_check "d == $CC_DEFAULTS" cc show
}

test_path_stats() {
	m path flush
	m path add 2001:db8:e::/64 id 1 segs fc00::1 || return 1
	m path add 2001:db8:e::/64 id 2 || return 1
	json_check 'all(p["stats"] == dict.fromkeys(["sent", "bytes", "acked", "retrans", "ecn",
		"trims", "losses", "late_kept", "probes", "state_changes", "srtt_us"], 0)
		for s in d for p in s["paths"])' -s path show || return 1
	# JSON has them without -s too; the text only with it.
	json_check '[len(p["stats"]) for s in d for p in s["paths"]] == [11, 11]' || return 1
	m -s path show > "$tmp/text" || return 1
	cat "$tmp/text"
	[ "$(grep -cx $'\t\tsent 0 bytes 0 acked 0 retrans 0 ecn 0 trims 0 losses 0 late_kept 0 probes 0 state_changes 0 srtt 0us' \
		"$tmp/text")" -eq 2 ] || { echo "no line of counters under each path"; return 1; }
	! m path show | grep -q sent || { echo "counters without -s"; return 1; }
	# Each change of state counts, back and forth; setting the same
	# state again is no change.
	m path set 2001:db8:e::/64 id 2 state denied || return 1
	m path set 2001:db8:e::/64 id 2 state denied || return 1
	m path set 2001:db8:e::/64 id 2 state good || return 1
	json_check '[p["stats"]["state_changes"] for s in d for p in s["paths"]] == [0, 2]' ||
		return 1
	m path flush
}

# conn_quiet NS: `conn show -s -j` twice, the same, around `stats -j`, in
# $tmp/conns and $tmp/stats: the namespace's counters hold still.
conn_quiet() {
	"$MRC" -n "$1" -j -s conn show > "$tmp/conns" &&
		"$MRC" -n "$1" -j stats > "$tmp/stats" &&
		"$MRC" -n "$1" -j -s conn show | cmp -s - "$tmp/conns"
}

# A live connection over the automatic set of N paths (auto_paths), in a
# namespace of its own: conn show lists both ends with their N paths, and
# the DATA packets of every path add up to the namespace's OutData. The
# client is stopped, so that the counters hold still to be compared. 256
# paths take more than one dump message per connection (about 38 KiB),
# which the tool merges.
test_conn_paths() {
	local n=$1 ns=$NS_CONN-$1 spid cpid rc

	if [ "$n" != "$auto_paths" ]; then
		echo "$n" > "$AUTO_PATHS" || return 1
	fi
	ip netns add "$ns" && ip -n "$ns" link set lo up || return 1
	ip netns exec "$ns" "$MRC_TOP"/build/tools/mrcperf -s -1 -p 7003 \
		--ready "$tmp/ready-$n" > /dev/null 2>&1 &
	spid=$!
	wait_ready "$spid" "$tmp/ready-$n" || return 1
	ip netns exec "$ns" "$MRC_TOP"/build/tools/mrcperf -c ::1 -p 7003 -t 600 \
		-l 1000 > /dev/null 2>&1 &
	cpid=$!
	wait_for 30 bash -c "$MRC -n $ns -j stats | grep -q '\"OutData\":[1-9]'"
	rc=$?
	kill -STOP "$cpid"
	[ "$rc" -eq 0 ] && wait_for 30 conn_quiet "$ns"
	rc=$?
	"$MRC" -n "$ns" -s conn show > "$tmp/conns.txt"
	kill -KILL "$cpid" "$spid" 2>/dev/null
	wait "$cpid" "$spid" 2>/dev/null
	echo "$auto_paths" > "$AUTO_PATHS"
	ns_del "$ns"
	[ "$rc" -eq 0 ] || return 1
	python3 -c 'import json, sys
conns = json.load(open(sys.argv[1]))
out_data = json.load(open(sys.argv[2]))["OutData"]
n = int(sys.argv[3])
bad = []

def check(ok, what):
	if not ok:
		bad.append(what)

ends = [c for c in conns if c["state"] == "established"]
check(len(ends) == 2, "%d established ends, not 2" % len(ends))
check(len({c["local_cid"] for c in conns}) == len(conns), "connection ids repeat")
for c in ends:
	end = "%d -> %d" % (c["sport"], c["dport"])
	ids = [p["id"] for p in c["paths"]]
	sent = sum(p["stats"]["sent"] for p in c["paths"])
	retrans = sum(p["stats"]["retrans"] for p in c["paths"])
	print("%s: %d paths, auto %s, sent %d, retrans %d (%d)" % (end,
	      c["nr_paths"], c["auto"], sent, retrans, c["pkts_retrans"]))
	check(c["auto"] is True and c["nr_paths"] == n and ids == list(range(n)),
	      "%s: paths not 0..%d, automatic" % (end, n - 1))
	for p in c["paths"]:
		st = p["stats"]
		check(p["state"] == "good" and st["inflight"] == 0,
		      "%s: path %d %s with %d in flight" % (end, p["id"], p["state"], st["inflight"]))
		# Each path has its RTT variation and a reordering window of
		# at least a quarter of its srtt (a jiffy at least, before a
		# sample).
		check("rttvar_us" in st and st["reo_wnd_us"] >= max(st["srtt_us"] // 4, 1),
		      "%s: path %d reo_wnd_us %d, srtt_us %d" % (end, p["id"],
		      st["reo_wnd_us"], st["srtt_us"]))
	check(retrans == c["pkts_retrans"], "%s: paths retransmitted %d, connection %d" %
	      (end, retrans, c["pkts_retrans"]))
	# Idle now: the time under each limit adds up to the busy time.
	parts = sum(c[k + "_limited_us"] for k in ("app", "cwnd", "wnd", "rwnd", "sndbuf"))
	print("  busy %d us, limits %d us" % (c["busy_us"], parts))
	check(c["busy_us"] == parts, "%s: busy %d us, limits add up to %d us" %
	      (end, c["busy_us"], parts))
client = [c for c in ends if c["dport"] == 7003]
# Not that the client was busy for a while: the busy time is counted in
# jiffies, like the chrono of TCP, and a loaded guest may send it all in spells
# shorter than one.
check(len(client) == 1 and sum(p["stats"]["sent"] for p in client[0]["paths"]) > 0,
      "the client sent nothing")
total = sum(p["stats"]["sent"] for c in conns for p in c["paths"])
print("sent on every path: %d, OutData: %d" % (total, out_data))
check(total == out_data, "paths sent %d, OutData %d" % (total, out_data))
for what in bad[:10]:
	print("FAIL: " + what)
sys.exit(1 if bad else 0)' "$tmp/conns" "$tmp/stats" "$n" || return 1
	# The text: a line per path under each end, after "paths N auto".
	if [ "$(grep -c "established .* paths $n auto\$" "$tmp/conns.txt")" -ne 2 ] ||
	   [ "$(grep -cE $'^\tid [0-9]+ state good sent [0-9]+ bytes' "$tmp/conns.txt")" -ne $((2 * n)) ]; then
		echo "unexpected text"
		head -n 5 "$tmp/conns.txt"
		return 1
	fi
}

# elapsed_ms START: milliseconds since START, a `date +%s%N`.
elapsed_ms() {
	echo $((($(date +%s%N) - $1) / 1000000))
}

# A host that answers: B, across the veth. Any namespace with mrc.ko
# answers probes, path set or not. The JSON probe first, so that the
# path's probes counter is 1 after it; probing changes no state.
test_probe() {
	# m, json_check and bad work in $NS: here that is A.
	local NS=$NS_A out

	m path flush
	m path add "$MRC_ADDR_B"/128 id 1 || return 1
	m -j probe "$MRC_ADDR_B"/128 id 1 > "$tmp/probe.json" || return 1
	cat "$tmp/probe.json"
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if sorted(d) == ["id", "prefix", "rtt_us"] and d["prefix"] == sys.argv[2] + "/128"
         and d["id"] == 1 and d["rtt_us"] > 0 else 1)' "$tmp/probe.json" "$MRC_ADDR_B" ||
		{ echo "unexpected probe -j"; return 1; }
	json_check '[(p["state"], p["stats"]["probes"], p["stats"]["state_changes"])
		for s in d for p in s["paths"]] == [("good", 1, 0)]' -s path show || return 1
	# The text, and the probed host given by dst in a wider set.
	out=$(m probe "$MRC_ADDR_B"/128 id 1) || return 1
	echo "$out"
	grep -qE "^probe $MRC_ADDR_B/128 id 1: rtt [1-9][0-9]* us\$" <<< "$out" ||
		{ echo "unexpected probe text"; return 1; }
	m path add 2001:db8::/64 id 5 || return 1
	out=$(m probe 2001:db8::/64 id 5 dst "$MRC_ADDR_B" timeout 5000) || return 1
	echo "$out"
	grep -qE "^probe 2001:db8::/64 id 5 dst $MRC_ADDR_B: rtt [1-9][0-9]* us\$" <<< "$out" ||
		{ echo "unexpected probe text"; return 1; }
	json_check '(sorted((s["prefix"], p["id"], p["state"], p["stats"]["probes"],
		p["stats"]["state_changes"]) for s in d for p in s["paths"])
		== [("2001:db8::/64", 5, "good", 1, 0), ("2001:db8::2/128", 1, "good", 2, 0)])' ||
		return 1
	m path flush
}

# A host that does not answer: nobody has 2001:db8::99 on the veth's
# subnet. The probe goes out (and counts), and the kernel gives up after
# the timeout; the bound allows for a slow guest, it measures nothing.
test_probe_no_reply() {
	local NS=$NS_A start ms rc limit

	limit=$(slow_limit 10)
	m path flush
	m path add 2001:db8::99/128 id 1 || return 1
	start=$(date +%s%N)
	m probe 2001:db8::99/128 id 1 timeout 200 > "$tmp/out" 2>&1
	rc=$?
	ms=$(elapsed_ms "$start")
	echo "exit $rc after ${ms}ms: $(cat "$tmp/out")"
	[ "$rc" -ne 0 ] || { echo "the probe succeeded"; return 1; }
	grep -q "no reply" "$tmp/out" || return 1
	[ "$ms" -lt $((limit * 1000)) ] || { echo "longer than ${limit}s"; return 1; }
	json_check '[(p["state"], p["stats"]["probes"], p["stats"]["state_changes"])
		for s in d for p in s["paths"]] == [("good", 1, 0)]' path show || return 1
	m path flush
}

test_probe_bad_input() {
	local ok=0

	m path flush
	m path add 2001:db8:f::1/128 id 1 || return 1
	m path add 2001:db8:f::/64 id 1 || return 1
	bad "unknown id" "no path with this id" probe 2001:db8:f::1/128 id 9 || ok=1
	bad "no such set" "no path with this id" probe 2001:db8:9::1/128 id 1 || ok=1
	bad "a /64 without dst" "not a /128" probe 2001:db8:f::/64 id 1 || ok=1
	bad "dst outside the prefix" "dst 2001:db8:e::1: the address is not in the prefix" \
		probe 2001:db8:f::/64 id 1 dst 2001:db8:e::1 || ok=1
	bad "timeout 0" "timeout 0: integer out of range (1 to 10000)" \
		probe 2001:db8:f::1/128 id 1 timeout 0 || ok=1
	bad "timeout above 10 s" "timeout 10001: integer out of range (1 to 10000)" \
		probe 2001:db8:f::1/128 id 1 timeout 10001 || ok=1
	bad "id above 65535" "id 65536: integer out of range (0 to 65535)" \
		probe 2001:db8:f::1/128 id 65536 || ok=1
	bad "no id" 'missing "id"' probe 2001:db8:f::1/128 || ok=1
	bad "no prefix" "missing PREFIX" probe || ok=1
	bad "bad dst" 'invalid address "x"' probe 2001:db8:f::/64 id 1 dst x || ok=1
	bad "a path keyword" 'unknown argument "segs"' probe 2001:db8:f::1/128 id 1 segs fc00::1 ||
		ok=1
	m path flush
	return "$ok"
}

test_probe_unprivileged() {
	local out

	m path flush
	m path add 2001:db8:f::1/128 id 1 || return 1
	out=$(nobody probe 2001:db8:f::1/128 id 1 2>&1) && { echo "nobody probed"; return 1; }
	echo "nobody probing: $out"
	grep -qi "not permitted" <<< "$out" || return 1
	json_check '[p["stats"]["probes"] for s in d for p in s["paths"]] == [0]' || return 1
	m path flush
}

# Options as ip(8) takes them: -NAME, --NAME, any prefix; -V.
test_options() {
	local want out

	m path flush
	m path add 2001:db8:7::/64 id 3 || return 1
	# The age of the path's state is left out: it grows between runs.
	want=$("$MRC" -n "$NS" -j path show | sed 's/"changed_ms":[0-9]*,//') || return 1
	for opts in "-json -netns $NS" "--json --netns $NS" "-js -net $NS" \
		"--json --netns=$NS" "-j -- -n"; do
		# shellcheck disable=SC2086 # the options are words
		out=$("$MRC" $opts path show 2>&1 | sed 's/"changed_ms":[0-9]*,//')
		if [ "$opts" = "-j -- -n" ]; then
			# "--" ends the options: -n is taken as the object.
			[[ $out == *'unknown object "-n"'* ]] ||
				{ echo "mrc $opts: $out"; return 1; }
		elif [ "$out" != "$want" ]; then
			echo "mrc $opts path show: $out (want $want)"
			return 1
		fi
	done
	"$MRC" -statistics -n "$NS" path show | grep -q "id 3 state good reason added" ||
		{ echo "-statistics is not -s"; return 1; }
	# Objects and commands as prefixes, and show's synonyms.
	for cmd in "p s" "pa sh" "path list" "path ls" "path lst" "p l"; do
		# shellcheck disable=SC2086
		out=$("$MRC" -j -n "$NS" $cmd 2>&1 | sed 's/"changed_ms":[0-9]*,//')
		[ "$out" = "$want" ] || { echo "mrc $cmd: $out"; return 1; }
	done
	m p d 2001:db8:7::/64 id 3 || return 1
	[ "$(m -j p s)" = "[]" ] || { echo "p d did not delete"; return 1; }
	m c s > /dev/null && m s > /dev/null && m cc sh > /dev/null || return 1
	[ "$(m -j pr help | head -1)" = "Usage: mrc probe PREFIX id ID [dst ADDR] [timeout MS]" ] ||
		{ echo "probe help:"; m pr help; return 1; }
	# An object's help is its part of the grammar: path's, not cc's.
	out=$("$MRC" path help)
	[[ $out == *"mrc path delete"* && $out != *"mrc cc"* && $out != *"mrc pathset"* ]] ||
		{ echo "path help: $out"; return 1; }
	out=$("$MRC" help)
	[[ $out == *"mrc path delete"* && $out == *"mrc cc set"* ]] ||
		{ echo "help: $out"; return 1; }
	out=$("$MRC" -V) || return 1
	echo "$out"
	[[ $out == *"module: $(cat /sys/module/mrc/version)" ]] || return 1
	for opts in "-x path show" "-jsonx path show" "--json=1 path show" "-netns"; do
		# shellcheck disable=SC2086
		out=$("$MRC" $opts 2>&1) && { echo "mrc $opts succeeded"; return 1; }
		echo "mrc $opts: $out"
		[[ $out == *"unknown option"* || $out == *"takes no value"* ||
		   $out == *"missing value"* ]] || return 1
	done
	m path flush
}

[ -x "$MRC" ] || { echo "# $MRC not built"; exit "$KSFT_FAIL"; }
setup || { echo "# setup failed"; exit "$KSFT_FAIL"; }
json_eval_start || { echo "# cannot start the JSON evaluator"; exit "$KSFT_FAIL"; }
ktap_begin 24
run_test "add, show, set, del and flush round trip" test_round_trip
run_test "options, objects and commands as ip takes them: prefixes, -V, help" test_options
run_test "bad input is refused and changes nothing" test_bad_input
run_test "a namespace sees only its own paths" test_namespace_isolation
run_test "unprivileged users read but cannot change" test_unprivileged
run_test "monitor shows state changes" test_monitor
run_test "monitor shows connections opening and closing" test_monitor_conns
run_test "256 paths in a set, 1024 sets" test_limits
run_test "-b runs a batch of commands until the first that fails; -force all" test_batch
run_test "path get gives the set a destination uses" test_path_get
run_test "stats delta gives what changed since the last" test_stats_delta
run_test "conn show lists both ends of a connection, filters them, and -d names their processes" \
	test_conn_show
run_test "cc show gives the defaults" test_cc_show
run_test "cc set round trip" test_cc_set
run_test "bad cc settings are refused and change nothing" test_cc_bad_input
run_test "unprivileged users read cc but cannot change it" test_cc_unprivileged
run_test "path show -s gives each path's counters" test_path_stats
run_test "path show interval: each counter the change since the sample before" \
	test_path_interval
run_test "probe a host that answers: its RTT, counted" test_probe
run_test "probe a host that does not answer: no reply in time" test_probe_no_reply
run_test "bad probe input is refused and changes nothing" test_probe_bad_input
run_test "unprivileged users cannot probe" test_probe_unprivileged
# 16: the default of auto_paths.
run_test "conn show -s -j: 16 automatic paths add up" test_conn_paths 16
run_test "conn show -s -j: 256 paths over several messages" test_conn_paths 256
ktap_end
