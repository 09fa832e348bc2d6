// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * The simulator (loader/sim/) on discrete reference cases worked by hand
 * (docs/admission.md, "Tests"), LQD's push-out order, trace files with the
 * reason of each refusal, the papers' qualitative ordering on an
 * incast-heavy workload, and `dcbpf sim` through its option table.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "credence/credence.h"
#include "sim/simcmd.h"
#include "simfix.h"

static void test_dt_steady(void)
{
	static const struct {
		double alpha;
		__u32 n;
		__u64 want;
	} cases[] = { { 1, 1, 600 }, { 1, 2, 400 }, { 0.5, 1, 400 }, { 0.5, 2, 300 },
		      { 8, 1, 1066 }, { 2, 3, 342 } };
	static struct dc_sim_result r;
	char name[160];
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double al[DC_SW_PRIOS] = { cases[i].alpha };
		struct dc_sim_cfg c = unit_cfg(DC_ALG_DT, cases[i].n, 1200, cases[i].alpha);

		overload(DC_ALG_DT, cases[i].alpha, cases[i].n, 5000, &r);
		snprintf(name, sizeof(name), "sim dt steady state α = %g, n = %u: every queue and the sent count equal the model's (T-DT1, αB/(1+nα) = %llu)",
			 cases[i].alpha, cases[i].n, (unsigned long long)cases[i].want);
		same_as_ref(name, &c, al, 5000, &r);
	}
	/* 1 queue, α = 1, B = 1200: after the departure q = 599; then
	 * 599 < 601 and 600 < 600 fails: one admitted per slot, q = 599 */
	CHECK_EQ("sim dt α = 1, n = 1: q = 599 after each slot's departure",
		 overload(DC_ALG_DT, 1, 1, 5000, &r), 599);
	/* T-ABM1: two congested queues (n_p = 2, γ = 1), α = 1 → T = ⌈(B − Q)/2⌉.
	 * After a slot q = (300, 299), Q = 599: port 0 admits at 300 < 301,
	 * not at 301; port 1 admits at 299 < 300 (Q = 601), not at 300. */
	overload(DC_ALG_ABM, 1, 2, 5000, &r);
	CHECK("sim abm: two congested queues, α = 1 → B/4 each (T-ABM1): q = 300 and 299",
	      r.port[0].final_q == 300 && r.port[1].final_q == 299, "q %llu, %llu",
	      (unsigned long long)r.port[0].final_q, (unsigned long long)r.port[1].final_q);
}

/* T-DT3: AF (α = 2, priority 1) on port 0 loses its share to BE queues. */
static void test_dt_no_isolation(void)
{
	static struct dc_sim_result r;
	__u32 nbe, t, p;

	for (nbe = 1; nbe <= 5; nbe += 4) {
		struct dc_sim_cfg c = unit_cfg(DC_ALG_DT, 1 + nbe, 1200, 1);
		double al[DC_SW_PRIOS] = { 1, 2 };
		char name[160];
		__u64 want = 2 * 1200 / (3 + nbe);

		c.alpha_q16[1] = Q16(2);
		narr = 0;
		for (t = 0; t < 5000; t++)
			for (p = 0; p <= nbe; p++) {
				add(t, (__u16)p, p == 0 ? 1 : 0, 1);
				add(t, (__u16)p, p == 0 ? 1 : 0, 1);
			}
		dc_sim_run(&c, arr, narr, 5000, &r, &serr);
		snprintf(name, sizeof(name), "sim dt: AF share with %u BE queues equals the model's (T-DT3, 2B/(3+n) = %llu)",
			 nbe, (unsigned long long)want);
		same_as_ref(name, &c, al, 5000, &r);
	}
}

