// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf ictcp attach|detach|set|status` (docs/icon.md, "ICTCP"): the
 * sockops program of bpf/ictcp.bpf.c on the aggregator's cgroup v2
 * directory, its maps pinned under PIN_DIR/ictcp, and its parameters in
 * dc_ictcp_cfg (link capacity C, alpha, beta, gamma1, gamma2).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dcbpf/ictcp.h"
#include "dcbpf/flow.h"
#include "dcbpf/types.h"
#include "attach.h"
#include "bpfsys.h"
#include "cli.h"
#include "config.h"
#include "ictcp/ictcpcmd.h"
#include "counters.h"
#include "pins.h"
#include "sockops.h"
#include "areaout.h"
#include "ictcp.skel.h"

struct ictcp_attach_args {
	const char *cgroup;
};

struct ictcp_set_args {
	__u64 link_mbit;
	__u32 alpha, beta, gamma1, gamma2;
	__u64 min_subslot_us;
	__u64 init_mss;
};

static const struct dc_opt no_opts[] = { { NULL } };

static const struct dc_opt attach_opts[] = {
	{ "cgroup", 0, DC_OPT_DIR, DC_FIELD(struct ictcp_attach_args, cgroup), "DIR",
	  .help = "the aggregator's cgroup v2 directory", .required = true, .flags = DC_OPT_F_EXISTS },
	{ NULL },
};

static const struct dc_opt set_opts[] = {
	{ "link-mbit", 0, DC_OPT_U64, DC_FIELD(struct ictcp_set_args, link_mbit), "MBIT",
	  .help = "the aggregator's link capacity C (0: ICTCP off)", .required = true, .umax = 10000000 },
	{ "alpha", 0, DC_OPT_Q16, DC_FIELD(struct ictcp_set_args, alpha), "A",
	  .help = "share of C the aggregator takes in (BW_A = max(0, alpha C - BW_T))", .def = "0.9",
	  .dmin = 0, .dmax = 1, .flags = DC_OPT_F_MIN_EXCL },
	{ "beta", 0, DC_OPT_Q16, DC_FIELD(struct ictcp_set_args, beta), "B",
	  .help = "EWMA weight of the old measured throughput b_m", .def = "0.75", .dmin = 0, .dmax = 1,
	  .flags = DC_OPT_F_MAX_EXCL },
	{ "gamma1", 0, DC_OPT_Q16, DC_FIELD(struct ictcp_set_args, gamma1), "G",
	  .help = "d at or below it: raise the window by one mss", .def = "0.1", .dmin = 0, .dmax = 1 },
	{ "gamma2", 0, DC_OPT_Q16, DC_FIELD(struct ictcp_set_args, gamma2), "G",
	  .help = "d above it three periods in a row: lower it by one mss", .def = "0.5", .dmin = 0, .dmax = 1 },
	{ "min-subslot-us", 0, DC_OPT_U64, DC_FIELD(struct ictcp_set_args, min_subslot_us), "US",
	  .help = "floor of the sub-slot T (otherwise the mean RTT)", .def = "0", .umax = 10000000 },
	{ "init-mss", 0, DC_OPT_U64, DC_FIELD(struct ictcp_set_args, init_mss), "N",
	  .help = "a new connection's window, in mss", .def = "2", .umin = 2, .umax = 1000 },
	{ NULL },
};

static const struct dc_sockops_obj ictcp_obj = { "ICTCP", "ictcp", "ictcp_bpf", "dc_ictcp_sockops",
						 ictcp_bpf__elf_bytes };

static int attach_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct ictcp_attach_args *a = ctx->opts;

	(void)argc;
	(void)argv;
	return dc_area_attach(ctx, &ictcp_obj, a->cgroup, "; off until 'dcbpf ictcp set --link-mbit C'");
}

static int detach_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return dc_area_detach(ctx, &ictcp_obj);
}

