// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Superways plan input files (docs/superways.md):
 *
 *	# comment
 *	alpha 0.8                 jitter factor, (0, 1]
 *	flow-bytes 10000          s: average flow size, bytes
 *	leaf-buffer 240000        B_l: leaf per-port buffer, bytes
 *	spine-buffer 240000       B_s: spine per-port buffer, bytes
 *	theta 4                   spine link speed / leaf link speed, >= 1
 *	rack NAME SERVERS         in the order closest to the spines first
 *	app NAME d=DEGREE local=SENDERS
 *
 * A file that breaks a rule is refused with its line and the rule.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "textfile.h"
#include "superways/sway.h"

#define LINE_MAX_ 1024

static const char *const param_names[5] = { "alpha", "flow-bytes", "leaf-buffer", "spine-buffer", "theta" };

void dc_sway_defaults(struct dc_sway_params *p)
{
	p->alpha = 0.8;
	p->s_bytes = 1500;
	p->bl_bytes = 240000;
	p->bs_bytes = 240000;
	p->theta = 4;
}

static double *param_field(struct dc_sway_params *p, unsigned int i)
{
	double *f[5] = { &p->alpha, &p->s_bytes, &p->bl_bytes, &p->bs_bytes, &p->theta };

	return f[i];
}

static bool parse_num(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return end != s && !*end && !errno && isfinite(*v);
}

static bool name_ok(const char *s)
{
	if (!*s || strlen(s) >= DC_SWAY_NAME_LEN || strchr(s, '='))
		return false;
	for (; *s; s++)
		if (*s < 0x21 || *s > 0x7e)
			return false;
	return true;
}

static void err_append(struct dc_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void err_append(struct dc_err *err, const char *fmt, ...)
{
	size_t n = strlen(err->msg);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof(err->msg) - n, fmt, ap);
	va_end(ap);
}

#define BAD(...) (dc_err_set(err, EXIT_USAGE, "%s:%u: ", name, lineno), err_append(err, __VA_ARGS__), \
		  EXIT_USAGE)

static int parse_line(char *line, const char *name, unsigned int lineno, struct dc_sway_input *in,
		      struct dc_err *err)
{
	char *tok[8], *save = NULL, *w;
	unsigned int n = 0, i;

