// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpfsys.h"
#include "pins.h"
#include "cli.h"
#include "err.h"

#define CC_AVAILABLE "/proc/sys/net/ipv4/tcp_available_congestion_control"

int dc_btf_cong_control_nargs(const struct btf *btf)
{
	const struct btf_member *m;
	const struct btf_type *t;
	int id;
	__u16 i;

	id = btf__find_by_name_kind(btf, "tcp_congestion_ops", BTF_KIND_STRUCT);
	if (id < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, (__u32)id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		if (strcmp(btf__name_by_offset(btf, m->name_off), "cong_control"))
			continue;
		/* member → (typedef/modifiers) → PTR → FUNC_PROTO */
		t = btf__type_by_id(btf, m->type);
		while (t && (btf_is_mod(t) || btf_is_typedef(t)))
			t = btf__type_by_id(btf, t->type);
		if (!t || !btf_is_ptr(t))
			return -EINVAL;
		t = btf__type_by_id(btf, t->type);
		if (!t || !btf_is_func_proto(t))
			return -EINVAL;
		return btf_vlen(t);
	}
	return -ENOENT;
}

int dc_kernel_cong_control_nargs(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int n;

	if (!btf)
		return -errno;
	n = dc_btf_cong_control_nargs(btf);
	btf__free(btf);
	return n;
}

bool dc_kernel_has_struct_ops_link(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool has;

	if (!btf)
		return false;
	has = btf__find_by_name_kind(btf, "bpf_struct_ops_link", BTF_KIND_STRUCT) >= 0;
	btf__free(btf);
	return has;
}

const char *dc_abi_desc(int nargs)
{
	switch (nargs) {
	case 4:
		return "cong_control(sk, ack, flag, rs) [6.10+] -> powertcp.bpf.o";
	case 2:
		return "cong_control(sk, rs) [6.1-6.9] -> powertcp_v61.bpf.o";
	default:
		return "unsupported cong_control ABI";
	}
}

bool dc_is_bpffs(const char *path)
{
	struct statfs st;

	return !statfs(path, &st) && (unsigned long)st.f_type == BPF_FS_MAGIC;
}

int dc_bpffs_ensure(void)
{
	if (dc_is_bpffs(DC_BPFFS_ROOT))
		return 0;
	if (mkdir(DC_BPFFS_ROOT, 0755) && errno != EEXIST)
		return -errno;
	/* 0700: pinned maps and links are for root only */
	if (mount("bpf", DC_BPFFS_ROOT, "bpf", 0, "mode=0700"))
		return -errno;
	return 0;
}

int dc_pin_dir_prepare(const char *dir, bool *created)
{
	char tmp[DC_PATH_LEN];
	size_t rl = strlen(DC_BPFFS_ROOT);
	struct stat st;
	char *p;

	*created = false;
	if (strlen(dir) >= sizeof(tmp))
		return -ENAMETOOLONG;
	snprintf(tmp, sizeof(tmp), "%s", dir);
	/* parents between the bpffs root and the pin dir */
	for (p = tmp + rl + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(tmp, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (!mkdir(dir, 0700)) {
		*created = true;
	} else if (errno != EEXIST) {
		return -errno;
	}
	if (stat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (!dc_is_bpffs(dir))
		return -EXDEV;
	return 0;
}

void dc_path(char *buf, size_t len, const char *dir, const char *name)
{
	dc_pin_path(buf, len, dir, name);
}

bool dc_exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

int dc_cc_available_list(char *buf, size_t len)
{
	FILE *f = fopen(CC_AVAILABLE, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

bool dc_cc_available(const char *name)
{
	char buf[1024], *tok, *save = NULL;

	if (dc_cc_available_list(buf, sizeof(buf)))
		return false;
	for (tok = strtok_r(buf, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save))
		if (!strcmp(tok, name))
			return true;
	return false;
}

static int lock_query(int fd, pid_t *holder)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	if (fcntl(fd, F_GETLK, &fl))
		return -errno;
	*holder = fl.l_type == F_UNLCK ? 0 : fl.l_pid;
	return 0;
}

int dc_lock_take(const char *path, int *fd_out, pid_t *holder)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char pid[32];
	int fd, n, err;

	*holder = 0;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (fcntl(fd, F_SETLK, &fl)) {
		err = -errno;
		if (err == -EAGAIN || err == -EACCES) {
			lock_query(fd, holder);
			err = -EBUSY;
		}
		close(fd);
		return err;
	}
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)n, 0) != n) {
		err = -errno;
		close(fd);
		return err;
	}
	*fd_out = fd;
	return 0;
}

pid_t dc_lock_holder(const char *path)
{
	pid_t holder = 0;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	err = lock_query(fd, &holder);
	close(fd);
	return err ? err : holder;
}

