/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Fixture for running the switch's XDP admission program with
 * BPF_PROG_TEST_RUN (tests/unit/test_xdp_admit.c, tests/bench/xdp_admit.c):
 * a private network namespace (gone with the process) holding two veth
 * pairs with routes, the switch object loaded unpinned, and helpers to
 * set the queue state and build packets.
 *
 *   ingress port a0 10.9.0.1/24  (port 0)     egress port a1 10.9.1.1/24 (port 1)
 *   packets 10.9.0.2 → 10.9.1.2 are forwarded a0 → a1 by the FIB.
 */
#ifndef DCBPF_TEST_SWFIXTURE_H
#define DCBPF_TEST_SWFIXTURE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dcbpf/admit.h"
#include "switch.skel.h"

struct swfix {
	struct switch_bpf *skel;
	int prog, cfg, meta, port, state, ifport, cnt;
	__u32 if_in, if_out;
	struct dc_sw_cfg c;
};

static int swfix_sh(const char *cmd)
{
	int rc = system(cmd);

	if (rc)
		fprintf(stderr, "fixture: '%s' failed (%d)\n", cmd, rc);
	return rc;
}

/* Returns 0, or -1 with a reason on stderr. */
static int swfix_setup(struct swfix *f)
{
	struct bpf_map *m;
	struct stat st;
	__u32 zero = 0, i;
	struct dc_sw_meta meta = { 0 };
	struct dc_sw_state s = { .abm_congested = 1 };

	memset(f, 0, sizeof(*f));
	if (unshare(CLONE_NEWNET)) {
		fprintf(stderr, "fixture: unshare(CLONE_NEWNET): %s (needs root)\n", strerror(errno));
		return -1;
	}
	if (swfix_sh("ip link set lo up && ip link add a0 type veth peer name b0 && "
		     "ip link add a1 type veth peer name b1 && "
		     "ip addr add 10.9.0.1/24 dev a0 && ip addr add 10.9.1.1/24 dev a1 && "
		     "ip link set a0 up && ip link set b0 up && ip link set a1 up && ip link set b1 up && "
		     "sysctl -qw net.ipv4.ip_forward=1"))
		return -1;
	f->if_in = if_nametoindex("a0");
	f->if_out = if_nametoindex("a1");
	libbpf_set_print(NULL);
	f->skel = switch_bpf__open();
	if (!f->skel)
		return -1;
	/* unpinned: the fixture must not touch /sys/fs/bpf */
	bpf_object__for_each_map(m, f->skel->obj)
		bpf_map__set_pin_path(m, NULL);
	if (stat("/proc/self/ns/net", &st))
		return -1;
	f->skel->rodata->dc_netns_ino = (__u32)st.st_ino;
	if (switch_bpf__load(f->skel)) {
		fprintf(stderr, "fixture: loading the switch object failed\n");
		return -1;
	}
	f->prog = bpf_program__fd(f->skel->progs.dc_sw_admit);
	f->cfg = bpf_map__fd(f->skel->maps.dc_sw_cfg);
	f->meta = bpf_map__fd(f->skel->maps.dc_sw_meta);
	f->port = bpf_map__fd(f->skel->maps.dc_sw_port);
	f->state = bpf_map__fd(f->skel->maps.dc_sw_state);
	f->ifport = bpf_map__fd(f->skel->maps.dc_sw_ifport);
	f->cnt = bpf_map__fd(f->skel->maps.dc_sw_cnt);
	meta.netns_ino = (__u32)st.st_ino;
	meta.nports = 2;
	bpf_map_update_elem(f->meta, &zero, &meta, BPF_ANY);
	bpf_map_update_elem(f->state, &zero, &s, BPF_ANY);
	for (i = 0; i < 2; i++) {
		struct dc_sw_port p = { .rate_mbps = 1000, .port_id = i, .gamma_q16 = (__u32)DC_Q16_ONE };

		p.ifindex = i ? f->if_out : f->if_in;
		bpf_map_update_elem(f->port, &i, &p, BPF_ANY);
		bpf_map_update_elem(f->ifport, &p.ifindex, &i, BPF_ANY);
	}
	return 0;
}

/* Publish f->c the way dcbpf set does: idle slot, then flip. */
static void swfix_cfg(struct swfix *f)
{
	struct dc_sw_meta meta;
	__u32 zero = 0, idle;

	bpf_map_lookup_elem(f->meta, &zero, &meta);
	idle = (meta.cfg_slot & 1) ^ 1;
	bpf_map_update_elem(f->cfg, &idle, &f->c, BPF_ANY);
	meta.cfg_slot = idle;
	bpf_map_update_elem(f->meta, &zero, &meta, BPF_ANY);
}

/* f->c from zero: Dynamic Thresholds over buffer_bytes, every priority's
 * alpha alpha_q16, the ABM period the tests share, the priority from
 * DSCP's class bits.  The caller sets what its cases need, then
 * swfix_cfg. */
static __attribute__((unused)) void swfix_dt(struct swfix *f, __u64 buffer_bytes, __u32 alpha_q16)
{
	unsigned int v;

	memset(&f->c, 0, sizeof(f->c));
	f->c.alg = DC_ALG_DT;
	f->c.buffer_bytes = buffer_bytes;
	f->c.abm_period_us = 100;
	for (v = 0; v < DC_SW_PRIOS; v++)
		f->c.alpha_q16[v] = alpha_q16;
	for (v = 0; v < 64; v++)
		f->c.dscp_prio[v] = (__u8)(v >> 3);
}

