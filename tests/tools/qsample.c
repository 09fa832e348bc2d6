// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * qsample: sample one qdisc's backlog and byte counters at a fixed period
 * through rtnetlink (one RTM_GETQDISC request per sample, no tc process)
 * and write CSV lines "t_ns,backlog_bytes,sent_bytes,drops".
 *
 * t_ns is CLOCK_MONOTONIC, the clock the incast tool reports its start on,
 * so samples and workload events line up. Run it inside the namespace of
 * the device: ip netns exec NS qsample -d DEV ...
 *
 * -a: every root qdisc of every namespace given with -N (or of the current
 * one), one dump request per namespace per period, lines
 * "t_ns,netns,dev,backlog_bytes,sent_bytes,drops". One process and one
 * wakeup per period for a whole fabric: a sampler per port (or per switch)
 * would cost the 2-core machine a wakeup each. The netlink sockets are
 * opened inside each namespace and keep it; the process itself stays where
 * it started.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: qsample -d DEV [-i INTERVAL_US] [-t SECONDS | -n COUNT] [-o FILE] [-p PARENT]\n"
		"  -d DEV          device whose qdisc is sampled (in the current netns)\n"
		"  -i INTERVAL_US  sampling period in microseconds (default 1000)\n"
		"  -t SECONDS      stop after this long (default or 0: until SIGTERM/SIGINT)\n"
		"  -n COUNT        stop after COUNT samples (-n 1: one reading, e.g. for a timestamp)\n"
		"  -o FILE         CSV output (default stdout)\n"
		"  -p PARENT       qdisc by parent handle maj:min (default root)\n"
		"  -q              no header line\n"
		"  -r              run SCHED_FIFO so samples stay on time on a busy host\n"
		"  -a              every root qdisc (instead of -d), of each -N namespace\n"
		"  -N NETNS        with -a: a namespace by name (/run/netns/NETNS) or path;\n"
		"                  repeat for more (default: the current namespace)\n"
		"output: t_ns,backlog_bytes,sent_bytes,drops  (t_ns = CLOCK_MONOTONIC)\n"
		"   -a: t_ns,netns,dev,backlog_bytes,sent_bytes,drops\n");
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct sample {
	uint64_t backlog, bytes, drops;
	int found;
};

/* Pull backlog/bytes/drops out of one RTM_NEWQDISC message. */
static void parse_qdisc(struct nlmsghdr *nh, struct sample *s)
{
	struct tcmsg *tcm = NLMSG_DATA(nh);
	int len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*tcm));
	struct rtattr *rta = (struct rtattr *)((char *)tcm + NLMSG_ALIGN(sizeof(*tcm)));

	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type != TCA_STATS2)
			continue;
		int slen = RTA_PAYLOAD(rta);
		struct rtattr *st = RTA_DATA(rta);

		for (; RTA_OK(st, slen); st = RTA_NEXT(st, slen)) {
			if (st->rta_type == TCA_STATS_BASIC && RTA_PAYLOAD(st) >= 8) {
				struct gnet_stats_basic b = { 0 };
				size_t n = RTA_PAYLOAD(st) < sizeof(b) ? RTA_PAYLOAD(st) : sizeof(b);

				memcpy(&b, RTA_DATA(st), n);
				s->bytes = b.bytes;
				s->found = 1;
			} else if (st->rta_type == TCA_STATS_QUEUE &&
				   RTA_PAYLOAD(st) >= sizeof(struct gnet_stats_queue)) {
				struct gnet_stats_queue q;

				memcpy(&q, RTA_DATA(st), sizeof(q));
				s->backlog = q.backlog;
				s->drops = q.drops;
				s->found = 1;
			}
		}
	}
}

/*
 * One request/response. NLM_F_ECHO makes kernels that answer a qdisc GET
 * through the notify path (before 6.x) unicast the answer to us as well.
 */
