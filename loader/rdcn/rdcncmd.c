// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf rdcn schedule`, `rdcn check` and `rdcn bounds` (docs/rdcn.md); the
 * option tables of `rdcn attach`, `publish`, `detach` (run in rdattach.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rdcn/rdcn.h"
#include "rdcn/rdcncmd.h"

#define GBPS_MAX 1e6	/* 1 Pbit/s */

struct rdcn_sched_args {
	int kind;
	__u32 tors, uplinks, d, k, l;
	bool random_trust;
	__u64 slot_ns, reconf_ns, buffer_bytes, delay_ns, seed;
	double link_gbps;
	const char *demand, *out;
};

struct rdcn_check_args {
	const char *file;
	double link_gbps;
	bool no_self;
};

struct rdcn_bounds_args {
	__u32 tors, uplinks, d, k, gamma;
	__u64 slot_ns, reconf_ns, buffer_bytes, delay_ns;
	double link_gbps;
};

static const struct dc_opt_name kind_names[] = {
	{ "rr", DC_RS_RR }, { "rr-self", DC_RS_RR_SELF }, { "mars", DC_RS_MARS }, { "vermilion", DC_RS_VERMILION },
	{ NULL },
};

#define SA struct rdcn_sched_args
static const struct dc_opt sched_opts[] = {
	{ "kind", 0, DC_OPT_ENUM, DC_FIELD(SA, kind), NULL, .help = "generator", .required = true,
	  .names = kind_names },
	{ "tors", 'n', DC_OPT_U64, DC_FIELD(SA, tors), "N",
	  .help = "n_t: ToRs (vermilion: the demand matrix's size when not given)", .umin = 2,
	  .umax = DC_RD_TORS_MAX },
	{ "uplinks", 'u', DC_OPT_U64, DC_FIELD(SA, uplinks), "N",
	  .help = "n_u: uplinks per ToR, one circuit switch each", .def = "1", .umin = 1, .umax = DC_RD_UP_MAX },
	{ "d", 'd', DC_OPT_U64, DC_FIELD(SA, d), "D",
	  .help = "mars: emulated degree (not given: from --buffer-bytes and --delay-ns, Thms 18-19)",
	  .umin = 1, .umax = DC_RD_TORS_MAX },
	{ "buffer-bytes", 0, DC_OPT_U64, DC_FIELD(SA, buffer_bytes), "BYTES",
	  .help = "mars: buffer per ToR, d = floor(B / (c x slot)) (Thm 19)", .def = "0", .umax = 1ULL << 50 },
	{ "delay-ns", 0, DC_OPT_U64, DC_FIELD(SA, delay_ns), "NS", .help = "mars: delay budget L (Thm 18)",
	  .def = "0", .umax = 1ULL << 50 },
	{ "link-gbps", 'c', DC_OPT_DOUBLE, DC_FIELD(SA, link_gbps), "GBPS",
	  .help = "c: circuit rate (Thm 19)", .def = "1", .dmin = 0, .dmax = GBPS_MAX,
	  .flags = DC_OPT_F_MIN_EXCL },
	{ "demand", 'm', DC_OPT_PATH, DC_FIELD(SA, demand), "FILE",
	  .help = "vermilion: demand matrix, n rows of n numbers", .flags = DC_OPT_F_EXISTS },
	{ "k", 'k', DC_OPT_U64, DC_FIELD(SA, k), "K", .help = "vermilion: k x n matchings per period",
	  .def = "3", .umin = 1, .umax = 16 },
	{ "l", 'l', DC_OPT_U64, DC_FIELD(SA, l), "L",
	  .help = "vermilion: residual links per pair; trust factor k/l below 2 ignores the demand (Alg. 7)",
	  .def = "1", .umin = 1, .umax = 15 },
	{ "random-trust", 0, DC_OPT_FLAG, DC_FIELD(SA, random_trust),
	  .help = "vermilion: Alg. 8 with gamma = --k: the trust factor r drawn uniformly from 1..k "
		  "(--seed), then Alg. 7 with k = r, l = 1" },
	{ "slot-ns", 0, DC_OPT_U64, DC_FIELD(SA, slot_ns), "NS", .help = "slot: one matching, night included",
	  .def = "1000000", .umin = 2, .umax = 1ULL << 50 },
	{ "reconf-ns", 0, DC_OPT_U64, DC_FIELD(SA, reconf_ns), "NS",
	  .help = "reconfiguration (night) at the end of every slot", .def = "100000", .umin = 1,
	  .umax = 1ULL << 50 },
	{ "seed", 0, DC_OPT_U64, DC_FIELD(SA, seed), "S",
	  .help = "mars: shuffle of the matchings (0: none); vermilion: the configuration model", .def = "1" },
	{ "out", 'o', DC_OPT_STR, DC_FIELD(SA, out), "FILE",
	  .help = "write the schedule file here (default: on stdout)" },
	{ NULL },
};
#undef SA

#define CA struct rdcn_check_args
static const struct dc_opt check_opts[] = {
	{ "file", 0, DC_OPT_PATH, DC_FIELD(CA, file), "FILE", .help = "schedule file (docs/rdcn.md)",
	  .required = true, .flags = DC_OPT_F_POS },
	{ "link-gbps", 'c', DC_OPT_DOUBLE, DC_FIELD(CA, link_gbps), "GBPS",
	  .help = "c: circuit rate, for Corollary 1's capacities", .def = "1", .dmin = 0, .dmax = GBPS_MAX,
	  .flags = DC_OPT_F_MIN_EXCL },
	{ "no-self", 0, DC_OPT_FLAG, DC_FIELD(CA, no_self), .help = "refuse self-loops (idle uplinks)" },
	{ NULL },
};
#undef CA

#define BA struct rdcn_bounds_args
static const struct dc_opt bounds_opts[] = {
	{ "tors", 'n', DC_OPT_U64, DC_FIELD(BA, tors), "N", .help = "n_t: ToRs", .required = true, .umin = 2,
	  .umax = 1000000 },
	{ "uplinks", 'u', DC_OPT_U64, DC_FIELD(BA, uplinks), "N", .help = "n_u: uplinks per ToR", .def = "1",
	  .umin = 1, .umax = 1000000 },
	{ "d", 'd', DC_OPT_U64, DC_FIELD(BA, d), "D",
	  .help = "emulated degree (not given: the largest within --buffer-bytes and --delay-ns)",
	  .umax = 1000000 },
	{ "slot-ns", 0, DC_OPT_U64, DC_FIELD(BA, slot_ns), "NS", .help = "Δ: one matching, reconfiguration included",
	  .required = true, .umin = 1, .umax = 1ULL << 50 },
	{ "reconf-ns", 0, DC_OPT_U64, DC_FIELD(BA, reconf_ns), "NS", .help = "Δ_r: reconfiguration per slot",
	  .def = "0", .umax = 1ULL << 50 },
	{ "link-gbps", 'c', DC_OPT_DOUBLE, DC_FIELD(BA, link_gbps), "GBPS", .help = "c: link rate",
	  .required = true, .dmin = 0, .dmax = GBPS_MAX, .flags = DC_OPT_F_MIN_EXCL },
	{ "buffer-bytes", 'B', DC_OPT_U64, DC_FIELD(BA, buffer_bytes), "BYTES",
	  .help = "B: buffer per ToR (0: unlimited)", .def = "0", .umax = 1ULL << 50 },
	{ "delay-ns", 'L', DC_OPT_U64, DC_FIELD(BA, delay_ns), "NS", .help = "L: delay budget (0: none)",
	  .def = "0", .umax = 1ULL << 50 },
	{ "k", 'k', DC_OPT_U64, DC_FIELD(BA, k), "K", .help = "Vermilion's k (Thm 22; 0: not computed)",
	  .def = "0", .umax = 1000 },
	{ "gamma", 0, DC_OPT_U64, DC_FIELD(BA, gamma), "G",
	  .help = "trust factor, for Ch. 9's consistency and robustness (0: not computed)", .def = "0",
	  .umax = 1000 },
	{ NULL },
};
#undef BA

static void jw_dbl(struct jw *j, const char *key, double v, const char *fmt)
{
	char buf[64];

	snprintf(buf, sizeof(buf), fmt, v);
	jw_raw(j, key, buf);
}

static __u32 count_self(const struct dc_rs *s)
{
	__u32 t, u, i, n = 0;

	for (t = 0; t < s->cfg.period; t++)
		for (u = 0; u < s->cfg.nup; u++)
			for (i = 0; i < s->cfg.ntors; i++)
				n += s->slot[t].peer[u][i] == i;
	return n;
}

/* The summary of a valid schedule, JSON or text: shape, timing, the
 * emulated graph (Corollary 1) and, with matchings, every slot. */
static void describe(struct dc_ctx *ctx, const struct dc_rs *s, double link_gbps, bool matchings)
{
	static __u16 cnt[DC_RD_TORS_MAX][DC_RD_TORS_MAX];
	__u32 n = s->cfg.ntors, i, j, t, u, minl = ~0u, maxl = 0, pairs = 0;
	__u64 c_kbps = (__u64)llround(link_gbps * 1e6);
	int diam = dc_rs_diameter(s);

	dc_rs_counts(s, cnt);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			if (i == j)
				continue;
			pairs += cnt[i][j] > 0;
			if (cnt[i][j] < minl)
				minl = cnt[i][j];
			if (cnt[i][j] > maxl)
				maxl = cnt[i][j];
		}
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_str(&ctx->jw, "kind", dc_rs_kind_str(s->kind));
		jw_u64(&ctx->jw, "tors", n);
		jw_u64(&ctx->jw, "uplinks", s->cfg.nup);
		jw_u64(&ctx->jw, "period", s->cfg.period);
		jw_u64(&ctx->jw, "slot_ns", s->cfg.slot_ns);
		jw_u64(&ctx->jw, "day_ns", s->cfg.day_ns);
		if (s->kind == DC_RS_MARS)
			jw_u64(&ctx->jw, "d", s->d);
		if (s->kind == DC_RS_VERMILION) {
			jw_u64(&ctx->jw, "k", s->k);
			jw_u64(&ctx->jw, "l", s->l);
			jw_bool(&ctx->jw, "complete", s->complete);
			if (s->rand_gamma)
				jw_u64(&ctx->jw, "random_trust", s->rand_gamma);
		}
		jw_u64(&ctx->jw, "self_loops", count_self(s));
		jw_u64(&ctx->jw, "pairs_connected", pairs);
		if (diam < 0)
			jw_null(&ctx->jw, "diameter");
		else
			jw_u64(&ctx->jw, "diameter", (__u64)diam);
		jw_u64(&ctx->jw, "pair_links_min", minl);
		jw_u64(&ctx->jw, "pair_links_max", maxl);
		jw_u64(&ctx->jw, "link_kbps", c_kbps);
		jw_u64(&ctx->jw, "cap_per_link_kbps", dc_rs_cap_kbps(s, c_kbps, 1));
		jw_arr(&ctx->jw, "links");
		for (i = 0; i < n; i++) {
			jw_arr(&ctx->jw, NULL);
			for (j = 0; j < n; j++)
				jw_u64(&ctx->jw, NULL, cnt[i][j]);
			jw_end_arr(&ctx->jw);
		}
		jw_end_arr(&ctx->jw);
		if (matchings) {
			jw_arr(&ctx->jw, "slots");
			for (t = 0; t < s->cfg.period; t++) {
				jw_arr(&ctx->jw, NULL);
				for (u = 0; u < s->cfg.nup; u++) {
					jw_arr(&ctx->jw, NULL);
					for (i = 0; i < n; i++)
						jw_u64(&ctx->jw, NULL, s->slot[t].peer[u][i]);
					jw_end_arr(&ctx->jw);
				}
				jw_end_arr(&ctx->jw);
			}
			jw_end_arr(&ctx->jw);
		}
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
		return;
	}
	fprintf(ctx->out, "%s: %u ToRs x %u uplinks, period %u slots of %llu ns (day %llu ns, duty %.4f)\n",
		dc_rs_kind_str(s->kind), n, s->cfg.nup, s->cfg.period, (unsigned long long)s->cfg.slot_ns,
		(unsigned long long)s->cfg.day_ns, (double)s->cfg.day_ns / (double)s->cfg.slot_ns);
	fprintf(ctx->out, "every slot a permutation per uplink; %u self-loops (idle uplink-slots)\n", count_self(s));
	if (diam < 0)
		fprintf(ctx->out, "emulated graph: %u of %u ordered pairs connected: DISCONNECTED\n", pairs, n * (n - 1));
	else
		fprintf(ctx->out, "emulated graph: %u of %u ordered pairs connected, diameter %d hops\n", pairs,
			n * (n - 1), diam);
	fprintf(ctx->out, "links per pair per period: %u..%u; Corollary 1: %llu kbps per link at %g Gbit/s\n",
		minl, maxl, (unsigned long long)dc_rs_cap_kbps(s, c_kbps, 1), link_gbps);
}

