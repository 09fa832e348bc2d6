/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the running kernel offers dcbpf: detected from the kernel's BTF
 * (types and enumerators that appeared with each feature) and a few
 * filesystem checks, never from the version number, so distribution
 * backports are seen as they are.  `dcbpf status` prints the result;
 * docs/compat.md holds the same table per kernel, and tests/loader/compat.sh
 * checks that the two agree on the running kernel.
 */
#ifndef DCBPF_LOADER_FEATURES_H
#define DCBPF_LOADER_FEATURES_H

#include <stdbool.h>
#include <stdio.h>

#include "json.h"

#define DC_FEAT_MAX 64

struct dc_feature_result {
	const char *key;	/* "tcx", "helper:bpf_loop", ... (docs/compat.md keys) */
	const char *since;	/* first mainline release that has it */
	const char *without;	/* what dcbpf does without it (docs/compat.md) */
	bool present;
};

struct dc_features {
	char kernel[65];	/* uname -r */
	unsigned int n;
	struct dc_feature_result item[DC_FEAT_MAX];
};

/* Probe everything; never fails (an unreadable BTF reads as "absent"). */
void dc_features_detect(struct dc_features *f);
/* Result for one key; false for unknown keys. */
bool dc_feature_present(const struct dc_features *f, const char *key);
/* `dcbpf status` text: one line per feature, helpers summarised. */
void dc_features_print(const struct dc_features *f, FILE *out);
/* `dcbpf --json status`: "features": { "kernel": ..., KEY: {present, since} } */
void dc_features_json(const struct dc_features *f, struct jw *j);

#endif
