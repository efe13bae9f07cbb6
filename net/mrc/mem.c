// SPDX-License-Identifier: GPL-2.0
/*
 * The memory of MRC socket buffers, in the kernel's socket accounting.
 *
 * SO_RCVBUF and SO_SNDBUF bound each socket. The protocol as a whole is
 * bounded as TCP and UDP are: every buffer an MRC socket holds, received
 * payloads not yet read and messages queued or in flight, is charged by its
 * true size to the socket's forward allocation, and through it, in pages,
 * to the protocol's memory_allocated, against net.mrc.mem (min, pressure,
 * max, in pages, for the whole host like tcp_mem). /proc/net/protocols and
 * /proc/net/mrc_sockstat show the pages charged. Over the pressure mark
 * the kernel holds each socket to its fair share; at the max:
 *
 * - a receiver advertises no more window than half the room left, and
 *   drops a DATA packet it cannot charge (DropMemLimit) with a NACK
 *   NO_BUFFER, except a packet of the message next in line for delivery
 *   while the reader has nothing queued: that one is always taken, so that
 *   every connection makes progress (a reader can only read whole
 *   messages). It is charged as the kernel charges a packet from the
 *   emergency reserves: the socket's forward allocation goes negative, and
 *   the socket can charge nothing more until the message is read.
 * - a sender that already has data queued waits (SendMemLimit) until it
 *   can charge. One with nothing queued may always queue a message, which
 *   it then owes the same way.
 *
 * So the protocol holds at most net.mrc.mem's max, the per-CPU reserves
 * the kernel batches charges in (up to 1 MB a CPU), and one message a
 * connection.
 *
 * The charges are the socket's: made and released under its lock, or once
 * nobody else can see it (its destructor).
 */
#include <linux/mm.h>
#include <linux/percpu_counter.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/swap.h>

#include "mem.h"
#include "mib.h"
#include "mrc_compat.h"
#include "pernet.h"

static atomic_long_t mrc_memory_allocated;
static DEFINE_PER_CPU(int, mrc_memory_per_cpu_fw_alloc);
static struct percpu_counter mrc_sockets_allocated;
static unsigned long mrc_memory_pressure;
/* net.mrc.mem: min, pressure and max, in pages. */
static long mrc_sysctl_mem[3];
/* What a socket may always charge under pressure (not over the max). */
static int mrc_rmem_min = PAGE_SIZE;
static int mrc_wmem_min = PAGE_SIZE;
static struct ctl_table_header *mrc_mem_sysctl;
static struct proto *mrc_mem_prot;

/* The kernel calls this at every charge over the pressure mark; the
 * counter counts the entries. It leaves pressure below the min by itself
 * (sk_leave_memory_pressure()).
 */
static void mrc_enter_memory_pressure(struct sock *sk)
{
	if (!xchg(&mrc_memory_pressure, 1))
		MRC_INC(sock_net(sk), MEM_PRESSURE);
}

/**
 * mrc_mem_proto_init() - give the protocol the kernel's socket accounting
 * @prot: MRC's struct proto, before proto_register()
 */
void mrc_mem_proto_init(struct proto *prot)
{
	mrc_mem_prot = prot;
	prot->memory_allocated = &mrc_memory_allocated;
	prot->per_cpu_fw_alloc = &mrc_memory_per_cpu_fw_alloc;
	prot->sockets_allocated = &mrc_sockets_allocated;
	prot->memory_pressure = &mrc_memory_pressure;
	prot->enter_memory_pressure = mrc_enter_memory_pressure;
	prot->sysctl_mem = mrc_sysctl_mem;
	prot->sysctl_rmem = &mrc_rmem_min;
	prot->sysctl_wmem = &mrc_wmem_min;
}

/* Release the charge before sock_wfree(), which may free the socket. The
 * socket is locked: a buffer to send is freed once delivered, or purged,
 * by its owner. Its charge goes back to the socket's forward allocation,
 * which the end of the event returns to the protocol (mrc_mem_reclaim()):
 * sk_mem_uncharge() would return it with every packet, and the next
 * packet queued would take it back.
 */
static void mrc_mem_wfree(struct sk_buff *skb)
{
	struct sock *sk = skb->sk;

	sk_wmem_queued_add(sk, -skb->truesize);
	sk_forward_alloc_add(sk, skb->truesize);
	sock_wfree(skb);
}

/**
 * mrc_mem_reclaim() - return what a socket no longer uses to the protocol
 * @sk: the socket, locked
 *
 * At the end of an event that may have freed buffers to send (a packet
 * received), and at the end of sendmsg(): the forward allocation beyond
 * a page goes back, as sk_mem_uncharge() does for each buffer.
 */
void mrc_mem_reclaim(struct sock *sk)
{
	sk_mem_reclaim(sk);
}

/**
 * mrc_mem_charge_r() - charge a received buffer to its socket
 * @skb: the buffer, kept until the application reads it
 * @sk: the socket, locked
 * @force: take it even at the limit (the message next in line)
 *
 * Return: true if charged, false if the protocol's memory is exhausted.
 */
bool mrc_mem_charge_r(struct sk_buff *skb, struct sock *sk, bool force)
{
	if (!sk_rmem_schedule(sk, skb, skb->truesize) && !force)
		return false;
	/* Freed by sock_rfree(), which releases the charge. */
	skb_set_owner_r(skb, sk);
	return true;
}

/**
 * mrc_mem_charge_w() - charge a buffer to send to its socket
 * @skb: the buffer, kept until acknowledged
 * @sk: the socket, locked, that has decided to queue it (mrc_mem_can_send())
 *
 * Counted in SO_SNDBUF (sk_wmem_alloc) and in the protocol's memory. Like
 * a packet from the emergency reserves, it is charged even if the
 * protocol's memory is exhausted.
 */
