// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * ICTCP's law (include/dcbpf/ictcp.h), worked cases built from the rules
 * of Wu et al., CoNEXT'10, §4 with alpha 0.9, beta 0.75, gamma 0.1 / 0.5:
 * BW_A = max(0, 0.9 C - BW_T) on a 1 Gbit/s link; b_m as the max of the
 * sample and its EWMA; b_e and d; +mss only in the second sub-slot and only
 * while the quota (mss/rtt each) lasts; -mss after the third period in a
 * row with d > 0.5, never below 2 mss; keep in between (and the run of
 * d > 0.5 restarts); the slot's sub-slots, its T from the mean RTT, bytes
 * counted in the first sub-slot only.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "dcbpf/ictcp.h"

#define MSS 1448
#define RTT_NS 100000ULL	/* 100 us */
#define GBIT_KBPS 1000000ULL

static struct dc_ictcp_cfg cfg;

static void formulas(void)
{
	CHECK_EQ("rate: 5000 B in 100 us = 50,000,000 B/s", dc_ictcp_rate_Bps(5000, RTT_NS), 50000000);
	CHECK_EQ("rate over 0 ns: 0", dc_ictcp_rate_Bps(5000, 0), 0);
	/* 0.9 * 125,000,000 B/s = 112,500,000 (Q16 0.9 rounds it down by < 0.001 %) */
	CHECK_RANGE("BW_A: 0.9 * 1 Gbit/s - 50 MB/s = 62.5 MB/s",
		    dc_ictcp_bw_avail_Bps(GBIT_KBPS, DC_ICTCP_ALPHA_Q16, 50000000), 62499000, 62500000);
	CHECK_EQ("BW_A is 0 when BW_T exceeds 0.9 C",
		 dc_ictcp_bw_avail_Bps(GBIT_KBPS, DC_ICTCP_ALPHA_Q16, 120000000), 0);
	CHECK_EQ("b_m: EWMA 0.75 * 10M + 0.25 * 2M = 8M above the 2M sample",
		 dc_ictcp_bm_Bps(10000000, 2000000, DC_ICTCP_BETA_Q16), 8000000);
	CHECK_EQ("b_m: a 4M sample above its EWMA (1.75M) is taken as it is",
		 dc_ictcp_bm_Bps(1000000, 4000000, DC_ICTCP_BETA_Q16), 4000000);
	CHECK_EQ("b_e: 2 mss / 100 us = 28.96 MB/s above b_m 8 MB/s",
		 dc_ictcp_be_Bps(8000000, 2 * MSS, RTT_NS), 28960000);
	CHECK_EQ("b_e: b_m when it exceeds rwnd/rtt", dc_ictcp_be_Bps(40000000, 2 * MSS, RTT_NS), 40000000);
	CHECK_EQ("d: (28.96 - 8) / 28.96 = 0.7238 in Q16", dc_ictcp_d_q16(28960000, 8000000), 47432);
	CHECK_EQ("d: 0 when b_e is 0", dc_ictcp_d_q16(0, 0), 0);
	CHECK_EQ("d: 0 when b_m = b_e", dc_ictcp_d_q16(5, 5), 0);
}

/* A slot already in its second sub-slot with BW_A = 62.5 MB/s as quota. */
static void second_subslot(struct dc_ictcp_slot *s)
{
	memset(s, 0, sizeof(*s));
	s->rtt_ns = RTT_NS;
	dc_ictcp_slot_advance(s, &cfg, 1000000, 0);			/* slot opens at 1 ms */
	dc_ictcp_slot_advance(s, &cfg, 1000000 + 50000, 5000);		/* 5000 B in the first */
	dc_ictcp_slot_advance(s, &cfg, 1000000 + RTT_NS, 0);		/* T = 100 us later */
}

