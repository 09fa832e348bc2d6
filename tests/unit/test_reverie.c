// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * Reverie and the SONiC baseline (include/dcbpf/reverie.h, sonic.h)
 * against the thesis' properties and worked cases (Addanki thesis ch.5;
 * docs/admission.md, "Reverie and the SONiC baseline"): T-RV1 isolation
 * (Theorem 10) and T-RV2 one class alone and the waste bounds (Theorem
 * 11) on overloaded queues run through the core; T-RV3 the filter's step
 * response (Eq. 5.11); T-RV4 a burst admitted until update 334; T-RV5 the
 * PFC state machine; T-RV6 SONiC's Issue 1 (Eqs. 5.5–5.8), closed form
 * and run through the core; T-RV7 the evaluation's constants.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "dcbpf/reverie.h"
#include "dcbpf/sonic.h"

#define Q16(x) ((__u32)((x) * 65536.0 + 0.5))
#define Q32(x) ((__u64)((x) * 4294967296.0 + 0.5))
#define PKT 1000U
#define QMAX 16

/* Overloaded queues: each receives two packets a slot while its upstream
 * may send (lossless: not paused; the pause acts at once here, the
 * simulator models its delay) and sends one.  Returns the mean occupancy
 * of each class over the second half of the run. */
static void rv_overload(__u64 shared, __u32 a_ll, __u32 a_ly, unsigned int n_ll, unsigned int n_ly,
			__u64 gamma_q32, unsigned int slots, double *ll, double *ly, __u64 *pauses,
			__u64 *ll_drops)
{
	struct dc_rv_params p;
	struct dc_rv_pool pool = { 0 };
	struct dc_rv_queue qs[QMAX] = { { 0 } };
	double sum[DC_RV_CLASSES] = { 0 };
	unsigned int t, i, k, n = n_ll + n_ly, half = slots / 2;
	bool pause;

	dc_rv_defaults(&p, shared + (__u64)n_ll * 100000, 100000, n_ll);
	p.alpha_q16[DC_RV_LOSSLESS] = a_ll;
	p.alpha_q16[DC_RV_LOSSY] = a_ly;
	p.gamma_q32 = gamma_q32;
	*pauses = *ll_drops = 0;
	for (t = 0; t < slots; t++) {
		for (i = 0; i < n; i++) {
			__u32 cls = i < n_ll ? DC_RV_LOSSLESS : DC_RV_LOSSY;

			for (k = 0; k < 2; k++) {
				if (cls == DC_RV_LOSSLESS && qs[i].paused)
					break;
				if (dc_rv_arrival(&p, &pool, &qs[i], cls, PKT, &pause) == DC_RV_DROP_HDRM)
					(*ll_drops)++;
				*pauses += pause;
			}
		}
		for (i = 0; i < n; i++) {
			__u32 cls = i < n_ll ? DC_RV_LOSSLESS : DC_RV_LOSSY;

			if (qs[i].q_bytes + qs[i].hdrm_bytes >= PKT)
				dc_rv_departure(&p, &pool, &qs[i], cls, PKT);
			else if (cls == DC_RV_LOSSLESS)
				dc_rv_poll_resume(&p, &pool, &qs[i]);
		}
		if (t < half)
			continue;
		for (i = 0; i < n; i++)
			sum[i < n_ll ? DC_RV_LOSSLESS : DC_RV_LOSSY] += qs[i].q_bytes + qs[i].hdrm_bytes;
	}
	*ll = sum[DC_RV_LOSSLESS] / (slots - half);
	*ly = sum[DC_RV_LOSSY] / (slots - half);
}

