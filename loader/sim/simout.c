// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What `dcbpf sim` reports (simcmd.h): the table, one JSON object per
 * algorithm, and the CSV files of --out (columns in docs/admission.md).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "sim/simcmd.h"

void dc_sim_jw_num(struct jw *j, const char *key, const char *fmt, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), fmt, v);
	jw_raw(j, key, buf);
}

static const char *mode_name(const struct dc_sim_cfg *c)
{
	return c->mode == DC_SIM_UNIT ? "unit" : "byte";
}

/* Share of a priority's arrivals dropped or pushed out, in percent. */
static double loss_pct(const struct dc_sim_result *r, unsigned int prio)
{
	return r->prio_arrivals[prio] ?
		       100.0 * (double)r->prio_drops[prio] / (double)r->prio_arrivals[prio] : 0.0;
}

static void print_row(FILE *f, const struct dc_sim_cfg *c, const struct dc_sim_result *r)
{
	fprintf(f, "%-4s %10llu %10llu %10llu %9llu %9llu %9llu %8.2f %8.2f %9llu %9llu %9llu %12.3e\n",
		dc_alg_name(c->alg), (unsigned long long)r->arrivals,
		(unsigned long long)r->sent_pkts, (unsigned long long)r->sent_bytes,
		(unsigned long long)r->drops, (unsigned long long)r->pushed_out,
		(unsigned long long)r->first_rtt_drops, loss_pct(r, 0), loss_pct(r, 1),
		(unsigned long long)r->occ_p50, (unsigned long long)r->occ_p99,
		(unsigned long long)r->occ_max, r->decisions_per_s);
}

/* Credence's predictions: how many, what they did, and against LQD. */
static void print_pred(FILE *f, const struct dc_sim_cfg *c, const struct dc_sim_result *r)
{
	__u64 pd = 0;
	__u32 i;

	for (i = 0; i < r->nports; i++)
		pd += r->port[i].drop_pred;
	fprintf(f, "# credence: predictor %s, flip %.4g: %llu predictions asked, %llu drops on a prediction",
		dc_sim_pred_name(c->predictor), (double)c->flip_q32 / 4294967296.0,
		(unsigned long long)r->pred_asked, (unsigned long long)pd);
	if (c->predictor == DC_SIM_PRED_ORACLE || c->predictor == DC_SIM_PRED_FOREST)
		fprintf(f, "; vs LQD: TP %llu FP %llu TN %llu FN %llu",
			(unsigned long long)r->pred_tp, (unsigned long long)r->pred_fp,
			(unsigned long long)r->pred_tn, (unsigned long long)r->pred_fn);
	fprintf(f, "\n");
}

void dc_sim_print_table(FILE *f, const struct dc_sim_cfg *cfgs, const struct dc_sim_result *rs,
			unsigned int nr, size_t narr, const char *source)
{
	const struct dc_sim_cfg *c = &cfgs[0];
	unsigned int k;

	fprintf(f, "# %s, %u ports, B = %llu %s, %llu slots, %zu arrivals (%s)\n",
		c->mode == DC_SIM_UNIT ? "unit packets" : "bytes", c->nports,
		(unsigned long long)c->buffer, c->mode == DC_SIM_UNIT ? "packets" : "bytes",
		(unsigned long long)rs[0].slots, narr, source);
	fprintf(f, "%-4s %10s %10s %10s %9s %9s %9s %8s %8s %9s %9s %9s %12s\n", "alg", "arrivals",
		"sent_pkts", "sent_units", "drops", "pushouts", "frtt_drop", "p0_loss%", "p1_loss%",
		"occ_p50", "occ_p99", "occ_max", "decisions/s");
	for (k = 0; k < nr; k++)
		print_row(f, &cfgs[k], &rs[k]);
	for (k = 0; k < nr; k++)
		if (cfgs[k].alg == DC_ALG_CREDENCE)
			print_pred(f, &cfgs[k], &rs[k]);
}

