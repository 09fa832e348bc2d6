// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * Host unit tests of PowerTCP's parameters without configuration
 * (include/dcbpf/powertcp.h): τ from the path's base RTT plus one send
 * unit, β never below one send unit, and the base RTT learned per path
 * across flows (struct dc_base_rtt): first flow, later flows, ageing,
 * clock wrap.
 */
#include "check.h"
#include "dcbpf/powertcp.h"

#define W DC_BASE_RTT_WIN_MS
#define Q(x) ((__u32)((x) * (double)DC_Q16_ONE + 0.5))

static struct dc_cc_cfg cfg_untuned(void)
{
	struct dc_cc_cfg c = {
		.gamma_q16 = DC_DEFAULT_GAMMA_Q16,
		.host_bw_mbps = 1000,
		.expected_flows = 10,
		.min_cwnd_pkts = 2,
		.pacing = 1,
	};
	return c;
}

static void test_unit(void)
{
	/* 5 segments of 1448 B at 1 Gbit/s: 57.92 µs, rounded up */
	CHECK_EQ("unit 7240 B at 1G", dc_ptcp_unit_us(1000, 7240), 58);
	CHECK_EQ("unit one MSS at 10G", dc_ptcp_unit_us(10000, 1448), 2);
	CHECK_EQ("unit 64 KiB at 100G", dc_ptcp_unit_us(100000, 65536), 6);
	CHECK_EQ("unit without rate", dc_ptcp_unit_us(0, 7240), 0);
	CHECK_EQ("no unit", dc_ptcp_unit_us(1000, 0), 0);
	/* 64 KiB at 100 Mbit/s is 5.2 ms: capped */
	CHECK_EQ("unit capped", dc_ptcp_unit_us(100, 65536), DC_UNIT_MAX_US);
}

static void test_path_tau(void)
{
	struct dc_cc_cfg c = cfg_untuned();

	CHECK_EQ("tau = base + unit", dc_ptcp_path_tau_us(&c, 20, 7240), 78);
	CHECK_EQ("tau without unit = base", dc_ptcp_path_tau_us(&c, 20, 0), 20);
	CHECK_EQ("tau before any sample", dc_ptcp_path_tau_us(&c, 0, 7240), DC_DEFAULT_TAU_US);
	CHECK_EQ("tau ignores unset min rtt", dc_ptcp_path_tau_us(&c, DC_U32_MAX, 7240),
		 DC_DEFAULT_TAU_US);
	CHECK_EQ("tau near u32 max saturates", dc_ptcp_path_tau_us(&c, DC_U32_MAX - 1, 7240),
		 DC_U32_MAX);
	c.base_rtt_us = 75;
	CHECK_EQ("configured tau as is", dc_ptcp_path_tau_us(&c, 20, 7240), 75);
	/* the old entry point is the same law without a unit */
	c.base_rtt_us = 0;
	CHECK_EQ("dc_ptcp_tau_us unchanged", dc_ptcp_tau_us(&c, 20), dc_ptcp_path_tau_us(&c, 20, 0));
}

static void test_beta_floor(void)
{
	struct dc_cc_cfg c = cfg_untuned();

	/* b·τ = 1 Gbit/s × 78 µs = 9750 B; /10 = 975 < one unit */
	CHECK_EQ("beta floored at one unit", dc_ptcp_beta_unit_bytes(&c, 78, 7240), 7240);
	CHECK_EQ("beta without floor", dc_ptcp_beta_unit_bytes(&c, 78, 0), 975);
	CHECK_EQ("dc_ptcp_beta_bytes has no floor", dc_ptcp_beta_bytes(&c, 78), 975);
	/* 1 ms: 125000/10 = 12500 > unit */
	CHECK_EQ("beta above the floor", dc_ptcp_beta_unit_bytes(&c, 1000, 7240), 12500);
	c.beta_bytes = 3000;
	CHECK_EQ("configured beta wins over the floor", dc_ptcp_beta_unit_bytes(&c, 78, 7240), 3000);
}

/* The window law uses the floor: Γ = 1, γ = 1 gives w = w_old + β. */
static void test_law_uses_floor(void)
{
	struct dc_cc_cfg c = cfg_untuned();
	struct dc_ptcp_state st;
	struct dc_ptcp_ack a = { .min_rtt_us = 20, .unit_bytes = 7240, .min_cwnd_bytes = 2896,
				 .max_cwnd_bytes = ~0U };

	c.gamma_q16 = DC_Q16_ONE;
	dc_ptcp_state_init_path(&st, &c, DC_CC_THETA, 0, 20, 7240, 2896);
	CHECK_EQ("init: tau = base + unit", st.tau_us, 78);
	CHECK_EQ("init: cwnd_init = HostBw*tau", st.cwnd_bytes, 9750);
	st.power_q16 = (__s32)Q(1.0);
	CHECK_EQ("law: w_old + one unit", dc_ptcp_law_window(&st, &c, &a, 78, 20000), 27240);
	a.unit_bytes = 0;
	CHECK_EQ("law without unit: w_old + b*tau/N", dc_ptcp_law_window(&st, &c, &a, 78, 20000),
		 20975);
	/* θ law: τ from the ACK's base RTT and unit */
	a.unit_bytes = 7240;
	a.min_rtt_us = 30;
	a.rtt_us = 90;
	a.now_us = 1000;
	dc_theta_on_ack(&st, &c, &a);
	CHECK_EQ("theta: tau = base + unit", st.tau_us, 88);
	/* restart keeps the unit */
	dc_ptcp_state_restart(&st, &c, 0, 40, 7240, 2896);
	CHECK_EQ("restart: tau = base + unit", st.tau_us, 98);
}

