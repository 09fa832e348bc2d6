/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Random valid forests (include/dcbpf/forest.h) and feature vectors for
 * the tests and the bench: trees grown breadth-first, so every child
 * index is above its parent's and every node is reached once, with
 * random splits over byte-valued features and random leaf probabilities.
 */
#ifndef DCBPF_TEST_RFGEN_H
#define DCBPF_TEST_RFGEN_H

#include <stdint.h>
#include <string.h>
#include "dcbpf/forest.h"

/* xorshift64*: small, seeded, the same sequence everywhere. */
static inline uint64_t rfgen_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static inline uint32_t rfgen_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(rfgen_next(s) % n);
}

/* Split thresholds and features range over [0, RFGEN_SPAN) bytes. */
#define RFGEN_SPAN (1U << 20)

/* A random model of n_trees trees of depth ≤ depth (a split becomes a
 * leaf with probability leaf_pct % above the root, and always where the
 * node table would overflow).  Always passes dc_rf_validate. */
static inline void rfgen_model(struct dc_rf_model *m, uint64_t *s, uint32_t n_trees,
			       uint32_t depth, uint32_t leaf_pct, uint32_t period_ns)
{
	uint32_t t;

	memset(m, 0, sizeof(*m));
	m->version = DC_RF_VERSION;
	m->n_trees = n_trees;
	m->depth = depth;
	m->ewma_period_ns = period_ns;
	for (t = 0; t < n_trees; t++) {
		uint8_t lvl[DC_RF_NODES_MAX] = { 0 };
		uint32_t i, nn = 1;

		for (i = 0; i < nn; i++) {
			struct dc_rf_node *n = &m->node[t][i];
			bool leaf = lvl[i] >= depth || nn + 2 > DC_RF_NODES_MAX ||
				    (lvl[i] && rfgen_below(s, 100) < leaf_pct);

			if (leaf) {
				n->flags = DC_RF_NODE_LEAF;
				n->value = rfgen_below(s, DC_Q16_ONE + 1);
				continue;
			}
			n->feature = (uint8_t)rfgen_below(s, DC_RF_FEATURES);
			n->value = rfgen_below(s, RFGEN_SPAN);
			n->left = (uint8_t)nn;
			n->right = (uint8_t)(nn + 1);
			lvl[nn] = lvl[nn + 1] = (uint8_t)(lvl[i] + 1);
			nn += 2;
		}
		m->n_nodes[t] = nn;
	}
}

/* Every tree a single leaf of probability p (Q16): a constant predictor. */
static inline void rfgen_const(struct dc_rf_model *m, uint32_t n_trees, uint32_t p_q16,
			       uint32_t period_ns)
{
	uint32_t t;

	memset(m, 0, sizeof(*m));
	m->version = DC_RF_VERSION;
	m->n_trees = n_trees;
	m->depth = 0;
	m->ewma_period_ns = period_ns;
	for (t = 0; t < n_trees; t++) {
		m->n_nodes[t] = 1;
		m->node[t][0].flags = DC_RF_NODE_LEAF;
		m->node[t][0].value = p_q16;
	}
}

/* A feature vector: mostly in the split range, sometimes exactly on a
 * split value of m (the "≤" edge) or at the top of the u32 range. */
static inline void rfgen_features(const struct dc_rf_model *m, uint64_t *s,
				  uint32_t x[DC_RF_FEATURES])
{
	uint32_t f;

	for (f = 0; f < DC_RF_FEATURES; f++) {
		uint32_t r = rfgen_below(s, 10);

		if (r == 0) {
			x[f] = 0xffffffffU - rfgen_below(s, 3);
		} else if (r <= 2 && m->n_trees) {
			uint32_t t = rfgen_below(s, m->n_trees);
			const struct dc_rf_node *n = &m->node[t][rfgen_below(s, m->n_nodes[t])];

			x[f] = n->value + rfgen_below(s, 3) - 1;
		} else {
			x[f] = rfgen_below(s, RFGEN_SPAN);
		}
	}
}

#endif
