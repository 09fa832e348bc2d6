# Integration: PFC honoured upstream (docs/admission.md, "PFC in the
# fabric").  s0 and s1 reach the switch through wires whose delay lines
# (tests/tools/delayline.c, -P) map the switch's dc_sw_pfc and hold the
# lossless priority (3, DSCP 26) while the switch has it paused on their
# port; r0 sits behind one TBF port at RATE Mbit/s.  s0 and s1 each send
# lossless UDP at 0.45·RATE, s1 lossy UDP at 0.75·RATE beside it, into the
# port to r0, under alg=reverie, twice:
#  - control: a switch whose dc_sw_pfc is not where the delay lines look
#    (nothing upstream honours the pauses): lossless packets are dropped
#    by the headroom overrun (reported, and the sum must be above zero for
#    the next part to mean anything);
#  - PFC: the same switch with the delay lines reading its pauses: no
#    lossless packet lost (hdrm_drops 0 on both ports, the TBF's drops 0,
#    the delay lines' PFC rings dropped nothing, iperf3's lossless loss 0)
#    while lossy packets are dropped by the threshold; the pauses counted
#    in switch status equal those in dc_sw_pfc (bpftool map dump), the
#    delay lines held frames, every pause resumed afterwards, both pools
#    empty.  Every pause resumes by itself within 2.5 s of the traffic
#    (the switch's re-test, counted apart).  The delay lines' reaction (flag write → last frame of that
#    priority sent) and late bytes are printed: the headroom's sizing.
# host-suite: two SCHED_FIFO delay lines relaying 20 Mbit/s in user space
# with a 50 µs pause poll; under the VM's emulation the relays themselves
# fall behind.  The BPF (dc_sw_pfc written at each PFC event and read
# through mmap) is proven on 6.1 by prog/test_sw_reverie, the re-test of
# paused queues by prog/test_sw_rvretest.
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.
# shellcheck disable=SC2015
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/fabric.sh
source tests/lib/prioqfab.sh
t_need_root "pfc" || exit 0

DCBPF="$BUILD/dcbpf"
RATE=20
SW=pfc$$
SW=${SW:0:15}
SWA=pfa$$
SWA=${SWA:0:15}
PIN=/sys/fs/bpf/dcbpf-pfc$$
# The delay lines run under `ip netns exec`, which remounts /sys and so
# hides /sys/fs/bpf: they read the pins through a bind mount of the pin
# directory, made before they start so their mount namespaces copy it.
PINB=/tmp/dcbpf-pfc$$
LOG="$OUT/pfc"
mkdir -p "$LOG"
export FAB_WIRE_STATS="$LOG/"
cleanup() {
	"$DCBPF" --pin-dir "$PIN" switch down "$SW" >/dev/null 2>&1
	"$DCBPF" --pin-dir "$PIN" switch down "$SWA" >/dev/null 2>&1
	umount "$PINB" 2>/dev/null
	rmdir "$PINB" 2>/dev/null
	rm -rf "$PIN"
}
# the priority-queue fabric (tests/lib/prioqfab.sh) in 10.81/16, the senders
# through wires whose delay lines honour PFC on the switch port they feed
# (port i + 1 in --ports), a queue on every switch port (Reverie counts
# departures there)
pfc_link() {
	FAB_DELAYLINE_OPTS="-P $PINB/sw/$SW/dc_sw_pfc -p $(($1 + 1)) -L 3 -R $RATE" \
		fabric_make_wire "${SNS[$1]}" "h$1" "$SWNS" "p$1" 0 ab
}
pfc_port_queue() { fabric_shape "$SWNS" "$1" 10000 20000000; }
build() { PQ_NET=10.81 PQ_ON_EXIT=cleanup PQ_LINK=pfc_link PQ_PORT_HOOK=pfc_port_queue pq_build; }
mkdir -p "$PIN" "$PINB" && mount --bind "$PIN" "$PINB" ||
	{ t_fail "pfc: the pin directory bound at $PINB" "mount failed"; cleanup; exit 1; }
build || { t_fail "pfc: fabric" "builder failed"; exit 1; }
PQ_NET=10.81 pq_reach pfc || exit 1
for p in 5201 5202 5203; do
	fabric_bg "$RNS" sh -c "exec iperf3 -s -p $p >/dev/null 2>&1"
done
for p in 5201 5202 5203; do
	fabric_wait_port "$RNS" $p || { t_fail "pfc: iperf3 servers" "port $p did not open"; exit 1; }
