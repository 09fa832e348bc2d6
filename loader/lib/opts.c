// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Option tables: parsing and validation (opts.h).  An own parser rather
 * than getopt_long: getopt keeps global state (optind resets differ
 * between glibc and others), prints its own messages and accepts
 * abbreviated long names.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "opts.h"
#include "optint.h"
#include "suggest.h"

unsigned int dc_opts_count(const struct dc_opt *tab)
{
	unsigned int n = 0;

	while (tab && tab[n].name)
		n++;
	return n;
}

const struct dc_opt *dc_opt_find(const struct dc_opt *tab, const char *name)
{
	for (; tab && tab->name; tab++)
		if (!dc_opt_is_pos(tab) && !strcmp(tab->name, name))
			return tab;
	return NULL;
}

const struct dc_opt *dc_opt_find_short(const struct dc_opt *tab, char c)
{
	for (; tab && tab->name; tab++)
		if (!dc_opt_is_pos(tab) && c && tab->short_name == c)
			return tab;
	return NULL;
}

/* ---- numbers --------------------------------------------------------------- */

static void store_u(void *p, size_t size, unsigned long long v)
{
	switch (size) {
	case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
	default: { uint64_t x = v; memcpy(p, &x, 8); break; }
	}
}

static void store_s(void *p, size_t size, long long v)
{
	switch (size) {
	case 1: { int8_t x = (int8_t)v; memcpy(p, &x, 1); break; }
	case 2: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
	case 4: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
	default: { int64_t x = v; memcpy(p, &x, 8); break; }
	}
}

static void urange(const struct dc_opt *o, unsigned long long *lo, unsigned long long *hi)
{
	*lo = o->umin;
	*hi = o->umin || o->umax ? o->umax : umax_of(o->size);
}

static void srange(const struct dc_opt *o, long long *lo, long long *hi)
{
	if (o->smin || o->smax) {
		*lo = o->smin;
		*hi = o->smax;
	} else {
		*hi = smax_of(o->size);
		*lo = -*hi - 1;
	}
}

static int parse_u(const struct dc_opt *o, const char *s, unsigned long long *v, struct dc_err *e)
{
	unsigned long long lo, hi;
	const char *p = s;
	char l[80], *end;
	int base = 10;

	label(o, l, sizeof(l));
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p)
		return dc_err_set(e, EXIT_USAGE, "%s: an unsigned integer is needed, not '%s'", l, s), -1;
	/* strtoull takes "-1" as ULLONG_MAX: refuse the sign first */
	if (*p == '-')
		return dc_err_set(e, EXIT_USAGE, "%s: %s is negative; an unsigned integer is needed", l, s), -1;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		base = 16;
	errno = 0;
	*v = strtoull(p, &end, base);
	if (end == p || *end || (base == 16 && end == p + 2))
		return dc_err_set(e, EXIT_USAGE, "%s: '%s' is not an unsigned integer", l, s), -1;
	urange(o, &lo, &hi);
	if (errno == ERANGE)
		return dc_err_set(e, EXIT_USAGE, "%s: %s is above the maximum %llu", l, s, hi), -1;
	if (*v < lo)
		return dc_err_set(e, EXIT_USAGE, "%s: %s is below the minimum %llu", l, s, lo), -1;
	if (*v > hi)
		return dc_err_set(e, EXIT_USAGE, "%s: %s is above the maximum %llu", l, s, hi), -1;
	return 0;
}

static int parse_s(const struct dc_opt *o, const char *s, long long *v, struct dc_err *e)
{
	long long lo, hi;
	char l[80], *end;

	label(o, l, sizeof(l));
	errno = 0;
	*v = strtoll(s, &end, 10);
	if (end == s || *end || !*s)
		return dc_err_set(e, EXIT_USAGE, "%s: '%s' is not an integer", l, s), -1;
	srange(o, &lo, &hi);
	if ((errno == ERANGE && *v < 0) || *v < lo)
		return dc_err_set(e, EXIT_USAGE, "%s: %s is below the minimum %lld", l, s, lo), -1;
	if (errno == ERANGE || *v > hi)
		return dc_err_set(e, EXIT_USAGE, "%s: %s is above the maximum %lld", l, s, hi), -1;
	return 0;
}

