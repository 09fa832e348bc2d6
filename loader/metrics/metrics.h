/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The pinned counters in the Prometheus text exposition format
 * (`dcbpf metrics`, the daemon's metrics_file).  Metric names and labels:
 * docs/operations.md.  Nothing here prints: reasons come back in a
 * struct dc_err.
 */
#ifndef DCBPF_LOADER_METRICS_H
#define DCBPF_LOADER_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include "err.h"

/*
 * One snapshot of everything pinned under pin_dir, rendered into a
 * malloc'd buffer (*buf, *len).  dcbpf_daemon_up reads daemon_up.
 * 0 or a negative errno; maps that exist but cannot be read still give a
 * snapshot (counted in dcbpf_metrics_errors) and a reason in warn
 * (code EXIT_OK), which is empty otherwise.
 */
int dc_metrics_render(const char *pin_dir, bool daemon_up, char **buf, size_t *len,
		      struct dc_err *warn);

/*
 * Render and write to path atomically (path.tmp, fsync, rename).  0 or a
 * negative errno with the reason in err; on success err may carry a
 * warning (code EXIT_OK) from the snapshot.
 */
int dc_metrics_write(const char *pin_dir, bool daemon_up, const char *path, struct dc_err *err);

#endif
