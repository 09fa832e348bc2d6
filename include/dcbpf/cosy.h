/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cosy: bounded-delay messages over reserved virtual links.  Source:
 * S. Agarwal et al., "Building a Partial Communication Synchrony
 * Abstraction on Asynchronous Datacenters" — §3.1 Thm 3.1 (limits), §3.2
 * Thm 3.2 (the RSVP baseline), §3.3-3.4 Lemma 3.3, Thm 3.4 (Eq. 1, with
 * Eqs. 2-4 of its proof), Thm 3.5 (cosy's bound), §4 (switch state, the
 * sequence number and the cleanup at δ_cosy).  Shared by the TC switch
 * program (bpf/cosy.bpf.c), `dcbpf cosy bounds` (loader/cosy/) and the
 * host tests.  Wire format and what is built: docs/cosy.md.
 *
 * Two parts:
 *  - the bounds calculator: integers with units in the names (kbps, ns,
 *    bytes); ratios in parts per million (_ppm).  Delay and queue bounds
 *    round up, so a budget taken from them is never short.
 *  - the per-port virtual-link (VL) book a switch keeps: a bitmap of K
 *    VLs and, per VL, the message id and random sequence number that hold
 *    it, when it expires and the outgoing VL it is mapped to.  A VL whose
 *    expiry has passed counts as free (lazy expiry at δ_cosy, §4: the
 *    data-plane timer the hardware prototype emulated from its control
 *    plane).  The RSVP baseline (§3.2) is the same book with K = 1.
 */
#ifndef DCBPF_COSY_H
#define DCBPF_COSY_H

#include "compat.h"
#include "counters.h"
#ifndef __bpf__
#include <linux/bpf.h>	/* struct bpf_spin_lock */
#endif

/* ---- control and data header (docs/cosy.md) ------------------------------
 * UDP, to or from port DC_COSY_UDP_PORT, right after the UDP header.
 * Multi-byte fields are big endian.  24 bytes:
 *
 *   0  ver          4..7   seq        random, chosen by the receiver (§4)
 *   1  type         8..15  msg_id     the sender's message id
 *   2  flags        16..19 size_bytes request: the message's size
 *   3  vl           20     hops       rsvp: switches that reserved a VL
 *                   21     reason     reject: why (DC_COSY_R_*)
 *                   22..23 switch_id  reject: the switch that refused
 *
 * vl is a label: the virtual link of the link the packet is crossing.  A
 * receiver sends its rsvp with its slot in vl; each switch reserves a VL
 * on the port toward the sender, maps it to (arrival port, vl) and writes
 * the new VL into vl.  Data, complete and the receiver-bound reject travel
 * back along that chain: at each switch (arrival port, vl) gives the next
 * (port, vl), as a label switch would.
 */
#define DC_COSY_UDP_PORT	17263	/* 0x436f */
#define DC_COSY_VERSION		1
#define DC_COSY_HDR_LEN		24

enum dc_cosy_type {
	DC_COSY_T_REQUEST = 1,	/* sender -> receiver: may I send size_bytes? */
	DC_COSY_T_RSVP = 2,	/* receiver -> sender: reserves one VL per link */
	DC_COSY_T_REJECT = 3,	/* no VL (switch) or busy (host) */
	DC_COSY_T_COMPLETE = 4,	/* message sent (sender) / received (receiver) */
	DC_COSY_T_FAILURE = 5,	/* receiver: data did not come in time (§4) */
	DC_COSY_T_DATA = 6,
	DC_COSY_T_MAX = 6,
};

/* flags: the packet runs along a reservation toward its receiver; every
 * switch frees the VL it crosses (complete, and the reject a switch sends
 * back toward the receiver).  Without it, complete and reject are routed
 * like any packet and touch no VL. */
#define DC_COSY_F_RELEASE	0x01

enum dc_cosy_reason {
	DC_COSY_R_NONE = 0,
	DC_COSY_R_NO_VL = 1,	/* every candidate port's VLs are reserved */
	DC_COSY_R_BUSY = 2,	/* a host had no free slot */
};

