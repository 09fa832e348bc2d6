/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The congestion-control objects embedded in the binaries, one per kernel
 * cong_control ABI.  dcbpfd opens the chosen one with bpf_object__open_mem
 * so a single code path serves both.
 */
#ifndef DCBPF_LOADER_OBJECT_H
#define DCBPF_LOADER_OBJECT_H

#include <stddef.h>

struct dc_obj_variant {
	const char *name;	/* object name, as in build/<name>.bpf.o */
	int nargs;		/* cong_control parameters it was built for */
	const void *(*elf_bytes)(size_t *sz);
};

/* An embedded object holding struct_ops congestion controls, built once
 * per cong_control ABI (a variant with nargs 0 serves every kernel: a CC
 * without cong_control). */
struct dc_cc_object {
	const struct dc_obj_variant *variants;
	unsigned int nvariants;
};

/*
 * One congestion control dcbpfd registers: adopted, registered, stopped
 * and shown by `dcbpf status` from this table alone.  A new struct_ops
 * object is registered by adding its object to dc_cc_objects and one line
 * per CC here (docs/cli.md, "Adding a congestion control").
 */
struct dc_cc_reg {
	const char *name;	/* CC name in tcp_available_congestion_control */
	const char *ops_map;	/* its struct_ops map in the object */
	const char *link_pin;	/* link pin name under pin_dir */
	unsigned int obj;	/* index in dc_cc_objects */
	/* NULL: always registered; else the [daemon] key (0 or 1) that must be
	 * 1 for dcbpfd to register it (an adopted one is unregistered when 0) */
	const char *daemon_switch;
};

#define DC_CC_REGS_MAX 8
#define DC_CC_OBJECTS_MAX 4
extern const struct dc_cc_object dc_cc_objects[];
extern const unsigned int dc_ncc_objects;
extern const struct dc_cc_reg dc_cc_regs[];
extern const unsigned int dc_ncc_regs;

/* The variant of object o for a kernel whose cong_control takes nargs
 * parameters, NULL if it has none. */
const struct dc_obj_variant *dc_cc_object_variant(const struct dc_cc_object *o, int nargs);
/* The PowerTCP object's variant (what `dcbpf status` shows as the ABI);
 * every CC object is built for the same ABIs, so it names them all. */
const struct dc_obj_variant *dc_obj_variant_for(int nargs);

/*
 * Size every per-flow map (the LRU hashes) of obj before it is loaded:
 * flows_max entries, or the size of the map already pinned at its pin path
 * (a pinned map is reused as it is; libbpf refuses a pin of another size).
 * Each pinned size that differs from flows_max is described in *notes.
 * Returns the number of such differences.
 */
struct bpf_object;
struct dc_errbuf;
int dc_obj_size_flow_maps(struct bpf_object *obj, unsigned int flows_max, struct dc_errbuf *notes);
/* max_entries of the map pinned at path, 0 if none. */
unsigned int dc_pinned_max_entries(const char *path);

/*
 * Names of the maps the daemon's objects pin by name (every CC object and
 * the host INT object), from the pin registry (pins.h).  Returns how many
 * were stored.
 */
int dc_obj_pinned_map_names(char (*names)[32], int max);

#endif
