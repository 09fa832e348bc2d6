// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * The command table (loader/lib/cmd.h): dispatch, help at every level,
 * global options, errors as text and as JSON, the walk and the table
 * checks, on the sample program of tests/lib/cmdsample.h (the generated
 * completion and man page: test_cmdgen.c).
 */
#include "cmdsample.h"
#include "jsoncheck.h"

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
		"  -v, --verbose      libbpf's messages on stderr (a program the kernel refuses:\n"
		"                     the verifier's log)\n"
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
int main(void)
{
	test_dispatch();
	test_globals();
	test_json_errors();
	test_hooks();
	test_help();
	test_walk();
	test_check();
	free(out_buf);
	free(err_buf);
	return check_failed;
}
