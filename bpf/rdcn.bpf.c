// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The circuit switch of an emulated reconfigurable fabric (the referee).
 *
 * Attached: TC ingress (tcx or clsact) of every port of the circuit-switch
 * namespace; port (i, u) is the far end of ToR i's uplink u (dc_rd_port).
 * Runs: for every frame entering the switch.
 *
 * parse (destination MAC -> next-hop ToR, dc_rd_mac) -> dc_rd_judge
 * (include/dcbpf/rdcn.h) on the live schedule at this instant (flip word,
 * dc_rd_where, the slot's matching) -> redirect to port (j, u)'s
 * interface, or drop and count the reason.  The switch never writes into
 * a frame and never queues one: a rotor circuit is bufferless (V. Addanki,
 * thesis, Ch. 7 §7.3), so a frame that finds its circuit down is lost, as
 * a frame sent into a reconfiguring optical switch would be.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "maps/rdcn.h"
#include "lib/count.h"
#include "lib/tcact.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define TC_ACT_SHOT 2

/* The clock.  0: bpf_ktime_get_ns (CLOCK_MONOTONIC, the clock the schedule
 * writer uses); tests set it to probe any instant around a slot or flip. */
__u64 dc_rd_now_ns;

static __always_inline int drop(struct dc_rd_pcnt *pc, int why)
{
	switch (why) {
	case DC_RD_V_NOSCHED:
		DC_CTR_ADD(dc_rd_pcnt, pc, drop_nosched, 1);
		break;
	case DC_RD_V_NIGHT:
		DC_CTR_ADD(dc_rd_pcnt, pc, drop_night, 1);
		break;
	case DC_RD_V_UNMATCHED:
		DC_CTR_ADD(dc_rd_pcnt, pc, drop_unmatched, 1);
		break;
	case DC_RD_V_SHORT:
		DC_CTR_ADD(dc_rd_pcnt, pc, drop_short, 1);
		break;
	default:
		DC_CTR_ADD(dc_rd_pcnt, pc, drop_nodest, 1);
		break;
	}
	return TC_ACT_SHOT;
}

/* The next hop's ToR from the destination MAC; DC_RD_TORS_MAX if unknown,
 * -1 if the frame has no Ethernet header. */
static __always_inline int next_hop(struct __sk_buff *skb, __u32 *to)
{
	struct dc_rd_mac_key k = {};
	const struct dc_rd_dst *d;

	if (bpf_skb_load_bytes(skb, 0, k.addr, sizeof(k.addr)) || skb->len < 14)
		return -1;
	d = bpf_map_lookup_elem(&dc_rd_mac, &k);
	*to = d ? d->tor : DC_RD_TORS_MAX;
	return 0;
}

SEC("tc")
int dc_rd_ref(struct __sk_buff *skb)
{
	__u32 ifindex = skb->ifindex, zero = 0, buf, slot = 0, key, to = DC_RD_TORS_MAX, other = DC_RD_PORTS;
	const struct dc_rd_slot *s = NULL;
	const struct dc_rd_port *port;
	const struct dc_rd_flip *fl;
	const struct dc_rd_cfg *c;
	const struct dc_rd_out *o;
	struct dc_rd_pcnt *pc;
	__u64 now, left = 0;
	int where, v;

	port = bpf_map_lookup_elem(&dc_rd_port, &ifindex);
	if (!port) {
		/* not a port of the fabric: it connects nothing */
		pc = bpf_map_lookup_elem(&dc_rd_pcnt, &other);
		DC_CTR_ADD(dc_rd_pcnt, pc, rx_pkts, 1);
		return drop(pc, DC_RD_V_NODEST);
	}
	key = dc_rd_port_key(port->tor, port->up);
	pc = bpf_map_lookup_elem(&dc_rd_pcnt, &key);
	DC_CTR_ADD(dc_rd_pcnt, pc, rx_pkts, 1);
	if (next_hop(skb, &to))
		return drop(pc, DC_RD_V_SHORT);

	now = dc_rd_now_ns ? dc_rd_now_ns : bpf_ktime_get_ns();
	fl = bpf_map_lookup_elem(&dc_rd_flip, &zero);
	if (!fl)
		return drop(pc, DC_RD_V_NOSCHED);
	buf = dc_rd_live_buf(fl->buf_at_ns, now);
	c = bpf_map_lookup_elem(&dc_rd_cfg, &buf);
	if (!c)
		return drop(pc, DC_RD_V_NOSCHED);
	where = dc_rd_where(c, now, &slot, &left);
	if (where > 0) {
		key = dc_rd_sched_key(buf, slot);
		s = bpf_map_lookup_elem(&dc_rd_sched, &key);
	}
	v = dc_rd_judge(where, c, s, port->up, port->tor, to);
	if (v != DC_RD_V_PASS)
		return drop(pc, v);

	key = dc_rd_port_key(to, port->up);
	o = bpf_map_lookup_elem(&dc_rd_out, &key);
	if (!o || !o->ifindex)
		return drop(pc, DC_RD_V_NODEST);
	DC_CTR_ADD(dc_rd_pcnt, pc, pass_pkts, 1);
	DC_CTR_ADD(dc_rd_pcnt, pc, pass_bytes, skb->len);
	DC_CTR_ADD(dc_rd_pcnt, bpf_map_lookup_elem(&dc_rd_pcnt, &key), out_pkts, 1);
	return bpf_redirect(o->ifindex, 0);
}

/*
 * The VOQ classifier of a ToR (include/dcbpf/rdcn.h, "VOQs at the ToRs").
 *
 * Attached: TC egress (tcx or clsact) of a ToR's uplink, in the ToR's
 * namespace, by `dcbpf rdcn voq`, which also builds the uplink's HTB of
 * VOQs and opens and closes their gates with the schedule.
 * Runs: for every frame the uplink is about to enqueue.  It puts the frame
 * into the VOQ of its next hop (destination MAC -> ToR j, dc_rd_mac):
 * skb->priority = classid 1:(j+1), which HTB takes as the class.  The
 * driver's kick and drain frames (DC_RD_KICK_PROTO) name their VOQ in
 * their first payload byte.  A frame for no ToR keeps its priority (HTB
 * sends it directly, and the circuit switch drops it).  Never drops,
 * never writes the frame.
 */
SEC("tc")
int dc_rd_voq(struct __sk_buff *skb)
{
	struct dc_rd_mac_key k = {};
	const struct dc_rd_dst *d;
	__u8 hdr[15];
	__u32 to;

	if (bpf_skb_load_bytes(skb, 0, hdr, sizeof(hdr)))
		return DC_TC_NEXT;
	if (hdr[12] == (DC_RD_KICK_PROTO >> 8) && hdr[13] == (DC_RD_KICK_PROTO & 0xff)) {
		to = hdr[14];
	} else {
		__builtin_memcpy(k.addr, hdr, sizeof(k.addr));
		d = bpf_map_lookup_elem(&dc_rd_mac, &k);
		if (!d)
			return DC_TC_NEXT;
		to = d->tor;
	}
	if (to < DC_RD_TORS_MAX)
		skb->priority = dc_rd_voq_classid(to);
	return DC_TC_NEXT;
}
