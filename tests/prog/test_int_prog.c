// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * BPF_PROG_TEST_RUN fixtures for the host INT programs (bpf/int.bpf.c):
 * source → (switch hops) → sink returns the original packet bit for bit,
 * the echo round trip publishes the stack, GSO packets, full options,
 * truncated and malformed input.  Needs root (loads BPF programs).
 */
#include <arpa/inet.h>
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
#include "dcbpf/int.h"
#include "int.skel.h"
#include "int_transit.skel.h"
#include "dcbpf/switch.h"


static struct int_bpf *skel;
static struct int_transit_bpf *xskel;

/* Ethernet + IPv4 (optional raw options) + TCP + payload, valid checksum. */
static void build(struct pkt *p, const char *src, const char *dst, __u16 sport, __u16 dport,
		  __u32 payload, const __u8 *ipopts, __u32 optlen, __u8 proto)
{
	pkt_tcp4(p, &(struct pkt_tcp4){ .src = src, .dst = dst, .sport = sport, .dport = dport,
					.payload = payload, .flags = payload ? 0x18 : 0x10,
					.ttl = 64, .proto = proto, .ip_id = 0x1200, .ipopts = ipopts,
					.optlen = optlen, .fill_mul = 7, .fill_add = 3 });
}

/* The program's verdict, or RUN_ERR + the error (tests/lib/skelfix.h). */
static int run(int prog_fd, const struct pkt *in, struct pkt *out, __u32 gso_size, __u32 *gso_out)
{
	struct __sk_buff ctx = { .gso_size = gso_size, .gso_segs = gso_size ? 8 : 0 };
	struct __sk_buff ctx_out = {};
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in->b, .data_size_in = in->len,
		    .data_out = out->b, .data_size_out = sizeof(out->b), .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .ctx_out = &ctx_out, .ctx_size_out = sizeof(ctx_out));
	int err = bpf_prog_test_run_opts(prog_fd, &o);

	out->len = o.data_size_out;
	if (gso_out)
		*gso_out = ctx_out.gso_size;
	return err ? RUN_ERR + err : (int)o.retval;
}

static struct dc_int_counters counters(void)
{
	struct dc_int_counters c = {};
	__u32 zero = 0;

	bpf_map_lookup_elem(bpf_map__fd(skel->maps.dc_int_stats), &zero, &c);
	return c;
}

static bool ip_csum_ok(const struct pkt *p)
{
	__u32 ihl = (p->b[14] & 0xf) * 4;

	return dc_ip_csum(p->b + 14, ihl) == 0;
}

/* What a switch does to the option, done here by hand: fill the next slot. */
static void fill_hop(struct pkt *p, const struct dc_int_hop_in *h)
{
	__u8 *opt = p->b + 34, *ip = p->b + 14;
	__u32 hops = dc_int_hops(opt[3]);
	__u16 csum;

	dc_int_store_be64(opt + 4 + 8 * hops, dc_int_hop_encode(h));
	opt[3] = dc_int_b3(hops + 1, dc_int_path(opt[3]));
	ip[10] = ip[11] = 0;
	csum = dc_ip_csum(ip, (ip[0] & 0xf) * 4);
	ip[10] = csum >> 8;
	ip[11] = csum & 0xff;
}

static void add_dst(const char *addr, __u32 slots)
{
	struct dc_int_dst_key k = { .prefixlen = 32 };
	struct dc_int_dst_cfg v = { .slots = slots };

	inet_pton(AF_INET, addr, &k.addr);
	bpf_map_update_elem(bpf_map__fd(skel->maps.dc_int_dst), &k, &v, BPF_ANY);
}

