/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cosy's end host as a pure state machine: the submission / completion
 * queue interface, K slots per sender and receiver, the receiver's wait
 * δ^E with a power-of-two choice among waiting requests, pacing at B/K per
 * slot, the sender's δ timeout and the receiver's failure detector.
 * "Building a Partial Communication Synchrony Abstraction on Asynchronous
 * Datacenters" (Agarwal et al.), §2 (cosy-RPC: complete | failure |
 * reject), §3.2 (the sender, receiver steps), §3.3 (slots), §4 (failure,
 * the random sequence number), §5.1 (power-of-two choices).  Packets:
 * include/dcbpf/cosy.h, docs/cosy.md.
 *
 * No I/O and no clock of its own: the caller passes every packet in
 * (dc_cosy_host_rx) and the time (ns, one monotonic clock per host), calls
 * dc_cosy_host_tick when dc_cosy_host_next_ns says, and sends what lands
 * in the outbox.  Completions land in the completion queue.  A socket
 * front end (daemon, `dcbpf cosy send/serve`) is not built yet.
 *
 * Readings the paper leaves open, made explicit:
 *  - One slot per message (a message may hold several in the paper).
 *  - The sender's slot is the VL its leaf gave the rsvp on its access link
 *    (the label the rsvp arrives with); the switch already keeps K per
 *    link, so a second rsvp with a label in use is the sender being busy:
 *    it answers with a reject along the reservation (§3.2).
 *  - Power-of-two choices: of two waiting requests drawn at random, the one
 *    that has waited longer gets the free slot.
 *  - Failure (§4): a receiver that granted a slot expects the message's
 *    complete within fail_ns of its rsvp (default δ_cosy; hRTT + sK/B + δ̂
 *    is the tight value); without it, it frees the slot and sends a
 *    failure to the sender, which posts it.
 */
#ifndef DCBPF_COSYHOST_H
#define DCBPF_COSYHOST_H

#include "cosy.h"

#define DC_COSY_HOST_MSGS	32	/* sender: messages in flight */
#define DC_COSY_HOST_REQS	32	/* receiver: requests held */
#define DC_COSY_HOST_OUT	256	/* outbox packets between two calls */
#define DC_COSY_HOST_DONE	64	/* completion queue */
#define DC_COSY_DATA_BYTES	1400	/* payload of a data packet */

/* A packet to or from the wire: the peer's address and the header. */
struct dc_cosy_wire {
	__u32 src, dst;		/* host addresses (as the caller names them) */
	struct dc_cosy_hdr h;
	__u32 payload_bytes;	/* data: bytes of the message it carries */
};

enum dc_cosy_status {
	DC_COSY_S_COMPLETE = 1,
	DC_COSY_S_REJECT = 2,
	DC_COSY_S_FAILURE = 3,
};

struct dc_cosy_done {
	__u64 msg_id;
	__u64 latency_ns;	/* submit to completion, on the sender's clock */
	__u32 status;		/* enum dc_cosy_status */
	__u32 reason;		/* reject: DC_COSY_R_* (0: the δ timeout) */
};

enum { DC_COSY_M_FREE = 0, DC_COSY_M_REQUESTED, DC_COSY_M_SENDING, DC_COSY_M_SENT };
enum { DC_COSY_Q_FREE = 0, DC_COSY_Q_WAITING, DC_COSY_Q_GRANTED };

struct dc_cosy_smsg {		/* sender side */
	__u64 msg_id, submit_ns, start_ns;
	__u32 dst, size_bytes, sent_bytes, seq;
	__u8 state, slot;
};

struct dc_cosy_rreq {		/* receiver side */
	__u64 msg_id, arrive_ns, grant_ns;
	__u32 src, size_bytes, got_bytes, seq;
	__u8 state, slot;
};

