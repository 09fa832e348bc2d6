#!/usr/bin/env bash
# cosy on the leaf–spine fabric ("Building a Partial Communication Synchrony
# Abstraction on Asynchronous Datacenters", §5.2 and Fig. 4; Thm 3.2, 3.4,
# 3.5, Lemma 3.3), scaled to this machine: 2 spines, 2 leaves, 3 hosts per
# leaf, every link (host links included) a TBF at RATE Mbit/s.  Every
# switch runs bpf/cosy.bpf.c (`dcbpf cosy attach`): a leaf's candidates
# toward a host of another leaf are both uplinks, a spine's the one
# downlink to the host's leaf, a leaf's toward its own host that host's
# port.  Every host runs `dcbpf cosy serve` and `dcbpf cosy send` with
# Poisson all-to-all arrivals of fixed-size messages (the paper's RPCs):
# per host RATE x LOAD / (8 x SIZE) messages a second to a receiver drawn
# uniformly among the other hosts.  K = 1 is the RSVP baseline (§3.2; the
# switches in RSVP mode).
#
# Per run (SIZE, K, LOAD, repetition):
#   - rejects (a switch had no VL, the receiver was busy for δ^E, nothing
#     back by δ, more than 32 in flight at the sender): Θ is the largest
#     load of the sweep at which this and every lower load had none,
#     against f(K, C)·Θ* (Thm 3.4, C = 2 spines);
#   - delivery time (submit to the receiver's complete, sender's clock)
#     p50 / p99 / max against δ_cosy = 2 hRTT + δ^E + sK/B + δ̂ (Thm 3.5);
#   - queue maxima per hop (TBF backlog sampled every QI_US by
#     tests/tools/qsample on every shaped port: sender NIC, leaf uplink =
#     hop 1, spine downlink = hop 2, leaf port to the receiver = hop 3)
#     against i·(K−1)·p at hop i (Lemma 3.3, its proof) and #H·(K−1)·p;
#   - the switches' counters (drops must be 0, no VL held at the end).
# Then (SHORT=0, or FAIL_RUN=1) the failure detector of §6.3: fail_run below.
# hRTT is measured (ping of a 1500-byte packet across the spines); δ^E is
# s/B (one message at line rate); the switches and hosts use 4·δ_cosy as
# their expiry, δ and failure timer, so a late delivery is measured rather
# than turned into a reject.
#
# Output under $OUT (out/cosy-exp):
#   runs/<s>-k<K>-l<load>-r<rep>.json  parameters, bounds, each sender's
#                        messages, the switches' counters, queue maxima
#   runs.csv, summary.csv (min/median/max over repetitions), messages.csv,
#   summary.json (schema dcbpf-cosy-exp/1), theta.png, delivery.png,
#   queues.png (tests/exp/cosy-summary, gnuplot); fail/r<rep>.json, the
#   failure detector's runs, summarised in summary.json and fail.csv
#
#   sudo tests/exp/cosy.sh                      # SHORT=0: K 1..16, 7 loads, 3 repetitions
#   sudo SHORT=1 tests/exp/cosy.sh              # K 1 and 4 at load 0.4, few messages (make check)
#   sudo REP_FIRST=2 REPS=1 tests/exp/cosy.sh   # one repetition more into the same OUT
#
# Env: SHORT (0|1), KS, LOADS, SIZES (bytes), REPS, REP_FIRST, MSGS (per
# host per run), RATE (Mbit/s, 100), QI_US (1000), SEED, FAIL_RUN (0|1),
# FAIL_TP_MS (10), BUILD, OUT.
# Holds /tmp/dcbpf-suite.lock while the fabric is up unless
# DCBPF_SUITE_LOCKED=1.
# shellcheck shell=bash
# shellcheck disable=SC2317,SC2015
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
OUT=${OUT:-out/cosy-exp}
SHORT=${SHORT:-0}
case $SHORT in
# the low loads finer: Θ lies below 0.2 for most K here (docs/results.md)
0) KS=${KS:-1 2 4 8 16} LOADS=${LOADS:-0.05 0.1 0.15 0.2 0.4 0.6 0.8} SIZES=${SIZES:-131072} REPS=${REPS:-3} MSGS=${MSGS:-100} ;;
1) KS=${KS:-1 4} LOADS=${LOADS:-0.4} SIZES=${SIZES:-131072} REPS=${REPS:-1} MSGS=${MSGS:-12} ;;
*) echo "cosy-exp: SHORT is 0 or 1, not '$SHORT'" >&2; exit 2 ;;
esac
RATE=${RATE:-100} QI_US=${QI_US:-1000} SEED=${SEED:-1} REP_FIRST=${REP_FIRST:-1}
L=2 S=2 H=3 HOPS=3 PKT=1500
# B as the hosts pace it: a data packet is 1400 B of message in a 1466-byte
# frame (Ethernet 14, IPv4 20, UDP 8, cosy 24), and the TBFs count frames;
# K slots paced at B/K in message bytes would put 4.7 % more than B on the
# wire and grow every queue while all K are busy.  The bounds take the
# same B, so s·K/B is the message's real time on the wire.
BMSG=$((RATE * 1000 * 1400 / 1466))
DCBPF=$BUILD/dcbpf QS=$BUILD/tools/qsample
[ "$(id -u)" = 0 ] || { echo "cosy-exp: needs root (network namespaces)" >&2; exit 1; }
for c in jq python3 gnuplot; do
	command -v $c >/dev/null || { echo "cosy-exp: '$c' missing (make deps)" >&2; exit 1; }
