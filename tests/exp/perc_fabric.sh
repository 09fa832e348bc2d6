#!/usr/bin/env bash
# s-PERC* on the leaf-spine fabric against DCTCP and PowerTCP: the fabric
# experiments of L. Jose, "Proactive Congestion Control" (PhD thesis,
# Stanford 2019), scaled to this machine (docs/results.md, "s-PERC* on the
# fabric"):
#
#   churn   §4.3.1 (convergence after churn): four long flows over two
#           bottlenecks join one at a time and leave last in first out;
#           after every join and leave, per flow the time until its rate
#           is within 10 % of its max-min rate and stays there for 100 ms
#   incast  Table 4.2 / Fig. 4.7: K in {2, 3, 10} flows join a long flow
#           into one receiver; the time from the last join until every
#           rate is within 20 % of max-min for 50 ms (the thesis' metric)
#           and within 10 % for 100 ms, and the time until the
#           bottleneck queue is back under the ECN threshold
#   drop    §4.3.3 (robustness to dropped control packets): the churn's
#           four flows steady, then every switch port goes dark to control
#           packets D % of the time for DROP_S; the time from the last
#           drop until every allocation is exactly the max-min rate
#           again (dcbpf perc status) and until every rate is within 10 %
#
# Fabric: fabric_leafspine 2 leaves x 1 spine x H hosts (one spine: the
# control packet must cross the links of its data, and the kernel's ECMP is
# not symmetric), every link (host links too) a TBF at RATE Mbit/s; on it
# tests/lib/ccfab.sh's switches (ECN above K for DCTCP, INT for PowerTCP)
# and dcbpfd (powertcp, dctcp, perc), and on every port the s-PERC* link
# program (dcbpf perc attach, capacity CAP_PCT of the rate, below) with a
# control loop on every
# host (dcbpf perc host).  One flow per sender host: a flow's rate is its
# host's TBF's sent bytes, sampled every 5 ms by tests/tools/qsample (on
# the wire: headers and INT bytes counted, as the max-min rates of the
# shaped links).  Variants run interleaved within each repetition.
#
#   sudo tests/exp/perc_fabric.sh              # all parts, 3 repetitions (~6 min)
#   sudo tests/exp/perc_fabric.sh incast       # one part
#   SHORT=1                                    # make check: one fabric, every part once, ~40 s
#
# Output under $OUT (out/perc-exp): raw/<part>/ (samples, trials.jsonl,
# status snapshots), and from tests/exp/perc-summary: flows.csv (per
# event and flow), trials.csv (per trial), summary.csv (min/median/max over
# repetitions), summary.json, summary.png, churn.png, incast.png, drop.png.
#
# Env: SHORT (0|1), REPS, RATE (Mbit/s, 200), BUF (switch buffer, bytes),
# CCFAB_ECN_K (DCTCP's K, 20000), VARIANTS (s-perc-star dctcp powertcp),
# KS (incast sizes), DROPS (per switch port, % of the time dark to control),
# STEP_S (churn phase), CAP_PCT (85), ROUND_US (10000), WIRE_OVH (102),
# QUEUES (2; 1: control packets share the data queue), BUILD, OUT.  Holds
# /tmp/dcbpf-suite.lock while a
# fabric is up (one part at a time) unless DCBPF_SUITE_LOCKED=1.
# shellcheck shell=bash
# SC2317: functions run from traps.  SC2015: "A && B || fail" is meant.
# shellcheck disable=SC2317,SC2015
set -u
cd "$(dirname "$0")/../.." || exit 1
PART=${1:-all}
case $PART in
all | churn | incast | drop) ;;
run) [ -n "${PARTS:-}" ] || { echo "perc_fabric: run needs PARTS" >&2; exit 2; } ;;
*) echo "usage: tests/exp/perc_fabric.sh [all|churn|incast|drop]" >&2; exit 2 ;;
esac
SHORT=${SHORT:-0}
case $SHORT in
0 | 1) ;;
*) echo "perc_fabric: SHORT is 0 or 1, not '$SHORT'" >&2; exit 2 ;;
esac
BUILD=${BUILD:-build}
OUT=$(realpath -m "${OUT:-out/perc-exp}")
RATE=${RATE:-200} BUF=${BUF:-300000}
export CCFAB_ECN_K=${CCFAB_ECN_K:-20000}
# data capacity of a link: the thesis' 2 % headroom (§4.1, Fig. 4.1); the
# control packets (11 flows' 106-byte packets every 1 ms are 4.7 % of 200
# Mbit/s); and 6 % for what an allocation does not count on the wire: TCP
# paces a GSO burst by its length with one header (a 1448-byte segment is
# 1500 on the wire: 3.6 %) and INT adds its option after the stack.  At 90 %
# an incast of 10 kept the queue full (docs/results.md).
CAP_PCT=${CAP_PCT:-85}
# what a perc flow's data segment carries on the wire beside its payload:
# Ethernet, IPv4, TCP with timestamps (66) and the INT option the hosts add
# after the stack (36): the CC paces payload so that the wire rate is the
# allocation (dcbpf perc host --wire-overhead-bytes)
WIRE_OVH=${WIRE_OVH:-102}
# two strict-priority queues on every switch port: the control packets
# (DSCP 48, dcbpf perc host --dscp) go ahead of the data (thesis §4.1)
export CCFAB_QUEUES=${QUEUES:-2}
# round > interval + control RTT + the loops' scheduling delay on a loaded
# 2-core machine (docs/perc.md); twice tests/integ/perc.sh's
ROUND=${ROUND_US:-10000} IVAL=1000 RTO=20000
if [ "$SHORT" = 1 ]; then
	REPS=${REPS:-1} VARIANTS=${VARIANTS:-s-perc-star dctcp} KS=${KS:-2} DROPS=${DROPS:-5}
	STEP_S=${STEP_S:-1} H=3 NCHURN=2
