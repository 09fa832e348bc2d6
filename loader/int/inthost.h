/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Host INT programs on interfaces: egress = source + echo (dc_int_hout),
 * ingress = sink + publication for PowerTCP (dc_int_hin).  Shared by
 * `dcbpf int attach/detach`, `dcbpf attach/detach` and dcbpfd's [int]
 * section.  Links are pinned as <pin_dir>/int/<netns|host>/<ifname>_egress
 * and _ingress; where the kernel has no tcx (6.1) the programs go in by
 * netlink (clsact + cls_bpf) and are found again by querying the filter.
 */
#ifndef DCBPF_LOADER_INTHOST_H
#define DCBPF_LOADER_INTHOST_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct dc_int_host;

/* Load the host INT object with pin_dir as pin root (its maps are shared
 * with the CC object by name).  Per-flow maps not pinned yet get
 * flows_max entries (0 = the size of a pinned dc_cc_flows, else the
 * built-in default).  NULL with *why on failure. */
struct dc_int_host *dc_int_host_open(const char *pin_dir, __u32 flows_max, char *why,
				     size_t whylen);
void dc_int_host_close(struct dc_int_host *h);

/* Both hooks of ifname in netns (NULL = own); all or nothing. */
int dc_int_host_attach(struct dc_int_host *h, const char *netns, const char *ifname,
		       bool no_links, char *why, size_t whylen);
/* Take both hooks off (pinned links, or our netlink filters). */
void dc_int_host_detach(const char *pin_dir, const char *netns, const char *ifname);

/*
 * Is ifname (ifindex) carrying both host programs?  ids[] gets the link ids
 * (tcx) or program ids (netlink) of egress and ingress.  Returns 2 if both,
 * 1 if only one (half attached), 0 if none.
 */
int dc_int_host_state(const char *pin_dir, const char *netns, const char *ifname,
		      __u32 ifindex, __u32 ids[2]);

/* <pin_dir>/int/<netns|host> (pins.h); -errno for a name bpffs refuses. */
int dc_int_host_dir(char *buf, size_t len, const char *pin_dir, const char *netns);
/* Interface names that have a pinned link under dc_int_host_dir; returns
 * how many were stored (each once). */
int dc_int_host_pinned(const char *pin_dir, const char *netns, char (*names)[16], int max);
/* Remove an empty namespace directory; after the last one, unpin the
 * host-only maps. */
void dc_int_host_tidy(const char *pin_dir, const char *netns);


#endif
