// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Ethereal on a host: path assignment and tagging at TC egress, the
 * move to another path on a retransmission timeout (sockops), and the
 * release of idle flows (a BPF timer per flow).  Mode reps chooses the
 * path per packet by recycled entropy (include/dcbpf/reps.h): the
 * ACKs it learns from are read at TC ingress.  The rule is
 * include/dcbpf/ethereal.h; tag format: include/dcbpf/int.h (the P field
 * of the INT option, or the 4-byte tag-only form); docs/ethereal.md.
 *
 * One object per host network namespace, its maps pinned under
 * <pin_dir>/eth/<netns>/: every host keeps its own view.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define DC_ETH_HOST_MAPS
#include "dcbpf/ethereal.h"
#include "dcbpf/flow.h"
#include "maps/ethereal.h"
#include "lib/ipv4.h"
#include "lib/count.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Entries dc_eth_flows may hold (dc_eth_flows_cap(): below where the LRU
 * starts evicting); set by the loader with the map's size.  0: no cap. */
const volatile __u32 dc_eth_flows_cap_entries = 0;

#define DC_TCP_FIN 0x01
#define DC_TCP_SYN 0x02
#define DC_TCP_RST 0x04
#define DC_TCP_ACK 0x10
#define DC_TCP_ECE 0x40
#define DC_CLOCK_MONOTONIC 1
#define DC_ETH_IDLE_MS_DEFAULT 2000
#define DC_NS_PER_MS 1000000ULL

static __always_inline struct dc_eth_hcfg *dc_eth_cfg(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&dc_eth_hcfg, &zero);
}

/*
 * arr[u] += w, arr[u] = x: the index is compared, never used as an offset.
 * An offset would make the verifier track the exact value of u back
 * through the greedy choice (one state per possible outcome), and the 6.1
 * verifier loses the bound of a masked index clang has already narrowed.
 */
static __always_inline void dc_eth_arr_add(__u64 *arr, __u32 u, __u64 w)
{
	__u32 i;

	for (i = 0; i < DC_ETH_MAX_UPLINKS; i++)
		if (i == u)
			__sync_fetch_and_add(&arr[i], w);
}

static __always_inline void dc_eth_arr_set(__u64 *arr, __u32 u, __u64 x)
{
	__u32 i;

	for (i = 0; i < DC_ETH_MAX_UPLINKS; i++)
		if (i == u)
			arr[i] = x;
}

/*
 * The greedy choice for leaf, as a global function: verified once on its
 * own with unknown arguments, and its result is an unknown value to the
 * callers, so the choice's branches do not multiply the callers' states.
 */
__noinline int dc_eth_choose(__u32 leaf, __u32 s, __u64 now, __u32 except)
{
	struct dc_eth_hleaf *v = bpf_map_lookup_elem(&dc_eth_view, &leaf);

	if (!v)
		return 0;
	return (int)dc_eth_pick_view(v, s, now, except);
}

static __always_inline __u64 dc_eth_idle_ns(const struct dc_eth_hcfg *cfg)
{
	return (__u64)(cfg && cfg->idle_ms ? cfg->idle_ms : DC_ETH_IDLE_MS_DEFAULT) * DC_NS_PER_MS;
}

/* Take the flow's weight off its uplink, once: whoever turns the state
 * from OPEN to RELEASED does it (compare-and-swap on path+state, so a
 * concurrent move on RTO is either before, and the weight leaves the new
 * uplink, or after, and finds the flow released).  True for that caller. */
static __always_inline bool dc_eth_flow_release(struct dc_eth_flow *f)
{
	struct dc_eth_hleaf *v;
	__u64 old, w;
	__u32 leaf, u, i;

	for (i = 0; i < 8; i++) {
		old = f->ps;
		if (dc_eth_ps_state(old) != DC_ETH_OPEN)
			return false;
		if (__sync_val_compare_and_swap(&f->ps, old,
						dc_eth_ps(dc_eth_ps_path(old), DC_ETH_RELEASED)) == old)
			break;
	}
	if (i == 8)
		return false;
	u = dc_eth_uplink_of(dc_eth_ps_path(old));
	leaf = f->leaf;
	w = f->weight;
	if (!w || u >= DC_ETH_MAX_UPLINKS)
		return true;
	v = bpf_map_lookup_elem(&dc_eth_view, &leaf);
	if (v)
		dc_eth_arr_add(v->up.load, u, -w);
	return true;
}

