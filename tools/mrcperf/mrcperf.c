// SPDX-License-Identifier: GPL-2.0
/*
 * mrcperf: an iperf-like client and server for AF_MRC sockets. It measures
 * goodput (stream) or round-trip latency (pingpong), and with --verify
 * checks that every message arrives once, in order and intact. --tcp runs
 * the same over TCP, for comparison. See mrcperf.1.
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <math.h>
#include <net/if.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "mrcperf.h"

/* The grammar, then with @full what every option does. */
static void usage(FILE *f, bool full)
{
	fprintf(f,
		"Usage: mrcperf -s [-B ADDR] [-p PORT] [-1] [-j] [--tcp | --mptcp] [--timeout S]\n"
		"       mrcperf -c ADDR [-p PORT] [-l SIZE] [-n COUNT | -t SECONDS] [-P N]\n"
		"               [--pingpong | -R] [--verify] [-j] [--tcp | --mptcp] [--timeout S]\n"
		"               [-i SECONDS] [--seed N] [--hold FILE] [--start FILE]\n"
		"Both:  [--family N] (default $MRC_FAMILY, else %d) [--outage MS]\n"
		"       [--buf SIZE]\n"
		"Server: [--ready FILE] [--stall FILE]\n",
		AF_MRC);
	if (!full) {
		fprintf(f, "Try mrcperf --help.\n");
		return;
	}
	fprintf(f,
		"\n"
		"  -s, --server          run the server\n"
		"  -c, --client ADDR     connect to IPv6 ADDR (ADDR%%IFNAME for link-local)\n"
		"  -B, --bind ADDR       server address to listen on (default ::)\n"
		"  -p, --port PORT       port (default %d)\n"
		"  -1, --one-off         server: exit after the first session, 0 only if all\n"
		"                        its connections verified OK\n"
		"  -l, --length SIZE     bytes per message, suffix K or M (default 64K, max 4M)\n"
		"  -n, --count COUNT     messages per connection\n"
		"  -t, --time SECONDS    send for this long (default %g s)\n"
		"  -P, --parallel N      parallel connections (default 1, max %d)\n"
		"      --pingpong        server echoes each message; measure round trips\n"
		"  -R, --reverse         the server sends, the client receives and checks\n"
		"  -i, --interval S      client: print what all connections moved every S\n"
		"                        seconds (in -j, an \"intervals\" array)\n"
		"      --verify          generate and check the content of every message\n"
		"  -j, --json            print one JSON object instead of text\n"
		"      --tcp             TCP with length-prefixed messages instead of MRC\n"
		"      --mptcp           the same over MPTCP (IPPROTO_MPTCP)\n"
		"      --timeout S       SO_RCVTIMEO and SO_SNDTIMEO (default %g s)\n"
		"      --seed N          content seed (default 1)\n"
		"      --family N        address family number of AF_MRC\n"
		"      --buf SIZE        SO_SNDBUF and SO_RCVBUF of every socket (the\n"
		"                        kernel doubles them), suffix K or M\n"
		"      --outage MS       MRC_OUTAGE_TIMEOUT: how long a connection with\n"
		"                        every path broken waits before ETIMEDOUT\n"
		"                        (default net.mrc.outage_timeout_ms)\n"
		"      --ready FILE      server: create FILE once listening\n"
		"      --stall FILE      server: read no data until FILE exists\n"
		"      --hold FILE       client: once all is sent and acknowledged, create\n"
		"                        FILE.done and keep the connections open until\n"
		"                        FILE exists\n"
		"      --start FILE      client: once every connection is open, create\n"
		"                        FILE.ready-PID and start sending when FILE exists\n"
		"  -h, --help            this text\n"
		"      --version         the version of mrcperf\n",
		MRCPERF_DEFAULT_PORT, MRCPERF_DEFAULT_TIME, MRCPERF_MAX_CONNS,
		MRCPERF_DEFAULT_TIMEOUT);
}

static void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mrcperf: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	usage(stderr, false);
	exit(EXIT_USAGE);
}

/* ADDR or ADDR%IFNAME (or ADDR%INDEX). */
static bool parse_addr(const char *arg, struct sockaddr_in6 *sin6)
{
	char host[INET6_ADDRSTRLEN + IF_NAMESIZE + 1], *pct;
	u64 scope = 0;

	if (strlen(arg) >= sizeof(host))
		return false;
	strcpy(host, arg);
	pct = strchr(host, '%');
	if (pct) {
		*pct++ = '\0';
		if (!parse_u64(pct, &scope) || scope > 0xffffffffULL)
			scope = if_nametoindex(pct);
		if (!scope)
			return false;
	}
	if (inet_pton(AF_INET6, host, &sin6->sin6_addr) != 1)
		return false;
	sin6->sin6_scope_id = scope;
	return true;
}