static void test_roundtrip(void)
{
	int out_fd = bpf_program__fd(skel->progs.dc_int_hout);
	int in_fd = bpf_program__fd(skel->progs.dc_int_hin);
	struct pkt orig, a, b;
	struct dc_int_hop_in h1 = { .rate_mbps = 1000, .qlen_bytes = 3200, .ts_ns = 5000000,
				    .tx_bytes = 640000 };
	struct dc_int_hop_in h2 = { .rate_mbps = 10000, .qlen_bytes = 64, .ts_ns = 7000000,
				    .tx_bytes = 1280000 };
	struct dc_int_counters c0 = counters(), c1;

	build(&orig, "10.0.0.1", "10.0.0.2", 40000, 5201, 1000, NULL, 0, 6);
	CHECK_EQ("int source: hands the packet on (tcx next / TC_ACT_UNSPEC)", run(out_fd, &orig, &a, 0, NULL), -1);
	CHECK_EQ("int source: packet grows by 4+4*8", a.len, orig.len + 36);
	CHECK_EQ("int source: ihl covers the option", a.b[14] & 0xf, 14);
	CHECK_EQ("int source: option type", a.b[34], DC_INT_OPT_TYPE);
	CHECK_EQ("int source: option length", a.b[35], 36);
	CHECK_EQ("int source: version", dc_int_version(a.b[36]), DC_INT_VERSION);
	CHECK_EQ("int source: no hops yet", dc_int_hops(a.b[37]), 0);
	CHECK("int source: IP checksum valid", ip_csum_ok(&a), "bad checksum");
	CHECK("int source: TCP header and payload untouched",
	      !memcmp(a.b + 70, orig.b + 34, orig.len - 34), "TCP bytes differ");
	c1 = counters();
	CHECK_EQ("int source: counted", c1.src_added - c0.src_added, 1);

	fill_hop(&a, &h1);
	fill_hop(&a, &h2);
	CHECK_EQ("int sink: hands the packet on (tcx next / TC_ACT_UNSPEC)", run(in_fd, &a, &b, 0, NULL), -1);
	CHECK("int sink: source→hops→sink is the original, bit for bit",
	      b.len == orig.len && !memcmp(b.b, orig.b, orig.len), "len %u vs %u", b.len, orig.len);
	{
		struct dc_flow_key k = { .family = 2, .sport = 40000, .dport = 5201 };
		struct dc_int_sink_rec rec = {};

		inet_pton(AF_INET, "10.0.0.1", &k.saddr[0]);
		inet_pton(AF_INET, "10.0.0.2", &k.daddr[0]);
		CHECK("int sink: stack kept per flow",
		      !bpf_map_lookup_elem(bpf_map__fd(skel->maps.dc_int_sink), &k, &rec) &&
			      rec.hops == 2 && rec.hop_word[0] == dc_int_hop_encode(&h1) &&
			      rec.hop_word[1] == dc_int_hop_encode(&h2),
		      "hops %u", rec.hops);
	}

	/* Echo: the receiver's ACK carries the stack back. */
	{
		struct pkt ack, e, s;
		struct dc_flow_key k = { .family = 2, .sport = 40000, .dport = 5201 };
		struct dc_int_stack st = {};

		build(&ack, "10.0.0.2", "10.0.0.1", 5201, 40000, 0, NULL, 0, 6);
		run(out_fd, &ack, &e, 0, NULL);
		CHECK_EQ("int echo: ACK grows by 4+2*8", e.len, ack.len + 20);
		CHECK("int echo: echo flag set", e.b[36] & DC_INT_FLAG_ECHO, "b2=%#x", e.b[36]);
		CHECK_EQ("int echo: hop count", dc_int_hops(e.b[37]), 2);
		CHECK("int echo: IP checksum valid", ip_csum_ok(&e), "bad checksum");
		run(in_fd, &e, &s, 0, NULL);
		CHECK("int echo: stripped at the sender, ACK bit for bit",
		      s.len == ack.len && !memcmp(s.b, ack.b, ack.len), "len %u vs %u", s.len, ack.len);
		inet_pton(AF_INET, "10.0.0.1", &k.saddr[0]);
		inet_pton(AF_INET, "10.0.0.2", &k.daddr[0]);
		CHECK("int echo: stack published in dc_int_flows",
		      !bpf_map_lookup_elem(bpf_map__fd(skel->maps.dc_int_flows), &k, &st) &&
			      st.nhops == 2 && st.hop[0].qlen_bytes == 3200 &&
			      st.hop[0].rate_mbps == 1000 && st.hop[1].rate_mbps == 10000 &&
			      st.updated_ns > 0,
		      "nhops %u qlen %u rate %u", st.nhops, st.hop[0].qlen_bytes, st.hop[0].rate_mbps);

		/* A second echo: decoded deltas are exact across the unwrap. */
		{
			struct dc_int_stack st2 = {};
			struct pkt d;
			__u64 ts0 = st.hop[0].ts_ns, tx0 = st.hop[0].tx_bytes;

			h1.ts_ns += 12800; /* 50 units */
			h1.tx_bytes += 6400;
			build(&orig, "10.0.0.1", "10.0.0.2", 40000, 5201, 100, NULL, 0, 6);
			run(out_fd, &orig, &a, 0, NULL);
			fill_hop(&a, &h1);
			fill_hop(&a, &h2);
			run(in_fd, &a, &b, 0, NULL);
			run(out_fd, &ack, &e, 0, NULL);
			run(in_fd, &e, &d, 0, NULL);
			bpf_map_lookup_elem(bpf_map__fd(skel->maps.dc_int_flows), &k, &st2);
			CHECK_EQ("int echo: ts delta decoded", st2.hop[0].ts_ns - ts0, 12800);
			CHECK_EQ("int echo: tx delta decoded", st2.hop[0].tx_bytes - tx0, 6400);
		}
	}
}

