/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Map keys and values shared by the BPF programs, dcbpfd and dcbpf.  Every
 * field carries its unit in its name so `bpftool map dump` explains itself.
 * Layouts are ABI between objects and tools: append, never reorder.
 */
#ifndef DCBPF_TYPES_H
#define DCBPF_TYPES_H

#include "compat.h"
#include "counters.h"

/* Pin directory; maps are pinned by name below it. */
#define DC_PIN_DIR "/sys/fs/bpf/dcbpf"

/* ---- congestion control ------------------------------------------------ */

/* Which congestion control a config/counter entry belongs to (map key). */
enum dc_cc_id {
	DC_CC_POWERTCP = 0,
	DC_CC_THETA = 1,
	DC_CC_HPCC = 2,		/* baseline: HPCC, SIGCOMM'19 */
	DC_CC_TIMELY = 3,	/* baseline: TIMELY, SIGCOMM'15 */
	DC_CC_MAX = 4,
};

/*
 * Per-CC parameters (dc_cc_cfg, key enum dc_cc_id).  Zero means "derive":
 * base_rtt_us = 0 takes the path's base RTT learned across flows plus one
 * send unit, beta_bytes = 0 uses host_bw · τ / expected_flows, at least one
 * send unit (Addanki thesis §2.2.3; docs/design.md).
 */
struct dc_cc_cfg {
	__u32 gamma_q16;	/* EWMA weight γ ∈ (0, 1], Q16 */
	__u32 base_rtt_us;	/* τ; 0 = learned (dc_ptcp_path_tau_us) */
	__u32 host_bw_mbps;	/* host NIC bandwidth (HostBw) */
	__u32 expected_flows;	/* N in β = HostBw·τ/N */
	__u32 beta_bytes;	/* additive increase β; 0 = derive */
	__u32 int_stale_us;	/* INT older than this → θ law */
	__u32 min_cwnd_pkts;	/* floor of snd_cwnd */
	__u32 pacing;		/* 1 = set pacing rate cwnd/τ */
	/* Baselines (docs/baselines.md); the other CCs ignore them. */
	__u32 eta_q16;		/* HPCC target utilisation η, Q16 */
	__u32 max_stage;	/* HPCC additive stages before MI */
	__u32 t_low_us;		/* TIMELY T_low: below, additive increase */
	__u32 t_high_us;	/* TIMELY T_high: above, cut by RTT */
	__u32 delta_mbps;	/* TIMELY additive step δ */
	__u32 md_beta_q16;	/* TIMELY multiplicative decrease β, Q16 */
	__u32 alpha_q16;	/* TIMELY EWMA weight α of the RTT diff, Q16 */
};

/* Flow identity as seen by the sending host: local = source. */
struct dc_flow_key {
	__u32 saddr[4];		/* network order; IPv4 in [0] */
	__u32 daddr[4];
	__u16 sport;		/* host order */
	__u16 dport;		/* host order */
	__u8 family;		/* AF_INET / AF_INET6 */
	__u8 pad[3];
};

enum dc_cc_mode {
	DC_MODE_INIT = 0,	/* no feedback yet: line rate, cwnd_init */
	DC_MODE_THETA = 1,	/* RTT law (Algorithm 2) */
	DC_MODE_INT = 2,	/* INT law (Algorithm 1) */
};

/* Per-flow view users want (dc_cc_flows, LRU hash, updated per ACK). */
struct dc_cc_flow {
	__u32 cc;		/* enum dc_cc_id */
	__u32 mode;		/* enum dc_cc_mode */
	__u32 cwnd_bytes;
	__u32 snd_cwnd_pkts;
	__u64 pacing_rate_Bps;	/* bytes per second */
	__s32 norm_power_q16;	/* smoothed Γ/e, Q16; 1.0 = equilibrium (hpcc: U;
				 * timely: normalised RTT gradient) */
	__u32 rtt_us;		/* last RTT sample */
	__u32 tau_us;		/* base RTT in use */
	__u32 beta_bytes;	/* additive increase in use (hpcc: W_AI) */
	__u32 bottleneck_hop;	/* hop index with max power (INT) */
	__u32 pad;
	__u64 acks;
	__u64 cwnd_updates;
	__u64 theta_acks;	/* ACKs handled by the θ law */
	__u64 int_acks;		/* ACKs handled by the INT law */
};

