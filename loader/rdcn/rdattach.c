// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The circuit switch on live interfaces (docs/rdcn.md):
 *   dcbpf rdcn attach    the switch program (bpf/rdcn.bpf.c) on the ports of
 *                        the circuit-switch namespace, their ToRs recorded,
 *                        optionally a schedule published
 *   dcbpf rdcn publish   a schedule file into the live maps, flipped at the
 *                        next period boundary (dc_rd_publish)
 *   dcbpf rdcn detach    every port detached, the pins removed
 * Pins: PIN_DIR/rdcn/NS (the maps of maps/rdcn.h, the tcx links IF_ingress;
 * `rdcn voq` adds its classifiers' links voq_NS_IF while it runs, voq.c).
 */
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach.h"
#include "bpfsys.h"
#include "cli.h"
#include "clock.h"
#include "counters.h"
#include "pins.h"
#include "rdcn/rdcn.h"
#include "rdcn/rdcncmd.h"
#include "rdcn.skel.h"

#define PATH_LEN 1024

static const char *const rd_maps[] = { "dc_rd_cfg", "dc_rd_sched", "dc_rd_flip", "dc_rd_port",
				       "dc_rd_mac",  "dc_rd_out",   "dc_rd_pcnt", "dc_rd_tor" };

static int rd_dir(char *buf, size_t len, const char *pin_dir, const char *netns, struct dc_err *err)
{
	return dc_pin_ns_dir(buf, len, pin_dir, DC_PIN_RDCN, netns, err);
}

/* Publish FILE through the pinned maps of dir; the flip instant to out. */
static int publish(struct dc_ctx *ctx, const char *dir, const char *file, __u64 guard_ms, unsigned int ports)
{
	static struct dc_rs s;
	struct dc_rd_store st = { 0 };
	__u64 now, at = 0;
	int rc;

	if ((rc = dc_rs_load(file, &s, &ctx->err)))
		return rc;
	if ((rc = dc_rs_validate(&s, s.kind != DC_RS_RR, &ctx->err)))
		return rc;
	if (dc_rd_store_bpf_open(&st, dir, &ctx->err))
		return EXIT_ERR;
	now = dc_mono_ns();
	rc = dc_rd_publish(&st, &s, now, guard_ms * 1000000ULL, &at, &ctx->err);
	dc_rd_store_bpf_close(&st);
	if (rc)
		return rc;
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		if (ports)
			jw_u64(&ctx->jw, "ports", ports);
		jw_str(&ctx->jw, "schedule", file);
		jw_u64(&ctx->jw, "flip_at_ns", at);
		jw_u64(&ctx->jw, "in_ns", at - now);
		jw_u64(&ctx->jw, "tors", s.cfg.ntors);
		jw_u64(&ctx->jw, "uplinks", s.cfg.nup);
		jw_u64(&ctx->jw, "period", s.cfg.period);
		jw_u64(&ctx->jw, "slot_ns", s.cfg.slot_ns);
		jw_u64(&ctx->jw, "day_ns", s.cfg.day_ns);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		fprintf(ctx->out, "%s: %u ToRs, %u uplinks, %u slots of %llu ns (%llu ns day), live at %llu ns "
			"(CLOCK_MONOTONIC, in %.3f ms)\n", file, s.cfg.ntors, s.cfg.nup, s.cfg.period,
			(unsigned long long)s.cfg.slot_ns, (unsigned long long)s.cfg.day_ns,
			(unsigned long long)at, (double)(at - now) / 1e6);
	}
	return 0;
}

static int attach_port(struct rdcn_bpf *o, const char *dir, const char *netns, const struct dc_rd_portspec *p,
		       struct dc_err *err)
{
	struct dc_rd_port port = { .tor = (__u16)p->tor, .up = (__u16)p->up };
	struct dc_rd_mac_key mk = { 0 };
	struct dc_rd_dst d = { .tor = p->tor };
	struct dc_rd_out out = { 0 };
	char pin[PATH_LEN], why[512];
	struct dc_attach at = { .hook = DC_HOOK_TC_INGRESS, .netns = netns, .ifname = p->ifname, .pin_path = pin };
	enum dc_attach_how how;
	__u32 ifindex, prog_id, key = dc_rd_port_key(p->tor, p->up);
	int rc;

