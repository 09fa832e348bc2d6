// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Schedule generators and their validation (docs/rdcn.md).
 *
 * Every generator first builds the emulated graph it means (a multigraph
 * where E(i,j) links i -> j exist over one period, self-loops included),
 * then cuts it into perfect matchings (a regular bipartite multigraph is
 * a union of perfect matchings: König), then lays the matchings out, nup
 * per slot, matching m at slot m / nup on uplink m % nup.  The validation
 * recounts the links from the slots (Corollary 1 of the Mars chapter: the
 * periodic network has the throughput of the static graph with
 * ĉ(e) = (1 - Δ_u)/Γ · Σ_t c_t(e)) and compares them with that graph.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rand.h"
#include "rdcn/rdcn.h"

const char *dc_rs_kind_str(int kind)
{
	switch (kind) {
	case DC_RS_RR: return "rr";
	case DC_RS_RR_SELF: return "rr-self";
	case DC_RS_MARS: return "mars";
	case DC_RS_VERMILION: return "vermilion";
	}
	return "file";
}

static int shape_check(__u32 ntors, __u32 nup, struct dc_err *err)
{
	if (ntors < 2 || ntors > DC_RD_TORS_MAX)
		return dc_err_set(err, EXIT_USAGE, "tors %u: must be 2..%u", ntors, DC_RD_TORS_MAX);
	if (!nup || nup > DC_RD_UP_MAX)
		return dc_err_set(err, EXIT_USAGE, "uplinks %u: must be 1..%u", nup, DC_RD_UP_MAX);
	return 0;
}

/* Lay out nm matchings, nup per slot. */
static int layout(struct dc_rs *s, __u32 ntors, __u32 nup, __u8 (*m)[DC_RD_TORS_MAX], __u32 nm,
		  struct dc_err *err)
{
	__u32 i, t;

	if (nm % nup)
		return dc_err_set(err, EXIT_USAGE,
				  "%u matchings do not fill slots of %u uplinks (need a multiple of %u)", nm,
				  nup, nup);
	if (nm / nup > DC_RD_SLOTS_MAX)
		return dc_err_set(err, EXIT_USAGE, "the period would be %u slots, at most %u", nm / nup,
				  DC_RD_SLOTS_MAX);
	memset(s->slot, DC_RD_IDLE, sizeof(s->slot));
	for (t = 0; t < nm; t++)
		for (i = 0; i < ntors; i++)
			s->slot[t / nup].peer[t % nup][i] = m[t][i];
	s->cfg.period = nm / nup;
	s->cfg.ntors = (__u16)ntors;
	s->cfg.nup = (__u16)nup;
	return 0;
}

static void shuffle(__u8 (*m)[DC_RD_TORS_MAX], __u32 nm, __u64 seed)
{
	__u64 st = seed ^ 0x9e3779b97f4a7c15ULL;
	__u8 tmp[DC_RD_TORS_MAX];
	__u32 i, j;

	if (!seed)
		return;
	for (i = nm; i > 1; i--) {
		j = (__u32)dc_rand_below(&st, i);
		memcpy(tmp, m[i - 1], sizeof(tmp));
		memcpy(m[i - 1], m[j], sizeof(tmp));
		memcpy(m[j], tmp, sizeof(tmp));
	}
}

int dc_rs_rr(struct dc_rs *s, __u32 ntors, __u32 nup, bool self, struct dc_err *err)
{
	static __u8 m[DC_RD_TORS_MAX][DC_RD_TORS_MAX];
	__u32 t, i, nm = self ? ntors : ntors - 1, off = self ? 0 : 1;
	int rc;

	if ((rc = shape_check(ntors, nup, err)))
		return rc;
	/* σ_t(i) = (i + t + 1) mod n without self (§2.4: 24 matchings for 25
	 * ToRs, each ordered pair once per week), (i + t) mod n with. */
	for (t = 0; t < nm; t++)
		for (i = 0; i < ntors; i++)
			m[t][i] = (__u8)((i + t + off) % ntors);
	if ((rc = layout(s, ntors, nup, m, nm, err)))
		return rc;
	s->kind = self ? DC_RS_RR_SELF : DC_RS_RR;
	s->has_want = true;
	memset(s->want, 0, sizeof(s->want));
	for (i = 0; i < ntors; i++)
		for (t = 0; t < ntors; t++)
			s->want[i][t] = (i != t || self) ? 1 : 0;
	return 0;
}

