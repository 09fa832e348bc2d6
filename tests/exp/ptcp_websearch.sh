#!/usr/bin/env bash
# PowerTCP (NSDI'22; Figs. 2.6 and 2.7 of Addanki's thesis) in our fabric:
# web-search flow sizes with Poisson arrivals across loads on a leaf–spine
# whose every leaf and spine is dcbpf's switch filling INT (dynamic
# thresholds as the paper's switches, CE above K for DCTCP), min RTO 10 ms,
# per congestion control; then incast requests on top at the highest load
# (the paper's distributed-file-system requests: one receiver, every
# server of the other leaf answering at once), across request rates and
# request sizes. Flow sizes are scaled by the ratio of the fabric's
# bandwidth-delay product to the paper's (SCALE; a flow then spans as many
# RTTs and fills as much of the queue as there) and binned by their
# unscaled size, so "short" is the paper's < 10 KB. As in the paper, hosts
# are slower than the fabric's core: each leaf has H hosts at RATE and S
# uplinks at RATE (H/S : 1 oversubscribed, the paper's ToRs 4 : 1).
#
#   sudo tests/exp/ptcp_websearch.sh           # SHORT=1: loads 0.2 0.6, one bursty run; ~10 min
#   sudo SHORT=0 tests/exp/ptcp_websearch.sh   # loads 0.2 ... 0.8, request rates and sizes
#   SHORT=smoke                                # the make-check mode: two CCs, tens of flows
#
# Writes under $OUT: load<L>/<cc>.{json,csv} and burst-r<R>-s<KB>/<cc>.{json,csv}
# (tests/tools/workload's schema, docs/workload.md), each directory's
# slowdown.png / cdf.png / table.txt (Fig. 2.6: p99.9 per size at one
# load), sweep-load.png / .csv (Fig. 2.7a,b: p99.9 of short, medium and
# long flows against the load), sweep-req_per_s and sweep-req_kb (Fig.
# 2.7c–f), queue-<load|burst>.csv and queue.png (Fig. 2.7g,h: CDF of the
# uplinks' queue, sampled every QS_US on every leaf uplink, at the highest
# load and in the densest bursty run), summary.json and summary.csv (one
# row per run: short/medium/long p50/p99/p99.9 slowdown, flows, timeouts,
# queue p50/p99/max where sampled).
#
# Env: CCS (powertcp theta_powertcp hpcc timely dctcp cubic), RATE (Mbit/s of
# every link, 250: the load is relative to the L·S uplinks; at 1000 this
# 2-core machine cannot carry the offered load), L S H (2 1 4), SCALE
# (RATE·τ / (25 Gbit/s · 28 µs): the paper's hosts and its longest path's
# propagation RTT, 2 × (1+1+5+5+1+1) µs), LOADS, FLOWS,
# BURST_LOAD (the highest of LOADS), REQ_RATES (requests per second), REQ_KB
# (request size before SCALE, per request, split over FANIN responders),
# REQ_RATE_AT_SIZES (4/s), REQ_KB_AT_RATES (2048), FANIN (16 responses, over
# the other leaf's hosts), K (30000 B), B (switch buffer, 1000000 B), QS_US
# (1000), SEED, CCFAB_* (tests/lib/ccfab.sh), BUILD, OUT (out/ptcp-websearch).
# Holds /tmp/dcbpf-suite.lock while the fabric is up (unless the caller holds
# it: DCBPF_SUITE_LOCKED=1).
# shellcheck shell=bash
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
OUT=$(realpath -m "${OUT:-out/ptcp-websearch}")
SHORT=${SHORT:-1}
RATE=${RATE:-250} L=${L:-2} S=${S:-1} H=${H:-4}
SCALE=${SCALE:-}
K=${K:-30000} B=${B:-1000000} QS_US=${QS_US:-1000} SEED=${SEED:-1} FANIN=${FANIN:-16}
REQ_RATE_AT_SIZES=${REQ_RATE_AT_SIZES:-4} REQ_KB_AT_RATES=${REQ_KB_AT_RATES:-2048}
case $SHORT in
smoke)
	CCS=${CCS:-powertcp cubic} LOADS=${LOADS:-0.3} FLOWS=${FLOWS:-40}
	REQ_RATES=${REQ_RATES:-8} REQ_KB=${REQ_KB:-} ;;
