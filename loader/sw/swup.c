// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf switch up` and `down`: load bpf/switch.bpf.c once for a switch,
 * pin its maps and links under <pin_dir>/sw/<name>/, attach XDP admission
 * to its ports inside its namespace and the qdisc tracker; and take all of
 * it away again.  A failed `up` leaves nothing behind.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <dcbpf/admit.h>
#include "attach.h"
#include "pins.h"
#include "run.h"
#include "sw/swint.h"
#include "switch.skel.h"

static void sw_detach_netlink_ports(struct sw *s, const struct dc_sw_meta *meta)
{
	__u32 i;

	if (!meta->xdp_netlink && meta->nqueues <= 1)
		return;
	for (i = 0; i < DC_SW_PORTS_MAX; i++) {
		struct dc_sw_port p;
		struct dc_attach a = { .hook = DC_HOOK_XDP, .netns = meta->netns,
				       .xdp_flags = meta->xdp_flags };

		if (bpf_map_lookup_elem(s->port, &i, &p) || !p.rate_mbps)
			continue;
		a.ifname = p.ifname;
		if (meta->xdp_netlink)
			dc_detach_netlink(&a);
		/* dc_sw_prio by netlink (kernels without tcx): only our filter
		 * goes, not the clsact qdisc other programs share; where it is
		 * a pinned tcx link there is no such filter and this is a no-op */
		if (meta->nqueues > 1) {
			a.hook = DC_HOOK_TC_EGRESS;
			a.tc_prio = SW_PRIO_TC_PRIO;
			dc_detach_netlink(&a);
		}
	}
}

/*
 * tc(8) inside the switch's namespace; 0, or not 0 with why = its message.
 * HTB's class options are many (rates, bursts in scheduler ticks, r2q):
 * tc computes them as every operator's script does.
 */
static int run_tc(const char *netns, char *const *args, char *why, size_t whylen)
{
	int rc = dc_run_ns("tc", netns, args, why, whylen);

	if (rc == -ENOENT)
		snprintf(why, whylen, "tc(8) not found (iproute2 is needed for --queues)");
	return rc;
}

/*
 * Reverie and SONiC count a packet out when the egress port's root qdisc
 * dequeues it (the tracker's tp_btf/qdisc_dequeue).  A port whose root
 * never queues — veth's noqueue — or bypasses itself while empty (the
 * FIFOs and pfifo_fast, TCQ_F_CAN_BYPASS; mq, whose children are
 * pfifo_fast) hands packets to the device with no dequeue event, so what
 * XDP admitted toward it would stay in the pools until the buffer next
 * empties (docs/admission.md, "Ports need a queue").  NULL: the root
 * queues; else why not, in why.
 */
const char *sw_port_queue_refuse(const char *netns, const char *ifname, char *why, size_t len)
{
	static const char *const bad[] = { "noqueue", "pfifo_fast", "pfifo", "bfifo",
					   "pfifo_head_drop", "mq" };
	char *a[] = { "qdisc", "show", "dev", (char *)ifname, "root", NULL };
	char out[400], kind[32];
	size_t i;

	if (run_tc(netns, a, out, sizeof(out)))
		return snprintf(why, len, "port %s (netns %s): reading its root qdisc failed: %s",
				ifname, netns, out), why;
	/* "qdisc KIND HANDLE: root ..."; no line at all is a device without
	 * a qdisc, i.e. noqueue */
	if (sscanf(out, "qdisc %31s", kind) != 1)
		snprintf(kind, sizeof(kind), "noqueue");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!strcmp(kind, bad[i]))
			break;
	if (i == sizeof(bad) / sizeof(bad[0]))
		return NULL;
	snprintf(why, len,
		 "port %s (netns %s): root qdisc %s %s: no dequeue to count a packet out of the pools; give it a TBF or HTB root (tc qdisc replace dev %s root tbf ...) or use --queues N",
		 ifname, netns, kind, strcmp(kind, "noqueue") ? "bypasses itself while empty" : "does not queue",
		 ifname);
	return why;
}

/* bfifo limit of each leaf: far above any shared buffer the switch takes
 * (B < 2^31), so admission is the only dropper, and finite. */
#define SW_LEAF_LIMIT_BYTES "64000000"

/* Take a half-built HTB off again (the port falls back to its default
 * qdisc: the shaping it had before is not restored). */
static void sw_port_queues_del(const char *netns, const char *ifname)
{
	char msg[64];
	char *a[] = { "qdisc", "del", "dev", (char *)ifname, "root", NULL };

	run_tc(netns, a, msg, sizeof(msg));
}

