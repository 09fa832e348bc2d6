/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Control packets over UDP/IPv4 (s-PERC, cosy): the one parse their TC
 * programs share.  Reads with bpf_skb_load_bytes, so it works on any skb
 * layout and never writes.
 */
#ifndef DCBPF_BPF_UDP4_H
#define DCBPF_BPF_UDP4_H

#include "tcact.h"

#define DC_ETH_HLEN 14
#define DC_IPPROTO_UDP 17

/* An unfragmented Ethernet/IPv4/UDP packet from or to UDP port `port`:
 * 1 and the offset of its UDP header in *l4_off; else 0 (not ours: other
 * protocols, fragments, a header cut short). */
static __always_inline int dc_udp4_port(struct __sk_buff *skb, __u16 port, __u32 *l4_off)
{
	__u8 ip[20], udp[8];
	__u16 proto, sport, dport;
	__u32 ihl;

	if (bpf_skb_load_bytes(skb, 12, &proto, 2) || proto != __builtin_bswap16(0x0800))
		return 0;
	if (bpf_skb_load_bytes(skb, DC_ETH_HLEN, ip, sizeof(ip)) || (ip[0] >> 4) != 4 ||
	    ip[9] != DC_IPPROTO_UDP)
		return 0;
	if ((ip[6] & 0x3f) || ip[7])
		return 0;	/* a fragment: the header may be in another one */
	ihl = (ip[0] & 0xf) * 4;
	if (ihl < 20)
		return 0;
	*l4_off = DC_ETH_HLEN + ihl;
	if (bpf_skb_load_bytes(skb, *l4_off, udp, sizeof(udp)))
		return 0;
	sport = (__u16)(udp[0] << 8 | udp[1]);
	dport = (__u16)(udp[2] << 8 | udp[3]);
	return sport == port || dport == port;
}

#endif
