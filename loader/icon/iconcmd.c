// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf icon attach|detach|set|status` (docs/icon.md): the sockops
 * program of bpf/icon.bpf.c on a cgroup v2 directory, its maps pinned
 * under PIN_DIR/icon, and the configuration map dc_icon_cfg.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dcbpf/icon.h"
#include "dcbpf/flow.h"
#include "dcbpf/types.h"
#include "attach.h"
#include "bpfsys.h"
#include "cli.h"
#include "config.h"
#include "icon/iconcmd.h"
#include "counters.h"
#include "pins.h"
#include "sockops.h"
#include "areaout.h"
#include "icon.skel.h"

struct icon_attach_args {
	const char *cgroup;
};

struct icon_set_args {
	const char *where;
	__u64 n;
	bool bad_version;
};

static const struct dc_opt no_opts[] = { { NULL } };

static const struct dc_opt attach_opts[] = {
	{ "cgroup", 0, DC_OPT_DIR, DC_FIELD(struct icon_attach_args, cgroup), "DIR",
	  .help = "cgroup v2 directory whose TCP sockets ICON runs for", .required = true,
	  .flags = DC_OPT_F_EXISTS },
	{ NULL },
};

static const struct dc_opt set_opts[] = {
	{ "ADDR[:PORT]", 0, DC_OPT_STR, DC_FIELD(struct icon_set_args, where), NULL,
	  .help = "the sink's local IPv4 address (0.0.0.0: any) and port (none or 0: any)",
	  .required = true, .flags = DC_OPT_F_POS },
	{ "N", 0, DC_OPT_U64, DC_FIELD(struct icon_set_args, n), NULL,
	  .help = "incast degree it advertises (0: remove the entry)", .required = true,
	  .flags = DC_OPT_F_POS, .umax = DC_ICON_N_MAX },
	{ "test-bad-version", 0, DC_OPT_FLAG, DC_FIELD(struct icon_set_args, bad_version), NULL,
	  .help = "write version 0, which receivers must ignore (tests)", .flags = DC_OPT_F_HIDDEN },
	{ NULL },
};

static const struct dc_sockops_obj icon_obj = { "ICON", "icon", "icon_bpf", "dc_icon_sockops",
						icon_bpf__elf_bytes };

static int attach_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct icon_attach_args *a = ctx->opts;

	(void)argc;
	(void)argv;
	return dc_area_attach(ctx, &icon_obj, a->cgroup, "");
}

static int detach_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return dc_area_detach(ctx, &icon_obj);
}

/* "10.0.0.1:5001", "10.0.0.1", "0.0.0.0:80" into the map key. */
static int parse_where(struct dc_ctx *ctx, const char *s, struct dc_icon_cfg_key *k)
{
	char buf[64], *colon, *end;
	struct in_addr in;
	unsigned long port = 0;

	if (strlen(s) >= sizeof(buf))
		return dc_fail(ctx, EXIT_USAGE, "'%s': expected ADDR[:PORT]", s);
	snprintf(buf, sizeof(buf), "%s", s);
	colon = strchr(buf, ':');
	if (colon) {
		*colon = 0;
		errno = 0;
		port = strtoul(colon + 1, &end, 10);
		if (!colon[1] || *end || errno || port > 65535)
			return dc_fail(ctx, EXIT_USAGE, "'%s': the port must be 0..65535", s);
	}
	if (inet_pton(AF_INET, buf, &in) != 1)
		return dc_fail(ctx, EXIT_USAGE, "'%s': '%s' is not an IPv4 address", s, buf);
	memset(k, 0, sizeof(*k));
	k->addr = in.s_addr;
	k->port = (__u16)port;
	return 0;
}

static int set_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct icon_set_args *a = ctx->opts;
	char dir[DC_PATH_LEN * 2];
	struct dc_icon_cfg_key k;
	struct dc_icon_cfg v = { .n = (__u32)a->n,
				 .flags = a->bad_version ? DC_ICON_CFG_F_BAD_VERSION : 0 };
	int fd, rc;

	(void)argc;
	(void)argv;
	if (parse_where(ctx, a->where, &k) || dc_area_dir(ctx, &icon_obj, dir, sizeof(dir)))
		return ctx->err.code;
	fd = dc_area_open_map(ctx, &icon_obj, dir, "dc_icon_cfg");
	if (fd < 0)
		return ctx->err.code;
	if (a->n)
		rc = bpf_map_update_elem(fd, &k, &v, BPF_ANY);
	else
		rc = bpf_map_delete_elem(fd, &k) && errno != ENOENT;
	if (rc)
		rc = dc_fail(ctx, EXIT_ERR, "dc_icon_cfg: %s", strerror(errno));
	close(fd);
	return rc;
}

