// SPDX-License-Identifier: GPL-2.0
/*
 * MRC: the MRC 1.0 headers of DATA (RDMA WRITE), SACK and NACK packets,
 * written from and read into host-order fields. The layouts are in
 * include/mrc10_wire.h, the meaning AF_MRC gives each field in
 * Documentation/networking/mrc-1.0-mapping.rst. Nothing here needs
 * connection state, so tools/testing/wire10_codec.c builds this file as
 * it is and holds it to the independent decoder
 * (selftests/net/mrc/mrc10.py).
 */
#include <linux/string.h>
#include <linux/types.h>

#include "wire10.h"

static void mrc10_bth_write(struct mrc10_bth *bth, u8 opcode, u32 qpn,
			    u32 psn_word, unsigned int pad)
{
	bth->opcode = opcode;
	bth->flags = pad << MRC10_BTH_PAD_SHIFT;
	bth->pkey = cpu_to_be16(0xffff);
	bth->resv8a = 0;
	bth->dqpn[0] = qpn >> 16;
	bth->dqpn[1] = qpn >> 8;
	bth->dqpn[2] = qpn;
	bth->psn = cpu_to_be32(psn_word);
}

static u32 mrc10_bth_qpn(const struct mrc10_bth *bth)
{
	return bth->dqpn[0] << 16 | bth->dqpn[1] << 8 | bth->dqpn[2];
}

/**
 * mrc10_data_hlen() - the header bytes of an AF_MRC WRITE packet
 * @last: it ends its message: the _IMM opcode, with ImmDt
 *
 * Return: %MRC10_DATA_HLEN_IMM or %MRC10_DATA_HLEN.
 */
unsigned int mrc10_data_hlen(bool last)
{
	return last ? MRC10_DATA_HLEN_IMM : MRC10_DATA_HLEN;
}

/**
 * mrc10_data_pad() - the pad after a payload, to a multiple of 4 bytes
 * @plen: the payload's length
 *
 * Return: 0 to 3.
 */
unsigned int mrc10_data_pad(u32 plen)
{
	return -plen & 3;
}

/**
 * mrc10_data_write() - write a WRITE packet's headers
 * @buf: mrc10_data_hlen(@di->last) bytes
 * @di: the fields; @di->first and @di->trimmed are not read
 *
 * The opcode follows from where the payload lies: First or Only at offset
 * 0, and a message's last packet is always the _IMM form, whose ImmDt
 * repeats the message's length. TSETH is always sent. The caller appends
 * the payload, mrc10_data_pad() zero bytes and the ICRC.
 *
 * Return: the bytes written.
 */
unsigned int mrc10_data_write(void *buf, const struct mrc10_data_info *di)
{
	struct mrc10_bth *bth = buf;
	struct mrc10_meth *meth = (void *)(bth + 1);
	struct mrc10_tseth *ts = (void *)(meth + 1);
	struct mrc10_reth *reth = (void *)(ts + 1);
	u32 word = MRC10_BTH_TS | (di->psn & MRC10_BTH_PSN_MASK);
	__be32 imm = cpu_to_be32(di->msg_len);
	u8 op;

	if (!di->offset)
		op = di->last ? MRC10_WRITE_ONLY_IMM : MRC10_WRITE_FIRST;
	else
		op = di->last ? MRC10_WRITE_LAST_IMM : MRC10_WRITE_MIDDLE;
	if (di->ack_req)
		word |= MRC10_BTH_ACK_REQ;
	if (di->retx)
		word |= MRC10_BTH_RTX;
	mrc10_bth_write(bth, op, di->qpn, word, mrc10_data_pad(di->plen));
	meth->rqmsn = cpu_to_be16(di->msn);
	meth->msn = cpu_to_be16(di->msn);
	ts->ts = cpu_to_be16(di->ts);
	ts->flags = cpu_to_be16(MRC10_TS_TSR | MRC10_TS_FTYPE);
	reth->va = cpu_to_be64(di->offset);
	reth->rkey = cpu_to_be32(di->rkey);
	reth->dma_len = cpu_to_be32(di->msg_len);
	if (!di->last)
		return MRC10_DATA_HLEN;
	memcpy(reth + 1, &imm, sizeof(imm));
	return MRC10_DATA_HLEN_IMM;
}