/* Global counters (dc_cc_stats, array, key enum dc_cc_id; atomic adds). */
#define DC_CC_COUNTERS(X)							\
	X(flows_init, 0, "", "Flows the congestion control initialised.")	\
	X(flows_released, 0, "", "Flows the congestion control released.")	\
	X(acks, 0, "", "ACKs processed.")					\
	X(cwnd_updates, 0, "", "Congestion window updates.")			\
	X(rtt_missing, 0, "", "ACKs without an RTT sample.")			\
	X(int_acks, 0, "", "PowerTCP or HPCC ACKs with fresh in-band telemetry.") \
	X(theta_fallback, 0, "",						\
	  "PowerTCP ACKs without telemetry, run on the RTT (theta) law.")	\
	X(int_stale, 0, "",							\
	  "PowerTCP or HPCC ACKs whose telemetry was older than int_stale_us.") \
	X(mirror_fail, 0, "", "Failed updates of the dc_cc_flows mirror.")	\
	X(idle_restarts, 0, "",							\
	  "Flows restarted at HostBw*tau after idling longer than an RTO "	\
	  "(dc_ptcp_state_restart).")						\
	X(int_missing, 0, "",							\
	  "HPCC ACKs without fresh telemetry: the window is held.")		\
	X(rate_increases, 0, "",						\
	  "TIMELY rate increases (below T_low or gradient <= 0).")		\
	X(hai_increases, 0, "",						\
	  "TIMELY increases in hyper-active mode (N = 5 steps).")		\
	X(rate_decreases, 0, "",						\
	  "TIMELY rate decreases (above T_high or gradient > 0).")		\
	X(int_age_us, 0, "int_echo_age",					\
	  "Sum over int_acks of the age of the newest echoed stack, in "	\
	  "microseconds (over int_acks: the telemetry's mean freshness).")

struct dc_cc_counters {
	DC_CC_COUNTERS(DC_CTR_FIELD)
};

/*
 * dc_cc_tron[0], the CCs' tracing switch: 0 off, else a lease — the
 * CLOCK_MONOTONIC millisecond (mod 2^32) until which a `dcbpf trace` reader
 * is alive.  The reader renews it while it polls and writes 0 when it ends;
 * one killed before it could (kill -9) leaves a lease that runs out within
 * DC_TRACE_LEASE_MS, so the CCs do not go on filling a ring nobody reads.
 */
#define DC_TRACE_LEASE_MS 2000U
#define DC_TRACE_NS_PER_MS 1000000ULL

/* The lease a reader polling at now_ns writes (never 0: that is "off"). */
DC_INLINE __u32 dc_trace_lease(__u64 now_ns)
{
	__u32 v = (__u32)(now_ns / DC_TRACE_NS_PER_MS) + DC_TRACE_LEASE_MS;

	return v ? v : 1;
}

/* Is tracing on at now_ns?  Wrap-safe: a lease is at most 2^31 ms ahead. */
DC_INLINE bool dc_trace_live(__u32 lease_ms, __u64 now_ns)
{
	return lease_ms && (__s32)(lease_ms - (__u32)(now_ns / DC_TRACE_NS_PER_MS)) > 0;
}

/* One CC decision, streamed by `dcbpf trace` (dc_cc_trace ring
 * buffer, written only while the lease in dc_cc_tron[0] runs). */
struct dc_cc_event {
	__u64 ts_ns;		/* bpf_ktime_get_ns at the ACK */
	struct dc_flow_key key;
	__u32 cc;		/* enum dc_cc_id */
	__u32 mode;		/* enum dc_cc_mode */
	__u32 cwnd_bytes;
	__u32 snd_cwnd_pkts;
	__u64 pacing_rate_Bps;
	__s32 norm_power_q16;
	__u32 rtt_us;
	__u32 tau_us;
	__u32 bottleneck_hop;
	__u32 updated;		/* 1 = the window moved on this ACK */
	__u32 nhops;		/* INT hops seen (0 = θ law) */
};

/* ---- in-band telemetry, decoded --------------------------------------- */

#define DC_INT_MAX_HOPS 4

/* One hop's telemetry as the CC sees it (decoded from the wire format). */
struct dc_int_hop {
	__u32 qlen_bytes;	/* egress queue length when the packet left */
	__u32 rate_mbps;	/* egress port rate */
	__u64 ts_ns;		/* switch timestamp */
	__u64 tx_bytes;		/* bytes transmitted by the port so far */
};

/* Latest echoed hop stack of a flow (dc_int_flows, key dc_flow_key). */
struct dc_int_stack {
	__u64 updated_ns;	/* host time the echo was published */
	__u32 nhops;
	__u32 flags;		/* DC_INT_F_* */
	struct dc_int_hop hop[DC_INT_MAX_HOPS];
};

