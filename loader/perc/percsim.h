/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The s-PERC model in user space: topology files, the max-min oracle
 * (water-filling and the WF^k depths of "Proactive Congestion Control",
 * Jose, Ch. 3.4, Alg. 7) and an asynchronous simulator of the control
 * protocol that runs the link update of include/dcbpf/perc.h, the code
 * the TC link program runs.  Library code: no printing; errors come back
 * in a struct dc_err.  Format: docs/perc.md.
 */
#ifndef DCBPF_PERC_PERCSIM_H
#define DCBPF_PERC_PERCSIM_H

#include <stdbool.h>
#include <linux/types.h>

#include "err.h"
#include "dcbpf/perc.h"

#define DC_PT_LINKS_MAX 1024
#define DC_PT_FLOWS_MAX 4096
#define DC_PT_NAME_LEN 32
#define DC_PT_NEVER (-1.0)	/* a flow without fin= */

struct dc_pt_link {
	char name[DC_PT_NAME_LEN];
	__u64 cap_kbps;
};

struct dc_pt_flow {
	char name[DC_PT_NAME_LEN];
	__u32 nhops;
	__u32 path[DC_PERC_MAX_HOPS];	/* link indices, forward order */
	double start_rounds;		/* start=R (0 if absent) */
	double fin_rounds;		/* fin=R, or DC_PT_NEVER */
};

struct dc_pt_topo {
	__u32 nlinks, nflows;
	struct dc_pt_link *links;
	struct dc_pt_flow *flows;
};

/* Parse a topology file.  0, or EXIT_USAGE with "FILE:LINE: reason"
 * (EXIT_ERR when the file cannot be read). */
int dc_pt_load(const char *path, struct dc_pt_topo *t, struct dc_err *err);
/* The same from text in memory (name: what messages call it). */
int dc_pt_parse(const char *text, const char *name, struct dc_pt_topo *t, struct dc_err *err);
void dc_pt_free(struct dc_pt_topo *t);

/* ---- oracle ---- */
#define DC_PT_WF_INF 0	/* k for plain water-filling (WF^∞) */

struct dc_pt_oracle {
	__u32 *rate_kbps;	/* per flow; 0 for flows not active */
	__u32 *bneck;		/* per flow: a link that removed it (its bottleneck) */
	__u32 iters;		/* WF^k iterations */
};

/*
 * Max-min rates of the flows with active[f] (NULL: all) by WF^k (Alg. 7):
 * k = DC_PT_WF_INF is water-filling, 1 CPG, 2 the WF^2 whose depth bounds
 * s-PERC (Thm 3.4.4: 6·W² rounds).  Rates are floors in kbps, the
 * remaining capacity reduced by the floored rates, as the links compute
 * them; ties between link rates are compared exactly (C·N cross products).
 * o->rate_kbps and o->bneck are allocated here (dc_pt_oracle_free).
 * 0, or EXIT_ERR (out of memory).
 */
int dc_pt_waterfill(const struct dc_pt_topo *t, const bool *active, unsigned int k,
		    struct dc_pt_oracle *o, struct dc_err *err);
void dc_pt_oracle_free(struct dc_pt_oracle *o);

/* ---- simulator ---- */
struct dc_pt_simcfg {
	__u32 mode;		/* DC_PERC_M_* of every link */
	__u64 seed;
	__u64 delay_min_ns, delay_max_ns;	/* per hop, uniform */
	double drop;		/* per-hop control drop probability ... */
	double drop_until_rounds;	/* ... before this time */
	double rto_rounds;	/* sender restarts a flow whose packet is this late */
	double run_rounds;	/* run this long after the last start/fin */
};

void dc_pt_simcfg_defaults(struct dc_pt_simcfg *c);

struct dc_pt_flowres {
	__u32 rate_kbps;	/* the sender's rate at the end (min a of the last packet) */
	__u32 expect_kbps;	/* max-min rate of the final flow set (0 if finished) */
	bool active;		/* not finished at the end */
	bool converged;		/* rate == expect at the end */
	double rounds;		/* from the reference time to the last rate change */
	__u64 restarts;		/* RTO restarts */
};

struct dc_pt_simres {
	__u64 round_ns;		/* worst-case control RTT: 2 · max hops · delay_max */
	__u64 end_ns;
	double ref_rounds;	/* last start/fin, or last drop if later */
	__u64 updates;		/* link updates */
	__u64 drops;
	__u32 w1, w2, winf;	/* WF^1, WF^2, water-filling depth of the final set */
	double max_rounds;	/* over active flows */
	bool all_converged;
	struct dc_pt_flowres *flow;	/* per flow */
	struct dc_perc_state *link;	/* per link at the end (resets applied to end_ns) */
};

/* Run to the end: every start and fin, then run_rounds more.  0, or
 * EXIT_ERR.  res->flow and res->link allocated here (dc_pt_simres_free). */
int dc_pt_simulate(const struct dc_pt_topo *t, const struct dc_pt_simcfg *c,
		   struct dc_pt_simres *res, struct dc_err *err);
/* The same, stopping at stop_rounds (< 0: the end) and filling res as of then. */
int dc_pt_simulate_until(const struct dc_pt_topo *t, const struct dc_pt_simcfg *c,
			 double stop_rounds, struct dc_pt_simres *res, struct dc_err *err);
void dc_pt_simres_free(struct dc_pt_simres *r);

#endif
