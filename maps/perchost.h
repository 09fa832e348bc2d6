/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * s-PERC host maps, defined once and pinned by name so the `perc`
 * congestion control (bpf/perc_cc.bpf.c, registered by dcbpfd), the flow
 * lifecycle (bpf/perc_host.bpf.c, sockops, loaded by `dcbpf perc host`)
 * and the control loop share them.  Keys: struct dc_flow_key as the CC
 * builds it (bpf/lib/ccsock.h: local = source).  Layouts:
 * include/dcbpf/perchost.h; table: docs/perc.md.
 */
#ifndef DCBPF_MAPS_PERCHOST_H
#define DCBPF_MAPS_PERCHOST_H

#include "dcbpf/perchost.h"

#define DC_PERC_HFLOWS_MAX 4096

/* Flow -> lifecycle and what the CC did (written in the kernel only). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DC_PERC_HFLOWS_MAX);
	__type(key, struct dc_flow_key);
	__type(value, struct dc_perc_hflow);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_perc_hflow SEC(".maps");

/* Flow -> the allocated rate (written by the control loop only). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DC_PERC_HFLOWS_MAX);
	__type(key, struct dc_flow_key);
	__type(value, struct dc_perc_alloc);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_perc_alloc SEC(".maps");

/* The host's settings (one entry; defaults while it is zero). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_perc_hcfg);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_perc_hcfg SEC(".maps");

#endif
