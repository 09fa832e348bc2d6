/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The switch's queue tracker: per (port, queue) backlog from the qdisc
 * tracepoints, ABM's per-period update, the reconciliation with the
 * port's real backlog.
 * Part of bpf/switch.bpf.c, included at its place there: it uses that
 * file's maps, constants and helpers.
 */
#ifndef DCBPF_BPF_SW_TRACK_H
#define DCBPF_BPF_SW_TRACK_H

/*
 * ABM's periodic update (Eq. 4.9 inputs): γ of every port from the bytes
 * it sent in the period, then n_p = the number of queues at ≥ 0.9 of
 * their threshold.  Runs on one CPU per period (the caller won a
 * compare-and-swap on abm_last_ns).
 */
struct dc_abm_ctx {
	const struct dc_sw_cfg *cfg;
	__u64 Q, dt_ns;
	__u32 n_old, cong;
};

/* One port of the update (bpf_loop callback: verified once, not per port). */
static long dc_abm_port(__u32 i, void *data)
{
	struct dc_abm_ctx *c = data;
	struct dc_sw_port *p = bpf_map_lookup_elem(&dc_sw_port, &i);
	const struct dc_sw_cfg *cfg = c->cfg;
	__u64 tx, ql;

	if (!p || !p->rate_mbps || !cfg)
		return 0;
	tx = p->tx_bytes;
	ql = p->qlen_bytes;
	p->gamma_q16 = c->dt_ns ? dc_abm_gamma_q16(tx - p->win_tx_bytes, c->dt_ns, p->rate_mbps,
						  ql || p->win_qlen_bytes) :
				  (__u32)DC_Q16_ONE;
	p->win_tx_bytes = tx;
	p->win_qlen_bytes = ql;
	if (dc_abm_congested(ql, dc_abm_threshold(cfg->buffer_bytes, c->Q, cfg->alpha_q16[0],
						  c->n_old, p->gamma_q16)))
		c->cong++;
	return 0;
}

/*
 * The same per (port, queue) when the ports have strict-priority queues:
 * γ of each queue from the bytes its leaf gave out over the port's rate,
 * and n_p per priority class: the congested queues of class k, each
 * tested against its own threshold (α of priority k, its class's previous
 * n_p, its γ).  ABM, SIGCOMM'22, Eq. 4.9: n_p counts "congested queues of
 * priority p".
 */
struct dc_abmq_ctx {
	const struct dc_sw_cfg *cfg;
	const struct dc_sw_state *st;
	__u64 Q, dt_ns;
	__u32 nq;
	__u32 cong[DC_SW_QUEUES_MAX];
};

static long dc_abm_queue(__u32 i, void *data)
{
	struct dc_abmq_ctx *c = data;
	const struct dc_sw_cfg *cfg = c->cfg;
	__u32 pid = i / DC_SW_QUEUES_MAX, k = i % DC_SW_QUEUES_MAX, key = i;
	const struct dc_sw_port *p;
	struct dc_sw_queue *r;
	__u64 tx, ql;

	if (!cfg || !c->st || k >= c->nq)
		return 0;
	p = bpf_map_lookup_elem(&dc_sw_port, &pid);
	r = bpf_map_lookup_elem(&dc_sw_queue, &key);
	if (!p || !r || !p->rate_mbps)
		return 0;
	tx = r->tx_bytes;
	ql = r->qlen_bytes;
	r->gamma_q16 = c->dt_ns ? dc_abm_gamma_q16(tx - r->win_tx_bytes, c->dt_ns, p->rate_mbps,
						  ql || r->win_qlen_bytes) :
				  (__u32)DC_Q16_ONE;
	r->win_tx_bytes = tx;
	r->win_qlen_bytes = ql;
	if (dc_abm_congested(ql, dc_abm_threshold(cfg->buffer_bytes, c->Q, cfg->alpha_q16[k],
						  c->st->abm_congested_q[k], r->gamma_q16)))
		c->cong[k]++;
	return 0;
}

