// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * INT's rate field following the slot (bpf/int_transit.bpf.c with
 * maps/rdcn_sched.h): on a ToR uplink listed in dc_rd_tor the transit hop
 * reports the circuit's rate while the circuit to the frame's next hop
 * (its destination MAC, dc_rd_mac) is up and the packet network's
 * otherwise, so PowerTCP sees circuits come and go (thesis §2.4).  Run by
 * BPF_PROG_TEST_RUN: the source program adds the option, the transit hop
 * fills it, and the rate code of hop 0 is read back.  The schedule (4
 * ToRs, one uplink, 3 slots of 2 s with a 1.5 s day) is written straight
 * into the object's maps with its epoch placed so that the real clock
 * falls 0.25 s or more inside a day, a night or another slot: the cases
 * hold whatever the test's own latency.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "check.h"
#include "skelfix.h"
#include "pktbuild.h"
#include "dcbpf/int.h"
#include "dcbpf/rdcn.h"
#include "dcbpf/switch.h"
#include "int.skel.h"
#include "int_transit.skel.h"

#define SLOT_NS 2000000000ULL
#define DAY_NS 1500000000ULL
#define PORT_MBPS 10000
#define CIRCUIT_MBPS 100000
#define PACKET_MBPS 25000

static struct int_bpf *skel;
static struct int_transit_bpf *xskel;
/* slot t: ToR i reaches (i + t + 1) mod 4 (round robin without self) */
static const __u8 rr[3][4] = { { 1, 2, 3, 0 }, { 2, 3, 0, 1 }, { 3, 0, 1, 2 } };

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

static int run(int fd, const struct pkt *in, struct pkt *out)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in->b, .data_size_in = in->len, .data_out = out->b,
		    .data_size_out = sizeof(out->b));
	int err = bpf_prog_test_run_opts(fd, &o);

	out->len = o.data_size_out;
	return err ? RUN_ERR + err : (int)o.retval;
}

/* Source adds the option, the transit hop (loopback: ifindex 1) fills hop 0;
 * its rate in Mbit/s, or -1 if the hop is empty. */
static int hop0_rate(const __u8 *dst_mac)
{
	struct pkt p, a, b;

	pkt_tcp4(&p, &(struct pkt_tcp4){ .src = "10.77.0.1", .dst = "10.77.2.1", .sport = 40100, .dport = 5201,
					 .payload = 1000, .flags = 0x18, .ttl = 64, .proto = 6, .ip_id = 7,
					 .fill_mul = 7, .fill_add = 3 });
	if (dst_mac)
		memcpy(p.b, dst_mac, 6);
	run(bpf_program__fd(skel->progs.dc_int_hout), &p, &a);
	run(bpf_program__fd(xskel->progs.dc_int_xmit), &a, &b);
	if (b.len < 46 || dc_int_hops(b.b[37]) != 1)
		return -1;
	return (int)dc_int_rate_mbps(dc_int_w_rate(dc_int_load_be64(b.b + 38)));
}

/* The live schedule: buffer 0 from time 0, slot 0 starting `ago_ns` ago
 * (negative: in the future). */
static void schedule(long long ago_ns)
{
	struct dc_rd_cfg c = { .epoch_ns = (__u64)((long long)mono_ns() - ago_ns), .slot_ns = SLOT_NS,
			       .day_ns = DAY_NS, .period = 3, .ntors = 4, .nup = 1 };
	struct dc_rd_flip fl = { 0 };
	struct dc_rd_slot s;
	__u32 k = 0, t;

	for (t = 0; t < 3; t++) {
		memset(&s, DC_RD_IDLE, sizeof(s));
		memcpy(s.peer[0], rr[t], 4);
		k = dc_rd_sched_key(0, t);
		bpf_map_update_elem(bpf_map__fd(xskel->maps.dc_rd_sched), &k, &s, BPF_ANY);
	}
	k = 0;
	bpf_map_update_elem(bpf_map__fd(xskel->maps.dc_rd_cfg), &k, &c, BPF_ANY);
	bpf_map_update_elem(bpf_map__fd(xskel->maps.dc_rd_flip), &k, &fl, BPF_ANY);
}

static void set_tor(__u32 tor, __u32 circuit, __u32 packet)
{
	struct dc_rd_tor t = { .tor = (__u16)tor, .up = 0, .circuit_mbps = circuit, .packet_mbps = packet };
	__u32 ifindex = 1;

	bpf_map_update_elem(bpf_map__fd(xskel->maps.dc_rd_tor), &ifindex, &t, BPF_ANY);
}

static void set_mac(const __u8 *mac, __u32 tor)
{
	struct dc_rd_mac_key k = { 0 };
	struct dc_rd_dst d = { .tor = tor };

	memcpy(k.addr, mac, 6);
	bpf_map_update_elem(bpf_map__fd(xskel->maps.dc_rd_mac), &k, &d, BPF_ANY);
}

