// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Emulated switches: bring one up (load bpf/switch.bpf.c once for it, pin
 * its maps and links under <pin_dir>/sw/<name>/, attach XDP admission to
 * its ports inside its namespace and the qdisc tracker), take it down,
 * show it, and change its parameters live.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <linux/gen_stats.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/pkt_sched.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dcbpf/admit.h>
#include <dcbpf/vlqd.h>

#include "attach.h"
#include "bpfsys.h"
#include "config.h"
#include "swctl.h"
#include "switch.skel.h"

enum { EXIT_OK = 0, EXIT_ERR = 1, EXIT_USAGE = 2 };

static __u64 mono_ns(void);

#define M_CFG "dc_sw_cfg"
#define M_META "dc_sw_meta"
#define M_PORT "dc_sw_port"
#define M_STATE "dc_sw_state"
#define M_IFPORT "dc_sw_ifport"
#define M_CNT "dc_sw_cnt"
#define M_MODEL "dc_sw_model"
#define M_CRED "dc_sw_cred"
#define M_EVENTS "dc_sw_events"
#define L_ENQ "link_q_enq"
#define L_DEQ "link_q_deq"
#define L_XDP_PREFIX "link_xdp_"

/* ---- parameters ---------------------------------------------------------- */

enum { SW_K_ALG = 100, SW_K_DSCP, SW_K_FIRST_RTT, SW_K_DRAIN, SW_K_TAGPORT };

struct sw_param {
	const char *name;
	int kind;		/* enum dc_kind or SW_K_* */
	size_t off;		/* in struct dc_sw_cfg */
	__u32 min, max;
	unsigned int count;	/* > 0: indexed, NAME.I with I < count */
	const char *unit;
	const char *doc;
};

#define SOFF(f) offsetof(struct dc_sw_cfg, f)

/*
 * B below one MTU would drop everything; α up to 1024 keeps (B − Q)·α in
 * 64 bits (include/dcbpf/admit.h); the ABM period is bounded below so the
 * update cannot run more than 100 000 times a second.
 */
static const struct sw_param sw_params[] = {
	{ "alg", SW_K_ALG, SOFF(alg), 0, DC_ALG_FOLLOWLQD, 0, "-",
	  "admission algorithm: cs, dt, abm, credence or followlqd (lqd is push-out: simulator only)" },
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
	{ "tag_port", SW_K_TAGPORT, SOFF(tag_port), 0, DC_SW_PORTS_MAX - 1, DC_SW_TAGS, "-",
	  "port (index, as in switch status) that an Ethereal leaf steers path tag T to "
	  "(tag_port.T, T 1-15): admission and ECN then use that uplink's queue; fib = the "
	  "FIB's port" },
};
#define NSW_PARAMS (sizeof(sw_params) / sizeof(sw_params[0]))

void dc_sw_cfg_defaults(struct dc_sw_cfg *c)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->alg = DC_ALG_DT;
	c->buffer_bytes = DC_DEFAULT_BUFFER_BYTES;
	c->ecn_k_bytes = 0;
	c->abm_period_us = DC_DEFAULT_ABM_PERIOD_US;
	c->alpha_first_rtt_q16 = DC_DEFAULT_ALPHA_FIRST_RTT_Q16;
	c->cred_drain = DC_DRAIN_HYBRID;	/* docs/admission.md, "Drain rule" */
	for (i = 0; i < DC_SW_PRIOS; i++)
		c->alpha_q16[i] = DC_DEFAULT_ALPHA_Q16;
	/* class selector → priority; the host marks first-RTT packets by
	 * setting the otherwise unused low DSCP bit */
	for (i = 0; i < 64; i++)
		c->dscp_prio[i] = (__u8)(((i >> 3) & DC_SW_DSCP_PRIO_MASK) |
					 (i & 1 ? DC_SW_DSCP_FIRST_RTT : 0));
}

static const char *const drain_names[DC_DRAIN_MAX] = { "time", "departures", "hybrid" };

static const char *const alg_names[DC_ALG_MAX] = { "cs", "dt", "abm", "lqd", "credence",
						      "followlqd" };

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
		snprintf(buf, len, "cs, dt, abm, credence or followlqd");
	else if (sp->kind == SW_K_DRAIN)
		snprintf(buf, len, "time, departures or hybrid");
	else if (sp->kind == SW_K_FIRST_RTT)
		snprintf(buf, len, "0 or 1");
	else if (sp->kind == SW_K_TAGPORT)
		snprintf(buf, len, "fib or a port 0..%u", DC_SW_PORTS_MAX - 1);
	else
		dc_param_range(&p, buf, len);
}

