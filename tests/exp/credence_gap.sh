#!/usr/bin/env bash
# Credence's gap to its paper (docs/results.md, "Credence: the gap to the
# paper"; `make credence-gap`).  Three settings of `dcbpf sim`, unit packets,
# 16 ports, evaluated on workload seed 1, forests trained on seed 7:
#   incast-heavy  web search 0.2 + incasts of B every ~500 slots, B = 1000
#                 (the trace of "Credence: error sweep and trained forest")
#   bursts        incasts of B only, every ~500 slots: the throughput
#                 experiment behind the paper's "1.5x" (Credence, NSDI'24,
#                 App. D, Fig. 14: bursts of the buffer's size, Poisson)
#   paper-L       the packet-level setup of Credence, NSDI'24, §4.1 as far
#                 as an open-loop switch goes: B = 5.12 KB per port per
#                 Gbit/s at 10 Gbit/s (546 packets of 1500 B for 16 ports),
#                 1.2 µs slots, web search at load L = 0.2 … 0.8, incasts of
#                 0.5·B, features averaged over one base RTT (25.2 µs), one
#                 forest trained at load 0.8 with bursts of 0.75·B (§4.1,
#                 "Predictions")
# Per setting: DT, LQD, Credence with the perfect oracle, the trained forest,
# the oracle's predictions flipped with p = 0.01 and 0.1, and no
# predictions; on incast-heavy also forests trained on 5x the slots and on
# the evaluation trace itself, and the packets an unbounded buffer sends.  Metrics: packets sent (throughput) and the
# incast queries that lost no packet (a query losing one waits for a
# retransmission timeout).  Writes $OUT (default out/credence-gap):
# rows.jsonl, gap.csv, summary.json, gap.png, table.txt.
# SHORT=1: a few thousand slots and two loads (seconds; tests/loader/credence_gap.sh).
# shellcheck shell=bash
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
OUT=${OUT:-out/credence-gap}
D=("$BUILD/dcbpf")
if [ "${SHORT:-0}" = 1 ]; then
	SLOTS=${GAP_SLOTS:-20000}
	LOADS=${GAP_LOADS:-"0.2 0.8"}
	BIG=$((SLOTS * 2))
else
	SLOTS=${GAP_SLOTS:-200000}
	LOADS=${GAP_LOADS:-"0.2 0.4 0.6 0.8"}
	BIG=$((SLOTS * 5))
fi
TRAIN_SEED=7
EVAL_SEED=1
mkdir -p "$OUT"
rows="$OUT/rows.jsonl"
: >"$rows"

IH=(--workload mix --load 0.2 --incast-frac 1 --incast-period 500)
BURSTS=(--workload incast --incast-frac 1 --incast-period 500)
PAPER=(--buffer 546 --slot-ns 1200)

# row SETTING LOAD LABEL SIM-ARGS... → one JSON row
row() {
	local set=$1 load=$2 label=$3
	shift 3
	"${D[@]}" sim --seed "$EVAL_SEED" --slots "$SLOTS" --json "$@" |
		jq -c --arg s "$set" --argjson l "$load" --arg lab "$label" \
		'.[0] | {setting: $s, load: $l, label: $lab, alg, sent_pkts, drops, p1_loss_pct,
			 incast_queries, incast_whole, pred_asked, pred_tp, pred_fp, pred_tn, pred_fn}' >>"$rows"
}
train() { # MODEL TRAIN-ARGS...
	local m=$1
	shift
	"${D[@]}" credence train --out "$m" --json "$@" >"$m.json"
}
# every row of one setting: WORKLOAD-ARGS given, MODEL
set_rows() {
	local set=$1 load=$2 model=$3
	shift 3
	row "$set" "$load" dt --alg dt "$@"
	row "$set" "$load" lqd --alg lqd "$@"
	row "$set" "$load" oracle --alg credence --predictor oracle "$@"
	row "$set" "$load" forest --alg credence --predictor forest --model "$model" "$@"
	row "$set" "$load" flip0.01 --alg credence --predictor oracle --flip 0.01 "$@"
	row "$set" "$load" flip0.1 --alg credence --predictor oracle --flip 0.1 "$@"
	row "$set" "$load" accept --alg credence --predictor accept "$@"
}

