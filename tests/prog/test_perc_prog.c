// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * BPF_PROG_TEST_RUN fixtures of the s-PERC link program (bpf/perc.bpf.c):
 * the two-flow, three-link example of "Proactive Congestion Control"
 * (Jose), Fig 3.4, replayed update by update (b, a, s and the ignore bit
 * of every update, MaxE before it, the link state after the third round),
 * for s-PERC and s-PERC* (roundNumber stamped), the n-PERC contrast at
 * update 4 (Fig 3.2), the short-flow limit l0, reflection at the receiver,
 * FIN, the lazy round reset, malformed control packets dropped by reason
 * with the link state left as it was, and a live capacity change
 * (dc_perc_lcfg, as `dcbpf perc set` writes it) that the next packet uses
 * with the flows' state kept.  Needs root.
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
#include "dcbpf/perc.h"
#include "percpkt.h"
#include "perc.skel.h"

#define G 1000000U	/* kbps per Gb/s */
#define TC_ACT_SHOT 2
#define TC_ACT_REDIRECT 7
#define L4 PERC_PKT_L4
#define OFF PERC_PKT_HDR

static struct perc_bpf *skel;
static int link_fd, port_fd, stats_fd, lcfg_fd;

struct frame {
	unsigned char b[256];
	__u32 len;
};

/* A control packet (tests/lib/percpkt.h) into f. */
static void frame(struct frame *f, __u8 flags, __u8 nhops_field, __u8 hop,
		  const struct dc_perc_hop *hops, __u32 nhops)
{
	f->len = perc_pkt(f->b, sizeof(f->b), flags, nhops_field, hop, hops, nhops);
}

static int run(int prog_fd, struct frame *in, struct frame *out)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in->b, .data_size_in = in->len,
		    .data_out = out->b, .data_size_out = sizeof(out->b));
	int err = bpf_prog_test_run_opts(prog_fd, &o);

	out->len = o.data_size_out;
	return err ? RUN_ERR + err : (int)o.retval;
}

/* The test runs on loopback (ifindex 1): point it at link idx. */
static void port(__u32 link, __u32 flags)
{
	__u32 ifindex = 1;
	struct dc_perc_port p = { .link = link, .flags = flags };

	bpf_map_update_elem(port_fd, &ifindex, &p, BPF_ANY);
}

static struct dc_perc_link get_link(__u32 idx)
{
	struct dc_perc_link l;

	memset(&l, 0, sizeof(l));
	bpf_map_lookup_elem(link_fd, &idx, &l);
	return l;
}

static void put_link(__u32 idx, const struct dc_perc_link *l)
{
	bpf_map_update_elem(link_fd, &idx, l, BPF_ANY);
}

static void new_link(__u32 idx, __u64 cap_kbps, __u32 mode)
{
	struct dc_perc_link l;

	memset(&l, 0, sizeof(l));
	l.link_id = idx;
	dc_perc_state_init(&l.st, cap_kbps, mode);
	put_link(idx, &l);
}

/* The control plane ends a round at these links (round_ns 0: tick). */
static void tick(const __u32 *idx, int n)
{
	for (int i = 0; i < n; i++) {
		struct dc_perc_link l = get_link(idx[i]);

		l.tick++;
		put_link(idx[i], &l);
	}
}

static struct dc_perc_stats stats(void)
{
	struct dc_perc_stats s;
	__u32 zero = 0;

	memset(&s, 0, sizeof(s));
	bpf_map_lookup_elem(stats_fd, &zero, &s);
	return s;
}

struct flow {
	__u32 link[2];		/* link index of hop 0, 1 */
	struct dc_perc_hop hop[2];
};

static void flow_init(struct flow *f, __u32 l0, __u32 l1)
{
	f->link[0] = l0;
	f->link[1] = l1;
	dc_perc_hop_fresh(&f->hop[0]);
	dc_perc_hop_fresh(&f->hop[1]);
}

