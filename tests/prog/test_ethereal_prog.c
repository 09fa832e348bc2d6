// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * BPF_PROG_TEST_RUN fixtures for Ethereal (bpf/ethereal.bpf.c host
 * egress, bpf/eth_leaf.bpf.c leaf ingress): a new flow gets the
 * least-loaded uplink and its tag, later packets keep it, FIN/RST release
 * its weight exactly once, idle flows are released by their timer,
 * spraying rotates, with INT the P field is set and nothing else changes
 * (in either program order), DSCP is untouched, foreign packets pass
 * untouched; the leaf redirects tagged packets (TTL − 1, tag stripped,
 * checksum valid), routes untagged ones normally and counts unknown tags,
 * local destinations and down uplinks.  Needs root: loads programs and
 * builds the leaf's routes in a private network namespace (unshare), so
 * nothing is left behind.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "skelfix.h"
#include "check.h"
#include "pktbuild.h"
#include "dcbpf/int.h"
#include "dcbpf/ethereal.h"
#include "dcbpf/flow.h"
#include "ethereal.skel.h"
#include "eth_leaf.skel.h"
#include "int.skel.h"

#define U DC_ETH_FLOW_UNIT
#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_PSH 0x08
#define TCP_ACK 0x10
#define TC_ACT_REDIRECT 7
#define TC_NEXT (-1)	/* pass, next program on the hook runs (bpf/lib/ipv4.h) */
#define RUN_ERR (-1000)	/* test_run itself failed: -1000 − errno */

static struct ethereal_bpf *hs;
static struct eth_leaf_bpf *ls;
static struct int_bpf *is;

/* Ethernet + IPv4 (tos, ttl, raw options) + TCP (flags) + payload. */
static void build(struct pkt *p, const char *src, const char *dst, __u16 sport, __u16 dport,
		  __u32 payload, __u8 flags, __u8 tos, __u8 ttl, const __u8 *ipopts, __u32 optlen,
		  __u8 proto)
{
	pkt_tcp4(p, &(struct pkt_tcp4){ .src = src, .dst = dst, .sport = sport, .dport = dport,
					.payload = payload, .flags = flags, .tos = tos, .ttl = ttl,
					.proto = proto, .ip_id = 0x3400, .ipopts = ipopts,
					.optlen = optlen, .fill_mul = 11, .fill_add = 5 });
}

static int run_if(int fd, const struct pkt *in, struct pkt *out, __u32 ifindex)
{
	struct __sk_buff ctx = { .ifindex = ifindex };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in->b, .data_size_in = in->len,
		    .data_out = out->b, .data_size_out = sizeof(out->b), .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx));
	int err = bpf_prog_test_run_opts(fd, &o);

	out->len = o.data_size_out;
	return err ? RUN_ERR + err : (int)o.retval;
}

static int run(int fd, const struct pkt *in, struct pkt *out)
{
	return run_if(fd, in, out, 0);
}

static int run_mark(int fd, const struct pkt *in, struct pkt *out, __u32 mark)
{
	struct __sk_buff ctx = { .mark = mark };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in->b, .data_size_in = in->len,
		    .data_out = out->b, .data_size_out = sizeof(out->b), .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx));
	int err = bpf_prog_test_run_opts(fd, &o);

	out->len = o.data_size_out;
	return err ? RUN_ERR + err : (int)o.retval;
}

static bool same(const struct pkt *a, const struct pkt *b)
{
	return a->len == b->len && !memcmp(a->b, b->b, a->len);
}

static bool csum_ok(const struct pkt *p)
{
	return dc_ip_csum(p->b + 14, (p->b[14] & 0xf) * 4) == 0;
}

/* P of the option that starts the IP options (−1: none of ours). */
static int tag_of(const struct pkt *p)
{
	if ((p->b[14] & 0xf) == 5 || p->b[34] != DC_INT_OPT_TYPE)
		return -1;
	return dc_int_path(p->b[37]);
}

/* The packet with a tag-only option removed, or as is. */
static bool equals_untagged(const struct pkt *tagged, const struct pkt *orig)
{
	__u32 ihl = (tagged->b[14] & 0xf) * 4;

	return ihl == 24 && tagged->len == orig->len + 4 && !memcmp(tagged->b, orig->b, 14) &&
	       tagged->b[15] == orig->b[15] && !memcmp(tagged->b + 18, orig->b + 18, 6) &&
	       !memcmp(tagged->b + 26, orig->b + 26, 8) &&
	       !memcmp(tagged->b + 38, orig->b + 34, orig->len - 34);
}

static struct dc_eth_hcounters hcnt(void)
{
	struct dc_eth_hcounters c = {};
	__u32 zero = 0;

	bpf_map_lookup_elem(bpf_map__fd(hs->maps.dc_eth_hstats), &zero, &c);
	return c;
}

static struct dc_eth_lcounters lcnt(void)
{
	int n = libbpf_num_possible_cpus(), i;
	struct dc_eth_lcounters v[n], s = {};
	__u32 zero = 0;

	memset(v, 0, sizeof(v));
	bpf_map_lookup_elem(bpf_map__fd(ls->maps.dc_eth_lstats), &zero, v);
	for (i = 0; i < n; i++) {
		s.untagged += v[i].untagged;
		s.steered += v[i].steered;
		s.unknown_tag += v[i].unknown_tag;
		s.uplink_down += v[i].uplink_down;
		s.local_dst += v[i].local_dst;
		s.ttl_expired += v[i].ttl_expired;
		s.fib_fail += v[i].fib_fail;
		s.tag_stripped += v[i].tag_stripped;
	}
	return s;
}

