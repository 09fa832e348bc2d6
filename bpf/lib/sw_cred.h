/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The switch's per-port searches for Credence, FollowLQD and SmartBuf
 * (bpf_loop callbacks: longest queue, victim, room, k-NN) and their
 * calls from the admission program.
 * Part of bpf/switch.bpf.c, included at its place there: it uses that
 * file's maps, constants and helpers.
 */
#ifndef DCBPF_BPF_SW_CRED_H
#define DCBPF_BPF_SW_CRED_H

/* Longest real queue, for Credence's safeguard when the bounds in
 * dc_cred_longest_bound leave it open.  Other ports' records are taken
 * as they are (no staleness correction: the safeguard is a heuristic
 * bound, and a stale queue only makes it more conservative). */
static long dc_longest_one(__u32 j, void *data)
{
	__u64 *m = data;
	const struct dc_sw_port *p = bpf_map_lookup_elem(&dc_sw_port, &j);

	if (p && p->qlen_bytes > *m)
		*m = p->qlen_bytes;
	return 0;
}

static __always_inline __u64 dc_longest_queue(void)
{
	__u64 m = 0;

	bpf_loop(DC_SW_PORTS_MAX, dc_longest_one, &m, 0);
	return m;
}

/*
 * The virtual LQD's search for room in bpf_loop callbacks (admit.h
 * dc_cred_room_step = victim search + dc_cred_room_apply): verified once
 * each, where the unrolled search forks the verifier per candidate victim
 * and per round beyond its limit.
 */
struct dc_victim_ctx {
	const __u64 *T;
	__u64 best;
	__u32 arriving, victim;
};

static long dc_victim_one(__u32 j, void *data)
{
	struct dc_victim_ctx *v = data;
	const struct dc_sw_cred *c = (const void *)v->T;

	if (!c)
		return 1;
	dc_lqd_victim_step(c->T_bytes, j & (DC_SW_PORTS_MAX - 1), v->arriving, &v->best, &v->victim);
	return 0;
}

struct dc_room_ctx {
	struct dc_sw_cred *c;
	__u64 B;
	__u32 i, len;
	enum dc_cred_room r;
};

static long dc_room_round(__u32 k, void *data)
{
	struct dc_room_ctx *x = data;
	struct dc_sw_cred *c = x->c;
	struct dc_victim_ctx v;
	__u32 i = x->i & (DC_SW_PORTS_MAX - 1);

	if (!c)
		return 1;
	if (c->gamma_bytes + x->len <= x->B) {
		x->r = DC_CRED_ROOM;
		return 1;
	}
	v.T = c->T_bytes;
	v.best = c->T_bytes[i] + x->len;
	v.arriving = i;
	v.victim = i;
	bpf_loop(DC_SW_PORTS_MAX, dc_victim_one, &v, 0);
	x->r = dc_cred_room_apply(c->T_bytes, &c->gamma_bytes, i, v.victim & (DC_SW_PORTS_MAX - 1),
				  x->B, x->len);
	return x->r != DC_CRED_MORE;
}

/* FollowLQD's update (vlqd.h dc_vlqd_arrival with the search in bpf_loop). */
static __always_inline __u64 dc_vlqd_update(struct dc_sw_cred *c, __u32 i, __u32 rate_mbps,
					    __u64 B, __u32 len, __u64 now, __u32 mode, __u64 tx,
					    __u64 q)
{
	struct dc_room_ctx x = { .c = c, .B = B, .i = i, .len = len, .r = DC_CRED_ROOM };

	i &= DC_SW_PORTS_MAX - 1;
	if (dc_vlqd_prepare(c, i, rate_mbps, B, len, now, mode, tx, q, NULL)) {
		x.r = DC_CRED_MORE;
		bpf_loop(DC_SW_PORTS_MAX + 1, dc_room_round, &x, 0);
	}
	if (x.r == DC_CRED_ROOM)
		dc_cred_take(c->T_bytes, &c->gamma_bytes, i, len);
	return c->T_bytes[i];
}

/* In and out of the Credence / FollowLQD path (scalars only: the path is
 * a global function, which takes a pointer to plain memory). */
struct dc_cred_io {
	__u64 q, Q, B, now;		/* in: q_i, Q (after dc_stale_fix), B, clock */
	__u64 thresh;			/* out: T_i after the arrival */
	__u32 len, pid, alg, rate_mbps;	/* in */
	__u32 x[DC_RF_FEATURES];	/* out: prediction features */
	__u8 safeguard;			/* out: admitted by the B/N safeguard */
	__u8 asked;			/* out: the model was evaluated */
	__u8 nomodel;			/* out: a prediction was due, no model: admitted */
	__u8 drain;			/* in: enum dc_cred_drain */
	__u8 pad[4];
};

