# ResQueue's tagger on a live interface (two namespaces over a veth, TSO,
# GSO and GRO off, no switch): one TCP connection sends 300,000 B; the
# receiver's capture shows every data segment with the DSCP its flow's
# bytes sent give -- level 2 (CS6) below 32 KB, level 3 (CS5) below
# 256 KB, level 4 (CS4) after -- with
# the IPv4 checksum the receiver accepted (the bytes arrive); the flow's
# entry holds exactly 300,000 B sent and level 4; nothing is left after
# detach.  Then RTO-only promotion: a sender in a cgroup, its path cut for
# 0.6 s (the peer down), sockops records the timeout and the retransmissions after it go
# one level up.  A kernel without tcx links (6.1): the CLI test covers the
# refusal.
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.  SC2317: cleanup
# runs from the EXIT trap.
# shellcheck disable=SC2015,SC2317
source "$(dirname "$0")/../lib/test.sh"

t_need_root "resq live"
C=$BUILD/dcbpf
PIN=/sys/fs/bpf/dcbpf-resqlive$$
A=dcbpf-rqa$$
Z=dcbpf-rqz$$
CAP=""
CG=""
BYTES=300000

cleanup() {
	[ -n "$CAP" ] && t_stop "$CAP"
	"$C" --pin-dir "$PIN" resq detach --netns "$A" >/dev/null 2>&1
	ip netns del "$A" 2>/dev/null
	ip netns del "$Z" 2>/dev/null
	rm -rf "$PIN"
	[ -n "$CG" ] && rmdir "$CG" 2>/dev/null
}
t_cleanup cleanup

[ -x "$C" ] || { t_fail "resq live: dcbpf built" "$C missing (run make)"; exit 1; }
command -v tshark >/dev/null || { t_skip "resq live" "no tshark (make deps-test)"; exit 0; }
D=("$C" --pin-dir "$PIN")
if [ "$("${D[@]}" --json status | jq -r '.features.tcx.present')" != true ]; then
	# The tagger needs tcx links: here the live attach is refused, named, and
	# leaves nothing (tests/loader/resq_cli.sh checks the same on its own set-up).
	ip netns add "$A" && ip -n "$A" link add va type veth peer name vb && ip -n "$A" link set va up ||
		{ t_fail "resq live: namespace" "ip failed"; exit 1; }
	out=$("${D[@]}" resq attach --netns "$A" --dev va 2>&1) && rc=0 || rc=$?
	[ "$rc" = 1 ] && grep -q "no tcx links" <<<"$out" && [ ! -e "$PIN/resq" ] &&
		t_pass "resq live: no tcx links on $(uname -r): attach refused with the reason, nothing pinned" ||
		t_fail "resq live: no tcx links: attach refused" "rc $rc: $out; $(ls -R "$PIN" 2>&1 | tr '\n' ' ')"
	exit 0
fi
tmp=$(t_mktmp resq-live) || exit 1
cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -n "$cgroot" ]; then
	CG=$cgroot/dcbpf-resqlive$$
	mkdir "$CG" || CG=""
fi
ip netns add "$A" && ip netns add "$Z" || { t_fail "resq live: namespaces" "ip netns add failed"; exit 1; }
ip link add va netns "$A" type veth peer name vz netns "$Z"
ip -n "$A" addr add 10.77.0.1/24 dev va
ip -n "$Z" addr add 10.77.0.2/24 dev vz
ip -n "$A" link set va up
ip -n "$Z" link set vz up
# TCP builds GSO packets whatever the device offers (they are split after
# TC egress); one segment per packet makes the levels per MSS
ip -n "$A" link set va gso_max_segs 1
ip netns exec "$A" ethtool -K va tso off gso off >/dev/null
ip netns exec "$Z" ethtool -K vz gro off >/dev/null 2>&1

expect "resq live: attach to va" 0 "tagging va" "${D[@]}" resq attach --netns "$A" --dev va

# relative sequence, payload length, DSCP of every data segment from A
ip netns exec "$Z" tshark -n -i vz -f "tcp and src host 10.77.0.1" -T fields \
	-e tcp.seq -e tcp.len -e ip.dsfield.dscp >"$tmp/cap" 2>"$tmp/cap.err" &
CAP=$!
wait_until 10 grep -q "Capturing on" "$tmp/cap.err" ||
	{ t_fail "resq live: capture started" "$(head -c 300 "$tmp/cap.err")"; exit 1; }
# A receiver in Z on PORT that writes the bytes it got to FILE, its pid in
# srv; returns once it listens.  Both ends are bounded in time: a failed
# connect must not leave the other waiting.
sink() { # port file
	ip netns exec "$Z" timeout 20 python3 -c '
import socket, sys
s = socket.socket(); s.settimeout(15); s.bind(("10.77.0.2", int(sys.argv[1]))); s.listen(1)
c, _ = s.accept(); c.settimeout(15); n = 0
while True:
    d = c.recv(65536)
    if not d: break
    n += len(d)
print(n)' "$1" >"$2" &
	srv=$!
	wait_until 5 listening "$1" || { t_fail "resq live: receiver listening" "no listener on :$1"; exit 1; }
}
listening() { ip netns exec "$Z" ss -ltn "sport = :$1" | grep -q ":$1"; }
sink 5201 "$tmp/rx"
ip netns exec "$A" timeout 20 python3 -c "
import socket
s = socket.create_connection(('10.77.0.2', 5201)); s.sendall(b'x' * $BYTES); s.close()"
wait "$srv"
[ "$(cat "$tmp/rx")" = "$BYTES" ] && t_pass "resq live: the receiver got all $BYTES B (checksums accepted)" ||
	t_fail "resq live: the receiver got all $BYTES B" "got '$(cat "$tmp/rx")'"
