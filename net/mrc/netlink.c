// SPDX-License-Identifier: GPL-2.0
/*
 * The "mrc" generic netlink family: path sets, counters and path events.
 * Documentation/netlink/specs/mrc.yaml is the contract. 6.1 has no split
 * ops, so the table is written by hand, one family-wide policy for both
 * kernels.
 */
#include <linux/jiffies.h>
#include <linux/mrc.h>
#include <linux/rhashtable.h>
#include <net/genetlink.h>
#include <net/ipv6.h>

#include "cc.h"
#include "mib.h"
#include "conn_paths.h"
#include "netlink.h"
#include "output.h"
#include "pathset.h"
#include "probe.h"
#include "pernet.h"
#include "trace.h"

static struct genl_family mrc_genl_family;

/* An EV is 16 bits; a policy's own max is a signed 16-bit field. */
/* Not const: 6.1 points to it through a non-const pointer. */
static struct netlink_range_validation mrc_id_range __ro_after_init = {
	.max = U16_MAX,
};

/* Microsecond settings are bounded at one second (ten for quick adapt). */
static struct netlink_range_validation mrc_us_range __ro_after_init = {
	.max = USEC_PER_SEC,
};

static struct netlink_range_validation mrc_delay_range __ro_after_init = {
	.min = 1,
	.max = USEC_PER_SEC,
};

static struct netlink_range_validation mrc_qa_range __ro_after_init = {
	.max = 10 * USEC_PER_SEC,
};

static const struct nla_policy mrc_cc_policy[MRC_CC_MAX + 1] = {
	[MRC_CC_BASE_RTT_US] = NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_us_range),
	[MRC_CC_TARGET_DELAY_US] = NLA_POLICY_FULL_RANGE(NLA_U32,
							 &mrc_delay_range),
	[MRC_CC_MAX_CWND] = NLA_POLICY_RANGE(NLA_U32, 2, MRC_WND),
	[MRC_CC_AI] = NLA_POLICY_MAX(NLA_U32, 64),
	[MRC_CC_FI] = NLA_POLICY_MAX(NLA_U32, 64),
	[MRC_CC_MD] = NLA_POLICY_MAX(NLA_U32, 1023),
	[MRC_CC_QA_DELAY_US] = NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_qa_range),
	[MRC_CC_ECN_COOLDOWN_US] = NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_us_range),
};

static const struct nla_policy mrc_segs_policy[MRC_PA_SEG + 1] = {
	[MRC_PA_SEG] = NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
};

static const struct nla_policy mrc_path_policy[MRC_PA_MAX + 1] = {
	[MRC_PA_ID] = NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_id_range),
	[MRC_PA_SEGS] = NLA_POLICY_NESTED(mrc_segs_policy),
	[MRC_PA_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[MRC_PA_SRC] = NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
	[MRC_PA_STATE] = { .type = NLA_REJECT },
	[MRC_PA_REASON] = { .type = NLA_REJECT },
	[MRC_PA_CHANGED_MS] = { .type = NLA_REJECT },
	[MRC_PA_STATS] = { .type = NLA_REJECT },
};

static const struct nla_policy mrc_policy[MRC_A_MAX + 1] = {
	[MRC_A_PREFIX] = NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
	[MRC_A_PREFIX_LEN] = NLA_POLICY_MAX(NLA_U8, 128),
	[MRC_A_MIN_ACTIVE] = NLA_POLICY_MAX(NLA_U32, MRC_PATHS_PER_SET_MAX),
	[MRC_A_PATH] = NLA_POLICY_NESTED(mrc_path_policy),
	[MRC_A_STAT] = { .type = NLA_REJECT },
	[MRC_A_PATH_ID] = NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_id_range),
	[MRC_A_STATE] = NLA_POLICY_RANGE(NLA_U8, MRC_PATH_GOOD, MRC_PATH_DENIED),
	[MRC_A_OLD_STATE] = { .type = NLA_REJECT },
	[MRC_A_REASON] = { .type = NLA_REJECT },
	[MRC_A_NR_PATHS] = { .type = NLA_REJECT },
	[MRC_A_CONN] = { .type = NLA_REJECT },
	[MRC_A_ERRNO] = { .type = NLA_REJECT },
	[MRC_A_CC] = NLA_POLICY_NESTED(mrc_cc_policy),
	[MRC_A_DADDR] = NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
	[MRC_A_TIMEOUT_MS] = NLA_POLICY_RANGE(NLA_U32, 1, 10000),
	[MRC_A_RTT_US] = { .type = NLA_REJECT },
};

