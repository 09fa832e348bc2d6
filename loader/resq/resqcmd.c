// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf resq attach|detach|set|status` (docs/resqueue.md): the ResQueue
 * tagger of bpf/resq_host.bpf.c on the TC egress of a namespace's
 * interfaces, the optional sockops program (RTO-only promotion) on a
 * cgroup, its maps pinned under PIN_DIR/resq/<netns or host>, and the
 * configuration map dc_resq_cfg.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dcbpf/resqueue.h"
#include "dcbpf/flow.h"
#include "attach.h"
#include "bpfsys.h"
#include "cli.h"
#include "config.h"
#include "counters.h"
#include "pins.h"
#include "areaout.h"
#include "resq/resqcmd.h"
#include "resq_host.skel.h"

#define RESQ_OBJ "resq_host"
#define SOCKOPS_PIN "sockops"

struct resq_attach_args {
	const char *netns;
	const char *dev;
	const char *cgroup;
};

struct resq_ns_args {
	const char *netns;
};

/* promote: 0 = not given, else enum dc_resq_promote + 1 */
struct resq_set_args {
	const char *netns;
	int promote;
	const char *thresholds;
	__u64 reserved_bytes;
	__u64 cs_top;
	const char *idle_us;	/* NULL: not given (0 is a value: never) */
	bool enable, disable;
};

static const struct dc_opt_name promote_names[] = {
	{ "off", DC_RESQ_PROMOTE_OFF + 1 },
	{ "any", DC_RESQ_PROMOTE_ANY + 1 },
	{ "rto", DC_RESQ_PROMOTE_RTO + 1 },
	{ NULL },
};

#define NETNS_OPT(T) \
	{ "netns", 0, DC_OPT_STR, DC_FIELD(T, netns), "NS", \
	  .help = "network namespace (a name under /var/run/netns); default: this one" }

static const struct dc_opt attach_opts[] = {
	{ "dev", 0, DC_OPT_STR, DC_FIELD(struct resq_attach_args, dev), "IFNAME",
	  .help = "interface whose egress packets are tagged", .required = true },
	NETNS_OPT(struct resq_attach_args),
	{ "cgroup", 0, DC_OPT_DIR, DC_FIELD(struct resq_attach_args, cgroup), "DIR",
	  .help = "cgroup v2 directory whose sockets report timeouts (needed by --promote rto)",
	  .flags = DC_OPT_F_EXISTS },
	{ NULL },
};

static const struct dc_opt ns_opts[] = {
	NETNS_OPT(struct resq_ns_args),
	{ NULL },
};

static const struct dc_opt set_opts[] = {
	NETNS_OPT(struct resq_set_args),
	{ "promote", 0, DC_OPT_ENUM, DC_FIELD(struct resq_set_args, promote), NULL,
	  .help = "retransmissions promoted one level: any, rto (after a timeout only), off (plain "
		  "PIAS: levels from 1)", .names = promote_names },
	{ "thresholds", 0, DC_OPT_STR, DC_FIELD(struct resq_set_args, thresholds), "B,B,...",
	  .help = "bytes sent at which a flow moves one level down, increasing (K, M: x1024); "
		  "'none': one level" },
	{ "reserved-bytes", 0, DC_OPT_U64, DC_FIELD(struct resq_set_args, reserved_bytes), "B",
	  .help = "level 1's buffer at the switches, recorded for them", .umin = 1,
	  .umax = 0xffffffffULL },
	{ "cs-top", 0, DC_OPT_U64, DC_FIELD(struct resq_set_args, cs_top), "CS",
	  .help = "class selector of level 1; level L leaves as CS(CS + 1 - L) (7; N - 1 for a "
		  "switch with N queues)", .umin = 1, .umax = DC_RESQ_LEVEL_MAX },
	{ "idle-us", 0, DC_OPT_STR, DC_FIELD(struct resq_set_args, idle_us), "US",
	  .help = "a flow that sent nothing for longer starts over at the base level (a persistent "
		  "connection's next message, as PIAS); 0: never (the state after attach)" },
	{ "enable", 0, DC_OPT_FLAG, DC_FIELD(struct resq_set_args, enable), NULL,
	  .help = "tag packets (the state after attach)" },
	{ "disable", 0, DC_OPT_FLAG, DC_FIELD(struct resq_set_args, disable), NULL,
	  .help = "pass every packet untouched, keep the programs and flows" },
	{ NULL },
};

