// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * Ethereal assignment core (include/dcbpf/ethereal.h) against Theorem 4
 * and Algorithm 3 (Addanki thesis §3.2): equal per-uplink load for every
 * n = 1..64, s = 1..16, both as Algorithm 3's batch and as the greedy
 * rule applied one (sub-)flow at a time; the greedy choice from uneven
 * states, its tie-break, and the gcd / r = 0 / s = 1 / n < s edges.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "dcbpf/ethereal.h"

#define N_MAX 64

static __u32 ref_gcd(__u32 a, __u32 b)
{
	__u32 g, d;

	if (!a)
		return b;
	if (!b)
		return a;
	g = 1;
	for (d = 1; d <= a && d <= b; d++)
		if (a % d == 0 && b % d == 0)
			g = d;
	return g;
}

static void test_gcd(void)
{
	__u32 a, b, bad = 0;

	for (a = 0; a <= 64; a++)
		for (b = 0; b <= 64; b++)
			if (dc_eth_gcd(a, b) != ref_gcd(a, b))
				bad++;
	CHECK_EQ("gcd: equals the divisor search for a, b in 0..64", bad, 0);
	CHECK_EQ("gcd(0, 0) = 0", dc_eth_gcd(0, 0), 0);
	/* worst case for Euclid on u32: consecutive Fibonacci numbers */
	CHECK_EQ("gcd(F47, F46) = 1 within the step bound", dc_eth_gcd(2971215073U, 1836311903U), 1);
	CHECK_EQ("gcd(2^31, 2^20) = 2^20", dc_eth_gcd(1U << 31, 1U << 20), 1U << 20);
}

static void test_unit(void)
{
	__u32 k, bad = 0;

	for (k = 1; k <= DC_ETH_MAX_UPLINKS; k++)
		if (DC_ETH_FLOW_UNIT % k || dc_eth_weight(k) * k != DC_ETH_FLOW_UNIT)
			bad++;
	CHECK_EQ("unit: 1/k of a flow is an exact weight for k = 1..16", bad, 0);
	CHECK_EQ("unit: parts 0 weighs a whole flow", dc_eth_weight(0), DC_ETH_FLOW_UNIT);
	CHECK_EQ("unit: parts above the maximum weigh 1/16", dc_eth_weight(99),
		 DC_ETH_FLOW_UNIT / 16);
}

/*
 * Theorem 4 over the whole grid.  For each (n, s):
 *  - the plan: ⌊n/s⌋ whole per uplink, r = n mod s, s/g parts, r/g per
 *    uplink, r(s − g)/g extra flows, and it accounts for all n flows;
 *  - batch: every uplink gets exactly UNIT·n/s, i.e. n/g sub-flow units of
 *    1/(s/g) flow, the packet-spraying share;
 *  - greedy from empty: n − r whole flows then r·s/g sub-flows, each to the
 *    least-loaded uplink, gives the same loads and exactly ⌊n/s⌋ whole and
 *    r/g sub-flows on every uplink;
 *  - the split is minimal: no k < s/g lets r flows of 1/k be spread evenly.
 */
