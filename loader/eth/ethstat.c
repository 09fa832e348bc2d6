// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf ethereal status` and `ethereal flows`: what the pinned maps of
 * every (or one) namespace hold, as text or JSON (the jw writer).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dcbpf/ethereal.h"
#include "dcbpf/flow.h"
#include "cli.h"
#include "clock.h"
#include "config.h"
#include "counters.h"
#include "eth/ethpriv.h"
#include "pins.h"

/* Text: "name N name N ...\n" after two spaces; JSON: "counters": {...}. */
static void put_counters(struct dc_ctx *ctx, const struct dc_ctr_set *set, const void *v)
{
	if (ctx->json) {
		jw_obj(&ctx->jw, "counters");
		dc_ctr_json(&ctx->jw, set, v, 0);
		jw_end_obj(&ctx->jw);
		return;
	}
	fprintf(ctx->out, "  ");
	dc_ctr_line(ctx->out, set, v, 0);
	fprintf(ctx->out, "\n");
}

struct host_maps {
	int cfg, view, stats, flows;
};

static void close_host(struct host_maps *m)
{
	int *fds[] = { &m->cfg, &m->view, &m->stats, &m->flows };
	unsigned int i;

	for (i = 0; i < 4; i++)
		if (*fds[i] >= 0)
			close(*fds[i]);
}

/* One host leaf's loads and timeouts, if it has any. */
static void host_leaf(struct dc_ctx *ctx, const struct dc_eth_hleaf *v, __u32 leaf, __u32 paths)
{
	struct jw *j = &ctx->jw;
	char num[32];
	__u32 u;

	if (paths > DC_ETH_MAX_UPLINKS)
		paths = DC_ETH_MAX_UPLINKS;
	if (ctx->json) {
		jw_obj(j, NULL);
		jw_u64(j, "leaf", leaf);
		jw_arr(j, "load_flows");
		for (u = 0; u < paths; u++) {
			snprintf(num, sizeof(num), "%.3f", (double)v->up.load[u] / DC_ETH_FLOW_UNIT);
			jw_raw(j, NULL, num);
		}
		jw_end_arr(j);
		jw_arr(j, "timeouts");
		for (u = 0; u < paths; u++)
			jw_u64(j, NULL, v->timeouts[u]);
		jw_end_arr(j);
		jw_end_obj(j);
		return;
	}
	fprintf(ctx->out, "  leaf %u: load (flows)", leaf);
	for (u = 0; u < paths; u++)
		fprintf(ctx->out, " %.2f", (double)v->up.load[u] / DC_ETH_FLOW_UNIT);
	fprintf(ctx->out, "; timeouts");
	for (u = 0; u < paths; u++)
		fprintf(ctx->out, " %llu", (unsigned long long)v->timeouts[u]);
	fprintf(ctx->out, "\n");
}

/* A namespace's host, if one is attached there: 0, else -1 and nothing written. */
static int host_status(struct dc_ctx *ctx, const char *dir, const char *ns)
{
	struct host_maps m = { dc_eth_open_pinned(dir, "dc_eth_hcfg"),
			       dc_eth_open_pinned(dir, "dc_eth_view"),
			       dc_eth_open_pinned(dir, "dc_eth_hstats"),
			       dc_eth_open_pinned(dir, "dc_eth_flows") };
	struct dc_eth_hcfg c = {};
	struct dc_eth_hcounters hc = {};
	struct dc_flow_key k, nk, *pk = NULL;
	struct bpf_map_info mi = {};
	__u32 mil = sizeof(mi), cap = 0, zero = 0, leaf;
	struct jw *j = &ctx->jw;
	long nflows = 0;

	if (m.cfg < 0 || m.view < 0 || m.stats < 0 || m.flows < 0) {
		close_host(&m);
		return -1;
	}
	bpf_map_lookup_elem(m.cfg, &zero, &c);
	bpf_map_lookup_elem(m.stats, &zero, &hc);
	while (!bpf_map_get_next_key(m.flows, pk, &nk)) {
		nflows++;
		k = nk;
		pk = &k;
	}
	/* the cap the host program was loaded with (same size, same CPUs) */
	if (!bpf_obj_get_info_by_fd(m.flows, &mi, &mil))
		cap = dc_eth_flows_cap(mi.max_entries, (__u32)libbpf_num_possible_cpus());
	if (ctx->json) {
		jw_obj(j, NULL);
		jw_str(j, "netns", ns);
		jw_str(j, "mode", dc_eth_mode_name(c.mode));
		jw_u64(j, "paths", c.n_uplinks);
		jw_u64(j, "idle_ms", c.idle_ms);
		jw_u64(j, "avoid_ms", c.avoid_ms);
		jw_u64(j, "flows", (__u64)nflows);
		jw_u64(j, "flows_cap", cap);
		if (c.mode == DC_ETH_MODE_REPS) {
			jw_u64(j, "reps_buf", dc_reps_size(c.reps_buf));
			jw_u64(j, "reps_freeze_ms", c.reps_freeze_ms);
		}
		jw_arr(j, "leaves");
	} else {
		fprintf(ctx->out, "host %s: mode %s, paths %u, idle %u ms, avoid %u ms, flows %ld "
			"(cap %u)\n", ns, dc_eth_mode_name(c.mode), c.n_uplinks, c.idle_ms,
			c.avoid_ms, nflows, cap);
		if (c.mode == DC_ETH_MODE_REPS)
			fprintf(ctx->out, "  reps: buffer %u entropies, freeze %u ms after a timeout\n",
				dc_reps_size(c.reps_buf), c.reps_freeze_ms);
	}
	for (leaf = 0; leaf < DC_ETH_MAX_LEAVES; leaf++) {
		struct dc_eth_hleaf v = {};
		__u32 u, any = 0;

		if (bpf_map_lookup_elem(m.view, &leaf, &v))
			continue;
		for (u = 0; u < DC_ETH_MAX_UPLINKS; u++)
			any |= v.up.load[u] || v.timeouts[u];
		if (any)
			host_leaf(ctx, &v, leaf, c.n_uplinks);
	}
	if (ctx->json)
		jw_end_arr(j);
	put_counters(ctx, &dc_ctr_eth_host, &hc);
	if (ctx->json)
		jw_end_obj(j);
	close_host(&m);
	return 0;
}

