// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dcbpfd: loads the PowerTCP / θ-PowerTCP congestion controls, pins their
 * maps and registrations under pin_dir, keeps the config map in step with
 * the config file (SIGHUP), and undoes all of it on SIGTERM unless --keep.
 * A restart adopts what a --keep (or a crash) left pinned instead of
 * loading a second copy.  Lifecycle and exit codes: docs/cli.md.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>

#include "bpfsys.h"
#include "clock.h"
#include "log.h"
#include "version.h"
#include "opts.h"
#include "dcbpfd/dcbpfd.h"

/* The options: one table gives parsing, validation and --help (opts.h). */
struct dmn_opts {
	const char *config;
	bool test, keep, no_links, verbose, version;
};

static const struct dc_opt dmn_opts[] = {
	{ "config", 'c', DC_OPT_PATH, DC_FIELD(struct dmn_opts, config), "FILE",
	  .help = "config file (default " DC_CONF_DEFAULT ")" },
	{ "test", 't', DC_OPT_FLAG, DC_FIELD(struct dmn_opts, test), NULL,
	  .help = "validate the config and exit (0 ok, 1 invalid)" },
	{ "keep", 'k', DC_OPT_FLAG, DC_FIELD(struct dmn_opts, keep), NULL,
	  .help = "on SIGTERM/SIGINT leave the CCs registered and pinned" },
	{ "no-links", 0, DC_OPT_FLAG, DC_FIELD(struct dmn_opts, no_links), NULL,
	  .help = "register by struct_ops map update and attach the INT programs by netlink "
		  "even where the kernel has links (the 6.1 path)" },
	{ "verbose", 'v', DC_OPT_FLAG, DC_FIELD(struct dmn_opts, verbose), NULL,
	  .help = "log at debug level (overrides log_level)" },
	{ "version", 'V', DC_OPT_FLAG, DC_FIELD(struct dmn_opts, version), NULL,
	  .help = "version, git description, libbpf, features built in" },
	{ NULL },
};

static void usage(FILE *f, bool full)
{
	char syn[256];

	dc_opts_synopsis(dmn_opts, syn, sizeof(syn));
	fprintf(f, "usage: dcbpfd%s\n", syn);
	if (!full)
		return;
	fprintf(f, "\n");
	dc_opts_help(f, dmn_opts, NULL, 0);
	fprintf(f, "\nSignals: SIGHUP reloads the config; SIGTERM/SIGINT stop.\n"
		   "Exit: 0 ok, 1 bad config, 2 usage, 3 runtime error, 4 already running,\n"
		   "      5 CC name registered by someone else.\n");
}

/* -1: run with d filled; else the exit code (help, version, usage error). */
static int parse_args(struct daemon *d, int argc, char **argv, bool *test, bool *verbose)
{
	struct dmn_opts o = { 0 };
	struct dc_err e = { 0 };
	char msg[DC_ERR_MSG_LEN + 16];

	switch (dc_opts_parse(dmn_opts, &o, argc, argv, &e)) {
	case DC_OPTS_HELP:
		usage(stdout, true);
		return EXIT_OK;
	case DC_OPTS_ERR:
		dc_err_fmt(&e, "dcbpfd", msg, sizeof(msg));
		fprintf(stderr, "%s\n", msg);
		usage(stderr, false);
		return EXIT_USAGE;
	}
	if (o.version) {
		dc_version_print(stdout, "dcbpfd");
		return EXIT_OK;
	}
	if (o.config) {
		d->conf_path = o.config;
		d->conf_explicit = true;
	}
	d->keep = o.keep;
	d->no_links = o.no_links;
	*test = o.test;
	*verbose = o.verbose;
	return -1;
}

void dmn_log_errbuf_level(const struct dc_errbuf *eb, __u32 level)
{
	char copy[sizeof(eb->msg)], *line, *save = NULL;

	memcpy(copy, eb->msg, sizeof(copy));
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		dc_log(level, "%s", line);
}

void dmn_log_errbuf(const struct dc_errbuf *eb)
{
	dmn_log_errbuf_level(eb, DC_LOG_ERROR);
}

/*
 * The service manager's readiness protocol (sd_notify(3)): one datagram of
 * "KEY=VALUE" lines to the AF_UNIX socket named by $NOTIFY_SOCKET, a path
 * or, starting with '@', an abstract name.  Done here in a few lines so
 * the daemon needs no libsystemd; without $NOTIFY_SOCKET it does nothing.
 */
static void notify(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void notify(const char *fmt, ...)
{
	const char *e = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char msg[512];
	size_t n;
	va_list ap;
	int fd;

	if (!e || (e[0] != '/' && e[0] != '@') || (n = strlen(e)) >= sizeof(sa.sun_path)) {
		if (e && e[0])
			dc_dbg("NOTIFY_SOCKET=%s: not an absolute path or @name; not notifying", e);
		return;
	}
	memcpy(sa.sun_path, e, n);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = 0;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n)) < 0)
		dc_warn("notifying the service manager (%s): %s", e, strerror(errno));
	close(fd);
}

/*
 * Read the config file.  A missing default file means built-in defaults
 * (so a bare `dcbpfd` works); a missing explicit -c file is an error.
 */
int dmn_read_config(struct daemon *d, struct dc_config *out, struct dc_errbuf *eb)
{
	return dc_config_read(d->conf_path, d->conf_explicit, out, eb);
}

