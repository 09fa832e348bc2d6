# Generic vs native XDP on the switch's veth ports: TCP throughput through
# an unshaped switch (the TBF removed) with admission attached in each
# mode, and without it.  Prints {"xdp_<mode>_fwd_mbps": …}.  Root only.
# shellcheck shell=bash
set -u
cd "$(dirname "$0")/../.." || exit 1
[ "$(id -u)" = 0 ] || { echo "xdp_mode bench: needs root, skipped" >&2; exit 0; }
BUILD=${BUILD:-build}
source tests/lib/fabric.sh
fabric_dumbbell 1 1000 1000000 >/dev/null || exit 1
tc -n "$FAB_SWITCH" qdisc del dev "$FAB_BN_DEV" root
PIN=/sys/fs/bpf/dcbpf-xdpmode$$
fabric_on_exit "'$BUILD/dcbpf' --pin-dir $PIN switch down xm >/dev/null 2>&1; rm -rf $PIN"
fabric_bg "$FAB_RECV" sh -c 'exec iperf3 -s -p 5201 >/dev/null 2>&1'
fabric_wait_port "$FAB_RECV" 5201 || exit 1
run() { fabric_exec "${FAB_SENDERS[0]}" iperf3 -c "$FAB_RECV_IP" -p 5201 -t 4 -O 1 -J |
	jq '.end.sum_received.bits_per_second / 1e6 | floor'; }
printf '{"xdp_none_fwd_mbps": {"value": %s, "unit": "Mbit/s"}}\n' "$(run)"
for mode in generic native; do
	"$BUILD/dcbpf" --pin-dir "$PIN" switch up xm --netns "$FAB_SWITCH" \
		--ports "${FAB_SW_PORTS[0]},$FAB_BN_DEV" --xdp-mode "$mode" buffer_bytes=100000000 >/dev/null || exit 1
	printf '{"xdp_%s_fwd_mbps": {"value": %s, "unit": "Mbit/s"}}\n' "$mode" "$(run)"
	"$BUILD/dcbpf" --pin-dir "$PIN" switch down xm >/dev/null
done
