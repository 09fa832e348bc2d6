/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Emulated switch: map keys and values shared by the switch programs
 * (bpf/switch.bpf.c: XDP admission, qdisc tracker), the INT transit hop,
 * `dcbpf switch` / `dcbpf set sw.…` and the simulator.  One instance per
 * emulated switch; its maps are pinned by name under
 * <pin_dir>/sw/<switch-name>/ (docs/maps.md).
 *
 * Who writes and who reads each field
 * -----------------------------------
 * struct dc_sw_port (dc_sw_port, array, key = port id 0..DC_SW_PORTS_MAX-1)
 *   qlen_bytes, qlen_pkts   tracker (tp_btf qdisc_enqueue/qdisc_dequeue, root
 *                           qdisc of the port: qstats.backlog, q.qlen);
 *                           read by XDP admission, INT hop, dcbpf, tests
 *   tx_bytes, tx_pkts       tracker (qdisc bstats, bytes/packets dequeued);
 *                           read by INT hop (tx counter of the hop), ABM update
 *   last_ns                 tracker (bpf_ktime_get_ns of the last event);
 *                           read by INT hop
 *   rate_mbps, port_id,     control plane at `dcbpf switch up`, before any
 *   ifindex, ifname         program is attached; read by everyone
 *   gamma_q16, win_*        ABM periodic update (tracker, one CPU per period)
 *   thresh_bytes            XDP admission: threshold of the last admission
 *                           decision on this port (for status and ABM's n)
 * struct dc_sw_state (dc_sw_state, array, key 0)
 *   occupancy_bytes/pkts    tracker, atomic adds of per-port differences:
 *                           always equals Σ port qlen (Q of the papers)
 *   abm_*                   ABM periodic update
 * struct dc_sw_meta (dc_sw_meta, array, key 0): control plane only; XDP
 *   reads cfg_slot to pick the live configuration and model_slot to pick
 *   the live model.
 * struct dc_rf_model (dc_sw_model, array of 2 slots, include/dcbpf/forest.h):
 *   dc_sw_model_load writes the idle slot whole, then flips
 *   dc_sw_meta.model_slot (as for dc_sw_cfg); XDP reads the live slot.
 * struct dc_sw_cred (dc_sw_cred, array, key 0): XDP admission only, under
 *   Credence and FollowLQD: the virtual LQD's queues T_i and the EWMA
 *   features.  Written by every CPU without a lock (docs/admission.md,
 *   "Races").
 * struct dc_sw_event (dc_sw_events, ring buffer): XDP admission writes
 *   sampled arrivals and drops when dc_sw_cfg.ev_* ask for them; read by
 *   `dcbpf switch capture` and `dcbpf trace --switch`.
 * struct dc_sw_cfg (dc_sw_cfg, array of 2 slots): control plane writes the
 *   idle slot whole, then flips dc_sw_meta.cfg_slot, so a reader sees one
 *   complete configuration (an array update is a memcpy a reader could
 *   observe half done).
 * struct dc_sw_route (dc_sw_route, hash): XDP admission only (a cache of
 *   the kernel FIB); the control plane never writes it.
 * struct dc_sw_queue (dc_sw_queue, array, key port·DC_SW_QUEUES_MAX + queue;
 *   used only when dc_sw_meta.nqueues > 1): qlen_*, tx_*, last_ns by the
 *   tracker from the skbs its root HTB takes in and gives out (the leaf's
 *   own backlog, docs/admission.md "Priority queues"); thresh_bytes by XDP
 *   admission; gamma_q16, win_* by ABM's periodic update.
 * struct dc_sw_counters (dc_sw_cnt, per-CPU array, key port·DC_SW_PRIOS +
 *   prio; key DC_SW_CNT_OTHER for packets that are not admission candidates):
 *   XDP admission.
 *
 * Units are in the names; ratios are Q16 (DC_Q16_ONE = 1.0).  Layouts are
 * ABI between objects and tools: append, never reorder.
 */
#ifndef DCBPF_SWITCH_H
#define DCBPF_SWITCH_H

#include "compat.h"
#include "counters.h"
#include "smartbuf.h"
#include "edt.h"
#include "reverie.h"

#define DC_SW_PORTS_MAX 16	/* ports per emulated switch */
#define DC_SW_TAGS 16		/* Ethereal path tags: the 4-bit P field (include/dcbpf/int.h), 1..15 */
#define DC_SW_PRIOS 8		/* priorities (DSCP class selector) */
#define DC_SW_QUEUES_MAX 8	/* strict-priority queues per port (HTB leaves) */
#define DC_SW_QREC_ENTRIES (DC_SW_PORTS_MAX * DC_SW_QUEUES_MAX)
#define DC_SW_NAME_LEN 16	/* switch names, like interface names */
#define DC_SW_IFNAME_LEN 16	/* IFNAMSIZ */
#define DC_SW_CNT_OTHER (DC_SW_PORTS_MAX * DC_SW_PRIOS)
#define DC_SW_CNT_ENTRIES (DC_SW_CNT_OTHER + 1)

/* Buffer-sharing algorithm (dc_sw_cfg.alg).  Append only.  LQD is
 * push-out: only the simulator can run it; every other one runs in the
 * simulator and in XDP. */
enum dc_alg {
	DC_ALG_CS = 0,		/* Complete Sharing */
	DC_ALG_DT = 1,		/* Dynamic Thresholds */
	DC_ALG_ABM = 2,		/* Active Buffer Management */
	DC_ALG_LQD = 3,		/* Longest Queue Drop (simulator only) */
	DC_ALG_CREDENCE = 4,	/* Credence: FollowLQD + safeguard + drop predictions */
	DC_ALG_FOLLOWLQD = 5,	/* FollowLQD: Credence without predictions */
	DC_ALG_SMARTBUF = 6,	/* SmartBuf: learned per-port limits, DT fallback */
	DC_ALG_EDT = 7,		/* Enhanced Dynamic Threshold */
	DC_ALG_MAX = 8,
};

/* Algorithms with a lossless class and PFC (include/dcbpf/reverie.h):
 * outside [0, DC_ALG_MAX), the output-queued simulator's range, and the
 * values `dcbpf sim --alg reverie` gives them.  The switch runs Reverie
 * (dc_sw_cfg.rv, state in dc_sw_rv). */
#define DC_ALG_REVERIE 100
/* The SONiC buffer model (include/dcbpf/sonic.h), Reverie's baseline:
 * state in dc_sw_sonic, parameters from dc_sw_cfg.rv (below). */
#define DC_ALG_SONIC 101
/* One lossless queue's default headroom: half a millisecond of a 1 Gbit/s
 * port (62.5 kB) rounded up to 64 KiB: what an upstream can still send
 * between a PAUSE and stopping (docs/admission.md, "PFC"). */
#define DC_SW_RV_DEFAULT_HDRM_BYTES 65536U

/* dc_sw_cfg.dscp_prio[d]: priority in the low bits, first-RTT flag. */
#define DC_SW_DSCP_PRIO_MASK 0x07
#define DC_SW_DSCP_FIRST_RTT 0x80

/*
 * Reverie's parameters (dc_sw_cfg.rv; include/dcbpf/reverie.h, Eqs.
 * 5.10-5.12).  All __u32 so the switch key table writes them like the
 * others.  The shared pool is b* = buffer_bytes − hdrm_pool_bytes.
 */
struct dc_sw_rv_cfg {
	__u32 alpha_q16[DC_RV_CLASSES];	/* α_LY, α_LL (Theorem 10: their ratio) */
	__u32 gamma_q32;		/* γ of Eq. 5.11, Q32 (< 1) */
	__u32 hdrm_bytes;		/* PFC headroom of one lossless ingress queue */
	__u32 hdrm_pool_bytes;		/* b_h: all lossless queues' headroom together */
	__u32 cong_bytes;		/* q̂ at which a queue counts fully in n_c */
	__u32 xon_bytes;		/* resume hysteresis: q̂ + xon ≤ Γ */
	__u32 lossless[DC_SW_PRIOS];	/* 1 = priority P is lossless (PFC) */
};

struct dc_sw_cfg {
	__u32 alg;			/* enum dc_alg */
	__u32 buffer_bytes;		/* B: shared buffer of the switch */
	__u32 ecn_k_bytes;		/* mark CE above K per queue; 0 = off */
	__u32 abm_period_us;		/* ABM n_p and γ update period */
	__u32 alpha_first_rtt_q16;	/* α of first-RTT (unscheduled) packets */
	__u32 alpha_q16[DC_SW_PRIOS];	/* α per priority (DT, ABM) */
	__u8 dscp_prio[64];		/* DSCP → priority | DC_SW_DSCP_FIRST_RTT */
	__u32 ev_sample_every;		/* emit 1 in N arrivals to dc_sw_events; 0 = none */
	__u32 ev_drops;			/* 1 = emit every admission drop */
	__u32 cred_drain;		/* enum dc_cred_drain: how the virtual queues drain */
	__u8 tag_port[DC_SW_TAGS];	/* Ethereal path tag T → 1 + uplink port; 0 = FIB */
	struct dc_sb_params sb;		/* SmartBuf (include/dcbpf/smartbuf.h); 0 = default */
	struct dc_edt_params edt;	/* EDT (include/dcbpf/edt.h); 0 = default */
	__u32 prio_mode;		/* enum dc_sw_prio_mode: how a packet picks its queue */
	__u32 sly_k_q16;		/* slytherin: mark at K = this fraction of B (Q16) */
	__u32 resq_reserved_bytes;	/* resqueue: the top queue's own buffer, per port */
	struct dc_sw_rv_cfg rv;		/* Reverie (DC_ALG_REVERIE) */
};

/*
 * How a packet's queue is chosen on a switch with queues (dc_sw_cfg.prio_mode,
 * docs/admission.md "Classification modes").  Append only.
 *   DSCP      priority = dscp_prio[DSCP], queue min(priority, N − 1).
 *   SLYTHERIN include/dcbpf/slytherin.h: CE as received or a payload-less
 *             ACK/SYN/FIN → priority DC_SW_SLY_PRIO_HIGH (the top queue),
 *             else priority 0 (queue 0); then CE on ECT packets when the
 *             port's backlog reaches K = sly_k_q16 · B (at TC egress).
 *   RESQUEUE  the DSCP map, and the top queue (ResQueue's level 1) is
 *             admitted against its own resq_reserved_bytes per port
 *             instead of the algorithm (include/dcbpf/resqueue.h).
 */
enum dc_sw_prio_mode {
	DC_SW_PM_DSCP = 0,
	DC_SW_PM_SLYTHERIN = 1,
	DC_SW_PM_RESQUEUE = 2,
	DC_SW_PM_MAX
};
#define DC_SW_SLY_PRIO_HIGH (DC_SW_PRIOS - 1)	/* lands in the top queue for any N */

/* How Credence's and FollowLQD's virtual queues T_i drain (dc_sw_cfg.cred_drain,
 * include/dcbpf/vlqd.h, docs/admission.md "Drain rule").  Append only. */
enum dc_cred_drain {
	DC_DRAIN_TIME = 0,	/* elapsed time × configured port rate */
	DC_DRAIN_DEPART = 1,	/* the real departures; T_i emptied when the real queue is */
	DC_DRAIN_HYBRID = 2,	/* real departures while backlogged, time × rate while idle */
	DC_DRAIN_MAX
};

struct dc_sw_port {
	__u64 qlen_bytes;	/* root qdisc backlog */
	__u64 qlen_pkts;	/* root qdisc packets */
	__u64 tx_bytes;		/* bytes dequeued by the root qdisc, ever */
	__u64 tx_pkts;
	__u64 last_ns;		/* time of the last tracker update (ktime) */
	__u32 rate_mbps;	/* configured port rate (0 = port unused) */
	__u32 port_id;		/* == key; carried by INT hops */
	__u32 ifindex;		/* in the switch's namespace */
	__u32 gamma_q16;	/* ABM normalised drain rate μ/b */
	__u64 thresh_bytes;	/* threshold of the last admission decision */
	__u64 win_tx_bytes;	/* ABM: tx_bytes at the start of the period */
	__u64 win_qlen_bytes;	/* ABM: backlog at the start of the period */
	char ifname[DC_SW_IFNAME_LEN];
};

struct dc_sw_state {
	__u64 occupancy_bytes;	/* Q = Σ port qlen_bytes */
	__u64 occupancy_pkts;
	__u64 abm_last_ns;	/* last ABM periodic update */
	__u64 abm_updates;	/* periodic updates run */
	__u32 abm_congested;	/* n_p: queues at ≥ 0.9 of their threshold (≥ 1) */
	__u32 pad;
	/* nqueues > 1: n_p per queue (= per priority class), each ≥ 1 */
	__u32 abm_congested_q[DC_SW_QUEUES_MAX];
};

/* One strict-priority queue of a port (dc_sw_queue), nqueues > 1. */
struct dc_sw_queue {
	__u64 qlen_bytes;	/* backlog of the queue's HTB leaf */
	__u64 qlen_pkts;
	__u64 tx_bytes;		/* bytes the root HTB gave out from this leaf, ever */
	__u64 tx_pkts;
	__u64 last_ns;		/* time of the last tracker update (ktime) */
	__u64 thresh_bytes;	/* threshold of the last admission decision */
	__u64 win_tx_bytes;	/* ABM: tx_bytes at the start of the period */
	__u64 win_qlen_bytes;	/* ABM: backlog at the start of the period */
	__u32 gamma_q16;	/* ABM normalised drain rate μ/b (0 = 1) */
	__u32 classid;		/* HTB leaf 1:(queue + 1), for bpftool readers */
	__u64 deq_skb;		/* tracker: the skb it last counted out (a requeued
				 * skb is given out twice; counted once) */
};

struct dc_sw_meta {
	__u32 cfg_slot;		/* live slot of dc_sw_cfg (0 or 1) */
	__u32 netns_ino;	/* namespace inode the programs filter on */
	__u32 nports;
	__u32 xdp_flags;	/* XDP_FLAGS_SKB_MODE (generic) or DRV_MODE */
	__u32 xdp_netlink;	/* 1: XDP attached by netlink (no XDP links) */
	__u32 nqueues;		/* strict-priority queues per port; 0 or 1 = one (the root qdisc) */
	char netns[32];		/* name under /var/run/netns */
	char name[DC_SW_NAME_LEN];
	__u32 model_slot;	/* live slot of dc_sw_model (0 or 1) */
	__u32 model_loads;	/* models published so far; 0 = none loaded */
};

/*
 * Credence / FollowLQD state (dc_sw_cred, key 0).  T_bytes[i] is the
 * virtual LQD's queue i (the threshold T_i), gamma_bytes Γ = Σ T_i.
 * Each T_i drains from drain_ns[i] (and the port's tx_bytes drain_tx[i])
 * on, by the rule dc_sw_cfg.cred_drain (docs/admission.md, "Drain
 * rule").  The EWMA features average the arriving packets' q_i and Q
 * over the model's ewma_period_ns.
 */
struct dc_sw_cred {
	__u64 T_bytes[DC_SW_PORTS_MAX];
	__u64 drain_ns[DC_SW_PORTS_MAX];	/* T_i drained up to this time */
	__u64 gamma_bytes;
	__u64 occ_ewma_ns;			/* time of the last Q EWMA update */
	__u64 q_ewma_ns[DC_SW_PORTS_MAX];
	__u32 q_ewma_bytes[DC_SW_PORTS_MAX];	/* EWMA(q_i) */
	__u32 occ_ewma_bytes;			/* EWMA(Q) */
	__u32 pad;
	__u32 rate_mbps[DC_SW_PORTS_MAX];	/* copied from dc_sw_port by XDP */
	__u64 drain_tx[DC_SW_PORTS_MAX];	/* port's tx_bytes when T_i last drained */
};

/*
 * SmartBuf and EDT state (dc_sw_sbuf, key 0): per port the gradient EWMA
 * and Temp entry (SmartBuf) and the controlled/uncontrolled state (EDT),
 * and SmartBuf's Main table shared by all ports.  XDP admission only,
 * written by every CPU without a lock (docs/admission.md, "Races").
 */
struct dc_sw_sbuf {
	struct dc_sb_port sb[DC_SW_PORTS_MAX];
	struct dc_edt_port edt[DC_SW_PORTS_MAX];
	struct dc_sb_main main;
	__u64 samples;		/* queue samples taken (SmartBuf or EDT) */
	__u64 lookups;		/* k-NN scans of Main */
	__u64 inserts;		/* bursts written into Main */
};

/* Scratch of SmartBuf's table scans (dc_sw_sbtmp, per-CPU array, key
 * 0): in map memory rather than on the stack, whose values the verifier
 * tracks so closely that a scan's states never converge. */
struct dc_sw_sbtmp {
	struct dc_sb_knn knn;
	struct dc_sb_ins ins;
};

/*
 * Reverie's state (dc_sw_rv, key 0; include/dcbpf/reverie.h): the pool
 * and one record per queue.  A lossless packet counts in its INGRESS
 * queue (source port, priority), a lossy one in its EGRESS queue
 * (destination port, priority): in[] and eg[], key port·DC_SW_PRIOS +
 * priority.  XDP admission runs the arrival (dc_rv_arrival), the qdisc
 * tracker the departure (dc_rv_departure) when the egress port's root
 * qdisc gives the packet out.  Plain stores from several CPUs: the
 * tracker zeroes every count when the switch's buffer is empty
 * (docs/admission.md, "Reverie in the switch").
 */
struct dc_sw_rvq {
	struct dc_rv_queue q;	/* q_bytes, hdrm_bytes, qhat_q16, level_q16, paused */
	__u64 pauses;		/* PFC pause frames this queue sent (PAUSED entries) */
	__u64 resumes;		/* PFC resume frames */
	__u64 hdrm_pkts;	/* lossless packets admitted into its headroom */
	__u64 hdrm_drops;	/* lossless packets its full headroom dropped */
	__u64 retest_resumes;	/* of resumes: by the re-test at another port's departure */
	__u64 stale_bytes;	/* count the re-test dropped: its packets had all left */
};

/*
 * PFC toward the upstream (dc_sw_pfc, array of DC_SW_PORTS_MAX·DC_SW_PRIOS,
 * key ingress port·DC_SW_PRIOS + priority, BPF_F_MMAPABLE): the pause state
 * of every lossless ingress queue of Reverie and SONiC (in[].q.paused,
 * in[].iq.paused) where the upstream reads it without a system call — the
 * delay line of a fabric wire maps it and holds that priority's frames
 * while `paused` (docs/admission.md, "PFC in the fabric").  Written by XDP
 * (PAUSE, and a refresh on every lossless arrival of a paused queue) and by
 * the qdisc tracker (RESUME; a refresh on every departure while paused);
 * `paused` last.  A PFC pause frame expires unless refreshed: so does this
 * entry, for a reader that honours `write_ns` as the pause's quanta.
 */
struct dc_sw_pfc {
	__u32 paused;		/* 1: the upstream must hold this priority */
	__u32 pauses;		/* PAUSE transitions: a new value is a new pause */
	__u64 pause_ns;		/* bpf_ktime_get_ns (CLOCK_MONOTONIC) of the last PAUSE */
	__u64 write_ns;		/* last write: the PAUSE, a refresh, or the RESUME */
};

struct dc_sw_rv {
	struct dc_rv_pool pool;			/* q*, headroom used, n_c */
	struct dc_sw_rvq in[DC_SW_PORTS_MAX * DC_SW_PRIOS];	/* lossless, by source port */
	struct dc_sw_rvq eg[DC_SW_PORTS_MAX * DC_SW_PRIOS];	/* lossy, by destination port */
	__u64 deq_skb[DC_SW_PORTS_MAX];		/* tracker: last skb counted out per port */
	__u64 resets;				/* counts zeroed on an empty buffer */
	__u64 untracked;			/* departures of packets of no switch port */
	/* the re-test of paused lossless queues (reverie.h dc_rv_retest):
	 * per in[] queue where its last packet went (XDP), and a bit per
	 * in[] queue that may be paused (set at a PAUSE, cleared by the
	 * re-test once the queue runs) */
	struct dc_rv_fifo_pos pos[DC_SW_PORTS_MAX * DC_SW_PRIOS];
	__u64 retest_mask[DC_SW_PORTS_MAX * DC_SW_PRIOS / 64];
};

/* dc_sw_event.flags */
#define DC_SW_EV_SAMPLE 0x01	/* a sampled arrival (any verdict) */
#define DC_SW_EV_DROP 0x02	/* an admission drop */
#define DC_SW_EV_FIRST_RTT 0x04	/* the packet carried the first-RTT mark */

/* One record of dc_sw_events: an arrival at admission, its features and
 * verdict (enum dc_verdict). */
struct dc_sw_event {
	__u64 time_ns;		/* bpf_ktime_get_ns (CLOCK_MONOTONIC) */
	__u64 thresh_bytes;	/* threshold the packet met (T, or T_i) */
	__u32 len;		/* frame bytes */
	__u32 q_bytes;		/* q_i before the packet (saturated) */
	__u32 occ_bytes;	/* Q before the packet */
	__u32 q_ewma_bytes;	/* EWMA(q_i), 0 outside Credence/FollowLQD */
	__u32 occ_ewma_bytes;	/* EWMA(Q) */
	__u16 port;
	__u8 prio;
	__u8 verdict;		/* enum dc_verdict */
	__u8 flags;		/* DC_SW_EV_* */
	__u8 alg;
	__u8 pad[6];
};
#define DC_SW_EVENTS_BYTES (256 * 1024)

/* Route cache (dc_sw_route, hash): destination → egress port, so the
 * FIB is consulted once per destination and 100 ms rather than per
 * packet.  IPv4 destinations are keyed as ::ffff:a.b.c.d. */
/* A port record older than this while it reports a backlog is stale (see
 * dc_stale_fix in bpf/switch.bpf.c); above the coarse clock's tick. */
#define DC_SW_STALE_NS (5ULL * 1000 * 1000)
#define DC_SW_ROUTE_TTL_NS (100ULL * 1000 * 1000)
#define DC_SW_ROUTE_ENTRIES 4096
#define DC_SW_PORT_NONE 0xffffffffU	/* forwarded, but not by a switch port */

struct dc_sw_route_key {
	__u32 daddr[4];		/* network order; IPv4: ::ffff:a.b.c.d with the
				 * packet's Ethereal path tag in daddr[0] */
};

struct dc_sw_route {
	__u64 expires_ns;	/* coarse monotonic clock */
	__u32 port_id;		/* or DC_SW_PORT_NONE */
	__u32 ifindex;		/* egress device the FIB named */
};

/* Per (egress port, priority), per CPU; summed by dcbpf.  Prometheus:
 * dcbpf_sw_port_<name>_total per port, dcbpf_sw_<name>_total per switch
 * for DC_CTR_NOPORT (docs/operations.md). */
#define DC_SW_COUNTERS(X)							\
	X(admit_pkts, 0, "admitted_packets",					\
	  "Packets admitted to the port's queue (all priorities and CPUs).")	\
	X(admit_bytes, 0, "admitted_bytes", "Bytes admitted to the port's queue.") \
	X(drop_thresh_pkts, 0, "dropped_packets{reason=\"threshold\"}",	\
	  "Packets dropped by admission: the queue would exceed its threshold.") \
	X(drop_full_pkts, 0, "dropped_packets{reason=\"buffer_full\"}",	\
	  "Packets dropped by admission: the shared buffer would overflow.")	\
	X(drop_bytes, 0, "dropped_bytes", "Bytes dropped by buffer admission.") \
	X(ecn_marked_pkts, 0, "ecn_marked_packets",				\
	  "Packets marked CE above ecn_k_bytes.")				\
	X(first_rtt_pkts, 0, "first_rtt_packets",				\
	  "Packets carrying the first-RTT mark, admitted or not.")		\
	X(other_pkts, DC_CTR_NOPORT, "other_packets",				\
	  "Packets XDP passed without admission (not IP, malformed, no route, " \
	  "not to a switch port).")						\
	X(drop_pred_pkts, 0, "dropped_packets{reason=\"prediction\"}",		\
	  "Packets dropped by admission: Credence predicted a drop.")		\
	X(pred_asked_pkts, 0, "prediction_asked_packets",			\
	  "Packets for which Credence consulted its model.")			\
	X(pred_nomodel_pkts, 0, "prediction_no_model_packets",			\
	  "Packets Credence would have asked a model about, admitted: none loaded.") \
	X(safeguard_pkts, 0, "safeguard_packets",				\
	  "Packets Credence admitted by the B/N safeguard.")			\
	X(ev_lost, 0, "events_lost",						\
	  "Events the ring buffer had no room for.")

struct dc_sw_counters {
	DC_SW_COUNTERS(DC_CTR_FIELD)
};

#endif
