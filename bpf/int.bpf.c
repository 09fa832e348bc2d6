// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * INT on the hosts: source, sink, echo, and the sender's publication of
 * the echoed stack for PowerTCP.  Wire format: include/dcbpf/int.h,
 * docs/int.md.
 *
 * Anything that is not TCP/IPv4, is a fragment, or is truncated passes
 * untouched; so does a packet whose IP options leave no room (counted).
 * Every packet is handed on (DC_TC_NEXT): programs after these on the
 * same hook (tcx or cls_bpf) still run; at the end of the hook it passes.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "dcbpf/int.h"
#include "dcbpf/flow.h"
#include "maps/int.h"
#include "lib/ipv4.h"
#include "lib/count.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Largest hop queue of the newest stack echoed to this sender for the flow
 * (0: none yet). */
static __always_inline __u32 dc_int_echo_qmax(const struct dc_int_stack *st)
{
	__u32 i, q = 0;

	if (!st)
		return 0;
	for (i = 0; i < DC_INT_MAX_HOPS; i++)
		if (i < st->nhops && st->hop[i].qlen_bytes > q)
			q = st->hop[i].qlen_bytes;
	return q;
}

/* Per-flow gate of the source: sampling (dc_int_sample_due), then give-up
 * (dc_int_giveup).  True when this segment gets the option; records
 * the time for the flow. */
static __always_inline bool dc_int_flow_gate(const struct dc_pkt *p, const struct dc_int_dst_cfg *cfg)
{
	struct dc_int_samp fresh = {}, *s;
	struct dc_int_stack *st;
	struct dc_flow_key key;
	__u64 now = bpf_ktime_get_ns();
	int gu;

	dc_key_fwd(p, &key);
	s = bpf_map_lookup_elem(&dc_int_samp, &key);
	if (!s) {
		bpf_map_update_elem(&dc_int_samp, &key, &fresh, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&dc_int_samp, &key);
		if (!s)
			return true;
	}
	st = bpf_map_lookup_elem(&dc_int_flows, &key);
	if (!dc_int_sample_due(cfg, now, s->tagged_ns, dc_int_echo_qmax(st))) {
		DC_COUNT(dc_int_stats, src_sampled_out);
		return false;
	}
	gu = dc_int_giveup(s, cfg->giveup_ms, now, st ? st->updated_ns : 0);
	if (gu != DC_INT_GU_TAG) {
		if (gu == DC_INT_GU_GAVE_UP)
			DC_COUNT(dc_int_stats, src_gave_up);
		DC_COUNT(dc_int_stats, src_int_off);
		return false;
	}
	s->tagged_ns = now;
	return true;
}

/*
 * Source: reserve empty slots on a data segment to a configured prefix
 * (on a sampled subset when the prefix says so).
 * A segment that already carries an Ethereal tag-only option (the path
 * tag was added before this program ran) gets the full option in its
 * place with the same P: the order of the two programs on the hook does
 * not change the packet (docs/ethereal.md).
 */
static __always_inline bool dc_int_source(struct __sk_buff *skb, const struct dc_pkt *p)
{
	struct dc_int_dst_key k = { .prefixlen = 32, .addr = p->daddr };
	struct dc_int_dst_cfg *cfg;
	__u8 opt[DC_INT_MAX_OPT_LEN] = {};
	__u8 tag[DC_INT_BASE_LEN] = {};
	__u32 len, path = 0, grow;

	if (!p->payload)
		return false;
	cfg = bpf_map_lookup_elem(&dc_int_dst, &k);
	if (!cfg)
		return false;
	/* a data segment not due (or of a flow that gave up): no option, and
	 * no echo either (it is data) */
	if ((cfg->sample_us || cfg->giveup_ms) && !dc_int_flow_gate(p, cfg))
		return true;
	len = dc_int_opt_len(cfg->slots);
	grow = len;
	if (p->ihl_bytes != DC_IP_BASE_LEN) {
		if (bpf_skb_load_bytes(skb, DC_IP_OPT_OFF, tag, sizeof(tag)) ||
		    dc_int_check(tag, p->ihl_bytes - DC_IP_BASE_LEN) != DC_INT_TAG ||
		    p->ihl_bytes + len - DC_INT_BASE_LEN > DC_IP_MAX_HDR) {
			DC_COUNT(dc_int_stats, src_no_room);
			return true;
		}
		path = dc_int_path(tag[3]);
		grow = len - DC_INT_BASE_LEN;
	}
	opt[0] = DC_INT_OPT_TYPE;
	opt[1] = (__u8)len;
	opt[2] = dc_int_b2(cfg->sample_us ? DC_INT_FLAG_SAMPLED : 0);
	opt[3] = dc_int_b3(0, path);
	if (dc_opt_write(skb, p, opt, len, grow)) {
		DC_COUNT(dc_int_stats, src_fail);
		return true;
	}
	DC_COUNT(dc_int_stats, src_added);
	if (grow != len)
		DC_COUNT(dc_int_stats, src_tag_grown);
	if (p->gso)
		DC_COUNT(dc_int_stats, src_gso);
	return true;
}

