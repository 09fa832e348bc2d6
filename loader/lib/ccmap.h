/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one transaction on the CC config map (dc_cc_cfg, one entry per
 * enum dc_cc_id): `dcbpf set` and the daemon's start and reload both
 * commit through dc_ccmap_commit.
 *
 * Each entry is one hash update, which the kernel swaps whole, so a reader
 * sees an entry's old or new value, never a mix.  Across entries: entries
 * are written in key order, unchanged ones skipped; if one write fails, the
 * entries already written get their old value back (or are deleted if they
 * were absent), last first, so a failed commit leaves the map as it was.
 *
 * The map is reached through struct dc_ccmap_io, so the transaction runs
 * against a fake map in the unit tests; dc_ccmap_fd_io is the real one.
 */
#ifndef DCBPF_LIB_CCMAP_H
#define DCBPF_LIB_CCMAP_H

#include <stdbool.h>
#include "dcbpf/types.h"
#include "err.h"

struct dc_ccmap_io {
	/* 0, or -errno (-ENOENT: no entry) */
	int (*read)(void *arg, __u32 key, struct dc_cc_cfg *val);
	int (*write)(void *arg, __u32 key, const struct dc_cc_cfg *val);
	int (*del)(void *arg, __u32 key);
	void *arg;
};

/* io on a map fd; arg points at the int fd, which must outlive io. */
void dc_ccmap_fd_io(struct dc_ccmap_io *io, int *fd);

/* What a commit found and did, for the caller to report. */
struct dc_ccmap_result {
	struct dc_cc_cfg old[DC_CC_MAX];	/* the entries before */
	bool present[DC_CC_MAX];		/* old[k] was there */
	unsigned int written;			/* bit k: entry k was written */
};

/* Read every entry into res->old / res->present (absent ones zeroed). */
void dc_ccmap_read(const struct dc_ccmap_io *io, struct dc_ccmap_result *res);
/*
 * Make the map hold want[0..DC_CC_MAX).  0, or the -errno of the failed
 * write with err (EXIT_ERR) naming the entry ("entry 1 (theta_powertcp):
 * ...") and whether the roll-back succeeded; names[k] names entry k (NULL:
 * the key number only).
 */
int dc_ccmap_commit(const struct dc_ccmap_io *io, const struct dc_cc_cfg *want,
		    const char *const *names, struct dc_ccmap_result *res, struct dc_err *err);

#endif