	for (w = strtok_r(line, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
		if (*w == '#')
			break;
		if (n == sizeof(tok) / sizeof(tok[0]))
			return BAD("too many words");
		tok[n++] = w;
	}
	if (!n)
		return 0;
	for (i = 0; i < 5; i++) {
		if (strcmp(tok[0], param_names[i]))
			continue;
		if (n != 2)
			return BAD("'%s VALUE' takes one value", param_names[i]);
		if (in->p_set[i])
			return BAD("'%s' given twice", param_names[i]);
		if (!parse_num(tok[1], param_field(&in->p, i)))
			return BAD("%s '%s': not a number", param_names[i], tok[1]);
		in->p_set[i] = true;
		return 0;
	}
	if (!strcmp(tok[0], "rack")) {
		struct dc_sway_rack *r;
		double v;

		if (n != 3)
			return BAD("'rack NAME SERVERS' takes 2 words, not %u", n - 1);
		if (!name_ok(tok[1]))
			return BAD("rack name '%s': 1..%d printable characters, no '='", tok[1],
				   DC_SWAY_NAME_LEN - 1);
		for (i = 0; i < in->nracks; i++)
			if (!strcmp(in->racks[i].name, tok[1]))
				return BAD("rack '%s' declared twice", tok[1]);
		if (in->nracks == DC_SWAY_RACKS_MAX)
			return BAD("more than %d racks", DC_SWAY_RACKS_MAX);
		if (!parse_num(tok[2], &v) || v < 1 || v > 1e6 || v != floor(v))
			return BAD("rack '%s': servers '%s' is not a whole number from 1 to 1000000", tok[1],
				   tok[2]);
		r = &in->racks[in->nracks++];
		snprintf(r->name, sizeof(r->name), "%s", tok[1]);
		r->servers = (unsigned int)v;
		return 0;
	}
	if (!strcmp(tok[0], "app")) {
		struct dc_sway_app *a;
		bool got_d = false, got_l = false;

		if (n < 2 || !name_ok(tok[1]))
			return BAD("'app NAME d=DEGREE local=SENDERS': name '%s': 1..%d printable characters, "
				   "no '='", n < 2 ? "" : tok[1], DC_SWAY_NAME_LEN - 1);
		for (i = 0; i < in->napps; i++)
			if (!strcmp(in->apps[i].name, tok[1]))
				return BAD("app '%s' declared twice", tok[1]);
		if (in->napps == DC_SWAY_APPS_MAX)
			return BAD("more than %d apps", DC_SWAY_APPS_MAX);
		a = &in->apps[in->napps];
		memset(a, 0, sizeof(*a));
		for (i = 2; i < n; i++) {
			char *eq = strchr(tok[i], '=');

			if (!eq)
				return BAD("app '%s': '%s' is not KEY=VALUE (d=, local=)", tok[1], tok[i]);
			*eq = 0;
			if (!strcmp(tok[i], "d") && !got_d) {
				if (!parse_num(eq + 1, &a->d))
					return BAD("app '%s': d=%s is not a number", tok[1], eq + 1);
				got_d = true;
			} else if (!strcmp(tok[i], "local") && !got_l) {
				if (!parse_num(eq + 1, &a->local))
					return BAD("app '%s': local=%s is not a number", tok[1], eq + 1);
				got_l = true;
			} else if (!strcmp(tok[i], "d") || !strcmp(tok[i], "local")) {
				return BAD("app '%s': %s= given twice", tok[1], tok[i]);
			} else {
				return BAD("app '%s': unknown attribute '%s' (d=, local=)", tok[1], tok[i]);
			}
		}
		if (!got_d || !got_l)
			return BAD("app '%s': needs d= (average incast degree) and local= (senders in its rack)",
				   tok[1]);
		{
			const char *why = dc_sway_app_check(a);

			if (why)
				return BAD("app '%s': %s", tok[1], why);
		}
		snprintf(a->name, sizeof(a->name), "%s", tok[1]);
		in->napps++;
		return 0;
	}
	return BAD("unknown keyword '%s' (alpha, flow-bytes, leaf-buffer, spine-buffer, theta, rack, app)",
		   tok[0]);
}

int dc_sway_parse(const char *text, const char *name, struct dc_sway_input *in, struct dc_err *err)
{
	char line[LINE_MAX_];
	unsigned int lineno = 0, i;
	const char *p = text;
	struct dc_sway_params def;
	int rc;

	memset(in, 0, sizeof(*in));
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		lineno++;
		if (len >= sizeof(line))
			return BAD("line longer than %d bytes", LINE_MAX_ - 1);
		memcpy(line, p, len);
		line[len] = 0;
		rc = parse_line(line, name, lineno, in, err);
		if (rc)
			return rc;
		p += len + (nl ? 1 : 0);
	}
	dc_sway_defaults(&def);
	for (i = 0; i < 5; i++)
		if (!in->p_set[i])
			*param_field(&in->p, i) = *param_field(&def, i);
	if (!in->nracks)
		return dc_err_set(err, EXIT_USAGE, "%s: no rack declared", name);
	if (!in->napps)
		return dc_err_set(err, EXIT_USAGE, "%s: no app declared", name);
	return 0;
}

int dc_sway_check(const struct dc_sway_input *in, const char *name, struct dc_err *err)
{
	const char *why = dc_sway_params_check(&in->p);

	if (why)
		return dc_err_set(err, EXIT_USAGE, "%s: %s", name, why);
	return 0;
}

int dc_sway_load(const char *path, struct dc_sway_input *in, struct dc_err *err)
{
	char *buf;
	int rc;

	if (dc_text_read(path, 1u << 20, &buf, err))
		return err->code;
	rc = dc_sway_parse(buf, path, in, err);
	free(buf);
	return rc;
}