/* The set a request names: MRC_A_PREFIX/LEN, host bits clear. */
static int mrc_nl_prefix(struct genl_info *info, struct in6_addr *prefix,
			 u8 *plen)
{
	struct in6_addr masked;

	if (GENL_REQ_ATTR_CHECK(info, MRC_A_PREFIX) ||
	    GENL_REQ_ATTR_CHECK(info, MRC_A_PREFIX_LEN))
		return -EINVAL;
	*prefix = nla_get_in6_addr(info->attrs[MRC_A_PREFIX]);
	*plen = nla_get_u8(info->attrs[MRC_A_PREFIX_LEN]);
	ipv6_addr_prefix(&masked, prefix, *plen);
	if (!ipv6_addr_equal(&masked, prefix)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[MRC_A_PREFIX],
				    "prefix has bits set beyond its length");
		return -EINVAL;
	}
	return 0;
}

static int mrc_nl_parse_path(struct genl_info *info, struct mrc_path_req *req)
{
	struct nlattr *tb[MRC_PA_MAX + 1], *seg;
	struct mrc_path_req *p = req;
	int err, rem;

	memset(req, 0, sizeof(*req));
	if (GENL_REQ_ATTR_CHECK(info, MRC_A_PATH))
		return -EINVAL;
	err = nla_parse_nested(tb, MRC_PA_MAX, info->attrs[MRC_A_PATH],
			       mrc_path_policy, info->extack);
	if (err)
		return err;
	if (tb[MRC_PA_ID]) {
		req->has_id = true;
		p->id = nla_get_u32(tb[MRC_PA_ID]);
	}
	if (tb[MRC_PA_SEGS]) {
		nla_for_each_nested(seg, tb[MRC_PA_SEGS], rem) {
			if (p->nsegs == MRC_SEGS_MAX) {
				NL_SET_ERR_MSG_ATTR(info->extack, tb[MRC_PA_SEGS],
						    "too many segments (8 at most)");
				return -E2BIG;
			}
			p->segs[p->nsegs++] = nla_get_in6_addr(seg);
		}
	}
	if (tb[MRC_PA_IFINDEX])
		p->ifindex = nla_get_u32(tb[MRC_PA_IFINDEX]);
	if (tb[MRC_PA_SRC]) {
		p->has_src = true;
		p->src = nla_get_in6_addr(tb[MRC_PA_SRC]);
	}
	return 0;
}

static int mrc_nl_path_add(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_path_req req;
	struct in6_addr prefix;
	u8 plen;
	int err;

	err = mrc_nl_prefix(info, &prefix, &plen) ?: mrc_nl_parse_path(info, &req);
	if (err)
		return err;
	return mrc_path_add(genl_info_net(info), &prefix, plen, &req, info->extack);
}

static int mrc_nl_path_del(struct sk_buff *skb, struct genl_info *info)
{
	struct in6_addr prefix;
	int id = -1;
	u8 plen;
	int err;

	err = mrc_nl_prefix(info, &prefix, &plen);
	if (err)
		return err;
	if (info->attrs[MRC_A_PATH_ID])
		id = nla_get_u32(info->attrs[MRC_A_PATH_ID]);
	return mrc_path_del(genl_info_net(info), &prefix, plen, id, info->extack);
}

/**
 * mrc_nl_path_event() - tell the events group, and the tracepoint
 *	mrc:mrc_path_state, that a path changed state
 * @net: namespace
 * @p: the path
 * @old: the state before
 * @state: the state now
 * @reason: enum mrc_path_reason
 * @gfp: GFP_ATOMIC from softirq
 *
 * Built only when someone listens.
 */
void mrc_nl_path_event(struct net *net, const struct mrc_path *p, u8 old,
		       u8 state, u8 reason, gfp_t gfp)
{
	struct sk_buff *msg;
	void *hdr;

	trace_mrc_path_state(p, old, state, reason);
	if (!genl_has_listeners(&mrc_genl_family, net, 0))
		return;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, gfp);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &mrc_genl_family, 0, MRC_CMD_PATH_EVENT);
	if (!hdr ||
	    nla_put_in6_addr(msg, MRC_A_PREFIX, &p->prefix) ||
	    nla_put_u8(msg, MRC_A_PREFIX_LEN, p->plen) ||
	    nla_put_u32(msg, MRC_A_PATH_ID, p->id) ||
	    nla_put_u8(msg, MRC_A_OLD_STATE, old) ||
	    nla_put_u8(msg, MRC_A_STATE, state) ||
	    nla_put_u8(msg, MRC_A_REASON, reason)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast_netns(&mrc_genl_family, net, msg, 0, 0, gfp);
}

static int mrc_nl_path_set(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct in6_addr prefix;
	u8 plen, state, old;
	u16 id;
	int err;

	err = mrc_nl_prefix(info, &prefix, &plen);
	if (err)
		return err;
	if (GENL_REQ_ATTR_CHECK(info, MRC_A_PATH_ID) ||
	    GENL_REQ_ATTR_CHECK(info, MRC_A_STATE))
		return -EINVAL;
	id = nla_get_u32(info->attrs[MRC_A_PATH_ID]);
	state = nla_get_u8(info->attrs[MRC_A_STATE]);
	return mrc_path_set_state(net, &prefix, plen, id, state, &old,
				  info->extack);
}

