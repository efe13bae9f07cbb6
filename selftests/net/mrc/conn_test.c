// SPDX-License-Identifier: GPL-2.0
/*
 * AF_MRC connections over loopback: handshake, messages, socket API
 * semantics, errors and teardown.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/mrc.h>

#include "kselftest_harness.h"

static int family(void)
{
	const char *f = getenv("MRC_FAMILY");

	return f ? atoi(f) : AF_MRC;
}

static struct sockaddr_mrc addr6(const char *ip, unsigned short port)
{
	struct sockaddr_mrc sa;

	memset(&sa, 0, sizeof(sa));
	sa.smrc_family = family();
	sa.smrc_port = htons(port);
	inet_pton(AF_INET6, ip, &sa.smrc_addr);
	return sa;
}

static void set_timeouts(int fd, int sec)
{
	struct timeval tv = { .tv_sec = sec };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* A listener on [::1]:port; returns its fd. */
static int listener(unsigned short *port)
{
	struct sockaddr_mrc sa = addr6("::1", 0);
	socklen_t len = sizeof(sa);
	int fd = socket(family(), SOCK_SEQPACKET, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(fd, 128) || getsockname(fd, (struct sockaddr *)&sa, &len))
		return -1;
	*port = ntohs(sa.smrc_port);
	set_timeouts(fd, 30);
	return fd;
}

static int connect_to(unsigned short port)
{
	struct sockaddr_mrc sa = addr6("::1", port);
	int fd = socket(family(), SOCK_SEQPACKET, 0);

	if (fd < 0)
		return -1;
	set_timeouts(fd, 30);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Fill a message whose bytes depend on (seed, i). */
static void fill(unsigned char *buf, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}

static int get_info(int fd, struct mrc_info *info)
{
	socklen_t len = sizeof(*info);

	return getsockopt(fd, SOL_MRC, MRC_INFO, info, &len);
}

FIXTURE(pair) {
	int lfd, cfd, afd;
	unsigned short port;
};

FIXTURE_SETUP(pair)
{
	self->lfd = listener(&self->port);
	ASSERT_LE(0, self->lfd);
	self->cfd = connect_to(self->port);
	ASSERT_LE(0, self->cfd) TH_LOG("connect: %s", strerror(errno));
	self->afd = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, self->afd) TH_LOG("accept: %s", strerror(errno));
	set_timeouts(self->afd, 30);
}

FIXTURE_TEARDOWN(pair)
{
	close(self->afd);
	close(self->cfd);
	close(self->lfd);
}

static void check_size(struct __test_metadata *_metadata, int tx, int rx,
		       size_t len)
{
	unsigned char *out = malloc(len + 1), *in = malloc(len + 16);
	ssize_t n;

	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, in);
	fill(out, len, len);
	ASSERT_EQ((ssize_t)len, send(tx, out, len, 0)) TH_LOG("send %zu: %s", len, strerror(errno));
	n = recv(rx, in, len + 16, 0);
	ASSERT_EQ((ssize_t)len, n) TH_LOG("recv %zu: %s", len, strerror(errno));
	EXPECT_EQ(0, memcmp(in, out, len));
	free(out);
	free(in);
}

TEST_F(pair, message_sizes)
{
	static const size_t sizes[] = {
		1, 1391, 1392, 1393, 4000, 65536, 1 << 20, MRC_MSG_MAX,
	};
	struct mrc_info info;
	unsigned int i;

	ASSERT_EQ(0, get_info(self->cfd, &info));
	EXPECT_EQ(MRC_ESTABLISHED, info.mrci_state);
	TH_LOG("mss %u", info.mrci_mss);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		check_size(_metadata, self->cfd, self->afd, sizes[i]);
		check_size(_metadata, self->afd, self->cfd, sizes[i]);
	}
	/* One packet's payload, and one byte either side of it. */
	check_size(_metadata, self->cfd, self->afd, info.mrci_mss - 1);
	check_size(_metadata, self->cfd, self->afd, info.mrci_mss);
	check_size(_metadata, self->cfd, self->afd, info.mrci_mss + 1);
}

TEST_F(pair, emsgsize)
{
	char *buf = malloc(MRC_MSG_MAX + 1);

	ASSERT_NE(NULL, buf);
	EXPECT_EQ(-1, send(self->cfd, buf, MRC_MSG_MAX + 1, 0));
	EXPECT_EQ(EMSGSIZE, errno);
	free(buf);
}

