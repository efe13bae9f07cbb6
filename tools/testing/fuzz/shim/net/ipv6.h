/* SPDX-License-Identifier: GPL-2.0 */
/* tools/testing/fuzz: the few IPv6 helpers of the kernel the module uses. */
#ifndef _MRC_FUZZ_NET_IPV6_H
#define _MRC_FUZZ_NET_IPV6_H

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/ipv6.h>

#define NEXTHDR_HOP		0
#define NEXTHDR_ROUTING		43
#define NEXTHDR_DEST		60

#define ipv6_optlen(p)		(((p)->hdrlen + 1) << 3)

static inline bool ipv6_addr_equal(const struct in6_addr *a,
				   const struct in6_addr *b)
{
	return !memcmp(a, b, sizeof(*a));
}

#endif
