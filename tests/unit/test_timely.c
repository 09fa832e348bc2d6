// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * Host unit tests of the TIMELY control law (include/dcbpf/timely.h)
 * against hand-worked cases of TIMELY, SIGCOMM'15, Algorithm 1: each of
 * the four branches, the EWMA of the RTT difference, hyper-active increase
 * after five completions, the rate's bounds, the first completion, ACKs
 * without an RTT sample, segments across the sequence wrap, and the
 * window the rate maps to.
 */
#include <string.h>

#include "check.h"
#include "dcbpf/timely.h"

#define Q(x) ((__u32)((x) * (double)DC_Q16_ONE + 0.5))
#define LINE_KBPS 1000000	/* 1 Gbit/s */

static struct dc_cc_cfg cfg_default(void)
{
	struct dc_cc_cfg c = {
		.base_rtt_us = 50,
		.host_bw_mbps = 1000,
		.expected_flows = 10,
		.min_cwnd_pkts = 2,
		.pacing = 1,
		.t_low_us = DC_TIMELY_DEFAULT_T_LOW_US,
		.t_high_us = DC_TIMELY_DEFAULT_T_HIGH_US,
		.delta_mbps = DC_TIMELY_DEFAULT_DELTA_MBPS,
		.md_beta_q16 = DC_TIMELY_DEFAULT_BETA_Q16,
		.alpha_q16 = DC_TIMELY_DEFAULT_ALPHA_Q16,
	};
	return c;
}

static void start(struct dc_timely_state *st, struct dc_timely_params *p, __u32 rate_kbps,
		  __u32 prev_rtt_us)
{
	struct dc_cc_cfg c = cfg_default();

	dc_timely_params(&c, p);
	dc_timely_state_init(st, &c, 0, 0, 0);
	st->rate_kbps = rate_kbps;
	st->prev_rtt_us = prev_rtt_us;
}

static void test_params(void)
{
	struct dc_cc_cfg c = cfg_default();
	struct dc_timely_params p;

	c.t_low_us = c.t_high_us = c.delta_mbps = c.md_beta_q16 = c.alpha_q16 = 0;
	dc_timely_params(&c, &p);
	CHECK_EQ("T_high default", p.t_high_us, 500);
	CHECK_EQ("delta default 10 Mbit/s", p.delta_kbps, 10000);
	CHECK_EQ("beta default 0.8", p.beta_q16, DC_TIMELY_DEFAULT_BETA_Q16);
	CHECK_EQ("alpha default 0.875", p.alpha_q16, DC_TIMELY_DEFAULT_ALPHA_Q16);
	CHECK_EQ("T_low 0 disables the branch", p.t_low_us, 0);
	CHECK_EQ("max rate = host NIC", p.max_kbps, LINE_KBPS);
	c.host_bw_mbps = 5;
	dc_timely_params(&c, &p);
	CHECK_EQ("floor never above the NIC rate", p.min_kbps, 5000);
}

static void test_branches(void)
{
	struct dc_timely_state st;
	struct dc_timely_params p;
	__u32 act;

	/* first completion: prev_rtt only */
	start(&st, &p, 500000, 0);
	act = dc_timely_completion(&st, &p, 120, 50);
	CHECK_EQ("first completion: no action", act, DC_TIMELY_NONE);
	CHECK_EQ("first completion: rate unchanged", st.rate_kbps, 500000);
	CHECK_EQ("first completion: prev_rtt set", st.prev_rtt_us, 120);

	/* new_rtt < T_low: +δ */
	start(&st, &p, 500000, 45);
	act = dc_timely_completion(&st, &p, 40, 50);
	CHECK_EQ("below T_low: action", act, DC_TIMELY_LOW);
	CHECK_EQ("below T_low: R + delta", st.rate_kbps, 510000);

	/* new_rtt > T_high: R·(1 − β(1 − T_high/new_rtt)) = R·(1 − 0.8·0.5) */
	start(&st, &p, LINE_KBPS, 900);
	act = dc_timely_completion(&st, &p, 1000, 50);
	CHECK_EQ("above T_high: action", act, DC_TIMELY_HIGH);
	CHECK_RANGE("above T_high: R * 0.6", st.rate_kbps, 599990, 600010);

	/* gradient > 0: prev 100, new 120, rtt_diff = 0.875·20 µs = 17.5 µs,
	 * g = 17.5/50 = 0.35, R·(1 − 0.8·0.35) = 0.72 R */
	start(&st, &p, LINE_KBPS, 100);
	act = dc_timely_completion(&st, &p, 120, 50);
	CHECK_EQ("g > 0: action", act, DC_TIMELY_DEC);
	CHECK_EQ("rtt_diff = alpha * new diff", st.rtt_diff_ns, 17500);
	CHECK_RANGE("g = 0.35", st.grad_q16, Q(0.35) - 1, Q(0.35) + 1);
	CHECK_RANGE("g > 0: R * 0.72", st.rate_kbps, 719900, 720100);

	/* gradient ≤ 0 (RTT falling) inside [T_low, T_high]: +δ */
	start(&st, &p, 500000, 120);
	act = dc_timely_completion(&st, &p, 100, 50);
	CHECK_EQ("g <= 0: action", act, DC_TIMELY_INC);
	CHECK_EQ("g <= 0: R + delta", st.rate_kbps, 510000);
	CHECK("g < 0", st.grad_q16 < 0, "g %d", st.grad_q16);

	/* EWMA: rtt_diff = (1 − α)·old + α·new = 0.125·17500 + 0.875·(−20000) */
	st.rtt_diff_ns = 17500;
	st.prev_rtt_us = 120;
	dc_timely_completion(&st, &p, 100, 50);
	CHECK_RANGE("rtt_diff ewma", st.rtt_diff_ns, -15313 - 1, -15313 + 1);
}

