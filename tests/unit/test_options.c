// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * Option tables (loader/lib/opts.h): parsing of every type with its edge
 * cases, the reasons given, table checks, the help text.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "loader/lib/cli.h"
#include "loader/lib/opts.h"

struct args {
	bool verbose, quiet;
	uint32_t ports;
	uint64_t seed;
	uint8_t prio;
	int32_t offset;
	int64_t delta;
	uint32_t alpha_q16;
	double load, gain;
	const char *name, *model, *out;
	int mode;
	struct dc_opt_list leaf;
	const char *sw;
	struct dc_opt_rest kv;
};

static const struct dc_opt_name modes[] = { { "unit", 0 }, { "byte", 1 }, { NULL } };

#define F(m) DC_FIELD(struct args, m)
static const struct dc_opt tab[] = {
	{ "verbose", 'v', DC_OPT_FLAG, F(verbose), NULL, .help = "say more" },
	{ "quiet", 'q', DC_OPT_FLAG, F(quiet), NULL, .help = "say less" },
	{ "ports", 'p', DC_OPT_U64, F(ports), "N", .help = "switch ports", .def = "16",
	  .umin = 1, .umax = 64 },
	{ "seed", 0, DC_OPT_U64, F(seed), "S", .help = "random seed", .def = "1" },
	{ "prio", 0, DC_OPT_U64, F(prio), NULL, .help = "priority" },
	{ "offset", 0, DC_OPT_S64, F(offset), NULL, .help = "shift", .smin = -100, .smax = 100 },
	{ "delta", 0, DC_OPT_S64, F(delta), NULL, .help = "change" },
	{ "alpha", 'a', DC_OPT_Q16, F(alpha_q16), "A", .help = "DT's alpha", .def = "0.5",
	  .dmin = 0, .dmax = 2, .flags = DC_OPT_F_MIN_EXCL },
	{ "load", 0, DC_OPT_DOUBLE, F(load), "L", .help = "offered load", .def = "0.4",
	  .dmin = 0, .dmax = 1 },
	{ "gain", 0, DC_OPT_DOUBLE, F(gain), NULL, .help = "gain", .flags = DC_OPT_F_REPEAT },
	{ "name", 0, DC_OPT_STR, F(name), NULL, .help = "a name", .umax = 15 },
	{ "model", 0, DC_OPT_PATH, F(model), NULL, .help = "model file" },
	{ "out", 'o', DC_OPT_DIR, F(out), NULL, .help = "output directory",
	  .flags = DC_OPT_F_EXISTS },
	{ "mode", 'm', DC_OPT_ENUM, F(mode), NULL, .help = "buffer unit", .def = "unit",
	  .names = modes },
	{ "leaf", 'l', DC_OPT_LIST, F(leaf), "P=ID", .help = "a leaf prefix" },
	{ "NAME", 0, DC_OPT_STR, F(sw), NULL, .help = "switch name", .required = true,
	  .flags = DC_OPT_F_POS },
	{ "KEY=VALUE", 0, DC_OPT_REST, F(kv), NULL, .help = "parameters" },
	{ NULL },
};

/* the same with a verbatim REST: from the first KEY=VALUE on, no options */
static struct dc_opt vtab[sizeof(tab) / sizeof(tab[0])];

static struct dc_err err;
static struct args a;
static char *av[40];

/* Parse table t on "cmd" and the given words; a fresh args each time. */
static int parse_t(const struct dc_opt *t, ...)
{
	va_list ap;
	int n = 1;
	char *w;

	memset(&a, 0, sizeof(a));
	dc_err_clear(&err);
	av[0] = "cmd";
	va_start(ap, t);
	while ((w = va_arg(ap, char *)) && n < 39)
		av[n++] = w;
	va_end(ap);
	av[n] = NULL;
	return dc_opts_parse(t, &a, n, av, &err);
}
#define P(...) parse_t(tab, __VA_ARGS__, NULL)

static void check_err(const char *name, int rc, const char *want)
{
	CHECK(name, rc == DC_OPTS_ERR && err.code == EXIT_USAGE && !strcmp(err.msg, want),
	      "rc %d code %d msg '%s', want '%s'", rc, err.code, err.msg, want);
}

