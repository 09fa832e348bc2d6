// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Topology files of `dcbpf perc` (docs/perc.md):
 *
 *	# comment
 *	link NAME CAPACITY            CAPACITY: kbps, or with k, M, G, T (bit/s)
 *	flow NAME LINK... [start=R] [fin=R]    forward path, 1..8 links; R in rounds
 *
 * A file that breaks a rule is refused with its line and the rule.
 */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "textfile.h"
#include "perc/percsim.h"

#define LINE_MAX_ 4096

static int link_find(const struct dc_pt_topo *t, const char *name)
{
	for (__u32 i = 0; i < t->nlinks; i++)
		if (!strcmp(t->links[i].name, name))
			return (int)i;
	return -1;
}

static int flow_find(const struct dc_pt_topo *t, const char *name)
{
	for (__u32 i = 0; i < t->nflows; i++)
		if (!strcmp(t->flows[i].name, name))
			return (int)i;
	return -1;
}

/* "20G" -> 20000000 kbps.  false: not a capacity. */
static bool parse_cap(const char *s, __u64 *kbps)
{
	char *end;
	double v, mul = 1;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v))
		return false;
	if (*end) {
		switch (*end) {
		case 'k': mul = 1; break;
		case 'M': mul = 1e3; break;
		case 'G': mul = 1e6; break;
		case 'T': mul = 1e9; break;
		default: return false;
		}
		if (end[1] && strcmp(end + 1, "bps"))
			return false;
	}
	v *= mul;
	if (v < 1 || v >= (double)DC_PERC_INF_KBPS || v != floor(v))
		return false;
	*kbps = (__u64)v;
	return true;
}

static bool parse_rounds(const char *s, double *r)
{
	char *end;

	errno = 0;
	*r = strtod(s, &end);
	return end != s && !*end && !errno && isfinite(*r) && *r >= 0 && *r <= 1e6;
}

static bool name_ok(const char *s)
{
	if (!*s || strlen(s) >= DC_PT_NAME_LEN || strchr(s, '='))
		return false;
	for (; *s; s++)
		if (*s < 0x21 || *s > 0x7e)
			return false;
	return true;
}

#define BAD(...) (dc_err_set(err, EXIT_USAGE, "%s:%u: ", name, lineno), \
		  dc_err_append(err, __VA_ARGS__), EXIT_USAGE)

/* Append to err's message (dc_err_set has written the position). */
static void dc_err_append(struct dc_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void dc_err_append(struct dc_err *err, const char *fmt, ...)
{
	size_t n = strlen(err->msg);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof(err->msg) - n, fmt, ap);
	va_end(ap);
}

static int parse_line(char *line, const char *name, unsigned int lineno, struct dc_pt_topo *t,
		      struct dc_err *err)
{
	char *tok[DC_PERC_MAX_HOPS + 8], *save = NULL, *w;
	unsigned int n = 0, i;

