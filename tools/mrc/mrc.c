// SPDX-License-Identifier: GPL-2.0
/*
 * mrc: configure MRC path sets and watch their state, in the manner of ip(8).
 * The command line is parsed completely, and names are resolved, before the
 * first netlink message is sent, so a mistake on it never half-applies. See
 * mrc.8.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mrc.h"

#define NETNS_RUN_DIR	"/run/netns"

struct mrc_opts opts;

const struct keyword path_states[] = {
	{ "good", MRC_PATH_GOOD },
	{ "assumed-bad", MRC_PATH_ASSUMED_BAD },
	{ "denied", MRC_PATH_DENIED },
	{ NULL, 0 },
};

const struct keyword path_reasons[] = {
	{ "added", MRC_REASON_ADDED },
	{ "operator", MRC_REASON_OPERATOR },
	{ "loss", MRC_REASON_LOSS },
	{ "probe", MRC_REASON_PROBE },
	{ "spurious", MRC_REASON_SPURIOUS },
	{ NULL, 0 },
};

/* The grammar, a line a command (usage() and usage_object()). */
static const char *const usage_lines[] = {
	"       mrc path add PREFIX [segs ADDR[,ADDR...]] [dev IFNAME] [src ADDR] [id ID]\n",
	"       mrc path delete PREFIX [id ID]\n",
	"       mrc path set PREFIX id ID state { good | denied }\n",
	"       mrc path show [PREFIX] [INTERVAL]\n",
	"       mrc path get ADDR\n",
	"       mrc path flush\n",
	"       mrc pathset set PREFIX min-active N\n",
	"       mrc probe PREFIX id ID [dst ADDR] [timeout MS]\n",
	"       mrc conn show [src PREFIX] [dst PREFIX] [sport PORT] [dport PORT]\n"
	"                     [state STATE] [INTERVAL]\n",
	"       mrc cc show\n",
	"       mrc cc set SETTING VALUE [SETTING VALUE...]\n",
	"       mrc stats [ show | delta ]\n",
	"       mrc monitor [ all | path | conn ]...\n",
};

/* The terms of the grammar, each after "where  " or 7 blanks. */
#define USAGE_PREFIX "PREFIX := IPv6 ADDR[/LEN]; without /LEN it is ADDR/128\n" \
	"       ID := the path's id (its EV), 0 to 65535\n"
#define USAGE_PROBE "probe: dst is the host to probe, in PREFIX (default: PREFIX, if a\n" \
	"              /128); timeout 1 to 10000 ms (default 1000)\n"
#define USAGE_CONN "STATE := { syn-sent | syn-recv | established }\n"
#define USAGE_INTERVAL "INTERVAL := interval SECONDS [count N]: a show every SECONDS\n" \
	"                   (0.05 to 3600), counters as their change since the one\n" \
	"                   before, N times or until interrupted\n"
#define USAGE_CC "SETTING := { base-rtt | target-delay | max-cwnd | ai | fi | md |\n" \
	"                    qa-delay | ecn-cooldown }; times in microseconds\n"

/* The object a command names, once known: its help is its part alone. */
static const char *help_object;

/* mrc OBJECT help: the lines of the grammar for OBJECT, and the terms. */
static noreturn void usage_object(const char *obj)
{
	size_t i, n = strlen(obj);
	const char *first = "Usage:";

	for (i = 0; i < ARRAY_SIZE(usage_lines); i++) {
		const char *cmd = usage_lines[i] + strlen("       mrc ");

		if (strncmp(cmd, obj, n) || (cmd[n] != ' ' && cmd[n] != '\n'))
			continue;
		printf("%-7s%s", first, usage_lines[i] + 7);
		first = "";
	}
	if (!strcmp(obj, "path") || !strcmp(obj, "pathset") || !strcmp(obj, "probe"))
		printf("where  " USAGE_PREFIX);
	if (!strcmp(obj, "path"))
		printf("       " USAGE_INTERVAL);
	if (!strcmp(obj, "probe"))
		printf("       " USAGE_PROBE);
	if (!strcmp(obj, "conn"))
		printf("where  " USAGE_PREFIX "       " USAGE_CONN "       " USAGE_INTERVAL);
	if (!strcmp(obj, "cc"))
		printf("where  " USAGE_CC);
	printf("Commands and objects may be shortened to any prefix; mrc help: all.\n");
	exit(0);
}

