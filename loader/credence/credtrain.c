// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf credence train`: features and labels from the simulator (LQD's
 * fate of each arrival on the same trace), the forest of rftrain.c on
 * them, its scores on held-out arrivals, and the model file.  Choices and
 * their reasons: docs/credence.md, "Training".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "credence/credence.h"
#include "credence/forest.h"
#include "sim/simcmd.h"

static const struct dc_opt_name state_names[] = { { "lqd", 1 }, { "credence", 0 }, { NULL } };
static const struct dc_opt_name sample_names[] = { { "all", 1 }, { "consulted", 0 }, { NULL } };

#define A struct dc_cred_train_args
const struct dc_opt dc_cred_train_opts[] = {
	{ "out", 0, DC_OPT_PATH, DC_FIELD(A, out), "MODEL", .help = "where to write the model",
	  .required = true },
	DC_SIM_WORKLOAD_OPTS(A, sim),
	{ "seed", 0, DC_OPT_U64, DC_FIELD(A, seed), "S",
	  .help = "seed of the bootstraps and, unless --workload-seed, of the workload", .def = "1" },
	{ "workload-seed", 0, DC_OPT_U64, DC_FIELD(A, workload_seed), "S",
	  .help = "seed of the generated workload" },
	{ "trees", 0, DC_OPT_U64, DC_FIELD(A, trees), "N", .help = "trees of the forest", .def = "4",
	  .umin = 1, .umax = DC_RF_TREES_MAX },
	{ "depth", 0, DC_OPT_U64, DC_FIELD(A, depth), "D", .help = "depth of each tree", .def = "4",
	  .umin = 1, .umax = DC_RF_DEPTH_MAX },
	{ "min-leaf", 0, DC_OPT_U64, DC_FIELD(A, min_leaf), "N",
	  .help = "samples each side of a split keeps", .def = "16", .umin = 1, .umax = 100000000 },
	{ "max-features", 0, DC_OPT_U64, DC_FIELD(A, max_features), "K",
	  .help = "features tried per split", .def = "4", .umin = 1, .umax = DC_RF_FEATURES },
	{ "ewma-period-ns", 0, DC_OPT_U64, DC_FIELD(A, ewma_period_ns), "NS",
	  .help = "EWMA period of the q and Q features (one base RTT)", .def = "50000", .umin = 1,
	  .umax = 0xffffffffULL },
	{ "holdout", 0, DC_OPT_DOUBLE, DC_FIELD(A, holdout), "F",
	  .help = "fraction of the trace, at its end, held out and scored", .def = "0.3",
	  .dmin = 0, .dmax = 1, .flags = DC_OPT_F_MAX_EXCL },
	{ "state", 0, DC_OPT_ENUM, DC_FIELD(A, state_lqd), NULL,
	  .help = "the switch whose state gives the features", .def = "lqd", .names = state_names },
	{ "samples", 0, DC_OPT_ENUM, DC_FIELD(A, all_samples), NULL,
	  .help = "every arrival, or those Credence consults its predictor about", .def = "all",
	  .names = sample_names },
	{ "rounds", 0, DC_OPT_U64, DC_FIELD(A, rounds), "R",
	  .help = "training rounds (later ones on the states the forest leads to)", .def = "1",
	  .umin = 1, .umax = 8 },
	{ NULL },
};
#undef A

const char dc_cred_train_doc[] =
	"Labels: 1 if LQD, serving the same arrivals, drops or pushes the packet out.\n"
	"Features: q_i, Q and their EWMAs over --ewma-period-ns, in bytes, as the switch\n"
	"of --state sees them on arrival: lqd (as the paper) the LQD switch itself;\n"
	"credence: Credence following LQD with perfect predictions. --samples consulted\n"
	"(with --state credence) keeps only the arrivals Credence asks its predictor\n"
	"about. --rounds R > 1 adds, R - 1 times, the states Credence driven by the\n"
	"previous forest visits. The arrivals of the last --holdout fraction of the\n"
	"trace are held out and scored. With --trace, the options of a generated\n"
	"workload are refused (--seed stays: it seeds the bootstraps).";

/* What one training run produced, for the report. */
struct train_run {
	struct dc_rf_score_sheet tr, ho;
	size_t narr, ns, ntrain, kcut, agree, ndrop;
};

/* Samples kept for training and held out: feature vectors and labels. */
struct samples {
	__u32 (*x)[DC_RF_FEATURES];
	__u8 *y;
	size_t n, cap;
};