TEST_F(pair, truncate_and_peek)
{
	char out[100], in[100];
	struct msghdr m = {};
	struct iovec iov;

	fill((unsigned char *)out, sizeof(out), 3);
	ASSERT_EQ(100, send(self->cfd, out, 100, 0));
	ASSERT_EQ(50, send(self->cfd, out, 50, 0));

	/* MSG_PEEK leaves the message queued. */
	ASSERT_EQ(10, recv(self->afd, in, 10, MSG_PEEK));
	EXPECT_EQ(0, memcmp(in, out, 10));
	/* MSG_TRUNC returns the real length; the rest is discarded. */
	ASSERT_EQ(100, recv(self->afd, in, 10, MSG_TRUNC));
	EXPECT_EQ(0, memcmp(in, out, 10));
	/* Without MSG_TRUNC: the copied length, and the flag in msg_flags. */
	iov.iov_base = in;
	iov.iov_len = 20;
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	ASSERT_EQ(20, recvmsg(self->afd, &m, 0));
	EXPECT_TRUE(m.msg_flags & MSG_TRUNC);
	EXPECT_EQ(0, memcmp(in, out, 20));
}

TEST_F(pair, nonblocking_and_poll)
{
	struct pollfd p = { .fd = self->afd, .events = POLLIN | POLLOUT };
	char buf[64];

	EXPECT_EQ(-1, recv(self->afd, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(1, poll(&p, 1, 0));
	EXPECT_EQ(POLLOUT, p.revents);

	ASSERT_EQ(5, send(self->cfd, "hello", 5, 0));
	p.events = POLLIN;
	ASSERT_EQ(1, poll(&p, 1, 30000));
	EXPECT_EQ(POLLIN, p.revents);
	EXPECT_EQ(5, recv(self->afd, buf, sizeof(buf), MSG_DONTWAIT));
}

TEST_F(pair, sndbuf_full_eagain)
{
	int sndbuf = 65536, n, sent = 0;
	char *buf = calloc(1, 65536);

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, setsockopt(self->cfd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)));
	/* Nobody reads: the receiver's buffer and then ours fill up. */
	for (n = 0; n < 1000; n++) {
		if (send(self->cfd, buf, 65536, MSG_DONTWAIT) < 0)
			break;
		sent++;
	}
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_LT(0, sent);
	EXPECT_GT(1000, sent);
	/* Everything queued still arrives. */
	for (n = 0; n < sent; n++)
		ASSERT_EQ(65536, recv(self->afd, buf, 65536, 0));
	free(buf);
}

/* The parts of the sender's busy time, added up. */
static unsigned long long limited_us(const struct mrc_info *i)
{
	return i->mrci_app_limited_us + i->mrci_cwnd_limited_us +
	       i->mrci_wnd_limited_us + i->mrci_rwnd_limited_us +
	       i->mrci_sndbuf_limited_us;
}

static void print_limits(const char *what, const struct mrc_info *i)
{
	ksft_print_msg("%s: busy %llu us: app %llu cwnd %llu wnd %llu rwnd %llu sndbuf %llu\n",
		       what, i->mrci_busy_us, i->mrci_app_limited_us,
		       i->mrci_cwnd_limited_us, i->mrci_wnd_limited_us,
		       i->mrci_rwnd_limited_us, i->mrci_sndbuf_limited_us);
}

/* What held the sender back: the peer's window while nobody reads; the
 * send buffer while a reader keeps up with small messages and a small
 * SO_SNDBUF. Each wait is for the counter, within 60 s.
 */