void usage(FILE *f, int status)
{
	if (help_object && !status)
		usage_object(help_object);
	size_t i;

	fprintf(f, "Usage: mrc [OPTIONS] OBJECT COMMAND\n");
	for (i = 0; i < ARRAY_SIZE(usage_lines); i++)
		fputs(usage_lines[i], f);
	fprintf(f,
		"       mrc help\n"
		"       mrc OBJECT help\n"
		"       mrc [OPTIONS] -b FILE\n"
		"where  OBJECT := { path | pathset | probe | conn | cc | stats | monitor }\n"
		"       OBJECT and COMMAND may be any prefix of their names (path show:\n"
		"       p s), and show may be list, lst or ls\n"
		"       " USAGE_PREFIX
		"       " USAGE_PROBE
		"       " USAGE_CONN
		"       " USAGE_INTERVAL
		"       " USAGE_CC
		"\n"
		"Options (-NAME, --NAME, or any prefix of NAME, as in ip(8)):\n"
		"  -j, --json          print JSON\n"
		"  -p, --pretty        with -j, indent the JSON\n"
		"  -s, --stats         path show: the reason and age of each path's state,\n"
		"                      and its counters; conn show: more counters, and\n"
		"                      a line per path (JSON always has it all)\n"
		"  -d, --details       conn show: the owner's uid, the socket's inode and\n"
		"                      the processes that hold it, as ss -e -p shows them\n"
		"  -n, --netns NETNS   work in the network namespace %s/NETNS\n"
		"  -b, --batch FILE    run the commands of FILE (- for standard input),\n"
		"                      one a line, until the first that fails\n"
		"  -f, --force         with -b, run every line, even after one fails;\n"
		"                      the exit status is the worst of the lines'\n"
		"  -t, --timestamp     monitor: a line with the time before each event\n"
		"  -ts, --tshort       monitor: the time at the start of each event's line\n"
		"  -h, --help          this text\n"
		"  -V, --Version       the versions of this tool and of the loaded module\n"
		"\n"
		"Exit status: 0 done, 1 bad command line, 2 the kernel refused or failed.\n",
		NETNS_RUN_DIR);
	exit(status);
}

/**
 * matches() - is @word an abbreviation of @name, as iproute2 takes them?
 * @word: what was typed
 * @name: a keyword
 *
 * Return: true if @word is a non-empty prefix of @name. Callers try the
 * keywords in an order that settles a prefix two of them share.
 */
bool matches(const char *word, const char *name)
{
	size_t len = strlen(word);

	return len && !strncmp(word, name, len);
}

/* "show", or one of its synonyms, as in ip(8): list, lst, ls. */
bool is_show(const char *word)
{
	return matches(word, "show") || matches(word, "list") ||
	       !strcmp(word, "lst") || !strcmp(word, "ls");
}

bool is_help(const char *arg)
{
	return !strcmp(arg, "help");
}

/* Step past @keyword to its value. */
const char *next_arg(int *argc, char ***argv, const char *keyword)
{
	if (*argc < 2)
		usage_error("missing value after \"%s\"", keyword);
	(*argc)--;
	(*argv)++;
	return **argv;
}

/* Decimal digits only: no sign, no space, no base prefix. */
static bool parse_digits(const char *arg, u32 *v)
{
	u64 n = 0;

	if (!*arg)
		return false;
	for (; *arg; arg++) {
		if (*arg < '0' || *arg > '9')
			return false;
		n = n * 10 + (*arg - '0');
		if (n > 0xffffffffULL)
			return false;
	}
	*v = n;
	return true;
}

u32 parse_u32(const char *arg, const char *what)
{
	u32 v;

	if (!parse_digits(arg, &v))
		usage_error("invalid %s \"%s\"", what, arg);
	return v;
}

void parse_addr(const char *arg, const char *what, struct in6_addr *addr)
{
	if (inet_pton(AF_INET6, arg, addr) != 1)
		usage_error("invalid %s \"%s\"", what, arg);
}

void parse_prefix(const char *arg, struct in6_addr *addr, u8 *len)
{
	const char *slash = strchr(arg, '/');
	size_t n = slash ? (size_t)(slash - arg) : strlen(arg);
	char host[INET6_ADDRSTRLEN];
	u32 v = 128;

	if (n >= sizeof(host))
		goto bad;
	memcpy(host, arg, n);
	host[n] = '\0';
	if (inet_pton(AF_INET6, host, addr) != 1)
		goto bad;
	if (slash && (!parse_digits(slash + 1, &v) || v > 128))
		goto bad;
	*len = v;
	return;
bad:
	usage_error("invalid prefix \"%s\"", arg);
}

u32 parse_dev(const char *arg)
{
	unsigned int ifindex = if_nametoindex(arg);

	if (!ifindex)
		usage_error("unknown device \"%s\"", arg);
	return ifindex;
}

