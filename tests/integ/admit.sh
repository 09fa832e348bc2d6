# Integration: switch buffer admission in XDP on a real namespace fabric.
# A switch with two output ports: a long iperf3 flow to r1 and incast
# bursts (build/tools/incast) from four senders to r0.  Checks: the
# tracked backlog follows the qdisc's own; under DT the incast queue stays
# within α(B − Q); switching to ABM live (dcbpf set) changes thresholds and
# drops while the links and the long flow stay as they were; switch down
# leaves nothing behind.
# shellcheck shell=bash
# SC2317: cleanup runs from the EXIT trap.
# shellcheck disable=SC2317
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/fabric.sh

DCBPF="$BUILD/dcbpf"
RATE=1000
# Under emulation (vm/run sets DCBPF_VM=1) the guest's CPU, not the TBF,
# limits the path; at a tenth of the rate the port queues build again.
[ "${DCBPF_VM:-0}" = 1 ] && RATE=100
B=1000000		# shared buffer of the switch
# Emulated senders fill the 100 Mbit/s incast queue slowly: one run peaked at
# 263 kB, below DT's α(B − Q) ≈ 500 kB of a 1 MB buffer, and dropped nothing.
# A 400 kB buffer puts the threshold near 200 kB there.
[ "${DCBPF_VM:-0}" = 1 ] && B=400000
QLIMIT=20000000		# TBF limit: far above B, so admission is the only dropper
SW=admit$$
SW=${SW:0:15}
PIN=/sys/fs/bpf/dcbpf-admit$$
LOG="$OUT/admit"
mkdir -p "$LOG"

cleanup() {
	"$DCBPF" --pin-dir "$PIN" switch down "$SW" >/dev/null 2>&1
	rm -rf "$PIN"
}

# --- fabric: senders s0..s4 → switch → r0 (incast), r1 (long flow) ----------
# (a two-output switch; tests/lib/fabric.sh has no builder for it yet)
build_fabric() {
	local i j
	fabric_init || return 1
	fabric_on_exit cleanup
	fabric_make_switch sw || return 1
	SWNS=$FAB_LAST_NS
	PORTS=()
	for j in 0 1; do
		fabric_make_host "r$j" || return 1
		RNS[j]=$FAB_LAST_NS
		fabric_make_link "$SWNS" "q$j" "${RNS[j]}" "r$j" || return 1
		OUTDEV[j]=$FAB_LAST_DEV_A
		PORTS+=("$FAB_LAST_DEV_A")
		RIP[j]=10.78.$((10 + j)).1
		fabric_add_addr "$SWNS" "${OUTDEV[j]}" "10.78.$((10 + j)).254/24" || return 1
		fabric_add_addr "${RNS[j]}" "$FAB_LAST_DEV_B" "${RIP[j]}/24" || return 1
		fabric_add_route "${RNS[j]}" 10.78.0.0/16 "10.78.$((10 + j)).254" || return 1
		fabric_shape "$SWNS" "${OUTDEV[j]}" "$RATE" "$QLIMIT" || return 1
	done
	SNS=()
	for i in 0 1 2 3 4; do
		fabric_make_host "s$i" || return 1
		SNS+=("$FAB_LAST_NS")
		fabric_make_link "$FAB_LAST_NS" "h$i" "$SWNS" "p$i" || return 1
		PORTS+=("$FAB_LAST_DEV_B")
		fabric_add_addr "$FAB_LAST_NS" "$FAB_LAST_DEV_A" "10.78.$((20 + i)).1/24" || return 1
		fabric_add_addr "$SWNS" "$FAB_LAST_DEV_B" "10.78.$((20 + i)).254/24" || return 1
		fabric_add_route "$FAB_LAST_NS" 10.78.0.0/16 "10.78.$((20 + i)).254" || return 1
	done
}
build_fabric || { t_fail "admit: two-output fabric" "builder failed"; exit 1; }
for i in 0 1 2 3 4; do
	fabric_exec "${SNS[i]}" ping -c1 -W2 -q "${RIP[0]}" >/dev/null 2>&1 &&
		fabric_exec "${SNS[i]}" ping -c1 -W2 -q "${RIP[1]}" >/dev/null 2>&1 ||
		{ t_fail "admit: fabric reachable" "s$i cannot reach the receivers"; exit 1; }
done

# --- bring the switch up ----------------------------------------------------------
plist=$(IFS=,; echo "${PORTS[*]}")
if out=$("$DCBPF" --pin-dir "$PIN" switch up "$SW" --netns "$SWNS" --ports "$plist" \
	--rate-mbps "$RATE" buffer_bytes=$B alpha=1 2>&1); then
	t_pass "admit: dcbpf switch up attaches XDP to ${#PORTS[@]} ports and the qdisc tracker"
