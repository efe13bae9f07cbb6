// SPDX-License-Identifier: GPL-2.0
/*
 * AF_MRC socket glue: the proto_ops table, from socket() to close().
 */
#include <linux/hash.h>
#include <linux/mrc.h>
#include <linux/net.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/sock.h>

#include "mrc_compat.h"
#include "conn.h"
#include "input.h"
#include "mem.h"
#include "conn_paths.h"
#include "output.h"
#include "params.h"
#include "pernet.h"
#include "socket.h"

static struct hlist_head *mrc_bind_bucket(struct mrc_net *mn, __be16 port)
{
	return &mn->bind_hash[hash_32((__force u32)port, MRC_BIND_HASH_BITS)];
}

/* Two bindings of one port clash unless both name different specific
 * addresses, or the same link-local address on different interfaces.
 */
static bool mrc_bind_clash(const struct mrc_sock *other,
			   const struct in6_addr *addr, int ifindex)
{
	int oif = other->sk.sk_bound_dev_if;

	if (ipv6_addr_any(addr) || ipv6_addr_any(&other->laddr))
		return true;
	if (!ipv6_addr_equal(addr, &other->laddr))
		return false;
	return !ifindex || !oif || ifindex == oif;
}

static bool mrc_port_in_use(struct mrc_net *mn, __be16 port,
			    const struct in6_addr *addr, int ifindex)
{
	struct mrc_sock *other;

	lockdep_assert_held(&mn->bind_lock);
	hlist_for_each_entry(other, mrc_bind_bucket(mn, port), bind_node)
		if (other->lport == port &&
		    mrc_bind_clash(other, addr, ifindex))
			return true;
	return false;
}

/* Start at a random point of the local port range, as inet does. */
static __be16 mrc_pick_port(struct net *net, struct mrc_net *mn,
			    const struct in6_addr *addr, int ifindex)
{
	int low, high;
	u32 range, start, i;

	inet_get_local_port_range(net, &low, &high);
	range = high - low + 1;
	start = get_random_u32_below(range);
	for (i = 0; i < range; i++) {
		__be16 port = htons(low + (start + i) % range);

		if (!mrc_port_in_use(mn, port, addr, ifindex))
			return port;
	}
	return 0;
}

/* Bind a locked, unbound socket; port 0 picks a free one. */
static int mrc_do_bind(struct sock *sk, const struct in6_addr *addr,
		       __be16 port, int ifindex)
{
	struct mrc_net *mn = mrc_net(sock_net(sk));
	struct mrc_sock *msk = mrc_sk(sk);
	int err = 0;

	spin_lock_bh(&mn->bind_lock);
	if (!port)
		port = mrc_pick_port(sock_net(sk), mn, addr, ifindex);
	else if (mrc_port_in_use(mn, port, addr, ifindex))
		port = 0;
	if (port) {
		msk->laddr = *addr;
		msk->lport = port;
		sk->sk_bound_dev_if = ifindex;
		hlist_add_head_rcu(&msk->bind_node, mrc_bind_bucket(mn, port));
		mn->nr_bound++;
	} else {
		err = -EADDRINUSE;
	}
	spin_unlock_bh(&mn->bind_lock);
	return err;
}

static int mrc_autobind(struct sock *sk)
{
	if (mrc_sk(sk)->lport)
		return 0;
	return mrc_do_bind(sk, &in6addr_any, 0, sk->sk_bound_dev_if);
}

static void mrc_unbind(struct sock *sk)
{
	struct mrc_net *mn = mrc_net(sock_net(sk));
	struct mrc_sock *msk = mrc_sk(sk);

	if (hlist_unhashed(&msk->bind_node))
		return;
	spin_lock_bh(&mn->bind_lock);
	hlist_del_init_rcu(&msk->bind_node);
	mn->nr_bound--;
	spin_unlock_bh(&mn->bind_lock);
}

/**
 * mrc_listener_lookup() - find the listener a SYN is for
 * @net: namespace
 * @port: destination MRC port of the SYN
 * @addr: destination address of the SYN
 *
 * Return: the listening socket with a reference held, or NULL.
 */
struct sock *mrc_listener_lookup(struct net *net, __be16 port,
				 const struct in6_addr *addr)
{
	struct mrc_net *mn = mrc_net(net);
	struct mrc_sock *msk;
	struct sock *sk = NULL;

	rcu_read_lock();
	hlist_for_each_entry_rcu(msk, mrc_bind_bucket(mn, port), bind_node) {
		if (msk->lport != port || READ_ONCE(msk->state) != MRC_LISTEN)
			continue;
		if (!ipv6_addr_any(&msk->laddr) && !ipv6_addr_equal(&msk->laddr, addr))
			continue;
		if (refcount_inc_not_zero(&msk->sk.sk_refcnt))
			sk = &msk->sk;
		break;
	}
	rcu_read_unlock();
	return sk;
}

/* Find the interface of a local address, and check it is ours. */
static int mrc_check_local(struct net *net, const struct sockaddr_mrc *sa,
			   int *ifindex)
{
	int type = ipv6_addr_type(&sa->smrc_addr);
	struct net_device *dev = NULL;
	int err = 0;

	*ifindex = 0;
	if (type == IPV6_ADDR_ANY)
		return 0;
	if (type & (IPV6_ADDR_MAPPED | IPV6_ADDR_MULTICAST))
		return -EADDRNOTAVAIL;

	rcu_read_lock();
	if (type & IPV6_ADDR_LINKLOCAL) {
		if (!sa->smrc_scope_id) {
			err = -EINVAL;
			goto out;
		}
		dev = dev_get_by_index_rcu(net, sa->smrc_scope_id);
		if (!dev) {
			err = -ENODEV;
			goto out;
		}
		*ifindex = dev->ifindex;
	}
	if (!ipv6_chk_addr(net, &sa->smrc_addr, dev, 0))
		err = -EADDRNOTAVAIL;
out:
	rcu_read_unlock();
	return err;
}

