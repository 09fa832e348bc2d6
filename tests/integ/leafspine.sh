# Integration: the leaf–spine builder (fabric_leafspine in tests/lib/fabric.sh),
# the fabric of the Ethereal experiments. 2 leaves × 4 spines × 2 hosts at
# 100 Mbit/s must come up with TBF on every leaf uplink and spine downlink,
# connect every host pair, spread several iperf3 flows between the leaves
# over more than one spine under kernel ECMP (L4 hash), and vanish at
# teardown, also when the builder fails half-way.
# host-suite: the leaf–spine builder (veth, TBF, kernel ECMP; no BPF of dcbpf); ethereal.sh
# builds the same fabric and attaches Ethereal to it in the VM.
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/fabric.sh

W=$OUT/integ-leafspine
mkdir -p "$W"
L=2 S=4 H=2 RATE=100 BUF=250000
# Under emulation (vm/run sets DCBPF_VM=1) the guest's CPU may not carry
# several links' worth: at a fifth of the rate the TBFs limit again.
[ "${DCBPF_VM:-0}" = 1 ] && RATE=20
T=4		# seconds of iperf3 load
P=4		# parallel flows per client

for c in iperf3 jq ping; do
	command -v $c >/dev/null || { t_fail "leafspine: prerequisites" "'$c' missing: apt-get install -y iperf3 jq iputils-ping"; exit 1; }
done

leftovers() {
	{ ip netns list | awk -v p="$1-" 'index($1, p) == 1 {print "netns " $1}'
	  ip -o link show | awk -F': ' -v p="$1" 'index($2, p) == 1 {print "link " $2}'; } | tr '\n' ' '
}
# sent NS DEV: bytes the root TBF of DEV has sent.
sent() { tc -n "$1" -s qdisc show dev "$2" | sed -nE '1,/Sent/s/.*Sent ([0-9]+) bytes.*/\1/p' | head -n 1; }

# ---- 1. the fabric comes up ---------------------------------------------------
if ! fabric_leafspine $L $S $H $RATE $BUF; then
	t_fail "leafspine: 2x4x2 comes up" "fabric_leafspine failed"
	exit 1
fi
id=$FAB_ID
n=$(ip netns list | grep -c "^${FAB_ID}-")
bad=""
for ((l = 0; l < L; l++)); do
	for ((s = 0; s < S; s++)); do
		k=$((l * S + s))
		[[ $(tc -n "${FAB_LEAVES[l]}" qdisc show dev "${FAB_UPLINKS[k]}") == *"tbf 1: root"*"rate ${RATE}Mbit"* ]] ||
			bad+=" ${FAB_UPLINKS[k]}"
		[[ $(tc -n "${FAB_SPINES[s]}" qdisc show dev "${FAB_DOWNLINKS[k]}") == *"tbf 1: root"*"rate ${RATE}Mbit"* ]] ||
			bad+=" ${FAB_DOWNLINKS[k]}"
	done
