// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * Credence's random forest in user space (loader/credence/forest.c,
 * rftrain.c, credtrain.c, the forest predictor of loader/sim/): the model
 * file's refusals each with its reason and line, the atomic write and the
 * round trip, the CART trainer's determinism and its ability to separate
 * separable data, the paper's scores, and the simulator's features.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "clicap.h"
#include "credence/credence.h"
#include "credence/forest.h"
#include "sim/sim.h"

static struct dc_err serr;

static char tmpdir[] = "/tmp/dcbpf-test-forest-XXXXXX";

/* A small valid model: tree 0 splits on qlen, tree 1 is one leaf. */
static const char good[] =
	"dcbpf-forest 1\n"
	"# a comment\n"
	"trees 2 depth 1 ewma_period_ns 50000\n"
	"tree 0 nodes 3\n"
	"0 split qlen 3000 1 2\n"
	"1 leaf 0\n"
	"2 leaf 65536\n"
	"\n"
	"tree 1 nodes 1\n"
	"0 leaf 40000\n"
	"end\n";

static __u64 rng = 88172645463325252ULL;

static __u64 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Replace the first occurrence of `from` in good[] by `to`. */
static char *edit(const char *from, const char *to)
{
	static char buf[4096];
	const char *p = strstr(good, from);

	if (!p)
		return NULL;
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(p - good), good, to, p + strlen(from));
	return buf;
}

/* Parse text; PASS when refused with a message containing `reason` and
 * `line`, leaving the output model untouched. */
static void refuse(const char *name, const char *text, size_t len, const char *reason,
		   const char *line)
{
	struct dc_rf_model *m = malloc(sizeof(*m)), *orig = malloc(sizeof(*orig));
	char why[512] = "";
	int rc;

	memset(m, 0xa5, sizeof(*m));
	memcpy(orig, m, sizeof(*m));
	rc = text ? dc_forest_parse(text, len, m, why, sizeof(why)) : 0;
	CHECK(name, text && rc == -1 && strstr(why, reason) && (!line || strstr(why, line)) &&
		    !memcmp(m, orig, sizeof(*m)),
	      "rc %d, message '%s' (want '%s' at '%s'), model %s", rc, why, reason,
	      line ? line : "-", memcmp(m, orig, sizeof(*m)) ? "changed" : "untouched");
	free(m);
	free(orig);
}

static void refuse_s(const char *name, const char *text, const char *reason, const char *line)
{
	refuse(name, text, text ? strlen(text) : 0, reason, line);
}

/* One edit of good[] each, and what the refusal must say and where. */
struct bad_edit {
	const char *name, *from, *to, *reason, *line;
};
static const struct bad_edit bad_edits[] = {
		{ "tree with fewer nodes than declared", "tree 0 nodes 3", "tree 0 nodes 4",
		  "declares 4 nodes but has 3", "line 9" },
		{ "fewer trees than declared", "trees 2", "trees 3",
		  "after 2 trees, the header declares 3", "line 11" },
		{ "more trees than declared", "trees 2", "trees 1",
		  "expected 'end'", "line 9" },
		{ "wrong magic", "dcbpf-forest 1", "dcbpf-forrest 1",
		  "not a dcbpf model file", "line 1" },
		{ "wrong version", "dcbpf-forest 1", "dcbpf-forest 2",
		  "version '2' is not supported", "line 1" },
		{ "depth out of range", "depth 1", "depth 9",
		  "depth '9'", "line 3" },
		{ "leaf deeper than the declared depth", "trees 2 depth 1", "trees 2 depth 0",
		  "depth out of range", "line 6" },
		{ "tree count out of range", "trees 2", "trees 17",
		  "tree count", "line 3" },
		{ "node index out of range", "2 leaf 65536", "3 leaf 65536",
		  "node index '3' out of range", "line 7" },
		{ "node index out of order", "1 leaf 0", "2 leaf 0",
		  "out of order", "line 6" },
		{ "child index beyond the tree", "split qlen 3000 1 2", "split qlen 3000 1 5",
		  "tree 0 node 0: child node index out of range", "line 5" },
		{ "child index above 127", "split qlen 3000 1 2", "split qlen 3000 1 300",
		  "right child index '300'", "line 5" },
		{ "node count above 128", "tree 0 nodes 3", "tree 0 nodes 129",
		  "node count '129'", "line 4" },
		{ "unknown feature", "split qlen", "split qlen2",
		  "unknown feature", "line 5" },
		{ "NaN threshold", "qlen 3000", "qlen nan",
		  "threshold 'nan'", "line 5" },
		{ "inf probability", "leaf 65536", "leaf inf",
		  "leaf probability 'inf'", "line 7" },
		{ "negative threshold", "qlen 3000", "qlen -1",
		  "threshold '-1'", "line 5" },
		{ "fractional probability", "leaf 40000", "leaf 0.5",
		  "leaf probability '0.5'", "line 10" },
		{ "exponent", "qlen 3000", "qlen 3e3",
		  "threshold '3e3'", "line 5" },
		{ "probability above 1 (65537)", "leaf 65536", "leaf 65537",
		  "leaf probability '65537'", "line 7" },
		{ "threshold above 2^32 - 1", "qlen 3000", "qlen 4294967296",
		  "threshold '4294967296'", "line 5" },
		{ "EWMA period 0", "ewma_period_ns 50000", "ewma_period_ns 0",
		  "ewma_period_ns must be above 0", "line 3" },
		{ "trailing garbage after end", "end\n", "end\nxyz\n",
		  "trailing garbage", "line 12" },
		{ "extra word on a node line", "1 leaf 0", "1 leaf 0 0",
		  "expected '1 leaf P'", "line 6" },
		{ "DOS line ends refused with the fix", "end\n", "end\r\n",
		  "DOS line ends", "line 11" },
};

