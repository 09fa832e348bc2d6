/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The SONiC buffer model with lossy and lossless traffic (Addanki thesis
 * §5.1.2), the baseline Reverie (reverie.h) is compared with.  Pure and
 * integer-only like every admission core.
 *
 * Four pools: the ingress pool b_in (ingress lossless and lossy), the
 * PFC headroom b_h, the egress lossless pool b_eLL and the egress lossy
 * pool b_eLY.  Four counters per port: ingress lossless, ingress lossy
 * (by source port), egress lossless, egress lossy (by destination port).
 * A packet is stored once but counted twice, at ingress and at egress,
 * and is admitted only if both admit it.  Each pool runs Dynamic
 * Thresholds with its own α (Eq. 4.5: T = α·(b_pool − Q_pool), admit
 * while q < T and the packet fits in the pool).
 *
 * Lossless ingress (§5.1.2): a queue that hits its threshold is PAUSED
 * (a PFC pause frame upstream); the arriving packet and later ones are
 * admitted into the headroom.  It RESUMEs when its headroom is empty and
 * its ingress occupancy is below the threshold again (with xon_offset
 * bytes of hysteresis: q + xon_offset < T).
 *
 * The operators' heuristics (§5.1.2), which dc_sonic_defaults applies and
 * dc_sonic_check tests:
 *   H1: b_in + b_h ≤ b
 *   H2: b_eLL = b and α_eLL ≫ 1 (egress never limits lossless)
 *   H3: α_inLY very large and b_eLY ≤ b_in (lossy is limited at egress)
 * The evaluation sets b_in = b − b_h and b_eLY = 0.8·b_in (§5.3).
 *
 * Steady state (Eqs. 5.5–5.8), n_c congested queues of class c:
 *   x_c  = n_c·α_c / (1 + n_c·α_c)
 *   q_LY = x_LY·b_eLY
 *   q_LL = x_LL·b_in − x_LL·x_LY·b_eLY
 * For large n lossless tends to b_in − b_eLY and lossy to b_eLY: unless
 * b_in ≥ 2·b_eLY, lossy traffic gets more buffer than lossless (Issue 1).
 */
#ifndef DCBPF_SONIC_H
#define DCBPF_SONIC_H

#include "admit.h"
#include "reverie.h"

/* "≫ 1" and "very large" (H2, H3): the largest α the cores take. */
#define DC_SONIC_ALPHA_LARGE_Q16 DC_RV_ALPHA_MAX_Q16
/* b_eLY = 0.8 · b_in in the evaluation (§5.3), as a fraction in Q16. */
#define DC_SONIC_EG_LOSSY_FRAC_Q16 52429U	/* round(0.8 · 65536) */

enum dc_sonic_heuristic {
	DC_SONIC_H1 = 1u << 0,
	DC_SONIC_H2 = 1u << 1,
	DC_SONIC_H3 = 1u << 2,
};

struct dc_sonic_params {
	__u64 buffer_bytes;		/* b */
	__u64 in_pool_bytes;		/* b_in */
	__u64 hdrm_pool_bytes;		/* b_h */
	__u64 hdrm_queue_bytes;		/* one lossless ingress queue's headroom */
	__u64 eg_pool_bytes[DC_RV_CLASSES];	/* b_eLY, b_eLL */
	__u32 alpha_in_q16[DC_RV_CLASSES];	/* α_inLY (H3: large), α_inLL */
	__u32 alpha_eg_q16[DC_RV_CLASSES];	/* α_eLY, α_eLL (H2: large) */
	__u32 xon_offset_bytes;
};

/* Ingress counter of (source port, class); lossless ones carry PFC state. */
struct dc_sonic_iq {
	__u64 q_bytes;			/* in the ingress pool */
	__u64 hdrm_bytes;		/* in the headroom pool */
	__u32 paused;
};

struct dc_sonic_pools {
	__u64 in_occ;			/* ingress pool occupancy (not headroom) */
	__u64 hdrm_used;
	__u64 eg_occ[DC_RV_CLASSES];
};

enum dc_sonic_verdict {
	DC_SONIC_INGRESS = 0,		/* admitted, counted in the ingress pool */
	DC_SONIC_HEADROOM = 1,		/* lossless, paused: counted in the headroom */
	DC_SONIC_DROP_IN = 2,		/* lossy: ingress threshold or pool */
	DC_SONIC_DROP_EG = 3,		/* egress threshold or pool (lossless: never under H2) */
	DC_SONIC_DROP_HDRM = 4,		/* lossless: headroom overrun */
};

