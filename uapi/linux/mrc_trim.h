/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The mrctrim queueing discipline: a FIFO that trims instead of dropping,
 * as MRC fabric switches do. Documentation/networking/mrc.rst
 * ("Packet trimming") describes it; tc-mrctrim(8) is its tc syntax.
 */
#ifndef _UAPI_LINUX_MRC_TRIM_H
#define _UAPI_LINUX_MRC_TRIM_H

#include <linux/types.h>

/* Defaults, shared by the qdisc, its tc plugin and mrc.ko. */
#define MRCTRIM_DEF_LIMIT		(256 * 1024)	/* data band, bytes */
#define MRCTRIM_DEF_HEADER_LIMIT	(64 * 1024)	/* header band, bytes */
#define MRCTRIM_DEF_TRIM_SIZE		256	/* bytes kept, from the IPv6 header */
#define MRCTRIM_DEF_TRIMMABLE_DSCP	10	/* MRC DATA packets carry it */
#define MRCTRIM_DEF_TRIM_DSCP		11	/* trimmed packets carry it */

/*
 * The least trim-size: an IPv6 header, a UDP header and an MRC DATA
 * header (40 + 8 + 36 bytes). Packets whose headers (an SRH included) do
 * not fit in trim-size are not trimmed but dropped.
 */
#define MRCTRIM_MIN_TRIM_SIZE		84

/* TCA_OPTIONS of the "mrctrim" qdisc. */
enum {
	TCA_MRCTRIM_UNSPEC,
	TCA_MRCTRIM_LIMIT,		/* u32: bytes the data band holds */
	TCA_MRCTRIM_HEADER_LIMIT,	/* u32: bytes the header band holds */
	TCA_MRCTRIM_TRIM_SIZE,		/* u32: bytes a trimmed packet keeps */
	TCA_MRCTRIM_TRIM_DSCP,		/* u8: DSCP given to trimmed packets */
	TCA_MRCTRIM_TRIMMABLE_DSCP,	/* u8: DSCP of packets that may be trimmed */
	TCA_MRCTRIM_ECN_THRESHOLD,	/* u32: data band bytes above which
					 * ECN-capable packets are marked CE;
					 * 0: never
					 */
	__TCA_MRCTRIM_MAX
};

#define TCA_MRCTRIM_MAX	(__TCA_MRCTRIM_MAX - 1)

/**
 * struct tc_mrctrim_xstats - the qdisc's own statistics (tc -s)
 * @trimmed: packets trimmed and queued in the header band
 * @data_drops: packets tail-dropped because the data band was full and
 *	they were not trimmable (another DSCP, not IPv6 and UDP, or their
 *	headers longer than trim-size)
 * @header_drops: packets dropped because the header band was full
 *	(trimmed here or arriving with the trim DSCP)
 * @ecn_marked: packets marked CE above the ECN threshold
 * @data_backlog: bytes now in the data band
 * @header_backlog: bytes now in the header band
 * @data_qlen: packets now in the data band
 * @header_qlen: packets now in the header band
 */
struct tc_mrctrim_xstats {
	__u64 trimmed;
	__u64 data_drops;
	__u64 header_drops;
	__u64 ecn_marked;
	__u32 data_backlog;
	__u32 header_backlog;
	__u32 data_qlen;
	__u32 header_qlen;
};

#endif /* _UAPI_LINUX_MRC_TRIM_H */
