# Integration: the workload harness (tests/tools/workload.c,
# tests/lib/workload.sh, tests/exp/plot-workload; docs/workload.md) on a
# dumbbell of two senders with rto_min 10 ms on every host route.
# Web-search sizes scaled by 0.02 (mean 34 KB, at most 600 KB) at 30 %
# load plus 2:1 incasts of 10 KB every 20 ms, the same seed under CUBIC and
# DCTCP.  Checks: the error paths (bad CDF file, load out of range,
# unknown CC) exit non-zero with a message naming the problem; the files
# and their columns; every flow completed; both runs drew the same flows
# (seed); slowdowns >= 1 within the noise of the base RTT; the bins and
# percentiles are consistent with the CSV; rto_min 10 ms is on the routes,
# in `ss -ti` and in the flows' tcpi_rto; the plots are written.
# host-suite: the harness (arrivals, sizes, completion times, the schema, the plots) is user
# space; the kernel paths under it, a CC chosen per socket and DCTCP marking, are taken in the VM
# by tests/integ/cc.sh and dctcp.sh, and a route's rto_min is older than any kernel dcbpf runs on.
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.
# shellcheck disable=SC2015
source "$(dirname "$0")/../lib/test.sh"
t_need_root "workload"
source tests/lib/fabric.sh
source tests/lib/dctcp.sh
source tests/lib/workload.sh

TOOL="$BUILD/tools/workload"
LOG="$OUT/workload"
rm -rf "$LOG"
mkdir -p "$LOG"
RATE=1000 FLOWS=120
[ "${DCBPF_VM:-0}" = 1 ] && RATE=100 FLOWS=40
[ -x "$TOOL" ] || { t_fail "workload: tool built" "$TOOL missing (make)"; exit 1; }

# ---- error paths (no fabric needed: they fail before any namespace) -------
HOSTS=(--senders "a,b" --receivers c=10.0.0.1 --rate-mbit 1000)
printf '0 0\n1000 0.5\n' >"$LOG/bad.cdf"
expect "workload: a CDF file whose last probability is not 1 is refused (exit 2)" 2 \
	"bad.cdf: the last point's probability is 0.5, must be 1" "$TOOL" "${HOSTS[@]}" --load 0.5 --cdf "$LOG/bad.cdf"
printf '0 0\nten 1\n' >"$LOG/bad2.cdf"
expect "workload: a CDF file with a malformed line names the line (exit 2)" 2 "bad2.cdf: line 2" \
	"$TOOL" "${HOSTS[@]}" --load 0.5 --cdf "$LOG/bad2.cdf"
expect "workload: a missing CDF file is refused (exit 2)" 2 "neither websearch, datamining nor a readable file" \
	"$TOOL" "${HOSTS[@]}" --load 0.5 --cdf "$LOG/nonexistent.cdf"
expect "workload: load 1.5 is out of range (exit 2)" 2 "--load 1.5 is out of range" "$TOOL" "${HOSTS[@]}" --load 1.5
expect "workload: a negative load is out of range (exit 2)" 2 "--load -0.1 is out of range" "$TOOL" "${HOSTS[@]}" --load -0.1
expect "workload: an unknown CC is refused with the available ones (exit 1)" 1 \
	"congestion control 'nosuchcc' \(class bg\) refused by the kernel.*available: " \
	"$TOOL" "${HOSTS[@]}" --load 0.5 --cc nosuchcc
expect "workload: an unknown class in --cc is refused (exit 2)" 2 "unknown class 'bulk'" \
	"$TOOL" "${HOSTS[@]}" --load 0.5 --cc bulk=cubic

# ---- the fabric -------------------------------------------------------------------
export FAB_RTO_MIN_MS=10
fabric_dumbbell 2 $RATE 1000000 || { t_fail "workload: dumbbell" "fabric could not be built"; exit 1; }
fabric_on_exit dctcp_unregister
dctcp_register || { t_fail "workload: register dctcp" "$DCTCP_ERR"; exit 1; }
fabric_ping_all || { t_fail "workload: dumbbell reachable" "ping failed"; exit 1; }
S0=${FAB_SENDERS[0]}

# rto_min on the routes, and what TCP makes of it (ss -ti: rto in ms) on a
# connection that is open while we look
rt=$(ip -n "$S0" route show 10.77.0.0/16)
grep -qE "rto_min (lock )?10ms" <<<"$rt" && t_pass "workload: FAB_RTO_MIN_MS=10 puts rto_min 10ms on the host routes" ||
	t_fail "workload: rto_min on the host routes" "route: $rt"
