// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf int …`: in-band telemetry on hosts and switches, the command
 * tables and their work.
 *
 *   int attach [--netns NS] IFACE...     host programs: egress = source + echo,
 *                                        ingress = sink + publication for PowerTCP
 *   int detach [--netns NS] IFACE...
 *   int switch attach|detach NAME        transit hop on every port of switch NAME
 *   int dst add PREFIX [--slots N] [--sample-us U [--sample-qlen-bytes B]]
 *       [--giveup-ms MS] | del PREFIX | list
 *   int status                           counters, destinations
 *
 * Host programs share the daemon's pin dir, so the sender's ingress
 * publishes into the very dc_int_flows PowerTCP reads; their links are
 * pinned under <pin_dir>/int/<netns>/ (inthost.c).  A switch's transit
 * programs load with the switch's pin root (<pin_dir>/sw/<name>/), reusing
 * its port records, and pin their links under <pin_dir>/sw/<name>/int/.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dcbpf/int.h"
#include "dcbpf/switch.h"
#include "attach.h"
#include "bpfsys.h"
#include "cli.h"
#include "config.h"
#include "counters.h"
#include "int/intctl.h"
#include "int/inthost.h"
#include "pins.h"
#include "prefix.h"
#include "int_transit.skel.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* ---- hosts ----------------------------------------------------------------------- */

int dc_int_hosts(const char *pin_dir, const struct dc_int_attach_args *a, bool detach,
		 struct dc_err *err)
{
	struct dc_int_host *h;
	char why[512];
	int i;

	if (detach) {
		for (i = 0; i < a->ifaces.argc; i++)
			dc_int_host_detach(pin_dir, a->netns, a->ifaces.argv[i]);
		dc_int_host_tidy(pin_dir, a->netns);
		return EXIT_OK;
	}
	h = dc_int_host_open(pin_dir, 0, why, sizeof(why));
	if (!h)
		return dc_err_set(err, EXIT_ERR, "%s", why);
	for (i = 0; i < a->ifaces.argc; i++) {
		if (dc_int_host_attach(h, a->netns, a->ifaces.argv[i], a->no_links, why,
				       sizeof(why))) {
			dc_err_set(err, EXIT_ERR, "%s", why);
			/* all or nothing: take back what this call attached */
			while (--i >= 0)
				dc_int_host_detach(pin_dir, a->netns, a->ifaces.argv[i]);
			dc_int_host_close(h);
			dc_int_host_tidy(pin_dir, a->netns);
			return EXIT_ERR;
		}
	}
	dc_int_host_close(h);
	return EXIT_OK;
}

int dc_int_hosts_cmd(struct dc_ctx *ctx, bool detach)
{
	const struct dc_int_attach_args *a = ctx->opts;
	int i, rc = dc_int_hosts(ctx->pin_dir, a, detach, &ctx->err);

	if (rc || !ctx->json)
		return rc;
	jw_obj(&ctx->jw, NULL);
	if (a->netns)
		jw_str(&ctx->jw, "netns", a->netns);
	else
		jw_null(&ctx->jw, "netns");
	jw_arr(&ctx->jw, detach ? "detached" : "attached");
	for (i = 0; i < a->ifaces.argc; i++)
		jw_str(&ctx->jw, NULL, a->ifaces.argv[i]);
	jw_end_arr(&ctx->jw);
	jw_end_obj(&ctx->jw);
	jw_done(&ctx->jw);
	return EXIT_OK;
}

/* attach and detach: one command, told apart by its name */
static bool is_detach(const struct dc_ctx *ctx)
{
	return !strcmp(ctx->cmd->name, "detach");
}

static int hosts_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return dc_int_hosts_cmd(ctx, is_detach(ctx));
}

/* ---- switches ----------------------------------------------------------------------- */

struct sw_args {
	const char *name;
	bool no_links;
};

