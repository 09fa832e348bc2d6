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

/* The variant for a kernel whose cong_control takes nargs parameters. */
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
 * the host INT object), read from the embedded objects without loading
 * them.  Returns how many were stored.
 */
int dc_obj_pinned_map_names(char (*names)[32], int max);

#endif
