/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ICON maps (bpf/icon.bpf.c), defined once.  Pinned by name, so
 * `bpftool map dump pinned …/dc_icon_flows` shows each flow's n and pacing
 * cap as named fields.  Layouts: include/dcbpf/icon.h; table: docs/icon.md.
 *
 *   dc_icon_cfg    (addr, port) -> n a sink advertises     written by user space
 *   dc_icon_sk     socket -> n received / advertised       the program (sk_storage)
 *   dc_icon_flows  flow -> n, options, last cap            the program; read by user space
 *   dc_icon_stats  counters                                the program
 */
#ifndef DCBPF_MAPS_ICON_H
#define DCBPF_MAPS_ICON_H

#include "dcbpf/icon.h"
#include "dcbpf/types.h"

#define DC_ICON_CFG_MAX 1024
#define DC_ICON_FLOWS_MAX 16384

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DC_ICON_CFG_MAX);
	__type(key, struct dc_icon_cfg_key);
	__type(value, struct dc_icon_cfg);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_icon_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct dc_icon_sk);
} dc_icon_sk SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, DC_ICON_FLOWS_MAX);
	__type(key, struct dc_flow_key);
	__type(value, struct dc_icon_flow);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_icon_flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_icon_counters);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_icon_stats SEC(".maps");

#endif
