// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Option tables as text: metavars, ranges, synopsis and help (opts.h). */
#include <string.h>

#include "opts.h"

static void cat(char *buf, size_t len, const char *s)
{
	size_t k = strlen(buf);

	if (k < len)
		snprintf(buf + k, len - k, "%s", s);
}

static void names_joined(const struct dc_opt *o, const char *sep, char *buf, size_t len)
{
	const struct dc_opt_name *n;

	buf[0] = '\0';
	for (n = o->names; n && n->name; n++) {
		if (n != o->names)
			cat(buf, len, sep);
		cat(buf, len, n->name);
	}
}

const char *dc_opt_metavar(const struct dc_opt *o, char *buf, size_t len)
{
	const char *mv = o->metavar;

	if (!mv) {
		switch (o->type) {
		case DC_OPT_FLAG:
			mv = "";
			break;
		case DC_OPT_U64:
		case DC_OPT_S64:
			mv = "N";
			break;
		case DC_OPT_Q16:
		case DC_OPT_DOUBLE:
			mv = "X";
			break;
		case DC_OPT_PATH:
			mv = "FILE";
			break;
		case DC_OPT_DIR:
			mv = "DIR";
			break;
		case DC_OPT_ENUM:
			names_joined(o, "|", buf, len);
			return buf;
		default:
			mv = dc_opt_is_pos(o) ? o->name : "VALUE";
			break;
		}
	}
	snprintf(buf, len, "%s", mv);
	return buf;
}

void dc_opt_range(const struct dc_opt *o, char *buf, size_t len)
{
	buf[0] = '\0';
	switch (o->type) {
	case DC_OPT_U64:
		if (o->umin || o->umax)
			snprintf(buf, len, "%llu..%llu", o->umin, o->umax);
		break;
	case DC_OPT_S64:
		if (o->smin || o->smax)
			snprintf(buf, len, "%lld..%lld", o->smin, o->smax);
		break;
	case DC_OPT_Q16:
	case DC_OPT_DOUBLE:
		if (o->dmin || o->dmax)
			snprintf(buf, len, "%c%g, %g%c", o->flags & DC_OPT_F_MIN_EXCL ? '(' : '[',
				 o->dmin, o->dmax, o->flags & DC_OPT_F_MAX_EXCL ? ')' : ']');
		break;
	case DC_OPT_ENUM:
		names_joined(o, ", ", buf, len);
		break;
	case DC_OPT_STR:
	case DC_OPT_PATH:
	case DC_OPT_DIR:
		if (o->umax)
			snprintf(buf, len, "at most %llu bytes", o->umax);
		break;
	default:
		break;
	}
}

/* "NAME", "[NAME]", "KEY=VALUE..." */
static void pos_word(const struct dc_opt *o, char *buf, size_t len)
{
	char mv[96];

	dc_opt_metavar(o, mv, sizeof(mv));
	snprintf(buf, len, "%s%s%s%s", o->required ? "" : "[", mv, o->type == DC_OPT_REST ? "..." : "",
		 o->required ? "" : "]");
}

void dc_opts_synopsis(const struct dc_opt *tab, char *buf, size_t len)
{
	const struct dc_opt *o;
	bool optional = false;
	char w[128], mv[96];

	buf[0] = '\0';
	for (o = tab; o && o->name; o++) {
		if (dc_opt_is_pos(o) || (o->flags & DC_OPT_F_HIDDEN))
			continue;
		if (!o->required) {
			optional = true;
			continue;
		}
		snprintf(w, sizeof(w), " --%s %s", o->name, dc_opt_metavar(o, mv, sizeof(mv)));
		cat(buf, len, w);
	}
	if (optional)
		cat(buf, len, " [OPTIONS]");
	for (o = tab; o && o->name; o++) {
		if (!dc_opt_is_pos(o))
			continue;
		pos_word(o, w + 1, sizeof(w) - 1);
		w[0] = ' ';
		cat(buf, len, w);
	}
}

