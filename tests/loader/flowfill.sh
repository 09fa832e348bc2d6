# Per-flow maps sized by flows_max and filled for real:
#  - a daemon started with flows_max = 1024 creates dc_cc_flows and dc_int_flows
#    with 1024 entries;
#  - 3000 established connections with unique tuples (connflood -H holds them
#    open) fill dc_cc_flows to capacity, and its memlock does not move;
#  - a long flow started before the flood keeps its entry all along (its ACK
#    count never restarts: an evicted entry would come back from 0) and its CC
#    state (mode, cwnd);
#  - a restart that adopts the maps with another flows_max says so.
# Never sets a netns or global default CC: sockets choose the CC themselves.
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.
# SC2317: cleanup runs from the EXIT trap.
# SC2119: dcbpfd_start takes optional CC lines, none here.
# shellcheck disable=SC2015,SC2317,SC2119
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/dcbpfd.sh

C=$BUILD/dcbpf
FLOOD=$BUILD/tools/connflood
NS=dcbpf-ff$$
PORT=5311
MAX=1024
N=${FLOOD_N:-3000}
PIDS=""

cleanup() {
	local p
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	ip netns del "$NS" 2>/dev/null
	dcbpfd_stop
}
t_cleanup cleanup

for b in "$C" "$BUILD/dcbpfd" "$FLOOD"; do
	[ -x "$b" ] || { t_fail "flowfill: binaries built" "$b missing (run make)"; exit 1; }
done
DCBPFD_DAEMON="flows_max = $MAX"
if ! dcbpfd_start; then
	t_fail "flowfill: dcbpfd starts" "$DCBPFD_ERR"
	exit 1
fi
mapj() { bpftool map show pinned "$DCBPFD_PIN/$1" -j; }
entries() { bpftool map dump pinned "$DCBPFD_PIN/dc_cc_flows" -j 2>/dev/null | jq length; }
m1=$(mapj dc_cc_flows | jq .max_entries)
m2=$(mapj dc_int_flows | jq .max_entries)
mem0=$(mapj dc_cc_flows | jq .bytes_memlock)
[ "$m1" = $MAX ] && [ "$m2" = $MAX ] &&
	t_pass "flowfill: flows_max = $MAX sizes dc_cc_flows and dc_int_flows (memlock $mem0 B)" ||
	t_fail "flowfill: flows_max sizes the per-flow maps" "dc_cc_flows $m1, dc_int_flows $m2"

ip netns add "$NS" && ip -n "$NS" link set lo up
ip netns exec "$NS" iperf3 -s -p $PORT >/dev/null 2>&1 &
PIDS="$PIDS $!"
sleep 0.5
ip netns exec "$NS" iperf3 -c 127.0.0.1 -p $PORT -C powertcp -b 200M -t 60 >/dev/null 2>&1 &
IPERF=$!
PIDS="$PIDS $IPERF"
long() { # FIELD of the long flow's data stream entry (the busiest one to PORT), or nothing
	"$C" --pin-dir "$DCBPFD_PIN" --json dump flows |
		jq -r "[.[] | select(.dst == \"127.0.0.1:$PORT\" and .cc == \"powertcp\")] | max_by(.acks) | .$1 // empty"
}
wait_until 10 bash -c "[ -n \"\$('$C' --pin-dir '$DCBPFD_PIN' --json dump flows | jq '.[] | select(.dst == \"127.0.0.1:$PORT\")')\" ]"
packs() { "$C" --pin-dir "$DCBPFD_PIN" --json dump stats | jq .powertcp.acks; }
src=$(long src)
a0=$(long acks)
s0=$(packs)
ip netns exec "$NS" timeout 60 "$FLOOD" -n "$N" -k "$N" -s 2000 -c theta_powertcp -H 6 >"${DCBPFD_CONF%.conf}.flood" 2>&1 &
FPID=$!
PIDS="$PIDS $FPID"
# sample the long flow while the flood runs: its ACK count must only grow
prev=$a0 mono=1 peak=0 samples=0 seq=""
while kill -0 "$FPID" 2>/dev/null; do
	a=$(long acks)
	seq="$seq ${a:--}"
	[ -n "$a" ] && [ "$a" -ge "$prev" ] || mono=0
	prev=${a:-0}
	n=$(entries)
	[ -n "$n" ] && [ "$n" -gt "$peak" ] && peak=$n
	samples=$((samples + 1))
	grep -q holding "${DCBPFD_CONF%.conf}.flood" && break
	sleep 0.2
