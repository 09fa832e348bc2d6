// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * Host unit tests of the PowerTCP / θ-PowerTCP control law
 * (include/dcbpf/powertcp.h) against hand-worked cases of the law (Addanki thesis §2.2).
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "dcbpf/powertcp.h"
#include "ptcpfix.h"

static void test_parameters(void)
{
	struct dc_cc_cfg c = cfg_default();

	/* 1 Gbit/s × 50 µs = 6250 bytes; β = BDP / N. */
	CHECK_EQ("bdp 1G x 50us", dc_ptcp_bdp_bytes(1000, 50), 6250);
	CHECK_EQ("beta derived HostBw*tau/N", dc_ptcp_beta_bytes(&c, 50), 625);
	c.beta_bytes = 3000;
	CHECK_EQ("beta configured wins", dc_ptcp_beta_bytes(&c, 50), 3000);
	c = cfg_default();
	CHECK_EQ("cwnd_init = HostBw*tau", dc_ptcp_cwnd_init_bytes(&c, 50), 6250);
	/* rate = cwnd/τ: 6250 B / 50 µs = 125 MB/s = 1 Gbit/s. */
	CHECK_EQ("pacing cwnd/tau", dc_ptcp_pacing_Bps(6250, 50), 125000000ULL);
	/* τ: configured, else min RTT, else the default. */
	CHECK_EQ("tau configured", dc_ptcp_tau_us(&c, 7), 50);
	c.base_rtt_us = 0;
	CHECK_EQ("tau tracks min rtt", dc_ptcp_tau_us(&c, 7), 7);
	CHECK_EQ("tau default before samples", dc_ptcp_tau_us(&c, 0), DC_DEFAULT_TAU_US);
	CHECK_EQ("tau ignores unset min_rtt", dc_ptcp_tau_us(&c, ~0U), DC_DEFAULT_TAU_US);
	c.expected_flows = 0;
	CHECK_EQ("beta with N=0 treated as 1", dc_ptcp_beta_bytes(&c, 50), 6250);
}

/* Eq. 2.16 by hand: w_old = 20000, Γ = 2.0, β = 1000, γ = 0.9, w = 10000
 * → 0.9·(20000/2 + 1000) + 0.1·10000 = 10900. */
static void test_update_window(void)
{
	__u32 w = dc_ptcp_update_window(10000, 20000, Q(2.0), 1000, Q(0.9), 0, ~0U);

	CHECK_RANGE("Eq.2.16 hand-worked", w, 10899, 10901);
	/* γ = 1: the old window is forgotten entirely. */
	w = dc_ptcp_update_window(10000, 20000, Q(2.0), 1000, Q(1.0), 0, ~0U);
	CHECK_EQ("gamma=1 replaces window", w, 11000);
	/* Γ = 1 and β = 0 at γ = 0.5: midway between w and w_old. */
	w = dc_ptcp_update_window(10000, 20000, Q(1.0), 0, Q(0.5), 0, ~0U);
	CHECK_EQ("gamma=0.5 EWMA midpoint", w, 15000);
	/* Clamps. */
	w = dc_ptcp_update_window(10000, 20000, Q(1000.0), 0, Q(1.0), 2896, ~0U);
	CHECK_EQ("window floor", w, 2896);
	w = dc_ptcp_update_window(10000, 20000, Q(0.25), 0, Q(1.0), 0, 50000);
	CHECK_EQ("window ceiling", w, 50000);
	/* Γ = 0 (no information) is treated as 1, never a division by zero. */
	w = dc_ptcp_update_window(10000, 20000, 0, 0, Q(1.0), 0, ~0U);
	CHECK_EQ("zero power treated as equilibrium", w, 20000);
}

/* The γ EWMA converges geometrically: after k updates with a fixed target
 * the distance shrinks by (1 − γ)^k (Theorem 2's exponential decay). */
static void test_gamma_ewma(void)
{
	__u32 w = 100000, target = 10000;
	int k;

	for (k = 0; k < 3; k++)
		w = dc_ptcp_update_window(w, target, Q(1.0), 0, Q(0.9), 0, ~0U);
	/* 10000 + 90000·0.1^3 = 10090 */
	CHECK_RANGE("gamma EWMA decay 0.1^k", w, 10089, 10091);
}

