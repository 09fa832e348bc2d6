// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * The workload harness's pure parts (include/dcbpf/workload.h): CDF tables
 * (parsing, validation), sampling against the table, the mean of a scaled
 * and capped distribution, Poisson arrivals at a load, the ideal FCT,
 * nearest-rank percentiles and size bins.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "dcbpf/workload.h"
#include "loader/lib/rand.h"

#define DRAWS 400000

/* Empirical CDF of DRAWS samples at every table point within 0.004 (the
 * standard error of a proportion at this n is <= 0.0008), and the sample
 * mean within 3 % of the table's (the heavy tail makes it noisier). */
static void check_sampling(const char *name, const struct dc_wl_cdf *c)
{
	static double v[DRAWS];
	__u64 s = 0x9e3779b97f4a7c15ULL;
	double sum = 0, worst = 0, mean = dc_wl_cdf_mean(c, 1, 0);
	unsigned int i, j;
	char msg[128];

	for (i = 0; i < DRAWS; i++) {
		v[i] = dc_wl_cdf_sample(c, dc_rand_unit(&s));
		sum += v[i];
	}
	for (j = 0; j < c->n; j++) {
		unsigned long below = 0;

		for (i = 0; i < DRAWS; i++)
			below += v[i] <= c->bytes[j];
		/* an atom at a size repeated in the table: P(X <= b) is its top */
		double want = c->p[j];

		for (unsigned int k = j + 1; k < c->n && c->bytes[k] == c->bytes[j]; k++)
			want = c->p[k];
		if (fabs((double)below / DRAWS - want) > worst)
			worst = fabs((double)below / DRAWS - want);
	}
	snprintf(msg, sizeof(msg), "%s: empirical CDF matches the table at every point", name);
	CHECK(msg, worst < 0.004, "largest deviation %.5f", worst);
	snprintf(msg, sizeof(msg), "%s: sample mean matches the table's mean", name);
	CHECK(msg, fabs(sum / DRAWS / mean - 1) < 0.03, "sample mean %.0f, table mean %.0f", sum / DRAWS, mean);
	snprintf(msg, sizeof(msg), "%s: no sample outside the table's sizes", name);
	double lo = v[0], hi = v[0];

	for (i = 0; i < DRAWS; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	CHECK(msg, lo >= c->bytes[0] && hi <= c->bytes[c->n - 1], "range [%g, %g]", lo, hi);
}

static void test_tables(void)
{
	char err[256] = "";

	CHECK("websearch: the built-in table is valid", !dc_wl_cdf_check(&dc_wl_websearch, err, sizeof(err)), "%s", err);
	CHECK("datamining: the built-in table is valid", !dc_wl_cdf_check(&dc_wl_datamining, err, sizeof(err)), "%s", err);
	/* the means the header states, from the segments by hand:
	 * websearch 0.15·5e3 + 0.05·15e3 + ... = 1 711 250 B */
	CHECK_RANGE("websearch: mean 1.71 MB", dc_wl_cdf_mean(&dc_wl_websearch, 1, 0), 1711249, 1711251);
	CHECK_RANGE("datamining: mean 7.47 MB", dc_wl_cdf_mean(&dc_wl_datamining, 1, 0), 7460000, 7480000);
	CHECK_EQ("websearch: quantile 0.15 is 10 KB", (__u64)dc_wl_cdf_sample(&dc_wl_websearch, 0.15), 10000);
	CHECK_EQ("websearch: quantile 0.65 interpolates 200 KB..1 MB", (__u64)dc_wl_cdf_sample(&dc_wl_websearch, 0.65), 600000);
	CHECK_EQ("datamining: quantile 0.3 is the one-packet atom", (__u64)dc_wl_cdf_sample(&dc_wl_datamining, 0.3), 1460);
	CHECK_EQ("datamining: quantile 0 is the atom, not below it", (__u64)dc_wl_cdf_sample(&dc_wl_datamining, 0), 1460);
	check_sampling("websearch", &dc_wl_websearch);
	check_sampling("datamining", &dc_wl_datamining);
}

static void test_scale_cap(void)
{
	double m = dc_wl_cdf_mean(&dc_wl_websearch, 1, 0);
	__u64 s = 7;
	double sum = 0;
	unsigned int i;

	CHECK_RANGE("scale: mean scales linearly (x0.04)", dc_wl_cdf_mean(&dc_wl_websearch, 0.04, 0), m * 0.04 - 1, m * 0.04 + 1);
	/* cap at 1 MB: the segments below 1 MB give 86 250 B, the 30 % above
	 * count as 1 MB each: 386 250 B */
	CHECK_RANGE("cap: E[min(X, 1 MB)] from the segments", dc_wl_cdf_mean(&dc_wl_websearch, 1, 1e6), 386249, 386251);
	/* cap inside a segment (uniform 200 KB..1 MB, p 0.1, capped at 600 KB):
	 * half below at mean 400 KB, half at 600 KB: 0.1·500 KB instead of 0.1·600 KB */
	CHECK_RANGE("cap: a cap inside a segment splits it",
		    dc_wl_cdf_mean(&dc_wl_websearch, 1, 1e6) - dc_wl_cdf_mean(&dc_wl_websearch, 1, 6e5),
		    0.3 * 4e5 + 0.1 * 1e5 - 1, 0.3 * 4e5 + 0.1 * 1e5 + 1);
	for (i = 0; i < DRAWS; i++)
		sum += (double)dc_wl_flow_bytes(&dc_wl_websearch, dc_rand_unit(&s), 0.5, 2e6);
	CHECK("cap+scale: sample mean matches dc_wl_cdf_mean", fabs(sum / DRAWS / dc_wl_cdf_mean(&dc_wl_websearch, 0.5, 2e6) - 1) < 0.01,
	      "%.0f vs %.0f", sum / DRAWS, dc_wl_cdf_mean(&dc_wl_websearch, 0.5, 2e6));
	CHECK_EQ("flow bytes: at least one byte", dc_wl_flow_bytes(&dc_wl_websearch, 0, 0.001, 0), 1);
	CHECK_EQ("flow bytes: rounded", dc_wl_flow_bytes(&dc_wl_websearch, 0.15, 0.00005, 0), 1);
	CHECK_EQ("flow bytes: capped", dc_wl_flow_bytes(&dc_wl_websearch, 0.99, 1, 123456), 123456);
}

static void test_parse(void)
{
	struct dc_wl_cdf c;
	char err[256];

	CHECK("parse: HPCC-style table with comments and commas",
	      !dc_wl_cdf_parse("# size cdf\n0 0\n1000, 0.5\r\n\n5000\t1 # end\n", &c, err, sizeof(err)) && c.n == 3 &&
	      c.bytes[1] == 1000 && c.p[2] == 1, "%s (n %u)", err, c.n);
	CHECK("parse: a first point with p > 0 starts an atom at its size",
	      !dc_wl_cdf_parse("100 0.5\n200 1\n", &c, err, sizeof(err)) && c.n == 3 && c.bytes[0] == 100 && c.p[0] == 0 &&
	      dc_wl_cdf_sample(&c, 0.25) == 100, "%s (n %u)", err, c.n);
	CHECK("parse: last probability not 1 is refused",
	      dc_wl_cdf_parse("0 0\n100 0.9\n", &c, err, sizeof(err)) && strstr(err, "must be 1"), "%s", err);
	CHECK("parse: decreasing probability is refused",
	      dc_wl_cdf_parse("0 0\n100 0.6\n200 0.5\n300 1\n", &c, err, sizeof(err)) && strstr(err, "point 3"), "%s", err);
	CHECK("parse: decreasing size is refused",
	      dc_wl_cdf_parse("0 0\n100 0.5\n50 1\n", &c, err, sizeof(err)) && strstr(err, "must not decrease"), "%s", err);
	CHECK("parse: percentages (> 1) are refused",
	      dc_wl_cdf_parse("0 0\n100 50\n200 100\n", &c, err, sizeof(err)) && strstr(err, "[0, 1]"), "%s", err);
	CHECK("parse: garbage names its line",
	      dc_wl_cdf_parse("0 0\nfoo bar\n", &c, err, sizeof(err)) && strstr(err, "line 2"), "%s", err);
	CHECK("parse: a size without probability names its line",
	      dc_wl_cdf_parse("0 0\n100\n", &c, err, sizeof(err)) && strstr(err, "line 2: no probability"), "%s", err);
	CHECK("parse: trailing text is refused",
	      dc_wl_cdf_parse("0 0\n100 1 x\n", &c, err, sizeof(err)) && strstr(err, "unexpected"), "%s", err);
	CHECK("parse: empty text is refused", dc_wl_cdf_parse("# nothing\n\n", &c, err, sizeof(err)) && strstr(err, "no points"), "%s", err);
	CHECK("parse: a single point (size, 1) is a fixed size",
	      !dc_wl_cdf_parse("100 1\n", &c, err, sizeof(err)) && dc_wl_cdf_sample(&c, 0.7) == 100 &&
	      dc_wl_cdf_mean(&c, 1, 0) == 100, "%s", err);
	CHECK("parse: a single point (size, 0) is refused",
	      dc_wl_cdf_parse("5 0\n", &c, err, sizeof(err)) && strstr(err, "at least two"), "%s", err);
}

/* Poisson arrivals at a load: the mean gap is load·C/(8·mean) inverted, the
 * gaps' mean and coefficient of variation (1 for an exponential) match,
 * and counts in fixed windows have variance ≈ mean (index of dispersion 1). */
static void test_poisson(void)
{
	double gap = dc_wl_mean_gap_ns(0.5, 1000, 125000);	/* 0.5 Gbit/s of 125 KB flows: 500/s */
	double sum = 0, sq = 0, t = 0, cm = 0, cv = 0;
	__u64 s = 42;
	unsigned int i, n = 200000, win = 0, cnt = 0, counts[4000];

	CHECK_RANGE("poisson: mean gap for 500 flows/s is 2 ms", gap, 1999999, 2000001);
	for (i = 0; i < n; i++) {
		double g = dc_wl_exp_ns(dc_rand_unit(&s), gap);

		sum += g;
		sq += g * g;
		t += g;
		/* windows of 20 ms: 10 arrivals expected in each */
		while (t >= (win + 1) * 20e6 && win < 4000) {
			counts[win++] = cnt;
			cnt = 0;
		}
		cnt++;
	}
	double mean = sum / n, sd = sqrt(sq / n - mean * mean);

	CHECK("poisson: sample mean gap within 1 %", fabs(mean / gap - 1) < 0.01, "%.0f vs %.0f", mean, gap);
	CHECK("poisson: gaps' coefficient of variation is 1 (exponential)", fabs(sd / mean - 1) < 0.02, "%.3f", sd / mean);
	for (i = 0; i < win; i++)
		cm += counts[i];
	cm /= win;
	for (i = 0; i < win; i++)
		cv += (counts[i] - cm) * (counts[i] - cm);
	cv /= win - 1;
	CHECK("poisson: 10 arrivals per window on average", fabs(cm - 10) < 0.15, "%.3f", cm);
	CHECK("poisson: counts' variance/mean is 1", fabs(cv / cm - 1) < 0.08, "%.3f", cv / cm);
	CHECK_EQ("poisson: u = 0 gives a zero gap", (__u64)dc_wl_exp_ns(0, gap), 0);
}

static void test_ideal(void)
{
	struct dc_wl_path pa = { .rtt_ns = 50000, .rate_mbit = 1000, .mss = 1448, .hops = 1, .burst_bytes = 0 };

	/* 1432 + 16 = 1448 B: one segment, 1514 B on the wire = 12 112 ns */
	CHECK_RANGE("ideal: one full segment", dc_wl_ideal_ns(1432, &pa), 62111, 62113);
	/* 1433 B: two segments, 1449 + 132 = 1581 B = 12 648 ns */
	CHECK_RANGE("ideal: one byte more is a second segment", dc_wl_ideal_ns(1433, &pa), 62647, 62649);
	/* 1 MB: P = 1 000 016, 691 segments, 1 045 622 B = 8 364 976 ns */
	CHECK_RANGE("ideal: 1 MB at 1 Gbit/s", dc_wl_ideal_ns(1000000, &pa), 8414975, 8414977);
	pa.burst_bytes = 16384;
	CHECK_RANGE("ideal: a flow inside the TBF bucket is one RTT", dc_wl_ideal_ns(10000, &pa), 50000, 50000);
	CHECK_RANGE("ideal: the bucket is subtracted once", dc_wl_ideal_ns(1000000, &pa), 8414976 - 131072 - 1, 8414976 - 131072 + 1);
	pa.burst_bytes = 0;
	pa.hops = 3;
	/* two more hops each store and forward the first 1514 B frame */
	CHECK_RANGE("ideal: per-hop serialization of the first frame", dc_wl_ideal_ns(1432, &pa), 62112 + 2 * 12112 - 1, 62112 + 2 * 12112 + 1);
	pa.hops = 1;
	pa.rate_mbit = 100;
	CHECK_RANGE("ideal: ten times slower at 100 Mbit/s", dc_wl_ideal_ns(1000000, &pa), 50000 + 83649760 - 1, 50000 + 83649760 + 1);
	/* slowdown = FCT / ideal: the measured FCT of an idle path is >= 1 */
	CHECK("ideal: an empty flow's ideal is above the RTT", dc_wl_ideal_ns(0, &pa) > pa.rtt_ns, "%.0f", dc_wl_ideal_ns(0, &pa));
}

static void test_pct_bins(void)
{
	double v[1000];
	unsigned int i;

	for (i = 0; i < 100; i++)
		v[i] = i + 1;
	CHECK_EQ("pct: p50 of 1..100 is 50", dc_wl_pct(v, 100, 50), 50);
	CHECK_EQ("pct: p95 of 1..100 is 95", dc_wl_pct(v, 100, 95), 95);
	CHECK_EQ("pct: p99 of 1..100 is 99", dc_wl_pct(v, 100, 99), 99);
	CHECK_EQ("pct: p99.9 of 1..100 is the maximum", dc_wl_pct(v, 100, 99.9), 100);
	CHECK_EQ("pct: p100 is the maximum", dc_wl_pct(v, 100, 100), 100);
	CHECK_EQ("pct: one value is every percentile", dc_wl_pct(v, 1, 50) + dc_wl_pct(v, 1, 99.9), 2);
	CHECK("pct: no values give NAN", isnan(dc_wl_pct(v, 0, 50)), "not NAN");
	for (i = 0; i < 1000; i++)
		v[i] = i + 1;
	CHECK_EQ("pct: p99.9 of 1..1000 is 999", dc_wl_pct(v, 1000, 99.9), 999);
	CHECK_EQ("pct: p50 of 1..1000 is 500", dc_wl_pct(v, 1000, 50), 500);
	CHECK_EQ("pct: p50 of two values is the lower", dc_wl_pct(v, 2, 50), 1);

	CHECK_EQ("bins: 9999 B is short", dc_wl_bin_of(dc_wl_bins, DC_WL_NBINS, 9999), 0);
	CHECK_EQ("bins: 10 000 B is medium", dc_wl_bin_of(dc_wl_bins, DC_WL_NBINS, 10000), 1);
	CHECK_EQ("bins: 1 000 000 B is medium", dc_wl_bin_of(dc_wl_bins, DC_WL_NBINS, 1000000), 1);
	CHECK_EQ("bins: 1 000 001 B is long", dc_wl_bin_of(dc_wl_bins, DC_WL_NBINS, 1000001), 2);
	CHECK_EQ("bins: 1 B is short", dc_wl_bin_of(dc_wl_bins, DC_WL_NBINS, 1), 0);
	CHECK_EQ("bins: 30 MB is long", dc_wl_bin_of(dc_wl_bins, DC_WL_NBINS, 30000000), 2);
	CHECK_EQ("fine bins: 4999 B in the first", dc_wl_bin_of(dc_wl_fine_bins, DC_WL_NFINE, 4999), 0);
	CHECK_EQ("fine bins: 5000 B in the second", dc_wl_bin_of(dc_wl_fine_bins, DC_WL_NFINE, 5000), 1);
	CHECK_EQ("fine bins: 1 GB in the last", dc_wl_bin_of(dc_wl_fine_bins, DC_WL_NFINE, 1000000000), DC_WL_NFINE - 1);
	/* the fine bins refine the coarse ones: no fine bin straddles 10 KB or 1 MB */
	int ok = 1;

	for (i = 0; i < DC_WL_NFINE; i++) {
		unsigned long long lo = dc_wl_fine_bins[i].lo, hi = dc_wl_fine_bins[i].hi ? dc_wl_fine_bins[i].hi - 1 : ~0ULL;

		ok &= dc_wl_bin_of(dc_wl_bins, DC_WL_NBINS, lo) == dc_wl_bin_of(dc_wl_bins, DC_WL_NBINS, hi);
		ok &= !i || dc_wl_fine_bins[i].lo == dc_wl_fine_bins[i - 1].hi;
	}
	CHECK("fine bins: contiguous and inside the coarse bins", ok, "a fine bin straddles a coarse edge or leaves a gap");
}

int main(void)
{
	test_tables();
	test_scale_cap();
	test_parse();
	test_poisson();
	test_ideal();
	test_pct_bins();
	return check_failed;
}
