// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Counter tables (loader/lib/counters.h) against the BPF objects: every
 * table lists exactly the members of its struct as the built objects'
 * BTF has them, in order, at the same offsets, each a 64-bit integer; and
 * the text table, the JSON and the Prometheus output each carry every
 * counter with its value.  The comparison is run on broken copies of a
 * table too, so it can fail.
 * Objects: the .bpf.o files in $BUILD (default build).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "check.h"
#include "dcbpf/ethereal.h"
#include "loader/lib/counters.h"

static const char *const objs[] = { "powertcp", "baseline", "int", "int_transit", "switch",
				    "ethereal", "eth_leaf", "dctcp", "icon", "ictcp", "resq_host", "rdcn",
				    "perc", "cosy", NULL };

struct leaf {
	const char *name;
	unsigned int bit_off;
	__u32 type;
};

#define LEAVES_MAX 128

/* The struct's members in order, anonymous structs and unions opened: a
 * named member of an anonymous union is another view of the struct beside
 * it (drop[] over drop_short, drop_version, ...) and is left out. */
static void leaves(const struct btf *btf, const struct btf_type *t, unsigned int base,
		   struct leaf *out, unsigned int *n)
{
	const struct btf_member *m = btf_members(t);
	unsigned int i;

	for (i = 0; i < btf_vlen(t) && *n < LEAVES_MAX; i++) {
		const char *name = btf__name_by_offset(btf, m[i].name_off);
		const struct btf_type *mt = btf__type_by_id(btf, btf__resolve_type(btf, m[i].type));
		unsigned int off = base + btf_member_bit_offset(t, i);

		if (!*name && (btf_is_struct(mt) || btf_is_union(mt)))
			leaves(btf, mt, off, out, n);
		else if (!btf_is_union(t))
			out[(*n)++] = (struct leaf){ name, off, m[i].type };
	}
}

/* NULL if s matches the struct in btf, else what differs. */
static const char *btf_diff(const struct btf *btf, const struct dc_ctr_set *s, char *why,
			    size_t len)
{
	int id = btf__find_by_name_kind(btf, s->type, BTF_KIND_STRUCT);
	struct leaf m[LEAVES_MAX];
	const struct btf_type *t;
	unsigned int i, vlen = 0;

	if (id < 0)
		return snprintf(why, len, "no struct %s", s->type), why;
	t = btf__type_by_id(btf, id);
	leaves(btf, t, 0, m, &vlen);
	if (t->size != s->size)
		return snprintf(why, len, "size %u, table says %zu", t->size, s->size), why;
	for (i = 0; i < vlen || i < s->n; i++) {
		const char *bn = i < vlen ? m[i].name : "(none)";
		const char *tn = i < s->n ? s->ctr[i].name : "(none)";

		if (i >= vlen || i >= s->n || strcmp(bn, tn))
			return snprintf(why, len, "member %u is %s, table has %s", i, bn, tn), why;
		if (m[i].bit_off != s->ctr[i].off * 8)
			return snprintf(why, len, "%s at bit %u, table has byte %zu", bn, m[i].bit_off,
					s->ctr[i].off), why;
		if (btf__resolve_size(btf, m[i].type) != 8 ||
		    !btf_is_int(btf__type_by_id(btf, btf__resolve_type(btf, m[i].type))))
			return snprintf(why, len, "%s is not a 64-bit integer", bn), why;
	}
	return NULL;
}

