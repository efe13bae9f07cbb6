// SPDX-License-Identifier: GPL-2.0
/*
 * sch_mrctrim: a FIFO that trims instead of dropping, so that a Linux
 * software switch treats MRC traffic as MRC fabric switches do (the
 * packet trimming of NDP, of the UEC switch model and of the SAI/SONiC
 * proposal).
 *
 * Two bands: data, and headers. The header band is always served first.
 * A packet that finds the data band full is, if it carries the trimmable
 * DSCP, cut to trim-size bytes (IPv6 payload length, UDP length and UDP
 * checksum fixed), remarked to the trim DSCP and queued in the header
 * band; other packets are tail-dropped. A packet that arrives already
 * carrying the trim DSCP (trimmed upstream) joins the header band too.
 * Above ecn-threshold bytes of data, ECN-capable packets are marked CE.
 * Documentation/networking/mrc.rst ("Packet trimming") and tc-mrctrim(8)
 * have the details.
 */
#include <linux/ipv6.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/seg6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>
#include <net/ip6_checksum.h>
#include <net/ipv6.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include <linux/mrc_trim.h>

#include "mrc_compat.h"

#define MRCTRIM_DSCP_MAX	63

/**
 * struct mrctrim_sched_data - one mrctrim qdisc
 * @limit: bytes the data band holds
 * @header_limit: bytes the header band holds
 * @trim_size: bytes a trimmed packet keeps, from its IPv6 header on
 * @ecn_threshold: data band bytes above which ECT packets are marked; 0: off
 * @trim_dscp: DSCP given to trimmed packets
 * @trimmable_dscp: DSCP of the packets that may be trimmed
 * @data: the data band
 * @hdr: the header band
 * @data_bytes: bytes in @data
 * @hdr_bytes: bytes in @hdr
 * @trimmed: packets trimmed and queued in @hdr
 * @data_drops: packets tail-dropped at a full data band
 * @header_drops: packets dropped at a full header band
 * @ecn_marked: packets marked CE
 *
 * Everything is under the qdisc's lock.
 */
struct mrctrim_sched_data {
	u32 limit;
	u32 header_limit;
	u32 trim_size;
	u32 ecn_threshold;
	u8 trim_dscp;
	u8 trimmable_dscp;
	struct qdisc_skb_head data;
	struct qdisc_skb_head hdr;
	u32 data_bytes;
	u32 hdr_bytes;
	u64 trimmed;
	u64 data_drops;
	u64 header_drops;
	u64 ecn_marked;
};

static const struct nla_policy mrctrim_policy[TCA_MRCTRIM_MAX + 1] = {
	[TCA_MRCTRIM_LIMIT] = { .type = NLA_U32 },
	[TCA_MRCTRIM_HEADER_LIMIT] = { .type = NLA_U32 },
	[TCA_MRCTRIM_TRIM_SIZE] = { .type = NLA_U32 },
	[TCA_MRCTRIM_TRIM_DSCP] = { .type = NLA_U8 },
	[TCA_MRCTRIM_TRIMMABLE_DSCP] = { .type = NLA_U8 },
	[TCA_MRCTRIM_ECN_THRESHOLD] = { .type = NLA_U32 },
};

/* The DSCP of an IPv6 packet; -1 for anything else. */
static int mrctrim_dscp(struct sk_buff *skb)
{
	if (skb->protocol != htons(ETH_P_IPV6) ||
	    !pskb_network_may_pull(skb, sizeof(struct ipv6hdr)))
		return -1;
	return ipv6_get_dsfield(ipv6_hdr(skb)) >> 2;
}

/* Cut @skb to trim_size bytes from its IPv6 header, and make it a valid
 * packet again: IPv6 payload length, UDP length and checksum (whose
 * pseudo-header names the final destination, the SRH's first entry when
 * there is one), then the trim DSCP, keeping the ECN bits.
 *
 * Return: 0, or a negative errno when the packet cannot be trimmed (not
 * UDP, headers longer than trim_size, no memory); it is then untouched
 * apart from being made private.
 */
