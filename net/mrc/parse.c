// SPDX-License-Identifier: GPL-2.0
/*
 * MRC: the checks of what arrives that need no connection state. Anyone
 * who can reach the UDP port can send anything, so each check here is
 * exercised by the fuzzers of tools/testing/fuzz/, which build this file
 * as it is.
 */
#include <linux/bitmap.h>
#include <linux/mrc.h>
#include <linux/ipv6.h>
#include <linux/seg6.h>
#include <net/ipv6.h>

#include "mrc_wire.h"
#include "parse.h"

/**
 * mrc_hdr_len() - the length of a packet type's header
 * @type: enum mrc_pkt_type
 *
 * Return: bytes from the common header to the end of the type's header,
 * or 0 for an unknown type.
 */
unsigned int mrc_hdr_len(u8 type)
{
	switch (type) {
	case MRC_PKT_DATA:
		return sizeof(struct mrc_data);
	case MRC_PKT_ACK:
		return sizeof(struct mrc_ack);
	case MRC_PKT_NACK:
		return sizeof(struct mrc_nack);
	case MRC_PKT_SYN:
	case MRC_PKT_SYNACK:
		return sizeof(struct mrc_syn);
	case MRC_PKT_FIN:
		return sizeof(struct mrc_fin);
	case MRC_PKT_RST:
		return sizeof(struct mrc_rst);
	case MRC_PKT_PROBE:
	case MRC_PKT_PROBE_REPLY:
		return sizeof(struct mrc_probe);
	}
	return 0;
}

/**
 * mrc_psn_ok() - whether a header's PSN is in the PSN space
 * @h: a header of a type mrc_hdr_len() knows, all of it in place
 *
 * Return: false if the DATA's PSN, the ACK's cum_psn, the NACK's PSN or
 * the SYN's initial PSN has a bit above the %MRC_PSN_BITS that BTH will
 * carry.
 */
bool mrc_psn_ok(const struct mrc_hdr *h)
{
	__be32 psn;

	switch (h->type) {
	case MRC_PKT_DATA:
		psn = ((const struct mrc_data *)h)->psn;
		break;
	case MRC_PKT_ACK:
		psn = ((const struct mrc_ack *)h)->cum_psn;
		break;
	case MRC_PKT_NACK:
		psn = ((const struct mrc_nack *)h)->psn;
		break;
	case MRC_PKT_SYN:
	case MRC_PKT_SYNACK:
		psn = ((const struct mrc_syn *)h)->isn;
		break;
	default:
		return true;
	}
	return !(be32_to_cpu(psn) & ~MRC_PSN_MASK);
}

/* An SRH must be well formed, finished (segments_left 0), and name our
 * address, the packet's destination, as its last segment; the IPv6 layer
 * only checked what it needed to forward the packet, and 6.1 exports no
 * validator.
 */
static bool mrc_srh_valid(const struct ipv6_sr_hdr *srh, unsigned int len,
			  const struct in6_addr *daddr)
{
	unsigned int n = srh->first_segment + 1;

	return len >= sizeof(*srh) + n * sizeof(struct in6_addr) &&
	       srh->type == IPV6_SRCRT_TYPE_4 && srh->hdrlen >= 2 * n &&
	       srh->segments_left == 0 &&
	       ipv6_addr_equal(&srh->segments[0], daddr);
}

/**
 * mrc_exthdrs_ok() - the extension headers between IPv6 and UDP are ours
 * @nh: the IPv6 header, followed by the extension headers
 * @end: the offset of the UDP header from @nh
 *
 * MRC sends none but an SRH, so anything but hop-by-hop, destination
 * options and a valid SRH is refused, as are headers that do not end
 * exactly at @end.
 *
 * Return: they may be accepted.
 */
