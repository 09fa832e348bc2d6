/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * dcbpf sim: trace-driven simulator of a shared-buffer output-queued
 * switch running the admission core of include/dcbpf/admit.h.
 *
 * Model (docs/admission.md, "Simulator"): discrete timeslots; per slot an
 * arrival phase then a departure phase.  Unit mode: packets are one unit,
 * B counts packets, each non-empty queue sends one packet per slot.  Byte
 * mode: packets carry sizes, B is in bytes, each port may send
 * slot_bytes per slot (whole packets, unused credit is not kept).  One
 * queue per port unless cfg.nqueues > 1 (strict priority); a packet's
 * priority selects its α.
 *
 * Library code: errors come back in a struct dc_err (lib/err.h), nothing
 * is printed.  Needs libc and the error type only, so the unit tests link
 * it directly.  The `dcbpf sim` command is in simcmd.h, its options in
 * simopts.h.
 */
#ifndef DCBPF_SIM_SIM_H
#define DCBPF_SIM_SIM_H

#include <stddef.h>
#include <stdio.h>
#include <dcbpf/admit.h>
#include <dcbpf/forest.h>

#include "err.h"

#define DC_SIM_PORTS_MAX 64

enum dc_sim_mode { DC_SIM_UNIT = 0, DC_SIM_BYTE = 1 };

struct dc_sim_cfg {
	__u32 alg;			/* enum dc_alg */
	__u32 mode;			/* enum dc_sim_mode */
	__u32 nports;
	__u64 buffer;			/* B: packets (unit) or bytes */
	__u32 alpha_q16[DC_SW_PRIOS];
	__u32 alpha_first_rtt_q16;
	__u32 abm_period_slots;		/* ABM n_p and γ update period */
	__u32 slot_bytes;		/* byte mode: bytes a port sends per slot */
	__u32 occ_bins;			/* occupancy histogram resolution */
	/* Credence's drop predictor (enum dc_sim_pred), and a flip of each
	 * prediction with probability flip_q32 / 2^32 (seeded PRNG). */
	__u32 predictor;
	__u64 flip_q32;
	__u64 pred_seed;
	/* DC_SIM_PRED_FOREST: the model, evaluated on the arriving packet's
	 * features (docs/credence.md, "Features"); not owned. */
	const struct dc_rf_model *model;
	/* Time of a slot in ns: the EWMA features weigh slots by it. */
	__u64 slot_ns;
	/* EWMA period of recorded features when no model gives one (ns). */
	__u32 ewma_period_ns;
	/* After the last slot, keep departing (no arrivals) until every
	 * queue is empty; result.slots counts those slots too.  `dcbpf sim
	 * --trace` sets it unless --no-drain. */
	bool drain;
	/* SmartBuf and EDT (include/dcbpf/smartbuf.h, edt.h; 0 = default).
	 * Both sample the queue at each arrival: q before it, at slot ×
	 * slot_ns (a slot's later arrivals are not new samples). */
	struct dc_sb_params sb;
	struct dc_edt_params edt;
	/* Strict-priority queues per port (0 or 1: one, as before): priority
	 * p joins queue min(p, nqueues − 1) of its port, a port sends from its
	 * highest non-empty queue first, and every algorithm decides per
	 * (port, queue) with that queue's q (include/dcbpf/admit.h).  The
	 * result's rows are then the queues, row = port · nqueues + queue. */
	__u32 nqueues;
};

/* What Credence's prediction is made from.  ORACLE: "LQD, serving the
 * same arrivals, would drop (or push out) this packet" (docs/credence.md),
 * from an LQD run of the same trace. */
enum dc_sim_pred {
	DC_SIM_PRED_ORACLE = 0,
	DC_SIM_PRED_DROP = 1,		/* always "drop" (worst false positives) */
	DC_SIM_PRED_ACCEPT = 2,		/* always "accept" */
	DC_SIM_PRED_FOREST = 3,		/* cfg.model on the packet's features */
};

/* One arriving packet. */
struct dc_sim_arrival {
	__u32 slot;
	__u16 port;
	__u8 prio;
	__u8 first_rtt;
	__u32 bytes;			/* ignored in unit mode */
};

struct dc_sim_port_res {
	__u64 arrivals, admitted, sent_pkts, sent_bytes;
	__u64 drop_thresh, drop_full, pushed_out, first_rtt_drops;
	__u64 drop_pred;		/* Credence: dropped on a prediction */
	__u64 max_q, final_q;
};

struct dc_sim_result {
	__u32 nports;
	__u64 slots;
	__u64 arrivals, admitted, sent_pkts, sent_bytes;
	__u64 drops, pushed_out, first_rtt_arrivals, first_rtt_drops;
	__u64 occ_p50, occ_p90, occ_p99, occ_max;	/* shared occupancy per slot */
	__u64 prio_arrivals[DC_SW_PRIOS], prio_drops[DC_SW_PRIOS];	/* drops incl. push-outs */
	/* Credence: predictions consulted, and how they compare with LQD's
	 * fate of the packet (positive = "drop"; oracle predictor only). */
	__u64 pred_asked, pred_tp, pred_fp, pred_tn, pred_fn;
	/* Incast queries of a generated workload (dc_sim_query_stats): those
	 * with at least one response packet, and those none of whose packets
	 * was dropped or pushed out.  Open loop, a lost packet is never sent
	 * again: a query that loses one is a query a transport would finish
	 * only after a retransmission timeout (Credence, NSDI'24, §4: the
	 * 95-percentile completion of incast flows is its burst-absorption
	 * metric). */
	__u64 incast_queries, incast_whole;
	double seconds;				/* wall time of the run */
	double decisions_per_s;			/* arrivals / seconds */
	struct dc_sim_port_res port[DC_SIM_PORTS_MAX];
};

