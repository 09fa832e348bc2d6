// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf ethereal …`: Ethereal load balancing (docs/ethereal.md), the
 * command tables.  Each subcommand takes only the options it uses; the
 * work is in ethhost.c and ethleaf.c, the output in ethstat.c.
 */
#include <stdio.h>

#include "dcbpf/ethereal.h"
#include "cli.h"
#include "cmd.h"
#include "eth/ethctl.h"
#include "eth/ethpriv.h"

/* Stored as DC_ETH_MODE_* + 1, so that 0 says "not given" (host set). */
static const struct dc_opt_name eth_modes[] = {
	{ "ethereal", DC_ETH_MODE_ETHEREAL + 1 },
	{ "spray", DC_ETH_MODE_SPRAY + 1 },
	{ "reps", DC_ETH_MODE_REPS + 1 },
	{ "ecmp", DC_ETH_MODE_ECMP + 1 },
	{ "off", DC_ETH_MODE_ECMP + 1 },
	{ NULL },
};

#define NETNS_OPT(T, req, what) \
	{ "netns", 0, DC_OPT_STR, DC_FIELD(T, netns), "NS", .help = what, .required = req }
#define MS_OPT(name, field, what) \
	{ name, 0, DC_OPT_S64, DC_FIELD(struct dc_eth_host_args, field), "MS", .help = what, \
	  .def = "-1", .smin = -1, .smax = 3600000 }
#define HOST_CFG_OPTS(req) \
	{ "mode", 0, DC_OPT_ENUM, DC_FIELD(struct dc_eth_host_args, mode), NULL, \
	  .help = "how flows pick a path: one least-loaded path per flow, per packet, per " \
		  "packet by recycled entropy (REPS), or the kernel's ECMP (off)", \
	  .required = req, .names = eth_modes }, \
	{ "paths", 0, DC_OPT_U64, DC_FIELD(struct dc_eth_host_args, paths), "S", \
	  .help = "uplinks of the host's leaf (the tag has 4 bits)", .required = req, \
	  .umin = 1, .umax = DC_ETH_TAG_MAX }, \
	MS_OPT("idle-ms", idle_ms, "a flow idle this long is released (-1: unchanged, 2000 " \
	       "at attach)"), \
	MS_OPT("avoid-ms", avoid_ms, "a path that timed out is avoided this long (-1: " \
	       "unchanged, 1000 at attach)"), \
	{ "reps-buf", 0, DC_OPT_S64, DC_FIELD(struct dc_eth_host_args, reps_buf), "N", \
	  .help = "reps: recycled entropies a flow keeps (-1: unchanged, 8 at attach)", \
	  .def = "-1", .smin = -1, .smax = DC_REPS_BUF_MAX }, \
	MS_OPT("reps-freeze-ms", reps_freeze_ms, "reps: after a timeout a flow reuses its " \
	       "entropies without exploring this long (-1: unchanged, 0 at attach: never)")

static const struct dc_opt host_attach_opts[] = {
	{ "IFACE", 0, DC_OPT_STR, DC_FIELD(struct dc_eth_host_args, iface), NULL,
	  .help = "the host's interface", .required = true, .flags = DC_OPT_F_POS, .umax = 15 },
	NETNS_OPT(struct dc_eth_host_args, true, "the host's network namespace"),
	HOST_CFG_OPTS(true),
	{ "leaf", 0, DC_OPT_LIST, DC_FIELD(struct dc_eth_host_args, leaf), "PREFIX=ID[,...]",
	  .help = "destinations behind leaf ID (0..15)", .required = true },
	{ "cgroup", 0, DC_OPT_DIR, DC_FIELD(struct dc_eth_host_args, cgroup), "DIR",
	  .help = "cgroup v2 directory for the RTO re-path (default: the cgroup2 root)" },
	{ "no-links", 0, DC_OPT_FLAG, DC_FIELD(struct dc_eth_host_args, no_links), NULL,
	  .help = "attach by netlink (clsact) even where tcx links exist" },
	{ NULL },
};

static const struct dc_opt host_set_opts[] = {
	NETNS_OPT(struct dc_eth_host_args, true, "the host's network namespace"),
	HOST_CFG_OPTS(false),
	{ NULL },
};

static const struct dc_opt host_detach_opts[] = {
	{ "IFACE", 0, DC_OPT_STR, DC_FIELD(struct dc_eth_host_args, iface), NULL,
	  .help = "the host's interface", .required = true, .flags = DC_OPT_F_POS, .umax = 15 },
	NETNS_OPT(struct dc_eth_host_args, true, "the host's network namespace"),
	{ NULL },
};

static const struct dc_opt leaf_attach_opts[] = {
	NETNS_OPT(struct dc_eth_leaf_args, true, "the leaf's network namespace"),
	{ "ports", 0, DC_OPT_STR, DC_FIELD(struct dc_eth_leaf_args, ports), "IF[,IF...]",
	  .help = "host-facing ports, where tagged packets come in", .required = true },
	{ "uplinks", 0, DC_OPT_STR, DC_FIELD(struct dc_eth_leaf_args, uplinks),
	  "IF=NEXTHOP[,...]", .help = "uplinks and the spine's IPv4 address on each, path 1 "
	  "first", .required = true },
	{ "no-links", 0, DC_OPT_FLAG, DC_FIELD(struct dc_eth_leaf_args, no_links), NULL,
	  .help = "attach by netlink (clsact) even where tcx links exist" },
	{ NULL },
};

