// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The parameter table and the config file parser (libinih does the INI
 * syntax; this file does meaning and messages, params.c parses each value
 * against its kind and range).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ini.h>
#include <dcbpf/int.h>
#include <dcbpf/fixed.h>
#include <dcbpf/powertcp.h>
#include <dcbpf/hpcc.h>
#include <dcbpf/timely.h>

#include "config.h"

#define DOFF(f) NULL, offsetof(struct dc_daemon_cfg, f)
#define IOFF(f) NULL, offsetof(struct dc_int_cfg, f)
#define COFF(f) #f, offsetof(struct dc_cc_cfg, f)
#define POFF(f) NULL, offsetof(struct dc_perc_cfg, f)

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
	{ "dctcp", DC_SCOPE_DAEMON, DC_K_BOOL, DOFF(dctcp), 0, 1, "-",
	  "1 = also register the BPF DCTCP (the ECN baseline) as dctcp; read at start" },
	{ "interfaces", DC_SCOPE_INT, DC_K_IFGLOBS, IOFF(interfaces), 0, 0, "-",
	  "interfaces that get the host INT programs (egress source/echo, ingress sink), as "
	  "names or globs (veth*); empty = none" },
	{ "netns", DC_SCOPE_INT, DC_K_NETNS, IOFF(netns), 0, 0, "-",
	  "network namespace (name in /var/run/netns) of those interfaces; empty = the daemon's own" },
	{ "destinations", DC_SCOPE_INT, DC_K_PREFIXES, IOFF(destinations), 0, 0, "-",
	  "IPv4 prefixes whose traffic carries INT, each A.B.C.D/LEN[:SLOTS] (hop slots 1-4, default 4)" },
	{ "sample_us", DC_SCOPE_INT, DC_K_U32, IOFF(sample_us), 0, 1000000, "µs",
	  "INT on at most one data segment per flow per this interval, for those destinations; "
	  "0 = every segment (keep it below int_stale_us less an RTT)" },
	{ "sample_qlen_bytes", DC_SCOPE_INT, DC_K_U32, IOFF(sample_qlen_bytes), 0, 1U << 30, "bytes",
	  "with sample_us: INT on every segment while the flow's newest echo shows a hop queue "
	  "above this; 0 = never" },
	{ "giveup_ms", DC_SCOPE_INT, DC_K_U32, IOFF(giveup_ms), 0, 60000, "ms",
	  "a flow whose INT brings no echo back for this long is sent without the option for a "
	  "while (IP options dropped on the path); 0 = never (docs/int.md)" },
	{ "netns", DC_SCOPE_PERC, DC_K_NETNS, POFF(netns), 0, 0, "-",
	  "network namespace (name in /var/run/netns) of the s-PERC links; empty = the daemon's own" },
	{ "capacities", DC_SCOPE_PERC, DC_K_PERCCAPS, POFF(capacities), 0, 0, "-",
	  "capacity for data of the s-PERC link out of each interface, IF=KBPS (attached with "
	  "dcbpf perc attach); set live at start and on reload, all or none; empty = none" },
	{ "gamma", DC_SCOPE_CC, DC_K_Q16, COFF(gamma_q16), 1, (__u32)DC_Q16_ONE, "-",
	  "EWMA weight of the window update (γ); 1 = jump to the target window" },
	{ "base_rtt_us", DC_SCOPE_CC, DC_K_U32, COFF(base_rtt_us), 0, 1000000, "µs",
	  "base RTT τ; 0 = the path's base RTT learned across flows plus one send unit at HostBw" },
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
	  "1 = set the socket pacing rate to cwnd/τ (timely: to its rate)" },
	/* The baselines' own parameters (docs/baselines.md); every CC has
	 * them, only the one named in the help reads them. */
	{ "eta", DC_SCOPE_CC, DC_K_Q16, COFF(eta_q16), 1, (__u32)DC_Q16_ONE, "-",
	  "hpcc: target utilisation η; W shrinks when U ≥ η" },
	{ "max_stage", DC_SCOPE_CC, DC_K_U32, COFF(max_stage), 0, 100, "RTTs",
	  "hpcc: additive-increase RTTs before a multiplicative step (maxStage)" },
	{ "t_low_us", DC_SCOPE_CC, DC_K_U32, COFF(t_low_us), 0, 1000000, "µs",
	  "timely: below this RTT the rate grows by δ (T_low; 0 = never)" },
	{ "t_high_us", DC_SCOPE_CC, DC_K_U32, COFF(t_high_us), 1, 1000000, "µs",
	  "timely: above this RTT the rate is cut by T_high/RTT (T_high)" },
	{ "delta_mbps", DC_SCOPE_CC, DC_K_U32, COFF(delta_mbps), 1, 100000, "Mbit/s",
	  "timely: additive increase step δ" },
	{ "md_beta", DC_SCOPE_CC, DC_K_Q16, COFF(md_beta_q16), 1, (__u32)DC_Q16_ONE, "-",
	  "timely: multiplicative decrease factor β" },
	{ "alpha", DC_SCOPE_CC, DC_K_Q16, COFF(alpha_q16), 1, (__u32)DC_Q16_ONE, "-",
	  "timely: EWMA weight α of a new RTT difference" },
};
const unsigned int dc_nparams = sizeof(dc_params) / sizeof(dc_params[0]);

