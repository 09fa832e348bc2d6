// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `dcbpf int …`: in-band telemetry on hosts and switches.
 *
 *   int attach [--netns NS] IFACE...     host programs: egress = source + echo,
 *                                        ingress = sink + publication for PowerTCP
 *   int detach [--netns NS] IFACE...
 *   int switch attach|detach NAME        transit hop on every port of switch NAME
 *   int dst add PREFIX [--slots N] | del PREFIX | list
 *   int status                           counters, destinations, attachments
 *
 * Host programs share the daemon's pin dir, so the sender's ingress
 * publishes into the very dc_int_flows PowerTCP reads; their links are
 * pinned under <pin_dir>/int/<netns>/.  A switch's transit programs load
 * with the switch's pin root (<pin_dir>/sw/<name>/), reusing its port
 * records, and pin their links under <pin_dir>/sw/<name>/int/.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dcbpf/int.h"
#include "dcbpf/switch.h"
#include "attach.h"
#include "bpfsys.h"
#include "cli.h"
#include "config.h"
#include "intctl.h"
#include "inthost.h"
#include "int_transit.skel.h"

#define INT_DIR "int"

static void int_usage(FILE *f)
{
	fprintf(f, "usage: dcbpf int attach [--netns NS] [--no-links] IFACE...\n"
		   "       dcbpf int detach [--netns NS] [--no-links] IFACE...\n"
		   "       dcbpf int switch attach|detach [--no-links] NAME\n"
		   "       dcbpf int dst add PREFIX [--slots N] | dst del PREFIX | dst list\n"
		   "       dcbpf int status\n");
}

static void link_pin(char *buf, size_t len, const char *dir, const char *ifname,
		     const char *suffix)
{
	/* bpffs refuses names with dots */
	snprintf(buf, len, "%s/%s_%s", dir, ifname, suffix);
}

/* Attach prog on hook of ifname; undo nothing here (callers roll back). */
static int attach_one(int prog_fd, enum dc_hook hook, const char *netns, const char *ifname,
		      const char *pin, bool no_links)
{
	struct dc_attach a = { .hook = hook, .netns = netns, .ifname = ifname, .pin_path = pin,
			       .no_links = no_links };
	enum dc_attach_how how;
	char why[512];
	int err = dc_attach_prog(prog_fd, &a, &how, why, sizeof(why));

	if (err)
		fprintf(stderr, "dcbpf int: %s\n", why);
	return err;
}

static void detach_one(enum dc_hook hook, const char *netns, const char *ifname,
		       const char *pin)
{
	struct dc_attach a = { .hook = hook, .netns = netns, .ifname = ifname };

	if (access(pin, F_OK) == 0)
		dc_detach_pinned(pin);
	else
		dc_detach_netlink(&a); /* attached without links (old kernel or --no-links) */
}

int dc_int_host_cmd(const char *pin_dir, const char *netns, bool no_links, int n,
		    char **ifaces, bool detach)
{
	struct dc_int_host *h;
	char why[512];
	int i;

	if (detach) {
		for (i = 0; i < n; i++)
			dc_int_host_detach(pin_dir, netns, ifaces[i]);
		dc_int_host_tidy(pin_dir, netns);
		return EXIT_OK;
	}
	h = dc_int_host_open(pin_dir, 0, why, sizeof(why));
	if (!h) {
		fprintf(stderr, "dcbpf: %s\n", why);
		return EXIT_ERR;
	}
	for (i = 0; i < n; i++) {
		if (dc_int_host_attach(h, netns, ifaces[i], no_links, why, sizeof(why))) {
			fprintf(stderr, "dcbpf: %s\n", why);
			/* all or nothing: take back what this call attached */
			while (--i >= 0)
				dc_int_host_detach(pin_dir, netns, ifaces[i]);
			dc_int_host_close(h);
			dc_int_host_tidy(pin_dir, netns);
			return EXIT_ERR;
		}
	}
	dc_int_host_close(h);
	return EXIT_OK;
}

