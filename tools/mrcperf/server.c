// SPDX-License-Identifier: GPL-2.0
/*
 * The server (-s): one thread per accepted connection, with a small stack.
 * The control message names the client's session and how many connections
 * it has; the session's results are printed once all of them have ended.
 * A session whose missing connections do not arrive within the timeout is
 * closed with those counted as failed, so that a broken client cannot keep
 * a -1 server waiting for ever. In a reverse session (-R) the server sends
 * and the client checks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mrcperf.h"

#define PEER_LEN	80

struct session {
	struct session *next;
	struct mrcperf_ctrl ctrl;
	char peer[PEER_LEN];
	unsigned int arrived;
	unsigned int done;
	bool closed;
	u64 last_ns;
	struct conn_result *res;
};

struct server_conn {
	struct mconn mc;
	char peer[PEER_LEN];
};

static struct {
	const struct mrcperf_opts *o;
	pthread_mutex_t lock;
	struct session *sessions;
	bool finished;
	int status;
} srv = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

/* Print a session's results; with -1 the first one decides the exit status. */
static void session_report(const struct session *s)
{
	struct run_info ri = {
		.role = "server",
		.peer = s->peer,
		.ctrl = &s->ctrl,
		.tcp = srv.o->tcp,
		.mptcp = srv.o->mptcp,
	};
	bool ok = results_ok(s->res, s->ctrl.conns);

	print_results(stdout, srv.o->json, &ri, s->res, s->ctrl.conns);
	if (srv.o->once && !srv.finished) {
		srv.finished = true;
		srv.status = ok ? 0 : 1;
	}
}

static void session_complete(struct session *s)
{
	struct session **pp;

	session_report(s);
	for (pp = &srv.sessions; *pp != s; pp = &(*pp)->next)
		;
	*pp = s->next;
	free(s->res);
	free(s);
}

static bool ctrl_matches(const struct mrcperf_ctrl *a, const struct mrcperf_ctrl *b)
{
	return a->conns == b->conns && a->mode == b->mode && a->verify == b->verify &&
	       a->size == b->size && a->seed == b->seed && a->count == b->count &&
	       a->reverse == b->reverse;
}

static struct session *session_join(const struct mrcperf_ctrl *c, const char *peer,
				    char *err, size_t errlen)
{
	struct session *s;
	unsigned int i;

	pthread_mutex_lock(&srv.lock);
	for (s = srv.sessions; s; s = s->next)
		if (!strcmp(s->ctrl.session, c->session))
			break;
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (s)
			s->res = calloc(c->conns, sizeof(*s->res));
		if (!s || !s->res) {
			free(s);
			snprintf(err, errlen, "out of memory for a session");
			s = NULL;
			goto out;
		}
		s->ctrl = *c;
		s->ctrl.conn = 0;
		snprintf(s->peer, sizeof(s->peer), "%s", peer);
		for (i = 0; i < c->conns; i++)
			s->res[i].conn = i;
		s->next = srv.sessions;
		srv.sessions = s;
	} else if (!ctrl_matches(&s->ctrl, c)) {
		snprintf(err, errlen, "control message does not match the rest of session %s",
			 c->session);
		s = NULL;
		goto out;
	} else if (s->closed) {
		snprintf(err, errlen, "connection %u of session %s came after the timeout",
			 c->conn, c->session);
		s = NULL;
		goto out;
	} else if (s->res[c->conn].present) {
		snprintf(err, errlen, "connection %u of session %s came twice",
			 c->conn, c->session);
		s = NULL;
		goto out;
	}
	s->res[c->conn].present = true;
	s->arrived++;
	s->last_ns = now_ns();
out:
	pthread_mutex_unlock(&srv.lock);
	return s;
}

static void session_done(struct session *s, const struct conn_result *r)
{
	pthread_mutex_lock(&srv.lock);
	s->res[r->conn] = *r;
	s->last_ns = now_ns();
	if (++s->done == (s->closed ? s->arrived : s->ctrl.conns))
		session_complete(s);
	pthread_mutex_unlock(&srv.lock);
}

