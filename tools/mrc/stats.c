// SPDX-License-Identifier: GPL-2.0
/*
 * mrc stats: the namespace's counters, the same names and values as
 * /proc/net/mrc_stat; with -j one object of name: value.
 */
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "mrc.h"

static void stats_cb(const struct nlmsghdr *nlh)
{
	static const int policy[MRC_SA_MAX + 1] = {
		[MRC_SA_NAME] = NL_STRING,
		[MRC_SA_VALUE] = sizeof(u64),
	};
	const struct nlattr *tb[MRC_SA_MAX + 1], *a;
	const char *name;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) != MRC_A_STAT)
			continue;
		nl_check(a, NL_NEST);
		nl_parse_nest(a, policy, MRC_SA_MAX, tb);
		if (!tb[MRC_SA_NAME] || !tb[MRC_SA_VALUE])
			nl_fail("malformed reply from the kernel (counter without name or value)");
		name = mnl_attr_get_str(tb[MRC_SA_NAME]);
		print_string(PRINT_FP, NULL, "%-24s ", name);
		print_u64(PRINT_ANY, name, "%llu", mnl_attr_get_u64(tb[MRC_SA_VALUE]));
		print_nl();
	}
}

int do_stats(int argc, char **argv)
{
	struct nlmsghdr *nlh;

	if (argc)
		usage_error("unknown argument \"%s\"", *argv);
	nlh = nl_request(MRC_CMD_STATS_GET, 0, 0);
	open_json_object(NULL);
	nl_talk(nlh, stats_cb);
	close_json_object();
	return 0;
}
