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
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfsys.h"
#include "config.h"
#include "log.h"
#include "attach.h"
#include "inthost.h"
#include "metrics.h"
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
#define MAX_IFACES 256

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
	bool use_links;
	struct bpf_object *obj[DC_CC_OBJECTS_MAX];	/* indexed like dc_cc_objects */
	int cfg_fd;
	struct cc_reg reg[DC_CC_REGS_MAX];		/* indexed like dc_cc_regs */
	/* map pins created by this run (undone if the start fails) */
	char *new_pins[MAX_OBJ_PINS * DC_CC_OBJECTS_MAX];
	unsigned int nnew_pins;
	/* config entries found before this run wrote them (restored on failure) */
	bool prev_valid[DC_CC_MAX];
	struct dc_cc_cfg prev[DC_CC_MAX];
	/* [int]: interfaces that carry the host programs because the config
	 * names them (attached or adopted by this run); only these are taken
	 * off when the config stops naming them */
	char owned[MAX_IFACES][IF_NAMESIZE];
	int nowned;
	int nl_fd;		/* RTNLGRP_LINK of the [int] namespace, or -1 */
	int timer_fd;		/* metrics_file period, or -1 */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dcbpfd [-c FILE] [-t] [--keep] [--no-links] [-v]\n"
		"  -c, --config FILE  config file (default %s)\n"
		"  -t, --test         validate the config and exit (0 ok, 1 invalid)\n"
		"  -k, --keep         on SIGTERM/SIGINT leave the CCs registered and pinned\n"
		"      --no-links     register by struct_ops map update and attach the INT\n"
		"                     programs by netlink even where the kernel has links\n"
		"                     (the 6.1 path)\n"
		"  -v, --verbose      log at debug level (overrides log_level)\n"
		"  -h, --help\n"
		"Signals: SIGHUP reloads the config; SIGTERM/SIGINT stop.\n"
		"Exit: 0 ok, 1 bad config, 2 usage, 3 runtime error, 4 already running,\n"
		"      5 CC name registered by someone else.\n",
		DC_CONF_DEFAULT);
}

static void log_errbuf_level(const struct dc_errbuf *eb, __u32 level)
{
	char copy[sizeof(eb->msg)], *line, *save = NULL;

	memcpy(copy, eb->msg, sizeof(copy));
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		dc_log(level, "%s", line);
}

static void log_errbuf(const struct dc_errbuf *eb)
{
	log_errbuf_level(eb, DC_LOG_ERROR);
}

/*
 * Read the config file.  A missing default file means built-in defaults
 * (so a bare `dcbpfd` works); a missing explicit -c file is an error.
 */
static int read_config(struct daemon *d, struct dc_config *out, struct dc_errbuf *eb)
{
	return dc_config_read(d->conf_path, d->conf_explicit, out, eb);
}

/* ---- registration ---------------------------------------------------- */

static void pin_path(const struct daemon *d, const char *name, char *buf, size_t len)
{
	dc_path(buf, len, d->cfg.daemon.pin_dir, name);
}

