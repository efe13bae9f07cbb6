// SPDX-License-Identifier: GPL-2.0
/*
 * The client (-c): -P connections, one thread each with a small stack. Each
 * connects and sends its control message, then waits at a gate until every
 * connection is ready (or has failed), so that parallel connections really
 * overlap. Then it sends its messages (stream) or sends each one and waits
 * for its echo (pingpong), shuts down its sending side and checks the
 * server's report against what it sent. In reverse (-R) it receives and
 * checks what the server sends, and the server's report of it. With -i the
 * main thread prints what all of them moved, every interval.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mrcperf.h"

struct client {
	const struct mrcperf_opts *o;
	struct mrcperf_ctrl ctrl;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int arrived;
	unsigned int gated;
	unsigned int held;
	unsigned int finished;
	u64 open_ns;
};

struct client_conn {
	struct client *cl;
	struct conn_result res;
	pthread_t tid;
	bool started;
	bool at_gate;
};

static void gate_arrive(struct client *cl)
{
	pthread_mutex_lock(&cl->lock);
	if (++cl->arrived == cl->o->conns) {
		cl->open_ns = now_ns();
		pthread_cond_broadcast(&cl->cond);
	}
	pthread_mutex_unlock(&cl->lock);
}

/* --start: say we are ready, then wait for the go (or the timeout). */
static void start_wait(const struct mrcperf_opts *o)
{
	u64 deadline = now_ns() + (u64)(o->timeout * 1e9);
	char ready[PATH_MAX];
	int fd;

	snprintf(ready, sizeof(ready), "%s.ready-%d", o->start, (int)getpid());
	fd = open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	while (access(o->start, F_OK) && now_ns() < deadline)
		usleep(1000);
}

/* Every connection waits here until all are open (or have failed); with
 * --start, the last one there waits for the go before letting them on.
 */
static void gate_pass(struct client_conn *cc)
{
	struct client *cl = cc->cl;
	bool last;

	if (cc->at_gate)
		return;
	cc->at_gate = true;
	pthread_mutex_lock(&cl->lock);
	last = ++cl->gated == cl->o->conns;
	pthread_mutex_unlock(&cl->lock);
	if (last && cl->o->start)
		start_wait(cl->o);
	gate_arrive(cl);
	pthread_mutex_lock(&cl->lock);
	while (cl->arrived < cl->o->conns)
		pthread_cond_wait(&cl->cond, &cl->lock);
	pthread_mutex_unlock(&cl->lock);
}

static void fail_io(struct conn_result *r, const char *what, double timeout)
{
	char err[MRCPERF_ERR_LEN];

	io_error(err, sizeof(err), what, timeout);
	conn_fail(r, "%s", err);
}

static int rtt_add(struct conn_result *r, double us)
{
	size_t cap = r->rtt_cap ? 2 * r->rtt_cap : 1024;
	double *p;

	if (r->nrtt == r->rtt_cap) {
		p = realloc(r->rtt_us, cap * sizeof(*p));
		if (!p)
			return -1;
		r->rtt_us = p;
		r->rtt_cap = cap;
	}
	r->rtt_us[r->nrtt++] = us;
	return 0;
}

/* Whether to send message @i: by count, or until the deadline; never
 * once SIGINT has asked the client to stop.
 */
static bool more(const struct mrcperf_opts *o, u64 i, u64 deadline)
{
	if (mrcperf_stop)
		return false;
	return o->count ? i < o->count : now_ns() < deadline;
}

static int client_stream(struct client_conn *cc, struct mconn *mc, u8 *buf)
{
	const struct mrcperf_opts *o = cc->cl->o;
	struct conn_result *r = &cc->res;
	struct content ct = { o->seed, r->conn, o->size };
	u64 i, deadline;

	if (!o->verify)
		content_fill(&ct, 0, buf);
	r->start_ns = now_ns();
	deadline = r->start_ns + (u64)(o->duration * 1e9);
	for (i = 0; more(o, i, deadline); i++) {
		if (o->verify)
			content_fill(&ct, i, buf);
		if (msg_send(mc, buf, o->size)) {
			fail_io(r, "send", o->timeout);
			return -1;
		}
		conn_count(r, o->size);
	}
	return 0;
}

