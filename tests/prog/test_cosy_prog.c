// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * BPF_PROG_TEST_RUN fixtures of the cosy switch program (bpf/cosy.bpf.c),
 * "Building a Partial Communication Synchrony Abstraction on Asynchronous
 * Datacenters" (Agarwal et al.): the fabric of Fig. 1a/1c — spines S1,
 * S2, leaves A (h1, h2), B (h3), C (h5) — as five loaded copies of the
 * program, each with its own maps, and every packet carried hop by hop by
 * hand.  Checked: the RSVP baseline (K = 1, here as mode rsvp with k 8)
 * blocks message 2 in the network at S1 and rejects to both ends (the
 * sender's copy captured on the wire, the receiver's freeing C's VL); K =
 * 2 admits both; data follows the labels to the receiver's slot; complete
 * clears every VL bit on both paths; a lost complete's VLs are taken over
 * after δ_cosy and its late complete frees nothing; the choice among
 * ports skips a full one; and a malformed-packet corpus (short, bad
 * version, bad type, bad VL, wrong port, stale, no route, not ours) is
 * passed or dropped by design with every port's reservation state
 * byte-for-byte unchanged.  Needs root; runs in a network namespace of its
 * own (lo only), so the clone the program sends leaves nothing behind.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "check.h"
#include "skelfix.h"
#include "dcbpf/cosy.h"
#include "cosy.skel.h"

#define TC_ACT_SHOT 2
#define TC_ACT_REDIRECT 7
#define L4 34			/* Ethernet + IPv4 without options */
#define OFF (L4 + 8)		/* cosy header */
#define PORTS 4

enum { S1, S2, A, B, C, NSW };
static const char *const swname[NSW] = { "S1", "S2", "A", "B", "C" };
static struct cosy_bpf *sw[NSW];

/* hosts */
#define H1 "10.0.0.1"
#define H2 "10.0.0.2"
#define H3 "10.0.1.3"
#define H5 "10.0.2.5"

struct frame {
	unsigned char b[512];
	__u32 len;
};

static __u16 csum16(const unsigned char *p, int n)
{
	__u32 s = 0;

	for (int i = 0; i < n; i += 2)
		s += (__u32)(p[i] << 8 | p[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (__u16)~s;
}

/* Ethernet + IPv4 + UDP (ports sport -> dport) + a cosy header + payload;
 * hdr_len cuts the header short. */
static void cosy_frame(struct frame *f, const char *src, const char *dst, __u16 sport, __u16 dport,
		       const struct dc_cosy_hdr *h, __u32 hdr_len, __u32 payload)
{
	unsigned char *ip = f->b + 14, *udp = f->b + L4;
	__u32 ulen = 8 + hdr_len + payload;
	__u16 c;

	memset(f->b, 0, sizeof(f->b));
	memcpy(f->b, "\x02\xee\x00\x00\x00\x02\x02\xee\x00\x00\x00\x01\x08\x00", 14);
	ip[0] = 0x45;
	ip[2] = (__u8)((20 + ulen) >> 8);
	ip[3] = (__u8)(20 + ulen);
	ip[6] = 0x40;
	ip[8] = 64;
	ip[9] = 17;
	inet_pton(AF_INET, src, ip + 12);
	inet_pton(AF_INET, dst, ip + 16);
	c = csum16(ip, 20);
	ip[10] = (__u8)(c >> 8);
	ip[11] = (__u8)c;
	udp[0] = (__u8)(sport >> 8);
	udp[1] = (__u8)sport;
	udp[2] = (__u8)(dport >> 8);
	udp[3] = (__u8)dport;
	udp[4] = (__u8)(ulen >> 8);
	udp[5] = (__u8)ulen;
	udp[6] = 0x12;	/* a checksum the program must clear when it rewrites */
	udp[7] = 0x34;
	if (hdr_len) {
		unsigned char raw[DC_COSY_HDR_LEN];

		dc_cosy_hdr_encode(raw, h);
		memcpy(f->b + OFF, raw, hdr_len < DC_COSY_HDR_LEN ? hdr_len : DC_COSY_HDR_LEN);
	}
	for (__u32 i = 0; i < payload; i++)
		f->b[OFF + hdr_len + i] = (__u8)(i * 7 + 1);
	f->len = 14 + 20 + ulen;
}

static void pkt(struct frame *f, const char *src, const char *dst, __u8 type, __u8 flags, __u8 vl, __u64 msg,
		__u32 seq)
{
	struct dc_cosy_hdr h = { .ver = DC_COSY_VERSION, .type = type, .flags = flags, .vl = vl, .seq = seq,
				 .msg_id = msg, .size_bytes = 64000 };

	cosy_frame(f, src, dst, 40000, DC_COSY_UDP_PORT, &h, DC_COSY_HDR_LEN, type == DC_COSY_T_DATA ? 100 : 0);
}

static struct dc_cosy_hdr hdr_of(const struct frame *f)
{
	struct dc_cosy_hdr h;

	dc_cosy_hdr_decode(f->b + OFF, &h);
	return h;
}

/* The port a frame was sent out of: its source MAC 02:00:00:<sw>:<port>:01. */
static int out_port(const struct frame *f)
{
	return f->b[6] == 2 && f->b[11] == 1 && f->b[10] < PORTS ? f->b[10] : -1;
}

static int run_at(int w, __u32 in_port, const struct frame *in, struct frame *out)
{
	__u32 lo = 1;
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in->b, .data_size_in = in->len, .data_out = out->b,
		    .data_size_out = sizeof(out->b));
	int err;

	bpf_map_update_elem(bpf_map__fd(sw[w]->maps.dc_cosy_ifport), &lo, &in_port, BPF_ANY);
	err = bpf_prog_test_run_opts(bpf_program__fd(sw[w]->progs.dc_cosy_ingress), &o);
	out->len = o.data_size_out;
	return err ? RUN_ERR + err : (int)o.retval;
}

static struct dc_cosy_port get_port(int w, __u32 p)
{
	struct dc_cosy_port v;

	memset(&v, 0, sizeof(v));
	bpf_map_lookup_elem(bpf_map__fd(sw[w]->maps.dc_cosy_port), &p, &v);
	return v;
}

static struct dc_cosy_stats stats(int w)
{
	struct dc_cosy_stats s;
	__u32 zero = 0;

	memset(&s, 0, sizeof(s));
	bpf_map_lookup_elem(bpf_map__fd(sw[w]->maps.dc_cosy_stats), &zero, &s);
	return s;
}

/* Reserved bits of every port of every switch. */
static int bits_all(void)
{
	int n = 0;

	for (int w = 0; w < NSW; w++)
		for (__u32 p = 0; p < PORTS; p++)
			n += __builtin_popcountll(get_port(w, p).vls.bitmap);
	return n;
}

static void route(int w, const char *host, const __u16 *ports, __u32 n)
{
	struct dc_cosy_route r;
	__u32 a;

	memset(&r, 0, sizeof(r));
	r.nports = n;
	for (__u32 i = 0; i < n; i++)
		r.port[i] = ports[i];
	inet_pton(AF_INET, host, &a);
	bpf_map_update_elem(bpf_map__fd(sw[w]->maps.dc_cosy_route), &a, &r, BPF_ANY);
}

/* Fresh state everywhere: K, mode, δ_cosy; every port on lo (ifindex 1:
 * redirects return TC_ACT_REDIRECT, the reject's clone goes out on lo). */
static void fabric(__u32 k, __u32 mode, __u64 expiry_ns)
{
	for (int w = 0; w < NSW; w++) {
		struct dc_cosy_cfg cfg = { .k = k, .mode = mode, .expiry_ns = expiry_ns, .switch_id = (__u16)(0x100 + w) };
		struct dc_cosy_stats zs;
		__u32 zero = 0;

		memset(&zs, 0, sizeof(zs));
		bpf_map_update_elem(bpf_map__fd(sw[w]->maps.dc_cosy_cfg), &zero, &cfg, BPF_ANY);
		bpf_map_update_elem(bpf_map__fd(sw[w]->maps.dc_cosy_stats), &zero, &zs, BPF_ANY);
		for (__u32 p = 0; p < PORTS; p++) {
			struct dc_cosy_port v;

			memset(&v, 0, sizeof(v));
			v.ifindex = 1;
			memcpy(v.mac, (__u8[]){ 2, 0, 0, (__u8)w, (__u8)p, 1 }, 6);
			memcpy(v.peer_mac, (__u8[]){ 2, 0, 0, (__u8)w, (__u8)p, 2 }, 6);
			bpf_map_update_elem(bpf_map__fd(sw[w]->maps.dc_cosy_port), &p, &v, BPF_ANY);
		}
	}
	/* Leaves: port 0 to S1, 1 to S2, 2 and 3 to hosts; spines: 0 A, 1 B, 2 C.
	 * B and C are pinned to S1 (Fig. 1a: the rsvps meet there). */
	route(B, H1, (__u16[]){ 0 }, 1);
	route(C, H2, (__u16[]){ 0 }, 1);
	route(S1, H1, (__u16[]){ 0 }, 1);
	route(S1, H2, (__u16[]){ 0 }, 1);
	route(A, H1, (__u16[]){ 2 }, 1);
	route(A, H2, (__u16[]){ 3 }, 1);
}

struct hop {
	int w;
	__u32 in;	/* arrival port */
	int out;	/* expected departure port */
};

/* Carry a packet along hops; each must be redirected out of the expected
 * port.  *vl: the label it starts with, then the one it ends with. */
static int carry(struct frame *f, const struct hop *h, int n, __u8 *vl)
{
	struct frame out;

	for (int i = 0; i < n; i++) {
		int rc = run_at(h[i].w, h[i].in, f, &out);

		if (rc != TC_ACT_REDIRECT || out_port(&out) != h[i].out)
			return -(i + 1);
		*f = out;
	}
	*vl = f->b[OFF + 3];
	return 0;
}

/* Message 1, h1 -> h3: rsvp h3 -> B -> S1 -> A -> h1; data and complete back. */
static const struct hop m1_rsvp[] = { { B, 2, 0 }, { S1, 1, 0 }, { A, 0, 2 } };
static const struct hop m1_data[] = { { A, 2, 0 }, { S1, 0, 1 }, { B, 0, 2 } };
/* Message 2, h2 -> h5: rsvp h5 -> C -> S1 -> A -> h2. */
static const struct hop m2_rsvp[] = { { C, 2, 0 }, { S1, 2, 0 }, { A, 0, 3 } };
static const struct hop m2_data[] = { { A, 3, 0 }, { S1, 0, 2 }, { C, 0, 2 } };

static int packet_sock = -1;

/* The reject's sender-bound clone, as lo saw it go out; 0 if none. */
static int sniff_reject(struct frame *f)
{
	for (int tries = 0; tries < 64; tries++) {
		ssize_t n = recv(packet_sock, f->b, sizeof(f->b), MSG_DONTWAIT);

		if (n < 0)
			return 0;
		f->len = (__u32)n;
		if (n >= OFF + DC_COSY_HDR_LEN && f->b[OFF + 1] == DC_COSY_T_REJECT)
			return 1;
	}
	return 0;
}

static void drain(void)
{
	struct frame f;

	while (recv(packet_sock, f.b, sizeof(f.b), MSG_DONTWAIT) > 0)
		;
}

static void test_admission(__u32 k, __u32 mode)
{
	const char *mn = mode == DC_COSY_MODE_RSVP ? "rsvp mode (k 8)" : "K=2";
	struct frame f, out, snd;
	struct dc_cosy_hdr h;
	char name[160];
	__u8 vl, m1_slot, m2_slot;
	int rc;

	fabric(k, mode, 10ULL * 1000 * 1000 * 1000);
	pkt(&f, H3, H1, DC_COSY_T_RSVP, 0, 0, 1, 111);
	rc = carry(&f, m1_rsvp, 3, &m1_slot);
	snprintf(name, sizeof(name), "%s: message 1's rsvp reserves B:0, S1:0, A:2 and reaches h1", mn);
	CHECK(name, rc == 0 && bits_all() == 3 && get_port(B, 0).vls.bitmap && get_port(S1, 0).vls.bitmap &&
	      get_port(A, 2).vls.bitmap, "rc %d bits %d", rc, bits_all());
	h = hdr_of(&f);
	snprintf(name, sizeof(name), "%s: the rsvp counts 3 switches, UDP checksum cleared, dst h1", mn);
	CHECK(name, h.hops == 3 && !f.b[L4 + 6] && !f.b[L4 + 7] && !memcmp(f.b + 30, "\x0a\x00\x00\x01", 4),
	      "hops %u", h.hops);
	snprintf(name, sizeof(name), "%s: S1 maps its VL to (port B, B's VL)", mn);
	{
		struct dc_cosy_port s1 = get_port(S1, 0), b0 = get_port(B, 0);
		__u32 v = (__u32)__builtin_ctzll(s1.vls.bitmap), vb = (__u32)__builtin_ctzll(b0.vls.bitmap);

		CHECK(name, s1.vls.vl[v].out_port == 1 && s1.vls.vl[v].out_vl == vb && s1.vls.vl[v].msg_id == 1 &&
		      s1.vls.vl[v].seq == 111 && b0.vls.vl[vb].out_port == 2 && b0.vls.vl[vb].out_vl == 0,
		      "out %u/%u", s1.vls.vl[v].out_port, s1.vls.vl[v].out_vl);
	}

	/* Message 2's rsvp from h5 (slot 1; the RSVP baseline has one). */
	drain();
	pkt(&f, H5, H2, DC_COSY_T_RSVP, 0, mode == DC_COSY_MODE_RSVP ? 0 : 1, 2, 222);
	rc = carry(&f, m2_rsvp, 1, &vl);		/* C */
	if (mode == DC_COSY_MODE_RSVP) {
		rc = rc ? rc : run_at(S1, 2, &f, &out);
		h = hdr_of(&out);
		snprintf(name, sizeof(name), "%s: S1 has no VL to A: reject back out of port C (blocking in the network)",
			 mn);
		CHECK(name, rc == TC_ACT_REDIRECT && out_port(&out) == 2 && h.type == DC_COSY_T_REJECT &&
		      (h.flags & DC_COSY_F_RELEASE) && h.reason == DC_COSY_R_NO_VL && h.switch_id == 0x100 &&
		      h.vl == vl && h.msg_id == 2 && h.seq == 222,
		      "rc %d port %d type %u flags %u reason %u sw %x vl %u/%u", rc, out_port(&out), h.type, h.flags,
		      h.reason, h.switch_id, h.vl, vl);
		snprintf(name, sizeof(name), "%s: the receiver-bound reject is addressed to h5", mn);
		CHECK(name, !memcmp(out.b + 30, "\x0a\x00\x02\x05", 4) && !memcmp(out.b + 26, "\x0a\x00\x00\x02", 4) &&
		      out.b[L4 + 2] == 40000 >> 8, "dst %u.%u.%u.%u", out.b[30], out.b[31], out.b[32], out.b[33]);
		rc = sniff_reject(&snd);
		h = hdr_of(&snd);
		snprintf(name, sizeof(name), "%s: the sender's copy went out toward A, to h2, releasing nothing", mn);
		CHECK(name, rc && out_port(&snd) == 0 && h.type == DC_COSY_T_REJECT && !(h.flags & DC_COSY_F_RELEASE) &&
		      !memcmp(snd.b + 30, "\x0a\x00\x00\x02", 4) && stats(S1).rejects_to_sender == 1 &&
		      stats(S1).rejects_made == 1, "seen %d port %d flags %u to_sender %llu", rc, out_port(&snd),
		      h.flags, (unsigned long long)stats(S1).rejects_to_sender);
		snprintf(name, sizeof(name), "%s: the path via S2 was free all along", mn);
		CHECK_EQ(name, get_port(C, 1).vls.bitmap, 0);
		f = out;
		rc = carry(&f, (const struct hop[]){ { C, 0, 2 } }, 1, &vl);
		snprintf(name, sizeof(name), "%s: the reject frees C's VL and reaches h5 on its slot", mn);
		CHECK(name, rc == 0 && vl == 0 && get_port(C, 0).vls.bitmap == 0 && bits_all() == 3 &&
		      get_port(C, 0).ctr.released == 1, "rc %d vl %u C0 %llx", rc, vl,
		      (unsigned long long)get_port(C, 0).vls.bitmap);
	} else {
		rc = rc ? rc : carry(&f, m2_rsvp + 1, 2, &m2_slot);
		snprintf(name, sizeof(name), "%s: message 2 admitted: S1 holds two VLs toward A", mn);
		CHECK(name, rc == 0 && __builtin_popcountll(get_port(S1, 0).vls.bitmap) == 2 && bits_all() == 6 &&
		      stats(S1).rejects_made == 0, "rc %d bits %d", rc, bits_all());
		/* data of message 2 from h2, then its complete */
		pkt(&f, H2, H5, DC_COSY_T_DATA, 0, m2_slot, 2, 222);
		rc = carry(&f, m2_data, 3, &vl);
		snprintf(name, sizeof(name), "%s: message 2's data reaches h5 on its slot, payload intact", mn);
		CHECK(name, rc == 0 && vl == 1 && f.len == 14 + 20 + 8 + 24 + 100 && f.b[OFF + 24 + 99] == (__u8)(99 * 7 + 1) &&
		      stats(S1).data == 1 && get_port(S1, 2).ctr.fwd_data == 1, "rc %d vl %u", rc, vl);
		snprintf(name, sizeof(name), "%s: data frees nothing", mn);
		CHECK_EQ(name, bits_all(), 6);
		pkt(&f, H2, H5, DC_COSY_T_COMPLETE, DC_COSY_F_RELEASE, m2_slot, 2, 222);
		rc = carry(&f, m2_data, 3, &vl);
		snprintf(name, sizeof(name), "%s: complete of message 2 clears its 3 VLs", mn);
		CHECK(name, rc == 0 && bits_all() == 3, "rc %d bits %d", rc, bits_all());
	}
	/* Message 1: data h1 -> h3, then complete. */
	pkt(&f, H1, H3, DC_COSY_T_DATA, 0, m1_slot, 1, 111);
	rc = carry(&f, m1_data, 3, &vl);
	snprintf(name, sizeof(name), "%s: message 1's data follows the labels to h3's slot 0", mn);
	CHECK(name, rc == 0 && vl == 0 && !memcmp(f.b + 30, "\x0a\x00\x01\x03", 4), "rc %d vl %u", rc, vl);
	pkt(&f, H1, H3, DC_COSY_T_COMPLETE, DC_COSY_F_RELEASE, m1_slot, 1, 111);
	rc = carry(&f, m1_data, 3, &vl);
	snprintf(name, sizeof(name), "%s: complete of message 1 clears every VL bit on both paths", mn);
	CHECK(name, rc == 0 && bits_all() == 0, "rc %d bits %d", rc, bits_all());
	pkt(&f, H1, H3, DC_COSY_T_COMPLETE, DC_COSY_F_RELEASE, m1_slot, 1, 111);
	rc = run_at(A, 2, &f, &out);
	snprintf(name, sizeof(name), "%s: a second complete is dropped (nothing to free)", mn);
	CHECK(name, rc == TC_ACT_SHOT && stats(A).drop[DC_COSY_D_FREE] == 1, "rc %d", rc);
}

/* A lost complete: VLs taken over after δ_cosy; its late complete frees nothing. */
static void test_expiry(void)
{
	const __u64 life_ns = 30ULL * 1000 * 1000;
	struct timespec ts = { 0, 40 * 1000 * 1000 };
	struct frame f;
	__u8 slot, vl;
	int rc;

	fabric(1, DC_COSY_MODE_COSY, life_ns);
	pkt(&f, H3, H1, DC_COSY_T_RSVP, 0, 0, 3, 333);
	rc = carry(&f, m1_rsvp, 3, &slot);
	CHECK("expiry: message 3 holds B, S1, A (its complete will be lost)", rc == 0 && bits_all() == 3, "rc %d", rc);
	pkt(&f, H5, H2, DC_COSY_T_RSVP, 0, 0, 4, 444);
	rc = carry(&f, m2_rsvp, 3, &vl);
	CHECK("expiry: before δ_cosy message 4 is rejected at S1", rc == -2 && stats(S1).rejects_made == 1, "rc %d", rc);
	nanosleep(&ts, NULL);
	pkt(&f, H5, H2, DC_COSY_T_RSVP, 0, 0, 4, 445);
	rc = carry(&f, m2_rsvp, 3, &vl);
	CHECK("expiry: after δ_cosy message 4 takes S1's expired VL to A",
	      rc == 0 && get_port(S1, 0).vls.vl[0].msg_id == 4 && get_port(S1, 0).ctr.reclaimed == 1 &&
	      get_port(A, 3).ctr.reclaimed == 0 && get_port(A, 3).ctr.reserved == 1, "rc %d", rc);
	pkt(&f, H1, H3, DC_COSY_T_COMPLETE, DC_COSY_F_RELEASE, slot, 3, 333);
	rc = carry(&f, m1_data, 1, &vl);
	CHECK("expiry: message 3's late complete is dropped at A (its VL expired)",
	      rc == -1 && stats(A).drop[DC_COSY_D_FREE] == 1, "rc %d", rc);
	pkt(&f, H1, H3, DC_COSY_T_COMPLETE, DC_COSY_F_RELEASE, 0, 3, 333);
	rc = carry(&f, (const struct hop[]){ { S1, 0, 1 } }, 1, &vl);
	CHECK("expiry: ... and at S1 it cannot free message 4's VL",
	      rc == -1 && stats(S1).drop[DC_COSY_D_OWNER] == 1 && get_port(S1, 0).vls.vl[0].msg_id == 4 &&
	      get_port(S1, 0).vls.bitmap == 1, "rc %d", rc);
}

/* Among candidate ports, a full one is passed over; both full: reject. */
static void test_choice(void)
{
	struct frame f, out;
	int first, second, rc;

	fabric(1, DC_COSY_MODE_COSY, 10ULL * 1000 * 1000 * 1000);
	route(B, H1, (__u16[]){ 0, 1 }, 2);
	pkt(&f, H3, H1, DC_COSY_T_RSVP, 0, 0, 5, 1);
	rc = run_at(B, 2, &f, &out);
	first = rc == TC_ACT_REDIRECT ? out_port(&out) : -1;
	pkt(&f, H3, H1, DC_COSY_T_RSVP, 0, 0, 6, 1);
	rc = run_at(B, 3, &f, &out);
	second = rc == TC_ACT_REDIRECT ? out_port(&out) : -1;
	CHECK("choice: two rsvps at K 1 take both uplinks", (first == 0 && second == 1) || (first == 1 && second == 0),
	      "first %d second %d", first, second);
	pkt(&f, H3, H1, DC_COSY_T_RSVP, 0, 0, 7, 1);
	rc = run_at(B, 2, &f, &out);
	CHECK("choice: the third finds both full and is rejected",
	      rc == TC_ACT_REDIRECT && hdr_of(&out).type == DC_COSY_T_REJECT && out_port(&out) == 2, "rc %d", rc);
}

/* ---- malformed packets ---------------------------------------------------- */
struct snap {
	struct dc_cosy_port p[PORTS];
};

static void snap(int w, struct snap *s)
{
	for (__u32 p = 0; p < PORTS; p++)
		s->p[p] = get_port(w, p);
}

static void test_malformed(void)
{
	struct frame f, out;
	struct snap before[NSW], after;
	struct dc_cosy_hdr h;
	__u8 slot, m2_slot;
	__u32 lo = 1;
	char name[160];
	int rc;

	/* K = 2, message 1 and message 2 both holding VLs. */
	fabric(2, DC_COSY_MODE_COSY, 10ULL * 1000 * 1000 * 1000);
	pkt(&f, H3, H1, DC_COSY_T_RSVP, 0, 0, 1, 111);
	rc = carry(&f, m1_rsvp, 3, &slot);
	pkt(&f, H5, H2, DC_COSY_T_RSVP, 0, 1, 2, 222);
	rc |= carry(&f, m2_rsvp, 3, &m2_slot);
	CHECK("corpus: two reservations to guard", rc == 0 && bits_all() == 6, "rc %d", rc);
	for (int w = 0; w < NSW; w++)
		snap(w, &before[w]);

	struct mcase {
		const char *what;
		int w;
		__u32 in;
		int want;		/* retval */
		int reason;		/* drop reason, -1: passed */
	} cs[] = {
		{ "short: 10 of the 24 header bytes", S1, 0, TC_ACT_SHOT, DC_COSY_D_SHORT },
		{ "bad version", S1, 0, TC_ACT_SHOT, DC_COSY_D_VERSION },
		{ "type 0", S1, 0, TC_ACT_SHOT, DC_COSY_D_TYPE },
		{ "type 7", S1, 0, TC_ACT_SHOT, DC_COSY_D_TYPE },
		{ "type 255", S1, 0, TC_ACT_SHOT, DC_COSY_D_TYPE },
		{ "data, vl = K", S1, 0, TC_ACT_SHOT, DC_COSY_D_VL },
		{ "complete, vl 255", S1, 0, TC_ACT_SHOT, DC_COSY_D_VL },
		{ "rsvp, vl = K", C, 2, TC_ACT_SHOT, DC_COSY_D_VL },
		{ "complete on the wrong port (S1 port B: free VL)", S1, 1, TC_ACT_SHOT, DC_COSY_D_FREE },
		{ "complete with message 1's ids on message 2's VL", S1, 0, TC_ACT_SHOT, DC_COSY_D_OWNER },
		{ "data with a wrong sequence number", S1, 0, TC_ACT_SHOT, DC_COSY_D_OWNER },
		{ "reject (release) from a stranger", A, 2, TC_ACT_SHOT, DC_COSY_D_OWNER },
		{ "rsvp toward a host with no route", S1, 1, TC_ACT_SHOT, DC_COSY_D_NOROUTE },
		{ "request: routed by the kernel", S1, 0, TC_NEXT, -1 },
		{ "failure: routed by the kernel", S1, 0, TC_NEXT, -1 },
		{ "complete without release: routed", S1, 0, TC_NEXT, -1 },
		{ "UDP to another port: not cosy", S1, 0, TC_NEXT, -2 },
		{ "a fragment: not read", S1, 0, TC_NEXT, -2 },
		{ "a frame cut inside its UDP header: not read", S1, 0, TC_NEXT, -2 },
		{ "cosy on an unconfigured interface", S1, 0, TC_NEXT, -2 },
	};
	__u32 v1 = before[S1].p[0].vls.vl[0].msg_id == 1 ? 0 : 1;	/* message 1's VL at S1 */
	__u32 v2 = v1 ^ 1;						/* message 2's */

	for (unsigned int i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		struct dc_cosy_stats s0 = stats(cs[i].w), s1;
		bool unconf = false;

		switch (i) {
		case 0:
			h = (struct dc_cosy_hdr){ .ver = 1, .type = DC_COSY_T_DATA, .vl = (__u8)v1, .msg_id = 1, .seq = 111 };
			cosy_frame(&f, H1, H3, 40000, DC_COSY_UDP_PORT, &h, 10, 0);
			break;
		case 1:
			pkt(&f, H1, H3, DC_COSY_T_DATA, 0, (__u8)v1, 1, 111);
			f.b[OFF] = 2;
			break;
		case 2: case 3: case 4:
			pkt(&f, H1, H3, i == 2 ? 0 : i == 3 ? 7 : 255, DC_COSY_F_RELEASE, (__u8)v1, 1, 111);
			break;
		case 5:
			pkt(&f, H1, H3, DC_COSY_T_DATA, 0, 2, 1, 111);
			break;
		case 6:
			pkt(&f, H1, H3, DC_COSY_T_COMPLETE, DC_COSY_F_RELEASE, 255, 1, 111);
			break;
		case 7:
			pkt(&f, H5, H2, DC_COSY_T_RSVP, 0, 2, 9, 999);
			break;
		case 8:
			pkt(&f, H1, H3, DC_COSY_T_COMPLETE, DC_COSY_F_RELEASE, (__u8)v1, 1, 111);
			break;
		case 9:
			pkt(&f, H1, H3, DC_COSY_T_COMPLETE, DC_COSY_F_RELEASE, (__u8)v2, 1, 111);
			break;
		case 10:
			pkt(&f, H1, H3, DC_COSY_T_DATA, 0, (__u8)v1, 1, 112);
			break;
		case 11:
			pkt(&f, H1, H3, DC_COSY_T_REJECT, DC_COSY_F_RELEASE, slot, 77, 111);
			break;
		case 12:
			pkt(&f, H3, "10.9.9.9", DC_COSY_T_RSVP, 0, 0, 9, 999);
			break;
		case 13: case 14: case 15:
			pkt(&f, H1, H3, i == 13 ? DC_COSY_T_REQUEST : i == 14 ? DC_COSY_T_FAILURE : DC_COSY_T_COMPLETE, 0,
			    (__u8)v1, 1, 111);
			break;
		case 16:
			pkt(&f, H1, H3, DC_COSY_T_COMPLETE, DC_COSY_F_RELEASE, (__u8)v1, 1, 111);
			f.b[L4 + 2] = 0x12;
			f.b[L4 + 3] = 0x34;
			break;
		case 17:
			pkt(&f, H1, H3, DC_COSY_T_COMPLETE, DC_COSY_F_RELEASE, (__u8)v1, 1, 111);
			f.b[20] = 0x20;	/* more fragments */
			break;
		case 18:
			pkt(&f, H1, H3, DC_COSY_T_COMPLETE, DC_COSY_F_RELEASE, (__u8)v1, 1, 111);
			f.len = 14 + 20 + 6;
			break;
		case 19:
			pkt(&f, H1, H3, DC_COSY_T_COMPLETE, DC_COSY_F_RELEASE, (__u8)v1, 1, 111);
			unconf = true;
			break;
		}
		if (unconf) {
			LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f.b, .data_size_in = f.len, .data_out = out.b,
				    .data_size_out = sizeof(out.b));

			bpf_map_delete_elem(bpf_map__fd(sw[cs[i].w]->maps.dc_cosy_ifport), &lo);
			rc = bpf_prog_test_run_opts(bpf_program__fd(sw[cs[i].w]->progs.dc_cosy_ingress), &o);
			rc = rc ? RUN_ERR + rc : (int)o.retval;
			out.len = o.data_size_out;
		} else {
			rc = run_at(cs[i].w, cs[i].in, &f, &out);
		}
		s1 = stats(cs[i].w);
		snprintf(name, sizeof(name), "corpus: %s: %s", cs[i].what, cs[i].want == TC_ACT_SHOT ? "dropped" : "passed");
		if (cs[i].reason >= 0)
			CHECK(name, rc == TC_ACT_SHOT && s1.drop[cs[i].reason] == s0.drop[cs[i].reason] + 1, "rc %d", rc);
		else
			CHECK(name, rc == TC_NEXT && out.len == f.len && (cs[i].reason == -2 || !memcmp(out.b, f.b, f.len)) &&
			      s1.passed == s0.passed + (cs[i].reason == -1), "rc %d len %u/%u passed %llu", rc, out.len,
			      f.len, (unsigned long long)s1.passed);
		if (cs[i].reason == -2) {
			snprintf(name, sizeof(name), "corpus: %s: frame untouched, not counted", cs[i].what);
			CHECK(name, !memcmp(out.b, f.b, f.len) && s1.pkts == s0.pkts, "pkts %llu -> %llu",
			      (unsigned long long)s0.pkts, (unsigned long long)s1.pkts);
		}
		snprintf(name, sizeof(name), "corpus: %s: every port's reservations unchanged", cs[i].what);
		snap(cs[i].w, &after);
		CHECK(name, !memcmp(&after, &before[cs[i].w], sizeof(after)), "%s changed", swname[cs[i].w]);
	}
	{
		int same = 1;

		for (int w = 0; w < NSW; w++) {
			snap(w, &after);
			same &= !memcmp(&after, &before[w], sizeof(after));
		}
		CHECK("corpus: no switch's state changed", same, "changed");
	}
	/* ... and the guarded reservations still work. */
	pkt(&f, H1, H3, DC_COSY_T_COMPLETE, DC_COSY_F_RELEASE, slot, 1, 111);
	rc = carry(&f, m1_data, 3, &slot);
	pkt(&f, H2, H5, DC_COSY_T_COMPLETE, DC_COSY_F_RELEASE, m2_slot, 2, 222);
	rc |= carry(&f, m2_data, 3, &m2_slot);
	CHECK("corpus: afterwards both completes clear everything", rc == 0 && bits_all() == 0, "rc %d bits %d", rc,
	      bits_all());
}

/* Our own network namespace with lo up: the reject's clone goes out there
 * and a packet socket sees it. */
static int private_net(void)
{
	struct ifreq ifr;
	struct sockaddr_ll sll;
	int fd;

	if (unshare(CLONE_NEWNET))
		return -1;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr))
		return -1;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr))
		return -1;
	close(fd);
	packet_sock = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (packet_sock < 0)
		return -1;
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = 1;
	return bind(packet_sock, (struct sockaddr *)&sll, sizeof(sll));
}

int main(void)
{
	DC_TEST_NEED_ROOT("cosy prog");
	if (private_net()) {
		printf("FAIL: cosy prog: a network namespace of its own with lo up: %s\n", strerror(errno));
		return 1;
	}
	for (int w = 0; w < NSW; w++) {
		sw[w] = DC_SKEL_OPEN_LOAD(cosy_bpf);
		if (!sw[w]) {
			printf("FAIL: cosy prog: switch %s opens and loads: %s\n", swname[w], strerror(errno));
			return 1;
		}
	}
	test_admission(8, DC_COSY_MODE_RSVP);
	test_admission(2, DC_COSY_MODE_COSY);
	test_expiry();
	test_choice();
	test_malformed();
	for (int w = 0; w < NSW; w++)
		cosy_bpf__destroy(sw[w]);
	close(packet_sock);
	return check_failed;
}