1)
	CCS=${CCS:-powertcp theta_powertcp hpcc timely dctcp cubic} LOADS=${LOADS:-0.2 0.6} FLOWS=${FLOWS:-1000}
	REQ_RATES=${REQ_RATES:-16} REQ_KB=${REQ_KB:-} ;;
0)
	CCS=${CCS:-powertcp theta_powertcp hpcc timely dctcp cubic} LOADS=${LOADS:-0.2 0.4 0.6 0.8}
	FLOWS=${FLOWS:-3000} REQ_RATES=${REQ_RATES:-2 4 8 16} REQ_KB=${REQ_KB:-1024 2048 4096 8192} ;;
*) echo "ptcp_websearch: SHORT is 0, 1 or smoke, not '$SHORT'" >&2; exit 2 ;;
esac
BURST_LOAD=${BURST_LOAD:-$(tr ' ' '\n' <<<"$LOADS" | sort -g | tail -n 1)}
TOP_LOAD=$(tr ' ' '\n' <<<"$LOADS" | sort -g | tail -n 1)
export BUILD
die() { echo "ptcp_websearch: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
for c in jq gnuplot; do command -v $c >/dev/null || die "'$c' not found (make deps)"; done
for t in workload qsample; do [ -x "$BUILD/tools/$t" ] || die "$BUILD/tools/$t not built (make)"; done
mkdir -p "$OUT"
rm -rf "$OUT"/load* "$OUT"/burst-* "$OUT"/*.csv "$OUT"/*.json "$OUT"/*.png

source tests/lib/suitelock.sh && suite_lock_take
source tests/lib/fabric.sh
source tests/lib/dcbpfd.sh
source tests/lib/ccfab.sh
source tests/lib/workload.sh
export FAB_RTO_MIN_MS=${FAB_RTO_MIN_MS:-10} FAB_LS_HOST_MBIT=${FAB_LS_HOST_MBIT:-$RATE}
CCFAB_ECN_K=$K ccfab_leafspine_up "$L" "$S" "$H" "$RATE" "$B" "$OUT" || die "$CCFAB_ERR"
[ -n "$SCALE" ] || SCALE=$(awk -v r="$RATE" -v t="$CCFAB_TAU_US" 'BEGIN { printf "%.4f", r * t / (25000 * 28) }')
echo "ptcp_websearch: fabric $FAB_ID: leaf-spine ${L}x${S}x${H}, links $RATE Mbit/s, switch buffer $B B," \
	"max ping RTT $CCFAB_PING_US us (τ = $CCFAB_TAU_US us), sizes x$SCALE"

# qs_start TAG: qsample on every leaf uplink into $OUT/qs-TAG-<i>.csv.
QS_PIDS=()
qs_start() {
	local i l s
	QS_PIDS=()
	for ((l = 0; l < L; l++)); do
		for ((s = 0; s < S; s++)); do
			i=$((l * S + s))
			fabric_bg "${FAB_LEAVES[l]}" "$BUILD/tools/qsample" -r -i "$QS_US" -d "${FAB_UPLINKS[i]}" -t 900 \
				-o "$OUT/qs-$1-$i.csv"
			QS_PIDS+=("$FAB_LAST_PID")
		done
	done
}
qs_stop() { # TAG CC: the samples of every uplink appended to queue-TAG.csv
	local p f
	for p in "${QS_PIDS[@]}"; do fabric_kill "$p"; done
	QS_PIDS=()
	[ -f "$OUT/queue-$1.csv" ] || echo "cc,uplink,t_ns,backlog_bytes" >"$OUT/queue-$1.csv"
	for f in "$OUT"/qs-"$1"-*.csv; do
		[ -f "$f" ] || continue
		awk -F, -v cc="$2" -v u="${f##*-}" 'NR > 1 { sub(/\.csv$/, "", u); print cc "," u "," $1 "," $2 }' "$f" \
			>>"$OUT/queue-$1.csv"
		rm -f "$f"
	done
}

# run DIR CC QTAG [WORKLOAD OPTIONS...]: one run; QTAG non-empty samples the
# uplinks' queues into queue-QTAG.csv. The summary gets the run's timeouts.
rc=0
run() {
	local dir=$1 cc=$2 qtag=$3 to0 to1 r=0
	shift 3
	wl_init "$OUT/$dir" || exit 1
	[ -n "$qtag" ] && qs_start "$qtag"
	to0=$(ccfab_timeouts "${FAB_HOSTS[@]}")
	wl_run "$cc" --cc "$cc" --cdf websearch --scale "$SCALE" --bins unscaled --seed "$SEED" \
		--tag label="$cc" --tag ecn_k_bytes="$K" "$@" || r=1
	to1=$(ccfab_timeouts "${FAB_HOSTS[@]}")
	[ -n "$qtag" ] && qs_stop "$qtag" "$cc"
	[ $r = 0 ] || rc=1
	if [ -s "$OUT/$dir/$cc.json" ]; then
		jq --argjson t $((to1 - to0)) '.run.timeouts_kernel = $t' "$OUT/$dir/$cc.json" >"$OUT/$dir/$cc.json.t" &&
			mv "$OUT/$dir/$cc.json.t" "$OUT/$dir/$cc.json"
		echo "ptcp_websearch: $dir $cc: $(jq -r '"\(.run.completed)/\(.run.flows) flows, short p99.9 \(.classes.bg.bins[0].slowdown.p999 // "-"), medium \(.classes.bg.bins[1].slowdown.p999 // "-"), long \(.classes.bg.bins[2].slowdown.p999 // "-"), \(.run.timeouts_kernel) timeouts"' "$OUT/$dir/$cc.json")"
	fi
}

CCS_RUN=""
for cc in $CCS; do
	if [ "$cc" != cubic ] && ! ccfab_cc_ok "$cc"; then
		echo "ptcp_websearch: $cc not available, left out" >&2
		rc=1
		continue
	fi
	CCS_RUN+="${CCS_RUN:+ }$cc"
done

# Fig. 2.6 and 2.7a,b: across loads.
for load in $LOADS; do
	for cc in $CCS_RUN; do
		q=""
		[ "$load" = "$TOP_LOAD" ] && q=load
		run "load$load" "$cc" "$q" --load "$load" --flows "$FLOWS" --tag load="$load"
	done
	wl_plot "websearch x$SCALE, load $load, leaf-spine ${L}x${S}x${H} at $RATE Mbit/s" >/dev/null || rc=1
done

# Fig. 2.7c–f: incast requests on top of the load. A request of REQ_KB
# (before SCALE) is answered by FANIN flows of REQ_KB·SCALE/FANIN each.
# burst_run RATE_PER_S KB QTAG
burst_run() {
	local r=$1 kb=$2 q=$3 bytes period
	bytes=$(awk -v k="$kb" -v s="$SCALE" -v f="$FANIN" 'BEGIN { b = int(k * 1024 * s / f); print (b < 1 ? 1 : b) }')
	period=$(awk -v r="$r" 'BEGIN { print 1000 / r }')
	for cc in $CCS_RUN; do
		run "burst-r$r-s$kb" "$cc" "$q" --load "$BURST_LOAD" --flows "$FLOWS" \
			--incast "$period:$bytes:$FANIN" --tag req_per_s="$r" --tag req_kb="$kb" --tag load="$BURST_LOAD"
	done
	wl_plot "websearch x$SCALE at $BURST_LOAD + $r requests/s of $kb KB" >/dev/null || rc=1
}
top_rate=$(tr ' ' '\n' <<<"$REQ_RATES" | sort -g | tail -n 1)
for r in $REQ_RATES; do
	q=""
	[ "$r" = "$top_rate" ] && q=burst
	burst_run "$r" "$REQ_KB_AT_RATES" "$q"
done
for kb in $REQ_KB; do
	[ "$kb" = "$REQ_KB_AT_RATES" ] && case " $REQ_RATES " in *" $REQ_RATE_AT_SIZES "*) continue ;; esac
	burst_run "$REQ_RATE_AT_SIZES" "$kb" ""
done
ccfab_down

# The sweeps (one plotting path) and the queue CDFs.
title="websearch x$SCALE, leaf-spine ${L}x${S}x${H} at $RATE Mbit/s"
[ "$(echo "$LOADS" | wc -w)" -gt 1 ] &&
	{ tests/exp/plot-workload -o "$OUT" -t "$title" -x load "$OUT"/load*/*.json >/dev/null || rc=1; }
