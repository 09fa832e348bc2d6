/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * dc_rf_score (include/dcbpf/forest.h) for BPF programs: one bpf_loop
 * iteration per tree, each the shared dc_rf_tree.  The unrolled loops of
 * dc_rf_score (16 trees × 9 levels, a branch at each) are beyond the
 * verifier's budget inside the admission program; the callback is
 * verified once.  Used by bpf/switch.bpf.c and by the test object that
 * checks it against the host (tests/prog/bpf/rf_eval.bpf.c).
 */
#ifndef DCBPF_BPF_LIB_FOREST_H
#define DCBPF_BPF_LIB_FOREST_H

#include "dcbpf/forest.h"

struct dc_rf_ctx {
	const struct dc_rf_model *m;
	const __u32 *x;
	__u64 sum;
	__u32 nt;
};

static long dc_rf_one(__u32 t, void *data)
{
	struct dc_rf_ctx *r = data;
	const struct dc_rf_model *m = r->m;
	__u32 x[DC_RF_FEATURES];

	if (!m || t >= r->nt)
		return 1;
	__builtin_memcpy(x, r->x, sizeof(x));
	r->sum += dc_rf_tree(m, t, x);
	return 0;
}

static __always_inline __u64 dc_rf_score_loop(const struct dc_rf_model *m,
					      const __u32 x[DC_RF_FEATURES])
{
	struct dc_rf_ctx r = { .m = m, .x = x,
			       .nt = m->n_trees < DC_RF_TREES_MAX ? m->n_trees : DC_RF_TREES_MAX };

	bpf_loop(DC_RF_TREES_MAX, dc_rf_one, &r, 0);
	return r.sum;
}

#endif
