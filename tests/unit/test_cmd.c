// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * The command table (loader/lib/cmd.h): dispatch, help at every level,
 * global options, errors as text and as JSON, the walk, the table checks,
 * and the generated bash completion and man page.
 *
 *   test_cmd            run the checks
 *   test_cmd --bash     print the sample program's completion script
 *   test_cmd --man      print its man page
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "loader/lib/cli.h"
#include "loader/lib/cmd.h"

/* ---- a sample program ---- */

struct up_args {
	const char *name;
	uint32_t ports, rate_mbps;
	int xdp_mode;
	struct dc_opt_rest kv;
};
struct name_args {
	const char *name;
};
struct get_args {
	const char *key;
};
struct set_args {
	struct dc_opt_rest kv;
};
struct sim_args {
	int alg;
	double load;
	const char *out;
};

static const struct dc_opt_name xdp_modes[] = { { "generic", 0 }, { "native", 1 }, { NULL } };
static const struct dc_opt_name algs[] = { { "dt", 0 }, { "lqd", 1 }, { "credence", 2 }, { NULL } };

static const struct dc_opt up_opts[] = {
	{ "NAME", 0, DC_OPT_STR, DC_FIELD(struct up_args, name), NULL, .help = "the switch",
	  .required = true, .flags = DC_OPT_F_POS, .umax = 15 },
	{ "KEY=VALUE", 0, DC_OPT_REST, DC_FIELD(struct up_args, kv), NULL,
	  .help = "switch parameters (demo switch params)" },
	{ "ports", 'p', DC_OPT_U64, DC_FIELD(struct up_args, ports), "N", .help = "ports to attach",
	  .required = true, .umin = 1, .umax = 64 },
	{ "rate-mbps", 0, DC_OPT_U64, DC_FIELD(struct up_args, rate_mbps), "N",
	  .help = "line rate of every port", .def = "1000", .umin = 1, .umax = 400000 },
	{ "xdp-mode", 0, DC_OPT_ENUM, DC_FIELD(struct up_args, xdp_mode), NULL,
	  .help = "how XDP attaches", .def = "generic", .names = xdp_modes },
	{ NULL },
};
static const struct dc_opt name_opts[] = {
	{ "NAME", 0, DC_OPT_STR, DC_FIELD(struct name_args, name), NULL, .help = "the switch",
	  .required = true, .flags = DC_OPT_F_POS },
	{ NULL },
};
static const struct dc_opt no_opts[] = { { NULL } };
static const struct dc_opt get_opts[] = {
	{ "KEY", 0, DC_OPT_STR, DC_FIELD(struct get_args, key), "CC[.KEY]", .help = "what to read",
	  .flags = DC_OPT_F_POS },
	{ NULL },
};
static const struct dc_opt set_opts[] = {
	{ "KEY=VALUE", 0, DC_OPT_REST, DC_FIELD(struct set_args, kv), "CC.KEY=VALUE",
	  .help = "assignments, all or nothing", .required = true, .flags = DC_OPT_F_VERBATIM },
	{ NULL },
};
static const struct dc_opt sim_opts[] = {
	{ "alg", 0, DC_OPT_ENUM, DC_FIELD(struct sim_args, alg), NULL, .help = "buffer sharing",
	  .def = "dt", .names = algs },
	{ "load", 0, DC_OPT_DOUBLE, DC_FIELD(struct sim_args, load), "L", .help = "offered load",
	  .def = "0.4", .dmin = 0, .dmax = 1 },
	{ "out", 'o', DC_OPT_DIR, DC_FIELD(struct sim_args, out), NULL, .help = "CSV files here" },
	{ NULL },
};

static int setups;

static int fn_status(struct dc_ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_bool(&ctx->jw, "ok", true);
		jw_str(&ctx->jw, "pin_dir", ctx->pin_dir ? ctx->pin_dir : "");
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		fprintf(ctx->out, "status ok pin_dir=%s\n", ctx->pin_dir ? ctx->pin_dir : "-");
	}
	return EXIT_OK;
}

static int fn_get(struct dc_ctx *ctx, int argc, char **argv)
{
	struct get_args *a = ctx->opts;

	(void)argc;
	(void)argv;
	if (a->key && !strcmp(a->key, "missing"))
		return dc_fail(ctx, EXIT_ERR, "no entry for '%s'", a->key);
	if (a->key && !strncmp(a->key, "bad", 3))
		return dc_fail(ctx, EXIT_USAGE, "'%s' is not a key", a->key);
	fprintf(ctx->out, "get %s\n", a->key ? a->key : "(all)");
	return EXIT_OK;
}

