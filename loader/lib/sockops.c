// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach.h"
#include "bpfsys.h"
#include "cli.h"
#include "config.h"
#include "pins.h"
#include "sockops.h"

int dc_sockops_begin(const char *what, const char *dir, const char *cgroup, struct dc_err *e)
{
	char pin[DC_PATH_LEN * 4];
	int cg, rc;

	dc_pin_path(pin, sizeof(pin), dir, DC_SOCKOPS_PIN);
	if (access(pin, F_OK) == 0) {
		dc_err_set(e, EXIT_ERR, "%s is already attached (%s); detach first", what, pin);
		return -1;
	}
	cg = open(cgroup, O_RDONLY | O_DIRECTORY);
	if (cg < 0) {
		dc_err_set(e, EXIT_ERR, "cgroup %s: %s", cgroup, strerror(errno));
		return -1;
	}
	rc = dc_mkdirs(dir);
	if (rc) {
		close(cg);
		dc_err_set(e, EXIT_ERR, "cannot create %s: %s", dir, strerror(-rc));
		return -1;
	}
	return cg;
}

int dc_sockops_link(int prog_fd, int cg, const char *dir, const char *cgroup, struct dc_err *e)
{
	char pin[DC_PATH_LEN * 4];
	int fd;

	dc_pin_path(pin, sizeof(pin), dir, DC_SOCKOPS_PIN);
	fd = bpf_link_create(prog_fd, cg, BPF_CGROUP_SOCK_OPS, NULL);
	if (fd < 0 || bpf_obj_pin(fd, pin)) {
		dc_err_set(e, EXIT_ERR, "attaching the sockops program to cgroup %s failed: %s", cgroup,
			   strerror(errno));
		if (fd >= 0)
			close(fd);
		return EXIT_ERR;
	}
	close(fd);
	return 0;
}

int dc_sockops_detach(const char *what, const char *obj, const char *dir, struct dc_err *e)
{
	char pin[DC_PATH_LEN * 4];
	bool had;

	dc_pin_path(pin, sizeof(pin), dir, DC_SOCKOPS_PIN);
	had = access(pin, F_OK) == 0;
	if (had)
		dc_detach_pinned(pin);
	if (dc_pins_unpin(dir, obj, NULL, true, e))
		return e->code ? e->code : EXIT_ERR;
	if (!had)
		return dc_err_set(e, EXIT_ERR, "%s is not attached (%s)", what, pin);
	return 0;
}

int dc_sockops_attach(const struct dc_sockops_obj *o, const char *dir, const char *cgroup,
		      struct dc_err *e)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = dir, .object_name = o->skel);
	struct bpf_program *p = NULL;
	struct bpf_object *obj;
	size_t sz = 0;
	const void *elf = o->elf_bytes(&sz);
	int cg = dc_sockops_begin(o->what, dir, cgroup, e);
	__u64 pinned_before = dc_pins_present(dir, o->obj);

	if (cg < 0)
		return e->code ? e->code : EXIT_ERR;
	obj = bpf_object__open_mem(elf, sz, &oo);
	if (obj && !bpf_object__load(obj)) {
		p = bpf_object__find_program_by_name(obj, o->prog);
		errno = p ? 0 : ENOENT;
	}
	if (!p) {
		dc_err_set(e, EXIT_ERR, "loading the %s program failed: %s (maps pinned in %s with another "
			   "layout? detach and retry)", o->what, strerror(errno), dir);
		goto fail;
	}
	if (dc_sockops_link(bpf_program__fd(p), cg, dir, cgroup, e))
		goto fail;
	bpf_object__close(obj);
	close(cg);
	return 0;
fail:
	/* all or nothing, of what this load pinned: a pin that was there
	 * (a map of another layout that refused the load) is not ours */
	dc_pins_unpin_new(dir, o->obj, pinned_before);
	bpf_object__close(obj);
	close(cg);
	return EXIT_ERR;
}