/* The parenthesised notes after an entry's help: required, default, range. */
void dc_opt_notes(const struct dc_opt *o, char *buf, size_t len)
{
	char r[160], part[200];

	buf[0] = '\0';
	if (o->required && !dc_opt_is_pos(o))
		cat(buf, len, "required");
	if (o->type == DC_OPT_LIST || (o->flags & DC_OPT_F_REPEAT)) {
		cat(buf, len, buf[0] ? "; " : "");
		cat(buf, len, o->type == DC_OPT_LIST ? "repeatable" : "repeatable, the last wins");
	}
	dc_opt_range(o, r, sizeof(r));
	/* an enum's names are in its metavar unless the table named it */
	if (r[0] && !(o->type == DC_OPT_ENUM && !o->metavar)) {
		snprintf(part, sizeof(part), "%s%s%s", buf[0] ? "; " : "",
			 o->type == DC_OPT_ENUM ? "one of " :
			 o->type == DC_OPT_STR || o->type == DC_OPT_PATH || o->type == DC_OPT_DIR ? "" :
			 "allowed ", r);
		cat(buf, len, part);
	}
	if (o->def && o->type != DC_OPT_FLAG) {
		snprintf(part, sizeof(part), "%sdefault %s", buf[0] ? "; " : "", o->def[0] ? o->def : "\"\"");
		cat(buf, len, part);
	}
}

static void left(const struct dc_opt *o, char *buf, size_t len)
{
	char mv[96];

	if (dc_opt_is_pos(o)) {
		snprintf(buf, len, "  %s", dc_opt_metavar(o, mv, sizeof(mv)));
		return;
	}
	dc_opt_metavar(o, mv, sizeof(mv));
	if (o->short_name)
		snprintf(buf, len, "  -%c, --%s%s%s", o->short_name, o->name, mv[0] ? " " : "", mv);
	else
		snprintf(buf, len, "      --%s%s%s", o->name, mv[0] ? " " : "", mv);
}

/* text at column col, wrapped before width; the cursor is at column at */
static void wrap(FILE *f, const char *text, unsigned int at, unsigned int col, unsigned int width)
{
	const char *p = text;

	while (*p) {
		const char *w = p;
		size_t n;

		while (*w == ' ')
			w++;
		n = strcspn(w, " ");
		if (!n)
			break;
		if (at > col && at + 1 + n > width) {
			fprintf(f, "\n%*s", (int)col, "");
			at = col;
		} else if (at > col) {
			fputc(' ', f);
			at++;
		}
		fprintf(f, "%.*s", (int)n, w);
		at += (unsigned int)n;
		p = w + n;
	}
	fputc('\n', f);
}

static void block(FILE *f, const struct dc_opt *tab, bool pos, const char *title, unsigned int width)
{
	const struct dc_opt *o;
	unsigned int col = 0;
	char l[160], n[320], text[1024];
	bool any = false;

	for (o = tab; o && o->name; o++) {
		if (dc_opt_is_pos(o) != pos || (o->flags & DC_OPT_F_HIDDEN))
			continue;
		left(o, l, sizeof(l));
		if (strlen(l) + 2 > col)
			col = (unsigned int)strlen(l) + 2;
		any = true;
	}
	if (!any)
		return;
	if (col > 30)	/* a long entry starts its help on the next line */
		col = 30;
	fprintf(f, "%s:\n", title);
	for (o = tab; o && o->name; o++) {
		size_t k;

		if (dc_opt_is_pos(o) != pos || (o->flags & DC_OPT_F_HIDDEN))
			continue;
		left(o, l, sizeof(l));
		dc_opt_notes(o, n, sizeof(n));
		snprintf(text, sizeof(text), "%s%s%s%s", o->help, n[0] ? " (" : "", n, n[0] ? ")" : "");
		k = strlen(l);
		fputs(l, f);
		if (k + 2 > col) {
			fprintf(f, "\n%*s", (int)col, "");
		} else {
			fprintf(f, "%*s", (int)(col - k), "");
		}
		wrap(f, text, col, col, width);
	}
}

void dc_opts_help(FILE *f, const struct dc_opt *tab, const char *title, unsigned int width)
{
	if (!width)
		width = 80;
	block(f, tab, true, "Arguments", width);
	block(f, tab, false, title ? title : "Options", width);
}
