/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ResQueue: priority from flow size and drop history.  Source: H. Rezaei,
 * "Adaptive Microburst Control Techniques in Incast-Heavy Datacenter
 * Networks", PhD thesis, UIC 2021, §3.3 (ResQueue, WWW'20), on top of
 * PIAS (Bai et al., "Information-Agnostic Flow Scheduling for Commodity
 * Data Centers", NSDI'15).
 *
 * Switches run a multi-level feedback queue: strict priority, level 1 the
 * highest.  The sender tags each packet with a level from the number of
 * bytes its flow has sent (PIAS): a flow starts at the top MLFQ level and
 * is demoted each time its bytes sent pass a threshold.  ResQueue
 * reserves level 1, with its own small buffer (20 KB in §4.3: "sweet spot
 * between 15KB and 20KB", Fig. 33), for retransmissions: new packets
 * start at level 2, and a retransmitted packet is tagged one level above
 * what its bytes sent give ("it subtracts one from the calculated value
 * because of its drop history", §3.3):
 *
 *	level(pkt) = mlfq_level(bytes_sent) - (retransmission ? 1 : 0)
 *	mlfq_level(b) = base + |{ i : b >= thresh[i] }|,  base = 2
 *
 * So a one-packet flow's retransmission goes from level 2 to level 1
 * (§3.3's first example) and a long flow at level 4 retransmits its
 * window at level 3 while its new packets stay at level 4 (§3.3's
 * second example).  Only flows still at level 2 (short flows) reach the
 * reserved queue.
 *
 * Plain PIAS is the same tagger with promotion off and base = 1: flows
 * start in queue 1 and nothing is reserved (the thesis' PIAS baseline).
 *
 * Retransmission: a data segment (or SYN/FIN) starting below the highest
 * sequence the flow has sent.  Which retransmissions count the thesis
 * leaves open: any (default), or only those after a retransmission
 * timeout ("upon timeouts, the priority is decremented", §3.3), which
 * needs the socket's RTO event (sockops) to say where the timeout was.
 *
 * Default thresholds (the thesis gives none; PIAS solves them from the
 * flow-size distribution and load, NSDI'15 §4.3): with base 2 and the
 * levels 2..4, two thresholds:
 *   32 KB   the largest short flow of the thesis' workloads (8-32 KB in
 *           §4.1, 1-6 KB in §4.3): every short flow stays at level 2, so
 *           its retransmissions are the ones promoted to level 1;
 *   256 KB  a quarter of the 1 MB long flows: a long flow sends its last
 *           3/4 at level 4, and the window it retransmits (level 3) still
 *           waits behind every short flow's first transmission (level 2).
 * Levels 2..4 with the reserved level make 4 queues, the number PIAS has
 * in the thesis' comparison (§4.1), so both use the same switch ports.
 *
 * On the wire (the thesis names no field): a class selector, highest for
 * level 1: level L leaves as CS(cs_top + 1 - L), cs_top = 7 by default
 * (level 1 CS7, level 2 CS6, ..., level 4 CS4).  The switch's default
 * DSCP -> priority map (priority = DSCP >> 3) and its queues (a higher
 * priority is served first, priority p in queue min(p, N - 1)) then give
 * each level its own queue with 8 queues per port, and untagged traffic
 * (CS0) the lowest.  With N < 8 queues, cs_top = N - 1 maps level 1 to
 * the top queue and the others below it (the lowest level may share CS0
 * with untagged traffic).  The ECN bits are kept.
 *
 * Shared by bpf/resq_host.bpf.c, the CLI and the host tests.
 */
#ifndef DCBPF_RESQUEUE_H
#define DCBPF_RESQUEUE_H

#include "compat.h"
#include "counters.h"

#define DC_RESQ_LEVEL_MAX	7	/* CS7: the 3-bit class selector */
#define DC_RESQ_THRESH_MAX	6	/* levels 2..7 (ResQueue) or 1..7 (PIAS) */
#define DC_RESQ_LEVEL_RESERVED	1	/* retransmissions of short flows */
#define DC_RESQ_BASE_RESQ	2	/* ResQueue: new packets from level 2 */
#define DC_RESQ_BASE_PIAS	1	/* PIAS: from level 1, nothing reserved */
#define DC_RESQ_RESERVED_BYTES_DEFAULT 20000	/* level 1's buffer at a switch (§4.3) */
#define DC_RESQ_CS_SHIFT	5	/* the class selector in the TOS byte: TOS >> 5 */
#define DC_RESQ_CS_TOP_DEFAULT	7	/* level 1 leaves as CS7 */
#define DC_RESQ_TOS_DSCP_MASK	0xfc	/* DSCP in the TOS byte; the rest is ECN */

/* Which retransmissions are promoted (dc_resq_cfg.promote). */
enum dc_resq_promote {
	DC_RESQ_PROMOTE_OFF = 0,	/* plain PIAS: none, base level 1 */
	DC_RESQ_PROMOTE_ANY = 1,	/* every retransmission (default) */
	DC_RESQ_PROMOTE_RTO = 2,	/* only after a retransmission timeout */
	DC_RESQ_PROMOTE_MAX = 3,
};

/* The tagger's configuration (one entry, written by `dcbpf resq set`). */
struct dc_resq_cfg {
	__u32 promote;				/* enum dc_resq_promote */
	__u32 nthresh;				/* thresholds in use, 0..DC_RESQ_THRESH_MAX */
	__u32 thresh_bytes[DC_RESQ_THRESH_MAX];	/* strictly increasing */
	__u32 reserved_bytes;			/* level 1's buffer at the switches (documents the
						 * deployment; the switch enforces it) */
	__u32 enabled;				/* 0: pass every packet untouched */
	__u32 cs_top;				/* class selector of level 1, 1..7: level L
						 * leaves as CS(cs_top + 1 - L) */
	__u32 idle_us;				/* a flow idle longer starts over at the base
						 * level (dc_resq_idle_restart); 0: never */
};

DC_INLINE void dc_resq_cfg_default(struct dc_resq_cfg *c)
{
	__builtin_memset(c, 0, sizeof(*c));
	c->promote = DC_RESQ_PROMOTE_ANY;
	c->nthresh = 2;
	c->thresh_bytes[0] = 32 * 1024;
	c->thresh_bytes[1] = 256 * 1024;
	c->reserved_bytes = DC_RESQ_RESERVED_BYTES_DEFAULT;
	c->enabled = 1;
	c->cs_top = DC_RESQ_CS_TOP_DEFAULT;
}

/* The level new packets start at: 2 (ResQueue), 1 (PIAS). */
DC_INLINE __u32 dc_resq_base(const struct dc_resq_cfg *c)
{
	return c->promote == DC_RESQ_PROMOTE_OFF ? DC_RESQ_BASE_PIAS : DC_RESQ_BASE_RESQ;
}

/*
 * 0 if c is usable: a known promotion mode, thresholds strictly
 * increasing and non-zero, and the lowest level base + nthresh within
 * the class selector (<= 7).  Else a negative reason (user space names it).
 */
enum dc_resq_bad {
	DC_RESQ_BAD_PROMOTE = 1,
	DC_RESQ_BAD_NTHRESH,	/* too many levels for the mode */
	DC_RESQ_BAD_ORDER,	/* a threshold 0 or not above the one before */
	DC_RESQ_BAD_CS,		/* cs_top not 1..7, or levels below CS0 */
};

DC_INLINE int dc_resq_cfg_check(const struct dc_resq_cfg *c)
{
	__u32 i;

	if (c->promote >= DC_RESQ_PROMOTE_MAX)
		return -DC_RESQ_BAD_PROMOTE;
	if (c->nthresh > DC_RESQ_THRESH_MAX || dc_resq_base(c) + c->nthresh > DC_RESQ_LEVEL_MAX)
		return -DC_RESQ_BAD_NTHRESH;
	for (i = 0; i < c->nthresh && i < DC_RESQ_THRESH_MAX; i++)
		if (!c->thresh_bytes[i] || (i && c->thresh_bytes[i] <= c->thresh_bytes[i - 1]))
			return -DC_RESQ_BAD_ORDER;
	/* every level its own class; the lowest may be CS0 */
	if (!c->cs_top || c->cs_top > DC_RESQ_LEVEL_MAX ||
	    dc_resq_base(c) + c->nthresh > c->cs_top + 1)
		return -DC_RESQ_BAD_CS;
	return 0;
}

/* PIAS' MLFQ level from the bytes the flow has sent before this packet. */
DC_INLINE __u32 dc_resq_mlfq_level(const struct dc_resq_cfg *c, __u64 bytes_sent)
{
	__u32 level = dc_resq_base(c), i;

	for (i = 0; i < DC_RESQ_THRESH_MAX; i++) {
		if (i >= c->nthresh || bytes_sent < c->thresh_bytes[i])
			break;
		level++;
	}
	return level > DC_RESQ_LEVEL_MAX ? DC_RESQ_LEVEL_MAX : level;
}

/*
 * §3.3's two rounds: the MLFQ level, then one level up for a retransmission
 * the mode promotes (rto: the caller says whether a timeout preceded it).
 * Never above level 1.
 */
DC_INLINE __u32 dc_resq_level(const struct dc_resq_cfg *c, __u64 bytes_sent, bool retx,
			      bool after_rto)
{
	__u32 level = dc_resq_mlfq_level(c, bytes_sent);
	bool promote = retx && (c->promote == DC_RESQ_PROMOTE_ANY ||
				(c->promote == DC_RESQ_PROMOTE_RTO && after_rto));

	return promote && level > 1 ? level - 1 : level;
}

/* The class selector level leaves with: CS(cs_top + 1 - level), CS0 below. */
DC_INLINE __u32 dc_resq_cs(__u32 cs_top, __u32 level)
{
	return level && level <= cs_top ? cs_top + 1 - level : 0;
}

/* The TOS byte carrying level: its class selector, ECN bits kept. */
DC_INLINE __u8 dc_resq_tos(__u8 tos, __u32 level, __u32 cs_top)
{
	return (__u8)((tos & ~DC_RESQ_TOS_DSCP_MASK) |
		      ((dc_resq_cs(cs_top, level) & 7) << DC_RESQ_CS_SHIFT));
}

/* The level a TOS byte carries; 0 for CS0 (untagged, or a level past
 * cs_top) and for classes above cs_top (not a level). */
DC_INLINE __u32 dc_resq_tos_level(__u8 tos, __u32 cs_top)
{
	__u32 cs = (tos >> DC_RESQ_CS_SHIFT) & 7;

	return cs && cs <= cs_top ? cs_top + 1 - cs : 0;
}

/* Serial-number order of TCP sequence numbers (RFC 1982): a before b. */
DC_INLINE bool dc_seq_before(__u32 a, __u32 b)
{
	return (__s32)(a - b) < 0;
}

/*
 * Per flow, kept by the tagger: the highest sequence sent and the bytes
 * sent (new data only, so retransmissions do not demote a flow).
 */
struct dc_resq_flow {
	__u64 bytes_sent;	/* payload bytes of first transmissions */
	__u64 pkts;		/* packets tagged */
	__u64 retx_pkts;	/* retransmissions seen */
	__u64 promoted_pkts;	/* retransmissions tagged one level up */
	__u32 max_end_seq;	/* highest sequence sent + 1 (SYN and FIN count 1) */
	__u32 rto_high_seq;	/* sockops: max_end_seq at the last timeout */
	__u32 rto_count;	/* timeouts seen by sockops */
	__u8 level;		/* level of the last packet tagged */
	__u8 started;		/* max_end_seq is valid */
	__u8 pad[2];
	__u64 last_ns;		/* when the flow last sent a segment with payload, SYN or FIN */
	__u32 idle_restarts;	/* times it started over after idle_us (dc_resq_idle_restart) */
	__u32 pad2;
};

/*
 * A segment of seq, len (payload + SYN + FIN) on flow f: 1 if it
 * retransmits anything already sent.  Advances max_end_seq and
 * bytes_sent by the new part; *before_bytes gets the bytes sent before
 * this segment (what its level is computed from).  A flow first seen
 * mid-stream starts at this segment.
 */
DC_INLINE bool dc_resq_account(struct dc_resq_flow *f, __u32 seq, __u32 len, __u32 payload,
			       __u64 *before_bytes)
{
	__u32 end = seq + len;
	bool retx = false;

	*before_bytes = f->bytes_sent;
	if (!len)
		return false;		/* pure ACK: sends nothing */
	if (!f->started) {
		f->started = 1;
		f->max_end_seq = seq;
	}
	if (dc_seq_before(seq, f->max_end_seq))
		retx = true;
	if (dc_seq_before(f->max_end_seq, end)) {
		__u32 fresh = end - (dc_seq_before(seq, f->max_end_seq) ? f->max_end_seq : seq);

		/* count payload, not the SYN/FIN sequence numbers */
		f->bytes_sent += fresh < payload ? fresh : payload;
		f->max_end_seq = end;
	}
	return retx;
}

/*
 * A persistent connection carries one message after another, and PIAS'
 * levels are per message: without a restart the connection's second
 * message would start where its first ended (a 1 KB request after a 1 MB
 * one at the lowest level).  PIAS (NSDI'15) treats a connection that
 * has been idle as a new flow; so here: a segment of new data (at or
 * past the highest sequence, len > 0) that comes more than idle_us after
 * the flow last sent starts the flow over — bytes_sent back to 0, so
 * this segment is tagged at the base level.  A retransmission never
 * restarts (a timeout's go-back-N is not a new message) and the highest
 * sequence stays, so later retransmissions are still recognised.
 * Records now_ns as the flow's last send for every segment with len > 0.
 * Returns 1 if the flow started over.  idle_us 0: never.
 */
DC_INLINE bool dc_resq_idle_restart(struct dc_resq_flow *f, __u32 seq, __u32 len, __u64 now_ns,
				    __u32 idle_us)
{
	bool restart;

	if (!len)
		return false;		/* pure ACK: sends nothing */
	restart = idle_us && f->started && f->last_ns && !dc_seq_before(seq, f->max_end_seq) &&
		  now_ns - f->last_ns > (__u64)idle_us * 1000;
	f->last_ns = now_ns;
	if (restart) {
		f->bytes_sent = 0;
		f->idle_restarts++;
	}
	return restart;
}

/* RTO mode: seq was sent before the flow's last timeout (sockops wrote
 * rto_high_seq = snd_nxt then), so re-sending it is the timeout's
 * retransmission.  Go-back-N after an RTO re-sends exactly that range. */
DC_INLINE bool dc_resq_after_rto(const struct dc_resq_flow *f, __u32 seq)
{
	return f->rto_count && dc_seq_before(seq, f->rto_high_seq);
}

#define DC_RESQ_COUNTERS(X)                                                           \
	X(tagged, 0, "", "TCP/IPv4 packets tagged with their level.")                 \
	X(retx, 0, "", "Retransmissions seen (a segment below the flow's highest sequence).") \
	X(promoted, 0, "", "Retransmissions tagged one level up.")                   \
	X(passed, 0, "", "Packets passed untouched (not TCP/IPv4, fragments, malformed).") \
	X(gso, 0, "", "GSO packets tagged as one (one level for all their segments).") \
	X(rto, 0, "", "Retransmission timeouts reported by sockops.")                 \
	X(tag_err, 0, "", "Tags the kernel refused to write.")

struct dc_resq_counters {
	DC_RESQ_COUNTERS(DC_CTR_FIELD)
};

/*
 * The switch's reserved level (level 1, its port's highest queue): its
 * own buffer of reserved_bytes per port, apart from the shared one
 * (§4.3: "we reserve the first queue for those retransmitted packets
 * that belong to short flows (the size of this queue is 20KB in our
 * experiments)").  A packet joins it if the queue, this packet included,
 * stays within that buffer, whatever the shared buffer holds.
 */
DC_INLINE bool dc_resq_reserved_fits(__u64 q_bytes, __u32 len, __u32 reserved_bytes)
{
	return q_bytes + len <= reserved_bytes;
}

#endif
