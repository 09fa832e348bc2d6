// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf superways plan` (docs/superways.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "superways/swaycmd.h"
#include "superways/sway.h"

struct sway_plan_args {
	const char *input;
	double p[5];	/* alpha, flow-bytes, leaf-buffer, spine-buffer, theta; 0: not given */
};

#define PA struct sway_plan_args
static const struct dc_opt plan_opts[] = {
	{ "input", 'i', DC_OPT_PATH, DC_FIELD(PA, input), "FILE",
	  .help = "racks, applications, parameters (docs/superways.md)", .required = true,
	  .flags = DC_OPT_F_EXISTS },
	{ "alpha", 0, DC_OPT_DOUBLE, offsetof(PA, p[0]), sizeof(double), "A",
	  .help = "jitter factor (over the file; else the file's, else 0.8)", .dmin = 0, .dmax = 1,
	  .flags = DC_OPT_F_MIN_EXCL },
	{ "flow-bytes", 0, DC_OPT_DOUBLE, offsetof(PA, p[1]), sizeof(double), "BYTES",
	  .help = "s, average flow size (else the file's, else 1500)", .dmin = 1, .dmax = 1e12 },
	{ "leaf-buffer", 0, DC_OPT_DOUBLE, offsetof(PA, p[2]), sizeof(double), "BYTES",
	  .help = "B_l, leaf per-port buffer (else the file's, else 240000)", .dmin = 1, .dmax = 1e12 },
	{ "spine-buffer", 0, DC_OPT_DOUBLE, offsetof(PA, p[3]), sizeof(double), "BYTES",
	  .help = "B_s, spine per-port buffer (else the file's, else 240000)", .dmin = 1, .dmax = 1e12 },
	{ "theta", 0, DC_OPT_DOUBLE, offsetof(PA, p[4]), sizeof(double), "X",
	  .help = "spine / leaf link speed (else the file's, else 4)", .dmin = 1, .dmax = 1e6 },
	{ NULL },
};
#undef PA

/* %.6g, or null for a value that does not apply (NaN). */
static void jw_num(struct jw *j, const char *key, double v)
{
	char buf[64];

	if (isnan(v)) {
		jw_null(j, key);
		return;
	}
	snprintf(buf, sizeof(buf), "%.6g", v);
	jw_raw(j, key, buf);
}

static const char *num(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.6g", v);
	return buf;
}

static void server_name(char *buf, size_t len, const struct dc_sway_input *in, const struct dc_sway_server *v)
{
	snprintf(buf, len, "%s.%u", in->racks[v->rack].name, v->slot);
}

