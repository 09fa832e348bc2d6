// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * Reconfigurable networks (include/dcbpf/rdcn.h, loader/rdcn/), around the
 * generators (test_rdcn.c): matrix rounding, the schedule and demand files
 * accepted and refused, the bounds of the thesis' Theorems 15-19, 22,
 * 24-25, Corollary 2 on Table 7.1 and the Ch. 9 table, the writer of
 * the double-buffered schedule on a store in memory, and the circuit
 * switch's port specification (IF=TOR/UP@MAC) accepted and refused.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "rand.h"
#include "rdcn/rdcn.h"

static struct dc_rs S, S2;
static struct dc_err err;

#define NEAR(name, a, b, tol) \
	CHECK(name, fabs((double)(a) - (double)(b)) <= (tol), "%.6f != %.6f", (double)(a), (double)(b))

static void test_round(void)
{
	static __u16 r[DC_RD_TORS_MAX][DC_RD_TORS_MAX];
	double x[32 * 32];
	__u32 seed, n, i, j;
	int ok = 1;

	for (seed = 1; seed <= 30 && ok; seed++) {
		__u64 st = seed;
		double tot = 0;
		long rtot = 0;

		n = 2 + (__u32)dc_rand_below(&st, 30);
		for (i = 0; i < n * n; i++) {
			x[i] = dc_rand_unit(&st) < 0.5 ? dc_rand_unit(&st) * 10 : 0;
			tot += x[i];
		}
		if (dc_rs_round(n, x, r, &err)) {
			ok = 0;
			break;
		}
		for (i = 0; i < n && ok; i++) {
			double rs = 0, cs = 0;
			long ri = 0, ci = 0;

			for (j = 0; j < n; j++) {
				rs += x[i * n + j];
				cs += x[j * n + i];
				ri += r[i][j];
				ci += r[j][i];
				ok &= fabs(r[i][j] - x[i * n + j]) < 1;
			}
			ok &= ri >= (long)floor(rs + 1e-9) && ri <= (long)ceil(rs - 1e-9);
			ok &= ci >= (long)floor(cs + 1e-9) && ci <= (long)ceil(cs - 1e-9);
			rtot += ri;
		}
		ok &= rtot >= (long)floor(tot + 1e-9) && rtot <= (long)ceil(tot - 1e-9);
		if (!ok)
			printf("# seed %u n %u\n", seed, n);
	}
	CHECK("round: 30 random matrices: entries, rows, columns, total to floor or ceiling", ok, "%s", err.msg);
	x[0] = -1;
	CHECK("round: a negative entry refused", dc_rs_round(2, x, r, &err) != 0 && strstr(err.msg, "(0, 0)"), "%s",
	      err.msg);
}

static int parse_text(const char *text, struct dc_rs *s)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc = dc_rs_parse("t.sched", f, s, &err);

	fclose(f);
	return rc;
}

