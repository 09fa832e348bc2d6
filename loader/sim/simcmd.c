// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf sim`: the command line of the buffer-sharing simulator (engine
 * in simengine.c, usage and CSV formats in docs/admission.md).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "credence/forest.h"
#include "sim/simcmd.h"

static const struct dc_opt_name alg_names[] = {
	{ "cs", DC_ALG_CS }, { "dt", DC_ALG_DT }, { "abm", DC_ALG_ABM }, { "lqd", DC_ALG_LQD },
	{ "credence", DC_ALG_CREDENCE }, { "followlqd", DC_ALG_FOLLOWLQD },
	{ "smartbuf", DC_ALG_SMARTBUF }, { "edt", DC_ALG_EDT },
	{ "all", DC_ALG_MAX }, { "reverie", DC_SIMPFC_REVERIE }, { "sonic", DC_SIMPFC_SONIC },
	{ NULL },
};

static const struct dc_opt_name trigger_names[] = {
	{ "onset", DC_SB_ONSET }, { "literal", DC_SB_LITERAL }, { NULL },
};

static const struct dc_opt_name format_names[] = {
	{ "csv", 0 }, { "binary", 1 }, { NULL },
};

static const struct dc_opt_name pred_names[] = {
	{ "oracle", DC_SIM_PRED_ORACLE }, { "drop", DC_SIM_PRED_DROP },
	{ "accept", DC_SIM_PRED_ACCEPT }, { "forest", DC_SIM_PRED_FOREST }, { NULL },
};

