// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf perc oracle`, `sim`, `attach`, `detach`, `set`, `host` and `status`
 * (docs/perc.md): option tables and output; the live side is perchost.c.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "perc/perccmd.h"
#include "perc/percsim.h"
#include "perc/perchost.h"
#include "dcbpf/perchost.h"

struct perc_oracle_args {
	const char *topo;
};

struct perc_sim_args {
	const char *topo;
	int alg;
	__u64 seed;
	__u64 delay_min_ns, delay_max_ns;
	double drop, drop_until, rto, rounds;
	bool rn_literal;
};

#define OA struct perc_oracle_args
static const struct dc_opt oracle_opts[] = {
	{ "topo", 't', DC_OPT_PATH, DC_FIELD(OA, topo), "FILE", .help = "topology file (docs/perc.md)",
	  .required = true, .flags = DC_OPT_F_EXISTS },
	{ NULL },
};
#undef OA

enum { ALG_SPERC, ALG_STAR, ALG_NPERC };
static const struct dc_opt_name alg_names[] = {
	{ "s-perc", ALG_SPERC }, { "s-perc-star", ALG_STAR }, { "n-perc", ALG_NPERC }, { NULL },
};

#define SA struct perc_sim_args
static const struct dc_opt sim_opts[] = {
	{ "topo", 't', DC_OPT_PATH, DC_FIELD(SA, topo), "FILE", .help = "topology file (docs/perc.md)",
	  .required = true, .flags = DC_OPT_F_EXISTS },
	{ "alg", 0, DC_OPT_ENUM, DC_FIELD(SA, alg), NULL, .help = "link algorithm", .def = "s-perc-star",
	  .names = alg_names },
	{ "seed", 0, DC_OPT_U64, DC_FIELD(SA, seed), "S", .help = "seed of delays, phases and drops",
	  .def = "1" },
	{ "delay-min-ns", 0, DC_OPT_U64, DC_FIELD(SA, delay_min_ns), "NS", .help = "per-hop delay, least",
	  .def = "1000", .umax = 1000000000 },
	{ "delay-max-ns", 0, DC_OPT_U64, DC_FIELD(SA, delay_max_ns), "NS",
	  .help = "per-hop delay, most (round = (2 x longest path + 1) x this)", .def = "2000", .umin = 1,
	  .umax = 1000000000 },
	{ "drop", 0, DC_OPT_DOUBLE, DC_FIELD(SA, drop), "P", .help = "per-hop control packet loss",
	  .def = "0", .dmin = 0, .dmax = 1, .flags = DC_OPT_F_MAX_EXCL },
	{ "drop-until", 0, DC_OPT_DOUBLE, DC_FIELD(SA, drop_until), "ROUNDS",
	  .help = "losses only before this time", .def = "0", .dmin = 0, .dmax = 1e6 },
	{ "rto", 0, DC_OPT_DOUBLE, DC_FIELD(SA, rto), "ROUNDS",
	  .help = "a sender restarts a flow whose control packet is this late (0: never)", .def = "2.02",
	  .dmin = 0, .dmax = 1e6 },
	{ "rounds", 0, DC_OPT_DOUBLE, DC_FIELD(SA, rounds), "ROUNDS",
	  .help = "run this long after the last start, fin or loss", .def = "60", .dmin = 0, .dmax = 1e6,
	  .flags = DC_OPT_F_MIN_EXCL },
	{ "rn-literal", 0, DC_OPT_FLAG, DC_FIELD(SA, rn_literal),
	  .help = "s-PERC*: roundNumber[l] + 1 as Alg. 8 line 36 prints it (slow after drops)" },
	{ NULL },
};
#undef SA

static const char *fmt_kbps(char *buf, size_t len, __u64 kbps)
{
	if (kbps >= DC_PERC_INF_KBPS)
		snprintf(buf, len, "inf");
	else
		snprintf(buf, len, "%llu", (unsigned long long)kbps);
	return buf;
}

static void jw_dbl(struct jw *j, const char *key, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.3f", v);
	jw_raw(j, key, buf);
}