static int run(struct daemon *d)
{
	struct signalfd_siginfo si;
	sigset_t set;
	int sfd;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		dc_err("signalfd: %s", strerror(errno));
		return -1;
	}
	for (;;) {
		struct pollfd pf[3] = { { .fd = sfd, .events = POLLIN },
					{ .fd = d->nl_fd, .events = POLLIN },
					{ .fd = d->timer_fd, .events = POLLIN } };
		ssize_t n;

		if (poll(pf, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			dc_err("poll: %s", strerror(errno));
			break;
		}
		if (pf[2].revents) {
			__u64 ticks;

			if (read(d->timer_fd, &ticks, sizeof(ticks)) > 0)
				dmn_metrics_write(d, true);
		}
		if (pf[1].revents)
			dmn_on_netlink(d);
		if (!pf[0].revents)
			continue;
		n = read(sfd, &si, sizeof(si));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n != (ssize_t)sizeof(si)) {
			dc_err("reading signals: %s", n < 0 ? strerror(errno) : "short read");
			break;
		}
		if (si.ssi_signo == SIGHUP) {
			notify("RELOADING=1\nMONOTONIC_USEC=%llu\nSTATUS=reloading %s",
			       (unsigned long long)(dc_mono_ns() / 1000), d->conf_path);
			if (dmn_reload(d))
				notify("READY=1\nSTATUS=reload of %s failed; running configuration kept "
				       "(see the log)", d->conf_path);
			else
				notify("READY=1\nSTATUS=running; %s reloaded", d->conf_path);
			continue;
		}
		dc_info("%s: stopping", strsignal((int)si.ssi_signo));
		notify("STOPPING=1\nSTATUS=stopping (%s)", strsignal((int)si.ssi_signo));
		break;
	}
	close(sfd);
	return 0;
}

int main(int argc, char **argv)
{
	struct daemon d = { .conf_path = DC_CONF_DEFAULT, .lock_fd = -1, .cfg_fd = -1,
			    .nl_fd = -1, .timer_fd = -1 };
	struct dc_errbuf eb = { .len = 0 };
	struct dc_err err = { 0 };
	bool test = false, verbose = false;
	sigset_t set;
	pid_t holder;
	int c, r, rc;
	unsigned int i;

	for (i = 0; i < DC_CC_REGS_MAX; i++)
		d.reg[i].link_fd = d.reg[i].map_fd = -1;
	c = parse_args(&d, argc, argv, &test, &verbose);
	if (c >= 0)
		return c;

	/* Signals wait in the signalfd from the start: a SIGTERM during
	 * loading stops cleanly after the start instead of mid-way. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);

	dc_log_init("dcbpfd", DC_LOG_INFO);
	r = dmn_read_config(&d, &d.cfg, &eb);
	if (r < 0) {
		dmn_log_errbuf(&eb);
		dc_err("%s: %u error(s); nothing applied", d.conf_path, eb.count);
		return EXIT_CONFIG;
	}
	if (test) {
		printf("%s: ok%s\n", d.conf_path, r > 0 ? " (absent: built-in defaults)" : "");
		return EXIT_OK;
	}
	if (r > 0)
		dc_warn("no config file at %s; using built-in defaults", d.conf_path);
	dc_log_set_level(verbose ? DC_LOG_DEBUG : d.cfg.daemon.log_level);
	if (dc_root_check(d.cfg.daemon.pin_dir, &err)) {
		fprintf(stderr, "dcbpfd: %s\n", err.msg);
		return EXIT_RUNTIME;
	}

	r = dc_lock_take(d.cfg.daemon.lock_file, &d.lock_fd, &holder);
	if (r == -EBUSY) {
		dc_err("another dcbpfd is running (pid %d holds %s); stop it first", (int)holder,
		       d.cfg.daemon.lock_file);
		return EXIT_RUNNING;
	}
	if (r) {
		dc_err("cannot lock %s: %s", d.cfg.daemon.lock_file, strerror(-r));
		return EXIT_RUNTIME;
	}

	rc = dmn_start(&d);
	if (rc != EXIT_OK)
		notify("STATUS=start failed (exit %d); see the log", rc);
	if (rc == EXIT_OK) {
		char names[256];
		size_t off = 0;
		unsigned int n = 0, k = 0;

		/* the CCs this run registered or adopted */
		for (i = 0; i < dc_ncc_regs; i++)
			n += d.reg[i].registered || d.reg[i].adopted;
		for (i = 0; i < dc_ncc_regs && off < sizeof(names); i++) {
			if (!d.reg[i].registered && !d.reg[i].adopted)
				continue;
			off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s",
						k ? (k + 1 == n ? " and " : ", ") : "",
						dc_cc_regs[i].name);
			k++;
		}
		dc_info("ready: %s registered, pins under %s (pid %d)", names, d.cfg.daemon.pin_dir,
			(int)getpid());
		/* maps pinned, programs loaded and registered, config written: from
		 * here `dcbpf` and the CCs work, so this is when the service is up */
		notify("READY=1\nMAINPID=%d\nSTATUS=running: %s registered, pins under %s",
		       (int)getpid(), names, d.cfg.daemon.pin_dir);
		if (run(&d))
			rc = EXIT_RUNTIME;
		if (d.keep) {
			dmn_close_all(&d);
			dc_info("--keep: leaving the CCs registered, the INT programs attached and "
				"everything pinned under %s; a restart adopts them", d.cfg.daemon.pin_dir);
		} else {
			dmn_stop_full(&d);
		}
		/* a last snapshot says the daemon is down (and, after a full stop,
		 * that nothing is registered) instead of leaving stale values */
		dmn_metrics_write(&d, false);
	}
	unlink(d.cfg.daemon.lock_file);
	close(d.lock_fd);
	return rc;
}
