# Credence's error sweep (docs/credence.md, "Error sweep"): on three
# websearch/incast workloads, `dcbpf sim` with LQD, Credence with the
# perfect oracle, Credence with a forest trained by `dcbpf credence
# train` on another workload seed, the oracle's predictions flipped with
# probability 0.001 … 0.1 (mean of three predictor seeds), Credence with
# no predictions ("accept": what the forest adds), FollowLQD, DT, ABM and CS.  Writes to $CRED_OUT (default out/credence): sweep.csv,
# summary.json, sweep.png, table.txt and the models; prints the table on
# stderr and the headline figures as bench JSON lines on stdout
# ({"name": {"value": N, "unit": "…"}}, merged by tests/bench/run).
# Unit packets, 16 ports, B = 1000, 200 000 slots: seconds on one core.
# shellcheck shell=bash
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
OUT=${OUT:-out/bench}
CRED_OUT=${CRED_OUT:-$(dirname "$OUT")/credence}
SLOTS=${CRED_SLOTS:-200000}
TRAIN_SEED=7	# the forest learns from workload seed 7 …
EVAL_SEED=1	# … and is evaluated on seed 1
FLIPS="0.001 0.003 0.01 0.03 0.1"
PRED_SEEDS="1 2 3"
D=("$BUILD/dcbpf")
mkdir -p "$CRED_OUT"

# name|description|workload options
WORKLOADS=(
	"mix|web search load 0.4 + incasts of 0.5·B every ~2000 slots (the simulator's default)|--workload mix"
	"incast-heavy|web search load 0.2 + incasts of B every ~500 slots|--workload mix --load 0.2 --incast-frac 1 --incast-period 500"
	"incast|incasts of B every ~500 slots only (bursts of size B)|--workload incast --incast-frac 1 --incast-period 500"
)

csv="$CRED_OUT/sweep.csv"
echo "workload,alg,predictor,flip,sent_pkts,drops,lqd_over_alg,pred_asked,pred_tp,pred_fp,pred_tn,pred_fn" >"$csv"
rows="$CRED_OUT/rows.jsonl"
: >"$rows"
trains="$CRED_OUT/train.jsonl"
: >"$trains"

# sim NAME ALG PREDICTOR FLIP WORKLOAD-OPTS... → one JSON row on $rows
sim() {
	local wl=$1 alg=$2 pred=$3 flip=$4 ps extra=()
	shift 4
	[ "$pred" = forest ] && extra=(--predictor forest --model "$CRED_OUT/model-$wl")
	[ "$pred" = oracle ] && extra=(--predictor oracle)
	[ "$pred" = accept ] && extra=(--predictor accept)
	if [ "$flip" != 0 ]; then
		# mean over predictor seeds: one seed's flips are one sample
		for ps in $PRED_SEEDS; do
			"${D[@]}" sim --alg "$alg" "${extra[@]}" --flip "$flip" --pred-seed "$ps" \
				--seed "$EVAL_SEED" --slots "$SLOTS" --json "$@" | jq -c '.[0]'
		done | jq -s -c --arg wl "$wl" --arg alg "$alg" --arg pred "$pred" --argjson flip "$flip" \
			'{workload: $wl, alg: $alg, predictor: $pred, flip: $flip,
			  sent_pkts: (map(.sent_pkts) | add / length), drops: (map(.drops) | add / length),
			  pred_asked: (map(.pred_asked) | add / length), pred_tp: (map(.pred_tp) | add / length),
			  pred_fp: (map(.pred_fp) | add / length), pred_tn: (map(.pred_tn) | add / length),
			  pred_fn: (map(.pred_fn) | add / length)}' >>"$rows"
	else
		"${D[@]}" sim --alg "$alg" "${extra[@]}" --seed "$EVAL_SEED" --slots "$SLOTS" --json "$@" |
			jq -c --arg wl "$wl" --arg pred "$pred" \
			'.[0] | {workload: $wl, alg: .alg, predictor: $pred, flip: 0, sent_pkts, drops,
				 pred_asked, pred_tp, pred_fp, pred_tn, pred_fn}' >>"$rows"
	fi
}

