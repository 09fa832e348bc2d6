# Integration: Ethereal on the leaf–spine fabric (2 leaves × 4 spines × 2
# hosts, TBF on every leaf uplink and spine downlink).
#   1. attach on every host and leaf; the CLI's error paths;
#   2. Ethereal: 2 hosts of leaf 0 send 4 flows each to leaf 1; each host
#      puts its 4 data flows on the 4 uplinks, the leaf's per-path byte
#      counters agree within TOL % of their mean (the TBFs too), and FIN
#      takes every flow's weight off again;
#   3. the same traffic under ECMP (kernel L4 hash) and spraying, reported;
#   4. failure: the link leaf 1 – spine s carrying one of a transfer's flows
#      goes down mid-transfer; the flow moves on RTO (counted) and the
#      transfer completes (time reported next to the time without failure);
#   5. with INT on the same hosts: the INT source grows the tag into its
#      option (P kept), the leaf steers by P in the INT option without
#      stripping it, the INT sink strips it, the transfer completes.
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/fabric.sh

W=$OUT/integ-ethereal
mkdir -p "$W"
D=("$BUILD/dcbpf")
L=2 S=4 H=2 RATE=100 BUF=250000 T=4 P=4 NBYTES=48M
# Under emulation (vm/run sets DCBPF_VM=1) the guest's CPU may not carry
# several links' worth: at a fifth of the rate the TBFs limit again.
[ "${DCBPF_VM:-0}" = 1 ] && RATE=20 NBYTES=20M T=6
# The failure transfer must outlast finding a data flow and cutting its
# link: under emulation each dcbpf call takes a good part of a second.
FAIL_NBYTES=$NBYTES
[ "${DCBPF_VM:-0}" = 1 ] && FAIL_NBYTES=60M
# Balance tolerance: every uplink carries exactly one data flow of each
# sender and is saturated by the two (TBF at RATE); what differs is TCP's
# sawtooth within the 4 s, the start-up of each flow and the iperf3 control
# connection (a few kB on uplink 0): measured 1–2 % apart; 10 % leaves room
# for the shared machine's scheduling.
TOL=10
export FAB_INT_ROOM=36	# INT's option (36 bytes; the tag-only option needs 4)

for c in iperf3 jq ping; do
	command -v $c >/dev/null || { t_fail "ethereal: prerequisites" "'$c' missing: apt-get install -y iperf3 jq iputils-ping"; exit 1; }
done
[ -x "$BUILD/dcbpf" ] || { t_fail "ethereal: prerequisites" "$BUILD/dcbpf not built (make)"; exit 1; }

if ! fabric_leafspine $L $S $H $RATE $BUF; then
	t_fail "ethereal: 2x4x2 fabric" "fabric_leafspine failed"
	exit 1
fi
PIN=/sys/fs/bpf/dcbpf-eth-$FAB_ID
D+=(--pin-dir "$PIN")
id=$FAB_ID

# ---- 1. attach, and what the CLI refuses -------------------------------------
if fabric_leafspine_ethereal "$BUILD/dcbpf" "$PIN" ethereal --idle-ms 5000 --avoid-ms 2000 2>"$W/attach.err"; then
	t_pass "ethereal: attached to 4 hosts and 2 leaves"
else
	t_fail "ethereal: attach" "$(tr '\n' ' ' <"$W/attach.err")"
	exit 1
fi
st=$("${D[@]}" ethereal status --json)
if echo "$st" | jq -e '(.hosts | length) == 4 and (.leaves | length) == 2 and
	all(.hosts[]; .mode == "ethereal" and .paths == 4) and
	all(.leaves[]; [.paths[] | select(.tag > 0)] | length == 4)' >/dev/null; then
	t_pass "ethereal: status --json lists 4 hosts (mode ethereal, 4 paths) and 2 leaves (4 uplinks each)"
else
	t_fail "ethereal: status --json" "$st"
