// SPDX-License-Identifier: GPL-2.0
/*
 * Results: a text table like iperf's, or one JSON object (-j). The JSON
 * writer is a few lines that track commas and indentation; nothing more is
 * needed for numbers, strings, booleans, objects and arrays.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/jsonw.h"
#include "mrcperf.h"

void conn_fail(struct conn_result *r, const char *fmt, ...)
{
	char msg[MRCPERF_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "mrcperf: conn %u: %s\n", r->conn, msg);
	if (!r->failed)
		memcpy(r->error, msg, sizeof(msg));
	r->failed = true;
}

bool results_ok(const struct conn_result *res, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!res[i].present || res[i].failed || res[i].verify_errors)
			return false;
	return true;
}

/* The fields of struct mrc_info, as JSON names them: without "mrci_". */
#define INFO_FIELD(f)	{ #f, offsetof(struct mrc_info, mrci_##f), \
			  sizeof(((struct mrc_info *)NULL)->mrci_##f) }

static const struct {
	const char *name;
	size_t off;
	size_t size;
} info_fields[] = {
	INFO_FIELD(state), INFO_FIELD(shutdown), INFO_FIELD(fin_flags),
	INFO_FIELD(mss), INFO_FIELD(srtt_us), INFO_FIELD(rttvar_us),
	INFO_FIELD(rto_us), INFO_FIELD(cwnd), INFO_FIELD(ssthresh),
	INFO_FIELD(inflight), INFO_FIELD(peer_rwnd), INFO_FIELD(rcv_wnd),
	INFO_FIELD(local_cid), INFO_FIELD(remote_cid), INFO_FIELD(bytes_sent),
	INFO_FIELD(bytes_acked), INFO_FIELD(bytes_received), INFO_FIELD(msgs_sent),
	INFO_FIELD(msgs_received), INFO_FIELD(pkts_sent), INFO_FIELD(pkts_retrans),
	INFO_FIELD(pkts_received), INFO_FIELD(pkts_dup), INFO_FIELD(sack_recovered),
	INFO_FIELD(rtos), INFO_FIELD(ecn_marks), INFO_FIELD(pkts_trimmed),
	INFO_FIELD(trim_retrans), INFO_FIELD(busy_us), INFO_FIELD(app_limited_us),
	INFO_FIELD(cwnd_limited_us), INFO_FIELD(wnd_limited_us),
	INFO_FIELD(rwnd_limited_us), INFO_FIELD(sndbuf_limited_us),
	INFO_FIELD(rcvbuf), INFO_FIELD(rcv_rtt_us), INFO_FIELD(sndbuf),
};

static u64 info_value(const struct mrc_info *info, size_t i)
{
	const u8 *p = (const u8 *)info + info_fields[i].off;
	u32 v32;
	u64 v64;

	switch (info_fields[i].size) {
	case 1:
		return *p;
	case 4:
		memcpy(&v32, p, 4);
		return v32;
	default:
		memcpy(&v64, p, 8);
		return v64;
	}
}

static void jw_double(struct jsonw *w, const char *key, double v)
{
	jsonw_key(w, key);
	fprintf(w->f, "%.3f", isfinite(v) ? v : 0.0);
}

struct totals {
	u64 messages;
	u64 bytes;
	u64 verify_errors;
	unsigned int failed;
	double seconds;
	const struct conn_result *first_failed;
	double *rtt;
	size_t nrtt;
	unsigned int ninfo;
	u64 pkts_sent;
	u64 pkts_retrans;
	u64 pkts_dup;
	u64 rtos;
	/* What held the senders back: busy_us and its parts, in ms. */
	u64 busy_ms, app_ms, cwnd_ms, wnd_ms, rwnd_ms, sndbuf_ms;
};

struct latency {
	double min, p50, p99, p999, max, mean;
};

static double seconds(u64 start_ns, u64 end_ns)
{
	return end_ns > start_ns ? (double)(end_ns - start_ns) / 1e9 : 0.0;
}

static double mbps(u64 bytes, double secs)
{
	return secs > 0 ? (double)bytes * 8 / secs / 1e6 : 0.0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted samples. */
static double percentile(const double *v, size_t n, double p)
{
	size_t rank = (size_t)ceil(p / 100.0 * (double)n);

	return v[rank ? rank - 1 : 0];
}

static void latency_of(const struct totals *t, struct latency *l)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < t->nrtt; i++)
		sum += t->rtt[i];
	l->min = t->rtt[0];
	l->p50 = percentile(t->rtt, t->nrtt, 50);
	l->p99 = percentile(t->rtt, t->nrtt, 99);
	l->p999 = percentile(t->rtt, t->nrtt, 99.9);
	l->max = t->rtt[t->nrtt - 1];
	l->mean = sum / (double)t->nrtt;
}

