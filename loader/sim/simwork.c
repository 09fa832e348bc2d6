// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The simulator's generated workloads (sim.h): web-search background
 * flows, incast queries, or both, per input port and slot.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rand.h"
#include "sim/sim.h"

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
	double u = dc_rand_unit(s);
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
	__u32 query;		/* incast query number (1-based), 0 for background */
};

#define FLOWQ 256

struct input {
	struct flow q[2][FLOWQ];	/* [0] incast responses, [1] background */
	__u32 head[2], cnt[2];
};

static void flow_add(struct input *in, int cls, __u32 dst, __u64 bytes, __u32 mtu, __u32 prio,
		     __u32 query)
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
	f->query = query;
	in->cnt[cls]++;
}

int dc_sim_generate(const struct dc_sim_cfg *c, const struct dc_sim_workload *w,
		    struct dc_sim_arrival **out, size_t *n, struct dc_err *err)
{
	return dc_sim_generate_q(c, w, out, n, NULL, err);
}

int dc_sim_generate_q(const struct dc_sim_cfg *c, const struct dc_sim_workload *w,
		      struct dc_sim_arrival **out, size_t *n, __u32 **query, struct dc_err *err)
{
	const bool unit = c->mode == DC_SIM_UNIT;
	const __u32 N = c->nports, mtu = unit ? 1 : w->mtu;
	bool bg = !strcmp(w->kind, "websearch") || !strcmp(w->kind, "mix");
	bool ic = !strcmp(w->kind, "incast") || !strcmp(w->kind, "mix");
	struct dc_sim_arrival *a;
	__u32 *qid = NULL, nquery = 0;
	struct input *in;
	double p_flow, p_query, burst;
	size_t cap, cnt = 0;
	__u64 s = w->seed ? w->seed : 1, t;
	__u32 i, j, k, nsend;

	if (!bg && !ic) {
		return dc_err_set(err, EXIT_USAGE, "unknown workload '%s' (websearch, incast or mix)",
				  w->kind);
	}
	if (!(w->load >= 0 && w->load <= 1) || !(w->incast_frac > 0) || !w->incast_period || !mtu) {
		return dc_err_set(err, EXIT_USAGE,
				  "--load must be in [0, 1], --incast-frac > 0, --incast-period > 0");
	}
	in = calloc(N, sizeof(*in));
	cap = (size_t)w->slots * N;
	a = malloc(cap * sizeof(*a));
	if (query)
		qid = malloc(cap * sizeof(*qid));
	if (!in || !a || (query && !qid)) {
		free(in);
		free(a);
		free(qid);
		return dc_err_set(err, EXIT_ERR, "out of memory for %llu slots × %u ports",
				  (unsigned long long)w->slots, N);
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
			if (dc_rand_unit(&s) < p_flow) {
				double b = websearch_bytes(&s);

				flow_add(&in[i], 1, (__u32)(dc_rand_next(&s) % N),
					 unit ? (__u64)(b / 1460.0) + 1 : (__u64)b + 1, mtu, 0, 0);
			}
		}
		if (ic && dc_rand_unit(&s) < p_query) {
			__u32 dst = (__u32)(dc_rand_next(&s) % N), first = (__u32)(dc_rand_next(&s) % N);

			nquery++;

			for (k = 0, j = 0; k < nsend && j < N; j++) {
				__u32 src = (first + j) % N;

				if (src == dst)
					continue;
				flow_add(&in[src], 0, dst, (__u64)(burst + 0.5) ? (__u64)(burst + 0.5) : 1,
					 mtu, w->incast_prio, nquery);
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
			if (qid)
				qid[cnt] = f->query;
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
	if (query)
		*query = qid;
	return 0;
}

int dc_sim_query_stats(const __u32 *query, const __u8 *fate, size_t n, struct dc_sim_result *r,
		       struct dc_err *err)
{
	__u32 max = 0;
	__u8 *seen;	/* per query: 1 = has packets, 2 = lost one */
	size_t k;

	r->incast_queries = r->incast_whole = 0;
	for (k = 0; k < n; k++)
		if (query[k] > max)
			max = query[k];
	if (!max)
		return 0;
	seen = calloc((size_t)max + 1, 1);
	if (!seen)
		return dc_err_set(err, EXIT_ERR, "out of memory for %u incast queries", max);
	for (k = 0; k < n; k++)
		if (query[k])
			seen[query[k]] |= 1 | (fate[k] ? 2 : 0);
	for (k = 1; k <= max; k++) {
		r->incast_queries += seen[k] ? 1 : 0;
		r->incast_whole += seen[k] == 1 ? 1 : 0;
	}
	free(seen);
	return 0;
}
