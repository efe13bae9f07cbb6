// SPDX-License-Identifier: GPL-2.0
/*
 * AF_MRC socket creation, bind() and getsockname()/getpeername().
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/mrc.h>

#include "kselftest_harness.h"

#define NOBODY 65534

static int mrc_family(void)
{
	const char *f = getenv("MRC_FAMILY");

	return f ? atoi(f) : AF_MRC;
}

static int mrc_socket(void)
{
	return socket(mrc_family(), SOCK_SEQPACKET, 0);
}

static struct sockaddr_mrc mrc_addr(const char *ip, unsigned short port)
{
	struct sockaddr_mrc sa;

	memset(&sa, 0, sizeof(sa));
	sa.smrc_family = mrc_family();
	sa.smrc_port = htons(port);
	if (inet_pton(AF_INET6, ip, &sa.smrc_addr) != 1)
		abort();
	return sa;
}

static int bind_to(int fd, const char *ip, unsigned short port)
{
	struct sockaddr_mrc sa = mrc_addr(ip, port);

	return bind(fd, (struct sockaddr *)&sa, sizeof(sa));
}

static unsigned short bound_port(int fd)
{
	struct sockaddr_mrc sa;
	socklen_t len = sizeof(sa);

	if (getsockname(fd, (struct sockaddr *)&sa, &len) || len != sizeof(sa))
		return 0;
	return ntohs(sa.smrc_port);
}

/* Run fn() as nobody in a child; return its exit code. */
static int as_nobody(int (*fn)(void))
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(100);
		_exit(fn());
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST(create_seqpacket)
{
	int fd = mrc_socket();

	ASSERT_LE(0, fd) TH_LOG("socket: %s", strerror(errno));
	EXPECT_EQ(0, close(fd));
}

TEST(other_types_unsupported)
{
	static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_RDM };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		errno = 0;
		EXPECT_EQ(-1, socket(mrc_family(), types[i], 0));
		EXPECT_EQ(ESOCKTNOSUPPORT, errno) TH_LOG("type %d", types[i]);
	}
}

TEST(protocol_unsupported)
{
	errno = 0;
	EXPECT_EQ(-1, socket(mrc_family(), SOCK_SEQPACKET, IPPROTO_UDP));
	EXPECT_EQ(EPROTONOSUPPORT, errno);
	errno = 0;
	EXPECT_EQ(-1, socket(mrc_family(), SOCK_SEQPACKET, 1000));
	EXPECT_EQ(EPROTONOSUPPORT, errno);
}

static int nobody_creates_and_binds(void)
{
	int fd = mrc_socket();

	if (fd < 0)
		return 1;
	if (bind_to(fd, "::", 0) || !bound_port(fd))
		return 2;
	/* Ports below ip_unprivileged_port_start need CAP_NET_BIND_SERVICE. */
	close(fd);
	fd = mrc_socket();
	if (bind_to(fd, "::", 80) != -1 || errno != EACCES)
		return 3;
	return close(fd) ? 4 : 0;
}

TEST(unprivileged)
{
	EXPECT_EQ(0, as_nobody(nobody_creates_and_binds));
}

