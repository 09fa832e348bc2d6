// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The switch parameters (`sw.NAME.KEY`): one table of keys with their
 * field in struct dc_sw_cfg, range, unit and meaning; parsing a value
 * into a configuration, formatting it back, and the reference that
 * `dcbpf switch params` prints.  Reference: docs/admission.md.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <dcbpf/admit.h>
#include <dcbpf/resqueue.h>
#include <dcbpf/slytherin.h>

#include "sw/swint.h"

#define SOFF(f) offsetof(struct dc_sw_cfg, f)

/*
 * B below one MTU would drop everything; α up to 1024 keeps (B − Q)·α in
 * 64 bits (include/dcbpf/admit.h); the ABM period is bounded below so the
 * update cannot run more than 100 000 times a second.
 */
const struct sw_param sw_params[] = {
	{ "alg", SW_K_ALG, SOFF(alg), 0, DC_ALG_EDT, 0, "-",
	  "admission algorithm: cs, dt, abm, credence, followlqd, smartbuf, edt, reverie or sonic "
	  "(lqd is push-out: simulator only)" },
	{ "buffer_bytes", DC_K_U32, SOFF(buffer_bytes), 1500, 0x7fffffff, 0, "bytes",
	  "shared buffer B of the switch" },
	{ "alpha", DC_K_Q16, SOFF(alpha_q16), 1, DC_ALPHA_MAX_Q16, DC_SW_PRIOS, "-",
	  "α of priority P (alpha.P, P 0-7; bare alpha sets every priority), DT and ABM" },
	{ "alpha_first_rtt", DC_K_Q16, SOFF(alpha_first_rtt_q16), 1, DC_ALPHA_MAX_Q16, 0, "-",
	  "α of first-RTT (unscheduled) packets under ABM" },
	{ "ecn_k_bytes", DC_K_U32, SOFF(ecn_k_bytes), 0, 0x7fffffff, 0, "bytes",
	  "mark CE on ECN-capable IPv4 packets when their queue exceeds K; 0 = off" },
	{ "abm_period_us", DC_K_U32, SOFF(abm_period_us), 10, 1000000, 0, "µs",
	  "period of ABM's n_p and drain-rate update" },
	{ "cred_drain", SW_K_DRAIN, SOFF(cred_drain), 0, DC_DRAIN_MAX - 1, 0, "-",
	  "how Credence's and FollowLQD's virtual queues drain: time (× port rate), departures "
	  "(of the real port) or hybrid (departures while the real queue is backlogged, time while idle)" },
	{ "dscp", SW_K_DSCP, SOFF(dscp_prio), 0, DC_SW_PRIOS - 1, 64, "-",
	  "priority of DSCP D (dscp.D, D 0-63); default D >> 3" },
	{ "first_rtt", SW_K_FIRST_RTT, SOFF(dscp_prio), 0, 1, 64, "-",
	  "1 = DSCP D marks first-RTT packets (first_rtt.D); default: odd DSCPs" },
	{ "sb_trigger", DC_K_U32, SOFF(sb.trigger), 0, DC_SB_TRIGGER_MAX - 1, 0, "-",
	  "SmartBuf: 0 = onset (the learned threshold while a burst rises, DT after it), "
	  "1 = literal (set at a burst's end, as Algorithm 2 is printed)" },
	{ "sb_k", DC_K_U32, SOFF(sb.k), 1, DC_SB_K_MAX, 0, "-",
	  "SmartBuf: nearest neighbours whose learned maxima are averaged" },
	{ "sb_beta", DC_K_Q16, SOFF(sb.beta_q16), 1, (__u32)DC_Q16_ONE, 0, "-",
	  "SmartBuf: a burst ends when its queue falls below beta x its maximum" },
	{ "sb_sigma", DC_K_Q16, SOFF(sb.sigma_q16), (__u32)DC_Q16_ONE + 1, 1000U << DC_Q16_SHIFT, 0,
	  "-", "SmartBuf: a burst is learned when its maximum exceeds B / sigma" },
	{ "sb_onset", DC_K_Q16, SOFF(sb.onset_q16), 1, (__u32)DC_Q16_ONE, 0, "-",
	  "SmartBuf onset trigger: the queue holds at least this fraction of B" },
	{ "sb_age_us", DC_K_U32, SOFF(sb.age_us), 1, 0xfffffffeU, 0, "µs",
	  "SmartBuf: learned bursts not seen again for this long are forgotten" },
	{ "edt_rise", DC_K_U32, SOFF(edt.rise), 1, 1000000, 0, "-",
	  "EDT: consecutive rising (falling) queue samples that start (end) a burst" },
	{ "edt_max_us", DC_K_U32, SOFF(edt.max_us), 1, 100000000, 0, "µs",
	  "EDT: longest uncontrolled state (longer: overloaded, DT until the queue empties)" },
	{ "tag_port", SW_K_TAGPORT, SOFF(tag_port), 0, DC_SW_PORTS_MAX - 1, DC_SW_TAGS, "-",
	  "port (index, as in switch status) that an Ethereal leaf steers path tag T to "
	  "(tag_port.T, T 1-15): admission and ECN then use that uplink's queue; fib = the "
	  "FIB's port" },
	{ "prio_mode", SW_K_PMODE, SOFF(prio_mode), 0, DC_SW_PM_MAX - 1, 0, "-",
	  "how a packet picks its queue (--queues N > 1): dscp (the dscp.D map), slytherin (CE as "
	  "received and payload-less ACK/SYN/FIN to the top queue, the rest to queue 0, then CE at "
	  "sly_k) or resqueue (the dscp.D map; the top queue admitted against reserved_bytes alone)" },
	{ "sly_k", DC_K_Q16, SOFF(sly_k_q16), 1, (__u32)DC_Q16_ONE, 0, "-",
	  "slytherin: mark ECT packets CE when the port's backlog, the packet included, reaches "
	  "this fraction of buffer_bytes" },
	{ "reserved_bytes", DC_K_U32, SOFF(resq_reserved_bytes), 1500, 0x7fffffff, 0, "bytes",
	  "resqueue: the top queue's own buffer on every port, apart from the shared one" },
	{ "lossless", DC_K_U32, SOFF(rv.lossless), 0, 1, DC_SW_PRIOS, "-",
	  "reverie, sonic: 1 = priority P is lossless (lossless.P): PFC-paused into headroom instead "
	  "of dropped at its ingress threshold" },
	{ "rv_alpha_lossy", DC_K_Q16, SOFF(rv.alpha_q16[DC_RV_LOSSY]), 1, DC_RV_ALPHA_MAX_Q16, 0,
	  "-", "reverie: α of lossy queues (Eq. 5.12); sonic: α of the egress lossy pool's DT" },
	{ "rv_alpha_lossless", DC_K_Q16, SOFF(rv.alpha_q16[DC_RV_LOSSLESS]), 1, DC_RV_ALPHA_MAX_Q16,
	  0, "-", "reverie: α of lossless queues (Eq. 5.12; Theorem 10: the split is α_LL : α_LY); "
	  "sonic: α of the ingress pool's DT for lossless queues" },
	{ "rv_gamma", SW_K_Q32, SOFF(rv.gamma_q32), 0, 0xffffffffU, 0, "-",
	  "reverie: weight of the old average in the low-pass filter (Eq. 5.11), 0 <= gamma < 1" },
	{ "rv_hdrm_bytes", DC_K_U32, SOFF(rv.hdrm_bytes), 1500, 0x7fffffff, 0, "bytes",
	  "reverie, sonic: PFC headroom of one lossless ingress queue (what arrives between PAUSE "
	  "and the upstream stopping)" },
	{ "rv_hdrm_pool_bytes", DC_K_U32, SOFF(rv.hdrm_pool_bytes), 1500, 0x7fffffff, 0, "bytes",
	  "reverie, sonic: headroom pool b_h of all lossless queues; the shared (sonic: ingress) pool "
	  "is buffer_bytes - b_h" },
	{ "rv_cong_bytes", DC_K_U32, SOFF(rv.cong_bytes), 1, 0x7fffffff, 0, "bytes",
	  "reverie: filtered queue length at which a queue counts fully in n of Eq. 5.12" },
	{ "rv_xon_bytes", DC_K_U32, SOFF(rv.xon_bytes), 0, 0x7fffffff, 0, "bytes",
	  "reverie: a paused queue resumes once its headroom is empty and q̂ + xon <= Γ (sonic: q + "
	  "xon < T)" },
};
const unsigned int sw_nparams = sizeof(sw_params) / sizeof(sw_params[0]);