/* "alpha.3" → parameter and index (-1 = all of an indexed one). */
static const struct sw_param *sw_param_find(const char *key, int *index, char *why, size_t whylen)
{
	const char *dot = strchr(key, '.');
	size_t n = dot ? (size_t)(dot - key) : strlen(key);
	unsigned int i;

	*index = -1;
	for (i = 0; i < NSW_PARAMS; i++) {
		const struct sw_param *sp = &sw_params[i];
		char *end;
		long v;

		if (strlen(sp->name) != n || strncmp(sp->name, key, n))
			continue;
		if (!dot) {
			if (sp->count && sp->kind != DC_K_Q16) {
				snprintf(why, whylen, "'%s' needs an index: %s.I with I in 0..%u", key,
					 sp->name, sp->count - 1);
				return NULL;
			}
			return sp;
		}
		v = strtol(dot + 1, &end, 10);
		if (!sp->count || *end || !dot[1] || v < 0 || v >= (long)sp->count) {
			snprintf(why, whylen, "'%s': %s", key,
				 sp->count ? "index out of range" : "takes no index");
			return NULL;
		}
		*index = (int)v;
		return sp;
	}
	{
		size_t off = (size_t)snprintf(why, whylen, "unknown switch key '%s'; keys:", key);

		for (i = 0; i < NSW_PARAMS && off < whylen; i++)
			off += (size_t)snprintf(why + off, whylen - off, " %s%s", sw_params[i].name,
						sw_params[i].count ? ".I" : "");
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

static void sw_param_format(const struct sw_param *sp, int index, const struct dc_sw_cfg *cfg,
			    char *buf, size_t len)
{
	struct dc_param p = as_param(sp);
	__u32 v;

	switch (sp->kind) {
	case SW_K_ALG:
		snprintf(buf, len, "%s", cfg->alg < DC_ALG_MAX ? alg_names[cfg->alg] : "?");
		return;
	case SW_K_DRAIN:
		snprintf(buf, len, "%s", cfg->cred_drain < DC_DRAIN_MAX ? drain_names[cfg->cred_drain] : "?");
		return;
	case SW_K_DSCP:
		snprintf(buf, len, "%u", cfg->dscp_prio[index] & DC_SW_DSCP_PRIO_MASK);
		return;
	case SW_K_FIRST_RTT:
		snprintf(buf, len, "%u", cfg->dscp_prio[index] & DC_SW_DSCP_FIRST_RTT ? 1 : 0);
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

void dc_sw_print_doc(FILE *f)
{
	struct dc_sw_cfg def;
	char val[64], range[64];
	unsigned int i;

	dc_sw_cfg_defaults(&def);
	fprintf(f, "| key (sw.NAME.…) | default | allowed | unit | meaning |\n|---|---|---|---|---|\n");
	for (i = 0; i < NSW_PARAMS; i++) {
		const struct sw_param *sp = &sw_params[i];

		sw_param_format(sp, sp->count ? 0 : -1, &def, val, sizeof(val));
		sw_range(sp, range, sizeof(range));
		fprintf(f, "| `%s%s` | `%s`%s | %s | %s | %s |\n", sp->name, sp->count ? ".I" : "", val,
			sp->count ? " (I = 0)" : "", range, sp->unit, sp->doc);
	}
}

/* ---- pinned state of one switch --------------------------------------------- */

struct sw {
	char name[DC_SW_NAME_LEN];
	char dir[DC_PATH_LEN + 64];
	int cfg, meta, port, state, ifport, cnt;
};

static bool valid_name(const char *n)
{
	size_t i, l = strlen(n);

	if (!l || l >= DC_SW_NAME_LEN)
		return false;
	for (i = 0; i < l; i++)
		if (!isalnum((unsigned char)n[i]) && n[i] != '-' && n[i] != '_')
			return false;
	return true;
}

static void sw_dir(const char *pin_dir, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s/%s", pin_dir, DC_SW_DIR, name);
}

static void sw_close(struct sw *s)
{
	int *fds[] = { &s->cfg, &s->meta, &s->port, &s->state, &s->ifport, &s->cnt };
	unsigned int i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

static int sw_open(const char *pin_dir, const char *name, struct sw *s)
{
	char why[512];

	memset(s, 0, sizeof(*s));
	s->cfg = s->meta = s->port = s->state = s->ifport = s->cnt = -1;
	if (!valid_name(name)) {
		fprintf(stderr, "dcbpf: '%s' is not a switch name (1-15 of A-Z a-z 0-9 - _)\n", name);
		return -EINVAL;
	}
	snprintf(s->name, sizeof(s->name), "%s", name);
	sw_dir(pin_dir, name, s->dir, sizeof(s->dir));
	if (!dc_exists(s->dir)) {
		fprintf(stderr, "dcbpf: switch '%s' is not up (no %s); start it with 'dcbpf switch up %s ...'\n",
			name, s->dir, name);
		return -ENOENT;
	}
#define OPEN(fd, m, t, k, v)                                                             \
	do {                                                                             \
		fd = dc_pinned_map_open(s->dir, m, t, k, v, why, sizeof(why));           \
		if (fd < 0) {                                                            \
			fprintf(stderr, "dcbpf: switch %s: %s\n", name, why);            \
			sw_close(s);                                                     \
			return fd;                                                       \
		}                                                                        \
	} while (0)
	OPEN(s->cfg, M_CFG, BPF_MAP_TYPE_ARRAY, 4, sizeof(struct dc_sw_cfg));
	OPEN(s->meta, M_META, BPF_MAP_TYPE_ARRAY, 4, sizeof(struct dc_sw_meta));
	OPEN(s->port, M_PORT, BPF_MAP_TYPE_ARRAY, 4, sizeof(struct dc_sw_port));
	OPEN(s->state, M_STATE, BPF_MAP_TYPE_ARRAY, 4, sizeof(struct dc_sw_state));
	OPEN(s->ifport, M_IFPORT, BPF_MAP_TYPE_HASH, 4, 4);
	OPEN(s->cnt, M_CNT, BPF_MAP_TYPE_PERCPU_ARRAY, 4, sizeof(struct dc_sw_counters));
#undef OPEN
	return 0;
}

static int sw_read_cfg(struct sw *s, struct dc_sw_meta *meta, struct dc_sw_cfg *cfg)
{
	__u32 zero = 0, slot;

	if (bpf_map_lookup_elem(s->meta, &zero, meta))
		return -errno;
	slot = meta->cfg_slot & 1;
	if (bpf_map_lookup_elem(s->cfg, &slot, cfg))
		return -errno;
	return 0;
}

/*
 * Publish a configuration: write the idle slot whole, then point
 * cfg_slot at it.  A reader holds either the old or the new slot.
 */
/*
 * dc_sw_meta is read, changed and written back whole by two writers
 * (configuration and model); an exclusive flock on the switch's pin
 * directory keeps one from undoing the other's flip.  -1 if it cannot be
 * taken (the write then goes ahead unserialised, as before).
 */
static int sw_lock(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0 && flock(fd, LOCK_EX)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void sw_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

static int sw_write_cfg(struct sw *s, const struct dc_sw_cfg *cfg)
{
	struct dc_sw_meta meta;
	__u32 zero = 0, idle;
	int lk = sw_lock(s->dir), err = 0;

	if (bpf_map_lookup_elem(s->meta, &zero, &meta)) {
		err = -errno;
		goto out;
	}
	idle = (meta.cfg_slot & 1) ^ 1;
	if (bpf_map_update_elem(s->cfg, &idle, cfg, BPF_ANY)) {
		err = -errno;
		goto out;
	}
	meta.cfg_slot = idle;
	if (bpf_map_update_elem(s->meta, &zero, &meta, BPF_ANY))
		err = -errno;
out:
	sw_unlock(lk);
	return err;
}

/* ---- Credence model ------------------------------------------------------------ */

/*
 * After a flip, packets that read the old model_slot may still be walking
 * the old slot; the next load overwrites that slot.  An XDP run lasts
 * microseconds and cannot sleep, so a pause far above that before the
 * loader returns keeps two loads from overlapping one packet.
 */
#define DC_SW_MODEL_GRACE_NS (2 * 1000 * 1000)

static int sw_model_open(const char *pin_dir, const char *sw, char *dir, size_t dirlen, int *meta,
			 int *model, char *why, size_t whylen)
{
	int err;

	*meta = *model = -1;
	if (!valid_name(sw)) {
		snprintf(why, whylen, "'%s' is not a switch name (1-15 of A-Z a-z 0-9 - _)", sw);
		return -EINVAL;
	}
	sw_dir(pin_dir, sw, dir, dirlen);
	if (!dc_exists(dir)) {
		snprintf(why, whylen, "switch '%s' is not up (no %s)", sw, dir);
		return -ENOENT;
	}
	err = dc_pinned_map_open(dir, M_META, BPF_MAP_TYPE_ARRAY, 4, sizeof(struct dc_sw_meta), why,
				 whylen);
	if (err < 0)
		return err;
	*meta = err;
	err = dc_pinned_map_open(dir, M_MODEL, BPF_MAP_TYPE_ARRAY, 4, sizeof(struct dc_rf_model), why,
				 whylen);
	if (err < 0) {
		close(*meta);
		*meta = -1;
		return err;
	}
	*model = err;
	return 0;
}

int dc_sw_model_load(const char *pin_dir, const char *sw, const struct dc_rf_model *m, char *why,
		     size_t whylen)
{
	char dir[DC_PATH_LEN + 64];
	struct dc_sw_meta meta;
	struct timespec grace = { 0, DC_SW_MODEL_GRACE_NS };
	__u32 zero = 0, idle;
	int meta_fd, model_fd, lk, err, tree, node;

	err = dc_rf_validate(m, &tree, &node);
	if (err) {
		if (tree < 0)
			snprintf(why, whylen, "model refused: %s", dc_rf_strerror(err));
		else if (node < 0)
			snprintf(why, whylen, "model refused: tree %d: %s", tree, dc_rf_strerror(err));
		else
			snprintf(why, whylen, "model refused: tree %d node %d: %s", tree, node,
				 dc_rf_strerror(err));
		return -EINVAL;
	}
	err = sw_model_open(pin_dir, sw, dir, sizeof(dir), &meta_fd, &model_fd, why, whylen);
	if (err)
		return err;
	lk = sw_lock(dir);
	if (bpf_map_lookup_elem(meta_fd, &zero, &meta)) {
		err = -errno;
		snprintf(why, whylen, "reading %s/%s: %s", dir, M_META, strerror(errno));
		goto out;
	}
	idle = meta.model_loads ? (meta.model_slot & 1) ^ 1 : 0;
	if (bpf_map_update_elem(model_fd, &idle, m, BPF_ANY)) {
		err = -errno;
		snprintf(why, whylen, "writing %s/%s slot %u: %s; the running model stays", dir,
			 M_MODEL, idle, strerror(errno));
		goto out;
	}
	meta.model_slot = idle;
	meta.model_loads++;
	if (bpf_map_update_elem(meta_fd, &zero, &meta, BPF_ANY)) {
		err = -errno;
		snprintf(why, whylen, "publishing the model in %s/%s: %s; the running model stays", dir,
			 M_META, strerror(errno));
		goto out;
	}
	nanosleep(&grace, NULL);
	snprintf(why, whylen, "model loaded into slot %u: %u trees, depth %u", idle, m->n_trees,
		 m->depth);
out:
	sw_unlock(lk);
	close(meta_fd);
	close(model_fd);
	return err;
}

int dc_sw_model_get(const char *pin_dir, const char *sw, struct dc_rf_model *m, bool *loaded,
		    char *why, size_t whylen)
{
	char dir[DC_PATH_LEN + 64];
	struct dc_sw_meta meta;
	__u32 zero = 0, slot;
	int meta_fd, model_fd, err;

	memset(m, 0, sizeof(*m));
	*loaded = false;
	err = sw_model_open(pin_dir, sw, dir, sizeof(dir), &meta_fd, &model_fd, why, whylen);
	if (err)
		return err;
	if (bpf_map_lookup_elem(meta_fd, &zero, &meta)) {
		err = -errno;
		snprintf(why, whylen, "reading %s/%s: %s", dir, M_META, strerror(errno));
	} else if (meta.model_loads) {
		slot = meta.model_slot & 1;
		if (bpf_map_lookup_elem(model_fd, &slot, m)) {
			err = -errno;
			snprintf(why, whylen, "reading %s/%s: %s", dir, M_MODEL, strerror(errno));
		} else {
			*loaded = true;
		}
	}
	close(meta_fd);
	close(model_fd);
	return err;
}

static int sum_counters(int fd, __u32 key, struct dc_sw_counters *out)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	struct dc_sw_counters *v;

	memset(out, 0, sizeof(*out));
	if (ncpu <= 0)
		return -EINVAL;
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &key, v)) {
		free(v);
		return -errno;
	}
	for (i = 0; i < ncpu; i++) {
		out->admit_pkts += v[i].admit_pkts;
		out->admit_bytes += v[i].admit_bytes;
		out->drop_thresh_pkts += v[i].drop_thresh_pkts;
		out->drop_full_pkts += v[i].drop_full_pkts;
		out->drop_bytes += v[i].drop_bytes;
		out->ecn_marked_pkts += v[i].ecn_marked_pkts;
		out->first_rtt_pkts += v[i].first_rtt_pkts;
		out->other_pkts += v[i].other_pkts;
		out->drop_pred_pkts += v[i].drop_pred_pkts;
		out->pred_asked_pkts += v[i].pred_asked_pkts;
		out->pred_nomodel_pkts += v[i].pred_nomodel_pkts;
		out->safeguard_pkts += v[i].safeguard_pkts;
		out->ev_lost += v[i].ev_lost;
	}
	free(v);
	return 0;
}

/* ---- up / down -------------------------------------------------------------- */

/* Remove every pin of a switch (links detached first) and its directory. */
static void sw_remove_dir(const char *pin_dir, const char *dir)
{
	char path[DC_PATH_LEN + 160];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (d) {
		/* links first, so no program runs against half-removed maps */
		while ((de = readdir(d)))
			if (!strncmp(de->d_name, "link_", 5)) {
				snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
				dc_detach_pinned(path);
			}
		rewinddir(d);
		while ((de = readdir(d)))
			if (de->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
				unlink(path);
			}
		closedir(d);
	}
	rmdir(dir);
	snprintf(path, sizeof(path), "%s/%s", pin_dir, DC_SW_DIR);
	rmdir(path);	/* only if no other switch is left */
}

static void sw_detach_netlink_ports(struct sw *s, const struct dc_sw_meta *meta)
{
	__u32 i;

	if (!meta->xdp_netlink)
		return;
	for (i = 0; i < DC_SW_PORTS_MAX; i++) {
		struct dc_sw_port p;
		struct dc_attach a = { .hook = DC_HOOK_XDP, .netns = meta->netns,
				       .xdp_flags = meta->xdp_flags };

		if (bpf_map_lookup_elem(s->port, &i, &p) || !p.rate_mbps)
			continue;
		a.ifname = p.ifname;
		dc_detach_netlink(&a);
	}
}

static int split_list(char *s, char **out, int max)
{
	int n = 0;
	char *tok, *save = NULL;

	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max)
			return -1;
		out[n++] = tok;
	}
	return n;
}

static int apply_assignments(int argc, char **argv, struct dc_sw_cfg *cfg, const char *prefix)
{
	int i, bad = 0;

	for (i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		const struct sw_param *sp;
		char key[96], why[384], range[64];
		int index;

		if (!eq || eq == argv[i]) {
			fprintf(stderr, "dcbpf: '%s': expected %sKEY=VALUE\n", argv[i], prefix);
			bad++;
			continue;
		}
		snprintf(key, sizeof(key), "%.*s", (int)(eq - argv[i]), argv[i]);
		sp = sw_param_find(key, &index, why, sizeof(why));
		if (!sp) {
			fprintf(stderr, "dcbpf: %s%s\n", prefix, why);
			bad++;
			continue;
		}
		if (sw_param_apply(sp, index, eq + 1, cfg, why, sizeof(why))) {
			sw_range(sp, range, sizeof(range));
			fprintf(stderr, "dcbpf: %s%s = %s: %s; allowed %s%s%s\n", prefix, key, eq + 1, why,
				range, strcmp(sp->unit, "-") ? " " : "",
				strcmp(sp->unit, "-") ? sp->unit : "");
			bad++;
		}
	}
	return bad;
}

static int cmd_up(const char *pin_dir, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "netns", required_argument, NULL, 'n' },
		{ "ports", required_argument, NULL, 'p' },
		{ "rate-mbps", required_argument, NULL, 'r' },
		{ "xdp-mode", required_argument, NULL, 'x' },
		{ "no-links", no_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	char *ports_arg = NULL, *rates_arg = NULL, *ifs[DC_SW_PORTS_MAX], *rates[DC_SW_PORTS_MAX];
	const char *netns = NULL, *name;
	struct bpf_object_open_opts oo = { .sz = sizeof(oo) };
	struct dc_sw_meta meta;
	struct dc_sw_cfg cfg;
	struct dc_sw_state st;
	struct switch_bpf *skel = NULL;
	char dir[DC_PATH_LEN + 64], path[DC_PATH_LEN + 128], why[512], sw_root[DC_PATH_LEN + 8];
	__u32 xdp_flags = XDP_FLAGS_SKB_MODE, ino, zero = 0, i;
	bool no_links = false, created;
	int o, nports, nrates = 0, err, rc = EXIT_ERR;
	struct bpf_link *lk;

	optind = 0;
	while ((o = getopt_long(argc, argv, "n:p:r:x:L", opts, NULL)) != -1) {
		switch (o) {
		case 'n':
			netns = optarg;
			break;
		case 'p':
			ports_arg = optarg;
			break;
		case 'r':
			rates_arg = optarg;
			break;
		case 'x':
			if (!strcmp(optarg, "generic"))
				xdp_flags = XDP_FLAGS_SKB_MODE;
			else if (!strcmp(optarg, "native"))
				xdp_flags = XDP_FLAGS_DRV_MODE;
			else {
				fprintf(stderr, "dcbpf: --xdp-mode %s: use generic or native\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'L':
			no_links = true;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind >= argc || !netns || !ports_arg) {
		fprintf(stderr, "dcbpf: usage: switch up NAME --netns NS --ports IF[,IF...] [--rate-mbps N[,N...]] [--xdp-mode generic|native] [KEY=VALUE...]\n");
		return EXIT_USAGE;
	}
	name = argv[optind++];
	if (!valid_name(name)) {
		fprintf(stderr, "dcbpf: '%s' is not a switch name (1-15 of A-Z a-z 0-9 - _)\n", name);
		return EXIT_USAGE;
	}
	nports = split_list(ports_arg, ifs, DC_SW_PORTS_MAX);
	if (nports <= 0) {
		fprintf(stderr, "dcbpf: --ports: 1 to %d interface names, comma separated\n", DC_SW_PORTS_MAX);
		return EXIT_USAGE;
	}
	if (rates_arg) {
		nrates = split_list(rates_arg, rates, DC_SW_PORTS_MAX);
		if (nrates != 1 && nrates != nports) {
			fprintf(stderr, "dcbpf: --rate-mbps: one rate for all ports or one per port (%d)\n", nports);
			return EXIT_USAGE;
		}
		for (i = 0; i < (__u32)nrates; i++) {
			char *end;
			unsigned long v = strtoul(rates[i], &end, 10);

			if (*end || !v || v > 1000000) {
				fprintf(stderr, "dcbpf: --rate-mbps %s: 1..1000000 Mbit/s\n", rates[i]);
				return EXIT_USAGE;
			}
		}
	}
	dc_sw_cfg_defaults(&cfg);
	if (apply_assignments(argc - optind, argv + optind, &cfg, "")) {
		fprintf(stderr, "dcbpf: switch %s not started\n", name);
		return EXIT_USAGE;
	}
	if (dc_require_root("dcbpf", pin_dir))
		return EXIT_ERR;
	if (dc_netns_ino(netns, &ino, why, sizeof(why))) {
		fprintf(stderr, "dcbpf: switch %s: %s\n", name, why);
		return EXIT_ERR;
	}
	for (i = 0; i < (__u32)nports; i++) {
		__u32 ifx;

		if (dc_ifindex(netns, ifs[i], &ifx, why, sizeof(why))) {
			fprintf(stderr, "dcbpf: switch %s: %s\n", name, why);
			return EXIT_ERR;
		}
	}
	sw_dir(pin_dir, name, dir, sizeof(dir));
	if (dc_exists(dir)) {
		fprintf(stderr, "dcbpf: switch %s is up already (%s); 'dcbpf switch down %s' first\n", name,
			dir, name);
		return EXIT_ERR;
	}
	err = dc_bpffs_ensure();
	snprintf(sw_root, sizeof(sw_root), "%s/%s", pin_dir, DC_SW_DIR);
	if (!err)
		err = dc_pin_dir_prepare(dir, &created);
	if (err) {
		fprintf(stderr, "dcbpf: switch %s: cannot create %s: %s\n", name, dir, strerror(-err));
		rmdir(sw_root);
		return EXIT_ERR;
	}

	/* one instance per switch: maps pinned by name in its own directory */
	oo.pin_root_path = dir;
	skel = switch_bpf__open_opts(&oo);
	if (!skel) {
		fprintf(stderr, "dcbpf: switch %s: opening the embedded switch object failed: %s\n", name,
			strerror(errno));
		goto fail;
	}
	skel->rodata->dc_netns_ino = ino;
	err = switch_bpf__load(skel);
	if (err) {
		fprintf(stderr, "dcbpf: switch %s: loading bpf/switch.bpf.o failed: %s (dcbpf -v shows the verifier log; needs a kernel with BTF and bpf_loop, 5.17+)\n",
			name, strerror(-err));
		goto fail;
	}

	/* state first, programs last: nothing runs on an unconfigured switch */
	memset(&meta, 0, sizeof(meta));
	meta.cfg_slot = 0;
	meta.netns_ino = ino;
	meta.nports = (__u32)nports;
	meta.xdp_flags = xdp_flags;
	snprintf(meta.netns, sizeof(meta.netns), "%s", netns);
	snprintf(meta.name, sizeof(meta.name), "%s", name);
	memset(&st, 0, sizeof(st));
	st.abm_congested = 1;
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.dc_sw_cfg), &zero, &cfg, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(skel->maps.dc_sw_state), &zero, &st, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(skel->maps.dc_sw_meta), &zero, &meta, BPF_ANY)) {
		fprintf(stderr, "dcbpf: switch %s: writing the initial state failed: %s\n", name,
			strerror(errno));
		goto fail;
	}
	for (i = 0; i < (__u32)nports; i++) {
		struct dc_sw_port p;

		memset(&p, 0, sizeof(p));
		dc_ifindex(netns, ifs[i], &p.ifindex, why, sizeof(why));
		p.port_id = i;
		p.rate_mbps = nrates ? (__u32)strtoul(rates[nrates == 1 ? 0 : i], NULL, 10) : 1000;
		p.gamma_q16 = (__u32)DC_Q16_ONE;
		snprintf(p.ifname, sizeof(p.ifname), "%s", ifs[i]);
		if (bpf_map_update_elem(bpf_map__fd(skel->maps.dc_sw_port), &i, &p, BPF_ANY) ||
		    bpf_map_update_elem(bpf_map__fd(skel->maps.dc_sw_ifport), &p.ifindex, &i, BPF_ANY)) {
			fprintf(stderr, "dcbpf: switch %s: port %s: map update failed: %s\n", name, ifs[i],
				strerror(errno));
			goto fail;
		}
	}
	/* the tracker: global tracepoints, filtered on the namespace */
	lk = bpf_program__attach(skel->progs.dc_sw_q_enq);
	snprintf(path, sizeof(path), "%s/%s", dir, L_ENQ);
	if (!lk || bpf_link__pin(lk, path)) {
		fprintf(stderr, "dcbpf: switch %s: attaching tp_btf/qdisc_enqueue failed: %s (kernel needs the qdisc tracepoints, 5.10+ for enqueue)\n",
			name, strerror(errno));
		bpf_link__destroy(lk);
		goto fail;
	}
	bpf_link__destroy(lk);
	lk = bpf_program__attach(skel->progs.dc_sw_q_deq);
	snprintf(path, sizeof(path), "%s/%s", dir, L_DEQ);
	if (!lk || bpf_link__pin(lk, path)) {
		fprintf(stderr, "dcbpf: switch %s: attaching tp_btf/qdisc_dequeue failed: %s\n", name,
			strerror(errno));
		bpf_link__destroy(lk);
		goto fail;
	}
	bpf_link__destroy(lk);
	for (i = 0; i < (__u32)nports; i++) {
		struct dc_attach a = { .hook = DC_HOOK_XDP, .netns = netns, .ifname = ifs[i],
				       .xdp_flags = xdp_flags, .pin_path = path, .no_links = no_links };
		enum dc_attach_how how;

		snprintf(path, sizeof(path), "%s/%s%s", dir, L_XDP_PREFIX, ifs[i]);
		if (dc_attach_prog(bpf_program__fd(skel->progs.dc_sw_admit), &a, &how, why, sizeof(why))) {
			fprintf(stderr, "dcbpf: switch %s: %s\n", name, why);
			goto fail;
		}
		if (how == DC_ATTACHED_NETLINK && !meta.xdp_netlink) {
			meta.xdp_netlink = 1;
			bpf_map_update_elem(bpf_map__fd(skel->maps.dc_sw_meta), &zero, &meta, BPF_ANY);
		}
	}
	printf("switch %s up: netns %s (inode %u), %d port(s), xdp %s%s, pinned under %s\n", name, netns,
	       ino, nports, xdp_flags == XDP_FLAGS_SKB_MODE ? "generic" : "native",
	       meta.xdp_netlink ? " (netlink)" : " (links)", dir);
	rc = EXIT_OK;
	switch_bpf__destroy(skel);	/* the pins keep maps and links alive */
	return rc;
fail:
	if (skel && meta.xdp_netlink) {
		struct sw s = { .port = bpf_map__fd(skel->maps.dc_sw_port) };

		sw_detach_netlink_ports(&s, &meta);
	}
	switch_bpf__destroy(skel);
	sw_remove_dir(pin_dir, dir);
	fprintf(stderr, "dcbpf: switch %s not started; nothing is left behind\n", name);
	return rc;
}

static int cmd_down(const char *pin_dir, int argc, char **argv)
{
	struct dc_sw_meta meta;
	struct sw s;
	__u32 zero = 0;
	char dir[DC_PATH_LEN + 64];

	if (argc != 2) {
		fprintf(stderr, "dcbpf: usage: switch down NAME\n");
		return EXIT_USAGE;
	}
	if (dc_require_root("dcbpf", pin_dir))
		return EXIT_ERR;
	if (sw_open(pin_dir, argv[1], &s))
		return EXIT_ERR;
	memset(&meta, 0, sizeof(meta));
	if (!bpf_map_lookup_elem(s.meta, &zero, &meta))
		sw_detach_netlink_ports(&s, &meta);
	snprintf(dir, sizeof(dir), "%s", s.dir);
	sw_close(&s);
	sw_remove_dir(pin_dir, dir);
	if (dc_exists(dir)) {
		fprintf(stderr, "dcbpf: switch %s: %s could not be removed completely\n", argv[1], dir);
		return EXIT_ERR;
	}
	printf("switch %s down\n", argv[1]);
	return EXIT_OK;
}

/* ---- status -------------------------------------------------------------------- */

static const char *alg_name(__u32 a)
{
	return a < DC_ALG_MAX ? alg_names[a] : "?";
}

static int cmd_status(const char *pin_dir, bool json, struct jw *j, int argc, char **argv)
{
	static struct dc_rf_model model;
	struct dc_sw_meta meta;
	struct dc_sw_cfg cfg;
	struct dc_sw_state st;
	struct dc_sw_cred cr;
	struct sw s;
	__u32 zero = 0, i, pr;
	char a[32], why[512];
	bool cred, model_loaded;

	if (argc != 2) {
		fprintf(stderr, "dcbpf: usage: switch status NAME\n");
		return EXIT_USAGE;
	}
	if (dc_require_root("dcbpf", pin_dir))
		return EXIT_ERR;
	if (sw_open(pin_dir, argv[1], &s))
		return EXIT_ERR;
	if (sw_read_cfg(&s, &meta, &cfg) || bpf_map_lookup_elem(s.state, &zero, &st)) {
		fprintf(stderr, "dcbpf: switch %s: reading %s failed: %s\n", s.name, s.dir, strerror(errno));
		sw_close(&s);
		return EXIT_ERR;
	}
	dc_q16_format(cfg.alpha_q16[0], a, sizeof(a));
	cred = cfg.alg == DC_ALG_CREDENCE || cfg.alg == DC_ALG_FOLLOWLQD;
	if (dc_sw_model_get(pin_dir, s.name, &model, &model_loaded, why, sizeof(why)))
		model_loaded = false;
	{
		char dir[DC_PATH_LEN + 64];
		int cfd;

		sw_dir(pin_dir, s.name, dir, sizeof(dir));
		memset(&cr, 0, sizeof(cr));
		cfd = dc_pinned_map_open(dir, M_CRED, BPF_MAP_TYPE_ARRAY, 4, sizeof(cr), why,
					 sizeof(why));
		if (cfd >= 0) {
			bpf_map_lookup_elem(cfd, &zero, &cr);
			close(cfd);
		}
		/* the record is as of each port's last arrival: drain it to now
		 * the way the next arrival would (include/dcbpf/vlqd.h) */
		{
			struct dc_vlqd_obs obs[DC_SW_PORTS_MAX];
			struct dc_sw_port p;
			__u32 k;

			memset(obs, 0, sizeof(obs));
			for (k = 0; k < DC_SW_PORTS_MAX; k++)
				if (!bpf_map_lookup_elem(s.port, &k, &p)) {
					obs[k].tx_bytes = p.tx_bytes;
					obs[k].q_bytes = p.qlen_bytes;
				}
			dc_vlqd_sync(&cr, mono_ns(), cfg.cred_drain, obs);
		}
	}
	if (json) {
		jw_obj(j, NULL);
		jw_str(j, "name", s.name);
		jw_str(j, "netns", meta.netns);
		jw_u64(j, "netns_ino", meta.netns_ino);
		jw_str(j, "xdp_mode", meta.xdp_flags == XDP_FLAGS_SKB_MODE ? "generic" : "native");
		jw_str(j, "alg", alg_name(cfg.alg));
		jw_u64(j, "buffer_bytes", cfg.buffer_bytes);
		jw_raw(j, "alpha0", a);
		jw_u64(j, "ecn_k_bytes", cfg.ecn_k_bytes);
		jw_u64(j, "occupancy_bytes", st.occupancy_bytes);
		jw_u64(j, "occupancy_pkts", st.occupancy_pkts);
		jw_u64(j, "abm_congested", st.abm_congested);
		jw_u64(j, "abm_updates", st.abm_updates);
		jw_bool(j, "model_loaded", model_loaded);
		jw_u64(j, "model_loads", meta.model_loads);
		jw_u64(j, "model_slot", meta.model_slot);
		jw_u64(j, "model_trees", model_loaded ? model.n_trees : 0);
		jw_u64(j, "model_depth", model_loaded ? model.depth : 0);
		jw_u64(j, "model_ewma_period_ns", model_loaded ? model.ewma_period_ns : 0);
		jw_u64(j, "vlqd_gamma_bytes", cr.gamma_bytes);
		jw_str(j, "cred_drain", cfg.cred_drain < DC_DRAIN_MAX ? drain_names[cfg.cred_drain] : "?");
		jw_u64(j, "ev_sample_every", cfg.ev_sample_every);
		jw_u64(j, "ev_drops", cfg.ev_drops);
		jw_arr(j, "ports");
	} else {
		printf("switch %s: netns %s (inode %u), xdp %s, pinned under %s\n", s.name, meta.netns,
		       meta.netns_ino, meta.xdp_flags == XDP_FLAGS_SKB_MODE ? "generic" : "native", s.dir);
		printf("algorithm %s, B %u bytes, alpha.0 %s, ecn_k %u bytes; occupancy Q %llu bytes (%.1f%% of B), %llu packets; ABM n_p %u, %llu updates\n",
		       alg_name(cfg.alg), cfg.buffer_bytes, a, cfg.ecn_k_bytes,
		       (unsigned long long)st.occupancy_bytes,
		       cfg.buffer_bytes ? 100.0 * (double)st.occupancy_bytes / cfg.buffer_bytes : 0.0,
		       (unsigned long long)st.occupancy_pkts, st.abm_congested,
		       (unsigned long long)st.abm_updates);
		if (model_loaded)
			printf("credence model: %u trees, depth %u, EWMA period %u ns (slot %u, %u load(s))\n",
			       model.n_trees, model.depth, model.ewma_period_ns, meta.model_slot & 1,
			       meta.model_loads);
		else
			printf("credence model: none loaded (credence admits where it would ask: FollowLQD + safeguard)\n");
		if (cred)
			printf("virtual LQD: Γ = %llu bytes, drain %s\n", (unsigned long long)cr.gamma_bytes,
			       cfg.cred_drain < DC_DRAIN_MAX ? drain_names[cfg.cred_drain] : "?");
		printf("%-4s %-15s %6s %10s %6s %10s %10s %6s %12s %10s %10s %10s %8s", "port", "ifname",
		       "mbps", "qlen_B", "pkts", "T_now_B", "T_last_B", "gamma", "tx_bytes", "admit",
		       "drop_thr", "drop_full", "ecn");
		if (cred)
			printf(" %10s %10s %10s %10s %10s", "T_vlqd_B", "pred_ask", "drop_pred",
			       "no_model", "safeguard");
		printf("\n");
	}
	for (i = 0; i < DC_SW_PORTS_MAX; i++) {
		struct dc_sw_counters tot, c;
		struct dc_sw_port p;
		struct dc_adm_in in;
		__u64 tnow;

		if (bpf_map_lookup_elem(s.port, &i, &p) || !p.rate_mbps)
			continue;
		memset(&tot, 0, sizeof(tot));
		for (pr = 0; pr < DC_SW_PRIOS; pr++) {
			if (sum_counters(s.cnt, i * DC_SW_PRIOS + pr, &c))
				continue;
			tot.admit_pkts += c.admit_pkts;
			tot.drop_thresh_pkts += c.drop_thresh_pkts;
			tot.drop_full_pkts += c.drop_full_pkts;
			tot.ecn_marked_pkts += c.ecn_marked_pkts;
			tot.admit_bytes += c.admit_bytes;
			tot.drop_bytes += c.drop_bytes;
			tot.drop_pred_pkts += c.drop_pred_pkts;
			tot.pred_asked_pkts += c.pred_asked_pkts;
			tot.pred_nomodel_pkts += c.pred_nomodel_pkts;
			tot.safeguard_pkts += c.safeguard_pkts;
			tot.ev_lost += c.ev_lost;
		}
		/* the threshold a priority-0 packet would meet now */
		in = (struct dc_adm_in){ .q = p.qlen_bytes, .Q = st.occupancy_bytes,
					 .B = cfg.buffer_bytes, .len = 0, .alpha_q16 = cfg.alpha_q16[0],
					 .gamma_q16 = p.gamma_q16 ? p.gamma_q16 : (__u32)DC_Q16_ONE,
					 .n_congested = st.abm_congested };
		tnow = cred ? cr.T_bytes[i] : dc_adm_threshold(cfg.alg, &in);
		if (json) {
			jw_obj(j, NULL);
			jw_u64(j, "port", i);
			jw_str(j, "ifname", p.ifname);
			jw_u64(j, "rate_mbps", p.rate_mbps);
			jw_u64(j, "qlen_bytes", p.qlen_bytes);
			jw_u64(j, "qlen_pkts", p.qlen_pkts);
			jw_u64(j, "thresh_now_bytes", tnow);
			jw_u64(j, "thresh_last_bytes", p.thresh_bytes);
			jw_u64(j, "gamma_q16", p.gamma_q16);
			jw_u64(j, "tx_bytes", p.tx_bytes);
			jw_u64(j, "tx_pkts", p.tx_pkts);
			jw_u64(j, "admit_pkts", tot.admit_pkts);
			jw_u64(j, "admit_bytes", tot.admit_bytes);
			jw_u64(j, "drop_thresh_pkts", tot.drop_thresh_pkts);
			jw_u64(j, "drop_full_pkts", tot.drop_full_pkts);
			jw_u64(j, "drop_bytes", tot.drop_bytes);
			jw_u64(j, "ecn_marked_pkts", tot.ecn_marked_pkts);
			jw_u64(j, "vlqd_thresh_bytes", cr.T_bytes[i]);
			jw_u64(j, "drop_pred_pkts", tot.drop_pred_pkts);
			jw_u64(j, "pred_asked_pkts", tot.pred_asked_pkts);
			jw_u64(j, "pred_nomodel_pkts", tot.pred_nomodel_pkts);
			jw_u64(j, "safeguard_pkts", tot.safeguard_pkts);
			jw_u64(j, "ev_lost", tot.ev_lost);
			jw_end_obj(j);
		} else {
			printf("%-4u %-15s %6u %10llu %6llu %10llu %10llu %6.3f %12llu %10llu %10llu %10llu %8llu",
			       i, p.ifname, p.rate_mbps, (unsigned long long)p.qlen_bytes,
			       (unsigned long long)p.qlen_pkts, (unsigned long long)tnow,
			       (unsigned long long)p.thresh_bytes, (double)p.gamma_q16 / DC_Q16_ONE,
			       (unsigned long long)p.tx_bytes, (unsigned long long)tot.admit_pkts,
			       (unsigned long long)tot.drop_thresh_pkts,
			       (unsigned long long)tot.drop_full_pkts,
			       (unsigned long long)tot.ecn_marked_pkts);
			if (cred)
				printf(" %10llu %10llu %10llu %10llu %10llu",
				       (unsigned long long)cr.T_bytes[i],
				       (unsigned long long)tot.pred_asked_pkts,
				       (unsigned long long)tot.drop_pred_pkts,
				       (unsigned long long)tot.pred_nomodel_pkts,
				       (unsigned long long)tot.safeguard_pkts);
			printf("\n");
		}
	}
	{
		struct dc_sw_counters o;

		sum_counters(s.cnt, DC_SW_CNT_OTHER, &o);
		if (json) {
			jw_end_arr(j);
			jw_u64(j, "other_pkts", o.other_pkts);
			jw_end_obj(j);
			jw_done(j);
		} else {
			printf("passed without a decision (not IP, no route, not to a switch port): %llu\n",
			       (unsigned long long)o.other_pkts);
		}
	}
	sw_close(&s);
	return EXIT_OK;
}

static int list_switches(const char *pin_dir, char names[][DC_SW_NAME_LEN], int max)
{
	char root[DC_PATH_LEN + 8];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(root, sizeof(root), "%s/%s", pin_dir, DC_SW_DIR);
	d = opendir(root);
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max)
		if (de->d_name[0] != '.' && valid_name(de->d_name))
			snprintf(names[n++], DC_SW_NAME_LEN, "%.15s", de->d_name);
	closedir(d);
	return n;
}