static int parse_d(const struct dc_opt *o, const char *s, double *v, struct dc_err *e)
{
	bool bounded = o->dmin != 0 || o->dmax != 0;
	char l[80], *end;

	label(o, l, sizeof(l));
	errno = 0;
	*v = strtod(s, &end);
	if (end == s || *end || !*s)
		return dc_err_set(e, EXIT_USAGE, "%s: '%s' is not a number", l, s), -1;
	if (isnan(*v))
		return dc_err_set(e, EXIT_USAGE, "%s: %s is not a number", l, s), -1;
	if (isinf(*v) || (errno == ERANGE && fabs(*v) > 1))
		return dc_err_set(e, EXIT_USAGE, "%s: %s is not a finite number", l, s), -1;
	if (o->type == DC_OPT_Q16 && *v < 0 && !bounded)
		return dc_err_set(e, EXIT_USAGE, "%s: %s is negative", l, s), -1;
	if (!bounded)
		return 0;
	if (*v < o->dmin || (*v == o->dmin && (o->flags & DC_OPT_F_MIN_EXCL)))
		return dc_err_set(e, EXIT_USAGE, "%s: %s is %s the minimum %g", l, s,
				  o->flags & DC_OPT_F_MIN_EXCL ? "not above" : "below", o->dmin), -1;
	if (*v > o->dmax || (*v == o->dmax && (o->flags & DC_OPT_F_MAX_EXCL)))
		return dc_err_set(e, EXIT_USAGE, "%s: %s is %s the maximum %g", l, s,
				  o->flags & DC_OPT_F_MAX_EXCL ? "not below" : "above", o->dmax), -1;
	return 0;
}

/* ---- one value ------------------------------------------------------------------ */

static int set_enum(const struct dc_opt *o, void *field, const char *s, struct dc_err *e)
{
	const struct dc_opt_name *n;
	char l[80], names[160] = "", near[64];
	size_t k;

	for (n = o->names; n && n->name; n++) {
		if (!strcmp(n->name, s)) {
			store_s(field, o->size, n->value);
			return 0;
		}
	}
	for (n = o->names; n && n->name; n++) {
		k = strlen(names);
		snprintf(names + k, sizeof(names) - k, "%s%s", k ? ", " : "", n->name);
	}
	label(o, l, sizeof(l));
	if (dc_suggest_enum(o->names, s, near, sizeof(near)))
		return dc_err_set(e, EXIT_USAGE, "%s: '%s' is not one of %s (did you mean %s?)", l, s,
				  names, near), -1;
	return dc_err_set(e, EXIT_USAGE, "%s: '%s' is not one of %s", l, s, names), -1;
}

static int set_path(const struct dc_opt *o, const char *s, struct dc_err *e)
{
	struct stat st;
	char l[80];

	label(o, l, sizeof(l));
	if (!*s)
		return dc_err_set(e, EXIT_USAGE, "%s: an empty %s name", l,
				  o->type == DC_OPT_DIR ? "directory" : "file"), -1;
	if (!(o->flags & DC_OPT_F_EXISTS))
		return 0;
	if (stat(s, &st))
		return dc_err_set(e, EXIT_USAGE, "%s: %s: %s", l, s, strerror(errno)), -1;
	if (o->type == DC_OPT_DIR && !S_ISDIR(st.st_mode))
		return dc_err_set(e, EXIT_USAGE, "%s: %s is not a directory", l, s), -1;
	if (o->type == DC_OPT_PATH && S_ISDIR(st.st_mode))
		return dc_err_set(e, EXIT_USAGE, "%s: %s is a directory, a file is needed", l, s), -1;
	return 0;
}

