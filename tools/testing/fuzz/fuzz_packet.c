// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_packet: what the receive path checks before it looks for a
 * connection (net/mrc/parse.c and wire10.c, built as the module builds
 * them): the extension headers between IPv6 and UDP, with the SRH; then
 * an MRC 1.0 packet's headers, as the WRITE, SACK and NACK readers take
 * them, or the old header's length and PSN for the types still sent with
 * it (SYN, SYNACK, FIN, RST, PROBE, PROBE_REPLY).
 *
 * Input: two bytes, little endian: the low 15 bits give the UDP header's
 * offset as the IPv6 layer found it (at least the IPv6 header, within the
 * packet), the top bit that the packet carries the trim DSCP; then the
 * packet from its IPv6 header on. The bytes up to that offset, and the
 * UDP payload, are each copied into a buffer of exactly their size, so
 * that the sanitizer sees any read past what the kernel guarantees is
 * there.
 *
 * A UDP payload whose first byte is an MRC 1.0 opcode (0xC6 on) is read
 * by mrc10_data_read(), mrc10_sack_read() and mrc10_nack_read(), each of
 * which must accept it exactly when it is long enough for its opcode and
 * fields, and read every field from where include/mrc10_wire.h puts it:
 *  - a WRITE not trimmed has its headers, payload, pad and ICRC making
 *    up its length exactly, and its RETH VA below 2^32; a trimmed one
 *    (its headers up to RETH and no more, or the trim DSCP) no payload;
 *  - mrc10_data_in_place() holds exactly when offset 0 goes with a First
 *    or Only opcode and the end of the message with a Last or Only;
 *  - message fields mrc_data_fields_ok() accepts (the MSN taken, as the
 *    receiver extends it, as up to 2^15 either side of the next message)
 *    put the payload inside a message within MRC_MSG_MAX;
 *  - a SACK is at least its headers (with the AF_MRC extension when SETH
 *    x says so) and the ICRC, a NACK its headers and the ICRC.
 * The input also gives the fields of one packet of each kind, which the
 * writers write and the readers must read back as they were.
 * Any other UDP payload is an old header: mrc_hdr_len() must know exactly
 * the six types above, and mrc_psn_ok() take a SYN's or SYNACK's initial
 * PSN exactly when it fits 24 bits.
 *
 * mrc_fuzz_one() is libFuzzer's entry point: run links it under the
 * name libFuzzer calls.
 */
#include <stdlib.h>

#include <linux/ipv6.h>
#include <linux/mrc.h>

#include "mrc_wire.h"
#include "parse.h"
#include "wire10.h"

/* The payload of a packet on a 1500-byte MTU path with no SRH, and the
 * least one a connection runs with (MRC_MSS_MIN of include/mrc_types.h:
 * the IPv6 minimum MTU less IPv6, the longest SRH, UDP, the headers of a
 * message's last packet and the ICRC).
 */
#define FUZZ_MSS	1408
#define FUZZ_SEG_MIN	(1280 - 40 - 8 - (MRC_SEGS_MAX + 1) * 16 - 8 - \
			 MRC10_DATA_HLEN_IMM - MRC10_ICRC_LEN)

#define TRIM_MARK	0x8000

/* Where include/mrc10_wire.h puts each field: from BTH on, RETH's from
 * RETH (which moves with TSETH).
 */
#define BTH_LEN		sizeof(struct mrc10_bth)
#define BTH(f)		offsetof(struct mrc10_bth, f)
#define METH(f)		(BTH_LEN + offsetof(struct mrc10_meth, f))
#define TSETH(f)	(BTH_LEN + sizeof(struct mrc10_meth) + \
			 offsetof(struct mrc10_tseth, f))
#define RETH(f)		offsetof(struct mrc10_reth, f)
#define SETH(f)		(BTH_LEN + offsetof(struct mrc10_seth, f))
#define CC(f)		(BTH_LEN + sizeof(struct mrc10_seth) + \
			 offsetof(struct mrc10_cc, f))
