// SPDX-License-Identifier: GPL-2.0
/*
 * icrc_test: the module's net/mrc/icrc.c, built in user space, against
 * vectors from an independent reference (vectors.py, run): each line of
 * standard input is a packet's source, final destination, UDP ports and
 * length, its MRC headers, its payload and pad, and the ICRC expected on
 * the wire, all in hex. The payload goes in two pieces, as a packet's
 * page fragments would. Exits non-zero on the first mismatch, or on a
 * line it cannot read.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>

#include "icrc.h"

static int unhex(const char *s, u8 *out, size_t max)
{
	size_t n = 0;
	unsigned int b;

	if (!strcmp(s, "-"))
		return 0;
	while (s[0] && s[1]) {
		if (n == max || sscanf(s, "%2x", &b) != 1)
			return -1;
		out[n++] = b;
		s += 2;
	}
	return *s ? -1 : (int)n;
}

int main(void)
{
	char sa[64], da[64], hh[1024], ph[20000], want[16];
	static u8 hdrs[512], pay[10000];
	unsigned int sport, dport, ulen, lines = 0;
	struct in6_addr s6, d6;
	int hlen, plen;

	while (scanf("%63s %63s %u %u %u %1023s %19999s %15s", sa, da, &sport,
		     &dport, &ulen, hh, ph, want) == 8) {
		__le32 icrc;
		char got[9];
		u32 crc;

		hlen = unhex(hh, hdrs, sizeof(hdrs));
		plen = unhex(ph, pay, sizeof(pay));
		if (inet_pton(AF_INET6, sa, &s6) != 1 ||
		    inet_pton(AF_INET6, da, &d6) != 1 ||
		    hlen < MRC_BTH_LEN || plen < 0) {
			fprintf(stderr, "icrc_test: line %u unreadable\n",
				lines + 1);
			return 2;
		}
		crc = mrc_icrc_hdrs(&s6, &d6, htons(sport), htons(dport), ulen,
				    hdrs, hlen);
		crc = mrc_icrc_update(crc, pay, plen / 3);
		crc = mrc_icrc_update(crc, pay + plen / 3, plen - plen / 3);
		icrc = mrc_icrc_final(crc);
		snprintf(got, sizeof(got), "%02x%02x%02x%02x",
			 ((u8 *)&icrc)[0], ((u8 *)&icrc)[1],
			 ((u8 *)&icrc)[2], ((u8 *)&icrc)[3]);
		if (strcmp(got, want)) {
			fprintf(stderr, "icrc_test: line %u: %s, expected %s\n",
				lines + 1, got, want);
			return 1;
		}
		lines++;
	}
	if (!lines) {
		fprintf(stderr, "icrc_test: no vectors\n");
		return 2;
	}
	printf("icrc_test: %u vectors match\n", lines);
	return 0;
}
