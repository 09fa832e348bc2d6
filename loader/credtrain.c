// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Training Credence's drop predictor in C (`dcbpf credence train`): a
 * random forest of CART trees (Gini impurity, bootstrap samples, optional
 * feature subsampling) on per-arrival feature vectors labelled by LQD
 * serving the same arrivals in the simulator.  Choices and their reasons:
 * docs/credence.md, "Training".
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "forest.h"
#include "json.h"
#include "sim.h"

/* xorshift64*: the trainer's own stream, identical on every host. */
static __u64 tr_rng(__u64 *s)
{
	__u64 x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* Uniform in [0, n) without modulo bias worth speaking of (n ≤ 2^32). */
static __u64 tr_below(__u64 *s, __u64 n)
{
	return (__u64)(((unsigned __int128)(tr_rng(s) >> 32) * n) >> 32);
}

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
			wt[tr_below(&rng, n)]++;
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
						  (__u32)tr_below(&rng, DC_RF_FEATURES);

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

/* ---- dcbpf credence train ---------------------------------------------------- */

static void train_usage(FILE *f)
{
	fprintf(f,
		"usage: dcbpf credence train [--workload websearch|incast|mix | --trace FILE]\n"
		"           [--seed S] [--workload-seed S] [--trees N] [--depth D] [--min-leaf N]\n"
		"           [--max-features K] [--ewma-period-ns NS] [--holdout F]\n"
		"           [--state lqd|credence] [--samples all|consulted] [--rounds R]\n"
		"           [simulator options: --ports --buffer --mode --slots --load --incast-frac\n"
		"            --incast-senders --incast-period --slot-bytes --slot-ns --mtu]\n"
		"           --out MODEL [--json]\n"
		"Labels: 1 if LQD, serving the same arrivals, drops or pushes the packet out.\n"
		"Features: q_i, Q and their EWMAs over --ewma-period-ns (default 50000, one base\n"
		"RTT), in bytes, as the switch of --state sees them on arrival: lqd (default, as\n"
		"the paper) the LQD switch itself; credence: Credence following LQD with perfect\n"
		"predictions. --samples consulted (with --state credence) keeps only the arrivals\n"
		"Credence asks its predictor about. --rounds R > 1 adds, R − 1 times, the states\n"
		"Credence driven by the previous forest visits. The arrivals of the last --holdout\n"
		"fraction of the trace (default 0.3) are held out and scored. --seed drives the\n"
		"bootstraps and, unless --workload-seed is given, the workload. Defaults: 4 trees\n"
		"of depth 4, min leaf 16, all 4 features per split, seed 1, workload mix (see\n"
		"dcbpf sim --help).\n");
}

int dc_credence_train_main(int argc, char **argv)
{
	enum {
		O_WL = 256, O_TRACE, O_SEED, O_TREES, O_DEPTH, O_MINLEAF, O_MAXF, O_EWMA, O_HOLD,
		O_STATE, O_PORTS, O_BUF, O_MODE, O_SLOTS, O_LOAD, O_IFRAC, O_ISEND, O_IPER, O_SLOTB,
		O_SLOTNS, O_MTU, O_OUT, O_JSON, O_HELP, O_WSEED, O_SAMPLES, O_ROUNDS,
	};
	static const struct option opts[] = {
		{ "workload", required_argument, NULL, O_WL },
		{ "trace", required_argument, NULL, O_TRACE },
		{ "seed", required_argument, NULL, O_SEED },
		{ "trees", required_argument, NULL, O_TREES },
		{ "depth", required_argument, NULL, O_DEPTH },
		{ "min-leaf", required_argument, NULL, O_MINLEAF },
		{ "max-features", required_argument, NULL, O_MAXF },
		{ "ewma-period-ns", required_argument, NULL, O_EWMA },
		{ "holdout", required_argument, NULL, O_HOLD },
		{ "state", required_argument, NULL, O_STATE },
		{ "ports", required_argument, NULL, O_PORTS },
		{ "buffer", required_argument, NULL, O_BUF },
		{ "mode", required_argument, NULL, O_MODE },
		{ "slots", required_argument, NULL, O_SLOTS },
		{ "load", required_argument, NULL, O_LOAD },
		{ "incast-frac", required_argument, NULL, O_IFRAC },
		{ "incast-senders", required_argument, NULL, O_ISEND },
		{ "incast-period", required_argument, NULL, O_IPER },
		{ "slot-bytes", required_argument, NULL, O_SLOTB },
		{ "slot-ns", required_argument, NULL, O_SLOTNS },
		{ "mtu", required_argument, NULL, O_MTU },
		{ "out", required_argument, NULL, O_OUT },
		{ "json", no_argument, NULL, O_JSON },
		{ "help", no_argument, NULL, O_HELP },
		{ "workload-seed", required_argument, NULL, O_WSEED },
		{ "samples", required_argument, NULL, O_SAMPLES },
		{ "rounds", required_argument, NULL, O_ROUNDS },
		{ NULL, 0, NULL, 0 },
	};
	struct dc_rf_train_cfg tc;
	struct dc_sim_cfg sc;
	struct dc_sim_workload wl;
	struct dc_sim_arrival *arr = NULL;
	struct dc_rf_model *m = NULL;
	struct dc_rf_score_sheet tr, ho;
	__u32 (*x)[DC_RF_FEATURES] = NULL, (*tx)[DC_RF_FEATURES] = NULL, (*hx)[DC_RF_FEATURES] = NULL;
	__u8 *lab = NULL, *fate = NULL, *asked = NULL, *ty = NULL, *hy = NULL;
	size_t nt = 0, nh = 0, tcap = 0, kcut;
	__u32 rounds = 1, r;
	const char *trace = NULL, *out = NULL;
	bool json = false, wseed_set = false, state_lqd = true, all_samples = true;
	double hold = 0.3;
	size_t narr = 0, ns = 0, ntrain, k, agree = 0, ndrop = 0;
	__u64 v;
	char why[512], *end;
	int o, rc = EXIT_USAGE, err;

	dc_rf_train_defaults(&tc);
	dc_sim_cfg_defaults(&sc);
	dc_sim_workload_defaults(&wl);
	optind = 0;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case O_WL:
			wl.kind = optarg;
			break;
		case O_TRACE:
			trace = optarg;
			break;
		case O_SEED:
			if (dc_sim_parse_u64(optarg, &tc.seed, 0, UINT64_MAX))
				goto badval;
			break;
		case O_WSEED:
			if (dc_sim_parse_u64(optarg, &wl.seed, 0, UINT64_MAX))
				goto badval;
			wseed_set = true;
			break;
		case O_TREES:
			if (dc_sim_parse_u64(optarg, &v, 1, DC_RF_TREES_MAX))
				goto badval;
			tc.trees = (__u32)v;
			break;
		case O_DEPTH:
			if (dc_sim_parse_u64(optarg, &v, 1, DC_RF_DEPTH_MAX))
				goto badval;
			tc.depth = (__u32)v;
			break;
		case O_MINLEAF:
			if (dc_sim_parse_u64(optarg, &v, 1, 100000000))
				goto badval;
			tc.min_leaf = (__u32)v;
			break;
		case O_MAXF:
			if (dc_sim_parse_u64(optarg, &v, 1, DC_RF_FEATURES))
				goto badval;
			tc.max_features = (__u32)v;
			break;
		case O_EWMA:
			if (dc_sim_parse_u64(optarg, &v, 1, DC_U32_MAX))
				goto badval;
			tc.ewma_period_ns = (__u32)v;
			break;
		case O_HOLD:
			hold = strtod(optarg, &end);
			if (*end || !*optarg || !(hold >= 0) || !(hold < 1))
				goto badval;
			break;
		case O_STATE:
			if (!strcmp(optarg, "lqd"))
				state_lqd = true;
			else if (!strcmp(optarg, "credence"))
				state_lqd = false;
			else
				goto badval;
			break;
		case O_ROUNDS:
			if (dc_sim_parse_u64(optarg, &v, 1, 8))
				goto badval;
			rounds = (__u32)v;
			break;
		case O_SAMPLES:
			if (!strcmp(optarg, "all"))
				all_samples = true;
			else if (!strcmp(optarg, "consulted"))
				all_samples = false;
			else
				goto badval;
			break;
		case O_PORTS:
			if (dc_sim_parse_u64(optarg, &v, 1, DC_SIM_PORTS_MAX))
				goto badval;
			sc.nports = (__u32)v;
			break;
		case O_BUF:
			if (dc_sim_parse_u64(optarg, &sc.buffer, 1, 0xffffffffULL))
				goto badval;
			break;
		case O_MODE:
			if (!strcmp(optarg, "unit"))
				sc.mode = DC_SIM_UNIT;
			else if (!strcmp(optarg, "byte"))
				sc.mode = DC_SIM_BYTE;
			else
				goto badval;
			break;
		case O_SLOTS:
			if (dc_sim_parse_u64(optarg, &wl.slots, 1, 100000000))
				goto badval;
			break;
		case O_LOAD:
			wl.load = strtod(optarg, &end);
			if (*end || !*optarg || !(wl.load >= 0) || wl.load > 1)
				goto badval;
			break;
		case O_IFRAC:
			wl.incast_frac = strtod(optarg, &end);
			if (*end || !(wl.incast_frac > 0) || wl.incast_frac > 100)
				goto badval;
			break;
		case O_ISEND:
			if (dc_sim_parse_u64(optarg, &v, 1, DC_SIM_PORTS_MAX))
				goto badval;
			wl.incast_senders = (__u32)v;
			break;
		case O_IPER:
			if (dc_sim_parse_u64(optarg, &v, 1, 100000000))
				goto badval;
			wl.incast_period = (__u32)v;
			break;
		case O_SLOTB:
			if (dc_sim_parse_u64(optarg, &v, 1, 1000000))
				goto badval;
			sc.slot_bytes = (__u32)v;
			break;
		case O_SLOTNS:
			if (dc_sim_parse_u64(optarg, &sc.slot_ns, 1, 1000000000))
				goto badval;
			break;
		case O_MTU:
			if (dc_sim_parse_u64(optarg, &v, 64, 65535))
				goto badval;
			wl.mtu = (__u32)v;
			break;
		case O_OUT:
			out = optarg;
			break;
		case O_JSON:
			json = true;
			break;
		case O_HELP:
			train_usage(stdout);
			return EXIT_OK;
		default:
			train_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "dcbpf credence train: unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (!out) {
		fprintf(stderr, "dcbpf credence train: --out MODEL is required (where to write the model)\n");
		return EXIT_USAGE;
	}
	/* One seed makes the run reproducible: it drives the workload too
	 * unless --workload-seed says otherwise. */
	if (!wseed_set)
		wl.seed = tc.seed;
	if (trace ? dc_sim_read_trace(trace, sc.slot_ns, &arr, &narr) :
		    dc_sim_generate(&sc, &wl, &arr, &narr))
		return trace ? EXIT_ERR : EXIT_USAGE;
	rc = EXIT_ERR;
	if (narr < 2) {
		fprintf(stderr, "dcbpf credence train: %zu arrivals: nothing to learn from\n", narr);
		goto out;
	}
	if (state_lqd && !all_samples) {
		fprintf(stderr, "dcbpf credence train: --state lqd consults no predictor: use --samples all with it\n");
		rc = EXIT_USAGE;
		goto out;
	}
	x = malloc(narr * sizeof(*x));
	hx = malloc(narr * sizeof(*hx));
	hy = malloc(narr);
	fate = malloc(narr);
	asked = malloc(narr);
	m = malloc(sizeof(*m));
	if (!x || !hx || !hy || !fate || !asked || !m) {
		fprintf(stderr, "dcbpf credence train: out of memory for %zu arrivals\n", narr);
		goto out;
	}
	/* labels: LQD's fate of each arrival */
	if (dc_sim_lqd_labels(&sc, arr, narr, trace ? 0 : wl.slots, &lab))
		goto out;
	sc.ewma_period_ns = tc.ewma_period_ns;
	sc.alg = state_lqd ? DC_ALG_LQD : DC_ALG_CREDENCE;
	sc.predictor = DC_SIM_PRED_ORACLE;
	sc.flip_q32 = 0;
	/* Held out: the arrivals of the last --holdout fraction of the trace.
	 * Neighbouring arrivals are nearly the same vector, so a random split
	 * would score the model on copies of what it learnt. */
	kcut = narr - (size_t)((double)narr * hold);
	for (k = 0; k < narr; k++)
		ndrop += lab[k];
	for (r = 1; r <= rounds; r++) {
		/* round 1: the state of the switch chosen by --state; later
		 * rounds: Credence driven by the previous round's forest, so the
		 * forest also learns the states its own mistakes lead to */
		if (r > 1) {
			sc.alg = DC_ALG_CREDENCE;
			sc.predictor = DC_SIM_PRED_FOREST;
			sc.model = m;
		}
		if (dc_sim_features(&sc, arr, narr, trace ? 0 : wl.slots, x, fate, asked))
			goto out;
		if (r == 1)
			for (k = 0; k < narr; k++)
				agree += fate[k] == lab[k];
		/* The samples: by default only the arrivals Credence asks about
		 * (after its safeguard, threshold and buffer tests); elsewhere a
		 * prediction is never used, and the "drops" there are the ones
		 * the thresholds make anyway. */
		for (k = 0; k < narr; k++) {
			if (!all_samples && !asked[k])
				continue;
			if (k >= kcut) {
				if (r == 1) {
					memcpy(hx[nh], x[k], sizeof(x[0]));
					hy[nh++] = lab[k];
				}
				continue;
			}
			if (nt == tcap) {
				void *nx, *ny;

				tcap = tcap ? tcap * 2 : 65536;
				nx = realloc(tx, tcap * sizeof(*tx));
				if (nx)
					tx = nx;
				ny = realloc(ty, tcap);
				if (ny)
					ty = ny;
				if (!nx || !ny) {
					fprintf(stderr, "dcbpf credence train: out of memory for samples\n");
					goto out;
				}
			}
			memcpy(tx[nt], x[k], sizeof(x[0]));
			ty[nt++] = lab[k];
		}
		if (nt < 2) {
			fprintf(stderr, "dcbpf credence train: only %zu samples to train on (arrivals Credence asks about): use a more congested workload, more --slots or --samples all\n",
				nt);
			goto out;
		}
		if (dc_rf_train(&tc, (const __u32 (*)[DC_RF_FEATURES])tx, ty, nt, m, why, sizeof(why))) {
			fprintf(stderr, "dcbpf credence train: %s\n", why);
			goto out;
		}
	}
	ns = nt + nh;
	ntrain = nt;
	dc_rf_evaluate(m, (const __u32 (*)[DC_RF_FEATURES])tx, ty, nt, sc.nports, &tr);
	dc_rf_evaluate(m, (const __u32 (*)[DC_RF_FEATURES])hx, hy, nh, sc.nports, &ho);
	err = dc_forest_write(out, m);
	if (err) {
		fprintf(stderr, "dcbpf credence train: cannot write %s: %s\n", out, strerror(-err));
		goto out;
	}
	if (json) {
		printf("{\"model\": ");
		jw_put_str(stdout, out);
		printf(", \"arrivals\": %zu, \"samples\": %zu, \"train\": %zu, "
		       "\"holdout\": %zu, \"lqd_drop_rate\": %.6f, \"sample_drop_rate\": %.6f, "
		       "\"state\": \"%s\", \"sample_set\": \"%s\", \"state_fate_agrees\": %.6f, "
		       "\"rounds\": %u, \"trees\": %u, \"depth\": %u, \"seed\": %llu, \"ewma_period_ns\": %u, ",
		       narr, ns, ntrain, ns - ntrain, (double)ndrop / (double)narr,
		       (double)(tr.tp + tr.fn + ho.tp + ho.fn) / (double)ns,
		       state_lqd ? "lqd" : "credence", all_samples ? "all" : "consulted",
		       (double)agree / (double)narr, rounds, tc.trees, tc.depth,
		       (unsigned long long)tc.seed, tc.ewma_period_ns);
		printf("\"holdout_scores\": {\"tp\": %llu, \"fp\": %llu, \"tn\": %llu, \"fn\": %llu, "
		       "\"accuracy\": %.6f, \"precision\": %.6f, \"recall\": %.6f, \"f1\": %.6f, "
		       "\"error_score\": %.6f}, ",
		       (unsigned long long)ho.tp, (unsigned long long)ho.fp, (unsigned long long)ho.tn,
		       (unsigned long long)ho.fn, ho.accuracy, ho.precision, ho.recall, ho.f1,
		       ho.error_score);
		printf("\"train_scores\": {\"accuracy\": %.6f, \"precision\": %.6f, \"recall\": %.6f, "
		       "\"f1\": %.6f, \"error_score\": %.6f}}\n",
		       tr.accuracy, tr.precision, tr.recall, tr.f1, tr.error_score);
	} else {
		printf("# %zu arrivals (%s), %.2f%% dropped or pushed out by LQD; features from the %s switch\n",
		       narr, trace ? trace : wl.kind, 100.0 * (double)ndrop / (double)narr,
		       state_lqd ? "LQD" : "Credence-with-oracle");
		if (!state_lqd)
			printf("# Credence with the oracle decides as LQD for %.4f of the arrivals\n",
			       (double)agree / (double)narr);
		printf("# samples: %s, %zu (%.2f%% labelled drop); %u trees, depth %u, seed %llu, EWMA period %u ns\n",
		       all_samples ? "all arrivals" : "the arrivals Credence asks about", ns,
		       100.0 * (double)(tr.tp + tr.fn + ho.tp + ho.fn) / (double)ns, tc.trees,
		       tc.depth, (unsigned long long)tc.seed, tc.ewma_period_ns);
		printf("# %u round%s; trained on %zu samples of the first %zu arrivals, %zu samples of the rest held out\n",
		       rounds, rounds > 1 ? "s" : "", ntrain, kcut, ns - ntrain);
		printf("%-8s %9s %9s %9s %9s %9s %9s %9s %9s %11s\n", "split", "TP", "FP", "TN", "FN",
		       "accuracy", "precision", "recall", "F1", "error_score");
		printf("%-8s %9llu %9llu %9llu %9llu %9.4f %9.4f %9.4f %9.4f %11.4f\n", "train",
		       (unsigned long long)tr.tp, (unsigned long long)tr.fp, (unsigned long long)tr.tn,
		       (unsigned long long)tr.fn, tr.accuracy, tr.precision, tr.recall, tr.f1,
		       tr.error_score);
		printf("%-8s %9llu %9llu %9llu %9llu %9.4f %9.4f %9.4f %9.4f %11.4f\n", "holdout",
		       (unsigned long long)ho.tp, (unsigned long long)ho.fp, (unsigned long long)ho.tn,
		       (unsigned long long)ho.fn, ho.accuracy, ho.precision, ho.recall, ho.f1,
		       ho.error_score);
		printf("written: %s\n", out);
	}
	rc = EXIT_OK;
	goto out;
badval:
	fprintf(stderr, "dcbpf credence train: bad value '%s' for --%s (see dcbpf credence train --help)\n",
		optarg, opts[o - O_WL].name);
	return EXIT_USAGE;
out:
	free(arr);
	free(x);
	free(lab);
	free(fate);
	free(asked);
	free(tx);
	free(ty);
	free(hx);
	free(hy);
	free(m);
	return rc;
}
