// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * BPF_PROG_TEST_RUN fixtures for ResQueue's host tagger
 * (bpf/resq_host.bpf.c): the level in each packet's DSCP (level L as
 * CS(8 - L)) as a flow's bytes accumulate (level 2, then 3 from the first
 * packet sent after 32 KB, 4 after 256 KB), a retransmission one level up
 * (a one-packet flow's from 2 to 1, a long flow's window from 4 to 3
 * while new data stays at 4), the IPv4 checksum valid and ECN bits kept
 * after every rewrite, a smaller cs_top, PIAS mode (from level 1, never
 * promoted), RTO mode (promoted only below the
 * sequence sockops recorded at the timeout), idle_us (a connection's next
 * message after a gap starts at level 2 again), a disabled tagger and
 * non-TCP or malformed packets passed byte for byte.  Needs root; maps are
 * private (nothing pinned).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "check.h"
#include "skelfix.h"
#include "pktbuild.h"
#include "dcbpf/flow.h"
#include "dcbpf/resqueue.h"
#include "resq_host.skel.h"

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_ACK 0x10
#define MSS 1448
#define TOS_ECT0 0x02

static struct resq_host_bpf *skel;
static int cfg_fd, flows_fd, stats_fd;

static void build(struct pkt *p, __u16 sport, __u32 seq, __u32 payload, __u8 flags, __u8 proto)
{
	__u8 *th;

	pkt_tcp4(p, &(struct pkt_tcp4){ .src = "10.0.0.1", .dst = "10.0.0.2", .sport = sport,
					.dport = 5001, .payload = payload, .flags = flags,
					.tos = TOS_ECT0, .ttl = 64, .proto = proto, .ip_id = 0x1200,
					.fill_mul = 7, .fill_add = 3 });
	th = p->b + 14 + 20;
	th[4] = seq >> 24;
	th[5] = seq >> 16;
	th[6] = seq >> 8;
	th[7] = seq;
}

static int run(const struct pkt *in, struct pkt *out)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in->b, .data_size_in = in->len,
		    .data_out = out->b, .data_size_out = sizeof(out->b));
	int err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.dc_resq_egress), &o);

	out->len = o.data_size_out;
	return err ? RUN_ERR + err : (int)o.retval;
}

static bool csum_ok(const struct pkt *p)
{
	return dc_ip_csum(p->b + 14, (p->b[14] & 0xf) * 4) == 0;
}

/* Everything but TOS and the IP checksum as sent. */
static bool same_but_tos(const struct pkt *a, const struct pkt *b)
{
	return a->len == b->len && !memcmp(a->b, b->b, 15) && !memcmp(a->b + 16, b->b + 16, 8) &&
	       !memcmp(a->b + 26, b->b + 26, a->len - 26);
}

/* The level a packet leaves with; -1 if anything else changed, the
 * checksum is wrong, the ECN bits moved or the verdict is not "next". */
static int send_level(__u16 sport, __u32 seq, __u32 payload, __u8 flags)
{
	struct pkt in, out;
	int rc;

	build(&in, sport, seq, payload, flags, 6);
	rc = run(&in, &out);
	if (rc != TC_NEXT || !same_but_tos(&in, &out) || !csum_ok(&out) ||
	    (out.b[15] & 3) != TOS_ECT0)
		return -1;
	return (int)dc_resq_tos_level(out.b[15], DC_RESQ_CS_TOP_DEFAULT);
}

static void set_cfg(__u32 promote, __u32 enabled)
{
	struct dc_resq_cfg c;
	__u32 zero = 0;

	dc_resq_cfg_default(&c);
	c.promote = promote;
	c.enabled = enabled;
	bpf_map_update_elem(cfg_fd, &zero, &c, 0);
}

static struct dc_flow_key key_of(__u16 sport)
{
	struct dc_flow_key k = { .family = DC_AF_INET, .sport = sport, .dport = 5001 };

	inet_pton(AF_INET, "10.0.0.1", &k.saddr[0]);
	inet_pton(AF_INET, "10.0.0.2", &k.daddr[0]);
	return k;
}

static struct dc_resq_flow flow(__u16 sport)
{
	struct dc_flow_key k = key_of(sport);
	struct dc_resq_flow f = {};

