/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * REPS, per-packet path choice by recycled entropy ("REPS: Recycled Entropy
 * Packet Spraying for Adaptive Load Balancing and Failure Mitigation",
 * Bonato et al.): pure and integer-only, used by the Ethereal host program
 * (bpf/ethereal.bpf.c, mode reps) and the host unit tests.
 *
 * The sender's rules, as implemented here (docs/ethereal.md, "REPS"):
 *   R1 recycle: the entropy of a packet whose ACK comes back without an
 *      ECN echo is put into a small buffer of the flow;
 *   R2 marked:  the entropy of a packet whose ACK carries the ECN echo is
 *      not put back (that path was congested): it is dropped;
 *   R3 send:    every new packet takes the oldest entropy in the buffer
 *      (first in, first out) and removes it; with the buffer empty it
 *      explores: a fresh random entropy;
 *   R4 bound:   the buffer holds at most `size` entries (1..DC_REPS_BUF_MAX,
 *      REPS' default 8); a recycled entropy that finds it full replaces the
 *      oldest (the newest feedback is the most current);
 *   R5 freeze:  after a failure (a retransmission timeout) the sender
 *      stops exploring for a while: it cycles through the entropies in
 *      the buffer without removing them (the paths that last delivered
 *      unmarked), and explores only if the buffer is empty.
 * R1–R3 and R5 are the paper's; the replacement of the oldest in R4 and
 * the bounds are this implementation's choice.
 *
 * Entropy: the paper's entropy value is hashed by every switch's ECMP.  In
 * dcbpf's fabric the only choice is the source leaf's uplink (the spine
 * then fixes the way down), so the entropy is the uplink index itself,
 * 0..s−1, and the path tag on the wire is entropy + 1
 * (include/dcbpf/ethereal.h).  Exploring draws uniformly among the s.
 *
 * Which entropy an ACK echoes: the tag does not reach the receiver (the
 * destination leaf strips the tag-only option) and TCP ACKs carry no
 * entropy field, so the sender remembers, per flow, the end sequence
 * number of each packet it sent with data and that packet's entropy
 * (a ring of DC_REPS_INFLIGHT, oldest first).  A cumulative ACK acknowledges
 * every remembered packet whose end sequence it covers; their entropies
 * are recycled, or dropped if the ACK carries ECE.  With DCTCP's receiver
 * the ECE of an ACK is the CE state of the packets it covers (it sends an
 * immediate ACK when the state changes), so marks are attributed to the
 * right packets; with RFC 3168's ECE (held until CWR) more entropies are
 * dropped than were marked, which only makes the sender explore more.
 *
 * Units: entropies are uplink indexes, sequence numbers TCP's (bytes,
 * modulo 2^32), times ns.  Every loop is bounded (verifier).
 */
#ifndef DCBPF_REPS_H
#define DCBPF_REPS_H

#include "compat.h"
#include "types.h"

/* Bound on the recycling buffer, entries (a power of two: index masks). */
#define DC_REPS_BUF_MAX 16
/* REPS' default buffer size, entries. */
#define DC_REPS_BUF_DEFAULT 8
/* Data packets in flight remembered per flow (a power of two).  Packets
 * beyond it push the oldest out: its entropy is then neither recycled nor
 * counted as marked. */
#define DC_REPS_INFLIGHT 32

/* The recycling buffer (R1, R3, R4, R5). */
struct dc_reps_buf {
	__u32 head;		/* index of the oldest entry */
	__u32 count;		/* valid entries, 0..size */
	__u32 size;		/* capacity, 1..DC_REPS_BUF_MAX (0 counts as the default) */
	__u32 cursor;		/* R5: next entry to reuse, 0..count−1, from head */
	__u8 ev[DC_REPS_BUF_MAX];
};

/* Data packets sent and not yet acknowledged: end sequence and entropy. */
struct dc_reps_ring {
	__u32 head;		/* oldest */
	__u32 count;		/* 0..DC_REPS_INFLIGHT */
	__u32 last_end;		/* highest end sequence recorded (when any was) */
	__u32 any;		/* 1 once a packet was recorded */
	__u32 end_seq[DC_REPS_INFLIGHT];
	__u8 ev[DC_REPS_INFLIGHT];
};

/* What a choice or an ACK did, for the counters. */
enum dc_reps_src {
	DC_REPS_EXPLORED = 0,	/* a fresh random entropy (R3, empty buffer) */
	DC_REPS_RECYCLED = 1,	/* taken from the buffer (R3) */
	DC_REPS_REUSED = 2,	/* reused without removal while frozen (R5) */
};

struct dc_reps_ack_res {
	__u32 acked;		/* remembered packets this ACK covered */
	__u32 saved;		/* entropies put into the buffer (R1) */
	__u32 marked;		/* entropies dropped: the ACK had ECE (R2) */
	__u32 replaced;		/* saved into a full buffer over the oldest (R4) */
};

/* Buffer capacity: 0 → REPS' default, else clamped to [1, DC_REPS_BUF_MAX]. */
DC_INLINE __u32 dc_reps_size(__u32 size)
{
	if (!size)
		return DC_REPS_BUF_DEFAULT;
	return size > DC_REPS_BUF_MAX ? DC_REPS_BUF_MAX : size;
}

/* A buffer index, masked so that the verifier sees the bound: a value
 * already reduced modulo the size makes the mask look redundant to the
 * compiler, which would drop it (dc_opaque keeps it). */