else
	REPS=${REPS:-3} VARIANTS=${VARIANTS:-s-perc-star dctcp powertcp} KS=${KS:-2 3 10} DROPS=${DROPS:-0 1 5}
	STEP_S=${STEP_S:-2} H=6 NCHURN=4
fi
export BUILD
DCBPF=$BUILD/dcbpf
die() { echo "perc_fabric: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
for c in iperf3 jq python3 gnuplot; do command -v $c >/dev/null || die "'$c' missing (make deps)"; done
[ -x "$DCBPF" ] && [ -x "$BUILD/tools/qsample" ] || die "$DCBPF or $BUILD/tools/qsample not built (make)"
for k in $KS; do
	[ "$k" -ge 1 ] && [ "$k" -le $((2 * H - 2)) ] || die "KS: incast sizes 1..$((2 * H - 2)) with $H hosts per leaf"
done

# all: one part per fabric and lock hold (full mode), or one fabric for
# every part (SHORT=1); then the tables and figures.
if [ "$PART" = all ]; then
	mkdir -p "$OUT" || exit 1
	rm -rf "$OUT/raw" "$OUT"/*.csv "$OUT"/summary.json "$OUT"/*.png
	rc=0
	if [ "$SHORT" = 1 ]; then
		PARTS="churn incast drop" "$0" run || rc=1
	else
		for p in churn incast drop; do "$0" "$p" || rc=1; done
	fi
	python3 tests/exp/perc-summary "$OUT" || rc=1
	exit $rc
fi
if [ "$PART" != run ]; then
	PARTS=$PART
	rm -rf "${OUT:?}/raw/$PART"
fi
PARTS=${PARTS:-$PART}

source tests/lib/suitelock.sh && suite_lock_take
source tests/lib/fabric.sh
source tests/lib/dcbpfd.sh
source tests/lib/ccfab.sh
export FAB_RTO_MIN_MS=${FAB_RTO_MIN_MS:-10} FAB_LS_HOST_MBIT=$RATE
mkdir -p "$OUT/raw" || exit 1
LOG=$OUT/raw/log
mkdir -p "$LOG"

# ---- the fabric ------------------------------------------------------------
ccfab_leafspine_up 2 1 "$H" "$RATE" "$BUF" "$LOG" >"$LOG/fabric.log" 2>&1 || die "fabric: $CCFAB_ERR"
grep -qw perc /proc/sys/net/ipv4/tcp_available_congestion_control || die "dcbpfd did not register perc"
D=("$DCBPF" --pin-dir "$DCBPFD_PIN")
NH=${#FAB_HOSTS[@]}
echo "perc_fabric: fabric $FAB_ID: 2 leaves, 1 spine, $H hosts per leaf, every link $RATE Mbit/s," \
	"ping RTT $CCFAB_PING_US us; parts: $PARTS"

# pc_attach_all: the s-PERC* link program on every port of the fabric,
# each directed link at CAP_PCT % of its rate; the hosts' ports turn
# control packets around.  Link indexes are per namespace (1..).
CAP=$((RATE * 10 * CAP_PCT))
pc_att() { "${D[@]}" perc attach --round-us $ROUND --alg s-perc-star --cap-kbps $CAP "$@" >/dev/null; }
pc_attach_all() {
	local i l n h
	for ((i = 0; i < NH; i++)); do
		pc_att --netns "${FAB_HOSTS[i]}" --dev "${FAB_HOST_DEVS[i]}" --link 1 --host || return 1
	done
	for ((l = 0; l < 2; l++)); do
		n=1
		for ((h = 0; h < H; h++)); do
			pc_att --netns "${FAB_LEAVES[l]}" --dev "${FAB_LEAF_PORTS[l * H + h]}" --link $n || return 1
			n=$((n + 1))
		done
		pc_att --netns "${FAB_LEAVES[l]}" --dev "${FAB_UPLINKS[l]}" --link $n || return 1
		pc_att --netns "${FAB_SPINES[0]}" --dev "${FAB_DOWNLINKS[l]}" --link $((l + 1)) || return 1
	done
}
pc_detach_all() {
	local ns
	for ns in "${FAB_HOSTS[@]}" "${FAB_LEAVES[@]}" "${FAB_SPINES[@]}"; do
		"${D[@]}" perc detach --netns "$ns" >/dev/null 2>&1
	done
	return 0
}
fabric_on_exit pc_detach_all
pc_attach_all >"$LOG/attach.log" 2>&1 || die "perc attach: $(tail -n 3 "$LOG/attach.log")"

# the control loops: one per host, paths of 2 links in the leaf, 4 across
fabric_cgroup || die "no cgroup v2"
LOOPS=()
for ((i = 0; i < NH; i++)); do
	l=${FAB_HOST_LEAF[i]}
	fabric_bg "" "${D[@]}" perc host --netns "${FAB_HOSTS[i]}" --cgroup "$FAB_ETH_CG" --interval-us $IVAL \
		--rto-us $RTO --line-kbps $((RATE * 1000)) --wire-overhead-bytes "$WIRE_OVH" --path "10.78.$l.0/24=2" --path 10.78.0.0/16=4 \
		>"$LOG/loop-$i.out" 2>"$LOG/loop-$i.err"
	LOOPS+=("$FAB_LAST_PID")
done
loops_up() { local i; for ((i = 0; i < NH; i++)); do grep -q running "$LOG/loop-$i.err" || return 1; done; }
for _ in $(seq 50); do loops_up && break; sleep 0.1; done
loops_up || die "control loops: $(cat "$LOG"/loop-*.err | head -n 5)"

# receivers: leaf 1's hosts 0 and 1, one iperf3 server per sender (port 5301 + sender)
RX=("$H" $((H + 1)))	# FAB_HOSTS indexes of leaf 1's hosts 0 and 1
for r in "${RX[@]}"; do
	for ((i = 0; i < NH; i++)); do
		fabric_bg "${FAB_HOSTS[r]}" iperf3 -s -p $((5301 + i)) >/dev/null 2>&1
	done
done
for r in "${RX[@]}"; do fabric_wait_port "${FAB_HOSTS[r]}" $((5300 + NH)) || die "iperf3 servers"; done

# ---- helpers -------------------------------------------------------------------
now() { echo "${EPOCHREALTIME/./}"; }	# µs, realtime; the offset to qsample's clock is recorded
host_dev_route() { # I [CC]: host I's route to the fabric, with congctl CC if given
	local i=$1 cc=${2:-} l=${FAB_HOST_LEAF[$1]} x=()
	[ -n "$cc" ] && x=(congctl "$cc")
	ip -n "${FAB_HOSTS[i]}" route replace 10.78.0.0/16 via "10.78.$l.254" dev "${FAB_HOST_DEVS[i]}" \
		mtu lock "${FAB_MTU:-1500}" rto_min "${FAB_RTO_MIN_MS}ms" "${x[@]}"
}
# pc_variant V: the receivers as variant V wants them.  DCTCP: this kernel
# accepts ECN on a dctcp SYN only from a listener whose CC needs ECN
# (tests/lib/ccfab.sh); iperf3's server sets the CC after accept, so the
# receivers' route carries congctl dctcp, which the handshake takes.
pc_variant() {
	local r
	for r in "${RX[@]}"; do
		if [ "$1" = dctcp ]; then host_dev_route "$r" dctcp; else host_dev_route "$r"; fi || return 1
	done
}
cc_of() { case $1 in s-perc-star) echo perc ;; *) echo "$1" ;; esac; }
# flow NAME SRC DST DUR CC: an iperf3 client from host SRC to host DST
# (FAB_HOSTS indexes) for DUR whole seconds (iperf3 reads -t as an integer:
# 0.8 would be 0, no end)
declare -A FPID
flow() {
	local name=$1 s=$2 d=$3 dur=$4 cc=$5
	dur=$(awk -v d="$dur" 'BEGIN { n = int(d); if (n < d) n++; print (n < 1 ? 1 : n) }')
	fabric_cg_exec "${FAB_HOSTS[s]}" timeout $((dur + 15)) iperf3 -c "${FAB_HOST_IPS[d]}" -p $((5301 + s)) -C "$cc" -t "$dur" -J \
		>"$TDIR/$name.json" 2>&1 &
	FAB_PIDS+=("$!")
	FPID[$name]=$!
	# no jq here: an incast's flows start one right after the other
	FLOWS_JSON+=("$(printf '{"name": "%s", "src": %s, "dst": %s, "src_ip": "%s", "dport": %s, "dur_s": %s, "launch_us": %s}' \
		"$name" "$s" "$d" "${FAB_HOST_IPS[s]}" $((5301 + s)) "$dur" "$(now)")")
}
# oracle PCT NAME:SRC:DST...: max-min rates (kbps) with every link at PCT % of RATE
oracle() {
	local pct=$1 cap spec n s d ls ld topo
	shift
	cap=$((RATE * 10 * pct))
	declare -A seen=()
	topo=$(mktemp /tmp/perc-exp-topo.XXXXXX)
	{
		for spec in "$@"; do
			IFS=: read -r n s d <<<"$spec"
			ls=${FAB_HOST_LEAF[s]} ld=${FAB_HOST_LEAF[d]}
			if [ "$ls" = "$ld" ]; then p="Uh$s Dh$d"; else p="Uh$s U$ls D$ld Dh$d"; fi
			for x in $p; do
				[ -n "${seen[$x]:-}" ] || { echo "link $x $cap"; seen[$x]=1; }
			done
		done
		for spec in "$@"; do
			IFS=: read -r n s d <<<"$spec"
			ls=${FAB_HOST_LEAF[s]} ld=${FAB_HOST_LEAF[d]}
			if [ "$ls" = "$ld" ]; then echo "flow $n Uh$s Dh$d"; else echo "flow $n Uh$s U$ls D$ld Dh$d"; fi
		done
	} >"$topo"
	"$DCBPF" --json perc oracle --topo "$topo" | jq -c '[.flows[] | {(.flow): .rate_kbps}] | add'
	rm -f "$topo"
}
# maxmin SPEC...: {"ideal": {...}, "alloc": {...}}: at 100 % (the thesis'
# reference: "within 10 % of the ideal, which uses 100 % of the capacity")
# and at the links' configured capacity (what s-PERC* allocates exactly)
maxmin() { jq -cn --argjson a "$(oracle 100 "$@")" --argjson b "$(oracle $CAP_PCT "$@")" '{ideal: $a, alloc: $b}'; }
# snapshot FILE: the flows' allocations as dcbpf perc status shows them
snapshot() { { printf '{"t_us": %s, "status": ' "$(now)"; "${D[@]}" --json perc status --netns "${FAB_HOSTS[0]}" | jq -c .; echo '}'; } >"$1" 2>/dev/null; }
# snapshot_at S FILE: one snapshot S seconds from now, in the background
SNAPS=()
snapshot_at() { (sleep "$1"; snapshot "$2") & SNAPS+=("$!"); }
# trial_begin PART VARIANT REP PARAM / trial_end [EXTRA_JSON]
TRIAL=0
trial_begin() {
	TRIAL=$((TRIAL + 1))
	T_PART=$1 T_VAR=$2 T_REP=$3 T_PARAM=$4
	TDIR=$OUT/raw/$1/t$TRIAL
	mkdir -p "$TDIR"
	FLOWS_JSON=()
	T_LA=$(cut -d' ' -f1 /proc/loadavg)
	T0=$(now)
	echo "perc_fabric: $1 $2 rep $3 ${4:+param $4 }(load average $T_LA)"
}
trial_end() {
	local extra=${1:-"{}"} f
	for f in "${FPID[@]}" "${SNAPS[@]}"; do wait "$f" 2>/dev/null; done
	FPID=() SNAPS=()
	printf '%s\n' "${FLOWS_JSON[@]}" | jq -cs --arg p "$T_PART" --arg v "$T_VAR" --argjson r "$T_REP" \
		--arg pa "$T_PARAM" --argjson t "$TRIAL" --arg t0 "$T0" --arg t1 "$(now)" --arg la "$T_LA" \
		--arg la1 "$(cut -d' ' -f1 /proc/loadavg)" --arg d "t$TRIAL" --argjson x "$extra" --argjson mm "$MM" \
		'{part: $p, variant: $v, rep: $r, param: $pa, trial: $t, dir: $d, t0_us: ($t0 | tonumber),
		  t1_us: ($t1 | tonumber), loadavg_before: ($la | tonumber), loadavg_after: ($la1 | tonumber),
		  maxmin: $mm, flows: .} + $x' >>"$OUT/raw/$T_PART/trials.jsonl"
	sleep 0.5	# the queues drain, the last FINs cross
}

# samplers: every host's TBF (its flow's rate), the incast bottleneck (leaf 1
# to its host 0) and leaf 0's uplink, every 5 ms, for the whole part
start_samplers() {
	local d=$1 i
	for ((i = 0; i < NH; i++)); do
		fabric_bg "${FAB_HOSTS[i]}" "$BUILD/tools/qsample" -i 5000 -d "${FAB_HOST_DEVS[i]}" -o "$d/q-h$i.csv"
		SAMPLERS+=("$FAB_LAST_PID")
	done
	fabric_bg "${FAB_LEAVES[1]}" "$BUILD/tools/qsample" -i 5000 -d "${FAB_LEAF_PORTS[H]}" -o "$d/q-bn.csv"
	SAMPLERS+=("$FAB_LAST_PID")
	fabric_bg "${FAB_LEAVES[0]}" "$BUILD/tools/qsample" -i 5000 -d "${FAB_UPLINKS[0]}" -o "$d/q-up.csv"
	SAMPLERS+=("$FAB_LAST_PID")
	python3 -c 'import time; print(time.time_ns() // 1000 - time.monotonic_ns() // 1000)' >"$d/clock_offset_us"
	sleep 0.2
}
stop_samplers() { local p; for p in "${SAMPLERS[@]}"; do fabric_kill "$p"; done; SAMPLERS=(); }

# switch ports (leaves and spine) for the control-packet drop filter
SW_PORTS=()
for ((l = 0; l < 2; l++)); do
	for ((h = 0; h < H; h++)); do SW_PORTS+=("${FAB_LEAVES[l]}:${FAB_LEAF_PORTS[l * H + h]}"); done
	SW_PORTS+=("${FAB_LEAVES[l]}:${FAB_UPLINKS[l]}" "${FAB_SPINES[0]}:${FAB_DOWNLINKS[l]}")
done
# Control-packet loss: this kernel has no gact, netem or prio, so a
# switch port loses control packets in blackouts: a u32 filter on its
# egress (UDP port 20549, both ways) redirects them to a veth that is down
# (mirred drops them) for BH_MS, at random gaps (uniform, mean set so the
# port is dark PCT % of the time).  Bursty, not independent losses: every
# blackout loses the packet in flight of each flow crossing the port and
# the sender restarts it (s-PERC*'s shadows take out what it left).  What
# was lost is counted by the senders: control packets sent less received.
BH_MS=20
bh_setup() {
	local ns
	for ns in "${FAB_LEAVES[@]}" "${FAB_SPINES[0]}"; do
		ip -n "$ns" link add "${FAB_ID}bh" type veth peer name "${FAB_ID}bk" || return 1
	done
	for p in "${SW_PORTS[@]}"; do tc -n "${p%%:*}" qdisc add dev "${p#*:}" clsact 2>/dev/null; done
	return 0
}
# bh_port NS DEV PCT END_US: blackouts on one port until END_US
bh_port() {
	local ns=$1 dev=$2 mean=$((BH_MS * 100 / $3 - BH_MS)) g
	while [ "$(now)" -lt "$4" ]; do
		g=$((RANDOM % (2 * mean + 1)))
		sleep "$((g / 1000)).$(printf %03d $((g % 1000)))"
		[ "$(now)" -lt "$4" ] || break
		tc -n "$ns" filter add dev "$dev" egress pref 49 protocol ip u32 match ip protocol 17 0xff \
			match ip dport 20549 0xffff action mirred egress redirect dev "${FAB_ID}bh" 2>/dev/null
		sleep "0.$(printf %03d $BH_MS)"
		tc -n "$ns" filter del dev "$dev" egress pref 49 2>/dev/null
	done
}
# ctrl_lost: control packets sent less received, summed over the flows
ctrl_lost() { "${D[@]}" --json perc status --netns "${FAB_HOSTS[0]}" | jq '[.flows[] | .ctrl_sent - .ctrl_rcvd] | add // 0'; }
restarts() { "${D[@]}" --json perc status --netns "${FAB_HOSTS[0]}" | jq '[.flows[].restarts] | add // 0'; }

# flows of the churn and drop parts (FAB_HOSTS indexes): two bottlenecks,
# leaf 0's uplink (F0, F1, F2) and the port to leaf 1's host 1 (F2, F3):
#   F0: h0.0 -> h1.0   F1: h0.1 -> h1.0   F2: h0.2 -> h1.1   F3: h1.2 -> h1.1
CH_SRC=(0 1 2 $((H + 2))) CH_DST=("$H" "$H" $((H + 1)) $((H + 1)))

# ---- churn: join one every STEP_S, leave last in first out ---------------------
part_churn() {
	local rep v k specs=()
	for ((k = 0; k < NCHURN; k++)); do specs+=("F$k:${CH_SRC[k]}:${CH_DST[k]}"); done
	# every phase's flow set: F0..Fk
	MM=$(for ((k = 1; k <= NCHURN; k++)); do
		jq -cn --arg s "$(IFS=,; echo "${specs[*]:0:k}" | sed 's/:[0-9]*:[0-9]*//g')" \
			--argjson m "$(maxmin "${specs[@]:0:k}")" '{($s): $m}'
	done | jq -cs add)
	for ((rep = 1; rep <= REPS; rep++)); do
		for v in $VARIANTS; do
			pc_variant "$v" || return 1
			trial_begin churn "$v" "$rep" ""
			for ((k = 0; k < NCHURN; k++)); do
				# F_k runs from k steps to 2 NCHURN - 1 - k steps
				flow "F$k" "${CH_SRC[k]}" "${CH_DST[k]}" \
					"$(awk -v s="$STEP_S" -v n=$((2 * NCHURN - 1 - 2 * k)) 'BEGIN { print s * n }')" "$(cc_of "$v")"
				[ "$v" = s-perc-star ] && snapshot_at "$(awk -v s="$STEP_S" 'BEGIN { print s * 0.9 }')" "$TDIR/alloc-$((k + 1)).json"
				sleep "$STEP_S"
			done
			trial_end
		done
	done
}