/* A switch's ports, from its pinned records. */
static int switch_ports(const char *sw_dir, struct dc_sw_port *ports, int max, char *netns,
			size_t nslen)
{
	char path[DC_PATH_LEN * 3];
	struct dc_sw_meta meta = {};
	__u32 zero = 0, k;
	int fd, n = 0;

	dc_path(path, sizeof(path), sw_dir, "dc_sw_meta");
	fd = bpf_obj_get(path);
	if (fd < 0 || bpf_map_lookup_elem(fd, &zero, &meta)) {
		fprintf(stderr, "dcbpf int: no switch at %s (dcbpf switch up first): %s\n", sw_dir,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	snprintf(netns, nslen, "%s", meta.netns);
	dc_path(path, sizeof(path), sw_dir, "dc_sw_port");
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -1;
	for (k = 0; k < DC_SW_PORTS_MAX && n < max; k++) {
		struct dc_sw_port p;

		if (!bpf_map_lookup_elem(fd, &k, &p) && p.rate_mbps && p.ifname[0])
			ports[n++] = p;
	}
	close(fd);
	return n;
}

static int cmd_switch(const char *pin_dir, const char *name, bool no_links, bool detach)
{
	char sw_dir[DC_PATH_LEN * 2], dir[DC_PATH_LEN * 2 + 8], pin[DC_PATH_LEN * 3];
	struct dc_sw_port ports[DC_SW_PORTS_MAX];
	char netns[64];
	struct int_transit_bpf *s;
	int n, i, err;

	snprintf(sw_dir, sizeof(sw_dir), "%s/sw/%s", pin_dir, name);
	snprintf(dir, sizeof(dir), "%s/%s", sw_dir, INT_DIR);
	n = switch_ports(sw_dir, ports, DC_SW_PORTS_MAX, netns, sizeof(netns));
	if (n < 0)
		return EXIT_ERR;
	if (detach) {
		for (i = 0; i < n; i++) {
			link_pin(pin, sizeof(pin), dir, ports[i].ifname, "egress");
			detach_one(DC_HOOK_TC_EGRESS, netns[0] ? netns : NULL, ports[i].ifname, pin);
		}
		dc_path(pin, sizeof(pin), sw_dir, "dc_int_xstats");
		unlink(pin);
		rmdir(dir);
		return EXIT_OK;
	}
	err = dc_mkdirs(dir);
	if (err) {
		fprintf(stderr, "dcbpf int: cannot create %s: %s\n", dir, strerror(-err));
		return EXIT_ERR;
	}
	{
		LIBBPF_OPTS(bpf_object_open_opts, o, .pin_root_path = sw_dir);

		s = int_transit_bpf__open_opts(&o);
		if (!s || int_transit_bpf__load(s)) {
			fprintf(stderr, "dcbpf int: loading the transit program for switch %s failed: %s\n",
				name, strerror(errno));
			int_transit_bpf__destroy(s);
			return EXIT_ERR;
		}
	}
	for (i = 0; i < n; i++) {
		link_pin(pin, sizeof(pin), dir, ports[i].ifname, "egress");
		if (attach_one(bpf_program__fd(s->progs.dc_int_xmit), DC_HOOK_TC_EGRESS,
			       netns[0] ? netns : NULL, ports[i].ifname, pin, no_links)) {
			for (; i >= 0; i--) {
				link_pin(pin, sizeof(pin), dir, ports[i].ifname, "egress");
				detach_one(DC_HOOK_TC_EGRESS, netns[0] ? netns : NULL, ports[i].ifname,
					   pin);
			}
			int_transit_bpf__destroy(s);
			return EXIT_ERR;
		}
	}
	int_transit_bpf__destroy(s);
	return EXIT_OK;
}

static int parse_prefix(const char *arg, struct dc_int_dst_key *k)
{
	char buf[64], *slash, *end;
	unsigned long len = 32;

	snprintf(buf, sizeof(buf), "%s", arg);
	slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		len = strtoul(slash + 1, &end, 10);
		if (*end || len > 32)
			return -1;
	}
	if (inet_pton(AF_INET, buf, &k->addr) != 1)
		return -1;
	k->prefixlen = (__u32)len;
	return 0;
}

static int open_dst(const char *pin_dir)
{
	char path[DC_PATH_LEN * 2];
	int fd;

	dc_path(path, sizeof(path), pin_dir, "dc_int_dst");
	fd = bpf_obj_get(path);
	if (fd < 0)
		fprintf(stderr, "dcbpf int: %s not pinned (run `dcbpf int attach` on a host first): %s\n",
			path, strerror(errno));
	return fd;
}

static int cmd_dst(const char *pin_dir, int argc, char **argv)
{
	struct dc_int_dst_key k = {}, next;
	struct dc_int_dst_cfg v = { .slots = DC_INT_WIRE_MAX_SLOTS };
	int fd, rc = EXIT_OK;

	if (argc < 2 || (strcmp(argv[1], "list") && argc < 3)) {
		int_usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "list") && parse_prefix(argv[2], &k)) {
		fprintf(stderr, "dcbpf int dst: '%s' is not an IPv4 prefix (A.B.C.D[/LEN])\n", argv[2]);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "add") && argc == 5 && !strcmp(argv[3], "--slots")) {
		char *end;
		unsigned long n = strtoul(argv[4], &end, 10);

		if (*end || n < 1 || n > DC_INT_WIRE_MAX_SLOTS) {
			fprintf(stderr, "dcbpf int dst: --slots %s: allowed 1..%d (40 bytes of IPv4 "
					"options hold 4 hops)\n", argv[4], DC_INT_WIRE_MAX_SLOTS);
			return EXIT_USAGE;
		}
		v.slots = (__u32)n;
	} else if (!strcmp(argv[1], "add") && argc != 3) {
		int_usage(stderr);
		return EXIT_USAGE;
	}
	fd = open_dst(pin_dir);
	if (fd < 0)
		return EXIT_ERR;
	if (!strcmp(argv[1], "add")) {
		if (bpf_map_update_elem(fd, &k, &v, BPF_ANY)) {
			fprintf(stderr, "dcbpf int dst add %s: %s\n", argv[2], strerror(errno));
			rc = EXIT_ERR;
		}
	} else if (!strcmp(argv[1], "del")) {
		if (bpf_map_delete_elem(fd, &k)) {
			fprintf(stderr, "dcbpf int dst del %s: %s\n", argv[2], strerror(errno));
			rc = EXIT_ERR;
		}
	} else if (!strcmp(argv[1], "list")) {
		void *prev = NULL;

		while (!bpf_map_get_next_key(fd, prev, &next)) {
			char a[INET_ADDRSTRLEN];

			if (!bpf_map_lookup_elem(fd, &next, &v)) {
				inet_ntop(AF_INET, &next.addr, a, sizeof(a));
				printf("%s/%u slots %u\n", a, next.prefixlen, v.slots);
			}
			k = next;
			prev = &k;
		}
	} else {
		int_usage(stderr);
		rc = EXIT_USAGE;
	}
	close(fd);
	return rc;
}

