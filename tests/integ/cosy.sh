# Integration: cosy through a switch running bpf/cosy.bpf.c ("Building a
# Partial Communication Synchrony Abstraction on Asynchronous
# Datacenters"): two hosts and one switch as namespaces, the program at TC
# ingress of the switch's ports (`dcbpf cosy attach`), `dcbpf cosy serve` on
# h2 and `dcbpf cosy send` on h1.  Requests and the receiver's completes
# are forwarded by the kernel; every rsvp reserves a virtual link on the
# switch's port toward h1 and is relabelled; data and the sender's complete
# follow the label to h2; each complete frees its link.  Checks: every
# message completes, the switch reserved and released one VL per message,
# forwarded every data packet along a reservation, dropped nothing, and
# holds no VL at the end.  Then the RSVP baseline's blocking (K = 1): h1
# sends to h2 and h3 at once, the switch has one VL toward h1, so one
# message completes and the other's rsvp becomes a reject to both ends —
# the sender's copy cloned out toward h1 (reason "no virtual link").
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.
# shellcheck disable=SC2015
source "$(dirname "$0")/../lib/test.sh"

t_need_root "cosy: fabric" "network namespaces and BPF need root"
if [ ! -x "$BUILD/dcbpf" ]; then
	t_fail "cosy: built" "run make"
	exit 1
fi
D=$(realpath "$BUILD/dcbpf")
tmp=$(t_mktmp cosy-fab) || exit 1
N=3 K=2
H1=cosy-h1-$$ S=cosy-sw-$$ H2=cosy-h2-$$ H3=cosy-h3-$$
PIN=/sys/fs/bpf/dcbpf-cosyfab$$
DP=("$D" --pin-dir "$PIN")
unpin() { "${DP[@]}" cosy detach --netns "$S" >/dev/null 2>&1; rm -rf "$PIN"; }
t_cleanup unpin

del_ns() { ip netns del "$1" 2>/dev/null || true; }
for ns in "$H1" "$S" "$H2" "$H3"; do
	ip netns add "$ns" || { t_fail "cosy: namespaces" "ip netns add $ns"; exit 1; }
	t_cleanup del_ns "$ns"
	ip -n "$ns" link set lo up
done
ip link add c1 netns "$H1" type veth peer name p1 netns "$S"
ip link add c2 netns "$H2" type veth peer name p2 netns "$S"
ip link add c3 netns "$H3" type veth peer name p3 netns "$S"
ip -n "$H3" addr add 10.77.3.1/24 dev c3
ip -n "$S" addr add 10.77.3.254/24 dev p3
ip -n "$H1" addr add 10.77.1.1/24 dev c1
ip -n "$H2" addr add 10.77.2.1/24 dev c2
ip -n "$S" addr add 10.77.1.254/24 dev p1
ip -n "$S" addr add 10.77.2.254/24 dev p2
for l in "$H1 c1" "$H2 c2" "$H3 c3" "$S p1" "$S p2" "$S p3"; do
	# shellcheck disable=SC2086
	set -- $l
	ip -n "$1" link set "$2" up
done
ip -n "$H1" route add default via 10.77.1.254
ip -n "$H2" route add default via 10.77.2.254
ip -n "$H3" route add default via 10.77.3.254
ip netns exec "$S" sysctl -qw net.ipv4.ip_forward=1
mac() { ip netns exec "$1" cat "/sys/class/net/$2/address"; }

stop_pid() { kill "$1" 2>/dev/null || true; }
switch() { # K DELTA_COSY_NS [OPTION]: the program on the three switch ports
	local out
	out=$("${DP[@]}" cosy attach --netns "$S" -k "$1" -e "$2" ${3:+"$3"} ${4:+"$4"} -p "p1,$(mac "$H1" c1),10.77.1.1" \
		-p "p2,$(mac "$H2" c2),10.77.2.1" -p "p3,$(mac "$H3" c3),10.77.3.1" 2>&1) ||
		{ t_fail "cosy: switch program attached (K $1)" "$out"; exit 1; }
}
# the switch's counters and the VLs it holds, as one object
swstat() {
	"${DP[@]}" --json cosy status --netns "$S" |
		jq -c '.counters + {vls_held: ([.ports[].held] | add), held_p1: (.ports[] | select(.if == "p1") | .held)}'
}
# δ_cosy at the switch and the hosts: 2 s (a 64000-byte message takes about
# 1 ms; the 6.1 guest under emulation, pings beside, needed more than the
# default 100 ms)
# with the control class: an HTB root per port, control strict priority
switch $K 2000000000 --ctrl-mbit 1000