static void t_rv1_rv2(void)
{
	const __u64 bs = 1200000;
	static const unsigned int ns[] = { 1, 4 };
	static const double gammas[] = { 0, 0.99 };
	double ll, ly;
	__u64 pauses, drops, lo, hi;
	unsigned int i, g;
	char name[160];

	/* Closed form (Eqs. 5.14/5.15) */
	CHECK_EQ("T-RV1 Eq. 5.14: alpha_LL 2, alpha_LY 1: lossless b*/2",
		 dc_rv_steady_bytes(bs, Q16(2), Q16(1)), bs / 2);
	CHECK_EQ("T-RV1 Eq. 5.15: lossy b*/4", dc_rv_steady_bytes(bs, Q16(1), Q16(2)), bs / 4);
	CHECK_EQ("T-RV2: one class alone, alpha 1: b*/2", dc_rv_steady_bytes(bs, Q16(1), 0), bs / 2);
	dc_rv_waste_bounds(bs, Q16(2), Q16(1), &lo, &hi);
	CHECK("T-RV2 Thm 11: b*/4 <= waste <= b*/2 for alpha 2, 1", lo == bs / 4 && hi == bs / 2,
	      "%llu %llu", (unsigned long long)lo, (unsigned long long)hi);

	/* Through the core: the split 2:1 whatever n, lossless never dropped */
	for (g = 0; g < 2; g++) {
		for (i = 0; i < 2; i++) {
			rv_overload(bs, Q16(2), Q16(1), ns[i], ns[i], Q32(gammas[g]), 40000, &ll, &ly,
				    &pauses, &drops);
			snprintf(name, sizeof(name),
				 "T-RV1 core, gamma %.2f, n %u per class: lossless %.0f ~ b*/2, lossy %.0f ~ b*/4 (+-3%%)",
				 gammas[g], ns[i], ll, ly);
			CHECK(name, fabs(ll / (bs / 2.0) - 1) < 0.03 && fabs(ly / (bs / 4.0) - 1) < 0.03,
			      "lossless %.0f lossy %.0f", ll, ly);
			snprintf(name, sizeof(name),
				 "T-RV1 core, gamma %.2f, n %u: ratio %.3f ~ 2, paused %llu times, no lossless drop",
				 gammas[g], ns[i], ll / ly, (unsigned long long)pauses);
			CHECK(name, fabs(ll / ly - 2) < 0.1 && pauses > 0 && drops == 0,
			      "ratio %.3f pauses %llu drops %llu", ll / ly, (unsigned long long)pauses,
			      (unsigned long long)drops);
		}
		rv_overload(bs, Q16(1), Q16(1), 0, 2, Q32(gammas[g]), 40000, &ll, &ly, &pauses, &drops);
		snprintf(name, sizeof(name), "T-RV2 core, gamma %.2f: lossy alone, alpha 1: %.0f ~ b*/2",
			 gammas[g], ly);
		CHECK(name, fabs(ly / (bs / 2.0) - 1) < 0.03 && ll == 0, "lossy %.0f", ly);
		rv_overload(bs, Q16(1), Q16(1), 2, 0, Q32(gammas[g]), 40000, &ll, &ly, &pauses, &drops);
		snprintf(name, sizeof(name), "T-RV2 core, gamma %.2f: lossless alone, alpha 1: %.0f ~ b*/2",
			 gammas[g], ll);
		CHECK(name, fabs(ll / (bs / 2.0) - 1) < 0.03 && drops == 0, "lossless %.0f", ll);
	}
}

/* Updates until q̂ reaches frac of a step from 0 to q0. */
static unsigned int step_updates(__u64 q0, __u64 gamma_q32, double frac)
{
	__u64 qh = 0;
	unsigned int k;

	for (k = 1; k < 100000; k++) {
		qh = dc_rv_filter(qh, q0, gamma_q32, true);
		if ((double)qh / 65536.0 >= frac * q0)
			return k;
	}
	return 0;
}

