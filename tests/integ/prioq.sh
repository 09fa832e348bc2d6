# Integration: strict-priority queues per switch port (dcbpf switch up
# --queues N; docs/admission.md, "Priority queues").  Two senders and one
# receiver behind a switch whose ports run at 20 Mbit/s (one 1500-byte
# packet takes 600 µs, far above the jitter of the namespaces), N = 2.
# Checks: --queues 0, 9 and an algorithm the queues cannot run are refused
# with the reason and leave the port's qdisc and pins as they were; with a
# saturating best-effort (DSCP 0) UDP flow to the receiver, a DSCP CS5 ping
# is delayed by about one packet time at most (median against the idle
# median), while a DSCP 0 ping waits behind the low queue; the tracker's
# per-queue lengths follow each HTB leaf's backlog (tc -s class); bpftool
# names the per-queue record's fields; a live switch to an algorithm
# without per-queue state is refused, the old one kept.  Then N = 4 on the
# same port: the leaves' HTB prio; under saturating CS2 and CS1 flows leaf
# 1:3 takes the port and leaf 1:2 gets only its guaranteed 8 kbit/s, a CS3
# ping waits about a packet time at most, and the tracker holds the
# backlog in queues 1 and 2.
# host-suite: the programs' 6.1 proof is prog/test_sw_queues (per-queue XDP decisions) and
# prog/test_sw_modes (dc_sw_prio's leaf); this adds HTB under traffic.
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/fabric.sh
source tests/lib/prioqfab.sh

pq_fabric prioq || exit 1
up() { "$DCBPF" --pin-dir "$PIN" switch up "$SW" --netns "$SWNS" --ports "$plist" --rate-mbps "$RATE" "$@"; }
root_kind() { tc -n "$SWNS" qdisc show dev "$OUTDEV" root | awk '{ print $2; exit }'; }

# --- refusals: nothing started, the port's TBF untouched ----------------------------
for n in 0 9; do
	msg=$(up --queues "$n" 2>&1) && t_fail "prioq: --queues $n refused" "accepted: $msg"
	case "$msg" in
	*queues*minimum\ 1* | *queues*maximum\ 8*) t_pass "prioq: --queues $n refused, naming the range ($msg)" ;;
	*) t_fail "prioq: --queues $n refused, naming the range" "$msg" ;;
	esac
	[ ! -e "$PIN/sw/$SW" ] && [ "$(root_kind)" = tbf ] &&
		t_pass "prioq: --queues $n left no pins and the port's tbf in place" ||
		t_fail "prioq: --queues $n left nothing behind" "pins: $(ls "$PIN/sw" 2>&1); root $(root_kind)"
done
msg=$(up --queues 2 alg=credence 2>&1) && t_fail "prioq: credence with 2 queues refused" "accepted"
case "$msg" in
*credence*queue*) t_pass "prioq: credence with 2 queues refused with the reason" ;;
*) t_fail "prioq: credence with 2 queues refused with the reason" "$msg" ;;
esac
[ ! -e "$PIN/sw/$SW" ] && [ "$(root_kind)" = tbf ] &&
	t_pass "prioq: the refused credence up left no pins and the tbf" ||
	t_fail "prioq: the refused credence up left nothing behind" "root $(root_kind)"

# --- up with 2 queues ---------------------------------------------------------------
if out=$(up --queues 2 buffer_bytes=1000000 alg=dt 2>&1); then
	t_pass "prioq: switch up --queues 2 ($out)"
else
	t_fail "prioq: switch up --queues 2" "$out"; exit 1
fi
leaves=$(tc -n "$SWNS" class show dev "$OUTDEV" | grep -c 'htb 1:[12] parent 1:100')
[ "$(root_kind)" = htb ] && [ "$leaves" = 2 ] &&
	t_pass "prioq: the port's root is an HTB with leaves 1:1 and 1:2" ||
	t_fail "prioq: HTB with two leaves" "root $(root_kind), $leaves leaves: $(tc -n "$SWNS" class show dev "$OUTDEV")"
