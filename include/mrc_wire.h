/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MRC wire format: the header that follows the UDP header of every MRC
 * packet. Documentation/networking/mrc.rst has the byte diagrams.
 *
 * include/ holds what is shared beyond the module: the wire formats (this
 * file and mrc10_wire.h, also built by the fuzzers and the host tests)
 * and mrc_compat.h (the kernel differences, for both modules). The
 * module's own headers are in net/mrc/, each type in the header of the
 * file that owns it.
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

/* Packet types (mrc_hdr.type). */
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

/* Flags (mrc_hdr.flags). */
#define MRC_F_ECE	0x0001	/* ACK: the triggering packet was CE-marked */
#define MRC_F_FIN_ACK	0x0002	/* ACK: the peer's FIN has been received */
#define MRC_F_RETX	0x0004	/* DATA: a retransmission */
#define MRC_F_DUP	0x0008	/* ACK: the triggering DATA was a duplicate */
#define MRC_F_ACK_REQ	0x0010	/* DATA: acknowledge at once, do not delay */

/* NACK reasons (mrc_nack.reason). */
enum mrc_nack_reason {
	MRC_NACK_TRIMMED = 1,	/* the payload was cut off by a switch */
	MRC_NACK_NO_BUFFER = 2,	/* no receive memory for the payload */
};

/* RST reasons (mrc_rst.reason). */
enum mrc_rst_reason {
	MRC_RST_NO_CONN = 1,	/* no connection with that id */
	MRC_RST_NO_LISTENER = 2,	/* SYN to a port nobody listens on */
	MRC_RST_ABORT = 3,	/* the application aborted the connection */
	MRC_RST_BACKLOG = 4,	/* the listener's accept queue is full */
};

/**
 * struct mrc_hdr - common header of every MRC packet
 * @version: MRC_VERSION
 * @type: enum mrc_pkt_type
 * @flags: MRC_F_* bits
 * @dcid: connection id chosen by the receiver of this packet (0 in a SYN)
 * @scid: connection id chosen by the sender of this packet
 * @ev: entropy value: the path this packet was sent on
 * @plen: DATA: bytes of payload after the DATA header, so that a receiver
 *	can tell a packet a switch trimmed; zero in other types
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

/**
 * struct mrc_data - DATA: one packet of one message
 * @h: common header
 * @psn: packet sequence number (wraps; serial-number arithmetic)
 * @msn: message sequence number (wraps)
 * @offset: byte offset of the payload in the message
 * @msg_len: total length of the message
 * @tsval: sender's clock in microseconds at transmission, echoed in ACKs
 *
 * The payload follows. A receiver can place it without any other packet.
 */
struct mrc_data {
	struct mrc_hdr h;
	__be32	psn;
	__be32	msn;
	__be32	offset;
	__be32	msg_len;
	__be32	tsval;
} __packed;

#define MRC_SACK_WORDS	4
#define MRC_SACK_BITS	(MRC_SACK_WORDS * 64)

/* Packets in flight are bounded by the window of PSNs one ACK can describe:
 * the cumulative PSN and the 255 after it.
 */
#define MRC_WND		256

/**
 * struct mrc_ack - ACK: cumulative and selective acknowledgment
 * @h: common header; @h.ev is the path the ACK itself takes
 * @cum_psn: every PSN before this one has arrived; this one has not
 * @sack: bit i of word j set: PSN cum_psn + 1 + 64 * j + i has arrived
 * @ev_echo: path of the packet that triggered this ACK
 * @rsvd: zero
 * @rwnd: receive window, in bytes, beyond what is already acknowledged
 * @tsecr: tsval of the packet that triggered this ACK
 * @svc_time_us: microseconds that packet waited before this ACK was sent
 */
struct mrc_ack {
	struct mrc_hdr h;
	__be32	cum_psn;
	__be64	sack[MRC_SACK_WORDS];
	__be16	ev_echo;
	__be16	rsvd;
	__be32	rwnd;
	__be32	tsecr;
	__be32	svc_time_us;
} __packed;

/**
 * struct mrc_nack - NACK: a packet arrived without its payload
 * @h: common header
 * @psn: the packet's PSN
 * @ev: the path it arrived on
 * @reason: enum mrc_nack_reason
 * @rsvd: zero
 */
struct mrc_nack {
	struct mrc_hdr h;
	__be32	psn;
	__be16	ev;
	__u8	reason;
	__u8	rsvd;
} __packed;

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
