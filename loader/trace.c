// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf trace`: stream PowerTCP / θ-PowerTCP per-ACK decisions from the
 * pinned ring buffer dc_cc_trace, as a table or CSV; with --switch NAME,
 * an emulated switch's admission drops instead (loader/swctl.c).  Tracing costs the
 * CC a ring-buffer write per ACK, so it is on (dc_cc_tron[0] = 1) only
 * while a trace runs, and switched off again on exit, whatever ends it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
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
#include "swctl.h"
#include "trace.h"

static volatile sig_atomic_t trace_stop;

static void on_signal(int sig)
{
	(void)sig;
	trace_stop = 1;
}

struct trace_ctx {
	bool csv;
	int cc;			/* -1 = both */
	unsigned long count;	/* stop after this many events; 0 = no limit */
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

static int on_event(void *arg, void *data, size_t len)
{
	struct trace_ctx *t = arg;
	const struct dc_cc_event *e = data;
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	int af = e->key.family == 10 ? AF_INET6 : AF_INET;
	double power = (double)e->norm_power_q16 / DC_Q16_ONE;
	double rate_mbps = (double)e->pacing_rate_Bps * 8 / 1e6;

	if (len < sizeof(*e) || (t->cc >= 0 && e->cc != (__u32)t->cc))
		return 0;
	/* One poll hands over a batch: stop at exactly --count events. */
	if (t->count && t->seen >= t->count)
		return 0;
	if (!t->t0_ns)
		t->t0_ns = e->ts_ns;
	inet_ntop(af, e->key.saddr, src, sizeof(src));
	inet_ntop(af, e->key.daddr, dst, sizeof(dst));
	if (t->csv)
		printf("%llu,%s,%u,%s,%u,%s,%s,%u,%u,%.1f,%.4f,%u,%u,%u,%u,%u\n",
		       (unsigned long long)e->ts_ns, src, e->key.sport, dst, e->key.dport,
		       e->cc == DC_CC_THETA ? "theta_powertcp" : "powertcp", mode_name(e->mode),
		       e->cwnd_bytes, e->snd_cwnd_pkts, rate_mbps, power, e->rtt_us, e->tau_us,
		       e->nhops, e->bottleneck_hop, e->updated);
	else
		printf("%10.3f %15s:%-5u %15s:%-5u %-6s %-5s %10u %6u %9.1f %8.3f %7u %6u %4u %3u %s\n",
		       (double)(e->ts_ns - t->t0_ns) / 1e6, src, e->key.sport, dst, e->key.dport,
		       e->cc == DC_CC_THETA ? "theta" : "ptcp", mode_name(e->mode), e->cwnd_bytes,
		       e->snd_cwnd_pkts, rate_mbps, power, e->rtt_us, e->tau_us, e->nhops,
		       e->bottleneck_hop, e->updated ? "*" : "");
	if (t->count && ++t->seen >= t->count)
		trace_stop = 1;
	return 0;
}

static void trace_usage(FILE *f)
{
	fprintf(f, "usage: dcbpf trace [--csv] [--cc powertcp|theta_powertcp] [--count N] "
		   "[--duration SECONDS]\n"
		   "       dcbpf trace --switch NAME [--csv] [--count N] [--duration SECONDS]\n");
}

int dc_cmd_trace(const char *pin_dir, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "csv", no_argument, NULL, 'C' },
		{ "cc", required_argument, NULL, 'c' },
		{ "count", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "switch", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct trace_ctx t = { .cc = -1 };
	const char *sw = NULL;
	struct ring_buffer *rb = NULL;
	char path[DC_PATH_LEN + 32];
	double duration = 0;
	struct timespec start, now;
	__u32 zero = 0, on = 1, off = 0;
	int rb_fd, on_fd, o, rc = EXIT_OK;
	char *end;

	optind = 1;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'C':
			t.csv = true;
			break;
		case 's':
			sw = optarg;
			break;
		case 'c':
			if (!strcmp(optarg, "powertcp"))
				t.cc = DC_CC_POWERTCP;
			else if (!strcmp(optarg, "theta_powertcp"))
				t.cc = DC_CC_THETA;
			else {
				fprintf(stderr, "dcbpf trace: --cc %s: expected powertcp or theta_powertcp\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'n':
			t.count = strtoul(optarg, &end, 10);
			if (*end || !t.count) {
				fprintf(stderr, "dcbpf trace: --count %s: expected a positive integer\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'd':
			duration = strtod(optarg, &end);
			if (*end || duration <= 0) {
				fprintf(stderr, "dcbpf trace: --duration %s: expected seconds > 0\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		default:
			trace_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc || (sw && t.cc >= 0)) {
		trace_usage(stderr);
		return EXIT_USAGE;
	}
	/* admission drops of an emulated switch (its own ring, dc_sw_events) */
	if (sw)
		return dc_sw_trace_drops(pin_dir, sw, t.csv, t.count, duration);
	if (dc_require_root("dcbpf", pin_dir))
		return EXIT_ERR;
	dc_path(path, sizeof(path), pin_dir, DC_MAP_TRACE);
	rb_fd = bpf_obj_get(path);
	dc_path(path, sizeof(path), pin_dir, DC_MAP_TRON);
	on_fd = bpf_obj_get(path);
	if (rb_fd < 0 || on_fd < 0) {
		fprintf(stderr, "dcbpf trace: cannot open %s/%s and %s: %s (is dcbpfd running with "
				"this pin dir?)\n", pin_dir, DC_MAP_TRACE, DC_MAP_TRON, strerror(errno));
		rc = EXIT_ERR;
		goto out;
	}
	rb = ring_buffer__new(rb_fd, on_event, &t, NULL);
	if (!rb) {
		fprintf(stderr, "dcbpf trace: ring buffer %s: %s\n", DC_MAP_TRACE, strerror(errno));
		rc = EXIT_ERR;
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, on_signal);
	if (bpf_map_update_elem(on_fd, &zero, &on, BPF_ANY)) {
		fprintf(stderr, "dcbpf trace: cannot switch tracing on in %s: %s\n", DC_MAP_TRON,
			strerror(errno));
		rc = EXIT_ERR;
		goto out;
	}
	if (t.csv)
		printf("ts_ns,saddr,sport,daddr,dport,cc,mode,cwnd_bytes,snd_cwnd_pkts,"
		       "pacing_mbps,norm_power,rtt_us,tau_us,nhops,bottleneck_hop,updated\n");
	else
		printf("%10s %21s %21s %-6s %-5s %10s %6s %9s %8s %7s %6s %4s %3s %s\n", "t_ms",
		       "source", "destination", "cc", "mode", "cwnd_B", "pkts", "rate_Mbps",
		       "power", "rtt_us", "tau_us", "hops", "bn", "upd");
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!trace_stop) {
		int n = ring_buffer__poll(rb, 100);

		if (n < 0 && n != -EINTR) {
			fprintf(stderr, "dcbpf trace: reading %s: %s\n", DC_MAP_TRACE, strerror(-n));
			rc = EXIT_ERR;
			break;
		}
		fflush(stdout);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (duration > 0 && (now.tv_sec - start.tv_sec) +
					    (now.tv_nsec - start.tv_nsec) / 1e9 >= duration)
			break;
	}
out:
	if (on_fd >= 0) {
		bpf_map_update_elem(on_fd, &zero, &off, BPF_ANY);
		close(on_fd);
	}
	ring_buffer__free(rb);
	if (rb_fd >= 0)
		close(rb_fd);
	return rc;
}
