/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `dcbpf metrics [--textfile PATH]`: the pinned counters in the Prometheus
 * text exposition format (node_exporter's textfile collector reads PATH).
 * Metric names and labels: docs/operations.md.
 */
#ifndef DCBPF_LOADER_METRICS_H
#define DCBPF_LOADER_METRICS_H

/* argv[0] is "metrics".  Returns a dcbpf exit code. */
int dc_metrics_main(const char *pin_dir, const char *lock_file, int argc, char **argv);

#include <stdbool.h>

/*
 * Write the snapshot to path atomically (path.tmp, fsync, rename).
 * dcbpf_daemon_up is 1 if daemon_up or a process holds lock_file (may be
 * NULL).  0 or a negative errno (the reason is on stderr).
 */
int dc_metrics_write(const char *pin_dir, const char *lock_file, bool daemon_up,
		     const char *path);

#endif
