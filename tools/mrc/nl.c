// SPDX-License-Identifier: GPL-2.0
/*
 * The netlink side: one generic netlink socket, the "mrc" family's id and
 * event group looked up through the controller, and requests that run
 * until the kernel's ack. Every kernel error ends the program with the
 * kernel's extack message, so callers only see success.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "mrc.h"

#define NL_ERRMSG_LEN	256

static struct {
	struct mnl_socket *sock;
	u32 portid;
	u32 seq;
	u16 family;
	u32 events;		/* multicast group id, 0 if none */
	char *sbuf;
	char *rbuf;
	size_t rlen;
} nl;

/**
 * struct nl_talk - one request and what came back
 * @cb: called for every reply message that is not an error, ack or done
 * @error: errno the kernel answered with, 0 for success
 * @done: the ack or the end of the dump has come
 * @msg: the kernel's extack message, empty if none
 * @bad_off: where in the request the attribute at fault starts, 0 if unsaid
 * @range: the values its policy allows, " (min to max)", empty if unsaid
 */
struct nl_talk {
	nl_msg_cb cb;
	int error;
	bool done;
	char msg[NL_ERRMSG_LEN];
	u32 bad_off;
	char range[48];
};

static bool attr_ok(const struct nlattr *a, int want)
{
	switch (want) {
	case NL_NEST:
		return mnl_attr_validate(a, MNL_TYPE_NESTED) >= 0;
	case NL_STRING:
		return mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0;
	case NL_FLAG:
		return !mnl_attr_get_payload_len(a);
	default:
		return mnl_attr_get_payload_len(a) == want;
	}
}

/**
 * nl_check() - end the program unless an attribute is as expected
 * @a: the attribute
 * @want: its payload length, or NL_NEST, NL_STRING or NL_FLAG
 */
void nl_check(const struct nlattr *a, int want)
{
	if (!attr_ok(a, want))
		nl_fail("malformed reply from the kernel (attribute %u)",
			mnl_attr_get_type(a));
}

/**
 * struct nl_table - where nl_parse_*() index attributes
 * @policy: by type, the payload length or NL_NEST, NL_STRING or NL_FLAG;
 *	0 to skip
 * @max: the highest type indexed
 * @tb: by type, the attribute or NULL
 */
struct nl_table {
	const int *policy;
	unsigned int max;
	const struct nlattr **tb;
};

static int parse_cb(const struct nlattr *a, void *data)
{
	const struct nl_table *t = data;
	unsigned int type = mnl_attr_get_type(a);

	/* Unknown and padding attributes are left alone: newer kernels. */
	if (type > t->max || !t->policy[type])
		return MNL_CB_OK;
	nl_check(a, t->policy[type]);
	t->tb[type] = a;
	return MNL_CB_OK;
}

/**
 * nl_parse_msg() - index the attributes of a generic netlink message
 * @nlh: the message
 * @policy: by type, what nl_check() wants of it; 0 to ignore the type
 * @max: the highest type in @policy and @tb
 * @tb: by type, the (last) attribute of that type, or NULL
 *
 * Attributes that do not match @policy end the program.
 */
void nl_parse_msg(const struct nlmsghdr *nlh, const int *policy,
		  unsigned int max, const struct nlattr **tb)
{
	struct nl_table t = { policy, max, tb };

	memset(tb, 0, (max + 1) * sizeof(*tb));
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), parse_cb, &t);
}

/* nl_parse_msg() for the attributes inside @nest. */
void nl_parse_nest(const struct nlattr *nest, const int *policy,
		   unsigned int max, const struct nlattr **tb)
{
	struct nl_table t = { policy, max, tb };

	memset(tb, 0, (max + 1) * sizeof(*tb));
	mnl_attr_parse_nested(nest, parse_cb, &t);
}

/*
 * One whole message, however large: the buffer grows to what is queued (a
 * path-get reply of a full set is over 64 KiB). A message cut short all
 * the same ends the program rather than be parsed in part.
 */