static struct dc_eth_pathcnt pcnt(__u32 tag)
{
	int n = libbpf_num_possible_cpus(), i;
	struct dc_eth_pathcnt v[n], s = {};

	memset(v, 0, sizeof(v));
	bpf_map_lookup_elem(bpf_map__fd(ls->maps.dc_eth_pcnt), &tag, v);
	for (i = 0; i < n; i++) {
		s.bytes += v[i].bytes;
		s.packets += v[i].packets;
	}
	return s;
}

static void set_cfg(__u32 mode, __u32 s, __u32 idle_ms, __u32 avoid_ms)
{
	struct dc_eth_hcfg c = { .mode = mode, .n_uplinks = s, .idle_ms = idle_ms,
				 .avoid_ms = avoid_ms };
	__u32 zero = 0;

	bpf_map_update_elem(bpf_map__fd(hs->maps.dc_eth_hcfg), &zero, &c, BPF_ANY);
}

static struct dc_eth_hleaf view(__u32 leaf)
{
	struct dc_eth_hleaf v = {};

	bpf_map_lookup_elem(bpf_map__fd(hs->maps.dc_eth_view), &leaf, &v);
	return v;
}

static void set_loads(__u32 leaf, __u64 a, __u64 b, __u64 c, __u64 d)
{
	struct dc_eth_hleaf v = {};

	v.up.load[0] = a;
	v.up.load[1] = b;
	v.up.load[2] = c;
	v.up.load[3] = d;
	bpf_map_update_elem(bpf_map__fd(hs->maps.dc_eth_view), &leaf, &v, BPF_ANY);
}

static bool flow(const char *src, const char *dst, __u16 sport, __u16 dport, struct dc_eth_flow *f)
{
	struct dc_flow_key k = { .family = DC_AF_INET, .sport = sport, .dport = dport };

	inet_pton(AF_INET, src, &k.saddr[0]);
	inet_pton(AF_INET, dst, &k.daddr[0]);
	memset(f, 0, sizeof(*f));
	return !bpf_map_lookup_elem(bpf_map__fd(hs->maps.dc_eth_flows), &k, f);
}

#define A "10.99.0.1"
#define B "10.99.1.1"

static void test_assign(void)
{
	int fd = bpf_program__fd(hs->progs.dc_eth_hout);
	struct pkt in, out;
	struct dc_eth_hcounters c0 = hcnt(), c1;
	struct dc_eth_flow f;
	struct dc_eth_hleaf v;

	set_cfg(DC_ETH_MODE_ETHEREAL, 4, 60000, 0);
	set_loads(1, 2 * U, U, U, 3 * U);
	/* SYN of a new flow: uplinks 1 and 2 are least loaded, 1 wins the tie */
	build(&in, A, B, 40000, 5201, 0, TCP_SYN, 0, 64, NULL, 0, 6);
	CHECK_EQ("eth host: passes to the next program on the hook (TCX_NEXT)", run(fd, &in, &out),
		 TC_NEXT);
	CHECK_EQ("eth host: new flow gets the least-loaded uplink (1, tag 2)", tag_of(&out), 2);
	CHECK_EQ("eth host: tag-only option is 4 bytes", out.b[35], 4);
	CHECK("eth host: tag-only option is a valid tag",
	      dc_int_check(out.b + 34, 4) == DC_INT_TAG, "verdict %d", dc_int_check(out.b + 34, 4));
	CHECK("eth host: IP checksum valid", csum_ok(&out), "bad");
	CHECK("eth host: only ihl, total length, checksum and the option change",
	      equals_untagged(&out, &in), "differs");
	v = view(1);
	CHECK("eth host: uplink 1's load rose by one flow, others unchanged",
	      v.up.load[0] == 2 * U && v.up.load[1] == 2 * U && v.up.load[2] == U &&
		      v.up.load[3] == 3 * U,
	      "loads %llu %llu %llu %llu", (unsigned long long)v.up.load[0],
	      (unsigned long long)v.up.load[1], (unsigned long long)v.up.load[2],
	      (unsigned long long)v.up.load[3]);
	CHECK("eth host: flow entry: path, leaf, weight, one packet",
	      flow(A, B, 40000, 5201, &f) && f.path == 2 && f.leaf == 1 && f.weight == U &&
		      f.packets == 1 && f.bytes == in.len - 14 && f.state == DC_ETH_OPEN &&
		      f.last_seen_ns,
	      "path %u leaf %u packets %llu", f.path, f.leaf, (unsigned long long)f.packets);
	/* later packets keep the path though uplink 2 is now the least loaded */
	build(&in, A, B, 40000, 5201, 1000, TCP_ACK | TCP_PSH, 0, 64, NULL, 0, 6);
	run(fd, &in, &out);
	CHECK_EQ("eth host: later packets of the flow keep its tag", tag_of(&out), 2);
	CHECK("eth host: TCP header and payload untouched",
	      !memcmp(out.b + 38, in.b + 34, in.len - 34), "differs");
	/* a second flow goes to uplink 2 */
	build(&in, A, B, 40001, 5201, 0, TCP_SYN, 0, 64, NULL, 0, 6);
	run(fd, &in, &out);
	CHECK_EQ("eth host: the next new flow takes uplink 2 (tag 3)", tag_of(&out), 3);
	/* FIN: released once, the path stays for what follows */
	build(&in, A, B, 40000, 5201, 0, TCP_FIN | TCP_ACK, 0, 64, NULL, 0, 6);
	run(fd, &in, &out);
	CHECK_EQ("eth host: FIN still tagged with the flow's path", tag_of(&out), 2);
	v = view(1);
	CHECK_EQ("eth host: FIN takes the flow's weight off uplink 1", v.up.load[1], U);
	run(fd, &in, &out);
	v = view(1);
	CHECK_EQ("eth host: a retransmitted FIN does not take it off again", v.up.load[1], U);
	CHECK("eth host: entry released, kept for stragglers",
	      flow(A, B, 40000, 5201, &f) && f.state == DC_ETH_RELEASED && f.packets == 4,
	      "state %u packets %llu", f.state, (unsigned long long)f.packets);
	build(&in, A, B, 40001, 5201, 0, TCP_RST, 0, 64, NULL, 0, 6);
	run(fd, &in, &out);
	v = view(1);
	CHECK_EQ("eth host: RST takes the weight off uplink 2", v.up.load[2], U);
	c1 = hcnt();
	CHECK_EQ("eth host: two new flows counted", c1.flows_new - c0.flows_new, 2);
	CHECK_EQ("eth host: two releases by FIN/RST counted", c1.flows_fin - c0.flows_fin, 2);
	/* packets that may not open a flow */
	build(&in, A, B, 40002, 5201, 0, TCP_ACK, 0, 64, NULL, 0, 6);
	run(fd, &in, &out);
	CHECK("eth host: pure ACK of no known flow passes untagged", same(&in, &out), "changed");
	CHECK("eth host: … and opens no flow", !flow(A, B, 40002, 5201, &f), "entry made");
	build(&in, A, B, 40003, 5201, 0, TCP_SYN | TCP_ACK, 0, 64, NULL, 0, 6);
	run(fd, &in, &out);
	CHECK("eth host: SYN-ACK of a passive side opens no flow", same(&in, &out) &&
	      !flow(A, B, 40003, 5201, &f), "changed");
	build(&in, A, "10.99.7.1", 40004, 5201, 100, TCP_ACK, 0, 64, NULL, 0, 6);
	c0 = hcnt();
	run(fd, &in, &out);
	c1 = hcnt();
	CHECK("eth host: destination of no known leaf passes untagged", same(&in, &out), "changed");
	CHECK_EQ("eth host: … counted", c1.no_leaf - c0.no_leaf, 1);
	/* the avoid mask: an uplink that timed out recently is skipped */
	{
		struct dc_eth_hleaf av = {};
		__u32 leaf = 1;

		av.up.load[0] = 0;
		av.up.load[1] = 5 * U;
		av.up.load[2] = 5 * U;
		av.up.load[3] = 5 * U;
		av.avoid_until_ns[0] = ~0ULL;
		bpf_map_update_elem(bpf_map__fd(hs->maps.dc_eth_view), &leaf, &av, BPF_ANY);
		build(&in, A, B, 40005, 5201, 0, TCP_SYN, 0, 64, NULL, 0, 6);
		run(fd, &in, &out);
		CHECK_EQ("eth host: a new flow avoids an uplink that timed out (tag 2, not 1)",
			 tag_of(&out), 2);
	}
}