fi
out=$("${D[@]}" ethereal host attach --netns "${FAB_HOSTS[0]}" --mode ethereal --paths 4 \
	--leaf 10.78.1.0/24=1 "${FAB_HOST_DEVS[0]}" 2>&1); rc=$?
if [ $rc = 1 ] && [[ $out == *"${FAB_HOST_DEVS[0]}"*"already has a host attached"* ]] &&
	"${D[@]}" ethereal status --netns "${FAB_HOSTS[0]}" --json | jq -e '.hosts | length == 1' >/dev/null; then
	t_pass "ethereal: a second attach to the same host is refused, naming it; the first stays"
else t_fail "ethereal: double attach" "rc=$rc: $out"; fi
out=$("${D[@]}" ethereal host attach --netns "${FAB_HOSTS[0]}" --mode ethereal --paths 16 \
	--leaf 10.78.1.0/24=1 "${FAB_HOST_DEVS[0]}" 2>&1); rc=$?
if [ $rc = 2 ] && [[ $out == *"--paths: 16 is above the maximum 15"* ]]; then t_pass "ethereal: --paths 16 refused (usage, 4-bit tag)"
else t_fail "ethereal: --paths 16" "rc=$rc: $out"; fi
out=$("${D[@]}" ethereal host attach --netns "${FAB_HOSTS[0]}" --mode sideways --paths 4 \
	--leaf 10.78.1.0/24=1 "${FAB_HOST_DEVS[0]}" 2>&1); rc=$?
if [ $rc = 2 ]; then t_pass "ethereal: unknown mode refused (usage)"
else t_fail "ethereal: unknown mode" "rc=$rc: $out"; fi
out=$("${D[@]}" ethereal host attach --netns "$id-nosuch" --mode ethereal --paths 4 \
	--leaf 10.78.1.0/24=1 eth0 2>&1); rc=$?
if [ $rc = 1 ] && [[ $out == *"$id-nosuch"*"not found"* ]] && [ ! -e "$PIN/eth/$id-nosuch" ]; then
	t_pass "ethereal: unknown namespace refused, named, nothing pinned"
else t_fail "ethereal: unknown namespace" "rc=$rc: $out"; fi
out=$("${D[@]}" ethereal leaf attach --netns "${FAB_LEAVES[0]}" --ports "${FAB_LEAF_PORTS[0]}" \
	--uplinks "${FAB_UPLINKS[0]}" 2>&1); rc=$?
if [ $rc = 2 ] && [[ $out == *"IF=NEXTHOP"* ]]; then t_pass "ethereal: uplink without next hop refused (usage)"
else t_fail "ethereal: uplink without next hop" "rc=$rc: $out"; fi

