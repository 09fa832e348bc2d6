// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The forest as the data plane evaluates it (bpf/lib/forest.h, run with
 * BPF_PROG_TEST_RUN in tests/prog/bpf/rf_eval.bpf.c) equals dc_rf_score on
 * the host, score for score, on 10 000+ feature vectors over several
 * random valid models, from one tree to the largest layout.  Needs root.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "skelfix.h"
#include "check.h"
#include "rfgen.h"
#include "rf_eval.skel.h"

struct frame {
	__u32 x[DC_RF_FEATURES];
	__u64 score;
	__u32 drop;
	__u32 pad;
};

static int eval(int prog, const __u32 x[DC_RF_FEATURES], struct frame *out, size_t len)
{
	struct frame in = { 0 };
	unsigned char buf[256];
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = &in, .data_size_in = (__u32)len,
		    .data_out = buf, .data_size_out = sizeof(buf), .repeat = 1);

	memcpy(in.x, x, sizeof(in.x));
	if (bpf_prog_test_run_opts(prog, &o))
		return -1;
	if (o.retval == XDP_PASS)
		memcpy(out, buf, sizeof(*out));
	return (int)o.retval;
}

int main(void)
{
	static const struct {
		__u32 trees, depth, leaf_pct, vectors;
	} shapes[] = {
		{ 4, 4, 0, 3000 },	/* the default forest, full trees */
		{ 4, 4, 30, 2000 },
		{ 1, 1, 0, 1000 },
		{ 7, 6, 25, 2000 },
		{ DC_RF_TREES_MAX, DC_RF_DEPTH_MAX, 10, 2000 },	/* node tables full */
	};
	static struct dc_rf_model m;
	struct rf_eval_bpf *skel;
	unsigned long total = 0, mismatch = 0, drops = 0, bad_rc = 0;
	uint64_t seed = 0x5eed0fcafeULL;
	__u32 zero = 0, k, i;
	int prog, model, tree, node;
	bool all_valid = true;

	DC_TEST_NEED_ROOT("forest in BPF");
	libbpf_set_print(NULL);
	skel = rf_eval_bpf__open_and_load();
	if (!skel) {
		printf("FAIL: forest in BPF: the test object loads (verifier)\n");
		return 1;
	}
	printf("PASS: forest in BPF: the bpf_loop evaluator passes the verifier\n");
	prog = bpf_program__fd(skel->progs.dc_tf_eval);
	model = bpf_map__fd(skel->maps.dc_tf_model);

	for (k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
		rfgen_model(&m, &seed, shapes[k].trees, shapes[k].depth, shapes[k].leaf_pct, 50000);
		if (dc_rf_validate(&m, &tree, &node))
			all_valid = false;
		if (bpf_map_update_elem(model, &zero, &m, BPF_ANY)) {
			printf("FAIL: forest in BPF: model map update\n");
			return 1;
		}
		for (i = 0; i < shapes[k].vectors; i++) {
			__u32 x[DC_RF_FEATURES];
			struct frame out;
			__u64 want;
			int rc;

			rfgen_features(&m, &seed, x);
			want = dc_rf_score(&m, x);
			rc = eval(prog, x, &out, sizeof(struct frame));
			total++;
			if (rc != XDP_PASS) {
				bad_rc++;
				continue;
			}
			if (out.score != want || out.drop != (__u32)dc_rf_predict_drop(&m, x)) {
				if (mismatch++ < 5)
					printf("# model %u vector %u: x = %u %u %u %u, bpf %llu/%u, host %llu/%d\n",
					       k, i, x[0], x[1], x[2], x[3],
					       (unsigned long long)out.score, out.drop,
					       (unsigned long long)want, dc_rf_predict_drop(&m, x));
			}
			drops += out.drop;
		}
	}
	CHECK("forest in BPF: every generated model is valid (dc_rf_validate)", all_valid, "invalid");
	CHECK("forest in BPF: every run returned XDP_PASS", bad_rc == 0, "%lu failed", bad_rc);
	CHECK("forest in BPF: ≥ 10 000 vectors evaluated", total >= 10000, "%lu", total);
	CHECK("forest in BPF: score and drop verdict equal dc_rf_score on the host for every vector",
	      mismatch == 0, "%lu of %lu differ", mismatch, total);
	/* the comparison is only worth something if both verdicts occur */
	CHECK("forest in BPF: both verdicts occur among the vectors", drops > total / 20 &&
	      drops < total - total / 20, "%lu drops of %lu", drops, total);

	/* a frame too short for the features is refused, not read past */
	{
		__u32 x[DC_RF_FEATURES] = { 0 };
		struct frame out;

		CHECK_EQ("forest in BPF: a short frame is refused (XDP_ABORTED)",
			 eval(prog, x, &out, 16), XDP_ABORTED);
	}
	/* leaves at exactly 1.0 and 0: the constant models */
	rfgen_const(&m, 4, DC_Q16_ONE, 50000);
	bpf_map_update_elem(model, &zero, &m, BPF_ANY);
	{
		__u32 x[DC_RF_FEATURES] = { 1, 2, 3, 4 };
		struct frame out = { 0 };
		int rc = eval(prog, x, &out, sizeof(out));

		CHECK("forest in BPF: 4 leaves of 1.0 score 4·2^16 and predict drop",
		      rc == XDP_PASS && out.score == 4ULL * DC_Q16_ONE && out.drop == 1,
		      "rc %d score %llu drop %u", rc, (unsigned long long)out.score, out.drop);
		rfgen_const(&m, 4, DC_Q16_ONE / 2, 50000);
		bpf_map_update_elem(model, &zero, &m, BPF_ANY);
		rc = eval(prog, x, &out, sizeof(out));
		CHECK("forest in BPF: a mean of exactly one half predicts accept",
		      rc == XDP_PASS && out.score == 2ULL * DC_Q16_ONE && out.drop == 0,
		      "rc %d score %llu drop %u", rc, (unsigned long long)out.score, out.drop);
	}
	rf_eval_bpf__destroy(skel);
	return check_failed;
}