done

# one run of the traffic against switch NAME; status JSON in $LOG/NAME.json
run() {
	local name=$1 ll=$((RATE * 45 / 100))M ly=$((RATE * 3 / 4))M a b c
	"$DCBPF" --pin-dir "$PIN" switch up "$name" --netns "$SWNS" --ports "$plist" --rate-mbps "$RATE" \
		alg=reverie buffer_bytes=200000 rv_hdrm_bytes="$HDRM" rv_hdrm_pool_bytes=$((2 * HDRM)) \
		lossless.3=1 rv_gamma=0.99 >"$LOG/$name-up.txt" 2>&1 || return 1
	fabric_exec "${SNS[0]}" iperf3 -c "$RIP" -p 5201 -u -b "$ll" -l 1400 -S 0x68 -t 2 -J >"$LOG/$name-ll0.json" 2>>"$LOG/iperf.err" &
	a=$!
	fabric_exec "${SNS[1]}" iperf3 -c "$RIP" -p 5202 -u -b "$ll" -l 1400 -S 0x68 -t 2 -J >"$LOG/$name-ll1.json" 2>>"$LOG/iperf.err" &
	b=$!
	fabric_exec "${SNS[1]}" iperf3 -c "$RIP" -p 5203 -u -b "$ly" -l 1400 -t 2 -J >"$LOG/$name-ly.json" 2>>"$LOG/iperf.err" &
	c=$!
	# the lossless queues while it runs: paused q_bytes qhat_bytes hdrm_bytes, ports 1 and 2
	: >"$LOG/$name-samples.txt"
	while kill -0 "$a" 2>/dev/null || kill -0 "$b" 2>/dev/null; do
		"$DCBPF" --pin-dir "$PIN" --json switch status "$name" 2>/dev/null | jq -r '[.reverie.pfc[] |
			select(.port != 0 and .prio == 3) | "\(.paused) \(.q_bytes) \(.qhat_bytes) \(.hdrm_bytes)"] |
			join("  ")' >>"$LOG/$name-samples.txt"
		sleep 0.05
	done
	wait "$a" "$b" "$c"
	# Every queue must resume by itself: the switch re-tests its paused
	# queues at every departure and drops a count whose packets have all
	# left (docs/admission.md, PFC in the fabric); nothing is sent to help
	# it.  The wait: the buffer's drain (80 ms) and the delay lines' quanta
	# (250 ms) several times over.
	for _ in $(seq 50); do
		paused_any "$name" || break
		sleep 0.05
	done
	# A held queue whose packets are still in the port's qdisc is not the
	# switch's: the veth port stopped giving out (seen in 2 of 10 runs,
	# 95 172 B in 66 packets 2.5 s after the traffic) and the pause is
	# genuine. A packet enqueued there restarts the port: one ping per
	# sender, said in the output, then the same wait. A held queue over an
	# empty qdisc is a stale count and gets no help.
	# The port's qdisc is looked at whatever the pause state says: a
	# stalled port's queue keeps pausing and resuming on the delay lines'
	# one frame per quanta, so a single look at the pause state can miss it.
	: >"$LOG/$name-stall.txt"
	local qb
	qb=$(tc -n "$SWNS" -s qdisc show dev "$OUTDEV" | awk '/backlog/ { print $2; exit }')
	if [ -n "$qb" ] && [ "${qb%b}" != 0 ]; then
		echo "$qb" >"$LOG/$name-stall.txt"
		echo "# $name: the port to r0 stalled with $qb in its qdisc 2.5 s after the traffic; one ping per sender"
		for i in 0 1; do fabric_exec "${SNS[i]}" ping -c1 -W1 -q "$RIP" >/dev/null 2>&1; done
		for _ in $(seq 50); do
			paused_any "$name" || break
			sleep 0.05
		done
	fi
	"$DCBPF" --pin-dir "$PIN" --json switch status "$name" >"$LOG/$name.json"
	# what the port's qdisc really holds then (a count is stale only if it does not)
	tc -n "$SWNS" -s qdisc show dev "$OUTDEV" | awk '/backlog/ { print $2, $3; exit }' >"$LOG/$name-backlog.txt"
}
paused_any() {
	"$DCBPF" --pin-dir "$PIN" --json switch status "$1" 2>/dev/null |
		jq -e '[.reverie.pfc[] | select(.port != 0 and .prio == 3) | .paused] | any' >/dev/null
}
# a port's lossless queue (priority 3) in the status: pauses resumes paused hdrm_pkts hdrm_drops
# retest_resumes stale_bytes q_bytes hdrm_bytes qhat_bytes
pfcrow() {
	jq -r --argjson p "$2" '.reverie.pfc[] | select(.port == $p and .prio == 3) |
		"\(.pauses) \(.resumes) \(.paused) \(.hdrm_pkts) \(.hdrm_drops) \(.retest_resumes) \(.stale_bytes) \(.q_bytes) \(.hdrm_bytes) \(.qhat_bytes)"' "$LOG/$1.json"
}
# UDP: the receiver's count of the sender's packets that never came
lost() { jq -r '.end.sum.lost_packets // "?"' "$LOG/$1"; }