static void test_file(void)
{
	static const struct { const char *name, *text, *want; } bad[] = {
		{ "not a schedule", "tors 4\n", "t.sched:1: not a schedule file" },
		{ "version 2", "rdcn-schedule 2\n", "t.sched:1: schedule format version '2'" },
		{ "unknown keyword", "rdcn-schedule 1\ntors 4\nrotor 3\n", "t.sched:3: unknown keyword 'rotor'" },
		{ "65 ToRs", "rdcn-schedule 1\ntors 65\n", "t.sched:2: tors '65'" },
		{ "missing day", "rdcn-schedule 1\ntors 3\nuplinks 1\nperiod 1\nslot_ns 10\nmatch 0 0 1 2 0\n",
		  "t.sched:6: 'day_ns' must come before" },
		{ "no night", "rdcn-schedule 1\ntors 3\nuplinks 1\nperiod 1\nslot_ns 10\nday_ns 10\nmatch 0 0 1 2 0\n",
		  "t.sched:7: day_ns must be above 0 and below slot_ns" },
		{ "slot out of range",
		  "rdcn-schedule 1\ntors 3\nuplinks 1\nperiod 1\nslot_ns 10\nday_ns 9\nmatch 1 0 1 2 0\n",
		  "t.sched:7: slot '1': must be 0..0" },
		{ "two ToRs to one",
		  "rdcn-schedule 1\ntors 3\nuplinks 1\nperiod 1\nslot_ns 10\nday_ns 9\n\n# x\nmatch 0 0 1 1 0\n",
		  "t.sched:9: not a permutation: ToRs 0 and 1 both reach ToR 1" },
		{ "short line", "rdcn-schedule 1\ntors 3\nuplinks 1\nperiod 1\nslot_ns 10\nday_ns 9\nmatch 0 0 1 2\n",
		  "t.sched:7: 2 peers for 3 ToRs" },
		{ "long line", "rdcn-schedule 1\ntors 3\nuplinks 1\nperiod 1\nslot_ns 10\nday_ns 9\nmatch 0 0 1 2 0 3\n",
		  "t.sched:7: more than 3 peers" },
		{ "peer not a ToR",
		  "rdcn-schedule 1\ntors 3\nuplinks 1\nperiod 1\nslot_ns 10\nday_ns 9\nmatch 0 0 1 2 3\n",
		  "t.sched:7: peer of ToR 2 '3'" },
		{ "twice", "rdcn-schedule 1\ntors 3\nuplinks 1\nperiod 1\nslot_ns 10\nday_ns 9\nmatch 0 0 1 2 0\n"
		  "match 0 0 1 2 0\n", "t.sched:8: slot 0 uplink 0 given twice" },
		{ "missing slot", "rdcn-schedule 1\ntors 3\nuplinks 1\nperiod 2\nslot_ns 10\nday_ns 9\nmatch 0 0 1 2 0\n",
		  "t.sched: slot 1 uplink 0 has no match line" },
		{ "header after match",
		  "rdcn-schedule 1\ntors 3\nuplinks 1\nperiod 1\nslot_ns 10\nday_ns 9\nmatch 0 0 1 2 0\ntors 3\n",
		  "t.sched:8: 'tors' after the first match line" },
		{ "key twice", "rdcn-schedule 1\ntors 3\ntors 4\n", "t.sched:3: 'tors' given twice" },
		{ "empty", "# nothing\n", "t.sched: empty" },
	};
	char *buf = NULL, name[96];
	size_t len = 0;
	FILE *f;
	unsigned int i;

	dc_rs_mars(&S, 16, 2, 4, 3, &err);
	S.cfg.slot_ns = 100000;
	S.cfg.day_ns = 90000;
	f = open_memstream(&buf, &len);
	dc_rs_write(&S, f);
	fclose(f);
	CHECK("file: a written schedule reads back the same", parse_text(buf, &S2) == 0 &&
	      !memcmp(&S.cfg, &S2.cfg, sizeof(S.cfg)) && !memcmp(S.slot, S2.slot, sizeof(S.slot)), "%s", err.msg);
	CHECK("file: it declares its kind", strstr(buf, "kind mars d=4") != NULL, "");
	free(buf);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(name, sizeof(name), "file refused: %s", bad[i].name);
		dc_err_clear(&err);
		CHECK(name, parse_text(bad[i].text, &S2) == EXIT_USAGE && strstr(err.msg, bad[i].want), "got '%s'",
		      err.msg);
	}
}

static void test_demand(void)
{
	static const struct { const char *name, *text, *want; } bad[] = {
		{ "ragged", "0 1 2\n1 0\n", "d:2: 2 columns, the first row has 3" },
		{ "negative", "0 -1\n1 0\n", "d:1: demand '-1'" },
		{ "word", "0 x\n1 0\n", "d:1: demand 'x'" },
		{ "too many rows", "0 1\n1 0\n1 1\n", "d:3: more than 2 rows" },
		{ "too few rows", "0 1 1\n1 0 1\n", "d: 2 rows for 3 columns" },
		{ "one column", "5\n", "d:1: 1 columns" },
		{ "nothing", "# x\n\n", "d: no demand rows" },
	};
	const char *good = "# ring\n0 1 0\n0,0,1.5\n\n1 0 0 # back\n";
	double *m = NULL;
	__u32 n = 0;
	char name[96];
	unsigned int i;
	FILE *f = fmemopen((void *)good, strlen(good), "r");

	CHECK("demand: commas, comments, blank lines", dc_rs_parse_demand("d", f, &m, &n, &err) == 0 && n == 3 &&
	      m[1] == 1 && m[5] == 1.5 && m[6] == 1, "%s", err.msg);
	fclose(f);
	free(m);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(name, sizeof(name), "demand refused: %s", bad[i].name);
		f = fmemopen((void *)bad[i].text, strlen(bad[i].text), "r");
		dc_err_clear(&err);
		CHECK(name, dc_rs_parse_demand("d", f, &m, &n, &err) == EXIT_USAGE && strstr(err.msg, bad[i].want),
		      "got '%s'", err.msg);
		fclose(f);
	}
}