/* A connection that belongs to no session is reported on its own. */
static void session_orphan(const struct conn_result *r, const struct mrcperf_ctrl *c,
			   const char *peer)
{
	struct session s = { .res = (struct conn_result *)r };

	if (c)
		s.ctrl = *c;
	else
		snprintf(s.ctrl.session, sizeof(s.ctrl.session), "none");
	s.ctrl.conns = 1;
	snprintf(s.peer, sizeof(s.peer), "%s", peer);
	pthread_mutex_lock(&srv.lock);
	session_report(&s);
	pthread_mutex_unlock(&srv.lock);
}

/* Close sessions that waited too long for connections that never came. */
static void sessions_expire(void)
{
	u64 now = now_ns(), limit = (u64)(srv.o->timeout * 1e9);
	struct session *s, *next;
	unsigned int i;

	for (s = srv.sessions; s; s = next) {
		next = s->next;
		if (s->closed || s->arrived == s->ctrl.conns || now - s->last_ns < limit)
			continue;
		s->closed = true;
		for (i = 0; i < s->ctrl.conns; i++) {
			if (!s->res[i].present)
				conn_fail(&s->res[i], "connection never came (waited %g s)",
					  srv.o->timeout);
		}
		if (s->done == s->arrived)
			session_complete(s);
	}
}

static void fail_io(struct conn_result *r, const char *what)
{
	char err[MRCPERF_ERR_LEN];

	io_error(err, sizeof(err), what, srv.o->timeout);
	conn_fail(r, "%s", err);
}

static void send_error(struct mconn *mc, const char *text)
{
	char msg[MRCPERF_CTRL_MAX];

	error_format(text, msg, sizeof(msg));
	msg_send(mc, msg, strlen(msg));
}

/* --stall: read nothing until @file exists (or @timeout seconds pass).
 * One thread looks for the file; the others sleep until it is found. A
 * thousand connections' threads each polling would take the CPU that
 * the connections they hold need.
 */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t over;
	bool polling;
	bool done;
} stall = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.over = PTHREAD_COND_INITIALIZER,
};

static void stall_wait(const char *file, double timeout)
{
	u64 deadline = now_ns() + (u64)(timeout * 1e9);

	pthread_mutex_lock(&stall.lock);
	while (!stall.done && stall.polling)
		pthread_cond_wait(&stall.over, &stall.lock);
	if (!stall.done) {
		stall.polling = true;
		pthread_mutex_unlock(&stall.lock);
		while (access(file, F_OK) && now_ns() < deadline)
			usleep(1000);
		pthread_mutex_lock(&stall.lock);
		stall.done = true;
		pthread_cond_broadcast(&stall.over);
	}
	pthread_mutex_unlock(&stall.lock);
}

