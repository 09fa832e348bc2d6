/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the simulator tests share (tests/unit/test_sim.c, test_sim_io.c):
 * arrivals built by hand, unit configurations, and the admission model
 * written apart from the simulator that both are held to.
 */
#ifndef DCBPF_TESTS_SIMFIX_H
#define DCBPF_TESTS_SIMFIX_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "credence/credence.h"
#include "sim/simcmd.h"

static struct dc_err serr;

#define Q16(x) ((__u32)((x) * 65536.0 + 0.5))

static struct dc_sim_arrival arr[200000];
static size_t narr;

static inline void add(__u32 slot, __u16 port, __u8 prio, __u32 bytes)
{
	arr[narr++] = (struct dc_sim_arrival){ .slot = slot, .port = port, .prio = prio,
					       .bytes = bytes };
}

static inline struct dc_sim_cfg unit_cfg(__u32 alg, __u32 nports, __u64 B, double alpha)
{
	struct dc_sim_cfg c;
	unsigned int i;

	dc_sim_cfg_defaults(&c);
	c.alg = alg;
	c.nports = nports;
	c.buffer = B;
	for (i = 0; i < DC_SW_PRIOS; i++)
		c.alpha_q16[i] = Q16(alpha);
	return c;
}

/*
 * The model as the docs state it, written apart from the simulator: unit
 * packets; per slot the arrivals in order, each admitted iff it fits
 * (Q < B) and, under DT, q < α_prio·(B − Q) (compared in double: the α
 * used here are dyadic, so the product is exact); then one packet leaves
 * each non-empty queue.  Runs nslots slots; q[] and the number sent out.
 */
static inline __u64 ref_unit(__u32 alg, const double *alpha, __u32 nports, __u64 B,
		      const struct dc_sim_arrival *a, size_t n, __u64 nslots, __u64 *q)
{
	__u64 Q = 0, sent = 0, t;
	size_t k = 0;
	__u32 p;

	memset(q, 0, nports * sizeof(*q));
	for (t = 0; t < nslots; t++) {
		for (; k < n && a[k].slot == t; k++) {
			__u64 *qi = &q[a[k].port];

			if (Q < B && (alg == DC_ALG_CS ||
				      (double)*qi < alpha[a[k].prio] * (double)(B - Q))) {
				(*qi)++;
				Q++;
			}
		}
		for (p = 0; p < nports; p++) {
			if (q[p]) {
				q[p]--;
				Q--;
				sent++;
			}
		}
	}
	return sent;
}

/* dc_sim_run and ref_unit on the same arrivals: every port's final queue
 * and the packets sent equal. */
static inline void same_as_ref(const char *name, const struct dc_sim_cfg *c, const double *alpha,
			__u64 nslots, const struct dc_sim_result *r)
{
	__u64 q[DC_SIM_PORTS_MAX], sent = ref_unit(c->alg, alpha, c->nports, c->buffer, arr, narr,
						     nslots, q);
	__u32 p, bad = c->nports;

	for (p = 0; p < c->nports; p++)
		if (q[p] != r->port[p].final_q) {
			bad = p;
			break;
		}
	CHECK(name, sent == r->sent_pkts && bad == c->nports,
	      "sent %llu (model %llu); port %u: q %llu (model %llu)", (unsigned long long)r->sent_pkts,
	      (unsigned long long)sent, bad, bad < c->nports ? (unsigned long long)r->port[bad].final_q : 0,
	      bad < c->nports ? (unsigned long long)q[bad] : 0);
}

/* n overloaded queues: 2 arrivals and 1 departure per slot (T-DT1). */
static inline __u64 overload(__u32 alg, double alpha, __u32 n, __u32 slots, struct dc_sim_result *r)
{
	struct dc_sim_cfg c = unit_cfg(alg, n, 1200, alpha);
	__u32 t, p;

	narr = 0;
	for (t = 0; t < slots; t++)
		for (p = 0; p < n; p++) {
			add(t, (__u16)p, 0, 1);
			add(t, (__u16)p, 0, 1);
		}
	dc_sim_run(&c, arr, narr, slots, r, &serr);
	return r->port[0].final_q;
}

#endif
