// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Packet corpus through every TC/XDP program (BPF_PROG_TEST_RUN): the
 * host INT programs (dc_int_hout, dc_int_hin), the switch's transit hop
 * (dc_int_xmit) and the switch's XDP admission (dc_sw_admit), with
 * private maps, on > 10 000 deterministic packets (seeded PRNG; override
 * with DCBPF_CORPUS_SEED).
 *
 * Every packet goes through every program.  The expected output is
 * computed here from the rules of docs/int.md and docs/admission.md:
 *
 *   - anything that is not TCP/IPv4 (or is a fragment, truncated, ...)
 *     comes out bit for bit as it went in;
 *   - TCP/IPv4 with an INT option (well-formed or not) comes out either
 *     unchanged or with exactly the documented transformation, and a
 *     valid IPv4 header checksum when the header changed;
 *   - the INT counters move by exactly the documented fields, per packet;
 *   - XDP admission (configured so that it never drops) passes every
 *     frame and changes at most the ECN bits of an ECT IPv4 packet, with
 *     the header checksum updated incrementally; its counters account
 *     for every frame once.
 *
 * test_run refuses some frames before any program runs: shorter than
 * Ethernet (all), shorter than Ethernet + IPv4 with the IPv4 ethertype
 * (skb), or longer than a page minus head- and tailroom.  Those limits
 * are measured at start-up; a refusal anywhere else is a failure, and
 * refusals are counted per class.  One PASS/FAIL line per class and
 * program.  Needs root.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "skelfix.h"
#include "check.h"
#include "swfixture.h"
#include "dcbpf/int.h"
#include "dcbpf/switch.h"
#include "int.skel.h"
#include "int_transit.skel.h"

#define BUF 16384
#define XDP_PORT_Q 10000	/* backlog of the egress port: above ECN K */

static struct int_bpf *skel;
static struct int_transit_bpf *xskel;
static struct swfix f;
static int fd_hout, fd_hin, fd_xmit, fd_sink, fd_stats, fd_xstats;

/* ---- deterministic PRNG (splitmix64) -------------------------------------- */
static __u64 rng_state;