unsigned int parse_keyword(const struct keyword *table, const char *arg,
			   const char *what)
{
	for (; table->name; table++)
		if (!strcmp(table->name, arg))
			return table->val;
	usage_error("invalid %s \"%s\"", what, arg);
}

/* The word for @val; "none" for 0 (absent), the number if it has no word. */
const char *keyword_name(const struct keyword *table, unsigned int val,
			 char *buf, size_t len)
{
	if (!val)
		return "none";
	for (; table->name; table++)
		if (table->val == val)
			return table->name;
	snprintf(buf, len, "%u", val);
	return buf;
}

void format_prefix(char *buf, const struct in6_addr *addr, u8 len)
{
	inet_ntop(AF_INET6, addr, buf, INET6_ADDRSTRLEN);
	sprintf(buf + strlen(buf), "/%u", len);
}

/* Like ip -n: everything after this, netlink and device names, is in @name. */
static void netns_switch(const char *name)
{
	char path[sizeof(NETNS_RUN_DIR) + NAME_MAX + 1];
	int fd;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") ||
	    snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, name) >= (int)sizeof(path))
		usage_error("invalid network namespace name \"%s\"", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		usage_error("cannot open network namespace \"%s\": %s", name,
			    strerror(errno));
	if (setns(fd, CLONE_NEWNET))
		nl_fail("cannot enter network namespace \"%s\": %s", name,
			strerror(errno));
	close(fd);
}

/* -V: the tool's version, and the loaded module's. */
static void print_version(void)
{
	char ver[64] = "";
	FILE *f = fopen("/sys/module/mrc/version", "r");

	if (f) {
		if (!fgets(ver, sizeof(ver), f))
			ver[0] = 0;
		fclose(f);
	}
	ver[strcspn(ver, "\n")] = 0;
	printf("mrc utility, MRC for Linux %s; module: %s\n", MRC_TOOL_VERSION,
	       ver[0] ? ver : f ? "unknown" : "not loaded (modprobe mrc)");
	exit(0);
}

/* The options, as iproute2 takes them: "-json" or "--json", or any
 * prefix of the name ("-j", "-js"); a prefix two names share is the
 * first's in this order. A value is the next word (or after '=' in the
 * "--name=VALUE" form). "--" ends the options.
 */
static const struct {
	const char *name;
	bool value;
	char id;
} options[] = {
	{ "json", false, 'j' },
	{ "pretty", false, 'p' },
	{ "stats", false, 's' },
	{ "statistics", false, 's' },
	{ "details", false, 'd' },
	{ "netns", true, 'n' },
	{ "batch", true, 'b' },
	{ "force", false, 'f' },
	{ "timestamp", false, 't' },
	{ "tshort", false, 'T' },
	{ "help", false, 'h' },
	{ "Version", false, 'V' },
};

/* Options come before OBJECT; what follows is the command's. Returns the
 * index of OBJECT in @argv.
 */
static int parse_opts(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *word = argv[i], *name = word + 1, *val = NULL;
		size_t len, k;

		if (*name == '-') {
			name++;
			if (!*name)
				return i + 1;
			val = strchr(name, '=');
		}
		len = val ? (size_t)(val - name) : strlen(name);
		for (k = 0; k < ARRAY_SIZE(options); k++)
			if (len && !strncmp(options[k].name, name, len))
				break;
		if (k == ARRAY_SIZE(options))
			usage_error("unknown option \"%s\"", word);
		if (val && !options[k].value)
			usage_error("option \"%s\" takes no value", word);
		if (val)
			val++;
		else if (options[k].value && ++i < argc)
			val = argv[i];
		else if (options[k].value)
			usage_error("missing value after \"%s\"", word);
		switch (options[k].id) {
		case 'j':
			opts.json = true;
			break;
		case 'p':
			opts.pretty = true;
			break;
		case 's':
			opts.stats = true;
			break;
		case 'd':
			opts.details = true;
			break;
		case 'n':
			opts.netns = val;
			break;
		case 'b':
			opts.batch = val;
			break;
		case 'f':
			opts.force = true;
			break;
		case 't':
			opts.timestamp = true;
			break;
		case 'T':
			opts.tshort = true;
			break;
		case 'h':
			usage(stdout, 0);
		case 'V':
			print_version();
		}
	}
	return i;
}

/* In the order that settles a shared prefix: p is path, pr probe. */
static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} objects[] = {
	{ "path", do_path },
	{ "pathset", do_pathset },
	{ "probe", do_probe },
	{ "conn", do_conn },
	{ "cc", do_cc },
	{ "stats", do_stats },
	{ "monitor", do_monitor },
};

