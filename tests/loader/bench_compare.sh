# kernel-independent: compares two JSON files, no BPF in the kernel
#
# tests/bench/compare (make bench-compare): constructed summaries with known
# medians and spreads — the verdict per figure follows the unit's direction
# and the noise (the larger spread, at least the floor); figures only in
# one summary are new / gone; --strict fails on a worse figure; bad input
# (missing file, not a summary, bad --floor) exits 2 naming it. And the
# median/min/max merge of tests/bench/run on fake benchmarks.
# shellcheck shell=bash
# shellcheck disable=SC2015
source "$(dirname "$0")/../lib/test.sh"
T=$(t_mktmp bench_compare)
C=tests/bench/compare

cat >"$T/base.json" <<'J'
{ "law_ns":    {"value": 100, "min": 98,  "max": 102, "unit": "ns"},
  "sim_per_s": {"value": 1000, "min": 900, "max": 1100, "unit": "1/s"},
  "tput":      {"value": 900, "unit": "Mbit/s"},
  "odd":       {"value": 10, "unit": "widgets"},
  "old_ns":    {"value": 5, "unit": "ns"},
  "_machine":  {"kernel": "x"} }
J
cat >"$T/new.json" <<'J'
{ "law_ns":    {"value": 120, "min": 118, "max": 121, "unit": "ns"},
  "sim_per_s": {"value": 1150, "min": 1100, "max": 1200, "unit": "1/s"},
  "tput":      {"value": 990, "unit": "Mbit/s"},
  "odd":       {"value": 20, "unit": "widgets"},
  "fresh_ns":  {"value": 7, "unit": "ns"} }
J
out=$("$C" "$T/base.json" "$T/new.json" 2>&1)
rc=$?
verdict() { awk -v f="$1" '$1 == f { print $6 }' <<<"$out"; }
[ $rc = 0 ] && t_pass "bench-compare: exit 0 without --strict" || t_fail "bench-compare: exit 0" "rc $rc: $out"
# law_ns: 1.2 against noise max(4 %, 2.5 %, 5 %) = 5 %, lower is better
[ "$(verdict law_ns)" = WORSE ] && t_pass "bench-compare: ns 100 -> 120 beyond 5 % noise is WORSE" ||
	t_fail "bench-compare: law_ns" "$out"
# sim_per_s: 1.15 against the base's spread 20 %: within noise
[ "$(verdict sim_per_s)" = same ] && t_pass "bench-compare: 1/s +15 % within its 20 % spread is same" ||
	t_fail "bench-compare: sim_per_s" "$out"
grep -q 'sim_per_s.*20%' <<<"$out" && t_pass "bench-compare: noise printed as the larger spread (20 %)" ||
	t_fail "bench-compare: noise column" "$out"
[ "$(verdict tput)" = better ] && t_pass "bench-compare: Mbit/s +10 % (one run each: 5 % floor) is better" ||
	t_fail "bench-compare: tput" "$out"
[ "$(verdict odd)" = moved ] && t_pass "bench-compare: an unknown unit that doubled only moved" ||
	t_fail "bench-compare: odd" "$out"
[ "$(verdict fresh_ns)" = new ] && [ "$(verdict old_ns)" = gone ] &&
	t_pass "bench-compare: figures in one summary only are new / gone" || t_fail "bench-compare: new/gone" "$out"
grep -q '_machine' <<<"$out" && t_fail "bench-compare: _machine is not a figure" "$out" ||
	t_pass "bench-compare: _machine is not a figure"
grep -q 'bench-compare: 1 same, 1 better, 1 worse, 1 moved, 1 new, 1 gone' <<<"$out" &&
	t_pass "bench-compare: closing counts" || t_fail "bench-compare: closing counts" "$(tail -n 1 <<<"$out")"
out2=$("$C" --floor 25 "$T/base.json" "$T/new.json" 2>&1)
[ "$(awk '$1 == "law_ns" { print $6 }' <<<"$out2")" = same ] &&
	t_pass "bench-compare: --floor 25 makes +20 % noise" || t_fail "bench-compare: --floor" "$out2"
"$C" --strict "$T/base.json" "$T/new.json" >/dev/null 2>&1
rc=$?
[ $rc = 1 ] && t_pass "bench-compare: --strict exits 1 on a worse figure" || t_fail "bench-compare: --strict" "rc $rc"
"$C" --strict "$T/base.json" "$T/base.json" >/dev/null 2>&1
rc=$?
[ $rc = 0 ] && t_pass "bench-compare: --strict exits 0 on the same summary" || t_fail "bench-compare: --strict same" "rc $rc"

expect "bench-compare: a missing file is refused (exit 2)" 2 "cannot read '$T/nope.json'" "$C" "$T/base.json" "$T/nope.json"
echo '{"x": 3}' >"$T/bad.json"
expect "bench-compare: a file that is not a summary is refused (exit 2)" 2 "is not a bench summary" "$C" "$T/bad.json" "$T/base.json"
expect "bench-compare: a bad --floor is refused (exit 2)" 2 "--floor wants a percentage, got 'lots'" "$C" --floor lots "$T/base.json" "$T/new.json"
expect "bench-compare: one file only is a usage error (exit 2)" 2 "usage:" "$C" "$T/base.json"

# ---- tests/bench/run merges runs: median, min, max, every run ----------------
mkdir -p "$T/build/bench"
cat >"$T/build/bench/fake" <<'S'
#!/bin/sh
n=$(cat "$0.n" 2>/dev/null || echo 0); n=$((n + 1)); echo $n >"$0.n"
case $n in 1) v=30 ;; 2) v=10 ;; *) v=20 ;; esac
echo "{\"fake_ns\": {\"value\": $v, \"unit\": \"ns\"}}"
S
chmod +x "$T/build/bench/fake"
BUILD=$T/build OUT=$T/out BENCH_RUNS=3 BENCH_ONLY=fake tests/bench/run >"$T/run.log" 2>&1
rc=$?
got=$(jq -c '.fake_ns' "$T/out/summary.json" 2>/dev/null)
[ $rc = 0 ] && [ "$got" = '{"value":20,"min":10,"max":30,"runs":[30,10,20],"unit":"ns"}' ] &&
	t_pass "bench run: BENCH_RUNS=3 gives median 20, min 10, max 30 and every run" ||
	t_fail "bench run: merge of 3 runs" "rc $rc, got $got: $(tail -n 3 "$T/run.log")"
jqe '._machine.cpus > 0 and (._machine.kernel | length) > 0' "$T/out/summary.json" >/dev/null &&
	t_pass "bench run: the summary names the machine" || t_fail "bench run: _machine" "$(jq -c ._machine "$T/out/summary.json")"
BUILD=$T/build OUT=$T/out BENCH_RUNS=zero tests/bench/run >"$T/run2.log" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "BENCH_RUNS must be a positive integer, got 'zero'" "$T/run2.log" &&
	t_pass "bench run: BENCH_RUNS=zero refused (exit 2)" || t_fail "bench run: bad BENCH_RUNS" "rc $rc: $(cat "$T/run2.log")"
