// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <inttypes.h>

#include "json.h"

void jw_init(struct jw *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
}

void jw_put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void sep(struct jw *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (key) {
		jw_put_str(j->f, key);
		fputc(':', j->f);
	}
}

static void open_(struct jw *j, const char *key, char c)
{
	sep(j, key);
	fputc(c, j->f);
	if (j->depth < JW_MAX_DEPTH - 1)
		j->depth++;
	j->first[j->depth] = true;
}

void jw_obj(struct jw *j, const char *key)
{
	open_(j, key, '{');
}

void jw_arr(struct jw *j, const char *key)
{
	open_(j, key, '[');
}

void jw_end_obj(struct jw *j)
{
	fputc('}', j->f);
	if (j->depth)
		j->depth--;
}

void jw_end_arr(struct jw *j)
{
	fputc(']', j->f);
	if (j->depth)
		j->depth--;
}

void jw_str(struct jw *j, const char *key, const char *val)
{
	sep(j, key);
	jw_put_str(j->f, val);
}

void jw_u64(struct jw *j, const char *key, __u64 val)
{
	sep(j, key);
	fprintf(j->f, "%" PRIu64, (uint64_t)val);
}

void jw_bool(struct jw *j, const char *key, bool val)
{
	sep(j, key);
	fputs(val ? "true" : "false", j->f);
}

void jw_null(struct jw *j, const char *key)
{
	sep(j, key);
	fputs("null", j->f);
}

void jw_raw(struct jw *j, const char *key, const char *num)
{
	sep(j, key);
	fputs(num, j->f);
}

void jw_done(struct jw *j)
{
	fputc('\n', j->f);
	fflush(j->f);
}
