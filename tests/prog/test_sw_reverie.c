// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reverie at the switch's XDP admission (alg reverie; docs/admission.md,
 * "Reverie in the switch") against include/dcbpf/reverie.h run beside it
 * in user space on a copy of the same state:
 *  - 400 arrivals of both classes with random lengths, the state reseeded
 *    every 25 (random q̂ of both queues, shared-pool fill, n_c): every
 *    verdict, Γ and the whole dc_sw_rv record equal the core's, and every
 *    verdict kind occurred (admitted, headroom, threshold, pool full,
 *    headroom overrun);
 *  - the PFC state machine on packets: a lossless queue over Γ PAUSEs
 *    once (counted), the packet and later ones go to its headroom and pass,
 *    the packet that overfills it is dropped (hdrm_drops, buffer_full);
 *    a lossy packet over Γ is dropped by the threshold;
 *  - a priority made lossy (lossless.3 = 0) counts at its egress queue;
 *  - bpftool names the record's fields (BTF);
 *  - alg=sonic (include/dcbpf/sonic.h, Reverie's baseline): 400 arrivals
 *    over reseeded states, verdicts, thresholds and every counter equal.
 * Departures run in the qdisc tracker (not test-runnable): the core's
 * departure is host-tested (tests/unit/test_reverie.c).
 * Fixture: tests/lib/swfixture.h (10.9.0.2 in on a0 = port 0, 10.9.1.2
 * out on a1 = port 1).  Needs root.
 */
#define _GNU_SOURCE
#include "skelfix.h"
#include "check.h"
#include "swfixture.h"
#include "dcbpf/reverie.h"
#include "dcbpf/sw_sonic.h"
#include <sys/mman.h>

static struct swfix f;
static int rvfd, pfcfd;
static volatile struct dc_sw_pfc *pfcmap;	/* dc_sw_pfc memory-mapped, as the upstream reads it */
static struct dc_sw_rv model;	/* what the core says the map holds */
static struct dc_rv_params P;

#define B 200000U
#define HQ 6000U
#define HP 12000U
#define TOS_LOSSLESS (26 << 2)	/* DSCP 26 → priority 3 */
#define TOS_LOSSY 0
#define IN_KEY (0 * DC_SW_PRIOS + 3)	/* lossless: ingress port 0, priority 3 */
#define EG_KEY (1 * DC_SW_PRIOS + 0)	/* lossy: egress port 1, priority 0 */

static __u64 rng = 0x9e3779b97f4a7c15ULL;

static __u64 rnd(__u64 n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? rng % n : 0;
}

/* The parameters as the program forms them from dc_sw_cfg (sw_rv.h). */
static void params(void)
{
	memset(&P, 0, sizeof(P));
	P.shared_bytes = f.c.buffer_bytes - f.c.rv.hdrm_pool_bytes;
	P.hdrm_pool_bytes = f.c.rv.hdrm_pool_bytes;
	P.hdrm_queue_bytes = f.c.rv.hdrm_bytes;
	P.alpha_q16[0] = f.c.rv.alpha_q16[0];
	P.alpha_q16[1] = f.c.rv.alpha_q16[1];
	P.gamma_q32 = f.c.rv.gamma_q32;
	P.cong_bytes = f.c.rv.cong_bytes;
	P.xon_offset_bytes = f.c.rv.xon_bytes;
	P.clamp = true;
}

static void put_state(void)
{
	__u32 zero = 0;

	bpf_map_update_elem(rvfd, &zero, &model, BPF_ANY);
}

static struct dc_sw_rv got;

static void get_state(void)
{
	__u32 zero = 0;

	memset(&got, 0xa5, sizeof(got));
	bpf_map_lookup_elem(rvfd, &zero, &got);
}

static int run(__u8 tos, __u32 len)
{
	unsigned char pkt[1600];

	swfix_queue(&f, 0, 0, 1, (__u32)DC_Q16_ONE);
	swfix_pkt(pkt, len, "10.9.1.2", tos);
	return swfix_run(&f, pkt, len, NULL, 1, NULL);
}

static __u64 port_thresh(void)
{
	struct dc_sw_port p = { 0 };
	__u32 one = 1;

	bpf_map_lookup_elem(f.port, &one, &p);
	return p.thresh_bytes;
}

/* The core's arrival on the model; the counters as the program keeps them. */
static enum dc_rv_verdict core(__u32 cls, __u32 len, __u64 *gamma_bytes)
{
	struct dc_sw_rvq *r = cls == DC_RV_LOSSLESS ? &model.in[IN_KEY] : &model.eg[EG_KEY];
	enum dc_rv_verdict v;
	bool pause;

	v = dc_rv_arrival(&P, &model.pool, &r->q, cls, len, &pause);
	*gamma_bytes = dc_rv_gamma_of(&P, &model.pool, cls) >> DC_Q16_SHIFT;
	r->pauses += pause;
	r->hdrm_pkts += v == DC_RV_HEADROOM;
	r->hdrm_drops += v == DC_RV_DROP_HDRM;
	return v;
}

static int xdp_of(enum dc_rv_verdict v)
{
	return v == DC_RV_SHARED || v == DC_RV_HEADROOM ? XDP_PASS : XDP_DROP;
}

/* Random state for the two queues the packets meet. */
static void reseed(void)
{
	__u64 sh = P.shared_bytes, qs = rnd(sh + 1);
	struct dc_rv_queue *qi = &model.in[IN_KEY].q, *qe = &model.eg[EG_KEY].q;

	memset(&model, 0, sizeof(model));
	model.pool.q_shared = qs;
	model.pool.n_q16[0] = DC_Q16_ONE + rnd(3 * DC_Q16_ONE);
	model.pool.n_q16[1] = DC_Q16_ONE + rnd(3 * DC_Q16_ONE);
	qi->q_bytes = rnd(qs / 2 + 1);
	qe->q_bytes = rnd(qs - qi->q_bytes + 1);
	/* q̂ around Γ: below and above it */
	qi->qhat_q16 = rnd(2 * (dc_rv_gamma_of(&P, &model.pool, 1) + (1 << 16)));
	qe->qhat_q16 = rnd(2 * (dc_rv_gamma_of(&P, &model.pool, 0) + (1 << 16)));
	/* now and then a pool all but full and queues whose q̂ passes: the
	 * packet meets the pool's edge (Γ ~ 0 there) */
	if (rnd(4) == 0) {
		model.pool.q_shared = sh - rnd(1400);
		qi->qhat_q16 = 0;
		qe->qhat_q16 = 0;
	}
	qi->paused = rnd(4) == 0;
	if (qi->paused) {
		qi->hdrm_bytes = rnd(HQ);
		model.pool.hdrm_used = qi->hdrm_bytes + rnd(HP - HQ);
	}
	put_state();
}

static void equivalence(void)
{
	unsigned int i, seen[5] = { 0 }, bad_v = 0, bad_t = 0, bad_s = 0, first = 0;
	__u64 g;

	params();
	for (i = 0; i < 400; i++) {
		__u32 cls = (__u32)rnd(2), len = 64 + (__u32)rnd(1500 - 64 + 1);
		enum dc_rv_verdict v;
		int x;

		if (i % 25 == 0)
			reseed();
		v = core(cls, len, &g);
		x = run(cls ? TOS_LOSSLESS : TOS_LOSSY, len);
		get_state();
		seen[v]++;
		if (x != xdp_of(v))
			bad_v++;
		if (port_thresh() != g)
			bad_t++;
		if (memcmp(&got.pool, &model.pool, sizeof(model.pool)) ||
		    memcmp(&got.in[IN_KEY], &model.in[IN_KEY], sizeof(model.in[0])) ||
		    memcmp(&got.eg[EG_KEY], &model.eg[EG_KEY], sizeof(model.eg[0])))
			bad_s++;
		if ((bad_v || bad_t || bad_s) && !first) {
			first = i + 1;
			printf("# first difference at arrival %u: class %u len %u core verdict %d "
			       "xdp %d Γ %llu/%llu q_shared %llu/%llu\n", i, cls, len, v, x,
			       (unsigned long long)g, (unsigned long long)port_thresh(),
			       (unsigned long long)model.pool.q_shared,
			       (unsigned long long)got.pool.q_shared);
		}
	}
	CHECK_EQ("reverie xdp = core: 400 verdicts equal", bad_v, 0);
	CHECK_EQ("reverie xdp = core: Γ of every arrival equal (port thresh_bytes)", bad_t, 0);
	CHECK_EQ("reverie xdp = core: pool and both queue records equal after every arrival", bad_s, 0);
	CHECK("reverie xdp = core: every verdict kind met (shared, headroom, threshold, full, overrun)",
	      seen[0] && seen[1] && seen[2] && seen[3] && seen[4], "%u %u %u %u %u", seen[0], seen[1],
	      seen[2], seen[3], seen[4]);
}

static void pfc(void)
{
	struct dc_sw_counters c0, c1;
	unsigned int n, p0;

	params();
	memset(&model, 0, sizeof(model));
	put_state();
	CHECK_EQ("reverie: a lossy packet into an empty switch passes", run(TOS_LOSSY, 1000), XDP_PASS);
	get_state();
	CHECK("reverie: ... counted once, in its egress queue (port 1, priority 0) and q*",
	      got.eg[EG_KEY].q.q_bytes == 1000 && got.pool.q_shared == 1000 &&
		      got.in[IN_KEY].q.q_bytes == 0,
	      "eg %llu q* %llu in %llu", (unsigned long long)got.eg[EG_KEY].q.q_bytes,
	      (unsigned long long)got.pool.q_shared, (unsigned long long)got.in[IN_KEY].q.q_bytes);
	CHECK_EQ("reverie: a lossless packet passes", run(TOS_LOSSLESS, 1000), XDP_PASS);
	get_state();
	CHECK_EQ("reverie: ... counted in its ingress queue (port 0, priority 3)",
		 got.in[IN_KEY].q.q_bytes, 1000);

	/* both queues' filtered length above any Γ */
	memset(&model, 0, sizeof(model));
	model.in[IN_KEY].q.qhat_q16 = (__u64)4 * B << 16;
	model.eg[EG_KEY].q.qhat_q16 = (__u64)4 * B << 16;
	put_state();
	c0 = swfix_counters(&f, 1 * DC_SW_PRIOS + 0);
	CHECK_EQ("reverie: a lossy packet with q̂ > Γ is dropped", run(TOS_LOSSY, 1000), XDP_DROP);
	c1 = swfix_counters(&f, 1 * DC_SW_PRIOS + 0);
	CHECK_EQ("reverie: ... by the threshold (drop_thresh_pkts of port 1, priority 0)",
		 c1.drop_thresh_pkts - c0.drop_thresh_pkts, 1);
	p0 = pfcmap ? pfcmap[IN_KEY].pauses : 0;	/* earlier parts paused this queue too */
	CHECK_EQ("reverie: a lossless packet with q̂ > Γ passes", run(TOS_LOSSLESS, 1000), XDP_PASS);
	get_state();
	CHECK("reverie: ... its queue PAUSED, one pause counted, the packet in its headroom",
	      got.in[IN_KEY].q.paused == 1 && got.in[IN_KEY].pauses == 1 &&
		      got.in[IN_KEY].q.hdrm_bytes == 1000 && got.pool.hdrm_used == 1000 &&
		      got.pool.q_shared == 0,
	      "paused %u pauses %llu hdrm %llu", got.in[IN_KEY].q.paused,
	      (unsigned long long)got.in[IN_KEY].pauses,
	      (unsigned long long)got.in[IN_KEY].q.hdrm_bytes);
	{
		struct dc_sw_pfc e;
		__u32 k = IN_KEY, k2 = 1 * DC_SW_PRIOS + 3;

		memset(&e, 0, sizeof(e));
		bpf_map_lookup_elem(pfcfd, &k, &e);
		CHECK("reverie: ... the pause in dc_sw_pfc (paused, one pause, its time) for the upstream",
		      e.paused == 1 && e.pauses == p0 + 1 && e.pause_ns && e.write_ns == e.pause_ns,
		      "paused %u pauses %u pause_ns %llu write_ns %llu", e.paused, e.pauses,
		      (unsigned long long)e.pause_ns, (unsigned long long)e.write_ns);
		CHECK("reverie: ... seen through the map's mmap (no syscall), no other queue paused",
		      pfcmap && pfcmap[IN_KEY].paused == 1 && pfcmap[IN_KEY].pauses == p0 + 1 &&
			      !pfcmap[k2].paused && !pfcmap[EG_KEY].paused,
		      "mmap %p", (void *)pfcmap);
		(void)k2;
	}
	for (n = 0; n < 4; n++)
		run(TOS_LOSSLESS, 1000);
	get_state();
	CHECK("reverie: ... the pause refreshed by the arrivals while paused, still one pause",
	      pfcmap && pfcmap[IN_KEY].paused == 1 && pfcmap[IN_KEY].pauses == p0 + 1 &&
		      pfcmap[IN_KEY].write_ns > pfcmap[IN_KEY].pause_ns,
	      "pauses %u write %llu pause %llu", pfcmap ? pfcmap[IN_KEY].pauses : 0,
	      pfcmap ? (unsigned long long)pfcmap[IN_KEY].write_ns : 0ULL,
	      pfcmap ? (unsigned long long)pfcmap[IN_KEY].pause_ns : 0ULL);
	CHECK("reverie: four more while paused pass into the headroom, no second pause",
	      got.in[IN_KEY].q.hdrm_bytes == 5000 && got.in[IN_KEY].pauses == 1 &&
		      got.in[IN_KEY].hdrm_pkts == 5,
	      "hdrm %llu pauses %llu hdrm_pkts %llu", (unsigned long long)got.in[IN_KEY].q.hdrm_bytes,
	      (unsigned long long)got.in[IN_KEY].pauses, (unsigned long long)got.in[IN_KEY].hdrm_pkts);
	c0 = swfix_counters(&f, 1 * DC_SW_PRIOS + 3);
	CHECK_EQ("reverie: the packet that overfills the queue's 6000 B headroom is dropped",
		 run(TOS_LOSSLESS, 1001), XDP_DROP);
	c1 = swfix_counters(&f, 1 * DC_SW_PRIOS + 3);
	get_state();
	CHECK("reverie: ... counted as a headroom overrun and buffer_full, the headroom unchanged",
	      got.in[IN_KEY].hdrm_drops == 1 && c1.drop_full_pkts - c0.drop_full_pkts == 1 &&
		      got.in[IN_KEY].q.hdrm_bytes == 5000,
	      "hdrm_drops %llu full %llu", (unsigned long long)got.in[IN_KEY].hdrm_drops,
	      (unsigned long long)(c1.drop_full_pkts - c0.drop_full_pkts));
	CHECK_EQ("reverie: a 1000 B one still fits exactly", run(TOS_LOSSLESS, 1000), XDP_PASS);

	/* priority 3 made lossy: the same packet meets its egress queue */
	f.c.rv.lossless[3] = 0;
	swfix_cfg(&f);
	memset(&model, 0, sizeof(model));
	put_state();
	run(TOS_LOSSLESS, 700);
	get_state();
	CHECK("reverie: lossless.3 = 0: DSCP 26 counts at its egress queue (port 1, priority 3)",
	      got.eg[1 * DC_SW_PRIOS + 3].q.q_bytes == 700 && got.in[IN_KEY].q.q_bytes == 0,
	      "eg %llu in %llu", (unsigned long long)got.eg[1 * DC_SW_PRIOS + 3].q.q_bytes,
	      (unsigned long long)got.in[IN_KEY].q.q_bytes);
	f.c.rv.lossless[3] = 1;
	swfix_cfg(&f);

	CHECK("reverie: bpftool map dump names the record's fields (BTF)",
	      dc_fd_dump_has(rvfd, "\"qhat_q16\"") && dc_fd_dump_has(rvfd, "\"paused\"") &&
		      dc_fd_dump_has(rvfd, "\"pauses\"") && dc_fd_dump_has(rvfd, "\"hdrm_used\""),
	      "a field is missing");
}

/* ---- alg=sonic: the same against include/dcbpf/sonic.h --------------------- */

static struct dc_sw_sonic smodel, sgot;
static struct dc_sonic_params SP;
static int sofd;
#define IN_LY_KEY (0 * DC_SW_PRIOS + 0)	/* lossy at ingress: port 0, priority 0 */
#define EG_LL_KEY (1 * DC_SW_PRIOS + 3)	/* lossless at egress: port 1, priority 3 */

/* As bpf/lib/sw_rv.h forms them: the heuristics around the configured
 * headroom and the two DT α. */
static void sparams(void)
{
	__u64 b = f.c.buffer_bytes, h = f.c.rv.hdrm_pool_bytes;

	dc_sonic_defaults(&SP, b, f.c.rv.hdrm_bytes, 0, f.c.rv.alpha_q16[DC_RV_LOSSLESS],
			  f.c.rv.alpha_q16[DC_RV_LOSSY]);
	SP.hdrm_pool_bytes = h;
	SP.in_pool_bytes = b - h;
	SP.eg_pool_bytes[DC_RV_LOSSY] = (SP.in_pool_bytes * DC_SONIC_EG_LOSSY_FRAC_Q16) >> 16;
	SP.xon_offset_bytes = f.c.rv.xon_bytes;
}

static void sreseed(void)
{
	struct dc_sonic_pools *po = &smodel.pools;
	__u64 in = SP.in_pool_bytes, ely = SP.eg_pool_bytes[DC_RV_LOSSY];

	memset(&smodel, 0, sizeof(smodel));
	po->in_occ = rnd(in + 1);
	po->eg_occ[DC_RV_LOSSY] = rnd(ely + 1);
	po->eg_occ[DC_RV_LOSSLESS] = rnd(SP.buffer_bytes + 1);
	/* counters around their thresholds */
	smodel.in[IN_KEY].iq.q_bytes = rnd(2 * dc_dt_threshold(in, po->in_occ,
						 SP.alpha_in_q16[DC_RV_LOSSLESS]) + 2);
	smodel.in[IN_LY_KEY].iq.q_bytes = rnd(po->in_occ + 1);
	smodel.eg_bytes[EG_KEY] = rnd(2 * dc_dt_threshold(ely, po->eg_occ[DC_RV_LOSSY],
						    SP.alpha_eg_q16[DC_RV_LOSSY]) + 2);
	smodel.eg_bytes[EG_LL_KEY] = rnd(po->eg_occ[DC_RV_LOSSLESS] + 1);
	if (rnd(4) == 0)	/* the ingress pool at its edge */
		po->in_occ = in - rnd(1400);
	if (rnd(4) == 0) {
		smodel.in[IN_KEY].iq.paused = 1;
		smodel.in[IN_KEY].iq.hdrm_bytes = rnd(HQ);
		po->hdrm_used = smodel.in[IN_KEY].iq.hdrm_bytes + rnd(HP - HQ);
	}
	bpf_map_update_elem(sofd, &(__u32){ 0 }, &smodel, BPF_ANY);
}

static void equivalence_sonic(void)
{
	unsigned int i, seen[5] = { 0 }, bad_v = 0, bad_t = 0, bad_s = 0, bad_f = 0, nll = 0,
		     npaused = 0;
	__u32 zero = 0;

	f.c.alg = DC_ALG_SONIC;
	swfix_cfg(&f);
	sparams();
	for (i = 0; i < 400; i++) {
		__u32 cls = (__u32)rnd(2), len = 64 + (__u32)rnd(1500 - 64 + 1);
		struct dc_sw_sonicq *iq = &smodel.in[cls ? IN_KEY : IN_LY_KEY];
		__u64 *eq = &smodel.eg_bytes[cls ? EG_LL_KEY : EG_KEY], t;
		enum dc_sonic_verdict v;
		bool pause;
		int x;

		if (i % 25 == 0)
			sreseed();
		v = dc_sonic_arrival(&SP, &smodel.pools, &iq->iq, eq, cls, len, &pause);
		iq->pauses += pause;
		iq->hdrm_pkts += v == DC_SONIC_HEADROOM;
		iq->hdrm_drops += v == DC_SONIC_DROP_HDRM;
		t = cls ? dc_dt_threshold(SP.in_pool_bytes, smodel.pools.in_occ,
					  SP.alpha_in_q16[DC_RV_LOSSLESS]) :
			  dc_dt_threshold(SP.eg_pool_bytes[DC_RV_LOSSY], smodel.pools.eg_occ[DC_RV_LOSSY],
					  SP.alpha_eg_q16[DC_RV_LOSSY]);
		x = run(cls ? TOS_LOSSLESS : TOS_LOSSY, len);
		memset(&sgot, 0xa5, sizeof(sgot));
		bpf_map_lookup_elem(sofd, &zero, &sgot);
		seen[v]++;
		if (x != (v == DC_SONIC_INGRESS || v == DC_SONIC_HEADROOM ? XDP_PASS : XDP_DROP))
			bad_v++;
		if (port_thresh() != t)
			bad_t++;
		if (memcmp(&sgot.pools, &smodel.pools, sizeof(smodel.pools)) ||
		    memcmp(sgot.in, smodel.in, sizeof(smodel.in)) ||
		    memcmp(sgot.eg_bytes, smodel.eg_bytes, sizeof(smodel.eg_bytes)))
			bad_s++;
		/* the upstream's copy follows the lossless queue's state */
		if (cls && pfcmap) {
			nll++;
			npaused += iq->iq.paused;
			bad_f += pfcmap[IN_KEY].paused != iq->iq.paused;
		}
	}
	CHECK("sonic: dc_sw_pfc (mmap) equals the lossless queue's PFC state after each of its "
	      "arrivals", pfcmap && nll >= 100 && npaused >= 10 && bad_f == 0,
	      "%u of %u differ, %u paused", bad_f, nll, npaused);
	CHECK_EQ("sonic xdp = core: 400 verdicts equal", bad_v, 0);
	CHECK_EQ("sonic xdp = core: the threshold of every arrival equal", bad_t, 0);
	CHECK_EQ("sonic xdp = core: pools, ingress and egress counters equal after every arrival",
		 bad_s, 0);
	CHECK("sonic xdp = core: every verdict kind met (ingress, headroom, ingress drop, egress "
	      "drop, overrun)", seen[0] && seen[1] && seen[2] && seen[3] && seen[4],
	      "%u %u %u %u %u", seen[0], seen[1], seen[2], seen[3], seen[4]);
	f.c.alg = DC_ALG_REVERIE;
	swfix_cfg(&f);
}

int main(void)
{
	unsigned int i;

	DC_TEST_NEED_ROOT("switch reverie fixtures");
	if (swfix_setup(&f)) {
		printf("FAIL: switch reverie fixture: namespace, veths and switch object set up\n");
		return 1;
	}
	rvfd = bpf_map__fd(f.skel->maps.dc_sw_rv);
	pfcfd = bpf_map__fd(f.skel->maps.dc_sw_pfc);
	{
		void *m = mmap(NULL, sizeof(struct dc_sw_pfc) * DC_SW_PORTS_MAX * DC_SW_PRIOS,
			       PROT_READ, MAP_SHARED, pfcfd, 0);

		pfcmap = m == MAP_FAILED ? NULL : m;
		CHECK("reverie: dc_sw_pfc maps read-only into user space (BPF_F_MMAPABLE)", pfcmap != NULL,
		      "mmap: %s", strerror(errno));
	}
	sofd = bpf_map__fd(f.skel->maps.dc_sw_sonic);
	memset(&f.c, 0, sizeof(f.c));
	f.c.alg = DC_ALG_REVERIE;
	f.c.buffer_bytes = B;
	for (i = 0; i < 64; i++)
		f.c.dscp_prio[i] = (__u8)(i >> 3);
	f.c.rv.alpha_q16[DC_RV_LOSSY] = (__u32)DC_Q16_ONE;
	f.c.rv.alpha_q16[DC_RV_LOSSLESS] = 2 * (__u32)DC_Q16_ONE;
	f.c.rv.gamma_q32 = (__u32)DC_RV_DEFAULT_GAMMA_Q32;
	f.c.rv.hdrm_bytes = HQ;
	f.c.rv.hdrm_pool_bytes = HP;
	f.c.rv.cong_bytes = DC_RV_DEFAULT_CONG_BYTES;
	f.c.rv.lossless[3] = 1;
	swfix_cfg(&f);
	equivalence();
	pfc();
	equivalence_sonic();
	switch_bpf__destroy(f.skel);
	return check_failed;
}