static int mrc_bind(struct socket *sock, struct sockaddr *uaddr, int addr_len)
{
	struct sockaddr_mrc *sa = (struct sockaddr_mrc *)uaddr;
	struct sock *sk = sock->sk;
	struct net *net = sock_net(sk);
	int ifindex;
	int err;

	if (addr_len < (int)sizeof(*sa))
		return -EINVAL;
	if (sa->smrc_family != mrc_family)
		return -EAFNOSUPPORT;

	err = mrc_check_local(net, sa, &ifindex);
	if (err)
		return err;
	if (sa->smrc_port && inet_port_requires_bind_service(net, ntohs(sa->smrc_port)) &&
	    !ns_capable(net->user_ns, CAP_NET_BIND_SERVICE))
		return -EACCES;

	lock_sock(sk);
	if (mrc_sk(sk)->lport || mrc_sk(sk)->state != MRC_CLOSED)
		err = -EINVAL;
	else
		err = mrc_do_bind(sk, &sa->smrc_addr, sa->smrc_port, ifindex);
	release_sock(sk);
	return err;
}

static int mrc_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct sockaddr_mrc *sa = (struct sockaddr_mrc *)uaddr;
	struct sock *sk = sock->sk;
	struct mrc_sock *msk = mrc_sk(sk);
	int err = sizeof(*sa);

	memset(sa, 0, sizeof(*sa));
	sa->smrc_family = mrc_family;
	lock_sock(sk);
	if (peer) {
		if (msk->state != MRC_ESTABLISHED) {
			err = -ENOTCONN;
			goto out;
		}
		sa->smrc_port = msk->dport;
		sa->smrc_addr = msk->daddr;
	} else {
		sa->smrc_port = msk->lport;
		sa->smrc_addr = msk->rcid ? msk->saddr : msk->laddr;
	}
	if (ipv6_addr_type(&sa->smrc_addr) & IPV6_ADDR_LINKLOCAL)
		sa->smrc_scope_id = sk->sk_bound_dev_if;
out:
	release_sock(sk);
	return err;
}

static int mrc_listen(struct socket *sock, int backlog)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *msk = mrc_sk(sk);
	int err;

	lock_sock(sk);
	err = -EINVAL;
	if (sock->state == SS_CONNECTED ||
	    (msk->state != MRC_CLOSED && msk->state != MRC_LISTEN))
		goto out;
	err = mrc_autobind(sk);
	if (err)
		goto out;
	WRITE_ONCE(sk->sk_max_ack_backlog, backlog);
	msk->accept_closed = false;
	mrc_set_state(sk, MRC_LISTEN);
out:
	release_sock(sk);
	return err;
}

/* Abort every child of a listener that stops; their references go. */
static void mrc_listen_stop(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk), *cmsk, *tmp;
	LIST_HEAD(children);

	spin_lock_bh(&msk->accept_lock);
	msk->accept_closed = true;
	list_splice_init(&msk->pending, &children);
	list_splice_init(&msk->accept_q, &children);
	msk->nr_pending = 0;
	WRITE_ONCE(sk->sk_ack_backlog, 0);
	spin_unlock_bh(&msk->accept_lock);
	mrc_set_state(sk, MRC_CLOSED);

	list_for_each_entry_safe(cmsk, tmp, &children, accept_node) {
		struct sock *child = &cmsk->sk;

		list_del_init(&cmsk->accept_node);
		lock_sock_nested(child, SINGLE_DEPTH_NESTING);
		cmsk->parent = NULL;
		mrc_conn_abort(child, 0, true);
		sock_set_flag(child, SOCK_DEAD);
		release_sock(child);
		sock_put(sk);
		sock_put(child);
	}
}

static struct sock *mrc_accept_dequeue(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk), *cmsk;

	spin_lock_bh(&msk->accept_lock);
	cmsk = list_first_entry_or_null(&msk->accept_q, struct mrc_sock,
					accept_node);
	if (cmsk) {
		list_del_init(&cmsk->accept_node);
		sk_acceptq_removed(sk);
	}
	spin_unlock_bh(&msk->accept_lock);
	return cmsk ? &cmsk->sk : NULL;
}

static int mrc_do_accept(struct socket *sock, struct socket *newsock, int flags)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *sk = sock->sk, *child;
	struct mrc_sock *msk = mrc_sk(sk);
	long timeo;
	int err = 0;

	lock_sock(sk);
	timeo = sock_rcvtimeo(sk, flags & O_NONBLOCK);
	add_wait_queue(sk_sleep(sk), &wait);
	while (!(child = mrc_accept_dequeue(sk))) {
		if (msk->state != MRC_LISTEN) {
			err = -EINVAL;
			break;
		}
		if (!timeo) {
			err = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			err = sock_intr_errno(timeo);
			break;
		}
		sk_wait_event(sk, &timeo, !list_empty(&msk->accept_q) ||
			      msk->state != MRC_LISTEN, &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	release_sock(sk);
	if (!child)
		return err;

	lock_sock(child);
	mrc_sk(child)->parent = NULL;
	sock_graft(child, newsock);
	newsock->state = SS_CONNECTED;
	release_sock(child);
	sock_put(sk);
	return 0;
}

static int mrc_accept(struct socket *sock, struct socket *newsock,
		      MRC_ACCEPT_ARGS)
{
	return mrc_do_accept(sock, newsock, MRC_ACCEPT_FLAGS);
}

/* A peer's address, as connect() and MRC_PEER take it.
 *
 * Return: its ipv6_addr_type(), or a negative errno.
 */
static int mrc_peer_addr_type(const struct sockaddr_mrc *sa)
{
	int type;

	if (sa->smrc_family != mrc_family)
		return -EAFNOSUPPORT;
	type = ipv6_addr_type(&sa->smrc_addr);
	if (type == IPV6_ADDR_ANY || (type & (IPV6_ADDR_MULTICAST | IPV6_ADDR_MAPPED)) ||
	    !sa->smrc_port)
		return -EINVAL;
	if ((type & IPV6_ADDR_LINKLOCAL) && !sa->smrc_scope_id)
		return -EINVAL;
	return type;
}

/* What connect() and MRC_PEER share: the closed socket @sk becomes a
 * connection to @sa (of address type @type), bound, routed, with the local
 * id @id (0 for a random one) and first PSN @isn, and reachable by that id;
 * in no state yet.
 */
static int mrc_conn_setup(struct sock *sk, const struct sockaddr_mrc *sa,
			  int type, u32 id, u32 isn)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct in6_addr saddr;
	int err;

	err = mrc_autobind(sk);
	if (err)
		return err;
	if ((type & IPV6_ADDR_LINKLOCAL) && !sk->sk_bound_dev_if)
		sk->sk_bound_dev_if = sa->smrc_scope_id;
	msk->daddr = sa->smrc_addr;
	msk->dport = sa->smrc_port;
	saddr = msk->laddr;
	err = mrc_cp_init(sk, GFP_KERNEL);
	if (err)
		return err;
	msk->mss = mrc_route_mss(sk, &saddr);
	if (!msk->mss)
		return -ENETUNREACH;
	msk->saddr = saddr;

	mrc_tx_purge(sk);
	mrc_rx_purge(sk);
	mrc_conn_init(sk);
	msk->fin = 0;
	msk->rcid = 0;
	msk->snd_isn = isn;
	msk->snd_una = isn;
	msk->snd_nxt = isn;
	err = mrc_conn_hash(sk, id);
	if (err)
		return err;
	WRITE_ONCE(sk->sk_err, 0);
	sk->sk_shutdown = 0;
	return 0;
}

