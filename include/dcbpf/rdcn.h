/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Reconfigurable datacenter networks: the periodic circuit schedule and its
 * slot arithmetic, shared by the schedule generators and the schedule
 * writer (loader/rdcn/), the host tests and, later, the fabric's BPF
 * programs.  Source: V. Addanki, "Adaptive Protocols and Reconfigurable
 * Optical Interconnects for Datacenter Networks" (PhD thesis, TU Berlin,
 * 2025), Ch. 7 (Mars: the rotor model, Def. 11-15, Corollary 1), Ch. 8
 * (Vermilion, Alg. 6), Ch. 9 (Alg. 7) and §2.4 (day, night, week).
 *
 * The model (Ch. 7 §7.3): every circuit switch runs a periodic sequence of
 * matchings.  A timeslot of length Δ (slot_ns) holds one matching; its
 * first Δ - Δ_r (day_ns) carry traffic, the last Δ_r reconfigure the
 * switch ("night"): the usable part comes first in every slot.  The
 * period Γ is `period` slots; slot 0 of the period starts at epoch_ns.
 * A ToR has `nup` uplinks, uplink u into circuit switch u, so a slot
 * holds one permutation of the ToRs per uplink: peer[u][i] is the ToR
 * that ToR i reaches over uplink u.  peer[u][i] = i is a self-loop (the
 * uplink idles in that slot; Ch. 7's round robin with self and Mars'
 * de Bruijn graphs have them).
 *
 * Integer time in ns, unsigned division only (BPF on 6.1 has no signed
 * division); every function is bounded and loop-free except the checks,
 * which loop over constant bounds.
 */
#ifndef DCBPF_RDCN_H
#define DCBPF_RDCN_H

#include "compat.h"

/* ToRs of one fabric: a peer is a u8, 0xff is reserved. */
#define DC_RD_TORS_MAX	64
/* Uplinks (circuit switches) per ToR. */
#define DC_RD_UP_MAX	8
/* Slots of one period (Γ): Vermilion's k·n/d̂ with k = 3, n = 64, d̂ = 1
 * is 192. */
#define DC_RD_SLOTS_MAX	256
/* A peer entry outside the fabric (ToR index >= ntors). */
#define DC_RD_IDLE	0xff
/* Two schedule copies: one live, one being written (maps/rdcn.h). */
#define DC_RD_BUFS	2

/* One schedule's timing and shape (dc_rd_cfg map, one per buffer). */
struct dc_rd_cfg {
	__u64 epoch_ns;		/* start of slot 0 of a period, CLOCK_MONOTONIC */
	__u64 slot_ns;		/* Δ: one matching, reconfiguration included */
	__u64 day_ns;		/* Δ - Δ_r: circuits up from the start of the slot */
	__u32 period;		/* Γ: slots per period */
	__u16 ntors;		/* n_t */
	__u16 nup;		/* n_u: uplinks per ToR, one circuit switch each */
};

/* One slot: the matching of every uplink (dc_rd_sched map value). */
struct dc_rd_slot {
	__u8 peer[DC_RD_UP_MAX][DC_RD_TORS_MAX];	/* [uplink][from ToR] = to ToR */
};

/* Why a configuration is refused (dc_rd_cfg_check). */
enum dc_rd_bad {
	DC_RD_OK = 0,
	DC_RD_BAD_SLOT,		/* slot_ns is 0 */
	DC_RD_BAD_DAY,		/* day_ns is 0 or not below slot_ns */
	DC_RD_BAD_PERIOD,	/* period is 0 or above DC_RD_SLOTS_MAX */
	DC_RD_BAD_TORS,		/* ntors below 2 or above DC_RD_TORS_MAX */
	DC_RD_BAD_UP,		/* nup is 0 or above DC_RD_UP_MAX */
	DC_RD_BAD_WRAP,		/* slot_ns x period overflows, or the epoch is that close to 2^63 */
	DC_RD_BAD_PEER,		/* a peer is not a ToR of the fabric */
	DC_RD_BAD_PERM,		/* two ToRs reach the same ToR over one uplink in one slot */
	DC_RD_BAD_SELF,		/* a self-loop where none is allowed */
	DC_RD_BAD_UNUSED,	/* an entry beyond ntors or nup is not DC_RD_IDLE */
};