	if (dc_ifindex(netns, p->ifname, &ifindex, why, sizeof(why)))
		return dc_err_set(err, EXIT_ERR, "%s", why);
	memcpy(mk.addr, p->mac, 6);
	out.ifindex = ifindex;
	if (bpf_map_update_elem(bpf_map__fd(o->maps.dc_rd_port), &ifindex, &port, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(o->maps.dc_rd_mac), &mk, &d, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(o->maps.dc_rd_out), &key, &out, BPF_ANY))
		return dc_err_set(err, EXIT_ERR, "%s: writing its port entries: %s", p->ifname, strerror(errno));
	if (snprintf(pin, sizeof(pin), "%s/%s_ingress", dir, p->ifname) >= (int)sizeof(pin))
		return dc_err_set(err, EXIT_USAGE, "%s: pin path too long", p->ifname);
	/* attached before (a pinned tcx link, or our cls_bpf filter before
	 * 6.6): the program of that load reads the same pinned maps, so only
	 * the entries change */
	if (dc_exists(pin) || !dc_tc_query(&at, &prog_id))
		return 0;
	/* tcx on 6.6+; clsact + cls_bpf before (found again by detach) */
	rc = dc_attach_prog(bpf_program__fd(o->progs.dc_rd_ref), &at, &how, why, sizeof(why));
	if (rc)
		return dc_err_set(err, EXIT_ERR, "%s", why);
	return 0;
}

int dc_rd_attach_run(struct dc_ctx *ctx, const struct dc_rd_attach_args *a)
{
	static struct dc_rd_portspec ps[DC_OPT_LIST_MAX];
	char dir[PATH_LEN];
	struct rdcn_bpf *o = NULL;
	unsigned int i, j;
	int rc;

	if (!a->ports.n)
		return dc_err_set(&ctx->err, EXIT_USAGE, "at least one --port IF=TOR/UP@MAC");
	for (i = 0; i < a->ports.n; i++) {
		if ((rc = dc_rd_port_parse(a->ports.v[i], &ps[i], &ctx->err)))
			return rc;
		for (j = 0; j < i; j++)
			if (!strcmp(ps[i].ifname, ps[j].ifname) || (ps[i].tor == ps[j].tor && ps[i].up == ps[j].up))
				return dc_err_set(&ctx->err, EXIT_USAGE, "--port %s: interface or (ToR, uplink) "
						  "given twice", a->ports.v[i]);
	}
	if (rd_dir(dir, sizeof(dir), ctx->pin_dir, a->netns, &ctx->err))
		return EXIT_USAGE;
	if ((rc = dc_mkdirs(dir)))
		return dc_err_set(&ctx->err, EXIT_ERR, "cannot create %s: %s", dir, strerror(-rc));
	{
		LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = dir);

		o = rdcn_bpf__open_opts(&oo);
	}
	if (!o || rdcn_bpf__load(o)) {
		rc = dc_err_set(&ctx->err, EXIT_ERR, "loading the circuit switch failed: %s (a pin in %s from "
				"another build: dcbpf rdcn detach, then attach again)", strerror(errno), dir);
		goto out;
	}
	for (i = 0; i < a->ports.n; i++)
		if ((rc = attach_port(o, dir, a->netns, &ps[i], &ctx->err)))
			goto out;
	if (a->schedule) {
		rc = publish(ctx, dir, a->schedule, a->guard_ms, a->ports.n);
	} else if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_u64(&ctx->jw, "ports", a->ports.n);
		jw_str(&ctx->jw, "pin_dir", dir);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		fprintf(ctx->out, "%u port(s) attached in %s; no schedule yet: nothing passes until `dcbpf rdcn "
			"publish`\n", a->ports.n, dir);
	}
