// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Cost of the control law per ACK on the host (the same code the BPF
 * congestion controls inline).  Prints one JSON object per figure:
 *   {"name": {"value": N, "unit": "ns"}}
 */
#include <stdio.h>
#include <time.h>

#include "dcbpf/powertcp.h"
#include "dcbpf/hpcc.h"
#include "dcbpf/timely.h"

#define ITERS 20000000UL

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The next INT record at every hop: 1 µs later, 125 bytes more (1 Gbit/s), a queue that varies. */
static void next_record(struct dc_int_stack *stack, unsigned long i)
{
	__u32 h;

	for (h = 0; h < DC_INT_MAX_HOPS; h++) {
		stack->hop[h].ts_ns += 1000;
		stack->hop[h].tx_bytes += 125;
		stack->hop[h].qlen_bytes = (__u32)(i & 4095);
	}
}

int main(void)
{
	struct dc_cc_cfg cfg = { .gamma_q16 = DC_DEFAULT_GAMMA_Q16, .host_bw_mbps = 1000,
				 .expected_flows = 10, .min_cwnd_pkts = 2, .pacing = 1,
				 .eta_q16 = DC_HPCC_DEFAULT_ETA_Q16,
				 .max_stage = DC_HPCC_DEFAULT_MAX_STAGE,
				 .t_low_us = DC_TIMELY_DEFAULT_T_LOW_US,
				 .t_high_us = DC_TIMELY_DEFAULT_T_HIGH_US,
				 .delta_mbps = DC_TIMELY_DEFAULT_DELTA_MBPS,
				 .md_beta_q16 = DC_TIMELY_DEFAULT_BETA_Q16,
				 .alpha_q16 = DC_TIMELY_DEFAULT_ALPHA_Q16 };
	struct dc_hpcc_state hst;
	struct dc_timely_state tst;
	struct dc_int_stack stack = { .nhops = DC_INT_MAX_HOPS };
	struct dc_ptcp_state st;
	struct dc_ptcp_ack a = { .min_rtt_us = 50, .min_cwnd_bytes = 2896, .max_cwnd_bytes = ~0U };
	volatile __u32 sink = 0;
	double t0, theta_ns, int_ns, hpcc_ns, timely_ns;
	unsigned long i;
	__u32 h;

	dc_ptcp_state_init(&st, &cfg, DC_CC_THETA, 0, 2896);
	t0 = now_ns();
	for (i = 0; i < ITERS; i++) {
		a.ack_seq += 1448;
		a.snd_nxt = a.ack_seq + st.cwnd_bytes;
		a.now_us += 1;
		a.rtt_us = 50 + (i & 63);
		dc_theta_on_ack(&st, &cfg, &a);
		sink += st.cwnd_bytes;
	}
	theta_ns = (now_ns() - t0) / ITERS;

	dc_ptcp_state_init(&st, &cfg, DC_CC_POWERTCP, 0, 2896);
	for (h = 0; h < DC_INT_MAX_HOPS; h++)
		stack.hop[h].rate_mbps = 1000;
	t0 = now_ns();
	for (i = 0; i < ITERS; i++) {
		a.ack_seq += 1448;
		a.snd_nxt = a.ack_seq + st.cwnd_bytes;
		next_record(&stack, i);
		dc_powertcp_on_ack(&st, &cfg, &a, &stack);
		sink += st.cwnd_bytes;
	}
	int_ns = (now_ns() - t0) / ITERS;

	/* HPCC: a new INT record on every ACK, as a NIC would see it. */
	dc_hpcc_state_init(&hst, &cfg, 0, 50, 2896);
	a.ack_seq = 0;
	t0 = now_ns();
	for (i = 0; i < ITERS; i++) {
		a.ack_seq += 1448;
		a.snd_nxt = a.ack_seq + hst.cwnd_bytes;
		next_record(&stack, i);
		dc_hpcc_on_ack(&hst, &cfg, &a, &stack);
		sink += hst.cwnd_bytes;
	}
	hpcc_ns = (now_ns() - t0) / ITERS;

	/* TIMELY: an RTT sample on every ACK, a completion every 16 KB. */
	dc_timely_state_init(&tst, &cfg, 0, 50, 2896);
	a.ack_seq = 0;
	t0 = now_ns();
	for (i = 0; i < ITERS; i++) {
		a.ack_seq += 1448;
		a.rtt_us = 50 + (i & 63);
		dc_timely_on_ack(&tst, &cfg, &a, a.rtt_us);
		sink += tst.rate_kbps;
	}
	timely_ns = (now_ns() - t0) / ITERS;

	printf("{\"cc_law_theta_ns\": {\"value\": %.2f, \"unit\": \"ns\"}}\n", theta_ns);
	printf("{\"cc_law_int_%uhop_ns\": {\"value\": %.2f, \"unit\": \"ns\"}}\n", DC_INT_MAX_HOPS,
	       int_ns);
	printf("{\"cc_law_hpcc_%uhop_ns\": {\"value\": %.2f, \"unit\": \"ns\"}}\n", DC_INT_MAX_HOPS,
	       hpcc_ns);
	printf("{\"cc_law_timely_ns\": {\"value\": %.2f, \"unit\": \"ns\"}}\n", timely_ns);
	return sink == 1; /* keep the loop alive */
}
