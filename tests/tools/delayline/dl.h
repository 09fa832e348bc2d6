/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The delay line's parts (tests/tools/delayline.c): limits, a direction's
 * ring and counters, and its statistics. */
#ifndef DCBPF_TOOLS_DL_H
#define DCBPF_TOOLS_DL_H

#include <stddef.h>
#include <stdint.h>
#include <linux/virtio_net.h>

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

#define MAX_DELAY_US 10000000u		/* 10 s: far beyond any fabric RTT */
#define DEF_RING_BYTES (8u << 20)
#define MIN_RING_BYTES (256u << 10)	/* must hold a few 64 KiB GSO frames */
#define MAX_RING_BYTES (1u << 30)
#define VNET_BYTES sizeof(struct virtio_net_hdr)
/* Largest frame a veth hands over: a 64 KiB GSO packet plus its Ethernet
 * header. Anything longer is truncated by recvmmsg and dropped (counted). */
#define MAX_FRAME_BYTES (65536u + 64u)
#define BATCH 32
#define LATE_HIST_US 10000	/* lateness histogram, 1 µs buckets, last = overflow */
#define SOCK_RCVBUF_BYTES (16 << 20)

/* One frame in a ring: header, then VNET_BYTES + frame bytes, 8-aligned. */
struct rec {
	uint64_t deadline_ns;
	uint32_t len;		/* virtio header + frame; WRAP_MARK: skip to ring start */
	uint32_t pad;
};
#define WRAP_MARK UINT32_MAX

struct dir {
	const char *in_name, *out_name;
	int in_ifindex, out_ifindex;
	int rx_fd, tx_fd;
	uint8_t *ring;
	size_t cap, head, tail, used, used_max;
	uint64_t queued;	/* frames in the ring */
	uint64_t frames_in, bytes_in, frames_out, bytes_out;
	uint64_t drop_ring, drop_socket, drop_trunc, tx_errors, tx_busy;
	uint64_t late[LATE_HIST_US + 1];
	uint64_t late_max_ns;
	uint64_t last_deadline_ns, no_stamp;
	uint64_t send_ns, send_max_ns;	/* time spent in sendmmsg */
};

/* stats.c */
void note_late(struct dir *d, uint64_t now, uint64_t deadline);
void print_stats(struct dir *dirs, int ndir, uint64_t delay_us, size_t ring_bytes, uint64_t start_ns);

#endif
