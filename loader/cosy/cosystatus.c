// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dcbpf cosy status (docs/cosy.md, "The switch on live ports"): what
 * `cosy attach` pinned under PIN_DIR/cosy/NS, read back: per port the VLs
 * held (reserved and not expired) and its counters, every route, the
 * switch's counters (dc_ctr_cosy: the one list the CLI and Prometheus share).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "dcbpf/cosy.h"
#include "cli.h"
#include "clock.h"
#include "config.h"
#include "counters.h"
#include "cosy/cosycmd.h"
#include "cosy/cosysw.h"

/* A port's counters (struct dc_cosy_port_ctr): the port table's columns. */
#define COSY_PCTR(X) X(reserved) X(reclaimed) X(released) X(fwd_data) X(fwd_ctrl)

static int open_pin(struct dc_ctx *ctx, const char *dir, const char *name, const char *netns)
{
	char path[DC_PATH_LEN * 3];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		dc_fail(ctx, EXIT_ERR, errno == ENOENT ? "cosy is not attached in netns %s (%s: %s): run 'dcbpf cosy attach' first"
						      : "netns %s: %s: %s",
			cosy_ns_label(netns), path, strerror(errno));
	return fd;
}

int dc_cosy_status_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct dc_cosy_ns_args *a = ctx->opts;
	struct dc_cosy_port pts[PORTS_MAX];
	char dir[DC_PATH_LEN * 2], names[PORTS_MAX][IF_NAMESIZE], ab[INET_ADDRSTRLEN];
	__u32 nums[PORTS_MAX], zero = 0, key, *prev = NULL, pkey;
	struct dc_cosy_stats st;
	struct dc_cosy_cfg cfg;
	struct dc_cosy_route rt;
	unsigned int n, i, d, nroutes = 0;
	int fd[4] = { -1, -1, -1, -1 }, rc = EXIT_OK;
	__u64 now = dc_mono_ns(), drops = 0;

	(void)argc;
	(void)argv;

	if (cosy_dir(dir, sizeof(dir), ctx->pin_dir, a->netns, &ctx->err))
		return ctx->err.code;
	if ((fd[0] = open_pin(ctx, dir, "dc_cosy_cfg", a->netns)) < 0 ||
	    (fd[1] = open_pin(ctx, dir, "dc_cosy_port", a->netns)) < 0 ||
	    (fd[2] = open_pin(ctx, dir, "dc_cosy_route", a->netns)) < 0 ||
	    (fd[3] = open_pin(ctx, dir, "dc_cosy_stats", a->netns)) < 0) {
		rc = ctx->err.code;
		goto out;
	}
	memset(&cfg, 0, sizeof(cfg));
	memset(&st, 0, sizeof(st));
	bpf_map_lookup_elem(fd[0], &zero, &cfg);
	bpf_map_lookup_elem(fd[3], &zero, &st);
	n = cosy_port_names(a->netns, fd[1], names, nums, pts);
	for (d = 0; d < DC_COSY_D_MAX; d++)
		drops += st.drop[d];
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_str(&ctx->jw, "netns", cosy_ns_label(a->netns));
		jw_u64(&ctx->jw, "k", dc_cosy_eff_k(cfg.k, cfg.mode));
		jw_str(&ctx->jw, "mode", cfg.mode == DC_COSY_MODE_RSVP ? "rsvp" : "cosy");
		jw_u64(&ctx->jw, "expiry_ns", cfg.expiry_ns);
		jw_u64(&ctx->jw, "switch_id", cfg.switch_id);
		jw_arr(&ctx->jw, "ports");
	} else {
		fprintf(ctx->out, "# cosy in netns %s: K %u (%s), expiry %llu ns, switch id %u\n",
			cosy_ns_label(a->netns), dc_cosy_eff_k(cfg.k, cfg.mode),
			cfg.mode == DC_COSY_MODE_RSVP ? "RSVP" : "cosy", (unsigned long long)cfg.expiry_ns,
			cfg.switch_id);
		fprintf(ctx->out, "%-4s %-15s %4s %18s %9s %9s %9s %9s %9s\n", "port", "if", "held", "vl_bitmap",
			"reserved", "reclaimed", "released", "fwd_data", "fwd_ctrl");
	}
	for (i = 0; i < n; i++) {
		const struct dc_cosy_port *pt = &pts[i];
		__u32 k = dc_cosy_eff_k(cfg.k, cfg.mode);
		/* held: reserved and not expired (an expired VL is free: lazy expiry) */
		__u64 all = k >= 64 ? ~0ULL : (1ULL << k) - 1;
		__u64 live = all & ~dc_cosy_free_mask(&pt->vls, k, now);
		char hex[24];

		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)live);

		if (ctx->json) {
			jw_obj(&ctx->jw, NULL);
			jw_u64(&ctx->jw, "port", nums[i]);
			jw_str(&ctx->jw, "if", names[i]);
			jw_u64(&ctx->jw, "held", (__u64)__builtin_popcountll(live));
			jw_arr(&ctx->jw, "vls");
			for (__u32 v = 0; v < k; v++)
				if ((live >> v) & 1)
					jw_u64(&ctx->jw, NULL, v);
			jw_end_arr(&ctx->jw);
#define J(f) jw_u64(&ctx->jw, #f, pt->ctr.f);
			COSY_PCTR(J)
#undef J
			jw_end_obj(&ctx->jw);
		} else {
			fprintf(ctx->out, "%-4u %-15s %4d %18s %9llu %9llu %9llu %9llu %9llu\n", nums[i],
				names[i], __builtin_popcountll(live), hex,
				(unsigned long long)pt->ctr.reserved, (unsigned long long)pt->ctr.reclaimed,
				(unsigned long long)pt->ctr.released, (unsigned long long)pt->ctr.fwd_data,
				(unsigned long long)pt->ctr.fwd_ctrl);
		}
	}
	if (ctx->json) {
		jw_end_arr(&ctx->jw);
		jw_arr(&ctx->jw, "routes");
	} else {
		fprintf(ctx->out, "%-15s %s\n", "host", "candidate ports");
	}
	while (nroutes < ROUTES_MAX && !bpf_map_get_next_key(fd[2], prev, &key)) {
		pkey = key;
		prev = &pkey;
		if (bpf_map_lookup_elem(fd[2], &key, &rt))
			continue;
		nroutes++;
		inet_ntop(AF_INET, &key, ab, sizeof(ab));
		if (ctx->json) {
			jw_obj(&ctx->jw, NULL);
			jw_str(&ctx->jw, "host", ab);
			jw_arr(&ctx->jw, "ports");
		} else {
			fprintf(ctx->out, "%-15s", ab);
		}
		for (__u32 c = 0; c < rt.nports && c < DC_COSY_CAND_MAX; c++) {
			const char *nm = "?";

			for (i = 0; i < n; i++)
				if (nums[i] == rt.port[c])
					nm = names[i];
			if (ctx->json)
				jw_str(&ctx->jw, NULL, nm);
			else
				fprintf(ctx->out, "%s%s", c ? "," : " ", nm);
		}
		if (ctx->json) {
			jw_end_arr(&ctx->jw);
			jw_end_obj(&ctx->jw);
		} else {
			fputc('\n', ctx->out);
		}
	}
	if (ctx->json) {
		jw_end_arr(&ctx->jw);
		jw_obj(&ctx->jw, "counters");
		dc_ctr_json(&ctx->jw, &dc_ctr_cosy, &st, 0);
		jw_u64(&ctx->jw, "drops", drops);
		jw_end_obj(&ctx->jw);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		fprintf(ctx->out, "# switch: drops %llu ", (unsigned long long)drops);
		dc_ctr_line(ctx->out, &dc_ctr_cosy, &st, 0);
		fputc('\n', ctx->out);
	}
out:
	for (i = 0; i < 4; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	return rc;
}