static __s64 theta_np(__u32 prev, __u32 rtt, __u64 dt, __u32 tau)
{
	__s64 v = 0x7fffffff;

	if (!dc_theta_norm_power(prev, rtt, dt, tau, &v))
		return 0x7fffffff; /* "no sample" marker for the checks below */
	return v;
}

/* The window grows only into what the flow uses (application-limited
 * flows must not inflate it); it is never cut for being unused. */
static void test_max_cwnd(void)
{
	CHECK_EQ("max cwnd: 2x in flight", dc_ptcp_max_cwnd_bytes(10000, 10, 1000, ~0U), 20000);
	CHECK_EQ("max cwnd: never below the current window",
		 dc_ptcp_max_cwnd_bytes(50000, 10, 1000, ~0U), 50000);
	CHECK_EQ("max cwnd: socket clamp wins", dc_ptcp_max_cwnd_bytes(10000, 100, 1000, 30), 30000);
	CHECK_EQ("max cwnd: saturates at 4 GiB", dc_ptcp_max_cwnd_bytes(10, ~0U, 65535, ~0U),
		 0xffffffffU);
}

static void test_theta_power(void)
{
	/* Flat RTT equal to τ: Γ = 1. */
	CHECK_EQ("theta: rtt=tau flat → 1", theta_np(50, 50, 100, 50), Q(1.0));
	/* Flat RTT 2τ (queue of one BDP): Γ = 2. */
	CHECK_EQ("theta: rtt=2tau flat → 2", theta_np(100, 100, 100, 50), Q(2.0));
	/* Rising: θ̇ = 50/100 = 0.5, θ = 100, τ = 50 → 1.5·2 = 3. */
	CHECK_EQ("theta: rising gradient", theta_np(50, 100, 100, 50), Q(3.0));
	/* Negative gradient: θ̇ = −0.5 → 0.5·100/100 = 0.5. */
	CHECK_EQ("theta: negative gradient", theta_np(150, 100, 100, 100), Q(0.5));
	/* θ̇ = −2 (a noise spike falling back): (−1)·100/100 = −1, kept signed. */
	CHECK("theta: gradient below -1 stays signed", theta_np(300, 100, 100, 100) == -(__s64)Q(1.0),
	      "%lld", (long long)theta_np(300, 100, 100, 100));
	CHECK_EQ("theta: dt=0 gives no sample", theta_np(100, 120, 0, 50), 0x7fffffff);
	/* Long idle gap: the gradient vanishes, power = θ/τ. */
	CHECK_EQ("theta: long gap", theta_np(50, 100, 10ULL * 1000 * 1000 * 1000, 50), Q(2.0));
	/* Huge jumps saturate in both directions. */
	CHECK_EQ("theta: saturates up", theta_np(10, 4000000000U, 1, 10), DC_NORM_POWER_MAX_Q16);
	CHECK("theta: saturates down", theta_np(4000000000U, 10, 1, 1) == -(__s64)DC_NORM_POWER_MAX_Q16,
	      "%lld", (long long)theta_np(4000000000U, 10, 1, 1));
	/* The update sees the bounded value. */
	CHECK_EQ("power for update: negative → floor", dc_power_for_update(-(__s64)Q(3.0)),
		 DC_NORM_POWER_MIN_Q16);
	CHECK_EQ("power for update: in range kept", dc_power_for_update(Q(1.5)), Q(1.5));
	CHECK_EQ("power for update: ceiling", dc_power_for_update((__s64)DC_NORM_POWER_MAX_Q16 * 4),
		 DC_NORM_POWER_MAX_Q16);
}

/* Drive the θ law through intervals of 5 ACKs, 10 µs apart; rtt_of(k, i)
 * gives the RTT of ACK i in interval k.  Returns the final window. */