static int mrctrim_trim(const struct mrctrim_sched_data *q,
			struct sk_buff *skb)
{
	unsigned int nhoff = skb_network_offset(skb);
	unsigned int off = sizeof(struct ipv6hdr);
	unsigned int keep = min(skb->len - nhoff, q->trim_size);
	struct in6_addr daddr;
	struct ipv6hdr *ip6;
	struct udphdr *uh;
	unsigned int ulen;
	u8 next;

	if (skb_ensure_writable(skb, nhoff + keep))
		return -ENOMEM;
	ip6 = ipv6_hdr(skb);
	daddr = ip6->daddr;
	next = ip6->nexthdr;
	while (next != IPPROTO_UDP) {
		struct ipv6_opt_hdr *oh;
		unsigned int hlen;

		if (next != NEXTHDR_HOP && next != NEXTHDR_DEST &&
		    next != NEXTHDR_ROUTING)
			return -EPROTONOSUPPORT;
		if (off + sizeof(*oh) > keep)
			return -EMSGSIZE;
		oh = (struct ipv6_opt_hdr *)(skb_network_header(skb) + off);
		hlen = ipv6_optlen(oh);
		if (off + hlen > keep)
			return -EMSGSIZE;
		if (next == NEXTHDR_ROUTING) {
			struct ipv6_sr_hdr *srh = (struct ipv6_sr_hdr *)oh;

			if (srh->type == IPV6_SRCRT_TYPE_4 &&
			    hlen >= sizeof(*srh) + sizeof(struct in6_addr))
				daddr = srh->segments[0];
		}
		next = oh->nexthdr;
		off += hlen;
	}
	if (off + sizeof(*uh) > keep)
		return -EMSGSIZE;

	if (pskb_trim(skb, nhoff + keep))
		return -ENOMEM;
	ip6 = ipv6_hdr(skb);
	ip6->payload_len = htons(keep - sizeof(*ip6));
	uh = (struct udphdr *)(skb_network_header(skb) + off);
	ulen = keep - off;
	uh->len = htons(ulen);
	uh->check = 0;
	uh->check = csum_ipv6_magic(&ip6->saddr, &daddr, ulen, IPPROTO_UDP,
				    csum_partial(uh, ulen, 0));
	if (!uh->check)
		uh->check = CSUM_MANGLED_0;
	skb->ip_summed = CHECKSUM_NONE;
	ipv6_change_dsfield(ip6, INET_ECN_MASK, q->trim_dscp << 2);
	return 0;
}

static void mrctrim_queue(struct Qdisc *sch, struct qdisc_skb_head *band,
			  u32 *bytes, struct sk_buff *skb)
{
	*bytes += qdisc_pkt_len(skb);
	__qdisc_enqueue_tail(skb, band);
	sch->q.qlen++;
	qdisc_qstats_backlog_inc(sch, skb);
}

/* Header band: trimmed packets, here or upstream. */
static int mrctrim_enqueue_hdr(struct Qdisc *sch, struct sk_buff *skb,
			       struct sk_buff **to_free)
{
	struct mrctrim_sched_data *q = qdisc_priv(sch);

	if (q->hdr_bytes + qdisc_pkt_len(skb) > q->header_limit) {
		q->header_drops++;
		return qdisc_drop(skb, sch, to_free);
	}
	mrctrim_queue(sch, &q->hdr, &q->hdr_bytes, skb);
	return NET_XMIT_SUCCESS;
}

