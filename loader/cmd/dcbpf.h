/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * dcbpf, the CLI (loader/cmd/): its app state, the top-level command table
 * and the commands this folder owns.  Only dcbpf links these files.
 */
#ifndef DCBPF_CMD_DCBPF_H
#define DCBPF_CMD_DCBPF_H

#include "cmd.h"
#include "config.h"

/* ctx->user: the config read by the app's setup (dcbpf.c). */
struct cli {
	struct dc_config cfg;	/* [daemon] gives pin_dir and lock_file */
};

static inline struct cli *dc_cli(struct dc_ctx *ctx)
{
	return ctx->user;
}

extern const struct dc_app dc_dcbpf_app;
extern const struct dc_cmd dc_top_cmds[];	/* table.c */

/* The root check of DC_CMD_F_ROOT, for commands that validate their
 * arguments first: 0, or the exit code with ctx->err set. */
int dc_cli_need_root(struct dc_ctx *ctx);

/* metrics (metricscmd.c) */
struct dc_metrics_args {
	const char *textfile;		/* NULL: stdout */
};
extern const struct dc_opt dc_metrics_opts[];
int dc_metrics_cmd(struct dc_ctx *ctx, int argc, char **argv);

/* The CC commands (status, get, set, dump, params, attach, detach). */
struct dc_cc_get_args {
	const char *key;		/* NULL: every key of every CC */
};
struct dc_cc_set_args {
	struct dc_opt_rest kv;		/* KEY=VALUE... */
};
extern const struct dc_opt dc_cc_no_opts[];	/* { NULL }: no options */
extern const struct dc_opt dc_cc_get_opts[];
extern const struct dc_opt dc_cc_set_opts[];
extern const struct dc_cmd dc_cc_dump_cmds[];	/* flows, stats, cfg */
int dc_cc_status_cmd(struct dc_ctx *ctx, int argc, char **argv);
int dc_cc_get_cmd(struct dc_ctx *ctx, int argc, char **argv);
int dc_cc_set_cmd(struct dc_ctx *ctx, int argc, char **argv);
int dc_cc_params_cmd(struct dc_ctx *ctx, int argc, char **argv);
/* attach and detach with dc_int_attach_opts (int/intctl.h) */
int dc_host_attach_cmd(struct dc_ctx *ctx, int argc, char **argv);

#define DC_CC_STATUS_DOC \
	"The daemon (running or not, its PID), the pin directory, the kernel ABI and object\n" \
	"variant, registration mode, each congestion control and whether its registration\n" \
	"is pinned here, the pinned maps, counters, telemetry attachments, the switches, and\n" \
	"the kernel features dcbpf uses with what the running kernel lacks."
#define DC_CC_SET_DOC \
	"Every assignment is validated with the configuration file's rules before anything\n" \
	"is written; the change lasts until the next reload or restart of the daemon.\n" \
	"CC is powertcp or theta_powertcp; the keys: dcbpf params."
#define DC_HOST_ATTACH_DOC \
	"In the config's [int] netns unless --netns names one ('' for this one); all or\n" \
	"nothing.  Pinned like the daemon's own, so a running or restarted dcbpfd adopts them."

/* Hidden (hidden.c): the table walked and the files generated from it. */
struct dc_gen_args {
	int what;			/* bash or man */
	const char *date;		/* the man page's, or NULL */
};
extern const struct dc_opt dc_gen_opts[];
int dc_walk_cmd(struct dc_ctx *ctx, int argc, char **argv);
int dc_gen_cmd(struct dc_ctx *ctx, int argc, char **argv);

#endif
