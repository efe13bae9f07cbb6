// SPDX-License-Identifier: GPL-2.0
/*
 * uapi/linux/mrc.h and mrc_trim.h must compile in user space, as C and as
 * C++, alone or after the libc networking headers, and keep their ABI.
 */
#ifdef WITH_LIBC_FIRST
#include <netinet/in.h>
#include <sys/socket.h>
#endif
#include <assert.h>
#include <stddef.h>
#include <string.h>
#include <linux/mrc.h>
#include <linux/mrc_trim.h>

#define MRC_ASSERT(c) static_assert(c, #c)

MRC_ASSERT(AF_MRC == 25 && PF_MRC == AF_MRC);
MRC_ASSERT(sizeof(struct sockaddr_mrc) == 24);
MRC_ASSERT(offsetof(struct sockaddr_mrc, smrc_family) == 0);
MRC_ASSERT(offsetof(struct sockaddr_mrc, smrc_port) == 2);
MRC_ASSERT(sizeof(struct mrc_peer) == 52);
MRC_ASSERT(offsetof(struct mrc_peer, local_qpn) == 24);
MRC_ASSERT(offsetof(struct mrc_peer, peer_rwnd) == 44);
MRC_ASSERT(offsetof(struct mrc_peer, flags) == 48);
MRC_ASSERT(offsetof(struct sockaddr_mrc, smrc_scope_id) == 4);
MRC_ASSERT(offsetof(struct sockaddr_mrc, smrc_addr) == 8);
MRC_ASSERT(sizeof(struct tc_mrctrim_xstats) == 48);
MRC_ASSERT(TCA_MRCTRIM_MAX == 6);

int main(void)
{
	struct sockaddr_mrc sa;

	memset(&sa, 0, sizeof(sa));
	sa.smrc_family = AF_MRC;
	return sa.smrc_port + SOL_MRC - SOL_MRC;
}
