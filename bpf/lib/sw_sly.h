/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The switch's classification modes (dc_sw_cfg.prio_mode, include/dcbpf/
 * switch.h): Slytherin's queue choice and marking (include/dcbpf/
 * slytherin.h) read from the packet at XDP (admission: which queue's
 * record decides) and at TC egress (which HTB leaf it joins, then the
 * mark).  Both read the ECN field as it arrived at the switch: in this
 * mode the XDP program does not mark, so the two agree.
 * Included by bpf/switch.bpf.c after its maps.
 */
#ifndef DCBPF_BPF_SW_SLY_H
#define DCBPF_BPF_SW_SLY_H

#include "dcbpf/slytherin.h"

#define DC_IPPROTO_TCP 6
#define DC_IP_FRAG_OFFSET 0x1fff
#define DC_TCP_PEEK 14		/* TCP header up to its flags byte (13) */

/* Fill the TCP part of p from the 14 first bytes of a TCP header (t) and
 * the IP payload's length. */
static __always_inline void dc_sly_tcp(struct dc_sly_pkt *p, const __u8 *t, __u32 ip_payload)
{
	p->is_tcp = 1;
	p->tcp_flags = t[13];
	p->payload_bytes = dc_sly_tcp_payload(ip_payload, t[12] >> 4);
}

/* XDP, IPv4 header in place (bounds of *iph checked by the caller): true
 * if Slytherin puts the packet in the high queue.  A fragment other than
 * the first, or a TCP header past the first buffer, is not TCP. */
static __always_inline bool dc_sly_xdp4(const struct iphdr *iph, const void *data_end)
{
	struct dc_sly_pkt p = { .tos = iph->tos };
	__u32 hl = (__u32)iph->ihl * 4, tot = bpf_ntohs(iph->tot_len);
	const __u8 *t = (const __u8 *)iph + hl;

	if (iph->protocol == DC_IPPROTO_TCP && !(iph->frag_off & bpf_htons(DC_IP_FRAG_OFFSET)) &&
	    (const void *)(t + DC_TCP_PEEK) <= data_end)
		dc_sly_tcp(&p, t, tot > hl ? tot - hl : 0);
	return dc_sly_classify(&p) == DC_SLY_Q_HIGH;
}

/* XDP, IPv6 header in place: TCP only as the first next header (an
 * extension header makes the packet "not TCP": classified by CE alone). */
static __always_inline bool dc_sly_xdp6(const struct ipv6hdr *ip6, const void *data_end)
{
	struct dc_sly_pkt p = { .tos = (__u8)((ip6->priority << 4) | (ip6->flow_lbl[0] >> 4)) };
	const __u8 *t = (const __u8 *)(ip6 + 1);

	if (ip6->nexthdr == DC_IPPROTO_TCP && (const void *)(t + DC_TCP_PEEK) <= data_end)
		dc_sly_tcp(&p, t, bpf_ntohs(ip6->payload_len));
	return dc_sly_classify(&p) == DC_SLY_Q_HIGH;
}

/*
 * The port's backlog, both queues, as the tracker last saw it, less what
 * the port has sent since if that record is stale (dc_stale_fix's rule:
 * a missed dequeue must not mark every packet).
 */
static __always_inline __u64 dc_sly_backlog(const struct dc_sw_port *port)
{
	__u64 q = port->qlen_bytes, now = bpf_ktime_get_coarse_ns();

	if (q && now > port->last_ns + DC_SW_STALE_NS)
		q -= dc_min_u64(dc_bytes_in_ns(port->rate_mbps, now - port->last_ns), q);
	return q;
}

/*
 * TC egress, Slytherin mode: classify on the ECN field as received, then
 * this hop's mark (dc_sly_hop): CE on an ECT packet when the port's
 * backlog with this packet reaches K = sly_k_q16 · B.  bpf_skb_ecn_set_ce
 * rewrites IPv4's checksum (IPv6 has none) and leaves Not-ECT alone.
 * Returns the packet's priority (DC_SW_SLY_PRIO_HIGH or 0).
 */
static __always_inline __u32 dc_sly_egress(struct __sk_buff *skb, const struct dc_sw_cfg *cfg)
{
	struct dc_sly_pkt p = {};
	const struct dc_sw_port *port;
	struct dc_sw_counters *cnt;
	__u32 ifx = skb->ifindex, *pid, prio, key, l3 = sizeof(struct ethhdr);
	__u8 t[DC_TCP_PEEK], tos_out;

	if (skb->protocol == bpf_htons(ETH_P_IP)) {
		struct iphdr ip;
		__u32 hl, tot;

		if (bpf_skb_load_bytes(skb, l3, &ip, sizeof(ip)))
			return 0;
		p.tos = ip.tos;
		hl = (__u32)ip.ihl * 4;
		tot = bpf_ntohs(ip.tot_len);
		if (ip.protocol == DC_IPPROTO_TCP && !(ip.frag_off & bpf_htons(DC_IP_FRAG_OFFSET)) &&
		    hl >= sizeof(ip) && !bpf_skb_load_bytes(skb, l3 + (hl & 0x3c), t, sizeof(t)))
			dc_sly_tcp(&p, t, tot > hl ? tot - hl : 0);
	} else if (skb->protocol == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr ip6;

		if (bpf_skb_load_bytes(skb, l3, &ip6, sizeof(ip6)))
			return 0;
		p.tos = (__u8)((ip6.priority << 4) | (ip6.flow_lbl[0] >> 4));
		if (ip6.nexthdr == DC_IPPROTO_TCP &&
		    !bpf_skb_load_bytes(skb, l3 + sizeof(ip6), t, sizeof(t)))
			dc_sly_tcp(&p, t, bpf_ntohs(ip6.payload_len));
	} else {
		return 0;
	}
	prio = dc_sly_classify(&p) == DC_SLY_Q_HIGH ? DC_SW_SLY_PRIO_HIGH : 0;
	pid = bpf_map_lookup_elem(&dc_sw_ifport, &ifx);
	if (!pid)
		return prio;
	key = *pid & (DC_SW_PORTS_MAX - 1);
	port = bpf_map_lookup_elem(&dc_sw_port, &key);
	if (!port)
		return prio;
	tos_out = dc_sly_mark(p.tos, dc_sly_backlog(port) + skb->len,
			      dc_sly_k_bytes(cfg->buffer_bytes, cfg->sly_k_q16));
	if (tos_out != p.tos && bpf_skb_ecn_set_ce(skb)) {
		key = key * DC_SW_PRIOS + prio;
		cnt = bpf_map_lookup_elem(&dc_sw_cnt, &key);
		DC_CTR_ADD(dc_sw_cnt, cnt, ecn_marked_pkts, 1);
	}
	return prio;
}

#endif