static void unregister_cc(struct daemon *d, const struct dc_cc_reg *cc)
{
	struct cc_reg *r = &d->reg[cc - dc_cc_regs];
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
static int adopt_cc(struct daemon *d, const struct dc_cc_reg *cc)
{
	struct cc_reg *r = &d->reg[cc - dc_cc_regs];
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

static int register_cc(struct daemon *d, const struct dc_cc_reg *cc)
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

/* Load object `oi` of dc_cc_objects in the variant for this kernel. */
static int load_object(struct daemon *d, unsigned int oi)
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
		log_errbuf_level(&notes, DC_LOG_WARN);
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

/* ---- [int]: host INT programs on the configured interfaces ------------- */

static const char *int_ns(const struct dc_config *c)
{
	return c->intf.netns[0] ? c->intf.netns : NULL;
}

static int owned_find(const struct daemon *d, const char *ifname)
{
	int i;

	for (i = 0; i < d->nowned; i++)
		if (!strcmp(d->owned[i], ifname))
			return i;
	return -1;
}

static void owned_add(struct daemon *d, const char *ifname)
{
	if (owned_find(d, ifname) < 0 && d->nowned < MAX_IFACES)
		snprintf(d->owned[d->nowned++], IF_NAMESIZE, "%s", ifname);
}

static void owned_del(struct daemon *d, int i)
{
	memcpy(d->owned[i], d->owned[--d->nowned], IF_NAMESIZE);
}

static __u32 find_ifindex(const struct if_nameindex *ifs, const char *name)
{
	for (; ifs && ifs->if_index; ifs++)
		if (!strcmp(ifs->if_name, name))
			return ifs->if_index;
	return 0;
}

/* The interfaces of a namespace; NULL with *why if it cannot be entered. */
static struct if_nameindex *list_ifaces(const char *netns, char *why, size_t whylen)
{
	struct if_nameindex *ifs;
	int saved;

	if (dc_netns_enter(netns, &saved, why, whylen))
		return NULL;
	ifs = if_nameindex();
	if (!ifs)
		snprintf(why, whylen, "cannot list the interfaces of namespace %s: %s",
			 netns ? netns : "(own)", strerror(errno));
	dc_netns_leave(saved);
	return ifs;
}

/*
 * Bring the attachments of the [int] namespace in line with `interfaces`:
 * forget links of devices that are gone, take the programs off interfaces
 * the config named before and no longer does, attach them where a matching
 * interface has none.  Attachments that are already there are left alone
 * (adopted), so live programs are never detached and attached again.
 */
static void int_reconcile(struct daemon *d, const char *why_now)
{
	const char *netns = int_ns(&d->cfg), *globs = d->cfg.intf.interfaces;
	char names[MAX_IFACES][16], why[512];
	struct dc_int_host *host = NULL;
	struct if_nameindex *ifs, *it;
	__u32 ids[2];
	int i, n;

	ifs = list_ifaces(netns, why, sizeof(why));
	if (!ifs) {
		dc_err("[int] %s", why);
		return;
	}
	n = dc_int_host_pinned(d->cfg.daemon.pin_dir, netns, names, MAX_IFACES);
	for (i = 0; i < n; i++) {
		__u32 idx = find_ifindex(ifs, names[i]);

		if (idx && dc_int_host_state(d->cfg.daemon.pin_dir, netns, names[i], idx, ids))
			continue;
		/* the device went away (its links went with it), or the name now
		 * belongs to a new device: drop the pins */
		dc_int_host_detach(d->cfg.daemon.pin_dir, netns, names[i]);
		dc_info("%s: %s; forgot its INT links (%s)", names[i],
			idx ? "the pinned links belong to an earlier device of that name" :
			      "interface gone", why_now);
	}
	for (i = d->nowned - 1; i >= 0; i--) {
		if (!find_ifindex(ifs, d->owned[i])) {
			owned_del(d, i);
		} else if (!dc_iface_matches(globs, d->owned[i])) {
			dc_int_host_detach(d->cfg.daemon.pin_dir, netns, d->owned[i]);
			dc_info("%s: no longer in [int] interfaces; INT programs detached (%s)",
				d->owned[i], why_now);
			owned_del(d, i);
		}
	}
	for (it = ifs; it->if_index; it++) {
		if (!dc_iface_matches(globs, it->if_name))
			continue;
		n = dc_int_host_state(d->cfg.daemon.pin_dir, netns, it->if_name, it->if_index, ids);
		if (n == 2) {
			if (owned_find(d, it->if_name) < 0)
				dc_info("%s: INT programs already attached (egress %u, ingress %u); adopted",
					it->if_name, ids[0], ids[1]);
			owned_add(d, it->if_name);
			continue;
		}
		if (n == 1) /* half attached (an interrupted attach): start over */
			dc_int_host_detach(d->cfg.daemon.pin_dir, netns, it->if_name);
		if (!host) {
			host = dc_int_host_open(d->cfg.daemon.pin_dir, d->cfg.daemon.flows_max, why,
						sizeof(why));
			if (!host) {
				dc_err("[int] %s", why);
				break;
			}
		}
		if (dc_int_host_attach(host, netns, it->if_name, d->no_links, why, sizeof(why))) {
			dc_err("%s: %s; retried at the next reload or link change", it->if_name, why);
			continue;
		}
		dc_int_host_state(d->cfg.daemon.pin_dir, netns, it->if_name, it->if_index, ids);
		dc_info("%s: INT programs attached (egress %u, ingress %u; %s)", it->if_name, ids[0],
			ids[1], why_now);
		owned_add(d, it->if_name);
	}
	dc_int_host_close(host);
	if_freenameindex(ifs);
}

/*
 * Destination prefixes: the entries the old config set and the new one
 * does not are deleted, the new ones written; prefixes added at run time
 * with `dcbpf int dst add` are left alone.
 */
static void int_destinations(struct daemon *d, const char *old, const char *new)
{
	char path[DC_PATH_LEN + 32], tok[64], why[256];
	struct dc_int_dst_key k;
	struct dc_int_dst_cfg v = { 0 };
	const char *p;
	int fd;

	if (!*old && !*new)
		return;
	dc_path(path, sizeof(path), d->cfg.daemon.pin_dir, "dc_int_dst");
	fd = bpf_obj_get(path);
	if (fd < 0 && *new) {
		/* nothing attached yet: loading the host object pins its maps */
		struct dc_int_host *h = dc_int_host_open(d->cfg.daemon.pin_dir,
							 d->cfg.daemon.flows_max, why, sizeof(why));

		dc_int_host_close(h);
		fd = bpf_obj_get(path);
	}
	if (fd < 0) {
		if (*new)
			dc_err("[int] destinations: %s not pinned: %s", path, strerror(errno));
		return;
	}
	for (p = old; dc_list_next(&p, tok, sizeof(tok));) {
		char t2[64];
		const char *q = new;
		bool keep = false;

		while (dc_list_next(&q, t2, sizeof(t2)))
			keep |= !strcmp(t2, tok);
		if (!keep && !dc_prefix_parse(tok, &k.addr, &k.prefixlen, &v.slots, why, sizeof(why)) &&
		    !bpf_map_delete_elem(fd, &k))
			dc_info("[int] destination %s removed", tok);
	}
	for (p = new; dc_list_next(&p, tok, sizeof(tok));) {
		if (dc_prefix_parse(tok, &k.addr, &k.prefixlen, &v.slots, why, sizeof(why)))
			continue; /* validated with the config */
		v.flags = 0;
		if (bpf_map_update_elem(fd, &k, &v, BPF_ANY))
			dc_err("[int] destination %s: %s", tok, strerror(errno));
		else
			dc_dbg("[int] destination %s (%u slots)", tok, v.slots);
	}
	close(fd);
}

/* Netlink socket for link changes, opened inside the [int] namespace. */
static int nl_open(const char *netns)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK };
	char why[256];
	int saved, fd;

	if (dc_netns_enter(netns, &saved, why, sizeof(why))) {
		dc_err("[int] %s", why);
		return -1;
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		dc_err("[int] netlink socket for link changes: %s; interfaces that appear later "
		       "are attached at the next reload", strerror(errno));
	dc_netns_leave(saved);
	return fd;
}

static void int_setup(struct daemon *d)
{
	if (d->nl_fd >= 0)
		close(d->nl_fd);
	d->nl_fd = d->cfg.intf.interfaces[0] ? nl_open(int_ns(&d->cfg)) : -1;
}

/* Any link added, renamed or removed: reconcile (cheap when nothing changed). */
static void on_netlink(struct daemon *d)
{
	char buf[16384];
	bool changed = false;
	ssize_t n;

	while ((n = recv(d->nl_fd, buf, sizeof(buf), 0)) > 0 || (n < 0 && errno == ENOBUFS)) {
		struct nlmsghdr *h;

		if (n < 0) { /* overrun: we lost events, so look at everything */
			changed = true;
			continue;
		}
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned int)n); h = NLMSG_NEXT(h, n))
			changed |= h->nlmsg_type == RTM_NEWLINK || h->nlmsg_type == RTM_DELLINK;
	}
	if (changed)
		int_reconcile(d, "link change");
}

