#!/usr/bin/env bash
# PowerTCP (NSDI'22; Fig. 2.4 of Addanki's thesis) in our fabric: a 10:1
# incast onto a long flow on the dumbbell, per congestion control the
# bottleneck's throughput and queue as time series (1 ms samples) around
# each incast round and the incast's completion; then a sweep of the
# incast degree (8 sender namespaces × k flows each, the long flow still
# running) for the largest incast the fabric holds: every round complete,
# no retransmission timeout in the incast senders, at that degree and at
# every smaller one of the sweep.
#
#   sudo tests/exp/ptcp_incast.sh            # SHORT=1: 3 rounds, degrees 16 32 64; ~2-3 min
#   sudo SHORT=0 tests/exp/ptcp_incast.sh    # 9 rounds, degrees 16 ... 256
#   SHORT=smoke                               # the make-check mode: powertcp and cubic, 1 round, 16:1
#
# Writes $OUT/summary.json (parameters; per CC: rounds, medians, sweep,
# largest degree held), $OUT/incast.csv (cc,round,t_ms,queue_bytes,
# throughput_mbps: every 1 ms sample from 50 ms before to 300 ms after
# each 10:1 round's start), $OUT/sweep.csv, $OUT/incast.png (round 1 of
# each CC: throughput over queue), $OUT/sweep.png.
#
# Env: CCS (powertcp theta_powertcp hpcc timely dctcp cubic), RATE (Mbit/s,
# 1000), BUF (bottleneck buffer, 1000000 B), BYTES (per sender of the 10:1
# incast, 65536), ROUNDS, GAP_MS (between rounds, 500), DEGREES, SWEEP_BYTES
# (per flow of the sweep, 16384), SWEEP_ROUNDS, RTO_MIN_MS (route rto_min;
# default unset: the kernel's 200 ms), CCFAB_* (tests/lib/ccfab.sh), BUILD,
# OUT (out/ptcp-incast). Holds /tmp/dcbpf-suite.lock while the fabric is up
# (unless the caller holds it: DCBPF_SUITE_LOCKED=1).
# shellcheck shell=bash
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
OUT=$(realpath -m "${OUT:-out/ptcp-incast}")
SHORT=${SHORT:-1}
ALL_CCS="powertcp theta_powertcp hpcc timely dctcp cubic"
RATE=${RATE:-1000} BUF=${BUF:-1000000} BYTES=${BYTES:-65536} GAP_MS=${GAP_MS:-500}
SWEEP_BYTES=${SWEEP_BYTES:-16384}
if [ "$SHORT" = smoke ]; then
	CCS=${CCS:-powertcp cubic} ROUNDS=${ROUNDS:-1} DEGREES=${DEGREES:-16} SWEEP_ROUNDS=${SWEEP_ROUNDS:-1}
elif [ "$SHORT" = 1 ]; then
	CCS=${CCS:-$ALL_CCS} ROUNDS=${ROUNDS:-3} DEGREES=${DEGREES:-16 32 64} SWEEP_ROUNDS=${SWEEP_ROUNDS:-2}
else
	CCS=${CCS:-$ALL_CCS} ROUNDS=${ROUNDS:-9} DEGREES=${DEGREES:-16 32 64 128 256} SWEEP_ROUNDS=${SWEEP_ROUNDS:-5}
