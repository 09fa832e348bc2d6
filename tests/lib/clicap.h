/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A command of a host unit test's command table run in-process, as
 * `dcbpf ARGS...`, its stdout and stderr kept (cut at the buffers' size)
 * in cli_out and cli_err for the checks.
 */
#ifndef DCBPF_TESTS_CLICAP_H
#define DCBPF_TESTS_CLICAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"

static char cli_out[8192], cli_err[1024];

/* dcbpf [PRE] FIRST ARGS... (AP: the rest, NULL-terminated); the exit code. */
static int cli_run_va(const struct dc_app *app, const char *pre, const char *first, va_list ap)
{
	char *argv[40] = { "dcbpf" };
	struct dc_ctx ctx;
	FILE *out, *err;
	int argc = 1, rc;

	if (pre)
		argv[argc++] = (char *)pre;
	for (argv[argc] = (char *)first; argv[argc] && argc < 38; argv[argc] = va_arg(ap, char *))
		argc++;
	memset(cli_out, 0, sizeof(cli_out));
	memset(cli_err, 0, sizeof(cli_err));
	out = fmemopen(cli_out, sizeof(cli_out) - 1, "w");
	err = fmemopen(cli_err, sizeof(cli_err) - 1, "w");
	dc_ctx_init(&ctx, app, out, err);
	rc = dc_main(&ctx, argc, argv);
	fclose(out);
	fclose(err);
	return rc;
}

#endif
