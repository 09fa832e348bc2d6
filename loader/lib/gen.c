// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Files generated from the command table (cmd.h): a bash completion
 * script and a man page.  Both walk the same tables the dispatcher runs,
 * so neither can list a command or option the program lacks.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

/* ---- bash completion ------------------------------------------------------------------ */

/* Words for compgen -W, or @file / @dir / @any for what follows o. */
static void value_words(FILE *f, const struct dc_opt *o)
{
	const struct dc_opt_name *n;

	switch (o->type) {
	case DC_OPT_PATH:
		fputs("@file", f);
		break;
	case DC_OPT_DIR:
		fputs("@dir", f);
		break;
	case DC_OPT_ENUM:
		for (n = o->names; n->name; n++)
			fprintf(f, "%s%s", n == o->names ? "" : " ", n->name);
		break;
	default:
		fputs("@any", f);
		break;
	}
}

static void opt_words(FILE *f, const struct dc_opt *tab)
{
	const struct dc_opt *o;

	for (o = tab; o && o->name; o++)
		if (!dc_opt_is_pos(o) && !(o->flags & DC_OPT_F_HIDDEN))
			fprintf(f, " --%s", o->name);
}

struct bash {
	FILE *f;
	const char *fn;		/* _dcbpf */
	int part;		/* 0: subcommands, 1: options, 2: option values */
};

static int bash_cmd(const struct dc_cmd *c, const char *const *path, int depth, void *arg)
{
	struct bash *b = arg;
	const struct dc_opt *o;
	const struct dc_cmd *s;
	char p[160];

	dc_cmd_path_str(path, depth, p, sizeof(p));
	if (b->part == 0) {
		if (c->sub) {
			fprintf(b->f, "\t\"%s\") echo \"help", p);
			for (s = c->sub; s->name; s++)
				if (!(s->flags & DC_CMD_F_HIDDEN))
					fprintf(b->f, " %s", s->name);
			fprintf(b->f, "\" ;;\n");
			return 0;
		}
		/* a leaf: what its first positional takes */
		for (o = c->opts; o && o->name && !dc_opt_is_pos(o); o++)
			;
		if (o && o->name && (o->type == DC_OPT_PATH || o->type == DC_OPT_DIR ||
				     o->type == DC_OPT_ENUM)) {
			fprintf(b->f, "\t\"%s\") echo \"", p);
			value_words(b->f, o);
			fprintf(b->f, "\" ;;\n");
		}
		return 0;
	}
	if (!c->opts)
		return 0;
	if (b->part == 1) {
		fprintf(b->f, "\t\"%s\") echo \"", p);
		opt_words(b->f, c->opts);
		opt_words(b->f, dc_global_opts);
		fprintf(b->f, "\" ;;\n");
		return 0;
	}
	for (o = c->opts; o->name; o++) {
		if (dc_opt_is_pos(o) || !dc_opt_takes_value(o))
			continue;
		fprintf(b->f, "\t\"%s|--%s\"", p, o->name);
		if (o->short_name)
			fprintf(b->f, "|\"%s|-%c\"", p, o->short_name);
		fputs(") echo \"", b->f);
		value_words(b->f, o);
		fprintf(b->f, "\" ;;\n");
	}
	return 0;
}

