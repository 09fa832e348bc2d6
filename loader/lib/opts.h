/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Typed option tables.  A command declares its options once, as an array
 * of struct dc_opt ending in { .name = NULL }; from it come the parsing
 * into the command's own struct, the validation with a reason, the help
 * text, bash completion and the man page (cmd.h, gen.c).
 *
 *	struct sim_args { __u32 ports; double load; int mode; const char *out; };
 *	static const struct dc_opt_name modes[] = { { "unit", 0 }, { "byte", 1 }, { NULL } };
 *	static const struct dc_opt sim_opts[] = {
 *		{ "ports", 0, DC_OPT_U64, DC_FIELD(struct sim_args, ports), "N",
 *		  .help = "switch ports", .def = "16", .umin = 1, .umax = 64 },
 *		{ "load", 0, DC_OPT_DOUBLE, DC_FIELD(struct sim_args, load), "L",
 *		  .help = "offered load", .def = "0.4", .dmin = 0, .dmax = 1 },
 *		{ "mode", 0, DC_OPT_ENUM, DC_FIELD(struct sim_args, mode), NULL,
 *		  .help = "buffer unit", .def = "unit", .names = modes },
 *		{ "out", 'o', DC_OPT_DIR, DC_FIELD(struct sim_args, out), "DIR",
 *		  .help = "CSV files" },
 *		{ NULL },
 *	};
 *
 * (.help by name: an entry that names at least one field is not warned
 * about for the fields it leaves out.)
 *
 * Syntax accepted: --name VALUE, --name=VALUE, -x VALUE, -xVALUE, flags
 * clustered (-jv), options before, between and after positionals, "--"
 * ends the options.  Long names match exactly (no abbreviations: an
 * abbreviation that works today breaks when an option is added).
 * A valued option given twice is refused unless DC_OPT_F_REPEAT; a flag
 * given twice is the same as once.
 */
#ifndef DCBPF_LIB_OPTS_H
#define DCBPF_LIB_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "err.h"

enum dc_opt_type {
	DC_OPT_END = 0,
	DC_OPT_FLAG,	/* bool, set to true; takes no value */
	DC_OPT_U64,	/* unsigned integer field of .size bytes, decimal or 0x hex */
	DC_OPT_S64,	/* signed integer field of .size bytes, decimal */
	DC_OPT_Q16,	/* decimal number stored as unsigned Q16.16 (x 65536, rounded) */
	DC_OPT_DOUBLE,	/* double; NaN and infinities refused */
	DC_OPT_STR,	/* const char *, pointing into argv */
	DC_OPT_PATH,	/* const char * naming a file: non-empty */
	DC_OPT_DIR,	/* const char * naming a directory: non-empty */
	DC_OPT_ENUM,	/* one of .names; its value stored in an integer of .size bytes */
	DC_OPT_LIST,	/* repeatable string, appended to a struct dc_opt_list */
	DC_OPT_REST,	/* positional only: all remaining arguments, struct dc_opt_rest */
};

#define DC_OPT_F_POS		(1u << 0)	/* positional, in table order */
#define DC_OPT_F_MIN_EXCL	(1u << 1)	/* DOUBLE, Q16: dmin itself refused */
#define DC_OPT_F_MAX_EXCL	(1u << 2)	/* DOUBLE, Q16: dmax itself refused */
#define DC_OPT_F_REPEAT		(1u << 3)	/* may be given again; the last wins */
#define DC_OPT_F_HIDDEN		(1u << 4)	/* parsed, but not in help or completion */
#define DC_OPT_F_VERBATIM	(1u << 5)	/* REST: from its first word on, nothing is
						 * an option (values such as "x=-1") */
#define DC_OPT_F_EXISTS		(1u << 6)	/* PATH, DIR: must exist when parsed */

struct dc_opt_name {
	const char *name;
	long long value;
};

#define DC_OPT_LIST_MAX 32
struct dc_opt_list {
	unsigned int n;
	const char *v[DC_OPT_LIST_MAX];
};

struct dc_opt_rest {
	int argc;
	char **argv;
};

