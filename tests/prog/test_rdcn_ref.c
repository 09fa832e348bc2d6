// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The circuit switch (bpf/rdcn.bpf.c) by BPF_PROG_TEST_RUN, its clock set
 * through dc_rd_now_ns: nothing passes before the first flip ("no
 * schedule"); a frame whose pair is matched on its uplink in the live slot
 * during the day is redirected to the destination ToR's port on the same
 * uplink, unchanged; the other destination, the other uplink's pair, the
 * night (from its first ns; the last ns of the day still passes), an
 * unknown or own next hop, a port without an interface, an interface
 * that is no port are dropped, each counted once under its reason; a
 * header alone and a malformed IPv4 header are carried byte for byte (the
 * kernel's test run refuses shorter frames, and IPv4 frames cut inside
 * the IP header, so drop_short guards what a NIC would never deliver).  bpftool prints the counters by
 * name.  The test runs on loopback (ifindex 1), which the map makes
 * whichever port a case needs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "skelfix.h"
#include "check.h"
#include "dcbpf/rdcn.h"
#include "rdcn.skel.h"

#define TC_ACT_SHOT 2
#define TC_ACT_REDIRECT 7
#define NT 4
#define NU 2
#define EPOCH 1000000ULL
#define SLOT 1000ULL
#define DAY 900ULL
#define PERIOD 3

static struct rdcn_bpf *skel;
static int prog_fd;
/* what each port's counters should read, kept beside the program's */
static struct dc_rd_pcnt want[DC_RD_PORTS + 1];

static void mac_of(__u32 tor, __u8 m[6])
{
	/* a ToR's uplink address: locally administered, ToR in the last byte */
	static const __u8 base[6] = { 0x02, 0xdc, 0x7d, 0, 0, 0 };

	memcpy(m, base, 6);
	m[5] = (__u8)tor;
}

struct frame {
	__u8 b[64];
	__u32 len;
};

/* Ethernet to dst, then IPv4 and a recognisable payload up to len. */
static void frame_to(struct frame *f, const __u8 dst[6], __u32 len)
{
	__u32 i;

	memset(f, 0, sizeof(*f));
	memcpy(f->b, dst, 6);
	mac_of(9, f->b + 6);
	f->b[12] = 0x08;
	for (i = 14; i < len; i++)
		f->b[i] = (__u8)(i * 7 + 1);
	if (len > 14)
		f->b[14] = 0x45;
	f->len = len;
}

static void set_port(__u32 tor, __u32 up)
{
	struct dc_rd_port p = { .tor = (__u16)tor, .up = (__u16)up };
	__u32 ifindex = 1;

	bpf_map_update_elem(bpf_map__fd(skel->maps.dc_rd_port), &ifindex, &p, BPF_ANY);
}

/* Run one frame at `now` into the current port; *same: out == in. */
static int run(__u64 now, const struct frame *in, bool *same)
{
	struct frame out;
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in->b, .data_size_in = in->len, .data_out = out.b,
		    .data_size_out = sizeof(out.b));
	int err;

	skel->bss->dc_rd_now_ns = now;
	memset(&out, 0xee, sizeof(out));
	err = bpf_prog_test_run_opts(prog_fd, &o);
	if (same)
		*same = !err && o.data_size_out == in->len && !memcmp(out.b, in->b, in->len);
	return err ? -errno : (int)o.retval;
}

static struct dc_rd_pcnt get(__u32 key)
{
	struct dc_rd_pcnt c;

	memset(&c, 0xff, sizeof(c));
	bpf_map_lookup_elem(bpf_map__fd(skel->maps.dc_rd_pcnt), &key, &c);
	return c;
}

