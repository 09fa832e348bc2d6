// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * cosy's core (include/dcbpf/cosy.h), "Building a Partial Communication
 * Synchrony Abstraction on Asynchronous Datacenters" (Agarwal et al.):
 * the bounds against the paper's own numbers (Lemma 3.3's δ̂ = 5.4 µs and
 * K* ≈ 4200, §4's 640 B of switch state, Fig. 2's f(K, 32) rising with K,
 * Thm 3.2's 1 - 1/e) and a 1 Gb/s emulation budget worked by hand; the
 * header round trip; the virtual-link book: random choice among free VLs,
 * refusals by reason, lazy expiry; and the admission cases of Fig. 1a/1c
 * on a 2-spine, 3-leaf fabric built from the same calls the switch
 * program makes: K = 1 blocks in the network and rejects to both ends,
 * K = 2 admits both messages, complete frees every VL on both paths, and
 * a lost complete frees its VLs by expiry.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "dcbpf/cosy.h"

#define GBPS 1000000ULL		/* kbps */
#define US 1000ULL		/* ns */

/* Parts per million, checked to 3 decimals against a paper or hand value. */
#define CHECK_MILLI(name, ppm, milli) CHECK_RANGE(name, ((ppm) + 500) / 1000, milli, milli)

static void test_lemma33(void)
{
	/* §3.4: #H = 5, K = 4, p = 1.5 KB, B = 100 Gb/s: δ̂ = 5·6·3/2 · 0.12 µs
	 * = 5.4 µs; Ŝ = 32 MB gives K* = 32e6 / 7500 = 4266.7 ("≈ 4200"). */
	struct dc_cosy_net n = { .bw_kbps = 100 * GBPS, .hrtt_ns = 5500, .msg_bytes = 128000, .hops = 5,
				 .pkt_bytes = 1500, .k = 4, .cores = 32, .buffer_bytes = 32000000 };
	struct dc_cosy_bounds b;

	dc_cosy_bounds(&n, &b);
	CHECK_EQ("lemma 3.3: δ̂ = 5.4 µs at #H 5, K 4, 1.5 KB, 100G", b.dhat_ns, 5400);
	CHECK_EQ("lemma 3.3: q̂ = #H (K-1) p = 22500 B", b.qhat_bytes, 5 * 3 * 1500);
	CHECK_EQ("lemma 3.3: K* = 4266 (largest integer K with K ≤ Ŝ / (#H p))", b.kstar, 4266);
	CHECK_EQ("lemma 3.3: K* = 4266.666 (4267 rounded; the paper's ≈ 4200)", b.kstar_milli, 4266666);
	CHECK_EQ("lemma 3.3: K = 1 has no transient queue", dc_cosy_dhat_ns(5, 1, 1500, 100 * GBPS), 0);
	/* §4: 128 ports, K = 4: 512 + 512 · 9 bits = 640 bytes. */
	CHECK_EQ("§4: switch state of 128 ports at K 4 = 5120 bits (640 B)", dc_cosy_state_bits(128, 4), 5120);
	CHECK_EQ("§4: state of 0 ports is not asked", dc_cosy_state_bits(0, 4), 0);
}

/* The 1 Gb/s emulation budget: B 1 Gb/s, hRTT 200 µs, s 64 KB (64000 B),
 * #H 3 (leaf-spine-leaf), p 1500 B.  s/B = 512 µs, so α = 200/512 =
 * 0.391, Θ* = 512 / (2 · 712) = 0.360, δ* = 400 + 512 = 912 µs; K = 2:
 * δ̂ = 3·4·1/2 · 12 µs = 72 µs, δ_cosy = 400 + 1024 + 72 = 1496 µs, q̂ =
 * 4.5 KB; K = 4: δ̂ = 216 µs, δ_cosy = 400 + 2048 + 216 = 2664 µs, q̂ =
 * 13.5 KB. */