void dc_sw_status_brief(const char *pin_dir, bool json, struct jw *j)
{
	char names[64][DC_SW_NAME_LEN];
	int n = list_switches(pin_dir, names, 64), k;

	if (json)
		jw_arr(j, "switches");
	else if (n)
		printf("%-15s %-9s %12s %12s %6s\n", "switch", "alg", "occupancy_B", "buffer_B", "ports");
	for (k = 0; k < n; k++) {
		struct dc_sw_meta meta;
		struct dc_sw_cfg cfg;
		struct dc_sw_state st;
		struct sw s;
		__u32 zero = 0;
		int fd_err = 0;

		/* quiet: a half-removed switch is simply not listed */
		{
			int saved = dup(2), devnull = open("/dev/null", O_WRONLY);

			dup2(devnull, 2);
			fd_err = sw_open(pin_dir, names[k], &s);
			dup2(saved, 2);
			close(saved);
			close(devnull);
		}
		if (fd_err)
			continue;
		if (!sw_read_cfg(&s, &meta, &cfg) && !bpf_map_lookup_elem(s.state, &zero, &st)) {
			if (json) {
				jw_obj(j, NULL);
				jw_str(j, "name", names[k]);
				jw_str(j, "alg", alg_name(cfg.alg));
				jw_u64(j, "occupancy_bytes", st.occupancy_bytes);
				jw_u64(j, "buffer_bytes", cfg.buffer_bytes);
				jw_u64(j, "ports", meta.nports);
				jw_end_obj(j);
			} else {
				printf("%-15s %-9s %12llu %12u %6u\n", names[k], alg_name(cfg.alg),
				       (unsigned long long)st.occupancy_bytes, cfg.buffer_bytes, meta.nports);
			}
		}
		sw_close(&s);
	}
	if (json)
		jw_end_arr(j);
}

