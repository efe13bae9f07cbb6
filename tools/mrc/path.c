// SPDX-License-Identifier: GPL-2.0
/*
 * mrc path ..., mrc pathset ... and mrc probe: a path set is the list of
 * paths to one destination prefix. Every command names the set by PREFIX,
 * then takes some of the same keywords; one parser serves them all. Values
 * the kernel must judge anyway (how many segments, which addresses, ids in
 * use, min-active, a probe's host and timeout) are passed on unchecked, so
 * its messages are what users see.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "mrc.h"

enum {
	ARG_SEGS = 1 << 0,
	ARG_DEV = 1 << 1,
	ARG_SRC = 1 << 2,
	ARG_ID = 1 << 3,
	ARG_STATE = 1 << 4,
	ARG_MIN_ACTIVE = 1 << 5,
	ARG_DST = 1 << 6,
	ARG_TIMEOUT = 1 << 7,
};

static const struct keyword path_args[] = {
	{ "segs", ARG_SEGS },
	{ "dev", ARG_DEV },
	{ "src", ARG_SRC },
	{ "id", ARG_ID },
	{ "state", ARG_STATE },
	{ "min-active", ARG_MIN_ACTIVE },
	{ "dst", ARG_DST },
	{ "timeout", ARG_TIMEOUT },
	{ NULL, 0 },
};

/**
 * struct path_req - a command's PREFIX and keywords
 * @prefix: the set's prefix
 * @plen: its length
 * @seen: the ARG_* given
 * @segs: segs, in the order packets visit them
 * @nsegs: entries in @segs
 * @ifindex: dev
 * @src: src
 * @id: id
 * @state: state
 * @min_active: min-active
 * @dst: dst
 * @timeout: timeout
 */
struct path_req {
	struct in6_addr prefix;
	u8 plen;
	unsigned int seen;
	struct in6_addr *segs;
	unsigned int nsegs;
	u32 ifindex;
	struct in6_addr src;
	u32 id;
	u8 state;
	u32 min_active;
	struct in6_addr dst;
	u32 timeout;
};

static void parse_segs(const char *arg, struct path_req *r)
{
	char *list = strdup(arg), *rest = list, *seg;

	if (!list)
		nl_fail("out of memory");
	while ((seg = strsep(&rest, ","))) {
		r->segs = realloc(r->segs, (r->nsegs + 1) * sizeof(*r->segs));
		if (!r->segs)
			nl_fail("out of memory");
		parse_addr(seg, "segment", &r->segs[r->nsegs++]);
	}
	free(list);
}

static unsigned int arg_kind(const char *word)
{
	const struct keyword *k;

	for (k = path_args; k->name; k++)
		if (!strcmp(k->name, word))
			return k->val;
	return 0;
}

static const char *arg_name(unsigned int kind)
{
	const struct keyword *k;

	for (k = path_args; k->val != kind; k++)
		;
	return k->name;
}

/* PREFIX, then any of the keywords in @allowed, all of @required among them. */
static void parse_req(int argc, char **argv, unsigned int allowed,
		      unsigned int required, struct path_req *r)
{
	unsigned int kind, missing;
	const char *val;

	memset(r, 0, sizeof(*r));
	if (!argc)
		usage_error("missing PREFIX");
	if (is_help(*argv))
		usage(stdout, 0);
	parse_prefix(*argv, &r->prefix, &r->plen);
	for (argc--, argv++; argc; argc--, argv++) {
		if (is_help(*argv))
			usage(stdout, 0);
		kind = arg_kind(*argv);
		if (!(kind & allowed))
			usage_error("unknown argument \"%s\"", *argv);
		if (r->seen & kind)
			usage_error("duplicate \"%s\"", *argv);
		r->seen |= kind;
		val = next_arg(&argc, &argv, arg_name(kind));
		switch (kind) {
		case ARG_SEGS:
			parse_segs(val, r);
			break;
		case ARG_DEV:
			r->ifindex = parse_dev(val);
			break;
		case ARG_SRC:
			parse_addr(val, "address", &r->src);
			break;
		case ARG_ID:
			r->id = parse_u32(val, "id");
			break;
		case ARG_STATE:
			r->state = parse_keyword(path_states, val, "state");
			break;
		case ARG_MIN_ACTIVE:
			r->min_active = parse_u32(val, "min-active");
			break;
		case ARG_DST:
			parse_addr(val, "address", &r->dst);
			break;
		case ARG_TIMEOUT:
			r->timeout = parse_u32(val, "timeout");
			break;
		}
	}
	missing = required & ~r->seen;
	if (missing)
		usage_error("missing \"%s\"", arg_name(missing & -missing));
}

