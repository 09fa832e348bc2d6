// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * Reconfigurable networks (include/dcbpf/rdcn.h, loader/rdcn/): slot
 * arithmetic at the day/night edges and across period wraps, bad
 * configurations and slots refused with their reason, the flip word of the
 * double-buffered schedule and its writer, the generators (round robin
 * with and without self-loops, Mars' de Bruijn graphs, Vermilion's
 * Alg. 6/7) checked slot by slot against their emulated graphs
 * (Corollary 1).  Files, bounds and the writer: test_rdcn_io.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "rand.h"
#include "rdcn/rdcn.h"

static struct dc_rs S, S2;
static struct dc_err err;
static __u16 cnt[DC_RD_TORS_MAX][DC_RD_TORS_MAX];

#define NEAR(name, a, b, tol) \
	CHECK(name, fabs((double)(a) - (double)(b)) <= (tol), "%.6f != %.6f", (double)(a), (double)(b))

static void test_where(void)
{
	/* §2.4's timing: 225 µs day, 20 µs night, 24 matchings per week */
	struct dc_rd_cfg c = { .epoch_ns = 1000000, .slot_ns = 245000, .day_ns = 225000, .period = 24,
			       .ntors = 25, .nup = 1 };
	__u32 slot = 99;
	__u64 left = 0;

	CHECK_EQ("where: valid config", dc_rd_cfg_check(&c), DC_RD_OK);
	CHECK("where: before the epoch: nothing", dc_rd_where(&c, 999999, &slot, &left) == -1, "");
	CHECK("where: at the epoch: slot 0, day, 225000 ns left",
	      dc_rd_where(&c, 1000000, &slot, &left) == 1 && slot == 0 && left == 225000, "slot %u left %llu",
	      slot, (unsigned long long)left);
	CHECK("where: last ns of the day: 1 ns left", dc_rd_where(&c, 1224999, &slot, &left) == 1 && left == 1,
	      "left %llu", (unsigned long long)left);
	CHECK("where: first ns of the night", dc_rd_where(&c, 1225000, &slot, &left) == 0 && slot == 0,
	      "slot %u", slot);
	CHECK("where: last ns of the night", dc_rd_where(&c, 1244999, &slot, &left) == 0 && slot == 0, "");
	CHECK("where: next slot's day", dc_rd_where(&c, 1245000, &slot, &left) == 1 && slot == 1 &&
	      left == 225000, "slot %u", slot);
	CHECK("where: the period wraps to slot 0",
	      dc_rd_where(&c, 1000000 + 24 * 245000ULL, &slot, &left) == 1 && slot == 0, "slot %u", slot);
	CHECK("where: slot 23 just before the wrap",
	      dc_rd_where(&c, 1000000 + 24 * 245000ULL - 1, &slot, &left) == 0 && slot == 23, "slot %u", slot);
	{
		__u64 now = 1000000 + 1000000000000ULL, t = now - 1000000;
		__u32 want_slot = (__u32)((t / 245000) % 24);
		int want_day = t % 245000 < 225000;

		CHECK("where: 10^12 ns later", dc_rd_where(&c, now, &slot, &left) == want_day && slot == want_slot,
		      "slot %u want %u", slot, want_slot);
	}
	CHECK_EQ("where: next slot start", dc_rd_next_slot_ns(&c, 1000001), 1245000);
	CHECK_EQ("where: next period boundary", dc_rd_next_period_ns(&c, 1000001), 1000000 + 24 * 245000ULL);
	CHECK_EQ("where: a boundary is its own next", dc_rd_next_period_ns(&c, 1000000 + 48 * 245000ULL),
		 1000000 + 48 * 245000ULL);
	CHECK_EQ("where: before the epoch the next boundary is the epoch", dc_rd_next_period_ns(&c, 5), 1000000);
	c.slot_ns = 0;
	CHECK("where: slot_ns 0 connects nothing", dc_rd_where(&c, 2000000, &slot, &left) == -1, "");
}

