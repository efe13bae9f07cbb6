// SPDX-License-Identifier: GPL-2.0
/*
 * Namespace-wide bound on the memory of MRC socket buffers.
 *
 * SO_RCVBUF and SO_SNDBUF bound each socket; net.mrc.mem_max bounds the
 * sum over all MRC sockets of a namespace, as tcp_mem does for TCP, so
 * that many sockets (or many peers) cannot take all memory between them.
 * Every buffer an MRC socket owns, received payloads not yet read and
 * messages queued or in flight, is charged by its true size when the
 * socket takes it and released by its destructor. At the limit:
 *
 * - a receiver advertises no more window than the room left, and drops a
 *   DATA packet that does not fit (DropMemLimit) with a NACK NO_BUFFER,
 *   except a packet of the message next in line for delivery, which is
 *   always taken so that every connection makes progress;
 * - a sender that already has data queued waits (SendMemLimit) until its
 *   own queue drains. One with nothing queued may always queue a message.
 */
#include <linux/mm.h>
#include <linux/percpu_counter.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/swap.h>

#include "mem.h"
#include "pernet.h"

/* Bytes a CPU charges or releases before the namespace total sees them:
 * the limit holds to within this much per CPU.
 */
#define MRC_MEM_BATCH	SZ_64K

static struct percpu_counter *mrc_mem(const struct sock *sk)
{
	return &mrc_net(sock_net(sk))->mem;
}

static void mrc_mem_rfree(struct sk_buff *skb)
{
	percpu_counter_add_batch(mrc_mem(skb->sk), -(s64)skb->truesize,
				 MRC_MEM_BATCH);
	sock_rfree(skb);
}

static void mrc_mem_wfree(struct sk_buff *skb)
{
	/* Before sock_wfree(), which may free the socket. */
	percpu_counter_add_batch(mrc_mem(skb->sk), -(s64)skb->truesize,
				 MRC_MEM_BATCH);
	sock_wfree(skb);
}

/**
 * mrc_mem_set_owner_r() - charge a received buffer to a socket
 * @skb: the buffer, kept until the application reads it
 * @sk: the socket
 *
 * Like skb_set_owner_r(), and charged to the namespace too until freed.
 */
void mrc_mem_set_owner_r(struct sk_buff *skb, struct sock *sk)
{
	skb_set_owner_r(skb, sk);
	skb->destructor = mrc_mem_rfree;
	percpu_counter_add_batch(mrc_mem(sk), skb->truesize, MRC_MEM_BATCH);
}

/**
 * mrc_mem_set_owner_w() - charge a buffer to send to a socket
 * @skb: the buffer, kept until acknowledged
 * @sk: the socket
 *
 * Like skb_set_owner_w(), and charged to the namespace too until freed.
 */
void mrc_mem_set_owner_w(struct sk_buff *skb, struct sock *sk)
{
	skb_set_owner_w(skb, sk);
	skb->destructor = mrc_mem_wfree;
	percpu_counter_add_batch(mrc_mem(sk), skb->truesize, MRC_MEM_BATCH);
}

/**
 * mrc_mem_exceeds() - would charging more take the namespace over its limit?
 * @sk: a socket of the namespace
 * @more: bytes of true size
 *
 * Return: true if net.mrc.mem_max would be exceeded.
 */
bool mrc_mem_exceeds(const struct sock *sk, unsigned int more)
{
	struct mrc_net *mn = mrc_net(sock_net(sk));
	s64 max = READ_ONCE(mn->mem_max);

	return __percpu_counter_compare(&mn->mem, max - more,
					MRC_MEM_BATCH) > 0;
}

/**
 * mrc_mem_room() - bytes the namespace may still charge, roughly
 * @sk: a socket of the namespace
 *
 * Cheap and approximate (by up to MRC_MEM_BATCH a CPU): for windows.
 *
 * Return: bytes, 0 at or over the limit.
 */
long mrc_mem_room(const struct sock *sk)
{
	struct mrc_net *mn = mrc_net(sock_net(sk));
	s64 room = (s64)READ_ONCE(mn->mem_max) - percpu_counter_read(&mn->mem);

	return room > 0 ? room : 0;
}

/**
 * mrc_mem_default_max() - the default of net.mrc.mem_max
 *
 * An eighth of the memory the kernel can use for buffers, as computed for
 * a namespace when it is created.
 *
 * Return: bytes.
 */
unsigned long mrc_mem_default_max(void)
{
	return max_t(unsigned long, nr_free_buffer_pages() / 8, 1) * PAGE_SIZE;
}

static int mrc_sockstat_show(struct seq_file *seq, void *v)
{
	struct mrc_net *mn = mrc_net(seq_file_single_net(seq));

	seq_printf(seq, "MRC: mem %lld mem_max %lu\n",
		   percpu_counter_sum_positive(&mn->mem),
		   READ_ONCE(mn->mem_max));
	return 0;
}

/**
 * mrc_mem_init_net() - start a namespace's accounting, with nothing charged
 * @net: the namespace
 * @mn: its MRC state
 *
 * Also creates /proc/net/mrc_sockstat, which shows the bytes charged.
 *
 * Return: 0 or -ENOMEM.
 */
int mrc_mem_init_net(struct net *net, struct mrc_net *mn)
{
	int err;

	mn->mem_max = mrc_mem_default_max();
	err = percpu_counter_init(&mn->mem, 0, GFP_KERNEL);
	if (err)
		return err;
	if (!proc_create_net_single("mrc_sockstat", 0444, net->proc_net,
				    mrc_sockstat_show, NULL)) {
		percpu_counter_destroy(&mn->mem);
		return -ENOMEM;
	}
	return 0;
}

/**
 * mrc_mem_exit_net() - end a namespace's accounting
 * @net: the namespace, whose MRC sockets are all gone
 * @mn: its MRC state
 */
void mrc_mem_exit_net(struct net *net, struct mrc_net *mn)
{
	s64 left;

	remove_proc_entry("mrc_sockstat", net->proc_net);
	left = percpu_counter_sum(&mn->mem);
	WARN_ONCE(left, "mrc: %lld bytes still charged at namespace exit\n",
		  left);
	percpu_counter_destroy(&mn->mem);
}