static int client_pingpong(struct client_conn *cc, struct mconn *mc, u8 *buf, u8 *echo)
{
	const struct mrcperf_opts *o = cc->cl->o;
	struct conn_result *r = &cc->res;
	struct content ct = { o->seed, r->conn, o->size };
	u64 i, t0, deadline;
	struct verifier v;
	ssize_t n;

	verifier_init(&v, &ct);
	if (!o->verify)
		content_fill(&ct, 0, buf);
	r->start_ns = now_ns();
	deadline = r->start_ns + (u64)(o->duration * 1e9);
	for (i = 0; more(o, i, deadline); i++) {
		if (o->verify)
			content_fill(&ct, i, buf);
		t0 = now_ns();
		if (msg_send(mc, buf, o->size)) {
			fail_io(r, "send", o->timeout);
			return -1;
		}
		conn_count(r, o->size);
		n = msg_recv(mc, echo, o->size);
		if (n < 0) {
			fail_io(r, "recv echo", o->timeout);
			return -1;
		}
		if (!n) {
			conn_fail(r, "server closed the connection after %llu echoes", i);
			return -1;
		}
		if (rtt_add(r, (double)(now_ns() - t0) / 1e3)) {
			conn_fail(r, "out of memory for latency samples");
			return -1;
		}
		if (o->verify)
			verify_msg(&v, echo, n);
		else
			verify_len(&v, n);
	}
	if (v.errors) {
		r->verify_errors += v.errors;
		conn_fail(r, "%llu of %llu echoes failed verification, first: %s",
			  v.errors, r->messages, v.first);
	}
	return 0;
}

/* The server's report against what this side sent (@sent) or received. */
static void report_check(struct conn_result *r, const char *msg, bool sent)
{
	char err[MRCPERF_ERR_LEN];
	struct mrcperf_report rep;

	if (report_parse(&rep, msg, err, sizeof(err))) {
		conn_fail(r, "%s", err);
		return;
	}
	if (rep.errors) {
		r->verify_errors += rep.errors;
		conn_fail(r, "server: %llu of %llu messages failed verification, first: %s",
			  rep.errors, rep.messages, rep.error);
	} else if (rep.error[0]) {
		conn_fail(r, "server: %s", rep.error);
	}
	if (rep.messages != r->messages || rep.bytes != r->bytes)
		conn_fail(r, "server %s %llu messages (%llu bytes), client %s %llu (%llu bytes)",
			  sent ? "got" : "sent", rep.messages, rep.bytes,
			  sent ? "sent" : "got", r->messages, r->bytes);
}

/* Reverse: receive and check the server's messages until its report,
 * which is the first message not @size bytes long, then its end of file.
 */
static int client_receive(struct client_conn *cc, struct mconn *mc, u8 *buf, size_t cap)
{
	const struct mrcperf_opts *o = cc->cl->o;
	struct conn_result *r = &cc->res;
	struct content ct = { o->seed, r->conn, o->size };
	struct verifier v;
	ssize_t n;

	verifier_init(&v, &ct);
	r->start_ns = now_ns();
	for (;;) {
		n = msg_recv(mc, buf, cap);
		if (n < 0) {
			fail_io(r, "recv", o->timeout);
			return -1;
		}
		if (!n) {
			conn_fail(r, "server closed the connection without a report");
			return -1;
		}
		if ((size_t)n != o->size)
			break;
		conn_count(r, n);
		if (o->verify)
			verify_msg(&v, buf, n);
		else
			verify_len(&v, n);
	}
	r->end_ns = now_ns();
	if (v.errors) {
		r->verify_errors += v.errors;
		conn_fail(r, "%llu of %llu messages failed verification, first: %s",
			  v.errors, r->messages, v.first);
	}
	if ((size_t)n > MRCPERF_CTRL_MAX) {
		conn_fail(r, "message of %zd bytes is neither data nor a report", n);
		return -1;
	}
	buf[n] = '\0';
	report_check(r, (const char *)buf, false);
	if (shutdown(mc->fd, SHUT_WR)) {
		fail_io(r, "shutdown", o->timeout);
		return -1;
	}
	n = msg_recv(mc, buf, cap);
	if (n < 0)
		fail_io(r, "recv end of file", o->timeout);
	else if (n)
		conn_fail(r, "server sent %zd bytes after its report", n);
	return 0;
}

/* End of file to the server, then its report against what we sent. */
static void client_finish(struct client_conn *cc, struct mconn *mc)
{
	const struct mrcperf_opts *o = cc->cl->o;
	char msg[MRCPERF_CTRL_MAX + 1];
	struct conn_result *r = &cc->res;
	ssize_t n;

	if (shutdown(mc->fd, SHUT_WR)) {
		fail_io(r, "shutdown", o->timeout);
		return;
	}
	n = msg_recv(mc, msg, MRCPERF_CTRL_MAX);
	r->end_ns = now_ns();
	if (n < 0) {
		fail_io(r, "recv report", o->timeout);
		return;
	}
	if (!n) {
		conn_fail(r, "server closed the connection without a report");
		return;
	}
	if (n >= MRCPERF_CTRL_MAX) {
		conn_fail(r, "report of %zd bytes is too long", n);
		return;
	}
	msg[n] = '\0';
	report_check(r, msg, true);
}

