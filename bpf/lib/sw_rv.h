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

/* dc_cred_io carries Reverie's inputs beside q, len, pid (the egress
 * port): the ingress ifindex and the priority. */
#define DC_RV_IO_INIF 1
#define DC_RV_IO_PRIO 2

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
	struct dc_sw_rvq *rq;
	struct dc_sw_rv *rv;
	__u32 zero = 0, slot, prio, cls, key, inif, *inp;
	enum dc_rv_verdict v;
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
	key = (key & (DC_SW_PORTS_MAX - 1)) * DC_SW_PRIOS + prio;
	rq = cls == DC_RV_LOSSLESS ? &rv->in[key & (DC_SW_PORTS_MAX * DC_SW_PRIOS - 1)] :
				     &rv->eg[key & (DC_SW_PORTS_MAX * DC_SW_PRIOS - 1)];
	/* through an opaque pointer: on a known stack address clang forms
	 * &p.alpha_q16[cls] with an OR, which the verifier refuses */
	pp = &p;
	dc_opaque(pp);
	dc_rv_params_of(cfg, pp);
	v = dc_rv_arrival(pp, &rv->pool, &rq->q, cls, o->len, &pause);
	o->thresh = dc_rv_gamma_of(pp, &rv->pool, cls) >> DC_Q16_SHIFT;
	o->x[0] = cls;
	if (pause)
		__sync_fetch_and_add(&rq->pauses, 1);
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
	__builtin_memset(&r->q, 0, sizeof(r->q));
	__builtin_memset(&rv->eg[i].q, 0, sizeof(rv->eg[i].q));
	return 0;
}

static __always_inline void dc_rv_reset(struct dc_sw_rv *rv)
{
	struct dc_rv_zero_ctx x = { .rv = rv };

	if (!rv->pool.q_shared && !rv->pool.hdrm_used && !rv->pool.n_q16[0] && !rv->pool.n_q16[1])
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
	__u32 prio, cls, key, iif, *inp;
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
		prio = cfg->dscp_prio[((b[0] << 2) | (b[1] >> 6)) & 63] & DC_SW_DSCP_PRIO_MASK;
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
	key = ((key & (DC_SW_PORTS_MAX - 1)) * DC_SW_PRIOS + prio) &
	      (DC_SW_PORTS_MAX * DC_SW_PRIOS - 1);
	rq = cls == DC_RV_LOSSLESS ? &rv->in[key] : &rv->eg[key];
	pp = &p;
	dc_opaque(pp);
	dc_rv_params_of(cfg, pp);
	if (dc_rv_departure(pp, &rv->pool, &rq->q, cls, skb->len))
		__sync_fetch_and_add(&rq->resumes, 1);
}

/* The tracker's part: every skb of a dequeue (a bulk dequeue hands out a
 * list), an skb given out twice (requeued) counted once; an empty buffer
 * resets the counts. */
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
}

#endif