void dc_sw_cfg_defaults(struct dc_sw_cfg *c)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->alg = DC_ALG_DT;
	c->buffer_bytes = DC_DEFAULT_BUFFER_BYTES;
	c->ecn_k_bytes = 0;
	c->abm_period_us = DC_DEFAULT_ABM_PERIOD_US;
	c->alpha_first_rtt_q16 = DC_DEFAULT_ALPHA_FIRST_RTT_Q16;
	c->sb.trigger = DC_SB_ONSET;
	c->sb.k = DC_SB_DEFAULT_K;
	c->sb.beta_q16 = (__u32)DC_SB_DEFAULT_BETA_Q16;
	c->sb.sigma_q16 = (__u32)DC_SB_DEFAULT_SIGMA_Q16;
	c->sb.onset_q16 = DC_SB_DEFAULT_ONSET_Q16;
	c->sb.age_us = DC_SB_DEFAULT_AGE_US;
	c->edt.rise = DC_EDT_DEFAULT_RISE;
	c->edt.max_us = DC_EDT_DEFAULT_MAX_US;
	c->cred_drain = DC_DRAIN_HYBRID;	/* docs/admission.md, "Drain rule" */
	c->prio_mode = DC_SW_PM_DSCP;
	c->sly_k_q16 = (__u32)DC_SLY_K_DEFAULT_Q16;
	c->resq_reserved_bytes = DC_RESQ_RESERVED_BYTES_DEFAULT;
	for (i = 0; i < DC_SW_PRIOS; i++)
		c->alpha_q16[i] = DC_DEFAULT_ALPHA_Q16;
	/* Reverie (§5.3 evaluation): α = 1 for both classes, γ = 0.999;
	 * priority 3 lossless (DSCP 24-31, RoCE's usual class); headroom
	 * sized for the emulated fabric's pause path (docs/admission.md,
	 * "PFC"), the pool for four such queues paused at once */
	c->rv.alpha_q16[DC_RV_LOSSY] = DC_RV_DEFAULT_ALPHA_Q16;
	c->rv.alpha_q16[DC_RV_LOSSLESS] = DC_RV_DEFAULT_ALPHA_Q16;
	c->rv.gamma_q32 = (__u32)DC_RV_DEFAULT_GAMMA_Q32;
	c->rv.hdrm_bytes = DC_SW_RV_DEFAULT_HDRM_BYTES;
	c->rv.hdrm_pool_bytes = 4 * DC_SW_RV_DEFAULT_HDRM_BYTES;
	c->rv.cong_bytes = DC_RV_DEFAULT_CONG_BYTES;
	c->rv.xon_bytes = 0;
	c->rv.lossless[3] = 1;
	/* class selector → priority; the host marks first-RTT packets by
	 * setting the otherwise unused low DSCP bit */
	for (i = 0; i < 64; i++)
		c->dscp_prio[i] = (__u8)(((i >> 3) & DC_SW_DSCP_PRIO_MASK) |
					 (i & 1 ? DC_SW_DSCP_FIRST_RTT : 0));
}

