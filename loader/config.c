// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The parameter table and the config file parser (libinih does the INI
 * syntax; this file does meaning, ranges and messages).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <fnmatch.h>
#include <ini.h>
#include <dcbpf/int.h>
#include <dcbpf/fixed.h>
#include <dcbpf/powertcp.h>

#include "config.h"

#define DOFF(f) NULL, offsetof(struct dc_daemon_cfg, f)
#define IOFF(f) NULL, offsetof(struct dc_int_cfg, f)
/* items in one list value (interfaces, destinations) */
#define DC_LIST_MAX 64
#define COFF(f) #f, offsetof(struct dc_cc_cfg, f)

/*
 * Ranges say what the control law can use safely: τ and bandwidth are
 * bounded so HostBw·τ stays far inside 64 bits, γ must be positive or the
 * window never moves, and floors of zero would let cwnd reach 0.
 */
const struct dc_param dc_params[] = {
	{ "pin_dir", DC_SCOPE_DAEMON, DC_K_PINDIR, DOFF(pin_dir), 0, 0, "-",
	  "bpffs directory where maps and links are pinned (created 0700)" },
	{ "lock_file", DC_SCOPE_DAEMON, DC_K_PATH, DOFF(lock_file), 0, 0, "-",
	  "lock file holding the daemon's PID; a second daemon using it is refused" },
	{ "log_level", DC_SCOPE_DAEMON, DC_K_LOGLEVEL, DOFF(log_level), DC_LOG_ERROR,
	  DC_LOG_DEBUG, "-", "least severe message written to stderr" },
	{ "metrics_file", DC_SCOPE_DAEMON, DC_K_OPTPATH, DOFF(metrics_file), 0, 0, "-",
	  "Prometheus textfile the daemon rewrites every metrics_interval_s (written to FILE.tmp, "
	  "then renamed); empty = none" },
	{ "metrics_interval_s", DC_SCOPE_DAEMON, DC_K_U32, DOFF(metrics_interval_s), 1, 3600, "s",
	  "period of the metrics_file rewrite" },
	{ "flows_max", DC_SCOPE_DAEMON, DC_K_U32, DOFF(flows_max), DC_FLOWS_MAX_MIN,
	  DC_FLOWS_MAX_MAX, "flows",
	  "max_entries of the per-flow LRU maps (dc_cc_flows, dc_int_flows, dc_int_sink); "
	  "applies when the maps are created" },
	{ "interfaces", DC_SCOPE_INT, DC_K_IFGLOBS, IOFF(interfaces), 0, 0, "-",
	  "interfaces that get the host INT programs (egress source/echo, ingress sink), as "
	  "names or globs (veth*); empty = none" },
	{ "netns", DC_SCOPE_INT, DC_K_NETNS, IOFF(netns), 0, 0, "-",
	  "network namespace (name in /var/run/netns) of those interfaces; empty = the daemon's own" },
	{ "destinations", DC_SCOPE_INT, DC_K_PREFIXES, IOFF(destinations), 0, 0, "-",
	  "IPv4 prefixes whose traffic carries INT, each A.B.C.D/LEN[:SLOTS] (hop slots 1-4, default 4)" },
	{ "gamma", DC_SCOPE_CC, DC_K_Q16, COFF(gamma_q16), 1, (__u32)DC_Q16_ONE, "-",
	  "EWMA weight of the window update (γ); 1 = jump to the target window" },
	{ "base_rtt_us", DC_SCOPE_CC, DC_K_U32, COFF(base_rtt_us), 0, 1000000, "µs",
	  "base RTT τ; 0 = use each flow's minimum RTT" },
	{ "host_bw_mbps", DC_SCOPE_CC, DC_K_U32, COFF(host_bw_mbps), 1, 1000000, "Mbit/s",
	  "host NIC bandwidth (HostBw): initial window HostBw·τ and derived β" },
	{ "expected_flows", DC_SCOPE_CC, DC_K_U32, COFF(expected_flows), 1, 1000000, "flows",
	  "N in the derived additive increase β = HostBw·τ/N" },
	{ "beta_bytes", DC_SCOPE_CC, DC_K_U32, COFF(beta_bytes), 0, 1U << 30, "bytes",
	  "additive increase β; 0 = derive from host_bw_mbps, τ and expected_flows" },
	{ "int_stale_us", DC_SCOPE_CC, DC_K_U32, COFF(int_stale_us), 1, 10000000, "µs",
	  "INT echo older than this is ignored and the RTT (θ) law is used" },
	{ "min_cwnd_pkts", DC_SCOPE_CC, DC_K_U32, COFF(min_cwnd_pkts), 1, 10000, "packets",
	  "floor of the congestion window" },
	{ "pacing", DC_SCOPE_CC, DC_K_BOOL, COFF(pacing), 0, 1, "-",
	  "1 = set the socket pacing rate to cwnd/τ" },
};
const unsigned int dc_nparams = sizeof(dc_params) / sizeof(dc_params[0]);