TEST_F_TIMEOUT(pair, send_limits, 300)
{
	int sndbuf = 4096, n, i;
	struct mrc_info ci;
	char *buf = calloc(1, 65536);
	time_t end;
	pid_t pid;

	ASSERT_NE(NULL, buf);
	for (n = 0; n < 1000; n++)
		if (send(self->cfd, buf, 65536, MSG_DONTWAIT) < 0)
			break;
	ASSERT_EQ(EAGAIN, errno);
	end = time(NULL) + 60;
	do {
		ASSERT_EQ(0, get_info(self->cfd, &ci));
	} while (!ci.mrci_rwnd_limited_us && time(NULL) < end && !usleep(10000));
	EXPECT_LT(0ULL, ci.mrci_rwnd_limited_us);
	EXPECT_LE(ci.mrci_rwnd_limited_us, ci.mrci_busy_us);

	/* Read it all: once everything is acknowledged the sender is
	 * idle, and its busy time is exactly the sum of its parts.
	 */
	for (i = 0; i < n; i++)
		ASSERT_EQ(65536, recv(self->afd, buf, 65536, 0));
	end = time(NULL) + 60;
	do {
		ASSERT_EQ(0, get_info(self->cfd, &ci));
	} while (ci.mrci_bytes_acked < ci.mrci_bytes_sent && time(NULL) < end &&
		 !usleep(10000));
	ASSERT_EQ(ci.mrci_bytes_sent, ci.mrci_bytes_acked);
	EXPECT_EQ(ci.mrci_busy_us, limited_us(&ci));
	print_limits("stalled reader", &ci);

	ASSERT_EQ(0, setsockopt(self->cfd, SOL_SOCKET, SO_SNDBUF, &sndbuf,
				sizeof(sndbuf)));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		while (recv(self->afd, buf, 65536, 0) > 0)
			;
		_exit(0);
	}
	end = time(NULL) + 60;
	do {
		for (i = 0; i < 100; i++)
			ASSERT_EQ(1000, send(self->cfd, buf, 1000, 0));
		ASSERT_EQ(0, get_info(self->cfd, &ci));
	} while (!ci.mrci_sndbuf_limited_us && time(NULL) < end);
	EXPECT_LT(0ULL, ci.mrci_sndbuf_limited_us);
	EXPECT_LE(ci.mrci_sndbuf_limited_us, ci.mrci_busy_us);
	print_limits("small SO_SNDBUF", &ci);
	shutdown(self->cfd, SHUT_WR);
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	free(buf);
}

TEST_F(pair, shutdown_wr)
{
	char buf[16];
	int i;

	for (i = 0; i < 3; i++)
		ASSERT_EQ(4, send(self->cfd, "abcd", 4, 0));
	ASSERT_EQ(0, shutdown(self->cfd, SHUT_WR));
	EXPECT_EQ(-1, send(self->cfd, "x", 1, MSG_NOSIGNAL));
	EXPECT_EQ(EPIPE, errno);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(4, recv(self->afd, buf, sizeof(buf), 0));
	EXPECT_EQ(0, recv(self->afd, buf, sizeof(buf), 0));
	/* The other direction still works. */
	ASSERT_EQ(2, send(self->afd, "ok", 2, 0));
	ASSERT_EQ(2, recv(self->cfd, buf, sizeof(buf), 0));
}

TEST_F(pair, close_delivers)
{
	unsigned char out[3000], in[3000];
	int i;

	for (i = 0; i < 50; i++) {
		fill(out, sizeof(out), i);
		ASSERT_EQ(3000, send(self->cfd, out, sizeof(out), 0));
	}
	close(self->cfd);
	self->cfd = -1;
	for (i = 0; i < 50; i++) {
		fill(out, sizeof(out), i);
		ASSERT_EQ(3000, recv(self->afd, in, sizeof(in), 0));
		ASSERT_EQ(0, memcmp(in, out, sizeof(out)));
	}
	EXPECT_EQ(0, recv(self->afd, in, sizeof(in), 0));
}

/* Every socket of a connection is a SOCK_SEQPACKET one, the accepted one
 * too.
 */
TEST_F(pair, so_type)
{
	int fds[3] = { self->lfd, self->cfd, self->afd };
	socklen_t len;
	int i, type;

	for (i = 0; i < 3; i++) {
		type = -1;
		len = sizeof(type);
		ASSERT_EQ(0, getsockopt(fds[i], SOL_SOCKET, SO_TYPE, &type, &len));
		EXPECT_EQ(SOCK_SEQPACKET, type) TH_LOG("socket %d of 3", i + 1);
	}
}

/* recvmsg() sets MSG_EOR on every message it returns, so that an empty
 * message (0 bytes, MSG_EOR) reads differently from the end of the
 * stream (0 bytes, no MSG_EOR).
 */
static ssize_t recv_flags(int fd, void *buf, size_t len, int *flags)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n = recvmsg(fd, &msg, 0);

	*flags = msg.msg_flags;
	return n;
}

