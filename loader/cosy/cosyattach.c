// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The cosy switch on live interfaces (docs/cosy.md, "The switch on live
 * ports"):
 *   dcbpf cosy attach   bpf/cosy.bpf.c at TC ingress of every port of a
 *                       switch namespace; K, mode, δ_cosy, ports, routes
 *                       written; optionally an HTB root per port whose
 *                       strict-priority class carries the control packets
 *   dcbpf cosy detach   all of it removed
 * (dcbpf cosy status, reading what attach pinned: cosystatus.c)
 * Pins: PIN_DIR/cosy/NS (maps by name, tcx links as IF_ingress): one
 * directory per namespace, since ports are ifindexes and ifindexes repeat
 * across namespaces.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dcbpf/cosy.h"
#include "attach.h"
#include "bpfsys.h"
#include "cli.h"
#include "clock.h"
#include "config.h"
#include "pins.h"
#include "cosy/cosycmd.h"
#include "cosy/cosysw.h"
#include "run.h"
#include "cosy.skel.h"

/* The netlink (clsact) filter's priority and handle on kernels without
 * tcx: its own, so INT's filter (0xdcb) on the same port is left alone. */
#define COSY_TC_PRIO 0xc05
/* The control-class HTB root's handle: detach removes only a root with it. */
#define COSY_HTB_HANDLE "c05:"

static const char *const cosy_maps[] = { "dc_cosy_cfg", "dc_cosy_port", "dc_cosy_ifport",
					   "dc_cosy_route", "dc_cosy_stats" };

const char *cosy_ns_label(const char *netns)
{
	return netns && *netns ? netns : "(own)";
}

/* PIN_DIR/cosy/NS ("host" for our own namespace). */
int cosy_dir(char *buf, size_t len, const char *pin_dir, const char *netns, struct dc_err *err)
{
	const char *ns = netns && *netns ? netns : "host";
	int n;

	if (strpbrk(ns, "/."))
		return dc_err_set(err, EXIT_USAGE, "--netns %s: not usable as a pin directory name "
				  "(bpffs takes no '/' or '.')", ns);
	n = snprintf(buf, len, "%s/cosy/%s", pin_dir, ns);
	if (n < 0 || (size_t)n >= len)
		return dc_err_set(err, EXIT_USAGE, "pin directory %s/cosy/%s: too long", pin_dir, ns);
	return 0;
}

/* tc(8) in netns (NULL: ours); its message in why on failure. */
static int run_tc(const char *netns, char *const *args, char *why, size_t whylen)
{
	int rc = dc_run_ns("tc", netns, args, why, whylen);

	if (rc == -ENOENT)
		snprintf(why, whylen, "tc(8) not found (iproute2 is needed for --ctrl-mbit)");
	return rc;
}

/* ---- attach --------------------------------------------------------------- */

struct port_spec {
	char ifname[IF_NAMESIZE];
	__u32 ifindex;
	__u8 mac[6], peer_mac[6];
	bool attached, netlink, htb;
};

struct host_route {
	__u32 addr;
	struct dc_cosy_route rt;
};

static int parse_mac(const char *s, __u8 *mac)
{
	unsigned int b[6];
	char tail;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &tail) != 6)
		return -1;
	for (int i = 0; i < 6; i++) {
		if (b[i] > 0xff)
			return -1;
		mac[i] = (__u8)b[i];
	}
	return 0;
}

/* ifindex and address of ifname in netns (SIOCGIFHWADDR inside it: /sys
 * shows the namespace sysfs was mounted in, not ours after setns). */
static int port_lookup(const char *netns, struct port_spec *p, char *why, size_t whylen)
{
	struct ifreq ifr;
	int saved, fd, rc;

	if (dc_ifindex(netns, p->ifname, &p->ifindex, why, whylen))
		return -1;
	rc = dc_netns_enter(netns, &saved, why, whylen);
	if (rc)
		return -1;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", p->ifname);
	rc = fd < 0 || ioctl(fd, SIOCGIFHWADDR, &ifr) ? -1 : 0;
	if (rc)
		snprintf(why, whylen, "port %s (netns %s): reading its address: %s", p->ifname,
			 cosy_ns_label(netns), strerror(errno));
	else
		memcpy(p->mac, ifr.ifr_hwaddr.sa_data, 6);
	if (fd >= 0)
		close(fd);
	dc_netns_leave(saved);
	return rc;
}