/*
 * Sampling (docs/int.md, "Sampling"): to a destination with sample_us, a
 * flow's first data segment gets the option with S set, the next ones
 * within sample_us do not (and are not touched at all), one after it does;
 * every one does while the flow's newest echo shows a queue above
 * sample_qlen_bytes; the sink echoes a sampled stack once, and again after
 * a new one arrived.  Another flow is sampled on its own.
 */
static void test_sampling(void)
{
	int out_fd = bpf_program__fd(skel->progs.dc_int_hout);
	int in_fd = bpf_program__fd(skel->progs.dc_int_hin);
	struct dc_int_dst_key dk = { .prefixlen = 32 };
	struct dc_int_dst_cfg dv = { .slots = 2, .sample_us = 20000, .sample_qlen_bytes = 10000 };
	struct dc_flow_key fk = { .family = 2, .sport = 41000, .dport = 5201 };
	struct dc_int_hop_in h = { .rate_mbps = 1000, .qlen_bytes = 640, .ts_ns = 9000000, .tx_bytes = 64000 };
	struct dc_int_counters c0 = counters(), c1;
	struct pkt d, a, b, ack, e, other;
	struct dc_int_stack st = {};

	inet_pton(AF_INET, "10.0.0.3", &dk.addr);
	bpf_map_update_elem(bpf_map__fd(skel->maps.dc_int_dst), &dk, &dv, BPF_ANY);
	inet_pton(AF_INET, "10.0.0.1", &fk.saddr[0]);
	inet_pton(AF_INET, "10.0.0.3", &fk.daddr[0]);
	build(&d, "10.0.0.1", "10.0.0.3", 41000, 5201, 1000, NULL, 0, 6);

	run(out_fd, &d, &a, 0, NULL);
	CHECK_EQ("int sampling: a flow's first segment gets the option", a.len, d.len + 20);
	CHECK("int sampling: ... with the S flag", a.b[36] & DC_INT_FLAG_SAMPLED, "b2=%#x", a.b[36]);
	run(out_fd, &d, &b, 0, NULL);
	CHECK("int sampling: the next one within sample_us passes untouched",
	      b.len == d.len && !memcmp(b.b, d.b, d.len), "len %u", b.len);
	build(&other, "10.0.0.1", "10.0.0.3", 41001, 5201, 1000, NULL, 0, 6);
	run(out_fd, &other, &b, 0, NULL);
	CHECK_EQ("int sampling: another flow is sampled on its own (its first gets it)", b.len, other.len + 20);
	c1 = counters();
	CHECK_EQ("int sampling: src_sampled_out counts the untouched one", c1.src_sampled_out - c0.src_sampled_out, 1);
	CHECK_EQ("int sampling: src_added counts the two tagged", c1.src_added - c0.src_added, 2);
	usleep(25000);
	run(out_fd, &d, &b, 0, NULL);
	CHECK_EQ("int sampling: after sample_us the flow is tagged again", b.len, d.len + 20);

	/* a moving queue: the newest echo shows 12800 B > 10000 at a hop */
	st.nhops = 1;
	st.hop[0].qlen_bytes = 12800;
	st.updated_ns = 1;
	bpf_map_update_elem(bpf_map__fd(skel->maps.dc_int_flows), &fk, &st, BPF_ANY);
	run(out_fd, &d, &b, 0, NULL);
	CHECK_EQ("int sampling: a hop queue above sample_qlen_bytes: every segment (1)", b.len, d.len + 20);
	run(out_fd, &d, &b, 0, NULL);
	CHECK_EQ("int sampling: a hop queue above sample_qlen_bytes: every segment (2)", b.len, d.len + 20);
	st.hop[0].qlen_bytes = 9600;
	bpf_map_update_elem(bpf_map__fd(skel->maps.dc_int_flows), &fk, &st, BPF_ANY);
	run(out_fd, &d, &b, 0, NULL);
	CHECK("int sampling: the queue below it again: back to one per sample_us",
	      b.len == d.len, "len %u vs %u", b.len, d.len);

	/* the sink: a sampled stack is echoed once */
	fill_hop(&a, &h);
	run(in_fd, &a, &b, 0, NULL);
	build(&ack, "10.0.0.3", "10.0.0.1", 5201, 41000, 0, NULL, 0, 6);
	c0 = counters();
	run(out_fd, &ack, &e, 0, NULL);
	CHECK_EQ("int sampling: the first ACK after a sampled stack carries the echo (1 hop)", e.len, ack.len + 12);
	run(out_fd, &ack, &e, 0, NULL);
	CHECK("int sampling: the next ACK does not (each stack rides back once)",
	      e.len == ack.len && !memcmp(e.b, ack.b, ack.len), "len %u", e.len);
	c1 = counters();
	CHECK_EQ("int sampling: echo_skipped counts it", c1.echo_skipped - c0.echo_skipped, 1);
	run(in_fd, &a, &b, 0, NULL);	/* a new stack arrives */
	run(out_fd, &ack, &e, 0, NULL);
	CHECK_EQ("int sampling: after a new stack, the next ACK echoes again", e.len, ack.len + 12);
	CHECK("int sampling: the echo does not carry S", !(e.b[36] & DC_INT_FLAG_SAMPLED), "b2=%#x", e.b[36]);
}

