// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The workload harness's command line: usage, hosts, CCs, the CDF, checks. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "wl.h"

struct wl_params P = {
	.scale = 1, .duration_s = 0, .timeout_s = 30, .hops = 1, .mtu = 1500, .port = 6100,
	.conns = 2, .max_conns = 64, .seed = 1, .rto_min_ms = -1, .base_rtt_us = -1,
};

void die_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("workload: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (workload --help)\n", stderr);
	exit(2);
}

void die(const char *fmt, ...)
{
	va_list ap;

	fputs("workload: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}
static void usage(FILE *f)
{
	fprintf(f,
		"usage: workload --senders NS[@LEAF],... --receivers NS=IP[@LEAF],...\n"
		"                --load L --rate-mbit R [options]\n"
		"Flows of CDF-drawn sizes, Poisson arrivals at load L of --capacity-mbit\n"
		"(default R), between every sender and receiver that are not the same\n"
		"namespace and not on the same leaf; FCT slowdown per size bin.\n"
		"  --cdf websearch|datamining|FILE  sizes (FILE: lines 'BYTES P'; default websearch)\n"
		"  --scale F          multiply sizes by F (e.g. 0.04 for a 25G workload at 1G)\n"
		"  --max-bytes N      cap sizes at N bytes\n"
		"  --bins bytes|unscaled  size bins by the flow's bytes (default) or by\n"
		"                     bytes / scale: the sizes of the unscaled workload\n"
		"  --load L           0 < L <= 1 of the capacity (0 only with --incast)\n"
		"  --rate-mbit R      bottleneck rate of a path (ideal FCT)\n"
		"  --capacity-mbit C  what the load is relative to (default R)\n"
		"  --flows N          stop arrivals after N background flows\n"
		"  --duration S       stop arrivals after S seconds (default 2 without --flows)\n"
		"  --timeout S        after the arrivals stop, wait S s for completion (30)\n"
		"  --seed N           random seed (1): same seed, same flows\n"
		"  --incast P:B:F     every P ms, F senders send B bytes each to one receiver\n"
		"  --cc CC | --cc bg=CC,incast=CC   TCP_CONGESTION per class (default: ns default)\n"
		"  --hops H           rate-limited hops on a path (1; ideal FCT)\n"
		"  --burst-bytes B    token bucket of the bottleneck, bytes (0; ideal FCT)\n"
		"  --mtu M            MTU of the hosts (1500; MSS = M - 52)\n"
		"  --base-rtt-us U    base RTT instead of the measured one\n"
		"  --rto-min-ms M     the routes' rto_min, recorded in the summary\n"
		"  --port P           first listener port (6100; one per class)\n"
		"  --conns K          connections per pair and class opened first (2)\n"
		"  --max-conns K      at most K per pair and class (64)\n"
		"  --tag KEY=VALUE    recorded in the summary's params.tags\n"
		"  --csv FILE         per-flow CSV; --json FILE summary (default stdout)\n"
		"Exit 0: every flow completed; 1: run-time failure; 2: usage.\n");
}
/* ---- arguments ----------------------------------------------------------------- */

static void parse_hosts(const char *arg, struct host *h, unsigned int *n, int need_ip, const char *opt)
{
	char *dup = strdup(arg), *save = NULL, *tok;

	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *at = strchr(tok, '@'), *eq = strchr(tok, '=');
		struct host *x = &h[*n];

		if (*n == MAX_HOSTS)
			die_usage("%s: more than %d hosts", opt, MAX_HOSTS);
		x->leaf = -1;
		if (at) {
			char *end;

			*at = 0;
			x->leaf = (int)strtol(at + 1, &end, 10);
			if (end == at + 1 || *end || x->leaf < 0)
				die_usage("%s: bad leaf in '%s@%s'", opt, tok, at + 1);
		}
		if (eq) {
			*eq = 0;
			snprintf(x->ip, sizeof(x->ip), "%s", eq + 1);
			if (inet_pton(AF_INET, x->ip, &x->addr) != 1)
				die_usage("%s: bad IPv4 address '%s' for '%s'", opt, eq + 1, tok);
		} else if (need_ip) {
			die_usage("%s: '%s' needs an address (NS=IP)", opt, tok);
		}
		if (!*tok || strlen(tok) >= sizeof(x->ns) || strchr(tok, '/'))
			die_usage("%s: bad namespace name '%s'", opt, tok);
		snprintf(x->ns, sizeof(x->ns), "%s", tok);
		(*n)++;
	}
	free(dup);
	if (!*n)
		die_usage("%s: no hosts", opt);
}

static double num(const char *opt, const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !isfinite(v))
		die_usage("%s: '%s' is not a number", opt, s);
	return v;
}

