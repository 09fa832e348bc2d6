/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A minimal streaming JSON writer for `dcbpf --json`. */
#ifndef DCBPF_LOADER_JSON_H
#define DCBPF_LOADER_JSON_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#define JW_MAX_DEPTH 16

struct jw {
	FILE *f;
	int depth;
	bool first[JW_MAX_DEPTH];
};

void jw_init(struct jw *j, FILE *f);
/* s as a JSON string (quotes, backslashes, control characters escaped) */
void jw_put_str(FILE *f, const char *s);
/* key is NULL inside arrays and for the top level */
void jw_obj(struct jw *j, const char *key);
void jw_arr(struct jw *j, const char *key);
void jw_end_obj(struct jw *j);
void jw_end_arr(struct jw *j);
void jw_str(struct jw *j, const char *key, const char *val);
void jw_u64(struct jw *j, const char *key, __u64 val);
void jw_bool(struct jw *j, const char *key, bool val);
void jw_null(struct jw *j, const char *key);
/* a number already formatted (e.g. "0.8") */
void jw_raw(struct jw *j, const char *key, const char *num);
/* finish the document with a newline */
void jw_done(struct jw *j);

#endif
