// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One emulated switch's pinned state under <pin_dir>/sw/<name>/: opening
 * its maps, reading and publishing its configuration (two slots and a
 * flip), publishing a Credence model the same way, per-CPU counter sums,
 * the list of switches, and removing a switch's pins.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach.h"
#include "counters.h"
#include "pins.h"
#include "sw/swint.h"

int sw_dir(const char *pin_dir, const char *name, char *buf, size_t len)
{
	return dc_pin_dir(buf, len, pin_dir, DC_PIN_SW, name);
}

void sw_close(struct sw *s)
{
	int *fds[] = { &s->cfg, &s->meta, &s->port, &s->state, &s->ifport, &s->cnt };
	unsigned int i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

int sw_open(const char *pin_dir, const char *name, struct sw *s, struct dc_err *err)
{
	char why[192];

	memset(s, 0, sizeof(*s));
	s->cfg = s->meta = s->port = s->state = s->ifport = s->cnt = -1;
	if (!sw_valid_name(name))
		return dc_err_set(err, EXIT_ERR, "'%s' is not a switch name (" SW_NAME_RULE ")", name);
	snprintf(s->name, sizeof(s->name), "%s", name);
	if (sw_dir(pin_dir, name, s->dir, sizeof(s->dir)))
		return dc_err_set(err, EXIT_ERR, "switch %s: the pin directory under %s is too long",
				  name, pin_dir);
	if (!dc_exists(s->dir))
		return dc_err_set(err, EXIT_ERR,
				  "switch '%s' is not up (no %s); start it with 'dcbpf switch up %s ...'",
				  name, s->dir, name);
#define OPEN(fd, m, t, k, v)                                                             \
	do {                                                                             \
		fd = dc_pinned_map_open(s->dir, m, t, k, v, why, sizeof(why));           \
		if (fd < 0) {                                                            \
			sw_close(s);                                                     \
			return dc_err_set(err, EXIT_ERR, "switch %s: %s", name, why);    \
		}                                                                        \
	} while (0)
	OPEN(s->cfg, M_CFG, BPF_MAP_TYPE_ARRAY, 4, sizeof(struct dc_sw_cfg));
	OPEN(s->meta, M_META, BPF_MAP_TYPE_ARRAY, 4, sizeof(struct dc_sw_meta));
	OPEN(s->port, M_PORT, BPF_MAP_TYPE_ARRAY, 4, sizeof(struct dc_sw_port));
	OPEN(s->state, M_STATE, BPF_MAP_TYPE_ARRAY, 4, sizeof(struct dc_sw_state));
	OPEN(s->ifport, M_IFPORT, BPF_MAP_TYPE_HASH, 4, 4);
	OPEN(s->cnt, M_CNT, BPF_MAP_TYPE_PERCPU_ARRAY, 4, sizeof(struct dc_sw_counters));
#undef OPEN
	return 0;
}

int sw_read_cfg(struct sw *s, struct dc_sw_meta *meta, struct dc_sw_cfg *cfg)
{
	__u32 zero = 0, slot;

	if (bpf_map_lookup_elem(s->meta, &zero, meta))
		return -errno;
	slot = meta->cfg_slot & 1;
	if (bpf_map_lookup_elem(s->cfg, &slot, cfg))
		return -errno;
	return 0;
}

/*
 * Publish a configuration: write the idle slot whole, then point
 * cfg_slot at it.  A reader holds either the old or the new slot.
 */
/*
 * dc_sw_meta is read, changed and written back whole by two writers
 * (configuration and model); an exclusive flock on the switch's pin
 * directory keeps one from undoing the other's flip.  -1 if it cannot be
 * taken (the write then goes ahead unserialised, as before).
 */
int sw_lock(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0 && flock(fd, LOCK_EX)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

void sw_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

int sw_write_cfg(struct sw *s, const struct dc_sw_cfg *cfg)
{
	struct dc_sw_meta meta;
	__u32 zero = 0, idle;
	int lk = sw_lock(s->dir), err = 0;

	if (bpf_map_lookup_elem(s->meta, &zero, &meta)) {
		err = -errno;
		goto out;
	}
	idle = (meta.cfg_slot & 1) ^ 1;
	if (bpf_map_update_elem(s->cfg, &idle, cfg, BPF_ANY)) {
		err = -errno;
		goto out;
	}
	meta.cfg_slot = idle;
	if (bpf_map_update_elem(s->meta, &zero, &meta, BPF_ANY))
		err = -errno;
out:
	sw_unlock(lk);
	return err;
}

/* ---- Credence model ------------------------------------------------------------ */

/*
 * After a flip, packets that read the old model_slot may still be walking
 * the old slot; the next load overwrites that slot.  An XDP run lasts
 * microseconds and cannot sleep, so a pause far above that before the
 * loader returns keeps two loads from overlapping one packet.
 */
#define DC_SW_MODEL_GRACE_NS (2 * 1000 * 1000)

static int sw_model_open(const char *pin_dir, const char *sw, char *dir, size_t dirlen, int *meta,
			 int *model, char *why, size_t whylen)
{
	int err;

	*meta = *model = -1;
	if (!sw_valid_name(sw)) {
		snprintf(why, whylen, "'%s' is not a switch name (" SW_NAME_RULE ")", sw);
		return -EINVAL;
	}
	if (sw_dir(pin_dir, sw, dir, dirlen)) {
		snprintf(why, whylen, "switch %s: the pin directory under %s is too long", sw, pin_dir);
		return -ENAMETOOLONG;
	}
	if (!dc_exists(dir)) {
		snprintf(why, whylen, "switch '%s' is not up (no %s)", sw, dir);
		return -ENOENT;
	}
	err = dc_pinned_map_open(dir, M_META, BPF_MAP_TYPE_ARRAY, 4, sizeof(struct dc_sw_meta), why,
				 whylen);
	if (err < 0)
		return err;
	*meta = err;
	err = dc_pinned_map_open(dir, M_MODEL, BPF_MAP_TYPE_ARRAY, 4, sizeof(struct dc_rf_model), why,
				 whylen);
	if (err < 0) {
		close(*meta);
		*meta = -1;
		return err;
	}
	*model = err;
	return 0;
}

int dc_sw_model_load(const char *pin_dir, const char *sw, const struct dc_rf_model *m, char *why,
		     size_t whylen)
{
	char dir[DC_PATH_LEN + 64];
	struct dc_sw_meta meta;
	struct timespec grace = { 0, DC_SW_MODEL_GRACE_NS };
	__u32 zero = 0, idle;
	int meta_fd, model_fd, lk, err, tree, node;

	err = dc_rf_validate(m, &tree, &node);
	if (err) {
		if (tree < 0)
			snprintf(why, whylen, "model refused: %s", dc_rf_strerror(err));
		else if (node < 0)
			snprintf(why, whylen, "model refused: tree %d: %s", tree, dc_rf_strerror(err));
		else
			snprintf(why, whylen, "model refused: tree %d node %d: %s", tree, node,
				 dc_rf_strerror(err));
		return -EINVAL;
	}
	err = sw_model_open(pin_dir, sw, dir, sizeof(dir), &meta_fd, &model_fd, why, whylen);
	if (err)
		return err;
	lk = sw_lock(dir);
	if (bpf_map_lookup_elem(meta_fd, &zero, &meta)) {
		err = -errno;
		snprintf(why, whylen, "reading %s/%s: %s", dir, M_META, strerror(errno));
		goto out;
	}
	idle = meta.model_loads ? (meta.model_slot & 1) ^ 1 : 0;
	if (bpf_map_update_elem(model_fd, &idle, m, BPF_ANY)) {
		err = -errno;
		snprintf(why, whylen, "writing %s/%s slot %u: %s; the running model stays", dir,
			 M_MODEL, idle, strerror(errno));
		goto out;
	}
	meta.model_slot = idle;
	meta.model_loads++;
	if (bpf_map_update_elem(meta_fd, &zero, &meta, BPF_ANY)) {
		err = -errno;
		snprintf(why, whylen, "publishing the model in %s/%s: %s; the running model stays", dir,
			 M_META, strerror(errno));
		goto out;
	}
	nanosleep(&grace, NULL);
	snprintf(why, whylen, "model loaded into slot %u: %u trees, depth %u", idle, m->n_trees,
		 m->depth);
out:
	sw_unlock(lk);
	close(meta_fd);
	close(model_fd);
	return err;
}

int dc_sw_model_get(const char *pin_dir, const char *sw, struct dc_rf_model *m, bool *loaded,
		    char *why, size_t whylen)
{
	char dir[DC_PATH_LEN + 64];
	struct dc_sw_meta meta;
	__u32 zero = 0, slot;
	int meta_fd, model_fd, err;

	memset(m, 0, sizeof(*m));
	*loaded = false;
	err = sw_model_open(pin_dir, sw, dir, sizeof(dir), &meta_fd, &model_fd, why, whylen);
	if (err)
		return err;
	if (bpf_map_lookup_elem(meta_fd, &zero, &meta)) {
		err = -errno;
		snprintf(why, whylen, "reading %s/%s: %s", dir, M_META, strerror(errno));
	} else if (meta.model_loads) {
		slot = meta.model_slot & 1;
		if (bpf_map_lookup_elem(model_fd, &slot, m)) {
			err = -errno;
			snprintf(why, whylen, "reading %s/%s: %s", dir, M_MODEL, strerror(errno));
		} else {
			*loaded = true;
		}
	}
	close(meta_fd);
	close(model_fd);
	return err;
}

/* ---- counters, the list of switches, removal ------------------------------------- */

int sw_sum_counters(int fd, __u32 key, struct dc_sw_counters *out)
{
	return dc_ctr_read(&dc_ctr_sw, fd, key, true, out);
}

int sw_list(const char *pin_dir, char names[][DC_SW_NAME_LEN], int max)
{
	char root[DC_PATH_LEN + 8];
	struct dirent *de;
	DIR *d;
	int n = 0;

	if (dc_pin_dir(root, sizeof(root), pin_dir, DC_PIN_SW_BASE, NULL))
		return 0;
	d = opendir(root);
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max)
		if (de->d_name[0] != '.' && sw_valid_name(de->d_name))
			snprintf(names[n++], DC_SW_NAME_LEN, "%.15s", de->d_name);
	closedir(d);
	return n;
}

/* Remove every pin of a switch (links detached first) and its directory. */
void sw_remove_dir(const char *pin_dir, const char *dir)
{
	char path[DC_PATH_LEN + 160];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (d) {
		/* links first, so no program runs against half-removed maps */
		while ((de = readdir(d)))
			if (!strncmp(de->d_name, "link_", 5)) {
				snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
				dc_detach_pinned(path);
			}
		rewinddir(d);
		while ((de = readdir(d)))
			if (de->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
				unlink(path);
			}
		closedir(d);
	}
	rmdir(dir);
	if (!dc_pin_dir(path, sizeof(path), pin_dir, DC_PIN_SW_BASE, NULL))
		rmdir(path);	/* only if no other switch is left */
}

__u64 sw_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