fabric_bg "$FAB_RECV" "$BUILD/tools/incast" sink -p 5990
fabric_wait_port "$FAB_RECV" 5990
fabric_bg "$S0" bash -c "exec 3<>/dev/tcp/$FAB_RECV_IP/5990; sleep 5"
conn_pid=$FAB_LAST_PID
rto=""
for _ in $(seq 50); do
	rto=$(fabric_exec "$S0" ss -Htin dst "$FAB_RECV_IP" | grep -o 'rto:[0-9.]*' | head -n 1 | cut -d: -f2)
	[ -n "$rto" ] && break
	sleep 0.1
done
fabric_kill "$conn_pid"
# 10 ms rounded up to jiffies plus the smoothed RTT; without rto_min: >= 200
if [ -n "$rto" ] && awk -v r="$rto" 'BEGIN { exit !(r >= 10 && r < 50) }'; then
	t_pass "workload: ss -ti shows rto:$rto ms on an open connection (rto_min 10 ms; the kernel's minimum is 200)"
else
	t_fail "workload: ss -ti shows the rto_min" "rto '$rto'"
fi

# ---- one run per CC, the same seed ---------------------------------------------------
wl_init "$LOG/runs" || { t_fail "workload: wl_init" "tool not found"; exit 1; }
for cc in cubic dctcp; do
	wl_run "$cc" --cc "$cc" --cdf websearch --scale 0.02 --load 0.3 --flows $FLOWS --incast 20:10000:2 \
		--seed 7 --timeout 30
	rc=$?
	[ $rc = 0 ] && t_pass "workload: $cc run exits 0" || t_fail "workload: $cc run exits 0" "exit $rc: $(tail -n 2 "$LOG/runs/$cc.err")"
done