static void t_rv3(void)
{
	const __u64 q0 = 100000;
	__u64 qh = 0;
	unsigned int k;
	char name[128];

	/* q̂_k = q0·(1 − γ^k): 50 % after ln 2/(−ln γ) = 692.8 updates */
	k = step_updates(q0, Q32(0.999), 0.5);
	snprintf(name, sizeof(name), "T-RV3 gamma 0.999: half the step after %u updates (693)", k);
	CHECK_RANGE(name, k, 693, 693);
	k = step_updates(q0, Q32(0.999), 1 - exp(-1));
	snprintf(name, sizeof(name), "T-RV3 gamma 0.999: 63.2 %% after %u updates (1000)", k);
	CHECK_RANGE(name, k, 999, 1000);
	k = step_updates(q0, Q32(0.99), 1 - exp(-1));
	snprintf(name, sizeof(name), "T-RV3 gamma 0.99: 63.2 %% after %u updates (100)", k);
	CHECK_RANGE(name, k, 99, 100);
	for (k = 0; k < 1000; k++)
		qh = dc_rv_filter(qh, q0, Q32(0.999), true);
	CHECK_RANGE("T-RV3 gamma 0.999: q-hat after 1000 updates = q0 (1 - 0.999^1000) = 63230.4",
		    qh >> 16, 63229, 63231);
	CHECK_EQ("T-RV3 gamma 0: q-hat follows q at once", dc_rv_filter(0, q0, 0, true) >> 16, q0);
	CHECK_EQ("T-RV3 step down with the clamp: q-hat = q at once",
		 dc_rv_filter(q0 << 16, 1000, Q32(0.999), true), 1000ULL << 16);
	qh = dc_rv_filter(q0 << 16, 1000, Q32(0.999), false);
	CHECK_RANGE("T-RV3 step down without the clamp: q-hat moves by (1 - gamma)(q - q-hat) only",
		    qh >> 16, 99900, 99901);
	/* never overshoots q, in either direction, even with gamma 0 */
	qh = 0;
	for (k = 0; k < 5000; k++)
		qh = dc_rv_filter(qh, q0, Q32(0.4), false);
	CHECK("T-RV3 gamma 0.4: converges to q without passing it", qh <= q0 << 16 && qh >> 16 >= q0 - 1,
	      "%llu", (unsigned long long)(qh >> 16));
}

/* The first update at which q̂ > Γ while q rises 1 KB per update from 50 KB. */
static unsigned int burst_fail(__u64 gamma_q32, __u64 *q_at, __u64 *qhat_at)
{
	const __u64 kb = 1000, thresh = 100 * kb;
	__u64 q = 50 * kb, qh = q << 16;
	unsigned int k;

	for (k = 1; k < 10000; k++) {
		q += kb;
		qh = dc_rv_filter(qh, q, gamma_q32, true);
		if (qh > thresh << 16) {
			*q_at = q;
			*qhat_at = qh >> 16;
			return k;
		}
	}
	return 0;
}

