// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf cosy bounds` (docs/cosy.md): the delay and load bounds of "Building
 * a Partial Communication Synchrony Abstraction on Asynchronous
 * Datacenters" for one network and message size, from
 * include/dcbpf/cosy.h — the numbers a test or an experiment takes as its
 * budget.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cosy/cosycmd.h"
#include "dcbpf/cosy.h"

struct cosy_bounds_args {
	__u64 bw_kbps, hrtt_ns, msg_bytes, buffer_bytes, wait_ns;
	__u32 hops, pkt_bytes, k, cores, ports;
	bool rsvp;
};

/* Everything the calculator adds up stays below 2^64 ns with these. */
#define TERA 1000000000000ULL
#define CALC_NS_MAX 1000000000000000ULL	/* 10^15 ns: 11.6 days */

#define BA struct cosy_bounds_args
static const struct dc_opt bounds_opts[] = {
	{ "bw-kbps", 'B', DC_OPT_U64, DC_FIELD(BA, bw_kbps), "KBPS", .help = "B: bandwidth of every link",
	  .required = true, .umin = 1, .umax = TERA },
	{ "hrtt-ns", 0, DC_OPT_U64, DC_FIELD(BA, hrtt_ns), "NS",
	  .help = "hRTT: unloaded round trip of one MTU packet", .required = true, .umax = TERA },
	{ "msg-bytes", 's', DC_OPT_U64, DC_FIELD(BA, msg_bytes), "BYTES", .help = "s: message size",
	  .required = true, .umin = 1, .umax = TERA },
	{ "hops", 0, DC_OPT_U64, DC_FIELD(BA, hops), "N", .help = "#H: switches on the longest path",
	  .def = "3", .umin = 1, .umax = 64 },
	{ "pkt-bytes", 'p', DC_OPT_U64, DC_FIELD(BA, pkt_bytes), "BYTES", .help = "p: largest packet",
	  .def = "1500", .umin = 1, .umax = 65535 },
	{ "k", 'k', DC_OPT_U64, DC_FIELD(BA, k), "K",
	  .help = "virtual links per link (when not given: 4, with --rsvp 1)", .umin = 1,
	  .umax = DC_COSY_CALC_K_MAX },
	{ "cores", 'C', DC_OPT_U64, DC_FIELD(BA, cores), "N", .help = "C: core (spine) switches", .def = "2",
	  .umin = 1, .umax = DC_COSY_CALC_C_MAX },
	{ "rsvp", 0, DC_OPT_FLAG, DC_FIELD(BA, rsvp),
	  .help = "the RSVP baseline (section 3.2): one virtual link per link, no slots" },
	{ "buffer-bytes", 0, DC_OPT_U64, DC_FIELD(BA, buffer_bytes), "BYTES",
	  .help = "smallest switch buffer, for K* (0: not computed)", .def = "0", .umax = 1000 * TERA },
	{ "wait-ns", 0, DC_OPT_U64, DC_FIELD(BA, wait_ns), "NS",
	  .help = "how long a receiver may hold a request (added to delta_cosy)", .def = "0", .umax = TERA },
	{ "ports", 0, DC_OPT_U64, DC_FIELD(BA, ports), "N",
	  .help = "switch ports, for the state a switch keeps (0: not computed)", .def = "0", .umax = 65535 },
	{ NULL },
};
#undef BA

/* ppm as a decimal with 6 places. */
static const char *fmt_ppm(char *buf, size_t len, __u64 ppm)
{
	snprintf(buf, len, "%llu.%06llu", (unsigned long long)(ppm / DC_COSY_PPM),
		 (unsigned long long)(ppm % DC_COSY_PPM));
	return buf;
}

static void row_u64(FILE *f, const char *name, __u64 v, const char *what)
{
	fprintf(f, "%-16s %16llu  %s\n", name, (unsigned long long)v, what);
}

static void row_str(FILE *f, const char *name, const char *v, const char *what)
{
	fprintf(f, "%-16s %16s  %s\n", name, v, what);
}