/* One update of flow f at hop idx (forward at egress, or reverse at ingress). */
static int update(struct flow *f, __u32 idx, bool reverse, bool fin)
{
	struct frame in, out;
	int rc;

	port(f->link[idx], 0);
	frame(&in, (__u8)((reverse ? DC_PERC_PF_REV : 0) | (fin ? DC_PERC_PF_FIN : 0)), 2,
	      (__u8)(reverse ? idx + 1 : idx), f->hop, 2);
	rc = run(bpf_program__fd(reverse ? skel->progs.dc_perc_ingress : skel->progs.dc_perc_egress),
		 &in, &out);
	if (rc != TC_NEXT || out.len != in.len)
		return -1;
	if (out.b[OFF + 3] != (reverse ? idx : idx + 1) || out.b[L4 + 6] || out.b[L4 + 7])
		return -2;
	for (int i = 0; i < 2; i++)
		dc_perc_hop_decode(out.b + OFF + DC_PERC_HDR_LEN + i * DC_PERC_HOP_LEN, &f->hop[i]);
	return 0;
}

/* Fig 3.4, from the all-E packets of two new flows. */
struct step {
	const char *who;
	int flow;		/* 0: fB (l20, l30); 1: fG (l30, l12) */
	__u32 idx;
	bool reverse;
	__u32 maxe_g, b_g, a_g;
	int bneck, ignore;
};

static const struct step fig34[] = {
	{ "u1 fB@l20", 0, 0, false, 0, 20, 20, 1, 0 },
	{ "u2 fB@l30", 0, 1, false, 0, 30, 20, 0, 0 },
	{ "u3 fG@l30", 1, 0, false, 20, 10, 10, 1, 1 },
	{ "u4 fG@l12", 1, 1, false, 0, 12, 12, 1, 0 },
	{ "u5 fG@l30", 1, 0, false, 20, 10, 10, 1, 1 },
	{ "u6 fG@l12", 1, 1, false, 0, 12, 12, 1, 0 },
	{ "u7 fB@l20", 0, 0, false, 0, 20, 20, 1, 0 },
	{ "u8 fB@l30", 0, 1, false, 20, 15, 15, 1, 1 },
	{ "u9 fG@l30", 1, 0, false, 0, 15, 12, 0, 0 },
	{ "u10 fG@l12", 1, 1, false, 0, 12, 12, 1, 0 },
	/* fB's packet on its way back: l30, then l20 (TC ingress). */
	{ "u11 fB@l30", 0, 1, true, 12, 18, 18, 1, 0 },
	{ "u12 fB@l20", 0, 0, true, 0, 20, 18, 0, 0 },
};

enum { L20 = 1, L30 = 2, L12 = 3 };
static const __u32 all3[] = { L20, L30, L12 };

/* s-PERC, then s-PERC*: every flow is seen at every link once per round
 * here, so the shadows rebuild exactly the books and the trace is the same;
 * s-PERC* also stamps each entry with its link's roundNumber. */
