/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Ethereal path assignment (seed 000 §3.2, Algorithm 3 and Theorem 4):
 * pure and integer-only so the sender's TC egress program, the collective
 * traffic generator and the host unit tests run the very same rule.
 *
 * Setting: a leaf–spine fabric with s spines; a host's leaf has s uplinks
 * (leaf→spine), and choosing the uplink towards destination leaf j also
 * fixes the spine and so the downlink (spine→j).  Every host keeps, per
 * destination leaf, the load it has itself put on each uplink ("the
 * host's own view": no switch or peer state).
 *
 * Algorithm 3 (selectPath), for a batch of n flows to one destination leaf:
 *     assign ⌊n/s⌋ whole flows to each uplink;
 *     r = n mod s flows remain; g = gcd(r, s);
 *     split each remaining flow into s/g sub-flows of size f·g/s;
 *     assign r/g sub-flows to each uplink.
 * Every uplink then carries f·⌊n/s⌋ + (f·g/s)·(r/g) = f·n/s, what packet
 * spraying would put there (Theorem 4), with only r·(s − g)/g extra flows
 * (the minimum: a split into fewer than s/g parts cannot be spread evenly).
 *
 * Greedy rule (one flow at a time, what the TC egress program does when a
 * flow's first packet leaves): the flow goes to the least-loaded uplink
 * towards its destination leaf; ties go to the lowest uplink index.  From
 * an equal state, whole flows first and then the sub-flows, this rule
 * reproduces Algorithm 3's assignment exactly (tests/unit/test_ethereal.c).
 * The lowest-index tie-break makes the choice deterministic (the same
 * inputs give the same path on every host and in every test); the paper
 * randomises flow start times and queue-pair order instead (flowArrival),
 * which is the traffic generator's job, not this one's.
 *
 * Unit of load: flows, weighted by their share of an unsplit flow, in
 * DC_ETH_FLOW_UNIT parts per whole flow.  Not bytes, because
 *   - the data plane decides at a flow's first packet, before its size is
 *     known;
 *   - within one collective step a host's flows have equal size f_i (the
 *     workload property Theorem 4 rests on), so flow count × f_i is the byte
 *     load and comparing counts is comparing bytes;
 *   - bytes already sent would make an old flow look heavier than a new one
 *     with the same remaining demand.
 * DC_ETH_FLOW_UNIT = lcm(1..16) = 720720, so a sub-flow of 1/k flow for any
 * k ≤ DC_ETH_MAX_UPLINKS (s/g ≤ s ≤ 16) weighs an exact integer and
 * Theorem 4's equal loads hold exactly, without rounding.
 *
 * Bounds (BPF verifier): every loop runs at most DC_ETH_MAX_UPLINKS times
 * (gcd: DC_ETH_GCD_STEPS); s outside [1, DC_ETH_MAX_UPLINKS] is clamped.
 * Loads are u64 and saturate: 2^64 / 720720 ≈ 2.5·10^13 flows.
 */
#ifndef DCBPF_ETHEREAL_H
#define DCBPF_ETHEREAL_H

#include "fixed.h"

/* Uplinks (spines) per leaf; the paper's evaluation uses 16. */
#define DC_ETH_MAX_UPLINKS 16
/* Destination leaves a host keeps state for (paper: 16 leaves). */
#define DC_ETH_MAX_LEAVES 16
/* Weight of one unsplit flow: lcm(1, 2, …, 16). */
#define DC_ETH_FLOW_UNIT 720720ULL
/* Euclid on u32 needs at most 47 steps (consecutive Fibonacci numbers
 * are the worst case, F(48) > 2^32). */
#define DC_ETH_GCD_STEPS 48

/* Load one host has put on each uplink towards one destination leaf, in
 * DC_ETH_FLOW_UNIT per whole flow.  A BPF map value keyed by leaf. */
struct dc_eth_leaf {
	__u64 load[DC_ETH_MAX_UPLINKS];
};

/* A host's whole view: s uplinks, state per destination leaf. */
struct dc_eth_host {
	__u32 n_uplinks;	/* s, 1..DC_ETH_MAX_UPLINKS */
	__u32 n_leaves;		/* destination leaves in use */
	struct dc_eth_leaf leaf[DC_ETH_MAX_LEAVES];
};

/* Algorithm 3's plan for n flows over s uplinks (one destination leaf). */
struct dc_eth_plan {
	__u32 n;		/* flows in the batch */
	__u32 s;		/* uplinks (after clamping) */
	__u32 whole_per_uplink;	/* ⌊n/s⌋ unsplit flows on each uplink */
	__u32 rem;		/* r = n mod s flows to split */
	__u32 g;		/* gcd(r, s); s when r = 0 (nothing split) */
	__u32 parts;		/* s/g: sub-flows per split flow (1 when r = 0) */
	__u32 subs_per_uplink;	/* r/g sub-flows of each uplink */
	__u32 extra_flows;	/* r·(s − g)/g flows more than n */
	__u64 sub_weight;	/* weight of one sub-flow: UNIT·g/s */
	__u64 load_per_uplink;	/* what each uplink gets: UNIT·n/s */
};

/* s clamped to [1, DC_ETH_MAX_UPLINKS]. */
DC_INLINE __u32 dc_eth_uplinks(__u32 s)
{
	return s < 1 ? 1 : (s > DC_ETH_MAX_UPLINKS ? DC_ETH_MAX_UPLINKS : s);
}

/* gcd(a, b) by Euclid, bounded; gcd(0, b) = b, gcd(0, 0) = 0. */
DC_INLINE __u32 dc_eth_gcd(__u32 a, __u32 b)
{
	__u32 i, t;

	for (i = 0; i < DC_ETH_GCD_STEPS && b; i++) {
		t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* Weight of a flow that is 1/parts of an unsplit flow (parts 0 counts as 1,
 * parts above the maximum as the maximum). */
DC_INLINE __u64 dc_eth_weight(__u32 parts)
{
	return DC_ETH_FLOW_UNIT / dc_eth_uplinks(parts);
}

DC_INLINE __u64 dc_eth_sat_add(__u64 a, __u64 b)
{
	return a > DC_U64_MAX - b ? DC_U64_MAX : a + b;
}

/*
 * Algorithm 3 for n flows towards one leaf over s uplinks: how many whole
 * flows per uplink, how many are split and into how many parts.  With
 * r = 0 nothing is split (g = s, parts = 1, subs_per_uplink = 0): the
 * all-to-all case of the paper needs no splitting when s divides n.
 */
DC_INLINE void dc_eth_plan(__u32 n, __u32 s, struct dc_eth_plan *p)
{
	__u32 r, g;

	s = dc_eth_uplinks(s);
	r = n % s;
	g = r ? dc_eth_gcd(r, s) : s;
	p->n = n;
	p->s = s;
	p->whole_per_uplink = n / s;
	p->rem = r;
	p->g = g;
	p->parts = s / g;
	p->subs_per_uplink = r / g;
	p->extra_flows = r / g * (s - g);
	p->sub_weight = DC_ETH_FLOW_UNIT / p->parts;
	/* UNIT·n/s: s divides UNIT, so this is exact. */
	p->load_per_uplink = (DC_ETH_FLOW_UNIT / s) * n;
}

/*
 * The greedy choice: least-loaded uplink of s towards this leaf, ties to
 * the lowest index.  Returns the uplink index, 0..s−1.
 */
DC_INLINE __u32 dc_eth_pick(const struct dc_eth_leaf *l, __u32 s)
{
	__u32 i, best = 0;
	__u64 min;

	s = dc_eth_uplinks(s);
	min = l->load[0];
	for (i = 1; i < DC_ETH_MAX_UPLINKS; i++) {
		if (i >= s)
			break;
		/* strict <: an equal load keeps the lower index */
		if (l->load[i] < min) {
			min = l->load[i];
			best = i;
		}
	}
	return best;
}

/* A new flow of the given weight (dc_eth_weight(parts)) arrives: pick its
 * uplink by the greedy rule and account for it.  Returns the uplink. */
DC_INLINE __u32 dc_eth_assign(struct dc_eth_leaf *l, __u32 s, __u64 weight)
{
	__u32 u = dc_eth_pick(l, s);

	l->load[u & (DC_ETH_MAX_UPLINKS - 1)] =
		dc_eth_sat_add(l->load[u & (DC_ETH_MAX_UPLINKS - 1)], weight);
	return u;
}

/* A flow on uplink u finished (or moved away, on NACK or timeout): remove
 * its weight, never below zero.  An out-of-range uplink is ignored. */
DC_INLINE void dc_eth_release(struct dc_eth_leaf *l, __u32 u, __u64 weight)
{
	if (u >= DC_ETH_MAX_UPLINKS)
		return;
	l->load[u] = l->load[u] > weight ? l->load[u] - weight : 0;
}

/* Per-leaf state of a host's view, NULL for a leaf out of range. */
DC_INLINE struct dc_eth_leaf *dc_eth_host_leaf(struct dc_eth_host *h, __u32 leaf)
{
	if (leaf >= DC_ETH_MAX_LEAVES || leaf >= h->n_leaves)
		return (void *)0;
	return &h->leaf[leaf];
}

/* The greedy rule on a host's view: the uplink for a new flow (1/parts of
 * an unsplit flow) towards `leaf`, accounted.  Returns DC_U32_MAX for an
 * unknown leaf. */
DC_INLINE __u32 dc_eth_host_assign(struct dc_eth_host *h, __u32 leaf, __u32 parts)
{
	struct dc_eth_leaf *l = dc_eth_host_leaf(h, leaf);

	if (!l)
		return DC_U32_MAX;
	return dc_eth_assign(l, h->n_uplinks, dc_eth_weight(parts));
}

/*
 * Algorithm 3 applied as a batch (selectPath): add the plan's whole flows
 * and sub-flows to every uplink.  whole[u] and subs[u], when not NULL,
 * receive how many of each went to uplink u (u < s); the other entries
 * are left alone.  Loads rise by exactly p->load_per_uplink on each uplink.
 */
DC_INLINE void dc_eth_batch(struct dc_eth_leaf *l, const struct dc_eth_plan *p,
			    __u32 *whole, __u32 *subs)
{
	__u32 i, s = dc_eth_uplinks(p->s);
	__u64 add = dc_eth_sat_add((__u64)p->whole_per_uplink * DC_ETH_FLOW_UNIT,
				   (__u64)p->subs_per_uplink * p->sub_weight);

	for (i = 0; i < DC_ETH_MAX_UPLINKS; i++) {
		if (i >= s)
			break;
		l->load[i] = dc_eth_sat_add(l->load[i], add);
		if (whole)
			whole[i] = p->whole_per_uplink;
		if (subs)
			subs[i] = p->subs_per_uplink;
	}
}

/* Largest minus smallest load over the s uplinks (0 = perfectly even). */
DC_INLINE __u64 dc_eth_spread(const struct dc_eth_leaf *l, __u32 s)
{
	__u32 i;
	__u64 lo = l->load[0], hi = l->load[0];

	s = dc_eth_uplinks(s);
	for (i = 1; i < DC_ETH_MAX_UPLINKS; i++) {
		if (i >= s)
			break;
		lo = dc_min_u64(lo, l->load[i]);
		hi = dc_max_u64(hi, l->load[i]);
	}
	return hi - lo;
}

#endif
