// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The simulator (loader/sim.c) on the digest's discrete reference cases
 * (notes/buffer-sharing.md §11), LQD's push-out order, trace files, and
 * the papers' qualitative ordering on an incast-heavy workload.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sim.h"

#define Q16(x) ((__u32)((x) * 65536.0 + 0.5))

static struct dc_sim_arrival arr[200000];
static size_t narr;

static void add(__u32 slot, __u16 port, __u8 prio, __u32 bytes)
{
	arr[narr++] = (struct dc_sim_arrival){ .slot = slot, .port = port, .prio = prio,
					       .bytes = bytes };
}

static struct dc_sim_cfg unit_cfg(__u32 alg, __u32 nports, __u64 B, double alpha)
{
	struct dc_sim_cfg c;
	unsigned int i;

	dc_sim_cfg_defaults(&c);
	c.alg = alg;
	c.nports = nports;
	c.buffer = B;
	for (i = 0; i < DC_SW_PRIOS; i++)
		c.alpha_q16[i] = Q16(alpha);
	return c;
}

/* n overloaded queues: 2 arrivals and 1 departure per slot (T-DT1). */
static __u64 overload(__u32 alg, double alpha, __u32 n, __u32 slots, struct dc_sim_result *r)
{
	struct dc_sim_cfg c = unit_cfg(alg, n, 1200, alpha);
	__u32 t, p;

	narr = 0;
	for (t = 0; t < slots; t++)
		for (p = 0; p < n; p++) {
			add(t, (__u16)p, 0, 1);
			add(t, (__u16)p, 0, 1);
		}
	dc_sim_run(&c, arr, narr, slots, r);
	return r->port[0].final_q;
}

static void test_dt_steady(void)
{
	static const struct {
		double alpha;
		__u32 n;
		__u64 want;
	} cases[] = { { 1, 1, 599 }, { 1, 2, 399 }, { 0.5, 1, 399 }, { 0.5, 2, 299 },
		      { 8, 1, 1066 }, { 2, 3, 342 } };
	static struct dc_sim_result r;
	char name[128];
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		__u64 q = overload(DC_ALG_DT, cases[i].alpha, cases[i].n, 5000, &r);

		snprintf(name, sizeof(name), "sim dt steady state α = %g, n = %u: q ≈ αB/(1+nα) (T-DT1, %llu)",
			 cases[i].alpha, cases[i].n, (unsigned long long)cases[i].want);
		CHECK_RANGE(name, q, cases[i].want - 2, cases[i].want + 2);
	}
	/* T-ABM1 in the simulator: two congested queues, α = 1 → B/4 */
	overload(DC_ALG_ABM, 1, 2, 5000, &r);
	CHECK_RANGE("sim abm: two congested queues, α = 1 → ≈ B/4 each (T-ABM1, 299)",
		    r.port[0].final_q, 297, 301);
	CHECK_RANGE("sim abm: and the second queue the same", r.port[1].final_q, 297, 301);
}

/* T-DT3: AF (α = 2, priority 1) on port 0 loses its share to BE queues. */
static void test_dt_no_isolation(void)
{
	static struct dc_sim_result r;
	__u32 nbe, t, p;

	for (nbe = 1; nbe <= 5; nbe += 4) {
		struct dc_sim_cfg c = unit_cfg(DC_ALG_DT, 1 + nbe, 1200, 1);
		char name[128];
		__u64 want = 2 * 1200 / (3 + nbe);

		c.alpha_q16[1] = Q16(2);
		narr = 0;
		for (t = 0; t < 5000; t++)
			for (p = 0; p <= nbe; p++) {
				add(t, (__u16)p, p == 0 ? 1 : 0, 1);
				add(t, (__u16)p, p == 0 ? 1 : 0, 1);
			}
		dc_sim_run(&c, arr, narr, 5000, &r);
		snprintf(name, sizeof(name), "sim dt: AF share with %u BE queues ≈ 2B/(3+n) = %llu (T-DT3)",
			 nbe, (unsigned long long)want);
		/* α = 2 moves T two units per unit of Q: ±4 around the fluid value */
		CHECK_RANGE(name, r.port[0].final_q, want - 4, want + 4);
	}
}

