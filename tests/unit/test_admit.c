// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Admission core (include/dcbpf/admit.h) against the worked cases of the
 * digest (notes/buffer-sharing.md §11) and ABM's theorems (seed 000
 * §4.3.3) on constructed steady states.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "dcbpf/admit.h"

#define Q16(x) ((__u32)((x) * 65536.0 + 0.5))

static enum dc_verdict decide(__u32 alg, __u64 q, __u64 Q, __u64 B, __u32 len, __u32 alpha,
			      __u64 *t)
{
	struct dc_adm_in in = { .q = q, .Q = Q, .B = B, .len = len, .alpha_q16 = alpha,
				.gamma_q16 = (__u32)DC_Q16_ONE, .n_congested = 1 };

	return dc_adm_decide(alg, &in, t);
}

static void test_dt_decisions(void)
{
	__u64 t;

	/* T-DT2: B = 1000, Q = 400, α = 0.5 → T = 300 */
	CHECK_EQ("dt: T = α(B − Q) (T-DT2)", dc_dt_threshold(1000, 400, Q16(0.5)), 300);
	CHECK_EQ("dt: q = 299 admitted (unit)", decide(DC_ALG_DT, 299, 400, 1000, 1, Q16(0.5), &t),
		 DC_V_ADMIT);
	CHECK_EQ("dt: q = 300 = T dropped (unit)", decide(DC_ALG_DT, 300, 400, 1000, 1, Q16(0.5), &t),
		 DC_V_DROP_THRESH);
	CHECK_EQ("dt: byte mode q = 299, len = 2 → 301 > 300 dropped",
		 decide(DC_ALG_DT, 299, 400, 1000, 2, Q16(0.5), &t), DC_V_DROP_THRESH);
	CHECK_EQ("dt: full buffer is reported as full, before the threshold",
		 decide(DC_ALG_DT, 999, 1000, 1000, 1, Q16(0.5), &t), DC_V_DROP_FULL);
	CHECK_EQ("dt: over-full occupancy gives T = 0", dc_dt_threshold(1000, 1200, Q16(8)), 0);
	CHECK_EQ("dt: α = 1024 at B = 2^32 − 1 does not overflow",
		 dc_dt_threshold(0xffffffffULL, 0, DC_ALPHA_MAX_Q16), 0xffffffffULL * 1024);
	/* CS: admit while it fits */
	CHECK_EQ("cs: admits up to B", decide(DC_ALG_CS, 900, 999, 1000, 1, 0, &t), DC_V_ADMIT);
	CHECK_EQ("cs: drops when Q + len > B", decide(DC_ALG_CS, 0, 999, 1000, 2, 0, &t),
		 DC_V_DROP_FULL);
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

		CHECK_RANGE("dt steady is a fixed point of α(B − Q)",
			    dc_dt_threshold(1200, 2 * T, Q16(1)), T - 1, T + 1);
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
	CHECK_RANGE("abm: two congested queues, α = 1 → B/4 each (T-ABM1)", T, 299, 300);
	/* T-ABM2: four RR queues on one port (γ = 0.25), α = 1 → B/20 each */
	for (i = 0; i < 4; i++)
		qs[i] = (struct abm_q){ Q16(1), Q16(0.25), 4 };
	Q = abm_fixed_point(B, qs, 4);
	T = dc_abm_threshold(B, Q, Q16(1), 4, Q16(0.25));
	CHECK_RANGE("abm: four RR queues, γ = 0.25 → B/20 each (T-ABM2)", T, 59, 60);
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