void dc_gen_bash_completion(FILE *f, const struct dc_app *app)
{
	struct bash b = { .f = f };
	const struct dc_cmd *c;
	const struct dc_opt *o;
	const char *n = app->name;

	fprintf(f, "# bash completion for %s, generated from its command table; do not edit.\n", n);
	/* the subcommands of a path ("" is the program), or what a leaf's
	 * first argument takes */
	fprintf(f, "_%s_cmds()\n{\n\tcase \"$1\" in\n\t\"\") echo \"help", n);
	for (c = app->cmds; c->name; c++)
		if (!(c->flags & DC_CMD_F_HIDDEN))
			fprintf(f, " %s", c->name);
	fprintf(f, "\" ;;\n");
	b.part = 0;
	dc_cmd_walk(app->cmds, false, bash_cmd, &b);
	fprintf(f, "\tesac\n}\n\n");

	/* the options of a path: a command's own and the global ones */
	fprintf(f, "_%s_opts()\n{\n\tcase \"$1\" in\n\t\"\") echo \"", n);
	opt_words(f, dc_global_opts);
	fprintf(f, "\" ;;\n");
	b.part = 1;
	dc_cmd_walk(app->cmds, false, bash_cmd, &b);
	fprintf(f, "\tesac\n}\n\n");

	/* what follows an option: words, @file, @dir, @any; nothing for a flag */
	fprintf(f, "_%s_values()\n{\n\tcase \"$1|$2\" in\n", n);
	b.part = 2;
	dc_cmd_walk(app->cmds, false, bash_cmd, &b);
	for (o = dc_global_opts; o->name; o++) {
		if (!dc_opt_takes_value(o))
			continue;
		fprintf(f, "\t*\"|--%s\"|*\"|-%c\") echo \"", o->name, o->short_name);
		value_words(f, o);
		fprintf(f, "\" ;;\n");
	}
	fprintf(f, "\tesac\n}\n\n");

	fprintf(f,
		"_%s()\n"
		"{\n"
		"\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=\"\" path=\"\" w i v\n"
		"\tCOMPREPLY=()\n"
		"\t# the command path so far; option values are skipped\n"
		"\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
		"\t\tw=${COMP_WORDS[i]}\n"
		"\t\tif [[ $w == -* ]]; then\n"
		"\t\t\tv=$(_%s_values \"$path\" \"$w\")\n"
		"\t\t\tif [[ -n $v && ${COMP_WORDS[i+1]} == = ]]; then ((i += 2)); elif [[ -n $v ]]; then ((i++)); fi\n"
		"\t\t\tcontinue\n"
		"\t\tfi\n"
		"\t\t[[ \" $(_%s_cmds \"$path\") \" == *\" $w \"* ]] && path=${path:+$path }$w\n"
		"\tdone\n"
		"\t# a value after an option (\"--opt VALUE\" or \"--opt=VALUE\", which bash splits at =)\n"
		"\tif ((COMP_CWORD > 1)); then\n"
		"\t\tprev=${COMP_WORDS[COMP_CWORD-1]}\n"
		"\t\t[[ $prev == = ]] && prev=${COMP_WORDS[COMP_CWORD-2]}\n"
		"\t\t[[ $cur == = ]] && { prev=${COMP_WORDS[COMP_CWORD-1]}; cur=\"\"; }\n"
		"\t\tif [[ $prev == -* ]]; then\n"
		"\t\t\tv=$(_%s_values \"$path\" \"$prev\")\n"
		"\t\t\tcase $v in\n"
		"\t\t\t\"\") ;;\n"
		"\t\t\t@file) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
		"\t\t\t@dir) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n"
		"\t\t\t@any) return ;;\n"
		"\t\t\t*) COMPREPLY=($(compgen -W \"$v\" -- \"$cur\")); return ;;\n"
		"\t\t\tesac\n"
		"\t\tfi\n"
		"\tfi\n"
		"\tif [[ $cur == -* ]]; then\n"
		"\t\tCOMPREPLY=($(compgen -W \"$(_%s_opts \"$path\")\" -- \"$cur\"))\n"
		"\t\treturn\n"
		"\tfi\n"
		"\tv=$(_%s_cmds \"$path\")\n"
		"\tcase $v in\n"
		"\t@file) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
		"\t@dir) COMPREPLY=($(compgen -d -- \"$cur\")) ;;\n"
		"\t@any) ;;\n"
		"\t*) COMPREPLY=($(compgen -W \"$v\" -- \"$cur\")) ;;\n"
		"\tesac\n"
		"}\n"
		"complete -F _%s %s\n",
		n, n, n, n, n, n, n, n);
}

/* ---- man page --------------------------------------------------------------------------- */