int dc_opt_set_value(const struct dc_opt *o, void *out, const char *s, struct dc_err *e)
{
	void *field = (char *)out + o->off;
	unsigned long long u;
	long long sv;
	double d;
	char l[80];

	switch (o->type) {
	case DC_OPT_FLAG:
		*(bool *)field = true;
		return 0;
	case DC_OPT_U64:
		if (parse_u(o, s, &u, e))
			return -1;
		store_u(field, o->size, u);
		return 0;
	case DC_OPT_S64:
		if (parse_s(o, s, &sv, e))
			return -1;
		store_s(field, o->size, sv);
		return 0;
	case DC_OPT_DOUBLE:
		if (parse_d(o, s, &d, e))
			return -1;
		memcpy(field, &d, sizeof(d));
		return 0;
	case DC_OPT_Q16:
		if (parse_d(o, s, &d, e))
			return -1;
		label(o, l, sizeof(l));
		d = floor(d * 65536.0 + 0.5);
		if (d > (double)umax_of(o->size))
			return dc_err_set(e, EXIT_USAGE, "%s: %s does not fit in Q16.16 of %zu bytes",
					  l, s, o->size), -1;
		if (d == 0 && strtod(s, NULL) != 0)
			return dc_err_set(e, EXIT_USAGE, "%s: %s rounds to 0 in Q16.16 (the smallest step is 1/65536)",
					  l, s), -1;
		store_u(field, o->size, (unsigned long long)d);
		return 0;
	case DC_OPT_STR:
		if (o->umax && strlen(s) > o->umax)
			return dc_err_set(e, EXIT_USAGE, "%s: '%s' is longer than %llu bytes",
					  label(o, l, sizeof(l)), s, o->umax), -1;
		*(const char **)field = s;
		return 0;
	case DC_OPT_PATH:
	case DC_OPT_DIR:
		if (set_path(o, s, e))
			return -1;
		if (o->umax && strlen(s) > o->umax)
			return dc_err_set(e, EXIT_USAGE, "%s: '%s' is longer than %llu bytes",
					  label(o, l, sizeof(l)), s, o->umax), -1;
		*(const char **)field = s;
		return 0;
	case DC_OPT_ENUM:
		return set_enum(o, field, s, e);
	case DC_OPT_LIST: {
		struct dc_opt_list *lst = field;

		if (lst->n >= DC_OPT_LIST_MAX)
			return dc_err_set(e, EXIT_USAGE, "%s: more than %d given",
					  label(o, l, sizeof(l)), DC_OPT_LIST_MAX), -1;
		lst->v[lst->n++] = s;
		return 0;
	}
	default:
		return dc_err_set(e, EXIT_USAGE, "%s: no value of this kind can be set",
				  label(o, l, sizeof(l))), -1;
	}
}

int dc_opts_defaults(const struct dc_opt *tab, void *out, struct dc_err *err)
{
	for (; tab && tab->name; tab++) {
		if (!tab->def)
			continue;
		if (tab->type == DC_OPT_LIST)
			((struct dc_opt_list *)((char *)out + tab->off))->n = 0;
		if (dc_opt_set_value(tab, out, tab->def, err)) {
			dc_err_prefix(err, "default");
			return DC_OPTS_ERR;
		}
	}
	return DC_OPTS_OK;
}

/* ---- the command line ------------------------------------------------------------ */

struct parse {
	const struct dc_opt_set *sets;
	int nsets;
	bool given_local[4][DC_OPTS_MAX];
	unsigned int pos;		/* next positional entry of sets[0] */
	struct dc_opt_rest *rest;	/* the REST entry once reached */
	bool verbatim;
	struct dc_err *err;
};

static bool *given_of(struct parse *p, int s)
{
	return p->sets[s].given ? p->sets[s].given : p->given_local[s];
}

static int find_long(struct parse *p, const char *name, size_t len, int *set)
{
	const struct dc_opt *o;
	int s;

	for (s = 0; s < p->nsets; s++)
		for (o = p->sets[s].tab; o && o->name; o++)
			if (!dc_opt_is_pos(o) && strlen(o->name) == len && !strncmp(o->name, name, len)) {
				*set = s;
				return (int)(o - p->sets[s].tab);
			}
	return -1;
}

static int find_short(struct parse *p, char c, int *set)
{
	const struct dc_opt *o;
	int s;

	for (s = 0; s < p->nsets; s++) {
		o = dc_opt_find_short(p->sets[s].tab, c);
		if (o) {
			*set = s;
			return (int)(o - p->sets[s].tab);
		}
	}
	return -1;
}

