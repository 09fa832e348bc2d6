// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf switch …`: the subcommands and their options, declared once; the
 * dispatcher (lib/cmd.h) parses, validates and answers --help from here.
 */
#include <linux/if_link.h>

#include "sw/swint.h"

#define NAME_OPT(T)                                                                      \
	{ "NAME", 0, DC_OPT_STR, DC_FIELD(T, name), NULL, .help = "the switch (" SW_NAME_RULE ")", \
	  .required = true, .flags = DC_OPT_F_POS, .umax = DC_SW_NAME_LEN - 1 }

static const struct dc_opt_name xdp_modes[] = {
	{ "generic", XDP_FLAGS_SKB_MODE },
	{ "native", XDP_FLAGS_DRV_MODE },
	{ NULL },
};

static const struct dc_opt up_opts[] = {
	NAME_OPT(struct sw_up_args),
	{ "KEY=VALUE", 0, DC_OPT_REST, DC_FIELD(struct sw_up_args, kv), NULL,
	  .help = "initial parameters (dcbpf switch params)" },
	{ "netns", 0, DC_OPT_STR, DC_FIELD(struct sw_up_args, netns), "NS",
	  .help = "network namespace of the ports", .required = true },
	{ "ports", 0, DC_OPT_STR, DC_FIELD(struct sw_up_args, ports), "IF[,IF...]",
	  .help = "interfaces that are the switch's ports, in port order", .required = true },
	{ "rate-mbps", 0, DC_OPT_STR, DC_FIELD(struct sw_up_args, rates), "N[,N...]",
	  .help = "line rate of every port, or one per port (default 1000)" },
	{ "xdp-mode", 0, DC_OPT_ENUM, DC_FIELD(struct sw_up_args, xdp_flags), NULL,
	  .help = "how XDP admission attaches", .def = "generic", .names = xdp_modes },
	{ "no-links", 0, DC_OPT_FLAG, DC_FIELD(struct sw_up_args, no_links), NULL,
	  .help = "attach XDP by netlink instead of pinned links" },
	{ "queues", 0, DC_OPT_U64, DC_FIELD(struct sw_up_args, queues), "N",
	  .help = "strict-priority queues per port: N > 1 makes each port's root an HTB at its rate with N leaves",
	  .def = "1", .umin = 1, .umax = DC_SW_QUEUES_MAX },
	{ NULL },
};

static const struct dc_opt name_opts[] = {
	NAME_OPT(struct sw_name_args),
	{ NULL },
};

static const struct dc_opt none_opts[] = {
	{ NULL },
};

static const struct dc_opt sample_opts[] = {
	NAME_OPT(struct sw_sample_args),
	{ "count", 0, DC_OPT_U64, DC_FIELD(struct sw_sample_args, count), "N",
	  .help = "samples to take", .def = "100", .umin = 1, .umax = 10000000 },
	{ "interval-us", 0, DC_OPT_U64, DC_FIELD(struct sw_sample_args, interval_us), "US",
	  .help = "pause between samples", .def = "1000", .umax = 60000000 },
	{ NULL },
};

static const struct dc_opt capture_opts[] = {
	NAME_OPT(struct sw_capture_args),
	{ "out", 0, DC_OPT_PATH, DC_FIELD(struct sw_capture_args, out), "FILE",
	  .help = "trace file to write (replaced whole when the capture ends)", .required = true },
	{ "count", 0, DC_OPT_U64, DC_FIELD(struct sw_capture_args, count), "N",
	  .help = "stop after N arrivals (default: no limit)", .umin = 1,
	  .umax = 0xffffffffu },
	{ "every", 0, DC_OPT_U64, DC_FIELD(struct sw_capture_args, every), "N",
	  .help = "capture 1 in N arrivals", .def = "1", .umin = 1, .umax = 1000000 },
	{ "duration", 0, DC_OPT_DOUBLE, DC_FIELD(struct sw_capture_args, duration), "SECONDS",
	  .help = "stop after this long (default: until a signal)", .dmin = 0, .dmax = 1e9,
	  .flags = DC_OPT_F_MIN_EXCL },
	{ NULL },
};

const struct dc_cmd dc_sw_cmds[] = {
	{ "up", sw_cmd_up, up_opts, sizeof(struct sw_up_args), .flags = DC_CMD_F_ROOT,
	  .summary = "load a switch, pin it and attach it to its ports",
	  .doc = "Parameters given as KEY=VALUE are set before any packet is admitted." },
	{ "down", sw_cmd_down, name_opts, sizeof(struct sw_name_args), .flags = DC_CMD_F_ROOT,
	  .summary = "detach a switch and remove its pins" },
	{ "status", sw_cmd_status, name_opts, sizeof(struct sw_name_args), .flags = DC_CMD_F_ROOT,
	  .summary = "configuration, occupancy, model and per-port queues and counters" },
	{ "list", sw_cmd_list, none_opts, 0, .flags = DC_CMD_F_ROOT,
	  .summary = "the switches that are up" },
	{ "params", sw_cmd_params, none_opts, 0,
	  .summary = "the parameter reference (sw.NAME.KEY; markdown, or --json)" },
	{ "sample", sw_cmd_sample, sample_opts, sizeof(struct sw_sample_args), .flags = DC_CMD_F_ROOT,
	  .summary = "tracked backlog of each port next to the qdisc's own (CSV, or JSON)" },
	{ "capture", sw_cmd_capture, capture_opts, sizeof(struct sw_capture_args),
	  .flags = DC_CMD_F_ROOT, .summary = "write arrivals as a simulator trace (dcbpf sim --trace)" },
	{ NULL },
};
