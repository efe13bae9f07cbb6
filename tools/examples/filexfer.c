// SPDX-License-Identifier: GPL-2.0
/*
 * filexfer: send a file over AF_MRC, and keep going when a network path
 * fails under it.
 *
 *   filexfer recv PORT DIR          receive one file into DIR, then exit
 *   filexfer send ADDR PORT FILE    send FILE to a receiver at ADDR
 *
 * There is no failure handling in this program, and that is the point:
 * MRC sprays the connection's packets over every path to the peer; when a
 * path breaks, the kernel notices its losses within a few round trips,
 * resends what it lost on the other paths, and probes the broken one
 * until it heals. The application sees a short slowdown at most. Only if
 * every path stays broken longer than the outage timeout (set below) does
 * a call fail, with ETIMEDOUT.
 *
 * On the wire (messages, so no framing of our own):
 *   1. a header: struct fx_header, then the file's name;
 *   2. the file, in messages of CHUNK bytes (the last one shorter);
 *   3. a trailer: struct fx_trailer, an FNV-1a hash of the content;
 * and the receiver answers with one message, "OK" once the file is
 * written under its name, or an error text. MRC already delivers every
 * byte intact; the hash checks the whole chain, disk included, and the
 * answer tells the sender that the file is safely stored, which the
 * transport cannot know.
 *
 * make examples builds it into build/examples/, with only -Iuapi added.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/mrc.h>

#define CHUNK		(1024 * 1024)
#define NAME_MAX_LEN	255
#define OUTAGE_MS	60000	/* wait this long with every path broken */

/* 16 bytes each, no padding: the same layout everywhere. */
struct fx_header {
	char magic[8];		/* "MRCFILE" */
	uint64_t size;		/* bytes of content, big endian */
	/* then the name: 1 to NAME_MAX_LEN bytes, no '/', no NUL */
};

struct fx_trailer {
	char magic[8];		/* "MRCDONE" */
	uint64_t hash;		/* FNV-1a 64 of the content, big endian */
};

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void fail(const char *msg)
{
	fprintf(stderr, "filexfer: %s\n", msg);
	exit(1);
}

