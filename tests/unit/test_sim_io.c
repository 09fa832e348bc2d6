// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * The simulator's inputs and outputs (loader/sim/): workloads and traces
 * (text and binary), the trace columns, and `dcbpf sim` / `credence train`
 * through the dispatcher (the model itself: test_sim.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "clicap.h"
#include "credence/credence.h"
#include "sim/simcmd.h"
#include "clicap.h"
#include "simfix.h"

/* Writes text to a fresh temporary file; its path in path[]. */
static void write_file(char *path, const char *text)
{
	FILE *f;
	int fd;

	strcpy(path, "/tmp/dcbpf-simtr-XXXXXX");
	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* dc_sim_read_trace on text: 0 and the rows, or -1. */
static int read_text(const char *text, __u64 slot_ns, struct dc_sim_arrival **a, size_t *n)
{
	char path[64];
	int rc;

	write_file(path, text);
	*a = NULL;
	*n = 0;
	rc = dc_sim_read_trace(path, slot_ns, a, n, &serr);
	unlink(path);
	return rc;
}

/* Binary traces: the same records back, mapped; every damage refused with
 * the file and what is wrong, nothing handed out. */
static void bin_patch(const char *path, long off, const void *v, size_t len)
{
	FILE *f = fopen(path, "r+");

	fseek(f, off, SEEK_SET);
	fwrite(v, 1, len, f);
	fclose(f);
}

static void test_workload_and_traces(void)
{
	struct dc_sim_cfg c = unit_cfg(DC_ALG_DT, 16, 1000, 0.5);
	struct dc_sim_workload w;
	struct dc_sim_arrival *a = NULL, *b = NULL, *d = NULL;
	size_t na = 0, nb = 0, nd = 0, i;
	static struct dc_sim_result r[DC_ALG_MAX];
	char path[] = "/tmp/dcbpf-sim-XXXXXX";
	int fd;
	__u32 alg;
	bool same = true;

	dc_sim_workload_defaults(&w);
	w.slots = 50000;
	dc_sim_generate(&c, &w, &a, &na, &serr);
	dc_sim_generate(&c, &w, &b, &nb, &serr);
	CHECK("sim workload: same seed, same arrivals", na == nb && na && !memcmp(a, b, na * sizeof(*a)),
	      "%zu vs %zu arrivals", na, nb);
	free(b);
	w.seed = 2;
	dc_sim_generate(&c, &w, &b, &nb, &serr);
	CHECK("sim workload: another seed, other arrivals", na != nb || memcmp(a, b, na * sizeof(*a)),
	      "%s", "identical");
	free(b);

	fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
	dc_sim_write_trace(path, a, na, &serr);
	dc_sim_read_trace(path, 1, &d, &nd, &serr);
	for (i = 0; i < na && nd == na; i++)
		if (a[i].slot != d[i].slot || a[i].port != d[i].port || a[i].prio != d[i].prio ||
		    a[i].first_rtt != d[i].first_rtt)
			same = false;
	CHECK("sim trace: write then read gives the same arrivals", nd == na && same, "%zu vs %zu", nd,
	      na);
	free(d);
	{
		FILE *f = fopen(path, "w");

		fprintf(f, "time_ns,port,priority,bytes\n0,1,0,1500\n11999,1,0,1500\n12000,2,3,9000\n");
		fclose(f);
	}
	d = NULL;
	dc_sim_read_trace(path, 12000, &d, &nd, &serr);
	CHECK("sim trace: time_ns rows map to slot = time_ns / slot_ns",
	      nd == 3 && d[0].slot == 0 && d[1].slot == 0 && d[2].slot == 1 && d[2].prio == 3 &&
	      d[2].bytes == 9000, "%zu rows", nd);
	free(d);
	{
		FILE *f = fopen(path, "w");

		fprintf(f, "timeslot,port,priority,bytes\n0,1,9,1500\n");
		fclose(f);
	}
	d = NULL;
	CHECK("sim trace: a bad row is refused with its line number",
	      dc_sim_read_trace(path, 1, &d, &nd, &serr) == EXIT_ERR &&
	      strstr(serr.msg, ":2: column 'priority': '9' is not an integer in 0..7"), "%s", serr.msg);
	unlink(path);

	/* the papers' qualitative ordering on the incast-heavy mix */
	for (alg = 0; alg < DC_ALG_MAX; alg++) {
		c.alg = alg;
		dc_sim_run(&c, a, na, w.slots, &r[alg], &serr);
	}
	CHECK("sim ordering: LQD transmits at least as much as CS and DT",
	      r[DC_ALG_LQD].sent_pkts >= r[DC_ALG_CS].sent_pkts &&
	      r[DC_ALG_LQD].sent_pkts >= r[DC_ALG_DT].sent_pkts,
	      "lqd %llu cs %llu dt %llu", (unsigned long long)r[DC_ALG_LQD].sent_pkts,
	      (unsigned long long)r[DC_ALG_CS].sent_pkts, (unsigned long long)r[DC_ALG_DT].sent_pkts);
	CHECK("sim ordering: ABM loses fewer incast packets than DT (burst tolerance)",
	      r[DC_ALG_ABM].prio_drops[1] < r[DC_ALG_DT].prio_drops[1], "abm %llu dt %llu",
	      (unsigned long long)r[DC_ALG_ABM].prio_drops[1],
	      (unsigned long long)r[DC_ALG_DT].prio_drops[1]);
	CHECK("sim ordering: ABM drops fewer first-RTT packets than DT (α_first_rtt)",
	      r[DC_ALG_ABM].first_rtt_drops < r[DC_ALG_DT].first_rtt_drops, "abm %llu dt %llu",
	      (unsigned long long)r[DC_ALG_ABM].first_rtt_drops,
	      (unsigned long long)r[DC_ALG_DT].first_rtt_drops);
	/* conservation for every algorithm */
	for (alg = 0; alg < DC_ALG_MAX; alg++) {
		__u64 left = 0, pushed = 0;
		__u32 p;

		for (p = 0; p < 16; p++) {
			left += r[alg].port[p].final_q;
			pushed += r[alg].port[p].pushed_out;
		}
		if (r[alg].admitted != r[alg].sent_pkts + left + pushed ||
		    r[alg].arrivals != r[alg].admitted + r[alg].drops)
			break;
	}
	CHECK("sim: admitted = sent + left + pushed out, arrivals = admitted + drops (all algorithms)",
	      alg == DC_ALG_MAX, "%s breaks it", dc_alg_name(alg));
	free(a);

	/* byte mode: the link never sends more than slot_bytes per slot */
	c.mode = DC_SIM_BYTE;
	c.buffer = 1000000;
	c.alg = DC_ALG_DT;
	w.seed = 1;
	w.slots = 20000;
	dc_sim_generate(&c, &w, &a, &na, &serr);
	dc_sim_run(&c, a, na, w.slots, &r[0], &serr);
	{
		__u32 p;
		bool ok = r[0].occ_max <= c.buffer && r[0].sent_bytes;

		for (p = 0; p < 16; p++)
			if (r[0].port[p].sent_bytes > (__u64)w.slots * c.slot_bytes)
				ok = false;
		CHECK("sim byte mode: occupancy ≤ B, each port ≤ slot_bytes per slot", ok,
		      "occ_max %llu", (unsigned long long)r[0].occ_max);
	}
	free(a);
}

static void test_binary_traces(void)
{
	struct dc_sim_cfg c = unit_cfg(DC_ALG_DT, 16, 1000, 0.5);
	struct dc_sim_workload w;
	struct dc_sim_arrival *a = NULL, *d = NULL, bad[3];
	struct dc_sim_result r1, r2;
	struct dc_sim_trace t;
	char path[] = "/tmp/dcbpf-simbin-XXXXXX", csv[] = "/tmp/dcbpf-simcsv-XXXXXX";
	size_t na = 0, nd = 0;
	__u32 v;
	__u8 b8;
	int fd;

	dc_sim_workload_defaults(&w);
	w.slots = 20000;
	dc_sim_generate(&c, &w, &a, &na, &serr);
	fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
	fd = mkstemp(csv);
	if (fd >= 0)
		close(fd);
	CHECK("sim binary: written", !dc_sim_write_trace_bin(path, a, na, &serr), "%s", serr.msg);
	CHECK("sim binary: loaded mapped, the same records",
	      !dc_sim_trace_load(path, 1, &t, &serr) && t.map && t.n == na &&
	      !memcmp(t.a, a, na * sizeof(*a)), "%s (%zu of %zu)", serr.msg, t.n, na);
	dc_sim_run(&c, a, na, 0, &r1, &serr);
	dc_sim_run(&c, t.a, t.n, 0, &r2, &serr);
	CHECK("sim binary: a replay decides as the generated run",
	      r1.sent_pkts == r2.sent_pkts && r1.drops == r2.drops && r1.slots == r2.slots,
	      "sent %llu/%llu drops %llu/%llu", (unsigned long long)r1.sent_pkts,
	      (unsigned long long)r2.sent_pkts, (unsigned long long)r1.drops,
	      (unsigned long long)r2.drops);
	dc_sim_trace_release(&t);
	CHECK("sim binary: released", !t.map && !t.a && !t.n, "%p", t.map);
	CHECK("sim binary: dc_sim_read_trace hands out a copy of it",
	      !dc_sim_read_trace(path, 1, &d, &nd, &serr) && nd == na && !memcmp(d, a, na * sizeof(*a)),
	      "%s", serr.msg);
	free(d);
	/* CSV and binary of the same arrivals read the same */
	dc_sim_write_trace(csv, a, na, &serr);
	CHECK("sim binary: a CSV loads into memory (not mapped), the same records",
	      !dc_sim_trace_load(csv, 1, &t, &serr) && !t.map && t.n == na &&
	      !memcmp(t.a, a, na * sizeof(*a)), "%s", serr.msg);
	dc_sim_trace_release(&t);

	/* damage, one at a time */
	CHECK("sim binary: a truncated file is refused, counts named",
	      truncate(path, 32 + (off_t)(na - 1) * 12) == 0 &&
	      dc_sim_trace_load(path, 1, &t, &serr) == EXIT_ERR && !t.a &&
	      strstr(serr.msg, "truncated"), "%s", serr.msg);
	CHECK("sim binary: only the header: refused as well", truncate(path, 20) == 0 &&
	      dc_sim_trace_load(path, 1, &t, &serr) == EXIT_ERR && strstr(serr.msg, "shorter"),
	      "%s", serr.msg);
	memset(bad, 0, sizeof(bad));
	bad[0].slot = 5, bad[1].slot = 6, bad[2].slot = 7;
	dc_sim_write_trace_bin(path, bad, 3, &serr);
	v = 2;
	bin_patch(path, 8, &v, sizeof(v));
	CHECK("sim binary: another version is refused",
	      dc_sim_trace_load(path, 1, &t, &serr) == EXIT_ERR && strstr(serr.msg, "version 2"),
	      "%s", serr.msg);
	dc_sim_write_trace_bin(path, bad, 3, &serr);
	v = 4;
	bin_patch(path, 32 + 12 + 0, &v, sizeof(v));	/* record 2's slot: 4 < 5 */
	CHECK("sim binary: records out of slot order are refused with the record's number",
	      dc_sim_trace_load(path, 1, &t, &serr) == EXIT_ERR && strstr(serr.msg, "record 2: slot"),
	      "%s", serr.msg);
	dc_sim_write_trace_bin(path, bad, 3, &serr);
	b8 = DC_SW_PRIOS;
	bin_patch(path, 32 + 24 + 6, &b8, 1);		/* record 3's priority */
	CHECK("sim binary: a priority out of range is refused",
	      dc_sim_trace_load(path, 1, &t, &serr) == EXIT_ERR && strstr(serr.msg, "record 3: priority"),
	      "%s", serr.msg);
	bad[1].slot = 1;
	CHECK("sim binary: the writer refuses unsorted arrivals",
	      dc_sim_write_trace_bin(path, bad, 3, &serr) == EXIT_ERR && strstr(serr.msg, "not sorted"),
	      "%s", serr.msg);
	CHECK("sim binary: an unreadable path is refused",
	      dc_sim_trace_load("/nonexistent/x", 1, &t, &serr) == EXIT_ERR &&
	      strstr(serr.msg, "cannot open"), "%s", serr.msg);
	unlink(path);
	unlink(csv);
	free(a);
}

static void test_trace_columns(void)
{
	struct dc_sim_arrival *a;
	size_t n, i;
	char text[40000];
	int len = 0;
	bool ok;

	CHECK("sim trace: columns are read by name in any order",
	      !read_text("bytes,first_rtt,priority,port,timeslot\n1500,1,3,2,7\n", 1, &a, &n) &&
	      n == 1 && a[0].slot == 7 && a[0].port == 2 && a[0].prio == 3 && a[0].bytes == 1500 &&
	      a[0].first_rtt == 1, "%zu rows", n);
	free(a);
	CHECK("sim trace: a capture's extra columns are skipped, time_ns anywhere",
	      !read_text("port,verdict,time_ns,q_bytes,priority,bytes\n1,admit,24000,5,0,100\n", 12000,
			 &a, &n) && n == 1 && a[0].slot == 2 && a[0].port == 1 && a[0].bytes == 100,
	      "%zu rows", n);
	free(a);
	CHECK("sim trace: first_rtt is optional (0)",
	      !read_text("timeslot,port,priority,bytes\n0,1,0,1\n", 1, &a, &n) && n == 1 &&
	      !a[0].first_rtt, "%zu rows", n);
	free(a);
	CHECK("sim trace: refused: a misspelt column (prio)",
	      read_text("timeslot,port,prio,bytes\n0,1,0,1\n", 1, &a, &n) == EXIT_ERR &&
	      strstr(serr.msg, "unknown column 'prio'"), "%s", serr.msg);
	CHECK("sim trace: refused: a missing column (bytes)",
	      read_text("timeslot,port,priority\n0,1,0\n", 1, &a, &n) == EXIT_ERR &&
	      strstr(serr.msg, "the header has no column 'bytes'"), "%s", serr.msg);
	CHECK("sim trace: refused: a column twice",
	      read_text("timeslot,port,priority,bytes,port\n0,1,0,1,1\n", 1, &a, &n) == EXIT_ERR &&
	      strstr(serr.msg, "column 'port' appears twice (columns 2 and 5)"), "%s", serr.msg);
	CHECK("sim trace: refused: both time columns",
	      read_text("timeslot,time_ns,port,priority,bytes\n0,0,1,0,1\n", 1, &a, &n) == EXIT_ERR &&
	      strstr(serr.msg, "exactly one time column, 'timeslot' or 'time_ns' (it has both)"), "%s", serr.msg);
	CHECK("sim trace: refused: no time column",
	      read_text("port,priority,bytes\n1,0,1\n", 1, &a, &n) == EXIT_ERR &&
	      strstr(serr.msg, "(it has none)"), "%s", serr.msg);
	CHECK("sim trace: refused: a row with fewer fields than the header",
	      read_text("timeslot,port,priority,bytes,first_rtt\n0,1,0,1\n", 1, &a, &n) == EXIT_ERR &&
	      strstr(serr.msg, ":2: 4 fields, the header has 5 columns"), "%s", serr.msg);
	CHECK("sim trace: refused: a value out of range in a named column (first_rtt 2)",
	      read_text("first_rtt,timeslot,port,priority,bytes\n2,0,1,0,1\n", 1, &a, &n) == EXIT_ERR &&
	      strstr(serr.msg, ":2: column 'first_rtt': '2' is not an integer in 0..1"), "%s", serr.msg);
	CHECK("sim trace: refused: no header", read_text("0,1,0,1\n", 1, &a, &n) == EXIT_ERR &&
	      strstr(serr.msg, "the first line must name the columns"), "%s", serr.msg);

	/* an unsorted file: 600 rows over slots 0..4 in a scrambled order,
	 * bytes = row number; within a slot the rows must keep file order */
	len = snprintf(text, sizeof(text), "timeslot,port,priority,bytes\n");
	for (i = 0; i < 600; i++)
		len += snprintf(text + len, sizeof(text) - (size_t)len, "%zu,0,0,%zu\n",
				(i * 7 + i / 3) % 5, i + 1);
	ok = !read_text(text, 1, &a, &n) && n == 600;
	for (i = 1; ok && i < n; i++)
		if (a[i].slot < a[i - 1].slot ||
		    (a[i].slot == a[i - 1].slot && a[i].bytes <= a[i - 1].bytes))
			ok = false;
	CHECK("sim trace: an unsorted file is ordered by slot, rows of one slot in file order", ok,
	      "row %zu: slot %u bytes %u after slot %u bytes %u", i, ok ? 0 : a[i].slot,
	      ok ? 0 : a[i].bytes, ok ? 0 : a[i - 1].slot, ok ? 0 : a[i - 1].bytes);
	free(a);
}

/* ---- `dcbpf sim` and `credence train` through the dispatcher ---- */

static const struct dc_cmd cli_cmds[] = {
	DC_SIM_CMD,
	{ "train", dc_cred_train_cmd, dc_cred_train_opts, sizeof(struct dc_cred_train_args),
	  .summary = "train a forest" },
	{ NULL },
};
static const struct dc_app cli_app = { .name = "dcbpf", .cmds = cli_cmds };
/* dcbpf ARGS... (NULL-terminated), output in cli_out, cli_err. */
static int cli(const char *cmd, ...)
{
	va_list ap;
	int rc;

	va_start(ap, cmd);
	rc = cli_run_va(&cli_app, NULL, cmd, ap);
	va_end(ap);
	return rc;
}

static void test_cli(void)
{
	struct dc_sim_args o;
	struct dc_sim_cfg c, d;
	struct dc_sim_workload w, v;
	char *argv0[] = { "sim", NULL }, trace[64];
	struct dc_err e;
	const char *const both[] = { "sim", "train" };
	unsigned int k, lines = 0;
	const char *p;
	int rc;

	CHECK("sim cli: the sim and train tables are well formed", !dc_cmds_check(cli_cmds, &e),
	      "%s", e.msg);
	/* the shared table's defaults are the engine's and the generator's */
	CHECK_EQ("sim cli: defaults parse", dc_opts_parse(dc_sim_cmd_opts, &o, 1, argv0, &e), 0);
	dc_sim_cfg_defaults(&c);
	dc_sim_workload_defaults(&w);
	d = c;
	v = w;
	dc_sim_opts_apply(&o.sim, &d, &v);
	CHECK("sim cli: table defaults = dc_sim_cfg_defaults",
	      d.nports == c.nports && d.buffer == c.buffer && d.mode == c.mode &&
	      d.slot_bytes == c.slot_bytes && d.slot_ns == c.slot_ns &&
	      o.alpha_q16 == c.alpha_q16[0] && o.alpha_first_rtt_q16 == c.alpha_first_rtt_q16 &&
	      o.abm_period == c.abm_period_slots && o.pred_seed == c.pred_seed && o.alg == (int)c.alg &&
	      o.predictor == (int)c.predictor && o.flip == 0, "%u %llu", d.nports,
	      (unsigned long long)d.buffer);
	CHECK("sim cli: table defaults = dc_sim_workload_defaults",
	      !strcmp(v.kind, w.kind) && v.slots == w.slots && v.load == w.load &&
	      v.incast_frac == w.incast_frac && v.incast_senders == w.incast_senders &&
	      v.incast_period == w.incast_period && v.mtu == w.mtu && o.seed == w.seed &&
	      o.first_rtt_pkts == w.first_rtt_pkts, "%s", v.kind);

	/* one table: both commands refuse the same values */
	for (k = 0; k < 2; k++) {
		char name[96];

		rc = cli(both[k], "--load", "nan", "--out", "/nonexistent/x", NULL);
		snprintf(name, sizeof(name), "%s cli: --load nan refused", both[k]);
		CHECK(name, rc == EXIT_USAGE && strstr(cli_err, "--load: nan"), "%d %s", rc, cli_err);
		rc = cli(both[k], "--load", "", "--out", "/nonexistent/x", NULL);
		snprintf(name, sizeof(name), "%s cli: --load \"\" refused", both[k]);
		CHECK(name, rc == EXIT_USAGE && strstr(cli_err, "--load"), "%d %s", rc, cli_err);
		rc = cli(both[k], "--mode", "byt", "--out", "/nonexistent/x", NULL);
		snprintf(name, sizeof(name), "%s cli: --mode names its choices", both[k]);
		CHECK(name, rc == EXIT_USAGE && strstr(cli_err, "unit, byte"), "%d %s", rc, cli_err);
		rc = cli(both[k], "--trace", "", "--out", "/nonexistent/x", NULL);
		snprintf(name, sizeof(name), "%s cli: --trace \"\" refused", both[k]);
		CHECK(name, rc == EXIT_USAGE && strstr(cli_err, "--trace"), "%d %s", rc, cli_err);
	}

	/* a trace run refuses the options of a generated workload */
	write_file(trace, "timeslot,port,priority,bytes\n0,0,0,1\n0,0,0,1\n");
	rc = cli("sim", "--trace", trace, "--slots", "100", NULL);
	CHECK("sim cli: --slots with --trace refused, naming it",
	      rc == EXIT_USAGE && strstr(cli_err, "dcbpf sim: --slots has no effect with --trace"),
	      "%d %s", rc, cli_err);
	rc = cli("sim", "--trace", trace, "--seed", "3", NULL);
	CHECK("sim cli: --seed with --trace refused (sim's own workload option)",
	      rc == EXIT_USAGE && strstr(cli_err, "--seed has no effect with --trace"), "%d %s", rc,
	      cli_err);
	rc = cli("sim", "--no-drain", "--slots", "100", NULL);
	CHECK("sim cli: --no-drain without --trace refused",
	      rc == EXIT_USAGE && strstr(cli_err, "--no-drain goes with --trace"), "%d %s", rc,
	      cli_err);
	rc = cli("sim", "--queues", "9", NULL);
	CHECK("sim cli: --queues 9 refused with the range",
	      rc == EXIT_USAGE && strstr(cli_err, "--queues") && strstr(cli_err, "8"), "%d %s", rc,
	      cli_err);
	rc = cli("sim", "--queues", "8", "--ports", "9", NULL);
	CHECK("sim cli: 9 ports × 8 queues refused (64 queues at most)",
	      rc == EXIT_USAGE && strstr(cli_err, "at most 64"), "%d %s", rc, cli_err);
	rc = cli("sim", "--alpha-prio", "0.5,0", NULL);
	CHECK("sim cli: --alpha-prio with α = 0 refused, naming the value",
	      rc == EXIT_USAGE && strstr(cli_err, "value 1"), "%d %s", rc, cli_err);
	rc = cli("sim", "--alpha-prio", "0.5,", NULL);
	CHECK("sim cli: --alpha-prio ending in a comma refused",
	      rc == EXIT_USAGE && strstr(cli_err, "comma"), "%d %s", rc, cli_err);
	rc = cli("sim", "--alpha-prio", "1,2,3,4,5,6,7,8,9", NULL);
	CHECK("sim cli: --alpha-prio with 9 values refused",
	      rc == EXIT_USAGE && strstr(cli_err, "at most 8"), "%d %s", rc, cli_err);
	rc = cli("sim", "--alg", "credence", "--predictor", "forest", NULL);
	CHECK("sim cli: --predictor forest without --model refused",
	      rc == EXIT_USAGE && strstr(cli_err, "go together"), "%d %s", rc, cli_err);
	rc = cli("sim", "--ports", "1", "--buffer", "4", "--alpha", "0.5", "--trace", trace, "--json",
		 NULL);
	CHECK("sim cli: a trace run, --json: an array of one object (both packets admitted)",
	      rc == 0 && !strncmp(cli_out, "[{\"alg\":\"dt\",\"mode\":\"unit\",\"ports\":1,\"buffer\":4,", 45) &&
	      strstr(cli_out, "\"admitted\":2,") && !strcmp(cli_out + strlen(cli_out) - 3, "}]\n"),
	      "%d %s %s", rc, cli_out, cli_err);
	rc = cli("sim", "--trace", "/nonexistent/t.csv", NULL);
	CHECK("sim cli: an absent trace is a runtime error naming it",
	      rc == EXIT_ERR && strstr(cli_err, "dcbpf sim: cannot open trace /nonexistent/t.csv"),
	      "%d %s", rc, cli_err);
	unlink(trace);
	rc = cli("sim", "--alg", "all", "--slots", "2000", NULL);
	for (p = cli_out; (p = strchr(p, '\n')); p++)
		lines++;
	CHECK("sim cli: --alg all: a header, the column names, eight rows and Credence's line",
	      rc == 0 && lines == 11 && strstr(cli_out, "\nfollowlqd ") &&
	      strstr(cli_out, "\nsmartbuf ") && strstr(cli_out, "\nedt ") &&
	      strstr(cli_out, "# credence: predictor oracle, flip 0:"), "%d %u %s", rc, lines,
	      cli_err);
}

int main(void)
{
	test_trace_columns();
	test_workload_and_traces();
	test_binary_traces();
	test_cli();
	return check_failed;
}