static int oracle_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct perc_oracle_args *o = ctx->opts;
	struct dc_pt_topo t;
	struct dc_pt_oracle w1 = { 0 }, w2 = { 0 }, wi = { 0 };
	char b[32];
	__u32 f, h;
	int rc;

	(void)argc;
	(void)argv;
	rc = dc_pt_load(o->topo, &t, &ctx->err);
	if (rc)
		return rc;
	rc = dc_pt_waterfill(&t, NULL, 1, &w1, &ctx->err);
	if (!rc)
		rc = dc_pt_waterfill(&t, NULL, 2, &w2, &ctx->err);
	if (!rc)
		rc = dc_pt_waterfill(&t, NULL, DC_PT_WF_INF, &wi, &ctx->err);
	if (rc)
		goto out;
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_u64(&ctx->jw, "w1", w1.iters);
		jw_u64(&ctx->jw, "w2", w2.iters);
		jw_u64(&ctx->jw, "w", wi.iters);
		jw_u64(&ctx->jw, "bound_rounds", 6ULL * w2.iters);
		jw_arr(&ctx->jw, "flows");
		for (f = 0; f < t.nflows; f++) {
			jw_obj(&ctx->jw, NULL);
			jw_str(&ctx->jw, "flow", t.flows[f].name);
			jw_u64(&ctx->jw, "rate_kbps", wi.rate_kbps[f]);
			jw_str(&ctx->jw, "bottleneck", t.links[wi.bneck[f]].name);
			jw_arr(&ctx->jw, "path");
			for (h = 0; h < t.flows[f].nhops; h++)
				jw_str(&ctx->jw, NULL, t.links[t.flows[f].path[h]].name);
			jw_end_arr(&ctx->jw);
			jw_end_obj(&ctx->jw);
		}
		jw_end_arr(&ctx->jw);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
		goto out;
	}
	fprintf(ctx->out, "# %s: %u links, %u flows; W1 (CPG) %u, W2 %u, W %u; s-PERC bound 6*W2 = %u rounds\n",
		o->topo, t.nlinks, t.nflows, w1.iters, w2.iters, wi.iters, 6 * w2.iters);
	fprintf(ctx->out, "%-16s %14s %-16s %s\n", "flow", "rate_kbps", "bottleneck", "path");
	for (f = 0; f < t.nflows; f++) {
		fprintf(ctx->out, "%-16s %14s %-16s", t.flows[f].name, fmt_kbps(b, sizeof(b), wi.rate_kbps[f]),
			t.links[wi.bneck[f]].name);
		for (h = 0; h < t.flows[f].nhops; h++)
			fprintf(ctx->out, "%s%s", h ? "," : " ", t.links[t.flows[f].path[h]].name);
		fputc('\n', ctx->out);
	}
out:
	dc_pt_oracle_free(&w1);
	dc_pt_oracle_free(&w2);
	dc_pt_oracle_free(&wi);
	dc_pt_free(&t);
	return rc;
}