struct dc_opt {
	const char *name;	/* long name without "--"; a positional's name in messages */
	char short_name;	/* 0: none; 'h' is reserved for help */
	enum dc_opt_type type;
	size_t off;		/* of the field in the caller's struct (DC_FIELD) */
	size_t size;		/* of that field: 1, 2, 4 or 8 for numbers and enums */
	const char *metavar;	/* "N", "FILE"; NULL: from the type */
	const char *help;
	bool required;
	const char *def;	/* default as a user would write it, parsed like one;
				 * NULL: the field keeps what the caller put there */
	unsigned long long umin, umax;	/* U64; both 0: the field's width */
	long long smin, smax;		/* S64; both 0: the field's width */
	double dmin, dmax;		/* DOUBLE, Q16; both 0: any finite value (Q16: >= 0) */
	const struct dc_opt_name *names;	/* ENUM, ends in { NULL } */
	unsigned int flags;		/* DC_OPT_F_* */
};

#define DC_FIELD(T, m) offsetof(T, m), sizeof(((T *)0)->m)

/* One table and the struct it fills.  given (optional, one bool per table
 * entry) says which were on the command line. */
struct dc_opt_set {
	const struct dc_opt *tab;
	void *out;
	bool *given;
};

#define DC_OPTS_MAX 64	/* entries per table */

/* dc_opts_parse_sets flags */
#define DC_OPTS_STOP_AT_POS	(1u << 0)	/* stop at the first positional: *next */
#define DC_OPTS_NO_HELP		(1u << 1)	/* --help, -h are not special */

enum {
	DC_OPTS_OK = 0,
	DC_OPTS_HELP = 1,	/* --help or -h seen: print help, exit 0 */
	DC_OPTS_ERR = -1,	/* err says why; err->code is EXIT_USAGE */
};

/* Apply every entry's default (.def) to out. */
int dc_opts_defaults(const struct dc_opt *tab, void *out, struct dc_err *err);
/* Defaults, then argv[1..argc-1] (argv[0] is the command's name). */
int dc_opts_parse(const struct dc_opt *tab, void *out, int argc, char **argv,
		  struct dc_err *err);
/*
 * argv[1..] against several tables, looked up in order (a command's own,
 * then the global options).  Positionals fill sets[0] only.  No defaults
 * applied.  argv may be permuted: positionals end up, in their order, at
 * the end.  With DC_OPTS_STOP_AT_POS, *next is the index of the first
 * positional (argc if none) and argv is not permuted.
 */
int dc_opts_parse_sets(const struct dc_opt_set *sets, int nsets, int argc, char **argv,
		       unsigned int flags, int *next, struct dc_err *err);
/* One value for one entry, as if given on the command line (no repeat check). */
int dc_opt_set_value(const struct dc_opt *o, void *out, const char *val, struct dc_err *err);

/* A table is well formed: unique names, sizes that fit the types, ranges
 * inside the field, defaults that parse, positionals in a workable order. */
int dc_opts_check(const struct dc_opt *tab, struct dc_err *err);

/* Lookup; NULL if absent.  name without dashes. */
const struct dc_opt *dc_opt_find(const struct dc_opt *tab, const char *name);
const struct dc_opt *dc_opt_find_short(const struct dc_opt *tab, char c);
unsigned int dc_opts_count(const struct dc_opt *tab);
static inline bool dc_opt_is_pos(const struct dc_opt *o)
{
	return (o->flags & DC_OPT_F_POS) || o->type == DC_OPT_REST;
}
static inline bool dc_opt_takes_value(const struct dc_opt *o)
{
	return o->type != DC_OPT_FLAG;
}

/* ---- text (opthelp.c) ---- */
/* The metavar shown: .metavar, or "a|b|c" for enums, or one from the type. */
const char *dc_opt_metavar(const struct dc_opt *o, char *buf, size_t len);
/* The allowed values in words ("1..64", "(0, 1024]", "unit|byte"); "" if any. */
void dc_opt_range(const struct dc_opt *o, char *buf, size_t len);
/* "required; allowed 1..64; default 16": what help adds after the text. */
void dc_opt_notes(const struct dc_opt *o, char *buf, size_t len);
/* " --out DIR [OPTIONS] NAME [KEY=VALUE...]": required options, then the
 * optional ones as [OPTIONS], then the positionals. */
void dc_opts_synopsis(const struct dc_opt *tab, char *buf, size_t len);
/* The aligned, wrapped "Options:" / "Arguments:" blocks; width 0: 80. */
void dc_opts_help(FILE *f, const struct dc_opt *tab, const char *title, unsigned int width);

#endif