/* ---- sample: tracked backlog next to the qdisc's own ---------------------------- */

/* Root qdisc backlog of every interface in the current namespace. */
static int qdisc_backlogs(int nl, __u32 *ifidx, __u64 *backlog, int max)
{
	struct {
		struct nlmsghdr nh;
		struct tcmsg tc;
	} req = { .nh = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)), .nlmsg_type = RTM_GETQDISC,
			  .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		  .tc = { .tcm_family = AF_UNSPEC } };
	static char buf[65536];
	int n = 0;

	if (send(nl, &req, req.nh.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		ssize_t len = recv(nl, buf, sizeof(buf), 0);
		struct nlmsghdr *nh;

		if (len < 0)
			return -errno;
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (unsigned int)len);
		     nh = NLMSG_NEXT(nh, len)) {
			struct tcmsg *tc = NLMSG_DATA(nh);
			struct rtattr *rta;
			int alen;

			if (nh->nlmsg_type == NLMSG_DONE)
				return n;
			if (nh->nlmsg_type == NLMSG_ERROR)
				return -EIO;
			if (tc->tcm_parent != TC_H_ROOT || n >= max)
				continue;
			alen = (int)(nh->nlmsg_len - NLMSG_LENGTH(sizeof(*tc)));
			for (rta = (struct rtattr *)((char *)tc + NLMSG_ALIGN(sizeof(*tc))); RTA_OK(rta, alen);
			     rta = RTA_NEXT(rta, alen)) {
				struct rtattr *s;
				int slen;

				if (rta->rta_type != TCA_STATS2)
					continue;
				slen = (int)RTA_PAYLOAD(rta);
				for (s = RTA_DATA(rta); RTA_OK(s, slen); s = RTA_NEXT(s, slen)) {
					if (s->rta_type == TCA_STATS_QUEUE &&
					    RTA_PAYLOAD(s) >= sizeof(struct gnet_stats_queue)) {
						struct gnet_stats_queue q;

						memcpy(&q, RTA_DATA(s), sizeof(q));
						ifidx[n] = (__u32)tc->tcm_ifindex;
						backlog[n++] = q.backlog;
					}
				}
			}
		}
	}
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

