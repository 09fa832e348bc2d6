/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* `dcbpf ethereal …`: Ethereal path tagging on hosts, steering on leaves
 * (docs/ethereal.md, docs/cli.md). */
#ifndef DCBPF_LOADER_ETHCTL_H
#define DCBPF_LOADER_ETHCTL_H

#include "cmd.h"

/* host attach|set|detach, leaf attach|detach, status, flows */
extern const struct dc_cmd dc_eth_cmds[];

#endif
