// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The schedule file and the demand file (docs/rdcn.md).  A refused file
 * is named with its line and the reason.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rdcn/rdcn.h"

#define RS_MAGIC "rdcn-schedule"
#define LINE_MAX_LEN 4096

int dc_rs_write(const struct dc_rs *s, FILE *f)
{
	__u32 t, u, i;

	fprintf(f, "# periodic circuit schedule (dcbpf rdcn, docs/rdcn.md)\n");
	fprintf(f, "%s 1\n", RS_MAGIC);
	fprintf(f, "tors %u\nuplinks %u\nperiod %u\nslot_ns %llu\nday_ns %llu\n", s->cfg.ntors, s->cfg.nup,
		s->cfg.period, (unsigned long long)s->cfg.slot_ns, (unsigned long long)s->cfg.day_ns);
	switch (s->kind) {
	case DC_RS_MARS:
		fprintf(f, "kind mars d=%u\n", s->d);
		break;
	case DC_RS_VERMILION:
		fprintf(f, "kind vermilion k=%u l=%u%s\n", s->k, s->l, s->complete ? " complete" : "");
		break;
	case DC_RS_RR:
	case DC_RS_RR_SELF:
		fprintf(f, "kind %s\n", dc_rs_kind_str(s->kind));
		break;
	}
	fprintf(f, "# match SLOT UPLINK: the ToR that ToR 0, 1, ... reaches\n");
	for (t = 0; t < s->cfg.period; t++)
		for (u = 0; u < s->cfg.nup; u++) {
			fprintf(f, "match %u %u", t, u);
			for (i = 0; i < s->cfg.ntors; i++)
				fprintf(f, " %u", s->slot[t].peer[u][i]);
			fputc('\n', f);
		}
	return ferror(f) ? -EIO : 0;
}

/* A decimal integer in [0, max], whole token. */
static bool parse_u64(const char *tok, unsigned long long max, unsigned long long *v)
{
	char *end;

	if (!tok || *tok < '0' || *tok > '9')
		return false;
	errno = 0;
	*v = strtoull(tok, &end, 10);
	return !errno && !*end && *v <= max;
}

static char *strip(char *line)
{
	char *h = strchr(line, '#');

	if (h)
		*h = '\0';
	return line;
}

#define FAIL(...)                                                                   \
	do {                                                                        \
		rc = dc_err_set(err, EXIT_USAGE, __VA_ARGS__);                      \
		goto out;                                                           \
	} while (0)

