// SPDX-License-Identifier: GPL-2.0
/*
 * MRC counters: /proc/net/mrc_stat, one "Name Value" pair per line in the
 * format of /proc/net/snmp6.
 */
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>

#include "mib.h"
#include "pernet.h"

/* Every field has a name: the array is exactly MRC_MIB_MAX long and full. */
static const char * const mrc_mib_names[] = {
	[MRC_MIB_IN_PKTS] = "InPkts",
	[MRC_MIB_OUT_PKTS] = "OutPkts",
	[MRC_MIB_IN_DATA] = "InData",
	[MRC_MIB_OUT_DATA] = "OutData",
	[MRC_MIB_OUT_DATA_SKBS] = "OutDataSkbs",
	[MRC_MIB_OUT_DATA_CHAINED] = "OutDataChained",
	[MRC_MIB_OUT_RETRANS] = "OutRetrans",
	[MRC_MIB_IN_ACKS] = "InAcks",
	[MRC_MIB_OUT_ACKS] = "OutAcks",
	[MRC_MIB_IN_SYNS] = "InSyns",
	[MRC_MIB_OUT_SYNS] = "OutSyns",
	[MRC_MIB_IN_FINS] = "InFins",
	[MRC_MIB_OUT_FINS] = "OutFins",
	[MRC_MIB_IN_RSTS] = "InRsts",
	[MRC_MIB_OUT_RSTS] = "OutRsts",
	[MRC_MIB_IN_NACKS] = "InNacks",
	[MRC_MIB_OUT_NACKS] = "OutNacks",
	[MRC_MIB_IN_TRIMMED] = "InTrimmed",
	[MRC_MIB_TRIM_RETRANS] = "TrimRetrans",
	[MRC_MIB_IN_PROBES] = "InProbes",
	[MRC_MIB_OUT_PROBES] = "OutProbes",
	[MRC_MIB_IN_PROBE_REPLIES] = "InProbeReplies",
	[MRC_MIB_OUT_PROBE_REPLIES] = "OutProbeReplies",
	[MRC_MIB_PATHS_RETIRED] = "PathsRetired",
	[MRC_MIB_PATHS_RESTORED] = "PathsRestored",
	[MRC_MIB_RETIRE_AT_FLOOR] = "RetireAtFloor",
	[MRC_MIB_RETIRE_TRIMMED] = "RetireTrimmed",
	[MRC_MIB_RETIRE_UNDONE] = "RetireUndone",
	[MRC_MIB_RETIRE_LOCAL_DROP] = "RetireLocalDrop",
	[MRC_MIB_RETIRE_LOCAL_QUEUE] = "RetireLocalQueue",
	[MRC_MIB_OUTAGES] = "Outages",
	[MRC_MIB_IN_OUT_OF_ORDER] = "InOutOfOrder",
	[MRC_MIB_IN_BEYOND_WINDOW] = "InBeyondWindow",
	[MRC_MIB_IN_DATA_BATCHES] = "InDataBatches",
	[MRC_MIB_IN_DATA_BATCHES_SPLIT] = "InDataBatchesSplit",
	[MRC_MIB_RCVBUF_GROWN] = "RcvbufGrown",
	[MRC_MIB_SNDBUF_GROWN] = "SndbufGrown",
	[MRC_MIB_IN_PKT_TOO_BIG] = "InPktTooBig",
	[MRC_MIB_OUT_FRAGMENTED] = "OutFragmented",
	[MRC_MIB_ACTIVE_OPENS] = "ActiveOpens",
	[MRC_MIB_PASSIVE_OPENS] = "PassiveOpens",
	[MRC_MIB_CONN_REFUSED] = "ConnRefused",
	[MRC_MIB_CONN_RESET] = "ConnReset",
	[MRC_MIB_CONN_TIMEOUT] = "ConnTimeout",
	[MRC_MIB_CONN_ABORTED] = "ConnAborted",
	[MRC_MIB_RTO] = "RtoFired",
	[MRC_MIB_RACK_LOST] = "RackLost",
	[MRC_MIB_PATH_TIME_LOST] = "PathTimeLost",
	[MRC_MIB_PATH_LATE_KEPT] = "PathLateKept",
	[MRC_MIB_NO_ROUTE_LOST] = "NoRouteLost",
	[MRC_MIB_QDISC_DROP_LOST] = "QdiscDropLost",
	[MRC_MIB_PATH_MOVED] = "PathMoved",
	[MRC_MIB_PKT_TOO_BIG_LOST] = "PktTooBigLost",
	[MRC_MIB_SPURIOUS_RETRANS] = "SpuriousRetrans",
	[MRC_MIB_ACK_OVERTAKEN] = "AckOvertaken",
	[MRC_MIB_SACK_RECOVERED] = "SackRecovered",
	[MRC_MIB_ECN_ECHOED] = "EcnEchoed",
	[MRC_MIB_CC_ECN_DECREASE] = "CcEcnDecrease",
	[MRC_MIB_CC_QUICK_ADAPT] = "CcQuickAdapt",
	[MRC_MIB_CC_LOSS_DECREASE] = "CcLossDecrease",
	[MRC_MIB_CC_TRIM_DECREASE] = "CcTrimDecrease",
	[MRC_MIB_CC_UNDO] = "CcUndo",
	[MRC_MIB_ZERO_WND_PROBES] = "ZeroWindowProbes",
	[MRC_MIB_MSGS_DELIVERED] = "MsgsDelivered",
	[MRC_MIB_DROP_SHORT] = "DropShort",
	[MRC_MIB_DROP_CSUM] = "DropCsum",
	[MRC_MIB_DROP_GSO] = "DropGso",
	[MRC_MIB_DROP_VERSION] = "DropVersion",
	[MRC_MIB_DROP_TYPE] = "DropType",
	[MRC_MIB_DROP_NO_CONN] = "DropNoConn",
	[MRC_MIB_DROP_BAD_CID] = "DropBadCid",
	[MRC_MIB_DROP_STATE] = "DropState",
	[MRC_MIB_DROP_DUP] = "DropDup",
	[MRC_MIB_DROP_PSN_WINDOW] = "DropPsnWindow",
	[MRC_MIB_DROP_BAD_MSG] = "DropBadMsg",
	[MRC_MIB_DROP_RCVBUF] = "DropRcvbuf",
	[MRC_MIB_DROP_ZERO_WND] = "DropZeroWindow",
	[MRC_MIB_DROP_MEM_LIMIT] = "DropMemLimit",
	[MRC_MIB_DROP_BACKLOG] = "DropBacklog",
	[MRC_MIB_DROP_LISTEN_OVERFLOW] = "DropListenOverflow",
	[MRC_MIB_DROP_NO_LISTENER] = "DropNoListener",
	[MRC_MIB_DROP_ACK_UNSENT] = "DropAckUnsent",
	[MRC_MIB_DROP_SACK_UNSENT] = "DropSackUnsent",
	[MRC_MIB_DROP_NACK] = "DropNack",
	[MRC_MIB_DROP_NOMEM] = "DropNomem",
	[MRC_MIB_DROP_BAD_SRH] = "DropBadSrh",
	[MRC_MIB_DROP_PROBE_RATE] = "DropProbeRate",
	[MRC_MIB_RST_RATE_LIMITED] = "RstRateLimited",
	[MRC_MIB_DROP_PROBE_REPLY] = "DropProbeReply",
	[MRC_MIB_DROP_SMALL_MSS] = "DropSmallMss",
	[MRC_MIB_DROP_PKT_TOO_BIG] = "DropPktTooBig",
	[MRC_MIB_ORPHAN_TIMEOUT] = "OrphanTimeout",
	[MRC_MIB_ORPHAN_OVERFLOW] = "OrphanOverflow",
	[MRC_MIB_TX_NO_ROUTE] = "TxNoRoute",
	[MRC_MIB_TX_ERRORS] = "TxErrors",
	[MRC_MIB_TX_NO_PATH] = "TxNoPath",
	[MRC_MIB_SEND_MEM_LIMIT] = "SendMemLimit",
	[MRC_MIB_MEM_PRESSURE] = "MemPressure",
	[MRC_MIB_RTO_DEFERRED] = "RtoDeferred",
	[MRC_MIB_TIMER_LATE] = "RtxTimerLate",
	[MRC_MIB_PATH_TIME_HELD] = "PathTimeHeld",
	[MRC_MIB_TAIL_PROBES] = "TailProbes",
	[MRC_MIB_TAIL_PROBE_REPAIRS] = "TailProbeRepairs",
};