static void test_fig34(__u32 mode)
{
	const char *mn = mode ? "s-PERC*" : "s-PERC";
	struct flow f[2];
	char name[128];
	unsigned int i;
	struct dc_perc_link l;

	new_link(L20, 20ULL * G, mode);
	new_link(L30, 30ULL * G, mode);
	new_link(L12, 12ULL * G, mode);
	flow_init(&f[0], L20, L30);
	flow_init(&f[1], L30, L12);
	for (i = 0; i < sizeof(fig34) / sizeof(fig34[0]); i++) {
		const struct step *s = &fig34[i];
		struct flow *fl = &f[s->flow];
		struct dc_perc_hop *h = &fl->hop[s->idx];
		int rc;

		if (i == 4 || i == 8)
			tick(all3, 3);	/* end of rounds 1 and 2 */
		/* MaxE as the packet finds it: after the lazy reset it triggers */
		l = get_link(fl->link[s->idx]);
		dc_perc_advance(&l.st, l.tick);
		snprintf(name, sizeof(name), "perc fig 3.4 %s %s: MaxE before", mn, s->who);
		CHECK_EQ(name, l.st.max_e_kbps, (__u64)s->maxe_g * G);
		rc = update(fl, s->idx, s->reverse, false);
		snprintf(name, sizeof(name), "perc fig 3.4 %s %s: program passes and moves the index", mn, s->who);
		CHECK(name, rc == 0, "rc %d", rc);
		snprintf(name, sizeof(name), "perc fig 3.4 %s %s: b, a", mn, s->who);
		CHECK(name, h->b_kbps == s->b_g * G && h->a_kbps == s->a_g * G, "b %u a %u", h->b_kbps,
		      h->a_kbps);
		snprintf(name, sizeof(name), "perc fig 3.4 %s %s: s, ignore, link id, roundNumber", mn,
			 s->who);
		l = get_link(fl->link[s->idx]);
		CHECK(name, h->bneck == s->bneck && h->ignore == s->ignore &&
			    h->link_id == fl->link[s->idx] &&
			    h->round == (mode ? 1 + i / 4 : 0) && l.st.round_number == (mode ? 1 + i / 4 : 1),
		      "s %u i %u link %u round %u (link %u)", h->bneck, h->ignore, h->link_id, h->round,
		      l.st.round_number);
	}
	tick(all3, 3);	/* end of round 3; state applied lazily by the next packet: */
	{
		struct dc_perc_state st[4];

		for (i = 1; i <= 3; i++) {
			st[i] = get_link(i).st;
			dc_perc_advance(&st[i], get_link(i).tick);
		}
		snprintf(name, sizeof(name), "%s %s", "perc fig 3.4 after round 3: l20 NumB=0 SumE=18 MaxE=18", mn);
		CHECK(name,
		      st[L20].num_b == 0 && st[L20].sum_e_kbps == 18LL * G && st[L20].max_e_kbps == 18ULL * G,
		      "%d %lld %llu", st[L20].num_b, (long long)st[L20].sum_e_kbps,
		      (unsigned long long)st[L20].max_e_kbps);
		snprintf(name, sizeof(name), "%s %s", "perc fig 3.4 after round 3: l30 NumB=1 SumE=12 MaxE=12", mn);
		CHECK(name,
		      st[L30].num_b == 1 && st[L30].sum_e_kbps == 12LL * G && st[L30].max_e_kbps == 12ULL * G,
		      "%d %lld %llu", st[L30].num_b, (long long)st[L30].sum_e_kbps,
		      (unsigned long long)st[L30].max_e_kbps);
		snprintf(name, sizeof(name), "%s %s", "perc fig 3.4 after round 3: l12 NumB=1 SumE=0 MaxE=0", mn);
		CHECK(name,
		      st[L12].num_b == 1 && st[L12].sum_e_kbps == 0 && st[L12].max_e_kbps == 0, "%d %lld %llu",
		      st[L12].num_b, (long long)st[L12].sum_e_kbps, (unsigned long long)st[L12].max_e_kbps);
	}
	snprintf(name, sizeof(name), "%s %s", "perc fig 3.4: rates fG 12 fB 18 Gb/s (max-min)", mn);
		CHECK(name,
	      dc_perc_rate_kbps(f[1].hop, 2) == 12 * G && dc_perc_rate_kbps(f[0].hop, 2) == 18 * G,
	      "fG %u fB %u", dc_perc_rate_kbps(f[1].hop, 2), dc_perc_rate_kbps(f[0].hop, 2));

	if (mode)
		return;
	/* FIN: fG leaves; l30 and l12 drop its B contribution. */
	{
		__s32 nb30 = get_link(L30).st.num_b, nb12 = get_link(L12).st.num_b;
		struct dc_perc_hop before = f[1].hop[0];

		CHECK_EQ("perc fin: fG forward at l30 applied", update(&f[1], 0, false, true), 0);
		CHECK_EQ("perc fin: fG forward at l12 applied", update(&f[1], 1, false, true), 0);
		/* fG was E at l30 (SumE held 12), B at l12 */
		CHECK("perc fin: l30 loses fG's SumE, NumB unchanged",
		      get_link(L30).st.num_b == nb30 && get_link(L30).st.sum_e_kbps == 0,
		      "NumB %d SumE %lld", get_link(L30).st.num_b, (long long)get_link(L30).st.sum_e_kbps);
		CHECK_EQ("perc fin: l12 NumB - 1", get_link(L12).st.num_b, nb12 - 1);
		CHECK_EQ("perc fin: counted", get_link(L12).fins, 1);
		(void)before;
		/* on the way back a FIN only moves the index */
		l = get_link(L12);
		CHECK_EQ("perc fin: reverse at l12 passes", update(&f[1], 1, true, true), 0);
		CHECK("perc fin: reverse leaves l12 untouched",
		      get_link(L12).st.num_b == l.st.num_b && get_link(L12).updates == l.updates, "NumB %d",
		      get_link(L12).st.num_b);
	}
}