static int query(int fd, int ifindex, uint32_t parent, uint32_t seq, struct sample *s,
		 char *buf, size_t buflen)
{
	struct {
		struct nlmsghdr nh;
		struct tcmsg tcm;
	} req;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.tcm));
	req.nh.nlmsg_type = RTM_GETQDISC;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ECHO;
	req.nh.nlmsg_seq = seq;
	req.tcm.tcm_family = AF_UNSPEC;
	req.tcm.tcm_ifindex = ifindex;
	req.tcm.tcm_parent = parent;

	if (send(fd, &req, req.nh.nlmsg_len, 0) < 0)
		return -errno;
	memset(s, 0, sizeof(*s));
	for (;;) {
		ssize_t n = recv(fd, buf, buflen, 0);

		if (n < 0) {
			if (errno == EINTR && !stop)
				continue;
			return -errno;
		}
		for (struct nlmsghdr *nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n);
		     nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_seq != seq)
				continue; /* stale answer from an interrupted round */
			if (nh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nh);

				if (e->error)
					return e->error;
				continue;
			}
			if (nh->nlmsg_type == RTM_NEWQDISC) {
				parse_qdisc(nh, s);
				return s->found ? 0 : -ENODATA;
			}
		}
	}
}

/*
 * Sleep to the next period's absolute deadline: a late wakeup shortens the
 * next sleep instead of drifting; a period lost entirely is skipped and
 * counted in *missed.
 */
/* End of a sampling loop: flush the CSV, say how many periods the machine
 * made us miss.  Exit status of the tool. */
static int finish(FILE *out, uint64_t missed, uint64_t nsamples)
{
	if (fclose(out)) {
		fprintf(stderr, "qsample: writing output: %s\n", strerror(errno));
		return 1;
	}
	if (missed)
		fprintf(stderr, "qsample: %llu of %llu periods missed (machine busy)\n",
			(unsigned long long)missed, (unsigned long long)(missed + nsamples));
	return 0;
}

static void sleep_next(struct timespec *next, long interval_us, uint64_t *missed)
{
	next->tv_nsec += interval_us * 1000;
	while (next->tv_nsec >= 1000000000) {
		next->tv_nsec -= 1000000000;
		next->tv_sec++;
	}
	uint64_t nx = (uint64_t)next->tv_sec * 1000000000ull + next->tv_nsec;
	uint64_t cur = now_ns();

	if (nx + interval_us * 1000ull < cur) {
		uint64_t skip = (cur - nx) / (interval_us * 1000ull);

		*missed += skip;
		nx += skip * interval_us * 1000ull;
		next->tv_sec = nx / 1000000000ull;
		next->tv_nsec = nx % 1000000000ull;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL) == EINTR && !stop)
		;
}

/* ---- -a: every root qdisc of several namespaces ----------------------- */

#define NS_MAX 64
#define NS_DEVS 256

struct nsock {
	int fd;
	char name[64];
	int ndev;
	unsigned int ifindex[NS_DEVS];
	char ifname[NS_DEVS][IF_NAMESIZE];
};

/* A netlink socket inside namespace `arg` (a name under /run/netns or a
 * path; NULL: the current one) and its interface names, read there. */
static int ns_open(const char *arg, struct nsock *n)
{
	char path[512];
	int self = -1, target = -1, err = 0;

	memset(n, 0, sizeof(*n));
	n->fd = -1;
	if (arg) {
		snprintf(path, sizeof(path), strchr(arg, '/') ? "%s" : "/run/netns/%s", arg);
		const char *b = strrchr(arg, '/');

		snprintf(n->name, sizeof(n->name), "%s", b ? b + 1 : arg);
		self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		target = open(path, O_RDONLY | O_CLOEXEC);
		if (self < 0 || target < 0 || setns(target, CLONE_NEWNET)) {
			err = errno;
			fprintf(stderr, "qsample: namespace '%s' (%s): %s\n", arg, path, strerror(err));
			goto out;
		}
	} else {
		snprintf(n->name, sizeof(n->name), ".");
	}
	n->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (n->fd < 0 || bind(n->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = errno;
		fprintf(stderr, "qsample: netlink socket in '%s': %s\n", n->name, strerror(err));
	} else {
		struct if_nameindex *ni = if_nameindex(), *p;

		for (p = ni; p && p->if_index && n->ndev < NS_DEVS; p++, n->ndev++) {
			n->ifindex[n->ndev] = p->if_index;
			snprintf(n->ifname[n->ndev], IF_NAMESIZE, "%s", p->if_name);
		}
		if (ni)
			if_freenameindex(ni);
	}
	if (arg && setns(self, CLONE_NEWNET)) {
		err = errno;
		fprintf(stderr, "qsample: back to our namespace: %s\n", strerror(err));
	}
out:
	if (self >= 0)
		close(self);
	if (target >= 0)
		close(target);
	return err ? -err : 0;
}

static const char *ns_ifname(const struct nsock *n, unsigned int ifindex, char *tmp)
{
	for (int i = 0; i < n->ndev; i++)
		if (n->ifindex[i] == ifindex)
			return n->ifname[i];
	snprintf(tmp, IF_NAMESIZE, "if%u", ifindex);
	return tmp;
}

/* Is this qdisc message's kind "noqueue" (a device that queues nothing)? */
static int is_noqueue(struct nlmsghdr *nh)
{
	struct tcmsg *tcm = NLMSG_DATA(nh);
	int len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*tcm));
	struct rtattr *rta = (struct rtattr *)((char *)tcm + NLMSG_ALIGN(sizeof(*tcm)));

	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
		if (rta->rta_type == TCA_KIND)
			return !strcmp(RTA_DATA(rta), "noqueue");
	return 0;
}

