/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `dcbpf ictcp`: ICTCP's sockops program on the aggregator's cgroup and its
 * parameters (docs/icon.md, "ICTCP"); DC_ICTCP_CMD is its line in the
 * top-level table.
 */
#ifndef DCBPF_ICTCP_ICTCPCMD_H
#define DCBPF_ICTCP_ICTCPCMD_H

#include "cmd.h"

extern const struct dc_cmd dc_ictcp_cmds[];

#define DC_ICTCP_CMD \
	{ "ictcp", .sub = dc_ictcp_cmds, .summary = "ICTCP: receive-window incast control at the aggregator (docs/icon.md)" }

#endif
