// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf trace`: stream the per-ACK decisions of PowerTCP, θ-PowerTCP and
 * the baselines HPCC and TIMELY from the
 * pinned ring buffer dc_cc_trace, as a table, CSV or a JSON array (one
 * object per event, written as they come); with --switch NAME, an emulated
 * switch's admission drops instead (loader/sw/).  Tracing costs the CC a
 * ring-buffer write per ACK, so it is on only while a trace runs: the trace
 * holds a lease in dc_cc_tron[0] (include/dcbpf/types.h), renews it while it
 * polls and writes 0 on exit; a trace killed before that (kill -9) leaves a
 * lease that runs out within DC_TRACE_LEASE_MS.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dcbpf/fixed.h"
#include "dcbpf/types.h"
#include "bpfsys.h"
#include "cli.h"
#include "config.h"
#include "pins.h"
#include "ring.h"
#include "sw/swctl.h"
#include "cc/trace.h"

struct trace_run {
	struct dc_ctx *ctx;
	const struct dc_trace_args *a;
	unsigned long seen;
	__u64 t0_ns;
};

static const char *mode_name(__u32 mode)
{
	switch (mode) {
	case DC_MODE_INIT: return "init";
	case DC_MODE_THETA: return "theta";
	case DC_MODE_INT: return "int";
	default: return "?";
	}
}

/* The CC's name, and its short form for the table. */
static const char *cc_name(__u32 cc)
{
	return cc < DC_CC_MAX ? dc_ccs[cc].name : "?";
}

static const char *cc_short(__u32 cc)
{
	switch (cc) {
	case DC_CC_POWERTCP: return "ptcp";
	case DC_CC_THETA: return "theta";
	case DC_CC_HPCC: return "hpcc";
	case DC_CC_TIMELY: return "timely";
	default: return "?";
	}
}

static void event_json(struct jw *j, const struct dc_cc_event *e, const char *src,
		       const char *dst, double rate_mbps, double power)
{
	char num[32];

	jw_obj(j, NULL);
	jw_u64(j, "ts_ns", e->ts_ns);
	jw_str(j, "saddr", src);
	jw_u64(j, "sport", e->key.sport);
	jw_str(j, "daddr", dst);
	jw_u64(j, "dport", e->key.dport);
	jw_str(j, "cc", cc_name(e->cc));
	jw_str(j, "mode", mode_name(e->mode));
	jw_u64(j, "cwnd_bytes", e->cwnd_bytes);
	jw_u64(j, "snd_cwnd_pkts", e->snd_cwnd_pkts);
	snprintf(num, sizeof(num), "%.1f", rate_mbps);
	jw_raw(j, "pacing_mbps", num);
	snprintf(num, sizeof(num), "%.4f", power);
	jw_raw(j, "norm_power", num);
	jw_u64(j, "rtt_us", e->rtt_us);
	jw_u64(j, "tau_us", e->tau_us);
	jw_u64(j, "nhops", e->nhops);
	jw_u64(j, "bottleneck_hop", e->bottleneck_hop);
	jw_bool(j, "updated", e->updated);
	jw_end_obj(j);
}

static int on_event(void *arg, void *data, size_t len)
{
	struct trace_run *t = arg;
	const struct dc_cc_event *e = data;
	FILE *out = t->ctx->out;
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	int af = e->key.family == 10 ? AF_INET6 : AF_INET;
	double power = (double)e->norm_power_q16 / DC_Q16_ONE;
	double rate_mbps = (double)e->pacing_rate_Bps * 8 / 1e6;

	if (len < sizeof(*e) || (t->a->cc && e->cc != (__u32)(t->a->cc - 1)))
		return 0;
	/* One poll hands over a batch: stop at exactly --count events. */
	if (t->a->count && t->seen >= t->a->count)
		return 0;
	if (!t->t0_ns)
		t->t0_ns = e->ts_ns;
	inet_ntop(af, e->key.saddr, src, sizeof(src));
	inet_ntop(af, e->key.daddr, dst, sizeof(dst));
	if (t->ctx->json)
		event_json(&t->ctx->jw, e, src, dst, rate_mbps, power);
	else if (t->a->csv)
		fprintf(out, "%llu,%s,%u,%s,%u,%s,%s,%u,%u,%.1f,%.4f,%u,%u,%u,%u,%u\n",
			(unsigned long long)e->ts_ns, src, e->key.sport, dst, e->key.dport,
			cc_name(e->cc), mode_name(e->mode),
			e->cwnd_bytes, e->snd_cwnd_pkts, rate_mbps, power, e->rtt_us, e->tau_us,
			e->nhops, e->bottleneck_hop, e->updated);
	else
		fprintf(out, "%10.3f %15s:%-5u %15s:%-5u %-6s %-5s %10u %6u %9.1f %8.3f %7u %6u %4u "
			"%3u %s\n", (double)(e->ts_ns - t->t0_ns) / 1e6, src, e->key.sport, dst,
			e->key.dport, cc_short(e->cc), mode_name(e->mode),
			e->cwnd_bytes, e->snd_cwnd_pkts, rate_mbps, power, e->rtt_us, e->tau_us,
			e->nhops, e->bottleneck_hop, e->updated ? "*" : "");
	if (t->a->count && ++t->seen >= t->a->count)
		dc_ring_stop();
	return 0;
}

