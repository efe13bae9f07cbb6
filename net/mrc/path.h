/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _MRC_PATH_H
#define _MRC_PATH_H

#include <linux/netlink.h>

#include "mrc_types.h"

/**
 * struct mrc_path_req - a path as asked for by the control plane
 * @path: the path; @path.id is used only if @has_id
 * @has_id: the caller chose the id
 */
struct mrc_path_req {
	struct mrc_path path;
	bool has_id;
};

int mrc_path_add(struct net *net, const struct in6_addr *prefix, u8 plen,
		 struct mrc_path_req *req, struct netlink_ext_ack *extack);
int mrc_path_del(struct net *net, const struct in6_addr *prefix, u8 plen,
		 int id, struct netlink_ext_ack *extack);
int mrc_path_set_state(struct net *net, const struct in6_addr *prefix, u8 plen,
		       u16 id, u8 state, u8 *old, struct netlink_ext_ack *extack);
int mrc_pathset_set_min_active(struct net *net, const struct in6_addr *prefix,
			       u8 plen, u32 min_active,
			       struct netlink_ext_ack *extack);
void mrc_path_flush(struct net *net);
struct mrc_pathset *mrc_pathset_find(struct mrc_net *mn,
				     const struct in6_addr *prefix, u8 plen);
void mrc_path_init_net(struct mrc_net *mn);

#endif /* _MRC_PATH_H */