TEST_F(pair, empty_message_is_not_eof)
{
	char buf[16];
	int flags;

	ASSERT_EQ(0, send(self->cfd, "", 0, 0));
	ASSERT_EQ(2, send(self->cfd, "hi", 2, 0));
	ASSERT_EQ(0, send(self->cfd, "", 0, 0));
	close(self->cfd);
	self->cfd = -1;
	EXPECT_EQ(0, recv_flags(self->afd, buf, sizeof(buf), &flags));
	EXPECT_TRUE(flags & MSG_EOR) TH_LOG("an empty message without MSG_EOR");
	EXPECT_EQ(2, recv_flags(self->afd, buf, sizeof(buf), &flags));
	EXPECT_TRUE(flags & MSG_EOR);
	EXPECT_EQ(0, recv_flags(self->afd, buf, sizeof(buf), &flags));
	EXPECT_TRUE(flags & MSG_EOR);
	/* The end of the stream. */
	EXPECT_EQ(0, recv_flags(self->afd, buf, sizeof(buf), &flags));
	EXPECT_FALSE(flags & MSG_EOR) TH_LOG("the end of the stream with MSG_EOR");
}

TEST_F(pair, abort_resets_peer)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	char buf[8];

	ASSERT_EQ(0, setsockopt(self->cfd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	close(self->cfd);
	self->cfd = -1;
	EXPECT_EQ(-1, recv(self->afd, buf, sizeof(buf), 0));
	EXPECT_EQ(ECONNRESET, errno);
}

TEST_F(pair, names)
{
	struct sockaddr_mrc a, b;
	socklen_t la = sizeof(a), lb = sizeof(b);

	ASSERT_EQ(0, getsockname(self->cfd, (struct sockaddr *)&a, &la));
	ASSERT_EQ(0, getpeername(self->afd, (struct sockaddr *)&b, &lb));
	EXPECT_EQ(0, memcmp(&a, &b, sizeof(a)));
	la = sizeof(a);
	ASSERT_EQ(0, getpeername(self->cfd, (struct sockaddr *)&a, &la));
	EXPECT_EQ(self->port, ntohs(a.smrc_port));
}

/* 20,000 system calls: a second or two, but far more on a debug kernel
 * under TCG (make check-debug), where the harness's 30 s ran out.
 */
TEST_F_TIMEOUT(pair, ten_thousand_in_order, 600)
{
	unsigned char out[512], in[600];
	struct mrc_info info;
	int i;

	for (i = 0; i < 10000; i++) {
		fill(out, sizeof(out), i);
		ASSERT_EQ(512, send(self->cfd, out, sizeof(out), 0));
		if (i % 64 == 63) {
			int j;

			for (j = i - 63; j <= i; j++) {
				fill(out, sizeof(out), j);
				ASSERT_EQ(512, recv(self->afd, in, sizeof(in), 0));
				ASSERT_EQ(0, memcmp(in, out, sizeof(out))) TH_LOG("message %d", j);
			}
		}
	}
	ASSERT_EQ(0, get_info(self->afd, &info));
	EXPECT_EQ(10000ULL, info.mrci_msgs_received);
}

/* MRC_PEER: socket @fd connected with no handshake to [::1]:@port, as
 * @local_qpn (starting at PSN @local_psn) to @peer_qpn (at @peer_psn).
 */
static int set_peer(int fd, unsigned short port, unsigned int local_qpn,
		    unsigned int peer_qpn, unsigned int local_psn,
		    unsigned int peer_psn)
{
	struct mrc_peer p = {
		.addr = addr6("::1", port),
		.local_qpn = local_qpn, .peer_qpn = peer_qpn,
		.local_psn = local_psn, .peer_psn = peer_psn,
	};

	return setsockopt(fd, SOL_MRC, MRC_PEER, &p, sizeof(p));
}

/* A socket bound to [::1]:0, its port in *@port. */
static int bound_socket(unsigned short *port)
{
	struct sockaddr_mrc sa = addr6("::1", 0);
	socklen_t len = sizeof(sa);
	int fd = socket(family(), SOCK_SEQPACKET, 0);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len)) {
		close(fd);
		return -1;
	}
	*port = ntohs(sa.smrc_port);
	set_timeouts(fd, 10);
	return fd;
}

/* From @tx to @rx: a burst of 64 small messages, then 40 of 150,000 bytes
 * (three packets each over loopback) one at a time; every byte checked.
 */
