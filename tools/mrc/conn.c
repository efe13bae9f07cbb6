// SPDX-License-Identifier: GPL-2.0
/*
 * mrc conn show: the namespace's connections, the way ss shows TCP's:
 * addresses, ids, state, the counters of getsockopt(MRC_INFO), and the
 * paths each sprays over with their counters; with -d, the owner.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mrc.h"

static const struct keyword conn_states[] = {
	{ "listen", MRC_LISTEN },
	{ "syn-sent", MRC_SYN_SENT },
	{ "syn-recv", MRC_SYN_RECV },
	{ "established", MRC_ESTABLISHED },
	{ NULL, 0 },
};

/* What conn show lists can be in: a listener has no connection id. */
static const struct keyword filter_states[] = {
	{ "syn-sent", MRC_SYN_SENT },
	{ "syn-recv", MRC_SYN_RECV },
	{ "established", MRC_ESTABLISHED },
	{ NULL, 0 },
};

/* The u32 and u64 values, in the order they are printed: the first five
 * are gauges, the rest counters (in interval mode, their change).
 */
#define CONN_GAUGES	5
static const struct {
	int attr;
	const char *key;
	const char *fmt;
} conn_counters[] = {
	{ MRC_CA_LOCAL_CID, "local_cid", " cid %llu" },
	{ MRC_CA_REMOTE_CID, "remote_cid", "/%llu" },
	{ MRC_CA_MSS, "mss", " mss %llu" },
	{ MRC_CA_SRTT_US, "srtt_us", " srtt %lluus" },
	{ MRC_CA_CWND, "cwnd", " cwnd %llu" },
	{ MRC_CA_BYTES_SENT, "bytes_sent", " sent %llu" },
	{ MRC_CA_BYTES_ACKED, "bytes_acked", " acked %llu" },
	{ MRC_CA_BYTES_RECEIVED, "bytes_received", " received %llu" },
	{ MRC_CA_PKTS_RETRANS, "pkts_retrans", " retrans %llu" },
	{ MRC_CA_RTOS, "rtos", " rtos %llu" },
	/* What held the sender back (absent from an older module). */
	{ MRC_CA_BUSY_US, "busy_us", " busy %lluus" },
	{ MRC_CA_APP_LIMITED_US, "app_limited_us", " app_limited %lluus" },
	{ MRC_CA_CWND_LIMITED_US, "cwnd_limited_us", " cwnd_limited %lluus" },
	{ MRC_CA_WND_LIMITED_US, "wnd_limited_us", " wnd_limited %lluus" },
	{ MRC_CA_RWND_LIMITED_US, "rwnd_limited_us", " rwnd_limited %lluus" },
	{ MRC_CA_SNDBUF_LIMITED_US, "sndbuf_limited_us", " sndbuf_limited %lluus" },
};

/**
 * struct sock_user - a process's file descriptor that is a socket
 * @ino: the socket's inode
 * @pid: the process
 * @fd: the descriptor
 * @comm: the process's name
 */
struct sock_user {
	u64 ino;
	int pid;
	int fd;
	char comm[32];
};

/* Every socket descriptor of every process, by inode, as ss -p finds
 * them: read once, on the first connection printed with -d.
 */
static struct {
	struct sock_user *u;
	size_t n;
	bool loaded;
} users;

static int user_cmp(const void *a, const void *b)
{
	const struct sock_user *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->pid != y->pid ? (x->pid < y->pid ? -1 : 1) : x->fd - y->fd;
}

static void users_add_proc(int pid)
{
	char path[64], link[64], comm[32] = "";
	struct sock_user *u;
	struct dirent *de;
	unsigned long long ino;
	DIR *d;
	FILE *f;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
		comm[strcspn(comm, "\n")] = 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	d = opendir(path);
	if (!d)
		return;	/* gone, or not ours to read */
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/%.16s", pid, de->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		if (sscanf(link, "socket:[%llu]", &ino) != 1)
			continue;
		u = realloc(users.u, (users.n + 1) * sizeof(*u));
		if (!u)
			break;
		users.u = u;
		u += users.n++;
		u->ino = ino;
		u->pid = pid;
		u->fd = atoi(de->d_name);
		snprintf(u->comm, sizeof(u->comm), "%s", comm);
	}
	closedir(d);
}

