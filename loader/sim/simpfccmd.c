// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf sim --alg reverie|sonic`: which of sim's options the lossy/lossless
 * model reads, and its results as text or JSON (the model: simpfc.c).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sim/simcmd.h"
#include "sim/simpfc.h"

/* Options of `sim` this model reads (the rest are refused with it). */
static const char *const pfc_reads[] = {
	"alg", "workload", "ports", "buffer", "slots", "load", "incast-frac", "incast-senders",
	"incast-period", "slot-bytes", "slot-ns", "mtu", "seed", "alpha-lossless", "alpha-lossy",
	"gamma", "headroom", "link-delay", "xon-offset", "cong-bytes", NULL,
};
/* Options only this model reads. */
static const char *const pfc_own[] = {
	"alpha-lossless", "alpha-lossy", "gamma", "headroom", "link-delay", "xon-offset",
	"cong-bytes", NULL,
};

/* Options of Reverie's filter, refused with sonic. */
static const char *const rv_only[] = { "gamma", "cong-bytes", NULL };

static bool listed(const char *const *l, const char *name)
{
	for (; *l; l++)
		if (!strcmp(*l, name))
			return true;
	return false;
}

int dc_simpfc_refuse(const struct dc_opt *tab, const bool *given, struct dc_err *err)
{
	unsigned int i;

	for (i = 0; tab[i].name; i++)
		if (given[i] && listed(pfc_own, tab[i].name))
			return dc_err_set(err, EXIT_USAGE,
					  "--%s goes with --alg reverie or sonic (the lossy/lossless model with PFC)",
					  tab[i].name);
	return 0;
}

static void print_json(struct jw *j, const struct dc_simpfc_cfg *c, const struct dc_simpfc_result *r)
{
	jw_arr(j, NULL);
	jw_obj(j, NULL);
	jw_str(j, "alg", dc_simpfc_alg_name(c->alg));
	jw_u64(j, "ports", c->nports);
	jw_u64(j, "buffer_bytes", r->buffer_bytes);
	jw_u64(j, "shared_bytes", r->shared_bytes);
	jw_u64(j, "headroom_queue_bytes", r->hdrm_queue_bytes);
	jw_u64(j, "link_delay_slots", c->link_delay);
	dc_sim_jw_num(j, "alpha_lossless", "%.6g", c->alpha_ll_q16 / 65536.0);
	dc_sim_jw_num(j, "alpha_lossy", "%.6g", c->alpha_ly_q16 / 65536.0);
	if (c->alg == DC_SIMPFC_REVERIE)
		dc_sim_jw_num(j, "gamma", "%.9g", (double)c->gamma_q32 / 4294967296.0);
	else
		jw_null(j, "gamma");
	jw_u64(j, "slots", r->slots);
	jw_u64(j, "pauses", r->pauses);
	jw_u64(j, "resumes", r->resumes);
	jw_u64(j, "paused_queue_slots", r->paused_slots);
	jw_u64(j, "headroom_max_bytes", r->hdrm_max_bytes);
	jw_u64(j, "headroom_queue_max_bytes", r->hdrm_queue_max_bytes);
	jw_u64(j, "lossless_arrivals", r->ll_arrivals);
	jw_u64(j, "lossless_drops", r->ll_drops);
	jw_u64(j, "lossless_sent_bytes", r->ll_sent_bytes);
	jw_u64(j, "lossy_arrivals", r->ly_arrivals);
	jw_u64(j, "lossy_drops", r->ly_drops);
	jw_u64(j, "lossy_sent_bytes", r->ly_sent_bytes);
	jw_u64(j, "lossy_flows_refused", r->ly_flows_refused);
	jw_u64(j, "incasts", r->incasts);
	jw_u64(j, "incasts_done", r->incasts_done);
	dc_sim_jw_num(j, "incast_fct_mean_slots", "%.2f", r->incast_fct_mean);
	dc_sim_jw_num(j, "incast_fct_p99_slots", "%.2f", r->incast_fct_p99);
	dc_sim_jw_num(j, "incast_slowdown_mean", "%.4f", r->incast_slowdown_mean);
	jw_u64(j, "occ_lossless_p99_bytes", r->occ_ll_p99);
	jw_u64(j, "occ_lossy_p99_bytes", r->occ_ly_p99);
	jw_u64(j, "occ_lossless_max_bytes", r->occ_ll_max);
	jw_u64(j, "occ_lossy_max_bytes", r->occ_ly_max);
	jw_end_obj(j);
	jw_end_arr(j);
}