/**
 * mrc10_data_read() - read a WRITE packet's headers
 * @buf: the packet from BTH on
 * @len: its bytes from BTH to the end of the UDP payload: headers,
 *	payload, pad and ICRC
 * @trim_mark: the packet carries the trim DSCP: a switch trimmed it, to
 *	its own trim size, which may keep part of the payload
 * @di: out: the fields
 *
 * Any WRITE opcode is read, with or without TSETH (BTH TS), so that a
 * peer which is not AF_MRC is understood; METH's RQMSN is not AF_MRC's
 * business. A packet that has its headers up to RETH and
 * not a byte more is trimmed: its payload, ImmDt and ICRC were cut off
 * (a whole packet carries at least its ICRC after RETH); so is one with
 * @trim_mark and its headers up to RETH, whatever follows. Whether the
 * opcode agrees with where the payload lies is mrc10_data_in_place()'s
 * question: a packet trimmed to a switch's size keeps part of its
 * payload, and only its DSCP tells.
 *
 * Return: %MRC10_BAD_NONE, or why the packet cannot be read.
 */
enum mrc10_bad mrc10_data_read(const void *buf, unsigned int len,
			       bool trim_mark, struct mrc10_data_info *di)
{
	const struct mrc10_bth *bth = buf;
	const struct mrc10_meth *meth = (const void *)(bth + 1);
	const struct mrc10_tseth *ts = NULL;
	const struct mrc10_reth *reth;
	unsigned int hlen, pad;
	u32 word;
	u64 va;

	if (len < sizeof(*bth))
		return MRC10_BAD_SHORT;
	if (bth->opcode < MRC10_WRITE_FIRST ||
	    bth->opcode > MRC10_WRITE_ONLY_IMM)
		return MRC10_BAD_OPCODE;
	if (bth->flags & 0x0f)
		return MRC10_BAD_VERSION;
	word = be32_to_cpu(bth->psn);
	hlen = sizeof(*bth) + sizeof(*meth) + sizeof(*reth);
	if (word & MRC10_BTH_TS) {
		ts = (const void *)(meth + 1);
		hlen += sizeof(*ts);
		reth = (const void *)(ts + 1);
	} else {
		reth = (const void *)(meth + 1);
	}
	if (len < hlen)
		return MRC10_BAD_SHORT;
	va = be64_to_cpu(reth->va);
	/* AF_MRC's messages are far below 4 GB. */
	if (va >> 32)
		return MRC10_BAD_FIELD;
	di->qpn = mrc10_bth_qpn(bth);
	di->psn = word & MRC10_BTH_PSN_MASK;
	di->ack_req = word & MRC10_BTH_ACK_REQ;
	di->retx = word & MRC10_BTH_RTX;
	di->msn = be16_to_cpu(meth->msn);
	di->ts = ts ? be16_to_cpu(ts->ts) : 0;
	di->offset = va;
	di->msg_len = be32_to_cpu(reth->dma_len);
	di->rkey = be32_to_cpu(reth->rkey);
	di->first = bth->opcode == MRC10_WRITE_FIRST ||
		    bth->opcode >= MRC10_WRITE_ONLY;
	di->last = bth->opcode >= MRC10_WRITE_LAST;
	di->plen = 0;
	di->trimmed = len == hlen || trim_mark;
	if (di->trimmed)
		return MRC10_BAD_NONE;
	if (bth->opcode == MRC10_WRITE_LAST_IMM ||
	    bth->opcode == MRC10_WRITE_ONLY_IMM)
		hlen += sizeof(__be32);
	pad = (bth->flags & MRC10_BTH_PAD_MASK) >> MRC10_BTH_PAD_SHIFT;
	if (len < hlen + pad + MRC10_ICRC_LEN)
		return MRC10_BAD_SHORT;
	di->plen = len - hlen - pad - MRC10_ICRC_LEN;
	return MRC10_BAD_NONE;
}