/* Algorithm 3's sub-flows: 1/parts of a flow each, from the socket mark. */
static void test_subflows(void)
{
	int fd = bpf_program__fd(hs->progs.dc_eth_hout);
	struct pkt in, out;
	struct dc_eth_hleaf v;
	struct dc_eth_flow f;
	int i, rc = 0, tags[4];

	set_cfg(DC_ETH_MODE_ETHEREAL, 4, 60000, 0);
	/* n = 6 flows over s = 4: 4 whole, then r = 2 split into s/g = 2 parts */
	set_loads(1, U, U, U, U);
	for (i = 0; i < 4; i++) {
		build(&in, A, B, 40060 + i, 5201, 0, TCP_SYN, 0, 64, NULL, 0, 6);
		if (run_mark(fd, &in, &out, DC_ETH_MARK_MAGIC | 2) != TC_NEXT)
			rc = 1;
		tags[i] = tag_of(&out);
	}
	v = view(1);
	CHECK("eth sub-flows: 4 half flows go to the 4 uplinks, each adds U/2",
	      !rc && tags[0] == 1 && tags[1] == 2 && tags[2] == 3 && tags[3] == 4 &&
		      v.up.load[0] == U + U / 2 && v.up.load[1] == U + U / 2 &&
		      v.up.load[2] == U + U / 2 && v.up.load[3] == U + U / 2,
	      "tags %d %d %d %d loads %llu", tags[0], tags[1], tags[2], tags[3],
	      (unsigned long long)v.up.load[0]);
	CHECK("eth sub-flows: the flow records its weight",
	      flow(A, B, 40060, 5201, &f) && f.weight == U / 2, "weight %llu",
	      (unsigned long long)f.weight);
	build(&in, A, B, 40060, 5201, 0, TCP_RST, 0, 64, NULL, 0, 6);
	run(fd, &in, &out);
	v = view(1);
	CHECK_EQ("eth sub-flows: release takes off the half", v.up.load[0], U);
	build(&in, A, B, 40064, 5201, 0, TCP_SYN, 0, 64, NULL, 0, 6);
	run_mark(fd, &in, &out, 0x12345602);
	CHECK("eth sub-flows: a foreign mark is a whole flow",
	      flow(A, B, 40064, 5201, &f) && f.weight == U, "weight %llu",
	      (unsigned long long)f.weight);
}

static void test_dscp_and_ecmp(void)
{
	int fd = bpf_program__fd(hs->progs.dc_eth_hout);
	struct pkt in, out;

	set_cfg(DC_ETH_MODE_ETHEREAL, 4, 60000, 0);
	set_loads(1, 0, 0, 0, 0);
	build(&in, A, B, 40010, 5201, 500, TCP_SYN, 0xb9 /* DSCP 46, ECT(1) */, 64, NULL, 0, 6);
	run(fd, &in, &out);
	CHECK("eth host: DSCP and ECN bits untouched", tag_of(&out) == 1 && out.b[15] == 0xb9,
	      "tag %d tos %#x", tag_of(&out), out.b[15]);
	CHECK("eth host: DSCP packet: IP checksum valid", csum_ok(&out), "bad");
	set_cfg(DC_ETH_MODE_ECMP, 4, 60000, 0);
	build(&in, A, B, 40011, 5201, 500, TCP_SYN, 0, 64, NULL, 0, 6);
	run(fd, &in, &out);
	CHECK("eth host: mode ecmp sends untagged", same(&in, &out), "changed");
}

