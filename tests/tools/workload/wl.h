/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The workload harness's parts (tests/tools/workload.c): its flows,
 * connections and pairs, the run's parameters, and what each file offers.
 */
#ifndef DCBPF_TOOLS_WL_H
#define DCBPF_TOOLS_WL_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dcbpf/workload.h"
#include "tool.h"

#define MAGIC 0x44434257u /* "DCBW" */
#define CHUNK (256 * 1024)
#define MAX_HOSTS 256
#define NS_DIR "/run/netns/"
#define PROBES 10

enum { CL_BG, CL_INCAST, NCLASS, CL_PROBE = NCLASS };
extern const char *const class_name[];

enum { T_LISTEN, T_SINK, T_CLIENT };
enum { C_CONNECTING, C_IDLE, C_BUSY };

struct host {
	char ns[64];
	char ip[16];
	int leaf;		/* -1: not given */
	struct in_addr addr;
};

struct flow {
	uint64_t bytes;
	uint64_t arrive_ns;	/* absolute CLOCK_MONOTONIC */
	uint64_t send_ns;	/* first write */
	uint64_t done_ns;	/* 'K' read; 0 while unfinished */
	double ideal_ns;
	int32_t rto, retrans;	/* -1: not known */
	uint32_t pair;
	int32_t next;		/* FIFO of flows waiting for a connection */
	uint8_t cls;		/* CL_* (what it is reported as) */
	uint8_t ccls;		/* class of the connection it uses */
	uint16_t cc;		/* index into cc_seen */
};

struct conn {
	int type;		/* T_CLIENT */
	int fd, state, out;	/* out: EPOLLOUT armed */
	uint32_t pair;
	uint8_t cls;
	uint16_t cc;
	int32_t flow;
	uint64_t sent, total;
	uint32_t rto0, retr0;
	struct conn *next_idle;
};

struct sink {
	int type;		/* T_SINK */
	int fd;
	struct req_rx rx;
};

struct listener {
	int type;		/* T_LISTEN */
	int fd;
};

struct pair {
	uint32_t s, r;
	double rtt_ns;
	struct conn *idle[NCLASS];
	int32_t wait_head[NCLASS], wait_tail[NCLASS];
	unsigned int nconn[NCLASS];
};

/* The run's parameters (args.c), read everywhere. */
struct wl_params {
	struct host snd[MAX_HOSTS], rcv[MAX_HOSTS];
	unsigned int nsnd, nrcv;
	struct pair *pairs;
	unsigned int npairs;
	struct dc_wl_cdf cdf;
	const char *cdf_name;
	double scale, max_bytes, load, rate_mbit, cap_mbit, duration_s, timeout_s, burst, rto_min_ms, base_rtt_us;
	double mean_bytes, gap_ns;
	unsigned long long flows_limit, seed;
	unsigned int hops, mtu, port, conns, max_conns;
	int bins_unscaled;	/* bin by size / scale: the size the paper's bins refer to */
	double incast_period_ms;
	unsigned long long incast_bytes;
	unsigned int incast_fanin;
	const char *cc[NCLASS];
	const char *csv, *json;
	char *tags[32];
	unsigned int ntags;
};
extern struct wl_params P;

extern struct flow *flows;
extern size_t nflows, capflows;
extern int ep, home_ns;
extern char cc_seen[16][32];
extern unsigned int ncc_seen;
extern unsigned int tcpi_rto_min, tcpi_rto_max;
extern int rto_known;	/* the kernel reports tcpi_total_rto (6.7+) */

/* args.c */
void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void parse_args(int argc, char **argv);

/* net.c: namespaces, CCs, the epoll set, listeners and connections */
void enter_netns(const char *name);
void set_cc(int fd, int cls, const char *where);
uint16_t cc_index(int fd);
void leave_netns(void);
int ep_add(int fd, void *ptr, uint32_t events);
void ep_mod(struct conn *c, int out);
void open_listeners(int used[NCLASS]);
struct conn *open_conn(uint32_t pi, int cls);

/* out.c */
void write_outputs(uint64_t t0, uint64_t t_end);

#endif