static __u64 rnd(void)
{
	__u64 z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static __u32 rn(__u32 n) { return n ? (__u32)(rnd() % n) : 0; }

static void rbytes(__u8 *p, __u32 n)
{
	while (n--)
		*p++ = (__u8)rnd();
}

/* ---- header helpers (written independently of the programs) --------------- */
static __u16 get16(const __u8 *p) { return (__u16)(p[0] << 8 | p[1]); }
static void put16(__u8 *p, __u32 v) { p[0] = (__u8)(v >> 8); p[1] = (__u8)v; }

/* Ones' complement sum of n bytes (n even), folded. */
static __u16 sum16(const __u8 *p, __u32 n)
{
	__u32 s = 0, i;

	for (i = 0; i + 1 < n; i += 2)
		s += get16(p + i);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (__u16)s;
}

static void ip_csum_set(__u8 *ip)
{
	__u32 ihl = (ip[0] & 0xf) * 4;

	put16(ip + 10, 0);
	put16(ip + 10, (__u16)~sum16(ip, ihl));
}

static bool ip_csum_valid(const __u8 *ip) { return sum16(ip, (ip[0] & 0xf) * 4) == 0xffff; }

struct pkt {
	__u8 b[BUF];
	__u32 len;
};

/*
 * Ethernet + IPv4 (options) + TCP (+ payload); tot_len and checksum
 * consistent; pay bytes of payload.  Returns the frame length.
 */
static __u32 mk_tcp4(struct pkt *p, __u32 saddr, __u32 daddr, __u16 sport, __u16 dport,
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

static __u32 pick_addr(void)
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

static __u16 pick_port(void)
{
	static const __u16 ports[] = { 5201, 40000, 40001, 80 };

	return rn(3) ? ports[rn(4)] : (__u16)rnd();
}

/* An INT option: mostly plausible, often subtly wrong. */
static __u32 mk_int_opt(__u8 *o, __u32 room)
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
static void mk_opts(__u8 *o, __u32 optlen)
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

static struct tcp4 parse(const struct pkt *p)
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
static void model_insert(const struct pkt *in, struct pkt *out, const __u8 *opt, __u32 len,
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

static void model_strip(const struct pkt *in, struct pkt *out, __u32 len, const struct tcp4 *t)
{
	__u8 *ip = out->b + 14;

	memcpy(out->b, in->b, 34);
	memcpy(out->b + 34, in->b + 34 + len, in->len - 34 - len);
	out->len = in->len - len;
	ip[0] = (__u8)(0x40 | (t->ihl - len) / 4);
	put16(ip + 2, t->tot - len);
	ip_csum_set(ip);
}

static struct dc_int_counters ctr(int fd)
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

/* ---- per-class bookkeeping ------------------------------------------------------ */
enum { P_HOUT, P_HIN, P_XMIT, P_XDP, NPROG };
static const char *const prog_name[NPROG] = { "dc_int_hout", "dc_int_hin", "dc_int_xmit",
					       "dc_sw_admit" };

struct cls {
	const char *name;
	__u32 pkts;
	__u32 refused[NPROG];
	__u32 same[NPROG], changed[NPROG];
	__u32 bad[NPROG];
	char why[NPROG][200];
};

static struct cls *cur;

static void fail(int prog, const struct pkt *in, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail(int prog, const struct pkt *in, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (cur->bad[prog]++)
		return;
	va_start(ap, fmt);
	n = vsnprintf(cur->why[prog], sizeof(cur->why[prog]), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(cur->why[prog]))
		snprintf(cur->why[prog] + n, sizeof(cur->why[prog]) - (size_t)n,
			 " (packet #%u, %u bytes)", cur->pkts, in->len);
	if (getenv("DCBPF_DEBUG")) {
		__u32 i;

		fprintf(stderr, "%s %s: %s\n  ", cur->name, prog_name[prog], cur->why[prog]);
		for (i = 0; i < in->len && i < 96; i++)
			fprintf(stderr, "%02x%s", in->b[i], i % 32 == 31 ? "\n  " : " ");
		fprintf(stderr, "\n");
	}
}

/* Limits of test_run measured at start-up (see the header comment). */
static __u32 skb_min_ip, skb_min_ip6, skb_min, skb_max, xdp_min, xdp_max;

static bool refusal_documented(int prog, const struct pkt *p)
{
	if (prog == P_XDP)
		return p->len < xdp_min || p->len > xdp_max;
	if (p->len < skb_min || p->len > skb_max)
		return true;
	return (get16(p->b + 12) == 0x0800 && p->len < skb_min_ip) ||
	       (get16(p->b + 12) == 0x86dd && p->len < skb_min_ip6);
}

static int skb_run(int fd, const struct pkt *in, struct pkt *out)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in->b, .data_size_in = in->len,
		    .data_out = out->b, .data_size_out = sizeof(out->b));
	int err = bpf_prog_test_run_opts(fd, &o);

	out->len = o.data_size_out;
	if (err)
		return -errno;
	return (int)o.retval;
}

static int xdp_run(const struct pkt *in, struct pkt *out)
{
	struct xdp_md ctx = { .data_end = in->len, .ingress_ifindex = f.if_in };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in->b, .data_size_in = in->len,
		    .data_out = out->b, .data_size_out = sizeof(out->b), .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx));
	int err = bpf_prog_test_run_opts(f.prog, &o);

	out->len = o.data_size_out;
	if (err)
		return -errno;
	return (int)o.retval;
}

static bool same(const struct pkt *a, const struct pkt *b)
{
	return a->len == b->len && !memcmp(a->b, b->b, a->len);
}

