/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Inside the option code only (opts.c, optcheck.c): field widths, names. */
#ifndef DCBPF_LIB_OPTINT_H
#define DCBPF_LIB_OPTINT_H

#include <limits.h>
#include <stdio.h>

#include "opts.h"

/* "--alpha" or "NAME": how messages name an entry. */
static inline const char *label(const struct dc_opt *o, char *buf, size_t len)
{
	if (dc_opt_is_pos(o))
		snprintf(buf, len, "%s", o->name);
	else
		snprintf(buf, len, "--%s", o->name);
	return buf;
}

static inline unsigned long long umax_of(size_t size)
{
	return size >= 8 ? ULLONG_MAX : (1ULL << (size * 8)) - 1;
}

static inline long long smax_of(size_t size)
{
	return size >= 8 ? LLONG_MAX : (long long)((1ULL << (size * 8 - 1)) - 1);
}

static inline bool int_size_ok(size_t size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

#endif
