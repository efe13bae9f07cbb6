#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Permissions, with an unprivileged user (nobody, through setpriv):
#  - changing paths or congestion-control settings, and probing, need
#    CAP_NET_ADMIN: EPERM without; reading them needs nothing;
#  - that capability counts in the user namespace owning the network
#    namespace: the same user, root of its own user and network namespace
#    (unshare -Urn), manages that namespace's paths, and only those; root
#    of a user namespace that does not own the network namespace
#    (unshare -Ur) changes nothing there, nor do net.mrc sysctls yield to
#    anyone but root;
#  - binding an MRC port below net.ipv4.ip_unprivileged_port_start needs
#    CAP_NET_BIND_SERVICE (EACCES), as for TCP and UDP.

# Test functions run through run_test, which shellcheck cannot follow.
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")"/lib.sh

MRC=$MRC_TOP/build/tools/mrc
HOLD=$MRC_BIN/mrc_hold
NS=mrc-perm-$RANDOM
tmp=$(mktemp -d)
chmod 755 "$tmp"

cleanup() {
	ns_del "$NS"
	rm -rf "$tmp"
}
trap cleanup EXIT

# as_nobody CMD...: CMD as user and group nobody, no capabilities, in $NS.
as_nobody() {
	ip netns exec "$NS" setpriv --reuid=nobody --regid=nogroup --clear-groups \
		--inh-caps=-all --bounding-set=-all "$@"
}

# refused WANT CMD...: CMD fails, saying WANT.
refused() {
	local want=$1 out

	shift
	if out=$("$@" 2>&1); then
		echo "succeeded: $*"
		return 1
	fi
	echo "$*: $out"
	[[ $out == *"$want"* ]] || { echo "expected: $want"; return 1; }
}

setup() {
	ip netns add "$NS" && ip -n "$NS" link set lo up
}

test_changes_need_admin() {
	refused "Operation not permitted" as_nobody "$MRC" path add 2001:db8::/64 \
		segs 2001:db8:1::1 id 1 || return 1
	refused "Operation not permitted" as_nobody "$MRC" cc set ai 2 || return 1
	refused "Operation not permitted" as_nobody "$MRC" path flush || return 1
	refused "Operation not permitted" as_nobody "$MRC" probe ::1/128 id 1 || return 1
	# Root may; the path is there for nobody to read.
	ip netns exec "$NS" "$MRC" path add 2001:db8::/64 segs 2001:db8:1::1 id 1 || return 1
	refused "Operation not permitted" as_nobody "$MRC" path del 2001:db8::/64 || return 1
	refused "Operation not permitted" as_nobody "$MRC" path set 2001:db8::/64 \
		id 1 state denied || return 1
	as_nobody "$MRC" path show | grep -q "id 1 segs 2001:db8:1::1 state good" ||
		{ echo "nobody cannot read the path"; return 1; }
	as_nobody "$MRC" cc show > /dev/null && as_nobody "$MRC" stats > /dev/null &&
		as_nobody "$MRC" conn show > /dev/null
}

# In a user namespace of its own, nobody is root there, and manages the
# network namespace it created, not the one it came from.
test_own_namespace() {
	local out

	out=$(as_nobody unshare -Urn sh -c "
		ip link set lo up &&
		'$MRC' path add 2001:db8:9::/64 segs 2001:db8:1::9 id 9 &&
		'$MRC' cc set ai 3 && '$MRC' path show && '$MRC' cc show" 2>&1)
	echo "$out"
	[[ $out == *"id 9 segs 2001:db8:1::9"* ]] || return 1
	[[ $out == *"ai 3"* ]] || return 1
	# The namespace it came from is untouched.
	ip netns exec "$NS" "$MRC" path show | grep -q "2001:db8:9::" &&
		{ echo "the path leaked into $NS"; return 1; }
	ip netns exec "$NS" "$MRC" cc show | grep -q "ai 3" &&
		{ echo "the setting leaked into $NS"; return 1; }
	return 0
}

# CAP_NET_ADMIN counts only in the user namespace that owns the network
# namespace: root of a user namespace of its own (unshare -Ur) but still
# in $NS changes nothing; net.mrc sysctls are not for nobody to write,
# in either way.
test_not_owner() {
	local knob=/proc/sys/net/mrc/outage_timeout_ms before

	before=$(ip netns exec "$NS" cat "$knob")
	refused "Operation not permitted" as_nobody unshare -Ur "$MRC" path add \
		2001:db8:7::/64 segs 2001:db8:1::7 id 7 || return 1
	refused "Operation not permitted" as_nobody unshare -Ur "$MRC" cc set ai 4 || return 1
	refused "Permission denied" as_nobody sh -c "echo 5000 > $knob" || return 1
	refused "Permission denied" as_nobody unshare -Ur sh -c "echo 5000 > $knob" || return 1
	[ "$(ip netns exec "$NS" cat "$knob")" = "$before" ] ||
		{ echo "$knob changed"; return 1; }
	ip netns exec "$NS" "$MRC" path show | grep -q "2001:db8:7::" &&
		{ echo "the path was added"; return 1; }
	return 0
}

test_low_ports() {
	local start

	start=$(ip netns exec "$NS" sysctl -n net.ipv4.ip_unprivileged_port_start)
	echo "ip_unprivileged_port_start: $start"
	refused "Permission denied" as_nobody "$HOLD" -l 80 -x || return 1
	as_nobody "$HOLD" -l 5000 -x || { echo "nobody cannot bind port 5000"; return 1; }
	ip netns exec "$NS" "$HOLD" -l 80 -x || { echo "root cannot bind port 80"; return 1; }
	# The same sysctl as TCP's moves the line.
	ip netns exec "$NS" sysctl -qw net.ipv4.ip_unprivileged_port_start=80 || return 1
	as_nobody "$HOLD" -l 80 -x || { echo "port 80 is not unprivileged now"; return 1; }
	refused "Permission denied" as_nobody "$HOLD" -l 79 -x
}

ktap_begin 4
setup || { echo "# setup failed"; exit "$KSFT_FAIL"; }
run_test "changing paths and settings, and probing, need CAP_NET_ADMIN" test_changes_need_admin
run_test "root of its own user namespace manages its own network namespace" test_own_namespace
run_test "CAP_NET_ADMIN of a user namespace that does not own the netns: refused" test_not_owner
run_test "MRC ports below ip_unprivileged_port_start need CAP_NET_BIND_SERVICE" test_low_ports
ktap_end
