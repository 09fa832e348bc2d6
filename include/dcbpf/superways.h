/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Superways placement planner: which servers host the incast applications
 * (aggregators) and how many extra server-to-spine links each one gets.
 * Source: H. Rezaei, "Adaptive Microburst Control Techniques in
 * Incast-Heavy Datacenter Networks", PhD thesis, UIC 2021, §3.4.1
 * (Eqs. 3.2-3.9, Table II, the greedy bin packing) — Superways, WWW'21.
 *
 * User space only (dcbpf superways plan, host tests): an offline plan, so
 * plain doubles; nothing here runs in BPF.
 *
 * Symbols (Table II), units beside them:
 *   alpha   jitter factor: the fraction of an incast's senders that send
 *           at the same instant (0 < alpha <= 1; 0.8 in the text)
 *   s       average flow size, bytes
 *   B_l B_s per-port buffer at the leaf / spine, bytes
 *   theta   spine link speed / leaf link speed (>= 1)
 *   d       an application's average incast degree (senders)
 *   beta    local senders (same rack as the aggregator) / all senders
 *   U_l     fraction of the leaf port's buffer the burst occupies
 *   N       senders the leaf->server port takes without a drop
 *   L       extra links (fractional; ceil(L) are provisioned)
 *   r_s r_l residual buffer on the extra links / on the leaf port, bytes
 *
 * The procedure (one incast server at a time, applications sorted by d,
 * descending; servers taken in input order: racks closest to the spines
 * first, then the servers of a rack):
 *   Eq. 3.2  U_l = alpha * (beta * d) * s / B_l    (local senders alone)
 *   U_l > 1 (§3.4.1.1): the local senders overflow the leaf port.
 *     Eq. 3.3  alpha * N * s / B_l = 1  ->  N = B_l / (alpha * s)
 *     Eq. 3.4  beta = floor(N) / d     (floor N senders stay on the leaf)
 *     Eq. 3.5  L = alpha * ((1 - beta) * d) * s / (theta * B_s)
 *     Eq. 3.6  r_s = B_s * (ceil(L) - L)
 *   U_l <= 1 (§3.4.1.2):
 *     Eq. 3.7  r_l = B_l * (1 - U_l)
 *     Eq. 3.8  U_l = alpha * ((1 - beta) * d) * s / r_l   (the remote senders)
 *     Eq. 3.8 result > 1: Eqs. 3.3-3.6 as above.
 *     Eq. 3.8 result <= 1: every sender uses the leaf port, no extra link;
 *       Eq. 3.9 r_l = ceil(U_l) - U_l.
 *   Then the bin packing: down the sorted list of the applications not
 *   yet placed, an application with alpha * d * s / (theta * r_s) < 1
 *   (extra links) or alpha * d * s / r_l < 1 (leaf port only) joins the
 *   server, all of its senders on that path.  When none fits, the next
 *   application opens the next server.
 *
 * Two readings of the text, made explicit here:
 *  - Eq. 3.9 as printed is dimensionless (a fraction of a buffer) while
 *    Eq. 3.7 is in bytes.  It is read as the fraction of the residual
 *    r_l that stays free: r_l <- r_l * (ceil(U_l) - U_l), bytes.  With
 *    0 <= U_l <= 1 that is r_l * (1 - U_l) = r_l - alpha*(1-beta)*d*s
 *    (ceil taken as 1 for U_l = 0, where nothing is used).  The plan
 *    prints the printed fraction too (r_l_frac).
 *  - "We update the value of r_s after assigning the second incast
 *    application (using Equation 3.5 and Equation 3.6)": r_s is updated
 *    after every application that joins, from the server's running total
 *    L_tot += alpha * d * s / (theta * B_s) and r_s = B_s * (ceil(L_tot) -
 *    L_tot).  Because an application joins only when it fits in r_s,
 *    ceil(L_tot) never grows: this equals r_s <- r_s - alpha * d * s /
 *    theta, and the link count stays the one Eq. 3.5 gave.
 *
 * ceil and floor take DC_SWAY_EPS of slack so that a value that is an
 * integer in exact arithmetic (L = 2 computed as 2.0000000000000004) is
 * not pushed to the next integer.
 */
#ifndef DCBPF_SUPERWAYS_H
#define DCBPF_SUPERWAYS_H

#include <math.h>
#include <stdbool.h>
#include <string.h>

#define DC_SWAY_APPS_MAX		256
#define DC_SWAY_RACKS_MAX		256
#define DC_SWAY_NAME_LEN		32
#define DC_SWAY_EPS		1e-9

struct dc_sway_params {
	double alpha;		/* jitter factor, (0, 1] */
	double s_bytes;		/* average flow size */
	double bl_bytes;	/* leaf per-port buffer */
	double bs_bytes;	/* spine per-port buffer */
	double theta;		/* spine / leaf link speed, >= 1 */
};

struct dc_sway_app {
	char name[DC_SWAY_NAME_LEN];
	double d;		/* average incast degree, senders */
	double local;		/* of them in the aggregator's rack: beta = local / d */
};