msg=$("$DCBPF" --pin-dir "$PIN" set "sw.$SW.alg=smartbuf" 2>&1) &&
	t_fail "prioq: live smartbuf on a 2-queue switch refused" "accepted: $msg"
[ "$("$DCBPF" --pin-dir "$PIN" get "sw.$SW.alg")" = dt ] && case "$msg" in *queue*) true ;; *) false ;; esac &&
	t_pass "prioq: live smartbuf on a 2-queue switch refused, dt kept ($msg)" ||
	t_fail "prioq: live smartbuf refused, dt kept" "$msg; alg $("$DCBPF" --pin-dir "$PIN" get "sw.$SW.alg")"
fields=$(bpftool -j map dump pinned "$PIN/sw/$SW/dc_sw_queue" 2>/dev/null |
	jq -r '.[0].formatted.value | keys | join(",")' 2>/dev/null)
case "$fields" in
*classid*qlen_bytes*) t_pass "prioq: bpftool names dc_sw_queue's fields ($fields)" ;;
*) t_fail "prioq: bpftool names dc_sw_queue's fields" "'$fields'" ;;
esac

# median RTT in µs of N pings with TOS
rtt_med() { # NS TOS COUNT INTERVAL
	fabric_exec "$1" ping -n -q -Q "$2" -c "$3" -i "$4" -W 2 "$RIP" 2>/dev/null >/dev/null
	fabric_exec "$1" ping -n -Q "$2" -c "$3" -i "$4" -W 2 "$RIP" 2>/dev/null |
		sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p' | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) printf "%d %d\n", v[int((NR + 1) / 2)] * 1000, NR; else print "0 0" }'
}
read -r idle_us idle_n <<<"$(rtt_med "${SNS[1]}" 0xa0 30 0.01)"