/* Stop without --keep: every host attachment under the pin dir goes. */
static void int_stop(struct daemon *d)
{
	char dir[DC_PATH_LEN + 8], names[MAX_IFACES][16];
	const char *netns = int_ns(&d->cfg);
	struct dirent *de;
	DIR *dp;
	int i, n;

	/* netlink attachments (no pins) of the configured interfaces */
	for (i = 0; i < d->nowned; i++) {
		dc_int_host_detach(d->cfg.daemon.pin_dir, netns, d->owned[i]);
		dc_info("%s: INT programs detached (stop)", d->owned[i]);
	}
	d->nowned = 0;
	snprintf(dir, sizeof(dir), "%s/int", d->cfg.daemon.pin_dir);
	dp = opendir(dir);
	while (dp && (de = readdir(dp))) {
		const char *ns = strcmp(de->d_name, "host") ? de->d_name : NULL;

		if (de->d_name[0] == '.')
			continue;
		n = dc_int_host_pinned(d->cfg.daemon.pin_dir, ns, names, MAX_IFACES);
		for (i = 0; i < n; i++) {
			dc_int_host_detach(d->cfg.daemon.pin_dir, ns, names[i]);
			dc_info("%s%s%s: INT programs detached", ns ? ns : "", ns ? "/" : "", names[i]);
		}
		dc_int_host_tidy(d->cfg.daemon.pin_dir, ns);
	}
	if (dp)
		closedir(dp);
}