/* SmartBuf and EDT reuse struct dc_cred_io (dc_sw_admit's frame has no
 * room for another): q, Q, B, len, pid, alg in; now = the time of the
 * queue sample; x[0] = α of the packet; thresh out. */
#define DC_SB_IO_ALPHA 0

/*
 * Credence and FollowLQD (admit.h steps 1-2, vlqd.h around them): update
 * the virtual LQD, fold the features in, decide, and consult the model
 * only where dc_cred_decide asks.  Without a model Credence admits there
 * (predicts "accept"): it then behaves as FollowLQD plus the safeguard.
 * A global function: the verifier checks it once, not once per path of
 * the parser in front of it.  Returns enum dc_verdict.
 */
__noinline int dc_cred_path(struct dc_cred_io *o)
{
	const struct dc_rf_model *m = NULL;
	const struct dc_sw_meta *meta;
	__u64 period = DC_CRED_EWMA_DEFAULT_NS;
	struct dc_cred_in ci;
	struct dc_sw_cred *c;
	__u32 zero = 0, slot, pid;
	__u64 tx = 0;
	enum dc_verdict v;
	bool ask;

	if (!o)
		return DC_V_ADMIT;
	meta = bpf_map_lookup_elem(&dc_sw_meta, &zero);
	c = bpf_map_lookup_elem(&dc_sw_cred, &zero);
	if (!meta || !c)
		return DC_V_ADMIT;
	if (meta->model_loads) {
		slot = meta->model_slot & 1;
		m = bpf_map_lookup_elem(&dc_sw_model, &slot);
		if (m && m->n_trees && m->ewma_period_ns)
			period = m->ewma_period_ns;
		else
			m = NULL;
	}
	pid = o->pid & (DC_SW_PORTS_MAX - 1);
	/* the departure rules read the port's tx_bytes here, not through
	 * dc_cred_io: dc_sw_admit's frame has no 8 bytes to spare under 6.1's
	 * 512-byte limit for the whole call chain */
	if (o->drain != DC_DRAIN_TIME) {
		const struct dc_sw_port *p;
		__u32 key = pid;

		p = bpf_map_lookup_elem(&dc_sw_port, &key);
		if (p)
			tx = p->tx_bytes;
	}
	ci.T = dc_vlqd_update(c, pid, o->rate_mbps, o->B, o->len, o->now, o->drain, tx, o->q);
	dc_cred_features(c, pid, o->q, o->Q, period, o->now, o->x);
	ci.q = o->q;
	ci.Q = o->Q;
	ci.B = o->B;
	ci.len = o->len;
	ci.n = meta->nports ? meta->nports : 1;
	ci.longest = 0;
	if (o->alg == DC_ALG_CREDENCE) {
		ci.longest = dc_cred_longest_bound(o->q, o->Q, ci.n, o->B);
		if (ci.longest == DC_U64_MAX)
			ci.longest = dc_longest_queue();
	}
	v = dc_cred_decide(o->alg, &ci, &ask);
	o->thresh = ci.T;
	o->safeguard = o->alg == DC_ALG_CREDENCE && v == DC_V_ADMIT && !ask;
	if (ask) {
		if (!m) {
			o->nomodel = 1;
		} else {
			o->asked = 1;
			if (dc_rf_drop_of(m, dc_rf_score_loop(m, o->x)))
				v = DC_V_DROP_PRED;
		}
	}
	return v;
}

/*
 * SmartBuf's scans of Main (include/dcbpf/smartbuf.h: k-NN, then the
 * insert) in bpf_loop callbacks: verified once, not once per entry.
 */
struct dc_sb_scan {
	struct dc_sb_main *m;
	struct dc_sb_knn *k;
	struct dc_sb_ins *ins;
};

static long dc_sb_knn_one(__u32 i, void *data)
{
	struct dc_sb_scan *x = data;

	if (!x->m || !x->k)
		return 1;
	dc_sb_knn_step(x->k, &x->m->e[i & (DC_SB_ENTRIES - 1)]);
	return 0;
}

static long dc_sb_ins_one(__u32 i, void *data)
{
	struct dc_sb_scan *x = data;

	if (!x->m || !x->ins)
		return 1;
	i &= DC_SB_ENTRIES - 1;
	dc_sb_ins_step(x->ins, &x->m->e[i], i);
	return 0;
}

/*
 * SmartBuf and EDT: take the queue sample (the tracker's last event, see
 * dc_sw_admit), learn, then decide with the port's threshold or DT's.
 * A global function like dc_cred_path.  Returns enum dc_verdict.
 */
