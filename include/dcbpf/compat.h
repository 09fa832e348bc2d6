/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Types shared by BPF programs and user space.  BPF objects include
 * vmlinux.h first (which defines __u8 … __u64); host code gets them from
 * <linux/types.h>.  Nothing else in include/ depends on which side it is.
 */
#ifndef DCBPF_COMPAT_H
#define DCBPF_COMPAT_H

#ifdef __bpf__
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define DC_INLINE static __always_inline
#else
#include <linux/types.h>
#include <stdbool.h>
#define DC_INLINE static inline
#endif

/* Hide a value from the optimiser (one register, no code emitted). */
#define dc_opaque(x) __asm__ volatile("" : "+r"(x))

#define DC_U32_MAX 0xffffffffU
#define DC_U64_MAX 0xffffffffffffffffULL

DC_INLINE __u64 dc_min_u64(__u64 a, __u64 b) { return a < b ? a : b; }
DC_INLINE __u64 dc_max_u64(__u64 a, __u64 b) { return a > b ? a : b; }
DC_INLINE __u64 dc_clamp_u64(__u64 v, __u64 lo, __u64 hi)
{
	return v < lo ? lo : (v > hi ? hi : v);
}

#endif