bool mrc_exthdrs_ok(const u8 *nh, unsigned int end)
{
	const struct ipv6hdr *ip6 = (const struct ipv6hdr *)nh;
	unsigned int off = sizeof(*ip6), len;
	u8 next = ip6->nexthdr;

	if (end < off)
		return false;
	while (next != IPPROTO_UDP) {
		const struct ipv6_opt_hdr *oh = (const void *)(nh + off);

		if (off + sizeof(*oh) > end)
			return false;
		len = ipv6_optlen(oh);
		if (off + len > end)
			return false;
		switch (next) {
		case NEXTHDR_HOP:
		case NEXTHDR_DEST:
			break;
		case NEXTHDR_ROUTING:
			if (len < sizeof(struct ipv6_sr_hdr) ||
			    !mrc_srh_valid((const void *)oh, len, &ip6->daddr))
				return false;
			break;
		default:
			return false;
		}
		off += len;
		next = oh->nexthdr;
	}
	return off == end;
}

/**
 * mrc_data_fields_ok() - a DATA packet's message fields are consistent
 * @mlen: msg_len: the whole message's length
 * @off: offset: where the payload goes in the message
 * @plen: the payload's length
 * @mss: the most payload a packet of the connection carries
 * @seg_min: the least payload a packet other than a message's last carries
 * @msn_ahead: how far its MSN is past the next message to deliver
 *
 * Every packet but the last of a message carries at least @seg_min: a
 * message is then at most MRC_MSG_MAX / @seg_min + 1 packets, which bounds
 * the memory of the one message a receiver takes beyond its buffer. Tiny
 * packets could otherwise make it hold a true size many times the
 * message's. A sender cuts its messages to fit its narrowest path, which
 * may narrow during a connection, so packets need not carry all of @mss.
 *
 * Return: the payload lies inside a message of at most MRC_MSG_MAX bytes,
 * is no more than @mss, is at least @seg_min bytes or ends the message
 * (and is empty only in an empty message), and belongs to one of the next
 * MRC_WND messages.
 */
bool mrc_data_fields_ok(u32 mlen, u32 off, u32 plen, u32 mss, u32 seg_min,
			u32 msn_ahead)
{
	return mlen <= MRC_MSG_MAX && off <= mlen && plen <= mlen - off &&
	       plen <= mss && (plen >= seg_min || plen == mlen - off) &&
	       (plen || !mlen) && msn_ahead < MRC_WND;
}

/**
 * mrc_sack_load() - an ACK's SACK map, if it names only PSNs sent
 * @map: out: MRC_SACK_BITS bits, bit i for PSN @cum + 1 + i
 * @sack: the ACK's MRC_SACK_WORDS big-endian words
 * @cum: the ACK's cum_psn, not after @snd_nxt
 * @snd_nxt: the next PSN the sender will send
 *
 * Return: false if the map names a PSN at or after @snd_nxt.
 */
bool mrc_sack_load(unsigned long *map, const __be64 *sack, u32 cum,
		   u32 snd_nxt)
{
	u64 words[MRC_SACK_WORDS];
	unsigned long last;
	unsigned int i;

	for (i = 0; i < MRC_SACK_WORDS; i++)
		words[i] = be64_to_cpu(sack[i]);
	bitmap_from_arr64(map, words, MRC_SACK_BITS);
	last = find_last_bit(map, MRC_SACK_BITS);
	return last >= MRC_SACK_BITS ||
	       mrc_psn_before(mrc_psn_add(cum, 1 + last), snd_nxt);
}

/**
 * mrc_rcv_map_add() - the receiver holds one more PSN
 * @map: MRC_WND bits, bit k for the cumulative point plus k
 * @k: the new PSN's distance from the cumulative point, below MRC_WND
 *
 * Return: how far the cumulative point moves: the map is shifted by as
 * much, so that bit 0 is again the first PSN missing. The PSN next in
 * line with nothing held past it, as most packets are, moves it by one
 * and leaves the map empty: no shift.
 */
u32 mrc_rcv_map_add(unsigned long *map, u32 k)
{
	u32 adv;

	if (!k && bitmap_empty(map, MRC_WND))
		return 1;
	set_bit(k, map);
	adv = find_first_zero_bit(map, MRC_WND);
	if (adv)
		bitmap_shift_right(map, map, adv, MRC_WND);
	return adv;
}
