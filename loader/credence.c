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

#include "bpfsys.h"
#include "cli.h"
#include "credence.h"
#include "forest.h"
#include "swctl.h"

static void cred_usage(FILE *f)
{
	fprintf(f,
		"usage: dcbpf credence train [OPTIONS] --out MODEL   train a forest (train --help)\n"
		"       dcbpf credence check MODEL                    validate a model file\n"
		"       dcbpf credence show MODEL                     print its trees\n"
		"       dcbpf credence load MODEL --switch NAME       make it switch NAME's live model\n"
		"       dcbpf credence status --switch NAME [--show]  the switch's live model\n"
		"Exit: 0 ok (check: the model is valid), 1 the file is unreadable or invalid, or\n"
		"the switch is not up (a refused model leaves the running one in place),\n"
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

/* "--switch NAME" (or "--switch=NAME") among argv[1..]; the other
 * arguments are returned in rest[]. */
static int switch_arg(const char *cmd, int argc, char **argv, const char **sw, char **rest,
		      int *nrest)
{
	int i;

	*sw = NULL;
	*nrest = 0;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--switch") && i + 1 < argc)
			*sw = argv[++i];
		else if (!strncmp(argv[i], "--switch=", 9))
			*sw = argv[i] + 9;
		else
			rest[(*nrest)++] = argv[i];
	}
	if (!*sw) {
		fprintf(stderr, "dcbpf credence %s: --switch NAME is required\n", cmd);
		return -1;
	}
	return 0;
}

static int model_exit(int err)
{
	/* a bad switch name is the caller's mistake; anything else is the
	 * system's state (switch not up, map refused) */
	return err == -EINVAL ? EXIT_USAGE : EXIT_ERR;
}

static int cmd_load(const char *pin_dir, int argc, char **argv)
{
	struct dc_rf_model *m;
	char *rest[8], why[512];
	const char *sw;
	int nrest, err;

	if (argc > 6 || switch_arg("load", argc, argv, &sw, rest, &nrest) || nrest != 1) {
		fprintf(stderr, "dcbpf credence load: usage: dcbpf credence load MODEL --switch NAME\n");
		return EXIT_USAGE;
	}
	m = read_model("load", rest[0]);
	if (!m) {
		fprintf(stderr, "dcbpf credence load: switch '%s' keeps its running model\n", sw);
		return EXIT_ERR;
	}
	if (dc_require_root("dcbpf credence load", pin_dir)) {
		free(m);
		return EXIT_ERR;
	}
	err = dc_sw_model_load(pin_dir, sw, m, why, sizeof(why));
	free(m);
	if (err) {
		fprintf(stderr, "dcbpf credence load: %s\n", why);
		return model_exit(err);
	}
	printf("switch %s: %s (from %s)\n", sw, why, rest[0]);
	return EXIT_OK;
}

static int cmd_status(const char *pin_dir, int argc, char **argv)
{
	struct dc_rf_model *m;
	char *rest[8], why[512];
	const char *sw;
	bool loaded, show = false;
	__u32 t, nodes = 0;
	int nrest, err, i;

	if (argc > 6 || switch_arg("status", argc, argv, &sw, rest, &nrest))
		return EXIT_USAGE;
	for (i = 0; i < nrest; i++) {
		if (strcmp(rest[i], "--show")) {
			fprintf(stderr, "dcbpf credence status: unexpected argument '%s'\n", rest[i]);
			return EXIT_USAGE;
		}
		show = true;
	}
	if (dc_require_root("dcbpf credence status", pin_dir))
		return EXIT_ERR;
	m = malloc(sizeof(*m));
	if (!m)
		return EXIT_ERR;
	err = dc_sw_model_get(pin_dir, sw, m, &loaded, why, sizeof(why));
	if (err) {
		fprintf(stderr, "dcbpf credence status: %s\n", why);
		free(m);
		return model_exit(err);
	}
	if (!loaded) {
		printf("switch %s: no model loaded (Credence admits where it would ask)\n", sw);
	} else {
		for (t = 0; t < m->n_trees && t < DC_RF_TREES_MAX; t++)
			nodes += m->n_nodes[t];
		printf("switch %s: model version %u: %u trees, depth %u, %u nodes, EWMA period %u ns\n",
		       sw, m->version, m->n_trees, m->depth, nodes, m->ewma_period_ns);
		if (show)
			dc_forest_show(stdout, m);
	}
	free(m);
	return EXIT_OK;
}

int dc_cred_main(const char *pin_dir, int argc, char **argv)
{
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
	if (!strcmp(argv[1], "load"))
		return cmd_load(pin_dir, argc - 1, argv + 1);
	if (!strcmp(argv[1], "status"))
		return cmd_status(pin_dir, argc - 1, argv + 1);
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help")) {
		cred_usage(stdout);
		return EXIT_OK;
	}
	fprintf(stderr, "dcbpf credence: unknown subcommand '%s'\n", argv[1]);
	cred_usage(stderr);
	return EXIT_USAGE;
}