static void test_bounds(void)
{
	/* Table 7.1: n_t 16, n_u 2, Δ 100 µs (10 µs reconfiguration), c 400 Gbps */
	struct dc_rb_in in = { .ntors = 16, .nup = 2, .slot_ns = 100000, .reconf_ns = 10000, .link_bps = 400e9 };
	struct dc_rb_out o;
	double k, dr;
	__u32 d;
	static const struct { __u32 g; double cd, rd, cr, rr; } ch9[] = {
		{ 1, 0.5, 0.5, 0.5, 0.5 },	   { 2, 0.5, 0.25, 0.5, 0.375 },	{ 3, 0.6667, 0.1667, 0.5556, 0.3056 },
		{ 5, 0.8, 0.1, 0.6433, 0.2283 }, { 10, 0.9, 0.05, 0.7571, 0.1464 },
	};
	char name[96];
	unsigned int i;

	NEAR("lambert: W_{-1}(-ln2/2) = -ln 4", dc_rb_lambert_wm1(-M_LN2 / 2), -log(4), 1e-12);
	NEAR("lambert: W_{-1}(-1/e) = -1", dc_rb_lambert_wm1(-1 / M_E), -1, 1e-9);
	CHECK("lambert: NaN outside [-1/e, 0)", isnan(dc_rb_lambert_wm1(-0.5)) && isnan(dc_rb_lambert_wm1(0.1)), "");

	in.d = 2;
	CHECK_EQ("table 7.1 (1) static d=2: computed", dc_rb_compute(&in, &o, &err), 0);
	NEAR("table 7.1 (1): throughput 1/8 (diameter 4)", o.theta, 0.125, 1e-9);
	CHECK("table 7.1 (1): no delay, no buffer (one slot, static)", o.delay_ns == 0 && o.buf_need_bytes == 0 &&
	      o.period == 1 && o.diameter == 4, "");
	in.d = 16;
	dc_rb_compute(&in, &o, &err);
	NEAR("table 7.1 (2) complete d=16: throughput 1/2", o.theta, 0.5, 1e-9);
	NEAR("table 7.1 (2): delay 1600 µs", o.delay_ns, 1600000, 1e-3);
	NEAR("table 7.1 (2): buffer 80 MB", o.buf_need_bytes, 80e6, 1);
	NEAR("table 7.1 (2): x (1 - Δ_u) = 0.45 (Corollary 1)", o.theta_eff, 0.45, 1e-9);
	in.buf_bytes = 20e6;
	dc_rb_compute(&in, &o, &err);
	NEAR("table 7.1 (3) complete with 20 MB: throughput 1/8 (Theorem 16)", o.theta, 0.125, 1e-9);
	in.d = 0;
	in.delay_ns = 850000;
	CHECK_EQ("table 7.1 (4) Mars, B 20 MB, L 850 µs: computed", dc_rb_compute(&in, &o, &err), 0);
	CHECK("table 7.1 (4): d = 4 by Theorems 18 and 19", o.d == 4 && o.d18 == 4 && o.d19 == 4, "d %u d18 %u d19 %u",
	      o.d, o.d18, o.d19);
	NEAR("table 7.1 (4): throughput 1/4", o.theta, 0.25, 1e-9);
	NEAR("table 7.1 (4): delay 800 µs (within L)", o.delay_ns, 800000, 1e-3);
	NEAR("table 7.1 (4): buffer 20 MB", o.buf_need_bytes, 20e6, 1);
	NEAR("theorem 18 at 850 µs: k = -0.32619", o.k18, -0.32619, 1e-5);
	NEAR("theorem 18 at 850 µs: root 4.825", o.d18_real, 4.825, 1e-3);
	CHECK("theorem 18 at 800 µs: exactly 4", dc_rb_d_delay(16, 2, 100000, 800000, &k, &dr, &d, &err) == 0 &&
	      d == 4 && fabs(dr - 4) < 1e-9 && fabs(k + M_LN2 / 2) < 1e-12, "d %u %f", d, dr);
	CHECK("theorem 18 at 1600 µs: exactly 16", dc_rb_d_delay(16, 2, 100000, 1600000, &k, &dr, &d, &err) == 0 &&
	      d == 16, "d %u %f", d, dr);
	CHECK("theorem 18 at 700 µs: no real root, the minimum named",
	      dc_rb_d_delay(16, 2, 100000, 700000, &k, &dr, &d, &err) == EXIT_USAGE &&
	      strstr(err.msg, "at least 2e·ln(n_t)·Δ/n_u = 753"), "%s", err.msg);
	/* a small Mars design: 9 ToRs, 1 uplink, 1 Gbit/s, 1 ms slots */
	in = (struct dc_rb_in){ .ntors = 9, .nup = 1, .d = 3, .slot_ns = 1e6, .reconf_ns = 1e5, .link_bps = 1e9 };
	dc_rb_compute(&in, &o, &err);
	CHECK("mars 9/3: θ* 1/4 needs c·d·Δ = 375 kB per ToR, delay 2·log_3(9)·3 ms = 12 ms",
	      fabs(o.theta_star - 0.25) < 1e-9 && fabs(o.buf_need_bytes - 375000) < 1e-3 &&
	      fabs(o.delay_ns - 12e6) < 1e-3 && o.period == 3, "%f %f %f", o.theta_star, o.buf_need_bytes, o.delay_ns);
	in.d = 9;
	in.buf_bytes = 375000;
	dc_rb_compute(&in, &o, &err);
	NEAR("complete graph of 9 with the same 375 kB: θ <= 3 Mbit / (1 Gbit/s x 18 ms) = 1/6 (Thm 16)", o.theta,
	     1.0 / 6, 1e-9);
	in.buf_bytes = 1125000;
	dc_rb_compute(&in, &o, &err);
	NEAR("complete graph of 9 with 1.125 MB: 1/2, above Mars' 1/4", o.theta, 0.5, 1e-9);
	/* Theorem 17 */
	in = (struct dc_rb_in){ .ntors = 16, .nup = 4, .d = 4, .slot_ns = 1000, .link_bps = 1e9 };
	dc_rb_compute(&in, &o, &err);
	NEAR("theorem 17: (16, 4) -> 1/4", o.theta_star, 0.25, 1e-9);
	in.ntors = 64;
	in.d = 8;
	dc_rb_compute(&in, &o, &err);
	NEAR("theorem 17: (64, 8) -> 1/4", o.theta_star, 0.25, 1e-9);
	in.d = 64;
	dc_rb_compute(&in, &o, &err);
	NEAR("theorem 17: d = n_t -> 1/2", o.theta_star, 0.5, 1e-9);
	/* Theorem 19: 20 MB, 400 Gbps, 100 µs -> 4 */
	in = (struct dc_rb_in){ .ntors = 16, .nup = 2, .slot_ns = 100000, .link_bps = 400e9, .buf_bytes = 20e6 };
	CHECK("theorem 19: 20 MB at 400 Gbps, 100 µs -> d = 4", dc_rb_compute(&in, &o, &err) == 0 && o.d == 4, "d %u",
	      o.d);
	/* Theorem 22 */
	in.k = 3;
	in.reconf_ns = 10000;
	dc_rb_compute(&in, &o, &err);
	NEAR("theorem 22: k = 3 -> 2/3 (1 - Δ_r)", o.verm_theta, 2.0 / 3 * 0.9, 1e-9);
	in.k = 6;
	dc_rb_compute(&in, &o, &err);
	NEAR("theorem 22: k = 6 -> 5/6 (1 - Δ_r)", o.verm_theta, 5.0 / 6 * 0.9, 1e-9);
	for (i = 0; i < sizeof(ch9) / sizeof(ch9[0]); i++) {
		in.gamma = ch9[i].g;
		dc_rb_compute(&in, &o, &err);
		snprintf(name, sizeof(name), "ch. 9, γ = %u: consistency and robustness, det. and uniform", ch9[i].g);
		CHECK(name, fabs(o.cons_det - ch9[i].cd) < 1e-4 && fabs(o.rob_det - ch9[i].rd) < 1e-4 &&
		      fabs(o.cons_rand - ch9[i].cr) < 1e-4 && fabs(o.rob_rand - ch9[i].rr) < 1e-4,
		      "%.4f %.4f %.4f %.4f", o.cons_det, o.rob_det, o.cons_rand, o.rob_rand);
	}
	/* refused */
	in = (struct dc_rb_in){ .ntors = 16, .nup = 2, .slot_ns = 100000, .link_bps = 400e9 };
	CHECK("bounds: no degree and no budget refused", dc_rb_compute(&in, &o, &err) == EXIT_USAGE &&
	      strstr(err.msg, "give the degree"), "%s", err.msg);
	in.d = 4;
	in.reconf_ns = 100000;
	CHECK("bounds: reconfiguration as long as the slot refused", dc_rb_compute(&in, &o, &err) == EXIT_USAGE &&
	      strstr(err.msg, "below the slot"), "%s", err.msg);
	in.reconf_ns = 0;
	in.d = 17;
	CHECK("bounds: degree above n_t refused", dc_rb_compute(&in, &o, &err) == EXIT_USAGE, "");
	in.d = 0;
	in.delay_ns = 700000;
	CHECK("bounds: an impossible delay alone refused", dc_rb_compute(&in, &o, &err) == EXIT_USAGE &&
	      strstr(err.msg, "Theorem 18"), "%s", err.msg);
}

