/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What `cosy attach`/`detach` (cosyattach.c) and `cosy status`
 * (cosystatus.c) share: the pin directory and the configured ports.
 */
#ifndef DCBPF_LOADER_COSY_COSYSW_H
#define DCBPF_LOADER_COSY_COSYSW_H

#include <net/if.h>
#include <stddef.h>
#include <linux/types.h>
#include "dcbpf/cosy.h"
#include "err.h"

/* maps/cosy.h's sizes (that header defines the maps themselves). */
#define PORTS_MAX 64
#define ROUTES_MAX 4096

/* The namespace as messages name it: "(own)" for ours. */
const char *cosy_ns_label(const char *netns);
/* PIN_DIR/cosy/NS ("host" for our own namespace) into buf; 0 or err's code. */
int cosy_dir(char *buf, size_t len, const char *pin_dir, const char *netns, struct dc_err *err);
/* The configured ports of dc_cosy_port (pfd): their names, read in the
 * switch's namespace, numbers and (pts not NULL) entries; how many. */
unsigned int cosy_port_names(const char *netns, int pfd, char (*names)[IF_NAMESIZE], __u32 *nums,
			     struct dc_cosy_port *pts);

#endif