static int sched_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct rdcn_sched_args *o = ctx->opts;
	static struct dc_rs s;
	double *demand = NULL;
	__u32 n = o->tors, dn = 0, d = o->d;
	int rc = 0;

	(void)argc;
	(void)argv;
	if (o->reconf_ns >= o->slot_ns)
		return dc_fail(ctx, EXIT_USAGE, "--reconf-ns %llu must be below --slot-ns %llu",
			       (unsigned long long)o->reconf_ns, (unsigned long long)o->slot_ns);
	if (o->kind == DC_RS_VERMILION) {
		if (!o->demand)
			return dc_fail(ctx, EXIT_USAGE, "--kind vermilion needs --demand FILE");
		rc = dc_rs_load_demand(o->demand, &demand, &dn, &ctx->err);
		if (rc)
			return rc;
		if (n && n != dn) {
			free(demand);
			return dc_fail(ctx, EXIT_USAGE, "--tors %u, but %s is %u x %u", n, o->demand, dn, dn);
		}
		n = dn;
	} else {
		if (o->demand)
			return dc_fail(ctx, EXIT_USAGE, "--demand is for --kind vermilion");
		if (!n)
			return dc_fail(ctx, EXIT_USAGE, "--kind %s needs --tors N", dc_rs_kind_str(o->kind));
	}
	if (o->random_trust && (o->kind != DC_RS_VERMILION || o->l != 1))
		return dc_fail(ctx, EXIT_USAGE, "--random-trust is for --kind vermilion, with l = 1 (Alg. 8)");
	if (o->kind != DC_RS_MARS && (o->d || o->buffer_bytes || o->delay_ns))
		return dc_fail(ctx, EXIT_USAGE, "--d, --buffer-bytes and --delay-ns are for --kind mars");
	switch (o->kind) {
	case DC_RS_RR:
	case DC_RS_RR_SELF:
		rc = dc_rs_rr(&s, n, o->uplinks, o->kind == DC_RS_RR_SELF, &ctx->err);
		break;
	case DC_RS_MARS:
		if (!d) {
			struct dc_rb_in in = { .ntors = n, .nup = o->uplinks, .slot_ns = (double)o->slot_ns,
					       .reconf_ns = (double)o->reconf_ns, .link_bps = o->link_gbps * 1e9,
					       .buf_bytes = (double)o->buffer_bytes, .delay_ns = (double)o->delay_ns };
			struct dc_rb_out b;

			if (!o->buffer_bytes && !o->delay_ns)
				return dc_fail(ctx, EXIT_USAGE, "--kind mars needs --d, --buffer-bytes or --delay-ns");
			rc = dc_rb_compute(&in, &b, &ctx->err);
			if (rc)
				return rc;
			/* each switch runs d/n_u matchings: round down to a multiple */
			d = b.d - b.d % o->uplinks;
			if (d < 2)
				return dc_fail(ctx, EXIT_USAGE,
					       "the budgets allow degree %u, below 2 uplink-multiples of %u", b.d,
					       o->uplinks);
		}
		rc = dc_rs_mars(&s, n, o->uplinks, d, o->seed, &ctx->err);
		break;
	case DC_RS_VERMILION:
		if (o->random_trust) {
			__u32 r = dc_rs_random_trust(o->k, o->seed);

			rc = dc_rs_vermilion(&s, n, o->uplinks, demand, r, 1, o->seed, &ctx->err);
			s.rand_gamma = o->k;
		} else {
			rc = dc_rs_vermilion(&s, n, o->uplinks, demand, o->k, o->l, o->seed, &ctx->err);
		}
		break;
	}
	free(demand);
	if (rc)
		return rc;
	s.cfg.slot_ns = o->slot_ns;
	s.cfg.day_ns = o->slot_ns - o->reconf_ns;
	rc = dc_rs_validate(&s, s.kind != DC_RS_RR, &ctx->err);
	if (rc) {
		dc_err_prefix(&ctx->err, "generated schedule invalid");
		return EXIT_ERR;
	}
	if (o->out) {
		FILE *f = fopen(o->out, "w");

		if (!f)
			return dc_fail(ctx, EXIT_ERR, "%s: %s", o->out, strerror(errno));
		rc = dc_rs_write(&s, f);
		if (fclose(f) || rc)
			return dc_fail(ctx, EXIT_ERR, "%s: write failed", o->out);
		describe(ctx, &s, o->link_gbps, ctx->json);
		return 0;
	}
	if (ctx->json)
		describe(ctx, &s, o->link_gbps, true);
	else
		dc_rs_write(&s, ctx->out);
	return 0;
}

