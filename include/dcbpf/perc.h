/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * s-PERC, s-PERC* and n-PERC: the link's control-packet update, shared by
 * the TC link program (bpf/perc.bpf.c), the simulator (loader/perc/) and
 * the host tests.  Source: L. Jose, "Proactive Congestion Control",
 * Stanford PhD thesis, 2019 — Ch. 3 (n-PERC Alg. 4, s-PERC Alg. 5 and 6),
 * Ch. 4 §4.1 (s-PERC*, Alg. 8 and 9, Table 4.1).  Wire format:
 * docs/perc.md.
 *
 * Every rate is an integer in kbps (u32 in the packet, so at most
 * 4.29 Tb/s; DC_PERC_INF_KBPS stands for ∞).  b = (C - SumE) / NumB is an
 * unsigned floor division; SumE is the exact sum of the integer
 * allocations written into packets, so the link's aggregates stay exact
 * and Lemma 3.2.1 still holds (b > e implies C - SumE > e · NumB).
 *
 * Two readings of the thesis text that the code makes explicit:
 *  - Alg. 8 line 36 says roundNumber[l] <- roundNumber[l] + 1.  Read
 *    literally, a flow restarted after a drop (roundNumber[l] = 0) stays
 *    "not seen in this round" on every visit until it has caught up and
 *    NumB' counts it again each time; the restart then takes on the order
 *    of a hundred rounds to wash out.  The link copies its roundNumber
 *    instead (the intent of the text around Alg. 8: "copy this to a
 *    per-link field").  DC_PERC_M_RN_LITERAL keeps the literal +1 so the
 *    simulator can show the difference.
 *  - Alg. 8 lines 12-14: the shadow update for a flow already seen this
 *    round applies only when it was in Ê (NumB' += 1 inside the if).
 *
 * Aggregates are signed: s-PERC* rebuilds SumE and NumB from shadows each
 * round (Alg. 9), so a packet that left the link's books (a restart, a
 * drop) may subtract what the books no longer hold.  b clamps C - SumE at
 * 0 and NumB at 1, so such a transient never divides by zero or wraps.
 */
#ifndef DCBPF_PERC_H
#define DCBPF_PERC_H

#include "compat.h"
#include "counters.h"
#ifndef __bpf__
#include <linux/bpf.h>	/* struct bpf_spin_lock */
#endif

/* ---- control packet (docs/perc.md) ---------------------------------------
 * UDP, to or from port DC_PERC_UDP_PORT, payload = header + nhops hops.
 * Multi-byte fields are big endian.
 *
 *   header, 16 bytes              hop, 12 bytes (x nhops, at most 8)
 *   0 ver  1 flags  2 nhops  3 hop     0..3  a_kbps   allocation a[l]
 *   4..7   flow_id                     4..7  b_kbps   bottleneck rate b[l]
 *   8..11  tx_ctrl_us                  8     flags    s (B/E), ignore
 *   12..15 b_l0_kbps (flags & L0)      9     round    roundNumber[l]
 *                                      10..11 link_id  0: not yet visited
 * Forward packets: the link at hops[hop] updates, then hop++.  Reverse
 * (flags & REV): hop--, then hops[hop] updates.
 */
#define DC_PERC_UDP_PORT	20549	/* 0x5045 */
#define DC_PERC_VERSION		1
#define DC_PERC_MAX_HOPS	8
#define DC_PERC_HDR_LEN		16
#define DC_PERC_HOP_LEN		12
#define DC_PERC_INF_KBPS	0xffffffffU

#define DC_PERC_PF_FIN	0x01	/* the flow's last packet: links remove it */
#define DC_PERC_PF_REV	0x02	/* receiver -> sender */
#define DC_PERC_PF_L0	0x04	/* b_l0_kbps is a limit (short flows, virtual link l0) */

#define DC_PERC_HF_B		0x01	/* s[l] = B (clear: E) */
#define DC_PERC_HF_IGNORE	0x02	/* i[l]: other links skip this b */

/* One hop entry in host order (what the update reads and writes). */
struct dc_perc_hop {
	__u32 a_kbps;		/* a[l] */
	__u32 b_kbps;		/* b[l] */
	__u8 bneck;		/* s[l] == B */
	__u8 ignore;		/* i[l] */
	__u8 round;		/* roundNumber[l] (s-PERC* only) */
	__u8 pad;
	__u16 link_id;
};

DC_INLINE __u32 dc_perc_get_be32(const __u8 *p)
{
	return (__u32)p[0] << 24 | (__u32)p[1] << 16 | (__u32)p[2] << 8 | p[3];
}

DC_INLINE void dc_perc_put_be32(__u8 *p, __u32 v)
{
	p[0] = (__u8)(v >> 24);
	p[1] = (__u8)(v >> 16);
	p[2] = (__u8)(v >> 8);
	p[3] = (__u8)v;
}

DC_INLINE void dc_perc_hop_decode(const __u8 *p, struct dc_perc_hop *h)
{
	h->a_kbps = dc_perc_get_be32(p);
	h->b_kbps = dc_perc_get_be32(p + 4);
	h->bneck = (p[8] & DC_PERC_HF_B) ? 1 : 0;
	h->ignore = (p[8] & DC_PERC_HF_IGNORE) ? 1 : 0;
	h->round = p[9];
	h->pad = 0;
	h->link_id = (__u16)(p[10] << 8 | p[11]);
}

DC_INLINE void dc_perc_hop_encode(__u8 *p, const struct dc_perc_hop *h)
{
	dc_perc_put_be32(p, h->a_kbps);
	dc_perc_put_be32(p + 4, h->b_kbps);
	p[8] = (h->bneck ? DC_PERC_HF_B : 0) | (h->ignore ? DC_PERC_HF_IGNORE : 0);
	p[9] = h->round;
	p[10] = (__u8)(h->link_id >> 8);
	p[11] = (__u8)h->link_id;
}

/* A new flow's hop (Table 3.2 / 4.1): s = E, a = 0, b = 0, ignore set,
 * roundNumber 0 (never a link's: those run 1..255). */
DC_INLINE void dc_perc_hop_fresh(struct dc_perc_hop *h)
{
	h->a_kbps = 0;
	h->b_kbps = 0;
	h->bneck = 0;
	h->ignore = 1;
	h->round = 0;
	h->pad = 0;
	h->link_id = 0;
}

/* ---- link state ---------------------------------------------------------- */

#define DC_PERC_M_STAR		0x1	/* s-PERC*: shadows, roundNumber (Alg. 8, 9) */
#define DC_PERC_M_NPERC		0x2	/* n-PERC: never set the ignore bit (Alg. 4) */
#define DC_PERC_M_RN_LITERAL	0x4	/* Alg. 8 line 36 as printed (+1); simulator only */

/* The aggregates of one directed link (Alg. 6 lines 1-4, Alg. 8 lines 1-7). */
struct dc_perc_state {
	__u64 cap_kbps;		/* C: capacity allocated to data */
	__s64 sum_e_kbps;	/* SumE: allocations of flows in Ê */
	__s64 sum_e2_kbps;	/* SumE': the same, counted this round (s-PERC*) */
	__u64 max_e_kbps;	/* MaxE: largest Ê allocation since last round */
	__u64 max_e2_kbps;	/* MaxE': largest Ê allocation this round */
	__s32 num_b;		/* NumB: flows in B̂ */
	__s32 num_b2;		/* NumB': the same, counted this round (s-PERC*) */
	__u64 epoch;		/* round resets (Alg. 5 / 9) applied so far */
	__u32 round_number;	/* roundNumber, 1..255 (s-PERC*) */
	__u32 mode;		/* DC_PERC_M_* */
};

DC_INLINE void dc_perc_state_init(struct dc_perc_state *st, __u64 cap_kbps, __u32 mode)
{
	st->cap_kbps = cap_kbps;
	st->sum_e_kbps = 0;
	st->sum_e2_kbps = 0;
	st->max_e_kbps = 0;
	st->max_e2_kbps = 0;
	st->num_b = 0;
	st->num_b2 = 0;
	st->epoch = 0;
	st->round_number = 1;
	st->mode = mode;
}

/* The reset epoch at now_ns for a link whose resets start at phase_ns
 * (T_0(l), Eq. 3.4): resets happen at phase_ns + k · round_ns.  round_ns 0:
 * no timed resets (epoch 0; the control plane ends rounds itself). */
DC_INLINE __u64 dc_perc_epoch(__u64 now_ns, __u64 phase_ns, __u64 round_ns)
{
	if (!round_ns)
		return 0;
	phase_ns %= round_ns;
	return (now_ns + round_ns - phase_ns) / round_ns;
}

/* One timeout action: Alg. 5 (s-PERC), Alg. 9 (s-PERC*). */
DC_INLINE void dc_perc_reset_once(struct dc_perc_state *st)
{
	st->max_e_kbps = st->max_e2_kbps;
	st->max_e2_kbps = 0;
	if (st->mode & DC_PERC_M_STAR) {
		st->sum_e_kbps = st->sum_e2_kbps;
		st->sum_e2_kbps = 0;
		st->num_b = st->num_b2;
		st->num_b2 = 0;
	}
}

/*
 * The timeout actions, applied lazily when a packet arrives instead of by
 * a timer: the state is only observed by packets, so catching up on
 * arrival is the same as having run the timer.  Two resets leave every
 * reset variable 0, so d >= 2 needs only two; roundNumber advances by d
 * (1..255, wrapping past 0, which is the fresh packet's value).
 */
DC_INLINE void dc_perc_advance(struct dc_perc_state *st, __u64 epoch_now)
{
	__u64 d;

	if (epoch_now <= st->epoch)
		return;
	d = epoch_now - st->epoch;
	st->epoch = epoch_now;
	dc_perc_reset_once(st);
	if (d >= 2)
		dc_perc_reset_once(st);
	if (st->mode & DC_PERC_M_STAR) {
		__u32 rn = st->round_number;

		if (rn < 1 || rn > 255)
			rn = 1;
		st->round_number = (__u32)((rn - 1 + d % 255) % 255) + 1;
	}
}

/*
 * The flow's limit rate e at hop self (Alg. 6 line 9, Alg. 8 line 18): the
 * smallest b of the other hops whose ignore bit is clear, and l0's limit.
 * Only the first nhops of hops[DC_PERC_MAX_HOPS] are read.
 */
DC_INLINE __u32 dc_perc_limit_kbps(const struct dc_perc_hop *hops, __u32 nhops, __u32 self,
				   __u32 l0_kbps)
{
	__u32 e = l0_kbps, i;

	for (i = 0; i < DC_PERC_MAX_HOPS; i++) {
		if (i >= nhops)
			break;
		if (i == self || hops[i].ignore)
			continue;
		if (hops[i].b_kbps < e)
			e = hops[i].b_kbps;
	}
	return e;
}

/* Whether the link's main books count the flow of hop h: always for
 * s-PERC; for s-PERC* when it was seen this round or the previous one
 * (round numbers run 1..255 and wrap; 0 is a fresh or restarted flow). */
DC_INLINE bool dc_perc_in_books(const struct dc_perc_state *st, const struct dc_perc_hop *h)
{
	__u32 rn = st->round_number, prev = rn > 1 ? rn - 1 : 255;

	if (!(st->mode & DC_PERC_M_STAR) || (st->mode & DC_PERC_M_RN_LITERAL))
		return true;
	return h->round == rn || h->round == prev;
}

/*
 * One control packet at the link (Alg. 6; Alg. 8 with DC_PERC_M_STAR;
 * n-PERC's Alg. 4 with DC_PERC_M_NPERC).  h is the link's own hop entry,
 * rewritten in place; e_kbps the flow's limit rate (dc_perc_limit_kbps);
 * leaving: the FIN packet, seen once per link (forward only).  Pure: no
 * time, no locks; the caller applies dc_perc_advance first.
 */
DC_INLINE void dc_perc_update(struct dc_perc_state *st, struct dc_perc_hop *h, __u32 e_kbps,
			      bool leaving)
{
	bool star = st->mode & DC_PERC_M_STAR;
	bool was_e = !h->bneck;
	__u32 a_old = h->a_kbps, rn = st->round_number;
	__s64 avail;
	__u64 b;
	__s32 nb;
	__u32 a;

	/* Alg. 6 lines 5-7 / Alg. 8 lines 8-10: assume bottlenecked here.
	 * s-PERC*'s books hold only the flows seen this round or the last
	 * (Alg. 9 copies the shadows in at each reset): a flow not seen in
	 * either (its packet delayed past a reset) is not in them whatever
	 * its hop says, and joins as a new flow would. Lines 8-10 as printed
	 * would take a bottlenecked one out of NumB without ever having put it
	 * in (NumB = -1 after such a flow's FIN until the next reset). The
	 * literal variant keeps the printed lines. */
	if (!dc_perc_in_books(st, h)) {
		st->num_b += 1;
	} else if (was_e) {
		st->sum_e_kbps -= a_old;
		st->num_b += 1;
	}
	/* Alg. 8 lines 11-16: the shadow books, once per round per flow. */
	if (star) {
		if (h->round == rn) {
			if (was_e) {
				st->sum_e2_kbps -= a_old;
				st->num_b2 += 1;
			}
		} else {
			st->num_b2 += 1;
		}
	}
	/* Line 8 / 17: b = (C - SumE) / NumB, unsigned floor. */
	avail = (__s64)st->cap_kbps - st->sum_e_kbps;
	if (avail < 0)
		avail = 0;
	nb = st->num_b > 0 ? st->num_b : 1;
	b = (__u64)avail / (__u64)nb;
	if (b >= DC_PERC_INF_KBPS)
		b = DC_PERC_INF_KBPS - 1;
	/* Lines 10-13 / 19-22. */
	a = (__u32)b < e_kbps ? (__u32)b : e_kbps;
	h->b_kbps = (__u32)b;
	h->a_kbps = a;
	h->bneck = (__u32)b <= e_kbps;
	/* Lines 14-15 / 23-24: propagate b only when b >= MaxE.  n-PERC has no
	 * ignore bit: it always propagates. */
	if (st->mode & DC_PERC_M_NPERC)
		h->ignore = 0;
	else
		h->ignore = b < st->max_e_kbps;
	/* Lines 16-22 / 25-34. */
	if (leaving) {
		st->num_b -= 1;
		if (star)
			st->num_b2 -= 1;
	} else if (!h->bneck) {
		st->num_b -= 1;
		st->sum_e_kbps += a;
		if (a > st->max_e_kbps)
			st->max_e_kbps = a;
		if (a > st->max_e2_kbps)
			st->max_e2_kbps = a;
		if (star) {
			st->num_b2 -= 1;
			st->sum_e2_kbps += a;
		}
	}
	/* Lines 35-36: mark the flow seen this round. */
	if (star && h->round != rn) {
		if (st->mode & DC_PERC_M_RN_LITERAL)
			h->round = (__u8)(h->round + 1);
		else
			h->round = (__u8)rn;
	}
}

/* The rate a sender takes from a returned packet (Ch. 2.1, "the smallest
 * allocation carried in the latest packet"); DC_PERC_INF_KBPS if no hop. */
DC_INLINE __u32 dc_perc_rate_kbps(const struct dc_perc_hop *hops, __u32 nhops)
{
	__u32 r = DC_PERC_INF_KBPS, i;

	for (i = 0; i < DC_PERC_MAX_HOPS && i < nhops; i++)
		if (hops[i].a_kbps < r)
			r = hops[i].a_kbps;
	return r;
}

/* ---- map values (maps/perc.h) -------------------------------------------- */

/* Per directed link: configuration, state, counters. */
struct dc_perc_link {
	struct bpf_spin_lock lock;
	__u32 link_id;		/* must equal the hop's link_id (0: link unused) */
	__u64 round_ns;		/* round; 0: the control plane ends rounds (tick) */
	__u64 phase_ns;		/* T_0(l): resets at phase + k · round */
	__u64 tick;		/* with round_ns 0: the current epoch, set by the control plane */
	struct dc_perc_state st;
	__u64 updates;		/* control packets applied */
	__u64 fins;		/* FIN packets applied */
};

/* Per directed link: what the control plane asks for, read by every
 * control packet (dc_perc_lcfg).  Apart from dc_perc_link so that a live
 * change never writes the link's state: a user-space write of a whole
 * dc_perc_link would put back the SumE and NumB it read and lose the
 * updates packets made in between.  The link program copies cap_kbps into
 * its state under the link's lock before the update (C of Alg. 6 line 8
 * from that packet on); 0 = not set, the link keeps its own. */
struct dc_perc_lcfg {
	__u64 cap_kbps;		/* C: capacity allocated to data, kbps */
};

/* Interface -> directed link: forward packets update it at the interface's
 * TC egress, reverse packets at its TC ingress. */
struct dc_perc_port {
	__u32 link;		/* index into dc_perc_link */
	__u32 flags;		/* DC_PERC_PORT_* */
};
#define DC_PERC_PORT_HOST	0x1	/* a host port: reflect forward packets at ingress */

/* Why a control packet was not applied (index into dc_perc_stats.drop). */
enum dc_perc_drop {
	DC_PERC_D_SHORT = 0,	/* shorter than its header or its nhops hops */
	DC_PERC_D_VERSION,	/* unknown version */
	DC_PERC_D_NHOPS,	/* nhops 0 or > DC_PERC_MAX_HOPS */
	DC_PERC_D_INDEX,	/* hop index outside the path for its direction */
	DC_PERC_D_LINK,		/* hop's link_id is another link's, or the link is unused */
	DC_PERC_D_MAX,
};

#define DC_PERC_COUNTERS(X)                                                                  \
	X(ctrl_pkts, 0, "", "Control packets seen on configured ports.")                     \
	X(updates, 0, "", "Hop entries updated.")                                            \
	X(reflected, 0, "", "Forward control packets turned around at a receiver.")          \
	X(passed, 0, "", "Control packets passed untouched (FIN on reverse, no port).")
/* In the order of enum dc_perc_drop. */
#define DC_PERC_DROPS(X)                                                                     \
	X(drop_short, 0, "", "Dropped: shorter than the header or its hops.")                \
	X(drop_version, 0, "", "Dropped: unknown version.")                                  \
	X(drop_nhops, 0, "", "Dropped: no hops, or more than the most.")                     \
	X(drop_index, 0, "", "Dropped: hop index outside the path for its direction.")       \
	X(drop_link, 0, "", "Dropped: the hop names another link, or the link is unused.")
#define DC_PERC_ALL_COUNTERS(X) DC_PERC_COUNTERS(X) DC_PERC_DROPS(X)

struct dc_perc_stats {
	DC_PERC_COUNTERS(DC_CTR_FIELD)
	union {		/* the program counts by index (enum dc_perc_drop) */
		__u64 drop[DC_PERC_D_MAX];
		struct {
			DC_PERC_DROPS(DC_CTR_FIELD)
		};
	};
};
_Static_assert(sizeof(struct dc_perc_stats) ==
	       __builtin_offsetof(struct dc_perc_stats, drop) + DC_PERC_D_MAX * sizeof(__u64),
	       "DC_PERC_DROPS has one entry per enum dc_perc_drop");

#endif
