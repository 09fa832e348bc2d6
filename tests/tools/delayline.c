// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * delayline: hold every frame that arrives on one device for a fixed time,
 * then transmit it unchanged on another device. The emulated fabric has no
 * netem, so this is how a link gets propagation delay (docs/fabric.md,
 * "Delay line").
 *
 * Run it inside a "wire" namespace that owns both devices and has no IP
 * addresses, so the kernel itself never forwards what this tool forwards:
 *
 *   ip netns exec WIRE delayline -i DEV_IN -o DEV_OUT -d DELAY_US [-2]
 *
 * Frames are read with an AF_PACKET socket (ETH_P_ALL, our own
 * transmissions ignored) and written with another one bound to the output
 * device. Both sockets use PACKET_VNET_HDR: the virtio header carries the
 * frame's checksum-offload and GSO metadata across, so a frame whose TCP
 * checksum the sender left to offload (CHECKSUM_PARTIAL) is accepted by the
 * receiver exactly as if it had crossed a plain veth, and a GSO frame stays
 * one frame. The bytes of the frame, IP options included, are not touched.
 *
 * Each direction is one FIFO in a fixed byte ring: frames leave in arrival
 * order (never reordered) at arrival + DELAY_US on CLOCK_MONOTONIC, with
 * the wake-up armed as an absolute timerfd deadline. Arrival is the
 * kernel's receive stamp of the frame (SO_TIMESTAMPNS), so the time the
 * tool takes to wake up and read is part of the delay, not added to it. A frame that does not
 * fit in the ring is dropped and counted. SIGUSR1 prints the counters as
 * one JSON line on stdout; SIGTERM/SIGINT print them and exit 0.
 * Parts: tests/tools/delayline/dl.h (a direction's ring and counters),
 * stats.c (lateness and the JSON).
 *
 * Exit status: 0 after SIGTERM/SIGINT, 1 on a runtime error (device,
 * socket, memory), 2 on a usage error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"
#include "delayline/dl.h"

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23	/* Linux 4.20 */
#endif

#define DEF_QUANTA_US 250000u	/* above a switch buffer's drain time: docs/admission.md, "PFC in the fabric" */

static uint64_t start_ns;
static struct pfc pfc;
static volatile sig_atomic_t stop_sig, dump_req;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		dump_req = 1;
	else
		stop_sig = sig;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: delayline -i DEV_IN -o DEV_OUT -d DELAY_US [-2] [-m RING_BYTES] [-r] [-c CPU]\n"
		"                 [-P PFC_MAP -p PORT [-L PRIOS] [-q QUANTA_US] [-R MBIT]]\n"
		"  -i DEV_IN      device whose received frames are delayed (in the current netns)\n"
		"  -o DEV_OUT     device the frames leave on, unchanged\n"
		"  -d DELAY_US    one-way delay in microseconds, 0..%u\n"
		"  -2             also delay DEV_OUT -> DEV_IN by the same amount\n"
		"  -m RING_BYTES  buffer per direction, %u..%u (default %u); a frame that\n"
		"                 does not fit is dropped and counted\n"
		"  -r             run SCHED_FIFO so frames leave on time on a busy host\n"
		"  -c CPU         run on this CPU only; give the device that receives from\n"
		"                 DEV_OUT an RPS mask without it, so that device's stack does\n"
		"                 not run inside our sends (fabric_make_wire does both)\n"
		"  -P PFC_MAP     a switch's pinned dc_sw_pfc (mapped once it exists): frames of\n"
		"                 the lossless priorities DEV_IN -> DEV_OUT wait while the switch\n"
		"                 has their priority paused on port PORT (PFC); their own FIFO\n"
		"  -p PORT        the switch port DEV_OUT feeds (its place in switch up --ports)\n"
		"  -L PRIOS       lossless priorities (DSCP / 8), comma separated (default 3)\n"
		"  -q QUANTA_US   a pause not refreshed for this long expires (default %u)\n"
		"  -R MBIT        the lossless priorities leave at most at this rate (the\n"
		"                 link's): a backlog released on RESUME is not one burst\n"
		"Run inside a namespace that holds both devices and no IP addresses.\n"
		"SIGUSR1: counters as JSON on stdout; SIGTERM/SIGINT: counters, exit 0.\n",
		MAX_DELAY_US, MIN_RING_BYTES, MAX_RING_BYTES, DEF_RING_BYTES, DEF_QUANTA_US);
}

