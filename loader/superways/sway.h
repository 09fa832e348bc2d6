/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Superways plan input (docs/superways.md): parameters, racks and
 * applications, read from a small text file; the planner itself is
 * include/dcbpf/superways.h.
 */
#ifndef DCBPF_SUPERWAYS_SWAY_H
#define DCBPF_SUPERWAYS_SWAY_H

#include <stdbool.h>

#include "err.h"
#include "dcbpf/superways.h"

struct dc_sway_input {
	struct dc_sway_params p;
	bool p_set[5];			/* alpha, flow-bytes, leaf-buffer, spine-buffer, theta */
	struct dc_sway_rack racks[DC_SWAY_RACKS_MAX];
	unsigned int nracks;
	struct dc_sway_app apps[DC_SWAY_APPS_MAX];
	unsigned int napps;
};

/* The thesis' Ch. 4 simulation values where a file and the options say
 * nothing: alpha 0.8, s 1500 B, B_l = B_s = 240000 B, theta 4. */
void dc_sway_defaults(struct dc_sway_params *p);
/* text (name for messages) into in; refusals name the line and the rule. */
int dc_sway_parse(const char *text, const char *name, struct dc_sway_input *in, struct dc_err *err);
int dc_sway_load(const char *path, struct dc_sway_input *in, struct dc_err *err);
/* After the options are applied: parameters and applications usable. */
int dc_sway_check(const struct dc_sway_input *in, const char *name, struct dc_err *err);

#endif
