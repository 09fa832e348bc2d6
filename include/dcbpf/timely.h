/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * TIMELY control law (TIMELY: RTT-based Congestion Control for the
 * Datacenter, SIGCOMM'15, Algorithm 1), pure and fixed point: the BPF
 * congestion control "timely", the host unit tests and the benchmark run
 * this very code.
 *
 * Once per completion event (a segment of DC_TIMELY_SEG_BYTES acknowledged),
 * with new_rtt the RTT of that completion:
 *     new_rtt_diff = new_rtt − prev_rtt,  prev_rtt = new_rtt
 *     rtt_diff     = (1 − α)·rtt_diff + α·new_rtt_diff
 *     g            = rtt_diff / minRTT                      (normalised gradient)
 *     new_rtt < T_low:   R = R + δ
 *     new_rtt > T_high:  R = R·(1 − β·(1 − T_high/new_rtt))
 *     g ≤ 0:             R = R + N·δ,  N = 5 after five completions in a
 *                        row with g ≤ 0 (hyper-active increase), else 1
 *     g > 0:             R = R·(1 − β·g)
 * Parameters (§5): α = 0.875, β = 0.8, δ = 10 Mbit/s, T_low = 50 µs,
 * T_high = 500 µs; minRTT is the propagation RTT (here τ: base_rtt_us, or
 * the flow's min RTT).
 *
 * Linux mapping (docs/baselines.md): TIMELY is rate based and has no
 * window.  With pacing, R is the socket's pacing rate and cwnd =
 * R·max(T_high, sRTT): what a flow paced at R has in flight, so the window
 * never takes over from the rate (an RTT above T_high is answered by the
 * law's own cut).  Without pacing, cwnd = R·τ is the only lever.
 *
 * Units: rates in kbit/s, RTTs in µs, rtt_diff in ns (signed), α, β and g
 * in Q16.
 */
#ifndef DCBPF_TIMELY_H
#define DCBPF_TIMELY_H

#include "fixed.h"
#include "types.h"
#include "powertcp.h"	/* τ, sequence comparison, dc_sdiv, struct dc_ptcp_ack */

#define DC_TIMELY_DEFAULT_T_LOW_US 50
#define DC_TIMELY_DEFAULT_T_HIGH_US 500
#define DC_TIMELY_DEFAULT_DELTA_MBPS 10
/* rounded to the nearest Q16 step, as the config parser stores 0.8 */
#define DC_TIMELY_DEFAULT_BETA_Q16 ((__u32)((DC_Q16_ONE * 8 + 5) / 10))
#define DC_TIMELY_DEFAULT_ALPHA_Q16 ((__u32)(DC_Q16_ONE * 875 / 1000))
/* Completions in a row with g ≤ 0 before the increase is N·δ (HAI). */
#define DC_TIMELY_HAI_THRESH 5
#define DC_TIMELY_HAI_N 5
/* A completion event: TIMELY's segments are 16–64 KB (§4.1).  The largest:
 * its new_rtt is the minimum of more host RTT samples, which filters more
 * of their scheduling noise (16 KB let that noise drive the gradient and
 * hold flows at a few percent of a 1 Gbit/s link; docs/baselines.md). */
#define DC_TIMELY_SEG_BYTES 65536
/* Floor of the rate: a flow cut to nothing never sends the segment whose
 * completion would raise it again. */
#define DC_TIMELY_MIN_RATE_KBPS 10000
#define DC_KBPS_PER_MBPS 1000

struct dc_timely_state {
	__u32 rate_kbps;	/* R */
	__u32 cwnd_bytes;	/* the window R maps to (see above) */
	__u32 prev_rtt_us;	/* prev_rtt; 0 = no completion yet */
	__s32 rtt_diff_ns;	/* rtt_diff, smoothed */
	__s32 grad_q16;		/* g of the last completion, for users */
	__u32 seg_end_seq;	/* the ACK that completes the current segment */
	__u32 seg_min_rtt_us;	/* new_rtt of the segment: its min sample, 0 = none */
	__u32 tau_us;		/* minRTT in use */
	__u8 neg_count;		/* completions in a row with g ≤ 0 */
	__u8 mode;		/* enum dc_cc_mode */
	__u16 sport;		/* local port, for the flow key at release */
	__u32 last_action;	/* enum dc_timely_action of the last completion */
};

enum dc_timely_action {
	DC_TIMELY_NONE = 0,	/* no completion, or the first one */
	DC_TIMELY_LOW = 1,	/* new_rtt < T_low: +δ */
	DC_TIMELY_HIGH = 2,	/* new_rtt > T_high: cut by T_high/new_rtt */
	DC_TIMELY_INC = 3,	/* g ≤ 0: +δ */
	DC_TIMELY_HAI = 4,	/* g ≤ 0 for 5 completions: +5δ */
	DC_TIMELY_DEC = 5,	/* g > 0: ×(1 − β·g) */
};

/* Parameters with their defaults filled in where the config has 0. */
struct dc_timely_params {
	__u32 t_low_us, t_high_us, delta_kbps, beta_q16, alpha_q16;
	__u32 min_kbps, max_kbps;
};

DC_INLINE void dc_timely_params(const struct dc_cc_cfg *cfg, struct dc_timely_params *p)
{
	p->t_low_us = cfg->t_low_us;
	p->t_high_us = cfg->t_high_us ? cfg->t_high_us : DC_TIMELY_DEFAULT_T_HIGH_US;
	p->delta_kbps = (cfg->delta_mbps ? cfg->delta_mbps : DC_TIMELY_DEFAULT_DELTA_MBPS) *
			DC_KBPS_PER_MBPS;
	p->beta_q16 = cfg->md_beta_q16 ? cfg->md_beta_q16 : DC_TIMELY_DEFAULT_BETA_Q16;
	p->alpha_q16 = cfg->alpha_q16 ? cfg->alpha_q16 : DC_TIMELY_DEFAULT_ALPHA_Q16;
	if (p->beta_q16 > DC_Q16_ONE)
		p->beta_q16 = DC_Q16_ONE;
	if (p->alpha_q16 > DC_Q16_ONE)
		p->alpha_q16 = DC_Q16_ONE;
	p->max_kbps = (__u32)dc_min_u64((__u64)cfg->host_bw_mbps * DC_KBPS_PER_MBPS, DC_U32_MAX);
	p->min_kbps = DC_TIMELY_MIN_RATE_KBPS < p->max_kbps ? DC_TIMELY_MIN_RATE_KBPS : p->max_kbps;
}

/* rtt_diff = (1 − α)·rtt_diff + α·new_rtt_diff (signed, ns). */
DC_INLINE __s32 dc_timely_ewma(__s32 diff_ns, __s64 new_diff_ns, __u32 alpha_q16)
{
	__s64 v = (__s64)diff_ns * (__s64)(DC_Q16_ONE - alpha_q16) + new_diff_ns * (__s64)alpha_q16;

	v = dc_sdiv(v, DC_Q16_ONE);
	if (v > 0x7fffffffLL)
		v = 0x7fffffffLL;
	if (v < -0x7fffffffLL)
		v = -0x7fffffffLL;
	return (__s32)v;
}

/* g = rtt_diff / minRTT, Q16, within ±2^30 (|g| ≥ 2^14 is a cut to the floor anyway). */
DC_INLINE __s32 dc_timely_gradient_q16(__s32 diff_ns, __u32 min_rtt_us)
{
	__u64 mag = (__u64)(diff_ns < 0 ? -(__s64)diff_ns : diff_ns);
	__u64 g = dc_muldiv64(mag, DC_Q16_ONE, (__u64)(min_rtt_us ? min_rtt_us : 1) * DC_NSEC_PER_USEC);

	g = dc_min_u64(g, 1ULL << 30);
	return diff_ns < 0 ? -(__s32)g : (__s32)g;
}

/* R·(1 − f), f in Q16 (f ≥ 1 → 0, the caller's floor applies). */
DC_INLINE __u64 dc_timely_cut(__u64 rate_kbps, __u64 f_q16)
{
	if (f_q16 >= DC_Q16_ONE)
		return 0;
	return dc_q16_mul(rate_kbps, DC_Q16_ONE - f_q16);
}

/*
 * One completion event with RTT new_rtt_us (Algorithm 1).  The first
 * completion of a flow only sets prev_rtt: with no previous RTT there is
 * no difference to take, and the rate stays where it started.
 * Returns the enum dc_timely_action taken.
 */
DC_INLINE __u32 dc_timely_completion(struct dc_timely_state *st, const struct dc_timely_params *p,
				     __u32 new_rtt_us, __u32 min_rtt_us)
{
	__u64 r = st->rate_kbps;
	__u32 act;
	__s64 new_diff_ns;

	if (!st->prev_rtt_us) {
		st->prev_rtt_us = new_rtt_us;
		return DC_TIMELY_NONE;
	}
	new_diff_ns = ((__s64)new_rtt_us - (__s64)st->prev_rtt_us) * (__s64)DC_NSEC_PER_USEC;
	st->prev_rtt_us = new_rtt_us;
	st->rtt_diff_ns = dc_timely_ewma(st->rtt_diff_ns, new_diff_ns, p->alpha_q16);
	st->grad_q16 = dc_timely_gradient_q16(st->rtt_diff_ns, min_rtt_us);
	/* HAI counts completions with g ≤ 0 in a row, whichever branch runs. */
	if (st->grad_q16 <= 0)
		st->neg_count = (__u8)(st->neg_count < 255 ? st->neg_count + 1 : 255);
	else
		st->neg_count = 0;

	if (new_rtt_us < p->t_low_us) {
		r += p->delta_kbps;
		act = DC_TIMELY_LOW;
	} else if (new_rtt_us > p->t_high_us) {
		/* β·(1 − T_high/new_rtt) */
		__u64 f = dc_q16_mul(p->beta_q16, DC_Q16_ONE - dc_q16_div(p->t_high_us, new_rtt_us));

		r = dc_timely_cut(r, f);
		act = DC_TIMELY_HIGH;
	} else if (st->grad_q16 <= 0) {
		bool hai = st->neg_count >= DC_TIMELY_HAI_THRESH;

		r += (__u64)(hai ? DC_TIMELY_HAI_N : 1) * p->delta_kbps;
		act = hai ? DC_TIMELY_HAI : DC_TIMELY_INC;
	} else {
		r = dc_timely_cut(r, dc_q16_mul(p->beta_q16, (__u64)st->grad_q16));
		act = DC_TIMELY_DEC;
	}
	st->rate_kbps = (__u32)dc_clamp_u64(r, p->min_kbps, p->max_kbps);
	st->last_action = act;
	return act;
}

/* Window for rate R (see the header comment): R·max(T_high, sRTT, τ)
 * with pacing, R·τ without; within [min_bytes, max_bytes]. */
DC_INLINE __u32 dc_timely_cwnd_bytes(__u32 rate_kbps, __u32 tau_us, __u32 t_high_us,
				     __u32 srtt_us, bool pacing, __u32 min_bytes, __u32 max_bytes)
{
	__u32 t = tau_us;

	if (pacing) {
		if (t_high_us > t)
			t = t_high_us;
		if (srtt_us > t)
			t = srtt_us;
	}
	/* kbit/s · µs / 8000 = bytes */
	__u64 w = (__u64)rate_kbps * t / (DC_BITS_PER_BYTE * 1000);

	return (__u32)dc_clamp_u64(w, min_bytes, max_bytes);
}

/* Pacing rate R in bytes per second. */
DC_INLINE __u64 dc_timely_pacing_Bps(__u32 rate_kbps)
{
	return (__u64)rate_kbps * 1000 / DC_BITS_PER_BYTE;
}

/* Fresh state: R = the NIC rate (host_bw_mbps), first segment from snd_una. */
DC_INLINE void dc_timely_state_init(struct dc_timely_state *st, const struct dc_cc_cfg *cfg,
				    __u32 snd_una, __u32 min_rtt_us, __u32 min_bytes)
{
	struct dc_timely_params p;

	dc_timely_params(cfg, &p);
	st->rate_kbps = p.max_kbps;
	st->tau_us = dc_ptcp_tau_us(cfg, min_rtt_us);
	st->cwnd_bytes = dc_timely_cwnd_bytes(st->rate_kbps, st->tau_us, p.t_high_us, 0,
					      cfg->pacing, min_bytes, DC_U32_MAX);
	st->prev_rtt_us = 0;
	st->rtt_diff_ns = 0;
	st->grad_q16 = 0;
	st->seg_end_seq = snd_una + DC_TIMELY_SEG_BYTES;
	st->seg_min_rtt_us = 0;
	st->neg_count = 0;
	st->mode = DC_MODE_INIT;
	st->sport = 0;
	st->last_action = DC_TIMELY_NONE;
}

/*
 * Per ACK: keep the segment's smallest RTT sample (host RTT samples carry
 * tens of µs of scheduling noise that only ever adds delay; TIMELY's NIC
 * timestamps have none — docs/baselines.md), and on the ACK that completes
 * the segment run the completion with it.  A segment that saw no sample
 * stays open until one arrives.  The window follows the rate on every
 * ACK (τ and sRTT, the socket's smoothed RTT in µs, move).  Returns the
 * action of a completion on this ACK (DC_TIMELY_NONE otherwise).
 */
DC_INLINE __u32 dc_timely_on_ack(struct dc_timely_state *st, const struct dc_cc_cfg *cfg,
				 const struct dc_ptcp_ack *a, __u32 srtt_us)
{
	struct dc_timely_params p;
	__u32 act = DC_TIMELY_NONE;

	dc_timely_params(cfg, &p);
	st->tau_us = dc_ptcp_tau_us(cfg, a->min_rtt_us);
	st->mode = DC_MODE_THETA;
	if (a->rtt_us && (!st->seg_min_rtt_us || a->rtt_us < st->seg_min_rtt_us))
		st->seg_min_rtt_us = a->rtt_us;
	if (st->seg_min_rtt_us && !dc_seq_before(a->ack_seq, st->seg_end_seq)) {
		act = dc_timely_completion(st, &p, st->seg_min_rtt_us, st->tau_us);
		st->seg_min_rtt_us = 0;
		st->seg_end_seq = a->ack_seq + DC_TIMELY_SEG_BYTES;
	}
	st->cwnd_bytes = dc_timely_cwnd_bytes(st->rate_kbps, st->tau_us, p.t_high_us, srtt_us,
					      cfg->pacing, a->min_cwnd_bytes, a->max_cwnd_bytes);
	return act;
}

#endif
