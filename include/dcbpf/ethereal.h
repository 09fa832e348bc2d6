/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Ethereal path assignment (Addanki thesis §3.2, Algorithm 3 and Theorem 4):
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
#include "counters.h"
#include "reps.h"
#ifndef __bpf__
#include <linux/bpf.h>	/* struct bpf_spin_lock, struct bpf_timer */
#endif

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
		return 0;	/* a null pointer in C and in C++ (tests/ns3) */
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

/* ---- the data plane: tags, modes, map layouts (docs/ethereal.md) ------ */

/*
 * The path tag is the 4-bit P field of the INT option (include/dcbpf/int.h):
 * P = uplink index + 1, 0 = no tag.  So a tagged fabric has at most 15
 * uplinks per leaf.
 */
#define DC_ETH_TAG_MAX 15
#define DC_ETH_NO_UPLINK DC_U32_MAX

/* Tag carried on the wire for uplink u (0 if u cannot be tagged). */
DC_INLINE __u32 dc_eth_tag(__u32 u)
{
	return u < DC_ETH_TAG_MAX ? u + 1 : 0;
}

/* Uplink a tag names, DC_ETH_NO_UPLINK for 0 (untagged) or > 15. */
DC_INLINE __u32 dc_eth_uplink_of(__u32 tag)
{
	return tag >= 1 && tag <= DC_ETH_TAG_MAX ? tag - 1 : DC_ETH_NO_UPLINK;
}

/* Uplinks a host may tag: s clamped to [1, 15]. */
DC_INLINE __u32 dc_eth_tag_uplinks(__u32 s)
{
	s = dc_eth_uplinks(s);
	return s > DC_ETH_TAG_MAX ? DC_ETH_TAG_MAX : s;
}

/* Spraying: the uplink of a flow's k-th packet, rotating from its first. */
DC_INLINE __u32 dc_eth_spray(__u32 first, __u64 k, __u32 s)
{
	s = dc_eth_uplinks(s);
	return (__u32)((first % s + k % s) % s);
}

/*
 * Sub-flows (Algorithm 3's split of the r = n mod s remainder flows into
 * s/g parts) weigh 1/parts of a flow.  The application says so on the
 * socket: SO_MARK = DC_ETH_MARK_MAGIC | parts (2..16), read from
 * skb->mark at the flow's first packet (the mark is the sender's own, seen
 * by its TC egress before the packet leaves the namespace).  Any other
 * mark, or parts 0/1, is a whole flow.
 */
#define DC_ETH_MARK_MAGIC 0xdcb00000U
#define DC_ETH_MARK_MASK 0xffffff00U

DC_INLINE __u32 dc_eth_parts_of_mark(__u32 mark)
{
	__u32 parts = mark & 0xff;

	if ((mark & DC_ETH_MARK_MASK) != DC_ETH_MARK_MAGIC || parts < 2)
		return 1;
	return parts > DC_ETH_MAX_UPLINKS ? DC_ETH_MAX_UPLINKS : parts;
}

/*
 * How full dc_eth_flows may get.  An LRU hash evicts before it is full:
 * each CPU keeps a local list of up to DC_LRU_LOCAL_FREE free slots (the
 * kernel's LOCAL_FREE_TARGET), and a CPU whose refill finds fewer than
 * that on the shared free list evicts entries to make them up.  An evicted
 * open flow would keep its weight in the view for good (its timer dies
 * with it), so the host stops inserting at
 * max_entries − (ncpus + 1) · DC_LRU_LOCAL_FREE entries (at least half the
 * table): past that, new flows go untagged and the leaf's ECMP routes them.
 */
#define DC_LRU_LOCAL_FREE 128U

DC_INLINE __u32 dc_eth_flows_cap(__u32 max_entries, __u32 ncpus)
{
	__u64 margin = ((__u64)ncpus + 1) * DC_LRU_LOCAL_FREE;
	__u32 half = max_entries / 2;

	if (margin >= max_entries || max_entries - margin < half)
		return half ? half : 1;
	return (__u32)(max_entries - margin);
}

/* Host modes (dc_eth_hcfg.mode). */
enum dc_eth_mode {
	DC_ETH_MODE_ECMP = 0,		/* no tag: the leaf's kernel ECMP (L4 hash) decides */
	DC_ETH_MODE_ETHEREAL = 1,	/* one least-loaded uplink per flow (greedy rule) */
	DC_ETH_MODE_SPRAY = 2,		/* tag rotates per packet (GSO packet) */
	DC_ETH_MODE_REPS = 3,		/* per packet, recycled entropy (include/dcbpf/reps.h) */
};

/* Host configuration (dc_eth_hcfg, array[1]). */
struct dc_eth_hcfg {
	__u32 mode;		/* enum dc_eth_mode */
	__u32 n_uplinks;	/* s: uplinks of the host's leaf, 1..15 */
	__u32 idle_ms;		/* a flow idle this long is released */
	__u32 avoid_ms;		/* after a timeout on uplink u, new flows avoid u this long */
	__u32 reps_buf;		/* reps: recycling buffer, entries (0: REPS' default 8) */
	__u32 reps_freeze_ms;	/* reps: after an RTO, reuse without exploring this long */
};