static void totals_of(struct totals *t, const struct conn_result *res, unsigned int n)
{
	u64 start = 0, end = 0;
	unsigned int i;
	size_t k;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < n; i++) {
		const struct conn_result *r = &res[i];

		t->messages += r->messages;
		t->bytes += r->bytes;
		t->verify_errors += r->verify_errors;
		t->nrtt += r->nrtt;
		if (r->failed || !r->present || r->verify_errors) {
			t->failed++;
			if (!t->first_failed)
				t->first_failed = r;
		}
		if (r->start_ns && (!start || r->start_ns < start))
			start = r->start_ns;
		if (r->end_ns > end)
			end = r->end_ns;
		if (r->have_info) {
			t->ninfo++;
			t->pkts_sent += r->info.mrci_pkts_sent;
			t->pkts_retrans += r->info.mrci_pkts_retrans;
			t->pkts_dup += r->info.mrci_pkts_dup;
			t->rtos += r->info.mrci_rtos;
			t->busy_ms += r->info.mrci_busy_us / 1000;
			t->app_ms += r->info.mrci_app_limited_us / 1000;
			t->cwnd_ms += r->info.mrci_cwnd_limited_us / 1000;
			t->wnd_ms += r->info.mrci_wnd_limited_us / 1000;
			t->rwnd_ms += r->info.mrci_rwnd_limited_us / 1000;
			t->sndbuf_ms += r->info.mrci_sndbuf_limited_us / 1000;
		}
	}
	t->seconds = start ? seconds(start, end) : 0.0;
	if (!t->nrtt)
		return;
	t->rtt = malloc(t->nrtt * sizeof(*t->rtt));
	if (!t->rtt) {
		t->nrtt = 0;
		return;
	}
	for (i = 0, k = 0; i < n; i++) {
		memcpy(t->rtt + k, res[i].rtt_us, res[i].nrtt * sizeof(*t->rtt));
		k += res[i].nrtt;
	}
	qsort(t->rtt, t->nrtt, sizeof(*t->rtt), cmp_double);
}

static const char *mode_str(const struct mrcperf_ctrl *c)
{
	return c->mode == MODE_PINGPONG ? "pingpong" : "stream";
}

static void print_text(FILE *f, const struct run_info *ri, const struct totals *t,
		       const struct conn_result *res, unsigned int n)
{
	const struct mrcperf_ctrl *c = ri->ctrl;
	struct latency l;
	unsigned int i;

	fprintf(f, "mrcperf %s: %s %s%s, peer %s, session %s\n", ri->role,
		run_proto(ri), mode_str(c), c->reverse ? " (reverse: the server sends)" : "",
		ri->peer, c->session);
	fprintf(f, "%u connection%s, %u-byte messages, ", c->conns, c->conns == 1 ? "" : "s",
		c->size);
	if (c->count)
		fprintf(f, "%llu per connection", c->count);
	else
		fprintf(f, "for %.3g s", c->duration);
	fprintf(f, ", verify %s, seed %llu\n", c->verify ? "on" : "off", c->seed);
	fprintf(f, "[ ID]      messages           bytes   seconds        Mbit/s   errors\n");
	for (i = 0; i < n; i++) {
		const struct conn_result *r = &res[i];
		double s = seconds(r->start_ns, r->end_ns);

		if (r->present)
			fprintf(f, "[%3u]  %12llu  %14llu  %8.3f  %12.2f  %7llu\n", r->conn,
				r->messages, r->bytes, s, mbps(r->bytes, s), r->verify_errors);
		if (r->failed)
			fprintf(f, "[%3u]  error: %s\n", r->conn, r->error);
	}
	fprintf(f, "[SUM]  %12llu  %14llu  %8.3f  %12.2f  %7llu\n", t->messages, t->bytes,
		t->seconds, mbps(t->bytes, t->seconds), t->verify_errors);
	if (t->nrtt) {
		latency_of(t, &l);
		fprintf(f, "latency_us: count %zu min %.1f p50 %.1f p99 %.1f", t->nrtt, l.min,
			l.p50, l.p99);
		fprintf(f, " p99.9 %.1f max %.1f mean %.1f\n", l.p999, l.max, l.mean);
	}
	if (t->ninfo) {
		fprintf(f, "mrc_info (sum of %u connections): pkts_sent %llu pkts_retrans %llu",
			t->ninfo, t->pkts_sent, t->pkts_retrans);
		fprintf(f, " pkts_dup %llu rtos %llu\n", t->pkts_dup, t->rtos);
		fprintf(f, "send limits, ms (sum of %u connections): busy %llu app %llu",
			t->ninfo, t->busy_ms, t->app_ms);
		fprintf(f, " cwnd %llu wnd %llu rwnd %llu sndbuf %llu\n", t->cwnd_ms,
			t->wnd_ms, t->rwnd_ms, t->sndbuf_ms);
	}
	if (t->failed)
		fprintf(f, "result: FAILED (%u of %u connections)\n", t->failed, n);
	else
		fprintf(f, "result: OK\n");
}

