# Integration: DCTCP (bpf/dctcp.bpf.c) over a switch that marks ECN.
# Dumbbell of two senders through the XDP admission switch (DT, B = 1 MB,
# ecn_k_bytes = K) to one receiver behind a TBF.  Two long iperf3 flows
# per run, the bottleneck queue sampled every 1 ms; first with dctcp, then
# with cubic through the same switch.  Checks: ECN is negotiated and the
# switch marks; the senders see ECE on part of their bytes, α is learnt
# (strictly between 0 and 1), the window is cut, and the receiver's CE
# echo runs; the queue stays near K (median far below CUBIC's); the TBF
# carries ≥ 80 % of its rate (typically 93–99 %; on 6.18 a run can lose a
# few hundred ms to a timeout after the cwnd-reduction episodes described
# in docs/collective.md "Known issues"); a connection to a peer that refuses ECN
# runs without it (counted, and no ECE).
#
# Inside the VM (DCBPF_VM=1) the guest's CPU limits the path (under TCG
# CUBIC reached 73 % of 100 Mbit/s through this switch): the dumbbell runs
# at 20 Mbit/s there, as in cc.sh, with K = 8 kB, and flows run longer.
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.
# shellcheck disable=SC2015
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/qwindow.sh
source tests/lib/fabric.sh
source tests/lib/dctcp.sh

DCBPF="$BUILD/dcbpf"
LOG="$OUT/dctcp"
mkdir -p "$LOG"
RATE=1000 K=30000 T=4 VMNOTE=""
if [ "${DCBPF_VM:-0}" = 1 ]; then
	RATE=20 K=8000 T=8 VMNOTE=" (VM: $RATE Mbit/s)"
fi
B=1000000		# switch buffer: DT α = 1 lets one queue reach B/2
QLIMIT=8000000		# TBF limit far above B: the switch is the only dropper
SW=dct$$
SW=${SW:0:15}
PIN=/sys/fs/bpf/dcbpf-dctcp$$

cleanup() {
	"$DCBPF" --pin-dir "$PIN" switch down "$SW" >/dev/null 2>&1
	rm -rf "$PIN"
	dctcp_unregister
}

fabric_dumbbell 2 $RATE $QLIMIT || { t_fail "dctcp: dumbbell" "fabric could not be built"; exit 1; }
fabric_on_exit cleanup
dctcp_register || { t_fail "dctcp: register build/dctcp.bpf.o" "$DCTCP_ERR"; exit 1; }
t_pass "dctcp: struct_ops dc_dctcp registers as \"dctcp\""
S0=${FAB_SENDERS[0]} S1=${FAB_SENDERS[1]} R=$FAB_RECV RIP=$FAB_RECV_IP

plist=$(IFS=,; echo "${FAB_SW_PORTS[*]},$FAB_BN_DEV")
if ! out=$("$DCBPF" --pin-dir "$PIN" switch up "$SW" --netns "$FAB_SWITCH" --ports "$plist" \
	--rate-mbps $RATE alg=dt alpha=1 buffer_bytes=$B ecn_k_bytes=$K 2>&1); then
	t_fail "dctcp: dcbpf switch up with ecn_k_bytes=$K" "$out"; exit 1
fi
marks() { "$DCBPF" --pin-dir "$PIN" --json switch status "$SW" | jq '[.ports[].ecn_marked_pkts] | add'; }
drops() { "$DCBPF" --pin-dir "$PIN" --json switch status "$SW" | jq '[.ports[] | .drop_thresh_pkts + .drop_full_pkts] | add'; }

# Flows: the incast tool, which selects the CC before connecting (a CC
# that needs ECN negotiates it in the SYN; iperf3 sets it only after
# connect) and whose sink sets it on the listener, so the receiver runs
# dctcp's CE echo too.  Two flows of BYTES each last about T s.
BYTES=$((RATE * 1000000 / 8 * T / 2 * 95 / 100))
fabric_bg "$R" "$BUILD/tools/incast" sink -p 5301 -c dctcp
fabric_bg "$R" "$BUILD/tools/incast" sink -p 5302 -c cubic
fabric_wait_port "$R" 5301 && fabric_wait_port "$R" 5302 ||
	{ t_fail "dctcp: incast sinks" "not listening"; exit 1; }

