// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer harness for the config file parser (loader/lib/config.c) on
 * arbitrary input.  Built and run by `make fuzz` (and briefly by
 * tests/loader/fuzz_smoke.sh under `make check`).
 *
 * Properties, on every input:
 *   - no crash, leak or undefined behaviour (ASan, UBSan);
 *   - the result is either success (0, no message, *out replaced) or an
 *     error (-1, at least one message, *out untouched);
 *   - every complete error message names the file and a line number that
 *     exists in the input: "<name>:<line>: ...", 1 <= line <= lines;
 *   - parsing from memory (dc_config_load_string) and from a file
 *     (dc_config_load) give the same verdict, messages and configuration.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "loader/lib/config.h"

static void die(const char *what, const char *text, const char *msg)
{
	fprintf(stderr, "fuzz_config: property violated: %s\n--- input ---\n%s\n--- messages ---\n%s\n",
		what, text, msg ? msg : "");
	abort();
}

/* Lines in text as the parser counts them (a last line without '\n' counts). */
static unsigned long count_lines(const char *text)
{
	unsigned long n = 0;
	const char *p;

	for (p = text; *p; p++)
		if (*p == '\n')
			n++;
	if (p > text && p[-1] != '\n')
		n++;
	return n;
}

static void check_messages(const char *name, const char *text, const struct dc_errbuf *eb)
{
	size_t nl = strlen(name);
	unsigned long lines = count_lines(text);
	const char *p = eb->msg, *end;

	while (*p) {
		char *num_end;
		unsigned long line;

		end = strchr(p, '\n');
		if (!end)
			die("message not terminated by a newline", text, eb->msg);
		/* the buffer may cut the last message short: only whole ones */
		if (!end[1] && eb->len + 2 >= sizeof(eb->msg))
			break;
		if ((size_t)(end - p) < nl + 2 || memcmp(p, name, nl) || p[nl] != ':')
			die("message does not start with the file name", text, eb->msg);
		line = strtoul(p + nl + 1, &num_end, 10);
		if (num_end == p + nl + 1 || *num_end != ':')
			die("message without a line number", text, eb->msg);
		if (line < 1 || line > lines)
			die("line number outside the input", text, eb->msg);
		p = end + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dc_config sentinel_a, sentinel_b;
	struct dc_config *a, *b;
	struct dc_errbuf *ea, *eb;
	char name[64], *text;
	size_t len;
	int ra, rb, fd;

	/* The parser reads C strings: the input up to its first NUL. */
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	len = strlen(text);

	a = malloc(sizeof(*a));
	b = malloc(sizeof(*b));
	ea = calloc(1, sizeof(*ea));
	eb = calloc(1, sizeof(*eb));
	if (!a || !b || !ea || !eb)
		abort();
	memset(&sentinel_a, 0xa5, sizeof(sentinel_a));
	memset(&sentinel_b, 0xa5, sizeof(sentinel_b));
	*a = sentinel_a;
	*b = sentinel_b;

	fd = memfd_create("fuzz.conf", MFD_CLOEXEC);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		abort();
	snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);

	ra = dc_config_load_string(name, text, a, ea);
	if (ra == 0) {
		if (ea->count || ea->len)
			die("success with messages", text, ea->msg);
		if (!memcmp(a, &sentinel_a, sizeof(*a)))
			die("success without a configuration", text, NULL);
	} else if (ra == -1) {
		if (!ea->count || !ea->len)
			die("error without a message", text, NULL);
		if (memcmp(a, &sentinel_a, sizeof(*a)))
			die("error but the configuration was written", text, ea->msg);
		check_messages(name, text, ea);
	} else {
		die("result neither 0 nor -1", text, NULL);
	}

	rb = dc_config_load(name, b, eb);
	if (rb != ra || ea->count != eb->count || strcmp(ea->msg, eb->msg))
		die("memory and file parsing disagree", text, eb->msg);
	if (memcmp(a, b, sizeof(*a)))
		die("memory and file parsing give different configurations", text, NULL);

	close(fd);
	free(ea);
	free(eb);
	free(a);
	free(b);
	free(text);
	return 0;
}
