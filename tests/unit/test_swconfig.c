// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * The switch configuration from user space (loader/sw/): the parameter
 * engine (KEY=VALUE into struct dc_sw_cfg, every refusal with its reason,
 * nothing changed on error, format and parse round trips), the subcommand
 * table and its option tables, JSON results and errors through the
 * dispatcher, and the library staying silent: a switch that cannot be
 * opened is reported in a struct dc_err, never on stderr.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/if_link.h>

#include "check.h"
#include "sw/swint.h"

static struct dc_sw_cfg cfg;
static struct dc_err err;

static int assign(const char *kv)
{
	memset(&err, 0, sizeof(err));
	return sw_assign(kv, &cfg, "", &err);
}

static bool said(const char *needle)
{
	return strstr(err.msg, needle) != NULL;
}

static void engine(void)
{
	struct dc_sw_cfg before, def;
	unsigned int i;
	bool all;

	dc_sw_cfg_defaults(&cfg);
	CHECK("sw: alg=abm accepted", !assign("alg=abm") && cfg.alg == DC_ALG_ABM, "%s", err.msg);
	before = cfg;
	CHECK("sw: alg=lqd refused as push-out", assign("alg=lqd") == EXIT_USAGE &&
	      said("only dcbpf sim") && said("alg = lqd"), "%s", err.msg);
	CHECK("sw: a refused value changes nothing", !memcmp(&before, &cfg, sizeof(cfg)), "changed");
	CHECK("sw: bare alpha sets every priority", !assign("alpha=2"), "%s", err.msg);
	for (i = 0, all = true; i < DC_SW_PRIOS; i++)
		all &= cfg.alpha_q16[i] == 2u << 16;
	CHECK("sw: every alpha.P is 2", all, "not all");
	CHECK("sw: alpha.3 sets priority 3 only", !assign("alpha.3=0.25") &&
	      cfg.alpha_q16[3] == 1u << 14 && cfg.alpha_q16[2] == 2u << 16, "%s", err.msg);
	CHECK("sw: alpha.8 is out of range", assign("alpha.8=1") && said("index out of range"),
	      "%s", err.msg);
	CHECK("sw: alpha 2000 refused with its range", assign("alpha.0=2000") &&
	      said("allowed (0, 1024]"), "%s", err.msg);
	CHECK("sw: dscp needs an index", assign("dscp=1") && said("needs an index: dscp.I"),
	      "%s", err.msg);
	CHECK("sw: buffer_bytes takes no index", assign("buffer_bytes.1=2000") &&
	      said("takes no index"), "%s", err.msg);
	CHECK("sw: buffer_bytes below one MTU refused in bytes", assign("buffer_bytes=100") &&
	      said("allowed [1500, 2147483647] bytes"), "%s", err.msg);
	CHECK("sw: unknown key lists the keys", assign("bogus=1") &&
	      said("unknown switch key 'bogus'") && said("tag_port.I"), "%s", err.msg);
	CHECK("sw: no '=' is refused", assign("alg") && said("expected KEY=VALUE"), "%s", err.msg);
	CHECK("sw: empty key is refused", assign("=1") == EXIT_USAGE, "%s", err.msg);
	CHECK("sw: tag 0 refused", assign("tag_port.0=1") && said("path tags are 1.."), "%s",
	      err.msg);
	CHECK("sw: tag_port.2=3 stores port 3", !assign("tag_port.2=3") && cfg.tag_port[2] == 4,
	      "%s", err.msg);
	CHECK("sw: tag_port.2=fib clears it", !assign("tag_port.2=fib") && !cfg.tag_port[2], "%s",
	      err.msg);
	CHECK("sw: cred_drain by name", !assign("cred_drain=time") && cfg.cred_drain == DC_DRAIN_TIME,
	      "%s", err.msg);
	CHECK("sw: first_rtt.5=0 keeps dscp 5's priority",
	      !assign("first_rtt.5=0") && !(cfg.dscp_prio[5] & DC_SW_DSCP_FIRST_RTT) &&
	      (cfg.dscp_prio[5] & DC_SW_DSCP_PRIO_MASK) == 0, "%s", err.msg);
	memset(&err, 0, sizeof(err));
	CHECK("sw: prefix in front of the key", sw_assign("bogus=1", &cfg, "sw.s1.", &err) &&
	      !strncmp(err.msg, "sw.s1.unknown", 13), "%s", err.msg);

	/* every default formats to text that parses back to itself */
	dc_sw_cfg_defaults(&def);
	for (i = 0, all = true; i < sw_nparams; i++) {
		const struct sw_param *sp = &sw_params[i];
		char val[64], kv[128];

		sw_param_format(sp, sp->count ? 1 : -1, &def, val, sizeof(val));
		if (sp->count)
			snprintf(kv, sizeof(kv), "%s.1=%s", sp->name, val);
		else
			snprintf(kv, sizeof(kv), "%s=%s", sp->name, val);
		cfg = def;
		if (assign(kv) || memcmp(&cfg, &def, sizeof(cfg))) {
			printf("# %s: %s\n", kv, err.msg);
			all = false;
		}
	}
	CHECK("sw: every default round-trips", all, "see above");
	CHECK("sw: names", sw_valid_name("leaf-0_a") && !sw_valid_name("") &&
	      !sw_valid_name("a.b") && !sw_valid_name("0123456789abcdef"), "name rule");
}