static void test_parse(void)
{
	struct dc_rf_model *m = calloc(1, sizeof(*m));
	char why[512] = "", *big;
	__u32 x[DC_RF_FEATURES] = { 0 };
	size_t n, i;
	int rc;

	rc = dc_forest_parse(good, strlen(good), m, why, sizeof(why));
	CHECK("forest file: a valid model parses", rc == 0 && m->n_trees == 2 && m->depth == 1 &&
	      m->ewma_period_ns == 50000 && m->n_nodes[0] == 3 && m->n_nodes[1] == 1 &&
	      m->node[0][0].feature == DC_RF_F_QLEN && m->node[0][0].value == 3000 &&
	      m->node[1][0].value == 40000, "rc %d: %s", rc, why);
	/* qlen ≤ 3000: tree 0 says 0, tree 1 0.61 → mean 0.31, accept;
	 * above: 1 and 0.61 → drop */
	x[DC_RF_F_QLEN] = 3000;
	CHECK_EQ("forest file: x ≤ threshold goes left (accept)", dc_rf_predict_drop(m, x), 0);
	x[DC_RF_F_QLEN] = 3001;
	CHECK_EQ("forest file: x > threshold goes right (drop)", dc_rf_predict_drop(m, x), 1);

	/* truncation anywhere before 'end' is refused */
	for (n = 0, rc = 0; n < strlen(good); n++) {
		struct dc_rf_model *t = calloc(1, sizeof(*t));

		if (!dc_forest_parse(good, n, t, why, sizeof(why)))
			rc++;
		free(t);
	}
	CHECK_EQ("forest file: every truncated prefix of a valid file is refused", rc, 0);
	refuse("forest file: truncated mid-line (no newline)", good, strlen(good) - 3,
	       "truncated", "line 11");
	refuse("forest file: truncated after a node line", good, (size_t)(strstr(good, "\ntree 1") - good) + 1,
	       "truncated", NULL);
	for (i = 0; i < sizeof(bad_edits) / sizeof(bad_edits[0]); i++) {
		char name[160];
		const struct bad_edit *b = &bad_edits[i];

		snprintf(name, sizeof(name), "forest file: %s", b->name);
		refuse_s(name, edit(b->from, b->to), b->reason, b->line);
	}
	{
		char t[64];

		memcpy(t, "dcbpf-forest 1\ntr\0ees 2\n", 24);
		refuse("forest file: NUL byte inside a line", t, 24, "NUL byte", "line 2");
	}
	big = malloc(300 * 1024);
	memset(big, '#', 300 * 1024);
	refuse("forest file: oversized (300 KiB) refused before parsing", big, 300 * 1024,
	       "larger than any model", NULL);
	free(big);
	free(m);
}