# run CC PORT: two flows of BYTES, the bottleneck sampled every 1 ms;
# prints "util_pct p50 p99 tbf_mbps samples" (tests/lib/qwindow.sh; queue in bytes; window from 1 s
# after the start to 0.3 s before the collective's completion; throughput
# from the TBF's byte counter).
run() {
	local cc=$1 port=$2 qpid cpid
	fabric_bg "$FAB_SWITCH" "$BUILD/tools/qsample" -d "$FAB_BN_DEV" -i 1000 -t $((T * 3)) -r -o "$LOG/q-$cc.csv"
	qpid=$FAB_LAST_PID
	"$BUILD/tools/incast" client -d "$RIP" -p "$port" -n "$S0,$S1" -s $BYTES -c "$cc" -t $((T * 4)) \
		>"$LOG/flows-$cc.json" 2>"$LOG/flows-$cc.err" &
	cpid=$!
	sleep 1.5
	fabric_exec "$S0" ss -tin dst "$RIP" >"$LOG/ss-$cc-tx.txt"
	fabric_exec "$R" ss -tin src "$RIP" >"$LOG/ss-$cc-rx.txt"
	wait $cpid
	kill -TERM "$qpid" 2>/dev/null
	wait "$qpid" 2>/dev/null
	qwindow "$LOG/flows-$cc.json" "$LOG/q-$cc.csv" 1000 300 "$RATE"
}

m0=$(marks) d0=$(drops)
read -r util_d p50_d p99_d mbps_d _ <<<"$(run dctcp 5301)"
m1=$(marks) d1=$(drops)
cms=$(jq '.per_round[0].completion_ms // 0 | floor' "$LOG/flows-dctcp.json" 2>/dev/null)
echo "dctcp: util=$util_d% p50=$p50_d p99=$p99_d tbf=$mbps_d completion_ms=$cms marks=$((m1 - m0)) drops=$((d1 - d0))" | tee "$LOG/summary.txt"
[ "${cms:-0}" -gt 0 ] && t_pass "dctcp: two flows of $((BYTES / 1000000)) MB complete ($cms ms)" ||
	t_fail "dctcp: two flows complete" "$(head -c 300 "$LOG/flows-dctcp.err")"
# ss -ti shows the CC on both ends (this iproute2 prints no ECN option
# flags with this kernel; ECN is asserted from the CC's own counter next)
if grep -q " dctcp " "$LOG/ss-dctcp-tx.txt" && grep -q " dctcp " "$LOG/ss-dctcp-rx.txt"; then
	t_pass "dctcp: both ends of the flows run dctcp (ss -ti)"
else
	t_fail "dctcp: both ends run dctcp" "ss: $(tr '\n' ' ' <"$LOG/ss-dctcp-tx.txt" | tr -s ' ' | cut -c1-300)"
fi
ecnf=$(dctcp_stat ecn_flows) flows=$(dctcp_stat flows)
# 2 connections, both ends each
[ "$ecnf" -ge 4 ] && [ "$ecnf" = "$flows" ] &&
	t_pass "dctcp: every dctcp connection negotiated ECN ($ecnf of $flows sockets)" ||
	t_fail "dctcp: every dctcp connection negotiated ECN" "ecn_flows $ecnf of $flows"
[ $((m1 - m0)) -gt 100 ] && t_pass "dctcp: the switch marks CE above K = $K B ($((m1 - m0)) packets)" ||
	t_fail "dctcp: the switch marks CE above K" "$((m1 - m0)) marked"
ack=$(dctcp_stat acked_bytes) ece=$(dctcp_stat ece_bytes) win=$(dctcp_stat windows)
mw=$(dctcp_stat marked_windows) cuts=$(dctcp_stat cuts)
dw=$(dctcp_stat data_windows) asum=$(dctcp_stat alpha_sum_q16)
alpha=$((asum / (dw > 0 ? dw : 1)))
flips=$(dctcp_stat rx_ce_flips)
echo "stats: acked=$ack ece=$ece windows=$win marked_windows=$mw cuts=$cuts data_windows=$dw mean_alpha_q16=$alpha rx_ce_flips=$flips rx_ce_acks=$(dctcp_stat rx_ce_acks) losses=$(dctcp_stat losses)" | tee -a "$LOG/summary.txt"
# The marked fraction of bytes: some, not all (a sender that saw ECE on
# everything would be echoing classic ECN, not DCTCP's exact marks).
if [ "$ece" -gt 0 ] && [ $((ece * 100 / (ack + 1))) -lt 60 ]; then
	t_pass "dctcp: senders see ECE on part of their bytes ($((ece * 100 / (ack + 1))) % of $((ack / 1000000)) MB)"
else
	t_fail "dctcp: senders see ECE on part of their bytes" "ece $ece of $ack bytes"
