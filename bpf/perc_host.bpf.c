// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * s-PERC flow lifecycle on the end host.
 *
 * Attached: sockops on a cgroup v2 directory, by `dcbpf perc host
 * --cgroup` (the control loop, loader/perc/perchost.c); runs for the TCP
 * sockets of that cgroup, in any namespace.
 * Runs: when a connection is established (active open: the side that
 * sends; docs/perc.md) and on its state changes.
 *
 * Every active open gets a dc_perc_hflow entry when it is established:
 * OPEN if its congestion control is "perc" already, else NEW until the
 * perc CC's init (a CC selected after connect()) turns it OPEN.  The
 * control loop sees OPEN entries and starts the flow's control packet.  When the socket moves to FIN_WAIT1
 * (our FIN: no more data), LAST_ACK or CLOSE (also a reset), the entry
 * turns ENDING: the loop sends the flow's FIN control packet, so every link
 * removes the flow's contribution ("Proactive Congestion Control", Jose,
 * Ch. 4.1; Alg. 6 lines 16-17), and deletes the entry and its allocation.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "dcbpf/perchost.h"
#include "dcbpf/flow.h"
#include "maps/perchost.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define DC_SOL_TCP 6
#define DC_TCP_CONGESTION 13
#define DC_TCP_FIN_WAIT1 4
#define DC_TCP_CLOSE 7
#define DC_TCP_LAST_ACK 9

/* The flow key as the CC builds it (bpf/lib/ccsock.h, IPv4). */
static __always_inline void dc_perc_sk_key(const struct bpf_sock_ops *skops, struct dc_flow_key *key)
{
	__builtin_memset(key, 0, sizeof(*key));
	key->family = DC_AF_INET;
	key->saddr[0] = skops->local_ip4;
	key->daddr[0] = skops->remote_ip4;
	key->sport = (__u16)skops->local_port;
	key->dport = (__u16)bpf_ntohl(skops->remote_port);
}

static __always_inline bool dc_perc_is_ours(struct bpf_sock_ops *skops)
{
	char cc[16] = {};

	if (bpf_getsockopt(skops, DC_SOL_TCP, DC_TCP_CONGESTION, cc, sizeof(cc)))
		return false;
	return cc[0] == 'p' && cc[1] == 'e' && cc[2] == 'r' && cc[3] == 'c' && cc[4] == 0;
}

SEC("sockops")
int dc_perc_sockops(struct bpf_sock_ops *skops)
{
	struct dc_perc_hflow fresh = {}, *f;
	struct dc_flow_key key;
	__u32 st;

	if (skops->family != DC_AF_INET)
		return 1;
	switch (skops->op) {
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
		/* Every active open of the cgroup is followed to its end: the
		 * application may select perc only after connect() (iperf3
		 * does), and the CC's init then turns the entry OPEN. */
		dc_perc_sk_key(skops, &key);
		fresh.state = dc_perc_is_ours(skops) ? DC_PERC_FS_OPEN : DC_PERC_FS_NEW;
		fresh.opened_ns = bpf_ktime_get_ns();
		bpf_map_update_elem(&dc_perc_hflow, &key, &fresh, BPF_ANY);
		bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags |
					  BPF_SOCK_OPS_STATE_CB_FLAG);
		return 1;
	case BPF_SOCK_OPS_STATE_CB:
		st = skops->args[1];
		/* Our FIN (FIN_WAIT1, LAST_ACK) or the end (CLOSE, also a
		 * reset); not CLOSE_WAIT: the peer's FIN leaves us sending. */
		if (st != DC_TCP_FIN_WAIT1 && st != DC_TCP_LAST_ACK && st != DC_TCP_CLOSE)
			return 1;
		dc_perc_sk_key(skops, &key);
		f = bpf_map_lookup_elem(&dc_perc_hflow, &key);
		if (f && f->state == DC_PERC_FS_NEW) {
			bpf_map_delete_elem(&dc_perc_hflow, &key);	/* never perc */
		} else if (f && f->state == DC_PERC_FS_OPEN) {
			f->state = DC_PERC_FS_ENDING;
			f->ended_ns = bpf_ktime_get_ns();
		}
		return 1;
	default:
		return 1;
	}
}
