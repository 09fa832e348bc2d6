// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The buffer-sharing simulator's engine (model in sim.h, usage and CSV
 * formats in docs/admission.md).  Decisions come from
 * include/dcbpf/admit.h, the code the XDP program runs; only LQD's
 * push-out is simulator-only.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "rand.h"
#include "sim/sim.h"

static const char *const alg_names[DC_ALG_MAX] = { "cs", "dt", "abm", "lqd", "credence",
						      "followlqd", "smartbuf", "edt" };

const char *dc_alg_name(__u32 alg)
{
	return alg < DC_ALG_MAX ? alg_names[alg] : "?";
}

void dc_sim_cfg_defaults(struct dc_sim_cfg *c)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->alg = DC_ALG_DT;
	c->mode = DC_SIM_UNIT;
	c->nports = 16;
	c->buffer = 1000;
	for (i = 0; i < DC_SW_PRIOS; i++)
		c->alpha_q16[i] = DC_DEFAULT_ALPHA_Q16;
	c->alpha_first_rtt_q16 = DC_DEFAULT_ALPHA_FIRST_RTT_Q16;
	c->abm_period_slots = 1;
	c->slot_bytes = 1500;
	c->occ_bins = 4096;
	c->predictor = DC_SIM_PRED_ORACLE;
	c->flip_q32 = 0;
	c->pred_seed = 1;
	c->slot_ns = 12000;		/* 1500 B at 1 Gbit/s */
	c->ewma_period_ns = 50000;	/* the emulated fabric's base RTT */
}

static const char *const pred_names[] = { "oracle", "drop", "accept", "forest" };

const char *dc_sim_pred_name(__u32 pred)
{
	return pred < sizeof(pred_names) / sizeof(pred_names[0]) ? pred_names[pred] : "?";
}

/* ---- engine ------------------------------------------------------------ */

/* A queue: FIFO of packets, each size | priority << 24 (sizes are at most
 * 1 MB); the tail matters for push-out. */
#define PKT_SIZE(v) ((v) & 0xffffffU)
#define PKT_PRIO(v) ((v) >> 24)
struct ring {
	__u32 *sz;
	__u32 *id;		/* arrival index of each packet, if fates are kept */
	__u32 cap, head, cnt;
};

static inline void ring_push(struct ring *r, __u32 v, __u32 id)
{
	__u32 i = r->head + r->cnt;

	if (i >= r->cap)
		i -= r->cap;
	r->sz[i] = v;
	if (r->id)
		r->id[i] = id;
	r->cnt++;
}

static inline __u32 ring_pop_head(struct ring *r)
{
	__u32 v = r->sz[r->head];

	if (++r->head == r->cap)
		r->head = 0;
	r->cnt--;
	return v;
}

/* Pops the tail; *id gets its arrival index when the ring keeps them. */
static inline __u32 ring_pop_tail(struct ring *r, __u32 *id)
{
	__u32 i = r->head + r->cnt - 1;

	if (i >= r->cap)
		i -= r->cap;
	r->cnt--;
	if (r->id)
		*id = r->id[i];
	return r->sz[i];
}


static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int dc_sim_lqd_labels(const struct dc_sim_cfg *c, const struct dc_sim_arrival *a, size_t n,
		      __u64 nslots, __u8 **labels, struct dc_err *err)
{
	struct dc_sim_cfg lc = *c;
	struct dc_sim_result *lr = malloc(sizeof(*lr));
	__u8 *f = calloc(n ? n : 1, 1);
	int rc;

	*labels = NULL;
	if (!lr || !f) {
		free(lr);
		free(f);
		return dc_err_set(err, EXIT_ERR, "out of memory for LQD labels");
	}
	lc.alg = DC_ALG_LQD;
	rc = dc_sim_run_ex(&lc, a, n, nslots, lr, NULL, f, err);
	free(lr);
	if (rc) {
		free(f);
		return rc;
	}
	*labels = f;
	return 0;
}

int dc_sim_run(const struct dc_sim_cfg *c, const struct dc_sim_arrival *a, size_t n,
	       __u64 nslots, struct dc_sim_result *r, struct dc_err *err)
{
	return dc_sim_run_ex(c, a, n, nslots, r, NULL, NULL, err);
}

static int sim_engine(const struct dc_sim_cfg *c, const struct dc_sim_arrival *a, size_t n,
		      __u64 nslots, struct dc_sim_result *r, const __u8 *pred, __u8 *fate,
		      __u32 (*feat)[DC_RF_FEATURES], __u8 *asked, struct dc_err *err);

