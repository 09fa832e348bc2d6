// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Counter tables generated from the lists in include/dcbpf/, and the
 * outputs every user of a counter struct shares (sums, text, JSON,
 * Prometheus).  Library code: writes only to the FILE or writer it is
 * given.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "dcbpf/types.h"
#include "dcbpf/switch.h"
#include "dcbpf/ethereal.h"
#include "dcbpf/dctcp.h"
#include "dcbpf/icon.h"
#include "dcbpf/ictcp.h"
#include "dcbpf/resqueue.h"
#include "dcbpf/rdcn.h"
#include "dcbpf/perc.h"
#include "dcbpf/cosy.h"
#include "counters.h"

#define DC_CTR_DESC(st, field, flags, prom, help) \
	{ #field, help, prom, offsetof(struct st, field), flags },
#define DC_CTR_SET(var, st, LIST)                                            \
	static const struct dc_ctr var##_tab[] = {                           \
		LIST(DC_CTR_ROW_##st)                                        \
	};                                                                   \
	const struct dc_ctr_set var = { #st, sizeof(struct st),              \
		sizeof(var##_tab) / sizeof(var##_tab[0]), var##_tab }

/* X takes four arguments; the struct name is bound per list. */
#define DC_CTR_ROW_dc_cc_counters(f, fl, p, h) DC_CTR_DESC(dc_cc_counters, f, fl, p, h)
#define DC_CTR_ROW_dc_int_counters(f, fl, p, h) DC_CTR_DESC(dc_int_counters, f, fl, p, h)
#define DC_CTR_ROW_dc_sw_counters(f, fl, p, h) DC_CTR_DESC(dc_sw_counters, f, fl, p, h)
#define DC_CTR_ROW_dc_eth_hcounters(f, fl, p, h) DC_CTR_DESC(dc_eth_hcounters, f, fl, p, h)
#define DC_CTR_ROW_dc_eth_lcounters(f, fl, p, h) DC_CTR_DESC(dc_eth_lcounters, f, fl, p, h)
#define DC_CTR_ROW_dc_dctcp_stats(f, fl, p, h) DC_CTR_DESC(dc_dctcp_stats, f, fl, p, h)
#define DC_CTR_ROW_dc_icon_counters(f, fl, p, h) DC_CTR_DESC(dc_icon_counters, f, fl, p, h)
#define DC_CTR_ROW_dc_ictcp_counters(f, fl, p, h) DC_CTR_DESC(dc_ictcp_counters, f, fl, p, h)
#define DC_CTR_ROW_dc_resq_counters(f, fl, p, h) DC_CTR_DESC(dc_resq_counters, f, fl, p, h)
#define DC_CTR_ROW_dc_rd_pcnt(f, fl, p, h) DC_CTR_DESC(dc_rd_pcnt, f, fl, p, h)
#define DC_CTR_ROW_dc_perc_stats(f, fl, p, h) DC_CTR_DESC(dc_perc_stats, f, fl, p, h)
#define DC_CTR_ROW_dc_cosy_stats(f, fl, p, h) DC_CTR_DESC(dc_cosy_stats, f, fl, p, h)

DC_CTR_SET(dc_ctr_cc, dc_cc_counters, DC_CC_COUNTERS);
DC_CTR_SET(dc_ctr_int, dc_int_counters, DC_INT_COUNTERS);
DC_CTR_SET(dc_ctr_sw, dc_sw_counters, DC_SW_COUNTERS);
DC_CTR_SET(dc_ctr_eth_host, dc_eth_hcounters, DC_ETH_HCOUNTERS);
DC_CTR_SET(dc_ctr_eth_leaf, dc_eth_lcounters, DC_ETH_LCOUNTERS);
DC_CTR_SET(dc_ctr_dctcp, dc_dctcp_stats, DC_DCTCP_COUNTERS);
DC_CTR_SET(dc_ctr_icon, dc_icon_counters, DC_ICON_COUNTERS);
DC_CTR_SET(dc_ctr_ictcp, dc_ictcp_counters, DC_ICTCP_COUNTERS);
DC_CTR_SET(dc_ctr_resq, dc_resq_counters, DC_RESQ_COUNTERS);
DC_CTR_SET(dc_ctr_rdcn, dc_rd_pcnt, DC_RD_PORT_COUNTERS);
DC_CTR_SET(dc_ctr_perc, dc_perc_stats, DC_PERC_ALL_COUNTERS);
DC_CTR_SET(dc_ctr_cosy, dc_cosy_stats, DC_COSY_ALL_COUNTERS);

const struct dc_ctr_set *const dc_ctr_sets[] = {
	&dc_ctr_cc, &dc_ctr_int, &dc_ctr_sw, &dc_ctr_eth_host, &dc_ctr_eth_leaf, &dc_ctr_dctcp,
	&dc_ctr_icon, &dc_ctr_ictcp, &dc_ctr_resq, &dc_ctr_rdcn, &dc_ctr_perc, &dc_ctr_cosy, NULL,
};

__u64 dc_ctr_get(const struct dc_ctr *c, const void *v)
{
	__u64 x;

	memcpy(&x, (const char *)v + c->off, sizeof(x));
	return x;
}

static void ctr_put(const struct dc_ctr *c, void *v, __u64 x)
{
	memcpy((char *)v + c->off, &x, sizeof(x));
}

void dc_ctr_add(const struct dc_ctr_set *s, void *acc, const void *v)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		ctr_put(&s->ctr[i], acc, dc_ctr_get(&s->ctr[i], acc) + dc_ctr_get(&s->ctr[i], v));
}

int dc_ctr_read(const struct dc_ctr_set *s, int fd, __u32 key, bool percpu, void *out)
{
	/* the kernel copies per-CPU values at a stride of 8 bytes */
	size_t stride = (s->size + 7) & ~(size_t)7;
	int ncpu = percpu ? libbpf_num_possible_cpus() : 1, i, err = 0;
	char *buf;

	memset(out, 0, s->size);
	if (ncpu <= 0)
		return ncpu < 0 ? ncpu : -EINVAL;
	buf = calloc((size_t)ncpu, stride);
	if (!buf)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &key, buf))
		err = -errno;
	for (i = 0; !err && i < ncpu; i++)
		dc_ctr_add(s, out, buf + (size_t)i * stride);
	free(buf);
	return err;
}