/* Text as roff: backslashes and dashes escaped, no line starting a request. */
static void roff(FILE *f, const char *s)
{
	bool bol = true;

	for (; *s; s++) {
		if (bol && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		bol = *s == '\n';
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

static void man_opt(FILE *f, const struct dc_opt *o)
{
	char mv[96], notes[320];

	if (o->flags & DC_OPT_F_HIDDEN)
		return;
	dc_opt_metavar(o, mv, sizeof(mv));
	fputs(".TP\n", f);
	if (dc_opt_is_pos(o)) {
		fputs("\\fI", f);
		roff(f, mv);
		fputs(o->type == DC_OPT_REST ? "\\fR...\n" : "\\fR\n", f);
	} else {
		if (o->short_name)
			fprintf(f, "\\fB\\-%c\\fR, ", o->short_name);
		fputs("\\fB\\-\\-", f);
		roff(f, o->name);
		fputs("\\fR", f);
		if (mv[0]) {
			fputs(" \\fI", f);
			roff(f, mv);
			fputs("\\fR", f);
		}
		fputc('\n', f);
	}
	roff(f, o->help);
	dc_opt_notes(o, notes, sizeof(notes));
	if (notes[0]) {
		fputs(" (", f);
		roff(f, notes);
		fputc(')', f);
	}
	fputc('\n', f);
}

struct man {
	FILE *f;
	const struct dc_app *app;
};

static int man_cmd(const struct dc_cmd *c, const char *const *path, int depth, void *arg)
{
	struct man *m = arg;
	const struct dc_opt *o;
	char *u = NULL;
	size_t ulen = 0;
	FILE *mem;
	int i;

	fputs(".SS \"", m->f);
	roff(m->f, m->app->name);
	for (i = 0; i <= depth; i++) {
		fputc(' ', m->f);
		roff(m->f, path[i]);
	}
	fputs("\"\n", m->f);
	mem = open_memstream(&u, &ulen);
	if (mem) {
		dc_usage(mem, m->app, c, path, depth + 1);
		fclose(mem);
	}
	if (u && ulen) {
		/* "usage: " is for the terminal; the synopsis stands alone here */
		fputs(".nf\n", m->f);
		roff(m->f, strncmp(u, "usage: ", 7) ? u : u + 7);
		fputs(".fi\n", m->f);
	}
	free(u);
	fputs(".PP\n", m->f);
	roff(m->f, c->summary);
	fputc('\n', m->f);
	if (c->doc) {
		fputs(".PP\n", m->f);
		roff(m->f, c->doc);
		fputc('\n', m->f);
	}
	for (o = c->opts; o && o->name; o++)
		man_opt(m->f, o);
	return 0;
}

void dc_gen_man(FILE *f, const struct dc_app *app, const char *date)
{
	struct man m = { .f = f, .app = app };
	const struct dc_opt *o;
	char up[64];
	size_t i;

	for (i = 0; app->name[i] && i < sizeof(up) - 1; i++)
		up[i] = (char)(app->name[i] >= 'a' && app->name[i] <= 'z' ? app->name[i] - 32 : app->name[i]);
	up[i] = '\0';
	fprintf(f, ".\\\" generated from the command table of %s; do not edit\n", app->name);
	fprintf(f, ".TH %s 8 \"%s\" \"%s %s\" \"System Administration\"\n", up, date ? date : "",
		app->name, app->version ? app->version : "");
	fputs(".SH NAME\n", f);
	roff(f, app->name);
	fputs(" \\- ", f);
	roff(f, app->summary ? app->summary : "");
	fputs("\n.SH SYNOPSIS\n.B ", f);
	roff(f, app->name);
	fputs("\n[\\fIGLOBAL OPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]\n", f);
	if (app->doc) {
		fputs(".SH DESCRIPTION\n", f);
		roff(f, app->doc);
		fputc('\n', f);
	}
	fputs(".SH GLOBAL OPTIONS\n", f);
	for (o = dc_global_opts; o->name; o++)
		man_opt(f, o);
	if (app->default_config) {
		fputs(".PP\nThe config file is \\fI", f);
		roff(f, app->default_config);
		fputs("\\fR unless \\fB\\-\\-config\\fR names another.\n", f);
	}
	fputs(".SH COMMANDS\n", f);
	dc_cmd_walk(app->cmds, false, man_cmd, &m);
	fputs(".SH EXIT STATUS\n.TP\n.B 0\nsuccess\n.TP\n.B 1\nruntime error "
	      "(maps missing, not root, the kernel refused)\n.TP\n.B 2\nusage error "
	      "(bad command, option or value)\n", f);
}
