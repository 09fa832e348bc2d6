// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * s-PERC / s-PERC* link.
 *
 * Attached: TC egress and TC ingress (tcx or clsact) of every switch port
 * and of every host uplink; dc_perc_port maps the interface to the
 * directed link out of it (maps/perc.h).
 * Runs: for every packet; only UDP to or from DC_PERC_UDP_PORT is read.
 * What it lets through is handed on (DC_TC_NEXT), so programs after it on
 * the hook still run.
 * A forward control packet updates its link at the egress it leaves by, a
 * reverse one at the ingress of the same interface (the link's head,
 * "Proactive Congestion Control", Jose, Ch. 2.1), so each link sees a
 * flow's packet twice per round trip.  A host port turns a forward packet
 * that has crossed its whole path around (REV) and sends it back out.
 *
 * parse -> dc_perc_update (include/dcbpf/perc.h, under the link's spin
 * lock, after the lazy round reset) -> write the hop back.  A control
 * packet that cannot be applied consistently (short, unknown version,
 * more than DC_PERC_MAX_HOPS hops, a hop index outside its path, another
 * link's entry) is dropped before the lock, counted by reason, and leaves
 * the link untouched: the sender's control timeout restarts the flow.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "dcbpf/perc.h"
#include "maps/perc.h"
#include "lib/count.h"
#include "lib/udp4.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define TC_ACT_SHOT 2

/* Where the control header starts and what it says. */
struct perc_pkt {
	__u32 l4_off;		/* UDP header */
	__u32 off;		/* PERC header */
	__u8 hdr[DC_PERC_HDR_LEN];
};

#define STAT(f) DC_COUNT(dc_perc_stats, f)

static __always_inline int drop(enum dc_perc_drop why)
{
	DC_COUNT_AT(dc_perc_stats, drop, why);
	return TC_ACT_SHOT;
}

/* 1: a PERC control packet, header read; 0: not ours; <0: drop reason. */
static __always_inline int parse(struct __sk_buff *skb, struct perc_pkt *p)
{
	if (!dc_udp4_port(skb, DC_PERC_UDP_PORT, &p->l4_off))
		return 0;
	p->off = p->l4_off + 8;
	if (bpf_skb_load_bytes(skb, p->off, p->hdr, DC_PERC_HDR_LEN))
		return -DC_PERC_D_SHORT - 1;
	if (p->hdr[0] != DC_PERC_VERSION)
		return -DC_PERC_D_VERSION - 1;
	if (p->hdr[2] == 0 || p->hdr[2] > DC_PERC_MAX_HOPS)
		return -DC_PERC_D_NHOPS - 1;
	if (skb->len < p->off + DC_PERC_HDR_LEN + (__u32)p->hdr[2] * DC_PERC_HOP_LEN)
		return -DC_PERC_D_SHORT - 1;
	return 1;
}

/* UDP over IPv4 may carry no checksum; a rewritten hop would break one. */
static __always_inline int zero_udp_csum(struct __sk_buff *skb, const struct perc_pkt *p)
{
	__u16 z = 0;

	return bpf_skb_store_bytes(skb, p->l4_off + 6, &z, 2, 0);
}

/* At a host, a forward packet that crossed its whole path goes back:
 * addresses and ports swapped (the IPv4 checksum is a sum: unchanged),
 * REV set, out of the interface it came in by. */
static __always_inline int reflect(struct __sk_buff *skb, struct perc_pkt *p)
{
	__u8 mac[12], sw[12], addr[8], swa[8], ports[4], swp[4];
	int i;

	if (bpf_skb_load_bytes(skb, 0, mac, 12) || bpf_skb_load_bytes(skb, DC_ETH_HLEN + 12, addr, 8) ||
	    bpf_skb_load_bytes(skb, p->l4_off, ports, 4))
		return drop(DC_PERC_D_SHORT);
	for (i = 0; i < 6; i++) {
		sw[i] = mac[i + 6];
		sw[i + 6] = mac[i];
	}
	for (i = 0; i < 4; i++) {
		swa[i] = addr[i + 4];
		swa[i + 4] = addr[i];
	}
	swp[0] = ports[2];
	swp[1] = ports[3];
	swp[2] = ports[0];
	swp[3] = ports[1];
	p->hdr[1] |= DC_PERC_PF_REV;
	if (bpf_skb_store_bytes(skb, 0, sw, 12, 0) ||
	    bpf_skb_store_bytes(skb, DC_ETH_HLEN + 12, swa, 8, 0) ||
	    bpf_skb_store_bytes(skb, p->l4_off, swp, 4, 0) ||
	    bpf_skb_store_bytes(skb, p->off + 1, &p->hdr[1], 1, 0) || zero_udp_csum(skb, p))
		return TC_ACT_SHOT;
	STAT(reflected);
	return bpf_redirect(skb->ifindex, 0);
}

static __always_inline int perc(struct __sk_buff *skb, bool ingress)
{
	struct dc_perc_hop hops[DC_PERC_MAX_HOPS] = {}, h = {};
	__u8 raw[DC_PERC_HOP_LEN];
	struct dc_perc_port *port;
	struct dc_perc_link *link;
	struct dc_perc_lcfg *cfg;
	struct perc_pkt p = {};
	__u32 ifindex = skb->ifindex, nhops, idx, i, e, l0, hop_off;
	__u64 now_ns, epoch;
	bool rev, fin;
	__u8 next;
	int rc;

	rc = parse(skb, &p);
	if (rc == 0)
		return DC_TC_NEXT;
	STAT(ctrl_pkts);
	port = bpf_map_lookup_elem(&dc_perc_port, &ifindex);
	if (!port) {
		STAT(passed);
		return DC_TC_NEXT;
	}
	if (rc < 0)
		return drop((enum dc_perc_drop)(-rc - 1));
	nhops = p.hdr[2];
	rev = p.hdr[1] & DC_PERC_PF_REV;
	fin = p.hdr[1] & DC_PERC_PF_FIN;
	if (!ingress) {
		/* Egress: forward packets only; reverse ones were applied
		 * when they came in. */
		if (rev) {
			STAT(passed);
			return DC_TC_NEXT;
		}
		if (p.hdr[3] >= nhops)
			return drop(DC_PERC_D_INDEX);
		idx = p.hdr[3];
		next = (__u8)(idx + 1);
	} else if (!rev) {
		/* Ingress, forward: a switch applies it at the egress port;
		 * a host is its receiver and sends it back. */
		if (!(port->flags & DC_PERC_PORT_HOST)) {
			STAT(passed);
			return DC_TC_NEXT;
		}
		if (p.hdr[3] != nhops)
			return drop(DC_PERC_D_INDEX);
		return reflect(skb, &p);
	} else {
		if (p.hdr[3] == 0 || p.hdr[3] > nhops)
			return drop(DC_PERC_D_INDEX);
		idx = (__u32)p.hdr[3] - 1;
		next = (__u8)idx;
	}
	hop_off = p.off + DC_PERC_HDR_LEN;
	for (i = 0; i < DC_PERC_MAX_HOPS; i++) {
		if (i >= nhops)
			break;
		if (bpf_skb_load_bytes(skb, hop_off + i * DC_PERC_HOP_LEN, raw, DC_PERC_HOP_LEN))
			return drop(DC_PERC_D_SHORT);
		dc_perc_hop_decode(raw, &hops[i]);
		if (i == idx)
			h = hops[i];
	}
	link = bpf_map_lookup_elem(&dc_perc_link, &port->link);
	if (!link || !link->link_id || (h.link_id && h.link_id != link->link_id) ||
	    (rev && h.link_id != link->link_id))
		return drop(DC_PERC_D_LINK);
	h.link_id = (__u16)link->link_id;
	l0 = (p.hdr[1] & DC_PERC_PF_L0) ? dc_perc_get_be32(p.hdr + 12) : DC_PERC_INF_KBPS;
	e = dc_perc_limit_kbps(hops, nhops, idx, l0);

	/* A FIN is applied once per link, on its way out (Alg. 6 line 16);
	 * on the way back it only moves the index. */
	if (!(rev && fin)) {
		cfg = bpf_map_lookup_elem(&dc_perc_lcfg, &port->link);
		now_ns = bpf_ktime_get_ns();
		bpf_spin_lock(&link->lock);
		/* a live capacity change (dcbpf perc set): this packet's b
		 * already uses it */
		if (cfg && cfg->cap_kbps)
			link->st.cap_kbps = cfg->cap_kbps;
		epoch = link->round_ns ? dc_perc_epoch(now_ns, link->phase_ns, link->round_ns)
				       : link->tick;
		dc_perc_advance(&link->st, epoch);
		dc_perc_update(&link->st, &h, e, fin);
		link->updates++;
		if (fin)
			link->fins++;
		bpf_spin_unlock(&link->lock);
		dc_perc_hop_encode(raw, &h);
		if (idx >= DC_PERC_MAX_HOPS ||
		    bpf_skb_store_bytes(skb, hop_off + idx * DC_PERC_HOP_LEN, raw, DC_PERC_HOP_LEN, 0))
			return TC_ACT_SHOT;
		STAT(updates);
	} else {
		STAT(passed);
	}
	if (bpf_skb_store_bytes(skb, p.off + 3, &next, 1, 0) || zero_udp_csum(skb, &p))
		return TC_ACT_SHOT;
	return DC_TC_NEXT;
}

SEC("tc")
int dc_perc_egress(struct __sk_buff *skb)
{
	return perc(skb, false);
}

SEC("tc")
int dc_perc_ingress(struct __sk_buff *skb)
{
	return perc(skb, true);
}
