/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The live circuit schedule of a reconfigurable fabric (include/dcbpf/rdcn.h),
 * defined once.  Double-buffered: two schedule copies (timing in dc_rd_cfg,
 * matchings in dc_rd_sched) and one flip word (dc_rd_flip) naming the copy
 * live from a period boundary on.  Written by user space only
 * (loader/rdcn/rdpub.c); read by the circuit switch (bpf/rdcn.bpf.c).
 * Pinned by name, so `bpftool map dump pinned …/dc_rd_sched` shows
 * peer[uplink][ToR] of every slot.  Table: docs/rdcn.md.  The schedule
 * and the ToRs' addresses are in maps/rdcn_sched.h (what every program of
 * the fabric reads, INT's transit hop included); the switch's ports here.
 */
#ifndef DCBPF_MAPS_RDCN_H
#define DCBPF_MAPS_RDCN_H

#include "maps/rdcn_sched.h"

/* ---- the circuit switch's ports (bpf/rdcn.bpf.c) ---------------------- */

/* ifindex of a port of the circuit-switch namespace -> (ToR, uplink). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DC_RD_PORTS);
	__type(key, __u32);
	__type(value, struct dc_rd_port);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_rd_port SEC(".maps");

/* dc_rd_port_key(ToR, uplink) -> the ifindex that port sends by. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_RD_PORTS);
	__type(key, __u32);
	__type(value, struct dc_rd_out);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_rd_out SEC(".maps");

/* dc_rd_port_key -> that port's counters; entry DC_RD_PORTS counts frames
 * of interfaces that are no port (not in dc_rd_port).  Shared entries
 * (atomic adds): a port is read by one CPU at a time only by chance. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_RD_PORTS + 1);
	__type(key, __u32);
	__type(value, struct dc_rd_pcnt);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_rd_pcnt SEC(".maps");

#endif