static void test_theorem4(void)
{
	__u32 n, s, u, i, k, cases = 0;
	__u32 bad_plan = 0, bad_batch = 0, bad_units = 0, bad_greedy = 0, bad_counts = 0;
	__u32 bad_min = 0, bad_total = 0;

	for (n = 1; n <= N_MAX; n++) {
		for (s = 1; s <= DC_ETH_MAX_UPLINKS; s++) {
			struct dc_eth_plan p;
			struct dc_eth_leaf batch, greedy;
			__u32 whole[DC_ETH_MAX_UPLINKS], subs[DC_ETH_MAX_UPLINKS];
			__u32 gw[DC_ETH_MAX_UPLINKS] = { 0 }, gs[DC_ETH_MAX_UPLINKS] = { 0 };
			__u32 r = n % s, g = r ? ref_gcd(r, s) : s;

			cases++;
			dc_eth_plan(n, s, &p);
			if (p.s != s || p.whole_per_uplink != n / s || p.rem != r || p.g != g ||
			    p.parts != s / g || p.subs_per_uplink != r / g ||
			    p.extra_flows != r * (s - g) / g ||
			    p.sub_weight * p.parts != DC_ETH_FLOW_UNIT)
				bad_plan++;
			/* whole flows plus split flows are the batch; the
			 * sub-flows put together are the r remaining flows */
			if (p.whole_per_uplink * s + p.rem != n ||
			    p.subs_per_uplink * s != p.rem * p.parts ||
			    p.whole_per_uplink * s + p.subs_per_uplink * s != n - r + r * (s / g) ||
			    n - r + r * (s / g) != n + p.extra_flows)
				bad_total++;

			memset(&batch, 0, sizeof(batch));
			dc_eth_batch(&batch, &p, whole, subs);
			for (u = 0; u < s; u++) {
				/* exact equality: load·s = UNIT·n */
				if (batch.load[u] * s != DC_ETH_FLOW_UNIT * n ||
				    batch.load[u] != p.load_per_uplink ||
				    whole[u] != n / s || subs[u] != r / g)
					bad_batch++;
				/* in units of 1/(s/g) flow: n/g on every uplink */
				if (batch.load[u] % p.sub_weight ||
				    batch.load[u] / p.sub_weight != n / g)
					bad_units++;
			}
			for (u = s; u < DC_ETH_MAX_UPLINKS; u++)
				if (batch.load[u])
					bad_batch++;

			memset(&greedy, 0, sizeof(greedy));
			for (i = 0; i < n - r; i++)
				gw[dc_eth_assign(&greedy, s, DC_ETH_FLOW_UNIT)]++;
			for (i = 0; i < r * p.parts; i++)
				gs[dc_eth_assign(&greedy, s, dc_eth_weight(p.parts))]++;
			for (u = 0; u < DC_ETH_MAX_UPLINKS; u++)
				if (greedy.load[u] != batch.load[u])
					bad_greedy++;
			for (u = 0; u < s; u++)
				if (gw[u] != n / s || gs[u] != r / g)
					bad_counts++;
			if (dc_eth_spread(&greedy, s))
				bad_greedy++;

			/* minimality: r·k sub-flows over s uplinks evenly
			 * needs s | r·k, first true at k = s/g */
			for (k = 1; r && k < p.parts; k++)
				if ((r * k) % s == 0)
					bad_min++;
			if (r && (r * p.parts) % s)
				bad_min++;
		}
	}
	CHECK_EQ("theorem 4: grid n = 1..64 × s = 1..16 covered", cases, 64 * 16);
	CHECK_EQ("algorithm 3: plan fields (⌊n/s⌋, r, g, s/g, r/g, extra)", bad_plan, 0);
	CHECK_EQ("algorithm 3: whole + split flows account for the batch", bad_total, 0);
	CHECK_EQ("theorem 4: batch puts exactly n/s flows on every uplink", bad_batch, 0);
	CHECK_EQ("theorem 4: n/g sub-flow units of 1/(s/g) flow on every uplink", bad_units, 0);
	CHECK_EQ("theorem 4: greedy one-by-one from empty equals the batch, spread 0", bad_greedy,
		 0);
	CHECK_EQ("theorem 4: greedy gives ⌊n/s⌋ whole and r/g sub-flows per uplink", bad_counts, 0);
	CHECK_EQ("theorem 4: s/g is the smallest even split of the remainder", bad_min, 0);
}

