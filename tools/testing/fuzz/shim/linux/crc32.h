/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tools/testing/fuzz: crc32_le() as the kernel's lib/crc32.c defines it
 * (the reflected CRC-32 polynomial 0xedb88320, no inversion in or out),
 * one bit at a time: slow, and plainly what it says.
 */
#ifndef _MRC_FUZZ_CRC32_H
#define _MRC_FUZZ_CRC32_H

static inline u32 crc32_le(u32 crc, const unsigned char *p, size_t len)
{
	int i;

	while (len--) {
		crc ^= *p++;
		for (i = 0; i < 8; i++)
			crc = (crc >> 1) ^ (crc & 1 ? 0xedb88320 : 0);
	}
	return crc;
}

#endif
