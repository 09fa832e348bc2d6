/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The command table: every command and subcommand of a program declared
 * once, with its options (opts.h), one line of summary and, if the
 * generated synopsis does not say enough, its own usage.  One dispatcher
 * walks it; one context carries the global options to every command.
 *
 *	static const struct dc_cmd sw_cmds[] = {
 *		{ "up", sw_up, sw_up_opts, sizeof(struct sw_up_args), "bring a switch up" },
 *		{ "down", sw_down, sw_down_opts, sizeof(struct sw_down_args), "take it down" },
 *		{ NULL },
 *	};
 *	static const struct dc_cmd cmds[] = {
 *		{ "switch", .sub = sw_cmds, .summary = "emulated switches" },
 *		...
 *	};
 *
 * Names match exactly.  bpftool also takes unambiguous prefixes ("p s"
 * for "prog show"); here scripts and tests call the commands, and a
 * prefix that works today stops working when a command is added next to
 * it (status, set, sim and switch already share "s").  An unknown name
 * gets a suggestion instead.
 *
 * Help: `help`, `--help` and `-h` at every level (`dcbpf switch help`,
 * `dcbpf switch up --help`, `dcbpf help switch up`); with --json the help
 * is a JSON object.  Exit codes: cli.h.  In JSON mode an error is
 * one object on stdout: {"error": "...", "code": N, "command": "..."}.
 */
#ifndef DCBPF_LIB_CMD_H
#define DCBPF_LIB_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "json.h"
#include "err.h"
#include "opts.h"

struct dc_ctx;

/* argv[0] is the command's own name; with a table, ctx->opts holds the
 * parsed options and argv has the positionals last (opts.h). */
typedef int (*dc_cmd_fn)(struct dc_ctx *ctx, int argc, char **argv);

/* A command that is a function of its parsed options alone:
 * DC_CMD_OF_OPTS(status_cmd, dc_x_status_run) defines status_cmd, which
 * returns dc_x_status_run(ctx, ctx->opts). */
#define DC_CMD_OF_OPTS(name, run)                                     \
	static int name(struct dc_ctx *ctx, int argc, char **argv)    \
	{                                                             \
		(void)argc;                                           \
		(void)argv;                                           \
		return run(ctx, ctx->opts);                           \
	}

#define DC_CMD_F_ROOT	(1u << 0)	/* needs root: the app's need_root decides */
#define DC_CMD_F_HIDDEN	(1u << 1)	/* runs, but not listed in help, completion, man */
#define DC_CMD_F_RAW	(1u << 2)	/* opts == NULL and fn answers its --help too: an
					 * old entry point not yet on a table */

struct dc_cmd {
	const char *name;
	dc_cmd_fn fn;			/* a group's fn runs when no subcommand is named */
	const struct dc_opt *opts;	/* NULL: fn parses argv itself (only a first
					 * --help or -h is answered for it) */
	size_t opts_size;		/* the struct opts fills, ctx->opts */
	const char *summary;		/* one line */
	const char *usage;		/* after "usage: PROG PATH"; NULL: from opts */
	const struct dc_cmd *sub;	/* subcommands, ending in { NULL } */
	unsigned int flags;		/* DC_CMD_F_* */
	const char *doc;		/* more help text, printed after the summary */
};

#define DC_CMD_DEPTH_MAX 6

struct dc_app {
	const char *name;		/* "dcbpf" */
	const char *version;		/* for --version */
	const char *summary;
	const struct dc_cmd *cmds;
	const char *doc;		/* after the top-level command list */
	const char *default_config;	/* shown in help; ctx->config starts here */
	/* After the global options, before the first command runs (not for
	 * help): read the config, settle ctx->pin_dir. */
	int (*setup)(struct dc_ctx *ctx, struct dc_err *err);
	/* For DC_CMD_F_ROOT commands; NULL: effective uid 0 is required. */
	int (*need_root)(struct dc_ctx *ctx, struct dc_err *err);
	/* --version, text or JSON (ctx->json) on ctx->out; NULL: "NAME VERSION". */
	void (*print_version)(struct dc_ctx *ctx);
};