static void no_more_args(int argc, char **argv)
{
	if (argc && is_help(*argv))
		usage(stdout, 0);
	if (argc)
		usage_error("unknown argument \"%s\"", *argv);
}

/* A request for the set @r names; @room for attributes beyond a few. */
static struct nlmsghdr *set_request(u8 cmd, const struct path_req *r,
				    size_t room)
{
	struct nlmsghdr *nlh = nl_request(cmd, 0, room);

	mnl_attr_put(nlh, MRC_A_PREFIX, sizeof(r->prefix), &r->prefix);
	mnl_attr_put_u8(nlh, MRC_A_PREFIX_LEN, r->plen);
	return nlh;
}

static int path_add(int argc, char **argv)
{
	struct nlattr *path, *segs;
	struct nlmsghdr *nlh;
	struct path_req r;
	unsigned int i;

	parse_req(argc, argv, ARG_SEGS | ARG_DEV | ARG_SRC | ARG_ID, 0, &r);
	nlh = set_request(MRC_CMD_PATH_ADD, &r,
			  r.nsegs * MNL_ALIGN(MNL_ATTR_HDRLEN + sizeof(*r.segs)));
	path = mnl_attr_nest_start(nlh, MRC_A_PATH);
	if (r.seen & ARG_ID)
		mnl_attr_put_u32(nlh, MRC_PA_ID, r.id);
	segs = mnl_attr_nest_start(nlh, MRC_PA_SEGS);
	for (i = 0; i < r.nsegs; i++)
		mnl_attr_put(nlh, MRC_PA_SEG, sizeof(r.segs[i]), &r.segs[i]);
	mnl_attr_nest_end(nlh, segs);
	if (r.seen & ARG_DEV)
		mnl_attr_put_u32(nlh, MRC_PA_IFINDEX, r.ifindex);
	if (r.seen & ARG_SRC)
		mnl_attr_put(nlh, MRC_PA_SRC, sizeof(r.src), &r.src);
	mnl_attr_nest_end(nlh, path);
	nl_talk(nlh, NULL);
	free(r.segs);
	return 0;
}

static int path_del(int argc, char **argv)
{
	struct nlmsghdr *nlh;
	struct path_req r;

	parse_req(argc, argv, ARG_ID, 0, &r);
	nlh = set_request(MRC_CMD_PATH_DEL, &r, 0);
	if (r.seen & ARG_ID)
		mnl_attr_put_u32(nlh, MRC_A_PATH_ID, r.id);
	nl_talk(nlh, NULL);
	return 0;
}

static int path_set(int argc, char **argv)
{
	struct nlmsghdr *nlh;
	struct path_req r;

	parse_req(argc, argv, ARG_ID | ARG_STATE, ARG_ID | ARG_STATE, &r);
	nlh = set_request(MRC_CMD_PATH_SET, &r, 0);
	mnl_attr_put_u32(nlh, MRC_A_PATH_ID, r.id);
	mnl_attr_put_u8(nlh, MRC_A_STATE, r.state);
	nl_talk(nlh, NULL);
	return 0;
}

static int path_flush(int argc, char **argv)
{
	no_more_args(argc, argv);
	nl_talk(nl_request(MRC_CMD_FLUSH, 0, 0), NULL);
	return 0;
}

/* A path's counters, as conn show prints them too, in this order; the
 * gauges (@counter false) are what they are in interval mode too.
 */