static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t len)
{
	while (len--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

#define FNV_INIT	0xcbf29ce484222325ULL

static struct sockaddr_mrc mrc_addr(const char *ip, const char *port)
{
	struct sockaddr_mrc sa = { .smrc_family = AF_MRC };

	sa.smrc_port = htons(atoi(port));
	if (inet_pton(AF_INET6, ip, &sa.smrc_addr) != 1)
		fail("ADDR must be an IPv6 address");
	return sa;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int send_file(const char *ip, const char *port, const char *path)
{
	static unsigned char buf[sizeof(struct fx_header) + NAME_MAX_LEN];
	struct sockaddr_mrc sa = mrc_addr(ip, port);
	struct fx_header *hdr = (struct fx_header *)buf;
	struct fx_trailer tr = { .magic = "MRCDONE" };
	unsigned int outage = OUTAGE_MS;
	const char *name = basename(strdup(path));
	uint64_t hash = FNV_INIT, left;
	static unsigned char chunk[CHUNK];
	struct mrc_info info;
	socklen_t ilen = sizeof(info);
	char answer[256];
	struct stat st;
	double t0;
	ssize_t n;
	int fd, in;

	in = open(path, O_RDONLY);
	if (in < 0 || fstat(in, &st))
		die(path);
	if (strlen(name) > NAME_MAX_LEN)
		fail("file name too long");

	fd = socket(AF_MRC, SOCK_SEQPACKET, 0);
	if (fd < 0)
		die("socket(AF_MRC)");
	/*
	 * The one knob failure handling needs: how long a connection with
	 * no working path waits for one to come back. The default is the
	 * sysctl net.mrc.outage_timeout_ms.
	 */
	if (setsockopt(fd, SOL_MRC, MRC_OUTAGE_TIMEOUT, &outage, sizeof(outage)))
		die("setsockopt(MRC_OUTAGE_TIMEOUT)");
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("connect");
	t0 = now();

	memcpy(hdr->magic, "MRCFILE", 8);
	hdr->size = htobe64(st.st_size);
	memcpy(buf + sizeof(*hdr), name, strlen(name));
	if (send(fd, buf, sizeof(*hdr) + strlen(name), 0) < 0)
		die("send");

	/* Each send() queues one whole message, or blocks until it can. */
	for (left = st.st_size; left; left -= n) {
		n = read(in, chunk, left < CHUNK ? left : CHUNK);
		if (n <= 0)
			fail("the file shrank while it was sent");
		hash = fnv1a(hash, chunk, n);
		if (send(fd, chunk, n, 0) != n)
			die("send");	/* ETIMEDOUT: no path for OUTAGE_MS */
	}
	tr.hash = htobe64(hash);
	if (send(fd, &tr, sizeof(tr), 0) != sizeof(tr))
		die("send");

	n = recv(fd, answer, sizeof(answer) - 1, 0);
	if (n < 0)
		die("recv");
	answer[n] = '\0';
	if (strcmp(answer, "OK")) {
		fprintf(stderr, "filexfer: the receiver said: %s\n", n ? answer :
			"nothing (it closed)");
		return 1;
	}
	if (getsockopt(fd, SOL_MRC, MRC_INFO, &info, &ilen))
		die("getsockopt(MRC_INFO)");
	printf("filexfer: sent %s, %lld bytes in %.1f s; ", name,
	       (long long)st.st_size, now() - t0);
	printf("%llu of %llu packets retransmitted, %llu timeouts\n",
	       (unsigned long long)info.mrci_pkts_retrans,
	       (unsigned long long)info.mrci_pkts_sent,
	       (unsigned long long)info.mrci_rtos);
	close(fd);
	return 0;
}

/* Receive one file on fd into dir; returns the answer for the sender. */
static const char *receive(int fd, const char *dir)
{
	static unsigned char buf[CHUNK + 1];
	static char path[4096], part[4200];
	struct fx_header *hdr = (struct fx_header *)buf;
	struct fx_trailer *tr = (struct fx_trailer *)buf;
	uint64_t hash = FNV_INIT, size, left;
	char name[NAME_MAX_LEN + 1];
	size_t nlen;
	ssize_t n;
	int out;

	n = recv(fd, buf, sizeof(buf), 0);
	if (n < (ssize_t)sizeof(*hdr) + 1 || memcmp(hdr->magic, "MRCFILE", 8))
		return "bad header";
	nlen = n - sizeof(*hdr);
	if (nlen > NAME_MAX_LEN)
		return "name too long";
	memcpy(name, buf + sizeof(*hdr), nlen);
	name[nlen] = '\0';
	if (strlen(name) != nlen || strchr(name, '/') ||
	    !strcmp(name, ".") || !strcmp(name, ".."))
		return "bad file name";
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(part, sizeof(part), "%s.part", path);
	out = open(part, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		return strerror(errno);

	/* A buffer a byte over CHUNK: a longer message would be cut. */
	size = be64toh(hdr->size);
	for (left = size; left; left -= n) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			return n ? strerror(errno) : "the sender closed early";
		if ((uint64_t)n > left || n > CHUNK)
			return "more data than the header said";
		hash = fnv1a(hash, buf, n);
		if (write(out, buf, n) != n)
			return strerror(errno);
	}
	n = recv(fd, buf, sizeof(buf), 0);
	if (n != sizeof(*tr) || memcmp(tr->magic, "MRCDONE", 8))
		return "bad trailer";
	if (be64toh(tr->hash) != hash)
		return "content hash mismatch";
	if (fsync(out) || close(out) || rename(part, path))
		return strerror(errno);
	printf("filexfer: received %s, %llu bytes, hash %016llx\n", path,
	       (unsigned long long)size, (unsigned long long)hash);
	return "OK";
}

static int recv_file(const char *port, const char *dir)
{
	struct sockaddr_mrc sa = mrc_addr("::", port);
	const char *answer;
	int lfd, fd;

	lfd = socket(AF_MRC, SOCK_SEQPACKET, 0);
	if (lfd < 0)
		die("socket(AF_MRC)");
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1))
		die("bind/listen");
	printf("filexfer: waiting on [::]:%s\n", port);
	fflush(stdout);
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		die("accept");
	close(lfd);
	answer = receive(fd, dir);
	if (send(fd, answer, strlen(answer), 0) < 0)
		die("send");
	if (strcmp(answer, "OK")) {
		fprintf(stderr, "filexfer: %s\n", answer);
		return 1;
	}
	/* close() returns at once; the kernel still delivers the answer. */
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "recv"))
		return recv_file(argv[2], argv[3]);
	if (argc == 5 && !strcmp(argv[1], "send"))
		return send_file(argv[2], argv[3], argv[4]);
	fprintf(stderr, "usage: filexfer recv PORT DIR\n"
		"       filexfer send ADDR PORT FILE\n");
	return 1;
}