static void t_rv4(void)
{
	struct dc_rv_params p;
	struct dc_rv_pool pool = { 0 };
	struct dc_rv_queue qu = { 0 };
	__u64 q, qh, g;
	unsigned int k, admitted = 0, refused_at = 0;
	bool pause;
	char name[160];

	k = burst_fail(Q32(0.999), &q, &qh);
	snprintf(name, sizeof(name),
		 "T-RV4 gamma 0.999: the filtered test first fails at update %u (334), q %llu B (384000), q-hat %llu B (100.2 KB)",
		 k, (unsigned long long)q, (unsigned long long)qh);
	CHECK(name, k == 334 && q == 384000 && qh >= 100000 && qh < 100300, "k %u", k);
	/* γ = 1 − 2^-10 exactly: 337.  A shift EWMA truncated to whole bytes
	 * at every update (q̂ += (q − q̂) >> 10) lags a little more and fails
	 * at 338; the Q16 q̂ keeps the fractions. */
	k = burst_fail(DC_RV_Q32_ONE - (DC_RV_Q32_ONE >> 10), &q, &qh);
	snprintf(name, sizeof(name), "T-RV4 gamma 1 - 2^-10: first fails at update %u (337)", k);
	CHECK_EQ(name, k, 337);
	k = burst_fail(0, &q, &qh);
	snprintf(name, sizeof(name), "T-RV4 instantaneous (gamma 0): fails at update %u (51)", k);
	CHECK_EQ(name, k, 51);

	/* The same burst through dc_rv_arrival/departure: Γ = α·(b* − q*) =
	 * 100 KB held fixed (q* is the other queues' bytes, set here). */
	dc_rv_defaults(&p, 200000, 0, 0);
	p.cong_bytes = 1;	/* this queue alone: n = 1 */
	qu.q_bytes = 50000;
	qu.qhat_q16 = 50000ULL << 16;
	g = 0;
	for (k = 1; k <= 400; k++) {
		pool.q_shared = 100000;	/* Γ = 1·(200000 − 100000)/1 */
		if (dc_rv_arrival(&p, &pool, &qu, DC_RV_LOSSY, 2000, &pause) == DC_RV_SHARED) {
			admitted++;
			if (qu.q_bytes > 100000 && qu.qhat_q16 <= (100000ULL << 16))
				g++;	/* admitted although q > Γ: the filter absorbs it */
		} else if (!refused_at) {
			refused_at = k;
		}
		pool.q_shared = 100000 + qu.q_bytes;
		dc_rv_departure(&p, &pool, &qu, DC_RV_LOSSY, 1000);
	}
	snprintf(name, sizeof(name),
		 "T-RV4 core: 2 KB in, 1 KB out per update: first refusal at the arrival after update %u (334), %u admitted with q-hat <= Gamma < q",
		 refused_at - 1, (unsigned int)g);
	/* q after the arrival of step k is 51 KB + k KB: above Γ from k = 50 */
	CHECK(name, refused_at == 335 && g == 334 - 50 + 1, "refused at %u, %llu", refused_at,
	      (unsigned long long)g);
}