static int fn_set(struct dc_ctx *ctx, int argc, char **argv)
{
	struct set_args *a = ctx->opts;
	int i;

	(void)argc;
	(void)argv;
	fprintf(ctx->out, "set");
	for (i = 0; i < a->kv.argc; i++)
		fprintf(ctx->out, " %s", a->kv.argv[i]);
	fprintf(ctx->out, "\n");
	return EXIT_OK;
}

static int fn_up(struct dc_ctx *ctx, int argc, char **argv)
{
	struct up_args *a = ctx->opts;

	(void)argc;
	(void)argv;
	fprintf(ctx->out, "up %s ports=%u rate=%u mode=%d kv=%d pin_dir=%s\n", a->name, a->ports,
		a->rate_mbps, a->xdp_mode, a->kv.argc, ctx->pin_dir ? ctx->pin_dir : "-");
	return EXIT_OK;
}

static int fn_down(struct dc_ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(ctx->out, "down %s\n", ((struct name_args *)ctx->opts)->name);
	return EXIT_OK;
}

static int fn_list(struct dc_ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(ctx->out, "list\n");
	return EXIT_OK;
}

static int fn_sim(struct dc_ctx *ctx, int argc, char **argv)
{
	struct sim_args *a = ctx->opts;

	(void)argc;
	(void)argv;
	fprintf(ctx->out, "sim alg=%d load=%g json=%d\n", a->alg, a->load, ctx->json);
	return EXIT_OK;
}

/* parses its own arguments: sees them as given */
static int fn_trace(struct dc_ctx *ctx, int argc, char **argv)
{
	int i;

	fprintf(ctx->out, "trace");
	for (i = 0; i < argc; i++)
		fprintf(ctx->out, " %s", argv[i]);
	fprintf(ctx->out, "\n");
	return EXIT_OK;
}

static const struct dc_cmd sw_cmds[] = {
	{ "up", fn_up, up_opts, sizeof(struct up_args), .summary = "bring an emulated switch up",
	  .flags = DC_CMD_F_ROOT, .doc = "Attaches XDP to every port and pins the switch's maps." },
	{ "down", fn_down, name_opts, sizeof(struct name_args), .summary = "take it down", .flags = DC_CMD_F_ROOT },
	{ "list", fn_list, no_opts, 0, .summary = "the switches that are up" },
	{ NULL },
};

static const struct dc_cmd cmds[] = {
	{ "status", fn_status, no_opts, 0, .summary = "daemon, CCs, pinned maps" },
	{ "get", fn_get, get_opts, sizeof(struct get_args), .summary = "live parameters" },
	{ "set", fn_set, set_opts, sizeof(struct set_args), .summary = "change live parameters" },
	{ "switch", NULL, NULL, 0, .summary = "emulated switches", .sub = sw_cmds },
	{ "sim", fn_sim, sim_opts, sizeof(struct sim_args), .summary = "buffer-sharing simulator" },
	{ "trace", fn_trace, NULL, 0, .summary = "stream per-ACK decisions",
	  .usage = "[--csv] [--count N]\n--switch NAME [--csv]" },
	{ "secret", fn_list, no_opts, 0, .summary = "not listed", .flags = DC_CMD_F_HIDDEN },
	{ NULL },
};

static bool root_ok = true;

static int need_root(struct dc_ctx *ctx, struct dc_err *e)
{
	(void)ctx;
	if (root_ok)
		return 0;
	return dc_err_set(e, EXIT_ERR, "needs root");
}

static int setup(struct dc_ctx *ctx, struct dc_err *e)
{
	(void)e;
	setups++;
	if (!ctx->pin_dir)
		ctx->pin_dir = "/sys/fs/bpf/demo";
	return 0;
}

static const struct dc_app app = {
	.name = "demo",
	.version = "1.2.3",
	.summary = "a sample program",
	.cmds = cmds,
	.default_config = "/etc/demo.conf",
	.setup = setup,
	.need_root = need_root,
};

/* A second program: an old entry point that answers its own --help
 * (DC_CMD_F_RAW) next to one that does not, and its own --version. */
static const struct dc_cmd old_cmds[] = {
	{ "old", fn_trace, NULL, 0, .summary = "an entry point not on a table yet",
	  .flags = DC_CMD_F_RAW },
	{ "new", fn_trace, NULL, 0, .summary = "parses its own arguments, help from the table" },
	{ NULL },
};

static void long_version(struct dc_ctx *ctx)
{
	if (ctx->json)
		fprintf(ctx->out, "{\"version\":\"1.2.3\",\"git\":\"abc\"}\n");
	else
		fprintf(ctx->out, "old 1.2.3\ngit: abc\n");
}

static const struct dc_app old_app = {
	.name = "old",
	.version = "1.2.3",
	.summary = "a program in the middle of moving onto tables",
	.cmds = old_cmds,
	.print_version = long_version,
};

