/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the CC commands of loader/cmd/ share (ccmaps.c): the pinned maps
 * opened by name with the reason in ctx->err, the config entries, the
 * counters.  Output goes to ctx->out (text) or ctx->jw (--json).
 */
#ifndef DCBPF_CMD_CCMD_H
#define DCBPF_CMD_CCMD_H

#include <stdbool.h>
#include <linux/types.h>

#include "bpfsys.h"
#include "config.h"
#include "dcbpf.h"

/* The pinned map NAME under ctx->pin_dir, checked for type and sizes: an
 * fd, or -1 with ctx->err set (EXIT_ERR). */
int cc_open_map(struct dc_ctx *ctx, const char *name, __u32 type, __u32 ksz, __u32 vsz);
int cc_open_cfg(struct dc_ctx *ctx);
/* Every entry; a missing one reads as the defaults the CC falls back to. */
void cc_read_cfgs(int fd, struct dc_cc_cfg *cfg, bool *present);
/* Open, read every entry, close: for commands that only look.  0 or -1. */
int cc_load_cfgs(struct dc_ctx *ctx, struct dc_cc_cfg *cfg, bool *present);
/* The counters of every CC (dc_ctr_cc).  0 or -1 with ctx->err set. */
int cc_read_counters(struct dc_ctx *ctx, struct dc_cc_counters *s);
/* A table with a column per CC, or one JSON object per CC in the current object. */
void cc_print_counters(struct dc_ctx *ctx, const struct dc_cc_counters *s);
/* "CC.KEY = VALUE" (bare: VALUE), or the JSON member KEY. */
void cc_emit_param(struct dc_ctx *ctx, const char *prefix, const struct dc_param *p,
		   const struct dc_cc_cfg *cfg, bool bare);

#endif