struct dc_ctx {
	const struct dc_app *app;
	/* global options (dc_global_opts), before or after the command */
	const char *config;		/* --config FILE, else app->default_config */
	const char *pin_dir;		/* --pin-dir DIR, else NULL until setup */
	bool json;
	bool verbose;			/* --verbose: libbpf's messages on stderr */
	bool version;
	bool help;			/* never set: --help ends the parse */
	bool global_given[8];		/* per dc_global_opts entry */
	/* output: commands write here; the library only for help and errors */
	FILE *out, *errf;
	struct jw jw;			/* on out */
	/* the command running */
	const struct dc_cmd *cmd;
	const char *path[DC_CMD_DEPTH_MAX];	/* "switch", "up" */
	int depth;
	void *opts;			/* cmd->opts parsed, cmd->opts_size bytes */
	struct dc_err err;		/* a command may fill it and return its code */
	bool setup_done;
	void *user;			/* the app's own state (its config) */
};

extern const struct dc_opt dc_global_opts[];

void dc_ctx_init(struct dc_ctx *ctx, const struct dc_app *app, FILE *out, FILE *errf);
/* The whole program: global options, then the command.  Returns the exit code. */
int dc_main(struct dc_ctx *ctx, int argc, char **argv);
/* Within a command: run a subcommand table on argv (argv[0] = its name). */
int dc_dispatch(struct dc_ctx *ctx, const struct dc_cmd *tab, int argc, char **argv);
/* Fill ctx->err and return code: `return dc_fail(ctx, EXIT_USAGE, "...")`. */
int dc_fail(struct dc_ctx *ctx, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Write ctx->err: text on errf ("dcbpf switch up: why"), or a JSON object on out. */
void dc_report(struct dc_ctx *ctx);
/* Was the global option NAME (e.g. "config") on the command line? */
bool dc_ctx_given(const struct dc_ctx *ctx, const char *name);
/* "dcbpf switch up" */
void dc_ctx_path(const struct dc_ctx *ctx, char *buf, size_t len);

/* Exact lookup; NULL if absent (hidden commands are found). */
const struct dc_cmd *dc_cmd_find(const struct dc_cmd *tab, const char *name);

/* Every command, depth first in table order; path[0..depth] names it.
 * A non-zero return from fn stops the walk and is returned. */
typedef int (*dc_walk_fn)(const struct dc_cmd *cmd, const char *const *path, int depth, void *arg);
/* The command path as words ("switch up") into buf. */
void dc_cmd_path_str(const char *const *path, int depth, char *buf, size_t len);
int dc_cmd_walk(const struct dc_cmd *tab, bool hidden, dc_walk_fn fn, void *arg);
/* Every table sound: names, summaries, a fn or subcommands, option tables
 * (dc_opts_check) that fit opts_size and do not shadow a global option. */
int dc_cmds_check(const struct dc_cmd *tab, struct dc_err *err);

/* ---- help (cmdhelp.c) ---- */
/* Help of the command at path (depth entries; 0: the program), as text or JSON. */
void dc_help(FILE *f, const struct dc_app *app, const struct dc_cmd *cmd, const char *const *path,
	     int depth, bool json);
/* The usage line(s) only: "usage: dcbpf switch up ..." */
void dc_usage(FILE *f, const struct dc_app *app, const struct dc_cmd *cmd, const char *const *path,
	      int depth);

/* ---- generated files (gen.c) ---- */
/* A bash completion script for app: `complete -F _NAME NAME`. */
void dc_gen_bash_completion(FILE *f, const struct dc_app *app);
/* A man page (section 8) of the app: synopsis, global options, every
 * command with its options, exit status.  date: "2024-05-01" or NULL. */
void dc_gen_man(FILE *f, const struct dc_app *app, const char *date);

#endif
