// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_sack: the SACK scoreboard of both ends (net/mrc/parse.c, built as
 * the module builds it), each held against a plain model.
 *
 * Input: cum_psn and the sender's next PSN (4 bytes each, big endian, of
 * which the low 24 bits count: the receive path drops a PSN with more)
 * and an ACK's 4 SACK words (32 bytes): unless cum_psn is after the next
 * PSN (dropped before), mrc_sack_load() must accept the map exactly when
 * every PSN it names was sent, and then load it bit for bit.
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

static void check_ack(const u8 *in)
{
	DECLARE_BITMAP(map, MRC_SACK_BITS);
	__be64 sack[MRC_SACK_WORDS];
	u32 cum, nxt;
	bool ok = true, got;
	unsigned int i;
	u64 w;

	memcpy(&cum, in, 4);
	memcpy(&nxt, in + 4, 4);
	cum = be32toh(cum) & 0xffffff;
	nxt = be32toh(nxt) & 0xffffff;
	memcpy(sack, in + 8, sizeof(sack));
	/* The receive path drops an ACK whose cum_psn is after snd_nxt
	 * before it looks at the map: modulo 2^24, less than half of it.
	 */
	if (((nxt - cum) & 0xffffff) >= 0x800000)
		return;
	for (i = 0; i < MRC_SACK_BITS; i++) {
		w = be64toh((__force u64)sack[i / 64]);
		if (w >> (i % 64) & 1 &&
		    ((nxt - (cum + 1 + i)) & 0xffffff) - 1 >= 0x800000)
			ok = false;
	}
	got = mrc_sack_load(map, sack, cum, nxt);
	if (got != ok)
		abort();
	for (i = 0; got && i < MRC_SACK_BITS; i++) {
		w = be64toh((__force u64)sack[i / 64]);
		if (test_bit(i, map) != (w >> (i % 64) & 1))
			abort();
	}
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
	if (size < 8 + 8 * MRC_SACK_WORDS)
		return 0;
	check_ack(data);
	check_receiver(data + 40, size - 40);
	return 0;
}