/* Fig 3.2: without the ignore bit, l12 takes l30's low b = 10 as fG's
 * limit at update 4 and misclassifies fG as E. */
static void test_nperc(void)
{
	struct flow f[2];
	int i;

	for (int mode = 0; mode < 2; mode++) {
		__u32 m = mode ? DC_PERC_M_NPERC : 0;

		new_link(L20, 20ULL * G, m);
		new_link(L30, 30ULL * G, m);
		new_link(L12, 12ULL * G, m);
		flow_init(&f[0], L20, L30);
		flow_init(&f[1], L30, L12);
		for (i = 0; i < 4; i++)
			update(&f[fig34[i].flow], fig34[i].idx, false, false);
		if (mode) {
			CHECK("perc n-PERC u3: ignore bit never set (b 10 < MaxE 20)",
			      f[1].hop[0].ignore == 0 && f[1].hop[0].b_kbps == 10 * G, "i %u b %u",
			      f[1].hop[0].ignore, f[1].hop[0].b_kbps);
			CHECK("perc n-PERC u4: fG at l12 gets a=10, s=E (Fig 3.2)",
			      f[1].hop[1].a_kbps == 10 * G && f[1].hop[1].bneck == 0 &&
				      f[1].hop[1].b_kbps == 12 * G,
			      "a %u s %u", f[1].hop[1].a_kbps, f[1].hop[1].bneck);
			CHECK("perc n-PERC u4: l12 books fG in E (NumB 0, SumE 10)",
			      get_link(L12).st.num_b == 0 && get_link(L12).st.sum_e_kbps == 10LL * G, "%d %lld",
			      get_link(L12).st.num_b, (long long)get_link(L12).st.sum_e_kbps);
		} else {
			CHECK("perc s-PERC u4: fG at l12 gets a=12, s=B",
			      f[1].hop[1].a_kbps == 12 * G && f[1].hop[1].bneck == 1, "a %u s %u",
			      f[1].hop[1].a_kbps, f[1].hop[1].bneck);
		}
	}
}