static bool parse_range(const char *arg, u64 min, u64 max, u64 *v)
{
	return parse_u64(arg, v) && *v >= min && *v <= max;
}

/* Bytes, with an optional K (KiB) or M (MiB) suffix. */
static bool parse_size(const char *arg, u32 *size)
{
	char num[24];
	size_t n = strlen(arg);
	u64 v, mult = 1;

	if (!n || n >= sizeof(num))
		return false;
	strcpy(num, arg);
	switch (num[n - 1]) {
	case 'K':
	case 'k':
		mult = 1024;
		break;
	case 'M':
	case 'm':
		mult = 1024 * 1024;
		break;
	}
	if (mult > 1)
		num[n - 1] = '\0';
	if (!parse_u64(num, &v) || !v || v > MRC_MSG_MAX / mult)
		return false;
	*size = v * mult;
	return true;
}

static bool parse_seconds(const char *arg, double *v)
{
	char *end;

	*v = strtod(arg, &end);
	return *arg && !*end && isfinite(*v) && *v > 0 && *v < 1e9;
}

enum {
	OPT_PINGPONG = 256,
	OPT_VERIFY,
	OPT_TCP,
	OPT_TIMEOUT,
	OPT_SEED,
	OPT_FAMILY,
	OPT_READY,
	OPT_MPTCP,
	OPT_HOLD,
	OPT_START,
	OPT_STALL,
	OPT_OUTAGE,
	OPT_BUF,
	OPT_VERSION,
	OPT_NR,
};

static const struct option long_opts[] = {
	{ "server", no_argument, NULL, 's' },
	{ "client", required_argument, NULL, 'c' },
	{ "bind", required_argument, NULL, 'B' },
	{ "port", required_argument, NULL, 'p' },
	{ "one-off", no_argument, NULL, '1' },
	{ "length", required_argument, NULL, 'l' },
	{ "count", required_argument, NULL, 'n' },
	{ "time", required_argument, NULL, 't' },
	{ "parallel", required_argument, NULL, 'P' },
	{ "json", no_argument, NULL, 'j' },
	{ "reverse", no_argument, NULL, 'R' },
	{ "interval", required_argument, NULL, 'i' },
	{ "pingpong", no_argument, NULL, OPT_PINGPONG },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "tcp", no_argument, NULL, OPT_TCP },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "family", required_argument, NULL, OPT_FAMILY },
	{ "ready", required_argument, NULL, OPT_READY },
	{ "mptcp", no_argument, NULL, OPT_MPTCP },
	{ "hold", required_argument, NULL, OPT_HOLD },
	{ "start", required_argument, NULL, OPT_START },
	{ "stall", required_argument, NULL, OPT_STALL },
	{ "outage", required_argument, NULL, OPT_OUTAGE },
	{ "buf", required_argument, NULL, OPT_BUF },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* Options that only one side takes. */
static const struct {
	int opt;
	const char *name;
	bool client;
} side_opts[] = {
	{ 'B', "-B", false }, { '1', "-1", false }, { OPT_READY, "--ready", false },
	{ 'l', "-l", true }, { 'n', "-n", true }, { 't', "-t", true }, { 'P', "-P", true },
	{ OPT_PINGPONG, "--pingpong", true }, { OPT_VERIFY, "--verify", true },
	{ OPT_SEED, "--seed", true }, { OPT_HOLD, "--hold", true },
	{ OPT_START, "--start", true }, { OPT_STALL, "--stall", false },
	{ 'R', "-R", true }, { 'i', "-i", true },
};

static void check_sides(const struct mrcperf_opts *o, const bool *seen)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(side_opts); i++) {
		if (seen[side_opts[i].opt] && side_opts[i].client == o->server)
			usage_error("%s is an option of the %s", side_opts[i].name,
				    side_opts[i].client ? "client" : "server");
	}
}