/* One packet (a GSO one only while it fits the data band whole). */
static int mrctrim_enqueue_one(struct Qdisc *sch, struct sk_buff *skb,
			       int dscp, struct sk_buff **to_free)
{
	struct mrctrim_sched_data *q = qdisc_priv(sch);
	unsigned int len = qdisc_pkt_len(skb);
	int ret;

	if (dscp >= 0 && dscp == q->trim_dscp)
		return mrctrim_enqueue_hdr(sch, skb, to_free);
	if (q->data_bytes + len <= q->limit) {
		if (q->ecn_threshold && q->data_bytes > q->ecn_threshold &&
		    INET_ECN_set_ce(skb))
			q->ecn_marked++;
		mrctrim_queue(sch, &q->data, &q->data_bytes, skb);
		return NET_XMIT_SUCCESS;
	}
	if (dscp < 0 || dscp != q->trimmable_dscp || skb_is_gso(skb) ||
	    mrctrim_trim(q, skb)) {
		q->data_drops++;
		return qdisc_drop(skb, sch, to_free);
	}
	qdisc_skb_cb(skb)->pkt_len = skb->len;
	ret = mrctrim_enqueue_hdr(sch, skb, to_free);
	if (ret == NET_XMIT_SUCCESS)
		q->trimmed++;
	return ret;
}

/* Our parents counted one packet of @prev_len bytes; what we queued is
 * @nb packets of @bytes. Tell them, once something is queued (a qdisc
 * with packets is never notified as emptied).
 */
static void mrctrim_fix_parents(struct Qdisc *sch, unsigned int prev_len,
				unsigned int nb, unsigned int bytes)
{
	if (nb && (nb != 1 || bytes != prev_len))
		qdisc_tree_reduce_backlog(sch, 1 - (int)nb,
					  (int)prev_len - (int)bytes);
}

static int mrctrim_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			   struct sk_buff **to_free)
{
	struct mrctrim_sched_data *q = qdisc_priv(sch);
	unsigned int prev_len = qdisc_pkt_len(skb), nb = 0, bytes = 0;
	int dscp = mrctrim_dscp(skb);
	struct sk_buff *segs, *nskb;
	netdev_features_t features;
	int ret;

	if (!skb_is_gso(skb) || q->data_bytes + prev_len <= q->limit ||
	    dscp < 0 || dscp != q->trimmable_dscp) {
		ret = mrctrim_enqueue_one(sch, skb, dscp, to_free);
		if (ret == NET_XMIT_SUCCESS)
			mrctrim_fix_parents(sch, prev_len, 1,
					    qdisc_pkt_len(skb));
		return ret;
	}

	/* A GSO batch that does not fit: packet by packet, so that what
	 * fits is queued whole and the rest trimmed.
	 */
	features = netif_skb_features(skb);
	segs = skb_gso_segment(skb, features & ~NETIF_F_GSO_MASK);
	if (IS_ERR_OR_NULL(segs)) {
		q->data_drops++;
		return qdisc_drop(skb, sch, to_free);
	}
	skb_list_walk_safe(segs, segs, nskb) {
		skb_mark_not_on_list(segs);
		qdisc_skb_cb(segs)->pkt_len = segs->len;
		if (mrctrim_enqueue_one(sch, segs, dscp, to_free) ==
		    NET_XMIT_SUCCESS) {
			nb++;
			bytes += qdisc_pkt_len(segs);
		}
	}
	mrctrim_fix_parents(sch, prev_len, nb, bytes);
	consume_skb(skb);
	return nb ? NET_XMIT_SUCCESS : NET_XMIT_DROP;
}

static struct sk_buff *mrctrim_dequeue(struct Qdisc *sch)
{
	struct mrctrim_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb;

	skb = __qdisc_dequeue_head(&q->hdr);
	if (skb) {
		q->hdr_bytes -= qdisc_pkt_len(skb);
	} else {
		skb = __qdisc_dequeue_head(&q->data);
		if (!skb)
			return NULL;
		q->data_bytes -= qdisc_pkt_len(skb);
	}
	sch->q.qlen--;
	qdisc_qstats_backlog_dec(sch, skb);
	qdisc_bstats_update(sch, skb);
	return skb;
}

static struct sk_buff *mrctrim_peek(struct Qdisc *sch)
{
	struct mrctrim_sched_data *q = qdisc_priv(sch);