/*
 * Give-up (docs/int.md, "When the path drops IP options"), through the
 * program: a new flow's first segment is a probe, the next ones wait for
 * its echo; an echo lets every segment carry the option; no echo for
 * giveup_ms gives up (untouched segments, counted); the sink does not echo
 * a stack older than 100 ms.  Times are CLOCK_MONOTONIC, the clock of
 * bpf_ktime_get_ns.
 */
static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

static void test_giveup(void)
{
	int out_fd = bpf_program__fd(skel->progs.dc_int_hout);
	struct dc_int_dst_key dk = { .prefixlen = 32 };
	struct dc_int_dst_cfg dv = { .slots = 2, .giveup_ms = 1000 };	/* long: emulated VMs are slow */
	struct dc_flow_key fk = { .family = 2, .sport = 42000, .dport = 5201 };
	struct dc_int_counters c0 = counters(), c1;
	struct dc_int_sink_rec rec = { .hops = 1, .hop_word = { 1 } };
	struct dc_int_samp samp = {};
	struct dc_int_stack st = { .nhops = 1 };
	struct pkt d, b, ack, e;
	__u64 tb, ta;

	inet_pton(AF_INET, "10.0.0.4", &dk.addr);
	bpf_map_update_elem(bpf_map__fd(skel->maps.dc_int_dst), &dk, &dv, BPF_ANY);
	inet_pton(AF_INET, "10.0.0.1", &fk.saddr[0]);
	inet_pton(AF_INET, "10.0.0.4", &fk.daddr[0]);
	build(&d, "10.0.0.1", "10.0.0.4", 42000, 5201, 1000, NULL, 0, 6);

	run(out_fd, &d, &b, 0, NULL);
	CHECK_EQ("int giveup: a new flow's first segment probes (gets the option)", b.len, d.len + 20);
	CHECK("int giveup: the probe carries no S flag", !(b.b[36] & DC_INT_FLAG_SAMPLED), "b2=%#x", b.b[36]);
	run(out_fd, &d, &b, 0, NULL);
	CHECK("int giveup: the next one waits for the probe's echo (untouched)",
	      b.len == d.len && !memcmp(b.b, d.b, d.len), "len %u", b.len);
	c1 = counters();
	CHECK_EQ("int giveup: src_int_off counts it", c1.src_int_off - c0.src_int_off, 1);

	/* the probe's echo is published: the path carries INT */
	st.updated_ns = mono_ns();
	bpf_map_update_elem(bpf_map__fd(skel->maps.dc_int_flows), &fk, &st, BPF_ANY);
	run(out_fd, &d, &b, 0, NULL);
	CHECK_EQ("int giveup: after the echo the flow is tagged", b.len, d.len + 20);
	run(out_fd, &d, &b, 0, NULL);
	CHECK_EQ("int giveup: ... on every segment", b.len, d.len + 20);

	/* 1.1 s since the first segment tagged after the newest echo: give up */
	samp.unechoed_ns = mono_ns() - 1100000000ULL;
	samp.proven = 1;
	st.updated_ns = samp.unechoed_ns - 10000000ULL;
	bpf_map_update_elem(bpf_map__fd(skel->maps.dc_int_samp), &fk, &samp, BPF_ANY);
	bpf_map_update_elem(bpf_map__fd(skel->maps.dc_int_flows), &fk, &st, BPF_ANY);
	c0 = counters();
	tb = mono_ns();
	run(out_fd, &d, &b, 0, NULL);
	ta = mono_ns();
	CHECK("int giveup: no echo for giveup_ms: the segment goes untouched",
	      b.len == d.len && !memcmp(b.b, d.b, d.len), "len %u", b.len);
	run(out_fd, &d, &b, 0, NULL);
	CHECK_EQ("int giveup: and the next (off period)", b.len, d.len);
	c1 = counters();
	CHECK_EQ("int giveup: src_gave_up counts the flow once", c1.src_gave_up - c0.src_gave_up, 1);
	CHECK_EQ("int giveup: src_int_off counts both segments", c1.src_int_off - c0.src_int_off, 2);
	bpf_map_lookup_elem(bpf_map__fd(skel->maps.dc_int_samp), &fk, &samp);
	CHECK("int giveup: the off period lasts giveup_ms",
	      samp.off_until_ns >= tb + 1000000000ULL && samp.off_until_ns <= ta + 1000000000ULL,
	      "off_until - start %lld ns", (long long)(samp.off_until_ns - tb));

	/* the sink: a stack older than 100 ms is not echoed */
	build(&ack, "10.0.0.4", "10.0.0.1", 5201, 42000, 0, NULL, 0, 6);
	rec.updated_ns = mono_ns() - 200000000ULL;
	bpf_map_update_elem(bpf_map__fd(skel->maps.dc_int_sink), &fk, &rec, BPF_ANY);
	c0 = counters();
	run(out_fd, &ack, &e, 0, NULL);
	CHECK("int giveup: a 200 ms old stack is not echoed", e.len == ack.len, "len %u", e.len);
	c1 = counters();
	CHECK_EQ("int giveup: echo_stale counts it", c1.echo_stale - c0.echo_stale, 1);
	rec.updated_ns = mono_ns();
	bpf_map_update_elem(bpf_map__fd(skel->maps.dc_int_sink), &fk, &rec, BPF_ANY);
	run(out_fd, &ack, &e, 0, NULL);
	CHECK_EQ("int giveup: a fresh one is", e.len, ack.len + 12);
}

