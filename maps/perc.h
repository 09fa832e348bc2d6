/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * s-PERC link maps (bpf/perc.bpf.c), defined once.  Pinned by name under
 * the pin dir of the namespace the program is loaded for (a switch or a
 * host), so `bpftool map dump pinned …/dc_perc_link` shows NumB, SumE,
 * MaxE … of every link as named fields.  Layouts: include/dcbpf/perc.h;
 * table: docs/maps.md.
 */
#ifndef DCBPF_MAPS_PERC_H
#define DCBPF_MAPS_PERC_H

#include "dcbpf/perc.h"

/* Directed links one program instance updates (index 0 unused). */
#define DC_PERC_LINKS_MAX 256
/* Interfaces of one namespace. */
#define DC_PERC_PORTS_MAX 256

/* Link index -> configuration, s-PERC state, counters (spin lock inside). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_PERC_LINKS_MAX);
	__type(key, __u32);
	__type(value, struct dc_perc_link);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_perc_link SEC(".maps");

/* Link index -> the capacity the control plane set (dcbpf perc set,
 * dcbpfd's [perc]); the program applies it under the link's lock. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_PERC_LINKS_MAX);
	__type(key, __u32);
	__type(value, struct dc_perc_lcfg);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_perc_lcfg SEC(".maps");

/* ifindex -> the directed link out of that interface. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DC_PERC_PORTS_MAX);
	__type(key, __u32);
	__type(value, struct dc_perc_port);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_perc_port SEC(".maps");

/* Counters of the program (one entry). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_perc_stats);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_perc_stats SEC(".maps");

#endif