static void flow_row(struct dc_ctx *ctx, const char *local, const char *remote, const void *val)
{
	const struct dc_icon_flow *f = val;

	if (ctx->json) {
		jw_u64(&ctx->jw, "n_peer", f->n_peer);
		jw_u64(&ctx->jw, "n_eff", dc_icon_n_eff(f->n_peer));
		jw_u64(&ctx->jw, "n_sent", f->n_sent);
		jw_u64(&ctx->jw, "opts_rx", f->opts_rx);
		jw_u64(&ctx->jw, "opts_bad", f->opts_bad);
		jw_u64(&ctx->jw, "rate_Bps", f->rate_Bps);
		jw_u64(&ctx->jw, "cwnd_pkts", f->cwnd_pkts);
		jw_u64(&ctx->jw, "mss_bytes", f->mss_bytes);
		jw_u64(&ctx->jw, "srtt_us8", f->srtt_us8);
	} else {
		fprintf(ctx->out, "  %-21s -> %-21s n %u%s sent %u opts %u bad %u cap %llu\n", local, remote,
			dc_icon_n_eff(f->n_peer), f->n_peer ? "" : " (IA-ICON)", f->n_sent, f->opts_rx,
			f->opts_bad, (unsigned long long)f->rate_Bps);
	}
}

static int status_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	char dir[DC_PATH_LEN * 2], b1[64];
	struct dc_icon_cfg_key k, next, *prev = NULL;
	struct dc_icon_counters c = { 0 };
	struct dc_icon_cfg v;
	struct dc_icon_flow f;
	int cfd, sfd, ffd;
	__u32 zero = 0;

	(void)argc;
	(void)argv;
	if (dc_area_dir(ctx, &icon_obj, dir, sizeof(dir)))
		return ctx->err.code;
	cfd = dc_area_open_map(ctx, &icon_obj, dir, "dc_icon_cfg");
	if (cfd < 0)
		return ctx->err.code;
	sfd = dc_area_open_map(ctx, &icon_obj, dir, "dc_icon_stats");
	ffd = sfd < 0 ? -1 : dc_area_open_map(ctx, &icon_obj, dir, "dc_icon_flows");
	if (sfd < 0 || ffd < 0) {
		close(cfd);
		if (sfd >= 0)
			close(sfd);
		return ctx->err.code;
	}
	bpf_map_lookup_elem(sfd, &zero, &c);
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_arr(&ctx->jw, "sinks");
	} else {
		fprintf(ctx->out, "sinks (local address:port -> n advertised; 0 = any):\n");
	}
	while (!bpf_map_get_next_key(cfd, prev, &next)) {
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(cfd, &k, &v))
			continue;
		dc_addr_port_str(b1, sizeof(b1), k.addr, k.port);
		if (ctx->json) {
			jw_obj(&ctx->jw, NULL);
			jw_str(&ctx->jw, "sink", b1);
			jw_u64(&ctx->jw, "n", v.n);
			jw_u64(&ctx->jw, "flags", v.flags);
			jw_end_obj(&ctx->jw);
		} else {
			fprintf(ctx->out, "  %-21s n %u\n", b1, v.n);
		}
	}
	if (ctx->json)
		jw_end_arr(&ctx->jw);
	dc_area_counters(ctx, &dc_ctr_icon, &c,
			 "flows (local -> remote: n received, n sent, options, bad, cap B/s):");
	dc_area_flows(ctx, ffd, &f, flow_row);
	dc_area_end(ctx);
	close(cfd);
	close(sfd);
	close(ffd);
	return EXIT_OK;
}

#define ROOT DC_CMD_F_ROOT
const struct dc_cmd dc_icon_cmds[] = {
	{ "attach", attach_cmd, attach_opts, sizeof(struct icon_attach_args),
	  .summary = "load the ICON sockops program and attach it to a cgroup", .flags = ROOT,
	  .doc = "Its TCP sockets then parse the option and pace at cwnd*mss/(srtt*n) (n = 1\n"
		 "without an option: IA-ICON); sinks are set with 'dcbpf icon set'." },
	{ "detach", detach_cmd, no_opts, 0, .summary = "take the program off and unpin its maps",
	  .flags = ROOT },
	{ "set", set_cmd, set_opts, sizeof(struct icon_set_args),
	  .summary = "the incast degree a sink's sockets advertise", .flags = ROOT,
	  .doc = "Sockets bound to ADDR:PORT write n in their SYN or SYN-ACK, and an update on\n"
		 "their next segments when it changes; lookups fall back to ADDR:any, any:PORT,\n"
		 "any:any." },
	{ "status", status_cmd, no_opts, 0, .summary = "sinks, counters and every flow's n and pacing cap",
	  .flags = ROOT },
	{ NULL },
};
