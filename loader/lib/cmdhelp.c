// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Help and usage generated from the command and option tables (cmd.h). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

static void prefix(char *buf, size_t len, const struct dc_app *app, const char *const *path, int depth)
{
	size_t k;
	int i;

	snprintf(buf, len, "%s", app->name);
	for (i = 0; i < depth; i++) {
		k = strlen(buf);
		snprintf(buf + k, len - k, " %s", path[i]);
	}
}

void dc_usage(FILE *f, const struct dc_app *app, const struct dc_cmd *cmd, const char *const *path,
	      int depth)
{
	const struct dc_cmd *c;
	char pre[160], syn[1024];
	const char *u, *nl;

	prefix(pre, sizeof(pre), app, path, depth);
	if (!cmd) {
		fprintf(f, "usage: %s [GLOBAL OPTIONS] COMMAND [ARGS]\n", pre);
		return;
	}
	if (cmd->sub) {
		fprintf(f, "usage: %s {", pre);
		for (c = cmd->sub; c->name; c++)
			if (!(c->flags & DC_CMD_F_HIDDEN))
				fprintf(f, "%s%s", c == cmd->sub ? "" : "|", c->name);
		fprintf(f, "} [ARGS]\n");
		return;
	}
	if (cmd->usage) {
		/* the table's own lines, continued under the first */
		u = cmd->usage;
		fprintf(f, "usage: %s", pre);
		while ((nl = strchr(u, '\n'))) {
			fprintf(f, "%s%.*s\n%*s", *u ? " " : "", (int)(nl - u), u,
				(int)(strlen(pre) + 7), "");
			u = nl + 1;
			while (*u == ' ')
				u++;
		}
		fprintf(f, "%s%s\n", *u ? " " : "", u);
		return;
	}
	if (cmd->opts) {
		dc_opts_synopsis(cmd->opts, syn, sizeof(syn));
		fprintf(f, "usage: %s%s\n", pre, syn);
		return;
	}
	fprintf(f, "usage: %s [ARGS]\n", pre);
}

static void commands(FILE *f, const struct dc_cmd *tab)
{
	const struct dc_cmd *c;
	size_t w = 0;

	for (c = tab; c->name; c++)
		if (!(c->flags & DC_CMD_F_HIDDEN) && strlen(c->name) > w)
			w = strlen(c->name);
	fprintf(f, "Commands:\n");
	for (c = tab; c->name; c++)
		if (!(c->flags & DC_CMD_F_HIDDEN))
			fprintf(f, "  %-*s  %s\n", (int)w, c->name, c->summary);
}

static void globals_line(FILE *f, const struct dc_app *app)
{
	const struct dc_opt *o;
	char mv[64];

	fprintf(f, "Global options:");
	for (o = dc_global_opts; o->name; o++) {
		if (!strcmp(o->name, "help") || !strcmp(o->name, "version") ||
		    !strcmp(o->name, "verbose"))
			continue;
		dc_opt_metavar(o, mv, sizeof(mv));
		fprintf(f, "%s --%s%s%s", o == dc_global_opts ? "" : ",", o->name, mv[0] ? " " : "", mv);
	}
	fprintf(f, " (%s --help)\n", app->name);
}

static void help_text(FILE *f, const struct dc_app *app, const struct dc_cmd *cmd,
		      const char *const *path, int depth)
{
	const char *summary = cmd ? cmd->summary : app->summary;
	const char *doc = cmd ? cmd->doc : NULL;
	char pre[160];

	dc_usage(f, app, cmd, path, depth);
	if (summary)
		fprintf(f, "%s\n", summary);
	if (doc)
		fprintf(f, "\n%s%s", doc, doc[strlen(doc) - 1] == '\n' ? "" : "\n");
	if (!cmd) {
		fputc('\n', f);
		commands(f, app->cmds);
		fputc('\n', f);
		dc_opts_help(f, dc_global_opts, "Global options", 80);
		if (app->default_config)
			fprintf(f, "The config file is %s unless --config names another.\n",
				app->default_config);
		if (app->doc)
			fprintf(f, "%s%s", app->doc, app->doc[strlen(app->doc) - 1] == '\n' ? "" : "\n");
		fprintf(f, "Run '%s COMMAND --help' for a command's arguments.\n", app->name);
		fprintf(f, "Exit: 0 ok, 1 runtime error, 2 usage error (bad command, option or value).\n");
		return;
	}
	if (cmd->sub) {
		fputc('\n', f);
		commands(f, cmd->sub);
		prefix(pre, sizeof(pre), app, path, depth);
		fprintf(f, "Run '%s COMMAND --help' for a command's arguments.\n", pre);
	} else if (cmd->opts && cmd->opts[0].name) {
		fputc('\n', f);
		dc_opts_help(f, cmd->opts, "Options", 80);
	}
	globals_line(f, app);
}

