/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_SOCKET_H
#define _MRC_SOCKET_H

#include "mrc_types.h"

extern int mrc_family;

int mrc_socket_init(void);
void mrc_socket_exit(void);

#endif /* _MRC_SOCKET_H */