	bpf_map_lookup_elem(flows_fd, &k, &f);
	return f;
}

static struct dc_resq_counters counters(void)
{
	int n = libbpf_num_possible_cpus(), i;
	struct dc_resq_counters v[n], s = {};
	__u32 zero = 0;

	memset(v, 0, sizeof(v));
	bpf_map_lookup_elem(stats_fd, &zero, v);
	for (i = 0; i < n; i++) {
#define S(field, fl, prom, help) s.field += v[i].field;
		DC_RESQ_COUNTERS(S)
#undef S
	}
	return s;
}

static void one_packet_flow(void)
{
	struct dc_resq_counters c0 = counters(), c1;
	struct dc_resq_flow f;

	set_cfg(DC_RESQ_PROMOTE_ANY, 1);
	CHECK_EQ("SYN: level 2 (CS6)", send_level(40001, 999, 0, TCP_SYN), 2);
	CHECK_EQ("1 KB flow, its packet: level 2", send_level(40001, 1000, 1024, TCP_ACK), 2);
	CHECK_EQ("its retransmission: level 1 (CS7, §3.3 case 1)", send_level(40001, 1000, 1024, TCP_ACK), 1);
	CHECK_EQ("its FIN: level 2", send_level(40001, 2024, 0, TCP_FIN | TCP_ACK), 2);
	f = flow(40001);
	CHECK("flow: 1024 bytes sent, 4 packets, 1 retransmission promoted, level 2",
	      f.bytes_sent == 1024 && f.pkts == 4 && f.retx_pkts == 1 && f.promoted_pkts == 1 &&
	      f.level == 2 && f.max_end_seq == 2025,
	      "bytes %llu pkts %llu retx %llu promoted %llu level %u max_end %u",
	      (unsigned long long)f.bytes_sent, (unsigned long long)f.pkts,
	      (unsigned long long)f.retx_pkts, (unsigned long long)f.promoted_pkts, f.level,
	      f.max_end_seq);
	c1 = counters();
	CHECK("counters: 4 tagged, 1 retx, 1 promoted",
	      c1.tagged - c0.tagged == 4 && c1.retx - c0.retx == 1 && c1.promoted - c0.promoted == 1,
	      "tagged %llu retx %llu promoted %llu", (unsigned long long)(c1.tagged - c0.tagged),
	      (unsigned long long)(c1.retx - c0.retx), (unsigned long long)(c1.promoted - c0.promoted));
}

/* 300 KB in MSS segments: the DSCP against bytes sent before each one. */
static void accumulate(void)
{
	__u32 seq = 5000, i, n = 300 * 1024 / MSS, wrong = 0, first3 = 0, first4 = 0, promoted = 0;
	int l;

	set_cfg(DC_RESQ_PROMOTE_ANY, 1);
	for (i = 0; i < n; i++, seq += MSS) {
		__u64 before = (__u64)i * MSS;
		int want = 2 + (before >= 32 * 1024) + (before >= 256 * 1024);

		l = send_level(40002, seq, MSS, TCP_ACK);
		if (l != want)
			wrong++;
		if (l == 3 && !first3)
			first3 = i;
		if (l == 4 && !first4)
			first4 = i;
	}
	CHECK_EQ("300 KB: every packet at the level of its bytes sent, checksum valid", wrong, 0);
	CHECK_EQ("level 3 from packet 23 (33,304 B sent before it)", first3, 23);
	CHECK_EQ("level 4 from packet 182 (263,536 B sent before it)", first4, 182);
	for (i = 10; i > 0; i--)
		if (send_level(40002, seq - i * MSS, MSS, TCP_ACK) == 3)
			promoted++;
	CHECK_EQ("the window of 10 at level 4 retransmitted at level 3 (§3.3 case 2)", promoted, 10);
	CHECK_EQ("new data after it: level 4", send_level(40002, seq, MSS, TCP_ACK), 4);
	CHECK_EQ("flow: bytes sent counts new data only", flow(40002).bytes_sent, (__u64)(n + 1) * MSS);
}

