// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * Slytherin's core (include/dcbpf/slytherin.h): Algorithm 1's truth table
 * over the four ECN codepoints for data, pure ACKs, SYN, FIN and non-TCP
 * packets; K = 25 % of a 100-packet buffer marks from packet 25 on (12.5 %
 * and 37.5 % of the sensitivity study: from 13 and 38); Not-ECT is never
 * marked; a packet marked at hop h goes to the low queue at h and the high
 * queue at h+1 and every hop after.
 */
#include <stdio.h>

#include "check.h"
#include "dcbpf/slytherin.h"

#define PKT_BYTES 1500
#define BUF_PKTS 100

static struct dc_sly_pkt data(__u8 ecn)
{
	return (struct dc_sly_pkt){ .tos = (__u8)(0xb8 | ecn), .tcp_flags = DC_TCPF_ACK, .is_tcp = 1,
				    .payload_bytes = 1448 };
}

static void truth_table(void)
{
	static const char *const names[4] = { "Not-ECT", "ECT(1)", "ECT(0)", "CE" };
	char n[128];
	__u8 ecn;

	for (ecn = 0; ecn < 4; ecn++) {
		struct dc_sly_pkt d = data(ecn), ack = d, syn = d, fin = d, udp = d, rst = d;

		ack.payload_bytes = 0;
		syn.payload_bytes = 0;
		syn.tcp_flags = DC_TCPF_SYN;
		fin.payload_bytes = 0;
		fin.tcp_flags = DC_TCPF_FIN | DC_TCPF_ACK;
		udp.is_tcp = 0;
		udp.tcp_flags = DC_TCPF_ACK;	/* garbage where a TCP header would be */
		udp.payload_bytes = 0;
		rst.payload_bytes = 0;
		rst.tcp_flags = 0x04;		/* RST alone: neither ACK, SYN nor FIN */
		snprintf(n, sizeof(n), "data %s -> %s", names[ecn], ecn == 3 ? "high" : "low");
		CHECK_EQ(n, dc_sly_classify(&d), ecn == DC_ECN_CE ? DC_SLY_Q_HIGH : DC_SLY_Q_LOW);
		snprintf(n, sizeof(n), "pure ACK %s -> high", names[ecn]);
		CHECK_EQ(n, dc_sly_classify(&ack), DC_SLY_Q_HIGH);
		snprintf(n, sizeof(n), "SYN %s -> high", names[ecn]);
		CHECK_EQ(n, dc_sly_classify(&syn), DC_SLY_Q_HIGH);
		snprintf(n, sizeof(n), "FIN %s -> high", names[ecn]);
		CHECK_EQ(n, dc_sly_classify(&fin), DC_SLY_Q_HIGH);
		snprintf(n, sizeof(n), "non-TCP, no payload, %s -> %s", names[ecn],
			 ecn == 3 ? "high" : "low");
		CHECK_EQ(n, dc_sly_classify(&udp), ecn == DC_ECN_CE ? DC_SLY_Q_HIGH : DC_SLY_Q_LOW);
		snprintf(n, sizeof(n), "bare RST %s -> %s", names[ecn], ecn == 3 ? "high" : "low");
		CHECK_EQ(n, dc_sly_classify(&rst), ecn == DC_ECN_CE ? DC_SLY_Q_HIGH : DC_SLY_Q_LOW);
	}
}

/* The first packet (1-based) of a burst into an empty 100-packet buffer
 * that leaves CE-marked, K = k_q16 of the buffer; 0: none. */
static unsigned int first_marked(__u64 k_q16, __u8 ecn, unsigned int *marked)
{
	__u64 k = dc_sly_k_bytes(BUF_PKTS * PKT_BYTES, k_q16);
	unsigned int i, first = 0;

	*marked = 0;
	for (i = 1; i <= BUF_PKTS; i++) {
		__u8 out = dc_sly_mark((__u8)ecn, (__u64)i * PKT_BYTES, k);

		if ((out & DC_ECN_MASK) == DC_ECN_CE) {
			if (!first)
				first = i;
			(*marked)++;
		} else if (first) {
			return 0;	/* marking must not stop once the backlog is above K */
		}
	}
	return first;
}

