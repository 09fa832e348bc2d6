// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The switch's re-test of paused lossless queues under alg=reverie
 * (bpf/lib/sw_rv.h dc_rv_retest_all, include/dcbpf/reverie.h
 * dc_rv_retest; docs/admission.md, "PFC in the fabric").  The tracker runs
 * it at every departure (a tracing program, not test-runnable); XDP
 * admission runs the same function at every Reverie arrival, which is what
 * these fixtures drive, a lossy packet 10.9.0.2 → 10.9.1.2 (port 0 → port 1):
 *  - a stale count: a queue PAUSED with 3000 B shared + 2000 B headroom
 *    whose last packet went to port 1 at position 100000, port 1 having
 *    given out 100000 + 64 KiB: resumed by the re-test, its counts and the
 *    pool's share of them dropped, resumes and retest_resumes 1,
 *    stale_bytes 5000, dc_sw_pfc no longer paused; its retest bit cleared
 *    at the next re-test;
 *  - a genuine backlog: the same with port 1 one byte short of it: still
 *    paused, every count unchanged; a lossless arrival then moves the
 *    queue's position to where port 1 stands plus its backlog and length;
 *  - the Γ test alone: headroom empty, q̂ ≤ Γ, position unknown: resumed,
 *    the count kept;
 *  - --queues 2 (HTB: no FIFO order): the stale state is not dropped;
 *  - a queue not in retest_mask is not looked at.
 * Fixture: tests/lib/swfixture.h.  Needs root.
 */
#define _GNU_SOURCE
#include "skelfix.h"
#include "check.h"
#include "swfixture.h"
#include "dcbpf/reverie.h"

static struct swfix f;
static int rvfd, pfcfd;
static struct dc_sw_rv st, got;

#define B 200000U
#define HQ 6000U
#define HP 12000U
#define TOS_LOSSLESS (26 << 2)	/* DSCP 26 → priority 3 */
#define TOS_LOSSY 0
#define IN_KEY (0 * DC_SW_PRIOS + 3)	/* lossless: ingress port 0, priority 3 */
#define DONE 100000ULL

static int run(__u8 tos, __u32 len)
{
	unsigned char pkt[1600];

	swfix_pkt(pkt, len, "10.9.1.2", tos);
	return swfix_run(&f, pkt, len, NULL, 1, NULL);
}

/* Port 1 as the tracker leaves it: tx given out, backlog held. */
static void port1(__u64 tx, __u64 backlog)
{
	struct dc_sw_port p;
	__u32 one = 1;

	swfix_queue(&f, backlog, backlog, 1, (__u32)DC_Q16_ONE);
	bpf_map_lookup_elem(f.port, &one, &p);
	p.tx_bytes = tx;
	bpf_map_update_elem(f.port, &one, &p, BPF_ANY);
}

/* The lossless queue paused with q_bytes shared and hdrm headroom, its
 * position on port 1 at DONE (port1 0: unknown), its bit set or not, and
 * dc_sw_pfc telling the upstream it is paused. */
static void paused_state(__u64 q, __u64 hdrm, __u32 pos_port1, bool bit)
{
	struct dc_sw_pfc e = { .paused = 1, .pauses = 1, .pause_ns = 1, .write_ns = 1 };
	struct dc_sw_rvq *r = &st.in[IN_KEY];
	__u32 zero = 0, k = IN_KEY;

	memset(&st, 0, sizeof(st));
	r->q.paused = 1;
	r->q.q_bytes = q;
	r->q.hdrm_bytes = hdrm;
	r->q.qhat_q16 = q << DC_Q16_SHIFT;
	r->q.level_q16 = dc_rv_level_q16(r->q.qhat_q16, DC_RV_DEFAULT_CONG_BYTES);
	r->pauses = 1;
	st.pool.q_shared = q;
	st.pool.hdrm_used = hdrm;
	st.pool.n_q16[DC_RV_LOSSLESS] = r->q.level_q16;
	st.pos[IN_KEY].port1 = pos_port1;
	st.pos[IN_KEY].done_bytes = DONE;
	if (bit)
		st.retest_mask[IN_KEY / 64] = 1ULL << (IN_KEY % 64);
	bpf_map_update_elem(rvfd, &zero, &st, BPF_ANY);
	bpf_map_update_elem(pfcfd, &k, &e, BPF_ANY);
}

static void get(struct dc_sw_pfc *e)
{
	__u32 zero = 0, k = IN_KEY;

	memset(&got, 0xa5, sizeof(got));
	bpf_map_lookup_elem(rvfd, &zero, &got);
	memset(e, 0xa5, sizeof(*e));
	bpf_map_lookup_elem(pfcfd, &k, e);
}