struct dc_cosy_hdr {
	__u8 ver, type, flags, vl;
	__u32 seq;
	__u64 msg_id;
	__u32 size_bytes;
	__u8 hops, reason;
	__u16 switch_id;
};

DC_INLINE __u32 dc_cosy_get_be32(const __u8 *p)
{
	return (__u32)p[0] << 24 | (__u32)p[1] << 16 | (__u32)p[2] << 8 | p[3];
}

DC_INLINE void dc_cosy_put_be32(__u8 *p, __u32 v)
{
	p[0] = (__u8)(v >> 24);
	p[1] = (__u8)(v >> 16);
	p[2] = (__u8)(v >> 8);
	p[3] = (__u8)v;
}

DC_INLINE void dc_cosy_hdr_decode(const __u8 *p, struct dc_cosy_hdr *h)
{
	h->ver = p[0];
	h->type = p[1];
	h->flags = p[2];
	h->vl = p[3];
	h->seq = dc_cosy_get_be32(p + 4);
	h->msg_id = (__u64)dc_cosy_get_be32(p + 8) << 32 | dc_cosy_get_be32(p + 12);
	h->size_bytes = dc_cosy_get_be32(p + 16);
	h->hops = p[20];
	h->reason = p[21];
	h->switch_id = (__u16)(p[22] << 8 | p[23]);
}

DC_INLINE void dc_cosy_hdr_encode(__u8 *p, const struct dc_cosy_hdr *h)
{
	p[0] = h->ver;
	p[1] = h->type;
	p[2] = h->flags;
	p[3] = h->vl;
	dc_cosy_put_be32(p + 4, h->seq);
	dc_cosy_put_be32(p + 8, (__u32)(h->msg_id >> 32));
	dc_cosy_put_be32(p + 12, (__u32)h->msg_id);
	dc_cosy_put_be32(p + 16, h->size_bytes);
	p[20] = h->hops;
	p[21] = h->reason;
	p[22] = (__u8)(h->switch_id >> 8);
	p[23] = (__u8)h->switch_id;
}

/* ---- bounds (§3) ---------------------------------------------------------- */
#define DC_COSY_PPM		1000000ULL
#define DC_COSY_NS_PER_S	1000000000ULL
/* bytes * DC_COSY_NS_BITS_PER_KBPS / kbps = ns on the wire */
#define DC_COSY_NS_BITS_PER_KBPS 8000000ULL
/* Limits of the calculator: every product below stays within 64 bits. */
#define DC_COSY_CALC_K_MAX	1024
#define DC_COSY_CALC_C_MAX	1024

/* The network and message one set of bounds is for. */
struct dc_cosy_net {
	__u64 bw_kbps;		/* B: every link */
	__u64 hrtt_ns;		/* hRTT: unloaded RTT of one MTU packet */
	__u64 msg_bytes;	/* s */
	__u32 hops;		/* #H: switches on the longest path */
	__u32 pkt_bytes;	/* p: largest packet */
	__u32 k;		/* K: virtual links per link (1: the RSVP baseline) */
	__u32 cores;		/* C: core (spine) switches */
	__u64 buffer_bytes;	/* Ŝ: smallest switch buffer (0: not known) */
	__u64 wait_ns;		/* δ^E: how long a receiver may hold a request */
	__u32 ports;		/* switch ports, for the state size (0: not asked) */
};