static void test_spray(void)
{
	int fd = bpf_program__fd(hs->progs.dc_eth_hout);
	struct pkt in, out;
	struct dc_eth_hleaf v0, v1;
	int i, first = -1, bad = 0;

	set_cfg(DC_ETH_MODE_SPRAY, 4, 60000, 0);
	v0 = view(1);
	for (i = 0; i < 9; i++) {
		int t;

		build(&in, A, B, 40020, 5201, 200, i ? TCP_ACK : TCP_SYN, 0, 64, NULL, 0, 6);
		run(fd, &in, &out);
		t = tag_of(&out);
		if (i == 0)
			first = t;
		else if (t != (first - 1 + i) % 4 + 1)
			bad++;
	}
	v1 = view(1);
	CHECK("eth spray: the tag rotates over the 4 uplinks packet by packet",
	      first >= 1 && first <= 4 && !bad, "first %d, %d out of turn", first, bad);
	CHECK("eth spray: sprayed flows put no weight on the loads",
	      !memcmp(&v0.up, &v1.up, sizeof(v0.up)), "loads changed");
}

/* INT source and Ethereal on one hook, both orders. */
static void test_with_int(void)
{
	int efd = bpf_program__fd(hs->progs.dc_eth_hout), ifd = bpf_program__fd(is->progs.dc_int_hout);
	struct dc_int_dst_key k = { .prefixlen = 32 };
	struct dc_int_dst_cfg c = { .slots = 4 };
	struct pkt in, only_int, a, b, x;
	int diff = 0;
	__u32 i;

	inet_pton(AF_INET, B, &k.addr);
	bpf_map_update_elem(bpf_map__fd(is->maps.dc_int_dst), &k, &c, BPF_ANY);
	set_cfg(DC_ETH_MODE_ETHEREAL, 4, 60000, 0);
	set_loads(1, U, U, 0, U);
	build(&in, A, B, 40030, 5201, 1000, TCP_SYN, 0x28, 64, NULL, 0, 6);
	run(ifd, &in, &only_int);
	run(efd, &only_int, &a);		/* INT, then Ethereal */
	CHECK("eth+int: P set in the INT option (uplink 2, tag 3)",
	      a.len == only_int.len && tag_of(&a) == 3 && a.b[35] == 36, "len %u tag %d", a.len,
	      tag_of(&a));
	for (i = 0; i < a.len; i++)
		if (a.b[i] != only_int.b[i] && i != 37 && i != 24 && i != 25)
			diff++;
	CHECK_EQ("eth+int: nothing but P and the IP checksum changes", diff, 0);
	CHECK("eth+int: IP checksum valid", csum_ok(&a), "bad");
	run(efd, &in, &x);			/* Ethereal, then INT */
	run(ifd, &x, &b);
	CHECK("eth+int: the other order gives the same packet, bit for bit", same(&a, &b),
	      "len %u vs %u, tag %d", b.len, a.len, tag_of(&b));
	/* and the INT sink gives back the original */
	run(bpf_program__fd(is->progs.dc_int_hin), &b, &x);
	CHECK("eth+int: the INT sink restores the original packet", same(&x, &in), "len %u", x.len);
	/* a tag-only option reaching an INT sink is stripped */
	run(efd, &in, &x);
	run(bpf_program__fd(is->progs.dc_int_hin), &x, &b);
	CHECK("eth+int: an INT sink strips a tag-only option", same(&b, &in), "len %u", b.len);
}

static void test_passthrough(void)
{
	int fd = bpf_program__fd(hs->progs.dc_eth_hout);
	__u8 nops[8], bad[4] = { DC_INT_OPT_TYPE, 6, 0x20, 0x00 };
	struct pkt in, out;
	struct dc_eth_hcounters c0, c1;

	set_cfg(DC_ETH_MODE_ETHEREAL, 4, 60000, 0);
	memset(nops, 1, sizeof(nops));
	c0 = hcnt();
	build(&in, A, B, 40040, 5201, 100, TCP_SYN, 0, 64, nops, 8, 6);
	run(fd, &in, &out);
	c1 = hcnt();
	CHECK("eth host: foreign IP options: sent untagged, untouched", same(&in, &out), "changed");
	CHECK_EQ("eth host: … counted as no room", c1.tag_no_room - c0.tag_no_room, 1);
	build(&in, A, B, 40041, 5201, 100, TCP_SYN, 0, 64, bad, 4, 6);
	run(fd, &in, &out);
	CHECK("eth host: a malformed option of ours passes untouched", same(&in, &out), "changed");
	build(&in, A, B, 40042, 5201, 100, 0, 0, 64, NULL, 0, 17);
	run(fd, &in, &out);
	CHECK("eth host: UDP untouched", same(&in, &out), "changed");
	build(&in, A, B, 40043, 5201, 100, TCP_SYN, 0, 64, NULL, 0, 6);
	in.b[20] = 0x20; /* MF */
	run(fd, &in, &out);
	CHECK("eth host: fragments untouched", same(&in, &out), "changed");
	build(&in, A, B, 40044, 5201, 100, TCP_SYN, 0, 64, NULL, 0, 6);
	in.b[12] = 0x86;
	in.b[13] = 0xdd;
	run(fd, &in, &out);
	CHECK("eth host: IPv6 untouched", same(&in, &out), "changed");
	build(&in, A, B, 40045, 5201, 0, TCP_SYN, 0, 64, NULL, 0, 6);
	in.len = 14 + 20 + 8;
	run(fd, &in, &out);
	CHECK("eth host: truncated TCP header untouched", same(&in, &out), "changed");
}

