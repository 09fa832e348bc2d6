// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer harness for the INT codec (include/dcbpf/int.h), the code the
 * TC programs, the host tests and the dissector test share.  Built and
 * run by `make fuzz` (and briefly by tests/loader/fuzz_smoke.sh).
 *
 * Input layout (short inputs are zero-padded):
 *   byte  0       opts_len for dc_int_check (mod 41: 0 … 40)
 *   bytes 1..40   the IPv4 options area (only opts_len of it is passed,
 *                 in a buffer of exactly that size, so ASan catches any
 *                 read past opts_len)
 *   bytes 41..    two hop samples (rate, qlen, ts, tx) and a 60-byte header
 *
 * Properties:
 *   - dc_int_check never reads past opts_len and its verdict is the one
 *     the rules of docs/int.md give (computed here independently);
 *   - dc_int_slots / dc_int_opt_len agree with "4 + 8·N, N = 1 … 4";
 *   - encode → decode returns every field within its unit: rate to the
 *     table entry not above it, qlen to 32 bytes (saturating at the
 *     field), ts to 256 ns and tx to 64 bytes modulo their wraps;
 *   - decoding a second sample against the first gives the exact delta
 *     in units when the true delta is below one wrap;
 *   - base header bytes and big-endian words round-trip;
 *   - a header with the checksum dc_ip_csum computes checks as valid.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcbpf/int.h"

#define FAIL(...)                                                           \
	do {                                                                \
		fprintf(stderr, "fuzz_int_codec: property violated: " __VA_ARGS__); \
		fprintf(stderr, "\n");                                      \
		abort();                                                    \
	} while (0)

struct in {
	const uint8_t *p;
	size_t n, off;
};

static uint64_t take(struct in *in, unsigned int bytes)
{
	uint64_t v = 0;

	while (bytes--)
		v = v << 8 | (in->off < in->n ? in->p[in->off++] : 0);
	return v;
}

static const uint32_t rates[] = { 0, 100, 200, 500, 1000, 2000, 2500, 5000, 10000, 25000,
				  40000, 50000, 100000, 200000, 400000, 800000 };

/* The verdict by the docs' table, written from the table, not the code. */
static enum dc_int_verdict expected_verdict(const uint8_t *o, uint32_t opts_len)
{
	uint32_t len, n;

	if (opts_len < 2 || o[0] != 0x1e)
		return DC_INT_NONE;
	len = o[1];
	if (len == 4 && opts_len >= 4) {	/* the tag-only form */
		if ((o[2] >> 5) != 1)
			return DC_INT_BAD_VERSION;
		if ((o[3] >> 4) || (o[2] & 0x1c))
			return DC_INT_BAD_HOPS;
		return DC_INT_TAG;
	}
	if (len < 12 || len > 36 || (len - 4) % 8 || len > opts_len)
		return DC_INT_BAD_LEN;
	n = (len - 4) / 8;
	if ((o[2] >> 5) != 1)
		return DC_INT_BAD_VERSION;
	if ((o[3] >> 4) > n)
		return DC_INT_BAD_HOPS;
	return DC_INT_OK;
}

static void check_option(struct in *in)
{
	uint32_t opts_len = (uint32_t)(take(in, 1) % 41), i;
	uint8_t area[40];
	uint8_t *opt;
	enum dc_int_verdict v, want;

	for (i = 0; i < sizeof(area); i++)
		area[i] = (uint8_t)take(in, 1);
	/* exactly opts_len bytes on the heap: a read past them is an ASan report */
	opt = malloc(opts_len ? opts_len : 1);
	if (!opt)
		abort();
	memcpy(opt, area, opts_len);
	v = dc_int_check(opts_len ? opt : opt + 1, opts_len);
	want = expected_verdict(area, opts_len);
	if (v != want)
		FAIL("dc_int_check = %d, rules say %d (opts_len %u, %02x %02x %02x %02x)", v, want,
		     opts_len, area[0], area[1], area[2], area[3]);
	free(opt);

	/* slots of every possible length byte */
	for (i = 0; i < 256; i++) {
		uint32_t s = dc_int_slots(i);
		uint32_t want_s = (i >= 12 && i <= 36 && (i - 4) % 8 == 0) ? (i - 4) / 8 : 0;

		if (s != want_s)
			FAIL("dc_int_slots(%u) = %u, want %u", i, s, want_s);
	}
	{
		uint32_t s = (uint32_t)area[0], c = s < 1 ? 1 : s > 4 ? 4 : s;

		if (dc_int_slots(dc_int_opt_len(s)) != c)
			FAIL("dc_int_opt_len(%u) = %u is not the option of %u slots", s,
			     dc_int_opt_len(s), c);
	}
	/* base header bytes */
	{
		uint8_t fl = area[1], b2 = dc_int_b2(fl), b3;
		uint32_t hops = area[2] & 0xf, path = area[3];

		if (dc_int_version(b2) != DC_INT_VERSION || (b2 & ~(0xe0 | DC_INT_FLAG_MASK)) ||
		    (b2 & DC_INT_FLAG_MASK) != (fl & DC_INT_FLAG_MASK))
			FAIL("dc_int_b2(%#x) = %#x", fl, b2);
		b3 = dc_int_b3(hops, path);
		if (dc_int_hops(b3) != hops || dc_int_path(b3) != (path & 0xf))
			FAIL("dc_int_b3(%u, %u) = %#x", hops, path, b3);
	}
}

/* Expected code: the largest table entry not above mbps. */
static uint32_t expected_code(uint32_t mbps)
{
	uint32_t c = 0, i;

	for (i = 1; i < 16; i++)
		if (rates[i] <= mbps)
			c = i;
	return c;
}

