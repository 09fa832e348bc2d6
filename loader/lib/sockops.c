// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

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