static void fill_random_model(struct dc_rf_model *m)
{
	memset(m, 0, sizeof(*m));
	m->version = DC_RF_VERSION;
	m->n_trees = 3;
	m->depth = 2;
	m->ewma_period_ns = 12345;
}

/* Random feature vectors spread over the scales the thresholds use. */
static void rand_vec(__u32 *x)
{
	__u32 f;

	for (f = 0; f < DC_RF_FEATURES; f++) {
		__u64 r = rnd();

		x[f] = (__u32)(r % 4 == 0 ? r >> 32 : (r >> 40) % (r % 4 == 1 ? 4000000 : 20000));
	}
}

static void test_files(void)
{
	struct dc_rf_model *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	struct dc_rf_train_cfg tc;
	__u32 (*x)[DC_RF_FEATURES];
	__u8 *y;
	char path[256], why[512] = "";
	size_t n = 20000, i, same = 0;
	int rc;

	fill_random_model(a);
	/* a trained model on noisy data has every kind of node */
	x = malloc(n * sizeof(*x));
	y = malloc(n);
	for (i = 0; i < n; i++) {
		rand_vec(x[i]);
		y[i] = (x[i][0] > 9000 && x[i][1] < 2000000) ^ (rnd() % 10 == 0);
	}
	dc_rf_train_defaults(&tc);
	tc.depth = 6;
	tc.trees = 8;
	tc.min_leaf = 4;
	tc.max_features = 2;
	rc = dc_rf_train(&tc, (const __u32 (*)[DC_RF_FEATURES])x, y, n, a, why, sizeof(why));
	CHECK("forest train: 8 trees of depth 6 on 20 000 noisy samples", rc == 0, "%s", why);
	snprintf(path, sizeof(path), "%s/model", tmpdir);
	rc = dc_forest_write(path, a);
	CHECK("forest file: write succeeds", rc == 0, "%s", strerror(-rc));
	rc = dc_forest_read(path, b, why, sizeof(why));
	CHECK("forest file: round trip write → read gives the same model",
	      rc == 0 && !memcmp(a, b, sizeof(*a)), "rc %d %s", rc, why);
	for (i = 0; i < 10000; i++) {
		__u32 v[DC_RF_FEATURES];

		rand_vec(v);
		same += dc_rf_score(a, v) == dc_rf_score(b, v) &&
			dc_rf_predict_drop(a, v) == dc_rf_predict_drop(b, v);
	}
	CHECK_EQ("forest file: the model read back scores equal on 10 000 random vectors", same, 10000);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "ls -A %s | grep -q tmp", tmpdir);
		CHECK("forest file: the atomic write leaves no temporary file", system(cmd) != 0, "%s",
		      "a temporary file is left");
	}
	/* an invalid model is not written, and the old file stays */
	a->node[0][0].left = 0;
	rc = dc_forest_write(path, a);
	CHECK("forest file: an invalid model is not written (-EINVAL), the old file stays",
	      rc == -22 && dc_forest_read(path, b, why, sizeof(why)) == 0, "rc %d", rc);
	snprintf(path, sizeof(path), "%s/none/model", tmpdir);
	CHECK("forest file: write to a missing directory fails with -errno",
	      dc_forest_write(path, b) < 0, "%s", "succeeded");
	rc = dc_forest_read(path, a, why, sizeof(why));
	CHECK("forest file: read of a missing file names it", rc == -1 && strstr(why, path), "%s", why);
	snprintf(path, sizeof(path), "%s/big", tmpdir);
	{
		FILE *f = fopen(path, "w");

		for (i = 0; i < 40000; i++)
			fputs("# padding\n", f);
		fclose(f);
	}
	memcpy(a, b, sizeof(*a));
	rc = dc_forest_read(path, b, why, sizeof(why));
	CHECK("forest file: an oversized file is refused by size, naming the file, model untouched",
	      rc == -1 && strstr(why, "larger than any model") && strstr(why, path) &&
	      !memcmp(a, b, sizeof(*a)), "%s", why);
	snprintf(path, sizeof(path), "%s/bad", tmpdir);
	{
		FILE *f = fopen(path, "w");

		fputs(edit("leaf 65536", "leaf nan"), f);
		fclose(f);
	}
	rc = dc_forest_read(path, b, why, sizeof(why));
	CHECK("forest file: read names file:line (path:7: …)",
	      rc == -1 && strncmp(why, path, strlen(path)) == 0 &&
	      !strncmp(why + strlen(path), ":7: ", 4), "%s", why);
	free(x);
	free(y);
	free(a);
	free(b);
}