static void test_defaults_and_forms(void)
{
	int rc = P("sw1");

	CHECK("defaults: ports 16, seed 1, alpha 0.5 in Q16, load 0.4, mode unit",
	      rc == 0 && a.ports == 16 && a.seed == 1 && a.alpha_q16 == 32768 && a.load == 0.4 &&
	      a.mode == 0 && !a.verbose && a.sw && !strcmp(a.sw, "sw1") && a.kv.argc == 0,
	      "rc %d ports %u seed %llu alpha %u load %g", rc, a.ports, (unsigned long long)a.seed,
	      a.alpha_q16, a.load);
	CHECK_EQ("--ports 8", (P("--ports", "8", "x"), a.ports), 8);
	CHECK_EQ("--ports=8", (P("--ports=8", "x"), a.ports), 8);
	CHECK_EQ("-p 8", (P("-p", "8", "x"), a.ports), 8);
	CHECK_EQ("-p8", (P("-p8", "x"), a.ports), 8);
	rc = P("-vqp9", "x");
	CHECK("-vqp9: two flags and a value in one word", rc == 0 && a.verbose && a.quiet && a.ports == 9,
	      "rc %d v %d q %d ports %u (%s)", rc, a.verbose, a.quiet, a.ports, err.msg);
	CHECK_EQ("0x hex: --seed 0x10", (P("--seed", "0x10", "x"), a.seed), 16);
	rc = P("--seed", "18446744073709551615", "x");
	CHECK("u64 maximum accepted", rc == 0 && a.seed == UINT64_MAX, "rc %d %s", rc, err.msg);
	rc = P("--mode", "byte", "--mode=byte", "x");
	check_err("valued option twice", rc, "--mode given twice");
	rc = P("-v", "--verbose", "-vv", "x");
	CHECK("a flag given again is the same as once", rc == 0 && a.verbose, "rc %d %s", rc, err.msg);
	rc = P("--gain", "1", "--gain", "2.5", "x");
	CHECK("REPEAT: the last wins", rc == 0 && a.gain == 2.5, "rc %d gain %g %s", rc, a.gain, err.msg);
	rc = P("--leaf", "10.0.0.0/8=1", "-l", "10.1.0.0/16=2", "x");
	CHECK("list: both kept in order", rc == 0 && a.leaf.n == 2 && !strcmp(a.leaf.v[0], "10.0.0.0/8=1") &&
	      !strcmp(a.leaf.v[1], "10.1.0.0/16=2"), "rc %d n %u", rc, a.leaf.n);
	rc = P("--offset", "-5", "x");
	CHECK("a value may start with '-': --offset -5", rc == 0 && a.offset == -5, "rc %d %s", rc, err.msg);
	rc = P("--offset=-100", "--delta", "-9223372036854775808", "x");
	CHECK("s64 minimums", rc == 0 && a.offset == -100 && a.delta == INT64_MIN, "rc %d %s", rc, err.msg);
	rc = P("--alpha", "1.5", "x");
	CHECK_EQ("Q16: 1.5 is 98304", rc == 0 ? a.alpha_q16 : 0, 98304);
	rc = P("--alpha", "2", "x");
	CHECK_EQ("Q16: the maximum 2 itself", rc == 0 ? a.alpha_q16 : 0, 131072);
	rc = P("--mode", "byte", "x");
	CHECK_EQ("enum: byte is 1", rc == 0 ? a.mode : -1, 1);
	rc = P("--out", "/tmp", "--model", "m.txt", "--name", "abcdefghijklmno", "x");
	CHECK("path, existing dir, 15-byte name", rc == 0 && !strcmp(a.out, "/tmp") && !strcmp(a.model, "m.txt"),
	      "rc %d %s", rc, err.msg);
}

