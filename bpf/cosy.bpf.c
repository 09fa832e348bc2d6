// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cosy switch: virtual-link reservations ("Building a Partial Communication
 * Synchrony Abstraction on Asynchronous Datacenters", Agarwal et al., §3.2,
 * §3.3, §4).
 *
 * Attached: TC ingress (tcx or clsact) of every port of a switch;
 * dc_cosy_ifport maps the interface to its port number (maps/cosy.h).
 * Runs: for every packet; only UDP to or from DC_COSY_UDP_PORT on a
 * configured port is read, everything else goes on untouched (DC_TC_NEXT:
 * programs after this one on the hook still run).
 *
 * parse -> the VL book of include/dcbpf/cosy.h under the port's spin lock
 * -> rewrite the label, the MACs, redirect:
 *  - rsvp: one VL taken uniformly at random among the free VLs of the
 *    ports toward the sender (dc_cosy_route), mapped to the arrival
 *    (port, vl); out of that port with the new VL.  Nothing free: the
 *    rsvp becomes a reject, one copy routed toward the sender (touching
 *    nothing) and one sent back out of the arrival port toward the
 *    receiver, freeing the VLs the rsvp took on its way here.
 *  - data, and complete / reject with DC_COSY_F_RELEASE: (arrival port,
 *    vl) must be held by the packet's (message, sequence); the packet
 *    leaves by the mapped (port, vl); complete and reject free the VL.
 *  - request, failure, and complete / reject without the flag: left to
 *    the kernel's routing, in the control priority.
 * A packet that cannot be applied consistently (short, unknown version or
 * type, vl ≥ K, a VL that is free or another message's, an rsvp with no
 * route) is dropped before anything is written, counted by reason (a
 * mapped port removed since the rsvp is found only after the VL is freed).  VLs
 * whose complete was lost free themselves δ_cosy after they were taken
 * (lazy expiry in the book).  The frames the program sends bypass IP
 * forwarding (no TTL change), as a label switch would.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "dcbpf/cosy.h"
#include "maps/cosy.h"
#include "lib/count.h"
#include "lib/udp4.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define TC_ACT_SHOT 2
/* TC_PRIO_CONTROL: band 0 of a default prio qdisc, ahead of best effort. */
#define PRIO_CONTROL 7

struct cosy_pkt {
	__u32 l4_off;		/* UDP header */
	__u32 off;		/* cosy header */
	struct dc_cosy_hdr h;
};

#define STAT(f) DC_COUNT(dc_cosy_stats, f)

static __always_inline int drop(enum dc_cosy_drop why)
{
	DC_COUNT_AT(dc_cosy_stats, drop, why);
	return TC_ACT_SHOT;
}

/* 1: a cosy packet, header read; 0: not ours; <0: -(drop reason) - 1. */
static __always_inline int parse(struct __sk_buff *skb, struct cosy_pkt *p)
{
	__u8 raw[DC_COSY_HDR_LEN];

	if (!dc_udp4_port(skb, DC_COSY_UDP_PORT, &p->l4_off))
		return 0;
	p->off = p->l4_off + 8;
	if (bpf_skb_load_bytes(skb, p->off, raw, DC_COSY_HDR_LEN))
		return -DC_COSY_D_SHORT - 1;
	dc_cosy_hdr_decode(raw, &p->h);
	if (p->h.ver != DC_COSY_VERSION)
		return -DC_COSY_D_VERSION - 1;
	if (p->h.type < DC_COSY_T_REQUEST || p->h.type > DC_COSY_T_MAX)
		return -DC_COSY_D_TYPE - 1;
	return 1;
}

/* The header as it now is, the frame's MACs for leaving by port o, and
 * no UDP checksum (IPv4 allows none; a rewritten header would break it). */
