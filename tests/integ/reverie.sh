# Integration: Reverie as the admission algorithm of a live switch (dcbpf
# switch up alg=reverie; docs/admission.md, "Reverie in the switch").  The
# priority-queue fabric (tests/lib/prioqfab.sh): s0 and s1 → switch → r0,
# ports at RATE Mbit/s, one FIFO per port (with strict-priority queues the
# lossless class would be served first and rarely build a queue).  s0
# sends lossless UDP (DSCP 26, priority 3: lossless.3 = 1), s1 lossy UDP
# (DSCP 0), each at 3/4 of the port for 2 s, into the one port to r0.
# Checks: a headroom pool larger than the buffer is refused with the reason
# and leaves nothing; during the incast the lossless ingress queue PAUSEs
# (pauses counted in switch status and in dc_sw_rv, which bpftool names)
# while lossy packets are dropped by the threshold; Reverie's counts stay
# with the buffer's occupancy during it (within 64 kB: a tracer run the
# kernel skips on a loaded host leaves a departure uncounted until the
# buffer next empties); after it both pools are empty and every paused
# queue has resumed (pauses = resumes); a live rv_gamma=1 is refused and the running value
# kept.  No upstream honours the pauses yet (docs/admission.md, "PFC"):
# lossless drops are reported, not asserted.
# host-suite: the switch object (XDP admission and the qdisc tracker
# programs) is loaded and its Reverie and SONiC decisions checked against
# the cores on 6.1 by prog/test_sw_reverie; this live fabric adds the
# tracker's departures under load, which under the VM's emulation cannot
# keep a port backlogged and costs tens of seconds (20 s for the refusals
# and the start alone).
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/fabric.sh
source tests/lib/prioqfab.sh

pq_fabric reverie || exit 1
# Every port of the switch gets a queue, the senders' ports a fast TBF: a
# port without a qdisc (veth's noqueue) gives the tracker no departures,
# so what XDP counted toward it (the ACKs of iperf3's control connection,
# ping replies) would stay in Reverie's pools (docs/admission.md).
for d in "${PORTS[@]:1}"; do
	fabric_shape "$SWNS" "$d" 10000 20000000 || { t_fail "reverie: a queue on $d" "tbf refused"; exit 1; }
done
up() { "$DCBPF" --pin-dir "$PIN" switch up "$SW" --netns "$SWNS" --ports "$plist" --rate-mbps "$RATE" "$@"; }
st() { "$DCBPF" --pin-dir "$PIN" --json switch status "$SW"; }

# --- refusal --------------------------------------------------------------------------
msg=$(up alg=reverie buffer_bytes=200000 rv_hdrm_pool_bytes=300000 2>&1) &&
	t_fail "reverie: a headroom pool above the buffer refused" "accepted: $msg"
case "$msg" in
*rv_hdrm_pool_bytes*no\ shared\ pool*) t_pass "reverie: a headroom pool above the buffer refused ($msg)" ;;
*) t_fail "reverie: a headroom pool above the buffer refused with the reason" "$msg" ;;
esac
[ ! -e "$PIN/sw/$SW" ] && t_pass "reverie: the refused up left no pins" ||
	t_fail "reverie: the refused up left no pins" "$(ls "$PIN/sw" 2>&1)"

# --- up ---------------------------------------------------------------------------------
BUF=200000
if out=$(up alg=reverie buffer_bytes=$BUF rv_hdrm_bytes=20000 rv_hdrm_pool_bytes=40000 \
	lossless.3=1 rv_gamma=0.99 2>&1); then
	t_pass "reverie: switch up alg=reverie ($out)"
else
	t_fail "reverie: switch up alg=reverie" "$out"; exit 1
fi

fabric_bg "$RNS" sh -c 'exec iperf3 -s -p 5201 >/dev/null 2>&1'
fabric_bg "$RNS" sh -c 'exec iperf3 -s -p 5202 >/dev/null 2>&1'
fabric_wait_port "$RNS" 5201 && fabric_wait_port "$RNS" 5202 ||
	{ t_fail "reverie: iperf3 servers" "did not start"; exit 1; }
bw=$((RATE * 3 / 4))M
fabric_exec "${SNS[0]}" iperf3 -c "$RIP" -p 5201 -u -b "$bw" -l 1400 -S 0x68 -t 2 >"$LOG/ll.txt" 2>&1 &
LL=$!
fabric_exec "${SNS[1]}" iperf3 -c "$RIP" -p 5202 -u -b "$bw" -l 1400 -t 2 >"$LOG/ly.txt" 2>&1 &
LY=$!
# Reverie's counts against the tracked buffer: q* + headroom in use vs the
# occupancy Q of the qdiscs, read in one status call, 10 times
# while the senders run (their start is late on a loaded host)
: >"$LOG/counts.txt"
for _ in $(seq 1 60); do
	kill -0 "$LL" 2>/dev/null || kill -0 "$LY" 2>/dev/null || break
	st | jq -r '"\(.occupancy_bytes) \(.reverie.shared_used_bytes + .reverie.hdrm_used_bytes)"' >>"$LOG/counts.txt"
	sleep 0.05
done
wait "$LL" "$LY"
# the port drains (at most the buffer at RATE), then the counts.  A
# departure the kernel skipped (above) is set right when the buffer next
# empties, i.e. at the next packet out of an empty buffer: if the counts
# are not 0 after the drain, one ping goes through the switch and the
# counts are read again (a count that does not heal fails below).
sleep 0.5
drained() {
	st >"$LOG/after.json" &&
		jqe '.reverie.shared_used_bytes == 0 and .reverie.hdrm_used_bytes == 0' "$LOG/after.json" >/dev/null
}
if ! drained; then
	cp "$LOG/after.json" "$LOG/after-drain.json"
	echo "# counts after the drain: $(jq -c '.reverie | {shared_used_bytes, hdrm_used_bytes}' "$LOG/after.json"); one ping through the switch"
	fabric_exec "${SNS[0]}" ping -c 1 -W 1 -q "$RIP" >/dev/null 2>&1
	wait_until 2 drained
