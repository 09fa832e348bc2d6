// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf get`, `set` and `params`: the CCs' live parameters in user units
 * (the switches' sw.NAME.KEY ones go to loader/sw/), and the reference of
 * every parameter.  `set` commits through the one CC config map
 * transaction (loader/lib/ccmap.h) the daemon's reload uses too.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ccmap.h"
#include "ccmd.h"
#include "cli.h"
#include "sw/swctl.h"

const struct dc_opt dc_cc_get_opts[] = {
	{ "KEY", 0, DC_OPT_STR, DC_FIELD(struct dc_cc_get_args, key), NULL,
	  .help = "CC (every key of it), CC.KEY (the bare value), sw.NAME or sw.NAME.KEY; "
		  "none: every key of every CC",
	  .flags = DC_OPT_F_POS },
	{ NULL },
};

const struct dc_opt dc_cc_set_opts[] = {
	{ "KEY=VALUE", 0, DC_OPT_REST, DC_FIELD(struct dc_cc_set_args, kv), NULL,
	  .help = "CC.KEY=VALUE or sw.NAME.KEY=VALUE assignments (one kind per command), "
		  "checked first, then applied all or nothing",
	  .required = true, .flags = DC_OPT_F_POS | DC_OPT_F_VERBATIM },
	{ NULL },
};

const struct dc_opt dc_cc_no_opts[] = {
	{ NULL },
};

/*
 * The sw.NAME[.KEY] forms belong to the switch (dc_sw_get, dc_sw_set with
 * key NULL).  In JSON mode its document is kept until it succeeded: a
 * failure part way through leaves one error object on stdout, not a
 * started document and the error after it.
 */
static int sw_keys(struct dc_ctx *ctx, const char *key, int argc, char **argv)
{
	struct dc_err e = { 0 };
	char *buf = NULL;
	size_t len = 0;
	struct jw j;
	FILE *f = NULL;
	int rc;

	if (ctx->json) {
		f = open_memstream(&buf, &len);
		if (!f)
			return dc_fail(ctx, EXIT_ERR, "out of memory");
		jw_init(&j, f);
	}
	if (key)
		rc = dc_sw_get(ctx->pin_dir, ctx->json, f ? &j : &ctx->jw, key, &e);
	else
		rc = dc_sw_set(ctx->pin_dir, ctx->json, f ? &j : &ctx->jw, argc, argv, &e);
	if (f) {
		fclose(f);
		if (!rc)
			fwrite(buf, 1, len, ctx->out);
		free(buf);
	}
	if (rc && dc_err_is_set(&e))
		ctx->err = e;
	else if (rc)
		dc_fail(ctx, rc, "switch parameters: failed");
	return rc;
}

int dc_cc_get_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct dc_cc_get_args *a = ctx->opts;
	const struct dc_cc_desc *only_cc = NULL;
	const struct dc_param *only_p = NULL;
	struct dc_cc_cfg cfg[DC_CC_MAX];
	bool present[DC_CC_MAX];
	char why[256];
	unsigned int i, k;
	int rc;

	(void)argc;
	(void)argv;
	if (a->key && !strncmp(a->key, "sw.", 3))
		return sw_keys(ctx, a->key, 0, NULL);
	if (a->key) {
		if (strchr(a->key, '.')) {
			if (dc_key_parse(a->key, &only_cc, &only_p, why, sizeof(why)))
				return dc_fail(ctx, EXIT_USAGE, "%s", why);
		} else if (!(only_cc = dc_cc_find(a->key))) {
			char names[128];

			return dc_fail(ctx, EXIT_USAGE, "unknown congestion control '%s' (use %s)",
				       a->key, dc_cc_names(names, sizeof(names), "", "", " or "));
		}
	}
	rc = dc_cli_need_root(ctx);
	if (rc)
		return rc;
	if (cc_load_cfgs(ctx, cfg, present))
		return EXIT_ERR;

	if (only_p) {
		if (ctx->json) {
			char val[64];

			dc_param_format(only_p, &cfg[only_cc->id], val, sizeof(val));
			jw_obj(&ctx->jw, NULL);
			jw_raw(&ctx->jw, a->key, val);
			jw_end_obj(&ctx->jw);
			jw_done(&ctx->jw);
		} else {
			cc_emit_param(ctx, only_cc->name, only_p, &cfg[only_cc->id], true);
		}
		return EXIT_OK;
	}
	if (ctx->json)
		jw_obj(&ctx->jw, NULL);
	for (k = 0; k < DC_CC_MAX; k++) {
		if (only_cc && only_cc->id != dc_ccs[k].id)
			continue;
		if (!present[k])
			fprintf(ctx->errf, "dcbpf: note: %s has no entry in %s; "
				"showing the defaults it uses\n", dc_ccs[k].name, DC_MAP_CFG);
		if (ctx->json)
			jw_obj(&ctx->jw, dc_ccs[k].name);
		for (i = 0; i < dc_nparams; i++)
			if (dc_params[i].scope == DC_SCOPE_CC)
				cc_emit_param(ctx, dc_ccs[k].name, &dc_params[i], &cfg[k], false);
		if (ctx->json)
			jw_end_obj(&ctx->jw);
	}
	if (ctx->json) {
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	}
	return EXIT_OK;
}