static void print_conn_json(struct jsonw *w, const struct conn_result *r)
{
	double s = seconds(r->start_ns, r->end_ns);
	size_t i;

	jsonw_open(w, NULL, '{');
	jsonw_u64(w, "conn", r->conn);
	jsonw_bool(w, "ok", r->present && !r->failed && !r->verify_errors);
	jsonw_u64(w, "messages", r->messages);
	jsonw_u64(w, "bytes", r->bytes);
	jw_double(w, "seconds", s);
	jw_double(w, "goodput_mbps", mbps(r->bytes, s));
	jsonw_u64(w, "verify_errors", r->verify_errors);
	if (r->failed)
		jsonw_str(w, "error", r->error);
	if (r->have_info) {
		jsonw_open(w, "mrc_info", '{');
		for (i = 0; i < ARRAY_SIZE(info_fields); i++)
			jsonw_u64(w, info_fields[i].name, info_value(&r->info, i));
		jsonw_close(w, '}');
	}
	jsonw_close(w, '}');
}

static void print_json(FILE *f, const struct run_info *ri, const struct totals *t,
		       const struct conn_result *res, unsigned int n)
{
	const struct mrcperf_ctrl *c = ri->ctrl;
	struct jsonw w;
	struct latency l;
	unsigned int i;

	jsonw_init(&w, f, 2);
	jsonw_open(&w, NULL, '{');
	jsonw_str(&w, "role", ri->role);
	jsonw_str(&w, "mode", mode_str(c));
	jsonw_bool(&w, "reverse", c->reverse);
	jsonw_str(&w, "proto", run_proto(ri));
	jsonw_str(&w, "peer", ri->peer);
	jsonw_str(&w, "session", c->session);
	jsonw_u64(&w, "size", c->size);
	jsonw_u64(&w, "connections", c->conns);
	jsonw_u64(&w, "count", c->count);
	jw_double(&w, "duration", c->duration);
	jsonw_bool(&w, "verify", c->verify);
	jsonw_u64(&w, "seed", c->seed);
	jsonw_u64(&w, "messages", t->messages);
	jsonw_u64(&w, "bytes", t->bytes);
	jw_double(&w, "seconds", t->seconds);
	jw_double(&w, "goodput_mbps", mbps(t->bytes, t->seconds));
	jsonw_u64(&w, "verify_errors", t->verify_errors);
	jsonw_u64(&w, "failed_connections", t->failed);
	jsonw_bool(&w, "ok", !t->failed);
	if (t->first_failed)
		jsonw_str(&w, "error", t->first_failed->failed ? t->first_failed->error :
		       "verification failed");
	if (t->nrtt) {
		latency_of(t, &l);
		jsonw_open(&w, "latency_us", '{');
		jsonw_u64(&w, "count", t->nrtt);
		jw_double(&w, "min", l.min);
		jw_double(&w, "p50", l.p50);
		jw_double(&w, "p99", l.p99);
		jw_double(&w, "p999", l.p999);
		jw_double(&w, "max", l.max);
		jw_double(&w, "mean", l.mean);
		jsonw_close(&w, '}');
	}
	if (ri->iv) {
		jsonw_open(&w, "intervals", '[');
		for (i = 0; i < ri->niv; i++) {
			const struct mrcperf_interval *iv = &ri->iv[i];

			jsonw_open(&w, NULL, '{');
			jw_double(&w, "start", iv->start);
			jw_double(&w, "end", iv->end);
			jsonw_u64(&w, "bytes", iv->bytes);
			jw_double(&w, "goodput_mbps", mbps(iv->bytes, iv->end - iv->start));
			jsonw_close(&w, '}');
		}
		jsonw_close(&w, ']');
	}
	jsonw_open(&w, "conns", '[');
	for (i = 0; i < n; i++)
		print_conn_json(&w, &res[i]);
	jsonw_close(&w, ']');
	jsonw_close(&w, '}');
}

void print_results(FILE *f, bool json, const struct run_info *ri,
		   const struct conn_result *res, unsigned int n)
{
	struct totals t;

	totals_of(&t, res, n);
	if (json)
		print_json(f, ri, &t, res, n);
	else
		print_text(f, ri, &t, res, n);
	fflush(f);
	free(t.rtt);
}
