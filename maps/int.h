/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * INT maps of the hosts' TC programs (bpf/int.bpf.c), defined once.
 * Pinned by name next to the CC maps, so the sender's TC ingress publishes
 * into the same dc_int_flows that PowerTCP reads.  docs/maps.md.
 */
#ifndef DCBPF_MAPS_INT_H
#define DCBPF_MAPS_INT_H

#include "dcbpf/types.h"
#include "maps/cc.h"

#define DC_INT_DST_MAX 1024

/* Destinations that get INT (longest prefix match). */
struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, DC_INT_DST_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct dc_int_dst_key);
	__type(value, struct dc_int_dst_cfg);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_int_dst SEC(".maps");

/* Receiver side: latest hop stack per flow, for the echo. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, DC_FLOWS_MAX);
	__type(key, struct dc_flow_key);
	__type(value, struct dc_int_sink_rec);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_int_sink SEC(".maps");

/* Source side: when each sampled flow was last given the option. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, DC_FLOWS_MAX);
	__type(key, struct dc_flow_key);
	__type(value, struct dc_int_samp);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_int_samp SEC(".maps");

/* Counters of the host INT programs. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_int_counters);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_int_stats SEC(".maps");

#endif