# ---- incast: K flows join a long flow into one receiver --------------------------
WARM_S=1 JOIN_S=2
part_incast() {
	local rep v k j s specs srcs
	# joiners: leaf 0's hosts 1.. then leaf 1's hosts 2.. (all into leaf 1's host 0)
	srcs=()
	for ((j = 1; j < H; j++)); do srcs+=("$j"); done
	for ((j = 2; j < H; j++)); do srcs+=($((H + j))); done
	[ "$H" -gt 2 ] && srcs+=($((H + 1)))
	for ((rep = 1; rep <= REPS; rep++)); do
		for k in $KS; do
			specs=("L:0:$H")
			for ((j = 0; j < k; j++)); do specs+=("J$((j + 1)):${srcs[j]}:$H"); done
			MM=$(jq -cn --arg s "$(for x in "${specs[@]}"; do echo "${x%%:*}"; done | paste -sd, -)" \
				--argjson m "$(maxmin "${specs[@]}")" '{($s): $m}')
			for v in $VARIANTS; do
				pc_variant "$v" || return 1
				trial_begin incast "$v" "$rep" "$k"
				flow L 0 "$H" $((WARM_S + JOIN_S + 1)) "$(cc_of "$v")"
				sleep $WARM_S
				for ((j = 0; j < k; j++)); do flow "J$((j + 1))" "${srcs[j]}" "$H" $JOIN_S "$(cc_of "$v")"; done
				[ "$v" = s-perc-star ] && snapshot_at 0.9 "$TDIR/alloc-join.json"
				trial_end
			done
		done
	done
}

