/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Credence's random forest in user space: the model file (read, validate,
 * write) and the CART trainer behind `dcbpf credence train`.  The model
 * layout and its evaluator are include/dcbpf/forest.h, shared with XDP.
 */
#ifndef DCBPF_LOADER_FOREST_H
#define DCBPF_LOADER_FOREST_H

#include <stddef.h>
#include <dcbpf/forest.h>

/* Parse a model file held in memory; the whole model is validated
 * (dc_rf_validate) before it is returned.  0 on success; otherwise -1 and
 * `why` names the line and the reason.  *m is only written on success. */
int dc_forest_parse(const char *buf, size_t len, struct dc_rf_model *m, char *why, size_t whylen);

/* Read and parse a model file (size-limited). Same contract. */
int dc_forest_read(const char *path, struct dc_rf_model *m, char *why, size_t whylen);

/* Write a valid model atomically (temporary file + rename).  0 or -errno. */
int dc_forest_write(const char *path, const struct dc_rf_model *m);

/* `dcbpf credence train …` (argv[0] = "train"). Returns a cli.h exit code. */
int dc_credence_train_main(int argc, char **argv);

#endif
