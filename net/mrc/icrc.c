// SPDX-License-Identifier: GPL-2.0
/*
 * The MRC 1.0 ICRC (Documentation/networking/mrc-1.0-mapping.rst, ICRC).
 *
 * RoCEv2 covers, with CRC-32 (crc32_le()), 8 bytes of 0xff standing for
 * InfiniBand's LRH, the IP header with the fields routers change set to
 * all ones, the UDP header with its checksum set to all ones, BTH with
 * its byte 4 (FECN, BECN, reserved) set to all ones, the other transport
 * headers, the payload and the pad. Over SRv6 the IPv6 header changes
 * more than that on the way, so the IPv6 header covered is the one the
 * packet would have with no extension header at its final destination:
 * payload length the UDP length, next header UDP, destination the peer.
 * With no SRH, that is the header the packet has, and the ICRC RoCEv2's.
 */
#include <linux/in.h>
#include <linux/in6.h>

#include "icrc.h"

/* crc32_le() from ~0 over the 8 bytes of 0xff that stand for the LRH. */
#define MRC_ICRC_SEED	0xdebb20e3

/* What the CRC covers before the transport headers: the IPv6 header as
 * above, UDP, and BTH.
 */
struct mrc_icrc_pseudo {
	__be32		vtf;		/* version 6, class and label all ones */
	__be16		payload_len;	/* the UDP length */
	u8		nexthdr;	/* IPPROTO_UDP */
	u8		hop_limit;	/* all ones */
	struct in6_addr	saddr;
	struct in6_addr	daddr;		/* the final destination */
	__be16		sport;
	__be16		dport;
	__be16		udp_len;
	__be16		check;		/* all ones */
	u8		bth[MRC_BTH_LEN];	/* byte 4 all ones */
} __packed;

/**
 * mrc_icrc_hdrs() - the ICRC of a packet, up to the end of its headers
 * @saddr: the packet's IPv6 source
 * @daddr: its final destination (the last segment of its path)
 * @sport: its UDP source port
 * @dport: its UDP destination port
 * @udp_len: its UDP length: UDP header, MRC headers, payload, pad, ICRC
 * @hdrs: its MRC headers, from BTH on
 * @hlen: their length, at least %MRC_BTH_LEN
 *
 * Return: the CRC so far, for mrc_icrc_update() over the payload and the
 * pad, and mrc_icrc_final().
 */
u32 mrc_icrc_hdrs(const struct in6_addr *saddr, const struct in6_addr *daddr,
		  __be16 sport, __be16 dport, u16 udp_len, const u8 *hdrs,
		  unsigned int hlen)
{
	struct mrc_icrc_pseudo ph = {
		.vtf		= cpu_to_be32(0x6fffffff),
		.payload_len	= cpu_to_be16(udp_len),
		.nexthdr	= IPPROTO_UDP,
		.hop_limit	= 0xff,
		.saddr		= *saddr,
		.daddr		= *daddr,
		.sport		= sport,
		.dport		= dport,
		.udp_len	= cpu_to_be16(udp_len),
		.check		= cpu_to_be16(0xffff),
	};
	u32 crc;

	memcpy(ph.bth, hdrs, MRC_BTH_LEN);
	ph.bth[4] = 0xff;
	crc = crc32_le(MRC_ICRC_SEED, (const u8 *)&ph, sizeof(ph));
	return crc32_le(crc, hdrs + MRC_BTH_LEN, hlen - MRC_BTH_LEN);
}