/* Counter deltas must equal exp (field by field). */
static void check_ctr(int prog, const struct pkt *in, const struct dc_int_counters *c0,
		      const struct dc_int_counters *c1, const __u64 *exp)
{
	const __u64 *a = (const __u64 *)c0, *b = (const __u64 *)c1;
	unsigned int i;

	for (i = 0; i < NCTR; i++)
		if (b[i] - a[i] != exp[i]) {
			fail(prog, in, "counter %s moved by %llu, expected %llu", ctr_names[i],
			     (unsigned long long)(b[i] - a[i]), (unsigned long long)exp[i]);
			return;
		}
}

static void note(int prog, const struct pkt *in, const struct pkt *out)
{
	if (same(in, out))
		cur->same[prog]++;
	else
		cur->changed[prog]++;
}

static __u64 now_ns(void);

/* Runs the tc program P (FD) on IN: false when the run was refused
 * (counted when the size limits explain it, a failure otherwise); else the
 * counters of STATS_FD after it in *AFTER, TC_ACT_OK checked, OUT noted.
 * T_RUN (if not NULL): the clock read right after the run. */
static bool skb_run_ok(int p, int fd, const struct pkt *in, struct pkt *out, int stats_fd,
		       struct dc_int_counters *after, __u64 *t_run)
{
	int rc = skb_run(fd, in, out);

	if (t_run)
		*t_run = now_ns();

	if (rc < 0) {
		if (refusal_documented(p, in))
			cur->refused[p]++;
		else
			fail(p, in, "test_run error %d", rc);
		return false;
	}
	*after = ctr(stats_fd);
	if (rc != 0)
		fail(p, in, "verdict %d, expected TC_ACT_OK", rc);
	note(p, in, out);
	return true;
}

static int tag_room(const struct pkt *in, const struct tcp4 *t, __u32 len);
/* Replace a tag-only option by opt (len bytes), P kept from the tag. */
static void model_grow(const struct pkt *in, struct pkt *out, __u8 *opt, __u32 len,
		       const struct tcp4 *t)
{
	struct pkt tmp;
	struct tcp4 t2 = *t;

	opt[3] = (__u8)((opt[3] & 0xf0) | (in->b[37] & 0xf));
	model_strip(in, &tmp, 4, t);
	t2.ihl -= 4;
	t2.tot -= 4;
	model_insert(&tmp, out, opt, len, &t2);
}

/* dc_int_hout: source, echo, or untouched. */
static void do_hout(const struct pkt *in)
{
	struct tcp4 t = parse(in);
	struct dc_int_counters c0 = ctr(fd_stats), c1;
	__u64 exp[NCTR] = { 0 };
	struct pkt out, want;
	__u8 opt[DC_INT_MAX_OPT_LEN];
	struct dc_int_sink_rec rec;
	bool echo = false;
	__u32 slots = 0;

	if (t.ok && t.pay && (t.daddr == A_DST4 || t.daddr == A_DST2)) {
		slots = t.daddr == A_DST4 ? 4 : 2;
	} else if (t.ok) {
		struct dc_flow_key k = { .family = 2, .sport = t.dport, .dport = t.sport };

		k.saddr[0] = t.daddr;
		k.daddr[0] = t.saddr;
		echo = !bpf_map_lookup_elem(fd_sink, &k, &rec) && rec.hops;
	}
	if (!skb_run_ok(P_HOUT, fd_hout, in, &out, fd_stats, &c1, NULL))
		return;
	want = *in;
	if (slots && t.ihl != 20 && !tag_room(in, &t, 4 + 8 * slots)) {
		exp[CI(src_no_room)] = 1;
	} else if (slots) {
		__u32 len = 4 + 8 * slots;

		memset(opt, 0, sizeof(opt));
		opt[0] = DC_INT_OPT_TYPE;
		opt[1] = (__u8)len;
		opt[2] = 1 << 5;
		if (t.ihl != 20) {
			model_grow(in, &want, opt, len, &t);
			exp[CI(src_tag_grown)] = 1;
		} else {
			model_insert(in, &want, opt, len, &t);
		}
		exp[CI(src_added)] = 1;
		if (c1.src_fail != c0.src_fail) { /* the kernel may refuse to grow */
			want = *in;
			exp[CI(src_added)] = 0;
			exp[CI(src_tag_grown)] = 0;
			exp[CI(src_fail)] = 1;
		}
	} else if (echo && t.ihl != 20 && !tag_room(in, &t, 4 + 8 * (rec.hops > 4 ? 4 : rec.hops))) {
		exp[CI(echo_no_room)] = 1;
	} else if (echo) {
		__u32 h = rec.hops > 4 ? 4 : rec.hops, i, len = 4 + 8 * h;

		memset(opt, 0, sizeof(opt));
		opt[0] = DC_INT_OPT_TYPE;
		opt[1] = (__u8)len;
		opt[2] = (__u8)(1 << 5 | DC_INT_FLAG_ECHO | (rec.flags & DC_INT_FLAG_OVERFLOW));
		/* P: the ACK's own tag (none unless a tag-only option is there) */
		opt[3] = (__u8)(h << 4);
		for (i = 0; i < h; i++)
			dc_int_store_be64(opt + 4 + 8 * i, rec.hop_word[i]);
		if (t.ihl != 20)
			model_grow(in, &want, opt, len, &t);
		else
			model_insert(in, &want, opt, len, &t);
		exp[CI(echo_added)] = 1;
		if (c1.src_fail != c0.src_fail) {
			want = *in;
			exp[CI(echo_added)] = 0;
			exp[CI(src_fail)] = 1;
		}
	}
	if (!same(&out, &want))
		fail(P_HOUT, in, "output differs from the %s rule (len %u, expected %u)",
		     slots ? "source" : echo ? "echo" : "untouched", out.len, want.len);
	else if (!same(&out, in) && !ip_csum_valid(out.b + 14))
		fail(P_HOUT, in, "changed header with a bad checksum");
	check_ctr(P_HOUT, in, &c0, &c1, exp);
}

