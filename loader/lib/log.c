// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>

#include "log.h"

static const char *log_prog = "dcbpf";
static __u32 log_level = DC_LOG_INFO;
/* Under systemd, stderr goes to the journal, which reads "<N>" prefixes
 * as syslog priorities; elsewhere a readable level word is clearer. */
static int log_journal;

static const int syslog_prio[] = { 3, 4, 6, 7 };

static void vlog(__u32 level, const char *fmt, va_list ap)
{
	char msg[1024];
	size_t n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = '\0';
	if (log_journal)
		fprintf(stderr, "<%d>%s\n", syslog_prio[level], msg);
	else
		fprintf(stderr, "%s: %s: %s\n", log_prog, dc_log_level_name(level), msg);
}

void dc_log(__u32 level, const char *fmt, ...)
{
	va_list ap;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}

/* libbpf explains load and verifier failures at WARN; keep those visible. */
static int libbpf_print(enum libbpf_print_level lvl, const char *fmt, va_list ap)
{
	__u32 level = lvl == LIBBPF_WARN ? DC_LOG_WARN : DC_LOG_DEBUG;

	if (level > log_level)
		return 0;
	vlog(level, fmt, ap);
	return 0;
}

/* JOURNAL_STREAM names the journal's stream as "dev:inode"; children that
 * inherit the variable but not the fd must not use prefixes. */
static int stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2 || fstat(2, &st))
		return 0;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void dc_log_init(const char *prog, __u32 level)
{
	log_prog = prog;
	log_level = level > DC_LOG_DEBUG ? DC_LOG_DEBUG : level;
	log_journal = stderr_is_journal();
	libbpf_set_print(libbpf_print);
}

void dc_log_set_level(__u32 level)
{
	log_level = level > DC_LOG_DEBUG ? DC_LOG_DEBUG : level;
}

__u32 dc_log_get_level(void)
{
	return log_level;
}