# ---- helpers -------------------------------------------------------------------
# path_bytes: per-path bytes steered by leaf 0, tags 1..S, space-separated
path_bytes() {
	"${D[@]}" ethereal status --netns "${FAB_LEAVES[0]}" --json |
		jq -r '[.leaves[0].paths[] | select(.tag > 0) | .bytes] | map(tostring) | join(" ")'
}
sent() { tc -n "$1" -s qdisc show dev "$2" | sed -nE '1,/Sent/s/.*Sent ([0-9]+) bytes.*/\1/p' | head -n 1; }
tbf_bytes() {
	local s r=""
	for ((s = 0; s < S; s++)); do r+="$(sent "${FAB_LEAVES[0]}" "${FAB_UPLINKS[s]}") "; done
	echo "$r"
}
# diff_arr "A" "B": element-wise B − A
diff_arr() { paste -d' ' <(tr ' ' '\n' <<<"$1" | sed '/^$/d') <(tr ' ' '\n' <<<"$2" | sed '/^$/d') | awk '{printf "%d ", $2 - $1}'; }
# spread "X Y …": max/min as a percentage above the mean: "maxdev% min max used"
spread() {
	tr ' ' '\n' <<<"$1" | sed '/^$/d' | awk '{v[NR]=$1; s+=$1} END {m=s/NR; d=0; mn=v[1]; mx=v[1]; u=0;
		for (i=1;i<=NR;i++) { x=v[i]-m; if (x<0) x=-x; if (x>d) d=x; if (v[i]<mn) mn=v[i]; if (v[i]>mx) mx=v[i]; if (v[i]*20 >= s) u++ }
		printf "%.1f %d %d %d", (m>0 ? 100*d/m : 100), mn, mx, u}'
}
servers_up=0
start_servers() {
	local h i
	[ $servers_up = 1 ] && return 0
	for h in 0 1; do
		i=$((H + h))
		fabric_bg "${FAB_HOSTS[i]}" iperf3 -s -p 5201 -B "${FAB_HOST_IPS[i]}" >"$W/server-$h.log" 2>&1
		fabric_wait_port "${FAB_HOSTS[i]}" 5201 || return 1
	done
	servers_up=1
}
# load MODE: 2 clients (hosts of leaf 0) × P flows to the hosts of leaf 1
# for T s; sets GP (Mbit/s), PB (per-path bytes), TB (per-uplink TBF bytes)
load() {
	local mode=$1 h pids=() pb0 tb0 g
	pb0=$(path_bytes) tb0=$(tbf_bytes)
	for h in 0 1; do
		fabric_cg_exec "${FAB_HOSTS[h]}" iperf3 -c "${FAB_HOST_IPS[H + h]}" -p 5201 -P $P -t $T -J \
			>"$W/$mode-client-$h.json" 2>&1 &
		pids+=($!)
	done
	LOAD_RC=0
	for h in "${pids[@]}"; do wait "$h" || LOAD_RC=1; done
	PB=$(diff_arr "$pb0" "$(path_bytes)") TB=$(diff_arr "$tb0" "$(tbf_bytes)") GP=0
	for h in 0 1; do
		g=$(jq -r '.end.sum_received.bits_per_second // 0' "$W/$mode-client-$h.json" 2>/dev/null || echo 0)
		GP=$(awk -v a="$GP" -v b="$g" 'BEGIN {printf "%.0f", a + b / 1e6}')
	done
}

# ---- 2. Ethereal: balanced uplinks -------------------------------------------------
start_servers || t_fail "ethereal: iperf3 servers" "not listening"
# the flow table while the load runs: each sender's data flows on 4 paths
( sleep $((T / 2)); for h in 0 1; do "${D[@]}" ethereal flows --netns "${FAB_HOSTS[h]}" --json >"$W/flows-$h.json"; done ) &
snap=$!
load ethereal
wait $snap
read -r dev _ _ used <<<"$(spread "$PB")"
echo "ethereal: path bytes $PB; tbf $TB; goodput $GP Mbit/s; max deviation $dev %" | tee "$W/ethereal.txt"
if [ "$LOAD_RC" = 0 ] && [ "$used" = $S ] && awk -v d="$dev" -v t=$TOL 'BEGIN {exit !(d <= t)}'; then
	t_pass "ethereal: per-path bytes at leaf 0 within ${TOL} % of their mean ($dev %: $PB), goodput $GP Mbit/s"
else
	t_fail "ethereal: balanced paths" "iperf3 rc=$LOAD_RC deviation $dev % (tolerance $TOL) bytes $PB"
fi
read -r tdev _ _ tused <<<"$(spread "$TB")"
if [ "$tused" = $S ] && awk -v d="$tdev" -v t=$TOL 'BEGIN {exit !(d <= t)}'; then
	t_pass "ethereal: the uplinks' TBFs agree: within ${TOL} % ($tdev %: $TB)"