#define A struct dc_sim_args
const struct dc_opt dc_sim_cmd_opts[] = {
	{ "alg", 0, DC_OPT_ENUM, DC_FIELD(A, alg), NULL, .help = "admission algorithm, or all of them",
	  .def = "dt", .names = alg_names },
	DC_SIM_WORKLOAD_OPTS(A, sim),
	{ "alpha", 0, DC_OPT_Q16, DC_FIELD(A, alpha_q16), "A", .help = "DT/ABM alpha of every priority",
	  .def = "0.5", .dmin = 0, .dmax = 1024, .flags = DC_OPT_F_MIN_EXCL },
	{ "alpha-prio", 0, DC_OPT_STR, DC_FIELD(A, alpha_prio), "A0[,A1...]",
	  .help = "DT/ABM alpha of priority 0, 1, ... (the last repeats); overrides --alpha" },
	{ "queues", 0, DC_OPT_U64, DC_FIELD(A, queues), "N",
	  .help = "strict-priority queues per port (priority p in queue min(p, N-1))", .def = "1",
	  .umin = 1, .umax = DC_SW_QUEUES_MAX },
	{ "alpha-first-rtt", 0, DC_OPT_Q16, DC_FIELD(A, alpha_first_rtt_q16), "A",
	  .help = "ABM alpha of first-RTT packets", .def = "64", .dmin = 0, .dmax = 1024,
	  .flags = DC_OPT_F_MIN_EXCL },
	DC_SIMPFC_OPTS(A, pfc),
	{ "abm-period", 0, DC_OPT_U64, DC_FIELD(A, abm_period), "SLOTS",
	  .help = "ABM: slots between updates of n_p and gamma", .def = "1", .umin = 1,
	  .umax = 1000000 },
	{ "first-rtt-pkts", 0, DC_OPT_U64, DC_FIELD(A, first_rtt_pkts), "N",
	  .help = "first packets of a generated flow marked first-RTT", .def = "16", .umax = 1000000 },
	{ "seed", 0, DC_OPT_U64, DC_FIELD(A, seed), "S", .help = "seed of the generated workload",
	  .def = "1" },
	{ "predictor", 0, DC_OPT_ENUM, DC_FIELD(A, predictor), NULL,
	  .help = "what Credence's predictions come from", .def = "oracle", .names = pred_names },
	{ "model", 0, DC_OPT_PATH, DC_FIELD(A, model), "FILE",
	  .help = "the forest of --predictor forest (dcbpf credence train)" },
	{ "flip", 0, DC_OPT_DOUBLE, DC_FIELD(A, flip), "P",
	  .help = "invert each prediction with probability P", .def = "0", .dmin = 0, .dmax = 1 },
	{ "pred-seed", 0, DC_OPT_U64, DC_FIELD(A, pred_seed), "S", .help = "seed of --flip",
	  .def = "1" },
	{ "sb-trigger", 0, DC_OPT_ENUM, DC_FIELD(A, sb_trigger), NULL,
	  .help = "SmartBuf: when the learned threshold is set (onset: while a burst rises; "
		  "literal: at a burst's end, as Algorithm 2 is printed)",
	  .def = "onset", .names = trigger_names },
	{ "sb-k", 0, DC_OPT_U64, DC_FIELD(A, sb_k), "K", .help = "SmartBuf: nearest neighbours",
	  .def = "3", .umin = 1, .umax = DC_SB_K_MAX },
	{ "sb-beta", 0, DC_OPT_Q16, DC_FIELD(A, sb_beta_q16), "B",
	  .help = "SmartBuf: a burst ends when q < beta x its maximum", .def = "0.5", .dmin = 0,
	  .dmax = 1, .flags = DC_OPT_F_MIN_EXCL },
	{ "sb-sigma", 0, DC_OPT_Q16, DC_FIELD(A, sb_sigma_q16), "S",
	  .help = "SmartBuf: a burst is learned when its maximum exceeds B / sigma", .def = "5",
	  .dmin = 1, .dmax = 1000, .flags = DC_OPT_F_MIN_EXCL },
	{ "sb-onset", 0, DC_OPT_Q16, DC_FIELD(A, sb_onset_q16), "F",
	  .help = "SmartBuf onset trigger: the queue holds at least F x B", .def = "0.02",
	  .dmin = 0, .dmax = 1, .flags = DC_OPT_F_MIN_EXCL },
	{ "sb-age-us", 0, DC_OPT_U64, DC_FIELD(A, sb_age_us), "US",
	  .help = "SmartBuf: learned entries not refreshed for US are forgotten",
	  .def = "1000000", .umin = 1, .umax = 0xfffffffeULL },
	{ "edt-rise", 0, DC_OPT_U64, DC_FIELD(A, edt_rise), "N",
	  .help = "EDT: consecutive rising (falling) queue samples that start (end) a burst",
	  .def = "3", .umin = 1, .umax = 1000000 },
	{ "edt-max-us", 0, DC_OPT_U64, DC_FIELD(A, edt_max_us), "US",
	  .help = "EDT: longest uncontrolled state", .def = "1000", .umin = 1, .umax = 100000000 },
	{ "no-drain", 0, DC_OPT_FLAG, DC_FIELD(A, no_drain),
	  .help = "with --trace: stop after the last arrival's slot" },
	{ "write-trace", 0, DC_OPT_PATH, DC_FIELD(A, write_trace), "FILE",
	  .help = "write the arrivals as a trace" },
	{ "write-format", 0, DC_OPT_ENUM, DC_FIELD(A, write_format), NULL,
	  .help = "form of --write-trace (binary: replayed without parsing)", .def = "csv",
	  .names = format_names },
	{ "out", 0, DC_OPT_DIR, DC_FIELD(A, out), "DIR",
	  .help = "write DIR/summary.csv and DIR/ports.csv" },
	{ NULL },
};
#undef A

const char dc_sim_cmd_doc[] =
	"Discrete timeslots, one queue per port. Unit mode: B in packets, one packet\n"
	"leaves each non-empty queue per slot. Byte mode: B in bytes, a port sends\n"
	"--slot-bytes per slot. DT and ABM admit while q < T (q before the packet).\n"
	"--trace replays a CSV whose header names its columns, in any order:\n"
	"timeslot or time_ns (slot = time_ns / --slot-ns), port, priority, bytes,\n"
	"optional first_rtt. Rows of one slot arrive in file order. --trace also reads\n"
	"the binary form --write-format binary writes (the same records, mapped, not\n"
	"parsed: a CSV trace converts with --trace IN --write-trace OUT). A trace run lasts\n"
	"until the last arrival, then keeps sending until the buffer is empty\n"
	"(--no-drain: stop after the last arrival's slot); the workload options\n"
	"(--workload --seed --slots --load --incast-* --first-rtt-pkts --mtu) are refused.\n"
	"Incast responses have priority 1. Credence's predictor: oracle = LQD's fate of\n"
	"the packet on the same arrivals; forest = the random forest of --model FILE\n"
	"(dcbpf credence train) on the arriving packet's q, Q and their EWMAs in bytes\n"
	"(unit mode: packets x --slot-bytes; EWMA time = slots x --slot-ns).\n"
	"SmartBuf and EDT sample the queue at each arrival (q before it, time = slot x\n"
	"--slot-ns; gradients in bytes, or packets in unit mode, per microsecond).\n"
	"--flip P inverts each prediction with probability P (seeded by --pred-seed).\n"
	"--out DIR writes DIR/summary.csv and DIR/ports.csv (per port: drop_thresh +\n"
	"drop_full + drop_pred add up to the summary's drops).\n"
	"--alg reverie|sonic: lossy web-search and lossless incast traffic with PFC,\n"
	"bytes, senders behind --link-delay (a model of its own: docs/admission.md,\n"
	"\"Reverie and the SONiC baseline\").";

