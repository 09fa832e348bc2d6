// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The CC config map transaction (ccmap.h). */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>

#include "ccmap.h"
#include "cli.h"

static int fd_read(void *arg, __u32 key, struct dc_cc_cfg *val)
{
	return bpf_map_lookup_elem(*(int *)arg, &key, val) ? -errno : 0;
}

static int fd_write(void *arg, __u32 key, const struct dc_cc_cfg *val)
{
	return bpf_map_update_elem(*(int *)arg, &key, val, BPF_ANY) ? -errno : 0;
}

static int fd_del(void *arg, __u32 key)
{
	return bpf_map_delete_elem(*(int *)arg, &key) ? -errno : 0;
}

void dc_ccmap_fd_io(struct dc_ccmap_io *io, int *fd)
{
	io->read = fd_read;
	io->write = fd_write;
	io->del = fd_del;
	io->arg = fd;
}

void dc_ccmap_read(const struct dc_ccmap_io *io, struct dc_ccmap_result *res)
{
	__u32 k;

	memset(res, 0, sizeof(*res));
	for (k = 0; k < DC_CC_MAX; k++) {
		res->present[k] = !io->read(io->arg, k, &res->old[k]);
		if (!res->present[k])
			memset(&res->old[k], 0, sizeof(res->old[k]));
	}
}

int dc_ccmap_commit(const struct dc_ccmap_io *io, const struct dc_cc_cfg *want,
		    const char *const *names, struct dc_ccmap_result *res, struct dc_err *err)
{
	int k, j, rc, undo_failed = 0;

	dc_ccmap_read(io, res);
	for (k = 0; k < DC_CC_MAX; k++) {
		if (res->present[k] && !memcmp(&res->old[k], &want[k], sizeof(want[k])))
			continue;
		rc = io->write(io->arg, (__u32)k, &want[k]);
		if (!rc) {
			res->written |= 1U << k;
			continue;
		}
		/* roll back, last written first */
		for (j = k - 1; j >= 0; j--) {
			if (!(res->written & (1U << j)))
				continue;
			if (res->present[j] ? io->write(io->arg, (__u32)j, &res->old[j])
					    : io->del(io->arg, (__u32)j))
				undo_failed++;
			else
				res->written &= ~(1U << j);
		}
		dc_err_set(err, EXIT_ERR, "writing entry %d%s%s%s failed: %s; %s", k,
			   names && names[k] ? " (" : "", names && names[k] ? names[k] : "",
			   names && names[k] ? ")" : "", strerror(rc < 0 ? -rc : rc),
			   undo_failed ? "the entries written before it could not all be put back"
				       : "nothing changed");
		return rc;
	}
	return 0;
}