static int cmd_sample(const char *pin_dir, int argc, char **argv)
{
	unsigned long count = 100, interval_us = 1000, k;
	struct dc_sw_meta meta;
	struct dc_sw_cfg cfg;
	struct sw s;
	char why[256];
	int saved, nl, o;
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'c' },
		{ "interval-us", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};

	optind = 0;
	while ((o = getopt_long(argc, argv, "c:i:", opts, NULL)) != -1) {
		if (o == 'c')
			count = strtoul(optarg, NULL, 10);
		else if (o == 'i')
			interval_us = strtoul(optarg, NULL, 10);
		else
			return EXIT_USAGE;
	}
	if (optind + 1 != argc || !count || count > 10000000) {
		fprintf(stderr, "dcbpf: usage: switch sample NAME [--count N] [--interval-us US]\n");
		return EXIT_USAGE;
	}
	if (dc_require_root("dcbpf", pin_dir))
		return EXIT_ERR;
	if (sw_open(pin_dir, argv[optind], &s))
		return EXIT_ERR;
	if (sw_read_cfg(&s, &meta, &cfg) || dc_netns_enter(meta.netns, &saved, why, sizeof(why))) {
		fprintf(stderr, "dcbpf: switch %s: %s\n", s.name, why);
		sw_close(&s);
		return EXIT_ERR;
	}
	nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	dc_netns_leave(saved);
	if (nl < 0) {
		fprintf(stderr, "dcbpf: switch %s: netlink socket: %s\n", s.name, strerror(errno));
		sw_close(&s);
		return EXIT_ERR;
	}
	/* qdisc first, map right after: the pair is tens of µs apart */
	printf("t_ns,port,ifname,tracked_backlog_bytes,qdisc_backlog_bytes\n");
	for (k = 0; k < count; k++) {
		__u32 ifidx[64], i;
		__u64 bl[64];
		int n = qdisc_backlogs(nl, ifidx, bl, 64), m;
		__u64 t = mono_ns();

		for (i = 0; i < DC_SW_PORTS_MAX; i++) {
			struct dc_sw_port p;

			if (bpf_map_lookup_elem(s.port, &i, &p) || !p.rate_mbps)
				continue;
			for (m = 0; m < n; m++)
				if (ifidx[m] == p.ifindex)
					printf("%llu,%u,%s,%llu,%llu\n", (unsigned long long)t, i, p.ifname,
					       (unsigned long long)p.qlen_bytes, (unsigned long long)bl[m]);
		}
		usleep((useconds_t)interval_us);
	}
	close(nl);
	sw_close(&s);
	return EXIT_OK;
}