static void peer_traffic(struct __test_metadata *_metadata, int tx, int rx,
			 unsigned int seed)
{
	static unsigned char out[150000], in[150001];
	int i;

	for (i = 0; i < 64; i++) {
		fill(out, 100, seed + i);
		ASSERT_EQ(100, send(tx, out, 100, 0));
	}
	for (i = 0; i < 64; i++) {
		fill(out, 100, seed + i);
		ASSERT_EQ(100, recv(rx, in, sizeof(in), 0))
			TH_LOG("message %d: %s", i, strerror(errno));
		ASSERT_EQ(0, memcmp(in, out, 100)) TH_LOG("message %d", i);
	}
	for (i = 0; i < 40; i++) {
		fill(out, sizeof(out), seed + 64 + i);
		ASSERT_EQ((ssize_t)sizeof(out), send(tx, out, sizeof(out), 0));
		ASSERT_EQ((ssize_t)sizeof(out), recv(rx, in, sizeof(in), 0))
			TH_LOG("message %d: %s", 64 + i, strerror(errno));
		ASSERT_EQ(0, memcmp(in, out, sizeof(out))) TH_LOG("message %d", 64 + i);
	}
}

/* Options MRC_PEER refuses, each with its errno. */
TEST(peer_refusals)
{
	unsigned short pa, pb, pl;
	int a = bound_socket(&pa), b = bound_socket(&pb);
	int l = listener(&pl), c = socket(family(), SOCK_SEQPACKET, 0);
	struct mrc_peer p = {
		.addr = addr6("::1", pb), .local_qpn = 0x5eed11,
		.peer_qpn = 0x5eed12,
	};
	struct mrc_peer q;
	struct {
		struct mrc_peer p;
		unsigned char more[8];
	} big;
	struct {
		const char *what;
		unsigned int *field, value;
		int err;
	} bad[] = {
		{ "a reserved local QPN", &q.local_qpn, 2, EINVAL },
		{ "a local QPN over 24 bits", &q.local_qpn, 0x1000000, EINVAL },
		{ "a reserved peer QPN", &q.peer_qpn, 0, EINVAL },
		{ "a peer QPN over 24 bits", &q.peer_qpn, 0x1000000, EINVAL },
		{ "a local PSN over 24 bits", &q.local_psn, 0x1000000, EINVAL },
		{ "a peer PSN over 24 bits", &q.peer_psn, 0x1000000, EINVAL },
		{ "a peer MSS below the floor", &q.peer_mss, 100, EINVAL },
		{ "flags", &q.flags, 1, EINVAL },
	};
	unsigned int i;

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_LE(0, l);
	ASSERT_LE(0, c);
	EXPECT_EQ(-1, setsockopt(a, SOL_MRC, MRC_PEER, &p, sizeof(p) - 1));
	EXPECT_EQ(EINVAL, errno);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		q = p;
		*bad[i].field = bad[i].value;
		EXPECT_EQ(-1, setsockopt(a, SOL_MRC, MRC_PEER, &q, sizeof(q)))
			TH_LOG("%s accepted", bad[i].what);
		EXPECT_EQ(bad[i].err, errno) TH_LOG("%s", bad[i].what);
	}
	q = p;
	q.addr.smrc_port = 0;
	EXPECT_EQ(-1, setsockopt(a, SOL_MRC, MRC_PEER, &q, sizeof(q)));
	EXPECT_EQ(EINVAL, errno);
	q = p;
	q.addr.smrc_family = AF_INET6;
	EXPECT_EQ(-1, setsockopt(a, SOL_MRC, MRC_PEER, &q, sizeof(q)));
	EXPECT_EQ(EAFNOSUPPORT, errno);
	EXPECT_EQ(-1, setsockopt(l, SOL_MRC, MRC_PEER, &p, sizeof(p)));
	EXPECT_EQ(EINVAL, errno);
	/* A longer struct: only with nothing but zeros past this one. */
	memset(&big, 0, sizeof(big));
	big.p = p;
	big.more[5] = 1;
	EXPECT_EQ(-1, setsockopt(a, SOL_MRC, MRC_PEER, &big, sizeof(big)));
	EXPECT_EQ(E2BIG, errno);
	big.more[5] = 0;
	/* Taken, then in use. */
	ASSERT_EQ(0, setsockopt(a, SOL_MRC, MRC_PEER, &big, sizeof(big)));
	EXPECT_EQ(-1, setsockopt(c, SOL_MRC, MRC_PEER, &p, sizeof(p)));
	EXPECT_EQ(EADDRINUSE, errno);
	EXPECT_EQ(-1, setsockopt(a, SOL_MRC, MRC_PEER, &p, sizeof(p)));
	EXPECT_EQ(EISCONN, errno);
	close(c);
	close(l);
	close(b);
	close(a);
}