static void test_budget(void)
{
	struct dc_cosy_net n = { .bw_kbps = GBPS, .hrtt_ns = 200 * US, .msg_bytes = 64000, .hops = 3,
				 .pkt_bytes = 1500, .k = 2, .cores = 2 };
	struct dc_cosy_bounds b;

	dc_cosy_bounds(&n, &b);
	CHECK_EQ("budget: s/B = 512 µs", b.tx_ns, 512 * US);
	CHECK_EQ("budget: δ* = 2 hRTT + s/B = 912 µs (Thm 3.1)", b.delta_star_ns, 912 * US);
	CHECK_EQ("budget: α = 0.390625", b.alpha_ppm, 390625);
	CHECK_MILLI("budget: Θ* = 1 / (2 (1 + α)) = 0.360 (Thm 3.1)", b.theta_star_ppm, 360);
	CHECK_EQ("budget K2: δ̂ = 72 µs", b.dhat_ns, 72 * US);
	CHECK_EQ("budget K2: δ_cosy = 1496 µs (Thm 3.5)", b.delta_cosy_ns, 1496 * US);
	CHECK_EQ("budget K2: q̂ = 4500 B", b.qhat_bytes, 4500);
	CHECK_EQ("budget: K* not computed without a buffer size", b.kstar, 0);
	n.k = 4;
	dc_cosy_bounds(&n, &b);
	CHECK_EQ("budget K4: δ̂ = 216 µs", b.dhat_ns, 216 * US);
	CHECK_EQ("budget K4: δ_cosy = 2664 µs", b.delta_cosy_ns, 2664 * US);
	CHECK_EQ("budget K4: q̂ = 13500 B", b.qhat_bytes, 13500);
	n.wait_ns = 50 * US;
	dc_cosy_bounds(&n, &b);
	CHECK_EQ("budget K4: δ^E adds to δ_cosy (the proof of Thm 3.5)", b.delta_cosy_ns, 2714 * US);
	n.k = 1;
	n.wait_ns = 0;
	dc_cosy_bounds(&n, &b);
	CHECK_EQ("budget K1 (RSVP): δ_cosy = δ* (Thm 3.2)", b.delta_cosy_ns, b.delta_star_ns);
	CHECK_EQ("budget K1 (RSVP): no queue", b.qhat_bytes + b.dhat_ns, 0);
}

/* Thm 3.4's f(K, C) by floating point, the definition term by term, for
 * the cases where (1 - 1/C)^KC does not underflow a double. */
static double f_ref(unsigned int k, unsigned int c)
{
	double n = (double)k * c, sum = 0, p = pow(1 - 1.0 / c, n);

	for (unsigned int i = 0; i <= k * c; i++) {
		sum += (i < k ? i : k) * p;
		p = p * (n - i) / ((i + 1) * (c - 1.0));
	}
	return sum / k;
}