static int samples_add(struct samples *s, const __u32 *x, __u8 y)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 65536;
		void *nx = realloc(s->x, cap * sizeof(*s->x)), *ny;

		if (!nx)
			return -1;
		s->x = nx;
		ny = realloc(s->y, cap);
		if (!ny)
			return -1;
		s->y = ny;
		s->cap = cap;
	}
	memcpy(s->x[s->n], x, sizeof(s->x[0]));
	s->y[s->n++] = y;
	return 0;
}

/*
 * The rounds: features of the state each round's switch is in, the
 * samples they add, a forest on all samples so far.  0, or the exit code
 * with err.
 */
static int train_rounds(const struct dc_cred_train_args *o, struct dc_rf_train_cfg *tc,
			struct dc_sim_cfg *sc, const struct dc_sim_arrival *arr, __u64 nslots,
			const __u8 *lab, struct dc_rf_model *m, struct samples *tr,
			struct samples *ho, struct train_run *run, struct dc_err *err)
{
	__u32 (*x)[DC_RF_FEATURES] = malloc(run->narr * sizeof(*x));
	__u8 *fate = malloc(run->narr), *asked = malloc(run->narr);
	char why[DC_ERR_MSG_LEN];
	size_t k;
	__u32 r;
	int rc = EXIT_ERR;

	if (!x || !fate || !asked) {
		dc_err_set(err, EXIT_ERR, "out of memory for %zu arrivals", run->narr);
		goto out;
	}
	for (r = 1; r <= o->rounds; r++) {
		/* round 1: the state of the switch chosen by --state; later
		 * rounds: Credence driven by the previous round's forest, so the
		 * forest also learns the states its own mistakes lead to */
		if (r > 1) {
			sc->alg = DC_ALG_CREDENCE;
			sc->predictor = DC_SIM_PRED_FOREST;
			sc->model = m;
		}
		rc = dc_sim_features(sc, arr, run->narr, nslots, x, fate, asked, err);
		if (rc)
			goto out;
		rc = EXIT_ERR;
		if (r == 1)
			for (k = 0; k < run->narr; k++)
				run->agree += fate[k] == lab[k];
		/* The samples: with --samples consulted only the arrivals
		 * Credence asks about (after its safeguard, threshold and buffer
		 * tests); elsewhere a prediction is never used, and the "drops"
		 * there are the ones the thresholds make anyway. */
		for (k = 0; k < run->narr; k++) {
			if (!o->all_samples && !asked[k])
				continue;
			if (k >= run->kcut ? r == 1 && samples_add(ho, x[k], lab[k]) :
					     samples_add(tr, x[k], lab[k])) {
				dc_err_set(err, EXIT_ERR, "out of memory for samples");
				goto out;
			}
		}
		if (tr->n < 2) {
			dc_err_set(err, EXIT_ERR,
				   "only %zu samples to train on (arrivals Credence asks about): use a more congested workload, more --slots or --samples all",
				   tr->n);
			goto out;
		}
		if (dc_rf_train(tc, (const __u32 (*)[DC_RF_FEATURES])tr->x, tr->y, tr->n, m, why,
				sizeof(why))) {
			dc_err_set(err, EXIT_ERR, "%s", why);
			goto out;
		}
	}
	rc = 0;
out:
	free(x);
	free(fate);
	free(asked);
	return rc;
}

