/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * IPv4 parsing and header rewriting for the TC programs.  Every access is
 * bounds-checked; anything unexpected is reported as "not ours" so the
 * caller passes the packet untouched.
 */
#ifndef DCBPF_BPF_IPV4_H
#define DCBPF_BPF_IPV4_H

#include "dcbpf/int.h"
#include "dcbpf/flow.h"
#include "tcact.h"

#define TC_ACT_OK 0	/* pass: the only verdict the INT programs give */
#define DC_ETH_HLEN 14
#define DC_ETH_P_IP 0x0800
#define DC_IPPROTO_TCP 6
#define DC_IP_MF 0x2000
#define DC_IP_OFFSET 0x1fff
#define DC_IP_BASE_LEN 20
#define DC_IP_MAX_HDR 60
#define DC_IP_OPT_OFF (DC_ETH_HLEN + DC_IP_BASE_LEN)
#define DC_IP_CSUM_OFF (DC_ETH_HLEN + 10)
/* Headers the programs read directly: Ethernet, IPv4 with options, TCP. */
#define DC_PULL_LEN (DC_ETH_HLEN + DC_IP_MAX_HDR + 20)

/*
 * skb->data / skb->data_end, loaded so clang cannot turn the context
 * offsets into registers (the verifier rejects a modified ctx pointer).
 */
static __always_inline void *dc_skb_data(struct __sk_buff *skb)
{
	void *p;

	asm volatile("%0 = *(u32 *)(%1 + %2)" : "=r"(p) : "r"(skb),
		     "i"(__builtin_offsetof(struct __sk_buff, data)));
	return p;
}

static __always_inline void *dc_skb_data_end(struct __sk_buff *skb)
{
	void *p;

	asm volatile("%0 = *(u32 *)(%1 + %2)" : "=r"(p) : "r"(skb),
		     "i"(__builtin_offsetof(struct __sk_buff, data_end)));
	return p;
}

/* What the programs need to know of a TCP/IPv4 packet. */
struct dc_pkt {
	__u32 saddr, daddr;	/* network order */
	__u16 sport, dport;	/* host order */
	__u32 ihl_bytes;	/* IPv4 header length incl. options */
	__u32 tot_len;		/* IPv4 total length */
	__u32 payload;		/* TCP payload bytes (whole GSO packet) */
	bool gso;
};

/*
 * Parse Ethernet + IPv4 + TCP.  Returns false for anything else: non-IP,
 * IPv6, VLAN-tagged, fragments, truncated headers, non-TCP.
 */
static __always_inline bool dc_parse_tcp4(struct __sk_buff *skb, struct dc_pkt *p)
{
	void *data, *end;
	struct ethhdr *eth;
	struct iphdr *iph;
	struct tcphdr *th;
	__u32 ihl, doff;

	if (skb->protocol != bpf_htons(DC_ETH_P_IP))
		return false;
	/* Make sure the headers are linear; short packets simply stay short. */
	if (dc_skb_data(skb) + DC_PULL_LEN > dc_skb_data_end(skb))
		bpf_skb_pull_data(skb, skb->len < DC_PULL_LEN ? skb->len : DC_PULL_LEN);
	data = dc_skb_data(skb);
	end = dc_skb_data_end(skb);
	eth = data;
	iph = (void *)(eth + 1);
	if ((void *)(iph + 1) > end || eth->h_proto != bpf_htons(DC_ETH_P_IP))
		return false;
	if (iph->version != 4 || iph->ihl < 5 || iph->protocol != DC_IPPROTO_TCP)
		return false;
	if (iph->frag_off & bpf_htons(DC_IP_MF | DC_IP_OFFSET))
		return false;
	ihl = iph->ihl * 4;
	th = (void *)iph + ihl;
	if ((void *)(th + 1) > end)
		return false;
	doff = th->doff * 4;
	p->saddr = iph->saddr;
	p->daddr = iph->daddr;
	p->sport = bpf_ntohs(th->source);
	p->dport = bpf_ntohs(th->dest);
	p->ihl_bytes = ihl;
	p->tot_len = bpf_ntohs(iph->tot_len);
	if (doff < 20 || p->tot_len < ihl + doff || p->tot_len > skb->len - DC_ETH_HLEN)
		return false;
	p->payload = p->tot_len - ihl - doff;
	p->gso = skb->gso_segs > 1 || skb->gso_size;
	return true;
}

