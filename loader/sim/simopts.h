/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The simulator's 13 workload and switch options, declared once for
 * `dcbpf sim` and `dcbpf credence train` (loader/lib/README.md, "The 13
 * simulator options, once").  A command embeds struct dc_sim_opts in its
 * own options struct and lists DC_SIM_WORKLOAD_OPTS(its struct, member)
 * among its table's entries; --seed and --out stay each command's own.
 */
#ifndef DCBPF_SIM_SIMOPTS_H
#define DCBPF_SIM_SIMOPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "cmd.h"
#include "opts.h"
#include "sim/sim.h"

enum dc_sim_wl { DC_SIM_WL_WEBSEARCH = 0, DC_SIM_WL_INCAST = 1, DC_SIM_WL_MIX = 2 };

struct dc_sim_opts {
	int workload;		/* enum dc_sim_wl */
	const char *trace;	/* NULL: generate the workload */
	__u32 ports;
	__u64 buffer;
	int mode;		/* enum dc_sim_mode */
	__u64 slots;
	double load;
	double incast_frac;
	__u32 incast_senders;
	__u32 incast_period;
	__u32 slot_bytes;
	__u64 slot_ns;
	__u32 mtu;
};

extern const struct dc_opt_name dc_sim_workload_names[];
extern const struct dc_opt_name dc_sim_mode_names[];

/* The defaults are those of dc_sim_cfg_defaults and
 * dc_sim_workload_defaults (test_sim checks that they agree). */
#define DC_SIM_WORKLOAD_OPTS(T, m)							\
	{ "workload", 0, DC_OPT_ENUM, DC_FIELD(T, m.workload), NULL,			\
	  .help = "the generated workload", .def = "mix",				\
	  .names = dc_sim_workload_names },						\
	{ "trace", 0, DC_OPT_PATH, DC_FIELD(T, m.trace), "FILE",			\
	  .help = "replay a CSV trace instead (docs/admission.md, \"Trace replay\")" },	\
	{ "ports", 0, DC_OPT_U64, DC_FIELD(T, m.ports), "N",				\
	  .help = "switch ports, one queue each", .def = "16",				\
	  .umin = 1, .umax = DC_SIM_PORTS_MAX },					\
	{ "buffer", 0, DC_OPT_U64, DC_FIELD(T, m.buffer), "B",				\
	  .help = "shared buffer B: packets (unit mode) or bytes", .def = "1000",	\
	  .umin = 1, .umax = 0xffffffffULL },						\
	{ "mode", 0, DC_OPT_ENUM, DC_FIELD(T, m.mode), NULL,				\
	  .help = "what B and a packet count: unit packets or bytes", .def = "unit",	\
	  .names = dc_sim_mode_names },							\
	{ "slots", 0, DC_OPT_U64, DC_FIELD(T, m.slots), "S",				\
	  .help = "timeslots of the generated workload", .def = "200000",		\
	  .umin = 1, .umax = 100000000 },						\
	{ "load", 0, DC_OPT_DOUBLE, DC_FIELD(T, m.load), "L",				\
	  .help = "web-search load per input port", .def = "0.4",			\
	  .dmin = 0, .dmax = 1 },							\
	{ "incast-frac", 0, DC_OPT_DOUBLE, DC_FIELD(T, m.incast_frac), "F",		\
	  .help = "an incast burst as a fraction of B", .def = "0.5",			\
	  .dmin = 0, .dmax = 100, .flags = DC_OPT_F_MIN_EXCL },				\
	{ "incast-senders", 0, DC_OPT_U64, DC_FIELD(T, m.incast_senders), "K",		\
	  .help = "inputs answering each incast query", .def = "15",			\
	  .umin = 1, .umax = DC_SIM_PORTS_MAX },					\
	{ "incast-period", 0, DC_OPT_U64, DC_FIELD(T, m.incast_period), "SLOTS",	\
	  .help = "mean slots between incast queries", .def = "2000",			\
	  .umin = 1, .umax = 100000000 },						\
	{ "slot-bytes", 0, DC_OPT_U64, DC_FIELD(T, m.slot_bytes), "N",			\
	  .help = "byte mode: bytes a port sends per slot", .def = "1500",		\
	  .umin = 1, .umax = 1000000 },							\
	{ "slot-ns", 0, DC_OPT_U64, DC_FIELD(T, m.slot_ns), "NS",			\
	  .help = "time of a slot (trace time_ns, EWMA features)", .def = "12000",	\
	  .umin = 1, .umax = 1000000000 },						\
	{ "mtu", 0, DC_OPT_U64, DC_FIELD(T, m.mtu), "BYTES",				\
	  .help = "byte mode: packet size of the generated workload", .def = "1500",	\
	  .umin = 64, .umax = 65535 }

#define DC_SIM_WORKLOAD_NOPTS 13

/* Into the engine's and the generator's settings (the rest keep their
 * defaults). */
void dc_sim_opts_apply(const struct dc_sim_opts *o, struct dc_sim_cfg *c,
		       struct dc_sim_workload *w);

/*
 * Which entries of the running command's table were on its command line
 * (given[i] for tab[i]), from argv as the dispatcher handed it over.
 * 0, or the exit code with ctx->err set.
 */
int dc_sim_given(struct dc_ctx *ctx, int argc, char **argv, bool *given);

/*
 * With --trace, the options that only shape a generated workload are
 * refused: the shared ones (--workload --slots --load --incast-* --mtu)
 * and the command's own names in extra (NULL-terminated).  why ends the
 * message.  0, or EXIT_USAGE with err naming the first such option.
 */
int dc_sim_trace_refuse(const struct dc_opt *tab, const bool *given, const char *const *extra,
			const char *why, struct dc_err *err);

#endif
