// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * Host unit tests of the HPCC control law (include/dcbpf/hpcc.h) against
 * hand-worked cases of HPCC, SIGCOMM'19, Algorithm 1: one hop's u', the
 * EWMA of U, ComputeWind in both branches and the stages, W_c once per RTT,
 * the first ACK, ACKs without new records, counters and timestamps that
 * wrap, and a closed loop that must settle at η with no queue.
 */
#include <string.h>

#include "check.h"
#include "dcbpf/hpcc.h"

#define Q(x) ((__u32)((x) * (double)DC_Q16_ONE + 0.5))
#define BDP 6250	/* 1 Gbit/s × 50 µs */

static struct dc_cc_cfg cfg_default(void)
{
	struct dc_cc_cfg c = {
		.base_rtt_us = 50,
		.host_bw_mbps = 1000,
		.expected_flows = 10,
		.min_cwnd_pkts = 2,
		.pacing = 1,
		.eta_q16 = DC_HPCC_DEFAULT_ETA_Q16,
		.max_stage = DC_HPCC_DEFAULT_MAX_STAGE,
	};
	return c;
}

static void test_parameters(void)
{
	struct dc_cc_cfg c = cfg_default();

	CHECK_EQ("W_init = B_NIC*T", dc_hpcc_winit_bytes(&c, 50), BDP);
	/* W_init·(1 − η)/N = 6250·0.05/10 = 31.25 */
	CHECK_EQ("W_AI = W_init(1-eta)/N", dc_hpcc_wai_bytes(&c, 50), 31);
	c.expected_flows = 1;
	CHECK_EQ("W_AI with N = 1", dc_hpcc_wai_bytes(&c, 50), 312);
	c.beta_bytes = 100;
	CHECK_EQ("W_AI configured wins", dc_hpcc_wai_bytes(&c, 50), 100);
	c = cfg_default();
	c.eta_q16 = 0;
	CHECK_EQ("eta 0 = default 95%", dc_hpcc_eta_q16(&c), DC_HPCC_DEFAULT_ETA_Q16);
}

/* u' = min(qlen, qlen')/(B·T) + txRate/B.  Over 10 µs at 1 Gbit/s the
 * port sent 1250 bytes (txRate = B) and the queue went 3000 → 5000 bytes:
 * u' = 3000/6250 + 1 = 1.48. */
static void test_hop_u(void)
{
	struct dc_ptcp_hop_prev prev = { .qlen_bytes = 3000, .ts_ns = 1000000, .tx_bytes = 0 };
	struct dc_int_hop cur = { .qlen_bytes = 5000, .rate_mbps = 1000, .ts_ns = 1010000,
				  .tx_bytes = 1250 };
	__u32 dt = 0, u;

	u = dc_hpcc_hop_u(&prev, &cur, 50, &dt);
	CHECK_RANGE("u' = 0.48 + 1.0", u, Q(1.48) - 2, Q(1.48) + 2);
	CHECK_EQ("u' dt", dt, 10000);
	/* the smaller queue of the pair: a queue falling 5000 → 3000 counts 3000 too */
	prev.qlen_bytes = 5000;
	cur.qlen_bytes = 3000;
	CHECK_RANGE("u' takes min(qlen, qlen')", dc_hpcc_hop_u(&prev, &cur, 50, &dt),
		    Q(1.48) - 2, Q(1.48) + 2);
	/* half the line rate, empty queue: 0.5 */
	prev.qlen_bytes = 0;
	cur.qlen_bytes = 0;
	cur.tx_bytes = 625;
	CHECK_RANGE("u' half rate", dc_hpcc_hop_u(&prev, &cur, 50, &dt), Q(0.5) - 2, Q(0.5) + 2);
	/* idle link: never 0 (0 means "no sample") */
	cur.tx_bytes = 0;
	CHECK_EQ("u' idle link is the smallest sample", dc_hpcc_hop_u(&prev, &cur, 50, &dt), 1);

	/* Counters and timestamps compared modulo 2^32: both wrapped between
	 * the records, the result is the same as without the wrap. */
	prev.qlen_bytes = 3000;
	prev.ts_ns = 0xfffff000u;
	prev.tx_bytes = 0xffffff00u;
	cur.qlen_bytes = 5000;
	cur.ts_ns = (0xfffff000ULL + 10000) | (7ULL << 40);	/* upper bits: not on the wire */
	cur.tx_bytes = 0xffffff00ULL + 1250;
	u = dc_hpcc_hop_u(&prev, &cur, 50, &dt);
	CHECK_RANGE("u' across a wrap of ts and txBytes", u, Q(1.48) - 2, Q(1.48) + 2);
	CHECK_EQ("dt across the wrap", dt, 10000);

	/* pairs that cannot be differentiated */
	cur.ts_ns = prev.ts_ns;
	CHECK_EQ("same timestamp: no sample", dc_hpcc_hop_u(&prev, &cur, 50, &dt), 0);
	cur.ts_ns = (__u64)prev.ts_ns + DC_INT_MAX_DT_NS + 1;
	CHECK_EQ("gap beyond DC_INT_MAX_DT_NS: no sample", dc_hpcc_hop_u(&prev, &cur, 50, &dt), 0);
	cur.ts_ns = (__u64)prev.ts_ns + 10000;
	cur.rate_mbps = 0;
	CHECK_EQ("no port rate: no sample", dc_hpcc_hop_u(&prev, &cur, 50, &dt), 0);
	/* a huge burst is bounded */
	cur.rate_mbps = 1000;
	cur.qlen_bytes = prev.qlen_bytes = 0xffffffffu;
	CHECK_EQ("u' bounded", dc_hpcc_hop_u(&prev, &cur, 50, &dt), DC_HPCC_U_MAX_Q16);
}