static void leaf_path(struct dc_ctx *ctx, __u32 tag, const struct dc_eth_uplink *u, __u64 bytes,
		      __u64 pkts)
{
	char nh[INET_ADDRSTRLEN] = "-";

	if (tag)
		inet_ntop(AF_INET, &u->nexthop, nh, sizeof(nh));
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_u64(&ctx->jw, "tag", tag);
		jw_u64(&ctx->jw, "ifindex", u->ifindex);
		jw_str(&ctx->jw, "nexthop", nh);
		jw_u64(&ctx->jw, "bytes", bytes);
		jw_u64(&ctx->jw, "packets", pkts);
		jw_end_obj(&ctx->jw);
	} else if (tag) {
		fprintf(ctx->out, "  path %u: ifindex %u via %s: %llu bytes, %llu packets\n", tag,
			u->ifindex, nh, (unsigned long long)bytes, (unsigned long long)pkts);
	} else {
		fprintf(ctx->out, "  untagged: %llu bytes, %llu packets\n", (unsigned long long)bytes,
			(unsigned long long)pkts);
	}
}

/* A namespace's leaf, if one is attached there: 0, else -1 and nothing written. */
static int leaf_status(struct dc_ctx *ctx, const char *dir, const char *ns)
{
	int ncpu = libbpf_num_possible_cpus(), fu = dc_eth_open_pinned(dir, "dc_eth_up");
	int fp = dc_eth_open_pinned(dir, "dc_eth_pcnt"), fs = dc_eth_open_pinned(dir, "dc_eth_lstats");
	struct dc_eth_lcounters lc = {};
	struct dc_eth_pathcnt *pc = NULL;
	__u32 tag, i;
	int rc = -1;

	if (fu < 0 || fp < 0 || fs < 0 || ncpu < 1)
		goto out;
	pc = calloc((size_t)ncpu, sizeof(*pc));
	if (!pc)
		goto out;
	dc_ctr_read(&dc_ctr_eth_leaf, fs, 0, true, &lc);
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_str(&ctx->jw, "netns", ns);
		jw_arr(&ctx->jw, "paths");
	} else {
		fprintf(ctx->out, "leaf %s:\n", ns);
	}
	for (tag = 0; tag <= DC_ETH_TAG_MAX; tag++) {
		struct dc_eth_uplink u = {};
		__u64 bytes = 0, pkts = 0;

		if (bpf_map_lookup_elem(fu, &tag, &u) || (tag && !u.ifindex))
			continue;
		if (!bpf_map_lookup_elem(fp, &tag, pc))
			for (i = 0; i < (__u32)ncpu; i++) {
				bytes += pc[i].bytes;
				pkts += pc[i].packets;
			}
		leaf_path(ctx, tag, &u, bytes, pkts);
	}
	if (ctx->json)
		jw_end_arr(&ctx->jw);
	put_counters(ctx, &dc_ctr_eth_leaf, &lc);
	if (ctx->json)
		jw_end_obj(&ctx->jw);
	rc = 0;
