/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * SmartBuf: per-port buffer limits learned from the smoothed gradient of
 * the queue (Rezaei, "Adaptive Microburst Control Techniques in
 * Incast-Heavy Datacenter Networks", §3.5, Algorithm 2; Smartbuf,
 * IWQoS'21).  Pure and integer-only: the XDP switch program
 * (bpf/switch.bpf.c) and the simulator (dcbpf sim) run this code.
 *
 * One learning step per queue sample (q_bytes at t_ns), Algorithm 2:
 *   line 10-13  G = 1/4·(q − q_prev)/(t − t_prev) + 3/4·G_prev
 *               (bytes per µs, Q16, signed; floor of the arithmetic shift)
 *   line 14-16  q > max_buf_seen: max_buf_seen = q, Temp[P] = [G, max]
 *   line 17     q < β·max_buf_seen ends the burst:
 *   line 18-19    max_buf_seen > B/σ: Main ← Temp[P] (a burst)
 *   line 21-22    otherwise Temp[P] = [0, 0] (not a burst)
 *   line 28-35  the threshold: the average max_buf_seen of the K entries of
 *               Main whose gradient keys are the nearest ones above G, or
 *               DT when no burst is detected.
 * Main is shared by all ports ("all ports can use the learned knowledge of
 * other ports"); Temp is the per-port part of struct dc_sb_port.
 *
 * The pseudocode's ambiguities, resolved (docs/admission.md, "SmartBuf"):
 *  1. line 29 loops i = 1..K−1 but line 31 averages K values: K values.
 *  2. line 31 averages the gradient keys min(i); the prose averages their
 *     max_buf_seen values: the values.
 *  3. the trigger: DC_SB_LITERAL sets the threshold where line 27 says, at
 *     the end of a burst (q < β·max), from the gradient at that moment, and
 *     keeps it until the next burst end.  DC_SB_ONSET (default) follows the
 *     prose ("when incast is detected", provisioning "before the onset of
 *     congestion"): while the queue rises (G > 0) above onset·B, the
 *     threshold is the k-NN value of the largest G seen in this burst
 *     (it only grows during a burst), back to DT when the burst ends.
 *  4. after line 19 max_buf_seen and Temp[P] are reset as after line 22,
 *     or every later sample below β·max would insert again.
 *  5. keys are quantised to 4 significant bits (8 steps per octave) of
 *     the Q16 gradient; a key already in Main keeps the larger value
 *     ("updates the values whenever a higher upper bound is encountered")
 *     and is refreshed; Main holds DC_SB_ENTRIES, a new key replaces a
 *     free or aged entry, else the least recently refreshed one.
 *  6. fewer than K keys above G: the average of those there are (the
 *     thesis' "k = 1 nearest value" for the largest bursts, §4.5); none
 *     above G: the value of the largest key (the nearest one below);
 *     Main empty (or all aged out): DT.
 *  7. the stored key: the literal trigger stores G at the last new
 *     maximum (line 16); the onset trigger stores the largest G of the
 *     burst, the quantity its lookups compare.
 *  Soft state (the timeout is not given): an entry not refreshed for
 *  age_us is ignored and reusable (default 1 s); 0 keeps entries forever.
 *  The gradient state G_prev is not reset at line 21 (line 13 has already
 *  saved it): only the Temp entry is.
 *
 * Samples: a sample with t_ns ≤ the previous one's is not a sample (the
 * gradient needs t > t_prev); the first primes q_prev and t_prev.
 */
#ifndef DCBPF_SMARTBUF_H
#define DCBPF_SMARTBUF_H

#include "fixed.h"

#define DC_SB_ENTRIES 64	/* Main table: < 35 entries at the highest load (§4.5.4) */
#define DC_SB_K_MAX 8

/* Defaults (§4.5, the thesis' evaluation): K = 3, β = 0.5, σ = 5 (a
 * burst fills more than 20 % of the buffer).  A zero parameter means its
 * default, so a configuration written before SmartBuf existed runs it
 * with these. */
#define DC_SB_DEFAULT_K 3
#define DC_SB_DEFAULT_BETA_Q16 (DC_Q16_ONE / 2)
#define DC_SB_DEFAULT_SIGMA_Q16 (5 * DC_Q16_ONE)
/* onset: the queue holds at least 2 % of B (a quarter of the smallest
 * recorded burst's 1/σ = 20 % would be 5 %; earlier is better, but not
 * for every two-packet queue) */
#define DC_SB_DEFAULT_ONSET_Q16 ((__u32)((2 * DC_Q16_ONE + 50) / 100))
#define DC_SB_DEFAULT_AGE_US 1000000
#define DC_SB_AGE_NEVER 0xffffffffU	/* age_us: entries never age out */

enum dc_sb_trigger {
	DC_SB_ONSET = 0,	/* default: threshold while the burst rises */
	DC_SB_LITERAL = 1,	/* Algorithm 2 as printed: set at the burst's end */
	DC_SB_TRIGGER_MAX
};

/* Parameters (dc_sw_cfg.sb, dc_sim_cfg.sb).  0 = default. */
struct dc_sb_params {
	__u32 trigger;		/* enum dc_sb_trigger */
	__u32 k;		/* K nearest neighbours, 1..DC_SB_K_MAX */
	__u32 beta_q16;		/* β: burst end at q < β·max_buf_seen, 0 < β < 1 */
	__u32 sigma_q16;	/* σ: a burst if max_buf_seen > B/σ, σ > 1 */
	__u32 onset_q16;	/* onset trigger: q ≥ onset·B */
	__u32 age_us;		/* soft state: Main entries older are ignored */
};

/* One entry of Main: (gradient key, max_buf_seen). */
struct dc_sb_entry {
	__s64 key_q16;		/* EWMA gradient, bytes/µs Q16, quantised */
	__u64 max_bytes;	/* max_buf_seen of the burst(s) with this key */
	__u64 seen_ns;		/* last insert or refresh */
	__u32 used;		/* 1: holds an entry */
	__u32 hits;		/* bursts merged into it */
};

/* Per-port state: the gradient EWMA and Temp[P]. */
struct dc_sb_port {
	__s64 grad_q16;		/* G_prev: EWMA of dq/dt, bytes/µs Q16 */
	__s64 key_q16;		/* Temp[P].Gradient */
	__s64 lookup_q16;	/* onset: largest G looked up in this burst */
	__u64 qlen_prev_bytes;	/* q at the previous sample */
	__u64 t_prev_ns;	/* time of the previous sample */
	__u64 max_bytes;	/* Temp[P].max_buf_seen */
	__u64 thresh_bytes;	/* learned threshold; 0 = DT */
	__u32 primed;		/* a first sample was taken */
	__u32 bursts;		/* bursts this port inserted into Main */
};

/* The shared Main table. */
struct dc_sb_main {
	struct dc_sb_entry e[DC_SB_ENTRIES];
};

DC_INLINE __u32 dc_sb_k(const struct dc_sb_params *c)
{
	return c->k ? (c->k > DC_SB_K_MAX ? DC_SB_K_MAX : c->k) : DC_SB_DEFAULT_K;
}

DC_INLINE __u64 dc_sb_age_ns(const struct dc_sb_params *c)
{
	if (c->age_us == DC_SB_AGE_NEVER)
		return 0;
	return (__u64)(c->age_us ? c->age_us : DC_SB_DEFAULT_AGE_US) * DC_NSEC_PER_USEC;
}

/* floor(x / 2^n) for a signed x (no reliance on the implementation's >>
 * of a negative number; BPF has no signed division). */
DC_INLINE __s64 dc_sb_asr(__s64 x, __u32 n)
{
	return x >= 0 ? (__s64)((__u64)x >> n) : -(__s64)((((__u64)-x) + (1ULL << n) - 1) >> n);
}

/* Raw gradient (q − q_prev)/(t − t_prev) in bytes/µs Q16, magnitudes
 * divided unsigned.  dt > 0.  |dq| < 2^32 and dt ≤ 2^37 keep
 * 1000·2^16·dt < 2^64 (dc_muldiv64's bound). */
#define DC_SB_DT_MAX_NS (1ULL << 37)
DC_INLINE __s64 dc_sb_raw_grad(__u64 q, __u64 q_prev, __u64 dt_ns)
{
	__u64 m, d = q >= q_prev ? q - q_prev : q_prev - q;

	if (dt_ns > DC_SB_DT_MAX_NS)
		dt_ns = DC_SB_DT_MAX_NS;
	if (d > 0xffffffffULL)
		d = 0xffffffffULL;
	m = dc_muldiv64(d, DC_NSEC_PER_USEC << DC_Q16_SHIFT, dt_ns);
	return q >= q_prev ? (__s64)m : -(__s64)m;
}

/* Line 12: G = 1/4·raw + 3/4·G_prev (floor). */
DC_INLINE __s64 dc_sb_ewma(__s64 raw, __s64 prev)
{
	return dc_sb_asr(raw + 3 * prev, 2);
}

/* Ambiguity 5: keep the 4 most significant bits of |g|. */
DC_INLINE __s64 dc_sb_quant(__s64 g)
{
	__u64 m = g >= 0 ? (__u64)g : (__u64)-g;
	__u32 b = 0;

	/* index of the top bit, by halves (no clz in BPF) */
	if (m >> 32) { b += 32; m >>= 32; }
	if (m >> 16) { b += 16; m >>= 16; }
	if (m >> 8) { b += 8; m >>= 8; }
	if (m >> 4) { b += 4; m >>= 4; }
	if (m >> 2) { b += 2; m >>= 2; }
	if (m >> 1) { b += 1; }
	m = g >= 0 ? (__u64)g : (__u64)-g;
	if (b > 3)
		m &= ~((1ULL << (b - 3)) - 1);
	return g >= 0 ? (__s64)m : -(__s64)m;
}

DC_INLINE bool dc_sb_live(const struct dc_sb_entry *e, __u64 now_ns, __u64 age_ns)
{
	return e->used && (!age_ns || now_ns <= e->seen_ns + age_ns);
}

/*
 * k-NN (lines 29-32, ambiguities 1, 2, 6) as a scan of one entry at a
 * time, so the data plane can run it in a bpf_loop: best[] holds the keys
 * above g found so far, ascending, with their values.
 */
struct dc_sb_knn {
	__s64 g;
	__u64 now_ns, age_ns;
	__u32 k, n;			/* K, keys above g kept (≤ K) */
	__s64 key[DC_SB_K_MAX];
	__u64 val[DC_SB_K_MAX];
	__s64 top_key;			/* largest live key, for "none above g" */
	__u64 top_val;
	__u32 any;			/* a live entry was seen (a flag, not a count:
					 * the verifier's loop states must converge) */
};

DC_INLINE void dc_sb_knn_init(struct dc_sb_knn *s, __s64 g, __u32 k, __u64 now_ns, __u64 age_ns)
{
	__builtin_memset(s, 0, sizeof(*s));
	s->g = g;
	s->k = k > DC_SB_K_MAX ? DC_SB_K_MAX : k;
	s->now_ns = now_ns;
	s->age_ns = age_ns;
}

DC_INLINE void dc_sb_knn_step(struct dc_sb_knn *s, const struct dc_sb_entry *e)
{
	__s64 key = e->key_q16, tk;
	__u64 val = e->max_bytes, tv;
	__u32 j;

	if (!dc_sb_live(e, s->now_ns, s->age_ns))
		return;
	if (!s->any || key > s->top_key || (key == s->top_key && val > s->top_val)) {
		s->top_key = key;
		s->top_val = val;
	}
	s->any = 1;
	if (key <= s->g)
		return;
	/* insert (key, val) into the ascending best[0..n), keeping K */
	for (j = 0; j < DC_SB_K_MAX; j++) {
		if (j >= s->k)
			break;
		if (j >= s->n) {
			s->key[j] = key;
			s->val[j] = val;
			s->n++;
			break;
		}
		if (key < s->key[j]) {
			tk = s->key[j];
			tv = s->val[j];
			s->key[j] = key;
			s->val[j] = val;
			key = tk;
			val = tv;
		}
	}
}

/* The threshold the scan found: 0 when Main had no live entry (DT). */
DC_INLINE __u64 dc_sb_knn_result(const struct dc_sb_knn *s)
{
	__u64 sum = 0;
	__u32 j;

	if (!s->any)
		return 0;
	if (!s->n)
		return s->top_val;
	for (j = 0; j < DC_SB_K_MAX; j++)
		if (j < s->n)
			sum += s->val[j];
	return sum / s->n;
}

DC_INLINE __u64 dc_sb_knn(const struct dc_sb_main *m, __s64 g, __u32 k, __u64 now_ns,
			  __u64 age_ns)
{
	struct dc_sb_knn s;
	__u32 i;

	dc_sb_knn_init(&s, g, k, now_ns, age_ns);
	for (i = 0; i < DC_SB_ENTRIES; i++)
		dc_sb_knn_step(&s, &m->e[i]);
	return dc_sb_knn_result(&s);
}

/*
 * Line 19, Main ← Temp[P] (ambiguity 5), as a scan that picks the slot:
 * the entry with the same key, else the first free or aged one, else the
 * least recently refreshed.
 */
struct dc_sb_ins {
	__s64 key;
	__u64 now_ns, age_ns;
	__u32 same, freeslot, oldest;	/* DC_SB_ENTRIES = none */
	__u64 oldest_ns;
};

DC_INLINE void dc_sb_ins_init(struct dc_sb_ins *s, __s64 key, __u64 now_ns, __u64 age_ns)
{
	s->key = key;
	s->now_ns = now_ns;
	s->age_ns = age_ns;
	s->same = s->freeslot = s->oldest = DC_SB_ENTRIES;
	s->oldest_ns = DC_U64_MAX;
}

DC_INLINE void dc_sb_ins_step(struct dc_sb_ins *s, const struct dc_sb_entry *e, __u32 i)
{
	if (!dc_sb_live(e, s->now_ns, s->age_ns)) {
		if (s->freeslot == DC_SB_ENTRIES)
			s->freeslot = i;
		return;
	}
	if (e->key_q16 == s->key && s->same == DC_SB_ENTRIES)
		s->same = i;
	if (e->seen_ns < s->oldest_ns) {
		s->oldest_ns = e->seen_ns;
		s->oldest = i;
	}
}

/* The slot to write (always one: the table is never without a victim). */
DC_INLINE __u32 dc_sb_ins_slot(const struct dc_sb_ins *s)
{
	if (s->same < DC_SB_ENTRIES)
		return s->same;
	if (s->freeslot < DC_SB_ENTRIES)
		return s->freeslot;
	return s->oldest < DC_SB_ENTRIES ? s->oldest : 0;
}

DC_INLINE void dc_sb_ins_write(struct dc_sb_entry *e, const struct dc_sb_ins *s, __u64 max_bytes)
{
	if (s->same < DC_SB_ENTRIES) {
		if (max_bytes > e->max_bytes)
			e->max_bytes = max_bytes;
		e->hits++;
	} else {
		e->key_q16 = s->key;
		e->max_bytes = max_bytes;
		e->hits = 1;
		e->used = 1;
	}
	e->seen_ns = s->now_ns;
}

DC_INLINE void dc_sb_insert(struct dc_sb_main *m, __s64 key, __u64 max_bytes, __u64 now_ns,
			    __u64 age_ns)
{
	struct dc_sb_ins s;
	__u32 i;

	dc_sb_ins_init(&s, key, now_ns, age_ns);
	for (i = 0; i < DC_SB_ENTRIES; i++)
		dc_sb_ins_step(&s, &m->e[i], i);
	i = dc_sb_ins_slot(&s);
	dc_sb_ins_write(&m->e[i & (DC_SB_ENTRIES - 1)], &s, max_bytes);
}

/* What a learning step asks of Main (the caller runs the scans). */
enum dc_sb_act {
	DC_SB_ACT_NONE = 0,
	DC_SB_ACT_INSERT = 1,		/* insert (key, max) */
	DC_SB_ACT_LOOKUP = 2,		/* threshold = k-NN(g) (literal: before the insert) */
	DC_SB_ACT_RAISE = 4,		/* onset: threshold = max(threshold, k-NN(g)) */
};

/* The outcome of dc_sb_learn: which scans to run with which values. */
struct dc_sb_step {
	__u32 act;			/* DC_SB_ACT_* bits */
	__s64 g;			/* gradient to look up */
	__s64 key;			/* key to insert (quantised) */
	__u64 max_bytes;		/* value to insert */
};

/* β·max and the burst test max > B/σ, without divisions (Q16 sides). */
DC_INLINE bool dc_sb_below_beta(__u64 q, __u64 max, __u32 beta_q16)
{
	return (q << DC_Q16_SHIFT) < max * beta_q16;
}

DC_INLINE bool dc_sb_is_burst(__u64 max, __u64 B, __u32 sigma_q16)
{
	return max * sigma_q16 > (B << DC_Q16_SHIFT);
}

/*
 * One sample of the queue (Algorithm 2 lines 10-24) at time t_ns with q
 * bytes (the simulator: units) queued, B the shared buffer (< 2^32).
 * Updates the port's state and says which table work the sample needs;
 * dc_sb_finish applies the results.  Returns false when t_ns is not
 * a new sample.
 */
DC_INLINE bool dc_sb_learn(struct dc_sb_port *p, const struct dc_sb_params *c, __u64 q,
			   __u64 t_ns, __u64 B, struct dc_sb_step *st)
{
	__u32 beta = c->beta_q16 ? c->beta_q16 : (__u32)DC_SB_DEFAULT_BETA_Q16;
	__u32 sigma = c->sigma_q16 ? c->sigma_q16 : (__u32)DC_SB_DEFAULT_SIGMA_Q16;
	__u32 onset = c->onset_q16 ? c->onset_q16 : DC_SB_DEFAULT_ONSET_Q16;
	bool literal = c->trigger == DC_SB_LITERAL;
	__s64 g;

	st->act = DC_SB_ACT_NONE;
	st->g = st->key = 0;
	st->max_bytes = 0;
	if (q > 0xffffffffULL)
		q = 0xffffffffULL;
	if (!p->primed) {
		p->primed = 1;
		p->qlen_prev_bytes = q;
		p->t_prev_ns = t_ns;
		return true;
	}
	if (t_ns <= p->t_prev_ns)
		return false;
	/* lines 10-13 */
	g = dc_sb_ewma(dc_sb_raw_grad(q, p->qlen_prev_bytes, t_ns - p->t_prev_ns), p->grad_q16);
	p->qlen_prev_bytes = q;
	p->t_prev_ns = t_ns;
	p->grad_q16 = g;
	st->g = g;
	if (q > p->max_bytes) {
		/* lines 14-16 (ambiguity 7: onset keeps the burst's largest G) */
		if (literal || !p->max_bytes || g > p->key_q16)
			p->key_q16 = g;
		p->max_bytes = q;
	} else if (dc_sb_below_beta(q, p->max_bytes, beta)) {
		/* line 17: the burst ended */
		if (dc_sb_is_burst(p->max_bytes, B, sigma)) {
			st->act |= DC_SB_ACT_INSERT;
			st->key = dc_sb_quant(p->key_q16);
			st->max_bytes = p->max_bytes;
			p->bursts++;
			if (literal)
				st->act |= DC_SB_ACT_LOOKUP;	/* line 29-32 */
			else
				p->thresh_bytes = 0;		/* back to DT */
		} else {
			p->thresh_bytes = 0;			/* line 35 (literal) / DT */
		}
		/* line 21-22, and after line 19 (ambiguity 4) */
		p->max_bytes = 0;
		p->key_q16 = 0;
		p->lookup_q16 = 0;
		return true;
	} else if (!literal && g > p->key_q16) {
		p->key_q16 = g;
	}
	/* the onset trigger: a rising queue above onset·B, looked up again
	 * only when G exceeds what was looked up in this burst */
	if (!literal && g > 0 && (q << DC_Q16_SHIFT) >= B * onset &&
	    (!p->thresh_bytes || g > p->lookup_q16)) {
		st->act |= DC_SB_ACT_RAISE;
		p->lookup_q16 = g;
	}
	return true;
}

/* Apply the k-NN result of a DC_SB_ACT_LOOKUP or _RAISE step. */
DC_INLINE void dc_sb_finish(struct dc_sb_port *p, const struct dc_sb_step *st, __u64 knn_bytes)
{
	if (st->act & DC_SB_ACT_LOOKUP)
		p->thresh_bytes = knn_bytes;
	else if ((st->act & DC_SB_ACT_RAISE) && knn_bytes > p->thresh_bytes)
		p->thresh_bytes = knn_bytes;
}

/* One whole sample with the table scans inline (host code and tests). */
DC_INLINE bool dc_sb_sample(struct dc_sb_port *p, struct dc_sb_main *m,
			    const struct dc_sb_params *c, __u64 q, __u64 t_ns, __u64 B)
{
	struct dc_sb_step st;
	__u64 age = dc_sb_age_ns(c);

	if (!dc_sb_learn(p, c, q, t_ns, B, &st))
		return false;
	if (st.act & (DC_SB_ACT_LOOKUP | DC_SB_ACT_RAISE))
		dc_sb_finish(p, &st, dc_sb_knn(m, st.g, dc_sb_k(c), t_ns, age));
	if (st.act & DC_SB_ACT_INSERT)
		dc_sb_insert(m, st.key, st.max_bytes, t_ns, age);
	return true;
}

/* The port's threshold: the learned one, else DT's (dt_bytes). */
DC_INLINE __u64 dc_sb_threshold(const struct dc_sb_port *p, __u64 dt_bytes)
{
	return p->thresh_bytes ? p->thresh_bytes : dt_bytes;
}

#endif
