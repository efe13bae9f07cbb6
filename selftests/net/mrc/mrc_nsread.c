// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_nsread NETNS FILE...
 *
 * Test helper: print FILEs as a process in network namespace NETNS reads
 * them (a name under /run/netns, or a path to a namespace file), for
 * /proc/net/mrc_stat and the like. It does what "ip netns exec NETNS cat"
 * does for such files, for a tenth of the time under TCG: the tests read
 * counters hundreds of times, and the suite has a time budget. Built
 * static: a dynamic binary's loading costs more than the rest of its run
 * there. Files whose contents depend on the mount namespace (/sys) are
 * not read this way. Exits 1 on any error, with a message.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int copy_out(const char *path)
{
	char buf[16384];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "mrc_nsread: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (fwrite(buf, 1, n, stdout) != (size_t)n)
			break;
	}
	close(fd);
	if (n < 0) {
		fprintf(stderr, "mrc_nsread: %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char ns[4096];
	int fd, i, rc = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: %s NETNS FILE...\n", argv[0]);
		return 2;
	}
	if (strchr(argv[1], '/'))
		snprintf(ns, sizeof(ns), "%s", argv[1]);
	else
		snprintf(ns, sizeof(ns), "/run/netns/%s", argv[1]);
	fd = open(ns, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET)) {
		fprintf(stderr, "mrc_nsread: %s: %s\n", ns, strerror(errno));
		return 1;
	}
	close(fd);
	for (i = 2; i < argc; i++)
		rc |= copy_out(argv[i]);
	if (fflush(stdout) || ferror(stdout))
		rc = 1;
	return rc;
}
