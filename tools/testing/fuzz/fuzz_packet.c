// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_packet: what the receive path checks before it looks for a
 * connection (net/mrc/parse.c, built as the module builds it): the
 * extension headers between IPv6 and UDP, with the SRH, then the MRC
 * header's length for its type, whether its PSN fits 24 bits and, for
 * DATA, the message fields.
 *
 * Input: two bytes, little endian, giving the UDP header's offset as the
 * IPv6 layer found it (at least the IPv6 header, within the packet), then
 * the packet from its IPv6 header on. The bytes up to that offset are
 * copied into a buffer of exactly that size, so that the sanitizer sees
 * any read past what the kernel guarantees is there; a DATA packet's
 * fields are checked against what the check promises.
 *
 * mrc_fuzz_one() is libFuzzer's entry point: run links it under the
 * name libFuzzer calls.
 */
#include <stdlib.h>

#include <linux/ipv6.h>
#include <linux/mrc.h>

#include "mrc_wire.h"
#include "parse.h"

#define FUZZ_MSS	1416
#define FUZZ_SEG_MIN	1060

int mrc_fuzz_one(const u8 *data, size_t size)
{
	const struct mrc_data *d;
	const struct mrc_hdr *h;
	unsigned int end, off, hl;
	u8 *nh;

	if (size < 2)
		return 0;
	end = data[0] | data[1] << 8;
	data += 2;
	size -= 2;
	if (end < sizeof(struct ipv6hdr) || end > size)
		return 0;
	nh = malloc(end);
	if (!nh)
		return 0;
	memcpy(nh, data, end);
	mrc_exthdrs_ok(nh, end);
	free(nh);

	off = end + 8;		/* the UDP header */
	if (size < off + sizeof(*h))
		return 0;
	h = (const struct mrc_hdr *)(data + off);
	hl = mrc_hdr_len(h->type);
	if (hl && hl < sizeof(*h))
		abort();
	if (!hl || size < off + hl)
		return 0;
	/* A PSN is accepted exactly when it fits 24 bits. */
	if (h->type == MRC_PKT_DATA || h->type == MRC_PKT_NACK ||
	    h->type == MRC_PKT_ACK || h->type == MRC_PKT_SYN ||
	    h->type == MRC_PKT_SYNACK) {
		const u8 *f = (const u8 *)h + sizeof(*h) +
			(h->type == MRC_PKT_SYN || h->type == MRC_PKT_SYNACK ?
			 4 : 0);

		if (mrc_psn_ok(h) != !f[0])
			abort();
	}
	if (h->type != MRC_PKT_DATA)
		return 0;
	d = (const struct mrc_data *)h;
	{
		u32 mlen = be32toh(d->msg_len), moff = be32toh(d->offset);
		u32 plen = size - off - hl, msn_ahead = be32toh(d->msn);

		/* Accepted fields put the payload inside a message within
		 * MRC_MSG_MAX: the reassembly relies on nothing else. A
		 * packet short of the segment floor ends its message, which
		 * bounds the packets (and memory) a message can take.
		 */
		if (mrc_data_fields_ok(mlen, moff, plen, FUZZ_MSS, FUZZ_SEG_MIN,
				       msn_ahead) &&
		    ((u64)moff + plen > mlen || mlen > MRC_MSG_MAX ||
		     plen > FUZZ_MSS || msn_ahead >= MRC_WND || (!plen && mlen) ||
		     (plen < FUZZ_SEG_MIN && moff + plen != mlen)))
			abort();
	}
	return 0;
}
