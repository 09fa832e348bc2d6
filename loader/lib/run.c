// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* An iproute2 tool in a network namespace, its output kept (run.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"

#define RUN_ARGS_MAX 64

int dc_run_ns(const char *prog, const char *netns, char *const *args, char *out, size_t outlen)
{
	char *argv[RUN_ARGS_MAX];
	int pfd[2], st = 0, n = 0, i, e;
	size_t got = 0;
	ssize_t r;
	pid_t pid;

	if (outlen)
		out[0] = 0;
	argv[n++] = (char *)prog;
	if (netns && *netns) {
		argv[n++] = "-n";
		argv[n++] = (char *)netns;
	}
	for (i = 0; args[i]; i++) {
		if (n >= RUN_ARGS_MAX - 1)
			return -E2BIG;
		argv[n++] = args[i];
	}
	argv[n] = NULL;
	if (pipe(pfd)) {
		e = errno;
		snprintf(out, outlen, "pipe: %s", strerror(e));
		return -e;
	}
	pid = fork();
	if (pid < 0) {
		e = errno;
		close(pfd[0]);
		close(pfd[1]);
		snprintf(out, outlen, "fork: %s", strerror(e));
		return -e;
	}
	if (!pid) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		execvp(prog, argv);
		_exit(127);
	}
	close(pfd[1]);
	while (got + 1 < outlen && (r = read(pfd[0], out + got, outlen - 1 - got)) > 0)
		got += (size_t)r;
	if (outlen)
		out[got] = 0;
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && !WEXITSTATUS(st))
		return 0;
	while (got && (out[got - 1] == '\n' || out[got - 1] == ' '))
		out[--got] = 0;
	return WIFEXITED(st) && WEXITSTATUS(st) == 127 ? -ENOENT : -1;
}
