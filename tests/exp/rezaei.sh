#!/usr/bin/env bash
# The evaluations of three systems of H. Rezaei, "Adaptive Microburst
# Control Techniques in Incast-Heavy Datacenter Networks" (PhD thesis, UIC
# 2021), scaled down to this machine's emulated fabric, with the workload
# harness (docs/workload.md; one schema, one plotting path):
#
#   slytherin  §4.1: DCTCP vs Slytherin (switch prio_mode=slytherin, 2 queues,
#              K = 25 % of the buffer), leaf-spine 2x2x4, all ports at RATE
#              (2:1 oversubscribed, as the thesis' fabric), short flows
#              8-32 KB and 1 MB long flows (30 % of the flows), incast
#              queries of FANIN x 16 KB on top
#   resqueue   §4.3: DCTCP vs PIAS vs ResQueue (hosts `dcbpf resq`, switch
#              prio_mode=resqueue with a 20 KB level 1), the same fabric with
#              4 queues per port, short flows 1-6 KB (80 % of them 1 KB) and
#              1 MB long flows, incast queries of FANIN x 2 KB
#   icon       §4.2: DCTCP vs IA-ICON (n = 1) vs ICON (n = FANIN from the
#              aggregator), `dcbpf icon` on every host, a dumbbell of 8
#              senders into one aggregator, background of which long flows
#              are 70 % of the bytes, incast queries of FANIN x 16 KB
#   smartbuf   §4.5: DT vs EDT vs complete sharing (cs) vs SmartBuf as the
#              leaves' admission (the spines run DT, as the thesis'), the
#              leaf-spine with one queue per port (host links shaped to
#              RATE too), short flows 1-32 KB and 1 MB long flows carrying
#              80 % of the bytes, incast queries of FANIN x 16 KB; every
#              leaf port's backlog sampled every 2 ms (the queue CDF); and
#              the fairness scenario (Fig. 44): long DCTCP flows into one
#              port of leaf 1 (from two hosts of the same leaf) while incast
#              queries of FANIN x 16 KB hit another port of that leaf
#
# Every variant runs the same seeds; variants are interleaved within each
# repetition (a loaded 2-core machine: min/median/max over REPS).  Output
# under $OUT (out/rezaei-SYSTEM):
#   load<L>/<variant>-r<k>.{csv,json}   the harness' per-flow CSV and summary
#   load<L>/{slowdown,cdf}.png, table.txt  tests/exp/plot-workload
#   runs.csv        one line per run: the thesis' metrics (below)
#   summary.csv     min/median/max over the repetitions per (variant, load)
#   summary.json    both, with the parameters; summary.png  p99 against load
#   smartbuf also:  load<L>/<variant>-r<k>.q<i>.csv  leaf port i's backlog
#                   (tests/tools/qsample), queue.png  its CDF per variant;
#                   fair/<variant>-r<k>.*  the fairness runs, fair.csv one
#                   line per run, fair.png the long flow's rate per 10 ms
# Metrics: the thesis' short flows (<= SHORT_MAX bytes, incast included)
# p50/p99 FCT and slowdown, the incast queries' completion time (the
# slowest of a query's FANIN flows) p50/p99, the switches' drops during the
# run, flows with 2 or more timeouts (a packet of theirs lost twice:
# ResQueue's claim) and the machine's load average.  SmartBuf adds the
# queue percentiles (every leaf port's samples pooled) and, in the fairness
# runs, the long flow's mean and lowest 10 ms rate while queries arrive.
#
#   sudo tests/exp/rezaei.sh slytherin        # SHORT=1: one load, 3 repetitions
#   sudo SHORT=0 tests/exp/rezaei.sh icon     # loads 0.3 and 0.6, 3 repetitions (~1.5 min)
#   sudo SHORT=0 tests/exp/rezaei.sh smartbuf # the same, and 3 fairness runs per variant
#   SHORT=smoke                               # make check: 1 load, 1 repetition, few flows
#
# Env: SHORT, LOADS, REPS, FLOWS (background flows per run), RATE (Mbit/s
# of every port, 100), B (switch buffer bytes, 150000), FANIN, PERIOD
# (ms between incast queries), SEED (first seed; repetition k uses SEED+k),
# BUILD, OUT.  Holds /tmp/dcbpf-suite.lock while a fabric is up unless
# DCBPF_SUITE_LOCKED=1.
# shellcheck shell=bash
# SC2317: rz_down runs from the EXIT trap.  SC2015: "A && B || fail" is meant.
# shellcheck disable=SC2317,SC2015
set -u
cd "$(dirname "$0")/../.." || exit 1
SYSTEM=${1:-${SYSTEM:-}}
case $SYSTEM in
slytherin | resqueue | icon | smartbuf) ;;
*) echo "usage: tests/exp/rezaei.sh slytherin|resqueue|icon|smartbuf" >&2; exit 2 ;;
esac
BUILD=${BUILD:-build}
OUT=${OUT:-out/rezaei-$SYSTEM}
SHORT=${SHORT:-1}
RATE=${RATE:-100} B=${B:-150000} SEED=${SEED:-1}
K=$((B / 4))	# the thesis' ECN threshold: 25 % of the buffer (§4.1, §4.3)
case $SHORT in
0 | 1 | smoke) ;;
*) echo "rezaei: SHORT is 0, 1 or smoke, not '$SHORT'" >&2; exit 2 ;;
esac
case $SHORT in
smoke) LOADS=${LOADS:-0.3} REPS=${REPS:-1} FLOWS=${FLOWS:-20} ;;
1) LOADS=${LOADS:-0.5} REPS=${REPS:-3} FLOWS=${FLOWS:-200} ;;
*) LOADS=${LOADS:-0.3 0.6} REPS=${REPS:-3} FLOWS=${FLOWS:-200} ;;
esac
case $SYSTEM in
slytherin) VARIANTS="dctcp slytherin" FANIN=${FANIN:-16} IBYTES=16000 SHORT_MAX=32000 PERIOD=${PERIOD:-100} ;;
resqueue) VARIANTS="dctcp pias resqueue" FANIN=${FANIN:-16} IBYTES=2000 SHORT_MAX=6000 PERIOD=${PERIOD:-50} ;;
icon) VARIANTS="dctcp ia-icon icon" FANIN=${FANIN:-24} IBYTES=16000 SHORT_MAX=32000 PERIOD=${PERIOD:-100} ;;
smartbuf) VARIANTS="dt edt cs smartbuf" FANIN=${FANIN:-16} IBYTES=16000 SHORT_MAX=32000 PERIOD=${PERIOD:-100} ;;
esac
# the fairness runs (smartbuf): seconds of long flow each; incast queries
# start FAIR_LEAD s into it and end FAIR_LEAD s before its end
case $SHORT in
smoke) FAIR_S=${FAIR_S:-2} ;;
*) FAIR_S=${FAIR_S:-4} ;;
esac
FAIR_LEAD=0.5
[ "$SHORT" = smoke ] && PERIOD=$((PERIOD / 2))
export BUILD
DCBPF=$BUILD/dcbpf
PIN=/sys/fs/bpf/dcbpf-rz$$
[ "$(id -u)" = 0 ] || { echo "rezaei: needs root (network namespaces)" >&2; exit 1; }
for c in jq python3 gnuplot iperf3; do
	command -v $c >/dev/null || { echo "rezaei: '$c' missing (make deps)" >&2; exit 1; }
