# The bottleneck during a transfer, from a qsample CSV (t_ns,qlen_bytes,
# tx_bytes per line): the lines between HEAD_MS after the incast tool's
# first round started and TAIL_MS before it completed, their queue p50/p99
# and the TBF's throughput over them.
# shellcheck shell=bash

# qwindow RUN_JSON QCSV HEAD_MS TAIL_MS RATE_MBPS: prints
# "util_pct p50_bytes p99_bytes mbps samples" and leaves the lines in the
# window in QCSV with .win for .csv.
qwindow() {
	local run=$1 q=$2 head=$3 tail=$4 rate=$5 start ms n p50 p99 win=${2%.csv}.win
	start=$(jq '.per_round[0].start_mono_ns // 0' "$run" 2>/dev/null)
	ms=$(jq '.per_round[0].completion_ms // 0 | floor' "$run" 2>/dev/null)
	awk -F, -v a="$((${start:-0} + head * 1000000))" -v b="$((${start:-0} + (${ms:-0} - tail) * 1000000))" \
		'$1 >= a && $1 <= b' "$q" >"$win"
	n=$(wc -l <"$win")
	p50=$(cut -d, -f2 "$win" | sort -n | sed -n "$((n / 2 + 1))p")
	p99=$(cut -d, -f2 "$win" | sort -n | sed -n "$((n * 99 / 100 + 1))p")
	awk -F, -v rate="$rate" -v p50="${p50:-0}" -v p99="${p99:-0}" 'NR == 1 { b0 = $3; s0 = $1 } { b1 = $3; s1 = $1 }
		END { mbps = (s1 > s0) ? (b1 - b0) * 8 / ((s1 - s0) / 1e9) / 1e6 : 0
		      printf "%d %d %d %d %d\n", mbps * 100 / rate, p50, p99, mbps, NR }' "$win"
}