/* ---- running it ---- */

static const struct dc_app *run_app = &app;

static char *out_buf, *err_buf;
static int rc;

static int run_v(char **words)
{
	struct dc_ctx ctx;
	size_t olen = 0, elen = 0;
	FILE *o, *e;
	char *argv[40];
	int argc = 1;

	free(out_buf);
	free(err_buf);
	out_buf = err_buf = NULL;
	o = open_memstream(&out_buf, &olen);
	e = open_memstream(&err_buf, &elen);
	argv[0] = "demo";
	while (words[argc - 1] && argc < 39) {
		argv[argc] = words[argc - 1];
		argc++;
	}
	argv[argc] = NULL;
	dc_ctx_init(&ctx, run_app, o, e);
	setups = 0;
	rc = dc_main(&ctx, argc, argv);
	fclose(o);
	fclose(e);
	return rc;
}
#define RUN(...) run_v((char *[]){ __VA_ARGS__, NULL })

static bool starts(const char *s, const char *p)
{
	return s && !strncmp(s, p, strlen(p));
}

/* ---- a JSON syntax check (one value, then only whitespace) ---- */

static const char *ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static const char *jvalue(const char *p, int depth);

static const char *jstring(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p && *p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				int i;

				for (i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
						return NULL;
				p += 4;
			} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
				return NULL;
			}
		}
		p++;
	}
	return *p == '"' ? p + 1 : NULL;
}

static const char *jvalue(const char *p, int depth)
{
	p = ws(p);
	if (depth > 32)
		return NULL;
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';

		p = ws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				p = jstring(ws(p));
				if (!p || *(p = ws(p)) != ':')
					return NULL;
				p++;
			}
			p = jvalue(p, depth + 1);
			if (!p)
				return NULL;
			p = ws(p);
			if (*p == close)
				return p + 1;
			if (*p++ != ',')
				return NULL;
		}
	}
	if (*p == '"')
		return jstring(p);
	if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	if (*p == '-' || (*p >= '0' && *p <= '9')) {
		char *end;

		strtod(p, &end);
		return end > p ? end : NULL;
	}
	return NULL;
}

static bool json_ok(const char *s)
{
	const char *p = s ? jvalue(s, 0) : NULL;

	return p && !*ws(p);
}

/* jq, where installed, agrees (filter must be true) */
static void check_jq(const char *name, const char *json, const char *filter)
{
	char cmd[512], path[] = "/tmp/test_cmd_jq.XXXXXX";
	int fd = mkstemp(path), st;
	FILE *f;

	if (system("command -v jq >/dev/null 2>&1")) {
		printf("SKIP: %s: jq not installed\n", name);
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		return;
	}
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		CHECK(name, false, "cannot write %s", path);
		return;
	}
	fputs(json, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "jq -e '%s' %s >/dev/null 2>&1", filter, path);
	st = system(cmd);
	unlink(path);
	CHECK(name, st == 0, "jq -e '%s' on %s", filter, json);
}

/* ---- tests ---- */