static const struct {
	int attr;
	const char *key;
	const char *word;
	const char *unit;
	bool counter;
} path_counters[] = {
	{ MRC_PS_PKTS_SENT, "sent", "sent", "", true },
	{ MRC_PS_BYTES_SENT, "bytes", "bytes", "", true },
	{ MRC_PS_PKTS_ACKED, "acked", "acked", "", true },
	{ MRC_PS_PKTS_RETRANS, "retrans", "retrans", "", true },
	{ MRC_PS_ECN_MARKS, "ecn", "ecn", "", true },
	{ MRC_PS_TRIMS, "trims", "trims", "", true },
	{ MRC_PS_LOSSES, "losses", "losses", "", true },
	{ MRC_PS_LATE_KEPT, "late_kept", "late_kept", "", true },
	{ MRC_PS_PROBES, "probes", "probes", "", true },
	{ MRC_PS_STATE_CHANGES, "state_changes", "state_changes", "", true },
	{ MRC_PS_SRTT_US, "srtt_us", "srtt", "us", false },
	{ MRC_PS_RTTVAR_US, "rttvar_us", "rttvar", "us", false },
	{ MRC_PS_REO_WND_US, "reo_wnd_us", "reo_wnd", "us", false },
	{ MRC_PS_MIN_RTT_US, "min_rtt_us", "min_rtt", "us", false },
	{ MRC_PS_INFLIGHT, "inflight", "inflight", "", false },
};

/**
 * print_path_stats() - a path's counters (an MRC_PA_STATS nest)
 * @nest: the nest
 * @t: where to print them: PRINT_ANY, or PRINT_JSON for JSON only
 * @sep: the text before the first counter
 *
 * In JSON, a "stats" object. Only the counters the kernel sends are
 * printed: a connection's path and a set's path have different ones. In
 * interval mode, counters of the object delta_scope() named last.
 */
void print_path_stats(const struct nlattr *nest, enum print_type t,
		      const char *sep)
{
	static const int policy[MRC_PS_MAX + 1] = {
		[MRC_PS_PKTS_SENT] = sizeof(u64),
		[MRC_PS_PKTS_ACKED] = sizeof(u64),
		[MRC_PS_PKTS_RETRANS] = sizeof(u64),
		[MRC_PS_ECN_MARKS] = sizeof(u64),
		[MRC_PS_TRIMS] = sizeof(u64),
		[MRC_PS_LOSSES] = sizeof(u64),
		[MRC_PS_PROBES] = sizeof(u64),
		[MRC_PS_SRTT_US] = sizeof(u32),
		[MRC_PS_MIN_RTT_US] = sizeof(u32),
		[MRC_PS_INFLIGHT] = sizeof(u32),
		[MRC_PS_ECN_FRAC] = sizeof(u32),
		[MRC_PS_BYTES_SENT] = sizeof(u64),
		[MRC_PS_STATE_CHANGES] = sizeof(u64),
		[MRC_PS_LATE_KEPT] = sizeof(u64),
		[MRC_PS_REO_WND_US] = sizeof(u32),
		[MRC_PS_RTTVAR_US] = sizeof(u32),
	};
	const struct nlattr *tb[MRC_PS_MAX + 1], *c;
	char fmt[48];
	size_t i;
	u64 v;

	nl_check(nest, NL_NEST);
	nl_parse_nest(nest, policy, MRC_PS_MAX, tb);
	open_json_object("stats");
	for (i = 0; i < ARRAY_SIZE(path_counters); i++) {
		c = tb[path_counters[i].attr];
		if (!c)
			continue;
		v = policy[path_counters[i].attr] == sizeof(u64) ?
			mnl_attr_get_u64(c) : mnl_attr_get_u32(c);
		if (path_counters[i].counter)
			v = delta_of(path_counters[i].key, v);
		snprintf(fmt, sizeof(fmt), "%s%s %%llu%s", sep,
			 path_counters[i].word, path_counters[i].unit);
		print_u64(t, path_counters[i].key, fmt, v);
		sep = " ";
	}
	/* The kernel keeps it in 1024ths; a fraction reads better. */
	if (tb[MRC_PS_ECN_FRAC]) {
		snprintf(fmt, sizeof(fmt), "%secn_frac %%.3f", sep);
		print_float(t, "ecn_frac", fmt,
			    mnl_attr_get_u32(tb[MRC_PS_ECN_FRAC]) / 1024.0);
	}
	close_json_object();
}

/**
 * struct path_show - where the output of path show is
 * @started: the JSON array of sets is open. It opens with the first set, so
 *	a refused request leaves stdout empty rather than half a document.
 * @in_set: a set's line is printed (its JSON object and paths array open)
 * @prefix: that set's prefix
 * @plen: its length
 * @key: the JSON key of the array of sets (interval mode), or NULL
 *
 * A set too big for one message continues in the next, so a message about
 * the set just printed adds paths to it.
 */