static void stale(void)
{
	const struct dc_sw_rvq *r = &got.in[IN_KEY];
	struct dc_sw_pfc e;

	port1(DONE + DC_RV_RETEST_SLACK_BYTES, 0);
	paused_state(3000, 2000, 1 + 1, true);
	CHECK_EQ("retest: a lossy packet passes", run(TOS_LOSSY, 1000), XDP_PASS);
	get(&e);
	CHECK("retest: a paused queue whose packets all left (port 1 at its position + 64 KiB) "
	      "resumes",
	      r->q.paused == 0 && r->resumes == 1 && r->retest_resumes == 1 && r->pauses == 1,
	      "paused %u resumes %llu retest_resumes %llu", r->q.paused,
	      (unsigned long long)r->resumes, (unsigned long long)r->retest_resumes);
	CHECK("retest: ... its stale count dropped (5000 B), from the queue and the pool",
	      r->stale_bytes == 5000 && r->q.q_bytes == 0 && r->q.hdrm_bytes == 0 &&
		      r->q.qhat_q16 == 0 && r->q.level_q16 == 0 && got.pool.hdrm_used == 0 &&
		      got.pool.q_shared == 1000 && got.pool.n_q16[DC_RV_LOSSLESS] == 0,
	      "stale %llu q %llu hdrm %llu qhat %llu pool %llu/%llu n %llu",
	      (unsigned long long)r->stale_bytes, (unsigned long long)r->q.q_bytes,
	      (unsigned long long)r->q.hdrm_bytes, (unsigned long long)r->q.qhat_q16,
	      (unsigned long long)got.pool.q_shared, (unsigned long long)got.pool.hdrm_used,
	      (unsigned long long)got.pool.n_q16[DC_RV_LOSSLESS]);
	CHECK("retest: ... the upstream's copy in dc_sw_pfc resumed (written now)",
	      e.paused == 0 && e.pauses == 1 && e.write_ns > 1, "paused %u pauses %u write_ns %llu",
	      e.paused, e.pauses, (unsigned long long)e.write_ns);
	run(TOS_LOSSY, 1000);
	get(&e);
	CHECK("retest: ... its retest bit cleared at the next re-test, nothing counted twice",
	      !(got.retest_mask[IN_KEY / 64] & (1ULL << (IN_KEY % 64))) &&
		      got.in[IN_KEY].resumes == 1 && got.in[IN_KEY].retest_resumes == 1,
	      "mask %#llx resumes %llu", (unsigned long long)got.retest_mask[IN_KEY / 64],
	      (unsigned long long)got.in[IN_KEY].resumes);
}

static void backlogged(void)
{
	const struct dc_sw_rvq *r = &got.in[IN_KEY];
	struct dc_sw_pfc e;
	__u64 tx = DONE + DC_RV_RETEST_SLACK_BYTES - 1;

	port1(tx, 4000);
	paused_state(3000, 2000, 1 + 1, true);
	run(TOS_LOSSY, 1000);
	get(&e);
	CHECK("retest: port 1 one byte short of the queue's position + 64 KiB: still paused",
	      r->q.paused == 1 && r->resumes == 0 && r->retest_resumes == 0 && e.paused == 1,
	      "paused %u resumes %llu pfc %u", r->q.paused, (unsigned long long)r->resumes, e.paused);
	CHECK("retest: ... every count unchanged (3000 + 2000 B, pool 4000 + 2000 B)",
	      r->q.q_bytes == 3000 && r->q.hdrm_bytes == 2000 && r->stale_bytes == 0 &&
		      got.pool.q_shared == 4000 && got.pool.hdrm_used == 2000,
	      "q %llu hdrm %llu pool %llu/%llu", (unsigned long long)r->q.q_bytes,
	      (unsigned long long)r->q.hdrm_bytes, (unsigned long long)got.pool.q_shared,
	      (unsigned long long)got.pool.hdrm_used);
	CHECK_EQ("retest: a lossless packet of the paused queue passes into its headroom",
		 run(TOS_LOSSLESS, 1000), XDP_PASS);
	get(&e);
	CHECK("retest: ... and moves its position to port 1's tx + backlog + length",
	      r->q.paused == 1 && r->q.hdrm_bytes == 3000 && got.pos[IN_KEY].port1 == 2 &&
		      got.pos[IN_KEY].done_bytes == tx + 4000 + 1000,
	      "paused %u hdrm %llu port1 %u done %llu", r->q.paused,
	      (unsigned long long)r->q.hdrm_bytes, got.pos[IN_KEY].port1,
	      (unsigned long long)got.pos[IN_KEY].done_bytes);
	port1(tx + 1, 4000);
	run(TOS_LOSSY, 1000);
	get(&e);
	CHECK("retest: ... so port 1 reaching the old position + 64 KiB no longer releases it",
	      r->q.paused == 1 && r->q.hdrm_bytes == 3000 && e.paused == 1, "paused %u hdrm %llu",
	      r->q.paused, (unsigned long long)r->q.hdrm_bytes);
}