/* U = (1 − τ/T)·U + (τ/T)·u: T = 50 µs, τ = 10 µs, U = 1, u = 2 → 1.2. */
static void test_ewma(void)
{
	CHECK_RANGE("U ewma tau/T = 0.2", dc_hpcc_ewma(Q(1.0), Q(2.0), 10000, 50), Q(1.2) - 1,
		    Q(1.2) + 1);
	CHECK_EQ("tau capped at T: U = u", dc_hpcc_ewma(Q(1.0), Q(2.0), 500000, 50), Q(2.0));
	CHECK_EQ("tau = 0: U unchanged", dc_hpcc_ewma(Q(1.0), Q(2.0), 0, 50), Q(1.0));
}

/* ComputeWind by hand: W_c = 10000, η = 0.95, W_AI = 31. */
static void test_compute_wind(void)
{
	struct dc_cc_cfg c = cfg_default();
	struct dc_hpcc_state st;
	__u32 w, i;

	dc_hpcc_state_init(&st, &c, 0, 0, 0);
	st.wc_bytes = 10000;
	/* U = 1.9 ≥ η: W = 10000/(1.9/0.95) + 31 = 5031 */
	st.u_q16 = Q(1.9);
	w = dc_hpcc_compute_wind(&st, &c, 31, false, 0, ~0U);
	CHECK_RANGE("MI: W_c/(U/eta) + W_AI", w, 5030, 5032);
	CHECK_EQ("without updateWc W_c stays", st.wc_bytes, 10000);
	/* U = 0.5 < η, stage 0: W = W_c + W_AI, stages counted only with updateWc */
	st.u_q16 = Q(0.5);
	w = dc_hpcc_compute_wind(&st, &c, 31, false, 0, ~0U);
	CHECK_EQ("AI: W_c + W_AI", w, 10031);
	CHECK_EQ("AI without updateWc: stage stays", st.inc_stage, 0);
	for (i = 1; i <= DC_HPCC_DEFAULT_MAX_STAGE; i++) {
		w = dc_hpcc_compute_wind(&st, &c, 31, true, 0, ~0U);
		CHECK_EQ("AI stage: W = W_c + W_AI", w, 10000 + 31 * i);
	}
	CHECK_EQ("after maxStage AI updates incStage = maxStage", st.inc_stage,
		 DC_HPCC_DEFAULT_MAX_STAGE);
	/* incStage ≥ maxStage: MI although U < η, W = W_c·η/U + W_AI */
	w = dc_hpcc_compute_wind(&st, &c, 31, true, 0, ~0U);
	CHECK_RANGE("MI after maxStage: 10155*0.95/0.5 + 31", w, 19325, 19327);
	CHECK_EQ("MI resets incStage", st.inc_stage, 0);
	CHECK_EQ("updateWc stores W", st.wc_bytes, w);
	/* clamps */
	st.u_q16 = Q(100.0);
	CHECK_EQ("min clamp", dc_hpcc_compute_wind(&st, &c, 31, false, 2896, ~0U), 2896);
	st.u_q16 = 1;
	CHECK_EQ("max clamp", dc_hpcc_compute_wind(&st, &c, 31, false, 0, 6250), 6250);
	/* maxStage 0: every update multiplicative */
	c.max_stage = 0;
	st.u_q16 = Q(0.5);
	st.wc_bytes = 10000;
	CHECK_RANGE("maxStage 0: MI at once", dc_hpcc_compute_wind(&st, &c, 31, false, 0, ~0U),
		    19030, 19032);
}

