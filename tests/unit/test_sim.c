// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * The simulator (loader/sim/) on discrete reference cases worked by hand
 * (docs/admission.md, "Tests"), LQD's push-out order, trace files with the
 * reason of each refusal, the papers' qualitative ordering on an
 * incast-heavy workload, and `dcbpf sim` through its option table.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "clicap.h"
#include "credence/credence.h"
#include "sim/simcmd.h"

static struct dc_err serr;

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

/*
 * The model as the docs state it, written apart from the simulator: unit
 * packets; per slot the arrivals in order, each admitted iff it fits
 * (Q < B) and, under DT, q < α_prio·(B − Q) (compared in double: the α
 * used here are dyadic, so the product is exact); then one packet leaves
 * each non-empty queue.  Runs nslots slots; q[] and the number sent out.
 */
static __u64 ref_unit(__u32 alg, const double *alpha, __u32 nports, __u64 B,
		      const struct dc_sim_arrival *a, size_t n, __u64 nslots, __u64 *q)
{
	__u64 Q = 0, sent = 0, t;
	size_t k = 0;
	__u32 p;

	memset(q, 0, nports * sizeof(*q));
	for (t = 0; t < nslots; t++) {
		for (; k < n && a[k].slot == t; k++) {
			__u64 *qi = &q[a[k].port];

			if (Q < B && (alg == DC_ALG_CS ||
				      (double)*qi < alpha[a[k].prio] * (double)(B - Q))) {
				(*qi)++;
				Q++;
			}
		}
		for (p = 0; p < nports; p++) {
			if (q[p]) {
				q[p]--;
				Q--;
				sent++;
			}
		}
	}
	return sent;
}

/* dc_sim_run and ref_unit on the same arrivals: every port's final queue
 * and the packets sent equal. */
static void same_as_ref(const char *name, const struct dc_sim_cfg *c, const double *alpha,
			__u64 nslots, const struct dc_sim_result *r)
{
	__u64 q[DC_SIM_PORTS_MAX], sent = ref_unit(c->alg, alpha, c->nports, c->buffer, arr, narr,
						     nslots, q);
	__u32 p, bad = c->nports;

	for (p = 0; p < c->nports; p++)
		if (q[p] != r->port[p].final_q) {
			bad = p;
			break;
		}
	CHECK(name, sent == r->sent_pkts && bad == c->nports,
	      "sent %llu (model %llu); port %u: q %llu (model %llu)", (unsigned long long)r->sent_pkts,
	      (unsigned long long)sent, bad, bad < c->nports ? (unsigned long long)r->port[bad].final_q : 0,
	      bad < c->nports ? (unsigned long long)q[bad] : 0);
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
	dc_sim_run(&c, arr, narr, slots, r, &serr);
	return r->port[0].final_q;
}

static void test_dt_steady(void)
{
	static const struct {
		double alpha;
		__u32 n;
		__u64 want;
	} cases[] = { { 1, 1, 600 }, { 1, 2, 400 }, { 0.5, 1, 400 }, { 0.5, 2, 300 },
		      { 8, 1, 1066 }, { 2, 3, 342 } };
	static struct dc_sim_result r;
	char name[160];
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double al[DC_SW_PRIOS] = { cases[i].alpha };
		struct dc_sim_cfg c = unit_cfg(DC_ALG_DT, cases[i].n, 1200, cases[i].alpha);

		overload(DC_ALG_DT, cases[i].alpha, cases[i].n, 5000, &r);
		snprintf(name, sizeof(name), "sim dt steady state α = %g, n = %u: every queue and the sent count equal the model's (T-DT1, αB/(1+nα) = %llu)",
			 cases[i].alpha, cases[i].n, (unsigned long long)cases[i].want);
		same_as_ref(name, &c, al, 5000, &r);
	}
	/* 1 queue, α = 1, B = 1200: after the departure q = 599; then
	 * 599 < 601 and 600 < 600 fails: one admitted per slot, q = 599 */
	CHECK_EQ("sim dt α = 1, n = 1: q = 599 after each slot's departure",
		 overload(DC_ALG_DT, 1, 1, 5000, &r), 599);
	/* T-ABM1: two congested queues (n_p = 2, γ = 1), α = 1 → T = ⌈(B − Q)/2⌉.
	 * After a slot q = (300, 299), Q = 599: port 0 admits at 300 < 301,
	 * not at 301; port 1 admits at 299 < 300 (Q = 601), not at 300. */
	overload(DC_ALG_ABM, 1, 2, 5000, &r);
	CHECK("sim abm: two congested queues, α = 1 → B/4 each (T-ABM1): q = 300 and 299",
	      r.port[0].final_q == 300 && r.port[1].final_q == 299, "q %llu, %llu",
	      (unsigned long long)r.port[0].final_q, (unsigned long long)r.port[1].final_q);
}

