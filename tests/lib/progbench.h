/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared by the BPF_PROG_TEST_RUN benchmarks of tests/bench/: the mean
 * kernel time of single runs, the empty program each figure is compared
 * with, and the figure line tests/bench/run collects.  Single runs on a
 * fresh copy each time: the programs rewrite the packet, and a repeat loop
 * would measure their "already done" path.
 */
#ifndef DCBPF_TESTS_PROGBENCH_H
#define DCBPF_TESTS_PROGBENCH_H

#include <stdio.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>

#include "skelfix.h"

#define PB_FRAME_MAX 2048

/* Mean kernel ns of `runs` single runs of prog on (in, len); -1 if none ran. */
static inline double pb_mean_ns(int prog, const void *in, __u32 len, int runs)
{
	static unsigned char out[PB_FRAME_MAX + 256];
	unsigned long long sum = 0;
	int i, n = 0;

	for (i = 0; i < runs; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in, .data_size_in = len,
			    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);

		if (!bpf_prog_test_run_opts(prog, &o)) {
			sum += o.duration;
			n++;
		}
	}
	return n ? (double)sum / n : -1;
}

/* {"NAME": {"value": NS, "unit": "ns"}}, unless the figure is missing. */
static inline void pb_emit(const char *name, double ns)
{
	if (ns >= 0)
		printf("{\"%s\": {\"value\": %.1f, \"unit\": \"ns\"}}\n", name, ns);
}

/* An empty program of `type` (return 0): the floor every figure stands on. */
static inline int pb_empty_prog(enum bpf_prog_type type, const char *name)
{
	struct bpf_insn ok[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_prog_load(type, name, "GPL", ok, 2, NULL);
}

#endif
