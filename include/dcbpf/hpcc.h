/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * HPCC control law (HPCC: High Precision Congestion Control, SIGCOMM'19,
 * Algorithm 1), pure and fixed point: the BPF congestion control "hpcc",
 * the host unit tests and the benchmark run this very code.
 *
 * Per ACK, from the echoed INT stack (same feedback as PowerTCP):
 *   MeasureInflight (l.1-10), for each hop i with a previous record:
 *     txRate = (txBytes − txBytes')/(ts − ts')                 [bytes/ns]
 *     u'     = min(qlen, qlen')/(B·T) + txRate/B               [1]
 *     u = max over hops of u', τ = ts − ts' of that hop, τ = min(τ, T)
 *     U = (1 − τ/T)·U + (τ/T)·u                                 [1]
 *   ComputeWind (l.11-20), W_c the reference window of this RTT:
 *     U ≥ η or incStage ≥ maxStage:  W = W_c/(U/η) + W_AI,  incStage = 0
 *     otherwise:                      W = W_c + W_AI,        incStage++
 *   W_c (and incStage) move only on the first ACK past lastUpdateSeq, which
 *   then becomes snd_nxt (NewAck, l.21-27); R = W/T.
 * Parameters (§3.3, §4): η = 95 %, maxStage = 5, W_init = B_NIC·T,
 * W_AI = W_init·(1 − η)/N for N expected flows on a link.
 *
 * Linux mapping (docs/baselines.md): the paper's R = W/T ≤ B_NIC caps the
 * pacing rate, not the window.  On a NIC the RTT is T; on a host it is T
 * plus the stack's own delay, and a window held at B_NIC·T would hold the
 * link at T/RTT of its rate with U < η forever.  The window is bounded by
 * what the socket allows (twice what it had in flight, the clamp) and by
 * U itself: U measures the link's real use and stops W at η.
 *
 * Units: windows in bytes, T in µs, INT timestamps in ns, rates in Mbit/s,
 * U, u and η in Q16 (DC_Q16_ONE = 1.0, i.e. 100 % utilisation).
 */
#ifndef DCBPF_HPCC_H
#define DCBPF_HPCC_H

#include "fixed.h"
#include "types.h"
#include "powertcp.h"	/* τ, BDP, hop records, sequence comparison */

/* rounded to the nearest Q16 step, as the config parser stores 0.95 */
#define DC_HPCC_DEFAULT_ETA_Q16 ((__u32)((DC_Q16_ONE * 95 + 50) / 100))
#define DC_HPCC_DEFAULT_MAX_STAGE 5
/* Bound of one hop's u' (a link 1024× oversubscribed): keeps U·T inside
 * 64 bits and W_c·η/U from rounding to nothing. */
#define DC_HPCC_U_MAX_Q16 (1024 * DC_Q16_ONE)

/*
 * Per-connection state, in the kernel's CC private area (104 bytes).
 */
struct dc_hpcc_state {
	__u32 cwnd_bytes;	/* W */
	__u32 wc_bytes;		/* W_c: reference window of this RTT */
	__u32 last_update_seq;	/* lastUpdateSeq (snd_nxt at the last W_c update) */
	__u32 u_q16;		/* U, the smoothed utilisation */
	__u32 tau_us;		/* T in use */
	__u8 inc_stage;		/* incStage */
	__u8 nprev;		/* hops in prev[]; 0 = no INT record yet */
	__u8 mode;		/* enum dc_cc_mode */
	__u8 bottleneck_hop;	/* hop of the last max u' */
	__u16 sport;		/* local port, for the flow key at release */
	__u16 flags;		/* DC_HPCC_F_* */
	struct dc_ptcp_hop_prev prev[DC_INT_MAX_HOPS];	/* L: the last INT records */
};

#define DC_HPCC_F_HAVE_U 0x1	/* u_q16 holds a measurement */

DC_INLINE __u32 dc_hpcc_eta_q16(const struct dc_cc_cfg *cfg)
{
	return cfg->eta_q16 ? cfg->eta_q16 : DC_HPCC_DEFAULT_ETA_Q16;
}

/* W_init = B_NIC·T: the first RTT at line rate. */
DC_INLINE __u32 dc_hpcc_winit_bytes(const struct dc_cc_cfg *cfg, __u32 tau_us)
{
	return (__u32)dc_min_u64(dc_ptcp_bdp_bytes(cfg->host_bw_mbps, tau_us), DC_U32_MAX);
}

/* W_AI = W_init·(1 − η)/N unless configured (beta_bytes, the additive
 * increase of every window law here). */
