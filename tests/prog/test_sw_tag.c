// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The switch's XDP admission program at an Ethereal leaf: a packet that
 * carries a path tag (P of our IP option, the 4-byte tag-only form here)
 * joins the queue of the uplink the leaf steers that tag to
 * (sw.NAME.tag_port.T), so it is counted, admitted and ECN-marked against
 * that port, not the one the FIB picks.  Untagged packets, tags without a
 * port, and packets the FIB does not send up an uplink keep the FIB's
 * port.  Fixture: tests/lib/swfixture.h (FIB: 10.9.1.2 → a1 = port 1);
 * here port 0 stands for a second uplink.  Needs root.
 */
#define _GNU_SOURCE
#include "skelfix.h"
#include "check.h"
#include "swfixture.h"
#include "dcbpf/int.h"

static struct swfix f;

#define Q16(x) ((__u32)((x) * 65536.0 + 0.5))
#define LEN 200
#define K 15000

static unsigned char out[9000];

/* IPv4/TCP frame to 10.9.1.2; tag 0: no option, else the tag-only option
 * (ihl 6) with P = tag.  ECT(0) when ect. */
static size_t frame(unsigned char *b, __u32 tag, bool ect)
{
	unsigned char *ip = b + sizeof(struct ethhdr);
	__u32 sum = 0, i;
	__u16 w;

	swfix_pkt(b, LEN, "10.9.1.2", ect ? 0x02 : 0);
	if (!tag)
		return LEN;
	memmove(ip + 24, ip + 20, LEN - sizeof(struct ethhdr) - 24);
	ip[0] = 0x46;
	ip[20] = DC_INT_OPT_TYPE;
	ip[21] = DC_INT_BASE_LEN;
	ip[22] = dc_int_b2(0);
	ip[23] = dc_int_b3(0, tag);
	ip[10] = ip[11] = 0;
	for (i = 0; i < 24; i += 2)
		sum += (__u32)(ip[i] << 8 | ip[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	w = (__u16)~sum;
	ip[10] = (__u8)(w >> 8);
	ip[11] = (__u8)w;
	return LEN;
}

/* Queue of port p as the tracker would leave it (fresh). */
static void queue(__u32 p, __u64 q)
{
	struct dc_sw_port rec;
	struct timespec ts;

	bpf_map_lookup_elem(f.port, &p, &rec);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	rec.last_ns = (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
	rec.qlen_bytes = q;
	bpf_map_update_elem(f.port, &p, &rec, BPF_ANY);
}

/* The route cache holds an answer for DC_SW_ROUTE_TTL_NS; a test that
 * changes tag_port starts from an empty one. */
static void flush_routes(void)
{
	int fd = bpf_map__fd(f.skel->maps.dc_sw_route);
	struct dc_sw_route_key k;

	while (!bpf_map_get_next_key(fd, NULL, &k))
		bpf_map_delete_elem(fd, &k);
}

/* Port whose priority-0 admit counter one packet moved: 0, 1, or -1. */
static int port_of(__u32 tag, bool ect, int *verdict)
{
	unsigned char pkt[LEN];
	__u64 a0 = swfix_counters(&f, 0).admit_pkts, a1 = swfix_counters(&f, 1 * DC_SW_PRIOS).admit_pkts;
	__u64 b0, b1;

	frame(pkt, tag, ect);
	*verdict = swfix_run(&f, pkt, LEN, out, 1, NULL);
	b0 = swfix_counters(&f, 0).admit_pkts;
	b1 = swfix_counters(&f, 1 * DC_SW_PRIOS).admit_pkts;
	if (b0 == a0 + 1 && b1 == a1)
		return 0;
	if (b1 == a1 + 1 && b0 == a0)
		return 1;
	return -1;
}

static bool ce(void)
{
	return (out[sizeof(struct ethhdr) + 1] & 3) == 3;
}

int main(void)
{
	unsigned char in[LEN];
	int v, p;

	DC_TEST_NEED_ROOT("switch tag fixtures");
	(void)swfix_queue;	/* port 0 too: queue() here */
	if (swfix_setup(&f)) {
		printf("FAIL: switch tag fixture: namespace, veths and switch object set up\n");
		return 1;
	}
	swfix_dt(&f, 1000000, Q16(1));
	f.c.ecn_k_bytes = K;
	/* the leaf's two uplinks: tag 1 → port 1 (the FIB's), tag 2 → port 0 */
	f.c.tag_port[1] = 1 + 1;
	f.c.tag_port[2] = 0 + 1;
	swfix_cfg(&f);
	queue(0, 0);
	queue(1, 0);

	p = port_of(0, false, &v);
	CHECK("tag: an untagged packet joins the FIB's port", p == 1 && v == XDP_PASS, "port %d, verdict %d", p, v);
	p = port_of(1, false, &v);
	CHECK("tag: tag 1 joins its uplink, port 1", p == 1 && v == XDP_PASS, "port %d, verdict %d", p, v);
	p = port_of(2, false, &v);
	CHECK("tag: tag 2 joins its uplink, port 0, not the FIB's", p == 0 && v == XDP_PASS, "port %d, verdict %d", p, v);
	frame(in, 2, false);
	CHECK("tag: the tagged packet leaves unchanged", !memcmp(in, out, LEN), "%s", "changed");
	p = port_of(3, false, &v);
	CHECK("tag: a tag without a port (3) keeps the FIB's", p == 1, "port %d", p);

	/* ECN against the steered queue: port 0 above K, port 1 empty */
	queue(0, K + 5000);
	queue(1, 0);
	p = port_of(2, true, &v);
	CHECK("tag: ECN uses the steered port's queue (tag 2: port 0 above K → CE)", p == 0 && ce(),
	      "port %d, tos %#x", p, out[sizeof(struct ethhdr) + 1]);
	p = port_of(1, true, &v);
	CHECK("tag: … and tag 1 on the empty port 1 is not marked", p == 1 && !ce(),
	      "port %d, tos %#x", p, out[sizeof(struct ethhdr) + 1]);
	p = port_of(0, true, &v);
	CHECK("tag: … nor the untagged packet the FIB sends to port 1", p == 1 && !ce(),
	      "port %d, tos %#x", p, out[sizeof(struct ethhdr) + 1]);
	queue(0, 0);

	/* The FIB's port is no uplink of any tag: traffic towards the leaf's
	 * own hosts keeps its port whatever tag it carries. */
	f.c.tag_port[1] = 0;
	swfix_cfg(&f);
	flush_routes();
	p = port_of(2, false, &v);
	CHECK("tag: a tagged packet the FIB sends down (not an uplink) keeps the FIB's port", p == 1,
	      "port %d", p);
	switch_bpf__destroy(f.skel);
	return check_failed;
}
