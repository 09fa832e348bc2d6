/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* dcbpf exit codes, shared by every subcommand module (docs/cli.md). */
#ifndef DCBPF_LOADER_CLI_H
#define DCBPF_LOADER_CLI_H

enum {
	EXIT_OK = 0,
	EXIT_ERR = 1,	/* runtime: maps missing, not root, kernel refused */
	EXIT_USAGE = 2,	/* bad command, key or value */
};

#endif