/* Kuhn's augmenting path from out-node i over the links left in e. */
static bool augment(__u32 n, const __u16 e[DC_RD_TORS_MAX][DC_RD_TORS_MAX], __u32 i, int *match_in,
		    bool *seen)
{
	__u32 j;

	for (j = 0; j < n; j++) {
		if (!e[i][j] || seen[j])
			continue;
		seen[j] = true;
		if (match_in[j] < 0 || augment(n, e, (__u32)match_in[j], match_in, seen)) {
			match_in[j] = (int)i;
			return true;
		}
	}
	return false;
}

int dc_rs_decompose(__u32 n, const __u16 e_in[DC_RD_TORS_MAX][DC_RD_TORS_MAX], __u32 r,
		    __u8 (*out)[DC_RD_TORS_MAX], struct dc_err *err)
{
	static __u16 e[DC_RD_TORS_MAX][DC_RD_TORS_MAX];
	int match_in[DC_RD_TORS_MAX];
	bool seen[DC_RD_TORS_MAX];
	__u32 i, j, m, rs, cs;

	for (i = 0; i < n; i++) {
		rs = cs = 0;
		for (j = 0; j < n; j++) {
			rs += e_in[i][j];
			cs += e_in[j][i];
		}
		if (rs != r)
			return dc_err_set(err, EXIT_USAGE, "the graph is not %u-regular: ToR %u has %u links out",
					  r, i, rs);
		if (cs != r)
			return dc_err_set(err, EXIT_USAGE, "the graph is not %u-regular: ToR %u has %u links in",
					  r, i, cs);
	}
	memcpy(e, e_in, sizeof(e));
	for (m = 0; m < r; m++) {
		for (j = 0; j < n; j++)
			match_in[j] = -1;
		for (i = 0; i < n; i++) {
			memset(seen, 0, sizeof(seen));
			/* a regular bipartite multigraph always has a perfect
			 * matching (Hall), and stays regular once it is removed */
			if (!augment(n, e, i, match_in, seen))
				return dc_err_set(err, EXIT_ERR, "no perfect matching left at matching %u", m);
		}
		for (j = 0; j < n; j++) {
			out[m][match_in[j]] = (__u8)j;
			e[match_in[j]][j]--;
		}
	}
	return 0;
}

int dc_rs_mars(struct dc_rs *s, __u32 ntors, __u32 nup, __u32 d, __u64 seed, struct dc_err *err)
{
	static __u8 m[DC_RD_TORS_MAX][DC_RD_TORS_MAX];
	__u32 i, a;
	int rc;

	if ((rc = shape_check(ntors, nup, err)))
		return rc;
	if (d < 1 || d > ntors)
		return dc_err_set(err, EXIT_USAGE, "degree %u: must be 1..tors (%u)", d, ntors);
	if (d % nup)
		return dc_err_set(err, EXIT_USAGE,
				  "degree %u is not a multiple of the %u uplinks (each switch runs d/n_u matchings)",
				  d, nup);
	/* de Bruijn (Mars §7.4.3): u -> u·d + a mod n_t, a in 0..d-1 */
	memset(s->want, 0, sizeof(s->want));
	for (i = 0; i < ntors; i++)
		for (a = 0; a < d; a++)
			s->want[i][(i * d + a) % ntors]++;
	rc = dc_rs_decompose(ntors, s->want, d, m, err);
	if (rc) {
		dc_err_prefix(err, "de Bruijn(%u, %u)", ntors, d);
		return rc;
	}
	/* "shuffle and randomly assign d/n_u matchings to each switch" */
	shuffle(m, d, seed);
	if ((rc = layout(s, ntors, nup, m, d, err)))
		return rc;
	s->kind = DC_RS_MARS;
	s->d = d;
	s->has_want = true;
	return 0;
}

