// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Option tables: the checks a table must pass (dc_opts_check, opts.h). */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "cli.h"
#include "opts.h"
#include "optint.h"

static int check_one(const struct dc_opt *tab, const struct dc_opt *o, bool *seen_rest,
		     bool *seen_opt_pos, struct dc_err *e)
{
	const struct dc_opt *q;
	char l[80];

	label(o, l, sizeof(l));
	/* a positional's name is only shown ("KEY=VALUE") */
	if (!o->name[0] || (!dc_opt_is_pos(o) && (strpbrk(o->name, "= \t") || o->name[0] == '-')))
		return dc_err_set(e, EXIT_USAGE, "'%s': a name is non-empty, without '=', spaces or a leading '-'",
				  o->name);
	if (o->type <= DC_OPT_END || o->type > DC_OPT_REST)
		return dc_err_set(e, EXIT_USAGE, "%s: unknown type %d", l, (int)o->type);
	if (!o->help || !o->help[0])
		return dc_err_set(e, EXIT_USAGE, "%s: no help text", l);
	if (o->short_name == 'h' && strcmp(o->name, "help"))
		return dc_err_set(e, EXIT_USAGE, "%s: -h is reserved for help", l);
	for (q = tab; q < o; q++) {
		if (dc_opt_is_pos(q) != dc_opt_is_pos(o))
			continue;
		if (!strcmp(q->name, o->name))
			return dc_err_set(e, EXIT_USAGE, "%s declared twice", l);
		if (o->short_name && q->short_name == o->short_name)
			return dc_err_set(e, EXIT_USAGE, "-%c declared twice", o->short_name);
	}
	if (dc_opt_is_pos(o)) {
		if (*seen_rest)
			return dc_err_set(e, EXIT_USAGE, "%s: follows the REST positional", l);
		if (o->short_name || o->type == DC_OPT_FLAG || o->type == DC_OPT_LIST)
			return dc_err_set(e, EXIT_USAGE, "%s: a positional has no short name and takes a value", l);
		if (o->required && *seen_opt_pos)
			return dc_err_set(e, EXIT_USAGE, "%s: a required positional after an optional one", l);
		*seen_rest = o->type == DC_OPT_REST;
		*seen_opt_pos |= !o->required;
	} else if (o->flags & DC_OPT_F_VERBATIM) {
		return dc_err_set(e, EXIT_USAGE, "%s: VERBATIM is for a REST positional", l);
	}
	switch (o->type) {
	case DC_OPT_FLAG:
		if (o->size != sizeof(bool) || o->required)
			return dc_err_set(e, EXIT_USAGE, "%s: a flag is a bool and never required", l);
		break;
	case DC_OPT_U64:
		if (!int_size_ok(o->size) || o->umin > o->umax ||
		    ((o->umin || o->umax) && o->umax > umax_of(o->size)))
			return dc_err_set(e, EXIT_USAGE, "%s: size %zu and range %llu..%llu do not fit", l,
					  o->size, o->umin, o->umax);
		break;
	case DC_OPT_S64:
		if (!int_size_ok(o->size) || o->smin > o->smax ||
		    ((o->smin || o->smax) && (o->smax > smax_of(o->size) || o->smin < -smax_of(o->size) - 1)))
			return dc_err_set(e, EXIT_USAGE, "%s: size %zu and range %lld..%lld do not fit", l,
					  o->size, o->smin, o->smax);
		break;
	case DC_OPT_Q16:
		if ((o->size != 4 && o->size != 8) || o->dmin < 0)
			return dc_err_set(e, EXIT_USAGE, "%s: Q16.16 is an unsigned field of 4 or 8 bytes", l);
		/* fall through */
	case DC_OPT_DOUBLE:
		if (o->type == DC_OPT_DOUBLE && o->size != sizeof(double))
			return dc_err_set(e, EXIT_USAGE, "%s: not a double field", l);
		if (!isfinite(o->dmin) || !isfinite(o->dmax) || o->dmin > o->dmax)
			return dc_err_set(e, EXIT_USAGE, "%s: range %g..%g", l, o->dmin, o->dmax);
		break;
	case DC_OPT_STR:
	case DC_OPT_PATH:
	case DC_OPT_DIR:
		if (o->size != sizeof(const char *))
			return dc_err_set(e, EXIT_USAGE, "%s: not a const char * field", l);
		break;
	case DC_OPT_ENUM: {
		const struct dc_opt_name *n, *m;

		if (!int_size_ok(o->size) || !o->names || !o->names[0].name)
			return dc_err_set(e, EXIT_USAGE, "%s: an enum needs names and an integer field", l);
		for (n = o->names; n->name; n++) {
			if (!n->name[0])
				return dc_err_set(e, EXIT_USAGE, "%s: an empty name", l);
			for (m = o->names; m < n; m++)
				if (!strcmp(m->name, n->name))
					return dc_err_set(e, EXIT_USAGE, "%s: '%s' twice", l, n->name);
			if (o->size < 8 && (n->value > smax_of(o->size) || n->value < -smax_of(o->size) - 1))
				return dc_err_set(e, EXIT_USAGE, "%s: '%s' does not fit the field", l, n->name);
		}
		break;
	}
	case DC_OPT_LIST:
		if (o->size != sizeof(struct dc_opt_list))
			return dc_err_set(e, EXIT_USAGE, "%s: not a struct dc_opt_list field", l);
		break;
	case DC_OPT_REST:
		if (o->size != sizeof(struct dc_opt_rest))
			return dc_err_set(e, EXIT_USAGE, "%s: not a struct dc_opt_rest field", l);
		break;
	default:
		break;
	}
	if (o->def && o->required)
		return dc_err_set(e, EXIT_USAGE, "%s: required with a default", l);
	if (o->def && o->type != DC_OPT_FLAG && o->type != DC_OPT_REST) {
		unsigned char scratch[sizeof(struct dc_opt_list) + 64];
		struct dc_opt tmp = *o;

		memset(scratch, 0, sizeof(scratch));
		tmp.off = 0;
		if (dc_opt_set_value(&tmp, scratch, o->def, e)) {
			dc_err_prefix(e, "default");
			return e->code;
		}
	}
	return 0;
}

int dc_opts_check(const struct dc_opt *tab, struct dc_err *err)
{
	bool seen_rest = false, seen_opt_pos = false;
	const struct dc_opt *o;

	if (dc_opts_count(tab) > DC_OPTS_MAX)
		return dc_err_set(err, EXIT_USAGE, "more than %d entries", DC_OPTS_MAX), -1;
	for (o = tab; o && o->name; o++)
		if (check_one(tab, o, &seen_rest, &seen_opt_pos, err))
			return -1;
	return 0;
}
