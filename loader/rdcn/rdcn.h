/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Periodic circuit schedules in user space (docs/rdcn.md): the generators
 * (round robin, Mars, Vermilion), their validation (every slot a
 * permutation per uplink; Corollary 1's capacity matrix equal to the
 * intended emulated graph), the schedule and demand files, the bounds of
 * the rotor model's theorems, and the writer of the live schedule maps
 * (maps/rdcn.h).  Slot arithmetic: include/dcbpf/rdcn.h.
 */
#ifndef DCBPF_RDCN_RDCN_H
#define DCBPF_RDCN_RDCN_H

#include <stdbool.h>
#include <stdio.h>

#include "dcbpf/rdcn.h"
#include "err.h"

/* All matchings of a period: DC_RD_SLOTS_MAX x DC_RD_UP_MAX of them. */
#define DC_RS_MATCH_MAX (DC_RD_SLOTS_MAX * DC_RD_UP_MAX)

enum dc_rs_kind { DC_RS_RR, DC_RS_RR_SELF, DC_RS_MARS, DC_RS_VERMILION, DC_RS_FILE };

struct dc_rs {
	struct dc_rd_cfg cfg;		/* epoch 0: the writer sets it */
	int kind;			/* enum dc_rs_kind */
	__u32 d;			/* Mars: emulated degree */
	__u32 k, l;			/* Vermilion: k, ℓ (Alg. 7; Alg. 6 is ℓ = 1) */
	__u32 rand_gamma;		/* Alg. 8: k = r drawn from 1..rand_gamma (0: not) */
	bool complete;			/* Vermilion with γ = k/ℓ < 2: the complete graph */
	struct dc_rd_slot slot[DC_RD_SLOTS_MAX];
	/* The emulated graph the generator meant to build: links i -> j over
	 * one period (self-loops included), before it was cut into matchings. */
	bool has_want;
	__u16 want[DC_RD_TORS_MAX][DC_RD_TORS_MAX];
};

const char *dc_rs_kind_str(int kind);

/* Generators.  ntors 2..64, nup 1..8; the number of matchings must be a
 * multiple of nup (each slot runs one per uplink).  slot_ns/day_ns go
 * into cfg as given (checked by dc_rd_cfg_check). */
int dc_rs_rr(struct dc_rs *s, __u32 ntors, __u32 nup, bool self, struct dc_err *err);
int dc_rs_mars(struct dc_rs *s, __u32 ntors, __u32 nup, __u32 d, __u64 seed, struct dc_err *err);
/* demand: ntors x ntors, row-major, >= 0 (the diagonal is ignored). */
int dc_rs_vermilion(struct dc_rs *s, __u32 ntors, __u32 nup, const double *demand, __u32 k, __u32 l,
		    __u64 seed, struct dc_err *err);
/* Alg. 8 (Ch. 9), P(R) uniform: the trust factor r in 1..gamma drawn with
 * seed; the schedule is then dc_rs_vermilion with k = r, l = 1. */
__u32 dc_rs_random_trust(__u32 gamma, __u64 seed);
/* Vermilion's emulated topology alone (Alg. 7 lines 12-26): E into e. */
int dc_rs_vermilion_graph(__u32 n, const double *demand, __u32 k, __u32 l, __u64 seed,
			  __u16 e[DC_RD_TORS_MAX][DC_RD_TORS_MAX], __u16 r[DC_RD_TORS_MAX][DC_RD_TORS_MAX],
			  struct dc_err *err);
/* Matrix rounding: every entry to its floor or ceiling, every row and
 * column sum (and the total) to the floor or ceiling of its own. */
int dc_rs_round(__u32 n, const double *x, __u16 r[DC_RD_TORS_MAX][DC_RD_TORS_MAX], struct dc_err *err);
/* An r-regular bipartite multigraph (out side, in side) cut into r perfect
 * matchings: out[m][i] = j.  Fails if e is not regular. */
int dc_rs_decompose(__u32 n, const __u16 e[DC_RD_TORS_MAX][DC_RD_TORS_MAX], __u32 r,
		    __u8 (*out)[DC_RD_TORS_MAX], struct dc_err *err);

/* Links i -> j over one period, every slot and uplink. */
void dc_rs_counts(const struct dc_rs *s, __u16 cnt[DC_RD_TORS_MAX][DC_RD_TORS_MAX]);
/* Corollary 1 (Ch. 7): ĉ(i,j) = (1 - Δ_u)/Γ · Σ_t c_t(i,j) for links of
 * c_kbps, in kbps (floor); (1 - Δ_u) = day_ns/slot_ns. */
__u64 dc_rs_cap_kbps(const struct dc_rs *s, __u64 c_kbps, __u32 links);
/* Hops of the longest shortest path over the emulated graph (self-loops
 * do not count); -1 if some ToR cannot reach another. */
int dc_rs_diameter(const struct dc_rs *s);
/* Every slot a permutation per uplink (self-loops unless !allow_self),
 * and, with s->has_want, the links per pair equal to the intended graph. */
int dc_rs_validate(const struct dc_rs *s, bool allow_self, struct dc_err *err);

