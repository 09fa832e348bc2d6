// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf credence …`: train, check and show Credence's drop-predictor
 * models, load one into a switch's dc_sw_model map and show the live one
 * (docs/credence.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "credence/credence.h"
#include "credence/forest.h"
#include "sw/swctl.h"

struct model_args {
	const char *model;
	const char *sw;
	bool show;
};

#define A struct model_args
static const struct dc_opt model_opts[] = {
	{ "MODEL", 0, DC_OPT_PATH, DC_FIELD(A, model), "MODEL", .help = "a model file", .required = true,
	  .flags = DC_OPT_F_POS },
	{ NULL },
};

static const struct dc_opt load_opts[] = {
	{ "MODEL", 0, DC_OPT_PATH, DC_FIELD(A, model), "MODEL", .help = "a model file", .required = true,
	  .flags = DC_OPT_F_POS },
	{ "switch", 0, DC_OPT_STR, DC_FIELD(A, sw), "NAME", .help = "the switch (dcbpf switch up)",
	  .required = true },
	{ NULL },
};

static const struct dc_opt status_opts[] = {
	{ "switch", 0, DC_OPT_STR, DC_FIELD(A, sw), "NAME", .help = "the switch (dcbpf switch up)",
	  .required = true },
	{ "show", 0, DC_OPT_FLAG, DC_FIELD(A, show), .help = "print the live model's trees" },
	{ NULL },
};
#undef A

/* Read a model or say why not, naming the file and line.  NULL with
 * ctx->err set. */
static struct dc_rf_model *read_model(struct dc_ctx *ctx, const char *path)
{
	struct dc_rf_model *m = malloc(sizeof(*m));
	char why[DC_ERR_MSG_LEN];

	if (!m) {
		dc_fail(ctx, EXIT_ERR, "out of memory");
		return NULL;
	}
	if (dc_forest_read(path, m, why, sizeof(why))) {
		dc_fail(ctx, EXIT_ERR, "%s", why);
		free(m);
		return NULL;
	}
	return m;
}

static __u32 model_nodes(const struct dc_rf_model *m, __u32 *leaves)
{
	__u32 t, i, nodes = 0;

	if (leaves)
		*leaves = 0;
	for (t = 0; t < m->n_trees && t < DC_RF_TREES_MAX; t++) {
		nodes += m->n_nodes[t];
		for (i = 0; leaves && i < m->n_nodes[t] && i < DC_RF_NODES_MAX; i++)
			*leaves += m->node[t][i].flags & DC_RF_NODE_LEAF ? 1 : 0;
	}
	return nodes;
}

/* The model's header fields and its trees (when trees) as JSON members. */
static void model_json(struct jw *j, const struct dc_rf_model *m, bool trees)
{
	__u32 t, i, leaves, nodes = model_nodes(m, &leaves);

	jw_u64(j, "version", m->version);
	jw_u64(j, "trees", m->n_trees);
	jw_u64(j, "depth", m->depth);
	jw_u64(j, "nodes", nodes);
	jw_u64(j, "leaves", leaves);
	jw_u64(j, "ewma_period_ns", m->ewma_period_ns);
	if (!trees)
		return;
	jw_arr(j, "forest");
	for (t = 0; t < m->n_trees; t++) {
		jw_arr(j, NULL);
		for (i = 0; i < m->n_nodes[t]; i++) {
			const struct dc_rf_node *n = &m->node[t][i];

			jw_obj(j, NULL);
			if (n->flags & DC_RF_NODE_LEAF) {
				jw_u64(j, "leaf_q16", n->value);
			} else {
				jw_str(j, "feature", dc_rf_feature_name(n->feature));
				jw_u64(j, "threshold", n->value);
				jw_u64(j, "left", n->left);
				jw_u64(j, "right", n->right);
			}
			jw_end_obj(j);
		}
		jw_end_arr(j);
	}
	jw_end_arr(j);
}

static int cmd_check(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct model_args *o = ctx->opts;
	struct dc_rf_model *m = read_model(ctx, o->model);
	__u32 nodes, leaves;

	(void)argc;
	(void)argv;
	if (!m)
		return EXIT_ERR;
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_str(&ctx->jw, "model", o->model);
		jw_bool(&ctx->jw, "valid", true);
		model_json(&ctx->jw, m, false);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		nodes = model_nodes(m, &leaves);
		fprintf(ctx->out, "%s: valid model version %u: %u trees, depth %u, %u nodes (%u leaves), EWMA period %u ns\n",
			o->model, m->version, m->n_trees, m->depth, nodes, leaves, m->ewma_period_ns);
	}
	free(m);
	return EXIT_OK;
}

