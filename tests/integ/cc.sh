# Integration: PowerTCP and θ-PowerTCP on real TCP between namespaces.
# A dumbbell with a 1 Gbit/s bottleneck, dcbpfd registering the CCs, iperf3
# selecting them per socket and as a netns default, and a live `dcbpf set`
# that must change the window of a running connection.
#
# Inside the VM (vm/run sets DCBPF_VM=1) the guest runs under emulation: its
# CPU, not a 1 Gbit/s TBF, limits the path (measured under TCG: 68..674
# Mbit/s for CUBIC from run to run), and its base RTT is ~0.5 ms instead of
# ~50 us.  There the dumbbell runs at 20 Mbit/s, where the TBF is again the
# bottleneck, and the CCs are configured for that fabric (host_bw_mbps = the
# rate, base_rtt_us = the measured minimum RTT); the same assertions then
# hold, scaled to the configured rate, and the PASS lines say so.  Every
# process start costs ~0.5 s there, so flows run longer (FLOW_T) and the
# test waits for a flow to show up instead of assuming it has after 1.5 s.
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/fabric.sh
source tests/lib/dcbpfd.sh

RATE=1000 TAU=60 VMNOTE="" FLOW_T=3
[ "${DCBPF_VM:-0}" = 1 ] && RATE=20 FLOW_T=12
fabric_dumbbell 2 $RATE 2000000 || { t_fail "cc: dumbbell" "fabric could not be built"; exit 1; }
S0=${FAB_SENDERS[0]} S1=${FAB_SENDERS[1]} R=$FAB_RECV RIP=$FAB_RECV_IP
if [ "${DCBPF_VM:-0}" = 1 ]; then
	# τ = the path's minimum RTT for full-size packets, in 10 µs steps:
	# a τ far below the real base RTT holds the window at its floor.
	rtt=$(fabric_exec "$S0" ping -c 20 -i 0.05 -s 1400 -q "$RIP" | sed -nE 's|.* = ([0-9.]+)/.*|\1|p')
	TAU=$(awk -v r="${rtt:-0}" 'BEGIN { t = int((r * 1000 + 9) / 10) * 10; print (t < 60 ? 60 : t) }')
	VMNOTE="; VM: $RATE Mbit/s dumbbell, τ = $TAU µs measured"
fi

dcbpfd_start "base_rtt_us = $TAU" "host_bw_mbps = $RATE" ||
	{ t_fail "cc: dcbpfd registers the CCs" "$DCBPFD_ERR"; exit 1; }
t_pass "cc: dcbpfd registers powertcp and theta_powertcp${VMNOTE:+ (${VMNOTE#; })}"

flows_json() { bpftool map dump pinned "$DCBPFD_PIN/dc_cc_flows" -j | jq -c '[.[].formatted | select(.key.dport == '"$1"') | .value]'; }
stat_of() { bpftool map dump pinned "$DCBPFD_PIN/dc_cc_stats" -j | jq ".[] | .formatted | select(.key == $1) | .value.$2"; }
# wait_flow PORT PID: until the flow to PORT has 100 ACKs in the mirror
# (at most 30 s, and only while its iperf3 PID runs).
wait_flow() {
	local i
	for i in $(seq 1 60); do
		flows_json "$1" | jqe 'any(.[]; .acks > 100)' >/dev/null && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.5
	done
	return 1
}

fabric_bg "$R" iperf3 -s -p 5201
fabric_bg "$R" iperf3 -s -p 5202
fabric_wait_port "$R" 5201 && fabric_wait_port "$R" 5202

