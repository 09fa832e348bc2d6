// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * Admission core (include/dcbpf/admit.h) against cases worked by hand
 * (docs/admission.md, "Tests") and ABM's theorems (Addanki thesis
 * §4.3.3) on constructed steady states.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "dcbpf/admit.h"
#include "loader/lib/rand.h"

#define Q16(x) ((__u32)((x) * 65536.0 + 0.5))

static enum dc_verdict decide(__u32 alg, __u64 q, __u64 Q, __u64 B, __u32 len, __u32 alpha,
			      __u64 *t)
{
	struct dc_adm_in in = { .q = q, .Q = Q, .B = B, .len = len, .alpha_q16 = alpha,
				.gamma_q16 = (__u32)DC_Q16_ONE, .n_congested = 1 };

	return dc_adm_decide(alg, &in, t);
}

/*
 * The rule the docs state, written independently of the core: admit iff
 * the packet fits (Q + len ≤ B) and q < α·(1/n)·(B − Q)·γ, compared
 * exactly as q·n·2^32 < (B − Q)·α·γ in 128 bits (DT: n = 1, γ = 1).
 */
static enum dc_verdict ref_decide(__u32 alg, const struct dc_adm_in *in)
{
	unsigned __int128 lhs, rhs, fr = in->Q < in->B ? in->B - in->Q : 0;
	__u32 n = in->n_congested > 1 ? in->n_congested : 1;

	if (in->Q + in->len > in->B)
		return DC_V_DROP_FULL;
	if (alg == DC_ALG_CS || alg == DC_ALG_LQD)
		return in->q < in->B ? DC_V_ADMIT : DC_V_DROP_THRESH;
	if (alg == DC_ALG_DT) {
		lhs = (unsigned __int128)in->q << 16;
		rhs = fr * in->alpha_q16;
	} else {
		lhs = ((unsigned __int128)in->q * n) << 32;
		rhs = fr * in->alpha_q16 * in->gamma_q16;
	}
	return lhs < rhs ? DC_V_ADMIT : DC_V_DROP_THRESH;
}

static __u64 rnd(__u64 *s)
{
	return dc_rand_next(s);
}

