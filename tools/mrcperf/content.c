// SPDX-License-Identifier: GPL-2.0
/*
 * Message content for --verify: a deterministic function of (seed,
 * connection, message index, size), so that the receiver can regenerate
 * every byte and find the first one that differs.
 *
 * A message of MRCPERF_HDR_LEN bytes or more starts with a header:
 *   bytes 0-7    message index, big endian
 *   bytes 8-11   message length, big endian
 *   bytes 12-15  checksum of bytes 16 .. end, big endian
 * followed by the pseudo-random stream of the message. A shorter message is
 * the stream alone. The stream is splitmix64 seeded with the message key;
 * each output word gives 8 bytes, least significant first. The checksum is
 * FNV-1a over those 64-bit words rather than over bytes, with a fold after
 * each multiplication, so that it costs little more than generating them.
 */
#include <endian.h>
#include <stdarg.h>
#include <string.h>

#include "mrcperf.h"

#define GOLDEN_GAMMA	0x9e3779b97f4a7c15ULL

static u64 mix64(u64 z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline u64 stream_next(u64 *state)
{
	*state += GOLDEN_GAMMA;
	return mix64(*state);
}

static u64 msg_key(const struct content *c, u64 idx)
{
	u64 k = mix64(c->seed + GOLDEN_GAMMA);

	k = mix64(k ^ c->conn);
	return mix64(k ^ idx);
}

/*
 * Checksum of the stream, one 64-bit word at a time, started from the
 * message key so that even a header-only message names its connection.
 */
#define SUM_INIT	0xcbf29ce484222325ULL
#define SUM_PRIME	0x100000001b3ULL

static inline u64 sum_word(u64 h, u64 w)
{
	h = (h ^ w) * SUM_PRIME;
	return h ^ (h >> 32);
}

static inline u32 sum_final(u64 h)
{
	return (u32)(h ^ (h >> 32));
}

/* The last, partial word of a stream of @n bytes: only its first n % 8. */
static inline u64 tail_mask(size_t n)
{
	return (1ULL << (8 * (n % 8))) - 1;
}

/* Write @n bytes of the stream of @key to @p; returns their checksum. */
static u32 stream_fill(u64 key, u8 *p, size_t n)
{
	u64 state = key, h = SUM_INIT ^ key, w, le;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		w = stream_next(&state);
		h = sum_word(h, w);
		le = htole64(w);
		memcpy(p + i, &le, 8);
	}
	if (i < n) {
		w = stream_next(&state) & tail_mask(n);
		h = sum_word(h, w);
		for (; i < n; i++, w >>= 8)
			p[i] = (u8)w;
	}
	return sum_final(h);
}

/*
 * Offset of the first byte of @p that differs from the stream of @key (the
 * expected byte in *@want), or @n with the checksum in *@sum.
 */
static size_t stream_cmp(u64 key, const u8 *p, size_t n, u8 *want, u32 *sum)
{
	u64 state = key, h = SUM_INIT ^ key, w, got;
	size_t i, j;

	for (i = 0; i < n; i += 8) {
		w = stream_next(&state);
		if (i + 8 <= n) {
			memcpy(&got, p + i, 8);
			got = le64toh(got);
		} else {
			w &= tail_mask(n);
			for (got = 0, j = n; j-- > i;)
				got = got << 8 | p[j];
		}
		if (got != w) {
			for (j = i; p[j] == (u8)w; j++)
				w >>= 8;
			*want = (u8)w;
			return j;
		}
		h = sum_word(h, w);
	}
	*sum = sum_final(h);
	return n;
}

void content_fill(const struct content *c, u64 idx, u8 *buf)
{
	u64 be_idx = htobe64(idx);
	u32 be_len = htobe32(c->size), be_sum;

	if (c->size < MRCPERF_HDR_LEN) {
		stream_fill(msg_key(c, idx), buf, c->size);
		return;
	}
	be_sum = htobe32(stream_fill(msg_key(c, idx), buf + MRCPERF_HDR_LEN,
				     c->size - MRCPERF_HDR_LEN));
	memcpy(buf, &be_idx, 8);
	memcpy(buf + 8, &be_len, 4);
	memcpy(buf + 12, &be_sum, 4);
}

void verifier_init(struct verifier *v, const struct content *c)
{
	memset(v, 0, sizeof(*v));
	v->c = *c;
}

static bool verify_fail(struct verifier *v, const char *fmt, ...)
{
	va_list ap;

	if (!v->errors++) {
		va_start(ap, fmt);
		vsnprintf(v->first, sizeof(v->first), fmt, ap);
		va_end(ap);
	}
	return false;
}

static bool bad_byte(struct verifier *v, u64 idx, size_t off, u8 want, u8 got)
{
	return verify_fail(v, "message %llu: offset %zu: expected 0x%02x, got 0x%02x",
			   idx, off, want, got);
}

/*
 * Check the length of the next message only: what the receiver does
 * without --verify.
 */
bool verify_len(struct verifier *v, size_t len)
{
	u64 idx = v->next++;

	if (len != v->c.size)
		return verify_fail(v, "message %llu: length %zu, expected %u",
				   idx, len, v->c.size);
	return true;
}

/*
 * Check the next message completely. After a wrong index the verifier
 * expects the one after it, so a single lost message counts as one error
 * rather than spoiling the rest of the run.
 */
bool verify_msg(struct verifier *v, const u8 *buf, size_t len)
{
	u64 idx = v->next, hidx;
	size_t plen, off;
	u32 hlen, hsum, sum;
	const u8 *payload;
	u8 want = 0;

	if (!verify_len(v, len))
		return false;
	if (len < MRCPERF_HDR_LEN) {
		off = stream_cmp(msg_key(&v->c, idx), buf, len, &want, &sum);
		return off < len ? bad_byte(v, idx, off, want, buf[off]) : true;
	}
	memcpy(&hidx, buf, 8);
	memcpy(&hlen, buf + 8, 4);
	memcpy(&hsum, buf + 12, 4);
	hidx = be64toh(hidx);
	hlen = be32toh(hlen);
	hsum = be32toh(hsum);
	if (hidx != idx) {
		v->next = hidx + 1;
		return verify_fail(v,
				   "message %llu: got index %llu: lost, duplicated or reordered",
				   idx, hidx);
	}
	if (hlen != len)
		return verify_fail(v, "message %llu: offset 8: header length %u, expected %zu",
				   idx, hlen, len);
	payload = buf + MRCPERF_HDR_LEN;
	plen = len - MRCPERF_HDR_LEN;
	off = stream_cmp(msg_key(&v->c, idx), payload, plen, &want, &sum);
	if (off < plen)
		return bad_byte(v, idx, off + MRCPERF_HDR_LEN, want, payload[off]);
	/* The content is right, so only the checksum field itself can be wrong. */
	if (hsum != sum)
		return verify_fail(v, "message %llu: offset 12: checksum 0x%08x, expected 0x%08x",
				   idx, hsum, sum);
	return true;
}