/* Destination prefix → leaf (dc_eth_dst, LPM trie). */
struct dc_eth_dst_key {
	__u32 prefixlen;
	__u32 addr;		/* IPv4, network order */
};

struct dc_eth_dst {
	__u32 leaf;		/* 0..DC_ETH_MAX_LEAVES−1 */
	__u32 pad;
};

/* A host's view of one destination leaf (dc_eth_view, array by leaf). */
struct dc_eth_hleaf {
	struct dc_eth_leaf up;	/* load per uplink, DC_ETH_FLOW_UNIT per flow */
	__u64 avoid_until_ns[DC_ETH_MAX_UPLINKS];	/* last timeout + avoid_ms */
	__u64 timeouts[DC_ETH_MAX_UPLINKS];		/* RTOs seen on each uplink */
};

/*
 * The greedy rule on a host's view at time now, for a flow that must not
 * use uplink `except` (its own, when it is moved after a timeout;
 * DC_ETH_NO_UPLINK for a new flow): least-loaded uplink among those not
 * excepted and without a timeout in the last avoid_ms (avoid_until_ns >
 * now), ties to the lowest index.  If that leaves none, the least-loaded
 * of all (some path is better than none).
 *
 * Written for the verifier: no branch in the loop.  Comparisons are made
 * into all-ones/zero masks by arithmetic (the borrow of a − b), the
 * minimum is taken over load·16 + index (ties to the lower index for
 * free), excluded uplinks compare as the maximum.  With branches the
 * verifier tracks one state per outcome of every comparison, 2^s of them
 * (it gave up at 10^6 instructions).  Loads above 2^60 compare as 2^60
 * (10^12 flows).
 */
/* All ones when a < b (unsigned), else 0. */
DC_INLINE __u64 dc_eth_ltmask(__u64 a, __u64 b)
{
	__u64 t = ((~a & b) | (~(a ^ b) & (a - b))) >> 63;

	dc_opaque(t);	/* keep it arithmetic: a select would become a branch again */
	return (__u64)0 - t;
}

/* All ones when a == b, else 0. */
DC_INLINE __u64 dc_eth_eqmask(__u64 a, __u64 b)
{
	__u64 x = a ^ b, t = ((x | ((__u64)0 - x)) >> 63) ^ 1;

	dc_opaque(t);
	return (__u64)0 - t;
}

DC_INLINE __u64 dc_eth_min_bl(__u64 a, __u64 b)
{
	__u64 m = dc_eth_ltmask(a, b);

	return (a & m) | (b & ~m);
}

DC_INLINE __u32 dc_eth_pick_view(const struct dc_eth_hleaf *v, __u32 s, __u64 now_ns,
				 __u32 except)
{
	__u64 best_all = DC_U64_MAX, best_ok = DC_U64_MAX, c, off;
	__u32 i;

	s = dc_eth_uplinks(s);
	for (i = 0; i < DC_ETH_MAX_UPLINKS; i++) {
		c = (dc_eth_min_bl(v->up.load[i], DC_U64_MAX >> 4) << 4) | i;
		off = ~dc_eth_ltmask(i, s);	/* i ≥ s: not an uplink */
		best_all = dc_eth_min_bl(best_all, c | off);
		off |= dc_eth_eqmask(i, except) | dc_eth_ltmask(now_ns, v->avoid_until_ns[i]);
		best_ok = dc_eth_min_bl(best_ok, c | off);
	}
	return (__u32)((best_ok != DC_U64_MAX ? best_ok : best_all) & (DC_ETH_MAX_UPLINKS - 1));
}

enum dc_eth_fstate {
	DC_ETH_OPEN = 0,	/* its weight is on load[path − 1] */
	DC_ETH_RELEASED = 1,	/* FIN/RST sent: weight removed, path kept for stragglers */
};

/*
 * Per-flow path state (dc_eth_flows, LRU hash keyed by struct
 * dc_flow_key from the sender's side).  path and state share one 64-bit
 * word changed only by compare-and-swap (LRU hash values cannot hold a
 * spin lock), so a flow's weight leaves the load exactly once: release on
 * FIN/RST or idle, or a move on RTO, whichever changes the word first.
 * idle fires idle_ms after the last packet and deletes the entry.
 */
struct dc_eth_flow {
	union {
		struct {
			__u32 path;	/* tag on the wire = uplink + 1 (spray: first uplink + 1) */
			__u32 state;	/* enum dc_eth_fstate */
		};
		__u64 ps;		/* both, for compare-and-swap */
	};
	__u32 leaf;		/* destination leaf */
	__u32 repaths;		/* moves on RTO */
	__u32 mode;		/* enum dc_eth_mode when the flow started */
	__u32 pad;
	__u64 weight;		/* load units on its uplink while open (0: spray) */
	__u64 bytes;		/* IP bytes sent (GSO packets whole) */
	__u64 packets;		/* packets (a GSO packet counts once) */
	__u64 first_ns;
	__u64 last_seen_ns;
	struct bpf_timer idle;
};