# --- saturating best-effort flow -------------------------------------------------------
fabric_bg "$RNS" sh -c 'exec iperf3 -s -p 5201 >/dev/null 2>&1'
fabric_wait_port "$RNS" 5201 || { t_fail "prioq: iperf3 server" "did not start"; exit 1; }
# Long enough to outlast every measurement below (the tracker's loop alone
# took over 4 s on a loaded host: a 6 s flow had ended before the DSCP 0
# pings), ended once they are done.
# fabric_bg: its PID is iperf3's (ip netns exec execs it), so the kill below stops the flow
fabric_bg "${SNS[0]}" iperf3 -c "$RIP" -p 5201 -u -b 40M -l 1400 -t 30 >"$LOG/low.txt" 2>&1
LOW_PID=$FAB_LAST_PID
sleep 1.5	# the low queue fills to its threshold (~333 kB: 130 ms at 20 Mbit/s)
read -r high_us high_n <<<"$(rtt_med "${SNS[1]}" 0xa0 30 0.01)"
# tracker vs tc: each leaf's backlog and its record, read back to back
# (tc prints a size within 16 B of a multiple of 1024 as "NKb")
: >"$LOG/track.txt"
for _ in $(seq 1 15); do
	tcb=$(tc -n "$SWNS" -s class show dev "$OUTDEV" | awk '
		/^class htb 1:1 / { c = 1 } /^class htb 1:2 / { c = 2 } /^class htb 1:100 / { c = 0 }
		/backlog/ && c { v = $2; m = 1; if (v ~ /Kb$/) m = 1024; else if (v ~ /Mb$/) m = 1048576
			gsub(/[KMb]/, "", v); b[c] = v * m }
		END { printf "%d %d", b[1], b[2] }')
	trk=$("$DCBPF" --pin-dir "$PIN" --json switch status "$SW" |
		jq -r '.ports[0].queues | "\(.[0].qlen_bytes) \(.[1].qlen_bytes)"')
	echo "$tcb $trk" >>"$LOG/track.txt"
	sleep 0.05
done
read -r low_us low_n <<<"$(rtt_med "${SNS[1]}" 0x00 16 0.05)"	# DT drops some at the threshold
tc -n "$SWNS" -s qdisc show dev "$OUTDEV" >"$LOG/qdisc.txt"
kill "$LOW_PID" 2>/dev/null
wait "$LOW_PID" 2>/dev/null
echo "idle_high_us=$idle_us ($idle_n) load_high_us=$high_us ($high_n) load_low_us=$low_us ($low_n)" >"$LOG/rtt.txt"
cat "$LOG/rtt.txt"

# One hop: the CS5 ping may wait for the low packet HTB is sending (≤ one
# packet time, 600 µs) plus scheduling noise of a loaded 2-core host.
bound=$((idle_us + PKT_US + SLACK_US))
if [ "$high_n" -ge 20 ] && [ "$high_us" -le "$bound" ]; then
	t_pass "prioq: CS5 ping under a saturating DSCP 0 flow: median $high_us µs vs $idle_us µs idle (bound idle + 1 packet time + $SLACK_US µs = $bound)"
else
	t_fail "prioq: CS5 ping not delayed by the low-priority flow" "median $high_us µs ($high_n replies) vs idle $idle_us µs; bound $bound"
fi
# Under emulation the sender keeps the low queue backlogged only in bursts
# (two 6.1 VM runs: low-queue mean 17-56 kB, DSCP 0 pings 0.8-1.7 ms): the
# contrast and the backlog-size conditions below are the host's to check;
# the VM checks the bound above and the tracker's agreement with HTB.
if [ "${DCBPF_VM:-0}" = 1 ]; then
	echo "# prioq: DSCP 0 ping median $low_us µs under emulation (not compared: the port is not kept backlogged)"
elif [ "$low_n" -ge 4 ] && [ "$low_us" -ge $((20 * PKT_US)) ] && [ "$low_us" -ge $((10 * high_us)) ]; then
	t_pass "prioq: a DSCP 0 ping waits behind the low queue (median $low_us µs, ≥ 20 packet times)"
else
	t_fail "prioq: a DSCP 0 ping waits behind the low queue" "median $low_us µs ($low_n replies), high $high_us µs"
fi
# Tolerance as for the port tracker (tests/integ/admit.sh): 64 KB per
# sample (the two reads are tens of ms apart), means within 10 % (runs on a
# loaded host read the leaf 1-10 % low: docs/admission.md).
# The high queue stays near empty: 2 packets on the host; under emulation a
# skipped tracer run can leave its record stale by a few packets until its
# next event (one 6.1 run: 5390 B in every sample, tc 0), so there the
# tracker's own 64 KB tolerance applies.
HI_MAX=3028
[ "${DCBPF_VM:-0}" = 1 ] && HI_MAX=65536
read -r n within big mt mq hi_ok <<<"$(awk -v hm="$HI_MAX" '{ n++; d = $1 - $3; if (d < 0) d = -d; if (d <= 65536) w++;
	if ($1 > 100000) big++; st += $3; sq += $1; if ($2 <= 3028 && $4 <= hm) h++ }
	END { printf "%d %d %d %d %d %d\n", n, w, big, n ? st / n : 0, n ? sq / n : 0, h }' "$LOG/track.txt")"
BIG_MIN=$((n * 8 / 10)) MEAN_TOL=$((mq / 10 + 1514))
[ "${DCBPF_VM:-0}" = 1 ] && BIG_MIN=0 MEAN_TOL=65536	# a queue in bursts: each sample still within 64 KB
if [ "$n" -ge 10 ] && [ "$big" -ge "$BIG_MIN" ] && [ "$within" -ge $((n * 8 / 10)) ] &&
	[ $((mt > mq ? mt - mq : mq - mt)) -le "$MEAN_TOL" ] && [ "$hi_ok" -ge $((n * 8 / 10)) ]; then
	t_pass "prioq: tracked queue 0 follows leaf 1:1 ($within of $n within 64 KB, mean $mt vs $mq B); queue 1 and leaf 1:2 stay near empty ($hi_ok of $n ≤ $HI_MAX B)"
