/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * s-PERC on live interfaces and hosts: the link program attached and
 * configured per interface, the sender's control loop, and the status of
 * both (loader/perc/perchost.c; docs/perc.md).
 */
#ifndef DCBPF_PERC_PERCHOST_H
#define DCBPF_PERC_PERCHOST_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "cmd.h"
#include "err.h"
#include "opts.h"

/* maps/perc.h's sizes (that header defines the maps themselves). */
#define DC_PERC_LINKS_MAX 256
#define DC_PERC_PORTS_MAX 256

struct dc_perc_attach_args {
	const char *netns;	/* NULL: our own */
	const char *dev;
	__u64 link;		/* index and link id, 1..255 */
	__u64 cap_kbps;		/* C: capacity for data */
	__u64 round_us;		/* round; 0: the control plane ends rounds */
	int mode;		/* DC_PERC_M_* */
	bool host;		/* a host port: reflect at the receiver */
};

struct dc_perc_detach_args {
	const char *netns;
};

struct dc_perc_host_args {
	const char *cgroup;
	const char *netns;		/* the host's namespace; NULL: our own */
	struct dc_opt_list paths;	/* A.B.C.D/LEN=HOPS */
	__u64 interval_us;		/* Tx_ctrl: one control packet per flow per interval */
	__u64 rto_us;			/* RTO_ctrl: restart a flow whose packet is this late */
	__u64 line_kbps;
	__u64 start_share;
	__u64 priority;			/* SO_PRIORITY of the control packets */
	__u64 dscp;			/* DSCP of the control packets (a switch's queue) */
	__u64 wire_ovh_bytes;		/* per data segment on the wire beside its payload */
	__u64 min_bytes;		/* control starts once this much is acknowledged */
	__u64 duration_ms;		/* 0: until SIGINT/SIGTERM */
};

/* Upper bound of a capacity: the packet's u32 kbps less the value of ∞. */
#define DC_PERC_CAP_MAX_KBPS 4294967294ULL

/* One link of a live capacity change: by interface (dev) or, dev "", by
 * link index. */
struct dc_perc_cap {
	char dev[16];		/* IFNAMSIZ */
	__u32 link;		/* filled in from dev */
	__u64 cap_kbps;		/* new C */
	__u64 old_kbps;		/* C before (out) */
};

struct dc_perc_set_args {
	const char *netns;
	const char *dev;
	__u64 link;
	__u64 cap_kbps;
};

struct dc_perc_status_args {
	const char *netns;
};

int dc_perc_ns_dir(char *buf, size_t len, const char *pin_dir, const char *netns,
		   struct dc_err *err);
int dc_perc_attach(const char *pin_dir, const struct dc_perc_attach_args *a, struct dc_err *err);
int dc_perc_detach(const char *pin_dir, const char *netns, struct dc_err *err);
int dc_perc_set_caps(const char *pin_dir, const char *netns, struct dc_perc_cap *c, unsigned int n,
		     struct dc_err *err);
int dc_perc_host_run(struct dc_ctx *ctx, const struct dc_perc_host_args *a);
int dc_perc_status_run(struct dc_ctx *ctx, const struct dc_perc_status_args *a);

#endif
