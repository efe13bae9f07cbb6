/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * MRC (Multipath Reliable Connection) sockets: the user-space API.
 *
 * See Documentation/networking/mrc.rst.
 */
#ifndef _UAPI_LINUX_MRC_H
#define _UAPI_LINUX_MRC_H

#include <linux/types.h>
#include <linux/socket.h>
#include <linux/in6.h>

/*
 * Mainline never implemented AF_WANPIPE, and a module cannot register a
 * family at or above AF_MAX, so MRC takes that slot. The module parameter
 * "family" moves it on kernels where the slot is taken.
 */
#define AF_MRC		25
#define PF_MRC		AF_MRC

/* Socket option level for MRC options (getsockopt/setsockopt). */
#define SOL_MRC		299

/**
 * struct sockaddr_mrc - address of an MRC socket
 * @smrc_family: AF_MRC
 * @smrc_port: MRC port, network byte order; 0 in bind() picks a free one
 * @smrc_scope_id: interface index, required for link-local addresses
 * @smrc_addr: IPv6 address; in6addr_any in bind() means every local address
 */
struct sockaddr_mrc {
	__kernel_sa_family_t	smrc_family;
	__be16			smrc_port;
	__u32			smrc_scope_id;
	struct in6_addr		smrc_addr;
};

/* The largest message one sendmsg() may carry; larger ones get EMSGSIZE. */
#define MRC_MSG_MAX	(4U << 20)

/* Options at level SOL_MRC. */
#define MRC_INFO	1	/* get: struct mrc_info */
#define MRC_OUTAGE_TIMEOUT 2	/* get/set: __u32 ms a connection waits with no
				 * usable path before ETIMEDOUT; 1..86400000;
				 * default sysctl net.mrc.outage_timeout_ms
				 */
#define MRC_PEER	3	/* set: struct mrc_peer; connect with no
				 * handshake
				 */

/* Connection ids (QPNs) that MRC_PEER accepts: 24 bits, 0 to 2 reserved. */
#define MRC_QPN_MIN	3
#define MRC_QPN_MAX	0xffffff
/* The largest initial PSN. */
#define MRC_PSN_MAX	0xffffff

/**
 * struct mrc_peer - a connection set up out of band (setsockopt MRC_PEER)
 * @addr: the peer's address and port, as connect() takes them
 * @local_qpn: this end's connection id, which the peer sends to
 * @peer_qpn: the peer's connection id
 * @local_psn: the first PSN this end sends
 * @peer_psn: the first PSN the peer sends
 * @peer_mss: the largest payload the peer takes in one packet, which this
 *	end sends no more than; 0 for this end's own (the narrowest route of
 *	its paths), which is what it takes
 * @peer_rwnd: the peer's receive window at the start, bytes; 0 for the
 *	window this end would offer itself
 * @flags: 0
 *
 * The socket, unconnected, becomes connected at once, as a queue pair
 * moved to RTS does; the peer does the same with the values swapped. A
 * packet that reaches a peer not yet set up is answered by a reset.
 */
struct mrc_peer {
	struct sockaddr_mrc	addr;
	__u32			local_qpn;
	__u32			peer_qpn;
	__u32			local_psn;
	__u32			peer_psn;
	__u32			peer_mss;
	__u32			peer_rwnd;
	__u32			flags;
};

/* Connection states, as reported in mrc_info.mrci_state. */
enum mrc_state {
	MRC_CLOSED = 0,
	MRC_LISTEN,
	MRC_SYN_SENT,
	MRC_SYN_RECV,
	MRC_ESTABLISHED,
};