done
[ -x "$DCBPF" ] && [ -x "$BUILD/tools/qsample" ] || { echo "rezaei: $DCBPF or $BUILD/tools/qsample not built (make)" >&2; exit 1; }
source tests/lib/suitelock.sh && suite_lock_take
source tests/lib/fabric.sh
source tests/lib/dctcp.sh
source tests/lib/workload.sh
export FAB_RTO_MIN_MS=${FAB_RTO_MIN_MS:-10}
mkdir -p "$OUT" || exit 1
rm -rf "$OUT"/load* "$OUT"/fair "$OUT"/runs.csv "$OUT"/summary.* "$OUT"/fair.* "$OUT"/queue.*

# The flow sizes as a CDF file of the harness (BYTES PROBABILITY; sizes
# between points interpolated, so "999999 p / 1000000 1" is a 1 MB point).
cdf=$OUT/sizes.cdf
case $SYSTEM in
slytherin)	# §4.1: short uniform 8-32 KB, 30 % of the flows 1 MB
	printf '8000 0\n32000 0.7\n999999 0.7\n1000000 1\n' >"$cdf" ;;
resqueue)	# §4.3: short 1-6 KB, 80 % of them 1 KB; 1 MB long (10 % of flows: not given)
	printf '1000 0.72\n6000 0.9\n999999 0.9\n1000000 1\n' >"$cdf" ;;
