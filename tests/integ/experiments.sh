# host-suite: the experiments' smoke modes check their scripts' output
# schema; the kernel paths they use are the integration tests' (cc, int,
# workload, baseline, admit), which the VM runs.
#
# Integration: every experiment of tests/exp that make check can afford, in
# its smoke mode (SHORT=smoke: the fewest CCs, flows and rounds that still
# go through every step), under the suite's lock (DCBPF_SUITE_LOCKED=1).
# Asserts what each writes — the files, their columns, one row per run,
# the JSON's keys — and not the figures: those are docs/results.md's.
# Also: `workload --bins unscaled` bins by size / scale (checked against
# the CSV), and a bad SHORT is refused.
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.
# shellcheck disable=SC2015
source "$(dirname "$0")/../lib/test.sh"
t_need_root "experiments"
LOG="$OUT/experiments"
rm -rf "$LOG"
mkdir -p "$LOG"
export DCBPF_SUITE_LOCKED=1

# exp NAME SCRIPT [ENV...]: run SCRIPT in smoke mode into $LOG/NAME.
exp() {
	local name=$1 script=$2 rc
	shift 2
	env "$@" SHORT=smoke OUT="$LOG/$name" "$script" >"$LOG/$name.log" 2>&1
	rc=$?
	[ $rc = 0 ] && t_pass "$name: smoke mode ran (exit 0)" ||
		t_fail "$name: smoke mode ran (exit 0)" "exit $rc: $(tail -n 5 "$LOG/$name.log" | tr '\n' ' ')"
	return $rc
}

# header FILE "COLUMNS": the CSV's first line is exactly COLUMNS.
header() {
	local got
	got=$(head -n 1 "$1" 2>/dev/null)
	[ "$got" = "$2" ] && t_pass "${1#"$LOG"/}: columns" || t_fail "${1#"$LOG"/}: columns" "got '$got'"
}

# files DIR F...: every F exists under DIR and is not empty.
files() {
	local d=$1 f miss=""
	shift
	for f in "$@"; do [ -s "$d/$f" ] || miss+=" $f"; done
	[ -z "$miss" ] && t_pass "${d#"$LOG"/}: $* written" || t_fail "${d#"$LOG"/}: files written" "missing or empty:$miss"
}

# rows CSV N: N data rows.
rows() {
	local n
	n=$(($(wc -l <"$1") - 1))
	[ "$n" = "$2" ] && t_pass "${1#"$LOG"/}: $2 rows" || t_fail "${1#"$LOG"/}: $2 rows" "got $n"
}

WL_COLS="id,class,cc,src,dst,size_bytes,start_ns,fct_ns,ideal_ns,slowdown,rto_count,retrans,wait_ns"

