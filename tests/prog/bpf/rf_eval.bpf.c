// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Test object for tests/prog/test_forest_prog.c: the admission program's
 * forest evaluator (bpf/lib/forest.h) on a feature vector carried in the
 * packet, so BPF_PROG_TEST_RUN can compare it with dc_rf_score on the host.
 *
 * Attached at: nowhere; run only by BPF_PROG_TEST_RUN.
 * Frame: __u32 x[4] (features), then the program writes __u64 score and
 * __u32 drop (dc_rf_drop_of) after them.  Shorter frames: XDP_ABORTED.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "bpf/lib/forest.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct dc_tf_frame {
	__u32 x[DC_RF_FEATURES];
	__u64 score;
	__u32 drop;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_rf_model);
} dc_tf_model SEC(".maps");

SEC("xdp")
int dc_tf_eval(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct dc_tf_frame *f = data;
	const struct dc_rf_model *m;
	__u32 zero = 0, x[DC_RF_FEATURES];
	__u64 score;

	if ((void *)(f + 1) > data_end)
		return XDP_ABORTED;
	m = bpf_map_lookup_elem(&dc_tf_model, &zero);
	if (!m)
		return XDP_ABORTED;
	__builtin_memcpy(x, f->x, sizeof(x));
	score = dc_rf_score_loop(m, x);
	f->score = score;
	f->drop = dc_rf_drop_of(m, score);
	return XDP_PASS;
}
