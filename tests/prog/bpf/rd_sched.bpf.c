// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Test object for tests/prog/test_rdcn_prog.c: the live schedule maps of
 * maps/rdcn.h read as the fabric's programs will read them — the flip
 * word picks the live copy, dc_rd_where the slot and day, dc_rd_sched the
 * matching — with `now` carried in the frame instead of the clock, so a
 * host test can probe any instant around a flip.
 *
 * Attached at: nowhere; run only by BPF_PROG_TEST_RUN.
 * Frame: struct dc_rt_frame; the program fills the fields after `to`.
 * Shorter frames or a missing map entry: XDP_ABORTED.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "maps/rdcn.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct dc_rt_frame {
	__u64 now_ns;
	__u32 from, to;
	/* out */
	__s32 where;		/* dc_rd_where: -1, 0 night, 1 day */
	__u32 buf, slot;
	__u32 peer0;		/* from's peer on uplink 0 (DC_RD_IDLE before the epoch) */
	__s32 matched;		/* dc_rd_matched(from, to) during the day, else -1 */
	__u32 pad;
	__u64 day_left_ns;
};

SEC("xdp")
int dc_rt_probe(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct dc_rt_frame *f = data;
	const struct dc_rd_flip *fl;
	const struct dc_rd_cfg *c;
	const struct dc_rd_slot *s;
	__u32 zero = 0, buf, slot = 0, key, from;
	__u64 left = 0;
	int where;

	if ((void *)(f + 1) > data_end)
		return XDP_ABORTED;
	fl = bpf_map_lookup_elem(&dc_rd_flip, &zero);
	if (!fl)
		return XDP_ABORTED;
	buf = dc_rd_live_buf(fl->buf_at_ns, f->now_ns);
	c = bpf_map_lookup_elem(&dc_rd_cfg, &buf);
	if (!c)
		return XDP_ABORTED;
	where = dc_rd_where(c, f->now_ns, &slot, &left);
	f->where = where;
	f->buf = buf;
	f->slot = slot;
	f->day_left_ns = left;
	f->peer0 = DC_RD_IDLE;
	f->matched = -1;
	if (where < 0)
		return XDP_PASS;
	key = dc_rd_sched_key(buf, slot);
	s = bpf_map_lookup_elem(&dc_rd_sched, &key);
	if (!s)
		return XDP_ABORTED;
	from = f->from & (DC_RD_TORS_MAX - 1);
	f->peer0 = dc_rd_peer(s, 0, from);
	if (where == 1)
		f->matched = dc_rd_matched(s, c->nup, from, f->to);
	return XDP_PASS;
}