for w in "${WORKLOADS[@]}"; do
	IFS='|' read -r name desc opts <<<"$w"
	# shellcheck disable=SC2086  # opts are words
	set -- $opts
	echo "# $name: $desc" >&2
	"${D[@]}" credence train --seed "$TRAIN_SEED" --slots "$SLOTS" "$@" \
		--out "$CRED_OUT/model-$name" --json | jq -c --arg wl "$name" --arg d "$desc" \
		'{workload: $wl, description: $d} + .' >>"$trains"
	for alg in lqd dt abm cs followlqd; do
		sim "$name" "$alg" - 0 "$@"
	done
	sim "$name" credence oracle 0 "$@"
	sim "$name" credence forest 0 "$@"
	# no predictions at all: what the forest adds to Credence's thresholds
	sim "$name" credence accept 0 "$@"
	for f in $FLIPS; do
		sim "$name" credence oracle "$f" "$@"
	done
done

# LQD/ALG per row, next to LQD of the same workload
jq -s -c '(map(select(.alg == "lqd")) | map({(.workload): .sent_pkts}) | add) as $lqd
	  | .[] | . + {lqd_over_alg: ($lqd[.workload] / .sent_pkts)}' "$rows" >"$rows.tmp"
mv "$rows.tmp" "$rows"
jq -r '[.workload, .alg, .predictor, .flip, .sent_pkts, .drops, (.lqd_over_alg * 10000 | round / 10000),
	.pred_asked, .pred_tp, .pred_fp, .pred_tn, .pred_fn] | @csv' "$rows" | tr -d '"' >>"$csv"

# label of a row for people
label='(if .alg == "credence" then "credence " + .predictor + (if .flip > 0 then " flip \(.flip)" else "" end) else .alg end)'

table="$CRED_OUT/table.txt"
{
	printf '%-24s' "algorithm"
	for w in "${WORKLOADS[@]}"; do printf ' %14s %7s' "${w%%|*} sent" "LQD/ALG"; done
	printf '\n'
	jq -s -r "group_by($label) | sort_by(.[0].lqd_over_alg) | .[] |
		[(.[0] | $label)] + (map([(.sent_pkts | round), (.lqd_over_alg * 1000 | round / 1000)]) | flatten)
		| @tsv" "$rows" |
	while IFS=$'\t' read -r lab rest; do
		printf '%-24s' "$lab"
		# shellcheck disable=SC2086
		printf ' %14s %7s' $rest
		printf '\n'
	done
} >"$table"
cat "$table" >&2

# The issue's targets, measured on the incast-heavy trace
summary="$CRED_OUT/summary.json"
jq -s --slurpfile train <(jq -s . "$trains") '
	def row($w; $a; $p; $f): map(select(.workload == $w and .alg == $a and .predictor == $p and .flip == $f))[0];
	. as $r
	| {
	    setup: {mode: "unit", ports: 16, buffer: 1000, slots: '"$SLOTS"', eval_seed: '"$EVAL_SEED"',
		    train_seed: '"$TRAIN_SEED"', flip_pred_seeds: "'"$PRED_SEEDS"'"},
	    training: $train[0],
	    rows: $r,
	    targets: {
	      perfect_vs_lqd_incast_heavy: (row("incast-heavy"; "credence"; "oracle"; 0).sent_pkts /
					    row("incast-heavy"; "lqd"; "-"; 0).sent_pkts),
	      perfect_within_1pct_of_lqd: ((row("incast-heavy"; "credence"; "oracle"; 0).sent_pkts /
					    row("incast-heavy"; "lqd"; "-"; 0).sent_pkts) >= 0.99),
	      forest_over_dt_incast_heavy: (row("incast-heavy"; "credence"; "forest"; 0).sent_pkts /
					    row("incast-heavy"; "dt"; "-"; 0).sent_pkts),
	      forest_over_dt_incast: (row("incast"; "credence"; "forest"; 0).sent_pkts /
				      row("incast"; "dt"; "-"; 0).sent_pkts),
	      forest_over_dt_mix: (row("mix"; "credence"; "forest"; 0).sent_pkts /
				   row("mix"; "dt"; "-"; 0).sent_pkts),
	      forest_over_accept_incast_heavy: (row("incast-heavy"; "credence"; "forest"; 0).sent_pkts /
						row("incast-heavy"; "credence"; "accept"; 0).sent_pkts),
	      flips_smooth: ([$r[] | select(.alg == "credence" and .predictor == "oracle")]
			     | group_by(.workload)
			     | map(sort_by(.flip) | [.[].sent_pkts] as $s
				   | all(range(1; $s | length); $s[.] <= $s[. - 1] * 1.001))
			     | all)
	    }
	  }' "$rows" >"$summary"

