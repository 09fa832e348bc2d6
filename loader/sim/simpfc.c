// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Lossy and lossless traffic through a shared-buffer switch with PFC
 * (model in simpfc.h): the senders, their links, the switch running
 * Reverie or SONiC from include/dcbpf/ (the `sim --alg reverie|sonic`
 * command: simpfccmd.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <dcbpf/workload.h>

#include "cli.h"
#include "rand.h"
#include "sim/simcmd.h"
#include "sim/simpfc.h"

const char *dc_simpfc_alg_name(__u32 alg)
{
	return alg == DC_SIMPFC_REVERIE ? "reverie" : alg == DC_SIMPFC_SONIC ? "sonic" : "?";
}

void dc_simpfc_defaults(struct dc_simpfc_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->alg = DC_SIMPFC_REVERIE;
	c->nports = 16;
	c->mtu = 1500;
	c->slot_bytes = 1500;
	c->slot_ns = 12000;
	c->link_delay = 2;
	c->alpha_ll_q16 = DC_RV_DEFAULT_ALPHA_Q16;
	c->alpha_ly_q16 = DC_RV_DEFAULT_ALPHA_Q16;
	c->gamma_q32 = DC_RV_DEFAULT_GAMMA_Q32;
	c->cong_bytes = DC_RV_DEFAULT_CONG_BYTES;
	c->lossy = c->lossless = true;
	c->slots = 200000;
	c->seed = 1;
	c->load = 0.4;
	c->incast_frac = 0.5;
	c->incast_senders = 15;
	c->incast_period = 2000;
}

/* Port rate in Mbit/s: slot_bytes per slot_ns. */
static __u64 rate_mbps(const struct dc_simpfc_cfg *c)
{
	return (__u64)c->slot_bytes * 8 * 1000 / c->slot_ns;
}

int dc_simpfc_prepare(struct dc_simpfc_cfg *c, struct dc_err *err)
{
	__u64 inflight, hdrm_pool, gbps, sized;

	if (c->nports < 2 || c->nports > DC_SIMPFC_PORTS_MAX)
		return dc_err_set(err, EXIT_USAGE, "--ports %u: the PFC model needs 2 to %u ports",
				  c->nports, DC_SIMPFC_PORTS_MAX);
	if (c->mtu > c->slot_bytes)
		return dc_err_set(err, EXIT_USAGE,
				  "--mtu %u is larger than --slot-bytes %u: a packet must fit in what a link carries in a slot",
				  c->mtu, c->slot_bytes);
	if (c->gamma_q32 >= DC_RV_Q32_ONE)
		return dc_err_set(err, EXIT_USAGE,
				  "--gamma rounds to 1 at the filter's precision (2^-32): at 1 the filtered length never moves and Eq. 5.10 never sees congestion");
	if (!c->alpha_ll_q16 || !c->alpha_ly_q16 || c->alpha_ll_q16 > DC_RV_ALPHA_MAX_Q16 ||
	    c->alpha_ly_q16 > DC_RV_ALPHA_MAX_Q16)
		return dc_err_set(err, EXIT_USAGE, "alpha must be in (0, 1024]");
	/* A pause sent in slot t stops the sender from slot t + d on; what
	 * it sent in slots t − d + 1 … t + d − 1 still arrives, with the
	 * rest of slot t's arrivals: at most 2·d slots of the link. */
	inflight = 2ULL * c->link_delay * c->slot_bytes;
	sized = dc_rv_headroom_bytes(c->mtu, rate_mbps(c), (__u64)c->link_delay * c->slot_ns);
	if (!c->buffer_bytes) {
		/* §5.3's 5.12 KB per port per Gbit/s for the shared pool, the
		 * sized headroom on top (at a few Gbit/s the NIC's fixed
		 * reaction allowance alone would take a Tomahawk-sized buffer) */
		gbps = rate_mbps(c) / 1000;
		c->buffer_bytes = dc_rv_buffer_bytes(c->nports, gbps ? (__u32)gbps : 1) +
				  sized * c->nports;
	}
	if (!c->hdrm_queue_bytes)
		c->hdrm_queue_bytes = sized;
	if (c->hdrm_queue_bytes < inflight)
		return dc_err_set(err, EXIT_USAGE,
				  "--headroom %llu is below what arrives after a pause (2 x --link-delay %u x --slot-bytes %u = %llu bytes): lossless packets would be dropped",
				  (unsigned long long)c->hdrm_queue_bytes, c->link_delay, c->slot_bytes,
				  (unsigned long long)inflight);
	hdrm_pool = c->hdrm_queue_bytes * c->nports;
	if (hdrm_pool + c->mtu > c->buffer_bytes)
		return dc_err_set(err, EXIT_USAGE,
				  "headroom %llu x %u lossless queues = %llu bytes leaves no shared pool in a buffer of %llu bytes (b_in + b_h <= b)",
				  (unsigned long long)c->hdrm_queue_bytes, c->nports,
				  (unsigned long long)hdrm_pool, (unsigned long long)c->buffer_bytes);
	if (c->buffer_bytes > 0xffffffffULL)
		return dc_err_set(err, EXIT_USAGE, "the buffer must stay below 4 GiB");
	if (!c->lossy && !c->lossless)
		return dc_err_set(err, EXIT_USAGE, "no traffic");
	return 0;
}

/* ---- packets, flows, FIFOs ------------------------------------------------ */

#define NO_INCAST 0xffffffffU

struct pkt {
	__u32 at;		/* link: slot it reaches the switch */
	__u16 src, dst;
	__u32 bytes;
	__u32 incast;		/* query index, or NO_INCAST */
	__u8 cls;
};

struct fifo {
	struct pkt *p;
	__u32 cap, head, cnt;
};

static int fifo_push(struct fifo *f, const struct pkt *x)
{
	if (f->cnt == f->cap) {
		__u32 ncap = f->cap ? 2 * f->cap : 64, i;
		struct pkt *np = malloc((size_t)ncap * sizeof(*np));

		if (!np)
			return -1;
		for (i = 0; i < f->cnt; i++)
			np[i] = f->p[(f->head + i) % f->cap];
		free(f->p);
		f->p = np;
		f->cap = ncap;
		f->head = 0;
	}
	f->p[(f->head + f->cnt) % f->cap] = *x;
	f->cnt++;
	return 0;
}

static struct pkt *fifo_head(struct fifo *f)
{
	return f->cnt ? &f->p[f->head] : NULL;
}

static void fifo_pop(struct fifo *f)
{
	f->head = (f->head + 1) % f->cap;
	f->cnt--;
}

/* A flow at a sender: packets left, the last one's size. */
struct flow {
	__u32 dst, left, last_bytes, incast;
};

#define FLOWQ 512

struct sender {
	struct flow q[DC_RV_CLASSES][FLOWQ];
	__u32 head[DC_RV_CLASSES], cnt[DC_RV_CLASSES];
	bool paused;		/* lossless stopped (the last frame that arrived) */
	__u8 rr;		/* class served first next slot */
	struct fifo link;	/* packets on the wire to the switch */
	/* frames on the wire to the sender: slot they arrive, pause or resume */
	__u32 *frame_at;
	__u8 *frame_pause;
	__u32 fcap, fhead, fcnt;
};

static bool flow_add(struct sender *s, __u32 cls, __u32 dst, __u64 bytes, __u32 mtu, __u32 incast)
{
	struct flow *f;

	if (s->cnt[cls] == FLOWQ)
		return false;
	f = &s->q[cls][(s->head[cls] + s->cnt[cls]) % FLOWQ];
	if (!bytes)
		bytes = 1;
	f->dst = dst;
	f->left = (__u32)((bytes + mtu - 1) / mtu);
	f->last_bytes = (__u32)(bytes - (__u64)(f->left - 1) * mtu);
	f->incast = incast;
	s->cnt[cls]++;
	return true;
}

/* At most two frames per slot per queue go out (a resume, then a pause
 * of a queue that resumed with nothing in headroom), and each lives
 * 'delay' slots on the wire: 2·(delay + 1) entries suffice. */
static void frame_send(struct sender *s, __u32 at, bool pause)
{
	__u32 i = (s->fhead + s->fcnt) % s->fcap;

	s->frame_at[i] = at;
	s->frame_pause[i] = pause;
	s->fcnt++;
}

static void frames_arrive(struct sender *s, __u32 t)
{
	while (s->fcnt && s->frame_at[s->fhead] <= t) {
		s->paused = s->frame_pause[s->fhead];
		s->fhead = (s->fhead + 1) % s->fcap;
		s->fcnt--;
	}
}

struct incast {
	__u32 start;
	__u32 left;		/* packets not yet sent by the switch */
	__u64 bytes;
	bool lost;
};

/* ---- the switch ------------------------------------------------------------ */

struct sw {
	const struct dc_simpfc_cfg *c;
	struct dc_rv_params rv;
	struct dc_rv_pool pool;
	struct dc_rv_queue ll[DC_SIMPFC_PORTS_MAX];	/* ingress, lossless */
	struct dc_rv_queue ly[DC_SIMPFC_PORTS_MAX];	/* egress, lossy */
	struct dc_sonic_params so;
	struct dc_sonic_pools sp;
	struct dc_sonic_iq iq[DC_SIMPFC_PORTS_MAX][DC_RV_CLASSES];
	__u64 eq[DC_SIMPFC_PORTS_MAX][DC_RV_CLASSES];
	struct fifo out[DC_SIMPFC_PORTS_MAX][DC_RV_CLASSES];
	__u8 out_rr[DC_SIMPFC_PORTS_MAX];
	__u64 occ[DC_RV_CLASSES];	/* bytes held per class */
};

static bool sw_paused(const struct sw *w, __u32 i)
{
	return w->c->alg == DC_SIMPFC_REVERIE ? w->ll[i].paused : w->iq[i][DC_RV_LOSSLESS].paused;
}

static __u64 sw_hdrm(const struct sw *w, __u32 i)
{
	return w->c->alg == DC_SIMPFC_REVERIE ? w->ll[i].hdrm_bytes :
						w->iq[i][DC_RV_LOSSLESS].hdrm_bytes;
}

static __u64 sw_hdrm_used(const struct sw *w)
{
	return w->c->alg == DC_SIMPFC_REVERIE ? w->pool.hdrm_used : w->sp.hdrm_used;
}

/* Admission of x: true if it is stored; *pause when its queue paused. */
static bool sw_arrive(struct sw *w, const struct pkt *x, bool *pause)
{
	if (w->c->alg == DC_SIMPFC_REVERIE) {
		struct dc_rv_queue *q = x->cls == DC_RV_LOSSLESS ? &w->ll[x->src] : &w->ly[x->dst];
		enum dc_rv_verdict v = dc_rv_arrival(&w->rv, &w->pool, q, x->cls, x->bytes, pause);

		return v == DC_RV_SHARED || v == DC_RV_HEADROOM;
	}
	return dc_sonic_arrival(&w->so, &w->sp, &w->iq[x->src][x->cls], &w->eq[x->dst][x->cls],
				x->cls, x->bytes, pause) <= DC_SONIC_HEADROOM;
}

/* Departure of x; true if its (lossless ingress) queue resumes. */
static bool sw_depart(struct sw *w, const struct pkt *x)
{
	if (w->c->alg == DC_SIMPFC_REVERIE) {
		struct dc_rv_queue *q = x->cls == DC_RV_LOSSLESS ? &w->ll[x->src] : &w->ly[x->dst];

		return dc_rv_departure(&w->rv, &w->pool, q, x->cls, x->bytes);
	}
	return dc_sonic_departure(&w->so, &w->sp, &w->iq[x->src][x->cls], &w->eq[x->dst][x->cls],
				  x->cls, x->bytes);
}

static bool sw_poll(struct sw *w, __u32 i)
{
	if (w->c->alg == DC_SIMPFC_REVERIE)
		return dc_rv_poll_resume(&w->rv, &w->pool, &w->ll[i]);
	return dc_sonic_poll_resume(&w->so, &w->sp, &w->iq[i][DC_RV_LOSSLESS]);
}

static void sw_init(struct sw *w, const struct dc_simpfc_cfg *c)
{
	dc_rv_defaults(&w->rv, c->buffer_bytes, c->hdrm_queue_bytes, c->nports);
	w->rv.alpha_q16[DC_RV_LOSSLESS] = c->alpha_ll_q16;
	w->rv.alpha_q16[DC_RV_LOSSY] = c->alpha_ly_q16;
	w->rv.gamma_q32 = c->gamma_q32;
	w->rv.cong_bytes = c->cong_bytes;
	w->rv.xon_offset_bytes = c->xon_offset;
	dc_sonic_defaults(&w->so, c->buffer_bytes, c->hdrm_queue_bytes, c->nports, c->alpha_ll_q16,
			  c->alpha_ly_q16);
	w->so.xon_offset_bytes = c->xon_offset;
}

/* ---- statistics -------------------------------------------------------------- */

#define OCC_BINS 1024

struct hist {
	__u64 n[OCC_BINS];
	__u64 total, width, max;
};

static void hist_add(struct hist *h, __u64 v)
{
	__u64 b = v / h->width;

	h->n[b < OCC_BINS ? b : OCC_BINS - 1]++;
	h->total++;
	if (v > h->max)
		h->max = v;
}

/* Upper edge of the bin holding the q-quantile (at most the maximum). */
static __u64 hist_pct(const struct hist *h, double q)
{
	__u64 want = (__u64)ceil(q * (double)h->total), seen = 0, e;
	__u32 i;

	for (i = 0; i < OCC_BINS; i++) {
		seen += h->n[i];
		if (seen >= want && want) {
			e = (i + 1) * h->width;
			return e < h->max ? e : h->max;
		}
	}
	return h->max;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ---- the run ------------------------------------------------------------------- */

struct run {
	const struct dc_simpfc_cfg *c;
	struct dc_simpfc_result *r;
	struct sw *w;
	struct sender *snd;
	struct incast *ic;
	__u32 nic, icap;
	__u64 rng;
	struct hist occ[DC_RV_CLASSES];
};

static int gen_incast(struct run *u, __u32 t)
{
	const struct dc_simpfc_cfg *c = u->c;
	__u32 n = c->nports, k, j, dst, first, nsend;
	double per;
	__u64 bytes;

	nsend = c->incast_senders < n - 1 ? c->incast_senders : n - 1;
	per = c->incast_frac * (double)c->buffer_bytes / nsend;
	bytes = (__u64)(per + 0.5) ? (__u64)(per + 0.5) : 1;
	if (u->nic == u->icap) {
		__u32 ncap = u->icap ? 2 * u->icap : 256;
		struct incast *ni = realloc(u->ic, (size_t)ncap * sizeof(*ni));

		if (!ni)
			return -1;
		u->ic = ni;
		u->icap = ncap;
	}
	dst = (__u32)dc_rand_below(&u->rng, n);
	first = (__u32)dc_rand_below(&u->rng, n);
	u->ic[u->nic] = (struct incast){ .start = t, .left = 0, .bytes = 0 };
	for (k = 0, j = 0; k < nsend && j < n; j++) {
		__u32 src = (first + j) % n;

		if (src == dst)
			continue;
		k++;
		if (!flow_add(&u->snd[src], DC_RV_LOSSLESS, dst, bytes, c->mtu, u->nic))
			continue;	/* the sender's queue is full: this response is not sent */
		u->ic[u->nic].left += (__u32)((bytes + c->mtu - 1) / c->mtu);
		u->ic[u->nic].bytes += bytes;
	}
	if (u->ic[u->nic].left) {
		u->nic++;
		u->r->incasts++;
	}
	return 0;
}

static void gen_lossy(struct run *u, double p_flow)
{
	const struct dc_simpfc_cfg *c = u->c;
	__u32 i, dst;

	for (i = 0; i < c->nports; i++) {
		if (dc_rand_unit(&u->rng) >= p_flow)
			continue;
		dst = (__u32)dc_rand_below(&u->rng, c->nports - 1);
		if (dst >= i)
			dst++;
		if (!flow_add(&u->snd[i], DC_RV_LOSSY, dst,
			      dc_wl_flow_bytes(&dc_wl_websearch, dc_rand_unit(&u->rng), 1, 0), c->mtu,
			      NO_INCAST))
			u->r->ly_flows_refused++;
	}
}

/* Sender i puts up to slot_bytes of whole packets on its link. */
static int send_slot(struct run *u, __u32 i, __u32 t)
{
	const struct dc_simpfc_cfg *c = u->c;
	struct sender *s = &u->snd[i];
	__u32 credit = c->slot_bytes, k, tried;
	struct pkt x;

	for (k = 0, tried = 0; tried < DC_RV_CLASSES; k++) {
		__u32 cls = (s->rr + k) % DC_RV_CLASSES;
		struct flow *f;

		if (!s->cnt[cls] || (cls == DC_RV_LOSSLESS && s->paused)) {
			tried++;
			continue;
		}
		f = &s->q[cls][s->head[cls]];
		x.bytes = f->left == 1 ? f->last_bytes : c->mtu;
		if (x.bytes > credit)
			break;
		tried = 0;
		credit -= x.bytes;
		x.at = t + c->link_delay;
		x.src = (__u16)i;
		x.dst = (__u16)f->dst;
		x.incast = f->incast;
		x.cls = (__u8)cls;
		if (fifo_push(&s->link, &x))
			return -1;
		if (--f->left == 0) {
			s->head[cls] = (s->head[cls] + 1) % FLOWQ;
			s->cnt[cls]--;
		}
	}
	s->rr ^= 1;
	return 0;
}

static int arrive_slot(struct run *u, __u32 i, __u32 t)
{
	struct sw *w = u->w;
	struct sender *s = &u->snd[i];
	struct pkt *x;
	bool pause;

	while ((x = fifo_head(&s->link)) && x->at <= t) {
		bool ok = sw_arrive(w, x, &pause);

		if (x->cls == DC_RV_LOSSLESS) {
			u->r->ll_arrivals++;
			if (!ok) {
				u->r->ll_drops++;
				if (x->incast != NO_INCAST) {
					u->ic[x->incast].lost = true;
					u->ic[x->incast].left--;
				}
			}
		} else {
			u->r->ly_arrivals++;
			u->r->ly_drops += !ok;
		}
		if (pause) {
			u->r->pauses++;
			frame_send(s, t + u->c->link_delay, true);
		}
		if (ok) {
			if (fifo_push(&w->out[x->dst][x->cls], x))
				return -1;
			w->occ[x->cls] += x->bytes;
		}
		fifo_pop(&s->link);
	}
	return 0;
}

static void depart_slot(struct run *u, __u32 d, __u32 t, double *fct, __u32 *nfct)
{
	const struct dc_simpfc_cfg *c = u->c;
	struct sw *w = u->w;
	__u32 credit = c->slot_bytes, k, tried;

	for (k = 0, tried = 0; tried < DC_RV_CLASSES; k++) {
		__u32 cls = (w->out_rr[d] + k) % DC_RV_CLASSES;
		struct pkt *x = fifo_head(&w->out[d][cls]);

		if (!x) {
			tried++;
			continue;
		}
		if (x->bytes > credit)
			break;
		tried = 0;
		credit -= x->bytes;
		w->occ[cls] -= x->bytes;
		if (sw_depart(w, x)) {
			u->r->resumes++;
			frame_send(&u->snd[x->src], t + c->link_delay, false);
		}
		if (cls == DC_RV_LOSSLESS) {
			u->r->ll_sent_bytes += x->bytes;
			u->r->ll_sent_pkts++;
			if (x->incast != NO_INCAST && --u->ic[x->incast].left == 0 &&
			    !u->ic[x->incast].lost) {
				struct incast *q = &u->ic[x->incast];
				/* ideal: the destination link carries the burst,
				 * after one link delay */
				double ideal = ceil((double)q->bytes / c->slot_bytes) + c->link_delay;

				fct[*nfct] = (double)(t - q->start + 1);
				u->r->incast_slowdown_mean += fct[*nfct] / ideal;
				(*nfct)++;
			}
		} else {
			u->r->ly_sent_bytes += x->bytes;
			u->r->ly_sent_pkts++;
		}
		fifo_pop(&w->out[d][cls]);
	}
	w->out_rr[d] ^= 1;
}

static bool idle(const struct run *u)
{
	__u32 i;

	for (i = 0; i < u->c->nports; i++) {
		const struct sender *s = &u->snd[i];

		if (s->cnt[0] || s->cnt[1] || s->link.cnt || u->w->out[i][0].cnt ||
		    u->w->out[i][1].cnt)
			return false;
	}
	return true;
}

int dc_simpfc_run(const struct dc_simpfc_cfg *c, struct dc_simpfc_result *r, struct dc_err *err)
{
	struct run u = { .c = c, .r = r };
	double p_flow, p_query, *fct = NULL;
	__u64 t;
	__u32 i, nfct = 0, start, fcap = 0;
	__u64 end = c->slots + (c->drain_slots ? c->drain_slots : c->slots);
	int rc = EXIT_ERR;

	memset(r, 0, sizeof(*r));
	u.rng = c->seed ? c->seed : 1;
	u.w = calloc(1, sizeof(*u.w));
	u.snd = calloc(c->nports, sizeof(*u.snd));
	if (!u.w || !u.snd)
		goto oom;
	u.w->c = c;
	sw_init(u.w, c);
	for (i = 0; i < c->nports; i++) {
		u.snd[i].fcap = 2 * (c->link_delay + 2);
		u.snd[i].frame_at = calloc(u.snd[i].fcap, sizeof(__u32));
		u.snd[i].frame_pause = calloc(u.snd[i].fcap, 1);
		if (!u.snd[i].frame_at || !u.snd[i].frame_pause)
			goto oom;
	}
	for (i = 0; i < DC_RV_CLASSES; i++)
		u.occ[i].width = c->buffer_bytes / OCC_BINS + 1;
	r->buffer_bytes = c->buffer_bytes;
	r->hdrm_queue_bytes = c->hdrm_queue_bytes;
	r->shared_bytes = c->alg == DC_SIMPFC_REVERIE ? u.w->rv.shared_bytes : u.w->so.in_pool_bytes;
	p_flow = c->lossy ? c->load / (dc_wl_cdf_mean(&dc_wl_websearch, 1, 0) / c->slot_bytes) : 0;
	p_query = c->lossless ? 1.0 / c->incast_period : 0;
	for (t = 0; t < end; t++) {
		if (t < c->slots) {
			gen_lossy(&u, p_flow);
			if (p_query > 0 && dc_rand_unit(&u.rng) < p_query && gen_incast(&u, t))
				goto oom;
		} else if (idle(&u)) {
			break;
		}
		if (u.nic > fcap) {
			double *nf = realloc(fct, (size_t)u.icap * sizeof(*nf));

			if (!nf)
				goto oom;
			fct = nf;
			fcap = u.icap;
		}
		start = t % c->nports;	/* no port always first */
		for (i = 0; i < c->nports; i++) {
			frames_arrive(&u.snd[i], t);
			if (send_slot(&u, i, t))
				goto oom;
		}
		for (i = 0; i < c->nports; i++)
			if (arrive_slot(&u, (start + i) % c->nports, t))
				goto oom;
		for (i = 0; i < c->nports; i++)
			depart_slot(&u, (start + i) % c->nports, t, fct, &nfct);
		for (i = 0; i < c->nports; i++) {
			if (sw_paused(u.w, i)) {
				if (sw_poll(u.w, i)) {
					r->resumes++;
					frame_send(&u.snd[i], t + c->link_delay, false);
				} else {
					r->paused_slots++;
				}
			}
			if (sw_hdrm(u.w, i) > r->hdrm_queue_max_bytes)
				r->hdrm_queue_max_bytes = sw_hdrm(u.w, i);
		}
		if (sw_hdrm_used(u.w) > r->hdrm_max_bytes)
			r->hdrm_max_bytes = sw_hdrm_used(u.w);
		for (i = 0; i < DC_RV_CLASSES; i++)
			hist_add(&u.occ[i], u.w->occ[i]);
	}
	r->slots = t;
	r->drained = idle(&u);
	if (c->alg == DC_SIMPFC_REVERIE) {
		r->end_counted_bytes = u.w->pool.q_shared + u.w->pool.hdrm_used;
		for (i = 0; i < c->nports; i++)
			r->end_counted_bytes += u.w->ll[i].q_bytes + u.w->ll[i].hdrm_bytes +
						u.w->ly[i].q_bytes + u.w->ly[i].hdrm_bytes;
	} else {
		r->end_counted_bytes = u.w->sp.in_occ + u.w->sp.hdrm_used + u.w->sp.eg_occ[0] +
				       u.w->sp.eg_occ[1];
		for (i = 0; i < c->nports; i++)
			r->end_counted_bytes += u.w->iq[i][0].q_bytes + u.w->iq[i][1].q_bytes +
						u.w->iq[i][1].hdrm_bytes + u.w->eq[i][0] + u.w->eq[i][1];
	}
	r->incasts_done = nfct;
	if (nfct) {
		double s = 0;

		for (i = 0; i < nfct; i++)
			s += fct[i];
		r->incast_fct_mean = s / nfct;
		r->incast_slowdown_mean /= nfct;
		qsort(fct, nfct, sizeof(*fct), cmp_double);
		r->incast_fct_p99 = fct[(__u32)ceil(0.99 * nfct) - 1];
	}
	r->occ_ll_p99 = hist_pct(&u.occ[DC_RV_LOSSLESS], 0.99);
	r->occ_ly_p99 = hist_pct(&u.occ[DC_RV_LOSSY], 0.99);
	r->occ_ll_max = u.occ[DC_RV_LOSSLESS].max;
	r->occ_ly_max = u.occ[DC_RV_LOSSY].max;
	rc = 0;
	goto out;
oom:
	dc_err_set(err, EXIT_ERR, "out of memory");
out:
	if (u.snd)
		for (i = 0; i < c->nports; i++) {
			free(u.snd[i].frame_at);
			free(u.snd[i].frame_pause);
			free(u.snd[i].link.p);
		}
	if (u.w)
		for (i = 0; i < c->nports; i++) {
			free(u.w->out[i][0].p);
			free(u.w->out[i][1].p);
		}
	free(u.snd);
	free(u.w);
	free(u.ic);
	free(fct);
	return rc;
}