static void print_text(FILE *f, const struct dc_simpfc_cfg *c, const struct dc_simpfc_result *r)
{
	fprintf(f, "# %s: %u ports, buffer %llu B (shared %llu B, headroom %llu B per lossless queue), link delay %u slots\n",
		dc_simpfc_alg_name(c->alg), c->nports, (unsigned long long)r->buffer_bytes,
		(unsigned long long)r->shared_bytes, (unsigned long long)r->hdrm_queue_bytes,
		c->link_delay);
	fprintf(f, "pauses %llu resumes %llu paused-queue-slots %llu headroom max %llu B (one queue %llu B)\n",
		(unsigned long long)r->pauses, (unsigned long long)r->resumes,
		(unsigned long long)r->paused_slots, (unsigned long long)r->hdrm_max_bytes,
		(unsigned long long)r->hdrm_queue_max_bytes);
	fprintf(f, "lossless: %llu arrivals, %llu drops, %llu B sent; incasts %llu done of %llu, FCT mean %.1f p99 %.1f slots, slowdown %.3f\n",
		(unsigned long long)r->ll_arrivals, (unsigned long long)r->ll_drops,
		(unsigned long long)r->ll_sent_bytes, (unsigned long long)r->incasts_done,
		(unsigned long long)r->incasts, r->incast_fct_mean, r->incast_fct_p99,
		r->incast_slowdown_mean);
	fprintf(f, "lossy: %llu arrivals, %llu drops, %llu B sent\n",
		(unsigned long long)r->ly_arrivals, (unsigned long long)r->ly_drops,
		(unsigned long long)r->ly_sent_bytes);
	fprintf(f, "occupancy p99 (max): lossless %llu (%llu) B, lossy %llu (%llu) B\n",
		(unsigned long long)r->occ_ll_p99, (unsigned long long)r->occ_ll_max,
		(unsigned long long)r->occ_ly_p99, (unsigned long long)r->occ_ly_max);
}

int dc_simpfc_cmd(struct dc_ctx *ctx, int argc, char **argv, const bool *given)
{
	const struct dc_sim_args *o = ctx->opts;
	struct dc_simpfc_cfg c;
	struct dc_simpfc_result r;
	unsigned int i;
	int rc;

	(void)argc;
	(void)argv;
	for (i = 0; dc_sim_cmd_opts[i].name; i++)
		if (given[i] && !listed(pfc_reads, dc_sim_cmd_opts[i].name))
			return dc_fail(ctx, EXIT_USAGE,
				       "--%s does not apply to --alg %s (the lossy/lossless model with PFC: bytes, generated traffic)",
				       dc_sim_cmd_opts[i].name, dc_simpfc_alg_name((__u32)o->alg));
	for (i = 0; o->alg == DC_SIMPFC_SONIC && dc_sim_cmd_opts[i].name; i++)
		if (given[i] && listed(rv_only, dc_sim_cmd_opts[i].name))
			return dc_fail(ctx, EXIT_USAGE,
				       "--%s is Reverie's filter; SONiC's thresholds use the instantaneous queue length",
				       dc_sim_cmd_opts[i].name);
	dc_simpfc_defaults(&c);
	c.alg = (__u32)o->alg;
	c.nports = o->sim.ports;
	for (i = 0; dc_sim_cmd_opts[i].name; i++)
		if (given[i] && !strcmp(dc_sim_cmd_opts[i].name, "buffer"))
			c.buffer_bytes = o->sim.buffer;
	c.mtu = o->sim.mtu;
	c.slot_bytes = o->sim.slot_bytes;
	c.slot_ns = o->sim.slot_ns;
	c.link_delay = o->pfc.link_delay;
	c.hdrm_queue_bytes = o->pfc.headroom;
	c.alpha_ll_q16 = o->pfc.alpha_ll_q16;
	c.alpha_ly_q16 = o->pfc.alpha_ly_q16;
	c.gamma_q32 = (__u64)(o->pfc.gamma * 4294967296.0 + 0.5);
	c.xon_offset = o->pfc.xon_offset;
	c.cong_bytes = o->pfc.cong_bytes;
	c.lossy = o->sim.workload != DC_SIM_WL_INCAST;
	c.lossless = o->sim.workload != DC_SIM_WL_WEBSEARCH;
	c.slots = o->sim.slots;
	c.seed = o->seed;
	c.load = o->sim.load;
	c.incast_frac = o->sim.incast_frac;
	c.incast_senders = o->sim.incast_senders;
	c.incast_period = o->sim.incast_period;
	rc = dc_simpfc_prepare(&c, &ctx->err);
	if (rc)
		return rc;
	rc = dc_simpfc_run(&c, &r, &ctx->err);
	if (rc)
		return rc;
	if (ctx->json)
		print_json(&ctx->jw, &c, &r);
	else
		print_text(ctx->out, &c, &r);
	return 0;
}