DC_INLINE const char *dc_rd_bad_str(int bad)
{
	switch (bad) {
	case DC_RD_OK: return "ok";
	case DC_RD_BAD_SLOT: return "slot_ns is 0";
	case DC_RD_BAD_DAY: return "day_ns must be above 0 and below slot_ns (the night is the rest)";
	case DC_RD_BAD_PERIOD: return "period must be 1..256 slots";
	case DC_RD_BAD_TORS: return "tors must be 2..64";
	case DC_RD_BAD_UP: return "uplinks must be 1..8";
	case DC_RD_BAD_WRAP: return "slot_ns x period (or the epoch) is too large for 64-bit ns";
	case DC_RD_BAD_PEER: return "a peer is not a ToR of the fabric";
	case DC_RD_BAD_PERM: return "not a permutation: two ToRs reach the same ToR over one uplink";
	case DC_RD_BAD_SELF: return "a self-loop where none is allowed";
	case DC_RD_BAD_UNUSED: return "an entry beyond tors or uplinks is not idle (0xff)";
	}
	return "unknown";
}

/* Period length in ns; the caller checked the configuration. */
DC_INLINE __u64 dc_rd_period_ns(const struct dc_rd_cfg *c)
{
	return c->slot_ns * c->period;
}

/* The configuration is usable: enum dc_rd_bad.  Times stay below 2^63 ns
 * (292 years), so the flip word of maps/rdcn.h has its top bit free. */
DC_INLINE int dc_rd_cfg_check(const struct dc_rd_cfg *c)
{
	if (!c->slot_ns)
		return DC_RD_BAD_SLOT;
	if (!c->day_ns || c->day_ns >= c->slot_ns)
		return DC_RD_BAD_DAY;
	if (!c->period || c->period > DC_RD_SLOTS_MAX)
		return DC_RD_BAD_PERIOD;
	if (c->ntors < 2 || c->ntors > DC_RD_TORS_MAX)
		return DC_RD_BAD_TORS;
	if (!c->nup || c->nup > DC_RD_UP_MAX)
		return DC_RD_BAD_UP;
	/* period <= 256: slot_ns below 2^54 keeps slot_ns x period below 2^62 */
	if (c->slot_ns >= (1ULL << 54) || c->epoch_ns >= (1ULL << 62))
		return DC_RD_BAD_WRAP;
	return DC_RD_OK;
}

/*
 * Where `now` falls (Ch. 7: "from the start of every timeslot" the first
 * (1 - Δ_u) fraction is usable; §2.4: day, then night).
 * Returns -1 before the epoch or for an unusable configuration (nothing is
 * connected), 0 at night (every circuit down; *slot set), 1 during the day
 * (*slot set, *day_left_ns = ns until the circuits of this slot go down).
 */
DC_INLINE int dc_rd_where(const struct dc_rd_cfg *c, __u64 now_ns, __u32 *slot, __u64 *day_left_ns)
{
	__u64 t, k, off;

	if (!c->slot_ns || !c->period || now_ns < c->epoch_ns)
		return -1;
	t = now_ns - c->epoch_ns;
	k = t / c->slot_ns;
	off = t - k * c->slot_ns;
	*slot = (__u32)(k % c->period);
	if (off >= c->day_ns)
		return 0;
	*day_left_ns = c->day_ns - off;
	return 1;
}

/* Start of the slot after the one holding now_ns (the next circuit
 * change to a new matching); now_ns at or after the epoch. */
DC_INLINE __u64 dc_rd_next_slot_ns(const struct dc_rd_cfg *c, __u64 now_ns)
{
	__u64 t = now_ns - c->epoch_ns;

	return c->epoch_ns + (t / c->slot_ns + 1) * c->slot_ns;
}

/* The first period boundary (start of slot 0) at or after now_ns: where a
 * new schedule may take over without cutting a period short. */
DC_INLINE __u64 dc_rd_next_period_ns(const struct dc_rd_cfg *c, __u64 now_ns)
{
	__u64 p = dc_rd_period_ns(c), t, k;

	if (now_ns <= c->epoch_ns)
		return c->epoch_ns;
	t = now_ns - c->epoch_ns;
	k = t / p;
	if (k * p == t)
		return now_ns;
	return c->epoch_ns + (k + 1) * p;
}

/* ToR that `from` reaches over uplink `up` in slot s; DC_RD_IDLE if none. */
DC_INLINE __u32 dc_rd_peer(const struct dc_rd_slot *s, __u32 up, __u32 from)
{
	if (up >= DC_RD_UP_MAX || from >= DC_RD_TORS_MAX)
		return DC_RD_IDLE;
	return s->peer[up][from];
}