static int add_route(struct host_route *hr, __u32 *nh, __u32 addr, __u32 port)
{
	__u32 i;

	for (i = 0; i < *nh && hr[i].addr != addr; i++)
		;
	if (i == *nh) {
		if (*nh >= ROUTES_MAX)
			return -ENOSPC;
		memset(&hr[i], 0, sizeof(hr[i]));
		hr[i].addr = addr;
		(*nh)++;
	}
	for (__u32 c = 0; c < hr[i].rt.nports; c++)
		if (hr[i].rt.port[c] == port)
			return -EEXIST;
	if (hr[i].rt.nports >= DC_COSY_CAND_MAX)
		return -E2BIG;
	hr[i].rt.port[hr[i].rt.nports++] = (__u16)port;
	return 0;
}

/* "IF,PEER_MAC,HOST[,HOST...]": port p, every host it leads to. */
static int parse_port(struct dc_ctx *ctx, const char *spec, __u32 p, struct port_spec *ps,
		      struct host_route *hr, __u32 *nh)
{
	const struct dc_cosy_attach_args *a = ctx->opts;
	char buf[4096], why[256], *save = NULL, *tok;
	int i = 0, rc;
	__u32 addr;

	if (strlen(spec) >= sizeof(buf))
		return dc_fail(ctx, EXIT_USAGE, "--port %.40s...: too long", spec);
	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save), i++) {
		if (i == 0) {
			if (strlen(tok) >= IF_NAMESIZE)
				return dc_fail(ctx, EXIT_USAGE, "--port %s: interface name '%s' too long",
					       spec, tok);
			snprintf(ps->ifname, sizeof(ps->ifname), "%s", tok);
		} else if (i == 1) {
			if (parse_mac(tok, ps->peer_mac))
				return dc_fail(ctx, EXIT_USAGE, "--port %s: '%s' is not a MAC address "
					       "(the neighbour's, aa:bb:cc:dd:ee:ff)", spec, tok);
		} else {
			if (inet_pton(AF_INET, tok, &addr) != 1)
				return dc_fail(ctx, EXIT_USAGE, "--port %s: host '%s' is not an IPv4 "
					       "address", spec, tok);
			rc = add_route(hr, nh, addr, p);
			if (rc == -EEXIST)
				return dc_fail(ctx, EXIT_USAGE, "--port %s: host %s listed twice", spec, tok);
			if (rc == -E2BIG)
				return dc_fail(ctx, EXIT_USAGE, "host %s: more than %d candidate ports",
					       tok, DC_COSY_CAND_MAX);
			if (rc)
				return dc_fail(ctx, EXIT_USAGE, "more than %d hosts", ROUTES_MAX);
		}
	}
	if (i < 3)
		return dc_fail(ctx, EXIT_USAGE, "--port %s: want IF,PEER_MAC,HOST[,HOST...] (the "
			       "hosts a shortest path reaches through IF)", spec);
	if (strpbrk(ps->ifname, "."))
		return dc_fail(ctx, EXIT_USAGE, "--port %s: '%s' cannot be a pin name (bpffs takes no "
			       "'.')", spec, ps->ifname);
	if (port_lookup(a->netns, ps, why, sizeof(why)))
		return dc_fail(ctx, EXIT_USAGE, "--port %s: %s", spec, why);
	return 0;
}

/* The port's root becomes HTB COSY_HTB_HANDLE at mbit: class :1 (prio 0,
 * strict priority) for cosy control packets, :2 (prio 1, the default) for
 * data and everything else, both borrowing up to the port rate.  The
 * filters read the IPv4 header without options, UDP port 17263 either
 * way, and the cosy type byte: data (6) is best effort, the rest control. */