static void test_cfg_bad(void)
{
	static const struct {
		const char *name;
		struct dc_rd_cfg c;
		int bad;
	} cases[] = {
		{ "slot 0", { 0, 0, 0, 4, 4, 1 }, DC_RD_BAD_SLOT },
		{ "day = slot (no night)", { 0, 100, 100, 4, 4, 1 }, DC_RD_BAD_DAY },
		{ "day 0", { 0, 100, 0, 4, 4, 1 }, DC_RD_BAD_DAY },
		{ "period 0", { 0, 100, 90, 0, 4, 1 }, DC_RD_BAD_PERIOD },
		{ "period 257", { 0, 100, 90, 257, 4, 1 }, DC_RD_BAD_PERIOD },
		{ "one ToR", { 0, 100, 90, 4, 1, 1 }, DC_RD_BAD_TORS },
		{ "65 ToRs", { 0, 100, 90, 4, 65, 1 }, DC_RD_BAD_TORS },
		{ "no uplink", { 0, 100, 90, 4, 4, 0 }, DC_RD_BAD_UP },
		{ "9 uplinks", { 0, 100, 90, 4, 4, 9 }, DC_RD_BAD_UP },
		{ "slot x period overflows", { 0, 1ULL << 60, 90, 4, 4, 1 }, DC_RD_BAD_WRAP },
		{ "epoch near 2^63", { 1ULL << 62, 100, 90, 4, 4, 1 }, DC_RD_BAD_WRAP },
	};
	char name[96];
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(name, sizeof(name), "cfg refused: %s (%s)", cases[i].name, dc_rd_bad_str(cases[i].bad));
		CHECK_EQ(name, dc_rd_cfg_check(&cases[i].c), cases[i].bad);
	}
}

static void test_slot_check(void)
{
	struct dc_rd_slot s;
	__u32 bu, bt, i;

	memset(&s, DC_RD_IDLE, sizeof(s));
	for (i = 0; i < 4; i++) {
		s.peer[0][i] = (__u8)((i + 1) % 4);
		s.peer[1][i] = (__u8)((i + 2) % 4);
	}
	CHECK_EQ("slot: two derangements are fine", dc_rd_slot_check(&s, 4, 2, false, &bu, &bt), DC_RD_OK);
	CHECK_EQ("slot: 0 -> 1 matched on uplink 0", dc_rd_matched(&s, 2, 0, 1), 0);
	CHECK_EQ("slot: 0 -> 2 matched on uplink 1", dc_rd_matched(&s, 2, 0, 2), 1);
	CHECK("slot: 0 -> 3 not matched", dc_rd_matched(&s, 2, 0, 3) == -1, "");
	CHECK("slot: uplink 1 not counted with nup 1", dc_rd_matched(&s, 1, 0, 2) == -1, "");
	CHECK("slot: a ToR is never matched to itself", dc_rd_matched(&s, 2, 0, 0) == -1, "");
	CHECK_EQ("slot: peer lookup", dc_rd_peer(&s, 1, 3), 1);
	CHECK_EQ("slot: peer beyond the arrays is idle", dc_rd_peer(&s, 9, 3), DC_RD_IDLE);
	s.peer[1][3] = 2;
	CHECK("slot: a duplicate target refused where it is",
	      dc_rd_slot_check(&s, 4, 2, false, &bu, &bt) == DC_RD_BAD_PERM && bu == 1 && bt == 3, "%u %u", bu, bt);
	s.peer[1][3] = 1;
	s.peer[0][0] = 0;
	s.peer[0][3] = 1;
	CHECK_EQ("slot: a self-loop refused when not allowed", dc_rd_slot_check(&s, 4, 2, false, &bu, &bt),
		 DC_RD_BAD_SELF);
	CHECK_EQ("slot: ... and allowed when it is", dc_rd_slot_check(&s, 4, 2, true, &bu, &bt), DC_RD_OK);
	s.peer[0][3] = 7;
	CHECK_EQ("slot: a peer outside the fabric", dc_rd_slot_check(&s, 4, 2, true, &bu, &bt), DC_RD_BAD_PEER);
	s.peer[0][3] = 0;
	s.peer[0][0] = 1;
	CHECK_EQ("slot: repaired", dc_rd_slot_check(&s, 4, 2, true, &bu, &bt), DC_RD_OK);
	s.peer[0][5] = 1;
	CHECK_EQ("slot: an entry beyond the ToRs must be idle", dc_rd_slot_check(&s, 4, 2, true, &bu, &bt),
		 DC_RD_BAD_UNUSED);
}

