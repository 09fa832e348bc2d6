// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dcbpf metrics [--textfile PATH]: the pinned counters in the Prometheus
 * text format (loader/metrics/), on stdout or written atomically to PATH
 * for node_exporter's textfile collector.  With --json: the exposition as
 * one string, or the file written and its size.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "dcbpf.h"
#include "bpfsys.h"
#include "metrics/metrics.h"

const struct dc_opt dc_metrics_opts[] = {
	{ "textfile", 0, DC_OPT_PATH, DC_FIELD(struct dc_metrics_args, textfile), "PATH",
	  .help = "write PATH.tmp, then rename it to PATH (node_exporter's textfile collector; "
		  "PATH should end in .prom)" },
	{ NULL },
};

static void warn_out(struct dc_ctx *ctx, const struct dc_err *warn)
{
	if (!dc_err_is_set(warn))
		return;
	if (ctx->json)
		jw_str(&ctx->jw, "warning", warn->msg);
	else
		fprintf(ctx->errf, "dcbpf metrics: warning: %s\n", warn->msg);
}

int dc_metrics_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct dc_metrics_args *a = ctx->opts;
	const char *lock_file = dc_cli(ctx)->cfg.daemon.lock_file;
	bool up;
	struct dc_err err;
	char *buf = NULL;
	size_t len = 0;
	int rc;

	(void)argc;
	(void)argv;
	rc = dc_cli_need_root(ctx);
	if (rc)
		return rc;
	up = dc_lock_holder(lock_file) > 0;
	if (a->textfile) {
		if (dc_metrics_write(ctx->pin_dir, up, a->textfile, &err)) {
			ctx->err = err;
			return err.code ? err.code : EXIT_ERR;
		}
		if (ctx->json) {
			jw_obj(&ctx->jw, NULL);
			jw_str(&ctx->jw, "textfile", a->textfile);
			warn_out(ctx, &err);
			jw_end_obj(&ctx->jw);
			jw_done(&ctx->jw);
		} else {
			warn_out(ctx, &err);
		}
		return EXIT_OK;
	}
	rc = dc_metrics_render(ctx->pin_dir, up, &buf, &len, &err);
	if (rc)
		return dc_fail(ctx, EXIT_ERR, "metrics: %s", strerror(-rc));
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_str(&ctx->jw, "format", "prometheus-text-0.0.4");
		jw_str(&ctx->jw, "exposition", buf);
		warn_out(ctx, &err);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
		rc = EXIT_OK;
	} else {
		rc = fwrite(buf, 1, len, ctx->out) == len ? EXIT_OK : EXIT_ERR;
		warn_out(ctx, &err);
	}
	free(buf);
	if (fflush(ctx->out))
		rc = EXIT_ERR;
	return rc == EXIT_OK ? rc : dc_fail(ctx, rc, "writing the metrics failed");
}
