/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The MRC 1.0 packet format: InfiniBand's BTH, then the extension headers
 * of its opcode, the payload, the pad and the ICRC, after UDP. Layouts
 * from Documentation/networking/mrc-1.0-sources.rst; what AF_MRC puts in
 * each field, and the extension it adds, in mrc-1.0-mapping.rst.
 */
#ifndef _MRC10_WIRE_H
#define _MRC10_WIRE_H

#include <linux/compiler.h>
#include <linux/types.h>

/* Opcodes (BTH byte 0). */
enum mrc10_opcode {
	MRC10_WRITE_FIRST = 0xc6,
	MRC10_WRITE_MIDDLE = 0xc7,
	MRC10_WRITE_LAST = 0xc8,
	MRC10_WRITE_LAST_IMM = 0xc9,
	MRC10_WRITE_ONLY = 0xca,
	MRC10_WRITE_ONLY_IMM = 0xcb,
	MRC10_TRANSPORT_ACK = 0xd1,
	MRC10_ENDPOINT_REQ = 0xd8,
	MRC10_ENDPOINT_RESP = 0xd9,
	MRC10_SACK = 0xdc,
	MRC10_NACK = 0xdd,
	MRC10_PROBE = 0xde,
};

/* The destination QP of endpoint operations. */
#define MRC10_ENDPOINT_QPN	2

/**
 * struct mrc10_bth - Base Transport Header, 12 bytes
 * @opcode: enum mrc10_opcode
 * @flags: SE 0x80, M 0x40, PadCnt 0x30, TVer 0x0f
 * @pkey: partition key, 0xffff
 * @resv8a: FECN, BECN, reserved: 0, masked in the ICRC
 * @dqpn: the destination QP, 24 bits, in the low 3 bytes
 * @psn: byte 0 the A, R, RTX and TS bits (MRC10_BTH_*); then the 24-bit PSN
 */
struct mrc10_bth {
	__u8	opcode;
	__u8	flags;
	__be16	pkey;
	__u8	resv8a;
	__u8	dqpn[3];
	__be32	psn;
} __packed;

#define MRC10_BTH_PAD_SHIFT	4
#define MRC10_BTH_PAD_MASK	0x30
/* In the top byte of &mrc10_bth.psn. */
#define MRC10_BTH_ACK_REQ	0x80000000	/* A: SACK at once */
#define MRC10_BTH_RTX		0x20000000	/* a retransmission */
#define MRC10_BTH_TS		0x10000000	/* TSETH follows METH */
#define MRC10_BTH_PSN_MASK	0x00ffffff

/**
 * struct mrc10_meth - message header, 4 bytes, on WRITE packets
 * @rqmsn: number of the message among those ending in an _IMM opcode
 * @msn: message sequence number
 */
struct mrc10_meth {
	__be16	rqmsn;
	__be16	msn;
} __packed;

/**
 * struct mrc10_tseth - timestamp, 4 bytes, on WRITE packets with BTH TS
 * @ts: send time of this copy, microseconds, low 16 bits
 * @flags: TSR 0x8000 (the resolution is the implementation's), ftype 0x000f
 */
struct mrc10_tseth {
	__be16	ts;
	__be16	flags;
} __packed;

#define MRC10_TS_TSR		0x8000
#define MRC10_TS_FTYPE		0x0001

/**
 * struct mrc10_reth - RDMA extended transport header, 16 bytes, on every
 *	WRITE packet
 * @va: byte offset of this packet's payload in its message
 * @rkey: 0
 * @dma_len: the message's length
 */
struct mrc10_reth {
	__be64	va;
	__be32	rkey;
	__be32	dma_len;
} __packed;

