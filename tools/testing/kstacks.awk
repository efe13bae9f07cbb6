# SPDX-License-Identifier: GPL-2.0
#
# Each CPU's stack in a kernel log's reports (an oops, a soft lockup, an
# RCU stall, the NMI backtraces of softlockup_all_cpu_backtrace), on one
# line: "CPU n comm: where < caller < ...". Where is the interrupted RIP;
# the frames of the report itself above it, the unreliable ("?") frames
# and a user-space RIP are left out. vm-run prints these lines, so that
# a summary which keeps only a few lines still says where each CPU was.
function flush() {
	if (cpu != "")
		print "CPU " cpu " " comm ": " (rip != "" ? rip : "(no RIP)") \
			(n ? " < " frames : "")
	cpu = ""; rip = ""; frames = ""; n = 0
}
{ sub(/\r$/, ""); sub(/^\[ *[0-9.]+\] /, "") }
/^CPU: [0-9]+ PID: [0-9]+ Comm: / { flush(); cpu = $2; comm = $6; next }
cpu == "" { next }
/^RIP: [0-9a-f]+:/ {
	if ($2 ~ /^0033:/)
		next
	r = $2
	sub(/^[0-9a-f]+:/, "", r)
	sub(/\/0x[0-9a-f]+$/, "", r)
	rip = r; frames = ""; n = 0
	next
}
/^ [^ ?][^ ]*\+0x[0-9a-f]+\/0x[0-9a-f]+/ {
	f = $1
	sub(/\+0x.*/, "", f)
	if (n < 10) {
		frames = frames (n ? " < " : "") f
		n++
	}
	next
}
/Kernel Offset:|^---\[ end / { flush() }
END { flush() }