else
	t_fail "admit: dcbpf switch up" "$out"; exit 1
fi
links_before=$(for f in "$PIN/sw/$SW"/link_*; do bpftool link show pinned "$f" 2>/dev/null | head -n1 | cut -d: -f1; done | sort | tr '\n' ' ')
t_expect_fail "admit: a second switch up of the same name is refused" \
	"$DCBPF" --pin-dir "$PIN" switch up "$SW" --netns "$SWNS" --ports "${PORTS[0]}"
if msg=$("$DCBPF" --pin-dir "$PIN" set "sw.$SW.alpha.0=2000" 2>&1); then
	t_fail "admit: out-of-range alpha refused" "accepted: $msg"
else
	case "$msg" in *alpha*) t_pass "admit: out-of-range alpha refused, naming the key" ;;
	*) t_fail "admit: out-of-range alpha refused, naming the key" "$msg" ;; esac
fi
[ "$("$DCBPF" --pin-dir "$PIN" get "sw.$SW.alpha.0")" = 1 ] &&
	t_pass "admit: rejected set leaves alpha.0 = 1" || t_fail "admit: rejected set leaves alpha.0 = 1" "changed"

# port index of a device in the switch (order of --ports)
port_of() { local k; for k in "${!PORTS[@]}"; do [ "${PORTS[k]}" = "$1" ] && echo "$k"; done; }
P_IN=$(port_of "${OUTDEV[0]}")	# incast queue
P_LF=$(port_of "${OUTDEV[1]}")	# long-flow queue

# --- long flow, and the tracked backlog against the qdisc's ------------------------
fabric_bg "${RNS[1]}" sh -c 'exec iperf3 -s -p 5201 >/dev/null 2>&1'
fabric_bg "${RNS[0]}" sh -c "exec '$BUILD/tools/incast' sink -p 5999 >/dev/null 2>&1"
fabric_wait_port "${RNS[1]}" 5201 && fabric_wait_port "${RNS[0]}" 5999 ||
	{ t_fail "admit: servers" "iperf3 or incast sink did not start"; exit 1; }
# The long flow outlasts both incast rounds and the checks between them
# (under emulation the 400 kB incast rounds alone take several seconds, and
# on a busy host the whole part took over 50 s).
LF_T=25
[ "${DCBPF_VM:-0}" = 1 ] && LF_T=100
fabric_exec "${SNS[4]}" iperf3 -c "${RIP[1]}" -p 5201 -t "$LF_T" -J >"$LOG/longflow.json" 2>&1 &
LF_PID=$!
sleep 2
"$DCBPF" --pin-dir "$PIN" switch sample "$SW" --count 300 --interval-us 5000 >"$LOG/track.csv"
# one row per port and sample: t_ns,port,ifname,tracked,qdisc
read -r n big within mean_t mean_q <<<"$(awk -F, -v p="$P_LF" 'NR > 1 && $2 == p {
	n++; d = $4 - $5; if (d < 0) d = -d; if ($5 > 10000) big++;
	if (d <= 65536) w++; st += $4; sq += $5 }
	END { printf "%d %d %d %d %d\n", n, big, w, n ? st / n : 0, n ? sq / n : 0 }' "$LOG/track.csv")"
# Both reads are tens of µs apart: at 1 Gbit/s one GSO packet (≤ 64 KB) can
# enter or leave in between.  Tolerance: 95 % of samples within 64 KB (a
# skipped tracer run leaves a record stale until the port's next event;
# docs/admission.md), means within 5 %.
if [ "$n" -ge 200 ] && [ "$big" -ge $((n / 2)) ] && [ "$within" -ge $((n * 95 / 100)) ] &&
	[ $((mean_t > mean_q ? mean_t - mean_q : mean_q - mean_t)) -le $((mean_q / 20 + 1514)) ]; then
	t_pass "admit: tracked backlog follows tc's ($within of $n samples within 64 KB, mean $mean_t vs $mean_q B)"
else
	t_fail "admit: tracked backlog follows tc's (95 % within 64 KB)" \
		"$n samples, $big with a queue, $within within 64 KB, mean tracked $mean_t vs qdisc $mean_q"
fi
misses=$(bpftool prog show name dc_sw_q_deq 2>/dev/null | grep -o 'recursion_misses [0-9]*' | head -n1)
echo "tracking: ${misses:-recursion_misses 0} samples=$n queued=$big within64k=$within mean_tracked=$mean_t mean_qdisc=$mean_q" >"$LOG/track.txt"