else
	t_fail "prioq: tracked queues follow the HTB leaves" "$n samples, $big above 100 kB, $within within 64 KB, mean $mt vs $mq, high ≤ 2 pkts in $hi_ok (log $LOG/track.txt)"
fi

# --- down ------------------------------------------------------------------------------
"$DCBPF" --pin-dir "$PIN" switch down "$SW" >/dev/null 2>&1 && [ ! -e "$PIN/sw/$SW" ] &&
	[ -z "$(tc -n "$SWNS" filter show dev "$OUTDEV" egress 2>/dev/null)" ] &&
	t_pass "prioq: switch down removes pins and the classifier" ||
	t_fail "prioq: switch down" "left: $(ls "$PIN/sw" 2>&1) $(tc -n "$SWNS" filter show dev "$OUTDEV" egress)"

# --- four queues: the order holds between the middle leaves -------------------------------
# N = 4: priority p in queue min(p, 3), queue k is leaf 1:(k+1) with HTB prio 3 − k.  Two
# saturating UDP flows, CS2 (queue 2, leaf 1:3) and CS1 (queue 1, leaf 1:2): leaf 1:3 gets the
# port, leaf 1:2 only what HTB guarantees every leaf (8 kbit/s; a sparse ping of queue 1
# would pass within that guarantee, a flow cannot), a CS3 ping (queue 3) waits at most about
# a packet time, and the tracker holds the backlog in queues 1 and 2.
if out=$(up --queues 4 buffer_bytes=1000000 alg=dt 2>&1); then
	t_pass "prioq4: switch up --queues 4 on the port's HTB of before ($out)"
else
	t_fail "prioq4: switch up --queues 4" "$out"; exit 1
fi
# "class htb 1:K parent 1:100 leaf …: prio P …": leaf K has prio 4 − K
prios=$(tc -n "$SWNS" class show dev "$OUTDEV" |
	sed -n 's/^class htb 1:\([0-9]*\) parent 1:100 .* prio \([0-9]*\) .*/\1:\2/p' | sort -n | paste -sd' ')
[ "$prios" = "1:3 2:2 3:1 4:0" ] && t_pass "prioq4: leaves 1:1..1:4 with HTB prio 3..0 ($prios)" ||
	t_fail "prioq4: leaves and their HTB prio" "'$prios': $(tc -n "$SWNS" class show dev "$OUTDEV")"
read -r idle4_us idle4_n <<<"$(rtt_med "${SNS[1]}" 0x60 30 0.01)"
for p in 5202 5203; do
	fabric_bg "$RNS" sh -c "exec iperf3 -s -p $p >/dev/null 2>&1"
	fabric_wait_port "$RNS" $p || { t_fail "prioq4: iperf3 server on $p" "did not start"; exit 1; }
done
fabric_bg "${SNS[0]}" iperf3 -c "$RIP" -p 5202 -u -b 40M -l 1400 -S 0x40 -t 30 >"$LOG/cs2.txt" 2>&1
CS2_PID=$FAB_LAST_PID
fabric_bg "${SNS[1]}" iperf3 -c "$RIP" -p 5203 -u -b 40M -l 1400 -S 0x20 -t 30 >"$LOG/cs1.txt" 2>&1
CS1_PID=$FAB_LAST_PID
sleep 1.5	# both queues fill to their thresholds
# bytes each leaf sent (tc -s class)
leaf_sent() {
	tc -n "$SWNS" -s class show dev "$OUTDEV" | awk '/^class htb 1:[0-9]+ / { split($3, a, ":"); c = a[2] }
		/^ Sent / && c != "" { s[c] = $2; c = "" } END { printf "%d %d %d %d\n", s[1], s[2], s[3], s[4] }'
}
read -r s1a s2a s3a s4a <<<"$(leaf_sent)"
t0=$(date +%s%N)
read -r top_us top_n <<<"$(rtt_med "${SNS[1]}" 0x60 30 0.01)"
: >"$LOG/track4.txt"
for _ in $(seq 1 10); do
	"$DCBPF" --pin-dir "$PIN" --json switch status "$SW" |
		jq -r '.ports[0].queues | map(.qlen_bytes) | join(" ")' >>"$LOG/track4.txt"
	sleep 0.05
