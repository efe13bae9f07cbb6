/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The MRC socket, struct mrc_sock, which carries one connection, and the
 * clock of its events.
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
#ifndef _MRC_SOCKET_H
#define _MRC_SOCKET_H

#include <linux/in6.h>
#include <linux/list.h>
#include <linux/mrc.h>
#include <linux/rhashtable-types.h>
#include <linux/seg6.h>
#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/udp.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "mrc_compat.h"
#include "mrc_wire.h"

struct mrc_cpaths;
struct mrc_txpkt;

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

struct sock *mrc_listener_lookup(struct net *net, __be16 port,
				 const struct in6_addr *addr);
struct sock *mrc_child_create(struct sock *lsk, const struct in6_addr *laddr,
			      const struct in6_addr *raddr, int ifindex,
			      const struct mrc_syn *syn);
int mrc_socket_init(void);
void mrc_socket_exit(void);

#endif /* _MRC_SOCKET_H */
