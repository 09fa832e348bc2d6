/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Credence's random forest in user space: the model file (read, validate,
 * write) and the CART trainer behind `dcbpf credence train`.  The model
 * layout and its evaluator are include/dcbpf/forest.h, shared with XDP.
 */
#ifndef DCBPF_CREDENCE_FOREST_H
#define DCBPF_CREDENCE_FOREST_H

#include <stddef.h>
#include <stdio.h>
#include <dcbpf/forest.h>

/* Parse a model file held in memory; the whole model is validated
 * (dc_rf_validate) before it is returned.  0 on success; otherwise -1 and
 * `why` names the line and the reason.  *m is only written on success. */
int dc_forest_parse(const char *buf, size_t len, struct dc_rf_model *m, char *why, size_t whylen);

/* Read and parse a model file (size-limited). Same contract. */
int dc_forest_read(const char *path, struct dc_rf_model *m, char *why, size_t whylen);

/* The text of a model, exactly what dc_forest_write puts in the file.
 * 0 or -EIO. */
int dc_forest_format(FILE *f, const struct dc_rf_model *m);

/* Write a valid model atomically (temporary file + rename).  0 or -errno. */
int dc_forest_write(const char *path, const struct dc_rf_model *m);

/* Name of a feature in the model file ("qlen", "occ", "qlen_ewma", "occ_ewma"). */
const char *dc_rf_feature_name(unsigned int f);

/* The trees of a valid model, indented, for people (`dcbpf credence show`). */
void dc_forest_show(FILE *f, const struct dc_rf_model *m);

/*
 * CART trainer (rftrain.c): each tree is grown on a bootstrap
 * sample (n draws with replacement) level by level, splitting a node on
 * the feature and integer threshold that minimise the weighted Gini
 * impurity of its children; a split needs min_leaf samples (bootstrap
 * weight) on each side.  Nodes are numbered breadth-first, so children
 * follow parents as the model layout requires.  Deterministic for a seed
 * (its own xorshift64* stream of lib/rand.h, no rand()).
 */
struct dc_rf_train_cfg {
	__u32 trees;		/* 1 … DC_RF_TREES_MAX */
	__u32 depth;		/* 1 … DC_RF_DEPTH_MAX */
	__u32 min_leaf;		/* samples each child of a split keeps, ≥ 1 */
	__u32 max_features;	/* features tried per split, 1 … DC_RF_FEATURES */
	__u32 ewma_period_ns;	/* copied into the model */
	__u64 seed;
};

void dc_rf_train_defaults(struct dc_rf_train_cfg *c);
/* x: n feature vectors, y: n labels (1 = LQD drops the packet).
 * 0, or -1 with the reason in why. */
int dc_rf_train(const struct dc_rf_train_cfg *c, const __u32 (*x)[DC_RF_FEATURES], const __u8 *y,
		size_t n, struct dc_rf_model *m, char *why, size_t whylen);

/* Confusion matrix of a model's predictions against labels, and the
 * scores the paper reports (positive = "drop"). */
struct dc_rf_score_sheet {
	__u64 tp, fp, tn, fn;
	double accuracy, precision, recall, f1;
	double error_score;	/* 1/η bound of Lemma 3: (TN − min((N−1)·FN, TN)) / (TN + FP) */
};

void dc_rf_evaluate(const struct dc_rf_model *m, const __u32 (*x)[DC_RF_FEATURES], const __u8 *y,
		    size_t n, __u32 nports, struct dc_rf_score_sheet *s);
void dc_rf_scores(struct dc_rf_score_sheet *s, __u32 nports);

#endif
