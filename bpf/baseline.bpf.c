// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The baselines PowerTCP is compared against, as TCP congestion controls:
 * HPCC (INT, SIGCOMM'19) and TIMELY (RTT gradient, SIGCOMM'15).
 *
 * Attached: struct_ops tcp_congestion_ops "hpcc" (dc_hpcc) and "timely"
 * (dc_timely), registered by dcbpfd beside powertcp.
 * Runs: in the TCP stack of each socket that selects them (setsockopt
 * TCP_CONGESTION) — init when the connection starts, cong_control on every
 * ACK, cwnd_event when a send starts with nothing in flight (restart after
 * idle, as PowerTCP), release when the socket goes away.
 *
 * Thin by design: gather the ACK's inputs (the same ones PowerTCP reads:
 * the echoed INT stack in dc_int_flows, the socket's RTT samples), call the
 * law (include/dcbpf/hpcc.h, include/dcbpf/timely.h), write cwnd and the
 * pacing rate, count, mirror the state to dc_cc_flows and stream it to
 * `dcbpf trace`.  Parameters come from dc_cc_cfg under the CC's own key, so
 * `dcbpf set hpcc.eta=0.9` applies to the next ACK.  Built twice like
 * powertcp: DC_CC_ABI_V61 selects the 6.1 cong_control signature (sk, rs).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_endian.h>

#include "dcbpf/hpcc.h"
#include "dcbpf/timely.h"
#include "dcbpf/flow.h"
#include "maps/cc.h"
#include "lib/count.h"
#include "lib/ccsock.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Used when dc_cc_cfg has no entry yet; dcbpfd always writes every CC's. */
static const struct dc_cc_cfg dc_cfg_default = {
	.host_bw_mbps = DC_DEFAULT_HOST_BW_MBPS,
	.expected_flows = DC_DEFAULT_EXPECTED_FLOWS,
	.int_stale_us = DC_DEFAULT_INT_STALE_US,
	.min_cwnd_pkts = DC_DEFAULT_MIN_CWND_PKTS,
	.pacing = DC_DEFAULT_PACING,
	.eta_q16 = DC_HPCC_DEFAULT_ETA_Q16,
	.max_stage = DC_HPCC_DEFAULT_MAX_STAGE,
	.t_low_us = DC_TIMELY_DEFAULT_T_LOW_US,
	.t_high_us = DC_TIMELY_DEFAULT_T_HIGH_US,
	.delta_mbps = DC_TIMELY_DEFAULT_DELTA_MBPS,
	.md_beta_q16 = DC_TIMELY_DEFAULT_BETA_Q16,
	.alpha_q16 = DC_TIMELY_DEFAULT_ALPHA_Q16,
};

_Static_assert(sizeof(struct dc_hpcc_state) <= sizeof(((struct inet_connection_sock *)0)->icsk_ca_priv),
	       "HPCC state must fit the CC private area");
_Static_assert(sizeof(struct dc_timely_state) <= sizeof(((struct inet_connection_sock *)0)->icsk_ca_priv),
	       "TIMELY state must fit the CC private area");

/* What one ACK decided, for the mirror and the trace. */
struct dc_bl_view {
	__u32 mode, cwnd_bytes, tau_us, ai_bytes, hop, nhops;
	__s32 signal_q16;	/* HPCC: U; TIMELY: the normalised gradient g */
};

/* Write the window (bytes → packets) and the pacing rate to the socket. */
static __always_inline void dc_apply(struct sock *sk, __u32 cwnd_bytes, __u64 rate_Bps,
				     const struct dc_cc_cfg *cfg, __u32 mss)
{
	struct tcp_sock *tp = dc_tcp_sk(sk);
	__u32 pkts = (cwnd_bytes + mss - 1) / mss;

	if (pkts < cfg->min_cwnd_pkts)
		pkts = cfg->min_cwnd_pkts;
	if (pkts > tp->snd_cwnd_clamp)
		pkts = tp->snd_cwnd_clamp;
	tp->snd_cwnd = pkts;
	if (cfg->pacing)
		sk->sk_pacing_rate = rate_Bps < sk->sk_max_pacing_rate ? rate_Bps
								       : sk->sk_max_pacing_rate;
}

