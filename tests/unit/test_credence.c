// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * Credence and FollowLQD (include/dcbpf/admit.h, loader/sim/) on cases
 * worked by hand (docs/admission.md, "Tests": T-C1, T-C2, T-C4, T-C5,
 * T-C6, T-C9), the papers' unit-packet model.
 *
 * Tie rule under test (admit.h, docs/admission.md): when the virtual LQD
 * must make room, the arrival counts in its own queue (T_i + 1); if no
 * other threshold is strictly larger, the virtual drop is the arrival
 * (T unchanged); otherwise the strictly largest other threshold loses
 * one, the lowest index among equals.  It is the rule of the simulator's
 * real LQD, which is why Credence with a perfect oracle makes exactly
 * LQD's decisions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "sim/sim.h"

static struct dc_err serr;

/* ---- the admission core on hand-built states ------------------------------- */

/* A unit-packet Credence / FollowLQD switch driven by the core alone. */
struct mini {
	__u32 alg, n;
	__u64 B, q[8], T[8], G, Q;
};

/* One arrival to queue i with prediction `drop`; returns the verdict. */
static enum dc_verdict mini_arrive(struct mini *m, __u32 i, bool drop)
{
	struct dc_cred_in in = { .q = m->q[i], .Q = m->Q, .B = m->B, .n = m->n, .len = 1 };
	enum dc_verdict v;
	bool ask;
	__u32 k;

	dc_cred_arrival(m->T, &m->G, m->n, i, m->B, 1);
	in.T = m->T[i];
	for (k = 0; k < m->n; k++)
		if (m->q[k] > in.longest)
			in.longest = m->q[k];
	v = dc_cred_decide(m->alg, &in, &ask);
	if (ask && drop)
		v = DC_V_DROP_PRED;
	if (v == DC_V_ADMIT) {
		m->q[i]++;
		m->Q++;
	}
	return v;
}

static void mini_depart(struct mini *m)
{
	__u32 k;

	for (k = 0; k < m->n; k++) {
		if (m->q[k]) {
			m->q[k]--;
			m->Q--;
		}
		dc_cred_depart(m->T, &m->G, k, 1);
	}
}

static bool same4(const __u64 *a, __u64 a0, __u64 a1, __u64 a2, __u64 a3)
{
	return a[0] == a0 && a[1] == a1 && a[2] == a2 && a[3] == a3;
}

/* T-C6: Alg. 4's threshold arithmetic, safeguard and prediction. */
static void test_tc6(void)
{
	struct mini m = { .alg = DC_ALG_CREDENCE, .n = 2, .B = 4 };
	enum dc_verdict v[4];
	__u32 k;

	for (k = 0; k < 4; k++)
		v[k] = mini_arrive(&m, 0, false);
	CHECK("credence T-C6: 4 arrivals to queue 0 all admitted, q = [4,0], T = [4,0], Γ = 4",
	      v[0] == DC_V_ADMIT && v[1] == DC_V_ADMIT && v[2] == DC_V_ADMIT && v[3] == DC_V_ADMIT &&
	      m.q[0] == 4 && m.q[1] == 0 && m.T[0] == 4 && m.T[1] == 0 && m.G == 4,
	      "q [%llu,%llu] T [%llu,%llu] Γ %llu", (unsigned long long)m.q[0],
	      (unsigned long long)m.q[1], (unsigned long long)m.T[0], (unsigned long long)m.T[1],
	      (unsigned long long)m.G);
	v[0] = mini_arrive(&m, 1, false);
	CHECK("credence T-C6: arrival to queue 1 at Γ = B: T = [3,1], q_1 < T_1 but Q = B → dropped (full)",
	      v[0] == DC_V_DROP_FULL && m.T[0] == 3 && m.T[1] == 1 && m.G == 4 && m.q[1] == 0,
	      "verdict %d T [%llu,%llu]", v[0], (unsigned long long)m.T[0],
	      (unsigned long long)m.T[1]);
	mini_depart(&m);
	CHECK("credence T-C6: departure → q = [3,0], T = [2,0], Γ = 2 (T drains whatever q is)",
	      m.q[0] == 3 && m.q[1] == 0 && m.T[0] == 2 && m.T[1] == 0 && m.G == 2,
	      "q [%llu,%llu] T [%llu,%llu] Γ %llu", (unsigned long long)m.q[0],
	      (unsigned long long)m.q[1], (unsigned long long)m.T[0], (unsigned long long)m.T[1],
	      (unsigned long long)m.G);

	/* T-C4 / T-C6 safeguard: N = 4, B = 100, B/N = 25 */
	{
		struct mini s = { .alg = DC_ALG_CREDENCE, .n = 4, .B = 100,
				  .q = { 24, 24, 24, 24 }, .Q = 96 };

		CHECK_EQ("credence T-C4: all queues 24 < B/N, prediction drop, q_i ≥ T_i → admitted (safeguard)",
			 mini_arrive(&s, 2, true), DC_V_ADMIT);
	}
	{
		struct mini s = { .alg = DC_ALG_CREDENCE, .n = 4, .B = 100, .q = { 25 }, .Q = 25 };
		enum dc_verdict r = mini_arrive(&s, 1, true);

		CHECK("credence T-C6: longest = 25 = B/N (Alg. 4's '<': no safeguard), T_1 → 1, prediction drop → dropped",
		      r == DC_V_DROP_PRED && s.T[1] == 1 && s.G == 1, "verdict %d T_1 %llu", r,
		      (unsigned long long)s.T[1]);
	}
	{
		struct mini s = { .alg = DC_ALG_CREDENCE, .n = 4, .B = 100, .q = { 25 }, .Q = 25 };

		CHECK_EQ("credence T-C6: the same arrival with prediction accept → admitted",
			 mini_arrive(&s, 1, false), DC_V_ADMIT);
	}
	{
		struct mini s = { .alg = DC_ALG_FOLLOWLQD, .n = 4, .B = 100,
				  .q = { 24, 24, 24, 24 }, .Q = 96 };

		CHECK_EQ("followlqd: no safeguard: queues 24 < B/N but q_2 ≥ T_2 = 1 → dropped (thresh)",
			 mini_arrive(&s, 2, true), DC_V_DROP_THRESH);
	}
}

