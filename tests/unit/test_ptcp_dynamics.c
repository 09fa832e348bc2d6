// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * PowerTCP / θ-PowerTCP over time (include/dcbpf/powertcp.h): a fluid model
 * and a packet-level queue driven by the law — equilibrium, one update per
 * RTT, the queue's step response, long RTTs, stretched epochs (Addanki
 * thesis §2.2).
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "dcbpf/powertcp.h"
#include "ptcpfix.h"

/*
 * Single-bottleneck fluid model (Eq. 2.17/2.18), stepped every 1 µs: the
 * sender emits w/θ, the queue integrates (rate − b), every step is an ACK
 * that carries the bottleneck's state (or the RTT) of one base RTT ago.
 * From any start, θ-PowerTCP and PowerTCP must settle at
 * (w_e, q_e) = (b·τ + β, β)  (Theorem 1).
 */
#define FLUID_TAU_US 50
#define FLUID_STEPS 40000

struct fluid_sample {
	double q, tx, rtt;
};

static void run_fluid(bool use_int, __u32 w0, double *w_out, double *q_out)
{
	const double b = 125.0; /* bytes per µs at 1 Gbit/s */
	static struct fluid_sample hist[FLUID_TAU_US];
	struct dc_cc_cfg c = cfg_default();
	struct dc_ptcp_state st;
	struct dc_int_stack s = { .nhops = 1 };
	double q = 0, tx = 0, acked = 0, wsum = 0, qsum = 0;
	int t, n = 0;

	dc_ptcp_state_init(&st, &c, use_int ? DC_CC_POWERTCP : DC_CC_THETA, 0, 2896);
	st.cwnd_bytes = st.cwnd_old_bytes = w0;
	s.hop[0].rate_mbps = 1000;
	for (t = 0; t < FLUID_TAU_US; t++)
		hist[t] = (struct fluid_sample){ 0, 0, FLUID_TAU_US };
	for (t = 0; t < FLUID_STEPS; t++) {
		double rtt = FLUID_TAU_US + q / b, rate = st.cwnd_bytes / rtt;
		struct fluid_sample old = hist[t % FLUID_TAU_US];
		struct dc_ptcp_ack a = { .min_rtt_us = FLUID_TAU_US, .min_cwnd_bytes = 2896,
					 .max_cwnd_bytes = ~0U, .now_us = 1000 + (__u64)t };

		q += rate - b;
		tx += q > 0 ? b : rate;
		if (q < 0)
			q = 0;
		hist[t % FLUID_TAU_US] = (struct fluid_sample){ q, tx, rtt };
		/* The ACK of this step reports what the data saw one τ ago. */
		acked += rate;
		a.ack_seq = (__u32)acked;
		a.snd_nxt = (__u32)(acked + st.cwnd_bytes);
		a.rtt_us = (__u32)(old.rtt + 0.5);
		if (use_int) {
			s.hop[0].qlen_bytes = (__u32)old.q;
			s.hop[0].ts_ns = (__u64)(t + 1) * 1000;
			s.hop[0].tx_bytes = (__u64)old.tx;
			dc_powertcp_on_ack(&st, &c, &a, &s);
		} else {
			dc_theta_on_ack(&st, &c, &a);
		}
		if (t >= FLUID_STEPS / 2) { /* average the second half */
			wsum += st.cwnd_bytes;
			qsum += q;
			n++;
		}
	}
	*w_out = wsum / n;
	*q_out = qsum / n;
}

static void test_equilibrium(void)
{
	/* β = 625: w_e = 6250 + 625 = 6875, q_e = 625. */
	double w, q;
	static const __u32 starts[] = { 3000, 6875, 60000 };
	unsigned i;

	for (i = 0; i < 3; i++) {
		char name[80];

		run_fluid(false, starts[i], &w, &q);
		snprintf(name, sizeof(name), "theta equilibrium w_e=b*tau+beta from %u", starts[i]);
		CHECK_RANGE(name, w, 6875 * 0.97, 6875 * 1.03);
		snprintf(name, sizeof(name), "theta equilibrium q_e=beta from %u", starts[i]);
		CHECK_RANGE(name, q, 625 * 0.7, 625 * 1.3);
		run_fluid(true, starts[i], &w, &q);
		snprintf(name, sizeof(name), "int equilibrium w_e=b*tau+beta from %u", starts[i]);
		CHECK_RANGE(name, w, 6875 * 0.97, 6875 * 1.03);
		snprintf(name, sizeof(name), "int equilibrium q_e=beta from %u", starts[i]);
		CHECK_RANGE(name, q, 625 * 0.7, 625 * 1.3);
	}
}