static struct path_show {
	bool started;
	bool in_set;
	struct in6_addr prefix;
	u8 plen;
	const char *key;
} show;

static void print_path(const struct nlattr *nest)
{
	static const int policy[MRC_PA_MAX + 1] = {
		[MRC_PA_ID] = sizeof(u32),
		[MRC_PA_SEGS] = NL_NEST,
		[MRC_PA_IFINDEX] = sizeof(u32),
		[MRC_PA_SRC] = sizeof(struct in6_addr),
		[MRC_PA_STATE] = sizeof(u8),
		[MRC_PA_REASON] = sizeof(u8),
		[MRC_PA_CHANGED_MS] = sizeof(u64),
		[MRC_PA_STATS] = NL_NEST,
	};
	enum print_type detail = opts.stats ? PRINT_ANY : PRINT_JSON;
	const struct nlattr *tb[MRC_PA_MAX + 1], *seg;
	char addr[INET6_ADDRSTRLEN], dev[IF_NAMESIZE], num[16];
	char prefix[PREFIX_STRLEN];
	const char *sep = " segs %s";
	u32 ifindex;

	nl_parse_nest(nest, policy, MRC_PA_MAX, tb);
	if (!tb[MRC_PA_ID] || !tb[MRC_PA_STATE])
		nl_fail("malformed reply from the kernel (path without id or state)");
	open_json_object(NULL);
	print_u64(PRINT_ANY, "id", "\tid %llu", mnl_attr_get_u32(tb[MRC_PA_ID]));
	format_prefix(prefix, &show.prefix, show.plen);
	delta_scope("%s/%u", prefix, mnl_attr_get_u32(tb[MRC_PA_ID]));
	open_json_array("segs");
	if (tb[MRC_PA_SEGS]) {
		mnl_attr_for_each_nested(seg, tb[MRC_PA_SEGS]) {
			nl_check(seg, sizeof(struct in6_addr));
			inet_ntop(AF_INET6, mnl_attr_get_payload(seg), addr, sizeof(addr));
			print_string(PRINT_ANY, NULL, sep, addr);
			sep = ",%s";
		}
	}
	close_json_array();
	if (tb[MRC_PA_IFINDEX]) {
		ifindex = mnl_attr_get_u32(tb[MRC_PA_IFINDEX]);
		if (!if_indextoname(ifindex, dev))
			snprintf(dev, sizeof(dev), "if%u", ifindex);
		print_string(PRINT_ANY, "dev", " dev %s", dev);
	}
	if (tb[MRC_PA_SRC]) {
		inet_ntop(AF_INET6, mnl_attr_get_payload(tb[MRC_PA_SRC]), addr, sizeof(addr));
		print_string(PRINT_ANY, "src", " src %s", addr);
	}
	print_string(PRINT_ANY, "state", " state %s",
		     keyword_name(path_states, mnl_attr_get_u8(tb[MRC_PA_STATE]),
				  num, sizeof(num)));
	if (tb[MRC_PA_REASON])
		print_string(detail, "reason", " reason %s",
			     keyword_name(path_reasons, mnl_attr_get_u8(tb[MRC_PA_REASON]),
					  num, sizeof(num)));
	if (tb[MRC_PA_CHANGED_MS])
		print_u64(detail, "changed_ms", " changed %llums",
			  mnl_attr_get_u64(tb[MRC_PA_CHANGED_MS]));
	if (tb[MRC_PA_STATS])
		print_path_stats(tb[MRC_PA_STATS], detail, "\n\t\t");
	print_nl();
	close_json_object();
}

static void show_end_set(void)
{
	if (!show.in_set)
		return;
	close_json_array();
	close_json_object();
	show.in_set = false;
}