/* ---- matrix rounding by a circulation with lower bounds ----------------- */

struct fedge { int to, cap; };
struct flow {
	int n, ne;
	struct fedge *e;
	int *head, *next, *level, *it;
};

static int flow_init(struct flow *f, int n, int maxe)
{
	f->n = n;
	f->ne = 0;
	f->e = calloc((size_t)maxe * 2, sizeof(*f->e));
	f->next = calloc((size_t)maxe * 2, sizeof(int));
	f->head = malloc((size_t)n * sizeof(int));
	f->level = calloc((size_t)n, sizeof(int));
	f->it = calloc((size_t)n, sizeof(int));
	if (!f->e || !f->next || !f->head || !f->level || !f->it)
		return -ENOMEM;
	memset(f->head, 0xff, (size_t)n * sizeof(int));
	return 0;
}

static void flow_free(struct flow *f)
{
	free(f->e);
	free(f->next);
	free(f->head);
	free(f->level);
	free(f->it);
}

/* Returns the index of the forward edge. */
static int flow_add(struct flow *f, int u, int v, int cap)
{
	int id = f->ne;

	f->e[id] = (struct fedge){ v, cap };
	f->next[id] = f->head[u];
	f->head[u] = id;
	f->e[id + 1] = (struct fedge){ u, 0 };
	f->next[id + 1] = f->head[v];
	f->head[v] = id + 1;
	f->ne += 2;
	return id;
}

static bool flow_bfs(struct flow *f, int s, int t)
{
	int *q = f->it, qh = 0, qt = 0, u, id;

	for (u = 0; u < f->n; u++)
		f->level[u] = -1;
	f->level[s] = 0;
	q[qt++] = s;
	while (qh < qt) {
		u = q[qh++];
		for (id = f->head[u]; id >= 0; id = f->next[id])
			if (f->e[id].cap > 0 && f->level[f->e[id].to] < 0) {
				f->level[f->e[id].to] = f->level[u] + 1;
				q[qt++] = f->e[id].to;
			}
	}
	return f->level[t] >= 0;
}

static int flow_dfs(struct flow *f, int u, int t, int pushed)
{
	int id, d;

	if (u == t)
		return pushed;
	for (; f->it[u] >= 0; f->it[u] = f->next[f->it[u]]) {
		id = f->it[u];
		if (f->e[id].cap <= 0 || f->level[f->e[id].to] != f->level[u] + 1)
			continue;
		d = flow_dfs(f, f->e[id].to, t, pushed < f->e[id].cap ? pushed : f->e[id].cap);
		if (d > 0) {
			f->e[id].cap -= d;
			f->e[id ^ 1].cap += d;
			return d;
		}
	}
	return 0;
}

static long flow_max(struct flow *f, int s, int t)
{
	long total = 0;
	int u, d;

	while (flow_bfs(f, s, t)) {
		for (u = 0; u < f->n; u++)
			f->it[u] = f->head[u];
		while ((d = flow_dfs(f, s, t, 1 << 30)) > 0)
			total += d;
	}
	return total;
}

#define EPS 1e-9

