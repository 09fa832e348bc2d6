// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * The switch's re-test of paused lossless queues (include/dcbpf/reverie.h
 * dc_rv_pos_note, dc_rv_pos_gone, dc_rv_retest; docs/admission.md, "PFC in
 * the fabric"), on a FIFO port modelled packet by packet:
 *  - T-RT1 a stale count: a paused queue whose last departure was lost (the
 *    race of plain stores) stays paused with nothing of it left, while a
 *    lossy flow keeps the port busy; with the re-test at every departure it
 *    resumes at the first departure that puts the port DC_RV_RETEST_SLACK_BYTES
 *    past its last packet, not one earlier, and the stale bytes leave the
 *    pool;
 *  - T-RT2 a genuine backlog: a paused queue whose packets wait behind
 *    others is never trimmed by the re-test; its count follows its packets
 *    exactly down to zero, and it resumes at its own departure;
 *  - T-RT3 the position: fresh when the count was zero, the largest while
 *    one port, unknown after a second port (then nothing is trimmed, only
 *    the Γ test runs); an unpaused queue is left alone; the Γ test alone
 *    resumes a paused queue with an empty headroom and q̂ ≤ Γ.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "dcbpf/reverie.h"

#define PKT 1500U
#define FIFO_MAX 4096
#define PORT 2U

/* One FIFO port: packets of queue id 0 (lossless A), 1 (lossless B) or 2
 * (lossy); tx counts the bytes given out, as the qdisc's bstats do. */
struct fifo {
	unsigned char who[FIFO_MAX];
	__u32 len[FIFO_MAX];
	unsigned int head, tail;
	__u64 tx, backlog;
};

static struct dc_rv_params P;
static struct dc_rv_pool pool;
static struct dc_rv_queue q[3];
static struct dc_rv_fifo_pos pos[2];
static struct fifo f;

static void setup(void)
{
	dc_rv_defaults(&P, 200000, 20000, 2);
	P.gamma_q32 = 0;	/* q̂ = q: the tests reason on counts */
	memset(&pool, 0, sizeof(pool));
	memset(q, 0, sizeof(q));
	memset(pos, 0, sizeof(pos));
	memset(&f, 0, sizeof(f));
}

/* An arrival through the core, the position noted as XDP notes it. */
static enum dc_rv_verdict arrive(unsigned int id, __u32 len)
{
	__u32 cls = id < 2 ? DC_RV_LOSSLESS : DC_RV_LOSSY;
	__u64 had = q[id].q_bytes + q[id].hdrm_bytes;
	enum dc_rv_verdict v;
	bool pause;

	v = dc_rv_arrival(&P, &pool, &q[id], cls, len, &pause);
	if (v != DC_RV_SHARED && v != DC_RV_HEADROOM)
		return v;
	if (id < 2)
		dc_rv_pos_note(&pos[id], had, PORT, f.tx, f.backlog, len);
	f.who[f.tail % FIFO_MAX] = (unsigned char)id;
	f.len[f.tail % FIFO_MAX] = len;
	f.tail++;
	f.backlog += len;
	return v;
}

/* The head leaves: its queue's departure (unless lost), then the re-test
 * of every paused lossless queue.  Returns the queue that resumed by the
 * re-test (bit id), 0 if none; *own: resumed at its own departure. */
static unsigned int depart(bool lose, bool retest, bool *own, __u64 *stale)
{
	unsigned int id = f.who[f.head % FIFO_MAX], k, r = 0;
	__u32 len = f.len[f.head % FIFO_MAX];
	__u64 d;

	f.head++;
	f.tx += len;
	f.backlog -= len;
	*own = false;
	if (!lose)
		*own = dc_rv_departure(&P, &pool, &q[id], id < 2 ? DC_RV_LOSSLESS : DC_RV_LOSSY, len);
	if (!retest)
		return 0;
	for (k = 0; k < 2; k++) {
		if (dc_rv_retest(&P, &pool, &q[k], dc_rv_pos_gone(&pos[k], PORT, f.tx), &d))
			r |= 1U << k;
		*stale += d;
	}
	return r;
}

/* Queue A paused with its headroom in use, its last departure lost, while
 * a lossy flow arrives at the port's rate: one lossy packet in per packet
 * out.  Returns the departure (1-based) at which A resumed, 0 if never in
 * `steps`; *tx_at: the port's tx then; *done: A's last packet's position. */
