# Integration: the baselines HPCC and TIMELY on real TCP between namespaces.
# A dumbbell with a 1 Gbit/s bottleneck whose switch fills INT, dcbpfd
# registering the CCs, and per CC two flows of a few seconds (the incast
# tool selects the CC before connecting) with the bottleneck queue sampled
# every ms.  Each CC must hold the bottleneck (a sanity floor of 10 % of
# it: throughput on this two-core machine is noisy) and keep the queue
# where its paper says it keeps it:
#   - HPCC (SIGCOMM'19, §3): near-zero queues, utilisation η = 95 %: the
#     median queue well below CUBIC's in the same switch, a few BDPs at most;
#   - TIMELY (SIGCOMM'15, §4): the RTT held below T_high, so the queue
#     stays within about T_high·rate (plus one GSO burst), far below CUBIC's
#     (T_low placed above this fabric's base RTT, as the paper places it).
# Also: the laws' counters, the flow mirror, `dcbpf trace --cc`, a live
# `dcbpf set` of a baseline key, and the BPF DCTCP registered by the daemon
# too ([daemon] dctcp = 1).
#
# Inside the VM (DCBPF_VM=1, emulated CPU, base RTT ~0.3 ms) the dumbbell
# runs at 100 Mbit/s (the smallest rate INT can report: docs/int.md) with τ
# measured, as in tests/integ/int.sh, and TIMELY's thresholds follow that
# base RTT (T_high = τ + 500 µs).
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/qwindow.sh
source tests/lib/fabric.sh
source tests/lib/dcbpfd.sh

export FAB_INT_ROOM=36
RATE=1000 TAU=60 T=3 BUF=2000000 VMNOTE=""
# The incast tool gives up after TMO s (a law stuck at its floor fails the
# throughput check instead of hanging the test).
TMO=$((T * 4))
[ "${DCBPF_VM:-0}" = 1 ] && RATE=100 T=4 TMO=40
LOG="$OUT/baseline"
mkdir -p "$LOG"
fabric_dumbbell 2 $RATE $BUF || { t_fail "baseline: dumbbell" "fabric could not be built"; exit 1; }
S0=${FAB_SENDERS[0]} S1=${FAB_SENDERS[1]} R=$FAB_RECV RIP=$FAB_RECV_IP
if [ "${DCBPF_VM:-0}" = 1 ]; then
	rtt=$(fabric_exec "$S0" ping -c 20 -i 0.05 -s 1400 -q "$RIP" | sed -nE 's|.* = ([0-9.]+)/.*|\1|p')
	TAU=$(awk -v r="${rtt:-0}" 'BEGIN { t = int((r * 1000 + 9) / 10) * 10; print (t < 60 ? 60 : t) }')
	VMNOTE="; VM: $RATE Mbit/s, τ = $TAU µs"
fi
# TIMELY's T_low sits above the fabric's base RTT, as in its paper (minRTT
# 20 µs, T_low 50 µs): here the base RTT is TAU, so T_low = TAU + 50 µs.
TLOW=$((TAU + 50)) THIGH=500
[ "${DCBPF_VM:-0}" = 1 ] && THIGH=$((TAU + 500))
DCBPFD_DAEMON="dctcp = 1" dcbpfd_start "base_rtt_us = $TAU" "host_bw_mbps = $RATE" \
	"t_low_us = $TLOW" "t_high_us = $THIGH" ||
	{ t_fail "baseline: dcbpfd registers hpcc and timely" "$DCBPFD_ERR"; exit 1; }
t_pass "baseline: dcbpfd registers hpcc and timely${VMNOTE:+ (${VMNOTE#; })}"
D=("$BUILD/dcbpf" --pin-dir "$DCBPFD_PIN")
st=$("${D[@]}" --json status 2>&1)
if jqe '.ccs.dctcp.registered == true and .ccs.dctcp.pinned != "none" and
	.ccs.hpcc.registered == true and .ccs.timely.registered == true' <<<"$st" >/dev/null; then
	t_pass "baseline: dctcp = 1 registers dctcp too; dcbpf status shows it ($(jq -r .ccs.dctcp.pinned <<<"$st") pinned)"
else
	t_fail "baseline: dctcp = 1 registers dctcp too" "$(jq -c .ccs <<<"$st" 2>/dev/null || echo "$st" | head -c 300)"