/* T-DT3: AF (α = 2, priority 1) on port 0 loses its share to BE queues. */
static void test_dt_no_isolation(void)
{
	static struct dc_sim_result r;
	__u32 nbe, t, p;

	for (nbe = 1; nbe <= 5; nbe += 4) {
		struct dc_sim_cfg c = unit_cfg(DC_ALG_DT, 1 + nbe, 1200, 1);
		double al[DC_SW_PRIOS] = { 1, 2 };
		char name[160];
		__u64 want = 2 * 1200 / (3 + nbe);

		c.alpha_q16[1] = Q16(2);
		narr = 0;
		for (t = 0; t < 5000; t++)
			for (p = 0; p <= nbe; p++) {
				add(t, (__u16)p, p == 0 ? 1 : 0, 1);
				add(t, (__u16)p, p == 0 ? 1 : 0, 1);
			}
		dc_sim_run(&c, arr, narr, 5000, &r, &serr);
		snprintf(name, sizeof(name), "sim dt: AF share with %u BE queues equals the model's (T-DT3, 2B/(3+n) = %llu)",
			 nbe, (unsigned long long)want);
		same_as_ref(name, &c, al, 5000, &r);
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
	dc_sim_run(&c, arr, narr, 2, &r, &serr);
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
	dc_sim_run(&c, arr, narr, 1, &r, &serr);
	CHECK("sim lqd: tie between longest queues pushes out the lowest index",
	      r.port[0].pushed_out == 1 && r.port[1].pushed_out == 0 && r.port[2].admitted == 1,
	      "pushed out %llu/%llu, admitted %llu", (unsigned long long)r.port[0].pushed_out,
	      (unsigned long long)r.port[1].pushed_out, (unsigned long long)r.port[2].admitted);
	/* the arriving queue is the longest: the arrival goes */
	narr = 0;
	for (i = 0; i < 12; i++)
		add(0, 0, 0, 1);
	add(0, 0, 0, 1);
	dc_sim_run(&c, arr, narr, 1, &r, &serr);
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
		dc_sim_run(&c, arr, narr, 200, &r, &serr);
		snprintf(name, sizeof(name), "sim burst of B at N per slot: %s sends %llu (T-C9)",
			 cases[k].name, (unsigned long long)cases[k].sent);
		CHECK_EQ(name, r.sent_pkts, cases[k].sent);
		if (cases[k].alg != DC_ALG_LQD) {
			double al[DC_SW_PRIOS] = { cases[k].alpha };

			snprintf(name, sizeof(name), "sim burst: %s equals the model's", cases[k].name);
			same_as_ref(name, &c, al, 200, &r);
		}
	}
}

/* SmartBuf and EDT on T-C9's burst (64 packets at 8 per slot, B = 64,
 * α = 0.5, queue samples once per slot): SmartBuf with nothing learned is
 * DT; EDT's third rising sample (slot 3) lifts the threshold to B and the
 * rest of the burst fits. */
