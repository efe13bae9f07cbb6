/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checks of what arrives that need no connection state: header
 * lengths, extension headers and the SRH, a DATA packet's message fields,
 * an ACK's SACK map, and the receiver's map of the PSNs it holds.
 *
 * parse.c builds into the module and, unchanged, into the user-space
 * fuzzers of tools/testing/fuzz/, so it includes nothing those cannot
 * provide.
 */
#ifndef _MRC_PARSE_H
#define _MRC_PARSE_H

#include <linux/types.h>

struct in6_addr;
struct mrc_hdr;

unsigned int mrc_hdr_len(u8 type);
bool mrc_psn_ok(const struct mrc_hdr *h);
bool mrc_exthdrs_ok(const u8 *nh, unsigned int end);
bool mrc_data_fields_ok(u32 mlen, u32 off, u32 plen, u32 mss, u32 seg_min,
			u32 msn_ahead);
bool mrc_sack_load(unsigned long *map, const __be64 *sack, u32 cum,
		   u32 snd_nxt);
u32 mrc_rcv_map_add(unsigned long *map, u32 k);

#endif /* _MRC_PARSE_H */
