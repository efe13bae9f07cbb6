// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_demo: open an AF_MRC socket, bind it to a free port on ::1, and say
 * what happened at each step.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/mrc.h>

int main(void)
{
	struct sockaddr_mrc sa;
	socklen_t len = sizeof(sa);
	char ip[INET6_ADDRSTRLEN];
	int fd;

	fd = socket(AF_MRC, SOCK_SEQPACKET, 0);
	if (fd < 0) {
		printf("socket(AF_MRC, SOCK_SEQPACKET, 0): %s\n", strerror(errno));
		return 1;
	}
	printf("socket(AF_MRC=%d, SOCK_SEQPACKET, 0) = fd %d\n", AF_MRC, fd);

	memset(&sa, 0, sizeof(sa));
	sa.smrc_family = AF_MRC;
	inet_pton(AF_INET6, "::1", &sa.smrc_addr);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		printf("bind([::1]:0): %s\n", strerror(errno));
		return 1;
	}
	printf("bind([::1]:0) = 0\n");

	if (getsockname(fd, (struct sockaddr *)&sa, &len)) {
		printf("getsockname: %s\n", strerror(errno));
		return 1;
	}
	inet_ntop(AF_INET6, &sa.smrc_addr, ip, sizeof(ip));
	printf("getsockname() = [%s]:%u (the kernel picked the port)\n",
	       ip, ntohs(sa.smrc_port));
	fflush(stdout);

	/* /proc/net/protocols counts the open socket. */
	return system("grep -E '^(protocol|MRC) ' /proc/net/protocols | cut -c1-40") ||
	       close(fd);
}