static const char *const promote_words[] = { "off", "any", "rto" };

/* PIN_DIR/resq/<netns or "host">: flows of different namespaces apart. */
static int resq_dir(struct dc_ctx *ctx, const char *netns, char *buf, size_t len)
{
	return dc_pin_ns_dir(buf, len, ctx->pin_dir, DC_PIN_RESQ, netns, &ctx->err);
}

static int open_map(struct dc_ctx *ctx, const char *dir, const char *name)
{
	return dc_pin_open_map(dir, name, "ResQueue", "dcbpf resq attach --dev IFNAME", &ctx->err);
}

/* Pins of links in dir: IFNAME_egress and the sockops link. */
static bool is_link_pin(const char *name)
{
	size_t n = strlen(name);

	return !strcmp(name, SOCKOPS_PIN) || (n > 7 && !strcmp(name + n - 7, "_egress"));
}

static int count_links(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += is_link_pin(e->d_name);
	closedir(d);
	return n;
}

/* Every link in dir taken off, the maps unpinned, dir removed. */
static int teardown(const char *dir, const char *pin_dir, struct dc_err *err)
{
	char path[DC_PATH_LEN * 4];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (d) {
		while ((e = readdir(d))) {
			if (!is_link_pin(e->d_name))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			dc_detach_pinned(path);
		}
		closedir(d);
	}
	if (dc_pins_unpin(dir, RESQ_OBJ, NULL, true, err))
		return -1;
	snprintf(path, sizeof(path), "%s/resq", pin_dir);
	rmdir(path);	/* only when empty: other namespaces keep theirs */
	return 0;
}