static int mrc_nl_pathset_set(struct sk_buff *skb, struct genl_info *info)
{
	struct in6_addr prefix;
	u8 plen;
	int err;

	err = mrc_nl_prefix(info, &prefix, &plen);
	if (err)
		return err;
	if (GENL_REQ_ATTR_CHECK(info, MRC_A_MIN_ACTIVE))
		return -EINVAL;
	return mrc_pathset_set_min_active(genl_info_net(info), &prefix, plen,
					  nla_get_u32(info->attrs[MRC_A_MIN_ACTIVE]),
					  info->extack);
}

static int mrc_nl_flush(struct sk_buff *skb, struct genl_info *info)
{
	mrc_path_flush(genl_info_net(info));
	return 0;
}

static int mrc_nl_put_path_stats(struct sk_buff *msg,
				 const struct mrc_path_counters *c, u32 srtt)
{
	struct nlattr *nest = nla_nest_start(msg, MRC_PA_STATS);

	if (!nest ||
	    nla_put_u64_64bit(msg, MRC_PS_PKTS_SENT, c->v[MRC_PC_SENT],
			      MRC_PS_UNSPEC) ||
	    nla_put_u64_64bit(msg, MRC_PS_BYTES_SENT, c->v[MRC_PC_BYTES],
			      MRC_PS_UNSPEC) ||
	    nla_put_u64_64bit(msg, MRC_PS_PKTS_ACKED, c->v[MRC_PC_ACKED],
			      MRC_PS_UNSPEC) ||
	    nla_put_u64_64bit(msg, MRC_PS_PKTS_RETRANS, c->v[MRC_PC_RETRANS],
			      MRC_PS_UNSPEC) ||
	    nla_put_u64_64bit(msg, MRC_PS_ECN_MARKS, c->v[MRC_PC_ECN],
			      MRC_PS_UNSPEC) ||
	    nla_put_u64_64bit(msg, MRC_PS_TRIMS, c->v[MRC_PC_TRIMS],
			      MRC_PS_UNSPEC) ||
	    nla_put_u64_64bit(msg, MRC_PS_LOSSES, c->v[MRC_PC_LOSSES],
			      MRC_PS_UNSPEC) ||
	    nla_put_u64_64bit(msg, MRC_PS_PROBES, c->v[MRC_PC_PROBES],
			      MRC_PS_UNSPEC) ||
	    nla_put_u64_64bit(msg, MRC_PS_STATE_CHANGES, c->v[MRC_PC_CHANGES],
			      MRC_PS_UNSPEC) ||
	    nla_put_u64_64bit(msg, MRC_PS_LATE_KEPT, c->v[MRC_PC_LATE_KEPT],
			      MRC_PS_UNSPEC) ||
	    nla_put_u32(msg, MRC_PS_SRTT_US, srtt))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int mrc_nl_put_path(struct sk_buff *msg, struct mrc_path *p)
{
	struct mrc_path_counters c;
	struct nlattr *nest, *segs;
	unsigned long changed;
	u8 state, reason;
	unsigned int i;

	nest = nla_nest_start(msg, MRC_A_PATH);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(msg, MRC_PA_ID, p->id))
		goto cancel;
	segs = nla_nest_start(msg, MRC_PA_SEGS);
	if (!segs)
		goto cancel;
	for (i = 0; i < p->nsegs; i++)
		if (nla_put_in6_addr(msg, MRC_PA_SEG, &p->segs[i]))
			goto cancel;
	nla_nest_end(msg, segs);
	mrc_path_read_state(p, &state, &reason, &changed);
	mrc_path_read_stats(p, &c);
	if ((p->ifindex && nla_put_u32(msg, MRC_PA_IFINDEX, p->ifindex)) ||
	    (p->has_src && nla_put_in6_addr(msg, MRC_PA_SRC, &p->src)) ||
	    nla_put_u8(msg, MRC_PA_STATE, state) ||
	    nla_put_u8(msg, MRC_PA_REASON, reason) ||
	    nla_put_u64_64bit(msg, MRC_PA_CHANGED_MS,
			      jiffies_to_msecs(jiffies - changed),
			      MRC_PA_UNSPEC) ||
	    mrc_nl_put_path_stats(msg, &c, READ_ONCE(p->srtt_us)))
		goto cancel;
	nla_nest_end(msg, nest);
	return 0;
cancel:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

/* One message about @set, with its paths from *@next on, as many as fit.
 * A set too big for one message continues in the next: readers merge
 * consecutive messages of one prefix. Returns 0 when the set is done.
 */
static int mrc_nl_fill_set(struct sk_buff *msg, const struct mrc_pathset *set,
			   u32 portid, u32 seq, int flags, u32 *next)
{
	void *hdr;

	hdr = genlmsg_put(msg, portid, seq, &mrc_genl_family, flags,
			  MRC_CMD_PATH_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_in6_addr(msg, MRC_A_PREFIX, &set->prefix) ||
	    nla_put_u8(msg, MRC_A_PREFIX_LEN, set->plen) ||
	    nla_put_u32(msg, MRC_A_MIN_ACTIVE, set->min_active) ||
	    nla_put_u32(msg, MRC_A_NR_PATHS, set->nr_paths)) {
		genlmsg_cancel(msg, hdr);
		return -EMSGSIZE;
	}
	for (; *next < set->nr_paths; (*next)++) {
		if (mrc_nl_put_path(msg, set->paths[*next]))
			break;
	}
	genlmsg_end(msg, hdr);
	return *next < set->nr_paths ? -EMSGSIZE : 0;
}

static int mrc_nl_path_get(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_net *mn = mrc_net(genl_info_net(info));
	const struct mrc_pathset *set;
	struct in6_addr prefix, daddr;
	struct sk_buff *msg;
	u32 next = 0;
	u8 plen;
	int err;

	/* Either the set of one prefix, or, with DADDR, the set that a
	 * connection to DADDR would use (the longest prefix that matches).
	 */
	if (info->attrs[MRC_A_DADDR]) {
		if (info->attrs[MRC_A_PREFIX] || info->attrs[MRC_A_PREFIX_LEN]) {
			NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[MRC_A_DADDR],
					    "give a prefix or a destination, not both");
			return -EINVAL;
		}
		daddr = nla_get_in6_addr(info->attrs[MRC_A_DADDR]);
	} else {
		err = mrc_nl_prefix(info, &prefix, &plen);
		if (err)
			return err;
	}
	/* A whole set of 256 paths, with counters, fits in 128 KiB. */
	msg = genlmsg_new(SZ_128K, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	rcu_read_lock();
	if (info->attrs[MRC_A_DADDR])
		set = mrc_pathset_lookup(mn, &daddr);
	else
		set = mrc_pathset_find(mn, &prefix, plen);
	err = set ? mrc_nl_fill_set(msg, set, info->snd_portid, info->snd_seq,
				    0, &next) : -ENOENT;
	rcu_read_unlock();
	if (err) {
		if (err == -ENOENT && info->attrs[MRC_A_DADDR])
			NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[MRC_A_DADDR],
					    "no path set covers this destination");
		else if (err == -ENOENT)
			NL_SET_ERR_MSG(info->extack, "no path set for this prefix");
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/* cb->args[0]: sets done; cb->args[1]: paths done in the next set. */
static int mrc_nl_path_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct mrc_net *mn = mrc_net(sock_net(skb->sk));
	const struct mrc_pathset *set;
	long idx = 0;
	u32 next;
	int err = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(set, &mn->pathsets, node) {
		if (idx++ < cb->args[0])
			continue;
		next = cb->args[1];
		err = mrc_nl_fill_set(skb, set, NETLINK_CB(cb->skb).portid,
				      cb->nlh->nlmsg_seq, NLM_F_MULTI, &next);
		if (err) {
			cb->args[1] = next;
			break;
		}
		cb->args[0] = idx;
		cb->args[1] = 0;
	}
	rcu_read_unlock();
	return err ? skb->len : 0;
}

static int mrc_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct sk_buff *msg;
	struct nlattr *nest;
	void *hdr;
	int i;

	msg = genlmsg_new(SZ_8K, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &mrc_genl_family, 0, MRC_CMD_STATS_GET);
	if (!hdr)
		goto nospace;
	for (i = 0; i < MRC_MIB_MAX; i++) {
		nest = nla_nest_start(msg, MRC_A_STAT);
		if (!nest ||
		    nla_put_string(msg, MRC_SA_NAME, mrc_mib_name(i)) ||
		    nla_put_u64_64bit(msg, MRC_SA_VALUE, mrc_mib_read(net, i),
				      MRC_SA_UNSPEC))
			goto nospace;
		nla_nest_end(msg, nest);
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
nospace:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

static int mrc_nl_put_cc(struct sk_buff *msg, const struct mrc_cc_params *cc)
{
	struct nlattr *nest = nla_nest_start(msg, MRC_A_CC);

	if (!nest ||
	    nla_put_u32(msg, MRC_CC_BASE_RTT_US, cc->base_rtt_us) ||
	    nla_put_u32(msg, MRC_CC_TARGET_DELAY_US, cc->target_delay_us) ||
	    nla_put_u32(msg, MRC_CC_MAX_CWND, cc->max_cwnd) ||
	    nla_put_u32(msg, MRC_CC_AI, cc->ai) ||
	    nla_put_u32(msg, MRC_CC_FI, cc->fi) ||
	    nla_put_u32(msg, MRC_CC_MD, cc->md) ||
	    nla_put_u32(msg, MRC_CC_QA_DELAY_US, cc->qa_delay_us) ||
	    nla_put_u32(msg, MRC_CC_ECN_COOLDOWN_US, cc->ecn_cooldown_us))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int mrc_nl_cc_get(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_net *mn = mrc_net(genl_info_net(info));
	struct mrc_cc_params cc;
	struct sk_buff *msg;
	void *hdr;

	mutex_lock(&mn->paths_lock);
	cc = mn->cc;
	mutex_unlock(&mn->paths_lock);
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &mrc_genl_family, 0, MRC_CMD_CC_GET);
	if (!hdr || mrc_nl_put_cc(msg, &cc)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static void mrc_nl_get_u32(struct nlattr **tb, int type, u32 *val)
{
	if (tb[type])
		*val = nla_get_u32(tb[type]);
}

static int mrc_nl_cc_set(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_net *mn = mrc_net(genl_info_net(info));
	struct nlattr *tb[MRC_CC_MAX + 1];
	struct mrc_cc_params cc;
	int err, i;

	if (GENL_REQ_ATTR_CHECK(info, MRC_A_CC))
		return -EINVAL;
	err = nla_parse_nested(tb, MRC_CC_MAX, info->attrs[MRC_A_CC],
			       mrc_cc_policy, info->extack);
	if (err)
		return err;
	for (i = 1; i <= MRC_CC_MAX && !tb[i]; i++)
		;
	if (i > MRC_CC_MAX) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[MRC_A_CC],
				    "no setting given");
		return -EINVAL;
	}

	mutex_lock(&mn->paths_lock);
	cc = mn->cc;
	mrc_nl_get_u32(tb, MRC_CC_BASE_RTT_US, &cc.base_rtt_us);
	mrc_nl_get_u32(tb, MRC_CC_TARGET_DELAY_US, &cc.target_delay_us);
	mrc_nl_get_u32(tb, MRC_CC_MAX_CWND, &cc.max_cwnd);
	mrc_nl_get_u32(tb, MRC_CC_AI, &cc.ai);
	mrc_nl_get_u32(tb, MRC_CC_FI, &cc.fi);
	mrc_nl_get_u32(tb, MRC_CC_MD, &cc.md);
	mrc_nl_get_u32(tb, MRC_CC_QA_DELAY_US, &cc.qa_delay_us);
	mrc_nl_get_u32(tb, MRC_CC_ECN_COOLDOWN_US, &cc.ecn_cooldown_us);
	if (cc.qa_delay_us && cc.qa_delay_us <= cc.target_delay_us) {
		NL_SET_ERR_MSG(info->extack,
			       "qa-delay must exceed target-delay (or be 0)");
		err = -EINVAL;
	} else {
		mrc_cc_params_store(&mn->cc, &cc);
	}
	mutex_unlock(&mn->paths_lock);
	return err;
}

static int mrc_nl_probe(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct mrc_net *mn = mrc_net(net);
	unsigned int timeout = 1000;
	struct mrc_path *p = NULL;
	struct mrc_pathset *set;
	struct in6_addr prefix, daddr;
	struct sk_buff *msg;
	u32 id, i, rtt;
	void *hdr;
	u8 plen;
	int err;

	err = mrc_nl_prefix(info, &prefix, &plen);
	if (err)
		return err;
	if (GENL_REQ_ATTR_CHECK(info, MRC_A_PATH_ID))
		return -EINVAL;
	id = nla_get_u32(info->attrs[MRC_A_PATH_ID]);
	if (info->attrs[MRC_A_DADDR]) {
		daddr = nla_get_in6_addr(info->attrs[MRC_A_DADDR]);
		if (!ipv6_prefix_equal(&daddr, &prefix, plen)) {
			NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[MRC_A_DADDR],
					    "the address is not in the prefix");
			return -EINVAL;
		}
	} else if (plen == 128) {
		daddr = prefix;
	} else {
		NL_SET_ERR_MSG(info->extack,
			       "give the host to probe: the prefix is not a /128");
		return -EINVAL;
	}
	if (info->attrs[MRC_A_TIMEOUT_MS])
		timeout = nla_get_u32(info->attrs[MRC_A_TIMEOUT_MS]);

	rcu_read_lock();
	set = mrc_pathset_find(mn, &prefix, plen);
	for (i = 0; set && i < set->nr_paths; i++) {
		if (set->paths[i]->id == id) {
			p = set->paths[i];
			refcount_inc(&p->refcnt);
			break;
		}
	}
	rcu_read_unlock();
	if (!p) {
		NL_SET_ERR_MSG(info->extack, "no path with this id for this prefix");
		return -ENOENT;
	}
	err = mrc_probe_once(net, p, &daddr, timeout, &rtt);
	mrc_path_put(p);
	if (err == -ETIMEDOUT)
		NL_SET_ERR_MSG(info->extack, "no reply to the probe in time");
	else if (err == -EBUSY)
		NL_SET_ERR_MSG(info->extack, "over the namespace's probe rate");
	if (err)
		return err;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &mrc_genl_family, 0, MRC_CMD_PROBE);
	if (!hdr || nla_put_u32(msg, MRC_A_PATH_ID, id) ||
	    nla_put_u32(msg, MRC_A_RTT_US, rtt)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* The sending state of a path of a connection that has sent nothing. */
static const struct mrc_cpstate mrc_nl_unsent;

static int mrc_nl_put_cpath(struct sk_buff *msg, const struct mrc_sock *msk,
			    const struct mrc_cpath *cp,
			    const struct mrc_cpstate *cs)
{
	u32 srtt = READ_ONCE(cs->srtt_us);
	struct nlattr *nest, *stats;
	u8 state = MRC_PATH_GOOD;

	if (cp->path)
		state = READ_ONCE(cp->path->state);
	nest = nla_nest_start(msg, MRC_CA_PATH);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(msg, MRC_PA_ID, cp->id) ||
	    nla_put_u8(msg, MRC_PA_STATE, state))
		goto cancel;
	stats = nla_nest_start(msg, MRC_PA_STATS);
	if (!stats ||
	    nla_put_u64_64bit(msg, MRC_PS_PKTS_SENT, READ_ONCE(cs->sent),
			      MRC_PS_UNSPEC) ||
	    nla_put_u64_64bit(msg, MRC_PS_BYTES_SENT, READ_ONCE(cs->bytes),
			      MRC_PS_UNSPEC) ||
	    nla_put_u64_64bit(msg, MRC_PS_PKTS_ACKED, READ_ONCE(cs->acked),
			      MRC_PS_UNSPEC) ||
	    nla_put_u64_64bit(msg, MRC_PS_PKTS_RETRANS, READ_ONCE(cs->retrans),
			      MRC_PS_UNSPEC) ||
	    nla_put_u64_64bit(msg, MRC_PS_ECN_MARKS, READ_ONCE(cs->ecn),
			      MRC_PS_UNSPEC) ||
	    nla_put_u64_64bit(msg, MRC_PS_TRIMS, READ_ONCE(cs->trims),
			      MRC_PS_UNSPEC) ||
	    nla_put_u64_64bit(msg, MRC_PS_LOSSES, READ_ONCE(cs->losses),
			      MRC_PS_UNSPEC) ||
	    nla_put_u32(msg, MRC_PS_SRTT_US, srtt) ||
	    nla_put_u32(msg, MRC_PS_RTTVAR_US, READ_ONCE(cs->rttvar_us)) ||
	    nla_put_u32(msg, MRC_PS_REO_WND_US,
			mrc_reo_wnd(srtt ?: READ_ONCE(msk->srtt_us),
				    READ_ONCE(cs->reo_steps))) ||
	    nla_put_u32(msg, MRC_PS_MIN_RTT_US, READ_ONCE(cs->min_rtt_us)) ||
	    nla_put_u32(msg, MRC_PS_INFLIGHT, READ_ONCE(cs->inflight)) ||
	    nla_put_u32(msg, MRC_PS_ECN_FRAC, READ_ONCE(cs->ecn_frac)))
		goto cancel;
	nla_nest_end(msg, stats);
	nla_nest_end(msg, nest);
	return 0;
cancel:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

/* The paths of a connection from *@next on, as many as fit. Under RCU: the
 * view is freed after a grace period when the connection replaces it.
 */
static int mrc_nl_put_cpaths(struct sk_buff *msg, struct mrc_sock *msk,
			     u32 *next)
{
	const struct mrc_cpaths *cps = rcu_dereference(msk->paths);
	const struct mrc_cpstate *st;

	if (!cps)
		return 0;
	st = rcu_dereference(cps->st);
	if (nla_put_u32(msg, MRC_CA_NR_PATHS, cps->nr) ||
	    (cps->is_auto && nla_put_flag(msg, MRC_CA_AUTO)))
		return -EMSGSIZE;
	for (; *next < cps->nr; (*next)++)
		if (mrc_nl_put_cpath(msg, msk, &cps->p[*next],
				     st ? &st[*next] : &mrc_nl_unsent))
			return -EMSGSIZE;
	return 0;
}

/* The sender's time under each limit (mrc_info's mrci_busy_us and on). */
static int mrc_nl_put_limits(struct sk_buff *msg, const struct mrc_sock *msk)
{
	static const u8 attr[MRC_SL_NR] = {
		[MRC_SL_IDLE] = MRC_CA_BUSY_US,
		[MRC_SL_BUSY] = MRC_CA_APP_LIMITED_US,
		[MRC_SL_CWND] = MRC_CA_CWND_LIMITED_US,
		[MRC_SL_WND] = MRC_CA_WND_LIMITED_US,
		[MRC_SL_RWND] = MRC_CA_RWND_LIMITED_US,
		[MRC_SL_SNDBUF] = MRC_CA_SNDBUF_LIMITED_US,
	};
	unsigned long now = jiffies;
	int i;

	for (i = 0; i < MRC_SL_NR; i++)
		if (nla_put_u64_64bit(msg, attr[i], mrc_send_limit_us(msk, i, now),
				      MRC_CA_UNSPEC))
			return -EMSGSIZE;
	return 0;
}

/* Whose socket it is, as ss -e and -p show it: its owner's uid, as the
 * dumping process's user namespace @ns sees it, and its inode, which user
 * space finds among the processes' file descriptors (0 once the
 * application has closed it).
 */
static int mrc_nl_put_owner(struct sk_buff *msg, struct sock *sk,
			    struct user_namespace *ns)
{
	if (nla_put_u32(msg, MRC_CA_UID,
			from_kuid_munged(ns, sock_i_uid(sk))) ||
	    nla_put_u64_64bit(msg, MRC_CA_INODE, sock_i_ino(sk), MRC_CA_UNSPEC))
		return -EMSGSIZE;
	return 0;
}

/* One connection; with @next (a dump), its owner and its paths from
 * *@next on, as the user namespace @ns sees the owner.
 */
static int mrc_nl_put_conn(struct sk_buff *msg, struct mrc_sock *msk,
			   u32 *next, struct user_namespace *ns)
{
	const struct mrc_stats *st = &msk->stats;
	struct nlattr *nest;

	/* Read without the socket lock: a snapshot, as ss gives. */
	nest = nla_nest_start(msg, MRC_A_CONN);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(msg, MRC_CA_LOCAL_CID, msk->lcid) ||
	    nla_put_u32(msg, MRC_CA_REMOTE_CID, READ_ONCE(msk->rcid)) ||
	    nla_put_u8(msg, MRC_CA_STATE, READ_ONCE(msk->state)) ||
	    nla_put_in6_addr(msg, MRC_CA_SADDR, &msk->saddr) ||
	    nla_put_in6_addr(msg, MRC_CA_DADDR, &msk->daddr) ||
	    nla_put_u16(msg, MRC_CA_SPORT, ntohs(msk->lport)) ||
	    nla_put_u16(msg, MRC_CA_DPORT, ntohs(msk->dport)) ||
	    nla_put_u32(msg, MRC_CA_MSS, READ_ONCE(msk->mss)) ||
	    nla_put_u32(msg, MRC_CA_SRTT_US, READ_ONCE(msk->srtt_us)) ||
	    nla_put_u32(msg, MRC_CA_CWND, READ_ONCE(msk->cwnd)) ||
	    nla_put_u64_64bit(msg, MRC_CA_BYTES_SENT, READ_ONCE(st->bytes_sent),
			      MRC_CA_UNSPEC) ||
	    nla_put_u64_64bit(msg, MRC_CA_BYTES_ACKED, READ_ONCE(st->bytes_acked),
			      MRC_CA_UNSPEC) ||
	    nla_put_u64_64bit(msg, MRC_CA_BYTES_RECEIVED,
			      READ_ONCE(st->bytes_received), MRC_CA_UNSPEC) ||
	    nla_put_u64_64bit(msg, MRC_CA_PKTS_RETRANS,
			      READ_ONCE(st->pkts_retrans), MRC_CA_UNSPEC) ||
	    nla_put_u64_64bit(msg, MRC_CA_RTOS, READ_ONCE(st->rtos),
			      MRC_CA_UNSPEC) ||
	    mrc_nl_put_limits(msg, msk) ||
	    (next && mrc_nl_put_owner(msg, &msk->sk, ns))) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	if (next) {
		u32 first = *next;
		int err = mrc_nl_put_cpaths(msg, msk, next);

		if (err) {
			/* Keep what fits; the next message goes on. */
			if (*next == first) {
				nla_nest_cancel(msg, nest);
				return err;
			}
			nla_nest_end(msg, nest);
			return err;
		}
	}
	nla_nest_end(msg, nest);
	return 0;
}

/* One connection a message; cb->args[0]: connections done, cb->args[1]:
 * paths of the next one already sent. A connection with more paths than
 * fit goes on in the next message, which readers merge by local id. Each
 * call walks the table from its start, so a connection hashed or unhashed
 * meanwhile may be missed or seen twice, as with any dump.
 */
static int mrc_nl_conn_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct mrc_net *mn = mrc_net(sock_net(skb->sk));
	struct rhashtable_iter iter;
	struct mrc_sock *msk;
	long idx = 0;
	u32 next, first;
	void *hdr;
	int err = 0;

	rhashtable_walk_enter(&mn->conns, &iter);
	rhashtable_walk_start(&iter);
	while ((msk = rhashtable_walk_next(&iter))) {
		if (IS_ERR(msk)) {
			if (PTR_ERR(msk) == -EAGAIN)
				continue;
			err = PTR_ERR(msk);
			break;
		}
		if (idx++ < cb->args[0])
			continue;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &mrc_genl_family,
				  NLM_F_MULTI, MRC_CMD_CONN_GET);
		if (!hdr) {
			err = -EMSGSIZE;
			break;
		}
		first = idx - 1 == cb->args[0] ? cb->args[1] : 0;
		next = first;
		if (mrc_nl_put_conn(skb, msk, &next,
				    sk_user_ns(NETLINK_CB(cb->skb).sk))) {
			err = -EMSGSIZE;
			if (next == first) {
				genlmsg_cancel(skb, hdr);
				break;
			}
			genlmsg_end(skb, hdr);
			cb->args[0] = idx - 1;
			cb->args[1] = next;
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0] = idx;
		cb->args[1] = 0;
	}
	rhashtable_walk_stop(&iter);
	rhashtable_walk_exit(&iter);
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err;
}