static void test_flip_word(void)
{
	__u64 w = dc_rd_flip_make(5000, 1);

	CHECK_EQ("flip: zero word is buffer 0 forever", dc_rd_live_buf(0, 12345), 0);
	CHECK_EQ("flip: before the flip, the other buffer", dc_rd_live_buf(w, 4999), 0);
	CHECK_EQ("flip: at the flip, the new one", dc_rd_live_buf(w, 5000), 1);
	CHECK_EQ("flip: time kept", dc_rd_flip_at_ns(w), 5000);
	w = dc_rd_flip_make(7000, 0);
	CHECK("flip: back to buffer 0", dc_rd_live_buf(w, 6999) == 1 && dc_rd_live_buf(w, 7000) == 0, "");
	CHECK_EQ("flip: sched keys of buffer 1", dc_rd_sched_key(1, 3), DC_RD_SLOTS_MAX + 3);
}

static int rr_check_pairs(const struct dc_rs *s, __u32 n, __u32 per_pair, bool self)
{
	__u32 i, j;

	dc_rs_counts(s, cnt);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (cnt[i][j] != (i == j ? (self ? per_pair : 0) : per_pair))
				return 0;
	return 1;
}

static void test_rr(void)
{
	__u32 t, i;
	int ok = 1;

	CHECK_EQ("rr n=5: generated", dc_rs_rr(&S, 5, 1, false, &err), 0);
	S.cfg.slot_ns = 1000000;
	S.cfg.day_ns = 900000;
	CHECK_EQ("rr n=5: 4 slots", S.cfg.period, 4);
	for (t = 0; t < 4; t++)
		for (i = 0; i < 5; i++)
			ok &= S.slot[t].peer[0][i] == (i + t + 1) % 5;
	CHECK("rr n=5: sigma_t(i) = (i+t+1) mod 5", ok, "");
	CHECK_EQ("rr n=5: every slot a derangement, Corollary 1 = complete graph", dc_rs_validate(&S, false, &err), 0);
	CHECK("rr n=5: each ordered pair once per period", rr_check_pairs(&S, 5, 1, false), "");
	/* ĉ = (1 - Δ_u)/Γ · c = 0.9 · 1 Gbit/s / 4 */
	CHECK_EQ("rr n=5: Corollary 1 capacity per pair", dc_rs_cap_kbps(&S, 1000000, 1), 225000);
	CHECK_EQ("rr n=5: diameter 1", dc_rs_diameter(&S), 1);

	CHECK_EQ("rr §2.4: 25 ToRs", dc_rs_rr(&S, 25, 1, false, &err), 0);
	S.cfg.slot_ns = 245000;
	S.cfg.day_ns = 225000;
	CHECK_EQ("rr §2.4: 24 matchings", S.cfg.period, 24);
	CHECK("rr §2.4: every pair up once per week, never self", rr_check_pairs(&S, 25, 1, false) &&
	      dc_rs_validate(&S, false, &err) == 0, "%s", err.msg);

	CHECK_EQ("rr-self 16 x 2 uplinks: generated", dc_rs_rr(&S, 16, 2, true, &err), 0);
	S.cfg.slot_ns = 100000;
	S.cfg.day_ns = 90000;
	CHECK_EQ("rr-self 16 x 2: 8 slots (Table 7.1's complete graph)", S.cfg.period, 8);
	CHECK("rr-self: refused where self-loops are not allowed", dc_rs_validate(&S, false, &err) != 0 &&
	      strstr(err.msg, "self-loop"), "%s", err.msg);
	CHECK("rr-self: every pair and every self once", dc_rs_validate(&S, true, &err) == 0 &&
	      rr_check_pairs(&S, 16, 1, true), "%s", err.msg);

	dc_err_clear(&err);
	CHECK("rr: 5 matchings do not fill 2 uplinks", dc_rs_rr(&S, 6, 2, false, &err) == EXIT_USAGE &&
	      strstr(err.msg, "multiple of 2"), "%s", err.msg);
	CHECK("rr: one ToR refused", dc_rs_rr(&S, 1, 1, false, &err) != 0 && strstr(err.msg, "tors 1"), "%s",
	      err.msg);
	CHECK("rr: 9 uplinks refused", dc_rs_rr(&S, 8, 9, false, &err) != 0 && strstr(err.msg, "uplinks 9"), "%s",
	      err.msg);
}