/* The option verdict, by the table of docs/int.md (V_TAG: the 4-byte
 * tag-only form of docs/ethereal.md). */
enum verdict { V_NONE, V_BADLEN, V_BAD, V_OK, V_TAG };

static enum verdict classify(const struct pkt *in, const struct tcp4 *t)
{
	const __u8 *o = in->b + 34;
	__u32 opts = t->ihl - 20, len;

	if (opts < 2 || o[0] != DC_INT_OPT_TYPE)
		return V_NONE;
	len = o[1];
	if (len == 4 && opts >= 4)
		return (o[2] >> 5) != 1 || (o[3] >> 4) || (o[2] & 0x18) ? V_BAD : V_TAG;
	if (len < 12 || len > 36 || (len - 4) % 8 || len > opts)
		return V_BADLEN;
	if ((o[2] >> 5) != 1 || (o[3] >> 4) > (len - 4) / 8)
		return V_BAD;
	return V_OK;
}

/* A tag-only option first, and the full option of len fits in its place. */
static int tag_room(const struct pkt *in, const struct tcp4 *t, __u32 len)
{
	return classify(in, t) == V_TAG && t->ihl + len - 4 <= 60;
}

/* dc_int_hin: strip ours (kept, published or discarded), else untouched. */
static void do_hin(const struct pkt *in)
{
	struct tcp4 t = parse(in);
	struct dc_int_counters c0 = ctr(fd_stats), c1;
	__u64 exp[NCTR] = { 0 };
	enum verdict v = V_NONE;
	struct pkt out, want;

	if (t.ok && t.ihl > 20)
		v = classify(in, &t);
	if (!skb_run_ok(P_HIN, fd_hin, in, &out, fd_stats, &c1, NULL))
		return;
	want = *in;
	if (v == V_BADLEN) {
		exp[CI(bad_passed)] = 1;
	} else if (v != V_NONE) {
		if (v == V_BAD)
			exp[CI(bad_stripped)] = 1;
		if (c1.strip_fail != c0.strip_fail) {
			exp[CI(strip_fail)] = 1;
		} else {
			model_strip(in, &want, in->b[35], &t);
			if (v == V_TAG)
				exp[CI(tag_stripped)] = 1;
			else if (v == V_OK)
				exp[(in->b[36] & DC_INT_FLAG_ECHO) ? CI(echo_rx) : CI(sink_stripped)] = 1;
		}
	}
	if (!same(&out, &want))
		fail(P_HIN, in, "output differs from the %s rule (len %u, expected %u)",
		     v == V_NONE ? "untouched" : v == V_BADLEN ? "bad length" : "strip", out.len,
		     want.len);
	else if (!same(&out, in) && !ip_csum_valid(out.b + 14))
		fail(P_HIN, in, "changed header with a bad checksum");
	check_ctr(P_HIN, in, &c0, &c1, exp);
}

