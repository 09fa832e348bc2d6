/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A sample program on the command table (loader/lib/cmd.h) for its tests:
 * commands, subcommands, option tables, hooks, and RUN(...) to run it with
 * its output and errors captured (out_buf, err_buf, rc).
 */
#ifndef DCBPF_TESTS_CMDSAMPLE_H
#define DCBPF_TESTS_CMDSAMPLE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "loader/lib/cli.h"
#include "loader/lib/cmd.h"

struct up_args {
	const char *name;
	uint32_t ports, rate_mbps;
	int xdp_mode;
	struct dc_opt_rest kv;
};
struct name_args {
	const char *name;
};
struct get_args {
	const char *key;
};
struct set_args {
	struct dc_opt_rest kv;
};
struct sim_args {
	int alg;
	double load;
	const char *out;
};

static const struct dc_opt_name xdp_modes[] = { { "generic", 0 }, { "native", 1 }, { NULL } };
static const struct dc_opt_name algs[] = { { "dt", 0 }, { "lqd", 1 }, { "credence", 2 }, { NULL } };

static const struct dc_opt up_opts[] = {
	{ "NAME", 0, DC_OPT_STR, DC_FIELD(struct up_args, name), NULL, .help = "the switch",
	  .required = true, .flags = DC_OPT_F_POS, .umax = 15 },
	{ "KEY=VALUE", 0, DC_OPT_REST, DC_FIELD(struct up_args, kv), NULL,
	  .help = "switch parameters (demo switch params)" },
	{ "ports", 'p', DC_OPT_U64, DC_FIELD(struct up_args, ports), "N", .help = "ports to attach",
	  .required = true, .umin = 1, .umax = 64 },
	{ "rate-mbps", 0, DC_OPT_U64, DC_FIELD(struct up_args, rate_mbps), "N",
	  .help = "line rate of every port", .def = "1000", .umin = 1, .umax = 400000 },
	{ "xdp-mode", 0, DC_OPT_ENUM, DC_FIELD(struct up_args, xdp_mode), NULL,
	  .help = "how XDP attaches", .def = "generic", .names = xdp_modes },
	{ NULL },
};
static const struct dc_opt name_opts[] = {
	{ "NAME", 0, DC_OPT_STR, DC_FIELD(struct name_args, name), NULL, .help = "the switch",
	  .required = true, .flags = DC_OPT_F_POS },
	{ NULL },
};
static const struct dc_opt no_opts[] = { { NULL } };
static const struct dc_opt get_opts[] = {
	{ "KEY", 0, DC_OPT_STR, DC_FIELD(struct get_args, key), "CC[.KEY]", .help = "what to read",
	  .flags = DC_OPT_F_POS },
	{ NULL },
};
static const struct dc_opt set_opts[] = {
	{ "KEY=VALUE", 0, DC_OPT_REST, DC_FIELD(struct set_args, kv), "CC.KEY=VALUE",
	  .help = "assignments, all or nothing", .required = true, .flags = DC_OPT_F_VERBATIM },
	{ NULL },
};
static const struct dc_opt sim_opts[] = {
	{ "alg", 0, DC_OPT_ENUM, DC_FIELD(struct sim_args, alg), NULL, .help = "buffer sharing",
	  .def = "dt", .names = algs },
	{ "load", 0, DC_OPT_DOUBLE, DC_FIELD(struct sim_args, load), "L", .help = "offered load",
	  .def = "0.4", .dmin = 0, .dmax = 1 },
	{ "out", 'o', DC_OPT_DIR, DC_FIELD(struct sim_args, out), NULL, .help = "CSV files here" },
	{ NULL },
};

static int setups;

static inline int fn_status(struct dc_ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_bool(&ctx->jw, "ok", true);
		jw_str(&ctx->jw, "pin_dir", ctx->pin_dir ? ctx->pin_dir : "");
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		fprintf(ctx->out, "status ok pin_dir=%s\n", ctx->pin_dir ? ctx->pin_dir : "-");
	}
	return EXIT_OK;
}

static inline int fn_get(struct dc_ctx *ctx, int argc, char **argv)
{
	struct get_args *a = ctx->opts;

	(void)argc;
	(void)argv;
	if (a->key && !strcmp(a->key, "missing"))
		return dc_fail(ctx, EXIT_ERR, "no entry for '%s'", a->key);
	if (a->key && !strncmp(a->key, "bad", 3))
		return dc_fail(ctx, EXIT_USAGE, "'%s' is not a key", a->key);
	fprintf(ctx->out, "get %s\n", a->key ? a->key : "(all)");
	return EXIT_OK;
}

static inline int fn_set(struct dc_ctx *ctx, int argc, char **argv)
{
	struct set_args *a = ctx->opts;
	int i;

	(void)argc;
	(void)argv;
	fprintf(ctx->out, "set");
	for (i = 0; i < a->kv.argc; i++)
		fprintf(ctx->out, " %s", a->kv.argv[i]);
	fprintf(ctx->out, "\n");
	return EXIT_OK;
}

static inline int fn_up(struct dc_ctx *ctx, int argc, char **argv)
{
	struct up_args *a = ctx->opts;

	(void)argc;
	(void)argv;
	fprintf(ctx->out, "up %s ports=%u rate=%u mode=%d kv=%d pin_dir=%s\n", a->name, a->ports,
		a->rate_mbps, a->xdp_mode, a->kv.argc, ctx->pin_dir ? ctx->pin_dir : "-");
	return EXIT_OK;
}