/* Echo: carry the flow's latest hop stack back on a segment to its sender. */
static __always_inline void dc_int_echo(struct __sk_buff *skb, const struct dc_pkt *p)
{
	__u8 opt[DC_INT_MAX_OPT_LEN] = {};
	struct dc_int_sink_rec *rec;
	__u8 tag[DC_INT_BASE_LEN] = {};
	struct dc_flow_key key;
	__u32 i, hops, len, grow, path = 0;

	dc_key_rev(p, &key);
	rec = bpf_map_lookup_elem(&dc_int_sink, &key);
	if (!rec || !rec->hops)
		return;
	if (bpf_ktime_get_ns() - rec->updated_ns > DC_INT_ECHO_MAX_AGE_NS) {
		DC_COUNT(dc_int_stats, echo_stale);
		return;
	}
	/* a sampled flow: each stack rides back once, so the sender's
	 * publication time says how fresh its telemetry is */
	if ((rec->flags & DC_INT_FLAG_SAMPLED) && rec->echoed) {
		DC_COUNT(dc_int_stats, echo_skipped);
		return;
	}
	hops = rec->hops > DC_INT_WIRE_MAX_SLOTS ? DC_INT_WIRE_MAX_SLOTS : rec->hops;
	len = dc_int_opt_len(hops);
	grow = len;
	if (p->ihl_bytes != DC_IP_BASE_LEN) {
		/* an Ethereal tag already there: the echo takes its place, P kept */
		if (bpf_skb_load_bytes(skb, DC_IP_OPT_OFF, tag, sizeof(tag)) ||
		    dc_int_check(tag, p->ihl_bytes - DC_IP_BASE_LEN) != DC_INT_TAG ||
		    p->ihl_bytes + len - DC_INT_BASE_LEN > DC_IP_MAX_HDR) {
			DC_COUNT(dc_int_stats, echo_no_room);
			return;
		}
		path = dc_int_path(tag[3]);
		grow = len - DC_INT_BASE_LEN;
	}
	opt[0] = DC_INT_OPT_TYPE;
	opt[1] = (__u8)len;
	opt[2] = dc_int_b2(DC_INT_FLAG_ECHO | (rec->flags & DC_INT_FLAG_OVERFLOW));
	/* P is the ACK's own tag (0 = none), never the data's path: a leaf
	 * steers by P in every form of the option (docs/ethereal.md). */
	opt[3] = dc_int_b3(hops, path);
	for (i = 0; i < DC_INT_WIRE_MAX_SLOTS; i++)
		if (i < hops)
			dc_int_store_be64(&opt[DC_INT_BASE_LEN + i * DC_INT_HOP_LEN],
					  rec->hop_word[i]);
	if (dc_opt_write(skb, p, opt, len, grow)) {
		DC_COUNT(dc_int_stats, src_fail);
		return;
	}
	if (rec->flags & DC_INT_FLAG_SAMPLED)
		rec->echoed = 1;
	DC_COUNT(dc_int_stats, echo_added);
}

/*
 * Host egress (TC clsact egress / tcx egress of each host interface):
 * runs for every packet the host sends.  Data segments to INT
 * destinations get empty slots; other TCP segments of flows the host
 * receives get the echo.
 */
SEC("tc")
int dc_int_hout(struct __sk_buff *skb)
{
	struct dc_pkt p;

	if (!dc_parse_tcp4(skb, &p))
		return DC_TC_NEXT;
	if (!dc_int_source(skb, &p))
		dc_int_echo(skb, &p);
	return DC_TC_NEXT;
}

