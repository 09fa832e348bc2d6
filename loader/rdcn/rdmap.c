// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The schedule writer's store over the pinned maps of maps/rdcn.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "cli.h"
#include "rdcn/rdcn.h"

struct rd_fds {
	int cfg, sched, flip;
};

static int rd_get_flip(void *ctx, __u64 *word)
{
	struct rd_fds *f = ctx;
	struct dc_rd_flip v;
	__u32 k = 0;

	if (bpf_map_lookup_elem(f->flip, &k, &v))
		return -errno;
	*word = v.buf_at_ns;
	return 0;
}

static int rd_put_flip(void *ctx, __u64 word)
{
	struct rd_fds *f = ctx;
	struct dc_rd_flip v = { .buf_at_ns = word };
	__u32 k = 0;

	/* an 8-byte array value: one aligned store in the kernel's copy */
	return bpf_map_update_elem(f->flip, &k, &v, BPF_ANY) ? -errno : 0;
}

static int rd_get_cfg(void *ctx, __u32 buf, struct dc_rd_cfg *c)
{
	struct rd_fds *f = ctx;

	return bpf_map_lookup_elem(f->cfg, &buf, c) ? -errno : 0;
}

static int rd_put_cfg(void *ctx, __u32 buf, const struct dc_rd_cfg *c)
{
	struct rd_fds *f = ctx;

	return bpf_map_update_elem(f->cfg, &buf, c, BPF_ANY) ? -errno : 0;
}

static int rd_put_slot(void *ctx, __u32 key, const struct dc_rd_slot *s)
{
	struct rd_fds *f = ctx;

	return bpf_map_update_elem(f->sched, &key, s, BPF_ANY) ? -errno : 0;
}

int dc_rd_store_bpf_open(struct dc_rd_store *st, const char *pin_dir, struct dc_err *err)
{
	static const char *const names[3] = { "dc_rd_cfg", "dc_rd_sched", "dc_rd_flip" };
	struct rd_fds *f = calloc(1, sizeof(*f));
	int *fd[3], i;
	char path[PATH_MAX];

	if (!f)
		return dc_err_set(err, EXIT_ERR, "out of memory");
	fd[0] = &f->cfg;
	fd[1] = &f->sched;
	fd[2] = &f->flip;
	for (i = 0; i < 3; i++)
		*fd[i] = -1;
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", pin_dir, names[i]);
		*fd[i] = bpf_obj_get(path);
		if (*fd[i] < 0) {
			int e = errno;

			while (i--)
				close(*fd[i]);
			free(f);
			return dc_err_set(err, EXIT_ERR, "%s: %s (is the fabric up?)", path, strerror(e));
		}
	}
	*st = (struct dc_rd_store){ f, rd_get_flip, rd_put_flip, rd_get_cfg, rd_put_cfg, rd_put_slot };
	return 0;
}

void dc_rd_store_bpf_close(struct dc_rd_store *st)
{
	struct rd_fds *f = st->ctx;

	if (!f)
		return;
	close(f->cfg);
	close(f->sched);
	close(f->flip);
	free(f);
	st->ctx = NULL;
}
