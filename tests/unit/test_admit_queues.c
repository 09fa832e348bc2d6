// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * Strict-priority queues per port in the admission core
 * (include/dcbpf/admit.h, "Strict-priority queues"; docs/admission.md,
 * "Priority queues"): the priority → queue → HTB class mapping, the
 * tracker's per-leaf step, and DT / ABM decided per (port, queue) against
 * the shared buffer.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "dcbpf/admit.h"

#define Q16(x) ((__u32)((x) * 65536.0 + 0.5))

static void test_mapping(void)
{
	__u32 p, k, seen = 0;

	/* one queue (0, 1): everything in queue 0, as before queues */
	for (p = 0; p < DC_SW_PRIOS; p++) {
		CHECK_EQ("map: nqueues 0 puts every priority in queue 0", dc_queue_of_prio(p, 0), 0);
		CHECK_EQ("map: nqueues 1 puts every priority in queue 0", dc_queue_of_prio(p, 1), 0);
	}
	CHECK_EQ("map: 2 queues, priority 0 → queue 0", dc_queue_of_prio(0, 2), 0);
	CHECK_EQ("map: 2 queues, priority 1 → queue 1", dc_queue_of_prio(1, 2), 1);
	CHECK_EQ("map: 2 queues, priority 7 → queue 1 (the top queue takes the rest)",
		 dc_queue_of_prio(7, 2), 1);
	CHECK_EQ("map: 4 queues, priority 2 → queue 2", dc_queue_of_prio(2, 4), 2);
	CHECK_EQ("map: 4 queues, priority 6 → queue 3", dc_queue_of_prio(6, 4), 3);
	for (p = 0; p < DC_SW_PRIOS; p++)
		seen |= 1U << dc_queue_of_prio(p, 8);
	CHECK_EQ("map: 8 queues, one priority each", seen, 0xff);
	CHECK_EQ("map: nqueues above the maximum is clamped to 8", dc_queue_of_prio(7, 200), 7);

	CHECK_EQ("class: queue 0 is HTB leaf 1:1", dc_queue_classid(0), 0x10001);
	CHECK_EQ("class: queue 7 is HTB leaf 1:8", dc_queue_classid(7), 0x10008);
	for (k = 0; k < 8; k++)
		CHECK_EQ("class: a leaf's class id maps back to its queue",
			 dc_queue_of_classid(dc_queue_classid(k), 8), k);
	CHECK_EQ("class: 1:3 with 2 queues is no leaf: HTB's default, queue 0",
		 dc_queue_of_classid(0x10003, 2), 0);
	CHECK_EQ("class: another major (2:1) → queue 0", dc_queue_of_classid(0x20001, 8), 0);
	CHECK_EQ("class: the kernel's own priority (TC_PRIO_*, major 0) → queue 0",
		 dc_queue_of_classid(6, 8), 0);
	CHECK_EQ("class: 1:0 (the HTB itself) → queue 0", dc_queue_of_classid(0x10000, 8), 0);

	CHECK_EQ("htb prio: the top queue of 4 is served first (prio 0)", dc_queue_htb_prio(3, 4), 0);
	CHECK_EQ("htb prio: queue 0 of 4 is served last (prio 3)", dc_queue_htb_prio(0, 4), 3);
	CHECK_EQ("htb prio: 8 queues, queue 1 → prio 6", dc_queue_htb_prio(1, 8), 6);

	CHECK_EQ("key: (port 0, queue 0) → 0", dc_qrec_key(0, 0), 0);
	CHECK_EQ("key: (port 3, queue 5) → 29", dc_qrec_key(3, 5), 29);
	CHECK_EQ("key: the last record is the map's last entry",
		 dc_qrec_key(DC_SW_PORTS_MAX - 1, DC_SW_QUEUES_MAX - 1), DC_SW_QREC_ENTRIES - 1);
}

/* The leaf tracker against a model of two bfifo leaves under one root. */
static void test_track(void)
{
	__u64 leaf[2] = { 0, 0 }, model[2] = { 0, 0 }, root;
	__u64 s = 0x9e3779b97f4a7c15ULL;
	int i, ok = 1;

	for (i = 0; i < 20000; i++) {
		__u32 k, len;
		bool deq;

		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		k = (__u32)(s & 1);
		len = 64 + (__u32)((s >> 8) % 9000);
		deq = (s >> 40) & 1;
		if (deq) {
			/* HTB gives out a whole packet of a non-empty leaf: take
			 * one of the sizes that went in (the model keeps bytes) */
			if (!model[k])
				continue;
			if (len > model[k])
				len = (__u32)model[k];
			model[k] -= len;
		} else {
			model[k] += len;
		}
		root = model[0] + model[1];
		leaf[k] = dc_qtrack_step(leaf[k], len, deq, root);
		ok &= leaf[0] == model[0] && leaf[1] == model[1];
	}
	CHECK("track: every event seen: each leaf equals its backlog (20000 events)", ok,
	      "leaf %llu/%llu model %llu/%llu", (unsigned long long)leaf[0],
	      (unsigned long long)leaf[1], (unsigned long long)model[0],
	      (unsigned long long)model[1]);

	/* a missed dequeue leaves the leaf above its backlog until the next
	 * event of the port re-anchors it on the real root backlog */
	leaf[0] = dc_qtrack_step(0, 3000, false, 3000);
	/* (dequeue of 1500 missed: the root now holds 1500) */
	leaf[0] = dc_qtrack_step(leaf[0], 1500, true, 0);
	CHECK_EQ("track: a missed dequeue is corrected when the port empties", leaf[0], 0);
	leaf[1] = dc_qtrack_step(0, 4000, false, 4000);
	leaf[1] = dc_qtrack_step(leaf[1], 1000, false, 2000);
	CHECK_EQ("track: a queue never exceeds its port's backlog", leaf[1], 2000);
	CHECK_EQ("track: a dequeue larger than the record floors at 0",
		 dc_qtrack_step(500, 1500, true, 10000), 0);
}

