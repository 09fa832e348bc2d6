/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Running an iproute2 tool (tc, ip) in a network namespace and keeping what
 * it printed, for the commands that build qdiscs and classes around their
 * programs (cosy attach, sw up --queues).
 */
#ifndef DCBPF_LOADER_RUN_H
#define DCBPF_LOADER_RUN_H

#include <stddef.h>

/*
 * prog (looked up in PATH) as "prog [-n NETNS] ARGS...", args NULL-ended,
 * netns NULL or "" for ours; its stdout and stderr into out (always
 * terminated; trailing blanks and newlines cut on failure).  0 when it
 * exited 0; -ENOENT when it could not be run (exit 127: not installed);
 * -E2BIG for too many args; another negative errno when pipe or fork failed
 * (out then says which); -1 when it failed (out holds its message).
 */
int dc_run_ns(const char *prog, const char *netns, char *const *args, char *out, size_t outlen);

#endif