static void header(struct dc_ctx *ctx, bool csv)
{
	if (ctx->json)
		jw_arr(&ctx->jw, NULL);
	else if (csv)
		fprintf(ctx->out, "ts_ns,saddr,sport,daddr,dport,cc,mode,cwnd_bytes,snd_cwnd_pkts,"
			"pacing_mbps,norm_power,rtt_us,tau_us,nhops,bottleneck_hop,updated\n");
	else
		fprintf(ctx->out, "%10s %21s %21s %-6s %-5s %10s %6s %9s %8s %7s %6s %4s %3s %s\n",
			"t_ms", "source", "destination", "cc", "mode", "cwnd_B", "pkts", "rate_Mbps",
			"power", "rtt_us", "tau_us", "hops", "bn", "upd");
	fflush(ctx->out);
}

/* Admission drops of an emulated switch (its own ring, dc_sw_events). */
static int trace_switch(struct dc_ctx *ctx, const struct dc_trace_args *a)
{
	__u64 lost;
	int rc;

	if (ctx->json)
		return dc_fail(ctx, EXIT_USAGE, "--switch: the drop trace is text or CSV (--csv), "
			       "not JSON");
	rc = dc_sw_trace_drops(ctx->pin_dir, a->sw, a->csv, a->count, a->duration_s, &lost,
			       &ctx->err);
	if (!rc && lost)
		fprintf(ctx->errf, "dcbpf trace: %llu event(s) lost: the ring buffer was full\n",
			(unsigned long long)lost);
	return rc;
}

/* CLOCK_MONOTONIC, the clock of bpf_ktime_get_ns. */
static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* Renew the tracing lease (the ring loop's tick, and its first write). */
static int renew(void *arg, struct dc_err *e)
{
	__u32 zero = 0, lease = dc_trace_lease(mono_ns());

	if (bpf_map_update_elem(*(int *)arg, &zero, &lease, BPF_ANY))
		return dc_err_set(e, EXIT_ERR, "cannot switch tracing on in %s: %s", DC_MAP_TRON,
				  strerror(errno));
	return 0;
}

int dc_trace_main(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct dc_trace_args *a = ctx->opts;
	struct trace_run t = { .ctx = ctx, .a = a };
	struct dc_ring ring = { .fd = -1 };
	char path[DC_PATH_LEN + 32];
	__u32 zero = 0, off = 0;
	int on_fd, rc = EXIT_OK;
	bool started = false;

	(void)argc;
	(void)argv;
	if (a->sw && a->cc)
		return dc_fail(ctx, EXIT_USAGE, "--switch and --cc exclude each other (a switch "
			       "traces drops, not a CC)");
	if (a->sw)
		return trace_switch(ctx, a);
	dc_pin_map_path(path, sizeof(path), ctx->pin_dir, DC_MAP_TRON);
	on_fd = bpf_obj_get(path);
	if (on_fd < 0) {
		rc = dc_fail(ctx, EXIT_ERR, "cannot open %s: %s (is dcbpfd running with this pin "
			     "dir?)", path, strerror(errno));
		goto out;
	}
	dc_pin_map_path(path, sizeof(path), ctx->pin_dir, DC_MAP_TRACE);
	if (dc_ring_open(&ring, path, DC_MAP_TRACE, on_event, &t, &ctx->err)) {
		rc = EXIT_ERR;
		goto out;
	}
	if (renew(&on_fd, &ctx->err)) {
		rc = EXIT_ERR;
		goto out;
	}
	ring.tick = renew;
	ring.tick_arg = &on_fd;
	header(ctx, a->csv);
	started = true;
	rc = dc_ring_run(&ring, DC_MAP_TRACE, a->duration_s, ctx->out, &ctx->err);
out:
	if (on_fd >= 0) {
		bpf_map_update_elem(on_fd, &zero, &off, BPF_ANY);
		close(on_fd);
	}
	dc_ring_close(&ring);
	/* the array closes whatever ended the trace; an error follows it */
	if (started && ctx->json) {
		jw_end_arr(&ctx->jw);
		jw_done(&ctx->jw);
	}
	return rc;
}

static const struct dc_opt_name trace_ccs[] = {
	{ "powertcp", DC_CC_POWERTCP + 1 },
	{ "theta_powertcp", DC_CC_THETA + 1 },
	{ "hpcc", DC_CC_HPCC + 1 },
	{ "timely", DC_CC_TIMELY + 1 },
	{ NULL },
};

const struct dc_opt dc_trace_opts[] = {
	{ "csv", 0, DC_OPT_FLAG, DC_FIELD(struct dc_trace_args, csv), NULL,
	  .help = "comma-separated values with a header line" },
	{ "cc", 0, DC_OPT_ENUM, DC_FIELD(struct dc_trace_args, cc), NULL,
	  .help = "only this congestion control (default: all)", .names = trace_ccs },
	{ "count", 0, DC_OPT_U64, DC_FIELD(struct dc_trace_args, count), "N",
	  .help = "stop after N events", .umin = 1, .umax = 1000000000 },
	{ "duration", 0, DC_OPT_DOUBLE, DC_FIELD(struct dc_trace_args, duration_s), "S",
	  .help = "stop after S seconds", .dmin = 0, .dmax = 1e9, .flags = DC_OPT_F_MIN_EXCL },
	{ "switch", 0, DC_OPT_STR, DC_FIELD(struct dc_trace_args, sw), "NAME",
	  .help = "an emulated switch's admission drops instead (not with --cc)", .umax = 15 },
	{ NULL },
};
