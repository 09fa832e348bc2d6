// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SmartBuf and EDT: the simulator and the XDP admission program
 * (BPF_PROG_TEST_RUN, tests/lib/swfixture.h) decide the same on the same
 * arrivals.  The simulator runs a trace of incast bursts of different
 * fan-in on two ports in byte mode (1000-byte packets, one sent per port
 * per slot) and reports, per arrival, the queue q and occupancy Q it
 * found and its fate; each arrival is then replayed into the program
 * with that state and a tracker record stamped with the arrival's time,
 * and its verdict must be the simulator's.  Both triggers of SmartBuf and
 * EDT; the trace must make each differ from DT somewhere (its second
 * half puts a long flow on the port without the burst), and the
 * program's learning state (dc_sw_sbuf) must show learned bursts and
 * read as named fields in bpftool.  Needs root.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>

#include "check.h"
#include "swfixture.h"
#include "sim/sim.h"

static struct swfix f;
static int sbuf_fd;

#define B_BYTES 100000
#define LEN 1000
#define SLOT_NS 8000ULL		/* 1000 bytes at 1 Gbit/s */
#define MAXARR 20000

static struct dc_sim_arrival arr[MAXARR];
static __u32 x[MAXARR][DC_RF_FEATURES];
static __u8 fate[MAXARR], fate_dt[MAXARR];
static size_t narr;

static void add(__u32 slot, __u16 port)
{
	if (narr < MAXARR)
		arr[narr++] = (struct dc_sim_arrival){ .slot = slot, .port = port, .bytes = LEN };
}

/*
 * Bursts of fan-in `fan` packets per slot for `len` slots, alternating
 * ports, each followed by a quiet stretch where one packet every 4 slots
 * samples the draining queue (the end of the burst is seen there).
 * Arrivals of one slot are added in port order, as the simulator takes
 * them.
 */
static __u32 trace(void)
{
	static const __u32 fan[] = { 6, 3, 9, 5, 12, 4, 8, 2, 10, 7, 6, 11 };
	static const __u32 dur[] = { 12, 20, 8, 14, 6, 25, 10, 30, 7, 12, 16, 6 };
	__u32 t = 0, k, s, j;

	narr = 0;
	for (k = 0; k < sizeof(fan) / sizeof(fan[0]); k++) {
		__u16 p = (__u16)(k & 1);

		for (s = 0; s < dur[k]; s++, t++) {
			/* the other port: a trickle in the first half; in the
			 * second, a long flow at twice the port rate holds a
			 * standing queue that lowers DT's share of the burst
			 * (and not what SmartBuf learned in the first half) */
			__u32 other = k < 6 ? s % 3 == 0 : 2;

			if (p == 1)
				for (j = 0; j < other; j++)
					add(t, 0);
			for (j = 0; j < fan[k]; j++)
				add(t, p);
			if (p == 0)
				for (j = 0; j < other; j++)
					add(t, 1);
		}
		for (s = 0; s < 160; s++, t++)
			if (s % 4 == 0)
				add(t, p);
	}
	return t;
}

static void sim_cfg(struct dc_sim_cfg *c, __u32 alg, __u32 trigger)
{
	unsigned int i;

	dc_sim_cfg_defaults(c);
	c->alg = alg;
	c->mode = DC_SIM_BYTE;
	c->nports = 2;
	c->buffer = B_BYTES;
	c->slot_bytes = LEN;
	c->slot_ns = SLOT_NS;
	for (i = 0; i < DC_SW_PRIOS; i++)
		c->alpha_q16[i] = DC_DEFAULT_ALPHA_Q16;
	c->sb.trigger = trigger;
	c->edt.max_us = 400;
}

