// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* dcbpfd: the CC objects, their registration (struct_ops links or map
 * update), adoption of what an earlier run pinned, and the config map. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfsys.h"
#include "log.h"
#include "ccmap.h"
#include "pins.h"
#include "dcbpfd/dcbpfd.h"

/* ---- registration ---------------------------------------------------- */

void dmn_pin_path(const struct daemon *d, const char *name, char *buf, size_t len)
{
	/* pin_dir is at most DC_PATH_LEN - 1 and buf leaves room for any name */
	dc_pin_path(buf, len, d->cfg.daemon.pin_dir, name);
}

void dmn_unregister_cc(struct daemon *d, const struct dc_cc_reg *cc)
{
	struct cc_reg *r = &d->reg[cc - dc_cc_regs];
	char path[DC_PATH_LEN + 32];
	__u32 zero = 0;

	if (r->link_fd >= 0) {
		/* Detach unregisters now (6.9+); older kernels unregister when
		 * the last reference (pin, fd) goes away just below. */
		if (bpf_link_detach(r->link_fd) && errno != EOPNOTSUPP && errno != EINVAL)
			dc_warn("%s: detaching link failed: %s", cc->name, strerror(errno));
		dmn_pin_path(d, cc->link_pin, path, sizeof(path));
		if (unlink(path) && errno != ENOENT)
			dc_warn("%s: cannot unpin %s: %s", cc->name, path, strerror(errno));
		close(r->link_fd);
		r->link_fd = -1;
	}
	if (r->map_fd >= 0) {
		if (bpf_map_delete_elem(r->map_fd, &zero) && errno != ENOENT)
			dc_warn("%s: unregistering (struct_ops map delete) failed: %s", cc->name,
				strerror(errno));
		dmn_pin_path(d, cc->ops_map, path, sizeof(path));
		if (unlink(path) && errno != ENOENT)
			dc_warn("%s: cannot unpin %s: %s", cc->name, path, strerror(errno));
		close(r->map_fd);
		r->map_fd = -1;
	}
	r->adopted = r->registered = false;
	dc_info("%s: unregistered%s", cc->name,
		dc_cc_available(cc->name) ? " (still listed: another holder keeps it alive)" : "");
}

/*
 * Adopt a registration a previous dcbpfd left pinned: a struct_ops link
 * (link_<cc>) or a registered struct_ops map (<ops_map>, 6.1 path).  A pin
 * whose registration is gone is stale and removed.
 */
int dmn_adopt_cc(struct daemon *d, const struct dc_cc_reg *cc)
{
	struct cc_reg *r = &d->reg[cc - dc_cc_regs];
	char path[DC_PATH_LEN + 32], name[BPF_OBJ_NAME_LEN];
	__u32 link_id, map_id;
	int fd, mfd, err, state;

	dmn_pin_path(d, cc->link_pin, path, sizeof(path));
	if (dc_exists(path)) {
		fd = bpf_obj_get(path);
		if (fd < 0) {
			dc_err("%s: cannot open pinned link %s: %s; remove it if it is stale",
			       cc->name, path, strerror(errno));
			return -1;
		}
		err = dc_link_struct_ops(fd, &link_id, &map_id);
		if (err == -EPROTOTYPE) {
			dc_err("%s: %s is not a struct_ops link; remove it", cc->name, path);
			close(fd);
			return -1;
		}
		name[0] = '\0';
		if (!err && map_id) {
			mfd = bpf_map_get_fd_by_id(map_id);
			if (mfd >= 0) {
				dc_map_name(mfd, name, sizeof(name), NULL, NULL);
				close(mfd);
			}
		}
		if (!err && map_id && !strcmp(name, cc->ops_map) && dc_cc_available(cc->name)) {
			r->link_fd = fd;
			r->adopted = true;
			dc_info("%s: adopted pinned link %s (link id %u, struct_ops map id %u)",
				cc->name, path, link_id, map_id);
			return 0;
		}
		dc_warn("%s: pinned link %s is stale (detached or not ours); unpinning it",
			cc->name, path);
		unlink(path);
		close(fd);
	}
	dmn_pin_path(d, cc->ops_map, path, sizeof(path));
	if (dc_exists(path)) {
		fd = bpf_obj_get(path);
		if (fd < 0) {
			dc_err("%s: cannot open pinned struct_ops map %s: %s; remove it if it is stale",
			       cc->name, path, strerror(errno));
			return -1;
		}
		state = dc_struct_ops_state(fd);
		if (state == DC_STRUCT_OPS_STATE_INUSE && dc_cc_available(cc->name)) {
			r->map_fd = fd;
			r->adopted = true;
			dc_info("%s: adopted pinned struct_ops map %s (registered by map update)",
				cc->name, path);
			return 0;
		}
		dc_warn("%s: pinned struct_ops map %s is not registered; unpinning it",
			cc->name, path);
		unlink(path);
		close(fd);
	}
	return 0;
}