/* ---- the writer on a store in memory ---- */
static struct {
	__u64 flip;
	struct dc_rd_cfg cfg[2];
	struct dc_rd_slot sched[DC_RD_BUFS * DC_RD_SLOTS_MAX];
	int fail_slot;	/* put_slot fails at this key + 1 */
	unsigned int writes[2];
} mem;

static int m_get_flip(void *c, __u64 *w) { (void)c; *w = mem.flip; return 0; }
static int m_put_flip(void *c, __u64 w) { (void)c; mem.flip = w; return 0; }
static int m_get_cfg(void *c, __u32 b, struct dc_rd_cfg *v) { (void)c; *v = mem.cfg[b]; return 0; }
static int m_put_cfg(void *c, __u32 b, const struct dc_rd_cfg *v) { (void)c; mem.cfg[b] = *v; return 0; }
static int m_put_slot(void *c, __u32 k, const struct dc_rd_slot *s)
{
	(void)c;
	if (mem.fail_slot && k + 1 == (__u32)mem.fail_slot)
		return -5;
	mem.sched[k] = *s;
	mem.writes[k / DC_RD_SLOTS_MAX]++;
	return 0;
}

static void test_publish(void)
{
	struct dc_rd_store st = { NULL, m_get_flip, m_put_flip, m_get_cfg, m_put_cfg, m_put_slot };
	__u64 at = 0, old_flip;
	__u32 slot, b;
	__u64 left;

	memset(&mem, 0, sizeof(mem));
	dc_rs_rr(&S, 5, 1, false, &err);
	S.cfg.slot_ns = 1000;
	S.cfg.day_ns = 900;
	CHECK("publish: first schedule, nothing live: flip after the guard", dc_rd_publish(&st, &S, 10000, 500, &at,
	      &err) == 0 && at == 10500, "%s at %llu", err.msg, (unsigned long long)at);
	CHECK("publish: buffer 1 written, buffer 0 untouched", mem.writes[1] == DC_RD_SLOTS_MAX && mem.writes[0] == 0 &&
	      mem.cfg[1].epoch_ns == 10500 && mem.cfg[1].period == 4, "");
	CHECK("publish: the new copy goes live at the flip", dc_rd_live_buf(mem.flip, 10499) == 0 &&
	      dc_rd_live_buf(mem.flip, 10500) == 1, "");
	CHECK("publish: slots beyond the period are idle", mem.sched[dc_rd_sched_key(1, 4)].peer[0][0] == DC_RD_IDLE &&
	      mem.sched[dc_rd_sched_key(1, 3)].peer[0][0] == 4, "");
	b = dc_rd_live_buf(mem.flip, 10500);
	CHECK("publish: the data path's view at the flip: slot 0, 0 -> 1",
	      dc_rd_where(&mem.cfg[b], 10500, &slot, &left) == 1 && slot == 0 &&
	      dc_rd_matched(&mem.sched[dc_rd_sched_key(b, slot)], 1, 0, 1) == 0, "");
	CHECK("publish: refused while a flip is pending", dc_rd_publish(&st, &S, 10200, 100, &at, &err) == EXIT_ERR &&
	      strstr(err.msg, "pending at 10500"), "%s", err.msg);
	/* a Mars schedule replaces it at the next period boundary (4 µs periods) */
	dc_rs_mars(&S2, 4, 1, 2, 1, &err);
	S2.cfg.slot_ns = 2000;
	S2.cfg.day_ns = 1900;
	memset(mem.writes, 0, sizeof(mem.writes));
	CHECK("publish: second schedule flips at the live one's period boundary",
	      dc_rd_publish(&st, &S2, 20000, 1000, &at, &err) == 0 && at == 10500 + 3 * 4000, "%s at %llu", err.msg,
	      (unsigned long long)at);
	CHECK("publish: it went into buffer 0; the live buffer 1 untouched", mem.writes[0] == DC_RD_SLOTS_MAX &&
	      mem.writes[1] == 0 && mem.cfg[0].epoch_ns == at && mem.cfg[1].epoch_ns == 10500, "");
	CHECK("publish: buffer 1 live until the flip, 0 from it", dc_rd_live_buf(mem.flip, at - 1) == 1 &&
	      dc_rd_live_buf(mem.flip, at) == 0, "");
	/* a failed write leaves the flip word as it was */
	old_flip = mem.flip;
	mem.fail_slot = 3 + DC_RD_SLOTS_MAX + 1;
	CHECK("publish: a failed slot write is named, nothing flips",
	      dc_rd_publish(&st, &S, at + 10, 0, &at, &err) == EXIT_ERR && strstr(err.msg, "slot 3") &&
	      mem.flip == old_flip, "%s", err.msg);
	mem.fail_slot = 0;
	S.cfg.day_ns = 0;
	CHECK("publish: a bad schedule refused before any write", dc_rd_publish(&st, &S, at + 10, 0, &at, &err) ==
	      EXIT_USAGE && strstr(err.msg, "day_ns"), "%s", err.msg);
}

