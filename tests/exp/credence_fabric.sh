#!/usr/bin/env bash
# Experiment: Credence (a forest from `dcbpf credence train`) against DT on
# the emulated fabric of tests/lib/credfab.sh — four senders × 4 flows ×
# 150 KB incast to r0 while a long iperf3 flow runs to r1, both through one
# switch with B = 1 MB, 1 Gbit/s ports.  ROUNDS rounds, alternating the
# algorithm live (dcbpf set sw.NAME.alg=…) so background load hits both
# alike; each round: INCAST incast repetitions next to a LONG_S s flow.
# Prints JSON lines {"credence_fabric_…": {"value", "unit"}} and writes
# $OUT/credence_fabric.md (the table of docs/results.md) and raw files.
# Root; run under the namespace lock:
#   flock /tmp/dcbpf-netns.lock tests/exp/credence_fabric.sh
set -u
cd "$(dirname "$0")/../.." || exit 1
source tests/lib/harness.sh
source tests/lib/fabric.sh
source tests/lib/credfab.sh

BUILD=${BUILD:-build}
OUT=${OUT:-out/exp}
DCBPF="$BUILD/dcbpf"
RATE=${RATE:-1000}
B=1000000
QLIMIT=20000000
NET=81
ROUNDS=${ROUNDS:-4}
INCAST=${INCAST:-10}
LONG_S=${LONG_S:-8}
SW=cfx$$
SW=${SW:0:15}
PIN=/sys/fs/bpf/dcbpf-cfx$$
RAW="$OUT/credence_fabric"
mkdir -p "$RAW"
D=("$DCBPF" --pin-dir "$PIN")