/* cs_top 3 (a switch with 4 queues): level 1 CS3 ... level 4 CS0. */
static void cs_top3(void)
{
	struct dc_resq_cfg c;
	struct pkt in, out;
	__u32 zero = 0;
	int rc;

	dc_resq_cfg_default(&c);
	c.cs_top = 3;
	bpf_map_update_elem(cfg_fd, &zero, &c, 0);
	build(&in, 40007, 1, MSS, TCP_ACK, 6);
	rc = run(&in, &out);
	CHECK("cs_top 3: a new flow leaves as CS2, checksum valid",
	      rc == TC_NEXT && out.b[15] >> 5 == 2 && csum_ok(&out), "rc %d tos %#x", rc, out.b[15]);
	rc = run(&in, &out);
	CHECK("cs_top 3: its retransmission as CS3", rc == TC_NEXT && out.b[15] >> 5 == 3 && csum_ok(&out),
	      "rc %d tos %#x", rc, out.b[15]);
}

static void pias(void)
{
	set_cfg(DC_RESQ_PROMOTE_OFF, 1);
	CHECK_EQ("PIAS: a new flow at level 1", send_level(40003, 1, MSS, TCP_ACK), 1);
	CHECK_EQ("PIAS: its retransmission stays at level 1", send_level(40003, 1, MSS, TCP_ACK), 1);
	CHECK("PIAS: retransmission seen, not promoted",
	      flow(40003).retx_pkts == 1 && flow(40003).promoted_pkts == 0, "retx %llu promoted %llu",
	      (unsigned long long)flow(40003).retx_pkts, (unsigned long long)flow(40003).promoted_pkts);
}

static void rto(void)
{
	struct dc_flow_key k = key_of(40004);
	struct dc_resq_flow f;

	set_cfg(DC_RESQ_PROMOTE_RTO, 1);
	send_level(40004, 1, MSS, TCP_ACK);
	send_level(40004, 1 + MSS, MSS, TCP_ACK);
	CHECK_EQ("RTO mode: a retransmission without a timeout stays at level 2",
		 send_level(40004, 1, MSS, TCP_ACK), 2);
	/* what dc_resq_sockops writes at BPF_SOCK_OPS_RTO_CB */
	f = flow(40004);
	f.rto_high_seq = f.max_end_seq;
	f.rto_count = 1;
	bpf_map_update_elem(flows_fd, &k, &f, BPF_EXIST);
	CHECK_EQ("RTO mode: after the timeout: level 1", send_level(40004, 1 + MSS, MSS, TCP_ACK), 1);
	CHECK_EQ("RTO mode: new data: level 2", send_level(40004, 1 + 2 * MSS, MSS, TCP_ACK), 2);
}

#define IDLE_GAP_NS 2000000000ULL

/* idle_us: the connection's next message after a gap starts at level 2
 * again; without it, where the last one ended. */