static int plan_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct sway_plan_args *o = ctx->opts;
	struct dc_sway_input *in;
	struct dc_sway_plan *plan;
	double *f[5];
	unsigned int s, k, i;
	int rc;

	(void)argc;
	(void)argv;
	in = calloc(1, sizeof(*in));
	plan = calloc(1, sizeof(*plan));
	if (!in || !plan) {
		free(in);
		free(plan);
		return dc_fail(ctx, EXIT_ERR, "out of memory");
	}
	rc = dc_sway_load(o->input, in, &ctx->err);
	if (rc)
		goto out;
	f[0] = &in->p.alpha;
	f[1] = &in->p.s_bytes;
	f[2] = &in->p.bl_bytes;
	f[3] = &in->p.bs_bytes;
	f[4] = &in->p.theta;
	for (i = 0; i < 5; i++)
		if (o->p[i] != 0)	/* given: the table refuses 0 for every one */
			*f[i] = o->p[i];
	rc = dc_sway_check(in, o->input, &ctx->err);
	if (rc)
		goto out;
	if (dc_sway_plan(&in->p, in->apps, in->napps, in->racks, in->nracks, plan)) {
		unsigned int servers = 0;

		for (i = 0; i < in->nracks; i++)
			servers += in->racks[i].servers;
		rc = dc_fail(ctx, EXIT_USAGE, "%s: app '%s' (d %g): no server left; %u servers in %u racks hold "
			     "%u incast servers before it", o->input, in->apps[plan->unplaced].name,
			     in->apps[plan->unplaced].d, servers, in->nracks, plan->nservers);
		goto out;
	}
	if (ctx->json) {
		struct jw *j = &ctx->jw;

		jw_obj(j, NULL);
		jw_obj(j, "params");
		jw_num(j, "alpha", in->p.alpha);
		jw_num(j, "s_bytes", in->p.s_bytes);
		jw_num(j, "bl_bytes", in->p.bl_bytes);
		jw_num(j, "bs_bytes", in->p.bs_bytes);
		jw_num(j, "theta", in->p.theta);
		jw_end_obj(j);
		jw_u64(j, "incast_servers", plan->nservers);
		jw_u64(j, "links", plan->links);
		jw_arr(j, "servers");
		for (s = 0; s < plan->nservers; s++) {
			const struct dc_sway_server *v = &plan->srv[s];
			char nm[2 * DC_SWAY_NAME_LEN + 16];

			server_name(nm, sizeof(nm), in, v);
			jw_obj(j, NULL);
			jw_str(j, "server", nm);
			jw_str(j, "rack", in->racks[v->rack].name);
			jw_str(j, "case", dc_sway_case_name(v->kase));
			jw_u64(j, "links", v->links);
			jw_num(j, "u_l", v->u_l);
			jw_num(j, "r_l_bytes", v->r_l0);
			jw_num(j, "u_l_remote", v->u_l_remote);
			jw_num(j, "n", v->n);
			jw_num(j, "beta_in", v->beta_in);
			jw_num(j, "beta", v->beta);
			jw_num(j, "l", v->l);
			jw_num(j, "r_s_bytes", v->r_s0);
			jw_num(j, "r_l_frac", v->r_l_frac);
			jw_num(j, "l_tot", v->kase == DC_SWAY_LEAF ? NAN : v->l_tot);
			jw_num(j, "r_s_left_bytes", v->r_s);
			jw_num(j, "r_l_left_bytes", v->r_l);
			jw_arr(j, "apps");
			for (k = 0; k < v->napps; k++)
				for (i = 0; i < in->napps; i++) {
					if (plan->place[i].server != s || plan->place[i].order != k)
						continue;
					jw_obj(j, NULL);
					jw_str(j, "app", in->apps[i].name);
					jw_num(j, "d", in->apps[i].d);
					jw_num(j, "local", in->apps[i].local);
					jw_bool(j, "head", plan->place[i].head);
					jw_num(j, "fit", plan->place[i].fit);
					jw_end_obj(j);
				}
			jw_end_arr(j);
			jw_end_obj(j);
		}
		jw_end_arr(j);
		jw_end_obj(j);
		jw_done(j);
		goto out;
	}
	fprintf(ctx->out, "# %s: alpha %g, s %g B, B_l %g B, B_s %g B, theta %g; %u incast servers, %u extra links\n",
		o->input, in->p.alpha, in->p.s_bytes, in->p.bl_bytes, in->p.bs_bytes, in->p.theta, plan->nservers,
		plan->links);
	for (s = 0; s < plan->nservers; s++) {
		const struct dc_sway_server *v = &plan->srv[s];
		char nm[2 * DC_SWAY_NAME_LEN + 16], b[8][32];

		server_name(nm, sizeof(nm), in, v);
		fprintf(ctx->out, "server %s: %s, %u extra link%s\n", nm, dc_sway_case_name(v->kase), v->links,
			v->links == 1 ? "" : "s");
		fprintf(ctx->out, "  U_l %s  r_l %s B  U_l(3.8) %s  N %s  beta %s -> %s  L %s  r_s %s B\n",
			num(b[0], 32, v->u_l), num(b[1], 32, v->r_l0), num(b[2], 32, v->u_l_remote),
			num(b[3], 32, v->n), num(b[4], 32, v->beta_in), num(b[5], 32, v->beta), num(b[6], 32, v->l),
			num(b[7], 32, v->r_s0));
		for (k = 0; k < v->napps; k++)
			for (i = 0; i < in->napps; i++) {
				if (plan->place[i].server != s || plan->place[i].order != k)
					continue;
				if (plan->place[i].head)
					fprintf(ctx->out, "  app %s d %g local %g: first\n", in->apps[i].name,
						in->apps[i].d, in->apps[i].local);
				else
					fprintf(ctx->out, "  app %s d %g: joins, fit %.6g < 1\n", in->apps[i].name,
						in->apps[i].d, plan->place[i].fit);
			}
		if (v->kase == DC_SWAY_LEAF)
			fprintf(ctx->out, "  left: r_l %s B (Eq. 3.9 as printed: %s)\n", num(b[0], 32, v->r_l),
				num(b[1], 32, v->r_l_frac));
		else
			fprintf(ctx->out, "  left: L_tot %s, r_s %s B\n", num(b[0], 32, v->l_tot),
				num(b[1], 32, v->r_s));
	}
out:
	free(in);
	free(plan);
	return rc;
}

const struct dc_cmd dc_sway_cmds[] = {
	{ "plan", plan_cmd, plan_opts, sizeof(struct sway_plan_args),
	  .summary = "place incast applications on servers and size their extra spine links",
	  .doc = "The greedy planner of Superways (Rezaei, PhD thesis 2021, §3.4.1, Eqs. 3.2-3.9):\n"
		 "applications by average incast degree, descending; each server's first\n"
		 "application sets U_l, N, beta, L and r_s or r_l; others join while they fit.\n"
		 "Options override the file's parameters.  Input format and the readings of\n"
		 "Eq. 3.9 and the r_s update: docs/superways.md." },
	{ NULL },
};
