/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal structures of MRC shared by the module's files.
 *
 * Locking:
 * - Everything in struct mrc_sock is protected by the socket lock:
 *   lock_sock() in process context, bh_lock_sock() in softirq and timers.
 *   Packets that arrive while a process owns the socket wait in the socket
 *   backlog; timers that fire then set a bit in @deferred, and
 *   mrc_release_cb() runs them.
 * - A listener's accept queues are protected by &mrc_sock.accept_lock, so
 *   that a child never takes its listener's socket lock. Lock order:
 *   listener socket lock, child socket lock, accept_lock.
 * - &mrc_net.conns is an rhashtable; softirq looks connections up under
 *   RCU and takes a reference. Sockets are freed after a grace period
 *   (SOCK_RCU_FREE). The table holds one reference on every socket in it.
 * - &mrc_net.bind_hash changes under &mrc_net.bind_lock; readers use RCU.
 */
#ifndef _MRC_TYPES_H
#define _MRC_TYPES_H

#include <linux/in6.h>
#include <linux/list.h>
#include <linux/mrc.h>
#include <linux/mutex.h>
#include <linux/percpu_counter.h>
#include <linux/ratelimit_types.h>
#include <linux/rhashtable-types.h>
#include <linux/seg6.h>
#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/udp.h>
#include <linux/u64_stats_sync.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "mrc_compat.h"
#include "mrc_mib.h"
#include "mrc_wire.h"

#define MRC_BIND_HASH_BITS	8

/* Default SO_RCVBUF and SO_SNDBUF, unless the sysctl defaults are larger. */
#define MRC_DEFAULT_BUF		SZ_1M
/* Receive memory beyond SO_RCVBUF that the message next in line may take
 * (it is accepted whatever its size), at most: the largest message, at
 * about twice its size in buffers' true size. The socket backlog allows
 * it too.
 */
#define MRC_HOL_ALLOWANCE	(2 * MRC_MSG_MAX)

/* rcv_scale is a fraction in units of 2^-MRC_RCV_SCALE_SHIFT: fine enough
 * that the payload of a 1-byte message over its skb's truesize (about
 * 1/1300) does not round to 0, which would close the window for good.
 */
#define MRC_RCV_SCALE_SHIFT	16
/* Before any packet arrives, assume half of an skb's truesize is payload. */
#define MRC_RCV_SCALE_INIT	(1U << (MRC_RCV_SCALE_SHIFT - 1))

/* Doublings of the RTO (and of the hold of a packet refused for want of
 * memory) in a row, at most.
 */
#define MRC_BACKOFF_MAX		20

/* A path's reordering window grows by at most this many quarters of its
 * srtt, to four srtts.
 */
#define MRC_REO_STEPS_MAX	15

/* Default of net.mrc.outage_timeout_ms: how long a connection with no
 * usable path waits for one before ETIMEDOUT.
 */
#define MRC_OUTAGE_TIMEOUT_DEFAULT	10000

/* Defaults of net.mrc.orphan_timeout_ms and net.mrc.max_orphans: how long
 * a connection may live on after close() to deliver what it sent, and how
 * many may, as tcp_fin_timeout and tcp_max_orphans do for TCP.
 */
#define MRC_ORPHAN_TIMEOUT_DEFAULT	60000
#define MRC_MAX_ORPHANS_DEFAULT		16384

/* Default of net.mrc.rcvbuf_max: the largest receive buffer autotuning
 * grows a connection's to, tcp_rmem[2]'s default.
 */
#define MRC_RCVBUF_MAX_DEFAULT		(6 * SZ_1M)
/* Default of net.mrc.sndbuf_max: the largest send buffer autotuning grows
 * a connection's to, tcp_wmem[2]'s default.
 */
#define MRC_SNDBUF_MAX_DEFAULT		(4 * SZ_1M)

/* The smallest DATA payload a connection accepts to run with: what the
 * IPv6 minimum MTU leaves with the longest SRH (1060 bytes). A message is
 * then at most MRC_MSG_MAX / MRC_MSS_MIN + 1 packets, which bounds what a
 * peer can make a receiver hold for one message; a peer that asks for less
 * (a SYN or SYNACK with a smaller MSS) is refused (DropSmallMss).
 */
#define MRC_MSS_MIN	(IPV6_MIN_MTU - sizeof(struct ipv6hdr) -		\
			 sizeof(struct ipv6_sr_hdr) -				\
			 MRC_SEGS_MAX * sizeof(struct in6_addr) -		\
			 sizeof(struct udphdr) - sizeof(struct mrc_data))

/* Counters of a path, in struct mrc_path_pcpu and struct mrc_path_counters. */
enum mrc_path_ctr {
	MRC_PC_SENT,		/* DATA transmissions */
	MRC_PC_BYTES,		/* DATA payload bytes sent */
	MRC_PC_ACKED,		/* DATA packets acknowledged */
	MRC_PC_RETRANS,		/* DATA retransmissions */
	MRC_PC_ECN,		/* ACKs echoing a congestion mark for the path */
	MRC_PC_TRIMS,		/* NACKs for trimmed packets */
	MRC_PC_LOSSES,		/* packets declared lost */
	MRC_PC_LATE_KEPT,	/* of them, timeouts that left the path good */
	MRC_PC_PROBES,		/* probes sent */
	MRC_PC_CHANGES,		/* state changes */
	MRC_PC_MAX
};