static __u32 theta_intervals(struct dc_ptcp_state *st, int n, __u32 (*rtt_of)(int, int))
{
	struct dc_cc_cfg c = cfg_default();
	struct dc_ptcp_ack a = { .min_rtt_us = 50, .min_cwnd_bytes = 2896, .max_cwnd_bytes = ~0U };
	__u32 seq = 0;
	int k, i;

	a.now_us = 1000;
	for (k = 0; k < n; k++) {
		for (i = 0; i < 5; i++) {
			seq += 1448;
			a.ack_seq = seq;
			a.snd_nxt = seq + 5 * 1448;
			a.now_us += 10;
			a.rtt_us = rtt_of(k, i);
			st->next_update_seq = seq + 1448 * (4 - i); /* interval ends at i = 4 */
			dc_theta_on_ack(st, &c, &a);
		}
	}
	return st->cwnd_bytes;
}

static __u32 rtt_quiet(int k, int i) { (void)k; (void)i; return 50; }
static __u32 rtt_spiky(int k, int i) { return (k % 3 == 1 && i == 2) ? 700 : 50; }
static __u32 rtt_queue(int k, int i) { (void)i; return k < 20 ? 50 : 100; }

/* θ law: RTT spikes in single samples (host scheduling noise) do not move
 * the window; a queue, which delays every sample, does. */
static void test_theta_noise_vs_queue(void)
{
	struct dc_cc_cfg c = cfg_default();
	struct dc_ptcp_state st;
	__u32 quiet, spiky, queued;

	dc_ptcp_state_init(&st, &c, DC_CC_THETA, 0, 2896);
	quiet = theta_intervals(&st, 40, rtt_quiet);
	dc_ptcp_state_init(&st, &c, DC_CC_THETA, 0, 2896);
	spiky = theta_intervals(&st, 40, rtt_spiky);
	dc_ptcp_state_init(&st, &c, DC_CC_THETA, 0, 2896);
	queued = theta_intervals(&st, 40, rtt_queue);
	CHECK_EQ("theta: isolated RTT spikes leave the window alone", spiky, quiet);
	CHECK("theta: a standing queue cuts the window", queued < quiet * 0.8,
	      "%u !< 0.8 * %u", queued, quiet);
}

static void test_smooth(void)
{
	/* Δt = τ/2: halfway.  Δt ≥ τ: replaced. First sample: taken as is. */
	CHECK_EQ("smooth half", dc_ptcp_smooth(Q(1.0), Q(3.0), 25, 50, false), Q(2.0));
	CHECK_EQ("smooth dt>=tau replaces", dc_ptcp_smooth(Q(1.0), Q(3.0), 500, 50, false), Q(3.0));
	CHECK_EQ("smooth first sample", dc_ptcp_smooth(Q(7.0), Q(3.0), 1, 50, true), Q(3.0));
	CHECK_EQ("smooth dt=0 keeps", dc_ptcp_smooth(Q(1.0), Q(3.0), 0, 50, false), Q(1.0));
	CHECK("smooth signed", dc_ptcp_smooth(Q(1.0), -(__s64)Q(3.0), 25, 50, false) == -(__s64)Q(1.0),
	      "%lld", (long long)dc_ptcp_smooth(Q(1.0), -(__s64)Q(3.0), 25, 50, false));
}

/* Reference INT power in double precision. */
static double int_power_ref(double q0, double q1, double tx0, double tx1, double dt_ns,
			    double rate_mbps, double tau_us)
{
	double b = rate_mbps * 1e6 / 8 / 1e9; /* bytes per ns */
	double qdot = (q1 - q0) / dt_ns, mu = (tx1 - tx0) / dt_ns;
	double bdp = rate_mbps * tau_us / 8;

	return (qdot + mu) * (q1 + bdp) / (b * b * tau_us * 1e3);
}

