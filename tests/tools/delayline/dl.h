/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The delay line's parts (tests/tools/delayline.c): limits, a direction's
 * ring and counters, and its statistics. */
#ifndef DCBPF_TOOLS_DL_H
#define DCBPF_TOOLS_DL_H

#include <stdbool.h>
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

/*
 * PFC (pfc.c): the frames of the lossless priorities (-L) travel in a ring
 * of their own, and the head of that ring waits while the switch says its
 * priority is paused on the port this direction feeds (-P, -p): the
 * switch's dc_sw_pfc map, memory-mapped, so a frame costs a load, not a
 * system call.  A pause whose entry was not refreshed for the quanta time
 * (-q) expires, as a PFC pause frame does.
 */
#define PFC_PRIOS 8
#define PFC_POLL_NS 50000ull		/* re-read the flag this often while holding */
#define PFC_OPEN_RETRY_NS 10000000ull	/* the map is looked for every 10 ms until it is pinned */
#define PFC_HIST 256			/* last sends of held-class frames */

struct pfc_send {
	uint64_t t_ns;
	uint32_t bytes;
	uint32_t prio;
};

struct pfc {
	const char *path;	/* pinned dc_sw_pfc; NULL: no PFC */
	uint32_t port;		/* switch port this direction feeds */
	uint32_t mask;		/* priorities held while paused (bit p) */
	uint64_t quanta_ns;	/* a pause not refreshed this long expires */
	uint64_t rate_bps;	/* -R: the held priorities' line rate, 0 = none */
	uint64_t next_tx_ns;	/* earliest send of the next one at that rate */
	const volatile void *tab;	/* the mapped map, NULL until it is pinned */
	uint64_t next_open_ns;
	struct dir ll;		/* the held priorities' ring (fds shared with the direction) */
	uint32_t seen[PFC_PRIOS];	/* the switch's pause count last looked at */
	uint64_t seen_expired[PFC_PRIOS];
	uint64_t observed, missed, expired, holds;
	uint64_t react_max_ns, react_sum_ns, late_bytes_max, late_bytes_sum;
	uint64_t held_since_ns, held_ns_total;
	struct pfc_send hist[PFC_HIST];
	unsigned int hn;
};

int pfc_prio(const uint8_t *frame, uint32_t len);
bool pfc_held(struct pfc *p, uint32_t prio, uint64_t now);
void pfc_sent(struct pfc *p, uint64_t t_ns, uint32_t bytes, uint32_t prio);
void pfc_json(struct pfc *p);

/* stats.c */
void note_late(struct dir *d, uint64_t now, uint64_t deadline);
void print_stats(struct dir *dirs, int ndir, uint64_t delay_us, size_t ring_bytes, uint64_t start_ns,
		 struct pfc *pfc);

#endif