static int check_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct rdcn_check_args *o = ctx->opts;
	static struct dc_rs s;
	int rc;

	(void)argc;
	(void)argv;
	rc = dc_rs_load(o->file, &s, &ctx->err);
	if (rc)
		return rc;
	if (s.kind == DC_RS_RR || s.kind == DC_RS_RR_SELF || s.kind == DC_RS_MARS) {
		/* the graph its kind line says it emulates (Corollary 1) */
		static struct dc_rs want;

		rc = s.kind == DC_RS_MARS ? dc_rs_mars(&want, s.cfg.ntors, s.cfg.nup, s.d, 0, &ctx->err) :
					    dc_rs_rr(&want, s.cfg.ntors, s.cfg.nup, s.kind == DC_RS_RR_SELF, &ctx->err);
		if (rc) {
			dc_err_prefix(&ctx->err, "%s: its kind line", o->file);
			return EXIT_USAGE;
		}
		memcpy(s.want, want.want, sizeof(s.want));
		s.has_want = true;
		s.d = want.d;
	}
	rc = dc_rs_validate(&s, !o->no_self, &ctx->err);
	if (rc) {
		dc_err_prefix(&ctx->err, "%s", o->file);
		return EXIT_USAGE;
	}
	describe(ctx, &s, o->link_gbps, false);
	return 0;
}