/* Every port's counters equal what the cases added to want[]. */
static int counters_agree(char *why, size_t n)
{
	__u32 k;

	for (k = 0; k <= DC_RD_PORTS; k++) {
		struct dc_rd_pcnt c = get(k);

		if (memcmp(&c, &want[k], sizeof(c))) {
			snprintf(why, n,
				 "port key %u: rx %llu pass %llu bytes %llu out %llu nosched %llu night %llu "
				 "unmatched %llu nodest %llu short %llu",
				 k, (unsigned long long)c.rx_pkts, (unsigned long long)c.pass_pkts,
				 (unsigned long long)c.pass_bytes, (unsigned long long)c.out_pkts,
				 (unsigned long long)c.drop_nosched, (unsigned long long)c.drop_night,
				 (unsigned long long)c.drop_unmatched, (unsigned long long)c.drop_nodest,
				 (unsigned long long)c.drop_short);
			return 0;
		}
	}
	return 1;
}

/* The schedule: uplink 0 is the round robin (i + t + 1) mod 4, uplink 1
 * the same one slot ahead ((i + t + 2) mod 4: idle, a self-loop, in slot 2). */
static __u32 peer(__u32 t, __u32 u, __u32 i)
{
	return (i + t + 1 + u) % NT;
}

static void publish(void)
{
	struct dc_rd_cfg c = { .epoch_ns = EPOCH, .slot_ns = SLOT, .day_ns = DAY, .period = PERIOD,
			       .ntors = NT, .nup = NU };
	struct dc_rd_flip fl = { .buf_at_ns = dc_rd_flip_make(EPOCH, 1) };
	struct dc_rd_slot s;
	__u32 t, u, i, key, one = 1, zero = 0;

	for (t = 0; t < PERIOD; t++) {
		memset(&s, DC_RD_IDLE, sizeof(s));
		for (u = 0; u < NU; u++)
			for (i = 0; i < NT; i++)
				s.peer[u][i] = (__u8)peer(t, u, i);
		key = dc_rd_sched_key(1, t);
		bpf_map_update_elem(bpf_map__fd(skel->maps.dc_rd_sched), &key, &s, BPF_ANY);
	}
	bpf_map_update_elem(bpf_map__fd(skel->maps.dc_rd_cfg), &one, &c, BPF_ANY);
	bpf_map_update_elem(bpf_map__fd(skel->maps.dc_rd_flip), &zero, &fl, BPF_ANY);
}