static ssize_t nl_recv(void)
{
	int fd = mnl_socket_get_fd(nl.sock);
	struct iovec iov;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	for (;;) {
		n = recv(fd, nl.rbuf, nl.rlen, MSG_PEEK | MSG_TRUNC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (size_t)n <= nl.rlen)
			break;
		free(nl.rbuf);
		nl.rlen = n;
		nl.rbuf = malloc(nl.rlen);
		if (!nl.rbuf)
			nl_fail("out of memory");
	}
	if (n < 0)
		return n;
	iov.iov_base = nl.rbuf;
	iov.iov_len = nl.rlen;
	do
		n = recvmsg(fd, &mh, 0);
	while (n < 0 && errno == EINTR);
	if (n >= 0 && (mh.msg_flags & MSG_TRUNC))
		nl_fail("netlink receive: message truncated to %zu bytes", nl.rlen);
	return n;
}

/* NL_SET_ERR_MSG_MOD() starts with the module's name, as our "mrc: " does. */
#define NL_MOD_PREFIX	"mrc: "

/* The values the policy of the attribute at fault allows, if it says. */
static void extack_range(const struct nlattr *pol, struct nl_talk *t)
{
	static const int policy[NL_POLICY_TYPE_ATTR_MAX + 1] = {
		[NL_POLICY_TYPE_ATTR_MIN_VALUE_U] = sizeof(u64),
		[NL_POLICY_TYPE_ATTR_MAX_VALUE_U] = sizeof(u64),
	};
	const struct nlattr *tb[NL_POLICY_TYPE_ATTR_MAX + 1];

	if (mnl_attr_validate(pol, MNL_TYPE_NESTED) < 0)
		return;
	nl_parse_nest(pol, policy, NL_POLICY_TYPE_ATTR_MAX, tb);
	if (tb[NL_POLICY_TYPE_ATTR_MIN_VALUE_U] && tb[NL_POLICY_TYPE_ATTR_MAX_VALUE_U])
		snprintf(t->range, sizeof(t->range), " (%llu to %llu)",
			 (u64)mnl_attr_get_u64(tb[NL_POLICY_TYPE_ATTR_MIN_VALUE_U]),
			 (u64)mnl_attr_get_u64(tb[NL_POLICY_TYPE_ATTR_MAX_VALUE_U]));
}

static int extack_cb(const struct nlattr *a, void *data)
{
	struct nl_talk *t = data;
	const char *msg;

	switch (mnl_attr_get_type(a)) {
	case NLMSGERR_ATTR_MSG:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			break;
		msg = mnl_attr_get_str(a);
		if (!strncmp(msg, NL_MOD_PREFIX, strlen(NL_MOD_PREFIX)))
			msg += strlen(NL_MOD_PREFIX);
		snprintf(t->msg, sizeof(t->msg), "%s", msg);
		break;
	case NLMSGERR_ATTR_OFFS:
		if (mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
			t->bad_off = mnl_attr_get_u32(a);
		break;
	case NLMSGERR_ATTR_POLICY:
		extack_range(a, t);
		break;
	}
	return MNL_CB_OK;
}

/*
 * An error or an ack: struct nlmsgerr, then the request back (only its
 * header when NLM_F_CAPPED), then with NLM_F_ACK_TLVS the extack attributes.
 */
static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	struct nl_talk *t = data;
	size_t off = sizeof(*err);

	t->done = true;
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*err)) {
		t->error = EBADMSG;
		return MNL_CB_STOP;
	}
	t->error = -err->error;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off = sizeof(err->error) + err->msg.nlmsg_len;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
		mnl_attr_parse(nlh, off, extack_cb, t);
	return MNL_CB_STOP;
}

/* The end of a dump carries the dump's error, and extack after it. */
static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nl_talk *t = data;
	int err;

	t->done = true;
	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(err)) {
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
		t->error = -err;
	}
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
		mnl_attr_parse(nlh, sizeof(err), extack_cb, t);
	return MNL_CB_STOP;
}

static int data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nl_talk *t = data;

	if (t->cb)
		t->cb(nlh);
	return MNL_CB_OK;
}