out:
	free(pc);
	if (fu >= 0)
		close(fu);
	if (fp >= 0)
		close(fp);
	if (fs >= 0)
		close(fs);
	return rc;
}

int dc_eth_status_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct dc_eth_ns_args *a = ctx->opts;
	char base[DC_PATH_LEN * 2], dir[DC_PATH_LEN * 3];
	bool any = false;
	int pass;

	(void)argc;
	(void)argv;
	dc_pin_dir(base, sizeof(base), ctx->pin_dir, DC_PIN_ETH_BASE, NULL);
	if (ctx->json)
		jw_obj(&ctx->jw, NULL);
	for (pass = 0; pass < 2; pass++) {
		DIR *d = opendir(base);
		struct dirent *de;

		if (ctx->json)
			jw_arr(&ctx->jw, pass ? "leaves" : "hosts");
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.' || (a->netns && strcmp(a->netns, de->d_name)))
				continue;
			if (dc_pin_dir(dir, sizeof(dir), ctx->pin_dir, DC_PIN_ETH, de->d_name))
				continue;
			if (!(pass ? leaf_status(ctx, dir, de->d_name) : host_status(ctx, dir, de->d_name)))
				any = true;
		}
		if (d)
			closedir(d);
		if (ctx->json)
			jw_end_arr(&ctx->jw);
	}
	if (ctx->json) {
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else if (!any) {
		fprintf(ctx->out, "ethereal: nothing attached under %s\n", base);
	}
	return EXIT_OK;
}

static void flow_row(struct dc_ctx *ctx, const struct dc_flow_key *k, const struct dc_eth_flow *f,
		     __u64 now)
{
	char s[INET_ADDRSTRLEN], d[INET_ADDRSTRLEN], a[40], b[40];
	struct jw *j = &ctx->jw;

	inet_ntop(AF_INET, &k->saddr[0], s, sizeof(s));
	inet_ntop(AF_INET, &k->daddr[0], d, sizeof(d));
	if (ctx->json) {
		jw_obj(j, NULL);
		jw_str(j, "src", s);
		jw_u64(j, "sport", k->sport);
		jw_str(j, "dst", d);
		jw_u64(j, "dport", k->dport);
		jw_u64(j, "path", f->path);
		jw_u64(j, "leaf", f->leaf);
		jw_str(j, "state", f->state ? "released" : "open");
		jw_u64(j, "repaths", f->repaths);
		jw_u64(j, "bytes", f->bytes);
		jw_u64(j, "packets", f->packets);
		jw_end_obj(j);
		return;
	}
	snprintf(a, sizeof(a), "%s:%u", s, k->sport);
	snprintf(b, sizeof(b), "%s:%u", d, k->dport);
	fprintf(ctx->out, "%-22s %-22s %5u %4u %8s %7u %12llu %10llu %9llu\n", a, b, f->path, f->leaf,
		f->state ? "released" : "open", f->repaths, (unsigned long long)f->bytes,
		(unsigned long long)f->packets,
		(unsigned long long)(now > f->last_seen_ns ? (now - f->last_seen_ns) / 1000000 : 0));
}

int dc_eth_flows_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct dc_eth_ns_args *a = ctx->opts;
	char dir[DC_PATH_LEN * 2];
	struct dc_flow_key k, nk, *pk = NULL;
	__u64 now;
	int fd;

	(void)argc;
	(void)argv;
	if (dc_eth_ns_dir(dir, sizeof(dir), ctx->pin_dir, a->netns, &ctx->err))
		return EXIT_USAGE;
	fd = dc_eth_open_pinned(dir, "dc_eth_flows");
	if (fd < 0)
		return dc_fail(ctx, EXIT_ERR, "no host attached in netns %s (%s)", a->netns, dir);
	now = dc_mono_ns();
	if (ctx->json)
		jw_arr(&ctx->jw, NULL);
	else
		fprintf(ctx->out, "%-22s %-22s %5s %4s %8s %7s %12s %10s %9s\n", "source",
			"destination", "path", "leaf", "state", "repaths", "bytes", "packets",
			"idle_ms");
	while (!bpf_map_get_next_key(fd, pk, &nk)) {
		struct dc_eth_flow f;

		k = nk;
		pk = &k;
		if (!bpf_map_lookup_elem(fd, &k, &f))
			flow_row(ctx, &k, &f, now);
	}
	if (ctx->json) {
		jw_end_arr(&ctx->jw);
		jw_done(&ctx->jw);
	}
	close(fd);
	return EXIT_OK;
}