static void test_int_hop_power(void)
{
	struct dc_ptcp_hop_prev prev = { .qlen_bytes = 0, .ts_ns = 1000, .tx_bytes = 0 };
	struct dc_int_hop cur = { .qlen_bytes = 0, .rate_mbps = 1000, .ts_ns = 11000,
				  .tx_bytes = 1250 };
	__u32 dt = 0, p;

	/* Full link (1250 B in 10 µs at 1 Gbit/s), empty queue: Γ = 1. */
	p = dc_int_hop_norm_power(&prev, &cur, 50, &dt);
	CHECK_EQ("int: saturated link, empty queue → 1", p, Q(1.0));
	CHECK_EQ("int: dt reported", dt, 10000);
	/* Half utilised: μ = b/2 → Γ = 0.5. */
	cur.tx_bytes = 625;
	CHECK_EQ("int: half utilised → 0.5", dc_int_hop_norm_power(&prev, &cur, 50, &dt), Q(0.5));
	/* Queue step: +1250 B during 10 µs on a full link and q = 1250:
	 * λ/b = 2, ν/(bτ) = (1250 + 6250)/6250 = 1.2 → 2.4. */
	cur.tx_bytes = 1250;
	cur.qlen_bytes = 1250;
	p = dc_int_hop_norm_power(&prev, &cur, 50, &dt);
	CHECK_RANGE("int: queue step → 2.4", p, Q(2.4) - 2, Q(2.4) + 2);
	/* Draining queue: q 5000 → 3750 at full rate: λ = 0, floor. */
	prev.qlen_bytes = 5000;
	cur.qlen_bytes = 3750;
	CHECK_EQ("int: nothing arriving → power ~0 (kept for the smoothing)",
		 dc_int_hop_norm_power(&prev, &cur, 50, &dt), 1);
	/* Unusable pairs. */
	prev.qlen_bytes = 0;
	cur.ts_ns = prev.ts_ns;
	CHECK_EQ("int: dt=0 → no sample", dc_int_hop_norm_power(&prev, &cur, 50, &dt), 0);
	cur.ts_ns = prev.ts_ns + DC_INT_MAX_DT_NS + 1;
	CHECK_EQ("int: gap beyond max dt → no sample",
		 dc_int_hop_norm_power(&prev, &cur, 50, &dt), 0);
	cur.ts_ns = 11000;
	cur.rate_mbps = 0;
	CHECK_EQ("int: no rate → no sample", dc_int_hop_norm_power(&prev, &cur, 50, &dt), 0);
	/* Counters wrap modulo 2^32 (truncated wire fields). */
	prev.ts_ns = 0xfffff000u;
	prev.tx_bytes = 0xffffff00u;
	cur.rate_mbps = 1000;
	cur.ts_ns = 0x100000000ULL + 0x1710; /* dt = 10000 ns across the wrap */
	cur.tx_bytes = 0x100000000ULL + 1250 - 0x100;
	cur.qlen_bytes = 0;
	CHECK_EQ("int: wrap-safe deltas", dc_int_hop_norm_power(&prev, &cur, 50, &dt), Q(1.0));
}

/* No overflow at 100 Gbit/s with deep queues and gaps up to the limit. */
static void test_int_high_rate(void)
{
	static const struct { double q0, q1, dtx, dt_ns, tau; } cases[] = {
		{ 0, 0, 12500, 1000, 10 },			/* full link, 1 µs */
		{ 100000, 2000000, 1250000, 100000, 10 },	/* incast onto 100G */
		{ 0, 30000000, 12500000, 1000000, 20 },		/* 30 MB queue */
		{ 5000000, 0, 1250000000, 99000000, 5 },	/* 99 ms gap */
	};
	unsigned i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dc_ptcp_hop_prev prev = { .qlen_bytes = (__u32)cases[i].q0, .ts_ns = 0,
						 .tx_bytes = 0 };
		struct dc_int_hop cur = { .qlen_bytes = (__u32)cases[i].q1, .rate_mbps = 100000,
					  .ts_ns = (__u64)cases[i].dt_ns,
					  .tx_bytes = (__u64)cases[i].dtx };
		double ref = int_power_ref(cases[i].q0, cases[i].q1, 0, cases[i].dtx,
					   cases[i].dt_ns, 100000, cases[i].tau);
		__u32 dt, p = dc_int_hop_norm_power(&prev, &cur, (__u32)cases[i].tau, &dt);
		double got = (double)p / DC_Q16_ONE;
		char name[64];

		if (ref > 1024)
			ref = 1024;
		snprintf(name, sizeof(name), "int 100G case %u matches reference", i);
		CHECK(name, rel_err(got, ref) < 0.01, "got %f want %f", got, ref);
	}
}

