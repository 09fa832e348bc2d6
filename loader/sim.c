// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The buffer-sharing simulator behind `dcbpf sim` (model in sim.h, usage
 * and CSV formats in docs/admission.md).  Decisions come from
 * include/dcbpf/admit.h, the code the XDP program runs; only LQD's
 * push-out is simulator-only.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "forest.h"
#include "sim.h"

static const char *const alg_names[DC_ALG_MAX] = { "cs", "dt", "abm", "lqd", "credence",
						      "followlqd" };

const char *dc_alg_name(__u32 alg)
{
	return alg < DC_ALG_MAX ? alg_names[alg] : "?";
}

int dc_alg_parse(const char *s, __u32 *alg)
{
	__u32 i;

	for (i = 0; i < DC_ALG_MAX; i++) {
		if (!strcmp(s, alg_names[i])) {
			*alg = i;
			return 0;
		}
	}
	return -1;
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

static __u64 rng_next(__u64 *s);

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int dc_sim_lqd_labels(const struct dc_sim_cfg *c, const struct dc_sim_arrival *a, size_t n,
		      __u64 nslots, __u8 **labels)
{
	struct dc_sim_cfg lc = *c;
	struct dc_sim_result *lr = malloc(sizeof(*lr));
	__u8 *f = calloc(n ? n : 1, 1);
	int err;

	*labels = NULL;
	if (!lr || !f) {
		free(lr);
		free(f);
		fprintf(stderr, "dcbpf sim: out of memory for LQD labels\n");
		return -1;
	}
	lc.alg = DC_ALG_LQD;
	err = dc_sim_run_ex(&lc, a, n, nslots, lr, NULL, f);
	free(lr);
	if (err) {
		free(f);
		return -1;
	}
	*labels = f;
	return 0;
}

int dc_sim_run(const struct dc_sim_cfg *c, const struct dc_sim_arrival *a, size_t n,
	       __u64 nslots, struct dc_sim_result *r)
{
	return dc_sim_run_ex(c, a, n, nslots, r, NULL, NULL);
}

static int sim_engine(const struct dc_sim_cfg *c, const struct dc_sim_arrival *a, size_t n,
		      __u64 nslots, struct dc_sim_result *r, const __u8 *pred, __u8 *fate,
		      __u32 (*feat)[DC_RF_FEATURES], __u8 *asked);

/* No EWMA sample yet (time of the last update). */
#define EW_NEVER DC_U64_MAX

int dc_sim_run_ex(const struct dc_sim_cfg *c, const struct dc_sim_arrival *a, size_t n,
		  __u64 nslots, struct dc_sim_result *r, const __u8 *pred, __u8 *fate)
{
	return sim_engine(c, a, n, nslots, r, pred, fate, NULL, NULL);
}

int dc_sim_features(const struct dc_sim_cfg *c, const struct dc_sim_arrival *a, size_t n,
		    __u64 nslots, __u32 (*x)[DC_RF_FEATURES], __u8 *fate, __u8 *asked)
{
	struct dc_sim_result *r = malloc(sizeof(*r));
	int err;

	if (!r) {
		fprintf(stderr, "dcbpf sim: out of memory\n");
		return -1;
	}
	err = sim_engine(c, a, n, nslots, r, NULL, fate, x, asked);
	free(r);
	return err;
}

static int sim_engine(const struct dc_sim_cfg *c, const struct dc_sim_arrival *a, size_t n,
		      __u64 nslots, struct dc_sim_result *r, const __u8 *pred, __u8 *fate,
		      __u32 (*feat)[DC_RF_FEATURES], __u8 *asked)
{
	const bool unit = c->mode == DC_SIM_UNIT;
	const __u32 N = c->nports, alg = c->alg;
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
	struct ring ring[DC_SIM_PORTS_MAX];
	__u64 *hist = NULL, Q = 0, t, bw, nbins, cum, want[3];
	__u32 minsz = 0xffffffffU, cap, ncong = 1, i, k, period;
	size_t idx = 0;
	double t0;
	int err = -1, vt, vn;

	memset(r, 0, sizeof(*r));
	memset(ring, 0, sizeof(ring));
	if (!N || N > DC_SIM_PORTS_MAX || !B || B >= (1ULL << 32) || alg >= DC_ALG_MAX) {
		fprintf(stderr, "dcbpf sim: ports must be 1..%d, buffer 1..2^32-1, algorithm known\n",
			DC_SIM_PORTS_MAX);
		return -1;
	}
	for (idx = 0; idx < n; idx++) {
		if (a[idx].port >= N) {
			fprintf(stderr, "dcbpf sim: arrival %zu is for port %u but the switch has %u ports (--ports)\n",
				idx, a[idx].port, N);
			return -1;
		}
		if (idx && a[idx].slot < a[idx - 1].slot) {
			fprintf(stderr, "dcbpf sim: arrivals are not sorted by time (row %zu)\n", idx + 1);
			return -1;
		}
		if (!unit && a[idx].bytes < minsz)
			minsz = a[idx].bytes;
	}
	if (forest && (!c->model || dc_rf_validate(c->model, &vt, &vn))) {
		fprintf(stderr, "dcbpf sim: the forest predictor needs a valid model (--model FILE)\n");
		return -1;
	}
	if (want_x && (!c->slot_ns || !ew_period)) {
		fprintf(stderr, "dcbpf sim: features need --slot-ns > 0 and an EWMA period > 0\n");
		return -1;
	}
	if (!unit && (!minsz || !c->slot_bytes)) {
		fprintf(stderr, "dcbpf sim: byte mode needs packets of at least 1 byte and --slot-bytes > 0\n");
		return -1;
	}
	if (n && nslots <= a[n - 1].slot)
		nslots = (__u64)a[n - 1].slot + 1;
	if (n > 0xffffffffULL && fate) {
		fprintf(stderr, "dcbpf sim: at most 2^32 arrivals when fates are kept\n");
		return -1;
	}
	/* the oracle's labels: LQD's fate of each arrival on the same trace */
	if (alg == DC_ALG_CREDENCE &&
	    (c->predictor == DC_SIM_PRED_ORACLE || c->predictor == DC_SIM_PRED_FOREST) &&
	    dc_sim_lqd_labels(c, a, n, nslots, &labels))
		return -1;
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

	r->nports = N;
	r->slots = nslots;
	idx = 0;
	t0 = mono_s();
	for (t = 0; t < nslots; t++) {
		/* ABM: n_p and γ once per period, from the state at its end. */
		if (alg == DC_ALG_ABM && t % period == 0) {
			__u32 cong = 0;

			for (i = 0; i < N; i++) {
				gamma[i] = dc_abm_gamma_from(win_sent[i],
							     unit ? period : (__u64)period * c->slot_bytes,
							     q[i] || win_q[i]);
				if (dc_abm_congested(q[i], dc_abm_threshold(B, Q, c->alpha_q16[0], ncong,
									    gamma[i])))
					cong++;
				win_sent[i] = 0;
				win_q[i] = q[i];
			}
			ncong = dc_abm_n(cong);
		}
		/* arrival phase */
		for (; idx < n && a[idx].slot == t; idx++) {
			const struct dc_sim_arrival *p = &a[idx];
			struct dc_sim_port_res *pr = &r->port[p->port];
			struct dc_adm_in in;
			__u32 len = unit ? 1 : p->bytes, prio = p->prio & DC_SW_DSCP_PRIO_MASK;
			enum dc_verdict v;
			__u64 thr;

			__u32 x[DC_RF_FEATURES];

			pr->arrivals++;
			r->prio_arrivals[prio]++;
			if (want_x) {
				/* the state this arrival finds, before any decision */
				__u64 now = t * c->slot_ns;

				x[DC_RF_F_QLEN] = dc_rf_feat(q[p->port] * fscale);
				x[DC_RF_F_OCC] = dc_rf_feat(Q * fscale);
				/* a queue's first sample replaces its average, as in
				 * the data plane (include/dcbpf/vlqd.h) */
				ew_q[p->port] = dc_rf_ewma(ew_q[p->port], x[DC_RF_F_QLEN],
							   ew_t[p->port] == EW_NEVER ? ew_period :
							   now - ew_t[p->port], ew_period);
				ew_t[p->port] = now;
				ew_Q = dc_rf_ewma(ew_Q, x[DC_RF_F_OCC],
						  ew_tQ == EW_NEVER ? ew_period : now - ew_tQ, ew_period);
				ew_tQ = now;
				x[DC_RF_F_QLEN_EWMA] = ew_q[p->port];
				x[DC_RF_F_OCC_EWMA] = ew_Q;
				if (feat)
					memcpy(feat[idx], x, sizeof(x));
			}
			in.q = q[p->port];
			in.Q = Q;
			in.B = B;
			in.len = len;
			in.alpha_q16 = dc_adm_alpha(alg, c->alpha_q16[prio], c->alpha_first_rtt_q16,
						    p->first_rtt);
			in.gamma_q16 = gamma[p->port];
			in.n_congested = ncong;
			if (cred) {
				struct dc_cred_in ci = { .q = q[p->port], .Q = Q, .B = B, .n = N,
							 .len = len };
				bool ask, drop;

				dc_cred_arrival(T, &G, N, p->port, B, len);
				ci.T = T[p->port];
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
					if (c->flip_q32 && (rng_next(&prng) >> 32) < c->flip_q32)
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
			} else {
				v = dc_adm_decide(alg, &in, &thr);
			}
			if (alg == DC_ALG_LQD && v == DC_V_DROP_FULL) {
				/* push out tails of the longest queues until it fits */
				while (Q + len > B) {
					__u32 vq = dc_lqd_victim(q, N, p->port, len);
					__u32 sz, vid = 0;

					if (vq == p->port || !ring[vq].cnt)
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
				ring_push(&ring[p->port], len | prio << 24, (__u32)idx);
				q[p->port] += len;
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
			if (q[p->port] > pr->max_q)
				pr->max_q = q[p->port];
		}
		/* departure phase */
		for (i = 0; i < N; i++) {
			struct ring *rg = &ring[i];

			/* the virtual LQD queue drains at line rate, whatever q_i is */
			if (cred)
				dc_cred_depart(T, &G, i, unit ? 1 : c->slot_bytes);

			if (!rg->cnt)
				continue;
			if (unit) {
				ring_pop_head(rg);
				q[i]--;
				Q--;
				r->port[i].sent_pkts++;
				r->port[i].sent_bytes++;
				win_sent[i]++;
				continue;
			}
			credit[i] += c->slot_bytes;
			while (rg->cnt && PKT_SIZE(rg->sz[rg->head]) <= credit[i]) {
				__u32 sz = PKT_SIZE(ring_pop_head(rg));

				credit[i] -= sz;
				q[i] -= sz;
				Q -= sz;
				r->port[i].sent_pkts++;
				r->port[i].sent_bytes += sz;
				win_sent[i] += sz;
			}
			if (!rg->cnt)
				credit[i] = 0;
		}
		hist[Q / bw < nbins ? Q / bw : nbins - 1]++;
		if (Q > r->occ_max)
			r->occ_max = Q;
	}
	r->seconds = mono_s() - t0;

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
	for (idx = 0; idx < n; idx++)
		r->first_rtt_arrivals += a[idx].first_rtt ? 1 : 0;
	/* percentiles: upper edge of the first bin reaching the rank */
	want[0] = (nslots * 50 + 99) / 100;
	want[1] = (nslots * 90 + 99) / 100;
	want[2] = (nslots * 99 + 99) / 100;
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
	err = 0;
	goto out;
oom:
	fprintf(stderr, "dcbpf sim: out of memory for %u queues of %u packets\n", N, cap);
out:
	for (i = 0; i < N; i++) {
		free(ring[i].sz);
		free(ring[i].id);
	}
	free(hist);
	free(labels);
	return err;
}

/* ---- workloads ----------------------------------------------------------- */

void dc_sim_workload_defaults(struct dc_sim_workload *w)
{
	memset(w, 0, sizeof(*w));
	w->kind = "mix";
	w->seed = 1;
	w->slots = 200000;
	w->load = 0.4;
	w->incast_frac = 0.5;
	w->incast_senders = 15;
	w->incast_period = 2000;
	w->first_rtt_pkts = 16;
	w->mtu = 1500;
	w->incast_prio = 1;
}

/* xorshift64*: small, fast, and the same stream on every host. */
static __u64 rng_next(__u64 *s)
{
	__u64 x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static double rng_unit(__u64 *s)
{
	return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/*
 * Web-search flow sizes (bytes → cumulative probability), the DCTCP
 * measurement used by the ABM, Credence and PowerTCP evaluations; sizes
 * are interpolated linearly between the points.  Mean ≈ 1.7 MB.
 */
static const struct {
	double bytes, cdf;
} websearch_cdf[] = {
	{ 0, 0 }, { 10000, 0.15 }, { 20000, 0.20 }, { 30000, 0.30 }, { 50000, 0.40 },
	{ 80000, 0.53 }, { 200000, 0.60 }, { 1000000, 0.70 }, { 2000000, 0.80 },
	{ 5000000, 0.90 }, { 10000000, 0.97 }, { 30000000, 1.0 },
};
#define WS_POINTS (sizeof(websearch_cdf) / sizeof(websearch_cdf[0]))

static double websearch_bytes(__u64 *s)
{
	double u = rng_unit(s);
	unsigned int i;

	for (i = 1; i < WS_POINTS; i++) {
		if (u <= websearch_cdf[i].cdf) {
			double f = (u - websearch_cdf[i - 1].cdf) /
				   (websearch_cdf[i].cdf - websearch_cdf[i - 1].cdf);

			return websearch_cdf[i - 1].bytes +
			       f * (websearch_cdf[i].bytes - websearch_cdf[i - 1].bytes);
		}
	}
	return websearch_cdf[WS_POINTS - 1].bytes;
}

static double websearch_mean_bytes(void)
{
	double m = 0;
	unsigned int i;

	for (i = 1; i < WS_POINTS; i++)
		m += (websearch_cdf[i].cdf - websearch_cdf[i - 1].cdf) *
		     (websearch_cdf[i].bytes + websearch_cdf[i - 1].bytes) / 2;
	return m;
}

/* A flow waiting at (or being sent by) an input port. */
struct flow {
	__u32 dst, left, sent, last_bytes, prio;
};

#define FLOWQ 256

struct input {
	struct flow q[2][FLOWQ];	/* [0] incast responses, [1] background */
	__u32 head[2], cnt[2];
};

static void flow_add(struct input *in, int cls, __u32 dst, __u64 bytes, __u32 mtu, __u32 prio)
{
	struct flow *f;

	if (in->cnt[cls] == FLOWQ)
		return;		/* the sender is saturated: the flow is not started */
	f = &in->q[cls][(in->head[cls] + in->cnt[cls]) % FLOWQ];
	f->dst = dst;
	f->left = (__u32)((bytes + mtu - 1) / mtu);
	if (!f->left)
		f->left = 1;
	f->last_bytes = (__u32)(bytes - (__u64)(f->left - 1) * mtu);
	if (!f->last_bytes)
		f->last_bytes = mtu;
	f->sent = 0;
	f->prio = prio;
	in->cnt[cls]++;
}

int dc_sim_generate(const struct dc_sim_cfg *c, const struct dc_sim_workload *w,
		    struct dc_sim_arrival **out, size_t *n)
{
	const bool unit = c->mode == DC_SIM_UNIT;
	const __u32 N = c->nports, mtu = unit ? 1 : w->mtu;
	bool bg = !strcmp(w->kind, "websearch") || !strcmp(w->kind, "mix");
	bool ic = !strcmp(w->kind, "incast") || !strcmp(w->kind, "mix");
	struct dc_sim_arrival *a;
	struct input *in;
	double p_flow, p_query, burst;
	size_t cap, cnt = 0;
	__u64 s = w->seed ? w->seed : 1, t;
	__u32 i, j, k, nsend;

	if (!bg && !ic) {
		fprintf(stderr, "dcbpf sim: unknown workload '%s' (websearch, incast or mix)\n", w->kind);
		return -1;
	}
	if (w->load < 0 || w->load > 1 || w->incast_frac <= 0 || !w->incast_period || !mtu) {
		fprintf(stderr, "dcbpf sim: --load must be in [0, 1], --incast-frac > 0, --incast-period > 0\n");
		return -1;
	}
	in = calloc(N, sizeof(*in));
	cap = (size_t)w->slots * N;
	a = malloc(cap * sizeof(*a));
	if (!in || !a) {
		free(in);
		free(a);
		fprintf(stderr, "dcbpf sim: out of memory for %llu slots × %u ports\n",
			(unsigned long long)w->slots, N);
		return -1;
	}
	/* Flows start per input with probability p per slot (a discrete
	 * Poisson process); each input sends one packet per slot, so the
	 * offered load is load × line rate per input. */
	p_flow = bg ? w->load / (websearch_mean_bytes() / (unit ? 1460.0 : (double)w->mtu)) : 0;
	p_query = ic ? 1.0 / w->incast_period : 0;
	nsend = w->incast_senders < N - 1 ? w->incast_senders : N - 1;
	if (!nsend)
		nsend = 1;
	/* burst: a fraction of B split over the responders */
	burst = w->incast_frac * (double)c->buffer / nsend;
	for (t = 0; t < w->slots; t++) {
		for (i = 0; bg && i < N; i++) {
			if (rng_unit(&s) < p_flow) {
				double b = websearch_bytes(&s);

				flow_add(&in[i], 1, (__u32)(rng_next(&s) % N),
					 unit ? (__u64)(b / 1460.0) + 1 : (__u64)b + 1, mtu, 0);
			}
		}
		if (ic && rng_unit(&s) < p_query) {
			__u32 dst = (__u32)(rng_next(&s) % N), first = (__u32)(rng_next(&s) % N);

			for (k = 0, j = 0; k < nsend && j < N; j++) {
				__u32 src = (first + j) % N;

				if (src == dst)
					continue;
				flow_add(&in[src], 0, dst, (__u64)(burst + 0.5) ? (__u64)(burst + 0.5) : 1,
					 mtu, w->incast_prio);
				k++;
			}
		}
		for (i = 0; i < N; i++) {
			int cls = in[i].cnt[0] ? 0 : (in[i].cnt[1] ? 1 : -1);
			struct flow *f;
			struct dc_sim_arrival *x;

			if (cls < 0)
				continue;
			f = &in[i].q[cls][in[i].head[cls]];
			x = &a[cnt++];
			x->slot = (__u32)t;
			x->port = (__u16)f->dst;
			x->prio = (__u8)f->prio;
			x->first_rtt = f->sent < w->first_rtt_pkts;
			x->bytes = f->left == 1 ? f->last_bytes : mtu;
			f->sent++;
			if (--f->left == 0) {
				in[i].head[cls] = (in[i].head[cls] + 1) % FLOWQ;
				in[i].cnt[cls]--;
			}
		}
	}
	free(in);
	*out = a;
	*n = cnt;
	return 0;
}

/* ---- traces ---------------------------------------------------------------- */

static int cmp_arrival(const void *x, const void *y)
{
	const struct dc_sim_arrival *a = x, *b = y;

	return a->slot < b->slot ? -1 : a->slot > b->slot;
}

int dc_sim_read_trace(const char *path, __u64 slot_ns, struct dc_sim_arrival **out, size_t *n)
{
	FILE *f = fopen(path, "re");
	struct dc_sim_arrival *a = NULL;
	size_t cnt = 0, cap = 0;
	char line[256];
	int lineno = 0, by_ns = -1, sorted = 1;

	if (!f) {
		fprintf(stderr, "dcbpf sim: cannot open trace %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long tv, port, prio, bytes, frtt = 0;
		int got;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (by_ns < 0) {
			if (!strncmp(line, "timeslot,", 9)) {
				by_ns = 0;
				continue;
			}
			if (!strncmp(line, "time_ns,", 8)) {
				by_ns = 1;
				continue;
			}
			fprintf(stderr, "dcbpf sim: %s:%d: expected the header 'timeslot,port,priority,bytes[,first_rtt]' or 'time_ns,port,priority,bytes[,first_rtt]'\n",
				path, lineno);
			goto bad;
		}
		got = sscanf(line, "%llu,%llu,%llu,%llu,%llu", &tv, &port, &prio, &bytes, &frtt);
		if (got < 4 || port > 65535 || prio >= DC_SW_PRIOS || frtt > 1 || bytes > 1000000) {
			fprintf(stderr, "dcbpf sim: %s:%d: expected 4 or 5 non-negative integers (port < 65536, priority < %d, bytes ≤ 1000000, first_rtt 0/1)\n",
				path, lineno, DC_SW_PRIOS);
			goto bad;
		}
		if (by_ns)
			tv /= slot_ns ? slot_ns : 1;
		if (tv > 0xffffffffULL) {
			fprintf(stderr, "dcbpf sim: %s:%d: time beyond 2^32 slots\n", path, lineno);
			goto bad;
		}
		if (cnt == cap) {
			struct dc_sim_arrival *na;

			cap = cap ? cap * 2 : 4096;
			na = realloc(a, cap * sizeof(*a));
			if (!na) {
				fprintf(stderr, "dcbpf sim: out of memory reading %s\n", path);
				goto bad;
			}
			a = na;
		}
		a[cnt].slot = (__u32)tv;
		a[cnt].port = (__u16)port;
		a[cnt].prio = (__u8)prio;
		a[cnt].first_rtt = (__u8)frtt;
		a[cnt].bytes = (__u32)bytes;
		if (cnt && a[cnt].slot < a[cnt - 1].slot)
			sorted = 0;
		cnt++;
	}
	fclose(f);
	/* captures from several CPUs can interleave slightly out of order */
	if (!sorted)
		qsort(a, cnt, sizeof(*a), cmp_arrival);
	*out = a;
	*n = cnt;
	return 0;
bad:
	fclose(f);
	free(a);
	return -1;
}

int dc_sim_write_trace(const char *path, const struct dc_sim_arrival *a, size_t n)
{
	FILE *f = fopen(path, "we");
	size_t i;

	if (!f) {
		fprintf(stderr, "dcbpf sim: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "timeslot,port,priority,bytes,first_rtt\n");
	for (i = 0; i < n; i++)
		fprintf(f, "%u,%u,%u,%u,%u\n", a[i].slot, a[i].port, a[i].prio, a[i].bytes,
			a[i].first_rtt);
	if (fclose(f)) {
		fprintf(stderr, "dcbpf sim: writing %s failed: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- command line ------------------------------------------------------------ */

static void sim_usage(FILE *f)
{
	fprintf(f,
		"usage: dcbpf sim [--alg cs|dt|abm|lqd|credence|followlqd|all] [--mode unit|byte]\n"
		"                 [--ports N] [--predictor oracle|drop|accept|forest] [--model FILE]\n"
		"                 [--flip P] [--pred-seed S]\n"
		"                 [--buffer B] [--alpha A] [--alpha-first-rtt A] [--abm-period SLOTS]\n"
		"                 [--slot-bytes N] [--slot-ns NS]\n"
		"                 [--workload websearch|incast|mix] [--seed S] [--slots S] [--load L]\n"
		"                 [--incast-frac F] [--incast-senders K] [--incast-period SLOTS]\n"
		"                 [--first-rtt-pkts N] [--mtu BYTES]\n"
		"                 [--trace FILE] [--write-trace FILE] [--out DIR] [--json]\n"
		"Discrete timeslots, one queue per port. Unit mode: B in packets, one packet\n"
		"leaves each non-empty queue per slot. Byte mode: B in bytes, a port sends\n"
		"--slot-bytes per slot. --trace replays a CSV with the header\n"
		"'timeslot,port,priority,bytes[,first_rtt]' or 'time_ns,...' (slot = time_ns / --slot-ns).\n"
		"Defaults: dt, unit, 16 ports, B = 1000, alpha 0.5, alpha-first-rtt 64, mix workload,\n"
		"seed 1, 200000 slots, load 0.4, incast-frac 0.5 over 15 senders every ~2000 slots,\n"
		"first 16 packets of a flow marked first-RTT; incast responses have priority 1.\n"
		"Credence's predictor: oracle = LQD's fate of the packet on the same arrivals;\n"
		"forest = the random forest of --model FILE (dcbpf credence train) on the\n"
		"arriving packet's q, Q and their EWMAs in bytes (unit mode: packets × --slot-bytes;\n"
		"EWMA time = slots × --slot-ns).\n"
		"--flip P inverts each prediction with probability P (0..1, seeded by --pred-seed).\n"
		"--out DIR writes DIR/summary.csv and DIR/ports.csv.\n");
}

static int parse_q16_arg(const char *s, __u32 *out)
{
	char *end;
	double v = strtod(s, &end);

	if (*end || !(v > 0) || v > 1024)
		return -1;
	*out = (__u32)(v * (double)DC_Q16_ONE + 0.5);
	return *out ? 0 : -1;
}

int dc_sim_parse_u64(const char *s, __u64 *out, __u64 lo, __u64 hi)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || !*s || s[0] == '-' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static void print_header(void)
{
	printf("%-4s %10s %10s %10s %9s %9s %9s %8s %8s %9s %9s %9s %12s\n", "alg", "arrivals",
	       "sent_pkts", "sent_units", "drops", "pushouts", "frtt_drop", "p0_loss%", "p1_loss%",
	       "occ_p50", "occ_p99", "occ_max", "decisions/s");
}

/* Share of a priority's arrivals dropped or pushed out, in percent. */
static double loss_pct(const struct dc_sim_result *r, unsigned int prio)
{
	return r->prio_arrivals[prio] ?
		       100.0 * (double)r->prio_drops[prio] / (double)r->prio_arrivals[prio] : 0.0;
}

static void print_row(const struct dc_sim_cfg *c, const struct dc_sim_result *r)
{
	printf("%-4s %10llu %10llu %10llu %9llu %9llu %9llu %8.2f %8.2f %9llu %9llu %9llu %12.3e\n",
	       dc_alg_name(c->alg), (unsigned long long)r->arrivals,
	       (unsigned long long)r->sent_pkts, (unsigned long long)r->sent_bytes,
	       (unsigned long long)r->drops, (unsigned long long)r->pushed_out,
	       (unsigned long long)r->first_rtt_drops, loss_pct(r, 0), loss_pct(r, 1),
	       (unsigned long long)r->occ_p50, (unsigned long long)r->occ_p99,
	       (unsigned long long)r->occ_max, r->decisions_per_s);
}

static void print_json(const struct dc_sim_cfg *c, const struct dc_sim_result *r, bool last)
{
	printf("  {\"alg\": \"%s\", \"mode\": \"%s\", \"ports\": %u, \"buffer\": %llu, \"slots\": %llu, "
	       "\"arrivals\": %llu, \"admitted\": %llu, \"sent_pkts\": %llu, \"sent_units\": %llu, "
	       "\"drops\": %llu, \"pushed_out\": %llu, \"first_rtt_arrivals\": %llu, "
	       "\"first_rtt_drops\": %llu, \"occ_p50\": %llu, \"occ_p90\": %llu, \"occ_p99\": %llu, "
	       "\"occ_max\": %llu, \"p0_loss_pct\": %.3f, \"p1_loss_pct\": %.3f, "
	       "\"pred_asked\": %llu, \"pred_tp\": %llu, \"pred_fp\": %llu, \"pred_tn\": %llu, "
	       "\"pred_fn\": %llu, \"decisions_per_s\": %.0f}%s\n",
	       dc_alg_name(c->alg), c->mode == DC_SIM_UNIT ? "unit" : "byte", c->nports,
	       (unsigned long long)c->buffer, (unsigned long long)r->slots,
	       (unsigned long long)r->arrivals, (unsigned long long)r->admitted,
	       (unsigned long long)r->sent_pkts, (unsigned long long)r->sent_bytes,
	       (unsigned long long)r->drops, (unsigned long long)r->pushed_out,
	       (unsigned long long)r->first_rtt_arrivals, (unsigned long long)r->first_rtt_drops,
	       (unsigned long long)r->occ_p50, (unsigned long long)r->occ_p90,
	       (unsigned long long)r->occ_p99, (unsigned long long)r->occ_max, loss_pct(r, 0),
	       loss_pct(r, 1), (unsigned long long)r->pred_asked, (unsigned long long)r->pred_tp,
	       (unsigned long long)r->pred_fp, (unsigned long long)r->pred_tn,
	       (unsigned long long)r->pred_fn, r->decisions_per_s, last ? "" : ",");
}

static int write_csv(const char *dir, const struct dc_sim_cfg *cfgs, const struct dc_sim_result *rs,
		     unsigned int nr)
{
	char path[512];
	FILE *s, *p;
	unsigned int k, i;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "dcbpf sim: cannot create --out %s: %s\n", dir, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/summary.csv", dir);
	s = fopen(path, "we");
	snprintf(path, sizeof(path), "%s/ports.csv", dir);
	p = fopen(path, "we");
	if (!s || !p) {
		fprintf(stderr, "dcbpf sim: cannot write CSV files in %s: %s\n", dir, strerror(errno));
		if (s)
			fclose(s);
		if (p)
			fclose(p);
		return -1;
	}
	fprintf(s, "alg,mode,ports,buffer,slots,arrivals,admitted,sent_pkts,sent_units,drops,pushed_out,"
		   "first_rtt_arrivals,first_rtt_drops,occ_p50,occ_p90,occ_p99,occ_max,decisions_per_s\n");
	fprintf(p, "alg,port,arrivals,admitted,sent_pkts,sent_units,drop_thresh,drop_full,pushed_out,"
		   "first_rtt_drops,max_q\n");
	for (k = 0; k < nr; k++) {
		const struct dc_sim_result *r = &rs[k];

		fprintf(s, "%s,%s,%u,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.0f\n",
			dc_alg_name(cfgs[k].alg), cfgs[k].mode == DC_SIM_UNIT ? "unit" : "byte",
			cfgs[k].nports, (unsigned long long)cfgs[k].buffer,
			(unsigned long long)r->slots, (unsigned long long)r->arrivals,
			(unsigned long long)r->admitted, (unsigned long long)r->sent_pkts,
			(unsigned long long)r->sent_bytes, (unsigned long long)r->drops,
			(unsigned long long)r->pushed_out, (unsigned long long)r->first_rtt_arrivals,
			(unsigned long long)r->first_rtt_drops, (unsigned long long)r->occ_p50,
			(unsigned long long)r->occ_p90, (unsigned long long)r->occ_p99,
			(unsigned long long)r->occ_max, r->decisions_per_s);
		for (i = 0; i < r->nports; i++) {
			const struct dc_sim_port_res *pr = &r->port[i];

			fprintf(p, "%s,%u,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n",
				dc_alg_name(cfgs[k].alg), i, (unsigned long long)pr->arrivals,
				(unsigned long long)pr->admitted, (unsigned long long)pr->sent_pkts,
				(unsigned long long)pr->sent_bytes, (unsigned long long)pr->drop_thresh,
				(unsigned long long)pr->drop_full, (unsigned long long)pr->pushed_out,
				(unsigned long long)pr->first_rtt_drops, (unsigned long long)pr->max_q);
		}
	}
	if (fclose(s) | fclose(p)) {
		fprintf(stderr, "dcbpf sim: writing CSV in %s failed\n", dir);
		return -1;
	}
	return 0;
}

int dc_sim_main(int argc, char **argv)
{
	enum {
		O_ALG = 256, O_MODE, O_PORTS, O_BUF, O_ALPHA, O_ALPHA1, O_ABMP, O_SLOTB, O_SLOTNS,
		O_WL, O_SEED, O_SLOTS, O_LOAD, O_IFRAC, O_ISEND, O_IPER, O_FRTT, O_MTU, O_TRACE,
		O_WTRACE, O_OUT, O_JSON, O_HELP, O_PRED, O_FLIP, O_PSEED, O_MODEL,
	};
	static const struct option opts[] = {
		{ "alg", required_argument, NULL, O_ALG },
		{ "mode", required_argument, NULL, O_MODE },
		{ "ports", required_argument, NULL, O_PORTS },
		{ "buffer", required_argument, NULL, O_BUF },
		{ "alpha", required_argument, NULL, O_ALPHA },
		{ "alpha-first-rtt", required_argument, NULL, O_ALPHA1 },
		{ "abm-period", required_argument, NULL, O_ABMP },
		{ "slot-bytes", required_argument, NULL, O_SLOTB },
		{ "slot-ns", required_argument, NULL, O_SLOTNS },
		{ "workload", required_argument, NULL, O_WL },
		{ "seed", required_argument, NULL, O_SEED },
		{ "slots", required_argument, NULL, O_SLOTS },
		{ "load", required_argument, NULL, O_LOAD },
		{ "incast-frac", required_argument, NULL, O_IFRAC },
		{ "incast-senders", required_argument, NULL, O_ISEND },
		{ "incast-period", required_argument, NULL, O_IPER },
		{ "first-rtt-pkts", required_argument, NULL, O_FRTT },
		{ "mtu", required_argument, NULL, O_MTU },
		{ "trace", required_argument, NULL, O_TRACE },
		{ "write-trace", required_argument, NULL, O_WTRACE },
		{ "out", required_argument, NULL, O_OUT },
		{ "json", no_argument, NULL, O_JSON },
		{ "help", no_argument, NULL, O_HELP },
		{ "predictor", required_argument, NULL, O_PRED },
		{ "flip", required_argument, NULL, O_FLIP },
		{ "pred-seed", required_argument, NULL, O_PSEED },
		{ "model", required_argument, NULL, O_MODEL },
		{ NULL, 0, NULL, 0 },
	};
	struct dc_sim_cfg cfg, cfgs[DC_ALG_MAX];
	struct dc_sim_workload wl;
	struct dc_sim_result *res = NULL;
	struct dc_sim_arrival *arr = NULL;
	const char *trace = NULL, *wtrace = NULL, *outdir = NULL, *model_path = NULL;
	struct dc_rf_model *model = NULL;
	bool all = false, json = false;
	__u64 v, slot_ns = 12000;
	unsigned int nr = 0, k, i;
	size_t narr = 0;
	int o, rc = 2;
	char *end;

	dc_sim_cfg_defaults(&cfg);
	dc_sim_workload_defaults(&wl);
	optind = 0;	/* glibc: full re-initialisation after dcbpf's own parse */
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case O_ALG:
			if (!strcmp(optarg, "all"))
				all = true;
			else if (dc_alg_parse(optarg, &cfg.alg)) {
				fprintf(stderr, "dcbpf sim: --alg %s: use cs, dt, abm, lqd, credence, followlqd or all\n",
					optarg);
				return 2;
			}
			break;
		case O_MODE:
			if (!strcmp(optarg, "unit"))
				cfg.mode = DC_SIM_UNIT;
			else if (!strcmp(optarg, "byte"))
				cfg.mode = DC_SIM_BYTE;
			else {
				fprintf(stderr, "dcbpf sim: --mode %s: use unit or byte\n", optarg);
				return 2;
			}
			break;
		case O_PORTS:
			if (dc_sim_parse_u64(optarg, &v, 1, DC_SIM_PORTS_MAX))
				goto badval;
			cfg.nports = (__u32)v;
			break;
		case O_BUF:
			if (dc_sim_parse_u64(optarg, &v, 1, 0xffffffffULL))
				goto badval;
			cfg.buffer = v;
			break;
		case O_ALPHA:
			if (parse_q16_arg(optarg, &cfg.alpha_q16[0]))
				goto badval;
			for (i = 1; i < DC_SW_PRIOS; i++)
				cfg.alpha_q16[i] = cfg.alpha_q16[0];
			break;
		case O_ALPHA1:
			if (parse_q16_arg(optarg, &cfg.alpha_first_rtt_q16))
				goto badval;
			break;
		case O_ABMP:
			if (dc_sim_parse_u64(optarg, &v, 1, 1000000))
				goto badval;
			cfg.abm_period_slots = (__u32)v;
			break;
		case O_SLOTB:
			if (dc_sim_parse_u64(optarg, &v, 1, 1000000))
				goto badval;
			cfg.slot_bytes = (__u32)v;
			break;
		case O_SLOTNS:
			if (dc_sim_parse_u64(optarg, &slot_ns, 1, 1000000000))
				goto badval;
			break;
		case O_WL:
			wl.kind = optarg;
			break;
		case O_SEED:
			if (dc_sim_parse_u64(optarg, &wl.seed, 0, UINT64_MAX))
				goto badval;
			break;
		case O_SLOTS:
			if (dc_sim_parse_u64(optarg, &wl.slots, 1, 100000000))
				goto badval;
			break;
		case O_LOAD:
			wl.load = strtod(optarg, &end);
			if (*end || wl.load < 0 || wl.load > 1)
				goto badval;
			break;
		case O_IFRAC:
			wl.incast_frac = strtod(optarg, &end);
			if (*end || !(wl.incast_frac > 0) || wl.incast_frac > 100)
				goto badval;
			break;
		case O_ISEND:
			if (dc_sim_parse_u64(optarg, &v, 1, DC_SIM_PORTS_MAX))
				goto badval;
			wl.incast_senders = (__u32)v;
			break;
		case O_IPER:
			if (dc_sim_parse_u64(optarg, &v, 1, 100000000))
				goto badval;
			wl.incast_period = (__u32)v;
			break;
		case O_FRTT:
			if (dc_sim_parse_u64(optarg, &v, 0, 1000000))
				goto badval;
			wl.first_rtt_pkts = (__u32)v;
			break;
		case O_MTU:
			if (dc_sim_parse_u64(optarg, &v, 64, 65535))
				goto badval;
			wl.mtu = (__u32)v;
			break;
		case O_TRACE:
			trace = optarg;
			break;
		case O_WTRACE:
			wtrace = optarg;
			break;
		case O_OUT:
			outdir = optarg;
			break;
		case O_JSON:
			json = true;
			break;
		case O_HELP:
			sim_usage(stdout);
			return 0;
		case O_PRED:
			if (!strcmp(optarg, "oracle"))
				cfg.predictor = DC_SIM_PRED_ORACLE;
			else if (!strcmp(optarg, "drop"))
				cfg.predictor = DC_SIM_PRED_DROP;
			else if (!strcmp(optarg, "accept"))
				cfg.predictor = DC_SIM_PRED_ACCEPT;
			else if (!strcmp(optarg, "forest"))
				cfg.predictor = DC_SIM_PRED_FOREST;
			else
				goto badval;
			break;
		case O_MODEL:
			model_path = optarg;
			break;
		case O_FLIP: {
			double f = strtod(optarg, &end);

			if (*end || !*optarg || !(f >= 0) || f > 1)
				goto badval;
			cfg.flip_q32 = (__u64)(f * 4294967296.0 + 0.5);
			break;
		}
		case O_PSEED:
			if (dc_sim_parse_u64(optarg, &cfg.pred_seed, 0, UINT64_MAX))
				goto badval;
			break;
		default:
			sim_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "dcbpf sim: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	cfg.slot_ns = slot_ns;
	if ((cfg.predictor == DC_SIM_PRED_FOREST) != !!model_path) {
		fprintf(stderr, "dcbpf sim: --predictor forest and --model FILE go together\n");
		return 2;
	}
	if (model_path) {
		char why[512];

		model = malloc(sizeof(*model));
		if (!model || dc_forest_read(model_path, model, why, sizeof(why))) {
			fprintf(stderr, "dcbpf sim: %s\n", model ? why : "out of memory");
			free(model);
			return 1;
		}
		cfg.model = model;
	}
	if (trace ? dc_sim_read_trace(trace, slot_ns, &arr, &narr) :
		    dc_sim_generate(&cfg, &wl, &arr, &narr)) {
		free(model);
		return trace ? 1 : 2;
	}
	if (wtrace && dc_sim_write_trace(wtrace, arr, narr)) {
		rc = 1;
		goto out;
	}
	res = calloc(DC_ALG_MAX, sizeof(*res));
	if (!res) {
		rc = 1;
		goto out;
	}
	for (k = 0; k < DC_ALG_MAX; k++) {
		if (!all && k != cfg.alg)
			continue;
		cfgs[nr] = cfg;
		cfgs[nr].alg = k;
		if (dc_sim_run(&cfgs[nr], arr, narr, trace ? 0 : wl.slots, &res[nr])) {
			rc = 1;
			goto out;
		}
		nr++;
	}
	if (json) {
		printf("[\n");
		for (k = 0; k < nr; k++)
			print_json(&cfgs[k], &res[k], k + 1 == nr);
		printf("]\n");
	} else {
		printf("# %s, %u ports, B = %llu %s, %llu slots, %zu arrivals (%s)\n",
		       cfg.mode == DC_SIM_UNIT ? "unit packets" : "bytes", cfg.nports,
		       (unsigned long long)cfg.buffer, cfg.mode == DC_SIM_UNIT ? "packets" : "bytes",
		       (unsigned long long)res[0].slots, narr, trace ? trace : wl.kind);
		print_header();
		for (k = 0; k < nr; k++)
			print_row(&cfgs[k], &res[k]);
		for (k = 0; k < nr; k++) {
			const struct dc_sim_result *r = &res[k];
			__u64 pd = 0;

			if (cfgs[k].alg != DC_ALG_CREDENCE)
				continue;
			for (i = 0; i < r->nports; i++)
				pd += r->port[i].drop_pred;
			printf("# credence: predictor %s, flip %.4g: %llu predictions asked, %llu drops on a prediction",
			       cfgs[k].predictor == DC_SIM_PRED_ORACLE ? "oracle" :
			       cfgs[k].predictor == DC_SIM_PRED_FOREST ? "forest" :
			       cfgs[k].predictor == DC_SIM_PRED_DROP ? "drop" : "accept",
			       (double)cfgs[k].flip_q32 / 4294967296.0, (unsigned long long)r->pred_asked,
			       (unsigned long long)pd);
			if (cfgs[k].predictor == DC_SIM_PRED_ORACLE ||
			    cfgs[k].predictor == DC_SIM_PRED_FOREST)
				printf("; vs LQD: TP %llu FP %llu TN %llu FN %llu",
				       (unsigned long long)r->pred_tp, (unsigned long long)r->pred_fp,
				       (unsigned long long)r->pred_tn, (unsigned long long)r->pred_fn);
			printf("\n");
		}
	}
	rc = outdir && write_csv(outdir, cfgs, res, nr) ? 1 : 0;
	goto out;
badval:
	fprintf(stderr, "dcbpf sim: bad value '%s' for --%s (see dcbpf sim --help)\n", optarg,
		opts[o - O_ALG].name);
	return 2;
out:
	free(model);
	free(res);
	free(arr);
	return rc;
}