	for (w = strtok_r(line, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
		if (*w == '#')
			break;
		if (n == sizeof(tok) / sizeof(tok[0]))
			return BAD("too many words (a flow crosses at most %d links)", DC_PERC_MAX_HOPS);
		tok[n++] = w;
	}
	if (!n)
		return 0;
	if (!strcmp(tok[0], "link")) {
		struct dc_pt_link *l;

		if (n != 3)
			return BAD("'link NAME CAPACITY' takes 2 words, not %u", n - 1);
		if (!name_ok(tok[1]))
			return BAD("link name '%s': 1..%d printable characters, no '='", tok[1],
				   DC_PT_NAME_LEN - 1);
		if (link_find(t, tok[1]) >= 0)
			return BAD("link '%s' declared twice", tok[1]);
		if (t->nlinks == DC_PT_LINKS_MAX)
			return BAD("more than %d links", DC_PT_LINKS_MAX);
		l = &t->links[t->nlinks];
		if (!parse_cap(tok[2], &l->cap_kbps))
			return BAD("capacity '%s': a whole number of kbps from 1 to %u, e.g. 1000000, 1000M, 1G",
				   tok[2], DC_PERC_INF_KBPS - 1);
		snprintf(l->name, sizeof(l->name), "%s", tok[1]);
		t->nlinks++;
		return 0;
	}
	if (!strcmp(tok[0], "flow")) {
		struct dc_pt_flow *f;

		if (n < 3)
			return BAD("'flow NAME LINK...' needs a name and at least one link");
		if (!name_ok(tok[1]))
			return BAD("flow name '%s': 1..%d printable characters, no '='", tok[1],
				   DC_PT_NAME_LEN - 1);
		if (flow_find(t, tok[1]) >= 0)
			return BAD("flow '%s' declared twice", tok[1]);
		if (t->nflows == DC_PT_FLOWS_MAX)
			return BAD("more than %d flows", DC_PT_FLOWS_MAX);
		f = &t->flows[t->nflows];
		memset(f, 0, sizeof(*f));
		f->fin_rounds = DC_PT_NEVER;
		for (i = 2; i < n; i++) {
			char *eq = strchr(tok[i], '=');
			int li;

			if (eq) {
				*eq = 0;
				if (!strcmp(tok[i], "start")) {
					if (!parse_rounds(eq + 1, &f->start_rounds))
						return BAD("start=%s: a number of rounds >= 0", eq + 1);
				} else if (!strcmp(tok[i], "fin")) {
					if (!parse_rounds(eq + 1, &f->fin_rounds))
						return BAD("fin=%s: a number of rounds >= 0", eq + 1);
				} else {
					return BAD("unknown attribute '%s' (start=, fin=)", tok[i]);
				}
				continue;
			}
			li = link_find(t, tok[i]);
			if (li < 0)
				return BAD("flow '%s': link '%s' is not declared (declare links first)",
					   tok[1], tok[i]);
			for (__u32 j = 0; j < f->nhops; j++)
				if (f->path[j] == (__u32)li)
					return BAD("flow '%s' crosses link '%s' twice", tok[1], tok[i]);
			if (f->nhops == DC_PERC_MAX_HOPS)
				return BAD("flow '%s' crosses more than %d links", tok[1], DC_PERC_MAX_HOPS);
			f->path[f->nhops++] = (__u32)li;
		}
		if (!f->nhops)
			return BAD("flow '%s' crosses no link", tok[1]);
		if (f->fin_rounds != DC_PT_NEVER && f->fin_rounds <= f->start_rounds)
			return BAD("flow '%s': fin=%g is not after start=%g", tok[1], f->fin_rounds,
				   f->start_rounds);
		snprintf(f->name, sizeof(f->name), "%s", tok[1]);
		t->nflows++;
		return 0;
	}
	return BAD("unknown keyword '%s' (link, flow)", tok[0]);
}

int dc_pt_parse(const char *text, const char *name, struct dc_pt_topo *t, struct dc_err *err)
{
	char line[LINE_MAX_];
	unsigned int lineno = 0;
	const char *p = text;
	int rc;

	memset(t, 0, sizeof(*t));
	t->links = calloc(DC_PT_LINKS_MAX, sizeof(*t->links));
	t->flows = calloc(DC_PT_FLOWS_MAX, sizeof(*t->flows));
	if (!t->links || !t->flows) {
		dc_pt_free(t);
		return dc_err_set(err, EXIT_ERR, "out of memory");
	}
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		lineno++;
		if (len >= sizeof(line)) {
			dc_pt_free(t);
			return BAD("line longer than %d bytes", LINE_MAX_ - 1);
		}
		memcpy(line, p, len);
		line[len] = 0;
		rc = parse_line(line, name, lineno, t, err);
		if (rc) {
			dc_pt_free(t);
			return rc;
		}
		p += len + (nl ? 1 : 0);
	}
	if (!t->nflows) {
		dc_pt_free(t);
		return dc_err_set(err, EXIT_USAGE, "%s: no flow declared", name);
	}
	return 0;
}

int dc_pt_load(const char *path, struct dc_pt_topo *t, struct dc_err *err)
{
	char *buf;
	int rc;

	if (dc_text_read(path, 16u << 20, &buf, err))
		return err->code;
	rc = dc_pt_parse(buf, path, t, err);
	free(buf);
	return rc;
}

void dc_pt_free(struct dc_pt_topo *t)
{
	free(t->links);
	free(t->flows);
	t->links = NULL;
	t->flows = NULL;
	t->nlinks = t->nflows = 0;
}