static void check_hop(const struct dc_int_hop_in *h, const struct dc_int_hop *d, uint64_t w)
{
	uint64_t q = h->qlen_bytes / 32;
	uint64_t ts_wrap = DC_INT_TS_WRAP_NS, tx_wrap = DC_INT_TX_WRAP_BYTES;
	uint32_t code = expected_code(h->rate_mbps);

	if (dc_int_w_rate(w) != code || d->rate_mbps != rates[code])
		FAIL("rate %u: code %u (want %u), decoded %u", h->rate_mbps, dc_int_w_rate(w), code,
		     d->rate_mbps);
	if (q > DC_INT_QLEN_MAX)
		q = DC_INT_QLEN_MAX;
	if (d->qlen_bytes != q * 32 || d->qlen_bytes > h->qlen_bytes)
		FAIL("qlen %llu decoded as %u", (unsigned long long)h->qlen_bytes, d->qlen_bytes);
	if ((h->ts_ns - d->ts_ns) % ts_wrap >= 256 && (d->ts_ns - h->ts_ns) % ts_wrap != 0)
		FAIL("ts %llu decoded as %llu", (unsigned long long)h->ts_ns,
		     (unsigned long long)d->ts_ns);
	if (!d->ts_ns)
		FAIL("a first sample decoded with ts 0 (means: no sample)");
	if ((h->tx_bytes - d->tx_bytes) % tx_wrap >= 64)
		FAIL("tx %llu decoded as %llu", (unsigned long long)h->tx_bytes,
		     (unsigned long long)d->tx_bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, size, 0 };
	struct dc_int_hop_in h1, h2;
	struct dc_int_hop d1, d2;
	uint64_t w1, w2, dts, dtx;
	uint8_t be[8], hdr[60];
	uint32_t hl, i;

	check_option(&in);

	/* first sample: any values */
	h1.rate_mbps = (uint32_t)take(&in, 4);
	h1.qlen_bytes = take(&in, 8);
	h1.ts_ns = take(&in, 8);
	h1.tx_bytes = take(&in, 8);
	w1 = dc_int_hop_encode(&h1);
	dc_int_store_be64(be, w1);
	if (dc_int_load_be64(be) != w1 || be[0] != (uint8_t)(w1 >> 56) || be[7] != (uint8_t)w1)
		FAIL("big-endian store/load of %#llx", (unsigned long long)w1);
	dc_int_hop_decode(w1, NULL, &d1);
	/* the decoder works on wire-range values: compare modulo the wraps */
	check_hop(&h1, &d1, w1);

	/* second sample: less than one wrap later (the decoder's premise),
	 * less one unit: a delta within a unit of the wrap quantizes to a
	 * whole wrap, which no decoder can tell from 0 */
	dts = take(&in, 4) % (DC_INT_TS_WRAP_NS - DC_INT_TS_UNIT_NS);
	dtx = take(&in, 4) % (DC_INT_TX_WRAP_BYTES - DC_INT_TX_UNIT_BYTES);
	h2 = h1;
	h2.rate_mbps = (uint32_t)take(&in, 4);
	h2.qlen_bytes = take(&in, 4);
	h2.ts_ns = h1.ts_ns + dts;
	h2.tx_bytes = h1.tx_bytes + dtx;
	w2 = dc_int_hop_encode(&h2);
	dc_int_hop_decode(w2, &d1, &d2);
	{
		uint64_t want_ts = ((h2.ts_ns / 256) - (h1.ts_ns / 256)) & ((1ULL << 20) - 1);
		uint64_t want_tx = ((h2.tx_bytes / 64) - (h1.tx_bytes / 64)) & ((1ULL << 22) - 1);

		if (d2.ts_ns - d1.ts_ns != want_ts * 256)
			FAIL("ts delta %llu ns decoded as %llu (want %llu)",
			     (unsigned long long)dts, (unsigned long long)(d2.ts_ns - d1.ts_ns),
			     (unsigned long long)(want_ts * 256));
		if (d2.tx_bytes - d1.tx_bytes != want_tx * 64)
			FAIL("tx delta %llu decoded as %llu (want %llu)", (unsigned long long)dtx,
			     (unsigned long long)(d2.tx_bytes - d1.tx_bytes),
			     (unsigned long long)(want_tx * 64));
		/* and within one unit of the truth */
		if (d2.ts_ns - d1.ts_ns + 256 <= dts || d2.ts_ns - d1.ts_ns >= dts + 256)
			FAIL("ts delta %llu off by a unit or more", (unsigned long long)dts);
	}
	check_hop(&h2, &d2, w2);

	/* IPv4 header checksum: set it, then the header sums to 0xffff */
	hl = 20 + 4 * (uint32_t)(take(&in, 1) % 11);
	for (i = 0; i < hl; i++)
		hdr[i] = (uint8_t)take(&in, 1);
	hdr[10] = hdr[11] = 0;
	{
		uint16_t c = dc_ip_csum(hdr, hl);
		uint32_t s = 0;

		hdr[10] = (uint8_t)(c >> 8);
		hdr[11] = (uint8_t)c;
		for (i = 0; i < hl; i += 2)
			s += (uint32_t)hdr[i] << 8 | hdr[i + 1];
		while (s >> 16)
			s = (s & 0xffff) + (s >> 16);
		if (s != 0xffff && !(s == 0 && c == 0xffff))
			FAIL("dc_ip_csum over %u bytes leaves sum %#x", hl, s);
		if (dc_ip_csum(hdr, hl) != 0 && dc_ip_csum(hdr, hl) != 0xffff)
			FAIL("a header with its checksum does not verify");
	}
	return 0;
}