/* Options of the generated workload that are sim's own (the shared ones
 * are simopts.c's). */
static const char *const wl_own[] = { "seed", "first-rtt-pkts", NULL };

/* The settings of one run from the options; 0 or the exit code. */
/* --alpha-prio "A0,A1,…": α of priorities 0, 1, …, each in (0, 1024];
 * priorities after the last value take the last value. */
static int sim_alpha_list(const char *list, __u32 *alpha_q16, struct dc_err *err)
{
	const char *p = list;
	unsigned int i = 0;
	double v;
	char *end;

	while (*p) {
		if (i == DC_SW_PRIOS)
			return dc_err_set(err, EXIT_USAGE, "--alpha-prio %s: at most %d values", list,
					  DC_SW_PRIOS);
		v = strtod(p, &end);
		if (end == p || (*end && *end != ',') || !(v > 0) || v > 1024)
			return dc_err_set(err, EXIT_USAGE,
					  "--alpha-prio %s: value %u is not a number in (0, 1024]", list,
					  i);
		alpha_q16[i++] = (__u32)(v * DC_Q16_ONE + 0.5);
		p = *end ? end + 1 : end;
		if (*end && !*p)
			return dc_err_set(err, EXIT_USAGE, "--alpha-prio %s: ends with a comma", list);
	}
	if (!i)
		return dc_err_set(err, EXIT_USAGE, "--alpha-prio: at least one value");
	for (; i < DC_SW_PRIOS; i++)
		alpha_q16[i] = alpha_q16[i - 1];
	return 0;
}

static int sim_setup(struct dc_ctx *ctx, int argc, char **argv, struct dc_sim_cfg *cfg,
		     struct dc_sim_workload *wl)
{
	const struct dc_sim_args *o = ctx->opts;
	bool given[DC_OPTS_MAX];
	unsigned int i;
	int rc;

	rc = dc_sim_given(ctx, argc, argv, given);
	if (rc)
		return rc;
	if (dc_simpfc_refuse(dc_sim_cmd_opts, given, &ctx->err))
		return EXIT_USAGE;
	if (o->sim.trace &&
	    dc_sim_trace_refuse(dc_sim_cmd_opts, given, wl_own,
				"it shapes the generated workload; a trace run lasts until its last arrival, then drains the buffer (--no-drain: stop after the last arrival's slot)",
				&ctx->err))
		return EXIT_USAGE;
	if (!o->sim.trace && o->no_drain)
		return dc_fail(ctx, EXIT_USAGE,
			       "--no-drain goes with --trace (a generated workload runs exactly --slots slots)");
	if ((o->predictor == DC_SIM_PRED_FOREST) != !!o->model)
		return dc_fail(ctx, EXIT_USAGE, "--predictor forest and --model FILE go together");
	dc_sim_cfg_defaults(cfg);
	dc_sim_workload_defaults(wl);
	dc_sim_opts_apply(&o->sim, cfg, wl);
	cfg->alg = o->alg == DC_ALG_MAX ? DC_ALG_DT : (__u32)o->alg;
	for (i = 0; i < DC_SW_PRIOS; i++)
		cfg->alpha_q16[i] = o->alpha_q16;
	if (o->alpha_prio && sim_alpha_list(o->alpha_prio, cfg->alpha_q16, &ctx->err))
		return EXIT_USAGE;
	cfg->nqueues = o->queues;
	if ((__u64)cfg->nports * (o->queues ? o->queues : 1) > DC_SIM_PORTS_MAX)
		return dc_fail(ctx, EXIT_USAGE, "--ports %u x --queues %u: at most %d queues in all",
			       cfg->nports, o->queues, DC_SIM_PORTS_MAX);
	cfg->alpha_first_rtt_q16 = o->alpha_first_rtt_q16;
	cfg->abm_period_slots = o->abm_period;
	cfg->predictor = (__u32)o->predictor;
	cfg->flip_q32 = (__u64)(o->flip * 4294967296.0 + 0.5);
	cfg->pred_seed = o->pred_seed;
	cfg->drain = o->sim.trace && !o->no_drain;
	cfg->sb.trigger = (__u32)o->sb_trigger;
	cfg->sb.k = o->sb_k;
	cfg->sb.beta_q16 = o->sb_beta_q16;
	cfg->sb.sigma_q16 = o->sb_sigma_q16;
	cfg->sb.onset_q16 = o->sb_onset_q16;
	cfg->sb.age_us = o->sb_age_us;
	cfg->edt.rise = o->edt_rise;
	cfg->edt.max_us = o->edt_max_us;
	wl->seed = o->seed;
	wl->first_rtt_pkts = o->first_rtt_pkts;
	return 0;
}