static void test_btf(void)
{
	struct btf *btf[16] = {};
	char path[512], why[256], name[640];
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	unsigned int o, k;

	for (o = 0; objs[o]; o++) {
		snprintf(path, sizeof(path), "%s/%s.bpf.o", build, objs[o]);
		btf[o] = btf__parse_elf(path, NULL);
		snprintf(name, sizeof(name), "BTF of %s", path);
		CHECK(name, btf[o], "%s", strerror(errno));
	}
	for (k = 0; dc_ctr_sets[k]; k++) {
		const struct dc_ctr_set *s = dc_ctr_sets[k];
		const char *err = NULL;
		unsigned int found = 0;

		for (o = 0; objs[o]; o++) {
			const char *d;

			if (!btf[o] || btf__find_by_name_kind(btf[o], s->type, BTF_KIND_STRUCT) < 0)
				continue;
			found++;
			d = btf_diff(btf[o], s, why, sizeof(why));
			if (d && !err) {
				snprintf(name, sizeof(name), "%s: %s", objs[o], d);
				err = name;
			}
		}
		snprintf(path, sizeof(path), "counters: table %s has the members of the struct in "
			 "%u object(s), in order, 64-bit", s->type, found);
		CHECK(path, found && !err, "%s", err ? err : "in no object");
	}

	/* the comparison fails on a table that drifted */
	{
		const struct dc_ctr_set *s = &dc_ctr_sw;
		struct dc_ctr broken[64];
		struct dc_ctr_set b = *s;
		const struct btf *sw = btf[3];

		b.ctr = broken;
		memcpy(broken, s->ctr, s->n * sizeof(broken[0]));
		b.n = s->n - 1;
		CHECK("counters: a table missing the last member is caught",
		      sw && btf_diff(sw, &b, why, sizeof(why)), "not caught");
		b.n = s->n;
		broken[1] = s->ctr[2];
		broken[2] = s->ctr[1];
		CHECK("counters: a table with two members swapped is caught",
		      sw && btf_diff(sw, &b, why, sizeof(why)), "not caught");
		b.n = s->n;
		b.size = s->size + 8;
		memcpy(broken, s->ctr, s->n * sizeof(broken[0]));
		CHECK("counters: a struct with a member the table lacks is caught",
		      sw && btf_diff(sw, &b, why, sizeof(why)), "not caught");
		b.size = s->size;
		CHECK("counters: the intact copy passes", sw && !btf_diff(sw, &b, why, sizeof(why)),
		      "%s", why);
	}
	for (o = 0; objs[o]; o++)
		btf__free(btf[o]);
}

/* Values 1000 + i·7 + col, distinct per counter and column. */
static void fill(const struct dc_ctr_set *s, unsigned char *v, unsigned int col)
{
	unsigned int i;

	memset(v, 0, s->size);
	for (i = 0; i < s->n; i++) {
		__u64 x = 1000 + i * 7 + col;

		memcpy(v + s->ctr[i].off, &x, sizeof(x));
	}
}

static char *render(void (*fn)(FILE *, const struct dc_ctr_set *, const void *const *),
		    const struct dc_ctr_set *s, const void *const *vals)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, s, vals);
	fclose(f);
	return buf;
}

static void r_table(FILE *f, const struct dc_ctr_set *s, const void *const *vals)
{
	static const char *const cols[] = { "a", "b" };

	dc_ctr_table(f, s, 2, cols, vals, 0);
}

static void r_line(FILE *f, const struct dc_ctr_set *s, const void *const *vals)
{
	dc_ctr_line(f, s, vals[0], 0);
	fputc('\n', f);
}

static void r_json(FILE *f, const struct dc_ctr_set *s, const void *const *vals)
{
	struct jw j;

	jw_init(&j, f);
	jw_obj(&j, NULL);
	dc_ctr_json(&j, s, vals[0], 0);
	jw_end_obj(&j);
	jw_done(&j);
}

static void r_prom(FILE *f, const struct dc_ctr_set *s, const void *const *vals)
{
	static const char *const labels[] = { "x=\"a\"", "x=\"b\"" };
	const struct dc_ctr_prom how = { "dcbpf_t_", "dc_t", 0, 0 };

	dc_ctr_prom(f, s, &how, 2, labels, vals);
}

/* Does text hold a line starting with head and ending in tail? */
static bool has_line(const char *text, const char *head, const char *tail)
{
	size_t hl = strlen(head), tl = strlen(tail);
	const char *p = text, *e;

	for (; p && *p; p = e ? e + 1 : NULL) {
		e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p);
		if (!strncmp(p, head, hl) && (size_t)(e - p) >= hl + tl &&
		    !strncmp(e - tl, tail, tl))
			return true;
		if (!*e)
			break;
	}
	return false;
}