static void test_f(void)
{
	static const unsigned int ks[] = { 1, 2, 4, 8, 16 };
	/* f(K, C) for K = 1, 2, 4, 8, 16: the paper's Fig. 2 (C = 32) and two
	 * small spine counts, by hand from Eq. 1. */
	static const struct { unsigned int c; unsigned int milli[5]; } tab[] = {
		{ 2, { 750, 813, 863, 902, 930 } },
		{ 4, { 684, 766, 831, 879, 914 } },
		{ 32, { 638, 734, 808, 863, 902 } },
	};
	char name[96];
	__u64 prev;

	for (unsigned int t = 0; t < 3; t++) {
		prev = 0;
		for (unsigned int i = 0; i < 5; i++) {
			__u64 f = dc_cosy_f_ppm(ks[i], tab[t].c);
			double r = f_ref(ks[i], tab[t].c) * 1e6;

			snprintf(name, sizeof(name), "thm 3.4: f(%u, %u) = 0.%03u", ks[i], tab[t].c, tab[t].milli[i]);
			CHECK_MILLI(name, f, tab[t].milli[i]);
			snprintf(name, sizeof(name), "thm 3.4: f(%u, %u) within 2 ppm of the definition", ks[i],
				 tab[t].c);
			CHECK(name, fabs((double)f - r) <= 2, "%llu vs %.1f", (unsigned long long)f, r);
			snprintf(name, sizeof(name), "fig 2: f(%u, %u) above f at the smaller K", ks[i], tab[t].c);
			CHECK(name, f > prev, "%llu <= %llu", (unsigned long long)f, (unsigned long long)prev);
			prev = f;
		}
	}
	/* Thm 3.2: Θ_RSVP = (1 - 1/e) Θ* as C grows. */
	CHECK_RANGE("thm 3.2: f(1, 1024) → 1 - 1/e = 0.632", dc_cosy_f_ppm(1, 1024), 632100, 632500);
	/* Large K: the mode-outward sum, where (1 - 1/C)^KC underflows Q30. */
	CHECK_RANGE("thm 3.4: f(1024, 32) near 1 (≈ 1 - 1/sqrt(2π K))", dc_cosy_f_ppm(1024, 32), 985000, 990000);
	CHECK_EQ("thm 3.4: one core: every ball fits", dc_cosy_f_ppm(4, 1), DC_COSY_PPM);
	CHECK_EQ("thm 3.4: K 0 refused (0)", dc_cosy_f_ppm(0, 4), 0);
	CHECK_EQ("thm 3.4: C above the limit refused (0)", dc_cosy_f_ppm(4, DC_COSY_CALC_C_MAX + 1), 0);
	{
		struct dc_cosy_net n = { .bw_kbps = GBPS, .hrtt_ns = 200 * US, .msg_bytes = 64000, .hops = 3,
					 .pkt_bytes = 1500, .k = 4, .cores = 32 };
		struct dc_cosy_bounds b;

		dc_cosy_bounds(&n, &b);
		CHECK_RANGE("thm 3.4: E[Θ_cosy] = f(4, 32) Θ* = 0.808 · 0.3596", b.theta_ppm, 290400, 290700);
	}
}

static void test_header(void)
{
	struct dc_cosy_hdr h = { .ver = 1, .type = DC_COSY_T_RSVP, .flags = DC_COSY_F_RELEASE, .vl = 63,
				 .seq = 0xdeadbeef, .msg_id = 0x0102030405060708ULL, .size_bytes = 65536,
				 .hops = 3, .reason = DC_COSY_R_NO_VL, .switch_id = 0xa1b2 }, g;
	__u8 raw[DC_COSY_HDR_LEN];

	dc_cosy_hdr_encode(raw, &h);
	CHECK("header: msg_id big endian at 8", raw[8] == 1 && raw[15] == 8, "%u %u", raw[8], raw[15]);
	CHECK("header: switch_id big endian at 22", raw[22] == 0xa1 && raw[23] == 0xb2, "%x %x", raw[22], raw[23]);
	memset(&g, 0, sizeof(g));
	dc_cosy_hdr_decode(raw, &g);
	CHECK("header: decode(encode(h)) == h", !memcmp(&g, &h, sizeof(h)), "differs");
}

