/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * dcbpfd's state and the functions its files share: dcbpfd.c (options,
 * readiness, the signal loop, main), ccreg.c (the CC objects, their
 * registration and the config map), ifwatch.c ([int]: host programs on the
 * configured interfaces, link changes, destinations), reload.c (start,
 * reload, stop, metrics_file).
 */
#ifndef DCBPF_DCBPFD_H
#define DCBPF_DCBPFD_H

#include <stdbool.h>
#include <net/if.h>
#include <bpf/libbpf.h>

#include "cli.h"
#include "config.h"
#include "object.h"

enum {
	/* EXIT_OK 0 and EXIT_USAGE 2 as every dcbpf command (cli.h) */
	EXIT_CONFIG = 1,	/* config invalid (also -t) */
	EXIT_RUNTIME = 3,	/* load, pin, register or kernel feature failed */
	EXIT_RUNNING = 4,	/* another dcbpfd holds the lock */
	EXIT_CONFLICT = 5,	/* a CC name is registered by someone else */
};

#define MAX_OBJ_PINS 16
#define MAX_IFACES 256

struct cc_reg {
	int link_fd;		/* struct_ops link, or -1 */
	int map_fd;		/* struct_ops map registered by map update, or -1 */
	bool adopted;		/* found pinned and registered at start */
	bool registered;	/* registered by this run */
};

struct daemon {
	const char *conf_path;
	bool conf_explicit;
	bool keep;
	bool no_links;
	struct dc_config cfg;
	int lock_fd;
	bool pin_dir_created;
	int nargs;
	bool use_links;
	struct bpf_object *obj[DC_CC_OBJECTS_MAX];	/* indexed like dc_cc_objects */
	int cfg_fd;
	struct cc_reg reg[DC_CC_REGS_MAX];		/* indexed like dc_cc_regs */
	/* map pins created by this run (undone if the start fails) */
	char *new_pins[MAX_OBJ_PINS * DC_CC_OBJECTS_MAX];
	unsigned int nnew_pins;
	/* config entries found before this run wrote them (restored on failure) */
	bool prev_valid[DC_CC_MAX];
	struct dc_cc_cfg prev[DC_CC_MAX];
	/* [int]: interfaces that carry the host programs because the config
	 * names them (attached or adopted by this run); only these are taken
	 * off when the config stops naming them */
	char owned[MAX_IFACES][IF_NAMESIZE];
	int nowned;
	int nl_fd;		/* RTNLGRP_LINK of the [int] namespace, or -1 */
	int timer_fd;		/* metrics_file period, or -1 */
};

/* dcbpfd.c */
void dmn_log_errbuf_level(const struct dc_errbuf *eb, __u32 level);
void dmn_log_errbuf(const struct dc_errbuf *eb);
int dmn_read_config(struct daemon *d, struct dc_config *out, struct dc_errbuf *eb);
/* ccreg.c */
void dmn_pin_path(const struct daemon *d, const char *name, char *buf, size_t len);
void dmn_unregister_cc(struct daemon *d, const struct dc_cc_reg *cc);
int dmn_adopt_cc(struct daemon *d, const struct dc_cc_reg *cc);
/* Whether the config asks for cc (its daemon_switch is 1, or it has none). */
bool dmn_cc_wanted(const struct daemon *d, const struct dc_cc_reg *cc);
int dmn_register_cc(struct daemon *d, const struct dc_cc_reg *cc);
int dmn_load_object(struct daemon *d, unsigned int oi);
int dmn_write_cfg(struct daemon *d, const struct dc_cc_cfg *want, const char *why);
/* ifwatch.c */
const char *dmn_int_ns(const struct dc_config *c);
void dmn_int_reconcile(struct daemon *d, const char *why_now);
void dmn_int_destinations(struct daemon *d, const char *old, const char *new);
void dmn_int_setup(struct daemon *d);
void dmn_on_netlink(struct daemon *d);
void dmn_int_stop(struct daemon *d);
/* reload.c */
void dmn_metrics_arm(struct daemon *d);
void dmn_metrics_write(struct daemon *d, bool up);
void dmn_close_all(struct daemon *d);
void dmn_undo_start(struct daemon *d);
void dmn_stop_full(struct daemon *d);
int dmn_start(struct daemon *d);
int dmn_reload(struct daemon *d);

#endif