/* ---- metrics_file ------------------------------------------------------- */

static void metrics_arm(struct daemon *d)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };

	if (d->timer_fd < 0)
		d->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (d->timer_fd < 0) {
		dc_err("metrics_file: timerfd: %s", strerror(errno));
		return;
	}
	if (d->cfg.daemon.metrics_file[0]) {
		its.it_interval.tv_sec = d->cfg.daemon.metrics_interval_s;
		its.it_value.tv_nsec = 1; /* first write now */
	}
	timerfd_settime(d->timer_fd, 0, &its, NULL);
}

static void metrics_write(struct daemon *d, bool up)
{
	if (!d->cfg.daemon.metrics_file[0])
		return;
	if (dc_metrics_write(d->cfg.daemon.pin_dir, NULL, up, d->cfg.daemon.metrics_file))
		dc_warn("metrics_file %s not written (reason above); retried in %u s",
			d->cfg.daemon.metrics_file, d->cfg.daemon.metrics_interval_s);
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

	for (i = 0; i < dc_ncc_regs; i++) {
		if (d->reg[i].link_fd >= 0)
			close(d->reg[i].link_fd);
		if (d->reg[i].map_fd >= 0)
			close(d->reg[i].map_fd);
		d->reg[i].link_fd = d->reg[i].map_fd = -1;
	}
	if (d->cfg_fd >= 0)
		close(d->cfg_fd);
	d->cfg_fd = -1;
	for (i = 0; i < dc_ncc_objects; i++) {
		bpf_object__close(d->obj[i]);
		d->obj[i] = NULL;
	}
	for (i = 0; i < d->nnew_pins; i++)
		free(d->new_pins[i]);
	d->nnew_pins = 0;
}

