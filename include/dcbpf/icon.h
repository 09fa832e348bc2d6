/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ICON: application-informed pacing for incast.  The aggregator (sink)
 * tells its senders the incast degree n in a TCP option; each sender
 * paces its window over RTT * n.  Source: H. Rezaei, "Adaptive Microburst
 * Control Techniques in Incast-Heavy Datacenter Networks", PhD thesis,
 * UIC 2021, §3.2 (ICON, COMSNETS'19), Eq. 3.1:
 *
 *	Sending_rate = TCP_window_size / (RTT * number_of_parallel_senders)
 *
 * with TCP_window_size = cwnd * mss (bytes) and RTT the smoothed RTT.
 * Without the sink's number, n = 1 ("IA-ICON", §3.2: "we assume that the
 * number_of_parallel_senders = 1").  The n senders then together send one
 * window per RTT.  Shared by bpf/icon.bpf.c (sockops) and the host tests.
 *
 * The thesis' example (§3.2): window 10 MSS, RTT 120 us, one sender, a
 * 10 Gbit/s link -> a pause of 10.8 us between packets.  With MSS 1500 B:
 * rate 15000 B / 120 us = 125,000,000 B/s, spacing 1500 B / rate = 12 us,
 * serialisation 1500 * 8 / 10 Gbit/s = 1.2 us, pause 12 - 1.2 = 10.8 us.
 *
 * Option (the thesis names no format; an RFC 6994 experimental option):
 *
 *	 0      1      2      3      4        5       6      7
 *	+------+------+------+------+--------+-------+------+------+
 *	| 254  |  8   |  ExID 0xDC1C | version| flags |   n (BE)    |
 *	+------+------+------+------+--------+-------+------+------+
 *
 * version 1; flags bit 0: an update (a later segment, not the handshake);
 * n = 1..65535.  Anything else (short, another length, another ExID or
 * version, n = 0) is ignored by the receiver: it keeps what it had.
 */
#ifndef DCBPF_ICON_H
#define DCBPF_ICON_H

#include "compat.h"
#include "counters.h"
#include "fixed.h"

#define DC_ICON_OPT_KIND	254
#define DC_ICON_OPT_LEN		8
#define DC_ICON_EXID		0xDC1C
#define DC_ICON_VERSION		1
#define DC_ICON_F_UPDATE	0x01
#define DC_ICON_N_MAX		65535
#define DC_NSEC_PER_SEC		1000000000ULL

/* Why an option was ignored (dc_icon_opt_parse's negative returns). */
enum dc_icon_bad {
	DC_ICON_BAD_SHORT = 1,	/* fewer than DC_ICON_OPT_LEN bytes */
	DC_ICON_BAD_KIND,
	DC_ICON_BAD_LEN,	/* length byte not DC_ICON_OPT_LEN */
	DC_ICON_BAD_EXID,
	DC_ICON_BAD_VERSION,
	DC_ICON_BAD_N,		/* n = 0 */
};

/*
 * Eq. 3.1 in bytes per second: window_bytes / (rtt * n).  srtt_us8 is the
 * kernel's smoothed RTT in units of 1/8 us (tcp_sock.srtt_us, as sockops
 * reads it), so rate = window * 8e6 / (srtt_us8 * n).  n = 0 counts as 1
 * (IA-ICON); an RTT of 0 (no sample yet) gives 0: no cap to apply.
 */
DC_INLINE __u64 dc_icon_rate_Bps(__u64 window_bytes, __u64 srtt_us8, __u32 n)
{
	if (!n)
		n = 1;
	if (!srtt_us8)
		return 0;
	return dc_muldiv64(window_bytes, 8 * DC_USEC_PER_SEC, srtt_us8 * n);
}

/* Time between the starts of two mss-byte packets at rate_Bps, ns. */
DC_INLINE __u64 dc_icon_spacing_ns(__u64 mss_bytes, __u64 rate_Bps)
{
	return dc_muldiv64(mss_bytes, DC_NSEC_PER_SEC, rate_Bps);
}

/* The pause between packets on a link of link_mbps (the thesis' "gap"):
 * the spacing less one packet's serialisation, ns; 0 if the rate is the
 * link's or more. */
DC_INLINE __u64 dc_icon_pause_ns(__u64 mss_bytes, __u64 rate_Bps, __u64 link_mbps)
{
	__u64 sp = dc_icon_spacing_ns(mss_bytes, rate_Bps);
	__u64 ser = dc_muldiv64(mss_bytes * DC_BITS_PER_BYTE, DC_NSEC_PER_USEC, link_mbps);

	return sp > ser ? sp - ser : 0;
}

/* The option carrying n into buf[0..7]. */
DC_INLINE void dc_icon_opt_write(__u8 *buf, __u16 n, __u8 flags)
{
	buf[0] = DC_ICON_OPT_KIND;
	buf[1] = DC_ICON_OPT_LEN;
	buf[2] = DC_ICON_EXID >> 8;
	buf[3] = DC_ICON_EXID & 0xff;
	buf[4] = DC_ICON_VERSION;
	buf[5] = flags;
	buf[6] = n >> 8;
	buf[7] = n & 0xff;
}

/*
 * buf holds len bytes from the start of an option (what bpf_load_hdr_opt
 * copied: its return value is len).  Returns n (1..65535) and sets *flags,
 * or -enum dc_icon_bad.  Never reads past len.
 */
DC_INLINE int dc_icon_opt_parse(const __u8 *buf, int len, __u8 *flags)
{
	__u16 n;

	if (len < DC_ICON_OPT_LEN)
		return -DC_ICON_BAD_SHORT;
	if (buf[0] != DC_ICON_OPT_KIND)
		return -DC_ICON_BAD_KIND;
	if (buf[1] != DC_ICON_OPT_LEN)
		return -DC_ICON_BAD_LEN;
	if (buf[2] != (DC_ICON_EXID >> 8) || buf[3] != (DC_ICON_EXID & 0xff))
		return -DC_ICON_BAD_EXID;
	if (buf[4] != DC_ICON_VERSION)
		return -DC_ICON_BAD_VERSION;
	n = (__u16)((buf[6] << 8) | buf[7]);
	if (!n)
		return -DC_ICON_BAD_N;
	*flags = buf[5];
	return n;
}

/* The n a sender paces with: the sink's, or 1 without one (IA-ICON). */
DC_INLINE __u32 dc_icon_n_eff(__u32 n_peer)
{
	return n_peer ? n_peer : 1;
}

/* Config: n a sink advertises on sockets bound to (addr, port).  Lookups
 * go from the exact key to wildcards: (addr, port), (addr, 0), (0, port),
 * (0, 0).  addr: IPv4, network order; port: host order. */
struct dc_icon_cfg_key {
	__u32 addr;
	__u16 port;
	__u16 pad;
};

/* Write version 0, which every receiver must ignore: a sink whose options
 * are malformed on the wire, to test the receivers' refusal end to end. */
#define DC_ICON_CFG_F_BAD_VERSION 0x1

struct dc_icon_cfg {
	__u32 n;		/* 1..65535 advertised; 0: this socket advertises nothing */
	__u32 flags;		/* DC_ICON_CFG_F_* */
};

/* Per socket (sk_storage), both roles. */
struct dc_icon_sk {
	__u32 n_peer;		/* n received from the sink; 0: none (IA-ICON, n = 1) */
	__u32 n_sent;		/* n this socket advertised last (sink) */
	__u32 upd_seq;		/* sink: snd_nxt when the pending update was first written */
	__u32 upd_pending;	/* sink: 1 while the update is not acknowledged */
};

/* Per flow, mirrored for bpftool and tests (sk_storage cannot be dumped). */
struct dc_icon_flow {
	__u32 n_peer;		/* as in dc_icon_sk */
	__u32 n_sent;
	__u32 opts_rx;		/* options accepted */
	__u32 opts_bad;		/* options ignored (malformed) */
	__u64 rate_Bps;		/* the last cap set (0: none yet) */
	__u64 srtt_us8;		/* at the last cap, 1/8 us (tcp_sock.srtt_us) */
	__u32 cwnd_pkts;	/* at the last cap */
	__u32 mss_bytes;
};

#define DC_ICON_COUNTERS(X)                                                          \
	X(opt_written, 0, "", "Options written (handshake and updates).")            \
	X(opt_updates, 0, "", "Update options written on established connections.")  \
	X(opt_parsed, 0, "", "Options accepted from a sink.")                        \
	X(opt_bad, 0, "", "Options ignored as malformed.")                           \
	X(n_changed, 0, "", "Times a sender's n changed on an established connection.") \
	X(rate_set, 0, "", "Pacing caps set.")                                       \
	X(rate_err, 0, "", "Pacing caps the kernel refused.")                        \
	X(reserve_err, 0, "", "Option space the kernel could not reserve.")

struct dc_icon_counters {
	DC_ICON_COUNTERS(DC_CTR_FIELD)
};

#endif