/*
 * Idle timer of a flow (armed at its first packet, re-armed for the rest
 * of the interval while packets keep coming).  Runs in softirq context
 * idle_ms after the last packet: releases the weight if FIN/RST did not,
 * and deletes the entry.
 */
static int dc_eth_idle_cb(void *map, struct dc_flow_key *key, struct dc_eth_flow *f)
{
	struct dc_eth_hcfg *cfg = dc_eth_cfg();
	__u64 idle = dc_eth_idle_ns(cfg), now = bpf_ktime_get_ns(), seen = f->last_seen_ns;

	/* seen may be a little ahead of now: another CPU stamped a packet
	 * after this callback read the clock.  Such a flow is not idle. */
	if (seen > now || now - seen < idle) {
		bpf_timer_start(&f->idle, seen > now ? idle : idle - (now - seen), 0);
		return 0;
	}
	if (dc_eth_flow_release(f))
		DC_COUNT(dc_eth_hstats, flows_idle);
	bpf_map_delete_elem(&dc_eth_reps, key);
	if (!bpf_map_delete_elem(map, key))
		DC_COUNT_ADD(dc_eth_hstats, flows_live, -1);
	return 0;
}

/* Room for one more flow entry without the LRU evicting an open one. */
static __always_inline bool dc_eth_flows_room(void)
{
	struct dc_eth_hcounters *c;
	__u32 zero = 0;

	if (!dc_eth_flows_cap_entries)
		return true;
	c = bpf_map_lookup_elem(&dc_eth_hstats, &zero);
	return c && c->flows_live < dc_eth_flows_cap_entries;
}

/* A reps flow's state, empty: the buffer starts empty, so its first
 * packets explore (R3).  Its own frame: the value is 200-odd bytes. */
static __noinline int dc_eth_reps_init(const struct dc_flow_key *key)
{
	struct dc_eth_reps r;

	__builtin_memset(&r, 0, sizeof(r));
	return bpf_map_update_elem(&dc_eth_reps, key, &r, BPF_ANY);
}

/*
 * REPS' choice for one packet of a flow (rules R3–R5 of reps.h): an
 * entropy from the flow's buffer, or a fresh one; a packet with data
 * (has_data) is remembered with its end sequence for the ACK that covers
 * it.  Returns the uplink, 0..s−1.  A global function: verified once on
 * its own, so its branches do not multiply the egress program's paths
 * (the 6.1 verifier gave up otherwise).  The random number is drawn
 * before the lock (no helper calls under it); counting is after.
 */
__noinline int dc_eth_reps_pick(const struct dc_flow_key *key, __u32 s, __u32 buf_size,
				__u32 end_seq, __u32 has_data)
{
	__u32 rnd = bpf_get_prandom_u32(), ev, src = DC_REPS_EXPLORED, lost = 0;
	struct dc_flow_key k;
	struct dc_eth_reps *r;
	bool frozen;

	if (!key || !s)
		return 0;
	__builtin_memcpy(&k, key, sizeof(k));
	r = bpf_map_lookup_elem(&dc_eth_reps, &k);
	if (!r) {
		DC_COUNT(dc_eth_hstats, reps_no_state);
		DC_COUNT(dc_eth_hstats, reps_explored);
		return (int)(rnd % s);
	}
	frozen = dc_reps_frozen(r->freeze_until_ns, bpf_ktime_get_ns());
	bpf_spin_lock(&r->lock);
	r->buf.size = dc_reps_size(buf_size);
	ev = dc_reps_choose(&r->buf, rnd, s, frozen, &src);
	if (has_data)
		lost = dc_reps_sent(&r->ring, end_seq, ev);
	bpf_spin_unlock(&r->lock);
	if (src == DC_REPS_RECYCLED)
		DC_COUNT(dc_eth_hstats, reps_recycled);
	else if (src == DC_REPS_REUSED)
		DC_COUNT(dc_eth_hstats, reps_frozen);
	else
		DC_COUNT(dc_eth_hstats, reps_explored);
	if (lost)
		DC_COUNT(dc_eth_hstats, reps_forgot);
	return (int)ev;
}