DC_INLINE __u32 dc_hpcc_wai_bytes(const struct dc_cc_cfg *cfg, __u32 tau_us)
{
	__u64 n = cfg->expected_flows ? cfg->expected_flows : 1;
	__u64 eta = dc_min_u64(dc_hpcc_eta_q16(cfg), DC_Q16_ONE);

	if (cfg->beta_bytes)
		return cfg->beta_bytes;
	return (__u32)(dc_q16_mul(dc_hpcc_winit_bytes(cfg, tau_us), DC_Q16_ONE - eta) / n);
}

/*
 * u' of one hop (l.4-5) from its previous record and the current one.
 * The sender's decoder unwraps the wire's 20-bit timestamp and 22-bit byte
 * counter into 64-bit values (docs/int.md); the state keeps their low 32
 * bits and compares modulo 2^32, so a pair across a 2^32 boundary still
 * gives the right difference.  0 when the pair cannot be differentiated:
 * same timestamp, a gap beyond DC_INT_MAX_DT_NS, or no rate (a port whose
 * rate INT cannot report, below 100 Mbit/s).
 */
DC_INLINE __u32 dc_hpcc_hop_u(const struct dc_ptcp_hop_prev *prev, const struct dc_int_hop *cur,
			      __u32 tau_us, __u32 *dt_ns_out)
{
	__u32 dt_ns = (__u32)cur->ts_ns - prev->ts_ns;
	__u32 dtx = (__u32)cur->tx_bytes - prev->tx_bytes;
	__u32 q = cur->qlen_bytes < prev->qlen_bytes ? cur->qlen_bytes : prev->qlen_bytes;
	__u64 bdp, link_bytes, u;

	if (!dt_ns || dt_ns > DC_INT_MAX_DT_NS || !cur->rate_mbps || !tau_us)
		return 0;
	bdp = dc_ptcp_bdp_bytes(cur->rate_mbps, tau_us);
	link_bytes = dc_bytes_in_ns(cur->rate_mbps, dt_ns);
	/* min(qlen, qlen')/(B·T) + txRate/B, with txRate/B = Δtx/(B·dt) */
	u = dc_q16_div(q, bdp ? bdp : 1) + dc_q16_div(dtx, link_bytes ? link_bytes : 1);
	*dt_ns_out = dt_ns;
	/* never 0, which means "no sample" */
	return (__u32)dc_clamp_u64(u, 1, DC_HPCC_U_MAX_Q16);
}

/* U = (1 − τ/T)·U + (τ/T)·u with τ = min(τ, T) (l.8-9), in ns. */
DC_INLINE __u32 dc_hpcc_ewma(__u32 u_old_q16, __u32 u_q16, __u64 tau_ns, __u32 t_us)
{
	__u64 t_ns = (__u64)t_us * DC_NSEC_PER_USEC;

	if (!t_ns)
		return u_q16;
	tau_ns = dc_min_u64(tau_ns, t_ns);
	/* U, u ≤ 2^26 and T ≤ 2^30 ns: each product stays below 2^56. */
	return (__u32)(((__u64)u_old_q16 * (t_ns - tau_ns) + (__u64)u_q16 * tau_ns) / t_ns);
}

/*
 * MeasureInflight (l.1-10): the max u' over the hops, folded into U, and
 * the stack remembered as L (l.27).  False when no hop gave a sample (the
 * ACK carried the same records as the previous one): U is unchanged.
 */
DC_INLINE bool dc_hpcc_measure(struct dc_hpcc_state *st, const struct dc_int_stack *stack,
			       __u32 t_us)
{
	__u32 best = 0, best_dt_ns = 0, best_hop = 0, n = stack->nhops, i;

	if (n > DC_INT_MAX_HOPS)
		n = DC_INT_MAX_HOPS;
	for (i = 0; i < DC_INT_MAX_HOPS; i++) {
		__u32 u, dt_ns = 0;

		if (i >= n)
			break;
		u = i < st->nprev ? dc_hpcc_hop_u(&st->prev[i], &stack->hop[i], t_us, &dt_ns) : 0;
		if (u > best) {
			best = u;
			best_dt_ns = dt_ns;
			best_hop = i;
		}
		dc_int_hop_remember(&st->prev[i], &stack->hop[i]);
	}
	if (n > st->nprev)
		st->nprev = (__u8)n;
	if (!best)
		return false;
	st->bottleneck_hop = (__u8)best_hop;
	/* The first measurement of a flow is taken as is: U has no history
	 * (HPCC starts from U = 1 implicitly by sending W_init for one RTT). */
	st->u_q16 = (st->flags & DC_HPCC_F_HAVE_U) ? dc_hpcc_ewma(st->u_q16, best, best_dt_ns, t_us)
						    : best;
	st->flags |= DC_HPCC_F_HAVE_U;
	return true;
}