ip netns exec "$H2" "$D" --json cosy serve --bind 10.77.2.1 -n $N -k $K --delta-ns 2000000000 --run-ms 10000 >"$tmp/serve.json" 2>&1 &
SERVE=$!
t_cleanup stop_pid "$SERVE"
sleep 0.3
# best effort beside cosy: h3 pings h2 through the same port meanwhile
ip netns exec "$H3" ping -c 20 -i 0.02 -W 2 -s 1000 -q 10.77.2.1 >"$tmp/ping.txt" 2>&1 &
PING=$!
jqs "cosy: $N messages of 64000 B from h1 to h2 through the switch complete" \
	".complete == $N and .done == $N" \
	ip netns exec "$H1" "$D" --json cosy send --to 10.77.2.1 -n $N -k $K --delta-ns 2000000000 --run-ms 10000
wait "$SERVE"
wait "$PING"
grep -q ' 20 received' "$tmp/ping.txt" && t_pass "cosy: best-effort traffic beside it: 20 of 20 pings from h3 to h2" ||
	t_fail "cosy: best-effort pings beside cosy" "$(tail -n 2 "$tmp/ping.txt" | tr '\n' ' ')"
jqv "cosy: h2 received $N" "$(cat "$tmp/serve.json")" ".received == $N and .failed == 0"
jqv "cosy: the switch reserved and released one VL per message, forwarded every data packet, dropped nothing, holds none" \
	"$(swstat)" \
	".rsvps == $N and .released == $N and .data == $N * 46 and .drops == 0 and .vls_held == 0 and .rejects_made == 0"
# toward h2: the requests and the sender's completes in the control
# class, the 46 data packets of each message and the pings in the
# best-effort one
cls_pkts() { tc -n "$S" -s class show dev p2 | awk -v c="$1" '$1 == "class" { hit = ($3 == c) } hit && $1 == "Sent" { print $4; exit }'; }
c1=$(cls_pkts c05:1) c2=$(cls_pkts c05:2)
[ "${c1:-0}" -ge $((2 * N)) ] && [ "${c2:-0}" -ge $((46 * N + 20)) ] && [ "${c1:-0}" -lt $((46 * N)) ] &&
	t_pass "cosy: on the port toward h2, control in the strict-priority class ($c1 packets), data in best effort ($c2)" ||
	t_fail "cosy: the control class" "c05:1 $c1, c05:2 $c2 packets (want >= $((2 * N)) and >= $((46 * N + 20)))"

# K = 1: two messages from h1 at once, one VL toward h1.  Each takes 512 ms
# on the wire (6.4 MB at 100 Mb/s), so the two overlap even when the second
# sender starts late (an emulated guest).  δ and the switch's expiry are
# 10 s: in the 6.1 guest on a loaded machine the winner's pacing took 3 s.
"${DP[@]}" cosy detach --netns "$S" >/dev/null || t_fail "cosy: detach" "exit $?"
switch 1 10000000000 --rsvp
for h in "$H2:10.77.2.1:2" "$H3:10.77.3.1:3"; do
	IFS=: read -r ns ip n <<<"$h"
	ip netns exec "$ns" "$D" --json cosy serve --bind "$ip" -n 1 -k 1 --delta-ns 10000000000 --run-ms 15000 >"$tmp/serve$n.json" 2>&1 &
	t_cleanup stop_pid $!
done
sleep 0.3
for n in 2 3; do
	ip netns exec "$H1" "$D" --json cosy send --to 10.77.$n.1 -n 1 -k 1 -s 6400000 -B 100000 \
		--delta-ns 10000000000 --run-ms 15000 \
		>"$tmp/send$n.json" 2>&1 &
	eval "SEND$n=\$!"
done
# while the winner's message is on the wire its VL toward h1 is held
held=0
while kill -0 "$SEND2" 2>/dev/null || kill -0 "$SEND3" 2>/dev/null; do
	[ "$(swstat | jq .held_p1)" = 1 ] && { held=1; break; }
	sleep 0.2
done
wait "$SEND2" "$SEND3"
[ $held = 1 ] && t_pass "cosy K=1: status showed the VL toward h1 held while a message was sent" ||
	t_fail "cosy K=1: status showed the VL toward h1 held" "never seen"
jqv "cosy K=1: one message completes, the other is rejected for want of a virtual link (reason 1)" \
	"$(jq -s '[.[].messages[]]' "$tmp/send2.json" "$tmp/send3.json")" \
	'([.[] | .status] | sort) == ["complete", "reject"] and ([.[] | select(.status == "reject") | .reason] == [1])'
jqv "cosy K=1: the switch made one reject and cloned its sender copy out, freed the winner's VL, holds none" \
	"$(swstat)" \
	'.rsvps == 1 and .rejects_made == 1 and .rejects_to_sender == 1 and .released == 1 and .drops == 0 and .vls_held == 0'

[ -z "${T_FAILED:-}" ]