/* Queue state as the tracker would leave it. */
static __attribute__((unused)) void swfix_queue(struct swfix *f, __u64 q_out, __u64 Q, __u32 n, __u32 gamma_q16)
{
	struct dc_sw_state s = { .occupancy_bytes = Q, .abm_congested = n };
	struct dc_sw_port p;
	__u32 zero = 0, one = 1;

	bpf_map_update_elem(f->state, &zero, &s, BPF_ANY);
	struct timespec ts;

	bpf_map_lookup_elem(f->port, &one, &p);
	/* fresh, as if the tracker had just run (else the stale-record guard
	 * of the program would drain it) */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	p.last_ns = (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
	p.qlen_bytes = q_out;
	p.gamma_q16 = gamma_q16;
	bpf_map_update_elem(f->port, &one, &p, BPF_ANY);
}

/* IPv4/TCP frame of `len` bytes from 10.9.0.2 to dst with the given TOS.
 * Headers are built aligned and copied: the IP header sits at offset 14. */
static size_t swfix_pkt(unsigned char *buf, size_t len, const char *dst, __u8 tos)
{
	struct ethhdr eth = { .h_proto = htons(ETH_P_IP) };
	struct iphdr ip = { .version = 4, .ihl = 5, .ttl = 64, .protocol = 6 };
	struct tcphdr tcp = { .source = htons(40000), .dest = htons(5201), .doff = 5 };
	__u16 w[10];
	__u32 sum = 0;
	unsigned int i;

	memset(buf, 0, len);
	ip.tos = tos;
	ip.tot_len = htons((__u16)(len - sizeof(eth)));
	inet_pton(AF_INET, "10.9.0.2", &ip.saddr);
	inet_pton(AF_INET, dst, &ip.daddr);
	memcpy(w, &ip, sizeof(w));
	for (i = 0; i < 10; i++)
		sum += w[i];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	ip.check = (__u16)~sum;
	memcpy(buf, &eth, sizeof(eth));
	memcpy(buf + sizeof(eth), &ip, sizeof(ip));
	memcpy(buf + sizeof(eth) + sizeof(ip), &tcp, sizeof(tcp));
	return len;
}

/* One run: verdict (XDP_*), or -1.  out (if given) receives the frame. */
static int swfix_run(struct swfix *f, const void *pkt, size_t len, void *out, __u32 repeat,
		     __u32 *ns_per_run)
{
	struct xdp_md ctx = { .data_end = (__u32)len, .ingress_ifindex = f->if_in };
	unsigned char scratch[9000];
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = (__u32)len,
		    .data_out = out ? out : scratch, .data_size_out = sizeof(scratch),
		    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = repeat);

	if (bpf_prog_test_run_opts(f->prog, &o))
		return -1;
	if (ns_per_run)
		*ns_per_run = o.duration;
	return (int)o.retval;
}

/* Queues per port (dc_sw_meta.nqueues), as `switch up --queues N` sets it. */
static __attribute__((unused)) void swfix_nqueues(struct swfix *f, __u32 n)
{
	struct dc_sw_meta m;
	__u32 zero = 0;

	bpf_map_lookup_elem(f->meta, &zero, &m);
	m.nqueues = n;
	bpf_map_update_elem(f->meta, &zero, &m, BPF_ANY);
}

/* The admission threshold port 1's QUEUE last got (its dc_sw_queue record). */
static __attribute__((unused)) __u64 swfix_qthresh(struct swfix *f, __u32 queue)
{
	struct dc_sw_queue r = { 0 };
	__u32 key = dc_qrec_key(1, queue);

	bpf_map_lookup_elem(bpf_map__fd(f->skel->maps.dc_sw_queue), &key, &r);
	return r.thresh_bytes;
}

/* Counters of (port, prio) summed over CPUs. */
static __attribute__((unused)) struct dc_sw_counters swfix_counters(struct swfix *f, __u32 key)
{
	struct dc_sw_counters tot = { 0 }, v[512];
	int n = libbpf_num_possible_cpus(), i;

	if (n > 512 || bpf_map_lookup_elem(f->cnt, &key, v))
		return tot;
	for (i = 0; i < n; i++) {
		tot.admit_pkts += v[i].admit_pkts;
		tot.admit_bytes += v[i].admit_bytes;
		tot.drop_bytes += v[i].drop_bytes;
		tot.drop_thresh_pkts += v[i].drop_thresh_pkts;
		tot.drop_full_pkts += v[i].drop_full_pkts;
		tot.ecn_marked_pkts += v[i].ecn_marked_pkts;
		tot.first_rtt_pkts += v[i].first_rtt_pkts;
		tot.other_pkts += v[i].other_pkts;
	}
	return tot;
}

/* The IPv4 header checksum of a frame (IP at offset 14, no options) holds. */
static __attribute__((unused)) bool swfix_ip_csum_ok(const unsigned char *frame)
{
	__u16 w[10];
	__u32 sum = 0;
	int i;

	memcpy(w, frame + sizeof(struct ethhdr), sizeof(w));
	for (i = 0; i < 10; i++)
		sum += w[i];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

#endif