/**
 * struct mrc_path_pcpu - one CPU's share of a path's counters
 * @v: indexed by enum mrc_path_ctr
 * @syncp: consistent 64-bit reads on 32-bit machines
 */
struct mrc_path_pcpu {
	u64_stats_t v[MRC_PC_MAX];
	struct u64_stats_sync syncp;
};

/**
 * struct mrc_path - one path (EV) of a path set
 * @refcnt: the sets that list it and the connections that use it
 * @rcu: frees it after readers are done
 * @opt: prebuilt IPv6 options carrying its SRH, or NULL without segments
 * @stats: counters of every connection that used it
 * @segs: SRv6 segment list, first segment first
 * @src: source address, if @has_src
 * @lock: protects @state, @reason and @changed together
 * @changed: jiffies of the last state change
 * @ifindex: egress device, or 0
 * @srtt_us: smoothed RTT most recently measured by a connection
 * @id: the EV
 * @state: enum mrc_path_state
 * @reason: enum mrc_path_reason of the last state change
 * @nsegs: number of @segs
 * @has_src: @src is set
 * @dead: deleted from its set; connections stop using it
 * @prefix: the prefix of the set it was added to
 * @plen: its length
 * @bad_node: entry in &mrc_net.bad_paths while probed (holds a reference)
 * @probe_dst: the peer probes go to: the last one a connection lost on it
 * @probe_src: the source address probes are sent from
 * @probe_next: jiffies of the next probe
 * @probe_token: token of the probe awaiting a reply, or 0
 * @probe_ok: consecutive probes answered
 * @probe_backoff: doublings of the probe interval since the last answer
 *
 * Everything but the state, the probe fields, the counters and @srtt_us
 * is fixed once the path is published. Connections read @state without
 * the lock. The probe fields are under &mrc_net.probe_lock.
 */
struct mrc_path {
	refcount_t refcnt;
	struct rcu_head rcu;
	struct ipv6_txoptions *opt;
	struct mrc_path_pcpu __percpu *stats;
	struct in6_addr segs[MRC_SEGS_MAX];
	struct in6_addr src;
	spinlock_t lock;	/* state, reason, changed */
	unsigned long changed;
	int ifindex;
	u32 srtt_us;
	u16 id;
	u8 state;
	u8 reason;
	u8 nsegs;
	bool has_src;
	bool dead;
	struct in6_addr prefix;
	u8 plen;
	struct list_head bad_node;
	struct in6_addr probe_dst;
	struct in6_addr probe_src;
	unsigned long probe_next;
	u32 probe_token;
	u8 probe_ok;
	u8 probe_backoff;
};

/**
 * struct mrc_pathset - the paths to one destination prefix
 * @node: entry in &mrc_net.pathsets
 * @rcu: frees a replaced copy after readers are done
 * @prefix: destination prefix, host bits clear
 * @plen: prefix length
 * @min_active: floor of good paths below which losses retire no more
 * @nr_paths: entries in @paths
 * @paths: ordered by id; the set holds a reference on each
 *
 * A set is never changed in place: a writer makes a changed copy and
 * replaces the old one, so readers under RCU always see a whole set.
 * Copies share the path objects.
 */
struct mrc_pathset {
	struct list_head node;
	struct rcu_head rcu;
	struct in6_addr prefix;
	u8 plen;
	u32 min_active;
	u32 nr_paths;
	struct mrc_path *paths[];
};

/**
 * struct mrc_cc_params - congestion-control settings of a namespace
 * @base_rtt_us: RTT without queueing; 0: each path's measured minimum
 * @target_delay_us: queueing delay below which the window may grow fast
 * @max_cwnd: largest congestion window, packets
 * @ai: additive increase per RTT without ECN below the target delay
 * @fi: additive increase per RTT without ECN above the target delay
 * @md: largest multiplicative decrease, in 1/1024 of the window
 * @qa_delay_us: queueing delay that resets the window (quick adapt); 0 off
 * @ecn_cooldown_us: how long a path whose packet was CE-marked is avoided
 *
 * Changed as a whole under &mrc_net.paths_lock; the data path reads each
 * field once with READ_ONCE().
 */
struct mrc_cc_params {
	u32 base_rtt_us;
	u32 target_delay_us;
	u32 max_cwnd;
	u32 ai;
	u32 fi;
	u32 md;
	u32 qa_delay_us;
	u32 ecn_cooldown_us;
};