void mrc_mem_charge_w(struct sk_buff *skb, struct sock *sk)
{
	sk_wmem_schedule(sk, skb->truesize);
	skb_set_owner_w(skb, sk);
	skb->destructor = mrc_mem_wfree;
	sk_wmem_queued_add(sk, skb->truesize);
	sk_mem_charge(sk, skb->truesize);
}

/**
 * mrc_mem_can_send() - may a socket charge a buffer to send?
 * @sk: the socket, locked
 * @size: bytes of true size
 *
 * Return: true if @size is charged in advance (the socket's forward
 * allocation covers it), false if the protocol's memory is exhausted.
 */
bool mrc_mem_can_send(struct sock *sk, int size)
{
	return sk_wmem_schedule(sk, size);
}

/**
 * mrc_mem_room() - bytes a socket may still charge, roughly
 * @sk: an MRC socket
 *
 * What the protocol has left under the max of net.mrc.mem, and under
 * memory pressure no more than what the socket lacks of its fair share
 * (the max over the number of MRC sockets), as __sk_mem_raise_allocated()
 * judges it. Approximate, by the per-CPU reserves: for windows.
 *
 * Return: bytes, 0 when nothing more may be charged.
 */
long mrc_mem_room(const struct sock *sk)
{
	long max = sk_prot_mem_limits(sk, 2);
	long room = max - sk_memory_allocated(sk);

	if (sk_under_memory_pressure(sk)) {
		s64 socks = percpu_counter_read_positive(&mrc_sockets_allocated);
		long share = max / (long)max_t(s64, socks, 1);
		long used = sk_mem_pages(READ_ONCE(sk->sk_wmem_queued) +
					 atomic_read(&sk->sk_rmem_alloc) +
					 READ_ONCE(sk->sk_forward_alloc));

		room = min(room, share - used);
	}
	return room > 0 ? room << PAGE_SHIFT : 0;
}

/**
 * mrc_mem_sock_init() - count a new socket in the protocol's sockets
 * @sk: the socket
 */
void mrc_mem_sock_init(struct sock *sk)
{
	sk_sockets_allocated_inc(sk);
}

/**
 * mrc_mem_sock_destruct() - return what a socket has left charged
 * @sk: the socket, whose buffers are all freed
 */
void mrc_mem_sock_destruct(struct sock *sk)
{
	sk_mem_reclaim_final(sk);
	WARN_ON_ONCE(sk->sk_forward_alloc);
	WARN_ON_ONCE(sk->sk_wmem_queued);
	WARN_ON_ONCE(atomic_read(&sk->sk_rmem_alloc));
	sk_sockets_allocated_dec(sk);
}

static int mrc_sockstat_show(struct seq_file *seq, void *v)
{
	struct net *net = seq_file_single_net(seq);

	seq_printf(seq, "MRC: inuse %d orphan %d mem %ld\n",
		   sock_prot_inuse_get(net, mrc_mem_prot),
		   atomic_read(&mrc_net(net)->orphans),
		   proto_memory_allocated(mrc_mem_prot));
	return 0;
}

/**
 * mrc_mem_init_net() - create /proc/net/mrc_sockstat in a namespace
 * @net: the namespace
 *
 * It shows the namespace's MRC sockets and orphans, and the pages the
 * protocol has charged (for the whole host, as /proc/net/sockstat does).
 *
 * Return: 0 or -ENOMEM.
 */
int mrc_mem_init_net(struct net *net)
{
	if (!proc_create_net_single("mrc_sockstat", 0444, net->proc_net,
				    mrc_sockstat_show, NULL))
		return -ENOMEM;
	return 0;
}

/**
 * mrc_mem_exit_net() - remove /proc/net/mrc_sockstat from a namespace
 * @net: the namespace
 */
void mrc_mem_exit_net(struct net *net)
{
	remove_proc_entry("mrc_sockstat", net->proc_net);
}

static struct ctl_table mrc_mem_table[] = {
	{
		.procname = "mem",
		.data = &mrc_sysctl_mem,
		.maxlen = sizeof(mrc_sysctl_mem),
		.mode = 0644,
		.proc_handler = proc_doulongvec_minmax,
	},
	{ }
};

/**
 * mrc_mem_init() - the defaults of net.mrc.mem, and the sysctl itself
 *
 * As udp_mem's: pressure starts at an eighth of the memory the kernel can
 * use for buffers, the max is one and a half times that, the min three
 * quarters.
 * The sysctl is in the initial namespace only, as tcp_mem is: it bounds
 * the host.
 *
 * Return: 0 or -ENOMEM.
 */
int mrc_mem_init(void)
{
	unsigned long limit = max(nr_free_buffer_pages() / 8, 128UL);
	int err;

	mrc_sysctl_mem[0] = limit / 4 * 3;
	mrc_sysctl_mem[1] = limit;
	mrc_sysctl_mem[2] = mrc_sysctl_mem[0] * 2;
	err = percpu_counter_init(&mrc_sockets_allocated, 0, GFP_KERNEL);
	if (err)
		return err;
	mrc_mem_sysctl = mrc_register_net_sysctl(&init_net, "net/mrc",
						 mrc_mem_table,
						 ARRAY_SIZE(mrc_mem_table) - 1);
	if (!mrc_mem_sysctl) {
		percpu_counter_destroy(&mrc_sockets_allocated);
		return -ENOMEM;
	}
	return 0;
}

/**
 * mrc_mem_exit() - remove net.mrc.mem; every MRC socket is gone
 */
void mrc_mem_exit(void)
{
	unregister_net_sysctl_table(mrc_mem_sysctl);
	percpu_counter_destroy(&mrc_sockets_allocated);
}