/* Port record as the tracker leaves it after an event at time t_ns. */
static void set_state(__u32 port, __u64 q, __u64 Q, __u64 t_ns)
{
	struct dc_sw_state s = { .occupancy_bytes = Q, .abm_congested = 1 };
	struct dc_sw_port p;
	__u32 zero = 0;

	bpf_map_update_elem(f.state, &zero, &s, BPF_ANY);
	bpf_map_lookup_elem(f.port, &port, &p);
	p.qlen_bytes = q;
	p.last_ns = t_ns;
	bpf_map_update_elem(f.port, &port, &p, BPF_ANY);
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* Replay: mismatches between program and simulator; *first = the first. */
static size_t replay(__u32 alg, __u32 trigger, size_t *first, struct dc_sw_sbuf *out)
{
	/* ahead of the program's clock, so no record looks stale */
	__u64 base = mono_ns() + 10ULL * 1000000000ULL;
	unsigned char pkt0[LEN], pkt1[LEN];
	struct dc_sw_sbuf zs;
	size_t k, bad = 0;
	__u32 zero = 0;

	memset(&zs, 0, sizeof(zs));
	bpf_map_update_elem(sbuf_fd, &zero, &zs, BPF_ANY);
	f.c.alg = alg;
	f.c.sb.trigger = trigger;
	swfix_cfg(&f);
	swfix_pkt(pkt0, LEN, "10.9.0.3", 0);
	swfix_pkt(pkt1, LEN, "10.9.1.2", 0);
	*first = narr;
	for (k = 0; k < narr; k++) {
		int v;

		set_state(arr[k].port, x[k][DC_RF_F_QLEN], x[k][DC_RF_F_OCC],
			  base + arr[k].slot * SLOT_NS);
		v = swfix_run(&f, arr[k].port ? pkt1 : pkt0, LEN, NULL, 1, NULL);
		if ((v == XDP_DROP) != (fate[k] != 0)) {
			if (!bad)
				*first = k;
			bad++;
		}
	}
	bpf_map_lookup_elem(sbuf_fd, &zero, out);
	return bad;
}

static size_t differ(const __u8 *a, const __u8 *b)
{
	size_t k, n = 0;

	for (k = 0; k < narr; k++)
		n += a[k] != b[k];
	return n;
}

static void one(const char *name, __u32 alg, __u32 trigger, __u32 nslots)
{
	struct dc_sim_cfg c;
	struct dc_sw_sbuf s;
	struct dc_err err = { 0 };
	size_t bad, first, drops = 0, k, dd;
	char msg[200];

	sim_cfg(&c, alg, trigger);
	if (dc_sim_features(&c, arr, narr, nslots, x, fate, NULL, &err)) {
		snprintf(msg, sizeof(msg), "sb xdp %s: the simulator runs the trace", name);
		CHECK(msg, 0, "%s", err.msg);
		return;
	}
	for (k = 0; k < narr; k++)
		drops += fate[k];
	dd = differ(fate, fate_dt);
	snprintf(msg, sizeof(msg), "sb xdp %s: the trace makes it decide otherwise than DT (%zu arrivals)",
		 name, dd);
	CHECK(msg, dd > 0, "%zu drops", drops);
	bad = replay(alg, trigger, &first, &s);
	snprintf(msg, sizeof(msg), "sb xdp %s: XDP and the simulator agree on all %zu arrivals (%zu drops)",
		 name, narr, drops);
	CHECK(msg, bad == 0, "%zu differ, the first #%zu (port %u slot %u q %u Q %u, sim %s)", bad,
	      first, first < narr ? arr[first].port : 0, first < narr ? arr[first].slot : 0,
	      first < narr ? x[first][DC_RF_F_QLEN] : 0, first < narr ? x[first][DC_RF_F_OCC] : 0,
	      first < narr && fate[first] ? "drop" : "admit");
	if (alg == DC_ALG_SMARTBUF) {
		__u32 i, used = 0;

		for (i = 0; i < DC_SB_ENTRIES; i++)
			used += s.main.e[i].used;
		snprintf(msg, sizeof(msg),
			 "sb xdp %s: dc_sw_sbuf holds learned bursts from both ports (%u entries)", name,
			 used);
		CHECK(msg, used > 1 && s.inserts >= used && s.lookups > 0 && s.sb[0].bursts &&
		      s.sb[1].bursts, "inserts %llu lookups %llu bursts %u/%u",
		      (unsigned long long)s.inserts, (unsigned long long)s.lookups, s.sb[0].bursts,
		      s.sb[1].bursts);
	} else {
		snprintf(msg, sizeof(msg), "sb xdp %s: both ports went uncontrolled (%u, %u times)", name,
			 s.edt[0].bursts, s.edt[1].bursts);
		CHECK(msg, s.edt[0].bursts && s.edt[1].bursts && s.samples, "samples %llu",
		      (unsigned long long)s.samples);
	}
}

/* bpftool prints the state with its field names (BTF of the value). */
static void bpftool_dump(void)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	char cmd[160], buf[4096];
	FILE *p;
	bool key = false, grad = false, state = false;

	if (system("command -v bpftool >/dev/null 2>&1")) {
		printf("SKIP: sb xdp: bpftool not installed\n");
		return;
	}
	bpf_obj_get_info_by_fd(sbuf_fd, &info, &len);
	snprintf(cmd, sizeof(cmd), "bpftool -j map dump id %u 2>&1", info.id);
	p = popen(cmd, "r");
	if (!p)
		return;
	while (fgets(buf, sizeof(buf), p)) {
		key |= strstr(buf, "\"key_q16\"") != NULL;
		grad |= strstr(buf, "\"grad_q16\"") != NULL;
		state |= strstr(buf, "\"state\"") != NULL;
	}
	pclose(p);
	CHECK("sb xdp: bpftool map dump of dc_sw_sbuf names the fields (key_q16, grad_q16, state)",
	      key && grad && state, "key %d grad %d state %d", key, grad, state);
}

int main(void)
{
	struct dc_sim_cfg c;
	struct dc_err err = { 0 };
	__u32 nslots, k;

	if (geteuid()) {
		printf("SKIP: smartbuf/edt xdp agreement: needs root\n");
		return 0;
	}
	if (swfix_setup(&f)) {
		printf("FAIL: sb xdp fixture: namespace, veths and switch object set up\n");
		return 1;
	}
	sbuf_fd = bpf_map__fd(f.skel->maps.dc_sw_sbuf);
	memset(&f.c, 0, sizeof(f.c));
	f.c.buffer_bytes = B_BYTES;
	f.c.abm_period_us = 100;
	for (k = 0; k < DC_SW_PRIOS; k++)
		f.c.alpha_q16[k] = DC_DEFAULT_ALPHA_Q16;
	f.c.edt.max_us = 400;
	nslots = trace();
	printf("PASS: sb xdp fixture: the switch object loads; trace of %zu arrivals, %u slots\n",
	       narr, nslots);
	sim_cfg(&c, DC_ALG_DT, 0);
	if (dc_sim_features(&c, arr, narr, nslots, x, fate_dt, NULL, &err))
		printf("FAIL: sb xdp: DT run: %s\n", err.msg);
	one("smartbuf onset", DC_ALG_SMARTBUF, DC_SB_ONSET, nslots);
	one("smartbuf literal", DC_ALG_SMARTBUF, DC_SB_LITERAL, nslots);
	one("edt", DC_ALG_EDT, 0, nslots);
	bpftool_dump();
	switch_bpf__destroy(f.skel);
	return check_failed;
}