TEST(bind_wrong_family)
{
	struct sockaddr_mrc sa = mrc_addr("::1", 4000);
	int fd = mrc_socket();

	ASSERT_LE(0, fd);
	sa.smrc_family = AF_INET6;
	EXPECT_EQ(-1, bind(fd, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(EAFNOSUPPORT, errno);
	close(fd);
}

TEST(bind_short_addrlen)
{
	struct sockaddr_mrc sa = mrc_addr("::1", 4000);
	int fd = mrc_socket();

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, bind(fd, (struct sockaddr *)&sa, sizeof(sa) - 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, bind(fd, (struct sockaddr *)&sa, sizeof(sa.smrc_family)));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
}

TEST(bind_not_local)
{
	static const char * const addrs[] = {
		"2001:db8::1",		/* documentation prefix, not ours */
		"ff02::1",		/* multicast */
		"::ffff:127.0.0.1",	/* IPv4-mapped: MRC is IPv6 only */
	};
	unsigned int i;
	int fd = mrc_socket();

	ASSERT_LE(0, fd);
	for (i = 0; i < ARRAY_SIZE(addrs); i++) {
		errno = 0;
		EXPECT_EQ(-1, bind_to(fd, addrs[i], 4000));
		EXPECT_EQ(EADDRNOTAVAIL, errno) TH_LOG("%s", addrs[i]);
	}
	/* A failed bind leaves the socket unbound. */
	EXPECT_EQ(0, bound_port(fd));
	close(fd);
}

TEST(bind_link_local_needs_scope)
{
	struct sockaddr_mrc sa = mrc_addr("fe80::1", 4000);
	int fd = mrc_socket();

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, bind(fd, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(EINVAL, errno);
	sa.smrc_scope_id = 0x7fffffff;
	EXPECT_EQ(-1, bind(fd, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(ENODEV, errno);
	close(fd);
}

TEST(bind_port_in_use)
{
	int a = mrc_socket(), b = mrc_socket(), c = mrc_socket();

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, bind_to(a, "::1", 4001));
	EXPECT_EQ(-1, bind_to(b, "::1", 4001));
	EXPECT_EQ(EADDRINUSE, errno);
	/* The wildcard clashes with every specific address, both ways. */
	EXPECT_EQ(-1, bind_to(b, "::", 4001));
	EXPECT_EQ(EADDRINUSE, errno);
	ASSERT_EQ(0, bind_to(c, "::", 4002));
	EXPECT_EQ(-1, bind_to(b, "::1", 4002));
	EXPECT_EQ(EADDRINUSE, errno);
	/* Closing frees the port. */
	close(a);
	EXPECT_EQ(0, bind_to(b, "::1", 4001));
	close(b);
	close(c);
}

TEST(bind_twice)
{
	int fd = mrc_socket();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, bind_to(fd, "::1", 4003));
	EXPECT_EQ(-1, bind_to(fd, "::1", 4004));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(4003, bound_port(fd));
	close(fd);
}

TEST(bind_port_zero_picks_free_port)
{
	unsigned int low, high;
	unsigned short p1, p2;
	int a = mrc_socket(), b = mrc_socket();
	FILE *f;

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(2, fscanf(f, "%u %u", &low, &high));
	fclose(f);

	ASSERT_EQ(0, bind_to(a, "::", 0));
	ASSERT_EQ(0, bind_to(b, "::", 0));
	p1 = bound_port(a);
	p2 = bound_port(b);
	EXPECT_LE(low, p1);
	EXPECT_GE(high, p1);
	EXPECT_LE(low, p2);
	EXPECT_GE(high, p2);
	EXPECT_NE(p1, p2);
	close(a);
	close(b);
}

TEST(getsockname_reports_binding)
{
	struct sockaddr_mrc sa, want = mrc_addr("::1", 4005);
	socklen_t len = sizeof(sa);
	int fd = mrc_socket();

	ASSERT_LE(0, fd);
	/* Unbound: family only. */
	ASSERT_EQ(0, getsockname(fd, (struct sockaddr *)&sa, &len));
	EXPECT_EQ(sizeof(sa), len);
	EXPECT_EQ(mrc_family(), sa.smrc_family);
	EXPECT_EQ(0, sa.smrc_port);

	ASSERT_EQ(0, bind(fd, (struct sockaddr *)&want, sizeof(want)));
	len = sizeof(sa);
	ASSERT_EQ(0, getsockname(fd, (struct sockaddr *)&sa, &len));
	EXPECT_EQ(sizeof(sa), len);
	EXPECT_EQ(0, memcmp(&sa, &want, sizeof(sa)));
	close(fd);
}

TEST(getpeername_not_connected)
{
	struct sockaddr_mrc sa;
	socklen_t len = sizeof(sa);
	int fd = mrc_socket();

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, getpeername(fd, (struct sockaddr *)&sa, &len));
	EXPECT_EQ(ENOTCONN, errno);
	close(fd);
}

TEST_HARNESS_MAIN
