# kernel-independent: counts recorded runs and summarises a JSON file, no BPF in the kernel
#
# make ethereal-results is resumable (tests/exp/ethereal-results): a batch
# counts the runs of its configuration already in runs.jsonl (ETH_COUNT=1:
# "done expected"; another rate, CC or MTU does not count), a batch with
# every run recorded exits at once without building anything, the driver
# then only writes the summary; bad ETH_SEEDS is refused; the summary's
# CDF plot is written from the recorded runs.
# shellcheck shell=bash
# shellcheck disable=SC2015
source "$(dirname "$0")/../lib/test.sh"
T=$(t_mktmp eth_results)
export OUT=$T MODES="ecmp spray" PATTERNS=a2a SIZES=262144
run() { # mode seed cc rate mtu ms
	jq -nc --arg m "$1" --argjson s "$2" --arg cc "$3" --argjson r "$4" --argjson mtu "$5" --argjson ms "$6" \
		'{mode: $m, pattern: "a2a", rate_mbps: $r, cc: $cc, bytes: 262144, seed: $s, completion_ms: $ms,
		  cpu_busy: 0.5, mtu: $mtu, xdp_mode: "native", tag_ports: 1}'
}
{
	run ecmp 1 dctcp 1000 9000 40; run ecmp 2 dctcp 1000 9000 44; run spray 1 dctcp 1000 9000 30
	run spray 2 dctcp 200 9000 90	# another rate
	run spray 2 dctcp 1000 1500 90	# another MTU
	run spray 7 dctcp 1000 9000 31	# outside seeds 1..2
} >"$T/runs.jsonl"
got=$(RATE=1000 CC=dctcp SEED0=1 SEEDS=2 ETH_COUNT=1 tests/exp/ethereal 2>&1)
[ "$got" = "3 4" ] && t_pass "ethereal batch: 3 of 4 runs of its configuration recorded (other rate, MTU, seed not counted)" ||
	t_fail "ethereal batch: ETH_COUNT" "got '$got'"
run spray 2 dctcp 1000 9000 33 >>"$T/runs.jsonl"
ns0=$(ip netns list 2>/dev/null | wc -l)
out=$(RATE=1000 CC=dctcp SEED0=1 SEEDS=2 FAB_TRACE=1 tests/exp/ethereal 2>&1)
rc=$?
[ $rc = 0 ] && grep -q "all 4 runs recorded" <<<"$out" && [ "$(wc -l <<<"$out")" = 1 ] &&
	[ "$(ip netns list 2>/dev/null | wc -l)" = "$ns0" ] &&
	t_pass "ethereal batch: every run recorded: exits 0 at once, nothing built" ||
	t_fail "ethereal batch: complete batch" "rc $rc: $out"
out=$(ETH_RATES=1000 ETH_CCS=dctcp ETH_SEEDS=2 ETH_SEEDS_PER=1 tests/exp/ethereal-results 2>&1)
rc=$?
[ $rc = 0 ] && grep -q "4 runs, 4 recorded already" <<<"$out" && [ -s "$T/cdf.png" ] &&
	jq -e '[.[] | select(.rate_mbps == 1000 and .mtu == 9000) | .modes.ecmp.runs, .modes.spray.runs] == [2, 3]' "$T/summary.json" >/dev/null &&
	t_pass "ethereal-results: all recorded: no batch runs, the summary and cdf.png are written" ||
	t_fail "ethereal-results: resume" "rc $rc: $(tail -n 4 <<<"$out")"
n=$(wc -l <"$T/runs.jsonl")
[ "$n" = 7 ] && t_pass "ethereal-results: recorded runs kept (7 lines)" || t_fail "ethereal-results: runs kept" "$n lines"
expect "ethereal-results: ETH_SEEDS=0 refused (exit 2)" 2 "ETH_SEEDS must be a positive integer, got '0'" \
	env ETH_SEEDS=0 tests/exp/ethereal-results
