// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What a switch shows: `dcbpf switch status NAME` (configuration,
 * occupancy, model, per-port queues, thresholds and counters),
 * `switch list`, and the one line per switch of `dcbpf status`.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <dcbpf/admit.h>
#include <dcbpf/slytherin.h>
#include <dcbpf/vlqd.h>
#include <dcbpf/sw_sonic.h>

#include "counters.h"

#include "sw/swint.h"

/* One lossless priority's ingress queue under PFC, as SONiC and Reverie
 * both keep it (qhat, the smoothed queue, only Reverie: has_qhat). */
struct pfc_row {
	bool paused, has_qhat;
	__u64 pauses, resumes, q_bytes, qhat_bytes, hdrm_bytes, hdrm_pkts, hdrm_drops;
	bool has_retest;	/* Reverie: resumes by the re-test, stale count it dropped */
	__u64 retest_resumes, stale_bytes;
};

/* Fills r from the model's state st for ingress queue idx (port x prios + prio). */
typedef void (*pfc_get_fn)(const void *st, __u32 idx, struct pfc_row *r);

/* The "pfc" array (JSON) or the table: a row per configured port and lossless priority. */
static void sw_status_pfc(const struct sw *s, const struct dc_sw_cfg *cfg, struct jw *j, FILE *out,
			  bool has_qhat, pfc_get_fn get, const void *st)
{
	struct pfc_row r;
	struct dc_sw_port p;
	__u32 i, pr;

	if (j)
		jw_arr(j, "pfc");
	else
		fprintf(out, "%-4s %-15s %4s %6s %8s %8s %10s%s %10s %10s %10s%s\n", "port", "ifname", "prio",
			"paused", "pauses", "resumes", "q_B", has_qhat ? "     qhat_B" : "", "hdrm_B",
			"hdrm_pkts", "hdrm_drop", has_qhat ? " retest_res    stale_B" : "");
	for (i = 0; i < DC_SW_PORTS_MAX; i++) {
		if (bpf_map_lookup_elem(s->port, &i, &p) || !p.rate_mbps)
			continue;
		for (pr = 0; pr < DC_SW_PRIOS; pr++) {
			if (!cfg->rv.lossless[pr])
				continue;
			memset(&r, 0, sizeof(r));
			get(st, i * DC_SW_PRIOS + pr, &r);
			if (!j) {
				char qhat[16] = "";

				if (has_qhat)
					snprintf(qhat, sizeof(qhat), " %10llu", (unsigned long long)r.qhat_bytes);
				fprintf(out, "%-4u %-15.*s %4u %6s %8llu %8llu %10llu%s %10llu %10llu %10llu", i,
					DC_SW_IFNAME_LEN, p.ifname, pr, r.paused ? "yes" : "no",
					(unsigned long long)r.pauses, (unsigned long long)r.resumes,
					(unsigned long long)r.q_bytes, qhat, (unsigned long long)r.hdrm_bytes,
					(unsigned long long)r.hdrm_pkts, (unsigned long long)r.hdrm_drops);
				if (has_qhat)
					fprintf(out, " %10llu %10llu", (unsigned long long)r.retest_resumes,
						(unsigned long long)r.stale_bytes);
				fputc('\n', out);
				continue;
			}
			jw_obj(j, NULL);
			jw_u64(j, "port", i);
			jw_str(j, "ifname", p.ifname);
			jw_u64(j, "prio", pr);
			jw_bool(j, "paused", r.paused);
			jw_u64(j, "pauses", r.pauses);
			jw_u64(j, "resumes", r.resumes);
			jw_u64(j, "q_bytes", r.q_bytes);
			if (has_qhat)
				jw_u64(j, "qhat_bytes", r.qhat_bytes);
			jw_u64(j, "hdrm_bytes", r.hdrm_bytes);
			jw_u64(j, "hdrm_pkts", r.hdrm_pkts);
			jw_u64(j, "hdrm_drops", r.hdrm_drops);
			if (has_qhat) {
				jw_u64(j, "retest_resumes", r.retest_resumes);
				jw_u64(j, "stale_bytes", r.stale_bytes);
			}
			jw_end_obj(j);
		}
	}
	if (j) {
		jw_end_arr(j);
		jw_end_obj(j);
	}
}

