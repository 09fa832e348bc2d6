/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The clock of bpf_ktime_get_ns(): CLOCK_MONOTONIC, in nanoseconds. */
#ifndef DCBPF_LIB_CLOCK_H
#define DCBPF_LIB_CLOCK_H

#include <time.h>
#include <linux/types.h>

static inline __u64 dc_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

#endif
