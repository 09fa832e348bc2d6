// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Ethereal on a leaf switch: steer tagged packets to the uplink their tag
 * names.  Tag: the P field of the INT option (include/dcbpf/int.h), in
 * its full form or the 4-byte tag-only form; docs/ethereal.md.
 *
 * One object per leaf network namespace, maps pinned under
 * <pin_dir>/eth/<netns>/ (maps/ethereal.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define DC_ETH_LEAF_MAPS
#include "dcbpf/ethereal.h"
#include "maps/ethereal.h"
#include "lib/ipv4.h"
#include "lib/count.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define DC_AF_INET_ 2
#define DC_IP_TTL_OFF (DC_ETH_HLEN + 8)

static __always_inline void dc_eth_count_path(__u32 tag, __u32 bytes)
{
	struct dc_eth_pathcnt *c = bpf_map_lookup_elem(&dc_eth_pcnt, &tag);

	if (c) {
		c->bytes += bytes;
		c->packets++;
	}
}

/* Remove the tag-only option: beyond the leaf the packet is as the host's
 * TCP built it (GRO at the receiver merges it again). */
static __always_inline void dc_eth_strip_tag(struct __sk_buff *skb, const struct dc_pkt *p,
					     enum dc_int_verdict v)
{
	if (v != DC_INT_TAG)
		return;
	if (dc_int_strip(skb, p, DC_INT_BASE_LEN))
		DC_COUNT(dc_eth_lstats, strip_fail);
	else
		DC_COUNT(dc_eth_lstats, tag_stripped);
}

/* TTL − 1 with the header checksum updated, as forwarding does. */
static __always_inline int dc_eth_dec_ttl(struct __sk_buff *skb)
{
	__u8 tp[2];
	__u16 old_w, new_w;

	if (bpf_skb_load_bytes(skb, DC_IP_TTL_OFF, tp, 2))
		return -1;
	old_w = (__u16)((tp[0] << 8) | tp[1]);
	tp[0]--;
	new_w = (__u16)((tp[0] << 8) | tp[1]);
	if (bpf_skb_store_bytes(skb, DC_IP_TTL_OFF, tp, 1, 0))
		return -1;
	return bpf_l3_csum_replace(skb, DC_IP_CSUM_OFF, bpf_htons(old_w), bpf_htons(new_w), 2);
}

/*
 * Leaf ingress (tcx ingress / clsact ingress of every host-facing port):
 * runs for every packet a host sends into the leaf, before routing.
 *   untagged (no option of ours, or P = 0)  → normal routing
 *   tag without an uplink in dc_eth_up      → normal routing, unknown_tag
 *   destination routed to a local port      → normal routing, local_dst
 *   the tag's uplink has no route (down)    → normal routing, uplink_down
 *   TTL ≤ 1, no route to the destination    → normal routing (the kernel answers)
 *   otherwise: TTL − 1, redirect to the uplink's next hop (bpf_redirect_neigh)
 * The tag-only option is stripped in every case; P inside a full INT option
 * stays (the INT sink removes the whole option).
 */
SEC("tc")
int dc_eth_lin(struct __sk_buff *skb)
{
	struct bpf_fib_lookup fib = {}, upf = {};
	struct bpf_redir_neigh nh = {};
	__u8 opt[DC_INT_BASE_LEN] = {}, ttl = 0;
	struct dc_eth_uplink *up;
	enum dc_int_verdict v;
	struct dc_pkt p;
	__u32 tag, *is_up, len;
	long rc;

	if (!dc_parse_tcp4(skb, &p))
		return DC_TC_NEXT;
	if (p.ihl_bytes == DC_IP_BASE_LEN ||
	    bpf_skb_load_bytes(skb, DC_IP_OPT_OFF, opt, sizeof(opt)))
		goto untagged;
	v = dc_int_check(opt, p.ihl_bytes - DC_IP_BASE_LEN);
	if (v != DC_INT_OK && v != DC_INT_TAG)
		goto untagged;
	tag = dc_int_path(opt[3]);
	if (!tag) {
		dc_eth_strip_tag(skb, &p, v);
		goto untagged;
	}
	up = bpf_map_lookup_elem(&dc_eth_up, &tag);
	if (!up || !up->ifindex) {
		DC_COUNT(dc_eth_lstats, unknown_tag);
		dc_eth_strip_tag(skb, &p, v);
		return DC_TC_NEXT;
	}
	if (bpf_skb_load_bytes(skb, DC_IP_TTL_OFF, &ttl, 1) || ttl <= 1) {
		DC_COUNT(dc_eth_lstats, ttl_expired);
		dc_eth_strip_tag(skb, &p, v);
		return DC_TC_NEXT;
	}
	/* Where would routing send it?  Only traffic that leaves by an uplink
	 * is steered; a local destination is not the spines' business. */
	fib.family = DC_AF_INET_;
	fib.l4_protocol = DC_IPPROTO_TCP;
	fib.ipv4_src = p.saddr;
	fib.ipv4_dst = p.daddr;
	fib.sport = bpf_htons(p.sport);
	fib.dport = bpf_htons(p.dport);
	fib.ifindex = skb->ifindex;	/* at ingress: the port it came in on */
	rc = bpf_fib_lookup(skb, &fib, sizeof(fib), 0);
	/* NO_NEIGH still names the egress: the neighbour is resolved later */
	if (rc != BPF_FIB_LKUP_RET_SUCCESS && rc != BPF_FIB_LKUP_RET_NO_NEIGH) {
		DC_COUNT(dc_eth_lstats, fib_fail);
		dc_eth_strip_tag(skb, &p, v);
		return DC_TC_NEXT;
	}
	is_up = bpf_map_lookup_elem(&dc_eth_upif, &fib.ifindex);
	if (!is_up) {
		DC_COUNT(dc_eth_lstats, local_dst);
		dc_eth_strip_tag(skb, &p, v);
		return DC_TC_NEXT;
	}
	/* Is the tag's uplink alive?  Its next hop must route out of it: a
	 * link taken down loses its routes (and its multipath next hops die). */
	upf.family = DC_AF_INET_;
	upf.ipv4_dst = up->nexthop;
	upf.ifindex = up->ifindex;
	rc = bpf_fib_lookup(skb, &upf, sizeof(upf), BPF_FIB_LOOKUP_DIRECT | BPF_FIB_LOOKUP_OUTPUT);
	if ((rc != BPF_FIB_LKUP_RET_SUCCESS && rc != BPF_FIB_LKUP_RET_NO_NEIGH) ||
	    upf.ifindex != up->ifindex) {
		DC_COUNT(dc_eth_lstats, uplink_down);
		dc_eth_strip_tag(skb, &p, v);
		return DC_TC_NEXT;
	}
	dc_eth_strip_tag(skb, &p, v);
	if (dc_eth_dec_ttl(skb))
		return DC_TC_NEXT;
	len = skb->len - DC_ETH_HLEN;
	dc_eth_count_path(tag, len);
	DC_COUNT(dc_eth_lstats, steered);
	nh.nh_family = DC_AF_INET_;
	nh.ipv4_nh = up->nexthop;
	return bpf_redirect_neigh(up->ifindex, &nh, sizeof(nh), 0);

untagged:
	dc_eth_count_path(0, skb->len - DC_ETH_HLEN);
	DC_COUNT(dc_eth_lstats, untagged);
	return DC_TC_NEXT;
}