static void test_book(void)
{
	struct dc_cosy_vls s;
	__u64 fr[2];
	__u32 cand, vl, hits[2][4] = { { 0 } };
	bool rec;
	int rc;

	memset(&s, 0, sizeof(s));
	CHECK_EQ("book: all of K = 4 free at first", dc_cosy_free_mask(&s, 4, 0), 0xf);
	CHECK_EQ("book: reserve VL 2", dc_cosy_reserve(&s, 4, 2, 7, 70, 1000, 500, 3, 1, &rec), DC_COSY_VL_OK);
	CHECK_EQ("book: VL 2 no longer free", dc_cosy_free_mask(&s, 4, 1000), 0xb);
	CHECK_EQ("book: reserve a live VL refused", dc_cosy_reserve(&s, 4, 2, 8, 80, 1200, 500, 0, 0, &rec),
		 DC_COSY_VL_BUSY);
	CHECK("book: the refused reserve left VL 2 to message 7", s.vl[2].msg_id == 7 && s.vl[2].seq == 70,
	      "msg %llu seq %u", (unsigned long long)s.vl[2].msg_id, s.vl[2].seq);
	CHECK_EQ("book: VL 4 ≥ K refused", dc_cosy_reserve(&s, 4, 4, 8, 80, 1200, 500, 0, 0, &rec),
		 DC_COSY_VL_RANGE);
	CHECK_EQ("book: match with the wrong seq: owner", dc_cosy_match(&s, 4, 2, 7, 71, 1200), DC_COSY_VL_OWNER);
	CHECK_EQ("book: release by another message refused", dc_cosy_release(&s, 4, 2, 8, 70, 1200),
		 DC_COSY_VL_OWNER);
	CHECK_EQ("book: match of a free VL", dc_cosy_match(&s, 4, 1, 7, 70, 1200), DC_COSY_VL_FREE);
	CHECK_EQ("book: the holder matches", dc_cosy_match(&s, 4, 2, 7, 70, 1499), DC_COSY_VL_OK);
	/* lazy expiry: reserved at 1000 for 500 ns */
	CHECK_EQ("book: expired at 1500: free again", dc_cosy_free_mask(&s, 4, 1500), 0xf);
	CHECK_EQ("book: expired holder no longer matches", dc_cosy_match(&s, 4, 2, 7, 70, 1500), DC_COSY_VL_FREE);
	rc = dc_cosy_reserve(&s, 4, 2, 8, 80, 1600, 500, 0, 0, &rec);
	CHECK("book: an expired VL is taken over (reclaimed)", rc == DC_COSY_VL_OK && rec && s.vl[2].msg_id == 8,
	      "rc %d rec %d", rc, rec);
	CHECK_EQ("book: release by its holder", dc_cosy_release(&s, 4, 2, 8, 80, 1700), DC_COSY_VL_OK);
	CHECK_EQ("book: released bit clear", s.bitmap, 0);
	CHECK_EQ("book: release twice: free", dc_cosy_release(&s, 4, 2, 8, 80, 1700), DC_COSY_VL_FREE);
	CHECK_EQ("book: K = 64 masks every bit", dc_cosy_free_mask(&s, 64, 0), DC_U64_MAX);
	CHECK_EQ("book: RSVP mode means K = 1", dc_cosy_eff_k(8, DC_COSY_MODE_RSVP), 1);
	CHECK_EQ("book: K above 64 clamps", dc_cosy_eff_k(100, DC_COSY_MODE_COSY), 64);

	CHECK_EQ("pick: nothing free: reject", dc_cosy_pick((__u64[]){ 0, 0 }, 2, 12345, &cand, &vl), -1);
	/* Port 0 has VLs 1, 3 free, port 1 VLs 0, 2: each of the 4 taken about
	 * a quarter of the time over a sweep of the 32-bit draw. */
	fr[0] = 0xa;
	fr[1] = 0x5;
	for (__u64 r = 0; r < (1ULL << 32); r += 1ULL << 20) {
		if (dc_cosy_pick(fr, 2, (__u32)r, &cand, &vl) == 0 && cand < 2 && vl < 4)
			hits[cand][vl]++;
	}
	CHECK("pick: uniform over the free VLs of all candidates",
	      hits[0][1] == 1024 && hits[0][3] == 1024 && hits[1][0] == 1024 && hits[1][2] == 1024,
	      "%u %u %u %u", hits[0][1], hits[0][3], hits[1][0], hits[1][2]);
	CHECK("pick: never a reserved VL", !hits[0][0] && !hits[0][2] && !hits[1][1] && !hits[1][3], "picked one");
	fr[0] = 0;
	CHECK("pick: a full port is passed over", !dc_cosy_pick(fr, 2, 0xffffffffU, &cand, &vl) && cand == 1 &&
	      vl == 2, "cand %u vl %u", cand, vl);
}

/*
 * The fabric of Fig. 1a/1c, by hand: spines S1, S2; leaves A (h1, h2), B
 * (h3), C (h5).  Ports: a leaf's 0 and 1 go to S1 and S2, 2 and 3 to its
 * hosts; a spine's 0, 1, 2 to A, B, C.  One switch step is what
 * bpf/cosy.bpf.c does with an rsvp: free masks of the candidate ports,
 * dc_cosy_pick, dc_cosy_reserve mapped to (arrival port, arrival vl).
 */
enum { S1, S2, A, B, C, NSW };
struct sw {
	struct dc_cosy_vls port[4];
};
struct fab {
	struct sw sw[NSW];
	__u32 k;
	__u64 now_ns, life_ns;
};

