// SPDX-License-Identifier: GPL-2.0
/*
 * mrc stats: the namespace's counters, the same names and values as
 * /proc/net/mrc_stat; with -j one object of name: value. mrc stats delta,
 * as nstat(8) does: only what changed since the last mrc stats delta in
 * this namespace, by how much, with the values kept in a history file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mrc.h"

/* Names of /proc/net/mrc_stat are short identifiers. */
#define STAT_NAME_MAX	64

struct stat_val {
	char name[STAT_NAME_MAX];
	u64 val;
};

static struct {
	struct stat_val *v;
	size_t n;
	size_t cap;
} cur;

static void stat_add(const char *name, u64 val)
{
	if (cur.n == cur.cap) {
		cur.cap = cur.cap ? 2 * cur.cap : 128;
		cur.v = realloc(cur.v, cur.cap * sizeof(*cur.v));
		if (!cur.v)
			nl_fail("out of memory");
	}
	snprintf(cur.v[cur.n].name, STAT_NAME_MAX, "%s", name);
	cur.v[cur.n++].val = val;
}

static void stats_cb(const struct nlmsghdr *nlh)
{
	static const int policy[MRC_SA_MAX + 1] = {
		[MRC_SA_NAME] = NL_STRING,
		[MRC_SA_VALUE] = sizeof(u64),
	};
	const struct nlattr *tb[MRC_SA_MAX + 1], *a;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) != MRC_A_STAT)
			continue;
		nl_check(a, NL_NEST);
		nl_parse_nest(a, policy, MRC_SA_MAX, tb);
		if (!tb[MRC_SA_NAME] || !tb[MRC_SA_VALUE])
			nl_fail("malformed reply from the kernel (counter without name or value)");
		stat_add(mnl_attr_get_str(tb[MRC_SA_NAME]),
			 mnl_attr_get_u64(tb[MRC_SA_VALUE]));
	}
}

/* $MRC_STATS_HISTORY, else one file per user and network namespace. */
static void history_path(char *buf, size_t len)
{
	const char *env = getenv("MRC_STATS_HISTORY");
	struct stat st;

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return;
	}
	if (stat("/proc/self/ns/net", &st))
		nl_fail("cannot stat /proc/self/ns/net: %s", strerror(errno));
	snprintf(buf, len, "/tmp/.mrc_stats.u%u.%llu", (unsigned int)getuid(),
		 (unsigned long long)st.st_ino);
}

/* The value of @name in the history, 0 if it has none. */
static u64 history_val(const struct stat_val *h, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(h[i].name, name))
			return h[i].val;
	return 0;
}

/* Print what changed since the history, then make the values it. */
static void stats_delta(void)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	struct stat_val *h = NULL;
	size_t n = 0, cap = 0, i;
	char name[STAT_NAME_MAX];
	unsigned long long v;
	FILE *f;
	int fd;

	history_path(path, sizeof(path));
	f = fopen(path, "r");
	if (!f && errno != ENOENT)
		nl_fail("cannot open \"%s\": %s", path, strerror(errno));
	while (f && fscanf(f, "%63s %llu", name, &v) == 2) {
		if (n == cap) {
			cap = cap ? 2 * cap : 128;
			h = realloc(h, cap * sizeof(*h));
			if (!h)
				nl_fail("out of memory");
		}
		snprintf(h[n].name, STAT_NAME_MAX, "%s", name);
		h[n++].val = v;
	}
	if (f)
		fclose(f);

	for (i = 0; i < cur.n; i++) {
		u64 old = history_val(h, n, cur.v[i].name), d;

		/* Below the history: the module was loaded again since. */
		d = cur.v[i].val >= old ? cur.v[i].val - old : cur.v[i].val;
		if (!d)
			continue;
		print_string(PRINT_FP, NULL, "%-24s ", cur.v[i].name);
		print_u64(PRINT_ANY, cur.v[i].name, "%llu", d);
		print_nl();
	}
	free(h);

	/* A whole new file in its place, so that a reader never sees half.
	 * The history lives in /tmp under a name anyone can guess: create
	 * the new file with a name nobody could have planted a link at
	 * (mkstemp: O_EXCL), and rename() replaces a link, never its target.
	 */
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f)
		nl_fail("cannot write \"%s\": %s", tmp, strerror(errno));
	for (i = 0; i < cur.n; i++)
		fprintf(f, "%s %llu\n", cur.v[i].name, cur.v[i].val);
	if (fclose(f) || rename(tmp, path)) {
		int err = errno;

		unlink(tmp);
		nl_fail("cannot write \"%s\": %s", path, strerror(err));
	}
}

int do_stats(int argc, char **argv)
{
	struct nlmsghdr *nlh;
	bool delta = false;
	size_t i;

	if (argc && is_show(*argv)) {
		argc--;
		argv++;
	} else if (argc && matches(*argv, "delta")) {
		delta = true;
		argc--;
		argv++;
	}
	if (argc)
		usage_error("unknown argument \"%s\"", *argv);
	nlh = nl_request(MRC_CMD_STATS_GET, 0, 0);
	nl_talk(nlh, stats_cb);
	open_json_object(NULL);
	if (delta) {
		stats_delta();
	} else {
		for (i = 0; i < cur.n; i++) {
			print_string(PRINT_FP, NULL, "%-24s ", cur.v[i].name);
			print_u64(PRINT_ANY, cur.v[i].name, "%llu", cur.v[i].val);
			print_nl();
		}
	}
	close_json_object();
	free(cur.v);
	return 0;
}
