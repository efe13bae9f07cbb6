// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_sack: the SACK scoreboard of both ends (net/mrc/parse.c, built as
 * the module builds it), each held against a plain model.
 *
 * Input: an MRC 1.0 SACK as the sender sees it, 16 bytes, big endian:
 * cack_psn (3 bytes), the sender's next PSN (3 bytes), sack_offset (2
 * bytes, signed) and the 64-bit bitmap (8 bytes), whose bit i names PSN
 * cack_psn + sack_offset + i. Unless the cumulative point cack_psn + 1 is
 * after the next PSN (the receive path drops such a SACK first),
 * mrc_sack_load10() must accept the bitmap exactly when every PSN it
 * names after cack_psn was sent and is at most MRC_SACK_BITS past the
 * cumulative point, and then set exactly the bits of the PSNs after the
 * cumulative point; a PSN named at or before cack_psn is ignored.
 * The rest of the input is a sequence of PSN offsets (one byte each, 0 to
 * 255 from the receiver's cumulative point) arriving at a receiver:
 * mrc_rcv_map_add() must move the cumulative point and keep the map as a
 * model receiver that remembers every PSN it holds does.
 *
 * mrc_fuzz_one() is libFuzzer's entry point: run links it under the
 * name libFuzzer calls.
 */
#include <stdlib.h>

#include <linux/bitmap.h>

#include "mrc_wire.h"
#include "parse.h"

#define SACK_IN_LEN	16

static u32 get_be(const u8 *p, unsigned int n)
{
	u32 v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

/* The model counts in plain integers, from the cumulative point: PSN
 * arithmetic modulo 2^24 only finds how far the next PSN is past it.
 */
static void check_ack(const u8 *in)
{
	DECLARE_BITMAP(map, MRC_SACK_BITS);
	bool want[MRC_SACK_BITS] = { false };
	u32 cack = get_be(in, 3), nxt = get_be(in + 3, 3);
	s16 sack_offset = (s16)get_be(in + 6, 2);
	u64 bitmap = (u64)get_be(in + 8, 4) << 32 | get_be(in + 12, 4);
	u32 cum = (cack + 1) & 0xffffff;
	/* How many PSNs from the cumulative point on were sent. */
	u32 sent = (nxt - cum) & 0xffffff;
	bool ok = true, got;
	unsigned int i;
	int d;

	/* The receive path drops a SACK whose cumulative point is after
	 * snd_nxt before it looks at the bitmap: modulo 2^24, less than
	 * half of it.
	 */
	if (sent >= 0x800000)
		return;
	for (i = 0; i < 64; i++) {
		if (!(bitmap >> i & 1))
			continue;
		/* The named PSN is d past cack_psn: d - 1 past cum. */
		d = sack_offset + (int)i;
		if (d <= 0)
			continue;
		if ((u32)(d - 1) >= sent || d - 1 > MRC_SACK_BITS)
			ok = false;
		else if (d >= 2)
			want[d - 2] = true;
	}
	memset(map, 0xa5, sizeof(map));
	got = mrc_sack_load10(map, bitmap, sack_offset, cum, nxt);
	if (got != ok)
		abort();
	for (i = 0; got && i < MRC_SACK_BITS; i++)
		if (test_bit(i, map) != want[i])
			abort();
}

static void check_receiver(const u8 *k, size_t n)
{
	DECLARE_BITMAP(map, MRC_WND) = { 0 };
	size_t held_len = (n + 1) * MRC_WND;
	u8 *held = calloc(held_len, 1);
	u32 nxt = 0, model = 0, adv;
	size_t i, j;

	if (!held)
		return;
	for (i = 0; i < n; i++) {
		if (test_bit(k[i], map))
			continue;	/* a duplicate: the module never adds it */
		adv = mrc_rcv_map_add(map, k[i]);
		held[nxt + k[i]] = 1;
		while (held[model])
			model++;
		if (nxt + adv != model)
			abort();
		nxt = model;
		for (j = 0; j < MRC_WND; j++)
			if (test_bit(j, map) != held[nxt + j])
				abort();
	}
	free(held);
}

int mrc_fuzz_one(const u8 *data, size_t size)
{
	if (size < SACK_IN_LEN)
		return 0;
	check_ack(data);
	check_receiver(data + SACK_IN_LEN, size - SACK_IN_LEN);
	return 0;
}