static void test_sbuf_burst(void)
{
	static struct dc_sim_result r;
	double al[DC_SW_PRIOS] = { 0.5 };
	struct dc_sim_cfg c = unit_cfg(DC_ALG_SMARTBUF, 8, 64, 0.5);
	unsigned int i;

	narr = 0;
	for (i = 0; i < 64; i++)
		add(i / 8, 0, 0, 1);
	dc_sim_run(&c, arr, narr, 200, &r, &serr);
	c.alg = DC_ALG_DT;
	same_as_ref("sim smartbuf: nothing learned yet: DT's outcome (sends 29)", &c, al, 200, &r);
	c.alg = DC_ALG_EDT;
	dc_sim_run(&c, arr, narr, 200, &r, &serr);
	CHECK("sim edt: the burst goes uncontrolled at its 4th slot and all 64 are sent",
	      r.sent_pkts == 64 && r.drops == 0 && r.port[0].max_q == 57, "sent %llu max_q %llu",
	      (unsigned long long)r.sent_pkts, (unsigned long long)r.port[0].max_q);
	c.edt.rise = 8;
	dc_sim_run(&c, arr, narr, 200, &r, &serr);
	CHECK_EQ("sim edt: with 8 rising samples needed it stays DT (29 sent)", r.sent_pkts, 29);
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
	dc_sim_generate(&c, &w, &a, &na, &serr);
	dc_sim_generate(&c, &w, &b, &nb, &serr);
	CHECK("sim workload: same seed, same arrivals", na == nb && na && !memcmp(a, b, na * sizeof(*a)),
	      "%zu vs %zu arrivals", na, nb);
	free(b);
	w.seed = 2;
	dc_sim_generate(&c, &w, &b, &nb, &serr);
	CHECK("sim workload: another seed, other arrivals", na != nb || memcmp(a, b, na * sizeof(*a)),
	      "%s", "identical");
	free(b);

	fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
	dc_sim_write_trace(path, a, na, &serr);
	dc_sim_read_trace(path, 1, &d, &nd, &serr);
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
	dc_sim_read_trace(path, 12000, &d, &nd, &serr);
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
	      dc_sim_read_trace(path, 1, &d, &nd, &serr) == EXIT_ERR &&
	      strstr(serr.msg, ":2: column 'priority': '9' is not an integer in 0..7"), "%s", serr.msg);
	unlink(path);

	/* the papers' qualitative ordering on the incast-heavy mix */
	for (alg = 0; alg < DC_ALG_MAX; alg++) {
		c.alg = alg;
		dc_sim_run(&c, a, na, w.slots, &r[alg], &serr);
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
	dc_sim_generate(&c, &w, &a, &na, &serr);
	dc_sim_run(&c, a, na, w.slots, &r[0], &serr);
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

/* Writes text to a fresh temporary file; its path in path[]. */
static void write_file(char *path, const char *text)
{
	FILE *f;
	int fd;

	strcpy(path, "/tmp/dcbpf-simtr-XXXXXX");
	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* dc_sim_read_trace on text: 0 and the rows, or -1. */
static int read_text(const char *text, __u64 slot_ns, struct dc_sim_arrival **a, size_t *n)
{
	char path[64];
	int rc;

	write_file(path, text);
	*a = NULL;
	*n = 0;
	rc = dc_sim_read_trace(path, slot_ns, a, n, &serr);
	unlink(path);
	return rc;
}

/* Binary traces: the same records back, mapped; every damage refused with
 * the file and what is wrong, nothing handed out. */
static void bin_patch(const char *path, long off, const void *v, size_t len)
{
	FILE *f = fopen(path, "r+");

	fseek(f, off, SEEK_SET);
	fwrite(v, 1, len, f);
	fclose(f);
}

static void test_binary_traces(void)
{
	struct dc_sim_cfg c = unit_cfg(DC_ALG_DT, 16, 1000, 0.5);
	struct dc_sim_workload w;
	struct dc_sim_arrival *a = NULL, *d = NULL, bad[3];
	struct dc_sim_result r1, r2;
	struct dc_sim_trace t;
	char path[] = "/tmp/dcbpf-simbin-XXXXXX", csv[] = "/tmp/dcbpf-simcsv-XXXXXX";
	size_t na = 0, nd = 0;
	__u32 v;
	__u8 b8;
	int fd;

	dc_sim_workload_defaults(&w);
	w.slots = 20000;
	dc_sim_generate(&c, &w, &a, &na, &serr);
	fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
	fd = mkstemp(csv);
	if (fd >= 0)
		close(fd);
	CHECK("sim binary: written", !dc_sim_write_trace_bin(path, a, na, &serr), "%s", serr.msg);
	CHECK("sim binary: loaded mapped, the same records",
	      !dc_sim_trace_load(path, 1, &t, &serr) && t.map && t.n == na &&
	      !memcmp(t.a, a, na * sizeof(*a)), "%s (%zu of %zu)", serr.msg, t.n, na);
	dc_sim_run(&c, a, na, 0, &r1, &serr);
	dc_sim_run(&c, t.a, t.n, 0, &r2, &serr);
	CHECK("sim binary: a replay decides as the generated run",
	      r1.sent_pkts == r2.sent_pkts && r1.drops == r2.drops && r1.slots == r2.slots,
	      "sent %llu/%llu drops %llu/%llu", (unsigned long long)r1.sent_pkts,
	      (unsigned long long)r2.sent_pkts, (unsigned long long)r1.drops,
	      (unsigned long long)r2.drops);
	dc_sim_trace_release(&t);
	CHECK("sim binary: released", !t.map && !t.a && !t.n, "%p", t.map);
	CHECK("sim binary: dc_sim_read_trace hands out a copy of it",
	      !dc_sim_read_trace(path, 1, &d, &nd, &serr) && nd == na && !memcmp(d, a, na * sizeof(*a)),
	      "%s", serr.msg);
	free(d);
	/* CSV and binary of the same arrivals read the same */
	dc_sim_write_trace(csv, a, na, &serr);
	CHECK("sim binary: a CSV loads into memory (not mapped), the same records",
	      !dc_sim_trace_load(csv, 1, &t, &serr) && !t.map && t.n == na &&
	      !memcmp(t.a, a, na * sizeof(*a)), "%s", serr.msg);
	dc_sim_trace_release(&t);

	/* damage, one at a time */
	CHECK("sim binary: a truncated file is refused, counts named",
	      truncate(path, 32 + (off_t)(na - 1) * 12) == 0 &&
	      dc_sim_trace_load(path, 1, &t, &serr) == EXIT_ERR && !t.a &&
	      strstr(serr.msg, "truncated"), "%s", serr.msg);
	CHECK("sim binary: only the header: refused as well", truncate(path, 20) == 0 &&
	      dc_sim_trace_load(path, 1, &t, &serr) == EXIT_ERR && strstr(serr.msg, "shorter"),
	      "%s", serr.msg);
	memset(bad, 0, sizeof(bad));
	bad[0].slot = 5, bad[1].slot = 6, bad[2].slot = 7;
	dc_sim_write_trace_bin(path, bad, 3, &serr);
	v = 2;
	bin_patch(path, 8, &v, sizeof(v));
	CHECK("sim binary: another version is refused",
	      dc_sim_trace_load(path, 1, &t, &serr) == EXIT_ERR && strstr(serr.msg, "version 2"),
	      "%s", serr.msg);
	dc_sim_write_trace_bin(path, bad, 3, &serr);
	v = 4;
	bin_patch(path, 32 + 12 + 0, &v, sizeof(v));	/* record 2's slot: 4 < 5 */
	CHECK("sim binary: records out of slot order are refused with the record's number",
	      dc_sim_trace_load(path, 1, &t, &serr) == EXIT_ERR && strstr(serr.msg, "record 2: slot"),
	      "%s", serr.msg);
	dc_sim_write_trace_bin(path, bad, 3, &serr);
	b8 = DC_SW_PRIOS;
	bin_patch(path, 32 + 24 + 6, &b8, 1);		/* record 3's priority */
	CHECK("sim binary: a priority out of range is refused",
	      dc_sim_trace_load(path, 1, &t, &serr) == EXIT_ERR && strstr(serr.msg, "record 3: priority"),
	      "%s", serr.msg);
	bad[1].slot = 1;
	CHECK("sim binary: the writer refuses unsorted arrivals",
	      dc_sim_write_trace_bin(path, bad, 3, &serr) == EXIT_ERR && strstr(serr.msg, "not sorted"),
	      "%s", serr.msg);
	CHECK("sim binary: an unreadable path is refused",
	      dc_sim_trace_load("/nonexistent/x", 1, &t, &serr) == EXIT_ERR &&
	      strstr(serr.msg, "cannot open"), "%s", serr.msg);
	unlink(path);
	unlink(csv);
	free(a);
}

static void test_exact_rules(void)
{
	static struct dc_sim_result r;
	struct dc_sim_cfg c = unit_cfg(DC_ALG_DT, 1, 4, 0.5);
	__u32 i;

	/* the documented rule: 0 < α(B − 0) = 2, then 1 < α(B − 1) = 1.5 */
	narr = 0;
	add(0, 0, 0, 1);
	add(0, 0, 0, 1);
	dc_sim_run(&c, arr, narr, 0, &r, &serr);
	CHECK("sim dt: one port, B = 4, α = 0.5, two packets in slot 0: both admitted",
	      r.admitted == 2 && r.drops == 0, "admitted %llu, drops %llu",
	      (unsigned long long)r.admitted, (unsigned long long)r.drops);
	add(0, 0, 0, 1);
	dc_sim_run(&c, arr, narr, 0, &r, &serr);
	CHECK("sim dt: a third (2 < α(B − 2) = 1 fails) is a threshold drop",
	      r.admitted == 2 && r.port[0].drop_thresh == 1, "admitted %llu, thresh drops %llu",
	      (unsigned long long)r.admitted, (unsigned long long)r.port[0].drop_thresh);
	/* bytes: q before the packet; B = 3001, α = 0.5, one port: 0 < 1500.5,
	 * 1000 < 1000.5, 2000 < 500.5 fails */
	c.mode = DC_SIM_BYTE;
	c.buffer = 3001;
	c.slot_bytes = 1000;
	narr = 0;
	for (i = 0; i < 3; i++)
		add(0, 0, 0, 1000);
	dc_sim_run(&c, arr, narr, 0, &r, &serr);
	CHECK("sim dt bytes: B = 3001, α = 0.5, 1000-byte packets: q = 0 and 1000 admitted, 2000 not",
	      r.admitted == 2 && r.port[0].drop_thresh == 1, "admitted %llu",
	      (unsigned long long)r.admitted);

	/* drain: a burst of B = 64 at 8 per slot for 8 slots, CS */
	c = unit_cfg(DC_ALG_CS, 8, 64, 1);
	narr = 0;
	for (i = 0; i < 64; i++)
		add(i / 8, 0, 0, 1);
	dc_sim_run(&c, arr, narr, 0, &r, &serr);
	CHECK("sim: without drain a run stops after the last arrival's slot (8 of 64 sent)",
	      r.slots == 8 && r.sent_pkts == 8 && r.port[0].final_q == 56, "slots %llu sent %llu",
	      (unsigned long long)r.slots, (unsigned long long)r.sent_pkts);
	c.drain = true;
	dc_sim_run(&c, arr, narr, 0, &r, &serr);
	CHECK("sim: with drain it sends until the buffer is empty (64 of 64 in 64 slots)",
	      r.slots == 64 && r.sent_pkts == 64 && r.port[0].final_q == 0 && r.occ_max == 56,
	      "slots %llu sent %llu q %llu occ_max %llu", (unsigned long long)r.slots,
	      (unsigned long long)r.sent_pkts, (unsigned long long)r.port[0].final_q,
	      (unsigned long long)r.occ_max);
	c.mode = DC_SIM_BYTE;
	c.buffer = 64000;
	c.slot_bytes = 1000;
	narr = 0;
	for (i = 0; i < 10; i++)
		add(0, (__u16)(i % 2), 0, 2500);	/* larger than a slot's credit */
	dc_sim_run(&c, arr, narr, 0, &r, &serr);
	CHECK("sim byte mode: drain sends packets larger than a slot's bytes (5 × 2500 per port)",
	      r.sent_pkts == 10 && r.sent_bytes == 25000 && r.slots == 13, "sent %llu, %llu slots",
	      (unsigned long long)r.sent_pkts, (unsigned long long)r.slots);

	/* per-port drops add up to the total for every algorithm (Credence's
	 * drops on a prediction included) */
	{
		struct dc_sim_workload w;
		struct dc_sim_arrival *a;
		size_t na;
		__u32 alg, p, pr;

		c = unit_cfg(DC_ALG_DT, 16, 300, 0.5);
		dc_sim_workload_defaults(&w);
		w.slots = 20000;
		dc_sim_generate(&c, &w, &a, &na, &serr);
		for (pr = DC_SIM_PRED_ORACLE; pr <= DC_SIM_PRED_DROP; pr++) {
			c.predictor = pr;
			for (alg = 0; alg < DC_ALG_MAX; alg++) {
				__u64 sum = 0, dp = 0;
				char name[160];

				c.alg = alg;
				dc_sim_run(&c, a, na, w.slots, &r, &serr);
				for (p = 0; p < 16; p++) {
					sum += r.port[p].drop_thresh + r.port[p].drop_full +
					       r.port[p].drop_pred;
					dp += r.port[p].drop_pred;
				}
				snprintf(name, sizeof(name),
					 "sim %s%s: per-port thresh + full + pred drops = total drops (%llu)",
					 dc_alg_name(alg), alg != DC_ALG_CREDENCE ? "" :
					 pr == DC_SIM_PRED_DROP ? " (predictor drop)" : " (oracle)",
					 (unsigned long long)r.drops);
				if (alg != DC_ALG_CREDENCE && pr != DC_SIM_PRED_ORACLE)
					continue;
				CHECK(name, sum == r.drops && r.drops && (alg != DC_ALG_CREDENCE ||
					    pr != DC_SIM_PRED_DROP || dp), "ports %llu, pred %llu",
				      (unsigned long long)sum, (unsigned long long)dp);
			}
		}
		free(a);
	}
}

static void test_trace_columns(void)
{
	struct dc_sim_arrival *a;
	size_t n, i;
	char text[40000];
	int len = 0;
	bool ok;

	CHECK("sim trace: columns are read by name in any order",
	      !read_text("bytes,first_rtt,priority,port,timeslot\n1500,1,3,2,7\n", 1, &a, &n) &&
	      n == 1 && a[0].slot == 7 && a[0].port == 2 && a[0].prio == 3 && a[0].bytes == 1500 &&
	      a[0].first_rtt == 1, "%zu rows", n);
	free(a);
	CHECK("sim trace: a capture's extra columns are skipped, time_ns anywhere",
	      !read_text("port,verdict,time_ns,q_bytes,priority,bytes\n1,admit,24000,5,0,100\n", 12000,
			 &a, &n) && n == 1 && a[0].slot == 2 && a[0].port == 1 && a[0].bytes == 100,
	      "%zu rows", n);
	free(a);
	CHECK("sim trace: first_rtt is optional (0)",
	      !read_text("timeslot,port,priority,bytes\n0,1,0,1\n", 1, &a, &n) && n == 1 &&
	      !a[0].first_rtt, "%zu rows", n);
	free(a);
	CHECK("sim trace: refused: a misspelt column (prio)",
	      read_text("timeslot,port,prio,bytes\n0,1,0,1\n", 1, &a, &n) == EXIT_ERR &&
	      strstr(serr.msg, "unknown column 'prio'"), "%s", serr.msg);
	CHECK("sim trace: refused: a missing column (bytes)",
	      read_text("timeslot,port,priority\n0,1,0\n", 1, &a, &n) == EXIT_ERR &&
	      strstr(serr.msg, "the header has no column 'bytes'"), "%s", serr.msg);
	CHECK("sim trace: refused: a column twice",
	      read_text("timeslot,port,priority,bytes,port\n0,1,0,1,1\n", 1, &a, &n) == EXIT_ERR &&
	      strstr(serr.msg, "column 'port' appears twice (columns 2 and 5)"), "%s", serr.msg);
	CHECK("sim trace: refused: both time columns",
	      read_text("timeslot,time_ns,port,priority,bytes\n0,0,1,0,1\n", 1, &a, &n) == EXIT_ERR &&
	      strstr(serr.msg, "exactly one time column, 'timeslot' or 'time_ns' (it has both)"), "%s", serr.msg);
	CHECK("sim trace: refused: no time column",
	      read_text("port,priority,bytes\n1,0,1\n", 1, &a, &n) == EXIT_ERR &&
	      strstr(serr.msg, "(it has none)"), "%s", serr.msg);
	CHECK("sim trace: refused: a row with fewer fields than the header",
	      read_text("timeslot,port,priority,bytes,first_rtt\n0,1,0,1\n", 1, &a, &n) == EXIT_ERR &&
	      strstr(serr.msg, ":2: 4 fields, the header has 5 columns"), "%s", serr.msg);
	CHECK("sim trace: refused: a value out of range in a named column (first_rtt 2)",
	      read_text("first_rtt,timeslot,port,priority,bytes\n2,0,1,0,1\n", 1, &a, &n) == EXIT_ERR &&
	      strstr(serr.msg, ":2: column 'first_rtt': '2' is not an integer in 0..1"), "%s", serr.msg);
	CHECK("sim trace: refused: no header", read_text("0,1,0,1\n", 1, &a, &n) == EXIT_ERR &&
	      strstr(serr.msg, "the first line must name the columns"), "%s", serr.msg);

	/* an unsorted file: 600 rows over slots 0..4 in a scrambled order,
	 * bytes = row number; within a slot the rows must keep file order */
	len = snprintf(text, sizeof(text), "timeslot,port,priority,bytes\n");
	for (i = 0; i < 600; i++)
		len += snprintf(text + len, sizeof(text) - (size_t)len, "%zu,0,0,%zu\n",
				(i * 7 + i / 3) % 5, i + 1);
	ok = !read_text(text, 1, &a, &n) && n == 600;
	for (i = 1; ok && i < n; i++)
		if (a[i].slot < a[i - 1].slot ||
		    (a[i].slot == a[i - 1].slot && a[i].bytes <= a[i - 1].bytes))
			ok = false;
	CHECK("sim trace: an unsorted file is ordered by slot, rows of one slot in file order", ok,
	      "row %zu: slot %u bytes %u after slot %u bytes %u", i, ok ? 0 : a[i].slot,
	      ok ? 0 : a[i].bytes, ok ? 0 : a[i - 1].slot, ok ? 0 : a[i - 1].bytes);
	free(a);
}

/* ---- `dcbpf sim` and `credence train` through the dispatcher ---- */

static const struct dc_cmd cli_cmds[] = {
	DC_SIM_CMD,
	{ "train", dc_cred_train_cmd, dc_cred_train_opts, sizeof(struct dc_cred_train_args),
	  .summary = "train a forest" },
	{ NULL },
};
static const struct dc_app cli_app = { .name = "dcbpf", .cmds = cli_cmds };
/* dcbpf ARGS... (NULL-terminated), output in cli_out, cli_err. */
static int cli(const char *cmd, ...)
{
	va_list ap;
	int rc;

	va_start(ap, cmd);
	rc = cli_run_va(&cli_app, NULL, cmd, ap);
	va_end(ap);
	return rc;
}

static void test_cli(void)
{
	struct dc_sim_args o;
	struct dc_sim_cfg c, d;
	struct dc_sim_workload w, v;
	char *argv0[] = { "sim", NULL }, trace[64];
	struct dc_err e;
	const char *const both[] = { "sim", "train" };
	unsigned int k, lines = 0;
	const char *p;
	int rc;

	CHECK("sim cli: the sim and train tables are well formed", !dc_cmds_check(cli_cmds, &e),
	      "%s", e.msg);
	/* the shared table's defaults are the engine's and the generator's */
	CHECK_EQ("sim cli: defaults parse", dc_opts_parse(dc_sim_cmd_opts, &o, 1, argv0, &e), 0);
	dc_sim_cfg_defaults(&c);
	dc_sim_workload_defaults(&w);
	d = c;
	v = w;
	dc_sim_opts_apply(&o.sim, &d, &v);
	CHECK("sim cli: table defaults = dc_sim_cfg_defaults",
	      d.nports == c.nports && d.buffer == c.buffer && d.mode == c.mode &&
	      d.slot_bytes == c.slot_bytes && d.slot_ns == c.slot_ns &&
	      o.alpha_q16 == c.alpha_q16[0] && o.alpha_first_rtt_q16 == c.alpha_first_rtt_q16 &&
	      o.abm_period == c.abm_period_slots && o.pred_seed == c.pred_seed && o.alg == (int)c.alg &&
	      o.predictor == (int)c.predictor && o.flip == 0, "%u %llu", d.nports,
	      (unsigned long long)d.buffer);
	CHECK("sim cli: table defaults = dc_sim_workload_defaults",
	      !strcmp(v.kind, w.kind) && v.slots == w.slots && v.load == w.load &&
	      v.incast_frac == w.incast_frac && v.incast_senders == w.incast_senders &&
	      v.incast_period == w.incast_period && v.mtu == w.mtu && o.seed == w.seed &&
	      o.first_rtt_pkts == w.first_rtt_pkts, "%s", v.kind);

	/* one table: both commands refuse the same values */
	for (k = 0; k < 2; k++) {
		char name[96];

		rc = cli(both[k], "--load", "nan", "--out", "/nonexistent/x", NULL);
		snprintf(name, sizeof(name), "%s cli: --load nan refused", both[k]);
		CHECK(name, rc == EXIT_USAGE && strstr(cli_err, "--load: nan"), "%d %s", rc, cli_err);
		rc = cli(both[k], "--load", "", "--out", "/nonexistent/x", NULL);
		snprintf(name, sizeof(name), "%s cli: --load \"\" refused", both[k]);
		CHECK(name, rc == EXIT_USAGE && strstr(cli_err, "--load"), "%d %s", rc, cli_err);
		rc = cli(both[k], "--mode", "byt", "--out", "/nonexistent/x", NULL);
		snprintf(name, sizeof(name), "%s cli: --mode names its choices", both[k]);
		CHECK(name, rc == EXIT_USAGE && strstr(cli_err, "unit, byte"), "%d %s", rc, cli_err);
		rc = cli(both[k], "--trace", "", "--out", "/nonexistent/x", NULL);
		snprintf(name, sizeof(name), "%s cli: --trace \"\" refused", both[k]);
		CHECK(name, rc == EXIT_USAGE && strstr(cli_err, "--trace"), "%d %s", rc, cli_err);
	}

	/* a trace run refuses the options of a generated workload */
	write_file(trace, "timeslot,port,priority,bytes\n0,0,0,1\n0,0,0,1\n");
	rc = cli("sim", "--trace", trace, "--slots", "100", NULL);
	CHECK("sim cli: --slots with --trace refused, naming it",
	      rc == EXIT_USAGE && strstr(cli_err, "dcbpf sim: --slots has no effect with --trace"),
	      "%d %s", rc, cli_err);
	rc = cli("sim", "--trace", trace, "--seed", "3", NULL);
	CHECK("sim cli: --seed with --trace refused (sim's own workload option)",
	      rc == EXIT_USAGE && strstr(cli_err, "--seed has no effect with --trace"), "%d %s", rc,
	      cli_err);
	rc = cli("sim", "--no-drain", "--slots", "100", NULL);
	CHECK("sim cli: --no-drain without --trace refused",
	      rc == EXIT_USAGE && strstr(cli_err, "--no-drain goes with --trace"), "%d %s", rc,
	      cli_err);
	rc = cli("sim", "--queues", "9", NULL);
	CHECK("sim cli: --queues 9 refused with the range",
	      rc == EXIT_USAGE && strstr(cli_err, "--queues") && strstr(cli_err, "8"), "%d %s", rc,
	      cli_err);
	rc = cli("sim", "--queues", "8", "--ports", "9", NULL);
	CHECK("sim cli: 9 ports × 8 queues refused (64 queues at most)",
	      rc == EXIT_USAGE && strstr(cli_err, "at most 64"), "%d %s", rc, cli_err);
	rc = cli("sim", "--alpha-prio", "0.5,0", NULL);
	CHECK("sim cli: --alpha-prio with α = 0 refused, naming the value",
	      rc == EXIT_USAGE && strstr(cli_err, "value 1"), "%d %s", rc, cli_err);
	rc = cli("sim", "--alpha-prio", "0.5,", NULL);
	CHECK("sim cli: --alpha-prio ending in a comma refused",
	      rc == EXIT_USAGE && strstr(cli_err, "comma"), "%d %s", rc, cli_err);
	rc = cli("sim", "--alpha-prio", "1,2,3,4,5,6,7,8,9", NULL);
	CHECK("sim cli: --alpha-prio with 9 values refused",
	      rc == EXIT_USAGE && strstr(cli_err, "at most 8"), "%d %s", rc, cli_err);
	rc = cli("sim", "--alg", "credence", "--predictor", "forest", NULL);
	CHECK("sim cli: --predictor forest without --model refused",
	      rc == EXIT_USAGE && strstr(cli_err, "go together"), "%d %s", rc, cli_err);
	rc = cli("sim", "--ports", "1", "--buffer", "4", "--alpha", "0.5", "--trace", trace, "--json",
		 NULL);
	CHECK("sim cli: a trace run, --json: an array of one object (both packets admitted)",
	      rc == 0 && !strncmp(cli_out, "[{\"alg\":\"dt\",\"mode\":\"unit\",\"ports\":1,\"buffer\":4,", 45) &&
	      strstr(cli_out, "\"admitted\":2,") && !strcmp(cli_out + strlen(cli_out) - 3, "}]\n"),
	      "%d %s %s", rc, cli_out, cli_err);
	rc = cli("sim", "--trace", "/nonexistent/t.csv", NULL);
	CHECK("sim cli: an absent trace is a runtime error naming it",
	      rc == EXIT_ERR && strstr(cli_err, "dcbpf sim: cannot open trace /nonexistent/t.csv"),
	      "%d %s", rc, cli_err);
	unlink(trace);
	rc = cli("sim", "--alg", "all", "--slots", "2000", NULL);
	for (p = cli_out; (p = strchr(p, '\n')); p++)
		lines++;
	CHECK("sim cli: --alg all: a header, the column names, eight rows and Credence's line",
	      rc == 0 && lines == 11 && strstr(cli_out, "\nfollowlqd ") &&
	      strstr(cli_out, "\nsmartbuf ") && strstr(cli_out, "\nedt ") &&
	      strstr(cli_out, "# credence: predictor oracle, flip 0:"), "%d %u %s", rc, lines,
	      cli_err);
}

/* Strict-priority queues per port (cfg.nqueues; docs/admission.md,
 * "Priority queues"): service order, DT per queue, and one queue = none. */
static void test_queues(void)
{
	static struct dc_sim_result r, r1;
	struct dc_sim_cfg c;
	struct dc_sim_workload w;
	struct dc_sim_arrival *a = NULL;
	size_t n = 0;
	__u32 t, i;
	int same = 1;

	/* A: one port, two queues; two best-effort packets a slot (twice the
	 * port), one priority-1 packet every 4th slot: each priority-1
	 * packet leaves in the slot it came, the low queue gets the rest */
	narr = 0;
	for (t = 0; t < 100; t++) {
		add(t, 0, 0, 1);
		add(t, 0, 0, 1);
		if (t % 4 == 0)
			add(t, 0, 1, 1);
	}
	c = unit_cfg(DC_ALG_CS, 1, 1000, 0.5);
	c.nqueues = 2;
	dc_sim_run(&c, arr, narr, 100, &r, &serr);
	CHECK_EQ("queues: strict priority, two rows for one port of two queues", r.nports, 2);
	CHECK_EQ("queues: every priority-1 packet sent (25)", r.port[1].sent_pkts, 25);
	CHECK_EQ("queues: the high queue never held more than the arriving packet", r.port[1].max_q,
		 1);
	CHECK_EQ("queues: the low queue sends in the other 75 slots", r.port[0].sent_pkts, 75);
	CHECK_EQ("queues: the low queue keeps 200 − 75", r.port[0].final_q, 125);
	c.nqueues = 1;
	dc_sim_run(&c, arr, narr, 100, &r1, &serr);
	CHECK("queues: with one queue the priority-1 packets wait in the FIFO (max q > 100)",
	      r1.port[0].max_q > 100 && r1.nports == 1, "max q %llu",
	      (unsigned long long)r1.port[0].max_q);

	/* B: DT per queue against the shared buffer.  B = 100, α = 1: 80
	 * best-effort packets in one slot fill their queue while q < B − Q,
	 * to 50; a priority-1 packet behind them finds its own queue empty
	 * (0 < 50) and is admitted; in one queue it finds q = 50 ≥ 50. */
	narr = 0;
	for (i = 0; i < 80; i++)
		add(0, 0, 0, 1);
	add(0, 0, 1, 1);
	c = unit_cfg(DC_ALG_DT, 1, 100, 1);
	c.nqueues = 2;
	dc_sim_run(&c, arr, narr, 1, &r, &serr);
	CHECK_EQ("queues: dt per queue, the low queue stops at 50 (30 drops)", r.port[0].drop_thresh,
		 30);
	CHECK_EQ("queues: dt per queue admits the priority-1 packet", r.prio_drops[1], 0);
	c.nqueues = 1;
	dc_sim_run(&c, arr, narr, 1, &r1, &serr);
	CHECK_EQ("queues: one queue drops it (q = 50 = T)", r1.prio_drops[1], 1);
	/* α per priority: α_1 = 1/64 gives the high queue T = ⌈50/64⌉ = 1:
	 * still admitted at q = 0 */
	c.nqueues = 2;
	c.alpha_q16[1] = Q16(1.0 / 64);
	narr--;
	add(0, 0, 1, 1);
	add(0, 0, 1, 1);
	dc_sim_run(&c, arr, narr, 1, &r, &serr);
	CHECK_EQ("queues: α_1 = 1/64: one priority-1 packet admitted, the second refused",
		 r.prio_drops[1], 1);

	/* C: nqueues 1 is nqueues 0, decision for decision, on the default mix */
	c = unit_cfg(DC_ALG_ABM, 8, 1000, 0.5);
	dc_sim_workload_defaults(&w);
	w.slots = 20000;
	if (dc_sim_generate(&c, &w, &a, &n, &serr) == 0) {
		dc_sim_run(&c, a, n, w.slots, &r, &serr);
		c.nqueues = 1;
		dc_sim_run(&c, a, n, w.slots, &r1, &serr);
		for (i = 0; i < 8; i++)
			same &= !memcmp(&r.port[i], &r1.port[i], sizeof(r.port[i]));
		same &= r.drops == r1.drops && r.sent_pkts == r1.sent_pkts && r.occ_p99 == r1.occ_p99;
	} else {
		same = 0;
	}
	CHECK("queues: --queues 1 equals one queue per port on the default mix (abm)", same && n > 0,
	      "n %zu", n);
	free(a);
	c.nports = 16;
	c.nqueues = 8;
	CHECK_EQ("queues: 16 ports × 8 queues is more than 64 queues: refused",
		 dc_sim_run(&c, arr, narr, 1, &r, &serr), EXIT_USAGE);
}

int main(void)
{
	test_queues();
	test_exact_rules();
	test_trace_columns();
	test_dt_steady();
	test_dt_no_isolation();
	test_lqd_order();
	test_burst();
	test_sbuf_burst();
	test_workload_and_traces();
	test_binary_traces();
	test_cli();
	return check_failed;
}
