/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every program fixture and bench does before its first packet: ask
 * for root the same way, and load a skeleton whose maps are never pinned.
 */
#ifndef DCBPF_TESTS_SKELFIX_H
#define DCBPF_TESTS_SKELFIX_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

/* The verdict dcbpf's TC programs give a packet they let through (bpf/lib/tcact.h:
 * tcx "next", cls_bpf TC_ACT_UNSPEC). */
#define TC_NEXT (-1)
/* What a fixture's run returns when test_run itself refused the run: RUN_ERR - errno,
 * below every verdict, so a refused run never reads as TC_NEXT. */
#define RUN_ERR (-1000)

/* CI=true: nothing of the core may skip there, so a missing privilege fails. */
static inline bool dc_under_ci(void)
{
	const char *ci = getenv("CI");

	return ci && !strcmp(ci, "true");
}

/*
 * In a test's main: without root the test says SKIP (FAIL under CI) with
 * its label and returns its exit status.
 */
#define DC_TEST_NEED_ROOT(label)                                                                   \
	do {                                                                                       \
		if (geteuid()) {                                                                   \
			printf("%s: %s: needs root (sudo make check)\n",                           \
			       dc_under_ci() ? "FAIL" : "SKIP", (label));                          \
			return dc_under_ci();                                                      \
		}                                                                                  \
	} while (0)

/* In a bench's main: without root the bench says so on stderr and measures nothing. */
#define DC_BENCH_NEED_ROOT(label)                                                                  \
	do {                                                                                       \
		if (geteuid()) {                                                                   \
			fprintf(stderr, "%s bench: needs root, skipped\n", (label));               \
			return 0;                                                                  \
		}                                                                                  \
	} while (0)

/* bpftool's JSON dump of the map SEL ("pinned PATH" or "id N") names FIELD
 * (a quoted key): the fields `bpftool map dump` shows a user. */
static inline bool dc_dump_has(const char *sel, const char *field)
{
	char cmd[512], line[4096];
	bool found = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "bpftool -j map dump %s 2>/dev/null", sel);
	p = popen(cmd, "r");
	if (!p)
		return false;
	while (fgets(line, sizeof(line), p))
		if (strstr(line, field))
			found = true;
	pclose(p);
	return found;
}

/* The same for the map behind MAP_FD. */
static inline bool dc_fd_dump_has(int map_fd, const char *field)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	char sel[32];

	if (bpf_obj_get_info_by_fd(map_fd, &info, &len))
		return false;
	snprintf(sel, sizeof(sel), "id %u", info.id);
	return dc_dump_has(sel, field);
}

/* A fixture must not touch pinned production state: no map of obj is pinned. */
static inline void dc_skel_private_maps(struct bpf_object *obj)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, obj)
		bpf_map__set_pin_path(m, NULL);
}

/*
 * Open and load skeleton NAME (NAME##__open/__load/__destroy) with private
 * maps; libbpf's log stays quiet unless DCBPF_DEBUG is set.  Evaluates to
 * the skeleton, or NULL with errno set (open or verifier error).
 */
#define DC_SKEL_OPEN_LOAD(name)                                                                    \
	({                                                                                         \
		struct name *s_;                                                                   \
		if (!getenv("DCBPF_DEBUG"))                                                        \
			libbpf_set_print(NULL);                                                    \
		s_ = name##__open();                                                               \
		if (s_) {                                                                          \
			dc_skel_private_maps(s_->obj);                                             \
			if (name##__load(s_)) {                                                    \
				int e_ = errno;                                                    \
				name##__destroy(s_);                                               \
				errno = e_;                                                        \
				s_ = NULL;                                                         \
			}                                                                          \
		}                                                                                  \
		s_;                                                                                \
	})

#endif
