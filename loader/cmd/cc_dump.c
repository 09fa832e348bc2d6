// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `dcbpf dump flows|stats|cfg`: per-flow state, counters, raw config entries. */
#include <arpa/inet.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <dcbpf/fixed.h>

#include "ccmd.h"
#include "cli.h"

static void fmt_endpoint(const struct dc_flow_key *k, bool src, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";
	const __u32 *addr = src ? k->saddr : k->daddr;
	unsigned int port = src ? k->sport : k->dport;

	if (k->family == AF_INET) {
		inet_ntop(AF_INET, addr, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, port);
	} else {
		inet_ntop(AF_INET6, addr, a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, port);
	}
}

static const char *mode_name(__u32 m)
{
	switch (m) {
	case DC_MODE_INIT:
		return "init";
	case DC_MODE_THETA:
		return "theta";
	case DC_MODE_INT:
		return "int";
	default:
		return "?";
	}
}

static const char *cc_name(__u32 cc)
{
	return cc < DC_CC_MAX ? dc_ccs[cc].name : "?";
}

static int dump_flows(struct dc_ctx *ctx, int argc, char **argv)
{
	struct dc_flow_key key, next, *prev = NULL;
	struct dc_cc_flow f;
	char src[64], dst[64], pw[32], pace[32];
	int fd;

	(void)argc;
	(void)argv;
	fd = cc_open_map(ctx, DC_MAP_FLOWS, BPF_MAP_TYPE_LRU_HASH, sizeof(struct dc_flow_key),
		      sizeof(struct dc_cc_flow));
	if (fd < 0)
		return EXIT_ERR;
	if (ctx->json)
		jw_arr(&ctx->jw, NULL);
	else
		fprintf(ctx->out, "%-22s %-22s %-14s %-5s %11s %7s %12s %7s %8s %8s\n", "src", "dst", "cc",
		       "mode", "cwnd_B", "cwnd_p", "pacing_Mbps", "power", "rtt_us", "tau_us");
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		/* LRU entries can vanish between next_key and lookup: skip */
		if (bpf_map_lookup_elem(fd, &key, &f))
			continue;
		fmt_endpoint(&key, true, src, sizeof(src));
		fmt_endpoint(&key, false, dst, sizeof(dst));
		snprintf(pw, sizeof(pw), "%.3f", (double)f.norm_power_q16 / (double)DC_Q16_ONE);
		snprintf(pace, sizeof(pace), "%.1f", (double)f.pacing_rate_Bps * 8.0 / 1e6);
		if (ctx->json) {
			jw_obj(&ctx->jw, NULL);
			jw_str(&ctx->jw, "src", src);
			jw_str(&ctx->jw, "dst", dst);
			jw_str(&ctx->jw, "cc", cc_name(f.cc));
			jw_str(&ctx->jw, "mode", mode_name(f.mode));
			jw_u64(&ctx->jw, "cwnd_bytes", f.cwnd_bytes);
			jw_u64(&ctx->jw, "snd_cwnd_pkts", f.snd_cwnd_pkts);
			jw_u64(&ctx->jw, "pacing_rate_Bps", f.pacing_rate_Bps);
			jw_raw(&ctx->jw, "norm_power", pw);
			jw_u64(&ctx->jw, "rtt_us", f.rtt_us);
			jw_u64(&ctx->jw, "tau_us", f.tau_us);
			jw_u64(&ctx->jw, "beta_bytes", f.beta_bytes);
			jw_u64(&ctx->jw, "bottleneck_hop", f.bottleneck_hop);
			jw_u64(&ctx->jw, "acks", f.acks);
			jw_u64(&ctx->jw, "cwnd_updates", f.cwnd_updates);
			jw_u64(&ctx->jw, "theta_acks", f.theta_acks);
			jw_u64(&ctx->jw, "int_acks", f.int_acks);
			jw_end_obj(&ctx->jw);
		} else {
			fprintf(ctx->out, "%-22s %-22s %-14s %-5s %11u %7u %12s %7s %8u %8u\n", src, dst,
			       cc_name(f.cc), mode_name(f.mode), f.cwnd_bytes, f.snd_cwnd_pkts, pace,
			       pw, f.rtt_us, f.tau_us);
		}
	}
	if (ctx->json) {
		jw_end_arr(&ctx->jw);
		jw_done(&ctx->jw);
	}
	close(fd);
	return EXIT_OK;
}

static int dump_stats(struct dc_ctx *ctx, int argc, char **argv)
{
	struct dc_cc_counters s[DC_CC_MAX];

	(void)argc;
	(void)argv;
	if (cc_read_counters(ctx, s))
		return EXIT_ERR;
	if (ctx->json)
		jw_obj(&ctx->jw, NULL);
	cc_print_counters(ctx, s);
	if (ctx->json) {
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	}
	return EXIT_OK;
}

static int dump_cfg(struct dc_ctx *ctx, int argc, char **argv)
{
	struct dc_cc_cfg cfg[DC_CC_MAX];
	bool present[DC_CC_MAX];
	unsigned int i, k;
	char val[64];

	(void)argc;
	(void)argv;
	if (cc_load_cfgs(ctx, cfg, present))
		return EXIT_ERR;
	if (ctx->json)
		jw_obj(&ctx->jw, NULL);
	for (k = 0; k < DC_CC_MAX; k++) {
		if (ctx->json) {
			jw_obj(&ctx->jw, dc_ccs[k].name);
			jw_u64(&ctx->jw, "key", k);
			jw_bool(&ctx->jw, "present", present[k]);
			jw_obj(&ctx->jw, "value");
		} else {
			fprintf(ctx->out, "%s (key %u)%s\n", dc_ccs[k].name, k,
			       present[k] ? "" : ": no entry (the CC uses these defaults)");
		}
		for (i = 0; i < dc_nparams; i++) {
			const struct dc_param *p = &dc_params[i];

			if (p->scope != DC_SCOPE_CC)
				continue;
			dc_param_format(p, &cfg[k], val, sizeof(val));
			if (ctx->json)
				jw_u64(&ctx->jw, p->field, dc_param_raw(p, &cfg[k]));
			else
				fprintf(ctx->out, "  %-16s %10u   %s = %s\n", p->field, dc_param_raw(p, &cfg[k]),
				       p->name, val);
		}
		if (ctx->json) {
			jw_end_obj(&ctx->jw);
			jw_end_obj(&ctx->jw);
		}
	}
	if (ctx->json) {
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	}
	return EXIT_OK;
}

const struct dc_cmd dc_cc_dump_cmds[] = {
	{ "flows", dump_flows, dc_cc_no_opts, 0, .flags = DC_CMD_F_ROOT,
	  .summary = "per-flow state of the CCs (dc_cc_flows)" },
	{ "stats", dump_stats, dc_cc_no_opts, 0, .flags = DC_CMD_F_ROOT,
	  .summary = "the CCs' counters (dc_cc_stats)" },
	{ "cfg", dump_cfg, dc_cc_no_opts, 0, .flags = DC_CMD_F_ROOT,
	  .summary = "the raw entries of the CC config map (dc_cc_cfg)" },
	{ NULL },
};