static void detach_one(enum dc_hook hook, const char *netns, const char *ifname,
		       const char *pin)
{
	struct dc_attach a = { .hook = hook, .netns = netns, .ifname = ifname };

	if (access(pin, F_OK) == 0)
		dc_detach_pinned(pin);
	else
		dc_detach_netlink(&a); /* attached without links (old kernel or --no-links) */
}

/* A switch's ports, from its pinned records; -1 with err set if it is not up. */
static int switch_ports(const char *sw_dir, struct dc_sw_port *ports, int max, char *netns,
			size_t nslen, struct dc_err *err)
{
	char path[DC_PATH_LEN * 3];
	struct dc_sw_meta meta = {};
	__u32 zero = 0, k;
	int fd, n = 0;

	dc_pin_map_path(path, sizeof(path), sw_dir, "dc_sw_meta");
	fd = bpf_obj_get(path);
	if (fd < 0 || bpf_map_lookup_elem(fd, &zero, &meta)) {
		dc_err_set(err, EXIT_ERR, "no switch at %s (dcbpf switch up first): %s", sw_dir,
			   strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	snprintf(netns, nslen, "%s", meta.netns);
	dc_pin_map_path(path, sizeof(path), sw_dir, "dc_sw_port");
	fd = bpf_obj_get(path);
	if (fd < 0) {
		dc_err_set(err, EXIT_ERR, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (k = 0; k < DC_SW_PORTS_MAX && n < max; k++) {
		struct dc_sw_port p;

		if (!bpf_map_lookup_elem(fd, &k, &p) && p.rate_mbps && p.ifname[0])
			ports[n++] = p;
	}
	close(fd);
	return n;
}

/* Take the transit program off ports[0..n-1]. */
static void switch_off(const char *dir, const char *netns, const struct dc_sw_port *ports, int n)
{
	char pin[DC_PATH_LEN * 3];
	int i;

	for (i = 0; i < n; i++)
		if (!dc_link_pin(pin, sizeof(pin), dir, ports[i].ifname, "egress"))
			detach_one(DC_HOOK_TC_EGRESS, netns, ports[i].ifname, pin);
}

static int switch_on(const char *sw_dir, const char *dir, const char *netns,
		     const struct dc_sw_port *ports, int n, bool no_links, struct dc_err *err)
{
	LIBBPF_OPTS(bpf_object_open_opts, o, .pin_root_path = sw_dir);
	char pin[DC_PATH_LEN * 3], why[512];
	struct int_transit_bpf *s;
	enum dc_attach_how how;
	int i, rc = dc_mkdirs(dir);

	if (rc)
		return dc_err_set(err, EXIT_ERR, "cannot create %s: %s", dir, strerror(-rc));
	s = int_transit_bpf__open_opts(&o);
	if (!s || int_transit_bpf__load(s)) {
		dc_err_set(err, EXIT_ERR, "loading the transit program failed: %s", strerror(errno));
		int_transit_bpf__destroy(s);
		return EXIT_ERR;
	}
	for (i = 0; i < n; i++) {
		struct dc_attach a = { .hook = DC_HOOK_TC_EGRESS, .netns = netns,
				       .ifname = ports[i].ifname, .pin_path = pin,
				       .no_links = no_links };

		if (dc_link_pin(pin, sizeof(pin), dir, ports[i].ifname, "egress")) {
			dc_err_set(err, EXIT_ERR, "port %s: cannot pin a link under this name",
				   ports[i].ifname);
			switch_off(dir, netns, ports, i);
			int_transit_bpf__destroy(s);
			return EXIT_ERR;
		}
		if (dc_attach_prog(bpf_program__fd(s->progs.dc_int_xmit), &a, &how, why,
				   sizeof(why))) {
			dc_err_set(err, EXIT_ERR, "%s", why);
			switch_off(dir, netns, ports, i + 1);
			int_transit_bpf__destroy(s);
			return EXIT_ERR;
		}
	}
	int_transit_bpf__destroy(s);
	return EXIT_OK;
}

static int switch_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	bool detach = is_detach(ctx);
	const struct sw_args *a = ctx->opts;
	char sw_dir[DC_PATH_LEN * 2], dir[DC_PATH_LEN * 2 + 8];
	struct dc_sw_port ports[DC_SW_PORTS_MAX];
	char netns[64];
	const char *ns;
	int n, i, rc;

	(void)argc;
	(void)argv;
	if (dc_pin_dir(sw_dir, sizeof(sw_dir), ctx->pin_dir, DC_PIN_SW, a->name) ||
	    dc_pin_dir(dir, sizeof(dir), ctx->pin_dir, DC_PIN_SW_INT, a->name))
		return dc_fail(ctx, EXIT_USAGE, "'%s' is not a switch name (no '/' or '.')", a->name);
	n = switch_ports(sw_dir, ports, DC_SW_PORTS_MAX, netns, sizeof(netns), &ctx->err);
	if (n < 0)
		return EXIT_ERR;
	ns = netns[0] ? netns : NULL;
	if (detach) {
		switch_off(dir, ns, ports, n);
		/* the transit's own maps; the switch's stay */
		dc_pins_unpin(sw_dir, "int_transit", "switch", false, &ctx->err);
		dc_err_clear(&ctx->err);
		rmdir(dir);
		rc = EXIT_OK;
	} else {
		rc = switch_on(sw_dir, dir, ns, ports, n, a->no_links, &ctx->err);
		if (rc)
			dc_err_prefix(&ctx->err, "switch %s", a->name);
	}
	if (rc || !ctx->json)
		return rc;
	jw_obj(&ctx->jw, NULL);
	jw_str(&ctx->jw, "switch", a->name);
	jw_arr(&ctx->jw, detach ? "detached" : "attached");
	for (i = 0; i < n; i++)
		jw_str(&ctx->jw, NULL, ports[i].ifname);
	jw_end_arr(&ctx->jw);
	jw_end_obj(&ctx->jw);
	jw_done(&ctx->jw);
	return EXIT_OK;
}

/* ---- destinations -------------------------------------------------------------------- */

struct dst_args {
	const char *prefix;
	__u32 slots;
	__u32 sample_us;
	__u32 sample_qlen_bytes;
	__u32 giveup_ms;
};

static int open_dst(const char *pin_dir, struct dc_err *err)
{
	char path[DC_PATH_LEN * 2];
	int fd;

	dc_pin_map_path(path, sizeof(path), pin_dir, "dc_int_dst");
	fd = bpf_obj_get(path);
	if (fd < 0)
		dc_err_set(err, EXIT_ERR, "%s not pinned (run `dcbpf int attach` on a host first): %s",
			   path, strerror(errno));
	return fd;
}

/* add and del */
static int dst_change(struct dc_ctx *ctx, int argc, char **argv)
{
	bool add = !strcmp(ctx->cmd->name, "add");
	const struct dst_args *a = ctx->opts;
	struct dc_int_dst_key k = {};
	struct dc_int_dst_cfg v = { .slots = a->slots, .sample_us = a->sample_us,
				    .sample_qlen_bytes = a->sample_qlen_bytes, .giveup_ms = a->giveup_ms };
	int fd, rc = EXIT_OK;

	(void)argc;
	(void)argv;
	if (dc_prefix_parse(a->prefix, &k.addr, &k.prefixlen, &ctx->err))
		return EXIT_USAGE;
	if (add && a->sample_qlen_bytes && !a->sample_us)
		return dc_fail(ctx, EXIT_USAGE, "--sample-qlen-bytes needs --sample-us (it ends sampling while a queue is up)");
	fd = open_dst(ctx->pin_dir, &ctx->err);
	if (fd < 0)
		return EXIT_ERR;
	if (add ? bpf_map_update_elem(fd, &k, &v, BPF_ANY) : bpf_map_delete_elem(fd, &k))
		rc = dc_fail(ctx, EXIT_ERR, "%s: %s", a->prefix, strerror(errno));
	close(fd);
	if (rc || !ctx->json)
		return rc;
	jw_obj(&ctx->jw, NULL);
	jw_str(&ctx->jw, add ? "added" : "deleted", a->prefix);
	if (add) {
		jw_u64(&ctx->jw, "slots", v.slots);
		jw_u64(&ctx->jw, "sample_us", v.sample_us);
		jw_u64(&ctx->jw, "sample_qlen_bytes", v.sample_qlen_bytes);
		jw_u64(&ctx->jw, "giveup_ms", v.giveup_ms);
	}
	jw_end_obj(&ctx->jw);
	jw_done(&ctx->jw);
	return EXIT_OK;
}

/* Every destination: "A.B.C.D/LEN slots N" lines, or a JSON array (key:
 * its name in the object open, NULL at the top). */
static void dst_list(struct dc_ctx *ctx, int fd, const char *key)
{
	struct dc_int_dst_key k, next;
	struct dc_int_dst_cfg v;
	void *prev = NULL;

	if (ctx->json)
		jw_arr(&ctx->jw, key);
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		char p[DC_PREFIX_STRLEN];

		if (!bpf_map_lookup_elem(fd, &next, &v)) {
			dc_prefix_format(p, sizeof(p), next.addr, next.prefixlen);
			if (ctx->json) {
				jw_obj(&ctx->jw, NULL);
				jw_str(&ctx->jw, "prefix", p);
				jw_u64(&ctx->jw, "slots", v.slots);
				jw_u64(&ctx->jw, "sample_us", v.sample_us);
				jw_u64(&ctx->jw, "sample_qlen_bytes", v.sample_qlen_bytes);
				jw_u64(&ctx->jw, "giveup_ms", v.giveup_ms);
				jw_end_obj(&ctx->jw);
			} else {
				fprintf(ctx->out, "%s slots %u", p, v.slots);
				if (v.sample_us)
					fprintf(ctx->out, " sample_us %u sample_qlen_bytes %u", v.sample_us,
						v.sample_qlen_bytes);
				if (v.giveup_ms)
					fprintf(ctx->out, " giveup_ms %u", v.giveup_ms);
				fputc('\n', ctx->out);
			}
		}
		k = next;
		prev = &k;
	}
	if (ctx->json)
		jw_end_arr(&ctx->jw);
}

static int dst_list_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	int fd = open_dst(ctx->pin_dir, &ctx->err);

	(void)argc;
	(void)argv;
	if (fd < 0)
		return EXIT_ERR;
	dst_list(ctx, fd, NULL);
	if (ctx->json)
		jw_done(&ctx->jw);
	close(fd);
	return EXIT_OK;
}

/* ---- status ----------------------------------------------------------------------------- */

/* One counter map: "what: name N ..." (src_gso as "(gso N)" after src_added,
 * as before), or "counters": {...} inside the object open in JSON. */
static bool put_counters(struct dc_ctx *ctx, const char *what, const char *map_path)
{
	struct dc_int_counters c = {};
	__u32 zero = 0;
	unsigned int i;
	int fd = bpf_obj_get(map_path);

	if (fd < 0)
		return false;
	if (bpf_map_lookup_elem(fd, &zero, &c)) {
		close(fd);
		return false;
	}
	close(fd);
	if (ctx->json) {
		jw_obj(&ctx->jw, "counters");
		dc_ctr_json(&ctx->jw, &dc_ctr_int, &c, 0);
		jw_end_obj(&ctx->jw);
		return true;
	}
	fprintf(ctx->out, "%s:", what);
	for (i = 0; i < dc_ctr_int.n; i++) {
		const struct dc_ctr *k = &dc_ctr_int.ctr[i];

		if (!strcmp(k->name, "src_gso"))
			fprintf(ctx->out, " (gso %llu)", (unsigned long long)dc_ctr_get(k, &c));
		else
			fprintf(ctx->out, " %s %llu", k->name, (unsigned long long)dc_ctr_get(k, &c));
	}
	fprintf(ctx->out, "\n");
	return true;
}

static int status_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	char path[DC_PATH_LEN * 3];
	struct dc_err derr = { 0 };
	struct dirent *de;
	DIR *d;
	int fd;

	(void)argc;
	(void)argv;
	dc_pin_map_path(path, sizeof(path), ctx->pin_dir, "dc_int_stats");
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		/* null: no host has INT (the map is pinned with the first) */
		if (access(path, F_OK)) {
			jw_null(&ctx->jw, "hosts");
		} else {
			jw_obj(&ctx->jw, "hosts");
			put_counters(ctx, "hosts", path);
			jw_end_obj(&ctx->jw);
		}
		jw_arr(&ctx->jw, "switches");
	} else {
		put_counters(ctx, "hosts", path);
	}
	dc_pin_dir(path, sizeof(path), ctx->pin_dir, DC_PIN_SW_BASE, NULL);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		char dir[DC_PATH_LEN * 2], sw[DC_PATH_LEN * 3], what[300];

		if (de->d_name[0] == '.' ||
		    dc_pin_dir(dir, sizeof(dir), ctx->pin_dir, DC_PIN_SW, de->d_name) ||
		    dc_pin_map_path(sw, sizeof(sw), dir, "dc_int_xstats"))
			continue;
		snprintf(what, sizeof(what), "switch %s", de->d_name);
		if (ctx->json) {
			/* a switch without INT has no counters map: not listed */
			if (access(sw, F_OK))
				continue;
			jw_obj(&ctx->jw, NULL);
			jw_str(&ctx->jw, "name", de->d_name);
		}
		put_counters(ctx, what, sw);
		if (ctx->json)
			jw_end_obj(&ctx->jw);
	}
	if (d)
		closedir(d);
	if (ctx->json)
		jw_end_arr(&ctx->jw);
	else
		fprintf(ctx->out, "destinations:\n");
	fd = open_dst(ctx->pin_dir, &derr);
	if (fd >= 0) {
		dst_list(ctx, fd, "destinations");
		close(fd);
	} else if (ctx->json) {
		jw_null(&ctx->jw, "destinations");
	} else {
		/* a note, not a failure: no host has INT yet */
		fflush(ctx->out);
		fprintf(ctx->errf, "dcbpf int: %s\n", derr.msg);
	}
	if (ctx->json) {
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	}
	return EXIT_OK;
}

