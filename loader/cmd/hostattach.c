// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf attach|detach IFACE...`: host INT programs on interfaces at run
 * time, with the option table of `int attach` (loader/int/), in the
 * config's [int] namespace unless --netns names one ('' the own one).
 * Pinned like the daemon's own, so a running or restarted dcbpfd adopts
 * them (docs/cli.md).
 */
#include <string.h>

#include "cli.h"
#include "dcbpf.h"
#include "int/intctl.h"

int dc_host_attach_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	struct dc_int_attach_args *a = ctx->opts;
	const char *ns = dc_cli(ctx)->cfg.intf.netns;
	int rc;

	(void)argc;
	if (!a->netns)
		a->netns = ns[0] ? ns : NULL;
	else if (!a->netns[0])
		a->netns = NULL;
	rc = dc_cli_need_root(ctx);
	if (rc)
		return rc;
	return dc_int_hosts_cmd(ctx, !strcmp(argv[0], "detach"));
}