# --- incast under a given algorithm: max incast queue vs α(B − Q) -------------------
counters() { "$DCBPF" --pin-dir "$PIN" --json switch status "$SW" |
	jq -r --argjson p "$1" '.ports[] | select(.port == $p) | "\(.drop_thresh_pkts + .drop_full_pkts) \(.admit_pkts)"'; }
# Each of the 16 incast flows sends 400 kB a round: slow start from 10
# segments reaches ~230 kB per flow, several MB in flight against a 1 MB
# buffer, so the threshold is crossed in every round (150 kB flows crossed
# it by a few packets and, on a slow run, not at all).  The sampler covers
# the three rounds with their gaps, at the VM's 100 Mbit/s too.
INCAST_BYTES=400000
SAMPLES=$(( (3 * (16 * INCAST_BYTES * 8 / (RATE * 1000) + 200) + 300) / 2 ))
incast_round() { # ALG ALPHA → max_over, max_q  (worst q − α(B − Q) and largest q of the incast port)
	local ns
	ns=$(IFS=,; echo "${SNS[*]:0:4}")
	"$DCBPF" --pin-dir "$PIN" switch sample "$SW" --count "$SAMPLES" --interval-us 2000 >"$LOG/incast_$1.csv" &
	local spid=$!
	sleep 0.1
	"$BUILD/tools/incast" client -d "${RIP[0]}" -p 5999 -n "$ns" -f 4 -s "$INCAST_BYTES" -r 3 -g 200 -t 20 \
		>"$LOG/incast_$1.json" 2>&1
	wait $spid
	awk -F, -v p="$P_IN" -v a="$2" -v B=$B 'NR > 1 {
		if ($1 != t) { if (t != "") emit(); t = $1; Q = 0 } Q += $4; if ($2 == p) q = $4 }
		function emit() { over = q - a * (B - Q); if (over > mo) mo = over; if (q > mq) mq = q }
		END { emit(); printf "%d %d\n", mo, mq }' mo=-1000000000 "$LOG/incast_$1.csv"
}

read -r d0 a0 <<<"$(counters "$P_IN")"
read -r lf_d0 _ <<<"$(counters "$P_LF")"
read -r over_dt maxq_dt <<<"$(incast_round dt 1)"
read -r d1 a1 <<<"$(counters "$P_IN")"
read -r lf_d1 _ <<<"$(counters "$P_LF")"
drops_dt=$((d1 - d0))
# Slack: packets admitted between two tracker updates — a GRO/GSO packet
# (≤ 64 KB) per receiving CPU — can overshoot the instantaneous threshold,
# and a queue just below T admits a whole packet (q < T: one more 64 KB).
SLACK=$((3 * 65536))
if [ "$maxq_dt" -gt 50000 ] && [ "$over_dt" -le "$SLACK" ]; then
	t_pass "admit: DT keeps the incast queue within α(B − Q) (+64 KB/CPU; max q $maxq_dt B, worst excess $over_dt B)"
else
	t_fail "admit: DT keeps the incast queue within α(B − Q)" "max q $maxq_dt B, worst excess $over_dt B (slack $SLACK)"
fi
[ "$drops_dt" -gt 0 ] && t_pass "admit: DT drops incast packets at the threshold ($drops_dt)" ||
	t_fail "admit: DT drops incast packets at the threshold" "no drops counted on port $P_IN"

# --- switch to ABM live ------------------------------------------------------------------
t_dt=$("$DCBPF" --pin-dir "$PIN" --json switch status "$SW" | jq ".ports[] | select(.port == $P_LF) | .thresh_now_bytes")
# A 20 µs period lets n_p follow an incast that fills its queue within a
# few hundred µs (senders' links are not shaped).
"$DCBPF" --pin-dir "$PIN" set "sw.$SW.alg=abm" "sw.$SW.abm_period_us=20" >/dev/null ||
	t_fail "admit: dcbpf set sw.$SW.alg=abm" "refused"
