/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `dcbpf icon`: ICON's sockops program on a cgroup and the incast degree n
 * sinks advertise (docs/icon.md); DC_ICON_CMD is its line in the top-level
 * table.
 */
#ifndef DCBPF_ICON_ICONCMD_H
#define DCBPF_ICON_ICONCMD_H

#include "cmd.h"

extern const struct dc_cmd dc_icon_cmds[];

#define DC_ICON_CMD \
	{ "icon", .sub = dc_icon_cmds, .summary = "ICON: incast degree in a TCP option, paced senders (docs/icon.md)" }

#endif
