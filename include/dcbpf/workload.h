/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The workload harness's pure parts (tests/tools/workload.c, docs/workload.md):
 * flow-size distributions given as CDF tables, inverse-transform sampling,
 * Poisson inter-arrival times, the ideal flow completion time of the
 * emulated fabric, nearest-rank percentiles and size bins.
 *
 * User space only (doubles, libm): no BPF program includes it.  Unit-tested
 * by tests/unit/test_workload.c.
 */
#ifndef DCBPF_WORKLOAD_H
#define DCBPF_WORKLOAD_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DC_WL_CDF_MAX 128	/* points in one table */

/* A flow-size CDF: P(size <= bytes[i]) = p[i]; sizes between two points
 * are interpolated linearly (a point repeated with a higher p is an atom:
 * that size with the difference as its probability). */
struct dc_wl_cdf {
	unsigned int n;
	double bytes[DC_WL_CDF_MAX];
	double p[DC_WL_CDF_MAX];
};

/*
 * Web search: flow sizes of the web-search cluster's background traffic
 * (DCTCP, SIGCOMM'10, Fig. 4), as tabulated for the HPCC (SIGCOMM'19) and
 * PowerTCP (NSDI'22) evaluations.  Mean 1.71 MB; 15 % of flows at most
 * 10 KB, 30 % above 1 MB.
 */
static const struct dc_wl_cdf dc_wl_websearch = {
	.n = 12,
	.bytes = { 0, 10000, 20000, 30000, 50000, 80000, 200000, 1000000, 2000000,
		   5000000, 10000000, 30000000 },
	.p = { 0, 0.15, 0.20, 0.30, 0.40, 0.53, 0.60, 0.70, 0.80, 0.90, 0.97, 1.0 },
};

/*
 * Data mining: flow sizes of the data-mining cluster (VL2, SIGCOMM'09,
 * Fig. 2), in the tabulation of the pFabric evaluation (SIGCOMM'13): in
 * packets of 1460 bytes, 1, 2, 3, 7, 267, 2107, 66667 and 666667 packets
 * at the 50th, 60th, 70th, 80th, 90th, 95th, 99th and 100th percentile.
 * Half of the flows are one packet, 80 % at most 7 packets (10 KB), and
 * the few flows of 3-970 MB carry almost all bytes (mean 7.47 MB).
 */
static const struct dc_wl_cdf dc_wl_datamining = {
	.n = 9,
	.bytes = { 1460, 1460, 2920, 4380, 10220, 389820, 3076220, 97333820, 973333820 },
	.p = { 0, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0 },
};

/* dc_wl_cdf_check: a usable table — at least two points, sizes and
 * probabilities non-decreasing, sizes >= 0, first p >= 0, last p = 1.
 * Returns 0, or -1 with the reason in err. */
static inline int dc_wl_cdf_check(const struct dc_wl_cdf *c, char *err, size_t errlen)
{
	unsigned int i;

	if (c->n < 2) {
		snprintf(err, errlen, "a CDF needs at least two points, got %u", c->n);
		return -1;
	}
	for (i = 0; i < c->n; i++) {
		if (!(c->bytes[i] >= 0) || !(c->p[i] >= 0) || !(c->p[i] <= 1)) {
			snprintf(err, errlen, "point %u (%g, %g): sizes must be >= 0 and probabilities in [0, 1]",
				 i + 1, c->bytes[i], c->p[i]);
			return -1;
		}
		if (i && (c->bytes[i] < c->bytes[i - 1] || c->p[i] < c->p[i - 1])) {
			snprintf(err, errlen, "point %u (%g, %g): sizes and probabilities must not decrease",
				 i + 1, c->bytes[i], c->p[i]);
			return -1;
		}
	}
	if (fabs(c->p[c->n - 1] - 1.0) > 1e-9) {
		snprintf(err, errlen, "the last point's probability is %g, must be 1", c->p[c->n - 1]);
		return -1;
	}
	return 0;
}

/*
 * dc_wl_cdf_parse: a table from text, one point per line: "BYTES P"
 * (blanks or a comma between), '#' starts a comment, blank lines are
 * skipped.  The format of the CDF files of the HPCC and PowerTCP
 * simulators.  A first point with p > 0 gets a point (its size, 0) put
 * before it, so sizes below the first one are never drawn.  Returns 0, or
 * -1 with the line and the reason in err.
 */