static void parse_cc(const char *arg)
{
	char *dup = strdup(arg), *save = NULL, *tok;

	if (!strchr(arg, '=')) {
		P.cc[CL_BG] = P.cc[CL_INCAST] = arg;
		free(dup);
		return;
	}
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		int cls;

		if (!eq || !eq[1])
			die_usage("--cc: '%s' is not CLASS=CC", tok);
		*eq = 0;
		for (cls = 0; cls < NCLASS && strcmp(tok, class_name[cls]); cls++)
			;
		if (cls == NCLASS)
			die_usage("--cc: unknown class '%s' (bg or incast)", tok);
		P.cc[cls] = strdup(eq + 1);
	}
	free(dup);
}

static void load_cdf(const char *arg)
{
	char err[256];

	P.cdf_name = arg;
	if (!strcmp(arg, "websearch")) {
		P.cdf = dc_wl_websearch;
		return;
	}
	if (!strcmp(arg, "datamining")) {
		P.cdf = dc_wl_datamining;
		return;
	}
	FILE *f = fopen(arg, "r");
	static char text[65536];
	size_t n;

	if (!f)
		die_usage("--cdf: '%s' is neither websearch, datamining nor a readable file: %s", arg, strerror(errno));
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	if (n == sizeof(text) - 1)
		die_usage("--cdf: '%s' is larger than %zu bytes", arg, sizeof(text) - 1);
	text[n] = 0;
	if (dc_wl_cdf_parse(text, &P.cdf, err, sizeof(err)))
		die_usage("--cdf: %s: %s", arg, err);
}

