// SPDX-License-Identifier: GPL-2.0
/*
 * AF_MRC socket glue: creation, bind and the proto_ops table.
 */
#include <linux/hash.h>
#include <linux/mrc.h>
#include <linux/net.h>
#include <linux/random.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/sock.h>

#include "pernet.h"
#include "socket.h"

int mrc_family __read_mostly = AF_MRC;

static struct mrc_sock *mrc_sk(const struct sock *sk)
{
	return container_of(sk, struct mrc_sock, sk);
}

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

/* Find the interface a bind() address lives on, and check it is ours. */
static int mrc_bind_check_addr(struct net *net, const struct sockaddr_mrc *sa,
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
	struct mrc_sock *msk = mrc_sk(sk);
	struct net *net = sock_net(sk);
	struct mrc_net *mn = mrc_net(net);
	__be16 port;
	int ifindex;
	int err;

	if (addr_len < (int)sizeof(*sa))
		return -EINVAL;
	if (sa->smrc_family != mrc_family)
		return -EAFNOSUPPORT;

	err = mrc_bind_check_addr(net, sa, &ifindex);
	if (err)
		return err;

	port = sa->smrc_port;
	if (port && inet_port_requires_bind_service(net, ntohs(port)) &&
	    !ns_capable(net->user_ns, CAP_NET_BIND_SERVICE))
		return -EACCES;

	lock_sock(sk);
	if (msk->lport) {
		err = -EINVAL;
		goto out;
	}
	spin_lock_bh(&mn->bind_lock);
	if (!port)
		port = mrc_pick_port(net, mn, &sa->smrc_addr, ifindex);
	else if (mrc_port_in_use(mn, port, &sa->smrc_addr, ifindex))
		port = 0;
	if (port) {
		msk->laddr = sa->smrc_addr;
		msk->lport = port;
		sk->sk_bound_dev_if = ifindex;
		hlist_add_head(&msk->bind_node, mrc_bind_bucket(mn, port));
		mn->nr_bound++;
	} else {
		err = -EADDRINUSE;
	}
	spin_unlock_bh(&mn->bind_lock);
out:
	release_sock(sk);
	return err;
}

static void mrc_unbind(struct sock *sk)
{
	struct mrc_net *mn = mrc_net(sock_net(sk));
	struct mrc_sock *msk = mrc_sk(sk);

	if (!msk->lport)
		return;
	spin_lock_bh(&mn->bind_lock);
	hlist_del_init(&msk->bind_node);
	mn->nr_bound--;
	spin_unlock_bh(&mn->bind_lock);
	msk->lport = 0;
}

static int mrc_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct sockaddr_mrc *sa = (struct sockaddr_mrc *)uaddr;
	struct sock *sk = sock->sk;
	struct mrc_sock *msk = mrc_sk(sk);

	if (peer)
		return -ENOTCONN;

	memset(sa, 0, sizeof(*sa));
	sa->smrc_family = mrc_family;
	lock_sock(sk);
	sa->smrc_port = msk->lport;
	sa->smrc_addr = msk->laddr;
	if (ipv6_addr_type(&msk->laddr) & IPV6_ADDR_LINKLOCAL)
		sa->smrc_scope_id = sk->sk_bound_dev_if;
	release_sock(sk);
	return sizeof(*sa);
}

static int mrc_release(struct socket *sock)
{
	struct sock *sk = sock->sk;

	if (!sk)
		return 0;

	lock_sock(sk);
	mrc_unbind(sk);
	sock_orphan(sk);
	release_sock(sk);

	sock_prot_inuse_add(sock_net(sk), sk->sk_prot, -1);
	sock->sk = NULL;
	sock_put(sk);
	return 0;
}

static struct proto mrc_proto = {
	.name = "MRC",
	.owner = THIS_MODULE,
	.obj_size = sizeof(struct mrc_sock),
};

/* The socket layer never reads .family here: sockets carry mrc_family. */
static const struct proto_ops mrc_proto_ops = {
	.family = AF_MRC,
	.owner = THIS_MODULE,
	.release = mrc_release,
	.bind = mrc_bind,
	.connect = sock_no_connect,
	.socketpair = sock_no_socketpair,
	.accept = sock_no_accept,
	.getname = mrc_getname,
	.ioctl = sock_no_ioctl,
	.listen = sock_no_listen,
	.shutdown = sock_no_shutdown,
	.sendmsg = sock_no_sendmsg,
	.recvmsg = sock_no_recvmsg,
	.mmap = sock_no_mmap,
};

static int mrc_create(struct net *net, struct socket *sock, int protocol,
		      int kern)
{
	struct mrc_sock *msk;
	struct sock *sk;

	if (sock->type != SOCK_SEQPACKET)
		return -ESOCKTNOSUPPORT;
	if (protocol)
		return -EPROTONOSUPPORT;

	sk = sk_alloc(net, mrc_family, GFP_KERNEL, &mrc_proto, kern);
	if (!sk)
		return -ENOMEM;

	sock_init_data(sock, sk);
	sock->ops = &mrc_proto_ops;
	sock->state = SS_UNCONNECTED;
	msk = mrc_sk(sk);
	INIT_HLIST_NODE(&msk->bind_node);
	sock_prot_inuse_add(net, &mrc_proto, 1);
	return 0;
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