static const char *const drain_names[DC_DRAIN_MAX] = { "time", "departures", "hybrid" };

static const char *const pmode_names[DC_SW_PM_MAX] = { "dscp", "slytherin", "resqueue" };

static const char *const alg_names[DC_ALG_MAX] = { "cs", "dt", "abm", "lqd", "credence",
						      "followlqd", "smartbuf", "edt" };

const char *sw_rv_refuse(const struct dc_sw_cfg *c, char *buf, size_t len)
{
	const char *a = c->alg == DC_ALG_SONIC ? "sonic" : "reverie";

	if (c->alg != DC_ALG_REVERIE && c->alg != DC_ALG_SONIC)
		return NULL;
	if (c->rv.hdrm_pool_bytes >= c->buffer_bytes) {
		snprintf(buf, len, "%s: rv_hdrm_pool_bytes %u leaves no shared pool in buffer_bytes %u",
			 a, c->rv.hdrm_pool_bytes, c->buffer_bytes);
		return buf;
	}
	if (c->rv.hdrm_bytes > c->rv.hdrm_pool_bytes) {
		snprintf(buf, len, "%s: one queue's rv_hdrm_bytes %u exceeds the pool rv_hdrm_pool_bytes %u",
			 a, c->rv.hdrm_bytes, c->rv.hdrm_pool_bytes);
		return buf;
	}
	return NULL;
}

const char *sw_queues_refuse(__u32 nqueues, __u32 alg)
{
	/* Reverie keeps its own queue per (port, priority) (dc_sw_rv) */
	if (nqueues <= 1 || alg == DC_ALG_CS || alg == DC_ALG_DT || alg == DC_ALG_ABM ||
	    alg == DC_ALG_REVERIE || alg == DC_ALG_SONIC)
		return NULL;
	/* their per-port state (virtual LQD, gradient, EDT state) is not
	 * per queue yet (docs/admission.md, "Priority queues") */
	return "with more than one queue per port only cs, dt, abm, reverie and sonic decide per queue";
}

