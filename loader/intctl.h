/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* `dcbpf int …`: INT programs on hosts and switches (docs/int.md, docs/cli.md). */
#ifndef DCBPF_LOADER_INTCTL_H
#define DCBPF_LOADER_INTCTL_H

/* argv[0] is "int".  Returns a dcbpf exit code. */
int dc_int_main(const char *pin_dir, int argc, char **argv);

#include <stdbool.h>

/* Host programs on (or off) each of ifaces, all or nothing: `dcbpf int
 * attach/detach` and `dcbpf attach/detach`. */
int dc_int_host_cmd(const char *pin_dir, const char *netns, bool no_links, int n,
		    char **ifaces, bool detach);

#endif