done
wait_until 30 grep -q holding "${DCBPFD_CONF%.conf}.flood"
held=$(grep -o '"holding":[0-9]*' "${DCBPFD_CONF%.conf}.flood" | cut -d: -f2)
full=$(entries)
mem1=$(mapj dc_cc_flows | jq .bytes_memlock)
s1=$(packs)
a1=$(long acks)
src1=$(long src)
mode=$(long mode)
cwnd=$(long cwnd_bytes)
[ "${held:-0}" -ge "$MAX" ] &&
	t_pass "flowfill: $held connections with unique tuples established and held (more than $MAX)" ||
	t_fail "flowfill: flood connections held" "$(cat "${DCBPFD_CONF%.conf}.flood")"
# An LRU hash keeps up to 128 free nodes per CPU in per-CPU free lists (the
# kernel's LOCAL_FREE_TARGET); those are not in the table, so a full table can
# show that many fewer entries than max_entries.
ncpu=$(nproc)
[ "$full" -le "$MAX" ] && [ "$full" -ge $((MAX - 128 * ncpu)) ] &&
	t_pass "flowfill: dc_cc_flows filled to capacity: $full of $MAX entries" ||
	t_fail "flowfill: dc_cc_flows filled to capacity" "$full of $MAX (peak $peak)"
[ "$mem0" = "$mem1" ] && t_pass "flowfill: dc_cc_flows memlock unchanged by the flood ($mem1 B)" ||
	t_fail "flowfill: dc_cc_flows memlock unchanged" "$mem0 -> $mem1"
# Only the long flow (and its few control-connection ACKs) runs powertcp, so
# its entry counted every powertcp ACK of the flood window [s0, s1] (read
# inside [a0, a1]): an entry evicted and created again would have lost a0.
if [ "$mono" = 1 ] && [ -n "$a1" ] && [ $((a1 - a0)) -ge $((s1 - s0 - 5)) ] && [ "$src1" = "$src" ] && [ "$mode" != init ] &&
	[ "${cwnd:-0}" -gt 0 ] && kill -0 "$IPERF" 2>/dev/null; then
	t_pass "flowfill: the long flow kept its entry through the flood (acks $a0 -> $a1, all $((s1 - s0)) powertcp ACKs of the window counted; $samples samples; mode $mode, cwnd $cwnd B)"
else
	t_fail "flowfill: the long flow kept its entry" "mono=$mono acks $a0 -> $a1 (samples:$seq), powertcp acks $s0 -> $s1 src $src -> $src1 mode=$mode cwnd=$cwnd"
fi
wait "$FPID"
PIDS=${PIDS// $FPID/}
kill -TERM "$IPERF" 2>/dev/null
wait "$IPERF" 2>/dev/null
PIDS=${PIDS// $IPERF/}

# ---- adoption with another flows_max: said, and the pinned size stays -------------------------
kill -KILL "$DCBPFD_PID"
wait "$DCBPFD_PID" 2>/dev/null
sed -i "s/^flows_max = .*/flows_max = 2048/" "$DCBPFD_CONF"
LOG=${DCBPFD_CONF%.conf}.2.log
"$BUILD/dcbpfd" -c "$DCBPFD_CONF" >"$LOG" 2>&1 &
DCBPFD_PID=$!
if wait_until 15 grep -q "ready:" "$LOG" &&
	grep -q "flows_max = 2048, but the adopted $DCBPFD_PIN/dc_cc_flows has $MAX entries" "$LOG" &&
	[ "$(mapj dc_cc_flows | jq .max_entries)" = $MAX ]; then
	t_pass "flowfill: a restart adopting maps of another size says so and keeps them"
else
	t_fail "flowfill: adoption size mismatch" "$(grep -E 'flows_max|error' "$LOG" | tr '\n' ' ')"
fi
exit 0
