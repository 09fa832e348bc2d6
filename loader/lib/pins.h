/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The pin registry: every path dcbpf pins under its pin directory.
 *
 * Maps: the table dc_pin_maps lists, per BPF object, each map the object
 * pins by name (LIBBPF_PIN_BY_NAME in the maps/ headers).  It is generated at build
 * time from the compiled objects themselves (loader/lib/tools/pinsgen.c
 * opens each .bpf.o with libbpf, without loading it, and writes
 * $(BUILD)/pins.gen.h), so a map added to a maps/ header is pinned, found and
 * unpinned without a list to keep in step, and the table exists before any
 * object is loaded (detach and tidy-up run without one).
 *
 * Directories: DIR below is one of
 *   PIN_DIR                     CC maps and links, INT host maps
 *   PIN_DIR/int/NS|host         INT host programs of a namespace
 *   PIN_DIR/eth/NS|host         Ethereal host or leaf state of a namespace
 *   PIN_DIR/sw/NAME             an emulated switch
 *   PIN_DIR/sw/NAME/int         INT transit programs of a switch
 * Programs attached to an interface pin as DIR/IFNAME_HOOK (dc_link_pin).
 *
 * Nothing here prints: errors are -errno and, where asked, a dc_err.
 */
#ifndef DCBPF_LIB_PINS_H
#define DCBPF_LIB_PINS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "err.h"

struct dc_pin_map {
	const char *obj;	/* BPF object, file name without .bpf.o: "ethereal" */
	const char *name;	/* map name, the pin's file name: "dc_eth_hcfg" */
	__u32 type;		/* enum bpf_map_type */
};

extern const struct dc_pin_map dc_pin_maps[];
extern const size_t dc_pin_nmaps;

enum dc_pin_area {
	DC_PIN_ROOT,		/* PIN_DIR itself (sub ignored) */
	DC_PIN_INT_BASE,	/* int: one directory per namespace below (sub ignored) */
	DC_PIN_ETH_BASE,	/* eth (sub ignored) */
	DC_PIN_SW_BASE,		/* sw: one directory per switch below (sub ignored) */
	DC_PIN_INT,		/* int/SUB, SUB NULL or "": the own namespace, "host" */
	DC_PIN_ETH,		/* eth/SUB, same rule */
	DC_PIN_SW,		/* sw/SUB, SUB the switch (required) */
	DC_PIN_SW_INT,		/* sw/SUB/int */
	DC_PIN_PERC,		/* perc/SUB, SUB the namespace as for DC_PIN_INT */
	DC_PIN_RESQ,		/* resq/SUB, same rule */
	DC_PIN_RDCN,		/* rdcn/SUB, the circuit switch's namespace, same rule */
};

/* The directory of an area under pin_dir.  0, or -EINVAL (switch name
 * missing, or a name with '/' or a dot: bpffs refuses dots) or
 * -ENAMETOOLONG (buf too small). */
int dc_pin_dir(char *buf, size_t len, const char *pin_dir, enum dc_pin_area area,
	       const char *sub);
/* The directory of a per-namespace area (DC_PIN_INT, _ETH, _PERC, _RESQ, _RDCN)
 * for netns (NULL or "": our own, "host"): ifindexes and flows repeat
 * across namespaces, so each has its own maps.  0, or an error naming
 * --netns and why (EXIT_USAGE). */
int dc_pin_ns_dir(char *buf, size_t len, const char *pin_dir, enum dc_pin_area area,
		  const char *netns, struct dc_err *err);
/* The pinned map NAME under DIR: its fd, or -1 with err saying what is
 * missing and, when the pin is absent, that WHAT (e.g. "ResQueue") is not
 * attached and how to attach it (attach_hint, "dcbpf resq attach ..."). */
int dc_pin_open_map(const char *dir, const char *name, const char *what, const char *attach_hint,
		    struct dc_err *err);
/* DIR/NAME for any pin (a struct_ops link or map named by dc_cc_regs, a
 * program); 0 or -ENAMETOOLONG. */
int dc_pin_path(char *buf, size_t len, const char *dir, const char *name);
/* DIR/NAME for a map some object pins; -ENOENT if none pins NAME. */
int dc_pin_map_path(char *buf, size_t len, const char *dir, const char *name);
/* The object that pins map NAME, or NULL. */
const struct dc_pin_map *dc_pin_map_find(const char *name);
/* Iterate the maps OBJ pins: start with *i = 0; NULL at the end. */
const struct dc_pin_map *dc_pin_map_next(const char *obj, size_t *i);
/* The pin of a program attached to an interface: DIR/IFNAME_HOOK, hook e.g.
 * "ingress", "egress".  -EINVAL for an empty name or one with '/' or '.'
 * (bpffs refuses dots; a VLAN name like eth0.100 cannot be a pin name),
 * -ENAMETOOLONG. */
int dc_link_pin(char *buf, size_t len, const char *dir, const char *ifname, const char *hook);
/*
 * Remove what object OBJ pinned by name in DIR (a pin already gone is
 * fine), except the maps object EXCEPT (may be NULL) pins as well: objects
 * reuse each other's pins (int reuses the CC maps of powertcp, int_transit
 * the switch's), and those stay for their owner.  Then DIR itself when
 * rmdir_dir and it is empty.  Returns 0 or the first -errno, with err
 * naming the path.
 */
int dc_pins_unpin(const char *dir, const char *obj, const char *except, bool rmdir_dir,
		  struct dc_err *err);
/*
 * Which of object OBJ's maps are pinned in DIR now: bit k for the k-th map
 * dc_pin_map_next yields (a map past the 64th counts as pinned, so that
 * dc_pins_unpin_new never removes it).
 */
__u64 dc_pins_present(const char *dir, const char *obj);
/*
 * Undo a failed load: remove the pins of OBJ's maps in DIR that were not
 * there before (BEFORE from dc_pins_present), then DIR when empty.  Pins
 * that were there — another instance's, or a map of another layout that
 * refused the load — stay.
 */
void dc_pins_unpin_new(const char *dir, const char *obj, __u64 before);
/* Does object OBJ pin map NAME? */
bool dc_pin_obj_has(const char *obj, const char *name);

#endif