/* Every bad assignment: text gets a line each, JSON the reasons joined. */
struct set_problems {
	int n;
	char joined[DC_ERR_MSG_LEN];
};

static void set_problem(struct dc_ctx *ctx, struct set_problems *sp, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set_problem(struct dc_ctx *ctx, struct set_problems *sp, const char *fmt, ...)
{
	char why[DC_ERR_MSG_LEN];
	size_t k = strlen(sp->joined);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (!ctx->json) {
		fprintf(ctx->errf, "dcbpf set: %s\n", why);
	} else if (k + 3 < sizeof(sp->joined)) {	/* what fits; the error says it was cut */
		size_t room, l = strlen(why);

		if (sp->n) {
			memcpy(sp->joined + k, "; ", 2);
			k += 2;
		}
		room = sizeof(sp->joined) - k - 1;
		if (l > room)
			l = room;
		memcpy(sp->joined + k, why, l);
		sp->joined[k + l] = '\0';
	}
	sp->n++;
}

/*
 * Apply KEY=VALUE arguments to cfg.  Every argument is checked; with sp,
 * every problem is recorded.  Returns the number of bad arguments.
 */
static int apply_assignments(struct dc_ctx *ctx, int argc, char **argv, struct dc_cc_cfg *cfg,
			     struct set_problems *sp)
{
	const struct dc_cc_desc *cc;
	const struct dc_param *p;
	char key[128], why[256], range[64];
	int i, j, bad = 0;

	for (i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t kl;

		bad++;
		if (!eq) {
			if (sp)
				set_problem(ctx, sp, "'%s': expected CC.KEY=VALUE", argv[i]);
			continue;
		}
		kl = (size_t)(eq - argv[i]);
		if (kl >= sizeof(key))
			kl = sizeof(key) - 1;
		memcpy(key, argv[i], kl);
		key[kl] = '\0';
		if (dc_key_parse(key, &cc, &p, why, sizeof(why))) {
			if (sp)
				set_problem(ctx, sp, "%s", why);
			continue;
		}
		for (j = 0; j < i; j++)
			if (!strncmp(argv[j], argv[i], kl + 1))
				break;
		if (j < i) {
			if (sp)
				set_problem(ctx, sp, "%s given twice", key);
			continue;
		}
		if (dc_param_parse(p, eq + 1, &cfg[cc->id], why, sizeof(why))) {
			bool unit = strcmp(p->unit, "-");

			dc_param_range(p, range, sizeof(range));
			if (sp)
				set_problem(ctx, sp, "%s = %s: %s; allowed %s%s%s", key, eq + 1, why,
					    range, unit ? " " : "", unit ? p->unit : "");
			continue;
		}
		bad--;
	}
	return bad;
}

static void report_changes(struct dc_ctx *ctx, const struct dc_cc_cfg *cur,
			   const struct dc_cc_cfg *want, unsigned int written)
{
	unsigned int i, k;

	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_arr(&ctx->jw, "changed");
	}
	for (k = 0; k < DC_CC_MAX; k++) {
		if (!(written & (1U << k)))
			continue;
		for (i = 0; i < dc_nparams; i++) {
			const struct dc_param *p = &dc_params[i];
			char a[64], b[64], key[96];

			if (p->scope != DC_SCOPE_CC ||
			    dc_param_raw(p, &cur[k]) == dc_param_raw(p, &want[k]))
				continue;
			dc_param_format(p, &cur[k], a, sizeof(a));
			dc_param_format(p, &want[k], b, sizeof(b));
			if (!ctx->json) {
				fprintf(ctx->out, "%s.%s: %s -> %s\n", dc_ccs[k].name, p->name, a, b);
				continue;
			}
			snprintf(key, sizeof(key), "%s.%s", dc_ccs[k].name, p->name);
			jw_obj(&ctx->jw, NULL);
			jw_str(&ctx->jw, "key", key);
			jw_raw(&ctx->jw, "old", a);
			jw_raw(&ctx->jw, "new", b);
			jw_end_obj(&ctx->jw);
		}
	}
	if (ctx->json) {
		jw_end_arr(&ctx->jw);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else if (!written) {
		fprintf(ctx->out, "unchanged\n");
	}
}

int dc_cc_set_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct dc_cc_set_args *a = ctx->opts;
	struct dc_cc_cfg cur[DC_CC_MAX], want[DC_CC_MAX];
	const char *names[DC_CC_MAX];
	struct set_problems sp = { 0 };
	struct dc_ccmap_result res;
	struct dc_ccmap_io io;
	unsigned int i, k;
	int fd, rc;

	(void)argc;
	(void)argv;
	/* switch keys go to the switch's own maps; one kind per command keeps
	 * "all or nothing" simple */
	for (i = 0, k = 0; i < (unsigned int)a->kv.argc; i++)
		k += !strncmp(a->kv.argv[i], "sw.", 3);
	if (k && k != (unsigned int)a->kv.argc)
		return dc_fail(ctx, EXIT_USAGE, "set either sw.NAME.KEY=VALUE or CC.KEY=VALUE "
			       "assignments, not both at once");
	if (k)
		return sw_keys(ctx, NULL, a->kv.argc, a->kv.argv);
	/* validate against defaults first: a bad value is reported even
	 * without root or a daemon */
	for (k = 0; k < DC_CC_MAX; k++)
		dc_cc_cfg_defaults(&want[k]);
	if (apply_assignments(ctx, a->kv.argc, a->kv.argv, want, &sp)) {
		if (ctx->json)
			return dc_fail(ctx, EXIT_USAGE, "%s; nothing changed", sp.joined);
		return dc_fail(ctx, EXIT_USAGE, "%d bad assignment(s); nothing changed", sp.n);
	}
	rc = dc_cli_need_root(ctx);
	if (rc)
		return rc;
	fd = cc_open_cfg(ctx);
	if (fd < 0)
		return EXIT_ERR;
	/* the new entries are the ones there (or the defaults a CC uses
	 * without one) with the assignments applied */
	dc_ccmap_fd_io(&io, &fd);
	dc_ccmap_read(&io, &res);
	for (k = 0; k < DC_CC_MAX; k++) {
		if (!res.present[k])
			dc_cc_cfg_defaults(&res.old[k]);
		cur[k] = res.old[k];
		names[k] = dc_ccs[k].name;
	}
	memcpy(want, cur, sizeof(want));
	apply_assignments(ctx, a->kv.argc, a->kv.argv, want, NULL);
	memset(&res, 0, sizeof(res));
	rc = dc_ccmap_commit(&io, want, names, &res, &ctx->err);
	close(fd);
	if (rc) {
		dc_err_prefix(&ctx->err, "%s/%s", ctx->pin_dir, DC_MAP_CFG);
		return EXIT_ERR;
	}
	report_changes(ctx, cur, want, res.written);
	return EXIT_OK;
}

