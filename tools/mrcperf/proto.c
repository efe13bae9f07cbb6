// SPDX-License-Identifier: GPL-2.0
/*
 * The two text messages of the mrcperf protocol, both one line of ASCII:
 *
 * The client's first message on every connection:
 *   MRCPERF1 session=HEX conn=I conns=N mode=stream|pingpong verify=0|1
 *            size=BYTES seed=N count=N time=SECONDS reverse=0|1
 *
 * The server's last message, after the client's end of file (with
 * reverse=1, after the server's own messages):
 *   MRCPERF1 REPORT messages=N bytes=N errors=N usec=N[ error=TEXT]
 * or, when it refuses the control message:
 *   MRCPERF1 ERROR TEXT
 *
 * Unknown keys are ignored, so that later versions can add some.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mrcperf.h"

#define REPORT_TAG	MRCPERF_MAGIC " REPORT "
#define ERROR_TAG	MRCPERF_MAGIC " ERROR "

bool parse_u64(const char *s, u64 *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end;
}

static bool parse_u32(const char *s, u32 *v)
{
	u64 x;

	if (!parse_u64(s, &x) || x > 0xffffffffULL)
		return false;
	*v = x;
	return true;
}

static const char *mode_name(enum mrcperf_mode mode)
{
	return mode == MODE_PINGPONG ? "pingpong" : "stream";
}

int ctrl_format(const struct mrcperf_ctrl *c, char *buf, size_t len)
{
	return snprintf(buf, len,
			"%s session=%s conn=%u conns=%u mode=%s verify=%d size=%u seed=%llu count=%llu time=%.3f reverse=%d",
			MRCPERF_MAGIC, c->session, c->conn, c->conns, mode_name(c->mode),
			c->verify, c->size, c->seed, c->count, c->duration, c->reverse);
}

enum ctrl_key {
	CK_SESSION, CK_CONN, CK_CONNS, CK_MODE, CK_VERIFY, CK_SIZE, CK_SEED,
	CK_COUNT, CK_TIME, CK_REVERSE, CK_NR,
};

static const char * const ctrl_keys[CK_NR] = {
	[CK_SESSION] = "session", [CK_CONN] = "conn", [CK_CONNS] = "conns",
	[CK_MODE] = "mode", [CK_VERIFY] = "verify", [CK_SIZE] = "size",
	[CK_SEED] = "seed", [CK_COUNT] = "count", [CK_TIME] = "time",
	[CK_REVERSE] = "reverse",
};

/* Keys a control message must have; count, time and reverse default to 0. */
#define CTRL_REQUIRED	((1U << CK_COUNT) - 1)

static bool ctrl_field(struct mrcperf_ctrl *c, enum ctrl_key key, const char *val)
{
	u32 verify, reverse;
	char *end;

	switch (key) {
	case CK_SESSION:
		if (!*val || strlen(val) >= sizeof(c->session) ||
		    strspn(val, "0123456789abcdef") != strlen(val))
			return false;
		strcpy(c->session, val);
		return true;
	case CK_CONN:
		return parse_u32(val, &c->conn);
	case CK_CONNS:
		return parse_u32(val, &c->conns) && c->conns && c->conns <= MRCPERF_MAX_CONNS;
	case CK_MODE:
		if (!strcmp(val, "stream"))
			c->mode = MODE_STREAM;
		else if (!strcmp(val, "pingpong"))
			c->mode = MODE_PINGPONG;
		else
			return false;
		return true;
	case CK_VERIFY:
		if (!parse_u32(val, &verify) || verify > 1)
			return false;
		c->verify = verify;
		return true;
	case CK_SIZE:
		return parse_u32(val, &c->size) && c->size && c->size <= MRC_MSG_MAX;
	case CK_SEED:
		return parse_u64(val, &c->seed);
	case CK_COUNT:
		return parse_u64(val, &c->count);
	case CK_TIME:
		c->duration = strtod(val, &end);
		return *val && !*end && c->duration >= 0;
	case CK_REVERSE:
		if (!parse_u32(val, &reverse) || reverse > 1)
			return false;
		c->reverse = reverse;
		return true;
	default:
		return false;
	}
}

