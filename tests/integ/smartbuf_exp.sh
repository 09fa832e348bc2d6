# host-suite: the smoke mode of tests/exp/rezaei.sh smartbuf checks its
# output schema and that SmartBuf and EDT ran on the leaves; their XDP
# decisions are proven on 6.1 by prog/test_sb_xdp (the same arrivals as the
# simulator, decision for decision).
#
# Integration: tests/exp/rezaei.sh smartbuf (SmartBuf vs DT, EDT and
# complete sharing on the leaf-spine, docs/results.md) in its smoke mode,
# under the suite's lock (DCBPF_SUITE_LOCKED=1): one load, one repetition,
# 20 background flows per variant, then the fairness scenario (a long flow
# into one leaf port, incast queries into another) once per variant.
# Asserts what it writes — one harness CSV/JSON and the eight leaf ports'
# backlog samples per variant, runs.csv with its queue columns and a
# complete row per variant in which some leaf port queued, summary.csv's
# rows, summary.json's schema with the fairness runs, fair.csv with a row
# per variant whose long flows carried traffic before and during the
# queries and queued at their port, the queries completed, and the PNGs — and that the leaves took
# queue samples and SmartBuf learned at least one burst into Main (listed per leaf).  Not the
# figures: those are docs/results.md's.
# shellcheck shell=bash
# shellcheck disable=SC2015
source "$(dirname "$0")/../lib/test.sh"
t_need_root "smartbuf_exp"
LOG="$OUT/smartbuf_exp"
rm -rf "$LOG"
mkdir -p "$LOG"
export DCBPF_SUITE_LOCKED=1