/* The port record the transit hop reads (ifindex 1: test_run's loopback). */
static const struct dc_sw_port XPORT = { .rate_mbps = 25000, .qlen_bytes = 123456,
					 .tx_bytes = 987654321, .port_id = 2, .ifindex = 1 };

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* dc_int_xmit: fill the next slot, set overflow once, or leave it. */
static void do_xmit(const struct pkt *in)
{
	struct tcp4 t = parse(in);
	struct dc_int_counters c0 = ctr(fd_xstats), c1;
	__u64 exp[NCTR] = { 0 }, t0, t1;
	enum verdict v = V_NONE;
	struct pkt out, want;

	if (t.ok && t.ihl > 20)
		v = classify(in, &t);
	t0 = now_ns();
	if (!skb_run_ok(P_XMIT, fd_xmit, in, &out, fd_xstats, &c1, &t1))
		return;
	want = *in;
	if (v == V_BADLEN || v == V_BAD) {
		exp[CI(bad_passed)] = 1;
	} else if (v == V_TAG) {
		exp[CI(transit_tag)] = 1;
	} else if (v == V_OK && (in->b[36] & DC_INT_FLAG_ECHO)) {
		exp[CI(transit_echo)] = 1;
	} else if (v == V_OK) {
		__u32 hops = in->b[37] >> 4, slots = (in->b[35] - 4u) / 8;

		if (hops >= slots) {
			if (!(in->b[36] & DC_INT_FLAG_OVERFLOW)) {
				want.b[36] |= DC_INT_FLAG_OVERFLOW;
				exp[CI(transit_overflow)] = 1;
			}
		} else if (out.len == in->len) {
			/* The hop word: rate, qlen, tx from the port record; ts from
			 * the clock between t0 and t1 (256 ns units, 20 bits). */
			struct dc_int_hop_in h = { .rate_mbps = XPORT.rate_mbps,
						   .qlen_bytes = XPORT.qlen_bytes,
						   .tx_bytes = XPORT.tx_bytes };
			__u64 w = dc_int_load_be64(out.b + 38 + 8 * hops), mask = (1ULL << 20) - 1;
			__u64 ts = (w >> 22) & mask, lo = (t0 / 256) & mask;

			if (((ts - lo) & mask) > (t1 - t0) / 256 + 1)
				fail(P_XMIT, in, "hop ts %llu outside the run's clock window",
				     (unsigned long long)ts);
			h.ts_ns = ts * 256;
			dc_int_store_be64(want.b + 38 + 8 * hops, dc_int_hop_encode(&h));
			want.b[37] = (__u8)((hops + 1) << 4 | (in->b[37] & 0xf));
			exp[CI(transit_filled)] = 1;
		}
	}
	if (!same(&want, in) && out.len == in->len) {
		/* incremental update: the header's ones' complement sum is kept,
		 * so a valid checksum stays valid and a wrong one stays as wrong */
		__u16 si = sum16(in->b + 14, t.ihl), so = sum16(out.b + 14, t.ihl);

		if (si == 0xffff ? so != 0xffff : so != si)
			fail(P_XMIT, in, "checksum not updated incrementally (sum %#x → %#x)", si, so);
		put16(want.b + 24, get16(out.b + 24));
	}
	if (!same(&out, &want))
		fail(P_XMIT, in, "output differs from the %s rule",
		     v == V_OK ? "transit" : "untouched");
	check_ctr(P_XMIT, in, &c0, &c1, exp);
}

