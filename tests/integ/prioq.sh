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
# without per-queue state is refused, the old one kept.
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
fabric_exec "${SNS[0]}" iperf3 -c "$RIP" -p 5201 -u -b 40M -l 1400 -t 30 >"$LOG/low.txt" 2>&1 &
LOW_PID=$!
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