	return q->hdr.head ?: q->data.head;
}

static void mrctrim_reset(struct Qdisc *sch)
{
	struct mrctrim_sched_data *q = qdisc_priv(sch);

	__qdisc_reset_queue(&q->hdr);
	__qdisc_reset_queue(&q->data);
	q->hdr_bytes = 0;
	q->data_bytes = 0;
	sch->q.qlen = 0;
	sch->qstats.backlog = 0;
}

static int mrctrim_dscp_attr(struct nlattr *attr, u8 *dscp,
			     struct netlink_ext_ack *extack)
{
	u8 v = nla_get_u8(attr);

	if (v > MRCTRIM_DSCP_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "DSCP is over 63");
		return -EINVAL;
	}
	*dscp = v;
	return 0;
}

static int mrctrim_change(struct Qdisc *sch, struct nlattr *opt,
			  struct netlink_ext_ack *extack)
{
	struct mrctrim_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_MRCTRIM_MAX + 1];
	u32 limit = q->limit, header_limit = q->header_limit;
	u32 trim_size = q->trim_size, ecn = q->ecn_threshold;
	u8 trim_dscp = q->trim_dscp, trimmable = q->trimmable_dscp;
	unsigned int dropped = 0, dropped_bytes = 0;
	int err;

	err = nla_parse_nested(tb, TCA_MRCTRIM_MAX, opt, mrctrim_policy,
			       extack);
	if (err)
		return err;
	if (tb[TCA_MRCTRIM_LIMIT]) {
		limit = nla_get_u32(tb[TCA_MRCTRIM_LIMIT]);
		if (!limit) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_MRCTRIM_LIMIT],
					    "limit must be at least one byte");
			return -EINVAL;
		}
	}
	if (tb[TCA_MRCTRIM_HEADER_LIMIT]) {
		header_limit = nla_get_u32(tb[TCA_MRCTRIM_HEADER_LIMIT]);
		if (!header_limit) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_MRCTRIM_HEADER_LIMIT],
					    "header-limit must be at least one byte");
			return -EINVAL;
		}
	}
	if (tb[TCA_MRCTRIM_TRIM_SIZE]) {
		trim_size = nla_get_u32(tb[TCA_MRCTRIM_TRIM_SIZE]);
		if (trim_size < MRCTRIM_MIN_TRIM_SIZE) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_MRCTRIM_TRIM_SIZE],
					    "trim-size is smaller than an IPv6, UDP and MRC header ("
					    __stringify(MRCTRIM_MIN_TRIM_SIZE) " bytes)");
			return -EINVAL;
		}
	}
	if (tb[TCA_MRCTRIM_TRIM_DSCP]) {
		err = mrctrim_dscp_attr(tb[TCA_MRCTRIM_TRIM_DSCP], &trim_dscp,
					extack);
		if (err)
			return err;
	}
	if (tb[TCA_MRCTRIM_TRIMMABLE_DSCP]) {
		err = mrctrim_dscp_attr(tb[TCA_MRCTRIM_TRIMMABLE_DSCP],
					&trimmable, extack);
		if (err)
			return err;
	}
	if (trim_dscp == trimmable) {
		NL_SET_ERR_MSG(extack, "trim-dscp and trimmable-dscp must differ");
		return -EINVAL;
	}
	if (tb[TCA_MRCTRIM_ECN_THRESHOLD])
		ecn = nla_get_u32(tb[TCA_MRCTRIM_ECN_THRESHOLD]);

	sch_tree_lock(sch);
	q->limit = limit;
	q->header_limit = header_limit;
	q->trim_size = trim_size;
	q->ecn_threshold = ecn;
	q->trim_dscp = trim_dscp;
	q->trimmable_dscp = trimmable;
	/* Smaller limits: drop from the head until the bands fit. */
	while (q->data_bytes > q->limit || q->hdr_bytes > q->header_limit) {
		struct qdisc_skb_head *band = q->data_bytes > q->limit ?
					      &q->data : &q->hdr;
		u32 *bytes = band == &q->data ? &q->data_bytes : &q->hdr_bytes;
		struct sk_buff *skb = __qdisc_dequeue_head(band);

		*bytes -= qdisc_pkt_len(skb);
		sch->q.qlen--;
		qdisc_qstats_backlog_dec(sch, skb);
		dropped++;
		dropped_bytes += qdisc_pkt_len(skb);
		if (band == &q->data)
			q->data_drops++;
		else
			q->header_drops++;
		rtnl_qdisc_drop(skb, sch);
	}
	qdisc_tree_reduce_backlog(sch, dropped, dropped_bytes);
	sch_tree_unlock(sch);
	return 0;
}