const struct dc_cc_desc dc_ccs[DC_CC_MAX] = {
	{ DC_CC_POWERTCP, "powertcp" },
	{ DC_CC_THETA, "theta_powertcp" },
};


static const char *const log_names[] = { "error", "warn", "info", "debug" };

const char *dc_log_level_name(__u32 level)
{
	return level <= DC_LOG_DEBUG ? log_names[level] : "?";
}

void dc_err_add(struct dc_errbuf *eb, const char *fmt, ...)
{
	size_t room = sizeof(eb->msg) - eb->len;
	va_list ap;
	int n;

	eb->count++;
	if (room < 2)
		return;
	va_start(ap, fmt);
	n = vsnprintf(eb->msg + eb->len, room - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= room - 1)
		n = (int)(room - 2);
	eb->len += (size_t)n;
	eb->msg[eb->len++] = '\n';
	eb->msg[eb->len] = '\0';
}

void dc_cc_cfg_defaults(struct dc_cc_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->gamma_q16 = DC_DEFAULT_GAMMA_Q16;
	cfg->base_rtt_us = 0;
	cfg->host_bw_mbps = DC_DEFAULT_HOST_BW_MBPS;
	cfg->expected_flows = DC_DEFAULT_EXPECTED_FLOWS;
	cfg->beta_bytes = 0;
	cfg->int_stale_us = DC_DEFAULT_INT_STALE_US;
	cfg->min_cwnd_pkts = DC_DEFAULT_MIN_CWND_PKTS;
	cfg->pacing = DC_DEFAULT_PACING;
}

void dc_config_defaults(struct dc_config *c)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	snprintf(c->daemon.pin_dir, sizeof(c->daemon.pin_dir), "%s", DC_PIN_DIR);
	snprintf(c->daemon.lock_file, sizeof(c->daemon.lock_file), "%s", DC_LOCK_FILE_DEFAULT);
	c->daemon.log_level = DC_LOG_INFO;
	c->daemon.metrics_interval_s = 15;
	c->daemon.flows_max = DC_FLOWS_MAX_DEFAULT;
	for (i = 0; i < DC_CC_MAX; i++)
		dc_cc_cfg_defaults(&c->cc[i]);
}

const struct dc_param *dc_param_find(enum dc_scope scope, const char *name)
{
	unsigned int i;

	for (i = 0; i < dc_nparams; i++)
		if (dc_params[i].scope == scope && !strcmp(dc_params[i].name, name))
			return &dc_params[i];
	return NULL;
}

const struct dc_cc_desc *dc_cc_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < DC_CC_MAX; i++)
		if (!strcmp(dc_ccs[i].name, name))
			return &dc_ccs[i];
	return NULL;
}

/* ---- values --------------------------------------------------------- */

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

/* Where a parameter lives in a config: its daemon section, or the first
 * CC's parameters (both CCs share one table). */