/* An ACK of a reps flow up to ack, with ECE or not (rules R1, R2): the
 * remembered packets it covers leave the ring, their entropies recycled
 * or dropped.  Global for the same reason as dc_eth_reps_pick. */
__noinline int dc_eth_reps_ack(const struct dc_flow_key *key, __u32 ack, __u32 ece)
{
	struct dc_reps_ack_res res = {};
	struct dc_flow_key k;
	struct dc_eth_reps *r;

	if (!key)
		return 0;
	__builtin_memcpy(&k, key, sizeof(k));
	r = bpf_map_lookup_elem(&dc_eth_reps, &k);
	if (!r)
		return 0;
	bpf_spin_lock(&r->lock);
	dc_reps_acked(&r->ring, &r->buf, ack, ece != 0, &res);
	bpf_spin_unlock(&r->lock);
	if (res.saved)
		DC_COUNT_ADD(dc_eth_hstats, reps_saved, res.saved);
	if (res.marked)
		DC_COUNT_ADD(dc_eth_hstats, reps_marked, res.marked);
	return (int)res.acked;
}

/* First packet of a flow: pick its uplink, account, start its idle timer.
 * NULL (the packet goes untagged, to the leaf's ECMP) when the table is at
 * its cap or the insert failed. */
static __always_inline struct dc_eth_flow *dc_eth_new_flow(const struct dc_flow_key *key,
							    const struct dc_eth_hcfg *cfg,
							    __u32 leaf, __u64 now, __u32 mark)
{
	struct dc_eth_flow nf = {}, *f;
	struct dc_eth_hleaf *v;
	__u32 s = dc_eth_tag_uplinks(cfg->n_uplinks), u;

	v = bpf_map_lookup_elem(&dc_eth_view, &leaf);
	if (!v)
		return NULL;
	if (!dc_eth_flows_room()) {
		DC_COUNT(dc_eth_hstats, flows_over_cap);
		return NULL;
	}
	if (cfg->mode == DC_ETH_MODE_SPRAY || cfg->mode == DC_ETH_MODE_REPS) {
		u = bpf_get_prandom_u32() % s;
	} else {
		u = (__u32)dc_eth_choose(leaf, s, now, DC_ETH_NO_UPLINK) & (DC_ETH_MAX_UPLINKS - 1);
		nf.weight = dc_eth_weight(dc_eth_parts_of_mark(mark));
	}
	nf.path = dc_eth_tag(u);
	nf.leaf = leaf;
	nf.mode = cfg->mode;
	nf.first_ns = now;
	nf.last_seen_ns = now;
	if (bpf_map_update_elem(&dc_eth_flows, key, &nf, BPF_NOEXIST)) {
		/* another CPU started it first: use that one */
		f = bpf_map_lookup_elem(&dc_eth_flows, key);
		if (!f)
			DC_COUNT(dc_eth_hstats, flow_insert_fail);
		return f;
	}
	DC_COUNT(dc_eth_hstats, flows_live);
	if (cfg->mode == DC_ETH_MODE_REPS)
		dc_eth_reps_init(key);
	f = bpf_map_lookup_elem(&dc_eth_flows, key);
	if (!f)
		return NULL;
	if (nf.weight)
		dc_eth_arr_add(v->up.load, u, nf.weight);
	DC_COUNT(dc_eth_hstats, flows_new);
	if (!bpf_timer_init(&f->idle, &dc_eth_flows, DC_CLOCK_MONOTONIC)) {
		bpf_timer_set_callback(&f->idle, dc_eth_idle_cb);
		bpf_timer_start(&f->idle, dc_eth_idle_ns(cfg), 0);
	}
	return f;
}

/*
 * Put the tag on the packet: P of our option when one is there (INT
 * source ran first, or an echo), else the 4-byte tag-only option.  Any
 * other IP option: no room, sent untagged.  Only byte 3 of the option
 * changes in the first case (incremental header checksum).
 */