void dc_ctr_json(struct jw *j, const struct dc_ctr_set *s, const void *v, unsigned int skip)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (!(s->ctr[i].flags & skip))
			jw_u64(j, s->ctr[i].name, dc_ctr_get(&s->ctr[i], v));
}

void dc_ctr_table(FILE *f, const struct dc_ctr_set *s, unsigned int ncol,
		  const char *const *cols, const void *const *vals, unsigned int skip)
{
	int w0 = 16, w;
	unsigned int i, c;

	for (i = 0; i < s->n; i++)
		if ((int)strlen(s->ctr[i].name) > w0)
			w0 = (int)strlen(s->ctr[i].name);
	fprintf(f, "%-*s", w0, "counter");
	for (c = 0; c < ncol; c++) {
		w = strlen(cols[c]) > 16 ? (int)strlen(cols[c]) : 16;
		fprintf(f, " %*s", w, cols[c]);
	}
	fputc('\n', f);
	for (i = 0; i < s->n; i++) {
		if (s->ctr[i].flags & skip)
			continue;
		fprintf(f, "%-*s", w0, s->ctr[i].name);
		for (c = 0; c < ncol; c++) {
			w = strlen(cols[c]) > 16 ? (int)strlen(cols[c]) : 16;
			fprintf(f, " %*llu", w, (unsigned long long)dc_ctr_get(&s->ctr[i], vals[c]));
		}
		fputc('\n', f);
	}
}