/**
 * mrc10_data_in_place() - a whole WRITE's opcode agrees with its payload
 * @di: what mrc10_data_read() read of a packet not trimmed
 *
 * First and Only lie at offset 0, Middle and Last after it; Last and Only
 * end the message (RETH's DMA length), First and Middle do not. Not for
 * a trimmed packet, whose payload is gone or cut short.
 *
 * Return: true if they agree.
 */
bool mrc10_data_in_place(const struct mrc10_data_info *di)
{
	return di->first == !di->offset &&
	       di->last == ((u64)di->offset + di->plen == di->msg_len);
}

/**
 * mrc10_sack_write() - write a SACK (0xDC): BTH, SETH, CC_STATE and, with
 *	@si->x, the AF_MRC extension
 * @buf: %MRC10_SACK_LEN_X bytes
 * @si: the fields
 *
 * Return: the bytes written, without the ICRC.
 */
unsigned int mrc10_sack_write(void *buf, const struct mrc10_sack_info *si)
{
	struct mrc10_bth *bth = buf;
	struct mrc10_seth *seth = (void *)(bth + 1);
	struct mrc10_cc *cc = (void *)(seth + 1);
	struct mrc10_xack *x = (void *)(cc + 1);
	u16 flags = (si->m << MRC10_SETH_M_SHIFT) & MRC10_SETH_M_MASK;

	if (si->pr)
		flags |= MRC10_SETH_PR;
	if (si->x)
		flags |= MRC10_SETH_X;
	mrc10_bth_write(bth, MRC10_SACK, si->qpn,
			si->psn & MRC10_BTH_PSN_MASK, 0);
	seth->flags = cpu_to_be16(flags);
	seth->ack_psn_offset = cpu_to_be16((u16)si->ack_psn_offset);
	seth->entropy = cpu_to_be32(si->entropy);
	seth->spdcid = cpu_to_be16(si->spdcid);
	seth->dpdcid = cpu_to_be16(si->dpdcid);
	seth->cack_psn = cpu_to_be32(si->cack_psn & MRC10_BTH_PSN_MASK);
	seth->cc = 0;
	seth->mpr = si->mpr;
	seth->sack_offset = cpu_to_be16((u16)si->sack_offset);
	seth->bitmap = cpu_to_be64(si->bitmap);
	cc->ts = cpu_to_be16(si->ts);
	cc->ooo_count = cpu_to_be16(si->ooo_count & 0x7fff);
	cc->rcvd = cpu_to_be32(si->rcvd & 0xffffff);
	if (!si->x)
		return MRC10_SACK_LEN;
	x->rwnd = cpu_to_be32(si->rwnd);
	x->hold_us = cpu_to_be16(si->hold_us);
	x->flags = cpu_to_be16(si->xflags);
	return MRC10_SACK_LEN_X;
}

/**
 * mrc10_sack_read() - read a SACK
 * @buf: the packet from BTH on
 * @len: its bytes from BTH to the end of the UDP payload, ICRC included
 * @si: out: the fields
 *
 * Reserved bits, the CC type and flags, r_c and rcv_cwnd_pen are not read.
 *
 * Return: %MRC10_BAD_NONE, or why the packet cannot be read.
 */
enum mrc10_bad mrc10_sack_read(const void *buf, unsigned int len,
			       struct mrc10_sack_info *si)
{
	const struct mrc10_bth *bth = buf;
	const struct mrc10_seth *seth = (const void *)(bth + 1);
	const struct mrc10_cc *cc = (const void *)(seth + 1);
	const struct mrc10_xack *x = (const void *)(cc + 1);
	u16 flags;