static int set_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct ictcp_set_args *a = ctx->opts;
	char dir[DC_PATH_LEN * 2];
	struct dc_ictcp_cfg c;
	__u32 zero = 0;
	int fd, rc = EXIT_OK;

	(void)argc;
	(void)argv;
	if (a->gamma1 > a->gamma2)
		return dc_fail(ctx, EXIT_USAGE, "gamma1 must not exceed gamma2");
	if (dc_area_dir(ctx, &ictcp_obj, dir, sizeof(dir)))
		return ctx->err.code;
	fd = dc_area_open_map(ctx, &ictcp_obj, dir, "dc_ictcp_cfg");
	if (fd < 0)
		return ctx->err.code;
	dc_ictcp_cfg_default(&c, a->link_mbit * 1000);
	c.alpha_q16 = a->alpha;
	c.beta_q16 = a->beta;
	c.gamma1_q16 = a->gamma1;
	c.gamma2_q16 = a->gamma2;
	c.min_subslot_us = (__u32)a->min_subslot_us;
	c.init_mss = (__u32)a->init_mss;
	if (bpf_map_update_elem(fd, &zero, &c, BPF_ANY))
		rc = dc_fail(ctx, EXIT_ERR, "dc_ictcp_cfg: %s", strerror(errno));
	close(fd);
	return rc;
}

/* The slot value behind its lock (maps/ictcp.h): the lock word first. */
struct slot_v {
	__u32 lock;
	__u32 pad;
	struct dc_ictcp_slot s;
};

static const char *const act_name[] = { "keep", "increase", "no-quota", "wait", "decrease", "floor" };

static void flow_row(struct dc_ctx *ctx, const char *local, const char *remote, const void *val)
{
	const struct dc_ictcp_flow *f = val;
	const char *last = f->last_act < 6 ? act_name[f->last_act] : "?";

	if (ctx->json) {
		jw_u64(&ctx->jw, "rwnd_bytes", f->rwnd_bytes);
		jw_u64(&ctx->jw, "rwnd_max_bytes", f->rwnd_max_bytes);
		jw_u64(&ctx->jw, "bm_Bps", f->bm_Bps);
		jw_u64(&ctx->jw, "be_Bps", f->be_Bps);
		jw_u64(&ctx->jw, "d_q16", f->d_q16);
		jw_str(&ctx->jw, "last", last);
		jw_u64(&ctx->jw, "increases", f->incs);
		jw_u64(&ctx->jw, "decreases", f->decs);
		jw_u64(&ctx->jw, "rtt_us", f->rtt_us);
		jw_u64(&ctx->jw, "mss_bytes", f->mss_bytes);
		jw_u64(&ctx->jw, "bytes_rcvd", f->bytes_rcvd);
	} else {
		fprintf(ctx->out, "  %-21s <- %-21s %u (%u) %llu %llu %.3f %s +%u -%u\n", local, remote,
			f->rwnd_bytes, f->rwnd_max_bytes, (unsigned long long)f->bm_Bps,
			(unsigned long long)f->be_Bps, f->d_q16 / 65536.0, last, f->incs, f->decs);
	}
}