static inline int fn_down(struct dc_ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(ctx->out, "down %s\n", ((struct name_args *)ctx->opts)->name);
	return EXIT_OK;
}

static inline int fn_list(struct dc_ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(ctx->out, "list\n");
	return EXIT_OK;
}

static inline int fn_sim(struct dc_ctx *ctx, int argc, char **argv)
{
	struct sim_args *a = ctx->opts;

	(void)argc;
	(void)argv;
	fprintf(ctx->out, "sim alg=%d load=%g json=%d\n", a->alg, a->load, ctx->json);
	return EXIT_OK;
}

/* parses its own arguments: sees them as given */
static inline int fn_trace(struct dc_ctx *ctx, int argc, char **argv)
{
	int i;

	fprintf(ctx->out, "trace");
	for (i = 0; i < argc; i++)
		fprintf(ctx->out, " %s", argv[i]);
	fprintf(ctx->out, "\n");
	return EXIT_OK;
}

static const struct dc_cmd sw_cmds[] = {
	{ "up", fn_up, up_opts, sizeof(struct up_args), .summary = "bring an emulated switch up",
	  .flags = DC_CMD_F_ROOT, .doc = "Attaches XDP to every port and pins the switch's maps." },
	{ "down", fn_down, name_opts, sizeof(struct name_args), .summary = "take it down", .flags = DC_CMD_F_ROOT },
	{ "list", fn_list, no_opts, 0, .summary = "the switches that are up" },
	{ NULL },
};

static const struct dc_cmd cmds[] = {
	{ "status", fn_status, no_opts, 0, .summary = "daemon, CCs, pinned maps" },
	{ "get", fn_get, get_opts, sizeof(struct get_args), .summary = "live parameters" },
	{ "set", fn_set, set_opts, sizeof(struct set_args), .summary = "change live parameters" },
	{ "switch", NULL, NULL, 0, .summary = "emulated switches", .sub = sw_cmds },
	{ "sim", fn_sim, sim_opts, sizeof(struct sim_args), .summary = "buffer-sharing simulator" },
	{ "trace", fn_trace, NULL, 0, .summary = "stream per-ACK decisions",
	  .usage = "[--csv] [--count N]\n--switch NAME [--csv]" },
	{ "secret", fn_list, no_opts, 0, .summary = "not listed", .flags = DC_CMD_F_HIDDEN },
	{ NULL },
};

static bool root_ok = true;

static inline int need_root(struct dc_ctx *ctx, struct dc_err *e)
{
	(void)ctx;
	if (root_ok)
		return 0;
	return dc_err_set(e, EXIT_ERR, "needs root");
}

static inline int setup(struct dc_ctx *ctx, struct dc_err *e)
{
	(void)e;
	setups++;
	if (!ctx->pin_dir)
		ctx->pin_dir = "/sys/fs/bpf/demo";
	return 0;
}

static const struct dc_app app = {
	.name = "demo",
	.version = "1.2.3",
	.summary = "a sample program",
	.cmds = cmds,
	.default_config = "/etc/demo.conf",
	.setup = setup,
	.need_root = need_root,
};

/* A second program: an old entry point that answers its own --help
 * (DC_CMD_F_RAW) next to one that does not, and its own --version. */
static const struct dc_cmd old_cmds[] = {
	{ "old", fn_trace, NULL, 0, .summary = "an entry point not on a table yet",
	  .flags = DC_CMD_F_RAW },
	{ "new", fn_trace, NULL, 0, .summary = "parses its own arguments, help from the table" },
	{ NULL },
};

static inline void long_version(struct dc_ctx *ctx)
{
	if (ctx->json)
		fprintf(ctx->out, "{\"version\":\"1.2.3\",\"git\":\"abc\"}\n");
	else
		fprintf(ctx->out, "old 1.2.3\ngit: abc\n");
}

static const struct dc_app old_app = {
	.name = "old",
	.version = "1.2.3",
	.summary = "a program in the middle of moving onto tables",
	.cmds = old_cmds,
	.print_version = long_version,
};

/* ---- running it ---- */

static const struct dc_app *run_app = &app;

static char *out_buf, *err_buf;
static int rc;

static inline int run_v(char **words)
{
	struct dc_ctx ctx;
	size_t olen = 0, elen = 0;
	FILE *o, *e;
	char *argv[40];
	int argc = 1;

	free(out_buf);
	free(err_buf);
	out_buf = err_buf = NULL;
	o = open_memstream(&out_buf, &olen);
	e = open_memstream(&err_buf, &elen);
	argv[0] = "demo";
	while (words[argc - 1] && argc < 39) {
		argv[argc] = words[argc - 1];
		argc++;
	}
	argv[argc] = NULL;
	dc_ctx_init(&ctx, run_app, o, e);
	setups = 0;
	rc = dc_main(&ctx, argc, argv);
	fclose(o);
	fclose(e);
	return rc;
}
#define RUN(...) run_v((char *[]){ __VA_ARGS__, NULL })

static inline bool starts(const char *s, const char *p)
{
	return s && !strncmp(s, p, strlen(p));
}

#endif
