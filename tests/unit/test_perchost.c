// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * s-PERC on the end host (include/dcbpf/perchost.h): the rate the perc
 * congestion control paces at (the allocation, or the start rate before
 * one), its window (never the limit: at least gain x rate x RTT), the
 * achieved rate `dcbpf perc status` shows, and the control loop's
 * packets: a new flow's packet, a returned one read back (the smallest
 * allocation on the path, "Proactive Congestion Control", Ch. 2.1) after
 * the links of include/dcbpf/perc.h updated it, the next and the FIN
 * packet, and the returned packets the loop refuses.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "dcbpf/perchost.h"

static void test_rate(void)
{
	struct dc_perc_hcfg c;

	dc_perc_hcfg_default(&c);
	CHECK_EQ("start rate: line / start share before any allocation", dc_perc_host_rate_kbps(0, &c),
		 DC_PERC_DEF_LINE_KBPS / DC_PERC_DEF_START_SHARE);
	CHECK_EQ("start rate also for an infinite allocation (no link visited)",
		 dc_perc_host_rate_kbps(DC_PERC_INF_KBPS, &c), DC_PERC_DEF_LINE_KBPS / DC_PERC_DEF_START_SHARE);
	CHECK_EQ("the allocation once there is one", dc_perc_host_rate_kbps(123456, &c), 123456);
	c.start_share = 0;
	CHECK_EQ("start share 0 is taken as 1 (no division by zero)", dc_perc_host_rate_kbps(0, &c),
		 c.line_kbps);
	c.line_kbps = 3;
	c.start_share = 8;
	CHECK_EQ("a start rate never rounds down to 0", dc_perc_host_rate_kbps(0, &c), 1);
	CHECK_EQ("pacing: 1 kbit/s = 125 bytes/s", dc_perc_pacing_Bps(8000), 1000000);
}

/* The payload rate whose wire rate is the allocation. */
static void test_wire(void)
{
	struct dc_perc_hcfg c;
	__u64 Bps;

	dc_perc_hcfg_default(&c);
	CHECK_EQ("default overhead: Ethernet + IPv4 + TCP with timestamps", c.wire_ovh_bytes, 66);
	/* 100 Mbit/s of 1500-byte frames (1434 payload + 66): 11.95 MB/s of payload */
	Bps = dc_perc_payload_Bps(100000, 1434, 66);
	CHECK_EQ("100 Mbit/s with 1434-byte segments: 1434/1500 of 12.5 MB/s", Bps, 11950000);
	CHECK("wire rate of that payload rate is the allocation (to a segment's overhead)",
	      Bps + Bps / 1434 * 66 <= 12500000 && Bps + (Bps / 1434 + 1) * 66 >= 12500000,
	      "%llu B/s of payload", (unsigned long long)Bps);
	CHECK_EQ("no overhead: the pacing rate", dc_perc_payload_Bps(95000, 1448, 0), dc_perc_pacing_Bps(95000));
	CHECK_EQ("no segment size yet: the whole rate (never a rate of a few bytes/s)",
		 dc_perc_payload_Bps(95000, 0, 66), dc_perc_pacing_Bps(95000));
	CHECK_EQ("the largest rate and overhead do not overflow",
		 dc_perc_payload_Bps(0xfffffffeU, 65535, DC_PERC_WIRE_OVH_MAX),
		 dc_perc_pacing_Bps(0xfffffffeU) * 65535 / (65535 + DC_PERC_WIRE_OVH_MAX));
	/* sk_pacing_rate 0 means "not paced" to TCP: never 0 for a rate */
	CHECK_EQ("a 1-byte segment with the largest overhead paces at 1 byte/s, not 0",
		 dc_perc_payload_Bps(1, 1, DC_PERC_WIRE_OVH_MAX), 1);
}