/* Sink: keep the stack for the echo. */
static __always_inline void dc_int_sink_keep(const struct dc_pkt *p, const __u8 *opt, __u32 slots)
{
	struct dc_int_sink_rec rec = {};
	struct dc_flow_key key;
	__u32 i, hops = dc_int_hops(opt[3]);

	rec.updated_ns = bpf_ktime_get_ns();
	rec.hops = hops;
	rec.flags = opt[2] & DC_INT_FLAG_MASK;
	rec.path = dc_int_path(opt[3]);
	for (i = 0; i < DC_INT_WIRE_MAX_SLOTS; i++)
		if (i < hops && i < slots)
			rec.hop_word[i] = dc_int_load_be64(&opt[DC_INT_BASE_LEN + i * DC_INT_HOP_LEN]);
	dc_key_fwd(p, &key);
	bpf_map_update_elem(&dc_int_sink, &key, &rec, BPF_ANY);
}

/* Sender: decode the echoed stack and publish it for the CC. */
static __always_inline void dc_int_publish(const struct dc_pkt *p, const __u8 *opt, __u32 slots)
{
	struct dc_int_stack st = {};
	struct dc_int_stack *prev;
	struct dc_flow_key key;
	__u64 now = bpf_ktime_get_ns();
	__u32 i, hops = dc_int_hops(opt[3]);

	dc_key_rev(p, &key);
	prev = bpf_map_lookup_elem(&dc_int_flows, &key);
	/* Unwrap only against a recent enough previous stack. */
	if (prev && now - prev->updated_ns > DC_INT_UNWRAP_MAX_NS)
		prev = NULL;
	for (i = 0; i < DC_INT_WIRE_MAX_SLOTS; i++) {
		__u64 w;

		if (i >= hops || i >= slots)
			break;
		w = dc_int_load_be64(&opt[DC_INT_BASE_LEN + i * DC_INT_HOP_LEN]);
		dc_int_hop_decode(w, prev && i < prev->nhops ? &prev->hop[i] : NULL, &st.hop[i]);
	}
	st.nhops = hops < slots ? hops : slots;
	st.flags = (opt[2] & DC_INT_FLAG_OVERFLOW) ? DC_INT_F_OVERFLOW : 0;
	st.updated_ns = now;
	bpf_map_update_elem(&dc_int_flows, &key, &st, BPF_ANY);
}

/*
 * Host ingress (TC clsact ingress / tcx ingress of each host interface):
 * runs for every packet the host receives, before IP and TCP see it.
 * Strips our option: data stacks are kept for the echo (sink), echoed
 * stacks are published for PowerTCP (sender).
 */
SEC("tc")
int dc_int_hin(struct __sk_buff *skb)
{
	__u8 opt[DC_INT_MAX_OPT_LEN] = {};
	enum dc_int_verdict v;
	struct dc_pkt p;
	__u32 opts_len, len, slots;

	if (!dc_parse_tcp4(skb, &p) || p.ihl_bytes == DC_IP_BASE_LEN)
		return DC_TC_NEXT;
	opts_len = p.ihl_bytes - DC_IP_BASE_LEN;
	if (bpf_skb_load_bytes(skb, DC_IP_OPT_OFF, opt, 4))
		return DC_TC_NEXT;
	v = dc_int_check(opt, opts_len);
	if (v == DC_INT_NONE)
		return DC_TC_NEXT;
	len = opt[1];
	if (v == DC_INT_BAD_LEN) {
		/* Documented rule: a length we cannot trust is left alone; the IP
		 * layer ignores unknown options, TCP never sees them. */
		DC_COUNT(dc_int_stats, bad_passed);
		return DC_TC_NEXT;
	}
	if (len > DC_INT_MAX_OPT_LEN || bpf_skb_load_bytes(skb, DC_IP_OPT_OFF, opt, len))
		return DC_TC_NEXT;
	slots = dc_int_slots(len);
	if (v == DC_INT_TAG)
		; /* an Ethereal tag that no leaf removed: strip, nothing to keep */
	else if (v != DC_INT_OK)
		DC_COUNT(dc_int_stats, bad_stripped);
	else if (opt[2] & DC_INT_FLAG_ECHO)
		dc_int_publish(&p, opt, slots);
	else
		dc_int_sink_keep(&p, opt, slots);
	if (dc_int_strip(skb, &p, len)) {
		DC_COUNT(dc_int_stats, strip_fail);
		return DC_TC_NEXT;
	}
	if (v == DC_INT_TAG)
		DC_COUNT(dc_int_stats, tag_stripped);
	else if (v == DC_INT_OK && (opt[2] & DC_INT_FLAG_ECHO))
		DC_COUNT(dc_int_stats, echo_rx);
	else if (v == DC_INT_OK)
		DC_COUNT(dc_int_stats, sink_stripped);
	return DC_TC_NEXT;
}
