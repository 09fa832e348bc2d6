/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ICTCP: receive-window control at the aggregator of an incast.  Source:
 * H. Wu, Z. Feng, C. Guo, Y. Zhang, "ICTCP: Incast Congestion Control for
 * TCP in Data Center Networks", CoNEXT'10 (IEEE/ACM ToN 2013), §4.  The
 * baseline of ICON in Rezaei's thesis (§4.2).  Shared by bpf/ictcp.bpf.c
 * (sockops at the receiver) and the host tests; docs/icon.md lists every
 * rule below and each choice where the paper leaves room.
 *
 * Global (per host, one configured link capacity C):
 *   time is cut into slots of two sub-slots of length T (T = the mean RTT
 *   of the connections, §4.1).  In the first sub-slot the host measures
 *   its inbound rate BW_T; then
 *	BW_A = max(0, alpha * C - BW_T),  alpha = 0.9		(§4.1)
 *   and in the second sub-slot a connection may raise its window only while
 *   this quota lasts; each raise spends mss/rtt of it.
 * Per connection, every 2 RTTs (§4.2: a window change needs one RTT to take
 * effect and one to be measured):
 *	b_m = max(b_s, beta * b_m_old + (1 - beta) * b_s),  beta = 0.75
 *	b_e = max(b_m, rwnd / rtt)
 *	d   = (b_e - b_m) / b_e					(§4.3)
 *   d <= gamma1 (0.1): rwnd += mss, if in the second sub-slot with quota;
 *   d >  gamma2 (0.5): rwnd -= mss after three such periods in a row,
 *		        never below 2 mss;
 *   otherwise keep rwnd.
 * Rates in bytes/s, times in ns, fractions in Q16 (include/dcbpf/fixed.h).
 */
#ifndef DCBPF_ICTCP_H
#define DCBPF_ICTCP_H

#include "compat.h"
#include "counters.h"
#include "fixed.h"

#define DC_ICTCP_NSEC_PER_SEC	1000000000ULL
#define DC_ICTCP_ALPHA_Q16	58982	/* 0.9 * 65536 */
#define DC_ICTCP_BETA_Q16	49152	/* 0.75 */
#define DC_ICTCP_GAMMA1_Q16	6554	/* 0.1 */
#define DC_ICTCP_GAMMA2_Q16	32768	/* 0.5 */
#define DC_ICTCP_DEC_ROUNDS	3	/* d > gamma2 this many periods in a row */
#define DC_ICTCP_MIN_MSS	2	/* the window never goes below 2 mss */
#define DC_ICTCP_INIT_MSS	2	/* a new connection's clamp (see docs) */

/* What a 2-RTT period decided. */
enum dc_ictcp_act {
	DC_ICTCP_KEEP = 0,	/* gamma1 < d <= gamma2, or no sample */
	DC_ICTCP_INC,		/* d <= gamma1, quota granted: rwnd += mss */
	DC_ICTCP_INC_NOQUOTA,	/* d <= gamma1, but first sub-slot or quota short */
	DC_ICTCP_DEC_WAIT,	/* d > gamma2, fewer than 3 periods in a row yet */
	DC_ICTCP_DEC,		/* d > gamma2 the third time: rwnd -= mss */
	DC_ICTCP_DEC_FLOOR,	/* would decrease but rwnd is at 2 mss */
};

/* bytes over ns as bytes/s; 0 over 0 ns. */
DC_INLINE __u64 dc_ictcp_rate_Bps(__u64 bytes, __u64 ns)
{
	return ns ? dc_muldiv64(bytes, DC_ICTCP_NSEC_PER_SEC, ns) : 0;
}

/* alpha * C - BW_T, at least 0 (Eq. 1); link in kbit/s. */
DC_INLINE __u64 dc_ictcp_bw_avail_Bps(__u64 link_kbps, __u64 alpha_q16, __u64 bw_t_Bps)
{
	__u64 cap = dc_q16_mul(link_kbps * 1000 / DC_BITS_PER_BYTE, alpha_q16);

	return cap > bw_t_Bps ? cap - bw_t_Bps : 0;
}

/* b_m = max(sample, beta * b_m_old + (1 - beta) * sample). */
DC_INLINE __u64 dc_ictcp_bm_Bps(__u64 bm_old, __u64 sample, __u64 beta_q16)
{
	__u64 ewma = dc_q16_mul(bm_old, beta_q16) + dc_q16_mul(sample, DC_Q16_ONE - beta_q16);

	return sample > ewma ? sample : ewma;
}

/* b_e = max(b_m, rwnd / rtt); rtt in ns. */
DC_INLINE __u64 dc_ictcp_be_Bps(__u64 bm, __u64 rwnd_bytes, __u64 rtt_ns)
{
	__u64 w = dc_ictcp_rate_Bps(rwnd_bytes, rtt_ns);

	return w > bm ? w : bm;
}

/* d = (b_e - b_m) / b_e in Q16; 0 when b_e is 0. */
DC_INLINE __u64 dc_ictcp_d_q16(__u64 be, __u64 bm)
{
	if (!be || bm >= be)
		return 0;
	return dc_q16_div(be - bm, be);
}

