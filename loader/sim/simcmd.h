/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `dcbpf sim`, a leaf command: its options, its entry for the top-level
 * command table (DC_SIM_CMD), and the outputs it writes (simout.c).
 */
#ifndef DCBPF_SIM_SIMCMD_H
#define DCBPF_SIM_SIMCMD_H

#include <stdio.h>

#include "cmd.h"
#include "json.h"
#include "sim/simopts.h"
#include "sim/simpfc.h"

struct dc_sim_args {
	struct dc_sim_opts sim;		/* the shared 13 */
	int alg;			/* enum dc_alg, or DC_ALG_MAX for all */
	__u32 alpha_q16, alpha_first_rtt_q16;
	__u32 abm_period;
	__u32 first_rtt_pkts;
	__u64 seed;
	int predictor;			/* enum dc_sim_pred */
	const char *model;
	double flip;
	__u64 pred_seed;
	const char *write_trace;
	int write_format;		/* 0 csv, 1 binary */
	const char *out;
	bool no_drain;
	/* SmartBuf and EDT */
	int sb_trigger;			/* enum dc_sb_trigger */
	__u32 sb_k, sb_beta_q16, sb_sigma_q16, sb_onset_q16, sb_age_us;
	__u32 edt_rise, edt_max_us;
	struct dc_simpfc_opts pfc;	/* --alg reverie|sonic (simpfc.h) */
	__u32 queues;			/* strict-priority queues per port */
	const char *alpha_prio;		/* α per priority, "A0,A1,…" */
};

extern const struct dc_opt dc_sim_cmd_opts[];
extern const char dc_sim_cmd_doc[];
int dc_sim_cmd(struct dc_ctx *ctx, int argc, char **argv);

/* The line of the top-level table. */
#define DC_SIM_CMD									\
	{ "sim", dc_sim_cmd, dc_sim_cmd_opts, sizeof(struct dc_sim_args),		\
	  .summary = "buffer-sharing simulator", .doc = dc_sim_cmd_doc }

/* simout.c */
void dc_sim_print_table(FILE *f, const struct dc_sim_cfg *cfgs, const struct dc_sim_result *rs,
			unsigned int nr, size_t narr, const char *source);
void dc_sim_print_json(struct jw *j, const struct dc_sim_cfg *cfgs, const struct dc_sim_result *rs,
		       unsigned int nr);
/* DIR/summary.csv and DIR/ports.csv.  0, or EXIT_ERR with err. */
int dc_sim_write_csv(const char *dir, const struct dc_sim_cfg *cfgs, const struct dc_sim_result *rs,
		     unsigned int nr, struct dc_err *err);
/* A number formatted with fmt (one double), as a JSON value. */
void dc_sim_jw_num(struct jw *j, const char *key, const char *fmt, double v);

#endif