static void gamma_only(void)
{
	const struct dc_sw_rvq *r = &got.in[IN_KEY];
	struct dc_sw_pfc e;

	port1(1ULL << 40, 0);
	paused_state(3000, 0, 0, true);
	run(TOS_LOSSY, 1000);
	get(&e);
	CHECK("retest: headroom empty, q̂ <= Γ, position unknown: resumed by the Γ test, count kept",
	      r->q.paused == 0 && r->retest_resumes == 1 && r->stale_bytes == 0 &&
		      r->q.q_bytes == 3000 && e.paused == 0,
	      "paused %u retest_resumes %llu stale %llu q %llu", r->q.paused,
	      (unsigned long long)r->retest_resumes, (unsigned long long)r->stale_bytes,
	      (unsigned long long)r->q.q_bytes);
	paused_state(3000, 2000, 0, true);
	run(TOS_LOSSY, 1000);
	get(&e);
	CHECK("retest: headroom in use, position unknown (port 1 far past): still paused, kept",
	      r->q.paused == 1 && r->q.hdrm_bytes == 2000 && r->stale_bytes == 0 && e.paused == 1,
	      "paused %u hdrm %llu", r->q.paused, (unsigned long long)r->q.hdrm_bytes);
}

static void not_fifo(void)
{
	const struct dc_sw_rvq *r = &got.in[IN_KEY];
	struct dc_sw_pfc e;

	swfix_nqueues(&f, 2);
	port1(DONE + DC_RV_RETEST_SLACK_BYTES, 0);
	paused_state(3000, 2000, 1 + 1, true);
	run(TOS_LOSSY, 1000);
	get(&e);
	CHECK("retest: --queues 2 (HTB, no FIFO order): the position is not trusted, still paused",
	      r->q.paused == 1 && r->q.hdrm_bytes == 2000 && r->stale_bytes == 0 && e.paused == 1,
	      "paused %u hdrm %llu stale %llu", r->q.paused, (unsigned long long)r->q.hdrm_bytes,
	      (unsigned long long)r->stale_bytes);
	swfix_nqueues(&f, 1);
	paused_state(3000, 2000, 1 + 1, false);
	run(TOS_LOSSY, 1000);
	get(&e);
	CHECK("retest: a paused queue without its retest bit is not looked at",
	      r->q.paused == 1 && r->q.hdrm_bytes == 2000 && e.paused == 1, "paused %u",
	      r->q.paused);
	CHECK("retest: bpftool map dump names the new fields (BTF)",
	      dc_fd_dump_has(rvfd, "\"retest_resumes\"") && dc_fd_dump_has(rvfd, "\"stale_bytes\"") &&
		      dc_fd_dump_has(rvfd, "\"retest_mask\"") && dc_fd_dump_has(rvfd, "\"done_bytes\""),
	      "a field is missing");
}

int main(void)
{
	unsigned int i;

	DC_TEST_NEED_ROOT("switch reverie re-test fixtures");
	if (swfix_setup(&f)) {
		printf("FAIL: switch reverie re-test fixture: namespace, veths and switch object set up\n");
		return 1;
	}
	rvfd = bpf_map__fd(f.skel->maps.dc_sw_rv);
	pfcfd = bpf_map__fd(f.skel->maps.dc_sw_pfc);
	memset(&f.c, 0, sizeof(f.c));
	f.c.alg = DC_ALG_REVERIE;
	f.c.buffer_bytes = B;
	for (i = 0; i < 64; i++)
		f.c.dscp_prio[i] = (__u8)(i >> 3);
	f.c.rv.alpha_q16[DC_RV_LOSSY] = (__u32)DC_Q16_ONE;
	f.c.rv.alpha_q16[DC_RV_LOSSLESS] = (__u32)DC_Q16_ONE;
	f.c.rv.gamma_q32 = (__u32)DC_RV_DEFAULT_GAMMA_Q32;
	f.c.rv.hdrm_bytes = HQ;
	f.c.rv.hdrm_pool_bytes = HP;
	f.c.rv.cong_bytes = DC_RV_DEFAULT_CONG_BYTES;
	f.c.rv.lossless[3] = 1;
	swfix_cfg(&f);
	stale();
	backlogged();
	gamma_only();
	not_fifo();
	switch_bpf__destroy(f.skel);
	return check_failed;
}
