/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xorshift64*: the one pseudo-random stream of the user-space tools (the
 * simulator's workload, the trainer's bootstraps, test generators).  Small,
 * seeded, and the same sequence on every host, so a seed names a run.
 * The state must not be 0 (0 stays 0): callers mix a constant into the seed.
 */
#ifndef DCBPF_LIB_RAND_H
#define DCBPF_LIB_RAND_H

#include <linux/types.h>

static inline __u64 dc_rand_next(__u64 *s)
{
	__u64 x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* Uniform in [0, 1) with the 53 high bits of one draw. */
static inline double dc_rand_unit(__u64 *s)
{
	return (double)(dc_rand_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform in [0, n) for n <= 2^32: the high 32 bits scaled by n, no division
 * and no modulo bias worth speaking of.  n = 0 gives 0. */
static inline __u64 dc_rand_below(__u64 *s, __u64 n)
{
	return (__u64)(((unsigned __int128)(dc_rand_next(s) >> 32) * n) >> 32);
}

#endif