/* ---- tables -------------------------------------------------------------------------------- */

const struct dc_opt dc_int_attach_opts[] = {
	{ "IFACE", 0, DC_OPT_REST, DC_FIELD(struct dc_int_attach_args, ifaces), NULL,
	  .help = "interfaces, all or none", .required = true },
	{ "netns", 0, DC_OPT_STR, DC_FIELD(struct dc_int_attach_args, netns), "NS",
	  .help = "the interfaces' network namespace (default: the caller's)" },
	{ "no-links", 0, DC_OPT_FLAG, DC_FIELD(struct dc_int_attach_args, no_links), NULL,
	  .help = "attach by netlink (clsact) even where tcx links exist" },
	{ NULL },
};

static const struct dc_opt switch_attach_opts[] = {
	{ "NAME", 0, DC_OPT_STR, DC_FIELD(struct sw_args, name), NULL,
	  .help = "the switch (dcbpf switch up)", .required = true, .flags = DC_OPT_F_POS,
	  .umax = 15 },
	{ "no-links", 0, DC_OPT_FLAG, DC_FIELD(struct sw_args, no_links), NULL,
	  .help = "attach by netlink (clsact) even where tcx links exist" },
	{ NULL },
};

static const struct dc_opt switch_detach_opts[] = {
	{ "NAME", 0, DC_OPT_STR, DC_FIELD(struct sw_args, name), NULL,
	  .help = "the switch", .required = true, .flags = DC_OPT_F_POS, .umax = 15 },
	{ NULL },
};

