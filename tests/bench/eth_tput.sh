# Ethereal's cost on a bulk TCP flow: iperf3 (CUBIC, TSO/GSO on) between
# two hosts of a 2-leaf × 1-spine fabric (host → leaf → spine → leaf →
# host), without Ethereal and with it (host tags every segment with the
# 4-byte tag-only option, the source leaf steers by it and strips it), at
# the fabric's link rate (1 Gbit/s TBFs on the leaf–spine link) and
# CPU-bound (10 Gbit/s, which the two cores cannot fill).  Best of three
# 4-second runs each:
#   eth_throughput_ratio            tagged ÷ untagged at 1 Gbit/s
#   eth_throughput_ratio_cpu_bound  tagged ÷ untagged at 10 Gbit/s
#   eth_tput_{off,on}_{1g,10g}_mbps
# docs/ethereal.md ("Cost") discusses the figures.
# shellcheck shell=bash
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
[ "$(id -u)" = 0 ] || { echo "eth_tput bench: needs root, skipped" >&2; exit 0; }
source tests/lib/fabric.sh
source tests/lib/bench.sh
export FAB_INT_ROOM=4
{
	fabric_leafspine 2 1 1 1000 4000000 || exit 1
	PIN=/sys/fs/bpf/dcbpf-ethb-$FAB_ID
	fabric_bg "${FAB_HOSTS[1]}" iperf3 -s -p 5201
	fabric_wait_port "${FAB_HOSTS[1]}" 5201
} >&2
both() { # measure at 1 and 10 Gbit/s; prints "M1 M10"
	local m1 m10
	fabric_shape "${FAB_LEAVES[0]}" "${FAB_UPLINKS[0]}" 1000 4000000 >&2
	m1=$(bench_iperf_best "${FAB_HOSTS[0]}" "${FAB_HOST_IPS[1]}")
	fabric_shape "${FAB_LEAVES[0]}" "${FAB_UPLINKS[0]}" 10000 4000000 >&2
	fabric_shape "${FAB_SPINES[0]}" "${FAB_DOWNLINKS[1]}" 10000 4000000 >&2
	m10=$(bench_iperf_best "${FAB_HOSTS[0]}" "${FAB_HOST_IPS[1]}")
	fabric_shape "${FAB_SPINES[0]}" "${FAB_DOWNLINKS[1]}" 1000 4000000 >&2
	echo "$m1 $m10"
}
read -r off1 off10 <<<"$(both)"
fabric_leafspine_ethereal "$BUILD/dcbpf" "$PIN" ethereal >&2 || exit 1
read -r on1 on10 <<<"$(both)"
tagged=$("$BUILD/dcbpf" --pin-dir "$PIN" ethereal status --json |
	jq '[.leaves[] | .counters.steered] | add')
fabric_teardown >&2
if [ "${tagged:-0}" -eq 0 ]; then
	echo "eth_tput bench: the leaf steered nothing; the figures would be meaningless" >&2
	exit 1
fi
bench_tput_figs eth "$off1" "$on1" "$off10" "$on10"
