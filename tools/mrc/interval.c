// SPDX-License-Identifier: GPL-2.0
/*
 * The interval mode of path show and conn show: "interval SECONDS [count
 * N]" at the end of the command. A first sample, not printed, is the
 * baseline; then every SECONDS the same show again, with each counter
 * as its change since the previous sample (as nstat gives them) and each
 * gauge (RTT, window, state) as it is; N samples, or until interrupted.
 *
 * A counter is named by its object (delta_scope(): a connection's id, a
 * path's set and id) and its key; its last value lives in a hash table,
 * which drops the objects that a sample no longer shows.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mrc.h"

#define DELTA_KEY_LEN	96

/**
 * struct delta_ent - a counter's value in the latest sample that had it
 * @key: its object and name, "" for a free slot
 * @val: the value
 * @gen: the sample that had it (the first is 1)
 */
struct delta_ent {
	char key[DELTA_KEY_LEN];
	u64 val;
	unsigned int gen;
};

static struct {
	struct delta_ent *t;
	size_t cap;
	size_t n;
	unsigned int gen;
	char scope[DELTA_KEY_LEN / 2];
} delta;

static size_t delta_hash(const char *s)
{
	size_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static struct delta_ent *delta_slot(struct delta_ent *t, size_t cap, const char *key)
{
	size_t i = delta_hash(key) & (cap - 1);

	while (t[i].key[0] && strcmp(t[i].key, key))
		i = (i + 1) & (cap - 1);
	return &t[i];
}

/* A table of @cap slots (a power of two) holding what the last two
 * samples saw: older entries are objects gone.
 */
static void delta_rebuild(size_t cap)
{
	struct delta_ent *t = calloc(cap, sizeof(*t)), *e;
	size_t i, n = 0;

	if (!t) {
		fprintf(stderr, "mrc: out of memory for interval counters\n");
		exit(EXIT_KERNEL);
	}
	for (i = 0; i < delta.cap; i++) {
		e = &delta.t[i];
		if (!e->key[0] || e->gen + 1 < delta.gen)
			continue;
		*delta_slot(t, cap, e->key) = *e;
		n++;
	}
	free(delta.t);
	delta.t = t;
	delta.cap = cap;
	delta.n = n;
}

/**
 * delta_scope() - name the object whose counters come next
 * @fmt: printf format of its name, unique in the show
 */
void delta_scope(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(delta.scope, sizeof(delta.scope), fmt, ap);
	va_end(ap);
}

/**
 * delta_of() - a counter as interval mode prints it
 * @name: its key, within the object delta_scope() named
 * @val: its value now
 *
 * Return: @val outside interval mode; in it, the change since the
 * previous sample, or @val for an object that sample did not have (new,
 * so all of it is recent) or whose counter went back (a new object with
 * the same name).
 */
u64 delta_of(const char *name, u64 val)
{
	char key[DELTA_KEY_LEN];
	struct delta_ent *e;
	u64 old = 0;

	if (!delta.gen)
		return val;
	if (2 * (delta.n + 1) > delta.cap)
		delta_rebuild(delta.cap ? 2 * delta.cap : 256);
	snprintf(key, sizeof(key), "%s/%s", delta.scope, name);
	e = delta_slot(delta.t, delta.cap, key);
	if (!e->key[0]) {
		snprintf(e->key, sizeof(e->key), "%s", key);
		delta.n++;
	} else if (e->gen + 1 == delta.gen && e->val <= val) {
		old = e->val;
	}
	e->val = val;
	e->gen = delta.gen;
	return val - old;
}

/**
 * interval_parse() - take "interval SECONDS [count N]" off the end of a command
 * @argc: the words left; less those two or four after
 * @argv: the words
 * @iv: what they say; interval 0 without them
 */
void interval_parse(int *argc, char **argv, struct interval *iv)
{
	int i;
	char *end;

	memset(iv, 0, sizeof(*iv));
	for (i = 0; i < *argc; i++)
		if (!strcmp(argv[i], "interval"))
			break;
	if (i == *argc)
		return;
	if (i + 1 >= *argc)
		usage_error("missing SECONDS after \"interval\"");
	iv->secs = strtod(argv[i + 1], &end);
	if (*end || !(iv->secs >= 0.05 && iv->secs <= 3600))
		usage_error("invalid interval \"%s\": 0.05 to 3600 seconds", argv[i + 1]);
	if (i + 2 < *argc) {
		if (strcmp(argv[i + 2], "count"))
			usage_error("unknown argument \"%s\" after the interval", argv[i + 2]);
		if (i + 3 >= *argc)
			usage_error("missing N after \"count\"");
		iv->count = parse_u32(argv[i + 3], "count");
		if (!iv->count)
			usage_error("invalid count \"0\": at least 1");
		if (i + 4 < *argc)
			usage_error("unknown argument \"%s\"", argv[i + 4]);
	}
	*argc = i;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Until @t (CLOCK_MONOTONIC seconds). */
static void sleep_until(double t)
{
	struct timespec ts = { .tv_sec = (time_t)t };

	ts.tv_nsec = (long)((t - ts.tv_sec) * 1e9);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
}

/* Its start: the time, and in JSON the object that holds the sample. */
static void sample_head(const struct interval *iv, double secs)
{
	char iso[ISO_TIME_LEN];

	time_iso(iso, sizeof(iso), NULL, NULL);
	open_json_object(NULL);
	print_string(PRINT_JSON, "timestamp", NULL, iso);
	print_float(PRINT_JSON, "interval_s", NULL, secs);
	if (!opts.json)
		printf("--- %s: counters over the last %.3f s (interval %g s)\n",
		       iso, secs, iv->secs);
}

/**
 * interval_run() - the samples of interval mode
 * @iv: the interval and count
 * @key: the JSON key of each sample's array ("sets", "conns")
 * @sample: prints one show, as an array under @key
 *
 * The baseline sample is printed to /dev/null. In JSON each sample is
 * one object per line: timestamp, interval_s and @key.
 */
void interval_run(const struct interval *iv, const char *key,
		  void (*sample)(const char *key))
{
	double next, last;
	int out, null;
	u64 n;

	fflush(stdout);
	out = dup(STDOUT_FILENO);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (out < 0 || null < 0 || dup2(null, STDOUT_FILENO) < 0) {
		fprintf(stderr, "mrc: cannot set up the baseline sample\n");
		exit(EXIT_KERNEL);
	}
	delta.gen = 1;
	last = now_s();
	sample(key);
	fflush(stdout);
	dup2(out, STDOUT_FILENO);
	close(out);
	close(null);
	next = last;
	for (n = 0; !iv->count || n < iv->count; n++) {
		next += iv->secs;
		sleep_until(next);
		delta.gen++;
		sample_head(iv, now_s() - last);
		last = now_s();
		sample(key);
		close_json_object();
		fflush(stdout);
		/* Drop what two samples in a row have not shown. */
		if (delta.n > 64 && 4 * delta.n > delta.cap)
			delta_rebuild(delta.cap);
	}
}
