/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the commands of the per-socket areas (icon, ictcp, resq) print
 * alike, as text or JSON on the context's output: the answers of attach
 * and detach, the counters line, and the table of flows mirrored in a map
 * keyed by struct dc_flow_key (IPv4 entries; the programs skip others).
 */
#ifndef DCBPF_LOADER_AREAOUT_H
#define DCBPF_LOADER_AREAOUT_H

#include <linux/types.h>
#include <stddef.h>

#include "cmd.h"
#include "counters.h"
#include "sockops.h"

/* "A.B.C.D:PORT" from a network-order address and a host-order port. */
void dc_addr_port_str(char *buf, size_t len, __u32 addr_be, __u16 port);

/* PIN_DIR/AREA (o->obj) into dir; EXIT_USAGE with ctx's error set when
 * it does not fit. */
int dc_area_dir(struct dc_ctx *ctx, const struct dc_sockops_obj *o, char *dir, size_t len);
/* A pinned map of the area, or -1 with a reason naming the attach
 * command. */
int dc_area_open_map(struct dc_ctx *ctx, const struct dc_sockops_obj *o, const char *dir,
		     const char *name);
/* The commands attach and detach: "AREA: attached to CGROUP (pins in
 * DIR)NOTE" or {"cgroup", "pins"}; "AREA: detached" or {"detached": true}. */
int dc_area_attach(struct dc_ctx *ctx, const struct dc_sockops_obj *o, const char *cgroup,
		   const char *note);
int dc_area_detach(struct dc_ctx *ctx, const struct dc_sockops_obj *o);

/* Inside status's object: the counters (a "counters" object, or a line),
 * then the flows' legend (text) or the opened "flows" array (JSON). */
void dc_area_counters(struct dc_ctx *ctx, const struct dc_ctr_set *set, const void *ctr,
		      const char *legend);
/* One flow: its ends and value (JSON: inside an object already holding
 * "local" and "remote"; the row adds its own members). */
typedef void (*dc_area_row_fn)(struct dc_ctx *ctx, const char *local, const char *remote,
			       const void *val);
/* Every IPv4 entry of the flow map fd, val a buffer of its value size. */
void dc_area_flows(struct dc_ctx *ctx, int fd, void *val, dc_area_row_fn row);
/* JSON: closes the flows array and status's object. */
void dc_area_end(struct dc_ctx *ctx);

#endif