/* Mirror the state users care about into dc_cc_flows (as PowerTCP). */
static __always_inline void dc_mirror(struct sock *sk, const struct dc_flow_key *key,
				      const struct dc_bl_view *v, __u32 cc, __u32 rtt_us,
				      bool updated, struct dc_cc_counters *stats)
{
	struct dc_cc_flow *f = dc_cc_flow_get(key, cc, stats);

	if (!f)
		return;
	f->mode = v->mode;
	f->cwnd_bytes = v->cwnd_bytes;
	f->snd_cwnd_pkts = dc_tcp_sk(sk)->snd_cwnd;
	f->pacing_rate_Bps = sk->sk_pacing_rate;
	f->norm_power_q16 = v->signal_q16;
	if (rtt_us)
		f->rtt_us = rtt_us;
	f->tau_us = v->tau_us;
	f->beta_bytes = v->ai_bytes;
	f->bottleneck_hop = v->hop;
	f->acks++;
	if (updated)
		f->cwnd_updates++;
	if (v->mode == DC_MODE_INT)
		f->int_acks++;
	else if (v->mode == DC_MODE_THETA)
		f->theta_acks++;
}

/* Stream this ACK's decision while `dcbpf trace` runs. */
static __always_inline void dc_trace(struct sock *sk, const struct dc_flow_key *key,
				     const struct dc_bl_view *v, __u32 cc, __u32 rtt_us,
				     bool updated)
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
	e->mode = v->mode;
	e->cwnd_bytes = v->cwnd_bytes;
	e->snd_cwnd_pkts = dc_tcp_sk(sk)->snd_cwnd;
	e->pacing_rate_Bps = sk->sk_pacing_rate;
	e->norm_power_q16 = v->signal_q16;
	e->rtt_us = rtt_us;
	e->tau_us = v->tau_us;
	e->bottleneck_hop = v->hop;
	e->updated = updated;
	e->nhops = v->nhops;
	bpf_ringbuf_submit(e, 0);
}

/* The ACK's inputs from the socket (the laws' struct dc_ptcp_ack). */
static __always_inline void dc_ack_inputs(struct sock *sk, const struct rate_sample *rs,
					  const struct dc_cc_cfg *cfg, __u32 cwnd_bytes,
					  struct dc_ptcp_ack *a)
{
	struct tcp_sock *tp = dc_tcp_sk(sk);
	__u32 mss = tp->mss_cache ? tp->mss_cache : 1;
	long rtt = rs->rtt_us;

	a->ack_seq = tp->snd_una;
	a->snd_nxt = tp->snd_nxt;
	a->rtt_us = rtt > 0 ? (__u32)rtt : 0;
	a->min_rtt_us = tp->rtt_min.s[0].v;
	a->now_us = tp->tcp_mstamp;
	a->min_cwnd_bytes = cfg->min_cwnd_pkts * mss;
	a->max_cwnd_bytes = dc_ptcp_max_cwnd_bytes(cwnd_bytes, tp->max_packets_out, mss,
						   tp->snd_cwnd_clamp);
}

/* ---- HPCC ---------------------------------------------------------------- */

static __always_inline void dc_hpcc_apply(struct sock *sk, const struct dc_hpcc_state *st,
					  const struct dc_cc_cfg *cfg)
{
	struct tcp_sock *tp = dc_tcp_sk(sk);

	dc_apply(sk, st->cwnd_bytes, dc_hpcc_pacing_Bps(cfg, st->cwnd_bytes, st->tau_us), cfg,
		 tp->mss_cache ? tp->mss_cache : 1);
}

