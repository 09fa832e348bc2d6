/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `dcbpf sim --alg reverie|sonic`: lossy and lossless traffic through one
 * shared-buffer switch with PFC, running include/dcbpf/reverie.h or
 * sonic.h (docs/admission.md, "Reverie and the SONiC baseline").
 *
 * Why a model of its own next to simengine.c: a lossless packet counts in
 * its INGRESS queue and PFC acts toward the sender, so the switch needs
 * the input port of every packet, senders that stop and restart, and a
 * link delay between them and the switch; the output-queued engine has
 * arrivals fixed in advance and no input side.
 *
 * Model: discrete slots, bytes.  Each of N ports has a sender behind it
 * (the upstream) with a lossless and a lossy flow queue, and a link of
 * --slot-bytes per slot with a delay of --link-delay slots each way.  Per
 * slot: new flows; pause/resume frames that reach the senders take effect;
 * each sender puts up to --slot-bytes of whole packets on its link,
 * alternating the classes, lossless only while not paused; packets that
 * reach the switch are admitted (or dropped, or put in headroom), a
 * refused lossless queue sends PAUSE upstream (arriving --link-delay
 * slots later); each output port sends up to --slot-bytes, alternating
 * its lossless and lossy queues; departures may RESUME a queue.
 * Lossy traffic: web-search flows at --load per input port to random
 * outputs.  Lossless traffic: incast queries every --incast-period slots
 * (on average) to a random output, --incast-senders senders sending
 * --incast-frac × buffer in all.  No retransmissions: a lossy drop is
 * counted and gone.
 */
#ifndef DCBPF_SIM_SIMPFC_H
#define DCBPF_SIM_SIMPFC_H

#include <stdbool.h>
#include <dcbpf/reverie.h>
#include <dcbpf/sonic.h>

#include "cmd.h"
#include "err.h"
#include "opts.h"

/* Values of `sim --alg` beyond enum dc_alg (the output-queued engine's). */
#define DC_SIMPFC_REVERIE 100
#define DC_SIMPFC_SONIC 101

#define DC_SIMPFC_PORTS_MAX 64
#define DC_SIMPFC_DELAY_MAX 10000

struct dc_simpfc_opts {
	__u32 alpha_ll_q16, alpha_ly_q16;
	double gamma;
	__u64 headroom;			/* per lossless queue; 0: sized from the link */
	__u32 link_delay;		/* slots, one way */
	__u32 xon_offset;
	__u32 cong_bytes;
};

#define DC_SIMPFC_OPTS(T, m)								\
	{ "alpha-lossless", 0, DC_OPT_Q16, DC_FIELD(T, m.alpha_ll_q16), "A",		\
	  .help = "reverie: alpha of lossless queues; sonic: ingress lossless DT alpha",	\
	  .def = "1", .dmin = 0, .dmax = 1024, .flags = DC_OPT_F_MIN_EXCL },		\
	{ "alpha-lossy", 0, DC_OPT_Q16, DC_FIELD(T, m.alpha_ly_q16), "A",		\
	  .help = "reverie: alpha of lossy queues; sonic: egress lossy DT alpha",	\
	  .def = "1", .dmin = 0, .dmax = 1024, .flags = DC_OPT_F_MIN_EXCL },		\
	{ "gamma", 0, DC_OPT_DOUBLE, DC_FIELD(T, m.gamma), "G",				\
	  .help = "reverie: weight of the old average in the low-pass filter (Eq. 5.11)",	\
	  .def = "0.999", .dmin = 0, .dmax = 1, .flags = DC_OPT_F_MAX_EXCL },		\
	{ "headroom", 0, DC_OPT_U64, DC_FIELD(T, m.headroom), "BYTES",			\
	  .help = "PFC headroom of each lossless queue (0: (mtu+48)*2 + 3860 + 2 x delay x rate)", \
	  .def = "0", .umax = 0xffffffffULL },						\
	{ "link-delay", 0, DC_OPT_U64, DC_FIELD(T, m.link_delay), "SLOTS",		\
	  .help = "reverie/sonic: sender-switch delay, each way", .def = "2", .umin = 1,	\
	  .umax = DC_SIMPFC_DELAY_MAX },						\
	{ "xon-offset", 0, DC_OPT_U64, DC_FIELD(T, m.xon_offset), "BYTES",		\
	  .help = "reverie/sonic: resume only below the threshold by BYTES", .def = "0",	\
	  .umax = 0xffffffffULL },							\
	{ "cong-bytes", 0, DC_OPT_U64, DC_FIELD(T, m.cong_bytes), "BYTES",		\
	  .help = "reverie: filtered length at which a queue counts fully in n",	\
	  .def = "20480", .umin = 1, .umax = 0xffffffffULL }

#define DC_SIMPFC_NOPTS 7

struct dc_simpfc_cfg {
	__u32 alg;			/* DC_SIMPFC_REVERIE or _SONIC */
	__u32 nports;
	__u64 buffer_bytes;		/* b (0: 5.12 KB per port per Gbit/s + headroom) */
	__u32 mtu, slot_bytes;
	__u64 slot_ns;
	__u32 link_delay;
	__u64 hdrm_queue_bytes;		/* 0: dc_rv_headroom_bytes of the link */
	__u32 alpha_ll_q16, alpha_ly_q16;
	__u64 gamma_q32;
	__u32 xon_offset, cong_bytes;
	/* workload */
	bool lossy, lossless;
	__u64 slots, seed;
	__u64 drain_slots;		/* after slots, at most this long to empty (0: slots) */
	double load, incast_frac;
	__u32 incast_senders, incast_period;
};

struct dc_simpfc_result {
	__u64 buffer_bytes, shared_bytes, hdrm_queue_bytes;	/* as run */
	__u64 slots;
	__u64 pauses, resumes, paused_slots;	/* paused_slots: Σ over queues */
	__u64 hdrm_max_bytes, hdrm_queue_max_bytes;
	__u64 ll_arrivals, ll_drops, ll_sent_bytes;
	__u64 ly_arrivals, ly_drops, ly_sent_bytes, ly_flows_refused;
	__u64 incasts, incasts_done;
	double incast_fct_mean, incast_fct_p99, incast_slowdown_mean;	/* slots */
	__u64 occ_ll_p99, occ_ly_p99, occ_ll_max, occ_ly_max;
	/* bookkeeping: packets sent per class, and what the core still
	 * counts at the end (0 after a drained run: drained = true) */
	__u64 ll_sent_pkts, ly_sent_pkts, end_counted_bytes;
	bool drained;
};

void dc_simpfc_defaults(struct dc_simpfc_cfg *c);
/* Settings refused with the reason: EXIT_USAGE and err.  Fills in the
 * sized defaults (buffer, headroom). */
int dc_simpfc_prepare(struct dc_simpfc_cfg *c, struct dc_err *err);
int dc_simpfc_run(const struct dc_simpfc_cfg *c, struct dc_simpfc_result *r, struct dc_err *err);
const char *dc_simpfc_alg_name(__u32 alg);

static inline bool dc_simpfc_alg(int alg)
{
	return alg == DC_SIMPFC_REVERIE || alg == DC_SIMPFC_SONIC;
}

/* `dcbpf sim` with --alg reverie|sonic (simcmd.c hands over). */
int dc_simpfc_cmd(struct dc_ctx *ctx, int argc, char **argv, const bool *given);
/* Another --alg given options of this model: EXIT_USAGE naming the first. */
int dc_simpfc_refuse(const struct dc_opt *tab, const bool *given, struct dc_err *err);

#endif
