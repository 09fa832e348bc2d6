/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What every dcbpf congestion control (bpf/powertcp.bpf.c,
 * bpf/baseline.bpf.c) reads from its socket: the tcp_sock, the CC's private
 * area, its live parameters from dc_cc_cfg, the flow key the INT programs
 * use and the flow's dc_cc_flows entry.  Include after maps/cc.h and
 * lib/count.h.
 */
#ifndef DCBPF_BPF_LIB_CCSOCK_H
#define DCBPF_BPF_LIB_CCSOCK_H

#include "dcbpf/flow.h"

/* include/net/tcp.h (a macro, not in BTF): the CC may be selected by
 * unprivileged users and as a netns default (docs/design.md on why). */
#define TCP_CONG_NON_RESTRICTED 0x1

static __always_inline struct tcp_sock *dc_tcp_sk(struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

/* The CC's private state (icsk_ca_priv; each CC asserts its state fits). */
static __always_inline void *dc_ca_priv(struct sock *sk)
{
	return ((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

/* CC `cc`'s parameters, or *def while dcbpfd has not written them yet. */
static __always_inline void dc_cc_load_cfg(__u32 cc, struct dc_cc_cfg *cfg,
					   const struct dc_cc_cfg *def)
{
	const struct dc_cc_cfg *c = bpf_map_lookup_elem(&dc_cc_cfg, &cc);

	*cfg = c ? *c : *def;
}

/* The flow's entry in dc_cc_flows, created for CC `cc` if it has none;
 * NULL (counted as mirror_fail) when the map refuses it. */
static __always_inline struct dc_cc_flow *dc_cc_flow_get(const struct dc_flow_key *key, __u32 cc,
							 struct dc_cc_counters *stats)
{
	struct dc_cc_flow *f = bpf_map_lookup_elem(&dc_cc_flows, key);

	if (!f) {
		struct dc_cc_flow fresh = { .cc = cc };

		bpf_map_update_elem(&dc_cc_flows, key, &fresh, BPF_NOEXIST);
		f = bpf_map_lookup_elem(&dc_cc_flows, key);
		if (!f)
			DC_CTR_ADD(dc_cc_stats, stats, mirror_fail, 1);
	}
	return f;
}

/* The tcp_congestion_ops of a CC whose programs are P_init, P_ctl,
 * P_rel, P_evt, P_ssth and P_undo (names of at most 15 characters). */
#define DC_CC_OPS(var, P, cc_name)					\
	SEC(".struct_ops")						\
	struct tcp_congestion_ops var = {				\
		.init = (void *)P##_init,				\
		.cong_control = (void *)P##_ctl,			\
		.release = (void *)P##_rel,				\
		.cwnd_event = (void *)P##_evt,				\
		.ssthresh = (void *)P##_ssth,				\
		.undo_cwnd = (void *)P##_undo,				\
		.flags = TCP_CONG_NON_RESTRICTED,			\
		.name = cc_name,					\
	}

/* The flow as the INT programs key it (dc_int_flows, dc_cc_flows). */
static __always_inline void dc_sk_flow_key(struct sock *sk, struct dc_flow_key *k)
{
	__builtin_memset(k, 0, sizeof(*k));
	k->family = sk->__sk_common.skc_family;
	k->sport = sk->__sk_common.skc_num;
	k->dport = bpf_ntohs(sk->__sk_common.skc_dport);
	if (k->family == DC_AF_INET) {
		k->saddr[0] = sk->__sk_common.skc_rcv_saddr;
		k->daddr[0] = sk->__sk_common.skc_daddr;
		return;
	}
	__builtin_memcpy(k->saddr, sk->__sk_common.skc_v6_rcv_saddr.in6_u.u6_addr32,
			 sizeof(k->saddr));
	__builtin_memcpy(k->daddr, sk->__sk_common.skc_v6_daddr.in6_u.u6_addr32,
			 sizeof(k->daddr));
	dc_flow_key_norm(k);
}

#endif
