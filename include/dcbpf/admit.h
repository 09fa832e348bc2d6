/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Buffer-sharing admission core: Complete Sharing, Dynamic Thresholds,
 * ABM, LQD's push-out choice, and Credence / FollowLQD (end of file);
 * SmartBuf and EDT learn from queue samples in smartbuf.h and edt.h and
 * decide here (dc_adm_decide_sb).  Pure and integer-only so the XDP
 * program (bpf/switch.bpf.c) and the simulator (dcbpf sim) run the very
 * same decisions; equation and section numbers are those of Addanki's
 * thesis (ch.4 ABM, ch.6 Credence; docs/design.md, "References").
 *
 * Quantities: q = length of the packet's queue, Q = occupancy of the
 * shared buffer, B = its size, len = size of the arriving packet.  All in
 * the same unit: bytes in the data plane and in the simulator's byte
 * mode, packets (len = 1) in the simulator's unit mode.  α, γ are Q16.
 *
 *   CS:  T = B                                        (admit while it fits)
 *   DT:  T = α_p · (B − Q)                            (Eq. 4.5)
 *   ABM: T = α_p · (1/n_p) · (B − Q) · γ,  γ = μ/b    (Eq. 4.9)
 *        first-RTT packets use α_first_rtt instead of α_p (§4.2.3)
 *
 * Admission (one rule for every algorithm and unit), decided on the state
 * the packet finds: q and Q before it is counted.
 *   drop "full"   if Q + len > B       (checked first: the packet must fit)
 *   drop "thresh" unless q < T         (admit while q < T, Eq. 4.5's rule)
 *   admit         otherwise
 * The comparison is exact: the thresholds below are T rounded UP to a
 * whole unit, and for an integer q, q < x holds exactly when q < ⌈x⌉.  So
 * with B = 4, α = 0.5 and one port two packets are admitted in one slot
 * (0 < 2, then 1 < 1.5).  In bytes a queue just below T takes a whole
 * packet and can end up to one packet above T.
 *
 * Overflow: B < 2^32 and α, γ < 2^32 keep (B − Q)·α < 2^64; with the
 * configured bounds (α ≤ 1024 = 2^26 in Q16, γ ≤ 1) the ABM product
 * (B − Q)·α·γ < 2^74 is taken in two 32-bit halves (dc_mul_q32_ceil),
 * every intermediate below 2^64.  Divisions are unsigned.
 */
#ifndef DCBPF_ADMIT_H
#define DCBPF_ADMIT_H

#include "fixed.h"
#include "switch.h"

#define DC_ALPHA_MAX_Q16 (1024U << DC_Q16_SHIFT)
/* Defaults: α = 0.5 and α_first_rtt = 64 as in the ABM and Credence
 * evaluations (ABM, SIGCOMM'22; Credence, NSDI'24); the ABM period is about two base RTTs of
 * the emulated fabric (≈ 50 µs), the paper's "once per RTT" rounded up
 * so the update runs at most 10 000 times a second. */
#define DC_DEFAULT_ALPHA_Q16 (DC_Q16_ONE / 2)
#define DC_DEFAULT_ALPHA_FIRST_RTT_Q16 (64U << DC_Q16_SHIFT)
#define DC_DEFAULT_ABM_PERIOD_US 100
#define DC_DEFAULT_BUFFER_BYTES 1000000
/* ABM's γ floor: a backlogged queue that drained nothing in a period
 * (paused by the shaper) keeps 1/16 of its share instead of zero. */
#define DC_ABM_GAMMA_MIN_Q16 (DC_Q16_ONE / 16)

enum dc_verdict {
	DC_V_ADMIT = 0,
	DC_V_DROP_THRESH = 1,	/* q ≥ T (Credence: q + len > T_i) */
	DC_V_DROP_FULL = 2,	/* Q + len > B */
	DC_V_DROP_PRED = 3,	/* Credence: the drop prediction said drop */
};

/* Inputs of one admission decision. */
struct dc_adm_in {
	__u64 q;		/* queue length (bytes or units) */
	__u64 Q;		/* shared occupancy */
	__u64 B;		/* shared buffer size, < 2^32 */
	__u32 len;		/* arriving packet */
	__u32 alpha_q16;	/* α of the packet (priority or first RTT) */
	__u32 gamma_q16;	/* ABM: normalised drain rate of the queue */
	__u32 n_congested;	/* ABM: n_p, at least 1 */
};

/* Remaining shared buffer B − Q, zero when over-full. */
DC_INLINE __u64 dc_adm_free(__u64 B, __u64 Q)
{
	return Q < B ? B - Q : 0;
}

/* DT (Eq. 4.5): T = ⌈α·(B − Q)⌉ (Q16 α; rounded up, see the top). */
DC_INLINE __u64 dc_dt_threshold(__u64 B, __u64 Q, __u32 alpha_q16)
{
	return (dc_adm_free(B, Q) * alpha_q16 + (DC_Q16_ONE - 1)) >> DC_Q16_SHIFT;
}

/* ⌈m·g / 2^32⌉ without a 128-bit product: m = h·2^32 + l, and
 * m·g / 2^32 = h·g + l·g / 2^32 with l·g < 2^64.  Needs h·g < 2^64. */
DC_INLINE __u64 dc_mul_q32_ceil(__u64 m, __u32 g)
{
	__u64 lo = (m & 0xffffffffULL) * g;

	return (m >> 32) * g + (lo >> 32) + ((lo & 0xffffffffULL) != 0);
}

/* ABM (Eq. 4.9): T = ⌈α·(1/n)·(B − Q)·γ⌉, α and γ Q16.  n = 0 counts as 1.
 * ⌈⌈x⌉/n⌉ = ⌈x/n⌉, so rounding before the division by n loses nothing. */
DC_INLINE __u64 dc_abm_threshold(__u64 B, __u64 Q, __u32 alpha_q16, __u32 n,
				 __u32 gamma_q16)
{
	__u64 t = dc_mul_q32_ceil(dc_adm_free(B, Q) * alpha_q16, gamma_q16);

	return n > 1 ? t / n + (t % n != 0) : t;
}

/* Threshold of the configured algorithm.  LQD (push-out) admits up to the
 * whole buffer like CS; its push-out is dc_lqd_victim. */
DC_INLINE __u64 dc_adm_threshold(__u32 alg, const struct dc_adm_in *in)
{
	switch (alg) {
	case DC_ALG_DT:
		return dc_dt_threshold(in->B, in->Q, in->alpha_q16);
	case DC_ALG_ABM:
		return dc_abm_threshold(in->B, in->Q, in->alpha_q16, in->n_congested,
					in->gamma_q16);
	default:		/* CS, LQD */
		return in->B;
	}
}

/* The admission rule above; *thresh_out gets T (rounded up: the shortest
 * queue that is refused). */
DC_INLINE enum dc_verdict dc_adm_rule(const struct dc_adm_in *in, __u64 t)
{
	if (in->Q + in->len > in->B)
		return DC_V_DROP_FULL;
	if (in->q >= t)
		return DC_V_DROP_THRESH;
	return DC_V_ADMIT;
}

DC_INLINE enum dc_verdict dc_adm_decide(__u32 alg, const struct dc_adm_in *in,
					__u64 *thresh_out)
{
	__u64 t = dc_adm_threshold(alg, in);

	*thresh_out = t;
	return dc_adm_rule(in, t);
}

/*
 * SmartBuf and EDT (include/dcbpf/smartbuf.h, edt.h): a threshold from
 * the port's state, DT's where the state has none, under the same rule.
 * The caller has taken the queue sample (dc_sb_sample / dc_edt_sample).
 */
DC_INLINE enum dc_verdict dc_adm_decide_sb(__u32 alg, const struct dc_adm_in *in,
					   const struct dc_sb_port *sb,
					   const struct dc_edt_port *edt, __u64 *thresh_out)
{
	__u64 dt = dc_dt_threshold(in->B, in->Q, in->alpha_q16);
	__u64 t = alg == DC_ALG_EDT ? dc_edt_threshold(edt, in->B, dt) : dc_sb_threshold(sb, dt);

	*thresh_out = t;
	return dc_adm_rule(in, t);
}

/* α of a packet: ABM gives first-RTT (unscheduled) packets the larger
 * α_first_rtt (§4.2.3); the other algorithms use the priority's α. */
DC_INLINE __u32 dc_adm_alpha(__u32 alg, __u32 alpha_prio_q16, __u32 alpha_first_rtt_q16,
			     bool first_rtt)
{
	return alg == DC_ALG_ABM && first_rtt ? alpha_first_rtt_q16 : alpha_prio_q16;
}

/* ECN (DCTCP): mark an admitted packet when its queue, including it,
 * exceeds K.  K = 0 disables marking. */
DC_INLINE bool dc_ecn_mark(__u64 q, __u32 len, __u32 k)
{
	return k && q + len > k;
}

/* ABM's congested test (§4.1): q ≥ 0.9·T, without a division.  An empty
 * queue is never congested. */
DC_INLINE bool dc_abm_congested(__u64 q, __u64 thresh)
{
	return q && 10 * q >= 9 * thresh;
}

/*
 * ABM's normalised drain rate γ = μ/b of one queue over a period: bytes
 * the port sent (dtx_bytes) over what its rate could send in dt_ns.  A
 * queue that was empty at both ends of the period gets 1 (it will drain
 * at line rate as soon as it holds packets; measuring its idle period
 * would give a fresh burst a threshold of zero).  Clamped to
 * [DC_ABM_GAMMA_MIN_Q16, 1].
 */
DC_INLINE __u32 dc_abm_gamma_from(__u64 sent, __u64 could_send, bool backlogged)
{
	__u64 g;

	if (!backlogged || !could_send)
		return (__u32)DC_Q16_ONE;
	g = dc_q16_div(sent, could_send);
	return (__u32)dc_clamp_u64(g, DC_ABM_GAMMA_MIN_Q16, DC_Q16_ONE);
}

/* The same from a port's byte counter: could_send = rate · dt. */
DC_INLINE __u32 dc_abm_gamma_q16(__u64 dtx_bytes, __u64 dt_ns, __u32 rate_mbps,
				 bool backlogged)
{
	if (!rate_mbps || !dt_ns)
		return (__u32)DC_Q16_ONE;
	return dc_abm_gamma_from(dtx_bytes, dc_bytes_in_ns(rate_mbps, dt_ns), backlogged);
}

/* Floor n_p at 1 (Eq. 4.9 divides by it). */
DC_INLINE __u32 dc_abm_n(__u32 congested)
{
	return congested ? congested : 1;
}

/*
 * Strict-priority queues per port (docs/admission.md, "Priority queues").
 * With nq > 1 queues a port is an HTB whose leaves 1:1 … 1:nq are its
 * queues; queue k is served before queue j < k (HTB prio nq − 1 − k), and
 * a priority p goes to queue min(p, nq − 1): priority 0 (best effort,
 * DSCP CS0) is the lowest queue, the highest queue takes every priority
 * from nq − 1 up.  nq ≤ 1 is one queue per port, the root qdisc, as
 * before there were queues.
 *
 * The admission rule is unchanged; what changes is what it is fed:
 *   q   = the backlog of the packet's queue (its HTB leaf), not the port's;
 *   Q   = the whole shared buffer, every queue of every port;
 *   α   = the packet's priority's α;
 *   ABM: n_p = the number of congested queues of the packet's queue class
 *        (priority class), γ = that queue's drain rate over the port rate
 *        (ABM, SIGCOMM'22, Eq. 4.9: per queue and per priority).
 * DT (Eq. 4.5) is per queue against the shared buffer: each of the
 * port's queues has its own threshold α_p·(B − Q).
 */
#define DC_HTB_MAJOR 0x10000U		/* handle 1: of the port's root HTB */

DC_INLINE __u32 dc_nq(__u32 nqueues)
{
	return nqueues ? (nqueues > DC_SW_QUEUES_MAX ? DC_SW_QUEUES_MAX : nqueues) : 1;
}

/* Queue of priority p on a port with nqueues queues. */
DC_INLINE __u32 dc_queue_of_prio(__u32 prio, __u32 nqueues)
{
	__u32 nq = dc_nq(nqueues);

	return prio < nq ? prio : nq - 1;
}

/* HTB leaf class id of queue k (skb->priority selects it: HTB reads a
 * priority whose major is its own handle as a class id). */
DC_INLINE __u32 dc_queue_classid(__u32 k)
{
	return DC_HTB_MAJOR | (k + 1);
}

/* HTB prio of queue k: lower is served first, so the highest queue gets 0. */
DC_INLINE __u32 dc_queue_htb_prio(__u32 k, __u32 nqueues)
{
	__u32 nq = dc_nq(nqueues);

	return k < nq ? nq - 1 - k : 0;
}

/* The queue an skb with this priority joined: its leaf if it names one,
 * else queue 0, HTB's default class (`default 1`). */
DC_INLINE __u32 dc_queue_of_classid(__u32 classid, __u32 nqueues)
{
	__u32 minor = classid & 0xffff;

	if ((classid & 0xffff0000U) != DC_HTB_MAJOR || !minor || minor > dc_nq(nqueues))
		return 0;
	return minor - 1;
}

/* Record index of (port, queue) in dc_sw_queue. */
DC_INLINE __u32 dc_qrec_key(__u32 port, __u32 queue)
{
	return port * DC_SW_QUEUES_MAX + (queue & (DC_SW_QUEUES_MAX - 1));
}

/*
 * The tracker's per-queue step.  The root HTB's backlog is the port's
 * (read from the qdisc as with one queue); a leaf's is followed from the
 * skbs the root takes in (qdisc_enqueue) and gives out (qdisc_dequeue):
 * each carries its leaf in skb->priority and its length as the qdisc
 * counts it (qdisc_skb_cb.pkt_len, what the leaf's bfifo adds and takes
 * off).  A missed event (a tracing program skipped by recursion) would
 * leave a leaf off for ever, so every event re-anchors on the port's real
 * backlog: a queue never exceeds the port, and an empty port empties all
 * of its queues.  Returns the new length of the queue.
 */
DC_INLINE __u64 dc_qtrack_step(__u64 qlen, __u64 len, bool deq, __u64 port_backlog)
{
	if (deq)
		qlen = qlen > len ? qlen - len : 0;
	else
		qlen += len;
	return qlen < port_backlog ? qlen : port_backlog;
}

/*
 * Re-anchor the port's queue records on its real backlog after an event:
 * their sum must equal it.  A difference (an event the tracer missed or
 * saw twice) is put on the lowest non-empty queue, where a strict-priority
 * port's backlog sits (queue 0 if all are empty), taking off at most what
 * that queue holds and going on upward.  Returns the bytes moved.
 */
DC_INLINE __u64 dc_qtrack_reconcile(__u64 *qlen, __u32 nq, __u64 port_backlog)
{
	__u64 sum = 0, moved = 0, d;
	__u32 k, low = 0;

	for (k = 0; k < nq && k < DC_SW_QUEUES_MAX; k++)
		sum += qlen[k];
	if (sum < port_backlog) {
		for (k = 0; k < nq && k < DC_SW_QUEUES_MAX; k++)
			if (qlen[k]) {
				low = k;
				break;
			}
		qlen[low] += port_backlog - sum;
		return port_backlog - sum;
	}
	for (k = 0; k < nq && k < DC_SW_QUEUES_MAX && sum > port_backlog; k++) {
		d = sum - port_backlog < qlen[k] ? sum - port_backlog : qlen[k];
		qlen[k] -= d;
		sum -= d;
		moved += d;
	}
	return moved;
}

/* Strict priority (simulator): the queue a port serves next, the highest
 * non-empty one; nq when all are empty. */
DC_INLINE __u32 dc_queue_next(const __u64 *qlen, __u32 nq)
{
	__u32 k;

	for (k = nq; k > 0; k--)
		if (qlen[k - 1])
			return k - 1;
	return nq;
}

/*
 * LQD push-out choice (simulator): the queue to drop from when an
 * arrival to queue `arriving` finds the buffer full.  The longest queue
 * loses its tail packet.  Ties: if the arriving queue is among the
 * longest, the arrival itself is dropped (returns `arriving`), which is
 * what real LQD does and what a virtual LQD must do to match it (the
 * T-C2 traces of tests/unit/test_credence.c); otherwise the lowest index among the longest.  The arrival
 * counts in its own queue's length (q[arriving] + len).
 */
DC_INLINE void dc_lqd_victim_step(const __u64 *q, __u32 j, __u32 arriving, __u64 *best,
				  __u32 *victim)
{
	if (j != arriving && q[j] > *best) {
		*best = q[j];
		*victim = j;
	}
}

DC_INLINE __u32 dc_lqd_victim(const __u64 *q, __u32 n, __u32 arriving, __u32 len)
{
	__u64 best = q[arriving] + len;
	__u32 i, victim = arriving;

	for (i = 0; i < n; i++)
		dc_lqd_victim_step(q, i, arriving, &best, &victim);
	return victim;
}

/*
 * Credence and FollowLQD (Addanki thesis Alg. 4/5 = Credence, NSDI'24,
 * Alg. 1/2).  Drop-tail algorithms whose per-queue thresholds T_i are the
 * queue lengths of a virtual LQD fed the same arrivals: Γ = Σ T_i ≤ B.
 *
 * Per arrival to queue i, in this order (the caller drives the steps):
 *   1. dc_cred_arrival: the threshold update (FollowLQD lines 18-28).  If
 *      the virtual buffer has room (Γ + len ≤ B), T_i += len.  Otherwise
 *      the virtual LQD makes room: it picks its victim with dc_lqd_victim
 *      on T (the same rule as the simulator's real LQD, so the two stay
 *      identical; tie rule below).  If the victim is i itself the virtual
 *      LQD drops the arrival and T is unchanged (the unit-packet text's
 *      "T_j − 1, T_i + 1" with j = i); else T_victim shrinks by what is
 *      missing (at most its length) and the search repeats, then
 *      T_i += len.  Unit packets: exactly one decrement and one increment.
 *   2. dc_cred_decide:
 *      Credence safeguard: accept if the longest queue is below B/N
 *        (max_j q_j · N < B, no division; Alg. 4 line 6's "<", not the
 *        ns-3 artifact's "≤"), provided it fits (Q + len ≤ B;
 *        implied with unit packets);
 *      drop "thresh" if q_i + len > T_i  (unit: the text's q_i < T_i; T_i
 *        already counts the arrival, so in bytes the real queue with the
 *        packet stays within the virtual one, unlike DT/ABM's q < T);
 *      drop "full"   if Q + len > B     (the text's Q(t) < B);
 *      Credence only: otherwise consult the drop prediction (*ask = true);
 *        a "drop" turns the admit into DC_V_DROP_PRED.
 *      FollowLQD is the same without safeguard and without predictions.
 *   3. dc_cred_depart once per queue per timeslot (FollowLQD lines 29-34):
 *      T_i drains by what the port can send in a slot (1 unit packet),
 *      floored at 0, independently of q_i: T is the virtual LQD's queue.
 *
 * Tie rule (virtual and real LQD, dc_lqd_victim): the arrival counts in
 * its own queue (T_i + len); if no other queue is strictly longer, the
 * arrival is the virtual drop; otherwise the strictly longest other queue
 * loses, the lowest index among equals.  With another tie rule the
 * virtual LQD can pick a different queue than the real one and Credence
 * with a perfect oracle diverges from LQD (tests/unit/test_credence.c, T-C2).
 *
 * Loops: at most n ≤ DC_CRED_QUEUES_MAX iterations of at most n steps.
 */
#define DC_CRED_QUEUES_MAX 64

/* One round of step 1's search for room (the XDP program runs the rounds
 * with bpf_loop, where an unrolled search is too costly to verify). */
enum dc_cred_room {
	DC_CRED_ROOM = 0,	/* Γ + len ≤ B: the arrival fits */
	DC_CRED_VDROP = 1,	/* the virtual LQD drops the arrival */
	DC_CRED_MORE = 2,	/* a queue shrank, still no room: another round */
};

/* The round's second half, once the victim j is known. */
DC_INLINE enum dc_cred_room dc_cred_room_apply(__u64 *T, __u64 *gamma, __u32 i, __u32 j, __u64 B,
					       __u32 len)
{
	__u64 d;

	if (j == i)
		return DC_CRED_VDROP;
	d = *gamma + len - B;
	if (d > T[j])
		d = T[j];
	T[j] -= d;
	*gamma -= d;
	return *gamma + len <= B ? DC_CRED_ROOM : DC_CRED_MORE;
}

DC_INLINE enum dc_cred_room dc_cred_room_step(__u64 *T, __u64 *gamma, __u32 n, __u32 i, __u64 B,
					      __u32 len)
{
	if (*gamma + len <= B)
		return DC_CRED_ROOM;
	return dc_cred_room_apply(T, gamma, i, dc_lqd_victim(T, n, i, len), B, len);
}

/* The arrival joins queue i once there is room. */
DC_INLINE void dc_cred_take(__u64 *T, __u64 *gamma, __u32 i, __u32 len)
{
	T[i] += len;
	*gamma += len;
}

/* Step 1: the virtual LQD takes the arrival; *gamma is Γ = Σ T. */
DC_INLINE void dc_cred_arrival(__u64 *T, __u64 *gamma, __u32 n, __u32 i, __u64 B, __u32 len)
{
	enum dc_cred_room r = DC_CRED_MORE;
	__u32 k;

	if (n > DC_CRED_QUEUES_MAX || i >= n)
		return;
	/* each round empties a queue or makes room: n rounds suffice */
	for (k = 0; k < DC_CRED_QUEUES_MAX && r == DC_CRED_MORE; k++)
		r = dc_cred_room_step(T, gamma, n, i, B, len);
	if (r == DC_CRED_ROOM)
		dc_cred_take(T, gamma, i, len);
}

/* Step 3: queue i's virtual LQD queue sends up to `sent` units. */
DC_INLINE void dc_cred_depart(__u64 *T, __u64 *gamma, __u32 i, __u64 sent)
{
	__u64 d = T[i] < sent ? T[i] : sent;

	T[i] -= d;
	*gamma -= d;
}

/* Inputs of step 2. */
struct dc_cred_in {
	__u64 q;		/* q_i, before the arrival */
	__u64 Q;		/* shared occupancy */
	__u64 B;
	__u64 T;		/* T_i after dc_cred_arrival */
	__u64 longest;		/* max_j q_j, before the arrival */
	__u32 n;		/* N, number of queues */
	__u32 len;
};

/* Credence safeguard: the longest queue is below B/N. */
DC_INLINE bool dc_cred_safeguard(__u64 longest, __u32 n, __u64 B)
{
	return longest * n < B;
}

/* Step 2.  *ask: a Credence admit still needs the prediction. */
DC_INLINE enum dc_verdict dc_cred_decide(__u32 alg, const struct dc_cred_in *in, bool *ask)
{
	*ask = false;
	if (alg == DC_ALG_CREDENCE && dc_cred_safeguard(in->longest, in->n, in->B) &&
	    in->Q + in->len <= in->B)
		return DC_V_ADMIT;
	if (in->q + in->len > in->T)
		return DC_V_DROP_THRESH;
	if (in->Q + in->len > in->B)
		return DC_V_DROP_FULL;
	*ask = alg == DC_ALG_CREDENCE;
	return DC_V_ADMIT;
}

/* DT steady state (Eq. 4.6) with n congested queues of one α, for tests:
 * T = α·B / (1 + n·α). */
DC_INLINE __u64 dc_dt_steady(__u64 B, __u32 alpha_q16, __u32 n)
{
	return dc_muldiv64(B, alpha_q16, DC_Q16_ONE + (__u64)n * alpha_q16);
}

#endif
