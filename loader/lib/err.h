/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The library's error: an exit code (cli.h) and the reason, in
 * words.  Library functions fill one and return; only commands print it
 * (dc_err_fmt for text, the dispatcher for JSON).
 */
#ifndef DCBPF_LIB_ERR_H
#define DCBPF_LIB_ERR_H

#include <stdbool.h>
#include <stddef.h>

#define DC_ERR_MSG_LEN 256

struct dc_err {
	int code;		/* EXIT_OK, EXIT_ERR or EXIT_USAGE */
	char msg[DC_ERR_MSG_LEN];
};

void dc_err_clear(struct dc_err *e);
/* Set code and message; returns code so callers can `return dc_err_set(...)`.
 * A message longer than DC_ERR_MSG_LEN is cut and ends in "...". */
int dc_err_set(struct dc_err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Put "what: " in front of the message already set (e.g. the command name). */
void dc_err_prefix(struct dc_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline bool dc_err_is_set(const struct dc_err *e)
{
	return e->msg[0] != '\0';
}
/* "prog: msg" (prog may be NULL) into buf; returns the length it needed,
 * like snprintf. */
int dc_err_fmt(const struct dc_err *e, const char *prog, char *buf, size_t len);

#endif