sleep 0.3
t_stop "$CAP"
CAP=""

st=$("${D[@]}" --json resq status --netns "$A")
jqv "resq live: the flow's entry: $BYTES B sent, level 4, no GSO packet" "$st" \
	"([.flows[] | select(.remote == \"10.77.0.2:5201\")] | length == 1 and .[0].bytes_sent == $BYTES and
	  .[0].level == 4) and .counters.gso == 0 and .counters.tagged > 200 and .counters.tag_err == 0"
promoted=$(jq '[.flows[] | select(.remote == "10.77.0.2:5201")][0].promoted_pkts' <<<"$st")
# New data leaves at the level of the bytes sent before it: relative
# sequence - 1 (the SYN's); level 2 below 32 KB, 3 below 256 KB, 4 after;
# level L leaves as DSCP CS(8 - L) = (8 - L) * 8.
# A segment off that rule must be a retransmission (its sequence captured
# twice; the capture may reorder a veth's packets across CPUs, so order
# is not used), and there are at most as many as the tagger promoted.
read -r nbad noff n2 n3 n4 first < <(awk -v t1=32768 -v t2=262144 '
	NR == FNR { if ($2 > 0) seen[$1]++; next }
	$2 > 0 { seq = $1 - 1; want = 2 + (seq >= t1) + (seq >= t2); n[$3]++
		 if ($3 != (8 - want) * 8) { off++; if (seen[$1] < 2) { bad++; if (!first) first = $1 "/" $3 } } }
	END { printf "%d %d %d %d %d %s\n", bad, off, n[48], n[40], n[32], first }' "$tmp/cap" "$tmp/cap")
[ "$nbad" = 0 ] && [ "$noff" -le "${promoted:-0}" ] && [ "$n2" -gt 0 ] && [ "$n3" -gt 0 ] && [ "$n4" -gt 0 ] &&
	t_pass "resq live: $((n2 + n3 + n4)) data segments at the level of their bytes sent (level 2 $n2, level 3 $n3, level 4 $n4; $noff retransmitted one up)" ||
	t_fail "resq live: data segments at the level of their bytes sent" \
		"$nbad off the rule and not retransmitted (first seq/dscp: '$first'); $noff off the rule, $promoted promoted; levels 2/3/4: $n2 $n3 $n4"

# RTO-only promotion through sockops: a sender in the cgroup, its path cut
# for 0.6 s mid-transfer, so the timer fires; the retransmissions after it
# go one up.  The cut: the peer down, so va loses carrier and drops what
# it sends, past the tagger.  A permanent neighbour entry keeps the
# packets going to TC egress meanwhile (carrier loss flushes the others,
# and packets would wait in the neighbour queue, unseen by the tagger);
# a dropping qdisc on va would tell TCP, which then retries without a
# timeout.
if [ -n "$CG" ]; then
	"${D[@]}" resq detach --netns "$A" >/dev/null
	expect "resq live: attach with --cgroup, promote rto" 0 "timeouts from" \
		"${D[@]}" resq attach --netns "$A" --dev va --cgroup "$CG"
	"${D[@]}" resq set --netns "$A" --promote rto
	ip -n "$A" neigh replace 10.77.0.2 lladdr "$(ip -n "$Z" -j link show vz | jq -r '.[0].address')" \
		dev va nud permanent
	sink 5202 "$tmp/rx2"
	timeout 20 bash -c "echo \$\$ >'$CG/cgroup.procs' && exec ip netns exec '$A' python3 -c \"
import socket, subprocess, time
s = socket.create_connection(('10.77.0.2', 5202)); s.sendall(b'x' * 40000); time.sleep(0.1)
subprocess.run(['ip', '-n', '$Z', 'link', 'set', 'vz', 'down'], check=True)
s.sendall(b'y' * 20000); time.sleep(0.6)
subprocess.run(['ip', '-n', '$Z', 'link', 'set', 'vz', 'up'], check=True)
s.sendall(b'z' * 40000); s.close()\""
	wait "$srv"
	[ "$(cat "$tmp/rx2")" = 100000 ] && t_pass "resq live: 100000 B arrived across the cut" ||
		t_fail "resq live: 100000 B arrived across the cut" "got '$(cat "$tmp/rx2")'"
	st=$("${D[@]}" --json resq status --netns "$A")
	f2=$(jq -c '[.flows[] | select(.remote == "10.77.0.2:5202")][0] | {rto_count, retx_pkts, promoted_pkts}' <<<"$st")
	jqv "resq live: sockops saw the timeout; retransmissions after it promoted ($f2)" "$st" \
		'[.flows[] | select(.remote == "10.77.0.2:5202")] | length == 1 and .[0].rto_count >= 1 and
		 .[0].retx_pkts >= 1 and .[0].promoted_pkts >= 1 and .[0].promoted_pkts <= .[0].retx_pkts and
		 .[0].bytes_sent == 100000'
fi

expect "resq live: detach" 0 "detached" "${D[@]}" resq detach --netns "$A"
[ ! -e "$PIN/resq" ] && t_pass "resq live: no pin left" || t_fail "resq live: no pin left" "$(ls -R "$PIN")"
[ -z "${T_FAILED:-}" ]
