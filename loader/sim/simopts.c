// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The simulator's shared options (simopts.h): their names, how they reach
 * the engine and the generator, and the rule that a trace run refuses the
 * options of a generated workload.
 */
#include <string.h>

#include "cli.h"
#include "sim/simopts.h"

const struct dc_opt_name dc_sim_workload_names[] = {
	{ "websearch", DC_SIM_WL_WEBSEARCH },
	{ "incast", DC_SIM_WL_INCAST },
	{ "mix", DC_SIM_WL_MIX },
	{ NULL },
};

const struct dc_opt_name dc_sim_mode_names[] = {
	{ "unit", DC_SIM_UNIT },
	{ "byte", DC_SIM_BYTE },
	{ NULL },
};

void dc_sim_opts_apply(const struct dc_sim_opts *o, struct dc_sim_cfg *c,
		       struct dc_sim_workload *w)
{
	const struct dc_opt_name *n;

	c->nports = o->ports;
	c->buffer = o->buffer;
	c->mode = (__u32)o->mode;
	c->slot_bytes = o->slot_bytes;
	c->slot_ns = o->slot_ns;
	for (n = dc_sim_workload_names; n->name; n++)
		if (n->value == o->workload)
			w->kind = n->name;
	w->slots = o->slots;
	w->load = o->load;
	w->incast_frac = o->incast_frac;
	w->incast_senders = o->incast_senders;
	w->incast_period = o->incast_period;
	w->mtu = o->mtu;
}

int dc_sim_given(struct dc_ctx *ctx, int argc, char **argv, bool *given)
{
	/* The dispatcher parsed argv already and keeps no record of what
	 * was given: parse it again into scratch copies. */
	const struct dc_cmd *cmd = ctx->cmd;
	struct dc_ctx g = *ctx;
	bool gg[sizeof(ctx->global_given) / sizeof(ctx->global_given[0])] = { false };
	struct dc_opt_set sets[2] = {
		{ .tab = cmd->opts, .given = given },
		{ .tab = dc_global_opts, .out = &g, .given = gg },
	};
	char scratch[512] __attribute__((aligned(16)));
	int rc;

	memset(given, 0, dc_opts_count(cmd->opts) * sizeof(*given));
	if (cmd->opts_size > sizeof(scratch))
		return dc_fail(ctx, EXIT_ERR, "internal error: options of %zu bytes", cmd->opts_size);
	sets[0].out = scratch;
	rc = dc_opts_parse_sets(sets, 2, argc, argv, 0, NULL, &ctx->err);
	return rc == DC_OPTS_OK ? 0 : EXIT_USAGE;
}

/* The shared options that only shape a generated workload. */
static const char *const wl_only[] = { "workload", "slots", "load", "incast-frac",
				       "incast-senders", "incast-period", "mtu", NULL };

static bool listed(const char *const *l, const char *name)
{
	for (; l && *l; l++)
		if (!strcmp(*l, name))
			return true;
	return false;
}

int dc_sim_trace_refuse(const struct dc_opt *tab, const bool *given, const char *const *extra,
			const char *why, struct dc_err *err)
{
	unsigned int i;

	for (i = 0; tab[i].name; i++)
		if (given[i] && (listed(wl_only, tab[i].name) || listed(extra, tab[i].name)))
			return dc_err_set(err, EXIT_USAGE, "--%s has no effect with --trace: %s",
					  tab[i].name, why);
	return 0;
}