/**
 * struct mrc_net - MRC state of one network namespace
 * @net: the namespace
 * @bind_lock: protects @bind_hash and @nr_bound
 * @bind_hash: bound sockets, hashed by local port
 * @nr_bound: number of sockets in @bind_hash
 * @conns: connections by local connection id
 * @udp_sock: the UDP tunnel socket that sends and receives MRC packets
 * @mib: counters (enum mrc_mib_field)
 * @paths_lock: serialises changes to @pathsets
 * @pathsets: path sets, readers use RCU
 * @nr_pathsets: entries in @pathsets
 * @paths_gen: bumped on every change to @pathsets; connections compare
 * @cc: congestion-control settings
 * @probe_lock: protects @bad_paths, @probe_waiters and the probe fields
 *	of paths
 * @bad_paths: assumed-bad paths being probed
 * @probe_waiters: MRC_CMD_PROBE requests waiting for a reply
 * @probe_timer: sends the probes that are due
 * @probe_rl: the probes sent, at most probe_rate a second
 * @reply_rl: the probe replies sent, at most probe_rate a second
 * @rst_rl: the RSTs sent for packets of no connection or listener, at
 *	most rst_rate a second
 * @outage_timeout_ms: sysctl net.mrc.outage_timeout_ms
 * @data_dscp: sysctl net.mrc.data_dscp: DSCP of the DATA packets we send,
 *	the one switches may trim
 * @trim_dscp: sysctl net.mrc.trim_dscp: DSCP of a DATA packet a switch
 *	trimmed
 * @orphan_timeout_ms: sysctl net.mrc.orphan_timeout_ms
 * @max_orphans: sysctl net.mrc.max_orphans
 * @rcvbuf_max: sysctl net.mrc.rcvbuf_max
 * @sndbuf_max: sysctl net.mrc.sndbuf_max
 * @orphans: connections closed by their application and still delivering
 * @sysctl: the namespace's sysctl table
 */
struct mrc_net {
	possible_net_t net;
	spinlock_t bind_lock;	/* bind_hash, nr_bound */
	struct hlist_head bind_hash[1 << MRC_BIND_HASH_BITS];
	unsigned int nr_bound;
	struct rhashtable conns;
	struct socket *udp_sock;
	struct mrc_mib __percpu *mib;
	struct mutex paths_lock;	/* pathsets, nr_pathsets */
	struct list_head pathsets;
	u32 nr_pathsets;
	atomic_t paths_gen;
	struct mrc_cc_params cc;
	spinlock_t probe_lock;	/* bad_paths, probe_waiters, probe fields */
	struct list_head bad_paths;
	struct list_head probe_waiters;
	struct timer_list probe_timer;
	struct ratelimit_state probe_rl;
	struct ratelimit_state reply_rl;
	struct ratelimit_state rst_rl;
	unsigned int outage_timeout_ms;
	unsigned int data_dscp;
	unsigned int trim_dscp;
	unsigned int orphan_timeout_ms;
	int max_orphans;
	int rcvbuf_max;
	int sndbuf_max;
	atomic_t orphans;
	struct ctl_table_header *sysctl;
};

/**
 * struct mrc_cpath - one path as a connection uses it: what every
 *	connection needs to send on it, control packets included
 * @path: the path of a configured set, with a reference; NULL in an
 *	automatic set
 * @dst: cached route, valid while @dst_cookie checks
 * @dst_cookie: route validity cookie of @dst
 * @sport: UDP source port (network order): the path's entropy
 * @flowlabel: IPv6 flow label (network order): the path's entropy
 * @id: the EV
 * @unfit: its SRH does not fit the connection's packet size; unused
 * @pmtu: the path's MTU as a Packet Too Big or its route's device gave
 *	it, when smaller than the connection's packets need; 0 otherwise.
 *	It only falls, for the life of the connection (mrc_cp_set_pmtu())
 * @bad_count: automatic paths only: retirements in a row, for backoff
 * @credit: packets acknowledged without CE since the path was last
 *	chosen for one, at most %MRC_CREDIT_MAX
 * @ecn_until_us: the path is avoided until then after a CE mark
 * @bad_until_us: automatic paths only: retired after a loss until then
 *
 * Written under the socket lock. The state of sending DATA on the path is
 * apart, in &struct mrc_cpstate, which a connection only has once it
 * sends data.
 */
struct mrc_cpath {
	struct mrc_path *path;
	struct dst_entry *dst;
	u32 dst_cookie;
	__be16 sport;
	u16 id;
	__be32 flowlabel;
	bool unfit;
	u8 bad_count;
	u32 pmtu;
	u8 credit;
	u32 ecn_until_us;
	u32 bad_until_us;
};