static void stack_one(struct dc_int_stack *s, __u32 qlen, __u64 ts_ns, __u64 tx)
{
	memset(s, 0, sizeof(*s));
	s->nhops = 1;
	s->hop[0].qlen_bytes = qlen;
	s->hop[0].rate_mbps = 1000;
	s->hop[0].ts_ns = ts_ns;
	s->hop[0].tx_bytes = tx;
}

/* NewAck: the first stack is remembered only; W_c moves on the first ACK
 * past lastUpdateSeq, the others recompute W from the same W_c. */
static void test_on_ack(void)
{
	struct dc_cc_cfg c = cfg_default();
	struct dc_ptcp_ack a = { .min_rtt_us = 50, .min_cwnd_bytes = 2896, .max_cwnd_bytes = ~0U };
	struct dc_hpcc_state st;
	struct dc_int_stack s;
	__u32 wc0;

	dc_hpcc_state_init(&st, &c, 1000, 0, 2896);
	CHECK_EQ("init W = W_init", st.cwnd_bytes, BDP);
	CHECK_EQ("init W_c = W_init", st.wc_bytes, BDP);

	/* first ACK with INT */
	stack_one(&s, 0, 1000000, 0);
	a.ack_seq = 2448;
	a.snd_nxt = 7448;
	CHECK("first ACK: no update", !dc_hpcc_on_ack(&st, &c, &a, &s), "updated");
	CHECK_EQ("first ACK: W unchanged", st.cwnd_bytes, BDP);
	CHECK_EQ("first ACK: records kept", st.nprev, 1);
	CHECK_EQ("first ACK: lastUpdateSeq = snd_nxt", st.last_update_seq, 7448);
	CHECK("first ACK: mode int", st.mode == DC_MODE_INT, "mode %u", st.mode);

	/* the same records again: nothing new */
	a.ack_seq = 3896;
	CHECK("repeated records: no update", !dc_hpcc_on_ack(&st, &c, &a, &s), "updated");

	/* congested (queue of one BDP at line rate: u = 2), still inside the
	 * first RTT: W = W_c·η/U + W_AI from the old W_c, which stays */
	stack_one(&s, BDP, 1000000 + 50000, 6250);
	s.hop[0].qlen_bytes = BDP;
	st.prev[0].qlen_bytes = BDP;	/* min(qlen, qlen') = BDP */
	a.ack_seq = 5344;
	CHECK("inside the RTT: update", dc_hpcc_on_ack(&st, &c, &a, &s), "no update");
	CHECK_RANGE("U = 2 (first measurement taken as is)", st.u_q16, Q(2.0) - 2, Q(2.0) + 2);
	CHECK_RANGE("W = 6250*0.95/2 + 31", st.cwnd_bytes, 2998, 3000);
	CHECK_EQ("W_c unchanged inside the RTT", st.wc_bytes, BDP);
	CHECK_EQ("lastUpdateSeq unchanged inside the RTT", st.last_update_seq, 7448);

	/* the ACK past lastUpdateSeq moves W_c, and lastUpdateSeq to snd_nxt */
	stack_one(&s, BDP, 1000000 + 100000, 12500);
	a.ack_seq = 8896;
	a.snd_nxt = 12000;
	wc0 = st.wc_bytes;
	CHECK("past lastUpdateSeq: update", dc_hpcc_on_ack(&st, &c, &a, &s), "no update");
	CHECK("W_c moved", st.wc_bytes != wc0 && st.wc_bytes == st.cwnd_bytes, "wc %u w %u",
	      st.wc_bytes, st.cwnd_bytes);
	CHECK_EQ("lastUpdateSeq = snd_nxt", st.last_update_seq, 12000);
	CHECK_EQ("bottleneck hop", st.bottleneck_hop, 0);

	/* the window is bounded by the socket's limit, not by W_init (the
	 * paper's R ≤ B_NIC caps the pacing rate instead) */
	stack_one(&s, 0, 1000000 + 150000, 12500);	/* idle link: U → tiny */
	st.inc_stage = DC_HPCC_DEFAULT_MAX_STAGE;
	a.ack_seq = 12001;
	a.snd_nxt = 20000;
	a.max_cwnd_bytes = 3 * BDP;
	dc_hpcc_on_ack(&st, &c, &a, &s);
	CHECK_EQ("MI on an idle link stops at the socket limit", st.cwnd_bytes, 3 * BDP);
	CHECK_EQ("pacing R = W/T capped at B_NIC", dc_hpcc_pacing_Bps(&c, st.cwnd_bytes, 50),
		 125000000ULL);
	CHECK_EQ("pacing R = W/T below B_NIC", dc_hpcc_pacing_Bps(&c, BDP / 2, 50), 62500000ULL);
	a.max_cwnd_bytes = 4000;
	stack_one(&s, 0, 1000000 + 200000, 12500);
	a.ack_seq = 20001;
	dc_hpcc_on_ack(&st, &c, &a, &s);
	CHECK_EQ("socket limit", st.cwnd_bytes, 4000);

	/* sequence numbers wrap: an ACK just past 2^32 is past lastUpdateSeq */
	a.max_cwnd_bytes = ~0U;
	st.last_update_seq = 0xfffffff0u;
	a.ack_seq = 0x10;
	a.snd_nxt = 0x2000;
	stack_one(&s, 0, 1000000 + 250000, 15625);
	dc_hpcc_on_ack(&st, &c, &a, &s);
	CHECK_EQ("lastUpdateSeq across the seq wrap", st.last_update_seq, 0x2000);

	/* an empty stack (no hop filled) is no sample */
	memset(&s, 0, sizeof(s));
	CHECK("empty stack: no update", !dc_hpcc_on_ack(&st, &c, &a, &s), "updated");
}

