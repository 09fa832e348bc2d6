/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One consumer loop for a pinned BPF ring buffer, shared by `dcbpf trace`
 * and the switch's capture and drop trace: open the pin, poll until the
 * sample callback calls dc_ring_stop(), a signal (INT, TERM, PIPE) arrives
 * or a duration has passed. The signal handlers are in place from open to
 * close, so whatever a command switched on between the two is switched
 * off again even when the user interrupts it early.
 */
#ifndef DCBPF_LIB_RING_H
#define DCBPF_LIB_RING_H

#include <stdbool.h>
#include <stdio.h>
#include <bpf/libbpf.h>

#include "err.h"

struct dc_ring {
	struct ring_buffer *rb;
	int fd;
	/* Called after every poll (at least every 100 ms) while the loop runs,
	 * e.g. to renew a lease that keeps the producer on; NULL: none.  Set
	 * after dc_ring_open.  A non-zero return ends the loop with an error. */
	int (*tick)(void *arg, struct dc_err *e);
	void *tick_arg;
};

/* Open the ring pinned at `path`; `what` names it in errors. */
int dc_ring_open(struct dc_ring *r, const char *path, const char *what,
		 ring_buffer_sample_fn fn, void *arg, struct dc_err *e);
/* Poll until stopped or duration_s (0: no limit); flushes `out` after each
 * batch so a pipe sees events as they come. */
int dc_ring_run(struct dc_ring *r, const char *what, double duration_s, FILE *out,
		struct dc_err *e);
void dc_ring_stop(void);
bool dc_ring_stopped(void);
void dc_ring_close(struct dc_ring *r);

#endif