/* The option tables through the parser, as the dispatcher uses them. */
static int parse(const char *cmd, void *out, int argc, char **argv)
{
	const struct dc_cmd *c = dc_cmd_find(dc_sw_cmds, cmd);

	memset(&err, 0, sizeof(err));
	if (!c || !c->opts)
		return -100;
	memset(out, 0, c->opts_size);
	return dc_opts_parse(c->opts, out, argc, argv, &err);
}

static void tables(void)
{
	struct sw_sample_args sa;
	struct sw_capture_args ca;
	struct sw_up_args ua;
	char *s1[] = { "sample", "s1" };
	char *s2[] = { "sample", "s1", "--count", "12abc" };
	char *s3[] = { "sample", "s1", "--count", "0" };
	char *c1[] = { "capture", "s1", "--out", "f.csv", "--duration", "0" };
	char *c2[] = { "capture", "s1", "--out", "f.csv", "--every", "1000001" };
	char *c3[] = { "capture", "s1", "--out", "f.csv", "--duration", "2.5", "--count", "7" };
	char *u1[] = { "up", "s1", "--netns", "ns", "--ports", "a,b", "--xdp-mode", "native",
		       "alg=abm", "alpha.0=1" };
	char *u2[] = { "up", "s1", "--netns", "ns" };
	char *u3[] = { "up", "0123456789abcdef", "--netns", "ns", "--ports", "a" };

	memset(&err, 0, sizeof(err));
	CHECK("sw: the subcommand table is sound", !dc_cmds_check(dc_sw_cmds, &err), "%s", err.msg);
	CHECK("sw: sample defaults", !parse("sample", &sa, 2, s1) && sa.count == 100 &&
	      sa.interval_us == 1000 && !strcmp(sa.name, "s1"), "%s", err.msg);
	CHECK("sw: sample --count 12abc refused", parse("sample", &sa, 4, s2) == DC_OPTS_ERR &&
	      said("--count"), "%s", err.msg);
	CHECK("sw: sample --count 0 refused", parse("sample", &sa, 4, s3) == DC_OPTS_ERR &&
	      said("minimum 1"), "%s", err.msg);
	CHECK("sw: capture --duration 0 refused", parse("capture", &ca, 6, c1) == DC_OPTS_ERR &&
	      said("--duration"), "%s", err.msg);
	CHECK("sw: capture --every above 10^6 refused",
	      parse("capture", &ca, 6, c2) == DC_OPTS_ERR && said("--every"), "%s", err.msg);
	CHECK("sw: capture values", !parse("capture", &ca, 8, c3) && ca.every == 1 &&
	      ca.count == 7 && ca.duration == 2.5 && !strcmp(ca.out, "f.csv"), "%s", err.msg);
	CHECK("sw: up with native XDP and two assignments",
	      !parse("up", &ua, 10, u1) && ua.xdp_flags == XDP_FLAGS_DRV_MODE &&
	      ua.kv.argc == 2 && !strcmp(ua.kv.argv[1], "alpha.0=1") && !strcmp(ua.ports, "a,b"),
	      "%s", err.msg);
	CHECK("sw: up needs --ports", parse("up", &ua, 4, u2) == DC_OPTS_ERR && said("--ports"),
	      "%s", err.msg);
	CHECK("sw: up refuses a 16-byte name", parse("up", &ua, 6, u3) == DC_OPTS_ERR &&
	      said("NAME"), "%s", err.msg);
}

