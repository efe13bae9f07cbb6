// SPDX-License-Identifier: GPL-2.0
/*
 * conn_pairs [-t] -a ADDR -p PORT -n COUNT -r READY_FILE
 *
 * Benchmark helper: open COUNT idle connections to ourselves, one thread,
 * so that the kernel memory they take can be measured without a thread
 * per connection in the way. Listens on [ADDR]:PORT, connects COUNT
 * sockets to it and accepts them (2 x COUNT sockets plus the listener),
 * creates READY_FILE, and waits for a signal. MRC (AF_MRC, SOCK_SEQPACKET)
 * by default; TCP with -t.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/mrc.h>

static int family, type;

static int make_addr(struct sockaddr_storage *ss, const char *addr, int port)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_mrc *sm = (struct sockaddr_mrc *)ss;

	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		return inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1 ?
		       (int)sizeof(*s6) : -1;
	}
	sm->smrc_family = family;
	sm->smrc_port = htons(port);
	return inet_pton(AF_INET6, addr, &sm->smrc_addr) == 1 ? (int)sizeof(*sm) : -1;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *ready = NULL, *fam = getenv("MRC_FAMILY");
	int port = 0, count = 0, tcp = 0, opt, i, lfd, len, fd;
	struct sockaddr_storage ss;
	struct rlimit rl;
	sigset_t set;

	while ((opt = getopt(argc, argv, "ta:p:n:r:")) != -1) {
		switch (opt) {
		case 't':
			tcp = 1;
			break;
		case 'a':
			addr = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'n':
			count = atoi(optarg);
			break;
		case 'r':
			ready = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (!addr || !port || count <= 0 || !ready)
		goto usage;
	family = tcp ? AF_INET6 : (fam ? atoi(fam) : AF_MRC);
	type = tcp ? SOCK_STREAM : SOCK_SEQPACKET;
	rl.rlim_cur = 2 * count + 64;
	rl.rlim_max = rl.rlim_cur;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit");

	len = make_addr(&ss, addr, port);
	if (len < 0) {
		fprintf(stderr, "conn_pairs: bad address %s\n", addr);
		return 2;
	}
	lfd = socket(family, type, 0);
	if (lfd < 0)
		die("socket");
	opt = 1;
	if (tcp && setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &opt, sizeof(opt)))
		die("SO_REUSEADDR");
	if (bind(lfd, (struct sockaddr *)&ss, len) || listen(lfd, count))
		die("bind/listen");
	for (i = 0; i < count; i++) {
		fd = socket(family, type, 0);
		if (fd < 0)
			die("socket");
		if (connect(fd, (struct sockaddr *)&ss, len))
			die("connect");
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			die("accept");
	}
	fd = open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		die(ready);
	close(fd);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigwait(&set, &i);
	return 0;
usage:
	fprintf(stderr, "usage: %s [-t] -a ADDR -p PORT -n COUNT -r READY_FILE\n", argv[0]);
	return 2;
}