[ "$(echo "$REQ_RATES" | wc -w)" -gt 1 ] &&
	{ tests/exp/plot-workload -o "$OUT" -t "$title, load $BURST_LOAD" -x req_per_s \
		"$OUT"/burst-r*-s"$REQ_KB_AT_RATES"/*.json >/dev/null || rc=1; }
[ -n "$REQ_KB" ] &&
	{ tests/exp/plot-workload -o "$OUT" -t "$title, load $BURST_LOAD" -x req_kb \
		"$OUT"/burst-r"$REQ_RATE_AT_SIZES"-s*/*.json >/dev/null || rc=1; }

# queue percentiles per (tag, cc): "tag cc p50 p99 max" (nearest rank)
qstats() {
	local f tag
	for f in "$OUT"/queue-*.csv; do
		[ -f "$f" ] || continue
		tag=${f##*/queue-} tag=${tag%.csv}
		tail -n +2 "$f" | sort -t, -k1,1 -k4,4n | awk -F, -v tag="$tag" '
			function out() { if (n) print tag, cc, v[int(0.5 * n + 0.999)], v[int(0.99 * n + 0.999)], v[n] }
			$1 != cc { out(); cc = $1; n = 0 } { v[++n] = $4 } END { out() }'
	done
}
qstats >"$OUT/queue-stats.txt"
plots="" k=0
for f in "$OUT"/queue-*.csv; do
	[ -f "$f" ] || continue
	tag=${f##*/queue-} tag=${tag%.csv}
	for cc in $CCS_RUN; do
		awk -F, -v cc="$cc" '$1 == cc { print $4 / 1000 }' "$f" | sort -g |
			awk '{ v[NR] = $1 } END { for (i = 1; i <= NR; i++) print v[i], i / NR }' >"$OUT/.q$k.dat"
		[ -s "$OUT/.q$k.dat" ] && plots+="${plots:+, }'$OUT/.q$k.dat' using 1:2 with steps lw 2 title '$cc ($tag)'"
		k=$((k + 1))
	done
done
if [ -n "$plots" ]; then
	gnuplot <<GP 2>"$OUT/.gp.err" || { echo "ptcp_websearch: gnuplot: $(tail -n 2 "$OUT/.gp.err")" >&2; rc=1; }
set terminal pngcairo size 900,520 font ',10'
set output '$OUT/queue.png'
set title 'CDF of the leaf uplinks queue (load: $TOP_LOAD; burst: $BURST_LOAD + $top_rate requests/s)' noenhanced
set grid
set logscale x
set yrange [0:1.02]
set xlabel 'queue (KB)'
set ylabel 'fraction of samples'
set key bottom right noenhanced
plot $plots
GP
fi
rm -f "$OUT"/.q*.dat "$OUT/.gp.err"

# summary.csv / summary.json: one row per run.
{
	echo "dir,cc,load,req_per_s,req_kb,flows,completed,short_p50,short_p99,short_p999,medium_p50,medium_p99,medium_p999,long_p50,long_p99,long_p999,rto_count,timeouts_kernel,goodput_mbit"
	for j in "$OUT"/load*/*.json "$OUT"/burst-*/*.json; do
		[ -f "$j" ] || continue
		d=$(basename "$(dirname "$j")")
		jq -r --arg d "$d" 'def v: if . == null then "" else . end;
			.classes.bg as $c | [$d, .params.tags.label, .params.load, (.params.tags.req_per_s // ""), (.params.tags.req_kb // ""),
			.run.flows, .run.completed] + ([$c.bins[] | .slowdown | (.p50, .p99, .p999) | v]) +
			[($c.rto_count | v), (.run.timeouts_kernel | v), (.run.goodput_mbit | v)] | @csv' "$j"
	done
} >"$OUT/summary.csv"
jq -n --arg rate "$RATE" --arg scale "$SCALE" --arg ls "${L}x${S}x${H}" --arg tau "$CCFAB_TAU_US" \
	--arg k "$K" --arg b "$B" --arg ccs "$CCS_RUN" --arg loads "$LOADS" --arg short "$SHORT" \
	--rawfile cp "$OUT/cc-params.txt" --rawfile qs "$OUT/queue-stats.txt" --arg host "$(uname -r), $(nproc) CPUs" \
	--slurpfile runs <(for j in "$OUT"/load*/*.json "$OUT"/burst-*/*.json; do [ -f "$j" ] && jq -c --arg d "$(basename "$(dirname "$j")")" \
		'{dir: $d, cc: .params.tags.label, load: .params.load, req_per_s: .params.tags.req_per_s, req_kb: .params.tags.req_kb,
		  flows: .run.flows, completed: .run.completed, timeouts: .run.timeouts_kernel, rto_count: .classes.bg.rto_count,
		  slowdown_p999: ([.classes.bg.bins[] | {key: .bin, value: .slowdown.p999}] | from_entries),
		  slowdown_p99: ([.classes.bg.bins[] | {key: .bin, value: .slowdown.p99}] | from_entries)}' "$j"; done) '
	{ schema: "dcbpf-ptcp-websearch/1", mode: $short, host: $host,
	  params: { rate_mbit: ($rate | tonumber), scale: ($scale | tonumber), leafspine: $ls, tau_us: ($tau | tonumber),
	            ecn_k_bytes: ($k | tonumber), buffer_bytes: ($b | tonumber), ccs: ($ccs | split(" ")),
	            loads: ($loads | split(" ") | map(tonumber)), cc_params: ($cp | split("\n") | map(select(length > 0))) },
	  queue: [$qs | split("\n")[] | select(length > 0) | split(" ") |
	          {tag: .[0], cc: .[1], p50_bytes: (.[2] | tonumber), p99_bytes: (.[3] | tonumber), max_bytes: (.[4] | tonumber)}],
	  runs: $runs }' >"$OUT/summary.json" || rc=1

printf '\n%-15s %-16s %22s %22s %22s %5s\n' cc run "short p50/p99/p99.9" "medium p50/p99/p99.9" "long p50/p99/p99.9" RTOs
tail -n +2 "$OUT/summary.csv" | tr -d '"' | awk -F, '
	function r(x) { return x == "" ? "-" : sprintf("%.1f", x) }
	{ printf "%-15s %-16s %22s %22s %22s %5s\n", $2, $1, r($8) "/" r($9) "/" r($10), r($11) "/" r($12) "/" r($13), r($14) "/" r($15) "/" r($16), $18 }'
echo
echo "queue (bytes, leaf uplinks): tag cc p50 p99 max"
cat "$OUT/queue-stats.txt"
echo "ptcp_websearch: wrote $OUT/summary.json, summary.csv, queue.png, load*/, burst-*/"
exit $rc