/* One dump of namespace n's qdiscs: a line per root qdisc that can queue. */
static int dump_ns(struct nsock *n, uint32_t seq, uint64_t t, FILE *out, char *buf, size_t buflen)
{
	struct {
		struct nlmsghdr nh;
		struct tcmsg tcm;
	} req;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.tcm));
	req.nh.nlmsg_type = RTM_GETQDISC;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nh.nlmsg_seq = seq;
	req.tcm.tcm_family = AF_UNSPEC;
	if (send(n->fd, &req, req.nh.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		ssize_t len = recv(n->fd, buf, buflen, 0);

		if (len < 0) {
			if (errno == EINTR && !stop)
				continue;
			return -errno;
		}
		for (struct nlmsghdr *nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)len);
		     nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_seq != seq)
				continue;
			if (nh->nlmsg_type == NLMSG_DONE)
				return 0;
			if (nh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nh);

				if (e->error)
					return e->error;
				continue;
			}
			struct tcmsg *tcm = NLMSG_DATA(nh);
			struct sample s = { 0 };
			char tmp[IF_NAMESIZE];

			if (nh->nlmsg_type != RTM_NEWQDISC || tcm->tcm_parent != TC_H_ROOT || is_noqueue(nh))
				continue;
			parse_qdisc(nh, &s);
			if (s.found)
				fprintf(out, "%llu,%s,%s,%llu,%llu,%llu\n", (unsigned long long)t, n->name,
					ns_ifname(n, (unsigned int)tcm->tcm_ifindex, tmp),
					(unsigned long long)s.backlog, (unsigned long long)s.bytes,
					(unsigned long long)s.drops);
		}
	}
}

static int run_all(char **nsv, int nns, FILE *out, int header, double seconds,
		   unsigned long long count, long interval_us)
{
	static struct nsock ns[NS_MAX];
	static char buf[64 * 1024];
	int k, n = nns ? nns : 1, err;

	for (k = 0; k < n; k++)
		if (ns_open(nns ? nsv[k] : NULL, &ns[k]))
			return 1;
	if (header)
		fprintf(out, "t_ns,netns,dev,backlog_bytes,sent_bytes,drops\n");

	uint64_t start = now_ns();
	uint64_t end = seconds > 0 ? start + (uint64_t)(seconds * 1e9) : UINT64_MAX;
	uint64_t missed = 0, nsamples = 0;
	uint32_t seq = 1;
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!stop) {
		uint64_t t = now_ns();

		/* one time stamp per period: the namespaces' dumps are a few
		 * tens of µs apart, well inside the period */
		for (k = 0; k < n; k++) {
			err = dump_ns(&ns[k], seq++, t, out, buf, sizeof(buf));
			if (err && !stop) {
				fprintf(stderr, "qsample: qdisc dump in '%s' failed after %llu samples: %s\n",
					ns[k].name, (unsigned long long)nsamples, strerror(-err));
				fclose(out);
				return 1;
			}
		}
		nsamples++;
		if (t >= end || (count && nsamples >= count))
			break;
		sleep_next(&next, interval_us, &missed);
	}
	return finish(out, missed, nsamples);
}