static void report_json(struct jw *j, const struct dc_cred_train_args *o,
			const struct dc_rf_train_cfg *tc, const struct train_run *r)
{
	const struct dc_rf_score_sheet *ho = &r->ho, *tr = &r->tr;

	jw_obj(j, NULL);
	jw_str(j, "model", o->out);
	jw_u64(j, "arrivals", r->narr);
	jw_u64(j, "samples", r->ns);
	jw_u64(j, "train", r->ntrain);
	jw_u64(j, "holdout", r->ns - r->ntrain);
	dc_sim_jw_num(j, "lqd_drop_rate", "%.6f", (double)r->ndrop / (double)r->narr);
	dc_sim_jw_num(j, "sample_drop_rate", "%.6f",
		      (double)(tr->tp + tr->fn + ho->tp + ho->fn) / (double)r->ns);
	jw_str(j, "state", o->state_lqd ? "lqd" : "credence");
	jw_str(j, "sample_set", o->all_samples ? "all" : "consulted");
	dc_sim_jw_num(j, "state_fate_agrees", "%.6f", (double)r->agree / (double)r->narr);
	jw_u64(j, "rounds", o->rounds);
	jw_u64(j, "trees", tc->trees);
	jw_u64(j, "depth", tc->depth);
	jw_u64(j, "seed", tc->seed);
	jw_u64(j, "ewma_period_ns", tc->ewma_period_ns);
	jw_obj(j, "holdout_scores");
	jw_u64(j, "tp", ho->tp);
	jw_u64(j, "fp", ho->fp);
	jw_u64(j, "tn", ho->tn);
	jw_u64(j, "fn", ho->fn);
	dc_sim_jw_num(j, "accuracy", "%.6f", ho->accuracy);
	dc_sim_jw_num(j, "precision", "%.6f", ho->precision);
	dc_sim_jw_num(j, "recall", "%.6f", ho->recall);
	dc_sim_jw_num(j, "f1", "%.6f", ho->f1);
	dc_sim_jw_num(j, "error_score", "%.6f", ho->error_score);
	jw_end_obj(j);
	jw_obj(j, "train_scores");
	dc_sim_jw_num(j, "accuracy", "%.6f", tr->accuracy);
	dc_sim_jw_num(j, "precision", "%.6f", tr->precision);
	dc_sim_jw_num(j, "recall", "%.6f", tr->recall);
	dc_sim_jw_num(j, "f1", "%.6f", tr->f1);
	dc_sim_jw_num(j, "error_score", "%.6f", tr->error_score);
	jw_end_obj(j);
	jw_end_obj(j);
	jw_done(j);
}

static void score_row(FILE *f, const char *name, const struct dc_rf_score_sheet *s)
{
	fprintf(f, "%-8s %9llu %9llu %9llu %9llu %9.4f %9.4f %9.4f %9.4f %11.4f\n", name,
		(unsigned long long)s->tp, (unsigned long long)s->fp, (unsigned long long)s->tn,
		(unsigned long long)s->fn, s->accuracy, s->precision, s->recall, s->f1,
		s->error_score);
}

static void report_text(FILE *f, const struct dc_cred_train_args *o,
			const struct dc_rf_train_cfg *tc, const struct train_run *r,
			const char *source)
{
	const struct dc_rf_score_sheet *ho = &r->ho, *tr = &r->tr;

	fprintf(f, "# %zu arrivals (%s), %.2f%% dropped or pushed out by LQD; features from the %s switch\n",
		r->narr, source, 100.0 * (double)r->ndrop / (double)r->narr,
		o->state_lqd ? "LQD" : "Credence-with-oracle");
	if (!o->state_lqd)
		fprintf(f, "# Credence with the oracle decides as LQD for %.4f of the arrivals\n",
			(double)r->agree / (double)r->narr);
	fprintf(f, "# samples: %s, %zu (%.2f%% labelled drop); %u trees, depth %u, seed %llu, EWMA period %u ns\n",
		o->all_samples ? "all arrivals" : "the arrivals Credence asks about", r->ns,
		100.0 * (double)(tr->tp + tr->fn + ho->tp + ho->fn) / (double)r->ns, tc->trees,
		tc->depth, (unsigned long long)tc->seed, tc->ewma_period_ns);
	fprintf(f, "# %u round%s; trained on %zu samples of the first %zu arrivals, %zu samples of the rest held out\n",
		o->rounds, o->rounds > 1 ? "s" : "", r->ntrain, r->kcut, r->ns - r->ntrain);
	fprintf(f, "%-8s %9s %9s %9s %9s %9s %9s %9s %9s %11s\n", "split", "TP", "FP", "TN", "FN",
		"accuracy", "precision", "recall", "F1", "error_score");
	score_row(f, "train", tr);
	score_row(f, "holdout", ho);
	fprintf(f, "written: %s\n", o->out);
}

/* Options that only shape a generated workload and are train's own. */
static const char *const wl_own[] = { "workload-seed", NULL };

/* The trainer's and the simulator's settings; 0 or the exit code. */
static int train_setup(struct dc_ctx *ctx, int argc, char **argv, struct dc_rf_train_cfg *tc,
		       struct dc_sim_cfg *sc, struct dc_sim_workload *wl)
{
	const struct dc_cred_train_args *o = ctx->opts;
	bool given[DC_OPTS_MAX];
	const struct dc_opt *ws = dc_opt_find(dc_cred_train_opts, "workload-seed");
	int rc;

