/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * INT wire format: an IPv4 option carrying per-hop telemetry, reserved
 * empty by the source, filled in place by each switch, stripped by the
 * sink, and echoed back on ACKs.  Byte-by-byte description: docs/int.md.
 *
 *   0        1        2                 3
 *   +--------+--------+--------+--------+
 *   | type   | length |V V V E O S r r |H H H H P P P P|   base, 4 bytes
 *   +--------+--------+--------+--------+
 *   | hop 0: 64-bit big-endian word     |   8 bytes per slot
 *   | ...                               |
 *
 *   type   DC_INT_OPT_TYPE (RFC 4727 experimental option 30, copy = 0)
 *   length 4 + 8·slots (slots = 1 … DC_INT_WIRE_MAX_SLOTS)
 *   V      version (3 bits) = DC_INT_VERSION
 *   E      echo: the stack rides back to the sender; switches skip it
 *   O      overflow: the path had more hops than slots
 *   S      sampled: the source gives INT to a subset of the flow's data
 *          segments, so the sink echoes each stack once (docs/int.md)
 *   H      hops filled so far (the pointer to the next free slot)
 *   P      path id (Ethereal's path tag, 0 = none)
 *
 * Tag-only form: length 4, no hop slots, E = O = 0, H = 0, P = the path.
 * The Ethereal host program adds it to TCP segments that carry no INT
 * option; the leaf that steers by it strips it, an INT sink strips it,
 * INT transit hops leave it alone (docs/ethereal.md).
 *
 * Hop word, most significant bits first:
 *   rate code  4 bits   DC_INT_RATE_* table below
 *   qlen      18 bits   queue length in 32-byte units (saturates, 8 MiB)
 *   ts        20 bits   switch time in 256 ns units (wraps every 268 ms)
 *   tx        22 bits   port tx bytes in 64-byte units (wraps at 256 MiB)
 *
 * Everything here is pure and bounded: shared by the TC programs and the
 * host tests, fuzzers and the tshark dissector's test.
 */
#ifndef DCBPF_INT_H
#define DCBPF_INT_H

#include "fixed.h"
#include "types.h"

#define DC_INT_OPT_TYPE 0x1e
#define DC_INT_VERSION 1
#define DC_INT_BASE_LEN 4
#define DC_INT_HOP_LEN 8
/* IPv4 options are at most 40 bytes: 4 + 4·8 = 36. */
#define DC_INT_WIRE_MAX_SLOTS 4
#define DC_INT_MAX_OPT_LEN (DC_INT_BASE_LEN + DC_INT_WIRE_MAX_SLOTS * DC_INT_HOP_LEN)

#define DC_INT_FLAG_ECHO 0x10
#define DC_INT_FLAG_OVERFLOW 0x08
#define DC_INT_FLAG_SAMPLED 0x04
#define DC_INT_FLAG_MASK 0x1c

/* Field widths and units of a hop word. */
#define DC_INT_RATE_BITS 4
#define DC_INT_QLEN_BITS 18
#define DC_INT_TS_BITS 20
#define DC_INT_TX_BITS 22
#define DC_INT_QLEN_UNIT_BYTES 32ULL
#define DC_INT_TS_UNIT_NS 256ULL
#define DC_INT_TX_UNIT_BYTES 64ULL
#define DC_INT_QLEN_MAX ((1ULL << DC_INT_QLEN_BITS) - 1)
#define DC_INT_TS_WRAP_NS (DC_INT_TS_UNIT_NS << DC_INT_TS_BITS)
#define DC_INT_TX_WRAP_BYTES (DC_INT_TX_UNIT_BYTES << DC_INT_TX_BITS)
#define DC_INT_TS_SHIFT DC_INT_TX_BITS
#define DC_INT_QLEN_SHIFT (DC_INT_TX_BITS + DC_INT_TS_BITS)
#define DC_INT_RATE_SHIFT (DC_INT_TX_BITS + DC_INT_TS_BITS + DC_INT_QLEN_BITS)

/*
 * Port rates a hop can report, in Mbit/s, indexed by the 4-bit code.
 * Code 0 = unknown.  A port whose rate is not in the table reports the
 * largest entry not above it (docs/int.md: configure table rates).
 */
#define DC_INT_RATE_CODES 16
DC_INLINE __u32 dc_int_rate_mbps(__u32 code)
{
	switch (code) {
	case 1: return 100;
	case 2: return 200;
	case 3: return 500;
	case 4: return 1000;
	case 5: return 2000;
	case 6: return 2500;
	case 7: return 5000;
	case 8: return 10000;
	case 9: return 25000;
	case 10: return 40000;
	case 11: return 50000;
	case 12: return 100000;
	case 13: return 200000;
	case 14: return 400000;
	case 15: return 800000;
	default: return 0;
	}
}

/* Written out rather than a loop over the table: the 6.1 verifier rejects
 * the loop clang makes of it (a back-edge without a jump). */
DC_INLINE __u32 dc_int_rate_code(__u32 mbps)
{
	if (mbps >= 800000) return 15;
	if (mbps >= 400000) return 14;
	if (mbps >= 200000) return 13;
	if (mbps >= 100000) return 12;
	if (mbps >= 50000) return 11;
	if (mbps >= 40000) return 10;
	if (mbps >= 25000) return 9;
	if (mbps >= 10000) return 8;
	if (mbps >= 5000) return 7;
	if (mbps >= 2500) return 6;
	if (mbps >= 2000) return 5;
	if (mbps >= 1000) return 4;
	if (mbps >= 500) return 3;
	if (mbps >= 200) return 2;
	if (mbps >= 100) return 1;
	return 0;
}

/* One hop as a switch reports it (full-width values). */
struct dc_int_hop_in {
	__u32 rate_mbps;
	__u64 qlen_bytes;
	__u64 ts_ns;
	__u64 tx_bytes;
};

/* Encode a hop into its 64-bit word (host order; store big endian). */
DC_INLINE __u64 dc_int_hop_encode(const struct dc_int_hop_in *h)
{
	__u64 q = h->qlen_bytes / DC_INT_QLEN_UNIT_BYTES;

	if (q > DC_INT_QLEN_MAX)
		q = DC_INT_QLEN_MAX;
	return ((__u64)dc_int_rate_code(h->rate_mbps) << DC_INT_RATE_SHIFT) |
	       (q << DC_INT_QLEN_SHIFT) |
	       (((h->ts_ns / DC_INT_TS_UNIT_NS) & ((1ULL << DC_INT_TS_BITS) - 1)) << DC_INT_TS_SHIFT) |
	       ((h->tx_bytes / DC_INT_TX_UNIT_BYTES) & ((1ULL << DC_INT_TX_BITS) - 1));
}

/* Raw fields of a hop word. */
DC_INLINE __u32 dc_int_w_rate(__u64 w) { return (__u32)(w >> DC_INT_RATE_SHIFT) & 0xf; }
DC_INLINE __u32 dc_int_w_qlen(__u64 w)
{
	return (__u32)(w >> DC_INT_QLEN_SHIFT) & (__u32)DC_INT_QLEN_MAX;
}
DC_INLINE __u32 dc_int_w_ts(__u64 w)
{
	return (__u32)(w >> DC_INT_TS_SHIFT) & ((1U << DC_INT_TS_BITS) - 1);
}
DC_INLINE __u32 dc_int_w_tx(__u64 w) { return (__u32)w & ((1U << DC_INT_TX_BITS) - 1); }

/*
 * Decode a hop word into the CC's view, unwrapping ts and tx against the
 * previous decoded sample of the same hop (prev, or NULL for the first).
 * Unwrapping assumes consecutive samples less than one wrap apart (268 ms
 * of switch time; 256 MiB of port traffic); the caller passes prev = NULL
 * when the previous sample is older than DC_INT_UNWRAP_MAX_NS.
 */
#define DC_INT_UNWRAP_MAX_NS (DC_INT_TS_WRAP_NS / 2)

DC_INLINE void dc_int_hop_decode(__u64 w, const struct dc_int_hop *prev,
				 struct dc_int_hop *out)
{
	__u64 ts_units = dc_int_w_ts(w), tx_units = dc_int_w_tx(w);

	out->rate_mbps = dc_int_rate_mbps(dc_int_w_rate(w));
	out->qlen_bytes = dc_int_w_qlen(w) * (__u32)DC_INT_QLEN_UNIT_BYTES;
	if (prev && prev->ts_ns) {
		__u64 pts = (prev->ts_ns / DC_INT_TS_UNIT_NS) & ((1ULL << DC_INT_TS_BITS) - 1);
		__u64 ptx = (prev->tx_bytes / DC_INT_TX_UNIT_BYTES) & ((1ULL << DC_INT_TX_BITS) - 1);
		__u64 dts = (ts_units - pts) & ((1ULL << DC_INT_TS_BITS) - 1);
		__u64 dtx = (tx_units - ptx) & ((1ULL << DC_INT_TX_BITS) - 1);

		out->ts_ns = prev->ts_ns + dts * DC_INT_TS_UNIT_NS;
		out->tx_bytes = prev->tx_bytes + dtx * DC_INT_TX_UNIT_BYTES;
	} else {
		/* First sample: any representative of the wire value will do,
		 * only differences are ever used.  Never 0 (0 = "no sample"). */
		out->ts_ns = ts_units * DC_INT_TS_UNIT_NS + DC_INT_TS_WRAP_NS;
		out->tx_bytes = tx_units * DC_INT_TX_UNIT_BYTES;
	}
}

/*
 * Sampled telemetry (docs/int.md, "Sampling"): does a data segment of a
 * flow get the option?  With sample_us = 0, every one (unsampled).
 * Otherwise the flow's first, then one at least sample_us after the last
 * one tagged, and every one while the newest stack echoed to this sender
 * shows a queue above sample_qlen_bytes at some hop: a moving queue is when
 * PowerTCP's law wants every sample (Addanki thesis Alg. 1 runs per ACK).
 * An untagged segment keeps GSO and GRO batching (the kernel segments a
 * grown GSO packet in software and does not merge segments with options).
 * last_ns: when the flow was last tagged (0: never); max_qlen_bytes: the
 * largest hop queue of its newest echo (0: none).
 */
DC_INLINE int dc_int_sample_due(const struct dc_int_dst_cfg *cfg, __u64 now_ns, __u64 last_ns,
				__u32 max_qlen_bytes)
{
	if (!cfg->sample_us || !last_ns)
		return 1;
	if (cfg->sample_qlen_bytes && max_qlen_bytes > cfg->sample_qlen_bytes)
		return 1;
	return now_ns - last_ns >= (__u64)cfg->sample_us * DC_NSEC_PER_USEC;
}

/*
 * Give-up (docs/int.md, "When the path drops IP options"): routers often
 * drop IPv4 packets that carry options, or send them through a slow path.
 * Every tagged segment of a flow would then be lost and TCP would stall.
 * So a flow first proves its path: its first segment gets the option (a
 * probe) and the next ones do not until an echo comes back; from then on
 * every segment may carry it.  A flow that gets no echo for giveup_ms
 * after a tagged segment (probe or not) is sent without the option for
 * giveup_ms << offs (offs: give-ups in a row, at most
 * DC_INT_GIVEUP_MAX_SHIFT), then probes again with one segment.  So a
 * path that drops options costs a flow one segment per probe, plus the
 * segments of at most giveup_ms once it had proven its path.  Meanwhile
 * PowerTCP has no telemetry and runs the θ-PowerTCP law (theta_fallback
 * in dc_cc_stats), which needs nothing from the path.
 * s: the flow's source state; echo_ns: when its newest echo was published
 * on this host (0: never).  Called for a segment that is due the option
 * (sampling said yes); returns DC_INT_GU_TAG (give it the option; recorded),
 * DC_INT_GU_OFF (not: waiting for a probe's echo, or an off period runs)
 * or DC_INT_GU_GAVE_UP (not: this segment starts an off period).
 * giveup_ms = 0: always TAG, s untouched.
 */
#define DC_INT_GIVEUP_MAX_SHIFT 6	/* off period at most 64 × giveup_ms */
#define DC_NSEC_PER_MSEC (1000 * DC_NSEC_PER_USEC)

enum { DC_INT_GU_TAG = 0, DC_INT_GU_OFF = 1, DC_INT_GU_GAVE_UP = 2 };

DC_INLINE int dc_int_giveup(struct dc_int_samp *s, __u32 giveup_ms, __u64 now_ns, __u64 echo_ns)
{
	__u64 lim_ns = (__u64)giveup_ms * DC_NSEC_PER_MSEC;

	if (!giveup_ms)
		return DC_INT_GU_TAG;
	if (s->unechoed_ns && echo_ns >= s->unechoed_ns) {
		/* an echo of a segment tagged since: the path carries INT */
		s->unechoed_ns = 0;
		s->offs = 0;
		s->off_until_ns = 0;
		s->proven = 1;
	}
	if (now_ns < s->off_until_ns)
		return DC_INT_GU_OFF;
	if (s->unechoed_ns && now_ns - s->unechoed_ns >= lim_ns) {
		s->off_until_ns = now_ns + (lim_ns << s->offs);
		if (s->offs < DC_INT_GIVEUP_MAX_SHIFT)
			s->offs++;
		s->unechoed_ns = 0;
		s->proven = 0;
		return DC_INT_GU_GAVE_UP;
	}
	if (!s->unechoed_ns) {
		s->unechoed_ns = now_ns;
		/* not proven: this is a probe, wait for its echo */
		if (!s->proven)
			s->off_until_ns = now_ns + lim_ns;
	}
	return DC_INT_GU_TAG;
}

/* The sink echoes a stack at most this long after it arrived: an older one
 * is useless to the CC (it does not differentiate samples 100 ms apart),
 * and a receiver whose data stopped carrying INT (give-up) must stop
 * putting options on its ACKs too. */
#define DC_INT_ECHO_MAX_AGE_NS (100ULL * DC_NSEC_PER_MSEC)

/* Base header accessors (byte 2 and 3). */
DC_INLINE __u8 dc_int_b2(__u8 flags) { return (DC_INT_VERSION << 5) | (flags & DC_INT_FLAG_MASK); }
DC_INLINE __u32 dc_int_version(__u8 b2) { return b2 >> 5; }
DC_INLINE __u32 dc_int_hops(__u8 b3) { return b3 >> 4; }
DC_INLINE __u32 dc_int_path(__u8 b3) { return b3 & 0xf; }
DC_INLINE __u8 dc_int_b3(__u32 hops, __u32 path) { return (__u8)((hops << 4) | (path & 0xf)); }

/* Slots of an option of total length len; 0 if len is not a valid INT length. */
DC_INLINE __u32 dc_int_slots(__u32 len)
{
	if (len < DC_INT_BASE_LEN + DC_INT_HOP_LEN || len > DC_INT_MAX_OPT_LEN ||
	    (len - DC_INT_BASE_LEN) % DC_INT_HOP_LEN)
		return 0;
	return (len - DC_INT_BASE_LEN) / DC_INT_HOP_LEN;
}

/* Why an option at the start of the IPv4 options area is or is not ours. */
enum dc_int_verdict {
	DC_INT_OK = 0,
	DC_INT_NONE = 1,	/* no options, or the first is not ours */
	DC_INT_BAD_LEN = 2,	/* ours, but length invalid or beyond the header */
	DC_INT_BAD_VERSION = 3,
	DC_INT_BAD_HOPS = 4,	/* hop pointer beyond the slots (or flags on a tag) */
	DC_INT_TAG = 5,		/* valid tag-only form: length 4, P only */
};

/*
 * Validate the option at opt[0..] given the bytes of IPv4 options present
 * (ihl·4 − 20).  Our option is only ever the first one: the source adds
 * it to option-free headers only.
 */
DC_INLINE enum dc_int_verdict dc_int_check(const __u8 *opt, __u32 opts_len)
{
	__u32 len, slots;

	if (opts_len < 2 || opt[0] != DC_INT_OPT_TYPE)
		return DC_INT_NONE;
	len = opt[1];
	if (len == DC_INT_BASE_LEN && len <= opts_len) {
		if (dc_int_version(opt[2]) != DC_INT_VERSION)
			return DC_INT_BAD_VERSION;
		/* nothing but P may be set in a tag: no slots to point at */
		if (dc_int_hops(opt[3]) || (opt[2] & DC_INT_FLAG_MASK))
			return DC_INT_BAD_HOPS;
		return DC_INT_TAG;
	}
	slots = dc_int_slots(len);
	if (!slots || len > opts_len)
		return DC_INT_BAD_LEN;
	if (dc_int_version(opt[2]) != DC_INT_VERSION)
		return DC_INT_BAD_VERSION;
	if (dc_int_hops(opt[3]) > slots)
		return DC_INT_BAD_HOPS;
	return DC_INT_OK;
}

/* Option length for a number of slots (clamped to what fits). */
DC_INLINE __u32 dc_int_opt_len(__u32 slots)
{
	if (slots < 1)
		slots = 1;
	if (slots > DC_INT_WIRE_MAX_SLOTS)
		slots = DC_INT_WIRE_MAX_SLOTS;
	return DC_INT_BASE_LEN + slots * DC_INT_HOP_LEN;
}

/* Big-endian load/store of a hop word at p (byte-wise: p may be unaligned). */
DC_INLINE __u64 dc_int_load_be64(const __u8 *p)
{
	return ((__u64)p[0] << 56) | ((__u64)p[1] << 48) | ((__u64)p[2] << 40) |
	       ((__u64)p[3] << 32) | ((__u64)p[4] << 24) | ((__u64)p[5] << 16) |
	       ((__u64)p[6] << 8) | (__u64)p[7];
}

DC_INLINE void dc_int_store_be64(__u8 *p, __u64 w)
{
	p[0] = (__u8)(w >> 56);
	p[1] = (__u8)(w >> 48);
	p[2] = (__u8)(w >> 40);
	p[3] = (__u8)(w >> 32);
	p[4] = (__u8)(w >> 24);
	p[5] = (__u8)(w >> 16);
	p[6] = (__u8)(w >> 8);
	p[7] = (__u8)w;
}

/* IPv4 header checksum over len bytes (len even), as stored (network order). */
DC_INLINE __u16 dc_ip_csum(const __u8 *hdr, __u32 len)
{
	__u32 sum = 0, i;

	for (i = 0; i + 1 < 60 && i + 1 < len; i += 2)
		sum += ((__u32)hdr[i] << 8) | hdr[i + 1];
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

#endif
