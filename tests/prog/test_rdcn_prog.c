// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The live schedule maps (maps/rdcn.h) in the kernel: the writer
 * (loader/rdcn/rdpub.c over the pinned maps, rdmap.c) publishes a round
 * robin and then a Mars schedule, and a BPF program reading the maps
 * (tests/prog/bpf/rd_sched.bpf.c, run by BPF_PROG_TEST_RUN with `now` in
 * the frame) sees nothing before the first flip, the round robin from its
 * flip instant on (day, night, the slots, the period wrap), the old
 * schedule up to the last ns before the second flip and Mars' matchings,
 * slot by slot as the host generated them, from it on.  bpftool prints
 * the maps as named fields.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "skelfix.h"
#include "check.h"
#include "cli.h"
#include "rdcn/rdcn.h"
#include "rd_sched.skel.h"

struct dc_rt_frame {
	__u64 now_ns;
	__u32 from, to;
	__s32 where;
	__u32 buf, slot;
	__u32 peer0;
	__s32 matched;
	__u32 pad;
	__u64 day_left_ns;
};

static int prog_fd;

static int probe(__u64 now, __u32 from, __u32 to, struct dc_rt_frame *out)
{
	struct dc_rt_frame in = { .now_ns = now, .from = from, .to = to };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = &in, .data_size_in = sizeof(in), .data_out = out,
		    .data_size_out = sizeof(*out), .repeat = 1);

	memset(out, 0, sizeof(*out));
	if (bpf_prog_test_run_opts(prog_fd, &o))
		return -errno;
	return (int)o.retval;
}

/* bpftool's JSON dump of the map pinned at PIN names FIELD */
static bool pin_dump_has(const char *pin, const char *field)
{
	char sel[300];

	snprintf(sel, sizeof(sel), "pinned %s", pin);
	return dc_dump_has(sel, field);
}