static unsigned int stale_run(bool retest, unsigned int steps, __u64 *tx_at, __u64 *done,
			      __u64 *stale)
{
	unsigned int i, got = 0;
	bool own;

	setup();
	/* α_LL 1/64: with the lossy flow holding half the pool Γ of the
	 * lossless class is below one packet, so A, once paused, runs again
	 * only with an empty count */
	P.alpha_q16[DC_RV_LOSSLESS] = DC_Q16_ONE / 64;
	/* A fills past Γ and pauses; its packets go to the headroom */
	while (!q[0].paused)
		arrive(0, PKT);
	arrive(0, PKT);
	arrive(0, PKT);
	for (i = 0; i < 60; i++)
		arrive(2, PKT);
	*done = pos[0].done_bytes;
	*stale = 0;
	for (i = 1; i <= steps && f.head != f.tail; i++) {
		/* the last of A's packets: its departure lost to a race */
		bool last_a = f.who[f.head % FIFO_MAX] == 0 && f.head + 1 < f.tail &&
			      q[0].q_bytes + q[0].hdrm_bytes == PKT;
		unsigned int r = depart(last_a, retest, &own, stale);

		arrive(2, PKT);
		if (!got && (r & 1)) {
			got = i;
			*tx_at = f.tx;
		}
	}
	return got;
}

static void t_rt1(void)
{
	__u64 tx = 0, done = 0, stale = 0, pool_before;
	unsigned int at;

	at = stale_run(false, 3000, &tx, &done, &stale);
	CHECK("T-RT1 without the re-test a stale count holds the queue paused for 3000 departures",
	      at == 0 && q[0].paused && q[0].hdrm_bytes + q[0].q_bytes == PKT, "resumed at %u, paused %u, count %llu",
	      at, q[0].paused, (unsigned long long)(q[0].hdrm_bytes + q[0].q_bytes));
	at = stale_run(true, 3000, &tx, &done, &stale);
	CHECK("T-RT1 with the re-test it resumes (stale count dropped)", at > 0 && !q[0].paused,
	      "at %u paused %u", at, q[0].paused);
	CHECK("T-RT1 not before the port is the slack past its last packet",
	      tx >= done + DC_RV_RETEST_SLACK_BYTES, "tx %llu done %llu", (unsigned long long)tx,
	      (unsigned long long)done);
	CHECK("T-RT1 at the first departure that is (one packet later would be too late)",
	      tx - PKT < done + DC_RV_RETEST_SLACK_BYTES, "tx %llu done %llu",
	      (unsigned long long)tx, (unsigned long long)done);
	CHECK_EQ("T-RT1 the stale count dropped: one packet", stale, PKT);
	CHECK_EQ("T-RT1 the queue's counts are zero", q[0].q_bytes + q[0].hdrm_bytes, 0);
	/* the pool holds exactly the lossy packets still in the FIFO */
	pool_before = pool.q_shared + pool.hdrm_used;
	CHECK_EQ("T-RT1 the pool holds what the FIFO holds", pool_before, f.backlog);
	CHECK_EQ("T-RT1 n lossless back to 0 (q̂ clamped to the empty queue)", pool.n_q16[DC_RV_LOSSLESS], 0);
}

static void t_rt2(void)
{
	unsigned int i, trims = 0, early = 0, own_resume = 0;
	__u64 stale = 0, a_in_fifo, last, upto;
	bool own;

	setup();
	/* 100 kB of lossy ahead, then A past Γ into its headroom, then more
	 * lossy behind: A's packets wait far longer than the slack */
	for (i = 0; i < 70; i++)
		arrive(2, PKT);
	while (!q[0].paused)
		arrive(0, PKT);
	for (i = 0; i < 5; i++)
		arrive(0, PKT);
	for (i = 0; i < 200; i++)
		arrive(2, PKT);
	/* the FIFO's bytes up to and including A's last packet */
	for (i = f.head, last = 0, upto = 0; i != f.tail; i++) {
		upto += f.len[i % FIFO_MAX];
		if (f.who[i % FIFO_MAX] == 0)
			last = upto;
	}
	CHECK("T-RT2 its position is known and exact: the port's bytes through its last packet",
	      pos[0].port1 == PORT + 1 && pos[0].done_bytes == last, "port1 %u done %llu last %llu",
	      pos[0].port1, (unsigned long long)pos[0].done_bytes, (unsigned long long)last);
	while (f.head != f.tail) {
		__u64 s0 = stale;
		unsigned int r = depart(false, true, &own, &stale);
		unsigned int k;

		if (stale != s0)
			trims++;
		if ((r & 1) && q[0].q_bytes + q[0].hdrm_bytes)
			early++;
		if (own && f.who[(f.head - 1) % FIFO_MAX] == 0)
			own_resume++;
		a_in_fifo = 0;
		for (k = f.head; k != f.tail; k++)
			a_in_fifo += f.who[k % FIFO_MAX] == 0 ? f.len[k % FIFO_MAX] : 0;
		if (q[0].q_bytes + q[0].hdrm_bytes != a_in_fifo)
			early++;
	}
	CHECK_EQ("T-RT2 a queue whose packets wait is never trimmed", trims, 0);
	CHECK_EQ("T-RT2 its count equals its bytes in the FIFO at every departure", early, 0);
	CHECK("T-RT2 it resumed at its own departure", own_resume >= 1 && !q[0].paused,
	      "own resumes %u paused %u", own_resume, q[0].paused);
}

