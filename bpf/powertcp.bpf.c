// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * PowerTCP and θ-PowerTCP as TCP congestion controls.
 *
 * Attached: struct_ops tcp_congestion_ops "powertcp" (dc_powertcp) and
 * "theta_powertcp" (dc_theta_ptcp), registered by dcbpfd.
 * Runs: in the TCP stack of each socket that selects them (setsockopt
 * TCP_CONGESTION or a netns default) — init when the connection starts,
 * cong_control on every ACK, cwnd_event when a send starts with nothing in
 * flight (restart after idle), release when the socket goes away.
 *
 * Thin by design: gather the ACK's inputs, call the control law in
 * include/dcbpf/powertcp.h, write cwnd and pacing rate, mirror the state
 * for users.  Built twice: DC_CC_ABI_V61 selects the 6.1 cong_control
 * signature (sk, rs); otherwise (sk, ack, flag, rs) as since 6.10.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_endian.h>

#include "dcbpf/powertcp.h"
#include "dcbpf/flow.h"
#include "maps/cc.h"
#include "lib/count.h"
#include "lib/ccsock.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Used when dc_cc_cfg has no entry yet; dcbpfd always writes both. */
static const struct dc_cc_cfg dc_cfg_default = {
	.gamma_q16 = DC_DEFAULT_GAMMA_Q16,
	.host_bw_mbps = DC_DEFAULT_HOST_BW_MBPS,
	.expected_flows = DC_DEFAULT_EXPECTED_FLOWS,
	.int_stale_us = DC_DEFAULT_INT_STALE_US,
	.min_cwnd_pkts = DC_DEFAULT_MIN_CWND_PKTS,
	.pacing = DC_DEFAULT_PACING,
};

_Static_assert(sizeof(struct dc_ptcp_state) <= sizeof(((struct inet_connection_sock *)0)->icsk_ca_priv),
	       "PowerTCP state must fit the CC private area");

static __always_inline struct dc_ptcp_state *dc_state(struct sock *sk)
{
	return dc_ca_priv(sk);
}

/*
 * The send unit: the largest GSO packet this socket builds, whole
 * segments (tcp_tso_autosize), at least one MSS; GSO off: one MSS.
 */
static __always_inline __u32 dc_unit_bytes(struct sock *sk, __u32 mss)
{
	__u32 gso = sk->sk_gso_max_size, segs = sk->sk_gso_max_segs, n;

	if (!gso || segs <= 1 || gso < mss)
		return mss;
	n = gso / mss;
	if (n > segs)
		n = segs;
	return n * mss;
}

/* The path's base RTT learned across flows (dc_base_rtt), after folding
 * in this flow's sample (0: none); 0 when there is no estimate. */
static __always_inline __u32 dc_path_base_rtt(const struct dc_flow_key *key, __u32 sample_us,
					      __u32 now_ms)
{
	struct dc_flow_key pk = *key;
	struct dc_base_rtt *e, b;

	if (sample_us == DC_U32_MAX)
		sample_us = 0;
	pk.sport = 0;
	pk.dport = 0;
	e = bpf_map_lookup_elem(&dc_base_rtt, &pk);
	if (!e) {
		if (!sample_us)
			return 0;
		dc_base_rtt_init(&b, sample_us, now_ms);
		bpf_map_update_elem(&dc_base_rtt, &pk, &b, BPF_NOEXIST);
		return sample_us;
	}
	b = *e;
	/* Flows of one path on other CPUs race here; a lost sample only
	 * delays the estimate by one sample. */
	if (dc_base_rtt_add(&b, sample_us, now_ms))
		*e = b;
	return dc_base_rtt_get(&b, now_ms);
}

/* Base RTT for τ: the path's, else the flow's own min RTT; not looked up
 * when τ is configured. */
static __always_inline __u32 dc_base_rtt_us(struct sock *sk, const struct dc_cc_cfg *cfg,
					    const struct dc_flow_key *key, __u32 sample_us,
					    __u64 now_ns)
{
	__u32 b, own = dc_tcp_sk(sk)->rtt_min.s[0].v;

	if (cfg->base_rtt_us)
		return own;
	b = dc_path_base_rtt(key, sample_us, (__u32)(now_ns / DC_NSEC_PER_MSEC));
	return b ? b : own;
}

