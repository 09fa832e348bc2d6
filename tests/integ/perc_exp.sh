# host-suite: the short mode of tests/exp/perc_fabric.sh checks its output
# schema and that each part measured what it names; the kernel paths it
# uses (the s-PERC link program, the perc CC and its sockops, DCTCP) are
# proven on 6.1 by their own fixtures and tests (prog/test_perc_prog,
# loader/perc_cli.sh, integ/perc.sh, integ/dctcp.sh).
#
# Integration: tests/exp/perc_fabric.sh (s-PERC* against DCTCP and
# PowerTCP on the leaf-spine, docs/results.md) with SHORT=1: one fabric,
# churn (two flows, s-PERC* and DCTCP), an incast of 2 onto a long flow,
# control packets dropped at 1 % per switch port, under the suite's lock
# (DCBPF_SUITE_LOCKED=1).  Asserts what it writes (flows.csv, trials.csv,
# summary.csv, summary.json, the PNGs) and what each part saw: every
# trial's flows found in the samples, s-PERC*'s allocations equal to the
# max-min rates of the oracle in the churn and the incast, the filters
# dropped control packets and the senders restarted flows, and after the
# last drop the allocations were exact again.  Not the timings: those are
# docs/results.md's.  A bad SHORT or part is refused.
# shellcheck shell=bash
# shellcheck disable=SC2015
source "$(dirname "$0")/../lib/test.sh"
t_need_root "perc_exp"
command -v iperf3 >/dev/null || { t_skip "perc_exp" "iperf3 not installed (make deps)"; exit 0; }
LOG="$OUT/perc_exp"
rm -rf "$LOG"
mkdir -p "$LOG"
export DCBPF_SUITE_LOCKED=1