HDRM=20000
# ---- control: nothing honours the pauses ----------------------------------------------------
run "$SWA" || { t_fail "pfc: control switch up" "$(cat "$LOG/$SWA-up.txt")"; exit 1; }
read -r _ _ _ _ d1 <<<"$(pfcrow "$SWA" 1)"
read -r _ _ _ _ d2 <<<"$(pfcrow "$SWA" 2)"
echo "# control (pauses not honoured): hdrm_drops $d1 + $d2, iperf3 lossless lost $(lost "$SWA-ll0.json") + $(lost "$SWA-ll1.json")"
[ $((${d1:-0} + ${d2:-0})) -gt 0 ] &&
	t_pass "pfc: control: without the upstream honouring pauses lossless packets overrun the headroom ($d1 + $d2 dropped)" ||
	t_fail "pfc: control: the traffic overruns a headroom nobody honours" "hdrm_drops $d1 + $d2 ($LOG/$SWA.json)"
"$DCBPF" --pin-dir "$PIN" switch down "$SWA" >/dev/null

# ---- PFC: the delay lines hold the paused priority ------------------------------------------
q0=$(tc -n "$SWNS" -s qdisc show dev "$OUTDEV" | awk '/dropped/ { gsub(",", "", $7); print $7; exit }')
run "$SW" || { t_fail "pfc: switch up" "$(cat "$LOG/$SW-up.txt")"; exit 1; }
q1=$(tc -n "$SWNS" -s qdisc show dev "$OUTDEV" | awk '/dropped/ { gsub(",", "", $7); print $7; exit }')
bpftool -j map dump pinned "$PIN/sw/$SW/dc_sw_pfc" >"$LOG/pfcmap.json" 2>/dev/null
w0=$(fabric_wire_stats 0) && w1=$(fabric_wire_stats 1) || { t_fail "pfc: delay line counters" "no answer"; exit 1; }
echo "$w0" >"$LOG/wire0.json"
echo "$w1" >"$LOG/wire1.json"
read -r pa1 re1 ps1 hp1 d1 rt1 sb1 qb1 hb1 qh1 <<<"$(pfcrow "$SW" 1)"
read -r pa2 re2 ps2 hp2 d2 rt2 sb2 qb2 hb2 qh2 <<<"$(pfcrow "$SW" 2)"
l0=$(lost "$SW-ll0.json") l1=$(lost "$SW-ll1.json")
pout=$(jq -r --arg d "$OUTDEV" '.ports[] | select(.ifname == $d) | .port' "$LOG/$SW.json")
ly_thr=$(jq -r --argjson p "$pout" '.ports[] | select(.port == $p) | .drop_thresh_pkts' "$LOG/$SW.json")
for k in 0 1; do
	w=$([ $k = 0 ] && echo "$w0" || echo "$w1")
	echo "# wire $k: $(jq -c '.pfc' <<<"$w")"
done
hmax=$(awk '{ for (i = 4; i <= NF; i += 4) if ($i > m) m = $i } END { print m + 0 }' "$LOG/$SW-samples.txt")
echo "# headroom of one queue: at most $hmax B in the samples, $(( (hp1 + hp2) / (pa1 + pa2 > 0 ? pa1 + pa2 : 1) )) packets per pause"
echo "# PFC: port 1 pauses $pa1 resumes $re1 hdrm_pkts $hp1 hdrm_drops $d1; port 2 pauses $pa2 resumes $re2 hdrm_pkts $hp2 hdrm_drops $d2; lossless lost $l0 + $l1; lossy threshold drops $ly_thr; TBF drops $q0 -> $q1"
echo "# re-test: port 1 resumes $rt1 (stale bytes dropped $sb1), port 2 resumes $rt2 (stale bytes dropped $sb2); resets $(jq -r '.reverie.resets' "$LOG/$SW.json")"