static unsigned long mib(const char *name);

/* MRC_PEER connects two sockets with no handshake, each given the other's
 * QPN and first PSN, as queue pairs set up out of band are. A starts 64
 * PSNs short of 2^24, so that its first 3-packet message straddles the
 * wrap; B 3 short, so that its burst of small messages does. Nothing is
 * retransmitted over loopback. Then each end shuts down in turn. A pair
 * given each other's PSNs wrong delivers nothing.
 */
TEST(peer_no_handshake_across_psn_wrap)
{
	unsigned long probes, retrans;
	unsigned short pa, pb, pd, pe;
	int a = bound_socket(&pa), b = bound_socket(&pb);
	int d = bound_socket(&pd), e = bound_socket(&pe);
	struct mrc_info info;
	char buf[16];

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_LE(0, d);
	ASSERT_LE(0, e);
	ASSERT_EQ(0, set_peer(a, pb, 0x5eed01, 0x5eed02, 0xffffff - 64,
			      0xffffff - 3)) TH_LOG("MRC_PEER: %s", strerror(errno));
	ASSERT_EQ(0, set_peer(b, pa, 0x5eed02, 0x5eed01, 0xffffff - 3,
			      0xffffff - 64)) TH_LOG("MRC_PEER: %s", strerror(errno));
	ASSERT_EQ(0, get_info(a, &info));
	EXPECT_EQ(MRC_ESTABLISHED, info.mrci_state);
	EXPECT_EQ(0x5eed01U, info.mrci_local_cid);
	EXPECT_EQ(0x5eed02U, info.mrci_remote_cid);

	probes = mib("TailProbes");
	peer_traffic(_metadata, a, b, 1);
	peer_traffic(_metadata, b, a, 1000);
	probes = mib("TailProbes") - probes;
	/* Nothing lost across the wrap: any retransmission is a tail probe,
	 * which a host that did not run for a moment may send in vain.
	 */
	ASSERT_EQ(0, get_info(b, &info));
	EXPECT_EQ(104ULL, info.mrci_msgs_received);
	retrans = info.mrci_pkts_retrans;
	ASSERT_EQ(0, get_info(a, &info));
	EXPECT_EQ(104ULL, info.mrci_msgs_received);
	retrans += info.mrci_pkts_retrans;
	EXPECT_GE(probes, retrans);

	ASSERT_EQ(0, shutdown(a, SHUT_WR));
	EXPECT_EQ(0, recv(b, buf, sizeof(buf), 0));
	ASSERT_EQ(0, shutdown(b, SHUT_WR));
	EXPECT_EQ(0, recv(a, buf, sizeof(buf), 0));

	/* E expects D's PSNs 1,000 further on: beyond its window. */
	set_timeouts(e, 2);
	ASSERT_EQ(0, set_peer(d, pe, 0x5eed03, 0x5eed04, 100, 200));
	ASSERT_EQ(0, set_peer(e, pd, 0x5eed04, 0x5eed03, 200, 1100));
	ASSERT_EQ(5, send(d, "hello", 5, 0));
	EXPECT_EQ(-1, recv(e, buf, sizeof(buf), 0));
	EXPECT_EQ(EAGAIN, errno);
	close(e);
	close(d);
	close(b);
	close(a);
}