const void *dc_param_base(const struct dc_param *p, const struct dc_config *c)
{
	switch (p->scope) {
	case DC_SCOPE_DAEMON:
		return &c->daemon;
	case DC_SCOPE_INT:
		return &c->intf;
	default:
		return &c->cc[0];
	}
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

int dc_prefix_parse(const char *tok, __u32 *addr, __u32 *plen, __u32 *slots, char *why,
		    size_t whylen)
{
	char buf[64], *slash, *colon;
	const char *w;
	struct in_addr a;
	__u32 v;

	snprintf(buf, sizeof(buf), "%s", tok);
	*slots = DC_INT_WIRE_MAX_SLOTS;
	colon = strchr(buf, ':');
	if (colon) {
		*colon = '\0';
		if (parse_u32(colon + 1, &v, &w) || v < 1 || v > DC_INT_WIRE_MAX_SLOTS) {
			snprintf(why, whylen, "'%s': slots must be 1-%d", tok, DC_INT_WIRE_MAX_SLOTS);
			return -1;
		}
		*slots = v;
	}
	slash = strchr(buf, '/');
	*plen = 32;
	if (slash) {
		*slash = '\0';
		if (parse_u32(slash + 1, &v, &w) || v > 32) {
			snprintf(why, whylen, "'%s': prefix length must be 0-32", tok);
			return -1;
		}
		*plen = v;
	}
	if (inet_pton(AF_INET, buf, &a) != 1) {
		snprintf(why, whylen, "'%s': not an IPv4 prefix A.B.C.D/LEN[:SLOTS]", tok);
		return -1;
	}
	/* host bits cleared, so 10.1.2.3/8 and 10.0.0.0/8 are one entry */
	v = *plen ? ntohl(a.s_addr) & (0xffffffffU << (32 - *plen)) : 0;
	*addr = htonl(v);
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
		} else if (dc_prefix_parse(tok, &a, &l, &k, why, whylen)) {
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

int dc_key_parse(const char *key, const struct dc_cc_desc **cc,
		 const struct dc_param **p, char *why, size_t whylen)
{
	const char *dot = strchr(key, '.');
	char sect[64];
	size_t n;

	if (!dot || dot == key || !dot[1]) {
		snprintf(why, whylen, "'%s' is not CC.KEY (e.g. powertcp.gamma)", key);
		return -1;
	}
	n = (size_t)(dot - key);
	if (n >= sizeof(sect))
		n = sizeof(sect) - 1;
	memcpy(sect, key, n);
	sect[n] = '\0';
	if (!strcmp(sect, "daemon")) {
		snprintf(why, whylen,
			 "'%s' is read from the config file at start; edit it and restart dcbpfd",
			 key);
		return -1;
	}
	*cc = dc_cc_find(sect);
	if (!*cc) {
		snprintf(why, whylen, "unknown congestion control '%s' in '%s' (use %s or %s)",
			 sect, key, dc_ccs[0].name, dc_ccs[1].name);
		return -1;
	}
	*p = dc_param_find(DC_SCOPE_CC, dot + 1);
	if (!*p) {
		size_t off = 0;
		unsigned int i;

		off += (size_t)snprintf(why, whylen, "unknown key '%s' in '%s'; keys:", dot + 1, key);
		for (i = 0; i < dc_nparams && off < whylen; i++)
			if (dc_params[i].scope == DC_SCOPE_CC)
				off += (size_t)snprintf(why + off, whylen - off, " %s",
							dc_params[i].name);
		return -1;
	}
	return 0;
}

/* ---- config file ------------------------------------------------------ */

struct ini_src {
	FILE *f;		/* or */
	const char *s;
	int line;		/* number of the line inih is processing */
	char *buf;
	size_t bufsz;
	int long_line;		/* first over-long line, reported once */
};

struct ini_ctx {
	const char *file;
	struct ini_src *src;
	struct dc_config cfg;
	struct dc_errbuf *eb;
	/* line where each parameter was set; [0] daemon, [1 + cc] per CC,
	 * [1 + DC_CC_MAX] int */
	int seen[2 + DC_CC_MAX][32];
};

_Static_assert(sizeof(dc_params) / sizeof(dc_params[0]) <= 32,
	       "grow ini_ctx.seen with the parameter table");

/*
 * Reader for ini_parse_stream: one call per physical line, so src->line
 * is the number of the line the handler is called for (this libinih is
 * built without INI_HANDLER_LINENO).  Leading blanks are dropped so an
 * indented key is a key, not a multi-line continuation of the previous
 * value.
 */
static char *ini_read_line(char *str, int num, void *stream)
{
	struct ini_src *src = stream;
	const char *p;
	size_t n;

	if (src->f) {
		ssize_t r = getline(&src->buf, &src->bufsz, src->f);

		if (r < 0)
			return NULL;
		p = src->buf;
		n = (size_t)r;
	} else {
		const char *nl;

		if (!*src->s)
			return NULL;
		p = src->s;
		nl = strchr(p, '\n');
		n = nl ? (size_t)(nl - p + 1) : strlen(p);
		src->s = p + n;
	}
	src->line++;
	while (n && (*p == ' ' || *p == '\t')) {
		p++;
		n--;
	}
	if (num < 2)
		return NULL;
	if (n > (size_t)num - 1) {
		if (!src->long_line)
			src->long_line = src->line;
		n = (size_t)num - 1;
	}
	memcpy(str, p, n);
	str[n] = '\0';
	return str;
}

static void list_keys(enum dc_scope scope, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < dc_nparams && off < len; i++)
		if (dc_params[i].scope == scope)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
						dc_params[i].name);
}