static int status_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	char dir[DC_PATH_LEN * 2];
	struct dc_ictcp_counters cn = { 0 };
	struct dc_ictcp_cfg c = { 0 };
	struct slot_v sv = { 0 };
	struct dc_ictcp_flow f;
	int cfd, sfd, ffd, lfd;
	__u32 zero = 0;

	(void)argc;
	(void)argv;
	if (dc_area_dir(ctx, &ictcp_obj, dir, sizeof(dir)))
		return ctx->err.code;
	cfd = dc_area_open_map(ctx, &ictcp_obj, dir, "dc_ictcp_cfg");
	if (cfd < 0)
		return ctx->err.code;
	sfd = dc_area_open_map(ctx, &ictcp_obj, dir, "dc_ictcp_stats");
	ffd = sfd < 0 ? -1 : dc_area_open_map(ctx, &ictcp_obj, dir, "dc_ictcp_flows");
	lfd = ffd < 0 ? -1 : dc_area_open_map(ctx, &ictcp_obj, dir, "dc_ictcp_slot");
	if (lfd < 0) {
		close(cfd);
		if (sfd >= 0)
			close(sfd);
		if (ffd >= 0)
			close(ffd);
		return ctx->err.code;
	}
	bpf_map_lookup_elem(cfd, &zero, &c);
	bpf_map_lookup_elem(sfd, &zero, &cn);
	bpf_map_lookup_elem(lfd, &zero, &sv);
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_obj(&ctx->jw, "config");
		jw_u64(&ctx->jw, "link_kbps", c.link_kbps);
		jw_u64(&ctx->jw, "alpha_q16", c.alpha_q16);
		jw_u64(&ctx->jw, "beta_q16", c.beta_q16);
		jw_u64(&ctx->jw, "gamma1_q16", c.gamma1_q16);
		jw_u64(&ctx->jw, "gamma2_q16", c.gamma2_q16);
		jw_u64(&ctx->jw, "min_subslot_us", c.min_subslot_us);
		jw_u64(&ctx->jw, "init_mss", c.init_mss);
		jw_end_obj(&ctx->jw);
		jw_obj(&ctx->jw, "slot");
		jw_u64(&ctx->jw, "subslot_ns", sv.s.subslot_ns);
		jw_u64(&ctx->jw, "bw_t_Bps", sv.s.bw_t_Bps);
		jw_u64(&ctx->jw, "bw_a_Bps", sv.s.bw_a_Bps);
		jw_u64(&ctx->jw, "quota_Bps", sv.s.quota_Bps);
		jw_u64(&ctx->jw, "rtt_ns", sv.s.rtt_ns);
		jw_u64(&ctx->jw, "slots", sv.s.slots);
		jw_end_obj(&ctx->jw);
	} else {
		fprintf(ctx->out, "link %llu kbit/s%s, alpha %.3f beta %.3f gamma1 %.3f gamma2 %.3f, init %u mss\n",
			(unsigned long long)c.link_kbps, c.link_kbps ? "" : " (off)", c.alpha_q16 / 65536.0,
			c.beta_q16 / 65536.0, c.gamma1_q16 / 65536.0, c.gamma2_q16 / 65536.0, c.init_mss);
		fprintf(ctx->out, "slot: T %llu ns, BW_T %llu B/s, BW_A %llu B/s, quota left %llu B/s, %llu slots\n",
			(unsigned long long)sv.s.subslot_ns, (unsigned long long)sv.s.bw_t_Bps,
			(unsigned long long)sv.s.bw_a_Bps, (unsigned long long)sv.s.quota_Bps,
			(unsigned long long)sv.s.slots);
	}
	dc_area_counters(ctx, &dc_ctr_ictcp, &cn,
			 "flows (local <- remote: window clamp B (max), b_m, b_e B/s, d, last, +/-):");
	dc_area_flows(ctx, ffd, &f, flow_row);
	dc_area_end(ctx);
	close(cfd);
	close(sfd);
	close(ffd);
	close(lfd);
	return EXIT_OK;
}

#define ROOT DC_CMD_F_ROOT
const struct dc_cmd dc_ictcp_cmds[] = {
	{ "attach", attach_cmd, attach_opts, sizeof(struct ictcp_attach_args),
	  .summary = "load the ICTCP sockops program and attach it to the aggregator's cgroup", .flags = ROOT,
	  .doc = "It stays passive (no socket touched) until 'dcbpf ictcp set --link-mbit C'." },
	{ "detach", detach_cmd, no_opts, 0, .summary = "take the program off and unpin its maps",
	  .flags = ROOT },
	{ "set", set_cmd, set_opts, sizeof(struct ictcp_set_args),
	  .summary = "the link capacity and ICTCP's parameters (the paper's defaults)", .flags = ROOT,
	  .doc = "Writes the whole configuration: an option not given takes the paper's value\n"
		 "(alpha 0.9, beta 0.75, gamma1 0.1, gamma2 0.5, 2 mss to start).  New\n"
		 "connections start with init-mss; running ones keep their window." },
	{ "status", status_cmd, no_opts, 0,
	  .summary = "parameters, the host's slot, counters, every flow's window clamp", .flags = ROOT },
	{ NULL },
};
