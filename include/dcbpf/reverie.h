/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Lossy (TCP) and lossless (RDMA, PFC) traffic in one switch buffer:
 * Reverie (Addanki thesis ch.5; Reverie, NSDI'24) and the SONiC baseline
 * it replaces (sonic.h).  Pure, integer-only, loops bounded, so the
 * simulator (dcbpf sim --alg reverie) and a switch program run the same
 * decisions.  Equation numbers are the thesis' (docs/admission.md,
 * "Reverie and the SONiC baseline").
 *
 * Buffer: b bytes = shared pool b* plus headroom pool b_h (§5.2):
 *   b* = b − b_h, shared dynamically by both classes.
 * Counting (§5.2): a lossless packet counts once, in its INGRESS queue
 * (source port, priority); a lossy packet once, in its EGRESS queue
 * (destination port, priority).  Every queue has the same state
 * (struct dc_rv_queue); the caller picks which queue a packet counts in.
 *
 *   Eq. 5.11  q̂(t) = γ·q̂(t − δt) + (1 − γ)·q(t)     low-pass filter
 *   Eq. 5.12  Γ(t) = α_c · (1/n_c) · (b* − q*(t))   threshold
 *   Eq. 5.10  admit iff q̂(t) ≤ Γ(t)                (and the packet fits in b*)
 *
 * Lossy packet failing Eq. 5.10: dropped.  Lossless packet failing it: the
 * queue PAUSEs its upstream (one PFC pause frame), and the packet and all
 * later ones go to the queue's headroom irrespective of Eq. 5.10.  The
 * queue RESUMEs once its headroom has drained completely and Eq. 5.10
 * holds again, with xon_offset bytes of hysteresis: q̂ + xon_offset ≤ Γ.
 *
 * Resolved where the text is open (docs/admission.md lists them):
 *  - q̂ updates at each departure from the queue (δt = one dequeue), and
 *    is then clamped to q (q̂ ≤ q): it rises slowly and falls at once, as
 *    the authors' simulator does.  The clamp is a parameter.
 *  - q in Eq. 5.11 is the queue's whole length, shared part plus
 *    headroom (what its upstream has put into the switch).
 *  - n_c is fractional: Σ over the class' queues of min(1, q̂/cong_bytes),
 *    at least 1 (the authors' simulator; cong_bytes = 20 KiB there).
 *  - Departures take from the headroom first, then from the shared pool.
 *  - A lossless packet that finds its headroom (per queue or the pool)
 *    full is dropped and counted: headroom sized too small for the PFC
 *    reaction time; with headroom sized by dc_rv_headroom_bytes it cannot
 *    happen in the simulator's link model.
 *
 * Units and scales: bytes; α Q16 (≤ 1024); γ Q32 (weight on the OLD
 * average; the thesis' ν = 1 − γ is the weight on the new sample,
 * Property 2); q̂ Q16 bytes so small queues keep their fractions; n Q16.
 * Overflow: b < 2^32, so q̂ < 2^48 (Q16), Γ·2^16 < 2^48·α ≤ 2^58.
 */
#ifndef DCBPF_REVERIE_H
#define DCBPF_REVERIE_H

#include "fixed.h"

/* γ's scale: Q32, so γ = 0.999 and 0.999999 are represented to 2^-32. */
#define DC_RV_Q32_SHIFT 32
#define DC_RV_Q32_ONE (1ULL << DC_RV_Q32_SHIFT)

/* Defaults (§5.3 evaluation): α = 1 for both classes, γ = 0.999 (the
 * authors' simulator defaults to 0.99; Fig. 5.13 sweeps 0.4 … 0.999999). */
#define DC_RV_ALPHA_MAX_Q16 (1024U << DC_Q16_SHIFT)
#define DC_RV_DEFAULT_ALPHA_Q16 ((__u32)DC_Q16_ONE)
#define DC_RV_DEFAULT_GAMMA_Q32 4290672329ULL	/* round(0.999 · 2^32) */
/* A queue is fully congested (level 1) from 20 KiB of filtered length on. */
#define DC_RV_DEFAULT_CONG_BYTES 20480U

/* Buffer and headroom as the evaluation sizes them (§5.3): 5.12 KB of
 * buffer per port per Gbit/s, like Broadcom Tomahawk; and per lossless
 * queue 2 MTU-sized packets with 48 B of framing each, a fixed 3860 B
 * for the NIC's reaction to a pause, and what the link carries in two
 * propagation delays (the pause travelling up, the last bytes down). */
#define DC_RV_BUF_PER_PORT_GBPS_BYTES 5120ULL
#define DC_RV_HDRM_FRAMING_BYTES 48ULL
#define DC_RV_HDRM_REACTION_BYTES 3860ULL

enum dc_rv_class {
	DC_RV_LOSSY = 0,	/* dropped when refused */
	DC_RV_LOSSLESS = 1,	/* never dropped: PFC pauses its upstream */
	DC_RV_CLASSES = 2,
};

enum dc_rv_verdict {
	DC_RV_SHARED = 0,	/* admitted into the shared pool */
	DC_RV_HEADROOM = 1,	/* lossless, paused queue: into headroom */
	DC_RV_DROP_THRESH = 2,	/* lossy: q̂ > Γ (Eq. 5.10 fails) */
	DC_RV_DROP_FULL = 3,	/* lossy: the shared pool has no room */
	DC_RV_DROP_HDRM = 4,	/* lossless: headroom overrun (sized too small) */
};

struct dc_rv_params {
	__u64 shared_bytes;		/* b* = b − b_h */
	__u64 hdrm_pool_bytes;		/* b_h: all lossless queues' headroom */
	__u64 hdrm_queue_bytes;		/* one lossless queue's headroom */
	__u32 alpha_q16[DC_RV_CLASSES];	/* α_LY, α_LL (Thm 10: the split) */
	__u64 gamma_q32;		/* γ of Eq. 5.11, < 1 */
	__u32 cong_bytes;		/* q̂ at which a queue counts fully in n */
	__u32 xon_offset_bytes;		/* resume hysteresis */
	bool clamp;			/* q̂ ≤ q after each update */
};

/* One queue: an ingress queue (lossless) or an egress queue (lossy). */
struct dc_rv_queue {
	__u64 q_bytes;			/* its bytes in the shared pool */
	__u64 hdrm_bytes;		/* its bytes in the headroom pool */
	__u64 qhat_q16;			/* q̂, Q16 bytes (Eq. 5.11) */
	__u32 level_q16;		/* its share of n_c: min(1, q̂/cong_bytes) */
	__u32 paused;			/* lossless: PFC state, 1 = PAUSED */
};

/* The switch-wide state: one per buffer. */
struct dc_rv_pool {
	__u64 q_shared;			/* q*: shared pool occupancy */
	__u64 hdrm_used;		/* headroom pool occupancy */
	__u64 n_q16[DC_RV_CLASSES];	/* Σ level of the class' queues */
};

DC_INLINE void dc_rv_defaults(struct dc_rv_params *p, __u64 buffer_bytes, __u64 hdrm_queue_bytes,
			      __u32 lossless_queues)
{
	__u64 h = hdrm_queue_bytes * lossless_queues;

	p->hdrm_queue_bytes = hdrm_queue_bytes;
	p->hdrm_pool_bytes = h;
	p->shared_bytes = h < buffer_bytes ? buffer_bytes - h : 0;
	p->alpha_q16[DC_RV_LOSSY] = DC_RV_DEFAULT_ALPHA_Q16;
	p->alpha_q16[DC_RV_LOSSLESS] = DC_RV_DEFAULT_ALPHA_Q16;
	p->gamma_q32 = DC_RV_DEFAULT_GAMMA_Q32;
	p->cong_bytes = DC_RV_DEFAULT_CONG_BYTES;
	p->xon_offset_bytes = 0;
	p->clamp = true;
}

/* Buffer of a switch as §5.3 sizes it: ports × Gbit/s × 5.12 KB. */
DC_INLINE __u64 dc_rv_buffer_bytes(__u32 ports, __u32 gbps)
{
	return (__u64)ports * gbps * DC_RV_BUF_PER_PORT_GBPS_BYTES;
}

/* Headroom of one lossless queue for a link of rate_mbps and one-way
 * delay delay_ns: (mtu + 48)·2 + 3860 + 2·rate·delay (bytes). */
DC_INLINE __u64 dc_rv_headroom_bytes(__u32 mtu, __u64 rate_mbps, __u64 delay_ns)
{
	return (mtu + DC_RV_HDRM_FRAMING_BYTES) * 2 + DC_RV_HDRM_REACTION_BYTES +
	       2 * dc_bytes_in_ns(rate_mbps, delay_ns);
}

/* m·g / 2^32 rounded down, m < 2^64, g ≤ 2^32, without a 128-bit product. */
DC_INLINE __u64 dc_rv_mul_q32(__u64 m, __u64 g)
{
	return (m >> 32) * g + (((m & 0xffffffffULL) * g) >> 32);
}

/*
 * Eq. 5.11 as one step: q̂ ← q̂ + (1 − γ)·(q − q̂), i.e. γ·q̂ + (1 − γ)·q,
 * in Q16 bytes, with the optional clamp q̂ ≤ q.  Moves toward q from
 * either side without overshooting it.
 */
DC_INLINE __u64 dc_rv_filter(__u64 qhat_q16, __u64 q_bytes, __u64 gamma_q32, bool clamp)
{
	__u64 q16 = q_bytes << DC_Q16_SHIFT;
	__u64 nu = DC_RV_Q32_ONE - (gamma_q32 < DC_RV_Q32_ONE ? gamma_q32 : DC_RV_Q32_ONE);

	if (q16 >= qhat_q16)
		qhat_q16 += dc_rv_mul_q32(q16 - qhat_q16, nu);
	else
		qhat_q16 -= dc_rv_mul_q32(qhat_q16 - q16, nu);
	if (clamp && q16 < qhat_q16)
		qhat_q16 = q16;
	return qhat_q16;
}

/* A queue's share of n_c: min(1, q̂/cong_bytes), Q16. */
DC_INLINE __u32 dc_rv_level_q16(__u64 qhat_q16, __u32 cong_bytes)
{
	__u64 l;

	if (!cong_bytes)
		return qhat_q16 ? (__u32)DC_Q16_ONE : 0;
	l = qhat_q16 / cong_bytes;
	return (__u32)(l < DC_Q16_ONE ? l : DC_Q16_ONE);
}

/* n_c, at least 1 (Eq. 5.12 divides by it). */
DC_INLINE __u64 dc_rv_n_q16(const struct dc_rv_pool *pool, __u32 cls)
{
	__u64 n = pool->n_q16[cls];

	return n > DC_Q16_ONE ? n : DC_Q16_ONE;
}

/* Eq. 5.12 in Q16 bytes: Γ = α_c·(b* − q*)/n_c. */
DC_INLINE __u64 dc_rv_threshold_q16(__u64 shared_bytes, __u64 q_shared, __u32 alpha_q16,
				    __u64 n_q16)
{
	__u64 free_bytes = q_shared < shared_bytes ? shared_bytes - q_shared : 0;

	/* b·c = α_q16·n_q16 < 2^26 · 2^38: n stays below 2^22 queues */
	return dc_muldiv64(free_bytes << DC_Q16_SHIFT, alpha_q16, n_q16 ? n_q16 : DC_Q16_ONE);
}

DC_INLINE __u64 dc_rv_gamma_of(const struct dc_rv_params *p, const struct dc_rv_pool *pool,
			       __u32 cls)
{
	return dc_rv_threshold_q16(p->shared_bytes, pool->q_shared, p->alpha_q16[cls & 1],
				   dc_rv_n_q16(pool, cls & 1));
}

/* Eq. 5.10 plus room in the shared pool. */
DC_INLINE bool dc_rv_admits(const struct dc_rv_params *p, const struct dc_rv_pool *pool,
			    const struct dc_rv_queue *qu, __u32 cls, __u32 len)
{
	return qu->qhat_q16 <= dc_rv_gamma_of(p, pool, cls) &&
	       pool->q_shared + len <= p->shared_bytes;
}

/* A lossless packet into the queue's headroom, if both the queue's and
 * the pool's headroom hold it. */
DC_INLINE enum dc_rv_verdict dc_rv_to_headroom(const struct dc_rv_params *p,
					       struct dc_rv_pool *pool, struct dc_rv_queue *qu,
					       __u32 len)
{
	if (qu->hdrm_bytes + len > p->hdrm_queue_bytes ||
	    pool->hdrm_used + len > p->hdrm_pool_bytes)
		return DC_RV_DROP_HDRM;
	qu->hdrm_bytes += len;
	pool->hdrm_used += len;
	return DC_RV_HEADROOM;
}

/*
 * One arrival of len bytes of class cls to queue qu.  *pause is set when
 * this arrival moved a lossless queue to PAUSED: send one PFC pause
 * frame upstream for the queue's priority.
 */
DC_INLINE enum dc_rv_verdict dc_rv_arrival(const struct dc_rv_params *p, struct dc_rv_pool *pool,
					   struct dc_rv_queue *qu, __u32 cls, __u32 len,
					   bool *pause)
{
	*pause = false;
	if (cls == DC_RV_LOSSLESS && qu->paused)
		return dc_rv_to_headroom(p, pool, qu, len);
	if (dc_rv_admits(p, pool, qu, cls, len)) {
		qu->q_bytes += len;
		pool->q_shared += len;
		return DC_RV_SHARED;
	}
	if (cls != DC_RV_LOSSLESS)
		return qu->qhat_q16 <= dc_rv_gamma_of(p, pool, cls) ? DC_RV_DROP_FULL :
								     DC_RV_DROP_THRESH;
	qu->paused = 1;
	*pause = true;
	return dc_rv_to_headroom(p, pool, qu, len);
}

/* The filter step and n_c's running sum after the queue's length changed. */
DC_INLINE void dc_rv_update(const struct dc_rv_params *p, struct dc_rv_pool *pool,
			    struct dc_rv_queue *qu, __u32 cls)
{
	__u32 lv;

	qu->qhat_q16 = dc_rv_filter(qu->qhat_q16, qu->q_bytes + qu->hdrm_bytes, p->gamma_q32,
				    p->clamp);
	lv = dc_rv_level_q16(qu->qhat_q16, p->cong_bytes);
	pool->n_q16[cls & 1] = pool->n_q16[cls & 1] + lv - qu->level_q16;
	qu->level_q16 = lv;
}

/* The PFC resume test: headroom empty and q̂ + xon_offset ≤ Γ. */
DC_INLINE bool dc_rv_may_resume(const struct dc_rv_params *p, const struct dc_rv_pool *pool,
				const struct dc_rv_queue *qu)
{
	return qu->paused && !qu->hdrm_bytes &&
	       qu->qhat_q16 + ((__u64)p->xon_offset_bytes << DC_Q16_SHIFT) <=
		       dc_rv_gamma_of(p, pool, DC_RV_LOSSLESS);
}

/*
 * One departure of len bytes from queue qu (headroom first), the filter
 * step, and for a paused lossless queue the resume test.  Returns true
 * when the queue RESUMEs: send one PFC resume frame upstream.
 */
DC_INLINE bool dc_rv_departure(const struct dc_rv_params *p, struct dc_rv_pool *pool,
			       struct dc_rv_queue *qu, __u32 cls, __u32 len)
{
	__u64 h = qu->hdrm_bytes < len ? qu->hdrm_bytes : len;
	__u64 s = len - h;

	qu->hdrm_bytes -= h;
	pool->hdrm_used -= h < pool->hdrm_used ? h : pool->hdrm_used;
	if (s > qu->q_bytes)
		s = qu->q_bytes;
	qu->q_bytes -= s;
	pool->q_shared -= s < pool->q_shared ? s : pool->q_shared;
	dc_rv_update(p, pool, qu, cls);
	if (cls == DC_RV_LOSSLESS && dc_rv_may_resume(p, pool, qu)) {
		qu->paused = 0;
		return true;
	}
	return false;
}

/*
 * A paused queue that sends nothing (all its bytes are queued behind
 * other traffic, or it has none left) gets its resume test here too: the
 * caller runs it when other queues' departures raised Γ.
 */
DC_INLINE bool dc_rv_poll_resume(const struct dc_rv_params *p, const struct dc_rv_pool *pool,
				 struct dc_rv_queue *qu)
{
	if (!dc_rv_may_resume(p, pool, qu))
		return false;
	qu->paused = 0;
	return true;
}

/*
 * The switch's re-test of a paused lossless queue (docs/admission.md, "PFC
 * in the fabric").  The switch's counts are plain stores from several CPUs:
 * a departure lost to a race leaves a count too high, and a paused queue
 * whose packets have all left then sends nothing more that could resume it
 * (its upstream holds it).  The switch therefore re-tests its paused queues
 * at every departure of any port, as the simulator polls them every slot,
 * and before the resume test drops a count that the egress queue can no
 * longer hold.
 *
 * Whether its packets have left: every packet of the queue since its count
 * was last zero went to one FIFO port (a TBF's or a FIFO's: first in, first
 * out), and the packet arriving when that port had given out tx bytes and
 * held backlog bytes has left once the port has given out tx + backlog +
 * len bytes.  The queue keeps the largest such position of its packets; a
 * packet to another port makes the position unknown until the count is
 * zero again (then nothing is dropped: only the Γ test runs).  Bytes that
 * other CPUs put into the port between admission and this packet's
 * enqueue, a lost store of the position and the header bytes a GSO packet
 * adds in the qdisc's count come before it unseen: the test waits for
 * DC_RV_RETEST_SLACK_BYTES (one largest GSO packet, 64 KiB) more.
 */
#define DC_RV_RETEST_SLACK_BYTES 65536ULL

struct dc_rv_fifo_pos {
	__u64 done_bytes;	/* the port's tx count once the queue's last packet left */
	__u32 port1;		/* its egress port + 1; 0: unknown (several ports, or none) */
	__u32 pad;
};

/*
 * A packet of len bytes of the queue admitted toward FIFO port `port`,
 * which has given out tx_bytes and holds backlog_bytes.  had_bytes: the
 * queue's count (shared plus headroom) before this packet.
 */
DC_INLINE void dc_rv_pos_note(struct dc_rv_fifo_pos *pos, __u64 had_bytes, __u32 port,
			      __u64 tx_bytes, __u64 backlog_bytes, __u32 len)
{
	__u64 done = tx_bytes + backlog_bytes + len;

	if (!had_bytes) {
		pos->port1 = port + 1;
		pos->done_bytes = done;
	} else if (pos->port1 == port + 1) {
		if (done > pos->done_bytes)
			pos->done_bytes = done;
	} else if (pos->port1) {
		pos->port1 = 0;
	}
}

/* All of the queue's packets have left: its port (port_tx_bytes given out
 * by port `port`) is past the position plus the slack. */
DC_INLINE bool dc_rv_pos_gone(const struct dc_rv_fifo_pos *pos, __u32 port, __u64 port_tx_bytes)
{
	return pos->port1 && pos->port1 == port + 1 &&
	       port_tx_bytes >= pos->done_bytes + DC_RV_RETEST_SLACK_BYTES;
}

/*
 * The re-test of a paused lossless queue outside its own departures.
 * gone: dc_rv_pos_gone said its packets have all left the buffer, so any
 * count it still holds is stale: dropped from the queue and from the pool
 * (as a departure of those bytes would, q̂ clamped to the empty queue and
 * its share of n_c with it).  Then the resume test (dc_rv_poll_resume).
 * Returns true when the queue RESUMEs: send one PFC resume frame.
 * *dropped_bytes: the stale count dropped.
 */
DC_INLINE bool dc_rv_retest(const struct dc_rv_params *p, struct dc_rv_pool *pool,
			    struct dc_rv_queue *qu, bool gone, __u64 *dropped_bytes)
{
	__u64 h = qu->hdrm_bytes, s = qu->q_bytes;
	__u32 lv;

	*dropped_bytes = 0;
	if (!qu->paused)
		return false;
	if (gone && (h || s)) {
		pool->hdrm_used -= h < pool->hdrm_used ? h : pool->hdrm_used;
		pool->q_shared -= s < pool->q_shared ? s : pool->q_shared;
		qu->hdrm_bytes = 0;
		qu->q_bytes = 0;
		*dropped_bytes = h + s;
		if (p->clamp)
			qu->qhat_q16 = 0;
		lv = dc_rv_level_q16(qu->qhat_q16, p->cong_bytes);
		pool->n_q16[DC_RV_LOSSLESS] = pool->n_q16[DC_RV_LOSSLESS] + lv - qu->level_q16;
		qu->level_q16 = lv;
	}
	return dc_rv_poll_resume(p, pool, qu);
}

/*
 * Theorem 10 (isolation) in the steady state, both classes congested:
 * lossless = α_LL·b* / (1 + α_LL + α_LY) (Eq. 5.14), lossy = α_LY·b* / (…)
 * (Eq. 5.15); one class alone: α·b* / (1 + α).  Bytes, rounded down.
 */
DC_INLINE __u64 dc_rv_steady_bytes(__u64 shared_bytes, __u32 alpha_mine_q16,
				   __u32 alpha_other_q16)
{
	return dc_muldiv64(shared_bytes, alpha_mine_q16,
			   DC_Q16_ONE + alpha_mine_q16 + (__u64)alpha_other_q16);
}

/* Theorem 11: unused buffer b* / (1 + α_LL + α_LY) ≤ b_w ≤ b* / (1 + min α). */
DC_INLINE void dc_rv_waste_bounds(__u64 shared_bytes, __u32 a_ll_q16, __u32 a_ly_q16, __u64 *lo,
				  __u64 *hi)
{
	__u32 amin = a_ll_q16 < a_ly_q16 ? a_ll_q16 : a_ly_q16;

	*lo = dc_muldiv64(shared_bytes, DC_Q16_ONE, DC_Q16_ONE + (__u64)a_ll_q16 + a_ly_q16);
	*hi = dc_muldiv64(shared_bytes, DC_Q16_ONE, DC_Q16_ONE + (__u64)amin);
}

#endif
