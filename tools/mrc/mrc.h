/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc: configure MRC path sets and watch their state, over the "mrc" generic
 * netlink family. Shared declarations of its parts:
 *
 *   mrc.c      options, usage, the command line's words, main
 *   nl.c       the netlink socket: family lookup, requests, errors
 *   print.c    output helpers that print text or JSON from the same calls
 *   path.c     mrc path ..., mrc pathset ..., mrc probe, a path's counters
 *   stats.c    mrc stats
 *   conn.c     mrc conn show
 *   cc.c       mrc cc ...
 *   monitor.c  mrc monitor
 */
#ifndef _MRC_TOOL_H
#define _MRC_TOOL_H

/* __u64 is unsigned long long on every architecture, so %llu fits it. */
#define __SANE_USERSPACE_TYPES__

#include <err.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdnoreturn.h>
#include <stdio.h>
#include <netinet/in.h>
#include <linux/types.h>
#include <linux/mrc.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Exit status: the command line is wrong, or the kernel said no. */
#define EXIT_USAGE	1
#define EXIT_KERNEL	2

/* "mrc: " and the message, then exit; main() sets the name errx() prints. */
#define usage_error(...)	errx(EXIT_USAGE, __VA_ARGS__)
#define nl_fail(...)		errx(EXIT_KERNEL, __VA_ARGS__)

/* "ADDR/LEN": an IPv6 address, a slash, up to three digits. */
#define PREFIX_STRLEN	(INET6_ADDRSTRLEN + 4)

/**
 * struct mrc_opts - the options before OBJECT
 * @json: -j, print JSON
 * @pretty: -p, indent the JSON
 * @stats: -s, print more detail
 * @details: -d, conn show: each connection's owner (uid, socket inode and
 *	the processes that hold it, as ss -e and -p show them)
 * @netns: -n, name of the network namespace to work in, or NULL
 * @batch: -b, the file of commands to run, "-" for standard input, or NULL
 * @force: -f, with -b, go on after a line fails
 * @timestamp: -t, monitor: a line with the time before each event
 * @tshort: -ts, monitor: the time at the start of each event's line
 */
struct mrc_opts {
	bool json;
	bool pretty;
	bool stats;
	bool details;
	const char *netns;
	const char *batch;
	bool force;
	bool timestamp;
	bool tshort;
};

extern struct mrc_opts opts;

/**
 * struct keyword - a name of the command line and of the output, and its value
 * @name: the word
 * @val: what the kernel calls it
 */
struct keyword {
	const char *name;
	unsigned int val;
};

extern const struct keyword path_states[];
extern const struct keyword path_reasons[];

/* mrc.c: the words of the command line. They exit with EXIT_USAGE. */
noreturn void usage(FILE *f, int status);
const char *next_arg(int *argc, char ***argv, const char *keyword);
void parse_prefix(const char *arg, struct in6_addr *addr, u8 *len);
void parse_addr(const char *arg, const char *what, struct in6_addr *addr);
u32 parse_u32(const char *arg, const char *what);
u32 parse_dev(const char *arg);
unsigned int parse_keyword(const struct keyword *table, const char *arg,
			   const char *what);
const char *keyword_name(const struct keyword *table, unsigned int val,
			 char *buf, size_t len);
void format_prefix(char *buf, const struct in6_addr *addr, u8 len);
bool is_help(const char *arg);
bool matches(const char *word, const char *name);
bool is_show(const char *word);

/**
 * struct interval - the interval mode of a show
 * @secs: seconds between samples; 0 for one show as usual
 * @count: samples to print after the baseline; 0 for no end
 */
struct interval {
	double secs;
	u64 count;
};

/* interval.c */
void interval_parse(int *argc, char **argv, struct interval *iv);
void interval_run(const struct interval *iv, const char *key,
		  void (*sample)(const char *key));
void delta_scope(const char *fmt, ...);
u64 delta_of(const char *name, u64 val);

/* nl.c: requests to the "mrc" family. Kernel errors exit with EXIT_KERNEL. */
struct nlmsghdr;
struct nlattr;

typedef void (*nl_msg_cb)(const struct nlmsghdr *nlh);

/* Writes to @buf what the command line called attribute @a, or nothing. */
typedef void (*nl_attr_name)(const struct nlattr *a, char *buf, size_t len);

/* What nl_parse_*() and nl_check() want of an attribute, if not a length. */
#define NL_NEST		(-1)
#define NL_STRING	(-2)
#define NL_FLAG		(-3)

struct nlmsghdr *nl_request(u8 cmd, u16 flags, size_t room);
void nl_talk(struct nlmsghdr *nlh, nl_msg_cb cb);
void nl_talk_named(struct nlmsghdr *nlh, nl_msg_cb cb, nl_attr_name name);
noreturn void nl_listen_events(nl_msg_cb cb);
void nl_parse_msg(const struct nlmsghdr *nlh, const int *policy,
		  unsigned int max, const struct nlattr **tb);
void nl_parse_nest(const struct nlattr *nest, const int *policy,
		   unsigned int max, const struct nlattr **tb);
void nl_check(const struct nlattr *a, int want);

/* print.c */
enum print_type {
	PRINT_FP = 1,		/* text only */
	PRINT_JSON = 2,		/* JSON only */
	PRINT_ANY = PRINT_FP | PRINT_JSON,
};

void open_json_object(const char *key);
void close_json_object(void);
void open_json_array(const char *key);
void close_json_array(void);
void print_string(enum print_type t, const char *key, const char *fmt,
		  const char *val);
void print_u64(enum print_type t, const char *key, const char *fmt, u64 val);
void print_bool(enum print_type t, const char *key, const char *fmt, bool val);
void print_float(enum print_type t, const char *key, const char *fmt,
		 double val);
void print_nl(void);
#define ISO_TIME_LEN	40
struct tm;
void time_iso(char *buf, size_t len, struct tm *tm, long *usec);

/* The commands: argc and argv hold the words after OBJECT. */
int do_path(int argc, char **argv);
void print_path_stats(const struct nlattr *nest, enum print_type t,
		      const char *sep);
int do_pathset(int argc, char **argv);
int do_probe(int argc, char **argv);
int do_stats(int argc, char **argv);
int do_conn(int argc, char **argv);
void print_conn(const struct nlattr *nest);
int do_monitor(int argc, char **argv);
int do_cc(int argc, char **argv);

#endif /* _MRC_TOOL_H */
