// SPDX-License-Identifier: GPL-2.0
/*
 * wire10_layout: each struct of include/mrc10_wire.h, every field set to a
 * value of its own through the header's names and masks, printed as a line
 * "NAME HEX". selftests/net/mrc/mrc10_selftest.py --layout builds the same
 * headers with the same values from the published tables (mrc10.py) and
 * compares the bytes.
 */
#include <endian.h>
#include <stdio.h>
#include <string.h>

#include "mrc10_wire.h"

static void show(const char *name, const void *p, size_t len)
{
	const unsigned char *b = p;
	size_t i;

	printf("%s ", name);
	for (i = 0; i < len; i++)
		printf("%02x", b[i]);
	printf("\n");
}

#define SHOW(name, v)	show(name, &(v), sizeof(v))

int main(void)
{
	struct mrc10_bth bth = {
		.opcode = MRC10_WRITE_LAST_IMM,
		.flags = 0x80 | 0x40 | 2 << MRC10_BTH_PAD_SHIFT | 5,
		.pkey = htobe16(0x1234),
		.resv8a = 0xab,
		.dqpn = { 0x56, 0x78, 0x9a },
		.psn = htobe32(MRC10_BTH_ACK_REQ | MRC10_BTH_RTX | MRC10_BTH_TS |
			       0x123456),
	};
	struct mrc10_meth meth = { htobe16(0x1111), htobe16(0x2222) };
	struct mrc10_tseth ts = { htobe16(0x3333),
				  htobe16(MRC10_TS_TSR | MRC10_TS_FTYPE) };
	struct mrc10_reth reth = { htobe64(0x0102030405060708ULL),
				   htobe32(0x0a0b0c0d), htobe32(150000) };
	struct mrc10_seth seth = {
		.flags = htobe16(MRC10_M_SKIP_ONCE << MRC10_SETH_M_SHIFT |
				 MRC10_SETH_PR | MRC10_SETH_X),
		.ack_psn_offset = htobe16((__u16)-3),
		.entropy = htobe32(0xdeadbeef),
		.spdcid = htobe16(0x1111),
		.dpdcid = htobe16(0x2222),
		.cack_psn = htobe32(0xabcdef),
		.cc = 0x21,
		.mpr = 8,
		.sack_offset = htobe16(1),
		.bitmap = htobe64(0x8000000000000001ULL),
	};
	struct mrc10_cc cc = { htobe16(0x4444), htobe16(5),
			       htobe32(0x80000000 | 0x11 << 24 | 0x123456) };
	struct mrc10_neth neth = {
		.reason = MRC10_NACK_TRIMMED_LASTHOP,
		.vendor = 0x77,
		.entropy = htobe32(0xcafe),
		.spdcid = htobe16(0x3333),
		.dpdcid = htobe16(0x4444),
		.nack_psn = htobe32(0x654321),
		.cc = 0x20,
		.ts = htobe16(0x5555),
	};
	struct mrc10_peth peth = {
		.vendor = 0x12,
		.probe_id = htobe16(0x7777),
		.spdcid = htobe16(0x1),
		.dpdcid = htobe16(0x2),
		.ts = htobe16(0x6666),
		.flags = htobe16(MRC10_TS_TSR | MRC10_TS_FTYPE),
	};
	struct mrc10_erth erth = {
		.op = htobe16(MRC10_EP_AFMRC),
		.vendor = MRC10_X_SYNACK,
		.port_mask = htobe32(0xf),
		.ts = htobe16(0x1234),
		.flags = htobe16(MRC10_TS_FTYPE),
	};
	struct mrc10_eeth eeth = {
		.op = htobe16(MRC10_EP_EV_PROBE << MRC10_EETH_OP_SHIFT),
		.ts = htobe16(0x4321),
	};

	SHOW("bth", bth);
	SHOW("meth", meth);
	SHOW("tseth", ts);
	SHOW("reth", reth);
	SHOW("seth", seth);
	SHOW("cc", cc);
	SHOW("neth", neth);
	SHOW("peth", peth);
	SHOW("erth", erth);
	SHOW("eeth", eeth);
	return 0;
}
