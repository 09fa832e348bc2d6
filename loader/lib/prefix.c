// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* IPv4 prefix parsing, one rule for every caller (prefix.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include "cli.h"
#include "prefix.h"

int dc_prefix_parse(const char *s, __u32 *addr, __u32 *plen, struct dc_err *err)
{
	char buf[DC_PREFIX_STRLEN];
	struct in_addr a;
	__u32 len = 32;
	char *slash;
	size_t n = strlen(s);

	if (!n) {
		dc_err_set(err, EXIT_USAGE, "empty IPv4 prefix; expected A.B.C.D[/LEN]");
		return -EINVAL;
	}
	if (n >= sizeof(buf)) {
		dc_err_set(err, EXIT_USAGE, "'%.40s...' is too long for an IPv4 prefix A.B.C.D[/LEN]", s);
		return -EINVAL;
	}
	memcpy(buf, s, n + 1);
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	if (inet_pton(AF_INET, buf, &a) != 1) {
		dc_err_set(err, EXIT_USAGE, "'%s': '%s' is not an IPv4 address A.B.C.D", s, buf);
		return -EINVAL;
	}
	if (slash) {
		const char *p = slash + 1;

		if (!*p) {
			dc_err_set(err, EXIT_USAGE, "'%s': prefix length missing after '/'", s);
			return -EINVAL;
		}
		/* digits only: strtoul would take a sign and spaces */
		for (len = 0; *p; p++) {
			if (*p < '0' || *p > '9') {
				dc_err_set(err, EXIT_USAGE, "'%s': prefix length must be 0-32", s);
				return -EINVAL;
			}
			len = len * 10 + (__u32)(*p - '0');
			if (len > 32) {
				dc_err_set(err, EXIT_USAGE, "'%s': prefix length must be 0-32", s);
				return -EINVAL;
			}
		}
	}
	*plen = len;
	*addr = htonl(len ? ntohl(a.s_addr) & (0xffffffffU << (32 - len)) : 0);
	return 0;
}

void dc_prefix_format(char *buf, size_t len, __u32 addr, __u32 plen)
{
	char a[INET_ADDRSTRLEN];
	struct in_addr in = { .s_addr = addr };

	inet_ntop(AF_INET, &in, a, sizeof(a));
	snprintf(buf, len, "%s/%u", a, plen);
}