/* The schedule file (docs/rdcn.md). */
int dc_rs_write(const struct dc_rs *s, FILE *f);
int dc_rs_load(const char *path, struct dc_rs *s, struct dc_err *err);
int dc_rs_parse(const char *name, FILE *f, struct dc_rs *s, struct dc_err *err);
/* A demand matrix: n rows of n numbers; *n_out its size; *m malloc'ed. */
int dc_rs_load_demand(const char *path, double **m, __u32 *n_out, struct dc_err *err);
int dc_rs_parse_demand(const char *name, FILE *f, double **m, __u32 *n_out, struct dc_err *err);

/* ---- bounds (bounds.c) -------------------------------------------------- */
struct dc_rb_in {
	__u32 ntors, nup, d;	/* n_t, n_u, emulated degree (0: from the budgets) */
	double slot_ns;		/* Δ */
	double reconf_ns;	/* Δ_r (absolute, Ch. 7) */
	double link_bps;	/* c */
	double buf_bytes;	/* B per ToR (0: unlimited) */
	double delay_ns;	/* L (0: none) */
	__u32 k;		/* Vermilion's k (0: not asked) */
	__u32 gamma;		/* Ch. 9 trust factor (0: not asked) */
};

struct dc_rb_out {
	__u32 d;		/* the degree used */
	__u32 period;		/* Γ = ceil(d / n_u) slots */
	__u32 diameter;		/* ⌈log_d n_t⌉ (de Bruijn) */
	double arl;		/* 2·log_d(n_t) (Theorem 17, VLB) */
	double theta_star;	/* 1 / ARL, at most 1/2 (Theorem 17) */
	double delay_ns;	/* ARD = ARL·Γ·Δ (Theorems 15, 17); 0 for a static graph */
	double buf_need_bytes;	/* c·d·Δ per ToR for θ* (Theorem 19) */
	double theta_buf;	/* B / (n_u·c·ARD) (Theorem 16), or θ* without a limit */
	double theta;		/* min(θ*, theta_buf) */
	double duty;		/* 1 - Δ_u */
	double theta_eff;	/* θ·(1 - Δ_u) (Corollary 1) */
	bool have_d18, have_d19;
	double d18_real;	/* e^{-W_{-1}(k)} */
	__u32 d18, d19;		/* Theorem 18 (delay), 19 (buffer) */
	double k18;
	/* Vermilion (Theorem 22) and Ch. 9 (Theorems 24-25, Corollary 2) */
	double verm_theta;
	double cons_det, rob_det, cons_rand, rob_rand;
};

/* W_{-1}(x) for x in [-1/e, 0); NaN outside. */
double dc_rb_lambert_wm1(double x);
/* Theorem 18: d for delay L; 0 and a reason if there is no real root. */
int dc_rb_d_delay(__u32 ntors, __u32 nup, double slot_ns, double delay_ns, double *k, double *d_real,
		  __u32 *d, struct dc_err *err);
int dc_rb_compute(const struct dc_rb_in *in, struct dc_rb_out *out, struct dc_err *err);

/* ---- the live schedule writer (rdpub.c) ---------------------------------
 * Where the two copies and the flip word live: the pinned maps, or memory
 * (tests).  Each returns 0 or a negative errno. */
struct dc_rd_store {
	void *ctx;
	int (*get_flip)(void *ctx, __u64 *word);
	int (*put_flip)(void *ctx, __u64 word);
	int (*get_cfg)(void *ctx, __u32 buf, struct dc_rd_cfg *c);
	int (*put_cfg)(void *ctx, __u32 buf, const struct dc_rd_cfg *c);
	int (*put_slot)(void *ctx, __u32 key, const struct dc_rd_slot *s);
};

/*
 * Install s into the copy not live at now_ns and flip to it at the first
 * period boundary of the live schedule at least guard_ns after now_ns (at
 * now_ns + guard_ns if nothing is live).  The new schedule's slot 0
 * starts at that instant (its epoch).  Refused while an earlier flip is
 * still ahead (its copy would be overwritten).  *flip_at_ns: the instant.
 */
int dc_rd_publish(const struct dc_rd_store *st, const struct dc_rs *s, __u64 now_ns, __u64 guard_ns,
		  __u64 *flip_at_ns, struct dc_err *err);

/* The store over the pinned maps dc_rd_cfg, dc_rd_sched, dc_rd_flip of
 * pin_dir (rdmap.c); close with dc_rd_store_bpf_close. */
int dc_rd_store_bpf_open(struct dc_rd_store *st, const char *pin_dir, struct dc_err *err);
void dc_rd_store_bpf_close(struct dc_rd_store *st);

/* ---- the circuit switch on live interfaces (rdattach.c) -----------------
 * `dcbpf rdcn attach|publish|detach`: the switch program (bpf/rdcn.bpf.c)
 * on the ports of the circuit-switch namespace, pins under
 * PIN_DIR/rdcn/NS. */
struct dc_rd_portspec {
	char ifname[16];	/* IFNAMSIZ */
	__u32 tor, up;
	__u8 mac[6];		/* the ToR's uplink address at the other end */
};

/* "IF=TOR/UP@MAC" into p; EXIT_USAGE with the reason. */
int dc_rd_port_parse(const char *spec, struct dc_rd_portspec *p, struct dc_err *err);

#endif
