// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * SmartBuf (include/dcbpf/smartbuf.h) and EDT (include/dcbpf/edt.h)
 * against the cases of the Smartbuf chapter worked by hand
 * (docs/admission.md, "SmartBuf", "EDT"): the burst and burst-end tests
 * for B = 4 MB, σ = 5, β = 0.5; the gradient EWMA vector; a burst and a
 * non-burst trace; the k-NN thresholds 1.5667 MB and 2.0 MB; both
 * triggers; ageing; over-commit; EDT's state machine.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "dcbpf/admit.h"

#define Q16(x) ((__s64)((x) * 65536.0))
#define US 1000ULL

static const struct dc_sb_params lit = { .trigger = DC_SB_LITERAL, .age_us = DC_SB_AGE_NEVER };
static const struct dc_sb_params ons = { .trigger = DC_SB_ONSET, .age_us = DC_SB_AGE_NEVER };

static void put(struct dc_sb_main *m, __u32 i, double key, __u64 val, __u64 seen)
{
	m->e[i].key_q16 = Q16(key);
	m->e[i].max_bytes = val;
	m->e[i].seen_ns = seen;
	m->e[i].used = 1;
	m->e[i].hits = 1;
}

static __u32 nused(const struct dc_sb_main *m)
{
	__u32 i, n = 0;

	for (i = 0; i < DC_SB_ENTRIES; i++)
		n += m->e[i].used;
	return n;
}

static void test_params(void)
{
	__u32 sigma = (__u32)Q16(5), beta = (__u32)Q16(0.5);

	/* a burst: max_buf_seen > B/σ, B = 4 MiB → 838 860.8; 4·10^6 → 800 000 */
	CHECK("smartbuf σ = 5, B = 4 MiB: 838 861 B is a burst", dc_sb_is_burst(838861, 4194304, sigma),
	      "%s", "no");
	CHECK("smartbuf σ = 5, B = 4 MiB: 838 860 B is not", !dc_sb_is_burst(838860, 4194304, sigma),
	      "%s", "yes");
	CHECK("smartbuf σ = 5, B = 4·10^6: 800 000 B is not (strict >)",
	      !dc_sb_is_burst(800000, 4000000, sigma) && dc_sb_is_burst(800001, 4000000, sigma),
	      "%s", "wrong");
	CHECK("smartbuf β = 0.5: 0.59 MB < 0.5 × 1.2 MB ends the burst, 0.6 MB does not",
	      dc_sb_below_beta(590000, 1200000, beta) && !dc_sb_below_beta(600000, 1200000, beta),
	      "%s", "wrong");
}

static void test_ewma(void)
{
	struct dc_sb_port p = { 0 };
	struct dc_sb_main m = { 0 };
	static const __u64 q[] = { 0, 100, 200, 300, 200 };
	static const double want[] = { 0, 25, 43.75, 57.8125, 18.359375 };
	__u32 i, bad = 0;

	/* raw samples 100, 100, 100, −100 bytes/µs */
	CHECK_EQ("smartbuf ewma: 1/4·100 + 3/4·0 = 25", dc_sb_ewma(Q16(100), 0), Q16(25));
	for (i = 0; i < 5; i++) {
		dc_sb_sample(&p, &m, &lit, q[i], i * US, 4000000);
		if (p.grad_q16 != Q16(want[i]))
			bad = i + 1;
	}
	CHECK("smartbuf ewma from samples: G = 25, 43.75, 57.81, then 18.36 after a −100 (sign kept)",
	      !bad, "sample %u: G %lld", bad, (long long)p.grad_q16);
	CHECK_EQ("smartbuf ewma: a sample at the same time is not a sample",
		 dc_sb_sample(&p, &m, &lit, 900, 4 * US, 4000000), 0);
	CHECK_EQ("smartbuf ewma: ... and leaves G", p.grad_q16, Q16(18.359375));
	/* negative: floor(−100/4) = −25, floor((−1)/4) = −1 */
	CHECK("smartbuf ewma: negative values floor", dc_sb_ewma(Q16(-100), 0) == Q16(-25) &&
	      dc_sb_asr(-1, 2) == -1 && dc_sb_asr(-4, 2) == -1 && dc_sb_asr(5, 2) == 1,
	      "%lld", (long long)dc_sb_ewma(Q16(-100), 0));
}

