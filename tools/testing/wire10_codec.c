// SPDX-License-Identifier: GPL-2.0
/*
 * wire10_codec: the module's net/mrc/wire10.c, built in user space, for
 * selftests/net/mrc/mrc10_selftest.py --codec, which holds it to the
 * independent decoder (mrc10.py) both ways:
 *
 *   wire10_codec write N SEED   N packets of each kind, from fields drawn
 *                               from SEED: "KIND FIELDS HEX" a line, the
 *                               packet whole (payload and pad zero, ICRC
 *                               zero), for the decoder to read
 *   wire10_codec read           "KIND HEX" lines on standard input, built
 *                               by the decoder: "KIND FIELDS" for each,
 *                               or "KIND bad=N" when it cannot be read
 *
 * FIELDS is "name=value ..." in a fixed order (print_*()), values in
 * decimal, the same as the decoder prints them.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../net/mrc/wire10.h"

static u64 rng;

static u64 draw(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return rng >> 11;
}

static void hex(const u8 *b, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		printf("%02x", b[i]);
}

static void print_data(const struct mrc10_data_info *d)
{
	printf("qpn=%u psn=%u msn=%u offset=%u msg_len=%u rkey=%u plen=%u ",
	       d->qpn, d->psn, d->msn, d->offset, d->msg_len, d->rkey, d->plen);
	printf("ts=%u ", d->ts);
	printf("ack_req=%d retx=%d last=%d trimmed=%d", d->ack_req, d->retx,
	       d->last, d->trimmed);
}

static void print_sack(const struct mrc10_sack_info *s)
{
	printf("qpn=%u psn=%u cack_psn=%u ack_psn_offset=%d pr=%d m=%u ",
	       s->qpn, s->psn, s->cack_psn, s->ack_psn_offset, s->pr, s->m);
	printf("entropy=%u spdcid=%u dpdcid=%u mpr=%u sack_offset=%d ",
	       s->entropy, s->spdcid, s->dpdcid, s->mpr, s->sack_offset);
	printf("bitmap=%llu ts=%u ooo_count=%u rcvd=%u x=%d rwnd=%u ",
	       (unsigned long long)s->bitmap, s->ts, s->ooo_count, s->rcvd,
	       s->x, s->rwnd);
	printf("hold_us=%u xflags=%u", s->hold_us, s->xflags);
}

static void print_nack(const struct mrc10_nack_info *n)
{
	printf("qpn=%u psn=%u reason=%u entropy=%u spdcid=%u dpdcid=%u nack_psn=%u ts=%u",
	       n->qpn, n->psn, n->reason, n->entropy, n->spdcid, n->dpdcid,
	       n->nack_psn, n->ts);
}

static void write_data(u8 *buf)
{
	struct mrc10_data_info d = {
		.qpn = draw() & 0xffffff,
		.psn = draw() & 0xffffff,
		.msn = draw(),
		.rkey = draw() & 0xffffff,
		.ts = draw(),
		.ack_req = draw() & 1,
		.retx = draw() & 1,
	};
	unsigned int len, pad;

	d.msg_len = draw() % 5000;
	d.offset = draw() & 1 ? 0 : draw() % (d.msg_len + 1);
	d.plen = draw() % (d.msg_len - d.offset + 1);
	d.last = d.offset + d.plen == d.msg_len;
	len = mrc10_data_write(buf, &d);
	pad = mrc10_data_pad(d.plen);
	memset(buf + len, 0, d.plen + pad + MRC10_ICRC_LEN);
	printf("data ");
	print_data(&d);
	printf(" ");
	hex(buf, len + d.plen + pad + MRC10_ICRC_LEN);
	printf("\n");
}

static void write_sack(u8 *buf)
{
	struct mrc10_sack_info s = {
		.qpn = draw() & 0xffffff,
		.psn = draw() & 0xffffff,
		.cack_psn = draw() & 0xffffff,
		.ack_psn_offset = draw(),
		.pr = draw() & 1,
		.m = draw() % 3,
		.entropy = draw(),
		.spdcid = draw(),
		.dpdcid = draw(),
		.mpr = draw(),
		.sack_offset = draw(),
		.bitmap = draw() ^ draw() << 32,
		.ts = draw(),
		.ooo_count = draw() & 0x7fff,
		.rcvd = draw() & 0xffffff,
		.x = draw() & 1,
	};
	unsigned int len;

	if (s.x) {
		s.rwnd = draw();
		s.hold_us = draw();
		s.xflags = draw() & 3;
	}
	len = mrc10_sack_write(buf, &s);
	memset(buf + len, 0, MRC10_ICRC_LEN);
	printf("sack ");
	print_sack(&s);
	printf(" ");
	hex(buf, len + MRC10_ICRC_LEN);
	printf("\n");
}

static void write_nack(u8 *buf)
{
	static const u8 reasons[] = { 0x01, 0x02, 0x06, 0x07, 0x0a, 0x0b, 0x19 };
	struct mrc10_nack_info n = {
		.qpn = draw() & 0xffffff,
		.psn = draw() & 0xffffff,
		.reason = reasons[draw() % sizeof(reasons)],
		.entropy = draw(),
		.spdcid = draw(),
		.dpdcid = draw(),
		.nack_psn = draw() & 0xffffff,
		.ts = draw(),
	};
	unsigned int len = mrc10_nack_write(buf, &n);

	memset(buf + len, 0, MRC10_ICRC_LEN);
	printf("nack ");
	print_nack(&n);
	printf(" ");
	hex(buf, len + MRC10_ICRC_LEN);
	printf("\n");
}

static int unhex(const char *s, u8 *out, size_t max)
{
	size_t n = 0;
	unsigned int b;

	while (s[0] && s[1]) {
		if (n == max || sscanf(s, "%2x", &b) != 1)
			return -1;
		out[n++] = b;
		s += 2;
	}
	return *s ? -1 : (int)n;
}

static int read_all(void)
{
	static char kind[16], h[20000];
	static u8 buf[10000];
	unsigned int lines = 0;
	int len;

	while (scanf("%15s %19999s", kind, h) == 2) {
		union {
			struct mrc10_data_info d;
			struct mrc10_sack_info s;
			struct mrc10_nack_info n;
		} u;
		enum mrc10_bad bad;

		lines++;
		len = unhex(h, buf, sizeof(buf));
		if (len < 0) {
			fprintf(stderr, "wire10_codec: line %u unreadable\n", lines);
			return 2;
		}
		memset(&u, 0, sizeof(u));
		printf("%s ", kind);
		if (!strcmp(kind, "data") || !strcmp(kind, "data_trim")) {
			/* data_trim: as if it carried the trim DSCP */
			bad = mrc10_data_read(buf, len, kind[4] == '_', &u.d);
			if (!bad && !u.d.trimmed && !mrc10_data_in_place(&u.d))
				bad = MRC10_BAD_FIELD;
			if (!bad)
				print_data(&u.d);
		} else if (!strcmp(kind, "sack")) {
			bad = mrc10_sack_read(buf, len, &u.s);
			if (!bad)
				print_sack(&u.s);
		} else if (!strcmp(kind, "nack")) {
			bad = mrc10_nack_read(buf, len, &u.n);
			if (!bad)
				print_nack(&u.n);
		} else {
			fprintf(stderr, "wire10_codec: line %u: kind %s\n", lines, kind);
			return 2;
		}
		if (bad)
			printf("bad=%d", bad);
		printf("\n");
	}
	return lines ? 0 : 2;
}

int main(int argc, char **argv)
{
	static u8 buf[10000];
	unsigned long n, i;

	if (argc == 2 && !strcmp(argv[1], "read"))
		return read_all();
	if (argc != 4 || strcmp(argv[1], "write")) {
		fprintf(stderr, "usage: wire10_codec write N SEED | read\n");
		return 2;
	}
	n = strtoul(argv[2], NULL, 0);
	rng = strtoull(argv[3], NULL, 0);
	for (i = 0; i < n; i++) {
		write_data(buf);
		write_sack(buf);
		write_nack(buf);
	}
	return 0;
}