struct dc_cosy_host {
	__u32 addr, k;
	__u64 bw_kbps;		/* the access link, B */
	__u64 delta_ns;		/* δ_cosy: the sender's promise, the receiver's failure timer */
	__u64 wait_ns;		/* δ^E: how long a request may wait for a slot */
	__u64 fail_ns;		/* receiver: the message is in this long after its rsvp, or it failed */
	__u64 rng;
	__u64 send_slots, recv_slots;	/* bit s: slot s in use */
	struct dc_cosy_smsg msg[DC_COSY_HOST_MSGS];
	struct dc_cosy_rreq req[DC_COSY_HOST_REQS];
	struct dc_cosy_wire out[DC_COSY_HOST_OUT];
	__u32 nout, ndone;
	__u32 overflow;		/* packets or completions that did not fit */
	struct dc_cosy_done done[DC_COSY_HOST_DONE];
};

DC_INLINE void dc_cosy_host_init(struct dc_cosy_host *h, __u32 addr, __u32 k, __u64 bw_kbps, __u64 delta_ns,
				 __u64 wait_ns, __u64 seed)
{
	__builtin_memset(h, 0, sizeof(*h));
	h->addr = addr;
	h->k = dc_cosy_eff_k(k, DC_COSY_MODE_COSY);
	h->bw_kbps = bw_kbps;
	h->delta_ns = delta_ns;
	h->wait_ns = wait_ns;
	h->fail_ns = delta_ns;	/* callers with a tighter budget set it */
	h->rng = seed | 1;
}

/* xorshift64*: the random sequence numbers and the two choices. */
DC_INLINE __u32 dc_cosy_host_rand(struct dc_cosy_host *h)
{
	h->rng ^= h->rng >> 12;
	h->rng ^= h->rng << 25;
	h->rng ^= h->rng >> 27;
	return (__u32)((h->rng * 0x2545F4914F6CDD1DULL) >> 32);
}

DC_INLINE void dc_cosy_host_emit(struct dc_cosy_host *h, __u32 dst, __u8 type, __u8 flags, __u8 vl, __u64 msg_id,
				 __u32 seq, __u32 size_bytes, __u8 reason, __u32 payload)
{
	struct dc_cosy_wire *w;

	if (h->nout >= DC_COSY_HOST_OUT) {
		h->overflow++;
		return;
	}
	w = &h->out[h->nout++];
	__builtin_memset(w, 0, sizeof(*w));
	w->src = h->addr;
	w->dst = dst;
	w->h.ver = DC_COSY_VERSION;
	w->h.type = type;
	w->h.flags = flags;
	w->h.vl = vl;
	w->h.msg_id = msg_id;
	w->h.seq = seq;
	w->h.size_bytes = size_bytes;
	w->h.reason = reason;
	w->payload_bytes = payload;
}

DC_INLINE void dc_cosy_host_post(struct dc_cosy_host *h, struct dc_cosy_smsg *m, __u64 now_ns, __u32 status,
				 __u32 reason)
{
	if (h->ndone < DC_COSY_HOST_DONE)
		h->done[h->ndone++] = (struct dc_cosy_done){ .msg_id = m->msg_id, .latency_ns = now_ns - m->submit_ns,
							     .status = status, .reason = reason };
	else
		h->overflow++;
	if (m->state == DC_COSY_M_SENDING)
		h->send_slots &= ~(1ULL << m->slot);
	m->state = DC_COSY_M_FREE;
}

/* Submission queue: a message of size_bytes to dst.  -1 when the host
 * already has DC_COSY_HOST_MSGS in flight or the id is in use. */
DC_INLINE int dc_cosy_host_submit(struct dc_cosy_host *h, __u64 now_ns, __u64 msg_id, __u32 dst, __u32 size_bytes)
{
	struct dc_cosy_smsg *free_m = 0;
	__u32 i;

	for (i = 0; i < DC_COSY_HOST_MSGS; i++) {
		if (h->msg[i].state == DC_COSY_M_FREE) {
			if (!free_m)
				free_m = &h->msg[i];
		} else if (h->msg[i].msg_id == msg_id) {
			return -1;
		}
	}
	if (!free_m || !size_bytes)
		return -1;
	*free_m = (struct dc_cosy_smsg){ .msg_id = msg_id, .submit_ns = now_ns, .dst = dst, .size_bytes = size_bytes,
					 .state = DC_COSY_M_REQUESTED };
	dc_cosy_host_emit(h, dst, DC_COSY_T_REQUEST, 0, 0, msg_id, 0, size_bytes, 0, 0);
	return 0;
}