const char *sw_mode_refuse(__u32 nqueues, __u32 mode)
{
	if (nqueues > 1 || mode == DC_SW_PM_DSCP)
		return NULL;
	return mode == DC_SW_PM_SLYTHERIN ?
		       "slytherin needs two queues per port (switch up --queues 2)" :
		       "resqueue needs queues per port, its reserved level the top one (switch up --queues N, N > 1)";
}

const char *sw_pmode_name(__u32 mode)
{
	return mode < DC_SW_PM_MAX ? pmode_names[mode] : "?";
}

const char *sw_alg_name(__u32 alg)
{
	if (alg == DC_ALG_REVERIE)
		return "reverie";
	if (alg == DC_ALG_SONIC)
		return "sonic";
	return alg < DC_ALG_MAX ? alg_names[alg] : "?";
}

const char *sw_drain_name(__u32 drain)
{
	return drain < DC_DRAIN_MAX ? drain_names[drain] : "?";
}

static struct dc_param as_param(const struct sw_param *sp)
{
	struct dc_param p = { .name = sp->name, .scope = DC_SCOPE_CC,
			      .kind = sp->kind < SW_K_ALG ? (enum dc_kind)sp->kind : DC_K_U32,
			      .field = sp->name, .off = 0, .min = sp->min, .max = sp->max,
			      .unit = sp->unit, .doc = sp->doc };
	return p;
}

static void sw_range(const struct sw_param *sp, char *buf, size_t len)
{
	struct dc_param p = as_param(sp);

	if (sp->kind == SW_K_ALG)
		snprintf(buf, len, "cs, dt, abm, credence, followlqd, smartbuf, edt, reverie, sonic");
	else if (sp->kind == SW_K_Q32)
		snprintf(buf, len, "0 <= x < 1");
	else if (sp->kind == SW_K_DRAIN)
		snprintf(buf, len, "time, departures or hybrid");
	else if (sp->kind == SW_K_PMODE)
		snprintf(buf, len, "dscp, slytherin or resqueue");
	else if (sp->kind == SW_K_FIRST_RTT)
		snprintf(buf, len, "0 or 1");
	else if (sp->kind == SW_K_TAGPORT)
		snprintf(buf, len, "fib or a port 0..%u", DC_SW_PORTS_MAX - 1);
	else
		dc_param_range(&p, buf, len);
}

/* "alpha.3" → parameter and index (-1 = all of an indexed one). */
const struct sw_param *sw_param_find(const char *key, int *index, struct dc_err *err)
{
	const char *dot = strchr(key, '.');
	size_t n = dot ? (size_t)(dot - key) : strlen(key);
	unsigned int i;

	*index = -1;
	for (i = 0; i < sw_nparams; i++) {
		const struct sw_param *sp = &sw_params[i];
		char *end;
		long v;

		if (strlen(sp->name) != n || strncmp(sp->name, key, n))
			continue;
		if (!dot) {
			if (sp->count && sp->kind != DC_K_Q16) {
				dc_err_set(err, EXIT_USAGE, "'%s' needs an index: %s.I with I in 0..%u",
					   key, sp->name, sp->count - 1);
				return NULL;
			}
			return sp;
		}
		v = strtol(dot + 1, &end, 10);
		if (!sp->count || *end || !dot[1] || v < 0 || v >= (long)sp->count) {
			dc_err_set(err, EXIT_USAGE, "'%s': %s", key,
				   sp->count ? "index out of range" : "takes no index");
			return NULL;
		}
		*index = (int)v;
		return sp;
	}
	{
		char keys[320];
		size_t off = 0;

		keys[0] = '\0';
		for (i = 0; i < sw_nparams && off < sizeof(keys); i++)
			off += (size_t)snprintf(keys + off, sizeof(keys) - off, " %s%s",
						sw_params[i].name, sw_params[i].count ? ".I" : "");
		dc_err_set(err, EXIT_USAGE, "unknown switch key '%s'; keys:%s", key, keys);
	}
	return NULL;
}

/* Parse one value into cfg.  On error nothing changes and *why says why. */
static int sw_param_apply(const struct sw_param *sp, int index, const char *text,
			  struct dc_sw_cfg *cfg, char *why, size_t whylen)
{
	struct dc_param p = as_param(sp);
	__u32 v = 0;
	unsigned int i;

