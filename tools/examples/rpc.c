// SPDX-License-Identifier: GPL-2.0
/*
 * rpc: a request/response server and client over AF_MRC, the smallest
 * useful MRC program. Copy it and change handle().
 *
 *   rpc server [PORT]              answer requests on [::]:PORT (7000)
 *   rpc client ADDR [PORT [N]]     send N requests (100), check the answers
 *
 * An MRC socket is SOCK_SEQPACKET: every send() is one message, and every
 * recv() returns one whole message, in order, exactly once, whatever
 * happens to the packets on the way. So there is no framing here: one
 * request is one message, one response is one message. The server answers
 * each request with its bytes in reverse order; the client sends requests
 * of sizes from 1 byte to 256 KB, one at a time, and checks each answer.
 *
 * make examples builds it into build/examples/, with only -Iuapi added.
 * The kernel must have mrc.ko loaded; without paths configured (mrc path
 * add), MRC sprays over 16 paths that differ only in their UDP source port.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/mrc.h>

#define MAX_REQUEST	(256 * 1024)

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* An AF_MRC address: like sockaddr_in6, with its own family. */
static struct sockaddr_mrc mrc_addr(const char *ip, const char *port)
{
	struct sockaddr_mrc sa = { .smrc_family = AF_MRC };

	sa.smrc_port = htons(atoi(port));
	if (inet_pton(AF_INET6, ip, &sa.smrc_addr) != 1) {
		fprintf(stderr, "rpc: %s is not an IPv6 address\n", ip);
		exit(1);
	}
	return sa;
}

/* The service: a response for a request of len bytes, len bytes long. */
static void handle(const char *req, char *resp, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		resp[i] = req[len - 1 - i];
}

/* One connection: a response to each request, until the client closes. */
static int serve(int fd)
{
	static char req[MAX_REQUEST], resp[MAX_REQUEST];
	unsigned long n = 0;
	ssize_t len;

	/* recv() returns 0 once the peer has closed and all is read. */
	while ((len = recv(fd, req, sizeof(req), 0)) > 0) {
		handle(req, resp, len);
		if (send(fd, resp, len, 0) != len)
			die("send");
		n++;
	}
	if (len < 0)
		die("recv");
	printf("rpc: answered %lu requests\n", n);
	return 0;
}

static int server(const char *port)
{
	struct sockaddr_mrc sa = mrc_addr("::", port);
	int lfd, fd;

	lfd = socket(AF_MRC, SOCK_SEQPACKET, 0);
	if (lfd < 0)
		die("socket(AF_MRC)");	/* EAFNOSUPPORT: mrc.ko is not loaded */
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 16))
		die("bind/listen");
	printf("rpc: listening on [::]:%s\n", port);
	fflush(stdout);

	/* A process per connection; children are reaped by the kernel. */
	signal(SIGCHLD, SIG_IGN);
	for (;;) {
		fd = accept(lfd, NULL, NULL);
		if (fd < 0) {
			if (errno == EINTR)
				continue;
			die("accept");
		}
		if (fork() == 0) {
			close(lfd);
			exit(serve(fd));
		}
		close(fd);
	}
}

static int client(const char *ip, const char *port, unsigned long count)
{
	static char req[MAX_REQUEST], want[MAX_REQUEST], got[MAX_REQUEST + 1];
	struct sockaddr_mrc sa = mrc_addr(ip, port);
	struct mrc_info info;
	socklen_t ilen = sizeof(info);
	unsigned long i;
	ssize_t len;
	size_t size;
	int fd;

	fd = socket(AF_MRC, SOCK_SEQPACKET, 0);
	if (fd < 0)
		die("socket(AF_MRC)");
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("connect");
	srandom(1);
	for (i = 0; i < count; i++) {
		/* Sizes spread over 1 byte .. 256 KB, the content varies. */
		size = 1 + random() % (i % 4 ? 1500 : MAX_REQUEST);
		for (len = 0; len < (ssize_t)size; len++)
			req[len] = random();
		if (send(fd, req, size, 0) != (ssize_t)size)
			die("send");
		/* A buffer one byte larger than the answer shows a long one. */
		len = recv(fd, got, sizeof(got), 0);
		if (len < 0)
			die("recv");
		handle(req, want, size);
		if (len != (ssize_t)size || memcmp(got, want, size)) {
			fprintf(stderr, "rpc: request %lu: wrong answer ", i);
			fprintf(stderr, "(%zd bytes, %zu expected)\n", len, size);
			return 1;
		}
	}
	/* What the connection went through: getsockopt(MRC_INFO). */
	if (getsockopt(fd, SOL_MRC, MRC_INFO, &info, &ilen))
		die("getsockopt(MRC_INFO)");
	printf("rpc: %lu requests answered correctly; ", count);
	printf("srtt %u us, %llu packets sent, %llu retransmitted\n",
	       info.mrci_srtt_us, (unsigned long long)info.mrci_pkts_sent,
	       (unsigned long long)info.mrci_pkts_retrans);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && argc <= 3 && !strcmp(argv[1], "server"))
		return server(argc > 2 ? argv[2] : "7000");
	if (argc >= 3 && argc <= 5 && !strcmp(argv[1], "client"))
		return client(argv[2], argc > 3 ? argv[3] : "7000",
			      argc > 4 ? strtoul(argv[4], NULL, 0) : 100);
	fprintf(stderr, "usage: rpc server [PORT]\n"
		"       rpc client ADDR [PORT [N]]\n");
	return 1;
}
