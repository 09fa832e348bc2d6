/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Emulated switches: `dcbpf switch …` and the `sw.<name>.<key>`
 * parameters of `dcbpf get/set`.  One emulated switch = one instance of
 * bpf/switch.bpf.c, maps and links pinned under <pin_dir>/sw/<name>/.
 * CLI reference: docs/cli.md; what each file owns: loader/sw/README.md.
 * Nothing here prints an error: it comes back in a struct dc_err (or a
 * reason string) for the command to report.
 */
#ifndef DCBPF_LOADER_SWCTL_H
#define DCBPF_LOADER_SWCTL_H

#include <stdbool.h>
#include <stdio.h>
#include <dcbpf/switch.h>
#include <dcbpf/forest.h>

#include "cmd.h"
#include "err.h"
#include "json.h"

#define DC_SW_DIR "sw"

/* `dcbpf switch up|down|status|list|params|sample|capture` */
extern const struct dc_cmd dc_sw_cmds[];

/* `dcbpf set sw.NAME.KEY=VALUE ...` (every argument a switch key): all
 * validated first, then each switch's configuration published whole; the
 * changes on stdout or into j.  An exit code, err set when not 0. */
int dc_sw_set(const char *pin_dir, bool json, struct jw *j, int argc, char **argv,
	      struct dc_err *err);
/* `dcbpf get sw.NAME[.KEY]` */
int dc_sw_get(const char *pin_dir, bool json, struct jw *j, const char *key, struct dc_err *err);
/* One line per switch for `dcbpf status` (text), or a "switches" array;
 * a switch that cannot be read is left out. */
void dc_sw_status_brief(const char *pin_dir, bool json, struct jw *j);
/*
 * Publish a Credence model on switch `sw`: validate it (dc_rf_validate),
 * write the idle slot of <pin_dir>/sw/<sw>/dc_sw_model, then flip
 * dc_sw_meta.model_slot, so a packet evaluates the old or the new model,
 * never a mix.  On any error nothing changes, the running model stays and
 * *why says why.  Returns 0 or a negative errno (-EINVAL: invalid model).
 */
int dc_sw_model_load(const char *pin_dir, const char *sw, const struct dc_rf_model *m, char *why,
		     size_t whylen);
/* The live model of switch `sw`; *loaded = false (and *m zeroed) when
 * none was ever published.  0 or a negative errno with *why. */
int dc_sw_model_get(const char *pin_dir, const char *sw, struct dc_rf_model *m, bool *loaded,
		    char *why, size_t whylen);
/* `dcbpf trace --switch NAME`: admission drops on stdout as a table or
 * CSV, until count drops (0 = no limit), duration_s (0 = none) or a
 * signal.  *lost: events the full ring buffer dropped meanwhile.  An exit
 * code, err set when not 0. */
int dc_sw_trace_drops(const char *pin_dir, const char *name, bool csv, unsigned long count,
		      double duration_s, __u64 *lost, struct dc_err *err);
/* Defaults written at `switch up`. */
void dc_sw_cfg_defaults(struct dc_sw_cfg *c);
/* The parameter reference (markdown). */
void dc_sw_print_doc(FILE *f);

#endif