static void test_greedy(void)
{
	struct dc_eth_leaf l;
	__u32 i;

	/* uneven start: the least-loaded uplink wins */
	memset(&l, 0, sizeof(l));
	l.load[0] = 3 * DC_ETH_FLOW_UNIT;
	l.load[1] = 1 * DC_ETH_FLOW_UNIT;
	l.load[2] = 2 * DC_ETH_FLOW_UNIT;
	l.load[3] = 5 * DC_ETH_FLOW_UNIT;
	CHECK_EQ("greedy: loads 3,1,2,5 → uplink 1", dc_eth_pick(&l, 4), 1);
	CHECK_EQ("greedy: assign goes to uplink 1", dc_eth_assign(&l, 4, DC_ETH_FLOW_UNIT), 1);
	CHECK_EQ("greedy: uplink 1 now carries 2 flows", l.load[1], 2 * DC_ETH_FLOW_UNIT);
	/* 2,2 tie between uplinks 1 and 2: lowest index */
	CHECK_EQ("greedy: tie 3,2,2,5 → lowest index 1", dc_eth_pick(&l, 4), 1);
	/* 3,2,2,5: the flow goes to uplink 1 (tie with 2, lower index), then
	 * six more fill the valleys in the order 2,0,1,2,0,1 → 5,5,4,5 */
	{
		static const __u32 want[] = { 2, 0, 1, 2, 0, 1 };
		__u32 bad = 0;

		dc_eth_assign(&l, 4, DC_ETH_FLOW_UNIT);	/* 3,3,2,5 */
		for (i = 0; i < 6; i++)
			if (dc_eth_assign(&l, 4, DC_ETH_FLOW_UNIT) != want[i])
				bad++;
		CHECK_EQ("greedy: from 3,3,2,5 six flows go to 2,0,1,2,0,1", bad, 0);
		CHECK_EQ("greedy: loads end 5,5,4,5 (spread one flow)", dc_eth_spread(&l, 4),
			 DC_ETH_FLOW_UNIT);
		CHECK_EQ("greedy: the low one is uplink 2", l.load[2], 4 * DC_ETH_FLOW_UNIT);
	}
	/* uneven start never ends more uneven than one flow once enough
	 * flows arrive: the spread shrinks to at most one flow weight */
	memset(&l, 0, sizeof(l));
	l.load[5] = 10 * DC_ETH_FLOW_UNIT;
	for (i = 0; i < 80; i++)
		dc_eth_assign(&l, 8, DC_ETH_FLOW_UNIT);
	CHECK_EQ("greedy: from 0×7,10 (s = 8), 80 flows even out to 90/8 ±1 (spread 1)",
		 dc_eth_spread(&l, 8), DC_ETH_FLOW_UNIT);
	CHECK_EQ("greedy: the pre-loaded uplink 5 got none until the others reached it",
		 l.load[5] >= 10 * DC_ETH_FLOW_UNIT && l.load[5] <= 12 * DC_ETH_FLOW_UNIT, 1);
	/* uplinks beyond s are never chosen, even if lighter */
	memset(&l, 0, sizeof(l));
	for (i = 0; i < 3; i++)
		l.load[i] = 7;
	CHECK_EQ("greedy: uplinks ≥ s are ignored (s = 3, all loaded 7)", dc_eth_pick(&l, 3), 0);
	/* tie-break on the empty state: 0,1,2,… in order */
	{
		__u32 bad = 0;

		memset(&l, 0, sizeof(l));
		for (i = 0; i < 16; i++)
			if (dc_eth_assign(&l, 16, DC_ETH_FLOW_UNIT) != i)
				bad++;
		CHECK_EQ("tie-break: empty s = 16 fills uplinks 0..15 in order", bad, 0);
		CHECK_EQ("tie-break: the 17th flow goes back to uplink 0",
			 dc_eth_assign(&l, 16, DC_ETH_FLOW_UNIT), 0);
	}
	/* release: a finished flow leaves, the uplink is preferred again */
	memset(&l, 0, sizeof(l));
	for (i = 0; i < 4; i++)
		dc_eth_assign(&l, 4, DC_ETH_FLOW_UNIT);
	dc_eth_release(&l, 2, DC_ETH_FLOW_UNIT);
	CHECK_EQ("release: uplink 2 freed → next flow goes there", dc_eth_pick(&l, 4), 2);
	dc_eth_release(&l, 2, 5 * DC_ETH_FLOW_UNIT);
	CHECK_EQ("release: never below zero", l.load[2], 0);
	dc_eth_release(&l, 99, DC_ETH_FLOW_UNIT);
	CHECK_EQ("release: out-of-range uplink ignored", l.load[0], DC_ETH_FLOW_UNIT);
	/* saturation */
	memset(&l, 0, sizeof(l));
	l.load[0] = DC_U64_MAX - 1;
	l.load[1] = DC_U64_MAX;
	dc_eth_assign(&l, 1, DC_ETH_FLOW_UNIT);
	CHECK_EQ("saturation: load stops at 2^64 − 1", l.load[0], DC_U64_MAX);
}