static int mrc_connect(struct socket *sock, struct sockaddr *uaddr,
		       int addr_len, int flags)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sockaddr_mrc *sa = (struct sockaddr_mrc *)uaddr;
	struct sock *sk = sock->sk;
	struct mrc_sock *msk = mrc_sk(sk);
	long timeo;
	int type, err;

	if (addr_len < (int)sizeof(*sa))
		return -EINVAL;
	type = mrc_peer_addr_type(sa);
	if (type < 0)
		return type;

	lock_sock(sk);
	switch (msk->state) {
	case MRC_ESTABLISHED:
		sock->state = SS_CONNECTED;
		err = -EISCONN;
		goto out;
	case MRC_SYN_SENT:
		err = -EALREADY;
		if (flags & O_NONBLOCK)
			goto out;
		goto wait;
	case MRC_CLOSED:
		if (sock->state == SS_CONNECTED) {
			err = -EISCONN;
			goto out;
		}
		/* A non-blocking attempt failed: report it once, then retry. */
		if (sock->state == SS_CONNECTING) {
			sock->state = SS_UNCONNECTED;
			err = sock_error(sk);
			if (err)
				goto out;
		}
		break;
	default:
		err = -EINVAL;
		goto out;
	}

	err = mrc_conn_setup(sk, sa, type, 0,
			     get_random_u32() & MRC_PSN_MASK);
	if (err)
		goto out;
	mrc_set_state(sk, MRC_SYN_SENT);
	sock->state = SS_CONNECTING;
	mrc_send_syn(sk, MRC_PKT_SYN, 0);
	mrc_arm_rto(sk);

wait:
	timeo = sock_sndtimeo(sk, flags & O_NONBLOCK);
	err = -EINPROGRESS;
	add_wait_queue(sk_sleep(sk), &wait);
	while (msk->state == MRC_SYN_SENT && timeo) {
		if (signal_pending(current)) {
			err = sock_intr_errno(timeo);
			break;
		}
		sk_wait_event(sk, &timeo, msk->state != MRC_SYN_SENT, &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	if (msk->state == MRC_ESTABLISHED) {
		sock->state = SS_CONNECTED;
		err = 0;
	} else if (msk->state == MRC_CLOSED) {
		sock->state = SS_UNCONNECTED;
		err = sock_error(sk) ?: -ECONNREFUSED;
	}
out:
	release_sock(sk);
	return err;
}

/* Wait, with the socket lock dropped, until cond(sk) or an error. */
static int mrc_wait(struct sock *sk, long *timeo, bool (*cond)(struct sock *))
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	int err = 0;

	add_wait_queue(sk_sleep(sk), &wait);
	if (!*timeo)
		err = -EAGAIN;
	else if (signal_pending(current))
		err = sock_intr_errno(*timeo);
	else
		sk_wait_event(sk, timeo, cond(sk), &wait);
	remove_wait_queue(sk_sleep(sk), &wait);
	return err;
}

/* Room to queue a message: under SO_SNDBUF, and a page the protocol's
 * memory (net.mrc.mem) can charge, unless nothing is queued yet, so that
 * every socket can make progress and one that waits is woken as its own
 * queue drains. Charges: the socket must be locked.
 */
static bool mrc_send_room(struct sock *sk)
{
	int queued = sk_wmem_alloc_get(sk);

	return queued < READ_ONCE(sk->sk_sndbuf) &&
	       (!queued || mrc_mem_can_send(sk, PAGE_SIZE));
}

/* The same for poll(), without the lock: a guess, which sendmsg() checks. */
static bool mrc_send_room_lockless(const struct sock *sk)
{
	int queued = sk_wmem_alloc_get(sk);

	return queued < READ_ONCE(sk->sk_sndbuf) &&
	       (!queued || READ_ONCE(sk->sk_forward_alloc) >= (int)PAGE_SIZE ||
		mrc_mem_room(sk) > 0);
}

static bool mrc_sendable(struct sock *sk)
{
	u8 state = mrc_sk(sk)->state;

	return READ_ONCE(sk->sk_err) || (sk->sk_shutdown & SEND_SHUTDOWN) ||
	       (state != MRC_SYN_SENT &&
		(state != MRC_ESTABLISHED || mrc_send_room(sk)));
}

/* Copy @plen bytes of @msg to page fragments of @skb. */
static int mrc_skb_fill_pages(struct sock *sk, struct sk_buff *skb,
			      struct msghdr *msg, u32 plen)
{
	struct page_frag *pfrag = sk_page_frag(sk);

