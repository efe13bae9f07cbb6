// SPDX-License-Identifier: GPL-2.0
/*
 * mrcperf's report and control messages (tools/mrcperf/proto.c), on the
 * host: in a reverse session the client tells the server's report from
 * its data by length alone, so a report must never be as long as a data
 * message, and must still parse to what was formatted. Every length a
 * report can have is tried as the message size.
 */
#include <stdio.h>
#include <string.h>

#include "../mrcperf/mrcperf.h"

static int failures;

#define CHECK(c, ...) do {						\
	if (!(c)) {							\
		fprintf(stderr, "mrcperf_proto: " __VA_ARGS__);	\
		fputc('\n', stderr);					\
		failures++;						\
	}								\
} while (0)

static void report_roundtrip(const struct mrcperf_report *r)
{
	char buf[MRCPERF_CTRL_MAX], err[MRCPERF_ERR_LEN];
	struct mrcperf_report back;
	int natural, n;

	natural = report_format(r, buf, sizeof(buf), 0);
	CHECK(natural > 0 && (size_t)natural == strlen(buf), "report length %d", natural);
	/* As long as the message size: one longer, and the same report. */
	n = report_format(r, buf, sizeof(buf), natural);
	CHECK(n != natural && (size_t)n == strlen(buf),
	      "report of %d bytes with messages of %d bytes", n, natural);
	CHECK(!report_parse(&back, buf, err, sizeof(err)), "%s", err);
	CHECK(back.messages == r->messages && back.bytes == r->bytes &&
	      back.errors == r->errors && back.usec == r->usec &&
	      !strcmp(back.error, r->error), "\"%s\" parsed to other values", buf);
	/* Any other size leaves it as it is. */
	n = report_format(r, buf, sizeof(buf), natural + 1);
	CHECK(n == natural, "report changed to %d bytes for another size", n);
}

int main(void)
{
	struct mrcperf_report r = { .messages = 3, .bytes = 159, .usec = 0 };
	struct mrcperf_ctrl c = {
		.session = "0123456789abcdef", .conns = 2, .conn = 1, .size = 1000,
		.count = 7, .reverse = true,
	}, back;
	char buf[MRCPERF_CTRL_MAX], err[MRCPERF_ERR_LEN];
	u64 usec;

	for (usec = 0; usec < 100000000; usec = usec * 10 + 7) {
		r.usec = usec;
		r.error[0] = '\0';
		report_roundtrip(&r);
		snprintf(r.error, sizeof(r.error), "recv: timed out");
		report_roundtrip(&r);
	}
	/* The control message carries reverse=, and only for stream mode. */
	ctrl_format(&c, buf, sizeof(buf));
	CHECK(!ctrl_parse(&back, buf, err, sizeof(err)) && back.reverse, "%s: %s", buf, err);
	c.mode = MODE_PINGPONG;
	ctrl_format(&c, buf, sizeof(buf));
	CHECK(ctrl_parse(&back, buf, err, sizeof(err)), "%s accepted", buf);
	/* A client without -R may say nothing of it. */
	snprintf(buf, sizeof(buf), "%s %s", "MRCPERF1 session=ab conn=0 conns=1",
		 "mode=stream verify=1 size=9 seed=1");
	CHECK(!ctrl_parse(&back, buf, err, sizeof(err)) && !back.reverse, "%s", err);
	if (!failures)
		printf("mrcperf_proto: reports and control messages OK\n");
	return failures ? 1 : 0;
}