static int take(struct parse *p, int s, int idx, const char *val)
{
	const struct dc_opt *o = &p->sets[s].tab[idx];
	bool *given = given_of(p, s);
	char l[80];

	if (given[idx] && o->type != DC_OPT_FLAG && o->type != DC_OPT_LIST &&
	    !(o->flags & DC_OPT_F_REPEAT))
		return dc_err_set(p->err, EXIT_USAGE, "%s given twice", label(o, l, sizeof(l))), -1;
	/* a default list gives way to the first one on the command line */
	if (o->type == DC_OPT_LIST && !given[idx])
		((struct dc_opt_list *)((char *)p->sets[s].out + o->off))->n = 0;
	given[idx] = true;
	return dc_opt_set_value(o, p->sets[s].out, val, p->err);
}

static int unknown(struct parse *p, const char *arg, size_t len)
{
	char near[80];
	const struct dc_opt *tabs[4];
	int s;

	for (s = 0; s < p->nsets && s < 4; s++)
		tabs[s] = p->sets[s].tab;
	if (dc_suggest_opt(tabs, s, arg, len, near, sizeof(near)))
		return dc_err_set(p->err, EXIT_USAGE, "unknown option '%.*s' (did you mean %s?)",
				  (int)len, arg, near), -1;
	return dc_err_set(p->err, EXIT_USAGE, "unknown option '%.*s'", (int)len, arg), -1;
}

static int positional(struct parse *p, char **argv, int i, int *npos)
{
	const struct dc_opt *tab = p->sets[0].tab;
	const struct dc_opt *o;
	bool *given = given_of(p, 0);

	(*npos)++;
	if (p->rest) {
		p->rest->argc++;
		return 0;
	}
	while (tab[p->pos].name && !dc_opt_is_pos(&tab[p->pos]))
		p->pos++;
	o = &tab[p->pos];
	if (!o->name)
		return dc_err_set(p->err, EXIT_USAGE, "unexpected argument '%s'", argv[i]), -1;
	given[p->pos] = true;
	if (o->type == DC_OPT_REST) {
		/* argv[i] is where the positionals start once permuted (the caller
		 * fixes argv afterwards); only the count matters here */
		p->rest = (struct dc_opt_rest *)((char *)p->sets[0].out + o->off);
		p->rest->argc = 1;
		p->verbatim = o->flags & DC_OPT_F_VERBATIM;
		return 0;
	}
	p->pos++;
	return dc_opt_set_value(o, p->sets[0].out, argv[i], p->err);
}

static int missing(struct parse *p)
{
	const struct dc_opt *o;
	char l[80], mv[80];
	int s;

	for (s = 0; s < p->nsets; s++) {
		bool *given = given_of(p, s);

		for (o = p->sets[s].tab; o && o->name; o++) {
			if (!o->required || given[o - p->sets[s].tab])
				continue;
			if (dc_opt_is_pos(o))
				return dc_err_set(p->err, EXIT_USAGE, "missing %s", o->name), -1;
			return dc_err_set(p->err, EXIT_USAGE, "%s %s is required", label(o, l, sizeof(l)),
					  dc_opt_metavar(o, mv, sizeof(mv))), -1;
		}
	}
	return 0;
}

/* Move the positionals (marked in ispos) to the end of argv, in order. */
static void permute(int argc, char **argv, const bool *ispos, int npos)
{
	char *tmp[argc > 0 ? argc : 1];
	int i, a = 1, b = argc - npos;

	for (i = 1; i < argc; i++)
		tmp[ispos[i] ? b++ : a++] = argv[i];
	memcpy(argv + 1, tmp + 1, (size_t)(argc - 1) * sizeof(*argv));
}

/* A table may list help (for its help text and completion); seeing it
 * ends the parse, so `cmd --help` works without the required arguments. */
static bool is_help(const struct dc_opt *o)
{
	return o->type == DC_OPT_FLAG && !strcmp(o->name, "help");
}

static int long_opt(struct parse *p, int argc, char **argv, int *i)
{
	const char *a = argv[*i] + 2, *eq = strchr(a, '=');
	size_t len = eq ? (size_t)(eq - a) : strlen(a);
	const struct dc_opt *o;
	int s, idx;
	char l[80];

	idx = find_long(p, a, len, &s);
	if (idx < 0)
		return unknown(p, argv[*i], len + 2);
	o = &p->sets[s].tab[idx];
	if (is_help(o))
		return DC_OPTS_HELP;
	if (o->type == DC_OPT_FLAG) {
		if (eq)
			return dc_err_set(p->err, EXIT_USAGE, "%s takes no value",
					  label(o, l, sizeof(l))), -1;
		return take(p, s, idx, "");
	}
	if (eq)
		return take(p, s, idx, eq + 1);
	if (*i + 1 >= argc)
		return dc_err_set(p->err, EXIT_USAGE, "%s needs a value (%s)", label(o, l, sizeof(l)),
				  dc_opt_metavar(o, l + 40, 40)), -1;
	return take(p, s, idx, argv[++*i]);
}

