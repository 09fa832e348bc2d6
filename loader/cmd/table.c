// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dcbpf's top-level command table: one line per command.  A domain points
 * its line at its own table (.sub = dc_sw_cmds) or leaf (.fn, .opts).
 */
#include "dcbpf.h"
#include "cosy/cosycmd.h"
#include "credence/credence.h"
#include "sim/simcmd.h"
#include "perc/perccmd.h"
#include "rdcn/rdcncmd.h"
#include "superways/swaycmd.h"
#include "icon/iconcmd.h"
#include "ictcp/ictcpcmd.h"
#include "resq/resqcmd.h"
#include "cc/trace.h"
#include "eth/ethctl.h"
#include "int/intctl.h"
#include "sw/swctl.h"

const struct dc_cmd dc_top_cmds[] = {
	{ "status", dc_cc_status_cmd, dc_cc_no_opts, 0, .flags = DC_CMD_F_ROOT,
	  .summary = "daemon, registered CCs, ABI, pinned maps, counters", .doc = DC_CC_STATUS_DOC },
	{ "get", dc_cc_get_cmd, dc_cc_get_opts, sizeof(struct dc_cc_get_args),
	  .summary = "live parameters in user units (KEY alone: the bare value)" },
	{ "set", dc_cc_set_cmd, dc_cc_set_opts, sizeof(struct dc_cc_set_args),
	  .summary = "change live parameters, all or nothing", .doc = DC_CC_SET_DOC },
	{ "dump", .sub = dc_cc_dump_cmds, .summary = "per-flow state, counters, raw config entries" },
	{ "params", dc_cc_params_cmd, dc_cc_no_opts, 0,
	  .summary = "the parameter reference (markdown; --json too)" },
	{ "switch", .sub = dc_sw_cmds, .summary = "emulated switches (docs/cli.md)" },
	DC_SIM_CMD,
	DC_PERC_CMD,
	DC_COSY_CMD,
	DC_SWAY_CMD,
	DC_ICON_CMD,
	DC_ICTCP_CMD,
	DC_RESQ_CMD,
	DC_RDCN_CMD,
	DC_CRED_CMD,
	DC_TRACE_CMD,
	{ "int", .sub = dc_int_cmds, .summary = "in-band telemetry on hosts and switches" },
	{ "ethereal", .sub = dc_eth_cmds, .summary = "Ethereal path tagging and steering (docs/ethereal.md)" },
	{ "metrics", dc_metrics_cmd, dc_metrics_opts, sizeof(struct dc_metrics_args),
	  .summary = "the pinned counters in the Prometheus text format",
	  .doc = "On stdout, or with --textfile written to PATH.tmp and renamed to PATH, so a\n"
		 "collector never reads half a file.  Names and labels: docs/operations.md." },
	{ "attach", dc_host_attach_cmd, dc_int_attach_opts, sizeof(struct dc_int_attach_args),
	  .summary = "host INT programs on interfaces at run time", .doc = DC_HOST_ATTACH_DOC },
	{ "detach", dc_host_attach_cmd, dc_int_attach_opts, sizeof(struct dc_int_attach_args),
	  .summary = "remove host INT programs from interfaces", .doc = DC_HOST_ATTACH_DOC },
	{ "__walk", dc_walk_cmd, dc_cc_no_opts, 0, .flags = DC_CMD_F_HIDDEN,
	  .summary = "every command's path, one per line (tests)" },
	{ "__gen", dc_gen_cmd, dc_gen_opts, sizeof(struct dc_gen_args), .flags = DC_CMD_F_HIDDEN,
	  .summary = "the bash completion or man page from this table (make)" },
	{ NULL },
};