/* Max over hops picks the bottleneck and remembers all hops. */
static void test_int_max_over_hops(void)
{
	struct dc_ptcp_state st;
	struct dc_cc_cfg c = cfg_default();
	struct dc_int_stack s = { .nhops = 3 };
	__u64 dt_us;
	__u32 hop, p, i;

	dc_ptcp_state_init(&st, &c, DC_CC_POWERTCP, 0, 2896);
	for (i = 0; i < 3; i++) {
		s.hop[i].rate_mbps = 1000;
		s.hop[i].ts_ns = 1000;
	}
	p = dc_int_norm_power(&st, &s, 50, &dt_us, &hop);
	CHECK_EQ("int: first stack has no previous sample", p, 0);
	CHECK_EQ("int: stack remembered", st.nprev, 3);
	for (i = 0; i < 3; i++) {
		s.hop[i].ts_ns = 51000;
		s.hop[i].tx_bytes = 6250; /* full link over τ = 50 µs */
	}
	s.hop[1].qlen_bytes = 6250; /* hop 1 is the bottleneck: +1 BDP in τ */
	p = dc_int_norm_power(&st, &s, 50, &dt_us, &hop);
	/* λ/b = (6250 + 6250)/6250 = 2, ν/(bτ) = (6250 + 6250)/6250 = 2 */
	CHECK_RANGE("int: max over hops", p, Q(4.0) - 2, Q(4.0) + 2);
	CHECK_EQ("int: bottleneck hop index", hop, 1);
	CHECK_EQ("int: bottleneck dt", dt_us, 50);
	/* A stack only 10 µs later is not differentiated (less than τ)... */
	for (i = 0; i < 3; i++) {
		s.hop[i].ts_ns = 61000;
		s.hop[i].tx_bytes = 6250 + 8000; /* a burst: 8 kB in 10 µs */
	}
	p = dc_int_norm_power(&st, &s, 50, &dt_us, &hop);
	CHECK_EQ("int: samples closer than tau give no power", p, 0);
	/* ...it stays the reference until τ has passed: the burst averages out. */
	for (i = 0; i < 3; i++) {
		s.hop[i].ts_ns = 101000;
		s.hop[i].tx_bytes = 6250 + 6250;
	}
	s.hop[1].qlen_bytes = 6250;
	p = dc_int_norm_power(&st, &s, 50, &dt_us, &hop);
	CHECK_RANGE("int: rate over tau, not over the burst", p, Q(2.0) - 2, Q(2.0) + 2);
	/* More hops than slots: only DC_INT_MAX_HOPS are read. */
	s.nhops = 99;
	p = dc_int_norm_power(&st, &s, 50, &dt_us, &hop);
	CHECK_EQ("int: nhops clamped", st.nprev, DC_INT_MAX_HOPS);
}
static void test_idle_restart(void)
{
	struct dc_cc_cfg c = cfg_default();
	struct dc_ptcp_state st;
	struct dc_int_stack s = { .nhops = 1 };
	struct dc_ptcp_ack a = { .min_rtt_us = 50, .min_cwnd_bytes = 2896, .max_cwnd_bytes = ~0U,
				 .ack_seq = 0, .snd_nxt = 2500 };

	CHECK_EQ("restart: idle longer than the RTO", dc_ptcp_idle_restart(51, 50), 1);
	CHECK_EQ("restart: idle of exactly the RTO is not", dc_ptcp_idle_restart(50, 50), 0);
	CHECK_EQ("restart: a short pause is not", dc_ptcp_idle_restart(3, 50), 0);
	/* lsndtime ahead of the clock read (jiffies wrap handled by u32 math) */
	CHECK_EQ("restart: across a jiffies wrap", dc_ptcp_idle_restart(5U - 0xfffffff0U, 10), 1);

	dc_ptcp_state_init(&st, &c, DC_CC_POWERTCP, 0, 2896);
	st.sport = 40001;
	s.hop[0] = (struct dc_int_hop){ .rate_mbps = 1000, .ts_ns = 0, .tx_bytes = 0 };
	dc_powertcp_on_ack(&st, &c, &a, &s);
	/* a heavily loaded hop: the window goes to the minimum */
	a.ack_seq = 2500;
	a.snd_nxt = 9000;
	s.hop[0] = (struct dc_int_hop){ .rate_mbps = 1000, .ts_ns = 60000, .tx_bytes = 7500,
					.qlen_bytes = 200000 };
	dc_powertcp_on_ack(&st, &c, &a, &s);
	CHECK("restart: precondition, window cut by the queue", st.cwnd_bytes < 6250, "cwnd %u",
	      st.cwnd_bytes);
	CHECK("restart: precondition, hop samples kept", st.nprev == 1, "nprev %u", st.nprev);

	/* τ from the configured base RTT: window HostBw·τ = 6250 */
	dc_ptcp_state_restart(&st, &c, 123456, 80, 0, 2896);
	CHECK_EQ("restart: window HostBw*tau", st.cwnd_bytes, 6250);
	CHECK_EQ("restart: w_old alike", st.cwnd_old_bytes, 6250);
	CHECK_EQ("restart: epoch starts at snd_nxt", st.epoch_ack_seq, 123456);
	CHECK_EQ("restart: old hop samples dropped", st.nprev, 0);
	CHECK_EQ("restart: no power remembered", st.flags & DC_PTCP_F_HAVE_POWER, 0);
	CHECK_EQ("restart: mode back to init", st.mode, DC_MODE_INIT);
	CHECK_EQ("restart: keeps the CC", st.cc, DC_CC_POWERTCP);
	CHECK_EQ("restart: keeps the port for release", st.sport, 40001);
	/* τ from the flow's min RTT when none is configured */
	c.base_rtt_us = 0;
	dc_ptcp_state_restart(&st, &c, 0, 80, 0, 2896);
	CHECK_EQ("restart: tau from the measured min RTT", st.tau_us, 80);
	CHECK_EQ("restart: window from that tau", st.cwnd_bytes, 10000);
	/* never below the minimum window */
	c.host_bw_mbps = 1;
	dc_ptcp_state_restart(&st, &c, 0, 80, 0, 2896);
	CHECK_EQ("restart: at least the minimum window", st.cwnd_bytes, 2896);
}