/*
 * Per-flow REPS state (dc_eth_reps, hash keyed like dc_eth_flows, made at
 * a reps flow's first packet, deleted with its dc_eth_flows entry).  The
 * buffer and ring are changed by the egress (a packet sent) and the
 * ingress (an ACK) programs, on any CPU: under the lock.
 */
struct dc_eth_reps {
	struct bpf_spin_lock lock;
	__u32 pad;
	__u64 freeze_until_ns;	/* R5: frozen before this (RTO time + reps_freeze_ms) */
	struct dc_reps_buf buf;
	struct dc_reps_ring ring;
};

/* The path/state word (little-endian layout of the union above: path in
 * the low half on x86 and on BPF). */
DC_INLINE __u64 dc_eth_ps(__u32 path, __u32 state)
{
	return ((__u64)state << 32) | path;
}

DC_INLINE __u32 dc_eth_ps_path(__u64 ps) { return (__u32)ps; }
DC_INLINE __u32 dc_eth_ps_state(__u64 ps) { return (__u32)(ps >> 32); }

/* Host counters (dc_eth_hstats, array[1], atomic adds). */
#define DC_ETH_HCOUNTERS(X)							\
	X(pkts_seen, 0, "", "TCP/IPv4 packets to a configured leaf.")		\
	X(pkts_tagged, 0, "", "Packets to a configured leaf that left with a path tag.") \
	X(tag_added, 0, "", "Tag-only options inserted.")			\
	X(tag_int, 0, "", "Path tags set in an INT option already there.")	\
	X(tag_no_room, 0, "", "Packets sent untagged: other IP options present.") \
	X(tag_fail, 0, "", "Packets sent untagged: the kernel refused to grow the packet.") \
	X(flows_new, 0, "", "Flows entered in dc_eth_flows.")			\
	X(flows_fin, 0, "", "Flows released on FIN or RST.")			\
	X(flows_idle, 0, "", "Flows released after idle_ms.")			\
	X(flows_untracked, 0, "",						\
	  "Packets of no known flow that may not start one.")			\
	X(flow_insert_fail, 0, "", "Failed inserts into dc_eth_flows.")	\
	X(repath_rto, 0, "", "Flows moved to another uplink on an RTO.")	\
	X(no_leaf, 0, "", "TCP packets to a destination not in dc_eth_dst.")	\
	X(ecmp_pkts, 0, "", "Packets passed untagged in mode ecmp.")		\
	X(flows_live, DC_CTR_GAUGE, "",						\
	  "Entries in dc_eth_flows (inserted minus deleted).")			\
	X(flows_over_cap, 0, "",						\
	  "New flows sent untagged: the flow table was at its cap.")		\
	X(reps_recycled, 0, "", "reps: packets sent with a recycled entropy.")	\
	X(reps_explored, 0, "", "reps: packets sent with a fresh random entropy.") \
	X(reps_frozen, 0, "",							\
	  "reps: packets sent with an entropy reused while frozen after an RTO.") \
	X(reps_saved, 0, "", "reps: entropies of unmarked ACKs put in the buffer.") \
	X(reps_marked, 0, "", "reps: entropies dropped: their ACK carried ECE.") \
	X(reps_forgot, 0, "",							\
	  "reps: sent packets forgotten unacknowledged (more in flight than the ring).") \
	X(reps_no_state, 0, "", "reps: packets of a flow without REPS state (table full).") \
	X(reps_freezes, 0, "", "reps: RTOs that froze a flow's entropies.")

struct dc_eth_hcounters {
	DC_ETH_HCOUNTERS(DC_CTR_FIELD)
};

/* Leaf: uplink a tag maps to (dc_eth_up, array by tag). */
struct dc_eth_uplink {
	__u32 ifindex;		/* 0 = no uplink for this tag */
	__u32 nexthop;		/* IPv4 of the spine on that link, network order */
};

/* Leaf: bytes and packets steered per tag (dc_eth_pcnt, per-CPU array). */
struct dc_eth_pathcnt {
	__u64 bytes;
	__u64 packets;
};

/* Leaf counters (dc_eth_lstats, per-CPU array[1]). */
#define DC_ETH_LCOUNTERS(X)							\
	X(untagged, 0, "", "Packets without a tag: normal routing.")		\
	X(steered, 0, "", "Packets redirected to their tag's uplink.")		\
	X(unknown_tag, 0, "",							\
	  "Packets with a tag no uplink is configured for: normal routing.")	\
	X(uplink_down, 0, "",							\
	  "Packets whose tag's uplink has no route (link down): normal routing.") \
	X(local_dst, 0, "", "Tagged packets routed to a local port: normal routing.") \
	X(ttl_expired, 0, "", "Packets with TTL 1 or less, left to the kernel.") \
	X(fib_fail, 0, "",							\
	  "Packets with no route for the destination, left to the kernel.")	\
	X(tag_stripped, 0, "", "Tag-only options removed.")			\
	X(strip_fail, 0, "", "Tag-only options that could not be removed.")

struct dc_eth_lcounters {
	DC_ETH_LCOUNTERS(DC_CTR_FIELD)
};

#endif
