/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * DCTCP (Alizadeh et al., SIGCOMM 2010; RFC 8257), the sender's law: pure
 * and integer-only so the BPF congestion control and the host unit tests
 * run the very same code.
 *
 * The switch marks CE on packets that find its queue above K.  The
 * receiver echoes every CE mark exactly (ECE on the ACKs that cover marked
 * bytes).  The sender keeps, per window of data (one RTT):
 *
 *     F = bytes acknowledged with ECE / bytes acknowledged       [1]
 *     α ← (1 − g)·α + g·F,           g = 1/16                    [1]
 *
 * and, in a window that saw any ECE (TCP's CWR state: at most once per
 * window),
 *
 *     cwnd ← cwnd · (1 − α/2)                                    [packets]
 *
 * Without marks the window grows as Reno's (slow start, then one segment
 * per RTT).  A loss that is not an ECN signal halves the window, as TCP.
 *
 * Units and scales:
 *   α, F          Q16 (DC_Q16_ONE = 1.0), 0 ≤ α ≤ DC_Q16_ONE
 *   g             1/2^DC_DCTCP_G_SHIFT
 *   bytes         TCP sequence space, u32 and modulo 2^32
 *   cwnd          packets (the kernel's snd_cwnd)
 */
#ifndef DCBPF_DCTCP_H
#define DCBPF_DCTCP_H

#include "fixed.h"
#include "counters.h"

/* g = 1/16, the paper's value (§3.4: g < 1.386/√(2(C·RTT + K))). */
#define DC_DCTCP_G_SHIFT 4
/* α before the first window is measured: 1, the conservative start (the
 * first marked window halves like classic ECN, then α learns). */
#define DC_DCTCP_ALPHA_INIT DC_Q16_ONE
/* Totals over every connection using dctcp (dc_dctcp_stat, per-CPU
 * array[1], summed by readers; atomic adds, a callback may be interrupted
 * by another on the same CPU): written on every ACK, a shared copy would
 * bounce its cache line between the CPUs handling different flows. */
#define DC_DCTCP_COUNTERS(X)							\
	X(flows, 0, "", "Connections initialised.")				\
	X(ecn_flows, 0, "", "Connections initialised with ECN negotiated.")	\
	X(acks, 0, "", "ACKs seen by the sender's law.")			\
	X(ece_acks, 0, "", "ACKs carrying ECE.")				\
	X(acked_bytes, 0, "", "Bytes acknowledged.")				\
	X(ece_bytes, 0, "", "Bytes acknowledged with ECE.")			\
	X(windows, 0, "", "Alpha updates (one per window).")			\
	X(marked_windows, 0, "", "Windows with at least one ECE byte.")	\
	X(cuts, 0, "", "Window cuts to cwnd*(1 - alpha/2) (ssthresh calls).")	\
	X(losses, 0, "", "RTOs (window halved, not cut by alpha).")		\
	X(rx_ce_flips, 0, "", "Receiver: CE state changes of the data.")	\
	X(rx_ce_acks, 0, "", "Receiver: immediate ACKs sent at a CE flip.")	\
	X(data_windows, 0, "", "Windows of 8 KB or more acknowledged.")	\
	X(alpha_sum_q16, 0, "",							\
	  "Sum of alpha after each data window, Q16 (mean: divide by data_windows).")

struct dc_dctcp_stats {
	DC_DCTCP_COUNTERS(DC_CTR_FIELD)
};

/* The window never falls below two segments (as TCP's ssthresh). */
#define DC_DCTCP_MIN_CWND 2

/* Per-connection state of the sender's law. */
struct dc_dctcp_law {
	__u32 alpha_q16;	/* α, Q16 */
	__u32 win_end;		/* the window ends when snd_una reaches this seq */
	__u32 prior_una;	/* snd_una at the previous ACK */
	__u32 acked_bytes;	/* acknowledged in this window */
	__u32 ece_bytes;	/* of them, acknowledged with ECE */
	__u32 synced;		/* 0 until the first ACK set prior_una */
};

/* Sequence a is after b (modulo 2^32). */
DC_INLINE bool dc_seq_after(__u32 a, __u32 b)
{
	return (__s32)(a - b) > 0;
}

DC_INLINE void dc_dctcp_start(struct dc_dctcp_law *l, __u32 snd_una, __u32 snd_nxt)
{
	l->alpha_q16 = DC_DCTCP_ALPHA_INIT;
	l->win_end = snd_nxt;
	l->prior_una = snd_una;
	l->acked_bytes = 0;
	l->ece_bytes = 0;
	l->synced = 0;
}

/*
 * α ← α − α·g + F·g with F = ece/acked, both Q16.  Floors, so without
 * marks α decays to exactly 0; with every byte marked it stays at 1.
 * acked = 0 (a window without new data acknowledged) leaves α alone.
 */
DC_INLINE __u32 dc_dctcp_alpha(__u32 alpha_q16, __u32 acked, __u32 ece)
{
	__u64 f, a;

	if (!acked)
		return alpha_q16;
	if (ece > acked)
		ece = acked;
	f = dc_q16_div(ece, acked);	/* ≤ DC_Q16_ONE */
	a = (((__u64)alpha_q16 << DC_DCTCP_G_SHIFT) - alpha_q16 + f) >> DC_DCTCP_G_SHIFT;
	return a > DC_Q16_ONE ? (__u32)DC_Q16_ONE : (__u32)a;
}

/*
 * One ACK: snd_una and snd_nxt after it, ece = it carried ECE.  Counts the
 * newly acknowledged bytes; at the end of a window (snd_una reached
 * win_end) updates α, starts the next window at snd_nxt and returns true.
 */
DC_INLINE bool dc_dctcp_on_ack(struct dc_dctcp_law *l, __u32 snd_una, __u32 snd_nxt, bool ece)
{
	__u32 acked = 0;

	/* The first ACK only takes the sequence numbers: where the kernel
	 * initialises the CC before the handshake's last ACK (a passive
	 * open), snd_una then is not yet the connection's. */
	if (!l->synced) {
		l->synced = 1;
		l->prior_una = snd_una;
		l->win_end = snd_nxt;
		return false;
	}
	if (dc_seq_after(snd_una, l->prior_una))
		acked = snd_una - l->prior_una;
	l->prior_una = snd_una;
	/* Saturate rather than wrap: a window is far below 4 GB, but a
	 * counter that wraps would turn F upside down. */
	l->acked_bytes = l->acked_bytes > DC_U32_MAX - acked ? DC_U32_MAX : l->acked_bytes + acked;
	if (ece)
		l->ece_bytes = l->ece_bytes > DC_U32_MAX - acked ? DC_U32_MAX : l->ece_bytes + acked;
	if (dc_seq_after(l->win_end, snd_una))
		return false;
	l->alpha_q16 = dc_dctcp_alpha(l->alpha_q16, l->acked_bytes, l->ece_bytes);
	l->win_end = snd_nxt;
	l->acked_bytes = 0;
	l->ece_bytes = 0;
	return true;
}

/*
 * The window after a congestion signal, in packets: cwnd·(1 − α/2) when
 * the connection negotiated ECN, cwnd/2 otherwise (a DCTCP sender without
 * ECN is Reno).  At least DC_DCTCP_MIN_CWND.
 */
DC_INLINE __u32 dc_dctcp_ssthresh(__u32 cwnd, __u32 alpha_q16, bool ecn_ok)
{
	__u64 cut = ecn_ok ? ((__u64)cwnd * alpha_q16) >> (DC_Q16_SHIFT + 1) : cwnd / 2;
	__u64 w = cwnd - cut;

	return w < DC_DCTCP_MIN_CWND ? DC_DCTCP_MIN_CWND : (__u32)w;
}

#endif