/**
 * struct mrc_info - state and counters of one connection (getsockopt MRC_INFO)
 * @mrci_state: enum mrc_state
 * @mrci_shutdown: SHUT_RD/SHUT_WR bits (1 and 2) already in effect
 * @mrci_fin_flags: 1: FIN sent, 2: our FIN acknowledged, 4: peer's FIN received
 * @mrci_pad: zero
 * @mrci_mss: payload bytes per DATA packet
 * @mrci_srtt_us: smoothed round-trip time, microseconds
 * @mrci_rttvar_us: round-trip time variation, microseconds
 * @mrci_rto_us: current retransmission timeout (with backoff), microseconds
 * @mrci_cwnd: congestion window, packets
 * @mrci_ssthresh: slow-start threshold, packets
 * @mrci_inflight: packets sent and neither acknowledged nor selectively acked
 * @mrci_peer_rwnd: receive window the peer last advertised, bytes
 * @mrci_rcv_wnd: receive window we advertise, bytes
 * @mrci_local_cid: connection id the peer sends to
 * @mrci_remote_cid: connection id we send to
 * @mrci_bytes_sent: payload bytes handed to sendmsg() and queued
 * @mrci_bytes_acked: payload bytes the peer acknowledged
 * @mrci_bytes_received: payload bytes of complete messages delivered in order
 * @mrci_msgs_sent: messages queued by sendmsg()
 * @mrci_msgs_received: complete messages queued for recvmsg()
 * @mrci_pkts_sent: DATA packets sent, retransmissions included
 * @mrci_pkts_retrans: DATA packets retransmitted
 * @mrci_pkts_received: DATA packets received, duplicates included
 * @mrci_pkts_dup: duplicate DATA packets received and dropped
 * @mrci_sack_recovered: holes filled by a retransmission before any RTO
 * @mrci_rtos: retransmission timeouts
 * @mrci_ecn_marks: ACKs that echoed a congestion mark
 * @mrci_pkts_trimmed: DATA packets received trimmed by a switch (NACKed,
 *	never delivered)
 * @mrci_trim_retrans: DATA packets sent again because the peer NACKed
 *	them as trimmed
 * @mrci_busy_us: time with data in flight or queued, microseconds (in
 *	jiffies); the five below are parts of it
 * @mrci_app_limited_us: of that, time held by none of the limits below:
 *	the application gave nothing more to send, or no path was usable
 * @mrci_cwnd_limited_us: of that, time the congestion window was full
 * @mrci_wnd_limited_us: of that, time with 256 packets outstanding, all
 *	the PSN window holds
 * @mrci_rwnd_limited_us: of that, time the peer's receive window was full
 * @mrci_sndbuf_limited_us: of that, time everything queued was in flight
 *	and the application waited for room (SO_SNDBUF, or net.mrc.mem)
 * @mrci_rcvbuf: SO_RCVBUF now, bytes: what autotuning has grown it to
 *	(net.mrc.rcvbuf_max), unless the application set it
 * @mrci_rcv_rtt_us: the receiver's RTT, which paces autotuning: the
 *	shortest time a right edge we advertised took to be reached,
 *	microseconds; 0 before the first
 * @mrci_sndbuf: SO_SNDBUF now, bytes: what autotuning has grown it to
 *	(net.mrc.sndbuf_max), unless the application set it
 * @mrci_pad2: zero
 *
 * getsockopt() copies at most the caller's length and returns the length it
 * copied, so fields can be added at the end.
 */
struct mrc_info {
	__u8	mrci_state;
	__u8	mrci_shutdown;
	__u8	mrci_fin_flags;
	__u8	mrci_pad;
	__u32	mrci_mss;
	__u32	mrci_srtt_us;
	__u32	mrci_rttvar_us;
	__u32	mrci_rto_us;
	__u32	mrci_cwnd;
	__u32	mrci_ssthresh;
	__u32	mrci_inflight;
	__u32	mrci_peer_rwnd;
	__u32	mrci_rcv_wnd;
	__u32	mrci_local_cid;
	__u32	mrci_remote_cid;
	__u64	mrci_bytes_sent;
	__u64	mrci_bytes_acked;
	__u64	mrci_bytes_received;
	__u64	mrci_msgs_sent;
	__u64	mrci_msgs_received;
	__u64	mrci_pkts_sent;
	__u64	mrci_pkts_retrans;
	__u64	mrci_pkts_received;
	__u64	mrci_pkts_dup;
	__u64	mrci_sack_recovered;
	__u64	mrci_rtos;
	__u64	mrci_ecn_marks;
	__u64	mrci_pkts_trimmed;
	__u64	mrci_trim_retrans;
	__u64	mrci_busy_us;
	__u64	mrci_app_limited_us;
	__u64	mrci_cwnd_limited_us;
	__u64	mrci_wnd_limited_us;
	__u64	mrci_rwnd_limited_us;
	__u64	mrci_sndbuf_limited_us;
	__u32	mrci_rcvbuf;
	__u32	mrci_rcv_rtt_us;
	__u32	mrci_sndbuf;
	__u32	mrci_pad2;
};

/*
 * Generic netlink family "mrc": the control plane. The contract is
 * Documentation/netlink/specs/mrc.yaml; these definitions follow it.
 */
#define MRC_GENL_NAME		"mrc"
#define MRC_GENL_VERSION	1
#define MRC_GENL_MCGRP_EVENTS	"events"

/* Limits: more gives E2BIG. */
#define MRC_PATHS_PER_SET_MAX	256
#define MRC_PATH_SETS_MAX	1024
#define MRC_SEGS_MAX		8

enum mrc_path_state {
	MRC_PATH_GOOD = 1,
	MRC_PATH_ASSUMED_BAD,
	MRC_PATH_DENIED,
};