/* Wait until the peer has acknowledged everything sent (MRC_INFO), or the
 * timeout passes.
 */
static void wait_acked(struct mconn *mc, const struct mrcperf_opts *o)
{
	u64 deadline = now_ns() + (u64)(o->timeout * 1e9);
	struct mrc_info info;

	while (mrc_info_get(mc->fd, &info) &&
	       info.mrci_bytes_acked < info.mrci_bytes_sent && now_ns() < deadline)
		usleep(10000);
}

/* --hold: once a connection has sent everything and had it acknowledged,
 * before it shuts down; the last one there says so with FILE.done. Every
 * one then stays open until the test creates FILE, or the timeout passes.
 */
static void hold_open(struct client *cl, const struct mrcperf_opts *o)
{
	u64 deadline = now_ns() + (u64)(o->timeout * 1e9);
	char done[PATH_MAX];
	int fd;

	pthread_mutex_lock(&cl->lock);
	if (++cl->held == o->conns) {
		snprintf(done, sizeof(done), "%s.done", o->hold);
		fd = open(done, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
	}
	pthread_mutex_unlock(&cl->lock);
	while (access(o->hold, F_OK) && now_ns() < deadline)
		usleep(20000);
}

static void *client_thread(void *arg)
{
	struct client_conn *cc = arg;
	struct client *cl = cc->cl;
	const struct mrcperf_opts *o = cl->o;
	struct mrcperf_ctrl ctrl = cl->ctrl;
	struct conn_result *r = &cc->res;
	char msg[MRCPERF_CTRL_MAX], err[MRCPERF_ERR_LEN];
	struct mconn mc = { .fd = -1 };
	struct sockaddr_storage ss;
	u8 *buf = NULL, *echo = NULL;
	size_t cap = o->size;
	socklen_t sslen;
	bool held = false;
	int fd, ret;

	fd = sock_open(o, err, sizeof(err));
	if (fd < 0) {
		conn_fail(r, "%s", err);
		goto out;
	}
	if (mconn_init(&mc, fd, o)) {
		close(fd);
		fail_io(r, "socket setup", o->timeout);
		goto out;
	}
	sock_addr(o, &o->addr, &ss, &sslen);
	if (connect(fd, (struct sockaddr *)&ss, sslen)) {
		fail_io(r, "connect", o->timeout);
		goto out;
	}
	ctrl.conn = r->conn;
	ctrl_format(&ctrl, msg, sizeof(msg));
	if (msg_send(&mc, msg, strlen(msg))) {
		fail_io(r, "send control message", o->timeout);
		goto out;
	}
	/* Reverse: room for the report too, and its terminating NUL. */
	if (o->reverse && cap < MRCPERF_CTRL_MAX)
		cap = MRCPERF_CTRL_MAX;
	buf = malloc(cap + 1);
	if (o->mode == MODE_PINGPONG)
		echo = malloc(o->size);
	if (!buf || (o->mode == MODE_PINGPONG && !echo)) {
		conn_fail(r, "out of memory for %u-byte messages", o->size);
		goto out;
	}
	gate_pass(cc);
	if (o->reverse) {
		client_receive(cc, &mc, buf, cap);
		goto info;
	}
	if (o->mode == MODE_PINGPONG)
		ret = client_pingpong(cc, &mc, buf, echo);
	else
		ret = client_stream(cc, &mc, buf);
	if (o->hold) {
		/* Hold before the FINs, which end the connection. */
		if (!ret && !o->tcp)
			wait_acked(&mc, o);
		hold_open(cl, o);
		held = true;
	}
	if (!ret)
		client_finish(cc, &mc);
info:
	if (!o->tcp)
		r->have_info = mrc_info_get(mc.fd, &r->info);
out:
	gate_pass(cc);
	if (o->hold && !held)
		hold_open(cl, o);
	if (r->start_ns && !r->end_ns)
		r->end_ns = now_ns();
	mconn_close(&mc);
	free(buf);
	free(echo);
	pthread_mutex_lock(&cl->lock);
	cl->finished++;
	pthread_mutex_unlock(&cl->lock);
	return NULL;
}

/* The bytes all connections have moved so far. */
static u64 client_bytes(const struct client_conn *cc, unsigned int n)
{
	unsigned int i;
	u64 sum = 0;

	for (i = 0; i < n; i++)
		sum += __atomic_load_n(&cc[i].res.bytes, __ATOMIC_RELAXED);
	return sum;
}

static bool client_done(struct client *cl)
{
	bool done;

	pthread_mutex_lock(&cl->lock);
	done = cl->finished == cl->o->conns;
	pthread_mutex_unlock(&cl->lock);
	return done;
}

/* -i: until every connection has finished, what they all moved in each
 * interval, counted from the moment every connection was open; the last
 * interval ends with the run. Printed as it comes, in text; kept for the
 * JSON object at the end.
 */
static struct mrcperf_interval *client_intervals(struct client *cl, struct client_conn *cc,
						 size_t *niv)
{
	const struct mrcperf_opts *o = cl->o;
	u64 step = (u64)(o->interval * 1e9), t0 = 0, start, end, now, bytes, last = 0;
	struct mrcperf_interval *iv = NULL, *p;
	size_t n = 0;
	bool done;

	*niv = 0;
	/* Every connection open: the intervals start. */
	while (!(done = client_done(cl))) {
		pthread_mutex_lock(&cl->lock);
		t0 = cl->open_ns;
		pthread_mutex_unlock(&cl->lock);
		if (t0)
			break;
		usleep(1000);
	}
	for (start = t0; !done; start = end) {
		end = start + step;
		while (!(done = client_done(cl)) && (now = now_ns()) < end)
			usleep((end - now) / 1000 < 20000 ? (end - now) / 1000 + 1 : 20000);
		if (done)
			end = now_ns();
		bytes = client_bytes(cc, o->conns);
		p = realloc(iv, (n + 1) * sizeof(*iv));
		if (!p) {
			fprintf(stderr, "mrcperf: out of memory for interval reports\n");
			break;
		}
		iv = p;
		iv[n].start = (double)(start - t0) / 1e9;
		iv[n].end = (double)(end - t0) / 1e9;
		iv[n].bytes = bytes - last;
		last = bytes;
		if (!o->json) {
			printf("[SUM]  %6.2f-%6.2f s  %14llu bytes  %12.2f Mbit/s\n",
			       iv[n].start, iv[n].end, iv[n].bytes,
			       iv[n].end > iv[n].start ?
			       iv[n].bytes * 8 / (iv[n].end - iv[n].start) / 1e6 : 0.0);
			fflush(stdout);
		}
		n++;
	}
	*niv = n;
	return iv;
}

static void session_id(char *buf, size_t len)
{
	u64 id;

	if (getrandom(&id, sizeof(id), 0) != sizeof(id))
		id = now_ns() ^ ((u64)getpid() << 32) ^ (u64)time(NULL);
	snprintf(buf, len, "%016llx", id);
}

int run_client(const struct mrcperf_opts *o)
{
	struct client cl = {
		.o = o,
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.cond = PTHREAD_COND_INITIALIZER,
	};
	struct run_info ri = {
		.role = "client",
		.ctrl = &cl.ctrl,
		.tcp = o->tcp,
		.mptcp = o->mptcp,
	};
	struct mrcperf_interval *iv = NULL;
	struct conn_result *res;
	struct client_conn *cc;
	char peer[128];
	pthread_attr_t attr;
	unsigned int i;
	bool ok;
	int rc;

	session_id(cl.ctrl.session, sizeof(cl.ctrl.session));
	cl.ctrl.conns = o->conns;
	cl.ctrl.mode = o->mode;
	cl.ctrl.verify = o->verify;
	cl.ctrl.size = o->size;
	cl.ctrl.seed = o->seed;
	cl.ctrl.count = o->count;
	cl.ctrl.duration = o->duration;
	cl.ctrl.reverse = o->reverse;
	snprintf(peer, sizeof(peer), "[%s]:%u", o->host, ntohs(o->addr.sin6_port));
	ri.peer = peer;

	cc = calloc(o->conns, sizeof(*cc));
	res = calloc(o->conns, sizeof(*res));
	if (!cc || !res) {
		fprintf(stderr, "mrcperf: out of memory for %u connections\n", o->conns);
		return 1;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, MRCPERF_STACK);
	for (i = 0; i < o->conns; i++) {
		cc[i].cl = &cl;
		cc[i].res.conn = i;
		cc[i].res.present = true;
		rc = pthread_create(&cc[i].tid, &attr, client_thread, &cc[i]);
		if (rc) {
			errno = rc;
			fail_io(&cc[i].res, "pthread_create", o->timeout);
			gate_arrive(&cl);
			pthread_mutex_lock(&cl.lock);
			cl.finished++;
			pthread_mutex_unlock(&cl.lock);
			continue;
		}
		cc[i].started = true;
	}
	pthread_attr_destroy(&attr);
	if (o->interval)
		iv = client_intervals(&cl, cc, &ri.niv);
	ri.iv = iv;
	for (i = 0; i < o->conns; i++) {
		if (cc[i].started)
			pthread_join(cc[i].tid, NULL);
		res[i] = cc[i].res;
	}
	print_results(stdout, o->json, &ri, res, o->conns);
	ok = results_ok(res, o->conns);
	for (i = 0; i < o->conns; i++)
		free(res[i].rtt_us);
	free(res);
	free(cc);
	free(iv);
	return ok ? 0 : 1;
}
