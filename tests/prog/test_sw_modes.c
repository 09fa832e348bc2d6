// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The switch's classification modes (dc_sw_cfg.prio_mode; docs/admission.md,
 * "Classification modes") on packets, two queues per port:
 *  - slytherin at TC egress (dc_sw_prio): the leaf per packet kind and ECN
 *    as received (Algorithm 1 with the ACK rule), IPv4 and IPv6; the mark
 *    at K = sly_k · B on the port's backlog with the packet: ECT(0)/ECT(1)
 *    become CE with a valid IPv4 checksum, Not-ECT and CE leave as they
 *    came, one byte below K nothing is marked; ecn_marked_pkts counted;
 *  - slytherin at XDP admission: the same classification picks the queue
 *    record that decides (a CE or control packet meets the empty top
 *    queue, data its full low one, whatever its DSCP), IPv4 and IPv6
 *    (forwarded by the FIB to the same port), and XDP does not mark (the
 *    mark belongs after the classification);
 *  - resqueue: the top queue is admitted against its own reserved_bytes
 *    while DT on the shared buffer would drop it, and dropped (counted as
 *    buffer_full) once the packet would overfill the reserved buffer; the
 *    low queue still follows DT.
 * Fixture: tests/lib/swfixture.h (10.9.1.2 → a1 = port 1; 2001:db8:9:1::2 too
 * once slytherin_xdp gives the ports IPv6 subnets).  Needs root.
 */
#define _GNU_SOURCE
#include "skelfix.h"
#include "check.h"
#include "swfixture.h"
#include "dcbpf/slytherin.h"

static struct swfix f;
static int qfd;

#define Q16(x) ((__u32)((x) * 65536.0 + 0.5))
#define B 1000000ULL
#define SLY_K (B / 4)
#define MAXP 1600

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

static __u64 st_q0, st_q1;

/* Port 1: queues 0 and 1 hold q0 and q1 bytes, the port and Q their sum,
 * written fresh (last_ns = now) again right before every run: a record
 * older than 5 ms is drained by the staleness guard, and a run under
 * emulation can come that late after the previous one. */
static void state_now(void);
static void state(__u64 q0, __u64 q1)
{
	st_q0 = q0;
	st_q1 = q1;
	state_now();
}

static void state_now(void)
{
	__u64 q0 = st_q0, q1 = st_q1;
	struct dc_sw_queue r;
	__u32 key;

	swfix_queue(&f, q0 + q1, q0 + q1, 1, (__u32)DC_Q16_ONE);
	memset(&r, 0, sizeof(r));
	r.last_ns = mono_ns();
	r.gamma_q16 = (__u32)DC_Q16_ONE;
	r.qlen_bytes = q0;
	key = dc_qrec_key(1, 0);
	bpf_map_update_elem(qfd, &key, &r, BPF_ANY);
	r.qlen_bytes = q1;
	key = dc_qrec_key(1, 1);
	bpf_map_update_elem(qfd, &key, &r, BPF_ANY);
}