/* The uplink of `from` connected to `to` in slot s, or -1: is the pair
 * matched in this slot?  A self-loop never carries traffic. */
DC_INLINE int dc_rd_matched(const struct dc_rd_slot *s, __u32 nup, __u32 from, __u32 to)
{
	__u32 u;

	if (from == to || from >= DC_RD_TORS_MAX)
		return -1;
	for (u = 0; u < DC_RD_UP_MAX; u++) {
		if (u >= nup)
			break;
		if (s->peer[u][from] == to)
			return (int)u;
	}
	return -1;
}

/*
 * One slot is a permutation of the ToRs on every uplink (the rotor
 * switch's matching, Ch. 7 §7.3: "a map from the switch's input ports to
 * its output ports"), entries beyond the fabric idle.  enum dc_rd_bad;
 * *bad_up, *bad_tor say where.
 */
DC_INLINE int dc_rd_slot_check(const struct dc_rd_slot *s, __u32 ntors, __u32 nup, bool allow_self,
			       __u32 *bad_up, __u32 *bad_tor)
{
	__u32 u, i;

	for (u = 0; u < DC_RD_UP_MAX; u++) {
		__u64 seen = 0;

		for (i = 0; i < DC_RD_TORS_MAX; i++) {
			__u32 p = s->peer[u][i];

			*bad_up = u;
			*bad_tor = i;
			if (u >= nup || i >= ntors) {
				if (p != DC_RD_IDLE)
					return DC_RD_BAD_UNUSED;
				continue;
			}
			if (p >= ntors)
				return DC_RD_BAD_PEER;
			if (seen & (1ULL << p))
				return DC_RD_BAD_PERM;
			if (p == i && !allow_self)
				return DC_RD_BAD_SELF;
			seen |= 1ULL << p;
		}
	}
	return DC_RD_OK;
}

/* ---- the live schedule: two buffers and a flip word (maps/rdcn.h) ------
 * The flip word says which buffer is live: `buf` from flip_at_ns on, the
 * other one before.  One 64-bit word, so a reader never sees half of a
 * change: bit 63 is the buffer, bits 0..62 the time (ns below 2^63).  A
 * writer fills the buffer not live now, then stores the word with the
 * next period boundary of the live schedule: the switch-over happens in
 * the data path at that instant, whatever the writer's own lateness.
 * A zero word: buffer 0 from time 0 on.
 */
struct dc_rd_flip {
	__u64 buf_at_ns;	/* bit 63: buffer live from then on; bits 0..62: ns */
};

#define DC_RD_FLIP_BUF_BIT	63
#define DC_RD_FLIP_TIME_MASK	((1ULL << DC_RD_FLIP_BUF_BIT) - 1)

DC_INLINE __u64 dc_rd_flip_make(__u64 flip_at_ns, __u32 buf)
{
	return (flip_at_ns & DC_RD_FLIP_TIME_MASK) | ((__u64)(buf & 1) << DC_RD_FLIP_BUF_BIT);
}

DC_INLINE __u64 dc_rd_flip_at_ns(__u64 word)
{
	return word & DC_RD_FLIP_TIME_MASK;
}

/* The buffer live at now_ns. */
DC_INLINE __u32 dc_rd_live_buf(__u64 word, __u64 now_ns)
{
	__u32 buf = (__u32)(word >> DC_RD_FLIP_BUF_BIT);

	return now_ns >= dc_rd_flip_at_ns(word) ? buf : buf ^ 1;
}

/* dc_rd_sched key of (buffer, slot). */
DC_INLINE __u32 dc_rd_sched_key(__u32 buf, __u32 slot)
{
	return (buf & 1) * DC_RD_SLOTS_MAX + (slot % DC_RD_SLOTS_MAX);
}

/* ---- the circuit switch (bpf/rdcn.bpf.c, the "referee") -----------------
 * A rotor switch is bufferless and forwards input port i to output port
 * σ_slot(i) only while its circuits are up (Ch. 7 §7.3; §2.4's day and
 * night).  The fabric's circuit-switch namespace holds every uplink's
 * port: ToR i's uplink u arrives at port (i, u).  A frame entering port
 * (i, u) for ToR j goes out at port (j, u) iff peer[u][i] = j in the live
 * slot and it is day; anything else is dropped and counted by reason, so
 * the counters measure the timing error of whatever sends into the fabric.
 * The destination ToR is the frame's next hop, read from its destination
 * MAC (the ToR's uplink address), not from its IP address: a packet
 * relayed through an intermediate ToR (VLB, Mars' multi-hop routes) needs
 * the circuit to that intermediate ToR only.
 */

