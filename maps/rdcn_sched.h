/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What every program of a reconfigurable fabric reads: the live circuit
 * schedule (double-buffered: timing in dc_rd_cfg, matchings in
 * dc_rd_sched, the flip word dc_rd_flip naming the copy live from a
 * period boundary on; written by user space only, loader/rdcn/rdpub.c),
 * the ToRs' uplink addresses (dc_rd_mac: a frame's next hop) and the ToR
 * uplinks whose INT hop follows the slot (dc_rd_tor).  Included by the
 * circuit switch (maps/rdcn.h, bpf/rdcn.bpf.c) and INT's transit hop
 * (bpf/int_transit.bpf.c).  Table: docs/rdcn.md.
 */
#ifndef DCBPF_MAPS_RDCN_SCHED_H
#define DCBPF_MAPS_RDCN_SCHED_H

#include "dcbpf/rdcn.h"

/* Buffer (0, 1) -> that copy's epoch, slot, day, period, shape. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_RD_BUFS);
	__type(key, __u32);
	__type(value, struct dc_rd_cfg);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_rd_cfg SEC(".maps");

/* buffer x DC_RD_SLOTS_MAX + slot (dc_rd_sched_key) -> the matchings. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_RD_BUFS * DC_RD_SLOTS_MAX);
	__type(key, __u32);
	__type(value, struct dc_rd_slot);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_rd_sched SEC(".maps");

/* One entry: the flip word (dc_rd_flip_make); one 64-bit store flips. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_rd_flip);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_rd_flip SEC(".maps");

/* A ToR's uplink MAC address -> that ToR: a frame's next hop. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DC_RD_PORTS);
	__type(key, struct dc_rd_mac_key);
	__type(value, struct dc_rd_dst);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_rd_mac SEC(".maps");

/* ifindex of a ToR's uplink -> its ToR, uplink and the rates its INT hop
 * reports (dc_rd_pair_rate_mbps).  Keyed by the ToR namespace's ifindex:
 * the program reading it runs in that namespace. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DC_RD_PORTS);
	__type(key, __u32);
	__type(value, struct dc_rd_tor);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_rd_tor SEC(".maps");

/*
 * The live schedule at now: the configuration (*cp, NULL if none) and,
 * during a day, the slot's matchings (*sp).  Returns dc_rd_where's answer
 * (-1 when nothing is live).
 */
static __always_inline int dc_rd_live_at(__u64 now, const struct dc_rd_cfg **cp, const struct dc_rd_slot **sp)
{
	__u32 zero = 0, buf, slot = 0, key;
	const struct dc_rd_flip *fl;
	const struct dc_rd_cfg *c;
	__u64 left = 0;
	int where;

	*cp = NULL;
	*sp = NULL;
	fl = bpf_map_lookup_elem(&dc_rd_flip, &zero);
	if (!fl)
		return -1;
	buf = dc_rd_live_buf(fl->buf_at_ns, now);
	c = bpf_map_lookup_elem(&dc_rd_cfg, &buf);
	if (!c)
		return -1;
	*cp = c;
	where = dc_rd_where(c, now, &slot, &left);
	if (where > 0) {
		key = dc_rd_sched_key(buf, slot);
		*sp = bpf_map_lookup_elem(&dc_rd_sched, &key);
	}
	return where;
}

/*
 * The rate the INT hop of ToR uplink `ifindex` reports at now for a frame
 * whose destination MAC is dst (its next hop): the circuit's while the
 * pair's circuit is up, the packet network's otherwise.  0 with *mbps set,
 * or -1 if the interface is no ToR uplink of dc_rd_tor (the caller keeps
 * its own rate).
 */
static __always_inline int dc_rd_tor_rate(__u32 ifindex, const __u8 *dst, __u64 now, __u32 *mbps)
{
	struct dc_rd_mac_key k = {};
	const struct dc_rd_slot *s;
	const struct dc_rd_cfg *c;
	const struct dc_rd_dst *d;
	const struct dc_rd_tor *t;
	__u32 to;
	int where;

	t = bpf_map_lookup_elem(&dc_rd_tor, &ifindex);
	if (!t)
		return -1;
	__builtin_memcpy(k.addr, dst, sizeof(k.addr));
	d = bpf_map_lookup_elem(&dc_rd_mac, &k);
	to = d ? d->tor : DC_RD_TORS_MAX;
	where = dc_rd_live_at(now, &c, &s);
	*mbps = c ? dc_rd_pair_rate_mbps(where, c, s, t->up, t->tor, to, t->circuit_mbps, t->packet_mbps)
		  : t->packet_mbps;
	return 0;
}

#endif
