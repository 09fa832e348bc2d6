// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdio.h>
#include <string.h>

#include "opts.h"
#include "suggest.h"

#define NEAR_MAX_LEN 64

unsigned int dc_edit_distance(const char *a, size_t alen, const char *b)
{
	size_t blen = strlen(b), i, j;
	unsigned int d[NEAR_MAX_LEN + 1][NEAR_MAX_LEN + 1];

	if (alen > NEAR_MAX_LEN || blen > NEAR_MAX_LEN)
		return ~0u;
	for (i = 0; i <= alen; i++)
		d[i][0] = (unsigned int)i;
	for (j = 0; j <= blen; j++)
		d[0][j] = (unsigned int)j;
	for (i = 1; i <= alen; i++) {
		for (j = 1; j <= blen; j++) {
			unsigned int cost = a[i - 1] != b[j - 1], v = d[i - 1][j - 1] + cost;

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[alen][blen];
}

void dc_near_init(struct dc_near *n, const char *word, size_t len)
{
	memset(n, 0, sizeof(*n));
	n->word = word;
	n->len = len;
	n->dist = ~0u;
}

void dc_near_add(struct dc_near *n, const char *cand)
{
	unsigned int d = dc_edit_distance(n->word, n->len, cand);

	if (d < n->dist) {
		n->dist = d;
		n->best = cand;
	}
	if (n->len && !strncmp(cand, n->word, n->len)) {
		n->prefix_of = cand;
		n->nprefix++;
	}
}

const char *dc_near_best(const struct dc_near *n)
{
	/* two edits in a word of 3 would suggest almost anything */
	unsigned int limit = n->len <= 3 ? 1 : 2;

	if (n->best && n->dist > 0 && n->dist <= limit)
		return n->best;
	if (n->nprefix == 1)
		return n->prefix_of;
	return NULL;
}

bool dc_suggest_opt(const struct dc_opt *const *tabs, int ntabs, const char *arg, size_t len,
		    char *out, size_t outlen)
{
	const struct dc_opt *o;
	struct dc_near n;
	const char *best;
	int t;

	if (len < 3 || strncmp(arg, "--", 2))
		return false;
	dc_near_init(&n, arg + 2, len - 2);
	for (t = 0; t < ntabs; t++)
		for (o = tabs[t]; o && o->name; o++)
			if (!dc_opt_is_pos(o) && !(o->flags & DC_OPT_F_HIDDEN))
				dc_near_add(&n, o->name);
	best = dc_near_best(&n);
	if (!best)
		return false;
	snprintf(out, outlen, "--%s", best);
	return true;
}

bool dc_suggest_enum(const struct dc_opt_name *names, const char *s, char *out, size_t outlen)
{
	struct dc_near n;
	const char *best;

	dc_near_init(&n, s, strlen(s));
	for (; names && names->name; names++)
		dc_near_add(&n, names->name);
	best = dc_near_best(&n);
	if (!best)
		return false;
	snprintf(out, outlen, "%s", best);
	return true;
}
