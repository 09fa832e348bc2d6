/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A JSON syntax check for tests: one value, then only whitespace
 * (json_ok), and jq's verdict on a filter where jq is installed (check_jq).
 */
#ifndef DCBPF_TESTS_JSONCHECK_H
#define DCBPF_TESTS_JSONCHECK_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static inline const char *ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static inline const char *jvalue(const char *p, int depth);

static inline const char *jstring(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p && *p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				int i;

				for (i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
						return NULL;
				p += 4;
			} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
				return NULL;
			}
		}
		p++;
	}
	return *p == '"' ? p + 1 : NULL;
}

static inline const char *jvalue(const char *p, int depth)
{
	p = ws(p);
	if (depth > 32)
		return NULL;
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';

		p = ws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				p = jstring(ws(p));
				if (!p || *(p = ws(p)) != ':')
					return NULL;
				p++;
			}
			p = jvalue(p, depth + 1);
			if (!p)
				return NULL;
			p = ws(p);
			if (*p == close)
				return p + 1;
			if (*p++ != ',')
				return NULL;
		}
	}
	if (*p == '"')
		return jstring(p);
	if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	if (*p == '-' || (*p >= '0' && *p <= '9')) {
		char *end;

		strtod(p, &end);
		return end > p ? end : NULL;
	}
	return NULL;
}

static inline bool json_ok(const char *s)
{
	const char *p = s ? jvalue(s, 0) : NULL;

	return p && !*ws(p);
}

/* jq, where installed, agrees (filter must be true) */
static inline void check_jq(const char *name, const char *json, const char *filter)
{
	char cmd[512], path[] = "/tmp/test_cmd_jq.XXXXXX";
	int fd = mkstemp(path), st;
	FILE *f;

	if (system("command -v jq >/dev/null 2>&1")) {
		printf("SKIP: %s: jq not installed\n", name);
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		return;
	}
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		CHECK(name, false, "cannot write %s", path);
		return;
	}
	fputs(json, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "jq -e '%s' %s >/dev/null 2>&1", filter, path);
	st = system(cmd);
	unlink(path);
	CHECK(name, st == 0, "jq -e '%s' on %s", filter, json);
}

#endif