/* The receiver turns a forward packet around; a switch port passes it. */
static void test_reflect(void)
{
	struct dc_perc_hop hops[2];
	struct frame in, out;
	int rc;

	new_link(L20, 20ULL * G, 0);
	dc_perc_hop_fresh(&hops[0]);
	dc_perc_hop_fresh(&hops[1]);
	frame(&in, 0, 2, 2, hops, 2);
	port(L20, DC_PERC_PORT_HOST);
	__u64 r0 = stats().reflected;
	rc = run(bpf_program__fd(skel->progs.dc_perc_ingress), &in, &out);
	CHECK_EQ("perc reflect: host ingress redirects", rc, TC_ACT_REDIRECT);
	CHECK("perc reflect: REV set, addresses, ports and MACs swapped, hop kept",
	      (out.b[OFF + 1] & DC_PERC_PF_REV) && out.b[OFF + 3] == 2 &&
		      !memcmp(out.b + 14 + 12, in.b + 14 + 16, 4) && !memcmp(out.b + 14 + 16, in.b + 14 + 12, 4) &&
		      !memcmp(out.b + L4, in.b + L4 + 2, 2) && !memcmp(out.b + L4 + 2, in.b + L4, 2) &&
		      !memcmp(out.b, in.b + 6, 6) && !memcmp(out.b + 6, in.b, 6),
	      "flags %#x hop %u", out.b[OFF + 1], out.b[OFF + 3]);
	CHECK_EQ("perc reflect: counted", stats().reflected, r0 + 1);
	CHECK_EQ("perc reflect: link untouched", get_link(L20).updates, 0);
	port(L20, 0);
	rc = run(bpf_program__fd(skel->progs.dc_perc_ingress), &in, &out);
	CHECK("perc reflect: a switch port's ingress passes a forward packet untouched",
	      rc == TC_NEXT && out.len == in.len && !memcmp(out.b, in.b, in.len), "rc %d", rc);
	/* egress passes reverse packets (they were applied at ingress) */
	frame(&in, DC_PERC_PF_REV, 2, 1, hops, 2);
	rc = run(bpf_program__fd(skel->progs.dc_perc_egress), &in, &out);
	CHECK("perc reflect: egress passes reverse packets untouched",
	      rc == TC_NEXT && !memcmp(out.b, in.b, in.len) && get_link(L20).updates == 0, "rc %d", rc);
}

/* A short flow's virtual link l0 (s-PERC*, Ch. 4.1): its rate limits the
 * allocation like another hop's b; without the flag the field is ignored. */
static void test_l0(void)
{
	struct dc_perc_hop hops[2];
	struct frame in, out;
	struct dc_perc_hop h;
	int rc;

	for (int flag = 0; flag < 2; flag++) {
		new_link(L20, 20ULL * G, DC_PERC_M_STAR);
		port(L20, 0);
		dc_perc_hop_fresh(&hops[0]);
		dc_perc_hop_fresh(&hops[1]);
		frame(&in, flag ? DC_PERC_PF_L0 : 0, 2, 0, hops, 2);
		dc_perc_put_be32(in.b + OFF + 12, 5 * G);
		rc = run(bpf_program__fd(skel->progs.dc_perc_egress), &in, &out);
		dc_perc_hop_decode(out.b + OFF + DC_PERC_HDR_LEN, &h);
		if (flag)
			CHECK("perc l0: limit 5 Gb/s: a = 5, s = E, b = 20; l20 books it in E",
			      rc == TC_NEXT && h.a_kbps == 5 * G && !h.bneck && h.b_kbps == 20 * G &&
				      get_link(L20).st.sum_e_kbps == 5LL * G && get_link(L20).st.num_b == 0,
			      "rc %d a %u s %u b %u", rc, h.a_kbps, h.bneck, h.b_kbps);
		else
			CHECK("perc l0: without the flag the field is ignored: a = 20, s = B",
			      rc == TC_NEXT && h.a_kbps == 20 * G && h.bneck, "rc %d a %u s %u", rc, h.a_kbps,
			      h.bneck);
	}
}

/* Lazy Alg. 5: a link whose rounds are timed (round_ns) catches up on the
 * next packet; two or more missed rounds leave MaxE and MaxE' at 0. */
