// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_orphan ADDR PORT
 *
 * Test helper: connect to [ADDR]:PORT, send 64 KB messages until neither
 * the peer's window nor our send buffer takes more (send() fails with
 * EAGAIN and the socket stays unwritable for a second), then close() and
 * exit: the connection is left as an orphan with data to deliver. Prints
 * the number of messages queued. Exits 1 on any other error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <linux/mrc.h>

#define MSG_SIZE	65536

int main(int argc, char **argv)
{
	const char *family = getenv("MRC_FAMILY");
	struct timeval tv = { .tv_sec = 30 };
	struct sockaddr_mrc sa;
	static char buf[MSG_SIZE];
	struct pollfd p;
	long sent = 0;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: %s ADDR PORT\n", argv[0]);
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.smrc_family = family ? atoi(family) : AF_MRC;
	sa.smrc_port = htons(atoi(argv[2]));
	if (inet_pton(AF_INET6, argv[1], &sa.smrc_addr) != 1) {
		fprintf(stderr, "mrc_orphan: bad address %s\n", argv[1]);
		return 2;
	}
	fd = socket(sa.smrc_family, SOCK_SEQPACKET, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("mrc_orphan: connect");
		return 1;
	}
	p.fd = fd;
	p.events = POLLOUT;
	for (;;) {
		if (send(fd, buf, sizeof(buf), MSG_DONTWAIT) == sizeof(buf)) {
			sent++;
			continue;
		}
		if (errno != EAGAIN) {
			perror("mrc_orphan: send");
			return 1;
		}
		/* Writable again within a second: the peer took more. */
		if (poll(&p, 1, 1000) == 0)
			break;
	}
	printf("mrc_orphan: %ld messages queued\n", sent);
	close(fd);
	return 0;
}