static const char *type_name(enum dc_opt_type t)
{
	static const char *const names[] = {
		[DC_OPT_FLAG] = "flag", [DC_OPT_U64] = "u64", [DC_OPT_S64] = "s64",
		[DC_OPT_Q16] = "q16", [DC_OPT_DOUBLE] = "double", [DC_OPT_STR] = "string",
		[DC_OPT_PATH] = "path", [DC_OPT_DIR] = "dir", [DC_OPT_ENUM] = "enum",
		[DC_OPT_LIST] = "list", [DC_OPT_REST] = "rest",
	};

	return t > DC_OPT_END && t <= DC_OPT_REST ? names[t] : "?";
}

static void json_opts(struct jw *j, const char *key, const struct dc_opt *tab, bool pos)
{
	const struct dc_opt *o;
	char buf[256];

	jw_arr(j, key);
	for (o = tab; o && o->name; o++) {
		if (dc_opt_is_pos(o) != pos || (o->flags & DC_OPT_F_HIDDEN))
			continue;
		jw_obj(j, NULL);
		jw_str(j, "name", o->name);
		if (o->short_name) {
			buf[0] = o->short_name;
			buf[1] = '\0';
			jw_str(j, "short", buf);
		}
		jw_str(j, "type", type_name(o->type));
		jw_str(j, "metavar", dc_opt_metavar(o, buf, sizeof(buf)));
		jw_str(j, "help", o->help);
		jw_bool(j, "required", o->required);
		if (o->def)
			jw_str(j, "default", o->def);
		else
			jw_null(j, "default");
		dc_opt_range(o, buf, sizeof(buf));
		jw_str(j, "allowed", buf);
		jw_end_obj(j);
	}
	jw_end_arr(j);
}

static void help_json(FILE *f, const struct dc_app *app, const struct dc_cmd *cmd,
		      const char *const *path, int depth)
{
	const struct dc_cmd *subs = cmd ? cmd->sub : app->cmds, *c;
	char pre[160], *u = NULL;
	size_t ulen = 0;
	FILE *m;
	struct jw j;

	prefix(pre, sizeof(pre), app, path, depth);
	m = open_memstream(&u, &ulen);
	if (m) {
		dc_usage(m, app, cmd, path, depth);
		fclose(m);
	}
	if (u && ulen && u[ulen - 1] == '\n')
		u[ulen - 1] = '\0';
	jw_init(&j, f);
	jw_obj(&j, NULL);
	jw_str(&j, "command", pre);
	jw_str(&j, "summary", cmd ? cmd->summary : app->summary ? app->summary : "");
	jw_str(&j, "usage", u ? u : "");
	if (cmd && cmd->doc)
		jw_str(&j, "doc", cmd->doc);
	if (!cmd || cmd->opts) {
		json_opts(&j, "arguments", cmd ? cmd->opts : NULL, true);
		json_opts(&j, "options", cmd ? cmd->opts : dc_global_opts, false);
	}
	if (subs) {
		jw_arr(&j, "commands");
		for (c = subs; c->name; c++) {
			if (c->flags & DC_CMD_F_HIDDEN)
				continue;
			jw_obj(&j, NULL);
			jw_str(&j, "name", c->name);
			jw_str(&j, "summary", c->summary);
			jw_end_obj(&j);
		}
		jw_end_arr(&j);
	}
	jw_end_obj(&j);
	jw_done(&j);
	free(u);
}

void dc_help(FILE *f, const struct dc_app *app, const struct dc_cmd *cmd, const char *const *path,
	     int depth, bool json)
{
	if (json)
		help_json(f, app, cmd, path, depth);
	else
		help_text(f, app, cmd, path, depth);
}