/*
 * test_run cannot build a TCP GSO skb (it sets gso_size but no gso_type),
 * which is the one GSO kind the kernel lets BPF grow.  So the fixture pins
 * the rule for a GSO packet the kernel refuses: untouched and counted.
 * TCP TSO/GSO packets are covered end to end by tests/integ/int.sh, which
 * runs with TSO on and checks the segments on the wire.
 */
static void test_gso(void)
{
	int out_fd = bpf_program__fd(skel->progs.dc_int_hout);
	struct pkt orig, a;
	__u32 gso = 0;
	struct dc_int_counters c0 = counters(), c1;

	build(&orig, "10.0.0.1", "10.0.0.2", 40001, 5201, 2 * 1448, NULL, 0, 6);
	CHECK_EQ("int gso: test_run accepts a GSO context; the packet is handed on", run(out_fd, &orig, &a, 1448, &gso), -1);
	c1 = counters();
	CHECK("int gso: refused GSO packet passes untouched",
	      a.len == orig.len && !memcmp(a.b, orig.b, orig.len), "changed");
	CHECK_EQ("int gso: gso_size unchanged", gso, 1448);
	CHECK_EQ("int gso: refusal counted", c1.src_fail - c0.src_fail, 1);
}

static void test_passthrough(void)
{
	int out_fd = bpf_program__fd(skel->progs.dc_int_hout);
	int in_fd = bpf_program__fd(skel->progs.dc_int_hin);
	__u8 nops[40];
	struct pkt p, o;
	struct dc_int_counters c0, c1;

	memset(nops, 1, sizeof(nops)); /* 40 bytes of NOP options: no room */
	c0 = counters();
	build(&p, "10.0.0.1", "10.0.0.2", 40002, 5201, 500, nops, 40, 6);
	run(out_fd, &p, &o, 0, NULL);
	c1 = counters();
	CHECK("int: full IP options pass untouched", o.len == p.len && !memcmp(o.b, p.b, p.len),
	      "changed");
	CHECK_EQ("int: full IP options counted", c1.src_no_room - c0.src_no_room, 1);
	run(in_fd, &p, &o, 0, NULL);
	CHECK("int: foreign options pass the sink untouched",
	      o.len == p.len && !memcmp(o.b, p.b, p.len), "changed");

	build(&p, "10.0.0.1", "10.0.0.9", 40003, 5201, 500, NULL, 0, 6);
	run(out_fd, &p, &o, 0, NULL);
	CHECK("int: unconfigured destination untouched", o.len == p.len && !memcmp(o.b, p.b, p.len),
	      "changed");
	build(&p, "10.0.0.1", "10.0.0.2", 40004, 5201, 500, NULL, 0, 17);
	run(out_fd, &p, &o, 0, NULL);
	CHECK("int: UDP untouched", o.len == p.len && !memcmp(o.b, p.b, p.len), "changed");
	build(&p, "10.0.0.1", "10.0.0.2", 40005, 5201, 500, NULL, 0, 6);
	p.b[20] = 0x20; /* MF: a fragment */
	run(out_fd, &p, &o, 0, NULL);
	CHECK("int: fragments untouched", o.len == p.len && !memcmp(o.b, p.b, p.len), "changed");
	build(&p, "10.0.0.1", "10.0.0.2", 40006, 5201, 500, NULL, 0, 6);
	p.b[12] = 0x86; /* IPv6 ethertype */
	p.b[13] = 0xdd;
	run(out_fd, &p, &o, 0, NULL);
	CHECK("int: IPv6 untouched", o.len == p.len && !memcmp(o.b, p.b, p.len), "changed");
	/* test_run refuses frames shorter than Ethernet + IPv4, so truncation
	 * is exercised past that: a cut TCP header, and options cut short. */
	build(&p, "10.0.0.1", "10.0.0.2", 40007, 5201, 0, NULL, 0, 6);
	p.len = 14 + 20 + 8;
	run(out_fd, &p, &o, 0, NULL);
	CHECK("int: truncated TCP header untouched", o.len == p.len && !memcmp(o.b, p.b, p.len),
	      "changed");
	{
		__u8 opt[40] = { DC_INT_OPT_TYPE, 36, 0x20, 0x10 };

		build(&p, "10.0.0.1", "10.0.0.2", 40008, 5201, 0, opt, 36, 6);
		p.len = 14 + 20 + 12; /* ihl says 56 bytes, 32 arrive */
		run(in_fd, &p, &o, 0, NULL);
		CHECK("int: truncated options untouched at the sink",
		      o.len == p.len && !memcmp(o.b, p.b, p.len), "changed");
	}
}