static void test_bad_values(void)
{
	check_err("u64 overflow", P("--seed", "18446744073709551616", "x"),
		  "--seed: 18446744073709551616 is above the maximum 18446744073709551615");
	check_err("negative to unsigned", P("--seed", "-1", "x"),
		  "--seed: -1 is negative; an unsigned integer is needed");
	check_err("negative to unsigned, spaces first", P("--ports", " -3", "x"),
		  "--ports:  -3 is negative; an unsigned integer is needed");
	check_err("below the minimum", P("--ports", "0", "x"), "--ports: 0 is below the minimum 1");
	check_err("above the maximum", P("--ports=65", "x"), "--ports: 65 is above the maximum 64");
	check_err("a 1-byte field", P("--prio", "256", "x"), "--prio: 256 is above the maximum 255");
	check_err("trailing junk", P("--ports", "12abc", "x"), "--ports: '12abc' is not an unsigned integer");
	check_err("empty number", P("--ports=", "x"), "--ports: an unsigned integer is needed, not ''");
	check_err("0x alone", P("--seed", "0x", "x"), "--seed: '0x' is not an unsigned integer");
	check_err("s64 below", P("--offset", "-101", "x"), "--offset: -101 is below the minimum -100");
	check_err("s64 overflow", P("--delta", "9223372036854775808", "x"),
		  "--delta: 9223372036854775808 is above the maximum 9223372036854775807");
	check_err("s64 underflow", P("--delta", "-9223372036854775809", "x"),
		  "--delta: -9223372036854775809 is below the minimum -9223372036854775808");
	check_err("NaN refused", P("--load", "nan", "x"), "--load: nan is not a number");
	check_err("NaN refused where unbounded", P("--gain", "NAN", "x"), "--gain: NAN is not a number");
	check_err("infinity refused", P("--gain", "inf", "x"), "--gain: inf is not a finite number");
	check_err("overflowing double refused", P("--gain", "1e400", "x"),
		  "--gain: 1e400 is not a finite number");
	check_err("empty double refused", P("--load", "", "x"), "--load: '' is not a number");
	check_err("double above", P("--load", "1.5", "x"), "--load: 1.5 is above the maximum 1");
	check_err("double below", P("--load", "-0.1", "x"), "--load: -0.1 is below the minimum 0");
	check_err("Q16 above", P("--alpha", "3.5", "x"), "--alpha: 3.5 is above the maximum 2");
	check_err("Q16 exclusive minimum", P("--alpha", "0", "x"), "--alpha: 0 is not above the minimum 0");
	check_err("Q16 below its step", P("--alpha", "0.000001", "x"),
		  "--alpha: 0.000001 rounds to 0 in Q16.16 (the smallest step is 1/65536)");
	check_err("unknown enum name", P("--mode", "packets", "x"),
		  "--mode: 'packets' is not one of unit, byte");
	check_err("enum name with a suggestion", P("--mode", "byt", "x"),
		  "--mode: 'byt' is not one of unit, byte (did you mean byte?)");
	check_err("string too long", P("--name", "abcdefghijklmnop", "x"),
		  "--name: 'abcdefghijklmnop' is longer than 15 bytes");
	check_err("empty path", P("--model", "", "x"), "--model: an empty file name");
	check_err("missing directory", P("--out", "/nonexistent/dir", "x"),
		  "--out: /nonexistent/dir: No such file or directory");
	check_err("file for a directory", P("--out", "/dev/null", "x"), "--out: /dev/null is not a directory");
}