/* The pools as the heuristics and the evaluation set them, for a buffer b
 * and lossless_queues ingress queues of hdrm_queue_bytes headroom each;
 * α_inLL and α_eLY are the operator's DT parameters. */
DC_INLINE void dc_sonic_defaults(struct dc_sonic_params *p, __u64 buffer_bytes,
				 __u64 hdrm_queue_bytes, __u32 lossless_queues,
				 __u32 alpha_in_ll_q16, __u32 alpha_eg_ly_q16)
{
	__u64 h = hdrm_queue_bytes * lossless_queues;

	p->buffer_bytes = buffer_bytes;
	p->hdrm_queue_bytes = hdrm_queue_bytes;
	p->hdrm_pool_bytes = h;
	p->in_pool_bytes = h < buffer_bytes ? buffer_bytes - h : 0;	/* H1 at equality */
	p->eg_pool_bytes[DC_RV_LOSSLESS] = buffer_bytes;			/* H2 */
	p->alpha_eg_q16[DC_RV_LOSSLESS] = DC_SONIC_ALPHA_LARGE_Q16;		/* H2 */
	p->alpha_in_q16[DC_RV_LOSSY] = DC_SONIC_ALPHA_LARGE_Q16;		/* H3 */
	p->eg_pool_bytes[DC_RV_LOSSY] =						/* H3, §5.3 */
		(p->in_pool_bytes * DC_SONIC_EG_LOSSY_FRAC_Q16) >> DC_Q16_SHIFT;
	p->alpha_in_q16[DC_RV_LOSSLESS] = alpha_in_ll_q16;
	p->alpha_eg_q16[DC_RV_LOSSY] = alpha_eg_ly_q16;
	p->xon_offset_bytes = 0;
}

/* The heuristics a configuration breaks (enum dc_sonic_heuristic bits). */
DC_INLINE __u32 dc_sonic_check(const struct dc_sonic_params *p)
{
	__u32 bad = 0;

	if (p->in_pool_bytes + p->hdrm_pool_bytes > p->buffer_bytes)
		bad |= DC_SONIC_H1;
	if (p->eg_pool_bytes[DC_RV_LOSSLESS] != p->buffer_bytes ||
	    p->alpha_eg_q16[DC_RV_LOSSLESS] <= DC_Q16_ONE)
		bad |= DC_SONIC_H2;
	if (p->alpha_in_q16[DC_RV_LOSSY] <= DC_Q16_ONE ||
	    p->eg_pool_bytes[DC_RV_LOSSY] > p->in_pool_bytes)
		bad |= DC_SONIC_H3;
	return bad;
}

/* DT of one pool: q < ⌈α·(b_pool − Q_pool)⌉ and the packet fits. */
DC_INLINE bool dc_sonic_dt_pass(__u64 q, __u64 occ, __u64 pool, __u32 alpha_q16, __u32 len)
{
	return occ + len <= pool && q < dc_dt_threshold(pool, occ, alpha_q16);
}

DC_INLINE enum dc_sonic_verdict dc_sonic_to_headroom(const struct dc_sonic_params *p,
						     struct dc_sonic_pools *s,
						     struct dc_sonic_iq *iq, __u32 len)
{
	if (iq->hdrm_bytes + len > p->hdrm_queue_bytes || s->hdrm_used + len > p->hdrm_pool_bytes)
		return DC_SONIC_DROP_HDRM;
	iq->hdrm_bytes += len;
	s->hdrm_used += len;
	return DC_SONIC_HEADROOM;
}

/*
 * One arrival: iq = the (source port, class) ingress counter, *eq_bytes =
 * the (destination port, class) egress counter.  Counts the packet where
 * it is admitted; *pause as in dc_rv_arrival.
 */