/**
 * struct mrc10_seth - reliability SACK, 28 bytes, then &struct mrc10_cc
 * @flags: reserved 0xff80; m 0x0060; pr 0x0002; x 0x0001 (the AF_MRC
 *	extension follows &struct mrc10_cc)
 * @ack_psn_offset: the triggering PSN less @cack_psn, or the probe id
 * @entropy: the triggering packet's EV
 * @spdcid: low 16 bits of the sender's QPN
 * @dpdcid: low 16 bits of the receiver's QPN
 * @cack_psn: byte 0 reserved; the highest PSN received in order
 * @cc: cc_type 0xf0, cc_fl 0x0f
 * @mpr: the PSN window accepted, in units of 128 packets
 * @sack_offset: the bitmap's base less @cack_psn
 * @bitmap: bit i (from the least significant): PSN base + i received
 */
struct mrc10_seth {
	__be16	flags;
	__be16	ack_psn_offset;
	__be32	entropy;
	__be16	spdcid;
	__be16	dpdcid;
	__be32	cack_psn;
	__u8	cc;
	__u8	mpr;
	__be16	sack_offset;
	__be64	bitmap;
} __packed;

#define MRC10_SETH_M_SHIFT	5
#define MRC10_SETH_M_MASK	0x0060
#define MRC10_SETH_PR		0x0002
#define MRC10_SETH_X		0x0001

/* SETH m: the feedback on the triggering packet's EV. */
enum mrc10_sack_m {
	MRC10_M_NONE = 0,
	MRC10_M_SKIP_ONCE = 1,		/* it was CE-marked */
	MRC10_M_ALWAYS_SKIP = 2,
};

/**
 * struct mrc10_cc - the congestion state after SETH, 8 bytes
 * @ts: the triggering packet's TSETH timestamp
 * @ooo_count: reserved 0x8000; PSNs held above cack_psn 0x7fff
 * @rcvd: byte 0 r_c 0x80, rcv_cwnd_pen 0x7f; then payload bytes received,
 *	in units of 256, modulo 2^24
 */
struct mrc10_cc {
	__be16	ts;
	__be16	ooo_count;
	__be32	rcvd;
} __packed;

/**
 * struct mrc10_neth - reliability NACK, 20 bytes
 * @resv: 0
 * @reason: enum mrc10_nack_reason
 * @vendor: 0
 * @entropy: the NACKed packet's EV
 * @spdcid: low 16 bits of the sender's QPN
 * @dpdcid: low 16 bits of the receiver's QPN
 * @nack_psn: byte 0 reserved; the NACKed PSN
 * @cc: cc_type 0xf0 (2), cc_fl 0x0f
 * @resv2: 0
 * @ts: the NACKed packet's TSETH timestamp
 */
struct mrc10_neth {
	__be16	resv;
	__u8	reason;
	__u8	vendor;
	__be32	entropy;
	__be16	spdcid;
	__be16	dpdcid;
	__be32	nack_psn;
	__u8	cc;
	__u8	resv2;
	__be16	ts;
} __packed;

enum mrc10_nack_reason {
	MRC10_NACK_TRIMMED = 0x01,
	MRC10_NACK_TRIMMED_LASTHOP = 0x02,
	MRC10_NACK_NO_BITMAP = 0x06,
	MRC10_NACK_NO_PKT_BUFFER = 0x07,
	MRC10_NACK_NO_RESOURCE = 0x0a,
	MRC10_NACK_PSN_OOR_WINDOW = 0x0b,
	MRC10_NACK_UNEXP_EVENT = 0x19,
};

/**
 * struct mrc10_peth - reliability probe, 16 bytes
 * @resv: 0
 * @resv2: 0
 * @vendor: 0
 * @probe_id: echoed in the answering SACK's ack_psn_offset
 * @resv3: 0
 * @spdcid: low 16 bits of the sender's QPN
 * @dpdcid: low 16 bits of the receiver's QPN
 * @ts: send time, echoed in the answer's &struct mrc10_cc
 * @flags: TSR and ftype, as in &struct mrc10_tseth
 */
