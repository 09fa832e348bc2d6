/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Fixed-point arithmetic for the data plane: no floating point in BPF, and
 * the verifier rejects signed division, so every quantity here is an
 * unsigned integer with a named scale.
 *
 *   Q16: value * DC_Q16_ONE, for dimensionless ratios (γ, normalised power).
 */
#ifndef DCBPF_FIXED_H
#define DCBPF_FIXED_H

#include "compat.h"

#define DC_Q16_SHIFT 16
#define DC_Q16_ONE   (1ULL << DC_Q16_SHIFT)

#define DC_USEC_PER_SEC 1000000ULL
#define DC_NSEC_PER_USEC 1000ULL
#define DC_BITS_PER_BYTE 8ULL

/*
 * a * b / c without overflowing 64 bits as long as b * c < 2^64: split a
 * into quotient and remainder by c first.  Returns DC_U64_MAX when c == 0
 * so a missing denominator saturates instead of faulting.
 */
DC_INLINE __u64 dc_muldiv64(__u64 a, __u64 b, __u64 c)
{
	__u64 q, r, hi, lim;

	if (!c)
		return DC_U64_MAX;
	q = a / c;
	r = a % c;
	lim = b ? DC_U64_MAX / b : DC_U64_MAX;
	/* Keep clang from fusing this check into a 128-bit multiply, which
	 * the BPF backend cannot emit. */
	dc_opaque(lim);
	if (q > lim)
		return DC_U64_MAX;
	hi = q * b;
	/* r < c, so r * b < c * b; callers keep c * b below 2^64. */
	return hi + r * b / c;
}

/* num / den as Q16, saturating. */
DC_INLINE __u64 dc_q16_div(__u64 num, __u64 den)
{
	return dc_muldiv64(num, DC_Q16_ONE, den);
}

/* x * q (q in Q16), saturating. */
DC_INLINE __u64 dc_q16_mul(__u64 x, __u64 q)
{
	return dc_muldiv64(x, q, DC_Q16_ONE);
}

/* Bytes a link of rate_mbps carries in t_us microseconds: rate * t / 8. */
DC_INLINE __u64 dc_bytes_in_us(__u64 rate_mbps, __u64 t_us)
{
	return rate_mbps * t_us / DC_BITS_PER_BYTE;
}

/* Bytes a link of rate_mbps carries in t_ns nanoseconds. */
DC_INLINE __u64 dc_bytes_in_ns(__u64 rate_mbps, __u64 t_ns)
{
	return dc_muldiv64(rate_mbps, t_ns, DC_BITS_PER_BYTE * DC_NSEC_PER_USEC);
}

#endif