static void test_first_and_later_flows(void)
{
	struct dc_base_rtt b;

	/* First flow: its handshake RTT is the path's. */
	dc_base_rtt_init(&b, 30, 1000);
	CHECK_EQ("first flow", dc_base_rtt_get(&b, 1000), 30);
	/* A later flow behind a standing queue sees 120 µs: the path keeps 30. */
	CHECK("higher sample changes nothing", !dc_base_rtt_add(&b, 120, 2000), "changed");
	CHECK_EQ("later flow gets the path's", dc_base_rtt_get(&b, 2000), 30);
	/* A shorter sample from any flow counts at once. */
	CHECK("lower sample changes the entry", dc_base_rtt_add(&b, 22, 2500), "unchanged");
	CHECK_EQ("lower sample", dc_base_rtt_get(&b, 2500), 22);
	/* No sample: nothing changes. */
	CHECK("zero sample ignored", !dc_base_rtt_add(&b, 0, 2600), "changed");
	CHECK("unset sample ignored", !dc_base_rtt_add(&b, DC_U32_MAX, 2600), "changed");
	CHECK_EQ("still", dc_base_rtt_get(&b, 2600), 22);
}

static void test_ageing(void)
{
	struct dc_base_rtt b;
	__u32 t;

	dc_base_rtt_init(&b, 30, 0);
	/* Into the second window: the first still counts. */
	dc_base_rtt_add(&b, 50, W + 10);
	CHECK_EQ("second window: previous min counts", dc_base_rtt_get(&b, W + 10), 30);
	CHECK_EQ("second window starts where the first ended", b.start_ms, W);
	/* Third window: the first is forgotten, the second's min rules. */
	dc_base_rtt_add(&b, 60, 2 * W + 10);
	CHECK_EQ("third window: first forgotten", dc_base_rtt_get(&b, 2 * W + 10), 50);
	/* Route change to a longer path: samples of 100 every 100 ms; the
	 * estimate follows within two windows, not sooner than one. */
	dc_base_rtt_init(&b, 30, 0);
	for (t = 100; t <= 3 * W; t += 100) {
		dc_base_rtt_add(&b, 100, t);
		if (t < W)
			CHECK_EQ("route change: old min kept in its window", dc_base_rtt_get(&b, t), 30);
		if (t >= 2 * W)
			CHECK_EQ("route change: followed within two windows", dc_base_rtt_get(&b, t),
				 100);
	}
	/* A path nobody used for two windows has no estimate. */
	dc_base_rtt_init(&b, 30, 0);
	CHECK_EQ("idle one window: still known", dc_base_rtt_get(&b, W + W / 2), 30);
	CHECK_EQ("idle two windows: unknown", dc_base_rtt_get(&b, 2 * W), 0);
	/* ... and the next sample starts afresh, ignoring the stale one. */
	dc_base_rtt_add(&b, 80, 5 * W);
	CHECK_EQ("stale entry restarted", dc_base_rtt_get(&b, 5 * W), 80);
	CHECK_EQ("stale previous dropped", b.prev_us, 0);
	CHECK_EQ("window starts now", b.start_ms, 5 * W);
}

static void test_wrap(void)
{
	struct dc_base_rtt b;
	__u32 t0 = DC_U32_MAX - 100;	/* ms clock about to wrap */

	dc_base_rtt_init(&b, 40, t0);
	CHECK_EQ("across wrap, same window", dc_base_rtt_get(&b, t0 + 200), 40);
	dc_base_rtt_add(&b, 45, t0 + W + 5);	/* wrapped: t0 + W + 5 < t0 */
	CHECK_EQ("across wrap, rolled once", b.start_ms, t0 + W);
	CHECK_EQ("across wrap, previous counts", dc_base_rtt_get(&b, t0 + W + 5), 40);
	CHECK_EQ("across wrap, two windows: unknown", dc_base_rtt_get(&b, t0 + 3 * W), 0);
	/* A racing writer on another CPU stamped a later time than ours. */
	dc_base_rtt_init(&b, 40, 5000);
	CHECK_EQ("reader behind the writer", dc_base_rtt_get(&b, 4990), 40);
	CHECK("no roll backwards", dc_base_rtt_add(&b, 35, 4990) && b.start_ms == 5000 &&
	      b.cur_us == 35, "start %u cur %u", b.start_ms, b.cur_us);
}

int main(void)
{
	test_unit();
	test_path_tau();
	test_beta_floor();
	test_law_uses_floor();
	test_first_and_later_flows();
	test_ageing();
	test_wrap();
	return check_failed;
}
