// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The workload harness's results: per-flow CSV and the JSON summary. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl.h"


static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void jnum(FILE *o, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", o);
	else
		fprintf(o, "%.6g", v);
}

/* {"n":..,"p50":..,"p95":..,"p99":..,"p999":..,"mean":..} of v[0..n), sorted here */
static void jstats(FILE *o, double *v, unsigned long n)
{
	double sum = 0;
	unsigned long i;

	qsort(v, n, sizeof(*v), cmp_d);
	for (i = 0; i < n; i++)
		sum += v[i];
	fprintf(o, "{\"n\":%lu,\"p50\":", n);
	jnum(o, dc_wl_pct(v, n, 50));
	fputs(",\"p95\":", o);
	jnum(o, dc_wl_pct(v, n, 95));
	fputs(",\"p99\":", o);
	jnum(o, dc_wl_pct(v, n, 99));
	fputs(",\"p999\":", o);
	jnum(o, dc_wl_pct(v, n, 99.9));
	fputs(",\"mean\":", o);
	jnum(o, n ? sum / n : NAN);
	fputs("}", o);
}

static int in_class(const struct flow *f, int cls)
{
	return f->cls != CL_PROBE && (cls < 0 || f->cls == cls);
}

/* The size a flow is binned by: its own, or with --bins unscaled the size
 * before --scale, so a scaled run's "short < 10 KB" holds the flows the
 * paper's figure calls short. */
static unsigned long long bin_bytes(const struct flow *f)
{
	return P.bins_unscaled && P.scale > 0 ? (unsigned long long)(f->bytes / P.scale + 0.5) : f->bytes;
}

static void jbins(FILE *o, int cls, const struct dc_wl_bin *bins, unsigned int nb, double *v)
{
	unsigned int b;

	fputc('[', o);
	for (b = 0; b < nb; b++) {
		unsigned long n = 0;
		size_t i;

		for (i = 0; i < nflows; i++)
			if (in_class(&flows[i], cls) && flows[i].done_ns &&
			    dc_wl_bin_of(bins, nb, bin_bytes(&flows[i])) == b)
				v[n++] = (double)(flows[i].done_ns - flows[i].arrive_ns) / flows[i].ideal_ns;
		fprintf(o, "%s{\"bin\":\"%s\",\"lo_bytes\":%llu,\"hi_bytes\":", b ? "," : "", bins[b].name, bins[b].lo);
		if (bins[b].hi)
			fprintf(o, "%llu", bins[b].hi);
		else
			fputs("null", o);
		fputs(",\"slowdown\":", o);
		jstats(o, v, n);
		fputc('}', o);
	}
	fputc(']', o);
}

static void jclass(FILE *o, int cls, double *v)
{
	unsigned long n = 0, done = 0, rto = 0, retr = 0, with_rto = 0;
	unsigned long long bytes = 0;
	size_t i;

	for (i = 0; i < nflows; i++) {
		if (!in_class(&flows[i], cls))
			continue;
		n++;
		bytes += flows[i].bytes;
		if (!flows[i].done_ns)
			continue;
		done++;
		rto += flows[i].rto > 0 ? flows[i].rto : 0;
		with_rto += flows[i].rto > 0;
		retr += flows[i].retrans > 0 ? flows[i].retrans : 0;
	}
	fprintf(o, "{\"flows\":%lu,\"completed\":%lu,\"bytes\":%llu,\"retrans\":%lu,", n, done, bytes, retr);
	if (rto_known == 1)
		fprintf(o, "\"rto_count\":%lu,\"flows_with_rto\":%lu,", rto, with_rto);
	else
		fputs("\"rto_count\":null,\"flows_with_rto\":null,", o);
	n = 0;
	for (i = 0; i < nflows; i++)
		if (in_class(&flows[i], cls) && flows[i].done_ns)
			v[n++] = (double)(flows[i].done_ns - flows[i].arrive_ns) / 1000.0;
	fputs("\"fct_us\":", o);
	jstats(o, v, n);
	n = 0;
	for (i = 0; i < nflows; i++)
		if (in_class(&flows[i], cls) && flows[i].done_ns)
			v[n++] = (double)(flows[i].done_ns - flows[i].arrive_ns) / flows[i].ideal_ns;
	fputs(",\"slowdown\":", o);
	jstats(o, v, n);
	fputs(",\"bins\":", o);
	jbins(o, cls, dc_wl_bins, DC_WL_NBINS, v);
	fputs(",\"fine_bins\":", o);
	jbins(o, cls, dc_wl_fine_bins, DC_WL_NFINE, v);
	fputc('}', o);
}