/* XDP admission: must pass; may set CE on an ECT IPv4 packet, nothing else. */
static void do_xdp(const struct pkt *in)
{
	struct pkt out;
	int rc;

	rc = xdp_run(in, &out);
	if (rc < 0) {
		if (refusal_documented(P_XDP, in))
			cur->refused[P_XDP]++;
		else
			fail(P_XDP, in, "test_run error %d", rc);
		return;
	}
	if (rc != XDP_PASS)
		fail(P_XDP, in, "verdict %d, expected XDP_PASS (nothing can fill the buffer)", rc);
	note(P_XDP, in, &out);
	if (same(in, &out))
		return;
	if (out.len != in->len) {
		fail(P_XDP, in, "length changed %u → %u", in->len, out.len);
		return;
	}
	{
		struct pkt want = *in;
		__u8 ecn = in->b[15] & 3;

		if (get16(in->b + 12) != 0x0800 || in->len < 34 || (in->b[14] >> 4) != 4 ||
		    (in->b[14] & 0xf) < 5 || ecn == 0 || ecn == 3) {
			fail(P_XDP, in, "changed a frame that is not an ECT IPv4 packet");
			return;
		}
		want.b[15] |= 3;
		put16(want.b + 24, get16(out.b + 24));
		if (!same(&want, &out)) {
			fail(P_XDP, in, "changed more than the ECN bits and the checksum");
			return;
		}
		/* RFC 1624: the sum over the base header is preserved */
		{
			__u16 si = sum16(in->b + 14, 20), so = sum16(out.b + 14, 20);

			if (si == 0xffff ? so != 0xffff : so != si)
				fail(P_XDP, in, "CE set without an incremental checksum update");
		}
	}
}

/* XDP counters, all keys, all CPUs: every frame is counted once. */
static __u64 xdp_total(__u64 *drops)
{
	__u64 tot = 0;
	__u32 k;

	*drops = 0;
	for (k = 0; k < DC_SW_CNT_ENTRIES; k++) {
		struct dc_sw_counters c = swfix_counters(&f, k);

		tot += c.admit_pkts + c.drop_thresh_pkts + c.drop_full_pkts + c.other_pkts;
		*drops += c.drop_thresh_pkts + c.drop_full_pkts;
	}
	return tot;
}

static void run_all(const struct pkt *p)
{
	do_hout(p);
	do_hin(p);
	do_xmit(p);
	do_xdp(p);
	cur->pkts++;
	if (!(cur->pkts % 64))
		swfix_queue(&f, XDP_PORT_Q, XDP_PORT_Q, 1, (__u32)DC_Q16_ONE);
}

/* ---- the classes ------------------------------------------------------------------- */

static void gen_random(struct pkt *p, __u32 i)
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
static void mk_base(struct pkt *p, __u32 kind)
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

static void gen_valid(struct pkt *p, __u32 i)
{
	mk_base(p, i);
}

static void gen_ipopts(struct pkt *p, __u32 i)
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

static void gen_frag(struct pkt *p, __u32 i)
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

static void gen_ipv6(struct pkt *p, __u32 i)
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

static void gen_vlan(struct pkt *p, __u32 i)
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

static void gen_arp(struct pkt *p, __u32 i)
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

static void gen_tiny(struct pkt *p, __u32 i)
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

static void gen_trunc(struct pkt *p, __u32 i)
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

static void gen_jumbo(struct pkt *p, __u32 i)
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

/* ---- start-up ------------------------------------------------------------------------ */

/* The largest / smallest frame test_run accepts for prog (plain IPv4 TCP). */
static __u32 probe_limit(int prog, bool largest, __u16 ethertype)
{
	struct pkt p, o;
	__u32 lo, hi;

	mk_tcp4(&p, A_SRC, A_OTHER, 1, 2, NULL, 0, 4096, 6);
	put16(p.b + 12, ethertype);
	if (largest) {
		for (lo = 64, hi = BUF; lo + 1 < hi;) { /* lo accepted, hi refused */
			__u32 mid = (lo + hi) / 2;

			p.len = mid;
			if ((prog == P_XDP ? xdp_run(&p, &o) : skb_run(fd_hout, &p, &o)) >= 0)
				lo = mid;
			else
				hi = mid;
		}
		return lo;
	}
	for (lo = 0; lo < 64; lo++) {
		p.len = lo;
		if ((prog == P_XDP ? xdp_run(&p, &o) : skb_run(fd_hout, &p, &o)) >= 0)
			return lo;
	}
	return 64;
}