static void test_lqd_order(void)
{
	struct dc_sim_cfg c = unit_cfg(DC_ALG_LQD, 4, 12, 1);
	static struct dc_sim_result r;
	int i;

	/* slot 0: fill queue 0 (12), one leaves → [11,0,0,0];
	 * slot 1: one packet to 1, 2, 3: the first fits, the next two push
	 * out queue 0's tail; then queue 0 is 9, the others 1 each. */
	narr = 0;
	for (i = 0; i < 12; i++)
		add(0, 0, 0, 1);
	add(1, 1, 0, 1);
	add(1, 2, 0, 1);
	add(1, 3, 0, 1);
	dc_sim_run(&c, arr, narr, 2, &r, &serr);
	CHECK_EQ("sim lqd: arrivals to short queues push out the longest", r.port[0].pushed_out, 2);
	CHECK_EQ("sim lqd: and are all admitted", r.port[1].admitted + r.port[2].admitted +
		 r.port[3].admitted, 3);
	CHECK_EQ("sim lqd: the longest queue keeps the rest (12 − 1 − 2 − 1 sent)", r.port[0].final_q, 8);

	/* two equal longest queues: the lower index loses */
	narr = 0;
	for (i = 0; i < 6; i++) {
		add(0, 0, 0, 1);
		add(0, 1, 0, 1);
	}
	add(0, 2, 0, 1);
	dc_sim_run(&c, arr, narr, 1, &r, &serr);
	CHECK("sim lqd: tie between longest queues pushes out the lowest index",
	      r.port[0].pushed_out == 1 && r.port[1].pushed_out == 0 && r.port[2].admitted == 1,
	      "pushed out %llu/%llu, admitted %llu", (unsigned long long)r.port[0].pushed_out,
	      (unsigned long long)r.port[1].pushed_out, (unsigned long long)r.port[2].admitted);
	/* the arriving queue is the longest: the arrival goes */
	narr = 0;
	for (i = 0; i < 12; i++)
		add(0, 0, 0, 1);
	add(0, 0, 0, 1);
	dc_sim_run(&c, arr, narr, 1, &r, &serr);
	CHECK("sim lqd: an arrival to the longest queue is dropped, nothing pushed out",
	      r.port[0].pushed_out == 0 && r.port[0].drop_full == 1, "pushed %llu dropped %llu",
	      (unsigned long long)r.port[0].pushed_out, (unsigned long long)r.port[0].drop_full);
}

/* T-C9: one burst of B = 64 packets at N = 8 per slot to one queue. */
static void test_burst(void)
{
	static const struct {
		__u32 alg;
		double alpha;
		__u64 sent;
		const char *name;
	} cases[] = { { DC_ALG_LQD, 1, 64, "lqd" }, { DC_ALG_CS, 1, 64, "cs" },
		      { DC_ALG_DT, 0.5, 29, "dt α = 0.5" }, { DC_ALG_DT, 1, 39, "dt α = 1" } };
	static struct dc_sim_result r;
	unsigned int i, k;
	char name[128];

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct dc_sim_cfg c = unit_cfg(cases[k].alg, 8, 64, cases[k].alpha);

		narr = 0;
		for (i = 0; i < 64; i++)
			add(i / 8, 0, 0, 1);
		dc_sim_run(&c, arr, narr, 200, &r, &serr);
		snprintf(name, sizeof(name), "sim burst of B at N per slot: %s sends %llu (T-C9)",
			 cases[k].name, (unsigned long long)cases[k].sent);
		CHECK_EQ(name, r.sent_pkts, cases[k].sent);
		if (cases[k].alg != DC_ALG_LQD) {
			double al[DC_SW_PRIOS] = { cases[k].alpha };

			snprintf(name, sizeof(name), "sim burst: %s equals the model's", cases[k].name);
			same_as_ref(name, &c, al, 200, &r);
		}
	}
}

/* SmartBuf and EDT on T-C9's burst (64 packets at 8 per slot, B = 64,
 * α = 0.5, queue samples once per slot): SmartBuf with nothing learned is
 * DT; EDT's third rising sample (slot 3) lifts the threshold to B and the
 * rest of the burst fits. */