sleep 0.3
st=$("$DCBPF" --pin-dir "$PIN" --json switch status "$SW")
t_abm=$(echo "$st" | jq ".ports[] | select(.port == $P_LF) | .thresh_now_bytes")
upd=$(echo "$st" | jq .abm_updates)
# On an idle switch (Q = 0, n_p = 1, γ = 1) both formulas give α·B: then the
# change shows only once queues build (the drop check below), and we say so.
idle=$(echo "$st" | jq "(.occupancy_bytes == 0) and (.abm_congested <= 1) and
	([.ports[] | select(.port == $P_LF) | .gamma_q16][0] | . == 0 or . == 65536)")
if [ "$(echo "$st" | jq -r .alg)" = abm ] && [ "${upd:-0}" -gt 0 ] &&
	{ [ "$t_abm" != "$t_dt" ] || [ "$idle" = true ]; }; then
	t_pass "admit: live switch to ABM takes effect ($upd ABM updates; long-flow threshold $t_dt → $t_abm B$([ "$t_abm" = "$t_dt" ] && echo ', equal on an idle switch'))"
else
	t_fail "admit: live switch to ABM changes the long-flow threshold" "alg $(echo "$st" | jq -r .alg), T $t_dt → $t_abm, updates $upd"
fi
read -r over_abm maxq_abm <<<"$(incast_round abm 1)"
read -r d2 _ <<<"$(counters "$P_IN")"
read -r lf_d2 _ <<<"$(counters "$P_LF")"
drops_abm=$((d2 - d1))
# ABM divides the remaining buffer among the congested queues (1/n_p) and
# scales by the drain rate: while the incast and the long flow are both
# congested each queue's threshold is a fraction of DT's, so the same incast
# loses more packets (measured: DT 176-180, ABM 406 drops on both ports).
# Which queue carries them varies from run to run (long-flow share DT
# 35-67 %, ABM 52-77 %), so only the total is asserted; the share is shown.
lf_dt=$((lf_d1 - lf_d0)) lf_abm=$((lf_d2 - lf_d1))
tot_dt=$((lf_dt + drops_dt)) tot_abm=$((lf_abm + drops_abm))
if [ "$tot_abm" -gt "$tot_dt" ]; then
	t_pass "admit: ABM changes the drop pattern: the same incast loses more ($tot_dt → $tot_abm drops; long-flow share $lf_dt/$tot_dt → $lf_abm/$tot_abm)"
else
	t_fail "admit: ABM changes the drop pattern" "drops $tot_dt under DT, $tot_abm under ABM (long flow $lf_dt, $lf_abm)"
fi
echo "dt: maxq=$maxq_dt excess=$over_dt incast_drops=$drops_dt longflow_drops=$lf_dt T_longflow=$t_dt" >"$LOG/summary.txt"
echo "abm: maxq=$maxq_abm excess=$over_abm incast_drops=$drops_abm longflow_drops=$lf_abm T_longflow=$t_abm" >>"$LOG/summary.txt"
links_after=$(for f in "$PIN/sw/$SW"/link_*; do bpftool link show pinned "$f" 2>/dev/null | head -n1 | cut -d: -f1; done | sort | tr '\n' ' ')
if [ "$links_before" = "$links_after" ] && kill -0 "$LF_PID" 2>/dev/null; then
	t_pass "admit: nothing restarted (same link ids, the long flow still running)"
else
	t_fail "admit: nothing restarted" "links '$links_before' → '$links_after', long flow alive: $(kill -0 "$LF_PID" 2>/dev/null && echo yes || echo no)"
fi
wait "$LF_PID"
lf=$(jq -r '.error // "ok"' "$LOG/longflow.json" 2>/dev/null)
[ "$lf" = ok ] && t_pass "admit: the long flow completes across the change" ||
	t_fail "admit: the long flow completes across the change" "iperf3: $lf"

# --- visibility and teardown -------------------------------------------------------------
bpftool map dump pinned "$PIN/sw/$SW/dc_sw_state" -j | jqe '.[0].formatted.value | has("occupancy_bytes")' >/dev/null &&
	t_pass "admit: bpftool map dump shows dc_sw_state fields by name" ||
	t_fail "admit: bpftool map dump shows dc_sw_state fields by name" "no occupancy_bytes"
"$DCBPF" --pin-dir "$PIN" status 2>/dev/null | grep -q "^$SW " &&
	t_pass "admit: dcbpf status lists the switch" || t_fail "admit: dcbpf status lists the switch" "not listed"
"$DCBPF" --pin-dir "$PIN" switch down "$SW" >/dev/null 2>&1
xdp_left=$(ip -n "$SWNS" -d link show 2>/dev/null | grep -c "prog/xdp")
if [ ! -e "$PIN/sw/$SW" ] && [ "$xdp_left" = 0 ]; then
	t_pass "admit: switch down detaches every port and removes the pins"
else
	t_fail "admit: switch down detaches every port and removes the pins" "pins left: $(ls "$PIN/sw/$SW" 2>/dev/null | tr '\n' ' '), xdp on $xdp_left ports"
fi
rm -rf "$PIN"
exit 0