fi

# INT on the dumbbell: the switch fills its hop, the receiver echoes it.
int_down() {
	local i
	[ -n "${INT_UP:-}" ] || return 0
	INT_UP=""
	for ((i = 0; i < ${#FAB_SENDERS[@]}; i++)); do
		"${D[@]}" int detach --netns "${FAB_SENDERS[i]}" "${FAB_SENDER_DEVS[i]}"
	done
	"${D[@]}" int detach --netns "$R" "$FAB_RECV_DEV"
	"${D[@]}" int switch detach bl
	"${D[@]}" switch down bl
} >/dev/null 2>&1
fabric_on_exit int_down
int_up() {
	local ports rates i
	ports=$(IFS=,; echo "${FAB_SW_PORTS[*]},$FAB_BN_DEV")
	rates=$(for ((i = 0; i < ${#FAB_SW_PORTS[@]}; i++)); do printf '10000,'; done; echo "$RATE")
	INT_UP=1
	"${D[@]}" switch up --netns "$FAB_SWITCH" --ports "$ports" --rate-mbps "$rates" bl \
		alg=cs buffer_bytes=$BUF && "${D[@]}" int switch attach bl || return 1
	for ((i = 0; i < ${#FAB_SENDERS[@]}; i++)); do
		"${D[@]}" int attach --netns "${FAB_SENDERS[i]}" "${FAB_SENDER_DEVS[i]}" || return 1
	done
	"${D[@]}" int attach --netns "$R" "$FAB_RECV_DEV" && "${D[@]}" int dst add "$RIP/32"
}
int_up >"$LOG/int-setup.log" 2>&1 || { t_fail "baseline: INT on the dumbbell" "$(tail -c 300 "$LOG/int-setup.log")"; exit 1; }

stat_of() { bpftool map dump pinned "$DCBPFD_PIN/dc_cc_stats" -j | jq ".[] | .formatted | select(.key == $1) | .value.$2"; }
flows_of() { bpftool map dump pinned "$DCBPFD_PIN/dc_cc_flows" -j | jq -c "[.[].formatted.value | select(.cc == $1)]"; }

fabric_bg "$R" "$BUILD/tools/incast" sink -p 5301
fabric_wait_port "$R" 5301 || { t_fail "baseline: incast sink" "not listening"; exit 1; }
BYTES=$((RATE * 1000000 / 8 * T / 2 * 95 / 100))

# run CC: two flows of BYTES, the bottleneck sampled every 1 ms; prints
# "util_pct p50 p99 mbps n" (queue in bytes over n samples, from 0.5 s after the start to
# 0.2 s before the flows complete; throughput from the TBF's byte counter),
# and leaves the flow mirror seen mid-run in $LOG/flows-CC.json.
run() {
	local cc=$1 id=$2 qpid cpid
	fabric_bg "$FAB_SWITCH" "$BUILD/tools/qsample" -d "$FAB_BN_DEV" -i 1000 -t $TMO -o "$LOG/q-$cc.csv"
	qpid=$FAB_LAST_PID
	"$BUILD/tools/incast" client -d "$RIP" -p 5301 -n "$S0,$S1" -s $BYTES -c "$cc" -t $TMO \
		>"$LOG/run-$cc.json" 2>"$LOG/run-$cc.err" &
	cpid=$!
	sleep 1
	[ "$id" -ge 0 ] && flows_of "$id" >"$LOG/flows-$cc.json"
	wait $cpid
	kill -TERM "$qpid" 2>/dev/null
	wait "$qpid" 2>/dev/null
	qwindow "$LOG/run-$cc.json" "$LOG/q-$cc.csv" 500 200 "$RATE"
}

read -r util_c p50_c p99_c mbps_c n_c <<<"$(run cubic -1)"
read -r util_h p50_h p99_h mbps_h n_h <<<"$(run hpcc 2)"
read -r util_t p50_t p99_t mbps_t n_t <<<"$(run timely 3)"
# A TIMELY transfer sometimes misses the tool's deadline (0 queue samples: the flows did not
# complete in TMO s): under emulation the CPU's RTT samples swing past T_high, each one a
# multiplicative cut; on an idle host once in six suite runs (one flow unfinished at the
# deadline: 176.2 of 178.1 MB counted sent). One more run, with the first run's reason kept
# for the verdicts.
why_t=""
if [ "${n_t:-0}" -eq 0 ]; then
	why_t="first run: $(tr '\n' ' ' <"$LOG/run-timely.err" | tail -c 200)"
	cp "$LOG/run-timely.err" "$LOG/run-timely-1.err"
	read -r util_t p50_t p99_t mbps_t n_t <<<"$(run timely 3)"
fi
err_t() { echo "${why_t:+$why_t; }$(tr '\n' ' ' <"$LOG/run-timely.err" | tail -c 200)"; }
{
	echo "cubic:  util=$util_c% p50=$p50_c p99=$p99_c mbps=$mbps_c samples=$n_c"
	echo "hpcc:   util=$util_h% p50=$p50_h p99=$p99_h mbps=$mbps_h samples=$n_h"
	echo "timely: util=$util_t% p50=$p50_t p99=$p99_t mbps=$mbps_t samples=$n_t"
} | tee "$LOG/summary.txt"
# A queue verdict needs flows that completed, with queue samples between
# start and completion (an empty window would read as an empty queue).
MINSAMP=100

# --- HPCC ------------------------------------------------------------------
if jqe 'length > 0 and any(.[]; .mode == 2 and .int_acks > 100 and .cwnd_bytes > 0)' \
	"$LOG/flows-hpcc.json" >/dev/null; then
	t_pass "baseline: hpcc flows run on INT (mode 2, mirrored in dc_cc_flows)"
else
	t_fail "baseline: hpcc flows run on INT" "$(head -c 300 "$LOG/flows-hpcc.json")"
fi
ia=$(stat_of 2 int_acks) im=$(stat_of 2 int_missing) cu=$(stat_of 2 cwnd_updates)
if [ "${ia:-0}" -gt 0 ] && [ "${cu:-0}" -gt 0 ] && [ "${im:-0}" -lt "${ia:-0}" ]; then
	t_pass "baseline: hpcc counters: $ia ACKs with INT, $cu window updates, $im without INT"
else
	t_fail "baseline: hpcc counters" "int_acks=$ia cwnd_updates=$cu int_missing=$im"
fi
[ "${util_h:-0}" -ge 10 ] && t_pass "baseline: hpcc holds the bottleneck ($mbps_h Mbit/s of $RATE)" ||
	t_fail "baseline: hpcc holds the bottleneck" "$mbps_h Mbit/s of $RATE (floor 10 %)"
# Near-zero queue: median within 4 BDPs of the base RTT (≥ one 64 KB GSO
# burst) and at most a quarter of CUBIC's.
bdp=$((RATE * TAU / 8))
lim=$((4 * bdp > 65536 ? 4 * bdp : 65536))
if [ "${n_h:-0}" -ge $MINSAMP ] && [ "${p50_h:-0}" -le "$lim" ] && [ "${p50_h:-0}" -le $((${p50_c:-0} / 4)) ]; then
	t_pass "baseline: hpcc keeps the queue near zero (p50 $p50_h B, p99 $p99_h B; cubic p50 $p50_c B)"
else
	t_fail "baseline: hpcc keeps the queue near zero" "p50 $p50_h B (limit $lim, cubic p50 $p50_c B), p99 $p99_h B, $n_h samples (want $MINSAMP)"
fi

# --- TIMELY ----------------------------------------------------------------
if jqe 'length > 0 and any(.[]; .mode == 1 and .cwnd_updates > 0 and .pacing_rate_Bps > 0)' \
	"$LOG/flows-timely.json" >/dev/null; then
	t_pass "baseline: timely flows run the RTT law (mirrored in dc_cc_flows)"
else
	t_fail "baseline: timely flows run the RTT law" "$(head -c 300 "$LOG/flows-timely.json")"
fi
inc=$(stat_of 3 rate_increases) dec=$(stat_of 3 rate_decreases)
if [ "${inc:-0}" -gt 0 ] && [ "${dec:-0}" -gt 0 ]; then
	t_pass "baseline: timely raises and cuts its rate ($inc increases, $dec decreases)"
else
	t_fail "baseline: timely raises and cuts its rate" "rate_increases=$inc rate_decreases=$dec"
fi
[ "${util_t:-0}" -ge 10 ] && t_pass "baseline: timely holds the bottleneck ($mbps_t Mbit/s of $RATE)" ||
	t_fail "baseline: timely holds the bottleneck" "$mbps_t Mbit/s of $RATE (floor 10 %); $(err_t)"
# RTT below T_high: queue within T_high·rate + one 64 KB burst.
lim=$((RATE * THIGH / 8 + 65536))
if [ "${n_t:-0}" -ge $MINSAMP ] && [ "${p50_t:-0}" -le "$lim" ] && [ "${p50_t:-0}" -le $((${p50_c:-0} / 4)) ]; then
	t_pass "baseline: timely keeps the queue below T_high (p50 $p50_t B, p99 $p99_t B; limit $lim B)"
else
	t_fail "baseline: timely keeps the queue below T_high" "p50 $p50_t B (limit $lim, cubic p50 $p50_c B), p99 $p99_t B, $n_t samples (want $MINSAMP); $(err_t)"
fi

# --- live parameters and trace ----------------------------------------------
"${D[@]}" set timely.t_high_us=800 hpcc.eta=0.9 >"$LOG/set.txt" 2>&1
cfg=$(bpftool map dump pinned "$DCBPFD_PIN/dc_cc_cfg" -j | jq -c '[.[].formatted | {key, t: .value.t_high_us, e: .value.eta_q16}]')
if jqe 'any(.[]; .key == 3 and .t == 800) and any(.[]; .key == 2 and .e == 58982) and
	any(.[]; .key == 0 and .t == '"$THIGH"')' <<<"$cfg" >/dev/null; then
	t_pass "baseline: dcbpf set timely.t_high_us / hpcc.eta reach their CC's entry only"
else
	t_fail "baseline: dcbpf set of baseline keys" "$cfg $(head -c 200 "$LOG/set.txt")"
fi
"$BUILD/tools/incast" client -d "$RIP" -p 5301 -n "$S0" -s $((BYTES / 2)) -c hpcc -t $((T * 4)) >/dev/null 2>&1 &
cpid=$!
timeout $((T * 4)) "${D[@]}" trace --csv --cc hpcc --count 50 >"$LOG/trace.csv" 2>&1
trc=$?
wait $cpid
# 50 decisions of hpcc, each with a window but the flow's very first (mode
# init: no window computed yet, when the trace starts before it); all but the
# first few of the flow (before its first echo arrives) on INT.
rows=$(awk -F, 'NR > 1 && $6 == "hpcc" && ($8 > 0 || $7 == "init")' "$LOG/trace.csv" | wc -l)
irows=$(awk -F, 'NR > 1 && $6 == "hpcc" && $7 == "int"' "$LOG/trace.csv" | wc -l)
if [ $trc -eq 0 ] && [ "$rows" -eq 50 ] && [ "$irows" -ge 45 ]; then
	t_pass "baseline: dcbpf trace --cc hpcc streams 50 decisions ($irows on INT)"
else
	t_fail "baseline: dcbpf trace --cc hpcc" "rc=$trc rows=$rows int=$irows: $(head -c 300 "$LOG/trace.csv")"
fi

# A transfer on the daemon's DCTCP (no ECN marking here: it runs as Reno).
if "$BUILD/tools/incast" client -d "$RIP" -p 5301 -n "$S0" -s 1000000 -c dctcp -t $((T * 4)) \
	>"$LOG/run-dctcp.json" 2>"$LOG/run-dctcp.err" &&
	jqe '.per_round[0].completion_ms > 0' "$LOG/run-dctcp.json" >/dev/null; then
	t_pass "baseline: a transfer runs on the daemon-registered dctcp"
else
	t_fail "baseline: a transfer runs on the daemon-registered dctcp" "$(head -c 300 "$LOG/run-dctcp.err")"
fi

int_down
dcbpfd_stop
if grep -qwE 'hpcc|timely|dctcp' /proc/sys/net/ipv4/tcp_available_congestion_control; then
	t_fail "baseline: stopping dcbpfd unregisters hpcc, timely and dctcp" "still registered"
else
	t_pass "baseline: stopping dcbpfd unregisters hpcc, timely and dctcp"
fi