const struct dc_cc_desc dc_ccs[DC_CC_MAX] = {
	{ DC_CC_POWERTCP, "powertcp" },
	{ DC_CC_THETA, "theta_powertcp" },
	{ DC_CC_HPCC, "hpcc" },
	{ DC_CC_TIMELY, "timely" },
};


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
	cfg->eta_q16 = DC_HPCC_DEFAULT_ETA_Q16;
	cfg->max_stage = DC_HPCC_DEFAULT_MAX_STAGE;
	cfg->t_low_us = DC_TIMELY_DEFAULT_T_LOW_US;
	cfg->t_high_us = DC_TIMELY_DEFAULT_T_HIGH_US;
	cfg->delta_mbps = DC_TIMELY_DEFAULT_DELTA_MBPS;
	cfg->md_beta_q16 = DC_TIMELY_DEFAULT_BETA_Q16;
	cfg->alpha_q16 = DC_TIMELY_DEFAULT_ALPHA_Q16;
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

const char *dc_cc_names(char *buf, size_t len, const char *pre, const char *post,
			const char *last)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < DC_CC_MAX && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s%s%s",
					!i ? "" : i + 1 == DC_CC_MAX ? last : ", ", pre,
					dc_ccs[i].name, post);
	return buf;
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
	case DC_SCOPE_PERC:
		return &c->perc;
	default:
		return &c->cc[0];
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
		char names[128];

		snprintf(why, whylen, "unknown congestion control '%s' in '%s' (use %s)", sect, key,
			 dc_cc_names(names, sizeof(names), "", "", " or "));
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
	 * [1 + DC_CC_MAX] int, [2 + DC_CC_MAX] perc */
	int seen[3 + DC_CC_MAX][32];
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
	char why[160], range[64], keys[512], names[128];
	void *base;
	int *seen;

	if (!section[0]) {
		dc_err_add(c->eb, "%s:%d: %s = %s: key outside a section; put it under [daemon], [int], [perc], %s",
			   c->file, line, name, value,
			   dc_cc_names(names, sizeof(names), "[", "]", " or "));
		return 1;
	}
	if (!strcmp(section, "daemon")) {
		scope = DC_SCOPE_DAEMON;
		base = &c->cfg.daemon;
	} else if (!strcmp(section, "int")) {
		scope = DC_SCOPE_INT;
		base = &c->cfg.intf;
	} else if (!strcmp(section, "perc")) {
		scope = DC_SCOPE_PERC;
		base = &c->cfg.perc;
	} else if ((cc = dc_cc_find(section))) {
		scope = DC_SCOPE_CC;
		base = &c->cfg.cc[cc->id];
	} else {
		dc_err_add(c->eb, "%s:%d: [%s] %s = %s: unknown section; sections: daemon, int, perc, %s",
			   c->file, line, section, name, value,
			   dc_cc_names(names, sizeof(names), "", "", ", "));
		return 1;
	}
	p = dc_param_find(scope, name);
	if (!p) {
		list_keys(scope, keys, sizeof(keys));
		dc_err_add(c->eb, "%s:%d: [%s] %s = %s: unknown key; keys in [%s]: %s",
			   c->file, line, section, name, value, section, keys);
		return 1;
	}
	seen = &c->seen[cc ? 1 + cc->id : scope == DC_SCOPE_INT ? 1 + DC_CC_MAX :
			scope == DC_SCOPE_PERC ? 2 + DC_CC_MAX : 0][p - dc_params];
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
	char val[DC_PATH_LEN], range[64], ccs[128];

	dc_config_defaults(&def);
	dc_cc_names(ccs, sizeof(ccs), "[", "]", ", ");
	fprintf(f, "| section | key | default | allowed | unit | map field | meaning |\n");
	fprintf(f, "|---|---|---|---|---|---|---|\n");
	for (i = 0; i < dc_nparams; i++) {
		const struct dc_param *p = &dc_params[i];
		const void *base = dc_param_base(p, &def);

		dc_param_format(p, base, val, sizeof(val));
		dc_param_range(p, range, sizeof(range));
		fprintf(f, "| %s | `%s` | %s%s%s | %s | %s | %s%s%s | %s |\n",
			p->scope == DC_SCOPE_DAEMON ? "[daemon]" :
			p->scope == DC_SCOPE_INT ? "[int]" : p->scope == DC_SCOPE_PERC ? "[perc]" : ccs,
			p->name, val[0] ? "`" : "", val[0] ? val : "(empty)", val[0] ? "`" : "", range,
			p->unit, p->field ? "`" : "", p->field ? p->field : "-",
			p->field ? "`" : "", p->doc);
	}
}