static void test_edges(void)
{
	struct dc_eth_plan p;
	struct dc_eth_leaf l;
	struct dc_eth_host h;

	/* r = 0: all-to-all with s | n needs no split */
	dc_eth_plan(32, 16, &p);
	CHECK("edge r = 0: 32 over 16 → 2 whole each, nothing split",
	      p.whole_per_uplink == 2 && p.rem == 0 && p.parts == 1 && p.subs_per_uplink == 0 &&
		      p.extra_flows == 0,
	      "whole %u rem %u parts %u subs %u extra %u", p.whole_per_uplink, p.rem, p.parts,
	      p.subs_per_uplink, p.extra_flows);
	/* s = 1: one uplink takes everything, whole */
	dc_eth_plan(7, 1, &p);
	CHECK("edge s = 1: 7 flows, 7 whole on the only uplink, no split",
	      p.whole_per_uplink == 7 && p.rem == 0 && p.parts == 1 && p.extra_flows == 0,
	      "whole %u rem %u parts %u", p.whole_per_uplink, p.rem, p.parts);
	/* n < s: 4-channel ring style, 1 flow over 4 uplinks → 4 parts */
	dc_eth_plan(1, 4, &p);
	CHECK("edge n < s: 1 flow over 4 uplinks → split in 4, one quarter each",
	      p.whole_per_uplink == 0 && p.rem == 1 && p.g == 1 && p.parts == 4 &&
		      p.subs_per_uplink == 1 && p.extra_flows == 3 &&
		      p.load_per_uplink == DC_ETH_FLOW_UNIT / 4,
	      "whole %u rem %u g %u parts %u subs %u extra %u", p.whole_per_uplink, p.rem, p.g,
	      p.parts, p.subs_per_uplink, p.extra_flows);
	/* n < s with a common factor: 6 over 16 → g = 2, each flow in 8 */
	dc_eth_plan(6, 16, &p);
	CHECK("edge n < s: 6 over 16 → g = 2, 8 parts, 3 sub-flows per uplink",
	      p.g == 2 && p.parts == 8 && p.subs_per_uplink == 3 && p.extra_flows == 42,
	      "g %u parts %u subs %u extra %u", p.g, p.parts, p.subs_per_uplink, p.extra_flows);
	/* the proof's example shape: 10 over 4 → 2 whole, r = 2, g = 2, halves */
	dc_eth_plan(10, 4, &p);
	CHECK("algorithm 3: 10 over 4 → 2 whole each, 2 flows halved, 1 half each",
	      p.whole_per_uplink == 2 && p.rem == 2 && p.g == 2 && p.parts == 2 &&
		      p.subs_per_uplink == 1 && p.extra_flows == 2,
	      "whole %u rem %u g %u parts %u subs %u", p.whole_per_uplink, p.rem, p.g, p.parts,
	      p.subs_per_uplink);
	/* n = 0 and out-of-range s */
	dc_eth_plan(0, 4, &p);
	CHECK("edge n = 0: nothing assigned", p.load_per_uplink == 0 && p.parts == 1,
	      "load %llu parts %u", (unsigned long long)p.load_per_uplink, p.parts);
	dc_eth_plan(5, 0, &p);
	CHECK_EQ("edge s = 0 is clamped to 1", p.s, 1);
	dc_eth_plan(5, 40, &p);
	CHECK_EQ("edge s = 40 is clamped to 16", p.s, DC_ETH_MAX_UPLINKS);
	memset(&l, 0, sizeof(l));
	CHECK_EQ("edge s = 0 picks uplink 0", dc_eth_pick(&l, 0), 0);

	/* host view: per destination leaf, independent */
	memset(&h, 0, sizeof(h));
	h.n_uplinks = 4;
	h.n_leaves = 2;
	CHECK_EQ("host: leaf 0 first flow → uplink 0", dc_eth_host_assign(&h, 0, 1), 0);
	CHECK_EQ("host: leaf 1 is independent → uplink 0", dc_eth_host_assign(&h, 1, 1), 0);
	CHECK_EQ("host: leaf 0 second flow → uplink 1", dc_eth_host_assign(&h, 0, 1), 1);
	CHECK_EQ("host: a quarter flow weighs UNIT/4", (dc_eth_host_assign(&h, 0, 4),
							 h.leaf[0].load[2]), DC_ETH_FLOW_UNIT / 4);
	CHECK_EQ("host: unknown leaf refused", dc_eth_host_assign(&h, 2, 1), DC_U32_MAX);
	CHECK_EQ("host: leaf beyond the maximum refused",
		 dc_eth_host_assign(&h, DC_ETH_MAX_LEAVES, 1), DC_U32_MAX);
}

