/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `dcbpf superways`: the placement planner (include/dcbpf/superways.h)
 * on the command line; DC_SWAY_CMD is its line in the top-level table.
 */
#ifndef DCBPF_SUPERWAYS_SWAYCMD_H
#define DCBPF_SUPERWAYS_SWAYCMD_H

#include "cmd.h"

extern const struct dc_cmd dc_sway_cmds[];

#define DC_SWAY_CMD \
	{ "superways", .sub = dc_sway_cmds, .summary = "Superways: incast servers and their extra spine links (docs/superways.md)" }

#endif