/* Parameters (dc_ictcp_cfg in maps/ictcp.h holds them). */
struct dc_ictcp_cfg {
	__u64 link_kbps;	/* C; 0: ICTCP off (no socket is touched) */
	__u32 alpha_q16;	/* 0.9 */
	__u32 beta_q16;		/* 0.75 */
	__u32 gamma1_q16;	/* 0.1 */
	__u32 gamma2_q16;	/* 0.5 */
	__u32 min_subslot_us;	/* T never below this (0: the mean RTT alone) */
	__u32 init_mss;		/* a new connection's window, mss */
};

/* The paper's values: alpha 0.9, beta 0.75, gamma1 0.1, gamma2 0.5. */
DC_INLINE void dc_ictcp_cfg_default(struct dc_ictcp_cfg *c, __u64 link_kbps)
{
	c->link_kbps = link_kbps;
	c->alpha_q16 = DC_ICTCP_ALPHA_Q16;
	c->beta_q16 = DC_ICTCP_BETA_Q16;
	c->gamma1_q16 = DC_ICTCP_GAMMA1_Q16;
	c->gamma2_q16 = DC_ICTCP_GAMMA2_Q16;
	c->min_subslot_us = 0;
	c->init_mss = DC_ICTCP_INIT_MSS;
}

/*
 * The host's slot (one per host: the interface of capacity C).  Updated
 * under a lock by every receiving connection; the pure steps below.
 */
struct dc_ictcp_slot {
	__u64 start_ns;		/* start of the current slot */
	__u64 subslot_ns;	/* T of the current slot */
	__u64 bytes_first;	/* bytes received in the first sub-slot so far */
	__u64 bw_t_Bps;		/* BW_T of the first sub-slot (set at its end) */
	__u64 bw_a_Bps;		/* BW_A = alpha C - BW_T (set at its end) */
	__u64 quota_Bps;	/* what is left of BW_A in the second sub-slot */
	__u64 rtt_ns;		/* mean RTT of the connections (EWMA 1/8), the next T */
	__u64 slots;		/* slots begun */
	__u32 second;		/* 1: in the second sub-slot */
	__u32 pad;
};

/* The next sub-slot length: the mean RTT, at least min_us. */
DC_INLINE __u64 dc_ictcp_subslot_ns(__u64 rtt_ns, __u32 min_us)
{
	__u64 lo = (__u64)min_us * DC_NSEC_PER_USEC;

	return rtt_ns > lo ? rtt_ns : lo;
}

/* Fold one RTT sample into the mean the next slot's T comes from (1/8). */
DC_INLINE void dc_ictcp_slot_rtt(struct dc_ictcp_slot *s, __u64 rtt_ns)
{
	if (!rtt_ns)
		return;
	s->rtt_ns = s->rtt_ns ? s->rtt_ns - (s->rtt_ns >> 3) + (rtt_ns >> 3) : rtt_ns;
}

/*
 * Time moves to now and `bytes` more arrived (any connection).  Starts a
 * new slot after 2T (or when none was begun, or time went back), closes the
 * first sub-slot after T: BW_T over it, BW_A and the quota.  Bytes of the
 * second sub-slot are not measured (the paper measures in the first).
 */
DC_INLINE void dc_ictcp_slot_advance(struct dc_ictcp_slot *s, const struct dc_ictcp_cfg *c,
				     __u64 now_ns, __u64 bytes)
{
	if (!s->subslot_ns || now_ns < s->start_ns || now_ns - s->start_ns >= 2 * s->subslot_ns) {
		s->start_ns = now_ns;
		s->subslot_ns = dc_ictcp_subslot_ns(s->rtt_ns, c->min_subslot_us);
		if (!s->subslot_ns)
			s->subslot_ns = DC_NSEC_PER_USEC;	/* no RTT yet: 1 us */
		s->bytes_first = 0;
		s->second = 0;
		s->quota_Bps = 0;
		s->slots++;
	}
	if (!s->second && now_ns - s->start_ns >= s->subslot_ns) {
		s->second = 1;
		s->bw_t_Bps = dc_ictcp_rate_Bps(s->bytes_first, s->subslot_ns);
		s->bw_a_Bps = dc_ictcp_bw_avail_Bps(c->link_kbps, c->alpha_q16, s->bw_t_Bps);
		s->quota_Bps = s->bw_a_Bps;
	}
	if (!s->second)
		s->bytes_first += bytes;
}

/* Spend need_Bps of the quota: 1 if granted (second sub-slot, enough left). */
DC_INLINE int dc_ictcp_slot_take(struct dc_ictcp_slot *s, __u64 need_Bps)
{
	if (!s->second || s->quota_Bps < need_Bps)
		return 0;
	s->quota_Bps -= need_Bps;
	return 1;
}