/* θ law: the window moves at most once per RTT (Algorithm 2 l.17). */
static void test_once_per_rtt(void)
{
	struct dc_cc_cfg c = cfg_default();
	struct dc_ptcp_state st;
	struct dc_ptcp_ack a = { .min_rtt_us = 50, .min_cwnd_bytes = 2896, .max_cwnd_bytes = ~0U,
				 .rtt_us = 100 };
	__u32 w_before;
	int updates = 0, i;

	dc_ptcp_state_init(&st, &c, DC_CC_THETA, 1000, 2896);
	/* ACKs below next_update_seq (= snd_nxt at init): no update. */
	for (i = 0; i < 5; i++) {
		a.ack_seq = 200 + 100 * i;
		a.snd_nxt = 20000;
		a.now_us = 1000 + 10 * i;
		updates += dc_theta_on_ack(&st, &c, &a);
	}
	CHECK_EQ("theta: no update before one RTT", updates, 0);
	/* First interval end: θ measured, nothing to differentiate yet. */
	a.ack_seq = 1000;
	a.now_us = 1100;
	updates += dc_theta_on_ack(&st, &c, &a);
	CHECK_EQ("theta: first interval only measures", updates, 0);
	CHECK_EQ("theta: next update one window later", st.next_update_seq, 20000);
	/* Within the second interval: still nothing. */
	for (i = 0; i < 5; i++) {
		a.ack_seq = 2000 + 1000 * i;
		a.now_us += 10;
		updates += dc_theta_on_ack(&st, &c, &a);
	}
	CHECK_EQ("theta: no update within the RTT", updates, 0);
	w_before = st.cwnd_bytes;
	/* The ACK passing snd_nxt updates, once. */
	a.ack_seq = 20000;
	a.snd_nxt = 40000;
	a.now_us += 10;
	updates += dc_theta_on_ack(&st, &c, &a);
	a.ack_seq = 21000;
	a.now_us += 10;
	updates += dc_theta_on_ack(&st, &c, &a);
	CHECK_EQ("theta: exactly one update after one RTT", updates, 1);
	CHECK("theta: RTT of 2τ shrinks the window", st.cwnd_bytes < w_before,
	      "%u !< %u", st.cwnd_bytes, w_before);
}

/* The ACK that passes the snd_nxt of the previous epoch's end, for a
 * flow that keeps a window of 6875 bytes in flight. */
static void next_epoch(struct dc_ptcp_ack *a)
{
	a->ack_seq = a->snd_nxt;
	a->snd_nxt += 6875;
}

/* A queue step at the bottleneck makes PowerTCP cut its window at the
 * end of the epoch that saw it, in proportion to the power (reaction to q
 * and q̇).  Each call below is the ACK that ends one epoch. */
static void test_queue_step_response(void)
{
	struct dc_cc_cfg c = cfg_default();
	struct dc_ptcp_state st;
	struct dc_int_stack s = { .nhops = 1 };
	struct dc_ptcp_ack a = { .min_rtt_us = 50, .min_cwnd_bytes = 2896, .max_cwnd_bytes = ~0U,
				 .ack_seq = 100, .snd_nxt = 10000 };
	__u32 w0;

	c.gamma_q16 = Q(1.0);
	dc_ptcp_state_init(&st, &c, DC_CC_POWERTCP, 0, 2896);
	st.cwnd_bytes = st.cwnd_old_bytes = 6875;
	s.hop[0] = (struct dc_int_hop){ .rate_mbps = 1000, .ts_ns = 0, .tx_bytes = 0 };
	next_epoch(&a);
	dc_powertcp_on_ack(&st, &c, &a, &s);
	/* Steady full link → Γ = 1 → w = w_old + β. */
	s.hop[0].ts_ns = 50000;
	s.hop[0].tx_bytes = 6250;
	next_epoch(&a);
	dc_powertcp_on_ack(&st, &c, &a, &s);
	CHECK_RANGE("int: steady link keeps w_old+beta", st.cwnd_bytes, 7499, 7501);
	w0 = st.cwnd_bytes;
	/* Queue jumps by one BDP in 50 µs: λ/b = 2, ν/(bτ) = 2 → Γ = 4 → smoothed
	 * with Δt = τ gives 4, w = 6875/4 + 625 ≈ 2343 → floor 2896. */
	s.hop[0].ts_ns = 100000;
	s.hop[0].tx_bytes = 12500;
	s.hop[0].qlen_bytes = 6250;
	next_epoch(&a);
	dc_powertcp_on_ack(&st, &c, &a, &s);
	CHECK_RANGE("int: queue step power ~4", st.power_q16, Q(3.99), Q(4.01));
	CHECK("int: queue step cuts the window", st.cwnd_bytes < w0 / 2, "%u !< %u",
	      st.cwnd_bytes, w0 / 2);
}