static __always_inline void dc_eth_put_tag(struct __sk_buff *skb, const struct dc_pkt *p,
					   __u32 tag)
{
	__u8 opt[DC_INT_BASE_LEN] = {};
	enum dc_int_verdict v;
	__u16 old_w, new_w;

	if (p->ihl_bytes == DC_IP_BASE_LEN) {
		opt[0] = DC_INT_OPT_TYPE;
		opt[1] = DC_INT_BASE_LEN;
		opt[2] = dc_int_b2(0);
		opt[3] = dc_int_b3(0, tag);
		if (dc_opt_write(skb, p, opt, DC_INT_BASE_LEN, DC_INT_BASE_LEN)) {
			DC_COUNT(dc_eth_hstats, tag_fail);
			return;
		}
		DC_COUNT(dc_eth_hstats, tag_added);
		DC_COUNT(dc_eth_hstats, pkts_tagged);
		return;
	}
	if (bpf_skb_load_bytes(skb, DC_IP_OPT_OFF, opt, sizeof(opt)))
		return;
	v = dc_int_check(opt, p->ihl_bytes - DC_IP_BASE_LEN);
	if (v != DC_INT_OK && v != DC_INT_TAG) {
		DC_COUNT(dc_eth_hstats, tag_no_room);
		return;
	}
	old_w = (__u16)((opt[2] << 8) | opt[3]);
	opt[3] = dc_int_b3(dc_int_hops(opt[3]), tag);
	new_w = (__u16)((opt[2] << 8) | opt[3]);
	if (old_w != new_w &&
	    (bpf_skb_store_bytes(skb, DC_IP_OPT_OFF + 3, &opt[3], 1, 0) ||
	     bpf_l3_csum_replace(skb, DC_IP_CSUM_OFF, bpf_htons(old_w), bpf_htons(new_w), 2))) {
		DC_COUNT(dc_eth_hstats, tag_fail);
		return;
	}
	DC_COUNT(dc_eth_hstats, tag_int);
	DC_COUNT(dc_eth_hstats, pkts_tagged);
}

/*
 * Host egress (tcx egress / clsact egress of the host's interface, after
 * the INT source when both run; either order gives the same packet):
 * runs for every packet the host sends.  TCP/IPv4 to a destination
 * prefix of a known leaf belongs to a flow; a flow's first packet (SYN,
 * or data) picks its uplink; every packet then carries the tag.  FIN or
 * RST releases the flow's weight; the entry stays (stragglers keep the
 * path) until idle.  Everything else passes untouched.
 */