/* `dcbpf ... switch ...` through the dispatcher into a buffer. */
static const struct dc_cmd top[] = {
	{ "switch", .sub = dc_sw_cmds, .summary = "emulated switches" },
	{ NULL },
};
static const struct dc_app app = { .name = "dcbpf", .version = "t", .cmds = top };

static int run(char **out, char **errs, int argc, char **argv)
{
	size_t n1, n2;
	FILE *o = open_memstream(out, &n1), *e = open_memstream(errs, &n2);
	struct dc_ctx ctx;
	int rc;

	dc_ctx_init(&ctx, &app, o, e);
	rc = dc_main(&ctx, argc, argv);
	fclose(o);
	fclose(e);
	return rc;
}

static void dispatch(void)
{
	char *o, *e;
	char *p1[] = { "dcbpf", "--json", "switch", "params" };
	char *p2[] = { "dcbpf", "switch", "params" };
	char *p3[] = { "dcbpf", "--json", "switch", "sample", "s1", "--count", "12abc" };
	char *p4[] = { "dcbpf", "switch", "capture", "--help" };
	int rc;

	rc = run(&o, &e, 4, p1);
	CHECK("sw: params --json is an array of keys", !rc && o[0] == '[' &&
	      strstr(o, "{\"key\":\"alg\",\"default\":\"dt\"") && strstr(o, "\"key\":\"alpha.I\"") &&
	      !*e, "rc %d out %.80s err %s", rc, o, e);
	free(o);
	free(e);
	rc = run(&o, &e, 3, p2);
	CHECK("sw: params as markdown", !rc && !strncmp(o, "| key (sw.NAME.", 15), "%.60s", o);
	free(o);
	free(e);
	rc = run(&o, &e, 7, p3);
	CHECK("sw: a usage error with --json is one JSON object on stdout",
	      rc == EXIT_USAGE && strstr(o, "\"error\":\"--count") && strstr(o, "\"code\":2") &&
	      strstr(o, "\"command\":\"dcbpf switch sample\"") && !*e, "out %s err %s", o, e);
	free(o);
	free(e);
	rc = run(&o, &e, 4, p4);
	CHECK("sw: capture --help from the table", !rc && strstr(o, "--out FILE") &&
	      strstr(o, "--every N"), "%s", o);
	free(o);
	free(e);
}

/* A switch directory whose maps cannot be opened: skipped by the status
 * lines, reported by get and set in the error, nothing on stderr. */
