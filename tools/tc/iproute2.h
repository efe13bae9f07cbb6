/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of iproute2 6.1.0's tc that a qdisc plugin (q_*.so) uses, as
 * iproute2 declares it, since Debian installs no iproute2 headers. tc
 * exports these functions from its binary; a plugin's undefined symbols
 * are resolved against them when tc dlopen()s it. struct qdisc_util must
 * keep tc's layout: tc reads the plugin's copy of it.
 */
#ifndef _MRC_TC_IPROUTE2_H
#define _MRC_TC_IPROUTE2_H

#include <stdbool.h>
#include <stdio.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/types.h>

/* iproute2 6.1.0, tc/tc_util.h */
struct qdisc_util {
	struct qdisc_util *next;
	const char *id;
	int (*parse_qopt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_qopt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*print_xstats)(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats);
	int (*parse_copt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_copt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*has_block)(struct qdisc_util *qu, struct rtattr *opt,
			 __u32 block_idx, bool *p_has);
};

/* iproute2 6.1.0, include/color.h */
enum color_attr {
	COLOR_IFNAME,
	COLOR_MAC,
	COLOR_INET,
	COLOR_INET6,
	COLOR_OPERSTATE_UP,
	COLOR_OPERSTATE_DOWN,
	COLOR_NONE
};

/*
 * iproute2 6.1.0, include/json_print.h. Its print_uint() and the like are
 * static inlines over these exported print_color_*() functions.
 */
enum output_type {
	PRINT_FP = 1,
	PRINT_JSON = 2,
	PRINT_ANY = 4,
};

int print_color_uint(enum output_type t, enum color_attr color,
		     const char *key, const char *fmt, unsigned int value);
int print_color_lluint(enum output_type t, enum color_attr color,
		       const char *key, const char *fmt,
		       unsigned long long value);
int print_color_size(enum output_type t, enum color_attr color,
		     const char *key, const char *fmt, __u32 value);
int print_color_string(enum output_type t, enum color_attr color,
		       const char *key, const char *fmt, const char *value);
void print_nl(void);

/* iproute2 6.1.0, include/utils.h */
int get_unsigned(unsigned int *val, const char *arg, int base);
int get_size(unsigned int *size, const char *str);

/* iproute2 6.1.0, include/libnetlink.h */
int addattr8(struct nlmsghdr *n, int maxlen, int type, __u8 data);
int addattr32(struct nlmsghdr *n, int maxlen, int type, __u32 data);
struct rtattr *addattr_nest(struct nlmsghdr *n, int maxlen, int type);
int addattr_nest_end(struct nlmsghdr *n, struct rtattr *nest);
int parse_rtattr_flags(struct rtattr *tb[], int max, struct rtattr *rta,
		       int len, unsigned short flags);

#endif /* _MRC_TC_IPROUTE2_H */