static void test_lazy_reset(void)
{
	struct dc_perc_link l;
	struct flow f;
	struct timespec ts;
	__u64 now;

	new_link(L20, 20ULL * G, 0);
	l = get_link(L20);
	l.round_ns = 1000000;	/* 1 ms */
	l.st.max_e_kbps = 7 * G;
	l.st.max_e2_kbps = 5 * G;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
	l.st.epoch = dc_perc_epoch(now, 0, l.round_ns);
	put_link(L20, &l);
	usleep(2500);	/* two or more resets due */
	flow_init(&f, L20, L30);
	new_link(L30, 30ULL * G, 0);
	update(&f, 0, false, false);
	l = get_link(L20);
	CHECK("perc lazy reset: epoch advanced by >= 2 rounds",
	      l.st.epoch >= dc_perc_epoch(now, 0, 1000000) + 2, "epoch %llu", (unsigned long long)l.st.epoch);
	CHECK("perc lazy reset: MaxE and MaxE' were reset twice (the packet then set neither)",
	      l.st.max_e_kbps == 0 && l.st.max_e2_kbps == 0, "%llu %llu",
	      (unsigned long long)l.st.max_e_kbps, (unsigned long long)l.st.max_e2_kbps);
	CHECK("perc lazy reset: flow B at 20 Gb/s", f.hop[0].a_kbps == 20 * G && f.hop[0].bneck, "a %u",
	      f.hop[0].a_kbps);
}

/* Malformed control packets: dropped by reason, link state unchanged. */
static void malformed(const char *what, struct frame *in, int prog_fd, enum dc_perc_drop why)
{
	struct dc_perc_link a = get_link(L20), b;
	struct dc_perc_stats s0 = stats(), s1;
	struct frame out;
	char name[96];
	int rc = run(prog_fd, in, &out);

	b = get_link(L20);
	s1 = stats();
	snprintf(name, sizeof(name), "perc malformed %s: dropped", what);
	CHECK_EQ(name, rc, TC_ACT_SHOT);
	snprintf(name, sizeof(name), "perc malformed %s: counted by reason", what);
	CHECK_EQ(name, s1.drop[why], s0.drop[why] + 1);
	snprintf(name, sizeof(name), "perc malformed %s: link state unchanged", what);
	CHECK(name, !memcmp(&a, &b, sizeof(a)), "link record changed");
}

