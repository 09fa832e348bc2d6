/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * INT map of a switch's transit hop (bpf/int_transit.bpf.c), defined once.
 * Pinned by name under the switch's pin dir, next to its port records
 * (maps/switch.h); separate from maps/int.h, whose maps live in the
 * daemon's pin dir.  docs/maps.md.
 */
#ifndef DCBPF_MAPS_INT_SWITCH_H
#define DCBPF_MAPS_INT_SWITCH_H

#include "dcbpf/types.h"

/* Counters of this switch's INT hops. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_int_counters);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_int_xstats SEC(".maps");

#endif