static void test_idle(void)
{
	int fd = bpf_program__fd(hs->progs.dc_eth_hout);
	struct dc_eth_hcounters c0 = hcnt(), c1;
	struct dc_eth_hleaf v;
	struct dc_eth_flow f;
	struct pkt in, out;
	int i;

	set_cfg(DC_ETH_MODE_ETHEREAL, 4, 100, 0);
	set_loads(1, 0, 0, 0, 0);
	build(&in, A, B, 40050, 5201, 0, TCP_SYN, 0, 64, NULL, 0, 6);
	run(fd, &in, &out);
	v = view(1);
	CHECK_EQ("eth idle: a new flow adds its weight", v.up.load[0], U);
	/* packets keep it alive past its first 100 ms */
	for (i = 0; i < 3; i++) {
		usleep(60 * 1000);
		build(&in, A, B, 40050, 5201, 100, TCP_ACK, 0, 64, NULL, 0, 6);
		run(fd, &in, &out);
	}
	CHECK("eth idle: a flow with traffic stays", flow(A, B, 40050, 5201, &f), "released early");
	for (i = 0; i < 40 && flow(A, B, 40050, 5201, &f); i++)
		usleep(25 * 1000);
	v = view(1);
	c1 = hcnt();
	CHECK("eth idle: idle flow deleted after idle_ms", !flow(A, B, 40050, 5201, &f),
	      "still there after 1 s");
	CHECK_EQ("eth idle: its weight released", v.up.load[0], 0);
	CHECK_EQ("eth idle: released once, counted", c1.flows_idle - c0.flows_idle, 1);
	CHECK_EQ("eth idle: the deleted entry leaves the live gauge", c1.flows_live, c0.flows_live);
	/* a flow released by FIN is only deleted by the timer, not released again */
	build(&in, A, B, 40051, 5201, 0, TCP_SYN, 0, 64, NULL, 0, 6);
	run(fd, &in, &out);
	build(&in, A, B, 40051, 5201, 0, TCP_FIN | TCP_ACK, 0, 64, NULL, 0, 6);
	run(fd, &in, &out);
	c0 = hcnt();
	for (i = 0; i < 40 && flow(A, B, 40051, 5201, &f); i++)
		usleep(25 * 1000);
	c1 = hcnt();
	v = view(1);
	CHECK("eth idle: a FIN-released flow's entry goes at idle, weight not taken twice",
	      !flow(A, B, 40051, 5201, &f) && c1.flows_idle == c0.flows_idle && v.up.load[0] == 0,
	      "idle %llu load %llu", (unsigned long long)(c1.flows_idle - c0.flows_idle),
	      (unsigned long long)v.up.load[0]);
}

/*
 * A full flow table: a second host object with a 1024-entry dc_eth_flows.
 * New flows stop being tracked at the cap (below where the LRU would
 * evict), go untagged and unchanged, and are counted; no open flow is
 * evicted, so the view's loads stay the sum of the live flows' weights.
 */
static void test_cap(void)
{
	struct ethereal_bpf *main_hs = hs, *h2 = ethereal_bpf__open();
	__u32 max = 1024, ncpu = (__u32)libbpf_num_possible_cpus(), cap, i, tagged = 0, same_n = 0;
	struct dc_eth_hcounters c;
	struct dc_flow_key k, nk, *pk = NULL;
	struct dc_eth_flow f;
	struct dc_eth_hleaf v;
	struct pkt in, out;
	struct bpf_map *m;
	__u64 sum = 0;
	long entries = 0;

	cap = dc_eth_flows_cap(max, ncpu);
	CHECK("eth cap: max − (CPUs + 1) · 128 entries, at least half the table",
	      dc_eth_flows_cap(1024, 2) == 640 && dc_eth_flows_cap(65536, 2) == 65152 &&
	      dc_eth_flows_cap(1024, 8) == 512 && dc_eth_flows_cap(256, 4) == 128 &&
	      dc_eth_flows_cap(1, 1) == 1,
	      "%u %u %u %u", dc_eth_flows_cap(1024, 2), dc_eth_flows_cap(65536, 2),
	      dc_eth_flows_cap(1024, 8), dc_eth_flows_cap(256, 4));
	if (!h2) {
		CHECK("eth cap: second host object opens", false, "%s", strerror(errno));
		return;
	}
	bpf_object__for_each_map(m, h2->obj)
		bpf_map__set_pin_path(m, NULL);
	bpf_map__set_max_entries(h2->maps.dc_eth_flows, max);
	h2->rodata->dc_eth_flows_cap_entries = cap;
	if (ethereal_bpf__load(h2)) {
		CHECK("eth cap: second host object loads", false, "%s", strerror(errno));
		ethereal_bpf__destroy(h2);
		return;
	}
	hs = h2;
	{
		struct dc_eth_dst_key dk = { .prefixlen = 24 };
		struct dc_eth_dst d = { .leaf = 1 };

		inet_pton(AF_INET, "10.99.1.0", &dk.addr);
		bpf_map_update_elem(bpf_map__fd(hs->maps.dc_eth_dst), &dk, &d, BPF_ANY);
	}
	set_cfg(DC_ETH_MODE_ETHEREAL, 4, 60000, 0);
	set_loads(1, 0, 0, 0, 0);
	for (i = 0; i < cap + 50; i++) {
		build(&in, A, B, (__u16)(10000 + i), 5201, 0, TCP_SYN, 0, 64, NULL, 0, 6);
		if (run(bpf_program__fd(hs->progs.dc_eth_hout), &in, &out) != TC_NEXT)
			continue;
		if (i < cap)
			tagged += tag_of(&out) >= 1;
		else
			same_n += same(&in, &out);
	}
	c = hcnt();
	v = view(1);
	while (!bpf_map_get_next_key(bpf_map__fd(hs->maps.dc_eth_flows), pk, &nk)) {
		entries++;
		k = nk;
		pk = &k;
	}
	for (i = 0; i < 4; i++)
		sum += v.up.load[i];
	CHECK_EQ("eth cap: flows up to the cap are tagged", tagged, cap);
	CHECK_EQ("eth cap: past the cap, new flows leave untagged and unchanged", same_n, 50);
	CHECK("eth cap: live gauge at the cap, the rest counted",
	      c.flows_live == cap && c.flows_over_cap == 50 && c.flows_new == cap,
	      "live %llu over %llu new %llu (cap %u)", (unsigned long long)c.flows_live,
	      (unsigned long long)c.flows_over_cap, (unsigned long long)c.flows_new, cap);
	CHECK("eth cap: nothing evicted, the first flow still there",
	      entries == (long)cap && flow(A, B, 10000, 5201, &f), "%ld entries of cap %u", entries,
	      cap);
	CHECK("eth cap: loads are the live flows' weights, balanced",
	      sum == (__u64)cap * U && v.up.load[0] / U >= cap / 4 && v.up.load[0] / U <= cap / 4 + 1,
	      "sum %llu (want %llu), uplink 0 %llu", (unsigned long long)sum,
	      (unsigned long long)cap * U, (unsigned long long)v.up.load[0]);
	hs = main_hs;
	ethereal_bpf__destroy(h2);
}