/**
 * struct mrc_cpstate - the DATA a connection sent on one of its paths
 * @srtt_us: smoothed RTT (0: no sample yet)
 * @rttvar_us: RTT variation
 * @min_rtt_us: smallest RTT seen
 * @inflight: packets whose latest transmission took this path, not yet
 *	delivered or declared lost
 * @ecn_frac: EWMA of the fraction of ACKs echoing CE, in 1/1024
 * @rack_xmit_us: send time of the latest-sent packet on it delivered
 * @rack_rtt_us: RTT of that packet
 * @loss_recover: a loss on this path reduces the window again only once
 *	&mrc_sock.snd_una passes this PSN
 * @lost_xmit_us: send time of the latest-sent packet declared lost on it
 * @reo_steps: quarters of srtt its reordering window has grown by: one
 *	each time a copy of a packet declared lost on it arrived after all,
 *	at most once per srtt of the path
 * @reo_grown_us: when @reo_steps last grew
 * @reo_recoveries: window reductions for loss on it since @reo_steps last
 *	grew
 * @undo: this connection retired the path, and proof that the packet
 *	whose loss did it arrived would undo that (mrc_cp_undo())
 * @undo_psn: the PSN of that packet
 * @undo_tsval: its send time on the path
 * @undo_retired_us: when the path was retired
 * @late_run: packets sent on it since the latest one delivered that were
 *	declared lost for its timeout (the path went silent): at
 *	mrc_fail_losses the path is due for retirement (mrc_cp_late())
 * @late_first_us: send time of the first of them
 * @late_last_us: send time of the latest of them
 * @late_gen: &mrc_sock.busy_gen when the latest of them was declared lost
 * @late_until_us: once due, when the path will have been silent for three
 *	times its timeout since then, and is retired (0: not due)
 * @late_seen_us: once due, a packet sent after this one on another path
 *	must have been delivered for the retirement: the other paths
 *	delivered during the silence (its last timeout)
 * @late_psn: the packet whose loss made it due, for the undo
 * @late_xmit_us: its send time
 * @qdrop_run: transmissions on it in a row that a queue of this host
 *	dropped (NET_XMIT_DROP): a device that takes nothing for it while
 *	other devices take other paths' transmissions fails it
 *	(mrc_local_failed())
 * @qdrop_first_us: when the first of them was sent
 * @qdrop_last_us: when a queue of this host last dropped a transmission
 *	on it; 0 never
 * @left_us: when a transmission on it last left this host (a queue took
 *	it); 0 never
 * @sent: DATA transmissions
 * @bytes: DATA payload bytes sent
 * @acked: DATA packets acknowledged
 * @retrans: DATA retransmissions
 * @ecn: ACKs echoing CE for it
 * @trims: NACKs for trimmed packets sent on it
 * @losses: packets declared lost on it
 *
 * Written under the socket lock. Netlink dumps read it under RCU with
 * READ_ONCE(), one field at a time.
 */
struct mrc_cpstate {
	u32 srtt_us;
	u32 rttvar_us;
	u32 min_rtt_us;
	u32 inflight;
	u32 ecn_frac;
	u32 rack_xmit_us;
	u32 rack_rtt_us;
	u32 loss_recover;
	u32 lost_xmit_us;
	u8 reo_steps;
	u8 reo_recoveries;
	bool undo;
	u32 reo_grown_us;
	u32 undo_psn;
	u32 undo_tsval;
	u32 undo_retired_us;
	u8 late_run;
	u32 late_first_us;
	u32 late_last_us;
	u32 late_gen;
	u32 late_until_us;
	u32 late_seen_us;
	u32 late_psn;
	u32 late_xmit_us;
	u8 qdrop_run;
	u32 qdrop_first_us;
	u32 qdrop_last_us;
	u32 left_us;
	u64 sent;
	u64 bytes;
	u64 acked;
	u64 retrans;
	u64 ecn;
	u64 trims;
	u64 losses;
};

/**
 * struct mrc_cpaths - the paths a connection sprays over
 * @rcu: frees it after netlink readers are done
 * @gen: &mrc_net.paths_gen when it was built
 * @salt: random per connection: spreads connections' entropy
 * @nr: entries in @p
 * @is_auto: no set matched: @nr entropy-only paths over the routing table
 * @cached: allocated from the module's cache of arrays of its default
 *	size, not by kvzalloc()
 * @min_active: the set's floor of good paths
 * @srh_room: bytes of SRH the connection's packet size leaves room for
 * @rr: next entry for round robin
 * @ctrl_rr: next entry for control packets
 * @last: entry the latest packet took
 * @burst_left: packets still to put on @last before choosing again
 * @cell: packets of a flowcell, set by the sender before it chooses:
 *	consecutive packets put on one path (unless spray_burst says)
 * @explore: choices since the latest one that ignored credits
 * @verify: 1 + the entry whose late run has just become due for
 *	retirement (mrc_cp_late()): the next DATA packet that may take it
 *	does, whatever its credits, to see whether it still delivers; 0
 *	for none
 * @st: the state of sending on each entry of @p, in the same order;
 *	NULL until the connection first sends DATA (mrc_cp_start()), so
 *	that a connection that never does, idle or only receiving, does
 *	not hold it. Freed with the array.
 * @p: the paths, in the set's order (by id)
 */
struct mrc_cpaths {
	struct rcu_head rcu;
	u32 gen;
	u32 salt;
	u16 nr;
	bool is_auto;
	bool cached;
	u32 min_active;
	u32 srh_room;
	u16 rr;
	u16 ctrl_rr;
	u16 last;
	u16 burst_left;
	u16 cell;
	u16 explore;
	u16 verify;
	struct mrc_cpstate __rcu *st;
	struct mrc_cpath p[];
};