static int setup(void)
{
	struct dc_int_dst_key k = { .prefixlen = 32 };
	struct dc_int_dst_cfg v4 = { .slots = 4 }, v2 = { .slots = 2 };
	struct bpf_map *m;
	__u32 one = 1, port = XPORT.port_id, i;

	/* the XDP fixture first: it moves the process into a private netns */
	if (swfix_setup(&f)) {
		printf("FAIL: corpus: switch fixture (netns, veths, switch object)\n");
		return -1;
	}
	if (!getenv("DCBPF_DEBUG"))
		libbpf_set_print(NULL);
	skel = int_bpf__open();
	xskel = int_transit_bpf__open();
	if (!skel || !xskel) {
		printf("FAIL: corpus: open INT objects: %s\n", strerror(errno));
		return -1;
	}
	bpf_object__for_each_map(m, skel->obj)
		bpf_map__set_pin_path(m, NULL);
	bpf_object__for_each_map(m, xskel->obj)
		bpf_map__set_pin_path(m, NULL);
	if (int_bpf__load(skel) || int_transit_bpf__load(xskel)) {
		printf("FAIL: corpus: load INT objects: %s\n", strerror(errno));
		return -1;
	}
	fd_hout = bpf_program__fd(skel->progs.dc_int_hout);
	fd_hin = bpf_program__fd(skel->progs.dc_int_hin);
	fd_xmit = bpf_program__fd(xskel->progs.dc_int_xmit);
	fd_sink = bpf_map__fd(skel->maps.dc_int_sink);
	fd_stats = bpf_map__fd(skel->maps.dc_int_stats);
	fd_xstats = bpf_map__fd(xskel->maps.dc_int_xstats);

	inet_pton(AF_INET, "10.0.0.1", &A_SRC);
	inet_pton(AF_INET, "10.0.0.2", &A_DST4);
	inet_pton(AF_INET, "10.0.0.3", &A_DST2);
	inet_pton(AF_INET, "10.9.1.2", &A_FWD);
	inet_pton(AF_INET, "192.0.2.7", &A_OTHER);
	k.addr = A_DST4;
	bpf_map_update_elem(bpf_map__fd(skel->maps.dc_int_dst), &k, &v4, BPF_ANY);
	k.addr = A_DST2;
	bpf_map_update_elem(bpf_map__fd(skel->maps.dc_int_dst), &k, &v2, BPF_ANY);
	bpf_map_update_elem(bpf_map__fd(xskel->maps.dc_sw_ifport), &one, &port, BPF_ANY);
	bpf_map_update_elem(bpf_map__fd(xskel->maps.dc_sw_port), &port, &XPORT, BPF_ANY);

	/* Admission that never drops: complete sharing in a buffer nothing
	 * fills; ECN marking on above 5 000 bytes so CE marks happen. */
	memset(&f.c, 0, sizeof(f.c));
	f.c.alg = DC_ALG_CS;
	f.c.buffer_bytes = 2000000000u;
	f.c.ecn_k_bytes = 5000;
	f.c.abm_period_us = 100;
	for (i = 0; i < DC_SW_PRIOS; i++)
		f.c.alpha_q16[i] = (__u32)DC_Q16_ONE;
	swfix_cfg(&f);
	swfix_queue(&f, XDP_PORT_Q, XDP_PORT_Q, 1, (__u32)DC_Q16_ONE);
	return 0;
}

struct gen {
	const char *name;
	__u32 n;
	void (*fn)(struct pkt *, __u32);
};