/* Five completions in a row with g ≤ 0: the fifth adds 5δ (HAI); one
 * positive gradient ends it. */
static void test_hai(void)
{
	struct dc_timely_state st;
	struct dc_timely_params p;
	__u32 i, act = 0, r;

	start(&st, &p, 300000, 100);
	for (i = 1; i <= 4; i++) {
		act = dc_timely_completion(&st, &p, 100, 50);
		CHECK_EQ("completions 1-4 with g = 0: +delta", act, DC_TIMELY_INC);
	}
	CHECK_EQ("4 increases of delta", st.rate_kbps, 340000);
	act = dc_timely_completion(&st, &p, 100, 50);
	CHECK_EQ("fifth: HAI", act, DC_TIMELY_HAI);
	CHECK_EQ("HAI adds 5 delta", st.rate_kbps, 390000);
	act = dc_timely_completion(&st, &p, 100, 50);
	CHECK_EQ("stays HAI", act, DC_TIMELY_HAI);
	/* below T_low also counts toward HAI (g ≤ 0) but adds δ only */
	act = dc_timely_completion(&st, &p, 40, 50);
	CHECK_EQ("below T_low wins over HAI", act, DC_TIMELY_LOW);
	r = st.rate_kbps;
	act = dc_timely_completion(&st, &p, 60, 50);	/* RTT up: g > 0 */
	CHECK_EQ("positive gradient decreases", act, DC_TIMELY_DEC);
	CHECK("decrease lowers R", st.rate_kbps < r, "%u !< %u", st.rate_kbps, r);
	CHECK_EQ("positive gradient resets the count", st.neg_count, 0);
	act = dc_timely_completion(&st, &p, 59, 50);
	CHECK("after the reset: not HAI", act != DC_TIMELY_HAI, "act %u", act);
}

static void test_bounds(void)
{
	struct dc_timely_state st;
	struct dc_timely_params p;

	/* a gradient ≥ 1/β cuts to the floor, never to 0 */
	start(&st, &p, LINE_KBPS, 50);
	dc_timely_completion(&st, &p, 200, 50);	/* g = 0.875·150/50 = 2.6 */
	CHECK_EQ("cut to the floor", st.rate_kbps, DC_TIMELY_MIN_RATE_KBPS);
	/* increase stops at the NIC rate */
	start(&st, &p, LINE_KBPS - 1000, 45);
	dc_timely_completion(&st, &p, 40, 50);
	CHECK_EQ("capped at the NIC rate", st.rate_kbps, LINE_KBPS);
	/* huge RTT jump: the EWMA saturates instead of overflowing, and T_high
	 * decides: R·(1 − 0.8·(1 − 500/(2^32 − 1))) ≈ 0.2 R */
	start(&st, &p, LINE_KBPS, 1);
	CHECK_EQ("huge RTT: T_high branch", dc_timely_completion(&st, &p, 0xffffffffu, 50),
		 DC_TIMELY_HIGH);
	CHECK_RANGE("huge RTT: 0.2 R", st.rate_kbps, 199900, 200100);
	CHECK("huge RTT: rtt_diff positive", st.rtt_diff_ns > 0, "%d", st.rtt_diff_ns);
}