static void sonic_row(const void *st, __u32 idx, struct pfc_row *r)
{
	const struct dc_sw_sonicq *q = &((const struct dc_sw_sonic *)st)->in[idx];

	r->paused = q->iq.paused;
	r->pauses = q->pauses;
	r->resumes = q->resumes;
	r->q_bytes = q->iq.q_bytes;
	r->hdrm_bytes = q->iq.hdrm_bytes;
	r->hdrm_pkts = q->hdrm_pkts;
	r->hdrm_drops = q->hdrm_drops;
}

static void rv_row(const void *st, __u32 idx, struct pfc_row *r)
{
	const struct dc_sw_rvq *q = &((const struct dc_sw_rv *)st)->in[idx];

	r->paused = q->q.paused;
	r->pauses = q->pauses;
	r->resumes = q->resumes;
	r->q_bytes = q->q.q_bytes;
	r->qhat_bytes = q->q.qhat_q16 >> DC_Q16_SHIFT;
	r->hdrm_bytes = q->q.hdrm_bytes;
	r->hdrm_pkts = q->hdrm_pkts;
	r->hdrm_drops = q->hdrm_drops;
	r->retest_resumes = q->retest_resumes;
	r->stale_bytes = q->stale_bytes;
}

/* The SONiC model (alg sonic): its pools and, per port and lossless
 * priority, the ingress queue's PFC state, as for Reverie. */
static void sw_status_sonic(const struct sw *s, const struct dc_sw_cfg *cfg, struct jw *j, FILE *out)
{
	static struct dc_sw_sonic so;
	char why[256];
	__u32 zero = 0;
	int fd;

	fd = dc_pinned_map_open(s->dir, M_SONIC, BPF_MAP_TYPE_ARRAY, 4, sizeof(so), why, sizeof(why));
	if (fd < 0)
		return;
	memset(&so, 0, sizeof(so));
	bpf_map_lookup_elem(fd, &zero, &so);
	close(fd);
	if (j) {
		jw_obj(j, "sonic");
		jw_u64(j, "ingress_used_bytes", so.pools.in_occ);
		jw_u64(j, "hdrm_used_bytes", so.pools.hdrm_used);
		jw_u64(j, "egress_lossy_used_bytes", so.pools.eg_occ[DC_RV_LOSSY]);
		jw_u64(j, "egress_lossless_used_bytes", so.pools.eg_occ[DC_RV_LOSSLESS]);
		jw_u64(j, "resets", so.resets);
	} else {
		fprintf(out, "sonic: ingress pool %llu bytes used, headroom %llu, egress lossy %llu, "
			"lossless %llu; %llu resets on an empty buffer\n",
			(unsigned long long)so.pools.in_occ, (unsigned long long)so.pools.hdrm_used,
			(unsigned long long)so.pools.eg_occ[DC_RV_LOSSY],
			(unsigned long long)so.pools.eg_occ[DC_RV_LOSSLESS],
			(unsigned long long)so.resets);
	}
	sw_status_pfc(s, cfg, j, out, false, sonic_row, &so);
}

/*
 * Reverie (alg reverie): the pools, and per port and lossless priority
 * the PFC state of its ingress queue — paused, pauses and resumes sent,
 * headroom in use, packets into and dropped by the headroom — and the
 * lossy egress queues' counts.  A switch started before dc_sw_rv existed
 * shows none.
 */