static void debruijn(__u32 n, __u32 d, __u16 w[DC_RD_TORS_MAX][DC_RD_TORS_MAX])
{
	__u32 i, a;

	memset(w, 0, sizeof(__u16) * DC_RD_TORS_MAX * DC_RD_TORS_MAX);
	for (i = 0; i < n; i++)
		for (a = 0; a < d; a++)
			w[i][(i * d + a) % n]++;
}

static void test_mars(void)
{
	static const __u8 known4[4][16] = {
		{ 0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15 },
		{ 1, 5, 9, 13, 0, 4, 8, 12, 3, 7, 11, 15, 2, 6, 10, 14 },
		{ 2, 6, 10, 14, 3, 7, 11, 15, 0, 4, 8, 12, 1, 5, 9, 13 },
		{ 3, 7, 11, 15, 2, 6, 10, 14, 1, 5, 9, 13, 0, 4, 8, 12 },
	};
	static const struct { __u32 n, d, diam; } diam[] = { { 16, 4, 2 }, { 16, 2, 4 }, { 64, 8, 2 }, { 64, 4, 3 },
							     { 9, 3, 2 } };
	char name[96];
	__u32 i, t, u, selfs = 0;

	/* Table 7.1's Mars: n_t 16, n_u 2, d 4 -> Γ = 2 */
	CHECK_EQ("mars 16/4 x 2: generated", dc_rs_mars(&S, 16, 2, 4, 1, &err), 0);
	S.cfg.slot_ns = 100000;
	S.cfg.day_ns = 90000;
	CHECK_EQ("mars 16/4 x 2: period d/n_u = 2", S.cfg.period, 2);
	CHECK("mars 16/4: every slot a permutation per uplink; Corollary 1 = de Bruijn(16, 4)",
	      dc_rs_validate(&S, true, &err) == 0, "%s", err.msg);
	for (t = 0; t < 2; t++)
		for (u = 0; u < 2; u++)
			for (i = 0; i < 16; i++)
				selfs += S.slot[t].peer[u][i] == i;
	CHECK_EQ("mars 16/4: four self-loops (0, 5, 10, 15)", selfs, 4);
	/* 0.9 · 400 Gbit/s / 2 per link of the emulated graph */
	CHECK_EQ("mars 16/4: Corollary 1 capacity per edge", dc_rs_cap_kbps(&S, 400000000, 1), 180000000);
	for (i = 0; i < sizeof(diam) / sizeof(diam[0]); i++) {
		snprintf(name, sizeof(name), "mars: de Bruijn(%u, %u) decomposes, diameter %u", diam[i].n, diam[i].d,
			 diam[i].diam);
		CHECK(name, dc_rs_mars(&S, diam[i].n, 1, diam[i].d, 7, &err) == 0 &&
		      dc_rs_validate(&S, true, &err) == 0 && dc_rs_diameter(&S) == (int)diam[i].diam, "%s diam %d",
		      err.msg, dc_rs_diameter(&S));
	}
	CHECK_EQ("mars 9/3: period 3", S.cfg.period, 3);
	/* the four matchings given for de Bruijn(16, 4) are one decomposition */
	memset(&S2, 0, sizeof(S2));
	memset(S2.slot, DC_RD_IDLE, sizeof(S2.slot));
	S2.cfg = (struct dc_rd_cfg){ 0, 100000, 90000, 4, 16, 1 };
	for (t = 0; t < 4; t++)
		memcpy(S2.slot[t].peer[0], known4[t], 16);
	S2.has_want = true;
	debruijn(16, 4, S2.want);
	CHECK("mars: a known decomposition of de Bruijn(16, 4) validates", dc_rs_validate(&S2, true, &err) == 0 &&
	      dc_rs_diameter(&S2) == 2, "%s", err.msg);
	/* a schedule that is all permutations but not the graph: Corollary 1 */
	for (i = 0; i < 16; i++)
		S2.slot[3].peer[0][i] = (__u8)((i + 1) % 16);
	CHECK("mars: another permutation in a slot breaks Corollary 1",
	      dc_rs_validate(&S2, true, &err) == EXIT_ERR && strstr(err.msg, "Corollary 1"), "%s", err.msg);
	S2.slot[3].peer[0][0] = 2;
	CHECK("mars: a non-permutation named by slot, uplink and ToR",
	      dc_rs_validate(&S2, true, &err) == EXIT_USAGE && strstr(err.msg, "slot 3, uplink 0, ToR 1"), "%s",
	      err.msg);
	CHECK("mars: d not a multiple of n_u refused", dc_rs_mars(&S, 16, 2, 3, 1, &err) != 0 &&
	      strstr(err.msg, "not a multiple"), "%s", err.msg);
	CHECK("mars: d above n_t refused", dc_rs_mars(&S, 8, 1, 9, 1, &err) != 0 && strstr(err.msg, "degree 9"),
	      "%s", err.msg);
	/* in-degree of v: gcd(d, n) bases per residue, d/gcd residues: d */
	CHECK("mars: de Bruijn(6, 4) is 4-regular too (n not a power of d)", dc_rs_mars(&S, 6, 1, 4, 1, &err) == 0 &&
	      dc_rs_validate(&S, true, &err) == 0 && S.cfg.period == 4, "%s", err.msg);
	{
		static __u16 w[DC_RD_TORS_MAX][DC_RD_TORS_MAX];
		static __u8 out[4][DC_RD_TORS_MAX];

		debruijn(6, 2, w);
		w[0][0]++;
		CHECK("decompose: a graph that is not regular refused", dc_rs_decompose(6, w, 2, out, &err) != 0 &&
		      strstr(err.msg, "not 2-regular: ToR 0 has 3 links out"), "%s", err.msg);
	}
	/* the seed moves matchings between slots, never changes the graph */
	dc_rs_mars(&S, 16, 2, 4, 1, &err);
	dc_rs_mars(&S2, 16, 2, 4, 2, &err);
	S2.cfg.slot_ns = 100000;
	S2.cfg.day_ns = 90000;
	CHECK("mars: another seed, the same emulated graph", dc_rs_validate(&S2, true, &err) == 0, "%s", err.msg);
}