HDR="id,class,cc,src,dst,size_bytes,start_ns,fct_ns,ideal_ns,slowdown,rto_count,retrans,wait_ns"
for cc in cubic dctcp; do
	csv=$LOG/runs/$cc.csv js=$LOG/runs/$cc.json
	[ -s "$csv" ] && [ -s "$js" ] || { t_fail "workload: $cc files" "missing $csv or $js"; continue; }
	[ "$(head -n 1 "$csv")" = "$HDR" ] && t_pass "workload: $cc: CSV columns are the schema's" ||
		t_fail "workload: $cc: CSV columns" "$(head -n 1 "$csv")"
	rows=$(($(wc -l <"$csv") - 1))
	jqv "workload: $cc: summary has the schema, parameters and every class" "$(cat "$js")" \
		".schema == \"dcbpf-workload/1\" and .params.load == 0.3 and .params.cc.bg == \"$cc\" and
		 .params.rto_min_ms == 10 and .params.tags.fabric == \"dumbbell\" and .csv == \"$cc.csv\" and
		 (.classes | has(\"all\") and has(\"bg\") and has(\"incast\")) and
		 ([.classes.all.bins[].bin] == [\"short\", \"medium\", \"long\"]) and (.classes.all.fine_bins | length) == 12"
	jqv "workload: $cc: every flow completed ($rows in the CSV, $FLOWS background + incast)" "$(cat "$js")" \
		".run.flows == $rows and .run.completed == $rows and .classes.bg.flows == $FLOWS and
		 .classes.incast.flows > 0 and .classes.incast.flows % 2 == 0 and .run.cc == [\"$cc\"]"
	bad=$(awk -F, -v cc="$cc" 'NR > 1 && ($8 <= 0 || $10 <= 0 || $3 != cc || $9 <= 0)' "$csv" | head -n 3)
	[ -z "$bad" ] && t_pass "workload: $cc: every row has an FCT, an ideal FCT, a slowdown and the CC" ||
		t_fail "workload: $cc: every row complete" "$bad"
	# slowdown = FCT / ideal: >= 1 up to the noise of the base RTT (the
	# minimum of 20 probes on a host shared with other work). Flows of
	# >= 100 KB, whose ideal is mostly serialization, must reach 0.95; the
	# rest, where the RTT dominates, 0.3 (measured minima 0.45-1.0)
	read -r min below n lmin ln <<<"$(awk -F, 'NR > 1 { n++; if (min == "" || $10 < min) min = $10; if ($10 < 0.9) b++
		if ($6 >= 100000) { ln++; if (lmin == "" || $10 < lmin) lmin = $10 } }
		END { print min, b + 0, n, (ln ? lmin : "none"), ln + 0 }' "$csv")"
	if [ "$ln" -gt 0 ] && awk -v m="$min" -v l="$lmin" 'BEGIN { exit !(m >= 0.3 && l >= 0.95) }'; then
		t_pass "workload: $cc: slowdowns >= 1 within the RTT noise (>= 100 KB: minimum $lmin of $ln flows; all: minimum $min, $below of $n below 0.9)"
	else
		t_fail "workload: $cc: slowdowns >= 1" ">= 100 KB: minimum $lmin of $ln flows; all: minimum $min, $below of $n below 0.9"
	fi
	# FCT / ideal in the CSV is the slowdown column
	bad=$(awk -F, 'NR > 1 { s = $8 / $9; if (s / $10 > 1.001 || s / $10 < 0.999) print }' "$csv" | head -n 2)
	[ -z "$bad" ] && t_pass "workload: $cc: slowdown = fct_ns / ideal_ns on every row" ||
		t_fail "workload: $cc: slowdown = fct_ns / ideal_ns" "$bad"
	# the summary's short bin against the CSV: count and nearest-rank p50
	want=$(awk -F, 'NR > 1 && $2 == "bg" && $6 < 10000 { print $10 }' "$csv" | sort -g |
		awk '{ v[NR] = $1 } END { k = int(NR * 0.5); if (k < NR * 0.5) k++; if (k < 1) k = 1; print NR, (NR ? v[k] : "null") }')
	got=$(jq -r '.classes.bg.bins[0].slowdown | "\(.n) \(.p50)"' "$js")
	if [ "${want%% *}" = "${got%% *}" ] && awk -v a="${want#* }" -v b="${got#* }" 'BEGIN { exit !(a == "null" && b == "null" || (a / b < 1.001 && a / b > 0.999)) }'; then
		t_pass "workload: $cc: the short bin's count and p50 match the CSV ($got)"
	else
		t_fail "workload: $cc: the short bin matches the CSV" "CSV: $want, summary: $got"
	fi
	jqv "workload: $cc: per bin p50 <= p95 <= p99 <= p99.9, counts add up" "$(cat "$js")" \
		"([.classes[] | .bins + .fine_bins | .[].slowdown | select(.n > 0) | .p50 <= .p95 and .p95 <= .p99 and .p99 <= .p999] | all)
		 and ([.classes.bg.bins[].slowdown.n] | add) == .classes.bg.completed
		 and ([.classes.all.fine_bins[].slowdown.n] | add) == .classes.all.completed"
	jqv "workload: $cc: the flows ran with rto_min (tcpi_rto 10-50 ms)" "$(cat "$js")" \
		".run.tcpi_rto_us_min >= 10000 and .run.tcpi_rto_us_max < 50000"
done
# the seed fixes the flows: the same sizes, pairs and arrival times for both CCs
if cmp -s <(cut -d, -f1,2,4-7 "$LOG/runs/cubic.csv") <(cut -d, -f1,2,4-7 "$LOG/runs/dctcp.csv"); then
	t_pass "workload: the same seed draws the same flows for both CCs (id, class, pair, size, arrival)"
else
	t_fail "workload: the same seed draws the same flows" \
		"$(diff <(cut -d, -f1,2,4-7 "$LOG/runs/cubic.csv") <(cut -d, -f1,2,4-7 "$LOG/runs/dctcp.csv") | head -n 4 | tr '\n' ' ')"
fi
# sizes are the table's, scaled: at most 30 MB x 0.02
mx=$(awk -F, 'NR > 1 && $2 == "bg" && $6 > m { m = $6 } END { print m + 0 }' "$LOG/runs/cubic.csv")
[ "$mx" -le 600000 ] && [ "$mx" -gt 0 ] && t_pass "workload: background sizes within the scaled table (largest $mx B <= 600 KB)" ||
	t_fail "workload: sizes within the scaled table" "largest $mx"

# ---- one plotting path ----------------------------------------------------------------
if command -v gnuplot >/dev/null; then
	if wl_plot "workload test" >"$LOG/plot.txt" 2>&1 && [ -s "$LOG/runs/slowdown.png" ] && [ -s "$LOG/runs/cdf.png" ] &&
		grep -q '^cubic' "$LOG/runs/table.txt" && grep -q '^dctcp' "$LOG/runs/table.txt"; then
		t_pass "workload: plot-workload writes slowdown.png, cdf.png and the table for both runs"
	else
		t_fail "workload: plot-workload" "$(tail -n 3 "$LOG/plot.txt" | tr '\n' ' ')"
	fi
else
	t_skip "workload: plot-workload" "gnuplot not installed (make deps)"
fi