static void idle(void)
{
	struct dc_flow_key k = key_of(40008);
	struct dc_resq_cfg c;
	struct dc_resq_flow f;
	struct timespec ts;
	__u32 zero = 0, seq = 1, i;

	dc_resq_cfg_default(&c);
	/* 1 s: far above the time between two test runs, even on an emulated
	 * CPU; the gaps below are made by moving last_ns back 2 s */
	c.idle_us = 1000000;
	bpf_map_update_elem(cfg_fd, &zero, &c, 0);
	for (i = 0; i < 40000 / MSS; i++, seq += MSS)
		send_level(40008, seq, MSS, TCP_ACK);
	f = flow(40008);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	CHECK("idle: the program records the last send (bpf_ktime_get_ns)",
	      f.last_ns && f.last_ns <= (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec, "last_ns %llu",
	      (unsigned long long)f.last_ns);
	CHECK_EQ("idle: 40 KB sent, new data at level 3", send_level(40008, seq, MSS, TCP_ACK), 3);
	seq += MSS;
	/* the flow last sent 2 s ago */
	f = flow(40008);
	f.last_ns -= IDLE_GAP_NS;
	bpf_map_update_elem(flows_fd, &k, &f, BPF_EXIST);
	CHECK_EQ("idle: the next message after 2 s idle starts at level 2",
		 send_level(40008, seq, MSS, TCP_ACK), 2);
	f = flow(40008);
	CHECK("idle: bytes sent restarted, counted",
	      f.bytes_sent == MSS && f.idle_restarts == 1, "bytes %llu restarts %u",
	      (unsigned long long)f.bytes_sent, f.idle_restarts);
	f.last_ns -= IDLE_GAP_NS;
	bpf_map_update_elem(flows_fd, &k, &f, BPF_EXIST);
	CHECK_EQ("idle: a retransmission after the gap is promoted, not restarted",
		 send_level(40008, seq - 3 * MSS, MSS, TCP_ACK), 1);
	CHECK_EQ("... no second restart", flow(40008).idle_restarts, 1);
	c.idle_us = 0;
	bpf_map_update_elem(cfg_fd, &zero, &c, 0);
	f = flow(40008);
	f.last_ns -= IDLE_GAP_NS;
	f.bytes_sent = 40000;
	bpf_map_update_elem(flows_fd, &k, &f, BPF_EXIST);
	CHECK_EQ("idle_us 0: no restart, level 3 after 40 KB", send_level(40008, seq + MSS, MSS, TCP_ACK), 3);
}

static void untouched(void)
{
	struct dc_resq_counters c0, c1;
	struct pkt in, out;
	int rc, ok = 0, cases = 0;

	set_cfg(DC_RESQ_PROMOTE_ANY, 0);
	build(&in, 40005, 1, MSS, TCP_ACK, 6);
	rc = run(&in, &out);
	CHECK("disabled: TCP passes byte for byte",
	      rc == TC_NEXT && out.len == in.len && !memcmp(in.b, out.b, in.len), "rc %d", rc);
	set_cfg(DC_RESQ_PROMOTE_ANY, 1);
	c0 = counters();
	/* UDP; truncated TCP header; IP header length 4 words; a fragment;
	 * total length past the frame; an IPv6 version nibble */
	for (int i = 0; i < 6; i++) {
		build(&in, 40006, 1, 100, TCP_ACK, i == 0 ? 17 : 6);
		switch (i) {
		case 1: in.len = 14 + 20 + 10; in.b[16] = 0; in.b[17] = 30; break;
		case 2: in.b[14] = 0x44; break;
		case 3: in.b[20] |= 0x20; break;	/* MF */
		case 4: in.b[16] = 0x10; break;		/* tot_len 4096+ */
		case 5: in.b[14] = 0x65; break;
		}
		cases++;
		rc = run(&in, &out);
		ok += rc == TC_NEXT && out.len == in.len && !memcmp(in.b, out.b, in.len);
	}
	c1 = counters();
	CHECK_EQ("UDP and 5 malformed TCP packets: passed byte for byte", ok, cases);
	CHECK_EQ("... and counted as passed", c1.passed - c0.passed, cases);
	CHECK_EQ("... none tagged", c1.tagged - c0.tagged, 0);
	CHECK("... no flow created for them", flow(40006).pkts == 0, "pkts %llu",
	      (unsigned long long)flow(40006).pkts);
}

int main(void)
{
	struct bpf_map *m;

	if (geteuid()) {
		printf("%s: resq prog: needs root (sudo make check)\n",
		       getenv("CI") && !strcmp(getenv("CI"), "true") ? "FAIL" : "SKIP");
		return getenv("CI") && !strcmp(getenv("CI"), "true");
	}
	if (!getenv("DCBPF_DEBUG"))
		libbpf_set_print(NULL);
	skel = resq_host_bpf__open();
	if (!skel) {
		printf("FAIL: resq prog: open: %s\n", strerror(errno));
		return 1;
	}
	/* Private maps: a fixture must not touch pinned production state. */
	bpf_object__for_each_map(m, skel->obj)
		bpf_map__set_pin_path(m, NULL);
	if (resq_host_bpf__load(skel)) {
		printf("FAIL: resq prog: load (verifier): %s\n", strerror(errno));
		return 1;
	}
	printf("PASS: resq prog: tagger and sockops programs verify and load\n");
	cfg_fd = bpf_map__fd(skel->maps.dc_resq_cfg);
	flows_fd = bpf_map__fd(skel->maps.dc_resq_flows);
	stats_fd = bpf_map__fd(skel->maps.dc_resq_stats);
	one_packet_flow();
	accumulate();
	cs_top3();
	pias();
	rto();
	idle();
	untouched();
	resq_host_bpf__destroy(skel);
	return check_failed;
}