/**
 * mrc_nl_conn_event() - tell the events group a connection opened or closed
 * @sk: the connection, locked
 * @err: for a close, the error the application sees (0 if none)
 *
 * Built only when someone listens: it runs in softirq for every
 * connection.
 */
void mrc_nl_conn_event(struct sock *sk, int err)
{
	struct net *net = sock_net(sk);
	struct sk_buff *msg;
	void *hdr;

	if (!genl_has_listeners(&mrc_genl_family, net, 0))
		return;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_ATOMIC);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &mrc_genl_family, 0, MRC_CMD_CONN_EVENT);
	if (!hdr || mrc_nl_put_conn(msg, mrc_sk(sk), NULL, NULL) ||
	    nla_put_u32(msg, MRC_A_ERRNO, err)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast_netns(&mrc_genl_family, net, msg, 0, 0, GFP_ATOMIC);
}

static const struct genl_ops mrc_genl_ops[] = {
	{
		.cmd = MRC_CMD_PATH_ADD,
		.doit = mrc_nl_path_add,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = MRC_CMD_PATH_DEL,
		.doit = mrc_nl_path_del,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = MRC_CMD_PATH_GET,
		.doit = mrc_nl_path_get,
		.dumpit = mrc_nl_path_dump,
	},
	{
		.cmd = MRC_CMD_PATH_SET,
		.doit = mrc_nl_path_set,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = MRC_CMD_PATHSET_SET,
		.doit = mrc_nl_pathset_set,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = MRC_CMD_FLUSH,
		.doit = mrc_nl_flush,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = MRC_CMD_STATS_GET,
		.doit = mrc_nl_stats_get,
	},
	{
		.cmd = MRC_CMD_CONN_GET,
		.dumpit = mrc_nl_conn_dump,
	},
	{
		.cmd = MRC_CMD_CC_GET,
		.doit = mrc_nl_cc_get,
	},
	{
		.cmd = MRC_CMD_CC_SET,
		.doit = mrc_nl_cc_set,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = MRC_CMD_PROBE,
		.doit = mrc_nl_probe,
		.flags = GENL_UNS_ADMIN_PERM,
	},
};

