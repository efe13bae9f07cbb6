/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tools/testing/fuzz: the kernel's bitmap operations the module uses,
 * written plainly (bit by bit) for user space: a second implementation
 * to hold the module's logic against.
 */
#ifndef _MRC_FUZZ_BITMAP_H
#define _MRC_FUZZ_BITMAP_H

#define BITS_TO_LONGS(n)	(((n) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define DECLARE_BITMAP(name, bits)	unsigned long name[BITS_TO_LONGS(bits)]

static inline bool test_bit(unsigned long nr, const unsigned long *map)
{
	return map[nr / BITS_PER_LONG] >> (nr % BITS_PER_LONG) & 1;
}

static inline void set_bit(unsigned long nr, unsigned long *map)
{
	map[nr / BITS_PER_LONG] |= 1UL << (nr % BITS_PER_LONG);
}

static inline void clear_bit(unsigned long nr, unsigned long *map)
{
	map[nr / BITS_PER_LONG] &= ~(1UL << (nr % BITS_PER_LONG));
}

static inline unsigned long find_first_zero_bit(const unsigned long *map,
						unsigned long size)
{
	unsigned long i;

	for (i = 0; i < size && test_bit(i, map); i++)
		;
	return i;
}

static inline unsigned long find_last_bit(const unsigned long *map,
					  unsigned long size)
{
	unsigned long i;

	for (i = size; i-- > 0;)
		if (test_bit(i, map))
			return i;
	return size;
}

static inline bool bitmap_empty(const unsigned long *map, unsigned long size)
{
	return find_last_bit(map, size) == size;
}

static inline void bitmap_shift_right(unsigned long *dst,
				      const unsigned long *src,
				      unsigned long shift, unsigned long size)
{
	unsigned long i;

	for (i = 0; i < size; i++) {
		if (i + shift < size && test_bit(i + shift, src))
			set_bit(i, dst);
		else
			clear_bit(i, dst);
	}
}

static inline void bitmap_from_arr64(unsigned long *map, const u64 *words,
				     unsigned long size)
{
	unsigned long i;

	for (i = 0; i < size; i++) {
		if (words[i / 64] >> (i % 64) & 1)
			set_bit(i, map);
		else
			clear_bit(i, map);
	}
}

#endif