done
for b in "$DCBPF" "$QS"; do
	[ -x "$b" ] || { echo "cosy-exp: $b not built (make)" >&2; exit 1; }
done
DCBPF=$(realpath "$DCBPF") QS=$(realpath "$QS")
# the switches' pins, apart from the machine's own dcbpf
PIN=/sys/fs/bpf/dcbpf-cosyexp$$
source tests/lib/suitelock.sh && suite_lock_take
source tests/lib/fabric.sh
# the first repetition starts over; later ones (REP_FIRST > 1) add to OUT
[ "$REP_FIRST" = 1 ] && rm -rf "$OUT/runs" "$OUT/fail"
mkdir -p "$OUT/runs" || exit 1
TMP=$(mktemp -d /tmp/dcbpf-cosyexp.XXXXXX) || exit 1
fabric_on_exit "rm -rf '$TMP'"

# ---- the fabric ----------------------------------------------------------
# the TBFs' queues never fill (only the program's refusals count); host
# links shaped like the others, so a host sends at most B; a bucket of two
# packets (the fabric's default, 16 KB, would let a host's NIC pass 11
# packets at once after an idle spell and queue them at the next hop: a
# burst no line-rate link makes)
export FAB_LS_HOST_MBIT=$RATE FAB_GSO_MAX=0 FAB_TBF_BURST=${FAB_TBF_BURST:-3000}
fabric_leafspine $L $S $H "$RATE" 4000000 || { echo "cosy-exp: fabric failed" >&2; exit 1; }
fabric_leafspine_ping_all || exit 1
NH=${#FAB_HOSTS[@]}
mac() { ip netns exec "$1" cat "/sys/class/net/$2/address"; }
# hosts of leaf l, comma-separated
leaf_hosts() { local h o=""; for ((h = 0; h < H; h++)); do o+="${o:+,}${FAB_HOST_IPS[$1 * H + h]}"; done; echo "$o"; }
# the switches' --port options (dcbpf cosy attach), by namespace
declare -A SWARGS SWID
id=1
for ((l = 0; l < L; l++)); do
	a=""
	for ((h = 0; h < H; h++)); do
		i=$((l * H + h))
		a+=" -p ${FAB_LEAF_PORTS[i]},$(mac "${FAB_HOSTS[i]}" "${FAB_HOST_DEVS[i]}"),${FAB_HOST_IPS[i]}"
	done
	others=""
	for ((k = 0; k < L; k++)); do [ $k = $l ] || others+="${others:+,}$(leaf_hosts $k)"; done
	for ((s = 0; s < S; s++)); do
		a+=" -p ${FAB_UPLINKS[l * S + s]},$(mac "${FAB_SPINES[s]}" "${FAB_DOWNLINKS[l * S + s]}"),$others"
	done
	SWARGS[${FAB_LEAVES[l]}]=$a SWID[${FAB_LEAVES[l]}]=$id
	id=$((id + 1))
done
for ((s = 0; s < S; s++)); do
	a=""
	for ((l = 0; l < L; l++)); do
		a+=" -p ${FAB_DOWNLINKS[l * S + s]},$(mac "${FAB_LEAVES[l]}" "${FAB_UPLINKS[l * S + s]}"),$(leaf_hosts $l)"
	done
	SWARGS[${FAB_SPINES[s]}]=$a SWID[${FAB_SPINES[s]}]=$id
	id=$((id + 1))
done
# every shaped port: NS DEV CLASS (the hop it is for a message across the spines)
QPORTS=()
for ((i = 0; i < NH; i++)); do
	QPORTS+=("${FAB_HOSTS[i]} ${FAB_HOST_DEVS[i]} host" "${FAB_LEAVES[FAB_HOST_LEAF[i]]} ${FAB_LEAF_PORTS[i]} hop3")
done
for ((l = 0; l < L; l++)); do
	for ((s = 0; s < S; s++)); do
		QPORTS+=("${FAB_LEAVES[l]} ${FAB_UPLINKS[l * S + s]} hop1" "${FAB_SPINES[s]} ${FAB_DOWNLINKS[l * S + s]} hop2")
	done
done

# hRTT: the unloaded round trip of a 1500-byte packet across the spines
# (median of 21), the one every bound starts from
hrtt_ns=$(ip netns exec "${FAB_HOSTS[0]}" ping -c 21 -i 0.01 -s 1472 -n "${FAB_HOST_IPS[NH - 1]}" 2>/dev/null |
	awk -F'time=' 'NF > 1 { split($2, a, " "); print a[1] }' | sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%d", v[int((NR + 1) / 2)] * 1000000 }')
[ -n "$hrtt_ns" ] && [ "$hrtt_ns" -gt 0 ] || { echo "cosy-exp: measuring hRTT failed" >&2; exit 1; }
echo "cosy-exp: fabric $FAB_ID up, $NH hosts, hRTT $hrtt_ns ns, B $RATE Mbit/s"

# ---- the switches ----------------------------------------------------------
# sw_attach K EXPIRY_NS DIR: the program on every switch (K 1: RSVP mode)
sw_attach() {
	local ns rc=0
	for ns in "${FAB_LEAVES[@]}" "${FAB_SPINES[@]}"; do
		# shellcheck disable=SC2046,SC2086  # the --port options are words
		"$DCBPF" --pin-dir "$PIN" cosy attach --netns "$ns" -i "${SWID[$ns]}" -k "$1" \
			$([ "$1" = 1 ] && echo --rsvp) -e "$2" ${SWARGS[$ns]} >"$3/sw-${ns##*-}.out" 2>&1 ||
			{ echo "cosy-exp: switch on $ns: $(cat "$3/sw-${ns##*-}.out")" >&2; rc=1; }
	done
	return $rc
}
# sw_detach DIR: every switch's counters (DIR/sw-<switch>.json), then off
sw_detach() {
	local ns
	for ns in "${FAB_LEAVES[@]}" "${FAB_SPINES[@]}"; do
		"$DCBPF" --pin-dir "$PIN" --json cosy status --netns "$ns" >"$1/sw-${ns##*-}.json" 2>&1
		"$DCBPF" --pin-dir "$PIN" cosy detach --netns "$ns" >/dev/null
	done
}
fabric_on_exit "for ns in ${FAB_LEAVES[*]} ${FAB_SPINES[*]}; do '$DCBPF' --pin-dir '$PIN' cosy detach --netns \$ns >/dev/null 2>&1; done; rm -rf '$PIN'"

# ---- one run -------------------------------------------------------------
run() { # SIZE K LOAD REP
	local size=$1 k=$2 load=$3 rep=$4 name d bj delta life wait_ns rate_ps run_ms i j to ns pids=() spids=() qpids=()
	local q nsq dev cls la0 la1 rc=0 t0 t1
	name=$size-k$k-l$load-r$rep
	d=$TMP/$name
	rm -rf "$d" && mkdir -p "$d" || return 1
	wait_ns=$((size * 8000 / RATE))	# δ^E = s/B
	bj=$("$DCBPF" --json cosy bounds -B "$BMSG" --hrtt-ns "$hrtt_ns" -s "$size" --hops $HOPS -p $PKT \
		-k "$k" --cores $S --wait-ns $wait_ns) || { echo "cosy-exp: bounds failed" >&2; return 1; }
	delta=$(jq -r .delta_cosy_ns <<<"$bj")
	life=$((4 * delta))
	rate_ps=$(awk -v r="$RATE" -v l="$load" -v s="$size" 'BEGIN { printf "%.6f", r * 1e6 * l / (8 * s) }')
	run_ms=$(awk -v n="$MSGS" -v r="$rate_ps" -v lf="$life" 'BEGIN { printf "%d", 3 * n / r * 1000 + 2 * lf / 1e6 + 3000 }')
	sw_attach "$k" "$life" "$d" || rc=1
	i=0
	for q in "${QPORTS[@]}"; do
		read -r nsq dev cls <<<"$q"
		ip netns exec "$nsq" "$QS" -d "$dev" -i "$QI_US" -q -o "$d/q-$cls-$i.csv" 2>>"$d/qsample.err" &
		qpids+=($!)
		i=$((i + 1))
	done
	for ((i = 0; i < NH; i++)); do
		ip netns exec "${FAB_HOSTS[i]}" "$DCBPF" --json cosy serve --bind "${FAB_HOST_IPS[i]}" -k "$k" \
			--wait-ns $wait_ns --delta-ns "$life" -n 1000000 --run-ms $((run_ms + 2000)) >"$d/serve$i.json" 2>&1 &
		spids+=($!)
	done
	sleep 0.3
	la0=$(cut -d' ' -f1 /proc/loadavg)
	t0=$(date +%s%N)
	for ((i = 0; i < NH; i++)); do
		to=""
		for ((j = 0; j < NH; j++)); do [ $j = $i ] || to+="${to:+,}${FAB_HOST_IPS[j]}"; done
		ip netns exec "${FAB_HOSTS[i]}" "$DCBPF" --json cosy send --to "$to" --rate-per-s "$rate_ps" -n "$MSGS" \
			-s "$size" -B "$BMSG" -k "$k" --delta-ns "$life" --seed $((SEED * 1000 + rep * 100 + i + 1)) \
			--run-ms "$run_ms" >"$d/send$i.json" 2>"$d/send$i.err" &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do wait "${pids[i]}" || { echo "cosy-exp: $name: sender $i: $(cat "$d/send$i.err")" >&2; rc=1; }; done
	t1=$(date +%s%N)
	la1=$(cut -d' ' -f1 /proc/loadavg)
	sleep 0.2
	kill -TERM "${spids[@]}" "${qpids[@]}" 2>/dev/null
	wait "${spids[@]}" "${qpids[@]}" 2>/dev/null
	sw_detach "$d"
	# one JSON per run: parameters, bounds, the senders, switches and queues
	{
		for ((i = 0; i < NH; i++)); do jq -c --arg h "${FAB_HOST_IPS[i]}" '. + {host: $h}' "$d/send$i.json" 2>/dev/null ||
			echo "{\"host\": \"${FAB_HOST_IPS[i]}\", \"messages\": [], \"error\": true}"; done
	} >"$d/send.jsonl"
	for ns in "${FAB_LEAVES[@]}" "${FAB_SPINES[@]}"; do
		jq -c --arg n "${ns##*-}" '.counters + {vls_held: ([.ports[].held] | add),
			ports: [.ports[] | {"if": .["if"], reserved, reclaimed, released, fwd_data}], switch: $n}' \
			"$d/sw-${ns##*-}.json" 2>/dev/null || echo "{\"switch\": \"${ns##*-}\", \"error\": true}"
	done >"$d/sw.jsonl"
	for f in "$d"/q-*.csv; do
		cls=${f##*/q-}
		cls=${cls%%-*}
		awk -F, -v c="$cls" 'NR == 1 { d0 = $4 } { if ($2 > m) m = $2; d1 = $4; n++ }
			END { printf "{\"class\": \"%s\", \"max_backlog_bytes\": %d, \"drops\": %d, \"samples\": %d}\n", c, m, d1 - d0, n }' "$f"
	done >"$d/q.jsonl"
	jq -n --argjson b "$bj" --slurpfile snd "$d/send.jsonl" --slurpfile sw "$d/sw.jsonl" --slurpfile q "$d/q.jsonl" \
		--arg size "$size" --arg k "$k" --arg load "$load" --arg rep "$rep" --arg rate "$RATE" --arg hrtt "$hrtt_ns" \
		--arg wait "$wait_ns" --arg life "$life" --arg rps "$rate_ps" --arg msgs "$MSGS" --arg la0 "$la0" --arg la1 "$la1" \
		--arg dur $(((t1 - t0) / 1000000)) --arg hops "$HOPS" --arg pkt "$PKT" --arg fab "$L x $S x $H" --arg bmsg "$BMSG" '
		{schema: "dcbpf-cosy-exp/1", size_bytes: ($size | tonumber), k: ($k | tonumber), load: ($load | tonumber),
		 rep: ($rep | tonumber), mode: (if $k == "1" then "rsvp" else "cosy" end),
		 params: {rate_mbit: ($rate | tonumber), hrtt_ns: ($hrtt | tonumber), wait_ns: ($wait | tonumber),
			  life_ns: ($life | tonumber), rate_per_s: ($rps | tonumber), msgs_per_host: ($msgs | tonumber),
			  hops: ($hops | tonumber), pkt_bytes: ($pkt | tonumber), cores: 2, fabric: $fab,
			  bw_msg_kbps: ($bmsg | tonumber)},
		 bounds: $b, senders: $snd, switches: $sw, queues: $q,
		 loadavg_before: ($la0 | tonumber), loadavg_after: ($la1 | tonumber), duration_ms: ($dur | tonumber)}' \
		>"$OUT/runs/$name.json" || rc=1
	echo "cosy-exp: $name: $(jq -r '[.senders[].messages[] | .status] | group_by(.) | map("\(.[0]) \(length)") | join(", ")' \
		"$OUT/runs/$name.json") (δ_cosy $delta ns, load average $la0)"
	return $rc
}

# ---- the failure detector (§6.3, Fig. 8) ----------------------------------
# h0 probes h(last) with one-packet messages, Poisson with mean gap
# FAIL_TP_MS, K 4; its δ is δ_cosy of the probe.  The receiver's process
# is stopped (a crash: SIGSTOP) at 1 s and continued at 2 s.  A probe with
# no answer by δ is the detector's "crashed"; detection time = the first
# such verdict after the stop minus the stop; false verdicts = those
# before the stop.  Output: fail/r<rep>.json.
fail_run() { # REP
	local rep=$1 k=4 size=1400 d=$TMP/fail-$1 bj delta wait_ns tp_ms=${FAIL_TP_MS:-10} i spid sndpid tc tr
	rm -rf "$d" && mkdir -p "$d" "$OUT/fail" || return 1
	wait_ns=$((size * 8000 / RATE))
	bj=$("$DCBPF" --json cosy bounds -B "$BMSG" --hrtt-ns "$hrtt_ns" -s $size --hops $HOPS -p $PKT \
		-k $k --cores $S --wait-ns $wait_ns) || return 1
	delta=$(jq -r .delta_cosy_ns <<<"$bj")
	sw_attach $k $((4 * delta)) "$d" || return 1
	i=$((NH - 1))
	ip netns exec "${FAB_HOSTS[i]}" "$DCBPF" --json cosy serve --bind "${FAB_HOST_IPS[i]}" -k $k --wait-ns $wait_ns \
		--delta-ns $((4 * delta)) -n 1000000 --run-ms 8000 >"$d/serve.json" 2>&1 &
	spid=$!
	sleep 0.3
	ip netns exec "${FAB_HOSTS[0]}" "$DCBPF" --json cosy send --to "${FAB_HOST_IPS[i]}" \
		--rate-per-s "$(awk -v t="$tp_ms" 'BEGIN { print 1000 / t }')" -n $((3000 / tp_ms)) -s $size \
		-B "$BMSG" -k $k --delta-ns "$delta" --seed $((SEED * 1000 + rep)) --run-ms 6000 >"$d/send.json" 2>&1 &
	sndpid=$!
	# the stop and the continue, stamped on CLOCK_MONOTONIC (the senders' clock)
	stamp() { python3 -c 'import os, signal, sys, time; os.kill(int(sys.argv[1]), getattr(signal, sys.argv[2])); print(time.monotonic_ns())' "$1" "$2"; }
	sleep 1
	tc=$(stamp "$spid" SIGSTOP)
	sleep 1
	tr=$(stamp "$spid" SIGCONT)
	wait "$sndpid"
	fabric_kill "$spid"
	sw_detach "$d"
	jq --argjson b "$bj" --arg tc "$tc" --arg tr "$tr" --arg tp "$tp_ms" --arg rep "$rep" --arg hrtt "$hrtt_ns" '
		(.start_ns) as $s | ($tc | tonumber) as $c | ($tr | tonumber) as $r | $b.delta_cosy_ns as $d |
		[.messages[] | . + {sub: ($s + .t_ns), post: ($s + .t_ns + .latency_ns)}] as $m |
		([$m[] | select(.status == "reject" and .reason == 0 and .post > $c)] | min_by(.post)) as $first |
		([$m[] | select(.sub >= $c)] | min_by(.sub)) as $probe |
		{schema: "dcbpf-cosy-fail/1", rep: ($rep | tonumber), k: 4, size_bytes: 1400, tp_mean_ms: ($tp | tonumber),
		 hrtt_ns: ($hrtt | tonumber), delta_cosy_ns: $d, crash_ms: 1000, down_ms: (($r - $c) / 1e6),
		 probes: ($m | length),
		 detection_ns: (if $first then $first.post - $c else null end),
		 next_probe_after_crash_ns: (if $probe then $probe.sub - $c else null end),
		 false_before_crash: ([$m[] | select(.status != "complete" and .post < $c)] | length),
		 verdicts_while_down: ([$m[] | select(.status == "reject" and .post >= $c and .sub < $r)] | length),
		 complete_while_down: ([$m[] | select(.status == "complete" and .sub >= $c and .post < $r)] | length),
		 false_after_recovery: ([$m[] | select(.status != "complete" and .sub > $r + $d)] | length),
		 complete_after_recovery: ([$m[] | select(.status == "complete" and .sub > $r)] | length),
		 probe_latency_max_ns: ([$m[] | select(.status == "complete") | .latency_ns] | max)}' \
		"$d/send.json" >"$OUT/fail/r$rep.json" || return 1
	echo "cosy-exp: failure detector r$rep: $(jq -c '{detection_ns, next_probe_after_crash_ns, delta_cosy_ns, false_before_crash, false_after_recovery}' "$OUT/fail/r$rep.json")"
}

rc=0
for ((rep = REP_FIRST; rep < REP_FIRST + REPS; rep++)); do
	for size in $SIZES; do
		for load in $LOADS; do
			# K interleaved within a load, so a slow spell of the machine
			# hits every K alike
			for k in $KS; do
				run "$size" "$k" "$load" "$rep" || rc=1
			done
		done
	done
done
if [ "${FAIL_RUN:-$([ "$SHORT" = 0 ] && echo 1 || echo 0)}" = 1 ]; then
	for ((rep = REP_FIRST; rep < REP_FIRST + REPS; rep++)); do fail_run "$rep" || rc=1; done
fi
python3 tests/exp/cosy-summary "$OUT" || rc=1
exit $rc
