/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Counting, the same way in every program.  The counter structs are the
 * lists of include/dcbpf/counters.h; these macros only add to them.
 *
 *   DC_COUNT(map, field)            entry 0 of a counters map, +1
 *   DC_COUNT_ADD(map, field, n)     entry 0, +n
 *   DC_CTR_ADD(map, p, field, n)    an entry p the caller looked up in map
 *                                   (NULL: nothing counted)
 *
 * Shared entries (BPF_MAP_TYPE_ARRAY) take an atomic add.  Per-CPU entries
 * take a plain add, except where the map is marked DC_COUNT_ATOMIC below:
 * TCP callbacks run in process context and in softirq, so one can
 * interrupt another on the same CPU mid-update; XDP and tc programs do not
 * nest on a CPU.  The map type and value type come from the map's BTF
 * definition (__uint(type, …), __type(value, …)), so a caller cannot name
 * the wrong struct.
 */
#ifndef DCBPF_BPF_COUNT_H
#define DCBPF_BPF_COUNT_H

/* __uint(type, T) declares `int (*type)[T]`: T at compile time. */
#define DC_MAP_TYPE(map) (sizeof(*(map).type) / sizeof(int))
#define DC_MAP_PERCPU(map)                                                \
	(DC_MAP_TYPE(map) == BPF_MAP_TYPE_PERCPU_ARRAY ||                 \
	 DC_MAP_TYPE(map) == BPF_MAP_TYPE_PERCPU_HASH)

/* Per-CPU maps whose writers may interrupt one another: DCTCP's callbacks. */
#ifndef DC_COUNT_ATOMIC
#define DC_COUNT_ATOMIC 0
#endif

/* p is evaluated once: a second lookup would be a pointer the verifier has
 * not seen checked (6.1 rejects it). */
#define DC_CTR_ADD(map, p, field, n)                                      \
	do {                                                              \
		typeof((map).value) dc_p_ = (p);                          \
		if (dc_p_) {                                              \
			if (DC_MAP_PERCPU(map) && !DC_COUNT_ATOMIC)       \
				dc_p_->field += (n);                      \
			else                                              \
				__sync_fetch_and_add(&dc_p_->field, (n)); \
		}                                                         \
	} while (0)

#define DC_COUNT_ADD(map, field, n)                                       \
	do {                                                              \
		__u32 dc_zero_ = 0;                                       \
		DC_CTR_ADD(map, bpf_map_lookup_elem(&(map), &dc_zero_), field, n); \
	} while (0)

#define DC_COUNT(map, field) DC_COUNT_ADD(map, field, 1)

/* Entry 0, element i of an array of counters in it (drops by reason): +1,
 * when i is within the array (a run-time index must be seen bounded). */
#define DC_COUNT_AT(map, array, i)                                        \
	do {                                                              \
		__u32 dc_i_ = (i);                                        \
		if (dc_i_ < sizeof(((typeof((map).value))0)->array) /     \
				    sizeof(((typeof((map).value))0)->array[0])) \
			DC_COUNT(map, array[dc_i_]);                      \
	} while (0)

#endif