static void test_outputs(void)
{
	static unsigned char a[1024], b[1024];
	const void *const vals[] = { a, b };
	const struct dc_ctr_prom how = { "dcbpf_t_", "dc_t", 0, 0 };
	unsigned int k, i;
	char name[256], want[256], metric[128];

	for (k = 0; dc_ctr_sets[k]; k++) {
		const struct dc_ctr_set *s = dc_ctr_sets[k];
		char *table, *json, *prom, *line;
		const char *miss_t = NULL, *miss_j = NULL, *miss_p = NULL, *miss_l = NULL;

		fill(s, a, 0);
		fill(s, b, 1);
		table = render(r_table, s, vals);
		json = render(r_json, s, vals);
		prom = render(r_prom, s, vals);
		line = render(r_line, s, vals);
		for (i = 0; i < s->n; i++) {
			const struct dc_ctr *c = &s->ctr[i];
			char row[160], tail0[32], tail1[32];

			/* text: the row carries both columns */
			snprintf(row, sizeof(row), "%llu %*llu", 1000ULL + i * 7, 16,
				 1001ULL + i * 7);
			snprintf(want, sizeof(want), "%s ", c->name);
			if (!miss_t && !has_line(table, want, row))
				miss_t = c->name;
			snprintf(want, sizeof(want), "%s%s %llu%c", i ? " " : "", c->name,
				 1000ULL + i * 7, i + 1 < s->n ? ' ' : '\n');
			if (!miss_l && (!strstr(line, want) || (!i && strncmp(line, want, strlen(want)))))
				miss_l = c->name;
			snprintf(want, sizeof(want), "\"%s\":%llu", c->name, 1000ULL + i * 7);
			if (!miss_j && !strstr(json, want))
				miss_j = c->name;
			/* Prometheus: HELP, TYPE and a sample per column */
			dc_ctr_prom_name(c, &how, metric, sizeof(metric));
			snprintf(want, sizeof(want), "# TYPE %s %s\n", metric,
				 c->flags & DC_CTR_GAUGE ? "gauge" : "counter");
			snprintf(row, sizeof(row), "%s{", metric);
			snprintf(tail0, sizeof(tail0), " %llu", 1000ULL + i * 7);
			snprintf(tail1, sizeof(tail1), " %llu", 1001ULL + i * 7);
			if (!miss_p && (!strstr(prom, want) || !has_line(prom, row, tail0) ||
					!has_line(prom, row, tail1)))
				miss_p = c->name;
			snprintf(want, sizeof(want), "# HELP %s ", metric);
			if (!miss_p && !strstr(prom, want))
				miss_p = c->name;
			if (!miss_p && !(c->flags & DC_CTR_GAUGE) &&
			    strcmp(metric + strlen(metric) - 6, "_total"))
				miss_p = c->name;
		}
		snprintf(name, sizeof(name), "counters: %s: text table has all %u counters", s->type,
			 s->n);
		CHECK(name, !miss_t, "%s missing:\n%s", miss_t, table);
		snprintf(name, sizeof(name), "counters: %s: the one-line form has all %u counters",
			 s->type, s->n);
		CHECK(name, !miss_l, "%s missing: %s", miss_l, line);
		snprintf(name, sizeof(name), "counters: %s: JSON has all %u counters", s->type, s->n);
		CHECK(name, !miss_j, "%s missing: %s", miss_j, json);
		snprintf(name, sizeof(name), "counters: %s: Prometheus has all %u counters "
			 "(HELP, TYPE, a sample per label set)", s->type, s->n);
		CHECK(name, !miss_p, "%s missing:\n%s", miss_p, prom);
		free(table);
		free(json);
		free(prom);
		free(line);
	}
}