/* A line for the set, unless it continues, then a line per path. */
static void show_cb(const struct nlmsghdr *nlh)
{
	static const int policy[MRC_A_MAX + 1] = {
		[MRC_A_PREFIX] = sizeof(struct in6_addr),
		[MRC_A_PREFIX_LEN] = sizeof(u8),
		[MRC_A_MIN_ACTIVE] = sizeof(u32),
		[MRC_A_PATH] = NL_NEST,
	};
	const struct nlattr *tb[MRC_A_MAX + 1], *a;
	char buf[PREFIX_STRLEN];
	struct in6_addr prefix;
	u8 plen;

	nl_parse_msg(nlh, policy, MRC_A_MAX, tb);
	if (!tb[MRC_A_PREFIX] || !tb[MRC_A_PREFIX_LEN])
		nl_fail("malformed reply from the kernel (set without prefix)");
	memcpy(&prefix, mnl_attr_get_payload(tb[MRC_A_PREFIX]), sizeof(prefix));
	plen = mnl_attr_get_u8(tb[MRC_A_PREFIX_LEN]);
	if (!show.in_set || plen != show.plen ||
	    memcmp(&prefix, &show.prefix, sizeof(prefix))) {
		show_end_set();
		if (!show.started)
			open_json_array(show.key);
		show.started = true;
		open_json_object(NULL);
		format_prefix(buf, &prefix, plen);
		print_string(PRINT_ANY, "prefix", "%s", buf);
		if (tb[MRC_A_MIN_ACTIVE])
			print_u64(PRINT_ANY, "min_active", " min-active %llu",
				  mnl_attr_get_u32(tb[MRC_A_MIN_ACTIVE]));
		print_nl();
		open_json_array("paths");
		show.in_set = true;
		show.prefix = prefix;
		show.plen = plen;
	}
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == MRC_A_PATH)
			print_path(a);
}

/* Send @nlh, a path-get, and print the sets of the reply: a JSON array,
 * under @key (interval mode) or at the top.
 */
static int show_sets(struct nlmsghdr *nlh, const char *key)
{
	memset(&show, 0, sizeof(show));
	show.key = key;
	nl_talk(nlh, show_cb);
	show_end_set();
	if (!show.started)
		open_json_array(key);
	close_json_array();
	return 0;
}

/* What path show asks for: every set, or the one of a prefix. */
static struct {
	bool one;
	struct path_req r;
} show_req;

static void path_sample(const char *key)
{
	struct nlmsghdr *nlh;

	if (show_req.one)
		nlh = set_request(MRC_CMD_PATH_GET, &show_req.r, 0);
	else
		nlh = nl_request(MRC_CMD_PATH_GET, NLM_F_DUMP, 0);
	show_sets(nlh, key);
}

/* mrc path show [PREFIX] [interval SECONDS [count N]] */
static int path_show(int argc, char **argv)
{
	struct interval iv;

	interval_parse(&argc, argv, &iv);
	show_req.one = argc;
	if (argc)
		parse_req(argc, argv, 0, 0, &show_req.r);
	if (iv.secs)
		interval_run(&iv, "sets", path_sample);
	else
		path_sample(NULL);
	return 0;
}

/* mrc path get ADDR: the set a connection to ADDR uses, as path show. */
static int path_get(int argc, char **argv)
{
	struct nlmsghdr *nlh;
	struct in6_addr addr;

	if (!argc)
		usage_error("path get: missing ADDR");
	if (argc > 1)
		usage_error("path get: unknown argument \"%s\"", argv[1]);
	parse_addr(argv[0], "address", &addr);
	nlh = nl_request(MRC_CMD_PATH_GET, 0, 0);
	mnl_attr_put(nlh, MRC_A_DADDR, sizeof(addr), &addr);
	return show_sets(nlh, NULL);
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} path_cmds[] = {
	/* In the order that settles a shared prefix: s is show. */
	{ "add", path_add },
	{ "delete", path_del },
	{ "show", path_show },
	{ "get", path_get },
	{ "set", path_set },
	{ "flush", path_flush },
};

int do_path(int argc, char **argv)
{
	size_t i;

	if (!argc)
		return path_show(0, NULL);
	if (is_show(*argv))
		return path_show(argc - 1, argv + 1);
	for (i = 0; i < ARRAY_SIZE(path_cmds); i++)
		if (matches(*argv, path_cmds[i].name))
			return path_cmds[i].run(argc - 1, argv + 1);
	usage_error("path: unknown command \"%s\"", *argv);
}

