// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Credence and FollowLQD in the XDP admission program (BPF_PROG_TEST_RUN
 * against a constructed state, tests/lib/swfixture.h): the prediction
 * changes the verdict only where the algorithm consults it, the
 * safeguard admits below B/N whatever the model says, over-threshold and
 * full drops happen whatever it says, no model means admit, the virtual
 * LQD drains with time and picks the longest queue as victim, counters by
 * reason and the event ring.  Needs root.
 */
#define _GNU_SOURCE
#include "skelfix.h"
#include "check.h"
#include "swfixture.h"
#include "rfgen.h"

static struct swfix f;
static int cred_fd, model_fd;
static struct dc_rf_model m;

#define B_BYTES 100000
#define LEN 1000
#define FAR_NS (10ULL * 1000 * 1000 * 1000)	/* drain clock this far ahead: T frozen */

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

static int run(void)
{
	unsigned char pkt[2000];

	swfix_pkt(pkt, LEN, "10.9.1.2", 0);
	return swfix_run(&f, pkt, LEN, NULL, 1, NULL);
}

/* Virtual queues T0, T1 (Γ = T0 + T1), frozen unless drain_ago_ns > 0. */
static void set_T(__u64 t0, __u64 t1, __u64 drain_ago_ns)
{
	struct dc_sw_cred c;
	__u32 zero = 0, i;
	__u64 now = mono_ns();

	memset(&c, 0, sizeof(c));
	c.T_bytes[0] = t0;
	c.T_bytes[1] = t1;
	c.gamma_bytes = t0 + t1;
	for (i = 0; i < 2; i++) {
		c.drain_ns[i] = drain_ago_ns ? now - drain_ago_ns : now + FAR_NS;
		c.rate_mbps[i] = 1000;
	}
	bpf_map_update_elem(cred_fd, &zero, &c, BPF_ANY);
}

/* Departure counters of ports 0 and 1 where T_i last drained: far from
 * 0, so a counter behind them would read as a replaced qdisc. */
#define TX0 5000000ULL
#define TX1 7000000ULL

static void set_drain_tx(__u64 tx0, __u64 tx1)
{
	struct dc_sw_cred c;
	__u32 zero = 0;

	bpf_map_lookup_elem(cred_fd, &zero, &c);
	c.drain_tx[0] = tx0;
	c.drain_tx[1] = tx1;
	bpf_map_update_elem(cred_fd, &zero, &c, BPF_ANY);
}

/* Port record as the tracker would leave it: backlog q, tx_bytes, fresh. */
static void set_port(__u32 id, __u64 q, __u64 tx)
{
	struct dc_sw_port p;

	bpf_map_lookup_elem(f.port, &id, &p);
	p.qlen_bytes = q;
	p.tx_bytes = tx;
	p.last_ns = mono_ns();
	bpf_map_update_elem(f.port, &id, &p, BPF_ANY);
}

static struct dc_sw_cred get_cred(void)
{
	struct dc_sw_cred c;
	__u32 zero = 0;

	memset(&c, 0, sizeof(c));
	bpf_map_lookup_elem(cred_fd, &zero, &c);
	return c;
}

/* Publish m the way dc_sw_model_load does: idle slot, then flip. */
static void publish(const struct dc_rf_model *mm)
{
	struct dc_sw_meta meta;
	__u32 zero = 0, idle;

	bpf_map_lookup_elem(f.meta, &zero, &meta);
	idle = meta.model_loads ? (meta.model_slot & 1) ^ 1 : 0;
	bpf_map_update_elem(model_fd, &idle, mm, BPF_ANY);
	meta.model_slot = idle;
	meta.model_loads++;
	bpf_map_update_elem(f.meta, &zero, &meta, BPF_ANY);
}

static void unpublish(void)
{
	struct dc_sw_meta meta;
	__u32 zero = 0;

	bpf_map_lookup_elem(f.meta, &zero, &meta);
	meta.model_loads = 0;
	bpf_map_update_elem(f.meta, &zero, &meta, BPF_ANY);
}

static struct dc_sw_counters cnt1(void)
{
	struct dc_sw_counters tot = { 0 }, v[512];
	int n = libbpf_num_possible_cpus(), i;
	__u32 key = 1 * DC_SW_PRIOS + 0;

