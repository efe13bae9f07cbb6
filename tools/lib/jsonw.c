// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON writer of the project's tools (jsonw.h).
 */
#include "jsonw.h"

void jsonw_init(struct jsonw *w, FILE *f, int indent)
{
	w->f = f;
	w->indent = indent;
	w->depth = 0;
	w->first = true;
}

/* A string as JSON: quotes and backslashes escaped, control characters
 * (and DEL) as \u escapes; other bytes as they are (UTF-8 stays UTF-8).
 */
void jsonw_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* Begin a value: the comma, the line break and indent, then the key. */
void jsonw_key(struct jsonw *w, const char *key)
{
	if (!w->first)
		fputc(',', w->f);
	if (w->indent && w->depth)
		fprintf(w->f, "\n%*s", w->indent * w->depth, "");
	w->first = false;
	if (key) {
		jsonw_string(w->f, key);
		fputs(w->indent ? ": " : ":", w->f);
	}
}

void jsonw_open(struct jsonw *w, const char *key, char bracket)
{
	jsonw_key(w, key);
	fputc(bracket, w->f);
	w->depth++;
	w->first = true;
}

/* A value at the top ends its line, and the next one at the top starts
 * with no comma: a stream of documents, a line each (mrc monitor).
 */
void jsonw_close(struct jsonw *w, char bracket)
{
	w->depth--;
	if (w->indent && !w->first)
		fprintf(w->f, "\n%*s", w->indent * w->depth, "");
	fputc(bracket, w->f);
	w->first = !w->depth;
	if (!w->depth)
		fputc('\n', w->f);
}

void jsonw_str(struct jsonw *w, const char *key, const char *s)
{
	jsonw_key(w, key);
	jsonw_string(w->f, s);
}

void jsonw_u64(struct jsonw *w, const char *key, unsigned long long v)
{
	jsonw_key(w, key);
	fprintf(w->f, "%llu", v);
}

void jsonw_bool(struct jsonw *w, const char *key, bool v)
{
	jsonw_key(w, key);
	fputs(v ? "true" : "false", w->f);
}
