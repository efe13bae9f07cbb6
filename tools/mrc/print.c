// SPDX-License-Identifier: GPL-2.0
/*
 * Output in the manner of iproute2's json_print: each call names a value
 * once, with a JSON key and a text format, and prints whichever -j asks for.
 * The JSON is tools/lib/jsonw.c's; -p indents it.
 */
#include <sys/time.h>
#include <time.h>

#include "../lib/jsonw.h"
#include "mrc.h"

#define JSON_INDENT	4

static struct jsonw jw;

/* Begin a value (jsonw_key()), on stdout, indented with -p. */
static void json_key(const char *key)
{
	if (!jw.f)
		jsonw_init(&jw, stdout, opts.pretty ? JSON_INDENT : 0);
	jsonw_key(&jw, key);
}

static void json_open(const char *key, char bracket)
{
	if (!opts.json)
		return;
	if (!jw.f)
		jsonw_init(&jw, stdout, opts.pretty ? JSON_INDENT : 0);
	jsonw_open(&jw, key, bracket);
}

/* A value at the top ends its line: monitor prints one per event. */
static void json_close(char bracket)
{
	if (!opts.json)
		return;
	jsonw_close(&jw, bracket);
}

void open_json_object(const char *key)
{
	json_open(key, '{');
}

void close_json_object(void)
{
	json_close('}');
}

void open_json_array(const char *key)
{
	json_open(key, '[');
}

void close_json_array(void)
{
	json_close(']');
}

void print_string(enum print_type t, const char *key, const char *fmt,
		  const char *val)
{
	if (opts.json && (t & PRINT_JSON)) {
		json_key(key);
		jsonw_string(stdout, val);
	} else if (!opts.json && (t & PRINT_FP) && fmt) {
		printf(fmt, val);
	}
}

void print_u64(enum print_type t, const char *key, const char *fmt, u64 val)
{
	if (opts.json && (t & PRINT_JSON)) {
		json_key(key);
		printf("%llu", val);
	} else if (!opts.json && (t & PRINT_FP) && fmt) {
		printf(fmt, val);
	}
}

/* The text is @fmt, as is, when @val is true; nothing when it is false. */
void print_bool(enum print_type t, const char *key, const char *fmt, bool val)
{
	if (opts.json && (t & PRINT_JSON)) {
		json_key(key);
		fputs(val ? "true" : "false", stdout);
	} else if (!opts.json && (t & PRINT_FP) && fmt && val) {
		fputs(fmt, stdout);
	}
}

/* JSON gets six significant digits, whatever @fmt gives the text. */
void print_float(enum print_type t, const char *key, const char *fmt,
		 double val)
{
	if (opts.json && (t & PRINT_JSON)) {
		json_key(key);
		printf("%g", val);
	} else if (!opts.json && (t & PRINT_FP) && fmt) {
		printf(fmt, val);
	}
}

/**
 * time_iso() - the time now, local, as 2026-11-29T02:40:01.123456
 * @buf: where it goes
 * @len: room in @buf (ISO_TIME_LEN will do)
 * @tm: if not NULL, the time broken down, for other formats
 * @usec: if not NULL, its microseconds
 */
void time_iso(char *buf, size_t len, struct tm *tm, long *usec)
{
	struct timeval tv;
	struct tm t;
	char date[32];

	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &t);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &t);
	snprintf(buf, len, "%s.%06ld", date, (long)tv.tv_usec);
	if (tm)
		*tm = t;
	if (usec)
		*usec = tv.tv_usec;
}

void print_nl(void)
{
	if (!opts.json)
		putchar('\n');
}
