/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Emulated-switch maps, defined once.  Every switch instance loads its own
 * copy and pins these by name under <pin_dir>/sw/<switch-name>/ (the
 * loader sets that pin root), so the INT transit object of the same
 * switch reuses them by loading with the same pin root.  Field ownership:
 * include/dcbpf/switch.h; writers/readers/pins: docs/maps.md.
 */
#ifndef DCBPF_MAPS_SWITCH_H
#define DCBPF_MAPS_SWITCH_H

#include "dcbpf/switch.h"
#include "dcbpf/sw_sonic.h"
#include "dcbpf/forest.h"

/* Two configuration slots; dc_sw_meta.cfg_slot names the live one. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct dc_sw_cfg);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_sw_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_sw_meta);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_sw_meta SEC(".maps");

/* Per-port queue record: the real qdisc backlog plus port facts. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_SW_PORTS_MAX);
	__type(key, __u32);
	__type(value, struct dc_sw_port);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_sw_port SEC(".maps");

/* Per (port, queue) record when the ports have strict-priority queues
 * (dc_sw_meta.nqueues > 1); key dc_qrec_key(port, queue). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_SW_QREC_ENTRIES);
	__type(key, __u32);
	__type(value, struct dc_sw_queue);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_sw_queue SEC(".maps");

/* Switch-wide shared-buffer state (Q, ABM's n_p). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_sw_state);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_sw_state SEC(".maps");

/* ifindex (in the switch's namespace) → port id; written at switch up. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DC_SW_PORTS_MAX);
	__type(key, __u32);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_sw_ifport SEC(".maps");

/* Destination → egress port cache in front of bpf_fib_lookup (which
 * costs about as much as the rest of admission).  A plain hash: when it
 * is full the FIB is simply asked every time. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DC_SW_ROUTE_ENTRIES);
	__type(key, struct dc_sw_route_key);
	__type(value, struct dc_sw_route);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_sw_route SEC(".maps");

/* Admission counters per (port, priority), per CPU: no shared cache line
 * is written per packet. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, DC_SW_CNT_ENTRIES);
	__type(key, __u32);
	__type(value, struct dc_sw_counters);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_sw_cnt SEC(".maps");

/* Credence's drop predictor: two model slots, dc_sw_meta.model_slot names
 * the live one (written like dc_sw_cfg: idle slot, then flip). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct dc_rf_model);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_sw_model SEC(".maps");

/* Credence / FollowLQD: the virtual LQD and the EWMA features. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_sw_cred);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_sw_cred SEC(".maps");

/* SmartBuf and EDT: per-port learning state and SmartBuf's Main table. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_sw_sbuf);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_sw_sbuf SEC(".maps");

/* SmartBuf: per-CPU scratch of the table scans. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_sw_sbtmp);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_sw_sbtmp SEC(".maps");

/* Reverie: the pool, every queue's filter and PFC state, pause and
 * resume counts (struct dc_sw_rv; bpftool map dump names the fields). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_sw_rv);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_sw_rv SEC(".maps");

/* The SONiC model (struct dc_sw_sonic): ingress counters with their PFC
 * state, egress counters, the pools. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_sw_sonic);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_sw_sonic SEC(".maps");

/* PFC pause state per (ingress port, priority) for the upstream (struct
 * dc_sw_pfc): memory-mapped by its reader, so no syscall per frame. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_SW_PORTS_MAX * DC_SW_PRIOS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct dc_sw_pfc);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_sw_pfc SEC(".maps");

/* Sampled arrivals and admission drops (struct dc_sw_event). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, DC_SW_EVENTS_BYTES);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_sw_events SEC(".maps");

#endif