static void test_cwnd(void)
{
	static const __u32 rates[] = { 1, 1000, 95000, 475000, 10000000, 0xfffffffeU };
	static const __u32 rtts[] = { 1, 50, 300, 10000, DC_PERC_RTT_MAX_US };
	struct dc_perc_hcfg c;
	unsigned int i, j, bad = 0;
	__u64 need;
	__u32 w;

	dc_perc_hcfg_default(&c);
	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		for (j = 0; j < sizeof(rtts) / sizeof(rtts[0]); j++) {
			w = dc_perc_cwnd_pkts(rates[i], rtts[j], 1448, &c);
			if (w == DC_U32_MAX)
				continue;	/* clamped: checked below */
			need = dc_perc_pacing_Bps(rates[i]) * rtts[j] / 1000000 * c.cwnd_gain;
			/* at least gain x BDP + extra, at most one packet more */
			if ((__u64)w * 1448 < need + (__u64)c.cwnd_extra_pkts * 1448 ||
			    (__u64)w * 1448 > need + (__u64)(c.cwnd_extra_pkts + 1) * 1448 || w < 2)
				bad++;
		}
	CHECK_EQ("window = gain x rate x RTT + extra packets, rounded up", bad, 0);
	/* 100 Mbit/s x 100 us = 1250 bytes, x 4 = 5000 -> 4 packets + 8 */
	CHECK_EQ("window of 100 Mbit/s at 100 us RTT, MSS 1448", dc_perc_cwnd_pkts(100000, 100, 1448, &c), 12);
	CHECK_EQ("no RTT sample yet: min_rtt_us is used", dc_perc_cwnd_pkts(100000, 0, 1448, &c),
		 dc_perc_cwnd_pkts(100000, c.min_rtt_us, 1448, &c));
	CHECK_EQ("an RTT above 10 s counts as 10 s", dc_perc_cwnd_pkts(1000, 4000000000U, 1000, &c),
		 dc_perc_cwnd_pkts(1000, DC_PERC_RTT_MAX_US, 1000, &c));
	CHECK_EQ("the largest rate and RTT: no overflow, the window clamped to 32 bits",
		 dc_perc_cwnd_pkts(0xfffffffeU, DC_PERC_RTT_MAX_US, 1, &c), DC_U32_MAX);
	CHECK_EQ("MSS 0 does not divide by zero", dc_perc_cwnd_pkts(8, 1000000, 0, &c) >= 2, 1);
}

static void test_achieved(void)
{
	__u64 avg = 0;
	int i;

	CHECK_EQ("achieved: 125000 bytes in 10 ms = 100 Mbit/s", dc_perc_window_kbps(125000, 10000000),
		 100000);
	CHECK_EQ("an empty window has no rate", dc_perc_window_kbps(125000, 0), 0);
	CHECK_EQ("an impossible byte count gives no rate (no overflow)",
		 dc_perc_window_kbps(DC_U64_MAX / 1000, 10000000), 0);
	avg = dc_perc_ewma_kbps(avg, 80000);
	CHECK_EQ("the first sample is taken as it is", avg, 80000);
	CHECK_EQ("an invalid sample leaves the average", dc_perc_ewma_kbps(avg, 0), 80000);
	for (i = 0; i < 60; i++)
		avg = dc_perc_ewma_kbps(avg, 40000);
	CHECK_RANGE("the average follows a new rate (1/8 per sample)", avg, 39900, 40100);
}

/* What the links do to a forward packet (bpf/perc.bpf.c without the
 * packet I/O): update each hop in turn with the core, then send it back
 * with REV and the index returned to 0. */
static void cross_path(__u8 *pkt, struct dc_perc_state *links, __u32 nhops)
{
	struct dc_perc_hop hops[DC_PERC_MAX_HOPS];
	__u32 i;

	for (i = 0; i < nhops; i++)
		dc_perc_hop_decode(pkt + DC_PERC_HDR_LEN + i * DC_PERC_HOP_LEN, &hops[i]);
	for (i = 0; i < nhops; i++) {
		hops[i].link_id = (__u16)(i + 1);
		dc_perc_update(&links[i], &hops[i],
			       dc_perc_limit_kbps(hops, nhops, i, DC_PERC_INF_KBPS),
			       pkt[1] & DC_PERC_PF_FIN);
		dc_perc_hop_encode(pkt + DC_PERC_HDR_LEN + i * DC_PERC_HOP_LEN, &hops[i]);
	}
	pkt[1] |= DC_PERC_PF_REV;
	pkt[3] = 0;
}

