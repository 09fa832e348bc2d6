# Integration: Credence in XDP on a namespace fabric (tests/lib/credfab.sh:
# incast to r0 from four senders, a long iperf3 flow to r1).  Checks:
# without a model Credence admits where it would ask and counts it; with a
# trained model (dcbpf credence train) the prediction is consulted on the
# live switch; models swap live many times during traffic without losing
# the long flow or an incast round; a malformed model is refused and the
# running one stays; dcbpf switch capture writes a trace dcbpf sim and
# dcbpf credence train read; dcbpf trace --switch streams the drops;
# switch down leaves nothing behind.
# host-suite: Credence's XDP decisions on 6.1 are proven by prog/test_cred_xdp (the forest
# against the core, packet by packet) and a live switch's model load by integ/credence_load.sh;
# this test's live swaps under traffic are user space over map updates, 73 s under emulation.
# shellcheck shell=bash
# SC2317: cleanup runs from the EXIT trap.
# shellcheck disable=SC2317
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/fabric.sh
source tests/lib/credfab.sh

DCBPF="$BUILD/dcbpf"
RATE=1000
# Under emulation the guest's CPU limits the path: a tenth of the rate
# lets the port queues build again (as tests/integ/admit.sh).
[ "${DCBPF_VM:-0}" = 1 ] && RATE=100
B=1000000
QLIMIT=20000000
NET=79
SW=cred$$
SW=${SW:0:15}
PIN=/sys/fs/bpf/dcbpf-cred$$
LOG="$OUT/credence"
TMP=$(mktemp -d /tmp/dcbpf-cred.XXXXXX)
mkdir -p "$LOG"
D=("$DCBPF" --pin-dir "$PIN")

cleanup() {
	"$DCBPF" --pin-dir "$PIN" switch down "$SW" >/dev/null 2>&1
	rm -rf "$PIN" "$TMP"
}

fabric_init || { t_fail "credence: fabric" "fabric_init failed"; exit 1; }
fabric_on_exit cleanup
credfab_build || { t_fail "credence: two-output fabric" "builder failed or unreachable"; exit 1; }
plist=$(IFS=,; echo "${PORTS[*]}")
if out=$("${D[@]}" switch up "$SW" --netns "$SWNS" --ports "$plist" --rate-mbps "$RATE" \
	buffer_bytes=$B alg=credence 2>&1); then
	t_pass "credence: switch up with alg=credence"
else
	t_fail "credence: switch up with alg=credence" "$out"; exit 1
fi
links_before=$(for f in "$PIN/sw/$SW"/link_*; do bpftool link show pinned "$f" 2>/dev/null | head -n1 | cut -d: -f1; done | sort | tr '\n' ' ')

# Models: two trained forests, and a malformed file (a leaf above 1).
"$DCBPF" credence train --slots 20000 --seed 3 --out "$TMP/a" >/dev/null 2>"$LOG/train.err" &&
	"$DCBPF" credence train --slots 20000 --seed 4 --trees 2 --out "$TMP/b" >/dev/null 2>>"$LOG/train.err" ||
	{ t_fail "credence: train two models" "$(tail -n 2 "$LOG/train.err")"; exit 1; }

stat_port() { "${D[@]}" --json switch status "$SW" | jq -r --argjson p "$1" ".ports[] | select(.port == \$p) | $2"; }

fabric_bg "${RNS[1]}" sh -c 'exec iperf3 -s -p 5201 >/dev/null 2>&1'
fabric_bg "${RNS[1]}" sh -c 'exec iperf3 -s -p 5202 >/dev/null 2>&1'
fabric_bg "${RNS[0]}" sh -c "exec '$BUILD/tools/incast' sink -p 5999 >/dev/null 2>&1"
fabric_wait_port "${RNS[1]}" 5201 && fabric_wait_port "${RNS[1]}" 5202 &&
	fabric_wait_port "${RNS[0]}" 5999 ||
	{ t_fail "credence: servers" "iperf3 or incast sink did not start"; exit 1; }
