/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the module's files expect from the kernel, for building them in
 * user space (tools/testing/fuzz/): included before everything else.
 * Only what those files use, written for this purpose.
 */
#ifndef _MRC_FUZZ_KERNEL_H
#define _MRC_FUZZ_KERNEL_H

#include <endian.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <linux/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;

#define BITS_PER_LONG		(sizeof(long) * CHAR_BIT)
#define be64_to_cpu(x)		be64toh((__force u64)(x))
#define be32_to_cpu(x)		be32toh((__force u32)(x))
#define cpu_to_be16(x)		((__be16)htobe16(x))
#define cpu_to_be32(x)		((__be32)htobe32(x))
#define cpu_to_le32(x)		((__le32)htole32(x))
#define READ_ONCE(x)		(x)
#define WRITE_ONCE(x, v)	((x) = (v))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define clamp_t(t, v, lo, hi)	((t)mrc_fuzz_clamp(v, lo, hi))

static inline unsigned long long mrc_fuzz_clamp(unsigned long long v,
						unsigned long long lo,
						unsigned long long hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

#endif
