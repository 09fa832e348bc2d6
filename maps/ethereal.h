/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Ethereal maps, defined once.  One set per network namespace: a host's
 * (bpf/ethereal.bpf.c) and a leaf's (bpf/eth_leaf.bpf.c) are pinned by
 * name under <pin_dir>/eth/<netns>/, so every host keeps its own view.
 * Layouts: include/dcbpf/ethereal.h; table: docs/maps.md.
 */
#ifndef DCBPF_MAPS_ETHEREAL_H
#define DCBPF_MAPS_ETHEREAL_H

#include "dcbpf/types.h"
#include "dcbpf/ethereal.h"

#define DC_ETH_FLOWS_MAX 65536
#define DC_ETH_DST_MAX 256

#ifdef DC_ETH_HOST_MAPS
/* Host: mode, uplinks, idle and avoid times. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_eth_hcfg);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_eth_hcfg SEC(".maps");

/* Host: destination prefix → leaf (longest prefix match). */
struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, DC_ETH_DST_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct dc_eth_dst_key);
	__type(value, struct dc_eth_dst);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_eth_dst SEC(".maps");

/* Host: its own view, per destination leaf: load per uplink (atomic adds). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_ETH_MAX_LEAVES);
	__type(key, __u32);
	__type(value, struct dc_eth_hleaf);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_eth_view SEC(".maps");

/* Host: per-flow path state. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, DC_ETH_FLOWS_MAX);
	__type(key, struct dc_flow_key);
	__type(value, struct dc_eth_flow);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_eth_flows SEC(".maps");

/* Host, mode reps: per-flow recycling buffer and packets in flight
 * (struct dc_eth_reps; a spin lock, so a plain hash: entries are deleted
 * with their dc_eth_flows entry, allocated as flows start). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DC_ETH_FLOWS_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct dc_flow_key);
	__type(value, struct dc_eth_reps);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_eth_reps SEC(".maps");

/* Host: counters (atomic adds). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_eth_hcounters);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_eth_hstats SEC(".maps");
#endif

#ifdef DC_ETH_LEAF_MAPS
/* Leaf: tag (1..15) → uplink ifindex and next hop. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_ETH_TAG_MAX + 1);
	__type(key, __u32);
	__type(value, struct dc_eth_uplink);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_eth_up SEC(".maps");

/* Leaf: ifindex of each uplink → its tag (is this egress an uplink?). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_eth_upif SEC(".maps");

/* Leaf: host-facing ports the steering program is attached to (ifindex → 1),
 * what `detach` takes back. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 128);
	__type(key, __u32);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_eth_ports SEC(".maps");

/* Leaf: bytes and packets steered per tag (index 0: untagged traffic seen). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, DC_ETH_TAG_MAX + 1);
	__type(key, __u32);
	__type(value, struct dc_eth_pathcnt);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_eth_pcnt SEC(".maps");

/* Leaf: counters. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_eth_lcounters);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_eth_lstats SEC(".maps");
#endif

#endif