static void sw_status_rv(const struct sw *s, const struct dc_sw_cfg *cfg, struct jw *j, FILE *out)
{
	static struct dc_sw_rv rv;
	char why[256];
	__u32 zero = 0;
	__u64 h = cfg->rv.hdrm_pool_bytes;
	int fd;

	if (cfg->alg == DC_ALG_SONIC) {
		sw_status_sonic(s, cfg, j, out);
		return;
	}
	if (cfg->alg != DC_ALG_REVERIE)
		return;
	fd = dc_pinned_map_open(s->dir, M_RV, BPF_MAP_TYPE_ARRAY, 4, sizeof(rv), why, sizeof(why));
	if (fd < 0)
		return;
	memset(&rv, 0, sizeof(rv));
	bpf_map_lookup_elem(fd, &zero, &rv);
	close(fd);
	if (j) {
		jw_obj(j, "reverie");
		jw_u64(j, "shared_bytes", h < cfg->buffer_bytes ? cfg->buffer_bytes - h : 0);
		jw_u64(j, "shared_used_bytes", rv.pool.q_shared);
		jw_u64(j, "hdrm_pool_bytes", h);
		jw_u64(j, "hdrm_used_bytes", rv.pool.hdrm_used);
		jw_u64(j, "hdrm_queue_bytes", cfg->rv.hdrm_bytes);
		jw_u64(j, "n_lossy_q16", rv.pool.n_q16[DC_RV_LOSSY]);
		jw_u64(j, "n_lossless_q16", rv.pool.n_q16[DC_RV_LOSSLESS]);
		jw_u64(j, "resets", rv.resets);
	} else {
		fprintf(out, "reverie: shared pool %llu of %llu bytes, headroom %llu of %llu bytes "
			"(%u per queue), n lossy %.2f lossless %.2f, %llu resets on an empty buffer\n",
			(unsigned long long)rv.pool.q_shared,
			(unsigned long long)(h < cfg->buffer_bytes ? cfg->buffer_bytes - h : 0),
			(unsigned long long)rv.pool.hdrm_used, (unsigned long long)h, cfg->rv.hdrm_bytes,
			(double)rv.pool.n_q16[DC_RV_LOSSY] / DC_Q16_ONE,
			(double)rv.pool.n_q16[DC_RV_LOSSLESS] / DC_Q16_ONE, (unsigned long long)rv.resets);
	}
	sw_status_pfc(s, cfg, j, out, true, rv_row, &rv);
}

/*
 * The strict-priority queues of port i (nqueues > 1): each leaf's tracked
 * backlog and the threshold a packet of the queue's lowest priority would
 * meet now (admit.h: q of the queue, Q of the buffer, the class's n_p).
 */
static void sw_status_queues(int qfd, const struct dc_sw_meta *meta, const struct dc_sw_cfg *cfg,
			     const struct dc_sw_state *st, __u32 i, struct jw *j, FILE *out)
{
	__u32 k, key;

	if (qfd < 0 || meta->nqueues <= 1)
		return;
	if (j)
		jw_arr(j, "queues");
	for (k = 0; k < meta->nqueues && k < DC_SW_QUEUES_MAX; k++) {
		struct dc_sw_queue q;
		struct dc_adm_in in;
		__u64 tnow;

		key = dc_qrec_key(i, k);
		if (bpf_map_lookup_elem(qfd, &key, &q))
			continue;
		in = (struct dc_adm_in){ .q = q.qlen_bytes, .Q = st->occupancy_bytes,
					 .B = cfg->buffer_bytes, .alpha_q16 = cfg->alpha_q16[k],
					 .gamma_q16 = q.gamma_q16 ? q.gamma_q16 : (__u32)DC_Q16_ONE,
					 .n_congested = st->abm_congested_q[k] };
		tnow = dc_adm_threshold(cfg->alg, &in);
		if (j) {
			jw_obj(j, NULL);
			jw_u64(j, "queue", k);
			jw_u64(j, "classid", q.classid);
			jw_u64(j, "htb_prio", dc_queue_htb_prio(k, meta->nqueues));
			jw_u64(j, "qlen_bytes", q.qlen_bytes);
			jw_u64(j, "qlen_pkts", q.qlen_pkts);
			jw_u64(j, "thresh_now_bytes", tnow);
			jw_u64(j, "thresh_last_bytes", q.thresh_bytes);
			jw_u64(j, "gamma_q16", q.gamma_q16);
			jw_u64(j, "tx_bytes", q.tx_bytes);
			jw_u64(j, "tx_pkts", q.tx_pkts);
			jw_u64(j, "abm_congested", st->abm_congested_q[k]);
			jw_end_obj(j);
		} else {
			fprintf(out, "     queue %u (class 1:%x, htb prio %u): q %llu bytes, %llu pkts, T_now %llu, T_last %llu, gamma %.3f, tx %llu bytes, ABM n_p %u\n",
				k, q.classid & 0xffff, dc_queue_htb_prio(k, meta->nqueues),
				(unsigned long long)q.qlen_bytes, (unsigned long long)q.qlen_pkts,
				(unsigned long long)tnow, (unsigned long long)q.thresh_bytes,
				(double)(q.gamma_q16 ? q.gamma_q16 : DC_Q16_ONE) / DC_Q16_ONE,
				(unsigned long long)q.tx_bytes, st->abm_congested_q[k]);
		}
	}
	if (j)
		jw_end_arr(j);
}