static void test_malformed(void)
{
	int eg = bpf_program__fd(skel->progs.dc_perc_egress);
	int ig = bpf_program__fd(skel->progs.dc_perc_ingress);
	struct dc_perc_hop hops[9];
	struct frame in, out;
	int i, rc;

	new_link(L20, 20ULL * G, DC_PERC_M_STAR);
	port(L20, 0);
	for (i = 0; i < 9; i++)
		dc_perc_hop_fresh(&hops[i]);
	/* one good update first, so the state is not all zero */
	frame(&in, 0, 2, 0, hops, 2);
	rc = run(eg, &in, &out);
	CHECK("perc malformed: a good packet first", rc == TC_NEXT && get_link(L20).st.num_b == 1, "rc %d", rc);

	frame(&in, 0, 2, 0, hops, 2);
	in.len = OFF + 10;
	malformed("short header", &in, eg, DC_PERC_D_SHORT);
	frame(&in, 0, 2, 0, hops, 2);
	in.len -= 5;
	malformed("hops cut short", &in, eg, DC_PERC_D_SHORT);
	frame(&in, 0, 2, 0, hops, 2);
	in.b[OFF] = 9;
	malformed("version 9", &in, eg, DC_PERC_D_VERSION);
	frame(&in, 0, 9, 0, hops, 9);
	malformed("nhops 9", &in, eg, DC_PERC_D_NHOPS);
	frame(&in, 0, 0, 0, hops, 0);
	malformed("nhops 0", &in, eg, DC_PERC_D_NHOPS);
	frame(&in, 0, 2, 2, hops, 2);
	malformed("forward hop index = nhops", &in, eg, DC_PERC_D_INDEX);
	frame(&in, DC_PERC_PF_REV, 2, 0, hops, 2);
	malformed("reverse hop index 0", &in, ig, DC_PERC_D_INDEX);
	frame(&in, DC_PERC_PF_REV, 2, 3, hops, 2);
	malformed("reverse hop index > nhops", &in, ig, DC_PERC_D_INDEX);
	port(L20, DC_PERC_PORT_HOST);
	frame(&in, 0, 2, 1, hops, 2);
	malformed("receiver: forward packet not at its end", &in, ig, DC_PERC_D_INDEX);
	port(L20, 0);
	hops[0].link_id = 7;
	frame(&in, 0, 2, 0, hops, 2);
	malformed("another link's entry (forward)", &in, eg, DC_PERC_D_LINK);
	hops[0].link_id = 0;
	frame(&in, DC_PERC_PF_REV, 2, 1, hops, 2);
	malformed("reverse entry never visited (link id 0)", &in, ig, DC_PERC_D_LINK);
	port(5, 0);	/* link 5 not configured */
	frame(&in, 0, 2, 0, hops, 2);
	{
		struct dc_perc_stats s0 = stats();

		rc = run(eg, &in, &out);
		CHECK("perc malformed: unconfigured link: dropped, counted",
		      rc == TC_ACT_SHOT && stats().drop[DC_PERC_D_LINK] == s0.drop[DC_PERC_D_LINK] + 1, "rc %d", rc);
	}
	port(L20, 0);

	/* Not ours: pass untouched, nothing counted. */
	frame(&in, 0, 2, 0, hops, 2);
	in.b[L4 + 2] = 0x13;	/* another UDP port */
	{
		struct dc_perc_stats s0 = stats();

		rc = run(eg, &in, &out);
		CHECK("perc: other UDP passes untouched, not counted",
		      rc == TC_NEXT && !memcmp(out.b, in.b, in.len) && stats().ctrl_pkts == s0.ctrl_pkts,
		      "rc %d", rc);
	}
	/* No port entry for the interface: passes untouched. */
	{
		__u32 ifindex = 1;
		struct dc_perc_stats s0 = stats();

		bpf_map_delete_elem(port_fd, &ifindex);
		frame(&in, 0, 2, 0, hops, 2);
		rc = run(eg, &in, &out);
		CHECK("perc: control packet on an unconfigured interface passes untouched",
		      rc == TC_NEXT && !memcmp(out.b, in.b, in.len) && stats().passed == s0.passed + 1,
		      "rc %d", rc);
	}
}

/* Live capacity (dcbpf perc set, dcbpfd [perc]): two flows at their max-min
 * share C/2 of l20; C halved through dc_perc_lcfg only (the link's state is
 * not written); the next control packet of each flow gets b = C'/2 from the
 * link's unchanged NumB and SumE, and the link keeps C' in its state. */