	while (skb->len < plen) {
		int i = skb_shinfo(skb)->nr_frags;
		u32 copy;

		if (i == MAX_SKB_FRAGS)
			return -EMSGSIZE;
		if (!skb_page_frag_refill(32U, pfrag, sk->sk_allocation))
			return -ENOBUFS;
		copy = min_t(u32, plen - skb->len, pfrag->size - pfrag->offset);
		if (copy_page_from_iter(pfrag->page, pfrag->offset, copy,
					&msg->msg_iter) != copy)
			return -EFAULT;
		skb_fill_page_desc(skb, i, pfrag->page, pfrag->offset, copy);
		get_page(pfrag->page);
		pfrag->offset += copy;
		skb->len += copy;
		skb->data_len += copy;
		skb->truesize += copy;
	}
	return 0;
}

/* A buffer of @len bytes of @msg (struct mrc_chunk_cb). The payload
 * is copied once, into page fragments, as TCP's is: consecutive buffers
 * share the socket's (or the task's) page, a transmission references it
 * rather than copying it (mrc_xmit_batch(), mrc_xmit_skb()), and a
 * receiver that gets the skb itself (over a veth) is charged about what
 * it holds. The skb holds nothing else: no headroom, for every
 * transmission builds its own skb for the headers. Its fragments hold
 * 64 KB even in order-0 pages (mrc_skb_fill_pages() asks for 32 bytes
 * at least in each).
 */
static struct sk_buff *mrc_chunk_from_msg(struct sock *sk, struct msghdr *msg,
					  u32 len, int *err)
{
	struct sk_buff *skb;

	skb = alloc_skb(0, sk->sk_allocation);
	if (!skb) {
		*err = -ENOBUFS;
		return NULL;
	}
	BUILD_BUG_ON(32 + (MAX_SKB_FRAGS - 1) * PAGE_SIZE < SZ_64K);
	*err = mrc_skb_fill_pages(sk, skb, msg, len);
	if (!*err)
		return skb;
	kfree_skb(skb);
	return NULL;
}

/* Bytes of a message's buffer: whole packets of @mss, up to 64 KB (@mss is
 * at most 64 KB - 1).
 */
static u32 mrc_chunk_max(u32 mss)
{
	return max_t(u32, mss, rounddown(SZ_64K, mss ?: 1));
}

static int mrc_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *msk = mrc_sk(sk);
	struct sk_buff_head q;
	struct sk_buff *skb;
	u32 off = 0, cmax;
	long timeo;
	int err;

	if (msg->msg_flags & ~(MSG_DONTWAIT | MSG_NOSIGNAL | MSG_EOR | MSG_CMSG_COMPAT))
		return -EOPNOTSUPP;
	if (len > MRC_MSG_MAX)
		return -EMSGSIZE;

	__skb_queue_head_init(&q);
	lock_sock(sk);
	timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);
	for (;;) {
		err = sock_error(sk);
		if (err)
			goto out;
		err = -EPIPE;
		if (sk->sk_shutdown & SEND_SHUTDOWN)
			goto out;
		err = -ENOTCONN;
		if (msk->state != MRC_ESTABLISHED && msk->state != MRC_SYN_SENT)
			goto out;
		if (msk->state == MRC_ESTABLISHED) {
			if (mrc_send_room(sk))
				break;
			if (sk_wmem_alloc_get(sk) < READ_ONCE(sk->sk_sndbuf))
				MRC_INC(sock_net(sk), SEND_MEM_LIMIT);
		}
		set_bit(SOCK_NOSPACE, &sock->flags);
		/* Held by the buffer only if all it holds is in flight. */
		msk->stats.snd_waiting = true;
		if (skb_queue_empty(&sk->sk_write_queue) && msk->outstanding)
			mrc_send_limit_set(msk, MRC_SL_SNDBUF);
		err = mrc_wait(sk, &timeo, mrc_sendable);
		msk->stats.snd_waiting = false;
		if (err)
			goto out;
	}

	err = mrc_txq_alloc(sk);
	if (err)
		goto out;
	/* The whole message is queued at once: at most one message over
	 * SO_SNDBUF, and never half a message. It is cut into packets as
	 * they first go (mrc_send_new()); an empty message is one empty
	 * buffer, and one empty packet.
	 */
	cmax = mrc_chunk_max(msk->snd_mss);
	do {
		struct mrc_chunk_cb *ccb;

		skb = mrc_chunk_from_msg(sk, msg, min_t(u32, len - off, cmax),
					 &err);
		if (!skb)
			goto out;
		__skb_queue_tail(&q, skb);
		mrc_mem_charge_w(skb, sk);
		if (skb->len >= msk->snd_mss)
			msk->snd_truesize =
				DIV_ROUND_UP_ULL((u64)skb->truesize *
						 msk->snd_mss, skb->len);
		ccb = MRC_CHUNK_CB(skb);
		ccb->msn = msk->snd_msn;
		ccb->offset = off;
		ccb->msg_len = len;
		ccb->mss = msk->snd_mss;
		ccb->cut = 0;
		off += skb->len;
	} while (off < len);

	skb_queue_splice_tail_init(&q, &sk->sk_write_queue);
	msk->snd_msn++;
	msk->stats.msgs_sent++;
	msk->stats.bytes_sent += len;
	mrc_push(sk);
	err = len;
out:
	__skb_queue_purge(&q);
	mrc_mem_reclaim(sk);
	if (err == -EPIPE && !(msg->msg_flags & MSG_NOSIGNAL))
		send_sig(SIGPIPE, current, 0);
	release_sock(sk);
	return err;
}

static bool mrc_readable(struct sock *sk)
{
	return !skb_queue_empty(&sk->sk_receive_queue) || READ_ONCE(sk->sk_err) ||
	       (sk->sk_shutdown & RCV_SHUTDOWN) ||
	       (mrc_sk(sk)->state != MRC_ESTABLISHED &&
		mrc_sk(sk)->state != MRC_SYN_SENT);
}

/* The application freed receive buffer: tell the sender once the window
 * it may still use would at least double (tcp_cleanup_rbuf()'s rule), so
 * that a sender held back by the window hears of it before that runs
 * out, and one the window does not hold back gets no ACK it needs not.
 * The growth must be a packet, unless the sender has used all of the
 * window: then any growth is news. Small messages make small windows
 * (1-byte ones, some tens of bytes), which never grow by a packet, and
 * their sender would wait for a zero-window probe.
 */
