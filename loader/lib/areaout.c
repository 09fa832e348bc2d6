// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Output shared by the per-socket areas' commands (areaout.h). */
#include <arpa/inet.h>
#include <stdio.h>
#include <bpf/bpf.h>

#include "dcbpf/flow.h"
#include "areaout.h"
#include "cli.h"
#include "config.h"
#include "pins.h"

void dc_addr_port_str(char *buf, size_t len, __u32 addr_be, __u16 port)
{
	struct in_addr in = { .s_addr = addr_be };
	char a[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &in, a, sizeof(a));
	snprintf(buf, len, "%s:%u", a, port);
}

int dc_area_dir(struct dc_ctx *ctx, const struct dc_sockops_obj *o, char *dir, size_t len)
{
	if (dc_pin_path(dir, len, ctx->pin_dir, o->obj))
		return dc_fail(ctx, EXIT_USAGE, "pin directory %s: name too long", ctx->pin_dir);
	return 0;
}

int dc_area_open_map(struct dc_ctx *ctx, const struct dc_sockops_obj *o, const char *dir,
		     const char *name)
{
	char hint[64];

	snprintf(hint, sizeof(hint), "dcbpf %s attach --cgroup DIR", o->obj);
	return dc_pin_open_map(dir, name, o->what, hint, &ctx->err);
}

int dc_area_attach(struct dc_ctx *ctx, const struct dc_sockops_obj *o, const char *cgroup,
		   const char *note)
{
	char dir[DC_PATH_LEN * 2];

	if (dc_area_dir(ctx, o, dir, sizeof(dir)) || dc_sockops_attach(o, dir, cgroup, &ctx->err))
		return ctx->err.code;
	if (!ctx->json) {
		fprintf(ctx->out, "%s: attached to %s (pins in %s)%s\n", o->obj, cgroup, dir, note);
		return EXIT_OK;
	}
	jw_obj(&ctx->jw, NULL);
	jw_str(&ctx->jw, "cgroup", cgroup);
	jw_str(&ctx->jw, "pins", dir);
	jw_end_obj(&ctx->jw);
	jw_done(&ctx->jw);
	return EXIT_OK;
}

int dc_area_detach(struct dc_ctx *ctx, const struct dc_sockops_obj *o)
{
	char dir[DC_PATH_LEN * 2];

	if (dc_area_dir(ctx, o, dir, sizeof(dir)) || dc_sockops_detach(o->what, o->obj, dir, &ctx->err))
		return ctx->err.code;
	if (!ctx->json) {
		fprintf(ctx->out, "%s: detached\n", o->obj);
		return EXIT_OK;
	}
	jw_obj(&ctx->jw, NULL);
	jw_bool(&ctx->jw, "detached", true);
	jw_end_obj(&ctx->jw);
	jw_done(&ctx->jw);
	return EXIT_OK;
}

void dc_area_counters(struct dc_ctx *ctx, const struct dc_ctr_set *set, const void *ctr,
		      const char *legend)
{
	if (ctx->json) {
		jw_obj(&ctx->jw, "counters");
		dc_ctr_json(&ctx->jw, set, ctr, 0);
		jw_end_obj(&ctx->jw);
		jw_arr(&ctx->jw, "flows");
	} else {
		fprintf(ctx->out, "counters: ");
		dc_ctr_line(ctx->out, set, ctr, 0);
		fprintf(ctx->out, "\n%s\n", legend);
	}
}

void dc_area_flows(struct dc_ctx *ctx, int fd, void *val, dc_area_row_fn row)
{
	struct dc_flow_key k, next, *prev = NULL;
	char local[64], remote[64];

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, val) || k.family != DC_AF_INET)
			continue;
		dc_addr_port_str(local, sizeof(local), k.saddr[0], k.sport);
		dc_addr_port_str(remote, sizeof(remote), k.daddr[0], k.dport);
		if (ctx->json) {
			jw_obj(&ctx->jw, NULL);
			jw_str(&ctx->jw, "local", local);
			jw_str(&ctx->jw, "remote", remote);
		}
		row(ctx, local, remote, val);
		if (ctx->json)
			jw_end_obj(&ctx->jw);
	}
}

void dc_area_end(struct dc_ctx *ctx)
{
	if (!ctx->json)
		return;
	jw_end_arr(&ctx->jw);
	jw_end_obj(&ctx->jw);
	jw_done(&ctx->jw);
}