static void silent(void)
{
	char tmpl[] = "/tmp/test_swconfig.XXXXXX", path[256], line[256];
	char *pin = mkdtemp(tmpl), *kv[] = { "sw.s1.alg=dt" }, *bad[] = { "sw.s1.alg=x", "sw.s1.y=1" };
	int saved = dup(2), fd;
	FILE *ef = tmpfile(), *of;
	struct sw s;
	long len;

	snprintf(path, sizeof(path), "%s/sw", pin);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/sw/s1", pin);
	mkdir(path, 0700);
	fflush(stderr);
	dup2(fileno(ef), 2);
	of = fopen("/dev/null", "w");
	fd = dup(1);
	fflush(stdout);
	dup2(fileno(of), 1);
	dc_sw_status_brief(pin, false, NULL);
	fflush(stdout);
	dup2(fd, 1);
	close(fd);
	fclose(of);
	memset(&err, 0, sizeof(err));
	CHECK("sw: open of a switch without maps fails with the reason",
	      sw_open(pin, "s1", &s, &err) == EXIT_ERR && said("switch s1:"), "%s", err.msg);
	memset(&err, 0, sizeof(err));
	CHECK("sw: open of an absent switch says it is not up",
	      sw_open(pin, "s2", &s, &err) == EXIT_ERR && said("switch 's2' is not up"), "%s",
	      err.msg);
	memset(&err, 0, sizeof(err));
	CHECK("sw: set refuses two bad assignments before touching anything",
	      dc_sw_set(pin, false, NULL, 2, bad, &err) == EXIT_USAGE &&
	      said("2 bad assignments, nothing changed"), "%s", err.msg);
	memset(&err, 0, sizeof(err));
	if (geteuid() == 0)
		CHECK("sw: set on a switch without maps fails in the error",
		      dc_sw_set(pin, false, NULL, 1, kv, &err) == EXIT_ERR && said("switch s1:"),
		      "%s", err.msg);
	else
		CHECK("sw: set without root says so", dc_sw_set(pin, false, NULL, 1, kv, &err) ==
		      EXIT_ERR && said("must be root"), "%s", err.msg);
	{
		char *doc = NULL, *absent[] = { "sw.s2.alg=dt" };
		size_t n = 0;
		FILE *m = open_memstream(&doc, &n);
		struct jw jj;
		int rc;

		jw_init(&jj, m);
		memset(&err, 0, sizeof(err));
		rc = dc_sw_set(pin, true, &jj, 1, absent, &err);
		fclose(m);
		CHECK("sw: set --json on a switch that is not up writes no JSON before the error",
		      rc == EXIT_ERR && n == 0, "rc %d, %zu bytes: %s", rc, n, doc);
		free(doc);
	}
	memset(&err, 0, sizeof(err));
	CHECK("sw: get of a bad name is a usage error",
	      dc_sw_get(pin, false, NULL, "sw.a b", &err) == EXIT_USAGE && said("expected sw.NAME"),
	      "%s", err.msg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	len = ftell(ef);
	rewind(ef);
	line[0] = '\0';
	if (!fgets(line, sizeof(line), ef))
		line[0] = '\0';
	CHECK("sw: the library printed nothing on stderr", len == 0, "%ld bytes: %s", len, line);
	fclose(ef);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/sw", pin);
	rmdir(path);
	rmdir(pin);
}

/* Reverie's keys: values, refusals with their reason, the pools checked
 * together (sw_rv_refuse), nothing changed by a refused value. */
static void reverie_keys(void)
{
	struct dc_sw_cfg before;
	char why[160];

	dc_sw_cfg_defaults(&cfg);
	CHECK("sw rv: alg=reverie accepted", !assign("alg=reverie") && cfg.alg == DC_ALG_REVERIE,
	      "%s", err.msg);
	CHECK("sw rv: ... and named back", !strcmp(sw_alg_name(cfg.alg), "reverie"), "%s",
	      sw_alg_name(cfg.alg));
	CHECK("sw rv: defaults fit together (64 KiB headroom, 256 KiB pool, 1 MB buffer)",
	      !sw_rv_refuse(&cfg, why, sizeof(why)) && cfg.rv.lossless[3] && !cfg.rv.lossless[0],
	      "%s", why);
	CHECK("sw rv: rv_gamma=0.99 stored in Q32", !assign("rv_gamma=0.99") &&
	      cfg.rv.gamma_q32 == 4252017623u, "%s %u", err.msg, cfg.rv.gamma_q32);
	CHECK("sw rv: rv_gamma=0 (no filter) accepted", !assign("rv_gamma=0") && !cfg.rv.gamma_q32,
	      "%s", err.msg);
	before = cfg;
	CHECK("sw rv: rv_gamma=1 refused: the average would never move",
	      assign("rv_gamma=1") == EXIT_USAGE && said("never move") && said("0 <= x < 1"), "%s",
	      err.msg);
	CHECK("sw rv: rv_gamma=-0.1 refused", assign("rv_gamma=-0.1") && said("out of range"), "%s",
	      err.msg);
	CHECK("sw rv: rv_gamma=0.9x refused as malformed", assign("rv_gamma=0.9x") &&
	      said("not a number"), "%s", err.msg);
	CHECK("sw rv: rv_gamma='' refused as malformed", assign("rv_gamma=") && said("not a number"),
	      "%s", err.msg);
	CHECK("sw rv: rv_alpha_lossless=2000 refused with its range",
	      assign("rv_alpha_lossless=2000") && said("allowed (0, 1024]"), "%s", err.msg);
	CHECK("sw rv: rv_alpha_lossy=0 refused", assign("rv_alpha_lossy=0") &&
	      said("allowed (0, 1024]"), "%s", err.msg);
	CHECK("sw rv: rv_alpha_lossy=abc refused", assign("rv_alpha_lossy=abc") == EXIT_USAGE, "%s",
	      err.msg);
	CHECK("sw rv: rv_hdrm_bytes=100 (below one MTU) refused in bytes",
	      assign("rv_hdrm_bytes=100") && said("allowed [1500, 2147483647] bytes"), "%s", err.msg);
	CHECK("sw rv: rv_hdrm_bytes=4294967296 refused", assign("rv_hdrm_bytes=4294967296") ==
	      EXIT_USAGE, "%s", err.msg);
	CHECK("sw rv: lossless needs an index", assign("lossless=1") && said("lossless.I"), "%s",
	      err.msg);
	CHECK("sw rv: lossless.8 out of range", assign("lossless.8=1") && said("index out of range"),
	      "%s", err.msg);
	CHECK("sw rv: lossless.3=2 refused", assign("lossless.3=2") == EXIT_USAGE, "%s", err.msg);
	CHECK("sw rv: refused values changed nothing", !memcmp(&before, &cfg, sizeof(cfg)),
	      "changed");
	CHECK("sw rv: rv_alpha_lossless=2 and lossless.5=1", !assign("rv_alpha_lossless=2") &&
	      !assign("lossless.5=1") && cfg.rv.alpha_q16[DC_RV_LOSSLESS] == 2u << 16 &&
	      cfg.rv.lossless[5] == 1, "%s", err.msg);
	/* the pools together */
	cfg.buffer_bytes = 200000;
	cfg.rv.hdrm_pool_bytes = 200000;
	CHECK("sw rv: a headroom pool as large as the buffer refused",
	      sw_rv_refuse(&cfg, why, sizeof(why)) && strstr(why, "leaves no shared pool"), "%s",
	      why);
	cfg.rv.hdrm_pool_bytes = 50000;
	cfg.rv.hdrm_bytes = 60000;
	CHECK("sw rv: one queue's headroom above the pool refused",
	      sw_rv_refuse(&cfg, why, sizeof(why)) && strstr(why, "exceeds the pool"), "%s", why);
	cfg.alg = DC_ALG_DT;
	CHECK("sw rv: ... but not checked under another algorithm",
	      !sw_rv_refuse(&cfg, why, sizeof(why)), "%s", why);
	CHECK("sw rv: reverie decides per queue with --queues 4", !sw_queues_refuse(4, DC_ALG_REVERIE),
	      "refused");
	CHECK("sw rv: alg=sonic accepted and named back", !assign("alg=sonic") &&
	      cfg.alg == DC_ALG_SONIC && !strcmp(sw_alg_name(cfg.alg), "sonic"), "%s", err.msg);
	CHECK("sw rv: sonic checks the same pools", sw_rv_refuse(&cfg, why, sizeof(why)) &&
	      strstr(why, "sonic: one queue's rv_hdrm_bytes"), "%s", why);
	CHECK("sw rv: sonic decides per queue with --queues 4", !sw_queues_refuse(4, DC_ALG_SONIC),
	      "refused");
}

int main(void)
{
	engine();
	reverie_keys();
	tables();
	dispatch();
	silent();
	return check_failed;
}