static int mrctrim_init(struct Qdisc *sch, struct nlattr *opt,
			struct netlink_ext_ack *extack)
{
	struct mrctrim_sched_data *q = qdisc_priv(sch);

	q->limit = MRCTRIM_DEF_LIMIT;
	q->header_limit = MRCTRIM_DEF_HEADER_LIMIT;
	q->trim_size = MRCTRIM_DEF_TRIM_SIZE;
	q->trim_dscp = MRCTRIM_DEF_TRIM_DSCP;
	q->trimmable_dscp = MRCTRIM_DEF_TRIMMABLE_DSCP;
	q->ecn_threshold = 0;
	return opt ? mrctrim_change(sch, opt, extack) : 0;
}

static int mrctrim_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct mrctrim_sched_data *q = qdisc_priv(sch);
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		return -EMSGSIZE;
	if (nla_put_u32(skb, TCA_MRCTRIM_LIMIT, q->limit) ||
	    nla_put_u32(skb, TCA_MRCTRIM_HEADER_LIMIT, q->header_limit) ||
	    nla_put_u32(skb, TCA_MRCTRIM_TRIM_SIZE, q->trim_size) ||
	    nla_put_u8(skb, TCA_MRCTRIM_TRIM_DSCP, q->trim_dscp) ||
	    nla_put_u8(skb, TCA_MRCTRIM_TRIMMABLE_DSCP, q->trimmable_dscp) ||
	    nla_put_u32(skb, TCA_MRCTRIM_ECN_THRESHOLD, q->ecn_threshold)) {
		nla_nest_cancel(skb, opts);
		return -EMSGSIZE;
	}
	return nla_nest_end(skb, opts);
}

static int mrctrim_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct mrctrim_sched_data *q = qdisc_priv(sch);
	struct tc_mrctrim_xstats st = {
		.trimmed = q->trimmed,
		.data_drops = q->data_drops,
		.header_drops = q->header_drops,
		.ecn_marked = q->ecn_marked,
		.data_backlog = q->data_bytes,
		.header_backlog = q->hdr_bytes,
		.data_qlen = q->data.qlen,
		.header_qlen = q->hdr.qlen,
	};

	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static struct Qdisc_ops mrctrim_qdisc_ops __read_mostly = {
	.id = "mrctrim",
	.priv_size = sizeof(struct mrctrim_sched_data),
	.enqueue = mrctrim_enqueue,
	.dequeue = mrctrim_dequeue,
	.peek = mrctrim_peek,
	.init = mrctrim_init,
	.reset = mrctrim_reset,
	.change = mrctrim_change,
	.dump = mrctrim_dump,
	.dump_stats = mrctrim_dump_stats,
	.owner = THIS_MODULE,
};

static int __init mrctrim_module_init(void)
{
	return register_qdisc(&mrctrim_qdisc_ops);
}

static void __exit mrctrim_module_exit(void)
{
	unregister_qdisc(&mrctrim_qdisc_ops);
}

module_init(mrctrim_module_init);
module_exit(mrctrim_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("MRC packet-trimming queueing discipline");
/* 6.9 and later ask for net-sch-<kind>; 6.1 for sch_<kind>, our name. */
MODULE_ALIAS("net-sch-mrctrim");