DC_INLINE enum dc_sonic_verdict dc_sonic_arrival(const struct dc_sonic_params *p,
						 struct dc_sonic_pools *s, struct dc_sonic_iq *iq,
						 __u64 *eq_bytes, __u32 cls, __u32 len, bool *pause)
{
	enum dc_sonic_verdict v;
	__u32 c = cls & 1;

	*pause = false;
	if (!dc_sonic_dt_pass(*eq_bytes, s->eg_occ[c], p->eg_pool_bytes[c], p->alpha_eg_q16[c], len))
		return DC_SONIC_DROP_EG;
	if (c == DC_RV_LOSSLESS && iq->paused) {
		v = dc_sonic_to_headroom(p, s, iq, len);
	} else if (dc_sonic_dt_pass(iq->q_bytes, s->in_occ, p->in_pool_bytes, p->alpha_in_q16[c],
				    len)) {
		iq->q_bytes += len;
		s->in_occ += len;
		v = DC_SONIC_INGRESS;
	} else if (c == DC_RV_LOSSLESS) {
		iq->paused = 1;
		*pause = true;
		v = dc_sonic_to_headroom(p, s, iq, len);
	} else {
		return DC_SONIC_DROP_IN;
	}
	if (v != DC_SONIC_DROP_HDRM) {
		*eq_bytes += len;
		s->eg_occ[c] += len;
	}
	return v;
}

DC_INLINE bool dc_sonic_may_resume(const struct dc_sonic_params *p, const struct dc_sonic_pools *s,
				   const struct dc_sonic_iq *iq)
{
	return iq->paused && !iq->hdrm_bytes &&
	       iq->q_bytes + p->xon_offset_bytes <
		       dc_dt_threshold(p->in_pool_bytes, s->in_occ,
				       p->alpha_in_q16[DC_RV_LOSSLESS]);
}

/* One departure (ingress headroom first); true: the queue RESUMEs. */
DC_INLINE bool dc_sonic_departure(const struct dc_sonic_params *p, struct dc_sonic_pools *s,
				  struct dc_sonic_iq *iq, __u64 *eq_bytes, __u32 cls, __u32 len)
{
	__u32 c = cls & 1;
	__u64 h = iq->hdrm_bytes < len ? iq->hdrm_bytes : len;
	__u64 r = len - h;

	*eq_bytes -= len < *eq_bytes ? len : *eq_bytes;
	s->eg_occ[c] -= len < s->eg_occ[c] ? len : s->eg_occ[c];
	iq->hdrm_bytes -= h;
	s->hdrm_used -= h < s->hdrm_used ? h : s->hdrm_used;
	if (r > iq->q_bytes)
		r = iq->q_bytes;
	iq->q_bytes -= r;
	s->in_occ -= r < s->in_occ ? r : s->in_occ;
	if (c == DC_RV_LOSSLESS && dc_sonic_may_resume(p, s, iq)) {
		iq->paused = 0;
		return true;
	}
	return false;
}

DC_INLINE bool dc_sonic_poll_resume(const struct dc_sonic_params *p, const struct dc_sonic_pools *s,
				    struct dc_sonic_iq *iq)
{
	if (!dc_sonic_may_resume(p, s, iq))
		return false;
	iq->paused = 0;
	return true;
}

/* x_c = n·α/(1 + n·α), Q16 (Eqs. 5.5–5.8). */
DC_INLINE __u64 dc_sonic_x_q16(__u32 n, __u32 alpha_q16)
{
	__u64 na = (__u64)n * alpha_q16;

	return dc_muldiv64(na, DC_Q16_ONE, DC_Q16_ONE + na);
}

/* Steady lossy occupancy q_LY = x_LY·b_eLY (Eqs. 5.5/5.8). */
DC_INLINE __u64 dc_sonic_steady_lossy(__u64 eg_ly_bytes, __u32 n_ly, __u32 alpha_ly_q16)
{
	return dc_q16_mul(eg_ly_bytes, dc_sonic_x_q16(n_ly, alpha_ly_q16));
}

/* Steady lossless occupancy q_LL = x_LL·(b_in − x_LY·b_eLY) (Eqs. 5.6/5.7). */
DC_INLINE __u64 dc_sonic_steady_lossless(__u64 in_bytes, __u64 eg_ly_bytes, __u32 n_ll,
					 __u32 alpha_ll_q16, __u32 n_ly, __u32 alpha_ly_q16)
{
	__u64 ly = dc_sonic_steady_lossy(eg_ly_bytes, n_ly, alpha_ly_q16);

	return dc_q16_mul(in_bytes > ly ? in_bytes - ly : 0, dc_sonic_x_q16(n_ll, alpha_ll_q16));
}

#endif