/* Single-hop throughput of a schedule for a demand (hose-normalised):
 * min over demanded pairs of (links / (k·n)) / (m / max row or column sum). */
static double single_hop(const struct dc_rs *s, const double *m, __u32 n)
{
	double mx = 0, th = 1e9;
	__u32 i, j, slots = s->cfg.period * s->cfg.nup;

	for (i = 0; i < n; i++) {
		double rs = 0, cs = 0;

		for (j = 0; j < n; j++)
			if (i != j) {
				rs += m[i * n + j];
				cs += m[j * n + i];
			}
		mx = fmax(mx, fmax(rs, cs));
	}
	dc_rs_counts(s, cnt);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (i != j && m[i * n + j] > 0)
				th = fmin(th, ((double)cnt[i][j] / slots) / (m[i * n + j] / mx));
	return th;
}

static void test_vermilion(void)
{
	double ring[16] = { 0 }, uni[16], rot[16] = { 0 }, rnd[64 * 64];
	static __u16 e[DC_RD_TORS_MAX][DC_RD_TORS_MAX], r[DC_RD_TORS_MAX][DC_RD_TORS_MAX];
	__u32 i, j, seed;
	int ok;

	for (i = 0; i < 4; i++) {
		ring[i * 4 + (i + 1) % 4] = 1;
		for (j = 0; j < 4; j++)
			uni[i * 4 + j] = i == j ? 0 : 1.0 / 3;
		rot[i * 4 + (i + 1) % 4] = 0.5;
		rot[i * 4 + (i + 2) % 4] = 1.0 / 3;
		rot[i * 4 + (i + 3) % 4] = 1.0 / 6;
	}
	/* ring, n = 4, d̂ = 1, k = 3: R = 8 on ring pairs, E = 9 there, 1 elsewhere */
	CHECK_EQ("vermilion ring: graph", dc_rs_vermilion_graph(4, ring, 3, 1, 1, e, r, &err), 0);
	ok = 1;
	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++)
			ok &= e[i][j] == (j == (i + 1) % 4 ? 9 : 1) && r[i][j] == (j == (i + 1) % 4 ? 8 : 0);
	CHECK("vermilion ring: E = 9 on the ring, 1 elsewhere (self included)", ok, "");
	CHECK("vermilion ring: 12 matchings, validated", dc_rs_vermilion(&S, 4, 1, ring, 3, 1, 1, &err) == 0 &&
	      S.cfg.period == 12, "%s", err.msg);
	S.cfg.slot_ns = 1000000;
	S.cfg.day_ns = 999000;
	CHECK_EQ("vermilion ring: every slot a permutation, Corollary 1 = E", dc_rs_validate(&S, true, &err), 0);
	NEAR("vermilion ring: single-hop throughput 9/12", single_hop(&S, ring, 4), 0.75, 1e-9);

	CHECK_EQ("vermilion uniform: generated", dc_rs_vermilion(&S, 4, 1, uni, 3, 1, 1, &err), 0);
	S.cfg.slot_ns = 1000000;
	S.cfg.day_ns = 999000;
	CHECK_EQ("vermilion uniform: validated", dc_rs_validate(&S, true, &err), 0);
	dc_rs_vermilion_graph(4, uni, 3, 1, 1, e, r, &err);
	ok = 1;
	for (i = 0; i < 4; i++) {
		__u32 rs = 0, cs = 0;

		for (j = 0; j < 4; j++) {
			rs += r[i][j];
			cs += r[j][i];
			if (i != j)
				ok &= r[i][j] == 2 || r[i][j] == 3;
		}
		ok &= rs == 8 && cs == 8;
	}
	CHECK("vermilion uniform: R entries 2 or 3 (from 8/3), rows and columns keep their sum 8", ok, "");
	NEAR("vermilion uniform: single-hop throughput 0.75", single_hop(&S, uni, 4), 0.75, 1e-9);

	CHECK("vermilion rotated rows k=3: >= 2/3 (0.75)", dc_rs_vermilion(&S, 4, 1, rot, 3, 1, 1, &err) == 0 &&
	      fabs(single_hop(&S, rot, 4) - 0.75) < 1e-9, "%f", single_hop(&S, rot, 4));
	CHECK("vermilion rotated rows k=6: >= 5/6 (0.875)", dc_rs_vermilion(&S, 4, 1, rot, 6, 1, 1, &err) == 0 &&
	      S.cfg.period == 24 && fabs(single_hop(&S, rot, 4) - 0.875) < 1e-9, "%f", single_hop(&S, rot, 4));
	CHECK("vermilion 2 uplinks: 12 matchings in 6 slots", dc_rs_vermilion(&S, 4, 2, ring, 3, 1, 1, &err) == 0 &&
	      S.cfg.period == 6, "%s", err.msg);

	/* Theorem 22 on random skewed demands: every pair (k-1)/k or better */
	ok = 1;
	for (seed = 1; seed <= 20; seed++) {
		__u64 st = seed * 7919;
		__u32 n = 4 + (__u32)dc_rand_below(&st, 13);

		for (i = 0; i < n * n; i++)
			rnd[i] = dc_rand_unit(&st) < 0.3 ? pow(dc_rand_unit(&st), 3) * 100 : 0;
		if (dc_rs_vermilion(&S, n, 1, rnd, 3, 1, seed, &err)) {
			ok = 0;
			printf("# seed %u: %s\n", seed, err.msg);
			break;
		}
		S.cfg.slot_ns = 1000;
		S.cfg.day_ns = 900;
		if (dc_rs_validate(&S, true, &err) || single_hop(&S, rnd, n) < 2.0 / 3 - 1e-9) {
			ok = 0;
			printf("# seed %u n %u: %s %f\n", seed, n, err.msg, single_hop(&S, rnd, n));
			break;
		}
	}
	CHECK("vermilion: 20 random demands, valid schedules, single-hop throughput >= 2/3", ok, "");

	/* Alg. 7: γ = k/ℓ < 2 ignores the prediction (complete graph) */
	CHECK("vermilion k=3 l=2 (γ 1.5): complete graph, 3 links per pair",
	      dc_rs_vermilion(&S, 4, 1, ring, 3, 2, 1, &err) == 0 && S.complete && rr_check_pairs(&S, 4, 3, true), "%s",
	      err.msg);
	CHECK("vermilion k=4 l=2 (γ 2): ring pairs get (k-ℓ)·n = 8 + 2 residual",
	      dc_rs_vermilion(&S, 4, 1, ring, 4, 2, 1, &err) == 0 && !S.complete && S.want[0][1] == 10 &&
	      S.want[0][2] == 2 && S.cfg.period == 16, "%s %u", err.msg, S.want[0][1]);
	CHECK("vermilion k=1 l=1 (γ 1): one link per pair, self included (a round robin)",
	      dc_rs_vermilion(&S, 4, 1, ring, 1, 1, 1, &err) == 0 && S.complete && S.cfg.period == 4 &&
	      rr_check_pairs(&S, 4, 1, true), "%s", err.msg);
	CHECK("vermilion: l above k refused", dc_rs_vermilion(&S, 4, 1, ring, 3, 4, 1, &err) != 0 &&
	      strstr(err.msg, "k 3, l 4"), "%s", err.msg);
	CHECK("vermilion: k = 0 refused", dc_rs_vermilion(&S, 4, 1, ring, 0, 1, 1, &err) != 0, "");
	{
		/* Alg. 8: r uniform on 1..γ */
		unsigned int hist[6] = { 0 }, bad_r = 0;

		for (seed = 1; seed <= 6000; seed++) {
			__u32 r = dc_rs_random_trust(5, seed);

			if (r < 1 || r > 5)
				bad_r++;
			else
				hist[r]++;
		}
		ok = !bad_r;
		for (i = 1; i <= 5; i++)
			ok &= hist[i] > 1050 && hist[i] < 1350;
		CHECK("vermilion alg. 8: r in 1..5, each value 1200 +- 150 times in 6000 draws", ok,
		      "%u %u %u %u %u", hist[1], hist[2], hist[3], hist[4], hist[5]);
		CHECK_EQ("vermilion alg. 8: γ = 1 always draws 1", dc_rs_random_trust(1, 77), 1);
	}
	CHECK("vermilion: 15 matchings on 2 uplinks refused", dc_rs_vermilion(&S, 5, 2, rnd, 3, 1, 1, &err) != 0 &&
	      strstr(err.msg, "multiple of the 2 uplinks"), "%s", err.msg);
	memset(rnd, 0, sizeof(rnd));
	CHECK("vermilion: no demand at all: ℓ residual only (a round robin)",
	      dc_rs_vermilion(&S, 4, 1, rnd, 3, 1, 1, &err) == 0 && S.want[0][1] + S.want[0][2] + S.want[0][3] +
	      S.want[0][0] == 12, "%s", err.msg);
}

int main(void)
{
	test_where();
	test_cfg_bad();
	test_slot_check();
	test_flip_word();
	test_rr();
	test_mars();
	test_vermilion();
	return check_failed;
}
