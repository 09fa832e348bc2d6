/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * s-PERC on the end host: what the `perc` congestion control
 * (bpf/perc_cc.bpf.c), the flow lifecycle (bpf/perc_host.bpf.c, sockops)
 * and the control loop (`dcbpf perc host`, loader/perc/perchost.c) share.
 * Source: L. Jose, "Proactive Congestion Control", Stanford PhD thesis,
 * 2019, Ch. 2.1 (the end host "updates the rate X(f) at which it sends
 * data packets to match the smallest allocation carried in the latest
 * packet"), Ch. 4.1 (s-PERC*: FIN, control timeout, headroom).
 * docs/perc.md has the design.
 *
 * Rates are kbps, as in the control packet; 1 kbit/s = 125 bytes/s.
 */
#ifndef DCBPF_PERCHOST_H
#define DCBPF_PERCHOST_H

#include "perc.h"
#include "types.h"

#define DC_PERC_BYTES_PER_KBIT	125ULL		/* kbit/s -> bytes/s */
#define DC_PERC_RTT_MAX_US	10000000U	/* 10 s: keeps rate x RTT in 64 bits */

/* Defaults of struct dc_perc_hcfg (used while the map holds none). */
#define DC_PERC_DEF_LINE_KBPS	1000000U	/* the host's line rate: 1 Gbit/s */
#define DC_PERC_DEF_START_SHARE	8U		/* start at line / 8 until allocated */
#define DC_PERC_DEF_CWND_GAIN	4U		/* window = gain x rate x RTT ... */
#define DC_PERC_DEF_CWND_EXTRA	8U		/* ... + this many packets */
#define DC_PERC_ACH_WINDOW_NS	10000000ULL	/* achieved rate: acked bytes per 10 ms */
#define DC_PERC_DEF_MIN_RTT_US	100U		/* RTT used before the socket has one */
/* Bytes a segment carries on the wire beside its payload: Ethernet 14 +
 * IPv4 20 + TCP 20 + the timestamp option 12.  Allocations are link
 * rates, which count these; TCP's pacing counts payload only. */
#define DC_PERC_DEF_WIRE_OVH	66U
#define DC_PERC_WIRE_OVH_MAX	1000U		/* --wire-overhead-bytes' bound */

/*
 * The host's settings (dc_perc_hcfg[0], written by `dcbpf perc host`).
 * start rate = line_kbps / start_share: a new flow sends at that rate for
 * the first control round trip, before any link has allocated anything
 * (a safe share: s-PERC's start is a[l] = 0 at every link, and eight new
 * flows at once still fit the host's own link).
 */
struct dc_perc_hcfg {
	__u32 line_kbps;	/* host line rate */
	__u32 start_share;	/* start rate = line_kbps / start_share */
	__u32 cwnd_gain;	/* cwnd = gain x rate x RTT + extra packets */
	__u32 cwnd_extra_pkts;
	__u32 min_rtt_us;	/* RTT assumed while the socket has no sample */
	__u32 wire_ovh_bytes;	/* per segment on the wire beside the payload */
};

DC_INLINE void dc_perc_hcfg_default(struct dc_perc_hcfg *c)
{
	c->line_kbps = DC_PERC_DEF_LINE_KBPS;
	c->start_share = DC_PERC_DEF_START_SHARE;
	c->cwnd_gain = DC_PERC_DEF_CWND_GAIN;
	c->cwnd_extra_pkts = DC_PERC_DEF_CWND_EXTRA;
	c->min_rtt_us = DC_PERC_DEF_MIN_RTT_US;
	c->wire_ovh_bytes = DC_PERC_DEF_WIRE_OVH;
}

/* Flow lifecycle (dc_perc_hflow.state). */
#define DC_PERC_FS_OPEN		1	/* a perc flow: the loop starts its control packet */
#define DC_PERC_FS_ENDING	2	/* FIN or close seen: the loop sends FIN and removes it */
#define DC_PERC_FS_NEW		3	/* established, not (yet) perc: an application may
					 * select the CC after connect(); the CC's init
					 * turns it OPEN, a close removes it */

/* Written in the kernel only: sockops (state, opened_ns), the CC (the
 * rest).  The control loop reads it and deletes it after the FIN. */
struct dc_perc_hflow {
	__u32 state;		/* DC_PERC_FS_* */
	__u32 cwnd_pkts;	/* CC: snd_cwnd it set */
	__u64 opened_ns;	/* sockops: connection established (CLOCK_MONOTONIC) */
	__u64 ended_ns;		/* sockops: FIN or close seen; 0 while open */
	__u64 pacing_Bps;	/* CC: sk_pacing_rate it set */
	__u64 achieved_kbps;	/* CC: acked bytes per 10 ms window, EWMA (1/8) */
	__u64 acked_bytes;	/* CC: tcp bytes_acked at the latest ACK */
	__u64 acks;		/* CC: ACKs seen */
	__u32 srtt_us;		/* CC: smoothed RTT */
	__u32 rate_kbps;	/* CC: the rate it paced at (allocation or start rate) */
	__u64 win_ns;		/* CC: start of the current achieved-rate window */
	__u64 win_bytes;	/* CC: acked bytes at that start */
};

/* Written by the control loop only; the CC reads rate_kbps. */
struct dc_perc_alloc {
	__u32 rate_kbps;	/* smallest a[l] of the latest returned packet; 0: none yet */
	__u32 flow_id;		/* the control packet's flow id */
	__u64 rate_ns;		/* when rate_kbps was written (CLOCK_MONOTONIC) */
	__u32 nhops;		/* links on the path */
	__u32 pad;
	__u64 ctrl_sent;	/* control packets sent (incl. restarts) */
	__u64 ctrl_rcvd;	/* returned packets applied */
	__u64 restarts;		/* fresh packets after a control timeout */
};

/* The rate the CC paces at: the allocation, or the start rate before
 * the first returned packet. */
DC_INLINE __u32 dc_perc_host_rate_kbps(__u32 alloc_kbps, const struct dc_perc_hcfg *c)
{
	__u32 share = c->start_share ? c->start_share : 1;

	if (alloc_kbps && alloc_kbps != DC_PERC_INF_KBPS)
		return alloc_kbps;
	return c->line_kbps / share ? c->line_kbps / share : 1;
}

DC_INLINE __u64 dc_perc_pacing_Bps(__u32 rate_kbps)
{
	return (__u64)rate_kbps * DC_PERC_BYTES_PER_KBIT;
}

/*
 * The payload rate whose wire rate is rate_kbps, bytes/s: an allocation is
 * a share of a link, which carries mss + ovh bytes for every mss of
 * payload, while TCP paces an skb by its payload length (a GSO burst of n
 * segments leaves n headers on the wire).  rate x 125 x mss / (mss + ovh),
 * at least 1 byte/s.
 */
DC_INLINE __u64 dc_perc_payload_Bps(__u32 rate_kbps, __u32 mss, __u32 ovh_bytes)
{
	__u64 Bps;

	if (!mss)
		return dc_perc_pacing_Bps(rate_kbps);
	Bps = dc_perc_pacing_Bps(rate_kbps) * mss / ((__u64)mss + ovh_bytes);
	/* sk_pacing_rate 0 would mean "not paced" */
	return Bps ? Bps : 1;
}

/*
 * A window that never limits the paced rate: gain x rate x RTT bytes, in
 * whole packets rounded up, plus extra packets (an ACK clock that is late
 * by a few packets must not stall the pacer), at least 2 packets.  The
 * default gain of 4 leaves room for the RTT spikes of a loaded host (the
 * smoothed RTT lags them); pacing, not the window, sets the rate.  RTT is
 * the socket's smoothed RTT (it includes the queueing the flow sees), or
 * min_rtt_us before it has one.
 */
DC_INLINE __u32 dc_perc_cwnd_pkts(__u32 rate_kbps, __u32 rtt_us, __u32 mss,
				  const struct dc_perc_hcfg *c)
{
	__u64 bytes, pkts;

	if (!rtt_us)
		rtt_us = c->min_rtt_us;
	if (rtt_us > DC_PERC_RTT_MAX_US)
		rtt_us = DC_PERC_RTT_MAX_US;
	if (!mss)
		mss = 1;
	bytes = dc_perc_pacing_Bps(rate_kbps) * rtt_us / 1000000ULL * (c->cwnd_gain ? c->cwnd_gain : 1);
	pkts = (bytes + mss - 1) / mss + c->cwnd_extra_pkts;
	if (pkts < 2)
		pkts = 2;
	return pkts > DC_U32_MAX ? DC_U32_MAX : (__u32)pkts;
}

/* The rate of bytes acknowledged over a window of ns nanoseconds, kbps
 * (bytes x 8 / ns = Gbit/s, x 10^6 = kbps); 0 for an empty window. */
DC_INLINE __u64 dc_perc_window_kbps(__u64 bytes, __u64 ns)
{
	if (!ns)
		return 0;
	if (bytes > DC_U64_MAX / 8000000ULL)	/* > 2.3 TB in one window: not real */
		return 0;
	return bytes * 8000000ULL / ns;
}

/* EWMA with weight 1/8; the first sample is taken as it is. */
DC_INLINE __u64 dc_perc_ewma_kbps(__u64 avg, __u64 sample)
{
	if (!sample)
		return avg;
	if (!avg)
		return sample;
	return avg - (avg >> 3) + (sample >> 3);
}

/* ---- control packets at the sender (user space) --------------------------
 * Payload only (the UDP socket adds the headers); layout: docs/perc.md. */

DC_INLINE __u32 dc_perc_pkt_len(__u32 nhops)
{
	return DC_PERC_HDR_LEN + nhops * DC_PERC_HOP_LEN;
}

/* A new flow's packet (Table 3.2 / 4.1): every hop E, a = 0, b = 0,
 * ignore, roundNumber 0.  buf holds dc_perc_pkt_len(nhops) bytes. */
DC_INLINE void dc_perc_pkt_fresh(__u8 *buf, __u32 nhops, __u32 flow_id)
{
	struct dc_perc_hop h;
	__u32 i;

	buf[0] = DC_PERC_VERSION;
	buf[1] = 0;
	buf[2] = (__u8)nhops;
	buf[3] = 0;
	dc_perc_put_be32(buf + 4, flow_id);
	dc_perc_put_be32(buf + 8, 0);
	dc_perc_put_be32(buf + 12, 0);
	dc_perc_hop_fresh(&h);
	for (i = 0; i < nhops && i < DC_PERC_MAX_HOPS; i++)
		dc_perc_hop_encode(buf + DC_PERC_HDR_LEN + i * DC_PERC_HOP_LEN, &h);
}

/* Why a packet the sender received is not one it can apply. */
enum dc_perc_rx {
	DC_PERC_RX_OK = 0,
	DC_PERC_RX_SHORT,	/* shorter than its header or its hops */
	DC_PERC_RX_BAD,		/* version, nhops, not reversed, or not home (hop != 0) */
	DC_PERC_RX_FIN,		/* a returned FIN: nothing to apply */
};

/*
 * A returned packet (REV, hop index back at 0): its flow id and the rate
 * the sender takes, the smallest allocation a[l] on the path (Ch. 2.1).
 */
DC_INLINE enum dc_perc_rx dc_perc_pkt_returned(const __u8 *buf, __u32 len, __u32 *flow_id,
						__u32 *rate_kbps)
{
	struct dc_perc_hop hops[DC_PERC_MAX_HOPS];
	__u32 n, i;

	if (len < DC_PERC_HDR_LEN)
		return DC_PERC_RX_SHORT;
	n = buf[2];
	if (buf[0] != DC_PERC_VERSION || !n || n > DC_PERC_MAX_HOPS ||
	    !(buf[1] & DC_PERC_PF_REV) || buf[3] != 0)
		return DC_PERC_RX_BAD;
	if (len < dc_perc_pkt_len(n))
		return DC_PERC_RX_SHORT;
	*flow_id = dc_perc_get_be32(buf + 4);
	if (buf[1] & DC_PERC_PF_FIN)
		return DC_PERC_RX_FIN;
	for (i = 0; i < n; i++)
		dc_perc_hop_decode(buf + DC_PERC_HDR_LEN + i * DC_PERC_HOP_LEN, &hops[i]);
	*rate_kbps = dc_perc_rate_kbps(hops, n);
	return DC_PERC_RX_OK;
}

/* The returned packet sent out again as the flow's next forward packet
 * ("reflects the control packet back as is"): REV cleared, index 0; with
 * fin, the flow's last packet (links remove its contribution). */
DC_INLINE void dc_perc_pkt_again(__u8 *buf, bool fin)
{
	buf[1] = (__u8)((buf[1] & ~DC_PERC_PF_REV) | (fin ? DC_PERC_PF_FIN : 0));
	buf[3] = 0;
}

#endif
