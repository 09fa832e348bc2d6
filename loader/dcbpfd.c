// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dcbpfd: loads the PowerTCP / θ-PowerTCP congestion controls, pins their
 * maps and registrations under pin_dir, keeps the config map in step with
 * the config file (SIGHUP), and undoes all of it on SIGTERM unless --keep.
 * A restart adopts what a --keep (or a crash) left pinned instead of
 * loading a second copy.  Lifecycle and exit codes: docs/cli.md.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/signalfd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfsys.h"
#include "config.h"
#include "log.h"
#include "object.h"

enum {
	EXIT_OK = 0,
	EXIT_CONFIG = 1,	/* config invalid (also -t) */
	EXIT_USAGE = 2,
	EXIT_RUNTIME = 3,	/* load, pin, register or kernel feature failed */
	EXIT_RUNNING = 4,	/* another dcbpfd holds the lock */
	EXIT_CONFLICT = 5,	/* a CC name is registered by someone else */
};

#define MAX_OBJ_PINS 16

struct cc_reg {
	int link_fd;		/* struct_ops link, or -1 */
	int map_fd;		/* struct_ops map registered by map update, or -1 */
	bool adopted;		/* found pinned and registered at start */
	bool registered;	/* registered by this run */
};

struct daemon {
	const char *conf_path;
	bool conf_explicit;
	bool keep;
	bool no_links;
	struct dc_config cfg;
	int lock_fd;
	bool pin_dir_created;
	int nargs;
	const struct dc_obj_variant *variant;
	bool use_links;
	struct bpf_object *obj;
	int cfg_fd;
	struct cc_reg reg[DC_CC_MAX];
	/* map pins created by this run (undone if the start fails) */
	char *new_pins[MAX_OBJ_PINS];
	unsigned int nnew_pins;
	/* config entries found before this run wrote them (restored on failure) */
	bool prev_valid[DC_CC_MAX];
	struct dc_cc_cfg prev[DC_CC_MAX];
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dcbpfd [-c FILE] [-t] [--keep] [--no-links] [-v]\n"
		"  -c, --config FILE  config file (default %s)\n"
		"  -t, --test         validate the config and exit (0 ok, 1 invalid)\n"
		"  -k, --keep         on SIGTERM/SIGINT leave the CCs registered and pinned\n"
		"      --no-links     register by struct_ops map update even where the\n"
		"                     kernel has struct_ops links (the 6.1 path)\n"
		"  -v, --verbose      log at debug level (overrides log_level)\n"
		"  -h, --help\n"
		"Signals: SIGHUP reloads the config; SIGTERM/SIGINT stop.\n"
		"Exit: 0 ok, 1 bad config, 2 usage, 3 runtime error, 4 already running,\n"
		"      5 CC name registered by someone else.\n",
		DC_CONF_DEFAULT);
}

static void log_errbuf(const struct dc_errbuf *eb)
{
	char copy[sizeof(eb->msg)], *line, *save = NULL;

	memcpy(copy, eb->msg, sizeof(copy));
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		dc_err("%s", line);
}

/*
 * Read the config file.  A missing default file means built-in defaults
 * (so a bare `dcbpfd` works); a missing explicit -c file is an error.
 */
static int read_config(struct daemon *d, struct dc_config *out, struct dc_errbuf *eb)
{
	if (!d->conf_explicit && access(d->conf_path, F_OK) && errno == ENOENT) {
		dc_config_defaults(out);
		return 1;
	}
	return dc_config_load(d->conf_path, out, eb);
}

/* ---- registration ---------------------------------------------------- */

static void pin_path(const struct daemon *d, const char *name, char *buf, size_t len)
{
	dc_path(buf, len, d->cfg.daemon.pin_dir, name);
}