static int conf_on_key(void *user, const char *section, const char *name,
		       const char *value)
{
	struct ini_ctx *c = user;
	int line = c->src->line;
	const struct dc_cc_desc *cc = NULL;
	const struct dc_param *p;
	enum dc_scope scope;
	char why[160], range[64], keys[256];
	void *base;
	int *seen;

	if (!section[0]) {
		dc_err_add(c->eb, "%s:%d: %s = %s: key outside a section; put it under [daemon], [int], [%s] or [%s]",
			   c->file, line, name, value, dc_ccs[0].name, dc_ccs[1].name);
		return 1;
	}
	if (!strcmp(section, "daemon")) {
		scope = DC_SCOPE_DAEMON;
		base = &c->cfg.daemon;
	} else if (!strcmp(section, "int")) {
		scope = DC_SCOPE_INT;
		base = &c->cfg.intf;
	} else if ((cc = dc_cc_find(section))) {
		scope = DC_SCOPE_CC;
		base = &c->cfg.cc[cc->id];
	} else {
		dc_err_add(c->eb, "%s:%d: [%s] %s = %s: unknown section; sections: daemon, int, %s, %s",
			   c->file, line, section, name, value, dc_ccs[0].name, dc_ccs[1].name);
		return 1;
	}
	p = dc_param_find(scope, name);
	if (!p) {
		list_keys(scope, keys, sizeof(keys));
		dc_err_add(c->eb, "%s:%d: [%s] %s = %s: unknown key; keys in [%s]: %s",
			   c->file, line, section, name, value, section, keys);
		return 1;
	}
	seen = &c->seen[cc ? 1 + cc->id : scope == DC_SCOPE_INT ? 1 + DC_CC_MAX : 0][p - dc_params];
	if (*seen) {
		dc_err_add(c->eb, "%s:%d: [%s] %s = %s: duplicate key (first set at line %d)",
			   c->file, line, section, name, value, *seen);
		return 1;
	}
	*seen = line;
	if (dc_param_parse(p, value, base, why, sizeof(why))) {
		dc_param_range(p, range, sizeof(range));
		dc_err_add(c->eb, "%s:%d: [%s] %s = %s: %s; allowed %s%s%s",
			   c->file, line, section, name, value, why, range,
			   strcmp(p->unit, "-") ? " " : "", strcmp(p->unit, "-") ? p->unit : "");
	}
	return 1;
}

static int load_common(const char *name, struct ini_src *src, struct dc_config *out,
		       struct dc_errbuf *eb)
{
	struct ini_ctx *c;
	unsigned int before = eb->count;
	int r;

	c = calloc(1, sizeof(*c));
	if (!c) {
		dc_err_add(eb, "%s: out of memory", name);
		return -1;
	}
	c->file = name;
	c->src = src;
	c->eb = eb;
	dc_config_defaults(&c->cfg);
	r = ini_parse_stream(ini_read_line, src, conf_on_key, c);
	/* the handler never fails, so a non-zero line is an INI syntax error */
	if (r > 0)
		dc_err_add(eb, "%s:%d: syntax error: expected '[section]', 'key = value' or a comment",
			   name, r);
	else if (r < 0)
		dc_err_add(eb, "%s: cannot parse (error %d)", name, r);
	if (src->long_line)
		dc_err_add(eb, "%s:%d: line too long", name, src->long_line);
	if (eb->count == before)
		*out = c->cfg;
	free(c);
	return eb->count == before ? 0 : -1;
}

int dc_config_load(const char *path, struct dc_config *out, struct dc_errbuf *eb)
{
	struct ini_src src = { 0 };
	int r;

	src.f = fopen(path, "re");
	if (!src.f) {
		dc_err_add(eb, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	r = load_common(path, &src, out, eb);
	if (ferror(src.f)) {
		dc_err_add(eb, "%s: read error", path);
		r = -1;
	}
	fclose(src.f);
	free(src.buf);
	return r;
}

int dc_config_read(const char *path, bool explicit_path, struct dc_config *out,
		   struct dc_errbuf *eb)
{
	if (!explicit_path && access(path, F_OK) && errno == ENOENT) {
		dc_config_defaults(out);
		return 1;
	}
	return dc_config_load(path, out, eb);
}

int dc_config_load_string(const char *name, const char *text, struct dc_config *out,
			  struct dc_errbuf *eb)
{
	struct ini_src src = { 0 };

	src.s = text;
	return load_common(name, &src, out, eb);
}

/* ---- documentation ---------------------------------------------------- */

void dc_config_print_doc(FILE *f)
{
	struct dc_config def;
	unsigned int i;
	char val[DC_PATH_LEN], range[64];

	dc_config_defaults(&def);
	fprintf(f, "| section | key | default | allowed | unit | map field | meaning |\n");
	fprintf(f, "|---|---|---|---|---|---|---|\n");
	for (i = 0; i < dc_nparams; i++) {
		const struct dc_param *p = &dc_params[i];
		const void *base = dc_param_base(p, &def);

		dc_param_format(p, base, val, sizeof(val));
		dc_param_range(p, range, sizeof(range));
		fprintf(f, "| %s | `%s` | %s%s%s | %s | %s | %s%s%s | %s |\n",
			p->scope == DC_SCOPE_DAEMON ? "[daemon]" :
			p->scope == DC_SCOPE_INT ? "[int]" : "[powertcp], [theta_powertcp]",
			p->name, val[0] ? "`" : "", val[0] ? val : "(empty)", val[0] ? "`" : "", range,
			p->unit, p->field ? "`" : "", p->field ? p->field : "-",
			p->field ? "`" : "", p->doc);
	}
}
