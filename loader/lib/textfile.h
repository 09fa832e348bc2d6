/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Reading a small text input whole (topology, plan and schedule files):
 * one place for the size limit and the checks every parser relies on.
 */
#ifndef DCBPF_LIB_TEXTFILE_H
#define DCBPF_LIB_TEXTFILE_H

#include <stddef.h>

#include "err.h"

/* The file at path, NUL-terminated, in *out (free it); at most max_bytes.
 * Errors: cannot open or read (EXIT_ERR), larger than max_bytes or holding
 * a NUL byte, i.e. not text (EXIT_USAGE); the message names the path. */
int dc_text_read(const char *path, size_t max_bytes, char **out, struct dc_err *err);

#endif