/* T-C1: Observation 1's construction for FollowLQD, N = 4, B = 12. */
static void test_tc1(void)
{
	struct mini m = { .alg = DC_ALG_FOLLOWLQD, .n = 4, .B = 12 };
	enum dc_verdict v[4];
	__u32 k, acc = 0, last = 0;

	/* fill queue 0 to B: FollowLQD admits while q_0 < T_0 (T_0 grows first) */
	for (k = 0; k < 12; k++)
		mini_arrive(&m, 0, false);
	CHECK("followlqd T-C1: fill queue 0 → q = [12,0,0,0], T = [12,0,0,0], Γ = 12",
	      same4(m.q, 12, 0, 0, 0) && same4(m.T, 12, 0, 0, 0) && m.G == 12, "q_0 %llu T_0 %llu",
	      (unsigned long long)m.q[0], (unsigned long long)m.T[0]);
	mini_depart(&m);
	CHECK("followlqd T-C1: one departure → q_0 = 11, T_0 = 11, Γ = 11",
	      same4(m.q, 11, 0, 0, 0) && same4(m.T, 11, 0, 0, 0) && m.G == 11, "T_0 %llu",
	      (unsigned long long)m.T[0]);
	for (k = 0; k < 4; k++)
		v[k] = mini_arrive(&m, k, false);
	CHECK("followlqd T-C1: one packet to each queue → accepted [T,F,F,F], T = [9,1,1,1] (= B−N+1), Γ = 12",
	      v[0] == DC_V_ADMIT && v[1] != DC_V_ADMIT && v[2] != DC_V_ADMIT && v[3] != DC_V_ADMIT &&
	      same4(m.q, 12, 0, 0, 0) && same4(m.T, 9, 1, 1, 1) && m.G == 12,
	      "T [%llu,%llu,%llu,%llu]", (unsigned long long)m.T[0], (unsigned long long)m.T[1],
	      (unsigned long long)m.T[2], (unsigned long long)m.T[3]);
	mini_depart(&m);
	for (k = 0; k < 4; k++)
		if (mini_arrive(&m, 0, false) == DC_V_ADMIT) {
			acc++;
			last = k;
		}
	CHECK("followlqd T-C1: then N packets to queue 0 → exactly 1 accepted, the last (T_0 back to B)",
	      acc == 1 && last == 3 && m.T[0] == 12, "accepted %u, last %u, T_0 %llu", acc, last,
	      (unsigned long long)m.T[0]);
}