int main(void)
{
	static struct gen gens[] = {
		{ "random bytes", 2000, gen_random },
		{ "truncated at every length", ~0u, gen_trunc },
		{ "IPv4 options (INT 0x1e, garbage)", 3000, gen_ipopts },
		{ "well-formed dcbpf traffic", 1200, gen_valid },
		{ "fragments", 400, gen_frag },
		{ "IPv6", 400, gen_ipv6 },
		{ "VLAN/QinQ tagged", 400, gen_vlan },
		{ "ARP/RARP", 200, gen_arp },
		{ "tiny (< 34 bytes)", 204, gen_tiny },
		{ "jumbo", 300, gen_jumbo },
	};
	const char *seed_env = getenv("DCBPF_CORPUS_SEED");
	__u32 g, total = 0, xmark = 0;
	static struct cls cls[sizeof(gens) / sizeof(gens[0])];

	(void)swfix_pkt; /* the fixture's packet helpers: the corpus builds its own */
	(void)swfix_run;
	DC_TEST_NEED_ROOT("corpus");
	rng_state = seed_env ? strtoull(seed_env, NULL, 0) : 0xdcb9f00dULL;
	if (setup())
		return 1;
	skb_min = probe_limit(P_HOUT, false, 0x88b5); /* local experimental ethertype */
	skb_min_ip = probe_limit(P_HOUT, false, 0x0800);
	skb_min_ip6 = probe_limit(P_HOUT, false, 0x86dd);
	skb_max = probe_limit(P_HOUT, true, 0x0800);
	xdp_min = probe_limit(P_XDP, false, 0x0800);
	xdp_max = probe_limit(P_XDP, true, 0x0800);
	printf("PASS: corpus: test_run limits measured: skb %u…%u bytes (IPv4 ethertype from %u, "
	       "IPv6 from %u), xdp %u…%u bytes%s\n", skb_min, skb_max, skb_min_ip, skb_min_ip6,
	       xdp_min, xdp_max, xdp_max >= BUF - 1 ? " (or more)" : "");
	for (g = 0; g < sizeof(gens) / sizeof(gens[0]); g++) {
		struct cls *c = &cls[g];
		__u64 d0, d1, x0 = xdp_total(&d0), x1;
		__u32 i, p, ran_xdp;
		struct pkt pk;

		c->name = gens[g].name;
		cur = c;
		gen_done = false;
		for (i = 0; i < gens[g].n && !gen_done; i++) {
			gens[g].fn(&pk, i);
			run_all(&pk);
		}
		x1 = xdp_total(&d1);
		ran_xdp = c->same[P_XDP] + c->changed[P_XDP];
		if (x1 - x0 != ran_xdp)
			fail(P_XDP, &pk, "counters account for %llu frames, %u ran",
			     (unsigned long long)(x1 - x0), ran_xdp);
		if (d1 != d0)
			fail(P_XDP, &pk, "%llu drops counted", (unsigned long long)(d1 - d0));
		xmark += c->changed[P_XDP];
		total += c->pkts;
		for (p = 0; p < NPROG; p++) {
			if (c->bad[p])
				printf("FAIL: corpus %s: %s: %u of %u packets wrong, first: %s\n",
				       c->name, prog_name[p], c->bad[p], c->pkts, c->why[p]);
			else
				printf("PASS: corpus %s: %s: %u packets (%u unchanged, %u transformed "
				       "as documented, %u refused by test_run)\n",
				       c->name, prog_name[p], c->pkts, c->same[p], c->changed[p],
				       c->refused[p]);
			check_failed |= c->bad[p] != 0;
		}
	}
	CHECK("corpus: at least 10 000 packets through every program", total >= 10000, "%u", total);
	printf("# %u packets; XDP set CE on %u ECT packets; seed %#llx\n", total, xmark,
	       (unsigned long long)(seed_env ? strtoull(seed_env, NULL, 0) : 0xdcb9f00dULL));
	switch_bpf__destroy(f.skel);
	int_transit_bpf__destroy(xskel);
	int_bpf__destroy(skel);
	return check_failed;
}