fabric_exec "${SNS[4]}" iperf3 -c "${RIP[1]}" -p 5201 -t 22 -J >"$LOG/longflow.json" 2>&1 &
LF_PID=$!
sleep 1
incast() { # NAME ROUNDS → 0 if every round completed
	local ns
	ns=$(IFS=,; echo "${SNS[*]:0:4}")
	"$BUILD/tools/incast" client -d "${RIP[0]}" -p 5999 -n "$ns" -f 4 -s 150000 -r "$2" -g 100 \
		-t 20 >"$LOG/incast_$1.json" 2>"$LOG/incast_$1.err"
}

# --- no model: Credence admits where it would ask ---------------------------------
nm0=$(stat_port "$P_IN" .pred_nomodel_pkts)
incast nomodel 3 || t_fail "credence: incast without a model" "$(tail -n1 "$LOG/incast_nomodel.err")"
nm1=$(stat_port "$P_IN" .pred_nomodel_pkts)
ask1=$(stat_port "$P_IN" .pred_asked_pkts)
if [ "$((nm1 - nm0))" -gt 0 ] && [ "$ask1" = 0 ]; then
	t_pass "credence: without a model the would-be predictions are admitted and counted ($((nm1 - nm0)))"
else
	t_fail "credence: without a model the would-be predictions are counted" "no_model $nm0 → $nm1, asked $ask1"
fi

# --- a trained model: the prediction is consulted ------------------------------------
"${D[@]}" credence load "$TMP/a" --switch "$SW" >/dev/null 2>"$LOG/load.err" ||
	t_fail "credence: load model a" "$(cat "$LOG/load.err")"
nm1=$(stat_port "$P_IN" .pred_nomodel_pkts)	# stragglers of the last round counted before the load
incast model_a 3 || t_fail "credence: incast with model a" "$(tail -n1 "$LOG/incast_model_a.err")"
ask2=$(stat_port "$P_IN" .pred_asked_pkts)
nm2=$(stat_port "$P_IN" .pred_nomodel_pkts)
if [ "$ask2" -gt 0 ] && [ "$nm2" = "$nm1" ]; then
	t_pass "credence: with a loaded model the incast queue consults the forest ($ask2 predictions, $(stat_port "$P_IN" .drop_pred_pkts) prediction drops)"
else
	t_fail "credence: with a loaded model the forest is consulted" "asked $ask2, no_model $nm1 → $nm2"
fi
"${D[@]}" switch status "$SW" >"$LOG/status.txt" 2>&1
grep -q "credence model: 4 trees, depth 4" "$LOG/status.txt" && grep -q "pred_ask" "$LOG/status.txt" &&
	t_pass "credence: switch status shows the model and the prediction counters" ||
	t_fail "credence: switch status shows the model" "$(head -n 4 "$LOG/status.txt" | tr '\n' '|')"

# --- the drain rule: hybrid by default, switchable live, a bad value refused ----------
dr0=$("${D[@]}" --json switch status "$SW" | jq -r .cred_drain)
"${D[@]}" set "sw.$SW.cred_drain=time" >/dev/null 2>&1
dr1=$("${D[@]}" --json switch status "$SW" | jq -r .cred_drain)
"${D[@]}" set "sw.$SW.cred_drain=fastest" >/dev/null 2>"$LOG/drain_bad.err"
bad_rc=$?
dr2=$("${D[@]}" --json switch status "$SW" | jq -r .cred_drain)
"${D[@]}" set "sw.$SW.cred_drain=hybrid" >/dev/null 2>&1
if [ "$dr0" = hybrid ] && [ "$dr1" = time ] && [ "$bad_rc" = 2 ] && [ "$dr2" = time ] &&
	grep -q "time, departures or hybrid" "$LOG/drain_bad.err"; then
	t_pass "credence: cred_drain is hybrid by default, set live to time, an unknown rule refused (exit 2, unchanged)"