out=$(OUT="$LOG/bad" tests/exp/rezaei.sh smartbuff 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "usage: tests/exp/rezaei.sh slytherin|resqueue|icon|smartbuf" <<<"$out" &&
	t_pass "smartbuf: a misspelt system refused, the usage names smartbuf (exit 2)" ||
	t_fail "smartbuf: a misspelt system refused" "exit $rc: $out"

variants="dt edt cs smartbuf"
d=$LOG/run
t0=$SECONDS
env SHORT=smoke OUT="$d" tests/exp/rezaei.sh smartbuf >"$LOG/run.log" 2>&1
rc=$?
[ $rc = 0 ] && t_pass "smartbuf: smoke mode ran (exit 0, $((SECONDS - t0)) s)" ||
	t_fail "smartbuf: smoke mode ran (exit 0)" "exit $rc: $(tail -n 5 "$LOG/run.log" | tr '\n' ' ')"

miss=""
for f in runs.csv summary.csv summary.json summary.png queue.png fair.csv fair.png state.json \
	load0.3/slowdown.png load0.3/cdf.png load0.3/table.txt; do
	[ -s "$d/$f" ] || miss+=" $f"
done
for v in $variants; do
	for f in "load0.3/$v-r1.csv" "load0.3/$v-r1.json" "fair/$v-r1.csv" "fair/$v-r1.qa.csv" "fair/$v-r1.qb.csv" \
		"fair/$v-r1.lf1.json" "fair/$v-r1.lf2.json"; do
		[ -s "$d/$f" ] || miss+=" $f"
	done
	for i in 0 1 2 3 4 5 6 7; do [ -s "$d/load0.3/$v-r1.q$i.csv" ] || miss+=" load0.3/$v-r1.q$i.csv"; done
done
[ -z "$miss" ] && t_pass "smartbuf: every file written" || t_fail "smartbuf: every file written" "missing:$miss"

RUN_COLS="system,variant,load,rep,seed,flows,completed,short_n,short_fct_p50_us,short_fct_p99_us,short_slowdown_p50,short_slowdown_p99,incast_fct_p99_us,queries,qct_p50_us,qct_p99_us,long_n,long_goodput_mbit,drops,promoted_pkts,retrans,flows_rto2,max_rto,loadavg_before,loadavg_after,queue_busy_frac,queue_p50_bytes,queue_p99_bytes,queue_max_bytes"
[ "$(head -n 1 "$d/runs.csv" 2>/dev/null)" = "$RUN_COLS" ] && t_pass "smartbuf: runs.csv columns (with the queue's)" ||
	t_fail "smartbuf: runs.csv columns" "$(head -n 1 "$d/runs.csv" 2>&1)"
# a row per variant, in order: traffic that completed, short flows, incast
# queries, drops and the load average measured, and a leaf port that queued
got=$(awk -F, 'NR > 1 && $6 > 0 && $7 == $6 && $8 > 0 && $14 > 0 && $19 != "" && $24 != "" && $26 > 0 && $29 > 0 { printf "%s ", $2 }' \
	"$d/runs.csv")
[ "$got" = "$variants " ] && t_pass "smartbuf: one complete row per variant ($variants), each with a queue" ||
	t_fail "smartbuf: one complete row per variant" "got '$got' from $(tail -n +2 "$d/runs.csv" | tr '\n' ' ')"

FAIR_COLS="variant,rep,long_base_mbit,long_during_mbit,long_min10ms_mbit,long_iperf_mbit,queries,qct_p50_us,qct_p99_us,incast_timeouts,drops,queue_a_max_bytes,queue_b_max_bytes,loadavg_before"
[ "$(head -n 1 "$d/fair.csv" 2>/dev/null)" = "$FAIR_COLS" ] && t_pass "smartbuf: fair.csv columns" ||
	t_fail "smartbuf: fair.csv columns" "$(head -n 1 "$d/fair.csv" 2>&1)"
# the long flow ran before and during the queries, the queries completed
# and queued at their port (rates above 1 Mbit/s: a flow, not noise)
got=$(awk -F, 'NR > 1 && $3 > 1 && $4 > 1 && $6 > 1 && $7 > 0 && $9 != "" && $11 != "" && $12 > 0 && $13 > 0 { printf "%s ", $1 }' \
	"$d/fair.csv")
[ "$got" = "$variants " ] && t_pass "smartbuf: fairness: the long flows queued at their port, the queries ran, for every variant" ||
	t_fail "smartbuf: fairness rows" "got '$got' from $(tail -n +2 "$d/fair.csv" | tr '\n' ' ')"

n=$(awk -F, 'NR > 1 && $3 != "fair" && $4 ~ /^(short_fct_p99_us|qct_p99_us|drops|queue_p99_bytes)$/ &&
	$5 == 1 && $6 == $7 && $7 == $8 { n++ } END { print n + 0 }' "$d/summary.csv")
m=$(awk -F, 'NR > 1 && $3 == "fair" && $4 ~ /^(long_during_mbit|long_min10ms_mbit|qct_p99_us|drops)$/ && $5 == 1 { n++ }
	END { print n + 0 }' "$d/summary.csv")
[ "$n" = 16 ] && [ "$m" = 16 ] &&
	t_pass "smartbuf: summary.csv: p99 FCT and QCT, drops, queue p99; the fairness metrics; per variant" ||
	t_fail "smartbuf: summary.csv rows" "$n of 16 load rows, $m of 16 fairness rows"
jqe '.schema == "dcbpf-rezaei/1" and .system == "smartbuf" and (.runs | length) == 4 and
	(.fairness | length) == 4 and .params.rto_min_ms == 10 and .params.incast.fanin == 16' "$d/summary.json" >/dev/null &&
	t_pass "smartbuf: summary.json schema, runs, fairness runs and parameters" ||
	t_fail "smartbuf: summary.json" "$(jq -c '{schema, system, n: (.runs | length), f: (.fairness | length), p: .params.incast}' "$d/summary.json" 2>&1)"

# the mechanism: the leaves sampled their queues and learned a burst
# (16 x 16 KB into a 100 Mbit/s port: well above B/σ = 30 kB)
jqe '.samples > 0 and .inserts > 0 and (.main | length) == 2 and (.main | map(length) | add) == .main_entries' \
	"$d/state.json" >/dev/null 2>&1 &&
	t_pass "smartbuf: the leaves sampled their queues, learned bursts, Main listed ($(jq -c 'del(.main)' "$d/state.json"))" ||
	t_fail "smartbuf: learning in force" "$(cat "$d/state.json" 2>&1)"
[ -z "${T_FAILED:-}" ]