static_assert(ARRAY_SIZE(mrc_mib_names) == MRC_MIB_MAX);

/**
 * mrc_mib_name() - the name of a counter, as /proc/net/mrc_stat shows it
 * @field: enum mrc_mib_field
 *
 * Return: the name.
 */
const char *mrc_mib_name(int field)
{
	return mrc_mib_names[field];
}

/**
 * mrc_mib_read() - a counter's value, summed over CPUs
 * @net: namespace
 * @field: enum mrc_mib_field
 *
 * Return: the value.
 */
unsigned long mrc_mib_read(struct net *net, int field)
{
	struct mrc_net *mn = mrc_net(net);
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(mn->mib, cpu)->mibs[field];
	return sum;
}

static int mrc_mib_seq_show(struct seq_file *seq, void *v)
{
	struct net *net = seq_file_single_net(seq);
	int i;

	for (i = 0; i < MRC_MIB_MAX; i++)
		seq_printf(seq, "%-32s\t%lu\n", mrc_mib_name(i),
			   mrc_mib_read(net, i));
	return 0;
}

/**
 * mrc_mib_init() - allocate the counters of a namespace and show them
 * @net: the namespace
 *
 * Return: 0 or -ENOMEM.
 */
int mrc_mib_init(struct net *net)
{
	struct mrc_net *mn = mrc_net(net);

	mn->mib = alloc_percpu(struct mrc_mib);
	if (!mn->mib)
		return -ENOMEM;
	if (!proc_create_net_single("mrc_stat", 0444, net->proc_net,
				    mrc_mib_seq_show, NULL)) {
		free_percpu(mn->mib);
		return -ENOMEM;
	}
	return 0;
}

/**
 * mrc_mib_exit() - remove and free the counters of a namespace
 * @net: the namespace
 */
void mrc_mib_exit(struct net *net)
{
	remove_proc_entry("mrc_stat", net->proc_net);
	free_percpu(mrc_net(net)->mib);
}
