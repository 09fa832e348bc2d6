// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The pin registry (pins.h); the map table comes from pins.gen.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "cli.h"
#include "pins.h"
#include "pins.gen.h"

const struct dc_pin_map dc_pin_maps[] = { DC_PINS_GEN };
const size_t dc_pin_nmaps = sizeof(dc_pin_maps) / sizeof(dc_pin_maps[0]);

static int put(char *buf, size_t len, const char *fmt, const char *a, const char *b,
	       const char *c)
{
	int n = snprintf(buf, len, fmt, a, b, c);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* One path component: not empty, no '/', no dot (bpffs refuses them). */
static bool component_ok(const char *s)
{
	return s && *s && !strpbrk(s, "/.");
}

static const char *area_name(enum dc_pin_area area)
{
	switch (area) {
	case DC_PIN_INT:
		return "int";
	case DC_PIN_ETH:
		return "eth";
	case DC_PIN_PERC:
		return "perc";
	case DC_PIN_RESQ:
		return "resq";
	case DC_PIN_RDCN:
		return "rdcn";
	default:
		return "?";
	}
}

int dc_pin_dir(char *buf, size_t len, const char *pin_dir, enum dc_pin_area area,
	       const char *sub)
{
	const char *ns = sub && *sub ? sub : "host";

	switch (area) {
	case DC_PIN_ROOT:
		return put(buf, len, "%s%s%s", pin_dir, "", "");
	case DC_PIN_INT_BASE:
		return put(buf, len, "%s/%s%s", pin_dir, "int", "");
	case DC_PIN_ETH_BASE:
		return put(buf, len, "%s/%s%s", pin_dir, "eth", "");
	case DC_PIN_SW_BASE:
		return put(buf, len, "%s/%s%s", pin_dir, "sw", "");
	case DC_PIN_INT:
	case DC_PIN_ETH:
	case DC_PIN_PERC:
	case DC_PIN_RESQ:
	case DC_PIN_RDCN:
		if (!component_ok(ns))
			return -EINVAL;
		return put(buf, len, "%s/%s/%s", pin_dir, area_name(area), ns);
	case DC_PIN_SW:
	case DC_PIN_SW_INT:
		if (!component_ok(sub))
			return -EINVAL;
		return put(buf, len, area == DC_PIN_SW ? "%s/sw/%s%s" : "%s/sw/%s/int%s",
			   pin_dir, sub, "");
	}
	return -EINVAL;
}

int dc_pin_ns_dir(char *buf, size_t len, const char *pin_dir, enum dc_pin_area area,
		  const char *netns, struct dc_err *err)
{
	const char *ns = netns && *netns ? netns : "host";
	int rc = dc_pin_dir(buf, len, pin_dir, area, netns);

	if (rc == -EINVAL)
		return dc_err_set(err, EXIT_USAGE, "--netns %s: not usable as a pin directory name "
				  "(bpffs takes no '/' or '.')", ns);
	if (rc)
		return dc_err_set(err, EXIT_USAGE, "pin directory %s/%s/%s: %s", pin_dir,
				  area_name(area), ns, strerror(-rc));
	return 0;
}

int dc_pin_open_map(const char *dir, const char *name, const char *what, const char *attach_hint,
		    struct dc_err *err)
{
	char path[1024];
	int fd;

	if (dc_pin_map_path(path, sizeof(path), dir, name)) {
		dc_err_set(err, EXIT_ERR, "%s: not a map the %s object pins", name, what);
		return -1;
	}
	fd = bpf_obj_get(path);
	if (fd < 0) {
		int e = errno;

		if (e == ENOENT && attach_hint)
			dc_err_set(err, EXIT_ERR, "%s is not attached (%s: %s): run '%s' first", what,
				   path, strerror(e), attach_hint);
		else
			dc_err_set(err, EXIT_ERR, "%s: %s", path, strerror(e));
		return -1;
	}
	return fd;
}

const struct dc_pin_map *dc_pin_map_find(const char *name)
{
	size_t i;

	for (i = 0; i < dc_pin_nmaps; i++)
		if (!strcmp(dc_pin_maps[i].name, name))
			return &dc_pin_maps[i];
	return NULL;
}

const struct dc_pin_map *dc_pin_map_next(const char *obj, size_t *i)
{
	for (; *i < dc_pin_nmaps; (*i)++)
		if (!strcmp(dc_pin_maps[*i].obj, obj))
			return &dc_pin_maps[(*i)++];
	return NULL;
}

int dc_pin_path(char *buf, size_t len, const char *dir, const char *name)
{
	return put(buf, len, "%s/%s%s", dir, name, "");
}

int dc_pin_map_path(char *buf, size_t len, const char *dir, const char *name)
{
	if (!dc_pin_map_find(name))
		return -ENOENT;
	return put(buf, len, "%s/%s%s", dir, name, "");
}

int dc_link_pin(char *buf, size_t len, const char *dir, const char *ifname, const char *hook)
{
	if (!component_ok(ifname) || !component_ok(hook))
		return -EINVAL;
	return put(buf, len, "%s/%s_%s", dir, ifname, hook);
}

__u64 dc_pins_present(const char *dir, const char *obj)
{
	const struct dc_pin_map *m;
	char path[4096];
	__u64 mask = 0;
	size_t i = 0;
	unsigned int k;

	for (k = 0; k < 64 && (m = dc_pin_map_next(obj, &i)); k++)
		if (put(path, sizeof(path), "%s/%s%s", dir, m->name, "") || access(path, F_OK) == 0)
			mask |= 1ULL << k;
	return mask;
}

void dc_pins_unpin_new(const char *dir, const char *obj, __u64 before)
{
	const struct dc_pin_map *m;
	char path[4096];
	size_t i = 0;
	unsigned int k;

	for (k = 0; (m = dc_pin_map_next(obj, &i)); k++) {
		if (k >= 64 || (before & (1ULL << k)))
			continue;
		if (!put(path, sizeof(path), "%s/%s%s", dir, m->name, ""))
			unlink(path);
	}
	rmdir(dir);	/* fails, as wanted, while anything else lives there */
}

bool dc_pin_obj_has(const char *obj, const char *name)
{
	size_t i;

	for (i = 0; i < dc_pin_nmaps; i++)
		if (!strcmp(dc_pin_maps[i].obj, obj) && !strcmp(dc_pin_maps[i].name, name))
			return true;
	return false;
}

int dc_pins_unpin(const char *dir, const char *obj, const char *except, bool rmdir_dir,
		  struct dc_err *err)
{
	const struct dc_pin_map *m;
	char path[4096];
	size_t i = 0;
	int rc = 0, e;

	while ((m = dc_pin_map_next(obj, &i))) {
		if (except && dc_pin_obj_has(except, m->name))
			continue;
		e = put(path, sizeof(path), "%s/%s%s", dir, m->name, "");
		if (!e && unlink(path) && errno != ENOENT)
			e = -errno;
		if (e && !rc) {
			rc = e;
			dc_err_set(err, EXIT_ERR, "cannot remove %s/%s: %s", dir, m->name,
				   strerror(-e));
		}
	}
	/* ENOTEMPTY: something else still lives there (other pins, a switch) */
	if (rmdir_dir && rmdir(dir) && errno != ENOENT && errno != ENOTEMPTY && !rc) {
		rc = -errno;
		dc_err_set(err, EXIT_ERR, "cannot remove %s: %s", dir, strerror(errno));
	}
	return rc;
}
