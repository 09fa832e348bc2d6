// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The switch's XDP admission program on multi-buffer frames ("xdp.frags",
 * BPF_F_XDP_HAS_FRAGS): a 9014-byte frame (MTU 9000) is admitted, dropped
 * (buffer full), ECN-marked and counted by its whole length, not by its first buffer, and
 * single-buffer frames are counted exactly as before.  BPF_PROG_TEST_RUN
 * builds a multi-buffer frame when data_size_in exceeds one page minus the
 * XDP head- and tailroom (5.18+); a kernel whose test_run refuses that is
 * reported as a SKIP and only the single-buffer checks run.  Needs root.
 */
#define _GNU_SOURCE
#include "skelfix.h"
#include "check.h"
#include "swfixture.h"

static struct swfix f;

#define Q16(x) ((__u32)((x) * 65536.0 + 0.5))
#define JUMBO 9014	/* MTU 9000 + Ethernet header */
#define LINEAR 1514	/* MTU 1500 + Ethernet header */
#define OUT_MAX 16384

static unsigned char pkt[OUT_MAX], out[OUT_MAX];

/* One run with an output buffer large enough for the whole frame (the
 * fixture's swfix_run stops at 9000 bytes).  Verdict, or -errno. */
static int run(size_t len, __u8 tos)
{
	struct xdp_md ctx = { .data_end = (__u32)len, .ingress_ifindex = f.if_in };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = (__u32)len,
		    .data_out = out, .data_size_out = sizeof(out),
		    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = 1);

	swfix_pkt(pkt, len, "10.9.1.2", tos);
	if (bpf_prog_test_run_opts(f.prog, &o))
		return -errno;
	return (int)o.retval;
}

/* Port 1, priority 0, summed over CPUs. */
static struct dc_sw_counters cnt(void)
{
	return swfix_counters(&f, 1 * DC_SW_PRIOS + 0);
}

/*
 * DT, B = 100 000, α = 0.5; ECN above K = 15 000.  The first part runs at
 * queue q_k, Q = 40 000 (marked iff q_k + len > K), the second at
 * occupancy Q_t with a short queue (q = 500 < α(B − Q_t)): DT's threshold
 * compares the queue before the packet, so the frame's length enters
 * admission through the buffer test, dropped "full" iff Q_t + len > B.
 * For the multi-buffer frame q_k = 10 000 and Q_t = 92 000: the first
 * buffer of a test_run frame is at most one page less head- and tailroom
 * (≈ 3.5 kB), so a program that counted only it would pass and leave
 * unmarked what the whole frame drops/marks.
 */
static void checks(const char *what, size_t len, __u64 q_k, __u64 Q_t, bool over)
{
	struct dc_sw_counters c0, c1;
	char name[160];
	int v;

	swfix_queue(&f, q_k, 40000, 1, Q16(1));
	c0 = cnt();
	v = run(len, 0x02 /* ECT(0) */);
	c1 = cnt();
	snprintf(name, sizeof(name), "frags %s: q < T passes", what);
	CHECK_EQ(name, v, XDP_PASS);
	snprintf(name, sizeof(name), "frags %s: admit_bytes counts the whole frame (%zu)", what, len);
	CHECK_EQ(name, c1.admit_bytes - c0.admit_bytes, len);
	snprintf(name, sizeof(name), "frags %s: %s", what,
		 over ? "q + whole frame > K: CE set, IPv4 checksum valid" : "q + len ≤ K: not marked");
	CHECK(name, over ? (out[sizeof(struct ethhdr) + 1] & 3) == 3 && swfix_ip_csum_ok(out) &&
			   c1.ecn_marked_pkts - c0.ecn_marked_pkts == 1
			 : (out[sizeof(struct ethhdr) + 1] & 3) == 2 &&
			   c1.ecn_marked_pkts == c0.ecn_marked_pkts,
	      "tos %#x, marks %llu", out[sizeof(struct ethhdr) + 1],
	      (unsigned long long)(c1.ecn_marked_pkts - c0.ecn_marked_pkts));
	snprintf(name, sizeof(name), "frags %s: payload after the headers returned intact", what);
	CHECK(name, !memcmp(pkt + 64, out + 64, len - 64), "%s", "changed");

	swfix_queue(&f, 500, Q_t, 1, Q16(1));
	c0 = cnt();
	v = run(len, 0);
	c1 = cnt();
	snprintf(name, sizeof(name), "frags %s: %s", what,
		 over ? "Q + whole frame > B drops (full)" : "Q + len ≤ B passes");
	CHECK_EQ(name, v, over ? XDP_DROP : XDP_PASS);
	if (over) {
		snprintf(name, sizeof(name), "frags %s: drop_full and drop_bytes count the whole frame",
			 what);
		CHECK(name, c1.drop_full_pkts - c0.drop_full_pkts == 1 &&
			    c1.drop_bytes - c0.drop_bytes == len, "full %llu, bytes %llu",
		      (unsigned long long)(c1.drop_full_pkts - c0.drop_full_pkts),
		      (unsigned long long)(c1.drop_bytes - c0.drop_bytes));
	}
}

int main(void)
{
	int v;

	DC_TEST_NEED_ROOT("xdp frags fixtures");
	(void)swfix_run;	/* the fixture's runner stops at 9000 bytes: run() here */
	if (swfix_setup(&f)) {
		printf("FAIL: frags fixture: namespace, veths and switch object set up\n");
		return 1;
	}
	CHECK("frags: the admission program is loaded from section xdp.frags",
	      !strcmp(bpf_program__section_name(f.skel->progs.dc_sw_admit), "xdp.frags"), "%s",
	      bpf_program__section_name(f.skel->progs.dc_sw_admit));
	swfix_dt(&f, 100000, Q16(0.5));
	f.c.ecn_k_bytes = 15000;
	swfix_cfg(&f);

	/* single buffer: exactly as before the program became frags-aware */
	checks("1514-byte single-buffer frame", LINEAR, 10000, 98000, false);
	checks("3014-byte single-buffer frame", 3014, 12500, 97000, true);

	swfix_queue(&f, 10000, 40000, 1, Q16(1));
	v = run(JUMBO, 0);
	if (v < 0) {
		printf("SKIP: frags: this kernel's test_run builds no multi-buffer frame "
		       "(%d bytes: %s); single-buffer checks only\n", JUMBO, strerror(-v));
	} else {
		checks("9014-byte multi-buffer frame", JUMBO, 10000, 92000, true);
	}
	switch_bpf__destroy(f.skel);
	return check_failed;
}
