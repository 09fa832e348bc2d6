/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the traffic tools (incast, workload) share: the monotonic clock,
 * and the request header: 16 bytes,
 * magic u32, version u32 (1), then the length of the request that follows,
 * u64; all big-endian.  Each tool has its own magic, so one tool's sink
 * refuses the other's requests.
 */
#ifndef DCBPF_TOOLS_TOOL_H
#define DCBPF_TOOLS_TOOL_H

#include <arpa/inet.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define REQ_HDR_LEN 16
#define REQ_HDR_VERSION 1u

static inline uint64_t req_be64(uint64_t v)
{
	return ((uint64_t)htonl((uint32_t)v) << 32) | htonl((uint32_t)(v >> 32));
}

static inline void req_hdr_put(unsigned char *h, uint32_t magic, uint64_t len)
{
	uint32_t m = htonl(magic), v = htonl(REQ_HDR_VERSION);
	uint64_t l = req_be64(len);

	memcpy(h, &m, 4);
	memcpy(h + 4, &v, 4);
	memcpy(h + 8, &l, 8);
}

/* 0 and *len, or -1 if the magic or version is not ours. */
static inline int req_hdr_get(const unsigned char *h, uint32_t magic, uint64_t *len)
{
	uint32_t m, v;
	uint64_t l;

	memcpy(&m, h, 4);
	memcpy(&v, h + 4, 4);
	memcpy(&l, h + 8, 8);
	if (ntohl(m) != magic || ntohl(v) != REQ_HDR_VERSION)
		return -1;
	*len = req_be64(l);
	return 0;
}

#endif
