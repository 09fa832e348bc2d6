/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `dcbpf switch …` and the `sw.<name>.<key>` parameters of `dcbpf get/set`:
 * one emulated switch = one instance of bpf/switch.bpf.c, maps and links
 * pinned under <pin_dir>/sw/<name>/.  CLI reference: docs/cli.md.
 */
#ifndef DCBPF_LOADER_SWCTL_H
#define DCBPF_LOADER_SWCTL_H

#include <stdbool.h>
#include <stdio.h>
#include <dcbpf/switch.h>

#include "json.h"

#define DC_SW_DIR "sw"

/* `dcbpf switch SUBCOMMAND ...`; argv[0] is "switch". Returns an exit code. */
int dc_sw_main(const char *pin_dir, bool json, struct jw *j, int argc, char **argv);
/* `dcbpf set sw.NAME.KEY=VALUE ...` (every argument a switch key). */
int dc_sw_set(const char *pin_dir, bool json, struct jw *j, int argc, char **argv);
/* `dcbpf get sw.NAME[.KEY]` */
int dc_sw_get(const char *pin_dir, bool json, struct jw *j, const char *key);
/* One line per switch for `dcbpf status` (text), or a "switches" array. */
void dc_sw_status_brief(const char *pin_dir, bool json, struct jw *j);
/* Defaults written at `switch up`. */
void dc_sw_cfg_defaults(struct dc_sw_cfg *c);
/* The parameter reference (markdown). */
void dc_sw_print_doc(FILE *f);

#endif