/*
 * Random packets (valid TCP/IPv4 templates with bytes of the Ethernet,
 * IP header, options and TCP header overwritten at random) through the
 * host and the leaf programs: an output is either the input, or differs
 * only in the IP header (ihl, total length, TTL, checksum, our option)
 * with a valid checksum where the input's was valid, and the bytes from
 * the TCP header on are the input's.
 */
static __u64 rs = 0x853c49e6748fea9bULL;
static __u32 rnd32(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return (__u32)rs;
}

static void test_random(int fd, const char *what, __u32 ifindex)
{
	unsigned int n, bad = 0, changed = 0, err = 0;
	char first[160] = "";

	for (n = 0; n < 3000; n++) {
		struct pkt in, out;
		__u8 opts[40];
		__u32 optlen = (rnd32() % 3) * 4 * (1 + rnd32() % 3), i, ihl_in, ihl_out, m;
		bool csum_in;
		int rc;

		for (i = 0; i < optlen; i++)
			opts[i] = (__u8)rnd32();
		if (optlen && rnd32() % 2) {
			opts[0] = DC_INT_OPT_TYPE;
			opts[1] = (__u8)(rnd32() % 3 ? 4 * (rnd32() % 10) : rnd32());
		}
		build(&in, A, rnd32() % 4 ? B : "10.99.0.7", 42000 + n % 50, 5201, rnd32() % 1400,
		      (__u8)rnd32(), (__u8)rnd32(), (__u8)(rnd32() % 4), opts, optlen, rnd32() % 8 ? 6 : 17);
		for (m = rnd32() % 4; m; m--)
			in.b[rnd32() % (34 + optlen + 20)] = (__u8)rnd32();
		if (rnd32() % 10 == 0)
			in.len = 34 + rnd32() % (in.len - 34);
		csum_in = in.len >= 34 && (in.b[14] >> 4) == 4 && (in.b[14] & 0xf) >= 5 &&
			  in.len >= 14 + (in.b[14] & 0xf) * 4u && csum_ok(&in);
		rc = run_if(fd, &in, &out, ifindex);
		if (rc <= RUN_ERR) {
			err++;	/* test_run refused the frame before the program ran */
			continue;
		}
		if (same(&in, &out))
			continue;
		changed++;
		ihl_in = (in.b[14] & 0xf) * 4;
		ihl_out = (out.b[14] & 0xf) * 4;
		if ((csum_in && !csum_ok(&out)) || out.len - ihl_out != in.len - ihl_in ||
		    memcmp(out.b + 14 + ihl_out, in.b + 14 + ihl_in, in.len - 14 - ihl_in) ||
		    memcmp(out.b, in.b, 14) || memcmp(out.b + 26, in.b + 26, 8)) {
			if (!bad++)
				snprintf(first, sizeof(first), "packet %u: len %u → %u, ihl %u → %u, rc %d", n,
					 in.len, out.len, ihl_in, ihl_out, rc);
		}
	}
	CHECK("eth random: changed packets keep TCP, addresses and a valid checksum", !bad,
	      "%s: %u of %u changed packets wrong; first %s", what, bad, changed, first);
	printf("# %s: 3000 random packets, %u changed, %u refused by test_run\n", what, changed, err);
}

/* ---- leaf ----------------------------------------------------------------- */

static __u32 ifx(const char *n)
{
	return if_nametoindex(n);
}

