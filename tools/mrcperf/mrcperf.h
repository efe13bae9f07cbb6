/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrcperf: measure and check message transfer over AF_MRC, or over TCP with
 * the same message semantics. Shared declarations of its parts:
 *
 *   mrcperf.c  options, usage, main
 *   content.c  deterministic message content and its verifier
 *   msg.c      sockets and one-message send/receive for MRC and TCP
 *   proto.c    the control and report messages
 *   client.c   the client (-c)
 *   server.c   the server (-s)
 *   output.c   text and JSON results
 */
#ifndef _MRCPERF_H
#define _MRCPERF_H

/* __u64 is unsigned long long on every architecture, so %llu fits it. */
#define __SANE_USERSPACE_TYPES__

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <netinet/in.h>
#include <sys/types.h>
#include <linux/types.h>
#include <linux/mrc.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;

#define MRCPERF_MAGIC		"MRCPERF1"
#define MRCPERF_CTRL_MAX	1024	/* longest control, report or error message */
#define MRCPERF_ERR_LEN		256
#define MRCPERF_HDR_LEN		16	/* index, length, checksum */
#define MRCPERF_MAX_CONNS	1024
#define MRCPERF_STACK		(64 * 1024)
#define MRCPERF_DEFAULT_PORT	5311	/* not iperf3's 5201: both may run */
#define MRCPERF_DEFAULT_SIZE	65536
#define MRCPERF_DEFAULT_TIME	10.0
#define MRCPERF_DEFAULT_TIMEOUT	60.0

#define EXIT_USAGE	2

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

enum mrcperf_mode {
	MODE_STREAM,
	MODE_PINGPONG,
};

/* Not in every libc's headers. */
#define MRCPERF_IPPROTO_MPTCP	262

/**
 * struct mrcperf_opts - the command line
 * @server: -s
 * @once: -1, the server exits after its first session
 * @json: -j
 * @tcp: --tcp, AF_INET6 SOCK_STREAM with length-prefixed messages
 * @mptcp: --mptcp, as @tcp but IPPROTO_MPTCP
 * @verify: --verify
 * @mode: stream or --pingpong
 * @family: address family for MRC sockets (AF_MRC, $MRC_FAMILY or --family)
 * @addr: server address (-c) or bind address (-B), with port and scope
 * @host: @addr as given on the command line
 * @size: -l, bytes per message
 * @count: -n, messages per connection; 0 when the run is timed
 * @duration: -t, seconds; 0 when the run is counted
 * @conns: -P, parallel connections
 * @timeout: --timeout, seconds for SO_RCVTIMEO and SO_SNDTIMEO
 * @seed: --seed, content seed
 * @ready: --ready, file the server creates once it listens
 * @hold: --hold, the client keeps its connections open, once done, until
 *	this file exists; it creates @hold.done when they are all done
 * @start: --start, the client creates @start.ready-PID once its connections
 *	are open, and sends nothing until @start exists
 * @stall: --stall, the server reads no data on a connection until this
 *	file exists, so that receive buffers fill
 * @outage_ms: --outage, MRC_OUTAGE_TIMEOUT of every MRC connection; 0 keeps
 *	the namespace's default
 * @buf: --buf, SO_SNDBUF and SO_RCVBUF of every socket; 0 keeps the defaults
 * @interval: -i, seconds between the client's interim reports; 0 for none
 * @reverse: -R, the server sends and the client receives
 */
struct mrcperf_opts {
	bool server;
	bool once;
	bool json;
	bool tcp;
	bool mptcp;
	bool verify;
	enum mrcperf_mode mode;
	int family;
	struct sockaddr_in6 addr;
	const char *host;
	u32 size;
	u64 count;
	double duration;
	unsigned int conns;
	double timeout;
	u64 seed;
	const char *ready;
	const char *hold;
	const char *start;
	const char *stall;
	u32 outage_ms;
	u32 buf;
	double interval;
	bool reverse;
};

/**
 * struct mrcperf_ctrl - the control message, the first of every connection
 * @session: 16 hex digits naming the client run all its connections share
 * @conn: index of this connection in the session, 0 .. @conns - 1
 * @conns: connections in the session
 * @mode: stream or pingpong
 * @verify: content is generated and must be checked
 * @size: bytes per message
 * @seed: content seed
 * @count: messages the client will send; 0 for a timed run
 * @duration: seconds of a timed run; 0 for a counted run
 * @reverse: the server sends, for @count messages or @duration seconds,
 *	then its report (which is never @size bytes long, so that the client
 *	tells it from the data); the client receives and checks
 */
struct mrcperf_ctrl {
	char session[17];
	u32 conn;
	u32 conns;
	enum mrcperf_mode mode;
	bool verify;
	u32 size;
	u64 seed;
	u64 count;
	double duration;
	bool reverse;
};

/**
 * struct mrcperf_report - what the server received (sent, in reverse) on one
 *	connection
 * @messages: messages received, or sent
 * @bytes: payload bytes of @messages
 * @errors: messages that failed verification
 * @usec: microseconds from the control message to end of file
 * @error: first error, empty if none
 */
struct mrcperf_report {
	u64 messages;
	u64 bytes;
	u64 errors;
	u64 usec;
	char error[MRCPERF_ERR_LEN];
};