/*
 * The port's strict-priority queues (docs/admission.md, "Priority
 * queues"): root HTB 1: at the port rate, one inner class 1:100 with the
 * port rate, leaves 1:1 … 1:N borrowing from it, leaf k with HTB prio
 * N − 1 − k (the highest leaf is offered the excess first: strict
 * priority), each with its own bfifo.  An unclassified packet goes to
 * 1:1 (`default 1`), which dc_sw_prio never leaves it in by mistake: it
 * classifies every packet.  The leaves' own rate is the least HTB takes
 * (8 kbit/s), so nearly all of a leaf's rate is borrowed in prio order.
 */
static int sw_port_queues(const char *netns, const char *ifname, __u32 rate_mbps, __u32 nq,
			  char *why, size_t whylen)
{
	char rate[32], cls[16], prio[16], handle[16];
	char msg[400];
	__u32 k;

	snprintf(rate, sizeof(rate), "%umbit", rate_mbps);
	/* the root the port had (the fabric's TBF, say) goes first: a
	 * replace keeping handle 1: cannot change the qdisc's kind */
	sw_port_queues_del(netns, ifname);
	{
		char *a[] = { "qdisc", "add", "dev", (char *)ifname, "root", "handle", "1:",
			      "htb", "default", "1", NULL };
		if (run_tc(netns, a, msg, sizeof(msg)))
			goto fail;
	}
	{
		char *a[] = { "class", "replace", "dev", (char *)ifname, "parent", "1:", "classid",
			      "1:100", "htb", "rate", rate, "ceil", rate, "quantum", "65536", NULL };
		if (run_tc(netns, a, msg, sizeof(msg)))
			goto fail;
	}
	for (k = 0; k < nq; k++) {
		snprintf(cls, sizeof(cls), "1:%x", k + 1);
		snprintf(prio, sizeof(prio), "%u", dc_queue_htb_prio(k, nq));
		snprintf(handle, sizeof(handle), "%x:", k + 10);
		{
			char *a[] = { "class", "replace", "dev", (char *)ifname, "parent", "1:100",
				      "classid", cls, "htb", "rate", "8kbit", "ceil", rate, "prio", prio,
				      "quantum", "65536", NULL };
			if (run_tc(netns, a, msg, sizeof(msg)))
				goto fail;
		}
		{
			char *a[] = { "qdisc", "replace", "dev", (char *)ifname, "parent", cls, "handle",
				      handle, "bfifo", "limit", SW_LEAF_LIMIT_BYTES, NULL };
			if (run_tc(netns, a, msg, sizeof(msg)))
				goto fail;
		}
	}
	return 0;
fail:
	snprintf(why, whylen, "port %s (netns %s): setting up %u HTB queues failed: %s", ifname,
		 netns, nq, msg);
	return -1;
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

/* Unwind a half-started switch: netlink-attached ports, then every pin. */
static int up_fail(struct dc_ctx *ctx, struct switch_bpf *skel, const struct dc_sw_meta *meta,
		   const char *dir)
{
	const char *name = ((const struct sw_up_args *)ctx->opts)->name;
	char why[DC_ERR_MSG_LEN];

	snprintf(why, sizeof(why), "%s", ctx->err.msg);
	if (skel && (meta->xdp_netlink || meta->nqueues > 1)) {
		struct sw s = { .port = bpf_map__fd(skel->maps.dc_sw_port) };

		sw_detach_netlink_ports(&s, meta);
	}
	switch_bpf__destroy(skel);
	sw_remove_dir(ctx->pin_dir, dir);
	dc_err_set(&ctx->err, EXIT_ERR, "switch %s: %s; not started, nothing is left behind", name,
		   why);
	return EXIT_ERR;
}

int sw_cmd_up(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct sw_up_args *a = ctx->opts;
	char ports_arg[DC_SW_PORTS_MAX * DC_SW_IFNAME_LEN], rates_arg[DC_SW_PORTS_MAX * 8];
	char *ifs[DC_SW_PORTS_MAX], *rates[DC_SW_PORTS_MAX];
	const char *name = a->name, *netns = a->netns, *pin_dir = ctx->pin_dir;
	struct bpf_object_open_opts oo = { .sz = sizeof(oo) };
	struct dc_sw_meta meta;
	struct dc_sw_cfg cfg;
	struct dc_sw_state st;
	struct switch_bpf *skel = NULL;
	char dir[DC_PATH_LEN + 64], path[DC_PATH_LEN + 128], why[512], sw_root[DC_PATH_LEN + 8];
	char rvwhy[160];
	__u32 xdp_flags = (__u32)a->xdp_flags, ino, zero = 0, i;
	int nports, nrates = 0, err, k;
	bool created;
	struct bpf_link *lk;

	(void)argc;
	(void)argv;
	memset(&meta, 0, sizeof(meta));
	if (!sw_valid_name(name))
		return dc_fail(ctx, EXIT_USAGE, "'%s' is not a switch name (" SW_NAME_RULE ")", name);
	if (strlen(a->ports) >= sizeof(ports_arg) || (a->rates && strlen(a->rates) >= sizeof(rates_arg)))
		return dc_fail(ctx, EXIT_USAGE, "--%s: longer than %d ports can be",
			       strlen(a->ports) >= sizeof(ports_arg) ? "ports" : "rate-mbps",
			       DC_SW_PORTS_MAX);
	snprintf(ports_arg, sizeof(ports_arg), "%s", a->ports);
	nports = split_list(ports_arg, ifs, DC_SW_PORTS_MAX);
	if (nports <= 0)
		return dc_fail(ctx, EXIT_USAGE, "--ports: 1 to %d interface names, comma separated",
			       DC_SW_PORTS_MAX);
	if (a->rates) {
		snprintf(rates_arg, sizeof(rates_arg), "%s", a->rates);
		nrates = split_list(rates_arg, rates, DC_SW_PORTS_MAX);
		if (nrates != 1 && nrates != nports)
			return dc_fail(ctx, EXIT_USAGE,
				       "--rate-mbps: one rate for all ports or one per port (%d)", nports);
		for (i = 0; i < (__u32)nrates; i++) {
			char *end;
			unsigned long v = strtoul(rates[i], &end, 10);

			if (*end || !v || v > 1000000)
				return dc_fail(ctx, EXIT_USAGE, "--rate-mbps %s: 1..1000000 Mbit/s",
					       rates[i]);
		}
	}
	dc_sw_cfg_defaults(&cfg);
	for (k = 0; k < a->kv.argc; k++)
		if (sw_assign(a->kv.argv[k], &cfg, "", &ctx->err)) {
			dc_err_prefix(&ctx->err, "switch %s not started", name);
			return EXIT_USAGE;
		}
	if (sw_rv_refuse(&cfg, rvwhy, sizeof(rvwhy)))
		return dc_fail(ctx, EXIT_USAGE, "switch %s not started: %s", name, rvwhy);
	if (sw_queues_refuse(a->queues, cfg.alg))
		return dc_fail(ctx, EXIT_USAGE, "switch %s not started: alg=%s: %s", name,
			       sw_alg_name(cfg.alg), sw_queues_refuse(a->queues, cfg.alg));
	if (sw_mode_refuse(a->queues, cfg.prio_mode))
		return dc_fail(ctx, EXIT_USAGE, "switch %s not started: prio_mode=%s: %s", name,
			       sw_pmode_name(cfg.prio_mode), sw_mode_refuse(a->queues, cfg.prio_mode));
	if (dc_netns_ino(netns, &ino, why, sizeof(why)))
		return dc_fail(ctx, EXIT_ERR, "switch %s: %s", name, why);
	for (i = 0; i < (__u32)nports; i++) {
		__u32 ifx;

		if (dc_ifindex(netns, ifs[i], &ifx, why, sizeof(why)))
			return dc_fail(ctx, EXIT_ERR, "switch %s: %s", name, why);
		/* with --queues the port gets its HTB below */
		if ((cfg.alg == DC_ALG_REVERIE || cfg.alg == DC_ALG_SONIC) && a->queues <= 1 &&
		    sw_port_queue_refuse(netns, ifs[i], why, sizeof(why)))
			return dc_fail(ctx, EXIT_USAGE, "switch %s not started: alg=%s: %s", name,
				       sw_alg_name(cfg.alg), why);
	}
	if (sw_dir(pin_dir, name, dir, sizeof(dir)) ||
	    dc_pin_dir(sw_root, sizeof(sw_root), pin_dir, DC_PIN_SW_BASE, NULL))
		return dc_fail(ctx, EXIT_USAGE, "switch %s: the pin directory under %s is too long",
			       name, pin_dir);
	if (dc_exists(dir))
		return dc_fail(ctx, EXIT_ERR, "switch %s is up already (%s); 'dcbpf switch down %s' first",
			       name, dir, name);
	err = dc_bpffs_ensure();
	if (!err)
		err = dc_pin_dir_prepare(dir, &created);
	if (err) {
		rmdir(sw_root);
		return dc_fail(ctx, EXIT_ERR, "switch %s: cannot create %s: %s", name, dir,
			       strerror(-err));
	}

	/* one instance per switch: maps pinned by name in its own directory */
	oo.pin_root_path = dir;
	skel = switch_bpf__open_opts(&oo);
	if (!skel) {
		dc_err_set(&ctx->err, EXIT_ERR, "opening the embedded switch object failed: %s",
			   strerror(errno));
		return up_fail(ctx, skel, &meta, dir);
	}
	skel->rodata->dc_netns_ino = ino;
	err = switch_bpf__load(skel);
	if (err) {
		dc_err_set(&ctx->err, EXIT_ERR,
			   "loading bpf/switch.bpf.o failed: %s (dcbpf --verbose shows the verifier's log; needs a kernel with BTF and bpf_loop, 5.17+)",
			   strerror(-err));
		return up_fail(ctx, skel, &meta, dir);
	}

	/* state first, programs last: nothing runs on an unconfigured switch */
	meta.cfg_slot = 0;
	meta.netns_ino = ino;
	meta.nports = (__u32)nports;
	meta.xdp_flags = xdp_flags;
	meta.nqueues = a->queues > 1 ? a->queues : 1;
	snprintf(meta.netns, sizeof(meta.netns), "%s", netns);
	snprintf(meta.name, sizeof(meta.name), "%s", name);
	memset(&st, 0, sizeof(st));
	st.abm_congested = 1;
	for (i = 0; i < DC_SW_QUEUES_MAX; i++)
		st.abm_congested_q[i] = 1;
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.dc_sw_cfg), &zero, &cfg, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(skel->maps.dc_sw_state), &zero, &st, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(skel->maps.dc_sw_meta), &zero, &meta, BPF_ANY)) {
		dc_err_set(&ctx->err, EXIT_ERR, "writing the initial state failed: %s",
			   strerror(errno));
		return up_fail(ctx, skel, &meta, dir);
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
			dc_err_set(&ctx->err, EXIT_ERR, "port %s: map update failed: %s", ifs[i],
				   strerror(errno));
			return up_fail(ctx, skel, &meta, dir);
		}
	}
	for (i = 0; meta.nqueues > 1 && i < (__u32)nports * DC_SW_QUEUES_MAX; i++) {
		struct dc_sw_queue q;

		if (i % DC_SW_QUEUES_MAX >= meta.nqueues)
			continue;
		memset(&q, 0, sizeof(q));
		q.gamma_q16 = (__u32)DC_Q16_ONE;
		q.classid = dc_queue_classid(i % DC_SW_QUEUES_MAX);
		if (bpf_map_update_elem(bpf_map__fd(skel->maps.dc_sw_queue), &i, &q, BPF_ANY)) {
			dc_err_set(&ctx->err, EXIT_ERR, "queue record %u: map update failed: %s", i,
				   strerror(errno));
			return up_fail(ctx, skel, &meta, dir);
		}
	}
	/* the queues before the tracker: it reads the leaves from the skbs
	 * of the root HTB, whose class ids dc_sw_prio writes */
	for (i = 0; meta.nqueues > 1 && i < (__u32)nports; i++) {
		struct dc_sw_port p;
		struct dc_attach at = { .hook = DC_HOOK_TC_EGRESS, .netns = netns, .ifname = ifs[i],
					.pin_path = path, .no_links = a->no_links,
					.tc_prio = SW_PRIO_TC_PRIO, .link_flags = DC_BPF_F_BEFORE };
		enum dc_attach_how how;

		bpf_map_lookup_elem(bpf_map__fd(skel->maps.dc_sw_port), &i, &p);
		if (sw_port_queues(netns, ifs[i], p.rate_mbps, meta.nqueues, why, sizeof(why))) {
			sw_port_queues_del(netns, ifs[i]);
			dc_err_set(&ctx->err, EXIT_ERR, "%s", why);
			return up_fail(ctx, skel, &meta, dir);
		}
		snprintf(path, sizeof(path), "%s/%s%s", dir, L_PRIO_PREFIX, ifs[i]);
		if (dc_attach_prog(bpf_program__fd(skel->progs.dc_sw_prio), &at, &how, why,
				   sizeof(why))) {
			dc_err_set(&ctx->err, EXIT_ERR, "%s", why);
			return up_fail(ctx, skel, &meta, dir);
		}
	}
	/* the tracker: global tracepoints, filtered on the namespace */
	lk = bpf_program__attach(skel->progs.dc_sw_q_enq);
	dc_pin_path(path, sizeof(path), dir, L_ENQ);
	if (!lk || bpf_link__pin(lk, path)) {
		dc_err_set(&ctx->err, EXIT_ERR,
			   "attaching tp_btf/qdisc_enqueue failed: %s (kernel needs the qdisc tracepoints, 5.10+ for enqueue)",
			   strerror(errno));
		bpf_link__destroy(lk);
		return up_fail(ctx, skel, &meta, dir);
	}
	bpf_link__destroy(lk);
	lk = bpf_program__attach(skel->progs.dc_sw_q_deq);
	dc_pin_path(path, sizeof(path), dir, L_DEQ);
	if (!lk || bpf_link__pin(lk, path)) {
		dc_err_set(&ctx->err, EXIT_ERR, "attaching tp_btf/qdisc_dequeue failed: %s",
			   strerror(errno));
		bpf_link__destroy(lk);
		return up_fail(ctx, skel, &meta, dir);
	}
	bpf_link__destroy(lk);
	for (i = 0; i < (__u32)nports; i++) {
		struct dc_attach at = { .hook = DC_HOOK_XDP, .netns = netns, .ifname = ifs[i],
					.xdp_flags = xdp_flags, .pin_path = path,
					.no_links = a->no_links };
		enum dc_attach_how how;

		snprintf(path, sizeof(path), "%s/%s%s", dir, L_XDP_PREFIX, ifs[i]);
		if (dc_attach_prog(bpf_program__fd(skel->progs.dc_sw_admit), &at, &how, why,
				   sizeof(why))) {
			dc_err_set(&ctx->err, EXIT_ERR, "%s", why);
			return up_fail(ctx, skel, &meta, dir);
		}
		if (how == DC_ATTACHED_NETLINK && !meta.xdp_netlink) {
			meta.xdp_netlink = 1;
			bpf_map_update_elem(bpf_map__fd(skel->maps.dc_sw_meta), &zero, &meta, BPF_ANY);
		}
	}
	switch_bpf__destroy(skel);	/* the pins keep maps and links alive */
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_str(&ctx->jw, "name", name);
		jw_str(&ctx->jw, "netns", netns);
		jw_u64(&ctx->jw, "netns_ino", ino);
		jw_u64(&ctx->jw, "ports", (__u64)nports);
		jw_u64(&ctx->jw, "queues", (__u64)meta.nqueues);
		jw_str(&ctx->jw, "xdp_mode", xdp_flags == XDP_FLAGS_SKB_MODE ? "generic" : "native");
		jw_str(&ctx->jw, "attach", meta.xdp_netlink ? "netlink" : "links");
		jw_str(&ctx->jw, "pinned", dir);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		char qs[48] = "";

		if (meta.nqueues > 1)
			snprintf(qs, sizeof(qs), ", %u strict-priority queues each", meta.nqueues);
		fprintf(ctx->out, "switch %s up: netns %s (inode %u), %d port(s)%s, xdp %s%s, pinned under %s\n",
			name, netns, ino, nports, qs,
			xdp_flags == XDP_FLAGS_SKB_MODE ? "generic" : "native",
			meta.xdp_netlink ? " (netlink)" : " (links)", dir);
	}
	return EXIT_OK;
}

int sw_cmd_down(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct sw_name_args *a = ctx->opts;
	struct dc_sw_meta meta;
	struct sw s;
	__u32 zero = 0;
	char dir[DC_PATH_LEN + 64];

	(void)argc;
	(void)argv;
	if (sw_open(ctx->pin_dir, a->name, &s, &ctx->err))
		return EXIT_ERR;
	memset(&meta, 0, sizeof(meta));
	if (!bpf_map_lookup_elem(s.meta, &zero, &meta))
		sw_detach_netlink_ports(&s, &meta);
	snprintf(dir, sizeof(dir), "%s", s.dir);
	sw_close(&s);
	sw_remove_dir(ctx->pin_dir, dir);
	if (dc_exists(dir))
		return dc_fail(ctx, EXIT_ERR, "switch %s: %s could not be removed completely", a->name,
			       dir);
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_str(&ctx->jw, "name", a->name);
		jw_bool(&ctx->jw, "down", true);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		fprintf(ctx->out, "switch %s down\n", a->name);
	}
	return EXIT_OK;
}