static void test_portspec(void)
{
	static const struct {
		const char *spec, *why;
	} bad[] = {
		{ "c0u0", "IF=TOR/UP@MAC" },
		{ "=0/0@02:00:00:00:00:01", "IF=TOR/UP@MAC" },
		{ "c0u0=0@02:00:00:00:00:01", "IF=TOR/UP@MAC" },
		{ "c0u0=0/0", "IF=TOR/UP@MAC" },
		{ "c0u0=64/0@02:00:00:00:00:01", "ToR must be 0..63" },
		{ "c0u0=x/0@02:00:00:00:00:01", "ToR must be" },
		{ "c0u0=1/8@02:00:00:00:00:01", "uplink must be 0..7" },
		{ "c0u0=1/@02:00:00:00:00:01", "uplink must be" },
		{ "c0u0=1/0@02:00:00:00:00", "six hex bytes" },
		{ "c0u0=1/0@02:00:00:00:00:0g", "six hex bytes" },
		{ "c0u0=1/0@02:00:00:00:00:01x", "six hex bytes" },
		{ "c0u0=1/0@ff:ff:ff:ff:ff:ff", "group address" },
		{ "c0u0=1/0@01:00:5e:00:00:01", "group address" },
		{ "abcdefghijklmnop=1/0@02:00:00:00:00:01", "longer than 15" },
	};
	struct dc_rd_portspec p;
	unsigned int i;

	CHECK("portspec: c3u1=3/1@02:dc:7d:00:03:01",
	      dc_rd_port_parse("c3u1=3/1@02:dc:7d:00:03:01", &p, &err) == 0 && !strcmp(p.ifname, "c3u1") &&
	      p.tor == 3 && p.up == 1 && p.mac[0] == 0x02 && p.mac[1] == 0xdc && p.mac[4] == 3 && p.mac[5] == 1,
	      "%s", err.msg);
	CHECK("portspec: the last ToR and uplink, upper-case hex",
	      dc_rd_port_parse("x=63/7@0A:BB:CC:DD:EE:FF", &p, &err) == 0 && p.tor == 63 && p.up == 7 &&
	      p.mac[0] == 0x0a && p.mac[5] == 0xff, "%s", err.msg);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char name[160];

		memset(&err, 0, sizeof(err));
		snprintf(name, sizeof(name), "portspec: %s refused (%s)", bad[i].spec, bad[i].why);
		CHECK(name, dc_rd_port_parse(bad[i].spec, &p, &err) == EXIT_USAGE && strstr(err.msg, bad[i].why),
		      "%s", err.msg);
	}
}

int main(void)
{
	test_round();
	test_file();
	test_demand();
	test_bounds();
	test_publish();
	test_portspec();
	return check_failed;
}
