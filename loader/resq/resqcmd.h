/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `dcbpf resq`: ResQueue's (and PIAS') DSCP tagger on a host's interfaces
 * (docs/resqueue.md); DC_RESQ_CMD is its line in the top-level table.
 */
#ifndef DCBPF_RESQ_RESQCMD_H
#define DCBPF_RESQ_RESQCMD_H

#include "cmd.h"

extern const struct dc_cmd dc_resq_cmds[];

#define DC_RESQ_CMD \
	{ "resq", .sub = dc_resq_cmds, .summary = "ResQueue/PIAS: MLFQ level in the DSCP on hosts (docs/resqueue.md)" }

#endif
