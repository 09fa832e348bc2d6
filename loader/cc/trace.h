/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* `dcbpf trace`: PowerTCP per-ACK decisions from the dc_cc_trace ring buffer. */
#ifndef DCBPF_LOADER_TRACE_H
#define DCBPF_LOADER_TRACE_H

#include <stdbool.h>

#include "cmd.h"

struct dc_trace_args {
	bool csv;
	int cc;			/* DC_CC_* + 1; 0 = both */
	unsigned long count;	/* stop after this many events; 0 = no limit */
	double duration_s;	/* 0 = until interrupted */
	const char *sw;		/* a switch's drops instead */
};
extern const struct dc_opt dc_trace_opts[];
int dc_trace_main(struct dc_ctx *ctx, int argc, char **argv);

/* The leaf command, as an entry of the top-level table. */
#define DC_TRACE_CMD								\
	{ "trace", dc_trace_main, dc_trace_opts, sizeof(struct dc_trace_args),	\
	  .summary = "PowerTCP per-ACK decisions as they happen, or a switch's drops", \
	  .flags = DC_CMD_F_ROOT,						\
	  .doc = "Tracing is on only while the command runs; Ctrl-C, --count or --duration " \
		 "end it." }

#endif
