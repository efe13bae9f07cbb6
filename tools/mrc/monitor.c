// SPDX-License-Identifier: GPL-2.0
/*
 * mrc monitor: a line, or a JSON object, for every path state change and
 * every connection opened or closed that the kernel multicasts to the
 * "events" group, flushed at once so that a reader on the other end of a
 * pipe sees each event as it happens. mrc monitor path, or conn, shows
 * only those; -timestamp and -tshort say when each event was read.
 */
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <string.h>
#include <time.h>

#include "mrc.h"

/* The objects whose events are shown: bits of 1 << MRC_CMD_*_EVENT. */
static unsigned int shown;

/* -timestamp: a line before the event; -tshort: its start; JSON: a member. */
static void print_time(void)
{
	char date[64], iso[ISO_TIME_LEN];
	struct tm tm;
	long usec;

	if (!opts.timestamp && !opts.tshort)
		return;
	time_iso(iso, sizeof(iso), &tm, &usec);
	print_string(PRINT_JSON, "timestamp", NULL, iso);
	if (opts.json)
		return;
	if (opts.tshort) {
		printf("[%s] ", iso);
		return;
	}
	strftime(date, sizeof(date), "%a %b %e %H:%M:%S %Y", &tm);
	printf("Timestamp: %s %06ld usec\n", date, usec);
}

static void conn_event(const struct nlmsghdr *nlh)
{
	static const int policy[MRC_A_MAX + 1] = {
		[MRC_A_CONN] = NL_NEST,
		[MRC_A_ERRNO] = sizeof(u32),
	};
	const struct nlattr *tb[MRC_A_MAX + 1];
	u32 err = 0;

	nl_parse_msg(nlh, policy, MRC_A_MAX, tb);
	if (!tb[MRC_A_CONN])
		nl_fail("malformed event from the kernel");
	if (tb[MRC_A_ERRNO])
		err = mnl_attr_get_u32(tb[MRC_A_ERRNO]);
	open_json_object(NULL);
	print_time();
	print_string(PRINT_ANY, "event", "%s ", "conn");
	print_conn(tb[MRC_A_CONN]);
	print_u64(PRINT_JSON, "errno", NULL, err);
	if (err)
		print_string(PRINT_FP, NULL, " (%s)", strerror(err));
	print_nl();
	close_json_object();
	fflush(stdout);
}

static void event_cb(const struct nlmsghdr *nlh)
{
	static const int policy[MRC_A_MAX + 1] = {
		[MRC_A_PREFIX] = sizeof(struct in6_addr),
		[MRC_A_PREFIX_LEN] = sizeof(u8),
		[MRC_A_PATH_ID] = sizeof(u32),
		[MRC_A_STATE] = sizeof(u8),
		[MRC_A_OLD_STATE] = sizeof(u8),
		[MRC_A_REASON] = sizeof(u8),
	};
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[MRC_A_MAX + 1];
	char prefix[PREFIX_STRLEN], num[16];
	u8 old = 0, reason = 0;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*genl) ||
	    genl->cmd >= 32 || !(shown & 1U << genl->cmd))
		return;
	if (genl->cmd == MRC_CMD_CONN_EVENT) {
		conn_event(nlh);
		return;
	}
	if (genl->cmd != MRC_CMD_PATH_EVENT)
		return;
	nl_parse_msg(nlh, policy, MRC_A_MAX, tb);
	if (!tb[MRC_A_PREFIX] || !tb[MRC_A_PREFIX_LEN] || !tb[MRC_A_PATH_ID] ||
	    !tb[MRC_A_STATE])
		nl_fail("malformed event from the kernel");
	if (tb[MRC_A_OLD_STATE])
		old = mnl_attr_get_u8(tb[MRC_A_OLD_STATE]);
	if (tb[MRC_A_REASON])
		reason = mnl_attr_get_u8(tb[MRC_A_REASON]);
	format_prefix(prefix, mnl_attr_get_payload(tb[MRC_A_PREFIX]),
		      mnl_attr_get_u8(tb[MRC_A_PREFIX_LEN]));

	open_json_object(NULL);
	print_time();
	print_string(PRINT_ANY, "event", "%s", "path");
	print_string(PRINT_ANY, "prefix", " %s", prefix);
	print_u64(PRINT_ANY, "id", " id %llu", mnl_attr_get_u32(tb[MRC_A_PATH_ID]));
	print_string(PRINT_ANY, "old_state", " %s",
		     keyword_name(path_states, old, num, sizeof(num)));
	print_string(PRINT_ANY, "state", " -> %s",
		     keyword_name(path_states, mnl_attr_get_u8(tb[MRC_A_STATE]),
				  num, sizeof(num)));
	print_string(PRINT_ANY, "reason", " (%s)",
		     keyword_name(path_reasons, reason, num, sizeof(num)));
	print_nl();
	close_json_object();
	fflush(stdout);
}

/* mrc monitor [ all | OBJECT... ]: with none named, all of them. */
int do_monitor(int argc, char **argv)
{
	for (; argc; argc--, argv++) {
		if (matches(*argv, "all"))
			shown = ~0U;
		else if (matches(*argv, "path"))
			shown |= 1U << MRC_CMD_PATH_EVENT;
		else if (matches(*argv, "conn"))
			shown |= 1U << MRC_CMD_CONN_EVENT;
		else
			usage_error("monitor: unknown object \"%s\"", *argv);
	}
	if (!shown)
		shown = ~0U;
	nl_listen_events(event_cb);
}
