# host-suite: the short mode of tests/exp/ethereal with CC=powertcp-int
# (PowerTCP on INT across Ethereal's leaf–spine); its kernel paths are proven
# on 6.1 by their own fixtures and integration tests: the tag and INT in one
# option (prog/test_ethereal_prog "eth+int"), the leaf's steering
# (prog/test_eth_leaf_prog), the transit hop and PowerTCP's INT law
# (prog/test_int_prog, integ/int.sh), Ethereal with INT's host programs on
# the fabric (integ/ethereal.sh).
#
# Integration: one seed of the 256 KiB 4-channel Ring in every host mode
# (ecmp, ethereal, spray) on the 2 × 4 leaf–spine with admission switches,
# INT transit on every leaf and spine port and INT on every host.  Asserts
# that both work in the same packets: every run completed; PowerTCP ran its
# INT law (most ACKs on INT; the leaves filled twice the slots the spines
# did: leaf, spine, leaf; no slot overflow); in ethereal and spray mode the hosts grew Ethereal's tag into
# the INT option (src_tag_grown) and the leaves steered by it over more
# than one uplink; in ecmp mode nothing was tagged.  A bad CC is refused.
# Buffer occupancy: each run records, per queue class, p50 <= p90 <= p99 <=
# max (all >= 0) over the collective's samples (every 500 us in the short
# mode), no queue above its qdisc limit; some queue held bytes.
# shellcheck shell=bash
# shellcheck disable=SC2015
source "$(dirname "$0")/../lib/test.sh"
t_need_root "ethereal_exp"
LOG="$OUT/ethereal_exp"
rm -rf "$LOG"
mkdir -p "$LOG"

