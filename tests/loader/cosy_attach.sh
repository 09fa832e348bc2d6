# `dcbpf cosy attach`, `status`, `detach` on a scratch switch namespace
# with three ports (veth pairs whose peers stand in for the neighbours), no
# traffic (the program's packets: tests/prog/test_cosy_prog.c and
# tests/integ/cosy.sh, which attaches with this command):
#  - status and detach before any attach say it is not attached (exit 1);
#  - attach refuses an unknown interface, K outside 1..64, --rsvp with
#    K > 1, a bad MAC, a bad host, a port given twice and a host behind
#    more than 8 ports, each with its reason and exit 2, leaving no pin;
#  - an attach whose control class fails on the third port (a TBF root
#    there already) is refused and takes the first two ports' HTB roots,
#    the programs and the pins away again;
#  - a good attach: status shows K, mode, δ_cosy, every port with no VL
#    held and zero counters, the routes (a host behind two ports has both
#    as candidates), the pins, the program at TC ingress of every port and
#    the HTB control class; a second attach is refused and changes nothing;
#  - detach removes programs, HTB roots and pins; again, it says so; the
#    RSVP mode is K 1 in status.
# host-suite: the command's checks, refusals and undo are user space over
# tc and the pin directory; its 6.1 path (clsact instead of tcx, the HTB
# control class, status, detach) is proven by integ/cosy.sh, which attaches
# its switch with this command (saves 30-50 s of the VM suite).
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.  SC2317: cleanup
# runs from the EXIT trap.
# shellcheck disable=SC2015,SC2317
source "$(dirname "$0")/../lib/test.sh"

t_need_root "cosy attach"
C=$BUILD/dcbpf
PIN=/sys/fs/bpf/dcbpf-cosyatt$$
NS=dcbpf-cosyatt$$

cleanup() {
	"$C" --pin-dir "$PIN" cosy detach --netns "$NS" >/dev/null 2>&1
	ip netns del "$NS" 2>/dev/null
	rm -rf "$PIN"
}
t_cleanup cleanup

[ -x "$C" ] || { t_fail "cosy attach: dcbpf built" "$C missing (run make)"; exit 1; }
D=("$C" --pin-dir "$PIN")
ip netns add "$NS" || { t_fail "cosy attach: scratch namespace" "ip netns add failed"; exit 1; }
for i in 0 1 2 3 4 5 6 7 8; do
	ip -n "$NS" link add sw$i type veth peer name nb$i &&
		ip -n "$NS" link set sw$i up && ip -n "$NS" link set nb$i up ||
		{ t_fail "cosy attach: veth pairs" "ip link add failed"; exit 1; }
done
mac() { ip netns exec "$NS" cat "/sys/class/net/$1/address"; }
P0="sw0,$(mac nb0),10.9.0.1" P1="sw1,$(mac nb1),10.9.1.1,10.9.9.9" P2="sw2,$(mac nb2),10.9.2.1,10.9.9.9"
A=(cosy attach --netns "$NS" -e 5000000)
nothing_pinned() { [ ! -e "$PIN/cosy" ]; }

expect "cosy attach: status before attach" 1 "cosy is not attached in netns $NS" "${D[@]}" cosy status --netns "$NS"
expect "cosy attach: detach before attach" 1 "cosy is not attached in netns $NS" "${D[@]}" cosy detach --netns "$NS"

# refusals: the reason, exit 2, nothing pinned
refuse() { # NAME TEXT ARGS...
	local name=$1 text=$2
	shift 2
	expect "cosy attach: refused: $name" 2 "$text" "${D[@]}" "${A[@]}" "$@"
	nothing_pinned && t_pass "cosy attach: refused $name: nothing pinned" ||
		t_fail "cosy attach: refused $name: nothing pinned" "$(ls -R "$PIN" 2>&1)"
}
refuse "unknown port" "nope0" -p "nope0,$(mac nb0),10.9.0.1" -p "$P1"
refuse "K 65" "65" -k 65 -p "$P0"
refuse "K 0" "--k" -k 0 -p "$P0"
refuse "--rsvp with K 4" "contradicts" --rsvp -k 4 -p "$P0"
refuse "bad MAC" "'02:zz' is not a MAC address" -p "sw0,02:zz,10.9.0.1"
refuse "bad host" "host '10.9.0' is not an IPv4 address" -p "sw0,$(mac nb0),10.9.0"
refuse "no hosts" "want IF,PEER_MAC,HOST" -p "sw0,$(mac nb0)"
refuse "port twice" "sw0 is port 0 already" -p "$P0" -p "sw0,$(mac nb0),10.9.3.1"
many=()
for i in $(seq 0 8); do many+=(-p "sw$i,$(mac nb0),10.9.8.$i,10.9.7.7"); done
refuse "a host behind 9 ports" "more than 8 candidate ports" "${many[@]}"

# a control class that cannot be built on the third port: all undone
tc -n "$NS" qdisc add dev sw2 root tbf rate 100mbit burst 3000 latency 10ms
out=$("${D[@]}" "${A[@]}" --ctrl-mbit 1000 -p "$P0" -p "$P1" -p "$P2" 2>&1)
rc=$?
[ $rc = 1 ] && grep -q "port sw2 (netns $NS): the control class (HTB)" <<<"$out" &&
	grep -q "nothing is left attached or pinned" <<<"$out" &&
	t_pass "cosy attach: a failing control class is refused (exit 1, the port named)" ||
	t_fail "cosy attach: a failing control class is refused" "exit $rc: $out"