static int bounds_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct rdcn_bounds_args *o = ctx->opts;
	struct dc_rb_in in = { .ntors = o->tors, .nup = o->uplinks, .d = o->d, .slot_ns = (double)o->slot_ns,
			       .reconf_ns = (double)o->reconf_ns, .link_bps = o->link_gbps * 1e9,
			       .buf_bytes = (double)o->buffer_bytes, .delay_ns = (double)o->delay_ns, .k = o->k,
			       .gamma = o->gamma };
	struct dc_rb_out b;
	int rc;

	(void)argc;
	(void)argv;
	if (o->k == 1)
		return dc_fail(ctx, EXIT_USAGE, "--k 1 leaves no demand-aware links: k must be at least 2");
	rc = dc_rb_compute(&in, &b, &ctx->err);
	if (rc)
		return rc;
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_u64(&ctx->jw, "tors", o->tors);
		jw_u64(&ctx->jw, "uplinks", o->uplinks);
		jw_u64(&ctx->jw, "d", b.d);
		jw_u64(&ctx->jw, "period", b.period);
		jw_u64(&ctx->jw, "diameter", b.diameter);
		jw_dbl(&ctx->jw, "arl", b.arl, "%.6f");
		jw_dbl(&ctx->jw, "theta_star", b.theta_star, "%.6f");
		jw_dbl(&ctx->jw, "theta_buffer", b.theta_buf, "%.6f");
		jw_dbl(&ctx->jw, "theta", b.theta, "%.6f");
		jw_dbl(&ctx->jw, "duty", b.duty, "%.6f");
		jw_dbl(&ctx->jw, "theta_duty", b.theta_eff, "%.6f");
		jw_dbl(&ctx->jw, "delay_ns", b.delay_ns, "%.1f");
		jw_dbl(&ctx->jw, "buffer_need_bytes", b.buf_need_bytes, "%.0f");
		if (b.have_d18) {
			jw_dbl(&ctx->jw, "thm18_k", b.k18, "%.6f");
			jw_dbl(&ctx->jw, "thm18_d_real", b.d18_real, "%.6f");
			jw_u64(&ctx->jw, "thm18_d", b.d18);
		} else if (o->delay_ns) {
			jw_null(&ctx->jw, "thm18_d");
		}
		if (b.have_d19)
			jw_u64(&ctx->jw, "thm19_d", b.d19);
		if (o->k)
			jw_dbl(&ctx->jw, "vermilion_theta", b.verm_theta, "%.6f");
		if (o->gamma) {
			jw_dbl(&ctx->jw, "consistency_det", b.cons_det, "%.6f");
			jw_dbl(&ctx->jw, "robustness_det", b.rob_det, "%.6f");
			jw_dbl(&ctx->jw, "consistency_uniform", b.cons_rand, "%.6f");
			jw_dbl(&ctx->jw, "robustness_uniform", b.rob_rand, "%.6f");
		}
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
		return 0;
	}
	fprintf(ctx->out, "n_t %u, n_u %u, d %u: period %u slots, diameter %u, ARL %.3f\n", o->tors, o->uplinks,
		b.d, b.period, b.diameter, b.arl);
	if (b.have_d18)
		fprintf(ctx->out, "Thm 18 (L = %llu ns): k = %.5f, d = e^-W(k) = %.3f -> %u\n",
			(unsigned long long)o->delay_ns, b.k18, b.d18_real, b.d18);
	else if (o->delay_ns)
		fprintf(ctx->out, "Thm 18 (L = %llu ns): no real root (delay too small for any degree)\n",
			(unsigned long long)o->delay_ns);
	if (b.have_d19)
		fprintf(ctx->out, "Thm 19 (B = %llu bytes): d = %u\n", (unsigned long long)o->buffer_bytes, b.d19);
	fprintf(ctx->out, "throughput: theta* %.4f (Thm 17), with the buffer %.4f (Thm 16): %.4f; x duty %.4f = %.4f\n",
		b.theta_star, b.theta_buf, b.theta, b.duty, b.theta_eff);
	fprintf(ctx->out, "delay: %.1f us (Thms 15, 17); buffer for theta*: %.0f bytes per ToR (Thm 19)\n",
		b.delay_ns / 1000.0, b.buf_need_bytes);
	if (o->k)
		fprintf(ctx->out, "Vermilion k %u: single-hop throughput >= %.4f (Thm 22)\n", o->k, b.verm_theta);
	if (o->gamma)
		fprintf(ctx->out,
			"trust factor %u: consistency %.4f, robustness %.4f (Thms 24-25); uniform random: %.4f, %.4f "
			"(Cor. 2)\n",
			o->gamma, b.cons_det, b.rob_det, b.cons_rand, b.rob_rand);
	return 0;
}