icon)		# §4.2: short 8-32 KB, long 1 MB carrying 70 % of the background bytes
	printf '8000 0\n32000 0.955\n999999 0.955\n1000000 1\n' >"$cdf" ;;
smartbuf)	# §4.5: short 1-32 KB, long flows 80 % of the bytes (1-10 MB there, 1 MB
	# here): p·1 MB = 4·(1 − p)·16.5 KB gives p = 6.2 % of the flows long
	printf '1000 0\n32000 0.938\n999999 0.938\n1000000 1\n' >"$cdf" ;;
esac

# ---- the fabric ----------------------------------------------------------
SWS=()
rz_down() {
	local s
	for s in "${SWS[@]}"; do "$DCBPF" --pin-dir "$PIN" switch down "$s" >/dev/null 2>&1; done
	[ "$SYSTEM" = icon ] && "$DCBPF" --pin-dir "$PIN" icon detach >/dev/null 2>&1
	if [ "$SYSTEM" = resqueue ]; then
		for ns in "${FAB_HOSTS[@]}"; do "$DCBPF" --pin-dir "$PIN" resq detach --netns "$ns" >/dev/null 2>&1; done
	fi
	rm -rf "$PIN"
	return 0
}
# rz_switch NS ARGS...: dcbpf's switch on every port of NS
rz_switch() {
	local ns=$1 name ports
	shift
	name="rz${ns##*-}$$"
	name=${name:0:15}
	ports=$(ip -n "$ns" -o link show | awk -F': ' '$2 != "lo" { sub(/@.*/, "", $2); print $2 }' | paste -sd, -)
	"$DCBPF" --pin-dir "$PIN" switch up "$name" --netns "$ns" --ports "$ports" --rate-mbps "$RATE" "$@" >/dev/null ||
		{ echo "rezaei: switch up on $ns failed" >&2; return 1; }
	SWS+=("$name")
}
# rz_set KEY=VALUE...: the same keys on every switch (RZ_SET_ON=NAMES: on those)
rz_set() {
	local s kv a=()
	for s in ${RZ_SET_ON:-${SWS[*]}}; do for kv in "$@"; do a+=("sw.$s.$kv"); done; done
	"$DCBPF" --pin-dir "$PIN" set "${a[@]}" >/dev/null || { echo "rezaei: set $* failed" >&2; return 1; }
}
# rz_drops: packets every switch dropped so far (threshold, buffer full, pushed out)
rz_drops() {
	local s n=0 d
	for s in "${SWS[@]}"; do
		d=$("$DCBPF" --pin-dir "$PIN" --json switch status "$s" |
			jq '[.. | objects | to_entries[] | select(.key | test("^drop_.*_pkts$|^pushout_pkts$")) | .value] | add // 0')
		n=$((n + ${d:-0}))
	done
	echo $n
}

# rz_promoted: retransmissions the hosts' taggers promoted so far (ResQueue)
rz_promoted() {
	local ns
	[ "$SYSTEM" = resqueue ] || { echo 0; return; }
	for ns in "${FAB_HOSTS[@]}"; do "$DCBPF" --pin-dir "$PIN" --json resq status --netns "$ns"; done |
		jq -s 'map(.counters.promoted) | add // 0'
}

fabric_on_exit dctcp_unregister
if [ "$SYSTEM" = icon ]; then
	fabric_dumbbell 8 "$RATE" $((4 * B)) || { echo "rezaei: fabric failed" >&2; exit 1; }
	fabric_on_exit rz_down
	fabric_ping_all || exit 1
	rz_switch "$FAB_SWITCH" alg=dt alpha=1 buffer_bytes="$B" ecn_k_bytes="$K" || exit 1
	fabric_cgroup || exit 1
	"$DCBPF" --pin-dir "$PIN" icon attach --cgroup "$FAB_ETH_CG" >/dev/null || { echo "rezaei: icon attach failed" >&2; exit 1; }
	# the tool's incast listener: port 6100 + 1 (one per class, docs/workload.md)
	ISINK=$FAB_RECV_IP:6101