static void mrc_window_update(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	u64 left = 0;
	u32 wnd;

	if (msk->state != MRC_ESTABLISHED)
		return;
	if (msk->rcv_edge > msk->rcv_bytes)
		left = msk->rcv_edge - msk->rcv_bytes;
	wnd = mrc_rcv_wnd(sk);
	if (wnd >= 2 * left && (wnd >= left + msk->mss || (!left && wnd)))
		mrc_send_ack(sk, 0);
}

/* Receive-buffer autotuning, as tcp_rcv_space_adjust() does it: once a
 * receiver RTT, if the application read more than in any RTT before,
 * SO_RCVBUF grows so that the window offers twice that (from half the
 * buffer, in true size), up to net.mrc.rcvbuf_max. The sender may then
 * double its rate each RTT for as long as the reader keeps up, and a
 * slow reader never makes the buffer grow. Not when the application set
 * SO_RCVBUF, nor under memory pressure.
 */
static void mrc_rcv_space_adjust(struct sock *sk, u32 len)
{
	struct mrc_sock *msk = mrc_sk(sk);
	u32 rtt = msk->rcv_rtt_us ?: msk->srtt_us;
	u32 now = mrc_now_us() ?: 1;
	u64 read, buf;

	msk->rcv_read += len;
	if (msk->rcvq_time_us) {
		if (!rtt || now - msk->rcvq_time_us < rtt)
			return;
		read = msk->rcv_read - msk->rcvq_read;
		if (read > msk->rcvq_space) {
			msk->rcvq_space = min_t(u64, read, U32_MAX);
			buf = min_t(u64, div_u64(read << (MRC_RCV_SCALE_SHIFT + 2),
						 max_t(u32, msk->rcv_scale, 1)),
				    READ_ONCE(mrc_net(sock_net(sk))->rcvbuf_max));
			if (!(sk->sk_userlocks & SOCK_RCVBUF_LOCK) &&
			    !sk_under_memory_pressure(sk) && buf > sk->sk_rcvbuf) {
				WRITE_ONCE(sk->sk_rcvbuf, buf);
				MRC_INC(sock_net(sk), RCVBUF_GROWN);
			}
		}
	}
	msk->rcvq_read = msk->rcv_read;
	msk->rcvq_time_us = now;
}

static int mrc_recvmsg(struct socket *sock, struct msghdr *msg, size_t size,
		       int flags)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *msk = mrc_sk(sk);
	struct sk_buff *skb;
	size_t copied;
	long timeo;
	int err;

	if (flags & ~(MSG_DONTWAIT | MSG_PEEK | MSG_TRUNC | MSG_WAITALL |
		      MSG_NOSIGNAL | MSG_CMSG_COMPAT))
		return -EOPNOTSUPP;

	lock_sock(sk);
	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	while (!(skb = skb_peek(&sk->sk_receive_queue))) {
		err = sock_error(sk);
		if (err)
			goto out;
		err = 0;
		if (sk->sk_shutdown & RCV_SHUTDOWN)
			goto out;
		err = -ENOTCONN;
		if (msk->state != MRC_ESTABLISHED && msk->state != MRC_SYN_SENT)
			goto out;
		err = mrc_wait(sk, &timeo, mrc_readable);
		if (err)
			goto out;
	}

	copied = min_t(size_t, size, skb->len);
	err = skb_copy_datagram_msg(skb, 0, msg, copied);
	if (err)
		goto out;
	/* Every message ends a record: an empty one (0 bytes, MSG_EOR)
	 * reads differently from the end of the stream (0 bytes).
	 */
	msg->msg_flags |= MSG_EOR;
	if (copied < skb->len)
		msg->msg_flags |= MSG_TRUNC;
	if (msg->msg_name) {
		DECLARE_SOCKADDR(struct sockaddr_mrc *, sa, msg->msg_name);

		memset(sa, 0, sizeof(*sa));
		sa->smrc_family = mrc_family;
		sa->smrc_port = msk->dport;
		sa->smrc_addr = msk->daddr;
		if (ipv6_addr_type(&sa->smrc_addr) & IPV6_ADDR_LINKLOCAL)
			sa->smrc_scope_id = sk->sk_bound_dev_if;
		msg->msg_namelen = sizeof(*sa);
	}
	err = (flags & MSG_TRUNC) ? skb->len : copied;
	if (!(flags & MSG_PEEK)) {
		__skb_unlink(skb, &sk->sk_receive_queue);
		mrc_rcv_space_adjust(sk, skb->len);
		consume_skb(skb);
		mrc_window_update(sk);
	}
out:
	release_sock(sk);
	return err;
}

static __poll_t mrc_poll(struct file *file, struct socket *sock,
			 poll_table *wait)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *msk = mrc_sk(sk);
	u8 state, shutdown;
	__poll_t mask = 0;

	sock_poll_wait(file, sock, wait);
	state = READ_ONCE(msk->state);
	if (state == MRC_LISTEN)
		return list_empty_careful(&msk->accept_q) ? 0 : EPOLLIN | EPOLLRDNORM;

	shutdown = READ_ONCE(sk->sk_shutdown);
	if (READ_ONCE(sk->sk_err))
		mask |= EPOLLERR;
	if (shutdown == SHUTDOWN_MASK || state == MRC_CLOSED)
		mask |= EPOLLHUP;
	if (shutdown & RCV_SHUTDOWN)
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	if (!skb_queue_empty_lockless(&sk->sk_receive_queue))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (state == MRC_ESTABLISHED && !(shutdown & SEND_SHUTDOWN)) {
		if (mrc_send_room_lockless(sk))
			mask |= EPOLLOUT | EPOLLWRNORM;
		else
			set_bit(SOCK_NOSPACE, &sock->flags);
	}
	return mask;
}

