/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `dcbpf rdcn`: periodic circuit schedules and the rotor model's bounds
 * (rdcn.h) on the command line; DC_RDCN_CMD is its line in the top-level
 * table.
 */
#ifndef DCBPF_RDCN_RDCNCMD_H
#define DCBPF_RDCN_RDCNCMD_H

#include "cmd.h"

extern const struct dc_cmd dc_rdcn_cmds[];

struct dc_rd_attach_args {
	const char *netns;		/* the circuit switch's namespace; NULL: our own */
	struct dc_opt_list ports;	/* IF=TOR/UP@MAC */
	const char *schedule;		/* published after the attach; NULL: none */
	__u64 guard_ms;
};

struct dc_rd_publish_args {
	const char *file;
	const char *netns;
	__u64 guard_ms;
};

struct dc_rd_detach_args {
	const char *netns;
};

struct dc_rd_voq_args {
	const char *netns;		/* the circuit switch's namespace (its pins); NULL: our own */
	struct dc_opt_list uplinks;	/* NS/IF=TOR/UP */
	__u64 circuit_mbps, guard_us, voq_bytes, ms;
	const char *ready;		/* a file created once the gates run; NULL: none */
};

/* voq.c */
int dc_rd_voq_run(struct dc_ctx *ctx, const struct dc_rd_voq_args *a);

/* rdattach.c */
int dc_rd_attach_run(struct dc_ctx *ctx, const struct dc_rd_attach_args *a);
int dc_rd_publish_run(struct dc_ctx *ctx, const struct dc_rd_publish_args *a);
int dc_rd_detach_run(struct dc_ctx *ctx, const struct dc_rd_detach_args *a);
/* `rdcn status` takes the same options as detach */
int dc_rd_status_run(struct dc_ctx *ctx, const struct dc_rd_detach_args *a);

#define DC_RDCN_CMD \
	{ "rdcn", .sub = dc_rdcn_cmds, \
	  .summary = "reconfigurable networks: circuit schedules, bounds, the circuit switch (docs/rdcn.md)" }

#endif
