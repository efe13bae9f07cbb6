/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * MRC (Multipath Reliable Connection) sockets: the user-space API.
 *
 * See Documentation/networking/mrc.rst.
 */
#ifndef _UAPI_LINUX_MRC_H
#define _UAPI_LINUX_MRC_H

#include <linux/types.h>
#include <linux/socket.h>
#include <linux/in6.h>

/*
 * Mainline never implemented AF_WANPIPE, and a module cannot register a
 * family at or above AF_MAX, so MRC takes that slot. The module parameter
 * "family" moves it on kernels where the slot is taken.
 */
#define AF_MRC		25
#define PF_MRC		AF_MRC

/* Socket option level for MRC options (getsockopt/setsockopt). */
#define SOL_MRC		299

/**
 * struct sockaddr_mrc - address of an MRC socket
 * @smrc_family: AF_MRC
 * @smrc_port: MRC port, network byte order; 0 in bind() picks a free one
 * @smrc_scope_id: interface index, required for link-local addresses
 * @smrc_addr: IPv6 address; in6addr_any in bind() means every local address
 */
struct sockaddr_mrc {
	__kernel_sa_family_t	smrc_family;
	__be16			smrc_port;
	__u32			smrc_scope_id;
	struct in6_addr		smrc_addr;
};

#endif /* _UAPI_LINUX_MRC_H */