static __always_inline int write_out(struct __sk_buff *skb, const struct cosy_pkt *p,
				     const struct dc_cosy_port *o)
{
	__u8 raw[DC_COSY_HDR_LEN], mac[12];
	__u16 z = 0;
	int i;

	dc_cosy_hdr_encode(raw, &p->h);
	for (i = 0; i < 6; i++) {
		mac[i] = o->peer_mac[i];
		mac[i + 6] = o->mac[i];
	}
	if (bpf_skb_store_bytes(skb, p->off, raw, DC_COSY_HDR_LEN, 0) ||
	    bpf_skb_store_bytes(skb, 0, mac, 12, 0) || bpf_skb_store_bytes(skb, p->l4_off + 6, &z, 2, 0))
		return -1;
	return 0;
}

/* Toward the other end: addresses and ports swapped (the IPv4 checksum is
 * a sum: unchanged). */
static __always_inline int swap_ends(struct __sk_buff *skb, const struct cosy_pkt *p)
{
	__u8 addr[8], sw[8], ports[4], swp[4];
	int i;

	if (bpf_skb_load_bytes(skb, DC_ETH_HLEN + 12, addr, 8) || bpf_skb_load_bytes(skb, p->l4_off, ports, 4))
		return -1;
	for (i = 0; i < 4; i++) {
		sw[i] = addr[i + 4];
		sw[i + 4] = addr[i];
	}
	swp[0] = ports[2];
	swp[1] = ports[3];
	swp[2] = ports[0];
	swp[3] = ports[1];
	if (bpf_skb_store_bytes(skb, DC_ETH_HLEN + 12, sw, 8, 0) || bpf_skb_store_bytes(skb, p->l4_off, swp, 4, 0))
		return -1;
	return 0;
}

static __always_inline struct dc_cosy_port *port_get(__u32 no)
{
	struct dc_cosy_port *pt;

	if (no >= DC_COSY_PORTS_MAX)
		return NULL;
	pt = bpf_map_lookup_elem(&dc_cosy_port, &no);
	return pt && pt->ifindex ? pt : NULL;
}

static __always_inline int vl_drop(int rc)
{
	if (rc == DC_COSY_VL_FREE)
		return drop(DC_COSY_D_FREE);
	if (rc == DC_COSY_VL_OWNER)
		return drop(DC_COSY_D_OWNER);
	return drop(DC_COSY_D_VL);
}

/* data, and complete / reject on their way to the receiver: along the
 * reservation, freeing it when release. */
static __always_inline int follow(struct __sk_buff *skb, struct cosy_pkt *p, __u32 in_port, __u32 k,
				  bool release)
{
	struct dc_cosy_port *in, *out;
	__u32 v = p->h.vl, out_port = 0;
	__u8 out_vl = 0;
	__u64 now_ns;
	int rc;

	if (v >= k || v >= DC_COSY_K_MAX)
		return drop(DC_COSY_D_VL);
	in = port_get(in_port);
	if (!in)
		return drop(DC_COSY_D_PORT);
	now_ns = bpf_ktime_get_ns();
	bpf_spin_lock(&in->lock);
	if (release)
		rc = dc_cosy_release(&in->vls, k, v, p->h.msg_id, p->h.seq, now_ns);
	else
		rc = dc_cosy_match(&in->vls, k, v, p->h.msg_id, p->h.seq, now_ns);
	if (rc == DC_COSY_VL_OK) {
		v = dc_cosy_vl_idx(v);
		out_port = in->vls.vl[v].out_port;
		out_vl = in->vls.vl[v].out_vl;
		if (release)
			in->ctr.released++;
	}
	bpf_spin_unlock(&in->lock);
	if (rc != DC_COSY_VL_OK)
		return vl_drop(rc);
	out = port_get(out_port);
	if (!out)
		return drop(DC_COSY_D_PORT);
	p->h.vl = out_vl;
	if (write_out(skb, p, out))
		return TC_ACT_SHOT;
	if (release) {
		skb->priority = PRIO_CONTROL;
		__sync_fetch_and_add(&out->ctr.fwd_ctrl, 1);
		STAT(released);
	} else {
		__sync_fetch_and_add(&out->ctr.fwd_data, 1);
		STAT(data);
	}
	return bpf_redirect(out->ifindex, 0);
}