__noinline int dc_sb_path(struct dc_cred_io *o)
{
	const struct dc_sw_meta *meta;
	const struct dc_sw_cfg *cfg;
	struct dc_sw_sbtmp *tmp;
	struct dc_sw_sbuf *s;
	struct dc_adm_in in;
	__u32 zero = 0, slot, pid;

	if (!o)
		return DC_V_ADMIT;
	meta = bpf_map_lookup_elem(&dc_sw_meta, &zero);
	s = bpf_map_lookup_elem(&dc_sw_sbuf, &zero);
	tmp = bpf_map_lookup_elem(&dc_sw_sbtmp, &zero);
	if (!meta || !s || !tmp)
		return DC_V_ADMIT;
	slot = meta->cfg_slot & 1;
	cfg = bpf_map_lookup_elem(&dc_sw_cfg, &slot);
	if (!cfg)
		return DC_V_ADMIT;
	pid = o->pid & (DC_SW_PORTS_MAX - 1);
	if (o->alg == DC_ALG_EDT) {
		if (dc_edt_sample(&s->edt[pid], &cfg->edt, o->q, o->now))
			__sync_fetch_and_add(&s->samples, 1);
	} else {
		struct dc_sb_step st;

		if (dc_sb_learn(&s->sb[pid], &cfg->sb, o->q, o->now, o->B, &st)) {
			__u64 age = dc_sb_age_ns(&cfg->sb);
			struct dc_sb_scan x = { .m = &s->main };

			__sync_fetch_and_add(&s->samples, 1);
			if (st.act & (DC_SB_ACT_LOOKUP | DC_SB_ACT_RAISE)) {
				dc_sb_knn_init(&tmp->knn, st.g, dc_sb_k(&cfg->sb), o->now, age);
				x.k = &tmp->knn;
				bpf_loop(DC_SB_ENTRIES, dc_sb_knn_one, &x, 0);
				dc_sb_finish(&s->sb[pid], &st, dc_sb_knn_result(&tmp->knn));
				__sync_fetch_and_add(&s->lookups, 1);
			}
			if (st.act & DC_SB_ACT_INSERT) {
				dc_sb_ins_init(&tmp->ins, st.key, o->now, age);
				x.k = NULL;
				x.ins = &tmp->ins;
				bpf_loop(DC_SB_ENTRIES, dc_sb_ins_one, &x, 0);
				dc_sb_ins_write(&s->main.e[dc_sb_ins_slot(&tmp->ins) & (DC_SB_ENTRIES - 1)],
						&tmp->ins, st.max_bytes);
				__sync_fetch_and_add(&s->inserts, 1);
			}
		}
	}
	in.q = o->q;
	in.Q = o->Q;
	in.B = o->B;
	in.len = o->len;
	in.alpha_q16 = o->x[DC_SB_IO_ALPHA];
	return dc_adm_decide_sb(o->alg, &in, &s->sb[pid], &s->edt[pid], &o->thresh);
}

/*
 * Strict-priority queues (admit.h, "Strict-priority queues"): feed the
 * decision the packet's own queue — its HTB leaf's backlog as q, that
 * queue's γ and its priority class's n_p; Q stays the whole buffer.
 * Returns the queue's record key, or DC_QREC_NONE (the port's record
 * stands).  A global function: dc_sw_admit's frame has no room for the
 * record pointer under the 512-byte limit of the call chain.
 */
#define DC_QREC_NONE 0xffffffffU

__noinline int dc_queue_pick(struct dc_adm_in *in, __u32 port, __u32 prio)
{
	const struct dc_sw_state *st;
	const struct dc_sw_meta *meta;
	const struct dc_sw_queue *r;
	__u32 zero = 0, k, key;

	if (!in)
		return (int)DC_QREC_NONE;
	meta = bpf_map_lookup_elem(&dc_sw_meta, &zero);
	st = bpf_map_lookup_elem(&dc_sw_state, &zero);
	if (!meta || !st || meta->nqueues <= 1)
		return (int)DC_QREC_NONE;
	k = dc_queue_of_prio(prio, meta->nqueues) & (DC_SW_QUEUES_MAX - 1);
	key = dc_qrec_key(port & (DC_SW_PORTS_MAX - 1), k);
	r = bpf_map_lookup_elem(&dc_sw_queue, &key);
	if (!r)
		return (int)DC_QREC_NONE;
	in->q = r->qlen_bytes;
	in->gamma_q16 = r->gamma_q16;
	in->n_congested = st->abm_congested_q[k];
	return (int)key;
}

#endif
