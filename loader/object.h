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

#endif
