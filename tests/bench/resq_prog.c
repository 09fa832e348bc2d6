// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Cost per packet of the ResQueue tagger (bpf/resq_host.bpf.c) with
 * BPF_PROG_TEST_RUN, next to an empty TC program measured the same way:
 * new data on a known flow (account, level, DSCP rewrite with the
 * checksum update), a retransmission (promoted one level) and a UDP packet
 * passed untouched.  Single runs on a fresh copy each time; the new-data
 * figure advances the sequence number every run so each one is new data.
 * Prints {"resq_<what>_ns": {"value": N, "unit": "ns"}}.  Needs root;
 * prints nothing and exits 0 otherwise.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "pktbuild.h"
#include "progbench.h"

#include "dcbpf/resqueue.h"
#include "resq_host.skel.h"

#define RUNS 20000
#define MSS 1448

static struct pkt frame;

static void build(__u8 proto, __u32 seq)
{
	__u8 *th = frame.b + 14 + 20;

	pkt_tcp4(&frame, &(struct pkt_tcp4){ .src = "10.0.0.1", .dst = "10.0.0.2", .sport = 40000,
					     .dport = 5001, .payload = MSS, .flags = 0x10,
					     .tos = 0x02, .ttl = 64, .proto = proto });
	th[4] = seq >> 24;
	th[5] = seq >> 16;
	th[6] = seq >> 8;
	th[7] = seq;
}

/* Mean kernel ns of RUNS single runs, each one MSS further: new data. */
static double new_data_ns(int prog)
{
	static unsigned char out[PKT_MAX];
	unsigned long long sum = 0;
	int i, n = 0;

	for (i = 0; i < RUNS; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame.b, .data_size_in = frame.len,
			    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);

		build(6, 1 + (__u32)i * MSS);
		if (!bpf_prog_test_run_opts(prog, &o)) {
			sum += o.duration;
			n++;
		}
	}
	return n ? (double)sum / n : -1;
}

int main(void)
{
	struct resq_host_bpf *s;
	struct dc_resq_cfg c;
	__u32 zero = 0;
	int prog, empty;

	DC_BENCH_NEED_ROOT("resq_prog");
	s = DC_SKEL_OPEN_LOAD(resq_host_bpf);
	if (!s) {
		fprintf(stderr, "resq_prog bench: loading the tagger failed: %s\n", strerror(errno));
		return 1;
	}
	prog = bpf_program__fd(s->progs.dc_resq_egress);
	empty = pb_empty_prog(BPF_PROG_TYPE_SCHED_CLS, "dc_tc_empty");
	dc_resq_cfg_default(&c);
	bpf_map_update_elem(bpf_map__fd(s->maps.dc_resq_cfg), &zero, &c, BPF_ANY);

	pb_emit("resq_tag_new_ns", new_data_ns(prog));
	build(6, 1);		/* below the highest sequence sent: a retransmission */
	pb_emit("resq_tag_retx_ns", pb_mean_ns(prog, frame.b, frame.len, RUNS));
	build(17, 1);
	pb_emit("resq_pass_udp_ns", pb_mean_ns(prog, frame.b, frame.len, RUNS));
	if (empty >= 0)
		pb_emit("resq_tc_empty_ns", pb_mean_ns(empty, frame.b, frame.len, RUNS));
	resq_host_bpf__destroy(s);
	return 0;
}