# --- per-socket selection, visible in ss and in the flow map ---------------
for cc in powertcp theta_powertcp; do
	port=5201
	[ "$cc" = theta_powertcp ] && port=5202
	fabric_exec "$S0" iperf3 -c "$RIP" -p $port -t $FLOW_T -C "$cc" -J >"$OUT/cc_$cc.json" 2>&1 &
	ipid=$!
	sleep 1.5
	wait_flow $port $ipid
	ssline=$(fabric_exec "$S0" ss -tin dst "$RIP" dport = :$port | tr '\n' ' ')
	t0=$(date +%s%N)
	flows=$(flows_json $port)
	# What one sample of the flow map costs under load (~20 ms on the
	# host, ~1 s under emulation) sizes the live-reconfiguration run below.
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ "$ms" -gt "${SAMPLE_MS:-0}" ] && SAMPLE_MS=$ms
	wait $ipid
	case "$ssline" in
	*" $cc "*) t_pass "cc: iperf3 -C $cc uses it (ss -ti)" ;;
	*) t_fail "cc: iperf3 -C $cc uses it (ss -ti)" "ss shows: ${ssline:0:200}" ;;
	esac
	want=0
	[ "$cc" = theta_powertcp ] && want=1
	if echo "$flows" | jqe "any(.[]; .cc == $want and .acks > 100 and .cwnd_bytes > 0 and .tau_us == $TAU)" >/dev/null; then
		t_pass "cc: $cc flow mirrored in dc_cc_flows (bpftool)"
	else
		t_fail "cc: $cc flow mirrored in dc_cc_flows (bpftool)" "$flows"
	fi
	mbps=$(jq '.end.sum_received.bits_per_second / 1e6 | floor' "$OUT/cc_$cc.json" 2>/dev/null || echo 0)
	# A sanity floor against a stalled or collapsed law, not the
	# performance target (the demo's and the experiments'): 10 % of the
	# bottleneck.  One 3 s flow on this two-core machine measured 289–792
	# Mbit/s (powertcp) and 320–837 (θ) across runs of the same build.
	if [ "${mbps:-0}" -ge $((RATE / 10)) ]; then t_pass "cc: $cc moves data ($mbps Mbit/s of $RATE$VMNOTE)"
	else t_fail "cc: $cc moves data" "${mbps:-0} Mbit/s through a $RATE Mbit/s bottleneck (floor $((RATE / 10))$VMNOTE)"; fi
done

# PowerTCP without telemetry runs the θ law, and the counter says so.
fb=$(stat_of 0 theta_fallback)
if [ "${fb:-0}" -gt 0 ]; then t_pass "cc: powertcp without INT counts theta_fallback ($fb)"
else t_fail "cc: powertcp without INT counts theta_fallback" "theta_fallback=$fb"; fi
# Restart after idle: bursts on kept connections. Rounds 400 ms apart
# (idle > the 200 ms minimum RTO) start over at HostBw·τ, once per flow and
# round after the first; rounds 20 ms apart do not.
fabric_bg "$R" "$BUILD/tools/incast" sink -p 5999 2>/dev/null
fabric_wait_port "$R" 5999
idle_rounds() {	# GAP_MS: restarts counted over 3 rounds of 2 flows
	local r0 r1
	r0=$(stat_of 0 idle_restarts)
	"$BUILD/tools/incast" client -d "$RIP" -p 5999 -n "$S0,$S1" -s 65536 -c powertcp -r 3 -g "$1" -t 60 \
		>"$OUT/cc_idle_$1.json" 2>&1 || { echo "incast failed: $(tail -c 300 "$OUT/cc_idle_$1.json")"; return; }
	r1=$(stat_of 0 idle_restarts)
	echo $((${r1:-0} - ${r0:-0}))
}
n=$(idle_rounds 400)
if [ "$n" = 4 ]; then t_pass "cc: flows idle for longer than an RTO restart (4 of 2 flows x 2 later rounds)"
else t_fail "cc: flows idle for longer than an RTO restart" "idle_restarts grew by '$n', want 4"; fi
n=$(idle_rounds 20)
if [ "$n" = 0 ]; then t_pass "cc: a 20 ms pause is not a restart"
else t_fail "cc: a 20 ms pause is not a restart" "idle_restarts grew by '$n', want 0"; fi

# Flows leave the mirror when their sockets go away.
sleep 0.5
left=$(bpftool map dump pinned "$DCBPFD_PIN/dc_cc_flows" -j | jq 'length')
if [ "$left" = 0 ]; then t_pass "cc: closed flows leave dc_cc_flows"
else t_fail "cc: closed flows leave dc_cc_flows" "$left entries left"; fi