static int sim_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct perc_sim_args *o = ctx->opts;
	static const char *const alg_label[] = { "s-perc", "s-perc-star", "n-perc" };
	struct dc_pt_simcfg c;
	struct dc_pt_simres r;
	struct dc_pt_topo t;
	struct timespec t0, t1;
	char b1[32], b2[32];
	double wall_s;
	__u32 f, l;
	int rc;

	(void)argc;
	(void)argv;
	if (o->delay_min_ns > o->delay_max_ns)
		return dc_fail(ctx, EXIT_USAGE, "--delay-min-ns %llu is above --delay-max-ns %llu",
			       (unsigned long long)o->delay_min_ns, (unsigned long long)o->delay_max_ns);
	if (o->rn_literal && o->alg != ALG_STAR)
		return dc_fail(ctx, EXIT_USAGE, "--rn-literal is a variant of --alg s-perc-star");
	rc = dc_pt_load(o->topo, &t, &ctx->err);
	if (rc)
		return rc;
	dc_pt_simcfg_defaults(&c);
	c.mode = o->alg == ALG_STAR ? DC_PERC_M_STAR : o->alg == ALG_NPERC ? DC_PERC_M_NPERC : 0;
	if (o->rn_literal)
		c.mode |= DC_PERC_M_RN_LITERAL;
	c.seed = o->seed;
	c.delay_min_ns = o->delay_min_ns;
	c.delay_max_ns = o->delay_max_ns;
	c.drop = o->drop;
	c.drop_until_rounds = o->drop_until;
	c.rto_rounds = o->rto;
	c.run_rounds = o->rounds;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = dc_pt_simulate(&t, &c, &r, &ctx->err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	if (rc) {
		dc_pt_free(&t);
		return rc;
	}
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_str(&ctx->jw, "alg", alg_label[o->alg]);
		jw_u64(&ctx->jw, "seed", o->seed);
		jw_u64(&ctx->jw, "round_ns", r.round_ns);
		jw_dbl(&ctx->jw, "end_rounds", (double)r.end_ns / (double)r.round_ns);
		jw_dbl(&ctx->jw, "ref_rounds", r.ref_rounds);
		jw_u64(&ctx->jw, "w1", r.w1);
		jw_u64(&ctx->jw, "w2", r.w2);
		jw_u64(&ctx->jw, "w", r.winf);
		jw_u64(&ctx->jw, "bound_rounds", 6ULL * r.w2);
		jw_dbl(&ctx->jw, "max_rounds", r.max_rounds);
		jw_bool(&ctx->jw, "converged", r.all_converged);
		jw_u64(&ctx->jw, "updates", r.updates);
		jw_u64(&ctx->jw, "drops", r.drops);
		jw_dbl(&ctx->jw, "updates_per_s", wall_s > 0 ? (double)r.updates / wall_s : 0);
		jw_arr(&ctx->jw, "flows");
		for (f = 0; f < t.nflows; f++) {
			const struct dc_pt_flowres *fr = &r.flow[f];

			jw_obj(&ctx->jw, NULL);
			jw_str(&ctx->jw, "flow", t.flows[f].name);
			jw_bool(&ctx->jw, "active", fr->active);
			jw_u64(&ctx->jw, "rate_kbps", fr->rate_kbps);
			jw_u64(&ctx->jw, "maxmin_kbps", fr->expect_kbps);
			jw_bool(&ctx->jw, "converged", fr->converged);
			jw_dbl(&ctx->jw, "rounds", fr->rounds);
			jw_u64(&ctx->jw, "restarts", fr->restarts);
			jw_end_obj(&ctx->jw);
		}
		jw_end_arr(&ctx->jw);
		jw_arr(&ctx->jw, "links");
		for (l = 0; l < t.nlinks; l++) {
			const struct dc_perc_state *s = &r.link[l];
			char sum[32];

			jw_obj(&ctx->jw, NULL);
			jw_str(&ctx->jw, "link", t.links[l].name);
			jw_u64(&ctx->jw, "cap_kbps", s->cap_kbps);
			snprintf(sum, sizeof(sum), "%lld", (long long)s->sum_e_kbps);
			jw_raw(&ctx->jw, "sum_e_kbps", sum);
			snprintf(sum, sizeof(sum), "%d", s->num_b);
			jw_raw(&ctx->jw, "num_b", sum);
			jw_u64(&ctx->jw, "max_e_kbps", s->max_e_kbps);
			jw_end_obj(&ctx->jw);
		}
		jw_end_arr(&ctx->jw);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		fprintf(ctx->out,
			"# %s, seed %llu, round %llu ns, %.1f rounds; W2 %u (bound 6*W2 = %u rounds); "
			"%llu updates, %llu drops; rounds counted from %.2f\n",
			alg_label[o->alg], (unsigned long long)o->seed, (unsigned long long)r.round_ns,
			(double)r.end_ns / (double)r.round_ns, r.w2, 6 * r.w2, (unsigned long long)r.updates,
			(unsigned long long)r.drops, r.ref_rounds);
		fprintf(ctx->out, "%-16s %14s %14s %9s %8s %8s\n", "flow", "rate_kbps", "maxmin_kbps", "converged",
			"rounds", "restarts");
		for (f = 0; f < t.nflows; f++) {
			const struct dc_pt_flowres *fr = &r.flow[f];

			if (!fr->active) {
				fprintf(ctx->out, "%-16s %14s %14s %9s %8s %8llu\n", t.flows[f].name, "-", "-",
					"finished", "-", (unsigned long long)fr->restarts);
				continue;
			}
			fprintf(ctx->out, "%-16s %14s %14s %9s %8.2f %8llu\n", t.flows[f].name,
				fmt_kbps(b1, sizeof(b1), fr->rate_kbps), fmt_kbps(b2, sizeof(b2), fr->expect_kbps),
				fr->converged ? "yes" : "NO", fr->rounds, (unsigned long long)fr->restarts);
		}
	}
	if (!r.all_converged && !ctx->json)
		fprintf(ctx->errf, "dcbpf perc sim: not every flow is at its max-min rate at the end\n");
	dc_pt_simres_free(&r);
	dc_pt_free(&t);
	return 0;
}

