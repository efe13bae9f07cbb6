#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run_tests.sh [TEST...]
#
# Run the MRC selftests (all of tests.list, or the named ones) and print one
# KTAP document: each test is a top-level case, its own KTAP output nested as
# diagnostics. The last line sums the cases of every test:
#   # Totals: pass:N fail:N xfail:0 xpass:0 skip:N error:0
# With $VM_RUN_OUT set (inside vm-run), the sums also go to
# $VM_RUN_OUT/counts as "PASS FAIL SKIP".
#
# A test that prints no Totals line (it crashed) counts as one failure, and
# so does a test that exits non-zero while reporting no failed case.

source "$(dirname "$0")"/lib.sh

list=$MRC_BIN/tests.list
if [ $# -gt 0 ]; then
	tests=()
	for t in "$@"; do
		tests+=("$(grep -m1 "/$t\$" "$list" || echo "$t")")
	done
else
	mapfile -t tests < "$list"
fi

per_test_limit=$(slow_limit 300)
pass=0 fail=0 skip=0
ktap_begin ${#tests[@]}
for t in "${tests[@]}"; do
	name=$(basename "$t")
	out=$(mktemp)
	echo "# selftests: net/mrc: $name"
	start=$SECONDS
	timeout -k 10 "$per_test_limit" "$t" > "$out" 2>&1
	rc=$?
	sed 's/^/# /' "$out"
	echo "# $name took $((SECONDS - start)) s"
	totals=$(sed -nE 's/^# Totals: pass:([0-9]+) fail:([0-9]+) .* skip:([0-9]+) .*/\1 \2 \3/p' "$out" | tail -n 1)
	rm -f "$out"
	if [ -n "$totals" ]; then
		read -r p f s <<< "$totals"
		if [ "$rc" -ne 0 ] && [ "$rc" -ne "$KSFT_SKIP" ] && [ "$f" -eq 0 ]; then
			f=1
		fi
	else
		p=0 f=1 s=0
	fi
	[ "$rc" -eq 124 ] && echo "# $name: killed after ${per_test_limit}s"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	if [ "$f" -gt 0 ]; then
		ktap_result fail "selftests: net/mrc: $name # exit=$rc"
	elif [ "$rc" -eq "$KSFT_SKIP" ]; then
		ktap_result skip "selftests: net/mrc: $name"
	else
		ktap_result pass "selftests: net/mrc: $name"
	fi
done
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
if [ -n "${VM_RUN_OUT:-}" ]; then
	echo "$pass $fail $skip" > "$VM_RUN_OUT/counts"
fi
[ "$fail" -eq 0 ]
