// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "cli.h"
#include "ring.h"

/* One consumer at a time per process: the flag is what a signal can set. */
static volatile sig_atomic_t ring_stop;

static void on_signal(int sig)
{
	(void)sig;
	ring_stop = 1;
}

void dc_ring_stop(void)
{
	ring_stop = 1;
}

bool dc_ring_stopped(void)
{
	return ring_stop;
}

int dc_ring_open(struct dc_ring *r, const char *path, const char *what,
		 ring_buffer_sample_fn fn, void *arg, struct dc_err *e)
{
	r->rb = NULL;
	r->tick = NULL;
	r->tick_arg = NULL;
	r->fd = bpf_obj_get(path);
	if (r->fd < 0)
		return dc_err_set(e, EXIT_ERR, "cannot open %s (%s): %s", what, path,
				  strerror(errno));
	r->rb = ring_buffer__new(r->fd, fn, arg, NULL);
	if (!r->rb) {
		int err = errno;

		close(r->fd);
		r->fd = -1;
		return dc_err_set(e, EXIT_ERR, "ring buffer %s: %s", what, strerror(err));
	}
	ring_stop = 0;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, on_signal);
	return EXIT_OK;
}

static double since_s(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

int dc_ring_run(struct dc_ring *r, const char *what, double duration_s, FILE *out,
		struct dc_err *e)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!ring_stop) {
		int n = ring_buffer__poll(r->rb, 100);

		if (n < 0 && n != -EINTR)
			return dc_err_set(e, EXIT_ERR, "reading %s: %s", what, strerror(-n));
		if (out)
			fflush(out);
		if (r->tick && r->tick(r->tick_arg, e))
			return EXIT_ERR;
		if (duration_s > 0 && since_s(&t0) >= duration_s)
			break;
	}
	return EXIT_OK;
}

void dc_ring_close(struct dc_ring *r)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	ring_buffer__free(r->rb);
	r->rb = NULL;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}
