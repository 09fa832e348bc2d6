// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ResQueue on a host: each TCP/IPv4 packet leaving the host carries its
 * MLFQ level in the DSCP (a class selector, CS7 for level 1 by default),
 * from its flow's bytes sent, one level higher when it retransmits
 * (Rezaei, PhD thesis 2021, §3.3; core and encoding:
 * include/dcbpf/resqueue.h; docs/resqueue.md).  With
 * promotion off it is a plain PIAS tagger.
 *
 * dc_resq_egress -- attached: TC egress (tcx, appended) of a host
 *   interface; runs for every packet the host sends on it.  Parse, account
 *   the segment in its flow (dc_resq_flows), compute the level, rewrite
 *   TOS with an incremental IPv4 checksum update.  Anything that is not a
 *   well-formed unfragmented TCP/IPv4 packet passes untouched.  A GSO
 *   packet is tagged once: all its segments share the level (TCP builds
 *   GSO packets whatever the device offers; `gso_max_segs 1` on the
 *   interface gives per-MSS levels, as PIAS assumes).
 * dc_resq_sockops -- attached: sockops on a cgroup v2 directory (only for
 *   the RTO-only mode); on a retransmission timeout it records in the
 *   flow the highest sequence sent (snd_nxt), below which re-sent segments
 *   are the timeout's retransmissions.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "dcbpf/resqueue.h"
#include "dcbpf/flow.h"
#include "maps/resq.h"
#include "lib/ipv4.h"
#include "lib/count.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define DC_TCP_FIN 0x01
#define DC_TCP_SYN 0x02
#define DC_IP_TOS_OFF (DC_ETH_HLEN + 1)

static __always_inline struct dc_resq_flow *flow_get(const struct dc_flow_key *k)
{
	struct dc_resq_flow zero = {}, *f;

	f = bpf_map_lookup_elem(&dc_resq_flows, k);
	if (f)
		return f;
	bpf_map_update_elem(&dc_resq_flows, k, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&dc_resq_flows, k);
}

SEC("tc")
int dc_resq_egress(struct __sk_buff *skb)
{
	struct dc_resq_cfg *cfg;
	struct dc_resq_flow *f;
	struct dc_flow_key key;
	struct dc_pkt p;
	__u32 zero = 0, seq = 0, seqlen, level;
	__u16 word_old, word_new;
	__u64 before;
	__u8 fl = 0, tos;
	bool retx;

	if (!dc_parse_tcp4(skb, &p)) {
		DC_COUNT(dc_resq_stats, passed);
		return DC_TC_NEXT;
	}
	cfg = bpf_map_lookup_elem(&dc_resq_cfg, &zero);
	if (!cfg || !cfg->enabled)
		return DC_TC_NEXT;
	{
		/* the parse made the headers linear: read them in place */
		void *data = dc_skb_data(skb), *end = dc_skb_data_end(skb);
		__u32 ihl = p.ihl_bytes & 0x3c;	/* 20..60, as parsed; bounded for the verifier */
		struct tcphdr *th = data + DC_ETH_HLEN + ihl;

		if (data + DC_ETH_HLEN + DC_IP_BASE_LEN > end || (void *)(th + 1) > end) {
			DC_COUNT(dc_resq_stats, passed);
			return DC_TC_NEXT;
		}
		seq = th->seq;
		fl = ((__u8 *)th)[13];
		word_old = *(__u16 *)(data + DC_ETH_HLEN);
	}
	dc_key_fwd(&p, &key);
	f = flow_get(&key);
	if (!f)
		return DC_TC_NEXT;
	seq = bpf_ntohl(seq);
	seqlen = p.payload + !!(fl & DC_TCP_SYN) + !!(fl & DC_TCP_FIN);
	dc_resq_idle_restart(f, seq, seqlen, bpf_ktime_get_ns(), cfg->idle_us);
	retx = dc_resq_account(f, seq, seqlen, p.payload, &before);
	level = dc_resq_level(cfg, before, retx, dc_resq_after_rto(f, seq));
	f->level = (__u8)level;
	f->pkts++;
	if (retx) {
		f->retx_pkts++;
		DC_COUNT(dc_resq_stats, retx);
		if (level < dc_resq_mlfq_level(cfg, before)) {
			f->promoted_pkts++;
			DC_COUNT(dc_resq_stats, promoted);
		}
	}
	if (p.gso)
		DC_COUNT(dc_resq_stats, gso);
	/* TOS is the second byte of the header's first 16-bit word */
	tos = ((__u8 *)&word_old)[1];
	word_new = word_old;
	((__u8 *)&word_new)[1] = dc_resq_tos(tos, level, cfg->cs_top);
	if (word_new != word_old &&
	    (bpf_l3_csum_replace(skb, DC_IP_CSUM_OFF, word_old, word_new, sizeof(word_new)) ||
	     bpf_skb_store_bytes(skb, DC_ETH_HLEN, &word_new, sizeof(word_new), 0))) {
		DC_COUNT(dc_resq_stats, tag_err);
		return DC_TC_NEXT;
	}
	DC_COUNT(dc_resq_stats, tagged);
	return DC_TC_NEXT;
}

SEC("sockops")
int dc_resq_sockops(struct bpf_sock_ops *skops)
{
	struct dc_resq_flow *f;
	struct dc_flow_key key = {};

	if (skops->family != DC_AF_INET)
		return 1;
	switch (skops->op) {
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags |
					  BPF_SOCK_OPS_RTO_CB_FLAG);
		return 1;
	case BPF_SOCK_OPS_RTO_CB:
		/* the sender's flow: local -> remote, as the egress program keys it */
		key.family = DC_AF_INET;
		key.saddr[0] = skops->local_ip4;
		key.daddr[0] = skops->remote_ip4;
		key.sport = (__u16)skops->local_port;
		key.dport = (__u16)bpf_ntohl(skops->remote_port);
		f = flow_get(&key);
		if (f) {
			f->rto_high_seq = skops->snd_nxt;
			f->rto_count++;
		}
		DC_COUNT(dc_resq_stats, rto);
		return 1;
	}
	return 1;
}
