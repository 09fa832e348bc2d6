/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The live circuit schedule of a reconfigurable fabric (include/dcbpf/rdcn.h),
 * defined once.  Double-buffered: two schedule copies (timing in dc_rd_cfg,
 * matchings in dc_rd_sched) and one flip word (dc_rd_flip) naming the copy
 * live from a period boundary on.  Written by user space only
 * (loader/rdcn/rdpub.c); read by the fabric's programs (not built yet).
 * Pinned by name, so `bpftool map dump pinned …/dc_rd_sched` shows
 * peer[uplink][ToR] of every slot.  Table: docs/rdcn.md.
 */
#ifndef DCBPF_MAPS_RDCN_H
#define DCBPF_MAPS_RDCN_H

#include "dcbpf/rdcn.h"

/* Buffer (0, 1) -> that copy's epoch, slot, day, period, shape. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_RD_BUFS);
	__type(key, __u32);
	__type(value, struct dc_rd_cfg);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_rd_cfg SEC(".maps");

/* buffer x DC_RD_SLOTS_MAX + slot (dc_rd_sched_key) -> the matchings. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_RD_BUFS * DC_RD_SLOTS_MAX);
	__type(key, __u32);
	__type(value, struct dc_rd_slot);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_rd_sched SEC(".maps");

/* One entry: the flip word (dc_rd_flip_make); one 64-bit store flips. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_rd_flip);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_rd_flip SEC(".maps");

#endif
