// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One emulated switch: buffer admission in XDP and the queue tracker that
 * keeps the shared-buffer state equal to the real qdisc backlog.  Loaded
 * once per switch by `dcbpf switch up` with dc_netns_ino set to the
 * switch's namespace, maps pinned under <pin_dir>/sw/<name>/.
 *
 * Thin by design: parse, find the egress port, call the admission core in
 * include/dcbpf/admit.h, act, count.  Credence and FollowLQD take the
 * global function dc_cred_path (virtual LQD of include/dcbpf/vlqd.h, the
 * forest of bpf/lib/forest.h).  docs/admission.md explains the choices
 * (XDP mode, atomics, ABM period, Credence's drain rule and races).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>

#include "dcbpf/admit.h"
#include "dcbpf/int.h"
#include "maps/switch.h"
#include "lib/count.h"

/* dc_vlqd_sync as a bpf_loop over the ports (vlqd.h calls it through
 * DC_VLQD_SYNC): one verified iteration instead of sixteen that fork. */
struct dc_sync_ctx {
	struct dc_sw_cred *c;
	__u64 now, g;
	__u32 mode;
};

static long dc_sync_port(__u32 j, void *data);

#define DC_VLQD_SYNC(c, now, mode)                                              \
	do {                                                                    \
		struct dc_sync_ctx sx = { .c = (c), .now = (now), .mode = (mode) }; \
		bpf_loop(DC_SW_PORTS_MAX, dc_sync_port, &sx, 0);                \
		(c)->gamma_bytes = sx.g;                                        \
	} while (0)

#include "dcbpf/vlqd.h"
#include "bpf/lib/forest.h"

static long dc_sync_port(__u32 j, void *data)
{
	struct dc_sync_ctx *x = data;
	struct dc_sw_cred *c = x->c;
	struct dc_sw_port *p;
	__u64 tx = 0, q = 0;
	__u32 key = j;

	if (!c)
		return 1;
	j &= DC_SW_PORTS_MAX - 1;
	/* the time rule needs no port record: skip the lookup.  A copy as
	 * the key: j itself on the stack would lose its bound. */
	if (x->mode != DC_DRAIN_TIME) {
		p = bpf_map_lookup_elem(&dc_sw_port, &key);
		if (p) {
			tx = p->tx_bytes;
			q = p->qlen_bytes;
		}
	}
	dc_vlqd_drain(c, j, x->now, x->mode, tx, q);
	x->g += c->T_bytes[j];
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* The switch's network namespace (inode), set by the loader: the qdisc
 * tracepoints fire for every qdisc of every namespace. */
const volatile __u32 dc_netns_ino = 0;

#define ETH_P_IP 0x0800
#define ETH_P_IPV6 0x86DD
#define AF_INET 2
#define AF_INET6 10
#define TC_H_ROOT 0xFFFFFFFFU
#define IP_ECN_MASK 0x03
#define IP_ECN_CE 0x03

static __always_inline void dc_count_other(void)
{
	__u32 k = DC_SW_CNT_OTHER;

	DC_CTR_ADD(dc_sw_cnt, bpf_map_lookup_elem(&dc_sw_cnt, &k), other_pkts, 1);
}

/* Set CE on an ECN-capable IPv4 packet, checksum updated (RFC 1624). */
static __always_inline bool dc_mark_ce(struct iphdr *iph)
{
	__u16 old, new;
	__u32 sum;

	if (!(iph->tos & IP_ECN_MASK) || (iph->tos & IP_ECN_MASK) == IP_ECN_CE)
		return false;
	old = bpf_htons(((__u16)(*(__u8 *)iph) << 8) | iph->tos);
	iph->tos |= IP_ECN_CE;
	new = bpf_htons(((__u16)(*(__u8 *)iph) << 8) | iph->tos);
	sum = (__u16)~iph->check;
	sum += (__u16)~old;
	sum += new;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	iph->check = (__u16)~sum;
	return true;
}

/*
 * A backlog the tracker has not refreshed for DC_SW_STALE_NS while it
 * claims packets are queued is stale: a tracing program is skipped when
 * another one is already running on the CPU (recursion_misses in bpftool
 * prog show), so the port's last dequeue can go unseen, and a stale
 * backlog above the threshold would drop every packet — and with no
 * admitted packet there is no enqueue event to correct it.  The port has
 * drained at least rate · age since then: take that off q and Q.
 */
static __always_inline void dc_stale_fix(const struct dc_sw_port *port, struct dc_adm_in *in,
					 __u64 now)
{
	__u64 age, gone;

	if (!in->q || now <= port->last_ns + DC_SW_STALE_NS)
		return;
	age = now - port->last_ns;
	gone = dc_min_u64(dc_bytes_in_ns(port->rate_mbps, age), in->q);
	in->q -= gone;
	in->Q = in->Q > gone ? in->Q - gone : 0;
}

/*
 * A leaf that steers by Ethereal path tag (bpf/eth_leaf.bpf.c, at TC
 * ingress: after this program) sends a tagged packet up the tag's uplink,
 * not the one the FIB picks; the queue that packet joins — and is marked
 * and admitted against — is that uplink's.  tag_port (sw.NAME.tag_port.T)
 * says which port tag T steers to.  Only a packet the FIB sends up one of
 * those uplinks is moved: traffic towards the leaf's own hosts carries
 * the tag too (INT keeps it) and goes down.  An uplink the steering finds
 * down falls back to routing there; here it keeps the tag's port.
 */
static __always_inline __u32 dc_tag_port(__u32 tag, __u32 fib_port)
{
	const struct dc_sw_meta *meta;
	const struct dc_sw_cfg *cfg;
	__u32 zero = 0, d, j, tp;

	meta = bpf_map_lookup_elem(&dc_sw_meta, &zero);
	if (!meta)
		return fib_port;
	d = meta->cfg_slot & 1;
	cfg = bpf_map_lookup_elem(&dc_sw_cfg, &d);
	if (!cfg)
		return fib_port;
	tp = cfg->tag_port[tag & (DC_SW_TAGS - 1)];
	if (!tp)
		return fib_port;
	for (j = 1; j < DC_SW_TAGS; j++)
		if (cfg->tag_port[j] == fib_port + 1)
			return tp - 1;
	return fib_port;
}

/*
 * Egress port of a destination from the kernel's FIB, remembered in
 * dc_sw_route for DC_SW_ROUTE_TTL_NS (a route change reaches admission
 * accounting within that time; forwarding itself is always the kernel's).
 * Returns -1 when the FIB has no forwarding answer (not cached: such
 * packets are rare and the answer may appear).
 */
static __noinline int dc_route(struct xdp_md *ctx, struct iphdr *iph, struct ipv6hdr *ip6,
			       struct dc_sw_route_key *rk, struct dc_sw_route *out)
{
	struct bpf_fib_lookup fib = {};
	__u32 *pid, ifindex;
	int rc;

	if (iph) {
		fib.family = AF_INET;
		fib.tos = iph->tos;
		fib.l4_protocol = iph->protocol;
		fib.ipv4_src = iph->saddr;
		fib.ipv4_dst = iph->daddr;
	} else if (ip6) {
		fib.family = AF_INET6;
		fib.l4_protocol = ip6->nexthdr;
		__builtin_memcpy(fib.ipv6_src, &ip6->saddr, sizeof(fib.ipv6_src));
		__builtin_memcpy(fib.ipv6_dst, &ip6->daddr, sizeof(fib.ipv6_dst));
	} else {
		return -1;
	}
	fib.ifindex = ctx->ingress_ifindex;
	/* tot_len stays 0: generic XDP sees GRO/GSO packets far above the
	 * MTU, and with a length the lookup stops at FRAG_NEEDED before it
	 * names the egress device.  DIRECT: the main table only (the fabric
	 * has no policy rules), the cheaper lookup.  NO_NEIGH still names
	 * the egress device. */
	rc = bpf_fib_lookup(ctx, &fib, sizeof(fib), BPF_FIB_LOOKUP_DIRECT);
	if (rc != BPF_FIB_LKUP_RET_SUCCESS && rc != BPF_FIB_LKUP_RET_NO_NEIGH)
		return -1;
	ifindex = fib.ifindex;
	pid = bpf_map_lookup_elem(&dc_sw_ifport, &ifindex);
	out->port_id = pid ? *pid : DC_SW_PORT_NONE;
	if (rk->daddr[0] && out->port_id != DC_SW_PORT_NONE)
		out->port_id = dc_tag_port(rk->daddr[0], out->port_id);
	out->ifindex = ifindex;
	out->expires_ns = bpf_ktime_get_coarse_ns() + DC_SW_ROUTE_TTL_NS;
	bpf_map_update_elem(&dc_sw_route, rk, out, BPF_ANY);
	return 0;
}

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

/* One record to dc_sw_events; counted in ev_lost when the ring is full
 * (no reader keeping up). */
static __always_inline void dc_emit(struct dc_sw_counters *cnt, __u64 now, __u32 pid, __u32 prio,
				    __u32 len, const struct dc_adm_in *in, __u64 thresh,
				    const struct dc_cred_io *o, enum dc_verdict v, __u32 alg,
				    __u8 flags)
{
	struct dc_sw_event *e = bpf_ringbuf_reserve(&dc_sw_events, sizeof(*e), 0);

	if (!e) {
		DC_CTR_ADD(dc_sw_cnt, cnt, ev_lost, 1);
		return;
	}
	e->time_ns = now;
	e->thresh_bytes = thresh;
	e->len = len;
	e->q_bytes = dc_rf_feat(in->q);
	e->occ_bytes = dc_rf_feat(in->Q);
	e->q_ewma_bytes = o->x[DC_RF_F_QLEN_EWMA];
	e->occ_ewma_bytes = o->x[DC_RF_F_OCC_EWMA];
	e->port = (__u16)pid;
	e->prio = (__u8)prio;
	e->verdict = (__u8)v;
	e->flags = flags;
	e->alg = (__u8)alg;
	__builtin_memset(e->pad, 0, sizeof(e->pad));
	bpf_ringbuf_submit(e, 0);
}

/*
 * Attached at: XDP on every port of the switch (generic mode by default,
 * docs/admission.md says why), via a pinned XDP link.
 * Runs when: a frame arrives on a switch port, before the kernel forwards
 * it.  Finds the egress port with the kernel's FIB and the priority from
 * DSCP, decides with the configured algorithm, passes or drops.  Frames
 * that are not IP, malformed, unroutable or not leaving through a switch
 * port pass untouched.
 *
 * Multi-buffer ("xdp.frags", BPF_F_XDP_HAS_FRAGS, 5.18): native XDP on a
 * veth refuses a peer MTU above about 3.5 kB to a program without it, so
 * a jumbo-frame fabric needs it.  data..data_end is then only the first
 * buffer: every header read below is bounds-checked against it, so a
 * frame whose Ethernet + IP header is not all in the first buffer is
 * "other" (passed untouched, counted).  Admission and the counters take
 * the whole frame (bpf_xdp_get_buff_len), as the qdisc counts it; for a
 * single-buffer frame that is data_end - data, as before.
 */
SEC("xdp.frags")
int dc_sw_admit(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct dc_sw_route_key rk = {};
	struct dc_sw_route nrt, *rt;
	struct ethhdr *eth = data;
	struct iphdr *iph = NULL;
	struct ipv6hdr *ip6 = NULL;
	const struct dc_sw_meta *meta;
	const struct dc_sw_cfg *cfg;
	struct dc_sw_port *port;
	const struct dc_sw_state *st;
	struct dc_sw_counters *cnt;
	struct dc_cred_io co = {};
	struct dc_adm_in in;
	__u32 zero = 0, key, prio, d, alg, pid, every;
	enum dc_verdict v;
	__u64 thresh, now;
	__u8 dscp, evf = 0;
	bool first_rtt, cred;

	/* Called first, while only ctx is live: a helper call further down
	 * would spill registers, and this frame has no bytes to spare under
	 * 6.1's 512-byte limit for the call chain. */
	in.len = (__u32)bpf_xdp_get_buff_len(ctx);
	if ((void *)(eth + 1) > data_end)
		goto other;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		iph = (void *)(eth + 1);
		if ((void *)(iph + 1) > data_end || iph->ihl < 5 || iph->version != 4)
			goto other;
		dscp = iph->tos >> 2;
		rk.daddr[2] = bpf_htonl(0xffff);
		rk.daddr[3] = iph->daddr;
		/* Ethereal's tag (P of our option, first in the options, the
		 * tag-only form included): part of the route key, dc_route
		 * maps it to its uplink */
		if (iph->ihl > 5) {
			__u8 *o = (void *)(iph + 1);

			if ((void *)(o + DC_INT_BASE_LEN) <= data_end && o[0] == DC_INT_OPT_TYPE &&
			    o[1] >= DC_INT_BASE_LEN)
				rk.daddr[0] = dc_int_path(o[3]);
		}
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		ip6 = (void *)(eth + 1);
		if ((void *)(ip6 + 1) > data_end)
			goto other;
		dscp = (__u8)((ip6->priority << 2) | (ip6->flow_lbl[0] >> 6));
		__builtin_memcpy(rk.daddr, &ip6->daddr, sizeof(rk.daddr));
	} else {
		goto other;
	}
	now = bpf_ktime_get_coarse_ns();
	rt = bpf_map_lookup_elem(&dc_sw_route, &rk);
	if (!rt || now > rt->expires_ns) {
		if (dc_route(ctx, iph, ip6, &rk, &nrt))
			goto other;
		rt = &nrt;
	}
	if (rt->port_id == DC_SW_PORT_NONE)
		goto other;
	key = rt->port_id;
	meta = bpf_map_lookup_elem(&dc_sw_meta, &zero);
	st = bpf_map_lookup_elem(&dc_sw_state, &zero);
	port = bpf_map_lookup_elem(&dc_sw_port, &key);
	if (!meta || !st || !port)
		goto other;
	d = meta->cfg_slot & 1;
	cfg = bpf_map_lookup_elem(&dc_sw_cfg, &d);
	if (!cfg)
		goto other;

	/* Bound the index in the same register that indexes: 6.1 loses the
	 * bound of a value spilled across the lookups above. */
	d = dscp;
	dc_opaque(d);
	d &= 63;
	d = cfg->dscp_prio[d];
	prio = d & DC_SW_DSCP_PRIO_MASK;
	first_rtt = d & DC_SW_DSCP_FIRST_RTT;
	alg = cfg->alg;
	in.q = port->qlen_bytes;
	in.gamma_q16 = port->gamma_q16;
	in.n_congested = st->abm_congested;
	/* Strict-priority queues: the packet's own queue (its HTB leaf) is q
	 * (dc_queue_pick); d keeps its record for the threshold below. */
	d = DC_QREC_NONE;
	if (meta->nqueues > 1)
		d = (__u32)dc_queue_pick(&in, key, prio);
	in.Q = st->occupancy_bytes;
	dc_stale_fix(port, &in, now);
	in.B = cfg->buffer_bytes;
	in.alpha_q16 = dc_adm_alpha(alg, cfg->alpha_q16[prio], cfg->alpha_first_rtt_q16, first_rtt);
	if (!in.gamma_q16)
		in.gamma_q16 = (__u32)DC_Q16_ONE;
	/* Credence's virtual queues drain with time and events are replayed
	 * by the simulator: both need the fine clock, the others do not. */
	cred = alg == DC_ALG_CREDENCE || alg == DC_ALG_FOLLOWLQD;
	every = cfg->ev_sample_every;
	if (cfg->ev_drops)
		evf = DC_SW_EV_DROP;
	if (every && (every == 1 || bpf_get_prandom_u32() % every == 0))
		evf |= DC_SW_EV_SAMPLE;
	if (cred || evf)
		now = bpf_ktime_get_ns();
	pid = key & (DC_SW_PORTS_MAX - 1);
	if (cred) {
		co.q = in.q;
		co.Q = in.Q;
		co.B = in.B;
		co.now = now;
		co.len = in.len;
		co.pid = pid;
		co.alg = alg;
		co.rate_mbps = port->rate_mbps;
		co.drain = (__u8)cfg->cred_drain;
		v = (enum dc_verdict)dc_cred_path(&co);
		thresh = co.thresh;
	} else if (alg == DC_ALG_SMARTBUF || alg == DC_ALG_EDT) {
		co.q = in.q;
		co.Q = in.Q;
		co.B = in.B;
		co.len = in.len;
		co.pid = pid;
		co.alg = alg;
		co.x[DC_SB_IO_ALPHA] = in.alpha_q16;
		/* The queue sample is the tracker's last event: the backlog
		 * the root qdisc reported at its last enqueue or dequeue and
		 * that event's time (the dequeue-side learning of the thesis,
		 * seen at the next arrival; docs/admission.md, "SmartBuf in
		 * the switch").  A record dc_stale_fix corrected is a sample
		 * now. */
		co.now = in.q == port->qlen_bytes ? port->last_ns : now;
		v = (enum dc_verdict)dc_sb_path(&co);
		thresh = co.thresh;
	} else {
		v = dc_adm_decide(alg, &in, &thresh);
	}
	port->thresh_bytes = thresh;
	if (d != DC_QREC_NONE) {
		struct dc_sw_queue *qrec = bpf_map_lookup_elem(&dc_sw_queue, &d);

		if (qrec)
			qrec->thresh_bytes = thresh;
	}

	key = key * DC_SW_PRIOS + prio;
	cnt = bpf_map_lookup_elem(&dc_sw_cnt, &key);
	if (!cnt)
		return v == DC_V_ADMIT ? XDP_PASS : XDP_DROP;
	if (first_rtt)
		DC_CTR_ADD(dc_sw_cnt, cnt, first_rtt_pkts, 1);
	if (cred) {
		DC_CTR_ADD(dc_sw_cnt, cnt, safeguard_pkts, co.safeguard);
		DC_CTR_ADD(dc_sw_cnt, cnt, pred_asked_pkts, co.asked);
		DC_CTR_ADD(dc_sw_cnt, cnt, pred_nomodel_pkts, co.nomodel);
	}
	if (v == DC_V_ADMIT)
		evf &= ~DC_SW_EV_DROP;
	if (evf)
		dc_emit(cnt, now, pid, prio, in.len, &in, thresh, &co, v, alg,
			evf | (first_rtt ? DC_SW_EV_FIRST_RTT : 0));
	if (v != DC_V_ADMIT) {
		if (v == DC_V_DROP_FULL)
			DC_CTR_ADD(dc_sw_cnt, cnt, drop_full_pkts, 1);
		else if (v == DC_V_DROP_PRED)
			DC_CTR_ADD(dc_sw_cnt, cnt, drop_pred_pkts, 1);
		else
			DC_CTR_ADD(dc_sw_cnt, cnt, drop_thresh_pkts, 1);
		DC_CTR_ADD(dc_sw_cnt, cnt, drop_bytes, in.len);
		return XDP_DROP;
	}
	DC_CTR_ADD(dc_sw_cnt, cnt, admit_pkts, 1);
	DC_CTR_ADD(dc_sw_cnt, cnt, admit_bytes, in.len);
	if (iph && dc_ecn_mark(in.q, in.len, cfg->ecn_k_bytes) && dc_mark_ce(iph))
		DC_CTR_ADD(dc_sw_cnt, cnt, ecn_marked_pkts, 1);
	return XDP_PASS;
other:
	dc_count_other();
	return XDP_PASS;
}

/* ---- queue tracker ------------------------------------------------------- */

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
	 * Without this the leaf read 16-40 kB low under a saturating flow. */
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

	if (!backlog) {
		dc_track_empty(port, nq);
		return;
	}
	if (!deq) {
		dc_track_skb(skb, port, nq, false, backlog, now);
	} else {
		for (i = 0; i < DC_DEQ_BULK_MAX && i < packets && skb; i++) {
			dc_track_skb(skb, port, nq, true, backlog, now);
			skb = skb->next;
		}
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
	if (deq) {
		const struct dc_sw_cfg *cfg;
		__u32 slot;
		__u64 last = st->abm_last_ns, period;

		slot = meta->cfg_slot & 1;
		cfg = bpf_map_lookup_elem(&dc_sw_cfg, &slot);
		if (!cfg)
			return;
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
SEC("tp_btf/qdisc_enqueue")
int BPF_PROG(dc_sw_q_enq, struct Qdisc *q, const struct netdev_queue *txq, struct sk_buff *skb)
{
	dc_track(q, txq, false, skb, 1);
	return 0;
}

/*
 * Attached at: tracepoint qdisc:qdisc_dequeue (tp_btf), pinned link.
 * Runs when: a root qdisc was asked for a packet (also when it had none
 * ready); acts only for this switch's ports and runs ABM's periodic update.
 * skb is what it gave out (a list of `packets` skbs after a bulk dequeue).
 */
SEC("tp_btf/qdisc_dequeue")
int BPF_PROG(dc_sw_q_deq, struct Qdisc *q, const struct netdev_queue *txq, int packets,
	     struct sk_buff *skb)
{
	dc_track(q, txq, true, skb, packets);
	return 0;
}

/* ---- strict-priority queues ------------------------------------------------ */

#define DC_TC_NEXT (-1)		/* tcx: TCX_NEXT; cls_bpf: TC_ACT_UNSPEC, next filter */

/*
 * Attached at: TC egress of every port of a switch started with --queues N
 * (N > 1), first on the hook (tcx link pinned, or the netlink filter
 * before INT's).
 * Runs when: a packet is about to enter the port's root HTB, after the
 * kernel forwarded it.  Puts it in the HTB leaf of its priority's queue by
 * setting skb->priority to the leaf's class id (admit.h dc_queue_of_prio,
 * the same DSCP → priority table the XDP admission used).  Not at TC
 * ingress: IPv4 forwarding rewrites skb->priority from the TOS
 * (ip_forward: rt_tos2priority), so only egress keeps what it writes.
 * Other programs on the hook still run (DC_TC_NEXT).
 */
SEC("tc")
int dc_sw_prio(struct __sk_buff *skb)
{
	const struct dc_sw_meta *meta;
	const struct dc_sw_cfg *cfg;
	__u32 zero = 0, slot, prio = 0;
	__u8 b[2];

	meta = bpf_map_lookup_elem(&dc_sw_meta, &zero);
	if (!meta || meta->nqueues <= 1)
		return DC_TC_NEXT;
	slot = meta->cfg_slot & 1;
	cfg = bpf_map_lookup_elem(&dc_sw_cfg, &slot);
	if (!cfg)
		return DC_TC_NEXT;
	/* DSCP: IPv4 TOS byte, or IPv6's traffic class across bytes 0-1.
	 * Anything else (ARP, …) stays in queue 0 with priority 0. */
	if (skb->protocol == bpf_htons(ETH_P_IP)) {
		if (!bpf_skb_load_bytes(skb, sizeof(struct ethhdr) + 1, b, 1))
			prio = cfg->dscp_prio[(b[0] >> 2) & 63] & DC_SW_DSCP_PRIO_MASK;
	} else if (skb->protocol == bpf_htons(ETH_P_IPV6)) {
		if (!bpf_skb_load_bytes(skb, sizeof(struct ethhdr), b, 2))
			prio = cfg->dscp_prio[((b[0] << 2) | (b[1] >> 6)) & 63] &
			       DC_SW_DSCP_PRIO_MASK;
	}
	skb->priority = dc_queue_classid(dc_queue_of_prio(prio, meta->nqueues));
	return DC_TC_NEXT;
}
