/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* `dcbpf int …`: INT programs on hosts and switches (docs/int.md, docs/cli.md). */
#ifndef DCBPF_LOADER_INTCTL_H
#define DCBPF_LOADER_INTCTL_H

#include <stdbool.h>

#include "cmd.h"

/* attach, detach, switch attach|detach, dst add|del|list, status */
extern const struct dc_cmd dc_int_cmds[];

/* `int attach|detach` and the top-level `attach|detach`: one table. */
struct dc_int_attach_args {
	const char *netns;		/* NULL: the caller's own */
	bool no_links;
	struct dc_opt_rest ifaces;	/* IFACE... */
};
extern const struct dc_opt dc_int_attach_opts[];

/* Host programs on (or off) each of ifaces, all or nothing.  EXIT_OK, or
 * an exit code with err set. */
int dc_int_hosts(const char *pin_dir, const struct dc_int_attach_args *a, bool detach,
		 struct dc_err *err);
/* The same as a command (ctx->opts a struct dc_int_attach_args): prints
 * its result in JSON mode, nothing otherwise. */
int dc_int_hosts_cmd(struct dc_ctx *ctx, bool detach);

#endif