static int mrc_shutdown(struct socket *sock, int how)
{
	struct sock *sk = sock->sk;
	int err = 0;

	how++;
	if (how & ~SHUTDOWN_MASK || !how)
		return -EINVAL;
	lock_sock(sk);
	if (mrc_sk(sk)->state != MRC_ESTABLISHED) {
		err = -ENOTCONN;
		goto out;
	}
	sk->sk_shutdown |= how;
	if (how & SEND_SHUTDOWN)
		mrc_push(sk);
	sk->sk_state_change(sk);
out:
	release_sock(sk);
	return err;
}

static bool mrc_fin_done(struct sock *sk)
{
	return (mrc_sk(sk)->fin & MRC_FIN_ACKED) ||
	       mrc_sk(sk)->state != MRC_ESTABLISHED;
}

static int mrc_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *msk;
	long timeo;

	if (!sk)
		return 0;
	msk = mrc_sk(sk);

	lock_sock(sk);
	switch (msk->state) {
	case MRC_LISTEN:
		mrc_listen_stop(sk);
		break;
	case MRC_SYN_SENT:
		mrc_conn_abort(sk, 0, true);
		break;
	case MRC_ESTABLISHED:
		/* Unread messages, or SO_LINGER 0: reset, as TCP does. */
		if (!skb_queue_empty(&sk->sk_receive_queue) ||
		    (sock_flag(sk, SOCK_LINGER) && !sk->sk_lingertime)) {
			mrc_conn_abort(sk, 0, true);
			break;
		}
		sk->sk_shutdown = SHUTDOWN_MASK;
		mrc_push(sk);
		if (sock_flag(sk, SOCK_LINGER)) {
			timeo = sk->sk_lingertime;
			while (!mrc_fin_done(sk) && !mrc_wait(sk, &timeo, mrc_fin_done))
				;
		}
		break;
	}
	mrc_unbind(sk);
	sock_orphan(sk);
	mrc_conn_maybe_done(sk);
	if (msk->state == MRC_ESTABLISHED)
		mrc_conn_orphan(sk);
	release_sock(sk);
	sock->sk = NULL;
	sock_put(sk);
	return 0;
}

static void mrc_fill_info(struct sock *sk, struct mrc_info *info)
{
	struct mrc_sock *msk = mrc_sk(sk);
	const struct mrc_stats *st = &msk->stats;
	unsigned long now = jiffies;

	info->mrci_state = msk->state;
	info->mrci_shutdown = sk->sk_shutdown;
	info->mrci_fin_flags = msk->fin;
	info->mrci_mss = msk->mss;
	info->mrci_srtt_us = msk->srtt_us;
	info->mrci_rttvar_us = msk->rttvar_us;
	info->mrci_rto_us = mrc_rto_us(sk);
	info->mrci_cwnd = msk->cwnd;
	info->mrci_ssthresh = msk->ssthresh;
	info->mrci_inflight = msk->outstanding - msk->lost;
	info->mrci_peer_rwnd = msk->peer_rwnd;
	info->mrci_rcv_wnd = mrc_rcv_wnd(sk);
	info->mrci_local_cid = msk->lcid;
	info->mrci_remote_cid = msk->rcid;
	info->mrci_bytes_sent = st->bytes_sent;
	info->mrci_bytes_acked = st->bytes_acked;
	info->mrci_bytes_received = st->bytes_received;
	info->mrci_msgs_sent = st->msgs_sent;
	info->mrci_msgs_received = st->msgs_received;
	info->mrci_pkts_sent = st->pkts_sent;
	info->mrci_pkts_retrans = st->pkts_retrans;
	info->mrci_pkts_received = st->pkts_received;
	info->mrci_pkts_dup = st->pkts_dup;
	info->mrci_sack_recovered = st->sack_recovered;
	info->mrci_rtos = st->rtos;
	info->mrci_ecn_marks = st->ecn_marks;
	info->mrci_pkts_trimmed = st->pkts_trimmed;
	info->mrci_trim_retrans = st->trim_retrans;
	info->mrci_busy_us = mrc_send_limit_us(msk, MRC_SL_IDLE, now);
	info->mrci_app_limited_us = mrc_send_limit_us(msk, MRC_SL_BUSY, now);
	info->mrci_cwnd_limited_us = mrc_send_limit_us(msk, MRC_SL_CWND, now);
	info->mrci_wnd_limited_us = mrc_send_limit_us(msk, MRC_SL_WND, now);
	info->mrci_rwnd_limited_us = mrc_send_limit_us(msk, MRC_SL_RWND, now);
	info->mrci_sndbuf_limited_us = mrc_send_limit_us(msk, MRC_SL_SNDBUF, now);
	info->mrci_rcvbuf = READ_ONCE(sk->sk_rcvbuf);
	info->mrci_rcv_rtt_us = msk->rcv_rtt_us;
	info->mrci_sndbuf = READ_ONCE(sk->sk_sndbuf);
}

static int mrc_getsockopt(struct socket *sock, int level, int optname,
			  char __user *optval, int __user *optlen)
{
	struct mrc_info info;
	int len;
	u32 val;

	if (level != SOL_MRC ||
	    (optname != MRC_INFO && optname != MRC_OUTAGE_TIMEOUT))
		return -ENOPROTOOPT;
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	if (optname == MRC_OUTAGE_TIMEOUT) {
		if (len < sizeof(val))
			return -EINVAL;
		val = READ_ONCE(mrc_sk(sock->sk)->outage_timeout_ms);
		len = sizeof(val);
		if (copy_to_user(optval, &val, len) || put_user(len, optlen))
			return -EFAULT;
		return 0;
	}
	memset(&info, 0, sizeof(info));
	lock_sock(sock->sk);
	mrc_fill_info(sock->sk, &info);
	release_sock(sock->sk);
	len = min_t(int, len, sizeof(info));
	if (copy_to_user(optval, &info, len) || put_user(len, optlen))
		return -EFAULT;
	return 0;
}