static inline int dc_wl_cdf_parse(const char *text, struct dc_wl_cdf *c, char *err, size_t errlen)
{
	unsigned int line = 0;

	memset(c, 0, sizeof(*c));
	while (*text) {
		const char *eol = strchr(text, '\n'), *s;
		size_t len = eol ? (size_t)(eol - text) : strlen(text);
		char buf[256], *end;
		double b, p;

		line++;
		if (len >= sizeof(buf)) {
			snprintf(err, errlen, "line %u: longer than %zu characters", line, sizeof(buf) - 1);
			return -1;
		}
		memcpy(buf, text, len);
		buf[len] = 0;
		text += len + (eol ? 1 : 0);
		if ((end = strchr(buf, '#')))
			*end = 0;
		for (s = buf; *s == ' ' || *s == '\t' || *s == '\r'; s++)
			;
		if (!*s)
			continue;
		b = strtod(s, &end);
		if (end == s) {
			snprintf(err, errlen, "line %u: '%.60s' is not 'BYTES PROBABILITY'", line, s);
			return -1;
		}
		s = end;
		while (*s == ' ' || *s == '\t' || *s == ',')
			s++;
		p = strtod(s, &end);
		if (end == s) {
			snprintf(err, errlen, "line %u: no probability after the size", line);
			return -1;
		}
		for (s = end; *s == ' ' || *s == '\t' || *s == '\r'; s++)
			;
		if (*s) {
			snprintf(err, errlen, "line %u: unexpected '%.60s' after the probability", line, s);
			return -1;
		}
		if (c->n + 1 >= DC_WL_CDF_MAX) {
			snprintf(err, errlen, "line %u: more than %d points", line, DC_WL_CDF_MAX - 1);
			return -1;
		}
		if (c->n == 0 && p > 0) {
			c->bytes[0] = b;
			c->p[0] = 0;
			c->n = 1;
		}
		c->bytes[c->n] = b;
		c->p[c->n] = p;
		c->n++;
	}
	if (c->n == 0) {
		snprintf(err, errlen, "no points (want lines 'BYTES PROBABILITY')");
		return -1;
	}
	return dc_wl_cdf_check(c, err, errlen);
}

/* dc_wl_cdf_sample: the size at quantile u in [0, 1), bytes (unscaled,
 * fractional). */
static inline double dc_wl_cdf_sample(const struct dc_wl_cdf *c, double u)
{
	unsigned int i;

	for (i = 1; i < c->n; i++) {
		if (u < c->p[i]) {
			double dp = c->p[i] - c->p[i - 1];

			/* dp > 0 here: u >= p[i-1] (else an earlier i had stopped) */
			return c->bytes[i - 1] + (u - c->p[i - 1]) / dp * (c->bytes[i] - c->bytes[i - 1]);
		}
	}
	return c->bytes[c->n - 1];
}

/* dc_wl_cdf_mean: E[min(scale * X, max)] for X drawn from the table
 * (max 0: no cap), in bytes.  Each segment is uniform between its two
 * sizes; a cap inside a segment splits it. */
static inline double dc_wl_cdf_mean(const struct dc_wl_cdf *c, double scale, double max)
{
	double m = 0;
	unsigned int i;

	for (i = 1; i < c->n; i++) {
		double w = c->p[i] - c->p[i - 1], a = c->bytes[i - 1] * scale, b = c->bytes[i] * scale;

		if (w <= 0)
			continue;
		if (max <= 0 || b <= max)
			m += w * (a + b) / 2;
		else if (a >= max)
			m += w * max;
		else		/* uniform on [a, b], capped at max */
			m += w * (((max - a) / (b - a)) * (a + max) / 2 + ((b - max) / (b - a)) * max);
	}
	return m;
}

/* dc_wl_flow_bytes: a flow's size from quantile u: the table's size times
 * scale, capped at max (0: no cap), rounded, at least 1 byte. */
static inline unsigned long long dc_wl_flow_bytes(const struct dc_wl_cdf *c, double u, double scale, double max)
{
	double b = dc_wl_cdf_sample(c, u) * scale;

	if (max > 0 && b > max)
		b = max;
	b = floor(b + 0.5);
	return b < 1 ? 1 : (unsigned long long)b;
}

/* dc_wl_exp_ns: an exponential inter-arrival time of mean mean_ns from a
 * uniform u in [0, 1): arrivals of a Poisson process of rate 1/mean_ns. */
static inline double dc_wl_exp_ns(double u, double mean_ns)
{
	return -mean_ns * log1p(-u);
}

/* dc_wl_mean_gap_ns: the mean time between flow arrivals that offer load
 * (0..1] of capacity_mbit with flows of mean_bytes: λ = load · C / (8 · mean). */
static inline double dc_wl_mean_gap_ns(double load, double capacity_mbit, double mean_bytes)
{
	return mean_bytes * 8.0 * 1000.0 / (load * capacity_mbit);
}