/* No EWMA sample yet (time of the last update). */
#define EW_NEVER DC_U64_MAX

int dc_sim_run_ex(const struct dc_sim_cfg *c, const struct dc_sim_arrival *a, size_t n,
		  __u64 nslots, struct dc_sim_result *r, const __u8 *pred, __u8 *fate,
		  struct dc_err *err)
{
	return sim_engine(c, a, n, nslots, r, pred, fate, NULL, NULL, err);
}

int dc_sim_features(const struct dc_sim_cfg *c, const struct dc_sim_arrival *a, size_t n,
		    __u64 nslots, __u32 (*x)[DC_RF_FEATURES], __u8 *fate, __u8 *asked,
		    struct dc_err *err)
{
	struct dc_sim_result *r = malloc(sizeof(*r));
	int rc;

	if (!r)
		return dc_err_set(err, EXIT_ERR, "out of memory");
	rc = sim_engine(c, a, n, nslots, r, NULL, fate, x, asked, err);
	free(r);
	return rc;
}

static int sim_engine(const struct dc_sim_cfg *c, const struct dc_sim_arrival *a, size_t n,
		      __u64 nslots, struct dc_sim_result *r, const __u8 *pred, __u8 *fate,
		      __u32 (*feat)[DC_RF_FEATURES], __u8 *asked, struct dc_err *err)
{
	const bool unit = c->mode == DC_SIM_UNIT;
	/* queues: N of them, nq per port (strict priority), port = i / nq */
	const __u32 nq = dc_nq(c->nqueues), N = c->nports * nq, alg = c->alg;
	const __u64 B = c->buffer;
	__u64 q[DC_SIM_PORTS_MAX] = { 0 }, credit[DC_SIM_PORTS_MAX] = { 0 };
	__u64 win_sent[DC_SIM_PORTS_MAX] = { 0 }, win_q[DC_SIM_PORTS_MAX] = { 0 };
	__u32 gamma[DC_SIM_PORTS_MAX];
	/* Credence / FollowLQD: thresholds = virtual LQD queues, Γ = Σ T */
	__u64 T[DC_SIM_PORTS_MAX] = { 0 }, G = 0, prng = c->pred_seed ^ 0x9e3779b97f4a7c15ULL;
	const bool cred = alg == DC_ALG_CREDENCE || alg == DC_ALG_FOLLOWLQD;
	const bool forest = alg == DC_ALG_CREDENCE && c->predictor == DC_SIM_PRED_FOREST && !pred;
	/* Features (docs/credence.md): bytes, so unit-mode packets count as
	 * slot_bytes each; EWMAs time-weighted in ns over the period. */
	const bool want_x = feat || forest;
	const __u64 fscale = unit ? c->slot_bytes : 1;
	const __u64 ew_period = c->model ? c->model->ewma_period_ns : c->ewma_period_ns;
	__u32 ew_q[DC_SIM_PORTS_MAX] = { 0 }, ew_Q = 0;
	__u64 ew_t[DC_SIM_PORTS_MAX], ew_tQ = EW_NEVER;
	__u8 *labels = NULL;
	/* SmartBuf / EDT: per-port state and SmartBuf's shared Main table */
	const bool sbuf = alg == DC_ALG_SMARTBUF || alg == DC_ALG_EDT;
	struct dc_sb_port sbp[DC_SIM_PORTS_MAX];
	struct dc_edt_port edp[DC_SIM_PORTS_MAX];
	struct dc_sb_main sbm;
	struct ring ring[DC_SIM_PORTS_MAX];
	__u64 *hist = NULL, Q = 0, t, bw, nbins, cum, want[3];
	__u32 minsz = 0xffffffffU, cap, ncong[DC_SW_QUEUES_MAX], i, k, period;
	size_t idx = 0;
	double t0;
	int rc = EXIT_ERR, vt, vn;

	memset(r, 0, sizeof(*r));
	memset(ring, 0, sizeof(ring));
	memset(sbp, 0, sizeof(sbp));
	memset(edp, 0, sizeof(edp));
	memset(&sbm, 0, sizeof(sbm));
	if (!N || N > DC_SIM_PORTS_MAX || !B || B >= (1ULL << 32) || alg >= DC_ALG_MAX ||
	    c->nqueues > DC_SW_QUEUES_MAX) {
		return dc_err_set(err, EXIT_USAGE,
				  "ports × queues must be 1..%d (queues 1..%d), buffer 1..2^32-1, algorithm known",
				  DC_SIM_PORTS_MAX, DC_SW_QUEUES_MAX);
	}
	for (idx = 0; idx < n; idx++) {
		if (a[idx].port >= c->nports) {
			return dc_err_set(err, EXIT_ERR,
					  "arrival %zu is for port %u but the switch has %u ports (--ports)",
					  idx, a[idx].port, c->nports);
		}
		if (idx && a[idx].slot < a[idx - 1].slot) {
			return dc_err_set(err, EXIT_ERR, "arrivals are not sorted by time (row %zu)",
					  idx + 1);
		}
		if (!unit && a[idx].bytes < minsz)
			minsz = a[idx].bytes;
	}
	if (forest && (!c->model || dc_rf_validate(c->model, &vt, &vn))) {
		return dc_err_set(err, EXIT_USAGE,
				  "the forest predictor needs a valid model (--model FILE)");
	}
	if (want_x && (!c->slot_ns || !ew_period)) {
		return dc_err_set(err, EXIT_USAGE,
				  "features need --slot-ns > 0 and an EWMA period > 0");
	}
	if (!unit && (!minsz || !c->slot_bytes)) {
		return dc_err_set(err, EXIT_ERR,
				  "byte mode needs packets of at least 1 byte and --slot-bytes > 0");
	}
	if (n && nslots <= a[n - 1].slot)
		nslots = (__u64)a[n - 1].slot + 1;
	if (n > 0xffffffffULL && fate) {
		return dc_err_set(err, EXIT_ERR, "at most 2^32 arrivals when fates are kept");
	}
	/* the oracle's labels: LQD's fate of each arrival on the same trace */
	if (alg == DC_ALG_CREDENCE &&
	    (c->predictor == DC_SIM_PRED_ORACLE || c->predictor == DC_SIM_PRED_FOREST) &&
	    (rc = dc_sim_lqd_labels(c, a, n, nslots, &labels, err)))
		return rc;
	rc = EXIT_ERR;
	if (!prng)
		prng = 1;
	for (i = 0; i < DC_SIM_PORTS_MAX; i++)
		ew_t[i] = EW_NEVER;
	if (fate)
		memset(fate, 0, n);
	if (asked)
		memset(asked, 0, n);
	/* A queue never holds more packets than the buffer can. */
	cap = (__u32)(unit ? B + 1 : B / (minsz == 0xffffffffU ? 1 : minsz) + 2);
	for (i = 0; i < N; i++) {
		ring[i].cap = cap;
		ring[i].sz = malloc((size_t)cap * sizeof(__u32));
		if (!ring[i].sz)
			goto oom;
		if (fate) {
			ring[i].id = malloc((size_t)cap * sizeof(__u32));
			if (!ring[i].id)
				goto oom;
		}
		gamma[i] = (__u32)DC_Q16_ONE;
	}
	bw = (B + 1 + c->occ_bins - 1) / (c->occ_bins ? c->occ_bins : 1);
	if (!bw)
		bw = 1;
	nbins = B / bw + 2;
	hist = calloc(nbins, sizeof(*hist));
	if (!hist)
		goto oom;
	period = c->abm_period_slots ? c->abm_period_slots : 1;
	for (k = 0; k < DC_SW_QUEUES_MAX; k++)
		ncong[k] = 1;

	r->nports = N;
	idx = 0;
	t0 = mono_s();
	/* c->drain: after the last slot, departures go on until the buffer
	 * is empty (a queue with packets sends in every slot, so this ends) */
	for (t = 0; t < nslots || (c->drain && Q); t++) {
		/* ABM: n_p and γ once per period, from the state at its end. */
		/* With queues, n_p per priority class: queue i's class is
		 * i mod nq, tested with its own α and its class's n_p (ABM,
		 * Eq. 4.9); γ of a queue is its share of its port's rate. */
		if (alg == DC_ALG_ABM && t % period == 0) {
			__u32 cong[DC_SW_QUEUES_MAX] = { 0 };

			for (i = 0; i < N; i++) {
				gamma[i] = dc_abm_gamma_from(win_sent[i],
							     unit ? period : (__u64)period * c->slot_bytes,
							     q[i] || win_q[i]);
				if (dc_abm_congested(q[i], dc_abm_threshold(B, Q, c->alpha_q16[i % nq],
									    ncong[i % nq], gamma[i])))
					cong[i % nq]++;
				win_sent[i] = 0;
				win_q[i] = q[i];
			}
			for (k = 0; k < nq; k++)
				ncong[k] = dc_abm_n(cong[k]);
		}
		/* arrival phase */
		for (; idx < n && a[idx].slot == t; idx++) {
			const struct dc_sim_arrival *p = &a[idx];
			__u32 len = unit ? 1 : p->bytes, prio = p->prio & DC_SW_DSCP_PRIO_MASK;
			/* the queue's class: qi mod nq without a division per arrival */
			const __u32 qc = dc_queue_of_prio(prio, nq), qi = p->port * nq + qc;
			struct dc_sim_port_res *pr = &r->port[qi];
			struct dc_adm_in in;
			enum dc_verdict v;
			__u64 thr;

			__u32 x[DC_RF_FEATURES];

			pr->arrivals++;
			r->prio_arrivals[prio]++;
			r->first_rtt_arrivals += p->first_rtt ? 1 : 0;
			if (want_x) {
				/* the state this arrival finds, before any decision */
				__u64 now = t * c->slot_ns;

				x[DC_RF_F_QLEN] = dc_rf_feat(q[qi] * fscale);
				x[DC_RF_F_OCC] = dc_rf_feat(Q * fscale);
				/* a queue's first sample replaces its average, as in
				 * the data plane (include/dcbpf/vlqd.h) */
				ew_q[qi] = dc_rf_ewma(ew_q[qi], x[DC_RF_F_QLEN],
							   ew_t[qi] == EW_NEVER ? ew_period :
							   now - ew_t[qi], ew_period);
				ew_t[qi] = now;
				ew_Q = dc_rf_ewma(ew_Q, x[DC_RF_F_OCC],
						  ew_tQ == EW_NEVER ? ew_period : now - ew_tQ, ew_period);
				ew_tQ = now;
				x[DC_RF_F_QLEN_EWMA] = ew_q[qi];
				x[DC_RF_F_OCC_EWMA] = ew_Q;
				if (feat)
					memcpy(feat[idx], x, sizeof(x));
			}
			in.q = q[qi];
			in.Q = Q;
			in.B = B;
			in.len = len;
			in.alpha_q16 = dc_adm_alpha(alg, c->alpha_q16[prio], c->alpha_first_rtt_q16,
						    p->first_rtt);
			in.gamma_q16 = gamma[qi];
			in.n_congested = ncong[qc];
			if (cred) {
				struct dc_cred_in ci = { .q = q[qi], .Q = Q, .B = B, .n = N,
							 .len = len };
				bool ask, drop;

				dc_cred_arrival(T, &G, N, qi, B, len);
				ci.T = T[qi];
				for (i = 0; i < N; i++)
					if (q[i] > ci.longest)
						ci.longest = q[i];
				v = dc_cred_decide(alg, &ci, &ask);
				if (ask && asked)
					asked[idx] = 1;
				if (ask) {
					/* consulted only here (Alg. 4 line 12) */
					drop = pred ? pred[idx] != 0 :
					       forest ? dc_rf_predict_drop(c->model, x) :
					       c->predictor == DC_SIM_PRED_ORACLE ? labels[idx] != 0 :
					       c->predictor == DC_SIM_PRED_DROP;
					if (c->flip_q32 && (dc_rand_next(&prng) >> 32) < c->flip_q32)
						drop = !drop;
					r->pred_asked++;
					if (labels) {
						if (drop)
							labels[idx] ? r->pred_tp++ : r->pred_fp++;
						else
							labels[idx] ? r->pred_fn++ : r->pred_tn++;
					}
					if (drop)
						v = DC_V_DROP_PRED;
				}
			} else if (sbuf) {
				/* the queue sample, then the decision on it */
				if (alg == DC_ALG_SMARTBUF)
					dc_sb_sample(&sbp[qi], &sbm, &c->sb, q[qi],
						     t * c->slot_ns, B);
				else
					dc_edt_sample(&edp[qi], &c->edt, q[qi], t * c->slot_ns);
				v = dc_adm_decide_sb(alg, &in, &sbp[qi], &edp[qi], &thr);
			} else {
				v = dc_adm_decide(alg, &in, &thr);
			}
			if (alg == DC_ALG_LQD && v == DC_V_DROP_FULL) {
				/* push out tails of the longest queues until it fits */
				while (Q + len > B) {
					__u32 vq = dc_lqd_victim(q, N, qi, len);
					__u32 sz, vid = 0;

					if (vq == qi || !ring[vq].cnt)
						break;
					sz = ring_pop_tail(&ring[vq], &vid);
					if (fate)
						fate[vid] = 1;
					r->prio_drops[PKT_PRIO(sz)]++;
					sz = PKT_SIZE(sz);
					q[vq] -= sz;
					Q -= sz;
					r->port[vq].pushed_out++;
				}
				v = Q + len > B ? DC_V_DROP_FULL : DC_V_ADMIT;
			}
			if (v == DC_V_ADMIT) {
				ring_push(&ring[qi], len | prio << 24, (__u32)idx);
				q[qi] += len;
				Q += len;
				pr->admitted++;
			} else {
				if (v == DC_V_DROP_FULL)
					pr->drop_full++;
				else if (v == DC_V_DROP_PRED)
					pr->drop_pred++;
				else
					pr->drop_thresh++;
				if (fate)
					fate[idx] = 1;
				if (p->first_rtt)
					pr->first_rtt_drops++;
				r->prio_drops[prio]++;
			}
			if (q[qi] > pr->max_q)
				pr->max_q = q[qi];
		}
		/* departure phase: each port sends from its highest non-empty
		 * queue first (strict priority; one queue: as it always did) */
		if (cred)
			for (i = 0; i < N; i++)
				/* the virtual LQD queue drains at line rate, whatever q_i is */
				dc_cred_depart(T, &G, i, unit ? 1 : c->slot_bytes);
		for (i = 0; i < N; i += nq) {
			__u32 j = dc_queue_next(&q[i], nq);

			if (j == nq)
				continue;
			j += i;
			if (unit) {
				ring_pop_head(&ring[j]);
				q[j]--;
				Q--;
				r->port[j].sent_pkts++;
				r->port[j].sent_bytes++;
				win_sent[j]++;
				continue;
			}
			credit[i] += c->slot_bytes;
			while (j < i + nq && ring[j].cnt &&
			       PKT_SIZE(ring[j].sz[ring[j].head]) <= credit[i]) {
				__u32 sz = PKT_SIZE(ring_pop_head(&ring[j]));

				credit[i] -= sz;
				q[j] -= sz;
				Q -= sz;
				r->port[j].sent_pkts++;
				r->port[j].sent_bytes += sz;
				win_sent[j] += sz;
				if (!ring[j].cnt) {
					k = dc_queue_next(&q[i], nq);
					j = k == nq ? i + nq : i + k;
				}
			}
			if (j == i + nq)
				credit[i] = 0;
		}
		hist[Q / bw < nbins ? Q / bw : nbins - 1]++;
		if (Q > r->occ_max)
			r->occ_max = Q;
	}
	r->seconds = mono_s() - t0;
	r->slots = t;

	for (i = 0; i < N; i++) {
		struct dc_sim_port_res *pr = &r->port[i];

		pr->final_q = q[i];
		r->arrivals += pr->arrivals;
		r->admitted += pr->admitted;
		r->sent_pkts += pr->sent_pkts;
		r->sent_bytes += pr->sent_bytes;
		r->drops += pr->drop_thresh + pr->drop_full + pr->drop_pred;
		r->pushed_out += pr->pushed_out;
		r->first_rtt_drops += pr->first_rtt_drops;
	}
	/* percentiles: upper edge of the first bin reaching the rank */
	want[0] = (r->slots * 50 + 99) / 100;
	want[1] = (r->slots * 90 + 99) / 100;
	want[2] = (r->slots * 99 + 99) / 100;
	{
		__u64 *outp[3] = { &r->occ_p50, &r->occ_p90, &r->occ_p99 };

		for (k = 0; k < 3; k++) {
			cum = 0;
			for (t = 0; t < nbins; t++) {
				cum += hist[t];
				if (cum >= want[k] && want[k]) {
					*outp[k] = dc_min_u64(t * bw + bw - 1, r->occ_max);
					break;
				}
			}
		}
	}
	r->decisions_per_s = r->seconds > 0 ? (double)n / r->seconds : 0;
	rc = 0;
	goto out;
oom:
	dc_err_set(err, EXIT_ERR, "out of memory for %u queues of %u packets", N, cap);
out:
	for (i = 0; i < N; i++) {
		free(ring[i].sz);
		free(ring[i].id);
	}
	free(hist);
	free(labels);
	return rc;
}