int main(void)
{
	static const __u8 mac_tor2[6] = { 0x02, 0xdc, 0x7d, 0x00, 0x02, 0x00 },
			  mac_tor1[6] = { 0x02, 0xdc, 0x7d, 0x00, 0x01, 0x00 },
			  mac_none[6] = { 0x02, 0xdc, 0x7d, 0x00, 0x09, 0x00 };
	struct dc_int_dst_key dk = { .prefixlen = 32 };
	struct dc_int_dst_cfg dv = { .slots = 4 };
	struct dc_sw_port rec = { .rate_mbps = PORT_MBPS, .port_id = 3, .ifindex = 1 };
	__u32 one = 1, port_id = 3;

	DC_TEST_NEED_ROOT("rdcn int");
	skel = DC_SKEL_OPEN_LOAD(int_bpf);
	xskel = DC_SKEL_OPEN_LOAD(int_transit_bpf);
	if (!skel || !xskel) {
		printf("FAIL: rdcn int: INT objects load (verifier): %s\n", strerror(errno));
		return 1;
	}
	printf("PASS: rdcn int: the transit hop with the schedule maps verifies and loads\n");
	inet_pton(AF_INET, "10.77.2.1", &dk.addr);
	bpf_map_update_elem(bpf_map__fd(skel->maps.dc_int_dst), &dk, &dv, BPF_ANY);
	bpf_map_update_elem(bpf_map__fd(xskel->maps.dc_sw_ifport), &one, &port_id, BPF_ANY);
	bpf_map_update_elem(bpf_map__fd(xskel->maps.dc_sw_port), &port_id, &rec, BPF_ANY);
	set_mac(mac_tor2, 2);
	set_mac(mac_tor1, 1);

	/* not a ToR uplink: the port's own rate, schedule or not */
	CHECK_EQ("rdcn int: no dc_rd_tor entry: the port's rate", hop0_rate(mac_tor2), PORT_MBPS);
	schedule(500000000LL);
	CHECK_EQ("rdcn int: no dc_rd_tor entry, circuit up: still the port's rate", hop0_rate(mac_tor2), PORT_MBPS);

	set_tor(0, CIRCUIT_MBPS, PACKET_MBPS);
	/* slot 0 matches 0 -> 1; slot 1 matches 0 -> 2; slot 2 matches 0 -> 3 */
	schedule(SLOT_NS + 500000000LL);
	CHECK_EQ("rdcn int: day of the slot matching 0 -> 2: the circuit's rate", hop0_rate(mac_tor2),
		 CIRCUIT_MBPS);
	CHECK_EQ("rdcn int: same instant, next hop ToR 1 (not matched): the packet network's",
		 hop0_rate(mac_tor1), PACKET_MBPS);
	schedule(SLOT_NS + DAY_NS + 250000000LL);
	CHECK_EQ("rdcn int: night of that slot: the packet network's", hop0_rate(mac_tor2), PACKET_MBPS);
	schedule(500000000LL);
	CHECK_EQ("rdcn int: day of slot 0 (0 -> 1): for ToR 2 the packet network's", hop0_rate(mac_tor2),
		 PACKET_MBPS);
	CHECK_EQ("rdcn int: day of slot 0: for ToR 1 the circuit's", hop0_rate(mac_tor1), CIRCUIT_MBPS);
	schedule(2 * SLOT_NS + 500000000LL);
	CHECK_EQ("rdcn int: day of slot 2 (0 -> 3): for ToR 2 the packet network's", hop0_rate(mac_tor2),
		 PACKET_MBPS);
	schedule(4 * SLOT_NS + 500000000LL);
	CHECK_EQ("rdcn int: the next period's slot 1 (wrap): the circuit's again", hop0_rate(mac_tor2),
		 CIRCUIT_MBPS);
	CHECK_EQ("rdcn int: a next hop that is no ToR: the packet network's", hop0_rate(mac_none), PACKET_MBPS);
	schedule(-10000000000LL);
	CHECK_EQ("rdcn int: before the epoch (nothing live): the packet network's", hop0_rate(mac_tor2),
		 PACKET_MBPS);
	set_tor(0, CIRCUIT_MBPS, 0);
	schedule(SLOT_NS + DAY_NS + 250000000LL);
	CHECK_EQ("rdcn int: no packet network: rate 0 at night (the CC skips the sample)", hop0_rate(mac_tor2), 0);
	schedule(SLOT_NS + 500000000LL);
	CHECK_EQ("rdcn int: no packet network: the circuit's in its day", hop0_rate(mac_tor2), CIRCUIT_MBPS);
	/* ToR 2's own uplink: a frame to ToR 2 is to itself, never a circuit */
	set_tor(2, CIRCUIT_MBPS, PACKET_MBPS);
	CHECK_EQ("rdcn int: a frame to the ToR itself: the packet network's", hop0_rate(mac_tor2), PACKET_MBPS);
	bpf_map_delete_elem(bpf_map__fd(xskel->maps.dc_rd_tor), &one);
	CHECK_EQ("rdcn int: entry removed: the port's rate again", hop0_rate(mac_tor2), PORT_MBPS);

	int_transit_bpf__destroy(xskel);
	int_bpf__destroy(skel);
	return check_failed;
}