# --- netns default via sysctl (TCP_CONG_NON_RESTRICTED) -------------------
if fabric_exec "$S1" sysctl -qw net.ipv4.tcp_congestion_control=theta_powertcp; then
	t_pass "cc: theta_powertcp as a netns default (sysctl)"
	fabric_exec "$S1" iperf3 -c "$RIP" -p 5201 -t $((FLOW_T - 1)) >/dev/null 2>&1 &
	ipid=$!
	sleep 1
	for _ in $(seq 1 30); do
		ssline=$(fabric_exec "$S1" ss -tin dst "$RIP" | tr '\n' ' ')
		[[ $ssline == *" theta_powertcp "* ]] || ! kill -0 $ipid 2>/dev/null && break
		sleep 0.5
	done
	wait $ipid
	case "$ssline" in
	*" theta_powertcp "*) t_pass "cc: netns default applies to new sockets" ;;
	*) t_fail "cc: netns default applies to new sockets" "${ssline:0:200}" ;;
	esac
else
	t_fail "cc: theta_powertcp as a netns default (sysctl)" "sysctl refused"
fi

# --- live reconfiguration changes the running connection -------------------
# Samples per mean: 10 (~1 s on the host); under emulation as many as fit
# in ~3 s, at least 3.
NSAMP=$((3000 / (${SAMPLE_MS:-100} + 1)))
[ $NSAMP -gt 10 ] && NSAMP=10
[ $NSAMP -lt 3 ] && NSAMP=3
mean_cwnd() { # mean of NSAMP samples of cwnd_bytes of the flow to port $1
	local i s=0 n=0 v
	for i in $(seq 1 $NSAMP); do
		v=$(flows_json "$1" | jq '[.[].cwnd_bytes] | max // 0')
		s=$((s + v)); n=$((n + 1)); sleep 0.1
	done
	echo $((s / n))
}
# The connection must outlive 2·NSAMP + 2 samples of the flow map (each with
# a jq and a 0.1 s sleep: 3x the measured sample) plus the sleeps (2 s) and
# 2 s of room: 6 s on the host, ~45 s under emulation.
live_t=$(((4000 + 3 * (2 * NSAMP + 2) * ${SAMPLE_MS:-100} + 999) / 1000))
[ "$live_t" -lt 6 ] && live_t=6
fabric_exec "$S0" iperf3 -c "$RIP" -p 5202 -t $live_t -C theta_powertcp -J >"$OUT/cc_live.json" 2>&1 &
ipid=$!
sleep 1.5
wait_flow 5202 $ipid
acks0=$(flows_json 5202 | jq '[.[].acks] | max // 0')
w0=$(mean_cwnd 5202)
"$BUILD/dcbpf" --pin-dir "$DCBPFD_PIN" set theta_powertcp.beta_bytes=60000 >/dev/null
sleep 0.5
w1=$(mean_cwnd 5202)
acks1=$(flows_json 5202 | jq '[.[].acks] | max // 0')
alive=yes
kill -0 $ipid 2>/dev/null || alive="no: iperf3 -t $live_t ended before the samples did (one sample took ${SAMPLE_MS:-?} ms)"
wait $ipid
ipok=$(jq -r '.error // "ok"' "$OUT/cc_live.json" 2>/dev/null)
# w_e = b·τ + β: β from its default (at least one send unit, ~7 kB) to
# 60 kB must raise the window at least twofold (measured 2.4-4.5x; the
# ratio falls as b·τ grows, and 2.5x failed once at 2.36x).
if [ "$w1" -gt $((w0 * 2)) ] && [ "$w1" -gt 40000 ]; then
	t_pass "cc: dcbpf set beta_bytes raises the live window ($w0 → $w1 bytes$VMNOTE)"
else
	t_fail "cc: dcbpf set beta_bytes raises the live window" "mean cwnd $w0 → $w1 bytes; flow alive while sampled: $alive"
fi
if [ "$acks1" -gt "$acks0" ] && [ "$ipok" = ok ] && [ "$alive" = yes ]; then
	t_pass "cc: the connection survives reconfiguration"