/*
 * ComputeWind (l.11-20).  Returns W clamped to [min_bytes, max_bytes];
 * with update_wc, W_c and incStage move as well.
 */
DC_INLINE __u32 dc_hpcc_compute_wind(struct dc_hpcc_state *st, const struct dc_cc_cfg *cfg,
				     __u32 wai_bytes, bool update_wc, __u32 min_bytes,
				     __u32 max_bytes)
{
	__u32 eta = dc_hpcc_eta_q16(cfg), u = st->u_q16 ? st->u_q16 : 1;
	bool mi = u >= eta || st->inc_stage >= cfg->max_stage;
	__u64 w;

	if (mi)		/* W_c/(U/η) + W_AI */
		w = dc_muldiv64(st->wc_bytes, eta, u) + wai_bytes;
	else		/* W_c + W_AI */
		w = (__u64)st->wc_bytes + wai_bytes;
	w = dc_clamp_u64(w, min_bytes, max_bytes);
	if (update_wc) {
		st->inc_stage = mi ? 0 : (__u8)(st->inc_stage < 255 ? st->inc_stage + 1 : 255);
		st->wc_bytes = (__u32)w;
	}
	return (__u32)w;
}

/* R = W/T in bytes per second, at most the NIC rate (NewAck, l.26). */
DC_INLINE __u64 dc_hpcc_pacing_Bps(const struct dc_cc_cfg *cfg, __u32 cwnd_bytes, __u32 t_us)
{
	__u64 nic = (__u64)cfg->host_bw_mbps * DC_USEC_PER_SEC / DC_BITS_PER_BYTE;

	return dc_min_u64(dc_ptcp_pacing_Bps(cwnd_bytes, t_us), nic);
}

/* Fresh state: W = W_c = W_init, no INT record, U unset. */
DC_INLINE void dc_hpcc_state_init(struct dc_hpcc_state *st, const struct dc_cc_cfg *cfg,
				  __u32 snd_nxt, __u32 min_rtt_us, __u32 min_bytes)
{
	__u32 tau = dc_ptcp_tau_us(cfg, min_rtt_us);
	__u32 w = dc_hpcc_winit_bytes(cfg, tau), i;

	if (w < min_bytes)
		w = min_bytes;
	st->cwnd_bytes = w;
	st->wc_bytes = w;
	st->last_update_seq = snd_nxt;
	st->u_q16 = 0;
	st->tau_us = tau;
	st->inc_stage = 0;
	st->nprev = 0;
	st->mode = DC_MODE_INIT;
	st->bottleneck_hop = 0;
	st->sport = 0;
	st->flags = 0;
	for (i = 0; i < DC_INT_MAX_HOPS; i++) {
		st->prev[i].qlen_bytes = 0;
		st->prev[i].ts_ns = 0;
		st->prev[i].tx_bytes = 0;
	}
}

/*
 * NewAck (l.21-27) with an INT stack.  The first stack of a flow is only
 * remembered (there is nothing to differentiate it against) and starts
 * the first RTT: lastUpdateSeq = snd_nxt.  W_c moves on the first ACK past
 * lastUpdateSeq that brings a new record; an ACK repeating the last
 * records (no new u) leaves everything as it is.  The window stays within
 * [a->min_cwnd_bytes, a->max_cwnd_bytes].  Returns true when W was
 * recomputed.
 */
DC_INLINE bool dc_hpcc_on_ack(struct dc_hpcc_state *st, const struct dc_cc_cfg *cfg,
			      const struct dc_ptcp_ack *a, const struct dc_int_stack *stack)
{
	__u32 t = dc_ptcp_tau_us(cfg, a->min_rtt_us);
	bool first = !st->nprev, update_wc;

	st->tau_us = t;
	st->mode = DC_MODE_INT;
	if (!dc_hpcc_measure(st, stack, t)) {
		if (first)
			st->last_update_seq = a->snd_nxt;
		return false;
	}
	update_wc = dc_seq_before(st->last_update_seq, a->ack_seq);
	st->cwnd_bytes = dc_hpcc_compute_wind(st, cfg, dc_hpcc_wai_bytes(cfg, t), update_wc,
					      a->min_cwnd_bytes,
					      dc_max_u64(a->max_cwnd_bytes, a->min_cwnd_bytes));
	if (update_wc)
		st->last_update_seq = a->snd_nxt;
	return true;
}

#endif
