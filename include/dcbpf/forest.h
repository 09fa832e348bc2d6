/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Credence's drop predictor: a small random forest in fixed point, the
 * same layout in the BPF map (maps/switch.h dc_sw_model), the model file
 * and the trainer (loader/credence/), evaluated by the same code in XDP
 * and in `dcbpf sim`.  As in Credence (NSDI'24, evaluation): 4 trees
 * of depth 4 over 4 features — the arriving packet's queue length, the
 * shared-buffer occupancy, and their EWMAs over one RTT.
 *
 * A tree is an array of nodes with explicit child indices; the root is
 * node 0 and every child index is larger than its parent's, so a walk
 * ends after at most DC_RF_DEPTH_MAX steps even on a hostile model.  The
 * loader refuses a model dc_rf_validate() rejects; the evaluator masks
 * indices anyway so the verifier sees every access in bounds.
 *
 * A leaf holds P(LQD drops this packet) in Q16.  The forest predicts
 * "drop" when the trees' mean probability is above one half:
 *   Σ_t p_t · 2 > n_trees · DC_Q16_ONE        (no division)
 */
#ifndef DCBPF_FOREST_H
#define DCBPF_FOREST_H

#include "fixed.h"

#define DC_RF_VERSION 1
#define DC_RF_TREES_MAX 16
/* Edges from the root to the deepest leaf. */
#define DC_RF_DEPTH_MAX 8
/* Nodes per tree, a power of two: indices are masked with it in BPF. */
#define DC_RF_NODES_MAX 128

/* Feature vector, all in bytes (the simulator's unit mode multiplies its
 * packet counts by --slot-bytes so one model serves both). */
enum dc_rf_feature {
	DC_RF_F_QLEN = 0,	/* q_i: the arriving packet's queue, before it */
	DC_RF_F_OCC = 1,	/* Q: shared-buffer occupancy, before it */
	DC_RF_F_QLEN_EWMA = 2,	/* EWMA of q_i over one RTT */
	DC_RF_F_OCC_EWMA = 3,	/* EWMA of Q over one RTT */
	DC_RF_FEATURES = 4,
};

#define DC_RF_NODE_LEAF 0x01

struct dc_rf_node {
	__u32 value;		/* split: go left if x[feature] <= value (bytes);
				 * leaf: P(drop) in Q16, 0 … DC_Q16_ONE */
	__u8 feature;		/* enum dc_rf_feature (splits only) */
	__u8 flags;		/* DC_RF_NODE_LEAF */
	__u8 left;		/* child indices, > this node's index */
	__u8 right;
};

struct dc_rf_model {
	__u32 version;		/* DC_RF_VERSION */
	__u32 n_trees;		/* 1 … DC_RF_TREES_MAX */
	__u32 depth;		/* declared maximum depth, ≤ DC_RF_DEPTH_MAX */
	__u32 ewma_period_ns;	/* the RTT the EWMA features average over */
	__u32 n_nodes[DC_RF_TREES_MAX];
	struct dc_rf_node node[DC_RF_TREES_MAX][DC_RF_NODES_MAX];
};

/*
 * Time-weighted EWMA: after dt (any time unit) the average moves towards
 * x by min(dt, period) / period.  dt ≥ period replaces it with x.
 */
DC_INLINE __u32 dc_rf_ewma(__u32 ewma, __u32 x, __u64 dt, __u64 period)
{
	__u64 w = dt < period ? dt : period;

	if (!period || w == period)
		return x;
	if (x >= ewma)
		return ewma + (__u32)(((__u64)(x - ewma) * w) / period);
	return ewma - (__u32)(((__u64)(ewma - x) * w) / period);
}

/* Saturate a byte count into a feature. */
DC_INLINE __u32 dc_rf_feat(__u64 bytes)
{
	return bytes > DC_U32_MAX ? DC_U32_MAX : (__u32)bytes;
}

/* Leaf probability (Q16) of tree t for x; 0 for a tree beyond n_trees.
 * Bounded: at most DC_RF_DEPTH_MAX + 1 node visits. */
DC_INLINE __u32 dc_rf_tree(const struct dc_rf_model *m, __u32 t, const __u32 x[DC_RF_FEATURES])
{
	__u32 idx = 0, d;

	t &= DC_RF_TREES_MAX - 1;
	for (d = 0; d <= DC_RF_DEPTH_MAX; d++) {
		const struct dc_rf_node *n = &m->node[t][idx & (DC_RF_NODES_MAX - 1)];

		if (n->flags & DC_RF_NODE_LEAF)
			return n->value > DC_Q16_ONE ? DC_Q16_ONE : n->value;
		idx = x[n->feature & (DC_RF_FEATURES - 1)] <= n->value ? n->left : n->right;
	}
	return 0;
}

/* Σ over trees of the leaf probabilities (Q16).  Bounded: at most
 * DC_RF_TREES_MAX × (DC_RF_DEPTH_MAX + 1) node visits.  The XDP program
 * runs the same sum with one bpf_loop iteration per tree (dc_rf_tree),
 * since the unrolled loops are beyond the verifier's budget. */
DC_INLINE __u64 dc_rf_score(const struct dc_rf_model *m, const __u32 x[DC_RF_FEATURES])
{
	__u32 nt = m->n_trees < DC_RF_TREES_MAX ? m->n_trees : DC_RF_TREES_MAX;
	__u64 sum = 0;
	__u32 t;

	for (t = 0; t < nt; t++)
		sum += dc_rf_tree(m, t, x);
	return sum;
}

/* Drop when the mean probability is above one half (score from above). */
DC_INLINE bool dc_rf_drop_of(const struct dc_rf_model *m, __u64 score)
{
	return score * 2 > (__u64)m->n_trees * DC_Q16_ONE;
}

DC_INLINE bool dc_rf_predict_drop(const struct dc_rf_model *m, const __u32 x[DC_RF_FEATURES])
{
	return dc_rf_drop_of(m, dc_rf_score(m, x));
}

/* Why a model is refused (0 = valid). */
enum dc_rf_err {
	DC_RF_OK = 0,
	DC_RF_E_VERSION,	/* version != DC_RF_VERSION */
	DC_RF_E_TREES,		/* n_trees 0 or > DC_RF_TREES_MAX */
	DC_RF_E_DEPTH,		/* declared depth > DC_RF_DEPTH_MAX, or a leaf deeper */
	DC_RF_E_NODES,		/* a tree with 0 or > DC_RF_NODES_MAX nodes */
	DC_RF_E_CHILD,		/* child index ≤ parent or ≥ n_nodes */
	DC_RF_E_FEATURE,	/* split feature ≥ DC_RF_FEATURES */
	DC_RF_E_PROB,		/* leaf probability > DC_Q16_ONE */
	DC_RF_E_UNREACHED,	/* a node no walk reaches, or reached twice */
	DC_RF_E_PERIOD,		/* ewma_period_ns == 0 */
};

#ifndef __bpf__
DC_INLINE const char *dc_rf_strerror(int e)
{
	switch (e) {
	case DC_RF_OK: return "valid";
	case DC_RF_E_VERSION: return "unsupported model version";
	case DC_RF_E_TREES: return "tree count out of range";
	case DC_RF_E_DEPTH: return "depth out of range";
	case DC_RF_E_NODES: return "node count out of range";
	case DC_RF_E_CHILD: return "child node index out of range";
	case DC_RF_E_FEATURE: return "feature index out of range";
	case DC_RF_E_PROB: return "leaf probability above 1";
	case DC_RF_E_UNREACHED: return "node not reached exactly once from the root";
	case DC_RF_E_PERIOD: return "EWMA period is zero";
	default: return "unknown error";
	}
}

/*
 * Full structural check (user space only).  On error *tree and *node name
 * the offending place (-1 when the model header is at fault).  Each node
 * must be reached exactly once, so a tree is a tree and its depth is the
 * longest root-to-leaf path.
 */
DC_INLINE int dc_rf_validate(const struct dc_rf_model *m, int *tree, int *node)
{
	__u32 t, i;

	*tree = -1;
	*node = -1;
	if (m->version != DC_RF_VERSION)
		return DC_RF_E_VERSION;
	if (!m->n_trees || m->n_trees > DC_RF_TREES_MAX)
		return DC_RF_E_TREES;
	if (m->depth > DC_RF_DEPTH_MAX)
		return DC_RF_E_DEPTH;
	if (!m->ewma_period_ns)
		return DC_RF_E_PERIOD;
	for (t = 0; t < m->n_trees; t++) {
		__u8 seen[DC_RF_NODES_MAX] = { 0 };
		__u8 depth[DC_RF_NODES_MAX] = { 0 };
		__u32 nn = m->n_nodes[t];

		*tree = (int)t;
		if (!nn || nn > DC_RF_NODES_MAX)
			return DC_RF_E_NODES;
		seen[0] = 1;
		for (i = 0; i < nn; i++) {
			const struct dc_rf_node *n = &m->node[t][i];

			*node = (int)i;
			if (!seen[i])
				return DC_RF_E_UNREACHED;
			if (depth[i] > m->depth)
				return DC_RF_E_DEPTH;
			if (n->flags & DC_RF_NODE_LEAF) {
				if (n->value > DC_Q16_ONE)
					return DC_RF_E_PROB;
				continue;
			}
			if (n->feature >= DC_RF_FEATURES)
				return DC_RF_E_FEATURE;
			if (n->left <= i || n->right <= i || n->left >= nn || n->right >= nn ||
			    n->left == n->right)
				return DC_RF_E_CHILD;
			if (seen[n->left] || seen[n->right])
				return DC_RF_E_UNREACHED;
			seen[n->left] = seen[n->right] = 1;
			depth[n->left] = depth[n->right] = depth[i] + 1;
		}
		*node = -1;
	}
	*tree = -1;
	return DC_RF_OK;
}
#endif

#endif
