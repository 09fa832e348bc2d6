// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The command table's dispatcher, context and walk (cmd.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd.h"
#include "suggest.h"

const struct dc_opt dc_global_opts[] = {
	{ "json", 'j', DC_OPT_FLAG, DC_FIELD(struct dc_ctx, json), NULL,
	  .help = "JSON output (errors too: {\"error\": ..., \"code\": N})" },
	{ "pin-dir", 'd', DC_OPT_DIR, DC_FIELD(struct dc_ctx, pin_dir), "DIR",
	  .help = "pinned state under DIR, over the config's", .umax = 255 },
	{ "config", 'c', DC_OPT_PATH, DC_FIELD(struct dc_ctx, config), "FILE",
	  .help = "read pin_dir and lock_file from FILE" },
	{ "verbose", 'v', DC_OPT_FLAG, DC_FIELD(struct dc_ctx, verbose), NULL,
	  .help = "libbpf's messages on stderr (a program the kernel refuses: the verifier's log)" },
	{ "version", 'V', DC_OPT_FLAG, DC_FIELD(struct dc_ctx, version), NULL,
	  .help = "print the version and exit" },
	{ "help", 'h', DC_OPT_FLAG, DC_FIELD(struct dc_ctx, help), NULL,
	  .help = "print help and exit" },
	{ NULL },
};

void dc_ctx_init(struct dc_ctx *ctx, const struct dc_app *app, FILE *out, FILE *errf)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->app = app;
	ctx->config = app->default_config;
	ctx->out = out ? out : stdout;
	ctx->errf = errf ? errf : stderr;
	jw_init(&ctx->jw, ctx->out);
}

bool dc_ctx_given(const struct dc_ctx *ctx, const char *name)
{
	const struct dc_opt *o = dc_opt_find(dc_global_opts, name);

	return o && ctx->global_given[o - dc_global_opts];
}

void dc_ctx_path(const struct dc_ctx *ctx, char *buf, size_t len)
{
	size_t k;
	int i;

	snprintf(buf, len, "%s", ctx->app->name);
	for (i = 0; i < ctx->depth; i++) {
		k = strlen(buf);
		snprintf(buf + k, len - k, " %s", ctx->path[i]);
	}
}

int dc_fail(struct dc_ctx *ctx, int code, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(ctx->err.msg, sizeof(ctx->err.msg), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(ctx->err.msg))
		memcpy(ctx->err.msg + sizeof(ctx->err.msg) - 4, "...", 4);
	ctx->err.code = code;
	return code;
}

const struct dc_cmd *dc_cmd_find(const struct dc_cmd *tab, const char *name)
{
	for (; tab && tab->name; tab++)
		if (!strcmp(tab->name, name))
			return tab;
	return NULL;
}

/* ---- reporting ------------------------------------------------------------------ */

void dc_report(struct dc_ctx *ctx)
{
	char path[160];

	if (!dc_err_is_set(&ctx->err))
		return;
	dc_ctx_path(ctx, path, sizeof(path));
	if (ctx->json) {
		struct jw j;

		/* its own writer: a command may have left ctx->jw mid-document */
		jw_init(&j, ctx->out);
		jw_obj(&j, NULL);
		jw_str(&j, "error", ctx->err.msg);
		jw_u64(&j, "code", (__u64)ctx->err.code);
		jw_str(&j, "command", path);
		jw_end_obj(&j);
		jw_done(&j);
		return;
	}
	fprintf(ctx->errf, "%s: %s\n", path, ctx->err.msg);
	fflush(ctx->errf);
}

/* A usage error: the reason, then (text) the usage lines to read next. */
static int usage_error(struct dc_ctx *ctx, const struct dc_cmd *cmd)
{
	ctx->err.code = EXIT_USAGE;
	dc_report(ctx);
	if (!ctx->json)
		dc_usage(ctx->errf, ctx->app, cmd, ctx->path, ctx->depth);
	return EXIT_USAGE;
}

static int help(struct dc_ctx *ctx, const struct dc_cmd *cmd)
{
	dc_help(ctx->out, ctx->app, cmd, ctx->path, ctx->depth, ctx->json);
	fflush(ctx->out);
	return EXIT_OK;
}

static int version(struct dc_ctx *ctx)
{
	const char *v = ctx->app->version ? ctx->app->version : "unknown";

	if (ctx->app->print_version) {
		ctx->app->print_version(ctx);
		fflush(ctx->out);
		return EXIT_OK;
	}
	if (ctx->json) {
		struct jw j;

		jw_init(&j, ctx->out);
		jw_obj(&j, NULL);
		jw_str(&j, "name", ctx->app->name);
		jw_str(&j, "version", v);
		jw_end_obj(&j);
		jw_done(&j);
	} else {
		fprintf(ctx->out, "%s %s\n", ctx->app->name, v);
	}
	return EXIT_OK;
}