static __u16 csum(const void *p, size_t n)
{
	const unsigned char *b = p;
	__u32 s = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (__u32)(b[i] << 8 | b[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (__u16)s;
}

/* A frame to 10.9.1.2 (IPv4) or 2001:db8:9:1::2 (IPv6): TCP with `flags`
 * and `payload` bytes, or UDP (flags < 0).  Returns its length. */
static size_t pkt(unsigned char *buf, bool v6, __u8 tos, int flags, __u32 payload)
{
	struct ethhdr eth = { .h_proto = htons(v6 ? ETH_P_IPV6 : ETH_P_IP) };
	size_t l4 = flags < 0 ? 8 : 20, ipl = v6 ? 40 : 20;
	size_t len = sizeof(eth) + ipl + l4 + payload;
	unsigned char *ip = buf + sizeof(eth), *t = ip + ipl;

	memset(buf, 0, MAXP);
	memcpy(buf, &eth, sizeof(eth));
	if (v6) {
		ip[0] = (__u8)(0x60 | tos >> 4);
		ip[1] = (__u8)(tos << 4);
		ip[4] = (__u8)((l4 + payload) >> 8);
		ip[5] = (__u8)(l4 + payload);
		ip[6] = flags < 0 ? 17 : 6;
		ip[7] = 64;
		inet_pton(AF_INET6, "2001:db8:9::2", ip + 8);
		inet_pton(AF_INET6, "2001:db8:9:1::2", ip + 24);
	} else {
		__u16 c;

		ip[0] = 0x45;
		ip[1] = tos;
		ip[2] = (__u8)((len - sizeof(eth)) >> 8);
		ip[3] = (__u8)(len - sizeof(eth));
		ip[8] = 64;
		ip[9] = flags < 0 ? 17 : 6;
		inet_pton(AF_INET, "10.9.0.2", ip + 12);
		inet_pton(AF_INET, "10.9.1.2", ip + 16);
		c = (__u16)~csum(ip, 20);
		ip[10] = (__u8)(c >> 8);
		ip[11] = (__u8)c;
	}
	t[0] = 0x9c;
	t[1] = 0x40;
	t[2] = 0x14;
	t[3] = 0x51;
	if (flags >= 0) {
		t[12] = 5 << 4;
		t[13] = (__u8)flags;
	}
	return len;
}

static unsigned char out[MAXP];

/* dc_sw_prio on a frame leaving port 1: the leaf's minor (1 = queue 0,
 * 2 = queue 1), or 0 if the run failed; the frame it leaves in out. */
static __u32 tc_leaf(bool v6, __u8 tos, int flags, __u32 payload)
{
	unsigned char in[MAXP];
	size_t len = pkt(in, v6, tos, flags, payload);
	struct __sk_buff ctx = { .ifindex = f.if_out }, o2 = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in, .data_size_in = (__u32)len,
		    .data_out = out, .data_size_out = sizeof(out), .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .ctx_out = &o2, .ctx_size_out = sizeof(o2));

	memset(out, 0, sizeof(out));
	state_now();
	if (bpf_prog_test_run_opts(bpf_program__fd(f.skel->progs.dc_sw_prio), &o))
		return 0;
	return (o2.priority >> 16) == 1 ? o2.priority & 0xffff : 0;
}

/* ECN bits of the frame dc_sw_prio left */
static __u8 out_ecn(bool v6)
{
	return v6 ? (out[15] >> 4) & 3 : out[15] & 3;
}

static int xdp_verdict_ip(bool v6, __u8 tos, int flags, __u32 payload)
{
	unsigned char in[MAXP];
	size_t len = pkt(in, v6, tos, flags, payload);

	state_now();
	return swfix_run(&f, in, len, out, 1, NULL);
}

static int xdp_verdict(__u8 tos, int flags, __u32 payload)
{
	return xdp_verdict_ip(false, tos, flags, payload);
}

static __u64 marked(__u32 prio)
{
	return swfix_counters(&f, 1 * DC_SW_PRIOS + prio).ecn_marked_pkts;
}

#define ACK DC_TCPF_ACK
#define DATA 1000

static void slytherin_tc(void)
{
	static const char *const ecn_name[4] = { "Not-ECT", "ECT(1)", "ECT(0)", "CE" };
	char n[160];
	__u8 e;
	int v6;
	size_t len;
	unsigned char tmp[MAXP];
	__u64 m0;

	state(0, 0);
	for (v6 = 0; v6 < 2; v6++)
		for (e = 0; e < 4; e++) {
			const char *ip = v6 ? "IPv6" : "IPv4";

			snprintf(n, sizeof(n), "slytherin tc %s: data (ACK + 1000 B) %s → leaf %u", ip,
				 ecn_name[e], e == 3 ? 2 : 1);
			CHECK_EQ(n, tc_leaf(v6, (__u8)(0x28 | e), ACK, DATA), e == 3 ? 2u : 1u);
			snprintf(n, sizeof(n), "slytherin tc %s: ... leaves with its ECN %s (empty port)",
				 ip, ecn_name[e]);
			CHECK_EQ(n, out_ecn(v6), e);
			snprintf(n, sizeof(n), "slytherin tc %s: pure ACK %s → leaf 2", ip, ecn_name[e]);
			CHECK_EQ(n, tc_leaf(v6, (__u8)(0x28 | e), ACK, 0), 2u);
			snprintf(n, sizeof(n), "slytherin tc %s: SYN %s → leaf 2", ip, ecn_name[e]);
			CHECK_EQ(n, tc_leaf(v6, e, DC_TCPF_SYN, 0), 2u);
			snprintf(n, sizeof(n), "slytherin tc %s: FIN+ACK %s → leaf 2", ip, ecn_name[e]);
			CHECK_EQ(n, tc_leaf(v6, e, DC_TCPF_FIN | ACK, 0), 2u);
			snprintf(n, sizeof(n), "slytherin tc %s: bare RST %s → leaf %u", ip, ecn_name[e],
				 e == 3 ? 2 : 1);
			CHECK_EQ(n, tc_leaf(v6, e, 0x04, 0), e == 3 ? 2u : 1u);
			snprintf(n, sizeof(n), "slytherin tc %s: UDP %s → leaf %u", ip, ecn_name[e],
				 e == 3 ? 2 : 1);
			CHECK_EQ(n, tc_leaf(v6, e, -1, 100), e == 3 ? 2u : 1u);
		}
	CHECK_EQ("slytherin tc: a DSCP of CS7 does not lift a Not-ECT data segment", tc_leaf(false, 0xe0, ACK, DATA), 1u);

	/* the mark: port 1's backlog with the packet reaches K = B/4 */
	len = pkt(tmp, false, 0x02, ACK, DATA);
	state(SLY_K - len, 0);
	m0 = marked(0);
	CHECK_EQ("slytherin mark: ECT(0) data at backlog + len = K stays in leaf 1 (classified as received)",
		 tc_leaf(false, 0x02, ACK, DATA), 1u);
	CHECK_EQ("slytherin mark: ... and leaves as CE", out_ecn(false), 3);
	CHECK_EQ("slytherin mark: ... its IPv4 header checksum valid", csum(out + 14, 20), 0xffff);
	CHECK_EQ("slytherin mark: ... only the ECN bits changed (DSCP kept)", out[15] & 0xfc, 0x00);
	CHECK_EQ("slytherin mark: ... counted in ecn_marked_pkts of (port 1, priority 0)",
		 marked(0) - m0, 1);
	CHECK_EQ("slytherin mark: ECT(1) data at K leaves as CE", (tc_leaf(false, 0x01, ACK, DATA), out_ecn(false)), 3);
	CHECK_EQ("slytherin mark: ... checksum valid", csum(out + 14, 20), 0xffff);
	memcpy(tmp, out, sizeof(tmp));
	CHECK_EQ("slytherin mark: Not-ECT data at K left as it is", (tc_leaf(false, 0x00, ACK, DATA), out_ecn(false)), 0);
	pkt(tmp, false, 0x00, ACK, DATA);
	CHECK_EQ("slytherin mark: ... the frame unchanged byte for byte", memcmp(tmp, out, len), 0);
	state(SLY_K - 54, 0);	/* the pure ACK's 54 bytes reach K */
	CHECK_EQ("slytherin mark: a pure ACK with ECT(0) at K: leaf 2 and CE",
		 tc_leaf(false, 0x02, ACK, 0) * 10 + out_ecn(false), 23u);
	state(SLY_K - len, 0);
	CHECK_EQ("slytherin mark: IPv6 ECT(0) at K: traffic class CE",
		 (tc_leaf(true, 0x02, ACK, DATA), out_ecn(true)), 3);
	CHECK_EQ("slytherin mark: marks counted: ECT(0), ECT(1), IPv6 in priority 0", marked(0) - m0, 3);
	CHECK_EQ("slytherin mark: ... the ACK in priority 7", marked(DC_SW_SLY_PRIO_HIGH) >= 1, 1);
	state(SLY_K - len - 1, 0);
	CHECK_EQ("slytherin mark: one byte below K: ECT(0) left alone",
		 (tc_leaf(false, 0x02, ACK, DATA), out_ecn(false)), 2);
	/* K follows sly_k: 12.5 % */
	f.c.sly_k_q16 = Q16(0.125);
	swfix_cfg(&f);
	state(B / 8 - len, 0);
	CHECK_EQ("slytherin mark: sly_k = 0.125: marked at B/8", (tc_leaf(false, 0x02, ACK, DATA), out_ecn(false)), 3);
	f.c.sly_k_q16 = Q16(0.25);
	swfix_cfg(&f);
	CHECK_EQ("slytherin mark: back at 0.25 the same backlog is below K",
		 (tc_leaf(false, 0x02, ACK, DATA), out_ecn(false)), 2);
}

static void slytherin_xdp(void)
{
	/* DT, T = 0.5 · (1 MB − 400 kB) = 300 kB: queue 0 full, queue 1 empty */
	state(400000, 0);
	CHECK_EQ("slytherin xdp: Not-ECT data meets queue 0 (400 kB ≥ T): dropped",
		 xdp_verdict(0x00, ACK, DATA), XDP_DROP);
	CHECK_EQ("slytherin xdp: CS5 data is no exception (the DSCP does not choose)",
		 xdp_verdict(0xa0, ACK, DATA), XDP_DROP);
	CHECK_EQ("slytherin xdp: CE data goes to queue 1: admitted", xdp_verdict(0x03, ACK, DATA), XDP_PASS);
	CHECK_EQ("slytherin xdp: ... queue 1's record has T = 300 kB", swfix_qthresh(&f, 1), 300000);
	CHECK_EQ("slytherin xdp: a pure ACK (Not-ECT) goes to queue 1: admitted",
		 xdp_verdict(0x00, ACK, 0), XDP_PASS);
	CHECK_EQ("slytherin xdp: ... counted as priority 7",
		 swfix_counters(&f, 1 * DC_SW_PRIOS + DC_SW_SLY_PRIO_HIGH).admit_pkts, 2);
	/* the same choice on IPv6 (traffic class, next header TCP), routed
	 * by the FIB as IPv4 is: the fixture's ports get IPv6 subnets */
	CHECK_EQ("slytherin xdp: IPv6 on the fixture's ports, forwarding on",
		 swfix_sh("ip -6 addr add 2001:db8:9::1/64 dev a0 nodad && "
			  "ip -6 addr add 2001:db8:9:1::1/64 dev a1 nodad && "
			  "sysctl -qw net.ipv6.conf.all.forwarding=1"), 0);
	CHECK_EQ("slytherin xdp: IPv6 Not-ECT data meets queue 0: dropped",
		 xdp_verdict_ip(true, 0x00, ACK, DATA), XDP_DROP);
	CHECK_EQ("slytherin xdp: IPv6 CE data goes to queue 1: admitted",
		 xdp_verdict_ip(true, 0x03, ACK, DATA), XDP_PASS);
	CHECK_EQ("slytherin xdp: IPv6 pure ACK goes to queue 1: admitted",
		 xdp_verdict_ip(true, 0x00, ACK, 0), XDP_PASS);
	CHECK_EQ("slytherin xdp: IPv6 SYN goes to queue 1: admitted",
		 xdp_verdict_ip(true, 0x00, DC_TCPF_SYN, 0), XDP_PASS);
	CHECK_EQ("slytherin xdp: ... the three counted as priority 7",
		 swfix_counters(&f, 1 * DC_SW_PRIOS + DC_SW_SLY_PRIO_HIGH).admit_pkts, 5);
	CHECK_EQ("slytherin xdp: IPv6 UDP with CE: admitted into queue 1",
		 xdp_verdict_ip(true, 0x03, -1, 100), XDP_PASS);
	CHECK_EQ("slytherin xdp: IPv6 UDP Not-ECT meets queue 0: dropped",
		 xdp_verdict_ip(true, 0x00, -1, 100), XDP_DROP);
	/* XDP's own ECN (ecn_k_bytes) is off in this mode */
	f.c.ecn_k_bytes = 1;
	swfix_cfg(&f);
	state(0, 0);
	CHECK_EQ("slytherin xdp: with ecn_k_bytes set, ECT(0) data admitted",
		 xdp_verdict(0x02, ACK, DATA), XDP_PASS);
	CHECK_EQ("slytherin xdp: ... and not marked at XDP", out[15] & 3, 2);
	f.c.prio_mode = DC_SW_PM_DSCP;
	swfix_cfg(&f);
	CHECK_EQ("dscp mode: the same packet is marked at XDP (ecn_k_bytes = 1)",
		 (xdp_verdict(0x02, ACK, DATA), out[15] & 3), 3);
	f.c.ecn_k_bytes = 0;
	swfix_cfg(&f);
}

static void resqueue(void)
{
	f.c.prio_mode = DC_SW_PM_RESQUEUE;
	f.c.resq_reserved_bytes = 20000;
	swfix_cfg(&f);
	/* the shared buffer full: DT's T = 0.5 · (B − Q) = 0 */
	state(B - 10000, 10000);
	CHECK_EQ("resqueue: CS0 in queue 0 follows DT (T = 0): dropped", xdp_verdict(0x00, ACK, DATA),
		 XDP_DROP);
	CHECK_EQ("resqueue: CS7 (level 1, queue 1 at 10 kB) admitted into its 20 kB while DT would drop",
		 xdp_verdict(0xe0, ACK, DATA), XDP_PASS);
	CHECK_EQ("resqueue: ... queue 1's record shows the reserved 20 kB", swfix_qthresh(&f, 1), 20000);
	{
		unsigned char tmp[MAXP];
		size_t len = pkt(tmp, false, 0xe0, ACK, DATA);
		__u64 d0 = swfix_counters(&f, 1 * DC_SW_PRIOS + 7).drop_full_pkts;

		state(B - 10000, 20000 - len);
		CHECK_EQ("resqueue: a packet that fills the reserved buffer exactly is admitted",
			 xdp_verdict(0xe0, ACK, DATA), XDP_PASS);
		state(0, 20000 - len + 1);
		CHECK_EQ("resqueue: one byte more than the reserved buffer: dropped, the shared one empty",
			 xdp_verdict(0xe0, ACK, DATA), XDP_DROP);
		CHECK_EQ("resqueue: ... counted as buffer_full in (port 1, priority 7)",
			 swfix_counters(&f, 1 * DC_SW_PRIOS + 7).drop_full_pkts - d0, 1);
	}
	f.c.resq_reserved_bytes = 40000;
	swfix_cfg(&f);
	CHECK_EQ("resqueue: reserved_bytes = 40 kB: the same queue admits", xdp_verdict(0xe0, ACK, DATA),
		 XDP_PASS);
	f.c.prio_mode = DC_SW_PM_DSCP;
	swfix_cfg(&f);
	state(B - 10000, 10000);
	CHECK_EQ("dscp mode: the CS7 packet of the first case follows DT (T = 0): dropped",
		 xdp_verdict(0xe0, ACK, DATA), XDP_DROP);
}

int main(void)
{
	(void)swfix_pkt;	/* the fixture's TCP frame: this test builds its own */
	DC_TEST_NEED_ROOT("switch classification-mode fixtures");
	if (swfix_setup(&f)) {
		printf("FAIL: switch mode fixture: namespace, veths and switch object set up\n");
		return 1;
	}
	qfd = bpf_map__fd(f.skel->maps.dc_sw_queue);
	swfix_dt(&f, B, Q16(0.5));
	f.c.prio_mode = DC_SW_PM_SLYTHERIN;
	f.c.sly_k_q16 = Q16(0.25);
	swfix_cfg(&f);
	swfix_nqueues(&f, 2);
	slytherin_tc();
	slytherin_xdp();
	resqueue();
	switch_bpf__destroy(f.skel);
	return check_failed;
}