#define AA struct dc_rd_attach_args
static const struct dc_opt attach_opts[] = {
	{ "port", 'p', DC_OPT_LIST, DC_FIELD(AA, ports), "IF=TOR/UP@MAC",
	  .help = "interface IF is ToR TOR's uplink UP, whose far end sends from MAC (repeat)",
	  .required = true },
	{ "netns", 'n', DC_OPT_STR, DC_FIELD(AA, netns), "NS",
	  .help = "the circuit switch's network namespace; default: our own" },
	{ "schedule", 's', DC_OPT_STR, DC_FIELD(AA, schedule), "FILE",
	  .help = "publish this schedule file once attached (else: rdcn publish)" },
	{ "guard-ms", 0, DC_OPT_U64, DC_FIELD(AA, guard_ms), "MS",
	  .help = "the schedule goes live at least this long after now", .def = "100", .umin = 1,
	  .umax = 3600000 },
	{ NULL },
};
#undef AA

#define PA struct dc_rd_publish_args
static const struct dc_opt publish_opts[] = {
	{ "file", 0, DC_OPT_STR, DC_FIELD(PA, file), "FILE", .help = "schedule file (rdcn schedule)",
	  .required = true, .flags = DC_OPT_F_POS },
	{ "netns", 'n', DC_OPT_STR, DC_FIELD(PA, netns), "NS",
	  .help = "the circuit switch's network namespace; default: our own" },
	{ "guard-ms", 0, DC_OPT_U64, DC_FIELD(PA, guard_ms), "MS",
	  .help = "go live at the first period boundary at least this long after now", .def = "100",
	  .umin = 1, .umax = 3600000 },
	{ NULL },
};
#undef PA

