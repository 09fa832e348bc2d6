/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Attaching programs to interfaces of a network namespace: XDP, TC
 * ingress and TC egress.  Prefers BPF links (XDP links since 5.9, tcx
 * since 6.6), pinned so they outlive the process and are detached by
 * removing the pin; falls back to netlink (bpf_xdp_attach, clsact +
 * cls_bpf via bpf_tc_attach) on kernels without them.  libbpf 1.1 has no
 * tcx helpers, so the links are made with bpf_link_create directly.
 *
 * The namespace is entered with setns() only around the calls that need
 * it (interface lookup, link creation, netlink); the caller's namespace is
 * restored before returning, also on errors.
 */
#ifndef DCBPF_LOADER_ATTACH_H
#define DCBPF_LOADER_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* enum bpf_attach_type values newer than Debian 12's 6.1 UAPI headers */
#define DC_BPF_TCX_INGRESS 46
#define DC_BPF_TCX_EGRESS 47
#define DC_BPF_XDP 37
#define DC_BPF_F_BEFORE (1U << 3)	/* tcx/mprog: attach before all others */

enum dc_hook {
	DC_HOOK_XDP = 0,
	DC_HOOK_TC_INGRESS = 1,
	DC_HOOK_TC_EGRESS = 2,
};

enum dc_attach_how {
	DC_ATTACHED_LINK = 0,		/* link pinned at pin_path */
	DC_ATTACHED_NETLINK = 1,	/* netlink fallback: detach with dc_detach_netlink */
};

struct dc_attach {
	enum dc_hook hook;
	const char *netns;	/* name under /var/run/netns; NULL = current namespace */
	const char *ifname;
	__u32 xdp_flags;	/* XDP_FLAGS_SKB_MODE (generic) or XDP_FLAGS_DRV_MODE */
	const char *pin_path;	/* where the link is pinned (required for links) */
	bool no_links;		/* force the netlink path (tests, old kernels) */
	__u32 tc_prio;		/* netlink TC: filter priority and handle (0 = 0xdcb, INT's);
				 * lower runs first */
	__u32 link_flags;	/* tcx link: DC_BPF_F_BEFORE puts it first; 0 appends */
};

const char *dc_hook_name(enum dc_hook h);

/* Enter a namespace by name; *saved gets the caller's namespace. */
int dc_netns_enter(const char *name, int *saved, char *why, size_t whylen);
/* Return to the namespace saved by dc_netns_enter (closes it). */
void dc_netns_leave(int saved);
/* Inode of a named namespace (what BPF sees as net->ns.inum). */
int dc_netns_ino(const char *name, __u32 *ino, char *why, size_t whylen);
/* ifindex of ifname inside netns (NULL = current). */
int dc_ifindex(const char *netns, const char *ifname, __u32 *ifindex, char *why, size_t whylen);

/*
 * Attach prog_fd as described.  Returns 0 with *how set, or a negative
 * errno with *why naming the interface, namespace and what to do.
 */
int dc_attach_prog(int prog_fd, const struct dc_attach *a, enum dc_attach_how *how, char *why,
		   size_t whylen);
/* Detach a pinned link (works even while others hold it) and remove the pin. */
int dc_detach_pinned(const char *pin_path);
/* Undo a netlink attachment of `hook` on ifname in netns. */
int dc_detach_netlink(const struct dc_attach *a);
/* Program id of our netlink (cls_bpf) filter on a TC hook; -ENOENT if none. */
int dc_tc_query(const struct dc_attach *a, __u32 *prog_id);
/* Id and interface of a pinned XDP or tcx link; ifindex 0 once the device
 * is gone (the link is defunct). */
int dc_link_ifindex(int link_fd, __u32 *link_id, __u32 *ifindex);

#endif
