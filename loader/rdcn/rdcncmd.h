/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `dcbpf rdcn`: periodic circuit schedules and the rotor model's bounds
 * (rdcn.h) on the command line; DC_RDCN_CMD is its line in the top-level
 * table.
 */
#ifndef DCBPF_RDCN_RDCNCMD_H
#define DCBPF_RDCN_RDCNCMD_H

#include "cmd.h"

extern const struct dc_cmd dc_rdcn_cmds[];

#define DC_RDCN_CMD \
	{ "rdcn", .sub = dc_rdcn_cmds, \
	  .summary = "reconfigurable networks: circuit schedules and bounds (docs/rdcn.md)" }

#endif