/* Why a path changed state. */
enum mrc_path_reason {
	MRC_REASON_ADDED = 1,	/* the path was created */
	MRC_REASON_OPERATOR,	/* MRC_CMD_PATH_SET */
	MRC_REASON_LOSS,	/* a loss retired it */
	MRC_REASON_PROBE,	/* probes brought it back */
	MRC_REASON_SPURIOUS,	/* the loss that retired it was not one */
};

enum mrc_cmd {
	MRC_CMD_UNSPEC,
	MRC_CMD_PATH_ADD,	/* set and path attributes; creates the set */
	MRC_CMD_PATH_DEL,	/* a path (with PATH_ID) or a whole set */
	MRC_CMD_PATH_GET,	/* a set (do) or every set (dump) */
	MRC_CMD_PATH_SET,	/* STATE of one path: good or denied */
	MRC_CMD_PATHSET_SET,	/* MIN_ACTIVE of a set */
	MRC_CMD_FLUSH,		/* delete every set */
	MRC_CMD_STATS_GET,	/* the namespace's counters */
	MRC_CMD_PATH_EVENT,	/* notification: a path changed state */
	MRC_CMD_CONN_GET,	/* dump: every connection, MRC_A_CONN each */
	MRC_CMD_CONN_EVENT,	/* notification: established, or closed */
	MRC_CMD_CC_GET,		/* the namespace's congestion-control settings */
	MRC_CMD_CC_SET,		/* change some of them (MRC_A_CC) */
	MRC_CMD_PROBE,		/* probe one path, reply with MRC_A_RTT_US */

	__MRC_CMD_MAX,
};

#define MRC_CMD_MAX (__MRC_CMD_MAX - 1)

enum mrc_attr {
	MRC_A_UNSPEC,
	MRC_A_PREFIX,		/* binary, struct in6_addr */
	MRC_A_PREFIX_LEN,	/* u8, 0..128 */
	MRC_A_MIN_ACTIVE,	/* u32 */
	MRC_A_PATH,		/* nest, MRC_PA_*; repeated in a set */
	MRC_A_STAT,		/* nest, MRC_SA_*; repeated */
	MRC_A_PATH_ID,		/* u32, 0..65535: for DEL, SET, events */
	MRC_A_STATE,		/* u8, enum mrc_path_state: for SET, events */
	MRC_A_OLD_STATE,	/* u8, enum mrc_path_state: events */
	MRC_A_REASON,		/* u8, enum mrc_path_reason: events */
	MRC_A_NR_PATHS,		/* u32: paths in a set (replies) */
	MRC_A_CONN,		/* nest, MRC_CA_*: one connection (replies) */
	MRC_A_ERRNO,		/* u32: why a connection closed, 0 if cleanly */
	MRC_A_CC,		/* nest, MRC_CC_*: congestion-control settings */
	MRC_A_DADDR,		/* binary, struct in6_addr: host a probe goes to
				 * (default: the prefix, which must be a /128)
				 */
	MRC_A_TIMEOUT_MS,	/* u32, 1..10000: how long a probe waits (1000) */
	MRC_A_RTT_US,		/* u32: a probe's round trip (replies) */

	__MRC_A_MAX,
};

#define MRC_A_MAX (__MRC_A_MAX - 1)

enum mrc_path_attr {
	MRC_PA_UNSPEC,
	MRC_PA_ID,		/* u32, 0..65535: the EV */
	MRC_PA_SEGS,		/* nest of MRC_PA_SEG, 0..8 of them */
	MRC_PA_SEG,		/* binary, struct in6_addr */
	MRC_PA_IFINDEX,		/* u32: egress device */
	MRC_PA_SRC,		/* binary, struct in6_addr: source address */
	MRC_PA_STATE,		/* u8, enum mrc_path_state */
	MRC_PA_REASON,		/* u8, enum mrc_path_reason: of the last change */
	MRC_PA_CHANGED_MS,	/* u64: ms since the last change */
	MRC_PA_STATS,		/* nest, MRC_PS_*: counters (replies) */

	__MRC_PA_MAX,
};

#define MRC_PA_MAX (__MRC_PA_MAX - 1)