/* parse_u64: whole decimal string in [lo, hi], or false. */
static bool parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static int open_rx(struct dir *d)
{
	int one = 1, buf = SOCK_RCVBUF_BYTES;
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_ALL),
		.sll_ifindex = d->in_ifindex,
	};

	/* Protocol 0 until bound: an ETH_P_ALL socket would otherwise see
	 * every device's frames between socket() and bind(). */
	d->rx_fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (d->rx_fd < 0) {
		fprintf(stderr, "delayline: AF_PACKET socket for %s: %s%s\n", d->in_name, strerror(errno),
			errno == EPERM ? " (needs CAP_NET_RAW: run as root)" : "");
		return -1;
	}
	if (setsockopt(d->rx_fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) ||
	    setsockopt(d->rx_fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one))) {
		fprintf(stderr, "delayline: PACKET_VNET_HDR/PACKET_IGNORE_OUTGOING on %s: %s (needs Linux 4.20+)\n",
			d->in_name, strerror(errno));
		return -1;
	}
	/* A burst at line rate must not overflow the socket while the tool
	 * sleeps; FORCE ignores rmem_max (we are root). */
	/* the kernel's receive time, not ours, starts a frame's delay */
	if (setsockopt(d->rx_fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one))) {
		fprintf(stderr, "delayline: SO_TIMESTAMPNS on %s: %s\n", d->in_name, strerror(errno));
		return -1;
	}
	if (setsockopt(d->rx_fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)))
		setsockopt(d->rx_fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	if (bind(d->rx_fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, "delayline: bind to %s: %s\n", d->in_name, strerror(errno));
		return -1;
	}
	return 0;
}

static int open_tx(struct dir *d)
{
	int one = 1;
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = 0,	/* transmit only: receives nothing */
		.sll_ifindex = d->out_ifindex,
	};

	d->tx_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (d->tx_fd < 0) {
		fprintf(stderr, "delayline: AF_PACKET socket for %s: %s%s\n", d->out_name, strerror(errno),
			errno == EPERM ? " (needs CAP_NET_RAW: run as root)" : "");
		return -1;
	}
	if (setsockopt(d->tx_fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one))) {
		fprintf(stderr, "delayline: PACKET_VNET_HDR on %s: %s\n", d->out_name, strerror(errno));
		return -1;
	}
	if (bind(d->tx_fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, "delayline: bind to %s: %s\n", d->out_name, strerror(errno));
		return -1;
	}
	return 0;
}

static size_t rec_bytes(uint32_t len)
{
	return (sizeof(struct rec) + len + 7) & ~(size_t)7;
}

/* ring_put: append one record (header + data) or return false when full. */
static bool ring_put(struct dir *d, uint64_t deadline_ns, const void *data, uint32_t len, uint32_t tag)
{
	size_t n = rec_bytes(len), at;
	struct rec *r;

	if (d->used == 0)
		d->head = d->tail = 0;
	if (d->used && d->tail <= d->head) {
		/* the free space is the gap between tail and head */
		if (d->head - d->tail < n)
			return false;
		at = d->tail;
	} else if (d->cap - d->tail >= n) {
		at = d->tail;
	} else {
		/* wrap: the bytes at the end are skipped, marked if a header fits */
		if (d->head < n)
			return false;
		if (d->cap - d->tail >= sizeof(struct rec))
			((struct rec *)(d->ring + d->tail))->len = WRAP_MARK;
		d->used += d->cap - d->tail;
		at = 0;
	}
	r = (struct rec *)(d->ring + at);
	r->deadline_ns = deadline_ns;
	r->len = len;
	r->pad = tag;		/* the frame's priority in a PFC ring */
	memcpy(r + 1, data, len);
	d->tail = at + n;
	if (d->tail == d->cap)
		d->tail = 0;
	d->used += n;
	if (d->used > d->used_max)
		d->used_max = d->used;
	d->queued++;
	return true;
}

/* ring_peek: the oldest record after skipping a wrap; NULL when empty. */
static struct rec *ring_peek(struct dir *d)
{
	if (!d->queued)
		return NULL;
	if (d->cap - d->head < sizeof(struct rec) ||
	    ((struct rec *)(d->ring + d->head))->len == WRAP_MARK) {
		d->used -= d->cap - d->head;
		d->head = 0;
	}
	return (struct rec *)(d->ring + d->head);
}

