// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Parameter values: how each kind of parameter (config.h, enum dc_kind) is
 * parsed, checked against its range and written back in user units.  The
 * table of parameters and the config file are config.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <fnmatch.h>
#include <dcbpf/int.h>
#include <dcbpf/fixed.h>

#include "config.h"
#include "prefix.h"

/* items in one list value (interfaces, destinations) */
#define DC_LIST_MAX 64

static const char *const log_names[] = { "error", "warn", "info", "debug" };

const char *dc_log_level_name(__u32 level)
{
	return level <= DC_LOG_DEBUG ? log_names[level] : "?";
}

static const __u64 pow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
			       100000000, 1000000000 };
#define Q16_MAX_INT 65535	/* keeps (int·10^9 + frac)·2^16 below 2^64 */
#define Q16_MAX_DECIMALS 9

/*
 * Exact decimal "I.F" → numerator/10^k.  Parsed by hand rather than with
 * strtod so the stored Q16 does not depend on locale or binary rounding.
 */
static int parse_decimal(const char *s, __u64 *num, unsigned int *k, const char **why)
{
	__u64 ip = 0, frac = 0;
	unsigned int nd = 0, nf = 0;

	while (isdigit((unsigned char)*s)) {
		ip = ip * 10 + (__u64)(*s++ - '0');
		nd++;
		if (ip > Q16_MAX_INT) {
			*why = "too large";
			return -1;
		}
	}
	if (*s == '.') {
		s++;
		while (isdigit((unsigned char)*s)) {
			if (nf == Q16_MAX_DECIMALS) {
				*why = "more than 9 decimals";
				return -1;
			}
			frac = frac * 10 + (__u64)(*s++ - '0');
			nf++;
		}
	}
	if (*s || (!nd && !nf)) {
		*why = "not a decimal number";
		return -1;
	}
	*num = ip * pow10[nf] + frac;
	*k = nf;
	return 0;
}

static int parse_u32(const char *s, __u32 *out, const char **why)
{
	__u64 v = 0;
	const char *p = s;

	if (!*p) {
		*why = "empty value";
		return -1;
	}
	for (; *p; p++) {
		if (!isdigit((unsigned char)*p)) {
			*why = "not a non-negative integer";
			return -1;
		}
		v = v * 10 + (__u64)(*p - '0');
		if (v > UINT32_MAX) {
			*why = "too large";
			return -1;
		}
	}
	*out = (__u32)v;
	return 0;
}

static void fmt_q16_plain(__u32 q, char *buf, size_t len)
{
	snprintf(buf, len, "%.6f", (double)q / (double)DC_Q16_ONE);
}

void dc_q16_format(__u32 q16, char *buf, size_t len)
{
	const char *why;
	unsigned int d, k;
	__u64 num;

	for (d = 0; d <= 6; d++) {
		snprintf(buf, len, "%.*f", (int)d, (double)q16 / (double)DC_Q16_ONE);
		if (!parse_decimal(buf, &num, &k, &why) &&
		    (num * DC_Q16_ONE + pow10[k] / 2) / pow10[k] == q16)
			return;
	}
	fmt_q16_plain(q16, buf, len);
}

