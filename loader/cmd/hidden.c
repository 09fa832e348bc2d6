// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Hidden commands that read the command table itself (not in help,
 * completion or the man page):
 *   dcbpf __walk          every command's path, one per line (--json: an
 *                         array), for tests/loader/cmdwalk.sh
 *   dcbpf __gen bash|man  the bash completion script or the man page
 *                         generated from the table (make writes both)
 * They live in the binary so what they print is the table the binary
 * runs: a separate generator would link every domain again for the same.
 */
#include "cli.h"
#include "dcbpf.h"

static int walk_one(const struct dc_cmd *c, const char *const *path, int depth, void *arg)
{
	struct dc_ctx *ctx = arg;
	int i;

	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_arr(&ctx->jw, "path");
		for (i = 0; i <= depth; i++)
			jw_str(&ctx->jw, NULL, path[i]);
		jw_end_arr(&ctx->jw);
		jw_bool(&ctx->jw, "group", c->sub != NULL);
		jw_end_obj(&ctx->jw);
		return 0;
	}
	for (i = 0; i <= depth; i++)
		fprintf(ctx->out, "%s%s", i ? " " : "", path[i]);
	fputc('\n', ctx->out);
	return 0;
}

int dc_walk_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (ctx->json)
		jw_arr(&ctx->jw, NULL);
	dc_cmd_walk(ctx->app->cmds, false, walk_one, ctx);
	if (ctx->json) {
		jw_end_arr(&ctx->jw);
		jw_done(&ctx->jw);
	}
	return EXIT_OK;
}

enum { GEN_BASH, GEN_MAN };

static const struct dc_opt_name gen_whats[] = {
	{ "bash", GEN_BASH },
	{ "man", GEN_MAN },
	{ NULL },
};

const struct dc_opt dc_gen_opts[] = {
	{ "WHAT", 0, DC_OPT_ENUM, DC_FIELD(struct dc_gen_args, what), NULL,
	  .help = "bash: the completion script; man: the section 8 page", .required = true,
	  .flags = DC_OPT_F_POS, .names = gen_whats },
	{ "date", 0, DC_OPT_STR, DC_FIELD(struct dc_gen_args, date), "DATE",
	  .help = "the man page's date (none by default, so the output depends on the table only)" },
	{ NULL },
};

int dc_gen_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct dc_gen_args *a = ctx->opts;

	(void)argc;
	(void)argv;
	if (a->what == GEN_BASH)
		dc_gen_bash_completion(ctx->out, ctx->app);
	else
		dc_gen_man(ctx->out, ctx->app, a->date);
	return fflush(ctx->out) ? dc_fail(ctx, EXIT_ERR, "writing the output failed") : EXIT_OK;
}