static void test_sbuf_burst(void)
{
	static struct dc_sim_result r;
	double al[DC_SW_PRIOS] = { 0.5 };
	struct dc_sim_cfg c = unit_cfg(DC_ALG_SMARTBUF, 8, 64, 0.5);
	unsigned int i;

	narr = 0;
	for (i = 0; i < 64; i++)
		add(i / 8, 0, 0, 1);
	dc_sim_run(&c, arr, narr, 200, &r, &serr);
	c.alg = DC_ALG_DT;
	same_as_ref("sim smartbuf: nothing learned yet: DT's outcome (sends 29)", &c, al, 200, &r);
	c.alg = DC_ALG_EDT;
	dc_sim_run(&c, arr, narr, 200, &r, &serr);
	CHECK("sim edt: the burst goes uncontrolled at its 4th slot and all 64 are sent",
	      r.sent_pkts == 64 && r.drops == 0 && r.port[0].max_q == 57, "sent %llu max_q %llu",
	      (unsigned long long)r.sent_pkts, (unsigned long long)r.port[0].max_q);
	c.edt.rise = 8;
	dc_sim_run(&c, arr, narr, 200, &r, &serr);
	CHECK_EQ("sim edt: with 8 rising samples needed it stays DT (29 sent)", r.sent_pkts, 29);
}