static void test_dt_decisions(void)
{
	__u64 t, q, Q;
	int got[3];

	/* T-DT2: B = 1000, Q = 400, α = 0.5 → T = 300 */
	CHECK_EQ("dt: T = α(B − Q) (T-DT2)", dc_dt_threshold(1000, 400, Q16(0.5)), 300);
	CHECK_EQ("dt: q = 299 < 300 admitted (unit)", decide(DC_ALG_DT, 299, 400, 1000, 1, Q16(0.5), &t),
		 DC_V_ADMIT);
	CHECK_EQ("dt: q = 300 = T dropped (unit)", decide(DC_ALG_DT, 300, 400, 1000, 1, Q16(0.5), &t),
		 DC_V_DROP_THRESH);
	CHECK_EQ("dt: bytes, q = 299 < T = 300 admits a 2-byte packet (q is before the packet)",
		 decide(DC_ALG_DT, 299, 400, 1000, 2, Q16(0.5), &t), DC_V_ADMIT);
	CHECK_EQ("dt: bytes, q = 300 = T drops", decide(DC_ALG_DT, 300, 400, 1000, 2, Q16(0.5), &t),
		 DC_V_DROP_THRESH);
	/* fractional thresholds are not rounded down: q < 1.5 admits q = 1 */
	CHECK_EQ("dt: T = α(B − Q) = 1.5 is reported rounded up (2)", dc_dt_threshold(4, 1, Q16(0.5)), 2);
	CHECK_EQ("dt: q = 1 < 1.5 admitted (B = 4, Q = 1, α = 0.5)",
		 decide(DC_ALG_DT, 1, 1, 4, 1, Q16(0.5), &t), DC_V_ADMIT);
	CHECK_EQ("dt: q = 2 ≥ 1.5 dropped", decide(DC_ALG_DT, 2, 2, 4, 1, Q16(0.5), &t),
		 DC_V_DROP_THRESH);
	/* the repro: one port, B = 4, α = 0.5, packets of one slot in a row */
	for (q = 0; q < 3; q++)
		got[q] = decide(DC_ALG_DT, q, q, 4, 1, Q16(0.5), &t);
	CHECK("dt: B = 4, α = 0.5, one port: 0 < 2 and 1 < 1.5 admitted, 2 < 1 not",
	      got[0] == DC_V_ADMIT && got[1] == DC_V_ADMIT && got[2] == DC_V_DROP_THRESH,
	      "verdicts %d %d %d", got[0], got[1], got[2]);
	CHECK_EQ("dt: bytes, T = 500.5: q = 500 admitted", decide(DC_ALG_DT, 500, 0, 1001, 400, Q16(0.5), &t),
		 DC_V_ADMIT);
	CHECK_EQ("dt: bytes, T = 500.5: q = 501 dropped", decide(DC_ALG_DT, 501, 0, 1001, 400, Q16(0.5), &t),
		 DC_V_DROP_THRESH);
	CHECK_EQ("dt: full buffer is reported as full, before the threshold",
		 decide(DC_ALG_DT, 999, 1000, 1000, 1, Q16(0.5), &t), DC_V_DROP_FULL);
	CHECK_EQ("dt: Q + len = B still fits", decide(DC_ALG_DT, 0, 998, 1000, 2, Q16(8), &t), DC_V_ADMIT);
	CHECK_EQ("dt: over-full occupancy gives T = 0", dc_dt_threshold(1000, 1200, Q16(8)), 0);
	CHECK_EQ("dt: α = 1024 at B = 2^32 − 1 does not overflow",
		 dc_dt_threshold(0xffffffffULL, 0, DC_ALPHA_MAX_Q16), 0xffffffffULL * 1024);
	/* ABM: 1000/3 = 333.3 → q = 333 admitted, 334 not */
	{
		struct dc_adm_in in = { .q = 333, .Q = 0, .B = 1000, .len = 1, .alpha_q16 = Q16(1),
					.gamma_q16 = Q16(1), .n_congested = 3 };
		enum dc_verdict a = dc_adm_decide(DC_ALG_ABM, &in, &t), b;

		in.q = 334;
		b = dc_adm_decide(DC_ALG_ABM, &in, &t);
		CHECK("abm: T = 1000/3: q = 333 admitted, q = 334 dropped, T reported as 334",
		      a == DC_V_ADMIT && b == DC_V_DROP_THRESH && t == 334, "%d %d T %llu", a, b,
		      (unsigned long long)t);
	}
	CHECK_EQ("abm: α = 1024, γ = 1 at B = 2^32 − 1 does not overflow",
		 dc_abm_threshold(0xffffffffULL, 0, DC_ALPHA_MAX_Q16, 1, DC_Q16_ONE), 0xffffffffULL * 1024);
	CHECK_EQ("abm: ⌈⌉ of a product 2^74 − ε split in halves (γ = 1 − 2^-16, n = 3)",
		 dc_abm_threshold(0xffffffffULL, 0, DC_ALPHA_MAX_Q16, 3, DC_Q16_ONE - 1),
		 (__u64)(((((unsigned __int128)0xffffffffULL * DC_ALPHA_MAX_Q16 * (DC_Q16_ONE - 1)) +
			   ((unsigned __int128)3 << 32) - 1) >> 32) / 3));
	/* CS: admit while it fits */
	CHECK_EQ("cs: admits up to B", decide(DC_ALG_CS, 900, 999, 1000, 1, 0, &t), DC_V_ADMIT);
	CHECK_EQ("cs: drops when Q + len > B", decide(DC_ALG_CS, 0, 999, 1000, 2, 0, &t),
		 DC_V_DROP_FULL);

	/* every small state, and random large ones, against the rule */
	{
		static const __u32 alphas[] = { 1, 0x2000, 0x8000, 0x10000, 0x15555, 0x20000, 0x80000,
						DC_ALPHA_MAX_Q16 };
		static const __u32 gammas[] = { 0x1000, 0x5555, 0x8000, 0xc000, 0xffff, 0x10000 };
		unsigned long cases = 0, bad = 0;
		__u64 s = 7, B;
		unsigned int ai, gi, n, k;
		__u32 alg;
		char name[200];

		for (B = 1; B <= 24; B++)
			for (Q = 0; Q <= B; Q++)
				for (q = 0; q <= Q; q++)
					for (ai = 0; ai < sizeof(alphas) / sizeof(alphas[0]); ai++)
						for (gi = 0; gi < sizeof(gammas) / sizeof(gammas[0]); gi++)
							for (n = 0; n <= 4; n++)
								for (alg = DC_ALG_CS; alg <= DC_ALG_LQD; alg++) {
									struct dc_adm_in in = {
										q, Q, B, 1, alphas[ai], gammas[gi], n
									};

									cases++;
									bad += dc_adm_decide(alg, &in, &t) !=
									       ref_decide(alg, &in);
								}
		for (k = 0; k < 400000; k++) {
			struct dc_adm_in in;

			in.B = 1 + rnd(&s) % 0xffffffffULL;
			in.Q = rnd(&s) % (in.B + 1);
			in.q = rnd(&s) % (in.Q + 1);
			/* near the threshold half of the time */
			in.alpha_q16 = 1 + (__u32)(rnd(&s) % DC_ALPHA_MAX_Q16);
			in.gamma_q16 = 1 + (__u32)(rnd(&s) % DC_Q16_ONE);
			in.n_congested = (__u32)(rnd(&s) % 65);
			in.len = 1 + (__u32)(rnd(&s) % 9000);
			alg = (__u32)(rnd(&s) % 3);
			if (k & 1) {
				__u64 th = dc_adm_threshold(alg, &in);

				in.q = th - (rnd(&s) % 3) + 1;
				if (in.q > in.Q)
					in.Q = in.q < in.B ? in.q : in.B;
			}
			cases++;
			bad += dc_adm_decide(alg, &in, &t) != ref_decide(alg, &in);
		}
		snprintf(name, sizeof(name),
			 "cs/dt/abm: decisions equal the exact rule q·n·2^32 < (B − Q)·α·γ on %lu states", cases);
		CHECK(name, !bad, "%lu differ", bad);
	}
}