static __always_inline void dc_abm_update(struct dc_sw_state *st, const struct dc_sw_cfg *cfg,
					  __u64 dt_ns, __u32 nq)
{
	struct dc_abm_ctx c = {
		.cfg = cfg,
		.Q = st->occupancy_bytes,
		.dt_ns = dt_ns,
		.n_old = dc_abm_n(st->abm_congested),
	};

	if (nq > 1) {
		struct dc_abmq_ctx x = { .cfg = cfg, .st = st, .Q = c.Q, .dt_ns = dt_ns, .nq = nq };
		__u32 k;

		bpf_loop(DC_SW_QREC_ENTRIES, dc_abm_queue, &x, 0);
		for (k = 0; k < DC_SW_QUEUES_MAX; k++)
			st->abm_congested_q[k] = dc_abm_n(x.cong[k]);
	} else {
		bpf_loop(DC_SW_PORTS_MAX, dc_abm_port, &c, 0);
		st->abm_congested = dc_abm_n(c.cong);
	}
	__sync_fetch_and_add(&st->abm_updates, 1);
}

/*
 * Strict-priority queues: follow each HTB leaf's backlog from the skbs
 * the root takes in and gives out (admit.h dc_qtrack_step: skb->priority
 * names the leaf, qdisc_skb_cb's pkt_len is what the leaf counted).  The
 * root's lock serialises one port's events, so plain stores suffice.
 */
static __always_inline void dc_track_skb(struct sk_buff *skb, __u32 port, __u32 nq, bool deq,
					 __u64 backlog, __u64 now)
{
	struct dc_sw_queue *r;
	__u32 len = 0, key;

	if (!skb)
		return;
	/* qdisc_skb_cb(skb)->pkt_len: the first word of skb->cb */
	bpf_probe_read_kernel(&len, sizeof(len), &skb->cb[0]);
	key = dc_qrec_key(port, dc_queue_of_classid(skb->priority, nq));
	r = bpf_map_lookup_elem(&dc_sw_queue, &key);
	if (!r)
		return;
	/* An skb the root puts back without an enqueue event (the device
	 * busy: dev_requeue_skb; its tx queue stopped: the bad-txq slot)
	 * comes out of the root a second time, but it left its leaf once.
	 * Without this the leaf read 16-40 kB low under a saturating flow.
	 * (A freed skb's address can come back for the next packet: the
	 * leaf's tx then reads a few % low, docs/admission.md.) */
	if (deq) {
		if (r->deq_skb == (__u64)skb) {
			r->last_ns = now;
			return;
		}
		r->deq_skb = (__u64)skb;
	}
	r->qlen_bytes = dc_qtrack_step(r->qlen_bytes, len, deq, backlog);
	if (deq) {
		r->qlen_pkts = r->qlen_pkts ? r->qlen_pkts - 1 : 0;
		r->tx_bytes += len;
		r->tx_pkts++;
	} else {
		r->qlen_pkts++;
	}
	r->last_ns = now;
}

/* An empty port empties its queues (a missed event cannot outlive it). */
static __always_inline void dc_track_empty(__u32 port, __u32 nq)
{
	struct dc_sw_queue *r;
	__u32 k, key;

	for (k = 0; k < DC_SW_QUEUES_MAX && k < nq; k++) {
		key = dc_qrec_key(port, k);
		r = bpf_map_lookup_elem(&dc_sw_queue, &key);
		if (r && (r->qlen_bytes || r->qlen_pkts)) {
			r->qlen_bytes = 0;
			r->qlen_pkts = 0;
		}
	}
}

#define DC_DEQ_BULK_MAX 8	/* skbs of one bulk dequeue followed (skb->next) */

/* The records' sum re-anchored on the port's backlog (admit.h
 * dc_qtrack_reconcile): what the tracer missed or saw twice goes to the
 * lowest non-empty queue. */
static __always_inline void dc_track_reconcile(__u32 port, __u32 nq, __u64 backlog)
{
	__u64 ql[DC_SW_QUEUES_MAX] = {};
	struct dc_sw_queue *r;
	__u32 k, key;

	for (k = 0; k < DC_SW_QUEUES_MAX && k < nq; k++) {
		key = dc_qrec_key(port, k);
		r = bpf_map_lookup_elem(&dc_sw_queue, &key);
		if (!r)
			return;
		ql[k] = r->qlen_bytes;
	}
	if (!dc_qtrack_reconcile(ql, nq, backlog))
		return;
	for (k = 0; k < DC_SW_QUEUES_MAX && k < nq; k++) {
		key = dc_qrec_key(port, k);
		r = bpf_map_lookup_elem(&dc_sw_queue, &key);
		if (r && r->qlen_bytes != ql[k])
			r->qlen_bytes = ql[k];
	}
}