static void test_dispatch(void)
{
	RUN("status");
	CHECK("a command runs, setup first", rc == 0 && !strcmp(out_buf, "status ok pin_dir=/sys/fs/bpf/demo\n") &&
	      setups == 1, "rc %d out '%s' setups %d", rc, out_buf, setups);
	RUN("switch", "up", "sw1", "--ports", "3", "ecn_k=64", "--xdp-mode=native", "alg=dt");
	CHECK("a subcommand with options and positionals interleaved",
	      rc == 0 && !strcmp(out_buf, "up sw1 ports=3 rate=1000 mode=1 kv=2 pin_dir=/sys/fs/bpf/demo\n"),
	      "rc %d out '%s' err '%s'", rc, out_buf, err_buf);
	RUN("set", "powertcp.gamma=-1", "--json");
	CHECK("a verbatim REST keeps '-' words", rc == 0 && !strcmp(out_buf, "set powertcp.gamma=-1 --json\n"),
	      "rc %d out '%s'", rc, out_buf);
	RUN("trace", "--count", "5", "--csv");
	CHECK("a command without a table sees its argv", rc == 0 && !strcmp(out_buf, "trace trace --count 5 --csv\n"),
	      "rc %d out '%s'", rc, out_buf);
	RUN("secret");
	CHECK("a hidden command runs", rc == 0 && !strcmp(out_buf, "list\n"), "rc %d", rc);
	run_v((char *[]){ NULL });
	CHECK("no command: usage error", rc == EXIT_USAGE &&
	      starts(err_buf, "demo: a command is needed\nusage: demo [GLOBAL OPTIONS] COMMAND [ARGS]\n") &&
	      !out_buf[0], "rc %d err '%s'", rc, err_buf);
	RUN("stauts");
	CHECK("unknown command, suggested", rc == EXIT_USAGE &&
	      starts(err_buf, "demo: unknown command 'stauts' (did you mean 'status'?)\n"), "rc %d err '%s'", rc, err_buf);
	RUN("stat");
	CHECK("no prefixes: 'stat' is not status", rc == EXIT_USAGE &&
	      starts(err_buf, "demo: unknown command 'stat' (did you mean 'status'?)\n"), "rc %d err '%s'", rc, err_buf);
	RUN("switch", "bogus");
	CHECK("unknown subcommand names its group and lists the choices", rc == EXIT_USAGE &&
	      !strcmp(err_buf, "demo switch: unknown command 'bogus'\nusage: demo switch {up|down|list} [ARGS]\n"),
	      "rc %d err '%s'", rc, err_buf);
	RUN("switch");
	CHECK("a group without a subcommand", rc == EXIT_USAGE &&
	      starts(err_buf, "demo switch: a subcommand is needed\n"), "rc %d err '%s'", rc, err_buf);
	RUN("switch", "up", "--ports", "0", "sw1");
	CHECK("a bad value: the command, the reason, its usage", rc == EXIT_USAGE && setups == 0 &&
	      !strcmp(err_buf, "demo switch up: --ports: 0 is below the minimum 1\n"
			       "usage: demo switch up --ports N [OPTIONS] NAME [KEY=VALUE...]\n"),
	      "rc %d err '%s'", rc, err_buf);
	RUN("switch", "up", "sw1");
	CHECK("a required option missing", rc == EXIT_USAGE && starts(err_buf, "demo switch up: --ports N is required\n"),
	      "rc %d err '%s'", rc, err_buf);
	RUN("status", "extra");
	CHECK("a command without arguments refuses one", rc == EXIT_USAGE &&
	      starts(err_buf, "demo status: unexpected argument 'extra'\n"), "rc %d err '%s'", rc, err_buf);
	RUN("get", "missing");
	CHECK("a runtime failure: exit 1, reason on stderr, no usage", rc == EXIT_ERR &&
	      !strcmp(err_buf, "demo get: no entry for 'missing'\n") && !out_buf[0], "rc %d err '%s'", rc, err_buf);
	RUN("get", "bad");
	CHECK("a usage failure from the command: reason and usage", rc == EXIT_USAGE &&
	      !strcmp(err_buf, "demo get: 'bad' is not a key\nusage: demo get [CC[.KEY]]\n"), "rc %d err '%s'", rc, err_buf);
	root_ok = false;
	RUN("switch", "down", "sw1");
	CHECK("a root command without root: exit 1, not run", rc == EXIT_ERR && !out_buf[0] &&
	      !strcmp(err_buf, "demo switch down: needs root\n"), "rc %d out '%s' err '%s'", rc, out_buf, err_buf);
	RUN("switch", "list");
	CHECK("a command without the root flag runs", rc == 0 && !strcmp(out_buf, "list\n"), "rc %d", rc);
	root_ok = true;
}

static void test_globals(void)
{
	RUN("--pin-dir", "/x", "status");
	CHECK("--pin-dir before the command", rc == 0 && !strcmp(out_buf, "status ok pin_dir=/x\n"), "out '%s'", out_buf);
	RUN("status", "-d", "/y");
	CHECK("-d after the command", rc == 0 && !strcmp(out_buf, "status ok pin_dir=/y\n"), "out '%s'", out_buf);
	RUN("-d", "/a", "status", "--pin-dir", "/b");
	CHECK("a global option twice", rc == EXIT_USAGE && starts(err_buf, "demo status: --pin-dir given twice\n"),
	      "rc %d err '%s'", rc, err_buf);
	RUN("--pin-dir", "", "status");
	CHECK("--pin-dir ''", rc == EXIT_USAGE && starts(err_buf, "demo: --pin-dir: an empty directory name\n"),
	      "rc %d err '%s'", rc, err_buf);
	RUN("sim", "--json", "--load", "0.5");
	CHECK("--json after the command", rc == 0 && !strcmp(out_buf, "sim alg=0 load=0.5 json=1\n"), "out '%s'", out_buf);
	RUN("--jsn", "status");
	CHECK("unknown global option, suggested", rc == EXIT_USAGE &&
	      starts(err_buf, "demo: unknown option '--jsn' (did you mean --json?)\n"), "rc %d err '%s'", rc, err_buf);
	RUN("--version");
	CHECK("--version", rc == 0 && !strcmp(out_buf, "demo 1.2.3\n") && setups == 0, "out '%s'", out_buf);
	RUN("-j", "-V");
	CHECK("--json --version", rc == 0 && !strcmp(out_buf, "{\"name\":\"demo\",\"version\":\"1.2.3\"}\n"),
	      "out '%s'", out_buf);
	RUN("--json", "status");
	CHECK("--json reaches the command", rc == 0 && json_ok(out_buf) && strstr(out_buf, "\"ok\":true"),
	      "out '%s'", out_buf);
	RUN("--version", "status");
	CHECK("--version with a command is a usage error", rc == EXIT_USAGE && !out_buf[0] &&
	      starts(err_buf, "demo: --version takes no command ('status')\n"), "rc %d err '%s'", rc, err_buf);
}

