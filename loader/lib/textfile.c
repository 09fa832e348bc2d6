// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Reading a small text input whole: loader/lib/textfile.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "textfile.h"

int dc_text_read(const char *path, size_t max_bytes, char **out, struct dc_err *err)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	*out = NULL;
	if (!f)
		return dc_err_set(err, EXIT_ERR, "%s: %s", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return dc_err_set(err, EXIT_ERR, "%s: cannot read", path);
	}
	if ((size_t)n > max_bytes) {
		fclose(f);
		return dc_err_set(err, EXIT_USAGE, "%s: larger than %zu MiB", path, max_bytes >> 20);
	}
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return dc_err_set(err, EXIT_ERR, "%s: cannot read", path);
	}
	fclose(f);
	buf[n] = 0;
	if (strlen(buf) != (size_t)n) {
		free(buf);
		return dc_err_set(err, EXIT_USAGE, "%s: not a text file (NUL byte)", path);
	}
	*out = buf;
	return 0;
}