else t_fail "ethereal: TBF bytes balanced" "deviation $tdev %: $TB"; fi
ok=1 why=""
for h in 0 1; do
	# data flows: the ones that carried more than 200 kB (iperf3's control connection: a few kB)
	paths=$(jq -r '[.[] | select(.bytes > 200000 and .dst == "'"${FAB_HOST_IPS[H + h]}"'") | .path] | sort | map(tostring) | join(",")' "$W/flows-$h.json" 2>/dev/null)
	[ "$paths" = "1,2,3,4" ] || { ok=0 why+=" host $h: $paths"; }
done
if [ $ok = 1 ]; then t_pass "ethereal: each sender's 4 data flows are on paths 1,2,3,4 (flow table)"
else t_fail "ethereal: one flow per path" "$why (tables in $W/flows-*.json)"; fi
# shellcheck disable=SC2317  # called through wait_until
loads_zero() {
	"${D[@]}" ethereal status --json | jq -e '[.hosts[] | select(.netns == "'"${FAB_HOSTS[0]}"'" or .netns == "'"${FAB_HOSTS[1]}"'") | .leaves[].load_flows[]] | all(. == 0)' >/dev/null
}
if wait_until 3 loads_zero; then
	t_pass "ethereal: after the transfers end (FIN) every sender's uplink loads are back to 0"
else t_fail "ethereal: loads released" "$("${D[@]}" ethereal status | grep 'load' | tr '\n' ' ')"; fi
c=$("${D[@]}" ethereal status --json | jq '[.hosts[] | select(.netns == "'"${FAB_HOSTS[0]}"'") | .counters][0]')
# P data flows and iperf3's control connection, each released exactly once
# (at close; a connection iperf3 abandons half-open goes at idle)
if [ "$(jq ".flows_new == .flows_fin + .flows_idle and .flows_fin >= $((P + 1))" <<<"$c")" = true ]; then
	t_pass "ethereal: every flow of the sender released exactly once ($(jq -c '{flows_new, flows_fin, flows_idle}' <<<"$c"))"
else t_fail "ethereal: FIN counters" "$c"; fi

# ---- 3. ECMP and spraying, same traffic ------------------------------------------
fabric_leafspine_mode ecmp
load ecmp
read -r edev _ _ eused <<<"$(spread "$TB")"
echo "ecmp: tbf $TB; goodput $GP Mbit/s; max deviation $edev %; uplinks used $eused; tagged path bytes $PB" | tee "$W/ecmp.txt"
if [ "$LOAD_RC" = 0 ] && [ "$(tr -d ' 0' <<<"$PB")" = "" ] && [ "$eused" -ge 1 ]; then
	t_pass "ethereal: mode ecmp sends untagged (leaf steers nothing); kernel ECMP spread: $edev % off the mean, $eused of $S uplinks used, $GP Mbit/s"
else t_fail "ethereal: ecmp mode" "tagged bytes under ecmp: $PB"; fi
fabric_leafspine_mode spray
load spray
read -r sdev _ _ sused <<<"$(spread "$PB")"
echo "spray: path bytes $PB; tbf $TB; goodput $GP Mbit/s; max deviation $sdev %" | tee "$W/spray.txt"
if [ "$LOAD_RC" = 0 ] && [ "$sused" = $S ] && awk -v d="$sdev" -v t=$TOL 'BEGIN {exit !(d <= t)}'; then
	t_pass "ethereal: spraying puts the bytes on all $S paths within ${TOL} % ($sdev %), goodput $GP Mbit/s"
else t_fail "ethereal: spray" "rc=$LOAD_RC deviation $sdev % used $sused: $PB"; fi
fabric_leafspine_mode ethereal