int dc_rs_parse(const char *name, FILE *f, struct dc_rs *s, struct dc_err *err)
{
	enum { K_TORS, K_UP, K_PERIOD, K_SLOT, K_DAY, K_N };
	static const char *const keys[K_N] = { "tors", "uplinks", "period", "slot_ns", "day_ns" };
	static const unsigned long long kmax[K_N] = { DC_RD_TORS_MAX, DC_RD_UP_MAX, DC_RD_SLOTS_MAX,
						      1ULL << 54, 1ULL << 54 };
	static bool have_match[DC_RD_SLOTS_MAX][DC_RD_UP_MAX];
	unsigned long long kv[K_N] = { 0 }, v, slot, up;
	bool have[K_N] = { false }, magic = false, header_done = false;
	char line[LINE_MAX_LEN], *tok, *save;
	unsigned int lineno = 0, k, i;
	int rc = 0, bad;

	memset(s, 0, sizeof(*s));
	memset(have_match, 0, sizeof(have_match));
	memset(s->slot, DC_RD_IDLE, sizeof(s->slot));
	s->kind = DC_RS_FILE;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(f))
			FAIL("%s:%u: line longer than %d characters", name, lineno, LINE_MAX_LEN - 1);
		tok = strtok_r(strip(line), " \t\r\n", &save);
		if (!tok)
			continue;
		if (!magic) {
			if (strcmp(tok, RS_MAGIC))
				FAIL("%s:%u: not a schedule file: the first line must be '%s 1'", name, lineno,
				     RS_MAGIC);
			tok = strtok_r(NULL, " \t\r\n", &save);
			if (!tok || strcmp(tok, "1"))
				FAIL("%s:%u: schedule format version '%s': this dcbpf reads 1", name, lineno,
				     tok ? tok : "");
			magic = true;
			continue;
		}
		if (!strcmp(tok, "kind")) {
			/* what made it: `rdcn check` compares rr, rr-self and
			 * mars schedules with the graph they should emulate */
			static const int kinds[] = { DC_RS_RR, DC_RS_RR_SELF, DC_RS_MARS, DC_RS_VERMILION };

			tok = strtok_r(NULL, " \t\r\n", &save);
			for (k = 0; tok && k < 4; k++)
				if (!strcmp(tok, dc_rs_kind_str(kinds[k])))
					s->kind = kinds[k];
			while ((tok = strtok_r(NULL, " \t\r\n", &save)))
				if (!strncmp(tok, "d=", 2) && parse_u64(tok + 2, DC_RD_TORS_MAX, &v))
					s->d = (__u32)v;
			if (s->kind == DC_RS_MARS && !s->d)
				FAIL("%s:%u: kind mars without d=D", name, lineno);
			continue;
		}
		for (k = 0; k < K_N; k++)
			if (!strcmp(tok, keys[k]))
				break;
		if (k < K_N) {
			if (header_done)
				FAIL("%s:%u: '%s' after the first match line", name, lineno, tok);
			if (have[k])
				FAIL("%s:%u: '%s' given twice", name, lineno, tok);
			tok = strtok_r(NULL, " \t\r\n", &save);
			if (!parse_u64(tok, kmax[k], &kv[k]))
				FAIL("%s:%u: %s '%s': a whole number up to %llu", name, lineno, keys[k],
				     tok ? tok : "", kmax[k]);
			if (strtok_r(NULL, " \t\r\n", &save))
				FAIL("%s:%u: %s takes one value", name, lineno, keys[k]);
			have[k] = true;
			continue;
		}
		if (strcmp(tok, "match"))
			FAIL("%s:%u: unknown keyword '%s'", name, lineno, tok);
		if (!header_done) {
			for (k = 0; k < K_N; k++)
				if (!have[k])
					FAIL("%s:%u: '%s' must come before the first match line", name, lineno,
					     keys[k]);
			s->cfg.ntors = (__u16)kv[K_TORS];
			s->cfg.nup = (__u16)kv[K_UP];
			s->cfg.period = (__u32)kv[K_PERIOD];
			s->cfg.slot_ns = kv[K_SLOT];
			s->cfg.day_ns = kv[K_DAY];
			if ((bad = dc_rd_cfg_check(&s->cfg)))
				FAIL("%s:%u: %s", name, lineno, dc_rd_bad_str(bad));
			header_done = true;
		}
		tok = strtok_r(NULL, " \t\r\n", &save);
		if (!parse_u64(tok, s->cfg.period - 1, &slot))
			FAIL("%s:%u: slot '%s': must be 0..%u", name, lineno, tok ? tok : "", s->cfg.period - 1);
		tok = strtok_r(NULL, " \t\r\n", &save);
		if (!parse_u64(tok, s->cfg.nup - 1, &up))
			FAIL("%s:%u: uplink '%s': must be 0..%u", name, lineno, tok ? tok : "", s->cfg.nup - 1);
		if (have_match[slot][up])
			FAIL("%s:%u: slot %llu uplink %llu given twice", name, lineno, slot, up);
		have_match[slot][up] = true;
		for (i = 0; i < s->cfg.ntors; i++) {
			__u32 j;

			tok = strtok_r(NULL, " \t\r\n", &save);
			if (!tok)
				FAIL("%s:%u: %u peers for %u ToRs", name, lineno, i, s->cfg.ntors);
			if (!parse_u64(tok, s->cfg.ntors - 1, &v))
				FAIL("%s:%u: peer of ToR %u '%s': must be a ToR, 0..%u", name, lineno, i, tok,
				     s->cfg.ntors - 1);
			for (j = 0; j < i; j++)
				if (s->slot[slot].peer[up][j] == v)
					FAIL("%s:%u: not a permutation: ToRs %u and %u both reach ToR %llu", name,
					     lineno, j, i, v);
			s->slot[slot].peer[up][i] = (__u8)v;
		}
		if (strtok_r(NULL, " \t\r\n", &save))
			FAIL("%s:%u: more than %u peers for %u ToRs", name, lineno, s->cfg.ntors, s->cfg.ntors);
	}
	if (ferror(f))
		FAIL("%s: read error", name);
	if (!magic)
		FAIL("%s: empty: no '%s 1' line", name, RS_MAGIC);
	if (!header_done)
		FAIL("%s: no match line", name);
	for (slot = 0; slot < s->cfg.period; slot++)
		for (up = 0; up < s->cfg.nup; up++)
			if (!have_match[slot][up])
				FAIL("%s: slot %llu uplink %llu has no match line", name, slot, up);
out:
	return rc;
}

int dc_rs_load(const char *path, struct dc_rs *s, struct dc_err *err)
{
	FILE *f = fopen(path, "r");
	int rc;

	if (!f)
		return dc_err_set(err, EXIT_USAGE, "%s: %s", path, strerror(errno));
	rc = dc_rs_parse(path, f, s, err);
	fclose(f);
	return rc;
}

