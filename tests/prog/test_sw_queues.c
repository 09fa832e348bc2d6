// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The switch's XDP admission with strict-priority queues per port
 * (dc_sw_meta.nqueues = 2; docs/admission.md, "Priority queues"): a packet
 * is decided on its own queue's record (dc_sw_queue), not the port's, with
 * its priority's α, its queue's γ and its class's ABM n_p, and the
 * queue's record gets the threshold; with one queue the same state decides
 * on the port as before.  Fixture: tests/lib/swfixture.h (FIB: 10.9.1.2 →
 * a1 = port 1).  Needs root.
 */
#define _GNU_SOURCE
#include "skelfix.h"
#include "check.h"
#include "swfixture.h"

static struct swfix f;

#define Q16(x) ((__u32)((x) * 65536.0 + 0.5))
#define LEN 200
#define B 1000000ULL

static int qfd;

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* Port 1 holds q0 + q1 bytes in its queues 0 and 1; Q = the same; fresh. */
static void state(__u64 q0, __u64 q1, __u32 n0, __u32 n1, __u32 gamma1)
{
	struct dc_sw_queue r;
	__u32 key;

	swfix_queue(&f, q0 + q1, q0 + q1, 1, (__u32)DC_Q16_ONE);
	{
		struct dc_sw_state s = { .occupancy_bytes = q0 + q1, .abm_congested = 1 };
		__u32 zero = 0;

		s.abm_congested_q[0] = n0;
		s.abm_congested_q[1] = n1;
		bpf_map_update_elem(f.state, &zero, &s, BPF_ANY);
	}
	memset(&r, 0, sizeof(r));
	r.last_ns = mono_ns();
	r.qlen_bytes = q0;
	r.gamma_q16 = (__u32)DC_Q16_ONE;
	key = dc_qrec_key(1, 0);
	bpf_map_update_elem(qfd, &key, &r, BPF_ANY);
	r.qlen_bytes = q1;
	r.gamma_q16 = gamma1;
	key = dc_qrec_key(1, 1);
	bpf_map_update_elem(qfd, &key, &r, BPF_ANY);
}

static int verdict(__u8 tos)
{
	unsigned char in[LEN];

	swfix_pkt(in, LEN, "10.9.1.2", tos);
	return swfix_run(&f, in, LEN, NULL, 1, NULL);
}

/* dc_sw_prio (TC egress) on a frame: the skb->priority it leaves, or
 * ~0 if the run failed.  *ret gets its return value. */
static __u32 tc_prio(__u8 tos, bool arp, int *ret)
{
	unsigned char in[LEN];
	struct __sk_buff ctx = { 0 }, out = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in, .data_size_in = LEN, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .ctx_out = &out, .ctx_size_out = sizeof(out));

	swfix_pkt(in, LEN, "10.9.1.2", tos);
	if (arp)
		in[12] = 0x08, in[13] = 0x06;
	if (bpf_prog_test_run_opts(bpf_program__fd(f.skel->progs.dc_sw_prio), &o))
		return ~0U;
	*ret = (int)o.retval;
	return out.priority;
}