left=$(tc -n "$NS" qdisc show dev sw0 root; tc -n "$NS" qdisc show dev sw1 root)
nothing_pinned && ! grep -q 'htb c05:' <<<"$left" &&
	[ -z "$(bpftool prog show name dc_cosy_ingress 2>/dev/null)" ] &&
	t_pass "cosy attach: after the refusal no HTB root, program or pin is left" ||
	t_fail "cosy attach: after the refusal nothing is left" "$left $(ls -R "$PIN" 2>&1)"
tc -n "$NS" qdisc del dev sw2 root

# a good attach
out=$("${D[@]}" "${A[@]}" -k 8 -i 7 --ctrl-mbit 1000 -p "$P0" -p "$P1" -p "$P2" 2>&1)
rc=$?
[ $rc = 0 ] && grep -q "3 ports, 4 hosts, K 8 (cosy)" <<<"$out" &&
	t_pass "cosy attach: attached (3 ports, 4 hosts, K 8)" || t_fail "cosy attach: attached" "exit $rc: $out"
jqs "cosy attach: status: K 8, cosy, δ_cosy, switch 7; three ports, none held, counters 0; 10.9.9.9 behind sw1 and sw2" \
	'.k == 8 and .mode == "cosy" and .expiry_ns == 5000000 and .switch_id == 7 and
	 ([.ports[] | [.port, .if, .held, (.vls | length), .reserved, .fwd_data]] == [[0, "sw0", 0, 0, 0, 0], [1, "sw1", 0, 0, 0, 0], [2, "sw2", 0, 0, 0, 0]]) and
	 ([.routes[] | select(.host == "10.9.9.9") | .ports] == [["sw1", "sw2"]]) and
	 ([.routes[] | select(.host == "10.9.0.1") | .ports] == [["sw0"]]) and (.routes | length) == 4 and
	 .counters.pkts == 0 and .counters.drops == 0 and ([.counters | keys[] | select(startswith("drop_"))] | length) == 8' \
	"${D[@]}" --json cosy status --netns "$NS"
expect "cosy attach: status text: the port table and the switch's counters" 0 "^1 +sw1 +0 +0x0 " \
	"${D[@]}" cosy status --netns "$NS"
pins=$(ls "$PIN/cosy/$NS" 2>&1 | tr '\n' ' ')
[ "$(ls "$PIN/cosy/$NS" | grep -c '^dc_cosy_')" = 5 ] && t_pass "cosy attach: the five maps pinned under PIN_DIR/cosy/NS" ||
	t_fail "cosy attach: maps pinned" "$pins"
n=0
for i in 0 1 2; do
	tc -n "$NS" qdisc show dev sw$i root | grep -q 'htb c05:' &&
		[ "$(tc -n "$NS" class show dev sw$i | grep -c 'htb c05:[12] ')" = 2 ] && n=$((n + 1))
done
[ $n = 3 ] && t_pass "cosy attach: every port has the HTB root with the control and best-effort classes" ||
	t_fail "cosy attach: HTB control class" "$(tc -n "$NS" qdisc show; tc -n "$NS" class show dev sw0)"
tc -n "$NS" filter show dev sw0 parent c05: | grep -q 'flowid c05:1' &&
	t_pass "cosy attach: a filter puts cosy control into c05:1" ||
	t_fail "cosy attach: control filter" "$(tc -n "$NS" filter show dev sw0 parent c05:)"
# tcx links pinned as IF_ingress, or (6.1) cls_bpf filters on clsact
links=$(ls "$PIN/cosy/$NS" | grep -c '^sw[012]_ingress$')
tcs=$(for i in 0 1 2; do tc -n "$NS" filter show dev sw$i ingress; done | grep -c dc_cosy_ingress)
[ $((links + tcs)) = 3 ] && t_pass "cosy attach: the program at TC ingress of the three ports" ||
	t_fail "cosy attach: the program on every port" "tcx links: $links, tc filters: $tcs"
expect "cosy attach: a second attach is refused" 1 "already attached in netns $NS" \
	"${D[@]}" "${A[@]}" -k 2 -p "$P0"
jqs "cosy attach: the first attachment is unchanged" '.k == 8 and (.ports | length) == 3' \
	"${D[@]}" --json cosy status --netns "$NS"

expect "cosy attach: detach" 0 "cosy detached in netns $NS: 3 ports" "${D[@]}" cosy detach --netns "$NS"
left=$(for i in 0 1 2; do tc -n "$NS" qdisc show dev sw$i root; tc -n "$NS" filter show dev sw$i ingress; done)
nothing_pinned && ! grep -q 'htb c05:\|dc_cosy' <<<"$left" &&
	[ -z "$(bpftool prog show name dc_cosy_ingress 2>/dev/null)" ] &&
	t_pass "cosy attach: detach left no program, HTB root or pin" ||
	t_fail "cosy attach: detach left nothing" "$left $(ls -R "$PIN" 2>&1)"
expect "cosy attach: detach again" 1 "not attached" "${D[@]}" cosy detach --netns "$NS"

expect "cosy attach: --rsvp" 0 "K 1 \\(RSVP\\)" "${D[@]}" "${A[@]}" --rsvp -p "$P0"
jqs "cosy attach: status in RSVP mode: K 1" '.k == 1 and .mode == "rsvp"' "${D[@]}" --json cosy status --netns "$NS"
"${D[@]}" cosy detach --netns "$NS" >/dev/null && nothing_pinned &&
	t_pass "cosy attach: RSVP detached, nothing pinned" || t_fail "cosy attach: RSVP detach" "$(ls -R "$PIN" 2>&1)"

[ -z "${T_FAILED:-}" ]