/* ---- events: capture (simulator trace) and drop trace ----------------------------- */

static volatile sig_atomic_t ev_stop;

static void ev_on_signal(int sig)
{
	(void)sig;
	ev_stop = 1;
}

typedef int (*ev_fn)(void *arg, const struct dc_sw_event *e);

struct ev_sink {
	ev_fn fn;
	void *arg;
};

static int ev_dispatch(void *arg, void *data, size_t len)
{
	struct ev_sink *k = arg;

	if (ev_stop || len < sizeof(struct dc_sw_event))
		return 0;
	if (k->fn(k->arg, data))
		ev_stop = 1;
	return 0;
}

static __u64 ev_lost_total(struct sw *s)
{
	struct dc_sw_counters c;
	__u64 n = 0;
	__u32 k;

	for (k = 0; k < DC_SW_CNT_ENTRIES; k++)
		if (!sum_counters(s->cnt, k, &c))
			n += c.ev_lost;
	return n;
}

/* Set one event switch of the live configuration (idle slot + flip),
 * leaving the other as it is: sampling for capture, drops for the trace. */
static int ev_set(struct sw *s, bool sampling, __u32 v)
{
	struct dc_sw_meta meta;
	struct dc_sw_cfg cfg;

	if (sw_read_cfg(s, &meta, &cfg))
		return -errno;
	if (sampling)
		cfg.ev_sample_every = v;
	else
		cfg.ev_drops = v;
	return sw_write_cfg(s, &cfg);
}

/*
 * Ask switch `name` for events (drops if `drops`, else 1 in `every` arrivals),
 * hand each to fn until it returns non-zero, a signal, or duration_s
 * (0 = no limit); then put the event switches back as they were.  Two
 * consumers at once share the one ring and restore in their own order:
 * run one at a time.
 */