static mnl_cb_t ctl_cbs[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR] = error_cb,
	[NLMSG_DONE] = done_cb,
};

/* Send @nlh and take in the replies up to the ack or the end of the dump. */
static void talk(struct nlmsghdr *nlh, struct nl_talk *t)
{
	ssize_t n;
	int ret;

	nlh->nlmsg_seq = ++nl.seq;
	if (mnl_socket_sendto(nl.sock, nlh, nlh->nlmsg_len) < 0)
		nl_fail("netlink send: %s", strerror(errno));
	while (!t->done) {
		n = nl_recv();
		if (n < 0)
			nl_fail("netlink receive: %s", strerror(errno));
		ret = mnl_cb_run2(nl.rbuf, n, nl.seq, nl.portid, data_cb, t,
				  ctl_cbs, ARRAY_SIZE(ctl_cbs));
		if (ret < 0)
			nl_fail("netlink: %s", strerror(errno));
	}
}

static struct nlmsghdr *put_header(u16 type, u8 cmd, u8 version, u16 flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl.sbuf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = version;
	return nlh;
}

static void family_group(const struct nlattr *grp)
{
	static const int policy[CTRL_ATTR_MCAST_GRP_MAX + 1] = {
		[CTRL_ATTR_MCAST_GRP_NAME] = NL_STRING,
		[CTRL_ATTR_MCAST_GRP_ID] = sizeof(u32),
	};
	const struct nlattr *tb[CTRL_ATTR_MCAST_GRP_MAX + 1];

	nl_parse_nest(grp, policy, CTRL_ATTR_MCAST_GRP_MAX, tb);
	if (tb[CTRL_ATTR_MCAST_GRP_NAME] && tb[CTRL_ATTR_MCAST_GRP_ID] &&
	    !strcmp(mnl_attr_get_str(tb[CTRL_ATTR_MCAST_GRP_NAME]),
		    MRC_GENL_MCGRP_EVENTS))
		nl.events = mnl_attr_get_u32(tb[CTRL_ATTR_MCAST_GRP_ID]);
}

static void family_cb(const struct nlmsghdr *nlh)
{
	static const int policy[CTRL_ATTR_MAX + 1] = {
		[CTRL_ATTR_FAMILY_ID] = sizeof(u16),
		[CTRL_ATTR_MCAST_GROUPS] = NL_NEST,
	};
	const struct nlattr *tb[CTRL_ATTR_MAX + 1];
	const struct nlattr *grp;

	nl_parse_msg(nlh, policy, CTRL_ATTR_MAX, tb);
	if (tb[CTRL_ATTR_FAMILY_ID])
		nl.family = mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	if (tb[CTRL_ATTR_MCAST_GROUPS]) {
		mnl_attr_for_each_nested(grp, tb[CTRL_ATTR_MCAST_GROUPS]) {
			nl_check(grp, NL_NEST);
			family_group(grp);
		}
	}
}

/* The socket, with extack messages and short acks, and the family's id. */
static void nl_init(void)
{
	struct nl_talk t = { .cb = family_cb };
	struct nlmsghdr *nlh;
	int one = 1;

	nl.sbuf = malloc(MNL_SOCKET_BUFFER_SIZE);
	nl.rlen = 65536;
	nl.rbuf = malloc(nl.rlen);
	if (!nl.sbuf || !nl.rbuf)
		nl_fail("out of memory");
	nl.sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl.sock)
		nl_fail("netlink socket: %s", strerror(errno));
	if (mnl_socket_bind(nl.sock, 0, MNL_SOCKET_AUTOPID) < 0)
		nl_fail("netlink bind: %s", strerror(errno));
	nl.portid = mnl_socket_get_portid(nl.sock);
	nl.seq = time(NULL);
	/* Old kernels lack these; errors then come without the message. */
	mnl_socket_setsockopt(nl.sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl.sock, NETLINK_CAP_ACK, &one, sizeof(one));

	nlh = put_header(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, 0);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, MRC_GENL_NAME);
	talk(nlh, &t);
	if (t.error == ENOENT)
		nl_fail("the mrc module is not loaded, and did not load on demand (modprobe mrc)");
	if (t.error)
		nl_fail("%s", t.msg[0] ? t.msg : strerror(t.error));
	if (!nl.family)
		nl_fail("malformed reply from the kernel (no family id)");
}

