// SPDX-License-Identifier: GPL-2.0
/*
 * q_mrctrim.c: the tc(8) syntax of the mrctrim qdisc (tc-mrctrim(8)).
 *
 * tc dlopen()s this as q_mrctrim.so from its library directory (TC_LIB_DIR
 * overrides it) and looks up mrctrim_qdisc_util. The functions it calls are
 * tc's own: the tc binary exports them. No iproute2 headers are installed,
 * so iproute2.h declares the little of iproute2 6.1.0 this file needs.
 *
 * Only the parameters given on the command line are sent: on "add" the
 * kernel's defaults (those of linux/mrc_trim.h) apply to the others, on
 * "change" they are left as they are. The kernel checks every value again.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/types.h>

#include <linux/mrc_trim.h>

#include "iproute2.h"

/* The bound on the request's length, as iproute2's own qdiscs pass it. */
#define MRCTRIM_MSG_MAX		1024

#define MRCTRIM_DSCP_MAX	63

enum mrctrim_type {
	MRCTRIM_SIZE,		/* u32 bytes, printed with a unit: 256Kb */
	MRCTRIM_BYTES,		/* u32 bytes, printed as a number: 256 */
	MRCTRIM_DSCP,		/* u8, 0 to 63 */
};

/**
 * struct mrctrim_param - one parameter of the qdisc
 * @keyword: its name on the command line and in text output
 * @json: its JSON key
 * @type: how it is parsed, sent and printed
 * @min: the least value accepted (bytes)
 * @off: 0 (or "off") turns it off, and is printed "off"
 */
struct mrctrim_param {
	const char *keyword;
	const char *json;
	enum mrctrim_type type;
	__u32 min;
	bool off;
};

/* Indexed by attribute; also the order of the output. */
static const struct mrctrim_param mrctrim_params[TCA_MRCTRIM_MAX + 1] = {
	[TCA_MRCTRIM_LIMIT] = {
		"limit", "limit", MRCTRIM_SIZE, 1, false },
	[TCA_MRCTRIM_HEADER_LIMIT] = {
		"header-limit", "header_limit", MRCTRIM_SIZE, 1, false },
	[TCA_MRCTRIM_TRIM_SIZE] = {
		"trim-size", "trim_size", MRCTRIM_BYTES,
		MRCTRIM_MIN_TRIM_SIZE, false },
	[TCA_MRCTRIM_TRIM_DSCP] = {
		"trim-dscp", "trim_dscp", MRCTRIM_DSCP, 0, false },
	[TCA_MRCTRIM_TRIMMABLE_DSCP] = {
		"trimmable-dscp", "trimmable_dscp", MRCTRIM_DSCP, 0, false },
	[TCA_MRCTRIM_ECN_THRESHOLD] = {
		"ecn-threshold", "ecn_threshold", MRCTRIM_SIZE, 0, true },
};

static void mrctrim_usage(void)
{
	fprintf(stderr,
		"Usage: ... mrctrim [ limit BYTES ] [ header-limit BYTES ]\n"
		"                   [ trim-size BYTES ] [ trim-dscp DSCP ]\n"
		"                   [ trimmable-dscp DSCP ]\n"
		"                   [ ecn-threshold BYTES | off ]\n"
		"BYTES may have a unit: b, k or kb, m or mb, g or gb (x 1024).\n"
		"DSCP is a decimal number from 0 to %d.\n"
		"Defaults: limit %uKb header-limit %uKb trim-size %u trim-dscp %u\n"
		"          trimmable-dscp %u ecn-threshold off\n",
		MRCTRIM_DSCP_MAX, MRCTRIM_DEF_LIMIT / 1024,
		MRCTRIM_DEF_HEADER_LIMIT / 1024, MRCTRIM_DEF_TRIM_SIZE,
		MRCTRIM_DEF_TRIM_DSCP, MRCTRIM_DEF_TRIMMABLE_DSCP);
}