DC_INLINE struct dc_cosy_smsg *dc_cosy_host_msg(struct dc_cosy_host *h, __u64 msg_id)
{
	for (__u32 i = 0; i < DC_COSY_HOST_MSGS; i++)
		if (h->msg[i].state != DC_COSY_M_FREE && h->msg[i].msg_id == msg_id)
			return &h->msg[i];
	return 0;
}

DC_INLINE struct dc_cosy_rreq *dc_cosy_host_req(struct dc_cosy_host *h, __u32 src, __u64 msg_id)
{
	for (__u32 i = 0; i < DC_COSY_HOST_REQS; i++)
		if (h->req[i].state != DC_COSY_Q_FREE && h->req[i].src == src && h->req[i].msg_id == msg_id)
			return &h->req[i];
	return 0;
}

/* Receiver: give free slots to waiting requests, two random choices each
 * (the one waiting longer wins). */
DC_INLINE void dc_cosy_host_grant(struct dc_cosy_host *h, __u64 now_ns)
{
	__u64 free = dc_cosy_kmask(h->k) & ~h->recv_slots;

	while (free) {
		__u32 idx[DC_COSY_HOST_REQS], n = 0, i;
		struct dc_cosy_rreq *a, *b, *r;
		__u32 slot = dc_cosy_nth_bit(free, 0);

		for (i = 0; i < DC_COSY_HOST_REQS; i++)
			if (h->req[i].state == DC_COSY_Q_WAITING)
				idx[n++] = i;
		if (!n)
			return;
		a = &h->req[idx[dc_cosy_host_rand(h) % n]];
		b = &h->req[idx[dc_cosy_host_rand(h) % n]];
		r = b->arrive_ns < a->arrive_ns ? b : a;
		r->state = DC_COSY_Q_GRANTED;
		r->slot = (__u8)slot;
		r->grant_ns = now_ns;
		r->seq = dc_cosy_host_rand(h);
		h->recv_slots |= 1ULL << slot;
		free &= ~(1ULL << slot);
		dc_cosy_host_emit(h, r->src, DC_COSY_T_RSVP, 0, (__u8)slot, r->msg_id, r->seq, r->size_bytes, 0, 0);
	}
}

DC_INLINE void dc_cosy_host_free_req(struct dc_cosy_host *h, struct dc_cosy_rreq *r)
{
	if (r->state == DC_COSY_Q_GRANTED)
		h->recv_slots &= ~(1ULL << r->slot);
	r->state = DC_COSY_Q_FREE;
}