int main(void)
{
	struct frame f, hdr;
	__u8 m[6], bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	char why[512] = "";
	__u32 i, k, key, bad;
	bool same = false;
	int rc;

	DC_TEST_NEED_ROOT("rdcn circuit switch");
	skel = DC_SKEL_OPEN_LOAD(rdcn_bpf);
	if (!skel) {
		printf("FAIL: rdcn circuit switch: the object loads (verifier): %s\n", strerror(errno));
		return 1;
	}
	printf("PASS: rdcn circuit switch: dc_rd_ref passes the verifier\n");
	prog_fd = bpf_program__fd(skel->progs.dc_rd_ref);

	/* the fabric: 4 ToRs x 2 uplinks, port (i, u) sends by ifindex 100 + key */
	for (i = 0; i < NT; i++) {
		struct dc_rd_mac_key mk = { 0 };
		struct dc_rd_dst d = { .tor = i };
		__u32 u;

		mac_of(i, mk.addr);
		bpf_map_update_elem(bpf_map__fd(skel->maps.dc_rd_mac), &mk, &d, BPF_ANY);
		for (u = 0; u < NU; u++) {
			struct dc_rd_out o = { .ifindex = 100 + dc_rd_port_key(i, u) };

			key = dc_rd_port_key(i, u);
			bpf_map_update_elem(bpf_map__fd(skel->maps.dc_rd_out), &key, &o, BPF_ANY);
		}
	}
	set_port(0, 0);
	mac_of(1, m);
	frame_to(&f, m, 60);

	rc = run(EPOCH + 10, &f, NULL);
	want[0].rx_pkts++, want[0].drop_nosched++;
	CHECK("rdcn switch: nothing published: dropped as no schedule", rc == TC_ACT_SHOT &&
	      counters_agree(why, sizeof(why)), "rc %d; %s", rc, why);

	publish();
	rc = run(EPOCH - 1, &f, NULL);
	want[0].rx_pkts++, want[0].drop_nosched++;
	CHECK("rdcn switch: 1 ns before the first flip: still no schedule", rc == TC_ACT_SHOT &&
	      counters_agree(why, sizeof(why)), "rc %d; %s", rc, why);

	rc = run(EPOCH, &f, &same);
	want[0].rx_pkts++, want[0].pass_pkts++, want[0].pass_bytes += 60;
	want[dc_rd_port_key(1, 0)].out_pkts++;
	CHECK("rdcn switch: at the flip, slot 0, day: 0 -> 1 on uplink 0 redirected to port (1, 0), unchanged",
	      rc == TC_ACT_REDIRECT && same && counters_agree(why, sizeof(why)), "rc %d same %d; %s", rc, same,
	      why);

	rc = run(EPOCH + DAY - 1, &f, NULL);
	want[0].rx_pkts++, want[0].pass_pkts++, want[0].pass_bytes += 60;
	want[dc_rd_port_key(1, 0)].out_pkts++;
	CHECK("rdcn switch: the last ns of the day still passes", rc == TC_ACT_REDIRECT &&
	      counters_agree(why, sizeof(why)), "rc %d; %s", rc, why);

	rc = run(EPOCH + DAY, &f, NULL);
	want[0].rx_pkts++, want[0].drop_night++;
	CHECK("rdcn switch: the first ns of the night: dropped as night", rc == TC_ACT_SHOT &&
	      counters_agree(why, sizeof(why)), "rc %d; %s", rc, why);

	mac_of(2, m);
	frame_to(&f, m, 60);
	rc = run(EPOCH + 10, &f, NULL);
	want[0].rx_pkts++, want[0].drop_unmatched++;
	CHECK("rdcn switch: 0 -> 2 on uplink 0 in slot 0: dropped as unmatched", rc == TC_ACT_SHOT &&
	      counters_agree(why, sizeof(why)), "rc %d; %s", rc, why);

	set_port(0, 1);
	rc = run(EPOCH + 10, &f, &same);
	key = dc_rd_port_key(0, 1);
	want[key].rx_pkts++, want[key].pass_pkts++, want[key].pass_bytes += 60;
	want[dc_rd_port_key(2, 1)].out_pkts++;
	CHECK("rdcn switch: 0 -> 2 on uplink 1 in slot 0: out at port (2, 1), not (2, 0)",
	      rc == TC_ACT_REDIRECT && same && counters_agree(why, sizeof(why)), "rc %d; %s", rc, why);

	set_port(0, 0);
	rc = run(EPOCH + SLOT + 5, &f, NULL);
	want[0].rx_pkts++, want[0].pass_pkts++, want[0].pass_bytes += 60;
	want[dc_rd_port_key(2, 0)].out_pkts++;
	CHECK("rdcn switch: slot 1: 0 -> 2 on uplink 0 passes", rc == TC_ACT_REDIRECT &&
	      counters_agree(why, sizeof(why)), "rc %d; %s", rc, why);

	/* every (slot, from, to, uplink) over two periods, day and night */
	bad = 0;
	for (k = 0; k < 2 * PERIOD; k++)
		for (i = 0; i < NT; i++) {
			__u32 j, u;

			for (u = 0; u < NU; u++) {
				set_port(i, u);
				for (j = 0; j < NT; j++) {
					__u64 t0 = EPOCH + k * SLOT + 3;
					bool match = j != i && peer(k % PERIOD, u, i) == j;

					key = dc_rd_port_key(i, u);
					mac_of(j, m);
					frame_to(&f, m, 60);
					rc = run(t0, &f, NULL);
					want[key].rx_pkts++;
					if (j == i) {
						want[key].drop_nodest++;
						bad += rc != TC_ACT_SHOT;
					} else if (match) {
						want[key].pass_pkts++, want[key].pass_bytes += 60;
						want[dc_rd_port_key(j, u)].out_pkts++;
						bad += rc != TC_ACT_REDIRECT;
					} else {
						want[key].drop_unmatched++;
						bad += rc != TC_ACT_SHOT;
					}
					rc = run(t0 + DAY, &f, NULL);
					want[key].rx_pkts++;
					if (j == i)
						want[key].drop_nodest++;
					else
						want[key].drop_night++;
					bad += rc != TC_ACT_SHOT;
				}
			}
		}
	CHECK("rdcn switch: two periods, every port and destination: passed iff matched on its uplink, "
	      "counted by reason", bad == 0 && counters_agree(why, sizeof(why)), "%u wrong verdicts; %s", bad,
	      why);

	set_port(0, 0);
	frame_to(&f, bcast, 60);
	rc = run(EPOCH + 10, &f, NULL);
	want[0].rx_pkts++, want[0].drop_nodest++;
	CHECK("rdcn switch: a broadcast frame (no ToR's address): dropped as no destination",
	      rc == TC_ACT_SHOT && counters_agree(why, sizeof(why)), "rc %d; %s", rc, why);

	mac_of(1, m);
	frame_to(&hdr, m, 14);
	hdr.b[12] = 0x88, hdr.b[13] = 0xb5;	/* local experimental ethertype, no payload */
	rc = run(EPOCH + 10, &hdr, &same);
	want[0].rx_pkts++, want[0].pass_pkts++, want[0].pass_bytes += 14;
	want[dc_rd_port_key(1, 0)].out_pkts++;
	CHECK("rdcn switch: an Ethernet header alone, matched: carried as it is (the switch reads L2 only)",
	      rc == TC_ACT_REDIRECT && same && counters_agree(why, sizeof(why)), "rc %d same %d; %s", rc, same,
	      why);

	frame_to(&hdr, m, 34);
	hdr.b[14] = 0x4f;			/* IHL 15 words: 60 bytes of header in a 20-byte one */
	hdr.b[16] = 0x05, hdr.b[17] = 0xdc;	/* total length 1500 */
	rc = run(EPOCH + 10, &hdr, &same);
	want[0].rx_pkts++, want[0].pass_pkts++, want[0].pass_bytes += 34;
	want[dc_rd_port_key(1, 0)].out_pkts++;
	CHECK("rdcn switch: a malformed IPv4 header (IHL and length beyond the frame), matched: carried byte "
	      "for byte", rc == TC_ACT_REDIRECT && same && counters_agree(why, sizeof(why)), "rc %d same %d; %s",
	      rc, same, why);

	key = dc_rd_port_key(1, 0);
	{
		struct dc_rd_out none = { 0 };

		bpf_map_update_elem(bpf_map__fd(skel->maps.dc_rd_out), &key, &none, BPF_ANY);
	}
	frame_to(&f, m, 60);
	rc = run(EPOCH + 10, &f, NULL);
	want[0].rx_pkts++, want[0].drop_nodest++;
	CHECK("rdcn switch: matched but port (1, 0) has no interface: dropped as no destination",
	      rc == TC_ACT_SHOT && counters_agree(why, sizeof(why)), "rc %d; %s", rc, why);

	{
		__u32 ifindex = 1;

		bpf_map_delete_elem(bpf_map__fd(skel->maps.dc_rd_port), &ifindex);
	}
	rc = run(EPOCH + 10, &f, NULL);
	want[DC_RD_PORTS].rx_pkts++, want[DC_RD_PORTS].drop_nodest++;
	CHECK("rdcn switch: an interface that is no port: dropped, counted on the extra entry",
	      rc == TC_ACT_SHOT && counters_agree(why, sizeof(why)), "rc %d; %s", rc, why);

	CHECK("rdcn switch: bpftool dumps dc_rd_pcnt with named fields",
	      dc_fd_dump_has(bpf_map__fd(skel->maps.dc_rd_pcnt), "\"drop_unmatched\"") &&
	      dc_fd_dump_has(bpf_map__fd(skel->maps.dc_rd_pcnt), "\"pass_bytes\""), "");

	rdcn_bpf__destroy(skel);
	return check_failed;
}