void dc_ctr_line(FILE *f, const struct dc_ctr_set *s, const void *v, unsigned int skip)
{
	const char *sep = "";
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		if (s->ctr[i].flags & skip)
			continue;
		fprintf(f, "%s%s %llu", sep, s->ctr[i].name,
			(unsigned long long)dc_ctr_get(&s->ctr[i], v));
		sep = " ";
	}
}

/* ---- Prometheus --------------------------------------------------------- */

static bool wanted(const struct dc_ctr *c, const struct dc_ctr_prom *how)
{
	return !(c->flags & how->skip) && (!how->only || (c->flags & how->only));
}

/* The counter's own labels ("" if none): the {…} of its prom spelling. */
static const char *own_labels(const struct dc_ctr *c, size_t *len)
{
	const char *b = strchr(c->prom, '{');

	if (!b) {
		*len = 0;
		return "";
	}
	*len = strlen(b + 1);
	if (*len && b[*len] == '}')
		(*len)--;
	return b + 1;
}

bool dc_ctr_prom_name(const struct dc_ctr *c, const struct dc_ctr_prom *how, char *buf,
		      size_t len)
{
	const char *base = c->prom[0] ? c->prom : c->name;
	size_t blen = strcspn(base, "{");
	int n = snprintf(buf, len, "%s%.*s%s", how->prefix, (int)blen, base,
			 c->flags & DC_CTR_GAUGE ? "" : "_total");

	return n > 0 && (size_t)n < len;
}

/* HELP text: backslash and newline escaped. */
static void help_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void help_of(FILE *f, const struct dc_ctr *c, const struct dc_ctr_prom *how)
{
	size_t ll;
	const char *l = own_labels(c, &ll);

	help_text(f, c->help);
	fputs(" (", f);
	if (ll)
		fprintf(f, "%.*s: ", (int)ll, l);
	fprintf(f, "%s.%s)", how->source, c->name);
}

void dc_ctr_prom(FILE *f, const struct dc_ctr_set *s, const struct dc_ctr_prom *how,
		 unsigned int n, const char *const *labels, const void *const *vals)
{
	char name[128], other[128];
	unsigned int i, k, v;

	for (i = 0; i < s->n; i++) {
		bool seen = false;

		if (!wanted(&s->ctr[i], how) || !dc_ctr_prom_name(&s->ctr[i], how, name, sizeof(name)))
			continue;
		for (k = 0; k < i && !seen; k++)
			seen = wanted(&s->ctr[k], how) &&
			       dc_ctr_prom_name(&s->ctr[k], how, other, sizeof(other)) &&
			       !strcmp(name, other);
		if (seen)
			continue;
		fprintf(f, "# HELP %s ", name);
		for (k = i; k < s->n; k++) {
			if (!wanted(&s->ctr[k], how) ||
			    !dc_ctr_prom_name(&s->ctr[k], how, other, sizeof(other)) ||
			    strcmp(name, other))
				continue;
			if (k != i)
				fputc(' ', f);
			help_of(f, &s->ctr[k], how);
		}
		fprintf(f, "\n# TYPE %s %s\n", name,
			s->ctr[i].flags & DC_CTR_GAUGE ? "gauge" : "counter");
		for (v = 0; v < n; v++) {
			for (k = i; k < s->n; k++) {
				const char *own;
				size_t ll;

				if (!wanted(&s->ctr[k], how) ||
				    !dc_ctr_prom_name(&s->ctr[k], how, other, sizeof(other)) ||
				    strcmp(name, other))
					continue;
				own = own_labels(&s->ctr[k], &ll);
				fputs(name, f);
				if (labels[v][0] || ll)
					fprintf(f, "{%s%s%.*s}", labels[v],
						labels[v][0] && ll ? "," : "", (int)ll, own);
				fprintf(f, " %llu\n",
					(unsigned long long)dc_ctr_get(&s->ctr[k], vals[v]));
			}
		}
	}
}
