/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The malformed-packet corpus (tests/prog/test_corpus.c): a seeded
 * generator, header helpers written independently of the programs, the
 * packet classes, and the model of what dcbpf's INT programs do to a
 * packet (insert, strip) that the corpus holds them to.
 */
#ifndef DCBPF_TESTS_CORPUS_H
#define DCBPF_TESTS_CORPUS_H

#include <arpa/inet.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/types.h>

#include "dcbpf/int.h"
#include "dcbpf/switch.h"

#define BUF 16384

/* The frame sizes test_run takes, probed at start-up (test_corpus.c). */
static __u32 skb_min_ip, skb_min_ip6, skb_min, skb_max, xdp_min, xdp_max;

/* ---- deterministic PRNG (splitmix64) -------------------------------------- */
static __u64 rng_state;

static inline __u64 rnd(void)
{
	__u64 z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline __u32 rn(__u32 n) { return n ? (__u32)(rnd() % n) : 0; }

static inline void rbytes(__u8 *p, __u32 n)
{
	while (n--)
		*p++ = (__u8)rnd();
}

/* ---- header helpers (written independently of the programs) --------------- */
static inline __u16 get16(const __u8 *p) { return (__u16)(p[0] << 8 | p[1]); }
static inline void put16(__u8 *p, __u32 v) { p[0] = (__u8)(v >> 8); p[1] = (__u8)v; }

/* Ones' complement sum of n bytes (n even), folded. */
static inline __u16 sum16(const __u8 *p, __u32 n)
{
	__u32 s = 0, i;

	for (i = 0; i + 1 < n; i += 2)
		s += get16(p + i);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (__u16)s;
}

static inline void ip_csum_set(__u8 *ip)
{
	__u32 ihl = (ip[0] & 0xf) * 4;

	put16(ip + 10, 0);
	put16(ip + 10, (__u16)~sum16(ip, ihl));
}

static inline bool ip_csum_valid(const __u8 *ip) { return sum16(ip, (ip[0] & 0xf) * 4) == 0xffff; }

struct pkt {
	__u8 b[BUF];
	__u32 len;
};

/*
 * Ethernet + IPv4 (options) + TCP (+ payload); tot_len and checksum
 * consistent; pay bytes of payload.  Returns the frame length.
 */
static inline __u32 mk_tcp4(struct pkt *p, __u32 saddr, __u32 daddr, __u16 sport, __u16 dport,
		     const __u8 *opts, __u32 optlen, __u32 pay, __u8 proto)
{
	__u8 *ip = p->b + 14, *th;
	__u32 ihl = 20 + optlen;

	memset(p->b, 0, 14 + ihl + 20 + pay);
	memcpy(p->b, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00", 14);
	ip[0] = (__u8)(0x40 | ihl / 4);
	ip[1] = (__u8)(rn(4) ? 0 : rnd()); /* sometimes DSCP/ECN bits */
	put16(ip + 2, ihl + 20 + pay);
	put16(ip + 4, (__u16)rnd());
	ip[6] = 0x40;
	ip[8] = 64;
	ip[9] = proto;
	memcpy(ip + 12, &saddr, 4);
	memcpy(ip + 16, &daddr, 4);
	if (optlen)
		memcpy(ip + 20, opts, optlen);
	th = ip + ihl;
	put16(th, sport);
	put16(th + 2, dport);
	put16(th + 4, (__u16)rnd());
	th[12] = 5 << 4;
	th[13] = pay ? 0x18 : 0x10;
	put16(th + 16, (__u16)rnd());
	rbytes(th + 20, pay);
	ip_csum_set(ip);
	p->len = 14 + ihl + 20 + pay;
	return p->len;
}

/* Addresses: INT destinations (4 and 2 slots), the switch's forwarded
 * destination, and a foreign one; flows among them so echoes happen. */
static __u32 A_SRC, A_DST4, A_DST2, A_FWD, A_OTHER;

static inline __u32 pick_addr(void)
{
	switch (rn(6)) {
	case 0: return A_SRC;
	case 1: return A_DST4;
	case 2: return A_DST2;
	case 3: return A_FWD;
	case 4: return A_OTHER;
	default: return (__u32)rnd();
	}
}

static inline __u16 pick_port(void)
{
	static const __u16 ports[] = { 5201, 40000, 40001, 80 };

	return rn(3) ? ports[rn(4)] : (__u16)rnd();
}

/* An INT option: mostly plausible, often subtly wrong. */
static inline __u32 mk_int_opt(__u8 *o, __u32 room)
{
	__u32 slots = 1 + rn(4), len = 4 + 8 * slots, hops;

	if (len > room)
		len = room;
	memset(o, 0, room);
	rbytes(o + 4, len > 4 ? len - 4 : 0);
	o[0] = DC_INT_OPT_TYPE;
	o[1] = (__u8)len;
	hops = rn(slots + 1);
	o[2] = dc_int_b2((__u8)(rn(3) ? 0 : (rn(2) ? DC_INT_FLAG_ECHO : DC_INT_FLAG_OVERFLOW)));
	o[3] = dc_int_b3(hops, rn(16));
	switch (rn(10)) {
	case 0: o[1] = (__u8)rnd(); break;			/* any length */
	case 1: o[1] = (__u8)(len + 1 + rn(8)); break;		/* not 4 + 8k */
	case 2: o[2] = (__u8)rnd(); break;			/* version, flags */
	case 3: o[3] = (__u8)rnd(); break;			/* pointer */
	case 4: o[1] = (__u8)(4 + 8 * (1 + rn(6))); break;	/* maybe past header */
	default: break;
	}
	return len;
}

/* IPv4 options area of optlen bytes (multiple of 4, ≤ 40): INT first or not. */
static inline void mk_opts(__u8 *o, __u32 optlen)
{
	__u32 n;

	rbytes(o, optlen);
	if (!optlen)
		return;
	switch (rn(4)) {
	case 0: /* pure garbage */
		break;
	case 1: /* NOPs and an end */
		memset(o, 1, optlen);
		o[optlen - 1] = 0;
		break;
	default: /* ours first, then whatever */
		n = mk_int_opt(o, optlen);
		(void)n;
		break;
	}
}

/* ---- the model ---------------------------------------------------------------- */

/* What the INT programs consider "TCP/IPv4, theirs to look at". */
struct tcp4 {
	bool ok;
	__u32 ihl, tot, doff, pay;
	__u32 saddr, daddr;
	__u16 sport, dport;
};

static inline struct tcp4 parse(const struct pkt *p)
{
	struct tcp4 t = { 0 };
	const __u8 *ip = p->b + 14, *th;

	if (p->len < 34 || get16(p->b + 12) != 0x0800)
		return t;
	if ((ip[0] >> 4) != 4 || (ip[0] & 0xf) < 5 || ip[9] != 6)
		return t;
	if (get16(ip + 6) & 0x3fff)
		return t;
	t.ihl = (ip[0] & 0xf) * 4;
	if (14 + t.ihl + 20 > p->len)
		return t;
	th = ip + t.ihl;
	t.doff = (th[12] >> 4) * 4;
	t.tot = get16(ip + 2);
	if (t.doff < 20 || t.tot < t.ihl + t.doff || t.tot > p->len - 14)
		return t;
	t.pay = t.tot - t.ihl - t.doff;
	memcpy(&t.saddr, ip + 12, 4);
	memcpy(&t.daddr, ip + 16, 4);
	t.sport = get16(th);
	t.dport = get16(th + 2);
	t.ok = true;
	return t;
}

/* Insert opt (len bytes) after the base IPv4 header, fix ihl, tot_len, csum. */
static inline void model_insert(const struct pkt *in, struct pkt *out, const __u8 *opt, __u32 len,
			 const struct tcp4 *t)
{
	__u8 *ip = out->b + 14;

	memcpy(out->b, in->b, 34);
	memcpy(out->b + 34, opt, len);
	memcpy(out->b + 34 + len, in->b + 34, in->len - 34);
	out->len = in->len + len;
	ip[0] = (__u8)(0x40 | (t->ihl + len) / 4);
	put16(ip + 2, t->tot + len);
	ip_csum_set(ip);
}

static inline void model_strip(const struct pkt *in, struct pkt *out, __u32 len, const struct tcp4 *t)
{
	__u8 *ip = out->b + 14;

	memcpy(out->b, in->b, 34);
	memcpy(out->b + 34, in->b + 34 + len, in->len - 34 - len);
	out->len = in->len - len;
	ip[0] = (__u8)(0x40 | (t->ihl - len) / 4);
	put16(ip + 2, t->tot - len);
	ip_csum_set(ip);
}

static inline struct dc_int_counters ctr(int fd)
{
	struct dc_int_counters c = { 0 };
	__u32 zero = 0;

	bpf_map_lookup_elem(fd, &zero, &c);
	return c;
}

#define NCTR (sizeof(struct dc_int_counters) / sizeof(__u64))
static const char *const ctr_names[NCTR] = {
	"src_added", "src_gso", "src_no_room", "src_fail", "sink_stripped", "echo_added",
	"echo_no_room", "echo_rx", "bad_stripped", "bad_passed", "transit_filled",
	"transit_overflow", "transit_echo", "strip_fail", "tag_stripped", "transit_tag",
	"src_tag_grown",
};
#define CI(field) (offsetof(struct dc_int_counters, field) / sizeof(__u64))

/* ---- the classes ------------------------------------------------------------------- */

static inline void gen_random(struct pkt *p, __u32 i)
{
	p->len = 14 + rn(1500);
	rbytes(p->b, p->len);
	if (i % 2) { /* half look like IPv4 to get past the first checks */
		put16(p->b + 12, 0x0800);
		if (p->len > 14)
			p->b[14] = (__u8)(0x40 | (p->b[14] & 0xf));
		if (i % 4 == 1 && p->len > 23)
			p->b[23] = 6;
	}
}

/* A few well-formed packets of dcbpf's traffic, to cut and to vary. */
static inline void mk_base(struct pkt *p, __u32 kind)
{
	__u8 o[40];
	__u32 n;

	switch (kind % 7) {
	case 0: /* data segment to an INT destination: the source adds */
		mk_tcp4(p, A_SRC, A_DST4, 40000, 5201, NULL, 0, 100 + rn(200), 6);
		break;
	case 6: /* the same to a destination configured with two slots */
		mk_tcp4(p, A_SRC, A_DST2, 40002, 5201, NULL, 0, 1 + rn(300), 6);
		break;
	case 1: /* data with a fresh option: transit fills, sink strips */
		memset(o, 0, sizeof(o));
		o[0] = DC_INT_OPT_TYPE;
		o[1] = 36;
		o[2] = dc_int_b2(0);
		o[3] = dc_int_b3(rn(5), rn(16));
		rbytes(o + 4, 32);
		mk_tcp4(p, A_SRC, A_DST4, 40000, 5201, o, 36, 50 + rn(200), 6);
		break;
	case 2: /* an echo on a pure ACK */
		memset(o, 0, sizeof(o));
		n = 1 + rn(4);
		o[0] = DC_INT_OPT_TYPE;
		o[1] = (__u8)(4 + 8 * n);
		o[2] = dc_int_b2(DC_INT_FLAG_ECHO);
		o[3] = dc_int_b3(n, 0);
		rbytes(o + 4, 8 * n);
		mk_tcp4(p, A_DST4, A_SRC, 5201, 40000, o, 4 + 8 * n, 0, 6);
		break;
	case 3: /* a pure ACK from the receiver: echo candidate */
		mk_tcp4(p, A_DST4, A_SRC, 5201, 40000, NULL, 0, 0, 6);
		break;
	case 4: /* forwarded by the switch, ECT */
		mk_tcp4(p, A_SRC, A_FWD, 40001, 80, NULL, 0, 200 + rn(800), 6);
		p->b[15] = (__u8)(rn(4));
		ip_csum_set(p->b + 14);
		break;
	case 5: /* full option with two slots and an overflow already set */
		memset(o, 0, sizeof(o));
		o[0] = DC_INT_OPT_TYPE;
		o[1] = 20;
		o[2] = dc_int_b2(DC_INT_FLAG_OVERFLOW);
		o[3] = dc_int_b3(2, 3);
		mk_tcp4(p, A_SRC, A_DST2, 40000, 5201, o, 20, 64, 6);
		break;
	}
}

static inline void gen_valid(struct pkt *p, __u32 i)
{
	mk_base(p, i);
}

static inline void gen_ipopts(struct pkt *p, __u32 i)
{
	__u8 o[40];
	__u32 optlen = 4 * (1 + rn(10));
	__u8 proto = rn(8) ? 6 : (__u8)(rn(2) ? 17 : rnd());

	mk_opts(o, optlen);
	mk_tcp4(p, pick_addr(), pick_addr(), pick_port(), pick_port(), o, optlen, rn(4) ? rn(600) : 0,
		proto);
	if (!(i % 10)) /* a wrong header checksum */
		p->b[25] ^= (__u8)(1 + rn(255));
	if (!(i % 13)) /* tot_len beyond the frame, or shorter than the headers */
		put16(p->b + 16, rn(2) ? (__u32)(p->len - 14 + 1 + rn(100)) : rn(40));
	if (!(i % 17)) /* TCP data offset garbage */
		p->b[14 + 20 + optlen + 12] = (__u8)rnd();
}

static inline void gen_frag(struct pkt *p, __u32 i)
{
	__u8 o[40];
	__u32 optlen = rn(2) ? 0 : 36;

	if (optlen) {
		mk_int_opt(o, 36);
		o[1] = 36;
		o[2] = dc_int_b2(0);
		o[3] = dc_int_b3(rn(4), 0);
	}
	mk_tcp4(p, A_SRC, rn(2) ? A_DST4 : A_FWD, 40000, 5201, o, optlen, 8 + rn(400), 6);
	switch (i % 3) {
	case 0: put16(p->b + 20, 0x2000); break;			/* MF */
	case 1: put16(p->b + 20, 1 + rn(0x1fff)); break;		/* offset */
	default: put16(p->b + 20, 0x2000 | (1 + rn(0x1fff))); break;	/* both */
	}
	ip_csum_set(p->b + 14);
}

static inline void gen_ipv6(struct pkt *p, __u32 i)
{
	__u8 *ip6 = p->b + 14;
	__u32 pay = 20 + rn(400);

	memset(p->b, 0, 14 + 40 + pay);
	put16(p->b + 12, 0x86dd);
	ip6[0] = (__u8)(0x60 | rn(16));
	ip6[1] = (__u8)rnd();
	put16(ip6 + 4, pay);
	ip6[6] = i % 3 ? 6 : (__u8)rnd();
	ip6[7] = 64;
	rbytes(ip6 + 8, 32);
	if (i % 4 == 0) { /* ::ffff:10.9.1.2, the forwarded IPv4 destination */
		memset(ip6 + 24, 0, 16);
		ip6[34] = ip6[35] = 0xff;
		memcpy(ip6 + 36, &A_FWD, 4);
	}
	rbytes(ip6 + 40, pay);
	if (i % 2) { /* what would be an INT option in IPv4 */
		ip6[40 + 0] = DC_INT_OPT_TYPE;
		ip6[40 + 1] = 36;
		ip6[40 + 2] = dc_int_b2(0);
	}
	p->len = 14 + 40 + pay;
}

static inline void gen_vlan(struct pkt *p, __u32 i)
{
	struct pkt in;
	__u8 o[40];

	if (i % 2) {
		mk_int_opt(o, 36);
		o[1] = 36;
		o[2] = dc_int_b2(0);
		o[3] = dc_int_b3(0, 0);
		mk_tcp4(&in, A_SRC, A_DST4, 40000, 5201, o, 36, rn(300), 6);
	} else {
		mk_tcp4(&in, A_SRC, rn(2) ? A_DST4 : A_FWD, 40000, 5201, NULL, 0, 1 + rn(300), 6);
	}
	memcpy(p->b, in.b, 12);
	put16(p->b + 12, i % 3 ? 0x8100 : 0x88a8);
	put16(p->b + 14, rn(4096));
	if (i % 3 == 0) { /* QinQ */
		put16(p->b + 16, 0x8100);
		put16(p->b + 18, rn(4096));
		memcpy(p->b + 20, in.b + 12, in.len - 12);
		p->len = in.len + 8;
	} else {
		memcpy(p->b + 16, in.b + 12, in.len - 12);
		p->len = in.len + 4;
	}
}

static inline void gen_arp(struct pkt *p, __u32 i)
{
	p->len = 14 + 28 + (i % 2 ? 18 : rn(40));
	rbytes(p->b, p->len);
	put16(p->b + 12, i % 5 ? 0x0806 : 0x8035);
	put16(p->b + 14, 1);
	put16(p->b + 16, 0x0800);
	p->b[18] = 6;
	p->b[19] = 4;
	put16(p->b + 20, 1 + rn(2));
}

static inline void gen_tiny(struct pkt *p, __u32 i)
{
	static const __u16 types[] = { 0x0800, 0x86dd, 0x0806, 0x8100, 0x0000, 0xffff };

	p->len = i % 34;
	rbytes(p->b, 64);
	if (p->len >= 14)
		put16(p->b + 12, types[(i / 34) % 6]);
	if (p->len > 14)
		p->b[14] = 0x45;
}

/* Every cut of every well-formed base packet (TRUNC_BASES of them). */
#define TRUNC_BASES 28
static struct pkt trunc_base;
static __u32 trunc_cut, trunc_k;
static bool gen_done;

static inline void gen_trunc(struct pkt *p, __u32 i)
{
	if (!i) {
		trunc_k = 0;
		mk_base(&trunc_base, trunc_k);
		trunc_cut = 0;
	} else if (trunc_cut > trunc_base.len) {
		mk_base(&trunc_base, ++trunc_k);
		trunc_cut = 0;
	}
	*p = trunc_base;
	p->len = trunc_cut++;
	if (trunc_k == TRUNC_BASES - 1 && trunc_cut > trunc_base.len)
		gen_done = true;
}

static inline void gen_jumbo(struct pkt *p, __u32 i)
{
	__u8 o[40];
	__u32 top = (skb_max > xdp_max ? skb_max : xdp_max) + 64, len;

	if (top > BUF - 64)
		top = BUF - 64;
	/* half around the skb limit (refusals either side), half up to the top */
	len = i % 4 < 2 ? skb_max - 200 + rn(400) : 1500 + rn(top - 1500);

	if (i % 2) {
		mk_int_opt(o, 36);
		o[1] = 36;
		o[2] = dc_int_b2(i % 4 == 1 ? DC_INT_FLAG_ECHO : 0);
		o[3] = dc_int_b3(rn(5), 0);
		mk_tcp4(p, A_SRC, A_DST4, 40000, 5201, o, 36, len - 14 - 56 - 20, 6);
	} else {
		mk_tcp4(p, A_SRC, rn(2) ? A_DST4 : A_FWD, 40000, 5201, NULL, 0, len - 14 - 40, 6);
	}
	if (i % 8 == 0) /* frame longer than the IP packet (padding) */
		put16(p->b + 16, get16(p->b + 16) - rn(64));
	ip_csum_set(p->b + 14);
}

#endif