/* One packet from the wire. */
DC_INLINE void dc_cosy_host_rx(struct dc_cosy_host *h, __u64 now_ns, const struct dc_cosy_wire *w)
{
	const struct dc_cosy_hdr *p = &w->h;
	struct dc_cosy_smsg *m;
	struct dc_cosy_rreq *r;
	__u32 i;

	if (p->ver != DC_COSY_VERSION)
		return;
	switch (p->type) {
	case DC_COSY_T_REQUEST:		/* receiver */
		if (dc_cosy_host_req(h, w->src, p->msg_id))
			return;
		for (i = 0; i < DC_COSY_HOST_REQS; i++)
			if (h->req[i].state == DC_COSY_Q_FREE)
				break;
		if (i == DC_COSY_HOST_REQS) {
			dc_cosy_host_emit(h, w->src, DC_COSY_T_REJECT, 0, 0, p->msg_id, 0, 0, DC_COSY_R_BUSY, 0);
			return;
		}
		h->req[i] = (struct dc_cosy_rreq){ .msg_id = p->msg_id, .arrive_ns = now_ns, .src = w->src,
						   .size_bytes = p->size_bytes, .state = DC_COSY_Q_WAITING };
		dc_cosy_host_grant(h, now_ns);
		return;
	case DC_COSY_T_RSVP:		/* sender */
		m = dc_cosy_host_msg(h, p->msg_id);
		if (!m || m->state != DC_COSY_M_REQUESTED || m->dst != w->src || p->vl >= h->k ||
		    (h->send_slots >> p->vl) & 1) {
			/* busy or unknown: refuse along the reservation, so every
			 * switch and the receiver free what the rsvp took */
			dc_cosy_host_emit(h, w->src, DC_COSY_T_REJECT, DC_COSY_F_RELEASE, p->vl, p->msg_id, p->seq, 0,
					  DC_COSY_R_BUSY, 0);
			return;
		}
		m->state = DC_COSY_M_SENDING;
		m->slot = p->vl;
		m->seq = p->seq;
		m->start_ns = now_ns;
		m->sent_bytes = 0;
		h->send_slots |= 1ULL << p->vl;
		return;
	case DC_COSY_T_DATA:		/* receiver */
		r = dc_cosy_host_req(h, w->src, p->msg_id);
		if (r && r->state == DC_COSY_Q_GRANTED && r->seq == p->seq)
			r->got_bytes += w->payload_bytes;
		return;
	case DC_COSY_T_COMPLETE:
		if (p->flags & DC_COSY_F_RELEASE) {	/* receiver: the message is in */
			r = dc_cosy_host_req(h, w->src, p->msg_id);
			if (!r || r->state != DC_COSY_Q_GRANTED || r->seq != p->seq)
				return;
			dc_cosy_host_emit(h, w->src, DC_COSY_T_COMPLETE, 0, 0, p->msg_id, p->seq, r->got_bytes, 0, 0);
			dc_cosy_host_free_req(h, r);
			dc_cosy_host_grant(h, now_ns);
			return;
		}
		m = dc_cosy_host_msg(h, p->msg_id);	/* sender: the receiver confirms */
		if (m && m->state == DC_COSY_M_SENT && m->dst == w->src && m->seq == p->seq)
			dc_cosy_host_post(h, m, now_ns, DC_COSY_S_COMPLETE, 0);
		return;
	case DC_COSY_T_REJECT:
		if (p->flags & DC_COSY_F_RELEASE) {
			/* receiver: the reservation is gone — a switch found no
			 * VL (its copy comes with the ends swapped, so the source
			 * is the sender) or the sender was busy */
			r = dc_cosy_host_req(h, w->src, p->msg_id);
			if (r && r->state == DC_COSY_Q_GRANTED && r->seq == p->seq) {
				dc_cosy_host_free_req(h, r);
				dc_cosy_host_grant(h, now_ns);
			}
			return;
		}
		m = dc_cosy_host_msg(h, p->msg_id);	/* sender */
		if (m && m->state == DC_COSY_M_REQUESTED)
			dc_cosy_host_post(h, m, now_ns, DC_COSY_S_REJECT, p->reason);
		return;
	case DC_COSY_T_FAILURE:		/* sender */
		m = dc_cosy_host_msg(h, p->msg_id);
		if (m && m->dst == w->src)
			dc_cosy_host_post(h, m, now_ns, DC_COSY_S_FAILURE, 0);
		return;
	default:
		return;
	}
}

/* Time passes: pace data at B/K per slot, close messages, run the
 * timers (the sender's δ, the receiver's δ^E and failure detector). */