static int attach_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct resq_attach_args *a = ctx->opts;
	char dir[DC_PATH_LEN * 2], pin[DC_PATH_LEN * 4], sopin[DC_PATH_LEN * 4], why[512];
	struct dc_attach at = { .hook = DC_HOOK_TC_EGRESS, .netns = a->netns, .ifname = a->dev };
	struct resq_host_bpf *s = NULL;
	struct dc_resq_cfg cfg;
	enum dc_attach_how how;
	__u32 ifindex, zero = 0;
	bool fresh;
	int cg = -1, fd, rc;

	(void)argc;
	(void)argv;
	if (resq_dir(ctx, a->netns, dir, sizeof(dir)))
		return ctx->err.code;
	rc = dc_link_pin(pin, sizeof(pin), dir, a->dev, "egress");
	if (rc)
		return dc_fail(ctx, EXIT_USAGE, "--dev %s: %s", a->dev,
			       rc == -EINVAL ? "not usable as a pin name" : "name too long");
	if (dc_exists(pin))
		return dc_fail(ctx, EXIT_ERR, "ResQueue is already attached to %s (%s); detach first",
			       a->dev, pin);
	if (dc_ifindex(a->netns, a->dev, &ifindex, why, sizeof(why)))
		return dc_fail(ctx, EXIT_ERR, "%s", why);
	dc_pin_path(sopin, sizeof(sopin), dir, SOCKOPS_PIN);
	if (a->cgroup) {
		cg = open(a->cgroup, O_RDONLY | O_DIRECTORY);
		if (cg < 0)
			return dc_fail(ctx, EXIT_ERR, "cgroup %s: %s", a->cgroup, strerror(errno));
	}
	fresh = count_links(dir) == 0;
	rc = dc_mkdirs(dir);
	if (rc) {
		dc_fail(ctx, EXIT_ERR, "cannot create %s: %s", dir, strerror(-rc));
		goto out;
	}
	{
		LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = dir);

		s = resq_host_bpf__open_opts(&oo);
	}
	if (!s || resq_host_bpf__load(s)) {
		dc_fail(ctx, EXIT_ERR, "loading the ResQueue program failed: %s (maps pinned in %s with "
			"another layout? detach and retry)", strerror(errno), dir);
		goto fail;
	}
	fd = bpf_map__fd(s->maps.dc_resq_cfg);
	if (bpf_map_lookup_elem(fd, &zero, &cfg) || !cfg.enabled || fresh) {
		/* a new instance starts with the documented defaults */
		dc_resq_cfg_default(&cfg);
		if (bpf_map_update_elem(fd, &zero, &cfg, 0)) {
			dc_fail(ctx, EXIT_ERR, "dc_resq_cfg: %s", strerror(errno));
			goto fail;
		}
	}
	at.pin_path = pin;
	rc = dc_attach_prog(bpf_program__fd(s->progs.dc_resq_egress), &at, &how, why, sizeof(why));
	if (rc) {
		dc_fail(ctx, EXIT_ERR, "%s", why);
		goto fail;
	}
	if (how != DC_ATTACHED_LINK) {
		/* detach finds links by their pins; a netlink filter has none */
		dc_detach_netlink(&at);
		dc_fail(ctx, EXIT_ERR, "%s: this kernel has no tcx links; the ResQueue tagger needs 6.6+",
			a->dev);
		goto fail;
	}
	if (cg >= 0 && !dc_exists(sopin)) {
		fd = bpf_link_create(bpf_program__fd(s->progs.dc_resq_sockops), cg, BPF_CGROUP_SOCK_OPS,
				     NULL);
		if (fd < 0 || bpf_obj_pin(fd, sopin)) {
			dc_fail(ctx, EXIT_ERR, "attaching the sockops program to cgroup %s failed: %s",
				a->cgroup, strerror(errno));
			if (fd >= 0)
				close(fd);
			dc_detach_pinned(pin);
			goto fail;
		}
		close(fd);
	}
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_str(&ctx->jw, "dev", a->dev);
		jw_str(&ctx->jw, "netns", a->netns ? a->netns : "");
		jw_str(&ctx->jw, "cgroup", a->cgroup ? a->cgroup : "");
		jw_str(&ctx->jw, "pins", dir);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		fprintf(ctx->out, "resq: tagging %s%s%s%s%s (pins in %s)\n", a->dev,
			a->netns ? " in " : "", a->netns ? a->netns : "",
			a->cgroup ? ", timeouts from " : "", a->cgroup ? a->cgroup : "", dir);
	}
	rc = EXIT_OK;
	goto out;
fail:
	/* all or nothing: a first attach leaves no pins behind */
	if (fresh)
		teardown(dir, ctx->pin_dir, NULL);
	rc = ctx->err.code ? ctx->err.code : EXIT_ERR;
out:
	resq_host_bpf__destroy(s);
	if (cg >= 0)
		close(cg);
	return rc;
}

static int detach_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct resq_ns_args *a = ctx->opts;
	char dir[DC_PATH_LEN * 2];
	int links;

	(void)argc;
	(void)argv;
	if (resq_dir(ctx, a->netns, dir, sizeof(dir)))
		return ctx->err.code;
	if (!dc_exists(dir))
		return dc_fail(ctx, EXIT_ERR, "ResQueue is not attached in %s (%s)",
			       a->netns ? a->netns : "this namespace", dir);
	links = count_links(dir);
	if (teardown(dir, ctx->pin_dir, &ctx->err))
		return ctx->err.code ? ctx->err.code : EXIT_ERR;
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_u64(&ctx->jw, "links_detached", (__u64)links);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		fprintf(ctx->out, "resq: detached (%d link%s)\n", links, links == 1 ? "" : "s");
	}
	return EXIT_OK;
}