/* The queues and how a packet picks one (prio_mode), with what the mode
 * adds: Slytherin's K, ResQueue's reserved buffer. */
static void sw_print_mode(FILE *out, const struct dc_sw_meta *meta, const struct dc_sw_cfg *cfg)
{
	char k[32];

	fprintf(out, "queues: %u per port, classification %s", meta->nqueues,
		sw_pmode_name(cfg->prio_mode));
	if (cfg->prio_mode == DC_SW_PM_SLYTHERIN) {
		dc_q16_format(cfg->sly_k_q16, k, sizeof(k));
		fprintf(out, " (CE and control segments to queue %u, the rest to queue 0; CE at "
			"sly_k %s of B = %llu bytes of the port's backlog)", meta->nqueues - 1, k,
			(unsigned long long)dc_sly_k_bytes(cfg->buffer_bytes, cfg->sly_k_q16));
	} else if (cfg->prio_mode == DC_SW_PM_RESQUEUE) {
		fprintf(out, " (queue %u, the reserved level, admitted against its own %u bytes per port)",
			meta->nqueues - 1, cfg->resq_reserved_bytes);
	}
	fprintf(out, "\n");
}

int sw_cmd_status(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct sw_name_args *args = ctx->opts;
	const char *pin_dir = ctx->pin_dir;
	struct jw *j = &ctx->jw;
	bool json = ctx->json;
	FILE *out = ctx->out;
	static struct dc_rf_model model;
	struct dc_sw_meta meta;
	struct dc_sw_cfg cfg;
	struct dc_sw_state st;
	struct dc_sw_cred cr;
	struct sw s;
	__u32 zero = 0, i, pr;
	char a[32], why[512];
	bool cred, model_loaded;
	/* every counter of each port, for the text table after the ports */
	static struct dc_sw_counters tots[DC_SW_PORTS_MAX];
	static char ifn[DC_SW_PORTS_MAX][DC_SW_IFNAME_LEN + 1];
	const void *tv[DC_SW_PORTS_MAX];
	const char *tc[DC_SW_PORTS_MAX];
	unsigned int nt = 0;
	int qfd = -1;

	(void)argc;
	(void)argv;
	if (sw_open(pin_dir, args->name, &s, &ctx->err))
		return EXIT_ERR;
	if (sw_read_cfg(&s, &meta, &cfg) || bpf_map_lookup_elem(s.state, &zero, &st)) {
		dc_fail(ctx, EXIT_ERR, "switch %s: reading %s failed: %s", s.name, s.dir,
			strerror(errno));
		sw_close(&s);
		return EXIT_ERR;
	}
	dc_q16_format(cfg.alpha_q16[0], a, sizeof(a));
	cred = cfg.alg == DC_ALG_CREDENCE || cfg.alg == DC_ALG_FOLLOWLQD;
	if (dc_sw_model_get(pin_dir, s.name, &model, &model_loaded, why, sizeof(why)))
		model_loaded = false;
	{
		char dir[DC_PATH_LEN + 64];
		int cfd;

		snprintf(dir, sizeof(dir), "%s", s.dir);
		memset(&cr, 0, sizeof(cr));
		cfd = dc_pinned_map_open(dir, M_CRED, BPF_MAP_TYPE_ARRAY, 4, sizeof(cr), why,
					 sizeof(why));
		if (cfd >= 0) {
			bpf_map_lookup_elem(cfd, &zero, &cr);
			close(cfd);
		}
		/* the record is as of each port's last arrival: drain it to now
		 * the way the next arrival would (include/dcbpf/vlqd.h) */
		{
			struct dc_vlqd_obs obs[DC_SW_PORTS_MAX];
			struct dc_sw_port p;
			__u32 k;

			memset(obs, 0, sizeof(obs));
			for (k = 0; k < DC_SW_PORTS_MAX; k++)
				if (!bpf_map_lookup_elem(s.port, &k, &p)) {
					obs[k].tx_bytes = p.tx_bytes;
					obs[k].q_bytes = p.qlen_bytes;
				}
			dc_vlqd_sync(&cr, sw_mono_ns(), cfg.cred_drain, obs);
		}
	}
	if (meta.nqueues > 1) {
		qfd = dc_pinned_map_open(s.dir, M_QUEUE, BPF_MAP_TYPE_ARRAY, 4,
					 sizeof(struct dc_sw_queue), why, sizeof(why));
		if (qfd < 0) {
			dc_fail(ctx, EXIT_ERR, "switch %s: %s", s.name, why);
			sw_close(&s);
			return EXIT_ERR;
		}
	}
	if (json) {
		jw_obj(j, NULL);
		jw_str(j, "name", s.name);
		jw_str(j, "netns", meta.netns);
		jw_u64(j, "netns_ino", meta.netns_ino);
		jw_str(j, "xdp_mode", meta.xdp_flags == XDP_FLAGS_SKB_MODE ? "generic" : "native");
		jw_str(j, "alg", sw_alg_name(cfg.alg));
		jw_u64(j, "buffer_bytes", cfg.buffer_bytes);
		jw_raw(j, "alpha0", a);
		jw_u64(j, "ecn_k_bytes", cfg.ecn_k_bytes);
		jw_u64(j, "occupancy_bytes", st.occupancy_bytes);
		jw_u64(j, "occupancy_pkts", st.occupancy_pkts);
		jw_u64(j, "abm_congested", st.abm_congested);
		jw_u64(j, "queues", meta.nqueues > 1 ? meta.nqueues : 1);
		jw_str(j, "prio_mode", sw_pmode_name(cfg.prio_mode));
		dc_q16_format(cfg.sly_k_q16, a, sizeof(a));
		jw_raw(j, "sly_k", a);
		jw_u64(j, "sly_k_bytes", dc_sly_k_bytes(cfg.buffer_bytes, cfg.sly_k_q16));
		jw_u64(j, "reserved_bytes", cfg.resq_reserved_bytes);
		dc_q16_format(cfg.alpha_q16[0], a, sizeof(a));
		jw_u64(j, "abm_updates", st.abm_updates);
		jw_bool(j, "model_loaded", model_loaded);
		jw_u64(j, "model_loads", meta.model_loads);
		jw_u64(j, "model_slot", meta.model_slot);
		jw_u64(j, "model_trees", model_loaded ? model.n_trees : 0);
		jw_u64(j, "model_depth", model_loaded ? model.depth : 0);
		jw_u64(j, "model_ewma_period_ns", model_loaded ? model.ewma_period_ns : 0);
		jw_u64(j, "vlqd_gamma_bytes", cr.gamma_bytes);
		jw_str(j, "cred_drain", sw_drain_name(cfg.cred_drain));
		jw_u64(j, "ev_sample_every", cfg.ev_sample_every);
		jw_u64(j, "ev_drops", cfg.ev_drops);
		jw_arr(j, "ports");
	} else {
		fprintf(out, "switch %s: netns %s (inode %u), xdp %s, pinned under %s\n", s.name, meta.netns,
		       meta.netns_ino, meta.xdp_flags == XDP_FLAGS_SKB_MODE ? "generic" : "native", s.dir);
		fprintf(out, "algorithm %s, B %u bytes, alpha.0 %s, ecn_k %u bytes; occupancy Q %llu bytes (%.1f%% of B), %llu packets; ABM n_p %u, %llu updates\n",
		       sw_alg_name(cfg.alg), cfg.buffer_bytes, a, cfg.ecn_k_bytes,
		       (unsigned long long)st.occupancy_bytes,
		       cfg.buffer_bytes ? 100.0 * (double)st.occupancy_bytes / cfg.buffer_bytes : 0.0,
		       (unsigned long long)st.occupancy_pkts, st.abm_congested,
		       (unsigned long long)st.abm_updates);
		if (meta.nqueues > 1)
			sw_print_mode(out, &meta, &cfg);
		if (model_loaded)
			fprintf(out, "credence model: %u trees, depth %u, EWMA period %u ns (slot %u, %u load(s))\n",
			       model.n_trees, model.depth, model.ewma_period_ns, meta.model_slot & 1,
			       meta.model_loads);
		else
			fprintf(out, "credence model: none loaded (credence admits where it would ask: FollowLQD + safeguard)\n");
		if (cred)
			fprintf(out, "virtual LQD: Γ = %llu bytes, drain %s\n", (unsigned long long)cr.gamma_bytes,
			       sw_drain_name(cfg.cred_drain));
		fprintf(out, "%-4s %-15s %6s %10s %6s %10s %10s %6s %12s %10s %10s %10s %8s", "port", "ifname",
		       "mbps", "qlen_B", "pkts", "T_now_B", "T_last_B", "gamma", "tx_bytes", "admit",
		       "drop_thr", "drop_full", "ecn");
		if (cred)
			fprintf(out, " %10s %10s %10s %10s %10s", "T_vlqd_B", "pred_ask", "drop_pred",
			       "no_model", "safeguard");
		fprintf(out, "\n");
	}
	for (i = 0; i < DC_SW_PORTS_MAX; i++) {
		struct dc_sw_counters tot, c;
		struct dc_sw_port p;
		struct dc_adm_in in;
		__u64 tnow;

		if (bpf_map_lookup_elem(s.port, &i, &p) || !p.rate_mbps)
			continue;
		memset(&tot, 0, sizeof(tot));
		for (pr = 0; pr < DC_SW_PRIOS; pr++) {
			if (sw_sum_counters(s.cnt, i * DC_SW_PRIOS + pr, &c))
				continue;
			dc_ctr_add(&dc_ctr_sw, &tot, &c);
		}
		tots[nt] = tot;
		snprintf(ifn[nt], sizeof(ifn[nt]), "%.*s", DC_SW_IFNAME_LEN, p.ifname);
		tv[nt] = &tots[nt];
		tc[nt] = ifn[nt];
		nt++;
		/* the threshold a priority-0 packet would meet now */
		in = (struct dc_adm_in){ .q = p.qlen_bytes, .Q = st.occupancy_bytes,
					 .B = cfg.buffer_bytes, .len = 0, .alpha_q16 = cfg.alpha_q16[0],
					 .gamma_q16 = p.gamma_q16 ? p.gamma_q16 : (__u32)DC_Q16_ONE,
					 .n_congested = st.abm_congested };
		tnow = cred ? cr.T_bytes[i] : dc_adm_threshold(cfg.alg, &in);
		if (json) {
			jw_obj(j, NULL);
			jw_u64(j, "port", i);
			jw_str(j, "ifname", p.ifname);
			jw_u64(j, "rate_mbps", p.rate_mbps);
			jw_u64(j, "qlen_bytes", p.qlen_bytes);
			jw_u64(j, "qlen_pkts", p.qlen_pkts);
			jw_u64(j, "thresh_now_bytes", tnow);
			jw_u64(j, "thresh_last_bytes", p.thresh_bytes);
			jw_u64(j, "gamma_q16", p.gamma_q16);
			jw_u64(j, "tx_bytes", p.tx_bytes);
			jw_u64(j, "tx_pkts", p.tx_pkts);
			jw_u64(j, "vlqd_thresh_bytes", cr.T_bytes[i]);
			dc_ctr_json(j, &dc_ctr_sw, &tot, DC_CTR_NOPORT);
			sw_status_queues(qfd, &meta, &cfg, &st, i, j, NULL);
			jw_end_obj(j);
		} else {
			fprintf(out, "%-4u %-15s %6u %10llu %6llu %10llu %10llu %6.3f %12llu %10llu %10llu %10llu %8llu",
			       i, p.ifname, p.rate_mbps, (unsigned long long)p.qlen_bytes,
			       (unsigned long long)p.qlen_pkts, (unsigned long long)tnow,
			       (unsigned long long)p.thresh_bytes, (double)p.gamma_q16 / DC_Q16_ONE,
			       (unsigned long long)p.tx_bytes, (unsigned long long)tot.admit_pkts,
			       (unsigned long long)tot.drop_thresh_pkts,
			       (unsigned long long)tot.drop_full_pkts,
			       (unsigned long long)tot.ecn_marked_pkts);
			if (cred)
				fprintf(out, " %10llu %10llu %10llu %10llu %10llu",
				       (unsigned long long)cr.T_bytes[i],
				       (unsigned long long)tot.pred_asked_pkts,
				       (unsigned long long)tot.drop_pred_pkts,
				       (unsigned long long)tot.pred_nomodel_pkts,
				       (unsigned long long)tot.safeguard_pkts);
			fprintf(out, "\n");
			sw_status_queues(qfd, &meta, &cfg, &st, i, NULL, out);
		}
	}
	{
		struct dc_sw_counters o;

		sw_sum_counters(s.cnt, DC_SW_CNT_OTHER, &o);
		if (json) {
			jw_end_arr(j);
			sw_status_rv(&s, &cfg, j, NULL);
			jw_u64(j, "other_pkts", o.other_pkts);
			jw_end_obj(j);
			jw_done(j);
		} else {
			if (nt) {
				fprintf(out, "counters per port (dc_sw_cnt, all priorities and CPUs):\n");
				dc_ctr_table(out, &dc_ctr_sw, nt, tc, tv, DC_CTR_NOPORT);
			}
			fprintf(out, "passed without a decision (not IP, no route, not to a switch port): %llu\n",
			       (unsigned long long)o.other_pkts);
			sw_status_rv(&s, &cfg, NULL, out);
		}
	}
	if (qfd >= 0)
		close(qfd);
	sw_close(&s);
	return EXIT_OK;
}