static void test_malformed(void)
{
	int in_fd = bpf_program__fd(skel->progs.dc_int_hin);
	__u8 opt[40] = { DC_INT_OPT_TYPE, 13, 0x20, 0x00 };
	struct pkt p, o, plain;
	struct dc_int_counters c0, c1;

	/* A length that is not 4 + 8k: left alone (never stripped on a guess). */
	c0 = counters();
	memset(opt + 13, 1, sizeof(opt) - 13);
	build(&p, "10.0.0.1", "10.0.0.2", 40010, 5201, 100, opt, 16, 6);
	run(in_fd, &p, &o, 0, NULL);
	c1 = counters();
	CHECK("int: bad option length passes untouched", o.len == p.len && !memcmp(o.b, p.b, p.len),
	      "changed");
	CHECK_EQ("int: bad option length counted", c1.bad_passed - c0.bad_passed, 1);
	/* A length past the header: left alone. */
	opt[1] = 36;
	build(&p, "10.0.0.1", "10.0.0.2", 40011, 5201, 100, opt, 20, 6);
	run(in_fd, &p, &o, 0, NULL);
	CHECK("int: option longer than the header passes untouched",
	      o.len == p.len && !memcmp(o.b, p.b, p.len), "changed");
	/* Hop pointer beyond the slots: stripped, contents ignored. */
	memset(opt, 0, sizeof(opt));
	opt[0] = DC_INT_OPT_TYPE;
	opt[1] = 20;
	opt[2] = dc_int_b2(0);
	opt[3] = dc_int_b3(7, 0);
	c0 = counters();
	build(&p, "10.0.0.1", "10.0.0.2", 40012, 5201, 100, opt, 20, 6);
	build(&plain, "10.0.0.1", "10.0.0.2", 40012, 5201, 100, NULL, 0, 6);
	run(in_fd, &p, &o, 0, NULL);
	c1 = counters();
	CHECK("int: bad hop pointer stripped, TCP gets the clean packet",
	      o.len == plain.len && !memcmp(o.b, plain.b, plain.len), "len %u", o.len);
	CHECK_EQ("int: bad hop pointer counted", c1.bad_stripped - c0.bad_stripped, 1);
	/* Wrong version: stripped, not used. */
	opt[3] = dc_int_b3(0, 0);
	opt[2] = (__u8)(5 << 5);
	build(&p, "10.0.0.1", "10.0.0.2", 40013, 5201, 100, opt, 20, 6);
	build(&plain, "10.0.0.1", "10.0.0.2", 40013, 5201, 100, NULL, 0, 6);
	run(in_fd, &p, &o, 0, NULL);
	CHECK("int: unknown version stripped", o.len == plain.len && !memcmp(o.b, plain.b, plain.len),
	      "len %u", o.len);
}