done
read -r s1b s2b s3b s4b <<<"$(leaf_sent)"
t1=$(date +%s%N)
kill "$CS2_PID" "$CS1_PID" 2>/dev/null
wait "$CS2_PID" "$CS1_PID" 2>/dev/null
# kbit/s per leaf over the interval (ns: bytes · 8 · 10⁶ / ns = kbit/s)
dt_ns=$((t1 - t0))
r2=$(((s2b - s2a) * 8000000 / dt_ns)) r3=$(((s3b - s3a) * 8000000 / dt_ns))
echo "idle_cs3_us=$idle4_us ($idle4_n) load_cs3_us=$top_us ($top_n) leaf1:2_kbit=$r2 leaf1:3_kbit=$r3 (over $((dt_ns / 1000000)) ms; leaves 1:1, 1:4 $((s1b - s1a)), $((s4b - s4a)) B)" >"$LOG/rtt4.txt"
cat "$LOG/rtt4.txt"
bound=$((idle4_us + PKT_US + SLACK_US))
[ "$top_n" -ge 20 ] && [ "$top_us" -le "$bound" ] &&
	t_pass "prioq4: CS3 ping under saturating CS2 and CS1 flows: median $top_us µs vs $idle4_us µs idle (bound $bound)" ||
	t_fail "prioq4: CS3 ping not delayed by the CS2 and CS1 flows" "median $top_us µs ($top_n replies) vs idle $idle4_us µs; bound $bound"
# leaf 1:3 takes the port (≥ 80 % of RATE), leaf 1:2 at most 2 % of it: its 8 kbit/s, and
# CS3 pings and scheduling noise
if [ "$r3" -ge $((RATE * 800)) ] && [ "$r2" -le $((RATE * 20)) ]; then
	t_pass "prioq4: leaf 1:3 (CS2) sends $r3 kbit/s, leaf 1:2 (CS1) $r2 kbit/s below it"
else
	t_fail "prioq4: strict priority between leaves 1:3 and 1:2" "1:3 $r3 kbit/s (≥ $((RATE * 800))), 1:2 $r2 kbit/s (≤ $((RATE * 20)))"
fi
# the tracker: queues 1 and 2 hold the backlog (> 100 kB each), queues 0 and 3 at most two packets
read -r n4 ok4 <<<"$(awk '{ n++; if ($2 > 100000 && $3 > 100000 && $1 <= 3028 && $4 <= 3028) ok++ }
	END { printf "%d %d\n", n, ok }' "$LOG/track4.txt")"
[ "$n4" -ge 10 ] && [ "$ok4" -ge $((n4 * 8 / 10)) ] &&
	t_pass "prioq4: the tracker holds the backlog in queues 1 and 2 ($ok4 of $n4 samples > 100 kB each, queues 0 and 3 ≤ 2 packets)" ||
	t_fail "prioq4: tracked queues under the two flows" "$ok4 of $n4 samples (log $LOG/track4.txt: $(tail -n 1 "$LOG/track4.txt"))"
"$DCBPF" --pin-dir "$PIN" switch down "$SW" >/dev/null 2>&1 && [ ! -e "$PIN/sw/$SW" ] &&
	t_pass "prioq4: switch down" || t_fail "prioq4: switch down" "left: $(ls "$PIN/sw" 2>&1)"
