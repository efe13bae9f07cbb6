// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_churn: test helper for stress.sh.
 *
 *   mrc_churn -b N
 *	N cycles of socket(), bind() to a free port on ::1, close().
 *   mrc_churn -s PORT -r READY_FILE -x STOP_FILE
 *	a sink: accept every connection on [::]:PORT, read and drop its
 *	messages, close it when it ends or fails; creates READY_FILE once
 *	listening, runs until STOP_FILE exists, then prints what it saw.
 *   mrc_churn -c ADDR -p PORT -n N -j J [-S SEED]
 *	N connections to the sink, at most J open at once. Each one queues
 *	a random number (0 to 16) of messages of random size (1 byte to
 *	64 KB) without waiting for them to go, then ends in one of four
 *	ways chosen at random while its data is still in flight: close(),
 *	close() with SO_LINGER 0 (an abort), shutdown() then close(), or
 *	left open until the process exits. Prints how many of each.
 *
 * Exit status 0 when every system call that must succeed did.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/mrc.h>

#define MAX_OPEN	1024
#define MSG_MAX_LEN	(64 * 1024)

static int family = AF_MRC;

static struct sockaddr_mrc addr_of(const char *ip, int port)
{
	struct sockaddr_mrc sa = { .smrc_family = family };

	sa.smrc_port = htons(port);
	if (inet_pton(AF_INET6, ip, &sa.smrc_addr) != 1) {
		fprintf(stderr, "mrc_churn: bad address %s\n", ip);
		exit(2);
	}
	return sa;
}

static int do_cycles(long n)
{
	struct sockaddr_mrc sa = addr_of("::1", 0);
	long i;
	int fd;

	for (i = 0; i < n; i++) {
		fd = socket(family, SOCK_SEQPACKET, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			fprintf(stderr, "mrc_churn: cycle %ld: %s\n", i, strerror(errno));
			return 1;
		}
		close(fd);
	}
	printf("mrc_churn: %ld socket/bind/close cycles\n", n);
	return 0;
}

static int run_sink(int port, const char *ready, const char *stop)
{
	static char buf[MSG_MAX_LEN + 1];
	struct sockaddr_mrc sa = addr_of("::", port);
	struct pollfd pfd[MAX_OPEN + 1];
	unsigned long accepted = 0, msgs = 0, ended = 0, failed = 0;
	int n = 1, i, fd;
	ssize_t len;

	pfd[0].fd = socket(family, SOCK_SEQPACKET, 0);
	if (pfd[0].fd < 0 || bind(pfd[0].fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(pfd[0].fd, 128)) {
		perror("mrc_churn: listen");
		return 1;
	}
	pfd[0].events = POLLIN;
	fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(ready);
		return 1;
	}
	close(fd);
	while (access(stop, F_OK)) {
		if (poll(pfd, n, 200) < 0) {
			if (errno == EINTR)
				continue;
			perror("mrc_churn: poll");
			return 1;
		}
		if ((pfd[0].revents & POLLIN) && n <= MAX_OPEN) {
			fd = accept(pfd[0].fd, NULL, NULL);
			if (fd >= 0) {
				fcntl(fd, F_SETFL, O_NONBLOCK);
				pfd[n].fd = fd;
				pfd[n].events = POLLIN;
				pfd[n++].revents = 0;
				accepted++;
			}
		}
		for (i = 1; i < n; i++) {
			if (!pfd[i].revents)
				continue;
			len = recv(pfd[i].fd, buf, sizeof(buf), MSG_DONTWAIT);
			if (len > 0) {
				msgs++;
				continue;
			}
			if (len < 0 && errno == EAGAIN)
				continue;
			if (len < 0)
				failed++;
			else
				ended++;
			close(pfd[i].fd);
			pfd[i--] = pfd[--n];
		}
	}
	printf("mrc_churn: %lu connections accepted, %lu messages, ", accepted, msgs);
	printf("%lu ended, %lu failed, %d open\n", ended, failed, n - 1);
	return 0;
}

static void finish(int fd, int how, unsigned long *ways)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	ways[how]++;
	switch (how) {
	case 1:
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		break;
	case 2:
		shutdown(fd, SHUT_RDWR);
		break;
	case 3:
		return;		/* left open */
	}
	close(fd);
}

static int run_churn(const char *ip, int port, long n, int j)
{
	static char buf[MSG_MAX_LEN];
	struct sockaddr_mrc sa = addr_of(ip, port);
	unsigned long ways[4] = { 0 }, queued = 0;
	int open_fds[MAX_OPEN], slot, k, m, fd;
	long i;

	for (k = 0; k < j; k++)
		open_fds[k] = -1;
	for (i = 0; i < (long)sizeof(buf); i++)
		buf[i] = random();
	for (i = 0; i < n; i++) {
		slot = random() % j;
		if (open_fds[slot] >= 0)
			finish(open_fds[slot], random() % 4, ways);
		fd = socket(family, SOCK_SEQPACKET, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			fprintf(stderr, "mrc_churn: connection %ld: %s\n", i, strerror(errno));
			return 1;
		}
		for (m = random() % 17; m > 0; m--) {
			if (send(fd, buf, 1 + random() % MSG_MAX_LEN, MSG_DONTWAIT) < 0)
				break;	/* send buffer full: in flight enough */
			queued++;
		}
		open_fds[slot] = fd;
	}
	for (k = 0; k < j; k++)
		if (open_fds[k] >= 0)
			finish(open_fds[k], random() % 4, ways);
	printf("mrc_churn: %ld connections, %lu messages queued; ", n, queued);
	printf("ended by close %lu, abort %lu, shutdown %lu, exit %lu\n",
	       ways[0], ways[1], ways[2], ways[3]);
	return 0;
}

int main(int argc, char **argv)
{
	const char *ip = NULL, *ready = "/dev/null", *fam = getenv("MRC_FAMILY");
	const char *stop = NULL;
	long cyc = 0, n = 0;
	int opt, port = 0, j = 1, server = 0;
	struct rlimit rl = { 4096, 4096 };

	if (fam)
		family = atoi(fam);
	setrlimit(RLIMIT_NOFILE, &rl);
	while ((opt = getopt(argc, argv, "b:s:r:x:c:p:n:j:S:")) != -1) {
		switch (opt) {
		case 'b':
			cyc = atol(optarg);
			break;
		case 's':
			server = 1;
			port = atoi(optarg);
			break;
		case 'r':
			ready = optarg;
			break;
		case 'x':
			stop = optarg;
			break;
		case 'c':
			ip = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'n':
			n = atol(optarg);
			break;
		case 'j':
			j = atoi(optarg);
			break;
		case 'S':
			srandom(atoi(optarg));
			break;
		default:
			return 2;
		}
	}
	if (cyc)
		return do_cycles(cyc);
	if (server && stop)
		return run_sink(port, ready, stop);
	if (ip && n > 0 && j > 0 && j <= MAX_OPEN)
		return run_churn(ip, port, n, j);
	fprintf(stderr, "usage: mrc_churn -b N | -s PORT -r READY -x STOP\n");
	fprintf(stderr, "       mrc_churn -c ADDR -p PORT -n N -j J [-S SEED]\n");
	return 2;
}