int dc_sim_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct dc_sim_args *o = ctx->opts;
	struct dc_sim_cfg cfg, cfgs[DC_ALG_MAX];
	struct dc_sim_workload wl;
	struct dc_sim_result *res = NULL;
	struct dc_sim_trace tr = { 0 };
	struct dc_rf_model *model = NULL;
	__u32 *query = NULL;
	__u8 *fate = NULL;
	unsigned int nr = 0, k;
	int rc;

	if (dc_simpfc_alg(o->alg)) {
		bool given[DC_OPTS_MAX];

		rc = dc_sim_given(ctx, argc, argv, given);
		return rc ? rc : dc_simpfc_cmd(ctx, argc, argv, given);
	}
	rc = sim_setup(ctx, argc, argv, &cfg, &wl);
	if (rc)
		return rc;
	if (o->model) {
		char why[DC_ERR_MSG_LEN];

		model = malloc(sizeof(*model));
		if (!model)
			return dc_fail(ctx, EXIT_ERR, "out of memory");
		if (dc_forest_read(o->model, model, why, sizeof(why))) {
			free(model);
			return dc_fail(ctx, EXIT_ERR, "%s", why);
		}
		cfg.model = model;
	}
	if (!o->write_trace && o->write_format)
		return dc_fail(ctx, EXIT_USAGE, "--write-format goes with --write-trace FILE");
	/* A generated workload knows each packet's incast query: the runs
	 * then keep fates and count the queries that lost nothing. */
	rc = o->sim.trace ? dc_sim_trace_load(o->sim.trace, cfg.slot_ns, &tr, &ctx->err) :
			    dc_sim_generate_q(&cfg, &wl, &tr.a, &tr.n, &query, &ctx->err);
	if (rc)
		goto out;
	if (o->write_trace) {
		rc = o->write_format ? dc_sim_write_trace_bin(o->write_trace, tr.a, tr.n, &ctx->err) :
				       dc_sim_write_trace(o->write_trace, tr.a, tr.n, &ctx->err);
		if (rc)
			goto out;
	}
	res = calloc(DC_ALG_MAX, sizeof(*res));
	if (query)
		fate = malloc(tr.n ? tr.n : 1);
	if (!res || (query && !fate)) {
		rc = dc_fail(ctx, EXIT_ERR, "out of memory");
		goto out;
	}
	for (k = 0; k < DC_ALG_MAX; k++) {
		if (o->alg != DC_ALG_MAX && k != cfg.alg)
			continue;
		cfgs[nr] = cfg;
		cfgs[nr].alg = k;
		rc = dc_sim_run_ex(&cfgs[nr], tr.a, tr.n, o->sim.trace ? 0 : wl.slots, &res[nr], NULL,
				   fate, &ctx->err);
		if (!rc && fate)
			rc = dc_sim_query_stats(query, fate, tr.n, &res[nr], &ctx->err);
		if (rc)
			goto out;
		nr++;
	}
	if (ctx->json)
		dc_sim_print_json(&ctx->jw, cfgs, res, nr);
	else
		dc_sim_print_table(ctx->out, cfgs, res, nr, tr.n, o->sim.trace ? o->sim.trace : wl.kind);
	if (o->out)
		rc = dc_sim_write_csv(o->out, cfgs, res, nr, &ctx->err);
out:
	free(model);
	free(res);
	free(query);
	free(fate);
	dc_sim_trace_release(&tr);
	return rc;
}