void dc_param_range(const struct dc_param *p, char *buf, size_t len)
{
	char lo[32], hi[32];

	switch (p->kind) {
	case DC_K_U32:
		snprintf(buf, len, "[%u, %u]", p->min, p->max);
		break;
	case DC_K_Q16:
		dc_q16_format(p->max, hi, sizeof(hi));
		if (p->min <= 1) {
			/* the smallest step is what "greater than zero" means */
			snprintf(buf, len, "(0, %s]", hi);
		} else {
			dc_q16_format(p->min, lo, sizeof(lo));
			snprintf(buf, len, "[%s, %s]", lo, hi);
		}
		break;
	case DC_K_BOOL:
		snprintf(buf, len, "0 or 1");
		break;
	case DC_K_PINDIR:
		snprintf(buf, len, "absolute path under %s/", DC_BPFFS_ROOT);
		break;
	case DC_K_PATH:
		snprintf(buf, len, "absolute path");
		break;
	case DC_K_LOGLEVEL:
		snprintf(buf, len, "error, warn, info or debug");
		break;
	case DC_K_OPTPATH:
		snprintf(buf, len, "absolute path or empty");
		break;
	case DC_K_IFGLOBS:
		snprintf(buf, len, "up to %d names or globs of 1-15 characters", DC_LIST_MAX);
		break;
	case DC_K_NETNS:
		snprintf(buf, len, "name of 1-%d characters [A-Za-z0-9._-] or empty",
			 DC_NETNS_LEN - 1);
		break;
	case DC_K_PREFIXES:
		snprintf(buf, len, "up to %d of A.B.C.D/LEN[:SLOTS], SLOTS 1-%d", DC_LIST_MAX,
			 DC_INT_WIRE_MAX_SLOTS);
		break;
	case DC_K_PERCCAPS:
		snprintf(buf, len, "up to %d of IF=KBPS, KBPS 1-%llu, each IF once", DC_LIST_MAX,
			 DC_PERC_CFG_CAP_MAX_KBPS);
		break;
	}
}

int dc_list_next(const char **p, char *tok, size_t len)
{
	const char *s = *p;
	size_t n;

	while (*s == ' ' || *s == '\t' || *s == ',')
		s++;
	if (!*s) {
		*p = s;
		return 0;
	}
	n = strcspn(s, " \t,");
	snprintf(tok, len, "%.*s", (int)n, s);
	*p = s + n;
	return 1;
}

bool dc_iface_matches(const char *list, const char *ifname)
{
	char tok[64];

	while (dc_list_next(&list, tok, sizeof(tok)))
		if (!fnmatch(tok, ifname, 0))
			return true;
	return false;
}

