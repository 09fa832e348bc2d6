// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"

void dc_err_clear(struct dc_err *e)
{
	e->code = 0;
	e->msg[0] = '\0';
}

/* A cut message says so instead of ending mid-word without a hint. */
static void mark_cut(char *buf, size_t len, int need)
{
	if (need >= 0 && (size_t)need >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
}

int dc_err_set(struct dc_err *e, int code, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	mark_cut(e->msg, sizeof(e->msg), n);
	e->code = code;
	return code;
}

void dc_err_prefix(struct dc_err *e, const char *fmt, ...)
{
	char old[DC_ERR_MSG_LEN], pre[DC_ERR_MSG_LEN];
	va_list ap;
	int n;

	memcpy(old, e->msg, sizeof(old));
	va_start(ap, fmt);
	vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	n = snprintf(e->msg, sizeof(e->msg), "%s: %s", pre, old);
	mark_cut(e->msg, sizeof(e->msg), n);
}

int dc_err_fmt(const struct dc_err *e, const char *prog, char *buf, size_t len)
{
	if (prog && *prog)
		return snprintf(buf, len, "%s: %s", prog, e->msg);
	return snprintf(buf, len, "%s", e->msg);
}