run_experiment() {
	cleanup() {
		"$DCBPF" --pin-dir "$PIN" switch down "$SW" >/dev/null 2>&1
		rm -rf "$PIN"
	}
	fabric_init || exit 1
	fabric_on_exit cleanup
	credfab_build || { echo "credence_fabric: fabric failed" >&2; exit 1; }
	plist=$(IFS=,; echo "${PORTS[*]}")
	# DRAIN=time|departures|hybrid: Credence's drain rule (default: the switch's)
	"${D[@]}" switch up "$SW" --netns "$SWNS" --ports "$plist" --rate-mbps "$RATE" buffer_bytes=$B \
		alg=dt ${DRAIN:+cred_drain=$DRAIN} >/dev/null || exit 1
	fabric_bg "${RNS[1]}" sh -c 'exec iperf3 -s -p 5201 >/dev/null 2>&1'
	fabric_bg "${RNS[0]}" sh -c "exec '$BUILD/tools/incast' sink -p 5999 >/dev/null 2>&1"
	fabric_wait_port "${RNS[1]}" 5201 && fabric_wait_port "${RNS[0]}" 5999 || exit 1
	ns=$(IFS=,; echo "${SNS[*]:0:4}")
	# The model, labels from LQD replaying the arrivals (byte mode, 1 µs slots
	# of RATE/8 bytes, the fabric's B and port count).  MODEL_FROM=sim
	# (default): the simulator's mix workload.  MODEL_FROM=capture: this
	# fabric's own arrivals, captured under DT during incasts beside a long
	# flow (dcbpf switch capture), as the issue's live-training path.
	local src=(--workload mix --seed 5)
	if [ "${MODEL_FROM:-sim}" = capture ]; then
		fabric_exec "${SNS[4]}" iperf3 -c "${RIP[1]}" -p 5201 -t 4 >/dev/null 2>&1 &
		local lf=$!
		sleep 1
		"${D[@]}" switch capture "$SW" --out "$RAW/capture.csv" --count 40000 --duration 3 \
			2>"$RAW/capture.err" &
		local cp=$!
		sleep 0.3
		"$BUILD/tools/incast" client -d "${RIP[0]}" -p 5999 -n "$ns" -f 4 -s 150000 -r 8 -g 200 \
			-t 30 >/dev/null 2>&1
		wait "$cp" "$lf"
		src=(--trace "$RAW/capture.csv")
	fi
	"$DCBPF" credence train --mode byte --ports ${#PORTS[@]} --buffer $B --slot-ns 1000 \
		--slot-bytes $((RATE / 8)) "${src[@]}" --out "$RAW/model" >"$RAW/train.txt" 2>&1 ||
		{ echo "credence_fabric: training failed" >&2; exit 1; }
	"${D[@]}" credence load "$RAW/model" --switch "$SW" >/dev/null || exit 1

	drops() { "${D[@]}" --json switch status "$SW" |
		jq '[.ports[] | .drop_thresh_pkts + .drop_full_pkts + .drop_pred_pkts] | add'; }
	: >"$RAW/rounds.csv"
	for r in $(seq 1 "$ROUNDS"); do
		for alg in dt credence; do
			"${D[@]}" set "sw.$SW.alg=$alg" >/dev/null || exit 1
			sleep 0.2
			d0=$(drops)
			# TRACE=1: the drops (q_i, Q, threshold, frame bytes) and the incast
			# port's TBF counters every 20 ms, to compare q_i with T_i and the
			# real departure rate with the configured one.
			local tp=() sp=()
			if [ "${TRACE:-0}" = 1 ]; then
				"${D[@]}" trace --switch "$SW" --csv --duration $((LONG_S + 1)) \
					>"$RAW/drops_${alg}_$r.csv" 2>/dev/null &
				tp=($!)
				(end=$((SECONDS + LONG_S)); while [ $SECONDS -lt $end ]; do
					echo "$(date +%s%N) $(tc -n "$SWNS" -s qdisc show dev "${PORTS[$P_IN]}" |
						awk '/Sent/ { print $2 } / backlog/ { print $2 }' | tr '\n' ' ')"
					sleep 0.02; done) >"$RAW/tbf_${alg}_$r.txt" &
				sp=($!)
			fi
			fabric_exec "${SNS[4]}" iperf3 -c "${RIP[1]}" -p 5201 -t "$LONG_S" -J >"$RAW/lf_${alg}_$r.json" 2>&1 &
			lf=$!
			sleep 1
			"$BUILD/tools/incast" client -d "${RIP[0]}" -p 5999 -n "$ns" -f 4 -s 150000 -r "$INCAST" \
				-g 200 -t 30 >"$RAW/ic_${alg}_$r.json" 2>"$RAW/ic_${alg}_$r.err"
			wait "$lf"
			[ ${#tp[@]} -gt 0 ] && { kill "${tp[0]}" 2>/dev/null; wait "${tp[0]}" "${sp[0]}"; }
			d1=$(drops)
			tput=$(jq -r '.end.sum_received.bits_per_second // 0' "$RAW/lf_${alg}_$r.json")
			jq -r --arg a "$alg" --arg r "$r" --arg t "$tput" --arg d "$((d1 - d0))" \
				'.per_round[] | "\($a),\($r),\(.completion_ms),\($t),\($d)"' "$RAW/ic_${alg}_$r.json" >>"$RAW/rounds.csv"
		done
	done
	"${D[@]}" switch status "$SW" >"$RAW/status.txt"
	"${D[@]}" --json switch status "$SW" >"$RAW/status.json"
	for m in dc_sw_cred dc_sw_model dc_sw_meta; do
		bpftool map dump pinned "$PIN/sw/$SW/$m" >"$RAW/$m.dump" 2>&1
	done
}

if [ "${SUMMARY_ONLY:-0}" != 1 ]; then
	run_experiment || exit 1
fi

# p95 of incast completion over all repetitions; long-flow throughput mean (min–max) over rounds
summary() { # ALG → p95_ms p50_ms tput_mean_mbps tput_min tput_max drops_per_round n
	local pct
	pct=$(awk -F, -v a="$1" '$1 == a { print $3 }' "$RAW/rounds.csv" | sort -g |
		awk '{ c[n++] = $1 } END { printf "%.2f %.2f", c[int(0.95 * (n - 1) + 0.5)], c[int(0.5 * (n - 1) + 0.5)] }')
	awk -F, -v a="$1" -v pct="$pct" '$1 == a { n++; if (!($2 in seen)) { seen[$2] = 1; t[m++] = $4; d += $5 } }
	END {
		mn = t[0]; mx = t[0]; for (i = 0; i < m; i++) { s += t[i]; if (t[i] < mn) mn = t[i]; if (t[i] > mx) mx = t[i] }
		printf "%s %.0f %.0f %.0f %.0f %d\n", pct, s / m / 1e6, mn / 1e6, mx / 1e6, d / m, n }' "$RAW/rounds.csv"
}
# SUMMARY_ONLY=1: recompute the table from an earlier run's $RAW/rounds.csv
read -r dt_p95 dt_p50 dt_t dt_tmin dt_tmax dt_d dt_n <<<"$(summary dt)"
read -r cr_p95 cr_p50 cr_t cr_tmin cr_tmax cr_d cr_n <<<"$(summary credence)"
for k in p95:ms p50:ms t:Mbit/s d:drops/round; do
	n=${k%%:*} u=${k#*:}
	v1=dt_$n v2=cr_$n
	printf '{"credence_fabric_dt_%s": {"value": %s, "unit": "%s"}}\n' "$n" "${!v1}" "$u"
	printf '{"credence_fabric_credence_%s": {"value": %s, "unit": "%s"}}\n' "$n" "${!v2}" "$u"
done
asked=$(jq '[.ports[] | .pred_asked_pkts] | add' "$RAW/status.json" 2>/dev/null || echo "not recorded")
pdrops=$(jq '[.ports[] | .drop_pred_pkts] | add' "$RAW/status.json" 2>/dev/null || echo "not recorded")
{
	echo "| algorithm | incast completion p95 (ms) | p50 (ms) | long flow (Mbit/s, mean; min–max) | drops per round | incasts |"
	echo "|---|---|---|---|---|---|"
	echo "| DT (α = 0.5) | $dt_p95 | $dt_p50 | $dt_t ($dt_tmin–$dt_tmax) | $dt_d | $dt_n |"
	echo "| Credence (forest) | $cr_p95 | $cr_p50 | $cr_t ($cr_tmin–$cr_tmax) | $cr_d | $cr_n |"
	echo
	echo "Predictions consulted over the Credence rounds: $asked, of which drop: $pdrops."
} >"$OUT/credence_fabric.md"
cat "$OUT/credence_fabric.md" >&2
