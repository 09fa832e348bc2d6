// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Cost per packet of each INT program, with BPF_PROG_TEST_RUN, next to an
 * empty TC program measured the same way.  The programs rewrite the
 * packet, so every measurement is a single run on a fresh copy (a repeat
 * loop would measure the "already done" path) and the figure is the mean
 * of the kernel's per-run duration.  Prints
 *   {"int_<program>_ns": {"value": N, "unit": "ns"}} …
 * Needs root; prints nothing and exits 0 otherwise.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "progbench.h"

#include "dcbpf/int.h"
#include "dcbpf/switch.h"
#include "int.skel.h"
#include "int_transit.skel.h"

#define RUNS 20000

struct frame {
	unsigned char b[2048];
	__u32 len;
};

/* Ethernet + IPv4 + TCP with payload bytes of data (valid IP checksum). */
static void tcp_frame(struct frame *f, const char *src, const char *dst, __u16 sport,
		      __u16 dport, __u32 payload)
{
	__u8 *ip = f->b + 14, *th = ip + 20;
	__u16 c;

	memset(f->b, 0, sizeof(f->b));
	f->b[12] = 0x08;
	ip[0] = 0x45;
	ip[2] = (__u8)((40 + payload) >> 8);
	ip[3] = (__u8)(40 + payload);
	ip[6] = 0x40;
	ip[8] = 64;
	ip[9] = 6;
	inet_pton(AF_INET, src, ip + 12);
	inet_pton(AF_INET, dst, ip + 16);
	c = dc_ip_csum(ip, 20);
	ip[10] = c >> 8;
	ip[11] = c & 0xff;
	th[0] = sport >> 8;
	th[1] = sport & 0xff;
	th[2] = dport >> 8;
	th[3] = dport & 0xff;
	th[12] = 0x50;
	f->len = 54 + payload;
}

/* Mean kernel ns of RUNS single runs of prog on f. */
static double cost(int prog, const struct frame *f)
{
	return pb_mean_ns(prog, f->b, f->len, RUNS);
}

int main(void)
{
	struct dc_int_dst_key k = { .prefixlen = 32 };
	struct dc_int_dst_cfg v = { .slots = 4 };
	struct dc_sw_port port = { .rate_mbps = 1000, .qlen_bytes = 6400, .tx_bytes = 1 << 20,
				   .ifindex = 1 };
	struct frame data, with_opt, filled, ack, echo;
	struct int_transit_bpf *x;
	struct int_bpf *s;
	__u32 one = 1, port_id = 0;
	int empty, i;

	DC_BENCH_NEED_ROOT("int_prog");
	s = DC_SKEL_OPEN_LOAD(int_bpf);
	x = DC_SKEL_OPEN_LOAD(int_transit_bpf);
	if (!s || !x) {
		fprintf(stderr, "int_prog bench: loading the INT programs failed: %s\n", strerror(errno));
		return 1;
	}
	empty = pb_empty_prog(BPF_PROG_TYPE_SCHED_CLS, "dc_tc_empty");
	inet_pton(AF_INET, "10.0.0.2", &k.addr);
	bpf_map_update_elem(bpf_map__fd(s->maps.dc_int_dst), &k, &v, BPF_ANY);
	bpf_map_update_elem(bpf_map__fd(x->maps.dc_sw_ifport), &one, &port_id, BPF_ANY);
	bpf_map_update_elem(bpf_map__fd(x->maps.dc_sw_port), &port_id, &port, BPF_ANY);

	/* The frames each program sees in a real path, produced by the one before. */
	tcp_frame(&data, "10.0.0.1", "10.0.0.2", 40000, 5201, 1448);
	{
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = data.b, .data_size_in = data.len,
			    .data_out = with_opt.b, .data_size_out = sizeof(with_opt.b));

		bpf_prog_test_run_opts(bpf_program__fd(s->progs.dc_int_hout), &o);
		with_opt.len = o.data_size_out;
	}
	filled = with_opt;
	for (i = 0; i < 2; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = filled.b, .data_size_in = filled.len,
			    .data_out = filled.b, .data_size_out = sizeof(filled.b));

		bpf_prog_test_run_opts(bpf_program__fd(x->progs.dc_int_xmit), &o);
	}
	{
		/* the sink keeps the stack; then an ACK picks up the echo */
		struct frame tmp;
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = filled.b, .data_size_in = filled.len,
			    .data_out = tmp.b, .data_size_out = sizeof(tmp.b));

		bpf_prog_test_run_opts(bpf_program__fd(s->progs.dc_int_hin), &o);
	}
	tcp_frame(&ack, "10.0.0.2", "10.0.0.1", 5201, 40000, 0);
	{
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = ack.b, .data_size_in = ack.len,
			    .data_out = echo.b, .data_size_out = sizeof(echo.b));

		bpf_prog_test_run_opts(bpf_program__fd(s->progs.dc_int_hout), &o);
		echo.len = o.data_size_out;
	}

	pb_emit("int_tc_empty_ns", cost(empty, &data));
	pb_emit("int_source_ns", cost(bpf_program__fd(s->progs.dc_int_hout), &data));
	pb_emit("int_transit_ns", cost(bpf_program__fd(x->progs.dc_int_xmit), &with_opt));
	pb_emit("int_sink_ns", cost(bpf_program__fd(s->progs.dc_int_hin), &filled));
	pb_emit("int_echo_ns", cost(bpf_program__fd(s->progs.dc_int_hout), &ack));
	pb_emit("int_publish_ns", cost(bpf_program__fd(s->progs.dc_int_hin), &echo));
	int_transit_bpf__destroy(x);
	int_bpf__destroy(s);
	return 0;
}