static int sw_events(const char *pin_dir, const char *name, __u32 every, bool drops,
		     double duration_s, ev_fn fn, void *arg)
{
	struct ev_sink sink = { fn, arg };
	struct ring_buffer *rb = NULL;
	struct dc_sw_meta meta;
	struct dc_sw_cfg old;
	struct timespec t0, now;
	char path[DC_PATH_LEN + 128];
	__u64 lost0;
	int rb_fd, rc = EXIT_OK, err;
	struct sw s;

	if (dc_require_root("dcbpf", pin_dir))
		return EXIT_ERR;
	if (sw_open(pin_dir, name, &s))
		return EXIT_ERR;
	if (sw_read_cfg(&s, &meta, &old)) {
		fprintf(stderr, "dcbpf: switch %s: reading %s failed\n", name, M_CFG);
		sw_close(&s);
		return EXIT_ERR;
	}
	snprintf(path, sizeof(path), "%s/%s", s.dir, M_EVENTS);
	rb_fd = bpf_obj_get(path);
	if (rb_fd < 0) {
		fprintf(stderr, "dcbpf: switch %s: cannot open %s: %s (switch started by an older dcbpf? 'dcbpf switch down' and up again)\n",
			name, path, strerror(errno));
		sw_close(&s);
		return EXIT_ERR;
	}
	rb = ring_buffer__new(rb_fd, ev_dispatch, &sink, NULL);
	if (!rb) {
		fprintf(stderr, "dcbpf: switch %s: ring buffer %s: %s\n", name, M_EVENTS, strerror(errno));
		close(rb_fd);
		sw_close(&s);
		return EXIT_ERR;
	}
	lost0 = ev_lost_total(&s);
	ev_stop = 0;
	signal(SIGINT, ev_on_signal);
	signal(SIGTERM, ev_on_signal);
	signal(SIGPIPE, ev_on_signal);
	err = ev_set(&s, !drops, drops ? 1 : every);
	if (err) {
		fprintf(stderr, "dcbpf: switch %s: switching events on failed: %s\n", name, strerror(-err));
		rc = EXIT_ERR;
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!ev_stop) {
		int n = ring_buffer__poll(rb, 100);

		if (n < 0 && n != -EINTR) {
			fprintf(stderr, "dcbpf: switch %s: reading %s: %s\n", name, M_EVENTS, strerror(-n));
			rc = EXIT_ERR;
			break;
		}
		fflush(stdout);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (duration_s > 0 && (double)(now.tv_sec - t0.tv_sec) +
					      (double)(now.tv_nsec - t0.tv_nsec) / 1e9 >= duration_s)
			break;
	}
	err = ev_set(&s, !drops, drops ? old.ev_drops : old.ev_sample_every);
	if (err) {
		fprintf(stderr, "dcbpf: switch %s: switching events off failed: %s\n", name, strerror(-err));
		rc = EXIT_ERR;
	}
	{
		__u64 lost = ev_lost_total(&s) - lost0;

		if (lost)
			fprintf(stderr, "dcbpf: switch %s: %llu event(s) lost: the ring buffer was full (sample fewer with --every)\n",
				name, (unsigned long long)lost);
	}
out:
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	ring_buffer__free(rb);
	close(rb_fd);
	sw_close(&s);
	return rc;
}

struct capture {
	FILE *f;
	unsigned long count, seen;
	__u64 t0;
};

static int capture_one(void *arg, const struct dc_sw_event *e)
{
	struct capture *c = arg;

	if (!(e->flags & DC_SW_EV_SAMPLE) || (c->count && c->seen >= c->count))
		return c->count && c->seen >= c->count;
	if (!c->seen)
		c->t0 = e->time_ns;
	fprintf(c->f, "%llu,%u,%u,%u,%u,%u,%u,%u,%u,%u\n",
		(unsigned long long)(e->time_ns >= c->t0 ? e->time_ns - c->t0 : 0), e->port, e->prio,
		e->len, e->flags & DC_SW_EV_FIRST_RTT ? 1 : 0, e->verdict, e->q_bytes, e->occ_bytes,
		e->q_ewma_bytes, e->occ_ewma_bytes);
	c->seen++;
	return c->count && c->seen >= c->count;
}

/*
 * `dcbpf switch capture NAME --out FILE`: arrivals in the simulator's trace
 * format (loader/sim.c dc_sim_read_trace: time_ns,port,priority,bytes,
 * first_rtt), time from the first captured arrival, followed by columns
 * the simulator ignores: the verdict and the prediction's features.
 */