static void test_exact_rules(void)
{
	static struct dc_sim_result r;
	struct dc_sim_cfg c = unit_cfg(DC_ALG_DT, 1, 4, 0.5);
	__u32 i;

	/* the documented rule: 0 < α(B − 0) = 2, then 1 < α(B − 1) = 1.5 */
	narr = 0;
	add(0, 0, 0, 1);
	add(0, 0, 0, 1);
	dc_sim_run(&c, arr, narr, 0, &r, &serr);
	CHECK("sim dt: one port, B = 4, α = 0.5, two packets in slot 0: both admitted",
	      r.admitted == 2 && r.drops == 0, "admitted %llu, drops %llu",
	      (unsigned long long)r.admitted, (unsigned long long)r.drops);
	add(0, 0, 0, 1);
	dc_sim_run(&c, arr, narr, 0, &r, &serr);
	CHECK("sim dt: a third (2 < α(B − 2) = 1 fails) is a threshold drop",
	      r.admitted == 2 && r.port[0].drop_thresh == 1, "admitted %llu, thresh drops %llu",
	      (unsigned long long)r.admitted, (unsigned long long)r.port[0].drop_thresh);
	/* bytes: q before the packet; B = 3001, α = 0.5, one port: 0 < 1500.5,
	 * 1000 < 1000.5, 2000 < 500.5 fails */
	c.mode = DC_SIM_BYTE;
	c.buffer = 3001;
	c.slot_bytes = 1000;
	narr = 0;
	for (i = 0; i < 3; i++)
		add(0, 0, 0, 1000);
	dc_sim_run(&c, arr, narr, 0, &r, &serr);
	CHECK("sim dt bytes: B = 3001, α = 0.5, 1000-byte packets: q = 0 and 1000 admitted, 2000 not",
	      r.admitted == 2 && r.port[0].drop_thresh == 1, "admitted %llu",
	      (unsigned long long)r.admitted);

	/* drain: a burst of B = 64 at 8 per slot for 8 slots, CS */
	c = unit_cfg(DC_ALG_CS, 8, 64, 1);
	narr = 0;
	for (i = 0; i < 64; i++)
		add(i / 8, 0, 0, 1);
	dc_sim_run(&c, arr, narr, 0, &r, &serr);
	CHECK("sim: without drain a run stops after the last arrival's slot (8 of 64 sent)",
	      r.slots == 8 && r.sent_pkts == 8 && r.port[0].final_q == 56, "slots %llu sent %llu",
	      (unsigned long long)r.slots, (unsigned long long)r.sent_pkts);
	c.drain = true;
	dc_sim_run(&c, arr, narr, 0, &r, &serr);
	CHECK("sim: with drain it sends until the buffer is empty (64 of 64 in 64 slots)",
	      r.slots == 64 && r.sent_pkts == 64 && r.port[0].final_q == 0 && r.occ_max == 56,
	      "slots %llu sent %llu q %llu occ_max %llu", (unsigned long long)r.slots,
	      (unsigned long long)r.sent_pkts, (unsigned long long)r.port[0].final_q,
	      (unsigned long long)r.occ_max);
	c.mode = DC_SIM_BYTE;
	c.buffer = 64000;
	c.slot_bytes = 1000;
	narr = 0;
	for (i = 0; i < 10; i++)
		add(0, (__u16)(i % 2), 0, 2500);	/* larger than a slot's credit */
	dc_sim_run(&c, arr, narr, 0, &r, &serr);
	CHECK("sim byte mode: drain sends packets larger than a slot's bytes (5 × 2500 per port)",
	      r.sent_pkts == 10 && r.sent_bytes == 25000 && r.slots == 13, "sent %llu, %llu slots",
	      (unsigned long long)r.sent_pkts, (unsigned long long)r.slots);

	/* per-port drops add up to the total for every algorithm (Credence's
	 * drops on a prediction included) */
	{
		struct dc_sim_workload w;
		struct dc_sim_arrival *a;
		size_t na;
		__u32 alg, p, pr;

		c = unit_cfg(DC_ALG_DT, 16, 300, 0.5);
		dc_sim_workload_defaults(&w);
		w.slots = 20000;
		dc_sim_generate(&c, &w, &a, &na, &serr);
		for (pr = DC_SIM_PRED_ORACLE; pr <= DC_SIM_PRED_DROP; pr++) {
			c.predictor = pr;
			for (alg = 0; alg < DC_ALG_MAX; alg++) {
				__u64 sum = 0, dp = 0;
				char name[160];

				c.alg = alg;
				dc_sim_run(&c, a, na, w.slots, &r, &serr);
				for (p = 0; p < 16; p++) {
					sum += r.port[p].drop_thresh + r.port[p].drop_full +
					       r.port[p].drop_pred;
					dp += r.port[p].drop_pred;
				}
				snprintf(name, sizeof(name),
					 "sim %s%s: per-port thresh + full + pred drops = total drops (%llu)",
					 dc_alg_name(alg), alg != DC_ALG_CREDENCE ? "" :
					 pr == DC_SIM_PRED_DROP ? " (predictor drop)" : " (oracle)",
					 (unsigned long long)r.drops);
				if (alg != DC_ALG_CREDENCE && pr != DC_SIM_PRED_ORACLE)
					continue;
				CHECK(name, sum == r.drops && r.drops && (alg != DC_ALG_CREDENCE ||
					    pr != DC_SIM_PRED_DROP || dp), "ports %llu, pred %llu",
				      (unsigned long long)sum, (unsigned long long)dp);
			}
		}
		free(a);
	}
}

/* Strict-priority queues per port (cfg.nqueues; docs/admission.md,
 * "Priority queues"): service order, DT per queue, and one queue = none. */