/*
 * Packet-level single bottleneck with a base RTT of 1 ms (the demo's delay
 * line): one window-limited flow paced at cwnd/τ, MSS packets through a
 * FIFO served at 1 Gbit/s, one ACK per packet carrying the INT hop the
 * packet saw at enqueue, 1 ms after it left the queue.  The law must hold
 * the queue near q_e = β.  Pairing the power with a window one epoch
 * newer than the one that sent the measured bytes swung this queue
 * between 0 and 1.3 MB (mean 170–240 kB); paired right, it stays within
 * 0–110 kB, mean ≈ β (what is left is the burst a window increase sends
 * at cwnd/τ).
 */
#define PKT_TAU_US 1000
#define PKT_MSS 1448
#define PKT_STEPS_US 400000
#define PKT_INFLIGHT_MAX 2048

struct pkt_ack {
	__u64 due_us;
	__u32 ack_seq;
	struct dc_int_hop hop;
};

static void run_packets(__u32 w0, double *qmin, double *qmax, double *qmean, double *tput)
{
	const double b = 125.0; /* bytes per µs */
	static struct pkt_ack acks[PKT_INFLIGHT_MAX];
	static __u32 fifo_end[PKT_INFLIGHT_MAX];	/* seq past each queued packet */
	static struct dc_int_hop fifo_hop[PKT_INFLIGHT_MAX];
	struct dc_cc_cfg c = cfg_default();
	struct dc_ptcp_state st;
	struct dc_int_stack s = { .nhops = 1 };
	__u32 snd_nxt = 0, snd_una = 0, ah = 0, at = 0, fh = 0, ft = 0;
	double q = 0, served = 0, next_send = 0, qsum = 0, sent0 = 0;
	__u64 t, n = 0;

	c.base_rtt_us = PKT_TAU_US;
	c.expected_flows = 3;
	dc_ptcp_state_init(&st, &c, DC_CC_POWERTCP, 0, 2 * PKT_MSS);
	st.cwnd_bytes = st.cwnd_old_bytes = w0;
	*qmin = 1e18;
	*qmax = 0;
	for (t = 0; t < PKT_STEPS_US; t++) {
		/* ACKs due now. */
		while (ah != at && acks[ah % PKT_INFLIGHT_MAX].due_us <= t) {
			struct pkt_ack *k = &acks[ah++ % PKT_INFLIGHT_MAX];
			struct dc_ptcp_ack a = { .min_rtt_us = PKT_TAU_US, .min_cwnd_bytes = 2 * PKT_MSS,
						 .max_cwnd_bytes = 64u << 20, .now_us = 1000 + t };

			snd_una = k->ack_seq;
			a.ack_seq = snd_una;
			a.snd_nxt = snd_nxt;
			s.hop[0] = k->hop;
			dc_powertcp_on_ack(&st, &c, &a, &s);
		}
		/* Window-limited sender paced at cwnd/τ. */
		while (snd_nxt - snd_una + PKT_MSS <= st.cwnd_bytes && next_send <= t &&
		       ft - fh < PKT_INFLIGHT_MAX) {
			struct dc_int_hop *h = &fifo_hop[ft % PKT_INFLIGHT_MAX];

			h->qlen_bytes = (__u32)q;
			h->rate_mbps = 1000;
			h->ts_ns = t * 1000 + 1;
			h->tx_bytes = (__u64)served;
			snd_nxt += PKT_MSS;
			fifo_end[ft++ % PKT_INFLIGHT_MAX] = snd_nxt;
			q += PKT_MSS;
			next_send = (next_send < t ? t : next_send) +
				    (double)PKT_MSS * PKT_TAU_US / st.cwnd_bytes;
		}
		/* The bottleneck serves b bytes a µs; a packet done is ACKed τ later. */
		if (q > 0) {
			double d = q < b ? q : b;

			q -= d;
			served += d;
		}
		while (fh != ft && (double)(snd_nxt - fifo_end[fh % PKT_INFLIGHT_MAX]) >= q - 0.5) {
			struct pkt_ack *k = &acks[at++ % PKT_INFLIGHT_MAX];

			k->due_us = t + PKT_TAU_US;
			k->ack_seq = fifo_end[fh % PKT_INFLIGHT_MAX];
			k->hop = fifo_hop[fh % PKT_INFLIGHT_MAX];
			fh++;
		}
		if (t == PKT_STEPS_US / 2)
			sent0 = served;
		if (t >= PKT_STEPS_US / 2) { /* the second half, past start-up */
			*qmin = q < *qmin ? q : *qmin;
			*qmax = q > *qmax ? q : *qmax;
			qsum += q;
			n++;
		}
	}
	*qmean = qsum / n;
	*tput = (served - sent0) / (b * n);
}

