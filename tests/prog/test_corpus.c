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
#include "corpus.h"
#include "int.skel.h"
#include "int_transit.skel.h"

#define XDP_PORT_Q 10000	/* backlog of the egress port: above ECN K */

static struct int_bpf *skel;
static struct int_transit_bpf *xskel;
static struct swfix f;
static int fd_hout, fd_hin, fd_xmit, fd_sink, fd_stats, fd_xstats;


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
		return RUN_ERR - errno;
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
		return RUN_ERR - errno;
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
 * counters of STATS_FD after it in *AFTER, the verdict "next" checked, OUT noted.
 * T_RUN (if not NULL): the clock read right after the run. */
static bool skb_run_ok(int p, int fd, const struct pkt *in, struct pkt *out, int stats_fd,
		       struct dc_int_counters *after, __u64 *t_run)
{
	int rc = skb_run(fd, in, out);

	if (t_run)
		*t_run = now_ns();

	if (rc <= RUN_ERR) {
		if (refusal_documented(p, in))
			cur->refused[p]++;
		else
			fail(p, in, "test_run error %d", RUN_ERR - rc);
		return false;
	}
	*after = ctr(stats_fd);
	if (rc != -1)
		fail(p, in, "verdict %d, expected -1 (tcx next / TC_ACT_UNSPEC)", rc);
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
		/* The sink echoes only a stack younger than DC_INT_ECHO_MAX_AGE_NS
		 * (test_int_prog tests that rule): the corpus runs longer than
		 * that, so the record is made fresh for this packet. */
		if (echo) {
			struct timespec ts;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			rec.updated_ns = (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
			bpf_map_update_elem(fd_sink, &k, &rec, BPF_EXIST);
		}
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
	if (rc <= RUN_ERR) {
		if (refusal_documented(P_XDP, in))
			cur->refused[P_XDP]++;
		else
			fail(P_XDP, in, "test_run error %d", RUN_ERR - rc);
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
			if ((prog == P_XDP ? xdp_run(&p, &o) : skb_run(fd_hout, &p, &o)) > RUN_ERR)
				lo = mid;
			else
				hi = mid;
		}
		return lo;
	}
	for (lo = 0; lo < 64; lo++) {
		p.len = lo;
		if ((prog == P_XDP ? xdp_run(&p, &o) : skb_run(fd_hout, &p, &o)) > RUN_ERR)
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