struct hopres {
	int sw, port, vl;	/* where the rsvp reserved */
};

/* One rsvp step at switch w: arrival (in_port, in_vl); candidates. */
static int step(struct fab *f, int w, int in_port, int in_vl, const int *cand, int ncand, __u64 msg,
		__u32 seq, __u32 rnd, struct hopres *out)
{
	__u64 fr[DC_COSY_CAND_MAX];
	__u32 c, vl;
	bool rec;

	for (int i = 0; i < ncand; i++)
		fr[i] = dc_cosy_free_mask(&f->sw[w].port[cand[i]], f->k, f->now_ns);
	if (dc_cosy_pick(fr, (__u32)ncand, rnd, &c, &vl))
		return -1;
	if (dc_cosy_reserve(&f->sw[w].port[cand[c]], f->k, vl, msg, seq, f->now_ns, f->life_ns,
			    (__u16)in_port, (__u8)in_vl, &rec))
		return -2;
	*out = (struct hopres){ w, cand[c], (int)vl };
	return 0;
}

/* The receiver-bound reject or the complete: from the hop list's end back
 * to its start, freeing each VL its (msg, seq) holds. */
static int release_path(struct fab *f, const struct hopres *h, int n, __u64 msg, __u32 seq)
{
	int freed = 0;

	for (int i = n - 1; i >= 0; i--)
		freed += dc_cosy_release(&f->sw[h[i].sw].port[h[i].port], f->k, (__u32)h[i].vl, msg, seq,
					 f->now_ns) == DC_COSY_VL_OK;
	return freed;
}

static __u64 bits(const struct fab *f)
{
	__u64 n = 0;

	for (int w = 0; w < NSW; w++)
		for (int p = 0; p < 4; p++)
			n += dc_cosy_popcount(f->sw[w].port[p].bitmap & ~dc_cosy_free_mask(&f->sw[w].port[p], f->k,
											    f->now_ns));
	return n;
}

