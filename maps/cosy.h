/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cosy switch maps (bpf/cosy.bpf.c), defined once.  Pinned by name under
 * the pin dir of the switch's namespace, so `bpftool map dump pinned
 * …/dc_cosy_port` shows every port's VL bitmap and, per VL, the message,
 * sequence number, expiry and mapped outgoing (port, VL) as named fields.
 * Layouts: include/dcbpf/cosy.h; table: docs/maps.md.
 */
#ifndef DCBPF_MAPS_COSY_H
#define DCBPF_MAPS_COSY_H

#include "dcbpf/cosy.h"

/* Ports of one switch (port numbers 0 .. DC_COSY_PORTS_MAX - 1). */
#define DC_COSY_PORTS_MAX 64
/* Hosts a switch has a route entry for. */
#define DC_COSY_ROUTES_MAX 4096

/* Switch configuration: K, mode, δ_cosy, switch id (one entry). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_cosy_cfg);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_cosy_cfg SEC(".maps");

/* Port number -> ifindex, addresses, VL book (spin lock inside), counters. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_COSY_PORTS_MAX);
	__type(key, __u32);
	__type(value, struct dc_cosy_port);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_cosy_port SEC(".maps");

/* ifindex -> port number: which port a packet came in by. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DC_COSY_PORTS_MAX);
	__type(key, __u32);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_cosy_ifport SEC(".maps");

/* Host IPv4 address (network order) -> the ports on shortest paths to it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DC_COSY_ROUTES_MAX);
	__type(key, __u32);
	__type(value, struct dc_cosy_route);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_cosy_route SEC(".maps");

/* Counters of the program (one entry). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_cosy_stats);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dc_cosy_stats SEC(".maps");

#endif