static void unregister_cc(struct daemon *d, const struct dc_cc_desc *cc)
{
	struct cc_reg *r = &d->reg[cc->id];
	char path[DC_PATH_LEN + 32];
	__u32 zero = 0;

	if (r->link_fd >= 0) {
		/* Detach unregisters now (6.9+); older kernels unregister when
		 * the last reference (pin, fd) goes away just below. */
		if (bpf_link_detach(r->link_fd) && errno != EOPNOTSUPP && errno != EINVAL)
			dc_warn("%s: detaching link failed: %s", cc->name, strerror(errno));
		pin_path(d, cc->link_pin, path, sizeof(path));
		if (unlink(path) && errno != ENOENT)
			dc_warn("%s: cannot unpin %s: %s", cc->name, path, strerror(errno));
		close(r->link_fd);
		r->link_fd = -1;
	}
	if (r->map_fd >= 0) {
		if (bpf_map_delete_elem(r->map_fd, &zero) && errno != ENOENT)
			dc_warn("%s: unregistering (struct_ops map delete) failed: %s", cc->name,
				strerror(errno));
		pin_path(d, cc->ops_map, path, sizeof(path));
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
static int adopt_cc(struct daemon *d, const struct dc_cc_desc *cc)
{
	struct cc_reg *r = &d->reg[cc->id];
	char path[DC_PATH_LEN + 32], name[BPF_OBJ_NAME_LEN];
	__u32 link_id, map_id;
	int fd, mfd, err, state;

	pin_path(d, cc->link_pin, path, sizeof(path));
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
	pin_path(d, cc->ops_map, path, sizeof(path));
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

static int register_cc(struct daemon *d, const struct dc_cc_desc *cc)
{
	struct cc_reg *r = &d->reg[cc->id];
	char path[DC_PATH_LEN + 32];
	struct bpf_link *l;
	struct bpf_map *map;
	int fd, err;

	map = bpf_object__find_map_by_name(d->obj, cc->ops_map);
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
		pin_path(d, cc->link_pin, path, sizeof(path));
	} else {
		fd = dup(bpf_map__fd(map));
		if (fd < 0) {
			dc_err("%s: dup: %s", cc->name, strerror(errno));
			return EXIT_RUNTIME;
		}
		r->map_fd = fd;
		r->registered = true;
		/* pinned so a restart can adopt it and a stop can unregister it */
		pin_path(d, cc->ops_map, path, sizeof(path));
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

static int load_object(struct daemon *d)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = d->variant->name,
		    .pin_root_path = d->cfg.daemon.pin_dir);
	bool existed[MAX_OBJ_PINS] = { false };
	const struct dc_cc_desc *cc;
	struct bpf_map *map;
	const void *bytes;
	unsigned int n;
	size_t sz;
	int err;

	bytes = d->variant->elf_bytes(&sz);
	d->obj = bpf_object__open_mem(bytes, sz, &oo);
	if (!d->obj) {
		dc_err("opening embedded object %s failed: %s", d->variant->name, strerror(errno));
		return EXIT_RUNTIME;
	}
	for (cc = dc_ccs; cc < dc_ccs + DC_CC_MAX; cc++) {
		map = bpf_object__find_map_by_name(d->obj, cc->ops_map);
		if (!map) {
			dc_err("object %s has no struct_ops map %s", d->variant->name, cc->ops_map);
			return EXIT_RUNTIME;
		}
		if (d->use_links)
			bpf_map__set_map_flags(map, bpf_map__map_flags(map) | DC_BPF_F_LINK);
	}
	n = 0;
	bpf_object__for_each_map(map, d->obj) {
		const char *p = bpf_map__pin_path(map);

		if (p && n < MAX_OBJ_PINS)
			existed[n++] = dc_exists(p);
	}
	err = bpf_object__load(d->obj);
	/* record what this load pinned, even after a partial failure */
	n = 0;
	bpf_object__for_each_map(map, d->obj) {
		const char *p = bpf_map__pin_path(map);

		if (!p || n >= MAX_OBJ_PINS)
			continue;
		if (!existed[n] && dc_exists(p))
			d->new_pins[d->nnew_pins++] = strdup(p);
		else if (existed[n])
			dc_info("reusing pinned map %s", p);
		n++;
	}
	if (err) {
		dc_err("loading %s failed: %s; the libbpf messages above name the program or map "
		       "(a pinned map that does not match this build: stop dcbpfd and remove %s; "
		       "verifier log: log_level = debug)",
		       d->variant->name, strerror(-err), d->cfg.daemon.pin_dir);
		return EXIT_RUNTIME;
	}
	map = bpf_object__find_map_by_name(d->obj, DC_MAP_CFG);
	if (!map || bpf_map__value_size(map) != sizeof(struct dc_cc_cfg)) {
		dc_err("object %s: map %s missing or its value is not struct dc_cc_cfg (%zu B): "
		       "rebuild objects and tools together", d->variant->name, DC_MAP_CFG,
		       sizeof(struct dc_cc_cfg));
		return EXIT_RUNTIME;
	}
	d->cfg_fd = dup(bpf_map__fd(map));
	dc_info("loaded %s (kernel %s)", d->variant->name, dc_abi_desc(d->nargs));
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
 * Write both entries, each one atomic hash update; if the second fails the
 * first is put back, so readers never see a half-applied reload.
 */
static int write_cfg(struct daemon *d, const struct dc_cc_cfg *want, const char *why)
{
	struct dc_cc_cfg cur[DC_CC_MAX];
	bool have[DC_CC_MAX];
	unsigned int i, j;
	int err;

	for (i = 0; i < DC_CC_MAX; i++)
		have[i] = !dc_cfg_read(d->cfg_fd, (enum dc_cc_id)i, &cur[i]);
	for (i = 0; i < DC_CC_MAX; i++) {
		err = dc_cfg_write(d->cfg_fd, (enum dc_cc_id)i, &want[i]);
		if (err) {
			dc_err("writing the %s entry (key %u) of map %s failed: %s",
			       dc_ccs[i].name, i, DC_MAP_CFG, strerror(-err));
			for (j = 0; j < i; j++)
				if (have[j])
					dc_cfg_write(d->cfg_fd, (enum dc_cc_id)j, &cur[j]);
			return err;
		}
		if (have[i])
			log_cfg_changes(dc_ccs[i].name, &cur[i], &want[i], why);
	}
	return 0;
}

/* ---- lifecycle ---------------------------------------------------------- */

static void list_leftovers(const char *dir)
{
	struct dirent *de;
	DIR *dp = opendir(dir);

	if (!dp)
		return;
	while ((de = readdir(dp)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			dc_warn("left in %s: %s (not dcbpfd's)", dir, de->d_name);
	closedir(dp);
}

static void remove_pin_dir(struct daemon *d)
{
	if (!rmdir(d->cfg.daemon.pin_dir)) {
		dc_info("removed %s", d->cfg.daemon.pin_dir);
		return;
	}
	if (errno == ENOTEMPTY || errno == EEXIST)
		list_leftovers(d->cfg.daemon.pin_dir);
	else if (errno != ENOENT)
		dc_warn("cannot remove %s: %s", d->cfg.daemon.pin_dir, strerror(errno));
}

static void close_all(struct daemon *d)
{
	unsigned int i;

	for (i = 0; i < DC_CC_MAX; i++) {
		if (d->reg[i].link_fd >= 0)
			close(d->reg[i].link_fd);
		if (d->reg[i].map_fd >= 0)
			close(d->reg[i].map_fd);
		d->reg[i].link_fd = d->reg[i].map_fd = -1;
	}
	if (d->cfg_fd >= 0)
		close(d->cfg_fd);
	d->cfg_fd = -1;
	bpf_object__close(d->obj);
	d->obj = NULL;
	for (i = 0; i < d->nnew_pins; i++)
		free(d->new_pins[i]);
	d->nnew_pins = 0;
}

/* A start that failed: undo exactly what this run did. */
static void undo_start(struct daemon *d)
{
	unsigned int i;

	for (i = 0; i < DC_CC_MAX; i++)
		if (d->reg[i].registered)
			unregister_cc(d, &dc_ccs[i]);
	if (d->cfg_fd >= 0)
		for (i = 0; i < DC_CC_MAX; i++)
			if (d->prev_valid[i])
				dc_cfg_write(d->cfg_fd, (enum dc_cc_id)i, &d->prev[i]);
	for (i = 0; i < d->nnew_pins; i++) {
		if (unlink(d->new_pins[i]) && errno != ENOENT)
			dc_warn("cannot unpin %s: %s", d->new_pins[i], strerror(errno));
		else
			dc_dbg("unpinned %s", d->new_pins[i]);
	}
	close_all(d);
	if (d->pin_dir_created && rmdir(d->cfg.daemon.pin_dir) && errno != ENOENT)
		list_leftovers(d->cfg.daemon.pin_dir);
	dc_info("start failed; nothing left registered or pinned by this run");
}

/* A normal stop without --keep: the daemon owns everything it pinned or adopted. */
static void stop_full(struct daemon *d)
{
	char path[DC_PATH_LEN + 32];
	unsigned int i;

	for (i = 0; i < DC_CC_MAX; i++)
		if (d->reg[i].registered || d->reg[i].adopted)
			unregister_cc(d, &dc_ccs[i]);
	for (i = 0; i < dc_npinned_maps; i++) {
		pin_path(d, dc_pinned_maps[i], path, sizeof(path));
		if (!unlink(path))
			dc_dbg("unpinned %s", path);
		else if (errno != ENOENT)
			dc_warn("cannot unpin %s: %s", path, strerror(errno));
	}
	for (i = 0; i < d->nnew_pins; i++)
		unlink(d->new_pins[i]);
	close_all(d);
	remove_pin_dir(d);
}

static int start(struct daemon *d)
{
	const char *pin_dir = d->cfg.daemon.pin_dir;
	bool need_load = false;
	unsigned int i;
	int err, rc;

	err = dc_bpffs_ensure();
	if (err) {
		dc_err("cannot mount bpffs at %s: %s", DC_BPFFS_ROOT, strerror(-err));
		return EXIT_RUNTIME;
	}
	err = dc_pin_dir_prepare(pin_dir, &d->pin_dir_created);
	if (err) {
		dc_err("pin_dir %s: %s", pin_dir,
		       err == -EXDEV ? "not on a bpffs mount (use a path under " DC_BPFFS_ROOT ")" :
				       strerror(-err));
		return EXIT_RUNTIME;
	}
	d->nargs = dc_kernel_cong_control_nargs();
	if (d->nargs < 0) {
		dc_err("cannot read tcp_congestion_ops.cong_control from the kernel's BTF "
		       "(/sys/kernel/btf/vmlinux): %s; a kernel with CONFIG_DEBUG_INFO_BTF is required",
		       strerror(-d->nargs));
		goto fail_runtime;
	}
	d->variant = dc_obj_variant_for(d->nargs);
	if (!d->variant) {
		dc_err("the kernel's cong_control takes %d parameters; this build supports 2 (6.1-6.9) "
		       "and 4 (6.10+)", d->nargs);
		goto fail_runtime;
	}
	d->use_links = !d->no_links && dc_kernel_has_struct_ops_link();
	dc_info("kernel %s; registration by %s", dc_abi_desc(d->nargs),
		d->use_links ? "struct_ops links" :
		d->no_links ? "struct_ops map update (--no-links)" :
			      "struct_ops map update (kernel has no struct_ops links)");

	for (i = 0; i < DC_CC_MAX; i++) {
		if (adopt_cc(d, &dc_ccs[i]))
			goto fail_runtime;
		if (d->reg[i].adopted)
			continue;
		need_load = true;
		if (dc_cc_available(dc_ccs[i].name)) {
			dc_err("%s: the congestion control name is already registered by someone else "
			       "(no dcbpfd registration is pinned under %s): find it with "
			       "`bpftool struct_ops show` and unregister it, or start dcbpfd with the "
			       "pin_dir of the instance that registered it", dc_ccs[i].name, pin_dir);
			rc = EXIT_CONFLICT;
			goto fail;
		}
	}

	if (need_load) {
		rc = load_object(d);
		if (rc)
			goto fail;
	} else {
		char why[512];

		d->cfg_fd = dc_pinned_map_open(pin_dir, DC_MAP_CFG, BPF_MAP_TYPE_HASH, sizeof(__u32),
					       sizeof(struct dc_cc_cfg), why, sizeof(why));
		if (d->cfg_fd < 0) {
			dc_err("adopted registrations but cannot reach their config: %s", why);
			goto fail_runtime;
		}
		dc_info("adopted pinned state under %s; nothing loaded", pin_dir);
	}

	/* config before registration: no socket ever runs on defaults */
	for (i = 0; i < DC_CC_MAX; i++)
		d->prev_valid[i] = !dc_cfg_read(d->cfg_fd, (enum dc_cc_id)i, &d->prev[i]);
	if (write_cfg(d, d->cfg.cc, "config file"))
		goto fail_runtime;

	for (i = 0; i < DC_CC_MAX; i++) {
		if (d->reg[i].adopted)
			continue;
		rc = register_cc(d, &dc_ccs[i]);
		if (rc)
			goto fail;
	}
	return EXIT_OK;

fail_runtime:
	rc = EXIT_RUNTIME;
fail:
	undo_start(d);
	return rc;
}

static void reload(struct daemon *d)
{
	struct dc_errbuf eb = { .len = 0 };
	struct dc_config nc;
	int r;

	dc_info("SIGHUP: reloading %s", d->conf_path);
	r = read_config(d, &nc, &eb);
	if (r < 0) {
		log_errbuf(&eb);
		dc_warn("reload: %s is invalid (%u error(s)); keeping the running configuration",
			d->conf_path, eb.count);
		return;
	}
	if (strcmp(nc.daemon.pin_dir, d->cfg.daemon.pin_dir)) {
		dc_warn("reload: pin_dir %s -> %s needs a restart; keeping %s",
			d->cfg.daemon.pin_dir, nc.daemon.pin_dir, d->cfg.daemon.pin_dir);
		memcpy(nc.daemon.pin_dir, d->cfg.daemon.pin_dir, sizeof(nc.daemon.pin_dir));
	}
	if (strcmp(nc.daemon.lock_file, d->cfg.daemon.lock_file)) {
		dc_warn("reload: lock_file %s -> %s needs a restart; keeping %s",
			d->cfg.daemon.lock_file, nc.daemon.lock_file, d->cfg.daemon.lock_file);
		memcpy(nc.daemon.lock_file, d->cfg.daemon.lock_file, sizeof(nc.daemon.lock_file));
	}
	if (nc.daemon.log_level != d->cfg.daemon.log_level && dc_log_get_level() == d->cfg.daemon.log_level)
		dc_log_set_level(nc.daemon.log_level);
	if (write_cfg(d, nc.cc, "reload")) {
		dc_warn("reload: config map not updated; keeping the running configuration");
		return;
	}
	d->cfg = nc;
	dc_info("reload done");
}

static int run(struct daemon *d)
{
	struct signalfd_siginfo si;
	sigset_t set;
	int sfd;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0) {
		dc_err("signalfd: %s", strerror(errno));
		return -1;
	}
	for (;;) {
		ssize_t n = read(sfd, &si, sizeof(si));

		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(si)) {
			dc_err("reading signals: %s", n < 0 ? strerror(errno) : "short read");
			break;
		}
		if (si.ssi_signo == SIGHUP) {
			reload(d);
			continue;
		}
		dc_info("%s: stopping", strsignal((int)si.ssi_signo));
		break;
	}
	close(sfd);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "test", no_argument, NULL, 't' },
		{ "keep", no_argument, NULL, 'k' },
		{ "no-links", no_argument, NULL, 'L' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct daemon d = { .conf_path = DC_CONF_DEFAULT, .lock_fd = -1, .cfg_fd = -1 };
	struct dc_errbuf eb = { .len = 0 };
	bool test = false, verbose = false;
	sigset_t set;
	pid_t holder;
	int c, r, rc;
	unsigned int i;

	for (i = 0; i < DC_CC_MAX; i++)
		d.reg[i].link_fd = d.reg[i].map_fd = -1;
	while ((c = getopt_long(argc, argv, "c:tkvh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			d.conf_path = optarg;
			d.conf_explicit = true;
			break;
		case 't':
			test = true;
			break;
		case 'k':
			d.keep = true;
			break;
		case 'L':
			d.no_links = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "dcbpfd: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}

	/* Signals wait in the signalfd from the start: a SIGTERM during
	 * loading stops cleanly after the start instead of mid-way. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);

	dc_log_init("dcbpfd", DC_LOG_INFO);
	r = read_config(&d, &d.cfg, &eb);
	if (r < 0) {
		log_errbuf(&eb);
		dc_err("%s: %u error(s); nothing applied", d.conf_path, eb.count);
		return EXIT_CONFIG;
	}
	if (test) {
		printf("%s: ok%s\n", d.conf_path, r > 0 ? " (absent: built-in defaults)" : "");
		return EXIT_OK;
	}
	if (r > 0)
		dc_warn("no config file at %s; using built-in defaults", d.conf_path);
	dc_log_set_level(verbose ? DC_LOG_DEBUG : d.cfg.daemon.log_level);
	if (dc_require_root("dcbpfd", d.cfg.daemon.pin_dir))
		return EXIT_RUNTIME;

	r = dc_lock_take(d.cfg.daemon.lock_file, &d.lock_fd, &holder);
	if (r == -EBUSY) {
		dc_err("another dcbpfd is running (pid %d holds %s); stop it first", (int)holder,
		       d.cfg.daemon.lock_file);
		return EXIT_RUNNING;
	}
	if (r) {
		dc_err("cannot lock %s: %s", d.cfg.daemon.lock_file, strerror(-r));
		return EXIT_RUNTIME;
	}

	rc = start(&d);
	if (rc == EXIT_OK) {
		dc_info("ready: %s and %s registered, pins under %s (pid %d)", dc_ccs[0].name,
			dc_ccs[1].name, d.cfg.daemon.pin_dir, (int)getpid());
		if (run(&d))
			rc = EXIT_RUNTIME;
		if (d.keep) {
			close_all(&d);
			dc_info("--keep: leaving the CCs registered and pinned under %s; a restart adopts them",
				d.cfg.daemon.pin_dir);
		} else {
			stop_full(&d);
		}
	}
	unlink(d.cfg.daemon.lock_file);
	close(d.lock_fd);
	return rc;
}