int dc_root_check(const char *pin_dir, struct dc_err *err)
{
	if (geteuid() == 0)
		return 0;
	dc_err_set(err, EXIT_ERR, "must be root: pinned maps under %s are root-only (run it with sudo)",
		   pin_dir);
	return -EPERM;
}

int dc_map_name(int fd, char *name, size_t len, __u32 *type, __u32 *id)
{
	struct bpf_map_info info;
	__u32 ilen = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &ilen))
		return -errno;
	if (name)
		snprintf(name, len, "%s", info.name);
	if (type)
		*type = info.type;
	if (id)
		*id = info.id;
	return 0;
}

int dc_pinned_map_open(const char *pin_dir, const char *name, __u32 type, __u32 key_size,
		       __u32 value_size, char *why, size_t whylen)
{
	struct bpf_map_info info;
	__u32 ilen = sizeof(info);
	char path[DC_PATH_LEN + 32];
	int fd, err;

	err = dc_pin_map_path(path, sizeof(path), pin_dir, name);
	if (err) {
		/* a name no object pins is a caller's bug, not a missing daemon */
		snprintf(why, whylen, "%s: %s", name, err == -ENOENT ? "no BPF object pins a map of "
			 "that name (pins.h)" : "path too long");
		return err == -ENOENT ? -EINVAL : err;
	}
	fd = bpf_obj_get(path);
	if (fd < 0) {
		err = -errno;
		if (err == -ENOENT)
			snprintf(why, whylen, "%s is not pinned: start dcbpfd (or pass the --pin-dir it uses)",
				 path);
		else if (err == -EPERM || err == -EACCES)
			snprintf(why, whylen, "must be root: pinned maps under %s are root-only", pin_dir);
		else
			snprintf(why, whylen, "cannot open pinned map %s: %s", path, strerror(-err));
		return err;
	}
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &ilen)) {
		err = -errno;
		snprintf(why, whylen, "%s: %s (is it a map?)", path, strerror(-err));
		close(fd);
		return err;
	}
	if (info.type != type || info.key_size != key_size || info.value_size != value_size) {
		snprintf(why, whylen,
			 "%s has type %u, key %u B, value %u B; this build expects type %u, key %u B, value %u B: "
			 "it was pinned by another build, stop dcbpfd and remove %s",
			 path, info.type, info.key_size, info.value_size, type, key_size, value_size,
			 pin_dir);
		close(fd);
		return -EPROTO;
	}
	return fd;
}

int dc_cfg_read(int fd, enum dc_cc_id id, struct dc_cc_cfg *cfg)
{
	__u32 key = id;

	return bpf_map_lookup_elem(fd, &key, cfg) ? -errno : 0;
}

int dc_cfg_write(int fd, enum dc_cc_id id, const struct dc_cc_cfg *cfg)
{
	__u32 key = id;

	/* A hash update swaps the whole element: readers see old or new. */
	return bpf_map_update_elem(fd, &key, cfg, BPF_ANY) ? -errno : 0;
}

/*
 * struct bpf_link_info as of 6.4: the 6.1 header lacks the struct_ops
 * member.  The union starts 8-byte aligned after type, id, prog_id.
 */
struct dc_link_info {
	__u32 type;
	__u32 id;
	__u32 prog_id;
	__u32 pad;
	union {
		struct {
			__u32 map_id;
		} struct_ops;
		__u8 raw[64];
	};
};

int dc_link_struct_ops(int link_fd, __u32 *link_id, __u32 *map_id)
{
	struct dc_link_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(link_fd, &info, &len))
		return -errno;
	if (info.type != DC_BPF_LINK_TYPE_STRUCT_OPS)
		return -EPROTOTYPE;
	*link_id = info.id;
	*map_id = info.struct_ops.map_id;
	return 0;
}

int dc_struct_ops_state(int map_fd)
{
	struct bpf_map_info info;
	__u32 ilen = sizeof(info), zero = 0;
	void *val;
	int state;

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(map_fd, &info, &ilen))
		return -errno;
	if (info.type != DC_BPF_MAP_TYPE_STRUCT_OPS || info.value_size < 8)
		return -EPROTOTYPE;
	val = calloc(1, info.value_size);
	if (!val)
		return -ENOMEM;
	/* value = { refcnt, state, data }: the kernel's common header */
	if (bpf_map_lookup_elem(map_fd, &zero, val))
		state = -errno;
	else
		state = (int)((__u32 *)val)[1];
	free(val);
	return state;
}

int dc_mkdirs(const char *path)
{
	char tmp[DC_PATH_LEN * 2];
	char *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(tmp, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}