/**
 * struct mrc_tx_cb - control block of a DATA packet the sender keeps
 * @offset: offset of the payload in the message (whose sequence number
 *	and length its buffer's &struct mrc_chunk_cb holds)
 * @psn: packet sequence number, assigned at first transmission
 * @xmit_us: time of the latest transmission, microseconds
 * @len: payload length
 * @pidx: entry in &mrc_cpaths.p of the path of the latest transmission, or
 *	MRC_PIDX_NONE once that path left the connection's set (the
 *	packet is then lost, and any news of it concerns no path)
 * @xmits: number of transmissions
 * @lost_xmit_us: send time of the latest copy declared lost
 * @lost_pidx: the path entry of that copy, or MRC_PIDX_NONE: none was
 *	declared lost since the connection's view of its paths was built
 * @lost: declared lost and not retransmitted since
 * @via_rto: was declared lost by a retransmission timeout
 * @ack_req: its next transmission asks for an immediate ACK
 *	(MRC_F_ACK_REQ): mrc_ask_ack() said so
 * @trimmed: a NACK said a switch trimmed its latest transmission
 * @nobuf: the peer refused it for want of memory
 * @noroute: its latest transmission found no route: the path's first hop
 *	is unreachable from this host, and the packet never left it
 * @qdrop: a queue of this host dropped its latest transmission (the
 *	output returned NET_XMIT_DROP): it never left, for congestion here
 * @probed: its latest transmission is a tail probe (mrc_tail_probe()), and
 *	@lost_pidx and @lost_xmit_us name the copy it replaced, not yet
 *	known lost: an ACK that echoes the probe's copy shows it was
 *	(mrc_tail_repaired())
 */
#define MRC_PIDX_NONE	U16_MAX

struct mrc_tx_cb {
	u32 offset;
	u32 psn;
	u32 xmit_us;
	u16 len;
	u16 pidx;
	u32 lost_xmit_us;
	u16 lost_pidx;
	u8 xmits;
	u8 lost:1,
	   via_rto:1,
	   ack_req:1,
	   trimmed:1,
	   nobuf:1,
	   noroute:1,
	   qdrop:1,
	   probed:1;
};

/**
 * struct mrc_txpkt - a DATA packet the sender keeps until it is delivered:
 *	an entry of &mrc_sock.txq
 * @cb: its state
 * @chunk: the buffer that holds its payload (struct mrc_chunk_cb), of
 *	which the entry holds a reference; NULL when the entry is free
 *
 * The payload is the @cb->len bytes at offset @cb->offset -
 * &mrc_chunk_cb.offset of @chunk. A transmission references them there.
 */
struct mrc_txpkt {
	struct mrc_tx_cb cb;
	struct sk_buff *chunk;
};

#define MRC_TX_CB(pkt)	(&(pkt)->cb)

/**
 * struct mrc_chunk_cb - control block of a buffer of a message to send
 * @msn: the message's sequence number
 * @offset: offset of the buffer's first byte in the message
 * @msg_len: length of the message
 * @mss: payload bytes of its packets, but a message's last: &mrc_sock.snd_mss
 *	when sendmsg() queued it. A path MTU that fell since leaves them
 *	too big for it: they go in IPv6 fragments, and never in a GSO batch.
 * @cut: bytes of the buffer cut into packets so far (at the first
 *	transmission of each)
 *
 * sendmsg() copies a message into buffers of up to 64 KB, whole packets of
 * @mss, each an skb of page fragments only, and queues them on
 * sk_write_queue. A buffer leaves
 * the queue once it is all cut into packets; the packets' entries in the
 * ring hold it, and the last one delivered frees it, with its charge.
 */
struct mrc_chunk_cb {
	u32 msn;
	u32 offset;
	u32 msg_len;
	u32 mss;
	u32 cut;
};

#define MRC_CHUNK_CB(skb)	((struct mrc_chunk_cb *)(skb)->cb)

/**
 * struct mrc_rx_cb - control block of a received DATA payload
 * @offset: offset of the payload in its message
 * @mem: first payload of a complete message in the receive queue: the
 *	true size of all the message's buffers
 */
struct mrc_rx_cb {
	u32 offset;
	u32 mem;
};

#define MRC_RX_CB(skb)	((struct mrc_rx_cb *)(skb)->cb)

/**
 * struct mrc_rmsg - a message being reassembled
 * @node: entry in &mrc_sock.rmsgs, ordered by @msn
 * @frags: its payloads so far, ordered by offset, not overlapping
 * @msn: message sequence number
 * @len: total length
 * @got: payload bytes present
 * @mem: truesize of @frags and @head
 * @head: for a message of more than one packet, the empty skb it is
 *	delivered in, @frags chained on its frag_list; NULL for one packet
 */
struct mrc_rmsg {
	struct list_head node;
	struct sk_buff_head frags;
	struct sk_buff *head;
	u32 msn;
	u32 len;
	u32 got;
	u32 mem;
};

/* Bits of mrc_sock.deferred: timer work waiting for the socket owner. */
enum {
	MRC_DEFER_RTX,
	MRC_DEFER_ACK,
	MRC_DEFER_PMTU,
	MRC_RTX_LATE,	/* the timer fired late once: see mrc_rtx_timer_fn() */
};

/* Bits of mrc_sock.fin. */
#define MRC_FIN_SENT	1
#define MRC_FIN_ACKED	2
#define MRC_FIN_RCVD	4