void dc_sim_cfg_defaults(struct dc_sim_cfg *c);
/* Run arrivals (sorted by slot) for nslots slots (at least until the last
 * arrival), then, with c->drain, until the buffer is empty.  Returns 0, or
 * the exit code (cli.h) with err saying why. */
int dc_sim_run(const struct dc_sim_cfg *c, const struct dc_sim_arrival *a, size_t n,
	       __u64 nslots, struct dc_sim_result *r, struct dc_err *err);
/* The same, with Credence's predictions given per arrival (pred[k] != 0:
 * "drop"; NULL: from c->predictor) and, if fate is not NULL, fate[k] = 1
 * for each arrival dropped or pushed out, 0 for one sent or still queued
 * at the end. */
int dc_sim_run_ex(const struct dc_sim_cfg *c, const struct dc_sim_arrival *a, size_t n,
		  __u64 nslots, struct dc_sim_result *r, const __u8 *pred, __u8 *fate,
		  struct dc_err *err);
/* Run c->alg and record each arrival's feature vector as the switch saw
 * it on arrival (x[k], bytes: q_i, Q, their time-weighted EWMAs over
 * c->model's or else c->ewma_period_ns; docs/credence.md) and, if not
 * NULL, its fate as dc_sim_run_ex gives it and asked[k] = 1 where
 * Credence consulted its predictor for it. */
int dc_sim_features(const struct dc_sim_cfg *c, const struct dc_sim_arrival *a, size_t n,
		    __u64 nslots, __u32 (*x)[DC_RF_FEATURES], __u8 *fate, __u8 *asked,
		    struct dc_err *err);
/* LQD's fate of every arrival (the oracle's labels); malloc'd. */
int dc_sim_lqd_labels(const struct dc_sim_cfg *c, const struct dc_sim_arrival *a, size_t n,
		      __u64 nslots, __u8 **labels, struct dc_err *err);

/* Workloads and traces (simwork.c, simtrace.c). */
struct dc_sim_workload {
	const char *kind;		/* websearch | incast | mix */
	__u64 seed;
	__u64 slots;
	double load;			/* websearch load per input port, 0..1 */
	double incast_frac;		/* burst size as a fraction of B */
	__u32 incast_senders;		/* inputs answering each query */
	__u32 incast_period;		/* mean slots between queries */
	__u32 first_rtt_pkts;		/* first packets of a flow marked first-RTT */
	__u32 incast_prio;		/* priority of incast responses (default 1, same α) */
	__u32 mtu;			/* byte mode packet size */
};

void dc_sim_workload_defaults(struct dc_sim_workload *w);
/* Count r->incast_queries and r->incast_whole from each arrival's query
 * number (query[k], 0 = background) and its fate (dc_sim_run_ex).
 * 0, or EXIT_ERR out of memory. */
int dc_sim_query_stats(const __u32 *query, const __u8 *fate, size_t n, struct dc_sim_result *r,
		       struct dc_err *err);
/* The arrivals of a generated workload (malloc'd).  0, or the exit code
 * with err: EXIT_USAGE for a workload it cannot make, EXIT_ERR out of memory. */
int dc_sim_generate(const struct dc_sim_cfg *c, const struct dc_sim_workload *w,
		    struct dc_sim_arrival **out, size_t *n, struct dc_err *err);
/* The same arrivals and, in *query (malloc'd), each one's incast query
 * number: 1, 2, ... in the order the queries were made, 0 for web search. */
int dc_sim_generate_q(const struct dc_sim_cfg *c, const struct dc_sim_workload *w,
		      struct dc_sim_arrival **out, size_t *n, __u32 **query, struct dc_err *err);
/* CSV whose header names its columns, in any order: timeslot or time_ns
 * (slot = time_ns / slot_ns), port, priority, bytes, optional first_rtt
 * (docs/admission.md, "Trace replay"), or a binary trace (below).  0, or
 * EXIT_ERR with err naming the file, the line and what is wrong. */
int dc_sim_read_trace(const char *path, __u64 slot_ns, struct dc_sim_arrival **out, size_t *n,
		      struct dc_err *err);
int dc_sim_write_trace(const char *path, const struct dc_sim_arrival *a, size_t n,
		       struct dc_err *err);
/* The binary form (docs/admission.md, "Binary traces"): the records as
 * they lie in memory after a 32-byte header; a must be sorted by slot. */
int dc_sim_write_trace_bin(const char *path, const struct dc_sim_arrival *a, size_t n,
			   struct dc_err *err);
/* A trace of either form: a binary one is mapped (read-only, not copied),
 * a CSV one read into memory.  dc_sim_read_trace above accepts both too
 * and always hands out a malloc'd copy. */
struct dc_sim_trace {
	struct dc_sim_arrival *a;
	size_t n;
	void *map;			/* the mapping of a binary trace, else NULL */
	size_t map_len;
};
int dc_sim_trace_load(const char *path, __u64 slot_ns, struct dc_sim_trace *t, struct dc_err *err);
void dc_sim_trace_release(struct dc_sim_trace *t);

const char *dc_alg_name(__u32 alg);
/* "oracle", "drop", "accept", "forest" */
const char *dc_sim_pred_name(__u32 pred);

#endif