static void test_syntax(void)
{
	int rc;

	check_err("missing value, long", P("x", "--ports"), "--ports needs a value (N)");
	check_err("missing value, short", P("x", "-p"), "-p needs a value (N)");
	check_err("a flag with a value", P("--verbose=1", "x"), "--verbose takes no value");
	check_err("unknown option, suggested", P("--prots", "3", "x"),
		  "unknown option '--prots' (did you mean --ports?)");
	check_err("unknown option with =, suggested", P("--alpah=1", "x"),
		  "unknown option '--alpah' (did you mean --alpha?)");
	check_err("unknown option, nothing near", P("--zzzzzz", "x"), "unknown option '--zzzzzz'");
	check_err("no abbreviations", P("--verb", "x"), "unknown option '--verb' (did you mean --verbose?)");
	check_err("unknown short option", P("-z", "x"), "unknown option '-z'");
	check_err("a required positional missing", P("-v"), "missing NAME");
	rc = P("sw1", "--ports", "4", "a=1", "-v", "b=2");
	CHECK("options between and after positionals", rc == 0 && !strcmp(a.sw, "sw1") && a.ports == 4 &&
	      a.verbose && a.kv.argc == 2 && !strcmp(a.kv.argv[0], "a=1") && !strcmp(a.kv.argv[1], "b=2"),
	      "rc %d %s argc %d", rc, err.msg, a.kv.argc);
	CHECK("argv permuted: positionals last, in order",
	      !strcmp(av[1], "--ports") && !strcmp(av[4], "sw1") && !strcmp(av[6], "b=2"), "av %s %s %s",
	      av[1], av[4], av[6]);
	rc = P("--", "-odd", "--ports", "7");
	CHECK("-- ends the options", rc == 0 && !strcmp(a.sw, "-odd") && a.kv.argc == 2 &&
	      !strcmp(a.kv.argv[0], "--ports") && a.ports == 16, "rc %d %s", rc, err.msg);
	rc = P("-");
	CHECK("'-' alone is a positional", rc == 0 && !strcmp(a.sw, "-"), "rc %d %s", rc, err.msg);
	rc = parse_t(vtab, "sw1", "x=-1", "--ports", "4", NULL);
	CHECK("VERBATIM rest: words after the first KEY=VALUE are not options",
	      rc == 0 && a.ports == 16 && a.kv.argc == 3 && !strcmp(a.kv.argv[0], "x=-1") &&
	      !strcmp(a.kv.argv[1], "--ports"), "rc %d %s argc %d", rc, err.msg, a.kv.argc);
	rc = parse_t(vtab, "--ports", "4", "sw1", "x=1", NULL);
	CHECK("VERBATIM rest: options before it still parse", rc == 0 && a.ports == 4 && a.kv.argc == 1,
	      "rc %d %s", rc, err.msg);
	CHECK_EQ("--help answers even with NAME missing", P("--help"), DC_OPTS_HELP);
	CHECK_EQ("-h answers", P("x", "-h"), DC_OPTS_HELP);
	CHECK_EQ("-vh answers", P("-vh"), DC_OPTS_HELP);
	CHECK_EQ("--help after -- is a positional", P("--", "--help"), DC_OPTS_OK);
}

static const struct dc_opt pos_only[] = {
	{ "FILE", 0, DC_OPT_PATH, DC_FIELD(struct args, model), NULL, .help = "model file",
	  .required = true, .flags = DC_OPT_F_POS },
	{ NULL },
};

static const struct dc_opt req_out[] = {
	{ "out", 'o', DC_OPT_DIR, DC_FIELD(struct args, out), NULL, .help = "where", .required = true },
	{ NULL },
};

static void test_positional_and_required(void)
{
	int rc = parse_t(pos_only, "m1", NULL);

	CHECK("one positional", rc == 0 && !strcmp(a.model, "m1"), "rc %d %s", rc, err.msg);
	check_err("one positional too many", parse_t(pos_only, "m1", "m2", NULL), "unexpected argument 'm2'");
	check_err("a required option missing", parse_t(req_out, NULL), "--out DIR is required");
	rc = parse_t(req_out, "-o", "d", NULL);
	CHECK("a required option given", rc == 0 && !strcmp(a.out, "d"), "rc %d %s", rc, err.msg);
}

/* ---- table checks ---- */

#define BAD(name, want, ...)                                                          \
	do {                                                                          \
		const struct dc_opt t_[] = { __VA_ARGS__, { NULL } };                 \
		dc_err_clear(&err);                                                   \
		CHECK(name, dc_opts_check(t_, &err) && strstr(err.msg, want), "msg '%s'", err.msg); \
	} while (0)

