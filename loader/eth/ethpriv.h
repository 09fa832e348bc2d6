/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Inside loader/eth/: the options the commands parse (ethctl.c), the work
 * they call (ethhost.c, ethleaf.c: no printing, a struct dc_err with the
 * reason), the pin layout both share (ethpins.c) and the output (ethstat.c).
 *
 * One object per namespace, its maps pinned by name under
 * <pin_dir>/eth/<netns>/ with its links (<ifname>_egress, <ifname>_ingress,
 * sockops).  Ethereal's TC programs go first on their hook (tcx: before
 * all others; netlink: priority DC_ETH_TC_PRIO, before INT's) and pass
 * with TCX_NEXT, so INT's source runs after them and grows the tag into
 * its option whichever was attached first.
 */
#ifndef DCBPF_LOADER_ETHPRIV_H
#define DCBPF_LOADER_ETHPRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "attach.h"
#include "cmd.h"

struct dc_eth_hcfg;

#define DC_ETH_TC_PRIO 0xdca	/* before INT's 0xdcb on the netlink fallback */

/* `host attach` and `host set` (set leaves leaf, cgroup, no_links, iface unset). */
struct dc_eth_host_args {
	const char *netns;
	int mode;		/* DC_ETH_MODE_* + 1; 0: not given */
	__u32 paths;		/* 0: not given */
	int idle_ms, avoid_ms;	/* -1: unchanged */
	int reps_buf, reps_freeze_ms;	/* -1: unchanged */
	struct dc_opt_list leaf;	/* PREFIX=ID[,PREFIX=ID...] each */
	const char *cgroup;
	bool no_links;
	const char *iface;
};

/* `leaf attach` and `leaf detach` (detach uses netns only). */
struct dc_eth_leaf_args {
	const char *netns;
	const char *ports;	/* IF[,IF...] */
	const char *uplinks;	/* IF=NEXTHOP[,...], tagged in this order */
	bool no_links;
};

/* `status` and `flows`. */
struct dc_eth_ns_args {
	const char *netns;
};

/* ecmp, ethereal, spray by DC_ETH_MODE_*; "?" for anything else. */
const char *dc_eth_mode_name(__u32 mode);

/* ---- pins (ethpins.c; the paths from the registry, pins.h) ---- */
/* <pin_dir>/eth/<netns or "host">; EXIT_USAGE with err for a name bpffs refuses. */
int dc_eth_ns_dir(char *buf, size_t len, const char *pin_dir, const char *netns,
		  struct dc_err *err);
/* A map pinned in one namespace's directory; -errno if absent. */
int dc_eth_open_pinned(const char *dir, const char *name);
/* Remove the host's (host = true) or leaf's map pins of dir, then dir and
 * <pin_dir>/eth if empty. */
void dc_eth_unpin(const char *pin_dir, const char *dir, bool host);
/* DIR/IFNAME_HOOK; EXIT_ERR with err for a name bpffs refuses. */
int dc_eth_link_pin(char *buf, size_t len, const char *dir, const char *ifname,
		    const char *hook, struct dc_err *err);
/* Ethereal's TC program on hook of ifname, first in line; pin: the link. */
int dc_eth_attach_tc(int prog_fd, enum dc_hook hook, const char *netns, const char *ifname,
		     const char *pin, bool no_links, struct dc_err *err);
/* Its pinned link, or its netlink filter (attached without links). */
void dc_eth_detach_tc(enum dc_hook hook, const char *netns, const char *ifname, const char *pin);

/* ---- work (ethhost.c, ethleaf.c): EXIT_OK, or an exit code with err set ---- */
int dc_eth_host_attach(const char *pin_dir, const struct dc_eth_host_args *a, struct dc_err *err);
/* out: the configuration now in force */
int dc_eth_host_set(const char *pin_dir, const struct dc_eth_host_args *a,
		    struct dc_eth_hcfg *out, struct dc_err *err);
int dc_eth_host_detach(const char *pin_dir, const char *netns, const char *ifname,
		       struct dc_err *err);
int dc_eth_leaf_attach(const char *pin_dir, const struct dc_eth_leaf_args *a, struct dc_err *err);
/* err may be NULL (a roll-back) */
int dc_eth_leaf_detach(const char *pin_dir, const char *netns, struct dc_err *err);

/* ---- output (ethstat.c) ---- */
int dc_eth_status_cmd(struct dc_ctx *ctx, int argc, char **argv);
int dc_eth_flows_cmd(struct dc_ctx *ctx, int argc, char **argv);

#endif