elif [ "$SYSTEM" = smartbuf ]; then
	# one queue per port: no HTB, so the host links get the fabric's TBF at
	# RATE (4 B deep: admission is the only dropper) as the other ports
	FAB_LS_HOST_MBIT=$RATE fabric_leafspine 2 2 4 "$RATE" $((4 * B)) || { echo "rezaei: fabric failed" >&2; exit 1; }
	fabric_on_exit rz_down
	fabric_leafspine_ping_all || exit 1
	for ns in "${FAB_LEAVES[@]}"; do
		rz_switch "$ns" alg=dt alpha=1 buffer_bytes="$B" ecn_k_bytes="$K" || exit 1
	done
	RZ_LEAF_SWS="${SWS[*]}"	# the scheme under test runs here; the spines run DT
	for ns in "${FAB_SPINES[@]}"; do
		rz_switch "$ns" alg=dt alpha=1 buffer_bytes="$B" ecn_k_bytes="$K" || exit 1
	done
else
	fabric_leafspine 2 2 4 "$RATE" $((4 * B)) || { echo "rezaei: fabric failed" >&2; exit 1; }
	fabric_on_exit rz_down
	fabric_leafspine_ping_all || exit 1
	nq=2
	[ "$SYSTEM" = resqueue ] && nq=4
	for ns in "${FAB_LEAVES[@]}" "${FAB_SPINES[@]}"; do
		rz_switch "$ns" --queues $nq alg=dt alpha=1 buffer_bytes="$B" ecn_k_bytes="$K" sly_k=0.25 || exit 1
	done
	if [ "$SYSTEM" = resqueue ]; then
		for i in "${!FAB_HOSTS[@]}"; do
			# one segment per packet: a level per MSS, as PIAS assumes
			ip -n "${FAB_HOSTS[i]}" link set dev "${FAB_HOST_DEVS[i]}" gso_max_segs 1 &&
				"$DCBPF" --pin-dir "$PIN" resq attach --dev "${FAB_HOST_DEVS[i]}" --netns "${FAB_HOSTS[i]}" >/dev/null ||
				{ echo "rezaei: resq attach on ${FAB_HOSTS[i]} failed" >&2; exit 1; }
		done
	fi
fi
dctcp_register || { echo "rezaei: $DCTCP_ERR" >&2; exit 1; }

# rz_variant V: the switches and hosts as variant V wants them
rz_resq() { # ARGS...: the same `resq set` on every host
	local ns
	for ns in "${FAB_HOSTS[@]}"; do
		"$DCBPF" --pin-dir "$PIN" resq set --netns "$ns" "$@" >/dev/null || { echo "rezaei: resq set $* failed" >&2; return 1; }
	done
}
RZ_IDLE=()
"$DCBPF" resq set --help 2>&1 | grep -q -- '--idle-us' && RZ_IDLE=(--idle-us 2000)
rz_variant() {
	WL_TOOL_BIN=""
	case $SYSTEM:$1 in
	slytherin:dctcp) rz_set prio_mode=dscp ;;
	slytherin:slytherin) rz_set prio_mode=slytherin ;;
	resqueue:dctcp) rz_set prio_mode=dscp && rz_resq --disable ;;
	# PIAS: the same thresholds, flows start at the top level, no promotion;
	# every level (CS3..CS1) its own queue of the shared buffer
	resqueue:pias) rz_set prio_mode=dscp && rz_resq --enable --promote off --cs-top 3 "${RZ_IDLE[@]}" ;;
	resqueue:resqueue) rz_set prio_mode=resqueue reserved_bytes=20000 &&
		rz_resq --enable --promote any --cs-top 3 --reserved-bytes 20000 "${RZ_IDLE[@]}" ;;
	icon:dctcp) ;;	# the tool outside the cgroup: the program sees no socket
	icon:ia-icon) "$DCBPF" --pin-dir "$PIN" icon set "$ISINK" 0 >/dev/null 2>&1; WL_TOOL_BIN=$RZ_CGTOOL ;;
	icon:icon) "$DCBPF" --pin-dir "$PIN" icon set "$ISINK" "$FANIN" >/dev/null && WL_TOOL_BIN=$RZ_CGTOOL ;;
	smartbuf:*) RZ_SET_ON=$RZ_LEAF_SWS rz_set alg="$1" ;;	# the variants are the algorithms' names
	esac
}

# SmartBuf: every leaf port's backlog, every 2 ms while a run lasts (the
# queue CDF); rz_qstart FILE_PREFIX, rz_qstop
RZ_QPIDS=()
rz_qstart() {
	local i
	[ "$SYSTEM" = smartbuf ] || return 0
	for i in "${!FAB_LEAF_PORTS[@]}"; do
		fabric_bg "${FAB_LEAVES[FAB_HOST_LEAF[i]]}" "$BUILD/tools/qsample" -i 2000 -d "${FAB_LEAF_PORTS[i]}" -o "$1.q$i.csv"
		RZ_QPIDS+=("$FAB_LAST_PID")
	done
}
rz_qstop() { local p; for p in "${RZ_QPIDS[@]}"; do fabric_kill "$p"; done; RZ_QPIDS=(); }

