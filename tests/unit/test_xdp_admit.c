// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The XDP admission program under BPF_PROG_TEST_RUN: packet fixtures
 * against a constructed queue state (tests/lib/swfixture.h), one check
 * per behaviour: thresholds of CS/DT/ABM, first-RTT α, DSCP priorities,
 * ECN marking with a valid checksum, counters, live reconfiguration, and
 * frames that must pass untouched.  Needs root (prints SKIP otherwise).
 */
#define _GNU_SOURCE	/* unshare() in the fixture */
#include "check.h"
#include "swfixture.h"

static struct swfix f;

#define Q16(x) ((__u32)((x) * 65536.0 + 0.5))

static int run(const char *dst, __u8 tos, size_t len)
{
	unsigned char pkt[2000];

	swfix_pkt(pkt, len, dst, tos);
	return swfix_run(&f, pkt, len, NULL, 1, NULL);
}

int main(void)
{
	struct dc_sw_counters c0, c1;
	unsigned char pkt[2000], out[9000];
	__u32 k;

	if (geteuid()) {
		printf("%s: xdp admission fixtures: needs root (sudo make check)\n",
		       getenv("CI") && !strcmp(getenv("CI"), "true") ? "FAIL" : "SKIP");
		return getenv("CI") && !strcmp(getenv("CI"), "true");
	}
	if (swfix_setup(&f)) {
		printf("FAIL: xdp fixture: namespace, veths and switch object set up\n");
		return 1;
	}
	printf("PASS: xdp fixture: switch object loads, private namespace with two ports\n");
	memset(&f.c, 0, sizeof(f.c));
	f.c.alg = DC_ALG_DT;
	f.c.buffer_bytes = 100000;
	f.c.abm_period_us = 100;
	f.c.alpha_first_rtt_q16 = Q16(64);
	for (k = 0; k < DC_SW_PRIOS; k++)
		f.c.alpha_q16[k] = Q16(0.5);
	for (k = 0; k < 64; k++)
		f.c.dscp_prio[k] = (__u8)((k >> 3) | (k & 1 ? DC_SW_DSCP_FIRST_RTT : 0));
	swfix_cfg(&f);

	/* DT: B = 100 000, Q = 40 000, α = 0.5 → T = 30 000 */
	swfix_queue(&f, 29999, 40000, 1, Q16(1));
	CHECK_EQ("xdp dt: q = 29 999 < T = 30 000 passes (q before the packet)",
		 run("10.9.1.2", 0, 1000), XDP_PASS);
	swfix_queue(&f, 30000, 40000, 1, Q16(1));
	CHECK_EQ("xdp dt: q = 30 000 = T drops", run("10.9.1.2", 0, 1000), XDP_DROP);
	swfix_queue(&f, 1000, 99500, 1, Q16(1));
	CHECK_EQ("xdp dt: Q + len > B drops (buffer full)", run("10.9.1.2", 0, 1000), XDP_DROP);
	c1 = swfix_counters(&f, 1 * DC_SW_PRIOS + 0);
	CHECK("xdp counters: port 1 prio 0 has 1 admitted, 1 threshold, 1 full drop",
	      c1.admit_pkts == 1 && c1.drop_thresh_pkts == 1 && c1.drop_full_pkts == 1,
	      "admit %llu thresh %llu full %llu", (unsigned long long)c1.admit_pkts,
	      (unsigned long long)c1.drop_thresh_pkts, (unsigned long long)c1.drop_full_pkts);
	{
		struct dc_sw_port p;
		__u32 one = 1;

		bpf_map_lookup_elem(f.port, &one, &p);
		CHECK_EQ("xdp: the port record shows the last threshold (α(B − Q) = 250)",
			 p.thresh_bytes, 250);
	}

	/* a fractional threshold is not rounded down: B = 100 001 → T = 30 000.5 */
	f.c.buffer_bytes = 100001;
	swfix_cfg(&f);
	swfix_queue(&f, 30000, 40000, 1, Q16(1));
	CHECK_EQ("xdp dt: q = 30 000 < T = 30 000.5 passes", run("10.9.1.2", 0, 1000), XDP_PASS);
	swfix_queue(&f, 30001, 40000, 1, Q16(1));
	CHECK_EQ("xdp dt: q = 30 001 > T = 30 000.5 drops", run("10.9.1.2", 0, 1000), XDP_DROP);
	f.c.buffer_bytes = 100000;
	swfix_cfg(&f);

	/* CS ignores thresholds; a live switch of algorithm acts at once */
	swfix_queue(&f, 30000, 40000, 1, Q16(1));
	f.c.alg = DC_ALG_CS;
	swfix_cfg(&f);
	CHECK_EQ("xdp cs: the same state passes (live dt → cs)", run("10.9.1.2", 0, 1000), XDP_PASS);

	/* ABM: n = 2, γ = 0.5 → T = 0.5·60 000·0.5/2 = 7 500 */
	f.c.alg = DC_ALG_ABM;
	swfix_cfg(&f);
	swfix_queue(&f, 7500, 40000, 2, Q16(0.5));
	CHECK_EQ("xdp abm: q = 7 500 = T drops", run("10.9.1.2", 0, 1000), XDP_DROP);
	swfix_queue(&f, 7499, 40000, 2, Q16(0.5));
	CHECK_EQ("xdp abm: q = 7 499 < T passes", run("10.9.1.2", 0, 1000), XDP_PASS);
	swfix_queue(&f, 7500, 40000, 2, Q16(0.5));
	c0 = swfix_counters(&f, 1 * DC_SW_PRIOS + 0);
	CHECK_EQ("xdp abm: a first-RTT packet (DSCP 1) gets α = 64 and passes",
		 run("10.9.1.2", 1 << 2, 1000), XDP_PASS);
	c1 = swfix_counters(&f, 1 * DC_SW_PRIOS + 0);
	CHECK_EQ("xdp counters: first-RTT packet counted", c1.first_rtt_pkts - c0.first_rtt_pkts, 1);

	/* DSCP 8 → priority 1 with its own α */
	f.c.alpha_q16[1] = Q16(2);
	swfix_cfg(&f);
	CHECK_EQ("xdp dscp: priority 1 (DSCP 8, α = 2) passes where priority 0 drops",
		 run("10.9.1.2", 8 << 2, 1000), XDP_PASS);
	c1 = swfix_counters(&f, 1 * DC_SW_PRIOS + 1);
	CHECK_EQ("xdp counters: per priority (port 1, prio 1)", c1.admit_pkts, 1);

	/* ECN: K = 5 000, q = 6 000 */
	f.c.alg = DC_ALG_DT;
	f.c.ecn_k_bytes = 5000;
	swfix_cfg(&f);
	swfix_queue(&f, 6000, 10000, 1, Q16(1));
	swfix_pkt(pkt, 1000, "10.9.1.2", 0x02 /* ECT(0) */);
	CHECK_EQ("xdp ecn: ECT packet above K passes", swfix_run(&f, pkt, 1000, out, 1, NULL), XDP_PASS);
	CHECK("xdp ecn: CE set and the IPv4 checksum still valid",
	      (out[sizeof(struct ethhdr) + 1] & 3) == 3 && swfix_ip_csum_ok(out), "tos %#x",
	      out[sizeof(struct ethhdr) + 1]);
	swfix_pkt(pkt, 1000, "10.9.1.2", 0);
	swfix_run(&f, pkt, 1000, out, 1, NULL);
	CHECK("xdp ecn: a not-ECT packet is left alone", !memcmp(pkt, out, 1000), "%s", "changed");
	swfix_queue(&f, 1000, 10000, 1, Q16(1));
	swfix_pkt(pkt, 1000, "10.9.1.2", 0x02);
	swfix_run(&f, pkt, 1000, out, 1, NULL);
	CHECK("xdp ecn: below K nothing is marked", !memcmp(pkt, out, 1000), "%s", "changed");
	c1 = swfix_counters(&f, 1 * DC_SW_PRIOS + 0);
	CHECK_EQ("xdp counters: one ECN mark", c1.ecn_marked_pkts, 1);

	/* frames that are not admission candidates pass untouched */
	c0 = swfix_counters(&f, DC_SW_CNT_OTHER);
	swfix_queue(&f, 99000, 99900, 1, Q16(1));	/* would drop anything admitted */
	swfix_pkt(pkt, 1000, "10.9.1.2", 0);
	CHECK_EQ("xdp: truncated IPv4 header passes", swfix_run(&f, pkt, 24, out, 1, NULL), XDP_PASS);
	CHECK("xdp: ... untouched", !memcmp(pkt, out, 24), "%s", "changed");
	((struct ethhdr *)pkt)->h_proto = htons(0x0806);
	CHECK_EQ("xdp: non-IP (ARP) passes", swfix_run(&f, pkt, 60, out, 1, NULL), XDP_PASS);
	/* (frames shorter than Ethernet cannot be fed: test_run refuses them) */
	CHECK_EQ("xdp: no route (192.0.2.1) passes", run("192.0.2.1", 0, 1000), XDP_PASS);
	CHECK_EQ("xdp: to the switch itself (10.9.1.1, local) passes", run("10.9.1.1", 0, 1000), XDP_PASS);
	c1 = swfix_counters(&f, DC_SW_CNT_OTHER);
	CHECK_EQ("xdp counters: those four counted as other", c1.other_pkts - c0.other_pkts, 4);
	/* the state again: the four runs above may outlast the 5 ms after
	 * which the tracker drains a record it has not heard from (a busy
	 * emulated guest) */
	swfix_queue(&f, 99000, 99900, 1, Q16(1));
	CHECK_EQ("xdp: and a forwarded packet in the same state drops", run("10.9.1.2", 0, 1000), XDP_DROP);

	/* a record the tracker left stale (no event for > 5 ms) is drained at
	 * the port rate.  Aged by 1 s, far beyond 5 ms: the program's clock is
	 * the coarse one, which can lag by ticks in an idle VM. */
	{
		struct dc_sw_port p;
		__u32 one = 1;

		bpf_map_lookup_elem(f.port, &one, &p);
		p.last_ns = p.last_ns > 1000000000ULL ? p.last_ns - 1000000000ULL : 0;
		bpf_map_update_elem(f.port, &one, &p, BPF_ANY);
		CHECK_EQ("xdp: a stale backlog (1 s without a tracker event) no longer blocks the port",
			 run("10.9.1.2", 0, 1000), XDP_PASS);
	}
	switch_bpf__destroy(f.skel);
	return check_failed;
}