# ---- drop: control packets lost at every switch port for DROP_S -----------------
STEADY_S=1 DROP_S=2 RECOV_S=2
part_drop() {
	local rep val specs=() k t_on t_off r0 r1 l0 l1 end p bh
	for ((k = 0; k < NCHURN; k++)); do specs+=("F$k:${CH_SRC[k]}:${CH_DST[k]}"); done
	MM=$(jq -cn --arg s "$(for x in "${specs[@]}"; do echo "${x%%:*}"; done | paste -sd, -)" \
		--argjson m "$(maxmin "${specs[@]}")" '{($s): $m}')
	[ "$SHORT" = 1 ] && STEADY_S=1 DROP_S=1 RECOV_S=1.5
	pc_variant s-perc-star && bh_setup || return 1
	for ((rep = 1; rep <= REPS; rep++)); do
		for val in $DROPS; do
			trial_begin drop s-perc-star "$rep" "$val"
			for ((k = 0; k < NCHURN; k++)); do
				# 2.5 s more: the filters' setup and removal take their time
				flow "F$k" "${CH_SRC[k]}" "${CH_DST[k]}" "$(awk -v a=$STEADY_S -v b=$DROP_S -v c=$RECOV_S \
					'BEGIN { print a + b + c + 2.5 }')" perc
			done
			sleep $STEADY_S
			r0=$(restarts) l0=$(ctrl_lost)
			t_on=$(now)
			bh=()
			if [ "$val" -gt 0 ]; then
				end=$((t_on + DROP_S * 1000000))
				for p in "${SW_PORTS[@]}"; do bh_port "${p%%:*}" "${p#*:}" "$val" $end & bh+=("$!"); done
			fi
			sleep $DROP_S
			for p in "${bh[@]}"; do wait "$p"; done
			t_off=$(now)
			r1=$(restarts) l1=$(ctrl_lost)
			# the allocations after the last drop, as often as status runs
			end=$((t_off + $(awk -v s=$RECOV_S 'BEGIN { printf "%d", s * 1e6 - 300000 }')))
			k=0
			while [ "$(now)" -lt $end ]; do
				k=$((k + 1))
				snapshot "$TDIR/alloc-$k.json"
			done
			trial_end "$(jq -cn --arg a "$t_on" --arg b "$t_off" --argjson d $((l1 - l0)) --argjson r $((r1 - r0)) \
				--argjson p "$val" --argjson bh $BH_MS '{drop_on_us: ($a | tonumber), drop_off_us: ($b | tonumber),
				ctrl_dropped: $d, restarts: $r, dark_pct: $p, blackout_ms: $bh}')"
		done
	done
}