static void test_queues(void)
{
	static struct dc_sim_result r, r1;
	struct dc_sim_cfg c;
	struct dc_sim_workload w;
	struct dc_sim_arrival *a = NULL;
	size_t n = 0;
	__u32 t, i;
	int same = 1;

	/* A: one port, two queues; two best-effort packets a slot (twice the
	 * port), one priority-1 packet every 4th slot: each priority-1
	 * packet leaves in the slot it came, the low queue gets the rest */
	narr = 0;
	for (t = 0; t < 100; t++) {
		add(t, 0, 0, 1);
		add(t, 0, 0, 1);
		if (t % 4 == 0)
			add(t, 0, 1, 1);
	}
	c = unit_cfg(DC_ALG_CS, 1, 1000, 0.5);
	c.nqueues = 2;
	dc_sim_run(&c, arr, narr, 100, &r, &serr);
	CHECK_EQ("queues: strict priority, two rows for one port of two queues", r.nports, 2);
	CHECK_EQ("queues: every priority-1 packet sent (25)", r.port[1].sent_pkts, 25);
	CHECK_EQ("queues: the high queue never held more than the arriving packet", r.port[1].max_q,
		 1);
	CHECK_EQ("queues: the low queue sends in the other 75 slots", r.port[0].sent_pkts, 75);
	CHECK_EQ("queues: the low queue keeps 200 − 75", r.port[0].final_q, 125);
	c.nqueues = 1;
	dc_sim_run(&c, arr, narr, 100, &r1, &serr);
	CHECK("queues: with one queue the priority-1 packets wait in the FIFO (max q > 100)",
	      r1.port[0].max_q > 100 && r1.nports == 1, "max q %llu",
	      (unsigned long long)r1.port[0].max_q);

	/* B: DT per queue against the shared buffer.  B = 100, α = 1: 80
	 * best-effort packets in one slot fill their queue while q < B − Q,
	 * to 50; a priority-1 packet behind them finds its own queue empty
	 * (0 < 50) and is admitted; in one queue it finds q = 50 ≥ 50. */
	narr = 0;
	for (i = 0; i < 80; i++)
		add(0, 0, 0, 1);
	add(0, 0, 1, 1);
	c = unit_cfg(DC_ALG_DT, 1, 100, 1);
	c.nqueues = 2;
	dc_sim_run(&c, arr, narr, 1, &r, &serr);
	CHECK_EQ("queues: dt per queue, the low queue stops at 50 (30 drops)", r.port[0].drop_thresh,
		 30);
	CHECK_EQ("queues: dt per queue admits the priority-1 packet", r.prio_drops[1], 0);
	c.nqueues = 1;
	dc_sim_run(&c, arr, narr, 1, &r1, &serr);
	CHECK_EQ("queues: one queue drops it (q = 50 = T)", r1.prio_drops[1], 1);
	/* α per priority: α_1 = 1/64 gives the high queue T = ⌈50/64⌉ = 1:
	 * still admitted at q = 0 */
	c.nqueues = 2;
	c.alpha_q16[1] = Q16(1.0 / 64);
	narr--;
	add(0, 0, 1, 1);
	add(0, 0, 1, 1);
	dc_sim_run(&c, arr, narr, 1, &r, &serr);
	CHECK_EQ("queues: α_1 = 1/64: one priority-1 packet admitted, the second refused",
		 r.prio_drops[1], 1);

	/* C: nqueues 1 is nqueues 0, decision for decision, on the default mix */
	c = unit_cfg(DC_ALG_ABM, 8, 1000, 0.5);
	dc_sim_workload_defaults(&w);
	w.slots = 20000;
	if (dc_sim_generate(&c, &w, &a, &n, &serr) == 0) {
		dc_sim_run(&c, a, n, w.slots, &r, &serr);
		c.nqueues = 1;
		dc_sim_run(&c, a, n, w.slots, &r1, &serr);
		for (i = 0; i < 8; i++)
			same &= !memcmp(&r.port[i], &r1.port[i], sizeof(r.port[i]));
		same &= r.drops == r1.drops && r.sent_pkts == r1.sent_pkts && r.occ_p99 == r1.occ_p99;
	} else {
		same = 0;
	}
	CHECK("queues: --queues 1 equals one queue per port on the default mix (abm)", same && n > 0,
	      "n %zu", n);
	free(a);
	c.nports = 16;
	c.nqueues = 8;
	CHECK_EQ("queues: 16 ports × 8 queues is more than 64 queues: refused",
		 dc_sim_run(&c, arr, narr, 1, &r, &serr), EXIT_USAGE);
}