static const struct dc_opt leaf_detach_opts[] = {
	NETNS_OPT(struct dc_eth_leaf_args, true, "the leaf's network namespace"),
	{ NULL },
};

static const struct dc_opt status_opts[] = {
	NETNS_OPT(struct dc_eth_ns_args, false, "only this namespace"),
	{ NULL },
};

static const struct dc_opt flows_opts[] = {
	NETNS_OPT(struct dc_eth_ns_args, true, "the host's network namespace"),
	{ NULL },
};

/* JSON mode: what an attach or detach did, {"netns", "role", "iface"?, "attached"|"detached"}
 * (text mode: silent, as such commands are). */
static int done(struct dc_ctx *ctx, int rc, const char *netns, const char *role,
		const char *iface, bool attached)
{
	if (rc || !ctx->json)
		return rc;
	jw_obj(&ctx->jw, NULL);
	jw_str(&ctx->jw, "netns", netns);
	jw_str(&ctx->jw, "role", role);
	if (iface)
		jw_str(&ctx->jw, "iface", iface);
	jw_bool(&ctx->jw, attached ? "attached" : "detached", true);
	jw_end_obj(&ctx->jw);
	jw_done(&ctx->jw);
	return EXIT_OK;
}

static int host_attach_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct dc_eth_host_args *a = ctx->opts;

	(void)argc;
	(void)argv;
	return done(ctx, dc_eth_host_attach(ctx->pin_dir, a, &ctx->err), a->netns, "host",
		    a->iface, true);
}

static int host_set_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct dc_eth_host_args *a = ctx->opts;
	struct dc_eth_hcfg c;
	int rc = dc_eth_host_set(ctx->pin_dir, a, &c, &ctx->err);

	(void)argc;
	(void)argv;
	if (rc || !ctx->json)
		return rc;
	jw_obj(&ctx->jw, NULL);
	jw_str(&ctx->jw, "netns", a->netns);
	jw_str(&ctx->jw, "mode", dc_eth_mode_name(c.mode));
	jw_u64(&ctx->jw, "paths", c.n_uplinks);
	jw_u64(&ctx->jw, "idle_ms", c.idle_ms);
	jw_u64(&ctx->jw, "avoid_ms", c.avoid_ms);
	if (c.mode == DC_ETH_MODE_REPS) {
		jw_u64(&ctx->jw, "reps_buf", dc_reps_size(c.reps_buf));
		jw_u64(&ctx->jw, "reps_freeze_ms", c.reps_freeze_ms);
	}
	jw_end_obj(&ctx->jw);
	jw_done(&ctx->jw);
	return EXIT_OK;
}

static int host_detach_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct dc_eth_host_args *a = ctx->opts;

	(void)argc;
	(void)argv;
	return done(ctx, dc_eth_host_detach(ctx->pin_dir, a->netns, a->iface, &ctx->err), a->netns, "host",
		    a->iface, false);
}

static int leaf_attach_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct dc_eth_leaf_args *a = ctx->opts;

	(void)argc;
	(void)argv;
	return done(ctx, dc_eth_leaf_attach(ctx->pin_dir, a, &ctx->err), a->netns, "leaf", NULL,
		    true);
}

static int leaf_detach_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct dc_eth_leaf_args *a = ctx->opts;

	(void)argc;
	(void)argv;
	return done(ctx, dc_eth_leaf_detach(ctx->pin_dir, a->netns, &ctx->err), a->netns, "leaf", NULL,
		    false);
}

#define ROOT DC_CMD_F_ROOT

static const struct dc_cmd host_cmds[] = {
	{ "attach", host_attach_cmd, host_attach_opts, sizeof(struct dc_eth_host_args),
	  .summary = "tag the host's flows with a path (loads the host programs)", .flags = ROOT,
	  .doc = "One host per namespace; its RTO re-path runs as sockops on --cgroup." },
	{ "set", host_set_cmd, host_set_opts, sizeof(struct dc_eth_host_args),
	  .summary = "change an attached host's mode, paths or timers", .flags = ROOT },
	{ "detach", host_detach_cmd, host_detach_opts, sizeof(struct dc_eth_host_args),
	  .summary = "take the host programs off and unpin their maps", .flags = ROOT },
	{ NULL },
};

static const struct dc_cmd leaf_cmds[] = {
	{ "attach", leaf_attach_cmd, leaf_attach_opts, sizeof(struct dc_eth_leaf_args),
	  .summary = "steer tagged packets to their uplink (loads the leaf program)", .flags = ROOT,
	  .doc = "Uplinks are tagged in the order given (first = path 1); at most 15." },
	{ "detach", leaf_detach_cmd, leaf_detach_opts, sizeof(struct dc_eth_leaf_args),
	  .summary = "take the leaf program off every port and unpin its maps", .flags = ROOT },
	{ NULL },
};

const struct dc_cmd dc_eth_cmds[] = {
	{ "host", .sub = host_cmds, .summary = "path tagging on a host" },
	{ "leaf", .sub = leaf_cmds, .summary = "steering on a leaf switch" },
	{ "status", dc_eth_status_cmd, status_opts, sizeof(struct dc_eth_ns_args),
	  .summary = "every attached host and leaf: configuration, loads, paths, counters",
	  .flags = ROOT },
	{ "flows", dc_eth_flows_cmd, flows_opts, sizeof(struct dc_eth_ns_args),
	  .summary = "a host's tracked flows: path, leaf, state, bytes", .flags = ROOT },
	{ NULL },
};
