/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Reverie in the switch (include/dcbpf/reverie.h; Addanki thesis ch.5,
 * Reverie, NSDI'24): the arrival at XDP admission, the departure in the
 * qdisc tracker, the reset on an empty buffer.  The decisions are the
 * core's own functions on the state in dc_sw_rv.
 * Part of bpf/switch.bpf.c, included at its place there: it uses that
 * file's maps, constants and helpers.
 */
#ifndef DCBPF_BPF_SW_RV_H
#define DCBPF_BPF_SW_RV_H

/* The core's parameters from the live configuration. */
static __always_inline void dc_rv_params_of(const struct dc_sw_cfg *cfg, struct dc_rv_params *p)
{
	const struct dc_sw_rv_cfg *r = &cfg->rv;
	__u64 h = r->hdrm_pool_bytes;

	p->shared_bytes = h < cfg->buffer_bytes ? cfg->buffer_bytes - h : 0;
	p->hdrm_pool_bytes = h;
	p->hdrm_queue_bytes = r->hdrm_bytes;
	p->alpha_q16[DC_RV_LOSSY] = r->alpha_q16[DC_RV_LOSSY];
	p->alpha_q16[DC_RV_LOSSLESS] = r->alpha_q16[DC_RV_LOSSLESS];
	p->gamma_q32 = r->gamma_q32;
	p->cong_bytes = r->cong_bytes;
	p->xon_offset_bytes = r->xon_bytes;
	p->clamp = true;
}

/* Index of (port, priority) in the records, bounded in the register that
 * indexes: 6.1's verifier loses the bound of an OR of two bounded values
 * (what clang makes of port·8 + prio), so the mask comes after a barrier. */
static __always_inline __u32 dc_rvkey(__u32 port, __u32 prio)
{
	__u32 k = (port & (DC_SW_PORTS_MAX - 1)) * DC_SW_PRIOS + (prio & (DC_SW_PRIOS - 1));

	dc_opaque(k);
	return k & (DC_SW_PORTS_MAX * DC_SW_PRIOS - 1);
}

/*
 * The upstream's copy of a lossless ingress queue's PFC state (dc_sw_pfc;
 * include/dcbpf/switch.h): written at every transition and, while the
 * queue stays paused, at each of its arrivals and departures (the refresh
 * that keeps the pause from expiring).  Written from its state after each
 * event, not toggled, so a write two CPUs raced on is corrected by the
 * queue's next event.  Nothing is written while the queue runs unpaused.
 */
static __always_inline void dc_pfc_note(__u32 key, __u32 paused, bool pause)
{
	struct dc_sw_pfc *f;
	__u64 now;

	key &= DC_SW_PORTS_MAX * DC_SW_PRIOS - 1;
	f = bpf_map_lookup_elem(&dc_sw_pfc, &key);
	if (!f || (!paused && !f->paused))
		return;
	now = bpf_ktime_get_ns();
	if (pause) {
		f->pause_ns = now;
		__sync_fetch_and_add(&f->pauses, 1);
	}
	f->write_ns = now;
	f->paused = paused;
}

/* dc_cred_io carries Reverie's inputs beside q, len, pid (the egress
 * port): the ingress ifindex and the priority. */
#define DC_RV_IO_INIF 1
#define DC_RV_IO_PRIO 2

/*
 * The re-test of the paused lossless queues (reverie.h dc_rv_retest): at
 * every departure the tracker sees and every Reverie arrival, each queue
 * whose bit is set in retest_mask.  Its count is dropped when its packets
 * have all left its FIFO port (dc_rv_pos_gone; not with --queues N, whose
 * HTB lets later packets of higher priority leave first), then the resume
 * test.  A resume is counted in resumes and in retest_resumes.
 */
struct dc_rv_retest_ctx {
	struct dc_sw_rv *rv;
	struct dc_rv_params p;
	__u32 fifo;
};

_Static_assert(sizeof(((struct dc_sw_rv *)0)->retest_mask) == 2 * sizeof(__u64),
	       "dc_rv_reset tests the two words of retest_mask");

static __always_inline void dc_rv_mark(struct dc_sw_rv *rv, __u32 key)
{
	key &= DC_SW_PORTS_MAX * DC_SW_PRIOS - 1;
	__sync_fetch_and_or(&rv->retest_mask[key / 64], 1ULL << (key % 64));
}

static long dc_rv_retest_one(__u32 i, void *data)
{
	struct dc_rv_retest_ctx *x = data;
	struct dc_sw_rv *rv = x->rv;
	const struct dc_sw_port *port;
	struct dc_sw_rvq *r;
	__u64 bit, dropped = 0;
	__u32 pk;
	bool gone = false;

	if (!rv)
		return 1;
	i &= DC_SW_PORTS_MAX * DC_SW_PRIOS - 1;
	bit = 1ULL << (i % 64);
	if (!(rv->retest_mask[i / 64] & bit))
		return 0;
	r = &rv->in[i];
	if (!r->q.paused) {
		/* cleared before the second look: a PAUSE between sets its
		 * paused flag before its bit, so one of the two sees it */
		__sync_fetch_and_and(&rv->retest_mask[i / 64], ~bit);
		if (r->q.paused)
			dc_rv_mark(rv, i);
		return 0;
	}
	pk = rv->pos[i].port1;
	if (x->fifo && pk) {
		pk = (pk - 1) & (DC_SW_PORTS_MAX - 1);
		port = bpf_map_lookup_elem(&dc_sw_port, &pk);
		if (port)
			gone = dc_rv_pos_gone(&rv->pos[i], pk, port->tx_bytes);
	}
	if (dc_rv_retest(&x->p, &rv->pool, &r->q, gone, &dropped)) {
		__sync_fetch_and_add(&r->resumes, 1);
		__sync_fetch_and_add(&r->retest_resumes, 1);
		dc_pfc_note(i, r->q.paused, false);
	}
	if (dropped)
		__sync_fetch_and_add(&r->stale_bytes, dropped);
	return 0;
}

static __always_inline void dc_rv_retest_all(struct dc_sw_rv *rv, const struct dc_sw_cfg *cfg)
{
	struct dc_rv_retest_ctx x;
	const struct dc_sw_meta *meta;
	__u32 zero = 0, w;
	__u64 any = 0;

	for (w = 0; w < DC_SW_PORTS_MAX * DC_SW_PRIOS / 64; w++)
		any |= rv->retest_mask[w];
	if (!any)
		return;
	meta = bpf_map_lookup_elem(&dc_sw_meta, &zero);
	x.rv = rv;
	x.fifo = meta && meta->nqueues <= 1;
	dc_rv_params_of(cfg, &x.p);
	bpf_loop(DC_SW_PORTS_MAX * DC_SW_PRIOS, dc_rv_retest_one, &x, 0);
}

/*
 * One arrival (Eqs. 5.10-5.12): a lossless packet (dc_sw_cfg.rv.lossless
 * of its priority) into its ingress queue — the shared pool, or the
 * headroom once the queue is PAUSED — a lossy one into its egress queue
 * or dropped.  thresh out: Γ of the packet's class, bytes.  A global
 * function like dc_cred_path.  Returns enum dc_verdict.
 */
__noinline int dc_rv_path(struct dc_cred_io *o)
{
	const struct dc_sw_meta *meta;
	const struct dc_sw_cfg *cfg;
	struct dc_rv_params p, *pp;
	const struct dc_sw_port *port;
	struct dc_sw_rvq *rq;
	struct dc_sw_rv *rv;
	__u32 zero = 0, slot, prio, cls, key, inif, eg, *inp;
	enum dc_rv_verdict v;
	__u64 had;
	bool pause;

	if (!o)
		return DC_V_ADMIT;
	meta = bpf_map_lookup_elem(&dc_sw_meta, &zero);
	rv = bpf_map_lookup_elem(&dc_sw_rv, &zero);
	if (!meta || !rv)
		return DC_V_ADMIT;
	slot = meta->cfg_slot & 1;
	cfg = bpf_map_lookup_elem(&dc_sw_cfg, &slot);
	if (!cfg)
		return DC_V_ADMIT;
	prio = o->x[DC_RV_IO_PRIO] & (DC_SW_PRIOS - 1);
	cls = cfg->rv.lossless[prio] ? DC_RV_LOSSLESS : DC_RV_LOSSY;
	key = o->pid;
	if (cls == DC_RV_LOSSLESS) {
		inif = o->x[DC_RV_IO_INIF];
		inp = bpf_map_lookup_elem(&dc_sw_ifport, &inif);
		/* from no switch port (the switch's own stack): no upstream
		 * to pause; counted as lossy at its egress */
		if (inp)
			key = *inp;
		else
			cls = DC_RV_LOSSY;
	}
	key = dc_rvkey(key, prio);
	rq = cls == DC_RV_LOSSLESS ? &rv->in[key] : &rv->eg[key];
	/* through an opaque pointer: on a known stack address clang forms
	 * &p.alpha_q16[cls] with an OR, which the verifier refuses */
	pp = &p;
	dc_opaque(pp);
	dc_rv_params_of(cfg, pp);
	had = rq->q.q_bytes + rq->q.hdrm_bytes;
	v = dc_rv_arrival(pp, &rv->pool, &rq->q, cls, o->len, &pause);
	o->thresh = dc_rv_gamma_of(pp, &rv->pool, cls) >> DC_Q16_SHIFT;
	o->x[0] = cls;
	if (pause)
		__sync_fetch_and_add(&rq->pauses, 1);
	if (cls == DC_RV_LOSSLESS) {
		dc_pfc_note(key, rq->q.paused, pause);
		if (pause)
			dc_rv_mark(rv, key);
		/* where the packet went, for the re-test (a FIFO port only) */
		eg = o->pid & (DC_SW_PORTS_MAX - 1);
		port = bpf_map_lookup_elem(&dc_sw_port, &eg);
		if (port && meta->nqueues <= 1 && (v == DC_RV_SHARED || v == DC_RV_HEADROOM))
			dc_rv_pos_note(&rv->pos[key], had, eg, port->tx_bytes, port->qlen_bytes,
				       o->len);
	}
	switch (v) {
	case DC_RV_SHARED:
		return DC_V_ADMIT;
	case DC_RV_HEADROOM:
		__sync_fetch_and_add(&rq->hdrm_pkts, 1);
		return DC_V_ADMIT;
	case DC_RV_DROP_THRESH:
		return DC_V_DROP_THRESH;
	case DC_RV_DROP_HDRM:
		__sync_fetch_and_add(&rq->hdrm_drops, 1);
		return DC_V_DROP_FULL;
	default:
		return DC_V_DROP_FULL;
	}
}

/*
 * The re-test at an arrival (XDP, after dc_rv_path): a function of its
 * own so that its loop's frame is not stacked on dc_rv_path's (the
 * verifier sums the frames of a call chain).
 */
__noinline int dc_rv_retest_xdp(void)
{
	const struct dc_sw_meta *meta;
	const struct dc_sw_cfg *cfg;
	struct dc_sw_rv *rv;
	__u32 zero = 0, slot;

	meta = bpf_map_lookup_elem(&dc_sw_meta, &zero);
	rv = bpf_map_lookup_elem(&dc_sw_rv, &zero);
	if (!meta || !rv)
		return 0;
	slot = meta->cfg_slot & 1;
	cfg = bpf_map_lookup_elem(&dc_sw_cfg, &slot);
	if (cfg)
		dc_rv_retest_all(rv, cfg);
	return 0;
}

/* Every count back to zero: the buffer is empty (the qdiscs of all
 * ports hold nothing), so whatever the counts still say was lost to a
 * race between CPUs or to a packet dropped after admission.  A paused
 * queue with nothing left resumes. */
struct dc_rv_zero_ctx {
	struct dc_sw_rv *rv;
};

static long dc_rv_zero_one(__u32 i, void *data)
{
	struct dc_rv_zero_ctx *x = data;
	struct dc_sw_rv *rv = x->rv;
	struct dc_sw_rvq *r;

	if (!rv)
		return 1;
	i &= DC_SW_PORTS_MAX * DC_SW_PRIOS - 1;
	r = &rv->in[i];
	if (r->q.paused)
		__sync_fetch_and_add(&r->resumes, 1);
	dc_pfc_note(i, 0, false);
	__builtin_memset(&r->q, 0, sizeof(r->q));
	__builtin_memset(&rv->eg[i].q, 0, sizeof(rv->eg[i].q));
	return 0;
}

static __always_inline void dc_rv_reset(struct dc_sw_rv *rv)
{
	struct dc_rv_zero_ctx x = { .rv = rv };

	/* nothing counted and no queue that may be paused: nothing to do (a
	 * queue left paused by a race with the pool's counts at zero is
	 * released here too: its retest bit is set) */
	if (!rv->pool.q_shared && !rv->pool.hdrm_used && !rv->pool.n_q16[0] && !rv->pool.n_q16[1] &&
	    !rv->retest_mask[0] && !rv->retest_mask[1])
		return;
	bpf_loop(DC_SW_PORTS_MAX * DC_SW_PRIOS, dc_rv_zero_one, &x, 0);
	__builtin_memset(&rv->pool, 0, sizeof(rv->pool));
	rv->resets++;
}

#define DC_RV_BULK_MAX 8	/* as the tracker: skbs of one bulk dequeue followed */

/*
 * One skb the egress port's root qdisc gave out: its class from its DSCP
 * (the same dscp_prio and lossless tables as at admission), its queue
 * from skb_iif (the switch port it came in on: a lossless queue) or the
 * egress port (lossy), its length skb->len — what XDP counted, the
 * Ethernet header included.  Then the core's departure: headroom first,
 * the filter step, the resume test.
 */
static __always_inline void dc_rv_depart(struct dc_sw_rv *rv, const struct dc_sw_cfg *cfg,
					 struct sk_buff *skb, __u32 port)
{
	struct dc_rv_params p, *pp;
	struct dc_sw_rvq *rq;
	__u32 prio, cls, key, iif, d, *inp;
	unsigned char *head;
	__u16 nh, proto;
	__u8 b[2] = {};

	head = skb->head;
	nh = skb->network_header;
	proto = skb->protocol;
	if (proto == bpf_htons(ETH_P_IP)) {
		bpf_probe_read_kernel(b, 2, head + nh);
		prio = cfg->dscp_prio[(b[1] >> 2) & 63] & DC_SW_DSCP_PRIO_MASK;
	} else if (proto == bpf_htons(ETH_P_IPV6)) {
		bpf_probe_read_kernel(b, 2, head + nh);
		d = (b[0] << 2) | (b[1] >> 6);
		dc_opaque(d);	/* masked after the OR: 6.1 loses its bound */
		prio = cfg->dscp_prio[d & 63] & DC_SW_DSCP_PRIO_MASK;
	} else {
		return;
	}
	prio &= DC_SW_PRIOS - 1;
	cls = cfg->rv.lossless[prio] ? DC_RV_LOSSLESS : DC_RV_LOSSY;
	key = port;
	if (cls == DC_RV_LOSSLESS) {
		iif = (__u32)skb->skb_iif;
		inp = bpf_map_lookup_elem(&dc_sw_ifport, &iif);
		if (inp)
			key = *inp;
		else
			cls = DC_RV_LOSSY;
	}
	key = dc_rvkey(key, prio);
	rq = cls == DC_RV_LOSSLESS ? &rv->in[key] : &rv->eg[key];
	pp = &p;
	dc_opaque(pp);
	dc_rv_params_of(cfg, pp);
	if (dc_rv_departure(pp, &rv->pool, &rq->q, cls, skb->len))
		__sync_fetch_and_add(&rq->resumes, 1);
	if (cls == DC_RV_LOSSLESS)
		dc_pfc_note(key, rq->q.paused, false);
}

/* The tracker's part: every skb of a dequeue (a bulk dequeue hands out a
 * list), an skb given out twice without an enqueue between (requeued)
 * counted once (dc_lossless_enq); an empty buffer resets the counts. */
static __always_inline void dc_rv_track(const struct dc_sw_cfg *cfg, const struct dc_sw_state *st,
					struct sk_buff *skb, int packets, __u32 port)
{
	struct dc_sw_rv *rv;
	__u32 zero = 0;
	int i;

	rv = bpf_map_lookup_elem(&dc_sw_rv, &zero);
	if (!rv)
		return;
	port &= DC_SW_PORTS_MAX - 1;
	for (i = 0; i < DC_RV_BULK_MAX && i < packets && skb; i++) {
		if (rv->deq_skb[port] != (__u64)skb) {
			rv->deq_skb[port] = (__u64)skb;
			dc_rv_depart(rv, cfg, skb, port);
		}
		skb = skb->next;
	}
	if (!st->occupancy_bytes)
		dc_rv_reset(rv);
	dc_rv_retest_all(rv, cfg);
}

/*
 * An enqueue on the port: the next skb its root gives out is a new one,
 * even at the address of the last (freed and allocated again, which the
 * slab does all the time).  Only an skb given out twice with no enqueue
 * between (requeued: the device was busy) is skipped at the dequeue.
 */
static __always_inline void dc_lossless_enq(__u32 port)
{
	struct dc_sw_sonic *so;
	struct dc_sw_rv *rv;
	__u32 zero = 0;

	port &= DC_SW_PORTS_MAX - 1;
	rv = bpf_map_lookup_elem(&dc_sw_rv, &zero);
	if (rv && rv->deq_skb[port])
		rv->deq_skb[port] = 0;
	so = bpf_map_lookup_elem(&dc_sw_sonic, &zero);
	if (so && so->deq_skb[port])
		so->deq_skb[port] = 0;
}

/* ---- the SONiC model (alg sonic) ------------------------------------------- */

/* The core's parameters: the heuristics' pools around the configured
 * headroom and the two DT α (struct dc_sw_sonic in switch.h). */
static __always_inline void dc_sonic_params_of(const struct dc_sw_cfg *cfg,
					       struct dc_sonic_params *p)
{
	const struct dc_sw_rv_cfg *r = &cfg->rv;
	__u64 b = cfg->buffer_bytes, h = r->hdrm_pool_bytes;

	dc_sonic_defaults(p, b, r->hdrm_bytes, 0, r->alpha_q16[DC_RV_LOSSLESS],
			  r->alpha_q16[DC_RV_LOSSY]);
	p->hdrm_pool_bytes = h;
	p->in_pool_bytes = h < b ? b - h : 0;
	p->eg_pool_bytes[DC_RV_LOSSY] = (p->in_pool_bytes * DC_SONIC_EG_LOSSY_FRAC_Q16) >>
					DC_Q16_SHIFT;
	p->xon_offset_bytes = r->xon_bytes;
}

/*
 * One arrival under SONiC: counted at ingress (source port, priority) and
 * egress (destination port, priority), admitted only if both DTs admit;
 * a lossless queue over its ingress threshold PAUSEs into its headroom.
 * thresh out: the egress threshold of a lossy packet, the ingress one of
 * a lossless packet.  A global function like dc_rv_path.
 */
__noinline int dc_sonic_path(struct dc_cred_io *o)
{
	const struct dc_sw_meta *meta;
	const struct dc_sw_cfg *cfg;
	struct dc_sonic_params p, *pp;
	struct dc_sw_sonicq *iq;
	struct dc_sw_sonic *so;
	__u32 zero = 0, slot, prio, cls, ik, ek, inif, *inp;
	enum dc_sonic_verdict v;
	bool pause;

	if (!o)
		return DC_V_ADMIT;
	meta = bpf_map_lookup_elem(&dc_sw_meta, &zero);
	so = bpf_map_lookup_elem(&dc_sw_sonic, &zero);
	if (!meta || !so)
		return DC_V_ADMIT;
	slot = meta->cfg_slot & 1;
	cfg = bpf_map_lookup_elem(&dc_sw_cfg, &slot);
	if (!cfg)
		return DC_V_ADMIT;
	prio = o->x[DC_RV_IO_PRIO] & (DC_SW_PRIOS - 1);
	cls = cfg->rv.lossless[prio] ? DC_RV_LOSSLESS : DC_RV_LOSSY;
	inif = o->x[DC_RV_IO_INIF];
	inp = bpf_map_lookup_elem(&dc_sw_ifport, &inif);
	/* from no switch port: counted at the egress port's own ingress
	 * counter, lossy (no upstream to pause) */
	ik = inp ? *inp : o->pid;
	if (!inp)
		cls = DC_RV_LOSSY;
	ik = dc_rvkey(ik, prio);
	ek = dc_rvkey(o->pid, prio);
	iq = &so->in[ik];
	pp = &p;
	dc_opaque(pp);
	dc_sonic_params_of(cfg, pp);
	v = dc_sonic_arrival(pp, &so->pools, &iq->iq, &so->eg_bytes[ek], cls, o->len, &pause);
	o->thresh = cls == DC_RV_LOSSLESS ?
			    dc_dt_threshold(pp->in_pool_bytes, so->pools.in_occ,
					    pp->alpha_in_q16[DC_RV_LOSSLESS]) :
			    dc_dt_threshold(pp->eg_pool_bytes[DC_RV_LOSSY],
					    so->pools.eg_occ[DC_RV_LOSSY], pp->alpha_eg_q16[DC_RV_LOSSY]);
	if (pause)
		__sync_fetch_and_add(&iq->pauses, 1);
	if (cls == DC_RV_LOSSLESS)
		dc_pfc_note(ik, iq->iq.paused, pause);
	switch (v) {
	case DC_SONIC_INGRESS:
		return DC_V_ADMIT;
	case DC_SONIC_HEADROOM:
		__sync_fetch_and_add(&iq->hdrm_pkts, 1);
		return DC_V_ADMIT;
	case DC_SONIC_DROP_HDRM:
		__sync_fetch_and_add(&iq->hdrm_drops, 1);
		return DC_V_DROP_FULL;
	default:
		return DC_V_DROP_THRESH;
	}
}

struct dc_sonic_zero_ctx {
	struct dc_sw_sonic *so;
};

static long dc_sonic_zero_one(__u32 i, void *data)
{
	struct dc_sonic_zero_ctx *x = data;
	struct dc_sw_sonic *so = x->so;
	struct dc_sw_sonicq *r;

	if (!so)
		return 1;
	i &= DC_SW_PORTS_MAX * DC_SW_PRIOS - 1;
	r = &so->in[i];
	if (r->iq.paused)
		__sync_fetch_and_add(&r->resumes, 1);
	dc_pfc_note(i, 0, false);
	__builtin_memset(&r->iq, 0, sizeof(r->iq));
	so->eg_bytes[i] = 0;
	return 0;
}

/* One skb the egress port gave out (as dc_rv_depart): its ingress and
 * egress counters, headroom first, the resume test. */
static __always_inline void dc_sonic_depart(struct dc_sw_sonic *so, const struct dc_sw_cfg *cfg,
					    struct sk_buff *skb, __u32 port)
{
	struct dc_sonic_params p, *pp;
	struct dc_sw_sonicq *iq;
	__u32 prio, cls, ik, ek, iif, d, *inp;
	unsigned char *head;
	__u16 nh, proto;
	__u8 b[2] = {};

	head = skb->head;
	nh = skb->network_header;
	proto = skb->protocol;
	if (proto == bpf_htons(ETH_P_IP)) {
		bpf_probe_read_kernel(b, 2, head + nh);
		prio = cfg->dscp_prio[(b[1] >> 2) & 63] & DC_SW_DSCP_PRIO_MASK;
	} else if (proto == bpf_htons(ETH_P_IPV6)) {
		bpf_probe_read_kernel(b, 2, head + nh);
		d = (b[0] << 2) | (b[1] >> 6);
		dc_opaque(d);	/* masked after the OR: 6.1 loses its bound */
		prio = cfg->dscp_prio[d & 63] & DC_SW_DSCP_PRIO_MASK;
	} else {
		return;
	}
	prio &= DC_SW_PRIOS - 1;
	cls = cfg->rv.lossless[prio] ? DC_RV_LOSSLESS : DC_RV_LOSSY;
	iif = (__u32)skb->skb_iif;
	inp = bpf_map_lookup_elem(&dc_sw_ifport, &iif);
	ik = inp ? *inp : port;
	if (!inp)
		cls = DC_RV_LOSSY;
	ik = dc_rvkey(ik, prio);
	ek = dc_rvkey(port, prio);
	iq = &so->in[ik];
	pp = &p;
	dc_opaque(pp);
	dc_sonic_params_of(cfg, pp);
	if (dc_sonic_departure(pp, &so->pools, &iq->iq, &so->eg_bytes[ek], cls, skb->len))
		__sync_fetch_and_add(&iq->resumes, 1);
	if (cls == DC_RV_LOSSLESS)
		dc_pfc_note(ik, iq->iq.paused, false);
}

static __always_inline void dc_sonic_track(const struct dc_sw_cfg *cfg,
					   const struct dc_sw_state *st, struct sk_buff *skb,
					   int packets, __u32 port)
{
	struct dc_sonic_zero_ctx x;
	struct dc_sw_sonic *so;
	__u32 zero = 0;
	int i;

	so = bpf_map_lookup_elem(&dc_sw_sonic, &zero);
	if (!so)
		return;
	port &= DC_SW_PORTS_MAX - 1;
	for (i = 0; i < DC_RV_BULK_MAX && i < packets && skb; i++) {
		if (so->deq_skb[port] != (__u64)skb) {
			so->deq_skb[port] = (__u64)skb;
			dc_sonic_depart(so, cfg, skb, port);
		}
		skb = skb->next;
	}
	if (st->occupancy_bytes || (!so->pools.in_occ && !so->pools.hdrm_used &&
				    !so->pools.eg_occ[0] && !so->pools.eg_occ[1]))
		return;
	x.so = so;
	bpf_loop(DC_SW_PORTS_MAX * DC_SW_PRIOS, dc_sonic_zero_one, &x, 0);
	__builtin_memset(&so->pools, 0, sizeof(so->pools));
	so->resets++;
}

#endif