static int parse_handle(const char *str, uint32_t *out)
{
	unsigned int maj = 0, min = 0;

	if (!strcmp(str, "root")) {
		*out = TC_H_ROOT;
		return 0;
	}
	if (sscanf(str, "%x:%x", &maj, &min) < 1 || maj > 0xffff || min > 0xffff)
		return -1;
	*out = TC_H_MAKE(maj << 16, min);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *outpath = NULL;
	double seconds = 0;
	long interval_us = 1000;
	uint32_t parent = TC_H_ROOT;
	int header = 1, rt = 0, all = 0, nns = 0, c;
	unsigned long long count = 0;
	char *nsv[NS_MAX];

	while ((c = getopt(argc, argv, "d:i:t:n:o:p:qrhaN:")) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'i': interval_us = strtol(optarg, NULL, 10); break;
		case 't': seconds = strtod(optarg, NULL); break;
		case 'n': count = strtoull(optarg, NULL, 10); break;
		case 'o': outpath = optarg; break;
		case 'p':
			if (parse_handle(optarg, &parent)) {
				fprintf(stderr, "qsample: bad parent handle '%s' (want maj:min or root)\n", optarg);
				return 2;
			}
			break;
		case 'q': header = 0; break;
		case 'r': rt = 1; break;
		case 'a': all = 1; break;
		case 'N':
			if (nns == NS_MAX) {
				fprintf(stderr, "qsample: at most %d namespaces (-N)\n", NS_MAX);
				return 2;
			}
			nsv[nns++] = optarg;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!(dev || all) || (dev && all) || (nns && !all) || interval_us < 10) {
		usage(stderr);
		return 2;
	}
	int ifindex = all ? 0 : if_nametoindex(dev);

	if (!all && !ifindex) {
		fprintf(stderr, "qsample: device '%s' not found in this network namespace "
			"(run it with ip netns exec NS)\n", dev);
		return 1;
	}
	FILE *out = stdout;

	if (outpath && !(out = fopen(outpath, "w"))) {
		fprintf(stderr, "qsample: cannot write '%s': %s\n", outpath, strerror(errno));
		return 1;
	}
	/* 1 MiB stdio buffer: one write() per ~25k samples, not per sample. */
	static char obuf[1 << 20];
	setvbuf(out, obuf, _IOFBF, sizeof(obuf));

	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	if (fd < 0) {
		fprintf(stderr, "qsample: netlink socket: %s\n", strerror(errno));
		return 1;
	}
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "qsample: netlink bind: %s\n", strerror(errno));
		return 1;
	}
	if (rt) {
		struct sched_param sp = { .sched_priority = 10 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			fprintf(stderr, "qsample: SCHED_FIFO refused (%s); sampling at normal priority\n",
				strerror(errno));
	}
	struct sigaction act = { .sa_handler = on_signal };

	sigaction(SIGTERM, &act, NULL);
	sigaction(SIGINT, &act, NULL);
	if (all)
		return run_all(nsv, nns, out, header, seconds, count, interval_us);

	static char buf[64 * 1024];
	struct sample s;
	uint32_t seq = 1;
	int err = query(fd, ifindex, parent, seq++, &s, buf, sizeof(buf));

	if (err) {
		fprintf(stderr, "qsample: RTM_GETQDISC on %s: %s%s\n", dev, strerror(-err),
			err == -ENOENT || err == -EINVAL ? " (no such qdisc; check tc qdisc show dev)" : "");
		return 1;
	}
	if (header)
		fprintf(out, "t_ns,backlog_bytes,sent_bytes,drops\n");

	uint64_t start = now_ns();
	uint64_t end = seconds > 0 ? start + (uint64_t)(seconds * 1e9) : UINT64_MAX;
	struct timespec next;
	uint64_t missed = 0, nsamples = 0;

	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!stop) {
		uint64_t t = now_ns();

		err = query(fd, ifindex, parent, seq++, &s, buf, sizeof(buf));
		if (err) {
			if (stop)
				break;
			fprintf(stderr, "qsample: RTM_GETQDISC on %s failed after %llu samples: %s\n",
				dev, (unsigned long long)nsamples, strerror(-err));
			fclose(out);
			return 1;
		}
		fprintf(out, "%llu,%llu,%llu,%llu\n", (unsigned long long)t,
			(unsigned long long)s.backlog, (unsigned long long)s.bytes,
			(unsigned long long)s.drops);
		nsamples++;
		if (t >= end || (count && nsamples >= count))
			break;
		sleep_next(&next, interval_us, &missed);
	}
	return finish(out, missed, nsamples);
}