out=$(CC=cubic OUT="$LOG/bad" tests/exp/ethereal 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "CC is dctcp, powertcp, powertcp-int or theta-int, not 'cubic'" <<<"$out" && [ ! -e "$LOG/bad" ] &&
	t_pass "ethereal exp: an unknown CC refused (exit 2, nothing written)" ||
	t_fail "ethereal exp: an unknown CC refused" "exit $rc: $out"

# The sampler refuses a namespace that does not exist, naming it.
out=$("$BUILD/tools/qsample" -a -N "dcbpf-no-such-ns-$$" -n 1 2>&1 >/dev/null)
rc=$?
[ $rc = 1 ] && grep -q "namespace 'dcbpf-no-such-ns-$$'" <<<"$out" &&
	t_pass "ethereal exp: qsample -a refuses a missing namespace (exit 1, named)" ||
	t_fail "ethereal exp: qsample -a refuses a missing namespace" "exit $rc: $out"

if grep -qwE 'powertcp|theta_powertcp|hpcc|timely' /proc/sys/net/ipv4/tcp_available_congestion_control; then
	t_skip "ethereal exp: powertcp-int" "another dcbpfd has the PowerTCP names registered"
	exit 0
fi

t0=$(date +%s)
SHORT=1 CC=powertcp-int OUT="$LOG/run" tests/exp/ethereal >"$LOG/run.log" 2>&1
rc=$?
[ $rc = 0 ] && t_pass "ethereal exp: SHORT=1 CC=powertcp-int ran (exit 0, $(($(date +%s) - t0)) s)" ||
	t_fail "ethereal exp: SHORT=1 CC=powertcp-int ran" "exit $rc: $(tail -n 5 "$LOG/run.log" | tr '\n' ' ')"
R=$LOG/run/runs.jsonl
row() { jq -c --arg m "$1" 'select(.mode == $m)' "$R" 2>/dev/null; }

n=$(jq -s 'map(select(.cc == "powertcp-int" and .pattern == "ring4" and .completion_ms > 0)) | length' "$R" 2>/dev/null)
[ "$n" = 3 ] && t_pass "ethereal exp: a completed Ring per mode, recorded as powertcp-int" ||
	t_fail "ethereal exp: a completed Ring per mode" "$n rows: $(cat "$R" 2>&1)"

for m in ecmp ethereal spray; do
	r=$(row $m)
	# PowerTCP's first ACKs of a flow come before any echo (θ law); the
	# rest must find fresh telemetry.
	echo "$r" | jqe '.int.int_acks > 2 * .int.theta_acks and .int.int_acks > 100' >/dev/null &&
		t_pass "ethereal exp $m: PowerTCP on its INT law ($(echo "$r" | jq -r '"\(.int.int_acks) ACKs on INT, \(.int.theta_acks) on θ"'))" ||
		t_fail "ethereal exp $m: PowerTCP on its INT law" "$(echo "$r" | jq -c .int)"
	# A data segment crosses two leaves and one spine, each fills a slot;
	# ACKs carry echoes, which no switch fills.
	echo "$r" | jqe '.int.transit_filled_spines > 100 and .int.transit_overflow == 0 and .int.echo_rx > 0 and
		(.int.transit_filled_leaves / .int.transit_filled_spines) >= 1.8 and
		(.int.transit_filled_leaves / .int.transit_filled_spines) <= 2.2' >/dev/null &&
		t_pass "ethereal exp $m: slots filled at leaf, spine and leaf ($(echo "$r" | jq -r '"\(.int.transit_filled_leaves) at leaves, \(.int.transit_filled_spines) at spines"')), no overflow" ||
		t_fail "ethereal exp $m: slots filled at leaf, spine and leaf" "$(echo "$r" | jq -c .int)"
done
for m in ethereal spray; do
	r=$(row $m)
	echo "$r" | jqe '.int.src_tag_grown > 0 and .eth.steered > 0 and ([.eth.uplink_pkts[] | select(. > 0)] | length) >= 2' >/dev/null &&
		t_pass "ethereal exp $m: the tag rode in the INT option and steered over $(echo "$r" | jq '[.eth.uplink_pkts[] | select(. > 0)] | length') uplinks" ||
		t_fail "ethereal exp $m: tag in the INT option, steered" "$(echo "$r" | jq -c '{int, eth}')"
done
r=$(row ecmp)
echo "$r" | jqe '.int.src_tag_grown == 0 and .eth.steered == 0' >/dev/null &&
	t_pass "ethereal exp ecmp: nothing tagged or steered" ||
	t_fail "ethereal exp ecmp: nothing tagged or steered" "$(echo "$r" | jq -c '{int, eth}')"

# Buffer occupancy (the sampler's classes, tests/exp/ethereal): every class
# recorded with non-negative, ordered percentiles; the sampler saw every
# run's collective (samples at the shaped queues); some queue held bytes
# in some run (the short mode samples every 500 us: at 1 ms PowerTCP's
# near-empty queues showed 5 non-empty samples over the three runs, too
# few to rely on); no queue above its qdisc's limit.
for m in ecmp ethereal spray; do
	r=$(row $m)
	echo "$r" | jqe '.queues.classes as $c | ["leaf_up", "spine_down", "leaf_down", "sw_leaf", "sw_spine"] |
		all(. as $k | $c[$k] | (.p50 | type) == "number" and .p50 >= 0 and .p90 >= .p50 and .p99 >= .p90 and .max >= .p99
			and .samples >= 0 and (if .samples > 0 then (.cdf | length) > 0 and .cdf[-1] == [1, .max] and
				([range(1; .cdf | length) as $i | .cdf[$i][0] > .cdf[$i - 1][0] and .cdf[$i][1] >= .cdf[$i - 1][1]] | all)
				else .cdf == [] end))' >/dev/null &&
		echo "$r" | jqe '.queues.classes.leaf_up.samples >= .queues.classes.leaf_up.queues and
			.queues.classes.spine_down.samples >= .queues.classes.spine_down.queues and .queues.window_ms >= 1' >/dev/null &&
		t_pass "ethereal exp $m: queue occupancy per class, max >= p99 >= p50 >= 0 ($(echo "$r" | jq -r '.queues | "\(.window_ms) ms sampled; max: leaf uplinks \(.classes.leaf_up.max) B, spines \(.classes.spine_down.max) B, leaf ports \(.classes.leaf_down.qdisc // .classes.leaf_down.max)"'))" ||
		t_fail "ethereal exp $m: queue occupancy per class" "$(echo "$r" | jq -c '.queues | del(.classes[].cdf)')"
	# The qdisc's limit is a hard one (TBF's FIFO refuses beyond it); the
	# admission buffer B is not, for the qdisc's backlog: admission decides
	# on the tracker's count, which can lag the qdisc's (docs/results.md,
	# "Ethereal: buffer occupancy"), so the switches' sums are only shown.
	echo "$r" | jqe '.queues as $q | .queues.queue_limit_bytes > 0 and
		([$q.classes.leaf_up.max, $q.classes.spine_down.max, $q.classes.leaf_down.max] | max) <= $q.queue_limit_bytes' >/dev/null &&
		t_pass "ethereal exp $m: no queue above its limit ($(echo "$r" | jq -r '.queues | "\(.queue_limit_bytes) B; switches: largest \([.classes.sw_leaf.max, .classes.sw_spine.max] | max) B, buffer \(.switch_buffer_bytes) B"'))" ||
		t_fail "ethereal exp $m: no queue above its limit" "$(echo "$r" | jq -c '.queues | del(.classes[].cdf)')"
done
nz=$(jq -s '[.[].queues.classes | .leaf_up.nonzero + .spine_down.nonzero] | add' "$R" 2>/dev/null)
[ "${nz:-0}" -gt 0 ] && t_pass "ethereal exp: the sampler saw queues holding bytes ($nz non-empty samples over the three runs)" ||
	t_fail "ethereal exp: some queue non-empty" "$(jq -c '.queues | del(.classes[].cdf)' "$R" 2>&1)"
