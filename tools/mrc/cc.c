// SPDX-License-Identifier: GPL-2.0
/*
 * mrc cc ...: the namespace's congestion-control settings. One table names
 * each setting for cc set, for the text of cc show (the same words, so
 * that "mrc cc set $(mrc cc show)" puts them back) and for its JSON. The
 * kernel judges the values, their ranges and qa-delay against
 * target-delay, so its messages are what users see.
 */
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "mrc.h"

static const struct {
	const char *name;
	const char *key;
	int attr;
} cc_settings[] = {
	{ "base-rtt", "base_rtt_us", MRC_CC_BASE_RTT_US },
	{ "target-delay", "target_delay_us", MRC_CC_TARGET_DELAY_US },
	{ "max-cwnd", "max_cwnd", MRC_CC_MAX_CWND },
	{ "ai", "ai", MRC_CC_AI },
	{ "fi", "fi", MRC_CC_FI },
	{ "md", "md", MRC_CC_MD },
	{ "qa-delay", "qa_delay_us", MRC_CC_QA_DELAY_US },
	{ "ecn-cooldown", "ecn_cooldown_us", MRC_CC_ECN_COOLDOWN_US },
};

/* The settings in table order: "word value" pairs, or one JSON object. */
static void show_cb(const struct nlmsghdr *nlh)
{
	static const int policy[MRC_A_MAX + 1] = {
		[MRC_A_CC] = NL_NEST,
	};
	const struct nlattr *tb[MRC_A_MAX + 1], *cc[MRC_CC_MAX + 1];
	int cc_policy[MRC_CC_MAX + 1] = { 0 };
	const char *sep = "";
	char fmt[32];
	size_t i;

	nl_parse_msg(nlh, policy, MRC_A_MAX, tb);
	if (!tb[MRC_A_CC])
		nl_fail("malformed reply from the kernel (no settings)");
	for (i = 0; i < ARRAY_SIZE(cc_settings); i++)
		cc_policy[cc_settings[i].attr] = sizeof(u32);
	nl_parse_nest(tb[MRC_A_CC], cc_policy, MRC_CC_MAX, cc);
	for (i = 0; i < ARRAY_SIZE(cc_settings); i++) {
		if (!cc[cc_settings[i].attr])
			continue;
		snprintf(fmt, sizeof(fmt), "%s%s %%llu", sep, cc_settings[i].name);
		print_u64(PRINT_ANY, cc_settings[i].key, fmt,
			  mnl_attr_get_u32(cc[cc_settings[i].attr]));
		sep = " ";
	}
	print_nl();
}

static int cc_show(int argc, char **argv)
{
	struct nlmsghdr *nlh;

	if (argc && is_help(*argv))
		usage(stdout, 0);
	if (argc)
		usage_error("unknown argument \"%s\"", *argv);
	nlh = nl_request(MRC_CMD_CC_GET, 0, 0);
	open_json_object(NULL);
	nl_talk(nlh, show_cb);
	close_json_object();
	return 0;
}

/* The request holds only the settings' nest, so a type names a setting. */
static void cc_attr_name(const struct nlattr *a, char *buf, size_t len)
{
	size_t i;

	if (mnl_attr_get_payload_len(a) != sizeof(u32))
		return;
	for (i = 0; i < ARRAY_SIZE(cc_settings); i++)
		if (cc_settings[i].attr == mnl_attr_get_type(a))
			snprintf(buf, len, "%s %u", cc_settings[i].name,
				 mnl_attr_get_u32(a));
}

static int cc_set(int argc, char **argv)
{
	u32 val[ARRAY_SIZE(cc_settings)];
	unsigned int seen = 0;
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	size_t i;

	if (!argc)
		usage_error("cc set: missing setting");
	for (; argc; argc--, argv++) {
		if (is_help(*argv))
			usage(stdout, 0);
		for (i = 0; i < ARRAY_SIZE(cc_settings); i++)
			if (!strcmp(*argv, cc_settings[i].name))
				break;
		if (i == ARRAY_SIZE(cc_settings))
			usage_error("unknown argument \"%s\"", *argv);
		if (seen & 1U << i)
			usage_error("duplicate \"%s\"", *argv);
		seen |= 1U << i;
		val[i] = parse_u32(next_arg(&argc, &argv, cc_settings[i].name),
				   cc_settings[i].name);
	}
	nlh = nl_request(MRC_CMD_CC_SET, 0, ARRAY_SIZE(cc_settings) *
			 MNL_ALIGN(MNL_ATTR_HDRLEN + sizeof(u32)));
	nest = mnl_attr_nest_start(nlh, MRC_A_CC);
	for (i = 0; i < ARRAY_SIZE(cc_settings); i++)
		if (seen & 1U << i)
			mnl_attr_put_u32(nlh, cc_settings[i].attr, val[i]);
	mnl_attr_nest_end(nlh, nest);
	nl_talk_named(nlh, NULL, cc_attr_name);
	return 0;
}

int do_cc(int argc, char **argv)
{
	if (!argc)
		return cc_show(0, NULL);
	if (is_show(*argv))
		return cc_show(argc - 1, argv + 1);
	if (matches(*argv, "set"))
		return cc_set(argc - 1, argv + 1);
	usage_error("cc: unknown command \"%s\"", *argv);
}
