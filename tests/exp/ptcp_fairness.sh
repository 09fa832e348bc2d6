#!/usr/bin/env bash
# PowerTCP (NSDI'22; Fig. 2.5 of Addanki's thesis) in our fabric: fairness
# and stability as flows arrive and leave.  Per congestion control, FLOWS
# long flows on the dumbbell, one sender each, join one every STEP_S
# seconds and then leave one every STEP_S seconds, last in first out
# (phases of 1, 2, ..., FLOWS, ..., 2, 1 flows).  Per flow the rate it
# puts through the switch (its port's received bytes, every 100 ms), per
# phase Jain's fairness index of the active flows' mean rates (second half
# of the phase), and after every join and leave the time until the flows
# share fairly: Jain's index of their rates (300 ms moving average) >= 0.95
# with their total >= 90 % of what it settles at in the phase (mean of the
# phase's second half), held for 0.5 s.  Utilisation is reported apart
# (total_mbps per phase): a CC that shares fairly at 70 % of the link
# converges, and shows its 70 %.
#
#   sudo tests/exp/ptcp_fairness.sh            # SHORT=1: 4 flows, 2 s steps; ~2 min
#   sudo SHORT=0 tests/exp/ptcp_fairness.sh    # 4 flows, 5 s steps; ~5 min
#   SHORT=smoke                                 # the make-check mode: powertcp, 2 flows, 1 s steps
#
# Writes $OUT/summary.json (parameters; per CC: phases with Jain's index,
# events with convergence times, queue p50/p99), $OUT/flows.csv
# (cc,t_s,active,f0..,total_mbps,jain; t_s from the first join),
# $OUT/fairness.png (per CC the per-flow throughput over time).
#
# The flows are iperf3's: its server sets the CC after accept, so dctcp
# runs here without ECN (tests/lib/ccfab.sh, ccfab_sink_cc); flows from the
# incast tool, which gets ECN, moved erratically for every CC in this
# experiment (docs/results.md).
#
# Env: CCS (powertcp theta_powertcp hpcc timely dctcp cubic), FLOWS (4),
# STEP_S, RATE (1000 Mbit/s), BUF (1000000 B), CCFAB_* (tests/lib/ccfab.sh),
# BUILD, OUT (out/ptcp-fairness). Holds /tmp/dcbpf-suite.lock while the
# fabric is up (unless the caller holds it: DCBPF_SUITE_LOCKED=1).
# shellcheck shell=bash
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
OUT=$(realpath -m "${OUT:-out/ptcp-fairness}")
SHORT=${SHORT:-1}
RATE=${RATE:-1000} BUF=${BUF:-1000000}
case $SHORT in
smoke) CCS=${CCS:-powertcp} FLOWS=${FLOWS:-2} STEP_S=${STEP_S:-1} ;;
1) STEP_S=${STEP_S:-2} ;;
*) STEP_S=${STEP_S:-5} ;;
esac
CCS=${CCS:-powertcp theta_powertcp hpcc timely dctcp cubic} FLOWS=${FLOWS:-4}
export BUILD
die() { echo "ptcp_fairness: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
for c in iperf3 jq gnuplot; do command -v $c >/dev/null || die "'$c' not found (make deps)"; done
[ -x "$BUILD/tools/qsample" ] || die "$BUILD/tools/qsample not built (make)"
[ "$FLOWS" -ge 2 ] || die "FLOWS must be >= 2"
mkdir -p "$OUT"
rm -f "$OUT"/*.csv "$OUT"/*.json "$OUT"/*.png "$OUT"/*.plt "$OUT"/*.jsonl "$OUT"/*.log

source tests/lib/suitelock.sh && suite_lock_take
source tests/lib/fabric.sh
source tests/lib/dcbpfd.sh
source tests/lib/ccfab.sh
ccfab_up "$FLOWS" "$RATE" "$BUF" "$OUT" || die "$CCFAB_ERR"
echo "ptcp_fairness: fabric $FAB_ID: $FLOWS senders, bottleneck $RATE Mbit/s, buffer $BUF B," \
	"ping RTT $CCFAB_PING_US us (τ = $CCFAB_TAU_US us); $FLOWS flows join and leave every $STEP_S s"
RIP=$FAB_RECV_IP
for ((i = 0; i < FLOWS; i++)); do
	fabric_bg "$FAB_RECV" iperf3 -s -p $((5201 + i)) -B "$RIP" >"$OUT/iperf3-server-$i.log" 2>&1
done
for ((i = 0; i < FLOWS; i++)); do fabric_wait_port "$FAB_RECV" $((5201 + i)) || die "iperf3 server $i"; done

# analyse CC PORTS_CSV EVENTS: the per-flow rates (rows appended to
# flows.csv) and on stdout a JSON object {phases, events}.
analyse() {
	awk -F, -v cc="$1" -v ev="$3" -v nf="$FLOWS" -v rate="$RATE" -v csv="$OUT/flows.csv" '
	function jain(x, k,   i, s, s2) { s = s2 = 0; for (i = 1; i <= k; i++) { s += x[i]; s2 += x[i] * x[i] } return s2 > 0 ? s * s / (k * s2) : 0 }
	BEGIN { ne = 0; while ((getline l < ev) > 0) { split(l, v, " "); ne++; et[ne] = v[1]; ek[ne] = v[2]; ef[ne] = v[3] }
	        for (i = 0; i < nf; i++) { jt[i] = 0; lt[i] = 0 }
	        for (e = 1; e <= ne; e++) if (ek[e] == "join") jt[ef[e]] = et[e]; else lt[ef[e]] = et[e]
	        t0 = et[1] }
	NR == 1 { next }
	{ n++; t[n] = $1; for (i = 0; i < nf; i++) b[n, i] = $(i + 2) }
	END {
		# rates per bin (Mbit/s), bin n covers t[n-1]..t[n], stamped at its middle
		for (j = 2; j <= n; j++) { dt = t[j] - t[j - 1]; tm[j] = (t[j] + t[j - 1]) / 2
			for (i = 0; i < nf; i++) r[j, i] = (b[j, i] - b[j - 1, i]) * 8e3 / dt }
		for (j = 2; j <= n; j++) {
			k = 0; tot = 0; line = ""
			for (i = 0; i < nf; i++) { act[i] = (tm[j] >= jt[i] && tm[j] < lt[i]); line = line sprintf(",%.1f", r[j, i]); tot += r[j, i] }
			# smoothed over 3 bins, for the convergence test
			for (i = 0; i < nf; i++) if (act[i]) { s = 0; c = 0; for (h = j - 1; h <= j + 1; h++) if (h >= 2 && h <= n) { s += r[h, i]; c++ } x[++k] = s / c }
			J[j] = k ? jain(x, k) : 0; S = 0; for (i = 1; i <= k; i++) S += x[i]; TOT[j] = S; A[j] = k
			kk = 0; for (i = 0; i < nf; i++) if (act[i]) y[++kk] = r[j, i]
			printf "%s,%.3f,%d%s,%.1f,%.4f\n", cc, (tm[j] - t0) / 1e9, k, line, tot, kk ? jain(y, kk) : 0 >> csv }
		printf "{\"phases\":["
		for (e = 1; e < ne; e++) {
			a = et[e]; z = et[e + 1]; mid = (a + z) / 2; k = 0
			for (i = 0; i < nf; i++) if (mid >= jt[i] && mid < lt[i]) { s = 0; c = 0
				for (j = 2; j <= n; j++) if (tm[j] >= mid && tm[j] < z) { s += r[j, i]; c++ }
				m[++k] = c ? s / c : 0; fl[k] = i }
			tot = 0; lst = ""; for (i = 1; i <= k; i++) { tot += m[i]; lst = lst sprintf("%s{\"flow\":%d,\"mbps\":%.1f}", (i > 1 ? "," : ""), fl[i], m[i]) }
			printf "%s{\"from_s\":%.3f,\"to_s\":%.3f,\"flows\":%d,\"jain\":%.4f,\"total_mbps\":%.1f,\"per_flow\":[%s]}", (e > 1 ? "," : ""), (a - t0) / 1e9, (z - t0) / 1e9, k, jain(m, k), tot, lst }
		printf "],\"events\":["
		for (e = 1; e <= ne; e++) {
			a = et[e]; z = (e < ne) ? et[e + 1] : t[n]; conv = "null"; run = 0; st = 0
			# the total this CC settles at in the phase (its second half)
			pt = 0; c = 0; for (j = 2; j <= n; j++) if (tm[j] >= (a + z) / 2 && tm[j] < z) { pt += TOT[j]; c++ } pt = c ? pt / c : 0
			for (j = 2; j <= n && e < ne; j++) { if (tm[j] < a + 100e6 || tm[j] >= z - 100e6) continue
				if (A[j] > 0 && J[j] >= 0.95 && TOT[j] >= 0.9 * pt) { if (!run) st = tm[j]; run++ } else run = 0
				if (run >= 5 || (run > 0 && tm[j] + 200e6 >= z - 100e6 && run >= 2)) { conv = sprintf("%.3f", (st - a) / 1e9); break } }
			printf "%s{\"t_s\":%.3f,\"event\":\"%s\",\"flow\":%d,\"converge_s\":%s}", (e > 1 ? "," : ""), (a - t0) / 1e9, ek[e], ef[e], conv }
		print "]}" }' "$2"
}

hdr="cc,t_s,active"; for ((i = 0; i < FLOWS; i++)); do hdr+=",f$i"; done
echo "$hdr,total_mbps,jain" >"$OUT/flows.csv"
: >"$OUT/results.jsonl"
rc=0 RAN=()
for cc in $CCS; do
	if ! ccfab_cc_ok "$cc"; then
		echo "ptcp_fairness: $cc not available; skipped" >&2
		rc=1
		continue
	fi
	RAN+=("$cc")
	echo "ptcp_fairness: $cc: $FLOWS flows, one joining every $STEP_S s, then leaving"
	ev=$OUT/events-$cc.txt
	: >"$ev"
	ccfab_port_sampler "$OUT/ports-$cc.csv" 0.1
	spid=$FAB_LAST_PID
	fabric_bg "$FAB_SWITCH" "$BUILD/tools/qsample" -r -d "$FAB_BN_DEV" -t 900 -o "$OUT/queue-$cc.csv"
	qpid=$FAB_LAST_PID
	sleep 0.5
	pids=()
	start=${EPOCHREALTIME/./}
	for ((i = 0; i < FLOWS; i++)); do
		# flow i runs from i·STEP to (2·FLOWS − 1 − i)·STEP
		while [ $((${EPOCHREALTIME/./} - start)) -lt $((i * STEP_S * 1000000)) ]; do sleep 0.01; done
		dur=$(((2 * FLOWS - 1 - 2 * i) * STEP_S))
		now=${EPOCHREALTIME/./}
		fabric_bg "${FAB_SENDERS[i]}" iperf3 -c "$RIP" -p $((5201 + i)) -t "$dur" -C "$cc" -J >"$OUT/iperf-$cc-$i.json"
		pids+=("$FAB_LAST_PID")
		echo "${now}000 join $i" >>"$ev"
		echo "$((now + dur * 1000000))000 leave $i" >>"$ev"
	done
	for p in "${pids[@]}"; do wait "$p" || { echo "ptcp_fairness: $cc: an iperf3 flow failed" >&2; rc=1; }; done
	sleep 0.5
	fabric_kill "$spid"
	fabric_kill "$qpid"
	sort -n -o "$ev" "$ev"
	for ((i = 0; i < FLOWS; i++)); do
		got=$(jq -r '.end.sender_tcp_congestion // "?"' "$OUT/iperf-$cc-$i.json" 2>/dev/null)
		[ "$got" = "$cc" ] || { echo "ptcp_fairness: $cc: flow $i ran '$got'" >&2; rc=1; }
	done
	res=$(analyse "$cc" "$OUT/ports-$cc.csv" "$ev")
	qp=$(awk -F, 'NR > 1 && $1 > 0 {print $2}' "$OUT/queue-$cc.csv" | sort -n |
		awk '{v[NR] = $1} END {if (!NR) {print "null null"; exit} i = int(NR * 0.99); if (i < 1) i = 1; print v[int((NR + 1) / 2)], v[i]}')
	read -r q50 q99 <<<"$qp"
	jq -c --arg cc "$cc" --argjson q50 "$q50" --argjson q99 "$q99" '
		def med: sort | if length == 0 then null else .[(length - 1) / 2 | floor] end;
		{cc: $cc, queue_p50_bytes: $q50, queue_p99_bytes: $q99,
		 jain_min: ([.phases[] | select(.flows > 1) | .jain] | min),
		 jain_mean: ([.phases[] | select(.flows > 1) | .jain] | add / length),
		 converge_s_median: ([.events[1:-1][] | .converge_s | select(. != null)] | med),
		 converge_s_max: ([.events[1:-1][] | .converge_s | select(. != null)] | max),
		 events_not_converged: ([.events[1:-1][] | select(.converge_s == null)] | length),
		 util_mean: ([.phases[] | .total_mbps] | add / length / '"$RATE"')} + .' <<<"$res" >>"$OUT/results.jsonl" ||
		{ echo "ptcp_fairness: $cc: analysis failed" >&2; rc=1; }
done
ccfab_down
[ ${#RAN[@]} -gt 0 ] || die "no congestion control could run"
jq -n --slurpfile r "$OUT/results.jsonl" --argjson rate "$RATE" --argjson buf "$BUF" --argjson flows "$FLOWS" \
	--argjson step "$STEP_S" --argjson ping "$CCFAB_PING_US" --argjson tau "$CCFAB_TAU_US" --arg short "$SHORT" \
	--rawfile cp "$OUT/cc-params.txt" --arg host "$(uname -r), $(nproc) CPUs" '
	{experiment: "ptcp_fairness", figure: "PowerTCP, NSDI22 (thesis Fig. 2.5): fairness and stability", short: $short,
	 params: {rate_mbit: $rate, buffer_bytes: $buf, flows: $flows, step_s: $step, ping_rtt_us: $ping, tau_us: $tau,
	          rate_sample_ms: 100, converge: "Jain >= 0.95 of 300 ms averages, total >= 0.9 of the phase total (second half), held 0.5 s",
	          host: $host, cc_params: ($cp | split("\n") | map(select(length > 0)))},
	 results: $r}' >"$OUT/summary.json"
rm -f "$OUT/results.jsonl"

printf '\n%-15s %-40s %9s %9s %12s %12s %9s %9s\n' cc "Jain per phase (flows 1..N..1)" "Jain min" "conv med" "conv max s" "not conv" "q p50 KB" "q p99 KB"
jq -r '.results[] | [.cc, ([.phases[] | .jain * 100 | round / 100 | tostring] | join(" ")), (.jain_min * 1000 | round / 1000),
	(.converge_s_median // "-"), (.converge_s_max // "-"), .events_not_converged, ((.queue_p50_bytes // 0) / 1000 | floor),
	((.queue_p99_bytes // 0) / 1000 | floor)] | @tsv' "$OUT/summary.json" |
	while IFS=$'\t' read -r a b c d e f g h; do printf '%-15s %-40s %9s %9s %12s %12s %9s %9s\n' "$a" "$b" "$c" "$d" "$e" "$f" "$g" "$h"; done
echo "(convergence after each join and leave but the first join and the last leave, seconds; queue from 1 ms samples over the whole run)"

n=${#RAN[@]}
{
	echo "set terminal pngcairo size 1000,$((200 * n + 60)) font ',9'"
	echo "set output '$OUT/fairness.png'"
	echo "set datafile separator ','"
	echo "set multiplot layout $n,1 title '$FLOWS flows join every $STEP_S s and leave, $RATE Mbit/s bottleneck: per-flow throughput (100 ms bins)'"
	echo "set grid; set ylabel 'Mbit/s'; set yrange [0:$((RATE * 11 / 10))]; set xrange [0:$((STEP_S * (2 * FLOWS - 1) + 1))]; set key outside right"
	for cc in "${RAN[@]}"; do
		[ "$cc" = "${RAN[-1]}" ] && echo "set xlabel 'time (s)'"
		printf "set title '%s' noenhanced\nplot " "$cc"
		for ((i = 0; i < FLOWS; i++)); do
			[ $i -gt 0 ] && printf ', '
			printf "'%s' using (strcol(1) eq '%s' ? \$2 : 1/0):%d with lines lw 1.5 title 'flow %d'" "$OUT/flows.csv" "$cc" $((i + 4)) $i
		done
		echo
	done
	echo "unset multiplot"
} >"$OUT/fairness.plt"
gnuplot "$OUT/fairness.plt" 2>"$OUT/gnuplot.log" || { echo "ptcp_fairness: gnuplot: $(tail -n 2 "$OUT/gnuplot.log")" >&2; rc=1; }
echo "ptcp_fairness: wrote $OUT/summary.json, flows.csv, fairness.png"
exit $rc