static void t_rv5(void)
{
	struct dc_rv_params p;
	struct dc_rv_pool pool = { 0 };
	struct dc_rv_queue qu = { 0 }, ly = { 0 };
	enum dc_rv_verdict v;
	bool pause, resumed;

	dc_rv_defaults(&p, 110000, 10000, 1);	/* b* = 100000, headroom 10000 */
	p.gamma_q32 = 0;			/* q̂ = q: the transitions by hand */
	p.cong_bytes = 1;
	/* RUNNING: admitted into the shared pool while q̂ ≤ Γ */
	v = dc_rv_arrival(&p, &pool, &qu, DC_RV_LOSSLESS, 1000, &pause);
	CHECK("T-RV5 running: q-hat <= Gamma admits into the shared pool, no pause",
	      v == DC_RV_SHARED && !pause && !qu.paused && pool.q_shared == 1000, "v %d", v);
	/* q̂ > Γ: PAUSE, one frame, the packet into headroom */
	qu.q_bytes = 60000;
	pool.q_shared = 60000;
	qu.qhat_q16 = 60000ULL << 16;	/* Γ = 1·(100000 − 60000) = 40000 */
	v = dc_rv_arrival(&p, &pool, &qu, DC_RV_LOSSLESS, 1000, &pause);
	CHECK("T-RV5 q-hat > Gamma: PAUSE sent, the packet into headroom, not dropped",
	      v == DC_RV_HEADROOM && pause && qu.paused && qu.hdrm_bytes == 1000 &&
		      pool.hdrm_used == 1000 && pool.q_shared == 60000,
	      "v %d pause %d", v, pause);
	v = dc_rv_arrival(&p, &pool, &qu, DC_RV_LOSSLESS, 1000, &pause);
	CHECK("T-RV5 paused: later packets into headroom irrespective of Eq. 5.10, no second frame",
	      v == DC_RV_HEADROOM && !pause && qu.hdrm_bytes == 2000, "v %d", v);
	/* Make Eq. 5.10 hold again: headroom not empty → still paused */
	pool.q_shared = 0;
	qu.q_bytes = 0;
	qu.qhat_q16 = 0;
	resumed = dc_rv_departure(&p, &pool, &qu, DC_RV_LOSSLESS, 1000);
	CHECK("T-RV5 headroom not yet empty: no RESUME although q-hat <= Gamma",
	      !resumed && qu.paused && qu.hdrm_bytes == 1000, "resumed %d", resumed);
	/* headroom empty but q̂ > Γ → still paused */
	qu.q_bytes = 90000;
	pool.q_shared = 90000;
	qu.qhat_q16 = 90000ULL << 16;
	resumed = dc_rv_departure(&p, &pool, &qu, DC_RV_LOSSLESS, 1000);
	CHECK("T-RV5 headroom drained, q-hat > Gamma: no RESUME",
	      !resumed && qu.paused && qu.hdrm_bytes == 0 && pool.hdrm_used == 0 &&
		      qu.q_bytes == 90000,
	      "resumed %d q %llu", resumed, (unsigned long long)qu.q_bytes);
	/* hysteresis: q̂ ≤ Γ but q̂ + xon_offset > Γ → still paused */
	p.xon_offset_bytes = 20000;
	qu.q_bytes = 42000;
	pool.q_shared = 42000;
	resumed = dc_rv_departure(&p, &pool, &qu, DC_RV_LOSSLESS, 1000);	/* q̂ = q = 41000 */
	CHECK("T-RV5 hysteresis: q-hat 41000 <= Gamma 59000 but q-hat + 20000 > Gamma: no RESUME",
	      !resumed && qu.paused, "resumed %d", resumed);
	qu.q_bytes = 31000;
	pool.q_shared = 31000;
	resumed = dc_rv_departure(&p, &pool, &qu, DC_RV_LOSSLESS, 1000);	/* q̂ 30000, Γ 70000 */
	CHECK("T-RV5 headroom empty and q-hat + xon_offset <= Gamma: RESUME once",
	      resumed && !qu.paused, "resumed %d", resumed);
	v = dc_rv_arrival(&p, &pool, &qu, DC_RV_LOSSLESS, 1000, &pause);
	CHECK("T-RV5 resumed: admitted into the shared pool again", v == DC_RV_SHARED && !pause,
	      "v %d", v);
	/* headroom overrun: sized too small → counted drop, queue stays paused */
	qu.paused = 1;
	qu.hdrm_bytes = 9500;
	pool.hdrm_used = 9500;
	v = dc_rv_arrival(&p, &pool, &qu, DC_RV_LOSSLESS, 1000, &pause);
	CHECK("T-RV5 headroom full: DROP_HDRM (headroom sized too small), counters unchanged",
	      v == DC_RV_DROP_HDRM && qu.hdrm_bytes == 9500 && pool.hdrm_used == 9500, "v %d", v);
	/* lossy: refused, never paused */
	ly.qhat_q16 = 80000ULL << 16;
	ly.q_bytes = 80000;
	v = dc_rv_arrival(&p, &pool, &ly, DC_RV_LOSSY, 1000, &pause);
	CHECK("T-RV5 lossy with q-hat > Gamma: dropped (thresh), no pause", v == DC_RV_DROP_THRESH &&
	      !pause && !ly.paused, "v %d", v);
	ly.qhat_q16 = 0;
	pool.q_shared = 99500;
	v = dc_rv_arrival(&p, &pool, &ly, DC_RV_LOSSY, 1000, &pause);
	CHECK("T-RV5 lossy with no room in b*: dropped (full)", v == DC_RV_DROP_FULL, "v %d", v);
	pool.hdrm_used = 0;
	v = dc_rv_arrival(&p, &pool, &(struct dc_rv_queue){ 0 }, DC_RV_LOSSLESS, 1000, &pause);
	CHECK("T-RV5 lossless with no room in b*: PAUSE and headroom, not dropped",
	      v == DC_RV_HEADROOM && pause, "v %d", v);
	/* n_c bookkeeping: the level sum returns to zero when queues empty */
	CHECK("T-RV5 n_c: levels of emptied queues leave the sum", pool.n_q16[DC_RV_LOSSLESS] ==
	      qu.level_q16, "%llu vs %u", (unsigned long long)pool.n_q16[DC_RV_LOSSLESS], qu.level_q16);
}

/* SONiC through the core: n lossy and n lossless overloaded flows, each
 * its own source and destination port. */