/* Reference for dc_eth_pick_view: the obvious loop with branches. */
static __u32 ref_pick_view(const struct dc_eth_hleaf *v, __u32 s, __u64 now, __u32 except)
{
	__u32 i, best = DC_U32_MAX, all = 0;

	s = dc_eth_uplinks(s);
	for (i = 1; i < s; i++)	/* the fallback, loads compared up to 2^60 */
		if ((v->up.load[i] > (DC_U64_MAX >> 4) ? DC_U64_MAX >> 4 : v->up.load[i]) <
		    (v->up.load[all] > (DC_U64_MAX >> 4) ? DC_U64_MAX >> 4 : v->up.load[all]))
			all = i;
	for (i = 0; i < s; i++) {
		__u64 li = v->up.load[i] > (DC_U64_MAX >> 4) ? DC_U64_MAX >> 4 : v->up.load[i];

		if (i == except || v->avoid_until_ns[i] > now)
			continue;
		if (best == DC_U32_MAX ||
		    li < (v->up.load[best] > (DC_U64_MAX >> 4) ? DC_U64_MAX >> 4 : v->up.load[best]))
			best = i;
	}
	return best == DC_U32_MAX ? all : best;
}

static __u64 rnd_state = 0x9e3779b97f4a7c15ULL;
static __u64 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* The data plane's additions: tags, the branch-free greedy choice with
 * uplinks to avoid, the mask arithmetic it rests on, spraying. */
