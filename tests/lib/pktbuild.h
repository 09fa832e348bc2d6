/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The packets of the BPF_PROG_TEST_RUN fixtures (tests/prog/): one
 * Ethernet + IPv4 (raw options) + TCP frame with a valid IP checksum, a
 * TCP checksum nobody may touch (0xabcd) and a payload pattern, so a
 * fixture compares what a program returned byte for byte.
 */
#ifndef DCBPF_TESTS_PKTBUILD_H
#define DCBPF_TESTS_PKTBUILD_H

#include <arpa/inet.h>
#include <string.h>
#include <linux/types.h>

#include "dcbpf/int.h"

#ifndef PKT_MAX
#define PKT_MAX 16384
#endif

struct pkt {
	unsigned char b[PKT_MAX];
	__u32 len;
};

/* What pkt_tcp4 builds; fields left zero mean tos 0, no options, no payload. */
struct pkt_tcp4 {
	const char *src, *dst;	/* dotted quads */
	__u16 sport, dport;
	__u32 payload;		/* bytes after the TCP header */
	__u8 flags;		/* TCP flags */
	__u8 tos, ttl, proto;
	__u16 ip_id;
	const __u8 *ipopts;
	__u32 optlen;
	__u8 fill_mul, fill_add; /* payload byte i is i * fill_mul + fill_add */
};

static inline void pkt_tcp4(struct pkt *p, const struct pkt_tcp4 *s)
{
	__u32 ihl = 20 + s->optlen, i;
	__u8 *ip = p->b + 14, *th;
	__u16 csum;

	memset(p->b, 0, sizeof(p->b));
	memcpy(p->b, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00", 14);
	ip[0] = 0x40 | (ihl / 4);
	ip[1] = s->tos;
	ip[2] = (__u8)((ihl + 20 + s->payload) >> 8);
	ip[3] = (__u8)(ihl + 20 + s->payload);
	ip[4] = (__u8)(s->ip_id >> 8);
	ip[5] = (__u8)s->ip_id;
	ip[6] = 0x40; /* DF */
	ip[8] = s->ttl;
	ip[9] = s->proto;
	inet_pton(AF_INET, s->src, ip + 12);
	inet_pton(AF_INET, s->dst, ip + 16);
	if (s->optlen)
		memcpy(ip + 20, s->ipopts, s->optlen);
	csum = dc_ip_csum(ip, ihl);
	ip[10] = csum >> 8;
	ip[11] = csum & 0xff;
	th = ip + ihl;
	th[0] = s->sport >> 8;
	th[1] = s->sport & 0xff;
	th[2] = s->dport >> 8;
	th[3] = s->dport & 0xff;
	th[12] = 5 << 4;
	th[13] = s->flags;
	th[16] = 0xab;
	th[17] = 0xcd;
	for (i = 0; i < s->payload; i++)
		th[20 + i] = (__u8)(i * s->fill_mul + s->fill_add);
	p->len = 14 + ihl + 20 + s->payload;
}

#endif