SEC("tc")
int dc_eth_hout(struct __sk_buff *skb)
{
	struct dc_eth_dst_key dk = { .prefixlen = 32 };
	struct dc_eth_hcfg *cfg;
	struct dc_eth_dst *dst;
	struct dc_eth_flow *f;
	struct dc_flow_key key;
	struct dc_pkt p;
	__u64 now, k;
	__u32 s, tag;
	__u8 fl = 0;

	if (!dc_parse_tcp4(skb, &p))
		return DC_TC_NEXT;
	cfg = dc_eth_cfg();
	if (!cfg)
		return DC_TC_NEXT;
	if (cfg->mode != DC_ETH_MODE_ETHEREAL && cfg->mode != DC_ETH_MODE_SPRAY &&
	    cfg->mode != DC_ETH_MODE_REPS) {
		DC_COUNT(dc_eth_hstats, ecmp_pkts);
		return DC_TC_NEXT;
	}
	dk.addr = p.daddr;
	dst = bpf_map_lookup_elem(&dc_eth_dst, &dk);
	if (!dst || dst->leaf >= DC_ETH_MAX_LEAVES) {
		DC_COUNT(dc_eth_hstats, no_leaf);
		return DC_TC_NEXT;
	}
	DC_COUNT(dc_eth_hstats, pkts_seen);
	if (bpf_skb_load_bytes(skb, DC_ETH_HLEN + p.ihl_bytes + 13, &fl, 1))
		return DC_TC_NEXT;
	now = bpf_ktime_get_ns();
	dc_key_fwd(&p, &key);
	f = bpf_map_lookup_elem(&dc_eth_flows, &key);
	if (!f) {
		/* Only an opening SYN or data start a flow: the last ACK after
		 * our FIN, or a pure-ACK stream, must not open one. */
		if ((fl & (DC_TCP_FIN | DC_TCP_RST)) ||
		    !(p.payload || ((fl & DC_TCP_SYN) && !(fl & DC_TCP_ACK)))) {
			DC_COUNT(dc_eth_hstats, flows_untracked);
			return DC_TC_NEXT;
		}
		f = dc_eth_new_flow(&key, cfg, dst->leaf, now, skb->mark);
		if (!f)
			return DC_TC_NEXT;
	}
	k = f->packets;
	__sync_fetch_and_add(&f->packets, 1);
	__sync_fetch_and_add(&f->bytes, skb->len - DC_ETH_HLEN);
	f->last_seen_ns = now;
	tag = f->path;
	if (cfg->mode == DC_ETH_MODE_SPRAY) {
		s = dc_eth_tag_uplinks(cfg->n_uplinks);
		tag = dc_eth_tag(dc_eth_spray(dc_eth_uplink_of(tag) % s, k, s));
	} else if (cfg->mode == DC_ETH_MODE_REPS && f->mode == DC_ETH_MODE_REPS) {
		__u32 seq = 0;

		s = dc_eth_tag_uplinks(cfg->n_uplinks);
		if (p.payload && !bpf_skb_load_bytes(skb, DC_ETH_HLEN + p.ihl_bytes + 4, &seq, 4))
			seq = bpf_ntohl(seq);
		tag = dc_eth_tag((__u32)dc_eth_reps_pick(&key, s, cfg->reps_buf, seq + p.payload,
							 p.payload != 0) % s);
	}
	if (fl & (DC_TCP_FIN | DC_TCP_RST)) {
		if (dc_eth_flow_release(f))
			DC_COUNT(dc_eth_hstats, flows_fin);
	}
	if (tag)
		dc_eth_put_tag(skb, &p, tag);
	return DC_TC_NEXT;
}

/*
 * Host ingress (tcx ingress / clsact ingress of the host's interface):
 * runs for every packet the host receives; acts only in mode reps, on
 * ACKs of a flow this host sends (dc_eth_reps keyed by the reversed
 * 4-tuple).  The ACK covers the remembered packets up to its ack number:
 * their entropies are recycled, or dropped when the ACK carries ECE (rules
 * R1, R2 of include/dcbpf/reps.h).  The packet is never changed.
 */
SEC("tc")
int dc_eth_hin(struct __sk_buff *skb)
{
	struct dc_eth_hcfg *cfg;
	struct dc_flow_key key;
	struct dc_pkt p;
	__u8 th[6];	/* ack number, data offset, flags */
	__u32 ack;

	if (!dc_parse_tcp4(skb, &p))
		return DC_TC_NEXT;
	cfg = dc_eth_cfg();
	if (!cfg || cfg->mode != DC_ETH_MODE_REPS)
		return DC_TC_NEXT;
	if (bpf_skb_load_bytes(skb, DC_ETH_HLEN + p.ihl_bytes + 8, th, sizeof(th)) ||
	    !(th[5] & DC_TCP_ACK))
		return DC_TC_NEXT;
	dc_key_rev(&p, &key);
	ack = ((__u32)th[0] << 24) | ((__u32)th[1] << 16) | ((__u32)th[2] << 8) | th[3];
	dc_eth_reps_ack(&key, ack, th[5] & DC_TCP_ECE);
	return DC_TC_NEXT;
}

#define DC_TCP_FIN_WAIT1 4
#define DC_TCP_CLOSE 7
#define DC_TCP_CLOSE_WAIT 8

static __always_inline void dc_eth_sk_key(const struct bpf_sock_ops *skops, struct dc_flow_key *key)
{
	key->family = DC_AF_INET;
	key->saddr[0] = skops->local_ip4;
	key->daddr[0] = skops->remote_ip4;
	key->sport = (__u16)skops->local_port;
	key->dport = (__u16)bpf_ntohl(skops->remote_port);
}

