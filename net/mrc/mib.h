/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_NET_MIB_H
#define _MRC_NET_MIB_H

#include <net/net_namespace.h>

#include "mrc_mib.h"

int mrc_mib_init(struct net *net);
void mrc_mib_exit(struct net *net);
const char *mrc_mib_name(int field);
unsigned long mrc_mib_read(struct net *net, int field);

#endif /* _MRC_NET_MIB_H */