static void test_live_cap(void)
{
	struct dc_perc_lcfg c = { 0 };
	struct dc_perc_link l0, l1;
	struct flow f[2];
	__u32 idx = L20;
	int i, rc = 0;

	new_link(L20, 20ULL * G, DC_PERC_M_STAR);
	new_link(L30, 30ULL * G, DC_PERC_M_STAR);
	bpf_map_update_elem(lcfg_fd, &idx, &c, BPF_ANY);
	flow_init(&f[0], L20, L30);
	flow_init(&f[1], L20, L30);
	/* A alone (20), B joins (10), A again (10) */
	rc |= update(&f[0], 0, false, false);
	rc |= update(&f[1], 0, false, false);
	rc |= update(&f[0], 0, false, false);
	l0 = get_link(L20);
	CHECK("perc live cap: before: A and B at C/2 = 10 Gb/s, NumB 2",
	      !rc && f[0].hop[0].a_kbps == 10 * G && f[1].hop[0].a_kbps == 10 * G && l0.st.num_b == 2,
	      "rc %d a %u %u numb %d", rc, f[0].hop[0].a_kbps, f[1].hop[0].a_kbps, l0.st.num_b);
	c.cap_kbps = 10ULL * G;
	bpf_map_update_elem(lcfg_fd, &idx, &c, BPF_ANY);
	l1 = get_link(L20);
	CHECK("perc live cap: the write leaves the link's state as it was",
	      l1.st.cap_kbps == 20ULL * G && l1.st.num_b == l0.st.num_b &&
		      l1.st.sum_e_kbps == l0.st.sum_e_kbps && l1.updates == l0.updates &&
		      l1.st.round_number == l0.st.round_number,
	      "cap %llu numb %d", (unsigned long long)l1.st.cap_kbps, l1.st.num_b);
	rc |= update(&f[0], 0, false, false);
	l1 = get_link(L20);
	CHECK("perc live cap: the next packet gets b = C'/NumB = 5 Gb/s; the link holds C' = 10",
	      !rc && f[0].hop[0].b_kbps == 5 * G && f[0].hop[0].a_kbps == 5 * G && f[0].hop[0].bneck &&
		      l1.st.cap_kbps == 10ULL * G && l1.st.num_b == 2 && l1.updates == l0.updates + 1,
	      "rc %d b %u a %u cap %llu numb %d", rc, f[0].hop[0].b_kbps, f[0].hop[0].a_kbps,
	      (unsigned long long)l1.st.cap_kbps, l1.st.num_b);
	rc |= update(&f[1], 0, false, false);
	CHECK("perc live cap: B's next packet: 5 Gb/s too (the new max-min share)",
	      !rc && f[1].hop[0].a_kbps == 5 * G, "rc %d a %u", rc, f[1].hop[0].a_kbps);
	/* raised again: 30, both at 15 after one packet each */
	c.cap_kbps = 30ULL * G;
	bpf_map_update_elem(lcfg_fd, &idx, &c, BPF_ANY);
	for (i = 0; i < 2; i++)
		rc |= update(&f[i], 0, false, false);
	CHECK("perc live cap: raised to 30 Gb/s: A and B at 15",
	      !rc && f[0].hop[0].a_kbps == 15 * G && f[1].hop[0].a_kbps == 15 * G &&
		      get_link(L20).st.cap_kbps == 30ULL * G,
	      "rc %d a %u %u", rc, f[0].hop[0].a_kbps, f[1].hop[0].a_kbps);
	c.cap_kbps = 0;		/* not set: the link's own C again */
	bpf_map_update_elem(lcfg_fd, &idx, &c, BPF_ANY);
	new_link(L20, 20ULL * G, DC_PERC_M_STAR);
	flow_init(&f[0], L20, L30);
	rc |= update(&f[0], 0, false, false);
	CHECK("perc live cap: 0 in dc_perc_lcfg leaves the link's own C (20)",
	      !rc && f[0].hop[0].a_kbps == 20 * G && get_link(L20).st.cap_kbps == 20ULL * G, "rc %d a %u", rc,
	      f[0].hop[0].a_kbps);
}

int main(void)
{
	DC_TEST_NEED_ROOT("perc prog");
	skel = DC_SKEL_OPEN_LOAD(perc_bpf);
	if (!skel) {
		printf("FAIL: perc prog: open and load (verifier): %s\n", strerror(errno));
		return 1;
	}
	printf("PASS: perc prog: link programs verify and load\n");
	link_fd = bpf_map__fd(skel->maps.dc_perc_link);
	port_fd = bpf_map__fd(skel->maps.dc_perc_port);
	stats_fd = bpf_map__fd(skel->maps.dc_perc_stats);
	lcfg_fd = bpf_map__fd(skel->maps.dc_perc_lcfg);
	test_fig34(0);
	test_fig34(DC_PERC_M_STAR);
	test_nperc();
	test_reflect();
	test_l0();
	test_lazy_reset();
	test_malformed();
	test_live_cap();
	perc_bpf__destroy(skel);
	return check_failed;
}
