/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The MRC 1.0 ICRC: RoCEv2's invariant CRC, over a pseudo-header that
 * SRv6 does not change on the way (Documentation/networking/
 * mrc-1.0-mapping.rst, ICRC).
 *
 * icrc.c builds into the module and, unchanged, into the user-space test
 * of tools/testing/icrc/, so it includes nothing that test cannot provide.
 */
#ifndef _MRC_ICRC_H
#define _MRC_ICRC_H

#include <linux/crc32.h>
#include <linux/types.h>

struct in6_addr;

/* Bytes of ICRC after each packet's payload and pad. */
#define MRC_ICRC_LEN	4
/* Bytes of BTH, the first header after UDP. */
#define MRC_BTH_LEN	12

u32 mrc_icrc_hdrs(const struct in6_addr *saddr, const struct in6_addr *daddr,
		  __be16 sport, __be16 dport, u16 udp_len, const u8 *hdrs,
		  unsigned int hlen);

/* Go on over @len more bytes (the payload and pad, in pieces). */
static inline u32 mrc_icrc_update(u32 crc, const void *p, unsigned int len)
{
	return crc32_le(crc, p, len);
}

/* The ICRC as it goes on the wire: complemented, least significant byte
 * first, as Linux rxe stores it.
 */
static inline __le32 mrc_icrc_final(u32 crc)
{
	return cpu_to_le32(~crc);
}

#endif /* _MRC_ICRC_H */
