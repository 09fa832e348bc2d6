// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The delay line's side of PFC (docs/admission.md, "PFC in the fabric"):
 * the upstream end of a link that stops sending a priority while the
 * switch's ingress queue of that priority is paused.  The switch keeps
 * the pause state in dc_sw_pfc (struct dc_sw_pfc, BPF_F_MMAPABLE); this
 * side maps it read-only and looks at one entry before it sends a held
 * frame.  It also measures its own reaction: for each pause it sees, the
 * time from the switch's write of the flag to the last frame of that
 * priority it still sent, and the bytes it sent in that time — what the
 * queue's headroom has to absorb from this side.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "tool.h"
#include "delayline/dl.h"
#include "dcbpf/switch.h"

/* pfc_open: map the pinned dc_sw_pfc once it exists (the switch comes up
 * after its wires); until then nothing is held. */
static void pfc_open(struct pfc *p, uint64_t now)
{
	struct bpf_map_info info;
	__u32 ilen = sizeof(info);
	void *m;
	int fd;

	if (p->tab || now < p->next_open_ns)
		return;
	p->next_open_ns = now + PFC_OPEN_RETRY_NS;
	fd = bpf_obj_get(p->path);
	if (fd < 0)
		return;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &ilen) || info.value_size != sizeof(struct dc_sw_pfc) ||
	    info.max_entries != DC_SW_PORTS_MAX * DC_SW_PRIOS) {
		fprintf(stderr, "delayline: %s is not a dc_sw_pfc map of this build (value %u B, %u entries)\n",
			p->path, info.value_size, info.max_entries);
		close(fd);
		p->next_open_ns = UINT64_MAX;
		return;
	}
	m = mmap(NULL, sizeof(struct dc_sw_pfc) * info.max_entries, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);	/* the mapping keeps the map */
	if (m == MAP_FAILED) {
		fprintf(stderr, "delayline: mmap of %s: %s (a map without BPF_F_MMAPABLE?)\n", p->path,
			strerror(errno));
		p->next_open_ns = UINT64_MAX;
		return;
	}
	p->tab = m;
	fprintf(stderr, "delayline: PFC from %s, port %u\n", p->path, p->port);
}

/* pfc_prio: the frame's priority as the switch's default table has it
 * (DSCP / 8), -1 for a frame that is not IP.  frame: after the virtio
 * header. */
int pfc_prio(const uint8_t *frame, uint32_t len)
{
	uint32_t off = 12;
	uint16_t type;
	uint8_t tc;

	if (len < off + 2)
		return -1;
	type = (uint16_t)(frame[off] << 8 | frame[off + 1]);
	if (type == 0x8100) {	/* one VLAN tag */
		off += 4;
		if (len < off + 2)
			return -1;
		type = (uint16_t)(frame[off] << 8 | frame[off + 1]);
	}
	off += 2;
	if (len < off + 2)
		return -1;
	if (type == 0x0800)
		tc = frame[off + 1];
	else if (type == 0x86dd)
		tc = (uint8_t)((frame[off] & 0x0f) << 4 | frame[off + 1] >> 4);
	else
		return -1;
	return (tc >> 2) >> 3;
}

/* The bytes of priority prio sent after t_ns, and the last such send. */
static uint64_t late_after(const struct pfc *p, uint32_t prio, uint64_t t_ns, uint64_t *last)
{
	uint64_t b = 0;
	unsigned int i;

	*last = 0;
	for (i = 0; i < PFC_HIST; i++) {
		const struct pfc_send *s = &p->hist[i];

		if (s->bytes && s->prio == prio && s->t_ns > t_ns) {
			b += s->bytes;
			if (s->t_ns > *last)
				*last = s->t_ns;
		}
	}
	return b;
}

/* pfc_held: true while the head frame (priority prio) must wait. */
bool pfc_held(struct pfc *p, uint32_t prio, uint64_t now)
{
	const volatile struct dc_sw_pfc *e;
	uint32_t paused, pauses;
	uint64_t pause_ns, write_ns, late, last;

	prio &= PFC_PRIOS - 1;
	pfc_open(p, now);
	if (!p->tab)
		return false;
	e = (const volatile struct dc_sw_pfc *)p->tab + (p->port * DC_SW_PRIOS + prio);
	paused = e->paused;
	pauses = e->pauses;
	pause_ns = e->pause_ns;
	write_ns = e->write_ns;
	if (pauses != p->seen[prio]) {
		/* a pause since the last look: what this side sent after the
		 * switch wrote it */
		late = late_after(p, prio, pause_ns, &last);
		if (late > p->late_bytes_max)
			p->late_bytes_max = late;
		p->late_bytes_sum += late;
		if (paused) {
			uint64_t r = last > pause_ns ? last - pause_ns : 0;

			p->observed++;
			p->react_sum_ns += r;
			if (r > p->react_max_ns)
				p->react_max_ns = r;
		} else {
			p->missed++;	/* paused and resumed between two looks */
		}
		p->seen[prio] = pauses;
	}
	if (!paused)
		return false;
	if (now > write_ns && now - write_ns > p->quanta_ns) {
		/* not refreshed within the quanta: the pause has expired */
		if (p->seen_expired[prio] != write_ns) {
			p->seen_expired[prio] = write_ns;
			p->expired++;
		}
		return false;
	}
	return true;
}

void pfc_sent(struct pfc *p, uint64_t t_ns, uint32_t bytes, uint32_t prio)
{
	struct pfc_send *s = &p->hist[p->hn++ % PFC_HIST];

	s->t_ns = t_ns;
	s->bytes = bytes;
	s->prio = prio;
}

void pfc_json(struct pfc *p)
{
	printf(",\"pfc\":{\"port\":%u,\"priority_mask\":%u,\"quanta_us\":%llu,\"rate_mbps\":%llu,\"mapped\":%s,"
	       "\"frames_out\":%llu,\"bytes_out\":%llu,\"queued\":%llu,\"ring_used_max_bytes\":%zu,"
	       "\"dropped_ring\":%llu,\"pauses_seen\":%llu,\"pauses_missed\":%llu,\"expired\":%llu,"
	       "\"holds\":%llu,\"held_ms_total\":%.3f,\"reaction_us\":{\"mean\":%.1f,\"max\":%.1f},"
	       "\"late_bytes\":{\"mean\":%.1f,\"max\":%llu}}",
	       p->port, p->mask, (unsigned long long)(p->quanta_ns / 1000),
	       (unsigned long long)(p->rate_bps / 1000000), p->tab ? "true" : "false",
	       (unsigned long long)p->ll.frames_out, (unsigned long long)p->ll.bytes_out,
	       (unsigned long long)p->ll.queued, p->ll.used_max, (unsigned long long)p->ll.drop_ring,
	       (unsigned long long)p->observed, (unsigned long long)p->missed,
	       (unsigned long long)p->expired, (unsigned long long)p->holds,
	       (double)p->held_ns_total / 1e6,
	       p->observed ? (double)p->react_sum_ns / 1000.0 / (double)p->observed : 0.0,
	       (double)p->react_max_ns / 1000.0,
	       p->observed + p->missed ? (double)p->late_bytes_sum / (double)(p->observed + p->missed) : 0.0,
	       (unsigned long long)p->late_bytes_max);
}