static void test_train(void)
{
	struct dc_rf_model *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	struct dc_rf_train_cfg tc;
	struct dc_rf_score_sheet s;
	__u32 (*x)[DC_RF_FEATURES];
	__u8 *y;
	size_t n = 50000, i;
	char why[256];

	x = malloc(n * sizeof(*x));
	y = malloc(n);
	/* separable with a margin: drop iff qlen > 20 000 and occ > 500 000 */
	for (i = 0; i < n; i++) {
		x[i][0] = (__u32)(rnd() % 40000);
		x[i][1] = (__u32)(rnd() % 1000000);
		x[i][2] = (__u32)(rnd() % 1000);
		x[i][3] = (__u32)(rnd() % 1000);
		if (x[i][0] > 19000 && x[i][0] <= 21000)
			x[i][0] += 2000;
		y[i] = x[i][0] > 20000 && x[i][1] > 500000;
	}
	dc_rf_train_defaults(&tc);
	tc.seed = 5;
	CHECK("forest train: trains on 50 000 samples",
	      !dc_rf_train(&tc, (const __u32 (*)[DC_RF_FEATURES])x, y, n, a, why, sizeof(why)),
	      "%s", why);
	/* fresh vectors from the same distribution */
	for (i = 0; i < n; i++) {
		x[i][0] = (__u32)(rnd() % 40000);
		x[i][1] = (__u32)(rnd() % 1000000);
		if (x[i][0] > 19000 && x[i][0] <= 21000)
			x[i][0] += 2000;
		y[i] = x[i][0] > 20000 && x[i][1] > 500000;
	}
	dc_rf_evaluate(a, (const __u32 (*)[DC_RF_FEATURES])x, y, n, 16, &s);
	CHECK("forest train: separates a separable dataset (held-out accuracy ≥ 0.995)",
	      s.accuracy >= 0.995 && s.recall > 0.98 && s.precision > 0.98,
	      "accuracy %.4f precision %.4f recall %.4f", s.accuracy, s.precision, s.recall);
	CHECK("forest train: thresholds are integers in the margin (qlen 19 000 … 22 999)",
	      !(a->node[0][0].flags & DC_RF_NODE_LEAF) &&
	      ((a->node[0][0].feature == 0 && a->node[0][0].value >= 19000 && a->node[0][0].value < 23000) ||
	       a->node[0][0].feature == 1),
	      "root feature %u value %u", a->node[0][0].feature, a->node[0][0].value);

	/* determinism: same seed, same model; another seed, another model */
	for (i = 0; i < n; i++)
		y[i] ^= rnd() % 8 == 0;		/* noise, so bootstraps matter */
	tc.seed = 11;
	dc_rf_train(&tc, (const __u32 (*)[DC_RF_FEATURES])x, y, n, a, why, sizeof(why));
	dc_rf_train(&tc, (const __u32 (*)[DC_RF_FEATURES])x, y, n, b, why, sizeof(why));
	CHECK("forest train: deterministic for a fixed seed", !memcmp(a, b, sizeof(*a)), "%s",
	      "models differ");
	tc.seed = 12;
	dc_rf_train(&tc, (const __u32 (*)[DC_RF_FEATURES])x, y, n, b, why, sizeof(why));
	CHECK("forest train: another seed gives another model", memcmp(a, b, sizeof(*a)) != 0, "%s",
	      "models equal");
	/* a pure dataset is one leaf per tree */
	memset(y, 0, n);
	dc_rf_train(&tc, (const __u32 (*)[DC_RF_FEATURES])x, y, n, a, why, sizeof(why));
	CHECK("forest train: all-accept labels give single-leaf trees with P(drop) = 0",
	      a->n_nodes[0] == 1 && a->node[0][0].flags == DC_RF_NODE_LEAF && a->node[0][0].value == 0,
	      "%u nodes", a->n_nodes[0]);
	/* depth 8 fits the node budget (128) */
	for (i = 0; i < n; i++)
		y[i] = rnd() % 2;
	tc.depth = 8;
	tc.min_leaf = 1;
	CHECK("forest train: depth 8 on random labels stays within 128 nodes a tree and valid",
	      !dc_rf_train(&tc, (const __u32 (*)[DC_RF_FEATURES])x, y, n, a, why, sizeof(why)) &&
	      a->n_nodes[0] <= DC_RF_NODES_MAX && a->n_nodes[0] > 64, "%s, %u nodes", why,
	      a->n_nodes[0]);
	tc.depth = 9;
	CHECK("forest train: depth 9 refused", dc_rf_train(&tc, (const __u32 (*)[DC_RF_FEATURES])x,
							   y, n, a, why, sizeof(why)) == -1, "%s", "accepted");
	free(x);
	free(y);
	free(a);
	free(b);
}

