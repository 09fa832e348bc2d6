/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * s-PERC control packets for the link program's fixtures and benchmark
 * (docs/perc.md, "Control packet"): Ethernet + IPv4 10.0.0.1 -> 10.0.1.2 +
 * UDP 40000 -> DC_PERC_UDP_PORT with a non-zero checksum the program must
 * clear, the header (flow id 77) and nhops hop entries.
 */
#ifndef DCBPF_TESTS_PERCPKT_H
#define DCBPF_TESTS_PERCPKT_H

#include <arpa/inet.h>
#include <string.h>
#include <linux/types.h>

#include "dcbpf/perc.h"

#define PERC_PKT_L4 (14 + 20)
#define PERC_PKT_HDR (PERC_PKT_L4 + 8)	/* where the control header starts */

/* Fills b (zeroed first, at least PERC_PKT_HDR + header + 8 hops long);
 * returns the frame's length.  nhops_field is what the header claims, nhops
 * the entries written (they differ in the malformed cases). */
static inline __u32 perc_pkt(unsigned char *b, __u32 size, __u8 flags, __u8 nhops_field, __u8 hop,
			     const struct dc_perc_hop *hops, __u32 nhops)
{
	unsigned char *ip = b + 14, *udp = b + PERC_PKT_L4, *pc = b + PERC_PKT_HDR;
	__u32 i, plen = DC_PERC_HDR_LEN + nhops * DC_PERC_HOP_LEN;

	memset(b, 0, size);
	memcpy(b, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00", 14);
	ip[0] = 0x45;
	ip[2] = (__u8)((28 + plen) >> 8);
	ip[3] = (__u8)(28 + plen);
	ip[8] = 64;
	ip[9] = 17;
	inet_pton(AF_INET, "10.0.0.1", ip + 12);
	inet_pton(AF_INET, "10.0.1.2", ip + 16);
	udp[0] = 40000 >> 8;
	udp[1] = 40000 & 0xff;
	udp[2] = DC_PERC_UDP_PORT >> 8;
	udp[3] = DC_PERC_UDP_PORT & 0xff;
	udp[4] = (__u8)((8 + plen) >> 8);
	udp[5] = (__u8)(8 + plen);
	udp[6] = 0x12;
	udp[7] = 0x34;
	pc[0] = DC_PERC_VERSION;
	pc[1] = flags;
	pc[2] = nhops_field;
	pc[3] = hop;
	dc_perc_put_be32(pc + 4, 77);
	for (i = 0; i < nhops; i++)
		dc_perc_hop_encode(pc + DC_PERC_HDR_LEN + i * DC_PERC_HOP_LEN, &hops[i]);
	return PERC_PKT_HDR + plen;
}

#endif