#define DA struct dc_rd_detach_args
static const struct dc_opt detach_opts[] = {
	{ "netns", 'n', DC_OPT_STR, DC_FIELD(DA, netns), "NS",
	  .help = "the circuit switch's network namespace; default: our own" },
	{ NULL },
};
#undef DA

#define VA struct dc_rd_voq_args
static const struct dc_opt voq_opts[] = {
	{ "uplink", 'p', DC_OPT_LIST, DC_FIELD(VA, uplinks), "NS/IF=TOR/UP",
	  .help = "interface IF of namespace NS is ToR TOR's uplink UP: its VOQs follow the schedule (repeat)",
	  .required = true },
	{ "netns", 'n', DC_OPT_STR, DC_FIELD(VA, netns), "NS",
	  .help = "the circuit switch's network namespace (its schedule); default: our own" },
	{ "circuit-mbps", 'c', DC_OPT_U64, DC_FIELD(VA, circuit_mbps), "MBPS",
	  .help = "a circuit's rate: an open VOQ sends at it", .def = "1000", .umin = 1, .umax = 1000000 },
	{ "guard-us", 0, DC_OPT_U64, DC_FIELD(VA, guard_us), "US",
	  .help = "close a VOQ this long before its day ends (its last frames still meet the circuit)",
	  .def = "500", .umax = 1000000000 },
	{ "voq-bytes", 0, DC_OPT_U64, DC_FIELD(VA, voq_bytes), "BYTES", .help = "each VOQ's buffer",
	  .def = "1000000", .umin = 3028, .umax = 1ULL << 31 },
	{ "ms", 0, DC_OPT_U64, DC_FIELD(VA, ms), "MS", .help = "run this long (0: until SIGINT or SIGTERM)",
	  .def = "0", .umax = 1ULL << 40 },
	{ "ready", 0, DC_OPT_STR, DC_FIELD(VA, ready), "FILE",
	  .help = "create FILE once the VOQs and their classifier are in place" },
	{ NULL },
};
#undef VA