/* FollowLQD's threshold update (Alg. 5 lines 18-34) on constructed states. */
static void test_update(void)
{
	__u64 T[4] = { 2, 3, 3, 0 }, G = 8;

	dc_cred_arrival(T, &G, 4, 3, 9, 1);
	CHECK("followlqd update: Γ < B → T_i + 1, Γ + 1", same4(T, 2, 3, 3, 1) && G == 9,
	      "T_3 %llu Γ %llu", (unsigned long long)T[3], (unsigned long long)G);
	dc_cred_arrival(T, &G, 4, 3, 9, 1);
	CHECK("followlqd update: Γ = B → largest T (lowest index among equals) − 1, T_i + 1",
	      same4(T, 2, 2, 3, 2) && G == 9, "T [%llu,%llu,%llu,%llu]", (unsigned long long)T[0],
	      (unsigned long long)T[1], (unsigned long long)T[2], (unsigned long long)T[3]);
	dc_cred_arrival(T, &G, 4, 2, 9, 1);
	CHECK("followlqd update: arriving queue has the largest T → the virtual drop is the arrival, T unchanged",
	      same4(T, 2, 2, 3, 2) && G == 9, "T_2 %llu", (unsigned long long)T[2]);
	dc_cred_arrival(T, &G, 4, 1, 9, 1);
	CHECK("followlqd update: T_i + 1 ties the largest (2 + 1 = 3) → the arrival is the virtual drop",
	      same4(T, 2, 2, 3, 2) && G == 9, "T [%llu,%llu,%llu,%llu]", (unsigned long long)T[0],
	      (unsigned long long)T[1], (unsigned long long)T[2], (unsigned long long)T[3]);
	dc_cred_depart(T, &G, 2, 1);
	dc_cred_depart(T, &G, 2, 5);
	CHECK("followlqd update: departure drains T_i by what the port sends, floored at 0",
	      T[2] == 0 && G == 6, "T_2 %llu Γ %llu", (unsigned long long)T[2], (unsigned long long)G);
	{
		/* bytes: the victim gives up only what is missing */
		__u64 Tb[4] = { 500, 1500, 1500, 0 }, Gb = 3500;

		dc_cred_arrival(Tb, &Gb, 4, 3, 3500, 1000);
		CHECK("followlqd update (bytes): full, 1000 B to queue 3 → queue 1 gives 1000 B, T_3 = 1000",
		      same4(Tb, 500, 500, 1500, 1000) && Gb == 3500, "T [%llu,%llu,%llu,%llu] Γ %llu",
		      (unsigned long long)Tb[0], (unsigned long long)Tb[1], (unsigned long long)Tb[2],
		      (unsigned long long)Tb[3], (unsigned long long)Gb);
		Tb[3] = 0;
		Gb = 3000;
		dc_cred_arrival(Tb, &Gb, 4, 3, 3500, 1000);
		CHECK("followlqd update (bytes): 500 B free → only the missing 500 B come from the largest",
		      same4(Tb, 500, 500, 1000, 1000) && Gb == 3500, "T [%llu,%llu,%llu,%llu]",
		      (unsigned long long)Tb[0], (unsigned long long)Tb[1], (unsigned long long)Tb[2],
		      (unsigned long long)Tb[3]);
	}
}

/* ---- the simulator ---------------------------------------------------------- */

static struct dc_sim_cfg cfg(__u32 alg, __u32 nports, __u64 B)
{
	struct dc_sim_cfg c;

	dc_sim_cfg_defaults(&c);
	c.alg = alg;
	c.nports = nports;
	c.buffer = B;
	return c;
}