static __always_inline void dc_hpcc_start(struct sock *sk, bool restart)
{
	struct tcp_sock *tp = dc_tcp_sk(sk);
	struct dc_hpcc_state *st = dc_ca_priv(sk);
	__u32 cc = DC_CC_HPCC, mss = tp->mss_cache ? tp->mss_cache : 1;
	struct dc_cc_counters *stats = bpf_map_lookup_elem(&dc_cc_stats, &cc);
	__u16 sport = restart ? st->sport : sk->__sk_common.skc_num;
	struct dc_cc_cfg cfg;

	dc_cc_load_cfg(cc, &cfg, &dc_cfg_default);
	dc_hpcc_state_init(st, &cfg, tp->snd_nxt, restart ? tp->rtt_min.s[0].v : 0,
			   cfg.min_cwnd_pkts * mss);
	st->sport = sport;
	if (cfg.pacing)
		sk->sk_pacing_status = SK_PACING_NEEDED;
	dc_hpcc_apply(sk, st, &cfg);
	if (restart)
		DC_CTR_ADD(dc_cc_stats, stats, idle_restarts, 1);
	else
		DC_CTR_ADD(dc_cc_stats, stats, flows_init, 1);
}

static __always_inline void dc_hpcc_ack(struct sock *sk, const struct rate_sample *rs)
{
	struct dc_hpcc_state *st = dc_ca_priv(sk);
	__u32 cc = DC_CC_HPCC;
	struct dc_cc_counters *stats = bpf_map_lookup_elem(&dc_cc_stats, &cc);
	struct dc_int_stack *stack;
	struct dc_ptcp_ack a = {};
	struct dc_bl_view v = {};
	struct dc_flow_key key;
	struct dc_cc_cfg cfg;
	bool updated = false;

	dc_cc_load_cfg(cc, &cfg, &dc_cfg_default);
	dc_ack_inputs(sk, rs, &cfg, st->cwnd_bytes, &a);
	DC_CTR_ADD(dc_cc_stats, stats, acks, 1);
	if (!a.rtt_us)
		DC_CTR_ADD(dc_cc_stats, stats, rtt_missing, 1);
	dc_sk_flow_key(sk, &key);
	stack = bpf_map_lookup_elem(&dc_int_flows, &key);
	if (stack && bpf_ktime_get_ns() - stack->updated_ns <=
			     (__u64)cfg.int_stale_us * DC_NSEC_PER_USEC) {
		DC_CTR_ADD(dc_cc_stats, stats, int_acks, 1);
		updated = dc_hpcc_on_ack(st, &cfg, &a, stack);
		v.nhops = stack->nhops;
	} else {
		/* HPCC has no signal without INT: the window stays where it is. */
		if (stack)
			DC_CTR_ADD(dc_cc_stats, stats, int_stale, 1);
		DC_CTR_ADD(dc_cc_stats, stats, int_missing, 1);
	}
	if (updated)
		DC_CTR_ADD(dc_cc_stats, stats, cwnd_updates, 1);
	dc_hpcc_apply(sk, st, &cfg);
	v.mode = st->mode;
	v.cwnd_bytes = st->cwnd_bytes;
	v.tau_us = st->tau_us;
	v.ai_bytes = dc_hpcc_wai_bytes(&cfg, st->tau_us);
	v.hop = st->bottleneck_hop;
	v.signal_q16 = (__s32)st->u_q16;
	dc_mirror(sk, &key, &v, cc, a.rtt_us, updated, stats);
	dc_trace(sk, &key, &v, cc, a.rtt_us, updated);
}

/* ---- TIMELY -------------------------------------------------------------- */

static __always_inline void dc_timely_apply(struct sock *sk, const struct dc_timely_state *st,
					    const struct dc_cc_cfg *cfg)
{
	struct tcp_sock *tp = dc_tcp_sk(sk);

	dc_apply(sk, st->cwnd_bytes, dc_timely_pacing_Bps(st->rate_kbps), cfg,
		 tp->mss_cache ? tp->mss_cache : 1);
}