/* A port of the circuit switch: (ToR, uplink) -> index tor x DC_RD_UP_MAX + up. */
#define DC_RD_PORTS	(DC_RD_TORS_MAX * DC_RD_UP_MAX)

DC_INLINE __u32 dc_rd_port_key(__u32 tor, __u32 up)
{
	return (tor % DC_RD_TORS_MAX) * DC_RD_UP_MAX + (up % DC_RD_UP_MAX);
}

/* What the referee does with one frame; every value but PASS is a drop
 * reason with its own counter (struct dc_rd_pcnt). */
enum dc_rd_verdict {
	DC_RD_V_PASS = 0,	/* day, pair matched: out to the destination ToR's port */
	DC_RD_V_NOSCHED,	/* no schedule live (before the first flip's instant) */
	DC_RD_V_NIGHT,		/* the circuits are being reconfigured */
	DC_RD_V_UNMATCHED,	/* this uplink does not connect the pair in this slot */
	DC_RD_V_NODEST,		/* the next hop is no ToR of the live fabric (or the sender) */
	DC_RD_V_SHORT,		/* shorter than an Ethernet header: no destination to read */
};

/*
 * The decision for a frame from ToR `from` on uplink `up` to ToR `to`.
 * where: dc_rd_where's answer for now under c; s: the live slot's
 * matchings (read only during the day; NULL otherwise is fine).  Pure:
 * the BPF program and the host tests call it alike.
 */
DC_INLINE int dc_rd_judge(int where, const struct dc_rd_cfg *c, const struct dc_rd_slot *s, __u32 up,
			  __u32 from, __u32 to)
{
	if (where < 0)
		return DC_RD_V_NOSCHED;
	if (from >= c->ntors || to >= c->ntors || from == to || from >= DC_RD_TORS_MAX)
		return DC_RD_V_NODEST;
	if (where == 0)
		return DC_RD_V_NIGHT;
	if (!s || up >= c->nup || up >= DC_RD_UP_MAX || s->peer[up][from] != to)
		return DC_RD_V_UNMATCHED;
	return DC_RD_V_PASS;
}

/* Counters of one port of the circuit switch (dc_rd_pcnt): what came in
 * at it, where it went, and what left by it as a destination. */
#define DC_RD_PORT_COUNTERS(X)                                                                \
	X(rx_pkts, 0, "", "Frames that entered the circuit switch at this port.")            \
	X(pass_pkts, 0, "", "Frames of this port sent on over a matched circuit.")           \
	X(pass_bytes, 0, "", "Bytes of those frames.")                                        \
	X(out_pkts, 0, "", "Frames that left by this port (it was their destination).")     \
	X(drop_nosched, 0, "", "Dropped: no schedule live yet.")                              \
	X(drop_night, 0, "", "Dropped: the circuits were being reconfigured.")                \
	X(drop_unmatched, 0, "", "Dropped: the pair was not matched on this uplink now.")     \
	X(drop_nodest, 0, "", "Dropped: the next hop is not a ToR of the fabric.")            \
	X(drop_short, 0, "", "Dropped: shorter than an Ethernet header.")

#define DC_RD_PCNT_FIELD(field, flags, prom, help) __u64 field;
struct dc_rd_pcnt {
	DC_RD_PORT_COUNTERS(DC_RD_PCNT_FIELD)
};

/* ifindex of the circuit switch -> the port it is (dc_rd_port). */
struct dc_rd_port {
	__u16 tor;
	__u16 up;
};

/* A ToR's uplink MAC -> that ToR (dc_rd_mac); the key is padded to 8. */
struct dc_rd_mac_key {
	__u8 addr[6];
	__u16 pad;
};

struct dc_rd_dst {
	__u32 tor;
};

/* port key -> the interface frames for that port leave by (dc_rd_out);
 * 0: no such port. */
struct dc_rd_out {
	__u32 ifindex;
};

