/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What this build is: the dcbpf release (VERSION in the Makefile), the git
 * description of the tree it was built from, the libbpf it was compiled
 * against and the one it runs with, and the features compiled in.  The
 * Makefile passes the first three as -D options; a compile without them
 * (a fuzzer, a unit test) still builds and reads "unknown".
 *
 * `dcbpf --version`, `dcbpfd --version` and the dcbpf_build_info metric
 * read these, so all three agree.
 */
#ifndef DCBPF_LOADER_VERSION_H
#define DCBPF_LOADER_VERSION_H

#include <stdio.h>

#include <bpf/libbpf_version.h>

struct jw;

#ifndef DCBPF_VERSION
#define DCBPF_VERSION "unknown"
#endif
/* `git describe --always --dirty` at build time; "unknown" outside git */
#ifndef DCBPF_GIT
#define DCBPF_GIT "unknown"
#endif
/* space-separated feature words, see DCBPF_FEATURES in the Makefile */
#ifndef DCBPF_FEATURES
#define DCBPF_FEATURES ""
#endif

#define DC_STR_(x) #x
#define DC_STR(x) DC_STR_(x)
/* libbpf headers this was compiled against, "1.1" */
#define DCBPF_LIBBPF_COMPILED DC_STR(LIBBPF_MAJOR_VERSION) "." DC_STR(LIBBPF_MINOR_VERSION)

/* The values above, as functions (so a caller need not be compiled with
 * the -D options itself). */
const char *dc_version(void);		/* "0.2.0" */
const char *dc_version_git(void);	/* "v0.2.0-3-g3eca406-dirty" or "unknown" */
const char *dc_version_features(void);	/* "cc-abi-6.1 cc-abi-6.10 ..." */
const char *dc_libbpf_compiled(void);	/* "1.1" */
/* libbpf the process runs with (libbpf_major/minor_version()), "1.1" */
const char *dc_libbpf_running(void);

/* The --version text of PROG ("dcbpf", "dcbpfd"): several lines. */
void dc_version_print(FILE *out, const char *prog);
/* The same as one JSON object: {"version", "git", "libbpf": {"running",
 * "compiled"}, "features": [...]}. */
void dc_version_json(struct jw *j);

#endif
