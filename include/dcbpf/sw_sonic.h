/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The switch's state under alg=sonic, apart from switch.h: sonic.h needs
 * admit.h, which includes switch.h.  Layout rules as in switch.h.
 */
#ifndef DCBPF_SW_SONIC_H
#define DCBPF_SW_SONIC_H

#include "switch.h"
#include "sonic.h"

/*
 * The SONiC model's state (dc_sw_sonic, key 0; include/dcbpf/sonic.h):
 * every packet counts twice, at ingress in[] (source port, priority) and
 * at egress eg_bytes[] (destination port, priority), key port·DC_SW_PRIOS
 * + priority.  Its parameters are Reverie's keys: b = buffer_bytes, the
 * headroom rv_hdrm_bytes / rv_hdrm_pool_bytes, the ingress lossless DT α
 * = rv_alpha_lossless, the egress lossy DT α = rv_alpha_lossy; the rest
 * as the operators' heuristics set it (dc_sonic_defaults: b_in = b − b_h,
 * b_eLY = 0.8·b_in).  Written like dc_sw_rv (plain stores, reset when the
 * buffer is empty).
 */

struct dc_sw_sonicq {
	struct dc_sonic_iq iq;	/* q_bytes, hdrm_bytes, paused */
	__u64 pauses;		/* PFC pause frames sent (PAUSED entries) */
	__u64 resumes;
	__u64 hdrm_pkts;	/* lossless packets into its headroom */
	__u64 hdrm_drops;	/* lossless packets its full headroom dropped */
};

struct dc_sw_sonic {
	struct dc_sonic_pools pools;		/* in_occ, hdrm_used, eg_occ[2] */
	struct dc_sw_sonicq in[DC_SW_PORTS_MAX * DC_SW_PRIOS];
	__u64 eg_bytes[DC_SW_PORTS_MAX * DC_SW_PRIOS];
	__u64 deq_skb[DC_SW_PORTS_MAX];
	__u64 resets;
};

#endif