static int short_opts(struct parse *p, int argc, char **argv, int *i, bool help_ok)
{
	const char *a = argv[*i] + 1;
	const struct dc_opt *o;
	char mv[40];
	int s, idx;

	for (; *a; a++) {
		idx = find_short(p, *a, &s);
		if (idx < 0) {
			if (*a == 'h' && help_ok)
				return DC_OPTS_HELP;
			return dc_err_set(p->err, EXIT_USAGE, "unknown option '-%c'", *a), -1;
		}
		o = &p->sets[s].tab[idx];
		if (is_help(o))
			return DC_OPTS_HELP;
		if (o->type == DC_OPT_FLAG) {
			if (take(p, s, idx, ""))
				return -1;
			continue;
		}
		if (a[1])	/* -cFILE */
			return take(p, s, idx, a + 1);
		if (*i + 1 >= argc)
			return dc_err_set(p->err, EXIT_USAGE, "-%c needs a value (%s)", *a,
					  dc_opt_metavar(o, mv, sizeof(mv))), -1;
		return take(p, s, idx, argv[++*i]);
	}
	return 0;
}

int dc_opts_parse_sets(const struct dc_opt_set *sets, int nsets, int argc, char **argv,
		       unsigned int flags, int *next, struct dc_err *err)
{
	struct parse p = { .sets = sets, .nsets = nsets, .err = err };
	bool help_ok = !(flags & DC_OPTS_NO_HELP), only_pos = false;
	bool ispos[argc > 0 ? argc : 1];
	int i, s, rc, npos = 0;

	if (nsets < 1 || nsets > 4)
		return dc_err_set(err, EXIT_USAGE, "internal: 1 to 4 option tables"), DC_OPTS_ERR;
	for (s = 0; s < nsets; s++)
		if (dc_opts_count(sets[s].tab) > DC_OPTS_MAX)
			return dc_err_set(err, EXIT_USAGE, "internal: more than %d options", DC_OPTS_MAX),
			       DC_OPTS_ERR;
	memset(ispos, 0, sizeof(ispos));
	if (next)
		*next = argc;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (only_pos || p.verbatim || a[0] != '-' || !a[1]) {
			if (flags & DC_OPTS_STOP_AT_POS) {
				if (next)
					*next = i;
				return missing(&p) ? DC_OPTS_ERR : DC_OPTS_OK;
			}
			ispos[i] = true;
			if (positional(&p, argv, i, &npos))
				return DC_OPTS_ERR;
			continue;
		}
		if (!strcmp(a, "--")) {
			only_pos = true;
			continue;
		}
		if (a[1] == '-') {
			if (help_ok && !strcmp(a, "--help") && find_long(&p, "help", 4, &s) < 0)
				return DC_OPTS_HELP;
			rc = long_opt(&p, argc, argv, &i);
		} else {
			rc = short_opts(&p, argc, argv, &i, help_ok);
		}
		if (rc)
			return rc > 0 ? DC_OPTS_HELP : DC_OPTS_ERR;
	}
	if (missing(&p))
		return DC_OPTS_ERR;
	if (npos && !(flags & DC_OPTS_STOP_AT_POS)) {
		permute(argc, argv, ispos, npos);
		if (p.rest)	/* the REST words are the last ones */
			p.rest->argv = argv + argc - p.rest->argc;
	}
	return DC_OPTS_OK;
}

int dc_opts_parse(const struct dc_opt *tab, void *out, int argc, char **argv, struct dc_err *err)
{
	struct dc_opt_set set = { .tab = tab, .out = out };

	if (dc_opts_defaults(tab, out, err))
		return DC_OPTS_ERR;
	return dc_opts_parse_sets(&set, 1, argc, argv, 0, NULL, err);
}