static void slot(void)
{
	struct dc_ictcp_slot s;
	int granted = 0;

	memset(&s, 0, sizeof(s));
	dc_ictcp_slot_advance(&s, &cfg, 1000000, 0);
	CHECK_EQ("no RTT yet: T floors at 1 us", s.subslot_ns, 1000);
	second_subslot(&s);
	CHECK_EQ("T is the mean RTT, 100 us", s.subslot_ns, RTT_NS);
	CHECK_EQ("one slot begun", s.slots, 1);
	CHECK_EQ("in the second sub-slot after T", s.second, 1);
	CHECK_EQ("BW_T = 5000 B / 100 us", s.bw_t_Bps, 50000000);
	CHECK_RANGE("quota = BW_A = 62.5 MB/s", s.quota_Bps, 62499000, 62500000);
	dc_ictcp_slot_advance(&s, &cfg, 1000000 + 150000, 9999);
	CHECK_EQ("bytes of the second sub-slot are not measured", s.bytes_first, 5000);
	/* each raise costs mss/rtt = 14.48 MB/s: four fit into 62.5 MB/s */
	while (dc_ictcp_slot_take(&s, dc_ictcp_rate_Bps(MSS, RTT_NS)))
		granted++;
	CHECK_EQ("the quota grants 4 raises of 14.48 MB/s, not 5", granted, 4);
	CHECK_RANGE("what is left: 62.5 - 57.92 = 4.58 MB/s", s.quota_Bps, 4579000, 4580000);
	dc_ictcp_slot_advance(&s, &cfg, 1000000 + 2 * RTT_NS, 100);
	CHECK("after 2T a new slot: first sub-slot, no quota, bytes counted",
	      s.slots == 2 && !s.second && !s.quota_Bps && s.bytes_first == 100, "slots %llu second %u",
	      (unsigned long long)s.slots, s.second);
	CHECK_EQ("a raise in the first sub-slot is refused", dc_ictcp_slot_take(&s, 1), 0);
	dc_ictcp_slot_rtt(&s, 900000);
	CHECK_EQ("mean RTT: 100 us + (900 - 100) / 8 = 200 us", s.rtt_ns, 200000);
	dc_ictcp_slot_advance(&s, &cfg, 500, 0);
	CHECK("time going back starts a slot, T from the new mean", s.slots == 3 && s.subslot_ns == 200000,
	      "slots %llu T %llu", (unsigned long long)s.slots, (unsigned long long)s.subslot_ns);
	cfg.min_subslot_us = 300;
	dc_ictcp_slot_advance(&s, &cfg, 500 + 2 * 200000, 0);
	CHECK_EQ("T never below min_subslot_us (300 us)", s.subslot_ns, 300000);
	cfg.min_subslot_us = 0;
	memset(&s, 0, sizeof(s));
	s.rtt_ns = RTT_NS;
	dc_ictcp_slot_advance(&s, &cfg, 0, 0);
	dc_ictcp_slot_advance(&s, &cfg, RTT_NS, 0);
	CHECK("nothing received: BW_A = 0.9 C whole", s.bw_t_Bps == 0 && s.quota_Bps >= 112499000 &&
	      s.quota_Bps <= 112500000, "quota %llu", (unsigned long long)s.quota_Bps);
}