/* Per connection (sk_storage), the receiver's side. */
struct dc_ictcp_conn {
	__u64 period_ns;	/* start of the current 2-RTT period */
	__u64 period_bytes;	/* bytes_received at its start */
	__u64 bm_Bps;		/* b_m */
	__u64 be_Bps;		/* b_e of the last period */
	__u64 seen_bytes;	/* bytes_received already counted in the slot */
	__u32 rwnd_bytes;	/* the window clamp this connection has */
	__u32 dec_rounds;	/* periods in a row with d > gamma2 */
	__u32 d_q16;		/* d of the last period */
	__u32 last_act;		/* enum dc_ictcp_act */
};

/* 1 when 2 RTTs have passed since the period began. */
DC_INLINE int dc_ictcp_period_due(const struct dc_ictcp_conn *k, __u64 now_ns, __u64 rtt_ns)
{
	return rtt_ns && now_ns >= k->period_ns && now_ns - k->period_ns >= 2 * rtt_ns;
}

/*
 * One 2-RTT period ends at now with bytes_rcvd received in total: b_m,
 * b_e, d, the decision.  An increase asks the slot for mss/rtt of quota.
 * k->rwnd_bytes is the new window; the next period begins.
 */
DC_INLINE enum dc_ictcp_act dc_ictcp_period(struct dc_ictcp_conn *k, struct dc_ictcp_slot *s,
					    const struct dc_ictcp_cfg *c, __u64 now_ns,
					    __u64 bytes_rcvd, __u64 rtt_ns, __u32 mss)
{
	__u64 dt = now_ns - k->period_ns, sample, d;
	enum dc_ictcp_act act;

	sample = dc_ictcp_rate_Bps(bytes_rcvd - k->period_bytes, dt);
	k->bm_Bps = dc_ictcp_bm_Bps(k->bm_Bps, sample, c->beta_q16);
	k->be_Bps = dc_ictcp_be_Bps(k->bm_Bps, k->rwnd_bytes, rtt_ns);
	d = dc_ictcp_d_q16(k->be_Bps, k->bm_Bps);
	k->d_q16 = (__u32)d;
	k->period_ns = now_ns;
	k->period_bytes = bytes_rcvd;
	if (d <= c->gamma1_q16) {
		k->dec_rounds = 0;
		if (dc_ictcp_slot_take(s, dc_ictcp_rate_Bps(mss, rtt_ns))) {
			k->rwnd_bytes += mss;
			act = DC_ICTCP_INC;
		} else {
			act = DC_ICTCP_INC_NOQUOTA;
		}
	} else if (d > c->gamma2_q16) {
		if (++k->dec_rounds < DC_ICTCP_DEC_ROUNDS) {
			act = DC_ICTCP_DEC_WAIT;
		} else {
			k->dec_rounds = 0;
			if (k->rwnd_bytes >= (DC_ICTCP_MIN_MSS + 1) * mss) {
				k->rwnd_bytes -= mss;
				act = DC_ICTCP_DEC;
			} else {
				k->rwnd_bytes = DC_ICTCP_MIN_MSS * mss > k->rwnd_bytes ?
					k->rwnd_bytes : DC_ICTCP_MIN_MSS * mss;
				act = DC_ICTCP_DEC_FLOOR;
			}
		}
	} else {
		k->dec_rounds = 0;
		act = DC_ICTCP_KEEP;
	}
	k->last_act = act;
	return act;
}

/* Per flow, mirrored for bpftool and status (sk_storage cannot be dumped). */
struct dc_ictcp_flow {
	__u64 bm_Bps;		/* b_m */
	__u64 be_Bps;		/* b_e */
	__u64 bytes_rcvd;	/* at the last period */
	__u32 rwnd_bytes;	/* the clamp set */
	__u32 rwnd_max_bytes;	/* the largest clamp set */
	__u32 d_q16;
	__u32 last_act;
	__u32 incs;
	__u32 decs;
	__u32 rtt_us;		/* the RTT of the last period */
	__u32 mss_bytes;
};

#define DC_ICTCP_COUNTERS(X)                                                         \
	X(periods, 0, "", "2-RTT periods evaluated.")                                 \
	X(increases, 0, "", "Windows raised by one mss (d <= gamma1, quota granted).")  \
	X(inc_no_quota, 0, "", "Raises refused: first sub-slot or no quota left.")     \
	X(decreases, 0, "", "Windows lowered by one mss (d > gamma2 three times).")    \
	X(at_floor, 0, "", "Decreases refused at the 2-mss floor.")                    \
	X(clamps_set, 0, "", "TCP_WINDOW_CLAMP set with bpf_setsockopt.")              \
	X(clamp_err, 0, "", "TCP_WINDOW_CLAMP the kernel refused.")                    \
	X(slots, 0, "", "Slots begun.")                                                \
	X(ticks_rx, 0, "", "Receive callbacks (PARSE_HDR_OPT, every segment in).")     \
	X(ticks_tx, 0, "", "Send callbacks (HDR_OPT_LEN, every segment out).")         \
	X(no_storage, 0, "", "Callbacks without socket storage or slot.")

struct dc_ictcp_counters {
	DC_ICTCP_COUNTERS(DC_CTR_FIELD)
};

#endif