static void test_check(void)
{
	dc_err_clear(&err);
	CHECK("the sample table is well formed", !dc_opts_check(tab, &err), "%s", err.msg);
	BAD("a name twice", "--ports declared twice",
	    { "ports", 0, DC_OPT_U64, F(ports), .help = "a" }, { "ports", 0, DC_OPT_U64, F(seed), .help = "b" });
	BAD("a short name twice", "-p declared twice",
	    { "ports", 'p', DC_OPT_U64, F(ports), .help = "a" }, { "prio", 'p', DC_OPT_U64, F(prio), .help = "b" });
	BAD("-h is help's", "-h is reserved", { "hosts", 'h', DC_OPT_U64, F(ports), .help = "a" });
	BAD("a range beyond the field", "do not fit",
	    { "ports", 0, DC_OPT_U64, F(ports), .help = "a", .umin = 1, .umax = 1ULL << 32 });
	BAD("a default outside the range", "default: --ports: 0 is below the minimum 1",
	    { "ports", 0, DC_OPT_U64, F(ports), .help = "a", .def = "0", .umin = 1, .umax = 4 });
	BAD("a default that is no enum name", "default: --mode: 'bit' is not one of",
	    { "mode", 0, DC_OPT_ENUM, F(mode), .help = "a", .def = "bit", .names = modes });
	BAD("no help", "no help text", { "ports", 0, DC_OPT_U64, F(ports), .metavar = NULL });
	BAD("a flag not a bool", "a flag is a bool", { "v", 0, DC_OPT_FLAG, F(ports), .help = "a" });
	BAD("a double field of 4 bytes", "not a double field",
	    { "load", 0, DC_OPT_DOUBLE, F(ports), .help = "a" });
	BAD("REST not last", "follows the REST",
	    { "KV", 0, DC_OPT_REST, F(kv), .help = "a" },
	    { "NAME", 0, DC_OPT_STR, F(sw), .help = "b", .flags = DC_OPT_F_POS });
	BAD("required positional after an optional one", "a required positional after an optional one",
	    { "A", 0, DC_OPT_STR, F(sw), .help = "a", .flags = DC_OPT_F_POS },
	    { "B", 0, DC_OPT_STR, F(name), .help = "b", .flags = DC_OPT_F_POS, .required = true });
	BAD("an enum without names", "needs names", { "mode", 0, DC_OPT_ENUM, F(mode), .help = "a" });
	BAD("required with a default", "required with a default",
	    { "ports", 0, DC_OPT_U64, F(ports), .help = "a", .def = "1", .required = true });
	BAD("a name with '='", "without '='", { "a=b", 0, DC_OPT_U64, F(ports), .help = "a" });
	BAD("a name starting with '-'", "leading '-'", { "-x", 0, DC_OPT_U64, F(ports), .help = "a" });
	BAD("a short flag twice", "-v declared twice",
	    { "v", 'v', DC_OPT_FLAG, F(verbose), .help = "a" }, { "q", 'v', DC_OPT_FLAG, F(quiet), .help = "b" });
}

/* ---- help ---- */

static char *capture_help(const struct dc_opt *t, unsigned int width)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	dc_opts_help(f, t, NULL, width);
	fclose(f);
	return buf;
}

static void test_help(void)
{
	static const char want[] =
		"Arguments:\n"
		"  NAME       switch name\n"
		"  KEY=VALUE  parameters\n"
		"Options:\n"
		"  -v, --verbose         say more\n"
		"  -q, --quiet           say less\n"
		"  -p, --ports N         switch ports (allowed 1..64; default 16)\n"
		"      --seed S          random seed (default 1)\n"
		"      --prio N          priority\n"
		"      --offset N        shift (allowed -100..100)\n"
		"      --delta N         change\n"
		"  -a, --alpha A         DT's alpha (allowed (0, 2]; default 0.5)\n"
		"      --load L          offered load (allowed [0, 1]; default 0.4)\n"
		"      --gain X          gain (repeatable, the last wins)\n"
		"      --name VALUE      a name (at most 15 bytes)\n"
		"      --model FILE      model file\n"
		"  -o, --out DIR         output directory\n"
		"  -m, --mode unit|byte  buffer unit (default unit)\n"
		"  -l, --leaf P=ID       a leaf prefix (repeatable)\n";
	static const char want_narrow[] =
		"Options:\n"
		"  -o, --out DIR  where\n"
		"                 (required)\n";
	char syn[256];
	char *h = capture_help(tab, 80);

	CHECK("help text of the sample table", h && !strcmp(h, want), "got:\n%s", h ? h : "(null)");
	free(h);
	h = capture_help(req_out, 24);
	CHECK("help wraps at the width, under its column", h && !strcmp(h, want_narrow), "got:\n%s",
	      h ? h : "(null)");
	free(h);
	dc_opts_synopsis(tab, syn, sizeof(syn));
	CHECK("synopsis", !strcmp(syn, " [OPTIONS] NAME [KEY=VALUE...]"), "'%s'", syn);
	dc_opts_synopsis(req_out, syn, sizeof(syn));
	CHECK("synopsis names a required option", !strcmp(syn, " --out DIR"), "'%s'", syn);
}