/* A connection, as MRC_INFO reports it (all output only). */
enum mrc_conn_attr {
	MRC_CA_UNSPEC,
	MRC_CA_LOCAL_CID,	/* u32 */
	MRC_CA_REMOTE_CID,	/* u32 */
	MRC_CA_STATE,		/* u8, enum mrc_state */
	MRC_CA_SADDR,		/* binary, struct in6_addr */
	MRC_CA_DADDR,		/* binary, struct in6_addr */
	MRC_CA_SPORT,		/* u16, host byte order */
	MRC_CA_DPORT,		/* u16, host byte order */
	MRC_CA_MSS,		/* u32 */
	MRC_CA_SRTT_US,		/* u32 */
	MRC_CA_CWND,		/* u32, packets */
	MRC_CA_BYTES_SENT,	/* u64 */
	MRC_CA_BYTES_ACKED,	/* u64 */
	MRC_CA_BYTES_RECEIVED,	/* u64 */
	MRC_CA_PKTS_RETRANS,	/* u64 */
	MRC_CA_RTOS,		/* u64 */
	MRC_CA_PATH,		/* nest, MRC_PA_ID, _STATE, _STATS; repeated */
	MRC_CA_NR_PATHS,	/* u32: paths the connection sprays over */
	MRC_CA_AUTO,		/* flag: an automatic, entropy-only path set */
	MRC_CA_BUSY_US,		/* u64: as mrc_info's mrci_busy_us */
	MRC_CA_APP_LIMITED_US,	/* u64 */
	MRC_CA_CWND_LIMITED_US,	/* u64 */
	MRC_CA_WND_LIMITED_US,	/* u64 */
	MRC_CA_RWND_LIMITED_US,	/* u64 */
	MRC_CA_SNDBUF_LIMITED_US, /* u64 */
	MRC_CA_UID,		/* u32: the owner, in the dumper's user namespace */
	MRC_CA_INODE,		/* u64: the socket's inode; 0 once closed */

	__MRC_CA_MAX,
};

#define MRC_CA_MAX (__MRC_CA_MAX - 1)

/* Counters of one path: of the whole namespace in MRC_CMD_PATH_GET, of
 * one connection in MRC_CMD_CONN_GET. Packet counts are DATA packets.
 */
enum mrc_path_stat_attr {
	MRC_PS_UNSPEC,
	MRC_PS_PKTS_SENT,	/* u64: transmissions, retransmissions included */
	MRC_PS_PKTS_ACKED,	/* u64: packets acknowledged */
	MRC_PS_PKTS_RETRANS,	/* u64: retransmissions */
	MRC_PS_ECN_MARKS,	/* u64: ACKs echoing CE for this path */
	MRC_PS_TRIMS,		/* u64: NACKs for trimmed packets */
	MRC_PS_LOSSES,		/* u64: packets declared lost */
	MRC_PS_PROBES,		/* u64: probes sent */
	MRC_PS_SRTT_US,		/* u32: smoothed RTT (latest connection's) */
	MRC_PS_MIN_RTT_US,	/* u32: connection only */
	MRC_PS_INFLIGHT,	/* u32: packets in flight, connection only */
	MRC_PS_ECN_FRAC,	/* u32: ECN fraction x 1024 (EWMA), connection */
	MRC_PS_BYTES_SENT,	/* u64: payload bytes sent */
	MRC_PS_STATE_CHANGES,	/* u64: state changes (namespace only) */
	MRC_PS_LATE_KEPT,	/* u64: timeouts that left it good (namespace) */
	MRC_PS_REO_WND_US,	/* u32: reordering window, connection only */
	MRC_PS_RTTVAR_US,	/* u32: RTT variation, connection only */

	__MRC_PS_MAX,
};

#define MRC_PS_MAX (__MRC_PS_MAX - 1)

/* Congestion-control settings of a namespace (MRC_CMD_CC_GET/_SET). */
enum mrc_cc_attr {
	MRC_CC_UNSPEC,
	MRC_CC_BASE_RTT_US,	/* u32: 0 = each path's measured minimum */
	MRC_CC_TARGET_DELAY_US,	/* u32, 1..1000000: queueing delay target */
	MRC_CC_MAX_CWND,	/* u32, 2..256: packets */
	MRC_CC_AI,		/* u32, 0..64: packets/RTT, no ECN, low delay */
	MRC_CC_FI,		/* u32, 0..64: packets/RTT, no ECN, high delay */
	MRC_CC_MD,		/* u32, 0..1023: largest decrease, x 1/1024 */
	MRC_CC_QA_DELAY_US,	/* u32: delay that resets the window; 0 off */
	MRC_CC_ECN_COOLDOWN_US,	/* u32: time a marked path is avoided */

	__MRC_CC_MAX,
};

#define MRC_CC_MAX (__MRC_CC_MAX - 1)

enum mrc_stat_attr {
	MRC_SA_UNSPEC,
	MRC_SA_NAME,		/* string: the name in /proc/net/mrc_stat */
	MRC_SA_VALUE,		/* u64 */

	__MRC_SA_MAX,
};

#define MRC_SA_MAX (__MRC_SA_MAX - 1)

#endif /* _UAPI_LINUX_MRC_H */