/* Incast queries counted whole or not (dc_sim_query_stats): T-C9's burst
 * (64 packets at 8 per slot, B = 64) is query 1 to port 0, four packets
 * to port 1 later are query 2, and a background packet beside the burst
 * is query 0.  LQD keeps the whole burst (64 sent, above) and pushes the
 * background packet out; DT α = 0.5 sends 29 of the burst, so query 1
 * loses packets and only query 2 is whole.  The generator's query numbers
 * come with the very arrivals dc_sim_generate makes, incast responses
 * only, numbered from 1. */
static void test_incast_queries(void)
{
	static const __u32 algs[] = { DC_ALG_LQD, DC_ALG_DT };
	static const __u64 want_whole[] = { 2, 1 };
	static struct dc_sim_result r;
	static __u32 qid[200];
	static __u8 fate[200];
	struct dc_sim_workload w;
	struct dc_sim_arrival *a = NULL, *b = NULL;
	__u32 *gq = NULL, maxq = 0;
	size_t na = 0, nb = 0, k, bad = 0;
	unsigned int i, j;
	char name[160];

	for (j = 0; j < 2; j++) {
		struct dc_sim_cfg c = unit_cfg(algs[j], 8, 64, 0.5);

		narr = 0;
		for (i = 0; i < 64; i++) {
			qid[narr] = 1;
			add(i / 8, 0, 1, 1);
		}
		qid[narr] = 0;
		add(7, 0, 0, 1);
		for (i = 0; i < 4; i++) {
			qid[narr] = 2;
			add(100 + i, 1, 1, 1);
		}
		dc_sim_run_ex(&c, arr, narr, 300, &r, NULL, fate, &serr);
		snprintf(name, sizeof(name), "sim queries: %s keeps %llu of 2 incast queries whole",
			 dc_alg_name(algs[j]), (unsigned long long)want_whole[j]);
		CHECK(name,
		      dc_sim_query_stats(qid, fate, narr, &r, &serr) == 0 && r.incast_queries == 2 &&
			      r.incast_whole == want_whole[j],
		      "queries %llu whole %llu", (unsigned long long)r.incast_queries,
		      (unsigned long long)r.incast_whole);
	}
	/* only background: nothing counted, even after a run that counted */
	memset(qid, 0, sizeof(qid));
	CHECK("sim queries: background only counts no query",
	      dc_sim_query_stats(qid, fate, narr, &r, &serr) == 0 && r.incast_queries == 0 &&
		      r.incast_whole == 0,
	      "queries %llu whole %llu", (unsigned long long)r.incast_queries,
	      (unsigned long long)r.incast_whole);

	{
		struct dc_sim_cfg c = unit_cfg(DC_ALG_DT, 16, 1000, 0.5);

		dc_sim_workload_defaults(&w);
		w.slots = 20000;
		w.incast_period = 500;
		if (dc_sim_generate(&c, &w, &a, &na, &serr) ||
		    dc_sim_generate_q(&c, &w, &b, &nb, &gq, &serr)) {
			CHECK("sim queries: generated", 0, "%s", serr.msg);
			goto out;
		}
	}
	for (k = 0; k < nb; k++) {
		if (gq[k] > maxq)
			maxq = gq[k];
		/* incast responses (priority 1) carry a query, web search none */
		bad += (gq[k] != 0) != (b[k].prio == 1);
	}
	CHECK("sim queries: the generator's arrivals are dc_sim_generate's",
	      na == nb && !memcmp(a, b, na * sizeof(*a)), "%zu vs %zu arrivals", na, nb);
	CHECK("sim queries: every incast response and nothing else has a query number", bad == 0,
	      "%zu arrivals disagree", bad);
	/* 20 000 slots, a query with probability 1/500 per slot: 40 expected */
	CHECK("sim queries: about slots / period queries", maxq >= 20 && maxq <= 60, "%u queries",
	      maxq);
out:
	free(a);
	free(b);
	free(gq);
}

int main(void)
{
	test_incast_queries();
	test_queues();
	test_exact_rules();
	test_dt_steady();
	test_dt_no_isolation();
	test_lqd_order();
	test_burst();
	test_sbuf_burst();
	return check_failed;
}