static void marking(void)
{
	unsigned int m;

	CHECK_EQ("K default 25 % of 150000 B = 37500 B",
		 dc_sly_k_bytes(BUF_PKTS * PKT_BYTES, DC_SLY_K_DEFAULT_Q16), 37500);
	CHECK_EQ("K 25 %: packet 25 is the first marked", first_marked(DC_SLY_K_DEFAULT_Q16, DC_ECN_ECT0, &m), 25);
	CHECK_EQ("K 25 %: packets 25..100 marked", m, 76);
	CHECK_EQ("K 12.5 %: packet 13 is the first marked", first_marked(DC_Q16_ONE / 8, DC_ECN_ECT0, &m), 13);
	CHECK_EQ("K 37.5 %: packet 38 is the first marked", first_marked(3 * DC_Q16_ONE / 8, DC_ECN_ECT1, &m), 38);
	CHECK_EQ("Not-ECT is never marked", first_marked(DC_SLY_K_DEFAULT_Q16, DC_ECN_NOT_ECT, &m), 0);
	CHECK_EQ("Not-ECT: no packet marked", m, 0);
	CHECK_EQ("K 0: marking off", dc_sly_mark(DC_ECN_ECT0, 1 << 30, 0), DC_ECN_ECT0);
	CHECK_EQ("DSCP bits kept when marking", dc_sly_mark(0xb8 | DC_ECN_ECT0, 40000, 37500), 0xb8 | DC_ECN_CE);
	CHECK_EQ("below K: unchanged", dc_sly_mark(0xb8 | DC_ECN_ECT0, 37499, 37500), 0xb8 | DC_ECN_ECT0);
}

/* A data packet through three hops; only hop 1 is congested. */
static void next_hop(void)
{
	__u64 k = dc_sly_k_bytes(BUF_PKTS * PKT_BYTES, DC_SLY_K_DEFAULT_Q16);
	struct dc_sly_pkt p = data(DC_ECN_ECT0);
	enum dc_sly_queue q0, q1, q2;
	__u8 tos;

	q0 = dc_sly_hop(&p, 60 * PKT_BYTES, k, &tos);
	CHECK_EQ("hop h (congested): its own mark does not promote it there", q0, DC_SLY_Q_LOW);
	CHECK_EQ("hop h: leaves CE", tos & DC_ECN_MASK, DC_ECN_CE);
	p.tos = tos;
	q1 = dc_sly_hop(&p, 0, k, &tos);
	CHECK_EQ("hop h+1 (idle): promoted to the high queue", q1, DC_SLY_Q_HIGH);
	CHECK_EQ("hop h+1: CE is not cleared", tos & DC_ECN_MASK, DC_ECN_CE);
	p.tos = tos;
	q2 = dc_sly_hop(&p, 0, k, &tos);
	CHECK_EQ("hop h+2: still high", q2, DC_SLY_Q_HIGH);

	p = data(DC_ECN_ECT0);
	q0 = dc_sly_hop(&p, 10 * PKT_BYTES, k, &tos);
	p.tos = tos;
	q1 = dc_sly_hop(&p, 10 * PKT_BYTES, k, &tos);
	CHECK("no congestion anywhere: low at every hop, never marked",
	      q0 == DC_SLY_Q_LOW && q1 == DC_SLY_Q_LOW && (tos & DC_ECN_MASK) == DC_ECN_ECT0,
	      "q0 %d q1 %d tos %#x", q0, q1, tos);
}

/* the payload the switch derives from the IP and TCP headers */
static void payload(void)
{
	CHECK_EQ("payload: 20 B TCP header in 20 B of IP payload: a control segment",
		 dc_sly_tcp_payload(20, 5), 0);
	CHECK_EQ("payload: 32 B header (options) in 1480 B: 1448 B of data",
		 dc_sly_tcp_payload(1480, 8), 1448);
	CHECK_EQ("payload: data offset past the IP payload: malformed, counted as data",
		 dc_sly_tcp_payload(20, 6), 0xffffffffU);
	CHECK_EQ("payload: data offset below 5 words: malformed, counted as data",
		 dc_sly_tcp_payload(40, 4), 0xffffffffU);
	{
		struct dc_sly_pkt p = { .tos = 0, .tcp_flags = DC_TCPF_ACK, .is_tcp = 1,
					.payload_bytes = dc_sly_tcp_payload(20, 6) };

		CHECK_EQ("payload: a malformed ACK is not control: low queue", dc_sly_classify(&p),
			 DC_SLY_Q_LOW);
	}
}

int main(void)
{
	payload();
	truth_table();
	marking();
	next_hop();
	return check_failed;
}
