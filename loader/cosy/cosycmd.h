/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `dcbpf cosy`: cosy's bounds and its end host on the command line;
 * DC_COSY_CMD is its line in the top-level table.
 */
#ifndef DCBPF_COSY_COSYCMD_H
#define DCBPF_COSY_COSYCMD_H

#include <linux/types.h>

#include "cmd.h"

extern const struct dc_cmd dc_cosy_cmds[];

/* `dcbpf cosy send` and `serve` (cosynet.c): the end host on UDP. */
struct cosy_net_args {
	const char *to, *bind;
	__u64 port, msg_bytes, count, k, bw_kbps, delta_ns, wait_ns, run_ms, seed;
	double rate_per_s;	/* send: Poisson arrivals per second (0: up to K asking at once) */
};
extern const struct dc_opt dc_cosy_send_opts[], dc_cosy_serve_opts[];
int dc_cosy_send_cmd(struct dc_ctx *ctx, int argc, char **argv);
int dc_cosy_serve_cmd(struct dc_ctx *ctx, int argc, char **argv);

/* `dcbpf cosy attach`, `detach` (cosyattach.c), `status` (cosystatus.c): the switch program
 * on the ports of a namespace, pinned under PIN_DIR/cosy/NS. */
struct dc_cosy_attach_args {
	const char *netns;
	struct dc_opt_list ports;	/* IF,PEER_MAC,HOST[,HOST...] */
	__u64 k, expiry_ns, switch_id, ctrl_mbit;
	bool rsvp;
};
struct dc_cosy_ns_args {
	const char *netns;
};
extern const struct dc_opt dc_cosy_attach_opts[], dc_cosy_ns_opts[];
int dc_cosy_attach_cmd(struct dc_ctx *ctx, int argc, char **argv);
int dc_cosy_detach_cmd(struct dc_ctx *ctx, int argc, char **argv);
int dc_cosy_status_cmd(struct dc_ctx *ctx, int argc, char **argv);

#define DC_COSY_CMD \
	{ "cosy", .sub = dc_cosy_cmds, .summary = "cosy bounded-delay messages: bounds, send and serve over UDP (docs/cosy.md)" }

#endif