out:
	rdcn_bpf__destroy(o);
	return rc;
}

int dc_rd_publish_run(struct dc_ctx *ctx, const struct dc_rd_publish_args *a)
{
	char dir[PATH_LEN];

	if (rd_dir(dir, sizeof(dir), ctx->pin_dir, a->netns, &ctx->err))
		return EXIT_USAGE;
	return publish(ctx, dir, a->file, a->guard_ms, 0);
}

int dc_rd_detach_run(struct dc_ctx *ctx, const struct dc_rd_detach_args *a)
{
	char dir[PATH_LEN], path[PATH_LEN * 2], why[256], names[DC_RD_PORTS][IF_NAMESIZE];
	__u32 key, next, *prev = NULL, n = 0, i, links = 0;
	struct dirent *e;
	unsigned int m;
	int fd, saved;
	size_t len;
	DIR *d;

	if (rd_dir(dir, sizeof(dir), ctx->pin_dir, a->netns, &ctx->err))
		return EXIT_USAGE;
	d = opendir(dir);
	if (!d && errno == ENOENT) {
		if (ctx->json) {
			jw_obj(&ctx->jw, NULL);
			jw_u64(&ctx->jw, "ports", 0);
			jw_end_obj(&ctx->jw);
			jw_done(&ctx->jw);
		}
		return 0;	/* nothing attached */
	}
	if (!d)
		return dc_err_set(&ctx->err, EXIT_ERR, "%s: %s", dir, strerror(errno));
	/* tcx links: their pins, whether or not the device still exists */
	while ((e = readdir(d))) {
		len = strlen(e->d_name);
		/* and the VOQ classifiers of a `rdcn voq` that was killed */
		if ((len > 8 && !strcmp(e->d_name + len - 8, "_ingress")) || !strncmp(e->d_name, "voq_", 4)) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			dc_detach_pinned(path);
			links += e->d_name[0] != 'v';
		}
	}
	closedir(d);
	/* cls_bpf filters (before 6.6): by the ports' names, in the namespace
	 * that holds them (gone with it if it is gone) */
	snprintf(path, sizeof(path), "%s/dc_rd_port", dir);
	fd = bpf_obj_get(path);
	if (fd >= 0 && !links && !dc_netns_enter(a->netns, &saved, why, sizeof(why))) {
		while (n < DC_RD_PORTS && !bpf_map_get_next_key(fd, prev, &next)) {
			if (if_indextoname(next, names[n]))
				n++;
			key = next;
			prev = &key;
		}
		dc_netns_leave(saved);
		for (i = 0; i < n; i++) {
			struct dc_attach at = { .hook = DC_HOOK_TC_INGRESS, .netns = a->netns, .ifname = names[i] };

			dc_detach_netlink(&at);
		}
	}
	if (fd >= 0)
		close(fd);
	for (m = 0; m < sizeof(rd_maps) / sizeof(rd_maps[0]); m++) {
		snprintf(path, sizeof(path), "%s/%s", dir, rd_maps[m]);
		if (unlink(path) && errno != ENOENT)
			return dc_err_set(&ctx->err, EXIT_ERR, "cannot remove %s: %s", path, strerror(errno));
	}
	if (rmdir(dir) && errno != ENOENT)
		return dc_err_set(&ctx->err, EXIT_ERR, "cannot remove %s: %s (something else is pinned there)", dir,
				  strerror(errno));
	/* PIN_DIR/rdcn: removed with the last namespace's directory */
	snprintf(path, sizeof(path), "%s", dir);
	if (strrchr(path, '/'))
		*strrchr(path, '/') = '\0';
	rmdir(path);
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_u64(&ctx->jw, "ports", links + n);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		fprintf(ctx->out, "%u port(s) detached, %s removed\n", links + n, dir);
	}
	return 0;
}

/* `dcbpf rdcn status`: the circuit switch's counters per port (dc_rd_pcnt),
 * a column per port of dc_rd_port and one for frames of interfaces that are
 * no port; JSON: ports[] with tor, up, ifindex and the counters. */
