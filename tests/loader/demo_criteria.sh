# The demo's closing verdicts (tests/demo/criteria.jq) on hand-made
# results: each target says yes, no, or not measured for the right reason,
# and odd inputs (ties, no rounds, parts that did not run) give an answer,
# not an error.
# kernel-independent: the same output on any kernel (user space only)
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"

command -v jq >/dev/null || { t_fail "criteria: jq installed" "apt-get install -y jq"; exit 1; }
D=$(t_mktmp criteria) || exit 1

# main NAME PT_MBPS PT_P99 CUBIC_P99: a main-part summary.json (CUBIC's row
# left out when CUBIC_P99 is "-")
main() {
	jq -n --argjson t "$2" --argjson q "$3" --arg c "$4" \
		'[{cc: "powertcp", throughput_mbps: $t, queue_p99_bytes: $q},
		  {cc: "theta_powertcp", throughput_mbps: 990, queue_p99_bytes: 20000}]
		 + (if $c == "-" then [] else [{cc: "cubic", throughput_mbps: 999, queue_p99_bytes: ($c | tonumber)}] end)' \
		>"$D/$1.json"
}
# rounds NAME MS...: an incast-<cc>.json with those per-round completions
rounds() {
	local f=$D/$1.json
	shift
	printf '%s\n' "$@" | jq -s '{per_round: map({completion_ms: .})}' >"$f"
}
# verdict MAIN IP IT [UNTUNED]: criteria.json for those inputs ("none" =
# part not run; the untuned part defaults to none)
verdict() {
	local ip=$D/$2.json it=$D/$3.json ut=$D/${4:-none}.json
	[ "$2" = none ] && ip=$D/null.json
	[ "$3" = none ] && it=$D/null.json
	[ "${4:-none}" = none ] && ut=$D/null.json
	jq -n -c -f tests/demo/criteria.jq --slurpfile m "$D/$1.json" --argjson rate 1000 \
		--slurpfile ip "$ip" --slurpfile it "$it" --slurpfile is "$D/isum.json" --argjson idelay 1000 \
		--slurpfile u "$ut"
}
# untuned NAME PT_MBPS THETA_MBPS: the untuned part's summary.json ("-"
# leaves that CC's row out)
untuned() {
	jq -n --arg p "$2" --arg t "$3" \
		'[if $p == "-" then empty else {cc: "powertcp", throughput_mbps: ($p | tonumber)} end,
		  if $t == "-" then empty else {cc: "theta_powertcp", throughput_mbps: ($t | tonumber)} end]' >"$D/$1.json"
}
echo null >"$D/null.json"
jq -n '[{cc: "powertcp", incast_peak_bytes_rounds: [600000, 620000, 640000]},
	{cc: "theta_powertcp", incast_peak_bytes_rounds: [900000]}]' >"$D/isum.json"

main good 990 15000 980000
rounds pfast 28 29 30
rounds tslow 31 32 33
v=$(verdict good pfast tslow)
jqv "criteria: all three met" "$v" '.utilisation.ok and .queue_p99.ok and .incast.ok'
jqv "criteria: queue ratio is p99 over CUBIC's" "$v" '(.queue_p99.ratio * 1e4 | round) == 153'
jqv "criteria: incast medians and P from the rounds" "$v" \
	'.incast.completion_ms_median == {powertcp: 29, theta_powertcp: 32} and .incast.p_powertcp_faster == 1 and .incast.rounds == [3, 3]'
jqv "criteria: peak medians from the delay part's summary" "$v" \
	'.incast.peak_bytes_median == {powertcp: 620000, theta_powertcp: 900000}'

main edge 950 98000 980000
v=$(verdict edge pfast tslow)
jqv "criteria: 95 % and exactly 1/10 still count" "$v" '.utilisation.ok and .queue_p99.ok'
main bad 949 98001 980000
rounds pslow 35 36 37
v=$(verdict bad pslow tslow)
jqv "criteria: 949 Mbit/s is under 95 %" "$v" '.utilisation.ok == false and .utilisation.throughput_mbps == 949'
jqv "criteria: a p99 over 1/10 of CUBIC's fails" "$v" '.queue_p99.ok == false'
jqv "criteria: a slower powertcp incast fails" "$v" '.incast.ok == false and .incast.p_powertcp_faster == 0'

# a lower median alone is not enough: P must be above ½
rounds pmixed 20 31.5 31.6 50 60
rounds tmixed 30 31 32 33 34
v=$(verdict good pmixed tmixed)
jqv "criteria: a lower median with P <= 1/2 is not faster" "$v" \
	'.incast.completion_ms_median.powertcp == 31.6 and .incast.p_powertcp_faster == 0.44 and .incast.ok == false'
v=$(verdict good tslow tslow)
jqv "criteria: identical rounds: P = 1/2, not faster" "$v" '.incast.p_powertcp_faster == 0.5 and .incast.ok == false'
rounds empty
v=$(verdict good empty tslow)
jqv "criteria: no rounds: not faster, no error" "$v" '.incast.ok == false and .incast.p_powertcp_faster == null'

main nocubic 990 15000 -
v=$(verdict nocubic none none)
jqv "criteria: without CUBIC or the delay part: not measured (null)" "$v" \
	'.queue_p99 == null and .incast == null and .utilisation.ok'
jqv "criteria: without the untuned part: defaults not measured (null)" "$v" '.defaults == null'

# fourth target: untuned >= 95 % of tuned, for each variant measured both
# ways (main: powertcp 990, theta_powertcp 990)
untuned uok 950 941
v=$(verdict good pfast tslow uok)
jqv "criteria: defaults at 95.96 % and 95.05 % of tuned" "$v" \
	'.defaults.ok and (.defaults.ccs | length) == 2 and (.defaults.ccs[0].ratio * 1e4 | round) == 9596 and .defaults.ccs[1].untuned_mbps == 941'
untuned uedge 941 940
v=$(verdict good pfast tslow uedge)
jqv "criteria: one variant under 95 % fails the target" "$v" '.defaults.ok == false and .defaults.ccs[1].ratio < 0.95'
untuned uone 990 -
v=$(verdict good pfast tslow uone)
jqv "criteria: only powertcp run untuned: judged on it alone" "$v" \
	'.defaults.ok and (.defaults.ccs | map(.cc)) == ["powertcp"] and .defaults.ccs[0].ratio == 1'
echo '[]' >"$D/unone.json"
v=$(verdict good pfast tslow unone)
jqv "criteria: untuned part without results: not met, no error" "$v" '.defaults.ok == false and .defaults.ccs == []'
untuned uhigh 999 999
v=$(verdict bad pfast tslow uhigh)
jqv "criteria: defaults above the tuned run count (ratio > 1)" "$v" '.defaults.ok and .defaults.ccs[0].ratio > 1'
jq -n '[{cc: "powertcp", throughput_mbps: null, queue_p99_bytes: null}, {cc: "cubic", queue_p99_bytes: 980000}]' >"$D/failed.json"
v=$(verdict failed none none)
jqv "criteria: a powertcp run that failed is not measured" "$v" '.utilisation == null and .queue_p99 == null'
v=$(verdict failed none none uok)
jqv "criteria: a failed tuned run leaves nothing to compare: not met" "$v" \
	'.defaults.ccs == [] and .defaults.ok == false'
exit 0