struct mrc10_peth {
	__be16	resv;
	__u8	resv2;
	__u8	vendor;
	__be16	probe_id;
	__be16	resv3;
	__be16	spdcid;
	__be16	dpdcid;
	__be16	ts;
	__be16	flags;
} __packed;

/**
 * struct mrc10_erth - endpoint request, 16 bytes, to QP 2
 * @op: reserved 0xfffc; the operation 0x0003 (enum mrc10_ep_op)
 * @resv: 0
 * @vendor: with %MRC10_EP_AFMRC, the AF_MRC message type
 * @port_mask: one bit per port, 1 reachable
 * @resv2: 0
 * @ts: send time
 * @flags: TSR and ftype, as in &struct mrc10_tseth
 */
struct mrc10_erth {
	__be16	op;
	__u8	resv;
	__u8	vendor;
	__be32	port_mask;
	__be32	resv2;
	__be16	ts;
	__be16	flags;
} __packed;

enum mrc10_ep_op {
	MRC10_EP_PORT_STATUS = 0,
	MRC10_EP_EV_PROBE = 1,
	MRC10_EP_AFMRC = 2,		/* ours: connection management */
};

/**
 * struct mrc10_eeth - endpoint response, 36 bytes, from QP 2
 * @op: reserved 0xffcf; the operation 0x0030 (enum mrc10_ep_op)
 * @resv: 0
 * @resv2: 0
 * @ts: the request's timestamp
 * @resv3: 0
 * @resv4: 0
 */
struct mrc10_eeth {
	__be16	op;
	__be16	resv;
	__u8	resv2[24];
	__be16	ts;
	__be16	resv3;
	__be32	resv4;
} __packed;

#define MRC10_EETH_OP_SHIFT	4

/* The AF_MRC extension (mrc-1.0-mapping.rst): what MRC 1.0 leaves out of
 * band, between two AF_MRC ends.
 */

/* Connection management: ERTH's vendor byte, with op %MRC10_EP_AFMRC. */
enum mrc10_xconn_type {
	MRC10_X_SYN = 1,
	MRC10_X_SYNACK = 2,
	MRC10_X_FIN = 3,
	MRC10_X_RST = 4,
};

/**
 * struct mrc10_xconn - the AF_MRC connection header, 36 bytes, after ERTH
 * @sport: the sender's MRC port
 * @dport: the receiver's MRC port
 * @sqpn: the sender's QPN
 * @dqpn: the receiver's QPN; 0 in a SYN
 * @isn: SYN and SYN-ACK: the sender's first PSN
 * @value: FIN: the final MSN; RST: the reason
 * @rwnd: the sender's receive window, bytes
 * @mss: the largest payload the sender takes in one packet
 * @flags: %MRC10_XCONN_XACK: the sender sends and reads &struct mrc10_xack
 * @tsval: the sender's clock, microseconds
 * @tsecr: the @tsval this answers, or 0
 */
struct mrc10_xconn {
	__be16	sport;
	__be16	dport;
	__be32	sqpn;
	__be32	dqpn;
	__be32	isn;
	__be32	value;
	__be32	rwnd;
	__be16	mss;
	__be16	flags;
	__be32	tsval;
	__be32	tsecr;
} __packed;

#define MRC10_XCONN_XACK	0x0001

/**
 * struct mrc10_xack - after a SACK's &struct mrc10_cc when SETH's x bit is
 *	set, 8 bytes
 * @rwnd: the receive window, bytes
 * @hold_us: how long the receiver held the SACK, microseconds, saturating
 * @flags: %MRC10_XACK_FIN, %MRC10_XACK_DUP
 */
struct mrc10_xack {
	__be32	rwnd;
	__be16	hold_us;
	__be16	flags;
} __packed;

#define MRC10_XACK_FIN		0x0001	/* the peer's FIN has been received */
#define MRC10_XACK_DUP		0x0002	/* the triggering packet was a duplicate */

/* Bytes of ICRC after each packet. */
#define MRC10_ICRC_LEN		4

#endif /* _MRC10_WIRE_H */