static void sonic_overload(__u64 b, unsigned int n, __u32 alpha_q16, unsigned int slots, double *ll,
			   double *ly, __u64 *ll_drops)
{
	struct dc_sonic_params p;
	struct dc_sonic_pools s = { 0 };
	struct dc_sonic_iq iq[QMAX] = { { 0 } };
	__u64 eq[QMAX] = { 0 };
	double sum[2] = { 0 };
	unsigned int t, i, k, half = slots / 2;
	bool pause;

	dc_sonic_defaults(&p, b, 100000, n, alpha_q16, alpha_q16);
	*ll_drops = 0;
	for (t = 0; t < slots; t++) {
		for (i = 0; i < 2 * n; i++) {
			__u32 cls = i < n ? DC_RV_LOSSLESS : DC_RV_LOSSY;

			for (k = 0; k < 2; k++) {
				enum dc_sonic_verdict v;

				if (cls == DC_RV_LOSSLESS && iq[i].paused)
					break;
				v = dc_sonic_arrival(&p, &s, &iq[i], &eq[i], cls, PKT, &pause);
				if (cls == DC_RV_LOSSLESS && v >= DC_SONIC_DROP_IN)
					(*ll_drops)++;
			}
		}
		for (i = 0; i < 2 * n; i++) {
			__u32 cls = i < n ? DC_RV_LOSSLESS : DC_RV_LOSSY;

			if (eq[i] >= PKT)
				dc_sonic_departure(&p, &s, &iq[i], &eq[i], cls, PKT);
			else if (cls == DC_RV_LOSSLESS)
				dc_sonic_poll_resume(&p, &s, &iq[i]);
		}
		if (t >= half)
			for (i = 0; i < 2 * n; i++)
				sum[i < n] += eq[i];
	}
	*ll = sum[1] / (slots - half);
	*ly = sum[0] / (slots - half);
}

static void t_rv6(void)
{
	const __u64 bin = 1000000;
	struct dc_sonic_params p;
	__u64 ll, ly, drops;
	double dll, dly, ell, ely;
	char name[200];

	ll = dc_sonic_steady_lossless(bin, bin * 8 / 10, 10000, Q16(1), 10000, Q16(1));
	ly = dc_sonic_steady_lossy(bin * 8 / 10, 10000, Q16(1));
	/* n = 10^4: x = n/(n + 1), q_LL = x·(b_in − x·0.8·b_in) = 200060, from above */
	CHECK_RANGE("T-RV6 Eq. 5.7, b_eLY = 0.8 b_in, large n: lossless -> 0.2 b_in", ll, 200000, 200100);
	CHECK_RANGE("T-RV6 Eq. 5.8: lossy -> 0.8 b_in (Issue 1: lossy gets 4x lossless)", ly, 799900,
		    800000);
	ll = dc_sonic_steady_lossless(bin, bin / 2, 10000, Q16(1), 10000, Q16(1));
	ly = dc_sonic_steady_lossy(bin / 2, 10000, Q16(1));
	CHECK("T-RV6 b_in >= 2 b_eLY: lossless >= lossy", ll >= ly - 100, "%llu vs %llu",
	      (unsigned long long)ll, (unsigned long long)ly);

	/* Through the core: 4 + 4 flows, α = 1, evaluation pools:
	 * x = 0.8, q_LY = 0.8·b_eLY, q_LL = 0.8·(b_in − q_LY) */
	sonic_overload(1000000 + 4 * 100000, 4, Q16(1), 40000, &dll, &dly, &drops);
	ely = (double)dc_sonic_steady_lossy(800000, 4, Q16(1));
	ell = (double)dc_sonic_steady_lossless(1000000, 800000, 4, Q16(1), 4, Q16(1));
	snprintf(name, sizeof(name),
		 "T-RV6 core: lossy %.0f ~ Eq. 5.8 %.0f, lossless %.0f ~ Eq. 5.7 %.0f (+-3%%), no lossless drop",
		 dly, ely, dll, ell);
	CHECK(name, fabs(dly / ely - 1) < 0.03 && fabs(dll / ell - 1) < 0.03 && drops == 0,
	      "drops %llu", (unsigned long long)drops);
	CHECK("T-RV6 core: Issue 1, lossy holds more than lossless", dly > 1.5 * dll, "%.0f %.0f", dly,
	      dll);

	/* The heuristics */
	dc_sonic_defaults(&p, 2560000, 20000, 20, Q16(1), Q16(1));
	CHECK("T-RV6 defaults keep H1-H3; b_in = b - b_h, b_eLY = 0.8 b_in",
	      dc_sonic_check(&p) == 0 && p.in_pool_bytes == 2160000 &&
		      p.eg_pool_bytes[DC_RV_LOSSY] == 2160000ULL * 52429 / 65536 &&
		      p.eg_pool_bytes[DC_RV_LOSSLESS] == 2560000,
	      "bad %u", dc_sonic_check(&p));
	p.in_pool_bytes += 1;
	CHECK_EQ("T-RV6 b_in + b_h > b breaks H1", dc_sonic_check(&p), DC_SONIC_H1);
	p.in_pool_bytes -= 1;
	p.alpha_eg_q16[DC_RV_LOSSLESS] = Q16(1);
	CHECK_EQ("T-RV6 alpha_eLL = 1 breaks H2", dc_sonic_check(&p), DC_SONIC_H2);
	p.alpha_eg_q16[DC_RV_LOSSLESS] = DC_SONIC_ALPHA_LARGE_Q16;
	p.eg_pool_bytes[DC_RV_LOSSY] = p.in_pool_bytes + 1;
	CHECK_EQ("T-RV6 b_eLY > b_in breaks H3", dc_sonic_check(&p), DC_SONIC_H3);
}