static void test_dt_steady(void)
{
	/* T-DT1 closed forms: T = αB/(1 + nα) */
	CHECK_EQ("dt steady: α = 1, n = 1 → B/2", dc_dt_steady(1200, Q16(1), 1), 600);
	CHECK_EQ("dt steady: α = 1, n = 2 → B/3", dc_dt_steady(1200, Q16(1), 2), 400);
	CHECK_EQ("dt steady: α = 0.5, n = 1 → B/3", dc_dt_steady(1200, Q16(0.5), 1), 400);
	CHECK_EQ("dt steady: α = 0.5, n = 2 → B/4", dc_dt_steady(1200, Q16(0.5), 2), 300);
	CHECK_EQ("dt steady: α = 8, n = 1 → 8B/9", dc_dt_steady(9000, Q16(8), 1), 8000);
	/* and it is a fixed point of the threshold: q = T(Q = n·q) */
	{
		__u64 T = dc_dt_steady(1200, Q16(1), 2);

		CHECK_EQ("dt steady is a fixed point of α(B − Q)", dc_dt_threshold(1200, 2 * T, Q16(1)), T);
	}
}

/*
 * ABM steady state: the occupancy Q at which every congested queue sits
 * at its threshold, Q = Σ T_i(Q) (Lemma 2).  The right side falls as Q
 * grows, so bisection finds it.
 */
struct abm_q {
	__u32 alpha_q16, gamma_q16, n;
};

static __u64 abm_sum(__u64 B, __u64 Q, const struct abm_q *qs, unsigned int k)
{
	__u64 s = 0;
	unsigned int i;

	for (i = 0; i < k; i++)
		s += dc_abm_threshold(B, Q, qs[i].alpha_q16, qs[i].n, qs[i].gamma_q16);
	return s;
}

