/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What Ethereal's program fixtures share (tests/prog/test_ethereal_prog.c,
 * test_eth_leaf_prog.c): the loaded objects, packets built and run, the
 * programs' counters and maps, and random frames that must pass untouched.
 */
#ifndef DCBPF_TESTS_ETHFIX_H
#define DCBPF_TESTS_ETHFIX_H

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

static struct ethereal_bpf *hs;
static struct eth_leaf_bpf *ls;

/* Ethernet + IPv4 (tos, ttl, raw options) + TCP (flags) + payload. */
static inline void build(struct pkt *p, const char *src, const char *dst, __u16 sport, __u16 dport,
		  __u32 payload, __u8 flags, __u8 tos, __u8 ttl, const __u8 *ipopts, __u32 optlen,
		  __u8 proto)
{
	pkt_tcp4(p, &(struct pkt_tcp4){ .src = src, .dst = dst, .sport = sport, .dport = dport,
					.payload = payload, .flags = flags, .tos = tos, .ttl = ttl,
					.proto = proto, .ip_id = 0x3400, .ipopts = ipopts,
					.optlen = optlen, .fill_mul = 11, .fill_add = 5 });
}

static inline int run_if(int fd, const struct pkt *in, struct pkt *out, __u32 ifindex)
{
	struct __sk_buff ctx = { .ifindex = ifindex };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in->b, .data_size_in = in->len,
		    .data_out = out->b, .data_size_out = sizeof(out->b), .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx));
	int err = bpf_prog_test_run_opts(fd, &o);

	out->len = o.data_size_out;
	return err ? RUN_ERR + err : (int)o.retval;
}

static inline int run(int fd, const struct pkt *in, struct pkt *out)
{
	return run_if(fd, in, out, 0);
}

static inline int run_mark(int fd, const struct pkt *in, struct pkt *out, __u32 mark)
{
	struct __sk_buff ctx = { .mark = mark };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in->b, .data_size_in = in->len,
		    .data_out = out->b, .data_size_out = sizeof(out->b), .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx));
	int err = bpf_prog_test_run_opts(fd, &o);

	out->len = o.data_size_out;
	return err ? RUN_ERR + err : (int)o.retval;
}

static inline bool same(const struct pkt *a, const struct pkt *b)
{
	return a->len == b->len && !memcmp(a->b, b->b, a->len);
}

static inline bool csum_ok(const struct pkt *p)
{
	return dc_ip_csum(p->b + 14, (p->b[14] & 0xf) * 4) == 0;
}

/* P of the option that starts the IP options (−1: none of ours). */
static inline int tag_of(const struct pkt *p)
{
	if ((p->b[14] & 0xf) == 5 || p->b[34] != DC_INT_OPT_TYPE)
		return -1;
	return dc_int_path(p->b[37]);
}

/* The packet with a tag-only option removed, or as is. */
static inline bool equals_untagged(const struct pkt *tagged, const struct pkt *orig)
{
	__u32 ihl = (tagged->b[14] & 0xf) * 4;

	return ihl == 24 && tagged->len == orig->len + 4 && !memcmp(tagged->b, orig->b, 14) &&
	       tagged->b[15] == orig->b[15] && !memcmp(tagged->b + 18, orig->b + 18, 6) &&
	       !memcmp(tagged->b + 26, orig->b + 26, 8) &&
	       !memcmp(tagged->b + 38, orig->b + 34, orig->len - 34);
}

static inline struct dc_eth_hcounters hcnt(void)
{
	struct dc_eth_hcounters c = {};
	__u32 zero = 0;

	bpf_map_lookup_elem(bpf_map__fd(hs->maps.dc_eth_hstats), &zero, &c);
	return c;
}

static inline struct dc_eth_lcounters lcnt(void)
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

static inline struct dc_eth_pathcnt pcnt(__u32 tag)
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

static inline void set_cfg(__u32 mode, __u32 s, __u32 idle_ms, __u32 avoid_ms)
{
	struct dc_eth_hcfg c = { .mode = mode, .n_uplinks = s, .idle_ms = idle_ms,
				 .avoid_ms = avoid_ms };
	__u32 zero = 0;

	bpf_map_update_elem(bpf_map__fd(hs->maps.dc_eth_hcfg), &zero, &c, BPF_ANY);
}

static inline struct dc_eth_hleaf view(__u32 leaf)
{
	struct dc_eth_hleaf v = {};

	bpf_map_lookup_elem(bpf_map__fd(hs->maps.dc_eth_view), &leaf, &v);
	return v;
}

static inline void set_loads(__u32 leaf, __u64 a, __u64 b, __u64 c, __u64 d)
{
	struct dc_eth_hleaf v = {};

	v.up.load[0] = a;
	v.up.load[1] = b;
	v.up.load[2] = c;
	v.up.load[3] = d;
	bpf_map_update_elem(bpf_map__fd(hs->maps.dc_eth_view), &leaf, &v, BPF_ANY);
}

static inline bool flow(const char *src, const char *dst, __u16 sport, __u16 dport, struct dc_eth_flow *f)
{
	struct dc_flow_key k = { .family = DC_AF_INET, .sport = sport, .dport = dport };

	inet_pton(AF_INET, src, &k.saddr[0]);
	inet_pton(AF_INET, dst, &k.daddr[0]);
	memset(f, 0, sizeof(*f));
	return !bpf_map_lookup_elem(bpf_map__fd(hs->maps.dc_eth_flows), &k, f);
}

#define A "10.99.0.1"
#define B "10.99.1.1"

/*
 * Random packets (valid TCP/IPv4 templates with bytes of the Ethernet,
 * IP header, options and TCP header overwritten at random) through the
 * host and the leaf programs: an output is either the input, or differs
 * only in the IP header (ihl, total length, TTL, checksum, our option)
 * with a valid checksum where the input's was valid, and the bytes from
 * the TCP header on are the input's.
 */
static __u64 rs = 0x853c49e6748fea9bULL;
static inline __u32 rnd32(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return (__u32)rs;
}

static inline void test_random(int fd, const char *what, __u32 ifindex)
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

#endif