static const struct dc_opt dst_add_opts[] = {
	{ "PREFIX", 0, DC_OPT_STR, DC_FIELD(struct dst_args, prefix), NULL,
	  .help = "IPv4 destination, A.B.C.D[/LEN]", .required = true, .flags = DC_OPT_F_POS },
	{ "slots", 0, DC_OPT_U64, DC_FIELD(struct dst_args, slots), "N",
	  .help = "hop slots to carry (40 bytes of IPv4 options hold 4 hops)",
	  .def = STR(DC_INT_WIRE_MAX_SLOTS), .umin = 1, .umax = DC_INT_WIRE_MAX_SLOTS },
	{ "sample-us", 0, DC_OPT_U64, DC_FIELD(struct dst_args, sample_us), "U",
	  .help = "INT on at most one data segment per flow per U µs (docs/int.md, \"Sampling\"); "
		  "0 = every segment", .def = "0", .umin = 0, .umax = 1000000 },
	{ "sample-qlen-bytes", 0, DC_OPT_U64, DC_FIELD(struct dst_args, sample_qlen_bytes), "B",
	  .help = "with --sample-us: every segment while the flow's newest echo shows a hop queue above B",
	  .def = "0", .umin = 0, .umax = 1U << 30 },
	{ "giveup-ms", 0, DC_OPT_U64, DC_FIELD(struct dst_args, giveup_ms), "MS",
	  .help = "a flow whose INT brings no echo back for MS ms is sent without the option for a while "
		  "(routers that drop IP options; docs/int.md); 0 = never",
	  .def = "0", .umin = 0, .umax = 60000 },
	{ NULL },
};

