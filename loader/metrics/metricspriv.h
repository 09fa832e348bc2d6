/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `dcbpf metrics` inside: the snapshot of every pinned counter that
 * metricsread.c fills and metrics.c prints.
 */
#ifndef DCBPF_LOADER_METRICSPRIV_H
#define DCBPF_LOADER_METRICSPRIV_H

#include "err.h"

#include <stdbool.h>
#include "dcbpf/types.h"
#include "dcbpf/int.h"
#include "dcbpf/switch.h"
#include "dcbpf/ethereal.h"
#include "dcbpf/dctcp.h"
#include "object.h"
#include "counters.h"

#define MAX_SWITCHES 64

struct sw_port_m {
	bool used;
	char ifname[DC_SW_IFNAME_LEN + 1];
	__u64 qlen_bytes, qlen_pkts, tx_bytes, thresh_bytes;
	__u32 rate_mbps;
	struct dc_sw_counters cnt;	/* summed over priorities and CPUs */
};

struct sw_m {
	char name[DC_SW_NAME_LEN + 1];
	bool have_port, have_state, have_cnt, have_xstats;
	struct sw_port_m port[DC_SW_PORTS_MAX];
	struct dc_sw_state state;
	struct dc_sw_counters other;	/* key DC_SW_CNT_OTHER */
	struct dc_int_counters xstats;
};

#define MAX_ETH_NS 64

/* Ethereal pins of one namespace: <pin_dir>/eth/<netns or "host">/. */
struct eth_m {
	char netns[64];		/* "" for the daemon's own ("host") */
	bool have_host, have_leaf;
	struct dc_eth_hcounters host;
	struct dc_eth_lcounters leaf;	/* summed over CPUs */
};

#define MAX_HOST_IFS 256

/* A host INT attachment pinned under pin_dir/int/. */
struct host_if_m {
	char netns[64];
	char ifname[16];
	bool live;		/* both hooks attached to the current device */
};

#define MAX_AREA_ROWS 128
#define AREA_CTR_MAX 32

/* The counters of an area whose programs pin them beside their other
 * maps (metricsread.c's table: ICON, ICTCP, ResQueue, s-PERC, cosy): one
 * row per pinned directory, the values laid out as the set's struct. */
struct area_m {
	unsigned int src;	/* index into the reader's table of areas */
	char netns[64];		/* per-namespace areas: "" for "host" */
	__u64 v[AREA_CTR_MAX];
};

/* One area in the reader's table (metricsread.c). */
struct area_src {
	const char *prefix;		/* "dcbpf_icon_" */
	const char *map;		/* "dc_icon_stats", at key 0 */
	const struct dc_ctr_set *set;
	const char *base;		/* PIN_DIR/base */
	bool per_ns;			/* PIN_DIR/base/<netns or host>/map */
	bool percpu;
};
extern const struct area_src dc_metrics_areas[];

struct snapshot {
	bool daemon_up;
	struct host_if_m host_if[MAX_HOST_IFS];
	unsigned int nhost_if;
	bool cc_registered[DC_CC_REGS_MAX];	/* indexed like dc_cc_regs */
	bool have_stats, have_flows, have_int;
	struct dc_cc_counters stats[DC_CC_MAX];
	__u64 flows[DC_CC_MAX][DC_MODE_INT + 1];
	__u64 flows_other;		/* entries of an unknown cc or mode */
	__u64 flows_entries, flows_max;
	struct dc_int_counters int_stats;
	struct sw_m sw[MAX_SWITCHES];
	unsigned int nsw;
	struct eth_m eth[MAX_ETH_NS];
	unsigned int neth;
	bool have_dctcp;
	struct dc_dctcp_stats dctcp;	/* every loaded dctcp object, summed */
	struct area_m area[MAX_AREA_ROWS];
	unsigned int narea;
	unsigned int errors;
	char first_error[DC_ERR_MSG_LEN];	/* the first of them, in words */
};

/* Count an unreadable part of the snapshot and keep the first reason. */
void dc_metrics_error(struct snapshot *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Everything pinned under pin_dir (and the loaded dctcp maps) into s,
 * which the caller zeroed; unreadable maps are counted in s->errors, the
 * first reason kept in s->first_error. */
void dc_metrics_read(struct snapshot *s, const char *pin_dir);

#endif