static int cmd_show(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct model_args *o = ctx->opts;
	struct dc_rf_model *m = read_model(ctx, o->model);

	(void)argc;
	(void)argv;
	if (!m)
		return EXIT_ERR;
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_str(&ctx->jw, "model", o->model);
		model_json(&ctx->jw, m, true);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		dc_forest_show(ctx->out, m);
	}
	free(m);
	return EXIT_OK;
}

static int need_root(struct dc_ctx *ctx)
{
	if (geteuid() == 0)
		return 0;
	return dc_fail(ctx, EXIT_ERR, "must be root: pinned maps under %s are root-only (run it with sudo)",
		       ctx->pin_dir);
}

static int model_exit(int err)
{
	/* a bad switch name is the caller's mistake; anything else is the
	 * system's state (switch not up, map refused) */
	return err == -EINVAL ? EXIT_USAGE : EXIT_ERR;
}

static int cmd_load(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct model_args *o = ctx->opts;
	struct dc_rf_model *m;
	char why[DC_ERR_MSG_LEN];
	int err;

	(void)argc;
	(void)argv;
	m = read_model(ctx, o->model);
	if (!m) {
		snprintf(why, sizeof(why), "%s", ctx->err.msg);
		return dc_fail(ctx, EXIT_ERR, "%s; switch '%s' keeps its running model", why, o->sw);
	}
	if (need_root(ctx)) {
		free(m);
		return EXIT_ERR;
	}
	err = dc_sw_model_load(ctx->pin_dir, o->sw, m, why, sizeof(why));
	free(m);
	if (err)
		return dc_fail(ctx, model_exit(err), "%s", why);
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_str(&ctx->jw, "switch", o->sw);
		jw_str(&ctx->jw, "model", o->model);
		jw_str(&ctx->jw, "result", why);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		fprintf(ctx->out, "switch %s: %s (from %s)\n", o->sw, why, o->model);
	}
	return EXIT_OK;
}

static int cmd_status(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct model_args *o = ctx->opts;
	struct dc_rf_model *m;
	char why[DC_ERR_MSG_LEN];
	bool loaded;
	int err;

	(void)argc;
	(void)argv;
	if (need_root(ctx))
		return EXIT_ERR;
	m = malloc(sizeof(*m));
	if (!m)
		return dc_fail(ctx, EXIT_ERR, "out of memory");
	err = dc_sw_model_get(ctx->pin_dir, o->sw, m, &loaded, why, sizeof(why));
	if (err) {
		free(m);
		return dc_fail(ctx, model_exit(err), "%s", why);
	}
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_str(&ctx->jw, "switch", o->sw);
		jw_bool(&ctx->jw, "loaded", loaded);
		if (loaded)
			model_json(&ctx->jw, m, o->show);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else if (!loaded) {
		fprintf(ctx->out, "switch %s: no model loaded (Credence admits where it would ask)\n",
			o->sw);
	} else {
		fprintf(ctx->out, "switch %s: model version %u: %u trees, depth %u, %u nodes, EWMA period %u ns\n",
			o->sw, m->version, m->n_trees, m->depth, model_nodes(m, NULL),
			m->ewma_period_ns);
		if (o->show)
			dc_forest_show(ctx->out, m);
	}
	free(m);
	return EXIT_OK;
}

const char dc_cred_doc[] =
	"Exit: 0 ok (check: the model is valid), 1 the file is unreadable or invalid, or\n"
	"the switch is not up (a refused model leaves the running one in place),\n"
	"2 usage error.";

const struct dc_cmd dc_cred_cmds[] = {
	{ "train", dc_cred_train_cmd, dc_cred_train_opts, sizeof(struct dc_cred_train_args),
	  .summary = "train a forest on simulated or traced arrivals", .doc = dc_cred_train_doc },
	{ "check", cmd_check, model_opts, sizeof(struct model_args),
	  .summary = "validate a model file",
	  .doc = "Exit 0 if the model is valid, 1 if the file is unreadable or invalid (the\n"
		 "message names the file, the line and the reason)." },
	{ "show", cmd_show, model_opts, sizeof(struct model_args), .summary = "print its trees" },
	{ "load", cmd_load, load_opts, sizeof(struct model_args),
	  .summary = "make it switch NAME's live model",
	  .doc = "Needs root and the switch up. A refused model leaves the running one in place." },
	{ "status", cmd_status, status_opts, sizeof(struct model_args),
	  .summary = "the switch's live model", .doc = "Needs root and the switch up." },
	{ NULL },
};