TEST(refused)
{
	unsigned short port;
	int lfd = listener(&port), fd;
	struct sockaddr_mrc sa;

	ASSERT_LE(0, lfd);
	close(lfd);	/* nobody listens on port now */
	sa = addr6("::1", port);
	fd = socket(family(), SOCK_SEQPACKET, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, connect(fd, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(ECONNREFUSED, errno);
	close(fd);
}

/* A connection opened by a non-blocking connect() (which the application
 * completes with poll(), as usual), reset after it carried messages; then
 * connect() again on the same socket: the new connection starts afresh.
 * Before, its message numbers went on from the old connection's, and the
 * new peer, which expects message 0 first, never delivered one.
 */
TEST(reconnect_starts_afresh)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	unsigned short port;
	int lfd = listener(&port), cfd, afd, i;
	struct sockaddr_mrc sa = addr6("::1", port);
	struct pollfd p;
	struct mrc_info info;
	char buf[64];

	ASSERT_LE(0, lfd);
	cfd = socket(family(), SOCK_SEQPACKET, 0);
	ASSERT_LE(0, cfd);
	fcntl(cfd, F_SETFL, O_NONBLOCK);
	EXPECT_EQ(-1, connect(cfd, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(EINPROGRESS, errno);
	p.fd = cfd;
	p.events = POLLOUT;
	ASSERT_EQ(1, poll(&p, 1, 30000));
	fcntl(cfd, F_SETFL, 0);
	set_timeouts(cfd, 30);
	afd = accept(lfd, NULL, NULL);
	ASSERT_LE(0, afd);
	set_timeouts(afd, 30);
	for (i = 0; i < 20; i++) {
		ASSERT_EQ(5, send(cfd, "first", 5, 0));
		ASSERT_EQ(5, recv(afd, buf, sizeof(buf), 0));
	}
	ASSERT_EQ(0, setsockopt(afd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	close(afd);
	EXPECT_EQ(-1, recv(cfd, buf, sizeof(buf), 0));
	EXPECT_EQ(ECONNRESET, errno);

	ASSERT_EQ(0, connect(cfd, (struct sockaddr *)&sa, sizeof(sa)))
		TH_LOG("connect again: %s", strerror(errno));
	afd = accept(lfd, NULL, NULL);
	ASSERT_LE(0, afd);
	set_timeouts(afd, 10);
	ASSERT_EQ(0, get_info(cfd, &info));
	EXPECT_EQ(0ULL, info.mrci_msgs_sent);
	EXPECT_EQ(0ULL, info.mrci_bytes_sent);
	EXPECT_EQ(0ULL, info.mrci_msgs_received);
	ASSERT_EQ(6, send(cfd, "second", 6, 0));
	EXPECT_EQ(6, recv(afd, buf, sizeof(buf), 0))
		TH_LOG("recv on the new connection: %s", strerror(errno));
	EXPECT_EQ(0, memcmp(buf, "second", 6));
	close(afd);
	close(cfd);
	close(lfd);
}

TEST(nonblocking_connect)
{
	unsigned short port;
	int lfd = listener(&port), fd, err = -1;
	struct sockaddr_mrc sa = addr6("::1", port);
	struct pollfd p;
	socklen_t len = sizeof(err);

	ASSERT_LE(0, lfd);
	fd = socket(family(), SOCK_SEQPACKET, 0);
	ASSERT_LE(0, fd);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	EXPECT_EQ(-1, connect(fd, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(EINPROGRESS, errno);
	p.fd = fd;
	p.events = POLLOUT;
	ASSERT_EQ(1, poll(&p, 1, 30000));
	EXPECT_TRUE(p.revents & POLLOUT);
	ASSERT_EQ(0, getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len));
	EXPECT_EQ(0, err);
	/* accept() on a non-blocking listener with nothing queued. */
	fcntl(lfd, F_SETFL, O_NONBLOCK);
	err = accept(lfd, NULL, NULL);
	EXPECT_LE(0, err);
	EXPECT_EQ(-1, accept(lfd, NULL, NULL));
	EXPECT_EQ(EAGAIN, errno);
	close(err);
	close(fd);
	close(lfd);
}

TEST(info_counts)
{
	unsigned short port;
	int lfd = listener(&port), cfd, afd;
	struct mrc_info ci, ai;
	char buf[2000] = {};

	ASSERT_LE(0, lfd);
	cfd = connect_to(port);
	ASSERT_LE(0, cfd);
	afd = accept(lfd, NULL, NULL);
	ASSERT_LE(0, afd);
	ASSERT_EQ(2000, send(cfd, buf, 2000, 0));
	ASSERT_EQ(2000, recv(afd, buf, sizeof(buf), 0));
	ASSERT_EQ(0, get_info(cfd, &ci));
	ASSERT_EQ(0, get_info(afd, &ai));
	EXPECT_EQ(1ULL, ci.mrci_msgs_sent);
	EXPECT_EQ(2000ULL, ci.mrci_bytes_sent);
	EXPECT_EQ(1ULL, ai.mrci_msgs_received);
	EXPECT_EQ(2000ULL, ai.mrci_bytes_received);
	EXPECT_EQ(ci.mrci_local_cid, ai.mrci_remote_cid);
	EXPECT_EQ(ai.mrci_local_cid, ci.mrci_remote_cid);
	close(afd);
	close(cfd);
	close(lfd);
}

static unsigned long mib(const char *name)
{
	char line[128], key[64];
	unsigned long v, found = 0;
	FILE *f = fopen("/proc/net/mrc_stat", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lu", key, &v) == 2 && !strcmp(key, name))
			found = v;
	fclose(f);
	return found;
}

static int param(const char *name, const char *value, char *old, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/mrc/parameters/%s", name);
	if (old) {
		f = fopen(path, "r");
		if (!f || !fgets(old, len, f))
			return -1;
		fclose(f);
	}
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(value, f);
	return fclose(f);
}

/* SYNs into a dummy device vanish: connect() fails after syn_retries. */
TEST(connect_timeout)
{
	struct sockaddr_mrc sa = addr6("2001:db8:99::2", 7);
	char retries[16], rto[16];
	unsigned long before;
	int fd;

	if (geteuid())
		SKIP(return, "needs root");
	ASSERT_EQ(0, system("ip link add mrcdummy0 type dummy"));
	ASSERT_EQ(0, system("ip link set mrcdummy0 up"));
	ASSERT_EQ(0, system("ip addr add 2001:db8:99::1/64 dev mrcdummy0 nodad"));
	ASSERT_EQ(0, param("syn_retries", "2", retries, sizeof(retries)));
	ASSERT_EQ(0, param("rto_init_ms", "20", rto, sizeof(rto)));
	before = mib("ConnTimeout");
	fd = socket(family(), SOCK_SEQPACKET, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, connect(fd, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(ETIMEDOUT, errno);
	EXPECT_EQ(before + 1, mib("ConnTimeout"));
	close(fd);
	param("syn_retries", retries, NULL, 0);
	param("rto_init_ms", rto, NULL, 0);
	system("ip link del mrcdummy0");
}

/* Tests of their own set-up that need more than the harness's 30 s on a
 * debug kernel under TCG (make check-debug): global TESTs cannot say so.
 */
FIXTURE(slow) {};
FIXTURE_SETUP(slow) {}
FIXTURE_TEARDOWN(slow) {}

/* 1,000 connections at once between the same two endpoints. */
TEST_F_TIMEOUT(slow, thousand_connections, 600)
{
	enum { N = 1000 };
	struct rlimit rl = { .rlim_cur = 4 * N, .rlim_max = 4 * N };
	static int cfd[N], afd[N];
	unsigned char out[100], in[200];
	unsigned short port;
	int lfd, i;

	if (setrlimit(RLIMIT_NOFILE, &rl))
		SKIP(return, "cannot raise RLIMIT_NOFILE");
	lfd = listener(&port);
	ASSERT_LE(0, lfd);
	for (i = 0; i < N; i++) {
		cfd[i] = connect_to(port);
		ASSERT_LE(0, cfd[i]) TH_LOG("connection %d: %s", i, strerror(errno));
		afd[i] = accept(lfd, NULL, NULL);
		ASSERT_LE(0, afd[i]) TH_LOG("accept %d: %s", i, strerror(errno));
	}
	for (i = 0; i < N; i++) {
		fill(out, sizeof(out), i);
		ASSERT_EQ(100, send(cfd[i], out, sizeof(out), 0));
	}
	for (i = 0; i < N; i++) {
		set_timeouts(afd[i], 30);
		fill(out, sizeof(out), i);
		ASSERT_EQ(100, recv(afd[i], in, sizeof(in), 0)) TH_LOG("connection %d", i);
		ASSERT_EQ(0, memcmp(in, out, sizeof(out)));
		ASSERT_EQ(100, send(afd[i], in, 100, 0));
	}
	for (i = 0; i < N; i++) {
		ASSERT_EQ(100, recv(cfd[i], in, sizeof(in), 0));
		close(cfd[i]);
		close(afd[i]);
	}
	close(lfd);
}

TEST_HARNESS_MAIN