struct dc_cosy_bounds {
	__u64 tx_ns;		/* s/B */
	__u64 delta_star_ns;	/* δ*, Thm 3.1 */
	__u64 alpha_ppm;	/* α = hRTT / (s/B), Thm 3.1 */
	__u64 theta_star_ppm;	/* Θ* = 1 / (2(1 + α)), Thm 3.1 */
	__u64 qhat_bytes;	/* q̂ = #H (K-1) p, Lemma 3.3 */
	__u64 dhat_ns;		/* δ̂ = #H (#H+1) (K-1) / 2 · p/B, Lemma 3.3 */
	__u64 kstar;		/* K* = Ŝ / (#H p), floored (0: Ŝ not given) */
	__u64 kstar_milli;	/* the same × 1000, for the paper's rounding */
	__u64 delta_cosy_ns;	/* 2 hRTT + δ^E + sK/B + δ̂, Thm 3.5 and its proof */
	__u64 f_ppm;		/* f(K, C), Thm 3.4 Eq. 1 */
	__u64 theta_ppm;	/* E[Θ_cosy] = f(K, C) Θ*, Thm 3.4 (K = 1: Θ_RSVP, Thm 3.2) */
	__u64 state_bits;	/* pK + pK ⌈log2 pK⌉ per switch, §4 (0: ports not given) */
};

DC_INLINE __u64 dc_cosy_div_up(__u64 a, __u64 b)
{
	return b ? (a + b - 1) / b : DC_U64_MAX;
}

/* ⌈a · b / c⌉ without overflow while b · c < 2^64 and ⌊a / c⌋ · b < 2^64. */
DC_INLINE __u64 dc_cosy_muldiv_up(__u64 a, __u64 b, __u64 c)
{
	if (!c)
		return DC_U64_MAX;
	return a / c * b + dc_cosy_div_up(a % c * b, c);
}

/* Time to put bytes on a link of bw_kbps, rounded up. */
DC_INLINE __u64 dc_cosy_tx_ns(__u64 bytes, __u64 bw_kbps)
{
	return dc_cosy_muldiv_up(bytes, DC_COSY_NS_BITS_PER_KBPS, bw_kbps);
}

/* Lemma 3.3: q̂ ≤ #H · (K - 1) · p. */
DC_INLINE __u64 dc_cosy_qhat_bytes(__u32 hops, __u32 k, __u32 pkt_bytes)
{
	return k ? (__u64)hops * (k - 1) * pkt_bytes : 0;
}

/* Lemma 3.3: δ̂ ≤ #H (#H + 1) (K - 1) / 2 · p / B (one division, rounded up). */
DC_INLINE __u64 dc_cosy_dhat_ns(__u32 hops, __u32 k, __u32 pkt_bytes, __u64 bw_kbps)
{
	if (!k)
		return 0;
	return dc_cosy_muldiv_up((__u64)hops * (hops + 1) * (k - 1) * pkt_bytes, DC_COSY_NS_BITS_PER_KBPS,
				 2 * bw_kbps);
}

/* Thm 3.5: δ_cosy = 2 hRTT + s K / B + δ̂, plus δ^E, the receiver's wait
 * that the theorem's proof adds. */
DC_INLINE __u64 dc_cosy_delta_ns(const struct dc_cosy_net *n)
{
	return 2 * n->hrtt_ns + n->wait_ns + dc_cosy_tx_ns(n->msg_bytes * n->k, n->bw_kbps) +
	       dc_cosy_dhat_ns(n->hops, n->k, n->pkt_bytes, n->bw_kbps);
}

/*
 * Thm 3.4, Eq. 1: f(K, C) = Σ_{i=0..KC} min(i, K) · P[X = i] / K with
 * X ~ Binomial(N = KC, 1/C) (Eqs. 2-4: the balls of one leaf in C bins).
 * The pmf is built from its mode outward in integers: the mode's weight
 * is 2^24 and every step is the exact ratio of neighbouring terms
 * (P[i+1] / P[i] = (N - i) / ((i + 1)(C - 1))), floored; starting at
 * (1 - 1/C)^N would underflow for K above ~20.  Terms stop at the first
 * zero (the pmf is unimodal).  Accurate to ~1e-6 for K, C ≤ 1024.
 * Returns parts per million; C = 1: every ball fits, f = 1.
 */