/* Write the law's window and rate to the socket. */
static __always_inline void dc_apply(struct sock *sk, const struct dc_ptcp_state *st,
				     const struct dc_cc_cfg *cfg, __u32 mss)
{
	struct tcp_sock *tp = dc_tcp_sk(sk);
	__u32 pkts = (st->cwnd_bytes + mss - 1) / mss;

	if (pkts < cfg->min_cwnd_pkts)
		pkts = cfg->min_cwnd_pkts;
	if (pkts > tp->snd_cwnd_clamp)
		pkts = tp->snd_cwnd_clamp;
	tp->snd_cwnd = pkts;
	if (cfg->pacing) {
		__u64 rate = dc_ptcp_pacing_Bps(st->cwnd_bytes, st->tau_us);

		sk->sk_pacing_rate = rate < sk->sk_max_pacing_rate ? rate : sk->sk_max_pacing_rate;
	}
}

/* Mirror the state users care about into dc_cc_flows. */
static __always_inline void dc_mirror(struct sock *sk, const struct dc_flow_key *key,
				      const struct dc_ptcp_state *st, const struct dc_cc_cfg *cfg,
				      __u32 cc, __u32 rtt_us, __u32 unit_bytes, bool updated,
				      struct dc_cc_counters *stats)
{
	struct dc_cc_flow *f = dc_cc_flow_get(key, cc, stats);

	if (!f)
		return;
	/* Socket callbacks are serialised by the socket lock: plain stores. */
	f->mode = st->mode;
	f->cwnd_bytes = st->cwnd_bytes;
	f->snd_cwnd_pkts = dc_tcp_sk(sk)->snd_cwnd;
	f->pacing_rate_Bps = sk->sk_pacing_rate;
	f->norm_power_q16 = st->power_q16;
	if (rtt_us)
		f->rtt_us = rtt_us;
	f->tau_us = st->tau_us;
	f->beta_bytes = dc_ptcp_beta_unit_bytes(cfg, st->tau_us, unit_bytes);
	f->bottleneck_hop = st->bottleneck_hop;
	f->acks++;
	if (updated)
		f->cwnd_updates++;
	if (st->mode == DC_MODE_INT)
		f->int_acks++;
	else
		f->theta_acks++;
}

/* Stream this ACK's decision while `dcbpf trace` runs. */
static __always_inline void dc_trace(struct sock *sk, const struct dc_flow_key *key,
				     const struct dc_ptcp_state *st, __u32 cc, __u32 rtt_us,
				     bool updated, __u32 nhops)
{
	__u32 zero = 0, *on = bpf_map_lookup_elem(&dc_cc_tron, &zero);
	struct dc_cc_event *e;

	if (!on || !dc_trace_live(*on, bpf_ktime_get_ns()))
		return;
	e = bpf_ringbuf_reserve(&dc_cc_trace, sizeof(*e), 0);
	if (!e)
		return;
	e->ts_ns = bpf_ktime_get_ns();
	e->key = *key;
	e->cc = cc;
	e->mode = st->mode;
	e->cwnd_bytes = st->cwnd_bytes;
	e->snd_cwnd_pkts = dc_tcp_sk(sk)->snd_cwnd;
	e->pacing_rate_Bps = sk->sk_pacing_rate;
	e->norm_power_q16 = st->power_q16;
	e->rtt_us = rtt_us;
	e->tau_us = st->tau_us;
	e->bottleneck_hop = st->bottleneck_hop;
	e->updated = updated;
	e->nhops = nhops;
	bpf_ringbuf_submit(e, 0);
}

