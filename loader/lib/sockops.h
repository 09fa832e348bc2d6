/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A sockops program of one area (ICON, ICTCP) on a cgroup v2 directory:
 * its link pinned at DIR/sockops beside the area's maps, so it outlives
 * the command and is taken off by removing the pin.  The skeleton is the
 * caller's: begin, load it with pin_root_path = DIR, link, or unpin DIR on
 * failure.
 */
#ifndef DCBPF_LOADER_SOCKOPS_H
#define DCBPF_LOADER_SOCKOPS_H

#include <stddef.h>

#include "err.h"

#define DC_SOCKOPS_PIN "sockops"

/* An area's object: its skeleton's ELF and the program that goes on the
 * cgroup. */
struct dc_sockops_obj {
	const char *what;			/* "ICON": in messages */
	const char *obj;			/* "icon": its pins in the registry */
	const char *skel;			/* "icon_bpf": the skeleton's object name */
	const char *prog;			/* "dc_icon_sockops" */
	const void *(*elf_bytes)(size_t *sz);	/* icon_bpf__elf_bytes */
};

/* Before loading: refuses a second attach (`what` names the area in
 * errors), opens the cgroup, makes DIR.  The cgroup's fd, or -1 with e set. */
int dc_sockops_begin(const char *what, const char *dir, const char *cgroup, struct dc_err *e);
/* After loading: links prog_fd to the cgroup cg and pins the link at
 * DIR/sockops.  0, or EXIT_ERR with e set. */
int dc_sockops_link(int prog_fd, int cg, const char *dir, const char *cgroup, struct dc_err *e);
/* All of an attach: begin, load o with its maps pinned in DIR, link its
 * program to the cgroup; on failure nothing stays pinned.  0, or the exit
 * code with e set. */
int dc_sockops_attach(const struct dc_sockops_obj *o, const char *dir, const char *cgroup,
		      struct dc_err *e);
/* Takes the program off and unpins the maps of object `obj` in DIR (and
 * DIR when empty).  0; EXIT_ERR with e set when nothing was attached. */
int dc_sockops_detach(const char *what, const char *obj, const char *dir, struct dc_err *e);

#endif