	if (sp->kind == SW_K_ALG) {
		for (i = 0; i < DC_ALG_MAX; i++)
			if (i != DC_ALG_LQD && !strcmp(text, alg_names[i])) {
				cfg->alg = i;
				return 0;
			}
		if (!strcmp(text, "reverie")) {
			cfg->alg = DC_ALG_REVERIE;
			return 0;
		}
		if (!strcmp(text, "sonic")) {
			cfg->alg = DC_ALG_SONIC;
			return 0;
		}
		snprintf(why, whylen, !strcmp(text, "lqd") ?
			 "lqd pushes packets out of the queue: only dcbpf sim can run it" :
			 "unknown algorithm");
		return -1;
	}
	if (sp->kind == SW_K_DRAIN) {
		for (i = 0; i < DC_DRAIN_MAX; i++)
			if (!strcmp(text, drain_names[i])) {
				cfg->cred_drain = i;
				return 0;
			}
		snprintf(why, whylen, "unknown drain rule (time, departures or hybrid)");
		return -1;
	}
	if (sp->kind == SW_K_PMODE) {
		for (i = 0; i < DC_SW_PM_MAX; i++)
			if (!strcmp(text, pmode_names[i])) {
				cfg->prio_mode = i;
				return 0;
			}
		snprintf(why, whylen, "unknown classification mode");
		return -1;
	}
	if (sp->kind == SW_K_TAGPORT) {
		if (index < 1) {
			snprintf(why, whylen, "path tags are 1..%u (tag_port.T)", DC_SW_TAGS - 1);
			return -1;
		}
		if (!strcmp(text, "fib")) {
			cfg->tag_port[index] = 0;
			return 0;
		}
	}
	if (sp->kind == SW_K_Q32) {
		char *end;
		double g;

		errno = 0;
		g = strtod(text, &end);
		if (!*text || *end || errno || isspace((unsigned char)*text)) {
			snprintf(why, whylen, "not a number");
			return -1;
		}
		if (!(g >= 0 && g < 1)) {
			snprintf(why, whylen, "out of range (a weight of the old average: 1 would never move)");
			return -1;
		}
		*(__u32 *)((char *)cfg + sp->off) = (__u32)(g * DC_RV_Q32_ONE + 0.5 < 4294967295.0 ?
								 g * DC_RV_Q32_ONE + 0.5 : 4294967295.0);
		return 0;
	}
	if (sp->kind == SW_K_FIRST_RTT)
		p.kind = DC_K_BOOL;
	if (dc_param_parse(&p, text, &v, why, whylen))
		return -1;
	switch (sp->kind) {
	case SW_K_DSCP:
		cfg->dscp_prio[index] = (__u8)((cfg->dscp_prio[index] & ~DC_SW_DSCP_PRIO_MASK) | v);
		return 0;
	case SW_K_FIRST_RTT:
		cfg->dscp_prio[index] = (__u8)((cfg->dscp_prio[index] & ~DC_SW_DSCP_FIRST_RTT) |
					       (v ? DC_SW_DSCP_FIRST_RTT : 0));
		return 0;
	case SW_K_TAGPORT:
		cfg->tag_port[index] = (__u8)(v + 1);
		return 0;
	default:
		break;
	}
	if (sp->count) {
		for (i = 0; i < sp->count; i++)
			if (index < 0 || (int)i == index)
				((__u32 *)((char *)cfg + sp->off))[i] = v;
		return 0;
	}
	*(__u32 *)((char *)cfg + sp->off) = v;
	return 0;
}

void sw_param_format(const struct sw_param *sp, int index, const struct dc_sw_cfg *cfg,
			    char *buf, size_t len)
{
	struct dc_param p = as_param(sp);
	__u32 v;

	switch (sp->kind) {
	case SW_K_ALG:
		snprintf(buf, len, "%s", sw_alg_name(cfg->alg));
		return;
	case SW_K_DRAIN:
		snprintf(buf, len, "%s", sw_drain_name(cfg->cred_drain));
		return;
	case SW_K_PMODE:
		snprintf(buf, len, "%s", sw_pmode_name(cfg->prio_mode));
		return;
	case SW_K_DSCP:
		snprintf(buf, len, "%u", cfg->dscp_prio[index] & DC_SW_DSCP_PRIO_MASK);
		return;
	case SW_K_FIRST_RTT:
		snprintf(buf, len, "%u", cfg->dscp_prio[index] & DC_SW_DSCP_FIRST_RTT ? 1 : 0);
		return;
	case SW_K_Q32:
		snprintf(buf, len, "%.9g",
			 (double)*(const __u32 *)((const char *)cfg + sp->off) / (double)DC_RV_Q32_ONE);
		return;
	case SW_K_TAGPORT:
		if (index < 0 || !cfg->tag_port[index])
			snprintf(buf, len, "fib");
		else
			snprintf(buf, len, "%u", cfg->tag_port[index] - 1u);
		return;
	default:
		break;
	}
	v = ((const __u32 *)((const char *)cfg + sp->off))[index < 0 ? 0 : index];
	dc_param_format(&p, &v, buf, len);
}

