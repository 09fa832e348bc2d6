// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Credence's drop predictor trained in C: a random forest of CART trees
 * (Gini impurity, bootstrap samples, optional feature subsampling) on
 * per-arrival feature vectors, and the scores of a model against labels.
 * Choices and their reasons: docs/credence.md, "Training".  The command
 * that feeds it from the simulator is credtrain.c.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "credence/forest.h"
#include "rand.h"

void dc_rf_train_defaults(struct dc_rf_train_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->trees = 4;
	c->depth = 4;
	c->min_leaf = 16;
	c->max_features = DC_RF_FEATURES;
	c->ewma_period_ns = 50000;
	c->seed = 1;
}

/* Per-node accumulators of one level while the sorted samples stream by. */
struct tr_node {
	double w, p;		/* bootstrap weight of the node, of its drops */
	double wl, pl;		/* left side so far (values ≤ last) */
	__u32 last;		/* last value seen of the current feature */
	bool seen;
	/* best split so far */
	double best;		/* weighted Gini of the children (lower is better) */
	int feat;		/* -1: no split found */
	__u32 thr;
	__u8 tried;		/* feature mask tried at this node */
	__u32 out;		/* index in the model's tree */
};

/* Σ over children of w·Gini = 2·p·(w − p)/w per child; the factor 2 is
 * common to all candidates and dropped. */
static double gini_w(double w, double p)
{
	return w > 0 ? p * (w - p) / w : 0;
}

static int cmp_u32_idx(const void *a, const void *b, void *arg)
{
	const __u32 *v = arg;
	__u32 x = v[*(const __u32 *)a], y = v[*(const __u32 *)b];

	if (x != y)
		return x < y ? -1 : 1;
	/* equal values: by index, so the order (and the model) is deterministic */
	return *(const __u32 *)a < *(const __u32 *)b ? -1 : 1;
}

static __u32 q16_prob(double p, double w)
{
	double v = w > 0 ? p / w * (double)DC_Q16_ONE : 0;

	return v >= (double)DC_Q16_ONE ? (__u32)DC_Q16_ONE : (__u32)(v + 0.5);
}