/*
 * The simulator's workload options as one table (what `sim` and
 * `credence train` will share): the inputs the two parsers treated
 * differently are refused alike here.
 */
struct simw {
	int workload;
	const char *trace;
	double load, incast_frac;
	uint64_t slots;
};
static const struct dc_opt_name workloads[] = {
	{ "websearch", 0 }, { "incast", 1 }, { "mix", 2 }, { NULL },
};
static const struct dc_opt simw_opts[] = {
	{ "workload", 0, DC_OPT_ENUM, DC_FIELD(struct simw, workload), NULL,
	  .help = "generated arrivals", .def = "mix", .names = workloads },
	{ "trace", 0, DC_OPT_PATH, DC_FIELD(struct simw, trace), NULL, .help = "replay a CSV trace" },
	{ "load", 0, DC_OPT_DOUBLE, DC_FIELD(struct simw, load), "L", .help = "offered load",
	  .def = "0.4", .dmin = 0, .dmax = 1 },
	{ "incast-frac", 0, DC_OPT_DOUBLE, DC_FIELD(struct simw, incast_frac), "F",
	  .help = "incast share", .def = "0.5", .dmin = 0, .dmax = 100, .flags = DC_OPT_F_MIN_EXCL },
	{ "slots", 0, DC_OPT_U64, DC_FIELD(struct simw, slots), "S", .help = "timeslots",
	  .def = "200000", .umin = 1, .umax = 100000000 },
	{ NULL },
};

static void test_sim_table(void)
{
	struct simw w;
	char *v1[] = { "sim", "--load", "", NULL }, *v2[] = { "sim", "--load", "nan", NULL };
	char *v3[] = { "sim", "--incast-frac", "0", NULL }, *v4[] = { "sim", "--trace", "", NULL };
	char *v5[] = { "sim", "--workload", "incast", "--slots", "1000", NULL };

	dc_err_clear(&err);
	CHECK("simulator table well formed", !dc_opts_check(simw_opts, &err), "%s", err.msg);
	check_err("sim: --load \"\" refused", dc_opts_parse(simw_opts, &w, 3, v1, &err),
		  "--load: '' is not a number");
	check_err("sim: --load nan refused", dc_opts_parse(simw_opts, &w, 3, v2, &err),
		  "--load: nan is not a number");
	check_err("sim: --incast-frac 0 refused", dc_opts_parse(simw_opts, &w, 3, v3, &err),
		  "--incast-frac: 0 is not above the minimum 0");
	check_err("sim: --trace \"\" refused", dc_opts_parse(simw_opts, &w, 3, v4, &err),
		  "--trace: an empty file name");
	CHECK("sim: workload and slots", !dc_opts_parse(simw_opts, &w, 5, v5, &err) && w.workload == 1 &&
	      w.slots == 1000 && w.load == 0.4, "%s", err.msg);
}

int main(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		vtab[i] = tab[i];
	vtab[dc_opts_count(tab) - 1].flags |= DC_OPT_F_VERBATIM;
	test_defaults_and_forms();
	test_bad_values();
	test_syntax();
	test_positional_and_required();
	test_check();
	test_help();
	test_sim_table();
	return check_failed;
}