/* ---- live: links, hosts, status (perchost.c) ---- */

static const struct dc_opt_name mode_names[] = {
	{ "s-perc", 0 }, { "s-perc-star", DC_PERC_M_STAR }, { "n-perc", DC_PERC_M_NPERC }, { NULL },
};

#define AA struct dc_perc_attach_args
static const struct dc_opt attach_opts[] = {
	{ "dev", 'd', DC_OPT_STR, DC_FIELD(AA, dev), "IF", .help = "interface: its directed link out",
	  .required = true },
	{ "link", 'l', DC_OPT_U64, DC_FIELD(AA, link), "N",
	  .help = "link index and id (unique per namespace; the hop entry's link id)",
	  .required = true, .umin = 1, .umax = 255 },
	{ "cap-kbps", 'c', DC_OPT_U64, DC_FIELD(AA, cap_kbps), "KBPS",
	  .help = "capacity for data: line rate less control share and headroom", .required = true,
	  .umin = 1, .umax = 4294967294ULL },
	{ "netns", 'n', DC_OPT_STR, DC_FIELD(AA, netns), "NS",
	  .help = "network namespace (name in /var/run/netns); default: our own" },
	{ "round-us", 0, DC_OPT_U64, DC_FIELD(AA, round_us), "US",
	  .help = "round: at least the longest time between two visits of a flow's packet",
	  .def = "5000", .umax = 10000000 },
	{ "alg", 0, DC_OPT_ENUM, DC_FIELD(AA, mode), NULL, .help = "link algorithm",
	  .def = "s-perc-star", .names = mode_names },
	{ "host", 0, DC_OPT_FLAG, DC_FIELD(AA, host),
	  .help = "a host's port: control packets that crossed their path turn around here" },
	{ NULL },
};
#undef AA

#define DA struct dc_perc_detach_args
static const struct dc_opt detach_opts[] = {
	{ "netns", 'n', DC_OPT_STR, DC_FIELD(DA, netns), "NS",
	  .help = "network namespace whose links go; default: our own" },
	{ NULL },
};
#undef DA

#define HA struct dc_perc_host_args
static const struct dc_opt host_opts[] = {
	{ "cgroup", 'g', DC_OPT_DIR, DC_FIELD(HA, cgroup), "DIR",
	  .help = "cgroup v2 directory of the sending applications (sockops)", .required = true,
	  .flags = DC_OPT_F_EXISTS },
	{ "netns", 'n', DC_OPT_STR, DC_FIELD(HA, netns), "NS",
	  .help = "the host's network namespace (its control socket and addresses); default: "
		  "our own" },
	{ "path", 'p', DC_OPT_LIST, DC_FIELD(HA, paths), "CIDR=HOPS",
	  .help = "links on the path to a destination prefix (repeat; longest prefix wins)",
	  .required = true },
	{ "interval-us", 0, DC_OPT_U64, DC_FIELD(HA, interval_us), "US",
	  .help = "Tx_ctrl: a flow's next control packet at least this long after its last",
	  .def = "1000", .umin = 10, .umax = 10000000 },
	{ "rto-us", 0, DC_OPT_U64, DC_FIELD(HA, rto_us), "US",
	  .help = "RTO_ctrl: a flow whose packet is this late restarts with a fresh one",
	  .def = "20000", .umin = 20, .umax = 60000000 },
	{ "line-kbps", 0, DC_OPT_U64, DC_FIELD(HA, line_kbps), "KBPS",
	  .help = "the host's line rate (start rate = line / start share)", .def = "1000000",
	  .umin = 1, .umax = 4294967294ULL },
	{ "start-share", 0, DC_OPT_U64, DC_FIELD(HA, start_share), "N",
	  .help = "a new flow sends at line / N until its first allocation returns", .def = "8",
	  .umin = 1, .umax = 1000000 },
	{ "min-bytes", 0, DC_OPT_U64, DC_FIELD(HA, min_bytes), "BYTES",
	  .help = "a flow gets a control packet once this much of it is acknowledged; shorter "
		  "ones (and idle connections) keep the start rate", .def = "65536",
	  .umax = 1ULL << 40 },
	{ "priority", 0, DC_OPT_U64, DC_FIELD(HA, priority), "P",
	  .help = "SO_PRIORITY of the control packets (an HTB class id: strict priority)",
	  .def = "0", .umax = 0xffffffffULL },
	{ "dscp", 0, DC_OPT_U64, DC_FIELD(HA, dscp), "D",
	  .help = "DSCP of the control packets: a dcbpf switch with --queues puts priority D >> 3 "
		  "in its top queues (strict priority); 48 is CS6, network control",
	  .def = "48", .umax = 63 },
	{ "wire-overhead-bytes", 0, DC_OPT_U64, DC_FIELD(HA, wire_ovh_bytes), "BYTES",
	  .help = "bytes a data segment carries on the wire beside its payload (headers, INT): "
		  "the CC paces payload at rate x mss / (mss + BYTES) so the wire rate is the "
		  "allocation", .def = "66", .umax = DC_PERC_WIRE_OVH_MAX },
	{ "duration-ms", 0, DC_OPT_U64, DC_FIELD(HA, duration_ms), "MS",
	  .help = "stop after this long (0: at SIGINT or SIGTERM)", .def = "0", .umax = 86400000 },
	{ NULL },
};
#undef HA

