// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf credence …`: train, check and show Credence's drop-predictor
 * models (docs/credence.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "credence.h"
#include "forest.h"

static void cred_usage(FILE *f)
{
	fprintf(f,
		"usage: dcbpf credence train [OPTIONS] --out MODEL   train a forest (train --help)\n"
		"       dcbpf credence check MODEL                    validate a model file\n"
		"       dcbpf credence show MODEL                     print its trees\n"
		"Exit: 0 ok (check: the model is valid), 1 the file is unreadable or invalid,\n"
		"2 usage error.\n");
}

/* Read a model or say why not, naming the file and line. */
static struct dc_rf_model *read_model(const char *cmd, const char *path)
{
	struct dc_rf_model *m = malloc(sizeof(*m));
	char why[512];

	if (!m) {
		fprintf(stderr, "dcbpf credence %s: out of memory\n", cmd);
		return NULL;
	}
	if (dc_forest_read(path, m, why, sizeof(why))) {
		fprintf(stderr, "dcbpf credence %s: %s\n", cmd, why);
		free(m);
		return NULL;
	}
	return m;
}

static int cmd_check(int argc, char **argv)
{
	struct dc_rf_model *m;
	__u32 t, nodes = 0, leaves = 0, i;

	if (argc != 2) {
		fprintf(stderr, "dcbpf credence check: takes one model file\n");
		return EXIT_USAGE;
	}
	m = read_model("check", argv[1]);
	if (!m)
		return EXIT_ERR;
	for (t = 0; t < m->n_trees; t++) {
		nodes += m->n_nodes[t];
		for (i = 0; i < m->n_nodes[t]; i++)
			leaves += m->node[t][i].flags & DC_RF_NODE_LEAF ? 1 : 0;
	}
	printf("%s: valid model version %u: %u trees, depth %u, %u nodes (%u leaves), EWMA period %u ns\n",
	       argv[1], m->version, m->n_trees, m->depth, nodes, leaves, m->ewma_period_ns);
	free(m);
	return EXIT_OK;
}

static int cmd_show(int argc, char **argv)
{
	struct dc_rf_model *m;

	if (argc != 2) {
		fprintf(stderr, "dcbpf credence show: takes one model file\n");
		return EXIT_USAGE;
	}
	m = read_model("show", argv[1]);
	if (!m)
		return EXIT_ERR;
	dc_forest_show(stdout, m);
	free(m);
	return EXIT_OK;
}

int dc_cred_main(const char *pin_dir, int argc, char **argv)
{
	(void)pin_dir;	/* the model files need no pinned state */
	if (argc < 2) {
		cred_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "train"))
		return dc_credence_train_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "check"))
		return cmd_check(argc - 1, argv + 1);
	if (!strcmp(argv[1], "show"))
		return cmd_show(argc - 1, argv + 1);
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help")) {
		cred_usage(stdout);
		return EXIT_OK;
	}
	fprintf(stderr, "dcbpf credence: unknown subcommand '%s'\n", argv[1]);
	cred_usage(stderr);
	return EXIT_USAGE;
}
