// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * DCTCP as a TCP congestion control ("dctcp", struct_ops map dc_dctcp).
 *
 * Attached: struct_ops tcp_congestion_ops, registered from build/dctcp.bpf.o
 * (`bpftool struct_ops register build/dctcp.bpf.o`; unregister with
 * `bpftool struct_ops unregister name dc_dctcp`).
 * Runs: in the TCP stack of each socket that selects it (setsockopt
 * TCP_CONGESTION; a listener passes it to its accepted sockets), on both
 * ends of a connection:
 *   - sender: in_ack_event on every ACK (α per window), ssthresh when TCP
 *     enters CWR on ECE (once per window) or recovery, cong_avoid for
 *     growth (the kernel's Reno), cwnd_event on RTO;
 *   - receiver: cwnd_event when the CE state of arriving data changes, so
 *     ECE on the ACKs echoes exactly the marked bytes.
 *
 * The law is include/dcbpf/dctcp.h.  TCP_CONG_NEEDS_ECN makes the kernel
 * negotiate ECN and send ECT for this socket whatever net.ipv4.tcp_ecn
 * says.  The same object serves 6.1 and 6.18: none of the callbacks used
 * changed signature (cong_control, which did, is not used).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "dcbpf/dctcp.h"
#include "maps/dctcp.h"
/* the callbacks of two sockets can interleave on one CPU (lib/count.h) */
#define DC_COUNT_ATOMIC 1
#include "lib/count.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* include/net/tcp.h: flags of tcp_congestion_ops and tcp_sock.ecn_flags
 * (macros, so not in BTF). */
#define TCP_CONG_NON_RESTRICTED 0x1
#define TCP_CONG_NEEDS_ECN 0x2
#define TCP_ECN_OK 1
#define TCP_ECN_DEMAND_CWR 4

/* The kernel's Reno growth (a kfunc for BPF congestion controls since
 * 5.13): slow start below ssthresh, then one segment per window. */
/* Windows of at least this many bytes count for the mean α (stats). */
#define DC_DCTCP_DATA_WIN 8192

extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;

struct dc_dctcp_sk {
	struct dc_dctcp_law law;
	__u32 loss_cwnd;	/* cwnd before the last cut, for undo */
	__u32 prior_rcv_nxt;	/* receiver: rcv_nxt at the previous data */
	__u8 ce;		/* receiver: the last data carried CE */
	__u8 ecn_ok;		/* ECN was negotiated */
};

_Static_assert(sizeof(struct dc_dctcp_sk) <= sizeof(((struct inet_connection_sock *)0)->icsk_ca_priv),
	       "DCTCP state must fit the CC private area");

static __always_inline struct dc_dctcp_sk *dc_dsk(struct sock *sk)
{
	return (struct dc_dctcp_sk *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

static __always_inline struct dc_dctcp_stats *dc_dstats(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&dc_dctcp_stat, &zero);
}

/* Connection established (or the CC selected on a live socket). */
SEC("struct_ops/dc_dctcp_init")
void BPF_PROG(dc_dctcp_init, struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct dc_dctcp_sk *d = dc_dsk(sk);
	struct dc_dctcp_stats *s = dc_dstats();

	dc_dctcp_start(&d->law, tp->snd_una, tp->snd_nxt);
	d->loss_cwnd = 0;
	d->prior_rcv_nxt = tp->rcv_nxt;
	d->ce = 0;
	d->ecn_ok = !!(tp->ecn_flags & TCP_ECN_OK);
	DC_CTR_ADD(dc_dctcp_stat, s, flows, 1);
	if (d->ecn_ok)
		DC_CTR_ADD(dc_dctcp_stat, s, ecn_flows, 1);
}

/* Sender, every ACK (before TCP reacts to its ECE): the α window. */
SEC("struct_ops/dc_dctcp_ackev")
void BPF_PROG(dc_dctcp_ackev, struct sock *sk, __u32 flags)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct dc_dctcp_sk *d = dc_dsk(sk);
	struct dc_dctcp_stats *s = dc_dstats();
	bool ece = flags & CA_ACK_ECE;
	__u32 una0 = d->law.prior_una;
	__u32 acked = d->law.synced && dc_seq_after(tp->snd_una, una0) ? tp->snd_una - una0 : 0;
	bool marked = d->law.ece_bytes || (ece && acked);
	__u32 win_bytes;

	DC_CTR_ADD(dc_dctcp_stat, s, acks, 1);
	DC_CTR_ADD(dc_dctcp_stat, s, acked_bytes, acked);
	if (ece) {
		DC_CTR_ADD(dc_dctcp_stat, s, ece_acks, 1);
		DC_CTR_ADD(dc_dctcp_stat, s, ece_bytes, acked);
	}
	win_bytes = d->law.acked_bytes + acked;
	if (dc_dctcp_on_ack(&d->law, tp->snd_una, tp->snd_nxt, ece)) {
		DC_CTR_ADD(dc_dctcp_stat, s, windows, 1);
		if (marked)
			DC_CTR_ADD(dc_dctcp_stat, s, marked_windows, 1);
		/* α of data senders: windows of at least DC_DCTCP_DATA_WIN
		 * bytes (a receiver's window holds a few bytes of reply) */
		if (win_bytes >= DC_DCTCP_DATA_WIN) {
			DC_CTR_ADD(dc_dctcp_stat, s, data_windows, 1);
			DC_CTR_ADD(dc_dctcp_stat, s, alpha_sum_q16, d->law.alpha_q16);
		}
	}
}

/* Sender, entering CWR (ECE) or recovery: the reduced window. */
SEC("struct_ops/dc_dctcp_ssth")
__u32 BPF_PROG(dc_dctcp_ssth, struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct dc_dctcp_sk *d = dc_dsk(sk);

	d->loss_cwnd = tp->snd_cwnd;
	DC_CTR_ADD(dc_dctcp_stat, dc_dstats(), cuts, 1);
	return dc_dctcp_ssthresh(tp->snd_cwnd, d->law.alpha_q16, d->ecn_ok);
}

/* Sender, ACKs in the open state: Reno growth. */
SEC("struct_ops/dc_dctcp_avoid")
void BPF_PROG(dc_dctcp_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

/* Receiver: send an immediate ACK for the bytes received before the CE
 * state changed, with the old ECE state, so the sender's F counts exactly
 * the marked bytes even with delayed ACKs; then echo the new state. */
static __always_inline void dc_dctcp_ce(struct sock *sk, __u8 ce)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct dc_dctcp_sk *d = dc_dsk(sk);

	if (d->ce != ce) {
		struct dc_dctcp_stats *s = dc_dstats();

		DC_CTR_ADD(dc_dctcp_stat, s, rx_ce_flips, 1);
		if (((struct inet_connection_sock *)sk)->icsk_ack.pending & ICSK_ACK_TIMER) {
			bpf_tcp_send_ack(tp, d->prior_rcv_nxt);
			DC_CTR_ADD(dc_dctcp_stat, s, rx_ce_acks, 1);
		}
		d->ce = ce;
	}
	d->prior_rcv_nxt = tp->rcv_nxt;
	if (ce)
		tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
}

/* Both ends: CE state of received data (receiver), RTO (sender). */
SEC("struct_ops/dc_dctcp_event")
void BPF_PROG(dc_dctcp_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;

	switch (ev) {
	case CA_EVENT_ECN_IS_CE:
		dc_dctcp_ce(sk, 1);
		break;
	case CA_EVENT_ECN_NO_CE:
		dc_dctcp_ce(sk, 0);
		break;
	case CA_EVENT_LOSS:
		/* A timeout is loss, not an ECN signal: halve as TCP does
		 * (ssthresh already ran with α; this overrides it). */
		tp->snd_ssthresh = tp->snd_cwnd / 2 > DC_DCTCP_MIN_CWND ? tp->snd_cwnd / 2
								       : DC_DCTCP_MIN_CWND;
		DC_CTR_ADD(dc_dctcp_stat, dc_dstats(), losses, 1);
		break;
	default:
		break;
	}
}

/* Sender: a reduction turned out spurious (DSACK, timestamps). */
SEC("struct_ops/dc_dctcp_undo")
__u32 BPF_PROG(dc_dctcp_undo, struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	__u32 w = dc_dsk(sk)->loss_cwnd;

	return w > tp->snd_cwnd ? w : tp->snd_cwnd;
}

SEC(".struct_ops")
struct tcp_congestion_ops dc_dctcp = {
	.init = (void *)dc_dctcp_init,
	.in_ack_event = (void *)dc_dctcp_ackev,
	.ssthresh = (void *)dc_dctcp_ssth,
	.cong_avoid = (void *)dc_dctcp_avoid,
	.cwnd_event = (void *)dc_dctcp_event,
	.undo_cwnd = (void *)dc_dctcp_undo,
	.flags = TCP_CONG_NON_RESTRICTED | TCP_CONG_NEEDS_ECN,
	.name = "dctcp",
};