static int port_htb(const char *netns, const char *ifname, __u64 mbit, char *why, size_t whylen)
{
	char rate[32], udp[8], port[8], ty[8];
	static const char *const pos[] = { "20", "22" };	/* sport, dport */
	char *ifn = (char *)ifname;
	char msg[400];
	int f;

	snprintf(rate, sizeof(rate), "%llumbit", (unsigned long long)mbit);
	snprintf(udp, sizeof(udp), "%d", 17);
	snprintf(port, sizeof(port), "%d", DC_COSY_UDP_PORT);
	snprintf(ty, sizeof(ty), "%d", DC_COSY_T_DATA);
	{
		char *q[] = { "qdisc", "add", "dev", ifn, "root", "handle", COSY_HTB_HANDLE, "htb",
			      "default", "2", NULL };
		if (run_tc(netns, q, msg, sizeof(msg)))
			goto fail;
	}
	{
		char *c[] = { "class", "add", "dev", ifn, "parent", COSY_HTB_HANDLE, "classid", "c05:100",
			      "htb", "rate", rate, "ceil", rate, NULL };
		if (run_tc(netns, c, msg, sizeof(msg)))
			goto fail;
	}
	for (f = 1; f <= 2; f++) {
		char cls[16], prio[4];

		snprintf(cls, sizeof(cls), "c05:%d", f);
		snprintf(prio, sizeof(prio), "%d", f - 1);
		char *c[] = { "class", "add", "dev", ifn, "parent", "c05:100", "classid", cls, "htb",
			      "rate", "8kbit", "ceil", rate, "prio", prio, NULL };
		if (run_tc(netns, c, msg, sizeof(msg)))
			goto fail;
	}
	for (f = 0; f < 2; f++) {
		char *d[] = { "filter", "add", "dev", ifn, "parent", COSY_HTB_HANDLE, "protocol", "ip",
			      "prio", "1", "u32", "match", "u8", udp, "0xff", "at", "9", "match", "u16",
			      port, "0xffff", "at", (char *)pos[f], "match", "u8", ty, "0xff", "at", "29",
			      "flowid", "c05:2", NULL };
		char *c[] = { "filter", "add", "dev", ifn, "parent", COSY_HTB_HANDLE, "protocol", "ip",
			      "prio", "2", "u32", "match", "u8", udp, "0xff", "at", "9", "match", "u16",
			      port, "0xffff", "at", (char *)pos[f], "flowid", "c05:1", NULL };
		if (run_tc(netns, d, msg, sizeof(msg)) || run_tc(netns, c, msg, sizeof(msg)))
			goto fail;
	}
	return 0;
fail:
	snprintf(why, whylen, "port %s (netns %s): the control class (HTB): %s", ifname, cosy_ns_label(netns),
		 msg);
	return -1;
}

/* Our HTB root off the port, if it is ours (the kernel checks the handle). */
static void port_htb_del(const char *netns, const char *ifname)
{
	char msg[200];
	char *q[] = { "qdisc", "del", "dev", (char *)ifname, "root", "handle", COSY_HTB_HANDLE, NULL };

	run_tc(netns, q, msg, sizeof(msg));
}

static void port_detach(const char *netns, const char *dir, const char *ifname)
{
	struct dc_attach at = { .hook = DC_HOOK_TC_INGRESS, .netns = netns, .ifname = ifname,
				.tc_prio = COSY_TC_PRIO };
	char pin[DC_PATH_LEN * 3];
	__u32 id;

	if (!dc_link_pin(pin, sizeof(pin), dir, ifname, "ingress"))
		dc_detach_pinned(pin);
	if (!dc_tc_query(&at, &id))
		dc_detach_netlink(&at);
}