# ---- the runs --------------------------------------------------------------------
SAMPLERS=()
rc=0
for p in $PARTS; do
	mkdir -p "$OUT/raw/$p"
	start_samplers "$OUT/raw/$p"
	jq -cn --argjson rate "$RATE" --argjson buf "$BUF" --argjson k "$CCFAB_ECN_K" --argjson h "$H" \
		--argjson cap "$CAP_PCT" --argjson round $ROUND --argjson ival $IVAL --argjson rto $RTO \
		--argjson ping "${CCFAB_PING_US:-0}" --argjson tau "${CCFAB_TAU_US:-0}" --arg v "$VARIANTS" \
		--argjson short "$SHORT" --argjson step "$STEP_S" --arg cpus "$(nproc)" \
		--argjson ovh "$WIRE_OVH" --argjson queues "$CCFAB_QUEUES" \
		'{rate_mbit: $rate, switch_buffer_bytes: $buf, ecn_k_bytes: $k, hosts_per_leaf: $h, leaves: 2,
		  spines: 1, cap_pct: $cap, round_us: $round, interval_us: $ival, rto_us: $rto, ping_rtt_us: $ping,
		  powertcp_tau_us: $tau, variants: ($v | split(" ")), short: $short, churn_step_s: $step,
		  cpus: ($cpus | tonumber), sample_us: 5000, wire_overhead_bytes: $ovh,
		  switch_queues: $queues}' >"$OUT/raw/$p/params.json"
	"part_$p" || { echo "perc_fabric: part $p failed" >&2; rc=1; }
	stop_samplers
	# every switch's queues and counters: where the control packets went
	for s in "${CCFAB_SWS[@]}"; do
		"${D[@]}" --json switch status "$s" 2>/dev/null || echo null
	done | jq -s . >"$OUT/raw/$p/switches.json"
	# and the HTB leaves' own counts beside them
	for ns in "${FAB_LEAVES[@]}" "${FAB_SPINES[@]}"; do
		for dev in $(ip -n "$ns" -o link show | awk -F': ' '$2 != "lo" { sub(/@.*/, "", $2); print $2 }'); do
			# (tc 6.1 prints HTB classes as text only, even with -j)
			tc -n "$ns" -s class show dev "$dev" | awk -v d="$dev" '$1 == "class" { c = $3 }
				$1 == "Sent" && c != "" { printf "{\"dev\":\"%s\",\"classid\":\"%s\",\"bytes\":%s,\"packets\":%s}\n", d, c, $2, $4; c = "" }'
		done
	done | jq -s . >"$OUT/raw/$p/classes.json"
done
for p in "${LOOPS[@]}"; do fabric_kill "$p"; done
pc_detach_all
exit $rc