static size_t find_object(const char *name)
{
	size_t i;

	/* An object's whole name first: "cc" is not conn's prefix. */
	for (i = 0; i < ARRAY_SIZE(objects); i++)
		if (!strcmp(name, objects[i].name))
			return i;
	for (i = 0; i < ARRAY_SIZE(objects); i++)
		if (matches(name, objects[i].name))
			return i;
	usage_error("unknown object \"%s\"", name);
}

/* OBJECT and what follows it: one command. */
static int run_command(int argc, char **argv)
{
	return objects[find_object(argv[0])].run(argc - 1, argv + 1);
}

/* One line of a batch: a command, but neither help nor monitor. */
static void run_line(size_t nwords, char **words)
{
	size_t i;

	for (i = 0; i < nwords; i++)
		if (is_help(words[i]))
			usage_error("help is not for a batch");
	if (!strcmp(objects[find_object(words[0])].name, "monitor"))
		usage_error("monitor is not for a batch: it does not end");
	run_command(nwords, words);
	/* The next command's errors must not come before this output. */
	fflush(stdout);
}

/* -force: the line in a child of its own, so that its error ends only
 * the child. Returns its exit status.
 */
static int run_forked(size_t nwords, char **words)
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		nl_fail("fork: %s", strerror(errno));
	if (!pid) {
		run_line(nwords, words);
		exit(0);
	}
	if (waitpid(pid, &status, 0) < 0)
		nl_fail("waitpid: %s", strerror(errno));
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	warnx("the command was killed by signal %d", WTERMSIG(status));
	return EXIT_KERNEL;
}

/*
 * mrc -b FILE: each line a command, as it would follow "mrc [OPTIONS]" on
 * a command line, over one netlink socket. Words are separated by blanks;
 * empty lines and lines whose first word starts with '#' are skipped. The
 * first error ends the run, with "FILE:LINE" in its message in place of
 * the program's name, so the lines before it have been applied and the
 * lines after it have not. With -force every line runs, each error is
 * reported, and the exit status is the worst of them. help would end the
 * run and monitor never ends, so both are refused.
 */
static int run_batch(const char *file)
{
	static char name[PATH_MAX + 32];
	size_t cap = 0, nwords = 0, len = 0;
	char **words = NULL, *line = NULL, *w, *save;
	int status, worst = 0;
	unsigned long lineno = 0;
	FILE *f;

	f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	if (!f)
		usage_error("cannot open \"%s\": %s", file, strerror(errno));
	/* A child that exits moves the offset it shares with us back to
	 * where its copy of a buffered stream had read to: read unbuffered.
	 */
	if (opts.force)
		setvbuf(f, NULL, _IONBF, 0);
	while (getline(&line, &len, f) >= 0) {
		lineno++;
		snprintf(name, sizeof(name), "mrc: %s:%lu", file, lineno);
		program_invocation_short_name = name;
		nwords = 0;
		for (w = strtok_r(line, " \t\r\n", &save); w;
		     w = strtok_r(NULL, " \t\r\n", &save)) {
			if (nwords + 1 >= cap) {
				cap = cap ? 2 * cap : 16;
				words = realloc(words, cap * sizeof(*words));
				if (!words)
					nl_fail("out of memory");
			}
			words[nwords++] = w;
		}
		if (!nwords || words[0][0] == '#')
			continue;
		words[nwords] = NULL;
		if (opts.force) {
			status = run_forked(nwords, words);
			worst = status > worst ? status : worst;
			continue;
		}
		run_line(nwords, words);
	}
	if (ferror(f))
		usage_error("cannot read \"%s\": %s", file, strerror(errno));
	program_invocation_short_name = "mrc";
	free(words);
	free(line);
	if (f != stdin)
		fclose(f);
	return worst;
}

int main(int argc, char **argv)
{
	int first;

	/* Whatever the binary is called, its messages begin "mrc: ". */
	program_invocation_short_name = "mrc";
	first = parse_opts(argc, argv);
	argc -= first;
	argv += first;
	if (opts.batch) {
		if (argc)
			usage_error("unknown argument \"%s\" after -b FILE", argv[0]);
		if (opts.netns)
			netns_switch(opts.netns);
		return run_batch(opts.batch);
	}
	if (!argc)
		usage(stderr, EXIT_USAGE);
	if (is_help(argv[0]))
		usage(stdout, 0);
	/* mrc OBJECT help needs no namespace. */
	help_object = objects[find_object(argv[0])].name;
	if (argc > 1 && is_help(argv[1]))
		usage(stdout, 0);
	if (opts.netns)
		netns_switch(opts.netns);
	return run_command(argc, argv);
}
