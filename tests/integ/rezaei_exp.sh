# host-suite: the smoke modes of tests/exp/rezaei.sh check its output schema;
# the kernel paths it uses (the switch's classification modes, the ResQueue
# tagger, ICON's sockops program) are proven on 6.1 by their own fixtures and
# integration tests (prog/test_sw_modes, prog/test_resq_prog, integ/icon.sh).
#
# Integration: tests/exp/rezaei.sh (Slytherin, ResQueue, ICON against their
# baselines, docs/results.md) in its smoke mode, one system after another,
# under the suite's lock (DCBPF_SUITE_LOCKED=1).  Asserts what it writes —
# one harness CSV/JSON per variant, runs.csv with one row per variant and
# its columns, summary.csv's columns and a row per (variant, metric),
# summary.json's schema, the PNGs — and that every variant's run carried
# traffic and its mechanism was in force (ResQueue: the hosts tagged and a
# flow restarted after idle; ICON: a sender got n = FANIN).  Not the
# figures: those are docs/results.md's.  A bad SHORT or system is refused.
# shellcheck shell=bash
# shellcheck disable=SC2015
source "$(dirname "$0")/../lib/test.sh"
t_need_root "rezaei_exp"
LOG="$OUT/rezaei_exp"
rm -rf "$LOG"
mkdir -p "$LOG"
export DCBPF_SUITE_LOCKED=1