int dc_rd_status_run(struct dc_ctx *ctx, const struct dc_rd_detach_args *a)
{
	static struct dc_rd_pcnt v[DC_RD_PORTS + 1];
	static char names[DC_RD_PORTS + 1][16];
	static const char *cols[DC_RD_PORTS + 1];
	static const void *vals[DC_RD_PORTS + 1];
	static struct dc_rd_port port[DC_RD_PORTS];
	static __u32 ifx[DC_RD_PORTS];
	char dir[PATH_LEN], path[PATH_LEN * 2];
	__u32 key, next, *prev = NULL, n = 0, i, other = DC_RD_PORTS;
	int pfd, cfd, rc = 0;

	if (rd_dir(dir, sizeof(dir), ctx->pin_dir, a->netns, &ctx->err))
		return EXIT_USAGE;
	snprintf(path, sizeof(path), "%s/dc_rd_port", dir);
	pfd = bpf_obj_get(path);
	snprintf(path, sizeof(path), "%s/dc_rd_pcnt", dir);
	cfd = bpf_obj_get(path);
	if (pfd < 0 || cfd < 0) {
		rc = dc_err_set(&ctx->err, EXIT_ERR, "no circuit switch in %s (dcbpf rdcn attach)", dir);
		goto out;
	}
	while (n < DC_RD_PORTS && !bpf_map_get_next_key(pfd, prev, &next)) {
		if (!bpf_map_lookup_elem(pfd, &next, &port[n]))
			ifx[n++] = next;
		key = next;
		prev = &key;
	}
	/* by (ToR, uplink) */
	for (i = 1; i < n; i++) {
		__u32 j = i, kt = dc_rd_port_key(port[i].tor, port[i].up), ki = ifx[i];
		struct dc_rd_port pt = port[i];

		while (j > 0 && dc_rd_port_key(port[j - 1].tor, port[j - 1].up) > kt) {
			port[j] = port[j - 1];
			ifx[j] = ifx[j - 1];
			j--;
		}
		port[j] = pt;
		ifx[j] = ki;
	}
	for (i = 0; i <= n; i++) {
		key = i < n ? dc_rd_port_key(port[i].tor, port[i].up) : other;
		if ((rc = dc_ctr_read(&dc_ctr_rdcn, cfd, key, false, &v[i]))) {
			rc = dc_err_set(&ctx->err, EXIT_ERR, "reading dc_rd_pcnt: %s", strerror(-rc));
			goto out;
		}
		if (i < n)
			snprintf(names[i], sizeof(names[i]), "%u/%u", port[i].tor, port[i].up);
		else
			snprintf(names[i], sizeof(names[i]), "no port");
		cols[i] = names[i];
		vals[i] = &v[i];
	}
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_str(&ctx->jw, "pin_dir", dir);
		jw_arr(&ctx->jw, "ports");
		for (i = 0; i < n; i++) {
			jw_obj(&ctx->jw, NULL);
			jw_u64(&ctx->jw, "tor", port[i].tor);
			jw_u64(&ctx->jw, "up", port[i].up);
			jw_u64(&ctx->jw, "ifindex", ifx[i]);
			dc_ctr_json(&ctx->jw, &dc_ctr_rdcn, &v[i], 0);
			jw_end_obj(&ctx->jw);
		}
		jw_end_arr(&ctx->jw);
		jw_obj(&ctx->jw, "no_port");
		dc_ctr_json(&ctx->jw, &dc_ctr_rdcn, &v[n], 0);
		jw_end_obj(&ctx->jw);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		fprintf(ctx->out, "circuit switch %s: %u port(s), counters per port (ToR/uplink):\n", dir, n);
		dc_ctr_table(ctx->out, &dc_ctr_rdcn, n + 1, cols, vals, 0);
	}
out:
	if (pfd >= 0)
		close(pfd);
	if (cfd >= 0)
		close(cfd);
	return rc;
}
