// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One emulated switch: buffer admission in XDP and the queue tracker that
 * keeps the shared-buffer state equal to the real qdisc backlog.  Loaded
 * once per switch by `dcbpf switch up` with dc_netns_ino set to the
 * switch's namespace, maps pinned under <pin_dir>/sw/<name>/.
 *
 * Thin by design: parse, find the egress port, call the admission core in
 * include/dcbpf/admit.h, act, count.  Credence and FollowLQD take the
 * global function dc_cred_path (virtual LQD of include/dcbpf/vlqd.h, the
 * forest of bpf/lib/forest.h).  docs/admission.md explains the choices
 * (XDP mode, atomics, ABM period, Credence's drain rule and races).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>

#include "dcbpf/admit.h"
#include "dcbpf/int.h"
#include "dcbpf/resqueue.h"
#include "dcbpf/sonic.h"
#include "maps/switch.h"
#include "lib/count.h"

/* dc_vlqd_sync as a bpf_loop over the ports (vlqd.h calls it through
 * DC_VLQD_SYNC): one verified iteration instead of sixteen that fork. */
struct dc_sync_ctx {
	struct dc_sw_cred *c;
	__u64 now, g;
	__u32 mode;
};

static long dc_sync_port(__u32 j, void *data);

#define DC_VLQD_SYNC(c, now, mode)                                              \
	do {                                                                    \
		struct dc_sync_ctx sx = { .c = (c), .now = (now), .mode = (mode) }; \
		bpf_loop(DC_SW_PORTS_MAX, dc_sync_port, &sx, 0);                \
		(c)->gamma_bytes = sx.g;                                        \
	} while (0)

#include "dcbpf/vlqd.h"
#include "bpf/lib/forest.h"

static long dc_sync_port(__u32 j, void *data)
{
	struct dc_sync_ctx *x = data;
	struct dc_sw_cred *c = x->c;
	struct dc_sw_port *p;
	__u64 tx = 0, q = 0;
	__u32 key = j;

	if (!c)
		return 1;
	j &= DC_SW_PORTS_MAX - 1;
	/* the time rule needs no port record: skip the lookup.  A copy as
	 * the key: j itself on the stack would lose its bound. */
	if (x->mode != DC_DRAIN_TIME) {
		p = bpf_map_lookup_elem(&dc_sw_port, &key);
		if (p) {
			tx = p->tx_bytes;
			q = p->qlen_bytes;
		}
	}
	dc_vlqd_drain(c, j, x->now, x->mode, tx, q);
	x->g += c->T_bytes[j];
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* The switch's network namespace (inode), set by the loader: the qdisc
 * tracepoints fire for every qdisc of every namespace. */
const volatile __u32 dc_netns_ino = 0;

#define ETH_P_IP 0x0800
#define ETH_P_IPV6 0x86DD
#define AF_INET 2
#define AF_INET6 10
#define TC_H_ROOT 0xFFFFFFFFU
#define IP_ECN_MASK 0x03
#define IP_ECN_CE 0x03

static __always_inline void dc_count_other(void)
{
	__u32 k = DC_SW_CNT_OTHER;

	DC_CTR_ADD(dc_sw_cnt, bpf_map_lookup_elem(&dc_sw_cnt, &k), other_pkts, 1);
}

/* Set CE on an ECN-capable IPv4 packet, checksum updated (RFC 1624). */
static __always_inline bool dc_mark_ce(struct iphdr *iph)
{
	__u16 old, new;
	__u32 sum;

	if (!(iph->tos & IP_ECN_MASK) || (iph->tos & IP_ECN_MASK) == IP_ECN_CE)
		return false;
	old = bpf_htons(((__u16)(*(__u8 *)iph) << 8) | iph->tos);
	iph->tos |= IP_ECN_CE;
	new = bpf_htons(((__u16)(*(__u8 *)iph) << 8) | iph->tos);
	sum = (__u16)~iph->check;
	sum += (__u16)~old;
	sum += new;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	iph->check = (__u16)~sum;
	return true;
}

/*
 * A backlog the tracker has not refreshed for DC_SW_STALE_NS while it
 * claims packets are queued is stale: a tracing program is skipped when
 * another one is already running on the CPU (recursion_misses in bpftool
 * prog show), so the port's last dequeue can go unseen, and a stale
 * backlog above the threshold would drop every packet — and with no
 * admitted packet there is no enqueue event to correct it.  The port has
 * drained at least rate · age since then: take that off q and Q.
 */
static __always_inline void dc_stale_fix(const struct dc_sw_port *port, struct dc_adm_in *in,
					 __u64 now)
{
	__u64 age, gone;

	if (!in->q || now <= port->last_ns + DC_SW_STALE_NS)
		return;
	age = now - port->last_ns;
	gone = dc_min_u64(dc_bytes_in_ns(port->rate_mbps, age), in->q);
	in->q -= gone;
	in->Q = in->Q > gone ? in->Q - gone : 0;
}

/*
 * A leaf that steers by Ethereal path tag (bpf/eth_leaf.bpf.c, at TC
 * ingress: after this program) sends a tagged packet up the tag's uplink,
 * not the one the FIB picks; the queue that packet joins — and is marked
 * and admitted against — is that uplink's.  tag_port (sw.NAME.tag_port.T)
 * says which port tag T steers to.  Only a packet the FIB sends up one of
 * those uplinks is moved: traffic towards the leaf's own hosts carries
 * the tag too (INT keeps it) and goes down.  An uplink the steering finds
 * down falls back to routing there; here it keeps the tag's port.
 */
static __always_inline __u32 dc_tag_port(__u32 tag, __u32 fib_port)
{
	const struct dc_sw_meta *meta;
	const struct dc_sw_cfg *cfg;
	__u32 zero = 0, d, j, tp;

	meta = bpf_map_lookup_elem(&dc_sw_meta, &zero);
	if (!meta)
		return fib_port;
	d = meta->cfg_slot & 1;
	cfg = bpf_map_lookup_elem(&dc_sw_cfg, &d);
	if (!cfg)
		return fib_port;
	tp = cfg->tag_port[tag & (DC_SW_TAGS - 1)];
	if (!tp)
		return fib_port;
	for (j = 1; j < DC_SW_TAGS; j++)
		if (cfg->tag_port[j] == fib_port + 1)
			return tp - 1;
	return fib_port;
}

/*
 * Egress port of a destination from the kernel's FIB, remembered in
 * dc_sw_route for DC_SW_ROUTE_TTL_NS (a route change reaches admission
 * accounting within that time; forwarding itself is always the kernel's).
 * Returns -1 when the FIB has no forwarding answer (not cached: such
 * packets are rare and the answer may appear).
 */
static __noinline int dc_route(struct xdp_md *ctx, struct iphdr *iph, struct ipv6hdr *ip6,
			       struct dc_sw_route_key *rk, struct dc_sw_route *out)
{
	struct bpf_fib_lookup fib = {};
	__u32 *pid, ifindex;
	int rc;

	if (iph) {
		fib.family = AF_INET;
		fib.tos = iph->tos;
		fib.l4_protocol = iph->protocol;
		fib.ipv4_src = iph->saddr;
		fib.ipv4_dst = iph->daddr;
	} else if (ip6) {
		fib.family = AF_INET6;
		fib.l4_protocol = ip6->nexthdr;
		__builtin_memcpy(fib.ipv6_src, &ip6->saddr, sizeof(fib.ipv6_src));
		__builtin_memcpy(fib.ipv6_dst, &ip6->daddr, sizeof(fib.ipv6_dst));
	} else {
		return -1;
	}
	fib.ifindex = ctx->ingress_ifindex;
	/* tot_len stays 0: generic XDP sees GRO/GSO packets far above the
	 * MTU, and with a length the lookup stops at FRAG_NEEDED before it
	 * names the egress device.  DIRECT: the main table only (the fabric
	 * has no policy rules), the cheaper lookup.  NO_NEIGH still names
	 * the egress device. */
	rc = bpf_fib_lookup(ctx, &fib, sizeof(fib), BPF_FIB_LOOKUP_DIRECT);
	if (rc != BPF_FIB_LKUP_RET_SUCCESS && rc != BPF_FIB_LKUP_RET_NO_NEIGH)
		return -1;
	ifindex = fib.ifindex;
	pid = bpf_map_lookup_elem(&dc_sw_ifport, &ifindex);
	out->port_id = pid ? *pid : DC_SW_PORT_NONE;
	if (rk->daddr[0] && out->port_id != DC_SW_PORT_NONE)
		out->port_id = dc_tag_port(rk->daddr[0], out->port_id);
	out->ifindex = ifindex;
	out->expires_ns = bpf_ktime_get_coarse_ns() + DC_SW_ROUTE_TTL_NS;
	bpf_map_update_elem(&dc_sw_route, rk, out, BPF_ANY);
	return 0;
}

#include "lib/sw_cred.h"
#include "lib/sw_sly.h"
#include "lib/sw_rv.h"

/* dscp's bit above the six of the DSCP: Slytherin's high queue (read
 * when dc_sw_cfg.prio_mode says so; no room in the frame for another
 * variable). */
#define DC_SLY_DSCP_HIGH 0x40

/* One record to dc_sw_events; counted in ev_lost when the ring is full
 * (no reader keeping up). */
static __always_inline void dc_emit(struct dc_sw_counters *cnt, __u64 now, __u32 pid, __u32 prio,
				    __u32 len, const struct dc_adm_in *in, __u64 thresh,
				    const struct dc_cred_io *o, enum dc_verdict v, __u32 alg,
				    __u8 flags)
{
	struct dc_sw_event *e = bpf_ringbuf_reserve(&dc_sw_events, sizeof(*e), 0);

	if (!e) {
		DC_CTR_ADD(dc_sw_cnt, cnt, ev_lost, 1);
		return;
	}
	e->time_ns = now;
	e->thresh_bytes = thresh;
	e->len = len;
	e->q_bytes = dc_rf_feat(in->q);
	e->occ_bytes = dc_rf_feat(in->Q);
	e->q_ewma_bytes = o->x[DC_RF_F_QLEN_EWMA];
	e->occ_ewma_bytes = o->x[DC_RF_F_OCC_EWMA];
	e->port = (__u16)pid;
	e->prio = (__u8)prio;
	e->verdict = (__u8)v;
	e->flags = flags;
	e->alg = (__u8)alg;
	__builtin_memset(e->pad, 0, sizeof(e->pad));
	bpf_ringbuf_submit(e, 0);
}

/*
 * Attached at: XDP on every port of the switch (generic mode by default,
 * docs/admission.md says why), via a pinned XDP link.
 * Runs when: a frame arrives on a switch port, before the kernel forwards
 * it.  Finds the egress port with the kernel's FIB and the priority from
 * DSCP, decides with the configured algorithm, passes or drops.  Frames
 * that are not IP, malformed, unroutable or not leaving through a switch
 * port pass untouched.
 *
 * Multi-buffer ("xdp.frags", BPF_F_XDP_HAS_FRAGS, 5.18): native XDP on a
 * veth refuses a peer MTU above about 3.5 kB to a program without it, so
 * a jumbo-frame fabric needs it.  data..data_end is then only the first
 * buffer: every header read below is bounds-checked against it, so a
 * frame whose Ethernet + IP header is not all in the first buffer is
 * "other" (passed untouched, counted).  Admission and the counters take
 * the whole frame (bpf_xdp_get_buff_len), as the qdisc counts it; for a
 * single-buffer frame that is data_end - data, as before.
 */
SEC("xdp.frags")
int dc_sw_admit(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct dc_sw_route_key rk = {};
	struct dc_sw_route nrt, *rt;
	struct ethhdr *eth = data;
	struct iphdr *iph = NULL;
	struct ipv6hdr *ip6 = NULL;
	const struct dc_sw_meta *meta;
	const struct dc_sw_cfg *cfg;
	struct dc_sw_port *port;
	const struct dc_sw_state *st;
	struct dc_sw_counters *cnt;
	struct dc_cred_io co = {};
	struct dc_adm_in in;
	__u32 zero = 0, key, prio, d, alg, pid, every;
	enum dc_verdict v;
	__u64 thresh, now;
	__u8 dscp, evf = 0;
	bool first_rtt, cred;

	/* Called first, while only ctx is live: a helper call further down
	 * would spill registers, and this frame has no bytes to spare under
	 * 6.1's 512-byte limit for the call chain. */
	in.len = (__u32)bpf_xdp_get_buff_len(ctx);
	if ((void *)(eth + 1) > data_end)
		goto other;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		iph = (void *)(eth + 1);
		if ((void *)(iph + 1) > data_end || iph->ihl < 5 || iph->version != 4)
			goto other;
		dscp = iph->tos >> 2;
		if (dc_sly_xdp4(iph, data_end))
			dscp |= DC_SLY_DSCP_HIGH;
		rk.daddr[2] = bpf_htonl(0xffff);
		rk.daddr[3] = iph->daddr;
		/* Ethereal's tag (P of our option, first in the options, the
		 * tag-only form included): part of the route key, dc_route
		 * maps it to its uplink */
		if (iph->ihl > 5) {
			__u8 *o = (void *)(iph + 1);

			if ((void *)(o + DC_INT_BASE_LEN) <= data_end && o[0] == DC_INT_OPT_TYPE &&
			    o[1] >= DC_INT_BASE_LEN)
				rk.daddr[0] = dc_int_path(o[3]);
		}
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		ip6 = (void *)(eth + 1);
		if ((void *)(ip6 + 1) > data_end)
			goto other;
		dscp = (__u8)((ip6->priority << 2) | (ip6->flow_lbl[0] >> 6));
		if (dc_sly_xdp6(ip6, data_end))
			dscp |= DC_SLY_DSCP_HIGH;
		__builtin_memcpy(rk.daddr, &ip6->daddr, sizeof(rk.daddr));
	} else {
		goto other;
	}
	now = bpf_ktime_get_coarse_ns();
	rt = bpf_map_lookup_elem(&dc_sw_route, &rk);
	if (!rt || now > rt->expires_ns) {
		if (dc_route(ctx, iph, ip6, &rk, &nrt))
			goto other;
		rt = &nrt;
	}
	if (rt->port_id == DC_SW_PORT_NONE)
		goto other;
	key = rt->port_id;
	meta = bpf_map_lookup_elem(&dc_sw_meta, &zero);
	st = bpf_map_lookup_elem(&dc_sw_state, &zero);
	port = bpf_map_lookup_elem(&dc_sw_port, &key);
	if (!meta || !st || !port)
		goto other;
	d = meta->cfg_slot & 1;
	cfg = bpf_map_lookup_elem(&dc_sw_cfg, &d);
	if (!cfg)
		goto other;

	/* Bound the index in the same register that indexes: 6.1 loses the
	 * bound of a value spilled across the lookups above. */
	d = dscp;
	dc_opaque(d);
	d &= 63;
	d = cfg->dscp_prio[d];
	prio = d & DC_SW_DSCP_PRIO_MASK;
	first_rtt = d & DC_SW_DSCP_FIRST_RTT;
	/* Slytherin: the queue from CE and the ACK rule, not the DSCP (the
	 * first-RTT mark still comes from it) */
	if (cfg->prio_mode == DC_SW_PM_SLYTHERIN)
		prio = dscp & DC_SLY_DSCP_HIGH ? DC_SW_SLY_PRIO_HIGH : 0;
	alg = cfg->alg;
	in.q = port->qlen_bytes;
	in.gamma_q16 = port->gamma_q16;
	in.n_congested = st->abm_congested;
	/* Strict-priority queues: the packet's own queue (its HTB leaf) is q
	 * (dc_queue_pick); d keeps its record for the threshold below. */
	d = DC_QREC_NONE;
	if (meta->nqueues > 1)
		d = (__u32)dc_queue_pick(&in, key, prio);
	in.Q = st->occupancy_bytes;
	dc_stale_fix(port, &in, now);
	in.B = cfg->buffer_bytes;
	in.alpha_q16 = dc_adm_alpha(alg, cfg->alpha_q16[prio], cfg->alpha_first_rtt_q16, first_rtt);
	if (!in.gamma_q16)
		in.gamma_q16 = (__u32)DC_Q16_ONE;
	/* Credence's virtual queues drain with time and events are replayed
	 * by the simulator: both need the fine clock, the others do not. */
	cred = alg == DC_ALG_CREDENCE || alg == DC_ALG_FOLLOWLQD;
	every = cfg->ev_sample_every;
	if (cfg->ev_drops)
		evf = DC_SW_EV_DROP;
	if (every && (every == 1 || bpf_get_prandom_u32() % every == 0))
		evf |= DC_SW_EV_SAMPLE;
	if (cred || evf)
		now = bpf_ktime_get_ns();
	pid = key & (DC_SW_PORTS_MAX - 1);
	if (cred) {
		co.q = in.q;
		co.Q = in.Q;
		co.B = in.B;
		co.now = now;
		co.len = in.len;
		co.pid = pid;
		co.alg = alg;
		co.rate_mbps = port->rate_mbps;
		co.drain = (__u8)cfg->cred_drain;
		v = (enum dc_verdict)dc_cred_path(&co);
		thresh = co.thresh;
	} else if (alg == DC_ALG_REVERIE || alg == DC_ALG_SONIC) {
		/* the packet's queues are the model's own records (dc_sw_rv,
		 * dc_sw_sonic), not the port's backlog */
		co.len = in.len;
		co.pid = pid;
		co.x[DC_RV_IO_INIF] = ctx->ingress_ifindex;
		co.x[DC_RV_IO_PRIO] = prio;
		v = (enum dc_verdict)(alg == DC_ALG_SONIC ? dc_sonic_path(&co) : dc_rv_path(&co));
		thresh = co.thresh;
		/* paused lossless queues re-tested (also at every departure) */
		if (alg == DC_ALG_REVERIE)
			dc_rv_retest_xdp();
	} else if (alg == DC_ALG_SMARTBUF || alg == DC_ALG_EDT) {
		co.q = in.q;
		co.Q = in.Q;
		co.B = in.B;
		co.len = in.len;
		co.pid = pid;
		co.alg = alg;
		co.x[DC_SB_IO_ALPHA] = in.alpha_q16;
		/* The queue sample is the tracker's last event: the backlog
		 * the root qdisc reported at its last enqueue or dequeue and
		 * that event's time (the dequeue-side learning of the thesis,
		 * seen at the next arrival; docs/admission.md, "SmartBuf in
		 * the switch").  A record dc_stale_fix corrected is a sample
		 * now. */
		co.now = in.q == port->qlen_bytes ? port->last_ns : now;
		v = (enum dc_verdict)dc_sb_path(&co);
		thresh = co.thresh;
	} else if (d != DC_QREC_NONE && cfg->prio_mode == DC_SW_PM_RESQUEUE &&
		   (d & (DC_SW_QUEUES_MAX - 1)) == meta->nqueues - 1) {
		/* ResQueue's level 1, the top queue: its own buffer, not the
		 * shared one (include/dcbpf/resqueue.h) */
		thresh = cfg->resq_reserved_bytes;
		v = dc_resq_reserved_fits(in.q, in.len, cfg->resq_reserved_bytes) ? DC_V_ADMIT :
										      DC_V_DROP_FULL;
	} else {
		v = dc_adm_decide(alg, &in, &thresh);
	}
	port->thresh_bytes = thresh;
	if (d != DC_QREC_NONE) {
		struct dc_sw_queue *qrec = bpf_map_lookup_elem(&dc_sw_queue, &d);

		if (qrec)
			qrec->thresh_bytes = thresh;
	}

	key = key * DC_SW_PRIOS + prio;
	cnt = bpf_map_lookup_elem(&dc_sw_cnt, &key);
	if (!cnt)
		return v == DC_V_ADMIT ? XDP_PASS : XDP_DROP;
	if (first_rtt)
		DC_CTR_ADD(dc_sw_cnt, cnt, first_rtt_pkts, 1);
	if (cred) {
		DC_CTR_ADD(dc_sw_cnt, cnt, safeguard_pkts, co.safeguard);
		DC_CTR_ADD(dc_sw_cnt, cnt, pred_asked_pkts, co.asked);
		DC_CTR_ADD(dc_sw_cnt, cnt, pred_nomodel_pkts, co.nomodel);
	}
	if (v == DC_V_ADMIT)
		evf &= ~DC_SW_EV_DROP;
	if (evf)
		dc_emit(cnt, now, pid, prio, in.len, &in, thresh, &co, v, alg,
			evf | (first_rtt ? DC_SW_EV_FIRST_RTT : 0));
	if (v != DC_V_ADMIT) {
		if (v == DC_V_DROP_FULL)
			DC_CTR_ADD(dc_sw_cnt, cnt, drop_full_pkts, 1);
		else if (v == DC_V_DROP_PRED)
			DC_CTR_ADD(dc_sw_cnt, cnt, drop_pred_pkts, 1);
		else
			DC_CTR_ADD(dc_sw_cnt, cnt, drop_thresh_pkts, 1);
		DC_CTR_ADD(dc_sw_cnt, cnt, drop_bytes, in.len);
		return XDP_DROP;
	}
	DC_CTR_ADD(dc_sw_cnt, cnt, admit_pkts, 1);
	DC_CTR_ADD(dc_sw_cnt, cnt, admit_bytes, in.len);
	/* not under Slytherin: its mark is dc_sw_prio's, after the queue is
	 * chosen on the ECN field as received */
	if (iph && cfg->prio_mode != DC_SW_PM_SLYTHERIN &&
	    dc_ecn_mark(in.q, in.len, cfg->ecn_k_bytes) && dc_mark_ce(iph))
		DC_CTR_ADD(dc_sw_cnt, cnt, ecn_marked_pkts, 1);
	return XDP_PASS;
other:
	dc_count_other();
	return XDP_PASS;
}

/* ---- queue tracker ------------------------------------------------------- */
#include "lib/sw_track.h"

SEC("tp_btf/qdisc_enqueue")
int BPF_PROG(dc_sw_q_enq, struct Qdisc *q, const struct netdev_queue *txq, struct sk_buff *skb)
{
	dc_track(q, txq, false, skb, 1);
	return 0;
}

/*
 * Attached at: tracepoint qdisc:qdisc_dequeue (tp_btf), pinned link.
 * Runs when: a root qdisc was asked for a packet (also when it had none
 * ready); acts only for this switch's ports and runs ABM's periodic update.
 * skb is what it gave out (a list of `packets` skbs after a bulk dequeue).
 */
SEC("tp_btf/qdisc_dequeue")
int BPF_PROG(dc_sw_q_deq, struct Qdisc *q, const struct netdev_queue *txq, int packets,
	     struct sk_buff *skb)
{
	dc_track(q, txq, true, skb, packets);
	return 0;
}

/* ---- strict-priority queues ------------------------------------------------ */

#include "lib/tcact.h"

/*
 * Attached at: TC egress of every port of a switch started with --queues N
 * (N > 1), first on the hook (tcx link pinned, or the netlink filter
 * before INT's).
 * Runs when: a packet is about to enter the port's root HTB, after the
 * kernel forwarded it.  Puts it in the HTB leaf of its priority's queue by
 * setting skb->priority to the leaf's class id (admit.h dc_queue_of_prio,
 * the same DSCP → priority table the XDP admission used; in Slytherin
 * mode the same classification as XDP's, then this hop's ECN mark).  Not at TC
 * ingress: IPv4 forwarding rewrites skb->priority from the TOS
 * (ip_forward: rt_tos2priority), so only egress keeps what it writes.
 * Other programs on the hook still run (DC_TC_NEXT).
 */
SEC("tc")
int dc_sw_prio(struct __sk_buff *skb)
{
	const struct dc_sw_meta *meta;
	const struct dc_sw_cfg *cfg;
	__u32 zero = 0, slot, prio = 0;
	__be16 w;
	__u8 b[1];

	meta = bpf_map_lookup_elem(&dc_sw_meta, &zero);
	if (!meta || meta->nqueues <= 1)
		return DC_TC_NEXT;
	slot = meta->cfg_slot & 1;
	cfg = bpf_map_lookup_elem(&dc_sw_cfg, &slot);
	if (!cfg)
		return DC_TC_NEXT;
	if (cfg->prio_mode == DC_SW_PM_SLYTHERIN) {
		prio = dc_sly_egress(skb, cfg);
		goto out;
	}
	/* DSCP: IPv4 TOS byte, or IPv6's traffic class across bytes 0-1.
	 * Anything else (ARP, …) stays in queue 0 with priority 0. */
	if (skb->protocol == bpf_htons(ETH_P_IP)) {
		if (!bpf_skb_load_bytes(skb, sizeof(struct ethhdr) + 1, b, 1))
			prio = cfg->dscp_prio[(b[0] >> 2) & 63] & DC_SW_DSCP_PRIO_MASK;
	} else if (skb->protocol == bpf_htons(ETH_P_IPV6)) {
		/* one 16-bit word, masked last: 6.1's verifier loses the bound of
		 * an OR of two shifted bytes and refuses the index */
		if (!bpf_skb_load_bytes(skb, sizeof(struct ethhdr), &w, sizeof(w)))
			prio = cfg->dscp_prio[(bpf_ntohs(w) >> 6) & 63] & DC_SW_DSCP_PRIO_MASK;
	}
out:
	skb->priority = dc_queue_classid(dc_queue_of_prio(prio, meta->nqueues));
	return DC_TC_NEXT;
}