static void ring_pop(struct dir *d)
{
	struct rec *r = (struct rec *)(d->ring + d->head);
	size_t n = rec_bytes(r->len);

	d->head += n;
	if (d->head == d->cap)
		d->head = 0;
	d->used -= n;
	if (--d->queued == 0)
		d->head = d->tail = d->used = 0;
}

static uint8_t rxbuf[BATCH][VNET_BYTES + MAX_FRAME_BYTES];

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* arrival_ns: the kernel's receive stamp of a frame (SO_TIMESTAMPNS, taken
 * when the veth handed it over) on CLOCK_MONOTONIC, or 0. The stamp is
 * CLOCK_REALTIME; off_ns = realtime - monotonic, read once per batch. */
static uint64_t arrival_ns(struct msghdr *mh, uint64_t off_ns)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPNS) {
			struct timespec ts;
			uint64_t t;

			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			t = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
			return t > off_ns ? t - off_ns : 0;
		}
	}
	return 0;
}

/* rx_batch: read what the socket holds. A frame is due DELAY after the
 * kernel received it, so time the tool spends waking up to read it is not
 * added to the delay; deadlines never decrease, so order is kept. */
static int rx_batch(struct dir *d, uint64_t delay_ns, struct pfc *pfc)
{
	struct mmsghdr m[BATCH];
	struct iovec iov[BATCH];
	static uint8_t ctl[BATCH][CMSG_SPACE(sizeof(struct timespec)) + 64];
	int i, n;
	uint64_t now, off, t, a;

	for (;;) {
		memset(m, 0, sizeof(m));
		for (i = 0; i < BATCH; i++) {
			iov[i].iov_base = rxbuf[i];
			iov[i].iov_len = sizeof(rxbuf[i]);
			m[i].msg_hdr.msg_iov = &iov[i];
			m[i].msg_hdr.msg_iovlen = 1;
			m[i].msg_hdr.msg_control = ctl[i];
			m[i].msg_hdr.msg_controllen = sizeof(ctl[i]);
		}
		n = recvmmsg(d->rx_fd, m, BATCH, MSG_DONTWAIT, NULL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				return 0;
			fprintf(stderr, "delayline: receive on %s: %s\n", d->in_name, strerror(errno));
			return -1;
		}
		now = now_ns();
		off = realtime_ns() - now;
		for (i = 0; i < n; i++) {
			uint32_t len = m[i].msg_len;

			d->frames_in++;
			if (m[i].msg_hdr.msg_flags & MSG_TRUNC) {
				d->drop_trunc++;
				continue;
			}
			struct dir *to = d;
			int prio = -1;

			/* a held priority's frame goes to the PFC ring */
			if (pfc && len > VNET_BYTES) {
				prio = pfc_prio(rxbuf[i] + VNET_BYTES, len - VNET_BYTES);
				if (prio >= 0 && (pfc->mask >> prio & 1))
					to = &pfc->ll;
			}
			a = arrival_ns(&m[i].msg_hdr, off);
			/* no stamp, or one from the future (clock step): read time */
			if (!a || a > now) {
				a = now;
				d->no_stamp++;
			}
			t = a + delay_ns;
			if (t < to->last_deadline_ns)
				t = to->last_deadline_ns;
			to->last_deadline_ns = t;
			d->bytes_in += len > VNET_BYTES ? len - VNET_BYTES : 0;
			if (!ring_put(to, t, rxbuf[i], len, prio < 0 ? 0 : (uint32_t)prio))
				to->drop_ring++;
		}
		if (n < BATCH)
			return 0;
	}
}

/* ring_after: offset of the record that follows the one at h. */
static size_t ring_after(const struct dir *d, size_t h)
{
	h += rec_bytes(((const struct rec *)(d->ring + h))->len);
	if (h >= d->cap || d->cap - h < sizeof(struct rec) ||
	    ((const struct rec *)(d->ring + h))->len == WRAP_MARK)
		h = 0;
	return h;
}

/* A device that pushes back (its queue or our socket's send buffer full)
 * is retried this much later; the frame keeps its place. */
#define TX_RETRY_NS 20000ull

/* tx_due: send every frame whose deadline has passed, in ring order, up to
 * BATCH per system call.  Returns 1 when the device pushed back, 2 when
 * the PFC ring's head waits for a resume (pfc: that ring's PFC, else NULL). */