/* ---- running a command --------------------------------------------------------------- */

static int root_check(struct dc_ctx *ctx)
{
	if (ctx->app->need_root)
		return ctx->app->need_root(ctx, &ctx->err);
	if (geteuid() != 0)
		return dc_err_set(&ctx->err, EXIT_ERR, "needs root (CAP_BPF and CAP_NET_ADMIN)");
	return 0;
}

static int run(struct dc_ctx *ctx, const struct dc_cmd *cmd, int argc, char **argv)
{
	struct dc_opt_set sets[2] = {
		{ .tab = cmd->opts },
		{ .tab = dc_global_opts, .out = ctx, .given = ctx->global_given },
	};
	void *opts = NULL;
	int rc;

	ctx->cmd = cmd;
	if (cmd->opts) {
		opts = calloc(1, cmd->opts_size ? cmd->opts_size : 1);
		if (!opts)
			return dc_fail(ctx, EXIT_ERR, "out of memory"), dc_report(ctx), EXIT_ERR;
		sets[0].out = opts;
		if (dc_opts_defaults(cmd->opts, opts, &ctx->err)) {
			free(opts);
			return usage_error(ctx, cmd);
		}
		rc = dc_opts_parse_sets(sets, 2, argc, argv, 0, NULL, &ctx->err);
		if (rc == DC_OPTS_HELP || (rc == DC_OPTS_OK && ctx->version)) {
			free(opts);
			return rc == DC_OPTS_HELP ? help(ctx, cmd) : version(ctx);
		}
		if (rc != DC_OPTS_OK) {
			free(opts);
			return usage_error(ctx, cmd);
		}
	} else if (!(cmd->flags & DC_CMD_F_RAW) && argc > 1 &&
		   (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		return help(ctx, cmd);
	}
	ctx->opts = opts;
	rc = 0;
	if (cmd->flags & DC_CMD_F_ROOT)
		rc = root_check(ctx);
	if (!rc && !ctx->setup_done && ctx->app->setup) {
		ctx->setup_done = true;
		rc = ctx->app->setup(ctx, &ctx->err);
	}
	if (!rc) {
		/* the JSON writer follows out, which setup may not change */
		jw_init(&ctx->jw, ctx->out);
		rc = cmd->fn(ctx, argc, argv);
	} else if (!ctx->err.code) {
		ctx->err.code = rc;
	}
	if (rc && dc_err_is_set(&ctx->err)) {
		if (rc == EXIT_USAGE)
			usage_error(ctx, cmd);
		else
			dc_report(ctx);
	}
	ctx->opts = NULL;
	free(opts);
	return rc;
}

/* The command named by path words (for `help switch up`); NULL if unknown,
 * with ctx->err set. */
static const struct dc_cmd *resolve(struct dc_ctx *ctx, const struct dc_cmd *tab, int n, char **words)
{
	const struct dc_cmd *c = NULL;
	int i;

	for (i = 0; i < n; i++) {
		c = dc_cmd_find(tab, words[i]);
		if (!c || ctx->depth >= DC_CMD_DEPTH_MAX) {
			dc_err_set(&ctx->err, EXIT_USAGE, "no command '%s' to help with", words[i]);
			return NULL;
		}
		ctx->path[ctx->depth++] = c->name;
		tab = c->sub;
	}
	return c;
}

static int unknown(struct dc_ctx *ctx, const struct dc_cmd *group, const struct dc_cmd *tab,
		   const char *word)
{
	struct dc_near n;
	const char *best;

	dc_near_init(&n, word, strlen(word));
	for (; tab && tab->name; tab++)
		if (!(tab->flags & DC_CMD_F_HIDDEN))
			dc_near_add(&n, tab->name);
	best = dc_near_best(&n);
	if (best)
		dc_err_set(&ctx->err, EXIT_USAGE, "unknown command '%s' (did you mean '%s'?)", word, best);
	else
		dc_err_set(&ctx->err, EXIT_USAGE, "unknown command '%s'", word);
	return usage_error(ctx, group);
}

int dc_dispatch(struct dc_ctx *ctx, const struct dc_cmd *tab, int argc, char **argv)
{
	const struct dc_cmd *group = ctx->cmd, *c;
	const char *w;

	if (argc < 1) {
		dc_err_set(&ctx->err, EXIT_USAGE, "a %scommand is needed", group ? "sub" : "");
		return usage_error(ctx, group);
	}
	w = argv[0];
	if (!strcmp(w, "--help") || !strcmp(w, "-h"))
		return help(ctx, group);
	if (!strcmp(w, "help") && !dc_cmd_find(tab, "help")) {
		c = resolve(ctx, tab, argc - 1, argv + 1);
		if (argc > 1 && !c)
			return usage_error(ctx, group);
		return help(ctx, argc > 1 ? c : group);
	}
	c = dc_cmd_find(tab, w);
	if (!c)
		return unknown(ctx, group, tab, w);
	if (ctx->depth >= DC_CMD_DEPTH_MAX)
		return dc_fail(ctx, EXIT_USAGE, "commands nested too deep"), usage_error(ctx, group);
	ctx->path[ctx->depth++] = c->name;
	if (!c->sub)
		return run(ctx, c, argc, argv);
	ctx->cmd = c;
	if (argc == 1 && c->fn)
		return run(ctx, c, argc, argv);
	return dc_dispatch(ctx, c->sub, argc - 1, argv + 1);
}

int dc_main(struct dc_ctx *ctx, int argc, char **argv)
{
	struct dc_opt_set g = { .tab = dc_global_opts, .out = ctx, .given = ctx->global_given };
	int next = argc, rc;

	/* global options end at the command, so `set` values may start with '-' */
	rc = dc_opts_parse_sets(&g, 1, argc, argv, DC_OPTS_STOP_AT_POS, &next, &ctx->err);
	if (rc == DC_OPTS_HELP)
		return help(ctx, NULL);
	if (rc != DC_OPTS_OK)
		return usage_error(ctx, NULL);
	if (ctx->version && next < argc) {
		dc_err_set(&ctx->err, EXIT_USAGE, "--version takes no command ('%s')", argv[next]);
		return usage_error(ctx, NULL);
	}
	if (ctx->version)
		return version(ctx);
	return dc_dispatch(ctx, ctx->app->cmds, argc - next, argv + next);
}

/* ---- walking and checking ---------------------------------------------------------------- */

static int walk(const struct dc_cmd *tab, bool hidden, dc_walk_fn fn, void *arg, const char **path,
		int depth)
{
	int rc;

	for (; tab && tab->name; tab++) {
		if ((tab->flags & DC_CMD_F_HIDDEN) && !hidden)
			continue;
		if (depth >= DC_CMD_DEPTH_MAX)
			return -1;
		path[depth] = tab->name;
		rc = fn(tab, path, depth, arg);
		if (rc)
			return rc;
		if (tab->sub) {
			rc = walk(tab->sub, hidden, fn, arg, path, depth + 1);
			if (rc)
				return rc;
		}
	}
	return 0;
}

int dc_cmd_walk(const struct dc_cmd *tab, bool hidden, dc_walk_fn fn, void *arg)
{
	const char *path[DC_CMD_DEPTH_MAX];

	return walk(tab, hidden, fn, arg, path, 0);
}

void dc_cmd_path_str(const char *const *path, int depth, char *buf, size_t len)
{
	size_t k;
	int i;

	buf[0] = '\0';
	for (i = 0; i <= depth; i++) {
		k = strlen(buf);
		snprintf(buf + k, len - k, "%s%s", i ? " " : "", path[i]);
	}
}

static int check_cmd(const struct dc_cmd *c, const char *const *path, int depth, void *arg)
{
	struct dc_err *e = arg;
	const struct dc_cmd *q;
	const struct dc_opt *o;
	char p[160];

	dc_cmd_path_str(path, depth, p, sizeof(p));
	if (!c->name[0] || strpbrk(c->name, " \t=") || c->name[0] == '-' || !strcmp(c->name, "help"))
		return dc_err_set(e, EXIT_USAGE, "'%s': not a usable command name", p);
	if (!c->summary || !c->summary[0])
		return dc_err_set(e, EXIT_USAGE, "%s: no summary", p);
	if (!c->fn && !c->sub)
		return dc_err_set(e, EXIT_USAGE, "%s: neither a function nor subcommands", p);
	if (c->sub && !c->sub[0].name)
		return dc_err_set(e, EXIT_USAGE, "%s: an empty subcommand table", p);
	/* later entries of the same table: names unique */
	for (q = c + 1; q->name; q++)
		if (!strcmp(q->name, c->name))
			return dc_err_set(e, EXIT_USAGE, "%s: declared twice", p);
	if (!c->opts)
		return 0;
	if (dc_opts_check(c->opts, e)) {
		dc_err_prefix(e, "%s", p);
		return -1;
	}
	for (o = c->opts; o->name; o++) {
		if (o->off + o->size > c->opts_size)
			return dc_err_set(e, EXIT_USAGE, "%s: %s lies outside opts_size %zu", p, o->name,
					  c->opts_size);
		if (!dc_opt_is_pos(o) && dc_opt_find(dc_global_opts, o->name) && strcmp(o->name, "help"))
			return dc_err_set(e, EXIT_USAGE, "%s: --%s is a global option", p, o->name);
	}
	return 0;
}

int dc_cmds_check(const struct dc_cmd *tab, struct dc_err *err)
{
	if (dc_opts_check(dc_global_opts, err))
		return -1;
	return dc_cmd_walk(tab, true, check_cmd, err) ? -1 : 0;
}
