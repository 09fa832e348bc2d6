/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The counter structs as tables: one descriptor per member, generated from
 * the lists that declare the structs (include/dcbpf/counters.h), so the
 * sums, the CLI's text and JSON and the Prometheus families all walk the
 * same list.  tests/unit/test_counters checks every table against the BTF
 * of the built BPF objects.
 */
#ifndef DCBPF_LOADER_COUNTERS_H
#define DCBPF_LOADER_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "json.h"

/* The flags argument of the lists (include/dcbpf/counters.h). */
#define DC_CTR_GAUGE 0x1	/* a level: no _total, TYPE gauge */
#define DC_CTR_NOPORT 0x2	/* switch: only on the key DC_SW_CNT_OTHER */

struct dc_ctr {
	const char *name;	/* struct member, text and JSON key */
	const char *help;	/* one sentence */
	const char *prom;	/* Prometheus name below the prefix, with {labels}; "" = name */
	size_t off;
	unsigned int flags;
};

struct dc_ctr_set {
	const char *type;	/* the struct's name, as in BTF */
	size_t size;		/* sizeof the struct */
	unsigned int n;
	const struct dc_ctr *ctr;
};

extern const struct dc_ctr_set dc_ctr_cc;	/* struct dc_cc_counters */
extern const struct dc_ctr_set dc_ctr_int;	/* struct dc_int_counters */
extern const struct dc_ctr_set dc_ctr_sw;	/* struct dc_sw_counters */
extern const struct dc_ctr_set dc_ctr_eth_host;	/* struct dc_eth_hcounters */
extern const struct dc_ctr_set dc_ctr_eth_leaf;	/* struct dc_eth_lcounters */
extern const struct dc_ctr_set dc_ctr_dctcp;	/* struct dc_dctcp_stats */
extern const struct dc_ctr_set dc_ctr_icon;	/* struct dc_icon_counters */
extern const struct dc_ctr_set dc_ctr_ictcp;	/* struct dc_ictcp_counters */
extern const struct dc_ctr_set dc_ctr_resq;	/* struct dc_resq_counters */
extern const struct dc_ctr_set dc_ctr_perc;	/* struct dc_perc_stats (drops by reason last) */
extern const struct dc_ctr_set dc_ctr_cosy;	/* struct dc_cosy_stats (drops by reason last) */
extern const struct dc_ctr_set dc_ctr_rdcn;	/* struct dc_rd_pcnt (a circuit-switch port) */
/* All of the above, NULL-terminated. */
extern const struct dc_ctr_set *const dc_ctr_sets[];

__u64 dc_ctr_get(const struct dc_ctr *c, const void *v);
/* acc += v, counter by counter. */
void dc_ctr_add(const struct dc_ctr_set *s, void *acc, const void *v);
/*
 * One key of a counters map into out (s->size bytes): a per-CPU map's
 * copies are summed.  0, or a negative errno (out is then zero).
 */
int dc_ctr_read(const struct dc_ctr_set *s, int fd, __u32 key, bool percpu, void *out);

/* Counters carrying any of the flags in skip are left out of the outputs. */

/* One JSON member per counter, in the current object. */
void dc_ctr_json(struct jw *j, const struct dc_ctr_set *s, const void *v, unsigned int skip);
/*
 * A text table: a heading row ("counter", then cols[]), one row per
 * counter with a column per value vals[0..ncol-1], right-aligned.
 */
void dc_ctr_table(FILE *f, const struct dc_ctr_set *s, unsigned int ncol,
		  const char *const *cols, const void *const *vals, unsigned int skip);

/* The counters as "name N name N ..." on one line (no newline). */
void dc_ctr_line(FILE *f, const struct dc_ctr_set *s, const void *v, unsigned int skip);

/* How a counter set appears in Prometheus. */
struct dc_ctr_prom {
	const char *prefix;	/* "dcbpf_sw_port_": metric = prefix + name [+ _total] */
	const char *source;	/* "dc_sw_cnt": HELP ends in (source.member) */
	unsigned int skip;	/* flags left out */
	unsigned int only;	/* if not 0: only counters with one of these flags */
};
/*
 * One family per metric (# HELP, # TYPE, then its samples), a sample per
 * value vals[i] labelled labels[i] (label pairs, values already escaped;
 * "" for none), the counter's own labels after them.  Counters sharing a
 * metric name form one family, their samples grouped per value.
 */
void dc_ctr_prom(FILE *f, const struct dc_ctr_set *s, const struct dc_ctr_prom *how,
		 unsigned int n, const char *const *labels, const void *const *vals);
/* The metric name of c under how (no labels); false if it does not fit. */
bool dc_ctr_prom_name(const struct dc_ctr *c, const struct dc_ctr_prom *how, char *buf,
		      size_t len);

#endif
