/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Inside loader/sw/: what its files share.  The parameter engine
 * (swparams.c), one switch's pinned state (swstate.c) and each command's
 * option struct and entry point, listed in swcmds.c.  Nothing here
 * prints: failures come back in a struct dc_err.
 */
#ifndef DCBPF_SW_SWINT_H
#define DCBPF_SW_SWINT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <dcbpf/switch.h>

#include "bpfsys.h"
#include "cmd.h"
#include "err.h"
#include "cli.h"
#include "config.h"
#include "sw/swctl.h"

/* pinned names under <pin_dir>/sw/<name>/ (maps of bpf/switch.bpf.c, links) */
#define M_CFG "dc_sw_cfg"
#define M_META "dc_sw_meta"
#define M_PORT "dc_sw_port"
#define M_STATE "dc_sw_state"
#define M_IFPORT "dc_sw_ifport"
#define M_CNT "dc_sw_cnt"
#define M_MODEL "dc_sw_model"
#define M_CRED "dc_sw_cred"
#define M_EVENTS "dc_sw_events"
#define M_RV "dc_sw_rv"
#define M_SONIC "dc_sw_sonic"
#define L_ENQ "link_q_enq"
#define L_DEQ "link_q_deq"
#define L_XDP_PREFIX "link_xdp_"
#define L_PRIO_PREFIX "link_prio_"
#define M_QUEUE "dc_sw_queue"
/* netlink TC filter of dc_sw_prio (no tcx): before INT's 0xdcb */
#define SW_PRIO_TC_PRIO 0xdca

#define SW_NAME_RULE "1-15 of A-Z a-z 0-9 - _"

/* ---- parameters (swparams.c) ---- */

enum { SW_K_ALG = 100, SW_K_DSCP, SW_K_FIRST_RTT, SW_K_DRAIN, SW_K_TAGPORT, SW_K_PMODE, SW_K_Q32 };

struct sw_param {
	const char *name;
	int kind;		/* enum dc_kind or SW_K_* */
	size_t off;		/* in struct dc_sw_cfg */
	__u32 min, max;
	unsigned int count;	/* > 0: indexed, NAME.I with I < count */
	const char *unit;
	const char *doc;
};

extern const struct sw_param sw_params[];
extern const unsigned int sw_nparams;

const char *sw_alg_name(__u32 alg);
/* Reverie's parameters that do not fit together (headroom pool against
 * the buffer, one queue's headroom against the pool), or NULL. */
const char *sw_rv_refuse(const struct dc_sw_cfg *cfg, char *buf, size_t len);
const char *sw_drain_name(__u32 drain);
/* "alpha.3" → parameter and index (-1 = all of an indexed one); NULL with err. */
const struct sw_param *sw_param_find(const char *key, int *index, struct dc_err *err);
void sw_param_format(const struct sw_param *sp, int index, const struct dc_sw_cfg *cfg, char *buf,
		     size_t len);
/* One KEY=VALUE into cfg; on error cfg is unchanged and err names key,
 * value and what is allowed ("PREFIX" goes in front of the key). */
int sw_assign(const char *kv, struct dc_sw_cfg *cfg, const char *prefix, struct dc_err *err);
/* Algorithms that decide per (port, queue) when nqueues > 1; NULL if alg
 * may run with that many queues, else why not. */
const char *sw_queues_refuse(__u32 nqueues, __u32 alg);
/* A classification mode (dc_sw_cfg.prio_mode) that needs queues on a
 * switch without them: why not; NULL if it may run. */
const char *sw_mode_refuse(__u32 nqueues, __u32 mode);
const char *sw_pmode_name(__u32 mode);
/* Reverie and SONiC need a root qdisc that queues on every port (their
 * departures are its dequeues): NULL if IFNAME's does, else why not
 * (swup.c, through tc(8) in NETNS). */
const char *sw_port_queue_refuse(const char *netns, const char *ifname, char *why, size_t len);
/* The name rule of a switch (pin directory name, dc_sw_meta.name). */
bool sw_valid_name(const char *n);

/* ---- one switch's pinned state (swstate.c) ---- */

struct sw {
	char name[DC_SW_NAME_LEN];
	char dir[DC_PATH_LEN + 64];
	int cfg, meta, port, state, ifport, cnt;
};

/* <pin_dir>/sw/<name> (the pin registry's rule); 0 or a negative errno. */
int sw_dir(const char *pin_dir, const char *name, char *buf, size_t len);
/* Open the maps of switch `name`; EXIT_ERR with err (bad name, not up,
 * a map missing or of the wrong shape). */
int sw_open(const char *pin_dir, const char *name, struct sw *s, struct dc_err *err);
void sw_close(struct sw *s);
int sw_read_cfg(struct sw *s, struct dc_sw_meta *meta, struct dc_sw_cfg *cfg);
/* Publish cfg: the idle slot whole, then the flip (serialised with model loads). */
int sw_write_cfg(struct sw *s, const struct dc_sw_cfg *cfg);
int sw_lock(const char *dir);
void sw_unlock(int fd);
/* A per-CPU counter entry summed over CPUs; 0 or a negative errno. */
int sw_sum_counters(int fd, __u32 key, struct dc_sw_counters *out);
/* Switch names pinned under pin_dir, at most max; their count. */
int sw_list(const char *pin_dir, char names[][DC_SW_NAME_LEN], int max);
/* Remove every pin of a switch (links detached first) and its directory. */
void sw_remove_dir(const char *pin_dir, const char *dir);
__u64 sw_mono_ns(void);

/* ---- commands (one file each; the table in swcmds.c) ---- */

struct sw_up_args {
	const char *name, *netns, *ports, *rates;
	int xdp_flags;
	__u32 queues;
	bool no_links;
	struct dc_opt_rest kv;
};
struct sw_name_args {
	const char *name;
};
struct sw_sample_args {
	const char *name;
	__u32 count, interval_us;
};
struct sw_capture_args {
	const char *name, *out;
	__u32 count, every;
	double duration;
};

int sw_cmd_up(struct dc_ctx *ctx, int argc, char **argv);
int sw_cmd_down(struct dc_ctx *ctx, int argc, char **argv);
int sw_cmd_status(struct dc_ctx *ctx, int argc, char **argv);
int sw_cmd_list(struct dc_ctx *ctx, int argc, char **argv);
int sw_cmd_params(struct dc_ctx *ctx, int argc, char **argv);
int sw_cmd_sample(struct dc_ctx *ctx, int argc, char **argv);
int sw_cmd_capture(struct dc_ctx *ctx, int argc, char **argv);

#endif