/* The max over hops decides, and τ is that hop's dt. */
static void test_max_over_hops(void)
{
	struct dc_cc_cfg c = cfg_default();
	struct dc_hpcc_state st;
	struct dc_int_stack s = { .nhops = 3 };
	__u32 h;

	dc_hpcc_state_init(&st, &c, 0, 0, 0);
	for (h = 0; h < 3; h++) {
		s.hop[h].rate_mbps = 1000;
		s.hop[h].ts_ns = 1000000;
	}
	dc_hpcc_measure(&st, &s, 50);
	for (h = 0; h < 3; h++) {
		s.hop[h].ts_ns += 50000;
		s.hop[h].tx_bytes = 3125;	/* half rate */
	}
	s.hop[1].tx_bytes = 6250;		/* hop 1 at line rate with a queue */
	s.hop[1].qlen_bytes = 3125;
	st.prev[1].qlen_bytes = 3125;
	CHECK("3 hops: measured", dc_hpcc_measure(&st, &s, 50), "no sample");
	CHECK_EQ("bottleneck is hop 1", st.bottleneck_hop, 1);
	CHECK_RANGE("U = 0.5 + 1.0 of hop 1", st.u_q16, Q(1.5) - 2, Q(1.5) + 2);
	/* more hops than slots: only DC_INT_MAX_HOPS read */
	s.nhops = 9;
	dc_hpcc_measure(&st, &s, 50);
	CHECK_EQ("nprev bounded", st.nprev, DC_INT_MAX_HOPS);
}

/*
 * Closed loop, one flow, one 1 Gbit/s hop, T = 50 µs, one ACK per RTT:
 * a host NIC twice the bottleneck starts at 2·BDP (a queue of one BDP).
 * HPCC must drain it within a few RTTs and settle at U ≈ η: no standing
 * queue and at least 90 % of the link.
 */
static void test_closed_loop(void)
{
	struct dc_cc_cfg c = cfg_default();
	struct dc_ptcp_ack a = { .min_rtt_us = 50, .min_cwnd_bytes = 2896, .max_cwnd_bytes = ~0U };
	struct dc_hpcc_state st;
	struct dc_int_stack s;
	__u64 ts = 1000000, tx = 0;
	__u32 step, q = 0, maxq_late = 0, minw_late = ~0U;

	c.host_bw_mbps = 2000;
	dc_hpcc_state_init(&st, &c, 0, 0, 2896);
	CHECK_EQ("loop: starts at 2 BDP", st.cwnd_bytes, 2 * BDP);
	a.ack_seq = 0;
	a.snd_nxt = st.cwnd_bytes;
	for (step = 0; step < 100; step++) {
		__u32 w = st.cwnd_bytes;

		q = w > BDP ? w - BDP : 0;
		ts += 50000;
		tx += w < BDP ? w : BDP;
		stack_one(&s, q, ts, tx);
		a.ack_seq = a.snd_nxt + 1448;	/* first ACK past the last update */
		a.snd_nxt = a.ack_seq + w;
		dc_hpcc_on_ack(&st, &c, &a, &s);
		if (step >= 10) {
			if (q > maxq_late)
				maxq_late = q;
			if (st.cwnd_bytes < minw_late)
				minw_late = st.cwnd_bytes;
		}
	}
	CHECK("loop: no standing queue after 10 RTTs", maxq_late <= BDP / 20, "max queue %u",
	      maxq_late);
	CHECK_RANGE("loop: window >= 90% of BDP", minw_late, BDP * 9 / 10, BDP * 21 / 20);
	CHECK_RANGE("loop: U settles near eta", st.u_q16, Q(0.93), Q(1.0));
}

int main(void)
{
	test_parameters();
	test_hop_u();
	test_ewma();
	test_compute_wind();
	test_on_ack();
	test_max_over_hops();
	test_closed_loop();
	return check_failed;
}