/*
 * Socket events (sockops, attached to a cgroup; runs for the TCP sockets
 * of that cgroup, in any namespace — a host acts only on flows in its own
 * dc_eth_flows).  Asks for the RTO and state callbacks when a connection
 * opens.  A state change to FIN_WAIT1, CLOSE_WAIT or CLOSE releases the
 * flow's weight (the egress program only sees our own FIN or RST; a reset
 * from the peer closes the socket without either).  On RTO (before the
 * retransmission is sent) the flow moves to the least-loaded other uplink
 * that has not timed out recently, and the old one is avoided by new
 * flows for avoid_ms.
 */
SEC("sockops")
int dc_eth_sockops(struct bpf_sock_ops *skops)
{
	struct dc_eth_hcfg *cfg;
	struct dc_eth_hleaf *v;
	struct dc_eth_flow *f;
	struct dc_flow_key key = {};
	__u32 s, old_tag, old_u, nu, leaf;
	__u64 now, w;
	bool moved = false, open = false;

	if (skops->family != DC_AF_INET)
		return 1;
	switch (skops->op) {
	case BPF_SOCK_OPS_TCP_CONNECT_CB:
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags |
					  BPF_SOCK_OPS_RTO_CB_FLAG | BPF_SOCK_OPS_STATE_CB_FLAG);
		return 1;
	case BPF_SOCK_OPS_STATE_CB:
		if (skops->args[1] != DC_TCP_FIN_WAIT1 && skops->args[1] != DC_TCP_CLOSE_WAIT &&
		    skops->args[1] != DC_TCP_CLOSE)
			return 1;
		dc_eth_sk_key(skops, &key);
		f = bpf_map_lookup_elem(&dc_eth_flows, &key);
		if (f && dc_eth_flow_release(f))
			DC_COUNT(dc_eth_hstats, flows_fin);
		return 1;
	case BPF_SOCK_OPS_RTO_CB:
		break;
	default:
		return 1;
	}
	cfg = dc_eth_cfg();
	if (cfg && cfg->mode == DC_ETH_MODE_REPS && cfg->reps_freeze_ms) {
		struct dc_eth_reps *r;

		/* R5: the paths in the buffer delivered; stop exploring */
		dc_eth_sk_key(skops, &key);
		r = bpf_map_lookup_elem(&dc_eth_reps, &key);
		if (r) {
			r->freeze_until_ns = bpf_ktime_get_ns() +
					     (__u64)cfg->reps_freeze_ms * DC_NS_PER_MS;
			DC_COUNT(dc_eth_hstats, reps_freezes);
		}
		return 1;
	}
	if (!cfg || cfg->mode != DC_ETH_MODE_ETHEREAL)
		return 1;
	dc_eth_sk_key(skops, &key);
	f = bpf_map_lookup_elem(&dc_eth_flows, &key);
	if (!f)
		return 1;
	leaf = f->leaf;
	v = bpf_map_lookup_elem(&dc_eth_view, &leaf);
	if (!v)
		return 1;
	s = dc_eth_tag_uplinks(cfg->n_uplinks);
	now = bpf_ktime_get_ns();
	old_tag = f->path;
	old_u = dc_eth_uplink_of(old_tag);
	if (old_u >= DC_ETH_MAX_UPLINKS)
		return 1;
	nu = (__u32)dc_eth_choose(leaf, s, now, old_u) & (DC_ETH_MAX_UPLINKS - 1);
	{
		__u64 ps = f->ps;

		if (dc_eth_ps_path(ps) == old_tag && nu != old_u &&
		    __sync_val_compare_and_swap(&f->ps, ps,
						dc_eth_ps(dc_eth_tag(nu), dc_eth_ps_state(ps))) == ps) {
			moved = true;
			open = dc_eth_ps_state(ps) == DC_ETH_OPEN;
			__sync_fetch_and_add(&f->repaths, 1);
		}
	}
	w = f->weight;
	dc_eth_arr_set(v->avoid_until_ns, old_u, now + (__u64)cfg->avoid_ms * DC_NS_PER_MS);
	dc_eth_arr_add(v->timeouts, old_u, 1);
	if (!moved)
		return 1;
	if (open && w) {
		dc_eth_arr_add(v->up.load, nu, w);
		dc_eth_arr_add(v->up.load, old_u, -w);
	}
	DC_COUNT(dc_eth_hstats, repath_rto);
	return 1;
}