static void test_reconcile(void)
{
	__u64 q[4];

	q[0] = 300000, q[1] = 0, q[2] = 0, q[3] = 0;
	CHECK_EQ("reconcile: 30 kB missed go to the lowest non-empty queue",
		 dc_qtrack_reconcile(q, 4, 330000), 30000);
	CHECK("reconcile: queue 0 = 330 kB, the others untouched",
	      q[0] == 330000 && !q[1] && !q[2] && !q[3], "%llu %llu", (unsigned long long)q[0],
	      (unsigned long long)q[1]);
	q[0] = 0, q[1] = 5000, q[2] = 1500, q[3] = 0;
	dc_qtrack_reconcile(q, 4, 8000);
	CHECK("reconcile: queue 0 empty: the lowest non-empty (1) takes the difference",
	      q[0] == 0 && q[1] == 6500 && q[2] == 1500, "%llu %llu %llu",
	      (unsigned long long)q[0], (unsigned long long)q[1], (unsigned long long)q[2]);
	q[0] = 0, q[1] = 0, q[2] = 0, q[3] = 0;
	dc_qtrack_reconcile(q, 4, 1500);
	CHECK_EQ("reconcile: all empty: queue 0 (HTB's default) takes it", q[0], 1500);
	q[0] = 1000, q[1] = 4000, q[2] = 0, q[3] = 0;
	CHECK_EQ("reconcile: 3 kB too many come off the lowest queues first",
		 dc_qtrack_reconcile(q, 4, 2000), 3000);
	CHECK("reconcile: queue 0 emptied, queue 1 gives the rest (1000, 4000 → 0, 2000)",
	      q[0] == 0 && q[1] == 2000, "%llu %llu", (unsigned long long)q[0],
	      (unsigned long long)q[1]);
	q[0] = 700, q[1] = 800;
	CHECK_EQ("reconcile: a sum equal to the port's backlog moves nothing",
		 dc_qtrack_reconcile(q, 2, 1500), 0);
}

/* DT and ABM per queue: the packet's own queue against the shared buffer. */
static void test_decide(void)
{
	struct dc_adm_in in = { .B = 1000, .len = 1, .gamma_q16 = (__u32)DC_Q16_ONE,
				.n_congested = 1 };
	__u64 t, lo = 400, hi = 0;
	__u32 n_q[2] = { 2, 1 };

	/* B = 1000, α = 0.5; the port's low queue holds 400, its high queue 0:
	 * Q = 400, T = 0.5·600 = 300 for each queue */
	in.alpha_q16 = Q16(0.5);
	in.Q = lo + hi;
	in.q = lo;
	CHECK_EQ("dt per queue: the low queue at 400 ≥ T = 300 is refused",
		 dc_adm_decide(DC_ALG_DT, &in, &t), DC_V_DROP_THRESH);
	CHECK_EQ("dt per queue: T = α(B − Q) = 300", t, 300);
	in.q = hi;
	CHECK_EQ("dt per queue: the high queue of the same port (q = 0) is admitted",
		 dc_adm_decide(DC_ALG_DT, &in, &t), DC_V_ADMIT);
	in.q = lo + hi;
	CHECK_EQ("dt: one queue per port (q = the port's 400) would refuse that packet",
		 dc_adm_decide(DC_ALG_DT, &in, &t), DC_V_DROP_THRESH);

	/* α per priority: the high queue's α = 2 gives it T = 1200 → capped by
	 * the buffer test only */
	in.q = 299;
	in.alpha_q16 = Q16(2);
	CHECK_EQ("dt per queue: α = 2 of the high priority: T = 1200",
		 (dc_adm_decide(DC_ALG_DT, &in, &t), t), 1200);
	in.Q = 1000;
	CHECK_EQ("dt per queue: the shared buffer still bounds every queue (Q + len > B)",
		 dc_adm_decide(DC_ALG_DT, &in, &t), DC_V_DROP_FULL);

	/* ABM: n_p per priority class.  Two low queues congested on two ports,
	 * none of the high class: the high class divides by 1, the low by 2. */
	in.Q = 400;
	in.alpha_q16 = Q16(0.5);
	in.q = 0;
	in.n_congested = n_q[1];
	CHECK_EQ("abm per priority: the high class (n = 1) gets T = 300",
		 (dc_adm_decide(DC_ALG_ABM, &in, &t), t), 300);
	in.n_congested = n_q[0];
	CHECK_EQ("abm per priority: the low class (n = 2) gets T = 150",
		 (dc_adm_decide(DC_ALG_ABM, &in, &t), t), 150);
	in.gamma_q16 = Q16(0.25);
	CHECK_EQ("abm per queue: γ = 0.25 of a starved low queue: T = 38 (⌈37.5⌉)",
		 (dc_adm_decide(DC_ALG_ABM, &in, &t), t), 38);
}

static void test_next(void)
{
	__u64 q[4] = { 5, 0, 7, 0 };

	CHECK_EQ("strict: the highest non-empty queue is served (2 of 0, 2)", dc_queue_next(q, 4), 2);
	q[2] = 0;
	CHECK_EQ("strict: then the lower one", dc_queue_next(q, 4), 0);
	q[0] = 0;
	CHECK_EQ("strict: none non-empty → nq", dc_queue_next(q, 4), 4);
	q[3] = 1;
	CHECK_EQ("strict: the top queue", dc_queue_next(q, 4), 3);
}

int main(void)
{
	test_mapping();
	test_track();
	test_reconcile();
	test_decide();
	test_next();
	return check_failed;
}