static int bounds_cmd(struct dc_ctx *ctx, int argc, char **argv)
{
	const struct cosy_bounds_args *o = ctx->opts;
	struct dc_cosy_net n;
	struct dc_cosy_bounds b;
	char buf[3][32];
	double wire_ns, q_ns;
	bool lossless;

	(void)argc;
	(void)argv;
	if (o->rsvp && o->k > 1)
		return dc_fail(ctx, EXIT_USAGE, "--rsvp is the baseline with one virtual link per link; --k %u contradicts it",
			       o->k);
	memset(&n, 0, sizeof(n));
	n.bw_kbps = o->bw_kbps;
	n.hrtt_ns = o->hrtt_ns;
	n.msg_bytes = o->msg_bytes;
	n.hops = o->hops;
	n.pkt_bytes = o->pkt_bytes;
	n.k = o->k ? o->k : o->rsvp ? 1 : 4;
	n.cores = o->cores;
	n.buffer_bytes = o->buffer_bytes;
	n.wait_ns = o->wait_ns;
	n.ports = o->ports;
	/* Refuse what would not fit the integers rather than print a wrapped
	 * number: a message that takes more than 10^15 ns on the wire. */
	wire_ns = (double)n.msg_bytes * n.k * 8e6 / (double)n.bw_kbps;
	q_ns = (double)n.hops * (n.hops + 1) * (n.k - 1) * n.pkt_bytes * 4e6 / (double)n.bw_kbps;
	if (wire_ns > (double)CALC_NS_MAX)
		return dc_fail(ctx, EXIT_USAGE,
			       "--msg-bytes %llu x K %u at --bw-kbps %llu takes %.3g s on the wire: above the 10^6 s the calculator handles",
			       (unsigned long long)n.msg_bytes, n.k, (unsigned long long)n.bw_kbps, wire_ns / 1e9);
	if (q_ns > (double)CALC_NS_MAX)
		return dc_fail(ctx, EXIT_USAGE,
			       "the queueing bound #H(#H+1)(K-1)/2 x p/B is %.3g s: above the 10^6 s the calculator handles (fewer --hops, a smaller --k or --pkt-bytes)",
			       q_ns / 1e9);
	dc_cosy_bounds(&n, &b);
	/* Lemma 3.3: K ≤ K* keeps every queue inside the smallest buffer. */
	lossless = !n.buffer_bytes || n.k <= b.kstar;
	if (ctx->json) {
		jw_obj(&ctx->jw, NULL);
		jw_str(&ctx->jw, "mode", o->rsvp ? "rsvp" : "cosy");
		jw_obj(&ctx->jw, "input");
		jw_u64(&ctx->jw, "bw_kbps", n.bw_kbps);
		jw_u64(&ctx->jw, "hrtt_ns", n.hrtt_ns);
		jw_u64(&ctx->jw, "msg_bytes", n.msg_bytes);
		jw_u64(&ctx->jw, "hops", n.hops);
		jw_u64(&ctx->jw, "pkt_bytes", n.pkt_bytes);
		jw_u64(&ctx->jw, "k", n.k);
		jw_u64(&ctx->jw, "cores", n.cores);
		jw_u64(&ctx->jw, "buffer_bytes", n.buffer_bytes);
		jw_u64(&ctx->jw, "wait_ns", n.wait_ns);
		jw_u64(&ctx->jw, "ports", n.ports);
		jw_end_obj(&ctx->jw);
		jw_u64(&ctx->jw, "tx_ns", b.tx_ns);
		jw_u64(&ctx->jw, "delta_star_ns", b.delta_star_ns);
		jw_raw(&ctx->jw, "alpha", fmt_ppm(buf[0], sizeof(buf[0]), b.alpha_ppm));
		jw_raw(&ctx->jw, "theta_star", fmt_ppm(buf[0], sizeof(buf[0]), b.theta_star_ppm));
		jw_u64(&ctx->jw, "qhat_bytes", b.qhat_bytes);
		jw_u64(&ctx->jw, "dhat_ns", b.dhat_ns);
		jw_u64(&ctx->jw, "delta_cosy_ns", b.delta_cosy_ns);
		jw_raw(&ctx->jw, "f", fmt_ppm(buf[0], sizeof(buf[0]), b.f_ppm));
		jw_raw(&ctx->jw, "theta", fmt_ppm(buf[0], sizeof(buf[0]), b.theta_ppm));
		if (n.buffer_bytes) {
			jw_u64(&ctx->jw, "kstar", b.kstar);
			jw_raw(&ctx->jw, "kstar_exact", fmt_ppm(buf[0], sizeof(buf[0]), b.kstar_milli * 1000));
			jw_bool(&ctx->jw, "lossless", lossless);
		} else {
			jw_null(&ctx->jw, "kstar");
			jw_null(&ctx->jw, "kstar_exact");
			jw_null(&ctx->jw, "lossless");
		}
		if (n.ports)
			jw_u64(&ctx->jw, "state_bits", b.state_bits);
		else
			jw_null(&ctx->jw, "state_bits");
		jw_end_obj(&ctx->jw);
		jw_done(&ctx->jw);
		return 0;
	}
	fprintf(ctx->out, "# %s: B %llu kbps, hRTT %llu ns, s %llu B, #H %u, p %u B, K %u, C %u, wait %llu ns\n",
		o->rsvp ? "RSVP baseline" : "cosy", (unsigned long long)n.bw_kbps, (unsigned long long)n.hrtt_ns,
		(unsigned long long)n.msg_bytes, n.hops, n.pkt_bytes, n.k, n.cores, (unsigned long long)n.wait_ns);
	row_u64(ctx->out, "tx_ns", b.tx_ns, "s/B");
	row_u64(ctx->out, "delta_star_ns", b.delta_star_ns, "Thm 3.1: 2 hRTT + s/B, the least any design can promise");
	row_str(ctx->out, "alpha", fmt_ppm(buf[0], sizeof(buf[0]), b.alpha_ppm), "Thm 3.1: hRTT / (s/B)");
	row_str(ctx->out, "theta_star", fmt_ppm(buf[1], sizeof(buf[1]), b.theta_star_ppm),
		"Thm 3.1: 1 / (2 (1 + alpha)), the most load any design sustains");
	row_u64(ctx->out, "qhat_bytes", b.qhat_bytes, "Lemma 3.3: #H (K-1) p, largest queue");
	row_u64(ctx->out, "dhat_ns", b.dhat_ns, "Lemma 3.3: #H (#H+1) (K-1) / 2 x p/B, queueing on a path");
	row_u64(ctx->out, "delta_cosy_ns", b.delta_cosy_ns, "Thm 3.5: 2 hRTT + wait + s K/B + dhat");
	row_str(ctx->out, "f", fmt_ppm(buf[0], sizeof(buf[0]), b.f_ppm), "Thm 3.4 Eq. 1: f(K, C)");
	row_str(ctx->out, "theta", fmt_ppm(buf[1], sizeof(buf[1]), b.theta_ppm),
		o->rsvp || n.k == 1 ? "Thm 3.2: E[Theta_RSVP] = f(1, C) theta_star"
				    : "Thm 3.4: E[Theta_cosy] = f(K, C) theta_star");
	if (n.buffer_bytes) {
		snprintf(buf[2], sizeof(buf[2]), "%llu", (unsigned long long)b.kstar);
		row_str(ctx->out, "kstar", buf[2], "Lemma 3.3: buffer / (#H p), the largest lossless K");
	} else {
		row_str(ctx->out, "kstar", "-", "Lemma 3.3: needs --buffer-bytes");
	}
	if (n.ports)
		row_u64(ctx->out, "state_bits", b.state_bits, "section 4: pK + pK log2(pK) per switch");
	else
		row_str(ctx->out, "state_bits", "-", "section 4: needs --ports");
	if (!lossless)
		fprintf(ctx->errf, "dcbpf cosy bounds: K %u is above K* %llu: queues may outgrow a %llu-byte buffer and the bounds do not hold\n",
			n.k, (unsigned long long)b.kstar, (unsigned long long)n.buffer_bytes);
	return 0;
}

