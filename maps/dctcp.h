/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * DCTCP's counters (struct dc_dctcp_stats: include/dcbpf/dctcp.h).  Not
 * pinned: the object is registered by `bpftool struct_ops register`
 * (tests) or a loader, and the map is
 * found by name (`bpftool map dump name dc_dctcp_stat`).  Pinning by name
 * would leave a pin under /sys/fs/bpf behind every registration.
 */
#ifndef DCBPF_MAPS_DCTCP_H
#define DCBPF_MAPS_DCTCP_H

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_dctcp_stats);
} dc_dctcp_stat SEC(".maps");

#endif
