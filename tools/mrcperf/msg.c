// SPDX-License-Identifier: GPL-2.0
/*
 * Sockets and messages. MRC keeps message boundaries itself: one send() is
 * one message and one recvmsg() returns one whole message. Over TCP (--tcp)
 * every message is preceded by its length, 4 bytes big endian, so that the
 * rest of mrcperf sees the same semantics on both.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "mrcperf.h"

/* Many small TCP messages arrive per read. */
#define TCP_RBUF_SIZE	(256 * 1024)

u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Describe errno after a failed socket call. SO_RCVTIMEO and SO_SNDTIMEO
 * expire as EAGAIN, or as EINPROGRESS in connect().
 */
void io_error(char *err, size_t len, const char *what, double timeout)
{
	int e = errno;

	if (e == EAGAIN || e == EINPROGRESS)
		snprintf(err, len, "%s: timed out after %g s (%s)", what, timeout, strerror(e));
	else if (e == EPROTO)
		snprintf(err, len, "%s: %s (short message or broken framing)",
			 what, strerror(e));
	else
		snprintf(err, len, "%s: %s", what, strerror(e));
}

/* --buf: SO_SNDBUF and SO_RCVBUF of a new socket (children inherit them). */
static int sock_set_bufs(int fd, const struct mrcperf_opts *o, char *err,
			 size_t len)
{
	int v = o->buf;

	if (!o->buf)
		return fd;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v))) {
		snprintf(err, len, "SO_SNDBUF/SO_RCVBUF %d: %s", v, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int sock_open(const struct mrcperf_opts *o, char *err, size_t len)
{
	int fd;

	if (o->tcp) {
		fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC,
			    o->mptcp ? MRCPERF_IPPROTO_MPTCP : 0);
		if (fd < 0)
			snprintf(err, len, "socket(AF_INET6, SOCK_STREAM%s): %s",
				 o->mptcp ? ", IPPROTO_MPTCP" : "", strerror(errno));
		return fd < 0 ? fd : sock_set_bufs(fd, o, err, len);
	}
	fd = socket(o->family, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		snprintf(err, len, "socket(AF_MRC=%d, SOCK_SEQPACKET): %s%s", o->family,
			 strerror(errno), errno == EAFNOSUPPORT ? " (is mrc.ko loaded?)" : "");
	return fd < 0 ? fd : sock_set_bufs(fd, o, err, len);
}

/* The socket address for @sin6 in the family of the run. */
void sock_addr(const struct mrcperf_opts *o, const struct sockaddr_in6 *sin6,
	       struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_mrc *smrc = (struct sockaddr_mrc *)ss;

	memset(ss, 0, sizeof(*ss));
	if (o->tcp) {
		memcpy(ss, sin6, sizeof(*sin6));
		*len = sizeof(*sin6);
		return;
	}
	smrc->smrc_family = o->family;
	smrc->smrc_port = sin6->sin6_port;
	smrc->smrc_scope_id = sin6->sin6_scope_id;
	smrc->smrc_addr = sin6->sin6_addr;
	*len = sizeof(*smrc);
}

void sock_addr_str(const struct mrcperf_opts *o, const struct sockaddr_storage *ss,
		   char *buf, size_t len)
{
	const struct sockaddr_mrc *smrc = (const struct sockaddr_mrc *)ss;
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;
	char ip[INET6_ADDRSTRLEN] = "?";
	const struct in6_addr *addr;
	u32 scope;
	u16 port;

	if (!o->tcp && ss->ss_family == o->family) {
		addr = &smrc->smrc_addr;
		port = ntohs(smrc->smrc_port);
		scope = smrc->smrc_scope_id;
	} else if (ss->ss_family == AF_INET6) {
		addr = &sin6->sin6_addr;
		port = ntohs(sin6->sin6_port);
		scope = sin6->sin6_scope_id;
	} else {
		snprintf(buf, len, "(family %u)", ss->ss_family);
		return;
	}
	inet_ntop(AF_INET6, addr, ip, sizeof(ip));
	if (scope)
		snprintf(buf, len, "[%s%%%u]:%u", ip, scope, port);
	else
		snprintf(buf, len, "[%s]:%u", ip, port);
}

/* Timeouts, MRC_OUTAGE_TIMEOUT, TCP_NODELAY (every message goes out at
 * once, as with MRC).
 */
int mconn_init(struct mconn *mc, int fd, const struct mrcperf_opts *o)
{
	struct timeval tv;
	int one = 1;

	memset(mc, 0, sizeof(*mc));
	mc->fd = fd;
	mc->tcp = o->tcp;
	tv.tv_sec = (time_t)o->timeout;
	tv.tv_usec = (suseconds_t)((o->timeout - (double)tv.tv_sec) * 1e6);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		return -1;
	if (!o->tcp)
		return o->outage_ms ? setsockopt(fd, SOL_MRC, MRC_OUTAGE_TIMEOUT,
						 &o->outage_ms, sizeof(o->outage_ms)) : 0;
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		return -1;
	mc->rbuf = malloc(TCP_RBUF_SIZE);
	return mc->rbuf ? 0 : -1;
}

void mconn_close(struct mconn *mc)
{
	if (mc->fd >= 0)
		close(mc->fd);
	mc->fd = -1;
	free(mc->rbuf);
	mc->rbuf = NULL;
}

static int tcp_send(struct mconn *mc, const void *buf, size_t len)
{
	u32 be_len = htonl(len);
	struct iovec iov[2] = {
		{ .iov_base = &be_len, .iov_len = 4 },
		{ .iov_base = (void *)buf, .iov_len = len },
	};
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	ssize_t n;

	while (mh.msg_iovlen) {
		n = sendmsg(mc->fd, &mh, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		while (mh.msg_iovlen && (size_t)n >= mh.msg_iov->iov_len) {
			n -= mh.msg_iov->iov_len;
			mh.msg_iov++;
			mh.msg_iovlen--;
		}
		if (mh.msg_iovlen) {
			mh.msg_iov->iov_base = (u8 *)mh.msg_iov->iov_base + n;
			mh.msg_iov->iov_len -= n;
		}
	}
	return 0;
}

int msg_send(struct mconn *mc, const void *buf, size_t len)
{
	ssize_t n;

	if (mc->tcp)
		return tcp_send(mc, buf, len);
	do
		n = send(mc->fd, buf, len, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if ((size_t)n != len) {
		/* One send() is one message: a partial send breaks that. */
		errno = EPROTO;
		return -1;
	}
	return 0;
}

/*
 * Copy the next @len bytes of the TCP stream to @dst (or drop them if @dst
 * is NULL). Returns 1, 0 if the stream ended before the first byte and
 * @may_end, or -1 with errno set (EPROTO: it ended inside a message).
 */
static int tcp_read(struct mconn *mc, u8 *dst, size_t len, bool may_end)
{
	size_t avail, n;
	ssize_t r;

	while (len) {
		avail = mc->rend - mc->rstart;
		if (avail) {
			n = avail < len ? avail : len;
			if (dst) {
				memcpy(dst, mc->rbuf + mc->rstart, n);
				dst += n;
			}
			mc->rstart += n;
			len -= n;
			may_end = false;
			continue;
		}
		mc->rstart = 0;
		mc->rend = 0;
		if (dst && len >= TCP_RBUF_SIZE)
			r = recv(mc->fd, dst, len, 0);
		else
			r = recv(mc->fd, mc->rbuf, TCP_RBUF_SIZE, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (!r) {
			if (may_end)
				return 0;
			errno = EPROTO;
			return -1;
		}
		if (dst && len >= TCP_RBUF_SIZE) {
			dst += r;
			len -= r;
			may_end = false;
		} else {
			mc->rend = r;
		}
	}
	return 1;
}

static ssize_t tcp_recv(struct mconn *mc, void *buf, size_t cap)
{
	u32 be_len;
	size_t len;
	int r;

	r = tcp_read(mc, (u8 *)&be_len, 4, true);
	if (r <= 0)
		return r;
	len = ntohl(be_len);
	if (!len || len > MRC_MSG_MAX) {
		errno = EPROTO;
		return -1;
	}
	if (tcp_read(mc, buf, len < cap ? len : cap, false) < 0)
		return -1;
	if (len > cap && tcp_read(mc, NULL, len - cap, false) < 0)
		return -1;
	return len;
}

/*
 * Receive one message into @buf. Returns its full length, which is more
 * than @cap if it was truncated; 0 at end of file; -1 with errno on error.
 */
ssize_t msg_recv(struct mconn *mc, void *buf, size_t cap)
{
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (mc->tcp)
		return tcp_recv(mc, buf, cap);
	do
		n = recvmsg(mc->fd, &mh, MSG_TRUNC);
	while (n < 0 && errno == EINTR);
	if (n >= 0 && (mh.msg_flags & MSG_TRUNC) && (size_t)n <= cap)
		n = cap + 1;
	return n;
}

bool mrc_info_get(int fd, struct mrc_info *info)
{
	socklen_t len = sizeof(*info);

	/* A shorter struct from an older module leaves the rest zero. */
	memset(info, 0, sizeof(*info));
	return !getsockopt(fd, SOL_MRC, MRC_INFO, info, &len);
}