int dc_rf_train(const struct dc_rf_train_cfg *c, const __u32 (*x)[DC_RF_FEATURES], const __u8 *y,
		size_t n, struct dc_rf_model *m, char *why, size_t whylen)
{
	__u32 *order[DC_RF_FEATURES] = { NULL }, *col = NULL, *wt = NULL, *nid = NULL;
	struct tr_node *lvl = NULL, *next = NULL;
	struct dc_rf_model *mm = NULL;
	__u64 rng = c->seed ^ 0x6a09e667f3bcc909ULL;
	size_t i;
	__u32 t, f, d;
	int rc = -1, et, en;

	if (!c->trees || c->trees > DC_RF_TREES_MAX || !c->depth || c->depth > DC_RF_DEPTH_MAX ||
	    !c->min_leaf || !c->max_features || c->max_features > DC_RF_FEATURES ||
	    !c->ewma_period_ns) {
		snprintf(why, whylen, "trees 1…%d, depth 1…%d, min leaf ≥ 1, features per split 1…%d, EWMA period > 0",
			 DC_RF_TREES_MAX, DC_RF_DEPTH_MAX, DC_RF_FEATURES);
		return -1;
	}
	if (!n || n > 0xffffffffULL) {
		snprintf(why, whylen, "%zu samples: need 1 … 2^32 − 1", n);
		return -1;
	}
	if (!rng)
		rng = 1;
	mm = calloc(1, sizeof(*mm));
	col = malloc(n * sizeof(*col));
	wt = malloc(n * sizeof(*wt));
	nid = malloc(n * sizeof(*nid));
	lvl = calloc(DC_RF_NODES_MAX, sizeof(*lvl));
	next = calloc(DC_RF_NODES_MAX, sizeof(*next));
	if (!mm || !col || !wt || !nid || !lvl || !next)
		goto oom;
	/* Each feature's sample order, once: a level's best splits for all of
	 * its nodes come from one pass over it (no per-node sorting). */
	for (f = 0; f < DC_RF_FEATURES; f++) {
		order[f] = malloc(n * sizeof(__u32));
		if (!order[f])
			goto oom;
		for (i = 0; i < n; i++) {
			order[f][i] = (__u32)i;
			col[i] = x[i][f];
		}
		qsort_r(order[f], n, sizeof(__u32), cmp_u32_idx, col);
	}

	mm->version = DC_RF_VERSION;
	mm->n_trees = c->trees;
	mm->depth = c->depth;
	mm->ewma_period_ns = c->ewma_period_ns;
	for (t = 0; t < c->trees; t++) {
		struct dc_rf_node *tree = mm->node[t];
		__u32 nl = 1, nn = 1;	/* nodes on this level, in the tree */

		/* bootstrap: n draws with replacement, as multiplicities */
		memset(wt, 0, n * sizeof(*wt));
		for (i = 0; i < n; i++)
			wt[dc_rand_below(&rng, n)]++;
		memset(nid, 0, n * sizeof(*nid));
		memset(lvl, 0, sizeof(*lvl));
		for (i = 0; i < n; i++) {
			lvl[0].w += wt[i];
			lvl[0].p += (double)wt[i] * (y[i] ? 1 : 0);
		}
		lvl[0].out = 0;
		for (d = 0; d <= c->depth && nl; d++) {
			__u32 k, nnext = 0;

			for (k = 0; k < nl; k++) {
				struct tr_node *nd = &lvl[k];
				__u32 pick = 0;

				nd->feat = -1;
				nd->best = gini_w(nd->w, nd->p);
				nd->tried = 0;
				/* feature subsampling: max_features distinct features */
				while (pick < c->max_features) {
					__u32 g = c->max_features == DC_RF_FEATURES ? pick :
						  (__u32)dc_rand_below(&rng, DC_RF_FEATURES);

					if (!(nd->tried & (1U << g))) {
						nd->tried |= (__u8)(1U << g);
						pick++;
					}
				}
			}
			/* a level at the depth limit, or pure nodes, become leaves */
			for (f = 0; f < DC_RF_FEATURES && d < c->depth; f++) {
				for (k = 0; k < nl; k++) {
					lvl[k].wl = lvl[k].pl = 0;
					lvl[k].seen = false;
				}
				for (i = 0; i < n; i++) {
					__u32 s = order[f][i];
					struct tr_node *nd;
					__u32 v;

					if (!wt[s] || nid[s] == UINT32_MAX)
						continue;
					nd = &lvl[nid[s]];
					if (!(nd->tried & (1U << f)))
						continue;
					v = x[s][f];
					/* a boundary between two values: try x ≤ last */
					if (nd->seen && v != nd->last && nd->wl >= c->min_leaf &&
					    nd->w - nd->wl >= c->min_leaf) {
						double g = gini_w(nd->wl, nd->pl) +
							   gini_w(nd->w - nd->wl, nd->p - nd->pl);

						/* strictly better by a margin above rounding */
						if (g < nd->best - 1e-9 * nd->w) {
							nd->best = g;
							nd->feat = (int)f;
							nd->thr = nd->last;
						}
					}
					nd->wl += wt[s];
					nd->pl += (double)wt[s] * (y[s] ? 1 : 0);
					nd->last = v;
					nd->seen = true;
				}
			}
			/* emit this level; children get the next indices (BFS) */
			for (k = 0; k < nl; k++) {
				struct tr_node *nd = &lvl[k];
				struct dc_rf_node *o = &tree[nd->out];

				if (nd->feat < 0 || nn + 2 > DC_RF_NODES_MAX) {
					o->flags = DC_RF_NODE_LEAF;
					o->value = q16_prob(nd->p, nd->w);
					nd->feat = -1;
					continue;
				}
				o->flags = 0;
				o->feature = (__u8)nd->feat;
				o->value = nd->thr;
				o->left = (__u8)nn;
				o->right = (__u8)(nn + 1);
				memset(&next[nnext], 0, 2 * sizeof(*next));
				next[nnext].out = nn;
				next[nnext + 1].out = nn + 1;
				nd->out = nnext;	/* from here on: index of its left child in next */
				nnext += 2;
				nn += 2;
			}
			/* route the samples to the children, summing their weights */
			for (i = 0; i < n; i++) {
				struct tr_node *nd;
				__u32 ch;

				if (!wt[i] || nid[i] == UINT32_MAX)
					continue;
				nd = &lvl[nid[i]];
				if (nd->feat < 0) {
					nid[i] = UINT32_MAX;	/* settled in a leaf */
					continue;
				}
				ch = nd->out + (x[i][nd->feat] <= nd->thr ? 0 : 1);
				nid[i] = ch;
				next[ch].w += wt[i];
				next[ch].p += (double)wt[i] * (y[i] ? 1 : 0);
			}
			memcpy(lvl, next, nnext * sizeof(*lvl));
			nl = nnext;
		}
		mm->n_nodes[t] = nn;
	}
	if (dc_rf_validate(mm, &et, &en)) {
		snprintf(why, whylen, "internal error: trained tree %d node %d invalid", et, en);
		goto out;
	}
	memcpy(m, mm, sizeof(*mm));
	rc = 0;
	goto out;
oom:
	snprintf(why, whylen, "out of memory for %zu samples", n);
out:
	for (f = 0; f < DC_RF_FEATURES; f++)
		free(order[f]);
	free(col);
	free(wt);
	free(nid);
	free(lvl);
	free(next);
	free(mm);
	return rc;
}

void dc_rf_scores(struct dc_rf_score_sheet *s, __u32 nports)
{
	double tp = (double)s->tp, fp = (double)s->fp, tn = (double)s->tn, fn = (double)s->fn;
	double all = tp + fp + tn + fn, nm1 = nports > 1 ? nports - 1 : 0;

	s->accuracy = all > 0 ? (tp + tn) / all : 0;
	s->precision = tp + fp > 0 ? tp / (tp + fp) : 0;
	s->recall = tp + fn > 0 ? tp / (tp + fn) : 0;
	s->f1 = 2 * tp + fp + fn > 0 ? 2 * tp / (2 * tp + fp + fn) : 0;
	/* Lemma 3: η ≤ (TN + FP) / (TN − min((N−1)·FN, TN)); the score is 1/η */
	s->error_score = tn + fp > 0 ? (tn - fmin(nm1 * fn, tn)) / (tn + fp) : 0;
}

void dc_rf_evaluate(const struct dc_rf_model *m, const __u32 (*x)[DC_RF_FEATURES], const __u8 *y,
		    size_t n, __u32 nports, struct dc_rf_score_sheet *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < n; i++) {
		bool p = dc_rf_predict_drop(m, x[i]);

		if (p)
			y[i] ? s->tp++ : s->fp++;
		else
			y[i] ? s->fn++ : s->tn++;
	}
	dc_rf_scores(s, nports);
}