fi
bpftool -j map dump pinned "$PIN/sw/$SW/dc_sw_rv" >"$LOG/rv.json" 2>/dev/null

# port of s0's link (p0) and of r0 (q0) in the status
pin_=$(jq -r '.ports[] | select(.ifname | endswith("p0")) | .port' "$LOG/after.json")
pout=$(jq -r --arg d "$OUTDEV" '.ports[] | select(.ifname == $d) | .port' "$LOG/after.json")
read -r pauses resumes paused hdrm_pkts hdrm_drops <<<"$(jq -r --argjson p "$pin_" \
	'.reverie.pfc[] | select(.port == $p and .prio == 3) | "\(.pauses) \(.resumes) \(.paused) \(.hdrm_pkts) \(.hdrm_drops)"' "$LOG/after.json")"
read -r ly_thr ly_adm <<<"$(jq -r --argjson p "$pout" '.ports[] | select(.port == $p) |
	"\(.drop_thresh_pkts) \(.admit_pkts)"' "$LOG/after.json")"
echo "# in port $pin_ out port $pout: pauses $pauses resumes $resumes paused $paused hdrm_pkts $hdrm_pkts hdrm_drops $hdrm_drops; out port admitted $ly_adm threshold drops $ly_thr"

[ "${pauses:-0}" -ge 1 ] && [ "${hdrm_pkts:-0}" -ge 1 ] &&
	t_pass "reverie: the lossless queue (port $pin_, priority 3) paused $pauses times, $hdrm_pkts packets into its headroom" ||
	t_fail "reverie: the lossless queue paused" "pauses ${pauses:-?}, headroom packets ${hdrm_pkts:-?} ($LOG/after.json)"
[ "${ly_thr:-0}" -ge 1 ] &&
	t_pass "reverie: lossy packets dropped by the threshold at the incast port ($ly_thr)" ||
	t_fail "reverie: lossy packets dropped by the threshold" "${ly_thr:-?} ($LOG/after.json)"
# departures tracked: the counts stay with the buffer while it is busy
# (without departures they would climb to the shared pool, 160 kB, and
# stay there)
# (samples of a busy buffer only: Q > 10 kB)
read -r n within md <<<"$(awk '$1 > 10000 { n++; d = $2 - $1; if (d < 0) d = -d; if (d <= 65536) w++; s += $2 - $1 }
	END { printf "%d %d %d\n", n, w, n ? s / n : 0 }' "$LOG/counts.txt")"
[ "$n" -ge 3 ] && [ "$within" -ge $((n * 8 / 10)) ] &&
	t_pass "reverie: q* + headroom follow the buffer's occupancy during the incast ($within of $n busy samples within 64 kB, mean counts - occupancy $md B)" ||
	t_fail "reverie: Reverie's counts follow the occupancy" "$within of $n busy samples within 64 kB, mean difference $md B ($LOG/counts.txt)"
read -r sh_used hd_used <<<"$(jq -r '"\(.reverie.shared_used_bytes) \(.reverie.hdrm_used_bytes)"' "$LOG/after.json")"
[ "$sh_used" = 0 ] && [ "$hd_used" = 0 ] && [ "$paused" = false ] && [ "$pauses" = "$resumes" ] &&
	t_pass "reverie: after the incast both pools are empty and every pause resumed ($pauses = $resumes)" ||
	t_fail "reverie: pools emptied and queues resumed after the incast" "shared $sh_used, headroom $hd_used, paused $paused, pauses $pauses resumes $resumes"
fields=$(jq -r '.[0].formatted.value.in[0] | keys | join(",")' "$LOG/rv.json" 2>/dev/null)
case "$fields" in
*pauses*q*resumes*) t_pass "reverie: bpftool names dc_sw_rv's queue fields ($fields)" ;;
*) t_fail "reverie: bpftool names dc_sw_rv's queue fields" "'$fields'" ;;
esac

# --- live refusal: the running value kept -------------------------------------------------
msg=$("$DCBPF" --pin-dir "$PIN" set "sw.$SW.rv_gamma=1" 2>&1) &&
	t_fail "reverie: live rv_gamma=1 refused" "accepted: $msg"
g=$("$DCBPF" --pin-dir "$PIN" get "sw.$SW.rv_gamma")
case "$msg" in
*rv_gamma*never\ move*) [ "$g" = 0.99 ] && t_pass "reverie: live rv_gamma=1 refused ($msg), 0.99 kept" ||
	t_fail "reverie: live rv_gamma=1 refused, value kept" "now $g" ;;
*) t_fail "reverie: live rv_gamma=1 refused with the reason" "$msg" ;;
esac
msg=$("$DCBPF" --pin-dir "$PIN" set "sw.$SW.rv_hdrm_bytes=50000" 2>&1) &&
	t_fail "reverie: live headroom above the pool refused" "accepted: $msg"
h=$("$DCBPF" --pin-dir "$PIN" get "sw.$SW.rv_hdrm_bytes")
case "$msg" in
*exceeds\ the\ pool*) [ "$h" = 20000 ] && t_pass "reverie: live rv_hdrm_bytes above the pool refused, 20000 kept" ||
	t_fail "reverie: live rv_hdrm_bytes refused, value kept" "now $h" ;;
*) t_fail "reverie: live rv_hdrm_bytes above the pool refused with the reason" "$msg" ;;
esac