/* Every map pin and the directories, as far as they are ours and empty. */
static int remove_pins(const char *pin_dir, const char *dir, struct dc_err *err)
{
	char path[DC_PATH_LEN * 3];
	unsigned int i;

	for (i = 0; i < sizeof(cosy_maps) / sizeof(cosy_maps[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, cosy_maps[i]);
		if (unlink(path) && errno != ENOENT)
			return dc_err_set(err, EXIT_ERR, "cannot remove %s: %s", path, strerror(errno));
	}
	if (rmdir(dir) && errno != ENOENT)
		return dc_err_set(err, EXIT_ERR, "cannot remove %s: %s (something else is pinned there)",
				  dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/cosy", pin_dir);
	rmdir(path);	/* only when empty: other namespaces keep theirs */
	return 0;
}

#define AA struct dc_cosy_attach_args
const struct dc_opt dc_cosy_attach_opts[] = {
	{ "port", 'p', DC_OPT_LIST, DC_FIELD(AA, ports), "IF,PEER_MAC,HOST[,HOST...]",
	  .help = "a port (repeat; port numbers in order): its neighbour's MAC and every host a "
		  "shortest path reaches through it", .required = true },
	{ "k", 'k', DC_OPT_U64, DC_FIELD(AA, k), "K",
	  .help = "virtual links per link (when not given: 4, with --rsvp 1)", .umin = 1, .umax = DC_COSY_K_MAX },
	{ "expiry-ns", 'e', DC_OPT_U64, DC_FIELD(AA, expiry_ns), "NS",
	  .help = "delta_cosy: an unreleased VL frees itself this long after its rsvp "
		  "(dcbpf cosy bounds: delta_cosy_ns)", .required = true, .umin = 1,
	  .umax = 1000000000000000ULL },
	{ "rsvp", 0, DC_OPT_FLAG, DC_FIELD(AA, rsvp),
	  .help = "the RSVP baseline (section 3.2): one virtual link per link" },
	{ "switch-id", 'i', DC_OPT_U64, DC_FIELD(AA, switch_id), "N",
	  .help = "the id the rejects this switch makes carry", .def = "1", .umax = 65535 },
	{ "ctrl-mbit", 0, DC_OPT_U64, DC_FIELD(AA, ctrl_mbit), "MBIT",
	  .help = "every port's root becomes an HTB at this rate, cosy control packets in a "
		  "strict-priority class (0: the ports' qdiscs are left as they are)",
	  .def = "0", .umax = 4000000 },
	{ "netns", 'n', DC_OPT_STR, DC_FIELD(AA, netns), "NS",
	  .help = "the switch's network namespace (name in /var/run/netns); default: our own" },
	{ NULL },
};
#undef AA

#define NA struct dc_cosy_ns_args
const struct dc_opt dc_cosy_ns_opts[] = {
	{ "netns", 'n', DC_OPT_STR, DC_FIELD(NA, netns), "NS",
	  .help = "the switch's network namespace; default: our own" },
	{ NULL },
};
#undef NA

int dc_cosy_attach_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	static struct host_route hr[ROUTES_MAX];
	struct port_spec ps[DC_OPT_LIST_MAX];
	char dir[DC_PATH_LEN * 2], pin[DC_PATH_LEN * 3], why[512];
	struct dc_cosy_cfg cfg;
	struct cosy_bpf *s = NULL;
	const struct dc_cosy_attach_args *a = ctx->opts;
	__u32 np = a->ports.n, nh = 0, p, q, zero = 0;
	int rc = 0, cfd, pfd, ifd, rfd;

	(void)argc;
	(void)argv;

	if (a->rsvp && a->k > 1)
		return dc_fail(ctx, EXIT_USAGE, "--rsvp is the baseline with one virtual link per link; "
			       "-k %llu contradicts it", (unsigned long long)a->k);
	if (cosy_dir(dir, sizeof(dir), ctx->pin_dir, a->netns, &ctx->err))
		return ctx->err.code;
	memset(ps, 0, sizeof(ps));
	for (p = 0; p < np; p++) {
		rc = parse_port(ctx, a->ports.v[p], p, &ps[p], hr, &nh);
		if (rc)
			return rc;
		for (q = 0; q < p; q++)
			if (ps[q].ifindex == ps[p].ifindex)
				return dc_fail(ctx, EXIT_USAGE, "--port %s: %s is port %u already",
					       a->ports.v[p], ps[p].ifname, q);
	}
	snprintf(pin, sizeof(pin), "%s/dc_cosy_cfg", dir);
	if (dc_exists(pin) || dc_exists(dir))
		return dc_fail(ctx, EXIT_ERR, "cosy is already attached in netns %s (%s): 'dcbpf cosy "
			       "detach%s%s' first", cosy_ns_label(a->netns), dir, a->netns ? " --netns " : "",
			       a->netns ? a->netns : "");
	rc = dc_mkdirs(dir);
	if (rc)
		return dc_fail(ctx, EXIT_ERR, "cannot create %s: %s", dir, strerror(-rc));
	{
		LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = dir);

		s = cosy_bpf__open_opts(&oo);
	}
	if (!s || cosy_bpf__load(s)) {
		rc = dc_fail(ctx, EXIT_ERR, "loading the cosy switch program failed: %s", strerror(errno));
		goto undo;
	}
	cfd = bpf_map__fd(s->maps.dc_cosy_cfg);
	pfd = bpf_map__fd(s->maps.dc_cosy_port);
	ifd = bpf_map__fd(s->maps.dc_cosy_ifport);
	rfd = bpf_map__fd(s->maps.dc_cosy_route);
	memset(&cfg, 0, sizeof(cfg));
	cfg.k = a->rsvp ? 1 : a->k ? (__u32)a->k : 4;
	cfg.mode = a->rsvp ? DC_COSY_MODE_RSVP : DC_COSY_MODE_COSY;
	cfg.expiry_ns = a->expiry_ns;
	cfg.switch_id = (__u16)a->switch_id;
	if (bpf_map_update_elem(cfd, &zero, &cfg, BPF_ANY)) {
		rc = dc_fail(ctx, EXIT_ERR, "writing dc_cosy_cfg: %s", strerror(errno));
		goto undo;
	}
	for (p = 0; p < np; p++) {
		struct dc_cosy_port pt;

		memset(&pt, 0, sizeof(pt));
		pt.ifindex = ps[p].ifindex;
		memcpy(pt.mac, ps[p].mac, 6);
		memcpy(pt.peer_mac, ps[p].peer_mac, 6);
		if (bpf_map_update_elem(pfd, &p, &pt, BPF_ANY) ||
		    bpf_map_update_elem(ifd, &ps[p].ifindex, &p, BPF_ANY)) {
			rc = dc_fail(ctx, EXIT_ERR, "writing port %s: %s", ps[p].ifname, strerror(errno));
			goto undo;
		}
	}
	for (__u32 i = 0; i < nh; i++)
		if (bpf_map_update_elem(rfd, &hr[i].addr, &hr[i].rt, BPF_ANY)) {
			rc = dc_fail(ctx, EXIT_ERR, "writing the routes: %s", strerror(errno));
			goto undo;
		}
	/* the control class before the program: no control packet the
	 * program marks goes out unclassified */
	if (a->ctrl_mbit)
		for (p = 0; p < np; p++) {
			if (port_htb(a->netns, ps[p].ifname, a->ctrl_mbit, why, sizeof(why))) {
				ps[p].htb = true;	/* half built: take it off */
				rc = dc_fail(ctx, EXIT_ERR, "%s", why);
				goto undo;
			}
			ps[p].htb = true;
		}
	for (p = 0; p < np; p++) {
		struct dc_attach at = { .hook = DC_HOOK_TC_INGRESS, .netns = a->netns,
					.ifname = ps[p].ifname, .pin_path = pin, .tc_prio = COSY_TC_PRIO };
		enum dc_attach_how how;

		if (dc_link_pin(pin, sizeof(pin), dir, ps[p].ifname, "ingress")) {
			rc = dc_fail(ctx, EXIT_USAGE, "%s: pin path too long", ps[p].ifname);
			goto undo;
		}
		if (dc_attach_prog(bpf_program__fd(s->progs.dc_cosy_ingress), &at, &how, why, sizeof(why))) {
			rc = dc_fail(ctx, EXIT_ERR, "%s", why);
			goto undo;
		}
		ps[p].attached = true;
		ps[p].netlink = how == DC_ATTACHED_NETLINK;
	}
	cosy_bpf__destroy(s);
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_str(&ctx->jw, "netns", cosy_ns_label(a->netns));
		jw_u64(&ctx->jw, "ports", np);
		jw_u64(&ctx->jw, "hosts", nh);
		jw_u64(&ctx->jw, "k", cfg.k);
		jw_str(&ctx->jw, "mode", a->rsvp ? "rsvp" : "cosy");
		jw_str(&ctx->jw, "attach", ps[0].netlink ? "netlink" : "tcx");
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		fprintf(ctx->out, "cosy attached in netns %s: %u ports, %u hosts, K %u (%s), expiry %llu ns%s (%s)\n",
			cosy_ns_label(a->netns), np, nh, cfg.k, a->rsvp ? "RSVP" : "cosy",
			(unsigned long long)cfg.expiry_ns, a->ctrl_mbit ? ", control class on every port" : "",
			ps[0].netlink ? "netlink" : "tcx");
	}
	return EXIT_OK;
