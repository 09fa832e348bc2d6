// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Only the embedded ELF bytes of the skeletons are used: the typed
 * skeleton structs differ per variant, the generic libbpf API does not.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "config.h"
#include "powertcp.skel.h"
#include "powertcp_v61.skel.h"
#include "baseline.skel.h"
#include "baseline_v61.skel.h"
#include "dctcp.skel.h"
#include "perc_cc.skel.h"
#include "perc_cc_v61.skel.h"

#include "object.h"
#include "pins.h"

static const void *elf_v610(size_t *sz)
{
	return powertcp_bpf__elf_bytes(sz);
}

static const void *elf_v61(size_t *sz)
{
	return powertcp_v61_bpf__elf_bytes(sz);
}

static const void *elf_bl_v610(size_t *sz)
{
	return baseline_bpf__elf_bytes(sz);
}

static const void *elf_bl_v61(size_t *sz)
{
	return baseline_v61_bpf__elf_bytes(sz);
}

static const struct dc_obj_variant powertcp_variants[] = {
	{ "powertcp", 4, elf_v610 },
	{ "powertcp_v61", 2, elf_v61 },
};

static const void *elf_dctcp(size_t *sz)
{
	return dctcp_bpf__elf_bytes(sz);
}

/* HPCC and TIMELY (bpf/baseline.bpf.c), the same two ABIs. */
static const struct dc_obj_variant baseline_variants[] = {
	{ "baseline", 4, elf_bl_v610 },
	{ "baseline_v61", 2, elf_bl_v61 },
};

/* DCTCP (bpf/dctcp.bpf.c) has no cong_control: one object for every kernel. */
static const struct dc_obj_variant dctcp_variants[] = {
	{ "dctcp", 0, elf_dctcp },
};

static const void *elf_perc_v610(size_t *sz)
{
	return perc_cc_bpf__elf_bytes(sz);
}

static const void *elf_perc_v61(size_t *sz)
{
	return perc_cc_v61_bpf__elf_bytes(sz);
}

/* s-PERC's rate enforcement (bpf/perc_cc.bpf.c), the same two ABIs. */
static const struct dc_obj_variant perc_variants[] = {
	{ "perc_cc", 4, elf_perc_v610 },
	{ "perc_cc_v61", 2, elf_perc_v61 },
};

const struct dc_cc_object dc_cc_objects[] = {
	{ powertcp_variants, 2 },
	{ baseline_variants, 2 },
	{ dctcp_variants, 1 },
	{ perc_variants, 2 },
};
const unsigned int dc_ncc_objects = sizeof(dc_cc_objects) / sizeof(dc_cc_objects[0]);

const struct dc_cc_reg dc_cc_regs[] = {
	{ "powertcp", "dc_powertcp", "link_powertcp", 0, NULL },
	{ "theta_powertcp", "dc_theta_ptcp", "link_theta_ptcp", 0, NULL },
	{ "hpcc", "dc_hpcc", "link_hpcc", 1, NULL },
	{ "timely", "dc_timely", "link_timely", 1, NULL },
	{ "dctcp", "dc_dctcp", "link_dctcp", 2, "dctcp" },
	{ "perc", "dc_perc", "link_perc", 3, NULL },
};
const unsigned int dc_ncc_regs = sizeof(dc_cc_regs) / sizeof(dc_cc_regs[0]);

_Static_assert(sizeof(dc_cc_regs) / sizeof(dc_cc_regs[0]) <= DC_CC_REGS_MAX, "grow DC_CC_REGS_MAX");
_Static_assert(sizeof(dc_cc_objects) / sizeof(dc_cc_objects[0]) <= DC_CC_OBJECTS_MAX,
	       "grow DC_CC_OBJECTS_MAX");

const struct dc_obj_variant *dc_cc_object_variant(const struct dc_cc_object *o, int nargs)
{
	unsigned int i;

	for (i = 0; i < o->nvariants; i++)
		if (!o->variants[i].nargs || o->variants[i].nargs == nargs)
			return &o->variants[i];
	return NULL;
}

const struct dc_obj_variant *dc_obj_variant_for(int nargs)
{
	return dc_cc_object_variant(&dc_cc_objects[0], nargs);
}

unsigned int dc_pinned_max_entries(const char *path)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);
	int fd = bpf_obj_get(path);
	unsigned int n = 0;

	if (fd < 0)
		return 0;
	memset(&info, 0, sizeof(info));
	if (!bpf_obj_get_info_by_fd(fd, &info, &len))
		n = info.max_entries;
	close(fd);
	return n;
}

int dc_obj_size_flow_maps(struct bpf_object *obj, unsigned int flows_max, struct dc_errbuf *notes)
{
	struct bpf_map *map;
	int diff = 0;

	bpf_object__for_each_map(map, obj) {
		const char *pin = bpf_map__pin_path(map);
		unsigned int pinned = pin ? dc_pinned_max_entries(pin) : 0;

		if (bpf_map__type(map) != BPF_MAP_TYPE_LRU_HASH)
			continue;
		if (pinned && pinned != flows_max) {
			dc_err_add(notes, "%s is pinned with %u entries, flows_max is %u: the pinned "
					  "map keeps its size until it is removed (stop dcbpfd without "
					  "--keep, then start it)", pin, pinned, flows_max);
			diff++;
		}
		bpf_map__set_max_entries(map, pinned ? pinned : flows_max);
	}
	return diff;
}

int dc_obj_pinned_map_names(char (*names)[32], int max)
{
	/* every CC object (perc_cc: also the s-PERC host maps) and the host INT
	 * programs, from the pin registry */
	static const char *const objs[] = { "powertcp", "baseline", "perc_cc", "int" };
	const struct dc_pin_map *m;
	unsigned int i;
	size_t it;
	int n = 0, k;

	for (i = 0; i < sizeof(objs) / sizeof(objs[0]); i++)
		for (it = 0; (m = dc_pin_map_next(objs[i], &it));) {
			if (m->type == BPF_MAP_TYPE_STRUCT_OPS)
				continue;
			for (k = 0; k < n && strcmp(names[k], m->name); k++)
				;
			if (k == n && n < max)
				snprintf(names[n++], sizeof(names[0]), "%s", m->name);
		}
	return n;
}