bool dmn_cc_wanted(const struct daemon *d, const struct dc_cc_reg *cc)
{
	const struct dc_param *p;

	if (!cc->daemon_switch)
		return true;
	p = dc_param_find(DC_SCOPE_DAEMON, cc->daemon_switch);
	return p && dc_param_raw(p, &d->cfg.daemon);
}

int dmn_register_cc(struct daemon *d, const struct dc_cc_reg *cc)
{
	struct cc_reg *r = &d->reg[cc - dc_cc_regs];
	char path[DC_PATH_LEN + 32];
	struct bpf_link *l;
	struct bpf_map *map;
	int fd, err;

	map = bpf_object__find_map_by_name(d->obj[cc->obj], cc->ops_map);
	/*
	 * Stores the programs into the struct_ops map.  With BPF_F_LINK this
	 * only validates and readies the value; without it, it registers.
	 * Either way the returned libbpf link must not detach it later.
	 */
	l = bpf_map__attach_struct_ops(map);
	if (!l) {
		err = -errno;
		if (err == -EEXIST)
			goto exists;
		dc_err("%s: updating struct_ops map %s failed: %s", cc->name, cc->ops_map,
		       strerror(-err));
		return EXIT_RUNTIME;
	}
	bpf_link__disconnect(l);
	bpf_link__destroy(l);

	if (d->use_links) {
		fd = bpf_link_create(bpf_map__fd(map), 0,
				     (enum bpf_attach_type)DC_BPF_STRUCT_OPS_ATTACH, NULL);
		if (fd < 0) {
			err = -errno;
			if (err == -EEXIST)
				goto exists;
			dc_err("%s: creating the struct_ops link for %s failed: %s", cc->name,
			       cc->ops_map, strerror(-err));
			return EXIT_RUNTIME;
		}
		r->link_fd = fd;
		r->registered = true;
		dmn_pin_path(d, cc->link_pin, path, sizeof(path));
	} else {
		fd = dup(bpf_map__fd(map));
		if (fd < 0) {
			dc_err("%s: dup: %s", cc->name, strerror(errno));
			return EXIT_RUNTIME;
		}
		r->map_fd = fd;
		r->registered = true;
		/* pinned so a restart can adopt it and a stop can unregister it */
		dmn_pin_path(d, cc->ops_map, path, sizeof(path));
	}
	if (bpf_obj_pin(fd, path)) {
		dc_err("%s: pinning %s failed: %s", cc->name, path, strerror(errno));
		return EXIT_RUNTIME;
	}
	dc_info("%s: registered (%s, pinned %s)", cc->name,
		d->use_links ? "struct_ops link" : "struct_ops map update", path);
	return EXIT_OK;
exists:
	dc_err("%s: the congestion control name is already registered by someone else: "
	       "find it with `bpftool struct_ops show` and unregister it (or stop the other dcbpfd)",
	       cc->name);
	return EXIT_CONFLICT;
}

/* ---- object ------------------------------------------------------------ */