static void test_admission(__u32 k)
{
	struct fab f;
	struct hopres m1[3], m2[3];
	char name[128];
	int rc, n2 = 0;

	memset(&f, 0, sizeof(f));
	f.k = k;
	f.now_ns = 1000000;
	f.life_ns = 1496 * US;
	/* Message 1, h1 -> h3: rsvp from h3 (slot 0) into B port 2, up to S1
	 * (forced), down to A, out to h1 (port 2). */
	rc = step(&f, B, 2, 0, (int[]){ 0 }, 1, 1, 111, 0, &m1[0]);
	if (!rc)
		rc = step(&f, S1, 1, m1[0].vl, (int[]){ 0 }, 1, 1, 111, 0, &m1[1]);
	if (!rc)
		rc = step(&f, A, 0, m1[1].vl, (int[]){ 2 }, 1, 1, 111, 0, &m1[2]);
	snprintf(name, sizeof(name), "admission K=%u: message 1 (h1->h3 via S1) reserves B, S1, A", k);
	CHECK(name, rc == 0 && bits(&f) == 3, "rc %d, %llu VLs", rc, (unsigned long long)bits(&f));
	/* Message 2, h2 -> h5: rsvp from h5 into C port 2, C forced to S1. */
	rc = step(&f, C, 2, 0, (int[]){ 0 }, 1, 2, 222, 0x80000000U, &m2[n2]);
	if (!rc) {
		n2++;
		rc = step(&f, S1, 2, m2[0].vl, (int[]){ 0 }, 1, 2, 222, 0x80000000U, &m2[n2]);
	}
	if (k == 1) {
		snprintf(name, sizeof(name), "admission K=1: S1's only VL to A is taken: blocking in the network");
		CHECK(name, n2 == 1 && rc == -1, "n2 %d rc %d", n2, rc);
		/* The reject toward the receiver frees C's uplink VL; the one
		 * toward the sender (via A) touches nothing. */
		CHECK_EQ("admission K=1: the receiver-bound reject frees C's VL", release_path(&f, m2, n2, 2, 222), 1);
		CHECK_EQ("admission K=1: message 1's three VLs stay", bits(&f), 3);
		/* the path via S2 was free all along */
		CHECK_EQ("admission K=1: C's uplink to S2 was free", dc_cosy_free_mask(&f.sw[C].port[1], 1, f.now_ns),
			 1);
	} else {
		if (!rc) {
			n2++;
			rc = step(&f, A, 0, m2[1].vl, (int[]){ 3 }, 1, 2, 222, 0x80000000U, &m2[n2]);
			n2 += !rc;
		}
		snprintf(name, sizeof(name), "admission K=%u: message 2 admitted beside message 1 at S1", k);
		CHECK(name, rc == 0 && n2 == 3 && bits(&f) == 6 && m2[1].vl != m1[1].vl, "rc %d n2 %d bits %llu",
		      rc, n2, (unsigned long long)bits(&f));
		/* Data of message 2 comes into S1 from A (the rsvp's egress
		 * port) and leaves toward C on the VL C reserved. */
		CHECK("admission: S1 maps message 2 to (port C, C's VL)",
		      f.sw[S1].port[0].vl[m2[1].vl].out_port == 2 &&
		      f.sw[S1].port[0].vl[m2[1].vl].out_vl == m2[0].vl, "port %u vl %u",
		      f.sw[S1].port[0].vl[m2[1].vl].out_port, f.sw[S1].port[0].vl[m2[1].vl].out_vl);
		snprintf(name, sizeof(name), "admission K=%u: complete of message 2 frees its 3 VLs", k);
		CHECK_EQ(name, release_path(&f, m2, 3, 2, 222), 3);
		snprintf(name, sizeof(name), "admission K=%u: a stale complete frees nothing", k);
		CHECK_EQ(name, release_path(&f, m2, 3, 2, 222), 0);
	}
	snprintf(name, sizeof(name), "admission K=%u: a complete with message 2's id frees none of message 1's", k);
	CHECK_EQ(name, release_path(&f, m1, 3, 2, 222) + release_path(&f, m1, 3, 1, 112), 0);
	snprintf(name, sizeof(name), "admission K=%u: complete of message 1 clears every VL bit", k);
	CHECK(name, release_path(&f, m1, 3, 1, 111) == 3 && bits(&f) == 0, "%llu left",
	      (unsigned long long)bits(&f));

	/* A lost complete: message 1 again; nothing frees it, so it holds its
	 * VLs until δ_cosy after the reservation, then they are free. */
	rc = step(&f, B, 2, 0, (int[]){ 0 }, 1, 3, 333, 0, &m1[0]);
	rc |= step(&f, S1, 1, m1[0].vl, (int[]){ 0 }, 1, 3, 333, 0, &m1[1]);
	rc |= step(&f, A, 0, m1[1].vl, (int[]){ 2 }, 1, 3, 333, 0, &m1[2]);
	f.now_ns += f.life_ns - 1;
	snprintf(name, sizeof(name), "expiry K=%u: VLs held until δ_cosy (1 ns before)", k);
	CHECK(name, rc == 0 && bits(&f) == 3, "rc %d bits %llu", rc, (unsigned long long)bits(&f));
	f.now_ns += 1;
	snprintf(name, sizeof(name), "expiry K=%u: at δ_cosy every VL of the lost complete is free", k);
	CHECK_EQ(name, bits(&f), 0);
	rc = step(&f, C, 2, 0, (int[]){ 0 }, 1, 4, 444, 0, &m2[0]);
	rc |= step(&f, S1, 2, m2[0].vl, (int[]){ 0 }, 1, 4, 444, 0, &m2[1]);
	snprintf(name, sizeof(name), "expiry K=%u: a new rsvp takes S1's expired VL to A", k);
	CHECK(name, rc == 0 && f.sw[S1].port[0].vl[m2[1].vl].msg_id == 4, "rc %d", rc);
	snprintf(name, sizeof(name), "expiry K=%u: the late complete does not free the new holder's VL", k);
	CHECK(name, release_path(&f, m1, 3, 3, 333) == 0 && bits(&f) == 2, "bits %llu",
	      (unsigned long long)bits(&f));
}

int main(void)
{
	test_lemma33();
	test_budget();
	test_f();
	test_header();
	test_book();
	test_admission(1);
	test_admission(2);
	return check_failed;
}