DC_INLINE __u64 dc_cosy_f_ppm(__u32 k, __u32 c)
{
	__u64 n = (__u64)k * c, m, w, z, num, i;

	if (!k || !c || k > DC_COSY_CALC_K_MAX || c > DC_COSY_CALC_C_MAX)
		return 0;
	if (c == 1)
		return DC_COSY_PPM;
	m = (n + 1) / c;		/* a mode of Binomial(N, 1/C) */
	w = 1ULL << 24;
	z = w;
	num = dc_min_u64(m, k) * w;
	for (i = m; i > 0 && w; i--) {		/* P[i-1] = P[i] · i (C-1) / (N-i+1) */
		w = w * i * (c - 1) / (n - i + 1);
		z += w;
		num += dc_min_u64(i - 1, k) * w;
	}
	w = 1ULL << 24;
	for (i = m; i < n && w; i++) {		/* P[i+1] = P[i] · (N-i) / ((i+1)(C-1)) */
		w = w * (n - i) / ((i + 1) * (c - 1));
		z += w;
		num += dc_min_u64(i + 1, k) * w;
	}
	return (num * DC_COSY_PPM + (z * k) / 2) / (z * k);
}

/* ⌈log2 x⌉ for x ≥ 1. */
DC_INLINE __u32 dc_cosy_log2_up(__u64 x)
{
	__u32 b = 0;

	while (b < 64 && (1ULL << b) < x)
		b++;
	return b;
}

/* §4: a reserved bit and the mapped outgoing VL per VL: pK + pK ⌈log2 pK⌉. */
DC_INLINE __u64 dc_cosy_state_bits(__u32 ports, __u32 k)
{
	__u64 vls = (__u64)ports * k;

	return vls ? vls + vls * dc_cosy_log2_up(vls) : 0;
}

/* Every bound of §3 for one network and message size.  The caller checks
 * the inputs first (bw_kbps, msg_bytes, hops, pkt_bytes, k, cores ≥ 1;
 * k, cores ≤ DC_COSY_CALC_*_MAX; see loader/cosy/). */
DC_INLINE void dc_cosy_bounds(const struct dc_cosy_net *n, struct dc_cosy_bounds *b)
{
	__u64 hop_bytes = (__u64)n->hops * n->pkt_bytes;

	b->tx_ns = dc_cosy_tx_ns(n->msg_bytes, n->bw_kbps);
	b->delta_star_ns = 2 * n->hrtt_ns + b->tx_ns;
	/* α = hRTT / (s/B); Θ* = (s/B) / (2 (s/B + hRTT)), both rounded */
	b->alpha_ppm = (n->hrtt_ns * DC_COSY_PPM + b->tx_ns / 2) / b->tx_ns;
	b->theta_star_ppm = (b->tx_ns * DC_COSY_PPM + (b->tx_ns + n->hrtt_ns)) /
			    (2 * (b->tx_ns + n->hrtt_ns));
	b->qhat_bytes = dc_cosy_qhat_bytes(n->hops, n->k, n->pkt_bytes);
	b->dhat_ns = dc_cosy_dhat_ns(n->hops, n->k, n->pkt_bytes, n->bw_kbps);
	b->kstar = hop_bytes ? n->buffer_bytes / hop_bytes : 0;
	b->kstar_milli = hop_bytes ? n->buffer_bytes * 1000 / hop_bytes : 0;
	b->delta_cosy_ns = dc_cosy_delta_ns(n);
	b->f_ppm = dc_cosy_f_ppm(n->k, n->cores);
	b->theta_ppm = (b->f_ppm * b->theta_star_ppm + DC_COSY_PPM / 2) / DC_COSY_PPM;
	b->state_bits = dc_cosy_state_bits(n->ports, n->k);
}

/* ---- the virtual-link book of one switch port (§3.3, §4) ------------------ */
#define DC_COSY_K_MAX		64	/* one __u64 bitmap */
#define DC_COSY_MODE_COSY	0
#define DC_COSY_MODE_RSVP	1	/* §3.2: one VL per link, whatever k says */

/* One VL, meaningful while its bit is set and now < expiry_ns. */
struct dc_cosy_vl {
	__u64 msg_id;
	__u64 expiry_ns;	/* reserved at t: t + δ_cosy */
	__u32 seq;
	__u16 out_port;		/* the rsvp's arrival port: where data leaves */
	__u8 out_vl;		/* ... and on which VL of that port's link */
	__u8 pad;
};