void dc_sw_status_brief(const char *pin_dir, bool json, struct jw *j)
{
	char names[64][DC_SW_NAME_LEN];
	int n = sw_list(pin_dir, names, 64), k;

	if (json)
		jw_arr(j, "switches");
	else if (n)
		printf("%-15s %-9s %12s %12s %6s\n", "switch", "alg", "occupancy_B", "buffer_B", "ports");
	for (k = 0; k < n; k++) {
		struct dc_sw_meta meta;
		struct dc_sw_cfg cfg;
		struct dc_sw_state st;
		struct sw s;
		__u32 zero = 0;
		struct dc_err err = { 0 };

		/* a half-removed switch is simply not listed */
		if (sw_open(pin_dir, names[k], &s, &err))
			continue;
		if (!sw_read_cfg(&s, &meta, &cfg) && !bpf_map_lookup_elem(s.state, &zero, &st)) {
			if (json) {
				jw_obj(j, NULL);
				jw_str(j, "name", names[k]);
				jw_str(j, "alg", sw_alg_name(cfg.alg));
				jw_u64(j, "occupancy_bytes", st.occupancy_bytes);
				jw_u64(j, "buffer_bytes", cfg.buffer_bytes);
				jw_u64(j, "ports", meta.nports);
				jw_end_obj(j);
			} else {
				printf("%-15s %-9s %12llu %12u %6u\n", names[k], sw_alg_name(cfg.alg),
				       (unsigned long long)st.occupancy_bytes, cfg.buffer_bytes, meta.nports);
			}
		}
		sw_close(&s);
	}
	if (json)
		jw_end_arr(j);
}


int sw_cmd_list(struct dc_ctx *ctx, int argc, char **argv)
{
	char names[64][DC_SW_NAME_LEN];
	int n = sw_list(ctx->pin_dir, names, 64), k;

	(void)argc;
	(void)argv;
	if (ctx->json) {
		jw_arr(&ctx->jw, NULL);
		for (k = 0; k < n; k++)
			jw_str(&ctx->jw, NULL, names[k]);
		jw_end_arr(&ctx->jw);
		jw_done(&ctx->jw);
		return EXIT_OK;
	}
	for (k = 0; k < n; k++)
		fprintf(ctx->out, "%s\n", names[k]);
	return EXIT_OK;
}