struct dc_sway_rack {
	char name[DC_SWAY_NAME_LEN];
	unsigned int servers;	/* servers in the rack that may host incast applications */
};

enum dc_sway_case {
	DC_SWAY_LEAF = 1,		/* U_l <= 1 and Eq. 3.8 <= 1: leaf port only, no extra link */
	DC_SWAY_LOCAL_OVER,	/* U_l > 1 (§3.4.1.1) */
	DC_SWAY_REMOTE_OVER,	/* U_l <= 1, Eq. 3.8 > 1 (§3.4.1.2, second half) */
};

/* One incast server: the values of its first (highest-d) application and
 * what the packing left.  Fields that do not apply to the case are NaN. */
struct dc_sway_server {
	unsigned int rack;	/* index into the racks */
	unsigned int slot;	/* server within the rack, from 0 */
	unsigned int head;	/* application that opened it */
	enum dc_sway_case kase;
	double beta_in;		/* local / d of the head */
	double u_l;		/* Eq. 3.2 */
	double r_l0;		/* Eq. 3.7, bytes (U_l <= 1) */
	double u_l_remote;	/* Eq. 3.8 (U_l <= 1) */
	double n;		/* Eq. 3.3 (extra links) */
	double beta;		/* Eq. 3.4 (extra links) */
	double l;		/* Eq. 3.5 for the head (extra links) */
	double r_s0;		/* Eq. 3.6 for the head, bytes (extra links) */
	double r_l_frac;	/* Eq. 3.9 as printed, dimensionless (leaf only) */
	/* after the packing */
	unsigned int links;	/* ceil(L): extra links to one spine */
	double l_tot;		/* L of every application on the server */
	double r_s;		/* bytes still free on the extra links */
	double r_l;		/* bytes still free on the leaf port (leaf only) */
	unsigned int napps;
};

/* Where an application went and why. */
struct dc_sway_place {
	unsigned int server;	/* index into plan->srv */
	bool head;		/* opened the server */
	double fit;		/* joined: alpha*d*s/(theta*r_s) or alpha*d*s/r_l before it joined */
	unsigned int order;	/* position on its server, from 0 */
};

struct dc_sway_plan {
	unsigned int nservers;
	unsigned int links;		/* sum of ceil(L) */
	unsigned int order[DC_SWAY_APPS_MAX];	/* applications by d, descending */
	struct dc_sway_server srv[DC_SWAY_APPS_MAX];
	struct dc_sway_place place[DC_SWAY_APPS_MAX];
	int unplaced;			/* an application with no server left, else -1 */
};

static inline double dc_sway_ceil(double x)
{
	return ceil(x - DC_SWAY_EPS);
}

static inline double dc_sway_floor(double x)
{
	return floor(x + DC_SWAY_EPS);
}

/* Eq. 3.2 / 3.8: the burst of k senders over a buffer of buf bytes. */
static inline double dc_sway_util(const struct dc_sway_params *p, double k, double buf)
{
	return p->alpha * k * p->s_bytes / buf;
}

/* Eq. 3.3: senders a leaf port holds without a drop. */
static inline double dc_sway_n(const struct dc_sway_params *p)
{
	return p->bl_bytes / (p->alpha * p->s_bytes);
}

/* Eq. 3.5: extra links for k senders. */
static inline double dc_sway_l(const struct dc_sway_params *p, double k)
{
	return p->alpha * k * p->s_bytes / (p->theta * p->bs_bytes);
}

/* Eq. 3.6: ceil(L) links and what stays free of them, bytes. */
static inline double dc_sway_links(double l, double bs_bytes, unsigned int *links)
{
	double c = dc_sway_ceil(l);

	if (c < 0)
		c = 0;
	*links = (unsigned int)c;
	return bs_bytes * (c - l) > 0 ? bs_bytes * (c - l) : 0;
}

/* NULL: usable; else the reason. */
static inline const char *dc_sway_params_check(const struct dc_sway_params *p)
{
	if (!(p->alpha > 0 && p->alpha <= 1))
		return "alpha (jitter factor) must be in (0, 1]";
	if (!(p->s_bytes >= 1))
		return "flow size s must be at least 1 byte";
	if (!(p->bl_bytes >= 1))
		return "leaf buffer B_l must be at least 1 byte";
	if (!(p->bs_bytes >= 1))
		return "spine buffer B_s must be at least 1 byte";
	if (!(p->theta >= 1))
		return "theta (spine/leaf speed) must be at least 1";
	if (!(p->bl_bytes >= p->alpha * p->s_bytes))
		return "leaf buffer B_l is below one flow (alpha * s): N would be 0";
	return NULL;
}

static inline const char *dc_sway_app_check(const struct dc_sway_app *a)
{
	if (!(a->d >= 1) || !isfinite(a->d))
		return "incast degree d must be at least 1";
	if (!(a->local >= 0) || !(a->local <= a->d))
		return "local senders must be between 0 and d";
	return NULL;
}

/* Eqs. 3.3-3.6 on server v for its head application a. */
static inline void dc_sway_extra(const struct dc_sway_params *p, const struct dc_sway_app *a,
			       struct dc_sway_server *v)
{
	double nf;