/* "32K,256K", "1000,2000,5M", "none" */
static int parse_thresholds(struct dc_ctx *ctx, const char *s, struct dc_resq_cfg *c)
{
	char buf[256], *tok, *save = NULL, *end;
	unsigned long long v;
	__u32 n = 0;

	if (!strcmp(s, "none")) {
		c->nthresh = 0;
		return 0;
	}
	if (strlen(s) >= sizeof(buf))
		return dc_fail(ctx, EXIT_USAGE, "--thresholds: too long");
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		errno = 0;
		v = strtoull(tok, &end, 10);
		if (end == tok || errno)
			return dc_fail(ctx, EXIT_USAGE, "--thresholds %s: '%s' is not a byte count", s, tok);
		if (*end == 'K' || *end == 'k')
			v *= 1024, end++;
		else if (*end == 'M' || *end == 'm')
			v *= 1024 * 1024, end++;
		if (*end || !v || v > 0xffffffffULL)
			return dc_fail(ctx, EXIT_USAGE, "--thresholds %s: '%s' must be 1..4294967295 bytes "
				       "(K, M suffixes)", s, tok);
		if (n >= DC_RESQ_THRESH_MAX)
			return dc_fail(ctx, EXIT_USAGE, "--thresholds %s: at most %u", s,
				       DC_RESQ_THRESH_MAX);
		c->thresh_bytes[n++] = (__u32)v;
	}
	if (!n)
		return dc_fail(ctx, EXIT_USAGE, "--thresholds: empty (use 'none' for one level)");
	c->nthresh = n;
	for (; n < DC_RESQ_THRESH_MAX; n++)
		c->thresh_bytes[n] = 0;
	return 0;
}

static int set_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct resq_set_args *a = ctx->opts;
	char dir[DC_PATH_LEN * 2];
	struct dc_resq_cfg c;
	__u32 zero = 0;
	int fd, rc = EXIT_OK, bad;

	(void)argc;
	(void)argv;
	if (a->enable && a->disable)
		return dc_fail(ctx, EXIT_USAGE, "--enable and --disable: one or the other");
	if (resq_dir(ctx, a->netns, dir, sizeof(dir)))
		return ctx->err.code;
	fd = open_map(ctx, dir, "dc_resq_cfg");
	if (fd < 0)
		return ctx->err.code;
	if (bpf_map_lookup_elem(fd, &zero, &c)) {
		rc = dc_fail(ctx, EXIT_ERR, "dc_resq_cfg: %s", strerror(errno));
		goto out;
	}
	if (a->promote)
		c.promote = (__u32)(a->promote - 1);
	if (a->thresholds && parse_thresholds(ctx, a->thresholds, &c)) {
		rc = ctx->err.code;
		goto out;
	}
	if (a->reserved_bytes)
		c.reserved_bytes = (__u32)a->reserved_bytes;
	if (a->cs_top)
		c.cs_top = (__u32)a->cs_top;
	if (a->idle_us) {
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(a->idle_us, &end, 10);
		if (!*a->idle_us || *end || errno || v > 0xffffffffULL || a->idle_us[0] == '-') {
			rc = dc_fail(ctx, EXIT_USAGE, "--idle-us: want microseconds 0..4294967295, got '%s'",
				     a->idle_us);
			goto out;
		}
		c.idle_us = (__u32)v;
	}
	if (a->enable)
		c.enabled = 1;
	if (a->disable)
		c.enabled = 0;
	bad = dc_resq_cfg_check(&c);
	if (bad == -DC_RESQ_BAD_NTHRESH) {
		rc = dc_fail(ctx, EXIT_USAGE, "%u thresholds from level %u reach level %u: the DSCP class "
			     "selector has levels up to %u", c.nthresh, dc_resq_base(&c),
			     dc_resq_base(&c) + c.nthresh, DC_RESQ_LEVEL_MAX);
		goto out;
	}
	if (bad == -DC_RESQ_BAD_CS) {
		rc = dc_fail(ctx, EXIT_USAGE, "levels %u..%u from CS%u: level %u would be below CS0 "
			     "(raise --cs-top or use fewer thresholds)", dc_resq_base(&c),
			     dc_resq_base(&c) + c.nthresh, c.cs_top, dc_resq_base(&c) + c.nthresh);
		goto out;
	}
	if (bad) {
		rc = dc_fail(ctx, EXIT_USAGE, "--thresholds: each must be above the one before");
		goto out;
	}
	if (bpf_map_update_elem(fd, &zero, &c, 0))
		rc = dc_fail(ctx, EXIT_ERR, "dc_resq_cfg: %s", strerror(errno));