fi
NINCAST=10 SWEEP_NS=8 WARM_S=2
# A round that took at least the minimum RTO waited for a timeout.
RTO_MS=${RTO_MIN_MS:-200}
export BUILD
die() { echo "ptcp_incast: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
for c in jq gnuplot; do command -v $c >/dev/null || die "'$c' not found (make deps)"; done
for t in qsample incast; do [ -x "$BUILD/tools/$t" ] || die "$BUILD/tools/$t not built (make)"; done
for d in $DEGREES; do [ $((d % SWEEP_NS)) = 0 ] || die "DEGREES must be multiples of $SWEEP_NS, got $d"; done
mkdir -p "$OUT"
rm -f "$OUT"/*.csv "$OUT"/*.json "$OUT"/*.png "$OUT"/*.plt "$OUT"/*.jsonl

source tests/lib/suitelock.sh && suite_lock_take
source tests/lib/fabric.sh
source tests/lib/dcbpfd.sh
source tests/lib/ccfab.sh
[ -n "${RTO_MIN_MS:-}" ] && export FAB_RTO_MIN_MS=$RTO_MIN_MS
ccfab_up $((NINCAST + 1)) "$RATE" "$BUF" "$OUT" || die "$CCFAB_ERR"
echo "ptcp_incast: fabric $FAB_ID: $((NINCAST + 1)) senders, bottleneck $RATE Mbit/s, buffer $BUF B," \
	"ping RTT $CCFAB_PING_US us (τ = $CCFAB_TAU_US us)"
LONG=${FAB_SENDERS[0]} RIP=$FAB_RECV_IP
INC=("${FAB_SENDERS[@]:1:NINCAST}") SWP=("${FAB_SENDERS[@]:1:SWEEP_NS}")
INC_NS=$(IFS=,; echo "${INC[*]}") SWP_NS=$(IFS=,; echo "${SWP[*]}")

# rounds_of QCSV INCAST_JSON CC: per round of the 10:1 incast, the samples
# around it appended to incast.csv and one JSON line of its metrics:
# completion, peak queue, queue before (median of the 100 ms before), drain
# (until the queue is back within 10 % of the peak's excess over the level
# before), bottleneck throughput before (100 ms), during, and in the 100 ms
# after the incast completed, and the queue's median then.
rounds_of() {
	jq -r '.per_round[] | "\(.start_mono_ns) \(.completion_ms)"' "$2" 2>/dev/null |
		awk -v qf="$1" -v cc="$3" -v csv="$OUT/incast.csv" '
		function med(a, k,   i, j, x) { if (!k) return 0; for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } return a[int((k + 1) / 2)] }
		function rate(a, b,   i, f, l) { f = l = 0; for (i = 1; i <= m; i++) if (t[i] >= a && t[i] <= b) { if (!f) f = i; l = i } return (l > f) ? (s[l] - s[f]) * 8e3 / (t[l] - t[f]) : 0 }
		BEGIN { n = 0; while ((getline l < qf) > 0) { if (l ~ /^t_ns/) continue; split(l, v, ","); n++; t[n] = v[1]; q[n] = v[2]; s[n] = v[3]; d[n] = v[4] } m = n }
		{ st = $1; c = $2 * 1e6; r++; k = 0; peak = 0; ip = 0; k2 = 0
		  for (i = 2; i <= m; i++) if (t[i] >= st - 50e6 && t[i] <= st + 300e6)
			printf "%s,%d,%.3f,%d,%.1f\n", cc, r, (t[i] - st) / 1e6, q[i], (s[i] - s[i - 1]) * 8e3 / (t[i] - t[i - 1]) >> csv
		  for (i = 1; i <= m; i++) if (t[i] >= st - 100e6 && t[i] < st) pre[++k] = q[i]
		  base = med(pre, k); split("", pre)
		  for (i = 1; i <= m; i++) if (t[i] >= st && t[i] <= st + c + 50e6 && q[i] > peak) { peak = q[i]; ip = i }
		  dr = "null"
		  if (ip) for (i = ip; i <= m && t[i] <= st + 300e6; i++) if (q[i] <= base + (peak - base) / 10) { dr = sprintf("%.1f", (t[i] - st) / 1e6); break }
		  for (i = 1; i <= m; i++) if (t[i] >= st + c && t[i] < st + c + 100e6) aft[++k2] = q[i]
		  qa = med(aft, k2); split("", aft)
		  drops = 0; for (i = 2; i <= m; i++) if (t[i] >= st && t[i] <= st + c + 50e6) drops += d[i] - d[i - 1]
		  printf "{\"round\":%d,\"completion_ms\":%.3f,\"peak_queue_bytes\":%d,\"queue_before_bytes\":%d,\"drain_ms\":%s,\"tput_before_mbps\":%.0f,\"tput_during_mbps\":%.0f,\"tput_after_mbps\":%.0f,\"queue_after_p50_bytes\":%d,\"drops\":%d}\n",
			r, $2, peak, base, dr, rate(st - 100e6, st), rate(st, st + c), rate(st + c, st + c + 100e6), qa, drops }'
}

echo "cc,round,t_ms,queue_bytes,throughput_mbps" >"$OUT/incast.csv"
echo "cc,degree,flows_per_ns,bytes_per_flow,rounds,completed_rounds,completion_ms_median,completion_ms_max,ideal_ms,rto_rounds,timeouts,drops,switch_drops,held" >"$OUT/sweep.csv"
: >"$OUT/results.jsonl"
rc=0 port=5900 RAN=()
for cc in $CCS; do
	if ! ccfab_cc_ok "$cc"; then
		echo "ptcp_incast: $cc not available ($(cat /proc/sys/net/ipv4/tcp_available_congestion_control)); skipped" >&2
		rc=1
		continue
	fi
	RAN+=("$cc")
	port=$((port + 1))
	q=$OUT/queue-$cc.csv
	echo "ptcp_incast: $cc: long flow, then $ROUNDS rounds of ${NINCAST}:1 x $BYTES B, then degrees $DEGREES"
	# One sink per CC: the long flow and the incasts all go to it.
	fabric_bg "$FAB_RECV" "$BUILD/tools/incast" sink -p $port $(ccfab_sink_cc "$cc") 2>"$OUT/sink-$cc.log"
	spid=$FAB_LAST_PID
	fabric_wait_port "$FAB_RECV" $port || { echo "ptcp_incast: $cc: sink not listening" >&2; rc=1; continue; }
	fabric_bg "$FAB_SWITCH" "$BUILD/tools/qsample" -r -d "$FAB_BN_DEV" -t 900 -o "$q"
	qpid=$FAB_LAST_PID
	# the long flow: one transfer larger than the run, stopped at its end
	fabric_bg "" "$BUILD/tools/incast" client -d "$RIP" -p $port -n "$LONG" -s 1000000000000 -c "$cc" -t 900 \
		>/dev/null 2>"$OUT/long-$cc.err"
	lpid=$FAB_LAST_PID
	read -r ef0 ee0 <<<"$(ccfab_dctcp_ecn)"
	sleep $WARM_S
	to0=$(ccfab_timeouts "${INC[@]}") sw0=$(ccfab_switch_drops)
	"$BUILD/tools/incast" client -d "$RIP" -p $port -n "$INC_NS" -s "$BYTES" -c "$cc" -r "$ROUNDS" \
		-g "$GAP_MS" -t 60 >"$OUT/incast-$cc.json" 2>"$OUT/incast-$cc.err" ||
		{ echo "ptcp_incast: $cc: 10:1 incast failed: $(head -c 200 "$OUT/incast-$cc.err")" >&2; rc=1; }
	to1=$(ccfab_timeouts "${INC[@]}") sw1=$(ccfab_switch_drops)
	sleep 0.3
	: >"$OUT/sweep-$cc.jsonl"
	for deg in $DEGREES; do
		f=$((deg / SWEEP_NS))
		t0=$(ccfab_timeouts "${SWP[@]}")
		d0=$(tail -n 1 "$q" | cut -d, -f4) s0=$(ccfab_switch_drops)
		ok=1
		"$BUILD/tools/incast" client -d "$RIP" -p $port -n "$SWP_NS" -f $f -s "$SWEEP_BYTES" -c "$cc" \
			-r "$SWEEP_ROUNDS" -g "$GAP_MS" -t 20 >"$OUT/sweep-$cc-$deg.json" 2>"$OUT/sweep-$cc-$deg.err" || ok=0
		sleep 0.1
		t1=$(ccfab_timeouts "${SWP[@]}")
		d1=$(tail -n 1 "$q" | cut -d, -f4) s1=$(ccfab_switch_drops)
		jq -c --argjson deg "$deg" --argjson f "$f" --argjson b "$SWEEP_BYTES" --argjson n "$SWEEP_ROUNDS" \
			--argjson ok $ok --argjson to $((t1 - t0)) --argjson dr $((${d1:-0} - ${d0:-0})) --argjson rate "$RATE" \
			--argjson sd $((s1 - s0)) --argjson rto "$RTO_MS" '
			([.per_round[]?.completion_ms] | sort) as $c |
			{degree: $deg, flows_per_ns: $f, bytes_per_flow: $b, rounds: $n, completed_rounds: ($c | length),
			 completion_ms_median: (if ($c | length) > 0 then $c[(($c | length) - 1) / 2 | floor] else null end),
			 completion_ms_max: ($c | max), ideal_ms: ($deg * $b * 8 / $rate / 1000),
			 rto_rounds: ([$c[] | select(. >= $rto)] | length),
			 timeouts: $to, drops: $dr, switch_drops: $sd, held: ($ok == 1 and ($c | length) == $n and $to == 0)}' \
			"$OUT/sweep-$cc-$deg.json" 2>/dev/null >>"$OUT/sweep-$cc.jsonl" ||
			jq -nc --argjson deg "$deg" --argjson f "$f" --argjson b "$SWEEP_BYTES" --argjson n "$SWEEP_ROUNDS" \
				--argjson to $((t1 - t0)) --argjson dr $((${d1:-0} - ${d0:-0})) --argjson sd $((s1 - s0)) \
				'{degree: $deg, flows_per_ns: $f, bytes_per_flow: $b, rounds: $n, completed_rounds: 0,
				  completion_ms_median: null, completion_ms_max: null, ideal_ms: null, rto_rounds: null,
				  timeouts: $to, drops: $dr, switch_drops: $sd, held: false}' \
				>>"$OUT/sweep-$cc.jsonl"
		jq -r --arg cc "$cc" '[$cc, .degree, .flows_per_ns, .bytes_per_flow, .rounds, .completed_rounds,
			(.completion_ms_median // ""), (.completion_ms_max // ""), (.ideal_ms // ""), (.rto_rounds // ""), .timeouts, .drops,
			.switch_drops, .held] | @csv' \
			<(tail -n 1 "$OUT/sweep-$cc.jsonl") | tr -d '"' >>"$OUT/sweep.csv"
		echo "ptcp_incast: $cc: ${deg}:1 $(tail -n 1 "$OUT/sweep-$cc.jsonl" | jq -r '"median \(.completion_ms_median) ms (ideal \(.ideal_ms)), \(.completed_rounds)/\(.rounds) rounds, \(.rto_rounds) at the RTO, \(.timeouts) timeouts, \(.drops) qdisc and \(.switch_drops) switch drops, held \(.held)"')"
		sleep 0.2
	done
	fabric_kill "$lpid"
	fabric_kill "$qpid"
	fabric_kill "$spid"
	read -r ef1 ee1 <<<"$(ccfab_dctcp_ecn)"
	rounds_of "$q" "$OUT/incast-$cc.json" "$cc" >"$OUT/rounds-$cc.jsonl"
	jq -n --arg cc "$cc" --slurpfile r "$OUT/rounds-$cc.jsonl" --slurpfile s "$OUT/sweep-$cc.jsonl" \
		--argjson to $((to1 - to0)) --argjson ef $((ef1 - ef0)) --argjson ee $((ee1 - ee0)) \
		--argjson sd $((sw1 - sw0)) --argjson rto "$RTO_MS" --slurpfile i <(cat "$OUT/incast-$cc.json" 2>/dev/null || echo null) '
		def med: sort | if length == 0 then null else .[(length - 1) / 2 | floor] end;
		{cc: $cc, rounds: $r, incast_completion_ms_median: ($i[0].completion_ms // null),
		 peak_queue_bytes_median: ([$r[].peak_queue_bytes] | med), drain_ms_median: ([$r[].drain_ms | select(. != null)] | med),
		 tput_before_mbps_median: ([$r[].tput_before_mbps] | med), tput_during_mbps_median: ([$r[].tput_during_mbps] | med),
		 tput_after_mbps_median: ([$r[].tput_after_mbps] | med), queue_after_p50_bytes_median: ([$r[].queue_after_p50_bytes] | med),
		 drops_total: ([$r[].drops] | add), timeouts: $to, switch_drops: $sd,
		 rto_rounds: ([$r[] | select(.completion_ms >= $rto)] | length), sweep: $s,
		 dctcp_connections: $ef, dctcp_ecn_connections: $ee,
		 smallest_degree_failed: ([$s[] | select(.held | not) | .degree] | min)} |
		# held: that degree and every smaller one of the sweep
		.largest_degree_held = (.smallest_degree_failed as $f | [$s[] | select(.held and ($f == null or .degree < $f)) | .degree] | max)' >>"$OUT/results.jsonl"
done
ccfab_down
[ ${#RAN[@]} -gt 0 ] || die "no congestion control could run"
jq -n --slurpfile r "$OUT/results.jsonl" --argjson rate "$RATE" --argjson buf "$BUF" --argjson bytes "$BYTES" \
	--argjson rounds "$ROUNDS" --argjson gap "$GAP_MS" --arg degrees "$DEGREES" --argjson sb "$SWEEP_BYTES" \
	--argjson sr "$SWEEP_ROUNDS" --argjson ping "$CCFAB_PING_US" --argjson tau "$CCFAB_TAU_US" --arg short "$SHORT" \
	--arg rto "${RTO_MIN_MS:-200 (kernel default)}" --rawfile cp "$OUT/cc-params.txt" --arg host "$(uname -r), $(nproc) CPUs" '
	{experiment: "ptcp_incast", figure: "PowerTCP, NSDI22 (thesis Fig. 2.4): incast", short: $short,
	 params: {rate_mbit: $rate, buffer_bytes: $buf, incast_degree: 10, incast_bytes_per_sender: $bytes, rounds: $rounds,
	          gap_ms: $gap, sweep_degrees: ($degrees | split(" ") | map(tonumber)), sweep_bytes_per_flow: $sb,
	          sweep_rounds: $sr, ping_rtt_us: $ping, tau_us: $tau, rto_min_ms: $rto, host: $host,
	          cc_params: ($cp | split("\n") | map(select(length > 0)))},
	 results: $r}' >"$OUT/summary.json"
rm -f "$OUT/results.jsonl" "$OUT"/rounds-*.jsonl "$OUT"/sweep-*.jsonl

printf '\n%-15s %9s %11s %9s %10s %10s %10s %11s %6s %7s %5s %9s %s\n' cc "incast ms" "peak q KB" "drain ms" "thr pre" "thr dur" "thr post" "q post KB" drops "sw drops" RTOs "RTO rnds" "largest held"
jq -r '.results[] | [.cc, .incast_completion_ms_median, ((.peak_queue_bytes_median // 0) / 1000 | floor), (.drain_ms_median // "-"),
	.tput_before_mbps_median, .tput_during_mbps_median, .tput_after_mbps_median, ((.queue_after_p50_bytes_median // 0) / 1000 | floor),
	.drops_total, .switch_drops, .timeouts, "\(.rto_rounds)/\(.rounds | length)", (.largest_degree_held // "none")] | @tsv' "$OUT/summary.json" |
	while IFS=$'\t' read -r a b c d e f g h i j k l m; do printf '%-15s %9s %11s %9s %10s %10s %10s %11s %6s %7s %5s %9s %s\n' "$a" "$b" "$c" "$d" "$e" "$f" "$g" "$h" "$i" "$j" "$k" "$l" "$m"; done
echo "(medians over $ROUNDS rounds; throughput of the bottleneck in Mbit/s in the 100 ms before the incast, while it ran, in the 100 ms after it completed)"

# ---- plots -------------------------------------------------------------------
n=${#RAN[@]}
{
	echo "set terminal pngcairo size $((300 * n + 80)),620 font ',9'"
	echo "set output '$OUT/incast.png'"
	echo "set datafile separator ','"
	echo "set multiplot layout 2,$n title '${NINCAST}:1 incast of $BYTES B per sender onto a long flow, $RATE Mbit/s bottleneck, round 1 (t = 0: incast starts)'"
	echo "set grid; set xrange [-50:300]"
	for cc in "${RAN[@]}"; do
		echo "set title '$cc' noenhanced; set ylabel 'throughput (Mbit/s)'; set yrange [0:$((RATE * 13 / 10))]"
		echo "plot '$OUT/incast.csv' using (strcol(1) eq '$cc' && \$2 == 1 ? \$3 : 1/0):5 with lines lc rgb 'navy' notitle"
	done
	for cc in "${RAN[@]}"; do
		echo "set title ''; set ylabel 'queue (KB)'; set xlabel 'time (ms)'; set yrange [0:$((BUF / 1000 + BUF / 20000))]"
		echo "plot '$OUT/incast.csv' using (strcol(1) eq '$cc' && \$2 == 1 ? \$3 : 1/0):(\$4 / 1000) with lines lc rgb 'dark-red' notitle"
	done
	echo "unset multiplot"
} >"$OUT/incast.plt"
{
	echo "set terminal pngcairo size 900,420 font ',10'"
	echo "set output '$OUT/sweep.png'"
	echo "set datafile separator ','"
	echo "set title 'Incast degree sweep ($SWEEP_BYTES B per flow, median of $SWEEP_ROUNDS rounds; open points: a round timed out or did not finish)'"
	echo "set logscale xy; set xlabel 'incast degree (flows)'; set ylabel 'completion (ms)'; set grid; set key left top"
	printf 'plot '
	i=0
	for cc in "${RAN[@]}"; do
		i=$((i + 1))
		[ $i -gt 1 ] && printf ', '
		printf "'%s' using (strcol(1) eq '%s' ? \$2 : 1/0):7 with linespoints lc %d pt 7 title '%s' noenhanced" "$OUT/sweep.csv" "$cc" $i "$cc"
		printf ", '%s' using (strcol(1) eq '%s' ? (strcol(12) eq 'false' ? \$2 : 1/0) : 1/0):7 with points lc %d pt 6 ps 2 notitle" "$OUT/sweep.csv" "$cc" $i
	done
	echo
} >"$OUT/sweep.plt"
for p in incast sweep; do
	gnuplot "$OUT/$p.plt" 2>"$OUT/gnuplot-$p.log" || { echo "ptcp_incast: gnuplot $p: $(tail -n 2 "$OUT/gnuplot-$p.log")" >&2; rc=1; }
done
echo "ptcp_incast: wrote $OUT/summary.json, incast.csv, sweep.csv, incast.png, sweep.png"
exit $rc