static void users_load(void)
{
	struct dirent *de;
	DIR *d;

	users.loaded = true;
	d = opendir("/proc");
	if (!d)
		return;
	while ((de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]))
			users_add_proc(atoi(de->d_name));
	closedir(d);
	qsort(users.u, users.n, sizeof(*users.u), user_cmp);
}

/* users:(("comm",pid=N,fd=N),...) as ss prints it; a "users" array. */
static void print_users(u64 ino)
{
	size_t lo = 0, hi, i;
	bool first = true;

	if (!users.loaded)
		users_load();
	/* The first entry of the inode: a lower bound search. */
	hi = users.n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (users.u[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	open_json_array("users");
	for (i = lo; i < users.n && users.u[i].ino == ino; i++) {
		const struct sock_user *u = &users.u[i];

		open_json_object(NULL);
		print_string(PRINT_JSON, "comm", NULL, u->comm);
		print_u64(PRINT_JSON, "pid", NULL, u->pid);
		print_u64(PRINT_JSON, "fd", NULL, u->fd);
		close_json_object();
		if (!opts.json)
			printf("%s(\"%s\",pid=%d,fd=%d)", first ? " users:(" : ",",
			       u->comm, u->pid, u->fd);
		first = false;
	}
	if (!first && !opts.json)
		putchar(')');
	close_json_array();
}

static void print_end(const struct nlattr *addr, const struct nlattr *port,
		      const char *akey, const char *pkey, const char *fmt)
{
	char buf[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, mnl_attr_get_payload(addr), buf, sizeof(buf));
	print_string(PRINT_JSON, akey, NULL, buf);
	print_u64(PRINT_JSON, pkey, NULL, mnl_attr_get_u16(port));
	if (fmt) {
		char end[INET6_ADDRSTRLEN + 8];

		snprintf(end, sizeof(end), "[%s]:%u", buf, mnl_attr_get_u16(port));
		print_string(PRINT_FP, NULL, fmt, end);
	}
}

/**
 * print_conn() - one connection (an MRC_A_CONN nest), as text or JSON
 * @nest: the nest
 *
 * Used by conn show and by monitor for connection events; the caller
 * opens and closes the JSON object.
 */
void print_conn(const struct nlattr *nest)
{
	static const int policy[MRC_CA_MAX + 1] = {
		[MRC_CA_LOCAL_CID] = sizeof(u32),
		[MRC_CA_REMOTE_CID] = sizeof(u32),
		[MRC_CA_STATE] = sizeof(u8),
		[MRC_CA_SADDR] = sizeof(struct in6_addr),
		[MRC_CA_DADDR] = sizeof(struct in6_addr),
		[MRC_CA_SPORT] = sizeof(u16),
		[MRC_CA_DPORT] = sizeof(u16),
		[MRC_CA_MSS] = sizeof(u32),
		[MRC_CA_SRTT_US] = sizeof(u32),
		[MRC_CA_CWND] = sizeof(u32),
		[MRC_CA_BYTES_SENT] = sizeof(u64),
		[MRC_CA_BYTES_ACKED] = sizeof(u64),
		[MRC_CA_BYTES_RECEIVED] = sizeof(u64),
		[MRC_CA_PKTS_RETRANS] = sizeof(u64),
		[MRC_CA_RTOS] = sizeof(u64),
		[MRC_CA_BUSY_US] = sizeof(u64),
		[MRC_CA_APP_LIMITED_US] = sizeof(u64),
		[MRC_CA_CWND_LIMITED_US] = sizeof(u64),
		[MRC_CA_WND_LIMITED_US] = sizeof(u64),
		[MRC_CA_RWND_LIMITED_US] = sizeof(u64),
		[MRC_CA_SNDBUF_LIMITED_US] = sizeof(u64),
		[MRC_CA_UID] = sizeof(u32),
		[MRC_CA_INODE] = sizeof(u64),
	};
	enum print_type owner = opts.details ? PRINT_ANY : PRINT_JSON;
	const struct nlattr *tb[MRC_CA_MAX + 1];
	char num[16];
	size_t i;
	u8 state;

	nl_check(nest, NL_NEST);
	nl_parse_nest(nest, policy, MRC_CA_MAX, tb);
	for (i = 1; i <= MRC_CA_RTOS; i++)
		if (!tb[i])
			nl_fail("malformed reply from the kernel (incomplete connection)");
	delta_scope("c%u", mnl_attr_get_u32(tb[MRC_CA_LOCAL_CID]));
	print_end(tb[MRC_CA_SADDR], tb[MRC_CA_SPORT], "saddr", "sport", "%s");
	print_end(tb[MRC_CA_DADDR], tb[MRC_CA_DPORT], "daddr", "dport", " %s");
	state = mnl_attr_get_u8(tb[MRC_CA_STATE]);
	/* The keyword table ends at value 0, which is MRC_CLOSED here. */
	print_string(PRINT_ANY, "state", " %s", state == MRC_CLOSED ? "closed" :
		     keyword_name(conn_states, state, num, sizeof(num)));
	for (i = 0; i < ARRAY_SIZE(conn_counters); i++) {
		const struct nlattr *c = tb[conn_counters[i].attr];
		enum print_type t = i < CONN_GAUGES || opts.stats ? PRINT_ANY : PRINT_JSON;
		u64 v;

		if (!c)
			continue;
		v = mnl_attr_get_payload_len(c) == sizeof(u64) ?
		    mnl_attr_get_u64(c) : mnl_attr_get_u32(c);
		if (i >= CONN_GAUGES)
			v = delta_of(conn_counters[i].key, v);
		print_u64(t, conn_counters[i].key, conn_counters[i].fmt, v);
	}
	/* Only a dump has the owner (an older module: none). */
	if (tb[MRC_CA_UID])
		print_u64(owner, "uid", " uid %llu", mnl_attr_get_u32(tb[MRC_CA_UID]));
	if (tb[MRC_CA_INODE]) {
		u64 ino = mnl_attr_get_u64(tb[MRC_CA_INODE]);

		print_u64(owner, "inode", " ino %llu", ino);
		if (opts.details && ino)
			print_users(ino);
	}
}

/**
 * struct conn_show - where the output of conn show is
 * @in_conn: a connection is printed (its JSON object and paths array open)
 * @skipping: a connection the filter leaves out is being passed over
 * @lcid: the local connection id of either
 *
 * A connection with more paths than fit one message continues in the
 * next, so a message about the connection just printed (or passed over)
 * adds paths to it.
 */
static struct conn_show {
	bool in_conn;
	bool skipping;
	u32 lcid;
} show;

/* One of a connection's paths (an MRC_CA_PATH nest): a line with -s. */
static void print_conn_path(const struct nlattr *nest)
{
	static const int policy[MRC_PA_MAX + 1] = {
		[MRC_PA_ID] = sizeof(u32),
		[MRC_PA_STATE] = sizeof(u8),
		[MRC_PA_STATS] = NL_NEST,
	};
	enum print_type t = opts.stats ? PRINT_ANY : PRINT_JSON;
	const struct nlattr *tb[MRC_PA_MAX + 1];
	char num[16];

	nl_check(nest, NL_NEST);
	nl_parse_nest(nest, policy, MRC_PA_MAX, tb);
	if (!tb[MRC_PA_ID] || !tb[MRC_PA_STATE])
		nl_fail("malformed reply from the kernel (path without id or state)");
	open_json_object(NULL);
	print_u64(t, "id", "\tid %llu", mnl_attr_get_u32(tb[MRC_PA_ID]));
	delta_scope("c%u/p%u", show.lcid, mnl_attr_get_u32(tb[MRC_PA_ID]));
	print_string(t, "state", " state %s",
		     keyword_name(path_states, mnl_attr_get_u8(tb[MRC_PA_STATE]),
				  num, sizeof(num)));
	if (tb[MRC_PA_STATS])
		print_path_stats(tb[MRC_PA_STATS], t, " ");
	if (opts.stats)
		print_nl();
	close_json_object();
}

/**
 * struct conn_filter - which connections conn show prints
 * @src: with @src_len, the local address must be in this prefix
 * @dst: with @dst_len, the peer's address must be in this prefix
 * @src_len: prefix length of @src, or -1 for any address
 * @dst_len: prefix length of @dst, or -1 for any address
 * @sport: the local port, or -1 for any
 * @dport: the peer's port, or -1 for any
 * @state: the state (MRC_LISTEN ...), or -1 for any
 */
static struct conn_filter {
	struct in6_addr src;
	struct in6_addr dst;
	int src_len;
	int dst_len;
	int sport;
	int dport;
	int state;
} filter = { .src_len = -1, .dst_len = -1, .sport = -1, .dport = -1, .state = -1 };

static bool in_prefix(const struct nlattr *a, const struct in6_addr *prefix,
		      int len)
{
	const u8 *x = mnl_attr_get_payload(a), *p = prefix->s6_addr;
	int bytes = len / 8, bits = len % 8;

	if (len < 0)
		return true;
	if (memcmp(x, p, bytes))
		return false;
	return !bits || !((x[bytes] ^ p[bytes]) & (0xff << (8 - bits)));
}

/* Does the connection (an MRC_A_CONN nest) pass the filter? */
static bool conn_wanted(const struct nlattr *nest)
{
	static const int policy[MRC_CA_MAX + 1] = {
		[MRC_CA_STATE] = sizeof(u8),
		[MRC_CA_SADDR] = sizeof(struct in6_addr),
		[MRC_CA_DADDR] = sizeof(struct in6_addr),
		[MRC_CA_SPORT] = sizeof(u16),
		[MRC_CA_DPORT] = sizeof(u16),
	};
	const struct nlattr *tb[MRC_CA_MAX + 1];

	nl_parse_nest(nest, policy, MRC_CA_MAX, tb);
	if (!tb[MRC_CA_STATE] || !tb[MRC_CA_SADDR] || !tb[MRC_CA_DADDR] ||
	    !tb[MRC_CA_SPORT] || !tb[MRC_CA_DPORT])
		nl_fail("malformed reply from the kernel (incomplete connection)");
	return in_prefix(tb[MRC_CA_SADDR], &filter.src, filter.src_len) &&
	       in_prefix(tb[MRC_CA_DADDR], &filter.dst, filter.dst_len) &&
	       (filter.sport < 0 || mnl_attr_get_u16(tb[MRC_CA_SPORT]) == filter.sport) &&
	       (filter.dport < 0 || mnl_attr_get_u16(tb[MRC_CA_DPORT]) == filter.dport) &&
	       (filter.state < 0 || mnl_attr_get_u8(tb[MRC_CA_STATE]) == filter.state);
}

static void show_end_conn(void)
{
	if (!show.in_conn)
		return;
	close_json_array();
	close_json_object();
	show.in_conn = false;
}

/* A line for the connection, unless it continues, then its paths. */
static void conn_cb(const struct nlmsghdr *nlh)
{
	static const int policy[MRC_CA_MAX + 1] = {
		[MRC_CA_LOCAL_CID] = sizeof(u32),
		[MRC_CA_NR_PATHS] = sizeof(u32),
		[MRC_CA_AUTO] = NL_FLAG,
	};
	enum print_type t = opts.stats ? PRINT_ANY : PRINT_JSON;
	const struct nlattr *tb[MRC_CA_MAX + 1], *a, *p;
	u32 lcid;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) != MRC_A_CONN)
			continue;
		nl_check(a, NL_NEST);
		nl_parse_nest(a, policy, MRC_CA_MAX, tb);
		if (!tb[MRC_CA_LOCAL_CID])
			nl_fail("malformed reply from the kernel (incomplete connection)");
		lcid = mnl_attr_get_u32(tb[MRC_CA_LOCAL_CID]);
		if (show.skipping && lcid == show.lcid)
			continue;
		if (!show.in_conn || lcid != show.lcid) {
			show_end_conn();
			show.skipping = !conn_wanted(a);
			show.lcid = lcid;
			if (show.skipping)
				continue;
			open_json_object(NULL);
			print_conn(a);
			/* One not yet connected sprays over nothing: 0. */
			print_u64(t, "nr_paths", " paths %llu", tb[MRC_CA_NR_PATHS] ?
				  mnl_attr_get_u32(tb[MRC_CA_NR_PATHS]) : 0);
			print_bool(t, "auto", " auto", tb[MRC_CA_AUTO]);
			print_nl();
			open_json_array("paths");
			show.in_conn = true;
			show.lcid = lcid;
		}
		mnl_attr_for_each_nested(p, a)
			if (mnl_attr_get_type(p) == MRC_CA_PATH)
				print_conn_path(p);
	}
}