/* The tracing lease of dc_cc_tron (include/dcbpf/types.h). */
static void test_trace_lease(void)
{
	const __u64 ms = DC_TRACE_NS_PER_MS, t = 5000 * ms + 123;
	__u32 l = dc_trace_lease(t);

	CHECK_EQ("lease: now + DC_TRACE_LEASE_MS, in ms", l, 5000 + DC_TRACE_LEASE_MS);
	CHECK("lease: live when written", dc_trace_live(l, t), "");
	CHECK("lease: live 1 ms before it ends", dc_trace_live(l, t + (DC_TRACE_LEASE_MS - 1) * ms), "");
	CHECK("lease: over when it ends (a reader killed with -9)",
	      !dc_trace_live(l, (5000ULL + DC_TRACE_LEASE_MS) * ms), "");
	CHECK("lease: over long after", !dc_trace_live(l, t + 3600 * 1000 * ms), "");
	CHECK("lease: 0 is off whatever the time", !dc_trace_live(0, t) && !dc_trace_live(0, 0), "");
	/* across the 2^32 ms wrap (49.7 days of uptime) */
	const __u64 wrap = (1ULL << 32) * ms;
	__u32 lw = dc_trace_lease(wrap - 500 * ms);

	CHECK_EQ("lease: wraps past 2^32 ms", lw, DC_TRACE_LEASE_MS - 500);
	CHECK("lease: live across the wrap", dc_trace_live(lw, wrap - 500 * ms) && dc_trace_live(lw, wrap + ms), "");
	CHECK("lease: over after the wrap", !dc_trace_live(lw, wrap + DC_TRACE_LEASE_MS * ms), "");
	CHECK_EQ("lease: never written as 0 (off)", dc_trace_lease(wrap - DC_TRACE_LEASE_MS * ms), 1);
	/* a reader that stopped renewing at t and one still renewing */
	CHECK("lease: a renewed lease stays live",
	      dc_trace_live(dc_trace_lease(t + 1900 * ms), t + 3000 * ms), "");
}

int main(void)
{
	test_parameters();
	test_update_window();
	test_gamma_ewma();
	test_max_cwnd();
	test_theta_power();
	test_theta_noise_vs_queue();
	test_smooth();
	test_int_hop_power();
	test_int_high_rate();
	test_int_max_over_hops();
	test_idle_restart();
	test_trace_lease();
	return check_failed;
}