	if (len < sizeof(*bth))
		return MRC10_BAD_SHORT;
	if (bth->opcode != MRC10_SACK)
		return MRC10_BAD_OPCODE;
	if (bth->flags & 0x0f)
		return MRC10_BAD_VERSION;
	if (len < MRC10_SACK_LEN + MRC10_ICRC_LEN)
		return MRC10_BAD_SHORT;
	flags = be16_to_cpu(seth->flags);
	si->x = flags & MRC10_SETH_X;
	if (si->x && len < MRC10_SACK_LEN_X + MRC10_ICRC_LEN)
		return MRC10_BAD_SHORT;
	si->qpn = mrc10_bth_qpn(bth);
	si->psn = be32_to_cpu(bth->psn) & MRC10_BTH_PSN_MASK;
	si->m = (flags & MRC10_SETH_M_MASK) >> MRC10_SETH_M_SHIFT;
	si->pr = flags & MRC10_SETH_PR;
	si->ack_psn_offset = (s16)be16_to_cpu(seth->ack_psn_offset);
	si->entropy = be32_to_cpu(seth->entropy);
	si->spdcid = be16_to_cpu(seth->spdcid);
	si->dpdcid = be16_to_cpu(seth->dpdcid);
	si->cack_psn = be32_to_cpu(seth->cack_psn) & MRC10_BTH_PSN_MASK;
	si->mpr = seth->mpr;
	si->sack_offset = (s16)be16_to_cpu(seth->sack_offset);
	si->bitmap = be64_to_cpu(seth->bitmap);
	si->ts = be16_to_cpu(cc->ts);
	si->ooo_count = be16_to_cpu(cc->ooo_count) & 0x7fff;
	si->rcvd = be32_to_cpu(cc->rcvd) & 0xffffff;
	si->rwnd = si->x ? be32_to_cpu(x->rwnd) : 0;
	si->hold_us = si->x ? be16_to_cpu(x->hold_us) : 0;
	si->xflags = si->x ? be16_to_cpu(x->flags) : 0;
	return MRC10_BAD_NONE;
}

/**
 * mrc10_nack_write() - write a NACK (0xDD): BTH and NETH
 * @buf: %MRC10_NACK_LEN bytes
 * @ni: the fields
 *
 * Return: the bytes written, without the ICRC.
 */
unsigned int mrc10_nack_write(void *buf, const struct mrc10_nack_info *ni)
{
	struct mrc10_bth *bth = buf;
	struct mrc10_neth *neth = (void *)(bth + 1);

	mrc10_bth_write(bth, MRC10_NACK, ni->qpn,
			ni->psn & MRC10_BTH_PSN_MASK, 0);
	neth->resv = 0;
	neth->reason = ni->reason;
	neth->vendor = 0;
	neth->entropy = cpu_to_be32(ni->entropy);
	neth->spdcid = cpu_to_be16(ni->spdcid);
	neth->dpdcid = cpu_to_be16(ni->dpdcid);
	neth->nack_psn = cpu_to_be32(ni->nack_psn & MRC10_BTH_PSN_MASK);
	/* cc_type 2, as both sources send (mapping: NACK). */
	neth->cc = 2 << 4;
	neth->resv2 = 0;
	neth->ts = cpu_to_be16(ni->ts);
	return MRC10_NACK_LEN;
}

/**
 * mrc10_nack_read() - read a NACK
 * @buf: the packet from BTH on
 * @len: its bytes from BTH to the end of the UDP payload, ICRC included
 * @ni: out: the fields
 *
 * Every reason is read; which ones a connection acts on is its business.
 *
 * Return: %MRC10_BAD_NONE, or why the packet cannot be read.
 */
enum mrc10_bad mrc10_nack_read(const void *buf, unsigned int len,
			       struct mrc10_nack_info *ni)
{
	const struct mrc10_bth *bth = buf;
	const struct mrc10_neth *neth = (const void *)(bth + 1);

	if (len < sizeof(*bth))
		return MRC10_BAD_SHORT;
	if (bth->opcode != MRC10_NACK)
		return MRC10_BAD_OPCODE;
	if (bth->flags & 0x0f)
		return MRC10_BAD_VERSION;
	if (len < MRC10_NACK_LEN + MRC10_ICRC_LEN)
		return MRC10_BAD_SHORT;
	ni->qpn = mrc10_bth_qpn(bth);
	ni->psn = be32_to_cpu(bth->psn) & MRC10_BTH_PSN_MASK;
	ni->reason = neth->reason;
	ni->entropy = be32_to_cpu(neth->entropy);
	ni->spdcid = be16_to_cpu(neth->spdcid);
	ni->dpdcid = be16_to_cpu(neth->dpdcid);
	ni->nack_psn = be32_to_cpu(neth->nack_psn) & MRC10_BTH_PSN_MASK;
	ni->ts = be16_to_cpu(neth->ts);
	return MRC10_BAD_NONE;
}
