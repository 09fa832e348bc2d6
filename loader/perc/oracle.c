// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The max-min oracle: WF^k ("Proactive Congestion Control", Jose,
 * Ch. 3.4, Alg. 7).  Each iteration computes R[l] = C[l]/N[l] for the links
 * still carrying flows, removes every link whose R is the smallest among
 * its neighbours up to degree k (all links for water-filling), gives its
 * flows R[l], and takes those flows off every link they cross.  Every k
 * gives the max-min rates (Thm 3.4.2); the iteration counts differ: W¹ = D
 * (CPG), W² bounds s-PERC (Thm 3.4.4), W = W^∞.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "perc/percsim.h"

/* a/na < b/nb, exactly (capacities < 2^32 kbps, counts < 2^13). */
static int cmp_rate(__u64 a, __u32 na, __u64 b, __u32 nb)
{
	unsigned __int128 x = (unsigned __int128)a * nb, y = (unsigned __int128)b * na;

	return x < y ? -1 : x > y;
}

int dc_pt_waterfill(const struct dc_pt_topo *t, const bool *active, unsigned int k,
		    struct dc_pt_oracle *o, struct dc_err *err)
{
	__u32 nl = t->nlinks, nf = t->nflows, l, f, h, m;
	__u64 *cap = calloc(nl, sizeof(*cap));
	__u32 *num = calloc(nl, sizeof(*num)), *depth = calloc(nl, sizeof(*depth));
	__u32 *queue = calloc(nl, sizeof(*queue));
	bool *live = calloc(nf, sizeof(*live)), *rm_l = calloc(nl, sizeof(*rm_l));
	bool *rm_f = calloc(nf, sizeof(*rm_f));
	int rc = 0;

	memset(o, 0, sizeof(*o));
	o->rate_kbps = calloc(nf ? nf : 1, sizeof(*o->rate_kbps));
	o->bneck = calloc(nf ? nf : 1, sizeof(*o->bneck));
	if (!cap || !num || !depth || !queue || !live || !rm_l || !rm_f || !o->rate_kbps || !o->bneck) {
		rc = dc_err_set(err, EXIT_ERR, "out of memory");
		dc_pt_oracle_free(o);
		goto out;
	}
	for (l = 0; l < nl; l++)
		cap[l] = t->links[l].cap_kbps;
	for (f = 0; f < nf; f++) {
		live[f] = !active || active[f];
		if (live[f])
			for (h = 0; h < t->flows[f].nhops; h++)
				num[t->flows[f].path[h]]++;
	}
	for (;;) {
		bool any = false;
		__u32 gl = 0;

		for (l = 0; l < nl; l++)
			if (num[l] && (!any || cmp_rate(cap[l], num[l], cap[gl], num[gl]) < 0)) {
				gl = l;
				any = true;
			}
		if (!any)
			break;
		o->iters++;
		memset(rm_l, 0, nl * sizeof(*rm_l));
		memset(rm_f, 0, nf * sizeof(*rm_f));
		for (l = 0; l < nl; l++) {
			__u32 qh = 0, qt = 0;
			bool lowest = true;

			if (!num[l])
				continue;
			if (k == DC_PT_WF_INF) {
				rm_l[l] = cmp_rate(cap[l], num[l], cap[gl], num[gl]) == 0;
				continue;
			}
			/* Breadth first over links sharing a live flow, to depth k. */
			for (m = 0; m < nl; m++)
				depth[m] = ~0u;
			depth[l] = 0;
			queue[qt++] = l;
			while (qh < qt && lowest) {
				__u32 x = queue[qh++];

				if (cmp_rate(cap[x], num[x], cap[l], num[l]) < 0) {
					lowest = false;
					break;
				}
				if (depth[x] == k)
					continue;
				for (f = 0; f < nf; f++) {
					const struct dc_pt_flow *fl = &t->flows[f];
					bool on = false;

					if (!live[f])
						continue;
					for (h = 0; h < fl->nhops; h++)
						on |= fl->path[h] == x;
					if (!on)
						continue;
					for (h = 0; h < fl->nhops; h++) {
						__u32 y = fl->path[h];

						if (depth[y] == ~0u) {
							depth[y] = depth[x] + 1;
							queue[qt++] = y;
						}
					}
				}
			}
			rm_l[l] = lowest;
		}
		/* The removed links' flows get their link's rate (Alg. 7 lines 13-17). */
		for (l = 0; l < nl; l++) {
			if (!rm_l[l])
				continue;
			for (f = 0; f < nf; f++) {
				const struct dc_pt_flow *fl = &t->flows[f];

				if (!live[f] || rm_f[f])
					continue;
				for (h = 0; h < fl->nhops; h++)
					if (fl->path[h] == l) {
						rm_f[f] = true;
						o->rate_kbps[f] = (__u32)(cap[l] / num[l]);
						o->bneck[f] = l;
					}
			}
		}
		/* Lines 18-22: off every link they cross. */
		for (f = 0; f < nf; f++) {
			const struct dc_pt_flow *fl = &t->flows[f];

			if (!rm_f[f])
				continue;
			live[f] = false;
			for (h = 0; h < fl->nhops; h++) {
				cap[fl->path[h]] -= o->rate_kbps[f];
				num[fl->path[h]]--;
			}
		}
	}
out:
	free(cap);
	free(num);
	free(depth);
	free(queue);
	free(live);
	free(rm_l);
	free(rm_f);
	return rc;
}

void dc_pt_oracle_free(struct dc_pt_oracle *o)
{
	free(o->rate_kbps);
	free(o->bneck);
	o->rate_kbps = NULL;
	o->bneck = NULL;
}