else
	t_fail "credence: cred_drain" "default $dr0, after set $dr1, bad rc $bad_rc → $dr2: $(cat "$LOG/drain_bad.err")"
fi

# --- drop trace, then capture, each while an incast runs (one ring consumer at a time) ----
"${D[@]}" trace --switch "$SW" --csv --count 20 --duration 8 >"$LOG/drops.csv" 2>"$LOG/drops.err" &
TR_PID=$!
sleep 0.5
incast traced 3
wait "$TR_PID"; tr_rc=$?
"${D[@]}" switch capture "$SW" --out "$TMP/cap.csv" --count 3000 --duration 8 2>"$LOG/capture.err" &
CAP_PID=$!
sleep 0.5
incast captured 3
wait "$CAP_PID"; cap_rc=$?
ndrops=$(($(wc -l <"$LOG/drops.csv") - 1))
if [ "$tr_rc" = 0 ] && [ "$ndrops" -ge 1 ] &&
	awk -F, 'NR > 1 && !($6 ~ /^(thresh|full|pred)$/ && $5 > 0) { bad = 1 } END { exit bad }' "$LOG/drops.csv"; then
	t_pass "credence: dcbpf trace --switch streams admission drops with a reason ($ndrops rows)"
else
	t_fail "credence: dcbpf trace --switch streams drops" "rc $tr_rc, $ndrops rows: $(head -n 3 "$LOG/drops.csv" | tr '\n' '|') $(cat "$LOG/drops.err")"
fi
ncap=$(grep -cE '^[0-9]' "$TMP/cap.csv" 2>/dev/null || echo 0)
if [ "$cap_rc" = 0 ] && [ "$ncap" -ge 1000 ] &&
	"$DCBPF" sim --trace "$TMP/cap.csv" --alg lqd --ports 7 --buffer $B --mode byte \
		--slot-ns 1000 --slot-bytes $((RATE / 8)) >"$LOG/sim_cap.txt" 2>&1 &&
	"$DCBPF" credence train --trace "$TMP/cap.csv" --ports 7 --buffer $B --mode byte \
		--slot-ns 1000 --slot-bytes $((RATE / 8)) \
		--out "$TMP/c" >"$LOG/train_cap.txt" 2>&1; then
	t_pass "credence: switch capture writes a trace that dcbpf sim replays and credence train learns from ($ncap arrivals)"
	cp "$TMP/cap.csv" "$LOG/capture.csv"
else
	t_fail "credence: switch capture → sim → train" "rc $cap_rc, $ncap rows; $(tail -n 2 "$LOG/capture.err" "$LOG/sim_cap.txt" "$LOG/train_cap.txt" 2>/dev/null | tr '\n' ' ')"
fi
[ "$(jq .ev_sample_every <("${D[@]}" --json switch status "$SW"))" = 0 ] &&
	[ "$(jq .ev_drops <("${D[@]}" --json switch status "$SW"))" = 0 ] &&
	t_pass "credence: capture and trace switch the events off again" ||
	t_fail "credence: capture and trace switch the events off again" "still on"

# --- live swaps during traffic ------------------------------------------------------------
# a second long flow, alive for the whole swap phase whatever the pace
fabric_exec "${SNS[3]}" iperf3 -c "${RIP[1]}" -p 5202 -t 4 -J >"$LOG/longflow_swaps.json" 2>&1 &
LF2_PID=$!
incast swaps 6 &
IC_PID=$!
nswap=0 swap_err=0
for k in $(seq 1 30); do
	m=$TMP/a; [ $((k % 2)) = 0 ] && m=$TMP/b
	"${D[@]}" credence load "$m" --switch "$SW" >/dev/null 2>&1 && nswap=$((nswap + 1)) || swap_err=$((swap_err + 1))
	sleep 0.03
