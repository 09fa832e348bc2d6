/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * EDT, Enhanced Dynamic Threshold (Shan, Jiang and Ren, "Absorbing
 * micro-burst traffic by enhancing dynamic threshold policy of data center
 * switches", INFOCOM'15), the baseline SmartBuf is compared with (Rezaei
 * thesis §4.5.2: "the uncontrolled state in EDT temporarily sets the port
 * threshold to the whole buffer size, and then in the controlled state
 * when the burst is gone, it reverts to DT").  Pure and integer-only,
 * shared by the XDP switch program and the simulator.
 *
 * A port is in one of three states, moved on queue samples (q at t, the
 * same samples SmartBuf learns from; t ≤ the previous sample's t is not
 * a sample, the first sample primes):
 *   CONTROLLED    T = DT.  The queue grew in `rise` consecutive samples
 *                 (a micro-burst is arriving) → UNCONTROLLED.
 *   UNCONTROLLED  T = B, the whole buffer (the full check Q + len ≤ B
 *                 still applies).  The queue shrank in `rise` consecutive
 *                 samples or is empty (the burst is gone) → CONTROLLED; the
 *                 state lasted longer than max_us (not a micro-burst but
 *                 lasting congestion) → OVERLOADED.
 *   OVERLOADED    T = DT.  Left for CONTROLLED only when the queue empties,
 *                 so lasting congestion cannot take the whole buffer again
 *                 by rising for `rise` samples.
 * The detection rule (consecutive rising samples) and the overload state
 * are this project's reading of the paper's controlled/uncontrolled state
 * machine (docs/admission.md, "EDT").
 */
#ifndef DCBPF_EDT_H
#define DCBPF_EDT_H

#include "fixed.h"

#define DC_EDT_DEFAULT_RISE 3
#define DC_EDT_DEFAULT_MAX_US 1000	/* ≈ 10 base RTTs of the emulated fabric */

enum dc_edt_state {
	DC_EDT_CONTROLLED = 0,
	DC_EDT_UNCONTROLLED = 1,
	DC_EDT_OVERLOADED = 2,
};

/* Parameters (dc_sw_cfg.edt, dc_sim_cfg.edt).  0 = default. */
struct dc_edt_params {
	__u32 rise;		/* consecutive rising (falling) samples */
	__u32 max_us;		/* longest uncontrolled state */
};

struct dc_edt_port {
	__u64 qlen_prev_bytes;
	__u64 t_prev_ns;
	__u64 since_ns;		/* start of the uncontrolled state */
	__u32 state;		/* enum dc_edt_state */
	__u32 run;		/* consecutive rising (controlled) / falling samples */
	__u32 primed;
	__u32 bursts;		/* times the port went uncontrolled */
};

/* One sample; false when t_ns is not a new sample. */
DC_INLINE bool dc_edt_sample(struct dc_edt_port *p, const struct dc_edt_params *c, __u64 q,
			     __u64 t_ns)
{
	__u32 rise = c->rise ? c->rise : DC_EDT_DEFAULT_RISE;
	__u64 max_ns = (__u64)(c->max_us ? c->max_us : DC_EDT_DEFAULT_MAX_US) * DC_NSEC_PER_USEC;
	__u64 prev = p->qlen_prev_bytes;

	if (!p->primed) {
		p->primed = 1;
		p->qlen_prev_bytes = q;
		p->t_prev_ns = t_ns;
		return true;
	}
	if (t_ns <= p->t_prev_ns)
		return false;
	p->qlen_prev_bytes = q;
	p->t_prev_ns = t_ns;
	switch (p->state) {
	case DC_EDT_CONTROLLED:
		p->run = q > prev ? p->run + 1 : 0;
		if (p->run >= rise) {
			p->state = DC_EDT_UNCONTROLLED;
			p->since_ns = t_ns;
			p->run = 0;
			p->bursts++;
		}
		break;
	case DC_EDT_UNCONTROLLED:
		if (t_ns - p->since_ns > max_ns) {
			p->state = DC_EDT_OVERLOADED;
			p->run = 0;
			break;
		}
		p->run = q < prev ? p->run + 1 : 0;
		if (!q || p->run >= rise) {
			p->state = DC_EDT_CONTROLLED;
			p->run = 0;
		}
		break;
	default:
		if (!q) {
			p->state = DC_EDT_CONTROLLED;
			p->run = 0;
		}
		break;
	}
	return true;
}

/* The port's threshold: B when uncontrolled, else DT's (dt_bytes). */
DC_INLINE __u64 dc_edt_threshold(const struct dc_edt_port *p, __u64 B, __u64 dt_bytes)
{
	return p->state == DC_EDT_UNCONTROLLED ? B : dt_bytes;
}

#endif