/**
 * enum mrc_send_limit - what holds a sender back, timed per connection
 * @MRC_SL_IDLE: nothing queued and nothing in flight (not timed)
 * @MRC_SL_BUSY: data in flight, held by none of the limits below: the
 *	application has given nothing more, or no path is usable
 * @MRC_SL_CWND: the congestion window is full
 * @MRC_SL_WND: MRC_WND packets are outstanding, all a PSN window holds
 * @MRC_SL_RWND: the peer's receive window is full
 * @MRC_SL_SNDBUF: all that is queued is in flight, and the application
 *	waits for room (SO_SNDBUF, or net.mrc.mem)
 * @MRC_SL_NR: the number of the above
 */
enum mrc_send_limit {
	MRC_SL_IDLE,
	MRC_SL_BUSY,
	MRC_SL_CWND,
	MRC_SL_WND,
	MRC_SL_RWND,
	MRC_SL_SNDBUF,
	MRC_SL_NR,
};

/**
 * struct mrc_stats - per-connection counters reported by MRC_INFO
 * @bytes_sent: payload bytes queued by sendmsg()
 * @bytes_acked: payload bytes acknowledged
 * @bytes_received: payload bytes of messages delivered in order
 * @msgs_sent: messages queued by sendmsg()
 * @msgs_received: messages delivered in order
 * @pkts_sent: DATA transmissions
 * @pkts_retrans: DATA retransmissions
 * @pkts_received: DATA packets received
 * @pkts_dup: duplicate DATA packets dropped
 * @sack_recovered: holes repaired by retransmission without an RTO
 * @rtos: retransmission timeouts
 * @ecn_marks: ACKs that echoed a congestion mark
 * @pkts_trimmed: DATA packets received trimmed
 * @trim_retrans: DATA packets to send again after a NACK(TRIMMED)
 * @limit_jiffies: time spent in each enum mrc_send_limit but the current
 * @limit_since: jiffies when @limit began
 * @limit: the enum mrc_send_limit in force (mrc_send_limit_set())
 * @snd_waiting: the application waits in sendmsg() for room
 */
struct mrc_stats {
	u64 bytes_sent;
	u64 bytes_acked;
	u64 bytes_received;
	u64 msgs_sent;
	u64 msgs_received;
	u64 pkts_sent;
	u64 pkts_retrans;
	u64 pkts_received;
	u64 pkts_dup;
	u64 sack_recovered;
	u64 rtos;
	u64 ecn_marks;
	u64 pkts_trimmed;
	u64 trim_retrans;
	u64 limit_jiffies[MRC_SL_NR];
	unsigned long limit_since;
	u8 limit;
	bool snd_waiting;
};