/* The app's own --version and DC_CMD_F_RAW (old_app). */
static void test_hooks(void)
{
	run_app = &old_app;
	RUN("--version");
	CHECK("print_version writes --version", rc == 0 && !strcmp(out_buf, "old 1.2.3\ngit: abc\n"),
	      "rc %d out '%s'", rc, out_buf);
	RUN("-j", "-V");
	CHECK("print_version with --json", rc == 0 && !strcmp(out_buf, "{\"version\":\"1.2.3\",\"git\":\"abc\"}\n"),
	      "rc %d out '%s'", rc, out_buf);
	RUN("old", "--help");
	CHECK("a DC_CMD_F_RAW command gets its --help itself", rc == 0 && !strcmp(out_buf, "trace old --help\n"),
	      "rc %d out '%s'", rc, out_buf);
	RUN("old", "-h", "x");
	CHECK("a DC_CMD_F_RAW command gets -h itself", rc == 0 && !strcmp(out_buf, "trace old -h x\n"),
	      "rc %d out '%s'", rc, out_buf);
	RUN("new", "--help");
	CHECK("without DC_CMD_F_RAW the table answers --help", rc == 0 && starts(out_buf, "usage: old new [ARGS]\n"),
	      "rc %d out '%s'", rc, out_buf);
	RUN("help", "old");
	CHECK("help old: from the table even for a DC_CMD_F_RAW command", rc == 0 &&
	      starts(out_buf, "usage: old old [ARGS]\n"), "rc %d out '%s'", rc, out_buf);
	run_app = &app;
}

static void test_json_errors(void)
{
	RUN("--json", "switch", "bogus");
	CHECK("JSON mode: the error is an object on stdout, nothing on stderr", rc == EXIT_USAGE && !err_buf[0] &&
	      !strcmp(out_buf, "{\"error\":\"unknown command 'bogus'\",\"code\":2,\"command\":\"demo switch\"}\n"),
	      "rc %d out '%s' err '%s'", rc, out_buf, err_buf);
	check_jq("jq reads the usage error", out_buf, ".code == 2 and (.error | test(\"unknown command\"))");
	RUN("get", "missing", "--json");
	CHECK("JSON mode: a runtime error has code 1", rc == EXIT_ERR && json_ok(out_buf) &&
	      strstr(out_buf, "\"code\":1") && !err_buf[0], "rc %d out '%s'", rc, out_buf);
	check_jq("jq reads the runtime error", out_buf, ".code == 1 and .command == \"demo get\"");
	RUN("--json", "sim", "--load", "nan");
	CHECK("JSON mode: a bad value", rc == EXIT_USAGE && json_ok(out_buf) &&
	      strstr(out_buf, "--load: nan is not a number"), "rc %d out '%s'", rc, out_buf);
	RUN("-j", "set", "a=\"quoted\"\\", "--", "x");
	CHECK("JSON mode: a value with quotes and a backslash stays valid", rc == 0, "rc %d", rc);
	RUN("-j", "get", "bad\"\n");
	CHECK("JSON mode: an error quoting bad input is escaped", rc == EXIT_USAGE && json_ok(out_buf),
	      "out '%s'", out_buf);
	check_jq("jq reads the escaped error", out_buf, ".error | test(\"not a key\")");
}