echo "# incast-heavy" >&2
train "$OUT/model-ih" --seed "$TRAIN_SEED" --slots "$SLOTS" "${IH[@]}"
train "$OUT/model-ih-big" --seed "$TRAIN_SEED" --slots "$BIG" "${IH[@]}"
train "$OUT/model-ih-self" --seed "$EVAL_SEED" --slots "$SLOTS" "${IH[@]}"
set_rows incast-heavy 0.2 "$OUT/model-ih" "${IH[@]}"
row incast-heavy 0.2 forest-5x-slots --alg credence --predictor forest --model "$OUT/model-ih-big" "${IH[@]}"
row incast-heavy 0.2 forest-on-eval --alg credence --predictor forest --model "$OUT/model-ih-self" "${IH[@]}"
# no algorithm sends more than a switch with an unbounded buffer: the same
# arrivals (replayed, no drain after the last slot) under CS with B = 10^9
"${D[@]}" sim --alg lqd --seed "$EVAL_SEED" --slots "$SLOTS" "${IH[@]}" --write-trace "$OUT/ih.bin" \
	--write-format binary --json >/dev/null
"${D[@]}" sim --alg cs --buffer 1000000000 --trace "$OUT/ih.bin" --no-drain --json |
	jq -c '.[0] | {setting: "incast-heavy", load: 0.2, label: "unbounded-buffer", alg, sent_pkts, drops,
		       p1_loss_pct, incast_queries: null, incast_whole: null, pred_asked}' >>"$rows"
rm -f "$OUT/ih.bin"

echo "# bursts of B" >&2
train "$OUT/model-bursts" --seed "$TRAIN_SEED" --slots "$SLOTS" "${BURSTS[@]}"
set_rows bursts 0 "$OUT/model-bursts" "${BURSTS[@]}"

echo "# paper setup, loads $LOADS" >&2
train "$OUT/model-paper" --seed "$TRAIN_SEED" --slots "$SLOTS" "${PAPER[@]}" --ewma-period-ns 25200 \
	--workload mix --load 0.8 --incast-frac 0.75
for L in $LOADS; do
	set_rows paper "$L" "$OUT/model-paper" "${PAPER[@]}" --workload mix --load "$L" --incast-frac 0.5
done

# ratios against DT and LQD of the same setting and load
jq -s -c '(map(select(.label == "dt" or .label == "lqd")) | map({("\(.setting)/\(.load)/\(.label)"): .}) | add) as $b
	| .[] | $b["\(.setting)/\(.load)/dt"] as $dt | $b["\(.setting)/\(.load)/lqd"] as $lqd
	| def r($a; $b): if $b > 0 then ($a / $b * 10000 | round / 10000) else null end;
	  . + {whole_frac: r(.incast_whole; .incast_queries),
	       sent_over_dt: r(.sent_pkts; $dt.sent_pkts), sent_over_lqd: r(.sent_pkts; $lqd.sent_pkts),
	       whole_over_dt: r(.incast_whole; $dt.incast_whole), whole_minus_dt: (if .incast_whole == null then null else .incast_whole - $dt.incast_whole end)}' \
	"$rows" >"$rows.tmp"
