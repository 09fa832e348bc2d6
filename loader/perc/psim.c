// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The control protocol, asynchronously ("Proactive Congestion Control",
 * Jose, Ch. 2.1 model): each flow has one control packet going back and
 * forth over its path; every hop takes a random delay in [delay_min,
 * delay_max]; every link updates the packet on the way out and on the way
 * back with dc_perc_update (include/dcbpf/perc.h) after catching up on its
 * round resets from its own random phase T_0(l); the sender takes the
 * smallest allocation of the returned packet as its rate and sends the
 * packet again at once.  Churn: flows start and send a FIN at given
 * rounds.  Drops: each hop loses the packet with a probability until a
 * given time; the sender restarts the flow with a fresh packet after
 * rto_rounds (s-PERC*, Ch. 4.1).
 *
 * round = (2 · longest path + 1) · delay_max: the longest a packet can
 * take to be seen at every link of its path, so every flow is seen at
 * every link at least once per round (assumption 8*).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rand.h"
#include "perc/percsim.h"

enum ev_kind { EV_PKT, EV_RTO, EV_START, EV_FIN };

struct ev {
	__u64 t_ns;
	__u64 seq;		/* ties broken by creation order: a seed is a run */
	__u32 flow, gen, pos;
	enum ev_kind kind;
};

struct heap {
	struct ev *v;
	size_t n, cap;
};

static bool ev_before(const struct ev *a, const struct ev *b)
{
	return a->t_ns < b->t_ns || (a->t_ns == b->t_ns && a->seq < b->seq);
}

static int heap_push(struct heap *h, struct ev e)
{
	size_t i;

	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 1024;
		struct ev *v = realloc(h->v, cap * sizeof(*v));

		if (!v)
			return -1;
		h->v = v;
		h->cap = cap;
	}
	i = h->n++;
	while (i && ev_before(&e, &h->v[(i - 1) / 2])) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = e;
	return 0;
}

static struct ev heap_pop(struct heap *h)
{
	struct ev top = h->v[0], last = h->v[--h->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && ev_before(&h->v[c + 1], &h->v[c]))
			c++;
		if (!ev_before(&h->v[c], &last))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = last;
	return top;
}

struct sflow {
	struct dc_perc_hop hop[DC_PERC_MAX_HOPS];
	__u32 gen;
	bool started, done, fin_pending, fin_sent;
	__u32 rate_kbps;
	__u64 t_change_ns;
	__u64 restarts;
};

struct sim {
	const struct dc_pt_topo *t;
	const struct dc_pt_simcfg *c;
	struct heap h;
	__u64 seq, rnd, round_ns, drop_until_ns, rto_ns, last_drop_ns, updates, drops;
	__u64 *phase_ns;
	struct dc_perc_state *link;
	struct sflow *flow;
};

static __u64 delay(struct sim *s)
{
	__u64 span = s->c->delay_max_ns - s->c->delay_min_ns;

	return s->c->delay_min_ns + (span ? dc_rand_below(&s->rnd, span + 1) : 0);
}

static int push(struct sim *s, __u64 t, enum ev_kind k, __u32 flow, __u32 gen, __u32 pos)
{
	return heap_push(&s->h, (struct ev){ .t_ns = t, .seq = s->seq++, .flow = flow, .gen = gen,
					      .pos = pos, .kind = k });
}

static int send_pkt(struct sim *s, __u32 f, __u64 t)
{
	struct sflow *fl = &s->flow[f];

	fl->gen++;
	if (fl->fin_pending)
		fl->fin_sent = true;
	if (push(s, t + delay(s), EV_PKT, f, fl->gen, 0))
		return -1;
	if (s->rto_ns && push(s, t + s->rto_ns, EV_RTO, f, fl->gen, 0))
		return -1;
	return 0;
}

static void fresh(struct sflow *fl)
{
	for (int i = 0; i < DC_PERC_MAX_HOPS; i++)
		dc_perc_hop_fresh(&fl->hop[i]);
}