static int mrctrim_find(const char *keyword)
{
	int i;

	for (i = 1; i <= TCA_MRCTRIM_MAX; i++)
		if (mrctrim_params[i].keyword &&
		    strcmp(mrctrim_params[i].keyword, keyword) == 0)
			return i;
	return -1;
}

/* Parse the value of parameter @p; 0 on success, else an error is told. */
static int mrctrim_parse_value(const struct mrctrim_param *p, const char *arg,
			       __u32 *val)
{
	unsigned int v;

	if (p->off && strcmp(arg, "off") == 0) {
		*val = 0;
		return 0;
	}

	if (p->type == MRCTRIM_DSCP) {
		if (!isdigit((unsigned char)*arg) || get_unsigned(&v, arg, 10)) {
			fprintf(stderr,
				"mrctrim: illegal %s \"%s\": a DSCP is a number from 0 to %d\n",
				p->keyword, arg, MRCTRIM_DSCP_MAX);
			return -1;
		}
		if (v > MRCTRIM_DSCP_MAX) {
			fprintf(stderr,
				"mrctrim: %s %u is out of range: a DSCP is 0 to %d\n",
				p->keyword, v, MRCTRIM_DSCP_MAX);
			return -1;
		}
		*val = v;
		return 0;
	}

	if (!isdigit((unsigned char)*arg) || get_size(&v, arg)) {
		fprintf(stderr,
			"mrctrim: illegal %s \"%s\": expected a size in bytes such as 65536 or 64kb%s\n",
			p->keyword, arg, p->off ? ", or off" : "");
		return -1;
	}
	if (v < p->min) {
		if (p->min == 1)
			fprintf(stderr, "mrctrim: %s must be more than 0 bytes\n",
				p->keyword);
		else
			fprintf(stderr,
				"mrctrim: %s %u is too small: the least is %u bytes (IPv6, UDP and MRC DATA headers)\n",
				p->keyword, v, p->min);
		return -1;
	}
	*val = v;
	return 0;
}

static int mrctrim_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			     struct nlmsghdr *n, const char *dev)
{
	__u32 val[TCA_MRCTRIM_MAX + 1] = {};
	bool set[TCA_MRCTRIM_MAX + 1] = {};
	struct rtattr *nest;
	int attr;

	(void)qu;
	(void)dev;

	for (; argc > 0; argc--, argv++) {
		if (strcmp(*argv, "help") == 0) {
			mrctrim_usage();
			return -1;
		}
		attr = mrctrim_find(*argv);
		if (attr < 0) {
			fprintf(stderr, "mrctrim: unknown parameter \"%s\"\n",
				*argv);
			mrctrim_usage();
			return -1;
		}
		if (set[attr]) {
			fprintf(stderr, "mrctrim: duplicate \"%s\"\n", *argv);
			return -1;
		}
		if (argc < 2) {
			fprintf(stderr, "mrctrim: \"%s\" needs a value\n",
				*argv);
			return -1;
		}
		argc--;
		argv++;
		if (mrctrim_parse_value(&mrctrim_params[attr], *argv,
					&val[attr]))
			return -1;
		set[attr] = true;
	}

	if (set[TCA_MRCTRIM_TRIM_DSCP] && set[TCA_MRCTRIM_TRIMMABLE_DSCP] &&
	    val[TCA_MRCTRIM_TRIM_DSCP] == val[TCA_MRCTRIM_TRIMMABLE_DSCP]) {
		fprintf(stderr,
			"mrctrim: trim-dscp and trimmable-dscp must differ\n");
		return -1;
	}

	/* Flagged nested, so that a strict nla_parse_nested() accepts it. */
	nest = addattr_nest(n, MRCTRIM_MSG_MAX, TCA_OPTIONS | NLA_F_NESTED);
	if (!nest)
		return -1;
	for (attr = 1; attr <= TCA_MRCTRIM_MAX; attr++) {
		int err;

		if (!set[attr])
			continue;
		if (mrctrim_params[attr].type == MRCTRIM_DSCP)
			err = addattr8(n, MRCTRIM_MSG_MAX, attr, val[attr]);
		else
			err = addattr32(n, MRCTRIM_MSG_MAX, attr, val[attr]);
		if (err)
			return -1;
	}
	addattr_nest_end(n, nest);
	return 0;
}