DC_INLINE __u32 dc_reps_bidx(__u32 i)
{
	dc_opaque(i);
	return i & (DC_REPS_BUF_MAX - 1);
}

DC_INLINE __u32 dc_reps_ridx(__u32 i)
{
	dc_opaque(i);
	return i & (DC_REPS_INFLIGHT - 1);
}

/* TCP sequence order, modulo 2^32: a after b. */
DC_INLINE bool dc_reps_seq_after(__u32 a, __u32 b)
{
	return (__s32)(a - b) > 0;
}

/* R1/R4: put an entropy into the buffer; a full buffer loses its oldest.
 * Returns 1 when the oldest was replaced, else 0. */
DC_INLINE __u32 dc_reps_recycle(struct dc_reps_buf *b, __u32 ev)
{
	__u32 size = dc_reps_size(b->size), count = b->count;

	if (count >= size) {
		/* the oldest slot becomes the newest */
		b->ev[dc_reps_bidx(b->head)] = (__u8)ev;
		b->head = (b->head + 1) % size;
		b->count = size;
		return 1;
	}
	b->ev[dc_reps_bidx(((b->head % size) + count) % size)] = (__u8)ev;
	b->count = count + 1;
	return 0;
}

/*
 * R3/R5: the entropy for the next packet among n_ev (the uplinks).  rnd is
 * a random number, used only to explore; frozen says R5 holds.  *src tells
 * which rule chose.  An entropy in the buffer that is no longer < n_ev (the
 * host was reconfigured with fewer uplinks) is discarded and the choice
 * explores.
 */
DC_INLINE __u32 dc_reps_choose(struct dc_reps_buf *b, __u32 rnd, __u32 n_ev, bool frozen,
			       __u32 *src)
{
	__u32 size = dc_reps_size(b->size), ev;

	if (!n_ev)
		n_ev = 1;
	if (b->count > size)
		b->count = size;	/* a reconfigured, smaller buffer */
	if (!b->count) {
		*src = DC_REPS_EXPLORED;
		return rnd % n_ev;
	}
	if (frozen) {
		if (b->cursor >= b->count)
			b->cursor = 0;
		ev = b->ev[dc_reps_bidx(((b->head % size) + b->cursor) % size)];
		b->cursor++;
		*src = DC_REPS_REUSED;
	} else {
		ev = b->ev[dc_reps_bidx(b->head % size)];
		b->head = (b->head + 1) % size;
		b->count--;
		b->cursor = 0;
		*src = DC_REPS_RECYCLED;
	}
	if (ev >= n_ev) {
		*src = DC_REPS_EXPLORED;
		return rnd % n_ev;
	}
	return ev;
}

/* A data packet ending at end_seq left with entropy ev: remember it.  Only
 * new data is remembered (a retransmission or a packet without data is not:
 * its ACK cannot be told from the original's).  Returns 1 when the ring
 * was full and its oldest packet was forgotten, else 0. */
DC_INLINE __u32 dc_reps_sent(struct dc_reps_ring *r, __u32 end_seq, __u32 ev)
{
	__u32 lost = 0;

	if (r->any && !dc_reps_seq_after(end_seq, r->last_end))
		return 0;
	if (r->count >= DC_REPS_INFLIGHT) {
		r->head = (r->head + 1) & (DC_REPS_INFLIGHT - 1);
		r->count = DC_REPS_INFLIGHT - 1;
		lost = 1;
	}
	r->end_seq[dc_reps_ridx(r->head + r->count)] = end_seq;
	r->ev[dc_reps_ridx(r->head + r->count)] = (__u8)ev;
	r->count++;
	r->last_end = end_seq;
	r->any = 1;
	return lost;
}

/*
 * A cumulative ACK up to ack (the next byte the receiver expects), with or
 * without ECE: every remembered packet it covers (end_seq ≤ ack) leaves
 * the ring oldest first; its entropy is recycled (R1) or, with ECE,
 * dropped (R2).
 */
DC_INLINE void dc_reps_acked(struct dc_reps_ring *r, struct dc_reps_buf *b, __u32 ack,
			     bool ece, struct dc_reps_ack_res *res)
{
	__u32 i, n = 0, head = r->head, count = r->count, size = dc_reps_size(b->size), c0;

	/* First how many are covered (the loop only counts, every branch
	 * ends it: the verifier walks it once), then recycle them. */
	for (i = 0; i < DC_REPS_INFLIGHT; i++) {
		if (i >= count || dc_reps_seq_after(r->end_seq[dc_reps_ridx(head + i)], ack))
			break;
		n++;
	}
	c0 = b->count > size ? size : b->count;
	res->acked = n;
	res->saved = ece ? 0 : n;
	res->marked = ece ? n : 0;
	/* a full buffer loses its oldest for each one beyond the room */
	res->replaced = ece || c0 + n <= size ? 0 : c0 + n - size;
	if (!ece) {
		for (i = 0; i < DC_REPS_INFLIGHT; i++) {
			if (i >= n)
				break;
			dc_reps_recycle(b, r->ev[dc_reps_ridx(head + i)]);
		}
	}
	r->head = dc_reps_ridx(head + n);
	r->count = count - n;
}

/* R5: frozen until freeze_until_ns. */
DC_INLINE bool dc_reps_frozen(__u64 freeze_until_ns, __u64 now_ns)
{
	return now_ns < freeze_until_ns;
}

#endif