static int on_pkt(struct sim *s, const struct ev *e)
{
	const struct dc_pt_flow *tf = &s->t->flows[e->flow];
	struct sflow *fl = &s->flow[e->flow];
	__u32 n = tf->nhops, idx, r;
	bool rev, fin = fl->fin_sent;

	if (e->gen != fl->gen || fl->done)
		return 0;	/* a packet the sender gave up on */
	if (e->pos == 2 * n) {
		/* back at the sender */
		if (fin) {
			fl->done = true;
			return 0;
		}
		r = dc_perc_rate_kbps(fl->hop, n);
		if (r != fl->rate_kbps) {
			fl->rate_kbps = r;
			fl->t_change_ns = e->t_ns;
		}
		return send_pkt(s, e->flow, e->t_ns);
	}
	if (s->c->drop > 0 && e->t_ns < s->drop_until_ns && dc_rand_unit(&s->rnd) < s->c->drop) {
		s->drops++;
		s->last_drop_ns = e->t_ns;
		return 0;
	}
	rev = e->pos >= n;
	idx = rev ? 2 * n - 1 - e->pos : e->pos;
	if (!(rev && fin)) {
		__u32 l = tf->path[idx];
		struct dc_perc_state *st = &s->link[l];
		__u32 lim = dc_perc_limit_kbps(fl->hop, n, idx, DC_PERC_INF_KBPS);

		dc_perc_advance(st, dc_perc_epoch(e->t_ns, s->phase_ns[l], s->round_ns));
		dc_perc_update(st, &fl->hop[idx], lim, fin);
		s->updates++;
	}
	return push(s, e->t_ns + delay(s), EV_PKT, e->flow, e->gen, e->pos + 1);
}

void dc_pt_simcfg_defaults(struct dc_pt_simcfg *c)
{
	memset(c, 0, sizeof(*c));
	c->mode = DC_PERC_M_STAR;
	c->seed = 1;
	c->delay_min_ns = 1000;
	c->delay_max_ns = 2000;
	c->drop = 0;
	c->drop_until_rounds = 0;
	c->rto_rounds = 2.02;
	c->run_rounds = 60;
}

