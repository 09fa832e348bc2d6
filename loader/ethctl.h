/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* `dcbpf ethereal …`: Ethereal path tagging on hosts, steering on leaves
 * (docs/ethereal.md, docs/cli.md). */
#ifndef DCBPF_LOADER_ETHCTL_H
#define DCBPF_LOADER_ETHCTL_H

#include <stdbool.h>

/* argv[0] is "ethereal".  Returns a dcbpf exit code. */
int dc_eth_main(const char *pin_dir, bool json, int argc, char **argv);

#endif