done
if [ "$n" = $((L + S + L * H)) ] && [ ${#FAB_HOSTS[@]} = $((L * H)) ] &&
	[ ${#FAB_UPLINKS[@]} = $((L * S)) ] && [ ${#FAB_DOWNLINKS[@]} = $((L * S)) ] && [ -z "$bad" ]; then
	t_pass "leafspine: 2x4x2 comes up ($n namespaces, TBF ${RATE}Mbit on 8 uplinks and 8 downlinks)"
else
	t_fail "leafspine: 2x4x2 comes up" "namespaces=$n hosts=${#FAB_HOSTS[@]} uplinks=${#FAB_UPLINKS[@]} no TBF on:$bad"
fi
maxlen=0
for d in "${FAB_UPLINKS[@]}" "${FAB_DOWNLINKS[@]}" "${FAB_HOST_DEVS[@]}" "${FAB_LEAF_PORTS[@]}"; do
	[ ${#d} -gt "$maxlen" ] && maxlen=${#d}
done
want_ips="10.78.0.1 10.78.0.2 10.78.1.1 10.78.1.2"
if [ "${FAB_HOST_IPS[*]}" = "$want_ips" ] && [ "${FAB_HOST_LEAF[*]}" = "0 0 1 1" ] && [ "$maxlen" -le 15 ]; then
	t_pass "leafspine: addresses 10.78.<leaf>.<host+1>, device names ≤ 15 chars ($maxlen)"
else
	t_fail "leafspine: addressing" "ips=${FAB_HOST_IPS[*]} leaves=${FAB_HOST_LEAF[*]} longest name=$maxlen"
fi
ok=1
for ((l = 0; l < L; l++)); do
	[ "$(ip netns exec "${FAB_LEAVES[l]}" sysctl -n net.ipv4.fib_multipath_hash_policy)" = 1 ] || ok=0
	nh=$(ip -n "${FAB_LEAVES[l]}" route show "10.78.$((1 - l)).0/24" | grep -c nexthop)
	[ "$nh" = $S ] || ok=0
done
if [ $ok = 1 ]; then t_pass "leafspine: each leaf has an ECMP route over $S spines, L4 hash policy"
else t_fail "leafspine: ECMP at the leaves" "$(ip -n "${FAB_LEAVES[0]}" route | tr '\n' ' ')"; fi

t_check "leafspine: every host reaches every other host (12 pairs)" fabric_leafspine_ping_all

# ---- 2. ECMP spreads flows over the spines --------------------------------------
# Hosts of leaf 0 send to the hosts of leaf 1, $P flows each: 8 flows over
# 4 uplinks land on one uplink with probability 4^-7.
srv_pids=()
for h in 0 1; do
	i=$((H + h))
	fabric_bg "${FAB_HOSTS[i]}" iperf3 -s -p 5201 -B "${FAB_HOST_IPS[i]}" >"$W/server-$h.log" 2>&1
	srv_pids+=("$FAB_LAST_PID")
	fabric_wait_port "${FAB_HOSTS[i]}" 5201 || t_fail "leafspine: iperf3 server on ${FAB_HOST_IPS[i]}" "not listening"
done
before_up=() before_dn=()
for ((s = 0; s < S; s++)); do
	before_up[s]=$(sent "${FAB_LEAVES[0]}" "${FAB_UPLINKS[s]}")
	before_dn[s]=$(sent "${FAB_SPINES[s]}" "${FAB_DOWNLINKS[S + s]}")
done
cli_pids=()
for h in 0 1; do
	fabric_bg "${FAB_HOSTS[h]}" iperf3 -c "${FAB_HOST_IPS[H + h]}" -p 5201 -P $P -t $T -J >"$W/client-$h.json" 2>&1
	cli_pids+=("$FAB_LAST_PID")
done
rc=0
for pid in "${cli_pids[@]}"; do wait "$pid" || rc=1; done
gp=0
for h in 0 1; do
	g=$(jq -r '.end.sum_received.bits_per_second // 0' "$W/client-$h.json" 2>/dev/null || echo 0)
	gp=$(awk -v a="$gp" -v b="$g" 'BEGIN {printf "%.0f", a + b / 1e6}')
done
up=() dn=() total=0 used=0 usedlist="" over="" mism=""
for ((s = 0; s < S; s++)); do
	up[s]=$(($(sent "${FAB_LEAVES[0]}" "${FAB_UPLINKS[s]}") - before_up[s]))
	dn[s]=$(($(sent "${FAB_SPINES[s]}" "${FAB_DOWNLINKS[S + s]}") - before_dn[s]))
	total=$((total + up[s]))
done
for ((s = 0; s < S; s++)); do
	# "used": at least 5 % of the bytes; an idle uplink sees only a few ARPs
	if [ $((up[s] * 20)) -ge "$total" ] && [ "$total" -gt 0 ]; then
		used=$((used + 1)) usedlist+=" s$s"
	fi
	# no uplink above its rate (+5 %, plus the 16 KB bucket)
	[ "${up[s]}" -le $((RATE * 125000 * T * 105 / 100 + 16384 + RATE * 125000)) ] || over+=" s$s"
	# the flow that took uplink s comes down from spine s: ±2 % + 64 KB
	d=$((up[s] - dn[s])); d=${d#-}
	[ "$d" -le $((up[s] / 50 + 65536)) ] || mism+=" s$s(${up[s]}/${dn[s]})"
done
echo "uplink bytes (leaf 0): ${up[*]}; downlink bytes (to leaf 1): ${dn[*]}; goodput ${gp} Mbit/s" >"$W/spread.txt"
if [ $rc = 0 ] && [ $used -ge 2 ]; then
	t_pass "leafspine: $((2 * P)) iperf3 flows leaf 0 → leaf 1 use $used of $S uplinks ($usedlist; bytes ${up[*]})"
else
	t_fail "leafspine: ECMP uses ≥ 2 uplinks" "iperf3 rc=$rc used=$used bytes=${up[*]}"
fi
if [ -z "$mism" ]; then t_pass "leafspine: each flow's spine carries it down to leaf 1 (uplink s bytes = downlink s bytes)"
else t_fail "leafspine: uplink/downlink byte match" "$mism"; fi
if [ -z "$over" ]; then t_pass "leafspine: every uplink stays within its $RATE Mbit/s TBF"
else t_fail "leafspine: uplink TBF rate" "above rate:$over (bytes ${up[*]})"; fi
# with ≥ 2 uplinks in use the pair of leaves gets more than one link's rate
# (goodput ≤ 95.6 % of the wire rate per link)
if [ "$gp" -gt $((RATE * 110 / 100)) ] && [ "$gp" -le $((RATE * S)) ]; then
	t_pass "leafspine: aggregate goodput $gp Mbit/s exceeds one link ($RATE), within $S links"
else
	t_fail "leafspine: aggregate goodput over several spines" "$gp Mbit/s (one link $RATE, $used uplinks used)"
fi

# ---- 3. teardown -------------------------------------------------------------
fabric_teardown
left=$(leftovers "$id")
alive=""
for pid in "${srv_pids[@]}" "${cli_pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive+=" $pid"; done
if [ -z "$left" ] && [ -z "$alive" ]; then t_pass "leafspine: teardown leaves no namespace, veth or process"
else t_fail "leafspine: teardown" "left: $left processes:$alive"; fi

# A builder that fails half-way (bad TBF burst at the first shaped link)
# is torn down completely as well.
( FAB_TBF_BURST=bogus fabric_leafspine 2 2 1 $RATE $BUF >/dev/null 2>&1; echo "$FAB_ID" >"$W/failed-id"; fabric_teardown )
fid=$(cat "$W/failed-id")
left=$(leftovers "$fid")
if [ -n "$fid" ] && [ -z "$left" ]; then t_pass "leafspine: a builder failing half-way leaves nothing ($fid)"
else t_fail "leafspine: half-built teardown" "id '$fid' left: $left"; fi
t_expect_fail "leafspine: L = 0 is refused" fabric_leafspine 0 4 2 $RATE $BUF
fabric_teardown
[ -n "${T_FAILED:-}" ] && exit 1
exit 0