[ $((pa1 + pa2)) -ge 1 ] && [ "$(jq -s '[.[].pfc.holds] | add' <<<"$w0 $w1")" -ge 1 ] &&
	t_pass "pfc: the lossless queues paused ($pa1 + $pa2) and the delay lines held frames ($(jq -s '[.[].pfc.holds] | add' <<<"$w0 $w1") holds)" ||
	t_fail "pfc: pauses sent and honoured" "pauses $pa1 + $pa2, wires $(jq -c '.pfc.holds' <<<"$w0") $(jq -c '.pfc.holds' <<<"$w1")"
[ "$d1" = 0 ] && [ "$d2" = 0 ] && [ "$q0" = "$q1" ] && [ "$l0" = 0 ] && [ "$l1" = 0 ] &&
	[ "$(jq -s '[.[].pfc.dropped_ring, .[].directions[0].dropped_ring] | add' <<<"$w0 $w1")" = 0 ] &&
	t_pass "pfc: no lossless packet lost (headroom drops 0 + 0, TBF drops unchanged, iperf3 lost 0 + 0, delay lines dropped nothing)" ||
	t_fail "pfc: no lossless packet lost" "hdrm_drops $d1 + $d2, TBF $q0 -> $q1, lost $l0 + $l1, wire drops $(jq -s -c '[.[].pfc.dropped_ring]' <<<"$w0 $w1")"
[ "${ly_thr:-0}" -ge 1 ] &&
	t_pass "pfc: lossy packets beside them dropped by admission ($ly_thr at the threshold)" ||
	t_fail "pfc: lossy packets dropped by admission" "${ly_thr:-?}"
# key = port·8 + priority: 11 and 19
m1=$(jq -r '.[] | select(.formatted.key == 11) | .formatted.value.pauses' "$LOG/pfcmap.json" 2>/dev/null)
m2=$(jq -r '.[] | select(.formatted.key == 19) | .formatted.value.pauses' "$LOG/pfcmap.json" 2>/dev/null)
[ "$m1" = "$pa1" ] && [ "$m2" = "$pa2" ] &&
	t_pass "pfc: bpftool map dump of dc_sw_pfc shows the pauses switch status counts ($m1, $m2)" ||
	t_fail "pfc: dc_sw_pfc's pauses = switch status's" "map $m1 $m2, status $pa1 $pa2 ($LOG/pfcmap.json)"
npaused=$(jq '[.[] | select(.formatted.value.paused != 0)] | length' "$LOG/pfcmap.json" 2>/dev/null)
# held with its packets still in the port's qdisc: the port stopped giving out (the pause is
# genuine); held with the qdisc empty: a stale count the re-test missed
read -r qdb _ <"$LOG/$SW-backlog.txt"
why=$([ "${qdb%b}" = 0 ] && echo "the qdisc is empty: a stale count" ||
	echo "the qdisc still holds them: the port stopped giving out, the pause is genuine")
[ "$ps1" = false ] && [ "$ps2" = false ] && [ "$pa1" = "$re1" ] && [ "$pa2" = "$re2" ] && [ "$npaused" = 0 ] &&
	t_pass "pfc: within 2.5 s of the traffic every pause resumed by itself, in the status and in dc_sw_pfc ($rt1 + $rt2 by the re-test$([ -s "$LOG/$SW-stall.txt" ] && echo "; after a port stall with $(cat "$LOG/$SW-stall.txt") queued, restarted by a ping"))" ||
	t_fail "pfc: every pause resumed by itself within 2.5 s" "paused $ps1 $ps2, pauses/resumes $pa1/$re1 $pa2/$re2, map paused entries $npaused; port 1 q $qb1 hdrm $hb1 qhat $qh1, port 2 q $qb2 hdrm $hb2 qhat $qh2, pools $(jq -c '.reverie | {shared_used_bytes, hdrm_used_bytes, n_lossless_q16, resets}' "$LOG/$SW.json"), port to r0: tracked $(jq -r --argjson p "$pout" '.ports[] | select(.port == $p) | .qlen_bytes' "$LOG/$SW.json") B, its qdisc's backlog $(cat "$LOG/$SW-backlog.txt") ($why)"
