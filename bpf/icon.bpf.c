// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ICON: the sink's incast degree n in a TCP option, senders pacing their
 * window over RTT * n (Rezaei, PhD thesis 2021, §3.2, Eq. 3.1; core and
 * option format: include/dcbpf/icon.h).
 *
 * Attached: sockops on a cgroup v2 directory; runs for every TCP socket
 * of the processes in it (any namespace), in both roles:
 *  - sink: a socket whose local (address, port) has an n in dc_icon_cfg
 *    writes the option in its SYN or SYN-ACK, and again on the following
 *    segments whenever the configured n differs from the one it last
 *    advertised, until a segment carrying the update is acknowledged;
 *  - sender: every socket reads the option from the SYN-ACK (active
 *    open), the saved SYN (passive open) and any later segment, keeps n
 *    per socket (dc_icon_sk), and on every RTT sample caps its pacing rate
 *    at cwnd * mss / (srtt * n) with SO_MAX_PACING_RATE, which also turns
 *    on TCP's internal pacing (no fq qdisc needed).  No option: n = 1
 *    (IA-ICON).  A malformed option is counted and ignored.
 * Works under any congestion control: it only caps the pacing rate.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "dcbpf/icon.h"
#include "dcbpf/flow.h"
#include "maps/icon.h"
#include "lib/count.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define SOL_SOCKET_ 1
#define SO_MAX_PACING_RATE_ 47
#define ENOMSG_ 42
#define TCP_FLAG_SYN_ 0x02
#define SOL_TCP_ 6
#define TCP_SAVE_SYN_ 27

static __always_inline void sk_key(const struct bpf_sock_ops *skops, struct dc_flow_key *key)
{
	key->family = DC_AF_INET;
	key->saddr[0] = skops->local_ip4;
	key->daddr[0] = skops->remote_ip4;
	key->sport = (__u16)skops->local_port;
	key->dport = (__u16)bpf_ntohl(skops->remote_port);
}

/* The flow's mirror entry, created on first use (LRU: old flows go). */
static __always_inline struct dc_icon_flow *flow_of(const struct bpf_sock_ops *skops)
{
	struct dc_flow_key key = {};
	struct dc_icon_flow zero = {}, *f;

	sk_key(skops, &key);
	f = bpf_map_lookup_elem(&dc_icon_flows, &key);
	if (f)
		return f;
	bpf_map_update_elem(&dc_icon_flows, &key, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&dc_icon_flows, &key);
}

/* n this socket advertises: (addr, port), (addr, 0), (0, port), (0, 0);
 * 0: none.  *flags: the entry's DC_ICON_CFG_F_*. */
static __always_inline __u32 cfg_get(const struct bpf_sock_ops *skops, __u32 *flags)
{
	struct dc_icon_cfg_key k = { .addr = skops->local_ip4, .port = (__u16)skops->local_port };
	struct dc_icon_cfg *c;

	c = bpf_map_lookup_elem(&dc_icon_cfg, &k);
	if (!c) {
		k.port = 0;
		c = bpf_map_lookup_elem(&dc_icon_cfg, &k);
	}
	if (!c) {
		k.addr = 0;
		k.port = (__u16)skops->local_port;
		c = bpf_map_lookup_elem(&dc_icon_cfg, &k);
	}
	if (!c) {
		k.port = 0;
		c = bpf_map_lookup_elem(&dc_icon_cfg, &k);
	}
	*flags = 0;
	if (!c || c->n > DC_ICON_N_MAX)
		return 0;
	*flags = c->flags;
	return c->n;
}

static __always_inline __u32 cfg_n(const struct bpf_sock_ops *skops)
{
	__u32 flags;

	return cfg_get(skops, &flags);
}

static __always_inline struct dc_icon_sk *sk_state(struct bpf_sock_ops *skops)
{
	struct bpf_sock *sk = skops->sk;

	if (!sk)
		return NULL;
	return bpf_sk_storage_get(&dc_icon_sk, sk, NULL, BPF_SK_STORAGE_GET_F_CREATE);
}

/* Read our option from the segment the callback is about (or the saved
 * SYN with BPF_LOAD_HDR_OPT_TCP_SYN) and keep n. */
static __always_inline void parse(struct bpf_sock_ops *skops, __u64 load_flags)
{
	__u8 buf[DC_ICON_OPT_LEN] = { DC_ICON_OPT_KIND, 4, DC_ICON_EXID >> 8, DC_ICON_EXID & 0xff };
	struct dc_icon_flow *f;
	struct dc_icon_sk *s;
	__u8 flags = 0;
	int len, n;

	/* search by kind 254 and the 2-byte ExID (search length 4) */
	len = bpf_load_hdr_opt(skops, buf, sizeof(buf), load_flags);
	if (len == -ENOMSG_)
		return;			/* not ours, or no option at all */
	n = len < 0 ? -DC_ICON_BAD_SHORT : dc_icon_opt_parse(buf, len, &flags);
	f = flow_of(skops);
	if (n <= 0) {
		DC_COUNT(dc_icon_stats, opt_bad);
		if (f)
			__sync_fetch_and_add(&f->opts_bad, 1);
		return;
	}
	s = sk_state(skops);
	if (!s)
		return;
	if (s->n_peer && s->n_peer != (__u32)n)
		DC_COUNT(dc_icon_stats, n_changed);
	s->n_peer = n;
	DC_COUNT(dc_icon_stats, opt_parsed);
	if (f) {
		f->n_peer = n;
		__sync_fetch_and_add(&f->opts_rx, 1);
	}
}