/* Trace A (a burst) and B (not a burst), B = 4·10^6, σ = 5, β = 0.5. */
static void test_traces(void)
{
	struct dc_sb_port p = { 0 };
	struct dc_sb_main m = { 0 };
	__u64 t = 0, q;
	__s64 g_at_max = 0;

	for (q = 0; q <= 1200000; q += 100000, t += 100 * US) {
		dc_sb_sample(&p, &m, &lit, q, t, 4000000);
		if (q == 1200000)
			g_at_max = p.grad_q16;
	}
	CHECK("smartbuf trace A: rising to 1.2 MB, Temp[P] = [G at the max, 1.2 MB]",
	      p.max_bytes == 1200000 && p.key_q16 == g_at_max && g_at_max > 0 && !nused(&m),
	      "max %llu key %lld", (unsigned long long)p.max_bytes, (long long)p.key_q16);
	dc_sb_sample(&p, &m, &lit, 600000, t, 4000000);
	t += 100 * US;
	CHECK("smartbuf trace A: at 0.6 MB (= β·max) nothing is recorded yet", !nused(&m), "%u",
	      nused(&m));
	dc_sb_sample(&p, &m, &lit, 590000, t, 4000000);
	t += 100 * US;
	CHECK("smartbuf trace A: below 0.6 MB the pair goes into Main (1.2 MB > 0.8 MB)",
	      nused(&m) == 1 && m.e[0].max_bytes == 1200000 &&
	      m.e[0].key_q16 == dc_sb_quant(g_at_max) && p.bursts == 1,
	      "entries %u max %llu", nused(&m), (unsigned long long)m.e[0].max_bytes);
	CHECK("smartbuf trace A: Temp[P] reset after the insert (no second insert)",
	      p.max_bytes == 0 && p.key_q16 == 0, "max %llu", (unsigned long long)p.max_bytes);
	dc_sb_sample(&p, &m, &lit, 580000, t, 4000000);
	t += 100 * US;
	CHECK("smartbuf trace A: the next sample is a new maximum, not an insert",
	      nused(&m) == 1 && m.e[0].hits == 1 && p.max_bytes == 580000, "hits %u",
	      m.e[0].hits);

	/* trace B */
	memset(&p, 0, sizeof(p));
	for (q = 0; q <= 500000; q += 50000, t += 100 * US)
		dc_sb_sample(&p, &m, &lit, q, t, 4000000);
	dc_sb_sample(&p, &m, &lit, 240000, t, 4000000);
	CHECK("smartbuf trace B: max 0.5 MB then < 0.25 MB: Temp[P] = [0, 0], Main unchanged",
	      p.max_bytes == 0 && p.key_q16 == 0 && nused(&m) == 1 && m.e[0].hits == 1 &&
	      p.thresh_bytes == 0 && p.bursts == 0,
	      "max %llu entries %u", (unsigned long long)p.max_bytes, nused(&m));
}

static void test_knn(void)
{
	struct dc_sb_main m = { 0 };

	CHECK_EQ("smartbuf knn: empty Main → 0 (DT)", dc_sb_knn(&m, Q16(15), 3, 0, 0), 0);
	put(&m, 0, 10, 900000, 1);
	put(&m, 5, 20, 1200000, 1);
	put(&m, 9, 30, 1500000, 1);
	put(&m, 17, 40, 2000000, 1);
	CHECK_EQ("smartbuf knn: g = 15, K = 3 → mean of the values of 20, 30, 40 = 1.5667 MB",
		 dc_sb_knn(&m, Q16(15), 3, 0, 0), 1566666);
	CHECK_EQ("smartbuf knn: g = 35 → only 40 is above: 2.0 MB (k = 1)",
		 dc_sb_knn(&m, Q16(35), 3, 0, 0), 2000000);
	CHECK_EQ("smartbuf knn: g = 20 → keys strictly above (30, 40): 1.75 MB",
		 dc_sb_knn(&m, Q16(20), 3, 0, 0), 1750000);
	CHECK_EQ("smartbuf knn: g = 45 → none above: the largest key's value, 2.0 MB",
		 dc_sb_knn(&m, Q16(45), 3, 0, 0), 2000000);
	CHECK_EQ("smartbuf knn: K = 1, g = 15 → the nearest above, 1.2 MB",
		 dc_sb_knn(&m, Q16(15), 1, 0, 0), 1200000);
	CHECK_EQ("smartbuf knn: g = 0 → the three smallest keys: 1.2 MB",
		 dc_sb_knn(&m, 0, 3, 0, 0), 1200000);
	/* soft state: key 20 refreshed at 1 ns, the rest at 900 ms; age 1 s at t = 1.5 s */
	m.e[0].seen_ns = m.e[9].seen_ns = m.e[17].seen_ns = 900000000ULL;
	CHECK_EQ("smartbuf knn: an entry older than the age is ignored (g = 15 → 30, 40: 1.75 MB)",
		 dc_sb_knn(&m, Q16(15), 3, 1500000000ULL, 1000000000ULL), 1750000);
	CHECK_EQ("smartbuf knn: everything aged → 0 (DT)",
		 dc_sb_knn(&m, Q16(15), 3, 5000000000ULL, 1000000000ULL), 0);
}

