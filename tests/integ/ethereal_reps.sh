# host-suite: REPS' programs are proven on 6.1 by prog/test_eth_reps_prog (the
# choice, the ACK's recycling and dropping, the bound); this run needs a TCP
# flow fast enough to fill several uplinks, which the emulated guest cannot
# carry in a few seconds.
#
# Integration: Ethereal's mode reps on the leaf–spine fabric (2 leaves × 4
# spines × 1 host, TBF on every leaf uplink and spine downlink): one TCP
# flow from the host of leaf 0 to the host of leaf 1 for T s.  Asserts that
# the flow completes with goodput, that its packets were tagged per packet
# from recycled entropies (ACKs without ECE came back and were reused) and
# by exploring, and that leaf 0 steered its bytes over at least 3 of the 4
# uplinks, each of those with at least 5 % of them — one flow sprayed over
# several paths, where ECMP (and Ethereal) keep a flow on one.
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/fabric.sh

W=$OUT/integ-ethereal-reps
mkdir -p "$W"
D=("$BUILD/dcbpf")
L=2 S=4 H=1 RATE=100 BUF=250000 T=3
export FAB_INT_ROOM=4	# the tag-only option

for c in iperf3 jq; do
	command -v $c >/dev/null || { t_fail "ethereal reps: prerequisites" "'$c' missing: apt-get install -y iperf3 jq"; exit 1; }
done
[ -x "$BUILD/dcbpf" ] || { t_fail "ethereal reps: prerequisites" "$BUILD/dcbpf not built (make)"; exit 1; }

if ! fabric_leafspine $L $S $H $RATE $BUF; then
	t_fail "ethereal reps: 2x4x1 fabric" "fabric_leafspine failed"
	exit 1
fi
PIN=/sys/fs/bpf/dcbpf-ethreps-$FAB_ID
D+=(--pin-dir "$PIN")

if fabric_leafspine_ethereal "$BUILD/dcbpf" "$PIN" reps 2>"$W/attach.err"; then
	t_pass "ethereal reps: attached to 2 hosts and 2 leaves in mode reps"
else
	t_fail "ethereal reps: attach" "$(tr '\n' ' ' <"$W/attach.err")"
	exit 1
fi
st=$("${D[@]}" ethereal status --netns "${FAB_HOSTS[0]}" --json)
if echo "$st" | jq -e '.hosts[0] | .mode == "reps" and .reps_buf == 8 and .reps_freeze_ms == 0' >/dev/null; then
	t_pass "ethereal reps: status shows mode reps, buffer 8 (REPS' default), no freezing"
else t_fail "ethereal reps: status" "$st"; fi

path_bytes() {
	"${D[@]}" ethereal status --netns "${FAB_LEAVES[0]}" --json |
		jq -r '[.leaves[0].paths[] | select(.tag > 0) | .bytes] | map(tostring) | join(" ")'
}
fabric_bg "${FAB_HOSTS[1]}" iperf3 -s -p 5201 -B "${FAB_HOST_IPS[1]}" >"$W/server.log" 2>&1
fabric_wait_port "${FAB_HOSTS[1]}" 5201 || { t_fail "ethereal reps: iperf3 server" "not listening"; exit 1; }
pb0=$(path_bytes)
fabric_cg_exec "${FAB_HOSTS[0]}" iperf3 -c "${FAB_HOST_IPS[1]}" -p 5201 -P 1 -t $T -J >"$W/client.json" 2>&1
rc=$?
pb1=$(path_bytes)
gp=$(jq -r '.end.sum_received.bits_per_second // 0' "$W/client.json" 2>/dev/null || echo 0)
gp=$(awk -v g="$gp" 'BEGIN {printf "%.0f", g / 1e6}')
# per-path bytes of this run, and how many paths carry >= 5 % of them
read -r used total <<<"$(paste -d' ' <(tr ' ' '\n' <<<"$pb0") <(tr ' ' '\n' <<<"$pb1") |
	awk '{d[NR] = $2 - $1; s += d[NR]} END {u = 0; for (i = 1; i <= NR; i++) if (d[i] * 20 >= s && s > 0) u++; print u, s}')"
c=$("${D[@]}" ethereal status --netns "${FAB_HOSTS[0]}" --json | jq -c '.hosts[0].counters')
echo "reps: path bytes before '$pb0' after '$pb1'; $used of $S paths >= 5 %; goodput $gp Mbit/s; counters $c" |
	tee "$W/reps.txt"
if [ $rc = 0 ] && [ "$gp" -gt 0 ]; then
	t_pass "ethereal reps: the flow completed, goodput $gp Mbit/s"
else t_fail "ethereal reps: transfer" "rc=$rc goodput $gp: $(head -c 300 "$W/client.json")"; fi
if echo "$c" | jq -e '.reps_recycled > 0 and .reps_explored > 0 and .reps_saved > 0 and
	.reps_no_state == 0' >/dev/null; then
	t_pass "ethereal reps: packets took recycled entropies ($(jq -r .reps_recycled <<<"$c")) and explored ($(jq -r .reps_explored <<<"$c")); $(jq -r .reps_saved <<<"$c") entropies came back on unmarked ACKs"
else t_fail "ethereal reps: recycling counters" "$c"; fi
if [ "${used:-0}" -ge 3 ] && [ "${total:-0}" -gt 0 ]; then
	t_pass "ethereal reps: one flow's bytes went over $used of $S uplinks (each >= 5 %)"
else t_fail "ethereal reps: spreading" "$used paths >= 5 % of $total bytes: $pb0 -> $pb1"; fi