	v->n = dc_sway_n(p);
	nf = dc_sway_floor(v->n);
	v->beta = nf / a->d;
	if (v->beta > 1)	/* cannot happen when the port overflows; kept safe */
		v->beta = 1;
	v->l = dc_sway_l(p, (1 - v->beta) * a->d);
	v->r_s0 = dc_sway_links(v->l, p->bs_bytes, &v->links);
	v->l_tot = v->l;
	v->r_s = v->r_s0;
}

/*
 * The plan.  apps[0..napps-1], racks[0..nracks-1] in the order they are
 * closest to the spines.  Inputs must pass the checks above.  Returns 0,
 * or -1 with plan->unplaced set when the servers run out.
 */
static inline int dc_sway_plan(const struct dc_sway_params *p, const struct dc_sway_app *apps,
			     unsigned int napps, const struct dc_sway_rack *racks, unsigned int nracks,
			     struct dc_sway_plan *plan)
{
	bool done[DC_SWAY_APPS_MAX] = { false };
	unsigned int i, j, rack = 0, slot = 0;
	const double nan_ = NAN;

	memset(plan, 0, sizeof(*plan));
	plan->unplaced = -1;
	if (napps > DC_SWAY_APPS_MAX)
		napps = DC_SWAY_APPS_MAX;
	/* stable insertion sort by d, descending: equal degrees keep input order */
	for (i = 0; i < napps; i++) {
		j = i;
		while (j > 0 && apps[plan->order[j - 1]].d < apps[i].d) {
			plan->order[j] = plan->order[j - 1];
			j--;
		}
		plan->order[j] = i;
	}
	for (i = 0; i < napps; i++) {
		unsigned int h = plan->order[i], k;
		const struct dc_sway_app *a = &apps[h];
		struct dc_sway_server *v;

		if (done[h])
			continue;
		while (rack < nracks && slot >= racks[rack].servers) {
			rack++;
			slot = 0;
		}
		if (rack >= nracks) {
			plan->unplaced = (int)h;
			return -1;
		}
		v = &plan->srv[plan->nservers];
		v->rack = rack;
		v->slot = slot++;
		v->head = h;
		v->beta_in = a->local / a->d;
		v->r_l0 = v->u_l_remote = v->n = v->beta = v->l = v->r_s0 = nan_;
		v->r_l_frac = v->r_l = nan_;
		v->l_tot = 0;
		v->r_s = nan_;
		v->u_l = dc_sway_util(p, a->local, p->bl_bytes);
		if (v->u_l > 1 + DC_SWAY_EPS) {
			v->kase = DC_SWAY_LOCAL_OVER;
			dc_sway_extra(p, a, v);
		} else {
			v->r_l0 = p->bl_bytes * (1 - v->u_l);
			v->u_l_remote = v->r_l0 > 0 ? dc_sway_util(p, a->d - a->local, v->r_l0) :
				(a->d > a->local ? INFINITY : 0);
			if (v->u_l_remote > 1 + DC_SWAY_EPS) {
				v->kase = DC_SWAY_REMOTE_OVER;
				dc_sway_extra(p, a, v);
			} else {
				double c = v->u_l_remote > 0 ? dc_sway_ceil(v->u_l_remote) : 1;

				v->kase = DC_SWAY_LEAF;
				v->r_l_frac = c - v->u_l_remote;
				v->r_l = v->r_l0 * v->r_l_frac;
			}
		}
		done[h] = true;
		plan->place[h] = (struct dc_sway_place){ .server = plan->nservers, .head = true,
						       .fit = nan_, .order = 0 };
		v->napps = 1;
		/* the greedy bin packing, down the sorted list */
		for (k = i + 1; k < napps; k++) {
			unsigned int c = plan->order[k];
			const struct dc_sway_app *b = &apps[c];
			double fit;

			if (done[c])
				continue;
			if (v->kase == DC_SWAY_LEAF) {
				fit = v->r_l > 0 ? dc_sway_util(p, b->d, v->r_l) : INFINITY;
				if (!(fit < 1 - DC_SWAY_EPS))
					continue;
				v->r_l -= p->alpha * b->d * p->s_bytes;
			} else {
				fit = v->r_s > 0 ? p->alpha * b->d * p->s_bytes / (p->theta * v->r_s) :
					INFINITY;
				if (!(fit < 1 - DC_SWAY_EPS))
					continue;
				v->l_tot += dc_sway_l(p, b->d);
				v->r_s = p->bs_bytes * ((double)v->links - v->l_tot);
				if (v->r_s < 0)
					v->r_s = 0;
			}
			done[c] = true;
			plan->place[c] = (struct dc_sway_place){ .server = plan->nservers, .head = false,
							       .fit = fit, .order = v->napps };
			v->napps++;
		}
		plan->links += v->links;
		plan->nservers++;
	}
	return 0;
}

static inline const char *dc_sway_case_name(enum dc_sway_case k)
{
	switch (k) {
	case DC_SWAY_LEAF: return "leaf";
	case DC_SWAY_LOCAL_OVER: return "local-over";
	case DC_SWAY_REMOTE_OVER: return "remote-over";
	}
	return "?";
}

#endif