int dc_pt_simulate_until(const struct dc_pt_topo *t, const struct dc_pt_simcfg *c,
			 double stop_rounds, struct dc_pt_simres *res, struct dc_err *err)
{
	struct sim s = { .t = t, .c = c };
	__u32 maxh = 1, f, l;
	__u64 last_event_ns = 0, stop_ns, ref_ns;
	bool *active = NULL;
	struct dc_pt_oracle o = { 0 };
	int rc = 0;

	memset(res, 0, sizeof(*res));
	if (c->delay_max_ns < c->delay_min_ns || !c->delay_max_ns)
		return dc_err_set(err, EXIT_USAGE, "per-hop delay: need 0 < max and min <= max");
	for (f = 0; f < t->nflows; f++)
		if (t->flows[f].nhops > maxh)
			maxh = t->flows[f].nhops;
	s.round_ns = (2 * maxh + 1) * c->delay_max_ns;
	s.rto_ns = (__u64)(c->rto_rounds * (double)s.round_ns);
	s.drop_until_ns = (__u64)(c->drop_until_rounds * (double)s.round_ns);
	s.rnd = c->seed ^ 0x9e3779b97f4a7c15ULL;
	if (!s.rnd)
		s.rnd = 1;
	s.phase_ns = calloc(t->nlinks, sizeof(*s.phase_ns));
	s.link = calloc(t->nlinks, sizeof(*s.link));
	s.flow = calloc(t->nflows, sizeof(*s.flow));
	res->flow = calloc(t->nflows, sizeof(*res->flow));
	res->link = calloc(t->nlinks ? t->nlinks : 1, sizeof(*res->link));
	active = calloc(t->nflows, sizeof(*active));
	if (!s.phase_ns || !s.link || !s.flow || !res->flow || !res->link || !active)
		goto oom;
	for (l = 0; l < t->nlinks; l++) {
		dc_perc_state_init(&s.link[l], t->links[l].cap_kbps, c->mode);
		s.phase_ns[l] = dc_rand_below(&s.rnd, s.round_ns);
	}
	for (f = 0; f < t->nflows; f++) {
		const struct dc_pt_flow *tf = &t->flows[f];
		__u64 st = (__u64)(tf->start_rounds * (double)s.round_ns);

		fresh(&s.flow[f]);
		if (push(&s, st, EV_START, f, 0, 0))
			goto oom;
		if (st > last_event_ns)
			last_event_ns = st;
		if (tf->fin_rounds != DC_PT_NEVER) {
			__u64 fn = (__u64)(tf->fin_rounds * (double)s.round_ns);

			if (push(&s, fn, EV_FIN, f, 0, 0))
				goto oom;
			if (fn > last_event_ns)
				last_event_ns = fn;
		}
	}
	stop_ns = last_event_ns + (__u64)(c->run_rounds * (double)s.round_ns);
	if (s.drop_until_ns > last_event_ns && c->drop > 0)
		stop_ns = s.drop_until_ns + (__u64)(c->run_rounds * (double)s.round_ns);
	if (stop_rounds >= 0)
		stop_ns = (__u64)(stop_rounds * (double)s.round_ns);
	while (s.h.n && s.h.v[0].t_ns <= stop_ns) {
		struct ev e = heap_pop(&s.h);
		struct sflow *fl = &s.flow[e.flow];

		switch (e.kind) {
		case EV_START:
			fl->started = true;
			fresh(fl);
			rc = send_pkt(&s, e.flow, e.t_ns);
			break;
		case EV_FIN:
			fl->fin_pending = true;
			break;
		case EV_RTO:
			if (e.gen != fl->gen || fl->done)
				break;
			fl->restarts++;
			fresh(fl);
			rc = send_pkt(&s, e.flow, e.t_ns);
			break;
		case EV_PKT:
			rc = on_pkt(&s, &e);
			break;
		}
		if (rc)
			goto oom;
	}
	/* The reference: the last change of the flow set (or the last drop) by stop. */
	ref_ns = 0;
	for (f = 0; f < t->nflows; f++) {
		const struct dc_pt_flow *tf = &t->flows[f];
		__u64 st = (__u64)(tf->start_rounds * (double)s.round_ns);
		__u64 fn = tf->fin_rounds == DC_PT_NEVER ? 0 : (__u64)(tf->fin_rounds * (double)s.round_ns);

		if (st <= stop_ns && st > ref_ns)
			ref_ns = st;
		if (fn && fn <= stop_ns && fn > ref_ns)
			ref_ns = fn;
		active[f] = s.flow[f].started && !s.flow[f].fin_pending;
	}
	if (s.last_drop_ns > ref_ns)
		ref_ns = s.last_drop_ns;
	rc = dc_pt_waterfill(t, active, 2, &o, err);
	if (rc)
		goto out;
	res->w2 = o.iters;
	for (f = 0; f < t->nflows; f++) {
		struct dc_pt_flowres *r = &res->flow[f];

		r->active = active[f];
		r->rate_kbps = s.flow[f].rate_kbps;
		r->expect_kbps = active[f] ? o.rate_kbps[f] : 0;
		r->restarts = s.flow[f].restarts;
		r->converged = !active[f] || r->rate_kbps == r->expect_kbps;
		r->rounds = s.flow[f].t_change_ns > ref_ns ?
				    (double)(s.flow[f].t_change_ns - ref_ns) / (double)s.round_ns : 0;
		if (!active[f])
			r->rounds = 0;
	}
	dc_pt_oracle_free(&o);
	if ((rc = dc_pt_waterfill(t, active, 1, &o, err)))
		goto out;
	res->w1 = o.iters;
	dc_pt_oracle_free(&o);
	if ((rc = dc_pt_waterfill(t, active, DC_PT_WF_INF, &o, err)))
		goto out;
	res->winf = o.iters;
	res->all_converged = true;
	for (f = 0; f < t->nflows; f++) {
		res->all_converged &= res->flow[f].converged;
		if (res->flow[f].active && res->flow[f].rounds > res->max_rounds)
			res->max_rounds = res->flow[f].rounds;
	}
	for (l = 0; l < t->nlinks; l++) {
		res->link[l] = s.link[l];
		dc_perc_advance(&res->link[l], dc_perc_epoch(stop_ns, s.phase_ns[l], s.round_ns));
	}
	res->round_ns = s.round_ns;
	res->end_ns = stop_ns;
	res->ref_rounds = (double)ref_ns / (double)s.round_ns;
	res->updates = s.updates;
	res->drops = s.drops;
	goto out;
oom:
	rc = dc_err_set(err, EXIT_ERR, "out of memory");
out:
	dc_pt_oracle_free(&o);
	free(s.h.v);
	free(s.phase_ns);
	free(s.link);
	free(s.flow);
	free(active);
	if (rc)
		dc_pt_simres_free(res);
	return rc;
}

int dc_pt_simulate(const struct dc_pt_topo *t, const struct dc_pt_simcfg *c,
		   struct dc_pt_simres *res, struct dc_err *err)
{
	return dc_pt_simulate_until(t, c, -1, res, err);
}

void dc_pt_simres_free(struct dc_pt_simres *r)
{
	free(r->flow);
	free(r->link);
	r->flow = NULL;
	r->link = NULL;
}