DC_CMD_OF_OPTS(voq_cmd, dc_rd_voq_run)
DC_CMD_OF_OPTS(attach_cmd, dc_rd_attach_run)
DC_CMD_OF_OPTS(publish_cmd, dc_rd_publish_run)
DC_CMD_OF_OPTS(status_cmd, dc_rd_status_run)
DC_CMD_OF_OPTS(detach_cmd, dc_rd_detach_run)

const struct dc_cmd dc_rdcn_cmds[] = {
	{ "schedule", sched_cmd, sched_opts, sizeof(struct rdcn_sched_args),
	  .summary = "generate a periodic circuit schedule: round robin, Mars or Vermilion",
	  .doc = "rr: sigma_t(i) = i+t+1 mod n (n-1 slots); rr-self: i+t mod n (n slots).\n"
		 "mars: de Bruijn graph of degree d cut into d matchings, d/n_u per uplink.\n"
		 "vermilion: Alg. 6 (Alg. 7 with --l, Alg. 8 with --random-trust) from a demand\n"
		 "matrix: k x n matchings.\n"
		 "Every schedule is validated (permutations, Corollary 1) before it is printed;\n"
		 "the schedule file goes to stdout or --out (then a summary is printed)." },
	{ "check", check_cmd, check_opts, sizeof(struct rdcn_check_args),
	  .summary = "validate a schedule file and describe its emulated graph",
	  .doc = "A refused file is named with its line and the reason (exit 2)." },
	{ "bounds", bounds_cmd, bounds_opts, sizeof(struct rdcn_bounds_args),
	  .summary = "throughput, delay and buffer of a design by the rotor model's theorems",
	  .doc = "Mars chapter: Thms 15-19 (theta* = 1/(2 log_d n_t), delay ARL x period x slot,\n"
		 "buffer c x d x slot per ToR, d from L by Thm 18 and from B by Thm 19) and\n"
		 "Corollary 1's duty factor; Vermilion's Thm 22 with --k; the trust factor's\n"
		 "consistency and robustness (Thms 24-25, Cor. 2) with --gamma." },
	{ "attach", attach_cmd, attach_opts, sizeof(struct dc_rd_attach_args), .flags = DC_CMD_F_ROOT,
	  .summary = "the circuit switch on the ports of its namespace",
	  .doc = "TC ingress of every --port gets the switch program: a frame from ToR i's\n"
		 "uplink u to next hop j (its destination MAC) leaves by port (j, u) iff the\n"
		 "live slot matches i to j on uplink u and it is day; else it is dropped and\n"
		 "counted per port by reason (dc_rd_pcnt).  Until a schedule is live nothing\n"
		 "passes.  Again on an attached namespace: ports are added or re-pointed.\n"
		 "Pins: PIN_DIR/rdcn/NS." },
	{ "publish", publish_cmd, publish_opts, sizeof(struct dc_rd_publish_args), .flags = DC_CMD_F_ROOT,
	  .summary = "a schedule file into the live maps, from the next period boundary on",
	  .doc = "Written into the copy not live; one store names it live at the first period\n"
		 "boundary of the running schedule at least --guard-ms ahead (after the guard\n"
		 "when none runs).  Refused while an earlier flip is still ahead." },
	{ "status", status_cmd, detach_opts, sizeof(struct dc_rd_detach_args), .flags = DC_CMD_F_ROOT,
	  .summary = "the circuit switch's counters per port: passed, dropped by reason",
	  .doc = "A column per port (ToR/uplink) of dc_rd_pcnt and one for frames of interfaces\n"
		 "that are no port; --json: ports[] with tor, up, ifindex and every counter." },
	{ "voq", voq_cmd, voq_opts, sizeof(struct dc_rd_voq_args), .flags = DC_CMD_F_ROOT,
	  .summary = "per-destination VOQs at the ToRs, open only while their circuit is up",
	  .doc = "Every --uplink gets an HTB root with one class per other ToR (the VOQ), each\n"
		 "holding a TBF gate, and the VOQ classifier at TC egress (next hop -> class).\n"
		 "At every slot start the VOQ toward the matched ToR opens (the circuit's rate,\n"
		 "a kick frame restarts it); --guard-us before the day ends it closes (a drain\n"
		 "frame spends the refilled bucket).  Kick and drain frames are broadcast: the\n"
		 "circuit switch drops them (drop_nodest).  Runs in the foreground, then\n"
		 "removes the VOQs (what they still hold is lost) and prints the lateness of\n"
		 "the gates' edges.  Needs the circuit switch attached with a schedule." },
	{ "detach", detach_cmd, detach_opts, sizeof(struct dc_rd_detach_args), .flags = DC_CMD_F_ROOT,
	  .summary = "every port of the circuit switch detached, its pins removed" },
	{ NULL },
};