static void test_insert(void)
{
	struct dc_sb_main m = { 0 };
	__u32 i;

	CHECK_EQ("smartbuf quant: 10 B/µs (1010b) is kept", dc_sb_quant(Q16(10)), Q16(10));
	CHECK_EQ("smartbuf quant: 23 (10111b) → 22 (4 significant bits)", dc_sb_quant(Q16(23)),
		 Q16(22));
	CHECK_EQ("smartbuf quant: −23 → −22", dc_sb_quant(Q16(-23)), Q16(-22));
	CHECK_EQ("smartbuf quant: 7 stays 7", dc_sb_quant(7), 7);
	dc_sb_insert(&m, Q16(22), 1000000, 10, 0);
	dc_sb_insert(&m, Q16(22), 900000, 20, 0);
	CHECK("smartbuf insert: the same key keeps the larger value and is refreshed",
	      nused(&m) == 1 && m.e[0].max_bytes == 1000000 && m.e[0].seen_ns == 20 && m.e[0].hits == 2,
	      "n %u max %llu", nused(&m), (unsigned long long)m.e[0].max_bytes);
	dc_sb_insert(&m, Q16(22), 1100000, 30, 0);
	CHECK_EQ("smartbuf insert: ... and takes a higher upper bound", m.e[0].max_bytes, 1100000);
	for (i = 1; i < DC_SB_ENTRIES; i++)
		dc_sb_insert(&m, Q16(100 + 16 * i), 1000 + i, 100 + i, 0);
	CHECK_EQ("smartbuf insert: the table fills", nused(&m), DC_SB_ENTRIES);
	dc_sb_insert(&m, Q16(5000), 7, 1000, 0);
	CHECK("smartbuf insert: a full table replaces the least recently refreshed entry",
	      m.e[0].key_q16 == Q16(5000) && m.e[0].max_bytes == 7 && nused(&m) == DC_SB_ENTRIES,
	      "slot 0 key %lld", (long long)m.e[0].key_q16);
	/* an aged entry is reused before the oldest live one */
	m.e[7].seen_ns = 1;
	dc_sb_insert(&m, Q16(9000), 8, 1000000050ULL, 1000000000ULL);
	CHECK_EQ("smartbuf insert: an aged entry is reused first", m.e[7].max_bytes, 8);
}

/* A queue rising 1500 B/µs to 1.2 MB, then down to 0.5 MB: the onset
 * trigger provisions during the rise, the literal one at the end. */