/* Bytes on the wire per segment beyond its payload: IPv4 20, TCP 20, TCP
 * timestamps 12, Ethernet header 14 (what a TBF counts; no preamble or FCS
 * on a veth). */
#define DC_WL_SEG_OVERHEAD 66
/* The request header the harness puts before every flow's bytes. */
#define DC_WL_REQ_HDR 16

struct dc_wl_path {
	double rtt_ns;		/* base RTT of the pair: an empty request answered */
	double rate_mbit;	/* bottleneck rate of the path */
	unsigned int mss;	/* payload bytes per segment */
	unsigned int hops;	/* rate-limited (store-and-forward) hops on the path, >= 1 */
	double burst_bytes;	/* token bucket of the bottleneck (TBF burst), 0 = none */
};

/*
 * dc_wl_ideal_ns: the ideal FCT of a flow of `bytes` on an idle path —
 *
 *   ideal = RTT + max(0, W − burst)·8 / rate + (hops − 1) · F·8 / rate
 *
 * with P = bytes + 16 (the request header), W = P + ⌈P / MSS⌉ · 66 the bytes
 * the bottleneck carries, F = min(P, MSS) + 66 the first frame, which every
 * further rate-limited hop stores and forwards once.  RTT is the
 * application-level RTT of an empty request (the last byte's one-way trip
 * plus the answer's).  The burst term is the TBF's bucket: an idle bucket
 * passes its first `burst` bytes without waiting, so no flow can finish
 * sooner than this; the papers' ideal (PowerTCP, HPCC: base RTT + size /
 * line rate) is the same with burst 0 and hops 1.
 */
static inline double dc_wl_ideal_ns(unsigned long long bytes, const struct dc_wl_path *pa)
{
	double p = (double)bytes + DC_WL_REQ_HDR, segs = ceil(p / pa->mss);
	double wire = p + segs * DC_WL_SEG_OVERHEAD, ns_per_byte = 8000.0 / pa->rate_mbit;
	double first = (p < pa->mss ? p : pa->mss) + DC_WL_SEG_OVERHEAD, ser = wire - pa->burst_bytes;

	if (ser < 0)
		ser = 0;
	return pa->rtt_ns + ser * ns_per_byte + (pa->hops > 1 ? (pa->hops - 1) * first * ns_per_byte : 0);
}

/* dc_wl_pct: nearest-rank percentile q (0 < q <= 100) of sorted v[0..n):
 * the smallest value with at least q % of the values at or below it,
 * v[⌈q/100 · n⌉ − 1].  n = 0 gives NAN. */
static inline double dc_wl_pct(const double *v, unsigned long n, double q)
{
	double r;
	unsigned long k;

	if (!n)
		return NAN;
	r = ceil(q / 100.0 * (double)n - 1e-9);
	k = r < 1 ? 1 : (unsigned long)r;
	return v[(k > n ? n : k) - 1];
}

/* Size bins (bytes, decimal: 10 KB = 10000): the papers' three, and finer
 * ones for plots.  A bin holds lo <= size < hi; the last one is open. */
struct dc_wl_bin {
	const char *name;
	unsigned long long lo, hi;	/* hi 0: no upper bound */
};

static const struct dc_wl_bin dc_wl_bins[] = {
	{ "short", 0, 10000 },		/* < 10 KB */
	{ "medium", 10000, 1000001 },	/* 10 KB - 1 MB */
	{ "long", 1000001, 0 },		/* > 1 MB */
};
#define DC_WL_NBINS (sizeof(dc_wl_bins) / sizeof(dc_wl_bins[0]))

static const struct dc_wl_bin dc_wl_fine_bins[] = {
	{ "<5K", 0, 5000 }, { "5K-10K", 5000, 10000 }, { "10K-20K", 10000, 20000 },
	{ "20K-50K", 20000, 50000 }, { "50K-100K", 50000, 100000 },
	{ "100K-200K", 100000, 200000 }, { "200K-500K", 200000, 500000 },
	{ "500K-1M", 500000, 1000001 }, { "1M-2M", 1000001, 2000000 },
	{ "2M-5M", 2000000, 5000000 }, { "5M-10M", 5000000, 10000000 },
	{ ">=10M", 10000000, 0 },
};
#define DC_WL_NFINE (sizeof(dc_wl_fine_bins) / sizeof(dc_wl_fine_bins[0]))

/* dc_wl_bin_of: index of the bin of `bytes` in bins[0..n). */
static inline unsigned int dc_wl_bin_of(const struct dc_wl_bin *bins, unsigned int n, unsigned long long bytes)
{
	unsigned int i;

	for (i = 0; i + 1 < n; i++)
		if (bytes < bins[i].hi)
			return i;
	return n - 1;
}

#endif