static const struct genl_multicast_group mrc_mcgrps[] = {
	{ .name = MRC_GENL_MCGRP_EVENTS, },
};

static struct genl_family mrc_genl_family __ro_after_init = {
	.name = MRC_GENL_NAME,
	.version = MRC_GENL_VERSION,
	.maxattr = MRC_A_MAX,
	.policy = mrc_policy,
	.netnsok = true,
	/* Handlers take their own locks, and a probe sleeps while it waits:
	 * genl_mutex must not be held around them.
	 */
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = mrc_genl_ops,
	.n_ops = ARRAY_SIZE(mrc_genl_ops),
	.resv_start_op = MRC_CMD_PATH_ADD,
	.mcgrps = mrc_mcgrps,
	.n_mcgrps = ARRAY_SIZE(mrc_mcgrps),
};

/**
 * mrc_netlink_init() - register the "mrc" generic netlink family
 *
 * Return: 0 or a negative errno.
 */
int mrc_netlink_init(void)
{
	return genl_register_family(&mrc_genl_family);
}

/**
 * mrc_netlink_exit() - unregister the family
 */
void mrc_netlink_exit(void)
{
	genl_unregister_family(&mrc_genl_family);
}

/* A request for the family loads the module (genetlink asks for this). */
MODULE_ALIAS_GENL_FAMILY(MRC_GENL_NAME);