#define EA struct dc_perc_set_args
static const struct dc_opt set_opts[] = {
	{ "cap-kbps", 'c', DC_OPT_U64, DC_FIELD(EA, cap_kbps), "KBPS",
	  .help = "new capacity for data: line rate less control share and headroom", .required = true,
	  .umin = 1, .umax = DC_PERC_CAP_MAX_KBPS },
	{ "dev", 'd', DC_OPT_STR, DC_FIELD(EA, dev), "IF",
	  .help = "the link out of this interface (or --link)" },
	{ "link", 'l', DC_OPT_U64, DC_FIELD(EA, link), "N", .help = "the link of this index (or --dev)",
	  .umin = 1, .umax = DC_PERC_LINKS_MAX - 1 },
	{ "netns", 'n', DC_OPT_STR, DC_FIELD(EA, netns), "NS",
	  .help = "network namespace of the link; default: our own" },
	{ NULL },
};
#undef EA

#define TA struct dc_perc_status_args
static const struct dc_opt status_opts[] = {
	{ "netns", 'n', DC_OPT_STR, DC_FIELD(TA, netns), "NS",
	  .help = "network namespace whose links to show; default: our own" },
	{ NULL },
};
#undef TA

static int attach_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return dc_perc_attach(ctx->pin_dir, ctx->opts, &ctx->err);
}

static int detach_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct dc_perc_detach_args *a = ctx->opts;

	(void)argc;
	(void)argv;
	return dc_perc_detach(ctx->pin_dir, a->netns, &ctx->err);
}

static int set_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct dc_perc_set_args *a = ctx->opts;
	const char *ns = a->netns && *a->netns ? a->netns : "(own)";
	struct dc_perc_cap c = { .link = (__u32)a->link, .cap_kbps = a->cap_kbps };
	int rc;

	(void)argc;
	(void)argv;
	if (!a->dev == !a->link)
		return dc_fail(ctx, EXIT_USAGE, "name the link by --dev IF or by --link N (one of them)");
	if (a->dev && snprintf(c.dev, sizeof(c.dev), "%s", a->dev) >= (int)sizeof(c.dev))
		return dc_fail(ctx, EXIT_USAGE, "--dev %s: an interface name has at most 15 characters",
			       a->dev);
	rc = dc_perc_set_caps(ctx->pin_dir, a->netns, &c, 1, &ctx->err);
	if (rc)
		return rc;
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_str(&ctx->jw, "netns", a->netns ? a->netns : "");
		jw_u64(&ctx->jw, "link", c.link);
		if (a->dev)
			jw_str(&ctx->jw, "port", a->dev);
		jw_u64(&ctx->jw, "old_cap_kbps", c.old_kbps);
		jw_u64(&ctx->jw, "cap_kbps", c.cap_kbps);
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
	} else {
		fprintf(ctx->out, "link %u%s%s%s (netns %s): cap_kbps %llu -> %llu\n", c.link,
			a->dev ? " (" : "", a->dev ? a->dev : "", a->dev ? ")" : "", ns,
			(unsigned long long)c.old_kbps, (unsigned long long)c.cap_kbps);
	}
	return EXIT_OK;
}