static void test_triggers(void)
{
	struct dc_sb_main m0 = { 0 }, m;
	struct dc_sb_port p;
	__u64 q, t, B = 4000000, during = 0;
	__s64 gmax = 0;

	put(&m0, 0, 1000, 900000, 1);
	put(&m0, 1, 2000, 1200000, 1);
	put(&m0, 2, 4000, 2000000, 1);

	m = m0;
	memset(&p, 0, sizeof(p));
	for (q = 0, t = 0; q <= 1200000; q += 1500, t += US) {
		dc_sb_sample(&p, &m, &ons, q, t, B);
		if (p.grad_q16 > gmax)
			gmax = p.grad_q16;
		if (q == 60000)
			during = p.thresh_bytes;
	}
	CHECK_EQ("smartbuf onset: below onset·B (2 % = 80 kB) the port stays on DT", during, 0);
	CHECK_EQ("smartbuf onset: rising at 1500 B/µs: keys 2000, 4000 above → 1.6 MB during the burst",
		 p.thresh_bytes, 1600000);
	{
		struct dc_adm_in in = { .q = 1600000, .Q = 1700000, .B = B, .len = 1500,
					.alpha_q16 = (__u32)Q16(0.5) };
		__u64 thr;

		CHECK("smartbuf onset: q = 1.6 MB meets the learned threshold (DT would give 1.15 MB)",
		      dc_adm_decide_sb(DC_ALG_SMARTBUF, &in, &p, NULL, &thr) == DC_V_DROP_THRESH &&
		      thr == 1600000, "thr %llu", (unsigned long long)thr);
		in.q = 1500000;
		CHECK_EQ("smartbuf onset: q = 1.5 MB is admitted above DT's 1.15 MB",
			 dc_adm_decide_sb(DC_ALG_SMARTBUF, &in, &p, NULL, &thr), DC_V_ADMIT);
	}
	dc_sb_sample(&p, &m, &ons, 500000, t, B);
	CHECK("smartbuf onset: the burst's end: back to DT, (largest G, 1.2 MB) into Main",
	      p.thresh_bytes == 0 && nused(&m) == 4 && m.e[3].max_bytes == 1200000 &&
	      m.e[3].key_q16 == dc_sb_quant(gmax),
	      "thresh %llu n %u key %lld want %lld", (unsigned long long)p.thresh_bytes, nused(&m),
	      (long long)m.e[3].key_q16, (long long)dc_sb_quant(gmax));

	m = m0;
	memset(&p, 0, sizeof(p));
	for (q = 0, t = 0; q <= 1200000; q += 1500, t += US)
		dc_sb_sample(&p, &m, &lit, q, t, B);
	CHECK_EQ("smartbuf literal: no threshold while the burst rises", p.thresh_bytes, 0);
	dc_sb_sample(&p, &m, &lit, 500000, t, B);
	CHECK("smartbuf literal: at the end, G < 0: the three smallest keys (before the insert) → 1.3667 MB, kept",
	      p.thresh_bytes == 1366666 && nused(&m) == 4, "thresh %llu n %u",
	      (unsigned long long)p.thresh_bytes, nused(&m));
	dc_sb_sample(&p, &m, &lit, 400000, t + US, B);
	CHECK_EQ("smartbuf literal: the threshold stays until the next burst end", p.thresh_bytes,
		 1366666);
}

/* Two ports whose learned thresholds add up to more than B: first come,
 * first served, then drops for lack of memory. */
static void test_overcommit(void)
{
	struct dc_sb_port a = { .thresh_bytes = 700000 }, b = { .thresh_bytes = 700000 };
	struct dc_adm_in in = { .B = 1000000, .len = 1000, .alpha_q16 = (__u32)Q16(0.5) };
	__u64 qa = 0, qb = 0, thr, dropa = 0, dropb_full = 0, dropb_thr = 0;
	__u32 i;

	for (i = 0; i < 650; i++) {	/* port A: 650 kB, under its 700 kB */
		in.q = qa;
		in.Q = qa + qb;
		if (dc_adm_decide_sb(DC_ALG_SMARTBUF, &in, &a, NULL, &thr) == DC_V_ADMIT)
			qa += 1000;
		else
			dropa++;
	}
	for (i = 0; i < 600; i++) {	/* port B wants 600 kB of its 700 kB */
		enum dc_verdict v;

		in.q = qb;
		in.Q = qa + qb;
		v = dc_adm_decide_sb(DC_ALG_SMARTBUF, &in, &b, NULL, &thr);
		if (v == DC_V_ADMIT)
			qb += 1000;
		else if (v == DC_V_DROP_FULL)
			dropb_full++;
		else
			dropb_thr++;
	}
	CHECK("smartbuf over-commit: A gets its 650 kB, B the 350 kB left, then drops for lack of memory",
	      qa == 650000 && !dropa && qb == 350000 && dropb_full == 250 && !dropb_thr,
	      "qa %llu qb %llu full %llu thr %llu", (unsigned long long)qa, (unsigned long long)qb,
	      (unsigned long long)dropb_full, (unsigned long long)dropb_thr);
}

