/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Programs on an interface that are not dcbpf's: XDP (native and generic),
 * tcx ingress/egress (6.6+) and cls_bpf filters of the clsact qdisc
 * (netlink).  A program is dcbpf's when its name starts with "dc_" (every
 * program of the project is named so).  `dcbpf status` lists the others
 * for the interfaces it attached to (docs/deploy.md, "Other BPF programs").
 */
#ifndef DCBPF_LOADER_FOREIGN_H
#define DCBPF_LOADER_FOREIGN_H

#include <stddef.h>
#include <linux/types.h>

struct dc_foreign {
	const char *hook;	/* xdp, xdp_generic, tcx_ingress, tcx_egress, tc_ingress, tc_egress */
	__u32 id;		/* program id (bpftool prog show id ID) */
	__u32 prio;		/* cls_bpf filter priority; 0 elsewhere */
	char name[16];		/* program name, "" if unreadable */
};

/* Up to max foreign programs on ifname in netns (NULL = current); returns
 * how many, or a negative errno with why set. */
int dc_foreign_list(const char *netns, const char *ifname, struct dc_foreign *out, int max, char *why,
		    size_t whylen);

#endif