static int mrctrim_print_opt(struct qdisc_util *qu, FILE *f,
			     struct rtattr *opt)
{
	struct rtattr *tb[TCA_MRCTRIM_MAX + 1];
	char fmt[64];
	int attr;

	(void)qu;
	(void)f;

	if (!opt)
		return 0;

	parse_rtattr_flags(tb, TCA_MRCTRIM_MAX, RTA_DATA(opt),
			   RTA_PAYLOAD(opt), NLA_F_NESTED);

	for (attr = 1; attr <= TCA_MRCTRIM_MAX; attr++) {
		const struct mrctrim_param *p = &mrctrim_params[attr];
		__u32 v;

		if (!tb[attr])
			continue;
		if (p->type == MRCTRIM_DSCP) {
			if (RTA_PAYLOAD(tb[attr]) < sizeof(__u8))
				continue;
			v = *(__u8 *)RTA_DATA(tb[attr]);
		} else {
			if (RTA_PAYLOAD(tb[attr]) < sizeof(__u32))
				continue;
			v = *(__u32 *)RTA_DATA(tb[attr]);
		}

		if (p->off && !v) {
			print_color_uint(PRINT_JSON, COLOR_NONE, p->json, NULL,
					 0);
			print_color_string(PRINT_FP, COLOR_NONE, NULL, "%s off ",
					   p->keyword);
		} else if (p->type == MRCTRIM_SIZE) {
			snprintf(fmt, sizeof(fmt), "%s %%s ", p->keyword);
			print_color_size(PRINT_ANY, COLOR_NONE, p->json, fmt,
					 v);
		} else {
			snprintf(fmt, sizeof(fmt), "%s %%u ", p->keyword);
			print_color_uint(PRINT_ANY, COLOR_NONE, p->json, fmt,
					 v);
		}
	}
	return 0;
}

static int mrctrim_print_xstats(struct qdisc_util *qu, FILE *f,
				struct rtattr *xstats)
{
	struct tc_mrctrim_xstats st = {};

	(void)qu;
	(void)f;

	if (!xstats)
		return 0;

	/* A kernel with a shorter struct leaves the rest 0. */
	memcpy(&st, RTA_DATA(xstats),
	       RTA_PAYLOAD(xstats) < sizeof(st) ? RTA_PAYLOAD(xstats) :
						  sizeof(st));

	print_color_lluint(PRINT_ANY, COLOR_NONE, "trimmed", "  trimmed %llu",
			   st.trimmed);
	print_color_lluint(PRINT_ANY, COLOR_NONE, "data_drops",
			   " data_drops %llu", st.data_drops);
	print_color_lluint(PRINT_ANY, COLOR_NONE, "header_drops",
			   " header_drops %llu", st.header_drops);
	print_color_lluint(PRINT_ANY, COLOR_NONE, "ecn_marked",
			   " ecn_marked %llu", st.ecn_marked);
	print_nl();
	print_color_uint(PRINT_ANY, COLOR_NONE, "data_backlog",
			 "  data backlog %ub", st.data_backlog);
	print_color_uint(PRINT_ANY, COLOR_NONE, "data_qlen", " %up",
			 st.data_qlen);
	print_color_uint(PRINT_ANY, COLOR_NONE, "header_backlog",
			 " header backlog %ub", st.header_backlog);
	print_color_uint(PRINT_ANY, COLOR_NONE, "header_qlen", " %up",
			 st.header_qlen);
	return 0;
}

struct qdisc_util mrctrim_qdisc_util = {
	.id		= "mrctrim",
	.parse_qopt	= mrctrim_parse_opt,
	.print_qopt	= mrctrim_print_opt,
	.print_xstats	= mrctrim_print_xstats,
};