int dc_prefix_slots_parse(const char *tok, __u32 *addr, __u32 *plen, __u32 *slots, char *why,
			  size_t whylen)
{
	char buf[64], *colon;
	struct dc_err e = { 0 };
	const char *w;
	__u32 v, k = DC_INT_WIRE_MAX_SLOTS;

	if (strlen(tok) >= sizeof(buf)) {
		snprintf(why, whylen, "'%.40s...': too long for A.B.C.D/LEN[:SLOTS]", tok);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", tok);
	colon = strchr(buf, ':');
	if (colon) {
		*colon = '\0';
		if (parse_u32(colon + 1, &v, &w) || v < 1 || v > DC_INT_WIRE_MAX_SLOTS) {
			snprintf(why, whylen, "'%s': slots must be 1-%d", tok, DC_INT_WIRE_MAX_SLOTS);
			return -1;
		}
		k = v;
	}
	/* the prefix itself by the one rule of prefix.h */
	if (dc_prefix_parse(buf, addr, plen, &e)) {
		snprintf(why, whylen, "%s", e.msg);
		return -1;
	}
	*slots = k;
	return 0;
}

/* Blank-separated list: every item checked, stored with single blanks. */
static int parse_list(const struct dc_param *p, const char *text, char *dst, size_t dstlen,
		      char *why, size_t whylen)
{
	char tok[128], out[DC_DSTLIST_LEN];
	const char *s = text;
	size_t off = 0;
	unsigned int n = 0;
	__u32 a, l, k;

	out[0] = '\0';
	while (dc_list_next(&s, tok, sizeof(tok))) {
		if (++n > DC_LIST_MAX) {
			snprintf(why, whylen, "more than %d items", DC_LIST_MAX);
			return -1;
		}
		if (p->kind == DC_K_IFGLOBS) {
			/* an interface name has at most IFNAMSIZ - 1 = 15 bytes and no
			 * '/' or blanks; a glob must still fit one */
			if (strlen(tok) > 15 || strchr(tok, '/') || strchr(tok, '\'')) {
				snprintf(why, whylen, "'%.60s' is not an interface name or glob", tok);
				return -1;
			}
		} else if (dc_prefix_slots_parse(tok, &a, &l, &k, why, whylen)) {
			return -1;
		}
		off += (size_t)snprintf(out + off, sizeof(out) - off, "%s%s", off ? " " : "", tok);
		if (off >= dstlen) {
			snprintf(why, whylen, "longer than %zu characters", dstlen - 1);
			return -1;
		}
	}
	memcpy(dst, out, off + 1);
	return 0;
}

int dc_perc_cap_parse(const char *tok, char *dev, size_t devlen, __u64 *kbps, char *why,
		      size_t whylen)
{
	const char *eq = strchr(tok, '=');
	unsigned long long v;
	size_t n;
	char *end;

	n = eq ? (size_t)(eq - tok) : 0;
	if (!eq || !n || n > 15 || n >= devlen || memchr(tok, '/', n)) {
		snprintf(why, whylen, "'%.60s' is not IF=KBPS", tok);
		return -1;
	}
	errno = 0;
	v = strtoull(eq + 1, &end, 10);
	if (!isdigit((unsigned char)eq[1]) || *end || errno || !v || v > DC_PERC_CFG_CAP_MAX_KBPS) {
		snprintf(why, whylen, "'%.60s': capacity must be 1-%llu kbps", tok,
			 DC_PERC_CFG_CAP_MAX_KBPS);
		return -1;
	}
	memcpy(dev, tok, n);
	dev[n] = '\0';
	*kbps = v;
	return 0;
}

/* IF=KBPS items, each interface once. */
static int parse_perccaps(const char *text, char *dst, char *why, size_t whylen)
{
	char tok[128], out[DC_PERCLIST_LEN], devs[DC_LIST_MAX][16];
	const char *s = text;
	size_t off = 0;
	unsigned int n = 0, i;
	__u64 kbps;

	out[0] = '\0';
	while (dc_list_next(&s, tok, sizeof(tok))) {
		if (n >= DC_LIST_MAX) {
			snprintf(why, whylen, "more than %d items", DC_LIST_MAX);
			return -1;
		}
		if (dc_perc_cap_parse(tok, devs[n], sizeof(devs[n]), &kbps, why, whylen))
			return -1;
		for (i = 0; i < n; i++)
			if (!strcmp(devs[i], devs[n])) {
				snprintf(why, whylen, "interface '%s' given twice", devs[n]);
				return -1;
			}
		n++;
		off += (size_t)snprintf(out + off, sizeof(out) - off, "%s%s", off ? " " : "", tok);
		if (off >= DC_PERCLIST_LEN) {
			snprintf(why, whylen, "longer than %d characters", DC_PERCLIST_LEN - 1);
			return -1;
		}
	}
	memcpy(dst, out, off + 1);
	return 0;
}

static int parse_netns(const char *text, char *dst, char *why, size_t whylen)
{
	size_t n = strlen(text);

	if (n >= DC_NETNS_LEN || strspn(text, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
					     "0123456789._-") != n || !strcmp(text, ".") ||
	    !strcmp(text, "..")) {
		snprintf(why, whylen, "not a namespace name");
		return -1;
	}
	memcpy(dst, text, n + 1);
	return 0;
}

static int parse_path(const struct dc_param *p, const char *text, char *dst,
		      char *why, size_t whylen)
{
	size_t n = strlen(text);

	if (text[0] != '/') {
		snprintf(why, whylen, "not an absolute path");
		return -1;
	}
	if (n >= DC_PATH_LEN) {
		snprintf(why, whylen, "longer than %d characters", DC_PATH_LEN - 1);
		return -1;
	}
	if (strstr(text, "/../") || (n >= 3 && !strcmp(text + n - 3, "/..")) ||
	    strpbrk(text, " \t")) {
		snprintf(why, whylen, "contains '..' or blanks");
		return -1;
	}
	if (p->kind == DC_K_PINDIR) {
		size_t rl = strlen(DC_BPFFS_ROOT);

		if (strncmp(text, DC_BPFFS_ROOT "/", rl + 1) || !text[rl + 1]) {
			snprintf(why, whylen, "not below %s (the bpffs mount)", DC_BPFFS_ROOT);
			return -1;
		}
	}
	memcpy(dst, text, n + 1);
	/* drop trailing slashes: pins are built as pin_dir + "/" + name */
	while (n > 1 && dst[n - 1] == '/')
		dst[--n] = '\0';
	return 0;
}

int dc_param_parse(const struct dc_param *p, const char *text, void *base,
		   char *why, size_t whylen)
{
	__u32 *field = (__u32 *)((char *)base + p->off);
	const char *w = NULL;
	unsigned int i, k;
	__u64 num, q;
	__u32 v;

	switch (p->kind) {
	case DC_K_OPTPATH:
		if (!*text) {
			*((char *)base + p->off) = '\0';
			return 0;
		}
		/* fall through */
	case DC_K_PINDIR:
	case DC_K_PATH:
		return parse_path(p, text, (char *)base + p->off, why, whylen);
	case DC_K_IFGLOBS:
		return parse_list(p, text, (char *)base + p->off, DC_IFLIST_LEN, why, whylen);
	case DC_K_PREFIXES:
		return parse_list(p, text, (char *)base + p->off, DC_DSTLIST_LEN, why, whylen);
	case DC_K_NETNS:
		return parse_netns(text, (char *)base + p->off, why, whylen);
	case DC_K_PERCCAPS:
		return parse_perccaps(text, (char *)base + p->off, why, whylen);
	case DC_K_LOGLEVEL:
		for (i = 0; i <= DC_LOG_DEBUG; i++) {
			if (!strcmp(text, log_names[i])) {
				*field = i;
				return 0;
			}
		}
		snprintf(why, whylen, "unknown log level");
		return -1;
	case DC_K_BOOL:
		if (!strcmp(text, "0") || !strcmp(text, "1")) {
			*field = (__u32)(text[0] - '0');
			return 0;
		}
		snprintf(why, whylen, "not 0 or 1");
		return -1;
	case DC_K_U32:
		if (parse_u32(text, &v, &w)) {
			snprintf(why, whylen, "%s", w);
			return -1;
		}
		if (v < p->min || v > p->max) {
			snprintf(why, whylen, "out of range");
			return -1;
		}
		*field = v;
		return 0;
	case DC_K_Q16:
		if (parse_decimal(text, &num, &k, &w)) {
			snprintf(why, whylen, "%s", w);
			return -1;
		}
		/* compare exactly before rounding so 1.00001 is not "1" */
		if (num * DC_Q16_ONE > (__u64)p->max * pow10[k]) {
			snprintf(why, whylen, "out of range");
			return -1;
		}
		q = (num * DC_Q16_ONE + pow10[k] / 2) / pow10[k];
		if (!num) {
			snprintf(why, whylen, "out of range");
			return -1;
		}
		if (q < p->min) {
			snprintf(why, whylen, "below the Q16 resolution 1/65536 (0.0000153)");
			return -1;
		}
		*field = (__u32)q;
		return 0;
	}
	snprintf(why, whylen, "internal: unknown kind");
	return -1;
}

__u32 dc_param_raw(const struct dc_param *p, const void *base)
{
	return *(const __u32 *)((const char *)base + p->off);
}

void dc_param_format(const struct dc_param *p, const void *base, char *buf, size_t len)
{
	__u32 v;

	switch (p->kind) {
	case DC_K_PINDIR:
	case DC_K_PATH:
	case DC_K_OPTPATH:
	case DC_K_IFGLOBS:
	case DC_K_NETNS:
	case DC_K_PREFIXES:
	case DC_K_PERCCAPS:
		snprintf(buf, len, "%s", (const char *)base + p->off);
		return;
	default:
		break;
	}
	v = dc_param_raw(p, base);
	switch (p->kind) {
	case DC_K_Q16:
		dc_q16_format(v, buf, len);
		break;
	case DC_K_LOGLEVEL:
		snprintf(buf, len, "%s", dc_log_level_name(v));
		break;
	default:
		snprintf(buf, len, "%u", v);
		break;
	}
}
