// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_hold [-n COUNT] [-l PORT [-b BACKLOG]] [-r READY_FILE] [-x]
 *
 * Test helper: open COUNT AF_MRC sockets (default 1), bind each to a free
 * port, create READY_FILE, then wait for a signal (or, with -x, exit at
 * once). The sockets close when the process ends. With -l, one socket
 * instead, bound to [::]:PORT and listening (backlog BACKLOG, default 16),
 * that never accepts: a target for handshakes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/mrc.h>

int main(int argc, char **argv)
{
	const char *family = getenv("MRC_FAMILY");
	struct sockaddr_mrc sa;
	const char *ready = NULL;
	int count = 1, wait = 1, port = 0, backlog = 16;
	int opt, i, fd;

	while ((opt = getopt(argc, argv, "n:l:b:r:x")) != -1) {
		switch (opt) {
		case 'n':
			count = atoi(optarg);
			break;
		case 'l':
			port = atoi(optarg);
			count = 1;
			break;
		case 'b':
			backlog = atoi(optarg);
			break;
		case 'r':
			ready = optarg;
			break;
		case 'x':
			wait = 0;
			break;
		default:
			fprintf(stderr, "usage: %s [-n COUNT] [-l PORT [-b BACKLOG]]", argv[0]);
			fprintf(stderr, " [-r READY_FILE] [-x]\n");
			return 2;
		}
	}

	memset(&sa, 0, sizeof(sa));
	sa.smrc_family = family ? atoi(family) : AF_MRC;
	sa.smrc_port = htons(port);
	for (i = 0; i < count; i++) {
		fd = socket(sa.smrc_family, SOCK_SEQPACKET, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
		    (port && listen(fd, backlog))) {
			fprintf(stderr, "mrc_hold: socket %d: %s\n", i, strerror(errno));
			return 1;
		}
	}
	if (ready) {
		fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) {
			perror(ready);
			return 1;
		}
		close(fd);
	}
	while (wait)
		pause();
	return 0;
}