static void test_help(void)
{
	static const char top[] =
		"usage: demo [GLOBAL OPTIONS] COMMAND [ARGS]\n"
		"a sample program\n"
		"\n"
		"Commands:\n"
		"  status  daemon, CCs, pinned maps\n"
		"  get     live parameters\n"
		"  set     change live parameters\n"
		"  switch  emulated switches\n"
		"  sim     buffer-sharing simulator\n"
		"  trace   stream per-ACK decisions\n"
		"\n"
		"Global options:\n"
		"  -j, --json         JSON output (errors too: {\"error\": ..., \"code\": N})\n"
		"  -d, --pin-dir DIR  pinned state under DIR, over the config's (at most 255\n"
		"                     bytes)\n"
		"  -c, --config FILE  read pin_dir and lock_file from FILE\n"
		"  -V, --version      print the version and exit\n"
		"  -h, --help         print help and exit\n"
		"The config file is /etc/demo.conf unless --config names another.\n"
		"Run 'demo COMMAND --help' for a command's arguments.\n"
		"Exit: 0 ok, 1 runtime error, 2 usage error (bad command, option or value).\n";
	static const char sw[] =
		"usage: demo switch {up|down|list} [ARGS]\n"
		"emulated switches\n"
		"\n"
		"Commands:\n"
		"  up    bring an emulated switch up\n"
		"  down  take it down\n"
		"  list  the switches that are up\n"
		"Run 'demo switch COMMAND --help' for a command's arguments.\n"
		"Global options: --json, --pin-dir DIR, --config FILE (demo --help)\n";
	static const char up[] =
		"usage: demo switch up --ports N [OPTIONS] NAME [KEY=VALUE...]\n"
		"bring an emulated switch up\n"
		"\n"
		"Attaches XDP to every port and pins the switch's maps.\n"
		"\n"
		"Arguments:\n"
		"  NAME       the switch (at most 15 bytes)\n"
		"  KEY=VALUE  switch parameters (demo switch params)\n"
		"Options:\n"
		"  -p, --ports N               ports to attach (required; allowed 1..64)\n"
		"      --rate-mbps N           line rate of every port (allowed 1..400000;\n"
		"                              default 1000)\n"
		"      --xdp-mode generic|native\n"
		"                              how XDP attaches (default generic)\n"
		"Global options: --json, --pin-dir DIR, --config FILE (demo --help)\n";
	char *first = NULL;

	RUN("--help");
	CHECK("top-level help, exact", rc == 0 && !strcmp(out_buf, top) && setups == 0, "got:\n%s", out_buf);
	first = strdup(out_buf);
	RUN("help");
	CHECK("'help' is '--help'", rc == 0 && !strcmp(out_buf, first), "got:\n%s", out_buf);
	RUN("-h");
	CHECK("'-h' is '--help'", rc == 0 && !strcmp(out_buf, first), "got:\n%s", out_buf);
	free(first);
	RUN("switch", "help");
	CHECK("group help, exact", rc == 0 && !strcmp(out_buf, sw), "got:\n%s", out_buf);
	RUN("switch", "--help");
	CHECK("group --help", rc == 0 && !strcmp(out_buf, sw), "got:\n%s", out_buf);
	RUN("help", "switch");
	CHECK("help GROUP", rc == 0 && !strcmp(out_buf, sw), "got:\n%s", out_buf);
	RUN("switch", "up", "--help");
	CHECK("leaf help without its required arguments, exact", rc == 0 && !strcmp(out_buf, up) && setups == 0,
	      "got:\n%s", out_buf);
	RUN("switch", "up", "sw1", "--ports", "70", "-h");
	CHECK("leaf -h after a bad value still errors first", rc == EXIT_USAGE, "rc %d", rc);
	RUN("help", "switch", "up");
	CHECK("help GROUP CMD", rc == 0 && !strcmp(out_buf, up), "got:\n%s", out_buf);
	RUN("help", "switch", "nope");
	CHECK("help of an unknown command", rc == EXIT_USAGE && strstr(err_buf, "no command 'nope' to help with"),
	      "rc %d err '%s'", rc, err_buf);
	RUN("trace", "--help");
	CHECK("help of a command without a table uses its usage lines", rc == 0 &&
	      starts(out_buf, "usage: demo trace [--csv] [--count N]\n                  --switch NAME [--csv]\n"
			      "stream per-ACK decisions\n"), "got:\n%s", out_buf);
	RUN("--json", "switch", "up", "--help");
	CHECK("JSON help parses", rc == 0 && json_ok(out_buf), "got:\n%s", out_buf);
	check_jq("JSON help lists the options", out_buf,
		 ".command == \"demo switch up\" and ([.options[].name] == [\"ports\", \"rate-mbps\", \"xdp-mode\"]) "
		 "and .options[0].required and .arguments[0].name == \"NAME\"");
	RUN("--json", "--help");
	check_jq("JSON top help lists the commands, not the hidden one", out_buf,
		 "[.commands[].name] == [\"status\", \"get\", \"set\", \"switch\", \"sim\", \"trace\"]");
}

/* ---- walk ---- */

struct seen {
	char names[32][40];
	int n;
	int stop_at;
};

static int collect(const struct dc_cmd *c, const char *const *path, int depth, void *arg)
{
	struct seen *s = arg;
	char *b = s->names[s->n];
	int i;

	(void)c;
	b[0] = '\0';
	for (i = 0; i <= depth; i++)
		snprintf(b + strlen(b), 40 - strlen(b), "%s%s", i ? " " : "", path[i]);
	s->n++;
	return s->n == s->stop_at ? 7 : 0;
}