out:
	close(fd);
	return rc;
}

static void flow_row(struct dc_ctx *ctx, const char *local, const char *remote, const void *val)
{
	const struct dc_resq_flow *f = val;

	if (ctx->json) {
		jw_u64(&ctx->jw, "level", f->level);
		jw_u64(&ctx->jw, "bytes_sent", f->bytes_sent);
		jw_u64(&ctx->jw, "pkts", f->pkts);
		jw_u64(&ctx->jw, "retx_pkts", f->retx_pkts);
		jw_u64(&ctx->jw, "promoted_pkts", f->promoted_pkts);
		jw_u64(&ctx->jw, "rto_count", f->rto_count);
		jw_u64(&ctx->jw, "idle_restarts", f->idle_restarts);
	} else {
		fprintf(ctx->out, "  %-21s -> %-21s level %u bytes %llu pkts %llu retx %llu promoted %llu "
			"rto %u\n", local, remote, f->level, (unsigned long long)f->bytes_sent,
			(unsigned long long)f->pkts, (unsigned long long)f->retx_pkts,
			(unsigned long long)f->promoted_pkts, f->rto_count);
	}
}

static void print_links(struct dc_ctx *ctx, const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	size_t n;

	if (ctx->json)
		jw_arr(&ctx->jw, "links");
	else
		fprintf(ctx->out, "links:");
	while (d && (e = readdir(d))) {
		if (!is_link_pin(e->d_name))
			continue;
		n = strlen(e->d_name);
		if (ctx->json) {
			jw_obj(&ctx->jw, NULL);
			if (!strcmp(e->d_name, SOCKOPS_PIN))
				jw_str(&ctx->jw, "sockops", "cgroup");
			else {
				char dev[64];

				snprintf(dev, sizeof(dev), "%.*s", (int)(n - 7), e->d_name);
				jw_str(&ctx->jw, "egress", dev);
			}
			jw_end_obj(&ctx->jw);
		} else {
			fprintf(ctx->out, " %s", e->d_name);
		}
	}
	if (d)
		closedir(d);
	if (ctx->json)
		jw_end_arr(&ctx->jw);
	else
		fprintf(ctx->out, "\n");
}