DC_INLINE void dc_cosy_host_tick(struct dc_cosy_host *h, __u64 now_ns)
{
	__u64 pkt_ns = dc_cosy_tx_ns((__u64)DC_COSY_DATA_BYTES * h->k, h->bw_kbps);	/* one packet at B/K */
	__u32 i;

	for (i = 0; i < DC_COSY_HOST_MSGS; i++) {
		struct dc_cosy_smsg *m = &h->msg[i];

		if (m->state == DC_COSY_M_SENDING) {
			/* packet j leaves at start + j · pkt_ns, one per tick.  A
			 * tick later than that by a packet's time or more (the
			 * caller slept past it) restarts the schedule at now
			 * instead of catching up: a catch-up burst leaves at line
			 * rate, not B/K, and the queues downstream would outgrow
			 * Lemma 3.3's #H·(K−1) packets. */
			__u64 j = m->sent_bytes / DC_COSY_DATA_BYTES, due = m->start_ns + j * pkt_ns;

			if (m->sent_bytes < m->size_bytes && now_ns >= due) {
				__u32 n = m->size_bytes - m->sent_bytes;

				if (now_ns - due >= pkt_ns)
					m->start_ns = now_ns - j * pkt_ns;
				n = n < DC_COSY_DATA_BYTES ? n : DC_COSY_DATA_BYTES;
				dc_cosy_host_emit(h, m->dst, DC_COSY_T_DATA, 0, m->slot, m->msg_id, m->seq, 0, 0, n);
				m->sent_bytes += n;
			}
			if (m->sent_bytes >= m->size_bytes) {
				dc_cosy_host_emit(h, m->dst, DC_COSY_T_COMPLETE, DC_COSY_F_RELEASE, m->slot, m->msg_id,
						  m->seq, 0, 0, 0);
				h->send_slots &= ~(1ULL << m->slot);
				m->state = DC_COSY_M_SENT;
			}
		}
		/* §3.2: nothing back by δ: reject (a drop somewhere, or a
		 * receiver that never answered) */
		if (m->state != DC_COSY_M_FREE && now_ns >= m->submit_ns + h->delta_ns)
			dc_cosy_host_post(h, m, now_ns, DC_COSY_S_REJECT, 0);
	}
	for (i = 0; i < DC_COSY_HOST_REQS; i++) {
		struct dc_cosy_rreq *r = &h->req[i];

		if (r->state == DC_COSY_Q_WAITING && now_ns >= r->arrive_ns + h->wait_ns) {
			dc_cosy_host_emit(h, r->src, DC_COSY_T_REJECT, 0, 0, r->msg_id, 0, 0, DC_COSY_R_BUSY, 0);
			dc_cosy_host_free_req(h, r);
		} else if (r->state == DC_COSY_Q_GRANTED && now_ns >= r->grant_ns + h->fail_ns) {
			/* §4: the message should be in by now */
			dc_cosy_host_emit(h, r->src, DC_COSY_T_FAILURE, 0, 0, r->msg_id, r->seq, r->got_bytes, 0, 0);
			dc_cosy_host_free_req(h, r);
		}
	}
	dc_cosy_host_grant(h, now_ns);
}

/* When the next tick has something to do (DC_U64_MAX: nothing pending). */
DC_INLINE __u64 dc_cosy_host_next_ns(const struct dc_cosy_host *h)
{
	__u64 pkt_ns = dc_cosy_tx_ns((__u64)DC_COSY_DATA_BYTES * h->k, h->bw_kbps), next = DC_U64_MAX, t;
	__u32 i;

	for (i = 0; i < DC_COSY_HOST_MSGS; i++) {
		const struct dc_cosy_smsg *m = &h->msg[i];

		if (m->state == DC_COSY_M_FREE)
			continue;
		t = m->submit_ns + h->delta_ns;
		if (m->state == DC_COSY_M_SENDING)
			t = m->start_ns + (__u64)(m->sent_bytes / DC_COSY_DATA_BYTES) * pkt_ns;
		next = dc_min_u64(next, t);
	}
	for (i = 0; i < DC_COSY_HOST_REQS; i++) {
		const struct dc_cosy_rreq *r = &h->req[i];

		if (r->state == DC_COSY_Q_WAITING)
			next = dc_min_u64(next, r->arrive_ns + h->wait_ns);
		else if (r->state == DC_COSY_Q_GRANTED)
			next = dc_min_u64(next, r->grant_ns + h->fail_ns);
	}
	return next;
}

#endif
