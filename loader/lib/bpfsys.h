/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Kernel-facing helpers shared by dcbpfd and dcbpf: feature probes from
 * vmlinux BTF, bpffs and pins, the daemon lock, the config map.
 */
#ifndef DCBPF_LOADER_BPFSYS_H
#define DCBPF_LOADER_BPFSYS_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/bpf.h>

#include "config.h"
#include "err.h"

/*
 * UAPI newer than Debian 12's 6.1 headers, under our own names so a newer
 * <linux/bpf.h> (where these are enum constants) does not clash.
 */
#define DC_BPF_F_LINK (1U << 13)		/* map flag: struct_ops via link (6.4) */
#define DC_BPF_STRUCT_OPS_ATTACH 44		/* enum bpf_attach_type BPF_STRUCT_OPS */
#define DC_BPF_LINK_TYPE_STRUCT_OPS 9		/* enum bpf_link_type */
#define DC_BPF_MAP_TYPE_STRUCT_OPS 26		/* enum bpf_map_type (5.6, for clarity) */
/* enum bpf_struct_ops_state: INIT, INUSE, TOBEFREE, READY (6.4) */
#define DC_STRUCT_OPS_STATE_INUSE 1

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif

/* Number of parameters of tcp_congestion_ops.cong_control in this BTF:
 * 2 on 6.1–6.9, 4 from 6.10; negative errno if absent. */
struct btf;
int dc_btf_cong_control_nargs(const struct btf *btf);
/* Same for the running kernel (vmlinux BTF). */
int dc_kernel_cong_control_nargs(void);
/* struct_ops links (6.4+): the kernel has struct bpf_struct_ops_link. */
bool dc_kernel_has_struct_ops_link(void);

/* Human description of an ABI ("cong_control(sk, ack, flag, rs), 6.10+"). */
const char *dc_abi_desc(int nargs);

/* Mount bpffs at DC_BPFFS_ROOT unless something is mounted there. */
int dc_bpffs_ensure(void);
bool dc_is_bpffs(const char *path);
/* Create pin_dir 0700 (parents under the bpffs root too); *created tells
 * whether dcbpfd made the last component. */
int dc_pin_dir_prepare(const char *dir, bool *created);

void dc_path(char *buf, size_t len, const char *dir, const char *name);
bool dc_exists(const char *path);

/* Is `name` in /proc/sys/net/ipv4/tcp_available_congestion_control? */
bool dc_cc_available(const char *name);
int dc_cc_available_list(char *buf, size_t len);

/*
 * Daemon lock: a POSIX write lock on the lock file (F_GETLK lets dcbpf see
 * the holder without taking the lock itself).  dc_lock_take returns 0 and
 * the fd, -EBUSY with *holder set, or a negative errno.
 */
int dc_lock_take(const char *path, int *fd_out, pid_t *holder);
/* PID holding the lock, 0 if none, negative errno if the file is unreadable. */
pid_t dc_lock_holder(const char *path);

/*
 * Open a pinned map and check it has the shape this build expects, so a
 * pin from another build is reported instead of misread.  Returns an fd or
 * a negative errno with *why explaining what and how to fix.
 */
int dc_pinned_map_open(const char *pin_dir, const char *name, __u32 type, __u32 key_size,
		       __u32 value_size, char *why, size_t whylen);

int dc_cfg_read(int fd, enum dc_cc_id id, struct dc_cc_cfg *cfg);
int dc_cfg_write(int fd, enum dc_cc_id id, const struct dc_cc_cfg *cfg);

/* struct_ops link → its map id (0 once detached).  Returns 0 or -errno. */
int dc_link_struct_ops(int link_fd, __u32 *link_id, __u32 *map_id);
/* State of a struct_ops map (DC_STRUCT_OPS_STATE_*), or -errno. */
int dc_struct_ops_state(int map_fd);
/* Name and type of a map fd. */
int dc_map_name(int fd, char *name, size_t len, __u32 *type, __u32 *id);

/* 0 if root; else -EPERM and err (EXIT_ERR) says why, naming pin_dir. */
int dc_root_check(const char *pin_dir, struct dc_err *err);
/* mkdir -p with mode 0700 (pin directories); 0 or -errno. */
int dc_mkdirs(const char *path);

#endif