#define DC_INT_F_OVERFLOW 0x1	/* more hops than slots on the path */

/* INT sources: destinations whose TCP data gets the option (LPM trie). */
struct dc_int_dst_key {
	__u32 prefixlen;	/* bits of addr that match */
	__u32 addr;		/* IPv4, network order */
};

struct dc_int_dst_cfg {
	__u32 slots;		/* hop slots to reserve, 1 … 4 */
	/* Give-up (docs/int.md, "When the path drops IP options"): a flow
	 * whose tagged segments bring no echo back for giveup_ms is sent
	 * without the option for a while (dc_int_giveup); 0 = never. */
	__u32 giveup_ms;
	/* Sampling (docs/int.md, "Sampling"): 0 = every data segment; else the
	 * option on at most one data segment per flow per sample_us ... */
	__u32 sample_us;
	/* ... except while the flow's newest echo shows a hop queue above
	 * sample_qlen_bytes (0 = never): then on every segment. */
	__u32 sample_qlen_bytes;
};

/* A flow at its source, sampled or with give-up (dc_int_samp, key dc_flow_key;
 * dc_int_sample_due, dc_int_giveup). */
struct dc_int_samp {
	__u64 tagged_ns;	/* host time of the last segment given the option */
	__u64 unechoed_ns;	/* first segment tagged since the newest echo; 0 = none */
	__u64 off_until_ns;	/* gave up: no option before this host time */
	__u32 offs;		/* give-ups in a row (the off period doubles) */
	__u32 proven;		/* an echo came back since the last give-up */
};

/* What the sink keeps per flow for the echo (dc_int_sink, key =
 * dc_flow_key from the data sender's side). Hop words as on the wire. */
struct dc_int_sink_rec {
	__u64 updated_ns;	/* receiver time the stack arrived */
	__u32 hops;		/* filled hops */
	__u32 flags;		/* DC_INT_FLAG_* of the data packet */
	__u32 path;
	__u32 echoed;		/* sampled flow: this stack rode back already */
	__u64 hop_word[DC_INT_MAX_HOPS];
};

/* INT counters (dc_int_stats of the host programs, dc_int_xstats of a
 * switch's transit hop; array with one entry, atomic adds). */
#define DC_INT_COUNTERS(X)							\
	X(src_added, 0, "", "INT option added to a data segment.")		\
	X(src_gso, 0, "", "INT option added to a GSO super-packet.")		\
	X(src_no_room, 0, "",							\
	  "Data segments sent without INT: IP options already present.")	\
	X(src_fail, 0, "",							\
	  "Data segments sent without INT: room adjustment failed.")		\
	X(sink_stripped, 0, "",							\
	  "INT options stripped at the receiver, hop stack kept.")		\
	X(echo_added, 0, "", "Hop stacks echoed on outgoing segments.")	\
	X(echo_no_room, 0, "",							\
	  "Hop stacks not echoed: IP options already present.")		\
	X(echo_rx, 0, "", "Echoes received and published to the sender's CC.") \
	X(bad_stripped, 0, "", "Malformed options of ours stripped unused.")	\
	X(bad_passed, 0, "",							\
	  "Malformed options beyond stripping, passed untouched.")		\
	X(transit_filled, 0, "", "Hop slots filled by a switch.")		\
	X(transit_overflow, 0, "",						\
	  "Packets with no free hop slot at a switch (overflow flag set).")	\
	X(transit_echo, 0, "", "Echo options a switch left alone.")		\
	X(strip_fail, 0, "", "Strips that failed; packet passed untouched.")	\
	X(tag_stripped, 0, "",							\
	  "Ethereal tag-only options stripped at the receiver.")		\
	X(transit_tag, 0, "", "Ethereal tag-only options a switch left alone.") \
	X(src_tag_grown, 0, "",							\
	  "Ethereal tag-only options grown into INT at the source, path tag kept.") \
	X(src_sampled_out, 0, "",						\
	  "Data segments of sampled flows sent without INT: no sample due.")	\
	X(echo_skipped, 0, "",							\
	  "Segments of sampled flows sent without an echo: the stack rode back.") \
	X(src_gave_up, 0, "",							\
	  "Flows that stopped getting INT: no echo within giveup_ms (IP options dropped on the path?).") \
	X(src_int_off, 0, "",							\
	  "Data segments sent without INT: their flow waits for a probe's echo or gave up.")	\
	X(echo_stale, 0, "",							\
	  "Segments sent without an echo: the flow's stack was too old to use.")

struct dc_int_counters {
	DC_INT_COUNTERS(DC_CTR_FIELD)
};

#endif
