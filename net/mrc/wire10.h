/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MRC: the MRC 1.0 headers of DATA, SACK and NACK packets, built from and
 * read into host-order fields (wire10.c). The layouts are in
 * include/mrc10_wire.h; what AF_MRC puts in each field is in
 * Documentation/networking/mrc-1.0-mapping.rst.
 */
#ifndef _MRC_WIRE10_H
#define _MRC_WIRE10_H

#include "mrc10_wire.h"

/**
 * struct mrc10_data_info - what a WRITE packet's headers say
 * @qpn: the destination QP, 24 bits
 * @psn: 24 bits
 * @msn: the message's number; 16 bits on the wire
 * @offset: the byte offset of the payload in its message (RETH VA)
 * @msg_len: the message's length (RETH DMA length)
 * @rkey: RETH R_Key: AF_MRC's sender puts its own QPN there
 * @plen: bytes of payload, without the pad; 0 in a trimmed packet
 * @ts: the send time, microseconds, 16 bits (TSETH); 0 without TSETH
 * @ack_req: BTH A: the sender asks for a SACK at once
 * @retx: BTH RTX: a retransmission
 * @first: read only: a First or Only opcode, which starts a message
 * @last: the packet ends its message (an _IMM or Last/Only opcode)
 * @trimmed: read only: the packet has its headers up to RETH and nothing
 *	after them, as a trimming switch leaves it, or carries the trim DSCP
 */
struct mrc10_data_info {
	u32	qpn;
	u32	psn;
	u16	msn;
	u32	offset;
	u32	msg_len;
	u32	rkey;
	u32	plen;
	u16	ts;
	bool	ack_req;
	bool	retx;
	bool	first;
	bool	last;
	bool	trimmed;
};

/**
 * struct mrc10_sack_info - what a SACK says
 * @qpn: the destination QP, 24 bits
 * @psn: BTH's PSN: cack_psn, as both sources send
 * @cack_psn: the highest PSN received in order
 * @ack_psn_offset: the triggering PSN less @cack_psn, or the probe id
 * @pr: the SACK answers a Reliability Probe
 * @m: enum mrc10_sack_m
 * @entropy: the triggering packet's EV
 * @spdcid: low 16 bits of the SACK sender's QPN
 * @dpdcid: low 16 bits of the receiver's QPN
 * @mpr: the PSN window accepted, in units of 128 packets
 * @sack_offset: the bitmap's base less @cack_psn
 * @bitmap: bit i: PSN @cack_psn + @sack_offset + i received
 * @ts: the triggering packet's TSETH timestamp
 * @ooo_count: PSNs held above @cack_psn, 15 bits
 * @rcvd: payload bytes received, in units of 256, 24 bits
 * @x: the AF_MRC extension follows: @rwnd, @hold_us, @xflags
 * @rwnd: the receive window, bytes
 * @hold_us: how long the receiver held the SACK
 * @xflags: %MRC10_XACK_FIN, %MRC10_XACK_DUP
 */
struct mrc10_sack_info {
	u32	qpn;
	u32	psn;
	u32	cack_psn;
	s16	ack_psn_offset;
	bool	pr;
	u8	m;
	u32	entropy;
	u16	spdcid;
	u16	dpdcid;
	u8	mpr;
	s16	sack_offset;
	u64	bitmap;
	u16	ts;
	u16	ooo_count;
	u32	rcvd;
	bool	x;
	u32	rwnd;
	u16	hold_us;
	u16	xflags;
};

/**
 * struct mrc10_nack_info - what a NACK says
 * @qpn: the destination QP, 24 bits
 * @psn: BTH's PSN: the NACKed PSN, as both sources send
 * @reason: enum mrc10_nack_reason
 * @entropy: the NACKed packet's EV
 * @spdcid: low 16 bits of the NACK sender's QPN
 * @dpdcid: low 16 bits of the receiver's QPN
 * @nack_psn: the NACKed PSN
 * @ts: the NACKed packet's TSETH timestamp
 */
struct mrc10_nack_info {
	u32	qpn;
	u32	psn;
	u8	reason;
	u32	entropy;
	u16	spdcid;
	u16	dpdcid;
	u32	nack_psn;
	u16	ts;
};

/* Why a packet could not be read (mrc10_*_read()). */
enum mrc10_bad {
	MRC10_BAD_NONE,
	MRC10_BAD_SHORT,	/* shorter than its opcode's headers */
	MRC10_BAD_OPCODE,	/* not the opcode the reader reads */
	MRC10_BAD_VERSION,	/* BTH TVer not 0 */
	MRC10_BAD_FIELD,	/* a field out of its range */
};

unsigned int mrc10_data_hlen(bool last);
unsigned int mrc10_data_pad(u32 plen);
unsigned int mrc10_data_write(void *buf, const struct mrc10_data_info *di);
enum mrc10_bad mrc10_data_read(const void *buf, unsigned int len,
			       bool trim_mark, struct mrc10_data_info *di);
bool mrc10_data_in_place(const struct mrc10_data_info *di);
unsigned int mrc10_sack_write(void *buf, const struct mrc10_sack_info *si);
enum mrc10_bad mrc10_sack_read(const void *buf, unsigned int len,
			       struct mrc10_sack_info *si);
unsigned int mrc10_nack_write(void *buf, const struct mrc10_nack_info *ni);
enum mrc10_bad mrc10_nack_read(const void *buf, unsigned int len,
			       struct mrc10_nack_info *ni);

#endif /* _MRC_WIRE10_H */