/* One row of the reference: the key as written, its default (of index 0
 * for an indexed key) and what it allows. */
struct sw_ref {
	char key[32], val[64], range[64];
};

static void sw_ref_row(const struct sw_param *sp, const struct dc_sw_cfg *def, struct sw_ref *r)
{
	snprintf(r->key, sizeof(r->key), "%s%s", sp->name, sp->count ? ".I" : "");
	sw_param_format(sp, sp->count ? 0 : -1, def, r->val, sizeof(r->val));
	sw_range(sp, r->range, sizeof(r->range));
}

void dc_sw_print_doc(FILE *f)
{
	struct dc_sw_cfg def;
	struct sw_ref r;
	unsigned int i;

	dc_sw_cfg_defaults(&def);
	fprintf(f, "| key (sw.NAME.…) | default | allowed | unit | meaning |\n|---|---|---|---|---|\n");
	for (i = 0; i < sw_nparams; i++) {
		sw_ref_row(&sw_params[i], &def, &r);
		fprintf(f, "| `%s` | `%s`%s | %s | %s | %s |\n", r.key, r.val,
			sw_params[i].count ? " (I = 0)" : "", r.range, sw_params[i].unit,
			sw_params[i].doc);
	}
}

bool sw_valid_name(const char *n)
{
	size_t i, l = strlen(n);

	if (!l || l >= DC_SW_NAME_LEN)
		return false;
	for (i = 0; i < l; i++)
		if (!isalnum((unsigned char)n[i]) && n[i] != '-' && n[i] != '_')
			return false;
	return true;
}

int sw_assign(const char *kv, struct dc_sw_cfg *cfg, const char *prefix, struct dc_err *err)
{
	const char *eq = strchr(kv, '=');
	const struct sw_param *sp;
	char key[96], why[384], range[64];
	int index;

	if (!eq || eq == kv)
		return dc_err_set(err, EXIT_USAGE, "'%s': expected %sKEY=VALUE", kv, prefix);
	snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
	sp = sw_param_find(key, &index, err);
	if (!sp) {
		char m[DC_ERR_MSG_LEN];

		snprintf(m, sizeof(m), "%s", err->msg);
		return dc_err_set(err, EXIT_USAGE, "%s%s", prefix, m);
	}
	if (sw_param_apply(sp, index, eq + 1, cfg, why, sizeof(why))) {
		sw_range(sp, range, sizeof(range));
		return dc_err_set(err, EXIT_USAGE, "%s%s = %s: %s; allowed %s%s%s", prefix, key, eq + 1,
				  why, range, strcmp(sp->unit, "-") ? " " : "",
				  strcmp(sp->unit, "-") ? sp->unit : "");
	}
	return 0;
}

/* `dcbpf switch params`: the reference as markdown, or one object per key. */
int sw_cmd_params(struct dc_ctx *ctx, int argc, char **argv)
{
	struct jw *j = &ctx->jw;
	struct dc_sw_cfg def;
	struct sw_ref r;
	unsigned int i;

	(void)argc;
	(void)argv;
	if (!ctx->json) {
		dc_sw_print_doc(ctx->out);
		return EXIT_OK;
	}
	dc_sw_cfg_defaults(&def);
	jw_arr(j, NULL);
	for (i = 0; i < sw_nparams; i++) {
		sw_ref_row(&sw_params[i], &def, &r);
		jw_obj(j, NULL);
		jw_str(j, "key", r.key);
		jw_str(j, "default", r.val);
		if (sw_params[i].count)
			jw_u64(j, "count", sw_params[i].count);
		jw_str(j, "allowed", r.range);
		jw_str(j, "unit", sw_params[i].unit);
		jw_str(j, "doc", sw_params[i].doc);
		jw_end_obj(j);
	}
	jw_end_arr(j);
	jw_done(j);
	return EXIT_OK;
}