DC_CMD_OF_OPTS(host_cmd, dc_perc_host_run)
DC_CMD_OF_OPTS(status_cmd, dc_perc_status_run)

const struct dc_cmd dc_perc_cmds[] = {
	{ "oracle", oracle_cmd, oracle_opts, sizeof(struct perc_oracle_args),
	  .summary = "max-min rates by water-filling and the WF^k depths of a topology",
	  .doc = "Rates in kbps (floors, as the links compute them); W2 bounds s-PERC's\n"
		 "convergence: 6 x W2 rounds once the flows are stable (Proactive Congestion\n"
		 "Control, Thm 3.4.4).  Topology format: docs/perc.md." },
	{ "sim", sim_cmd, sim_opts, sizeof(struct perc_sim_args),
	  .summary = "the control protocol, asynchronously, on a topology: rounds to converge per flow",
	  .doc = "Every flow's one control packet crosses its path and back with a random per-hop\n"
		 "delay; each link runs the update of include/dcbpf/perc.h (the TC program's)\n"
		 "with its own random reset phase.  start=/fin= in the file make churn; --drop\n"
		 "loses control packets until --drop-until.  A flow's rounds: from the last\n"
		 "start, fin or loss to its last rate change.  Exit 0 even when a flow did not\n"
		 "converge (the table says NO; JSON \"converged\": false)." },
	{ "attach", attach_cmd, attach_opts, sizeof(struct dc_perc_attach_args),
	  .flags = DC_CMD_F_ROOT,
	  .summary = "the link program on an interface, its directed link configured",
	  .doc = "TC egress and ingress of IF get the s-PERC link program; the link out of IF\n"
		 "gets --link and --cap-kbps.  Again on an attached link: only the capacity\n"
		 "and round change, live, and its state is kept.  Pins: PIN_DIR/perc/NS." },
	{ "detach", detach_cmd, detach_opts, sizeof(struct dc_perc_detach_args),
	  .flags = DC_CMD_F_ROOT,
	  .summary = "every link program of a namespace detached, its pins removed" },
	{ "set", set_cmd, set_opts, sizeof(struct dc_perc_set_args), .flags = DC_CMD_F_ROOT,
	  .summary = "a running link's capacity, live: its flows' state kept",
	  .doc = "The next control packet at the link computes its bottleneck rate from the new\n"
		 "capacity; SumE, NumB, MaxE and the shadows stay as the packets left them, and\n"
		 "the flows converge to the new max-min rates within a few rounds.  The link is\n"
		 "named by its interface (--dev) or its index (--link); one that is not attached\n"
		 "is refused and nothing changes.  dcbpfd's [perc] capacities does the same on\n"
		 "start and reload (docs/config.md)." },
	{ "host", host_cmd, host_opts, sizeof(struct dc_perc_host_args), .flags = DC_CMD_F_ROOT,
	  .summary = "the sender's control loop: one control packet per perc flow, its rate applied",
	  .doc = "Give the sending host's namespace with --netns (`ip netns exec` would hide the\n"
		 "cgroup tree).  Flows are the connections of the\n"
		 "cgroup that use the perc congestion control (sockops); each gets one\n"
		 "control packet, resent every --interval-us after it returns, and its rate\n"
		 "(the smallest allocation on the path) written for the CC.  A flow's FIN or\n"
		 "close sends its FIN control packet: the links take its share back." },
	{ "status", status_cmd, status_opts, sizeof(struct dc_perc_status_args),
	  .flags = DC_CMD_F_ROOT,
	  .summary = "per-link state, per-flow allocated vs achieved rate",
	  .doc = "Links: the pinned link state of --netns (C, SumE, NumB, the bottleneck rate b\n"
		 "a packet would see now, MaxE, roundNumber).  Flows: every perc flow of the\n"
		 "pin dir, its allocation and its delivery rate as the CC measured it." },
	{ NULL },
};