struct dc_cosy_vls {
	__u64 bitmap;		/* bit v: VL v reserved (maybe expired) */
	struct dc_cosy_vl vl[DC_COSY_K_MAX];
};

/* Why a VL operation was refused. */
enum dc_cosy_vl_err {
	DC_COSY_VL_OK = 0,
	DC_COSY_VL_RANGE = 1,	/* vl ≥ K */
	DC_COSY_VL_FREE = 2,	/* not reserved, or expired */
	DC_COSY_VL_OWNER = 3,	/* reserved by another (message, sequence) */
	DC_COSY_VL_BUSY = 4,	/* reserve: held by a live reservation */
};

/* K in force: the RSVP baseline has one VL per link. */
DC_INLINE __u32 dc_cosy_eff_k(__u32 k, __u32 mode)
{
	if (mode == DC_COSY_MODE_RSVP || k < 1)
		return 1;
	return k > DC_COSY_K_MAX ? DC_COSY_K_MAX : k;
}

/* K in [1, 64] -> its low K bits (no branch). */
DC_INLINE __u64 dc_cosy_kmask(__u32 k)
{
	return k ? DC_U64_MAX >> (64 - (k > 64 ? 64 : k)) : 0;
}

/* 1 if a < b, for |a - b| < 2^63 (times in ns since boot), computed
 * without a branch: the loops below stay one path for the verifier. */
DC_INLINE __u64 dc_cosy_lt(__u64 a, __u64 b)
{
	return (a - b) >> 63;
}

/* v as an index into the VL array, masked where the verifier sees it:
 * the compiler may not drop the mask because an earlier check already
 * bounds v (older verifiers lose that bound across register copies). */
DC_INLINE __u32 dc_cosy_vl_idx(__u32 v)
{
	dc_opaque(v);
	return v & (DC_COSY_K_MAX - 1);
}

/* VL v reserved and not expired. */
DC_INLINE bool dc_cosy_vl_live(const struct dc_cosy_vls *s, __u32 v, __u64 now_ns)
{
	return v < DC_COSY_K_MAX && ((s->bitmap >> v) & 1) && now_ns < s->vl[dc_cosy_vl_idx(v)].expiry_ns;
}

/* The VLs an rsvp may take: below K and not live (reserved and before
 * its expiry).  Every VL is looked at, the K mask applied last. */
DC_INLINE __u64 dc_cosy_free_mask(const struct dc_cosy_vls *s, __u32 k, __u64 now_ns)
{
	__u64 live = 0;
	__u32 v;

	for (v = 0; v < DC_COSY_K_MAX; v++)
		live |= (((s->bitmap >> v) & 1) & dc_cosy_lt(now_ns, s->vl[v].expiry_ns)) << v;
	return dc_cosy_kmask(k) & ~live;
}

/* Reserve VL v for (msg_id, seq) until now + life_ns, mapped to the
 * outgoing (out_port, out_vl).  An expired holder is replaced (*reclaimed
 * set); a live one refuses. */
DC_INLINE int dc_cosy_reserve(struct dc_cosy_vls *s, __u32 k, __u32 v, __u64 msg_id, __u32 seq,
			      __u64 now_ns, __u64 life_ns, __u16 out_port, __u8 out_vl, bool *reclaimed)
{
	struct dc_cosy_vl *e;

	*reclaimed = false;
	if (v >= k || v >= DC_COSY_K_MAX)
		return DC_COSY_VL_RANGE;
	if (dc_cosy_vl_live(s, v, now_ns))
		return DC_COSY_VL_BUSY;
	*reclaimed = (s->bitmap >> v) & 1;
	e = &s->vl[dc_cosy_vl_idx(v)];
	e->msg_id = msg_id;
	e->seq = seq;
	/* dc_cosy_lt needs expiry - now below 2^63 */
	e->expiry_ns = now_ns + (life_ns < (1ULL << 62) ? life_ns : (1ULL << 62));
	e->out_port = out_port;
	e->out_vl = out_vl;
	e->pad = 0;
	s->bitmap |= 1ULL << v;
	return DC_COSY_VL_OK;
}