static int pathset_set(int argc, char **argv)
{
	struct nlmsghdr *nlh;
	struct path_req r;

	parse_req(argc, argv, ARG_MIN_ACTIVE, ARG_MIN_ACTIVE, &r);
	nlh = set_request(MRC_CMD_PATHSET_SET, &r, 0);
	mnl_attr_put_u32(nlh, MRC_A_MIN_ACTIVE, r.min_active);
	nl_talk(nlh, NULL);
	return 0;
}

int do_pathset(int argc, char **argv)
{
	if (!argc)
		usage_error("pathset: missing command");
	if (matches(*argv, "set"))
		return pathset_set(argc - 1, argv + 1);
	usage_error("pathset: unknown command \"%s\"", *argv);
}

/* What a probe's reply says. */
static struct {
	bool seen;
	u32 id;
	u32 rtt_us;
} probe_reply;

static void probe_cb(const struct nlmsghdr *nlh)
{
	static const int policy[MRC_A_MAX + 1] = {
		[MRC_A_PATH_ID] = sizeof(u32),
		[MRC_A_RTT_US] = sizeof(u32),
	};
	const struct nlattr *tb[MRC_A_MAX + 1];

	nl_parse_msg(nlh, policy, MRC_A_MAX, tb);
	if (!tb[MRC_A_PATH_ID] || !tb[MRC_A_RTT_US])
		nl_fail("malformed reply from the kernel (probe without id or rtt)");
	probe_reply.seen = true;
	probe_reply.id = mnl_attr_get_u32(tb[MRC_A_PATH_ID]);
	probe_reply.rtt_us = mnl_attr_get_u32(tb[MRC_A_RTT_US]);
}

/* The words of the command line that a probe's attributes came from. */
static void probe_attr_name(const struct nlattr *a, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN];

	switch (mnl_attr_get_type(a)) {
	case MRC_A_PATH_ID:
		if (mnl_attr_get_payload_len(a) == sizeof(u32))
			snprintf(buf, len, "id %u", mnl_attr_get_u32(a));
		break;
	case MRC_A_TIMEOUT_MS:
		if (mnl_attr_get_payload_len(a) == sizeof(u32))
			snprintf(buf, len, "timeout %u", mnl_attr_get_u32(a));
		break;
	case MRC_A_DADDR:
		if (mnl_attr_get_payload_len(a) == sizeof(struct in6_addr) &&
		    inet_ntop(AF_INET6, mnl_attr_get_payload(a), addr, sizeof(addr)))
			snprintf(buf, len, "dst %s", addr);
		break;
	}
}

/* mrc probe PREFIX id ID [dst ADDR] [timeout MS]: one probe, its RTT. */
int do_probe(int argc, char **argv)
{
	char prefix[PREFIX_STRLEN], addr[INET6_ADDRSTRLEN];
	struct nlmsghdr *nlh;
	struct path_req r;

	parse_req(argc, argv, ARG_ID | ARG_DST | ARG_TIMEOUT, ARG_ID, &r);
	nlh = set_request(MRC_CMD_PROBE, &r, 0);
	mnl_attr_put_u32(nlh, MRC_A_PATH_ID, r.id);
	if (r.seen & ARG_DST)
		mnl_attr_put(nlh, MRC_A_DADDR, sizeof(r.dst), &r.dst);
	if (r.seen & ARG_TIMEOUT)
		mnl_attr_put_u32(nlh, MRC_A_TIMEOUT_MS, r.timeout);
	probe_reply.seen = false;
	nl_talk_named(nlh, probe_cb, probe_attr_name);
	if (!probe_reply.seen)
		nl_fail("malformed reply from the kernel (no probe result)");

	format_prefix(prefix, &r.prefix, r.plen);
	open_json_object(NULL);
	print_string(PRINT_ANY, "prefix", "probe %s", prefix);
	print_u64(PRINT_ANY, "id", " id %llu", probe_reply.id);
	if (r.seen & ARG_DST) {
		inet_ntop(AF_INET6, &r.dst, addr, sizeof(addr));
		print_string(PRINT_ANY, "dst", " dst %s", addr);
	}
	print_u64(PRINT_ANY, "rtt_us", ": rtt %llu us", probe_reply.rtt_us);
	print_nl();
	close_json_object();
	return 0;
}