static void parse_opts(struct mrcperf_opts *o, int argc, char **argv)
{
	const char *env = getenv("MRC_FAMILY");
	bool seen[OPT_NR] = { false };
	const char *bind_addr = "::";
	int opt;
	u64 v;

	memset(o, 0, sizeof(*o));
	o->family = AF_MRC;
	o->addr.sin6_family = AF_INET6;
	o->addr.sin6_port = htons(MRCPERF_DEFAULT_PORT);
	o->size = MRCPERF_DEFAULT_SIZE;
	o->conns = 1;
	o->timeout = MRCPERF_DEFAULT_TIMEOUT;
	o->seed = 1;
	if (env && *env) {
		if (!parse_range(env, 1, 0xffff, &v))
			usage_error("bad MRC_FAMILY \"%s\"", env);
		o->family = v;
	}
	while ((opt = getopt_long(argc, argv, "sc:B:p:1l:n:t:P:jhRi:", long_opts, NULL)) != -1) {
		if (opt > 0 && opt < OPT_NR)
			seen[opt] = true;
		switch (opt) {
		case 's':
			o->server = true;
			break;
		case 'c':
			o->host = optarg;
			break;
		case 'B':
			bind_addr = optarg;
			break;
		case 'p':
			if (!parse_range(optarg, 1, 65535, &v))
				usage_error("bad port \"%s\"", optarg);
			o->addr.sin6_port = htons(v);
			break;
		case '1':
			o->once = true;
			break;
		case 'l':
			if (!parse_size(optarg, &o->size))
				usage_error("bad message size \"%s\": 1 to 4M bytes", optarg);
			break;
		case 'n':
			if (!parse_range(optarg, 1, ~0ULL, &o->count))
				usage_error("bad message count \"%s\"", optarg);
			break;
		case 't':
			if (!parse_seconds(optarg, &o->duration))
				usage_error("bad duration \"%s\"", optarg);
			break;
		case 'P':
			if (!parse_range(optarg, 1, MRCPERF_MAX_CONNS, &v))
				usage_error("bad number of connections \"%s\": 1 to 1024", optarg);
			o->conns = v;
			break;
		case 'j':
			o->json = true;
			break;
		case 'R':
			o->reverse = true;
			break;
		case 'i':
			if (!parse_seconds(optarg, &o->interval) || o->interval < 0.01)
				usage_error("bad interval \"%s\": at least 0.01 s", optarg);
			break;
		case OPT_PINGPONG:
			o->mode = MODE_PINGPONG;
			break;
		case OPT_VERIFY:
			o->verify = true;
			break;
		case OPT_TCP:
			o->tcp = true;
			break;
		case OPT_TIMEOUT:
			if (!parse_seconds(optarg, &o->timeout))
				usage_error("bad timeout \"%s\"", optarg);
			break;
		case OPT_SEED:
			if (!parse_u64(optarg, &o->seed))
				usage_error("bad seed \"%s\"", optarg);
			break;
		case OPT_FAMILY:
			if (!parse_range(optarg, 1, 0xffff, &v))
				usage_error("bad family \"%s\"", optarg);
			o->family = v;
			break;
		case OPT_READY:
			o->ready = optarg;
			break;
		case OPT_MPTCP:
			o->tcp = true;
			o->mptcp = true;
			break;
		case OPT_HOLD:
			o->hold = optarg;
			break;
		case OPT_START:
			o->start = optarg;
			break;
		case OPT_STALL:
			o->stall = optarg;
			break;
		case OPT_OUTAGE:
			if (!parse_range(optarg, 1, 86400000, &v))
				usage_error("bad outage timeout \"%s\": 1 to 86400000 ms",
					    optarg);
			o->outage_ms = v;
			break;
		case OPT_BUF:
			if (!parse_size(optarg, &o->buf))
				usage_error("bad buffer size \"%s\": 1 to 4M bytes", optarg);
			break;
		case OPT_VERSION:
			printf("mrcperf, MRC for Linux %s\n", MRCPERF_VERSION);
			exit(0);
		case 'h':
			usage(stdout, true);
			exit(0);
		default:
			usage(stderr, false);
			exit(EXIT_USAGE);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument \"%s\"", argv[optind]);
	if (o->server == !!o->host)
		usage_error("give exactly one of -s and -c");
	check_sides(o, seen);
	if (o->count && o->duration)
		usage_error("give -n or -t, not both");
	if (o->reverse && o->mode == MODE_PINGPONG)
		usage_error("-R and --pingpong exclude each other");
	if (o->reverse && o->hold)
		usage_error("--hold is for a client that sends, not with -R");
	if (!o->count && !o->duration)
		o->duration = MRCPERF_DEFAULT_TIME;
	if (!parse_addr(o->server ? bind_addr : o->host, &o->addr))
		usage_error("bad IPv6 address \"%s\"", o->server ? bind_addr : o->host);
}

/* Room for a socket per connection, however low the soft limit is. */
static void raise_nofile(unsigned int need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return;
	rl.rlim_cur = rl.rlim_max < need ? rl.rlim_max : need;
	setrlimit(RLIMIT_NOFILE, &rl);
}

atomic_bool mrcperf_stop;

static void stop_sending(int sig)
{
	(void)sig;
	mrcperf_stop = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = stop_sending, .sa_flags = SA_RESTART };
	struct mrcperf_opts o;

	parse_opts(&o, argc, argv);
	/* A peer that goes away is an error from send(), not a signal. */
	signal(SIGPIPE, SIG_IGN);
	/* As iperf3's: SIGINT ends a client's run early, with its report. */
	if (!o.server) {
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
	}
	raise_nofile((o.server ? 4 * MRCPERF_MAX_CONNS : o.conns) + 64);
	return o.server ? run_server(&o) : run_client(&o);
}