static __u64 abm_fixed_point(__u64 B, const struct abm_q *qs, unsigned int k)
{
	__u64 lo = 0, hi = B;

	while (lo < hi) {
		__u64 mid = (lo + hi + 1) / 2;

		if (abm_sum(B, mid, qs, k) >= mid)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static void test_abm_cases(void)
{
	const __u64 B = 1200;
	struct abm_q qs[8];
	__u64 Q, T;
	unsigned int i;

	/* T-ABM1: two congested queues alone on their ports, α = 1 → B/4 each */
	for (i = 0; i < 2; i++)
		qs[i] = (struct abm_q){ Q16(1), Q16(1), 2 };
	Q = abm_fixed_point(B, qs, 2);
	T = dc_abm_threshold(B, Q, Q16(1), 2, Q16(1));
	CHECK_EQ("abm: two congested queues, α = 1 → B/4 each (T-ABM1)", T, 300);
	/* T-ABM2: four RR queues on one port (γ = 0.25), α = 1 → B/20 each */
	for (i = 0; i < 4; i++)
		qs[i] = (struct abm_q){ Q16(1), Q16(0.25), 4 };
	Q = abm_fixed_point(B, qs, 4);
	T = dc_abm_threshold(B, Q, Q16(1), 4, Q16(0.25));
	CHECK_EQ("abm: four RR queues, γ = 0.25 → B/20 each (T-ABM2)", T, 60);
	/* T-ABM7: first-RTT α = 64 vs 0.5 on the same state → 128× */
	CHECK_EQ("abm: first-RTT α 64 vs 0.5 gives a 128× threshold (T-ABM7)",
		 dc_abm_threshold(1000000, 200000, Q16(64), 2, Q16(0.5)),
		 128 * dc_abm_threshold(1000000, 200000, Q16(0.5), 2, Q16(0.5)));
	CHECK_EQ("abm: dc_adm_alpha picks α_first_rtt only under ABM",
		 dc_adm_alpha(DC_ALG_ABM, 1, 2, true) * 10 + dc_adm_alpha(DC_ALG_DT, 1, 2, true), 21);
	/* T-ABM8: γ = 1/3 vs 1 with the same n → T_A = T_B/3, equal drain time */
	{
		__u64 ta = dc_abm_threshold(1200000, 0, Q16(0.5), 2, (__u32)(DC_Q16_ONE / 3));
		__u64 tb = dc_abm_threshold(1200000, 0, Q16(0.5), 2, Q16(1));

		/* Q16 holds 1/3 as 21845/65536: 2·10^-5 low */
		CHECK_RANGE("abm: T_A = T_B/3 for γ = 1/3 (T-ABM8: equal drain times)", ta * 3,
			    tb - tb / 10000, tb);
	}
	/* γ = 1, n = 1 is DT */
	CHECK_EQ("abm with n = 1, γ = 1 equals DT", dc_abm_threshold(1000, 100, Q16(0.5), 1, Q16(1)),
		 dc_dt_threshold(1000, 100, Q16(0.5)));
}

/*
 * Theorems 5–7 on constructed steady states.  k congested queues of one
 * priority (n_p = k) sit on ports in groups of g; a port serves its
 * congested queues round robin, so a queue in a group of size m drains
 * at γ = 1/m.  At the fixed point Q = Σ T_i(Q) (every queue at its
 * threshold) the core's thresholds must respect
 *   Thm 6  Q = Σ_{queues of p} T ≤ B·α/(1 + α)
 *   Thm 7  drain time T/(γ·b) ≤ B·α/((1 + α)·b), i.e. T/γ ≤ B·α/(1 + α)
 *   Thm 5  Σ_{queues of p} T ≥ B·α_p/(1 + Σ_p α_p) · μ̂_p/b
 * (slack: (1 + α) units of rounding per queue, against B = 10^6).
 */
static void test_abm_theorems(void)
{
	static const double alphas[] = { 0.125, 0.5, 1, 2, 8 };
	static const unsigned int groups[] = { 1, 2, 3, 4, 8 };
	const __u64 B = 1000000;
	unsigned int ai, k, gi, bad6 = 0, bad7 = 0, cases = 0;
	char name[160];

	for (ai = 0; ai < sizeof(alphas) / sizeof(alphas[0]); ai++) {
		double a = alphas[ai];

		for (k = 1; k <= 8; k++) {
			for (gi = 0; gi < sizeof(groups) / sizeof(groups[0]); gi++) {
				struct abm_q qs[8];
				/* rounding: the bisection lands within α units of the fixed point */
				__u64 Q, bound = (__u64)((double)B * a / (1 + a)) + k * (1 + (__u64)a);
				unsigned int i, g = groups[gi];

				for (i = 0; i < k; i++) {
					unsigned int first = i / g * g;
					unsigned int m = first + g <= k ? g : k - first;

					qs[i] = (struct abm_q){ Q16(a), (__u32)(DC_Q16_ONE / m), k };
				}
				Q = abm_fixed_point(B, qs, k);
				for (i = 0; i < k; i++) {
					__u64 t = dc_abm_threshold(B, Q, qs[i].alpha_q16, k, qs[i].gamma_q16);

					if ((t << 16) / qs[i].gamma_q16 > bound)
						bad7++;
				}
				if (Q > bound)
					bad6++;
				cases++;
			}
		}
	}
	snprintf(name, sizeof(name), "abm: Theorem 6 Σ T_p ≤ Bα/(1+α) on %u constructed states", cases);
	CHECK(name, !bad6, "%u states violate it", bad6);
	snprintf(name, sizeof(name), "abm: Theorem 7 drain time ≤ Bα/((1+α)b) on %u constructed states",
		 cases);
	CHECK(name, !bad7, "%u queues violate it", bad7);

	/* Theorem 5 (T-ABM5): two priorities, α = 0.5 each, μ̂ = b → ≥ B/4;
	 * μ̂ = b/2 → ≥ B/8, however many queues the other priority has. */
	for (k = 1; k <= 8; k++) {
		struct abm_q qs[16];
		__u64 Q, sum_h = 0;
		unsigned int i, kl = k, kh = 2;

		for (i = 0; i < kh; i++)
			qs[i] = (struct abm_q){ Q16(0.5), Q16(1), kh };
		for (i = 0; i < kl; i++)
			qs[kh + i] = (struct abm_q){ Q16(0.5), Q16(1), kl };
		Q = abm_fixed_point(B, qs, kh + kl);
		for (i = 0; i < kh; i++)
			sum_h += dc_abm_threshold(B, Q, qs[i].alpha_q16, kh, qs[i].gamma_q16);
		if (sum_h + kh < B / 4) {
			CHECK("abm: Theorem 5 B_min ≥ Bα/(1+Σα) (μ̂ = b)", 0,
			      "k_L = %u: priority H holds %llu < B/4", k, (unsigned long long)sum_h);
			return;
		}
		for (i = 0; i < kh; i++)
			qs[i].gamma_q16 = Q16(0.5);
		Q = abm_fixed_point(B, qs, kh + kl);
		sum_h = 0;
		for (i = 0; i < kh; i++)
			sum_h += dc_abm_threshold(B, Q, qs[i].alpha_q16, kh, qs[i].gamma_q16);
		if (sum_h + kh < B / 8) {
			CHECK("abm: Theorem 5 B_min ≥ Bα/(1+Σα)·μ̂/b (μ̂ = b/2)", 0,
			      "k_L = %u: priority H holds %llu < B/8", k, (unsigned long long)sum_h);
			return;
		}
	}
	CHECK("abm: Theorem 5 minimum guarantee holds for 1..8 competing queues (T-ABM5, T-ABM6)", 1, "");
	/* Contrast (T-DT3): DT gives AF α = 2 only 2B/(1 + 2 + n_BE) */
	CHECK_EQ("dt: no isolation, AF share falls with BE queues (T-DT3, n_BE = 5 → B/4)",
		 dc_muldiv64(1200, Q16(2), DC_Q16_ONE + Q16(2) + 5 * (__u64)Q16(1)), 300);
}

static void test_abm_helpers(void)
{
	/* 1 Gbit/s for 100 µs carries 12 500 bytes */
	CHECK_EQ("abm γ: half the line rate → 0.5", dc_abm_gamma_q16(6250, 100000, 1000, true),
		 Q16(0.5));
	CHECK_EQ("abm γ: idle queue counts as 1", dc_abm_gamma_q16(0, 100000, 1000, false),
		 DC_Q16_ONE);
	CHECK_EQ("abm γ: stalled backlogged queue floors at 1/16",
		 dc_abm_gamma_q16(0, 100000, 1000, true), DC_ABM_GAMMA_MIN_Q16);
	CHECK_EQ("abm γ: above line rate clamps at 1", dc_abm_gamma_q16(20000, 100000, 1000, true),
		 DC_Q16_ONE);
	CHECK("abm congested: q ≥ 0.9·T", dc_abm_congested(90, 100) && !dc_abm_congested(89, 100) &&
	      !dc_abm_congested(0, 0), "%s", "boundary wrong");
	CHECK_EQ("abm n floors at 1", dc_abm_n(0), 1);
	CHECK("ecn: mark above K, K = 0 never marks",
	      dc_ecn_mark(100, 1, 100) && !dc_ecn_mark(99, 1, 100) && !dc_ecn_mark(1000000, 1500, 0),
	      "%s", "boundary wrong");
}

static void test_lqd(void)
{
	__u64 q[4] = { 5, 9, 9, 2 };
	__u64 tie[2] = { 4, 5 };

	CHECK_EQ("lqd: longest queue loses (lowest index among equals)", dc_lqd_victim(q, 4, 0, 1), 1);
	CHECK_EQ("lqd: arrival to a short queue pushes out the longest", dc_lqd_victim(q, 4, 3, 1), 1);
	CHECK_EQ("lqd: arrival that makes its queue the longest is dropped itself",
		 dc_lqd_victim(q, 4, 2, 1), 2);
	CHECK_EQ("lqd: tie between the arriving queue and another drops the arrival",
		 dc_lqd_victim(tie, 2, 0, 1), 0);
	CHECK_EQ("lqd: byte mode counts the arrival's length", dc_lqd_victim(tie, 2, 0, 1500), 0);
}

int main(void)
{
	test_dt_decisions();
	test_dt_steady();
	test_abm_cases();
	test_abm_theorems();
	test_abm_helpers();
	test_lqd();
	return check_failed;
}