static int leaf_net(void)
{
	static const char *cmds[] = {
		"ip link set lo up",
		"ip link add ethp0 type veth peer name ethp0x",
		"ip link add ethu0 type veth peer name ethu0x",
		"ip link add ethu1 type veth peer name ethu1x",
		"ip link add ethu2 type veth peer name ethu2x",
		"for d in ethp0 ethp0x ethu0 ethu0x ethu1 ethu1x ethu2 ethu2x; do ip link set $d up; done",
		"ip addr add 10.99.0.254/24 dev ethp0",
		"ip addr add 10.99.128.1/32 dev ethu0",
		"ip addr add 10.99.129.1/32 dev ethu1",
		"ip addr add 10.99.130.1/32 dev ethu2",
		"ip route add 10.99.128.254/32 dev ethu0",
		"ip route add 10.99.129.254/32 dev ethu1",
		"ip route add 10.99.130.254/32 dev ethu2",
		"ip route add 10.99.1.0/24 nexthop via 10.99.128.254 dev ethu0 nexthop via 10.99.129.254 dev ethu1 nexthop via 10.99.130.254 dev ethu2",
		"sysctl -qw net.ipv4.ip_forward=1",
	};
	unsigned int i;
	char cmd[512];

	if (unshare(CLONE_NEWNET)) {
		printf("FAIL: eth leaf: unshare(CLONE_NEWNET): %s\n", strerror(errno));
		return -1;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		snprintf(cmd, sizeof(cmd), "%s >/dev/null 2>&1", cmds[i]);
		if (system(cmd)) {
			printf("FAIL: eth leaf: setup '%s' failed\n", cmds[i]);
			return -1;
		}
	}
	return 0;
}

static void set_up(__u32 tag, const char *dev, const char *nh)
{
	struct dc_eth_uplink u = { .ifindex = ifx(dev) };

	inet_pton(AF_INET, nh, &u.nexthop);
	bpf_map_update_elem(bpf_map__fd(ls->maps.dc_eth_up), &tag, &u, BPF_ANY);
	bpf_map_update_elem(bpf_map__fd(ls->maps.dc_eth_upif), &u.ifindex, &tag, BPF_ANY);
}

/* A packet as the host sends it: tag-only option with P = tag. */
static void tagged(struct pkt *p, const char *dst, __u32 tag, __u8 ttl)
{
	__u8 opt[4] = { DC_INT_OPT_TYPE, 4, dc_int_b2(0), dc_int_b3(0, tag) };

	build(p, A, dst, 41000, 5201, 600, TCP_ACK, 0x48, ttl, opt, 4, 6);
}