static void test_prom_shape(void)
{
	static unsigned char a[1024];
	const void *const vals[] = { a };
	static const char *const labels[] = { "switch=\"s1\",port=\"0\"" };
	const struct dc_ctr_prom port = { "dcbpf_sw_port_", "dc_sw_cnt", DC_CTR_NOPORT, 0 };
	const struct dc_ctr_prom other = { "dcbpf_sw_", "dc_sw_cnt", 0, DC_CTR_NOPORT };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	fill(&dc_ctr_sw, a, 0);
	f = open_memstream(&buf, &len);
	dc_ctr_prom(f, &dc_ctr_sw, &port, 1, labels, vals);
	fclose(f);
	/* three counters share dropped_packets: one family, a reason label each */
	CHECK("counters: prom: dropped_packets announced once",
	      strstr(buf, "# TYPE dcbpf_sw_port_dropped_packets_total counter\n") &&
	      !strstr(strstr(buf, "# TYPE dcbpf_sw_port_dropped_packets_total") + 1,
		      "# TYPE dcbpf_sw_port_dropped_packets_total"), "%s", buf);
	CHECK("counters: prom: reason labels after the caller's",
	      strstr(buf, "dcbpf_sw_port_dropped_packets_total{switch=\"s1\",port=\"0\","
			  "reason=\"threshold\"} 1014\n") &&
	      strstr(buf, "dcbpf_sw_port_dropped_packets_total{switch=\"s1\",port=\"0\","
			  "reason=\"prediction\"} 1056\n"), "%s", buf);
	CHECK("counters: prom: skip leaves other_pkts out of the port families",
	      !strstr(buf, "other_packets"), "%s", buf);
	free(buf);

	f = open_memstream(&buf, &len);
	dc_ctr_prom(f, &dc_ctr_sw, &other, 1, labels, vals);
	fclose(f);
	CHECK("counters: prom: only picks the per-switch counter",
	      strstr(buf, "dcbpf_sw_other_packets_total{switch=\"s1\",port=\"0\"} 1049\n") &&
	      !strstr(buf, "admitted"), "%s", buf);
	free(buf);

	fill(&dc_ctr_eth_host, a, 0);
	f = open_memstream(&buf, &len);
	{
		static const char *const none[] = { "" };
		const struct dc_ctr_prom h = { "dcbpf_eth_", "dc_eth_hstats", 0, 0 };

		dc_ctr_prom(f, &dc_ctr_eth_host, &h, 1, none, vals);
	}
	fclose(f);
	CHECK("counters: prom: a gauge has no _total and TYPE gauge",
	      strstr(buf, "# TYPE dcbpf_eth_flows_live gauge\ndcbpf_eth_flows_live 1098\n") &&
	      !strstr(buf, "flows_live_total"), "%s", buf);
	free(buf);
}

/* Per-CPU sums through a real map (needs CAP_BPF). */
static void test_read(void)
{
	const struct dc_ctr_set *s = &dc_ctr_eth_leaf;
	int ncpu = libbpf_num_possible_cpus(), fd, c;
	struct dc_eth_lcounters sum;
	__u64 *buf;
	__u32 k = 0;
	bool ok = true;
	unsigned int i;

	fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "dc_t_pcpu", 4, s->size, 1, NULL);
	if (fd < 0) {
		printf("SKIP: counters: per-CPU sum through a map: %s (not root?)\n",
		       strerror(errno));
		return;
	}
	buf = calloc((size_t)ncpu, s->size);
	for (c = 0; c < ncpu; c++)
		for (i = 0; i < s->n; i++)
			buf[(size_t)c * (s->size / 8) + i] = (__u64)(c + 1) * (i + 1);
	bpf_map_update_elem(fd, &k, buf, 0);
	CHECK_EQ("counters: dc_ctr_read of a per-CPU map", dc_ctr_read(s, fd, k, true, &sum), 0);
	for (i = 0; i < s->n; i++)
		ok &= dc_ctr_get(&s->ctr[i], &sum) == (__u64)(i + 1) * ncpu * (ncpu + 1) / 2;
	CHECK("counters: per-CPU copies summed counter by counter", ok, "untagged %llu",
	      (unsigned long long)sum.untagged);
	k = 5;
	CHECK("counters: a key out of range is an error, the sum zero",
	      dc_ctr_read(s, fd, k, true, &sum) < 0 && !sum.untagged && !sum.strip_fail, "read");
	free(buf);
	close(fd);
}

int main(void)
{
	test_btf();
	test_outputs();
	test_prom_shape();
	test_read();
	return check_failed;
}