/* ---- VOQs at the ToRs (bpf/rdcn.bpf.c dc_rd_voq, loader/rdcn/voq.c) -----
 * A ToR holds the packets for each destination ToR in a virtual output
 * queue until the circuit to that ToR is up (the thesis' per-destination
 * VOQs, §2.4; Ch. 7 §7.3 "packets wait at the ToR").  Emulated with what
 * the kernel offers: the uplink's root qdisc is an HTB whose class 1:(j+1)
 * is the VOQ of next hop j (chosen by skb->priority, set at TC egress by
 * dc_rd_voq), each class holding a TBF that is the gate: open (the
 * circuit's rate) from the start of a slot that matches the pair, closed
 * (1 byte/s with a bucket of one frame) guard_ns before that day ends.
 * A TBF change refills the bucket and keeps the queue; nothing restarts
 * the queue after a change, so the driver sends a kick frame into a VOQ
 * it opens and a drain frame (one full bucket) into a VOQ it closes.
 * Both carry DC_RD_KICK_PROTO and the VOQ's ToR in their first payload
 * byte, and are addressed to no ToR (broadcast): the circuit switch drops
 * them as drop_nodest.
 */

/* The HTB root handle of a VOQ uplink (major 1). */
#define DC_RD_VOQ_MAJOR		1
/* The TBF gate under class 1:(j+1) has handle (DC_RD_GATE_MAJOR + j):. */
#define DC_RD_GATE_MAJOR	0x100
/* IEEE 802 local experimental ethertype 1: the gate driver's kick and
 * drain frames. */
#define DC_RD_KICK_PROTO	0x88b5

/* classid of the VOQ of next hop `to`: 1:(to+1) (minor 0 names the qdisc). */
DC_INLINE __u32 dc_rd_voq_classid(__u32 to)
{
	return ((__u32)DC_RD_VOQ_MAJOR << 16) | ((to % DC_RD_TORS_MAX) + 1);
}

/* The TBF gate's handle of the VOQ of `to`. */
DC_INLINE __u32 dc_rd_gate_handle(__u32 to)
{
	return (DC_RD_GATE_MAJOR + (to % DC_RD_TORS_MAX)) << 16;
}

/*
 * The gate times of the slot holding t (t at or after the epoch): the
 * circuits carry traffic in [start, start + day); a VOQ opens at the
 * start and closes guard_ns before the day ends, so that what it still
 * lets go at the close (at most one bucket, sent at once) meets the
 * circuit up.  guard_ns not below day_ns: the gate never opens
 * (*close_ns = *open_ns).  Returns the slot's index in the period.
 */
DC_INLINE __u32 dc_rd_gate_times(const struct dc_rd_cfg *c, __u64 t, __u64 guard_ns, __u64 *open_ns,
				 __u64 *close_ns)
{
	__u64 k = (t - c->epoch_ns) / c->slot_ns;

	*open_ns = c->epoch_ns + k * c->slot_ns;
	*close_ns = *open_ns + (guard_ns < c->day_ns ? c->day_ns - guard_ns : 0);
	return (__u32)(k % c->period);
}

/* ---- INT's rate field following the slot (bpf/int_transit.bpf.c) -------
 * The rate a ToR's INT hop reports for a packet to next hop `to` (Ch. 2
 * §2.4: PowerTCP reads the bottleneck's bandwidth b from INT, so it sees
 * a circuit come and go only if the hop reports the circuit's rate while
 * it is up and the packet network's otherwise): circuit_mbps during the
 * day of a slot that matches (from, to) on uplink `up`, packet_mbps
 * otherwise (0: no packet network; the CC then skips the hop's sample).
 * where, c, s as for dc_rd_judge.
 */
DC_INLINE __u32 dc_rd_pair_rate_mbps(int where, const struct dc_rd_cfg *c, const struct dc_rd_slot *s, __u32 up,
				     __u32 from, __u32 to, __u32 circuit_mbps, __u32 packet_mbps)
{
	return dc_rd_judge(where, c, s, up, from, to) == DC_RD_V_PASS ? circuit_mbps : packet_mbps;
}

/* A ToR uplink whose INT hop follows the slot (dc_rd_tor: ifindex ->). */
struct dc_rd_tor {
	__u16 tor;		/* this ToR */
	__u16 up;		/* the uplink this interface is */
	__u32 circuit_mbps;	/* reported while the pair's circuit is up */
	__u32 packet_mbps;	/* reported otherwise (0: none) */
	__u32 pad;
};

#endif
