// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The CC commands' access to the pinned maps and their output (ccmd.h). */
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "ccmd.h"
#include "cli.h"
#include "counters.h"

int cc_open_map(struct dc_ctx *ctx, const char *name, __u32 type, __u32 ksz, __u32 vsz)
{
	char why[512];
	int fd = dc_pinned_map_open(ctx->pin_dir, name, type, ksz, vsz, why, sizeof(why));

	if (fd < 0)
		dc_fail(ctx, EXIT_ERR, "%s", why);
	return fd;
}

int cc_open_cfg(struct dc_ctx *ctx)
{
	return cc_open_map(ctx, DC_MAP_CFG, BPF_MAP_TYPE_HASH, sizeof(__u32),
			   sizeof(struct dc_cc_cfg));
}

void cc_read_cfgs(int fd, struct dc_cc_cfg *cfg, bool *present)
{
	unsigned int i;

	for (i = 0; i < DC_CC_MAX; i++) {
		present[i] = !dc_cfg_read(fd, (enum dc_cc_id)i, &cfg[i]);
		if (!present[i])
			dc_cc_cfg_defaults(&cfg[i]);
	}
}

int cc_load_cfgs(struct dc_ctx *ctx, struct dc_cc_cfg *cfg, bool *present)
{
	int fd = cc_open_cfg(ctx);

	if (fd < 0)
		return -1;
	cc_read_cfgs(fd, cfg, present);
	close(fd);
	return 0;
}

int cc_read_counters(struct dc_ctx *ctx, struct dc_cc_counters *s)
{
	unsigned int i;
	int fd;

	fd = cc_open_map(ctx, DC_MAP_STATS, BPF_MAP_TYPE_ARRAY, sizeof(__u32),
			 sizeof(struct dc_cc_counters));
	if (fd < 0)
		return -1;
	for (i = 0; i < DC_CC_MAX; i++)
		dc_ctr_read(&dc_ctr_cc, fd, i, false, &s[i]);	/* zero if unreadable */
	close(fd);
	return 0;
}

void cc_print_counters(struct dc_ctx *ctx, const struct dc_cc_counters *s)
{
	const char *cols[DC_CC_MAX];
	const void *vals[DC_CC_MAX];
	unsigned int k;

	for (k = 0; k < DC_CC_MAX; k++) {
		if (ctx->json) {
			jw_obj(&ctx->jw, dc_ccs[k].name);
			dc_ctr_json(&ctx->jw, &dc_ctr_cc, &s[k], 0);
			jw_end_obj(&ctx->jw);
		}
		cols[k] = dc_ccs[k].name;
		vals[k] = &s[k];
	}
	if (!ctx->json)
		dc_ctr_table(ctx->out, &dc_ctr_cc, DC_CC_MAX, cols, vals, 0);
}

void cc_emit_param(struct dc_ctx *ctx, const char *prefix, const struct dc_param *p,
		   const struct dc_cc_cfg *cfg, bool bare)
{
	char val[64];

	dc_param_format(p, cfg, val, sizeof(val));
	if (ctx->json)
		jw_raw(&ctx->jw, p->name, val);	/* numeric kinds only in [cc] */
	else if (bare)
		fprintf(ctx->out, "%s\n", val);
	else
		fprintf(ctx->out, "%s.%s = %s\n", prefix, p->name, val);
}
