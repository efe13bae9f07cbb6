/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_CC_H
#define _MRC_CC_H

#include "mrc_types.h"

void mrc_cc_init_net(struct mrc_net *mn);
void mrc_cc_params_store(struct mrc_cc_params *dst,
			 const struct mrc_cc_params *src);
void mrc_cc_on_ack(struct sock *sk, u32 delivered, s32 delay_us, bool ce);
void mrc_cc_on_loss(struct sock *sk, u32 pidx);
void mrc_cc_on_trim(struct sock *sk);
void mrc_cc_on_spurious(struct sock *sk);

#endif /* _MRC_CC_H */