out=$(SHORT=2 OUT="$LOG/bad" tests/exp/perc_fabric.sh 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "SHORT is 0 or 1, not '2'" <<<"$out" &&
	t_pass "perc_exp: a bad SHORT refused (exit 2)" || t_fail "perc_exp: a bad SHORT refused" "exit $rc: $out"
out=$(OUT="$LOG/bad" tests/exp/perc_fabric.sh fairness 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "usage: tests/exp/perc_fabric.sh \[all|churn|incast|drop\]" <<<"$out" &&
	t_pass "perc_exp: an unknown part refused (exit 2)" || t_fail "perc_exp: an unknown part refused" "exit $rc: $out"
[ ! -e "$LOG/bad" ] && t_pass "perc_exp: nothing written for a refused run" ||
	t_fail "perc_exp: nothing written for a refused run" "$(ls "$LOG/bad")"

d=$LOG/run
touch "$LOG/.start"
env SHORT=1 OUT="$d" tests/exp/perc_fabric.sh >"$LOG/run.log" 2>&1
rc=$?
[ $rc = 0 ] && t_pass "perc_exp: short mode ran (exit 0)" ||
	t_fail "perc_exp: short mode ran (exit 0)" "exit $rc: $(tail -n 5 "$LOG/run.log" | tr '\n' ' ')"
miss=""
for f in flows.csv trials.csv summary.csv summary.json summary.png churn.png incast.png drop.png; do
	[ -s "$d/$f" ] || miss+=" $f"
done
[ -z "$miss" ] && t_pass "perc_exp: every file written" || t_fail "perc_exp: every file written" "missing:$miss"
[ "$(head -n 1 "$d/summary.csv" 2>/dev/null)" = "part,variant,param,metric,n,converged,min,median,max" ] &&
	t_pass "perc_exp: summary.csv columns" || t_fail "perc_exp: summary.csv columns" "$(head -n 1 "$d/summary.csv" 2>&1)"
[ "$(head -n 1 "$d/flows.csv" 2>/dev/null)" = "part,variant,rep,param,trial,event,t_event_ms,flow,maxmin_kbps,rate_kbps,conv10_ms,conv20_ms" ] &&
	t_pass "perc_exp: flows.csv columns" || t_fail "perc_exp: flows.csv columns" "$(head -n 1 "$d/flows.csv" 2>&1)"
S=$d/summary.json
jqv "perc_exp: summary.json: schema, the parts' parameters, 5 trials" "$(cat "$S" 2>/dev/null)" \
	'.schema == "dcbpf-perc-exp/1" and .params.churn.cap_pct == 85 and .params.incast.rate_mbit > 0 and
	 (.trials | length) == 5'
# churn: two flows -> events join F0, join F1, leave F1 (the last leave ends the run).
# The spans come from the sampled rates: on a loaded machine a DCTCP flow's
# end can drift next to the other's, so DCTCP has to show both joins only.
jqv "perc_exp: churn: s-PERC* saw the joins and the leave, DCTCP the joins, each flow measured against max-min" \
	"$(cat "$S" 2>/dev/null)" \
	'([.trials[] | select(.part == "churn" and .variant == "s-perc-star") | .events] == [3]) and
	 ([.trials[] | select(.part == "churn" and .variant == "dctcp") | .events >= 2] == [true]) and
	 ([.flows[] | select(.part == "churn" and .variant == "s-perc-star" and .maxmin_kbps > 0 and .rate_kbps > 0)] | length) == 4 and
	 ([.flows[] | select(.part == "churn" and .variant == "dctcp" and .maxmin_kbps > 0 and .rate_kbps > 0)] | length) >= 3'
jqv "perc_exp: churn: s-PERC*'s allocations were the oracle's max-min rates in every phase" "$(cat "$S" 2>/dev/null)" \
	'[.trials[] | select(.part == "churn" and .variant == "s-perc-star") | .alloc_exact] == [true]'
jqv "perc_exp: incast of 2: every flow found, s-PERC* allocated max-min, the queue sampled" "$(cat "$S" 2>/dev/null)" \
	'[.trials[] | select(.part == "incast") | .flows_total] == [3, 3] and
	 [.trials[] | select(.part == "incast" and .variant == "s-perc-star") | .alloc_exact] == [true] and
	 ([.trials[] | select(.part == "incast" and .q_peak_bytes != null)] | length) == 2'
jqv "perc_exp: drop: control packets dropped, flows restarted, allocations exact again after the last drop" \
	"$(cat "$S" 2>/dev/null)" \
	'[.trials[] | select(.part == "drop")][0] | .ctrl_dropped > 0 and .restarts > 0 and .alloc_exact == true and
	 .alloc_exact_ms != null'
# The control class: every switch port has two strict-priority queues and the
# control packets (DSCP 48) go to the top one, HTB leaf 1:2.  The switch's
# per-leaf record counts what left that leaf: never more than HTB's own
# count (control packets are single skbs), and something on every port
# whose top leaf sent (ports that never queue too: each dequeue empties
# them).  Less than HTB by what the requeue guard takes for a requeue when
# a freed skb's address comes back: 4-35 % measured, more on a loaded
# machine (docs/admission.md), so not asserted closer.
sw=$d/raw/churn/switches.json cl=$d/raw/churn/classes.json
cmp=$(jq -n --slurpfile s "$sw" --slurpfile c "$cl" '
	[$s[0][] | .ports[] | {dev: .ifname, q1: ([.queues[]? | select(.queue == 1) | .tx_pkts][0] // -1)}] as $q |
	[$c[0][] | select(.classid == "1:2") | {dev, htb: .packets}] as $h |
	[$q[] | . as $x | ($h[] | select(.dev == $x.dev) | .htb) as $n | $x + {htb: $n}]' 2>/dev/null)
echo "perc_exp: top queue per port (switch record vs HTB 1:2): $(jq -c '[.[] | [.q1, .htb]]' <<<"$cmp" 2>/dev/null)"
jqv "perc_exp: control packets took the top queue (HTB 1:2) on the switches" "$cmp" \
	'length == 10 and ([.[] | .htb] | add) > 100'
jqv "perc_exp: the switch's record of the top queue counts its departures on every port that sent, never above HTB's" "$cmp" \
	'all(.[]; .q1 <= .htb and (.htb == 0 or .q1 > 0))'
# the run's daemon took its pins with it
pins=$(find /sys/fs/bpf -maxdepth 1 -name 'dcbpf-t*' -newer "$LOG/.start" 2>/dev/null | wc -l)
[ "$pins" = 0 ] && t_pass "perc_exp: no pin directory left" || t_fail "perc_exp: no pin directory left" "$pins new"
[ -z "${T_FAILED:-}" ]