/* VL v is live and held by (msg_id, seq): the check every packet that
 * follows a reservation passes before it is forwarded or frees anything,
 * so a stale, misrouted or forged packet changes nothing. */
DC_INLINE int dc_cosy_match(const struct dc_cosy_vls *s, __u32 k, __u32 v, __u64 msg_id, __u32 seq,
			    __u64 now_ns)
{
	if (v >= k || v >= DC_COSY_K_MAX)
		return DC_COSY_VL_RANGE;
	if (!dc_cosy_vl_live(s, v, now_ns))
		return DC_COSY_VL_FREE;
	v = dc_cosy_vl_idx(v);
	if (s->vl[v].msg_id != msg_id || s->vl[v].seq != seq)
		return DC_COSY_VL_OWNER;
	return DC_COSY_VL_OK;
}

/* complete / receiver-bound reject: free VL v if (msg_id, seq) holds it. */
DC_INLINE int dc_cosy_release(struct dc_cosy_vls *s, __u32 k, __u32 v, __u64 msg_id, __u32 seq,
			      __u64 now_ns)
{
	int rc = dc_cosy_match(s, k, v, msg_id, seq, now_ns);

	if (rc == DC_COSY_VL_OK && v < DC_COSY_K_MAX)
		s->bitmap &= ~(1ULL << v);
	return rc;
}

DC_INLINE __u32 dc_cosy_popcount(__u64 x)
{
	return (__u32)__builtin_popcountll(x);
}

/* Index of the n-th (from 0) set bit of mask; 64 if there is none.
 * Without branches, so a caller in BPF gets one unknown index back, not
 * 64 constants each verified on its own. */
DC_INLINE __u32 dc_cosy_nth_bit(__u64 mask, __u32 n)
{
	__u64 below = 0, res = 0, found = 0, bit, x, hit;
	__u32 v;

	for (v = 0; v < 64; v++) {
		bit = (mask >> v) & 1;
		x = below ^ n;
		hit = bit & (((x | (0 - x)) >> 63) ^ 1);	/* set, and n set bits below it */
		res |= hit * v;
		found |= hit;
		below += bit;
	}
	return found ? (__u32)res : 64;
}

#define DC_COSY_CAND_MAX 8	/* candidate ports toward one destination */

/*
 * §3.2/§3.3: an rsvp takes one free VL uniformly at random among all free
 * VLs of the candidate ports (the shortest paths toward the sender).
 * free[i] is port i's free mask; rand32 a uniform 32-bit draw.  Returns
 * 0 with the candidate index and VL, -1 when nothing is free (reject).
 */
DC_INLINE int dc_cosy_pick(const __u64 *free, __u32 ncand, __u32 rand32, __u32 *cand, __u32 *vl)
{
	__u32 total = 0, i, n, r;

	for (i = 0; i < DC_COSY_CAND_MAX; i++) {
		if (i >= ncand)
			break;
		total += dc_cosy_popcount(free[i]);
	}
	if (!total)
		return -1;
	r = (__u32)(((__u64)rand32 * total) >> 32);	/* uniform in [0, total) */
	for (i = 0; i < DC_COSY_CAND_MAX; i++) {
		if (i >= ncand)
			break;
		n = dc_cosy_popcount(free[i]);
		if (r < n) {
			*cand = i;
			*vl = dc_cosy_nth_bit(free[i], r);
			return 0;
		}
		r -= n;
	}
	return -1;
}

/* ---- switch configuration, ports, routes, counters (maps/cosy.h) --------- */
struct dc_cosy_cfg {
	__u32 k;		/* VLs per link (≤ DC_COSY_K_MAX) */
	__u32 mode;		/* DC_COSY_MODE_* */
	__u64 expiry_ns;	/* δ_cosy: an unreleased VL frees itself after this */
	__u16 switch_id;	/* written into the rejects it makes */
	__u16 pad[3];
};