static void test_lqd_order(void)
{
	struct dc_sim_cfg c = unit_cfg(DC_ALG_LQD, 4, 12, 1);
	static struct dc_sim_result r;
	int i;

	/* slot 0: fill queue 0 (12), one leaves → [11,0,0,0];
	 * slot 1: one packet to 1, 2, 3: the first fits, the next two push
	 * out queue 0's tail; then queue 0 is 9, the others 1 each. */
	narr = 0;
	for (i = 0; i < 12; i++)
		add(0, 0, 0, 1);
	add(1, 1, 0, 1);
	add(1, 2, 0, 1);
	add(1, 3, 0, 1);
	dc_sim_run(&c, arr, narr, 2, &r);
	CHECK_EQ("sim lqd: arrivals to short queues push out the longest", r.port[0].pushed_out, 2);
	CHECK_EQ("sim lqd: and are all admitted", r.port[1].admitted + r.port[2].admitted +
		 r.port[3].admitted, 3);
	CHECK_EQ("sim lqd: the longest queue keeps the rest (12 − 1 − 2 − 1 sent)", r.port[0].final_q, 8);

	/* two equal longest queues: the lower index loses */
	narr = 0;
	for (i = 0; i < 6; i++) {
		add(0, 0, 0, 1);
		add(0, 1, 0, 1);
	}
	add(0, 2, 0, 1);
	dc_sim_run(&c, arr, narr, 1, &r);
	CHECK("sim lqd: tie between longest queues pushes out the lowest index",
	      r.port[0].pushed_out == 1 && r.port[1].pushed_out == 0 && r.port[2].admitted == 1,
	      "pushed out %llu/%llu, admitted %llu", (unsigned long long)r.port[0].pushed_out,
	      (unsigned long long)r.port[1].pushed_out, (unsigned long long)r.port[2].admitted);
	/* the arriving queue is the longest: the arrival goes */
	narr = 0;
	for (i = 0; i < 12; i++)
		add(0, 0, 0, 1);
	add(0, 0, 0, 1);
	dc_sim_run(&c, arr, narr, 1, &r);
	CHECK("sim lqd: an arrival to the longest queue is dropped, nothing pushed out",
	      r.port[0].pushed_out == 0 && r.port[0].drop_full == 1, "pushed %llu dropped %llu",
	      (unsigned long long)r.port[0].pushed_out, (unsigned long long)r.port[0].drop_full);
}

/* T-C9: one burst of B = 64 packets at N = 8 per slot to one queue. */
static void test_burst(void)
{
	static const struct {
		__u32 alg;
		double alpha;
		__u64 sent;
		const char *name;
	} cases[] = { { DC_ALG_LQD, 1, 64, "lqd" }, { DC_ALG_CS, 1, 64, "cs" },
		      { DC_ALG_DT, 0.5, 29, "dt α = 0.5" }, { DC_ALG_DT, 1, 39, "dt α = 1" } };
	static struct dc_sim_result r;
	unsigned int i, k;
	char name[128];

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct dc_sim_cfg c = unit_cfg(cases[k].alg, 8, 64, cases[k].alpha);

		narr = 0;
		for (i = 0; i < 64; i++)
			add(i / 8, 0, 0, 1);
		dc_sim_run(&c, arr, narr, 200, &r);
		snprintf(name, sizeof(name), "sim burst of B at N per slot: %s sends %llu (T-C9)",
			 cases[k].name, (unsigned long long)cases[k].sent);
		CHECK_RANGE(name, r.sent_pkts, cases[k].sent - 1, cases[k].sent + 1);
	}
}

