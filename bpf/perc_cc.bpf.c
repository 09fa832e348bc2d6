// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * s-PERC's rate enforcement as a TCP congestion control ("perc",
 * struct_ops map dc_perc): the flow sends at the rate the links allocated,
 * paced by TCP itself (sk_pacing_rate; the kernel here has no fq), with a
 * window that never limits that rate.  PERC is rate based: the end host
 * "updates the rate X(f) at which it sends data packets to match the
 * smallest allocation carried in the latest packet" ("Proactive Congestion
 * Control", Jose, Ch. 2.1).
 *
 * Attached: struct_ops tcp_congestion_ops "perc", registered by dcbpfd
 * beside powertcp, hpcc and timely (TCP_CONG_NON_RESTRICTED: a netns may
 * make it its default).
 * Runs: in the TCP stack of each socket that selects it (setsockopt
 * TCP_CONGESTION, `iperf3 -C perc`) — init when the connection starts,
 * cong_control on every ACK.
 *
 * Thin: read the flow's allocation from dc_perc_alloc (written by the
 * control loop, `dcbpf perc host`), or the start rate while there is none
 * (include/dcbpf/perchost.h), set pacing and window, and mirror what it
 * did into the flow's dc_perc_hflow entry (created by the sockops
 * lifecycle program) for `dcbpf perc status`.  No loss reaction: the rate
 * is the links' explicit allocation, and retransmissions are TCP's.
 * Built twice: DC_CC_ABI_V61 selects the 6.1 cong_control signature.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_endian.h>

#include "dcbpf/perchost.h"
#include "dcbpf/flow.h"
#include "maps/cc.h"
#include "maps/perchost.h"
#include "lib/count.h"
#include "lib/ccsock.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* What the socket keeps (icsk_ca_priv). */
struct dc_perc_sk {
	__u16 sport;		/* the key's source port, for release */
	__u16 pad;
	__u32 rate_kbps;	/* the rate applied last */
};

_Static_assert(sizeof(struct dc_perc_sk) <= sizeof(((struct inet_connection_sock *)0)->icsk_ca_priv),
	       "perc state must fit the CC private area");

static __always_inline void dc_perc_cfg(struct dc_perc_hcfg *c)
{
	__u32 zero = 0;
	struct dc_perc_hcfg *m = bpf_map_lookup_elem(&dc_perc_hcfg, &zero);

	if (m && m->line_kbps)
		*c = *m;
	else
		dc_perc_hcfg_default(c);
}

/* Pacing rate and window for the flow's current allocation. */
static __always_inline void dc_perc_apply(struct sock *sk, const struct rate_sample *rs)
{
	struct tcp_sock *tp = dc_tcp_sk(sk);
	struct dc_perc_sk *p = dc_ca_priv(sk);
	__u32 mss = tp->mss_cache ? tp->mss_cache : 1, srtt_us = tp->srtt_us >> 3, rate, cwnd;
	struct dc_perc_hcfg cfg;
	struct dc_perc_alloc *a;
	struct dc_perc_hflow *f;
	struct dc_flow_key key;
	__u64 Bps, now;

	dc_perc_cfg(&cfg);
	dc_sk_flow_key(sk, &key);
	a = bpf_map_lookup_elem(&dc_perc_alloc, &key);
	rate = dc_perc_host_rate_kbps(a ? a->rate_kbps : 0, &cfg);
	cwnd = dc_perc_cwnd_pkts(rate, srtt_us, mss, &cfg);
	if (cwnd > tp->snd_cwnd_clamp)
		cwnd = tp->snd_cwnd_clamp;
	tp->snd_cwnd = cwnd;
	/* tp->mss_cache, not mss: no segment size yet paces at the whole rate */
	Bps = dc_perc_payload_Bps(rate, tp->mss_cache, cfg.wire_ovh_bytes);
	sk->sk_pacing_rate = Bps < sk->sk_max_pacing_rate ? Bps : sk->sk_max_pacing_rate;
	p->rate_kbps = rate;

	f = bpf_map_lookup_elem(&dc_perc_hflow, &key);
	if (!f)
		return;
	/* an active open that chose perc after connect() (sockops saw it) */
	if (f->state == DC_PERC_FS_NEW)
		f->state = DC_PERC_FS_OPEN;
	f->rate_kbps = rate;
	f->cwnd_pkts = cwnd;
	f->pacing_Bps = sk->sk_pacing_rate;
	f->srtt_us = srtt_us;
	f->acked_bytes = tp->bytes_acked;
	if (!rs)
		return;
	f->acks++;
	/* achieved: acked bytes over windows of at least 10 ms (per-ACK rate
	 * samples jump with ACK compression) */
	now = bpf_ktime_get_ns();
	if (!f->win_ns) {
		f->win_ns = now;
		f->win_bytes = tp->bytes_acked;
	} else if (now - f->win_ns >= DC_PERC_ACH_WINDOW_NS) {
		f->achieved_kbps = dc_perc_ewma_kbps(f->achieved_kbps,
						     dc_perc_window_kbps(tp->bytes_acked - f->win_bytes,
									 now - f->win_ns));
		f->win_ns = now;
		f->win_bytes = tp->bytes_acked;
	}
}

#ifdef DC_CC_ABI_V61
#define DC_CTL_ARGS struct sock *sk, const struct rate_sample *rs
#else
#define DC_CTL_ARGS struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs
#endif

SEC("struct_ops/dc_perc_init")
void BPF_PROG(dc_perc_init, struct sock *sk)
{
	struct dc_perc_sk *p = dc_ca_priv(sk);

	p->sport = sk->__sk_common.skc_num;
	p->rate_kbps = 0;
	/* The kernel paces internally only when asked to (no fq here). */
	sk->sk_pacing_status = SK_PACING_NEEDED;
	dc_perc_apply(sk, NULL);
}

SEC("struct_ops/dc_perc_ctl")
void BPF_PROG(dc_perc_ctl, DC_CTL_ARGS)
{
	dc_perc_apply(sk, rs);
}

/* The lifecycle entries belong to sockops and the control loop (the loop
 * still has to send the flow's FIN): nothing to remove here. */
SEC("struct_ops/dc_perc_rel")
void BPF_PROG(dc_perc_rel, struct sock *sk)
{
}

/* A send after idle: the allocation is still the links', nothing to
 * restart (PERC keeps the rate while the flow lives). */
SEC("struct_ops/dc_perc_evt")
void BPF_PROG(dc_perc_evt, struct sock *sk, enum tcp_ca_event ev)
{
}

/* ssthresh: only consulted for undo bookkeeping; the window is ours. */
SEC("struct_ops/dc_perc_ssth")
__u32 BPF_PROG(dc_perc_ssth, struct sock *sk)
{
	__u32 half = dc_tcp_sk(sk)->snd_cwnd >> 1;

	return half > 2 ? half : 2;
}

SEC("struct_ops/dc_perc_undo")
__u32 BPF_PROG(dc_perc_undo, struct sock *sk)
{
	return dc_tcp_sk(sk)->snd_cwnd;
}

DC_CC_OPS(dc_perc, dc_perc, "perc");
