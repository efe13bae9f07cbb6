/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_RECOVERY_H
#define _MRC_RECOVERY_H

#include "output.h"

/**
 * enum mrc_lost_reason - why a packet was declared lost (mrc:mrc_pkt_lost)
 * @MRC_LOST_RACK: a packet sent later on its path was delivered, and the
 *	reordering window has passed
 * @MRC_LOST_PATH_TIMEOUT: later packets on other paths were delivered, and
 *	its path's timeout has passed
 * @MRC_LOST_RTO: the retransmission timeout fired
 * @MRC_LOST_NO_ROUTE: its path had no route
 * @MRC_LOST_QDISC_DROP: a local qdisc dropped it
 * @MRC_LOST_PATH_RETIRED: its path was retired with it in flight
 * @MRC_LOST_TAIL_PROBE: a tail probe sent it again, and the ACK for the
 *	probe's copy showed the first copy had not arrived
 */
enum mrc_lost_reason {
	MRC_LOST_RACK,
	MRC_LOST_PATH_TIMEOUT,
	MRC_LOST_RTO,
	MRC_LOST_NO_ROUTE,
	MRC_LOST_QDISC_DROP,
	MRC_LOST_PATH_RETIRED,
	MRC_LOST_TAIL_PROBE,
};

/**
 * mrc_cb_set_lost() - take a packet in flight out of the window, to be
 *	sent again
 * @msk: its socket, locked
 * @cb: the packet, not yet marked lost
 *
 * What every loss, release and move of a packet shares: it counts as
 * lost (mrc_sock.lost), and what it waited for (a trim hold, memory, a
 * route, a local queue) no longer matters. The callers do the path's
 * accounting.
 */
static inline void mrc_cb_set_lost(struct mrc_sock *msk, struct mrc_tx_cb *cb)
{
	cb->lost = 1;
	cb->trimmed = 0;
	cb->nobuf = 0;
	cb->noroute = 0;
	cb->qdrop = 0;
	msk->lost++;
}

void mrc_tail_probe(struct sock *sk);
void mrc_tail_repaired(struct sock *sk, const struct mrc_tx_cb *cb);
u32 mrc_detect_losses(struct sock *sk);
void mrc_mark_lost(struct sock *sk, struct mrc_tx_cb *cb,
		   enum mrc_lost_reason reason);
void mrc_mark_released(struct sock *sk, struct mrc_tx_cb *cb);
void mrc_rtx_timeout(struct sock *sk);

#endif /* _MRC_RECOVERY_H */