static void jstr(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', o);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, o);
	}
	fputc('"', o);
}

void write_outputs(uint64_t t0, uint64_t t_end)
{
	FILE *o = stdout, *c;
	double *v = malloc((nflows + 1) * sizeof(double)), *rtts = malloc((P.npairs + 1) * sizeof(double));
	size_t i;
	unsigned int k, nr = 0;

	if (!v || !rtts)
		die("out of memory");
	if (P.csv) {
		c = fopen(P.csv, "w");
		if (!c)
			die("cannot write %s: %s", P.csv, strerror(errno));
		fputs("id,class,cc,src,dst,size_bytes,start_ns,fct_ns,ideal_ns,slowdown,rto_count,retrans,wait_ns\n", c);
		unsigned long id = 0;

		for (i = 0; i < nflows; i++) {
			const struct flow *f = &flows[i];
			const struct pair *pa = &P.pairs[f->pair];

			if (f->cls == CL_PROBE)
				continue;
			fprintf(c, "%lu,%s,%s,%s,%s,%llu,%llu,", id++, class_name[f->cls], f->send_ns ? cc_seen[f->cc] : "",
				P.snd[pa->s].ns, P.rcv[pa->r].ns, (unsigned long long)f->bytes,
				(unsigned long long)(f->arrive_ns - t0));
			if (f->done_ns)
				fprintf(c, "%llu,%.0f,%.4f,%d,%d,%llu\n", (unsigned long long)(f->done_ns - f->arrive_ns),
					f->ideal_ns, (double)(f->done_ns - f->arrive_ns) / f->ideal_ns, f->rto, f->retrans,
					(unsigned long long)(f->send_ns - f->arrive_ns));
			else
				fprintf(c, "-1,%.0f,-1,-1,-1,%lld\n", f->ideal_ns,
					f->send_ns ? (long long)(f->send_ns - f->arrive_ns) : -1LL);
		}
		if (fclose(c))
			die("writing %s: %s", P.csv, strerror(errno));
	}
	if (P.json && !(o = fopen(P.json, "w")))
		die("cannot write %s: %s", P.json, strerror(errno));
	fputs("{\"schema\":\"dcbpf-workload/1\",\"params\":{\"cdf\":", o);
	jstr(o, P.cdf_name);
	fprintf(o, ",\"cdf_mean_bytes\":%.0f,\"scale\":%g,\"max_bytes\":%.0f,\"load\":%g,\"rate_mbit\":%g,"
		"\"capacity_mbit\":%g,\"mean_gap_us\":%.3f,\"flows_limit\":%llu,\"duration_s\":%g,\"timeout_s\":%g,"
		"\"seed\":%llu,\"bins_by\":\"%s\",\"incast\":",
		P.mean_bytes, P.scale, P.max_bytes, P.load, P.rate_mbit, P.cap_mbit, P.gap_ns / 1000.0, P.flows_limit,
		P.duration_s, P.timeout_s, P.seed, P.bins_unscaled ? "unscaled" : "bytes");
	if (P.incast_fanin)
		fprintf(o, "{\"period_ms\":%g,\"bytes\":%llu,\"fanin\":%u}", P.incast_period_ms, P.incast_bytes,
			P.incast_fanin);
	else
		fputs("null", o);
	fputs(",\"cc\":{", o);
	for (k = 0; k < NCLASS; k++) {
		fprintf(o, "%s\"%s\":", k ? "," : "", class_name[k]);
		if (P.cc[k])
			jstr(o, P.cc[k]);
		else
			fputs("null", o);
	}
	fprintf(o, "},\"hops\":%u,\"burst_bytes\":%.0f,\"mtu\":%u,\"mss\":%u,\"rto_min_ms\":", P.hops, P.burst, P.mtu,
		P.mtu - 52);
	jnum(o, P.rto_min_ms >= 0 ? P.rto_min_ms : NAN);
	fputs(",\"base_rtt_us\":", o);
	jnum(o, P.base_rtt_us >= 0 ? P.base_rtt_us : NAN);
	fprintf(o, ",\"port\":%u,\"conns\":%u,\"max_conns\":%u,\"senders\":[", P.port, P.conns, P.max_conns);
	for (k = 0; k < P.nsnd; k++) {
		fputs(k ? "," : "", o);
		jstr(o, P.snd[k].ns);
	}
	fputs("],\"receivers\":[", o);
	for (k = 0; k < P.nrcv; k++) {
		fputs(k ? "," : "", o);
		jstr(o, P.rcv[k].ns);
	}
	fprintf(o, "],\"pairs\":%u,\"tags\":{", P.npairs);
	for (k = 0; k < P.ntags; k++) {
		char *eq = strchr(P.tags[k], '=');

		fprintf(o, "%s\"%.*s\":", k ? "," : "", (int)(eq - P.tags[k]), P.tags[k]);
		jstr(o, eq + 1);
	}
	fputs("}},", o);
	/* the measured base RTT over pairs */
	for (k = 0; k < P.npairs; k++)
		rtts[nr++] = P.pairs[k].rtt_ns / 1000.0;
	qsort(rtts, nr, sizeof(double), cmp_d);
	fputs("\"base_rtt_us\":{\"min\":", o);
	jnum(o, nr ? rtts[0] : NAN);
	fputs(",\"median\":", o);
	jnum(o, dc_wl_pct(rtts, nr, 50));
	fputs(",\"max\":", o);
	jnum(o, nr ? rtts[nr - 1] : NAN);
	unsigned long long bytes = 0;
	unsigned long n = 0, done = 0;

	for (i = 0; i < nflows; i++)
		if (flows[i].cls != CL_PROBE) {
			n++;
			done += !!flows[i].done_ns;
			bytes += flows[i].done_ns ? flows[i].bytes : 0;
		}
	double el = (double)(t_end - t0) / 1e9;

	fprintf(o, "},\"run\":{\"flows\":%lu,\"completed\":%lu,\"elapsed_s\":%.4f,\"goodput_mbit\":%.2f,\"cc\":[", n, done,
		el, el > 0 ? bytes * 8 / el / 1e6 : 0);
	for (k = 0; k < ncc_seen; k++) {
		fputs(k ? "," : "", o);
		jstr(o, cc_seen[k]);
	}
	fputs("],\"tcpi_rto_us_min\":", o);
	jnum(o, tcpi_rto_min == UINT32_MAX ? NAN : tcpi_rto_min);
	fputs(",\"tcpi_rto_us_max\":", o);
	jnum(o, tcpi_rto_min == UINT32_MAX ? NAN : tcpi_rto_max);
	fprintf(o, ",\"rto_count_known\":%s},\"classes\":{\"all\":", rto_known == 1 ? "true" : "false");
	jclass(o, -1, v);
	for (k = 0; k < NCLASS; k++) {
		fprintf(o, ",\"%s\":", class_name[k]);
		jclass(o, k, v);
	}
	fputs("}", o);
	if (P.csv) {
		const char *b = strrchr(P.csv, '/');

		fputs(",\"csv\":", o);
		jstr(o, b ? b + 1 : P.csv);
	}
	fputs("}\n", o);
	if (o != stdout && fclose(o))
		die("writing %s: %s", P.json, strerror(errno));
	free(v);
	free(rtts);
}