void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "senders", 1, 0, 's' }, { "receivers", 1, 0, 'r' }, { "cdf", 1, 0, 'C' },
		{ "scale", 1, 0, 'S' }, { "max-bytes", 1, 0, 'M' }, { "load", 1, 0, 'l' },
		{ "rate-mbit", 1, 0, 'R' }, { "capacity-mbit", 1, 0, 'c' }, { "flows", 1, 0, 'n' },
		{ "duration", 1, 0, 'd' }, { "timeout", 1, 0, 't' }, { "seed", 1, 0, 'e' },
		{ "incast", 1, 0, 'i' }, { "cc", 1, 0, 'y' }, { "hops", 1, 0, 'H' },
		{ "burst-bytes", 1, 0, 'b' }, { "mtu", 1, 0, 'm' }, { "base-rtt-us", 1, 0, 'B' },
		{ "rto-min-ms", 1, 0, 'o' }, { "port", 1, 0, 'p' }, { "conns", 1, 0, 'k' },
		{ "max-conns", 1, 0, 'K' }, { "tag", 1, 0, 'g' }, { "csv", 1, 0, 'v' },
		{ "json", 1, 0, 'j' }, { "bins", 1, 0, 'N' }, { "help", 0, 0, 'h' }, { 0 },
	};
	int o, have_load = 0, have_rate = 0;

	load_cdf("websearch");
	while ((o = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (o) {
		case 's': parse_hosts(optarg, P.snd, &P.nsnd, 0, "--senders"); break;
		case 'r': parse_hosts(optarg, P.rcv, &P.nrcv, 1, "--receivers"); break;
		case 'C': load_cdf(optarg); break;
		case 'S': P.scale = num("--scale", optarg); break;
		case 'N':
			if (strcmp(optarg, "bytes") && strcmp(optarg, "unscaled"))
				die_usage("--bins: bytes or unscaled, got '%s'", optarg);
			P.bins_unscaled = !strcmp(optarg, "unscaled");
			break;
		case 'M': P.max_bytes = num("--max-bytes", optarg); break;
		case 'l': P.load = num("--load", optarg); have_load = 1; break;
		case 'R': P.rate_mbit = num("--rate-mbit", optarg); have_rate = 1; break;
		case 'c': P.cap_mbit = num("--capacity-mbit", optarg); break;
		case 'n': P.flows_limit = (unsigned long long)num("--flows", optarg); break;
		case 'd': P.duration_s = num("--duration", optarg); break;
		case 't': P.timeout_s = num("--timeout", optarg); break;
		case 'e': P.seed = (unsigned long long)num("--seed", optarg); break;
		case 'i': {
			char *end;

			P.incast_period_ms = strtod(optarg, &end);
			if (*end != ':')
				die_usage("--incast: want PERIOD_MS:BYTES:FANIN, got '%s'", optarg);
			P.incast_bytes = strtoull(end + 1, &end, 10);
			if (*end != ':')
				die_usage("--incast: want PERIOD_MS:BYTES:FANIN, got '%s'", optarg);
			P.incast_fanin = (unsigned int)strtoul(end + 1, &end, 10);
			if (*end || P.incast_period_ms <= 0 || !P.incast_bytes || !P.incast_fanin)
				die_usage("--incast: want PERIOD_MS:BYTES:FANIN, all > 0, got '%s'", optarg);
			break;
		}
		case 'y': parse_cc(optarg); break;
		case 'H': P.hops = (unsigned int)num("--hops", optarg); break;
		case 'b': P.burst = num("--burst-bytes", optarg); break;
		case 'm': P.mtu = (unsigned int)num("--mtu", optarg); break;
		case 'B': P.base_rtt_us = num("--base-rtt-us", optarg); break;
		case 'o': P.rto_min_ms = num("--rto-min-ms", optarg); break;
		case 'p': P.port = (unsigned int)num("--port", optarg); break;
		case 'k': P.conns = (unsigned int)num("--conns", optarg); break;
		case 'K': P.max_conns = (unsigned int)num("--max-conns", optarg); break;
		case 'g':
			if (P.ntags == 32 || !strchr(optarg, '=') || strchr(optarg, '"') || strchr(optarg, '\\'))
				die_usage("--tag: want KEY=VALUE without quotes (at most 32), got '%s'", optarg);
			P.tags[P.ntags++] = optarg;
			break;
		case 'v': P.csv = optarg; break;
		case 'j': P.json = optarg; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (!P.nsnd || !P.nrcv)
		die_usage("--senders and --receivers are required");
	if (!have_load || !have_rate)
		die_usage("--load and --rate-mbit are required");
	if (!(P.load >= 0 && P.load <= 1))
		die_usage("--load %g is out of range: a fraction of the capacity, 0 < L <= 1", P.load);
	if (P.load == 0 && !P.incast_fanin)
		die_usage("--load 0 without --incast: no traffic");
	if (P.rate_mbit <= 0)
		die_usage("--rate-mbit must be > 0");
	if (!P.cap_mbit)
		P.cap_mbit = P.rate_mbit;
	if (P.cap_mbit <= 0)
		die_usage("--capacity-mbit must be > 0");
	if (P.scale <= 0 || P.max_bytes < 0 || P.burst < 0 || P.timeout_s <= 0 || P.duration_s < 0)
		die_usage("--scale, --timeout must be > 0; --max-bytes, --burst-bytes, --duration >= 0");
	if (P.hops < 1 || P.hops > 16 || P.mtu < 576 || P.mtu > 65535 || P.conns < 1 || P.max_conns < P.conns ||
	    P.port < 1 || P.port + NCLASS > 65535)
		die_usage("--hops 1..16, --mtu 576..65535, 1 <= --conns <= --max-conns, --port 1..65533");
	if (!P.flows_limit && !P.duration_s)
		P.duration_s = 2;
	P.mean_bytes = dc_wl_cdf_mean(&P.cdf, P.scale, P.max_bytes);
	if (P.load > 0 && P.mean_bytes < 1)
		die_usage("the CDF's mean size is %g bytes after --scale", P.mean_bytes);
	P.gap_ns = P.load > 0 ? dc_wl_mean_gap_ns(P.load, P.cap_mbit, P.mean_bytes) : 0;
}
