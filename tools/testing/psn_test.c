// SPDX-License-Identifier: GPL-2.0
/*
 * psn_test: the 24-bit PSN arithmetic of include/mrc_wire.h, against a
 * model that keeps PSNs as unbounded integers: across the wrap, at the
 * edges of half the space, and for random pairs. Exits non-zero on the
 * first disagreement.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/types.h>

#include "mrc_wire.h"

#define SPACE	((long long)MRC_PSN_MASK + 1)

/* The PSN on the wire of the unbounded sequence number @n. */
static __u32 wire(long long n)
{
	return (__u32)(((n % SPACE) + SPACE) % SPACE);
}

static int fails;

/* Sequence numbers @a and @b, less than half the space apart. */
static void check(long long a, long long b)
{
	__u32 wa = wire(a), wb = wire(b);
	bool before = a < b, after = a > b;

	if (mrc_psn_sub(wa, wb) != a - b ||
	    mrc_psn_before(wa, wb) != before ||
	    mrc_psn_after(wa, wb) != after ||
	    mrc_psn_add(wb, (__s32)(a - b)) != wa) {
		if (fails++ < 5)
			fprintf(stderr, "psn_test: %lld, %lld (wire %u, %u)\n",
				a, b, wa, wb);
	}
}

int main(void)
{
	long long base, d;
	int i;

	for (base = -3; base <= 3; base++)
		for (d = -300; d <= 300; d++) {
			check(SPACE + base + d, SPACE + base);
			check(5 * SPACE + base, 5 * SPACE + base + d);
		}
	for (d = -3; d <= 3; d++) {
		check(SPACE / 2 - 1 + d, d);		/* the farthest apart */
		check(d, d - SPACE / 2 + 1);
	}
	srandom(1);
	for (i = 0; i < 1000000; i++) {
		long long a = random() % (8 * SPACE);
		long long b = a + random() % (SPACE - 1) - SPACE / 2 + 1;

		check(a, b);
	}
	if (mrc_psn_add(MRC_PSN_MASK, 1) != 0 ||
	    mrc_psn_add(0, -1) != MRC_PSN_MASK)
		fails++;
	if (fails) {
		fprintf(stderr, "psn_test: %d disagreements\n", fails);
		return 1;
	}
	printf("psn_test: PSN arithmetic agrees with the model across the wrap\n");
	return 0;
}