/* No VL toward the sender: a reject to both ends (§3.2). */
static __always_inline int reject(struct __sk_buff *skb, struct cosy_pkt *p, __u32 in_port,
				  const struct dc_cosy_route *rt, __u32 nports, const struct dc_cosy_cfg *cfg)
{
	struct dc_cosy_port *in, *first;

	in = port_get(in_port);
	if (!in)
		return drop(DC_COSY_D_PORT);
	p->h.type = DC_COSY_T_REJECT;
	p->h.reason = DC_COSY_R_NO_VL;
	p->h.switch_id = cfg->switch_id;
	skb->priority = PRIO_CONTROL;
	/* The sender's copy: routed toward it by the first shortest path,
	 * frees nothing (nothing toward it was reserved). */
	first = nports ? port_get(rt->port[0]) : NULL;
	if (first) {
		p->h.flags &= (__u8)~DC_COSY_F_RELEASE;
		if (!write_out(skb, p, first) && !bpf_clone_redirect(skb, first->ifindex, 0))
			STAT(rejects_to_sender);
	}
	/* The receiver's: back the way the rsvp came, same label, freeing. */
	p->h.flags |= DC_COSY_F_RELEASE;
	if (swap_ends(skb, p) || write_out(skb, p, in))
		return TC_ACT_SHOT;
	STAT(rejects_made);
	__sync_fetch_and_add(&in->ctr.fwd_ctrl, 1);
	return bpf_redirect(in->ifindex, 0);
}

/* What an rsvp asks of the port it picked. */
struct take_req {
	__u64 msg_id, now_ns, life_ns;
	__u32 port_no, k, v, seq;
	__u32 in_port, in_vl;
};

/*
 * Global (verified once, on its own): the free VLs of one candidate port
 * under its lock, into *mask; -1 if the port is not configured.  Kept
 * out of line so the caller's candidate loop sees one unknown mask per
 * port instead of every combination of them.
 */
__attribute__((noinline)) int dc_cosy_cand_free(__u32 port_no, __u32 k, __u64 now_ns, __u64 *mask)
{
	struct dc_cosy_port *pt;

	if (!mask)
		return -1;
	*mask = 0;
	pt = port_get(port_no);
	if (!pt)
		return -1;
	bpf_spin_lock(&pt->lock);
	*mask = dc_cosy_free_mask(&pt->vls, k, now_ns);
	bpf_spin_unlock(&pt->lock);
	return 0;
}

/* Global: reserve VL r->v of port r->port_no for the rsvp, or, if another
 * CPU took it since the masks were read, its lowest free VL.  Returns the
 * VL reserved, or -1. */
__attribute__((noinline)) int dc_cosy_take(struct take_req *r)
{
	struct dc_cosy_port *pt;
	bool reclaimed = false;
	__u32 v;
	int rc;

	if (!r)
		return -1;
	pt = port_get(r->port_no);
	if (!pt)
		return -1;
	v = r->v;
	bpf_spin_lock(&pt->lock);
	rc = dc_cosy_reserve(&pt->vls, r->k, v, r->msg_id, r->seq, r->now_ns, r->life_ns, (__u16)r->in_port,
			     (__u8)r->in_vl, &reclaimed);
	if (rc == DC_COSY_VL_BUSY) {
		v = dc_cosy_nth_bit(dc_cosy_free_mask(&pt->vls, r->k, r->now_ns), 0);
		rc = dc_cosy_reserve(&pt->vls, r->k, v, r->msg_id, r->seq, r->now_ns, r->life_ns,
				     (__u16)r->in_port, (__u8)r->in_vl, &reclaimed);
	}
	if (rc == DC_COSY_VL_OK) {
		pt->ctr.reserved++;
		pt->ctr.fwd_ctrl++;
		if (reclaimed)
			pt->ctr.reclaimed++;
	}
	bpf_spin_unlock(&pt->lock);
	return rc == DC_COSY_VL_OK ? (int)(v & (DC_COSY_K_MAX - 1)) : -1;
}