static void test_dataplane(void)
{
	static const __u64 edge[] = { 0, 1, 2, 0x7fffffffffffffffULL, 0x8000000000000000ULL,
				      DC_U64_MAX - 1, DC_U64_MAX, 720720, 1ULL << 60 };
	__u32 i, j, bad = 0, s, u, k;
	struct dc_eth_hleaf v;

	for (i = 0; i < 16; i++)
		if (dc_eth_uplink_of(dc_eth_tag(i)) != (i < 15 ? i : DC_ETH_NO_UPLINK))
			bad++;
	CHECK_EQ("tag: uplink u travels as u + 1 and back, u < 15", bad, 0);
	CHECK_EQ("tag: 0 names no uplink", dc_eth_uplink_of(0), DC_ETH_NO_UPLINK);
	CHECK_EQ("tag: 16 names no uplink", dc_eth_uplink_of(16), DC_ETH_NO_UPLINK);
	CHECK_EQ("tag: uplink 15 cannot be tagged", dc_eth_tag(15), 0);
	CHECK_EQ("tag: a tagged fabric has at most 15 uplinks", dc_eth_tag_uplinks(16), 15);
	CHECK_EQ("tag: at least one", dc_eth_tag_uplinks(0), 1);
	bad = 0;
	for (i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		for (j = 0; j < sizeof(edge) / sizeof(edge[0]); j++)
			if (dc_eth_ltmask(edge[i], edge[j]) != (edge[i] < edge[j] ? DC_U64_MAX : 0) ||
			    dc_eth_eqmask(edge[i], edge[j]) != (edge[i] == edge[j] ? DC_U64_MAX : 0) ||
			    dc_eth_min_bl(edge[i], edge[j]) != (edge[i] < edge[j] ? edge[i] : edge[j]))
				bad++;
	for (i = 0; i < 100000; i++) {
		__u64 a = rnd() >> (rnd() & 63), b = rnd() >> (rnd() & 63);

		if (dc_eth_ltmask(a, b) != (a < b ? DC_U64_MAX : 0) ||
		    dc_eth_eqmask(a, a) != DC_U64_MAX || (a != b && dc_eth_eqmask(a, b)))
			bad++;
	}
	CHECK_EQ("masks: a < b and a == b as all-ones/zero, edges and 10^5 random pairs", bad, 0);
	/* the greedy choice on a view equals the branchy reference */
	bad = 0;
	for (k = 0; k < 200000; k++) {
		__u64 now = 1000;

		memset(&v, 0, sizeof(v));
		s = 1 + (__u32)(rnd() % 16);
		for (i = 0; i < 16; i++) {
			/* few distinct values: ties are common */
			v.up.load[i] = (rnd() % 4) * DC_ETH_FLOW_UNIT;
			if (rnd() % 8 == 0)
				v.up.load[i] = DC_U64_MAX - (rnd() % 3);
			v.avoid_until_ns[i] = rnd() % 4 == 0 ? now + 1 + rnd() % 5 : rnd() % (now + 1);
		}
		u = rnd() % 3 == 0 ? DC_ETH_NO_UPLINK : (__u32)(rnd() % 16);
		if (dc_eth_pick_view(&v, s, now, u) != ref_pick_view(&v, s, now, u))
			bad++;
	}
	CHECK_EQ("pick_view: equals the plain greedy rule with exclusions (2·10^5 views)", bad, 0);
	memset(&v, 0, sizeof(v));
	v.up.load[0] = 0;
	v.up.load[1] = 3;
	v.up.load[2] = 1;
	v.up.load[3] = 1;
	CHECK_EQ("pick_view: least loaded", dc_eth_pick_view(&v, 4, 0, DC_ETH_NO_UPLINK), 0);
	CHECK_EQ("pick_view: the flow's own uplink excluded; tie to the lower index",
		 dc_eth_pick_view(&v, 4, 0, 0), 2);
	v.avoid_until_ns[2] = 10;
	CHECK_EQ("pick_view: an uplink that timed out until t = 10 is avoided at t = 5",
		 dc_eth_pick_view(&v, 4, 5, 0), 3);
	CHECK_EQ("pick_view: … and used again at t = 10", dc_eth_pick_view(&v, 4, 10, 0), 2);
	v.avoid_until_ns[1] = v.avoid_until_ns[3] = 10;
	CHECK_EQ("pick_view: all others avoided → least loaded of all (some path)",
		 dc_eth_pick_view(&v, 4, 5, 0), 0);
	CHECK_EQ("pick_view: s = 1 always uplink 0", dc_eth_pick_view(&v, 1, 5, 0), 0);
	/* sub-flow weight from the socket mark */
	CHECK_EQ("mark: magic | 4 is a quarter flow", dc_eth_parts_of_mark(DC_ETH_MARK_MAGIC | 4), 4);
	CHECK_EQ("mark: parts above 16 clamp to 16", dc_eth_parts_of_mark(DC_ETH_MARK_MAGIC | 99), 16);
	CHECK_EQ("mark: parts 0 is a whole flow", dc_eth_parts_of_mark(DC_ETH_MARK_MAGIC), 1);
	CHECK_EQ("mark: parts 1 is a whole flow", dc_eth_parts_of_mark(DC_ETH_MARK_MAGIC | 1), 1);
	CHECK_EQ("mark: another mark is a whole flow", dc_eth_parts_of_mark(0x12340004), 1);
	CHECK_EQ("mark: no mark is a whole flow", dc_eth_parts_of_mark(0), 1);
	/* spraying */
	bad = 0;
	for (s = 1; s <= 16; s++)
		for (i = 0; i < 40; i++)
			if (dc_eth_spray(3, i, s) != (3 % s + i) % s)
				bad++;
	CHECK_EQ("spray: packet k of a flow starting on uplink f goes to (f + k) mod s", bad, 0);
	{
		__u32 cnt[4] = { 0 };

		for (i = 0; i < 400; i++)
			cnt[dc_eth_spray(1, i, 4)]++;
		CHECK("spray: 400 packets over 4 uplinks, 100 each",
		      cnt[0] == 100 && cnt[1] == 100 && cnt[2] == 100 && cnt[3] == 100, "%u %u %u %u",
		      cnt[0], cnt[1], cnt[2], cnt[3]);
	}
	CHECK("spray: k near 2^64 stays in range", dc_eth_spray(7, DC_U64_MAX, 5) < 5, "range");
}

int main(void)
{
	test_gcd();
	test_unit();
	test_theorem4();
	test_greedy();
	test_edges();
	test_dataplane();
	return check_failed;
}
