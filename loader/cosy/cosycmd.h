/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `dcbpf cosy`: cosy's bounds on the command line; DC_COSY_CMD is its line
 * in the top-level table.
 */
#ifndef DCBPF_COSY_COSYCMD_H
#define DCBPF_COSY_COSYCMD_H

#include "cmd.h"

extern const struct dc_cmd dc_cosy_cmds[];

#define DC_COSY_CMD \
	{ "cosy", .sub = dc_cosy_cmds, .summary = "cosy bounded-delay messages: bounds calculator (docs/cosy.md)" }

#endif