static int tx_due(struct dir *d, struct pfc *pfc)
{
	struct mmsghdr m[BATCH];
	struct iovec iov[BATCH];
	struct rec *r;
	size_t h;
	int n, k, sent;
	uint64_t now, t1;

	for (;;) {
		/* a send can run the receiving stack's softirq work in our
		 * context: read the clock again for every batch */
		now = now_ns();
		/* collect the due records without consuming them */
		n = 0;
		if (ring_peek(d)) {
			h = d->head;
			/* PFC: one frame per send.  A send runs the switch's
			 * receive path, whose XDP may pause the priority, so the
			 * flag is read again before the next frame; in a batch
			 * a whole batch went out after the pause (32 frames). */
			while ((uint64_t)n < d->queued && n < (pfc ? 1 : BATCH)) {
				r = (struct rec *)(d->ring + h);
				if (r->deadline_ns > now)
					break;
				/* the flag is read before every frame of a batch */
				if (pfc && pfc_held(pfc, r->pad, now)) {
					if (!pfc->held_since_ns) {
						pfc->held_since_ns = now;
						pfc->holds++;
					}
					break;
				}
				if (pfc && pfc->held_since_ns) {
					pfc->held_ns_total += now - pfc->held_since_ns;
					pfc->held_since_ns = 0;
				}
				/* the link's rate (-R): a released backlog leaves at
				 * line rate, not at once */
				if (pfc && pfc->rate_bps && now < pfc->next_tx_ns)
					break;
				iov[n].iov_base = r + 1;
				iov[n].iov_len = r->len;
				memset(&m[n], 0, sizeof(m[n]));
				m[n].msg_hdr.msg_iov = &iov[n];
				m[n].msg_hdr.msg_iovlen = 1;
				n++;
				h = ring_after(d, h);
			}
		}
		if (!n)
			return pfc && pfc->held_since_ns ? 2 : pfc && ring_peek(d) && now < pfc->next_tx_ns ? 3 : 0;
		sent = sendmmsg(d->tx_fd, m, (unsigned int)n, MSG_DONTWAIT);
		t1 = now_ns();
		d->send_ns += t1 - now;
		if (t1 - now > d->send_max_ns)
			d->send_max_ns = t1 - now;
		if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)) {
			/* back-pressure, not a bad frame: a wire would queue it */
			d->tx_busy++;
			return 1;
		}
		if (sent <= 0) {
			/* the first frame was refused: count and drop it, so
			 * one bad frame cannot stall the line */
			d->tx_errors++;
			ring_peek(d);
			ring_pop(d);
			continue;
		}
		for (k = 0; k < sent; k++) {
			r = ring_peek(d);
			note_late(d, now, r->deadline_ns);
			d->frames_out++;
			d->bytes_out += r->len > VNET_BYTES ? r->len - VNET_BYTES : 0;
			if (pfc) {
				uint32_t b = r->len > VNET_BYTES ? r->len - VNET_BYTES : 0;

				pfc_sent(pfc, t1, b, r->pad);
				if (pfc->rate_bps)
					pfc->next_tx_ns = (pfc->next_tx_ns > now ? pfc->next_tx_ns : now) +
							  (uint64_t)b * 8 * 1000000000ull / pfc->rate_bps;
			}
			ring_pop(d);
		}
	}
}