int dc_rs_parse_demand(const char *name, FILE *f, double **m_out, __u32 *n_out, struct dc_err *err)
{
	char line[LINE_MAX_LEN], *tok, *save, *end;
	unsigned int lineno = 0;
	__u32 n = 0, row = 0, col;
	double *m = NULL;
	int rc = 0;

	while (fgets(line, sizeof(line), f)) {
		double vals[DC_RD_TORS_MAX + 1];

		lineno++;
		if (!strchr(line, '\n') && !feof(f))
			FAIL("%s:%u: line longer than %d characters", name, lineno, LINE_MAX_LEN - 1);
		col = 0;
		for (tok = strtok_r(strip(line), " \t\r\n,", &save); tok; tok = strtok_r(NULL, " \t\r\n,", &save)) {
			if (col > DC_RD_TORS_MAX)
				FAIL("%s:%u: more than %u columns", name, lineno, DC_RD_TORS_MAX);
			errno = 0;
			vals[col] = strtod(tok, &end);
			if (errno || *end || !isfinite(vals[col]) || vals[col] < 0)
				FAIL("%s:%u: demand '%s': a finite number >= 0", name, lineno, tok);
			col++;
		}
		if (!col)
			continue;
		if (!n) {
			if (col < 2 || col > DC_RD_TORS_MAX)
				FAIL("%s:%u: %u columns: a matrix of 2..%u ToRs", name, lineno, col, DC_RD_TORS_MAX);
			n = col;
			m = calloc((size_t)n * n, sizeof(*m));
			if (!m)
				FAIL("%s: out of memory", name);
		}
		if (col != n)
			FAIL("%s:%u: %u columns, the first row has %u", name, lineno, col, n);
		if (row == n)
			FAIL("%s:%u: more than %u rows for %u columns", name, lineno, n, n);
		memcpy(&m[row * n], vals, n * sizeof(*m));
		row++;
	}
	if (!n)
		FAIL("%s: no demand rows", name);
	if (row != n)
		FAIL("%s: %u rows for %u columns", name, row, n);
	*m_out = m;
	*n_out = n;
	return 0;
out:
	free(m);
	return rc;
}

int dc_rs_load_demand(const char *path, double **m, __u32 *n_out, struct dc_err *err)
{
	FILE *f = fopen(path, "r");
	int rc;

	if (!f)
		return dc_err_set(err, EXIT_USAGE, "%s: %s", path, strerror(errno));
	rc = dc_rs_parse_demand(path, f, m, n_out, err);
	fclose(f);
	return rc;
}

/* IF=TOR/UP@MAC: interface IF of the circuit switch is port (TOR, UP), and
 * TOR's uplink on the other end sends from MAC. */
int dc_rd_port_parse(const char *spec, struct dc_rd_portspec *p, struct dc_err *err)
{
	const char *eq = strchr(spec, '='), *sl, *at;
	unsigned long tor, up;
	unsigned int m[6], i;
	char *end, tail;
	size_t n;

	memset(p, 0, sizeof(*p));
	if (!eq || eq == spec)
		return dc_err_set(err, EXIT_USAGE, "--port %s: IF=TOR/UP@MAC (e.g. c0u0=0/0@02:dc:7d:00:00:00)",
				  spec);
	n = (size_t)(eq - spec);
	if (n >= sizeof(p->ifname))
		return dc_err_set(err, EXIT_USAGE, "--port %s: interface name longer than %zu", spec,
				  sizeof(p->ifname) - 1);
	memcpy(p->ifname, spec, n);
	sl = strchr(eq, '/');
	at = strchr(eq, '@');
	if (!sl || !at || at < sl)
		return dc_err_set(err, EXIT_USAGE, "--port %s: IF=TOR/UP@MAC", spec);
	errno = 0;
	tor = strtoul(eq + 1, &end, 10);
	if (end != sl || end == eq + 1 || errno || tor >= DC_RD_TORS_MAX)
		return dc_err_set(err, EXIT_USAGE, "--port %s: ToR must be 0..%u", spec, DC_RD_TORS_MAX - 1);
	up = strtoul(sl + 1, &end, 10);
	if (end != at || end == sl + 1 || errno || up >= DC_RD_UP_MAX)
		return dc_err_set(err, EXIT_USAGE, "--port %s: uplink must be 0..%u", spec, DC_RD_UP_MAX - 1);
	if (strlen(at + 1) != 17 ||
	    sscanf(at + 1, "%2x:%2x:%2x:%2x:%2x:%2x%c", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5], &tail) != 6)
		return dc_err_set(err, EXIT_USAGE, "--port %s: MAC must be six hex bytes with ':'", spec);
	if (m[0] & 1)
		return dc_err_set(err, EXIT_USAGE, "--port %s: %s is a group address, not a ToR's", spec, at + 1);
	p->tor = (__u32)tor;
	p->up = (__u32)up;
	for (i = 0; i < 6; i++)
		p->mac[i] = (__u8)m[i];
	return 0;
}