	if (n > 512 || bpf_map_lookup_elem(f.cnt, &key, v))
		return tot;
	for (i = 0; i < n; i++) {
		tot.admit_pkts += v[i].admit_pkts;
		tot.drop_thresh_pkts += v[i].drop_thresh_pkts;
		tot.drop_full_pkts += v[i].drop_full_pkts;
		tot.drop_pred_pkts += v[i].drop_pred_pkts;
		tot.pred_asked_pkts += v[i].pred_asked_pkts;
		tot.pred_nomodel_pkts += v[i].pred_nomodel_pkts;
		tot.safeguard_pkts += v[i].safeguard_pkts;
	}
	return tot;
}

/* The verdict under the always-drop and the always-accept model. */
static void both(int *with_drop, int *with_accept, __u64 q, __u64 Q, __u64 t1)
{
	rfgen_const(&m, 4, DC_Q16_ONE, 50000);
	publish(&m);
	swfix_queue(&f, q, Q, 1, (__u32)DC_Q16_ONE);
	set_T(0, t1, 0);
	*with_drop = run();
	rfgen_const(&m, 4, 0, 50000);
	publish(&m);
	swfix_queue(&f, q, Q, 1, (__u32)DC_Q16_ONE);
	set_T(0, t1, 0);
	*with_accept = run();
}

struct evs {
	int n, pred_drops;
	struct dc_sw_event last;
};

static int on_ev(void *ctx, void *data, size_t len)
{
	struct evs *e = ctx;

	if (len < sizeof(struct dc_sw_event))
		return 0;
	e->n++;
	memcpy(&e->last, data, sizeof(e->last));
	if (e->last.verdict == DC_V_DROP_PRED)
		e->pred_drops++;
	return 0;
}