#define XACK(f)		(BTH_LEN + sizeof(struct mrc10_seth) + \
			 sizeof(struct mrc10_cc) + offsetof(struct mrc10_xack, f))
#define NETH(f)		(BTH_LEN + offsetof(struct mrc10_neth, f))

#define CHECK(cond)	do { if (!(cond)) abort(); } while (0)

/* Big-endian fields, read here without the module's code. */
static u64 get_be(const u8 *p, unsigned int n)
{
	u64 v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

static u32 get_psn(const u8 *p)
{
	return get_be(p + 1, 3);
}

/* The fields the writers are given: input bytes in order, then zeros. */
struct fuzz_draw {
	const u8 *p;
	size_t n;
};

static u64 draw(struct fuzz_draw *d, unsigned int bytes)
{
	u64 v = 0;

	while (bytes--) {
		v <<= 8;
		if (d->n) {
			v |= *d->p++;
			d->n--;
		}
	}
	return v;
}

static void check_fields(const struct mrc10_data_info *di)
{
	u32 mlen = di->msg_len, off = di->offset, plen = di->plen;
	/* The receiver extends the 16-bit MSN to the nearest to the next
	 * message to deliver: as if that were message 0.
	 */
	u32 msn_ahead = (u32)(s16)di->msn;

	/* Accepted fields put the payload inside a message within
	 * MRC_MSG_MAX: the reassembly relies on nothing else. A packet
	 * short of the segment floor ends its message, which bounds the
	 * packets (and memory) a message can take.
	 */
	if (!mrc_data_fields_ok(mlen, off, plen, FUZZ_MSS, FUZZ_SEG_MIN,
				msn_ahead))
		return;
	CHECK((u64)off + plen <= mlen && mlen <= MRC_MSG_MAX);
	CHECK(plen <= FUZZ_MSS && msn_ahead < MRC_WND);
	CHECK(plen || !mlen);
	CHECK(plen >= FUZZ_SEG_MIN || off + plen == mlen);
}

static void check_write(const u8 *b, unsigned int len, bool trim_mark)
{
	struct mrc10_data_info di;
	enum mrc10_bad bad = mrc10_data_read(b, len, trim_mark, &di);
	unsigned int hlen, reth, pad;
	u8 op = b[0];
	bool ts, imm;
	u32 word;
	u64 va;

	if (len < BTH_LEN) {
		CHECK(bad == MRC10_BAD_SHORT);
		return;
	}
	if (op < MRC10_WRITE_FIRST || op > MRC10_WRITE_ONLY_IMM) {
		CHECK(bad == MRC10_BAD_OPCODE);
		return;
	}
	if (b[1] & 0x0f) {
		CHECK(bad == MRC10_BAD_VERSION);
		return;
	}
	/* BTH, METH, TSETH when BTH TS says so, RETH; ImmDt after RETH on
	 * the _IMM opcodes, and only in a packet not trimmed.
	 */
	word = get_be(b + BTH(psn), 4);
	ts = word & MRC10_BTH_TS;
	imm = op == MRC10_WRITE_LAST_IMM || op == MRC10_WRITE_ONLY_IMM;
	pad = (b[1] & MRC10_BTH_PAD_MASK) >> MRC10_BTH_PAD_SHIFT;
	reth = BTH_LEN + sizeof(struct mrc10_meth) +
	       (ts ? sizeof(struct mrc10_tseth) : 0);
	hlen = reth + sizeof(struct mrc10_reth);
	if (len < hlen) {
		CHECK(bad == MRC10_BAD_SHORT);
		return;
	}
	va = get_be(b + reth + RETH(va), 8);
	if (va >> 32) {
		CHECK(bad == MRC10_BAD_FIELD);
		return;
	}
	if (!trim_mark && len != hlen &&
	    len < hlen + imm * 4 + pad + MRC10_ICRC_LEN) {
		CHECK(bad == MRC10_BAD_SHORT);
		return;
	}
	CHECK(bad == MRC10_BAD_NONE);

	CHECK(di.qpn == get_be(b + BTH(dqpn), 3));
	CHECK(di.psn == get_psn(b + BTH(psn)));
	CHECK(di.ack_req == !!(word & MRC10_BTH_ACK_REQ));
	CHECK(di.retx == !!(word & MRC10_BTH_RTX));
	CHECK(di.msn == get_be(b + METH(msn), 2));
	CHECK(di.ts == (ts ? get_be(b + TSETH(ts), 2) : 0));
	CHECK(di.offset == va && va < 1ULL << 32);
	CHECK(di.rkey == get_be(b + reth + RETH(rkey), 4));
	CHECK(di.msg_len == get_be(b + reth + RETH(dma_len), 4));
	CHECK(di.first == (op == MRC10_WRITE_FIRST || op == MRC10_WRITE_ONLY ||
			   op == MRC10_WRITE_ONLY_IMM));
	CHECK(di.last == (op >= MRC10_WRITE_LAST));
	CHECK(di.trimmed == (trim_mark || len == hlen));
	if (di.trimmed) {
		CHECK(!di.plen);
		return;
	}
	CHECK(hlen + imm * 4 + di.plen + pad + MRC10_ICRC_LEN == len);
	/* In place exactly when offset 0 goes with First or Only and the
	 * message's end (counted without wrapping) with Last or Only.
	 */
	CHECK(mrc10_data_in_place(&di) ==
	      (di.first == !di.offset &&
	       di.last == ((u64)di.offset + di.plen == di.msg_len)));
	check_fields(&di);
}

static void check_sack(const u8 *b, unsigned int len)
{
	struct mrc10_sack_info si;
	enum mrc10_bad bad = mrc10_sack_read(b, len, &si);
	bool x;

	if (len < BTH_LEN) {
		CHECK(bad == MRC10_BAD_SHORT);
		return;
	}
	if (b[0] != MRC10_SACK) {
		CHECK(bad == MRC10_BAD_OPCODE);
		return;
	}
	if (b[1] & 0x0f) {
		CHECK(bad == MRC10_BAD_VERSION);
		return;
	}
	x = len >= SETH(flags) + 2 &&
	    get_be(b + SETH(flags), 2) & MRC10_SETH_X;
	if (len < (x ? MRC10_SACK_LEN_X : MRC10_SACK_LEN) + MRC10_ICRC_LEN) {
		CHECK(bad == MRC10_BAD_SHORT);
		return;
	}
	CHECK(bad == MRC10_BAD_NONE);
	CHECK(len >= MRC10_SACK_LEN + MRC10_ICRC_LEN);
	CHECK(!si.x || len >= MRC10_SACK_LEN_X + MRC10_ICRC_LEN);

	CHECK(si.qpn == get_be(b + BTH(dqpn), 3));
	CHECK(si.psn == get_psn(b + BTH(psn)));
	CHECK(si.x == x);
	CHECK(si.pr == !!(b[SETH(flags) + 1] & MRC10_SETH_PR));
	CHECK(si.m == (get_be(b + SETH(flags), 2) & MRC10_SETH_M_MASK) >>
		      MRC10_SETH_M_SHIFT);
	CHECK(si.ack_psn_offset == (s16)get_be(b + SETH(ack_psn_offset), 2));
	CHECK(si.entropy == get_be(b + SETH(entropy), 4));
	CHECK(si.spdcid == get_be(b + SETH(spdcid), 2));
	CHECK(si.dpdcid == get_be(b + SETH(dpdcid), 2));
	CHECK(si.cack_psn == get_psn(b + SETH(cack_psn)));
	CHECK(si.mpr == b[SETH(mpr)]);
	CHECK(si.sack_offset == (s16)get_be(b + SETH(sack_offset), 2));
	CHECK(si.bitmap == get_be(b + SETH(bitmap), 8));
	CHECK(si.ts == get_be(b + CC(ts), 2));
	CHECK(si.ooo_count == (get_be(b + CC(ooo_count), 2) & 0x7fff));
	CHECK(si.rcvd == get_be(b + CC(rcvd) + 1, 3));
	CHECK(si.rwnd == (x ? get_be(b + XACK(rwnd), 4) : 0));
	CHECK(si.hold_us == (x ? get_be(b + XACK(hold_us), 2) : 0));
	CHECK(si.xflags == (x ? get_be(b + XACK(flags), 2) : 0));
}

static void check_nack(const u8 *b, unsigned int len)
{
	struct mrc10_nack_info ni;
	enum mrc10_bad bad = mrc10_nack_read(b, len, &ni);

	if (len < BTH_LEN) {
		CHECK(bad == MRC10_BAD_SHORT);
		return;
	}
	if (b[0] != MRC10_NACK) {
		CHECK(bad == MRC10_BAD_OPCODE);
		return;
	}
	if (b[1] & 0x0f) {
		CHECK(bad == MRC10_BAD_VERSION);
		return;
	}
	if (len < MRC10_NACK_LEN + MRC10_ICRC_LEN) {
		CHECK(bad == MRC10_BAD_SHORT);
		return;
	}
	CHECK(bad == MRC10_BAD_NONE);
	CHECK(len >= MRC10_NACK_LEN + MRC10_ICRC_LEN);

	CHECK(ni.qpn == get_be(b + BTH(dqpn), 3));
	CHECK(ni.psn == get_psn(b + BTH(psn)));
	CHECK(ni.reason == b[NETH(reason)]);
	CHECK(ni.entropy == get_be(b + NETH(entropy), 4));
	CHECK(ni.spdcid == get_be(b + NETH(spdcid), 2));
	CHECK(ni.dpdcid == get_be(b + NETH(dpdcid), 2));
	CHECK(ni.nack_psn == get_psn(b + NETH(nack_psn)));
	CHECK(ni.ts == get_be(b + NETH(ts), 2));
}

/* A buffer of exactly @len bytes, @fill in each, for the sanitizer. */
static u8 *fuzz_buf(size_t len, u8 fill)
{
	u8 *b = malloc(len ? len : 1);

	if (b)
		memset(b, fill, len);
	return b;
}

/* A WRITE from drawn fields, read back whole, marked trimmed and cut to
 * what a trimming switch keeps.
 */
static void readback_write(struct mrc10_data_info *w)
{
	struct mrc10_data_info r;
	unsigned int hlen = mrc10_data_hlen(w->last), len;
	u8 *b;

	len = hlen + w->plen + mrc10_data_pad(w->plen) + MRC10_ICRC_LEN;
	CHECK(len % 4 == 0);
	b = fuzz_buf(len, 0xee);
	if (!b)
		return;
	CHECK(mrc10_data_write(b, w) == hlen);
	w->first = !w->offset;
	w->trimmed = false;
	CHECK(mrc10_data_read(b, len, false, &r) == MRC10_BAD_NONE);
	CHECK(r.qpn == w->qpn && r.psn == w->psn && r.msn == w->msn);
	CHECK(r.offset == w->offset && r.msg_len == w->msg_len);
	CHECK(r.rkey == w->rkey && r.plen == w->plen && r.ts == w->ts);
	CHECK(r.ack_req == w->ack_req && r.retx == w->retx);
	CHECK(r.first == w->first && r.last == w->last && !r.trimmed);
	CHECK(mrc10_data_in_place(&r) ==
	      (w->last == ((u64)w->offset + w->plen == w->msg_len)));
	/* With the trim DSCP, at any length from RETH's end on. */
	CHECK(mrc10_data_read(b, len, true, &r) == MRC10_BAD_NONE);
	CHECK(r.trimmed && !r.plen && r.offset == w->offset &&
	      r.psn == w->psn && r.last == w->last);
	CHECK(mrc10_data_read(b, MRC10_TRIM_KEEP, false, &r) ==
	      MRC10_BAD_NONE);
	CHECK(r.trimmed && !r.plen && r.msg_len == w->msg_len &&
	      r.first == w->first && r.rkey == w->rkey);
	free(b);
}

static void readback_sack(struct mrc10_sack_info *w)
{
	struct mrc10_sack_info r;
	unsigned int len;
	u8 *b = fuzz_buf(MRC10_SACK_LEN_X + MRC10_ICRC_LEN, 0xee);

	if (!b)
		return;
	len = mrc10_sack_write(b, w) + MRC10_ICRC_LEN;
	CHECK(len == (w->x ? MRC10_SACK_LEN_X : MRC10_SACK_LEN) +
		     MRC10_ICRC_LEN);
	if (!w->x) {
		w->rwnd = 0;
		w->hold_us = 0;
		w->xflags = 0;
	}
	CHECK(mrc10_sack_read(b, len, &r) == MRC10_BAD_NONE);
	CHECK(r.qpn == w->qpn && r.psn == w->psn && r.cack_psn == w->cack_psn);
	CHECK(r.ack_psn_offset == w->ack_psn_offset && r.pr == w->pr);
	CHECK(r.m == w->m && r.entropy == w->entropy);
	CHECK(r.spdcid == w->spdcid && r.dpdcid == w->dpdcid);
	CHECK(r.mpr == w->mpr && r.sack_offset == w->sack_offset);
	CHECK(r.bitmap == w->bitmap && r.ts == w->ts);
	CHECK(r.ooo_count == w->ooo_count && r.rcvd == w->rcvd);
	CHECK(r.x == w->x && r.rwnd == w->rwnd && r.hold_us == w->hold_us);
	CHECK(r.xflags == w->xflags);
	CHECK(mrc10_sack_read(b, len - 1, &r) == MRC10_BAD_SHORT);
	free(b);
}

static void readback_nack(const struct mrc10_nack_info *w)
{
	unsigned int len = MRC10_NACK_LEN + MRC10_ICRC_LEN;
	struct mrc10_nack_info r;
	u8 *b = fuzz_buf(len, 0xee);

	if (!b)
		return;
	CHECK(mrc10_nack_write(b, w) == MRC10_NACK_LEN);
	CHECK(mrc10_nack_read(b, len, &r) == MRC10_BAD_NONE);
	CHECK(r.qpn == w->qpn && r.psn == w->psn && r.reason == w->reason);
	CHECK(r.entropy == w->entropy && r.nack_psn == w->nack_psn);
	CHECK(r.spdcid == w->spdcid && r.dpdcid == w->dpdcid);
	CHECK(r.ts == w->ts);
	CHECK(mrc10_nack_read(b, len - 1, &r) == MRC10_BAD_SHORT);
	free(b);
}

/* The fields of one packet of each kind, each within what its field on
 * the wire holds (a payload of up to 2047 bytes), written and read back.
 */
static void readback(const u8 *in, size_t n)
{
	struct fuzz_draw d = { in, n };
	struct mrc10_data_info w = { 0 };
	struct mrc10_sack_info s = { 0 };
	struct mrc10_nack_info k = { 0 };
	u8 flags;

	w.qpn = draw(&d, 3);
	w.psn = draw(&d, 3);
	w.msn = draw(&d, 2);
	w.offset = draw(&d, 4);
	w.msg_len = draw(&d, 4);
	w.rkey = draw(&d, 4);
	w.plen = draw(&d, 2) & 0x7ff;
	w.ts = draw(&d, 2);
	flags = draw(&d, 1);
	w.ack_req = flags & 1;
	w.retx = flags & 2;
	w.last = flags & 4;
	readback_write(&w);

	s.qpn = draw(&d, 3);
	s.psn = draw(&d, 3);
	s.cack_psn = draw(&d, 3);
	s.ack_psn_offset = (s16)draw(&d, 2);
	flags = draw(&d, 1);
	s.pr = flags & 1;
	s.x = flags & 2;
	s.m = flags >> 2 & 3;
	s.entropy = draw(&d, 4);
	s.spdcid = draw(&d, 2);
	s.dpdcid = draw(&d, 2);
	s.mpr = draw(&d, 1);
	s.sack_offset = (s16)draw(&d, 2);
	s.bitmap = draw(&d, 8);
	s.ts = draw(&d, 2);
	s.ooo_count = draw(&d, 2) & 0x7fff;
	s.rcvd = draw(&d, 3);
	s.rwnd = draw(&d, 4);
	s.hold_us = draw(&d, 2);
	s.xflags = draw(&d, 2);
	readback_sack(&s);

	k.qpn = draw(&d, 3);
	k.psn = draw(&d, 3);
	k.reason = draw(&d, 1);
	k.entropy = draw(&d, 4);
	k.spdcid = draw(&d, 2);
	k.dpdcid = draw(&d, 2);
	k.nack_psn = draw(&d, 3);
	k.ts = draw(&d, 2);
	readback_nack(&k);
}

/* An MRC 1.0 packet: BTH on, to the end of the UDP payload. */
static void check_mrc10(const u8 *in, size_t n, bool trim_mark)
{
	u8 *b = fuzz_buf(n, 0);

	if (!b)
		return;
	memcpy(b, in, n);
	check_write(b, n, trim_mark);
	check_sack(b, n);
	check_nack(b, n);
	free(b);
	readback(in + 1, n - 1);
}

/* The old header, for the connection management and path probes. */
static void check_old(const u8 *in, size_t n)
{
	const struct mrc_hdr *h = (const struct mrc_hdr *)in;
	unsigned int hl;
	bool known;
	u8 *b;

	if (n < sizeof(*h))
		return;
	hl = mrc_hdr_len(h->type);
	known = h->type == MRC_PKT_SYN || h->type == MRC_PKT_SYNACK ||
		h->type == MRC_PKT_FIN || h->type == MRC_PKT_RST ||
		h->type == MRC_PKT_PROBE || h->type == MRC_PKT_PROBE_REPLY;
	CHECK(!hl == !known);
	CHECK(!hl || hl >= sizeof(*h));
	if (!hl || n < hl)
		return;
	b = fuzz_buf(hl, 0);
	if (!b)
		return;
	memcpy(b, in, hl);
	/* A PSN is accepted exactly when it fits 24 bits. */
	if (h->type == MRC_PKT_SYN || h->type == MRC_PKT_SYNACK)
		CHECK(mrc_psn_ok((const struct mrc_hdr *)b) ==
		      !b[offsetof(struct mrc_syn, isn)]);
	else
		CHECK(mrc_psn_ok((const struct mrc_hdr *)b));
	free(b);
}

int mrc_fuzz_one(const u8 *data, size_t size)
{
	unsigned int end, off;
	bool trim_mark;
	u8 *nh;

	if (size < 2)
		return 0;
	end = (data[0] | data[1] << 8) & ~TRIM_MARK;
	trim_mark = data[1] << 8 & TRIM_MARK;
	data += 2;
	size -= 2;
	if (end < sizeof(struct ipv6hdr) || end > size)
		return 0;
	nh = fuzz_buf(end, 0);
	if (!nh)
		return 0;
	memcpy(nh, data, end);
	mrc_exthdrs_ok(nh, end);
	free(nh);

	off = end + 8;		/* the UDP header */
	if (size <= off)
		return 0;
	if (data[off] >= MRC10_WRITE_FIRST)
		check_mrc10(data + off, size - off, trim_mark);
	else
		check_old(data + off, size - off);
	return 0;
}