static __always_inline void dc_timely_start(struct sock *sk, bool restart)
{
	struct tcp_sock *tp = dc_tcp_sk(sk);
	struct dc_timely_state *st = dc_ca_priv(sk);
	__u32 cc = DC_CC_TIMELY, mss = tp->mss_cache ? tp->mss_cache : 1;
	struct dc_cc_counters *stats = bpf_map_lookup_elem(&dc_cc_stats, &cc);
	__u16 sport = restart ? st->sport : sk->__sk_common.skc_num;
	struct dc_cc_cfg cfg;

	dc_cc_load_cfg(cc, &cfg, &dc_cfg_default);
	dc_timely_state_init(st, &cfg, tp->snd_una, restart ? tp->rtt_min.s[0].v : 0,
			     cfg.min_cwnd_pkts * mss);
	st->sport = sport;
	if (cfg.pacing)
		sk->sk_pacing_status = SK_PACING_NEEDED;
	dc_timely_apply(sk, st, &cfg);
	if (restart)
		DC_CTR_ADD(dc_cc_stats, stats, idle_restarts, 1);
	else
		DC_CTR_ADD(dc_cc_stats, stats, flows_init, 1);
}

static __always_inline void dc_timely_ack(struct sock *sk, const struct rate_sample *rs)
{
	struct dc_timely_state *st = dc_ca_priv(sk);
	__u32 cc = DC_CC_TIMELY, act;
	struct dc_cc_counters *stats = bpf_map_lookup_elem(&dc_cc_stats, &cc);
	struct dc_ptcp_ack a = {};
	struct dc_bl_view v = {};
	struct dc_flow_key key;
	struct dc_cc_cfg cfg;

	dc_cc_load_cfg(cc, &cfg, &dc_cfg_default);
	dc_ack_inputs(sk, rs, &cfg, st->cwnd_bytes, &a);
	DC_CTR_ADD(dc_cc_stats, stats, acks, 1);
	if (!a.rtt_us)
		DC_CTR_ADD(dc_cc_stats, stats, rtt_missing, 1);
	/* srtt_us is kept ×8 (include/linux/tcp.h) */
	act = dc_timely_on_ack(st, &cfg, &a, dc_tcp_sk(sk)->srtt_us >> 3);
	switch (act) {
	case DC_TIMELY_LOW:
	case DC_TIMELY_INC:
		DC_CTR_ADD(dc_cc_stats, stats, rate_increases, 1);
		break;
	case DC_TIMELY_HAI:
		DC_CTR_ADD(dc_cc_stats, stats, rate_increases, 1);
		DC_CTR_ADD(dc_cc_stats, stats, hai_increases, 1);
		break;
	case DC_TIMELY_HIGH:
	case DC_TIMELY_DEC:
		DC_CTR_ADD(dc_cc_stats, stats, rate_decreases, 1);
		break;
	}
	if (act != DC_TIMELY_NONE)
		DC_CTR_ADD(dc_cc_stats, stats, cwnd_updates, 1);
	dc_timely_apply(sk, st, &cfg);
	dc_sk_flow_key(sk, &key);
	v.mode = st->mode;
	v.cwnd_bytes = st->cwnd_bytes;
	v.tau_us = st->tau_us;
	v.signal_q16 = st->grad_q16;
	dc_mirror(sk, &key, &v, cc, a.rtt_us, act != DC_TIMELY_NONE, stats);
	dc_trace(sk, &key, &v, cc, a.rtt_us, act != DC_TIMELY_NONE);
}

/* ---- shared callbacks ----------------------------------------------------- */

static __always_inline void dc_bl_release(struct sock *sk, __u32 cc, __u16 sport)
{
	struct dc_cc_counters *stats = bpf_map_lookup_elem(&dc_cc_stats, &cc);
	struct dc_flow_key key;

	dc_sk_flow_key(sk, &key);
	key.sport = sport;
	bpf_map_delete_elem(&dc_cc_flows, &key);
	bpf_map_delete_elem(&dc_int_flows, &key);
	DC_CTR_ADD(dc_cc_stats, stats, flows_released, 1);
}