int main(void)
{
	/* the object pins every map of maps/rdcn.h and maps/rdcn_sched.h */
	static const char *const maps[] = { "dc_rd_cfg", "dc_rd_sched", "dc_rd_flip", "dc_rd_port",
					    "dc_rd_mac", "dc_rd_out", "dc_rd_pcnt", "dc_rd_tor" };
	static struct dc_rs rr, mars;
	struct rd_sched_bpf *skel = NULL;
	struct dc_rd_store st = { 0 };
	struct dc_rt_frame f;
	struct dc_err err = { 0 };
	char dir[128], path[256];
	__u64 at = 0, at2 = 0, t0;
	__u32 t, i, bad = 0;
	unsigned int m;
	int rc, failed = 0;

	DC_TEST_NEED_ROOT("rdcn maps in BPF");
	libbpf_set_print(NULL);
	snprintf(dir, sizeof(dir), "/sys/fs/bpf/dcbpf-test-rdcn-%d", (int)getpid());
	if (mkdir(dir, 0700) && errno != EEXIST) {
		printf("FAIL: rdcn maps in BPF: pin directory %s: %s\n", dir, strerror(errno));
		return 1;
	}
	{
		LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = dir);

		skel = rd_sched_bpf__open_opts(&oo);
		if (!skel || rd_sched_bpf__load(skel)) {
			printf("FAIL: rdcn maps in BPF: the test object loads (verifier)\n");
			failed = 1;
			goto out;
		}
	}
	printf("PASS: rdcn maps in BPF: the reader of the three maps passes the verifier\n");
	prog_fd = bpf_program__fd(skel->progs.dc_rt_probe);

	CHECK("rdcn maps: nothing published: nothing connected",
	      probe(1000, 0, 1, &f) == 2 /* XDP_PASS */ && f.where == -1 && f.peer0 == DC_RD_IDLE, "where %d", f.where);
	rc = dc_rd_store_bpf_open(&st, dir, &err);
	CHECK("rdcn maps: the writer opens the pinned maps", rc == 0, "%s", err.msg);
	if (rc) {
		failed = 1;
		goto out;
	}

	/* round robin, 5 ToRs: 4 slots of 1000 ns, 900 ns of day */
	dc_rs_rr(&rr, 5, 1, false, &err);
	rr.cfg.slot_ns = 1000;
	rr.cfg.day_ns = 900;
	CHECK("rdcn maps: round robin published, flip after the guard",
	      dc_rd_publish(&st, &rr, 10000, 500, &at, &err) == 0 && at == 10500, "%s", err.msg);
	CHECK("rdcn maps: 1 ns before the flip: still nothing", probe(at - 1, 0, 1, &f) == 2 && f.where == -1 &&
	      f.buf == 0, "where %d buf %u", f.where, f.buf);
	CHECK("rdcn maps: at the flip: the new copy, slot 0, day, 0 -> 1 on uplink 0",
	      probe(at, 0, 1, &f) == 2 && f.buf == 1 && f.where == 1 && f.slot == 0 && f.day_left_ns == 900 &&
	      f.peer0 == 1 && f.matched == 0, "buf %u where %d slot %u left %llu peer %u matched %d", f.buf, f.where,
	      f.slot, (unsigned long long)f.day_left_ns, f.peer0, f.matched);
	CHECK("rdcn maps: 0 -> 2 is not matched in slot 0", probe(at, 0, 2, &f) == 2 && f.matched == -1, "");
	CHECK("rdcn maps: night: nothing matched", probe(at + 900, 0, 1, &f) == 2 && f.where == 0 &&
	      f.matched == -1, "where %d", f.where);
	CHECK("rdcn maps: slot 1: 0 -> 2", probe(at + 1000, 0, 2, &f) == 2 && f.slot == 1 && f.peer0 == 2 &&
	      f.matched == 0, "slot %u peer %u", f.slot, f.peer0);
	CHECK("rdcn maps: the period wraps", probe(at + 4000 + 10, 3, 4, &f) == 2 && f.slot == 0 && f.peer0 == 4 &&
	      f.matched == 0, "slot %u peer %u", f.slot, f.peer0);

	/* Mars (de Bruijn(4, 2)) replaces it at the round robin's period boundary */
	dc_rs_mars(&mars, 4, 1, 2, 1, &err);
	mars.cfg.slot_ns = 2000;
	mars.cfg.day_ns = 1800;
	CHECK("rdcn maps: Mars published at the live period's boundary",
	      dc_rd_publish(&st, &mars, 20000, 1000, &at2, &err) == 0 && at2 == at + 3 * 4000, "%s at %llu", err.msg,
	      (unsigned long long)at2);
	CHECK("rdcn maps: a publish before that flip is refused",
	      dc_rd_publish(&st, &rr, 21000, 0, &t0, &err) == EXIT_ERR && strstr(err.msg, "pending"), "%s", err.msg);
	CHECK("rdcn maps: 1 ns before the flip: the round robin's last night", probe(at2 - 1, 0, 1, &f) == 2 &&
	      f.buf == 1 && f.slot == 3 && f.where == 0, "buf %u slot %u where %d", f.buf, f.slot, f.where);
	for (t = 0; t < 2 * mars.cfg.period; t++)
		for (i = 0; i < 4; i++) {
			__u32 want = mars.slot[t % mars.cfg.period].peer[0][i];
			__u32 other = (want + 1) % 4;

			t0 = at2 + t * 2000ULL + 5;
			if (probe(t0, i, want, &f) != 2 || f.buf != 0 || f.where != 1 || f.slot != t % mars.cfg.period ||
			    f.peer0 != want || f.matched != (want == i ? -1 : 0))
				bad++;
			if (other != want && (probe(t0, i, other, &f) != 2 || f.matched != -1))
				bad++;
			if (probe(t0 + 1800, i, want, &f) != 2 || f.where != 0 || f.matched != -1)
				bad++;
		}
	CHECK_EQ("rdcn maps: Mars, two periods: every ToR's peer in BPF as generated, day and night", bad, 0);

	snprintf(path, sizeof(path), "%s/dc_rd_cfg", dir);
	CHECK("rdcn maps: bpftool dumps dc_rd_cfg with named fields", pin_dump_has(path, "\"epoch_ns\"") &&
	      pin_dump_has(path, "\"day_ns\""), "");
	snprintf(path, sizeof(path), "%s/dc_rd_sched", dir);
	CHECK("rdcn maps: bpftool dumps dc_rd_sched with its peer arrays", pin_dump_has(path, "\"peer\""), "");
	snprintf(path, sizeof(path), "%s/dc_rd_flip", dir);
	CHECK("rdcn maps: bpftool dumps the flip word", pin_dump_has(path, "\"buf_at_ns\""), "");
out:
	dc_rd_store_bpf_close(&st);
	rd_sched_bpf__destroy(skel);
	for (m = 0; m < sizeof(maps) / sizeof(maps[0]); m++) {
		snprintf(path, sizeof(path), "%s/%s", dir, maps[m]);
		unlink(path);
	}
	rmdir(dir);
	return check_failed || failed;
}