static __always_inline void dc_track_queues(struct sk_buff *skb, int packets, __u32 port, __u32 nq,
					    bool deq, __u64 backlog, __u64 now)
{
	int i;

	/* a dequeue that empties the port still counts toward its leaf's tx
	 * (on a port that keeps up, nearly every one does) */
	if (!deq) {
		dc_track_skb(skb, port, nq, false, backlog, now);
	} else {
		for (i = 0; i < DC_DEQ_BULK_MAX && i < packets && skb; i++) {
			dc_track_skb(skb, port, nq, true, backlog, now);
			skb = skb->next;
		}
	}
	if (!backlog) {
		dc_track_empty(port, nq);
		return;
	}
	dc_track_reconcile(port, nq, backlog);
}

/*
 * Copy the root qdisc's backlog and counters of a switch port into its
 * record.  Q stays Σ port backlog under any interleaving of CPUs: the
 * port value is swapped in atomically and exactly the difference to the
 * value it replaced is added to Q.
 */
static __always_inline void dc_track(struct Qdisc *q, const struct netdev_queue *txq, bool deq,
				     struct sk_buff *skb, int packets)
{
	const struct dc_sw_meta *meta;
	struct dc_sw_state *st;
	struct dc_sw_port *p;
	struct net_device *dev;
	struct net *net;
	__u32 ifindex, zero = 0, *pid;
	__u64 backlog, qlen, bytes = 0, pkts = 0, old, now;

	/* The filter runs for every qdisc event of every namespace, once per
	 * switch: plain loads through the tracepoint's BTF pointers (the
	 * verifier makes them fault-safe), not bpf_probe_read_kernel calls,
	 * which cost a helper call each. */
	if (!txq)
		return;
	dev = txq->dev;
	if (!dev)
		return;
	net = dev->nd_net.net;
	if (!net || net->ns.inum != dc_netns_ino)
		return;
	if (q->parent != TC_H_ROOT)
		return;
	ifindex = dev->ifindex;
	pid = bpf_map_lookup_elem(&dc_sw_ifport, &ifindex);
	if (!pid)
		return;
	p = bpf_map_lookup_elem(&dc_sw_port, pid);
	st = bpf_map_lookup_elem(&dc_sw_state, &zero);
	if (!p || !st)
		return;
	backlog = q->qstats.backlog;
	qlen = q->q.qlen;
	/* u64_stats_t is one 64-bit word on 64-bit kernels (6.1 and 6.18) */
	bpf_core_read(&bytes, sizeof(bytes), &q->bstats.bytes);
	bpf_core_read(&pkts, sizeof(pkts), &q->bstats.packets);
	now = bpf_ktime_get_ns();

	old = __sync_lock_test_and_set(&p->qlen_bytes, backlog);
	if (old != backlog)
		__sync_fetch_and_add(&st->occupancy_bytes, backlog - old);
	old = __sync_lock_test_and_set(&p->qlen_pkts, qlen);
	if (old != qlen)
		__sync_fetch_and_add(&st->occupancy_pkts, qlen - old);
	p->tx_bytes = bytes;
	p->tx_pkts = pkts;
	p->last_ns = now;

	meta = bpf_map_lookup_elem(&dc_sw_meta, &zero);
	if (!meta)
		return;
	if (meta->nqueues > 1)
		dc_track_queues(skb, packets, *pid, meta->nqueues, deq, backlog, now);
	if (!deq) {
		dc_lossless_enq(*pid);
		return;
	}
	{
		const struct dc_sw_cfg *cfg;
		__u32 slot;
		__u64 last = st->abm_last_ns, period;

		slot = meta->cfg_slot & 1;
		cfg = bpf_map_lookup_elem(&dc_sw_cfg, &slot);
		if (!cfg)
			return;
		if (cfg->alg == DC_ALG_REVERIE)
			dc_rv_track(cfg, st, skb, packets, *pid);
		else if (cfg->alg == DC_ALG_SONIC)
			dc_sonic_track(cfg, st, skb, packets, *pid);
		period = (__u64)cfg->abm_period_us * 1000;
		if (now - last < period)
			return;
		if (__sync_val_compare_and_swap(&st->abm_last_ns, last, now) != last)
			return;
		/* a gap of many periods (idle switch) is not a measurement */
		dc_abm_update(st, cfg, last && now - last <= 4 * period ? now - last : 0,
			      meta->nqueues);
	}
}

/*
 * Attached at: tracepoint qdisc:qdisc_enqueue (tp_btf), pinned link.
 * Runs when: any root qdisc of any namespace enqueued a packet; acts only
 * for root qdiscs of this switch's ports.
 */

#endif
