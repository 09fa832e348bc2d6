# The ns-3 models (tests/ns3/README.md) when `make ns3` has built them:
# the switch model admits and drops like `dcbpf sim` on the same traces,
# PowerTCP/θ-PowerTCP move the window like the core on the same feedback,
# and the short incast experiment writes the experiments' schema.  Without
# ns-3 built this says SKIP (a failure under CI=true, like every skip).
# kernel-independent: ns-3 models on the host, no BPF in the kernel
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"

N="$BUILD/ns3"
if [ ! -x "$N/test_admit_trace" ] || [ ! -x "$N/test_powertcp_cc" ]; then
	t_skip "ns3: models" "not built: 'sudo make ns3-deps' then 'make ns3' (tests/ns3/README.md)"
	exit "${T_FAILED:-0}"
fi
[ -x "$BUILD/dcbpf" ] || { t_fail "ns3: dcbpf built" "run make"; exit 1; }
tmp=$(t_mktmp ns3) || exit 1

# Every arrival's fate and every queue's counters against the engine.
"$N/test_admit_trace" || T_FAILED=1
"$N/test_powertcp_cc" || T_FAILED=1

# The same against the command: a trace `dcbpf sim` writes, replayed by
# both; their totals in the command's own JSON keys.
S=(--ports 8 --buffer 150000)
"$BUILD/dcbpf" sim --workload mix --mode byte "${S[@]}" --slots 3000 --seed 3 --incast-senders 7 \
	--load 0.5 --incast-period 400 --incast-frac 0.6 --write-trace "$tmp/t.csv" --json >/dev/null ||
	t_fail "ns3: dcbpf sim writes a trace" "exit $?"
for alg in cs dt abm followlqd credence; do
	sim=$("$BUILD/dcbpf" sim --mode byte "${S[@]}" --alg "$alg" --abm-period 4 --predictor accept \
		--trace "$tmp/t.csv" --json | jq -c '.[0] | {arrivals, admitted, drops, sent_pkts, sent_units}')
	ns=$("$N/test_admit_trace" --trace "$tmp/t.csv" --alg "$alg" "${S[@]}" --abm-period 4 |
		jq -c '{arrivals, admitted, drops, sent_pkts, sent_units}')
	if [ -n "$sim" ] && [ "$sim" = "$ns" ] && [ "$(jq .drops <<<"$ns")" -gt 0 ]; then
		t_pass "ns3: $alg on a dcbpf sim trace: the same totals as dcbpf sim ($ns)"
	else
		t_fail "ns3: $alg on a dcbpf sim trace: the same totals as dcbpf sim" "sim $sim, ns-3 $ns"
	fi
done
# The 10:1 incast experiment in its short form (tests/exp/ns3_incast.sh:
# scen_incast.cc for PowerTCP and CUBIC, 1-2 s each): the workload schema,
# INT flowing source -> switch -> echo -> CC, the incast no faster than its
# wire time, PowerTCP's queue below CUBIC's, the table and the plot.
if SHORT=1 CCS="powertcp cubic" OUT="$tmp/exp" bash tests/exp/ns3_incast.sh >"$tmp/exp.log" 2>&1; then
	t_pass "ns3: tests/exp/ns3_incast.sh SHORT=1 runs, every incast flow completes"
else
	t_fail "ns3: tests/exp/ns3_incast.sh SHORT=1 runs, every incast flow completes" "$(tail -n 3 "$tmp/exp.log" | tr '\n' ' ')"
fi
R="$tmp/exp/runs"
# 10 × 65536 B at 1 Gbit/s: 5.24 ms on the wire
jqv "ns3: incast, powertcp: schema dcbpf-workload/1, 10 of 10 incast flows, incast >= 5.24 ms wire time, INT published to the CC" \
	"$(cat "$R/powertcp-1000/powertcp.json" 2>/dev/null)" \
	'.schema == "dcbpf-workload/1" and .classes.incast.completed == 10 and .incast_ms >= 5.24
	 and .int.sourced > 1000 and .int.echoed > 1000 and .int.published > 1000 and .run.goodput_mbit > 900'
if [ "$(wc -l <"$R/powertcp-1000/powertcp.csv" 2>/dev/null)" = 12 ] &&
	head -n 1 "$R/powertcp-1000/powertcp.csv" | grep -q '^id,class,cc,src,dst,size_bytes,start_ns,fct_ns,ideal_ns,slowdown,rto_count,retrans,wait_ns$'; then
	t_pass "ns3: incast: per-flow CSV in the harness's columns, 11 flows"
else
	t_fail "ns3: incast: per-flow CSV in the harness's columns, 11 flows" "$(head -n 2 "$R/powertcp-1000/powertcp.csv" 2>&1 | tr '\n' ' ')"
fi
pq=$(jq '.[] | select(.label == "powertcp") | .queue.p99' "$tmp/exp/summary.json" 2>/dev/null)
cq=$(jq '.[] | select(.label == "cubic") | .queue.p99' "$tmp/exp/summary.json" 2>/dev/null)
if [ -n "$pq" ] && [ -n "$cq" ] && [ "$(jq -n "$pq * 2 < $cq")" = true ]; then
	t_pass "ns3: incast: PowerTCP's queue p99 ($pq B) under half CUBIC's ($cq B)"
else
	t_fail "ns3: incast: PowerTCP's queue p99 under half CUBIC's" "powertcp $pq, cubic $cq"
fi
if [ "$(wc -l <"$tmp/exp/runs.csv" 2>/dev/null)" = 3 ] && { ! command -v gnuplot >/dev/null || [ -s "$tmp/exp/queue.png" ]; }; then
	t_pass "ns3: incast: runs.csv has a row per CC, queue.png drawn"
else
	t_fail "ns3: incast: runs.csv has a row per CC, queue.png drawn" "$(tr '\n' ' ' <"$tmp/exp/runs.csv" 2>&1)"
fi
exit "${T_FAILED:-0}"