done
wait "$IC_PID"; ic_rc=$?
wait "$LF2_PID"
rounds=$(jq '.per_round | length' "$LOG/incast_swaps.json" 2>/dev/null || echo 0)
lf2=$(jq -r '.error // "ok"' "$LOG/longflow_swaps.json" 2>/dev/null)
lf2_mb=$(jq -r '(.end.sum_received.bytes // 0) / 1e6 | floor' "$LOG/longflow_swaps.json" 2>/dev/null)
if [ "$swap_err" = 0 ] && [ "$ic_rc" = 0 ] && [ "$rounds" = 6 ] && [ "$lf2" = ok ] && [ "${lf2_mb:-0}" -gt 0 ]; then
	t_pass "credence: $nswap live model swaps during an incast and a long flow: every round completes, the flow carries $lf2_mb MB"
else
	t_fail "credence: live swaps during traffic" "$swap_err failed loads, incast rc $ic_rc ($rounds rounds), long flow: $lf2, ${lf2_mb:-0} MB"
fi
loads=$("${D[@]}" --json switch status "$SW" | jq .model_loads)
[ "$loads" = $((nswap + 1)) ] && t_pass "credence: each load published once (model_loads $loads)" ||
	t_fail "credence: each load published once" "model_loads $loads, expected $((nswap + 1))"

# --- a malformed model is refused, the running one stays ---------------------------------
before=$("${D[@]}" credence status --switch "$SW" --show 2>&1)
sed -E '0,/^([0-9]+) leaf [0-9]+$/s//\1 leaf 70000/' "$TMP/b" >"$TMP/bad"	# P(drop) above 1
if ! cmp -s "$TMP/b" "$TMP/bad" && ! "${D[@]}" credence load "$TMP/bad" --switch "$SW" >"$LOG/bad.txt" 2>&1 &&
	[ "$("${D[@]}" credence status --switch "$SW" --show 2>&1)" = "$before" ]; then
	t_pass "credence: a malformed model is refused ($(tail -n1 "$LOG/bad.txt")) and the running one stays"
else
	t_fail "credence: a malformed model is refused, the running one stays" "$(cat "$LOG/bad.txt")"
fi

wait "$LF_PID"
lf=$(jq -r '.error // "ok"' "$LOG/longflow.json" 2>/dev/null)
gbps=$(jq -r '.end.sum_received.bits_per_second // 0' "$LOG/longflow.json" 2>/dev/null)
[ "$lf" = ok ] && t_pass "credence: the long flow completes across swaps ($(awk -v b="$gbps" 'BEGIN { printf "%.0f", b / 1e6 }') Mbit/s)" ||
	t_fail "credence: the long flow completes" "iperf3: $lf"
links_after=$(for f in "$PIN/sw/$SW"/link_*; do bpftool link show pinned "$f" 2>/dev/null | head -n1 | cut -d: -f1; done | sort | tr '\n' ' ')
[ "$links_before" = "$links_after" ] && t_pass "credence: no link re-attached (same link ids)" ||
	t_fail "credence: no link re-attached" "'$links_before' → '$links_after'"

# --- the new maps are visible by field name; teardown ---------------------------------------
bpftool map dump pinned "$PIN/sw/$SW/dc_sw_model" -j | jqe '.[0].formatted.value | has("n_trees") and has("node")' >/dev/null &&
	bpftool map dump pinned "$PIN/sw/$SW/dc_sw_cred" -j | jqe '.[0].formatted.value | has("T_bytes")' >/dev/null &&
	t_pass "credence: bpftool map dump shows dc_sw_model and dc_sw_cred fields by name" ||
	t_fail "credence: bpftool shows the new maps by field" "no n_trees / T_bytes"
"${D[@]}" switch down "$SW" >/dev/null 2>&1
[ ! -e "$PIN/sw/$SW" ] && t_pass "credence: switch down removes every pin" ||
	t_fail "credence: switch down removes every pin" "$(ls "$PIN/sw/$SW" | tr '\n' ' ')"
exit 0
