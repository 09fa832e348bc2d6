/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * PowerTCP and θ-PowerTCP control law (PowerTCP, NSDI'22; Addanki thesis §2.2, Algorithms 1 and 2),
 * pure and fixed point so the BPF congestion controls and the host unit
 * tests run the very same code.
 *
 * Control law (Eq. 2.16):
 *     w ← γ · (w_old · e/f + β) + (1 − γ) · w,     e = b²·τ,  f = Γ
 * Power (Eq. 2.15):  Γ = (q + b·τ) · (q̇ + μ)                 [bit²/s]
 * Normalised power:  Γ/e = ((q̇ + μ)/b) · ((q + b·τ)/(b·τ))    [1]
 * θ-PowerTCP (Eq. 2.27): Γ/e = (θ̇ + 1) · θ / τ,  θ = RTT      [1]
 *
 * Units: windows in bytes, RTTs in µs, INT timestamps in ns, rates in
 * Mbit/s, ratios in Q16 (DC_Q16_ONE = 1.0).
 */
#ifndef DCBPF_POWERTCP_H
#define DCBPF_POWERTCP_H

#include "fixed.h"
#include "types.h"

/*
 * Bounds on the normalised power fed to the window update.  The lower
 * bound caps multiplicative increase at ×4 per update (an idle or noisy
 * path would otherwise report Γ ≈ 0 and an unbounded window); the upper
 * bound keeps w_old/Γ from collapsing below one byte in Q16.
 */
#define DC_NORM_POWER_MIN_Q16 (DC_Q16_ONE / 4)
#define DC_NORM_POWER_MAX_Q16 (1024 * DC_Q16_ONE)

/* τ used before the first RTT sample when none is configured. */
#define DC_DEFAULT_TAU_US 100
/* INT hop samples further apart than this are not differentiated: the
 * wire counters may have wrapped (see docs/int.md). */
#define DC_INT_MAX_DT_NS (100ULL * 1000 * 1000)

/* Defaults of struct dc_cc_cfg (docs/design.md says why). */
#define DC_DEFAULT_GAMMA_Q16 ((__u32)(DC_Q16_ONE * 9 / 10))
#define DC_DEFAULT_HOST_BW_MBPS 1000
#define DC_DEFAULT_EXPECTED_FLOWS 3
#define DC_DEFAULT_INT_STALE_US 2000
#define DC_DEFAULT_MIN_CWND_PKTS 2
#define DC_DEFAULT_PACING 1
/* The window may grow to at most this many times what the flow had in
 * flight (cf. the kernel's tcp_is_cwnd_limited): an application-limited
 * flow sees Γ < 1 forever and would otherwise grow without bound, then
 * burst the whole window when it has data. */
#define DC_CWND_USED_FACTOR 2

/* Previous telemetry of one hop, truncated: deltas are taken modulo 2^32. */
struct dc_ptcp_hop_prev {
	__u32 qlen_bytes;
	__u32 ts_ns;
	__u32 tx_bytes;
};

/*
 * Per-connection state; lives in the kernel's CC private area
 * (ICSK_CA_PRIV_SIZE = 104 bytes), so keep it compact.
 */
struct dc_ptcp_state {
	__u32 cwnd_bytes;	/* w, byte precision (snd_cwnd is in MSS) */
	__u32 cwnd_old_bytes;	/* w(t − θ): remembered once per RTT */
	__u32 old_seq;		/* snd_nxt when cwnd_old was remembered */
	__u32 next_update_seq;	/* θ law: lastUpdated (Algorithm 2 l.17) */
	__u32 prev_rtt_us;	/* θ law: θ of the previous update interval */
	__u32 win_min_rtt_us;	/* θ law: min RTT sample of this interval */
	__s32 power_q16;	/* Γ_smooth, signed: see dc_theta_norm_power */
	__u32 epoch_ack_seq;	/* INT law: snd_una at the last epoch's end */
	__u64 prev_t_us;	/* θ law: t_c at the previous interval's end */
	__u32 tau_us;		/* τ in use */
	__u8 mode;		/* enum dc_cc_mode */
	__u8 nprev;		/* hops in prev[] (INT law) */
	__u8 cc;		/* enum dc_cc_id */
	__u8 bottleneck_hop;
	/* Local port, for the flow key at release: by then the kernel has
	 * already returned the port (inet_num = 0). */
	__u16 sport;
	__u16 flags;		/* DC_PTCP_F_* */
	struct dc_ptcp_hop_prev prev[DC_INT_MAX_HOPS];
};

#define DC_PTCP_F_HAVE_POWER 0x1	/* power_q16 holds a sample */

/* Sequence-space comparison, wrap-safe. */
DC_INLINE bool dc_seq_before(__u32 a, __u32 b)
{
	return (__s32)(a - b) < 0;
}

/* BDP b·τ in bytes. */
DC_INLINE __u64 dc_ptcp_bdp_bytes(__u32 bw_mbps, __u32 tau_us)
{
	return dc_bytes_in_us(bw_mbps, tau_us);
}

/* τ: configured base RTT, else the flow's min RTT, else a default. */
DC_INLINE __u32 dc_ptcp_tau_us(const struct dc_cc_cfg *cfg, __u32 min_rtt_us)
{
	if (cfg->base_rtt_us)
		return cfg->base_rtt_us;
	if (min_rtt_us && min_rtt_us != DC_U32_MAX)
		return min_rtt_us;
	return DC_DEFAULT_TAU_US;
}

/* Send units longer than this at HostBw are not added to τ: past it a
 * send unit is no longer "one packet" but a good part of a window. */
#define DC_UNIT_MAX_US 1000

/* Time HostBw takes to serialise one send unit (a GSO/TSO packet), µs,
 * rounded up; 0 when either is unknown. */
DC_INLINE __u32 dc_ptcp_unit_us(__u32 host_bw_mbps, __u32 unit_bytes)
{
	__u64 us;

	if (!host_bw_mbps || !unit_bytes)
		return 0;
	/* bytes·8/Mbit/s = µs */
	us = ((__u64)unit_bytes * 8 + host_bw_mbps - 1) / host_bw_mbps;
	return (__u32)dc_min_u64(us, DC_UNIT_MAX_US);
}

/*
 * τ when base_rtt_us is not configured (docs/design.md, "τ and β without
 * configuration"): the path's base RTT as measured, plus one send unit
 * serialised at HostBw.  The minimum RTT is what the fastest segment saw,
 * one sent alone (the SYN, a lone small segment): it never waited for
 * bytes of its own ahead of it.  A window leaves in send units of up to
 * unit_bytes (GSO/TSO), serialised at HostBw by the NIC, or by whatever
 * clocks the link at that rate, so the last byte of every unit is ACKed
 * unit/HostBw after its first: that is the RTT the window's bytes see
 * with an empty queue, the base RTT of the paper's model, where every hop
 * adds the transmission time of one packet.  base_rtt_us 0: none
 * measured.  With base_rtt_us configured, that is τ, as is.
 */
DC_INLINE __u32 dc_ptcp_path_tau_us(const struct dc_cc_cfg *cfg, __u32 base_rtt_us,
				    __u32 unit_bytes)
{
	if (cfg->base_rtt_us)
		return cfg->base_rtt_us;
	if (!base_rtt_us || base_rtt_us == DC_U32_MAX)
		return DC_DEFAULT_TAU_US;
	return (__u32)dc_min_u64((__u64)base_rtt_us + dc_ptcp_unit_us(cfg->host_bw_mbps, unit_bytes),
				 DC_U32_MAX);
}

/*
 * β = HostBw·τ/N unless configured (Addanki thesis §2.2.3 "Parameters"),
 * and never below one send unit: the flows' equilibrium queue is Σβ
 * (Theorem 1, q_e = β̂), and a bottleneck that finishes a unit must find
 * the next one already queued, or it idles until the ACK clock brings it
 * (docs/design.md).  unit_bytes 0: no floor.
 */
DC_INLINE __u32 dc_ptcp_beta_unit_bytes(const struct dc_cc_cfg *cfg, __u32 tau_us,
					__u32 unit_bytes)
{
	__u64 n = cfg->expected_flows ? cfg->expected_flows : 1;

	if (cfg->beta_bytes)
		return cfg->beta_bytes;
	return (__u32)dc_min_u64(dc_max_u64(dc_ptcp_bdp_bytes(cfg->host_bw_mbps, tau_us) / n,
					    unit_bytes), DC_U32_MAX);
}

/* β without the send-unit floor. */
DC_INLINE __u32 dc_ptcp_beta_bytes(const struct dc_cc_cfg *cfg, __u32 tau_us)
{
	return dc_ptcp_beta_unit_bytes(cfg, tau_us, 0);
}

/*
 * Base RTT per path (source, destination), learned across the flows of
 * the host (dc_base_rtt).  The minimum RTT of one flow is only as good as
 * its own samples: a flow that starts behind a standing queue, or sends
 * few segments, never sees the path's base RTT, and a new flow has none
 * at all before its first ACK.  Every flow on the path feeds its RTT
 * samples; the estimate is the minimum over the current window and the
 * previous one, so it covers the last DC_BASE_RTT_WIN_MS to twice that:
 * a shorter RTT (a new route, a queue drained) counts at once, a longer
 * one (the old route gone) after at most two windows, and a path nobody
 * used for two windows has no estimate.  Times are u32 milliseconds
 * (wrap-safe differences: valid for gaps below 2^31 ms).
 */
#define DC_BASE_RTT_WIN_MS 10000
#define DC_NSEC_PER_MSEC (1000 * DC_NSEC_PER_USEC)

struct dc_base_rtt {
	__u32 cur_us;		/* min RTT of the current window, 0 = none */
	__u32 prev_us;		/* min RTT of the previous window, 0 = none */
	__u32 start_ms;		/* when the current window began */
};

/* Fresh estimate from a first sample. */
DC_INLINE void dc_base_rtt_init(struct dc_base_rtt *b, __u32 rtt_us, __u32 now_ms)
{
	b->cur_us = rtt_us;
	b->prev_us = 0;
	b->start_ms = now_ms;
}

DC_INLINE __u32 dc_min_nz_u32(__u32 a, __u32 b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return a < b ? a : b;
}

/* Roll the windows forward to now_ms: when one window has passed, the
 * current one becomes the previous and the next begins where it ended;
 * when two have, both are stale and a window begins now. */
DC_INLINE void dc_base_rtt_roll(struct dc_base_rtt *b, __u32 now_ms)
{
	__u32 age = now_ms - b->start_ms;

	if ((__s32)age < 0 || age < DC_BASE_RTT_WIN_MS)
		return;
	if (age < 2 * DC_BASE_RTT_WIN_MS) {
		b->prev_us = b->cur_us;
		b->start_ms += DC_BASE_RTT_WIN_MS;
	} else {
		b->prev_us = 0;
		b->start_ms = now_ms;
	}
	b->cur_us = 0;
}

/* Fold one RTT sample (0 = none) into the estimate.  Returns true when
 * the entry changed (the caller writes it back only then). */
DC_INLINE bool dc_base_rtt_add(struct dc_base_rtt *b, __u32 rtt_us, __u32 now_ms)
{
	struct dc_base_rtt old = *b;

	if (!rtt_us || rtt_us == DC_U32_MAX)
		return false;
	dc_base_rtt_roll(b, now_ms);
	b->cur_us = dc_min_nz_u32(b->cur_us, rtt_us);
	return b->cur_us != old.cur_us || b->prev_us != old.prev_us ||
	       b->start_ms != old.start_ms;
}

/* The path's base RTT at now_ms, µs: the minimum of the samples of the
 * last one to two windows; 0 when there is none. */
DC_INLINE __u32 dc_base_rtt_get(const struct dc_base_rtt *b, __u32 now_ms)
{
	__u32 age = now_ms - b->start_ms;

	if ((__s32)age < 0)	/* a racing writer stamped a later now */
		age = 0;
	if (age >= 2 * DC_BASE_RTT_WIN_MS)
		return 0;
	if (age >= DC_BASE_RTT_WIN_MS)
		return b->cur_us;
	return dc_min_nz_u32(b->cur_us, b->prev_us);
}

/* cwnd_init = HostBw·τ (first RTT at line rate). */
DC_INLINE __u32 dc_ptcp_cwnd_init_bytes(const struct dc_cc_cfg *cfg, __u32 tau_us)
{
	return (__u32)dc_min_u64(dc_ptcp_bdp_bytes(cfg->host_bw_mbps, tau_us),
				 DC_U32_MAX);
}

/*
 * Largest window the update may produce: the socket's clamp, and no more
 * than DC_CWND_USED_FACTOR × the packets actually in flight unless the
 * window is already larger (it is never cut for being unused).
 */
DC_INLINE __u32 dc_ptcp_max_cwnd_bytes(__u32 cwnd_bytes, __u32 used_pkts, __u32 mss,
				       __u32 clamp_pkts)
{
	__u64 clamp = (__u64)clamp_pkts * mss;
	__u64 used = (__u64)DC_CWND_USED_FACTOR * used_pkts * mss;

	return (__u32)dc_min_u64(dc_min_u64(clamp, dc_max_u64(used, cwnd_bytes)), DC_U32_MAX);
}

/* Pacing rate cwnd/τ in bytes per second. */
DC_INLINE __u64 dc_ptcp_pacing_Bps(__u32 cwnd_bytes, __u32 tau_us)
{
	return dc_muldiv64(cwnd_bytes, DC_USEC_PER_SEC, tau_us ? tau_us : 1);
}

DC_INLINE __u32 dc_norm_power_clamp(__u64 p_q16)
{
	return (__u32)dc_clamp_u64(p_q16, DC_NORM_POWER_MIN_Q16,
				   DC_NORM_POWER_MAX_Q16);
}

/* x / d for a signed x: BPF has no signed division (sign and magnitude). */
DC_INLINE __s64 dc_sdiv(__s64 x, __u64 d)
{
	if (x < 0)
		return -(__s64)(((__u64)-x) / d);
	return (__s64)((__u64)x / d);
}

/*
 * θ-PowerTCP normalised power (Algorithm 2 l.11–13):
 *     θ̇ = (RTT − prevRTT)/dt,   Γ_norm = (θ̇ + 1) · RTT / τ.
 * Deliberately signed and unclamped: in software, RTT samples carry
 * scheduling noise, and a spike's rise (large θ̇) must be cancelled by its
 * fall (θ̇ < −1) inside the smoothing; clamping each sample at zero would
 * keep the rise and drop the fall.  The smoothed value is clamped where it
 * is used.  False when dt = 0 (no new information).
 */
DC_INLINE bool dc_theta_norm_power(__u32 prev_rtt_us, __u32 rtt_us, __u64 dt_us,
				   __u32 tau_us, __s64 *out_q16)
{
	__u64 mag;
	__s64 one_plus_grad;

	if (!dt_us || !tau_us)
		return false;
	if (rtt_us >= prev_rtt_us) {
		mag = dc_min_u64(dc_q16_div(rtt_us - prev_rtt_us, dt_us), DC_NORM_POWER_MAX_Q16);
		one_plus_grad = (__s64)DC_Q16_ONE + (__s64)mag;
	} else {
		mag = dc_min_u64(dc_q16_div(prev_rtt_us - rtt_us, dt_us), DC_NORM_POWER_MAX_Q16);
		one_plus_grad = (__s64)DC_Q16_ONE - (__s64)mag;
	}
	/* |one_plus_grad| ≤ 2^27, RTT < 2^32: the product fits 2^59. */
	*out_q16 = dc_sdiv(one_plus_grad * (__s64)rtt_us, tau_us);
	if (*out_q16 > (__s64)DC_NORM_POWER_MAX_Q16)
		*out_q16 = DC_NORM_POWER_MAX_Q16;
	if (*out_q16 < -(__s64)DC_NORM_POWER_MAX_Q16)
		*out_q16 = -(__s64)DC_NORM_POWER_MAX_Q16;
	return true;
}

/* The smoothed power as the window update uses it: within the bounds. */
DC_INLINE __u32 dc_power_for_update(__s64 smooth_q16)
{
	return smooth_q16 < (__s64)DC_NORM_POWER_MIN_Q16 ? DC_NORM_POWER_MIN_Q16 :
	       dc_norm_power_clamp((__u64)smooth_q16);
}

/*
 * INT normalised power of one hop (Algorithm 1 l.11–19), from the previous
 * and current samples of that hop:
 *     λ/b = (Δqlen + Δtx) / (b·dt),   ν/(b·τ) = (qlen + b·τ)/(b·τ).
 * Returns 0 when the pair cannot be differentiated (first sample, dt = 0,
 * dt beyond DC_INT_MAX_DT_NS, or no rate).  Over the few µs between ACKs a
 * burst arriving at once and the idle gap after it give extreme samples;
 * weighted by Δt in the smoothing they average to the true λ over τ.
 */
DC_INLINE __u32 dc_int_hop_norm_power(const struct dc_ptcp_hop_prev *prev,
				      const struct dc_int_hop *cur,
				      __u32 tau_us, __u32 *dt_ns_out)
{
	__u32 dt_ns = (__u32)cur->ts_ns - prev->ts_ns;
	__u32 dtx = (__u32)cur->tx_bytes - prev->tx_bytes;
	__u64 bdp, link_bytes, arrived, lambda_q16, nu_q16;

	if (!dt_ns || dt_ns > DC_INT_MAX_DT_NS || !cur->rate_mbps || !tau_us)
		return 0;
	/* λ·dt = Δq + Δtx: bytes that arrived at the queue during dt. */
	if (cur->qlen_bytes >= prev->qlen_bytes)
		arrived = (__u64)dtx + (cur->qlen_bytes - prev->qlen_bytes);
	else
		arrived = dtx > prev->qlen_bytes - cur->qlen_bytes ?
			  dtx - (prev->qlen_bytes - cur->qlen_bytes) : 0;
	link_bytes = dc_bytes_in_ns(cur->rate_mbps, dt_ns);
	lambda_q16 = dc_q16_div(arrived, link_bytes ? link_bytes : 1);
	bdp = dc_ptcp_bdp_bytes(cur->rate_mbps, tau_us);
	nu_q16 = dc_q16_div((__u64)cur->qlen_bytes + bdp, bdp ? bdp : 1);
	*dt_ns_out = dt_ns;
	/* Unclamped below (bursts and gaps must average out in the smoothing;
	 * the bounds apply to the smoothed value), but never 0, which means
	 * "no sample". */
	return (__u32)dc_clamp_u64(dc_q16_mul(lambda_q16, nu_q16), 1, DC_NORM_POWER_MAX_Q16);
}

/* Remember one hop's sample as the next "previous" (Algorithm 1 l.7). */
DC_INLINE void dc_int_hop_remember(struct dc_ptcp_hop_prev *prev,
				   const struct dc_int_hop *cur)
{
	prev->qlen_bytes = cur->qlen_bytes;
	prev->ts_ns = (__u32)cur->ts_ns;
	prev->tx_bytes = (__u32)cur->tx_bytes;
}

/*
 * Max over hops of the normalised power (Algorithm 1 l.9–23), then
 * remember the stack.  Returns 0 when no hop could be differentiated;
 * *dt_us_out is the dt of the bottleneck hop, *hop_out its index.  A hop
 * whose sample is less than min_dt_ns after the remembered one is left
 * out and keeps its reference.
 */
DC_INLINE __u32 dc_int_norm_power_min_dt(struct dc_ptcp_state *st,
					 const struct dc_int_stack *stack, __u32 tau_us,
					 __u64 min_dt_ns, __u64 *dt_us_out, __u32 *hop_out)
{
	__u32 best = 0, best_dt_ns = 0, best_hop = 0, n = stack->nhops;
	__u32 i;

	if (n > DC_INT_MAX_HOPS)
		n = DC_INT_MAX_HOPS;
	for (i = 0; i < DC_INT_MAX_HOPS; i++) {
		__u32 p, dt_ns = 0;

		if (i >= n)
			break;
		/* Samples closer than min_dt_ns keep the older one as the
		 * reference (see dc_int_norm_power). */
		if (i < st->nprev && (__u32)stack->hop[i].ts_ns - st->prev[i].ts_ns < min_dt_ns)
			continue;
		p = i < st->nprev ? dc_int_hop_norm_power(&st->prev[i], &stack->hop[i],
							  tau_us, &dt_ns) : 0;
		if (p > best) {
			best = p;
			best_dt_ns = dt_ns;
			best_hop = i;
		}
		dc_int_hop_remember(&st->prev[i], &stack->hop[i]);
	}
	if (n > st->nprev)
		st->nprev = (__u8)n;
	*dt_us_out = best_dt_ns / DC_NSEC_PER_USEC;
	if (best && !*dt_us_out)
		*dt_us_out = 1;
	*hop_out = best_hop;
	return best;
}

/*
 * The same, differentiated over at least τ: between two ACKs a few µs
 * apart a hop shows either a whole burst (GSO, a TBF bucket) or none of
 * it; over τ it shows the rate.
 */
DC_INLINE __u32 dc_int_norm_power(struct dc_ptcp_state *st, const struct dc_int_stack *stack,
				  __u32 tau_us, __u64 *dt_us_out, __u32 *hop_out)
{
	return dc_int_norm_power_min_dt(st, stack, tau_us, (__u64)tau_us * DC_NSEC_PER_USEC,
					dt_us_out, hop_out);
}

/*
 * Γ_smooth = (Γ_smooth·(τ − Δt) + Γ_norm·Δt)/τ  (Algorithm 1 l.24), with Δt
 * capped at τ so a long gap simply replaces the average.  The first
 * sample of a flow is taken as is.
 */
DC_INLINE __s64 dc_ptcp_smooth(__s64 smooth_q16, __s64 norm_q16, __u64 dt_us,
			       __u32 tau_us, bool first)
{
	__u64 dt = dc_min_u64(dt_us, tau_us);

	if (first || !tau_us)
		return norm_q16;
	return dc_sdiv(smooth_q16 * (__s64)(tau_us - dt) + norm_q16 * (__s64)dt, tau_us);
}

/* Fold one normalised-power sample into the flow's state. */
DC_INLINE void dc_ptcp_add_power(struct dc_ptcp_state *st, __s64 norm_q16, __u64 dt_us,
				 __u32 tau_us)
{
	st->power_q16 = (__s32)dc_ptcp_smooth(st->power_q16, norm_q16, dt_us, tau_us,
					      !(st->flags & DC_PTCP_F_HAVE_POWER));
	st->flags |= DC_PTCP_F_HAVE_POWER;
}

/*
 * Window update (Eq. 2.16, Algorithm 1 l.27):
 *     w = γ·(w_old/Γ_norm + β) + (1 − γ)·w
 * Result clamped to [min_bytes, max_bytes].
 */
DC_INLINE __u32 dc_ptcp_update_window(__u32 cwnd_bytes, __u32 cwnd_old_bytes,
				      __u32 norm_power_q16, __u32 beta_bytes,
				      __u32 gamma_q16, __u32 min_bytes,
				      __u32 max_bytes)
{
	__u64 target, np = norm_power_q16 ? norm_power_q16 : DC_Q16_ONE;
	__u64 g = dc_min_u64(gamma_q16, DC_Q16_ONE), w;

	target = dc_q16_div(cwnd_old_bytes, np) + beta_bytes;
	w = (target * g + (__u64)cwnd_bytes * (DC_Q16_ONE - g)) >> DC_Q16_SHIFT;
	return (__u32)dc_clamp_u64(w, min_bytes, max_bytes);
}

/*
 * UPDATEOLD (Algorithm 1 l.7): once per RTT, when the ACK passes the
 * snd_nxt recorded last time, remember the current window as w_old.
 */
DC_INLINE void dc_ptcp_update_old(struct dc_ptcp_state *st, __u32 ack_seq,
				  __u32 snd_nxt)
{
	if (!dc_seq_before(ack_seq, st->old_seq)) {
		st->cwnd_old_bytes = st->cwnd_bytes;
		st->old_seq = snd_nxt;
	}
}

/* Fresh state, cwnd_init = HostBw·τ, τ from the config or from the base
 * RTT measured so far (min_rtt_us, 0: none yet) and the send unit
 * (dc_ptcp_path_tau_us). */
DC_INLINE void dc_ptcp_state_start(struct dc_ptcp_state *st, const struct dc_cc_cfg *cfg,
				   __u32 cc, __u32 snd_nxt, __u32 min_rtt_us, __u32 unit_bytes,
				   __u32 min_bytes)
{
	__u32 tau = dc_ptcp_path_tau_us(cfg, min_rtt_us, unit_bytes);
	__u32 w = dc_ptcp_cwnd_init_bytes(cfg, tau);
	__u32 i;

	if (w < min_bytes)
		w = min_bytes;
	st->cwnd_bytes = w;
	st->cwnd_old_bytes = w;
	st->old_seq = snd_nxt;
	st->next_update_seq = snd_nxt;
	st->prev_rtt_us = 0;
	st->win_min_rtt_us = 0;
	st->power_q16 = 0;
	st->epoch_ack_seq = snd_nxt;
	st->prev_t_us = 0;
	st->tau_us = tau;
	st->mode = DC_MODE_INIT;
	st->nprev = 0;
	st->cc = (__u8)cc;
	st->bottleneck_hop = 0;
	st->sport = 0;
	st->flags = 0;
	for (i = 0; i < DC_INT_MAX_HOPS; i++) {
		st->prev[i].qlen_bytes = 0;
		st->prev[i].ts_ns = 0;
		st->prev[i].tx_bytes = 0;
	}
}

/* Fresh state for a new connection, nothing measured. */
DC_INLINE void dc_ptcp_state_init(struct dc_ptcp_state *st, const struct dc_cc_cfg *cfg,
			    __u32 cc, __u32 snd_nxt, __u32 min_bytes)
{
	dc_ptcp_state_start(st, cfg, cc, snd_nxt, 0, 0, min_bytes);
}

/* Fresh state for a new connection whose path has a base RTT already
 * (the handshake's, or the one learned from earlier flows: dc_base_rtt). */
DC_INLINE void dc_ptcp_state_init_path(struct dc_ptcp_state *st, const struct dc_cc_cfg *cfg,
				       __u32 cc, __u32 snd_nxt, __u32 base_rtt_us,
				       __u32 unit_bytes, __u32 min_bytes)
{
	dc_ptcp_state_start(st, cfg, cc, snd_nxt, base_rtt_us, unit_bytes, min_bytes);
}

/*
 * Restart after idle. A flow that sends again after more than an RTO with
 * nothing in flight starts over as a new one: window HostBw·τ (the first
 * RTT at line rate, §2.2.6), a fresh epoch, no remembered hop samples.
 * The window it ended its last burst with answered a queue that drained
 * long ago; kept, it decides the next burst's share (a burst that ended
 * at the minimum window climbs back by β per RTT while the flows that kept
 * theirs hold the link). Linux restarts idle flows itself
 * (tcp_cwnd_restart) only for CCs without cong_control; ours uses the
 * same rule, idle > RTO, both in jiffies.
 */
DC_INLINE bool dc_ptcp_idle_restart(__u32 idle_jiffies, __u32 rto_jiffies)
{
	return idle_jiffies > rto_jiffies;
}

/* As dc_ptcp_state_init, keeping the socket's identity (CC, port) and
 * taking τ from the base RTT measured by now (the path's, else the
 * flow's) and the send unit. */
DC_INLINE void dc_ptcp_state_restart(struct dc_ptcp_state *st, const struct dc_cc_cfg *cfg,
				     __u32 snd_nxt, __u32 min_rtt_us, __u32 unit_bytes,
				     __u32 min_bytes)
{
	__u16 sport = st->sport;

	dc_ptcp_state_start(st, cfg, st->cc, snd_nxt, min_rtt_us, unit_bytes, min_bytes);
	st->sport = sport;
}

/* Inputs of one ACK, gathered from the socket by the BPF program. */
struct dc_ptcp_ack {
	__u32 ack_seq;		/* snd_una after this ACK */
	__u32 snd_nxt;
	__u32 rtt_us;		/* 0 = no sample on this ACK */
	__u32 min_rtt_us;	/* base RTT of the path as measured (dc_base_rtt) */
	__u32 unit_bytes;	/* send unit (GSO size); 0 = τ and β without it */
	__u64 now_us;
	__u32 min_cwnd_bytes;
	__u32 max_cwnd_bytes;
};

/*
 * θ-PowerTCP per ACK (Algorithm 2): the window moves once per RTT
 * (lastUpdated = snd_nxt), from power computed with θ and θ̇.
 *
 * θ of an update interval is the minimum RTT sample in it, and θ̇ is taken
 * between consecutive intervals.  Algorithm 2 differentiates consecutive
 * ACKs, which assumes NIC timestamps; host RTT samples carry scheduling
 * noise of tens of µs, and over the few µs between ACKs that noise would
 * dominate θ̇.  Scheduling only ever adds delay while a queue delays every
 * sample, so the interval minimum keeps the queue signal and drops the
 * noise (docs/design.md has the measurement).  Returns true when the
 * window was updated.
 */
/* Eq. 2.16 with the smoothed power: the window both laws move to, from
 * w_old (bytes) and Γ_smooth. */
DC_INLINE __u32 dc_ptcp_law_window(const struct dc_ptcp_state *st, const struct dc_cc_cfg *cfg,
				   const struct dc_ptcp_ack *a, __u32 tau_us, __u32 w_old_bytes)
{
	return dc_ptcp_update_window(st->cwnd_bytes, w_old_bytes, dc_power_for_update(st->power_q16),
				     dc_ptcp_beta_unit_bytes(cfg, tau_us, a->unit_bytes), cfg->gamma_q16,
				     a->min_cwnd_bytes, a->max_cwnd_bytes);
}

DC_INLINE bool dc_theta_on_ack(struct dc_ptcp_state *st, const struct dc_cc_cfg *cfg,
			       const struct dc_ptcp_ack *a)
{
	__u32 tau = dc_ptcp_path_tau_us(cfg, a->min_rtt_us, a->unit_bytes), theta;
	bool updated = false;
	__s64 np;

	st->tau_us = tau;
	st->mode = DC_MODE_THETA;
	if (a->rtt_us && (!st->win_min_rtt_us || a->rtt_us < st->win_min_rtt_us))
		st->win_min_rtt_us = a->rtt_us;
	if (st->win_min_rtt_us && !dc_seq_before(a->ack_seq, st->next_update_seq)) {
		theta = st->win_min_rtt_us;
		if (st->prev_rtt_us && a->now_us > st->prev_t_us) {
			__u64 dt = a->now_us - st->prev_t_us;

			if (dc_theta_norm_power(st->prev_rtt_us, theta, dt, tau, &np))
				dc_ptcp_add_power(st, np, dt, tau);
		}
		st->prev_rtt_us = theta;
		st->prev_t_us = a->now_us;
		st->win_min_rtt_us = 0;
		if (st->flags & DC_PTCP_F_HAVE_POWER) {
			st->cwnd_bytes = dc_ptcp_law_window(st, cfg, a, tau, st->cwnd_old_bytes);
			updated = true;
		}
		st->next_update_seq = a->snd_nxt;
	}
	dc_ptcp_update_old(st, a->ack_seq, a->snd_nxt);
	return updated;
}

/* True when there is no reference stack yet, or some hop's sample is at
 * least min_dt_ns after its reference. */
DC_INLINE bool dc_int_span_reached(const struct dc_ptcp_state *st,
				   const struct dc_int_stack *stack, __u64 min_dt_ns)
{
	__u32 i, n = stack->nhops < st->nprev ? stack->nhops : st->nprev;

	if (!st->nprev)
		return true;
	for (i = 0; i < DC_INT_MAX_HOPS; i++) {
		if (i >= n)
			break;
		if ((__u32)stack->hop[i].ts_ns - st->prev[i].ts_ns >= min_dt_ns)
			return true;
	}
	return false;
}

/*
 * PowerTCP with telemetry (Algorithm 1), in epochs of one RTT: an epoch
 * ends when the ACK passes the snd_nxt recorded when it began (UPDATEOLD).
 *
 * w_old must describe the same bytes as the power it is divided by
 * (GETCWND(ack.seq), l.3; in the model w(t − θ) is what the flow had in
 * flight when the measured bytes were sent): only then is w_old/Γ_norm
 * the flow's share of b·τ whatever the feedback delay (Property 1).  So
 * the hops are differentiated between the stacks echoed at two
 * consecutive epoch ends, which bracket the bytes ACKed in between, and
 * w_old is those bytes: what the flow contributed to that very interval.
 * It equals the window of the previous epoch when the flow filled it, and
 * stays right when it did not (stalled on late ACK bunches, or just cut
 * and draining), where the window would claim bytes that never reached
 * the queue.  Remembering instead the window just computed pairs the power
 * with a window one epoch newer than the bytes it measured: the law then
 * reacts to its own last change (w_new ∝ w_k/w_{k−1}) and, with τ ≈ 1 ms,
 * swings the queue between empty and several β (docs/results.md).
 * Returns true when the window was updated.
 */
DC_INLINE bool dc_powertcp_on_ack(struct dc_ptcp_state *st, const struct dc_cc_cfg *cfg,
				  const struct dc_ptcp_ack *a,
				  const struct dc_int_stack *stack)
{
	__u32 np, hop = 0, tau = dc_ptcp_path_tau_us(cfg, a->min_rtt_us, a->unit_bytes);
	__u32 epoch_bytes = a->ack_seq - st->epoch_ack_seq;
	__u64 dt_us = 0;
	bool updated = false;

	st->tau_us = tau;
	st->mode = DC_MODE_INT;
	if (dc_seq_before(a->ack_seq, st->old_seq))
		return false;
	/* An epoch cut short (the flow had stalled, so the bytes it waits
	 * for were sent less than an RTT ago) is stretched until the pair
	 * spans τ: over less, own bytes and power describe a burst, not the
	 * flow's window. */
	if (!dc_int_span_reached(st, stack, (__u64)tau * DC_NSEC_PER_USEC))
		return false;
	np = dc_int_norm_power_min_dt(st, stack, tau, 1, &dt_us, &hop);
	if (np && epoch_bytes) {
		dc_ptcp_add_power(st, np, dt_us, tau);
		st->bottleneck_hop = (__u8)hop;
		st->cwnd_old_bytes = epoch_bytes;
		st->cwnd_bytes = dc_ptcp_law_window(st, cfg, a, tau, epoch_bytes);
		updated = true;
	}
	st->epoch_ack_seq = a->ack_seq;
	st->old_seq = a->snd_nxt;
	return updated;
}

#endif