static void test_packets(void)
{
	__u8 pkt[DC_PERC_HDR_LEN + DC_PERC_MAX_HOPS * DC_PERC_HOP_LEN], bad[sizeof(pkt)];
	struct dc_perc_state links[3];
	struct dc_perc_hop h;
	__u32 id = 0, rate = 0, i, fresh_ok = 1;
	int k;

	CHECK_EQ("packet length: 16 + 12 per hop", dc_perc_pkt_len(3), 52);
	memset(pkt, 0xaa, sizeof(pkt));
	dc_perc_pkt_fresh(pkt, 3, 0x01020304);
	for (i = 0; i < 3; i++) {
		dc_perc_hop_decode(pkt + DC_PERC_HDR_LEN + i * DC_PERC_HOP_LEN, &h);
		if (h.a_kbps || h.b_kbps || h.bneck || !h.ignore || h.round || h.link_id)
			fresh_ok = 0;
	}
	CHECK("a new flow's packet: version 1, 3 hops, index 0, its flow id, no flags",
	      pkt[0] == DC_PERC_VERSION && pkt[1] == 0 && pkt[2] == 3 && pkt[3] == 0 &&
		      dc_perc_get_be32(pkt + 4) == 0x01020304, "%u %u %u %u", pkt[0], pkt[1], pkt[2], pkt[3]);
	CHECK_EQ("... every hop E, a = 0, b = 0, ignore, roundNumber 0 (Table 4.1)", fresh_ok, 1);
	CHECK_EQ("a forward packet is not a returned one", dc_perc_pkt_returned(pkt, 52, &id, &rate),
		 DC_PERC_RX_BAD);

	/* T2's links, one flow C over L2 (30) and L3 (10) plus a 70 link */
	dc_perc_state_init(&links[0], 70000, DC_PERC_M_STAR);
	dc_perc_state_init(&links[1], 30000, DC_PERC_M_STAR);
	dc_perc_state_init(&links[2], 10000, DC_PERC_M_STAR);
	for (k = 0; k < 3; k++) {
		cross_path(pkt, links, 3);
		CHECK_EQ("returned packet: read back", dc_perc_pkt_returned(pkt, 52, &id, &rate), DC_PERC_RX_OK);
		dc_perc_pkt_again(pkt, false);
	}
	CHECK_EQ("the rate is the smallest allocation on the path (L3's 10000)", rate, 10000);
	CHECK_EQ("the flow id comes back", id, 0x01020304);
	CHECK("the next packet: REV cleared, index 0, no FIN", !(pkt[1] & (DC_PERC_PF_REV | DC_PERC_PF_FIN)) &&
	      pkt[3] == 0, "flags %#x hop %u", pkt[1], pkt[3]);
	CHECK("L3 holds the flow (NumB 1) before its FIN", links[2].num_b == 1, "%d", links[2].num_b);
	dc_perc_pkt_again(pkt, true);
	CHECK("the FIN packet carries the latest hops with FIN set", (pkt[1] & DC_PERC_PF_FIN) &&
	      !(pkt[1] & DC_PERC_PF_REV), "flags %#x", pkt[1]);
	cross_path(pkt, links, 3);
	CHECK("the FIN took the flow out of every link (NumB, SumE 0)",
	      links[0].num_b == 0 && links[1].num_b == 0 && links[2].num_b == 0 && links[0].sum_e_kbps == 0 &&
		      links[1].sum_e_kbps == 0 && links[2].sum_e_kbps == 0,
	      "NumB %d %d %d SumE %lld %lld %lld", links[0].num_b, links[1].num_b, links[2].num_b,
	      (long long)links[0].sum_e_kbps, (long long)links[1].sum_e_kbps, (long long)links[2].sum_e_kbps);
	CHECK_EQ("a returned FIN is recognised (nothing to apply)", dc_perc_pkt_returned(pkt, 52, &id, &rate),
		 DC_PERC_RX_FIN);

	/* what the loop refuses */
	dc_perc_pkt_fresh(pkt, 3, 9);
	pkt[1] = DC_PERC_PF_REV;
	CHECK_EQ("refused: shorter than the header", dc_perc_pkt_returned(pkt, 15, &id, &rate), DC_PERC_RX_SHORT);
	CHECK_EQ("refused: shorter than its hops", dc_perc_pkt_returned(pkt, 51, &id, &rate), DC_PERC_RX_SHORT);
	memcpy(bad, pkt, sizeof(pkt));
	bad[3] = 1;
	CHECK_EQ("refused: not home yet (index 1)", dc_perc_pkt_returned(bad, 52, &id, &rate), DC_PERC_RX_BAD);
	memcpy(bad, pkt, sizeof(pkt));
	bad[2] = 9;
	CHECK_EQ("refused: more than 8 hops", dc_perc_pkt_returned(bad, sizeof(bad), &id, &rate), DC_PERC_RX_BAD);
	memcpy(bad, pkt, sizeof(pkt));
	bad[0] = 2;
	CHECK_EQ("refused: another version", dc_perc_pkt_returned(bad, 52, &id, &rate), DC_PERC_RX_BAD);
	rate = 7;
	CHECK("a refused packet sets no rate", dc_perc_pkt_returned(bad, 52, &id, &rate) != DC_PERC_RX_OK &&
	      rate == 7, "%u", rate);
}

int main(void)
{
	test_rate();
	test_wire();
	test_cwnd();
	test_achieved();
	test_packets();
	return check_failed;
}
