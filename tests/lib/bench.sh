# Shared by the throughput benchmarks (tests/bench/*_tput.sh): the
# measurement and the figures they print for tests/bench/run.
# shellcheck shell=bash

# bench_fig NAME VALUE UNIT: one figure, {"NAME": {"value": VALUE, "unit": UNIT}}
bench_fig() { printf '{"%s": {"value": %s, "unit": "%s"}}\n' "$1" "$2" "$3"; }

# bench_iperf_best NETNS DST_IP: the best of three 4-second iperf3 runs
# (CUBIC) from NETNS to an iperf3 server on DST_IP:5201, in Mbit/s.
bench_iperf_best() {
	local b=0 v
	for _ in 1 2 3; do
		v=$(fabric_exec "$1" iperf3 -c "$2" -p 5201 -t 4 -C cubic -J |
			jq '.end.sum_received.bits_per_second / 1e6 | floor')
		[ "${v:-0}" -gt "$b" ] && b=$v
	done
	echo "$b"
}

# bench_tput_figs KIND OFF1 ON1 OFF10 ON10: the four throughputs (Mbit/s,
# at 1 and 10 Gbit/s, without and with KIND) and the two ratios on ÷ off.
bench_tput_figs() {
	local k=$1 off1=$2 on1=$3 off10=$4 on10=$5
	bench_fig "${k}_tput_off_1g_mbps" "$off1" Mbit/s
	bench_fig "${k}_tput_on_1g_mbps" "$on1" Mbit/s
	bench_fig "${k}_tput_off_10g_mbps" "$off10" Mbit/s
	bench_fig "${k}_tput_on_10g_mbps" "$on10" Mbit/s
	bench_fig "${k}_throughput_ratio" "$(echo "scale=3; $on1 / $off1" | bc | sed 's/^\./0./')" ratio
	bench_fig "${k}_throughput_ratio_cpu_bound" "$(echo "scale=3; $on10 / $off10" | bc | sed 's/^\./0./')" ratio
}