/**
 * struct mrc_sock - an AF_MRC socket and its connection
 * @sk: the generic socket; must stay first
 * @bind_node: entry in &mrc_net.bind_hash while bound
 * @laddr: local address: bind()'s, or the source chosen at connect time
 * @lport: local MRC port in network byte order; 0 until bound
 * @saddr: source address of the connection's packets
 * @daddr: peer address
 * @dport: peer MRC port
 * @state: enum mrc_state
 * @fin: MRC_FIN_* bits
 * @hnode: entry in &mrc_net.conns while hashed
 * @hashed: @hnode is in &mrc_net.conns
 * @lcid: local connection id: the peer sends to it
 * @rcid: remote connection id: we send to it
 * @paths: the paths the connection uses (RCU for netlink readers)
 * @mss: the most DATA payload a packet carries, either way: the smaller
 *	of what the two sides' routes allow, agreed in the handshake
 * @parent: listener of a child not yet accepted (holds a reference)
 * @accept_node: entry in the listener's @pending or @accept_q
 * @accept_lock: protects @pending, @accept_q and @accept_closed
 * @pending: children in MRC_SYN_RECV
 * @accept_q: established children waiting for accept()
 * @nr_pending: length of @pending
 * @accept_closed: the listener is closing; children must not queue
 * @snd_isn: our first PSN
 * @snd_mss: DATA payload bytes per packet of the messages sendmsg() queues
 *	from now on: @mss, lowered to fit the narrowest path known
 * @snd_truesize: what a packet of @snd_mss bytes takes of SO_SNDBUF, in
 *	the latest buffer of at least a packet queued (struct mrc_chunk_cb)
 * @ptb_mtu: a Packet Too Big that came while a process held the socket:
 *	the MTU it reports (MRC_DEFER_PMTU)
 * @ptb_psn: the PSN of the packet it quotes
 * @ptb_ev: the path that packet took
 * @snd_una: oldest PSN not yet acknowledged
 * @snd_nxt: next PSN to send
 * @snd_msn: next message sequence number to assign
 * @txq: sent packets not yet delivered, indexed by PSN % MRC_WND: an
 *	array of MRC_WND entries, which sendmsg() allocates and which is
 *	freed when nothing is in flight or queued (NULL then), so that an
 *	idle connection does not keep it
 * @outstanding: packets in @txq
 * @lost: packets in @txq marked lost
 * @inflight_bytes: payload bytes in @txq
 * @ack_req_gap: packets sent since the last one that asked for an
 *	immediate ACK (mrc_ask_ack())
 * @ack_req_psn: the PSN of that packet
 * @peer_rwnd: receive window the peer last advertised
 * @rwnd_seq: freshness of @peer_rwnd: the number of PSNs acknowledged
 *	(cumulatively plus selectively, serial arithmetic) by the ACK that
 *	carried it; an ACK that acknowledges fewer is older, and its window
 *	stale
 * @cwnd: congestion window, packets
 * @ssthresh: slow-start threshold, packets
 * @cwnd_cnt: acked packets towards the next congestion-avoidance increase
 * @recover: while @in_recovery, PSN whose acknowledgment ends recovery
 * @in_recovery: the window was reduced for a loss and not yet repaired
 * @round_end: PSN whose acknowledgment ends the current round trip
 * @round_delivered: packets delivered in the current round trip
 * @prev_round_delivered: packets delivered in the previous round trip
 * @qa_end: no quick adapt until @snd_una passes this PSN
 * @outage_start: jiffies since when no path is usable, or 0
 * @outage_timeout_ms: MRC_OUTAGE_TIMEOUT: how long an outage may last
 * @orphan_deadline: jiffies by which a connection closed by its
 *	application must have finished, or it is reset; with @orphan set
 * @orphan: counted in &mrc_net.orphans
 * @undo_cwnd: the window before the latest reduction for loss
 * @undo_retrans: retransmissions since then not yet reported as spurious
 * @srtt_us: smoothed RTT (0: no sample yet)
 * @rttvar_us: RTT variation
 * @rto_us: retransmission timeout without backoff
 * @path_rto_us: the largest timeout of a path (srtt + 4 rttvar + the
 *	peer's ACK hold); the RTO is at least this, so that a slow path does
 *	not time out the whole connection
 * @path_rto_idx: the path that has @path_rto_us
 * @rack_xmit_us: send time of the latest-sent packet delivered, on any path
 * @rack_excess_us: how much longer than its path's srtt + 4 rttvar that
 *	packet took to be acknowledged: when this host or the peer did not
 *	run for a while, every packet was late by that much, and the paths'
 *	timeouts wait as much longer (mrc_path_timeout_us()); or, when more,
 *	the previous reference's excess less how much later this packet was
 *	sent (a stall's late ACKs inflate the srtt it is measured against)
 * @busy_gen: busy periods so far: it counts the packets sent with nothing
 *	outstanding (the connection was idle); a path's late run from an
 *	earlier one may be old news (mrc_cp_late())
 * @late_due_us: the earliest &mrc_cpstate.late_until_us of the paths, or
 *	0: none is due for retirement
 * @delivery_us: when an ACK last acknowledged something new; 0 never
 * @tlp_out: a tail probe went out and no ACK has acknowledged anything
 *	new since (mrc_tail_probe())
 * @tlp_xmit_us: when the latest tail probe went out: a duplicate that
 *	echoes it says only that the probe was not needed
 * @tlp_first_us: when the copy that probe repeated was sent: a duplicate
 *	that echoes it (the probe came first, the copy late) says the same
 * @last_trim_us: when a NACK(TRIMMED) last came; 0 never
 * @trim_cut_us: when a trim last cut the window; 0 never
 * @backoff: RTO doublings since the last progress
 * @retries: timeouts since the peer was last heard
 * @rto_deadline: jiffies at which the RTO expires (the timer may fire
 *	earlier, for the reordering window)
 * @rtx_timer: RTO, reordering, handshake, FIN and zero-window timer
 * @ack_timer: delayed ACK
 * @deferred: MRC_DEFER_* bits
 * @clock_us: the clock of the event being handled, as first read by
 *	mrc_clock_us(); 0 when it has not been read, and outside events
 * @clock_depth: events open on the socket (mrc_clock_begin())
 * @rcv_nxt: oldest PSN not yet received (cumulative ACK point)
 * @rcv_map: bit k: PSN @rcv_nxt + k has been received
 * @rcv_msn: MSN of the next message to deliver
 * @rmsgs: messages being reassembled, by MSN
 * @peer_final_msn: with MRC_FIN_RCVD: number of messages the peer sent
 * @rcv_unacked: DATA packets received since the last ACK
 * @rcv_wnd_adv: receive window in the last ACK
 * @rcv_bytes: payload bytes of the distinct DATA packets accepted
 * @rcv_edge: the furthest right edge advertised: the most of @rcv_bytes
 *	plus the window, over every ACK, SYN and SYNACK sent; a sender that
 *	honours its newest window never takes @rcv_bytes beyond it (by more
 *	than a zero-window probe)
 * @rcv_scale: payload bytes per byte of skb truesize received, in units of
 *	2^-MRC_RCV_SCALE_SHIFT, averaged, at least 1; it turns free buffer
 *	space into a window of payload
 * @rcv_read: payload bytes the application has read
 * @rcvq_read: @rcv_read when the current autotuning period began
 * @rcvq_time_us: when it began; 0 before the first read
 * @rcvq_space: the most payload read in one period so far
 * @rcv_rtt_us: the receiver's RTT: the shortest time a right edge it
 *	advertised took to be reached; 0 before the first
 * @rcv_rtt_edge: the edge being timed
 * @rcv_rtt_time_us: when it was advertised; 0 when none is timed
 * @ack_tsval: tsval of the latest packet to echo
 * @ack_rx_us: arrival time of that packet
 * @ack_ev: path of that packet
 * @ack_ce: a packet since the last ACK was CE-marked
 * @stats: counters for MRC_INFO
 *
 * The members from @snd_isn to the end are what one connection changes:
 * mrc_conn_init() resets them together.
 */
