/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The collective traffic generator's parts (tests/tools/collective.c). */
#ifndef DCBPF_TOOLS_COLL_H
#define DCBPF_TOOLS_COLL_H

#include <netinet/in.h>
#include <stdint.h>

#define MAGIC 0x44434243u /* "DCBC" */
#define HDR_LEN 16
#define MAX_HOSTS 64
#define MAX_FLOWS 8192
#define CHUNK (256 * 1024)
#define NS_DIR "/run/netns/"

struct host {
	char ns[64];
	char ip[16];
	unsigned leaf;
	struct in_addr addr;
};

struct flow {
	unsigned id, src, dst;	/* host indices */
	unsigned logical;	/* index of the unsplit flow it belongs to */
	unsigned part, parts;	/* sub-flow part of parts (1 = whole) */
	uint64_t bytes;
	uint64_t offset_ns;	/* start offset from T0 */
	/* results */
	uint64_t sent, rcvd;
	uint64_t t_start, t_sent, t_done;	/* CLOCK_MONOTONIC ns */
};

extern struct host hosts[MAX_HOSTS];
extern unsigned nhosts;
extern struct flow flows[MAX_FLOWS];
extern unsigned nflows, nlogical;

struct coll_opts {
	const char *pattern, *cc;
	unsigned channels, spines, port;
	int split;
	uint64_t bytes, seed, jitter_us;
	double timeout_s;
};
extern struct coll_opts opt;

/* child.c: host me's process (never returns): orders from the parent on
 * rfd, what happened back on wfd. */
void child(unsigned me, int rfd, int wfd) __attribute__((noreturn));

#endif