static void test_scores(void)
{
	struct dc_rf_score_sheet s = { .tp = 5, .fp = 10, .tn = 1000, .fn = 1 };

	/* T-C7 (docs/admission.md, "Tests"): TN 1000, FP 10, FN 1, N = 20 → 981/1010 = 0.9713 */
	dc_rf_scores(&s, 20);
	CHECK("forest scores: error score (Lemma 3, T-C7) = 0.9713",
	      s.error_score > 0.97128 && s.error_score < 0.97130, "%.5f", s.error_score);
	CHECK("forest scores: precision 5/15, recall 5/6, F1 10/21, accuracy 1005/1016",
	      s.precision > 0.33333 && s.precision < 0.33334 && s.recall > 0.83333 &&
	      s.recall < 0.83334 && s.f1 > 0.47619 && s.f1 < 0.47620 &&
	      s.accuracy > 0.98917 && s.accuracy < 0.98918,
	      "p %.5f r %.5f f1 %.5f a %.5f", s.precision, s.recall, s.f1, s.accuracy);
	s.fn = 60;
	dc_rf_scores(&s, 20);
	CHECK("forest scores: 19 · FN ≥ TN → error score 0 (η unbounded)", s.error_score == 0,
	      "%.5f", s.error_score);
}

/* The simulator's features and the forest predictor's wiring. */
static void test_sim_features(void)
{
	struct dc_sim_cfg c;
	struct dc_sim_arrival a[4] = {
		{ .slot = 0, .port = 0 }, { .slot = 0, .port = 0 }, { .slot = 0, .port = 0 },
		{ .slot = 1, .port = 0 },
	};
	__u32 x[4][DC_RF_FEATURES];
	struct dc_rf_model *m = calloc(1, sizeof(*m));
	struct dc_sim_workload w;
	struct dc_sim_arrival *arr = NULL;
	struct dc_sim_result r1, r2;
	size_t na = 0;
	int rc;

	dc_sim_cfg_defaults(&c);
	c.nports = 2;
	c.buffer = 100;
	c.alg = DC_ALG_LQD;
	c.slot_ns = 12000;
	c.ewma_period_ns = 50000;
	rc = dc_sim_features(&c, a, 4, 2, x, NULL, NULL, &serr);
	/* unit mode: a packet counts slot_bytes (1500); after slot 0's three
	 * arrivals and one departure q = 2 packets = 3000 B; the EWMA moves
	 * by dt/period = 12 000/50 000 of the way from 0 */
	CHECK("forest features: q, Q in bytes before the arrival",
	      rc == 0 && x[0][0] == 0 && x[1][0] == 1500 && x[2][0] == 3000 && x[2][1] == 3000 &&
	      x[3][0] == 3000 && x[3][1] == 3000, "rc %d x2 %u/%u x3 %u/%u", rc, x[2][0], x[2][1],
	      x[3][0], x[3][1]);
	CHECK("forest features: time-weighted EWMA (0 → 3000 B over 12 of 50 µs = 720 B)",
	      x[2][2] == 0 && x[2][3] == 0 && x[3][2] == 720 && x[3][3] == 720, "x3 ewma %u/%u",
	      x[3][2], x[3][3]);

	/* a single-leaf model is a constant predictor */
	m->version = DC_RF_VERSION;
	m->n_trees = 1;
	m->ewma_period_ns = 50000;
	m->n_nodes[0] = 1;
	m->node[0][0].flags = DC_RF_NODE_LEAF;
	dc_sim_cfg_defaults(&c);
	dc_sim_workload_defaults(&w);
	w.slots = 20000;
	dc_sim_generate(&c, &w, &arr, &na, &serr);
	c.alg = DC_ALG_CREDENCE;
	c.predictor = DC_SIM_PRED_ACCEPT;
	dc_sim_run(&c, arr, na, w.slots, &r1, &serr);
	c.predictor = DC_SIM_PRED_FOREST;
	c.model = m;
	m->node[0][0].value = 0;
	dc_sim_run(&c, arr, na, w.slots, &r2, &serr);
	CHECK("forest predictor: a P = 0 leaf acts as 'accept'",
	      r1.sent_pkts == r2.sent_pkts && r2.pred_asked > 0 && r2.pred_tp + r2.pred_fp == 0,
	      "accept %llu forest %llu", (unsigned long long)r1.sent_pkts,
	      (unsigned long long)r2.sent_pkts);
	m->node[0][0].value = (__u32)DC_Q16_ONE;
	dc_sim_run(&c, arr, na, w.slots, &r2, &serr);
	c.predictor = DC_SIM_PRED_DROP;
	c.model = NULL;
	dc_sim_run(&c, arr, na, w.slots, &r1, &serr);
	CHECK("forest predictor: a P = 1 leaf acts as 'drop' (and is scored against LQD)",
	      r1.sent_pkts == r2.sent_pkts && r2.pred_tp + r2.pred_fp == r2.pred_asked &&
	      r2.pred_asked > 0, "drop %llu forest %llu", (unsigned long long)r1.sent_pkts,
	      (unsigned long long)r2.sent_pkts);
	/* exactly one half is not "above one half": accept */
	m->node[0][0].value = (__u32)DC_Q16_ONE / 2;
	c.predictor = DC_SIM_PRED_FOREST;
	c.model = m;
	dc_sim_run(&c, arr, na, w.slots, &r2, &serr);
	CHECK_EQ("forest predictor: P = 0.5 exactly predicts accept (tie → accept)",
		 r2.pred_tp + r2.pred_fp, 0);
	m->n_nodes[0] = 0;
	CHECK("forest predictor: an invalid model is refused by the simulator",
	      dc_sim_run(&c, arr, na, w.slots, &r2, &serr) == EXIT_USAGE &&
	      strstr(serr.msg, "needs a valid model"), "%s", serr.msg);
	free(arr);
	free(m);
}