static void t_rv7(void)
{
	CHECK_EQ("T-RV7 buffer: 20 ports x 25 Gbit/s x 5.12 KB = 2,560,000 B", dc_rv_buffer_bytes(20, 25),
		 2560000);
	CHECK_EQ("T-RV7 BDP: 25 Gbit/s x 17.28 us = 54,000 B", dc_bytes_in_ns(25000, 17280), 54000);
	CHECK_EQ("T-RV7 headroom, 25 Gbit/s, 2 us, 1000 B packets: 2 x 1048 + 3860 + 2 x 6250 = 18456 B",
		 dc_rv_headroom_bytes(1000, 25000, 2000), 18456);
	CHECK("T-RV7 default gamma = 0.999 in Q32 (within 2^-32)",
	      fabs((double)DC_RV_DEFAULT_GAMMA_Q32 - 0.999 * 4294967296.0) <= 0.5, "%llu",
	      (unsigned long long)DC_RV_DEFAULT_GAMMA_Q32);
	CHECK_EQ("T-RV7 default alpha 1 for both classes", DC_RV_DEFAULT_ALPHA_Q16, 65536);
	CHECK_EQ("T-RV7 level: 10 KiB of q-hat is half congested at 20 KiB",
		 dc_rv_level_q16(10240ULL << 16, DC_RV_DEFAULT_CONG_BYTES), 32768);
	/* the largest values the configuration takes do not overflow */
	CHECK_EQ("T-RV7 Gamma at b* = 2^32 - 1, alpha 1024, n 1: 1024 (b* - q*) in Q16",
		 dc_rv_threshold_q16(0xffffffffULL, 0, DC_RV_ALPHA_MAX_Q16, DC_Q16_ONE),
		 0xffffffffULL * 1024 << 16);
	CHECK_EQ("T-RV7 filter at q = 2^32 - 1, gamma 0.999999",
		 dc_rv_filter(0xffffffffULL << 16, 0xffffffffULL, Q32(0.999999), true) >> 16,
		 0xffffffffULL);
}

int main(void)
{
	t_rv1_rv2();
	t_rv3();
	t_rv4();
	t_rv5();
	t_rv6();
	t_rv7();
	return check_failed;
}