int dc_rs_round(__u32 n, const double *x, __u16 r[DC_RD_TORS_MAX][DC_RD_TORS_MAX], struct dc_err *err)
{
	/* Nodes: s, t, rows, columns, and the super source/sink of the
	 * lower-bound reduction.  Edges s->row [⌊f_i⌋, ⌈f_i⌉], row->col
	 * [0, 1] where the entry has a fraction, col->t [⌊g_j⌋, ⌈g_j⌉],
	 * t->s [⌊F⌋, ⌈F⌉]; f, g, F the row, column and total sums of the
	 * fractions.  The fractions themselves are a feasible circulation,
	 * so an integral one exists (flows with integral bounds). */
	int S = 0, T = 1, SS = 2 + 2 * (int)n, TT = SS + 1, nodes = TT + 1;
	static int cell[DC_RD_TORS_MAX][DC_RD_TORS_MAX];
	double fr[DC_RD_TORS_MAX] = { 0 }, fc[DC_RD_TORS_MAX] = { 0 }, ftot = 0;
	long excess[2 + 2 * DC_RD_TORS_MAX] = { 0 }, need = 0;
	struct flow f;
	__u32 i, j;
	int rc = 0;

	if (flow_init(&f, nodes, (int)(n * n + 3 * n + 4 + nodes)))
		goto nomem;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			double v = x[i * n + j], fl = floor(v + EPS), fra = v - fl;

			if (v < 0 || v > 60000)
				goto range;
			r[i][j] = (__u16)fl;
			cell[i][j] = -1;
			if (fra > EPS) {
				fr[i] += fra;
				fc[j] += fra;
				ftot += fra;
				cell[i][j] = flow_add(&f, 2 + (int)i, 2 + (int)n + (int)j, 1);
			}
		}
#define BOUNDED(u, v, lo, hi)                                                   \
	do {                                                                   \
		long lo_ = (lo), hi_ = (hi);                                   \
		if (hi_ > lo_)                                                 \
			flow_add(&f, (u), (v), (int)(hi_ - lo_));              \
		excess[(v)] += lo_;                                            \
		excess[(u)] -= lo_;                                            \
	} while (0)
	for (i = 0; i < n; i++) {
		BOUNDED(S, 2 + (int)i, (long)floor(fr[i] + EPS), (long)ceil(fr[i] - EPS));
		BOUNDED(2 + (int)n + (int)i, T, (long)floor(fc[i] + EPS), (long)ceil(fc[i] - EPS));
	}
	BOUNDED(T, S, (long)floor(ftot + EPS), (long)ceil(ftot - EPS));
#undef BOUNDED
	for (i = 0; i < 2 + 2 * n; i++) {
		if (excess[i] > 0) {
			flow_add(&f, SS, (int)i, (int)excess[i]);
			need += excess[i];
		} else if (excess[i] < 0) {
			flow_add(&f, (int)i, TT, (int)-excess[i]);
		}
	}
	if (flow_max(&f, SS, TT) != need) {
		rc = dc_err_set(err, EXIT_ERR, "matrix rounding: no integral rounding found");
		goto out;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (cell[i][j] >= 0 && f.e[cell[i][j]].cap == 0)
				r[i][j]++;
out:
	flow_free(&f);
	return rc;
range:
	rc = dc_err_set(err, EXIT_USAGE, "matrix rounding: entry (%u, %u) = %g out of range", i, j, x[i * n + j]);
	goto out;
nomem:
	flow_free(&f);
	return dc_err_set(err, EXIT_ERR, "matrix rounding: out of memory");
}

int dc_rs_vermilion_graph(__u32 n, const double *demand, __u32 k, __u32 l, __u64 seed,
			  __u16 e[DC_RD_TORS_MAX][DC_RD_TORS_MAX], __u16 r[DC_RD_TORS_MAX][DC_RD_TORS_MAX],
			  struct dc_err *err)
{
	double *x, mx = 0;
	__u32 i, j, kn = k * n;
	__u32 xout[DC_RD_TORS_MAX], xin[DC_RD_TORS_MAX];
	static __u32 stubs_in[DC_RD_TORS_MAX * DC_RD_TORS_MAX * 4];
	__u32 nstub = 0, nout = 0;
	__u64 st = seed ^ 0x853c49e6748fea9bULL;
	int rc;

