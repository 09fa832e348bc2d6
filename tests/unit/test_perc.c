// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * The s-PERC model (loader/perc/): topology files accepted and refused,
 * the max-min oracle and its WF^k depths, and the asynchronous simulator
 * running the link update of include/dcbpf/perc.h on the example networks
 * of "Proactive Congestion Control" (Jose): exact max-min rates within
 * 6·W² rounds (Thm 3.4.4) for every seed, churn with a FIN removing the
 * flow from the links' books, and s-PERC*'s recovery from control-packet
 * drops (Ch. 4.1) next to the literal roundNumber + 1 of Alg. 8 line 36.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "perc/percsim.h"

#define G 1000000ULL

struct topo_case {
	const char *id, *text;
	const char *flows[8];
	__u64 rate_g1000[8];	/* expected max-min rate, Gb/s x 1000 (T7: kbps below) */
	unsigned int w1, w2;
};

static const struct topo_case cases[] = {
	{ "T1 (Fig 3.1)", "link l20 20G\nlink l30 30G\nlink l12 12G\nflow fB l20 l30\nflow fG l30 l12\n",
	  { "fG", "fB" }, { 12000, 18000 }, 2, 2 },
	{ "T2 (Fig 1.3)", "link L1 70G\nlink L2 30G\nlink L3 10G\nflow A L1\nflow B L1 L2\nflow C L2 L3\n",
	  { "C", "B", "A" }, { 10000, 20000, 50000 }, 3, 3 },
	{ "T3 (Fig 2.11)",
	  "link L60 60G\nlink L30 30G\nlink L10 10G\nflow A L60\nflow B L60 L30\nflow C L30 L10\nflow D L10\n",
	  { "C", "D", "B", "A" }, { 5000, 5000, 25000, 35000 }, 3, 3 },
	{ "T4 (Fig 3.7)",
	  "link l1 10G\nlink l2 15G\nlink l3 3G\nflow purple l1\nflow blue l1 l2\nflow green l2 l3\nflow orange l2\n",
	  { "green", "blue", "purple", "orange" }, { 3000, 5000, 5000, 7000 }, 2, 3 },
	{ "T5 (Fig 3.8a)",
	  "link l1 10G\nlink l2 10G\nlink l3 6G\nlink l4 1G\nflow purple l1\nflow blue l1 l2\n"
	  "flow green l2 l3\nflow orange l3 l4\n",
	  { "orange", "purple", "blue", "green" }, { 1000, 5000, 5000, 5000 }, 2, 2 },
	{ "T6 (chain of 5)",
	  "link L1 1000G\nlink L2 500G\nlink L3 250G\nlink L4 120G\nlink L5 50G\nflow F1 L1\n"
	  "flow F2 L1 L2\nflow F3 L2 L3\nflow F4 L3 L4\nflow F5 L4 L5\nflow F6 L5\n",
	  { "F5", "F6", "F4", "F3", "F2", "F1" }, { 25000, 25000, 95000, 155000, 345000, 655000 }, 5, 5 },
	{ "T7 (one link, 3 flows)", "link L 100G\nflow a L\nflow b L\nflow c L\n",
	  { "a", "b", "c" }, { 0, 0, 0 }, 1, 1 },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static int flow_idx(const struct dc_pt_topo *t, const char *name)
{
	for (__u32 i = 0; i < t->nflows; i++)
		if (!strcmp(t->flows[i].name, name))
			return (int)i;
	return -1;
}

static __u64 expect_kbps(const struct topo_case *c, int i)
{
	/* T7: 100 Gb/s / 3 in whole kbps (floor) */
	return c->rate_g1000[0] ? c->rate_g1000[i] * 1000 : 33333333;
}

static void load(const char *text, struct dc_pt_topo *t)
{
	struct dc_err err = { 0 };

	if (dc_pt_parse(text, "test", t, &err))
		printf("FAIL: perc topology parses: %s\n", err.msg);
}

static void test_oracle(void)
{
	char name[128];

	for (unsigned int k = 0; k < NCASES; k++) {
		const struct topo_case *c = &cases[k];
		struct dc_pt_topo t;
		struct dc_pt_oracle o1, o2, oi;
		struct dc_err err = { 0 };
		bool ok = true;

		load(c->text, &t);
		dc_pt_waterfill(&t, NULL, 1, &o1, &err);
		dc_pt_waterfill(&t, NULL, 2, &o2, &err);
		dc_pt_waterfill(&t, NULL, DC_PT_WF_INF, &oi, &err);
		for (int i = 0; c->flows[i]; i++) {
			int f = flow_idx(&t, c->flows[i]);

			if (f < 0 || oi.rate_kbps[f] != expect_kbps(c, i) || o1.rate_kbps[f] != oi.rate_kbps[f] ||
			    o2.rate_kbps[f] != oi.rate_kbps[f]) {
				ok = false;
				printf("  %s %s: %u (WF1 %u, WF2 %u), expected %llu\n", c->id, c->flows[i],
				       f < 0 ? 0 : oi.rate_kbps[f], f < 0 ? 0 : o1.rate_kbps[f],
				       f < 0 ? 0 : o2.rate_kbps[f], (unsigned long long)expect_kbps(c, i));
			}
		}
		snprintf(name, sizeof(name), "perc oracle %s: max-min rates, same for WF1, WF2, water-filling", c->id);
		CHECK(name, ok, "rates differ");
		snprintf(name, sizeof(name), "perc oracle %s: W1 = %u, W2 = %u", c->id, c->w1, c->w2);
		CHECK(name, o1.iters == c->w1 && o2.iters == c->w2, "W1 %u W2 %u", o1.iters, o2.iters);
		dc_pt_oracle_free(&o1);
		dc_pt_oracle_free(&o2);
		dc_pt_oracle_free(&oi);
		dc_pt_free(&t);
	}
}

#define SEEDS 10

static void test_sim_topologies(void)
{
	static const struct { __u32 mode; const char *name; } modes[] = {
		{ 0, "s-PERC" }, { DC_PERC_M_STAR, "s-PERC*" },
	};
	char name[160];

	for (unsigned int m = 0; m < 2; m++)
		for (unsigned int k = 0; k < NCASES; k++) {
			const struct topo_case *c = &cases[k];
			struct dc_pt_topo t;
			double worst = 0;
			bool exact = true;
			__u64 seed;

			load(c->text, &t);
			for (seed = 1; seed <= SEEDS; seed++) {
				struct dc_pt_simcfg cfg;
				struct dc_pt_simres r;
				struct dc_err err = { 0 };

				dc_pt_simcfg_defaults(&cfg);
				cfg.mode = modes[m].mode;
				cfg.seed = seed;
				cfg.run_rounds = 6.0 * c->w2 + 10;
				if (dc_pt_simulate(&t, &cfg, &r, &err)) {
					exact = false;
					break;
				}
				for (int i = 0; c->flows[i]; i++) {
					int f = flow_idx(&t, c->flows[i]);

					if (r.flow[f].rate_kbps != expect_kbps(c, i))
						exact = false;
				}
				if (r.max_rounds > worst)
					worst = r.max_rounds;
				dc_pt_simres_free(&r);
			}
			snprintf(name, sizeof(name), "perc sim %s %s: exact max-min rates, %d seeds", modes[m].name,
				 c->id, SEEDS);
			CHECK(name, exact, "a flow ends off its max-min rate");
			snprintf(name, sizeof(name),
				 "perc sim %s %s: converged within 6*W2 = %u rounds (worst %.2f)", modes[m].name,
				 c->id, 6 * c->w2, worst);
			CHECK(name, worst <= 6.0 * c->w2, "%.2f rounds", worst);
			dc_pt_free(&t);
		}
}

/* T2's links; A from round 0, B from 20, C from 40, C's FIN at 60. */
static void test_churn(void)
{
	static const char *text = "link L1 70G\nlink L2 30G\nlink L3 10G\nflow A L1 start=0\n"
				  "flow B L1 L2 start=20\nflow C L2 L3 start=40 fin=60\n";
	static const struct { double at; __u64 a, b, c; } phase[] = {
		{ 19.5, 70, 0, 0 }, { 39.5, 40, 30, 0 }, { 59.5, 50, 20, 10 }, { 90, 40, 30, 0 },
	};
	char name[128];

	for (unsigned int m = 0; m < 2; m++) {
		struct dc_pt_topo t;

		load(text, &t);
		for (unsigned int p = 0; p < 4; p++) {
			struct dc_pt_simcfg cfg;
			struct dc_pt_simres r;
			struct dc_err err = { 0 };

			dc_pt_simcfg_defaults(&cfg);
			cfg.mode = m ? DC_PERC_M_STAR : 0;
			cfg.seed = 7;
			if (dc_pt_simulate_until(&t, &cfg, phase[p].at, &r, &err)) {
				printf("FAIL: perc churn: %s\n", err.msg);
				continue;
			}
			snprintf(name, sizeof(name), "perc churn %s at round %.1f: A %llu, B %llu, C %llu Gb/s",
				 m ? "s-PERC*" : "s-PERC", phase[p].at, (unsigned long long)phase[p].a,
				 (unsigned long long)phase[p].b, (unsigned long long)phase[p].c);
			CHECK(name,
			      r.flow[0].rate_kbps == phase[p].a * G &&
				      (!phase[p].b || r.flow[1].rate_kbps == phase[p].b * G) &&
				      (!phase[p].c || r.flow[2].rate_kbps == phase[p].c * G) && r.all_converged,
			      "A %u B %u C %u", r.flow[0].rate_kbps, r.flow[1].rate_kbps, r.flow[2].rate_kbps);
			if (p == 3) {
				snprintf(name, sizeof(name),
					 "perc churn %s: after C's FIN, L3 holds nothing (NumB 0, SumE 0)",
					 m ? "s-PERC*" : "s-PERC");
				CHECK(name, r.link[2].num_b == 0 && r.link[2].sum_e_kbps == 0, "NumB %d SumE %lld",
				      r.link[2].num_b, (long long)r.link[2].sum_e_kbps);
				snprintf(name, sizeof(name),
					 "perc churn %s: after C's FIN, L2 holds only B, bottlenecked (NumB 1, SumE 0)",
					 m ? "s-PERC*" : "s-PERC");
				CHECK(name, r.link[1].num_b == 1 && r.link[1].sum_e_kbps == 0, "NumB %d SumE %lld",
				      r.link[1].num_b, (long long)r.link[1].sum_e_kbps);
				snprintf(name, sizeof(name), "perc churn %s: L1 holds A (B) and B (E at 30 Gb/s)",
					 m ? "s-PERC*" : "s-PERC");
				CHECK(name, r.link[0].num_b == 1 && r.link[0].sum_e_kbps == (__s64)(30 * G),
				      "NumB %d SumE %lld", r.link[0].num_b, (long long)r.link[0].sum_e_kbps);
			}
			dc_pt_simres_free(&r);
		}
		dc_pt_free(&t);
	}
}

/* 2% per-hop control drops for the first 50 rounds. */
static void test_drops(void)
{
	static const int which[] = { 0, 2, 5 };	/* T1, T3, T6 */
	char name[160];

	for (unsigned int w = 0; w < 3; w++) {
		const struct topo_case *c = &cases[which[w]];
		struct dc_pt_topo t;
		double worst = 0, literal_best = 1e9;
		bool exact = true, dropped = true, literal_slow = true;

		load(c->text, &t);
		for (__u64 seed = 1; seed <= 10; seed++) {
			struct dc_pt_simcfg cfg;
			struct dc_pt_simres r;
			struct dc_err err = { 0 };

			dc_pt_simcfg_defaults(&cfg);
			cfg.seed = seed;
			cfg.drop = 0.02;
			cfg.drop_until_rounds = 50;
			cfg.run_rounds = 40;
			if (dc_pt_simulate(&t, &cfg, &r, &err))
				continue;
			exact &= r.all_converged;
			dropped &= r.drops > 0;
			if (r.max_rounds > worst)
				worst = r.max_rounds;
			dc_pt_simres_free(&r);
			if (seed > 3)
				continue;
			/* Alg. 8 line 36 as printed */
			cfg.mode |= DC_PERC_M_RN_LITERAL;
			cfg.run_rounds = 40;
			if (dc_pt_simulate(&t, &cfg, &r, &err))
				continue;
			if (r.all_converged && r.max_rounds < literal_best)
				literal_best = r.max_rounds;
			literal_slow &= !r.all_converged || r.max_rounds > 10;
			dc_pt_simres_free(&r);
		}
		snprintf(name, sizeof(name), "perc drops %s: s-PERC* exact after drops in every run (drops in each)",
			 c->id);
		CHECK(name, exact && dropped, "exact %d dropped %d", exact, dropped);
		snprintf(name, sizeof(name), "perc drops %s: within 5 rounds of the last drop (worst %.2f)", c->id,
			 worst);
		CHECK(name, worst <= 5.0, "%.2f", worst);
		snprintf(name, sizeof(name),
			 "perc drops %s: literal roundNumber + 1: not within 10 rounds of the last drop", c->id);
		CHECK(name, literal_slow, "converged in %.2f", literal_best);
		dc_pt_free(&t);
	}
}

static void refused(const char *text, const char *want)
{
	struct dc_pt_topo t;
	struct dc_err err = { 0 };
	char name[200];
	int rc = dc_pt_parse(text, "f", &t, &err);

	snprintf(name, sizeof(name), "perc topology refused: %s", want);
	CHECK(name, rc == EXIT_USAGE && strstr(err.msg, want), "rc %d: %s", rc, err.msg);
	if (!rc)
		dc_pt_free(&t);
}

static void test_parse(void)
{
	struct dc_pt_topo t;
	struct dc_err err = { 0 };
	int rc;

	rc = dc_pt_parse("# two links\nlink a 1.5G  # comment\n\nlink b 400000\nflow x a b start=2 fin=4.5\n",
			 "f", &t, &err);
	CHECK("perc topology: units, comments, attributes",
	      rc == 0 && t.nlinks == 2 && t.links[0].cap_kbps == 1500000 && t.links[1].cap_kbps == 400000 &&
		      t.nflows == 1 && t.flows[0].nhops == 2 && t.flows[0].path[1] == 1 &&
		      t.flows[0].start_rounds == 2 && t.flows[0].fin_rounds == 4.5,
	      "rc %d %s", rc, err.msg);
	if (!rc)
		dc_pt_free(&t);
	refused("link a 1G\nlinc b 1G\n", "f:2: unknown keyword 'linc'");
	refused("link a 1G\nlink a 2G\nflow x a\n", "f:2: link 'a' declared twice");
	refused("link a 0\n", "f:1: capacity '0'");
	refused("link a 5T\n", "f:1: capacity '5T'");
	refused("link a 1.5k\n", "f:1: capacity '1.5k'");
	refused("link a 1G\nflow x b\n", "f:2: flow 'x': link 'b' is not declared");
	refused("link a 1G\nflow x a a\n", "f:2: flow 'x' crosses link 'a' twice");
	refused("link a 1G\nlink b 1G\nlink c 1G\nlink d 1G\nlink e 1G\nlink f 1G\nlink g 1G\nlink h 1G\n"
		"link i 1G\nflow x a b c d e f g h i\n",
		"f:10: flow 'x' crosses more than 8 links");
	refused("link a 1G\nflow x a start=3 fin=2\n", "f:2: flow 'x': fin=2 is not after start=3");
	refused("link a 1G\nflow x a speed=3\n", "f:2: unknown attribute 'speed'");
	refused("link a 1G\nflow x a start=-1\n", "f:2: start=-1");
	refused("link a 1G\nflow x\n", "f:2: 'flow NAME LINK...' needs a name and at least one link");
	refused("link a 1G\n", "f: no flow declared");
	refused("link a 1G\nflow x a\nflow x a\n", "f:3: flow 'x' declared twice");
}

/*
 * s-PERC*'s books after a reset hold the flows seen in the last round only
 * (Alg. 9): a flow whose packets were delayed past two resets is not in
 * them, so its next packet joins as a new flow, and its FIN leaves NumB
 * where it was instead of taking it below zero. Flow x alone on a 100 M
 * link; s-PERC (no rounds) keeps every flow in its books.
 */
static void test_books_after_reset(void)
{
	struct dc_perc_state st;
	struct dc_perc_hop h = { 0 }, fin;

	dc_perc_state_init(&st, 100000, DC_PERC_M_STAR);
	dc_perc_update(&st, &h, DC_PERC_INF_KBPS, false);
	CHECK("s-PERC*: x alone, bottlenecked, in the books", h.bneck && st.num_b == 1 && h.round == 1,
	      "bneck %u NumB %d round %u", h.bneck, st.num_b, h.round);
	dc_perc_advance(&st, 1);
	CHECK("s-PERC*: seen last round: still in the books after one reset",
	      st.num_b == 1 && dc_perc_in_books(&st, &h), "NumB %d", st.num_b);
	dc_perc_advance(&st, 2);
	CHECK("s-PERC*: not seen for a whole round: out of the books", st.num_b == 0 && !dc_perc_in_books(&st, &h),
	      "NumB %d", st.num_b);
	fin = h;
	dc_perc_update(&st, &fin, DC_PERC_INF_KBPS, true);
	CHECK("s-PERC*: the FIN of a flow out of the books leaves NumB at 0 (not -1)",
	      st.num_b == 0 && st.sum_e_kbps == 0, "NumB %d SumE %lld", st.num_b, (long long)st.sum_e_kbps);
	dc_perc_update(&st, &h, DC_PERC_INF_KBPS, false);
	CHECK("s-PERC*: its late data packet joins the books as a new flow (NumB 1, b = C)",
	      st.num_b == 1 && h.bneck && h.b_kbps == 100000, "NumB %d b %u", st.num_b, h.b_kbps);
	dc_perc_update(&st, &h, DC_PERC_INF_KBPS, true);
	CHECK("s-PERC*: then its FIN takes it out: NumB 0", st.num_b == 0, "NumB %d", st.num_b);

	/* s-PERC and the literal variant: the printed lines, no round test */
	dc_perc_state_init(&st, 100000, 0);
	memset(&h, 0, sizeof(h));
	dc_perc_update(&st, &h, DC_PERC_INF_KBPS, false);
	dc_perc_advance(&st, 5);
	dc_perc_update(&st, &h, DC_PERC_INF_KBPS, true);
	CHECK("s-PERC: no rounds, the flow stays in the books: its FIN takes NumB to 0", st.num_b == 0,
	      "NumB %d", st.num_b);
	dc_perc_state_init(&st, 100000, DC_PERC_M_STAR | DC_PERC_M_RN_LITERAL);
	memset(&h, 0, sizeof(h));
	dc_perc_update(&st, &h, DC_PERC_INF_KBPS, false);
	dc_perc_advance(&st, 2);
	dc_perc_update(&st, &h, DC_PERC_INF_KBPS, true);
	CHECK("s-PERC* literal (Alg. 8 as printed): the stale FIN takes NumB to -1", st.num_b == -1,
	      "NumB %d", st.num_b);
}

int main(void)
{
	test_parse();
	test_oracle();
	test_sim_topologies();
	test_churn();
	test_drops();
	test_books_after_reset();
	return check_failed;
}