int main(void)
{
	struct dc_sw_counters c0, c1;
	int d, a, k;
	__u64 t0;

	DC_TEST_NEED_ROOT("credence xdp fixtures");
	if (swfix_setup(&f)) {
		printf("FAIL: credence xdp fixture: namespace, veths and switch object set up\n");
		return 1;
	}
	cred_fd = bpf_map__fd(f.skel->maps.dc_sw_cred);
	model_fd = bpf_map__fd(f.skel->maps.dc_sw_model);
	memset(&f.c, 0, sizeof(f.c));
	f.c.alg = DC_ALG_CREDENCE;
	f.c.buffer_bytes = B_BYTES;
	f.c.abm_period_us = 100;
	for (k = 0; k < DC_SW_PRIOS; k++)
		f.c.alpha_q16[k] = DC_Q16_ONE / 2;
	swfix_cfg(&f);	/* dscp_prio all 0: priority 0 */

	/* N = 2 ports, B/N = 50 000.  Safeguard: Q = 40 000 → every queue below B/N */
	both(&d, &a, 30000, 40000, 0);
	CHECK("credence: below B/N the safeguard admits, even with an always-drop model",
	      d == XDP_PASS && a == XDP_PASS, "drop-model %d accept-model %d", d, a);
	/* ... also when q + len exceeds T_i (T_1 = len after the arrival) */
	c0 = cnt1();
	both(&d, &a, 30000, 40000, 0);
	c1 = cnt1();
	CHECK_EQ("credence: the safeguard admissions are counted as such",
		 c1.safeguard_pkts - c0.safeguard_pkts, 2);
	CHECK_EQ("credence: the safeguard does not ask the model",
		 c1.pred_asked_pkts - c0.pred_asked_pkts, 0);

	/* Over threshold: q = 60 000 ≥ B/N, T_1 = 1 000 after the arrival */
	c0 = cnt1();
	both(&d, &a, 60000, 60000, 0);
	c1 = cnt1();
	CHECK("credence: q + len > T_i drops whatever the model says",
	      d == XDP_DROP && a == XDP_DROP, "drop-model %d accept-model %d", d, a);
	CHECK_EQ("credence: counted as threshold drops", c1.drop_thresh_pkts - c0.drop_thresh_pkts, 2);

	/* Full: Q + len > B, q within T_i */
	c0 = cnt1();
	both(&d, &a, 60000, 99500, 70000);
	c1 = cnt1();
	CHECK("credence: Q + len > B drops whatever the model says",
	      d == XDP_DROP && a == XDP_DROP, "drop-model %d accept-model %d", d, a);
	CHECK_EQ("credence: counted as full drops", c1.drop_full_pkts - c0.drop_full_pkts, 2);

	/* Consulted: q = 60 000 ≥ B/N, q + len ≤ T_1 = 90 000 + len, Q + len ≤ B */
	c0 = cnt1();
	both(&d, &a, 60000, 60000, 89000);
	c1 = cnt1();
	CHECK("credence: where the algorithm asks, the prediction decides (drop model drops, accept model admits)",
	      d == XDP_DROP && a == XDP_PASS, "drop-model %d accept-model %d", d, a);
	CHECK("credence: counters: 2 predictions asked, 1 prediction drop",
	      c1.pred_asked_pkts - c0.pred_asked_pkts == 2 && c1.drop_pred_pkts - c0.drop_pred_pkts == 1 &&
	      c1.drop_thresh_pkts == c0.drop_thresh_pkts, "asked %llu pred %llu thresh %llu",
	      (unsigned long long)(c1.pred_asked_pkts - c0.pred_asked_pkts),
	      (unsigned long long)(c1.drop_pred_pkts - c0.drop_pred_pkts),
	      (unsigned long long)(c1.drop_thresh_pkts - c0.drop_thresh_pkts));

	/* The model sees the features: a split on q_i at 60 000 bytes */
	memset(&m, 0, sizeof(m));
	m.version = DC_RF_VERSION;
	m.n_trees = 1;
	m.depth = 1;
	m.ewma_period_ns = 50000;
	m.n_nodes[0] = 3;
	m.node[0][0] = (struct dc_rf_node){ .value = 60000, .feature = DC_RF_F_QLEN, .left = 1, .right = 2 };
	m.node[0][1] = (struct dc_rf_node){ .value = 0, .flags = DC_RF_NODE_LEAF };
	m.node[0][2] = (struct dc_rf_node){ .value = DC_Q16_ONE, .flags = DC_RF_NODE_LEAF };
	publish(&m);
	swfix_queue(&f, 60000, 60000, 1, (__u32)DC_Q16_ONE);
	set_T(0, 89000, 0);
	a = run();
	swfix_queue(&f, 60001, 60001, 1, (__u32)DC_Q16_ONE);
	set_T(0, 89000, 0);
	d = run();
	CHECK("credence: the model is fed q_i (split q ≤ 60 000: 60 000 admits, 60 001 drops)",
	      a == XDP_PASS && d == XDP_DROP, "60000 → %d, 60001 → %d", a, d);

	/* No model: admit where the prediction would be asked, counted */
	unpublish();
	c0 = cnt1();
	swfix_queue(&f, 60000, 60000, 1, (__u32)DC_Q16_ONE);
	set_T(0, 89000, 0);
	a = run();
	c1 = cnt1();
	CHECK("credence without a model: admits where it would ask, counted as no-model",
	      a == XDP_PASS && c1.pred_nomodel_pkts - c0.pred_nomodel_pkts == 1 &&
	      c1.pred_asked_pkts == c0.pred_asked_pkts, "verdict %d nomodel +%llu asked +%llu", a,
	      (unsigned long long)(c1.pred_nomodel_pkts - c0.pred_nomodel_pkts),
	      (unsigned long long)(c1.pred_asked_pkts - c0.pred_asked_pkts));
	/* ... and the same state over threshold still drops */
	swfix_queue(&f, 60000, 60000, 1, (__u32)DC_Q16_ONE);
	set_T(0, 0, 0);
	CHECK_EQ("credence without a model: over threshold still drops", run(), XDP_DROP);

	/* FollowLQD: never asks, no safeguard */
	rfgen_const(&m, 4, DC_Q16_ONE, 50000);
	publish(&m);
	f.c.alg = DC_ALG_FOLLOWLQD;
	swfix_cfg(&f);
	c0 = cnt1();
	swfix_queue(&f, 60000, 60000, 1, (__u32)DC_Q16_ONE);
	set_T(0, 89000, 0);
	a = run();
	swfix_queue(&f, 30000, 40000, 1, (__u32)DC_Q16_ONE);
	set_T(0, 0, 0);
	d = run();
	c1 = cnt1();
	CHECK("followlqd: admits within T_i despite an always-drop model; drops over T_i below B/N (no safeguard)",
	      a == XDP_PASS && d == XDP_DROP && c1.pred_asked_pkts == c0.pred_asked_pkts &&
	      c1.safeguard_pkts == c0.safeguard_pkts, "within %d below-B/N %d asked +%llu", a, d,
	      (unsigned long long)(c1.pred_asked_pkts - c0.pred_asked_pkts));

	/* Virtual LQD: T0 = 60 000, T1 = 39 500, Γ = 99 500; 1 000 bytes to
	 * port 1 → the longest other queue (0) gives up 500 */
	swfix_queue(&f, 0, 0, 1, (__u32)DC_Q16_ONE);
	set_T(60000, 39500, 0);
	run();
	{
		struct dc_sw_cred c = get_cred();

		CHECK("virtual lqd: a full virtual buffer takes from the longest queue (T0 59 500, T1 40 500, Γ 100 000)",
		      c.T_bytes[0] == 59500 && c.T_bytes[1] == 40500 && c.gamma_bytes == 100000,
		      "T0 %llu T1 %llu Γ %llu", (unsigned long long)c.T_bytes[0],
		      (unsigned long long)c.T_bytes[1], (unsigned long long)c.gamma_bytes);
	}
	/* ... and when the arriving queue is the longest, the arrival is the virtual drop */
	set_T(20000, 79500, 0);
	run();
	{
		struct dc_sw_cred c = get_cred();

		CHECK("virtual lqd: the arriving queue longest → T unchanged (virtual drop)",
		      c.T_bytes[0] == 20000 && c.T_bytes[1] == 79500 && c.gamma_bytes == 99500,
		      "T0 %llu T1 %llu Γ %llu", (unsigned long long)c.T_bytes[0],
		      (unsigned long long)c.T_bytes[1], (unsigned long long)c.gamma_bytes);
	}
	/* Drain: T1 = 50 000 last drained 200 µs ago at 1 Gbit/s (25 000 bytes) */
	set_T(0, 50000, 200000);
	run();
	{
		struct dc_sw_cred c = get_cred();

		/* 25 000 drained at least; more if the run came later */
		CHECK("virtual lqd: T_i drains at the port rate (50 000 − ≥ 25 000 + 1 000)",
		      c.T_bytes[1] <= 26000 && c.T_bytes[1] >= 1000, "T1 %llu",
		      (unsigned long long)c.T_bytes[1]);
	}
	/* Γ that drifted from Σ T (lost concurrent updates) is recounted */
	{
		struct dc_sw_cred c;
		__u32 zero = 0;

		set_T(30000, 10000, 0);
		c = get_cred();
		c.gamma_bytes = 99900;	/* Σ T is 40 000 */
		bpf_map_update_elem(cred_fd, &zero, &c, BPF_ANY);
		run();
		c = get_cred();
		CHECK("virtual lqd: a drifted Γ is recounted when the buffer looks full (Γ = 41 000)",
		      c.gamma_bytes == 41000 && c.T_bytes[1] == 11000 && c.T_bytes[0] == 30000,
		      "Γ %llu T0 %llu T1 %llu", (unsigned long long)c.gamma_bytes,
		      (unsigned long long)c.T_bytes[0], (unsigned long long)c.T_bytes[1]);
	}

	/* Drain by departures (cred_drain=hybrid and departures): exact
	 * amounts, whatever the run's timing, since the port records say what
	 * left.  Port 1 sent 3 000 bytes in 200 µs (the rate would allow 25 000). */
	f.c.cred_drain = DC_DRAIN_HYBRID;
	swfix_cfg(&f);

	set_T(0, 50000, 200000);
	set_port(1, 40000, TX1 + 3000);
	set_drain_tx(TX0, TX1);
	run();
	CHECK_EQ("hybrid: a backlogged port drains T_i by its departures (50 000 − 3 000 + 1 000)",
		 get_cred().T_bytes[1], 48000);
	/* a stalled backlogged port (no departures) keeps T_i ... */
	t0 = mono_ns();
	set_T(0, 50000, 200000);
	set_port(1, 40000, TX1);
	set_drain_tx(TX0, TX1);
	run();
	{
		struct dc_sw_cred c = get_cred();

		CHECK("hybrid: a backlogged port with no departures keeps T_i, the drain clock moves on",
		      c.T_bytes[1] == 51000 && c.drain_ns[1] >= t0 &&
		      c.drain_tx[1] == TX1, "T1 %llu", (unsigned long long)c.T_bytes[1]);
	}
	/* ... and an idle one drains by time × rate (≥ 25 000 in 200 µs) */
	set_T(0, 50000, 200000);
	set_port(1, 0, TX1);
	set_drain_tx(TX0, TX1);
	run();
	CHECK("hybrid: an idle port drains T_i by time × rate (50 000 − ≥ 25 000 + 1 000)",
	      get_cred().T_bytes[1] <= 26000, "T1 %llu", (unsigned long long)get_cred().T_bytes[1]);
	/* the sync (Γ + len > B) drains every port by its own departures:
	 * port 0 sent 10 000 → T0 50 000, then room for port 1 without a victim */
	set_T(60000, 39500, 200000);
	set_port(0, 30000, TX0 + 10000);
	set_port(1, 40000, TX1);
	set_drain_tx(TX0, TX1);
	run();
	{
		struct dc_sw_cred c = get_cred();

		CHECK("hybrid: the sync drains the other ports by their departures (T0 50 000, T1 40 500)",
		      c.T_bytes[0] == 50000 && c.T_bytes[1] == 40500 && c.gamma_bytes == 90500,
		      "T0 %llu T1 %llu Γ %llu", (unsigned long long)c.T_bytes[0],
		      (unsigned long long)c.T_bytes[1], (unsigned long long)c.gamma_bytes);
	}
	/* departures: the real queue empty → T_i emptied before the arrival */
	f.c.cred_drain = DC_DRAIN_DEPART;
	swfix_cfg(&f);
	set_T(0, 50000, 200000);
	set_port(1, 0, TX1 + 3000);
	set_drain_tx(TX0, TX1);
	run();
	CHECK_EQ("departures: an empty real queue empties T_i (only the arrival remains)",
		 get_cred().T_bytes[1], 1000);
	f.c.cred_drain = DC_DRAIN_TIME;
	swfix_cfg(&f);
	set_port(0, 0, 0);
	swfix_queue(&f, 0, 0, 1, (__u32)DC_Q16_ONE);

	/* Events: every arrival sampled, drops flagged, features carried */
	{
		struct ring_buffer *rb;
		struct evs e = { 0 };

		f.c.alg = DC_ALG_CREDENCE;
		f.c.ev_sample_every = 1;
		f.c.ev_drops = 1;
		swfix_cfg(&f);
		rb = ring_buffer__new(bpf_map__fd(f.skel->maps.dc_sw_events), on_ev, &e, NULL);
		publish(&m);	/* always drop */
		swfix_queue(&f, 60000, 60000, 1, (__u32)DC_Q16_ONE);
		set_T(0, 89000, 0);
		run();
		if (rb)
			ring_buffer__consume(rb);
		CHECK("events: one record for a sampled prediction drop, with q, Q, T_i and verdict",
		      rb && e.n == 1 && e.pred_drops == 1 && e.last.q_bytes == 60000 &&
		      e.last.occ_bytes == 60000 && e.last.thresh_bytes == 90000 && e.last.port == 1 &&
		      e.last.len == LEN && (e.last.flags & (DC_SW_EV_SAMPLE | DC_SW_EV_DROP)) ==
		      (DC_SW_EV_SAMPLE | DC_SW_EV_DROP), "n %d q %u Q %u T %llu flags %#x", e.n,
		      e.last.q_bytes, e.last.occ_bytes, (unsigned long long)e.last.thresh_bytes,
		      e.last.flags);
		f.c.ev_sample_every = 0;
		swfix_cfg(&f);
		e.n = 0;
		swfix_queue(&f, 30000, 40000, 1, (__u32)DC_Q16_ONE);
		run();		/* admitted by the safeguard: no event */
		swfix_queue(&f, 60000, 60000, 1, (__u32)DC_Q16_ONE);
		set_T(0, 0, 0);
		run();		/* threshold drop: an event */
		if (rb)
			ring_buffer__consume(rb);
		CHECK("events: drops only → the admit is silent, the drop is recorded",
		      e.n == 1 && e.last.verdict == DC_V_DROP_THRESH && e.last.flags == DC_SW_EV_DROP,
		      "n %d verdict %u flags %#x", e.n, e.last.verdict, e.last.flags);
		ring_buffer__free(rb);
	}
	/* Not IP: untouched, as under every algorithm */
	{
		unsigned char pkt[64] = { 0 }, out[9000];

		pkt[12] = 0x88;
		pkt[13] = 0xb5;	/* local experimental ethertype */
		CHECK("credence: a non-IP frame passes untouched",
		      swfix_run(&f, pkt, sizeof(pkt), out, 1, NULL) == XDP_PASS &&
		      !memcmp(pkt, out, sizeof(pkt)), "changed or dropped");
	}
	return check_failed;
}