/* MRC_PEER: connect with no handshake, to a peer set up out of band. */
static int mrc_set_peer(struct socket *sock, sockptr_t optval,
			unsigned int optlen)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_peer p;
	int type, err;

	if (optlen < sizeof(p))
		return -EINVAL;
	/* A longer struct from a later version: only if what it adds is
	 * zero, as openat2() takes its struct, so that a field this one
	 * does not know is never ignored.
	 */
	if (optlen > sizeof(p)) {
		err = check_zeroed_sockptr(optval, sizeof(p),
					   optlen - sizeof(p));
		if (err <= 0)
			return err ?: -E2BIG;
	}
	if (copy_from_sockptr(&p, optval, sizeof(p)))
		return -EFAULT;
	type = mrc_peer_addr_type(&p.addr);
	if (type < 0)
		return type;
	if (p.local_qpn < MRC_QPN_MIN || p.local_qpn > MRC_QPN_MAX ||
	    p.peer_qpn < MRC_QPN_MIN || p.peer_qpn > MRC_QPN_MAX ||
	    p.local_psn > MRC_PSN_MAX || p.peer_psn > MRC_PSN_MAX ||
	    (p.peer_mss && p.peer_mss < MRC_MSS_MIN) || p.flags)
		return -EINVAL;

	lock_sock(sk);
	switch (msk->state) {
	case MRC_CLOSED:
		err = sock->state == SS_CONNECTED ? -EISCONN : 0;
		break;
	case MRC_SYN_SENT:
		err = -EALREADY;
		break;
	case MRC_LISTEN:
		err = -EINVAL;
		break;
	default:
		err = -EISCONN;
	}
	if (err)
		goto out;
	err = mrc_conn_setup(sk, &p.addr, type, p.local_qpn, p.local_psn);
	if (err)
		goto out;
	msk->rcid = p.peer_qpn;
	msk->rcv_nxt = p.peer_psn;
	/* It sends what the peer takes, and takes what its own route
	 * carries, which is what the peer is told it takes.
	 */
	msk->snd_mss = min(msk->mss, p.peer_mss ?: msk->mss);
	msk->peer_rwnd = p.peer_rwnd ?: mrc_rcv_wnd(sk);
	msk->rwnd_seq = msk->snd_isn;
	/* What a SYN would have offered the peer. */
	msk->rcv_wnd_adv = mrc_rcv_wnd(sk);
	msk->rcv_edge = msk->rcv_wnd_adv;
	mrc_conn_established(sk);
	sock->state = SS_CONNECTED;
out:
	release_sock(sk);
	return err;
}

static int mrc_setsockopt(struct socket *sock, int level, int optname,
			  sockptr_t optval, unsigned int optlen)
{
	u32 val;

	if (level != SOL_MRC)
		return -ENOPROTOOPT;
	if (optname == MRC_PEER)
		return mrc_set_peer(sock, optval, optlen);
	if (optname != MRC_OUTAGE_TIMEOUT)
		return -ENOPROTOOPT;
	if (optlen < sizeof(val))
		return -EINVAL;
	if (copy_from_sockptr(&val, optval, sizeof(val)))
		return -EFAULT;
	if (!val || val > 86400000)
		return -EINVAL;
	lock_sock(sock->sk);
	mrc_sk(sock->sk)->outage_timeout_ms = val;
	release_sock(sock->sk);
	return 0;
}

static void mrc_sock_destruct(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	WARN_ON_ONCE(msk->hashed);
	__skb_queue_purge(&sk->sk_receive_queue);
	mrc_tx_purge(sk);
	mrc_rx_purge(sk);
	mrc_cp_destroy(sk);
	mrc_mem_sock_destruct(sk);
	sock_prot_inuse_add(sock_net(sk), sk->sk_prot, -1);
}

static struct proto mrc_proto = {
	.name = "MRC",
	.owner = THIS_MODULE,
	.obj_size = sizeof(struct mrc_sock),
	.backlog_rcv = mrc_backlog_rcv,
	.release_cb = mrc_release_cb,
};

/* The socket layer never reads .family here: sockets carry mrc_family. */
static const struct proto_ops mrc_proto_ops = {
	.family = AF_MRC,
	.owner = THIS_MODULE,
	.release = mrc_release,
	.bind = mrc_bind,
	.connect = mrc_connect,
	.socketpair = sock_no_socketpair,
	.accept = mrc_accept,
	.getname = mrc_getname,
	.poll = mrc_poll,
	.ioctl = sock_no_ioctl,
	.listen = mrc_listen,
	.shutdown = mrc_shutdown,
	.setsockopt = mrc_setsockopt,
	.getsockopt = mrc_getsockopt,
	.sendmsg = mrc_sendmsg,
	.recvmsg = mrc_recvmsg,
	.mmap = sock_no_mmap,
};

static struct sock *mrc_sock_alloc(struct net *net, struct socket *sock,
				   gfp_t gfp, int kern)
{
	struct mrc_sock *msk;
	struct sock *sk;

	sk = sk_alloc(net, mrc_family, gfp, &mrc_proto, kern);
	if (!sk)
		return NULL;
	sock_init_data(sock, sk);
	/* A few large messages in flight need more than rmem_default. */
	sk->sk_rcvbuf = max_t(int, sk->sk_rcvbuf, MRC_DEFAULT_BUF);
	sk->sk_sndbuf = max_t(int, sk->sk_sndbuf, MRC_DEFAULT_BUF);
	msk = mrc_sk(sk);
	INIT_HLIST_NODE(&msk->bind_node);
	mrc_sock_init(sk);
	msk->outage_timeout_ms = READ_ONCE(mrc_net(net)->outage_timeout_ms);
	mrc_set_state(sk, MRC_CLOSED);
	sk->sk_destruct = mrc_sock_destruct;
	sk->sk_backlog_rcv = mrc_backlog_rcv;
	sock_set_flag(sk, SOCK_RCU_FREE);
	mrc_mem_sock_init(sk);
	sock_prot_inuse_add(net, &mrc_proto, 1);
	return sk;
}

/**
 * mrc_child_create() - the connection a SYN opens on a listener
 * @lsk: the listener, locked
 * @laddr: destination address of the SYN
 * @raddr: source address of the SYN
 * @ifindex: interface it arrived on
 * @syn: the SYN
 *
 * The child is hashed, in MRC_SYN_RECV, on the listener's pending list,
 * and holds a reference on the listener.
 *
 * Return: the child, or NULL (counted) if it cannot be made.
 */