/* Eq. 3.1 on an RTT sample: cap the pacing rate. */
static __always_inline void pace(struct bpf_sock_ops *skops)
{
	struct dc_icon_sk *s = sk_state(skops);
	struct dc_icon_flow *f;
	__u64 window, rate;
	__u32 n = dc_icon_n_eff(s ? s->n_peer : 0), rate32;

	window = (__u64)skops->snd_cwnd * skops->mss_cache;
	rate = dc_icon_rate_Bps(window, skops->srtt_us, n);
	if (!rate)
		return;
	/* SO_MAX_PACING_RATE takes an int; ~0U means "no cap" */
	rate32 = rate >= DC_U32_MAX ? DC_U32_MAX - 1 : (__u32)rate;
	if (bpf_setsockopt(skops, SOL_SOCKET_, SO_MAX_PACING_RATE_, &rate32, sizeof(rate32))) {
		DC_COUNT(dc_icon_stats, rate_err);
		return;
	}
	DC_COUNT(dc_icon_stats, rate_set);
	f = flow_of(skops);
	if (f) {
		f->rate_Bps = rate32;
		f->srtt_us8 = skops->srtt_us;
		f->cwnd_pkts = skops->snd_cwnd;
		f->mss_bytes = skops->mss_cache;
	}
}

/* 1: this segment carries the option (SYN/SYN-ACK of a sink, or a pending update). */
static __always_inline bool want_opt(struct bpf_sock_ops *skops, __u32 *n_out, bool *update,
				     __u32 *cflags)
{
	__u8 tflags = skops->skb_tcp_flags;
	struct dc_icon_sk *s;
	__u32 n = cfg_get(skops, cflags);

	*update = false;
	*n_out = n;
	if (tflags & TCP_FLAG_SYN_) /* SYN or SYN-ACK: the handshake carries n */
		return n != 0;
	if (!n)
		return false;
	s = sk_state(skops);
	if (!s)
		return false;
	if (s->n_sent != n)
		return *update = true;
	/* keep re-sending until a segment that carried it is acknowledged */
	if (s->upd_pending) {
		if ((__s32)(skops->snd_una - s->upd_seq) > 0) {
			s->upd_pending = 0;
			return false;
		}
		return *update = true;
	}
	return false;
}

SEC("sockops")
int dc_icon_sockops(struct bpf_sock_ops *skops)
{
	__u32 cb = BPF_SOCK_OPS_PARSE_UNKNOWN_HDR_OPT_CB_FLAG | BPF_SOCK_OPS_RTT_CB_FLAG;
	__u8 opt[DC_ICON_OPT_LEN];
	struct dc_icon_sk *s;
	bool update;
	__u32 n, cflags;

	if (skops->family != DC_AF_INET)
		return 1;
	switch (skops->op) {
	case BPF_SOCK_OPS_TCP_LISTEN_CB:
		/* a listener: the SYN is saved for PASSIVE_ESTABLISHED (a parse
		 * flag does that), and each SYN-ACK asks dc_icon_cfg with the
		 * address it answers on (the listener may be bound to 0.0.0.0) */
		bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags | cb |
					  BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG);
		/* the child reads the SYN's option at PASSIVE_ESTABLISHED only
		 * if the listener saved it (freed with the socket) */
		{
			int one = 1;

			bpf_setsockopt(skops, SOL_TCP_, TCP_SAVE_SYN_, &one, sizeof(one));
		}
		return 1;
	case BPF_SOCK_OPS_TCP_CONNECT_CB:
		/* active open: a configured sink writes its SYN */
		if (cfg_n(skops))
			cb |= BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG;
		bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags | cb);
		return 1;
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
		/* skb: the SYN-ACK */
		parse(skops, 0);
		goto established;
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		parse(skops, BPF_LOAD_HDR_OPT_TCP_SYN);
established:
		/* a sink keeps writing (updates); everyone keeps parsing and pacing */
		if (cfg_n(skops))
			cb |= BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG;
		s = sk_state(skops);
		n = cfg_n(skops);
		if (s && !s->n_sent && n) {
			struct dc_icon_flow *f = flow_of(skops);

			s->n_sent = n;		/* what the handshake carried */
			if (f)
				f->n_sent = n;
		}
		bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags | cb);
		return 1;
	case BPF_SOCK_OPS_PARSE_HDR_OPT_CB:
		parse(skops, 0);
		return 1;
	case BPF_SOCK_OPS_RTT_CB:
		pace(skops);
		return 1;
	case BPF_SOCK_OPS_HDR_OPT_LEN_CB:
		if (want_opt(skops, &n, &update, &cflags) && bpf_reserve_hdr_opt(skops, DC_ICON_OPT_LEN, 0))
			DC_COUNT(dc_icon_stats, reserve_err);
		return 1;
	case BPF_SOCK_OPS_WRITE_HDR_OPT_CB:
		if (!want_opt(skops, &n, &update, &cflags))
			return 1;
		dc_icon_opt_write(opt, (__u16)n, update ? DC_ICON_F_UPDATE : 0);
		if (cflags & DC_ICON_CFG_F_BAD_VERSION)
			opt[4] = 0;
		if (bpf_store_hdr_opt(skops, opt, sizeof(opt), 0))
			return 1;
		DC_COUNT(dc_icon_stats, opt_written);
		if (update) {
			s = sk_state(skops);
			if (s) {
				if (s->n_sent != n) {
					s->n_sent = n;
					s->upd_seq = skops->snd_nxt;
					s->upd_pending = 1;
				}
			}
			DC_COUNT(dc_icon_stats, opt_updates);
		}
		{
			struct dc_icon_flow *f = (skops->skb_tcp_flags & TCP_FLAG_SYN_) ? NULL : flow_of(skops);

			if (f)
				f->n_sent = n;
		}
		return 1;
	}
	return 1;
}