static void test_leaf(void)
{
	int fd = bpf_program__fd(ls->progs.dc_eth_lin);
	__u32 port = ifx("ethp0");
	struct pkt in, plain, out;
	struct dc_eth_lcounters c0, c1;
	struct dc_eth_pathcnt p0, p1;
	int rc;

	set_up(1, "ethu0", "10.99.128.254");
	set_up(2, "ethu1", "10.99.129.254");
	set_up(3, "ethu2", "10.99.130.254");
	/* tagged → redirected, tag stripped, TTL − 1 */
	tagged(&in, B, 2, 64);
	build(&plain, A, B, 41000, 5201, 600, TCP_ACK, 0x48, 63, NULL, 0, 6);
	c0 = lcnt();
	p0 = pcnt(2);
	rc = run_if(fd, &in, &out, port);
	c1 = lcnt();
	p1 = pcnt(2);
	if (rc != TC_ACT_REDIRECT)
		printf("   leaf counters: untagged %llu unknown %llu down %llu local %llu ttl %llu fib %llu\n",
		       (unsigned long long)c1.untagged, (unsigned long long)c1.unknown_tag,
		       (unsigned long long)c1.uplink_down, (unsigned long long)c1.local_dst,
		       (unsigned long long)c1.ttl_expired, (unsigned long long)c1.fib_fail);
	CHECK_EQ("eth leaf: tagged packet is redirected (TC_ACT_REDIRECT)", rc, TC_ACT_REDIRECT);
	CHECK("eth leaf: tag stripped, TTL − 1, checksum valid, rest bit for bit",
	      same(&out, &plain) && csum_ok(&out), "len %u vs %u ttl %u", out.len, plain.len,
	      out.b[22]);
	CHECK("eth leaf: bytes and packets counted for tag 2",
	      p1.packets - p0.packets == 1 && p1.bytes - p0.bytes == plain.len - 14,
	      "packets %llu bytes %llu", (unsigned long long)(p1.packets - p0.packets),
	      (unsigned long long)(p1.bytes - p0.bytes));
	CHECK_EQ("eth leaf: steered counted", c1.steered - c0.steered, 1);
	/* the same with the tag in a full INT option: option stays */
	{
		__u8 opt[12] = { DC_INT_OPT_TYPE, 12, dc_int_b2(0), dc_int_b3(0, 3) };
		struct pkt want;

		build(&in, A, B, 41001, 5201, 600, TCP_ACK, 0, 64, opt, 12, 6);
		build(&want, A, B, 41001, 5201, 600, TCP_ACK, 0, 63, opt, 12, 6);
		p0 = pcnt(3);
		rc = run_if(fd, &in, &out, port);
		p1 = pcnt(3);
		CHECK("eth leaf: P in an INT option steers (tag 3), option kept, TTL − 1",
		      rc == TC_ACT_REDIRECT && same(&out, &want) && p1.packets - p0.packets == 1,
		      "rc %d len %u", rc, out.len);
	}
	/* untagged → normal routing, untouched */
	build(&in, A, B, 41002, 5201, 600, TCP_ACK, 0, 64, NULL, 0, 6);
	c0 = lcnt();
	rc = run_if(fd, &in, &out, port);
	c1 = lcnt();
	CHECK("eth leaf: untagged packet: normal routing, untouched",
	      rc == TC_NEXT && same(&in, &out) && c1.untagged - c0.untagged == 1, "rc %d", rc);
	/* unknown tag → normal routing, counted, tag stripped */
	tagged(&in, B, 9, 64);
	build(&plain, A, B, 41000, 5201, 600, TCP_ACK, 0x48, 64, NULL, 0, 6);
	c0 = lcnt();
	rc = run_if(fd, &in, &out, port);
	c1 = lcnt();
	CHECK("eth leaf: unknown tag: normal routing, tag stripped, counted",
	      rc == TC_NEXT && same(&out, &plain) && c1.unknown_tag - c0.unknown_tag == 1, "rc %d", rc);
	/* tagged but local destination → normal routing */
	tagged(&in, "10.99.0.7", 1, 64);
	c0 = lcnt();
	rc = run_if(fd, &in, &out, port);
	c1 = lcnt();
	CHECK("eth leaf: tagged packet to a local port: normal routing, counted",
	      rc == TC_NEXT && c1.local_dst - c0.local_dst == 1 && tag_of(&out) == -1, "rc %d", rc);
	/* TTL 1: the kernel answers */
	tagged(&in, B, 1, 1);
	c0 = lcnt();
	rc = run_if(fd, &in, &out, port);
	c1 = lcnt();
	CHECK("eth leaf: TTL 1 left to the kernel", rc == TC_NEXT && c1.ttl_expired - c0.ttl_expired == 1,
	      "rc %d", rc);
	/* malformed option of ours: untouched */
	{
		__u8 bad[4] = { DC_INT_OPT_TYPE, 6, 0x20, 0x01 };

		build(&in, A, B, 41003, 5201, 100, TCP_ACK, 0, 64, bad, 4, 6);
		rc = run_if(fd, &in, &out, port);
		CHECK("eth leaf: malformed option: normal routing, untouched",
		      rc == TC_NEXT && same(&in, &out), "rc %d", rc);
	}
	build(&in, A, B, 41004, 5201, 100, 0, 0, 64, NULL, 0, 17);
	rc = run_if(fd, &in, &out, port);
	CHECK("eth leaf: UDP untouched", rc == TC_NEXT && same(&in, &out), "rc %d", rc);
	tagged(&in, B, 2, 64);
	in.b[20] = 0x20; /* MF: a tagged fragment */
	rc = run_if(fd, &in, &out, port);
	CHECK("eth leaf: a fragment passes untouched, tag and all", rc == TC_NEXT && same(&in, &out),
	      "rc %d", rc);
	tagged(&in, B, 2, 64);
	in.b[12] = 0x86;
	in.b[13] = 0xdd;
	rc = run_if(fd, &in, &out, port);
	CHECK("eth leaf: IPv6 untouched", rc == TC_NEXT && same(&in, &out), "rc %d", rc);
	/* the tag's uplink goes down: normal routing, counted */
	if (system("ip link set ethu1 down")) {
		printf("FAIL: eth leaf: ip link set ethu1 down failed\n");
		check_failed = 1;
	}
	tagged(&in, B, 2, 64);
	c0 = lcnt();
	p0 = pcnt(2);
	rc = run_if(fd, &in, &out, port);
	c1 = lcnt();
	p1 = pcnt(2);
	CHECK("eth leaf: tag of a down uplink: normal routing, counted, not steered",
	      rc == TC_NEXT && c1.uplink_down - c0.uplink_down == 1 && p1.packets == p0.packets &&
		      same(&out, &plain),
	      "rc %d down %llu", rc, (unsigned long long)(c1.uplink_down - c0.uplink_down));
	tagged(&in, B, 1, 64);
	rc = run_if(fd, &in, &out, port);
	CHECK_EQ("eth leaf: the other uplinks still steer", rc, TC_ACT_REDIRECT);
}

int main(void)
{
	DC_TEST_NEED_ROOT("eth prog");
	hs = DC_SKEL_OPEN_LOAD(ethereal_bpf);
	if (!hs) {
		printf("FAIL: eth prog: host programs open and load (verifier): %s\n", strerror(errno));
		return 1;
	}
	printf("PASS: eth prog: host programs verify and load\n");
	ls = DC_SKEL_OPEN_LOAD(eth_leaf_bpf);
	if (!ls) {
		printf("FAIL: eth prog: leaf program open and load (verifier): %s\n", strerror(errno));
		return 1;
	}
	printf("PASS: eth prog: leaf program verifies and loads\n");
	is = DC_SKEL_OPEN_LOAD(int_bpf);
	if (!is) {
		printf("FAIL: eth prog: INT programs open and load: %s\n", strerror(errno));
		return 1;
	}
	{
		struct dc_eth_dst_key k = { .prefixlen = 24 };
		struct dc_eth_dst d = { .leaf = 1 };

		inet_pton(AF_INET, "10.99.1.0", &k.addr);
		bpf_map_update_elem(bpf_map__fd(hs->maps.dc_eth_dst), &k, &d, BPF_ANY);
	}
	test_assign();
	test_dscp_and_ecmp();
	test_subflows();
	test_spray();
	test_with_int();
	test_passthrough();
	test_idle();
	test_cap();
	set_cfg(DC_ETH_MODE_ETHEREAL, 4, 60000, 0);
	test_random(bpf_program__fd(hs->progs.dc_eth_hout), "host egress", 0);
	set_cfg(DC_ETH_MODE_SPRAY, 4, 60000, 0);
	test_random(bpf_program__fd(hs->progs.dc_eth_hout), "host egress, spray", 0);
	if (!leaf_net()) {
		test_leaf();
		test_random(bpf_program__fd(ls->progs.dc_eth_lin), "leaf ingress", ifx("ethp0"));
	} else {
		check_failed = 1;
	}
	int_bpf__destroy(is);
	eth_leaf_bpf__destroy(ls);
	ethereal_bpf__destroy(hs);
	return check_failed;
}