/* Receive (and echo) until end of file, then send the report. */
static void serve(struct server_conn *sc, const struct mrcperf_ctrl *c, struct conn_result *r)
{
	struct content ct = { c->seed, c->conn, c->size };
	struct mrcperf_report rep = { 0 };
	char msg[MRCPERF_CTRL_MAX];
	struct mconn *mc = &sc->mc;
	struct verifier v;
	ssize_t n;
	u8 *buf;

	verifier_init(&v, &ct);
	r->start_ns = now_ns();
	if (srv.o->stall)
		stall_wait(srv.o->stall, srv.o->timeout);
	buf = malloc(c->size);
	if (!buf) {
		conn_fail(r, "out of memory for %u-byte messages", c->size);
		goto report;
	}
	for (;;) {
		n = msg_recv(mc, buf, c->size);
		if (n < 0) {
			fail_io(r, "recv");
			break;
		}
		if (!n)
			break;
		conn_count(r, n);
		if (c->verify)
			verify_msg(&v, buf, n);
		else
			verify_len(&v, n);
		if (c->mode == MODE_PINGPONG &&
		    msg_send(mc, buf, (size_t)n < c->size ? (size_t)n : c->size)) {
			fail_io(r, "send echo");
			break;
		}
	}
	r->verify_errors = v.errors;
	if (v.errors)
		conn_fail(r, "%llu of %llu messages failed verification, first: %s",
			  v.errors, r->messages, v.first);
report:
	r->end_ns = now_ns();
	rep.messages = r->messages;
	rep.bytes = r->bytes;
	rep.errors = v.errors;
	rep.usec = (r->end_ns - r->start_ns) / 1000;
	snprintf(rep.error, sizeof(rep.error), "%s", v.errors ? v.first : r->error);
	report_format(&rep, msg, sizeof(msg), 0);
	if (msg_send(mc, msg, strlen(msg)) && !r->failed)
		fail_io(r, "send report");
	shutdown(mc->fd, SHUT_WR);
	if (!srv.o->tcp)
		r->have_info = mrc_info_get(mc->fd, &r->info);
	free(buf);
}

/* Reverse: send for the client's count or time, then the report, then
 * wait for the client's end of file, which says it has read it all.
 */
static void serve_reverse(struct server_conn *sc, const struct mrcperf_ctrl *c,
			  struct conn_result *r)
{
	struct content ct = { c->seed, c->conn, c->size };
	struct mrcperf_report rep = { 0 };
	char msg[MRCPERF_CTRL_MAX];
	struct mconn *mc = &sc->mc;
	u64 i, deadline;
	ssize_t n;
	u8 *buf;

	if (srv.o->stall)
		stall_wait(srv.o->stall, srv.o->timeout);
	r->start_ns = now_ns();
	deadline = r->start_ns + (u64)(c->duration * 1e9);
	buf = malloc(c->size);
	if (!buf) {
		conn_fail(r, "out of memory for %u-byte messages", c->size);
		goto report;
	}
	if (!c->verify)
		content_fill(&ct, 0, buf);
	for (i = 0; c->count ? i < c->count : now_ns() < deadline; i++) {
		if (c->verify)
			content_fill(&ct, i, buf);
		if (msg_send(mc, buf, c->size)) {
			fail_io(r, "send");
			break;
		}
		conn_count(r, c->size);
	}
report:
	r->end_ns = now_ns();
	rep.messages = r->messages;
	rep.bytes = r->bytes;
	rep.usec = (r->end_ns - r->start_ns) / 1000;
	snprintf(rep.error, sizeof(rep.error), "%s", r->error);
	report_format(&rep, msg, sizeof(msg), c->size);
	if (msg_send(mc, msg, strlen(msg)) && !r->failed)
		fail_io(r, "send report");
	shutdown(mc->fd, SHUT_WR);
	/* The client's end of file: everything, report included, arrived. */
	n = r->failed ? 0 : msg_recv(mc, msg, sizeof(msg));
	if (n < 0)
		fail_io(r, "recv end of file");
	else if (n)
		conn_fail(r, "the client sent data in a reverse session");
	if (!srv.o->tcp)
		r->have_info = mrc_info_get(mc->fd, &r->info);
	free(buf);
}