# plot: LQD/ALG against the flip probability, DT and the forest as levels
dat="$CRED_OUT/sweep.dat"
: >"$dat"
for w in "${WORKLOADS[@]}"; do
	name=${w%%|*}
	{
		echo "# $name"
		jq -r --arg w "$name" 'select(.workload == $w and .alg == "credence" and .predictor == "oracle")
			| "\(if .flip == 0 then 0.0003 else .flip end) \(.lqd_over_alg)"' "$rows" | sort -g
		echo
		echo
	} >>"$dat"
done
lvl() { jq -r --arg w "$1" --arg a "$2" --arg p "$3" \
	'select(.workload == $w and .alg == $a and .predictor == $p and .flip == 0) | .lqd_over_alg' "$rows"; }
if command -v gnuplot >/dev/null; then
	gp="$CRED_OUT/sweep.gp"
	{
		echo "set terminal png size 1200,500"
		echo "set output '$CRED_OUT/sweep.png'"
		echo "set multiplot layout 1,${#WORKLOADS[@]} title 'Credence: LQD/ALG (lower is better) vs flip probability of perfect predictions (0.0003 = no flip)'"
		echo "set logscale x"
		echo "set xrange [0.0002:0.15]"
		echo "set xlabel 'flip probability'"
		echo "set key below"
		i=0
		for w in "${WORKLOADS[@]}"; do
			name=${w%%|*}
			echo "set title '$name'"
			echo "set ylabel 'LQD / ALG'"
			echo "plot '$dat' index $i using 1:2 with linespoints lc rgb 'black' title 'oracle + flips', \\"
			echo "  $(lvl "$name" dt -) with lines dt 2 lw 2 lc rgb 'red' title 'DT', \\"
			echo "  $(lvl "$name" abm -) with lines dt 3 lw 2 lc rgb 'blue' title 'ABM', \\"
			echo "  $(lvl "$name" followlqd -) with lines dt 4 lc rgb 'gray50' title 'FollowLQD', \\"
			echo "  $(lvl "$name" credence forest) with lines lw 2 lc rgb 'dark-green' title 'forest'"
			i=$((i + 1))
		done
		echo "unset multiplot"
	} >"$gp"
	gnuplot "$gp" 2>"$CRED_OUT/gnuplot.log" || echo "credence sweep: gnuplot failed (see $CRED_OUT/gnuplot.log)" >&2
else
	echo "credence sweep: gnuplot missing (make deps), no plot" >&2
fi
echo "written: $csv $summary $CRED_OUT/sweep.png $table" >&2

# headline figures for out/bench/summary.json
jq -c '.targets | to_entries[] | select(.value | type == "number")
	| {("credence_" + .key): {value: (.value * 10000 | round / 10000), unit: "ratio"}}' "$summary"