static void increase(void)
{
	struct dc_ictcp_conn k = { .rwnd_bytes = 2 * MSS };
	struct dc_ictcp_slot s;
	enum dc_ictcp_act a;
	__u64 now = 2000000, rcvd = 0;
	int i;

	second_subslot(&s);
	/* the connection fills its window: 2 mss per RTT -> d = 0 */
	k.period_ns = now - 2 * RTT_NS;
	rcvd = 2 * 2 * MSS;
	CHECK_EQ("period due after 2 RTTs", dc_ictcp_period_due(&k, now, RTT_NS), 1);
	CHECK_EQ("period not due after 1 RTT", dc_ictcp_period_due(&k, now - RTT_NS, RTT_NS), 0);
	a = dc_ictcp_period(&k, &s, &cfg, now, rcvd, RTT_NS, MSS);
	CHECK("d = 0 in the second sub-slot with quota: +1 mss", a == DC_ICTCP_INC &&
	      k.rwnd_bytes == 3 * MSS && k.d_q16 == 0 && k.bm_Bps == 28960000, "act %d rwnd %u d %u bm %llu",
	      a, k.rwnd_bytes, k.d_q16, (unsigned long long)k.bm_Bps);
	CHECK_RANGE("the raise took mss/rtt off the quota", s.quota_Bps, 62499000 - 14480000, 62500000 - 14480000);
	CHECK("the next period begins now with the bytes so far", k.period_ns == now && k.period_bytes == rcvd,
	      "%llu %llu", (unsigned long long)k.period_ns, (unsigned long long)k.period_bytes);
	/* four connections like it share the rest: 3 more raises, then none */
	for (i = 0; i < 4; i++) {
		struct dc_ictcp_conn o = { .rwnd_bytes = 2 * MSS, .period_ns = now - 2 * RTT_NS };

		a = dc_ictcp_period(&o, &s, &cfg, now, 2 * 2 * MSS, RTT_NS, MSS);
		CHECK(i < 3 ? "shared quota: another connection raised" : "shared quota spent: no raise",
		      i < 3 ? a == DC_ICTCP_INC && o.rwnd_bytes == 3 * MSS :
			      a == DC_ICTCP_INC_NOQUOTA && o.rwnd_bytes == 2 * MSS, "act %d rwnd %u", a, o.rwnd_bytes);
	}
	/* d exactly gamma1 (b_m = 0.9 b_e) still raises; the first sub-slot never */
	{
		struct dc_ictcp_conn o = { .rwnd_bytes = 10 * MSS, .period_ns = 0, .bm_Bps = 0 };
		struct dc_ictcp_slot f;

		second_subslot(&f);
		/* 10 mss / 1 ms = 14.48 MB/s; 0.9 of it over 2 ms: 26,064 B */
		a = dc_ictcp_period(&o, &f, &cfg, 2000000, 26064, 1000000, MSS);
		CHECK("d = 0.1 (b_m = 0.9 b_e) counts as d <= gamma1", a == DC_ICTCP_INC && o.d_q16 <= 6554,
		      "act %d d %u", a, o.d_q16);
		memset(&f, 0, sizeof(f));
		f.rtt_ns = RTT_NS;
		dc_ictcp_slot_advance(&f, &cfg, 0, 0);
		o.period_ns = 0;
		o.period_bytes = 0;
		o.rwnd_bytes = 2 * MSS;
		o.bm_Bps = 0;
		a = dc_ictcp_period(&o, &f, &cfg, 2 * RTT_NS - 1 + 1, 2 * 2 * MSS, RTT_NS, MSS);
		CHECK("d = 0 in the first sub-slot: no raise", a == DC_ICTCP_INC_NOQUOTA && o.rwnd_bytes == 2 * MSS,
		      "act %d rwnd %u second %u", a, o.rwnd_bytes, f.second);
	}
}