mv "$rows.tmp" "$rows"
csv="$OUT/gap.csv"
echo "setting,load,label,sent_pkts,sent_over_dt,sent_over_lqd,p1_loss_pct,incast_queries,incast_whole,whole_frac,pred_asked" >"$csv"
jq -r '[.setting, .load, .label, .sent_pkts, .sent_over_dt, .sent_over_lqd, .p1_loss_pct, .incast_queries,
	.incast_whole, .whole_frac, .pred_asked] | map(. // "") | @csv' "$rows" | tr -d '"' >>"$csv"

table="$OUT/table.txt"
{
	printf '%-13s %5s %-16s %9s %7s %8s %8s %11s\n' setting load predictor sent "/DT" "/LQD" "p1loss%" "whole/qry"
	jq -r '[.setting, .load, .label, .sent_pkts, .sent_over_dt, .sent_over_lqd, .p1_loss_pct,
		"\(.incast_whole)/\(.incast_queries)"] | @tsv' "$rows" |
		while IFS=$'\t' read -r s l lab sent rd rl loss wq; do
			printf '%-13s %5s %-16s %9s %7s %8s %8s %11s\n' "$s" "$l" "$lab" "$sent" "$rd" "$rl" "$loss" "$wq"
		done
} >"$table"
cat "$table" >&2

summary="$OUT/summary.json"
jq -s --arg slots "$SLOTS" --arg loads "$LOADS" '
	def at($s; $l; $lab): map(select(.setting == $s and .load == $l and .label == $lab))[0];
	. as $r
	| {setup: {mode: "unit", ports: 16, slots: ($slots | tonumber), eval_seed: 1, train_seed: 7,
		   loads: ($loads | split(" ") | map(tonumber))},
	   rows: $r,
	   headline: {
	     forest_over_dt_incast_heavy: at("incast-heavy"; 0.2; "forest").sent_over_dt,
	     oracle_over_dt_incast_heavy: at("incast-heavy"; 0.2; "oracle").sent_over_dt,
	     unbounded_over_dt_incast_heavy: at("incast-heavy"; 0.2; "unbounded-buffer").sent_over_dt,
	     forest_over_dt_bursts: at("bursts"; 0; "forest").sent_over_dt,
	     oracle_over_dt_bursts: at("bursts"; 0; "oracle").sent_over_dt,
	     oracle_equals_lqd: ([$r[] | select(.label == "oracle") | .sent_over_lqd == 1] | all)
	   }}' "$rows" >"$summary"

# plot: per setting/load, Credence/DT in packets sent and whole queries
if command -v gnuplot >/dev/null; then
	dat="$OUT/gap.dat"
	: >"$dat"
	for lab in oracle forest flip0.01 flip0.1 accept lqd; do
		{
			echo "# $lab"
			jq -r --arg lab "$lab" 'select(.setting == "paper" and .label == $lab)
				| "\(.load) \(.sent_over_dt) \(.whole_frac)"' "$rows"
			echo
			echo
		} >>"$dat"
	done
	dtw=$(jq -r 'select(.setting == "paper" and .label == "dt") | "\(.load) \(.whole_frac)"' "$rows")
	{
		echo "set terminal png size 1200,500"
		echo "set output '$OUT/gap.png'"
		echo "set multiplot layout 1,2 title 'Credence in the paper setup (B = 5.12 KB/port/Gbit/s, incasts of 0.5 B): against DT'"
		echo "set xlabel 'web-search load'"
		echo "set key below"
		echo "set title 'packets sent / DT'"
		echo "plot for [i=0:5] '$dat' index i using 1:2 with linespoints title columnheader(1)"
		echo "set title 'incast queries that lost no packet (fraction)'"
		echo "set yrange [0:1]"
		echo "plot for [i=0:5] '$dat' index i using 1:3 with linespoints title columnheader(1), \\"
		echo "  '-' using 1:2 with linespoints lw 2 lc rgb 'red' title 'dt'"
		echo "$dtw"
		echo "e"
		echo "unset multiplot"
	} >"$OUT/gap.gp"
	# the titles: columnheader reads the first line of each block
	sed -i 's/^# \(.*\)/\1 x x/' "$dat"
	gnuplot "$OUT/gap.gp" 2>"$OUT/gnuplot.log" || echo "credence gap: gnuplot failed (see $OUT/gnuplot.log)" >&2
else
	echo "credence gap: gnuplot missing (make deps), no plot" >&2
fi
echo "written: $csv $summary $table $OUT/gap.png" >&2
