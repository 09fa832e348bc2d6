/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `dcbpf perc`: the s-PERC oracle and simulator (percsim.h) on the
 * command line; DC_PERC_CMD is its line in the top-level table.
 */
#ifndef DCBPF_PERC_PERCCMD_H
#define DCBPF_PERC_PERCCMD_H

#include "cmd.h"

extern const struct dc_cmd dc_perc_cmds[];

#define DC_PERC_CMD \
	{ "perc", .sub = dc_perc_cmds, .summary = "s-PERC explicit rates: oracle, simulator, links, hosts (docs/perc.md)" }

#endif