out=$(SHORT=tiny OUT="$LOG/bad" tests/exp/rezaei.sh slytherin 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "SHORT is 0, 1 or smoke, not 'tiny'" <<<"$out" &&
	t_pass "rezaei: a bad SHORT refused (exit 2)" || t_fail "rezaei: a bad SHORT refused" "exit $rc: $out"
out=$(OUT="$LOG/bad" tests/exp/rezaei.sh pfabric 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "usage: tests/exp/rezaei.sh slytherin|resqueue|icon" <<<"$out" &&
	t_pass "rezaei: an unknown system refused (exit 2)" || t_fail "rezaei: an unknown system refused" "exit $rc: $out"
[ ! -e "$LOG/bad" ] && t_pass "rezaei: nothing written for a refused run" ||
	t_fail "rezaei: nothing written for a refused run" "$(ls "$LOG/bad")"

RUN_COLS="system,variant,load,rep,seed,flows,completed,short_n,short_fct_p50_us,short_fct_p99_us,short_slowdown_p50,short_slowdown_p99,incast_fct_p99_us,queries,qct_p50_us,qct_p99_us,long_n,long_goodput_mbit,drops,promoted_pkts,retrans,flows_rto2,max_rto,loadavg_before,loadavg_after"
WL_COLS="id,class,cc,src,dst,size_bytes,start_ns,fct_ns,ideal_ns,slowdown,rto_count,retrans,wait_ns"

for sys in slytherin resqueue icon; do
	case $sys in
	slytherin) variants="dctcp slytherin" ;;
	resqueue) variants="dctcp pias resqueue" ;;
	icon) variants="dctcp ia-icon icon" ;;
	esac
	d=$LOG/$sys
	env SHORT=smoke OUT="$d" tests/exp/rezaei.sh $sys >"$LOG/$sys.log" 2>&1
	rc=$?
	[ $rc = 0 ] && t_pass "rezaei $sys: smoke mode ran (exit 0)" ||
		t_fail "rezaei $sys: smoke mode ran (exit 0)" "exit $rc: $(tail -n 5 "$LOG/$sys.log" | tr '\n' ' ')"
	miss=""
	for f in runs.csv summary.csv summary.json summary.png load0.3/slowdown.png load0.3/cdf.png load0.3/table.txt; do
		[ -s "$d/$f" ] || miss+=" $f"
	done
	for v in $variants; do
		for f in "$v-r1.csv" "$v-r1.json"; do [ -s "$d/load0.3/$f" ] || miss+=" load0.3/$f"; done
	done
	[ -z "$miss" ] && t_pass "rezaei $sys: every file written" || t_fail "rezaei $sys: every file written" "missing:$miss"
	[ "$(head -n 1 "$d/runs.csv" 2>/dev/null)" = "$RUN_COLS" ] && t_pass "rezaei $sys: runs.csv columns" ||
		t_fail "rezaei $sys: runs.csv columns" "$(head -n 1 "$d/runs.csv" 2>&1)"
	[ "$(head -n 1 "$d/summary.csv" 2>/dev/null)" = "system,variant,load,metric,n,min,median,max" ] &&
		t_pass "rezaei $sys: summary.csv columns" || t_fail "rezaei $sys: summary.csv columns" "$(head -n 1 "$d/summary.csv" 2>&1)"
	[ "$(head -n 1 "$d/load0.3/dctcp-r1.csv" 2>/dev/null)" = "$WL_COLS" ] &&
		t_pass "rezaei $sys: the harness' per-flow schema" || t_fail "rezaei $sys: the harness' per-flow schema" \
		"$(head -n 1 "$d/load0.3/dctcp-r1.csv" 2>&1)"
	# one row per variant, in order, each with traffic that completed,
	# short flows and incast queries, drops and load average measured
	got=$(awk -F, 'NR > 1 && $6 > 0 && $7 == $6 && $8 > 0 && $14 > 0 && $16 != "" && $19 != "" && $24 != "" { printf "%s ", $2 }' "$d/runs.csv")
	[ "$got" = "$variants " ] && t_pass "rezaei $sys: one complete row per variant ($variants)" ||
		t_fail "rezaei $sys: one complete row per variant" "got '$got' from $(tail -n +2 "$d/runs.csv" | tr '\n' ' ')"
	# the thesis' metrics summarised per variant (one repetition: n 1, min = median = max)
	n=$(awk -F, 'NR > 1 && $4 ~ /^(short_fct_p99_us|short_slowdown_p99|qct_p99_us|drops|flows_rto2)$/ &&
		$5 == 1 && $6 == $7 && $7 == $8 { n++ } END { print n + 0 }' "$d/summary.csv")
	want=$(($(wc -w <<<"$variants") * 5))
	[ "$n" = "$want" ] && t_pass "rezaei $sys: summary.csv: p99 short FCT and slowdown, p99 QCT, drops, flows with 2 RTOs per variant" ||
		t_fail "rezaei $sys: summary.csv rows" "$n of $want rows"
	jqe --arg s "$sys" '.schema == "dcbpf-rezaei/1" and .system == $s and (.runs | length) == ('"$(wc -w <<<"$variants")"') and
		.params.incast.fanin > 0 and .params.rto_min_ms == 10' "$d/summary.json" >/dev/null &&
		t_pass "rezaei $sys: summary.json schema, runs and parameters" ||
		t_fail "rezaei $sys: summary.json" "$(jq -c '{schema, system, n: (.runs | length), p: .params.incast}' "$d/summary.json" 2>&1)"
	case $sys in
	resqueue)
		# the taggers' state after the last variant (resqueue: promote any)
		st=$d/state.json
		jqe '.tagged > 0 and .idle_restarts > 0 and .promote == "any"' "$st" >/dev/null 2>&1 &&
			t_pass "rezaei resqueue: hosts tagged packets, flows restarted after idle ($(jq -c . "$st"))" ||
			t_fail "rezaei resqueue: tagger in force" "$(cat "$st" 2>&1)"
		;;
	icon)
		st=$d/state.json
		jqe '.max_n == 24' "$st" >/dev/null 2>&1 &&
			t_pass "rezaei icon: a sender paced with n = 24 from the aggregator ($(jq -c . "$st"))" ||
			t_fail "rezaei icon: n in force" "$(cat "$st" 2>&1)"
		;;
	esac
done
[ -z "${T_FAILED:-}" ]
