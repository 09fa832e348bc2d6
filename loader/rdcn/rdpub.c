// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The writer of the live schedule (maps/rdcn.h): fill the copy that is not
 * live, then one store of the flip word names it live from the next
 * period boundary of the running schedule on.  The data path compares the
 * flip time with its own clock, so the switch-over is exact whatever this
 * process' lateness; the only deadline here is to store the word before
 * that instant (guard_ns ahead).
 */
#include <errno.h>
#include <string.h>

#include "cli.h"
#include "rdcn/rdcn.h"

int dc_rd_publish(const struct dc_rd_store *st, const struct dc_rs *s, __u64 now_ns, __u64 guard_ns,
		  __u64 *flip_at_ns, struct dc_err *err)
{
	struct dc_rd_cfg live, next;
	struct dc_rd_slot idle;
	__u64 word, at;
	__u32 buf, t;
	int rc, bad;

	if ((bad = dc_rd_cfg_check(&s->cfg)))
		return dc_err_set(err, EXIT_USAGE, "schedule refused: %s", dc_rd_bad_str(bad));
	if ((rc = st->get_flip(st->ctx, &word)))
		return dc_err_set(err, EXIT_ERR, "dc_rd_flip: read: %s", strerror(-rc));
	if (now_ns < dc_rd_flip_at_ns(word))
		return dc_err_set(err, EXIT_ERR,
				  "a flip is pending at %llu ns (now %llu): publish again after it",
				  (unsigned long long)dc_rd_flip_at_ns(word), (unsigned long long)now_ns);
	buf = dc_rd_live_buf(word, now_ns);
	if ((rc = st->get_cfg(st->ctx, buf, &live)))
		return dc_err_set(err, EXIT_ERR, "dc_rd_cfg: read buffer %u: %s", buf, strerror(-rc));
	/* Nothing live yet (an empty copy): start after the guard. */
	if (dc_rd_cfg_check(&live) || now_ns + guard_ns < live.epoch_ns)
		at = now_ns + guard_ns;
	else
		at = dc_rd_next_period_ns(&live, now_ns + guard_ns);
	if (at > DC_RD_FLIP_TIME_MASK || at >= (1ULL << 62))
		return dc_err_set(err, EXIT_ERR, "flip time %llu ns out of range", (unsigned long long)at);
	buf ^= 1;
	next = s->cfg;
	next.epoch_ns = at;
	memset(&idle, DC_RD_IDLE, sizeof(idle));
	for (t = 0; t < DC_RD_SLOTS_MAX; t++) {
		rc = st->put_slot(st->ctx, dc_rd_sched_key(buf, t), t < next.period ? &s->slot[t] : &idle);
		if (rc)
			return dc_err_set(err, EXIT_ERR, "dc_rd_sched: write buffer %u slot %u: %s", buf, t,
					  strerror(-rc));
	}
	if ((rc = st->put_cfg(st->ctx, buf, &next)))
		return dc_err_set(err, EXIT_ERR, "dc_rd_cfg: write buffer %u: %s", buf, strerror(-rc));
	if ((rc = st->put_flip(st->ctx, dc_rd_flip_make(at, buf))))
		return dc_err_set(err, EXIT_ERR, "dc_rd_flip: write: %s", strerror(-rc));
	*flip_at_ns = at;
	return 0;
}