/* Load object `oi` of dc_cc_objects in the variant for this kernel. */
int dmn_load_object(struct daemon *d, unsigned int oi)
{
	const struct dc_obj_variant *v = dc_cc_object_variant(&dc_cc_objects[oi], d->nargs);
	bool existed[MAX_OBJ_PINS] = { false };
	struct dc_errbuf notes = { .len = 0 };
	struct bpf_object *obj;
	const struct dc_cc_reg *cc;
	struct bpf_map *map;
	const void *bytes;
	unsigned int n;
	size_t sz;
	int err;

	if (!v) {
		dc_err("the kernel's cong_control takes %d parameters; this build has no variant of "
		       "object %s for it (supported: 2 = 6.1-6.9, 4 = 6.10+)", d->nargs,
		       dc_cc_objects[oi].variants[0].name);
		return EXIT_RUNTIME;
	}
	{
		LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = v->name,
			    .pin_root_path = d->cfg.daemon.pin_dir);

		bytes = v->elf_bytes(&sz);
		obj = d->obj[oi] = bpf_object__open_mem(bytes, sz, &oo);
	}
	if (!obj) {
		dc_err("opening embedded object %s failed: %s", v->name, strerror(errno));
		return EXIT_RUNTIME;
	}
	for (cc = dc_cc_regs; cc < dc_cc_regs + dc_ncc_regs; cc++) {
		if (cc->obj != oi)
			continue;
		map = bpf_object__find_map_by_name(obj, cc->ops_map);
		if (!map) {
			dc_err("object %s has no struct_ops map %s", v->name, cc->ops_map);
			return EXIT_RUNTIME;
		}
		if (d->use_links)
			bpf_map__set_map_flags(map, bpf_map__map_flags(map) | DC_BPF_F_LINK);
	}
	n = 0;
	bpf_object__for_each_map(map, obj) {
		const char *p = bpf_map__pin_path(map);

		if (p && n < MAX_OBJ_PINS)
			existed[n++] = dc_exists(p);
	}
	if (dc_obj_size_flow_maps(obj, d->cfg.daemon.flows_max, &notes))
		dmn_log_errbuf_level(&notes, DC_LOG_WARN);
	err = bpf_object__load(obj);
	/* record what this load pinned, even after a partial failure */
	n = 0;
	bpf_object__for_each_map(map, obj) {
		const char *p = bpf_map__pin_path(map);

		if (!p || n >= MAX_OBJ_PINS)
			continue;
		if (!existed[n] && dc_exists(p) && d->nnew_pins < MAX_OBJ_PINS * DC_CC_OBJECTS_MAX)
			d->new_pins[d->nnew_pins++] = strdup(p);
		else if (existed[n])
			dc_info("reusing pinned map %s", p);
		n++;
	}
	if (err) {
		dc_err("loading %s failed: %s; the libbpf messages above name the program or map "
		       "(a pinned map that does not match this build: stop dcbpfd and remove %s; "
		       "verifier log: log_level = debug)",
		       v->name, strerror(-err), d->cfg.daemon.pin_dir);
		return EXIT_RUNTIME;
	}
	dc_info("loaded %s (kernel %s)", v->name, dc_abi_desc(d->nargs));
	return EXIT_OK;
}

/* ---- config map --------------------------------------------------------- */

static void log_cfg_changes(const char *cc, const struct dc_cc_cfg *old,
			    const struct dc_cc_cfg *new, const char *why)
{
	char a[64], b[64];
	unsigned int i;

	for (i = 0; i < dc_nparams; i++) {
		const struct dc_param *p = &dc_params[i];

		if (p->scope != DC_SCOPE_CC || dc_param_raw(p, old) == dc_param_raw(p, new))
			continue;
		dc_param_format(p, old, a, sizeof(a));
		dc_param_format(p, new, b, sizeof(b));
		dc_info("%s.%s: %s -> %s (%s)", cc, p->name, a, b, why);
	}
}

/*
 * One transaction on the config map (ccmap.h, the same as `dcbpf set`):
 * a failed write puts the entries written before it back, so readers never
 * see a half-applied reload.
 */
int dmn_write_cfg(struct daemon *d, const struct dc_cc_cfg *want, const char *why)
{
	const char *names[DC_CC_MAX];
	struct dc_ccmap_result res;
	struct dc_ccmap_io io;
	struct dc_err e = { 0 };
	unsigned int i;
	int err;

	for (i = 0; i < DC_CC_MAX; i++)
		names[i] = dc_ccs[i].name;
	dc_ccmap_fd_io(&io, &d->cfg_fd);
	err = dc_ccmap_commit(&io, want, names, &res, &e);
	if (err) {
		dc_err("map %s: %s", DC_MAP_CFG, e.msg);
		return err;
	}
	for (i = 0; i < DC_CC_MAX; i++)
		if (res.present[i] && (res.written & (1U << i)))
			log_cfg_changes(dc_ccs[i].name, &res.old[i], &want[i], why);
	return 0;
}