# ---- 4. failure: a link goes down mid-transfer ---------------------------------------
xfer() { # one transfer of NBYTES from host 0 to host H over P flows; prints seconds
	local t0 t1
	t0=$(date +%s%N)
	fabric_cg_exec "${FAB_HOSTS[0]}" iperf3 -c "${FAB_HOST_IPS[H]}" -p 5201 -P $P -n "$FAIL_NBYTES" -J >"$W/$1.json" 2>&1 || return 1
	t1=$(date +%s%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", (b - a) / 1e9}'
}
sleep 1
base=$(xfer xfer-base) || t_fail "ethereal: transfer without failure" "iperf3 failed ($W/xfer-base.json)"
r0=$("${D[@]}" ethereal status --json | jq '[.hosts[] | select(.netns == "'"${FAB_HOSTS[0]}"'") | .counters.repath_rto][0]')
( fabric_cg_exec "${FAB_HOSTS[0]}" iperf3 -c "${FAB_HOST_IPS[H]}" -p 5201 -P $P -n "$FAIL_NBYTES" -J >"$W/xfer-fail.json" 2>&1
  echo $? >"$W/xfer-fail.rc"; date +%s%N >"$W/xfer-fail.end" ) &
xp=$!
t0=$(date +%s%N)
# wait until the data flows are placed, then cut the link of one of them
victim=""
for _ in $(seq 50); do
	victim=$("${D[@]}" ethereal flows --netns "${FAB_HOSTS[0]}" --json |
		jq -r '[.[] | select(.bytes > 200000 and .state == "open")] | sort_by(.path) | .[1].path // empty')
	[ -n "$victim" ] && break
	sleep 0.05
done
if [ -z "$victim" ]; then
	t_fail "ethereal: failure case" "no data flow seen in the flow table"
	victim=2
fi
s=$((victim - 1))
fabric_leafspine_link 1 $s down
tdown=$(date +%s%N)
wait $xp
fabric_leafspine_link 1 $s up
rc=$(cat "$W/xfer-fail.rc" 2>/dev/null || echo 1)
dur=$(awk -v a="$t0" -v b="$(cat "$W/xfer-fail.end")" 'BEGIN {printf "%.2f", (b - a) / 1e9}')
after=$(awk -v a="$tdown" -v b="$(cat "$W/xfer-fail.end")" 'BEGIN {printf "%.2f", (b - a) / 1e9}')
r1=$("${D[@]}" ethereal status --json | jq '[.hosts[] | select(.netns == "'"${FAB_HOSTS[0]}"'") | .counters.repath_rto][0]')
to=$("${D[@]}" ethereal status --json | jq -c '[.hosts[] | select(.netns == "'"${FAB_HOSTS[0]}"'") | .leaves[] | select(.leaf == 1) | .timeouts][0]')
echo "failure: link leaf 1 - spine $s (path $victim) down mid-transfer; $FAIL_NBYTES in $dur s (without failure $base s), $after s after the cut; repath_rto $r0 -> $r1; timeouts per uplink $to" | tee "$W/failure.txt"
if [ "$rc" = 0 ]; then
	t_pass "ethereal: the transfer completes with link leaf 1 – spine $s down: $dur s (without failure $base s)"
else t_fail "ethereal: transfer across the failure" "iperf3 rc=$rc ($W/xfer-fail.json)"; fi
if awk -v a="$after" 'BEGIN { exit !(a <= 0) }'; then
	t_fail "ethereal: RTO re-path counted" "the transfer ended $after s before the link went down: nothing to re-path ($W/failure.txt)"
elif [ -n "$r1" ] && [ -n "$r0" ] && [ "$r1" -gt "$r0" ] && [ "$(jq ".[$s]" <<<"$to")" -ge 1 ]; then
	t_pass "ethereal: the flow on path $victim moved on RTO (repath_rto $r0 → $r1, timeouts on uplink $s: $(jq ".[$s]" <<<"$to"))"
else t_fail "ethereal: RTO re-path counted" "repath_rto $r0 → $r1, timeouts $to"; fi
if fabric_leafspine_ping_all; then t_pass "ethereal: link back up, every host pair reaches each other"
else t_fail "ethereal: link restored" "ping failed"; fi

# ---- 5. with INT on the same hook ----------------------------------------------------
INT_ON=0
# shellcheck disable=SC2317  # run at teardown
int_off() {
	if [ $INT_ON = 1 ]; then
		"${D[@]}" int detach --netns "${FAB_HOSTS[0]}" "${FAB_HOST_DEVS[0]}"
		"${D[@]}" int detach --netns "${FAB_HOSTS[H]}" "${FAB_HOST_DEVS[H]}"
	fi
	rm -rf "$PIN"	# INT pins its CC-side maps by name next to ours
} >/dev/null 2>&1
fabric_on_exit int_off
intc() { "${D[@]}" int status | sed -nE "s/^hosts: .* $1 ([0-9]+).*/\1/p; s/^hosts: $1 ([0-9]+).*/\1/p" | head -n 1; }
lcount() { "${D[@]}" ethereal status --netns "${FAB_LEAVES[0]}" --json | jq ".leaves[0].counters.$1"; }
if "${D[@]}" int attach --netns "${FAB_HOSTS[0]}" "${FAB_HOST_DEVS[0]}" >"$W/int.err" 2>&1 &&
	INT_ON=1 && "${D[@]}" int attach --netns "${FAB_HOSTS[H]}" "${FAB_HOST_DEVS[H]}" >>"$W/int.err" 2>&1 &&
	"${D[@]}" int dst add "${FAB_HOST_IPS[H]}/32" --slots 4 >>"$W/int.err" 2>&1; then
	sleep 2	# the failure's uplink is avoided for avoid_ms (2 s) after its timeout
	a0=$(intc src_added) g0=$(intc src_tag_grown) k0=$(intc sink_stripped)
	st0=$(lcount steered) ts0=$(lcount tag_stripped) pb0=$(path_bytes)
	secs=$(xfer xfer-int) || secs=""
	a1=$(intc src_added) g1=$(intc src_tag_grown) k1=$(intc sink_stripped)
	st1=$(lcount steered) ts1=$(lcount tag_stripped) pb=$(diff_arr "$pb0" "$(path_bytes)")
	read -r _ pmin _ pused <<<"$(spread "$pb")"
	echo "int+ethereal: $NBYTES in ${secs:-?} s; INT src_added +$((a1 - a0)) src_tag_grown +$((g1 - g0)) sink_stripped +$((k1 - k0)); leaf 0 steered +$((st1 - st0)) tag_stripped +$((ts1 - ts0)); path bytes $pb" | tee "$W/int.txt"
	if [ -n "$secs" ] && [ $((g1 - g0)) -gt 0 ] && [ $((g1 - g0)) -le $((a1 - a0)) ] &&
		[ $((k1 - k0)) -gt 0 ] && [ "$pused" = $S ] &&
		[ $((st1 - st0 - (ts1 - ts0))) -gt $(((st1 - st0) / 2)) ]; then
		t_pass "ethereal: with INT, the INT source grows the tag (P kept: $((g1 - g0)) segments), the leaf steers by P in the INT option on all $S paths (min $pmin bytes), the sink strips it; $NBYTES in $secs s"
	else
		t_fail "ethereal: together with INT" "$(cat "$W/int.txt")"
	fi
else
	t_fail "ethereal: INT attach next to Ethereal" "$(tr '\n' ' ' <"$W/int.err")"
fi

# ---- 6. teardown ---------------------------------------------------------------------
fabric_teardown
left=$(ls -d "$PIN" 2>/dev/null; ip netns list | grep "^$id-"; ls -d /sys/fs/cgroup/unified/dcbpf-"$id" /sys/fs/cgroup/dcbpf-"$id" 2>/dev/null)
if [ -z "$left" ]; then t_pass "ethereal: teardown leaves no pins, namespaces or cgroup"
else t_fail "ethereal: teardown" "left: $(echo "$left" | tr '\n' ' ')"; fi
[ -n "${T_FAILED:-}" ] && exit 1
exit 0
