# `make credence-gap` in its short form (tests/exp/credence_gap.sh, SHORT=1,
# 20 000 slots, one load): the JSON, CSV and table are written with every
# row; Credence with the perfect oracle sends exactly LQD's packets in every
# setting; on bursts of B, LQD and Credence's oracle beat DT by far more
# than on the incast-heavy trace (the paper's throughput regime); in the
# paper setup DT keeps no incast query whole where LQD keeps most.
# kernel-independent: the simulator and the trainer in user space, no BPF in the kernel
# shellcheck shell=bash
# shellcheck disable=SC2015
source "$(dirname "$0")/../lib/test.sh"

[ -x "$BUILD/dcbpf" ] || { t_fail "credence gap: dcbpf built" "run make"; exit 1; }
T=$(t_mktmp credence-gap) || exit 1
if ! SHORT=1 GAP_SLOTS=20000 GAP_LOADS=0.2 OUT="$T" tests/exp/credence_gap.sh >"$T/log" 2>&1; then
	t_fail "credence gap: short run" "$(tail -n 3 "$T/log" | tr '\n' ' ')"
	exit 1
fi
S="$T/summary.json"
# 7 rows per setting and load (3 settings here) + 2 forest variants + the unbounded buffer
n=$(jq '.rows | length' "$S")
csvn=$(($(wc -l <"$T/gap.csv") - 1))
[ "$n" = 24 ] && [ "$csvn" = 24 ] && t_pass "credence gap: 24 rows in summary.json and gap.csv" ||
	t_fail "credence gap: rows" "summary $n, csv $csvn (want 24)"
jqe '[.rows[] | select(.setting == "incast-heavy")] as $r
	| ($r | map(select(.label == "unbounded-buffer"))[0].sent_pkts) as $u
	| $u > ($r | map(select(.label == "lqd"))[0].sent_pkts) and ($r | all(.sent_pkts <= $u))' "$S" >/dev/null &&
	t_pass "credence gap: the unbounded buffer sends more than LQD and no less than any row" ||
	t_fail "credence gap: unbounded buffer" "$(jq -c '[.rows[] | select(.setting == "incast-heavy") | [.label, .sent_pkts]]' "$S")"

bad=$(jq '[.rows[] | select(.label == "oracle" and .sent_over_lqd != 1)] | length' "$S")
[ "$bad" = 0 ] && t_pass "credence gap: the perfect oracle sends LQD's packets in every setting" ||
	t_fail "credence gap: oracle = LQD" "$bad settings differ"
jqe '.headline.oracle_over_dt_bursts > 1.3 and .headline.forest_over_dt_bursts > 1.3
	and .headline.oracle_over_dt_bursts > .headline.oracle_over_dt_incast_heavy' "$S" >/dev/null &&
	t_pass "credence gap: on bursts of B the oracle and the forest exceed 1.3x DT, more than on incast-heavy" ||
	t_fail "credence gap: bursts" "$(jq -c .headline "$S")"
jqe '[.rows[] | select(.setting == "paper")] as $p
	| ($p | map(select(.label == "dt"))[0].incast_whole) == 0
	and ($p | map(select(.label == "lqd"))[0].whole_frac) > 0.5' "$S" >/dev/null &&
	t_pass "credence gap: paper setup, DT keeps no incast query whole, LQD more than half" ||
	t_fail "credence gap: queries" "$(jq -c '[.rows[] | select(.setting == "paper") | [.label, .incast_whole, .incast_queries]]' "$S")"
grep -q 'forest-on-eval' "$T/table.txt" && t_pass "credence gap: table has the forest trained on the evaluation trace" ||
	t_fail "credence gap: table" "no forest-on-eval row"