static int cmd_capture(const char *pin_dir, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "count", required_argument, NULL, 'c' },
		{ "every", required_argument, NULL, 'e' },
		{ "duration", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	struct capture c = { 0 };
	const char *out = NULL;
	unsigned long every = 1;
	double duration = 0;
	struct dc_sw_meta meta;
	struct dc_sw_cfg cfg;
	struct sw s;
	char *end, tmp[4200];
	int o, rc;
	__u32 i;

	optind = 0;
	while ((o = getopt_long(argc, argv, "o:c:e:d:", opts, NULL)) != -1) {
		switch (o) {
		case 'o':
			out = optarg;
			break;
		case 'c':
			c.count = strtoul(optarg, &end, 10);
			if (*end || !c.count)
				goto usage;
			break;
		case 'e':
			every = strtoul(optarg, &end, 10);
			if (*end || !every || every > 1000000)
				goto usage;
			break;
		case 'd':
			duration = strtod(optarg, &end);
			if (*end || duration <= 0)
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (optind + 1 != argc || !out)
		goto usage;
	if (dc_require_root("dcbpf", pin_dir))
		return EXIT_ERR;
	if (sw_open(pin_dir, argv[optind], &s))
		return EXIT_ERR;
	if (sw_read_cfg(&s, &meta, &cfg)) {
		sw_close(&s);
		return EXIT_ERR;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", out);
	c.f = fopen(tmp, "we");
	if (!c.f) {
		fprintf(stderr, "dcbpf: switch capture: cannot write %s: %s\n", tmp, strerror(errno));
		sw_close(&s);
		return EXIT_ERR;
	}
	fprintf(c.f, "# dcbpf switch capture %s: alg %s, buffer_bytes %u, 1 in %lu arrivals (replaying LQD needs every arrival: --every 1)\n",
		s.name, cfg.alg < DC_ALG_MAX ? alg_names[cfg.alg] : "?", cfg.buffer_bytes, every);
	for (i = 0; i < DC_SW_PORTS_MAX; i++) {
		struct dc_sw_port p;

		if (!bpf_map_lookup_elem(s.port, &i, &p) && p.rate_mbps)
			fprintf(c.f, "# port %u %s %u Mbit/s\n", i, p.ifname, p.rate_mbps);
	}
	fprintf(c.f, "time_ns,port,priority,bytes,first_rtt,verdict,q_bytes,occ_bytes,q_ewma_bytes,occ_ewma_bytes\n");
	sw_close(&s);
	rc = sw_events(pin_dir, argv[optind], (__u32)every, false, duration, capture_one, &c);
	if (fclose(c.f) || rc != EXIT_OK || rename(tmp, out)) {
		fprintf(stderr, "dcbpf: switch capture: %s not written%s%s\n", out, errno ? ": " : "",
			errno ? strerror(errno) : "");
		unlink(tmp);
		return EXIT_ERR;
	}
	fprintf(stderr, "captured %lu arrival(s) to %s\n", c.seen, out);
	return EXIT_OK;
usage:
	fprintf(stderr, "dcbpf: usage: switch capture NAME --out FILE [--count N] [--every N] [--duration SECONDS]\n");
	return EXIT_USAGE;
}

static const char *const verdict_names[] = { "admit", "thresh", "full", "pred" };

struct dtrace {
	bool csv;
	unsigned long count, seen;
	__u64 t0;
	char ifname[DC_SW_PORTS_MAX][DC_SW_IFNAME_LEN];
};

static int dtrace_one(void *arg, const struct dc_sw_event *e)
{
	struct dtrace *t = arg;
	const char *why = e->verdict < 4 ? verdict_names[e->verdict] : "?";

	if (!(e->flags & DC_SW_EV_DROP) || (t->count && t->seen >= t->count))
		return t->count && t->seen >= t->count;
	if (!t->t0)
		t->t0 = e->time_ns;
	if (t->csv)
		printf("%llu,%u,%s,%u,%u,%s,%u,%u,%llu,%u,%u\n", (unsigned long long)e->time_ns, e->port,
		       t->ifname[e->port & (DC_SW_PORTS_MAX - 1)], e->prio, e->len, why, e->q_bytes,
		       e->occ_bytes, (unsigned long long)e->thresh_bytes, e->q_ewma_bytes,
		       e->occ_ewma_bytes);
	else
		printf("%10.3f %4u %-15s %4u %6u %-6s %10u %10u %10llu\n",
		       (double)(e->time_ns - t->t0) / 1e6, e->port,
		       t->ifname[e->port & (DC_SW_PORTS_MAX - 1)], e->prio, e->len, why, e->q_bytes,
		       e->occ_bytes, (unsigned long long)e->thresh_bytes);
	t->seen++;
	return t->count && t->seen >= t->count;
}

int dc_sw_trace_drops(const char *pin_dir, const char *name, bool csv, unsigned long count,
		      double duration_s)
{
	struct dtrace t = { .csv = csv, .count = count };
	struct sw s;
	__u32 i;

	if (dc_require_root("dcbpf", pin_dir))
		return EXIT_ERR;
	if (sw_open(pin_dir, name, &s))
		return EXIT_ERR;
	for (i = 0; i < DC_SW_PORTS_MAX; i++) {
		struct dc_sw_port p;

		if (!bpf_map_lookup_elem(s.port, &i, &p) && p.rate_mbps)
			snprintf(t.ifname[i], sizeof(t.ifname[i]), "%s", p.ifname);
		else
			snprintf(t.ifname[i], sizeof(t.ifname[i]), "-");
	}
	sw_close(&s);
	if (csv)
		printf("time_ns,port,ifname,priority,bytes,reason,q_bytes,occ_bytes,thresh_bytes,q_ewma_bytes,occ_ewma_bytes\n");
	else
		printf("%10s %4s %-15s %4s %6s %-6s %10s %10s %10s\n", "t_ms", "port", "ifname", "prio",
		       "bytes", "reason", "q_B", "Q_B", "thresh_B");
	fflush(stdout);
	return sw_events(pin_dir, name, 0, true, duration_s, dtrace_one, &t);
}

/* ---- get / set -------------------------------------------------------------------- */

/* "sw.NAME.KEY" → NAME and KEY (pointers into buf). */
static int split_key(const char *full, char *buf, size_t len, char **name, char **key)
{
	char *dot;

	snprintf(buf, len, "%s", full);
	if (strncmp(buf, "sw.", 3))
		return -1;
	*name = buf + 3;
	dot = strchr(*name, '.');
	*key = NULL;
	if (dot) {
		*dot = '\0';
		*key = dot + 1;
	}
	return valid_name(*name) ? 0 : -1;
}

int dc_sw_set(const char *pin_dir, bool json, struct jw *j, int argc, char **argv)
{
	struct dc_sw_cfg probe, cur, want;
	char buf[256], prefix[32], *name, *key;
	int i, k, bad = 0;
	bool done[64] = { false };

	/* validate everything first: a bad value changes nothing anywhere */
	dc_sw_cfg_defaults(&probe);
	for (i = 0; i < argc; i++) {
		char *arg[1];
		const char *eq = strchr(argv[i], '=');

		if (!eq || split_key(argv[i], buf, sizeof(buf), &name, &key) || !key) {
			fprintf(stderr, "dcbpf: '%s': expected sw.NAME.KEY=VALUE (e.g. sw.leaf0.alg=abm)\n",
				argv[i]);
			bad++;
			continue;
		}
		arg[0] = key;
		snprintf(prefix, sizeof(prefix), "sw.%s.", name);
		bad += apply_assignments(1, arg, &probe, prefix);
	}
	if (bad) {
		fprintf(stderr, "dcbpf: %d bad assignment(s); nothing changed\n", bad);
		return EXIT_USAGE;
	}
	if (dc_require_root("dcbpf", pin_dir))
		return EXIT_ERR;
	if (json) {
		jw_obj(j, NULL);
		jw_arr(j, "changed");
	}
	for (i = 0; i < argc && i < 64; i++) {
		struct dc_sw_meta meta;
		struct sw s;
		unsigned int p;
		int err;

		if (done[i])
			continue;
		split_key(argv[i], buf, sizeof(buf), &name, &key);
		if (sw_open(pin_dir, name, &s))
			return EXIT_ERR;
		if (sw_read_cfg(&s, &meta, &cur)) {
			fprintf(stderr, "dcbpf: switch %s: reading %s/%s failed\n", name, s.dir, M_CFG);
			sw_close(&s);
			return EXIT_ERR;
		}
		want = cur;
		/* every assignment for this switch, in order */
		for (k = i; k < argc; k++) {
			char b2[256], *n2, *k2, *arg[1];

			split_key(argv[k], b2, sizeof(b2), &n2, &k2);
			if (strcmp(n2, name))
				continue;
			arg[0] = k2;
			apply_assignments(1, arg, &want, "");
			done[k] = true;
		}
		err = memcmp(&cur, &want, sizeof(cur)) ? sw_write_cfg(&s, &want) : 0;
		if (err) {
			fprintf(stderr, "dcbpf: switch %s: writing %s/%s failed: %s; unchanged\n", name, s.dir,
				M_CFG, strerror(-err));
			sw_close(&s);
			return EXIT_ERR;
		}
		for (p = 0; p < NSW_PARAMS; p++) {
			const struct sw_param *sp = &sw_params[p];
			unsigned int n = sp->count ? sp->count : 1, x;

			for (x = 0; x < n; x++) {
				char a[32], b[32], kk[96];
				int idx = sp->count ? (int)x : -1;

				sw_param_format(sp, idx, &cur, a, sizeof(a));
				sw_param_format(sp, idx, &want, b, sizeof(b));
				if (!strcmp(a, b))
					continue;
				if (idx >= 0)
					snprintf(kk, sizeof(kk), "sw.%s.%s.%d", name, sp->name, idx);
				else
					snprintf(kk, sizeof(kk), "sw.%s.%s", name, sp->name);
				if (json) {
					jw_obj(j, NULL);
					jw_str(j, "key", kk);
					jw_str(j, "old", a);
					jw_str(j, "new", b);
					jw_end_obj(j);
				} else {
					printf("%s: %s -> %s\n", kk, a, b);
				}
			}
		}
		sw_close(&s);
	}
	if (json) {
		jw_end_arr(j);
		jw_end_obj(j);
		jw_done(j);
	}
	return EXIT_OK;
}

int dc_sw_get(const char *pin_dir, bool json, struct jw *j, const char *full)
{
	struct dc_sw_meta meta;
	struct dc_sw_cfg cfg;
	char buf[256], why[384], val[64], kk[96], *name, *key;
	const struct sw_param *only = NULL;
	struct sw s;
	unsigned int p;
	int index = -1;

	if (split_key(full, buf, sizeof(buf), &name, &key)) {
		fprintf(stderr, "dcbpf: '%s': expected sw.NAME or sw.NAME.KEY\n", full);
		return EXIT_USAGE;
	}
	if (key && !(only = sw_param_find(key, &index, why, sizeof(why)))) {
		fprintf(stderr, "dcbpf: %s\n", why);
		return EXIT_USAGE;
	}
	if (dc_require_root("dcbpf", pin_dir))
		return EXIT_ERR;
	if (sw_open(pin_dir, name, &s))
		return EXIT_ERR;
	if (sw_read_cfg(&s, &meta, &cfg)) {
		fprintf(stderr, "dcbpf: switch %s: reading %s/%s failed\n", name, s.dir, M_CFG);
		sw_close(&s);
		return EXIT_ERR;
	}
	sw_close(&s);
	if (only) {
		sw_param_format(only, only->count && index < 0 ? 0 : index, &cfg, val, sizeof(val));
		if (json) {
			jw_obj(j, NULL);
			jw_str(j, full, val);
			jw_end_obj(j);
			jw_done(j);
		} else {
			printf("%s\n", val);
		}
		return EXIT_OK;
	}
	if (json)
		jw_obj(j, NULL);
	for (p = 0; p < NSW_PARAMS; p++) {
		const struct sw_param *sp = &sw_params[p];
		unsigned int n = sp->count ? sp->count : 1, x;

		for (x = 0; x < n; x++) {
			int idx = sp->count ? (int)x : -1;

			sw_param_format(sp, idx, &cfg, val, sizeof(val));
			if (idx >= 0)
				snprintf(kk, sizeof(kk), "sw.%s.%s.%d", name, sp->name, idx);
			else
				snprintf(kk, sizeof(kk), "sw.%s.%s", name, sp->name);
			if (json)
				jw_str(j, kk, val);
			else
				printf("%s = %s\n", kk, val);
		}
	}
	if (json) {
		jw_end_obj(j);
		jw_done(j);
	}
	return EXIT_OK;
}

/* ---- dispatch --------------------------------------------------------------------------- */

int dc_sw_main(const char *pin_dir, bool json, struct jw *j, int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : "";

	if (!strcmp(sub, "up"))
		return cmd_up(pin_dir, argc - 1, argv + 1);
	if (!strcmp(sub, "down"))
		return cmd_down(pin_dir, argc - 1, argv + 1);
	if (!strcmp(sub, "status"))
		return cmd_status(pin_dir, json, j, argc - 1, argv + 1);
	if (!strcmp(sub, "sample"))
		return cmd_sample(pin_dir, argc - 1, argv + 1);
	if (!strcmp(sub, "capture"))
		return cmd_capture(pin_dir, argc - 1, argv + 1);
	if (!strcmp(sub, "list")) {
		char names[64][DC_SW_NAME_LEN];
		int n, k;

		if (dc_require_root("dcbpf", pin_dir))
			return EXIT_ERR;
		n = list_switches(pin_dir, names, 64);
		for (k = 0; k < n; k++)
			printf("%s\n", names[k]);
		return EXIT_OK;
	}
	if (!strcmp(sub, "params")) {
		dc_sw_print_doc(stdout);
		return EXIT_OK;
	}
	fprintf(stderr,
		"dcbpf: usage: switch up NAME --netns NS --ports IF[,IF...] [--rate-mbps N[,N...]]\n"
		"                         [--xdp-mode generic|native] [KEY=VALUE...]\n"
		"              switch down NAME | status NAME | list | params\n"
		"              switch sample NAME [--count N] [--interval-us US]\n"
		"              switch capture NAME --out FILE [--count N] [--every N] [--duration S]\n");
	return EXIT_USAGE;
}