static __u64 xs(__u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * T-C2-like trace: N = 8, B = 64, `slots` slots, at most N arrivals per
 * slot.  Each input sends with probability 1/2 to a uniform port, and
 * bursts (probability 1/40 per slot) send 3 inputs to one port for 20
 * slots.
 */
static struct dc_sim_arrival *tc2_trace(__u64 seed, __u32 slots, size_t *n)
{
	struct dc_sim_arrival *a = malloc((size_t)slots * 8 * sizeof(*a));
	__u64 s = seed * 0x9e3779b97f4a7c15ULL + 1;
	__u32 t, k, bport = 0, bleft = 0;

	*n = 0;
	for (t = 0; t < slots; t++) {
		if (!bleft && xs(&s) % 40 == 0) {
			bport = (__u32)(xs(&s) % 8);
			bleft = 20;
		}
		for (k = 0; k < 8; k++) {
			__u32 port;

			if (bleft && k < 3)
				port = bport;
			else if (xs(&s) & 1)
				port = (__u32)(xs(&s) % 8);
			else
				continue;
			a[(*n)++] = (struct dc_sim_arrival){ .slot = t, .port = (__u16)port, .bytes = 1 };
		}
		if (bleft)
			bleft--;
	}
	return a;
}

/* Credence with the perfect oracle against LQD, decision by decision. */
static void same_as_lqd(const char *what, __u32 N, __u64 B, const struct dc_sim_arrival *a,
			size_t n, __u64 slots)
{
	struct dc_sim_cfg lc = cfg(DC_ALG_LQD, N, B), cc = cfg(DC_ALG_CREDENCE, N, B);
	static struct dc_sim_result lr, cr;
	__u8 *lf = malloc(n + 1), *cf = malloc(n + 1);
	size_t k, diff = 0;
	char name[256];

	dc_sim_run_ex(&lc, a, n, slots, &lr, NULL, lf, &serr);
	dc_sim_run_ex(&cc, a, n, slots, &cr, NULL, cf, &serr);
	for (k = 0; k < n; k++)
		diff += lf[k] != cf[k];
	snprintf(name, sizeof(name),
		 "credence (perfect oracle) = LQD on %s: every packet's fate, and %llu sent", what,
		 (unsigned long long)lr.sent_pkts);
	CHECK(name, !diff && cr.sent_pkts == lr.sent_pkts && cr.pred_fp == 0 && cr.pred_fn == 0,
	      "%zu packets differ, sent %llu vs %llu", diff, (unsigned long long)cr.sent_pkts,
	      (unsigned long long)lr.sent_pkts);
	free(lf);
	free(cf);
}

static __u64 sent(__u32 alg, __u32 N, __u64 B, const struct dc_sim_arrival *a, size_t n,
		  __u64 slots, __u32 predictor, double flip, __u64 pseed)
{
	struct dc_sim_cfg c = cfg(alg, N, B);
	static struct dc_sim_result r;

	c.predictor = predictor;
	c.flip_q32 = (__u64)(flip * 4294967296.0 + 0.5);
	c.pred_seed = pseed;
	dc_sim_run(&c, a, n, slots, &r, &serr);
	return r.sent_pkts;
}

static void test_oracle(void)
{
	struct dc_sim_cfg c = cfg(DC_ALG_DT, 16, 1000);
	struct dc_sim_workload w;
	struct dc_sim_arrival *a, burst[64];
	size_t n, k;
	__u64 seed;
	char name[128];

	for (seed = 1; seed <= 3; seed++) {
		a = tc2_trace(seed, 2000, &n);
		snprintf(name, sizeof(name), "the T-C2-like trace (N = 8, B = 64, seed %llu)",
			 (unsigned long long)seed);
		same_as_lqd(name, 8, 64, a, n, 2000);
		free(a);
	}
	/* T-C9: a burst of B at N per slot into one queue */
	for (k = 0; k < 64; k++)
		burst[k] = (struct dc_sim_arrival){ .slot = (__u32)(k / 8), .port = 0, .bytes = 1 };
	same_as_lqd("T-C9's burst of B = 64 at N = 8 per slot", 8, 64, burst, 64, 200);
	CHECK_EQ("followlqd T-C9: the burst of B is sent whole (64)",
		 sent(DC_ALG_FOLLOWLQD, 8, 64, burst, 64, 200, 0, 0, 1), 64);
	/* the default incast-heavy mix */
	dc_sim_workload_defaults(&w);
	w.slots = 30000;
	dc_sim_generate(&c, &w, &a, &n, &serr);
	same_as_lqd("the default mix (16 ports, B = 1000, 30000 slots)", 16, 1000, a, n, w.slots);
	free(a);
}

/*
 * Robustness (Credence, Lemma 5; T-C5): with every prediction "drop"
 * Credence still transmits at least OPT/N; OPT ≥ LQD, so it must send at
 * least LQD/N — better than Complete Sharing's guarantee, OPT/(N+1).
 * And it keeps accepting until the longest queue reaches B/N.
 */
static void test_all_drop(void)
{
	struct dc_sim_arrival *a;
	static struct dc_sim_arrival flood[2000];
	size_t n, k;
	__u64 seed, l, cd;
	struct dc_sim_cfg c = cfg(DC_ALG_CREDENCE, 4, 100);
	static struct dc_sim_result r;
	bool ok = true;
	char name[160];

	for (seed = 1; seed <= 3; seed++) {
		a = tc2_trace(seed, 2000, &n);
		l = sent(DC_ALG_LQD, 8, 64, a, n, 2000, 0, 0, 1);
		cd = sent(DC_ALG_CREDENCE, 8, 64, a, n, 2000, DC_SIM_PRED_DROP, 0, 1);
		if (cd * 8 < l)
			ok = false;
		if (seed == 1) {
			snprintf(name, sizeof(name),
				 "credence, all predictions drop, T-C2-like seed 1: sent %llu ≥ LQD/N = %llu/8",
				 (unsigned long long)cd, (unsigned long long)l);
			CHECK(name, cd * 8 >= l && cd > 0, "%llu", (unsigned long long)cd);
		}
		free(a);
	}
	CHECK("credence, all predictions drop: sent ≥ LQD/N on seeds 1-3 (Lemma 5, ≥ CS's OPT/(N+1))", ok,
	      "%s", "below");
	/* T-C5: one queue flooded at 2 packets per slot, N = 4, B = 100 */
	for (k = 0; k < 2000; k++)
		flood[k] = (struct dc_sim_arrival){ .slot = (__u32)(k / 2), .port = 0, .bytes = 1 };
	c.predictor = DC_SIM_PRED_DROP;
	dc_sim_run(&c, flood, 2000, 1000, &r, &serr);
	CHECK("credence T-C5: all predictions drop, one queue flooded → still sends every slot, q peaks at B/N = 25",
	      r.sent_pkts == 1000 && r.port[0].max_q == 25, "sent %llu max_q %llu",
	      (unsigned long long)r.sent_pkts, (unsigned long long)r.port[0].max_q);
}

/*
 * Smoothness (Lemma 4, T-C3): flipping each perfect prediction with
 * probability p lowers throughput gradually.  LQD/ALG is averaged over 4
 * predictor seeds and must be non-decreasing in p within a tolerance of
 * 0.005 (0.5 % of LQD's throughput; on this trace single predictor seeds
 * spread by at most 0.0004 at p = 0.001, 0.002 at p = 0.1 and 0.007 at
 * p = 0.3, and the steps between the p values are ≥ 0.0009), start at
 * exactly 1 and stay ≤ N.
 */
static void test_flip(void)
{
	static const double ps[] = { 0, 0.001, 0.01, 0.1, 0.3 };
	double ratio[5];
	struct dc_sim_arrival *a;
	size_t n;
	__u64 l, seed, tot;
	unsigned int k;
	bool mono = true;
	char name[200];

	a = tc2_trace(7, 20000, &n);
	l = sent(DC_ALG_LQD, 8, 64, a, n, 20000, 0, 0, 1);
	for (k = 0; k < 5; k++) {
		tot = 0;
		for (seed = 1; seed <= 4; seed++)
			tot += sent(DC_ALG_CREDENCE, 8, 64, a, n, 20000, DC_SIM_PRED_ORACLE, ps[k], seed);
		ratio[k] = (double)l * 4 / (double)tot;
		if (k && ratio[k] < ratio[k - 1] - 0.005)
			mono = false;
		printf("# flip %.3f: LQD/credence = %.4f\n", ps[k], ratio[k]);
	}
	snprintf(name, sizeof(name),
		 "credence flip sweep (T-C2-like, 20000 slots): LQD/ALG = %.4f %.4f %.4f %.4f %.4f for p = 0 .001 .01 .1 .3, non-decreasing ± 0.005",
		 ratio[0], ratio[1], ratio[2], ratio[3], ratio[4]);
	CHECK(name, mono && ratio[0] == 1.0 && ratio[4] <= 8.0, "%s", "not monotone");
	CHECK("credence flip: 0.01 degrades less than 0.1, both > 1",
	      ratio[2] < ratio[3] && ratio[2] >= 1.0, "%.4f vs %.4f", ratio[2], ratio[3]);
	free(a);
}

int main(void)
{
	test_tc6();
	test_tc1();
	test_update();
	test_oracle();
	test_all_drop();
	test_flip();
	return check_failed;
}