static void test_packets_long_rtt(void)
{
	/* β = HostBw·τ/N = 125 000/3 ≈ 41.7 kB. */
	const double beta = 125000.0 / 3;
	static const __u32 starts[] = { 20000, 166667, 400000 };
	double qmin, qmax, qmean, tput;
	unsigned i;

	for (i = 0; i < 3; i++) {
		char name[96];

		run_packets(starts[i], &qmin, &qmax, &qmean, &tput);
		printf("  packets tau=1ms from %u: queue min %.0f max %.0f mean %.0f, utilisation %.3f\n",
		       starts[i], qmin, qmax, qmean, tput);
		snprintf(name, sizeof(name), "int 1 ms: queue stays below 3 beta from %u", starts[i]);
		CHECK(name, qmax < 3 * beta, "%.0f", qmax);
		snprintf(name, sizeof(name), "int 1 ms: queue mean near beta from %u", starts[i]);
		CHECK_RANGE(name, qmean, beta * 0.5, beta * 1.5);
		snprintf(name, sizeof(name), "int 1 ms: link full from %u", starts[i]);
		CHECK(name, tput >= 0.97 && tput <= 1.01, "%.3f", tput);
	}
}

/* An epoch whose end comes less than τ of switch time after its start
 * (the flow had stalled) is stretched: no update, and the next ACK past τ
 * measures power and own bytes over the whole span. */
static void test_epoch_stretch(void)
{
	struct dc_cc_cfg c = cfg_default();
	struct dc_ptcp_state st;
	struct dc_int_stack s = { .nhops = 1 };
	struct dc_ptcp_ack a = { .min_rtt_us = 50, .min_cwnd_bytes = 2896, .max_cwnd_bytes = ~0U,
				 .ack_seq = 0, .snd_nxt = 2500 };
	__u32 old_seq;
	bool up;

	c.gamma_q16 = Q(1.0);
	dc_ptcp_state_init(&st, &c, DC_CC_POWERTCP, 0, 2896);
	s.hop[0] = (struct dc_int_hop){ .rate_mbps = 1000, .ts_ns = 0, .tx_bytes = 0 };
	dc_powertcp_on_ack(&st, &c, &a, &s); /* first epoch end: reference only */
	old_seq = st.old_seq;
	/* Epoch end 20 µs later, 2500 bytes ACKed: too short to measure. */
	a.ack_seq = 2500;
	a.snd_nxt = 9000;
	s.hop[0].ts_ns = 20000;
	s.hop[0].tx_bytes = 2500;
	up = dc_powertcp_on_ack(&st, &c, &a, &s);
	CHECK_EQ("int: epoch shorter than tau does not update", up, 0);
	CHECK_EQ("int: short epoch keeps its start", st.old_seq, old_seq);
	/* 50 µs after the reference, 6250 bytes in all: one full link over τ. */
	a.ack_seq = 6250;
	s.hop[0].ts_ns = 50000;
	s.hop[0].tx_bytes = 6250;
	up = dc_powertcp_on_ack(&st, &c, &a, &s);
	CHECK_EQ("int: stretched epoch updates", up, 1);
	CHECK_RANGE("int: stretched epoch power over the span", st.power_q16, Q(1.0) - 2,
		    Q(1.0) + 2);
	/* w_old = the 6250 bytes ACKed over the whole span, Γ = 1: w = 6250 + β. */
	CHECK_RANGE("int: w_old is the span's own bytes", st.cwnd_bytes, 6875 - 1, 6875 + 1);
}

/* Restart after idle: a flow that ended a burst at a small window with hop
 * samples and power remembered starts the next one as a new flow would. */

int main(void)
{
	test_equilibrium();
	test_once_per_rtt();
	test_queue_step_response();
	test_packets_long_rtt();
	test_epoch_stretch();
	return check_failed;
}
