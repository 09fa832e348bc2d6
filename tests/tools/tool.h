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
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>

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

/* The kernel's available CCs, one line, for an error message ("" if unknown). */
static inline void tool_available_ccs(char *buf, size_t len)
{
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_available_congestion_control", "r");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, len, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

/* The receiving end of one connection: where it is in the current request. */
struct req_rx {
	unsigned int hdr_got;
	unsigned char hdr[REQ_HDR_LEN];
	uint64_t left;		/* payload bytes still to come */
};

/*
 * Read what a non-blocking connection has: header, then the payload
 * discarded in the kernel (MSG_TRUNC: no copy), then 'K' back for each whole
 * request.  Returns 0 to keep the connection (nothing more to read now), -1
 * to close it (EOF, error, or a header that is not ours: said on stderr by
 * WHO).
 */
static inline int req_rx_read(int fd, struct req_rx *r, uint32_t magic, const char *who)
{
	static char scratch[256 * 1024];

	for (;;) {
		ssize_t n;

		if (r->hdr_got < REQ_HDR_LEN) {
			n = recv(fd, r->hdr + r->hdr_got, REQ_HDR_LEN - r->hdr_got, MSG_DONTWAIT);
			if (n == 0)
				return -1;
			if (n < 0)
				return errno == EAGAIN ? 0 : -1;
			r->hdr_got += n;
			if (r->hdr_got < REQ_HDR_LEN)
				continue;
			if (req_hdr_get(r->hdr, magic, &r->left)) {
				fprintf(stderr, "%s: bad request header, closing a receiver connection\n", who);
				return -1;
			}
		}
		while (r->left) {
			n = recv(fd, scratch, r->left < sizeof(scratch) ? r->left : sizeof(scratch),
				 MSG_DONTWAIT | MSG_TRUNC);
			if (n == 0)
				return -1;
			if (n < 0)
				return errno == EAGAIN ? 0 : -1;
			r->left -= n;
		}
		/* Whole request read by the application: acknowledge it. */
		if (send(fd, "K", 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1)
			return -1;
		r->hdr_got = 0;
	}
}

#endif