	rc = dc_sim_given(ctx, argc, argv, given);
	if (rc)
		return rc;
	if (o->sim.trace &&
	    dc_sim_trace_refuse(dc_cred_train_opts, given, wl_own, "it shapes the generated workload",
				&ctx->err))
		return EXIT_USAGE;
	if (o->state_lqd && !o->all_samples)
		return dc_fail(ctx, EXIT_USAGE,
			       "--state lqd consults no predictor: use --samples all with it");
	dc_rf_train_defaults(tc);
	tc->trees = o->trees;
	tc->depth = o->depth;
	tc->min_leaf = o->min_leaf;
	tc->max_features = o->max_features;
	tc->ewma_period_ns = o->ewma_period_ns;
	tc->seed = o->seed;
	dc_sim_cfg_defaults(sc);
	dc_sim_workload_defaults(wl);
	dc_sim_opts_apply(&o->sim, sc, wl);
	/* One seed makes the run reproducible: it drives the workload too
	 * unless --workload-seed says otherwise. */
	wl->seed = given[ws - dc_cred_train_opts] ? o->workload_seed : o->seed;
	return 0;
}

int dc_cred_train_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct dc_cred_train_args *o = ctx->opts;
	struct dc_rf_train_cfg tc;
	struct dc_sim_cfg sc;
	struct dc_sim_workload wl;
	struct dc_sim_arrival *arr = NULL;
	struct dc_rf_model *m = NULL;
	struct samples tr = { 0 }, ho = { 0 };
	struct train_run run = { 0 };
	__u8 *lab = NULL;
	__u64 nslots;
	size_t k;
	int rc;

	rc = train_setup(ctx, argc, argv, &tc, &sc, &wl);
	if (rc)
		return rc;
	rc = o->sim.trace ? dc_sim_read_trace(o->sim.trace, sc.slot_ns, &arr, &run.narr, &ctx->err) :
			    dc_sim_generate(&sc, &wl, &arr, &run.narr, &ctx->err);
	if (rc)
		return rc;
	rc = EXIT_ERR;
	if (run.narr < 2) {
		dc_fail(ctx, EXIT_ERR, "%zu arrivals: nothing to learn from", run.narr);
		goto out;
	}
	m = malloc(sizeof(*m));
	if (!m) {
		dc_fail(ctx, EXIT_ERR, "out of memory");
		goto out;
	}
	nslots = o->sim.trace ? 0 : wl.slots;
	/* labels: LQD's fate of each arrival */
	rc = dc_sim_lqd_labels(&sc, arr, run.narr, nslots, &lab, &ctx->err);
	if (rc)
		goto out;
	sc.ewma_period_ns = tc.ewma_period_ns;
	sc.alg = o->state_lqd ? DC_ALG_LQD : DC_ALG_CREDENCE;
	sc.predictor = DC_SIM_PRED_ORACLE;
	sc.flip_q32 = 0;
	/* Held out: the arrivals of the last --holdout fraction of the trace.
	 * Neighbouring arrivals are nearly the same vector, so a random split
	 * would score the model on copies of what it learnt. */
	run.kcut = run.narr - (size_t)((double)run.narr * o->holdout);
	for (k = 0; k < run.narr; k++)
		run.ndrop += lab[k];
	rc = train_rounds(o, &tc, &sc, arr, nslots, lab, m, &tr, &ho, &run, &ctx->err);
	if (rc)
		goto out;
	run.ns = tr.n + ho.n;
	run.ntrain = tr.n;
	dc_rf_evaluate(m, (const __u32 (*)[DC_RF_FEATURES])tr.x, tr.y, tr.n, sc.nports, &run.tr);
	dc_rf_evaluate(m, (const __u32 (*)[DC_RF_FEATURES])ho.x, ho.y, ho.n, sc.nports, &run.ho);
	rc = dc_forest_write(o->out, m);
	if (rc) {
		rc = dc_fail(ctx, EXIT_ERR, "cannot write %s: %s", o->out, strerror(-rc));
		goto out;
	}
	if (ctx->json)
		report_json(&ctx->jw, o, &tc, &run);
	else
		report_text(ctx->out, o, &tc, &run, o->sim.trace ? o->sim.trace : wl.kind);
	rc = EXIT_OK;
out:
	free(arr);
	free(lab);
	free(tr.x);
	free(tr.y);
	free(ho.x);
	free(ho.y);
	free(m);
	return rc;
}