struct sock *mrc_child_create(struct sock *lsk, const struct in6_addr *laddr,
			      const struct in6_addr *raddr, int ifindex,
			      const struct mrc_syn *syn)
{
	struct mrc_sock *lmsk = mrc_sk(lsk), *cmsk;
	struct net *net = sock_net(lsk);
	struct in6_addr saddr = *laddr;
	struct sock *child;

	child = mrc_sock_alloc(net, NULL, GFP_ATOMIC, 0);
	if (!child) {
		MRC_INC(net, DROP_NOMEM);
		return NULL;
	}
	cmsk = mrc_sk(child);
	/* sock_init_data() sets the type from a struct socket, which a
	 * child gets only at accept(): SO_TYPE reads it before and after.
	 */
	child->sk_type = lsk->sk_type;
	child->sk_rcvbuf = READ_ONCE(lsk->sk_rcvbuf);
	child->sk_sndbuf = READ_ONCE(lsk->sk_sndbuf);
	/* Buffers the application set are not autotuned in children either. */
	child->sk_userlocks = lsk->sk_userlocks &
			      (SOCK_RCVBUF_LOCK | SOCK_SNDBUF_LOCK);
	child->sk_rcvtimeo = READ_ONCE(lsk->sk_rcvtimeo);
	child->sk_sndtimeo = READ_ONCE(lsk->sk_sndtimeo);
	child->sk_mark = READ_ONCE(lsk->sk_mark);
	child->sk_priority = READ_ONCE(lsk->sk_priority);
	child->sk_userlocks = lsk->sk_userlocks;
	child->sk_lingertime = READ_ONCE(lsk->sk_lingertime);
	if (sock_flag(lsk, SOCK_LINGER))
		sock_set_flag(child, SOCK_LINGER);
	child->sk_bound_dev_if = lsk->sk_bound_dev_if;
	cmsk->outage_timeout_ms = READ_ONCE(lmsk->outage_timeout_ms);
	if (!child->sk_bound_dev_if &&
	    (ipv6_addr_type(raddr) & IPV6_ADDR_LINKLOCAL))
		child->sk_bound_dev_if = ifindex;

	cmsk->laddr = *laddr;
	cmsk->lport = lmsk->lport;
	cmsk->daddr = *raddr;
	cmsk->dport = syn->sport;
	cmsk->rcid = ntohl(syn->h.scid);
	cmsk->rcv_nxt = ntohl(syn->isn);
	cmsk->peer_rwnd = ntohl(syn->rwnd);
	/* Nobody else can see the child yet, but its paths are the socket
	 * lock's to guard (mrc_cps()), and lockdep checks that they are: hold
	 * it while they are built and used, as sk_clone_lock() does. Not
	 * beyond: the listener's accept_lock is taken before a child's lock.
	 * A SYN from the listener's backlog comes in process context, with
	 * softirqs on: keep them off while the lock is held.
	 */
	local_bh_disable();
	bh_lock_sock_nested(child);
	if (mrc_cp_init(child, GFP_ATOMIC)) {
		bh_unlock_sock(child);
		local_bh_enable();
		MRC_INC(net, DROP_NOMEM);
		sock_put(child);
		return NULL;
	}
	cmsk->mss = min_t(u32, mrc_route_mss(child, &saddr), ntohs(syn->mss));
	cmsk->snd_mss = cmsk->mss;
	bh_unlock_sock(child);
	local_bh_enable();
	cmsk->saddr = saddr;
	cmsk->snd_isn = get_random_u32() & MRC_PSN_MASK;
	cmsk->snd_una = cmsk->snd_isn;
	cmsk->snd_nxt = cmsk->snd_isn;
	cmsk->rwnd_seq = cmsk->snd_isn;
	mrc_set_state(child, MRC_SYN_RECV);
	if (ntohs(syn->mss) < MRC_MSS_MIN) {
		MRC_INC(net, DROP_SMALL_MSS);
		sock_put(child);
		return NULL;
	}
	if (cmsk->mss < MRC_MSS_MIN) {
		MRC_INC(net, TX_NO_ROUTE);
		sock_put(child);
		return NULL;
	}
	if (mrc_conn_hash(child, 0)) {
		MRC_INC(net, DROP_NOMEM);
		sock_put(child);
		return NULL;
	}

	/* The listener is locked and listening, so accept_closed is false. */
	sock_hold(lsk);
	cmsk->parent = lsk;
	spin_lock_bh(&lmsk->accept_lock);
	list_add_tail(&cmsk->accept_node, &lmsk->pending);
	lmsk->nr_pending++;
	spin_unlock_bh(&lmsk->accept_lock);
	return child;
}

static int mrc_create(struct net *net, struct socket *sock, int protocol,
		      int kern)
{
	if (sock->type != SOCK_SEQPACKET)
		return -ESOCKTNOSUPPORT;
	if (protocol)
		return -EPROTONOSUPPORT;

	sock->ops = &mrc_proto_ops;
	sock->state = SS_UNCONNECTED;
	return mrc_sock_alloc(net, sock, GFP_KERNEL, kern) ? 0 : -ENOMEM;
}

static struct net_proto_family mrc_family_ops = {
	.create = mrc_create,
	.owner = THIS_MODULE,
};

/**
 * mrc_socket_init() - register the MRC protocol and socket family
 *
 * Return: 0 or a negative errno; -ENOBUFS or -EEXIST mean the family
 * number is out of range or taken (see the "family" module parameter).
 */
int mrc_socket_init(void)
{
	int err;

	mrc_mem_proto_init(&mrc_proto);
	err = proto_register(&mrc_proto, 1);
	if (err)
		return err;

	mrc_family_ops.family = mrc_family;
	err = sock_register(&mrc_family_ops);
	if (err)
		proto_unregister(&mrc_proto);
	return err;
}

/**
 * mrc_socket_exit() - unregister the MRC socket family and protocol
 */
void mrc_socket_exit(void)
{
	sock_unregister(mrc_family);
	proto_unregister(&mrc_proto);
}