void dc_sim_print_json(struct jw *j, const struct dc_sim_cfg *cfgs, const struct dc_sim_result *rs,
		       unsigned int nr)
{
	unsigned int k;

	jw_arr(j, NULL);
	for (k = 0; k < nr; k++) {
		const struct dc_sim_cfg *c = &cfgs[k];
		const struct dc_sim_result *r = &rs[k];

		jw_obj(j, NULL);
		jw_str(j, "alg", dc_alg_name(c->alg));
		jw_str(j, "mode", mode_name(c));
		jw_u64(j, "ports", c->nports);
		jw_u64(j, "buffer", c->buffer);
		jw_u64(j, "slots", r->slots);
		jw_u64(j, "arrivals", r->arrivals);
		jw_u64(j, "admitted", r->admitted);
		jw_u64(j, "sent_pkts", r->sent_pkts);
		jw_u64(j, "sent_units", r->sent_bytes);
		jw_u64(j, "drops", r->drops);
		jw_u64(j, "pushed_out", r->pushed_out);
		jw_u64(j, "first_rtt_arrivals", r->first_rtt_arrivals);
		jw_u64(j, "first_rtt_drops", r->first_rtt_drops);
		jw_u64(j, "occ_p50", r->occ_p50);
		jw_u64(j, "occ_p90", r->occ_p90);
		jw_u64(j, "occ_p99", r->occ_p99);
		jw_u64(j, "occ_max", r->occ_max);
		dc_sim_jw_num(j, "p0_loss_pct", "%.3f", loss_pct(r, 0));
		dc_sim_jw_num(j, "p1_loss_pct", "%.3f", loss_pct(r, 1));
		jw_u64(j, "incast_queries", r->incast_queries);
		jw_u64(j, "incast_whole", r->incast_whole);
		jw_u64(j, "pred_asked", r->pred_asked);
		jw_u64(j, "pred_tp", r->pred_tp);
		jw_u64(j, "pred_fp", r->pred_fp);
		jw_u64(j, "pred_tn", r->pred_tn);
		jw_u64(j, "pred_fn", r->pred_fn);
		dc_sim_jw_num(j, "decisions_per_s", "%.0f", r->decisions_per_s);
		jw_end_obj(j);
	}
	jw_end_arr(j);
	jw_done(j);
}

static void csv_summary(FILE *s, const struct dc_sim_cfg *c, const struct dc_sim_result *r)
{
	fprintf(s, "%s,%s,%u,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.0f\n",
		dc_alg_name(c->alg), mode_name(c), c->nports, (unsigned long long)c->buffer,
		(unsigned long long)r->slots, (unsigned long long)r->arrivals,
		(unsigned long long)r->admitted, (unsigned long long)r->sent_pkts,
		(unsigned long long)r->sent_bytes, (unsigned long long)r->drops,
		(unsigned long long)r->pushed_out, (unsigned long long)r->first_rtt_arrivals,
		(unsigned long long)r->first_rtt_drops, (unsigned long long)r->occ_p50,
		(unsigned long long)r->occ_p90, (unsigned long long)r->occ_p99,
		(unsigned long long)r->occ_max, r->decisions_per_s);
}

static void csv_ports(FILE *p, const struct dc_sim_cfg *c, const struct dc_sim_result *r)
{
	__u32 i;

	for (i = 0; i < r->nports; i++) {
		const struct dc_sim_port_res *pr = &r->port[i];

		fprintf(p, "%s,%u,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n",
			dc_alg_name(c->alg), i, (unsigned long long)pr->arrivals,
			(unsigned long long)pr->admitted, (unsigned long long)pr->sent_pkts,
			(unsigned long long)pr->sent_bytes, (unsigned long long)pr->drop_thresh,
			(unsigned long long)pr->drop_full, (unsigned long long)pr->drop_pred,
			(unsigned long long)pr->pushed_out, (unsigned long long)pr->first_rtt_drops,
			(unsigned long long)pr->max_q);
	}
}

int dc_sim_write_csv(const char *dir, const struct dc_sim_cfg *cfgs, const struct dc_sim_result *rs,
		     unsigned int nr, struct dc_err *err)
{
	char path[512];
	FILE *s, *p;
	unsigned int k;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return dc_err_set(err, EXIT_ERR, "cannot create --out %s: %s", dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/summary.csv", dir);
	s = fopen(path, "we");
	snprintf(path, sizeof(path), "%s/ports.csv", dir);
	p = fopen(path, "we");
	if (!s || !p) {
		dc_err_set(err, EXIT_ERR, "cannot write CSV files in %s: %s", dir, strerror(errno));
		if (s)
			fclose(s);
		if (p)
			fclose(p);
		return EXIT_ERR;
	}
	fprintf(s, "alg,mode,ports,buffer,slots,arrivals,admitted,sent_pkts,sent_units,drops,pushed_out,"
		   "first_rtt_arrivals,first_rtt_drops,occ_p50,occ_p90,occ_p99,occ_max,decisions_per_s\n");
	fprintf(p, "alg,port,arrivals,admitted,sent_pkts,sent_units,drop_thresh,drop_full,drop_pred,"
		   "pushed_out,first_rtt_drops,max_q\n");
	for (k = 0; k < nr; k++) {
		csv_summary(s, &cfgs[k], &rs[k]);
		csv_ports(p, &cfgs[k], &rs[k]);
	}
	if (fclose(s) | fclose(p))
		return dc_err_set(err, EXIT_ERR, "writing CSV in %s failed", dir);
	return 0;
}
