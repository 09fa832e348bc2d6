/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Slytherin: packets that were ECN-marked upstream jump to a strict-priority
 * queue at the next hop.  Source: H. Rezaei, "Adaptive Microburst Control
 * Techniques in Incast-Heavy Datacenter Networks", PhD thesis, UIC 2021,
 * §3.1 (Slytherin, ICCCN'18), Algorithm 1:
 *
 *	for each packet P to be enqueued:
 *		if the CE bit is set: put P in the higher priority queue
 *		else:                 put P in the lower priority queue
 *
 * Two FIFOs per port, the low one served only when the high one is empty
 * (§3.1).  ACKs go to the high queue as well (§3.1, "we prioritize ACK
 * packets"); the thesis does not say which ACKs, so here: TCP segments
 * without payload that carry ACK, SYN or FIN (pure ACKs and connection
 * control), whatever their ECN bits.  A data segment with a piggybacked
 * ACK is data: it is classified by its CE bit alone.
 *
 * Order at a hop: classify on the ECN field *as received*, then apply
 * this hop's own marking (K = 25 % of the port buffer, §4.1: "The
 * threshold is set to 25% of the total queue size"; 12.5 % and 37.5 % in
 * its sensitivity study).  A packet marked here is therefore promoted at
 * the next hop, not here ("priority escalation at next hop switches").
 * CE is never cleared, so a marked packet stays in the high queue at
 * every later hop.  K is compared with the port's backlog in bytes (both
 * queues), including the arriving packet.  Only ECN-capable packets
 * (ECT(0), ECT(1)) can be marked; a Not-ECT packet above K keeps its
 * codepoint (dropping it is the admission algorithm's business).
 *
 * Shared by the switch's classifier and the host tests.
 */
#ifndef DCBPF_SLYTHERIN_H
#define DCBPF_SLYTHERIN_H

#include "compat.h"
#include "fixed.h"

/* ECN codepoints, the low two bits of IPv4 TOS / IPv6 traffic class (RFC 3168). */
#define DC_ECN_MASK	0x03
#define DC_ECN_NOT_ECT	0x00
#define DC_ECN_ECT1	0x01
#define DC_ECN_ECT0	0x02
#define DC_ECN_CE	0x03

/* TCP flag bits (byte 13 of the TCP header). */
#define DC_TCPF_FIN	0x01
#define DC_TCPF_SYN	0x02
#define DC_TCPF_ACK	0x10

/* The two queues of a port, in strict priority order. */
enum dc_sly_queue {
	DC_SLY_Q_HIGH = 0,	/* CE as received, pure ACK/SYN/FIN */
	DC_SLY_Q_LOW = 1,	/* everything else */
};

/* K's default: 25 % of the port buffer, as a Q16 fraction. */
#define DC_SLY_K_DEFAULT_Q16	(DC_Q16_ONE / 4)

/* What the classifier needs of a packet. */
struct dc_sly_pkt {
	__u8 tos;		/* IPv4 TOS / IPv6 traffic class, as received */
	__u8 tcp_flags;		/* byte 13 of the TCP header (0 for non-TCP) */
	__u8 is_tcp;
	__u8 pad;
	__u32 payload_bytes;	/* TCP payload (0: a control segment) */
};

/* A TCP segment without payload that carries ACK, SYN or FIN. */
DC_INLINE bool dc_sly_is_control(const struct dc_sly_pkt *p)
{
	return p->is_tcp && !p->payload_bytes &&
	       (p->tcp_flags & (DC_TCPF_ACK | DC_TCPF_SYN | DC_TCPF_FIN));
}

/* Algorithm 1, with the ACK rule: the queue from the ECN bits as received. */
DC_INLINE enum dc_sly_queue dc_sly_classify(const struct dc_sly_pkt *p)
{
	if ((p->tos & DC_ECN_MASK) == DC_ECN_CE || dc_sly_is_control(p))
		return DC_SLY_Q_HIGH;
	return DC_SLY_Q_LOW;
}

/* K in bytes: k_q16 (fraction of the port buffer, Q16) of buffer_bytes. */
DC_INLINE __u64 dc_sly_k_bytes(__u64 buffer_bytes, __u64 k_q16)
{
	return dc_q16_mul(buffer_bytes, k_q16);
}

/*
 * This hop's marking: the TOS to send on.  backlog_bytes is the port's
 * backlog (both queues) with the arriving packet counted; at or above K
 * an ECT packet becomes CE.  k_bytes 0 turns marking off.
 */
DC_INLINE __u8 dc_sly_mark(__u8 tos, __u64 backlog_bytes, __u64 k_bytes)
{
	__u8 ecn = tos & DC_ECN_MASK;

	if (!k_bytes || backlog_bytes < k_bytes)
		return tos;
	if (ecn == DC_ECN_ECT0 || ecn == DC_ECN_ECT1)
		return (__u8)(tos | DC_ECN_CE);
	return tos;
}

/*
 * One hop: classify on what arrived, then mark.  Returns the queue; *tos_out
 * is what leaves (the next hop classifies on it).
 */
DC_INLINE enum dc_sly_queue dc_sly_hop(const struct dc_sly_pkt *p, __u64 backlog_bytes,
				       __u64 k_bytes, __u8 *tos_out)
{
	enum dc_sly_queue q = dc_sly_classify(p);

	*tos_out = dc_sly_mark(p->tos, backlog_bytes, k_bytes);
	return q;
}

/*
 * TCP payload of a segment: the IP payload (IPv4 total length − header,
 * or IPv6 payload length) less the TCP header (data offset, 32-bit
 * words).  A header longer than what carries it is malformed: returned
 * as payload (UINT32_MAX), so such a packet is data, never "control".
 */
DC_INLINE __u32 dc_sly_tcp_payload(__u32 ip_payload_bytes, __u32 doff_words)
{
	__u32 th = doff_words * 4;

	if (doff_words < 5 || th > ip_payload_bytes)
		return 0xffffffffU;
	return ip_payload_bytes - th;
}

#endif
