// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * INT transit hop of an emulated switch.
 *
 * Attached: TC egress (tcx or clsact) of every port of one switch; loaded
 * once per switch with the switch's pin directory, so it reads the same
 * dc_sw_port records the queue tracker keeps (maps/switch.h).
 * Runs: for every packet the port is about to enqueue.  It fills the next
 * free slot of a data packet's INT option in place — queue length the
 * packet finds, switch time, bytes the port has sent, port rate (on a ToR
 * uplink of a reconfigurable fabric: the rate of the circuit to the
 * frame's next hop while it is up, maps/rdcn_sched.h) — or sets the
 * overflow flag when no slot is left.  The packet never grows; echoed
 * stacks (E flag) and anything malformed pass untouched.  Every packet
 * is handed on (DC_TC_NEXT): the port's other egress programs still run.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "dcbpf/int.h"
#include "maps/switch.h"
#include "maps/int_switch.h"
#include "maps/rdcn_sched.h"
#include "lib/ipv4.h"
#include "lib/count.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";


/* The port record of the egress interface (dc_sw_ifport: ifindex → port). */
static __always_inline struct dc_sw_port *dc_port_of(__u32 ifindex)
{
	__u32 *port_id = bpf_map_lookup_elem(&dc_sw_ifport, &ifindex);
	struct dc_sw_port *port;

	if (!port_id)
		return NULL;
	port = bpf_map_lookup_elem(&dc_sw_port, port_id);
	return port && port->rate_mbps ? port : NULL;
}

/*
 * Rewrite 4-byte-aligned bytes of the IPv4 header and fix its checksum
 * incrementally (the option base word and one hop word change).
 */
static __always_inline int dc_rewrite(struct __sk_buff *skb, __u32 off, const __u8 *old_b,
				      const __u8 *new_b, __u32 len)
{
	__s64 diff = bpf_csum_diff((__be32 *)old_b, len, (__be32 *)new_b, len, 0);

	if (diff < 0)
		return -1;
	if (bpf_skb_store_bytes(skb, off, new_b, len, 0))
		return -1;
	return bpf_l3_csum_replace(skb, DC_IP_CSUM_OFF, 0, (__u32)diff, 0);
}

SEC("tc")
int dc_int_xmit(struct __sk_buff *skb)
{
	__u8 base[DC_INT_BASE_LEN], nbase[DC_INT_BASE_LEN];
	__u8 hop_old[DC_INT_HOP_LEN], hop_new[DC_INT_HOP_LEN];
	struct dc_int_hop_in h = {};
	__u8 mac[6];
	struct dc_sw_port *port;
	enum dc_int_verdict v;
	struct dc_pkt p;
	__u32 hops, slots, off;

	if (!dc_parse_tcp4(skb, &p) || p.ihl_bytes == DC_IP_BASE_LEN)
		return DC_TC_NEXT;
	if (bpf_skb_load_bytes(skb, DC_IP_OPT_OFF, base, sizeof(base)))
		return DC_TC_NEXT;
	v = dc_int_check(base, p.ihl_bytes - DC_IP_BASE_LEN);
	if (v == DC_INT_TAG) {
		/* Ethereal's tag-only option: no slot to fill; the leaf steers by it */
		DC_COUNT(dc_int_xstats, transit_tag);
		return DC_TC_NEXT;
	}
	if (v != DC_INT_OK) {
		if (base[0] == DC_INT_OPT_TYPE)
			DC_COUNT(dc_int_xstats, bad_passed);
		return DC_TC_NEXT;
	}
	if (base[2] & DC_INT_FLAG_ECHO) {
		DC_COUNT(dc_int_xstats, transit_echo);
		return DC_TC_NEXT;
	}
	__builtin_memcpy(nbase, base, sizeof(base));
	hops = dc_int_hops(base[3]);
	slots = dc_int_slots(base[1]);
	if (hops >= slots) {
		if (base[2] & DC_INT_FLAG_OVERFLOW)
			return DC_TC_NEXT;
		nbase[2] |= DC_INT_FLAG_OVERFLOW;
		if (!dc_rewrite(skb, DC_IP_OPT_OFF, base, nbase, sizeof(base)))
			DC_COUNT(dc_int_xstats, transit_overflow);
		return DC_TC_NEXT;
	}
	port = dc_port_of(skb->ifindex);
	if (!port)
		return DC_TC_NEXT;
	h.rate_mbps = port->rate_mbps;
	h.qlen_bytes = port->qlen_bytes;
	h.tx_bytes = port->tx_bytes;
	h.ts_ns = bpf_ktime_get_ns();
	/* a ToR uplink of a reconfigurable fabric (dc_rd_tor) reports its
	 * circuit's rate while the circuit to the frame's next hop is up and
	 * the packet network's otherwise (include/dcbpf/rdcn.h) */
	if (!bpf_skb_load_bytes(skb, 0, mac, sizeof(mac)))
		dc_rd_tor_rate(skb->ifindex, mac, h.ts_ns, &h.rate_mbps);
	off = DC_IP_OPT_OFF + DC_INT_BASE_LEN + (hops & 3) * DC_INT_HOP_LEN;
	if (bpf_skb_load_bytes(skb, off, hop_old, sizeof(hop_old)))
		return DC_TC_NEXT;
	dc_int_store_be64(hop_new, dc_int_hop_encode(&h));
	nbase[3] = dc_int_b3(hops + 1, dc_int_path(base[3]));
	if (dc_rewrite(skb, off, hop_old, hop_new, sizeof(hop_new)) ||
	    dc_rewrite(skb, DC_IP_OPT_OFF, base, nbase, sizeof(base)))
		return DC_TC_NEXT;
	DC_COUNT(dc_int_xstats, transit_filled);
	return DC_TC_NEXT;
}