const struct dc_cmd dc_cosy_cmds[] = {
	{ "bounds", bounds_cmd, bounds_opts, sizeof(struct cosy_bounds_args),
	  .summary = "delta*, Theta*, alpha, K*, queue and delay bounds, f(K, C) for a network and message",
	  .doc = "The formulas of \"Building a Partial Communication Synchrony Abstraction on\n"
		 "Asynchronous Datacenters\": Thm 3.1 (delta*, Theta*, alpha), Lemma 3.3 (qhat,\n"
		 "dhat, K*), Thm 3.4 (f(K, C), the expected sustainable load), Thm 3.5\n"
		 "(delta_cosy, with the receiver's wait its proof adds).  Delays and queues\n"
		 "round up; ratios have 6 decimals.  K above K* is printed with a warning\n"
		 "(JSON \"lossless\": false).  Formulas and limits: docs/cosy.md." },
	{ "send", dc_cosy_send_cmd, dc_cosy_send_opts, sizeof(struct cosy_net_args),
	  .summary = "send messages to a cosy receiver over UDP and print each one's completion",
	  .doc = "Up to K messages ask at once; each completes (latency on this host's clock),\n"
		 "is rejected (receiver busy, no virtual link, or nothing back by --delta-ns) or\n"
		 "fails (the receiver's detector).  Exit 1 when some had no answer by --run-ms.\n"
		 "The end host is include/dcbpf/cosyhost.h; pacing at B/K is as fine as the\n"
		 "kernel's timers.  --rate-per-s makes the arrivals a Poisson process, each\n"
		 "message to one of the --to receivers drawn uniformly; while K ask, the\n"
		 "others wait at the sender (wait_ns)." },
	{ "serve", dc_cosy_serve_cmd, dc_cosy_serve_opts, sizeof(struct cosy_net_args),
	  .summary = "receive cosy messages over UDP with K slots, until --count are in",
	  .doc = "A request waits up to --wait-ns for a free slot (of two random waiting\n"
		 "requests the older gets it), then is rejected as busy." },
	{ "attach", dc_cosy_attach_cmd, dc_cosy_attach_opts, sizeof(struct dc_cosy_attach_args),
	  .flags = DC_CMD_F_ROOT,
	  .summary = "the switch program at TC ingress of a namespace's ports, its VL book configured",
	  .doc = "Each --port is IF,PEER_MAC,HOST[,HOST...]: the hosts a shortest path reaches\n"
		 "through IF; a host listed with several ports has them all as candidates (a\n"
		 "leaf's uplinks toward another leaf's hosts).  Everything is checked before\n"
		 "anything is written; a refused attach leaves nothing attached or pinned.\n"
		 "Attached already: refused (detach first).  --ctrl-mbit puts the control\n"
		 "packets in a strict-priority HTB class.  Pins: PIN_DIR/cosy/NS." },
	{ "detach", dc_cosy_detach_cmd, dc_cosy_ns_opts, sizeof(struct dc_cosy_ns_args),
	  .flags = DC_CMD_F_ROOT,
	  .summary = "the switch program off every port of a namespace, its HTB roots and pins removed" },
	{ "status", dc_cosy_status_cmd, dc_cosy_ns_opts, sizeof(struct dc_cosy_ns_args),
	  .flags = DC_CMD_F_ROOT,
	  .summary = "per port the VLs held (bitmap) and counters; routes; the switch's counters and drops",
	  .doc = "A VL counts as held while reserved and not expired (an expired one is free:\n"
		 "the next rsvp takes it over)." },
	{ NULL },
};
