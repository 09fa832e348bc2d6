/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * DCTCP's counters, defined once.  Not pinned: the object is registered
 * by `bpftool struct_ops register` (tests) or a loader, and the map is
 * found by name (`bpftool map dump name dc_dctcp_stat`).  Pinning by name
 * would leave a pin under /sys/fs/bpf behind every registration.
 */
#ifndef DCBPF_MAPS_DCTCP_H
#define DCBPF_MAPS_DCTCP_H

/* Totals over every connection using dctcp, one copy per CPU (summed by
 * readers): written on every ACK, a shared copy would bounce its cache
 * line between the CPUs handling different flows. */
struct dc_dctcp_stats {
	__u64 flows;		/* connections initialised */
	__u64 ecn_flows;	/* of them with ECN negotiated */
	__u64 acks;		/* ACKs seen by the sender's law */
	__u64 ece_acks;		/* of them carrying ECE */
	__u64 acked_bytes;	/* bytes acknowledged */
	__u64 ece_bytes;	/* bytes acknowledged with ECE */
	__u64 windows;		/* α updates (one per window) */
	__u64 marked_windows;	/* windows with at least one ECE byte */
	__u64 cuts;		/* ssthresh calls: cwnd·(1 − α/2) or /2 */
	__u64 losses;		/* RTOs (window halved, not cut by α) */
	__u64 rx_ce_flips;	/* receiver: CE state changes of the data */
	__u64 rx_ce_acks;	/* receiver: immediate ACKs sent at a flip */
	__u64 data_windows;	/* windows of ≥ 8 KB acknowledged */
	__u64 alpha_sum_q16;	/* Σ α after each of them, Q16 (mean: ÷ data_windows) */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_dctcp_stats);
} dc_dctcp_stat SEC(".maps");

#endif