int dc_cc_params_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	struct dc_config def;
	char val[DC_PATH_LEN], range[64];
	unsigned int i;

	(void)argc;
	(void)argv;
	if (!ctx->json) {
		dc_config_print_doc(ctx->out);
		return EXIT_OK;
	}
	dc_config_defaults(&def);
	jw_arr(&ctx->jw, NULL);
	for (i = 0; i < dc_nparams; i++) {
		const struct dc_param *p = &dc_params[i];
		const void *base = dc_param_base(p, &def);

		dc_param_format(p, base, val, sizeof(val));
		dc_param_range(p, range, sizeof(range));
		jw_obj(&ctx->jw, NULL);
		jw_str(&ctx->jw, "section", p->scope == DC_SCOPE_DAEMON ? "daemon" :
					    p->scope == DC_SCOPE_INT ? "int" :
					    p->scope == DC_SCOPE_PERC ? "perc" : "cc");
		jw_str(&ctx->jw, "key", p->name);
		jw_str(&ctx->jw, "default", val);
		jw_str(&ctx->jw, "allowed", range);
		jw_str(&ctx->jw, "unit", p->unit);
		if (p->field)
			jw_str(&ctx->jw, "field", p->field);
		jw_str(&ctx->jw, "doc", p->doc);
		jw_end_obj(&ctx->jw);
	}
	jw_end_arr(&ctx->jw);
	jw_done(&ctx->jw);
	return EXIT_OK;
}
