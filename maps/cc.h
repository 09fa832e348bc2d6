/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Congestion-control maps, defined once.  Pinned by name under the pin
 * directory so every object (CC, INT programs, tools) shares one instance.
 * Writers/readers and pin paths: docs/maps.md.
 */
#ifndef DCBPF_MAPS_CC_H
#define DCBPF_MAPS_CC_H

#include "dcbpf/types.h"
#include "dcbpf/powertcp.h"

#define DC_FLOWS_MAX 65536

/* Parameters per CC.  A hash, not an array: replacing a hash element is
 * atomic for concurrent readers, so a `dcbpf set` is never seen half done. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DC_CC_MAX);
	__type(key, __u32);
	__type(value, struct dc_cc_cfg);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_cc_cfg SEC(".maps");

/* Per-flow mirror of the CC state, for bpftool and dcbpf dump.  LRU so a
 * flood of short connections cannot exhaust it. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, DC_FLOWS_MAX);
	__type(key, struct dc_flow_key);
	__type(value, struct dc_cc_flow);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_cc_flows SEC(".maps");

/* Global counters per CC (updated with atomic adds). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_CC_MAX);
	__type(key, __u32);
	__type(value, struct dc_cc_counters);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_cc_stats SEC(".maps");

/* Latest echoed INT hop stack per flow: written by the sender's TC
 * ingress, read by PowerTCP on each ACK. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, DC_FLOWS_MAX);
	__type(key, struct dc_flow_key);
	__type(value, struct dc_int_stack);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_int_flows SEC(".maps");

/* Base RTT per path (flow key with both ports 0), learned across the
 * flows of the host: PowerTCP's τ when base_rtt_us is not configured
 * (struct dc_base_rtt in include/dcbpf/powertcp.h).  LRU: paths nobody
 * uses any more make room. */
#define DC_PATHS_MAX 16384
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, DC_PATHS_MAX);
	__type(key, struct dc_flow_key);
	__type(value, struct dc_base_rtt);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_base_rtt SEC(".maps");

/* Per-ACK decisions for `dcbpf trace`; written only while tracing. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_cc_trace SEC(".maps");

/* Tracing switch: [0] is the lease of the `dcbpf trace` reading dc_cc_trace
 * (dc_trace_live in include/dcbpf/types.h), 0 when none runs. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_cc_tron SEC(".maps");

#endif