static void print_counters(const char *what, const char *map_path)
{
	struct dc_int_counters c = {};
	__u32 zero = 0;
	int fd = bpf_obj_get(map_path);

	if (fd < 0)
		return;
	if (!bpf_map_lookup_elem(fd, &zero, &c))
		printf("%s: src_added %llu (gso %llu) src_no_room %llu src_fail %llu sink_stripped %llu "
		       "echo_added %llu echo_no_room %llu echo_rx %llu bad_stripped %llu bad_passed %llu "
		       "transit_filled %llu transit_overflow %llu transit_echo %llu strip_fail %llu "
		       "tag_stripped %llu transit_tag %llu src_tag_grown %llu\n",
		       what, (unsigned long long)c.src_added, (unsigned long long)c.src_gso,
		       (unsigned long long)c.src_no_room, (unsigned long long)c.src_fail,
		       (unsigned long long)c.sink_stripped, (unsigned long long)c.echo_added,
		       (unsigned long long)c.echo_no_room, (unsigned long long)c.echo_rx,
		       (unsigned long long)c.bad_stripped, (unsigned long long)c.bad_passed,
		       (unsigned long long)c.transit_filled, (unsigned long long)c.transit_overflow,
		       (unsigned long long)c.transit_echo, (unsigned long long)c.strip_fail,
		       (unsigned long long)c.tag_stripped, (unsigned long long)c.transit_tag,
		       (unsigned long long)c.src_tag_grown);
	close(fd);
}

static int cmd_status(const char *pin_dir)
{
	char path[DC_PATH_LEN * 3];
	struct dirent *de;
	DIR *d;

	dc_path(path, sizeof(path), pin_dir, "dc_int_stats");
	print_counters("hosts", path);
	snprintf(path, sizeof(path), "%s/sw", pin_dir);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		char sw[DC_PATH_LEN * 3], what[300];

		if (de->d_name[0] == '.')
			continue;
		snprintf(sw, sizeof(sw), "%s/sw/%s/dc_int_xstats", pin_dir, de->d_name);
		snprintf(what, sizeof(what), "switch %s", de->d_name);
		print_counters(what, sw);
	}
	if (d)
		closedir(d);
	printf("destinations:\n");
	{
		char *argv[] = { "dst", "list" };

		cmd_dst(pin_dir, 2, argv);
	}
	return EXIT_OK;
}

int dc_int_main(const char *pin_dir, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "netns", required_argument, NULL, 'n' },
		{ "no-links", no_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	const char *netns = NULL, *sub;
	bool no_links = false;
	int o;

	if (argc < 2) {
		int_usage(stderr);
		return EXIT_USAGE;
	}
	sub = argv[1];
	if (dc_require_root("dcbpf", pin_dir))
		return EXIT_ERR;
	if (!strcmp(sub, "dst"))
		return cmd_dst(pin_dir, argc - 1, argv + 1);
	if (!strcmp(sub, "status"))
		return cmd_status(pin_dir);
	optind = 2;
	while ((o = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (o) {
		case 'n':
			netns = optarg;
			break;
		case 'L':
			no_links = true;
			break;
		default:
			int_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (!strcmp(sub, "attach") || !strcmp(sub, "detach")) {
		if (optind >= argc) {
			int_usage(stderr);
			return EXIT_USAGE;
		}
		return dc_int_host_cmd(pin_dir, netns, no_links, argc - optind, argv + optind,
				       !strcmp(sub, "detach"));
	}
	if (!strcmp(sub, "switch")) {
		if (argc - optind != 2 || (strcmp(argv[optind], "attach") &&
					   strcmp(argv[optind], "detach"))) {
			int_usage(stderr);
			return EXIT_USAGE;
		}
		return cmd_switch(pin_dir, argv[optind + 1], no_links,
				  !strcmp(argv[optind], "detach"));
	}
	fprintf(stderr, "dcbpf int: unknown subcommand '%s'\n", sub);
	int_usage(stderr);
	return EXIT_USAGE;
}
