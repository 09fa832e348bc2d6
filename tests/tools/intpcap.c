// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * intpcap PCAP: write a capture of IPv4 packets carrying the INT option in
 * every form docs/int.md describes (data and echo stacks, overflow, tag-only,
 * saturated and wrapped hop fields, malformed options), and print on stdout
 * what a dissector must show for each, one field per line in wire order:
 *
 *   FRAME FIELD VALUE POS SIZE
 *
 * POS is the byte offset in the frame.  Hop words are built with the codec
 * the BPF programs use (dc_int_hop_encode); the expected values are computed
 * here from the inputs by the rules of docs/int.md, and one hop word is
 * written out by hand, so neither side is checked against itself.
 * tests/loader/dissector.sh feeds the capture to tshark and to the Lua
 * dissector under a stub.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dcbpf/int.h"

#define ETH_LEN 14
#define OPT_POS (ETH_LEN + 20)

static FILE *pcap;
static unsigned int frame;

static void put32(FILE *f, uint32_t v) { fwrite(&v, 4, 1, f); }
static void put16(FILE *f, uint16_t v) { fwrite(&v, 2, 1, f); }

static uint16_t ip_csum(const uint8_t *h, unsigned int len)
{
	uint32_t s = 0;
	unsigned int i;

	for (i = 0; i < len; i += 2)
		s += (uint32_t)h[i] << 8 | h[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* One frame: Ethernet, IPv4 with the option (padded with End of Options),
 * protocol 253 (experimental) and 8 bytes of payload. */
static void packet(const uint8_t *opt, unsigned int optlen)
{
	uint8_t p[ETH_LEN + 60 + 8] = { 0 };
	unsigned int ihl = 20 + ((optlen + 3) & ~3u), len = ETH_LEN + ihl + 8;

	memcpy(p, "\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00", ETH_LEN);
	p[14] = 0x40 | (uint8_t)(ihl / 4);
	p[16] = (uint8_t)((ihl + 8) >> 8);
	p[17] = (uint8_t)(ihl + 8);
	p[22] = 64;
	p[23] = 253;
	memcpy(p + 26, "\x0a\x09\x00\x01\x0a\x09\x00\x02", 8);
	memcpy(p + OPT_POS, opt, optlen);
	uint16_t c = ip_csum(p + ETH_LEN, ihl);
	p[24] = (uint8_t)(c >> 8);
	p[25] = (uint8_t)c;
	put32(pcap, 1700000000 + frame);
	put32(pcap, 0);
	put32(pcap, len);
	put32(pcap, len);
	fwrite(p, len, 1, pcap);
	frame++;
}

static void expect(const char *field, unsigned long long v, unsigned int pos, unsigned int size)
{
	printf("%u dcbpf_int.%s %llu %u %u\n", frame + 1, field, v, pos, size);
}

static void expect_bad(unsigned int pos)
{
	printf("%u dcbpf_int.malformed - %u 1\n", frame + 1, pos);
}

static void put_word(uint8_t *w, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		w[i] = (uint8_t)v;
}

struct hop {
	uint32_t rate_mbps, want_rate;
	uint64_t qlen, ts, tx;
};

/* The base header and hops of a full option; the expectations follow the
 * docs: qlen in 32-byte units saturating at 2^18 - 1, ts in 256 ns units
 * modulo 2^20, tx in 64-byte units modulo 2^22. */
static void full(unsigned int slots, uint8_t flags, unsigned int hops, unsigned int path,
		 const struct hop *h, unsigned int nh)
{
	uint8_t opt[DC_INT_MAX_OPT_LEN] = { 0 };
	unsigned int len = 4 + 8 * slots, i, base;

	opt[0] = DC_INT_OPT_TYPE;
	opt[1] = (uint8_t)len;
	opt[2] = (uint8_t)(DC_INT_VERSION << 5 | flags);
	opt[3] = (uint8_t)(hops << 4 | path);
	for (i = 0; i < nh; i++) {
		struct dc_int_hop_in in = { h[i].rate_mbps, h[i].qlen, h[i].ts, h[i].tx };

		put_word(opt + 4 + 8 * i, dc_int_hop_encode(&in));
	}
	expect("length", len, OPT_POS + 1, 1);
	expect("slots", slots, OPT_POS + 1, 1);
	expect("version", DC_INT_VERSION, OPT_POS + 2, 1);
	expect("echo", !!(flags & DC_INT_FLAG_ECHO), OPT_POS + 2, 1);
	expect("overflow", !!(flags & DC_INT_FLAG_OVERFLOW), OPT_POS + 2, 1);
	expect("sampled", !!(flags & DC_INT_FLAG_SAMPLED), OPT_POS + 2, 1);
	expect("hops", hops, OPT_POS + 3, 1);
	expect("path", path, OPT_POS + 3, 1);
	if (hops > slots)
		expect_bad(OPT_POS + 3);
	for (i = 0; i < nh && i < hops && i < slots; i++) {
		uint64_t q = h[i].qlen / 32;

		base = OPT_POS + 4 + 8 * i;
		expect("hop", i, base, 8);
		expect("hop.rate_mbps", h[i].want_rate, base, 1);
		expect("hop.qlen_bytes", (q > 262143 ? 262143 : q) * 32, base, 3);
		expect("hop.ts_ns", (h[i].ts / 256 % (1u << 20)) * 256, base + 2, 4);
		expect("hop.tx_bytes", (h[i].tx / 64 % (1u << 22)) * 64, base + 5, 3);
	}
	packet(opt, len);
}

int main(int argc, char **argv)
{
	/* rate code 4 (1 Gbit/s), qlen, ts and tx one unit each, by hand */
	static const uint8_t by_hand[12] = { 0x1e, 12, 0x20, 0x10, 0x40, 0x00, 0x04, 0x00,
					     0x00, 0x40, 0x00, 0x01 };
	const struct hop data[1] = { { 1000, 1000, 395040, 123456789, 987654321 } };
	const struct hop echo[2] = {
		/* everything at its largest: 9 MiB saturates, ts and tx wrap */
		{ 800000, 800000, 9u << 20, (1ull << 28) + 5 * 256 + 255, (1ull << 28) + 64 * 3 },
		{ 2500, 2500, 31, DC_INT_TS_WRAP_NS - 256, DC_INT_TX_WRAP_BYTES - 64 },
	};
	const struct hop slow[1] = { { 50, 0, 64, 512, 128 } };	/* below the table: rate 0 */
	uint8_t opt[16];

	if (argc != 2) {
		fprintf(stderr, "usage: intpcap OUT.pcap  (expected fields on stdout)\n");
		return 2;
	}
	pcap = fopen(argv[1], "wb");
	if (!pcap) {
		perror(argv[1]);
		return 1;
	}
	put32(pcap, 0xa1b2c3d4);
	put16(pcap, 2);
	put16(pcap, 4);
	put32(pcap, 0);
	put32(pcap, 0);
	put32(pcap, 65535);
	put32(pcap, 1);		/* Ethernet */

	/* 1: a data packet of a sampled flow between switches, 1 of 4 slots
	 * filled, path 3 */
	full(4, DC_INT_FLAG_SAMPLED, 1, 3, data, 1);
	/* 2: an echo with overflow, both slots filled */
	full(2, DC_INT_FLAG_ECHO | DC_INT_FLAG_OVERFLOW, 2, 0, echo, 2);
	/* 3: a port rate outside the table */
	full(1, 0, 1, 15, slow, 1);
	/* 4: the hand-written word */
	expect("length", 12, OPT_POS + 1, 1);
	expect("slots", 1, OPT_POS + 1, 1);
	expect("version", 1, OPT_POS + 2, 1);
	expect("echo", 0, OPT_POS + 2, 1);
	expect("overflow", 0, OPT_POS + 2, 1);
	expect("sampled", 0, OPT_POS + 2, 1);
	expect("hops", 1, OPT_POS + 3, 1);
	expect("path", 0, OPT_POS + 3, 1);
	expect("hop", 0, OPT_POS + 4, 8);
	expect("hop.rate_mbps", 1000, OPT_POS + 4, 1);
	expect("hop.qlen_bytes", 32, OPT_POS + 4, 3);
	expect("hop.ts_ns", 256, OPT_POS + 6, 4);
	expect("hop.tx_bytes", 64, OPT_POS + 9, 3);
	packet(by_hand, sizeof(by_hand));
	/* 5: Ethereal's tag-only form, path 5 */
	memcpy(opt, "\x1e\x04\x20\x05", 4);
	expect("length", 4, OPT_POS + 1, 1);
	expect("version", 1, OPT_POS + 2, 1);
	expect("path", 5, OPT_POS + 3, 1);
	packet(opt, 4);
	/* 6: a hop pointer beyond the slots: named, the one slot decoded */
	full(1, 0, 3, 1, data, 1);
	/* 7: a length that is neither 4 nor 4 + 8k */
	memset(opt, 0, sizeof(opt));
	memcpy(opt, "\x1e\x0d\x20\x10", 4);
	expect("length", 13, OPT_POS + 1, 1);
	expect_bad(OPT_POS + 1);
	packet(opt, 13);
	if (fclose(pcap)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