static __always_inline void dc_cc_init(struct sock *sk, __u32 cc)
{
	struct tcp_sock *tp = dc_tcp_sk(sk);
	struct dc_ptcp_state *st = dc_state(sk);
	struct dc_cc_counters *stats = bpf_map_lookup_elem(&dc_cc_stats, &cc);
	__u32 mss = tp->mss_cache ? tp->mss_cache : 1;
	struct dc_flow_key key;
	struct dc_cc_cfg cfg;
	__u32 base;

	dc_cc_load_cfg(cc, &cfg, &dc_cfg_default);
	dc_sk_flow_key(sk, &key);
	/* An active open has the handshake's RTT by now. */
	base = dc_base_rtt_us(sk, &cfg, &key, tp->rtt_min.s[0].v, bpf_ktime_get_ns());
	dc_ptcp_state_init_path(st, &cfg, cc, tp->snd_nxt, base, dc_unit_bytes(sk, mss),
				cfg.min_cwnd_pkts * mss);
	st->sport = sk->__sk_common.skc_num;
	if (cfg.pacing) {
		/* The kernel paces internally only when asked to (no fq here). */
		sk->sk_pacing_status = SK_PACING_NEEDED;
	}
	dc_apply(sk, st, &cfg, mss);
	DC_CTR_ADD(dc_cc_stats, stats, flows_init, 1);
}

static __always_inline void dc_cc_on_ack(struct sock *sk, const struct rate_sample *rs,
					 __u32 cc)
{
	struct tcp_sock *tp = dc_tcp_sk(sk);
	struct dc_ptcp_state *st = dc_state(sk);
	struct dc_cc_counters *stats = bpf_map_lookup_elem(&dc_cc_stats, &cc);
	__u32 mss = tp->mss_cache ? tp->mss_cache : 1;
	struct dc_int_stack *stack = NULL;
	struct dc_ptcp_ack a = {};
	struct dc_flow_key key;
	struct dc_cc_cfg cfg;
	bool updated;
	__u32 nhops = 0;
	long rtt = rs->rtt_us;

	dc_cc_load_cfg(cc, &cfg, &dc_cfg_default);
	a.ack_seq = tp->snd_una;
	a.snd_nxt = tp->snd_nxt;
	a.rtt_us = rtt > 0 ? (__u32)rtt : 0;
	a.now_us = tp->tcp_mstamp;
	a.unit_bytes = dc_unit_bytes(sk, mss);
	a.min_cwnd_bytes = cfg.min_cwnd_pkts * mss;
	a.max_cwnd_bytes = dc_ptcp_max_cwnd_bytes(st->cwnd_bytes, tp->max_packets_out, mss,
						 tp->snd_cwnd_clamp);
	DC_CTR_ADD(dc_cc_stats, stats, acks, 1);
	if (!a.rtt_us)
		DC_CTR_ADD(dc_cc_stats, stats, rtt_missing, 1);

	dc_sk_flow_key(sk, &key);
	a.min_rtt_us = dc_base_rtt_us(sk, &cfg, &key, a.rtt_us, a.now_us * DC_NSEC_PER_USEC);
	if (cc == DC_CC_POWERTCP)
		stack = bpf_map_lookup_elem(&dc_int_flows, &key);
	__u64 age_ns = stack ? bpf_ktime_get_ns() - stack->updated_ns : 0;

	if (stack && age_ns <= (__u64)cfg.int_stale_us * DC_NSEC_PER_USEC) {
		DC_CTR_ADD(dc_cc_stats, stats, int_acks, 1);
		DC_CTR_ADD(dc_cc_stats, stats, int_age_us, age_ns / DC_NSEC_PER_USEC);
		updated = dc_powertcp_on_ack(st, &cfg, &a, stack);
		nhops = stack->nhops;
	} else {
		if (stack)
			DC_CTR_ADD(dc_cc_stats, stats, int_stale, 1);
		if (cc == DC_CC_POWERTCP)
			DC_CTR_ADD(dc_cc_stats, stats, theta_fallback, 1);
		updated = dc_theta_on_ack(st, &cfg, &a);
	}
	if (updated)
		DC_CTR_ADD(dc_cc_stats, stats, cwnd_updates, 1);
	dc_apply(sk, st, &cfg, mss);
	dc_mirror(sk, &key, st, &cfg, cc, a.rtt_us, a.unit_bytes, updated, stats);
	dc_trace(sk, &key, st, cc, a.rtt_us, updated, nhops);
}

static __always_inline void dc_cc_release(struct sock *sk, __u32 cc)
{
	struct dc_cc_counters *stats = bpf_map_lookup_elem(&dc_cc_stats, &cc);
	struct dc_flow_key key;

	dc_sk_flow_key(sk, &key);
	key.sport = dc_state(sk)->sport;
	bpf_map_delete_elem(&dc_cc_flows, &key);
	bpf_map_delete_elem(&dc_int_flows, &key);
	DC_CTR_ADD(dc_cc_stats, stats, flows_released, 1);
}

