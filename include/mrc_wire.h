/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MRC wire format: AF_MRC's own header, which follows the UDP header of
 * the packets MRC 1.0 has no opcode for (connection management and path
 * probes; data, ACKs and NACKs are MRC 1.0's, mrc10_wire.h), and PSN
 * arithmetic. Documentation/networking/mrc.rst has the byte diagrams.
 */
#ifndef _MRC_WIRE_H
#define _MRC_WIRE_H

#include <linux/compiler.h>
#include <linux/types.h>

#define MRC_VERSION		2

/* PSNs are 24 bits, as BTH carries them (mrc-1.0-mapping.rst): they are
 * added and compared modulo 2^24, half the space either way.
 */
#define MRC_PSN_BITS	24
#define MRC_PSN_MASK	((1U << MRC_PSN_BITS) - 1)

static inline __u32 mrc_psn_add(__u32 psn, __s32 n)
{
	return (psn + n) & MRC_PSN_MASK;
}

/* @a less @b, from -2^23 to 2^23 - 1. */
static inline __s32 mrc_psn_sub(__u32 a, __u32 b)
{
	return (__s32)((a - b) << (32 - MRC_PSN_BITS)) >> (32 - MRC_PSN_BITS);
}

static inline bool mrc_psn_before(__u32 a, __u32 b)
{
	return mrc_psn_sub(a, b) < 0;
}

static inline bool mrc_psn_after(__u32 a, __u32 b)
{
	return mrc_psn_before(b, a);
}

/* Packet types (mrc_hdr.type). DATA, ACK and NACK travel as MRC 1.0
 * WRITEs, SACKs and NACKs (mrc10_wire.h); their types are no longer sent,
 * and are dropped on receipt.
 */
enum mrc_pkt_type {
	MRC_PKT_DATA = 1,
	MRC_PKT_ACK = 2,
	MRC_PKT_NACK = 3,
	MRC_PKT_SYN = 4,
	MRC_PKT_SYNACK = 5,
	MRC_PKT_FIN = 6,
	MRC_PKT_RST = 7,
	MRC_PKT_PROBE = 8,
	MRC_PKT_PROBE_REPLY = 9,
};

/* What an ACK or a data packet says, as the module passes it around; on
 * the wire they travel in MRC 1.0 fields (mrc.rst, Common header).
 */
#define MRC_F_ECE	0x0001	/* ACK: the triggering packet was CE-marked */
#define MRC_F_FIN_ACK	0x0002	/* ACK: the peer's FIN has been received */
#define MRC_F_RETX	0x0004	/* DATA: a retransmission */
#define MRC_F_DUP	0x0008	/* ACK: the triggering DATA was a duplicate */
#define MRC_F_ACK_REQ	0x0010	/* DATA: acknowledge at once, do not delay */

/* NACK reasons, as the module passes them around (MRC 1.0's NETH reasons
 * map onto them).
 */
enum mrc_nack_reason {
	MRC_NACK_TRIMMED = 1,	/* the payload was cut off by a switch */
	MRC_NACK_NO_BUFFER = 2,	/* no receive memory for the payload */
	MRC_NACK_PSN_WINDOW = 3, /* the PSN is beyond the receive window */
};

/* RST reasons (mrc_rst.reason). */
enum mrc_rst_reason {
	MRC_RST_NO_CONN = 1,	/* no connection with that id */
	MRC_RST_NO_LISTENER = 2,	/* SYN to a port nobody listens on */
	MRC_RST_ABORT = 3,	/* the application aborted the connection */
	MRC_RST_BACKLOG = 4,	/* the listener's accept queue is full */
};

/**
 * struct mrc_hdr - common header of every packet in AF_MRC's format
 * @version: MRC_VERSION
 * @type: enum mrc_pkt_type
 * @flags: zero (no type left has flags)
 * @dcid: connection id chosen by the receiver of this packet (0 in a SYN)
 * @scid: connection id chosen by the sender of this packet
 * @ev: entropy value: the path this packet was sent on
 * @plen: zero (it held a DATA packet's payload length)
 */
struct mrc_hdr {
	__u8	version;
	__u8	type;
	__be16	flags;
	__be32	dcid;
	__be32	scid;
	__be16	ev;
	__be16	plen;
} __packed;

#define MRC_SACK_WORDS	4
#define MRC_SACK_BITS	(MRC_SACK_WORDS * 64)

/* Packets in flight are bounded by the window of PSNs one ACK can describe:
 * the cumulative PSN and the 255 after it, in up to four SACKs of 64.
 */
#define MRC_WND		256

/**
 * struct mrc_syn - SYN and SYNACK: open a connection
 * @h: common header; @h.scid is the sender's new connection id
 * @sport: sender's MRC port
 * @dport: receiver's MRC port
 * @isn: first PSN the sender will use
 * @rwnd: sender's initial receive window, bytes
 * @mss: largest DATA payload the sender can receive in one packet
 * @rsvd: zero
 * @tsval: sender's clock in microseconds
 * @tsecr: SYNACK: the tsval of the SYN it answers; SYN: zero
 */
struct mrc_syn {
	struct mrc_hdr h;
	__be16	sport;
	__be16	dport;
	__be32	isn;
	__be32	rwnd;
	__be16	mss;
	__be16	rsvd;
	__be32	tsval;
	__be32	tsecr;
} __packed;

/**
 * struct mrc_fin - FIN: the sender will send no more messages
 * @h: common header
 * @final_msn: MSN the next message would have had: the number of messages sent
 *
 * A FIN is sent once every DATA packet has been acknowledged, and is
 * answered by an ACK with MRC_F_FIN_ACK.
 */
struct mrc_fin {
	struct mrc_hdr h;
	__be32	final_msn;
} __packed;

/**
 * struct mrc_rst - RST: the connection is gone
 * @h: common header; ids are those of the packet being answered, swapped
 * @reason: enum mrc_rst_reason
 */
struct mrc_rst {
	struct mrc_hdr h;
	__be32	reason;
} __packed;

/**
 * struct mrc_probe - PROBE and PROBE_REPLY: is this path working?
 * @h: common header; dcid and scid 0 (no connection), ev the path probed
 * @token: chosen by the prober, echoed by the reply
 * @tsval: PROBE: the prober's clock, microseconds; PROBE_REPLY: echoed
 *
 * Any MRC host answers a PROBE with a PROBE_REPLY carrying the same ev,
 * token and tsval, sent on its own path with that id to the prober if it
 * has one, else by the routing table.
 */
struct mrc_probe {
	struct mrc_hdr h;
	__be32	token;
	__be32	tsval;
} __packed;

#endif /* _MRC_WIRE_H */
