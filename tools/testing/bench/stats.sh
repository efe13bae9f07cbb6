# SPDX-License-Identifier: GPL-2.0
#
# stats.sh: helpers the benchmarks source.

# stats: "median min max" of the numbers on stdin ("null" for none).
stats() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "null null null"; exit }
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		print m, v[1], v[NR] }'
}

# latency_json NAME FILE: the JSON member NAME of the latency runs in
# FILE, a line "p50 p99 p99.9" each: the median and the spread of each
# percentile, in microseconds.
latency_json() {
	local i m lo hi name line="\"$1\": {"

	for i in 1 2 3; do
		read -r m lo hi <<< "$(awk -v i=$i '$i != "null" { print $i }' "$2" | stats)"
		name=$(echo "p50 p99 p999" | cut -d' ' -f$i)
		line+="\"${name}_us\": $m, \"${name}_min\": $lo, \"${name}_max\": $hi"
		[ $i -lt 3 ] && line+=", "
	done
	echo "$line}"
}