static struct dc_int_counters xcounters(void)
{
	struct dc_int_counters c = {};
	__u32 zero = 0;

	bpf_map_lookup_elem(bpf_map__fd(xskel->maps.dc_int_xstats), &zero, &c);
	return c;
}

/* The switch's port record as the queue tracker would keep it. */
static void set_port(__u32 ifindex, __u32 port_id, __u32 rate, __u64 qlen, __u64 tx)
{
	struct dc_sw_port rec = { .rate_mbps = rate, .qlen_bytes = qlen, .tx_bytes = tx,
				  .port_id = port_id, .ifindex = ifindex };

	bpf_map_update_elem(bpf_map__fd(xskel->maps.dc_sw_ifport), &ifindex, &port_id, BPF_ANY);
	bpf_map_update_elem(bpf_map__fd(xskel->maps.dc_sw_port), &port_id, &rec, BPF_ANY);
}

/* test_run's skb is on loopback: the transit hop sees ifindex 1. */
static void test_transit(void)
{
	int out_fd = bpf_program__fd(skel->progs.dc_int_hout);
	int in_fd = bpf_program__fd(skel->progs.dc_int_hin);
	int x_fd = bpf_program__fd(xskel->progs.dc_int_xmit);
	struct pkt orig, a, b;
	struct dc_int_counters x0 = xcounters(), x1;
	int hop;

	set_port(1, 3, 1000, 6400, 1280000);
	build(&orig, "10.0.0.1", "10.0.0.2", 40100, 5201, 1200, NULL, 0, 6);
	run(out_fd, &orig, &a, 0, NULL);
	for (hop = 0; hop < 4; hop++) {
		set_port(1, 3, hop == 2 ? 10000 : 1000, 6400 * (hop + 1), 1280000 + hop);
		run(x_fd, &a, &b, 0, NULL);
		a = b;
	}
	CHECK_EQ("int transit: packet never grows", a.len, orig.len + 36);
	CHECK_EQ("int transit: four hops filled", dc_int_hops(a.b[37]), 4);
	CHECK("int transit: IP checksum valid after four hops", ip_csum_ok(&a), "bad checksum");
	CHECK_EQ("int transit: hop 0 qlen from the port record",
		 dc_int_w_qlen(dc_int_load_be64(a.b + 38)) * DC_INT_QLEN_UNIT_BYTES, 6400);
	CHECK_EQ("int transit: hop 3 qlen", dc_int_w_qlen(dc_int_load_be64(a.b + 38 + 24)) *
						    DC_INT_QLEN_UNIT_BYTES, 25600);
	CHECK_EQ("int transit: hop 2 rate", dc_int_rate_mbps(dc_int_w_rate(dc_int_load_be64(a.b + 54))),
		 10000);
	CHECK("int transit: no overflow within the slots", !(a.b[36] & DC_INT_FLAG_OVERFLOW), "set");
	/* Fifth switch: no slot left → overflow flag, nothing else written. */
	run(x_fd, &a, &b, 0, NULL);
	CHECK("int transit: fifth hop sets overflow", b.b[36] & DC_INT_FLAG_OVERFLOW, "not set");
	CHECK("int transit: fifth hop changes nothing else",
	      b.len == a.len && !memcmp(b.b + 38, a.b + 38, a.len - 38), "changed");
	CHECK("int transit: checksum valid after overflow", ip_csum_ok(&b), "bad checksum");
	a = b;
	run(x_fd, &a, &b, 0, NULL);
	CHECK("int transit: sixth hop leaves it as it was", b.len == a.len && !memcmp(b.b, a.b, a.len),
	      "changed");
	x1 = xcounters();
	CHECK_EQ("int transit: fills counted", x1.transit_filled - x0.transit_filled, 4);
	CHECK_EQ("int transit: overflow counted once", x1.transit_overflow - x0.transit_overflow, 1);
	/* Sink: back to the original, bit for bit. */
	run(in_fd, &b, &a, 0, NULL);
	CHECK("int: source → transit ×5 → sink is the original, bit for bit",
	      a.len == orig.len && !memcmp(a.b, orig.b, orig.len), "len %u vs %u", a.len, orig.len);

	/* Echoes pass switches untouched. */
	{
		struct pkt ack, e, f;

		build(&ack, "10.0.0.2", "10.0.0.1", 5201, 40100, 0, NULL, 0, 6);
		run(out_fd, &ack, &e, 0, NULL);
		x0 = xcounters();
		run(x_fd, &e, &f, 0, NULL);
		CHECK("int transit: echo untouched", f.len == e.len && !memcmp(f.b, e.b, e.len),
		      "changed");
		CHECK_EQ("int transit: echo counted", xcounters().transit_echo - x0.transit_echo, 1);
	}
	/* Malformed at a switch: untouched. */
	{
		__u8 bad[20] = { DC_INT_OPT_TYPE, 14, 0x20, 0 };
		struct pkt m, n;

		build(&m, "10.0.0.1", "10.0.0.2", 40101, 5201, 100, bad, 20, 6);
		run(x_fd, &m, &n, 0, NULL);
		CHECK("int transit: bad length untouched", n.len == m.len && !memcmp(n.b, m.b, m.len),
		      "changed");
		bad[1] = 20;
		bad[3] = dc_int_b3(9, 0);
		build(&m, "10.0.0.1", "10.0.0.2", 40102, 5201, 100, bad, 20, 6);
		run(x_fd, &m, &n, 0, NULL);
		CHECK("int transit: bad hop pointer untouched",
		      n.len == m.len && !memcmp(n.b, m.b, m.len), "changed");
	}
	/* A port without a record (not a switch port): untouched. */
	{
		__u32 one = 1;
		struct pkt m, n;

		bpf_map_delete_elem(bpf_map__fd(xskel->maps.dc_sw_ifport), &one);
		build(&orig, "10.0.0.1", "10.0.0.2", 40103, 5201, 100, NULL, 0, 6);
		run(out_fd, &orig, &m, 0, NULL);
		run(x_fd, &m, &n, 0, NULL);
		CHECK("int transit: unknown port leaves the slots empty",
		      n.len == m.len && !memcmp(n.b, m.b, m.len), "changed");
	}
}

int main(void)
{
	DC_TEST_NEED_ROOT("int prog");
	skel = DC_SKEL_OPEN_LOAD(int_bpf);
	if (!skel) {
		printf("FAIL: int prog: open and load (verifier): %s\n", strerror(errno));
		return 1;
	}
	printf("PASS: int prog: host programs verify and load\n");
	xskel = DC_SKEL_OPEN_LOAD(int_transit_bpf);
	if (!xskel) {
		printf("FAIL: int prog: transit open and load (verifier): %s\n", strerror(errno));
		return 1;
	}
	printf("PASS: int prog: transit program verifies and loads\n");
	add_dst("10.0.0.2", 4);
	test_roundtrip();
	test_sampling();
	test_giveup();
	test_gso();
	test_passthrough();
	test_malformed();
	test_transit();
	int_transit_bpf__destroy(xskel);
	int_bpf__destroy(skel);
	return check_failed;
}