static int status_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct resq_ns_args *a = ctx->opts;
	char dir[DC_PATH_LEN * 2];
	int cfd, sfd, ffd, i, rc;
	struct dc_resq_counters c = { 0 };
	struct dc_resq_cfg cfg;
	struct dc_resq_flow f;
	__u32 zero = 0;

	(void)argc;
	(void)argv;
	if (resq_dir(ctx, a->netns, dir, sizeof(dir)))
		return ctx->err.code;
	cfd = open_map(ctx, dir, "dc_resq_cfg");
	if (cfd < 0)
		return ctx->err.code;
	sfd = open_map(ctx, dir, "dc_resq_stats");
	ffd = sfd < 0 ? -1 : open_map(ctx, dir, "dc_resq_flows");
	/* per-CPU copies summed; the CPU count is dc_ctr_read's to find */
	rc = sfd < 0 || ffd < 0 ? ctx->err.code : dc_ctr_read(&dc_ctr_resq, sfd, 0, true, &c);
	if (rc) {
		if (rc < 0)
			dc_fail(ctx, EXIT_ERR, "dc_resq_stats: %s", strerror(-rc));
		close(cfd);
		if (sfd >= 0)
			close(sfd);
		if (ffd >= 0)
			close(ffd);
		return ctx->err.code;
	}
	memset(&cfg, 0, sizeof(cfg));
	bpf_map_lookup_elem(cfd, &zero, &cfg);
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_bool(&ctx->jw, "enabled", cfg.enabled);
		jw_str(&ctx->jw, "promote", cfg.promote < DC_RESQ_PROMOTE_MAX ? promote_words[cfg.promote]
									       : "?");
		jw_u64(&ctx->jw, "base_level", dc_resq_base(&cfg));
		jw_u64(&ctx->jw, "lowest_level", dc_resq_base(&cfg) + cfg.nthresh);
		jw_arr(&ctx->jw, "thresholds_bytes");
		for (i = 0; i < (int)cfg.nthresh && i < DC_RESQ_THRESH_MAX; i++)
			jw_u64(&ctx->jw, NULL, cfg.thresh_bytes[i]);
		jw_end_arr(&ctx->jw);
		jw_u64(&ctx->jw, "reserved_bytes", cfg.reserved_bytes);
		jw_u64(&ctx->jw, "cs_top", cfg.cs_top);
		jw_u64(&ctx->jw, "idle_us", cfg.idle_us);
	} else {
		fprintf(ctx->out, "%s, promote %s, levels %u..%u (DSCP CS%u..CS%u), thresholds",
			cfg.enabled ? "enabled" : "disabled",
			cfg.promote < DC_RESQ_PROMOTE_MAX ? promote_words[cfg.promote] : "?",
			dc_resq_base(&cfg), dc_resq_base(&cfg) + cfg.nthresh,
			dc_resq_cs(cfg.cs_top, dc_resq_base(&cfg)),
			dc_resq_cs(cfg.cs_top, dc_resq_base(&cfg) + cfg.nthresh));
		for (i = 0; i < (int)cfg.nthresh && i < DC_RESQ_THRESH_MAX; i++)
			fprintf(ctx->out, "%s%u", i ? "," : " ", cfg.thresh_bytes[i]);
		fprintf(ctx->out, "%s B, level-1 buffer %u B", cfg.nthresh ? "" : " none",
			cfg.reserved_bytes);
		if (cfg.idle_us)
			fprintf(ctx->out, ", restart after %u us idle", cfg.idle_us);
		fprintf(ctx->out, "\n");
	}
	print_links(ctx, dir);
	dc_area_counters(ctx, &dc_ctr_resq, &c,
			 "flows (local -> remote: level, bytes sent, packets, retx, promoted, timeouts):");
	dc_area_flows(ctx, ffd, &f, flow_row);
	dc_area_end(ctx);
	close(cfd);
	close(sfd);
	close(ffd);
	return EXIT_OK;
}

#define ROOT DC_CMD_F_ROOT
const struct dc_cmd dc_resq_cmds[] = {
	{ "attach", attach_cmd, attach_opts, sizeof(struct resq_attach_args),
	  .summary = "tag an interface's TCP packets with their MLFQ level (DSCP)", .flags = ROOT,
	  .doc = "The first attach in a namespace starts with the defaults (promote any,\n"
		 "thresholds 32K,256K: levels 2..4, level 1 for retransmissions); more\n"
		 "interfaces share its flows and configuration.  Needs tcx links (6.6+)." },
	{ "detach", detach_cmd, ns_opts, sizeof(struct resq_ns_args),
	  .summary = "take the tagger off every interface of the namespace, unpin its maps",
	  .flags = ROOT },
	{ "set", set_cmd, set_opts, sizeof(struct resq_set_args),
	  .summary = "promotion mode, demotion thresholds, classes, level-1 buffer; live",
	  .flags = ROOT,
	  .doc = "All or nothing: a configuration the tagger cannot use (thresholds not\n"
		 "increasing, more levels than classes) is refused and the old one stays." },
	{ "status", status_cmd, ns_opts, sizeof(struct resq_ns_args),
	  .summary = "configuration, links, counters and every flow's level", .flags = ROOT },
	{ NULL },
};