static __always_inline int rsvp(struct __sk_buff *skb, struct cosy_pkt *p, __u32 in_port, __u32 k,
				const struct dc_cosy_cfg *cfg)
{
	__u64 free[DC_COSY_CAND_MAX] = {};
	const struct dc_cosy_route *rt;
	struct dc_cosy_port *pt;
	struct take_req r = {};
	__u32 daddr, nports, i, c = 0, v = 0;
	int got;

	if (p->h.vl >= k)
		return drop(DC_COSY_D_VL);
	if (bpf_skb_load_bytes(skb, DC_ETH_HLEN + 16, &daddr, 4))
		return drop(DC_COSY_D_SHORT);
	rt = bpf_map_lookup_elem(&dc_cosy_route, &daddr);
	if (!rt)
		return drop(DC_COSY_D_NOROUTE);
	nports = rt->nports < DC_COSY_CAND_MAX ? rt->nports : DC_COSY_CAND_MAX;
	r.now_ns = bpf_ktime_get_ns();
	/* One lock at a time: read every candidate's free VLs, pick, then
	 * take the pick under its lock again (another CPU may have won it). */
	for (i = 0; i < DC_COSY_CAND_MAX; i++)
		if (i < nports)
			dc_cosy_cand_free(rt->port[i], k, r.now_ns, &free[i]);
	if (dc_cosy_pick(free, nports, bpf_get_prandom_u32(), &c, &v))
		goto refuse;
	r.port_no = rt->port[c & (DC_COSY_CAND_MAX - 1)];
	r.k = k;
	r.v = v;
	r.msg_id = p->h.msg_id;
	r.seq = p->h.seq;
	r.life_ns = cfg->expiry_ns;
	r.in_port = in_port;
	r.in_vl = p->h.vl;
	got = dc_cosy_take(&r);
	pt = port_get(r.port_no);
	if (got < 0 || !pt)
		goto refuse;
	p->h.vl = (__u8)got;
	p->h.hops++;
	skb->priority = PRIO_CONTROL;
	if (write_out(skb, p, pt))
		return TC_ACT_SHOT;
	STAT(rsvps);
	return bpf_redirect(pt->ifindex, 0);
refuse:
	return reject(skb, p, in_port, rt, nports, cfg);
}

SEC("tc")
int dc_cosy_ingress(struct __sk_buff *skb)
{
	const struct dc_cosy_cfg *cfg;
	struct cosy_pkt p = {};
	__u32 ifindex = skb->ifindex, zero = 0, k, in_port;
	__u32 *pno;
	int rc;

	rc = parse(skb, &p);
	if (rc == 0)
		return DC_TC_NEXT;
	pno = bpf_map_lookup_elem(&dc_cosy_ifport, &ifindex);
	cfg = bpf_map_lookup_elem(&dc_cosy_cfg, &zero);
	if (!pno || !cfg)
		return DC_TC_NEXT;	/* not a cosy port */
	STAT(pkts);
	if (rc < 0)
		return drop((enum dc_cosy_drop)(-rc - 1));
	in_port = *pno;
	k = dc_cosy_eff_k(cfg->k, cfg->mode);
	switch (p.h.type) {
	case DC_COSY_T_RSVP:
		return rsvp(skb, &p, in_port, k, cfg);
	case DC_COSY_T_DATA:
		return follow(skb, &p, in_port, k, false);
	case DC_COSY_T_COMPLETE:
	case DC_COSY_T_REJECT:
		if (p.h.flags & DC_COSY_F_RELEASE)
			return follow(skb, &p, in_port, k, true);
		break;
	default:
		break;
	}
	skb->priority = PRIO_CONTROL;
	STAT(passed);
	return DC_TC_NEXT;
}
