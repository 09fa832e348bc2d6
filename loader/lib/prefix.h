/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * IPv4 prefixes as every command and config key takes them: "A.B.C.D" or
 * "A.B.C.D/LEN".  One rule:
 *  - the address is a dotted quad as inet_pton(AF_INET) reads it (four
 *    decimal parts 0-255, nothing else, no spaces);
 *  - LEN is 0-32 in decimal digits only (no sign, no spaces, not empty);
 *    without "/LEN" the prefix is the host, /32;
 *  - host bits below LEN are cleared, so 10.1.2.3/8 and 10.0.0.0/8 are the
 *    same LPM key;
 *  - at most DC_PREFIX_STRLEN - 1 characters.
 */
#ifndef DCBPF_LIB_PREFIX_H
#define DCBPF_LIB_PREFIX_H

#include <stddef.h>
#include <linux/types.h>

#include "err.h"

#define DC_PREFIX_STRLEN 32	/* "255.255.255.255/32" and its NUL fit */

/* *addr in network byte order.  Returns 0, or -EINVAL with err (EXIT_USAGE)
 * naming the input and what is wrong; *addr and *plen are then untouched. */
int dc_prefix_parse(const char *s, __u32 *addr, __u32 *plen, struct dc_err *err);
/* "A.B.C.D/LEN" into buf (DC_PREFIX_STRLEN is enough); addr in network order. */
void dc_prefix_format(char *buf, size_t len, __u32 addr, __u32 plen);

#endif