/* Sender-side flow key of a packet travelling from the sender (data). */
static __always_inline void dc_key_fwd(const struct dc_pkt *p, struct dc_flow_key *k)
{
	__builtin_memset(k, 0, sizeof(*k));
	k->family = DC_AF_INET;
	k->saddr[0] = p->saddr;
	k->daddr[0] = p->daddr;
	k->sport = p->sport;
	k->dport = p->dport;
}

/* Sender-side flow key of a packet travelling towards the sender (ACK). */
static __always_inline void dc_key_rev(const struct dc_pkt *p, struct dc_flow_key *k)
{
	__builtin_memset(k, 0, sizeof(*k));
	k->family = DC_AF_INET;
	k->saddr[0] = p->daddr;
	k->daddr[0] = p->saddr;
	k->sport = p->dport;
	k->dport = p->sport;
}

/*
 * After the IPv4 header grew or shrank by delta bytes at the options:
 * rewrite ihl and tot_len and recompute the header checksum.  The header
 * is copied to the stack (at most 60 bytes) for the sum.
 */
static __always_inline int dc_ip_fix_header(struct __sk_buff *skb, __u64 new_hdr_len,
					    __u32 new_tot_len)
{
	__u8 hdr[DC_IP_MAX_HDR] = {};
	__u16 csum;

	dc_opaque(new_hdr_len);
	if (new_hdr_len < DC_IP_BASE_LEN || new_hdr_len > DC_IP_MAX_HDR || (new_hdr_len & 3))
		return -1;
	if (bpf_skb_load_bytes(skb, DC_ETH_HLEN, hdr, new_hdr_len))
		return -1;
	hdr[0] = 0x40 | (__u8)(new_hdr_len / 4);
	hdr[2] = (__u8)(new_tot_len >> 8);
	hdr[3] = (__u8)new_tot_len;
	hdr[10] = 0;
	hdr[11] = 0;
	csum = dc_ip_csum(hdr, new_hdr_len);
	hdr[10] = (__u8)(csum >> 8);
	hdr[11] = (__u8)csum;
	return bpf_skb_store_bytes(skb, DC_ETH_HLEN, hdr, DC_IP_BASE_LEN, 0);
}

/*
 * Write an option of len bytes at the start of the options area after
 * growing the header by grow bytes (grow = len on an option-free header;
 * len − 4 when the option replaces a tag-only option already there, which
 * then ends up as the option's last 4 bytes and is overwritten).  GSO
 * packets keep working: the kernel lowers gso_size by grow so every
 * segment still fits the MTU.
 */
static __always_inline int dc_opt_write(struct __sk_buff *skb, const struct dc_pkt *p,
					const __u8 *opt, __u64 len, __u64 grow)
{
	/* One register for the check and the use, or the verifier loses the bound. */
	dc_opaque(len);
	dc_opaque(grow);
	if (len > DC_INT_MAX_OPT_LEN || len < DC_INT_BASE_LEN || grow > len || !grow)
		return -1;
	if (bpf_skb_adjust_room(skb, (__s32)grow, BPF_ADJ_ROOM_NET, 0))
		return -1;
	if (bpf_skb_store_bytes(skb, DC_IP_OPT_OFF, opt, len, 0))
		return -1;
	return dc_ip_fix_header(skb, p->ihl_bytes + grow, p->tot_len + grow);
}

/* Insert an option of len bytes right after an option-free IPv4 header. */
static __always_inline int dc_int_insert(struct __sk_buff *skb, const struct dc_pkt *p,
					 const __u8 *opt, __u64 len)
{
	if (p->ihl_bytes != DC_IP_BASE_LEN)
		return -1;
	return dc_opt_write(skb, p, opt, len, len);
}

/* Remove the INT option of len bytes that starts the options area. */
static __always_inline int dc_int_strip(struct __sk_buff *skb, const struct dc_pkt *p, __u64 len)
{
	dc_opaque(len);
	if (len > DC_INT_MAX_OPT_LEN || len > p->ihl_bytes - DC_IP_BASE_LEN)
		return -1;
	if (bpf_skb_adjust_room(skb, -(__s32)len, BPF_ADJ_ROOM_NET, 0))
		return -1;
	return dc_ip_fix_header(skb, p->ihl_bytes - len, p->tot_len - len);
}

#endif