# rz_fair VARIANT REP: SmartBuf's fairness scenario (§4.5.2, Fig. 44) on
# leaf 1: long DCTCP flows from its hosts 1 and 3 into its host 0 (one port
# of the leaf, 2:1 so the port queues; no other hop), and incast queries of FANIN x IBYTES every
# PERIOD ms from leaf 0's hosts into its host 2 (another port of the same
# shared buffer), from FAIR_LEAD s into the long flow to FAIR_LEAD s before
# its end.  Both leaf ports sampled every 1 ms (tests/tools/qsample): port
# a's sent bytes are the long flow's rate, port b's the queries' window.
rz_fair() {
	local v=$1 rep=$2 d=$OUT/fair pa=4 pb=6 qa qb la0 d0 i k rc=0 fab=() lfs=() srvs=()
	local p=$d/$v-r$rep
	wl_init "$d" || return 1
	for k in 1 2; do
		fabric_bg "${FAB_HOSTS[pa]}" sh -c "exec iperf3 -s -1 -p 530$k >/dev/null 2>&1"
		srvs+=("$FAB_LAST_PID")
	done
	fabric_bg "${FAB_LEAVES[1]}" "$BUILD/tools/qsample" -i 1000 -d "${FAB_LEAF_PORTS[pa]}" -o "$p.qa.csv"
	qa=$FAB_LAST_PID
	fabric_bg "${FAB_LEAVES[1]}" "$BUILD/tools/qsample" -i 1000 -d "${FAB_LEAF_PORTS[pb]}" -o "$p.qb.csv"
	qb=$FAB_LAST_PID
	sleep 0.3
	la0=$(cut -d' ' -f1 /proc/loadavg) d0=$(rz_drops)
	echo "rezaei: smartbuf fairness rep $rep $v (load average $la0)"
	# two senders of the leaf (hosts 1 and 3), so that port a is the flows'
	# bottleneck and holds a DCTCP queue in the shared buffer
	for k in 1 2; do
		fabric_exec "${FAB_HOSTS[pa + 2 * k - 1]}" iperf3 -c "${FAB_HOST_IPS[pa]}" -p "530$k" -C dctcp -t "$FAIR_S" -J \
			>"$p.lf$k.json" 2>&1 &
		lfs+=($!)
	done
	sleep "$FAIR_LEAD"
	# the harness' fabric options with one receiver (the tool adds up
	# repeated --receivers; wl_run would pass them all)
	mapfile -t fab < <(wl_fabric_args)
	for i in "${!fab[@]}"; do
		[ "${fab[i]}" = --receivers ] && fab[i + 1]="${FAB_HOSTS[pb]}=${FAB_HOST_IPS[pb]}@1"
	done
	"$WL_TOOL" "${fab[@]}" --cc dctcp --load 0 --incast "$PERIOD:$IBYTES:$FANIN" \
		--duration "$(awk -v s="$FAIR_S" -v l="$FAIR_LEAD" 'BEGIN { print s - 2 * l }')" --timeout 10 --max-conns 64 \
		--tag run="$v-r$rep" --tag label="$v" --tag variant="$v" --tag system=smartbuf-fair --tag rep="$rep" \
		--tag load=0 --tag ecn_k_bytes="$K" --csv "$p.csv" --json "$p.json" 2>"$p.err" ||
		{ echo "rezaei: fairness run $v-r$rep: $(tail -n 2 "$p.err" | tr '\n' ' ')" >&2; rc=1; }
	wait "${lfs[@]}" || rc=1
	fabric_kill "$qa"
	fabric_kill "$qb"
	for k in "${srvs[@]}"; do fabric_kill "$k"; done
	printf '{"drops": %s, "loadavg_before": %s, "loadavg_after": %s, "rate_mbit": %s, "long_src": "%s %s", "long_dst": "%s", "incast_dst": "%s"}\n' \
		$(($(rz_drops) - d0)) "$la0" "$(cut -d' ' -f1 /proc/loadavg)" "$RATE" \
		"${FAB_HOSTS[pa + 1]}" "${FAB_HOSTS[pa + 3]}" "${FAB_HOSTS[pa]}" "${FAB_HOSTS[pb]}" >"$p.extra"
	return $rc
}
# the tool inside the cgroup ICON's sockops program is attached to
RZ_CGTOOL=$OUT/.cgtool
if [ "$SYSTEM" = icon ]; then
	printf '#!/bin/sh\necho $$ > %s/cgroup.procs && exec %s "$@"\n' "$FAB_ETH_CG" "$(realpath "$BUILD/tools/workload")" >"$RZ_CGTOOL"
	chmod +x "$RZ_CGTOOL"