static void test_edt(void)
{
	const struct dc_edt_params c = { .rise = 3, .max_us = 100 };
	struct dc_edt_port p = { 0 };
	struct dc_adm_in in = { .q = 30000, .Q = 40000, .B = 100000, .len = 1000,
				.alpha_q16 = (__u32)Q16(0.5) };
	__u64 thr, t = 0;

	CHECK("edt controlled: T = DT (α(B − Q) = 30 000), q = 30 000 drops",
	      dc_adm_decide_sb(DC_ALG_EDT, &in, NULL, &p, &thr) == DC_V_DROP_THRESH && thr == 30000,
	      "thr %llu", (unsigned long long)thr);
	dc_edt_sample(&p, &c, 1000, t += US);		/* primes */
	dc_edt_sample(&p, &c, 2000, t += US);
	dc_edt_sample(&p, &c, 3000, t += US);
	dc_edt_sample(&p, &c, 2500, t += US);		/* a dip resets the run */
	dc_edt_sample(&p, &c, 3000, t += US);
	dc_edt_sample(&p, &c, 4000, t += US);
	CHECK_EQ("edt: two rises, a dip, two rises: still controlled", p.state, DC_EDT_CONTROLLED);
	CHECK_EQ("edt: a sample at the same time is not a sample", dc_edt_sample(&p, &c, 9000, t), 0);
	dc_edt_sample(&p, &c, 5000, t += US);
	CHECK("edt: the third consecutive rise → uncontrolled", p.state == DC_EDT_UNCONTROLLED &&
	      p.bursts == 1, "state %u", p.state);
	CHECK("edt uncontrolled: T = B, q = 30 000 is admitted",
	      dc_adm_decide_sb(DC_ALG_EDT, &in, NULL, &p, &thr) == DC_V_ADMIT && thr == 100000,
	      "thr %llu", (unsigned long long)thr);
	in.Q = 99500;
	CHECK_EQ("edt uncontrolled: the buffer still has to hold it (Q + len > B drops)",
		 dc_adm_decide_sb(DC_ALG_EDT, &in, NULL, &p, &thr), DC_V_DROP_FULL);
	in.Q = 40000;
	dc_edt_sample(&p, &c, 4000, t += US);
	dc_edt_sample(&p, &c, 3000, t += US);
	CHECK_EQ("edt: two falls: still uncontrolled", p.state, DC_EDT_UNCONTROLLED);
	dc_edt_sample(&p, &c, 2000, t += US);
	CHECK_EQ("edt: the third fall (the burst is gone) → controlled", p.state, DC_EDT_CONTROLLED);
	dc_edt_sample(&p, &c, 3000, t += US);
	dc_edt_sample(&p, &c, 4000, t += US);
	dc_edt_sample(&p, &c, 5000, t += US);
	CHECK_EQ("edt: a new burst → uncontrolled", p.state, DC_EDT_UNCONTROLLED);
	dc_edt_sample(&p, &c, 6000, t += 50 * US);
	CHECK_EQ("edt: 50 µs later still uncontrolled (max 100 µs)", p.state, DC_EDT_UNCONTROLLED);
	dc_edt_sample(&p, &c, 7000, t += 51 * US);
	CHECK("edt: uncontrolled for more than max_us → overloaded, T = DT",
	      p.state == DC_EDT_OVERLOADED && dc_adm_decide_sb(DC_ALG_EDT, &in, NULL, &p, &thr) ==
	      DC_V_DROP_THRESH && thr == 30000, "state %u thr %llu", p.state, (unsigned long long)thr);
	dc_edt_sample(&p, &c, 8000, t += US);
	dc_edt_sample(&p, &c, 9000, t += US);
	dc_edt_sample(&p, &c, 10000, t += US);
	dc_edt_sample(&p, &c, 5000, t += US);
	CHECK_EQ("edt overloaded: rising again does not take the whole buffer", p.state,
		 DC_EDT_OVERLOADED);
	dc_edt_sample(&p, &c, 0, t += US);
	CHECK_EQ("edt overloaded: an empty queue → controlled", p.state, DC_EDT_CONTROLLED);
	dc_edt_sample(&p, &c, 1000, t += US);
	dc_edt_sample(&p, &c, 2000, t += US);
	dc_edt_sample(&p, &c, 3000, t += US);
	dc_edt_sample(&p, &c, 0, t += US);
	CHECK("edt uncontrolled: an empty queue → controlled at once",
	      p.state == DC_EDT_CONTROLLED && p.bursts == 3, "state %u bursts %u", p.state, p.bursts);
}

int main(void)
{
	test_params();
	test_ewma();
	test_traces();
	test_knn();
	test_insert();
	test_triggers();
	test_overcommit();
	test_edt();
	return check_failed;
}