int ctrl_parse(struct mrcperf_ctrl *c, const char *msg, char *err, size_t errlen)
{
	char copy[MRCPERF_CTRL_MAX], *tok, *save, *eq;
	unsigned int seen = 0;
	int k;

	memset(c, 0, sizeof(*c));
	if (strlen(msg) >= sizeof(copy) || strncmp(msg, MRCPERF_MAGIC " ", 9)) {
		snprintf(err, errlen, "not an %s control message", MRCPERF_MAGIC);
		return -1;
	}
	strcpy(copy, msg + 9);
	for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		eq = strchr(tok, '=');
		if (!eq) {
			snprintf(err, errlen, "control message: bad field \"%.64s\"", tok);
			return -1;
		}
		*eq = '\0';
		for (k = 0; k < CK_NR; k++)
			if (!strcmp(tok, ctrl_keys[k]))
				break;
		if (k == CK_NR)
			continue;
		if (!ctrl_field(c, k, eq + 1)) {
			snprintf(err, errlen, "control message: bad %s=%.64s", tok, eq + 1);
			return -1;
		}
		seen |= 1U << k;
	}
	for (k = 0; k < CK_NR; k++) {
		if ((CTRL_REQUIRED & ~seen) & (1U << k)) {
			snprintf(err, errlen, "control message lacks %s=", ctrl_keys[k]);
			return -1;
		}
	}
	if (c->conn >= c->conns) {
		snprintf(err, errlen, "control message: conn=%u of conns=%u", c->conn, c->conns);
		return -1;
	}
	if (c->reverse && c->mode != MODE_STREAM) {
		snprintf(err, errlen, "control message: reverse=1 is for stream mode");
		return -1;
	}
	return 0;
}

/* Never @avoid bytes long: in reverse, the client tells the report from
 * the data, all of it @avoid-byte messages, by its length. A leading zero
 * in usec= makes it one longer.
 */
int report_format(const struct mrcperf_report *r, char *buf, size_t len, u32 avoid)
{
	const char *pad = "";
	int n;

	for (;;) {
		n = snprintf(buf, len, "%smessages=%llu bytes=%llu errors=%llu usec=%s%llu%s%s",
			     REPORT_TAG, r->messages, r->bytes, r->errors, pad, r->usec,
			     r->error[0] ? " error=" : "", r->error);
		if (n != (int)avoid || *pad)
			return n;
		pad = "0";
	}
}

int error_format(const char *text, char *buf, size_t len)
{
	return snprintf(buf, len, "%s%s", ERROR_TAG, text);
}

/* Parse a report; an ERROR message or a malformed report fails with @err. */
int report_parse(struct mrcperf_report *r, const char *msg, char *err, size_t errlen)
{
	static const char * const keys[] = { "messages=", "bytes=", "errors=", "usec=" };
	u64 *vals[] = { &r->messages, &r->bytes, &r->errors, &r->usec };
	char num[32];
	const char *p;
	size_t i, n;

	memset(r, 0, sizeof(*r));
	if (!strncmp(msg, ERROR_TAG, strlen(ERROR_TAG))) {
		snprintf(err, errlen, "server refused: %.200s", msg + strlen(ERROR_TAG));
		return -1;
	}
	if (strncmp(msg, REPORT_TAG, strlen(REPORT_TAG)))
		goto bad;
	p = msg + strlen(REPORT_TAG);
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		if (strncmp(p, keys[i], strlen(keys[i])))
			goto bad;
		p += strlen(keys[i]);
		n = strcspn(p, " ");
		if (n >= sizeof(num))
			goto bad;
		memcpy(num, p, n);
		num[n] = '\0';
		if (!parse_u64(num, vals[i]))
			goto bad;
		p += n;
		if (*p == ' ')
			p++;
	}
	if (!strncmp(p, "error=", 6))
		snprintf(r->error, sizeof(r->error), "%s", p + 6);
	return 0;
bad:
	snprintf(err, errlen, "malformed report from the server: \"%.120s\"", msg);
	return -1;
}
