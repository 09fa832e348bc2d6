// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * The Superways planner (include/dcbpf/superways.h): the thesis' own
 * L = 1.2 example (§3.4.1.1: 2 links, 80 % of the second link's buffer
 * free), three constructed cases with every intermediate value worked by
 * hand from Eqs. 3.2-3.9 (α = 0.8, B_l = B_s = 240,000 B, θ = 4, the
 * simulation values of the thesis' Ch. 4), the bin packing and its r_s
 * update, the order of servers, and the inputs refused.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "dcbpf/superways.h"

#define CLOSE(name, a, b) \
	CHECK(name, fabs((double)(a) - (double)(b)) <= 1e-6 * (fabs((double)(b)) + 1), "%.9g != %.9g", \
	      (double)(a), (double)(b))

static const struct dc_sway_params ch4 = { .alpha = 0.8, .s_bytes = 10000, .bl_bytes = 240000,
					 .bs_bytes = 240000, .theta = 4 };

static struct dc_sway_plan plan;

static struct dc_sway_app app(const char *name, double d, double local)
{
	struct dc_sway_app a = { .d = d, .local = local };

	snprintf(a.name, sizeof(a.name), "%s", name);
	return a;
}

static void text_example(void)
{
	unsigned int links = 0;
	double r_s = dc_sway_links(1.2, 240000, &links);

	CHECK_EQ("text: L = 1.2 -> 2 extra links", links, 2);
	CLOSE("text: r_s = 0.8 * B_s", r_s, 0.8 * 240000);
	r_s = dc_sway_links(2.0, 240000, &links);
	CHECK_EQ("L = 2 exactly -> 2 links, not 3", links, 2);
	CLOSE("L = 2: nothing free", r_s, 0);
	/* 2 computed with a rounding error stays 2 */
	r_s = dc_sway_links(0.1 * 3 / 0.15, 240000, &links);
	CHECK_EQ("L = 0.3/0.15 (2 + rounding) -> 2 links", links, 2);

	/* End to end to L = 1.2: N = 80000/(0.8*10000) = 10, beta = 10/100,
	 * L = 0.8*90*10000/(4*150000) = 1.2. */
	{
		struct dc_sway_params p = { .alpha = 0.8, .s_bytes = 10000, .bl_bytes = 80000,
					  .bs_bytes = 150000, .theta = 4 };
		struct dc_sway_app a[1] = { app("agg", 100, 20) };
		struct dc_sway_rack r[1] = { { "r0", 1 } };

		CHECK_EQ("text e2e: planned", dc_sway_plan(&p, a, 1, r, 1, &plan), 0);
		CHECK_EQ("text e2e: U_l = 2 > 1 is the local-over case", plan.srv[0].kase, DC_SWAY_LOCAL_OVER);
		CLOSE("text e2e: U_l = 0.8*20*10000/80000 = 2", plan.srv[0].u_l, 2);
		CLOSE("text e2e: N = 10", plan.srv[0].n, 10);
		CLOSE("text e2e: beta = 0.1", plan.srv[0].beta, 0.1);
		CLOSE("text e2e: L = 1.2", plan.srv[0].l, 1.2);
		CHECK_EQ("text e2e: 2 links", plan.srv[0].links, 2);
		CLOSE("text e2e: r_s = 0.8 * B_s = 120000 B", plan.srv[0].r_s, 120000);
	}
	/* Fig. 9: d = 6, S1 and S2 local, S3..S6 remote: beta = 1/3. */
	{
		struct dc_sway_app a[1] = { app("fig9", 6, 2) };
		struct dc_sway_rack r[1] = { { "r0", 1 } };

		dc_sway_plan(&ch4, a, 1, r, 1, &plan);
		CLOSE("Fig. 9: beta = 2/6", plan.srv[0].beta_in, 1.0 / 3);
		CHECK_EQ("Fig. 9: six 10 KB flows fit one 240 KB port: no extra link", plan.srv[0].links, 0);
	}
}

/* A. U_l <= 1 with Eq. 3.8 > 1; a second application joins, a third
 * does not and opens the next server. */
static void case_a(void)
{
	struct dc_sway_app a[3] = { app("six", 6, 0), app("big", 96, 4), app("mid", 48, 0) };
	struct dc_sway_rack r[2] = { { "near", 1 }, { "far", 2 } };
	const struct dc_sway_server *v = &plan.srv[0];

	CHECK_EQ("A: planned", dc_sway_plan(&ch4, a, 3, r, 2, &plan), 0);
	CHECK("A: sorted by d: big, mid, six", plan.order[0] == 1 && plan.order[1] == 2 &&
	      plan.order[2] == 0, "%u %u %u", plan.order[0], plan.order[1], plan.order[2]);
	CHECK("A: big opens server 0", plan.place[1].server == 0 && plan.place[1].head, "server %u",
	      plan.place[1].server);
	CHECK_EQ("A: case remote-over", v->kase, DC_SWAY_REMOTE_OVER);
	CLOSE("A: U_l = 0.8*4*10000/240000 = 0.1333", v->u_l, 32000.0 / 240000);
	CLOSE("A: r_l = 208000 B (Eq. 3.7)", v->r_l0, 208000);
	CLOSE("A: Eq. 3.8 = 0.8*92*10000/208000 = 3.538", v->u_l_remote, 736000.0 / 208000);
	CLOSE("A: N = 30", v->n, 30);
	CLOSE("A: beta = 30/96 = 0.3125", v->beta, 0.3125);
	CLOSE("A: L = 0.8*66*10000/960000 = 0.55", v->l, 0.55);
	CLOSE("A: r_s = 108000 B after big", v->r_s0, 108000);
	CHECK_EQ("A: 1 link", v->links, 1);
	CHECK("A: mid (d 48) joins server 0", plan.place[2].server == 0 && !plan.place[2].head, "server %u",
	      plan.place[2].server);
	CLOSE("A: mid's fit 0.8*48*10000/(4*108000) = 0.889", plan.place[2].fit, 384000.0 / 432000);
	CLOSE("A: L_tot = 0.95", v->l_tot, 0.95);
	CLOSE("A: r_s = 12000 B after mid", v->r_s, 12000);
	CHECK_EQ("A: still 1 link", v->links, 1);
	/* six: 0.8*6*10000/(4*12000) = 1, not < 1: the next server */
	CHECK_EQ("A: six (fit exactly 1) opens server 1", plan.place[0].server, 1);
	CHECK("A: server 1 is far.0 (near has one server)", plan.srv[1].rack == 1 && plan.srv[1].slot == 0,
	      "rack %u slot %u", plan.srv[1].rack, plan.srv[1].slot);
	CHECK_EQ("A: server 1 needs no extra link", plan.srv[1].kase, DC_SWAY_LEAF);
	CHECK_EQ("A: 2 servers, 1 link in all", plan.nservers * 10 + plan.links, 21);

	/* d = 4 instead: 0.8*4*10000/(4*12000) = 0.667 < 1, joins */
	a[0] = app("four", 4, 0);
	CHECK_EQ("A': planned", dc_sway_plan(&ch4, a, 3, r, 2, &plan), 0);
	CHECK("A': four joins server 0", plan.place[0].server == 0 && plan.nservers == 1, "server %u of %u",
	      plan.place[0].server, plan.nservers);
	CLOSE("A': its fit 0.667", plan.place[0].fit, 32000.0 / 48000);
	CLOSE("A': r_s = 12000 - 8000 = 4000 B", v->r_s, 4000);
	CHECK_EQ("A': still 1 link", v->links, 1);
}

static void case_b(void)
{
	struct dc_sway_params p = ch4;
	struct dc_sway_app a[1] = { app("b", 96, 19) };
	struct dc_sway_rack r[1] = { { "r", 4 } };
	const struct dc_sway_server *v = &plan.srv[0];

	p.s_bytes = 20000;
	CHECK_EQ("B: planned", dc_sway_plan(&p, a, 1, r, 1, &plan), 0);
	CHECK_EQ("B: case local-over", v->kase, DC_SWAY_LOCAL_OVER);
	CLOSE("B: U_l = 0.8*19*20000/240000 = 1.267", v->u_l, 304000.0 / 240000);
	CHECK("B: no Eq. 3.7/3.8 in this case", isnan(v->r_l0) && isnan(v->u_l_remote), "%g %g", v->r_l0,
	      v->u_l_remote);
	CLOSE("B: N = 15", v->n, 15);
	CLOSE("B: beta = 15/96 = 0.15625", v->beta, 0.15625);
	CLOSE("B: L = 0.8*81*20000/960000 = 1.35", v->l, 1.35);
	CHECK_EQ("B: 2 links", v->links, 2);
	CLOSE("B: r_s = 156000 B", v->r_s, 156000);
}

static void case_c(void)
{
	struct dc_sway_params p = ch4;
	struct dc_sway_app a[2] = { app("c", 96, 19), app("c2", 96, 0) };
	struct dc_sway_rack r[1] = { { "r", 4 } };
	const struct dc_sway_server *v = &plan.srv[0];

	p.s_bytes = 1500;
	CHECK_EQ("C: planned", dc_sway_plan(&p, a, 1, r, 1, &plan), 0);
	CHECK_EQ("C: case leaf: no extra link", v->kase, DC_SWAY_LEAF);
	CLOSE("C: U_l = 0.8*19*1500/240000 = 0.095", v->u_l, 0.095);
	CLOSE("C: r_l = 217200 B", v->r_l0, 217200);
	CLOSE("C: Eq. 3.8 = 0.8*77*1500/217200 = 0.425", v->u_l_remote, 92400.0 / 217200);
	CHECK_EQ("C: 0 links", v->links, 0);
	CLOSE("C: Eq. 3.9 as printed: 0.575 (a fraction)", v->r_l_frac, 1 - 92400.0 / 217200);
	CLOSE("C: r_l in bytes: 217200 * 0.575 = 124800 = 217200 - 92400", v->r_l, 124800);
	CHECK("C: no N, beta, L", isnan(v->n) && isnan(v->beta) && isnan(v->l), "%g %g %g", v->n, v->beta,
	      v->l);
	/* a second d = 96 needs 0.8*96*1500 = 115200 B <= 124800: joins, 9600 B left */
	CHECK_EQ("C2: planned", dc_sway_plan(&p, a, 2, r, 1, &plan), 0);
	CHECK("C2: the second d = 96 joins on the leaf port", plan.place[1].server == 0 &&
	      !plan.place[1].head, "server %u", plan.place[1].server);
	CLOSE("C2: its fit 115200/124800", plan.place[1].fit, 115200.0 / 124800);
	CLOSE("C2: r_l = 9600 B left", v->r_l, 9600);
}

static void refused(void)
{
	struct dc_sway_params p = ch4;
	struct dc_sway_app a[3] = { app("x", 96, 4), app("y", 96, 4), app("z", 96, 4) };
	struct dc_sway_rack r[1] = { { "r", 2 } };
	const char *why;

	CHECK("params ok", dc_sway_params_check(&ch4) == NULL, "%s", dc_sway_params_check(&ch4));
	p.alpha = 0;
	why = dc_sway_params_check(&p);
	CHECK("refused: alpha 0", why && strstr(why, "alpha"), "%s", why ? why : "accepted");
	p.alpha = 1.5;
	CHECK("refused: alpha 1.5", dc_sway_params_check(&p) != NULL, "accepted");
	p = ch4;
	p.theta = 0.5;
	why = dc_sway_params_check(&p);
	CHECK("refused: theta < 1", why && strstr(why, "theta"), "%s", why ? why : "accepted");
	p = ch4;
	p.bs_bytes = 0;
	why = dc_sway_params_check(&p);
	CHECK("refused: B_s = 0", why && strstr(why, "B_s"), "%s", why ? why : "accepted");
	p = ch4;
	p.bl_bytes = 1000;
	why = dc_sway_params_check(&p);
	CHECK("refused: B_l below one flow", why && strstr(why, "N would be 0"), "%s", why ? why : "accepted");
	p = ch4;
	p.s_bytes = NAN;
	CHECK("refused: s NaN", dc_sway_params_check(&p) != NULL, "accepted");
	a[0].local = 97;
	why = dc_sway_app_check(&a[0]);
	CHECK("refused: local > d", why && strstr(why, "local"), "%s", why ? why : "accepted");
	a[0] = app("x", 0.5, 0);
	why = dc_sway_app_check(&a[0]);
	CHECK("refused: d < 1", why && strstr(why, "degree"), "%s", why ? why : "accepted");
	/* three servers' worth of d = 96 in a rack of two: the third is named */
	a[0] = app("x", 96, 4);
	CHECK("out of servers: -1", dc_sway_plan(&ch4, a, 3, r, 1, &plan) == -1, "planned");
	CHECK_EQ("out of servers: z is the one left", plan.unplaced, 2);
}

int main(void)
{
	text_example();
	case_a();
	case_b();
	case_c();
	refused();
	return check_failed;
}