fi

# ---- the runs -----------------------------------------------------------
rc=0
for ((rep = 1; rep <= REPS; rep++)); do
	for load in $LOADS; do
		seed=$((SEED + rep - 1))
		for v in $VARIANTS; do
			rz_variant "$v" || { rc=1; continue; }
			export WL_TOOL_BIN
			wl_init "$OUT/load$load" || exit 1
			la0=$(cut -d' ' -f1 /proc/loadavg) d0=$(rz_drops) p0=$(rz_promoted)
			echo "rezaei: $SYSTEM load $load rep $rep $v (load average $la0)"
			rz_qstart "$OUT/load$load/$v-r$rep"
			wl_run "$v-r$rep" --cc dctcp --cdf "$cdf" --load "$load" --flows "$FLOWS" --seed "$seed" \
				--incast "$PERIOD:$IBYTES:$FANIN" --max-conns 64 --timeout 20 \
				--tag label="$v" --tag variant="$v" --tag system="$SYSTEM" --tag rep="$rep" \
				--tag load="$load" --tag ecn_k_bytes="$K" || rc=1
			rz_qstop
			d1=$(rz_drops) la1=$(cut -d' ' -f1 /proc/loadavg) p1=$(rz_promoted)
			printf '{"drops": %s, "promoted_pkts": %s, "loadavg_before": %s, "loadavg_after": %s}\n' \
				$((d1 - d0)) $((p1 - p0)) "$la0" "$la1" \
				>"$OUT/load$load/$v-r$rep.extra"
		done
	done
	# SmartBuf's fairness scenario, the variants interleaved the same way
	if [ "$SYSTEM" = smartbuf ]; then
		for v in $VARIANTS; do
			rz_variant "$v" && rz_fair "$v" "$rep" || rc=1
		done
	fi
done
# what the mechanisms did (tests/integ/rezaei_exp.sh asserts it)
case $SYSTEM in
resqueue)
	for ns in "${FAB_HOSTS[@]}"; do "$DCBPF" --pin-dir "$PIN" --json resq status --netns "$ns"; done |
		jq -s '{tagged: (map(.counters.tagged) | add), promoted: (map(.counters.promoted) | add),
			idle_restarts: (map(.flows[].idle_restarts // 0) | add), promote: .[0].promote,
			idle_us: .[0].idle_us}' >"$OUT/state.json" ;;
icon)
	"$DCBPF" --pin-dir "$PIN" --json icon status |
		jq '{max_n: ([.flows[].n_peer] | max), flows_with_n: ([.flows[] | select(.n_peer > 0)] | length),
			flows: (.flows | length)}' >"$OUT/state.json"
	rm -f "$RZ_CGTOOL" ;;
smartbuf)	# the leaves' learning, summed over the run, and their Main tables (docs/admission.md, "SmartBuf")
	for sw in $RZ_LEAF_SWS; do bpftool -j map dump pinned "$PIN/sw/$sw/dc_sw_sbuf"; done |
		jq -s 'map(.[0].formatted.value) | {samples: (map(.samples) | add), lookups: (map(.lookups) | add),
			inserts: (map(.inserts) | add), main_entries: (map([.main.e[] | select(.used != 0)] | length) | add),
			edt_bursts: (map([.edt[].bursts] | add) | add),
			main: (map([.main.e[] | select(.used != 0) | {key_bytes_per_us: (.key_q16 / 65536 | . * 100 | round / 100),
				max_bytes, hits}] | sort_by(.key_bytes_per_us)))}' >"$OUT/state.json" ;;
esac
WL_TOOL_BIN=""

# ---- the thesis' metrics, the tables and the figures ---------------------
python3 tests/exp/rezaei-summary "$OUT" "$SYSTEM" "$SHORT_MAX" "$VARIANTS" || rc=1
for d in "$OUT"/load*; do
	tests/exp/plot-workload -o "$d" -t "$SYSTEM, load ${d##*load}" "$d"/*-r1.json >/dev/null || rc=1
done
exit $rc
