/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The JSON writer of the project's tools (mrc, mrcperf): it tracks only
 * depth and commas. Each value starts with jsonw_key(), which writes the
 * comma, the line break and indent (when indenting) and the key, if any;
 * the caller then writes the value itself, or calls one of the helpers
 * below that do both.
 */
#ifndef _MRC_JSONW_H
#define _MRC_JSONW_H

#include <stdbool.h>
#include <stdio.h>

/**
 * struct jsonw - a JSON document being written
 * @f: where it goes
 * @indent: spaces a level, each value on a line of its own; 0 writes
 *	everything on one line, with no space after a key's colon
 * @depth: objects and arrays open
 * @first: nothing yet in the innermost one
 */
struct jsonw {
	FILE *f;
	int indent;
	int depth;
	bool first;
};

void jsonw_init(struct jsonw *w, FILE *f, int indent);
void jsonw_key(struct jsonw *w, const char *key);
void jsonw_open(struct jsonw *w, const char *key, char bracket);
void jsonw_close(struct jsonw *w, char bracket);
void jsonw_string(FILE *f, const char *s);
void jsonw_str(struct jsonw *w, const char *key, const char *s);
void jsonw_u64(struct jsonw *w, const char *key, unsigned long long v);
void jsonw_bool(struct jsonw *w, const char *key, bool v);

#endif /* _MRC_JSONW_H */