/* Every command answers --help and --json --help with JSON that parses. */
static int every_help(const struct dc_cmd *c, const char *const *path, int depth, void *arg)
{
	char *words[12];
	int i, n = 0, *bad = arg;

	(void)c;
	words[n++] = "--json";
	for (i = 0; i <= depth; i++)
		words[n++] = (char *)path[i];
	words[n++] = "--help";
	words[n] = NULL;
	run_v(words);
	if (rc != 0 || !json_ok(out_buf))
		(*bad)++;
	run_v(words + 1);
	if (rc != 0 || !starts(out_buf, "usage: demo"))
		(*bad)++;
	return 0;
}

static void test_walk(void)
{
	static const char *const want[] = { "status", "get", "set", "switch", "switch up", "switch down",
					    "switch list", "sim", "trace" };
	struct seen s = { .stop_at = -1 };
	int i, ok, bad = 0;

	dc_cmd_walk(cmds, false, collect, &s);
	ok = s.n == 9;
	for (i = 0; ok && i < 9; i++)
		ok = !strcmp(s.names[i], want[i]);
	CHECK("walk: depth first, table order, hidden left out", ok, "%d visited, [4] '%s'", s.n, s.names[4]);
	memset(&s, 0, sizeof(s));
	s.stop_at = -1;
	dc_cmd_walk(cmds, true, collect, &s);
	CHECK("walk with hidden commands", s.n == 10 && !strcmp(s.names[9], "secret"), "%d", s.n);
	memset(&s, 0, sizeof(s));
	s.stop_at = 5;
	CHECK_EQ("walk stops at a non-zero return and returns it", dc_cmd_walk(cmds, true, collect, &s), 7);
	CHECK_EQ("walk stopped after the fifth", s.n, 5);
	dc_cmd_walk(cmds, true, every_help, &bad);
	CHECK_EQ("every command answers --help and --json --help", bad, 0);
}

/* ---- table checks ---- */

static void check_bad(const char *name, const struct dc_cmd *t, const char *want)
{
	struct dc_err e;

	dc_err_clear(&e);
	CHECK(name, dc_cmds_check(t, &e) && strstr(e.msg, want), "msg '%s'", e.msg);
}

static void test_check(void)
{
	static const struct dc_opt shadow[] = {
		{ "json", 0, DC_OPT_FLAG, 0, sizeof(bool), NULL, .help = "mine" }, { NULL },
	};
	static const struct dc_cmd twice[] = {
		{ "a", fn_list, no_opts, 0, .summary = "x" }, { "a", fn_list, no_opts, 0, .summary = "y" }, { NULL },
	};
	static const struct dc_cmd nosum[] = { { "a", fn_list, no_opts, 0, .summary = "" }, { NULL } };
	static const struct dc_cmd small[] = {
		{ "up", fn_up, up_opts, sizeof(struct up_args) - 1, .summary = "x" }, { NULL },
	};
	static const struct dc_cmd shadows[] = { { "a", fn_list, shadow, sizeof(bool), .summary = "x" }, { NULL } };
	static const struct dc_cmd empty[] = { { "a", NULL, NULL, 0, .summary = "x" }, { NULL } };
	static const struct dc_cmd helpcmd[] = { { "help", fn_list, NULL, 0, .summary = "x" }, { NULL } };
	static const struct dc_cmd deep_bad[] = {
		{ "g", NULL, NULL, 0, .summary = "group", .sub = twice }, { NULL },
	};
	struct dc_err e;

	dc_err_clear(&e);
	CHECK("the sample table is sound", !dc_cmds_check(cmds, &e), "%s", e.msg);
	check_bad("a name twice", twice, "a: declared twice");
	check_bad("no summary", nosum, "a: no summary");
	check_bad("opts_size too small", small, "up: KEY=VALUE lies outside opts_size");
	check_bad("an option shadowing a global one", shadows, "a: --json is a global option");
	check_bad("neither fn nor sub", empty, "a: neither a function nor subcommands");
	check_bad("a command named help", helpcmd, "'help': not a usable command name");
	check_bad("a subcommand table is checked too", deep_bad, "g a: declared twice");
}

/* ---- generated files ---- */

static char *gen(bool man)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (man)
		dc_gen_man(f, &app, "2024-01-01");
	else
		dc_gen_bash_completion(f, &app);
	fclose(f);
	return buf;
}

