# Integration: Slytherin on a live switch (dcbpf switch up --queues 2
# prio_mode=slytherin; docs/admission.md, "Classification modes").  Two
# senders and one receiver behind a switch whose ports run at 20 Mbit/s,
# as tests/integ/prioq.sh.  With a saturating Not-ECT UDP flow (TOS 0) to
# the receiver: a ping with CE set goes to the high queue (median within
# one packet time of idle, as prioq's CS5 ping), while a CS5 Not-ECT ping
# now waits in the low queue (the DSCP no longer chooses); ECT(0) pings
# that meet the port's backlog above K = sly_k · B are marked CE by the
# egress program (ecn_marked_pkts rises by at most their number: the flood,
# Not-ECT, is never marked).  Under emulation only the CE bound is checked
# (the sender keeps the port backlogged only in bursts: prioq.sh).
# host-suite: 75 s under the 6.1 VM's emulation for one bound; the egress
# classifier and mark are proven on every kernel by tests/prog/test_sw_modes.c,
# and the HTB leaves and dc_sw_prio's attach by tests/integ/prioq.sh.
# shellcheck shell=bash
# shellcheck disable=SC2015
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/fabric.sh
source tests/lib/prioqfab.sh

pq_fabric slytherin || exit 1
if out=$("$DCBPF" --pin-dir "$PIN" switch up "$SW" --netns "$SWNS" --ports "$plist" --rate-mbps "$RATE" \
	--queues 2 buffer_bytes=1000000 alg=dt prio_mode=slytherin sly_k=0.05 2>&1); then
	t_pass "slytherin: switch up --queues 2 prio_mode=slytherin sly_k=0.05"
else
	t_fail "slytherin: switch up" "$out"; exit 1
fi
marked() { "$DCBPF" --pin-dir "$PIN" --json switch status "$SW" | jq -r '.ports[0].ecn_marked_pkts'; }

# median RTT in µs of N pings with TOS (a warm-up round first)
rtt_med() { # NS TOS COUNT INTERVAL
	fabric_exec "$1" ping -n -q -Q "$2" -c "$3" -i "$4" -W 2 "$RIP" 2>/dev/null >/dev/null
	fabric_exec "$1" ping -n -Q "$2" -c "$3" -i "$4" -W 2 "$RIP" 2>/dev/null |
		sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p' | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) printf "%d %d\n", v[int((NR + 1) / 2)] * 1000, NR; else print "0 0" }'
}
read -r idle_us idle_n <<<"$(rtt_med "${SNS[1]}" 0x03 30 0.01)"

fabric_bg "$RNS" sh -c 'exec iperf3 -s -p 5201 >/dev/null 2>&1'
fabric_wait_port "$RNS" 5201 || { t_fail "slytherin: iperf3 server" "did not start"; exit 1; }
fabric_exec "${SNS[0]}" iperf3 -c "$RIP" -p 5201 -u -b 40M -l 1400 -t 30 >"$LOG/low.txt" 2>&1 &
LOW_PID=$!
sleep 1.5	# the low queue fills to DT's threshold (~333 kB: 130 ms at 20 Mbit/s)
read -r high_us high_n <<<"$(rtt_med "${SNS[1]}" 0x03 30 0.01)"
m0=$(marked)
read -r ect_us ect_n <<<"$(rtt_med "${SNS[1]}" 0x02 16 0.05)"
m1=$(marked)
read -r cs5_us cs5_n <<<"$(rtt_med "${SNS[1]}" 0xa0 16 0.05)"	# DT drops many at the threshold
kill "$LOW_PID" 2>/dev/null
wait "$LOW_PID" 2>/dev/null
echo "idle_ce_us=$idle_us ($idle_n) load_ce_us=$high_us ($high_n) load_ect0_us=$ect_us ($ect_n) load_cs5_us=$cs5_us ($cs5_n) marked=$m0->$m1" | tee "$LOG/rtt.txt"

bound=$((idle_us + PKT_US + SLACK_US))
if [ "$high_n" -ge 20 ] && [ "$high_us" -le "$bound" ]; then
	t_pass "slytherin: CE ping under a saturating Not-ECT flow: median $high_us µs vs $idle_us µs idle (bound $bound)"
else
	t_fail "slytherin: CE ping in the high queue" "median $high_us µs ($high_n replies) vs idle $idle_us µs; bound $bound"
fi
if [ "${DCBPF_VM:-0}" = 1 ]; then
	echo "# slytherin: CS5 median $cs5_us µs, ECT(0) marks $m0 -> $m1 under emulation (not compared: the port is not kept backlogged)"
else
	[ "$cs5_n" -ge 2 ] && [ "$cs5_us" -ge $((20 * PKT_US)) ] && [ "$cs5_us" -ge $((10 * high_us)) ] &&
		t_pass "slytherin: a CS5 Not-ECT ping waits in the low queue (median $cs5_us µs): the DSCP does not choose" ||
		t_fail "slytherin: a CS5 Not-ECT ping waits in the low queue" "median $cs5_us µs ($cs5_n replies), CE $high_us µs"
	# 32 ECT(0) requests (warm-up and measured round) meet the backlog; the
	# ones DT admits are marked, the Not-ECT flood never is
	[ -n "$m0" ] && [ -n "$m1" ] && [ $((m1 - m0)) -ge 1 ] && [ $((m1 - m0)) -le 32 ] &&
		t_pass "slytherin: ECT(0) pings above K marked CE at egress ($((m1 - m0)) of 32 sent), the Not-ECT flood never" ||
		t_fail "slytherin: ECT(0) pings marked, the flood not" "ecn_marked_pkts $m0 -> $m1"
fi
"$DCBPF" --pin-dir "$PIN" switch down "$SW" >/dev/null 2>&1 && [ ! -e "$PIN/sw/$SW" ] &&
	t_pass "slytherin: switch down removes its pins" ||
	t_fail "slytherin: switch down" "left: $(ls "$PIN/sw" 2>&1)"
[ -z "${T_FAILED:-}" ]
