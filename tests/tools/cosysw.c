// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cosysw: a cosy switch for the fabric tests — loads bpf/cosy.bpf.c (maps
 * not pinned), attaches it at TC ingress of each port named, fills its
 * configuration, ports and routes, prints "ready" and waits; on SIGTERM or
 * SIGINT prints the switch's counters, the VLs still held and per port
 * the VLs reserved on it as one JSON line, detaches and exits.  Run it
 * inside the switch's namespace:
 *
 *   cosysw [-i SWITCH_ID] [-r] K EXPIRY_NS IF:PEER_MAC:HOST_IPV4[,HOST_IPV4...] ...
 *
 * Port i is the i-th port argument; the hosts listed with it are those a
 * shortest path reaches through it.  A host listed with several ports has
 * them all as candidates (a leaf's uplinks toward the hosts of other
 * leaves: the program picks uniformly among their free VLs).  -r: the RSVP
 * baseline (one VL per link whatever K says); -i: the id a reject names.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dcbpf/cosy.h"
#include "cosy.skel.h"

#define PORTS_MAX 16
#define HOSTS_MAX 256

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int parse_mac(const char *s, __u8 *mac)
{
	unsigned int b[6];

	if (sscanf(s, "%x-%x-%x-%x-%x-%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (__u8)b[i];
	return 0;
}

static int own_mac(const char *ifname, __u8 *mac)
{
	char path[128], buf[64];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/address", ifname);
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	for (char *c = buf; *c; c++)
		if (*c == ':')
			*c = '-';
	return parse_mac(buf, mac);
}

/* The route of one host: every port listed with it. */
struct host_route {
	__u32 addr;
	struct dc_cosy_route rt;
};

static int add_route(struct host_route *hr, __u32 *nh, __u32 addr, __u32 port)
{
	__u32 i;

	for (i = 0; i < *nh && hr[i].addr != addr; i++)
		;
	if (i == *nh) {
		if (*nh >= HOSTS_MAX)
			return -1;
		memset(&hr[i], 0, sizeof(hr[i]));
		hr[i].addr = addr;
		(*nh)++;
	}
	if (hr[i].rt.nports >= DC_COSY_CAND_MAX)
		return -1;
	hr[i].rt.port[hr[i].rt.nports++] = (__u16)port;
	return 0;
}

int main(int argc, char **argv)
{
	struct bpf_tc_hook hooks[PORTS_MAX];
	static struct host_route hr[HOSTS_MAX];
	struct dc_cosy_cfg cfg = { .switch_id = 1 };
	struct dc_cosy_stats st;
	struct cosy_bpf *s;
	struct bpf_map *m;
	__u32 nports = 0, nhosts = 0, zero = 0;
	__u64 held = 0, drops = 0;
	int opt, a0;

	while ((opt = getopt(argc, argv, "+i:r")) != -1) {
		switch (opt) {
		case 'i':
			cfg.switch_id = (__u16)strtoul(optarg, NULL, 0);
			break;
		case 'r':
			cfg.mode = DC_COSY_MODE_RSVP;
			break;
		default:
			return 2;
		}
	}
	a0 = optind;
	if (argc - a0 < 3 || argc - a0 - 2 > PORTS_MAX) {
		fprintf(stderr, "usage: cosysw [-i SWITCH_ID] [-r] K EXPIRY_NS IF:PEER_MAC:HOST_IPV4[,HOST_IPV4...]... "
				"(MAC with '-', at most %d ports)\n", PORTS_MAX);
		return 2;
	}
	cfg.k = (__u32)strtoul(argv[a0], NULL, 0);
	cfg.expiry_ns = strtoull(argv[a0 + 1], NULL, 0);
	s = cosy_bpf__open();
	if (!s)
		return 1;
	bpf_object__for_each_map(m, s->obj)
		bpf_map__set_pin_path(m, NULL);
	if (cosy_bpf__load(s)) {
		fprintf(stderr, "cosysw: loading the switch program failed\n");
		return 1;
	}
	bpf_map_update_elem(bpf_map__fd(s->maps.dc_cosy_cfg), &zero, &cfg, BPF_ANY);
	for (int a = a0 + 2; a < argc; a++, nports++) {
		char ifname[IF_NAMESIZE], mac_s[32], ip_s[1024], *tok, *save = NULL;
		struct dc_cosy_port pt;
		__u32 addr;

		memset(&pt, 0, sizeof(pt));
		if (sscanf(argv[a], "%15[^:]:%31[^:]:%1023s", ifname, mac_s, ip_s) != 3 ||
		    parse_mac(mac_s, pt.peer_mac) || !(pt.ifindex = if_nametoindex(ifname)) || own_mac(ifname, pt.mac)) {
			fprintf(stderr, "cosysw: bad port '%s'\n", argv[a]);
			return 2;
		}
		for (tok = strtok_r(ip_s, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (inet_pton(AF_INET, tok, &addr) != 1 || add_route(hr, &nhosts, addr, nports)) {
				fprintf(stderr, "cosysw: bad host '%s' of port '%s' (or more than %d candidates)\n", tok,
					argv[a], DC_COSY_CAND_MAX);
				return 2;
			}
		bpf_map_update_elem(bpf_map__fd(s->maps.dc_cosy_port), &nports, &pt, BPF_ANY);
		bpf_map_update_elem(bpf_map__fd(s->maps.dc_cosy_ifport), &pt.ifindex, &nports, BPF_ANY);
		memset(&hooks[nports], 0, sizeof(hooks[0]));
		hooks[nports].sz = sizeof(hooks[0]);
		hooks[nports].ifindex = (int)pt.ifindex;
		hooks[nports].attach_point = BPF_TC_INGRESS;
		bpf_tc_hook_create(&hooks[nports]);	/* EEXIST is fine */
		{
			LIBBPF_OPTS(bpf_tc_opts, o, .prog_fd = bpf_program__fd(s->progs.dc_cosy_ingress));

			if (bpf_tc_attach(&hooks[nports], &o)) {
				fprintf(stderr, "cosysw: attaching to %s failed\n", ifname);
				return 1;
			}
		}
	}
	for (__u32 i = 0; i < nhosts; i++)
		bpf_map_update_elem(bpf_map__fd(s->maps.dc_cosy_route), &hr[i].addr, &hr[i].rt, BPF_ANY);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	printf("ready\n");
	fflush(stdout);
	while (!stop)
		pause();
	memset(&st, 0, sizeof(st));
	bpf_map_lookup_elem(bpf_map__fd(s->maps.dc_cosy_stats), &zero, &st);
	for (__u32 p = 0; p < nports; p++) {
		struct dc_cosy_port pt;

		if (!bpf_map_lookup_elem(bpf_map__fd(s->maps.dc_cosy_port), &p, &pt))
			held += __builtin_popcountll(pt.vls.bitmap);
	}
	for (int d = 0; d < DC_COSY_D_MAX; d++)
		drops += st.drop[d];
	printf("{\"pkts\": %llu, \"rsvps\": %llu, \"rejects_made\": %llu, \"rejects_to_sender\": %llu, "
	       "\"released\": %llu, \"data\": %llu, \"passed\": %llu, \"drops\": %llu, \"vls_held\": %llu, \"ports\": [",
	       (unsigned long long)st.pkts, (unsigned long long)st.rsvps, (unsigned long long)st.rejects_made,
	       (unsigned long long)st.rejects_to_sender,
	       (unsigned long long)st.released, (unsigned long long)st.data, (unsigned long long)st.passed,
	       (unsigned long long)drops, (unsigned long long)held);
	for (__u32 p = 0; p < nports; p++) {
		struct dc_cosy_port pt;
		char ifname[IF_NAMESIZE] = "?";

		memset(&pt, 0, sizeof(pt));
		bpf_map_lookup_elem(bpf_map__fd(s->maps.dc_cosy_port), &p, &pt);
		if_indextoname(pt.ifindex, ifname);
		printf("%s{\"if\": \"%s\", \"reserved\": %llu, \"reclaimed\": %llu, \"released\": %llu, \"fwd_data\": %llu}",
		       p ? ", " : "", ifname, (unsigned long long)pt.ctr.reserved, (unsigned long long)pt.ctr.reclaimed,
		       (unsigned long long)pt.ctr.released, (unsigned long long)pt.ctr.fwd_data);
	}
	printf("]}\n");
	for (__u32 p = 0; p < nports; p++) {
		hooks[p].attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&hooks[p]);
	}
	cosy_bpf__destroy(s);
	return 0;
}