/* Run the completion for words (the last is the one completed) in bash. */
static char *complete_words(const char *script_path, const char *words)
{
	char cmd[1024], *res = NULL;
	size_t len = 0;
	FILE *p, *m;
	int c;

	snprintf(cmd, sizeof(cmd),
		 "bash -c 'source %s; COMP_WORDS=(%s); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _demo; "
		 "echo \"${COMPREPLY[*]}\"' 2>&1", script_path, words);
	p = popen(cmd, "r");
	m = open_memstream(&res, &len);
	while (p && (c = fgetc(p)) != EOF)
		fputc(c, m);
	if (p)
		pclose(p);
	fclose(m);
	if (len && res[len - 1] == '\n')
		res[len - 1] = '\0';
	return res;
}

static void test_bash(void)
{
	static const struct {
		const char *words, *want;
	} cases[] = {
		{ "demo sw", "switch" },
		{ "demo \"\"", "help status get set switch sim trace" },
		{ "demo switch \"\"", "help up down list" },
		{ "demo switch up --xdp-mode \"\"", "generic native" },
		{ "demo switch up --xdp-mode = n", "native" },
		{ "demo switch up --r", "--rate-mbps" },
		{ "demo sim --alg c", "credence" },
		{ "demo --pin-dir /tmp sw", "switch" },
		{ "demo -d /tmp switch l", "list" },
		{ "demo --j", "--json" },
		{ "demo switch up --ports 3 --xdp-mode native --p", "--ports --pin-dir" },
		{ "demo secret", "" },
	};
	char path[] = "/tmp/test_cmd_bash.XXXXXX", cmd[256];
	char *script = gen(false), *got;
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	unsigned int i;

	CHECK("completion: the script names the function", script && strstr(script, "complete -F _demo demo\n"),
	      "no complete line");
	if (!f || system("command -v bash >/dev/null 2>&1")) {
		printf("SKIP: completion in bash: %s\n", f ? "bash not installed" : "no temporary file");
		free(script);
		return;
	}
	fputs(script, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "bash -n %s", path);
	CHECK("completion: bash -n accepts the script", system(cmd) == 0, "syntax error");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[160];

		got = complete_words(path, cases[i].words);
		snprintf(name, sizeof(name), "completion: %s", cases[i].words);
		CHECK(name, got && !strcmp(got, cases[i].want), "got '%s', want '%s'", got, cases[i].want);
		free(got);
	}
	got = complete_words(path, "demo sim --out /et");
	CHECK("completion: a DIR option completes directories", got && !strcmp(got, "/etc"), "got '%s'", got);
	free(got);
	unlink(path);
	free(script);
}

static void test_man(void)
{
	char path[] = "/tmp/test_cmd_man.XXXXXX", cmd[256], *page = gen(true), *warn = NULL;
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL, *p;
	size_t len = 0;
	int c;

	CHECK("man: title, sections, every command", page && strstr(page, ".TH DEMO 8 \"2024-01-01\" \"demo 1.2.3\"") &&
	      strstr(page, ".SH GLOBAL OPTIONS\n") && strstr(page, ".SS \"demo switch up\"\n") &&
	      strstr(page, ".SS \"demo trace\"\n") && !strstr(page, "secret") && strstr(page, ".SH EXIT STATUS\n"),
	      "page:\n%s", page ? page : "");
	CHECK("man: options with escaped dashes", page &&
	      strstr(page, ".TP\n\\fB\\-p\\fR, \\fB\\-\\-ports\\fR \\fIN\\fR\nports to attach (required; allowed 1..64)\n"),
	      "page:\n%s", page ? page : "");
	if (!f || system("command -v groff >/dev/null 2>&1")) {
		printf("SKIP: man page through groff: %s\n", f ? "groff not installed" : "no temporary file");
		free(page);
		return;
	}
	fputs(page, f);
	fclose(f);
	/* -ww: every warning; a clean page prints none */
	snprintf(cmd, sizeof(cmd), "groff -man -Tutf8 -ww -z %s 2>&1", path);
	p = popen(cmd, "r");
	f = open_memstream(&warn, &len);
	while (p && (c = fgetc(p)) != EOF)
		fputc(c, f);
	c = p ? pclose(p) : -1;
	fclose(f);
	CHECK("man: groff renders it without a warning", c == 0 && len == 0, "groff exit %d said: %s", c,
	      warn ? warn : "");
	free(warn);
	unlink(path);
	free(page);
}

int main(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "--bash") || !strcmp(argv[1], "--man"))) {
		char *s = gen(!strcmp(argv[1], "--man"));

		fputs(s, stdout);
		free(s);
		return 0;
	}
	test_dispatch();
	test_globals();
	test_json_errors();
	test_hooks();
	test_help();
	test_walk();
	test_check();
	test_bash();
	test_man();
	free(out_buf);
	free(err_buf);
	return check_failed;
}