/* Per-port counters (the port the packet leaves by, or is released on). */
struct dc_cosy_port_ctr {
	__u64 reserved;		/* VLs reserved by rsvps leaving here */
	__u64 reclaimed;	/* ... of them taken over from an expired holder */
	__u64 released;		/* VLs freed by complete / reject */
	__u64 fwd_data;		/* data packets sent out along a reservation */
	__u64 fwd_ctrl;		/* rsvp, complete, reject sent out by the program */
};

struct dc_cosy_port {
	struct bpf_spin_lock lock;	/* over vls */
	__u32 ifindex;			/* 0: port not configured */
	__u8 mac[6];			/* this port's address */
	__u8 peer_mac[6];		/* the neighbour's, for frames the program sends */
	__u32 pad;
	struct dc_cosy_vls vls;
	struct dc_cosy_port_ctr ctr;
};

/* Destination host (IPv4, network order) -> the ports on shortest paths. */
struct dc_cosy_route {
	__u32 nports;
	__u16 port[DC_COSY_CAND_MAX];
};

enum dc_cosy_drop {
	DC_COSY_D_SHORT = 0,	/* shorter than its headers */
	DC_COSY_D_VERSION,	/* unknown header version */
	DC_COSY_D_TYPE,		/* unknown packet type */
	DC_COSY_D_VL,		/* vl ≥ K */
	DC_COSY_D_FREE,		/* follows a reservation that is not (or no longer) there */
	DC_COSY_D_OWNER,	/* the VL is another message's (wrong port, stale, forged) */
	DC_COSY_D_NOROUTE,	/* rsvp toward a host with no route entry */
	DC_COSY_D_PORT,		/* a port number without a configured port */
	DC_COSY_D_MAX,
};

#define DC_COSY_COUNTERS(X)                                                                  \
	X(pkts, 0, "", "Cosy packets on configured ports.")                                  \
	X(rsvps, 0, "", "Rsvps forwarded with a virtual link reserved.")                     \
	X(rejects_made, 0, "", "Rsvps turned into rejects here.")                            \
	X(rejects_to_sender, 0, "", "Rejects whose sender-bound copies were sent.")          \
	X(released, 0, "", "Complete and reject packets that freed a virtual link.")         \
	X(data, 0, "", "Data packets forwarded along a reservation.")                        \
	X(passed, 0, "", "Left to the kernel: requests, failures, sender-bound packets.")
/* In the order of enum dc_cosy_drop. */
#define DC_COSY_DROPS(X)                                                                     \
	X(drop_short, 0, "", "Dropped: shorter than its headers.")                           \
	X(drop_version, 0, "", "Dropped: unknown header version.")                           \
	X(drop_type, 0, "", "Dropped: unknown packet type.")                                 \
	X(drop_vl, 0, "", "Dropped: virtual link index not below K.")                       \
	X(drop_free, 0, "", "Dropped: follows a reservation that is not there.")             \
	X(drop_owner, 0, "", "Dropped: the virtual link is another message's.")              \
	X(drop_noroute, 0, "", "Dropped: rsvp toward a host without a route.")               \
	X(drop_port, 0, "", "Dropped: a port number without a configured port.")
#define DC_COSY_ALL_COUNTERS(X) DC_COSY_COUNTERS(X) DC_COSY_DROPS(X)

struct dc_cosy_stats {
	DC_COSY_COUNTERS(DC_CTR_FIELD)
	union {		/* the program counts by index (enum dc_cosy_drop) */
		__u64 drop[DC_COSY_D_MAX];
		struct {
			DC_COSY_DROPS(DC_CTR_FIELD)
		};
	};
};
_Static_assert(sizeof(struct dc_cosy_stats) ==
	       __builtin_offsetof(struct dc_cosy_stats, drop) + DC_COSY_D_MAX * sizeof(__u64),
	       "DC_COSY_DROPS has one entry per enum dc_cosy_drop");

#endif
