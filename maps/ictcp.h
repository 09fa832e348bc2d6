/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ICTCP maps (bpf/ictcp.bpf.c), defined once.  Pinned by name, so
 * `bpftool map dump pinned …/dc_ictcp_flows` shows each flow's b_m, b_e,
 * d and window clamp as named fields.  Layouts: include/dcbpf/ictcp.h.
 *
 *   dc_ictcp_cfg    C, alpha, beta, gammas, sub-slot floor  written by user space
 *   dc_ictcp_slot   the host's slot, BW_T, BW_A, quota       the program (locked)
 *   dc_ictcp_sk     socket -> 2-RTT period, b_m, rwnd        the program (sk_storage)
 *   dc_ictcp_flows  flow -> mirror of the above              the program; read by user space
 *   dc_ictcp_stats  counters                                 the program
 */
#ifndef DCBPF_MAPS_ICTCP_H
#define DCBPF_MAPS_ICTCP_H

#include "dcbpf/ictcp.h"
#include "dcbpf/types.h"

#define DC_ICTCP_FLOWS_MAX 16384

/* The slot behind a lock: every receiving socket of the host updates it. */
struct dc_ictcp_slot_v {
	struct bpf_spin_lock lock;
	__u32 pad;
	struct dc_ictcp_slot s;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_ictcp_cfg);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_ictcp_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_ictcp_slot_v);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_ictcp_slot SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct dc_ictcp_conn);
} dc_ictcp_sk SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, DC_ICTCP_FLOWS_MAX);
	__type(key, struct dc_flow_key);
	__type(value, struct dc_ictcp_flow);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_ictcp_flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_ictcp_counters);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_ictcp_stats SEC(".maps");

#endif