int main(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	uint64_t delay_us = 0, ring_bytes = DEF_RING_BYTES;
	bool have_delay = false, both = false, rt = false;
	uint64_t cpu = 0, cpu_or_port = 0;
	bool pin = false, have_port = false;
	struct dir dirs[2];
	struct pollfd pfd[3];
	struct sigaction sa;
	sigset_t block, waitmask;
	int c, i, ndir, tfd;

	pfc.mask = 1u << 3;
	pfc.quanta_ns = DEF_QUANTA_US * 1000ull;
	while ((c = getopt(argc, argv, "i:o:d:2m:rc:P:p:L:q:R:h")) != -1) {
		switch (c) {
		case 'P': pfc.path = optarg; break;
		case 'p':
			if (!parse_u64(optarg, 0, 63, &cpu_or_port)) {
				fprintf(stderr, "delayline: -p '%s': a switch port is a number in 0..63\n", optarg);
				return EXIT_USAGE;
			}
			pfc.port = (uint32_t)cpu_or_port;
			have_port = true;
			break;
		case 'L': {
			char *tok, *save = NULL, buf[64];

			snprintf(buf, sizeof(buf), "%s", optarg);
			pfc.mask = 0;
			for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				if (!parse_u64(tok, 0, PFC_PRIOS - 1, &cpu_or_port)) {
					fprintf(stderr, "delayline: -L '%s': priorities 0..7, comma separated\n", optarg);
					return EXIT_USAGE;
				}
				pfc.mask |= 1u << cpu_or_port;
			}
			if (!pfc.mask) {
				fprintf(stderr, "delayline: -L '%s': no priority\n", optarg);
				return EXIT_USAGE;
			}
			break;
		}
		case 'R':
			if (!parse_u64(optarg, 1, 1000000, &cpu_or_port)) {
				fprintf(stderr, "delayline: -R '%s': the link rate is 1..1000000 Mbit/s\n", optarg);
				return EXIT_USAGE;
			}
			pfc.rate_bps = cpu_or_port * 1000000ull;
			break;
		case 'q':
			if (!parse_u64(optarg, 1, MAX_DELAY_US, &cpu_or_port)) {
				fprintf(stderr, "delayline: -q '%s': the quanta time is 1..%u microseconds\n", optarg,
					MAX_DELAY_US);
				return EXIT_USAGE;
			}
			pfc.quanta_ns = cpu_or_port * 1000ull;
			break;
		case 'i': in = optarg; break;
		case 'o': out = optarg; break;
		case 'd':
			if (!parse_u64(optarg, 0, MAX_DELAY_US, &delay_us)) {
				fprintf(stderr, "delayline: -d '%s': the delay must be a whole number of microseconds in 0..%u\n",
					optarg, MAX_DELAY_US);
				return EXIT_USAGE;
			}
			have_delay = true;
			break;
		case '2': both = true; break;
		case 'm':
			if (!parse_u64(optarg, MIN_RING_BYTES, MAX_RING_BYTES, &ring_bytes)) {
				fprintf(stderr, "delayline: -m '%s': the ring size must be a whole number of bytes in %u..%u\n",
					optarg, MIN_RING_BYTES, MAX_RING_BYTES);
				return EXIT_USAGE;
			}
			break;
		case 'r': rt = true; break;
		case 'c':
			if (!parse_u64(optarg, 0, CPU_SETSIZE - 1, &cpu)) {
				fprintf(stderr, "delayline: -c '%s': the CPU must be a number in 0..%d\n", optarg,
					CPU_SETSIZE - 1);
				return EXIT_USAGE;
			}
			pin = true;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "delayline: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!in || !out || !have_delay) {
		fprintf(stderr, "delayline: -i DEV_IN, -o DEV_OUT and -d DELAY_US are required\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!pfc.path != !have_port) {
		fprintf(stderr, "delayline: -P PFC_MAP and -p PORT go together\n");
		return EXIT_USAGE;
	}
	if (!strcmp(in, out)) {
		fprintf(stderr, "delayline: -i and -o name the same device '%s'; a delay line needs two\n", in);
		return EXIT_USAGE;
	}

	memset(dirs, 0, sizeof(dirs));
	ndir = both ? 2 : 1;
	dirs[0].in_name = in;
	dirs[0].out_name = out;
	dirs[1].in_name = out;
	dirs[1].out_name = in;
	for (i = 0; i < ndir; i++) {
		struct dir *d = &dirs[i];

		d->rx_fd = d->tx_fd = -1;
		d->in_ifindex = (int)if_nametoindex(d->in_name);
		d->out_ifindex = (int)if_nametoindex(d->out_name);
		if (!d->in_ifindex || !d->out_ifindex) {
			fprintf(stderr, "delayline: device '%s' not found in this network namespace"
				" (run delayline inside the wire namespace: ip netns exec NS delayline ...)\n",
				d->in_ifindex ? d->out_name : d->in_name);
			return EXIT_RUNTIME;
		}
		d->cap = ring_bytes & ~(size_t)7;
		/* mmap: the ring is touched (and counted in RSS) only as used */
		d->ring = mmap(NULL, d->cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (d->ring == MAP_FAILED) {
			fprintf(stderr, "delayline: cannot allocate a %zu-byte ring: %s (lower -m)\n", d->cap,
				strerror(errno));
			return EXIT_RUNTIME;
		}
		if (open_rx(d) || open_tx(d))
			return EXIT_RUNTIME;
	}
	if (pfc.path) {
		/* the held priorities' ring: DEV_IN -> DEV_OUT's sockets */
		pfc.ll.in_name = in;
		pfc.ll.out_name = out;
		pfc.ll.rx_fd = dirs[0].rx_fd;
		pfc.ll.tx_fd = dirs[0].tx_fd;
		pfc.ll.cap = dirs[0].cap;
		pfc.ll.ring = mmap(NULL, pfc.ll.cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (pfc.ll.ring == MAP_FAILED) {
			fprintf(stderr, "delayline: cannot allocate the PFC ring: %s (lower -m)\n", strerror(errno));
			return EXIT_RUNTIME;
		}
	}

	if (pin) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET((int)cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr, "delayline: -c %llu: cannot run on that CPU: %s (online: 0..%ld)\n",
				(unsigned long long)cpu, strerror(errno), sysconf(_SC_NPROCESSORS_ONLN) - 1);
			return EXIT_RUNTIME;
		}
	}
	/* Timer slack would let each wake-up drift by the default 50 µs. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (rt) {
		struct sched_param sp = { .sched_priority = 50 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			fprintf(stderr, "delayline: SCHED_FIFO not granted (%s); continuing without it\n",
				strerror(errno));
	}
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (tfd < 0) {
		fprintf(stderr, "delayline: timerfd_create: %s\n", strerror(errno));
		return EXIT_RUNTIME;
	}

	/* Signals are blocked except inside ppoll, so a flag set by a handler
	 * is always seen before the next sleep. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &waitmask);
	sigdelset(&waitmask, SIGTERM);
	sigdelset(&waitmask, SIGINT);
	sigdelset(&waitmask, SIGUSR1);

	fprintf(stderr, "delayline: %s -> %s%s delayed by %llu us, ring %zu bytes per direction\n", in, out,
		both ? " and back" : "", (unsigned long long)delay_us, dirs[0].cap);

	start_ns = now_ns();
	for (i = 0; i < ndir; i++) {
		pfd[i].fd = dirs[i].rx_fd;
		pfd[i].events = POLLIN;
	}
	pfd[ndir].fd = tfd;
	pfd[ndir].events = POLLIN;

	while (!stop_sig) {
		uint64_t next = 0;
		struct itimerspec its;

		if (dump_req) {
			dump_req = 0;
			print_stats(dirs, ndir, delay_us, dirs[0].cap, start_ns, &pfc);
		}
		for (i = 0; i < ndir; i++) {
			struct rec *r;
			int busy = tx_due(&dirs[i], NULL);

			r = ring_peek(&dirs[i]);
			if (r && (!next || r->deadline_ns < next))
				next = r->deadline_ns;
			if (busy && next < now_ns() + TX_RETRY_NS)
				next = now_ns() + TX_RETRY_NS;
		}
		if (pfc.path) {
			struct rec *r;
			int st = tx_due(&pfc.ll, &pfc);

			r = ring_peek(&pfc.ll);
			if (st == 3) {
				if (!next || pfc.next_tx_ns < next)
					next = pfc.next_tx_ns;
			} else if (st == 2) {
				/* held: look at the flag again soon */
				uint64_t t = now_ns() + PFC_POLL_NS;

				if (!next || t < next)
					next = t;
			} else if (r && (!next || r->deadline_ns < next)) {
				next = r->deadline_ns;
			}
			if (st == 1 && (!next || next < now_ns() + TX_RETRY_NS))
				next = now_ns() + TX_RETRY_NS;
		}
		/* absolute deadline of the oldest frame; 0 disarms */
		memset(&its, 0, sizeof(its));
		if (next) {
			its.it_value.tv_sec = (time_t)(next / 1000000000ull);
			its.it_value.tv_nsec = (long)(next % 1000000000ull);
		}
		timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
		if (ppoll(pfd, (nfds_t)ndir + 1, NULL, &waitmask) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "delayline: ppoll: %s\n", strerror(errno));
			return EXIT_RUNTIME;
		}
		if (pfd[ndir].revents & POLLIN) {
			uint64_t exp;

			if (read(tfd, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
				fprintf(stderr, "delayline: timerfd read: %s\n", strerror(errno));
		}
		for (i = 0; i < ndir; i++) {
			if (pfd[i].revents & (POLLERR | POLLNVAL)) {
				fprintf(stderr, "delayline: socket on %s failed (device gone?)\n", dirs[i].in_name);
				print_stats(dirs, ndir, delay_us, dirs[0].cap, start_ns, &pfc);
				return EXIT_RUNTIME;
			}
			if ((pfd[i].revents & POLLIN) &&
			    rx_batch(&dirs[i], delay_us * 1000ull, i == 0 && pfc.path ? &pfc : NULL))
				return EXIT_RUNTIME;
		}
	}
	print_stats(dirs, ndir, delay_us, dirs[0].cap, start_ns, &pfc);
	return 0;
}