struct mrc_sock {
	struct sock sk;
	struct hlist_node bind_node;
	struct in6_addr laddr;
	__be16 lport;

	struct in6_addr saddr;
	struct in6_addr daddr;
	__be16 dport;
	u8 state;
	u8 fin;
	struct rhash_head hnode;
	bool hashed;
	u32 lcid;
	u32 rcid;
	struct mrc_cpaths __rcu *paths;
	u32 mss;

	struct sock *parent;
	struct list_head accept_node;
	spinlock_t accept_lock;	/* pending, accept_q, accept_closed */
	struct list_head pending;
	struct list_head accept_q;
	u32 nr_pending;
	bool accept_closed;

	u32 outage_timeout_ms;
	struct timer_list rtx_timer;
	struct timer_list ack_timer;
	unsigned long deferred;
	u32 clock_us;
	u8 clock_depth;

	/* From here to the end, what one connection changes: reset as one
	 * by mrc_conn_init(), at socket creation and at every connect().
	 */
	u32 snd_isn;
	u32 snd_mss;
	u32 snd_truesize;
	u32 ptb_mtu;
	u32 ptb_psn;
	u16 ptb_ev;
	u32 snd_una;
	u32 snd_nxt;
	u32 snd_msn;
	struct mrc_txpkt *txq;
	u32 outstanding;
	u32 lost;
	u32 inflight_bytes;
	u32 ack_req_gap;
	u32 ack_req_psn;
	u32 peer_rwnd;
	u32 rwnd_seq;
	u32 cwnd;
	u32 ssthresh;
	u32 cwnd_cnt;
	u32 recover;
	bool in_recovery;
	u32 round_end;
	u32 round_delivered;
	u32 prev_round_delivered;
	u32 qa_end;
	unsigned long outage_start;
	unsigned long orphan_deadline;
	bool orphan;
	u32 undo_cwnd;
	u32 undo_retrans;
	u32 srtt_us;
	u32 rttvar_us;
	u32 rto_us;
	u32 path_rto_us;
	u16 path_rto_idx;
	u32 rack_xmit_us;
	u32 rack_excess_us;
	u32 busy_gen;
	u32 late_due_us;
	u32 delivery_us;
	bool tlp_out;
	u32 tlp_xmit_us;
	u32 tlp_first_us;
	u32 last_trim_us;
	u32 trim_cut_us;
	u8 backoff;
	u8 retries;
	unsigned long rto_deadline;

	u32 rcv_nxt;
	DECLARE_BITMAP(rcv_map, MRC_WND);
	u32 rcv_msn;
	struct list_head rmsgs;
	u32 peer_final_msn;
	u32 rcv_unacked;
	u32 rcv_wnd_adv;
	u64 rcv_bytes;
	u64 rcv_edge;
	u32 rcv_scale;
	u64 rcv_read;
	u64 rcvq_read;
	u32 rcvq_time_us;
	u32 rcvq_space;
	u32 rcv_rtt_us;
	u32 rcv_rtt_time_us;
	u64 rcv_rtt_edge;
	u32 ack_tsval;
	u32 ack_rx_us;
	u16 ack_ev;
	bool ack_ce;

	struct mrc_stats stats;
};

static inline struct mrc_sock *mrc_sk(const struct sock *sk)
{
	return container_of(sk, struct mrc_sock, sk);
}

/* Serial-number comparison (RFC 1982) of 32-bit values: MSNs and the
 * microsecond clock.
 */
static inline bool mrc_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

static inline bool mrc_after(u32 a, u32 b)
{
	return mrc_before(b, a);
}

static inline u32 mrc_now_us(void)
{
	return (u32)div_u64(ktime_get_ns(), NSEC_PER_USEC);
}

/* An event is what one packet received, or one push, sets off, with the
 * socket locked and without sleeping. It happens at one instant: the
 * clock is read at most once in it, when something first needs it, as
 * TCP keeps tcp_mstamp for a packet or a write. Events may nest (a
 * packet that pushes); the inner one shares the outer's clock.
 */
static inline void mrc_clock_begin(struct mrc_sock *msk)
{
	if (!msk->clock_depth++)
		msk->clock_us = 0;
}

static inline void mrc_clock_end(struct mrc_sock *msk)
{
	if (!--msk->clock_depth)
		msk->clock_us = 0;
}

/* The clock in microseconds, never 0: the event's, or a fresh read
 * outside events.
 */
static inline u32 mrc_clock_us(struct mrc_sock *msk)
{
	u32 now = msk->clock_us;

	if (now)
		return now;
	now = mrc_now_us() ?: 1;
	if (msk->clock_depth)
		msk->clock_us = now;
	return now;
}

#endif /* _MRC_TYPES_H */