/**
 * struct conn_result - outcome of one connection, on either side
 * @conn: index in the session
 * @present: the connection took part (a server slot may stay empty)
 * @failed: an error ended or spoilt the connection
 * @messages: messages sent (client) or received (server)
 * @bytes: payload bytes of @messages
 * @verify_errors: messages with wrong length or content
 * @start_ns: CLOCK_MONOTONIC when data transfer began
 * @end_ns: CLOCK_MONOTONIC when it ended
 * @error: first error
 * @have_info: @info holds MRC_INFO taken at the end
 * @info: MRC_INFO
 * @rtt_us: round-trip times of a ping-pong client
 * @nrtt: entries in @rtt_us
 * @rtt_cap: room in @rtt_us
 */
struct conn_result {
	u32 conn;
	bool present;
	bool failed;
	u64 messages;
	u64 bytes;
	u64 verify_errors;
	u64 start_ns;
	u64 end_ns;
	char error[MRCPERF_ERR_LEN];
	bool have_info;
	struct mrc_info info;
	double *rtt_us;
	size_t nrtt;
	size_t rtt_cap;
};

/**
 * struct mrcperf_interval - one interim report of the client (-i)
 * @start: seconds since every connection was open, at its start
 * @end: and at its end
 * @bytes: payload bytes all connections sent (received, with -R) in it
 */
struct mrcperf_interval {
	double start;
	double end;
	u64 bytes;
};

/**
 * struct run_info - what a set of results describes, for output
 * @role: "client" or "server"
 * @peer: the server (client side) or the client (server side)
 * @ctrl: parameters of the run
 * @tcp: TCP instead of MRC
 * @mptcp: and MPTCP at that
 * @iv: the client's interim reports (-i), none if NULL
 * @niv: entries in @iv
 */
struct run_info {
	const char *role;
	const char *peer;
	const struct mrcperf_ctrl *ctrl;
	bool tcp;
	bool mptcp;
	const struct mrcperf_interval *iv;
	size_t niv;
};

/* A message of @n bytes went out (or came in) on @r. The client's main
 * thread reads @r->bytes while the connection's thread counts (-i).
 */
static inline void conn_count(struct conn_result *r, u64 n)
{
	r->messages++;
	__atomic_store_n(&r->bytes, r->bytes + n, __ATOMIC_RELAXED);
}

/* "mrc", "tcp" or "mptcp": the protocol a run used. */
static inline const char *run_proto(const struct run_info *ri)
{
	return ri->mptcp ? "mptcp" : ri->tcp ? "tcp" : "mrc";
}

/**
 * struct content - what a message's content is derived from
 * @seed: run seed
 * @conn: connection index
 * @size: message size
 */
struct content {
	u64 seed;
	u32 conn;
	u32 size;
};

/**
 * struct verifier - checks received messages against their content
 * @c: expected content
 * @next: index the next message must carry
 * @errors: messages that failed
 * @first: description of the first failure
 */
struct verifier {
	struct content c;
	u64 next;
	u64 errors;
	char first[MRCPERF_ERR_LEN];
};

/**
 * struct mconn - a connected socket carrying messages
 * @fd: the socket
 * @tcp: TCP with length prefixes instead of MRC
 * @rbuf: TCP receive buffer
 * @rstart: first unread byte in @rbuf
 * @rend: end of the data in @rbuf
 */
struct mconn {
	int fd;
	bool tcp;
	u8 *rbuf;
	size_t rstart;
	size_t rend;
};

/* content.c */
void content_fill(const struct content *c, u64 idx, u8 *buf);
void verifier_init(struct verifier *v, const struct content *c);
bool verify_msg(struct verifier *v, const u8 *buf, size_t len);
bool verify_len(struct verifier *v, size_t len);

/* msg.c */
/* Set by SIGINT in the client: send no further message, then end as usual.
 * A lock-free atomic, so that the signal handler may set it.
 */
extern atomic_bool mrcperf_stop;

u64 now_ns(void);
int mconn_init(struct mconn *mc, int fd, const struct mrcperf_opts *o);
void mconn_close(struct mconn *mc);
int msg_send(struct mconn *mc, const void *buf, size_t len);
ssize_t msg_recv(struct mconn *mc, void *buf, size_t cap);
void io_error(char *err, size_t len, const char *what, double timeout);
int sock_open(const struct mrcperf_opts *o, char *err, size_t len);
void sock_addr(const struct mrcperf_opts *o, const struct sockaddr_in6 *sin6,
	       struct sockaddr_storage *ss, socklen_t *len);
void sock_addr_str(const struct mrcperf_opts *o, const struct sockaddr_storage *ss,
		   char *buf, size_t len);
bool mrc_info_get(int fd, struct mrc_info *info);

/* proto.c */
bool parse_u64(const char *s, u64 *v);
int ctrl_format(const struct mrcperf_ctrl *c, char *buf, size_t len);
int ctrl_parse(struct mrcperf_ctrl *c, const char *msg, char *err, size_t errlen);
int report_format(const struct mrcperf_report *r, char *buf, size_t len, u32 avoid);
int report_parse(struct mrcperf_report *r, const char *msg, char *err, size_t errlen);
int error_format(const char *text, char *buf, size_t len);

/* client.c, server.c */
int run_client(const struct mrcperf_opts *o);
int run_server(const struct mrcperf_opts *o);

/* output.c */
void conn_fail(struct conn_result *r, const char *fmt, ...);
bool results_ok(const struct conn_result *res, unsigned int n);
void print_results(FILE *f, bool json, const struct run_info *ri,
		   const struct conn_result *res, unsigned int n);

#endif /* _MRCPERF_H */