static const struct dc_opt dst_del_opts[] = {
	{ "PREFIX", 0, DC_OPT_STR, DC_FIELD(struct dst_args, prefix), NULL,
	  .help = "IPv4 destination, A.B.C.D[/LEN]", .required = true, .flags = DC_OPT_F_POS },
	{ NULL },
};

static const struct dc_opt no_opts[] = { { NULL } };

#define ROOT DC_CMD_F_ROOT

static const struct dc_cmd switch_cmds[] = {
	{ "attach", switch_cmd, switch_attach_opts, sizeof(struct sw_args),
	  .summary = "transit hop on every port of a switch", .flags = ROOT },
	{ "detach", switch_cmd, switch_detach_opts, sizeof(struct sw_args),
	  .summary = "take the transit hop off every port", .flags = ROOT },
	{ NULL },
};

static const struct dc_cmd dst_cmds[] = {
	{ "add", dst_change, dst_add_opts, sizeof(struct dst_args),
	  .summary = "carry INT to a destination prefix", .flags = ROOT },
	{ "del", dst_change, dst_del_opts, sizeof(struct dst_args),
	  .summary = "stop carrying INT to a prefix", .flags = ROOT },
	{ "list", dst_list_cmd, no_opts, 0, .summary = "the destination prefixes", .flags = ROOT },
	{ NULL },
};

const struct dc_cmd dc_int_cmds[] = {
	{ "attach", hosts_cmd, dc_int_attach_opts, sizeof(struct dc_int_attach_args),
	  .summary = "host programs on interfaces (source, echo, sink)", .flags = ROOT },
	{ "detach", hosts_cmd, dc_int_attach_opts, sizeof(struct dc_int_attach_args),
	  .summary = "take the host programs off interfaces", .flags = ROOT },
	{ "switch", .sub = switch_cmds, .summary = "INT transit on an emulated switch" },
	{ "dst", .sub = dst_cmds, .summary = "destinations that get INT" },
	{ "status", status_cmd, no_opts, 0,
	  .summary = "counters of hosts and switches, destinations", .flags = ROOT },
	{ NULL },
};
