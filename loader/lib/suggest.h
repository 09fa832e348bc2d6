/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * "Did you mean ...?" for unknown commands, options and enum names: the
 * candidate nearest by edit distance (a swap of two neighbours counts as
 * one edit), or the only candidate the word is a prefix of.
 */
#ifndef DCBPF_LIB_SUGGEST_H
#define DCBPF_LIB_SUGGEST_H

#include <stdbool.h>
#include <stddef.h>

struct dc_opt;
struct dc_opt_name;

struct dc_near {
	const char *word;
	size_t len;
	const char *best;	/* nearest so far */
	unsigned int dist;
	const char *prefix_of;	/* the candidate word is a prefix of */
	unsigned int nprefix;
};

void dc_near_init(struct dc_near *n, const char *word, size_t len);
void dc_near_add(struct dc_near *n, const char *cand);
/* The suggestion, or NULL when nothing is near enough to help. */
const char *dc_near_best(const struct dc_near *n);
/* Optimal string alignment distance of a[0..alen) and b. */
unsigned int dc_edit_distance(const char *a, size_t alen, const char *b);

/* For opts.c: "--alpha" for "--alpah" (arg with its dashes). */
bool dc_suggest_opt(const struct dc_opt *const *tabs, int ntabs, const char *arg, size_t len,
		    char *out, size_t outlen);
bool dc_suggest_enum(const struct dc_opt_name *names, const char *s, char *out, size_t outlen);

#endif