/**
 * nl_request() - start a request to the "mrc" family
 * @cmd: MRC_CMD_*
 * @flags: NLM_F_DUMP or 0; NLM_F_REQUEST and NLM_F_ACK are always set
 * @room: bytes of attributes beyond the few every request has
 *
 * The first request opens the socket and looks the family up.
 *
 * Return: the message, to add attributes to and pass to nl_talk().
 */
struct nlmsghdr *nl_request(u8 cmd, u16 flags, size_t room)
{
	if (!nl.sock)
		nl_init();
	free(nl.sbuf);
	nl.sbuf = malloc(MNL_SOCKET_BUFFER_SIZE + room);
	if (!nl.sbuf)
		nl_fail("out of memory");
	return put_header(nl.family, cmd, MRC_GENL_VERSION, flags);
}

/* The attribute @off bytes into @nlh, if one lies whole there. */
static const struct nlattr *request_attr(const struct nlmsghdr *nlh, u32 off)
{
	const struct nlattr *a = (const void *)((const char *)nlh + off);

	if (off < mnl_nlmsg_size(sizeof(struct genlmsghdr)) ||
	    off + MNL_ATTR_HDRLEN > nlh->nlmsg_len ||
	    a->nla_len < MNL_ATTR_HDRLEN || off + a->nla_len > nlh->nlmsg_len)
		return NULL;
	return a;
}

/**
 * nl_talk_named() - send a request and wait for its ack or the end of its dump
 * @nlh: from nl_request()
 * @cb: called for each reply message, or NULL
 * @name: for an error that points at an attribute of @nlh, writes what the
 *	command line called it; NULL if the kernel's message says enough
 *
 * An error ends the program with the kernel's message, after the name of
 * the attribute at fault and before the values its policy allows, when
 * known; a message that comes with success is printed as a warning.
 */
void nl_talk_named(struct nlmsghdr *nlh, nl_msg_cb cb, nl_attr_name name)
{
	struct nl_talk t = { .cb = cb };
	const struct nlattr *bad;
	char what[64] = "";

	talk(nlh, &t);
	if (t.error) {
		bad = request_attr(nlh, t.bad_off);
		if (name && bad)
			name(bad, what, sizeof(what));
		nl_fail("%s%s%s%s", what, what[0] ? ": " : "",
			t.msg[0] ? t.msg : strerror(t.error),
			t.error == ERANGE ? t.range : "");
	}
	if (t.msg[0])
		warnx("warning: %s", t.msg);
}

/* nl_talk_named() for a request whose errors need no name. */
void nl_talk(struct nlmsghdr *nlh, nl_msg_cb cb)
{
	nl_talk_named(nlh, cb, NULL);
}

/**
 * nl_listen_events() - join the "events" group and hand @cb every message
 * @cb: called for each notification
 */
void nl_listen_events(nl_msg_cb cb)
{
	struct nl_talk t = { .cb = cb };
	ssize_t n;

	if (!nl.sock)
		nl_init();
	if (!nl.events)
		nl_fail("the mrc family has no \"%s\" group", MRC_GENL_MCGRP_EVENTS);
	if (mnl_socket_setsockopt(nl.sock, NETLINK_ADD_MEMBERSHIP, &nl.events,
				  sizeof(nl.events)) < 0)
		nl_fail("cannot join the events group: %s", strerror(errno));
	for (;;) {
		n = nl_recv();
		if (n < 0 && errno == ENOBUFS) {
			warnx("events lost: receive buffer overrun");
			continue;
		}
		if (n < 0)
			nl_fail("netlink receive: %s", strerror(errno));
		if (mnl_cb_run(nl.rbuf, n, 0, 0, data_cb, &t) < 0)
			nl_fail("netlink: %s", strerror(errno));
	}
}
