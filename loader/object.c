// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Only the embedded ELF bytes of the skeletons are used: the typed
 * skeleton structs differ per variant, the generic libbpf API does not.
 */
#include <bpf/libbpf.h>

#include "powertcp.skel.h"
#include "powertcp_v61.skel.h"

#include "object.h"

static const void *elf_v610(size_t *sz)
{
	return powertcp_bpf__elf_bytes(sz);
}

static const void *elf_v61(size_t *sz)
{
	return powertcp_v61_bpf__elf_bytes(sz);
}

static const struct dc_obj_variant variants[] = {
	{ "powertcp", 4, elf_v610 },
	{ "powertcp_v61", 2, elf_v61 },
};

const struct dc_obj_variant *dc_obj_variant_for(int nargs)
{
	unsigned int i;

	for (i = 0; i < sizeof(variants) / sizeof(variants[0]); i++)
		if (variants[i].nargs == nargs)
			return &variants[i];
	return NULL;
}
