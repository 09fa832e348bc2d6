# INT's cost on a bulk TCP flow: iperf3 (CUBIC, TSO/GSO on) from one host to
# another through one switch, without and with the host INT programs
# (source + sink + echo; the switch forwards the option untouched), at the
# fabric's link rate (1 Gbit/s) and CPU-bound (a 10 Gbit/s TBF, which the
# two cores cannot fill).  Prints, best of three 4-second runs each:
#   int_throughput_ratio            on ÷ off at 1 Gbit/s
#   int_throughput_ratio_cpu_bound  on ÷ off at 10 Gbit/s
#   int_tput_{off,on}_{1g,10g}_mbps
# and the same with sampled telemetry (docs/int.md, "Sampling": the option
# on one data segment per flow per INT_SAMPLE_US, 100 by default) as
# int_sampled_*.
# docs/int.md ("Cost") says where the CPU-bound difference comes from.
# shellcheck shell=bash
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
[ "$(id -u)" = 0 ] || { echo "int_tput bench: needs root, skipped" >&2; exit 0; }
source tests/lib/fabric.sh
source tests/lib/bench.sh
source tests/lib/dcbpfd.sh
export FAB_INT_ROOM=36
{
	fabric_dumbbell 1 1000 4000000 || exit 1
	dcbpfd_start || { echo "int_tput bench: $DCBPFD_ERR" >&2; exit 1; }
	D=("$BUILD/dcbpf" --pin-dir "$DCBPFD_PIN")
	fabric_bg "$FAB_RECV" iperf3 -s -p 5201
	fabric_wait_port "$FAB_RECV" 5201
} >&2
both() { # measure at 1 and 10 Gbit/s; prints "M1 M10"
	local m1 m10
	fabric_shape "$FAB_SWITCH" "$FAB_BN_DEV" 1000 4000000 >&2
	m1=$(bench_iperf_best "${FAB_SENDERS[0]}" "$FAB_RECV_IP")
	fabric_shape "$FAB_SWITCH" "$FAB_BN_DEV" 10000 4000000 >&2
	m10=$(bench_iperf_best "${FAB_SENDERS[0]}" "$FAB_RECV_IP")
	echo "$m1 $m10"
}
read -r off1 off10 <<<"$(both)"
{
	"${D[@]}" int attach --netns "${FAB_SENDERS[0]}" "${FAB_SENDER_DEVS[0]}" &&
		"${D[@]}" int attach --netns "$FAB_RECV" "$FAB_RECV_DEV" &&
		"${D[@]}" int dst add "$FAB_RECV_IP/32"
} >&2 || exit 1
read -r on1 on10 <<<"$(both)"
added=$("${D[@]}" int status | sed -n 's/^hosts: src_added \([0-9]*\).*/\1/p')
"${D[@]}" int dst add "$FAB_RECV_IP/32" --sample-us "${INT_SAMPLE_US:-100}" >&2 || exit 1
read -r s1 s10 <<<"$(both)"
{
	"${D[@]}" int detach --netns "${FAB_SENDERS[0]}" "${FAB_SENDER_DEVS[0]}"
	"${D[@]}" int detach --netns "$FAB_RECV" "$FAB_RECV_DEV"
	dcbpfd_stop
} >&2
if [ "${added:-0}" -eq 0 ]; then
	echo "int_tput bench: no INT option was added; the figures would be meaningless" >&2
	exit 1
fi
bench_tput_figs int "$off1" "$on1" "$off10" "$on10"
bench_tput_figs int_sampled "$off1" "$s1" "$off10" "$s10"