	if (k < 2 || l < 1 || l >= k)
		return dc_err_set(err, EXIT_USAGE, "k %u, l %u: need k >= 2 and 1 <= l < k", k, l);
	if (kn > 4 * DC_RD_TORS_MAX)
		return dc_err_set(err, EXIT_USAGE, "k x n = %u matchings: at most %u", kn, 4 * DC_RD_TORS_MAX);
	x = calloc((size_t)n * n, sizeof(*x));
	if (!x)
		return dc_err_set(err, EXIT_ERR, "out of memory");
	/* Normalise: the largest row or column sum becomes 1 (hose model);
	 * a node's own demand is not traffic. */
	for (i = 0; i < n; i++) {
		double rsum = 0, csum = 0;

		for (j = 0; j < n; j++) {
			if (i != j) {
				rsum += demand[i * n + j];
				csum += demand[j * n + i];
			}
		}
		mx = fmax(mx, fmax(rsum, csum));
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (i != j && mx > 0)
				x[i * n + j] = demand[i * n + j] / mx * (double)((k - l) * n);
	/* Alg. 7 line 15-16: M <- (k - ℓ)·n·M; R = Round(M) */
	rc = dc_rs_round(n, x, r, err);
	free(x);
	if (rc)
		return rc;
	/* lines 17-21: bulk plus ℓ residual links per pair, self included
	 * (n residual links per node: the proof of Theorem 22 needs them) */
	for (i = 0; i < n; i++) {
		xout[i] = xin[i] = 0;
		for (j = 0; j < n; j++)
			e[i][j] = (__u16)(r[i][j] + l);
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			xout[i] += e[i][j];
			xin[j] += e[i][j];
		}
	/* lines 22-25: the remaining degrees, paired at random (configuration
	 * model on a bipartite multigraph: any pairing of stubs is valid) */
	for (i = 0; i < n; i++) {
		if (xout[i] > kn || xin[i] > kn)
			return dc_err_set(err, EXIT_ERR, "ToR %u: %u links out, %u in, above k·n = %u", i,
					  xout[i], xin[i], kn);
		for (j = 0; j < kn - xin[i]; j++)
			stubs_in[nstub++] = i;
		nout += kn - xout[i];
	}
	if (nout != nstub)
		return dc_err_set(err, EXIT_ERR, "remaining degrees differ: %u out, %u in", nout, nstub);
	for (i = nstub; i > 1; i--) {
		__u32 a = (__u32)dc_rand_below(&st, i), t = stubs_in[i - 1];

		stubs_in[i - 1] = stubs_in[a];
		stubs_in[a] = t;
	}
	nstub = 0;
	for (i = 0; i < n; i++)
		for (j = 0; j < kn - xout[i]; j++)
			e[i][stubs_in[nstub++]]++;
	return 0;
}

__u32 dc_rs_random_trust(__u32 gamma, __u64 seed)
{
	__u64 st = seed ^ 0x2545f4914f6cdd1dULL;

	/* Alg. 8 with P(R) uniform on 1..γ */
	return gamma ? 1 + (__u32)dc_rand_below(&st, gamma) : 0;
}

int dc_rs_vermilion(struct dc_rs *s, __u32 ntors, __u32 nup, const double *demand, __u32 k, __u32 l,
		    __u64 seed, struct dc_err *err)
{
	static __u8 m[4 * DC_RD_TORS_MAX][DC_RD_TORS_MAX];
	static __u16 r[DC_RD_TORS_MAX][DC_RD_TORS_MAX];
	__u32 i, j, kn = k * ntors;
	int rc;

	if ((rc = shape_check(ntors, nup, err)))
		return rc;
	/* Alg. 7: ℓ <= k; γ = k/ℓ < 2 (k = ℓ included) is the complete graph */
	if (k < 1 || l < 1 || l > k)
		return dc_err_set(err, EXIT_USAGE, "k %u, l %u: need 1 <= l <= k", k, l);
	if (kn % nup)
		return dc_err_set(err, EXIT_USAGE, "k x n = %u matchings is not a multiple of the %u uplinks",
				  kn, nup);
	if (kn > 4 * DC_RD_TORS_MAX)
		return dc_err_set(err, EXIT_USAGE, "k x n = %u matchings: at most %u", kn, 4 * DC_RD_TORS_MAX);
	memset(s->want, 0, sizeof(s->want));
	s->complete = 2 * l > k;
	if (s->complete) {
		/* Alg. 7 line 3: γ = k/ℓ < 2, no trust: the complete graph */
		for (i = 0; i < ntors; i++)
			for (j = 0; j < ntors; j++)
				s->want[i][j] = (__u16)k;
	} else {
		rc = dc_rs_vermilion_graph(ntors, demand, k, l, seed, s->want, r, err);
		if (rc)
			return rc;
	}
	/* lines 7-10: k·n perfect matchings, executed round robin */
	if ((rc = dc_rs_decompose(ntors, s->want, kn, m, err)))
		return rc;
	if ((rc = layout(s, ntors, nup, m, kn, err)))
		return rc;
	s->kind = DC_RS_VERMILION;
	s->k = k;
	s->l = l;
	s->has_want = true;
	return 0;
}

void dc_rs_counts(const struct dc_rs *s, __u16 cnt[DC_RD_TORS_MAX][DC_RD_TORS_MAX])
{
	__u32 t, u, i;

	memset(cnt, 0, sizeof(__u16) * DC_RD_TORS_MAX * DC_RD_TORS_MAX);
	for (t = 0; t < s->cfg.period; t++)
		for (u = 0; u < s->cfg.nup; u++)
			for (i = 0; i < s->cfg.ntors; i++)
				if (s->slot[t].peer[u][i] < s->cfg.ntors)
					cnt[i][s->slot[t].peer[u][i]]++;
}

__u64 dc_rs_cap_kbps(const struct dc_rs *s, __u64 c_kbps, __u32 links)
{
	unsigned __int128 v = (unsigned __int128)c_kbps * links * s->cfg.day_ns;
	unsigned __int128 q = (unsigned __int128)s->cfg.slot_ns * s->cfg.period;

	return q ? (__u64)(v / q) : 0;
}

int dc_rs_diameter(const struct dc_rs *s)
{
	static __u16 cnt[DC_RD_TORS_MAX][DC_RD_TORS_MAX];
	__u32 n = s->cfg.ntors, src, i, j;
	int dist[DC_RD_TORS_MAX], q[DC_RD_TORS_MAX], diam = 0;

	dc_rs_counts(s, cnt);
	for (src = 0; src < n; src++) {
		int qh = 0, qt = 0;

		for (i = 0; i < n; i++)
			dist[i] = -1;
		dist[src] = 0;
		q[qt++] = (int)src;
		while (qh < qt) {
			i = (__u32)q[qh++];
			for (j = 0; j < n; j++)
				if (cnt[i][j] && i != j && dist[j] < 0) {
					dist[j] = dist[i] + 1;
					q[qt++] = (int)j;
				}
		}
		for (i = 0; i < n; i++) {
			if (dist[i] < 0)
				return -1;
			if (dist[i] > diam)
				diam = dist[i];
		}
	}
	return diam;
}

int dc_rs_validate(const struct dc_rs *s, bool allow_self, struct dc_err *err)
{
	static __u16 cnt[DC_RD_TORS_MAX][DC_RD_TORS_MAX];
	__u32 t, bu, bt, i, j;
	int bad;

	if ((bad = dc_rd_cfg_check(&s->cfg)))
		return dc_err_set(err, EXIT_USAGE, "%s", dc_rd_bad_str(bad));
	for (t = 0; t < s->cfg.period; t++) {
		bad = dc_rd_slot_check(&s->slot[t], s->cfg.ntors, s->cfg.nup, allow_self, &bu, &bt);
		if (bad)
			return dc_err_set(err, EXIT_USAGE, "slot %u, uplink %u, ToR %u: %s", t, bu, bt,
					  dc_rd_bad_str(bad));
	}
	if (!s->has_want)
		return 0;
	dc_rs_counts(s, cnt);
	for (i = 0; i < s->cfg.ntors; i++)
		for (j = 0; j < s->cfg.ntors; j++)
			if (cnt[i][j] != s->want[i][j])
				return dc_err_set(err, EXIT_ERR,
						  "Corollary 1: %u -> %u has %u links per period, the emulated graph %u",
						  i, j, cnt[i][j], s->want[i][j]);
	return 0;
}