fi
if [ "$alpha" -gt 0 ] && [ "$alpha" -lt 65536 ] && [ "$mw" -gt 10 ] && [ "$mw" -lt "$win" ]; then
	t_pass "dctcp: α learnt per window (mean α of the senders $((alpha * 1000 / 65536))/1000; $mw of $win windows marked)"
else
	t_fail "dctcp: α learnt per window" "mean alpha_q16 $alpha over $dw data windows, $mw of $win windows marked"
fi
# TCP enters CWR at most once per window: cuts ≤ marked windows (+ one
# per connection for a window that straddles the α update)
if [ "$cuts" -gt 0 ] && [ "$cuts" -le $((mw + flows)) ]; then
	t_pass "dctcp: the window is cut at most once per marked window ($cuts cuts, $mw marked windows)"
else
	t_fail "dctcp: cut once per marked window" "$cuts cuts, $mw marked windows"
fi
[ "$flips" -gt 0 ] && t_pass "dctcp: the receiver follows the CE state of the data ($flips changes)" ||
	t_fail "dctcp: the receiver follows the CE state of the data" "no CE state change seen"
[ "$util_d" -ge 80 ] && t_pass "dctcp: bottleneck carries $util_d % of $RATE Mbit/s (≥ 80 %)$VMNOTE" ||
	t_fail "dctcp: bottleneck utilisation ≥ 80 %" "$util_d % ($mbps_d Mbit/s of $RATE)"

read -r util_c p50_c p99_c mbps_c _ <<<"$(run cubic 5302)"
echo "cubic: util=$util_c% p50=$p50_c p99=$p99_c tbf=$mbps_c" | tee -a "$LOG/summary.txt"
# "Near K": the median queue within K + 16 KB (a GSO burst) and far below
# the queue CUBIC builds in the same switch (its p99, near the buffer in
# every run: CUBIC's median is not, a run with a timeout had it at 91 kB
# where others had 350-450 kB).  The share of samples above 2K and the p99
# are reported, not asserted: episodes of tens of ms at the DT limit
# remain (docs/collective.md, "Known issues"; 0-31 % of samples).
above=$(awk -F, -v k=$((2 * K)) '$2 > k { a++ } END { print int(100 * a / (NR ? NR : 1)) }' "$LOG/q-dctcp.win")
if [ "$p50_d" -le $((K + 16384)) ] && [ $((p50_d * 5)) -lt "$p99_c" ]; then
	t_pass "dctcp: queue near K = $K B: p50 $p50_d B ($above % of samples above 2K; p99 $p99_d B), CUBIC p50/p99 $p50_c/$p99_c B"
else
	t_fail "dctcp: queue near K, its median well below CUBIC's p99" "dctcp p50/p99 $p50_d/$p99_d ($above % above 2K), cubic p50/p99 $p50_c/$p99_c, K $K"
fi

# --- a peer that refuses ECN: no ECN, no ECE, still moves data ----------------
f0=$(dctcp_stat flows) e0=$(dctcp_stat ecn_flows) x0=$(dctcp_stat ece_bytes)
fabric_exec "$R" sysctl -qw net.ipv4.tcp_ecn=0
# the incast sink keeps its namespace's default CC (not dctcp), so with
# tcp_ecn=0 it does not accept ECN
fabric_bg "$R" "$BUILD/tools/incast" sink -p 5203
fabric_wait_port "$R" 5203
"$BUILD/tools/incast" client -d "$RIP" -p 5203 -n "$S0" -s 4000000 -c dctcp -t 20 >"$LOG/incast-noecn.json" 2>&1
f1=$(dctcp_stat flows) e1=$(dctcp_stat ecn_flows) x1=$(dctcp_stat ece_bytes)
gb=$(jq '.total_bytes // 0' "$LOG/incast-noecn.json")
if [ $((f1 - f0)) -ge 1 ] && [ "$e1" = "$e0" ] && [ "$x1" = "$x0" ] && [ "${gb:-0}" -gt 1000000 ]; then
	t_pass "dctcp: towards a peer without ECN it runs without it ($((f1 - f0)) connections, none ECN, $((gb / 1000000)) MB)"
else
	t_fail "dctcp: towards a peer without ECN" "flows +$((f1 - f0)), ecn_flows +$((e1 - e0)), ece bytes +$((x1 - x0)), $gb bytes"
fi

fabric_teardown
if dctcp_available && [ "$DCTCP_OWNED" = 0 ]; then
	t_pass "dctcp: left registered by its previous owner"
elif dctcp_available; then
	t_fail "dctcp: unregistered at teardown" "still in tcp_available_congestion_control"
else
	t_pass "dctcp: unregistered at teardown"
fi