static void test_workload_and_traces(void)
{
	struct dc_sim_cfg c = unit_cfg(DC_ALG_DT, 16, 1000, 0.5);
	struct dc_sim_workload w;
	struct dc_sim_arrival *a = NULL, *b = NULL, *d = NULL;
	size_t na = 0, nb = 0, nd = 0, i;
	static struct dc_sim_result r[DC_ALG_MAX];
	char path[] = "/tmp/dcbpf-sim-XXXXXX";
	int fd;
	__u32 alg;
	bool same = true;

	dc_sim_workload_defaults(&w);
	w.slots = 50000;
	dc_sim_generate(&c, &w, &a, &na);
	dc_sim_generate(&c, &w, &b, &nb);
	CHECK("sim workload: same seed, same arrivals", na == nb && na && !memcmp(a, b, na * sizeof(*a)),
	      "%zu vs %zu arrivals", na, nb);
	free(b);
	w.seed = 2;
	dc_sim_generate(&c, &w, &b, &nb);
	CHECK("sim workload: another seed, other arrivals", na != nb || memcmp(a, b, na * sizeof(*a)),
	      "%s", "identical");
	free(b);

	fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
	dc_sim_write_trace(path, a, na);
	dc_sim_read_trace(path, 1, &d, &nd);
	for (i = 0; i < na && nd == na; i++)
		if (a[i].slot != d[i].slot || a[i].port != d[i].port || a[i].prio != d[i].prio ||
		    a[i].first_rtt != d[i].first_rtt)
			same = false;
	CHECK("sim trace: write then read gives the same arrivals", nd == na && same, "%zu vs %zu", nd,
	      na);
	free(d);
	{
		FILE *f = fopen(path, "w");

		fprintf(f, "time_ns,port,priority,bytes\n0,1,0,1500\n11999,1,0,1500\n12000,2,3,9000\n");
		fclose(f);
	}
	d = NULL;
	dc_sim_read_trace(path, 12000, &d, &nd);
	CHECK("sim trace: time_ns rows map to slot = time_ns / slot_ns",
	      nd == 3 && d[0].slot == 0 && d[1].slot == 0 && d[2].slot == 1 && d[2].prio == 3 &&
	      d[2].bytes == 9000, "%zu rows", nd);
	free(d);
	{
		FILE *f = fopen(path, "w");

		fprintf(f, "timeslot,port,priority,bytes\n0,1,9,1500\n");
		fclose(f);
	}
	d = NULL;
	CHECK("sim trace: a bad row is refused with its line number",
	      dc_sim_read_trace(path, 1, &d, &nd) == -1, "%s", "accepted");
	unlink(path);

	/* the papers' qualitative ordering on the incast-heavy mix */
	for (alg = 0; alg < DC_ALG_MAX; alg++) {
		c.alg = alg;
		dc_sim_run(&c, a, na, w.slots, &r[alg]);
	}
	CHECK("sim ordering: LQD transmits at least as much as CS and DT",
	      r[DC_ALG_LQD].sent_pkts >= r[DC_ALG_CS].sent_pkts &&
	      r[DC_ALG_LQD].sent_pkts >= r[DC_ALG_DT].sent_pkts,
	      "lqd %llu cs %llu dt %llu", (unsigned long long)r[DC_ALG_LQD].sent_pkts,
	      (unsigned long long)r[DC_ALG_CS].sent_pkts, (unsigned long long)r[DC_ALG_DT].sent_pkts);
	CHECK("sim ordering: ABM loses fewer incast packets than DT (burst tolerance)",
	      r[DC_ALG_ABM].prio_drops[1] < r[DC_ALG_DT].prio_drops[1], "abm %llu dt %llu",
	      (unsigned long long)r[DC_ALG_ABM].prio_drops[1],
	      (unsigned long long)r[DC_ALG_DT].prio_drops[1]);
	CHECK("sim ordering: ABM drops fewer first-RTT packets than DT (α_first_rtt)",
	      r[DC_ALG_ABM].first_rtt_drops < r[DC_ALG_DT].first_rtt_drops, "abm %llu dt %llu",
	      (unsigned long long)r[DC_ALG_ABM].first_rtt_drops,
	      (unsigned long long)r[DC_ALG_DT].first_rtt_drops);
	/* conservation for every algorithm */
	for (alg = 0; alg < DC_ALG_MAX; alg++) {
		__u64 left = 0, pushed = 0;
		__u32 p;

		for (p = 0; p < 16; p++) {
			left += r[alg].port[p].final_q;
			pushed += r[alg].port[p].pushed_out;
		}
		if (r[alg].admitted != r[alg].sent_pkts + left + pushed ||
		    r[alg].arrivals != r[alg].admitted + r[alg].drops)
			break;
	}
	CHECK("sim: admitted = sent + left + pushed out, arrivals = admitted + drops (all algorithms)",
	      alg == DC_ALG_MAX, "%s breaks it", dc_alg_name(alg));
	free(a);

	/* byte mode: the link never sends more than slot_bytes per slot */
	c.mode = DC_SIM_BYTE;
	c.buffer = 1000000;
	c.alg = DC_ALG_DT;
	w.seed = 1;
	w.slots = 20000;
	dc_sim_generate(&c, &w, &a, &na);
	dc_sim_run(&c, a, na, w.slots, &r[0]);
	{
		__u32 p;
		bool ok = r[0].occ_max <= c.buffer && r[0].sent_bytes;

		for (p = 0; p < 16; p++)
			if (r[0].port[p].sent_bytes > (__u64)w.slots * c.slot_bytes)
				ok = false;
		CHECK("sim byte mode: occupancy ≤ B, each port ≤ slot_bytes per slot", ok,
		      "occ_max %llu", (unsigned long long)r[0].occ_max);
	}
	free(a);
}

int main(void)
{
	test_dt_steady();
	test_dt_no_isolation();
	test_lqd_order();
	test_burst();
	test_workload_and_traces();
	return check_failed;
}