static void t_rt3(void)
{
	struct dc_rv_fifo_pos p = { 0 };
	struct dc_rv_queue qu;
	__u64 d = 1;

	dc_rv_pos_note(&p, 0, 3, 1000, 500, 100);
	CHECK("T-RT3 fresh position: port + 1, tx + backlog + len", p.port1 == 4 && p.done_bytes == 1600,
	      "%u %llu", p.port1, (unsigned long long)p.done_bytes);
	dc_rv_pos_note(&p, 100, 3, 900, 0, 100);
	CHECK_EQ("T-RT3 an earlier position does not move it back", p.done_bytes, 1600);
	dc_rv_pos_note(&p, 200, 3, 2000, 300, 100);
	CHECK_EQ("T-RT3 a later one advances it", p.done_bytes, 2400);
	CHECK("T-RT3 gone exactly at done + slack on its port",
	      !dc_rv_pos_gone(&p, 3, 2400 + DC_RV_RETEST_SLACK_BYTES - 1) &&
		      dc_rv_pos_gone(&p, 3, 2400 + DC_RV_RETEST_SLACK_BYTES) &&
		      !dc_rv_pos_gone(&p, 2, 1ULL << 40),
	      "%d %d %d", dc_rv_pos_gone(&p, 3, 2400 + DC_RV_RETEST_SLACK_BYTES - 1),
	      dc_rv_pos_gone(&p, 3, 2400 + DC_RV_RETEST_SLACK_BYTES), dc_rv_pos_gone(&p, 2, 1ULL << 40));
	dc_rv_pos_note(&p, 300, 5, 0, 0, 100);
	CHECK("T-RT3 a packet to a second port: unknown, never gone", p.port1 == 0 &&
	      !dc_rv_pos_gone(&p, 3, 1ULL << 40) && !dc_rv_pos_gone(&p, 5, 1ULL << 40), "port1 %u", p.port1);
	dc_rv_pos_note(&p, 400, 3, 0, 0, 100);
	CHECK_EQ("T-RT3 stays unknown while the count is above zero", p.port1, 0);
	dc_rv_pos_note(&p, 0, 5, 10, 0, 100);
	CHECK("T-RT3 known again once the count was zero", p.port1 == 6 && p.done_bytes == 110, "%u", p.port1);

	setup();
	memset(&qu, 0, sizeof(qu));
	qu.q_bytes = 5000;
	qu.qhat_q16 = 5000ULL << 16;
	pool.q_shared = 5000;
	CHECK("T-RT3 an unpaused queue: no resume, nothing dropped even if gone",
	      !dc_rv_retest(&P, &pool, &qu, true, &d) && d == 0 && qu.q_bytes == 5000 &&
		      pool.q_shared == 5000, "d %llu q %llu", (unsigned long long)d,
	      (unsigned long long)qu.q_bytes);
	qu.paused = 1;
	CHECK("T-RT3 paused, headroom empty, q̂ <= Γ: resumes by the Γ test, count kept",
	      dc_rv_retest(&P, &pool, &qu, false, &d) && !qu.paused && d == 0 && qu.q_bytes == 5000,
	      "paused %u d %llu", qu.paused, (unsigned long long)d);
	qu.paused = 1;
	qu.hdrm_bytes = 1500;
	pool.hdrm_used = 1500;
	CHECK("T-RT3 paused with headroom in use and not gone: stays paused",
	      !dc_rv_retest(&P, &pool, &qu, false, &d) && qu.paused && d == 0 && qu.hdrm_bytes == 1500,
	      "paused %u", qu.paused);
	P.clamp = false;
	CHECK("T-RT3 gone: counts dropped from queue and pool, resumed; q̂ kept without the clamp",
	      dc_rv_retest(&P, &pool, &qu, true, &d) && d == 6500 && !qu.q_bytes && !qu.hdrm_bytes &&
		      !pool.q_shared && !pool.hdrm_used && qu.qhat_q16 == 5000ULL << 16,
	      "d %llu pool %llu %llu", (unsigned long long)d, (unsigned long long)pool.q_shared,
	      (unsigned long long)pool.hdrm_used);
}

int main(void)
{
	t_rt1();
	t_rt2();
	t_rt3();
	return check_failed;
}