/* `dcbpf credence train` through the dispatcher, as dcbpf runs it. */
static const struct dc_cmd train_cmds[] = {
	{ "train", dc_cred_train_cmd, dc_cred_train_opts, sizeof(struct dc_cred_train_args),
	  .summary = "train a forest" },
	{ NULL },
};
static const struct dc_app train_app = { .name = "dcbpf", .cmds = train_cmds };
/* dcbpf train ARGS... (NULL-terminated), output in cli_out, cli_err. */
static int train_cli(const char *first, ...)
{
	va_list ap;
	int rc;

	va_start(ap, first);
	rc = cli_run_va(&train_app, "train", first, ap);
	va_end(ap);
	return rc;
}

static bool same_file(const char *a, const char *b)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "cmp -s %s %s", a, b);
	return system(cmd) == 0;
}

static void test_train_cli(void)
{
	char p1[256], p2[256], p3[256], p4[256], p5[256], tr[256];
	struct dc_rf_model *m = malloc(sizeof(*m));
	struct dc_sim_workload w;
	struct dc_sim_arrival *arr = NULL;
	struct dc_sim_cfg c;
	size_t na = 0;
	char why[512];
	int rc;

	snprintf(p1, sizeof(p1), "%s/t1", tmpdir);
	snprintf(p2, sizeof(p2), "%s/t2", tmpdir);
	snprintf(p3, sizeof(p3), "%s/t3", tmpdir);
	snprintf(p4, sizeof(p4), "%s/t4", tmpdir);
	snprintf(p5, sizeof(p5), "%s/t5", tmpdir);
	snprintf(tr, sizeof(tr), "%s/trace.csv", tmpdir);
	CHECK_EQ("credence train: seed 3 trains and writes",
		 train_cli("--slots", "20000", "--seed", "3", "--out", p1, NULL), 0);
	CHECK("credence train: the report names the file", strstr(cli_out, "written: ") != NULL,
	      "%s", cli_out);
	CHECK_EQ("credence train: seed 3 again, --json",
		 train_cli("--slots", "20000", "--seed", "3", "--out", p2, "--json", NULL), 0);
	CHECK("credence train: --json is one object with the scores",
	      !strncmp(cli_out, "{\"model\":", 9) && strstr(cli_out, "\"holdout_scores\":{\"tp\":") &&
	      strstr(cli_out, "\"seed\":3,") && cli_out[strlen(cli_out) - 2] == '}', "%s", cli_out);
	CHECK_EQ("credence train: seed 4",
		 train_cli("--slots", "20000", "--seed", "4", "--out", p3, NULL), 0);
	CHECK("credence train: the same seed writes the same file", same_file(p1, p2), "%s", "differ");
	CHECK("credence train: another seed writes another model", !same_file(p1, p3), "%s", "same");
	/* --seed seeds the workload unless --workload-seed is given */
	CHECK_EQ("credence train: --workload-seed equal to --seed",
		 train_cli("--slots", "20000", "--seed", "3", "--workload-seed", "3", "--out", p4, NULL),
		 0);
	CHECK("credence train: --workload-seed 3 with --seed 3 is the default workload",
	      same_file(p1, p4), "%s", "differ");
	CHECK_EQ("credence train: --workload-seed 4",
		 train_cli("--slots", "20000", "--seed", "3", "--workload-seed", "4", "--out", p5, NULL),
		 0);
	CHECK("credence train: another --workload-seed trains on another workload",
	      !same_file(p1, p5), "%s", "same");
	CHECK("credence train: the written model passes the parser",
	      dc_forest_read(p1, m, why, sizeof(why)) == 0 && m->n_trees == 4 && m->depth == 4 &&
	      m->ewma_period_ns == 50000, "%s", why);

	rc = train_cli("--trees", "17", "--out", p3, NULL);
	CHECK("credence train: --trees 17 is a usage error naming the limit",
	      rc == EXIT_USAGE && strstr(cli_err, "--trees: 17 is above the maximum 16"), "%d %s", rc,
	      cli_err);
	rc = train_cli("--slots", "100", NULL);
	CHECK("credence train: no --out is a usage error",
	      rc == EXIT_USAGE && strstr(cli_err, "--out MODEL is required"), "%d %s", rc, cli_err);
	rc = train_cli("--slots", "1000", "--state", "lqd", "--samples", "consulted", "--out", p3,
		       NULL);
	CHECK("credence train: --state lqd --samples consulted is a usage error",
	      rc == EXIT_USAGE && strstr(cli_err, "consults no predictor"), "%d %s", rc, cli_err);
	rc = train_cli("--load", "nan", "--out", p3, NULL);
	CHECK("credence train: --load nan refused", rc == EXIT_USAGE && strstr(cli_err, "--load"),
	      "%d %s", rc, cli_err);
	rc = train_cli("--load", "", "--out", p3, NULL);
	CHECK("credence train: --load \"\" refused", rc == EXIT_USAGE && strstr(cli_err, "--load"),
	      "%d %s", rc, cli_err);

	/* a trace: the workload options are refused, --seed is not */
	dc_sim_cfg_defaults(&c);
	dc_sim_workload_defaults(&w);
	w.slots = 20000;
	if (dc_sim_generate(&c, &w, &arr, &na, &serr) || dc_sim_write_trace(tr, arr, na, &serr))
		printf("# trace: %s\n", serr.msg);
	free(arr);
	rc = train_cli("--trace", tr, "--slots", "100", "--out", p3, NULL);
	CHECK("credence train: --slots with --trace refused, naming it",
	      rc == EXIT_USAGE && strstr(cli_err, "--slots has no effect with --trace"), "%d %s", rc,
	      cli_err);
	rc = train_cli("--trace", tr, "--workload-seed", "2", "--out", p3, NULL);
	CHECK("credence train: --workload-seed with --trace refused",
	      rc == EXIT_USAGE && strstr(cli_err, "--workload-seed has no effect with --trace"),
	      "%d %s", rc, cli_err);
	rc = train_cli("--trace", tr, "--seed", "5", "--out", p3, NULL);
	CHECK("credence train: --seed with --trace trains (it seeds the bootstraps)",
	      rc == 0 && strstr(cli_out, tr), "%d %s", rc, cli_err);
	free(m);
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(tmpdir)) {
		printf("FAIL: forest: cannot create a temporary directory\n");
		return 1;
	}
	test_parse();
	test_files();
	test_train();
	test_scores();
	test_sim_features();
	test_train_cli();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		printf("# could not remove %s\n", tmpdir);
	return check_failed;
}