# ---- a bad mode is refused before anything is built ------------------------
out=$(SHORT=tiny OUT="$LOG/bad" tests/exp/ptcp_websearch.sh 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "SHORT is 0, 1 or smoke, not 'tiny'" <<<"$out" &&
	t_pass "ptcp_websearch: SHORT=tiny refused (exit 2, names the value)" ||
	t_fail "ptcp_websearch: SHORT=tiny refused" "exit $rc: $out"

# ---- Figs. 2.6/2.7: websearch across loads with INT on the leaf–spine --------
D=$LOG/ptcp_websearch
if exp ptcp_websearch tests/exp/ptcp_websearch.sh; then
	files "$D" summary.json summary.csv queue-load.csv queue-burst.csv queue.png cc-params.txt \
		load0.3/powertcp.json load0.3/powertcp.csv load0.3/cubic.json load0.3/slowdown.png load0.3/cdf.png \
		burst-r8-s2048/powertcp.json burst-r8-s2048/cubic.csv
	header "$D/summary.csv" "dir,cc,load,req_per_s,req_kb,flows,completed,short_p50,short_p99,short_p999,medium_p50,medium_p99,medium_p999,long_p50,long_p99,long_p999,rto_count,timeouts_kernel,goodput_mbit"
	rows "$D/summary.csv" 4
	header "$D/queue-load.csv" "cc,uplink,t_ns,backlog_bytes"
	header "$D/load0.3/powertcp.csv" "$WL_COLS"
	jqe '.schema == "dcbpf-ptcp-websearch/1" and (.runs | length) == 4
		and ([.runs[] | .cc] | sort) == ["cubic", "cubic", "powertcp", "powertcp"]
		and ([.runs[] | .slowdown_p999 | keys] | unique) == [["long", "medium", "short"]]
		and ([.queue[] | .tag + "/" + .cc] | sort) == ["burst/cubic", "burst/powertcp", "load/cubic", "load/powertcp"]
		and (.params.scale > 0) and (.params.tau_us >= 20)' "$D/summary.json" >/dev/null &&
		t_pass "ptcp_websearch: summary.json: 4 runs (2 CCs x load and burst), bins, queue stats, scale, tau" ||
		t_fail "ptcp_websearch: summary.json keys" "$(head -c 400 "$D/summary.json")"
	j=$D/burst-r8-s2048/powertcp.json
	jqe '.params.incast.fanin == 16 and .params.incast.period_ms == 125 and .params.tags.req_per_s == "8"
		and .classes.incast.flows > 0 and .params.bins_by == "unscaled"' "$j" >/dev/null &&
		t_pass "ptcp_websearch: the bursty run has 8 requests/s of fan-in 16 on top, bins by unscaled size" ||
		t_fail "ptcp_websearch: bursty run parameters" "$(jq -c '.params.incast, .params.bins_by' "$j" 2>&1)"
	# --bins unscaled: "short" holds the flows whose size / scale < 10 KB
	j=$D/load0.3/cubic.json
	sc=$(jq -r .params.scale "$j")
	want=$(awk -F, -v s="$sc" 'NR > 1 && $2 == "bg" && $8 > 0 && int($6 / s + 0.5) < 10000 { n++ } END { print n + 0 }' \
		"$D/load0.3/cubic.csv")
	got=$(jq -r '.classes.bg.bins[0].slowdown.n' "$j")
	[ "$got" = "$want" ] && [ "$want" -gt 0 ] &&
		t_pass "workload --bins unscaled: short = flows with size / scale < 10 KB ($got, scale $sc)" ||
		t_fail "workload --bins unscaled: short bin" "json $got, csv $want (scale $sc)"
fi

# ---- Fig. 2.4: incast ---------------------------------------------------------
D=$LOG/ptcp_incast
if exp ptcp_incast tests/exp/ptcp_incast.sh; then
	files "$D" summary.json incast.csv sweep.csv incast.png sweep.png
	header "$D/incast.csv" "cc,round,t_ms,queue_bytes,throughput_mbps"
	header "$D/sweep.csv" "cc,degree,flows_per_ns,bytes_per_flow,rounds,completed_rounds,completion_ms_median,completion_ms_max,ideal_ms,rto_rounds,timeouts,drops,switch_drops,held"
	rows "$D/sweep.csv" 2
	jqe '.experiment == "ptcp_incast" and ([.results[] | .cc] | sort) == ["cubic", "powertcp"]
		and ([.results[] | .rounds | length] == [1, 1]) and ([.results[] | .timeouts, .switch_drops, .rto_rounds | type] | unique) == ["number"]
		and ([.results[] | .sweep | length] == [1, 1])' "$D/summary.json" >/dev/null &&
		t_pass "ptcp_incast: summary.json: powertcp and cubic, one round each, timeouts per CC" ||
		t_fail "ptcp_incast: summary.json keys" "$(head -c 400 "$D/summary.json")"
fi

# ---- Fig. 2.5: fairness ---------------------------------------------------------
D=$LOG/ptcp_fairness
if exp ptcp_fairness tests/exp/ptcp_fairness.sh; then
	files "$D" summary.json flows.csv fairness.png
	header "$D/flows.csv" "cc,t_s,active,f0,f1,total_mbps,jain"
	jqe '.experiment == "ptcp_fairness" and ([.results[] | .cc] == ["powertcp"])
		and ([.results[0].phases[] | .flows] == [1, 2, 1]) and (.results[0].events | length) == 4
		and (.results[0].jain_min | type) == "number"' "$D/summary.json" >/dev/null &&
		t_pass "ptcp_fairness: summary.json: phases of 1, 2, 1 flows" ||
		t_fail "ptcp_fairness: summary.json keys" "$(head -c 400 "$D/summary.json")"
fi

# ---- the workload harness's example -------------------------------------------
D=$LOG/websearch
if exp websearch tests/exp/websearch.sh; then
	files "$D/load0.3" cubic.json cubic.csv slowdown.png cdf.png table.txt
	header "$D/load0.3/cubic.csv" "$WL_COLS"
	rows "$D/load0.3/cubic.csv" 30
fi