undo:
	/* a refused attach leaves nothing attached or pinned */
	for (p = 0; p < np; p++) {
		if (ps[p].attached)
			port_detach(a->netns, dir, ps[p].ifname);
		if (ps[p].htb)
			port_htb_del(a->netns, ps[p].ifname);
	}
	cosy_bpf__destroy(s);
	{
		struct dc_err e2 = { 0 };

		remove_pins(ctx->pin_dir, dir, &e2);
	}
	snprintf(why, sizeof(why), "%s", ctx->err.msg);
	dc_err_set(&ctx->err, rc ? rc : EXIT_ERR, "%s; nothing is left attached or pinned", why);
	return ctx->err.code;
}

/* ---- detach --------------------------------------------------------------- */

/* The configured ports' names, read in the switch's namespace. */
unsigned int cosy_port_names(const char *netns, int pfd, char (*names)[IF_NAMESIZE], __u32 *nums,
			     struct dc_cosy_port *pts)
{
	unsigned int n = 0;
	char why[256];
	int saved = -1;

	if (dc_netns_enter(netns, &saved, why, sizeof(why)))
		saved = -1;
	for (__u32 p = 0; p < PORTS_MAX; p++) {
		struct dc_cosy_port pt;

		if (bpf_map_lookup_elem_flags(pfd, &p, &pt, BPF_F_LOCK) || !pt.ifindex)
			continue;
		if (!if_indextoname(pt.ifindex, names[n]))
			snprintf(names[n], IF_NAMESIZE, "if%u", pt.ifindex);
		nums[n] = p;
		if (pts)
			pts[n] = pt;
		n++;
	}
	if (saved >= 0)
		dc_netns_leave(saved);
	return n;
}