int main(void)
{
	DC_TEST_NEED_ROOT("switch queue fixtures");
	if (swfix_setup(&f)) {
		printf("FAIL: switch queue fixture: namespace, veths and switch object set up\n");
		return 1;
	}
	qfd = bpf_map__fd(f.skel->maps.dc_sw_queue);
	swfix_dt(&f, B, Q16(0.5));
	swfix_cfg(&f);

	/* DT, two queues: the low queue holds 400 kB, T = 0.5·(1 MB − 400 kB) */
	swfix_nqueues(&f, 2);
	state(400000, 0, 1, 1, (__u32)DC_Q16_ONE);
	CHECK_EQ("queues dt: a DSCP 0 packet meets its full queue (400 kB ≥ T = 300 kB): dropped",
		 verdict(0x00), XDP_DROP);
	CHECK_EQ("queues dt: queue 0's record has T = 300 kB", swfix_qthresh(&f, 0), 300000);
	CHECK_EQ("queues dt: a CS5 packet (priority 5 → queue 1, empty) is admitted", verdict(0xa0),
		 XDP_PASS);
	CHECK_EQ("queues dt: queue 1's record has its T = 300 kB", swfix_qthresh(&f, 1), 300000);
	/* α per priority: α_5 = 1/8 → T = 75 kB; queue 1 at 80 kB refuses */
	f.c.alpha_q16[5] = Q16(0.125);
	swfix_cfg(&f);
	state(320000, 80000, 1, 1, (__u32)DC_Q16_ONE);
	CHECK_EQ("queues dt: α of priority 5 = 1/8: queue 1 at 80 kB ≥ T = 75 kB drops CS5",
		 verdict(0xa0), XDP_DROP);
	CHECK_EQ("queues dt: ... and its record shows T = 75 kB", swfix_qthresh(&f, 1), 75000);
	f.c.alpha_q16[5] = Q16(0.5);
	swfix_cfg(&f);

	/* one queue: the same state decides on the port's 400 kB */
	swfix_nqueues(&f, 1);
	state(400000, 0, 1, 1, (__u32)DC_Q16_ONE);
	CHECK_EQ("one queue: the CS5 packet meets the port's 400 kB: dropped", verdict(0xa0),
		 XDP_DROP);

	/* ABM, two queues: n_p per class (4 congested low queues, none high),
	 * γ per queue.  Q = 100 kB: α(B − Q) = 450 kB. */
	f.c.alg = DC_ALG_ABM;
	swfix_cfg(&f);
	swfix_nqueues(&f, 2);
	state(100000, 0, 4, 1, (__u32)DC_Q16_ONE);
	CHECK_EQ("queues abm: the low class divides by its n_p = 4: q 100 kB < T = 112.5 kB, admitted",
		 verdict(0x00), XDP_PASS);
	CHECK_EQ("queues abm: queue 0's T = ⌈450 kB / 4⌉", swfix_qthresh(&f, 0), 112500);
	CHECK_EQ("queues abm: the high class (n_p = 1) gets T = 450 kB", (verdict(0xa0), swfix_qthresh(&f, 1)),
		 450000);
	state(100000, 0, 4, 1, Q16(0.25));
	CHECK_EQ("queues abm: queue 1's γ = 1/4 → T = 112.5 kB", (verdict(0xa0), swfix_qthresh(&f, 1)),
		 112500);
	state(120000, 0, 4, 1, (__u32)DC_Q16_ONE);
	CHECK_EQ("queues abm: low queue at 120 kB ≥ ⌈440 kB / 4⌉ = 110 kB: dropped", verdict(0x00),
		 XDP_DROP);

	/* the egress classifier: the leaf of the packet's priority's queue */
	{
		int ret = 0;

		swfix_nqueues(&f, 2);
		CHECK_EQ("tc prio: CS5 goes to leaf 1:2 (queue 1)", tc_prio(0xa0, false, &ret),
			 0x10002);
		CHECK_EQ("tc prio: and lets the next program on the hook run (TCX_NEXT)", ret, -1);
		CHECK_EQ("tc prio: DSCP 0 goes to leaf 1:1 (queue 0)", tc_prio(0x00, false, &ret),
			 0x10001);
		CHECK_EQ("tc prio: a frame that is not IP (ARP) goes to leaf 1:1",
			 tc_prio(0xa0, true, &ret), 0x10001);
		swfix_nqueues(&f, 8);
		CHECK_EQ("tc prio: 8 queues, CS5 goes to leaf 1:6", tc_prio(0xa0, false, &ret),
			 0x10006);
		swfix_nqueues(&f, 1);
		CHECK_EQ("tc prio: one queue leaves skb->priority alone", tc_prio(0xa0, false, &ret), 0);
	}
	switch_bpf__destroy(f.skel);
	return check_failed;
}
