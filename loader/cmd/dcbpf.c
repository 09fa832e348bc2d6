// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dcbpf: the command line to dcbpfd's pinned state.  Everything reads and
 * writes the pinned maps directly, so it works with or without a running
 * daemon.  This file is the program: its global options, config and root
 * check around the command table (table.c).  Commands and exit codes:
 * docs/cli.md.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "cli.h"
#include "config.h"
#include "version.h"
#include "dcbpf.h"

/* ---- the app ----------------------------------------------------------------- */

/*
 * An error of the global options or the config, not of the command that
 * happens to run first: reported as the program's ("dcbpf: why", or the
 * JSON object with "command": "dcbpf"), without a command's usage.
 */
static int global_error(struct dc_ctx *ctx, struct dc_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int global_error(struct dc_ctx *ctx, struct dc_err *err, int code, const char *fmt, ...)
{
	int depth = ctx->depth;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->err.msg, sizeof(ctx->err.msg), fmt, ap);
	va_end(ap);
	ctx->err.code = code;
	ctx->depth = 0;
	dc_report(ctx);
	ctx->depth = depth;
	/* reported: the dispatcher only passes the code on */
	dc_err_clear(err);
	err->code = code;
	return code;
}

/*
 * The config (pin_dir, lock_file, [int] netns), then --pin-dir over it,
 * checked by the same rule as the config's pin_dir.  Runs once, before the
 * first command; never for help or --version, so a broken config does not
 * hide them.  An absent or invalid default config is a note, not an error.
 */
static int libbpf_to_stderr(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int setup(struct dc_ctx *ctx, struct dc_err *err)
{
	struct cli *c = dc_cli(ctx);
	bool explicit_path = dc_ctx_given(ctx, "config");
	struct dc_errbuf eb = { .len = 0 };

	dc_config_defaults(&c->cfg);
	if (dc_config_read(ctx->config, explicit_path, &c->cfg, &eb) < 0) {
		if (explicit_path) {
			/* text: the config's own lines, then the error; JSON:
			 * the first of them in the error object */
			int first = ctx->json ? (int)strcspn(eb.msg, "\n") : 0;

			if (!ctx->json)
				fprintf(ctx->errf, "%s", eb.msg);
			return global_error(ctx, err, EXIT_USAGE, "%s is invalid%s%.*s", ctx->config,
					    ctx->json ? ": " : "", first, eb.msg);
		}
		fprintf(ctx->errf, "%s", eb.msg);
		fprintf(ctx->errf, "dcbpf: ignoring invalid %s; using the default pin_dir and lock_file\n",
			ctx->config);
		dc_config_defaults(&c->cfg);
	}
	if (ctx->pin_dir) {
		const struct dc_param *p = dc_param_find(DC_SCOPE_DAEMON, "pin_dir");
		char why[160];

		if (dc_param_parse(p, ctx->pin_dir, &c->cfg.daemon, why, sizeof(why)))
			return global_error(ctx, err, EXIT_USAGE, "--pin-dir %s: %s", ctx->pin_dir, why);
	}
	ctx->pin_dir = c->cfg.daemon.pin_dir;
	/* libbpf stays quiet: every failure here is reported in our words;
	 * --verbose lets it speak (the verifier's log of a refused program) */
	libbpf_set_print(ctx->verbose ? libbpf_to_stderr : NULL);
	return 0;
}

static int need_root(struct dc_ctx *ctx, struct dc_err *err)
{
	/* the message names the pin dir, which setup settles */
	if (!ctx->setup_done) {
		ctx->setup_done = true;
		if (setup(ctx, err))
			return err->code;
	}
	if (geteuid() == 0)
		return 0;
	return dc_err_set(err, EXIT_ERR, "must be root: pinned maps under %s are root-only (run it with sudo)",
			  ctx->pin_dir);
}

int dc_cli_need_root(struct dc_ctx *ctx)
{
	return need_root(ctx, &ctx->err);
}

static void print_version(struct dc_ctx *ctx)
{
	if (ctx->json)
		dc_version_json(&ctx->jw);
	else
		dc_version_print(ctx->out, ctx->app->name);
}

const struct dc_app dc_dcbpf_app = {
	.name = "dcbpf",
	.version = DCBPF_VERSION,
	.summary = "the command line to dcbpfd's pinned state (works with or without the daemon)",
	.cmds = dc_top_cmds,
	.doc = "CC is powertcp, theta_powertcp, hpcc or timely; keys: `dcbpf params`.  Commands: docs/cli.md.\n",
	.default_config = DC_CONF_DEFAULT,
	.setup = setup,
	.need_root = need_root,
	.print_version = print_version,
};

int main(int argc, char **argv)
{
	static struct cli cli;
	struct dc_ctx ctx;

	dc_ctx_init(&ctx, &dc_dcbpf_app, stdout, stderr);
	ctx.user = &cli;
	return dc_main(&ctx, argc, argv);
}
