/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The differences between the kernels MRC supports (6.1 and later; 6.1 and
 * 6.12 LTS are tested), in one place. net/mrc/Kbuild detects the features
 * from the kernel headers.
 */
#ifndef _MRC_COMPAT_H
#define _MRC_COMPAT_H

#include <linux/net.h>
#include <net/net_namespace.h>

/* The features below are detected, not inferred from the version; the
 * top-level Kbuild refuses kernels before 6.1.
 */
/* struct_size_t() came in 6.6 and in later 6.1 stable releases (6.1.192
 * has it, 6.1.176 does not).
 */
#include <linux/overflow.h>
#ifndef struct_size_t
#define struct_size_t(type, member, count) \
	struct_size((type *)NULL, member, count)
#endif

/* 6.5 moved skb_gso_segment() to its own header. */
#ifdef MRC_HAVE_NET_GSO_H
#include <net/gso.h>
#endif

/* 6.10 moved the helpers of a protocol's memory accounting
 * (sk_memory_allocated() and others) out of net/sock.h.
 */
#ifdef MRC_HAVE_PROTO_MEMORY_H
#include <net/proto_memory.h>
#endif

/* 6.10 passes accept() its flags in struct proto_accept_arg. */
#ifdef MRC_HAVE_PROTO_ACCEPT_ARG
#define MRC_ACCEPT_ARGS		struct proto_accept_arg *arg
#define MRC_ACCEPT_FLAGS	(arg->flags)
#else
#define MRC_ACCEPT_ARGS		int flags, bool kern
#define MRC_ACCEPT_FLAGS	(flags)
#endif

/* 6.6 takes the table's size, and 6.11 wants no empty entry at its end;
 * 6.1 ends the table at an empty entry. Tables keep one; n excludes it.
 */
#ifdef MRC_HAVE_NET_SYSCTL_SZ
#define mrc_register_net_sysctl(net, path, table, n) \
	register_net_sysctl_sz(net, path, table, n)
#else
#define mrc_register_net_sysctl(net, path, table, n) \
	register_net_sysctl(net, path, table)
#endif

/* 6.11 hands sysctl handlers a const table. */
#ifdef MRC_HAVE_CONST_CTL_TABLE
#define mrc_ctl_table	const struct ctl_table
#else
#define mrc_ctl_table	struct ctl_table
#endif

/* A UDP tunnel's ICMP error handler: 6.1 is given the offset of the quoted
 * UDP header from skb->data; later kernels (6.12) the error, port, ICMP
 * info and a pointer to the quoted UDP payload instead.
 * MRC_DEFINE_ENCAP_ERR_RCV(name, fn) defines the handler @name, which
 * calls fn(sk, skb, offset of the quoted UDP header).
 */
#ifdef MRC_HAVE_ENCAP_ERR_RCV_INFO
#define MRC_DEFINE_ENCAP_ERR_RCV(name, fn)				\
static void name(struct sock *sk, struct sk_buff *skb, int err,	\
		 __be16 port, u32 info, u8 *payload)			\
{									\
	fn(sk, skb, payload - skb->data - sizeof(struct udphdr));	\
}
#else
#define MRC_DEFINE_ENCAP_ERR_RCV(name, fn)				\
static void name(struct sock *sk, struct sk_buff *skb,			\
		 unsigned int udp_offset)				\
{									\
	fn(sk, skb, udp_offset);					\
}
#endif

#endif /* _MRC_COMPAT_H */