static void decrease(void)
{
	struct dc_ictcp_conn k = { .rwnd_bytes = 4 * MSS };
	struct dc_ictcp_slot s;
	enum dc_ictcp_act a1, a2, a3, a4;
	__u64 t = 200000;

	second_subslot(&s);
	/* 1000 B per 200 us = 5 MB/s against b_e = 4 mss / 100 us = 57.92 MB/s: d = 0.914 */
	a1 = dc_ictcp_period(&k, &s, &cfg, t, 1000, RTT_NS, MSS);
	CHECK("d = 0.914 > 0.5, first period: wait", a1 == DC_ICTCP_DEC_WAIT && k.dec_rounds == 1 &&
	      k.d_q16 == 59878 && k.rwnd_bytes == 4 * MSS, "act %d rounds %u d %u", a1, k.dec_rounds, k.d_q16);
	a2 = dc_ictcp_period(&k, &s, &cfg, 2 * t, 2000, RTT_NS, MSS);
	CHECK("second period: wait", a2 == DC_ICTCP_DEC_WAIT && k.rwnd_bytes == 4 * MSS, "act %d", a2);
	a3 = dc_ictcp_period(&k, &s, &cfg, 3 * t, 3000, RTT_NS, MSS);
	CHECK("third period in a row: -1 mss", a3 == DC_ICTCP_DEC && k.rwnd_bytes == 3 * MSS &&
	      k.dec_rounds == 0, "act %d rwnd %u", a3, k.rwnd_bytes);
	/* three more: 3 mss -> 2 mss; three more: at the floor */
	dc_ictcp_period(&k, &s, &cfg, 4 * t, 4000, RTT_NS, MSS);
	dc_ictcp_period(&k, &s, &cfg, 5 * t, 5000, RTT_NS, MSS);
	a4 = dc_ictcp_period(&k, &s, &cfg, 6 * t, 6000, RTT_NS, MSS);
	CHECK("-1 mss again down to 2 mss", a4 == DC_ICTCP_DEC && k.rwnd_bytes == 2 * MSS, "act %d rwnd %u",
	      a4, k.rwnd_bytes);
	dc_ictcp_period(&k, &s, &cfg, 7 * t, 7000, RTT_NS, MSS);
	dc_ictcp_period(&k, &s, &cfg, 8 * t, 8000, RTT_NS, MSS);
	a4 = dc_ictcp_period(&k, &s, &cfg, 9 * t, 9000, RTT_NS, MSS);
	CHECK("never below 2 mss", a4 == DC_ICTCP_DEC_FLOOR && k.rwnd_bytes == 2 * MSS, "act %d rwnd %u", a4,
	      k.rwnd_bytes);
	/* a keep in between restarts the run: 2 x d > 0.5, keep, 2 x d > 0.5: no decrease */
	memset(&k, 0, sizeof(k));
	k.rwnd_bytes = 4 * MSS;
	dc_ictcp_period(&k, &s, &cfg, t, 1000, RTT_NS, MSS);
	dc_ictcp_period(&k, &s, &cfg, 2 * t, 2000, RTT_NS, MSS);
	/* 8000 B in 200 us = 40 MB/s: b_m 40M, b_e 57.92M, d = 0.309: keep */
	a1 = dc_ictcp_period(&k, &s, &cfg, 3 * t, 10000, RTT_NS, MSS);
	CHECK("gamma1 < d = 0.309 <= gamma2: keep, the run of d > 0.5 restarts",
	      a1 == DC_ICTCP_KEEP && k.dec_rounds == 0 && k.rwnd_bytes == 4 * MSS, "act %d rounds %u d %u", a1,
	      k.dec_rounds, k.d_q16);
	/* b_m decays by beta per idle period: 30M, 22.5M (d 0.61 > 0.5) ... */
	a1 = dc_ictcp_period(&k, &s, &cfg, 4 * t, 10000, RTT_NS, MSS);
	a2 = dc_ictcp_period(&k, &s, &cfg, 5 * t, 10000, RTT_NS, MSS);
	CHECK("idle: b_m 40 -> 30 (d 0.48, keep) -> 22.5 MB/s (d 0.61, wait): no decrease yet",
	      a1 == DC_ICTCP_KEEP && a2 == DC_ICTCP_DEC_WAIT && k.bm_Bps == 22500000 && k.rwnd_bytes == 4 * MSS,
	      "acts %d %d bm %llu", a1, a2, (unsigned long long)k.bm_Bps);
	/* d exactly gamma2 keeps: b_m = b_e / 2 */
	memset(&k, 0, sizeof(k));
	k.rwnd_bytes = 4 * MSS;
	a1 = dc_ictcp_period(&k, &s, &cfg, t, 5792, RTT_NS, MSS);
	CHECK("d = 0.5 exactly (b_m 28.96M, b_e 57.92M): keep", a1 == DC_ICTCP_KEEP && k.d_q16 == 32768,
	      "act %d d %u", a1, k.d_q16);
}

int main(void)
{
	dc_ictcp_cfg_default(&cfg, GBIT_KBPS);
	formulas();
	slot();
	increase();
	decrease();
	return check_failed;
}