static void *server_thread(void *arg)
{
	struct server_conn *sc = arg;
	char msg[MRCPERF_CTRL_MAX + 1], err[MRCPERF_ERR_LEN];
	struct conn_result r = { .present = true };
	struct mrcperf_ctrl ctrl, *parsed = NULL;
	struct session *s;
	ssize_t n;

	n = msg_recv(&sc->mc, msg, MRCPERF_CTRL_MAX);
	if (n < 0) {
		fail_io(&r, "recv control message");
		goto orphan;
	}
	if (!n || n >= MRCPERF_CTRL_MAX) {
		conn_fail(&r, n ? "control message too long" : "no control message");
		goto orphan;
	}
	msg[n] = '\0';
	if (ctrl_parse(&ctrl, msg, err, sizeof(err))) {
		send_error(&sc->mc, err);
		conn_fail(&r, "%s", err);
		goto orphan;
	}
	parsed = &ctrl;
	r.conn = ctrl.conn;
	s = session_join(&ctrl, sc->peer, err, sizeof(err));
	if (!s) {
		send_error(&sc->mc, err);
		conn_fail(&r, "%s", err);
		goto orphan;
	}
	if (ctrl.reverse)
		serve_reverse(sc, &ctrl, &r);
	else
		serve(sc, &ctrl, &r);
	session_done(s, &r);
	goto out;
orphan:
	session_orphan(&r, parsed, sc->peer);
out:
	mconn_close(&sc->mc);
	free(sc);
	return NULL;
}

static int server_listen(const struct mrcperf_opts *o)
{
	struct sockaddr_storage ss;
	char err[MRCPERF_ERR_LEN], addr[PEER_LEN];
	socklen_t len;
	int fd, one = 1;

	fd = sock_open(o, err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "mrcperf: %s\n", err);
		return -1;
	}
	if (o->tcp && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		fprintf(stderr, "mrcperf: SO_REUSEADDR: %s\n", strerror(errno));
	sock_addr(o, &o->addr, &ss, &len);
	sock_addr_str(o, &ss, addr, sizeof(addr));
	if (bind(fd, (struct sockaddr *)&ss, len)) {
		fprintf(stderr, "mrcperf: bind %s: %s\n", addr, strerror(errno));
		goto err;
	}
	if (listen(fd, 4096)) {
		fprintf(stderr, "mrcperf: listen: %s\n", strerror(errno));
		goto err;
	}
	if (!o->json) {
		printf("mrcperf server: listening on %s (%s)\n", addr, o->tcp ? "tcp" : "mrc");
		fflush(stdout);
	}
	return fd;
err:
	close(fd);
	return -1;
}

static void server_accept(int lfd, const pthread_attr_t *attr)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct server_conn *sc;
	pthread_t tid;
	int fd, rc;

	fd = accept4(lfd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED) {
			fprintf(stderr, "mrcperf: accept: %s\n", strerror(errno));
			/* Out of descriptors: let connections end before trying again. */
			usleep(100 * 1000);
		}
		return;
	}
	sc = calloc(1, sizeof(*sc));
	if (!sc) {
		fprintf(stderr, "mrcperf: out of memory for a connection\n");
		close(fd);
		return;
	}
	if (mconn_init(&sc->mc, fd, srv.o)) {
		fprintf(stderr, "mrcperf: socket setup: %s\n", strerror(errno));
		goto err;
	}
	sock_addr_str(srv.o, &ss, sc->peer, sizeof(sc->peer));
	rc = pthread_create(&tid, attr, server_thread, sc);
	if (rc) {
		fprintf(stderr, "mrcperf: pthread_create: %s\n", strerror(rc));
		goto err;
	}
	return;
err:
	mconn_close(&sc->mc);
	free(sc);
}

int run_server(const struct mrcperf_opts *o)
{
	struct pollfd pfd = { .events = POLLIN };
	pthread_attr_t attr;
	int fd;

	srv.o = o;
	pfd.fd = server_listen(o);
	if (pfd.fd < 0)
		return 1;
	if (o->ready) {
		fd = open(o->ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0) {
			fprintf(stderr, "mrcperf: %s: %s\n", o->ready, strerror(errno));
			return 1;
		}
		close(fd);
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, MRCPERF_STACK);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (;;) {
		pthread_mutex_lock(&srv.lock);
		sessions_expire();
		if (srv.finished) {
			pthread_mutex_unlock(&srv.lock);
			break;
		}
		pthread_mutex_unlock(&srv.lock);
		if (poll(&pfd, 1, 100) > 0)
			server_accept(pfd.fd, &attr);
	}
	return srv.status;
}