/* cwnd_event: on the first send with nothing in flight (TX_START), a flow
 * idle for more than an RTO starts over (dc_ptcp_state_restart). The
 * kernel raises TX_START before it stamps lsndtime with this send. */
static __always_inline void dc_cc_event(struct sock *sk, enum tcp_ca_event ev, __u32 cc)
{
	struct tcp_sock *tp = dc_tcp_sk(sk);
	struct dc_ptcp_state *st = dc_state(sk);
	struct dc_cc_counters *stats;
	__u32 mss = tp->mss_cache ? tp->mss_cache : 1;
	struct dc_flow_key key;
	struct dc_cc_cfg cfg;

	if (ev != CA_EVENT_TX_START ||
	    !dc_ptcp_idle_restart((__u32)bpf_jiffies64() - tp->lsndtime, tp->inet_conn.icsk_rto))
		return;
	dc_cc_load_cfg(cc, &cfg, &dc_cfg_default);
	dc_sk_flow_key(sk, &key);
	dc_ptcp_state_restart(st, &cfg, tp->snd_nxt,
			      dc_base_rtt_us(sk, &cfg, &key, 0, bpf_ktime_get_ns()),
			      dc_unit_bytes(sk, mss), cfg.min_cwnd_pkts * mss);
	dc_apply(sk, st, &cfg, mss);
	stats = bpf_map_lookup_elem(&dc_cc_stats, &cc);
	DC_CTR_ADD(dc_cc_stats, stats, idle_restarts, 1);
}

/* ssthresh: only consulted for undo bookkeeping; the window is ours. */
static __always_inline __u32 dc_cc_ssthresh(struct sock *sk)
{
	__u32 half = dc_tcp_sk(sk)->snd_cwnd >> 1;

	return half > 2 ? half : 2;
}

#ifdef DC_CC_ABI_V61
#define DC_CTL_ARGS struct sock *sk, const struct rate_sample *rs
#else
#define DC_CTL_ARGS struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs
#endif

/* One set of entry points per CC: each knows its config/counter key. */
#define DC_CC_PROGS(pfx, cc_id)                                              \
	SEC("struct_ops/" #pfx "_init")                                      \
	void BPF_PROG(pfx##_init, struct sock *sk)                           \
	{                                                                    \
		dc_cc_init(sk, cc_id);                                       \
	}                                                                    \
	SEC("struct_ops/" #pfx "_ctl")                                       \
	void BPF_PROG(pfx##_ctl, DC_CTL_ARGS)                                \
	{                                                                    \
		dc_cc_on_ack(sk, rs, cc_id);                                 \
	}                                                                    \
	SEC("struct_ops/" #pfx "_rel")                                       \
	void BPF_PROG(pfx##_rel, struct sock *sk)                            \
	{                                                                    \
		dc_cc_release(sk, cc_id);                                    \
	}                                                                    \
	SEC("struct_ops/" #pfx "_evt")                                       \
	void BPF_PROG(pfx##_evt, struct sock *sk, enum tcp_ca_event ev)      \
	{                                                                    \
		dc_cc_event(sk, ev, cc_id);                                  \
	}                                                                    \
	SEC("struct_ops/" #pfx "_ssth")                                      \
	__u32 BPF_PROG(pfx##_ssth, struct sock *sk)                          \
	{                                                                    \
		return dc_cc_ssthresh(sk);                                   \
	}                                                                    \
	SEC("struct_ops/" #pfx "_undo")                                      \
	__u32 BPF_PROG(pfx##_undo, struct sock *sk)                          \
	{                                                                    \
		return dc_tcp_sk(sk)->snd_cwnd;                              \
	}

DC_CC_PROGS(dc_ptcp, DC_CC_POWERTCP)
DC_CC_PROGS(dc_theta, DC_CC_THETA)

DC_CC_OPS(dc_powertcp, dc_ptcp, "powertcp");
DC_CC_OPS(dc_theta_ptcp, dc_theta, "theta_powertcp");
