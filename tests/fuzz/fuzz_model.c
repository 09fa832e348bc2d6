// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer harness for Credence's model-file parser (loader/credence/forest.c) on
 * arbitrary input.  Built and run by `make fuzz` (and briefly by
 * tests/loader/fuzz_smoke.sh under `make check`).
 *
 * Properties, on every input:
 *   - no crash, leak or undefined behaviour (ASan, UBSan);
 *   - either success (0, the model passes dc_rf_validate, and formatting
 *     it and parsing the text again gives the same model, which the
 *     evaluator walks within bounds), or refusal (-1, a message that
 *     names a line of the input — "line N: …", 1 ≤ N ≤ lines + 1 — or
 *     the size, and the output model untouched).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/credence/forest.h"

static void die(const char *what, const uint8_t *d, size_t n, const char *msg)
{
	fprintf(stderr, "fuzz_model: property violated: %s\n--- input (%zu bytes) ---\n%.*s\n--- message ---\n%s\n",
		what, n, (int)n, (const char *)d, msg ? msg : "");
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static struct dc_rf_model m, m2, fill;
	char why[512] = "";
	unsigned long lines = 0, line;
	size_t i;
	int rc, et, en;

	for (i = 0; i < n; i++)
		lines += d[i] == '\n';
	memset(&m, 0x5a, sizeof(m));
	memcpy(&fill, &m, sizeof(m));
	rc = dc_forest_parse((const char *)d, n, &m, why, sizeof(why));
	if (rc != 0 && rc != -1)
		die("returns 0 or -1", d, n, why);
	if (rc) {
		if (memcmp(&m, &fill, sizeof(m)))
			die("a refused input leaves the model untouched", d, n, why);
		if (!why[0])
			die("a refusal says why", d, n, why);
		if (!strncmp(why, "line ", 5)) {
			line = strtoul(why + 5, NULL, 10);
			if (line < 1 || line > lines + 1)
				die("the message names a line of the input", d, n, why);
		} else if (!strstr(why, "larger than any model") && !strstr(why, "out of memory")) {
			die("a refusal names a line or the size", d, n, why);
		}
		return 0;
	}
	if (dc_rf_validate(&m, &et, &en))
		die("an accepted model is valid", d, n, why);
	{
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		__u32 x[DC_RF_FEATURES];

		if (!f || dc_forest_format(f, &m) || fclose(f))
			die("an accepted model formats", d, n, why);
		memset(&m2, 0, sizeof(m2));
		/* the parser writes only the declared nodes: compare those */
		if (dc_forest_parse(text, len, &m2, why, sizeof(why)))
			die("the formatted text of an accepted model parses", (const uint8_t *)text, len, why);
		if (m2.version != m.version || m2.n_trees != m.n_trees || m2.depth != m.depth ||
		    m2.ewma_period_ns != m.ewma_period_ns ||
		    memcmp(m2.n_nodes, m.n_nodes, sizeof(m.n_nodes)) ||
		    memcmp(m2.node, m.node, sizeof(m.node)))
			die("format → parse is the identity", (const uint8_t *)text, len, why);
		free(text);
		/* walk the model on vectors made of the input's bytes */
		for (i = 0; i < DC_RF_FEATURES; i++)
			x[i] = n > i ? (__u32)d[i] * 16777619U : 0;
		(void)dc_rf_predict_drop(&m, x);
	}
	return 0;
}
