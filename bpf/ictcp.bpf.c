// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ICTCP: the aggregator's receive window per connection from its measured
 * inbound rate (Wu et al., "ICTCP: Incast Congestion Control for TCP in
 * Data Center Networks", CoNEXT'10, §4; the law: include/dcbpf/ictcp.h).
 *
 * Attached: sockops on the aggregator's cgroup v2 directory; runs for every
 * TCP socket of its processes.  A connection starts with a window clamp of
 * init_mss segments (set before the SYN / on the listener, so the first
 * window offered is already small).  Then on every segment in
 * (PARSE_HDR_OPT with the parse-all flag) and out (HDR_OPT_LEN, i.e. before
 * each ACK the receiver sends) it counts the bytes received into the host's
 * slot and, every 2 RTTs, decides +mss / -mss / keep; the window is set
 * with bpf_setsockopt(TCP_WINDOW_CLAMP).  C = 0 in dc_ictcp_cfg: the
 * program touches no socket.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "dcbpf/ictcp.h"
#include "dcbpf/flow.h"
#include "maps/ictcp.h"
#include "lib/count.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define SOL_TCP_ 6
#define TCP_WINDOW_CLAMP_ 10

static __always_inline struct dc_ictcp_flow *flow_of(const struct bpf_sock_ops *skops)
{
	struct dc_flow_key key = {};
	struct dc_ictcp_flow zero = {}, *f;

	key.family = DC_AF_INET;
	key.saddr[0] = skops->local_ip4;
	key.daddr[0] = skops->remote_ip4;
	key.sport = (__u16)skops->local_port;
	key.dport = (__u16)bpf_ntohl(skops->remote_port);
	f = bpf_map_lookup_elem(&dc_ictcp_flows, &key);
	if (f)
		return f;
	bpf_map_update_elem(&dc_ictcp_flows, &key, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&dc_ictcp_flows, &key);
}

static __always_inline int set_clamp(struct bpf_sock_ops *skops, __u32 bytes)
{
	int v = (int)bytes;

	if (bpf_setsockopt(skops, SOL_TCP_, TCP_WINDOW_CLAMP_, &v, sizeof(v))) {
		DC_COUNT(dc_ictcp_stats, clamp_err);
		return -1;
	}
	DC_COUNT(dc_ictcp_stats, clamps_set);
	return 0;
}

static __always_inline struct dc_ictcp_cfg *cfg_on(void)
{
	__u32 zero = 0;
	struct dc_ictcp_cfg *c = bpf_map_lookup_elem(&dc_ictcp_cfg, &zero);

	return c && c->link_kbps ? c : NULL;
}

/* A segment in or out: the slot, and every 2 RTTs the window. */
static __always_inline void tick(struct bpf_sock_ops *skops)
{
	struct dc_ictcp_cfg *c = cfg_on();
	struct dc_ictcp_slot_v *sv;
	struct dc_ictcp_conn *k;
	struct dc_ictcp_flow *f;
	struct bpf_sock *sk = skops->sk;
	__u64 now, rtt_ns, rcvd, delta, slots;
	__u32 mss = skops->mss_cache, zero = 0;
	int act = -1;

	if (!c || !sk)
		return;
	k = bpf_sk_storage_get(&dc_ictcp_sk, sk, NULL, 0);
	sv = bpf_map_lookup_elem(&dc_ictcp_slot, &zero);
	if (!k || !sv || !mss) {
		DC_COUNT(dc_ictcp_stats, no_storage);
		return;
	}
	now = bpf_ktime_get_ns();
	rtt_ns = (__u64)(skops->srtt_us >> 3) * DC_NSEC_PER_USEC;
	rcvd = skops->bytes_received;
	bpf_spin_lock(&sv->lock);
	delta = rcvd - k->seen_bytes;
	k->seen_bytes = rcvd;
	slots = sv->s.slots;
	dc_ictcp_slot_advance(&sv->s, c, now, delta);
	slots = sv->s.slots - slots;
	if (dc_ictcp_period_due(k, now, rtt_ns)) {
		dc_ictcp_slot_rtt(&sv->s, rtt_ns);
		act = dc_ictcp_period(k, &sv->s, c, now, rcvd, rtt_ns, mss);
	}
	bpf_spin_unlock(&sv->lock);
	if (slots)
		DC_COUNT(dc_ictcp_stats, slots);
	if (act < 0)
		return;
	DC_COUNT(dc_ictcp_stats, periods);
	switch (act) {
	case DC_ICTCP_INC:
		DC_COUNT(dc_ictcp_stats, increases);
		break;
	case DC_ICTCP_INC_NOQUOTA:
		DC_COUNT(dc_ictcp_stats, inc_no_quota);
		break;
	case DC_ICTCP_DEC:
		DC_COUNT(dc_ictcp_stats, decreases);
		break;
	case DC_ICTCP_DEC_FLOOR:
		DC_COUNT(dc_ictcp_stats, at_floor);
		break;
	}
	/* set every period, not only on a change: the receive-buffer
	 * autotuning raises window_clamp when it grows the buffer */
	set_clamp(skops, k->rwnd_bytes);
	f = flow_of(skops);
	if (f) {
		f->bm_Bps = k->bm_Bps;
		f->be_Bps = k->be_Bps;
		f->bytes_rcvd = rcvd;
		f->rwnd_bytes = k->rwnd_bytes;
		if (k->rwnd_bytes > f->rwnd_max_bytes)
			f->rwnd_max_bytes = k->rwnd_bytes;
		f->d_q16 = k->d_q16;
		f->last_act = act;
		f->rtt_us = (__u32)(rtt_ns / DC_NSEC_PER_USEC);
		f->mss_bytes = mss;
		if (act == DC_ICTCP_INC)
			f->incs++;
		else if (act == DC_ICTCP_DEC)
			f->decs++;
	}
}

/* A new connection: its storage, the first window, the callbacks. */
static __always_inline void start(struct bpf_sock_ops *skops, struct dc_ictcp_cfg *c)
{
	struct dc_ictcp_conn *k;
	struct bpf_sock *sk = skops->sk;
	__u32 mss = skops->mss_cache;

	if (!sk)
		return;
	k = bpf_sk_storage_get(&dc_ictcp_sk, sk, NULL, BPF_SK_STORAGE_GET_F_CREATE);
	if (!k) {
		DC_COUNT(dc_ictcp_stats, no_storage);
		return;
	}
	k->rwnd_bytes = (c->init_mss ? c->init_mss : DC_ICTCP_INIT_MSS) * mss;
	k->period_ns = bpf_ktime_get_ns();
	k->period_bytes = skops->bytes_received;
	k->seen_bytes = skops->bytes_received;
	set_clamp(skops, k->rwnd_bytes);
	bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags |
				  BPF_SOCK_OPS_PARSE_ALL_HDR_OPT_CB_FLAG |
				  BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG);
}

SEC("sockops")
int dc_ictcp_sockops(struct bpf_sock_ops *skops)
{
	struct dc_ictcp_cfg *c;

	if (skops->family != DC_AF_INET)
		return 1;
	switch (skops->op) {
	case BPF_SOCK_OPS_TCP_LISTEN_CB:
	case BPF_SOCK_OPS_TCP_CONNECT_CB: {
		/* before the SYN / SYN-ACK: the first window offered is small
		 * (a listener's clamp is its children's at the SYN-ACK) */
		__u32 mss = skops->mss_cache;

		c = cfg_on();
		if (c && mss)
			set_clamp(skops, (c->init_mss ? c->init_mss : DC_ICTCP_INIT_MSS) * mss);
		return 1;
	}
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		c = cfg_on();
		if (c)
			start(skops, c);
		return 1;
	case BPF_SOCK_OPS_PARSE_HDR_OPT_CB:
		DC_COUNT(dc_ictcp_stats, ticks_rx);
		tick(skops);
		return 1;
	case BPF_SOCK_OPS_HDR_OPT_LEN_CB:
		DC_COUNT(dc_ictcp_stats, ticks_tx);
		tick(skops);
		return 1;
	}
	return 1;
}