/* A send after more than an RTO idle restarts the flow (as PowerTCP:
 * dc_ptcp_idle_restart); the kernel raises TX_START before it stamps
 * lsndtime with this send. */
static __always_inline bool dc_bl_idle(struct sock *sk, enum tcp_ca_event ev)
{
	struct tcp_sock *tp = dc_tcp_sk(sk);

	return ev == CA_EVENT_TX_START &&
	       dc_ptcp_idle_restart((__u32)bpf_jiffies64() - tp->lsndtime, tp->inet_conn.icsk_rto);
}

/* ssthresh: only consulted for undo bookkeeping; the window is ours. */
static __always_inline __u32 dc_bl_ssthresh(struct sock *sk)
{
	__u32 half = dc_tcp_sk(sk)->snd_cwnd >> 1;

	return half > 2 ? half : 2;
}

#ifdef DC_CC_ABI_V61
#define DC_CTL_ARGS struct sock *sk, const struct rate_sample *rs
#else
#define DC_CTL_ARGS struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs
#endif

SEC("struct_ops/dc_hpcc_init")
void BPF_PROG(dc_hpcc_init, struct sock *sk)
{
	dc_hpcc_start(sk, false);
}

SEC("struct_ops/dc_hpcc_ctl")
void BPF_PROG(dc_hpcc_ctl, DC_CTL_ARGS)
{
	dc_hpcc_ack(sk, rs);
}

SEC("struct_ops/dc_hpcc_rel")
void BPF_PROG(dc_hpcc_rel, struct sock *sk)
{
	dc_bl_release(sk, DC_CC_HPCC, ((struct dc_hpcc_state *)dc_ca_priv(sk))->sport);
}

SEC("struct_ops/dc_hpcc_evt")
void BPF_PROG(dc_hpcc_evt, struct sock *sk, enum tcp_ca_event ev)
{
	if (dc_bl_idle(sk, ev))
		dc_hpcc_start(sk, true);
}

SEC("struct_ops/dc_timely_init")
void BPF_PROG(dc_timely_init, struct sock *sk)
{
	dc_timely_start(sk, false);
}

SEC("struct_ops/dc_timely_ctl")
void BPF_PROG(dc_timely_ctl, DC_CTL_ARGS)
{
	dc_timely_ack(sk, rs);
}

SEC("struct_ops/dc_timely_rel")
void BPF_PROG(dc_timely_rel, struct sock *sk)
{
	dc_bl_release(sk, DC_CC_TIMELY, ((struct dc_timely_state *)dc_ca_priv(sk))->sport);
}

SEC("struct_ops/dc_timely_evt")
void BPF_PROG(dc_timely_evt, struct sock *sk, enum tcp_ca_event ev)
{
	if (dc_bl_idle(sk, ev))
		dc_timely_start(sk, true);
}

/* Each CC its own programs, as powertcp: no program is shared between two
 * struct_ops maps (older libbpf and kernels handle that differently). */
SEC("struct_ops/dc_hpcc_ssth")
__u32 BPF_PROG(dc_hpcc_ssth, struct sock *sk)
{
	return dc_bl_ssthresh(sk);
}

SEC("struct_ops/dc_hpcc_undo")
__u32 BPF_PROG(dc_hpcc_undo, struct sock *sk)
{
	return dc_tcp_sk(sk)->snd_cwnd;
}

SEC("struct_ops/dc_timely_ssth")
__u32 BPF_PROG(dc_timely_ssth, struct sock *sk)
{
	return dc_bl_ssthresh(sk);
}

SEC("struct_ops/dc_timely_undo")
__u32 BPF_PROG(dc_timely_undo, struct sock *sk)
{
	return dc_tcp_sk(sk)->snd_cwnd;
}

DC_CC_OPS(dc_hpcc, dc_hpcc, "hpcc");
DC_CC_OPS(dc_timely, dc_timely, "timely");