/* A port: 1 to 65535. */
static int parse_port(const char *arg, const char *what)
{
	u32 v = parse_u32(arg, what);

	if (!v || v > 65535)
		usage_error("invalid %s \"%s\": 1 to 65535", what, arg);
	return v;
}

/* The words after conn show: the filter, each keyword once. */
static void parse_filter(int argc, char **argv)
{
	unsigned int seen = 0, bit;
	u8 len;

	for (; argc; argc--, argv++) {
		const char *kw = *argv, *val;

		if (!strcmp(kw, "src"))
			bit = 1;
		else if (!strcmp(kw, "dst"))
			bit = 2;
		else if (!strcmp(kw, "sport"))
			bit = 4;
		else if (!strcmp(kw, "dport"))
			bit = 8;
		else if (!strcmp(kw, "state"))
			bit = 16;
		else
			usage_error("unknown argument \"%s\"", kw);
		if (seen & bit)
			usage_error("duplicate \"%s\"", kw);
		seen |= bit;
		val = next_arg(&argc, &argv, kw);
		switch (bit) {
		case 1:
			parse_prefix(val, &filter.src, &len);
			filter.src_len = len;
			break;
		case 2:
			parse_prefix(val, &filter.dst, &len);
			filter.dst_len = len;
			break;
		case 4:
			filter.sport = parse_port(val, "sport");
			break;
		case 8:
			filter.dport = parse_port(val, "dport");
			break;
		default:
			filter.state = parse_keyword(filter_states, val, "state");
		}
	}
}

/* One dump of the connections, as an array under @key (or at the top). */
static void conn_sample(const char *key)
{
	struct nlmsghdr *nlh;

	memset(&show, 0, sizeof(show));
	nlh = nl_request(MRC_CMD_CONN_GET, NLM_F_DUMP, 0);
	open_json_array(key);
	nl_talk(nlh, conn_cb);
	show_end_conn();
	close_json_array();
}

/* mrc conn show [src PREFIX] [dst PREFIX] [sport PORT] [dport PORT]
 * [state STATE] [interval SECONDS [count N]]: the connections that match
 * all that is given.
 */
int do_conn(int argc, char **argv)
{
	struct interval iv = { 0 };

	if (argc && is_help(*argv))
		usage(stdout, 0);
	if (argc && !is_show(*argv))
		usage_error("conn: unknown command \"%s\"", *argv);
	if (argc) {
		argc--;
		argv++;
		interval_parse(&argc, argv, &iv);
		parse_filter(argc, argv);
	}
	if (iv.secs)
		interval_run(&iv, "conns", conn_sample);
	else
		conn_sample(NULL);
	return 0;
}
