/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `dcbpf credence train|check|show|load|status` (docs/credence.md): the
 * subcommand table for the top-level entry DC_CRED_CMD.
 */
#ifndef DCBPF_CREDENCE_CREDENCE_H
#define DCBPF_CREDENCE_CREDENCE_H

#include "cmd.h"
#include "sim/simopts.h"

extern const struct dc_cmd dc_cred_cmds[];

#define DC_CRED_CMD									\
	{ "credence", .sub = dc_cred_cmds,						\
	  .summary = "Credence's drop-predictor models (docs/credence.md)",		\
	  .doc = dc_cred_doc }

extern const char dc_cred_doc[];

/* `credence train` (credtrain.c) */
struct dc_cred_train_args {
	struct dc_sim_opts sim;		/* the simulator's shared 13 */
	const char *out;
	__u64 seed, workload_seed;
	__u32 trees, depth, min_leaf, max_features, ewma_period_ns;
	double holdout;
	int state_lqd;			/* --state lqd (1) or credence (0) */
	int all_samples;		/* --samples all (1) or consulted (0) */
	__u32 rounds;
};

extern const struct dc_opt dc_cred_train_opts[];
extern const char dc_cred_train_doc[];
int dc_cred_train_cmd(struct dc_ctx *ctx, int argc, char **argv);

#endif
