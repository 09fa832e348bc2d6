/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Minimal assertions for host unit tests.  Each CHECK prints one result
 * line (PASS:/FAIL:) that tests/run counts; main returns non-zero on any
 * failure.
 */
#ifndef DCBPF_TEST_CHECK_H
#define DCBPF_TEST_CHECK_H

#include <stdio.h>
#include <inttypes.h>

static int check_failed;

#define CHECK(name, cond, fmt, ...)                                          \
	do {                                                                 \
		if (cond) {                                                  \
			printf("PASS: %s\n", name);                          \
		} else {                                                     \
			printf("FAIL: %s: " fmt " (%s:%d)\n", name,          \
			       ##__VA_ARGS__, __FILE__, __LINE__);           \
			check_failed = 1;                                    \
		}                                                            \
	} while (0)

/* a within [lo, hi] */
#define CHECK_RANGE(name, a, lo, hi)                                         \
	CHECK(name, (uint64_t)(a) >= (uint64_t)(lo) && (uint64_t)(a) <= (uint64_t)(hi), \
	      "%" PRIu64 " not in [%" PRIu64 ", %" PRIu64 "]", (uint64_t)(a),   \
	      (uint64_t)(lo), (uint64_t)(hi))

#define CHECK_EQ(name, a, b)                                                 \
	CHECK(name, (uint64_t)(a) == (uint64_t)(b), "%" PRIu64 " != %" PRIu64, \
	      (uint64_t)(a), (uint64_t)(b))

#endif