int dc_cosy_detach_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct dc_cosy_ns_args *a = ctx->opts;
	char dir[DC_PATH_LEN * 2], path[DC_PATH_LEN * 3], names[PORTS_MAX][IF_NAMESIZE];
	__u32 nums[PORTS_MAX];
	unsigned int n = 0, i;
	int pfd;

	(void)argc;
	(void)argv;

	if (cosy_dir(dir, sizeof(dir), ctx->pin_dir, a->netns, &ctx->err))
		return ctx->err.code;
	if (!dc_exists(dir))
		return dc_fail(ctx, EXIT_ERR, "cosy is not attached in netns %s (no %s)", cosy_ns_label(a->netns),
			       dir);
	snprintf(path, sizeof(path), "%s/dc_cosy_port", dir);
	pfd = bpf_obj_get(path);
	if (pfd >= 0) {
		n = cosy_port_names(a->netns, pfd, names, nums, NULL);
		close(pfd);
	}
	for (i = 0; i < n; i++) {
		port_detach(a->netns, dir, names[i]);
		port_htb_del(a->netns, names[i]);
	}
	if (remove_pins(ctx->pin_dir, dir, &ctx->err))
		return ctx->err.code;
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_str(&ctx->jw, "netns", cosy_ns_label(a->netns));
		jw_u64(&ctx->jw, "ports", n);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		fprintf(ctx->out, "cosy detached in netns %s: %u ports\n", cosy_ns_label(a->netns), n);
	}
	return EXIT_OK;
}
