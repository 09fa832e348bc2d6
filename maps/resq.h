/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ResQueue host maps (bpf/resq_host.bpf.c), defined once.  Pinned by name
 * under PIN_DIR/resq/<netns or host>, so `bpftool map dump pinned
 * …/dc_resq_flows` shows every flow's bytes sent, highest sequence and
 * level as named fields.  Layouts: include/dcbpf/resqueue.h; docs/resqueue.md.
 *
 *   dc_resq_cfg    the tagger's configuration        written by user space
 *   dc_resq_flows  flow -> bytes sent, max seq, level the TC program; rto_* by sockops
 *   dc_resq_stats  counters (per CPU)                 both programs
 */
#ifndef DCBPF_MAPS_RESQ_H
#define DCBPF_MAPS_RESQ_H

#include "dcbpf/resqueue.h"
#include "dcbpf/types.h"

#define DC_RESQ_FLOWS_MAX 16384

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_resq_cfg);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_resq_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, DC_RESQ_FLOWS_MAX);
	__type(key, struct dc_flow_key);
	__type(value, struct dc_resq_flow);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_resq_flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_resq_counters);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_resq_stats SEC(".maps");

#endif