/* A start that failed: undo exactly what this run did. */
static void undo_start(struct daemon *d)
{
	unsigned int i;

	for (i = 0; i < dc_ncc_regs; i++)
		if (d->reg[i].registered)
			unregister_cc(d, &dc_cc_regs[i]);
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
	char path[DC_PATH_LEN + 32], maps[64][32];
	unsigned int i;
	int nmaps;

	int_stop(d);
	for (i = 0; i < dc_ncc_regs; i++)
		if (d->reg[i].registered || d->reg[i].adopted)
			unregister_cc(d, &dc_cc_regs[i]);
	/* whatever the objects pin by name, so a map added to them is removed too */
	nmaps = dc_obj_pinned_map_names(maps, 64);
	for (i = 0; i < (unsigned int)nmaps; i++) {
		pin_path(d, maps[i], path, sizeof(path));
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
	bool need_load[DC_CC_OBJECTS_MAX] = { false }, loaded = false;
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
	if (d->cfg.intf.netns[0]) {
		__u32 ino;
		char why[256];

		if (dc_netns_ino(d->cfg.intf.netns, &ino, why, sizeof(why))) {
			dc_err("[int] netns = %s: %s; create it or fix the config", d->cfg.intf.netns, why);
			goto fail_runtime;
		}
	}
	d->nargs = dc_kernel_cong_control_nargs();
	if (d->nargs < 0) {
		dc_err("cannot read tcp_congestion_ops.cong_control from the kernel's BTF "
		       "(/sys/kernel/btf/vmlinux): %s; a kernel with CONFIG_DEBUG_INFO_BTF is required",
		       strerror(-d->nargs));
		goto fail_runtime;
	}
	d->use_links = !d->no_links && dc_kernel_has_struct_ops_link();
	dc_info("kernel %s; registration by %s", dc_abi_desc(d->nargs),
		d->use_links ? "struct_ops links" :
		d->no_links ? "struct_ops map update (--no-links)" :
			      "struct_ops map update (kernel has no struct_ops links)");

	for (i = 0; i < dc_ncc_regs; i++) {
		const struct dc_cc_reg *cc = &dc_cc_regs[i];

		if (adopt_cc(d, cc))
			goto fail_runtime;
		if (d->reg[i].adopted)
			continue;
		need_load[cc->obj] = true;
		if (dc_cc_available(cc->name)) {
			dc_err("%s: the congestion control name is already registered by someone else "
			       "(no dcbpfd registration is pinned under %s): find it with "
			       "`bpftool struct_ops show` and unregister it, or start dcbpfd with the "
			       "pin_dir of the instance that registered it", cc->name, pin_dir);
			rc = EXIT_CONFLICT;
			goto fail;
		}
	}

	/* an object is loaded only for the CCs of it that were not adopted */
	for (i = 0; i < dc_ncc_objects; i++) {
		if (!need_load[i])
			continue;
		loaded = true;
		rc = load_object(d, i);
		if (rc)
			goto fail;
	}
	if (!loaded) {
		char path[DC_PATH_LEN + 32];
		unsigned int have;

		dc_info("adopted pinned state under %s; nothing loaded", pin_dir);
		pin_path(d, DC_MAP_FLOWS, path, sizeof(path));
		have = dc_pinned_max_entries(path);
		if (have && have != d->cfg.daemon.flows_max)
			dc_warn("flows_max = %u, but the adopted %s has %u entries: the pinned maps "
				"keep their size until they are removed (stop dcbpfd without --keep, "
				"then start it)", d->cfg.daemon.flows_max, path, have);
	}
	{
		char why[512];

		/* loaded or adopted, the config map is the pinned one, checked for
		 * the layout this build writes */
		d->cfg_fd = dc_pinned_map_open(pin_dir, DC_MAP_CFG, BPF_MAP_TYPE_HASH, sizeof(__u32),
					       sizeof(struct dc_cc_cfg), why, sizeof(why));
		if (d->cfg_fd < 0) {
			dc_err("cannot reach the config map: %s", why);
			goto fail_runtime;
		}
	}

	/* config before registration: no socket ever runs on defaults */
	for (i = 0; i < DC_CC_MAX; i++)
		d->prev_valid[i] = !dc_cfg_read(d->cfg_fd, (enum dc_cc_id)i, &d->prev[i]);
	if (write_cfg(d, d->cfg.cc, "config file"))
		goto fail_runtime;

	for (i = 0; i < dc_ncc_regs; i++) {
		if (d->reg[i].adopted)
			continue;
		rc = register_cc(d, &dc_cc_regs[i]);
		if (rc)
			goto fail;
	}
	/* the listener first: a device that appears during the first pass is
	 * seen by the next one */
	int_setup(d);
	int_reconcile(d, "start");
	int_destinations(d, "", d->cfg.intf.destinations);
	metrics_arm(d);
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
	if (nc.daemon.flows_max != d->cfg.daemon.flows_max) {
		dc_warn("reload: flows_max %u -> %u needs a full restart (stop without --keep, start); "
			"keeping %u", d->cfg.daemon.flows_max, nc.daemon.flows_max, d->cfg.daemon.flows_max);
		nc.daemon.flows_max = d->cfg.daemon.flows_max;
	}
	/* everything that can fail is checked before anything is applied */
	if (nc.intf.netns[0]) {
		__u32 ino;
		char why[256];

		if (dc_netns_ino(nc.intf.netns, &ino, why, sizeof(why))) {
			dc_err("reload: [int] netns = %s: %s", nc.intf.netns, why);
			dc_warn("reload: keeping the running configuration");
			return;
		}
	}
	if (write_cfg(d, nc.cc, "reload")) {
		dc_warn("reload: config map not updated; keeping the running configuration");
		return;
	}
	if (nc.daemon.log_level != d->cfg.daemon.log_level && dc_log_get_level() == d->cfg.daemon.log_level)
		dc_log_set_level(nc.daemon.log_level);
	if (strcmp(nc.intf.netns, d->cfg.intf.netns)) {
		/* the old namespace's configured attachments go with it */
		int i;

		for (i = 0; i < d->nowned; i++)
			dc_int_host_detach(d->cfg.daemon.pin_dir, int_ns(&d->cfg), d->owned[i]);
		dc_int_host_tidy(d->cfg.daemon.pin_dir, int_ns(&d->cfg));
		d->nowned = 0;
		dc_info("reload: [int] netns %s -> %s", d->cfg.intf.netns[0] ? d->cfg.intf.netns : "(own)",
			nc.intf.netns[0] ? nc.intf.netns : "(own)");
	}
	{
		struct dc_config old = d->cfg;

		d->cfg = nc;
		if (strcmp(old.intf.netns, nc.intf.netns) || !old.intf.interfaces[0] != !nc.intf.interfaces[0])
			int_setup(d);
		int_reconcile(d, "reload");
		int_destinations(d, old.intf.destinations, nc.intf.destinations);
		if (strcmp(old.daemon.metrics_file, nc.daemon.metrics_file) && old.daemon.metrics_file[0])
			unlink(old.daemon.metrics_file);
		metrics_arm(d);
	}
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
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		dc_err("signalfd: %s", strerror(errno));
		return -1;
	}
	for (;;) {
		struct pollfd pf[3] = { { .fd = sfd, .events = POLLIN },
					{ .fd = d->nl_fd, .events = POLLIN },
					{ .fd = d->timer_fd, .events = POLLIN } };
		ssize_t n;

		if (poll(pf, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			dc_err("poll: %s", strerror(errno));
			break;
		}
		if (pf[2].revents) {
			__u64 ticks;

			if (read(d->timer_fd, &ticks, sizeof(ticks)) > 0)
				metrics_write(d, true);
		}
		if (pf[1].revents)
			on_netlink(d);
		if (!pf[0].revents)
			continue;
		n = read(sfd, &si, sizeof(si));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
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
	struct daemon d = { .conf_path = DC_CONF_DEFAULT, .lock_fd = -1, .cfg_fd = -1,
			    .nl_fd = -1, .timer_fd = -1 };
	struct dc_errbuf eb = { .len = 0 };
	bool test = false, verbose = false;
	sigset_t set;
	pid_t holder;
	int c, r, rc;
	unsigned int i;

	for (i = 0; i < DC_CC_REGS_MAX; i++)
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
		char names[256];
		size_t off = 0;

		for (i = 0; i < dc_ncc_regs && off < sizeof(names); i++)
			off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s",
						i ? (i + 1 == dc_ncc_regs ? " and " : ", ") : "",
						dc_cc_regs[i].name);
		dc_info("ready: %s registered, pins under %s (pid %d)", names, d.cfg.daemon.pin_dir,
			(int)getpid());
		if (run(&d))
			rc = EXIT_RUNTIME;
		if (d.keep) {
			close_all(&d);
			dc_info("--keep: leaving the CCs registered, the INT programs attached and "
				"everything pinned under %s; a restart adopts them", d.cfg.daemon.pin_dir);
		} else {
			stop_full(&d);
		}
		/* a last snapshot says the daemon is down (and, after a full stop,
		 * that nothing is registered) instead of leaving stale values */
		metrics_write(&d, false);
	}
	unlink(d.cfg.daemon.lock_file);
	close(d.lock_fd);
	return rc;
}