static void test_cwnd_mapping(void)
{
	/* 1 Gbit/s · 500 µs = 62500 bytes; · 50 µs = 6250 */
	CHECK_EQ("paced: R * T_high", dc_timely_cwnd_bytes(LINE_KBPS, 50, 500, 80, true, 0, ~0U),
		 62500);
	CHECK_EQ("unpaced: R * tau", dc_timely_cwnd_bytes(LINE_KBPS, 50, 500, 900, false, 0, ~0U),
		 6250);
	CHECK_EQ("paced, tau above T_high: R * tau",
		 dc_timely_cwnd_bytes(LINE_KBPS, 800, 500, 0, true, 0, ~0U), 100000);
	/* paced, sRTT above T_high: what a flow at R has in flight, 1 ms */
	CHECK_EQ("paced, sRTT above T_high: R * sRTT",
		 dc_timely_cwnd_bytes(LINE_KBPS, 50, 500, 1000, true, 0, ~0U), 125000);
	CHECK_EQ("window floor", dc_timely_cwnd_bytes(10000, 50, 500, 0, false, 2896, ~0U), 2896);
	CHECK_EQ("window cap", dc_timely_cwnd_bytes(LINE_KBPS, 50, 500, 0, true, 0, 10000), 10000);
	CHECK_EQ("pacing rate in bytes/s", dc_timely_pacing_Bps(LINE_KBPS), 125000000ULL);
}

/* Per ACK: one completion per DC_TIMELY_SEG_BYTES, new_rtt = the segment's
 * smallest sample, a segment without samples stays open, seq wraps. */
static void test_on_ack(void)
{
	struct dc_cc_cfg c = cfg_default();
	struct dc_ptcp_ack a = { .min_rtt_us = 50, .min_cwnd_bytes = 2896, .max_cwnd_bytes = ~0U };
	struct dc_timely_state st;
	__u32 seq0 = 0xffffc000u, act, i;

	dc_timely_state_init(&st, &c, seq0, 0, 2896);
	CHECK_EQ("init at the NIC rate", st.rate_kbps, LINE_KBPS);
	CHECK_EQ("init window R*T_high", st.cwnd_bytes, 62500);
	CHECK_EQ("init mode", st.mode, DC_MODE_INIT);
	/* no RTT samples in the first segment: it stays open */
	a.ack_seq = seq0 + DC_TIMELY_SEG_BYTES;
	a.rtt_us = 0;
	act = dc_timely_on_ack(&st, &c, &a, 60);
	CHECK_EQ("no sample: no completion", act, DC_TIMELY_NONE);
	CHECK_EQ("no sample: prev_rtt unset", st.prev_rtt_us, 0);
	CHECK_EQ("mode rtt law", st.mode, DC_MODE_THETA);
	/* the first sample completes it, across the 2^32 wrap (the first
	 * completion sets prev_rtt only) */
	a.ack_seq += 1448;
	a.rtt_us = 90;
	CHECK_EQ("late sample completes the open segment", dc_timely_on_ack(&st, &c, &a, 60),
		 DC_TIMELY_NONE);
	CHECK_EQ("first completion across the wrap: prev = 90", st.prev_rtt_us, 90);
	CHECK_EQ("next segment ends one segment later", st.seg_end_seq, a.ack_seq + DC_TIMELY_SEG_BYTES);
	/* samples 70, 80, then 200 on the completing ACK: new_rtt = 70 < 90 */
	for (i = 0; i < 2; i++) {
		a.ack_seq += 1448;
		a.rtt_us = 70 + 10 * i;
		CHECK_EQ("mid-segment: no completion", dc_timely_on_ack(&st, &c, &a, 60), DC_TIMELY_NONE);
	}
	a.ack_seq += DC_TIMELY_SEG_BYTES;
	a.rtt_us = 200;
	act = dc_timely_on_ack(&st, &c, &a, 60);
	CHECK_EQ("RTT fell: increase", act, DC_TIMELY_INC);
	CHECK_EQ("new_rtt = min of the segment", st.prev_rtt_us, 70);
	/* next segment: 200 then 250 → new_rtt 200 > 70, g > 0 */
	a.ack_seq += DC_TIMELY_SEG_BYTES / 2;
	a.rtt_us = 200;
	CHECK_EQ("half a segment: no completion", dc_timely_on_ack(&st, &c, &a, 60), DC_TIMELY_NONE);
	a.ack_seq += DC_TIMELY_SEG_BYTES / 2;
	a.rtt_us = 250;
	act = dc_timely_on_ack(&st, &c, &a, 60);
	CHECK_EQ("RTT rose: decrease", act, DC_TIMELY_DEC);
	CHECK_EQ("new_rtt = 200", st.prev_rtt_us, 200);
	CHECK("window follows the rate", st.cwnd_bytes == dc_timely_cwnd_bytes(st.rate_kbps, 50, 500,
		60, true, 2896, ~0U), "cwnd %u", st.cwnd_bytes);
}

int main(void)
{
	test_params();
	test_branches();
	test_hai();
	test_bounds();
	test_cwnd_mapping();
	test_on_ack();
	return check_failed;
}