else
	t_fail "cc: the connection survives reconfiguration" "acks $acks0 → $acks1, iperf3: $ipok, alive while sampled: $alive"
fi
# A rejected value names the key and leaves the map as it was.
before=$(bpftool map dump pinned "$DCBPFD_PIN/dc_cc_cfg" -j | jq -c '[.[].formatted]')
if msg=$("$BUILD/dcbpf" --pin-dir "$DCBPFD_PIN" set powertcp.gamma=1.5 2>&1); then
	t_fail "cc: out-of-range gamma refused" "accepted: $msg"
else
	case "$msg" in
	*gamma*) t_pass "cc: out-of-range gamma refused, naming the key" ;;
	*) t_fail "cc: out-of-range gamma refused, naming the key" "$msg" ;;
	esac
fi
after=$(bpftool map dump pinned "$DCBPFD_PIN/dc_cc_cfg" -j | jq -c '[.[].formatted]')
if [ "$before" = "$after" ]; then t_pass "cc: rejected set leaves dc_cc_cfg unchanged"
else t_fail "cc: rejected set leaves dc_cc_cfg unchanged" "map changed"; fi

# --- dcbpf trace streams per-ACK decisions, and switches itself off -------
fabric_exec "$S0" iperf3 -c "$RIP" -p 5202 -t $FLOW_T -C theta_powertcp >/dev/null 2>&1 &
ipid=$!
sleep 0.5
timeout $((FLOW_T + 7)) "$BUILD/dcbpf" --pin-dir "$DCBPFD_PIN" trace --csv --cc theta_powertcp --count 200 \
	>"$OUT/cc_trace.csv" 2>&1
trc=$?
wait $ipid
rows=$(awk -F, 'NR > 1 && $6 == "theta_powertcp" && $8 > 0 && $12 > 0' "$OUT/cc_trace.csv" | wc -l)
if [ $trc -eq 0 ] && [ "$rows" -eq 200 ] && head -1 "$OUT/cc_trace.csv" | grep -q '^ts_ns,.*norm_power'; then
	t_pass "cc: dcbpf trace streams 200 per-ACK decisions as CSV"
else
	t_fail "cc: dcbpf trace streams 200 per-ACK decisions as CSV" "rc=$trc rows=$rows: $(head -c 300 "$OUT/cc_trace.csv")"
fi
tron=$(bpftool map dump pinned "$DCBPFD_PIN/dc_cc_tron" -j | jq '.[0].formatted.value // .[0].value')
if [ "$tron" = 0 ]; then t_pass "cc: tracing is off again after dcbpf trace exits"
else t_fail "cc: tracing is off again after dcbpf trace exits" "dc_cc_tron = $tron"; fi
# the same stream as one JSON array (--json reaches trace)
fabric_exec "$S0" iperf3 -c "$RIP" -p 5202 -t $FLOW_T -C theta_powertcp >/dev/null 2>&1 &
ipid=$!
sleep 0.5
timeout $((FLOW_T + 7)) "$BUILD/dcbpf" --pin-dir "$DCBPFD_PIN" trace --json --cc theta_powertcp --count 50 \
	>"$OUT/cc_trace.json" 2>"$OUT/cc_trace.json.err"
trc=$?
wait $ipid
if [ $trc -eq 0 ] && jqe 'length == 50 and all(.[]; .cc == "theta_powertcp" and .cwnd_bytes > 0 and
	.rtt_us > 0 and (.updated | type) == "boolean" and (.norm_power | type) == "number")' \
	"$OUT/cc_trace.json" >/dev/null; then
	t_pass "cc: dcbpf trace --json streams 50 decisions as one JSON array"
else
	t_fail "cc: dcbpf trace --json" "rc=$trc: $(head -c 300 "$OUT/cc_trace.json") $(head -c 200 "$OUT/cc_trace.json.err")"
fi

dcbpfd_stop
if grep -qw powertcp /proc/sys/net/ipv4/tcp_available_congestion_control; then
	t_fail "cc: stopping dcbpfd unregisters the CCs" "powertcp still registered"
else
	t_pass "cc: stopping dcbpfd unregisters the CCs"
fi
